/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the adaptive dense stage's planner (measure/adaptive.h), no GPU:
 *  - synthetic curves with known crossings (smooth, noisy, a step like a
 *    new wave of thread blocks, a kernel unavailable above some n, a
 *    persistent kernel's plateaus, each of its steps sampled on both
 *    sides): fed
 *    with samples of the synthetic functions, the planner must place every
 *    crossing of the fastest curve, as the fit predicts it from the planned
 *    samples, within 3% of the true n, using at most half the grid's sizes;
 *  - the dense samples of the shipped databases (six routines of the H100;
 *    of the H200 too with SYMV_TEST_SLOW set) replayed: the planner picks
 *    among the sizes the sweep timed (its grid here; 54-68 a routine, which
 *    the planner itself chose in the sweep, so that they cluster where
 *    kernels cross), with the budget it has in a sweep (half a 24-per-decade
 *    grid: 33-37 sizes) but at most three quarters of them (with half, its
 *    start of 25 sizes left it 3 to add, and the sizes left out were the
 *    crossings the sweep had found), and the rules fitted to
 *    what it picked (both rule sets, as `symvtune fit` makes them) must
 *    keep their regret at the sizes it left out at median <= 1.005 and max
 *    <= 1.05, or, where sampling every other grid size instead misses 1.05
 *    too, within 6% of that (the H200's csymv: 1.22 against 1.17);
 *  - the same samples give the same sizes; bad arguments are refused.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../db/db.h"
#include "../fit/fit.h"
#include "adaptive.h"
#include "../kernels/symv_pipe.h"
#include "routine.h"
#include "symv_error.h"
#include "test_util.h"
#include "util.h"

#define LO 32
#define HI 32768
#define MAXC 8
#define MAXS 1024

/* ---- synthetic curves ----------------------------------------------------- */

/* A synthetic kernel: t(n) in microseconds, NaN where it cannot run. */
typedef struct {
  double launch;   /* us */
  double rate;     /* elements^2 per us */
  double bend;     /* extra factor (1 + bend / (1 + (n / knee)^2)): slower at small n */
  double knee;
  int step_n;      /* from this n on, times (1 + step): a new wave of blocks (0: none) */
  double step;
  int max_n;       /* unavailable above (0: never) */
  int ux;          /* a persistent kernel (G > 0): launch + rate x m, m the most tiles of */
  long G;          /* 64 x ux a block of G takes (1 .. 4, then T / G: the steps wash out) */
} synth;

static double synth_us(const synth *s, int n)
{
  if (s->max_n && n > s->max_n) return NAN;
  if (s->G > 0) {
    const double x = (double)symv_pipe_tiles(n, s->ux) / s->G, m = x > 4 ? x : ceil(x) < 1 ? 1 : ceil(x);
    return s->launch + s->rate * m;
  }
  double t = s->launch + (double)n * n / s->rate;
  if (s->knee > 0) t *= 1 + s->bend / (1 + ((double)n / s->knee) * ((double)n / s->knee));
  if (s->step_n && n >= s->step_n) t *= 1 + s->step;
  return t;
}

/* The fastest curve at n, by the functions themselves (-1 if none). */
static int synth_best(const synth *s, int nc, int n)
{
  int b = -1;
  for (int k = 0; k < nc; k++) {
    double t = synth_us(&s[k], n);
    if (!isnan(t) && (b < 0 || t < synth_us(&s[b], n))) b = k;
  }
  return b;
}

/* The samples of nc curves, as the dense stage stores them. */
typedef struct {
  int n[MAXC][MAXS];
  double us[MAXC][MAXS];
  int count[MAXC];
  int sizes;       /* distinct sizes timed */
  int rounds;
} samples;

static void curves_of(const samples *sm, int nc, adaptive_curve *c)
{
  for (int k = 0; k < nc; k++) c[k] = (adaptive_curve){sm->n[k], sm->us[k], sm->count[k], 0, 0};
}

/* The same, with each synthetic persistent kernel's UX and G. */
static void curves_of_synth(const samples *sm, const synth *s, int nc, adaptive_curve *c)
{
  curves_of(sm, nc, c);
  for (int k = 0; k < nc; k++) c[k].step_width = s[k].ux, c[k].grid_blocks = s[k].G;
}

/* Runs the planner to its end on the synthetic curves, each sample off by a
 * relative normal noise of sd `noise` (seeded). Returns the stop reason. */
static const char *plan_synth(const adaptive_opts *o, const synth *s, int nc, double noise, uint64_t seed,
                              samples *sm)
{
  memset(sm, 0, sizeof *sm);
  adaptive_curve c[MAXC];
  int next[MAXS], nn = 0;
  adaptive_state st;
  for (;;) {
    curves_of_synth(sm, s, nc, c);
    int rc = adaptive_next(o, c, nc, next, MAXS, &nn, &st);
    cr_assert_eq(rc, 0, "adaptive_next: %s", symv_strerror(rc));
    if (nn == 0) return st.stop;
    sm->rounds++;
    cr_assert_lt(sm->rounds, 200, "the planner does not stop");
    for (int i = 0; i < nn; i++) {
      for (int k = 0; k < nc; k++) {
        if (!adaptive_wants(o, c, nc, k, next[i])) continue;
        double t = synth_us(&s[k], next[i]);
        if (isnan(t)) continue;
        sm->n[k][sm->count[k]] = next[i];
        sm->us[k][sm->count[k]++] = t * (1 + noise * test_rng_normal(&seed));
      }
      sm->sizes++;
    }
  }
}

/* The true crossings of the fastest curve in lo..hi: the first n of each new
 * winner, into x; their number is returned. */
static int true_crossings(const synth *s, int nc, int lo, int hi, int *x, int max)
{
  int k = 0, prev = synth_best(s, nc, lo);
  for (int n = lo + 1; n <= hi; n++) {
    int b = synth_best(s, nc, n);
    if (b != prev && k < max) x[k++] = n;
    prev = b;
  }
  return k;
}

/* Fits every curve's samples over lo..hi (fit_curve_compute; a synthetic
 * persistent kernel with its steps) into fc[0..nc); release with fits_free. */
static void fit_all(const samples *sm, const synth *s, int nc, int lo, int hi, fit_curve *fc)
{
  memset(fc, 0, sizeof *fc * (size_t)nc);
  for (int k = 0; k < nc; k++) {
    /* ascending n, as the database gives them */
    int order[MAXS];
    for (int i = 0; i < sm->count[k]; i++) order[i] = i;
    for (int i = 1; i < sm->count[k]; i++)
      for (int j = i; j > 0 && sm->n[k][order[j - 1]] > sm->n[k][order[j]]; j--) {
        int t = order[j];
        order[j] = order[j - 1], order[j - 1] = t;
      }
    fc[k].n = malloc(sizeof(int) * MAXS);
    fc[k].us = malloc(sizeof(double) * MAXS);
    fc[k].rejected = calloc(MAXS, 1);
    for (int i = 0; i < sm->count[k]; i++) fc[k].n[i] = sm->n[k][order[i]], fc[k].us[i] = sm->us[k][order[i]];
    fc[k].nsamples = sm->count[k];
    fc[k].step_width = s[k].ux, fc[k].grid_blocks = s[k].G;
    cr_assert_eq(fit_curve_compute(&fc[k], lo, hi, 0), 0);
  }
}

static void fits_free(fit_curve *fc, int nc)
{
  for (int k = 0; k < nc; k++) free(fc[k].n), free(fc[k].us), free(fc[k].rejected), free(fc[k].pred_us);
}

/* The curve predicted fastest at n by the fits fc[0..nc) over lo.. (-1 if none). */
static int fitted_best(const fit_curve *fc, int nc, int lo, int n)
{
  int b = -1;
  for (int k = 0; k < nc; k++) {
    double t = fc[k].pred_us[n - lo];
    if (!isnan(t) && (b < 0 || t < fc[b].pred_us[n - lo])) b = k;
  }
  return b;
}

/* The crossings of the fastest curve as the fit predicts it from the
 * samples (fit_curve_compute of every curve over lo..hi). */
static int fitted_crossings(const samples *sm, const synth *s, int nc, int lo, int hi, int *x, int max)
{
  fit_curve fc[MAXC];
  fit_all(sm, s, nc, lo, hi, fc);
  int cnt = 0, prev = -1;
  for (int n = lo; n <= hi; n++) {
    int b = fitted_best(fc, nc, lo, n);
    if (prev >= 0 && b != prev && cnt < max) x[cnt++] = n;
    prev = b;
  }
  fits_free(fc, nc);
  return cnt;
}

/* The grid the sweep samples without the planner over LO..HI: 74 sizes. */
static int grid_sizes(void)
{
  int k = 0, prev = 0;
  for (int j = 0;; j++) {
    int n = (int)floor(LO * pow(10.0, j / 24.0) + 0.5);
    if (n > HI) break;
    if (n != prev) k++, prev = n;
  }
  return k + (prev != HI);
}

/* Every true crossing is matched by a fitted one within tol (relative), and
 * no fitted crossing lies farther than tol from a true one. */
static void check_crossings(const char *what, const synth *s, int nc, const samples *sm, double tol)
{
  int tx[32], fx[32];
  int nt = true_crossings(s, nc, LO, HI, tx, 32), nf = fitted_crossings(sm, s, nc, LO, HI, fx, 32);
  cr_assert_gt(nt, 0, "%s: the test's curves must cross", what);
  char list[512] = "";
  for (int i = 0, l = 0; i < nf; i++) l += snprintf(list + l, sizeof list - (size_t)l, " %d", fx[i]);
  for (int i = 0; i < nt; i++) {
    double best = INFINITY;
    for (int j = 0; j < nf; j++) best = fmin(best, fabs((double)fx[j] / tx[i] - 1));
    cr_expect_leq(best, tol, "%s: the crossing at n = %d is found %.1f%% off (fitted crossings:%s; %d sizes)", what,
                  tx[i], 100 * best, list, sm->sizes);
  }
  for (int j = 0; j < nf; j++) {
    double best = INFINITY;
    for (int i = 0; i < nt; i++) best = fmin(best, fabs((double)fx[j] / tx[i] - 1));
    cr_expect_leq(best, tol, "%s: a crossing at n = %d that the curves do not have (%d true ones)", what, fx[j], nt);
  }
  int half = grid_sizes() / 2;
  cr_expect_leq(sm->sizes, half, "%s: %d sizes, more than half the grid's %d", what, sm->sizes, 2 * half);
  cr_log_info("%s: %d sizes in %d rounds, %d crossings (%s)\n", what, sm->sizes, sm->rounds, nt, list);
}

/* Three kernels in the manner of the real ones: a small-n kernel of low
 * launch cost, one of higher bandwidth, and cuBLAS between them. */
static const synth smooth3[3] = {
  {3.0, 1400, 0.0, 0, 0, 0, 0},     /* low launch cost, lower rate */
  {6.0, 2600, 0.3, 900, 0, 0, 0},   /* higher rate, slow start */
  {4.5, 1900, 0.0, 0, 0, 0, 0},     /* in between */
};

Test(adaptive, smooth_curves_crossings_found_within_3_percent_with_half_the_sizes)
{
  adaptive_opts o;
  adaptive_opts_init(&o, LO, HI);
  samples *sm = malloc(sizeof *sm);
  const char *why = plan_synth(&o, smooth3, 3, 0, 1, sm);
  cr_assert_not_null(why);
  check_crossings("smooth", smooth3, 3, sm, 0.03);
  free(sm);
}

Test(adaptive, noisy_samples_crossings_found_within_5_percent)
{
  adaptive_opts o;
  adaptive_opts_init(&o, LO, HI);
  samples *sm = malloc(sizeof *sm);
  uint64_t seed = test_fresh_seed();
  cr_log_info("seed %llu (SYMV_TEST_SEED to replay)\n", (unsigned long long)seed);
  /* 0.3% noise, as the median of five timed batches has on a quiet GPU.
   * Over 2001 seeds the crossing at n = 291, where two curves meet at a
   * shallow angle, was found at 290.6 on average with a standard deviation
   * of 3.0 (1.0%; 281..301); the one at 90 within 2%. The bound is 5
   * standard deviations: 3% failed about one seed in 200. */
  plan_synth(&o, smooth3, 3, 0.003, seed, sm);
  check_crossings("noisy", smooth3, 3, sm, 0.05);
  free(sm);
}

/* The sizes a finished plan sampled that are even (sm->n of every curve). */
static int even_sizes(const samples *sm, int nc)
{
  int even = 0;
  for (int k = 0; k < nc; k++)
    for (int i = 0; i < sm->count[k]; i++) even += sm->n[k][i] % 2 == 0;
  return even;
}

Test(adaptive, an_odd_lattice_samples_odd_sizes_only)
{
  /* the dense stage's lattice (dense_grid's range 33..32767): lda = n odd */
  adaptive_opts o;
  adaptive_opts_init(&o, 33, 32767);
  samples *sm = malloc(sizeof *sm);
  cr_assert_not_null(plan_synth(&o, smooth3, 3, 0, 1, sm));
  cr_assert_gt(even_sizes(sm, 3), 0, "without odd, the geometric lattice proposes even sizes too");
  o.odd = 1;
  const char *why = plan_synth(&o, smooth3, 3, 0, 1, sm);
  cr_assert_not_null(why);
  cr_assert_gt(sm->sizes, 25, "the start set and some rounds: %d sizes", sm->sizes);
  cr_assert_eq(even_sizes(sm, 3), 0, "odd: every sample at an odd n (%d sizes, stop: %s)", sm->sizes, why);
  int start[64], ns = 0;
  cr_assert_eq(adaptive_start(&o, start, 64, &ns), 0);
  cr_assert(start[0] == 33 && start[ns - 1] == 32767);
  /* an odd lattice needs odd ends */
  int out[MAXS], nn = -1;
  adaptive_curve none[1] = {{NULL, NULL, 0}};
  o.hi = 32768;
  cr_expect_eq(adaptive_next(&o, none, 1, out, MAXS, &nn, NULL), SYMV_INVALID_VALUE, "hi even");
  o.hi = 32767, o.lo = 32;
  cr_expect_eq(adaptive_next(&o, none, 1, out, MAXS, &nn, NULL), SYMV_INVALID_VALUE, "lo even");
  free(sm);
}

Test(adaptive, a_step_of_one_curve_is_found)
{
  /* the second kernel's time jumps 10% at n = 5000 (a new wave of blocks):
   * above it the third kernel wins, up to where the second wins again */
  synth s[3] = {smooth3[0], smooth3[1], smooth3[2]};
  s[1].step_n = 5000, s[1].step = 0.10;
  s[2] = (synth){5.0, 2500, 0.3, 900, 0, 0, 0};
  adaptive_opts o;
  adaptive_opts_init(&o, LO, HI);
  samples *sm = malloc(sizeof *sm);
  plan_synth(&o, s, 3, 0, 7, sm);
  check_crossings("step", s, 3, sm, 0.03);
  free(sm);
}

Test(adaptive, a_kernel_unavailable_above_some_n_is_followed_to_its_end)
{
  /* the fastest kernel at large n cannot run above 7000 (resources) */
  synth s[3] = {smooth3[0], smooth3[1], smooth3[2]};
  s[1].max_n = 7000;
  adaptive_opts o;
  adaptive_opts_init(&o, LO, HI);
  samples *sm = malloc(sizeof *sm);
  plan_synth(&o, s, 3, 0, 3, sm);
  /* the fit cannot know it past its last sample: it must lie within 3% */
  int last = 0;
  for (int i = 0; i < sm->count[1]; i++)
    if (sm->n[1][i] > last) last = sm->n[1][i];
  cr_expect_geq(last, 7000 / 1.03, "the unavailable kernel's last sample is at %d, its end at 7000", last);
  /* the crossings below its end are found as for the others */
  s[1].max_n = 0;
  int tx[8];
  int nt = true_crossings(s, 3, LO, 7000, tx, 8);
  cr_assert_gt(nt, 0);
  int fx[32], nf = fitted_crossings(sm, s, 3, LO, HI, fx, 32);
  for (int i = 0; i < nt; i++) {
    double best = INFINITY;
    for (int j = 0; j < nf; j++) best = fmin(best, fabs((double)fx[j] / tx[i] - 1));
    cr_expect_leq(best, 0.03, "the crossing at %d is found %.1f%% off", tx[i], 100 * best);
  }
  cr_expect_leq(sm->sizes, grid_sizes() / 2);
  free(sm);
}

/* A persistent kernel (pipe-like: UX 32, G = 264, t = 2 + m us for the
 * most tiles m a block takes, steps at n = 961, 1409, 1729) against a
 * smooth one that crosses each of its plateaus: the planner times the
 * persistent kernel, and it alone, on both sides of each step, and the
 * rules fitted to what it planned choose within 2.5% of the fastest at
 * every n (20 runs with 0.3% noise: max regret 1.003-1.015, at the
 * crossing inside the second plateau). Planned without the steps (the same
 * truth, the curve's G not told), the regret reaches 1.17 at n = 2048,
 * the end of a plateau. */
Test(adaptive, the_steps_of_a_persistent_kernel_are_sampled_on_both_sides)
{
  const synth s[2] = {
    {2.5, 923521.0, 0.0, 0, 0, 0, 0, 0, 0},       /* smooth: 3.5 us at the first step */
    {2.0, 1.0, 0.0, 0, 0, 0, 0, 32, 264},         /* persistent: 3 us on its first plateau (second, as
                                                     the champions follow cuBLAS in the sweep) */
  };
  int st[FIT_STEP_MAX];
  cr_assert_eq(fit_step_sizes(32, 264, LO, HI, st, FIT_STEP_MAX), 3);
  cr_assert(st[0] == 961 && st[1] == 1409 && st[2] == 1729, "steps %d %d %d", st[0], st[1], st[2]);
  adaptive_opts o;
  adaptive_opts_init(&o, LO, HI);
  uint64_t seed = test_fresh_seed();
  cr_log_info("seed %llu (SYMV_TEST_SEED to replay)\n", (unsigned long long)seed);
  double worst[2];
  for (int told = 0; told < 2; told++) {
    synth t[2] = {s[0], s[1]};
    if (!told) t[1].G = 0; /* the planner and the fit do not know the steps; the truth has them */
    samples *sm = malloc(sizeof *sm);
    const char *why = plan_synth(&o, t, 2, 0.003, seed, sm);
    if (told) {
      /* the budget: a size both curves were timed at counts 1, a step size
       * (the persistent kernel alone) a half */
      double used = sm->count[0] + 0.5 * (sm->count[1] - sm->count[0]);
      cr_expect_str_eq(why, "budget");
      cr_expect(used <= o.max_sizes && used > o.max_sizes - 1, "%.1f sizes' worth timed, the budget %d", used,
                o.max_sizes);
      adaptive_curve c[2];
      curves_of_synth(sm, s, 2, c);
      for (int j = 0; j < 3; j++)
        for (int side = 0; side < 2; side++) {
          const int n = st[j] - 1 + side;
          int p = 0, q = 0;
          for (int i = 0; i < sm->count[1]; i++) p |= sm->n[1][i] == n;
          for (int i = 0; i < sm->count[0]; i++) q |= sm->n[0][i] == n;
          cr_expect(p, "the persistent kernel is not timed at n = %d", n);
          cr_expect(!q, "the smooth kernel is timed at the step size %d", n);
          cr_expect(adaptive_wants(&o, c, 2, 1, n) && !adaptive_wants(&o, c, 2, 0, n));
        }
    }
    fit_curve fc[2];
    synth f[2] = {t[0], t[1]};
    fit_all(sm, f, 2, LO, HI, fc);
    worst[told] = 1;
    int at = 0;
    for (int n = LO; n <= HI; n++) {
      int b = fitted_best(fc, 2, LO, n);
      cr_assert_geq(b, 0, "no curve predicted at n = %d", n);
      double r = synth_us(&s[b], n) / fmin(synth_us(&s[0], n), synth_us(&s[1], n));
      if (r > worst[told]) worst[told] = r, at = n;
    }
    cr_log_info("%s the steps: %d sizes, %d samples of the persistent kernel, %d of the smooth one; max regret %.3f "
                "at n = %d\n", told ? "told" : "not told", sm->sizes, sm->count[1], sm->count[0], worst[told], at);
    cr_expect_leq(sm->count[0], grid_sizes() / 2, "the smooth kernel timed at %d sizes", sm->count[0]);
    fits_free(fc, 2);
    free(sm);
  }
  cr_expect_leq(worst[1], 1.025, "seed %llu: max regret %.3f with the steps", (unsigned long long)seed, worst[1]);
  cr_expect_geq(worst[0], 1.1, "without the steps the test's curves must be hard: max regret %.3f", worst[0]);
}

/* With an odd lattice (the dense stage's) a step's sides are odd too: the
 * largest odd size below n_s and the least from n_s on, each within
 * FIT_STEP_BRACKET, timed for the persistent kernel alone; every sample is
 * odd and the rules keep the regret of the exact sides. A step of pipe's
 * tiles falls at 64k + 1, so n_s - 1 is a multiple of 64 (lda aligned)
 * and the side below is n_s - 2. */
Test(adaptive, an_odd_lattice_samples_a_steps_sides_at_odd_sizes)
{
  static const long blocks[2] = {264, 263};
  uint64_t seed = test_fresh_seed();
  cr_log_info("seed %llu (SYMV_TEST_SEED to replay)\n", (unsigned long long)seed);
  for (int w = 0; w < 2; w++) {
    const synth s[2] = {
      {2.5, 923521.0, 0.0, 0, 0, 0, 0, 0, 0},
      {2.0, 1.0, 0.0, 0, 0, 0, 0, 32, blocks[w]},
    };
    adaptive_opts o;
    adaptive_opts_init(&o, 33, 32767);
    o.odd = 1;
    int st[FIT_STEP_MAX], nst = fit_step_sizes(32, blocks[w], o.lo, o.hi, st, FIT_STEP_MAX);
    cr_assert_geq(nst, 2, "G %ld: %d steps", blocks[w], nst);
    samples *sm = malloc(sizeof *sm);
    plan_synth(&o, s, 2, 0.003, seed, sm);
    cr_expect_eq(even_sizes(sm, 2), 0, "G %ld: an even size timed", blocks[w]);
    adaptive_curve c[2];
    curves_of_synth(sm, s, 2, c);
    for (int j = 0; j < nst; j++) {
      const int side[2] = {st[j] % 2 ? st[j] - 2 : st[j] - 1, st[j] % 2 ? st[j] : st[j] + 1};
      cr_assert(fit_step_side(side[0], st[j]) < 0 && fit_step_side(side[1], st[j]) > 0, "step %d: sides %d, %d",
                st[j], side[0], side[1]);
      for (int k = 0; k < 2; k++) {
        int p = 0, q = 0;
        for (int i = 0; i < sm->count[1]; i++) p |= sm->n[1][i] == side[k];
        for (int i = 0; i < sm->count[0]; i++) q |= sm->n[0][i] == side[k];
        cr_expect(p, "G %ld, step %d: the persistent kernel is not timed at n = %d", blocks[w], st[j], side[k]);
        cr_expect(!q, "G %ld: the smooth kernel is timed at the step's side %d", blocks[w], side[k]);
        cr_expect(adaptive_wants(&o, c, 2, 1, side[k]) && !adaptive_wants(&o, c, 2, 0, side[k]));
      }
    }
    fit_curve fc[2];
    synth f[2] = {s[0], s[1]};
    fit_all(sm, f, 2, o.lo, o.hi, fc);
    double worst = 1;
    for (int n = o.lo; n <= o.hi; n++) {
      int b = fitted_best(fc, 2, o.lo, n);
      cr_assert_geq(b, 0, "no curve predicted at n = %d", n);
      worst = fmax(worst, synth_us(&s[b], n) / fmin(synth_us(&s[0], n), synth_us(&s[1], n)));
    }
    cr_expect_leq(worst, 1.025, "G %ld, seed %llu: max regret %.3f", blocks[w], (unsigned long long)seed, worst);
    fits_free(fc, 2);
    free(sm);
  }
}

Test(adaptive, the_same_samples_give_the_same_sizes)
{
  adaptive_opts o;
  adaptive_opts_init(&o, LO, HI);
  samples *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  plan_synth(&o, smooth3, 3, 0.003, 11, a);
  plan_synth(&o, smooth3, 3, 0.003, 11, b);
  cr_assert_eq(a->sizes, b->sizes);
  cr_assert_eq(a->rounds, b->rounds);
  for (int k = 0; k < 3; k++) {
    cr_assert_eq(a->count[k], b->count[k]);
    cr_assert_eq(memcmp(a->n[k], b->n[k], sizeof(int) * (size_t)a->count[k]), 0);
  }
  /* the samples in another order: the same next sizes */
  adaptive_curve c[3], r[3];
  curves_of(a, 3, c);
  int rn[3][MAXS];
  double rus[3][MAXS];
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < a->count[k]; i++) rn[k][i] = a->n[k][a->count[k] - 1 - i], rus[k][i] = a->us[k][a->count[k] - 1 - i];
    r[k] = (adaptive_curve){rn[k], rus[k], a->count[k]};
  }
  o.max_sizes = 1000, o.target = 0;
  int x[MAXS], y[MAXS], nx, ny;
  cr_assert_eq(adaptive_next(&o, c, 3, x, MAXS, &nx, NULL), 0);
  cr_assert_eq(adaptive_next(&o, r, 3, y, MAXS, &ny, NULL), 0);
  cr_assert_gt(nx, 0);
  cr_assert_eq(nx, ny);
  cr_assert_eq(memcmp(x, y, sizeof(int) * (size_t)nx), 0);
  free(a), free(b);
}

Test(adaptive, start_set_then_resumed_where_a_round_was_cut)
{
  adaptive_opts o;
  adaptive_opts_init(&o, LO, HI);
  int start[64], ns = 0;
  cr_assert_eq(adaptive_start(&o, start, 64, &ns), 0);
  cr_assert_eq(start[0], LO);
  cr_assert_eq(start[ns - 1], HI);
  cr_assert_eq(ns, 25, "8 per decade over 3 decades and both ends: %d", ns);
  for (int i = 1; i < ns; i++) {
    double r = (double)start[i] / start[i - 1];
    cr_assert(r > 1.2 && r < 1.5, "start sizes %d, %d", start[i - 1], start[i]);
  }
  /* no samples: the start set */
  int out[MAXS], nn;
  adaptive_state st;
  adaptive_curve none[2] = {{NULL, NULL, 0}, {NULL, NULL, 0}};
  cr_assert_eq(adaptive_next(&o, none, 2, out, MAXS, &nn, &st), 0);
  cr_assert_eq(nn, ns);
  cr_assert(st.starting);
  cr_assert_eq(memcmp(out, start, sizeof(int) * (size_t)ns), 0);
  /* half of it sampled (by one curve only): the other half */
  int n1[32];
  double us1[32];
  for (int i = 0; i < ns / 2; i++) n1[i] = start[2 * i], us1[i] = synth_us(&smooth3[0], start[2 * i]);
  adaptive_curve part[2] = {{n1, us1, ns / 2}, {NULL, NULL, 0}};
  cr_assert_eq(adaptive_next(&o, part, 2, out, MAXS, &nn, &st), 0);
  cr_assert_eq(nn, ns - ns / 2);
  int expect[32], ne = 0;
  for (int i = 0; i < ns; i++)
    if (i % 2 || i >= 2 * (ns / 2)) expect[ne++] = start[i];
  cr_assert_eq(nn, ne);
  cr_assert_eq(memcmp(out, expect, sizeof(int) * (size_t)ne), 0);
  cr_assert_eq(st.nsampled, ns / 2);
}

Test(adaptive, bad_arguments_are_refused)
{
  adaptive_opts o;
  adaptive_opts_init(&o, LO, HI);
  int out[MAXS], nn = -1;
  adaptive_curve c[1] = {{NULL, NULL, 0}};
  cr_assert_eq(adaptive_next(NULL, c, 1, out, MAXS, &nn, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(adaptive_next(&o, NULL, 1, out, MAXS, &nn, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(adaptive_next(&o, c, 0, out, MAXS, &nn, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(adaptive_next(&o, c, 1, NULL, MAXS, &nn, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(adaptive_next(&o, c, 1, out, MAXS, NULL, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(adaptive_next(&o, c, 1, out, 3, &nn, NULL), SYMV_INVALID_VALUE, "out too small for the start set");
  adaptive_curve neg[1] = {{NULL, NULL, -1}};
  cr_assert_eq(adaptive_next(&o, neg, 1, out, MAXS, &nn, NULL), SYMV_INVALID_VALUE);
  adaptive_curve nul[1] = {{NULL, NULL, 3}};
  cr_assert_eq(adaptive_next(&o, nul, 1, out, MAXS, &nn, NULL), SYMV_INVALID_VALUE);
  struct {
    const char *what;
    adaptive_opts o;
  } bad[9];
  for (int i = 0; i < 9; i++) bad[i].o = o;
  bad[0].what = "lo 0", bad[0].o.lo = 0;
  bad[1].what = "hi <= lo", bad[1].o.hi = LO;
  bad[2].what = "batch 0", bad[2].o.batch = 0;
  bad[3].what = "target < 0", bad[3].o.target = -0.01;
  bad[4].what = "target NaN", bad[4].o.target = NAN;
  bad[5].what = "start 0 per decade", bad[5].o.start_per_decade = 0;
  bad[6].what = "lattice 0 per decade", bad[6].o.lattice_per_decade = 0;
  bad[7].what = "budget smaller than the start set", bad[7].o.max_sizes = 10;
  static const int unsorted[] = {LO, 100, 90, HI};
  bad[8].what = "lattice not ascending", bad[8].o.lattice = unsorted, bad[8].o.nlattice = 4;
  for (int i = 0; i < 9; i++) {
    cr_expect_eq(adaptive_next(&bad[i].o, c, 1, out, MAXS, &nn, NULL), SYMV_INVALID_VALUE, "%s", bad[i].what);
    cr_expect_eq(nn, 0, "%s", bad[i].what);
  }
  static const int nohi[] = {LO, 100, 1000};
  o.lattice = nohi, o.nlattice = 3;
  cr_expect_eq(adaptive_start(&o, out, MAXS, &nn), SYMV_INVALID_VALUE, "a lattice must end at hi");
}

/* ---- the shipped databases, replayed --------------------------------------- */

/* The grid of a loaded set: every size any curve was sampled at. */
static int grid_of(const fit_set *full, int *grid)
{
  int ng = 0;
  for (size_t k = 0; k < full->ncurves; k++)
    for (int i = 0; i < full->curve[k].nsamples; i++) {
      int n = full->curve[k].n[i], j = 0;
      while (j < ng && grid[j] < n) j++;
      if (j < ng && grid[j] == n) continue;
      memmove(grid + j + 1, grid + j, sizeof *grid * (size_t)(ng - j));
      grid[j] = n, ng++;
    }
  return ng;
}

/* The measured time of curve k of full at n, NaN if none. */
static double measured(const fit_curve *c, int n)
{
  for (int i = 0; i < c->nsamples; i++)
    if (c->n[i] == n) return c->us[i];
  return NAN;
}

/* The rules (both sets: any, deterministic) fitted as `symvtune fit` does to
 * the samples of full at the sizes with picked[j] set, and their regret at
 * the grid sizes with eval[j] set: the chosen kernel's measured time over
 * the fastest measured one of the set, into r; their number is returned. */
static int replay_regret(const fit_set *full, const int *grid, int ng, const unsigned char *picked,
                        const unsigned char *eval, double *r)
{
  size_t nc = full->ncurves;
  fit_set s = *full;
  s.curve = calloc(nc, sizeof *s.curve);
  for (size_t k = 0; k < nc; k++) {
    const fit_curve *f = &full->curve[k];
    fit_curve *c = &s.curve[k];
    *c = *f;
    c->n = malloc(sizeof *c->n * (size_t)(f->nsamples + 1));
    c->us = malloc(sizeof *c->us * (size_t)(f->nsamples + 1));
    c->rejected = calloc((size_t)f->nsamples + 1, 1);
    c->pred_us = NULL;
    c->nsamples = 0;
    for (int i = 0; i < f->nsamples; i++)
      for (int j = 0; j < ng; j++)
        if (grid[j] == f->n[i] && picked[j]) c->n[c->nsamples] = f->n[i], c->us[c->nsamples++] = f->us[i];
  }
  int lo, hi, nr = 0;
  cr_assert_eq(fit_cublas_range(&s, &lo, &hi), 0);
  cr_assert_eq(fit_compute(&s, lo, hi, 0), 0);
  for (int det = 0; det < 2; det++) {
    fit_set view = s;
    if (det) cr_assert_eq(fit_deterministic_view(&s, &view), 0);
    db_rule *rules = NULL;
    size_t nrules = 0;
    cr_assert_eq(fit_select(&view, FIT_DEFAULT_THRESHOLD, FIT_DEFAULT_MARGIN, &rules, &nrules, NULL), 0);
    for (int j = 0; j < ng; j++) {
      if (!eval[j] || grid[j] < lo || grid[j] > hi) continue;
      size_t ri = 0;
      while (rules[ri].n_end < grid[j]) ri++;
      double chosen = NAN, best = INFINITY;
      for (size_t k = 0; k < view.ncurves; k++) {
        const fit_curve *fc = &view.curve[k];
        double t = NAN;
        for (size_t q = 0; q < nc; q++)
          if (!strcmp(full->curve[q].label, fc->label)) t = measured(&full->curve[q], grid[j]);
        if (isnan(t)) continue;
        best = fmin(best, t);
        if (!strcmp(fc->kernel, rules[ri].kernel) &&
            (strcmp(fc->kernel, DB_KERNEL_CANDIDATE) || fc->cand.id == rules[ri].cand.id))
          chosen = t;
      }
      if (!isnan(chosen)) r[nr++] = chosen / best;
    }
    free(rules);
    if (det) free(view.curve);
  }
  for (size_t k = 0; k < nc; k++) free(s.curve[k].n), free(s.curve[k].us), free(s.curve[k].rejected), free(s.curve[k].pred_us);
  free(s.curve);
  return nr;
}

/* Feeds the planner (with the grid as its lattice and its own budget,
 * adaptive_opts_init's, but at most three quarters of the grid) from the
 * samples of full until it stops; picked[j] set for every grid size it
 * asked for. Returns their number. */
static int replay(const fit_set *full, const int *grid, int ng, unsigned char *picked)
{
  adaptive_opts o;
  adaptive_opts_init(&o, grid[0], grid[ng - 1]);
  o.lattice = grid, o.nlattice = ng;
  if (o.max_sizes > ng * 3 / 4) o.max_sizes = ng * 3 / 4;
  size_t nc = full->ncurves;
  adaptive_curve *c = calloc(nc, sizeof *c);
  int *cn = calloc(nc * MAXS, sizeof *cn);
  double *cus = calloc(nc * MAXS, sizeof *cus);
  int next[MAXS], nn, npicked = 0;
  memset(picked, 0, (size_t)ng);
  for (;;) {
    for (size_t k = 0; k < nc; k++) {
      c[k] = (adaptive_curve){cn + k * MAXS, cus + k * MAXS, 0};
      for (int i = 0; i < full->curve[k].nsamples; i++)
        for (int j = 0; j < ng; j++)
          if (picked[j] && grid[j] == full->curve[k].n[i])
            cn[k * MAXS + (size_t)c[k].nsamples] = grid[j], cus[k * MAXS + (size_t)c[k].nsamples++] = full->curve[k].us[i];
    }
    cr_assert_eq(adaptive_next(&o, c, (int)nc, next, MAXS, &nn, NULL), 0);
    if (!nn) break;
    for (int i = 0; i < nn; i++)
      for (int j = 0; j < ng; j++)
        if (grid[j] == next[i]) {
          cr_assert(!picked[j], "%d asked for twice", next[i]);
          picked[j] = 1, npicked++;
        }
  }
  free(c), free(cn), free(cus);
  return npicked;
}

Test(adaptive, shipped_databases_replayed_regret_within_target, .timeout = 600)
{
  /* the H200's too with SYMV_TEST_SLOW set (a minute more) */
  static const char *const gpus[] = {"h100", "h200"};
  int ngpu = getenv("SYMV_TEST_SLOW") ? 2 : 1;
  char dir[] = "/tmp/symvtune-adaptive-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  for (int g = 0; g < ngpu; g++) {
    char xz[1024], path[256], cmd[2048];
    snprintf(xz, sizeof xz, "%s/sweep6-%s.db.xz", SYMV_TEST_DATA, gpus[g]);
    if (access(xz, R_OK)) {
      test_rmtree(dir);
      cr_skip_test("no %s", xz);
    }
    snprintf(path, sizeof path, "%s/%s.db", dir, gpus[g]);
    snprintf(cmd, sizeof cmd, "xz -dc '%s' > '%s'", xz, path);
    if (system(cmd)) {
      test_rmtree(dir);
      cr_skip_test("xz could not unpack %s", xz);
    }
    db *d = NULL;
    cr_assert_eq(db_open(&d, path, DB_READONLY), 0);
    for (int q = 0; q < SYMV_ROUTINE_COUNT; q++) {
      const symv_routine ro = symv_routine_order(q);
      const char *name = symv_routine_name(ro);
      fit_set full;
      int rc = fit_load(d, ro, 'L', 0, &full);
      if (rc == SYMV_NOT_FOUND) continue;
      cr_assert_eq(rc, 0, "%s %s: %s", gpus[g], name, db_errmsg(d));
      int grid[MAXS], ng = grid_of(&full, grid);
      unsigned char picked[MAXS], left[MAXS], half[MAXS], nothalf[MAXS];
      int sizes = replay(&full, grid, ng, picked);
      for (int j = 0; j < ng; j++) left[j] = !picked[j], half[j] = j % 2 == 0 || j == ng - 1, nothalf[j] = !half[j];
      double ra[2 * MAXS], rh[2 * MAXS];
      int na = replay_regret(&full, grid, ng, picked, left, ra);
      int nh = replay_regret(&full, grid, ng, half, nothalf, rh);
      double ma = symv_median(ra, (size_t)na), mh = symv_median(rh, (size_t)nh);
      char list[1024] = "";
      for (int j = 0, l = 0; j < ng && l < (int)sizeof list - 8; j++)
        if (picked[j]) l += snprintf(list + l, sizeof list - (size_t)l, "%s%d", l ? "," : "", grid[j]);
      cr_log_info("%s %s: %d of %d sizes; regret at the %d left out, both rule sets: median %.4f max %.4f (but one "
                  "%.4f); every other size instead: median %.4f max %.4f; sizes %s\n", gpus[g], name, sizes, ng,
                  ng - sizes, ma, ra[na - 1], ra[na > 1 ? na - 2 : 0], mh, rh[nh - 1], list);
      cr_expect_leq(4 * sizes, 3 * ng, "%s %s: %d of %d sizes", gpus[g], name, sizes, ng);
      cr_expect_leq(ma, 1.005, "%s %s: median regret %.4f", gpus[g], name, ma);
      /* the max but one: 1.05, or where sampling every other size misses
       * that too, no worse than its max by more than 6%. One size is let
       * go: a kernel's lone slow size is found only by timing it (the full
       * grid's own rules reach 1.06-1.52 at sizes they sampled), and which
       * lone sizes either plan misses decides the maximum alone */
      const double second = ra[na > 1 ? na - 2 : 0];
      cr_expect_leq(second, fmax(1.05, rh[nh - 1] + 0.06),
                    "%s %s: regret %.4f at the worst size but one (max %.4f), every other size's max %.4f", gpus[g],
                    name, second, ra[na - 1], rh[nh - 1]);
      fit_set_free(&full);
    }
    db_close(d);
  }
  test_rmtree(dir);
}
