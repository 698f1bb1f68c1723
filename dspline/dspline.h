/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dspline.h - the discrete smoothing spline (d-spline) of doc/method.md section 5.
 *
 * On the integer grid n = lo..hi (N = hi - lo + 1 points) the d-spline is the
 * vector f = (f(lo), ..., f(hi)) that minimises
 *
 *     || y - E f ||^2 + alpha^2 || D f ||^2
 *
 * where the k samples (s_i, y_i) sit at grid positions s_i (E[i, s_i - lo] = 1)
 * and D is the (N-2) x N second-difference operator, rows (1, -2, 1). The
 * normal equations (E^T E + alpha^2 D^T D) f = E^T y are symmetric positive
 * definite and pentadiagonal once two distinct positions are sampled; they are
 * solved by a banded Cholesky factorisation (LAPACK dpbsv, kd = 2), O(N), then
 * improved by iterative refinement (dpbtrs), because the matrix grows
 * ill-conditioned (about 16 alpha^2 N / k) for strong smoothing.
 * Reference: Tanaka et al.'s d-spline as restated in doc/method.md section 5.
 *
 * Several samples at one position are allowed: least squares averages them.
 * The module fits whatever values the caller gives (GFLOPS, microseconds):
 * it does not know or change units, and it does not clip the result.
 *
 * All functions return 0 on success or a negative symv_status code
 * (core/symv_error.h); outputs are left undefined on error.
 */
#ifndef DSPLINE_H
#define DSPLINE_H

/* Diagnostics of one fit at a given alpha. */
typedef struct {
  double alpha;  /* smoothing weight of the fit (> 0) */
  double rss;    /* residual sum of squares sum_i (y_i - f(s_i))^2, y's units squared */
  double edf;    /* effective degrees of freedom: trace of the hat matrix
                    H = E (E^T E + alpha^2 D^T D)^-1 E^T; between 2 and the
                    number of distinct sample positions */
  double gcv;    /* modified generalized cross-validation score
                    k * rss / (k - 1.4 edf)^2, the one dspline_fit_auto
                    minimises; +inf when k - 1.4 edf <= 1e-6 k */
  double sigma;  /* residual standard deviation sqrt(rss / (k - edf)), y's units;
                    NaN when k - edf <= 1e-6 k */
} dspline_info;

/*
 * dspline_fit: the d-spline with a fixed smoothing weight.
 *   lo, hi  the grid, lo <= hi, every integer n in between (N = hi - lo + 1)
 *   s[k]    sample positions, lo <= s[i] <= hi, any order, repeats allowed
 *   y[k]    sample values (finite), in the caller's units
 *   k       number of samples; at least two distinct positions are required
 *   alpha   smoothing weight, finite and > 0 (dimensionless: both terms of the
 *           objective are in y's units squared)
 *   f_out[N] the fitted value at n = lo + j in f_out[j]
 * Errors: SYMV_INVALID_VALUE (NULL pointer, hi < lo, k < 2, fewer than two
 * distinct positions, a position outside lo..hi, non-finite y, alpha not
 * finite or <= 0), SYMV_NO_MEMORY, SYMV_NUMERIC (LAPACKE_dpbsv info != 0).
 * Method: doc/method.md section 5; LAPACK dpbsv ('L', kd = 2) plus two steps of
 * iterative refinement with dpbtrs.
 */
int dspline_fit(int lo, int hi, const int *s, const double *y, int k,
                double alpha, double *f_out);

/*
 * dspline_fit_info: as dspline_fit, and also the diagnostics of the fit
 * (residual sum of squares, effective degrees of freedom, GCV score, residual
 * standard deviation) in *info. f_out may be NULL when only *info is wanted.
 * The trace of the hat matrix is exact: the diagonal of the inverse of the
 * banded matrix is computed from its Cholesky factor by the Takahashi
 * (selected inversion) recurrence, O(N).
 * Errors: as dspline_fit; SYMV_INVALID_VALUE also for info == NULL.
 */
int dspline_fit_info(int lo, int hi, const int *s, const double *y, int k,
                     double alpha, double *f_out, dspline_info *info);

/*
 * dspline_fit_auto: the d-spline with alpha chosen automatically by
 * generalized cross-validation (Craven and Wahba 1979) in its modified form
 * (Kim and Gu 2004; Cummins, Filloon and Nychka 2001):
 *
 *     alpha = argmin GCV(alpha) = k * rss(alpha) / (k - 1.4 edf(alpha))^2
 *
 * Counting each degree of freedom 1.4 times keeps GCV from its known failure
 * on data without repeated positions: plain GCV (factor 1) has a finite limit
 * at interpolation and picks it for a few percent of noisy data sets (5 of
 * 200 in our trials on the paper's 48-sample design); the fit then follows
 * the noise. The price is slightly smoother fits, and edf < k / 1.4.
 *
 * The score is searched over alpha = sqrt(k / N) * (w / (2 pi))^2, where w is
 * the wavelength (in grid points) below which the spline damps wiggles: at
 * that alpha the penalty and data terms weigh a sine of wavelength w equally.
 * w runs over a log grid of ratio 10^(1/8) from max(2, h/2) (h: mean spacing
 * of the distinct sample positions; near interpolation) to 2 (N - 1) (nearly
 * a straight line); the best grid point is refined by golden-section search
 * in log alpha between its neighbours: some 40-50 banded solves, about 70 ms
 * on one core for the paper's grid (N = 9901). When k - 1.4 edf <= 0 at
 * every grid point (a handful of samples), the largest alpha of the grid is
 * taken. When only two distinct positions are sampled, every alpha gives the
 * same straight line; alpha = 1 is reported.
 *
 * A gross outlier is not rejected: it raises the residual variance, so GCV
 * smooths more; the curve bends toward it over a few sample spacings and
 * flattens sharp features elsewhere, but gains no wiggles (tests/
 * test_dspline.c). Measure robustly (e.g. the median of repeats) upstream.
 *   alpha_out  the chosen alpha (may be NULL)
 *   f_out[N]   the fit at that alpha
 * Errors: as dspline_fit (without the alpha checks).
 */
int dspline_fit_auto(int lo, int hi, const int *s, const double *y, int k,
                     double *alpha_out, double *f_out);

/* The most covariates dspline_fit_border takes. */
#define DSPLINE_BORDER_MAX 32

/*
 * dspline_fit_border: the partially linear d-spline: the grid values f and
 * the coefficients beta (K of them) of covariates Z that minimise
 *
 *     || y - E f - Z beta ||^2 + alpha^2 || D f ||^2 + lambda || beta ||^2
 *
 * i.e. y_i ~ f(s_i) + z_i^T beta with f smooth (fit/fit.h uses it for the
 * steps of the persistent kernels' times: z_ij = 1 where sample i lies past
 * step j). The ridge lambda > 0 keeps beta defined where the samples do not
 * tell it from f (a covariate constant over the samples, two equal
 * columns): there it tends to the least-norm split, 0 for a covariate that
 * is 0 at every sample. The normal equations are the d-spline's banded
 * matrix A bordered by K columns,
 *
 *     [A    E^T Z           ] [f   ]   [E^T y]
 *     [Z^T E  Z^T Z + lambda I] [beta] = [Z^T y],
 *
 * symmetric positive definite; solved by block elimination with LAPACK:
 * dpbsv of A with K + 1 right-hand sides, the K x K Schur complement by
 * dpotrf/dpotrs, then two steps of iterative refinement of (f, beta)
 * through the same factors (as dspline_fit's).
 *   lo, hi, s, y, k as dspline_fit
 *   z[k K]   covariates, row-major: z[i K + j] is covariate j of sample i,
 *            finite (unused when K = 0)
 *   K        covariates, 0..DSPLINE_BORDER_MAX; 0 is dspline_fit (or, with
 *            alpha = 0, dspline_fit_auto)
 *   lambda   ridge weight on beta, finite and > 0 when K > 0, in y's units
 *            squared per unit of beta squared (dimensionless for ln t)
 *   alpha    smoothing weight > 0, or 0: chosen by the modified GCV of
 *            dspline_fit_auto, the effective degrees of freedom counting
 *            beta's (the trace of the bordered hat matrix:
 *            (A^-1)_pp + (x_p - z_i)^T S^-1 (x_p - z_i) for sample i at p,
 *            x_p the row p of A^-1 E^T Z, S the Schur complement)
 *   alpha_out the alpha used (may be NULL)
 *   f_out[N] the fit at n = lo + j in f_out[j], the covariates' part not included
 *   beta_out[K] the coefficients (may be NULL when K = 0)
 *   info     the diagnostics of dspline_fit_info at that alpha, rss and edf
 *            of the whole model (may be NULL)
 * Errors: as dspline_fit; SYMV_INVALID_VALUE also for K out of range,
 * z NULL or not finite, lambda not finite or <= 0, alpha < 0; SYMV_NUMERIC
 * for a failed dpbsv, dpotrf or dpotri.
 */
int dspline_fit_border(int lo, int hi, const int *s, const double *y, int k, const double *z, int K,
                       double lambda, double alpha, double *alpha_out, double *f_out, double *beta_out,
                       dspline_info *info);

#endif
