/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * time_stage.h - the stage of `symvtune time`: chosen candidates timed next
 * to cuBLAS (atomics mode off and on) at chosen sizes, in one run, calls
 * back to back (measure/harness.h, harness_time_loop), each candidate
 * verified against cuBLAS first; with the floor (gpu/floor.h) and the copy
 * rate measured in the same run.
 */
#ifndef SYMV_TIME_STAGE_H
#define SYMV_TIME_STAGE_H

#include "bench.h"
#include "gpu.h"
#include "routine.h"

/** TIME_STAGE_MAX_POINTS: the most candidates of one run. */
#define TIME_STAGE_MAX_POINTS 64

/** What `time` measures and how. */
typedef struct {
  bench_common c;      /* the routine, sizes, uplo, hot, batches, device */
  symv_params *points; /* the candidates, at most TIME_STAGE_MAX_POINTS (their routine is set to c.routine) */
  int npoints;
  double beta;         /* the calls' beta (imaginary part 0); alpha is 1 (complex routines: 1 + 0.25i) */
  int floor_detail;    /* time every floor shape fully and print each, the untuned kernel, the empty kernel */
  int no_floor;        /* measure no floor */
  int accuracy;        /* add the column err: each y's relative error against symv_ref_precise's */
} time_stage_opts;

/** time_stage_run: compiles and loads the candidates, measures the copy
 *  rate, then at each n prints a row (microseconds a call, GFLOPS, GB/s of
 *  the matrix's traffic, % of the copy rate, the speed-ups over both cuBLAS
 *  modes, the time over the floor, the scaled residual; with o->accuracy
 *  the relative error against a reference in more precision, symv_relerr
 *  of symv_ref_precise's, measure/reference.h) for the floor, both cuBLAS
 *  modes and every candidate that loaded, on standard output;
 *  errors on standard error as "symvtune time: ...". Returns BENCH_OK;
 *  BENCH_FAIL when a candidate could not be compiled or loaded or was
 *  wrong (residual beyond SYMV_RESIDUAL_TOL; it is timed still);
 *  BENCH_NO_GPU; BENCH_ERROR (CUDA, cuBLAS or memory: the sizes after it
 *  are not measured). */
int time_stage_run(const time_stage_opts *o);

#endif
