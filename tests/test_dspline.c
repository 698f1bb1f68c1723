/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the d-spline (dspline/dspline.h). Random inputs are fresh on every
 * run; each assertion message carries the seed that reproduces it. */
#include <criterion/criterion.h>
#include "config.h"
#include SYMV_LAPACKE_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dspline/dspline.h"
#include "symv_error.h"
#include "test_util.h"


/* Dense reference: X = [E; alpha D] (m x N, m = k + N - 2), f = argmin
 * ||X f - [y; 0]|| by LAPACK dgels, and edf = trace(E (X^T X)^-1 E^T) =
 * sum_i ||R^-T e_{s_i}||^2 from the R of X = QR (dgeqrf, dtrtrs): R has the
 * square root of the condition number of X^T X, so this reference is the
 * more accurate one when alpha is large. */
static void dense_reference(int lo, int hi, const int *s, const double *y, int k,
                            double alpha, double *f, double *edf)
{
  int N = hi - lo + 1, m = k + N - 2;
  double *A = calloc((size_t)m * N, sizeof *A), *b = calloc((size_t)m, sizeof *b);
  double *X = malloc((size_t)m * N * sizeof *X), *tau = malloc((size_t)N * sizeof *tau);
  double *z = malloc((size_t)N * sizeof *z);
  for (int i = 0; i < k; i++) {
    A[i + (size_t)m * (s[i] - lo)] = 1.0;
    b[i] = y[i];
  }
  for (int r = 0; r + 2 < N; r++) {
    A[k + r + (size_t)m * r] = alpha;
    A[k + r + (size_t)m * (r + 1)] = -2.0 * alpha;
    A[k + r + (size_t)m * (r + 2)] = alpha;
  }
  memcpy(X, A, (size_t)m * N * sizeof *X);
  cr_assert_eq(LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, N, 1, A, m, b, m), 0);
  memcpy(f, b, (size_t)N * sizeof *f);

  cr_assert_eq(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, N, X, m, tau), 0);
  *edf = 0.0;
  for (int i = 0; i < k; i++) {
    memset(z, 0, (size_t)N * sizeof *z);
    z[s[i] - lo] = 1.0;
    cr_assert_eq(LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'U', 'T', 'N', N, 1, X, m, z, N), 0);
    for (int j = 0; j < N; j++) *edf += z[j] * z[j];
  }
  free(A);
  free(b);
  free(X);
  free(tau);
  free(z);
}

static double max_abs(const double *v, int n)
{
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}

/* (a) The banded solve agrees with a dense least-squares solve of the same
 * problem, and the exact trace of the hat matrix with the dense inverse. */
Test(dspline, matches_dense_least_squares)
{
  uint64_t seed = test_fresh_seed(), x = seed;
  const int grids[][2] = {{1, 12}, {100, 129}, {-20, 40}, {5000, 5200}};
  const double alphas[] = {0.05, 1.0, 30.0, 1000.0};
  for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
    int lo = grids[g][0], hi = grids[g][1], N = hi - lo + 1;
    int k = test_rng_int(&x, 3, N + 5); /* repeated positions likely */
    int *s = malloc(k * sizeof *s);
    double *y = malloc(k * sizeof *y), *f = malloc(N * sizeof *f), *fr = malloc(N * sizeof *fr);
    s[0] = lo;
    s[1] = hi; /* at least two distinct positions */
    for (int i = 2; i < k; i++) s[i] = test_rng_int(&x, lo, hi);
    for (int i = 0; i < k; i++) y[i] = 50.0 + 20.0 * (test_rng_unit(&x) - 0.5);
    for (size_t a = 0; a < sizeof alphas / sizeof *alphas; a++) {
      dspline_info info;
      for (int j = 0; j < N; j++) f[j] = NAN;
      cr_assert_eq(dspline_fit_info(lo, hi, s, y, k, alphas[a], f, &info), 0);
      double edf;
      dense_reference(lo, hi, s, y, k, alphas[a], fr, &edf);
      double err = 0.0;
      for (int j = 0; j < N; j++) err = fmax(err, fabs(f[j] - fr[j]));
      cr_assert_lt(err / max_abs(fr, N), 1e-10, "seed %llu grid %d..%d k %d alpha %g: rel err %g",
                   (unsigned long long)seed, lo, hi, k, alphas[a], err / max_abs(fr, N));
      /* edf comes from the Cholesky factor of a matrix of condition up to
       * ~16 alpha^2 N / k (1e9 here), without refinement: 1e-8. */
      cr_assert_lt(fabs(info.edf - edf), 1e-8 * edf, "seed %llu grid %d..%d alpha %g: edf %.15g vs %.15g",
                   (unsigned long long)seed, lo, hi, alphas[a], info.edf, edf);
      /* Residuals agree to the tolerance of the fits, delta; rss to that
       * of a sum of squares of k such residuals. */
      double rss = 0.0, delta = 1e-10 * max_abs(fr, N);
      for (int i = 0; i < k; i++) rss += (y[i] - fr[s[i] - lo]) * (y[i] - fr[s[i] - lo]);
      cr_assert_leq(fabs(info.rss - rss), 2.0 * sqrt(k * rss) * delta + k * delta * delta,
                    "seed %llu alpha %g: rss %g vs %g", (unsigned long long)seed, alphas[a], info.rss, rss);
      double gdof = k - 1.4 * info.edf, dof = k - info.edf; /* the formulas of dspline.h */
      if (gdof > 1e-3)
        cr_assert_lt(fabs(info.gcv - k * info.rss / (gdof * gdof)), 1e-12 * info.gcv);
      else if (gdof <= 0.0)
        cr_assert(isinf(info.gcv));
      if (dof > 1e-3) cr_assert_lt(fabs(info.sigma - sqrt(info.rss / dof)), 1e-12 * info.sigma);
      cr_assert_eq(dspline_fit(lo, hi, s, y, k, alphas[a], f), 0); /* same solve, no info */
      err = 0.0;
      for (int j = 0; j < N; j++) err = fmax(err, fabs(f[j] - fr[j]));
      cr_assert_lt(err / max_abs(fr, N), 1e-10, "seed %llu", (unsigned long long)seed);
    }
    free(s);
    free(y);
    free(f);
    free(fr);
  }
}

/* D annihilates straight lines: samples on a line are fitted exactly for any
 * alpha, even where the banded matrix is badly conditioned (the paper's grid
 * 100..10000 with strong smoothing). */
Test(dspline, reproduces_a_line_on_the_paper_grid)
{
  int lo = 100, hi = 10000, N = hi - lo + 1, k = 48;
  int s[48];
  double y[48], *f = malloc(N * sizeof *f);
  for (int i = 0; i < k; i++) {
    s[i] = lo + (int)((double)i * (N - 1) / (k - 1));
    y[i] = 3.0 + 0.02 * s[i];
  }
  const double alphas[] = {1e-3, 1.0, 1e3, 1e5};
  for (size_t a = 0; a < sizeof alphas / sizeof *alphas; a++) {
    cr_assert_eq(dspline_fit(lo, hi, s, y, k, alphas[a], f), 0);
    for (int j = 0; j < N; j++)
      cr_assert_lt(fabs(f[j] - (3.0 + 0.02 * (lo + j))), 1e-8 * 200.0, "alpha %g n %d: %.17g",
                   alphas[a], lo + j, f[j]);
  }
  free(f);
}

/* Two distinct positions, each sampled several times: the fit is the line
 * through the two means, whatever alpha; auto reports alpha = 1. */
Test(dspline, repeated_positions_are_averaged)
{
  int s[] = {10, 10, 10, 20, 20};
  double y[] = {1.0, 2.0, 3.0, 10.0, 14.0}, f[21], alpha = 0.0;
  cr_assert_eq(dspline_fit(0, 20, s, y, 5, 7.0, f), 0);
  for (int n = 0; n <= 20; n++) cr_assert_float_eq(f[n], 2.0 + (n - 10) * 1.0, 1e-9, "n %d", n);
  cr_assert_eq(dspline_fit_auto(0, 20, s, y, 5, &alpha, f), 0);
  cr_assert_float_eq(alpha, 1.0, 1e-15);
  cr_assert_float_eq(f[15], 7.0, 1e-9);
  /* A grid of two points has no second difference at all. */
  int s2[] = {0, 1, 1};
  double y2[] = {4.0, 1.0, 3.0}, f2[2];
  cr_assert_eq(dspline_fit(0, 1, s2, y2, 3, 1.0, f2), 0);
  cr_assert_float_eq(f2[0], 4.0, 1e-12);
  cr_assert_float_eq(f2[1], 2.0, 1e-12);
}

/* A performance-like curve over the paper's range: GFLOPS rising to a
 * plateau, with a gentle ripple. */
static double truth(int n) { return 180.0 * (1.0 - exp(-n / 1800.0)) + 6.0 * sin(n / 900.0); }

/* (b) With noise, the auto-alpha fit is closer to the truth than the samples
 * are, at the samples and over the whole grid. */
Test(dspline, smooths_noise_on_a_smooth_curve)
{
  uint64_t seed = test_fresh_seed();
  int lo = 100, hi = 10000, N = hi - lo + 1, k = 48;
  int s[48];
  double y[48], *f = malloc(N * sizeof *f), sd = 4.0;
  for (int trial = 0; trial < 5; trial++) {
    uint64_t x = seed + trial;
    double noise2 = 0.0, fit2 = 0.0, grid2 = 0.0, alpha;
    for (int i = 0; i < k; i++) {
      s[i] = lo + (int)((double)i * (N - 1) / (k - 1));
      y[i] = truth(s[i]) + sd * test_rng_normal(&x);
    }
    cr_assert_eq(dspline_fit_auto(lo, hi, s, y, k, &alpha, f), 0);
    for (int i = 0; i < k; i++) {
      noise2 += (y[i] - truth(s[i])) * (y[i] - truth(s[i]));
      fit2 += (f[s[i] - lo] - truth(s[i])) * (f[s[i] - lo] - truth(s[i]));
    }
    for (int j = 0; j < N; j++) grid2 += (f[j] - truth(lo + j)) * (f[j] - truth(lo + j));
    double noise_rms = sqrt(noise2 / k), fit_rms = sqrt(fit2 / k), grid_rms = sqrt(grid2 / N);
    cr_assert_lt(fit_rms, 0.85 * noise_rms, "seed %llu: fit rms %g, noise rms %g (alpha %g)",
                 (unsigned long long)(seed + trial), fit_rms, noise_rms, alpha);
    cr_assert_lt(grid_rms, 0.85 * noise_rms, "seed %llu: grid rms %g, noise rms %g (alpha %g)",
                 (unsigned long long)(seed + trial), grid_rms, noise_rms, alpha);
    dspline_info info;
    cr_assert_eq(dspline_fit_info(lo, hi, s, y, k, alpha, NULL, &info), 0);
    cr_assert(info.edf > 2.0 && info.edf < k, "edf %g", info.edf);
    cr_assert(info.sigma > 0.4 * sd && info.sigma < 2.0 * sd, "seed %llu: sigma %g for sd %g",
              (unsigned long long)(seed + trial), info.sigma, sd);
  }
  free(f);
}

/* (b) Exact samples of a smooth curve, far apart (14 per period): between
 * them a lightly smoothed fit is within 1.5% of the curve's amplitude (the
 * spline's natural end conditions cost most, near the ends), and the auto
 * fit, which never interpolates (edf < k / 1.4), within 5%. */
Test(dspline, interpolates_sparse_samples)
{
  int lo = 1, hi = 2000, N = hi - lo + 1, k = 12;
  int s[12];
  double y[12], *f = malloc(N * sizeof *f), alpha;
  for (int i = 0; i < k; i++) {
    s[i] = lo + (int)((double)i * (N - 1) / (k - 1));
    y[i] = 50.0 + 10.0 * sin(s[i] / 400.0);
  }
  cr_assert_eq(dspline_fit(lo, hi, s, y, k, 1.0, f), 0);
  for (int j = 0; j < N; j++) {
    double t = 50.0 + 10.0 * sin((lo + j) / 400.0);
    cr_assert_lt(fabs(f[j] - t), 0.15, "n %d: fit %g truth %g (alpha 1)", lo + j, f[j], t);
  }
  cr_assert_eq(dspline_fit_auto(lo, hi, s, y, k, &alpha, f), 0);
  for (int j = 0; j < N; j++) {
    double t = 50.0 + 10.0 * sin((lo + j) / 400.0);
    cr_assert_lt(fabs(f[j] - t), 0.5, "n %d: fit %g truth %g (alpha %g)", lo + j, f[j], t, alpha);
  }
  free(f);
}

/* Local extrema of a sampled curve: a count of its wiggles. */
static int extrema(const double *f, int n)
{
  int c = 0;
  for (int j = 1; j + 1 < n; j++)
    if ((f[j] - f[j - 1]) * (f[j + 1] - f[j]) < 0.0) c++;
  return c;
}

/* (c) One wild sample (60 sd) among good ones, away from the ends: with the
 * auto alpha the curve gains no wiggles, stays within a fraction of the
 * outlier's size of the truth near it, and closer still away from it. (The
 * deviation away from it is mostly the extra smoothing GCV then picks, seen
 * at the steep start of the curve.) */
Test(dspline, single_outlier_does_not_make_wiggles)
{
  uint64_t seed = test_fresh_seed(), x = seed;
  int lo = 100, hi = 10000, N = hi - lo + 1, k = 48;
  int s[48];
  double y[48], *f = malloc(N * sizeof *f), *g = malloc(N * sizeof *g);
  double sd = 1.0, jump = 60.0 * sd, alpha;
  int bad = test_rng_int(&x, 10, 37);
  double spacing = (double)(N - 1) / (k - 1);
  for (int i = 0; i < k; i++) {
    s[i] = lo + (int)(i * spacing);
    y[i] = truth(s[i]) + sd * test_rng_normal(&x);
  }
  y[bad] += jump;
  cr_assert_eq(dspline_fit_auto(lo, hi, s, y, k, &alpha, f), 0);
  double far_dev = 0.0, near_dev = 0.0;
  for (int j = 0; j < N; j++) {
    g[j] = truth(lo + j);
    double d = fabs(f[j] - g[j]);
    if (fabs((double)(lo + j - s[bad])) > 3.0 * spacing) far_dev = fmax(far_dev, d);
    else near_dev = fmax(near_dev, d);
  }
  cr_assert_leq(extrema(f, N), extrema(g, N) + 2, "seed %llu outlier at %d: %d extrema, truth %d",
                (unsigned long long)seed, s[bad], extrema(f, N), extrema(g, N));
  cr_assert_lt(near_dev, 0.5 * jump, "seed %llu outlier at %d: deviation %g near it (alpha %g)",
               (unsigned long long)seed, s[bad], near_dev, alpha);
  cr_assert_lt(far_dev, 0.3 * jump, "seed %llu outlier at %d: deviation %g away from it (alpha %g)",
               (unsigned long long)seed, s[bad], far_dev, alpha);
  free(f);
  free(g);
}

/* (d) Bad input is refused with SYMV_INVALID_VALUE. */
Test(dspline, refuses_bad_input)
{
  int s[] = {1, 5, 9}, same[] = {4, 4, 4}, out[] = {1, 5, 10};
  double y[] = {1.0, 2.0, 3.0}, ynan[] = {1.0, NAN, 3.0}, yinf[] = {1.0, INFINITY, 3.0};
  double f[9], alpha;
  dspline_info info;
  cr_assert_eq(dspline_fit(1, 9, s, y, 3, 1.0, f), 0);
  cr_assert_eq(dspline_fit(1, 9, NULL, y, 3, 1.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, s, NULL, 3, 1.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, s, y, 3, 1.0, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(9, 1, s, y, 3, 1.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, s, y, 1, 1.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, same, y, 3, 1.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, out, y, 3, 1.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(2, 9, s, y, 3, 1.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, s, ynan, 3, 1.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, s, yinf, 3, 1.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, s, y, 3, 0.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, s, y, 3, -1.0, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, s, y, 3, NAN, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, s, y, 3, INFINITY, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit(1, 9, s, y, 3, 1e200, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit_info(1, 9, s, y, 3, 1.0, f, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit_info(1, 9, same, y, 3, 1.0, f, &info), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit_auto(1, 9, s, y, 3, &alpha, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit_auto(1, 9, same, y, 3, &alpha, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit_auto(1, 9, s, ynan, 3, &alpha, f), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit_auto(1, 9, s, y, 3, NULL, f), 0);
}

/* Dense reference of dspline_fit_border: X = [E Z; alpha D 0; 0 sqrt(lambda)
 * I] ((k + N - 2 + K) x (N + K)), (f, beta) = argmin ||X (f, beta) - [y; 0;
 * 0]|| by LAPACK dgels; edf = sum_i ||R^-T w_i||^2, w_i = (e_{s_i}, z_i), R
 * from dgeqrf of X. */
static void dense_border(int lo, int hi, const int *s, const double *y, int k, const double *z, int K,
                         double lambda, double alpha, double *f, double *beta, double *edf)
{
  int N = hi - lo + 1, P = N + K, m = k + N - 2 + K;
  double *A = calloc((size_t)m * P, sizeof *A), *b = calloc((size_t)m, sizeof *b);
  double *X = malloc((size_t)m * P * sizeof *X), *tau = malloc((size_t)P * sizeof *tau);
  double *w = malloc((size_t)P * sizeof *w);
  for (int i = 0; i < k; i++) {
    A[i + (size_t)m * (s[i] - lo)] = 1.0;
    for (int j = 0; j < K; j++) A[i + (size_t)m * (N + j)] = z[(size_t)i * K + j];
    b[i] = y[i];
  }
  for (int r = 0; r + 2 < N; r++) {
    A[k + r + (size_t)m * r] = alpha;
    A[k + r + (size_t)m * (r + 1)] = -2.0 * alpha;
    A[k + r + (size_t)m * (r + 2)] = alpha;
  }
  for (int j = 0; j < K; j++) A[k + N - 2 + j + (size_t)m * (N + j)] = sqrt(lambda);
  memcpy(X, A, (size_t)m * P * sizeof *X);
  cr_assert_eq(LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, P, 1, A, m, b, m), 0);
  memcpy(f, b, (size_t)N * sizeof *f);
  memcpy(beta, b + N, (size_t)K * sizeof *beta);
  cr_assert_eq(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, P, X, m, tau), 0);
  *edf = 0.0;
  for (int i = 0; i < k; i++) {
    memset(w, 0, (size_t)P * sizeof *w);
    w[s[i] - lo] = 1.0;
    for (int j = 0; j < K; j++) w[N + j] = z[(size_t)i * K + j];
    cr_assert_eq(LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'U', 'T', 'N', P, 1, X, m, w, P), 0);
    for (int j = 0; j < P; j++) *edf += w[j] * w[j];
  }
  free(A), free(b), free(X), free(tau), free(w);
}

/* The bordered solve (block elimination: dpbsv with K + 1 right-hand sides,
 * the Schur complement by dpotrf) agrees with a dense least-squares solve
 * of the same problem, f and beta to a scaled residual of 1e-9 and edf
 * to 1e-8, on fresh random data: step covariates (0/1, as fit.c's), random
 * real ones, a covariate that is 0 at every sample (beta must be 0) and two
 * equal columns (the ridge splits them equally). */
Test(dspline, bordered_solve_matches_dense_least_squares)
{
  uint64_t seed = test_fresh_seed(), x = seed;
  const int grids[][2] = {{1, 40}, {100, 160}};
  const double alphas[] = {0.1, 3.0, 100.0}, lambdas[] = {1e-3, 1.0};
  for (size_t g = 0; g < sizeof grids / sizeof *grids; g++)
    for (int kind = 0; kind < 3; kind++) {
      int lo = grids[g][0], hi = grids[g][1], N = hi - lo + 1, K = kind == 0 ? 3 : kind == 1 ? 2 : 4;
      int k = test_rng_int(&x, 8, N);
      int *s = malloc(k * sizeof *s);
      double *y = malloc(k * sizeof *y), *z = malloc((size_t)k * K * sizeof *z);
      double *f = malloc(N * sizeof *f), *fr = malloc(N * sizeof *fr), beta[4], br[4];
      s[0] = lo, s[1] = hi;
      for (int i = 2; i < k; i++) s[i] = test_rng_int(&x, lo, hi);
      int cut[3] = {lo + N / 4, lo + N / 2, lo + 3 * N / 4};
      for (int i = 0; i < k; i++) {
        y[i] = 2.0 + 0.5 * (test_rng_unit(&x) - 0.5);
        for (int j = 0; j < K; j++) {
          double v = kind == 0 ? (s[i] >= cut[j]) : test_rng_unit(&x) - 0.5;
          if (kind == 2 && j == 2) v = 0.0;                         /* never seen */
          if (kind == 2 && j == 3) v = z[(size_t)i * K + 1];        /* a copy of column 1 */
          z[(size_t)i * K + j] = v;
        }
      }
      for (size_t a = 0; a < sizeof alphas / sizeof *alphas; a++)
        for (size_t l = 0; l < sizeof lambdas / sizeof *lambdas; l++) {
          dspline_info info;
          double used = 0, edf;
          cr_assert_eq(dspline_fit_border(lo, hi, s, y, k, z, K, lambdas[l], alphas[a], &used, f, beta, &info), 0);
          cr_assert_eq(used, alphas[a]);
          dense_border(lo, hi, s, y, k, z, K, lambdas[l], alphas[a], fr, br, &edf);
          double err = 0.0, scale = max_abs(fr, N);
          for (int j = 0; j < N; j++) err = fmax(err, fabs(f[j] - fr[j]));
          for (int j = 0; j < K; j++) err = fmax(err, fabs(beta[j] - br[j]));
          cr_assert_lt(err / scale, 1e-9, "seed %llu grid %d..%d kind %d alpha %g lambda %g: scaled error %g",
                       (unsigned long long)seed, lo, hi, kind, alphas[a], lambdas[l], err / scale);
          cr_assert_lt(fabs(info.edf - edf), 1e-8 * edf, "seed %llu kind %d alpha %g: edf %.15g vs %.15g",
                       (unsigned long long)seed, kind, alphas[a], info.edf, edf);
          if (kind == 2) {
            cr_assert_eq(beta[2], 0.0, "a covariate no sample has: beta %g", beta[2]);
            cr_assert_lt(fabs(beta[1] - beta[3]), 1e-9 * (1 + fabs(beta[1])), "equal columns: %g vs %g", beta[1],
                         beta[3]);
          }
        }
      free(s), free(y), free(z), free(f), free(fr);
    }
}

/* K = 0 is the plain d-spline, bit for bit; bad arguments are refused. */
Test(dspline, bordered_solve_without_columns_is_the_plain_fit)
{
  int s[] = {0, 3, 7, 12, 20, 20};
  double y[] = {1.0, 2.5, 2.0, 4.0, 3.0, 3.5}, f[21], g[21], a1 = 0, a2 = 0, beta[1];
  cr_assert_eq(dspline_fit_auto(0, 20, s, y, 6, &a1, f), 0);
  cr_assert_eq(dspline_fit_border(0, 20, s, y, 6, NULL, 0, 0.0, 0.0, &a2, g, NULL, NULL), 0);
  cr_assert_eq(a1, a2);
  cr_assert_eq(memcmp(f, g, sizeof f), 0);
  double z[6] = {0, 0, 1, 1, 1, 1};
  cr_assert_eq(dspline_fit_border(0, 20, s, y, 6, z, 1, 0.0, 1.0, NULL, g, beta, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit_border(0, 20, s, y, 6, z, 1, 1e-3, -1.0, NULL, g, beta, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit_border(0, 20, s, y, 6, NULL, 1, 1e-3, 1.0, NULL, g, beta, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(dspline_fit_border(0, 20, s, y, 6, z, DSPLINE_BORDER_MAX + 1, 1e-3, 1.0, NULL, g, beta, NULL),
               SYMV_INVALID_VALUE);
  z[3] = NAN;
  cr_assert_eq(dspline_fit_border(0, 20, s, y, 6, z, 1, 1e-3, 1.0, NULL, g, beta, NULL), SYMV_INVALID_VALUE);
}
