dist_noinst_SCRIPTS += scripts/check scripts/quickstart scripts/embed-sources scripts/gpu-run
