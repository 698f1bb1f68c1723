/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * adaptive.h - the adaptive dense stage's planner: which sizes n to time
 * next, given every curve's samples so far. Pure C, no GPU, no database:
 * the same samples in give the same sizes out.
 *
 * The dense stage times every champion and both cuBLAS modes (the curves)
 * across the size range, so that the fit (fit/fit.h) can predict each at
 * every n and the rules choose among them. A fixed grid (24 sizes per
 * decade) spends most of its samples where one kernel wins by far; the
 * paper proposes, and leaves to future work, to add samples where the
 * estimate is least certain (doc/method.md section 5, "the incremental form of
 * d-spline"). The planner does that, in rounds:
 *
 *  1. Start: round(decades x start_per_decade) equal steps in ln n from lo
 *     to hi, both included (snapped to the lattice, below): 25 sizes over
 *     32..32768, a third of the grid, so that no kernel goes unseen over
 *     more than a factor of 1.33 (a wider start missed lone slow sizes of
 *     the winning kernel in the replays below).
 *  2. Model: each curve is fitted as the fit stage fits it
 *     (fit_curve_compute: ln t over ln n, d-spline, GCV, lone outliers
 *     dropped). Its uncertainty at n, u(n), in ln t, is
 *         ADAPTIVE_DISAGREEMENT x max(|a(n) - f(n)|, |b(n) - f(n)|)
 *       + ADAPTIVE_GAP_SLOPE x (distance in ln n to its nearest sample),
 *     f the fit of all its samples, a and b the fits of every other sample
 *     (the even-numbered and the odd-numbered ones, each with the first and
 *     the last, at f's smoothing width): where the curve bends or steps
 *     between samples the halves disagree (a coarser fit checking the fine
 *     one, cf. the incremental d-spline of doc/method.md section 5); the
 *     distance term covers what no fit can see, such as a step between two
 *     samples where a new wave of thread blocks starts.
 *  3. Predicted regret bound at n: with b the curve predicted fastest and c
 *     any other curve predicted there,
 *         ln R(n) = max(0, max_c (u_b(n) + u_c(n) - (ln t_c(n) - ln t_b(n))))
 *     the loss if the chosen kernel is u_b slower and c u_c faster than
 *     predicted: large where two curves are close and uncertain (near a
 *     crossing, so near a rule boundary), small where one kernel wins
 *     clearly. Two more criteria raise a size's score to the loss at stake:
 *     - rule boundaries: where the fastest curve changes between two
 *       lattice sizes and the samples around it are more than
 *       ADAPTIVE_BRACKET apart, the unsampled size nearest to the crossing
 *       (bisection) scores the largest gap between the two curves between
 *       those samples (the loss if the crossing lay anywhere there);
 *     - a kernel unavailable above (below) some n: the sizes between its
 *       last (first) sample and the next sampled size score by how much
 *       faster it was than every other curve at that sample.
 *     - steps: a persistent kernel's time jumps where the tiles a block
 *       takes rise (fit/fit.h, Steps; fit_step_sizes), between two sizes
 *       no smooth curve and no lattice can place. Where the step of a curve
 *       at n_s is not yet sampled within FIT_STEP_BRACKET on both sides, the
 *       pair n_s - 1, n_s (the sides that lack a sample; off the lattice;
 *       with an odd lattice the nearest odd sizes within FIT_STEP_BRACKET,
 *       n_s - 2 below where n_s is odd, n_s + 1 above where it is even)
 *       scores the stake J - |d|: J = ln((c + m) / (c + m - 1)) the jump of a
 *       launch of cost a + tau m into m tiles a block (c = FIT_STEP_C), d
 *       the least gap in ln t between the curve and the fastest other one
 *       between the samples around n_s. A curve far from the best there
 *       scores nothing; one the step could carry across the best scores up
 *       to J. Only the curves with that step are timed there (adaptive_wants):
 *       a step of ten curves of twenty costs half a size of timed calls. Sampled, the fit
 *       gives the step a jump of its own.
 *  4. Next batch: the lattice sizes not yet sampled (nor within a factor of
 *     ADAPTIVE_MIN_SEPARATION of a sampled size), by decreasing score (ties:
 *     the smaller n), each pick excluding the sizes within a factor of
 *     ADAPTIVE_BATCH_SPREAD of it, at most `batch` sizes and what is left of
 *     the budget, and only sizes scoring above ln(1 + target); a step's
 *     pair competes by its stake and costs its sizes times the fraction
 *     of the curves timed there (adaptive_wants).
 *  5. Stop when no unsampled size scores above ln(1 + target) ("target"),
 *     when max_sizes sizes are sampled ("budget"), or when no lattice size
 *     is left ("lattice").
 *
 * The constants were chosen on the dense samples of the shipped databases
 * (tests/data/sweep6-h100.db.xz, sweep6-h200.db.xz: six routines each, 17
 * curves, 67-74 grid sizes), replayed in tests/test_adaptive.c with the
 * grid as the lattice and half of it as the budget: the rules fitted to
 * the sizes chosen keep their regret at the sizes left out at median
 * 1.000. The largest, 1.10-1.34 (sampling every other grid size instead:
 * 1.08-1.34; better in 4 routines of 12, within 2% in 6, 3-6% worse in 2),
 * misses the target of 1.05 as the full grid's own rules do at the sizes
 * they sampled (1.06-1.52): single sizes where a kernel is much slower
 * than its neighbours, which only timing that size reveals, and the fit's
 * 5% margin over cuBLAS. Real curves keep the bound above 1% (0.3-1%
 * timing noise, kernels within 1% of each other over long ranges), so
 * there the budget ends the stage; the target ends it on well separated
 * curves. The databases shipped since hold the sizes the planner chose in
 * their sweeps (54-68 a routine); replayed with its own budget, at most
 * three quarters of those sizes, the median regret at the sizes left out
 * is 1.000-1.006.
 *
 * All functions returning int return 0 or a negative symv_status code
 * (symv_error.h).
 */
#ifndef SYMV_ADAPTIVE_H
#define SYMV_ADAPTIVE_H

#define ADAPTIVE_DEFAULT_START 8          /* start: sizes per decade */
#define ADAPTIVE_DEFAULT_LATTICE 128      /* sizes proposed: a geometric lattice of this many per decade */
#define ADAPTIVE_DEFAULT_BATCH 4          /* sizes per round */
#define ADAPTIVE_DEFAULT_TARGET 0.01      /* stop when the predicted regret bound is <= 1% everywhere */
#define ADAPTIVE_DISAGREEMENT 1.0         /* weight of the halves' disagreement in u(n) */
#define ADAPTIVE_GAP_SLOPE 0.15           /* u(n) per unit of ln n from the nearest sample */
#define ADAPTIVE_BATCH_SPREAD 1.05        /* sizes of one batch at least this factor apart */
#define ADAPTIVE_MIN_SEPARATION 1.01      /* no size within this factor of a sampled one */
#define ADAPTIVE_BRACKET 1.06             /* a crossing is placed once samples this close bracket it */

/** What the planner is told. adaptive_opts_init sets the defaults. */
typedef struct {
  int lo, hi;                /* the size range, elements; 1 <= lo < hi */
  int start_per_decade;      /* start set: sizes per decade (1..1000) */
  int lattice_per_decade;    /* proposals: a geometric lattice, sizes per decade (1..10000) */
  int odd;                   /* 1: the geometric lattice's sizes are odd (each rounded up to an odd
                                one; lo and hi must be odd), as dense_grid's (measure/dense.h),
                                and so are a step's sides where FIT_STEP_BRACKET allows */
  const int *lattice;        /* or exactly these sizes (ascending, distinct, in lo..hi, lo and hi
                                among them); NULL: the geometric lattice */
  int nlattice;              /* entries of lattice */
  int max_sizes;             /* budget: distinct sizes sampled in all, start included (>= the
                                start set's size); a step size counts as the fraction of the
                                curves timed there */
  int batch;                 /* at most this many sizes per round (>= 1) */
  double target;             /* stop when the predicted regret bound is <= 1 + target (0..1) */
} adaptive_opts;

/** One curve's samples: time (microseconds, > 0) at size n. A size where
 *  the curve could not be timed is left out, or given a NaN time. */
typedef struct {
  const int *n;              /* [nsamples] sizes, any order, distinct */
  const double *us;          /* [nsamples] median times, microseconds */
  int nsamples;
  int step_width;            /* a kernel with steps: its work items as fit_step_width gives them
                                (pipe, pipe_det: the columns, UX or BLOCK_SIZE for pipe_det's units;
                                panel: minus the rows of a block), and */
  long grid_blocks;          /* G, its blocks per launch or wave (SMs x MULTIPLICITY), as fit_curve's;
                                0: a curve without steps */
} adaptive_curve;

/** What the planner found; filled by adaptive_next. */
typedef struct {
  int nsampled;              /* distinct sizes in lo..hi with a sample of any curve */
  int starting;              /* 1: the sizes returned complete the start set */
  double bound;              /* predicted regret bound, max over the lattice of R(n) (>= 1);
                                NAN while the start set is incomplete */
  int worst_n;               /* where it is largest (0 if none) */
  int crossings;             /* lattice intervals where the predicted fastest curve changes */
  const char *stop;          /* NULL: sizes were proposed; else why not: "target", "budget",
                                "lattice" (no unsampled size left) */
} adaptive_state;

/** adaptive_opts_init: the defaults over lo..hi (ADAPTIVE_DEFAULT_*), and a
 *  budget of half the sizes of a 24-per-decade grid over lo..hi. */
void adaptive_opts_init(adaptive_opts *o, int lo, int hi);

/** adaptive_start: the start set of o (ascending) into out, which holds
 *  maxout sizes; its length into *nout. Errors: SYMV_INVALID_VALUE (options
 *  out of range, or more than maxout sizes). */
int adaptive_start(const adaptive_opts *o, int *out, int maxout, int *nout);

/**
 * adaptive_wants: whether curve k of c[0..ncurves) is to be timed at size
 * n. Every curve is, at every size, but at a step size (n_s - 1 or n_s of
 * a step n_s of a persistent curve over lo..hi; see "steps" above): there
 * only the curves with that step are, unless n is in the start set. The
 * answer depends on o and the curves' ux and grid_blocks alone, not on
 * their samples, so that a resumed dense stage completes what was planned.
 * Invalid arguments: 1.
 */
int adaptive_wants(const adaptive_opts *o, const adaptive_curve *c, int ncurves, int k, int n);

/**
 * adaptive_next: the next sizes to time, given the samples so far of the
 * ncurves curves c (each curve is to be timed at each size returned where
 * adaptive_wants says so).
 * While the start set is not fully sampled, its missing sizes; then the
 * next batch (steps 2-5 above). out holds maxout sizes (max_sizes is
 * always enough); the sizes, ascending, none sampled already, go there
 * and their number to *nout (0: stop, st->stop says why). st may be NULL.
 * Samples outside lo..hi are not used.
 * Errors: SYMV_INVALID_VALUE (NULL pointer, options out of range, ncurves
 * < 1, a curve's sample count negative, maxout too small), SYMV_NO_MEMORY,
 * SYMV_NUMERIC (a d-spline solve failed).
 */
int adaptive_next(const adaptive_opts *o, const adaptive_curve *c, int ncurves, int *out, int maxout, int *nout,
                  adaptive_state *st);

#endif
