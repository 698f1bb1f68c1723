/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.h - the timing front ends: `symvtune bench` (bench_run, a generated
 * libsymv against cuBLAS and OpenBLAS) and `symvtune time` (time_stage.h,
 * candidates against cuBLAS), both timing calls back to back through the
 * timing harness (measure/harness.h, harness_time_loop).
 */
#ifndef SYMV_BENCH_H
#define SYMV_BENCH_H

/** The statuses the stages of this folder return: the command's exit
 *  statuses (src/cli.h's SYMV_EXIT_*). */
enum { BENCH_OK = 0, BENCH_FAIL = 1, BENCH_USAGE = 2, BENCH_NO_GPU = 3, BENCH_ERROR = 4 };

#endif
