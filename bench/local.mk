# SPDX-License-Identifier: BSD-3-Clause
# bench: the timing front ends of `bench` (a generated libsymv against cuBLAS
# and OpenBLAS) and `time` (candidates against cuBLAS), both timing through
# the harness of measure/harness.h.
noinst_LIBRARIES += bench/libbench.a
bench_libbench_a_SOURCES = bench/bench.c bench/bench.h bench/time_stage.c bench/time_stage.h
