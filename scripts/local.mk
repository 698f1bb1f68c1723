# SPDX-License-Identifier: BSD-3-Clause
dist_noinst_SCRIPTS += scripts/check scripts/quickstart scripts/deps scripts/build scripts/embed-sources scripts/gpu-run scripts/gpu-final scripts/gpu-ship scripts/forget-routine
EXTRA_DIST += scripts/lsan.supp
# The Slurm job scripts, installed together (submit.sh finds the .sbatch
# files beside itself) in $(pkgdatadir)/slurm.
slurmdir = $(pkgdatadir)/slurm
dist_slurm_SCRIPTS = scripts/slurm/submit.sh scripts/slurm/local-cluster.sh scripts/slurm/sweep-array.sbatch \
	scripts/slurm/merge-fit.sbatch
