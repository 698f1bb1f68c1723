/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rules.h - from fitted curves to selection rules (doc/method.md section 4 step 7,
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
 * Two methods: rules_select_regret (below; `symvtune fit`'s default) finds
 * the intervals of least predicted regret plus a price per interval,
 * exactly; rules_select_opt merges the per-n winners by the steps here
 * (`fit --select merge`).
 *
 * Steps of rules_select_opt:
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

/* ---- Selection by regret ------------------------------------------------
 *
 * rules_select_regret chooses the intervals that minimise, exactly,
 *
 *     sum over n in lo..hi of  w(n) (t_chosen(n) / t_best(n) - 1)
 *         + interval_cost x (number of intervals - 1),
 *
 * t_best(n) the least available time at n: predicted regret plus a price
 * per switch of kernel. w(n) = 1 weighs every n alike; with log_weight,
 * w(n) = ln((n + 1/2) / (n - 1/2)), the width of n on a ln n axis, so the
 * sum is the integral of the regret over ln n: every decade of sizes counts
 * alike (as the sizes `symvtune validate` draws, log-uniform), and a
 * one-wide interval at n = 2000 weighs 1/2000 of an e-fold, not as much as
 * an e-fold of small n. interval_cost is then in (relative time) x (ln n):
 * 0.002 buys an interval that gains 1% over a fifth of an e-fold (n to
 * 1.22 n) or 9% over 1860..2261.
 *
 * Viterbi-like dynamic programming over the grid, state (n, candidate):
 *     D(lo, c) = r(lo, c)
 *     D(n, c)  = r(n, c) + min(D(n-1, c), min_c' D(n-1, c') + interval_cost)
 * r(n, c) = w(n) (t_c(n) / t_best(n) - 1), +inf where c is unavailable;
 * the answer is min_c D(hi, c), traced back. The inner minimum over c' is
 * one per n, so time is O(M N) and memory O(M N) bits of back-pointers
 * (one byte each here) plus O(M + N). Ties: staying before switching
 * (fewer intervals), then the better priority, then the lower index. No
 * margin favours any candidate: where a candidate is predicted faster it
 * wins as soon as its gain pays for the interval. */

#define RULES_DEFAULT_INTERVAL_COST 0.002 /* see above: regret x ln n */

/* Options of rules_select_regret; rules_regret_options_init sets the
 * defaults. */
typedef struct {
  double interval_cost; /* price of each interval past the first, >= 0 and finite; default
                           RULES_DEFAULT_INTERVAL_COST; 0 gives the fastest candidate at every n */
  int log_weight;       /* 1 (default): w(n) = ln((n + 1/2) / (n - 1/2)), needs lo >= 1; 0: w(n) = 1 */
  const int *priority;  /* [M] rank of each candidate for ties, lower = better; NULL = index */
  double max_regret;    /* >= 0: a candidate is not chosen at an n where t_c(n) / t_best(n) - 1 exceeds
                           it (r(n, c) = +inf there), whatever the intervals cost; the fastest is always
                           allowed. Default INFINITY: no bound */
} rules_regret_options;

/* rules_regret_options_init: interval cost RULES_DEFAULT_INTERVAL_COST,
 * log_weight 1, priority NULL, max_regret INFINITY. */
void rules_regret_options_init(rules_regret_options *opt);

/*
 * rules_select_regret: the intervals of least objective (above) for curves
 * time_us (M x N row-major, us, the layout at the top of this file) on
 * lo..hi, with options *opt (NULL = defaults). The result has the
 * guarantees at the top of this file. On success *out is a malloc'ed array
 * of *nout intervals (free() it).
 * Errors: SYMV_INVALID_VALUE (NULL pointer, M < 1, hi < lo, lo < 1 with
 * log_weight, a time that is <= 0 or -inf, an n where no candidate is
 * available, interval_cost negative or not finite, max_regret negative or
 * NaN), SYMV_NO_MEMORY.
 */
int rules_select_regret(const double *time_us, int ncurves, int lo, int hi, const rules_regret_options *opt,
                        rules_interval **out, int *nout);

/*
 * rules_regret: the predicted regret of intervals iv[0..m) (which must tile
 * lo..hi in order) for the curves time_us (M x N, as above): *mean := the
 * weighted mean over lo..hi of t_chosen(n) / t_best(n) (weights w(n) as
 * log_weight says), *max := its largest value, *worst_n := an n where it is
 * largest (any of the three may be NULL). An interval whose candidate is
 * unavailable at one of its n gives +inf.
 * Errors: SYMV_INVALID_VALUE (NULL time_us or iv, M < 1, hi < lo, lo < 1
 * with log_weight, intervals that do not tile lo..hi, a candidate index out
 * of range, an n where no candidate is available).
 */
int rules_regret(const double *time_us, int ncurves, int lo, int hi, int log_weight, const rules_interval *iv, int m,
                 double *mean, double *max, int *worst_n);

#endif
