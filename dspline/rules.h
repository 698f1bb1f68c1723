/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rules.h - from fitted curves to selection rules (method.md section 4 step 7,
 * with the interval clean-up motivated in section 5).
 *
 * Input: M curves, the estimated time in microseconds of each candidate at
 * every n of the grid lo..hi (N = hi - lo + 1), row-major M x N:
 * time_us[c * N + (n - lo)]. cuBLAS is simply one more curve. A value that is
 * NaN or +inf means "candidate c is not available at this n" and is never
 * chosen there; every other value must be > 0.
 *
 * Output: intervals [n_start, n_end], each naming the candidate to run there.
 * They cover lo..hi exactly, in increasing order, with no gap and no overlap,
 * and adjacent intervals name different candidates.
 *
 * Steps:
 *  1. at each n choose the candidate of lowest time (ties: better priority,
 *     then lower index); with a tolerance t > 0, choose instead, among the
 *     candidates within (1 + t) of the lowest time, the one of best priority
 *     ([later] ASPEN.K2 does this with t = 0.05);
 *  2. merge runs of one candidate into intervals;
 *  3. repeatedly take the interval I of smallest predicted gain and, if that
 *     gain is below the threshold, hand I to the neighbour whose candidate is
 *     faster over I, merging intervals that now name the same candidate. The
 *     gain of I (candidate c) over a neighbour's candidate b is
 *         sum_{n in I} (t_b(n) - t_c(n)) / sum_{n in I} t_b(n),
 *     so the paper's one-wide intervals born of one noisy sample ([paper]
 *     Table 5, "8059 <= N < 8060") disappear while real winners stay. A
 *     neighbour not available at every n of I cannot take it.
 */
#ifndef RULES_H
#define RULES_H

#define RULES_DEFAULT_THRESHOLD 0.01 /* 1% predicted gain */

/* One rule: run candidate `cand` for n_start <= n <= n_end. */
typedef struct {
  int n_start; /* first n of the interval, inclusive */
  int n_end;   /* last n of the interval, inclusive */
  int cand;    /* candidate index: row of the time table */
} rules_interval;

/* Options of rules_select_opt; rules_options_init sets the defaults. */
typedef struct {
  double threshold;    /* minimum relative gain, in [0, 1); default 0.01;
                          0 removes only intervals that lose time */
  double tolerance;    /* "prefer within tolerance", in [0, 1); 0 = off
                          (default) */
  const int *priority; /* [M] rank of each candidate overall, lower = better
                          (e.g. its place in the sieve order); NULL = index */
} rules_options;

/* rules_options_init: threshold RULES_DEFAULT_THRESHOLD, tolerance 0,
 * priority NULL. */
void rules_options_init(rules_options *opt);

/*
 * rules_select_opt: the rules for curves time_us (M x N row-major, us) on
 * lo..hi, following the steps above with the options *opt (NULL = defaults).
 * On success *out is a malloc'ed array of *nout intervals (free() it).
 * Errors: SYMV_INVALID_VALUE (NULL pointer, M < 1, hi < lo, a time that is
 * <= 0 or -inf, an n where no candidate is available, threshold or tolerance
 * outside [0, 1) or NaN), SYMV_NO_MEMORY. Time O(M N + m^2) for m initial
 * intervals, memory O(M N).
 */
int rules_select_opt(const double *time_us, int ncurves, int lo, int hi,
                     const rules_options *opt, rules_interval **out, int *nout);

/*
 * rules_select: rules_select_opt with the given threshold (fraction, e.g.
 * 0.01 for 1%), no tolerance rule and ties broken by candidate index.
 * Errors: as rules_select_opt.
 */
int rules_select(const double *time_us, int ncurves, int lo, int hi,
                 double threshold, rules_interval **out, int *nout);

#endif
