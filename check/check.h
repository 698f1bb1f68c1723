/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check.h - the stage of `symvtune check`: proves kernel candidates right
 * on the GPU present, for every routine asked for, against cuBLAS on the
 * GPU and OpenBLAS/LAPACK on the CPU, over a grid of argument combinations
 * (both uplo; lda = n and lda > n; strides 1, 2, 3, -1, -3; alpha = 0;
 * beta = 0 and 1; complex scalars with nonzero imaginary parts).
 *
 * Every case draws fresh random data. Poisons: the triangle that is not
 * stored and the rows past n (lda > n) hold NaN, so a kernel reading them
 * fails; y's elements between strided entries hold a sentinel that must
 * survive; with beta = 0, y holds NaN (must not leak); with alpha = 0, x
 * holds NaN (must not be read); HEMV: the imaginary parts of A's diagonal
 * hold a large value, which must not be read. Judged by the scaled residual
 * (reference.h). cuBLAS does read x when alpha = 0 (a NaN there reaches
 * its y), so cuBLAS is given a finite copy of x in those cases; its result
 * is beta*y either way.
 */
#ifndef SYMV_CHECK_H
#define SYMV_CHECK_H

#include "routine.h"

/** The statuses check_run returns: the command's exit statuses (src/cli.h's SYMV_EXIT_*). */
enum { CHECK_OK = 0, CHECK_FAIL = 1, CHECK_USAGE = 2, CHECK_NO_GPU = 3, CHECK_ERROR = 4 };

/** What `check` checks and how. */
typedef struct {
  const symv_params *points; /* the candidates (the routine of each is set per routine checked) */
  int npoints;
  const int *sizes;          /* n, elements (0 allowed) */
  int nsizes;
  const int *routines;       /* routines[r] != 0: routine r is checked (SYMV_ROUTINE_COUNT entries) */
  double tol;                /* the largest scaled residual accepted */
  unsigned long long seed;   /* the random data's seed */
  int device;                /* CUDA device */
  int verbose;               /* print every failing case, not only a candidate's first */
} check_opts;

/** check_run: for each routine asked for (in canonical order), compiles
 *  and loads every candidate and runs it and cuBLAS over the grid at each
 *  n, then prints the routine's table (cases, failures, the worst
 *  residuals against the CPU's and cuBLAS's y, elements written outside
 *  y); a closing line says whether all passed. A candidate whose
 *  MULTIPLICITY or resources do not fit a routine on this GPU is skipped,
 *  not failed. Output on standard output, progress and errors on standard
 *  error ("symvtune check: ..."). Returns CHECK_OK; CHECK_FAIL (a
 *  candidate failed, or could not be compiled or loaded); CHECK_USAGE (no
 *  such device); CHECK_NO_GPU; CHECK_ERROR (CUDA, cuBLAS or memory: the
 *  cases after it are not run). */
int check_run(const check_opts *o);

#endif
