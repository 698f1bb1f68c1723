/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dense.h - the dense stage of `symvtune sweep` (doc/method.md section 4,
 * steps 3-5; doc/design.md, "The dense stage"): the champions of the sweep
 * stage timed across the whole size range, for `symvtune fit`.
 *
 * Input: a database whose sweep stage of routine o->routine at (o->uplo,
 * o->hot) is complete (no candidate pending), and a running worker on the
 * first GPU of the sweep (measure/sweep.h). Everything is timed on that one
 * GPU, so that the curves the fit compares come from one GPU.
 *
 * Champions: sweep_champions over the sweep's representative sizes (K
 * points_k, T top): the top T by champion points, the best of each family
 * with none among them, and the deterministic families' own best.
 *
 * Sizes n (elements), one of two modes:
 *   grid      every size of the grid (the sizes given, or dense_grid's);
 *   adaptive  the planner of measure/adaptive.h chooses them in rounds from
 *             the grid's range (or from the sizes given, as a lattice) until
 *             its predicted regret bound is at most 1 + target or budget
 *             sizes are timed; the sizes already in the database are
 *             completed first, so that a resumed run plans as the
 *             interrupted one would have.
 *
 * Measures, at each size: both cuBLAS modes and the floor (sweep_baselines)
 * and each champion (sweep_measure: verified against cuBLAS, then timed);
 * at a size where the planner wants only some champions (the two sides of
 * a step) those alone. Then a second look: every kernel within
 * DENSE_CONFIRM_SPREAD of the fastest at a size is timed there again,
 * kernels in reverse order and sizes descending.
 *
 * Stores: the measurements in the database at stage DB_STAGE_DENSE
 * (candidates' and baselines' tables); the second look lowers a stored
 * median (and the minimum, where it is lower) to the new time where that is
 * less, and changes nothing else. Times are microseconds per call.
 *
 * Output: progress on standard error (unless o->quiet), the dense stage's
 * part of the sweep summary on standard output.
 *
 * Errors: SYMV_INTERRUPTED (everything timed so far is stored), SYMV_IO (no
 * worker left), SYMV_DB (reported on standard error), SYMV_NOT_FOUND (no
 * valid candidate), SYMV_INVALID_VALUE (sizes or budget that cannot be
 * planned; reported on standard error), SYMV_NO_MEMORY.
 */
#ifndef SYMV_DENSE_H
#define SYMV_DENSE_H

#include "../db/db.h"
#include "sweep.h"

/** Most sizes of a dense grid (--dense-sizes). */
#define DENSE_MAX_SIZES 512

/** The dense stage's second look times again every kernel within this
 *  factor of the fastest at a size, as first read (doc/design.md, "The
 *  dense stage"). */
#define DENSE_CONFIRM_SPREAD 1.3

/** How the dense stage picks its sizes (--dense). */
typedef enum { DENSE_GRID, DENSE_ADAPTIVE } dense_mode;

/** Options of the dense stage. */
typedef struct {
  dense_mode mode;
  const int *sizes;       /* the grid (--dense-sizes), in elements; NULL or nsizes 0: dense_default_grid */
  int nsizes;             /* 0..DENSE_MAX_SIZES */
  double target;          /* adaptive: stop at a predicted regret bound of 1 + target */
  int budget;             /* adaptive: at most this many sizes; 0: half the grid's */
  int top, points_k;      /* champions: sieve_rank's T and K */
  const int *sweep_ns;    /* the sweep's representative sizes, for the champion ranking */
  int sweep_nsizes;
  volatile int *interrupted; /* stop early when it becomes nonzero */
} dense_opts;

/** dense_grid: odd sizes n from lo to hi (elements), 24 per decade (ratio
 *  10^(1/24) = 1.10), each rounded to the nearest integer and then up to
 *  an odd one, repeats dropped, hi last (hi - 1 where hi is even); at most
 *  max of them into out. Returns their count.
 *
 *  Odd because the stage times A with lda = n: an odd lda starts three
 *  columns in four (4-byte elements) or every other one (8-byte) off a
 *  16-byte boundary, the layout where kernels that copy 16 bytes at a time
 *  run slowest (SSYMV's pipe: 1.09-1.11x cuBLAS's time at odd n >= 16411,
 *  0.91-0.94x at n = 24432 and 32768; doc/results.md). Rules fitted there
 *  do not count on the faster layout; with lda a multiple of 4 the kernels
 *  they choose run as fast or faster. */
int dense_grid(int lo, int hi, int *out, int max);

/** dense_default_grid: the grid of a GPU of global_mem bytes for routine
 *  ro: dense_grid from 33 to 32768 (so 33..32767), the top halved (not
 *  below 1024) while A of that size would take more than a fifth of the
 *  GPU's memory; at most
 *  max sizes into out. Returns their count. */
int dense_default_grid(symv_routine ro, size_t global_mem, int *out, int max);

/** dense_stage: the whole dense stage as described above, on worker w
 *  (the first GPU's) with the measuring options o. st->measure_s grows by
 *  the time spent waiting for the worker. *reported (may be NULL) is set
 *  to 1 when the error returned is SYMV_INVALID_VALUE and was reported on
 *  standard error. Errors as above. */
int dense_stage(db *d, sweep_worker *w, const sweep_opts *o, const dense_opts *dop, sweep_stats *st, int *reported);

#endif
