/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the selection rules (dspline/rules.h). Random curves are fresh on
 * every run; assertion messages carry the seed that reproduces them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "dspline/rules.h"
#include "symv_error.h"
#include "test_util.h"


static int available(double v) { return !isnan(v) && v != INFINITY; }

/* The guarantee of rules.h: the intervals cover lo..hi in order with no gap
 * and no overlap, adjacent ones differ, and each names a candidate that is
 * available over all of it. */
static void check_cover(const rules_interval *iv, int m, const double *t, int M, int lo, int hi,
                        unsigned long long seed, int trial)
{
  int N = hi - lo + 1;
  cr_assert_geq(m, 1, "seed %llu trial %d", seed, trial);
  cr_assert_eq(iv[0].n_start, lo, "seed %llu trial %d: starts at %d, not %d", seed, trial, iv[0].n_start, lo);
  cr_assert_eq(iv[m - 1].n_end, hi, "seed %llu trial %d: ends at %d, not %d", seed, trial, iv[m - 1].n_end, hi);
  for (int i = 0; i < m; i++) {
    cr_assert_leq(iv[i].n_start, iv[i].n_end, "seed %llu trial %d interval %d", seed, trial, i);
    cr_assert(iv[i].cand >= 0 && iv[i].cand < M, "seed %llu trial %d interval %d", seed, trial, i);
    if (i > 0) {
      cr_assert_eq(iv[i].n_start, iv[i - 1].n_end + 1, "seed %llu trial %d: gap or overlap at %d",
                   seed, trial, i);
      cr_assert_neq(iv[i].cand, iv[i - 1].cand, "seed %llu trial %d: equal neighbours at %d", seed,
                    trial, i);
    }
    for (int n = iv[i].n_start; n <= iv[i].n_end; n++)
      cr_assert(available(t[(size_t)iv[i].cand * N + (n - lo)]),
                "seed %llu trial %d: candidate %d unavailable at %d", seed, trial, iv[i].cand, n);
  }
}

Test(rules, cover_the_grid_on_random_curves)
{
  uint64_t seed = test_fresh_seed(), x = seed;
  for (int trial = 0; trial < 400; trial++) {
    int M = test_rng_int(&x, 1, 6), N = test_rng_int(&x, 1, 400), lo = test_rng_int(&x, -50, 5000);
    int hi = lo + N - 1;
    double *t = malloc((size_t)M * N * sizeof *t);
    int prio[6];
    for (int c = 0; c < M; c++) {
      double base = 5.0 + 20.0 * test_rng_unit(&x), amp = 3.0 * test_rng_unit(&x);
      double period = 5.0 + 200.0 * test_rng_unit(&x), noise = 0.05 * test_rng_unit(&x);
      for (int j = 0; j < N; j++) {
        t[(size_t)c * N + j] = base + amp * sin(j / period) + base * noise * test_rng_unit(&x);
        if (test_rng_unit(&x) < 0.03) t[(size_t)c * N + j] = test_rng_unit(&x) < 0.5 ? NAN : INFINITY;
      }
      prio[c] = test_rng_int(&x, 0, 3);
    }
    for (int j = 0; j < N; j++) {
      int any = 0;
      for (int c = 0; c < M; c++) any |= available(t[(size_t)c * N + j]);
      if (!any) t[j] = 7.0;
    }
    rules_options opt;
    rules_options_init(&opt);
    int plain = test_rng_unit(&x) < 0.3;
    opt.threshold = plain ? 0.0 : 0.1 * test_rng_unit(&x);
    opt.tolerance = plain || test_rng_unit(&x) < 0.5 ? 0.0 : 0.1 * test_rng_unit(&x);
    opt.priority = !plain && test_rng_unit(&x) < 0.5 ? prio : NULL;

    rules_interval *iv = NULL;
    int m = -1;
    int rc = rules_select_opt(t, M, lo, hi, &opt, &iv, &m);
    cr_assert_eq(rc, 0, "seed %llu trial %d: rc %d", (unsigned long long)seed, trial, rc);
    check_cover(iv, m, t, M, lo, hi, (unsigned long long)seed, trial);
    if (plain) /* threshold 0, no tolerance: every n runs a fastest candidate */
      for (int i = 0; i < m; i++)
        for (int n = iv[i].n_start; n <= iv[i].n_end; n++)
          for (int c = 0; c < M; c++) {
            double v = t[(size_t)c * N + (n - lo)];
            cr_assert(!available(v) || v >= t[(size_t)iv[i].cand * N + (n - lo)],
                      "seed %llu trial %d: at %d candidate %d beats the chosen %d",
                      (unsigned long long)seed, trial, n, c, iv[i].cand);
          }
    free(iv);
    free(t);
  }
}

/* Curves on 100..1000: A(n) = 20 + 0.01 n, B a multiple of A. */
#define LO 100
#define HI 1000
#define NN (HI - LO + 1)
static double curve_a(int n) { return 20.0 + 0.01 * n; }

static void expect(const rules_interval *iv, int m, const int (*want)[3], int nwant)
{
  cr_assert_eq(m, nwant, "%d intervals, expected %d", m, nwant);
  for (int i = 0; i < m; i++) {
    cr_assert_eq(iv[i].n_start, want[i][0], "interval %d starts at %d", i, iv[i].n_start);
    cr_assert_eq(iv[i].n_end, want[i][1], "interval %d ends at %d", i, iv[i].n_end);
    cr_assert_eq(iv[i].cand, want[i][2], "interval %d runs %d", i, iv[i].cand);
  }
}

/* The paper's absurd one-wide interval ([paper] Table 5): B is 0.5% faster
 * than A at one n only, 3% slower elsewhere. */
Test(rules, one_wide_spike_disappears)
{
  static double t[2 * NN];
  for (int n = LO; n <= HI; n++) {
    t[n - LO] = curve_a(n);
    t[NN + n - LO] = (n == 555 ? 0.995 : 1.03) * curve_a(n);
  }
  rules_interval *iv;
  int m;
  cr_assert_eq(rules_select(t, 2, LO, HI, 0.0, &iv, &m), 0);
  const int raw[][3] = {{100, 554, 0}, {555, 555, 1}, {556, 1000, 0}};
  expect(iv, m, raw, 3);
  free(iv);
  cr_assert_eq(rules_select(t, 2, LO, HI, RULES_DEFAULT_THRESHOLD, &iv, &m), 0);
  const int clean[][3] = {{100, 1000, 0}};
  expect(iv, m, clean, 1);
  free(iv);
}

/* A real winner, 5% faster over 400..700, stays, with its exact edges,
 * while noise spikes of 0.5% around it are removed. */
Test(rules, wide_five_percent_winner_stays)
{
  static double t[2 * NN];
  for (int n = LO; n <= HI; n++) {
    int in = n >= 400 && n <= 700;
    t[n - LO] = curve_a(n) * (n % 97 == 0 && in ? 0.945 : 1.0); /* A spikes inside */
    t[NN + n - LO] = curve_a(n) * (in ? 0.95 : (n % 89 == 0 ? 0.995 : 1.04));
  }
  rules_interval *iv;
  int m;
  cr_assert_eq(rules_select(t, 2, LO, HI, 0.01, &iv, &m), 0);
  const int want[][3] = {{100, 399, 0}, {400, 700, 1}, {701, 1000, 0}};
  expect(iv, m, want, 3);
  free(iv);
}

/* A removed interval goes to the neighbour whose candidate is faster over
 * it: B wins n = 500 by 0.5% over C and 2% over A. */
Test(rules, removed_interval_goes_to_the_faster_neighbour)
{
  static double t[3 * NN];
  for (int n = LO; n <= HI; n++) {
    double a = curve_a(n);
    t[n - LO] = n < 500 ? a : 1.1 * a;
    t[2 * NN + n - LO] = n > 500 ? a : 1.1 * a;
    t[NN + n - LO] = 1.2 * a;
  }
  t[NN + 500 - LO] = curve_a(500);
  t[500 - LO] = 1.02 * curve_a(500);
  t[2 * NN + 500 - LO] = 1.005 * curve_a(500);
  rules_interval *iv;
  int m;
  cr_assert_eq(rules_select(t, 3, LO, HI, 0.01, &iv, &m), 0);
  const int want[][3] = {{100, 499, 0}, {500, 1000, 2}};
  expect(iv, m, want, 2);
  free(iv);
}

/* Prefer within tolerance: A is 2% faster than B everywhere, but B is
 * ranked higher overall. */
Test(rules, prefer_within_tolerance)
{
  static double t[2 * NN];
  for (int n = LO; n <= HI; n++) {
    t[n - LO] = curve_a(n);
    t[NN + n - LO] = 1.02 * curve_a(n);
  }
  int prio[2] = {1, 0};
  rules_options opt;
  rules_options_init(&opt);
  opt.priority = prio;
  rules_interval *iv;
  int m;
  opt.tolerance = 0.05;
  cr_assert_eq(rules_select_opt(t, 2, LO, HI, &opt, &iv, &m), 0);
  const int b[][3] = {{100, 1000, 1}};
  expect(iv, m, b, 1);
  free(iv);
  opt.tolerance = 0.01;
  cr_assert_eq(rules_select_opt(t, 2, LO, HI, &opt, &iv, &m), 0);
  const int a[][3] = {{100, 1000, 0}};
  expect(iv, m, a, 1);
  free(iv);
}

/* NaN marks a candidate unavailable: B fills the gap between A (available up
 * to 400) and C (from 411) even though it is slow: its gain there is
 * infinite, no neighbour can take it. A and C gain 33% over B and stay. */
Test(rules, unavailable_candidates_are_never_chosen)
{
  static double t[3 * NN];
  for (int n = LO; n <= HI; n++) {
    t[n - LO] = n <= 400 ? curve_a(n) : NAN;
    t[NN + n - LO] = 1.5 * curve_a(n);
    t[2 * NN + n - LO] = n >= 411 ? curve_a(n) : INFINITY;
  }
  rules_interval *iv;
  int m;
  cr_assert_eq(rules_select(t, 3, LO, HI, 0.2, &iv, &m), 0);
  const int want[][3] = {{100, 400, 0}, {401, 410, 1}, {411, 1000, 2}};
  expect(iv, m, want, 3);
  free(iv);
}

Test(rules, single_curve_and_single_point)
{
  double t[3] = {4.0, 5.0, 6.0};
  rules_interval *iv;
  int m;
  cr_assert_eq(rules_select(t, 1, 7, 9, 0.01, &iv, &m), 0);
  const int one[][3] = {{7, 9, 0}};
  expect(iv, m, one, 1);
  free(iv);
  cr_assert_eq(rules_select(t, 3, 42, 42, 0.01, &iv, &m), 0);
  const int pt[][3] = {{42, 42, 0}};
  expect(iv, m, pt, 1);
  free(iv);
}

Test(rules, refuses_bad_input)
{
  double t[4] = {1.0, 2.0, 2.0, 1.0};
  double zero[4] = {1.0, 0.0, 2.0, 1.0}, neg[4] = {1.0, -2.0, 2.0, 1.0};
  double minf[4] = {1.0, -INFINITY, 2.0, 1.0}, hole[4] = {1.0, NAN, 2.0, NAN};
  rules_interval *iv;
  int m;
  rules_options opt;
  rules_options_init(&opt);
  cr_assert_eq(rules_select(t, 2, 1, 2, 0.01, &iv, &m), 0);
  free(iv);
  cr_assert_eq(rules_select(NULL, 2, 1, 2, 0.01, &iv, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(t, 2, 1, 2, 0.01, NULL, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(t, 2, 1, 2, 0.01, &iv, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(t, 0, 1, 2, 0.01, &iv, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(t, 2, 2, 1, 0.01, &iv, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(zero, 2, 1, 2, 0.01, &iv, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(neg, 2, 1, 2, 0.01, &iv, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(minf, 2, 1, 2, 0.01, &iv, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(hole, 2, 1, 2, 0.01, &iv, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(t, 2, 1, 2, -0.01, &iv, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(t, 2, 1, 2, 1.0, &iv, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select(t, 2, 1, 2, NAN, &iv, &m), SYMV_INVALID_VALUE);
  opt.tolerance = -0.1;
  cr_assert_eq(rules_select_opt(t, 2, 1, 2, &opt, &iv, &m), SYMV_INVALID_VALUE);
  opt.tolerance = NAN;
  cr_assert_eq(rules_select_opt(t, 2, 1, 2, &opt, &iv, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(rules_select_opt(t, 2, 1, 2, NULL, &iv, &m), 0);
  free(iv);
}
