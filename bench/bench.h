/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.h - the timing front ends: `symvtune bench` (bench_run, a generated
 * libsymv against cuBLAS and OpenBLAS) and `symvtune time` (time_stage.h,
 * candidates against cuBLAS), both timing calls back to back through the
 * timing harness (measure/harness.h, harness_time_loop).
 */
#ifndef SYMV_BENCH_H
#define SYMV_BENCH_H

#include <stddef.h>
#include "../db/db.h"
#include "gpu.h"
#include "harness.h"
#include "routine.h"

/** The statuses the stages of this folder return: the command's exit
 *  statuses (src/cli.h's SYMV_EXIT_*). */
enum { BENCH_OK = 0, BENCH_FAIL = 1, BENCH_USAGE = 2, BENCH_NO_GPU = 3, BENCH_ERROR = 4 };

/** What both stages time: the routine, the sizes, and how. */
typedef struct {
  symv_routine routine;
  const int *sizes; /* n, elements */
  int nsizes;
  char uplo;        /* 'L' or 'U' */
  int hot;          /* 1: A in L2 (one copy); 0: rotated copies larger than twice the L2 */
  int batches;      /* timed batches a measurement */
  int device;       /* CUDA device */
} bench_common;

/** bench_size_setup: size n into *s for the stages of `cmd` ("bench",
 *  "time"): harness_size_setup with half the free device memory at most
 *  for A's copies (dev's L2, hot as the options). Errors as
 *  harness_size_setup's, said on standard error as "symvtune CMD: ...". */
int bench_size_setup(const char *cmd, harness *hs, harness_size *s, int n, const symv_device_info *dev, int hot,
                     unsigned long long *seed);

/** What `bench` measures and how. */
typedef struct {
  bench_common c;       /* the routine, sizes, uplo, hot, batches, device */
  const char *path;     /* the library: DIR/lib/libsymv.so of `symvtune build --out DIR` */
  int det;              /* 1: libsymv's handle in CUBLAS_ATOMICS_NOT_ALLOWED (its deterministic rules), the
                           speed-up over cuBLAS without atomics; 0: CUBLAS_ATOMICS_ALLOWED, over the faster mode */
  const char *figure;   /* a PNG of GFLOPS over n (and its gnuplot script FIGURE.gp), or NULL */
  const char *db_path;  /* the database the run is stored in (created if missing), or NULL */
} bench_opts;

/** A run as the database keeps it: its head and a result per size measured. */
typedef struct {
  db_bench_run run;
  db_bench_result *res; /* nres results in the order of the sizes; NULL: the run ended before its summary */
  size_t nres;
} bench_record;

/** bench_run: times the library o->path (loaded with dlopen) next to the
 *  routine's cuBLAS function with atomics off and on, and the host BLAS
 *  (symv_ref), at each n, calls back to back through the timing harness
 *  (harness_time_loop; the better of two rounds taken in turn), checks
 *  libsymv's y against cuBLAS's by the scaled residual, measures the copy
 *  rate and the floor (gpu/floor.h) in the same run, and prints the table
 *  (microseconds a call, GFLOPS, % of the copy rate, speed-up, time over
 *  the floor) and the summary against the targets on standard output;
 *  errors on standard error as "symvtune bench: ...". With o->figure the
 *  figure, with o->db_path the run stored (db_put_bench). When rec is not
 *  NULL or o->db_path is set, the run is kept in *rec (rec->res NULL when
 *  it ended early; free it with bench_record_free). Returns BENCH_OK;
 *  BENCH_FAIL (libsymv's result wrong at some n); BENCH_USAGE (no such
 *  device); BENCH_NO_GPU; BENCH_ERROR (the library, CUDA, cuBLAS, memory,
 *  the figure or the database; a size that failed is left out). */
int bench_run(const bench_opts *o, bench_record *rec);

/** bench_record_free: frees rec's results; safe on a zeroed record. */
void bench_record_free(bench_record *rec);

#endif
