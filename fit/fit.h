/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fit.h - the fit stage (doc/method.md section 4, steps 6-8): from the dense
 * samples in the database to a predicted time of every kernel at every n,
 * and from those predictions to dispatch rules. Plain C, no GPU; used by
 * `symvtune fit`, `rules` and `plot`.
 *
 * Kernels: every valid candidate with dense-stage samples (the champions the
 * sweep sampled) and the two cuBLAS modes ("cublas", "cublas_atomics").
 * cuBLAS is one more curve among the others, so a rule names cuBLAS wherever
 * it is predicted fastest.
 *
 * What is fitted: y = ln(t), t the median time in microseconds, as a
 * d-spline (doc/method.md section 5, dspline.h) over a grid uniform in ln n,
 * FIT_GRID_PER_EFOLD points per unit of ln n, with alpha chosen by GCV
 * unless given. Why:
 *  - The samples span 3 us to 2 ms. Timing noise is relative, so ln t has
 *    about the same noise everywhere, as the d-spline's one least-squares
 *    norm and one alpha assume; fitting t or GFLOPS weighs the largest
 *    values most. GFLOPS (2 n^2 / t, ASPEN.K2's choice [later]) is near 0
 *    at small n, where launch overhead and L+U decide: on the H200 database
 *    of tests/data its leave-one-out error reached up to 146% (predictions
 *    of zero or negative GFLOPS). Rules compare relative
 *    times, i.e. differences of ln t, and exp() of the fit is always
 *    positive (nothing to clip).
 *  - The dense sizes are geometric (24 per decade). The d-spline penalises
 *    second differences per grid step, so on the integer n grid one alpha
 *    smooths over a fixed width in n: several samples near n = 100, less than
 *    one sample spacing near n = 30000, where the curve then follows the
 *    noise. With one noisy sample (10-30% off) among 1%-noise samples, the
 *    integer grid produced a spurious rule in 54-83% of synthetic trials, the
 *    ln n grid in 0-17% (0 with the outlier step below). On the ln n grid
 *    the smoothing width is a fixed fraction of n, matching the sampling; on
 *    the H200 data its leave-one-out error was also lower (2.4-6.5% RMS per
 *    kernel against 2.6-9.8% for ln t on the integer grid).
 *  - Outliers: after each fit, the sample of largest |residual| beyond
 *    FIT_OUTLIER_SIGMAS robust standard deviations (1.4826 x the median
 *    |residual|, at least FIT_NOISE_FLOOR) is dropped and the curve
 *    refitted, if it is a lone spike: its neighbours' residuals have the
 *    other sign or less than a quarter of its size (a spike pulls the
 *    curve toward itself; at a real step of the curve the neighbours lie on
 *    the same side). At most FIT_MAX_REJECT of the samples go. This is the
 *    paper's one-wide rule born of one noisy sample (doc/method.md section 5);
 *    a real feature seen at one sample only cannot be placed between the
 *    samples anyway.
 *  - Steps (the persistent families pipe and pipe_det, and the panel
 *    family's waves below, when the database holds the GPU's SM count): a
 *    launch has G = SMs x MULTIPLICITY blocks
 *    (fewer if there are fewer tiles) sharing the T(n) tiles of 64 rows x UX
 *    columns (kernels/symv_pipe.h), block b taking tiles floor(b T / G) ..
 *    floor((b + 1) T / G) - 1; the most a block takes is m(n) = ceil(x),
 *    x = T / G. Below n of about 3000 the time follows m in plateaus with
 *    jumps of 15-25% where m rises
 *    (doc/results/2026-11-24-h200-pipe-tiles-per-block.txt), which a smooth curve averages away: 5-10% wrong near each
 *    step. If a launch cost a + tau m (tau a tile's time, c = a / tau), ln t
 *    would be ln tau + ln(c + m): the smooth ln(c + x) plus a sawtooth. These
 *    curves are fitted as
 *        ln t(n) = s(ln n) + beta phi(n),
 *        phi(n) = ln((c + m) / (c + x)) - mu_m   for 2 <= m <= FIT_STEP_MAX_TILES,
 *    0 elsewhere, mu_m the mean of the first term over its plateau
 *    (x in (m - 1, m]), so that each tooth has no trend of its own for the
 *    spline to trade against; s the d-spline above and the amplitude beta
 *    fitted jointly by least squares (dspline_fit_border: one bordered
 *    column, ridge FIT_STEP_RIDGE, which only matters, making beta 0, when
 *    no sample lies in a tooth; alpha by GCV counting beta). The steps sit at
 *    exactly computed sizes (fit_step_sizes); beta of 1 means flat plateaus,
 *    0 none: a beta outside 0..FIT_STEP_BETA_MAX (a launch of cost a + tau m
 *    can do neither: time falling at a step or within a plateau) is set to
 *    the bound and the spline refitted to the rest; with few samples on the
 *    teeth the joint fit can trade beta against the spline (half the full
 *    grid of the shipped H100 ZHEMV sweep gave beta from -3.9 to 1.9).
 *    On the v4 H100 and H200 databases beta came out 0.19-0.75 (the
 *    plateaus rise), c = FIT_STEP_C = 1.5 from the H200's pipe:256,64,2,0
 *    (t ~ 2.9 + 2.35 m us at m = 2, 3); c = 0.5 and 3 predicted about as
 *    well (RMS error within 0.1 points), though with c = 3 the rules chose
 *    wrongly again at the H200's validated n = 1535.
 *    Why one amplitude and not a height per step (ln t = s + sum_j delta_j
 *    [n >= n_j], tried first): the dense stage leaves zero to two samples on
 *    a plateau, so a step's height is not told apart from a rise of the
 *    spline between the samples around it, and the spline's curvature
 *    penalty handed most of each height to the spline (the H200's
 *    pipe:256,64,2,0: fitted jumps of x0.97 and x0.96 where it jumps x1.21
 *    and x1.24); one amplitude of the shape above is seen at every sample
 *    of every tooth. But where the samples do tell it, a step gets a height
 *    of its own: a step n_s sampled within FIT_STEP_BRACKET on both sides
 *    (the adaptive dense stage times n_s - 1 and n_s where a step is at
 *    stake: measure/adaptive.h) adds the covariate [n >= n_s], its jump
 *    held to 0..FIT_STEP_JUMP_MAX like beta, and its two samples are never
 *    dropped as outliers (one was, on synthetic steps, and the jump came out
 *    half its height). Two samples 0.07% apart sit on one grid point or
 *    two neighbouring ones, so the spline cannot make the jump; the jump
 *    takes it. This matters most at the step into m = 2, which no tooth
 *    models (the first plateau is flat or nearly: the H100's
 *    pipe:256,32,4,0 ran 5.52-5.62 us from n = 1030 to 1374 and 8.61 at
 *    1832, and a spline through those rose early, 10% high at n = 1348).
 *    Why m <= 4: the teeth narrow as m grows (the steps lie
 *    at T = m G, n ~ sqrt(m)) and past m = 4 a tooth is narrower than the
 *    dense stage's spacing there, so no sample pins it; on the validation
 *    runs of the two v4 databases m <= 4 predicted the pipe curves at
 *    n = 500..4000 with an RMS error of 2.5% (H100) and 3.5% (H200) against
 *    3.9% and 4.3% smooth (m <= 8: 2.7% and 3.9%; m <= 16: 2.6% and 3.5%),
 *    and only m <= 4 kept the validated regret under 1.05 on both
 *    (doc/results/2026-11-24-fit-steps-offline.txt). The
 *    outlier rule below sees the residuals of this model: a real step is no
 *    longer a lone spike.
 *    The panel family steps the same way by waves: its T(n) = ceil(n / UX)
 *    blocks of UX rows each (every block the same work, UX x n elements:
 *    kernels/symv_panel.cu) run G = SMs x MULTIPLICITY at a time, and a
 *    call takes m(n) = ceil(T / G) waves (the H200's ZSYMV
 *    panel:512,2,1,0: 2.9-3.0 us up to n = 264, 4.8-5.0 past it). Its
 *    curves get the same teeth and jumps, with those T(n) and G
 *    (fit_step_items); on the stored validation runs of both shipped
 *    databases this took the H200's ZSYMV rules' worst regret from 1.37 to
 *    1.03-1.08 (doc/results.md).
 * The curve is then evaluated at every integer n by linear interpolation in
 * ln n between the two nearest grid points (0.2% apart in n; a sample sits
 * at the grid point nearest its n), and only between the smallest and the
 * largest sampled n: no extrapolation (NaN outside, which rules_select_opt
 * reads as "not available there").
 *
 * Accuracy: between samples 10% apart in n, real kernels vary by a few
 * percent in ways no smoothing predicts (wave quantization, cuBLAS changing
 * algorithm): on the H200 data a held-out sample was predicted within 2-6%
 * RMS whatever alpha. Rules between kernels closer than that are a guess;
 * the threshold keeps them from fragmenting the range.
 *
 * All functions returning int return 0 or a negative symv_status code
 * (symv_error.h).
 */
#ifndef SYMV_FIT_H
#define SYMV_FIT_H

#include <stddef.h>
#include <stdio.h>
#include "../db/db.h"
#include "../dspline/rules.h"
#include "params.h"

#define FIT_GRID_PER_EFOLD 512   /* grid points per unit of ln n (n x e) */
#define FIT_OUTLIER_SIGMAS 4.0   /* residuals beyond this many robust sigmas are outliers */
#define FIT_NOISE_FLOOR 0.005    /* least robust sigma of ln t (0.5%): below it, no sample is an outlier */
#define FIT_MAX_REJECT 0.1       /* at most this fraction of a curve's samples is dropped */
#define FIT_DEFAULT_THRESHOLD RULES_DEFAULT_THRESHOLD /* 1% predicted gain (rules.h) */
#define FIT_DEFAULT_MARGIN 0.05  /* a candidate must be predicted 5% faster than cuBLAS to replace it */
#define FIT_MAX_PREDICTED_REGRET 0.05 /* fit_select_regret never chooses a kernel predicted slower than this */
#define FIT_SELECT_REGRET "regret" /* fit_select_regret: the method text of a fit begins with it */
#define FIT_SELECT_MERGE "merge"   /* fit_select: the same */
#define FIT_MAX_GRID (1 << 25)   /* most predicted times fit_compute keeps (curves x n), 256 MiB */
#define FIT_STEP_MAX_TILES 4     /* plateaus modelled: ceil(T / G) = 2 .. this (see Steps above) */
#define FIT_STEP_MAX (FIT_STEP_MAX_TILES - 1) /* the most steps of one curve (into 2 .. FIT_STEP_MAX_TILES) */
#define FIT_STEP_C 1.5           /* c: a launch's fixed cost in a tile's times (see Steps above) */
#define FIT_STEP_RIDGE 1e-3      /* lambda of dspline_fit_border on the steps' amplitude (ln t squared) */
#define FIT_STEP_BETA_MAX 1.0    /* the largest amplitude of the steps: flat plateaus (see Steps above) */
#define FIT_STEP_BRACKET 1.01    /* a step with samples this close on both sides gets a jump of its own */
#define FIT_STEP_JUMP_MAX 0.6931471805599453 /* the largest such jump, ln 2: time at most doubles (m = 1 to 2, c = 0) */

/* One kernel's dense samples and, once computed, its fitted curve. */
typedef struct {
  char kernel[24];           /* DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS or DB_KERNEL_CANDIDATE */
  db_candidate cand;         /* the candidate when kernel is DB_KERNEL_CANDIDATE; zeroed otherwise */
  char label[64];            /* for people: "cuBLAS", "cuBLAS-atomics" or "lu:64,8,4,0" */
  int nsamples;              /* dense samples */
  int *n;                    /* [nsamples] sizes, elements, ascending and distinct */
  double *us;                /* [nsamples] median times, microseconds (> 0) */
  unsigned char *rejected;   /* [nsamples] 1 where the last fit dropped the sample as an outlier */
  long grid_blocks;          /* pipe, pipe_det: G, the persistent blocks of a launch; panel: the blocks
                                resident at once; SMs x MULTIPLICITY either way (fit_load, from the
                                database's device); 0: fitted without steps */
  int step_width;            /* the work items the steps count (fit_step_width, fit_step_items): > 0,
                                the columns of pipe's tiles or pipe_det's items (a tile's UX, MX 3..5's
                                units of BLOCK_SIZE); < 0, minus the rows of a panel block (UX); set
                                with grid_blocks (fit_load), 0 with it */
  /* Set by fit_curve_compute: */
  int lo, hi;                /* the grid of pred_us, elements */
  int first, last;           /* smallest and largest n of the samples fitted (those in lo..hi and
                                the nearest outside where lo, hi are not sampled); 0, 0 if none */
  int nused;                 /* samples fitted: in lo..hi and not rejected */
  int nrejected;             /* samples in lo..hi dropped as outliers */
  double alpha;              /* d-spline alpha used; 0 when the curve could not be fitted */
  double rms_rel;            /* RMS over the fitted samples of (predicted - sample) / sample */
  double *pred_us;           /* [hi - lo + 1] predicted time at n = lo + j, microseconds; NaN where
                                not predicted (outside first..last, or not fitted); NULL before */
  double step_beta;          /* the steps' fitted amplitude beta (see Steps above); 0 without steps */
  int nsteps;                /* steps within first+1..last of a curve fitted with steps, else 0 */
  int step_n[FIT_STEP_MAX];  /* [nsteps] the n at which the tiles a block takes rise, ascending */
  double step_ratio[FIT_STEP_MAX]; /* [nsteps] the fitted time at step_n over the time at step_n - 1 */
  double step_jump[FIT_STEP_MAX];  /* [nsteps] the step's own jump in ln t (see Steps above), NaN where
                                      its two sides are not sampled within FIT_STEP_BRACKET */
} fit_curve;

/* The kernels of one (uplo, hot). */
typedef struct {
  symv_routine routine;      /* the routine of every sample (core/routine.h) */
  char uplo;                 /* 'L' or 'U' */
  int hot;                   /* 0 cold, 1 hot */
  size_t ncurves;            /* kernels with dense samples */
  fit_curve *curve;          /* [ncurves]: the cuBLAS modes first (cublas, cublas_atomics, those
                                with samples), then candidates in id order */
  int deterministic;         /* 1: a view of the bitwise reproducible kernels only
                                (fit_deterministic_view); fit_store stores its class */
} fit_set;

/*
 * fit_deterministic_view: *view := the kernels of s whose results are
 * bitwise reproducible run after run, what cuBLAS's default atomics mode
 * (CUBLAS_ATOMICS_NOT_ALLOWED) promises: cuBLAS with atomics off and the
 * candidates of deterministic families (symv_family_info.deterministic:
 * no atomics on data). The curves are shallow copies sharing s's arrays, in
 * s's order; free view->curve with free(), never fit_set_free(view), and
 * not after s. view->deterministic = 1, so that fit_select compares with
 * cuBLAS without atomics only and fit_store stores a 'deterministic' fit.
 * Errors: SYMV_NO_MEMORY (*view is then empty).
 */
int fit_deterministic_view(const fit_set *s, fit_set *view);

/*
 * fit_load: the dense-stage samples (db_candidate_measurements /
 * db_baseline_measurements, stage DB_STAGE_DENSE) of every valid candidate
 * and of both cuBLAS modes of `routine` at (uplo, hot) into *out (release with
 * fit_set_free). Samples with a median time <= 0 are skipped.
 * Errors: SYMV_INVALID_VALUE (routine out of range, uplo not 'L'/'U', hot
 * not 0/1), SYMV_NOT_FOUND (no kernel has dense samples there),
 * SYMV_NO_MEMORY, or a db_ status
 * (db_errmsg(d) says why). On error *out is empty. The curves of the pipe
 * and pipe_det families get grid_blocks = the stored device's sm_count x
 * MULTIPLICITY (0 where the database holds no device, or UX is not a
 * power of two in 1..128: no steps).
 */
int fit_load(db *d, symv_routine routine, char uplo, int hot, fit_set *out);

/*
 * fit_grid_blocks: G of candidate c on a GPU of sm_count SMs, sm_count x
 * MULTIPLICITY: the blocks of one launch of a persistent kernel (pipe,
 * pipe_det), or the panel family's blocks resident at once (a wave); 0
 * where fit_step_width is 0 (no steps; see Steps above) or sm_count < 1.
 */
long fit_grid_blocks(const db_candidate *c, int sm_count);

/*
 * fit_step_width: the work items candidate c's blocks take (the steps count
 * them: fit_step_items, fit_step_sizes): for pipe and pipe_det the columns
 * of an item of 64 rows, a tile's UX (pipe, pipe_det's MX 0..2) or
 * BLOCK_SIZE (pipe_det's MX 3..5, whose blocks share units of BLOCK_SIZE/UX
 * tiles side by side: symv_pdet_unit_width, kernels/symv_pipe.h); for panel
 * -UX, minus the rows a block owns; 0 for any other family or a pipelined
 * UX that is not a power of two in 1..128.
 */
int fit_step_width(const db_candidate *c);

/*
 * fit_step_items: T(n), the work items that the steps of a curve of
 * step_width `width` count at size n (elements): for width > 0 the items
 * of 64 rows x width columns of the lower triangle (symv_pdet_units,
 * kernels/symv_pipe.h: tiles, or pipe_det's units); for width < 0 the
 * panel family's blocks of -width rows, ceil(n / -width). 0 for n < 1, a
 * positive width that is not a power of two in 1..1024, or a negative one
 * below -1024.
 */
long fit_step_items(int width, long n);

/* fit_set_free: releases what fit_load and fit_compute allocated; zeroes *s. */
void fit_set_free(fit_set *s);

/*
 * fit_sampled_range: the smallest and largest n sampled by any kernel of s
 * into *lo, *hi. Errors: SYMV_NOT_FOUND (no samples).
 */
int fit_sampled_range(const fit_set *s, int *lo, int *hi);

/*
 * fit_cublas_range: the smallest and largest n sampled by either cuBLAS mode
 * of s into *lo, *hi: rules can cover no n outside it (libsymv must know
 * cuBLAS's time to choose). Errors: SYMV_NOT_FOUND (cuBLAS not sampled).
 */
int fit_cublas_range(const fit_set *s, int *lo, int *hi);

/*
 * fit_curve_compute: fits c's samples within lo..hi as described above and
 * sets the fields after "Set by". Where lo (hi) is not one of c's sampled n,
 * the nearest sample below it (above it) is fitted too, so that the curve
 * is predicted from lo (to hi) whenever c's samples bracket it: the bounds
 * of a range need not be sampled sizes. alpha > 0 fixes the smoothing weight (on
 * the ln n grid of FIT_GRID_PER_EFOLD points per unit, dimensionless: both
 * terms of the objective are in (ln us)^2); alpha == 0 chooses it by GCV
 * (dspline_fit_auto). A curve with grid_blocks > 0, a cand.ux that divides
 * 64 and a sample on a tooth is fitted with the steps (dspline_fit_border; see Steps above), and
 * step_beta, nsteps, step_n, step_ratio and step_jump say what was fitted; any other
 * curve exactly as the plain d-spline. Fewer than
 * two distinct sampled n in lo..hi is not an error: the curve is then not
 * fitted (alpha 0, pred_us all NaN).
 * Errors: SYMV_INVALID_VALUE (lo < 1, hi < lo, alpha < 0 or not finite,
 * hi - lo + 1 > 2^26), SYMV_NO_MEMORY, SYMV_NUMERIC (the banded solve failed).
 */
int fit_curve_compute(fit_curve *c, int lo, int hi, double alpha);

/*
 * fit_step_sizes: the sizes n in lo+1..hi at which m(n) = ceil(T(n) / G)
 * rises to 2 .. FIT_STEP_MAX_TILES, ascending, into n_out[0..cap):
 * T(n) = fit_step_items(width, n) (width = fit_step_width: pipe's tiles,
 * pipe_det's units, panel's blocks), G = grid_blocks (a launch of the
 * persistent families takes min(T, G) blocks, a panel launch runs G at a
 * time, so m = 1 while T <= G). Step j (0-based) is the least n with
 * T(n) > (j + 1) G. Returns how many (0 if fit_step_items rejects width,
 * grid_blocks < 1 or lo >= hi), at most cap.
 */
int fit_step_sizes(int width, long grid_blocks, int lo, int hi, int *n_out, int cap);

/*
 * fit_step_side: the side of step n_s a sample at n stands on, close
 * enough for the step to get a jump of its own (see Steps above): -1
 * below (n_s / FIT_STEP_BRACKET <= n < n_s), +1 above (n_s <= n <=
 * n_s x FIT_STEP_BRACKET), 0 neither. The fit and the adaptive dense stage
 * (measure/adaptive.h), which samples the sides, judge by it alike.
 */
int fit_step_side(int n, int ns);

/* fit_compute: fit_curve_compute on every curve of s. Errors: as that, and
 * SYMV_INVALID_VALUE when the curves' tables of predicted times would hold
 * more than FIT_MAX_GRID values in all (ncurves x (hi - lo + 1): a range no
 * sampling justifies, as a damaged database may hold). */
int fit_compute(fit_set *s, int lo, int hi, double alpha);

/*
 * fit_cublas_us: the predicted time of the faster cuBLAS mode at n
 * (microseconds), from the curves of s as computed; NaN where neither mode
 * is predicted (n outside their sampled ranges, or not computed).
 */
double fit_cublas_us(const fit_set *s, int n);

/*
 * fit_select: the dispatch rules for the computed curves of s over their
 * grid lo..hi (doc/method.md section 4 step 7): rules_select_opt on the
 * predicted times, with the threshold (a fraction in [0, 1), e.g.
 * FIT_DEFAULT_THRESHOLD) and ties going to cuBLAS, then to the earlier curve.
 * Each rule's predicted_us is its kernel's prediction at the interval's
 * geometric middle round(sqrt(n_start n_end)), and predicted_gain the faster
 * cuBLAS mode's prediction there divided by it. *rules is malloc'ed (free()).
 * Because cuBLAS is a curve, a rule's kernel is the fastest predicted at
 * each of its n, except where the threshold merged away an interval whose
 * kernel gained less than `threshold` (summed over it) over the neighbour.
 * margin (>= 0): a candidate replaces cuBLAS only where it is predicted
 * faster by more than this fraction - its predicted time is taken as
 * (1 + margin) times the prediction when the choice is made (the kernels'
 * order among themselves is unchanged), because a prediction between samples
 * is only good to a few percent (see Accuracy above); FIT_DEFAULT_MARGIN.
 * Errors: SYMV_INVALID_VALUE (curves not computed, threshold outside [0, 1),
 * margin negative or not finite),
 * SYMV_NOT_FOUND (an n of lo..hi where no kernel, or no cuBLAS mode, is
 * predicted: *bad_n, which may be NULL, is set to the first), SYMV_NO_MEMORY.
 */
int fit_select(const fit_set *s, double threshold, double margin, db_rule **rules, size_t *nrules, int *bad_n);

/*
 * fit_select_regret: the dispatch rules for the computed curves of s over
 * their grid lo..hi, chosen by rules_select_regret (rules.h): the intervals
 * of least predicted regret (the chosen kernel's predicted time over the
 * least predicted time at each n, integrated over ln n) plus interval_cost
 * per interval past the first (>= 0; RULES_DEFAULT_INTERVAL_COST), never
 * choosing at any n a kernel predicted more than FIT_MAX_PREDICTED_REGRET
 * slower than the fastest there (rules_regret_options.max_regret: with the
 * steps of the persistent kernels a short stretch after a champion's step
 * can lose 8% and cost less than the two intervals that avoid it; the
 * target of `validate` is a regret of at most 1.05 at every size). cuBLAS,
 * both modes, is one more curve and there is no margin: a candidate of ours
 * is chosen wherever its predicted gain pays for its interval, a cuBLAS
 * mode wherever it is predicted fastest; prediction errors between samples
 * are as likely either way, and a margin trades them for a regret that is
 * certain. Exact ties go to cuBLAS (atomics off first), then to the earlier
 * curve. Rules' predicted_us and predicted_gain as fit_select's; *rules is
 * malloc'ed (free()).
 * Errors: SYMV_INVALID_VALUE (curves not computed or not on one grid,
 * interval_cost negative or not finite), SYMV_NOT_FOUND (as fit_select;
 * *bad_n, which may be NULL, is set), SYMV_NO_MEMORY.
 */
int fit_select_regret(const fit_set *s, double interval_cost, db_rule **rules, size_t *nrules, int *bad_n);

/*
 * fit_predicted_regret: the regret the computed curves of s predict for
 * rules[0..nrules) (which must tile the curves' grid lo..hi and name
 * kernels of s): *mean := the mean over ln n of t_chosen(n) / t_best(n),
 * t_best the least predicted time of any curve of s at n; *max := its
 * largest value, at n = *worst_n (each pointer may be NULL). Errors:
 * SYMV_INVALID_VALUE (curves not computed, rules that do not tile or name a
 * kernel s has no curve of, an n where no curve is predicted),
 * SYMV_NO_MEMORY.
 */
int fit_predicted_regret(const fit_set *s, const db_rule *rules, size_t nrules, double *mean, double *max,
                         int *worst_n);

/*
 * fit_store: stores the fit of s (its curves that were fitted, and `rules`)
 * with db_put_fit; fit->uplo, hot, lo, hi and deterministic come from s, threshold and method
 * from the arguments; fit->id and created are set. Errors: as db_put_fit,
 * SYMV_INVALID_VALUE (curves not computed), SYMV_NO_MEMORY.
 */
int fit_store(db *d, const fit_set *s, double threshold, const char *method, const db_rule *rules,
              size_t nrules, db_fit *fit);

/*
 * fit_label: a kernel's name for people into buf: "cuBLAS",
 * "cuBLAS-atomics", or the candidate as FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX.
 * kernel is a DB_KERNEL_ name; c is used only for DB_KERNEL_CANDIDATE.
 */
void fit_label(const char *kernel, const db_candidate *c, char *buf, size_t size);

/* What each rule set is for, as its heading says after its name. */
#define FIT_ANY_RULES_FOR "for handles in CUBLAS_ATOMICS_ALLOWED: every kernel and both cuBLAS modes"
#define FIT_DETERMINISTIC_RULES_FOR                                                                              \
  "for handles in cuBLAS's default atomics mode, CUBLAS_ATOMICS_NOT_ALLOWED: families "                          \
  SYMV_DETERMINISTIC_FAMILIES " and cuBLAS without atomics"

/*
 * fit_print_rules_title: the line that heads a rule set wherever it is
 * printed: "ROUTINE, rule set 'any' (FIT_ANY_RULES_FOR)" or "ROUTINE, rule
 * set 'deterministic' (FIT_DETERMINISTIC_RULES_FOR)", newline included;
 * ROUTINE is the registry's name of `routine` ("dsymv").
 */
void fit_print_rules_title(FILE *f, symv_routine routine, int deterministic);

/*
 * fit_print_rules: the rules as a table in the manner of the paper's
 * Table 5, under fit_print_rules_title's line (the fit's routine and rule
 * set): kernel, N range (inclusive), predicted time (us) at the interval's
 * geometric middle and gain over the faster cuBLAS mode there (over cuBLAS
 * without atomics for a deterministic fit). The line below the title
 * names how the rules were selected: the first clause of the method text
 * where it begins with FIT_SELECT_REGRET or FIT_SELECT_MERGE, else (fits
 * made before) the threshold.
 */
void fit_print_rules(FILE *f, const db_fit *fit, const db_rule *rules, size_t nrules);

/** fit_curve_of: the index in s of the curve of `kernel` (DB_KERNEL_*;
 *  for DB_KERNEL_CANDIDATE the candidate of id cand_id), -1 if none. */
int fit_curve_of(const fit_set *s, const char *kernel, long long cand_id);

/** fit_curve_of_rule: fit_curve_of the kernel rule r names. */
int fit_curve_of_rule(const fit_set *s, const db_rule *r);

/** fit_compute_as_stored: fit_curve_compute on every curve of s over
 *  lo..hi with the alpha a stored fit chose for it (curves[0..ncurves):
 *  the fit's rows of fit_curve; 0, GCV, for a curve without one), so that
 *  s predicts what that fit predicted. 0, or the first curve's error with
 *  its index in *failed. */
int fit_compute_as_stored(fit_set *s, const db_fit_curve *curves, size_t ncurves, int lo, int hi, size_t *failed);

#endif
