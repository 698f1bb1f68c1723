/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dspline.c - discrete smoothing spline (doc/method.md section 5), see dspline.h.
 *
 * The matrix A = E^T E + alpha^2 D^T D is kept in LAPACK's lower band storage
 * with kd = 2, column-major, ldab = 3: A(i, j), j <= i <= j + 2, lives in
 * ab[(i - j) + 3 j]. After dpbsv the same array holds L, A = L L^T. (The
 * lower form, not the upper, because OpenBLAS's dpbtrf factors it twice as
 * fast for kd = 2.)
 */
#include "config.h"
#include SYMV_LAPACKE_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dspline/dspline.h"
#include "symv_error.h"

#define DSPLINE_KD 2
#define DSPLINE_LDAB (DSPLINE_KD + 1)
#define DSPLINE_REFINE_STEPS 2
#define DSPLINE_GRID_PER_DECADE 8  /* wavelengths per factor 10 of w */
#define DSPLINE_GOLDEN_STEPS 16
/* Modified GCV: edf counted 1.4 times (Kim and Gu 2004; Cummins, Filloon
 * and Nychka 2001). Plain GCV (1.0) picks the near-interpolating limit for
 * some 2-3% of noisy data sets without repeated positions. */
#define DSPLINE_GCV_GAMMA 1.4

/* Element (i, j), j <= i <= j + kd, of a lower band matrix. */
#define BAND(ab, i, j) ((ab)[((i) - (j)) + DSPLINE_LDAB * (j)])

/* One problem: the samples reduced to the grid, plus workspace. */
typedef struct {
  int lo;          /* first grid point */
  int N;           /* grid points */
  int k;           /* samples */
  int npos;        /* distinct sample positions */
  const int *s;    /* [k] sample positions */
  const double *y; /* [k] sample values */
  double *cnt;     /* [N] samples per grid point: the diagonal E^T E */
  double *ety;     /* [N] E^T y: sum of the samples at each grid point */
  double *ab;      /* [3N] band of A, then its Cholesky factor L */
  double *f;       /* [N] solution */
  double *r;       /* [N] refinement residual and correction */
  double *z;       /* [3N] band of A^-1 (Takahashi recurrence) */
  double *mem;     /* the one allocation behind the arrays above */
  /* The border (dspline_fit_border; K = 0: none). Column-major throughout. */
  int K;           /* covariates */
  const double *zc; /* [k K] covariates, row-major: zc[i K + j] is covariate j of sample i */
  double lambda;   /* ridge weight on beta */
  double *B;       /* [N K] E^T Z */
  double *X;       /* [N (K+1)] A^-1 [B | E^T y] */
  double *C;       /* [K K] Z^T Z + lambda I */
  double *zty;     /* [K] Z^T y */
  double *S;       /* [K K] the Schur complement C - B^T A^-1 B, then its Cholesky factor */
  double *Sinv;    /* [K K] its inverse (dspline_diagnose) */
  double *beta;    /* [K] the covariates' coefficients */
  double *rb;      /* [K] refinement residual and correction of beta */
  double *bmem;    /* the one allocation behind the border's arrays */
} dspline_work;

/* Checks the arguments common to every entry point and, on success, builds
 * *w (release with dspline_work_free). */
static int dspline_work_init(dspline_work *w, int lo, int hi, const int *s,
                             const double *y, int k)
{
  memset(w, 0, sizeof *w);
  if (!s || !y || hi < lo || k < 2) return SYMV_INVALID_VALUE;
  long long span = (long long)hi - lo + 1;
  if (span > (long long)(SIZE_MAX / (10 * sizeof(double))) || span > 0x7fffffffLL)
    return SYMV_INVALID_VALUE;
  for (int i = 0; i < k; i++)
    if (s[i] < lo || s[i] > hi || !isfinite(y[i])) return SYMV_INVALID_VALUE;

  w->lo = lo;
  w->N = (int)span;
  w->k = k;
  w->s = s;
  w->y = y;
  size_t N = (size_t)w->N;
  w->mem = calloc(10 * N, sizeof(double));
  if (!w->mem) return SYMV_NO_MEMORY;
  w->cnt = w->mem;
  w->ety = w->cnt + N;
  w->f = w->ety + N;
  w->r = w->f + N;
  w->ab = w->r + N;
  w->z = w->ab + 3 * N;

  for (int i = 0; i < k; i++) {
    int j = s[i] - lo;
    if (w->cnt[j] == 0.0) w->npos++;
    w->cnt[j] += 1.0;
    w->ety[j] += y[i];
  }
  if (w->npos < 2) {
    free(w->mem);
    w->mem = NULL;
    return SYMV_INVALID_VALUE;
  }
  return 0;
}

static void dspline_work_free(dspline_work *w)
{
  free(w->mem);
  free(w->bmem);
  w->mem = w->bmem = NULL;
}

/* Adds the border of dspline_fit_border to *w (after dspline_work_init):
 * checks zc and lambda, allocates and fills B, C and Z^T y. */
static int dspline_work_border(dspline_work *w, const double *zc, int K, double lambda)
{
  if (K < 0 || K > DSPLINE_BORDER_MAX || (K > 0 && (!zc || !(isfinite(lambda) && lambda > 0.0))))
    return SYMV_INVALID_VALUE;
  w->K = K;
  if (K == 0) return 0;
  for (long long q = 0; q < (long long)w->k * K; q++)
    if (!isfinite(zc[q])) return SYMV_INVALID_VALUE;
  size_t N = (size_t)w->N, k2 = (size_t)K * K;
  if (N > SIZE_MAX / sizeof(double) / (2 * (size_t)K + 4 * DSPLINE_BORDER_MAX + 4)) return SYMV_INVALID_VALUE;
  w->bmem = calloc(N * K + N * (K + 1) + 3 * k2 + 2 * (size_t)K + (size_t)K, sizeof(double));
  if (!w->bmem) return SYMV_NO_MEMORY;
  w->zc = zc;
  w->lambda = lambda;
  w->B = w->bmem;
  w->X = w->B + N * K;
  w->C = w->X + N * (K + 1);
  w->S = w->C + k2;
  w->Sinv = w->S + k2;
  w->zty = w->Sinv + k2;
  w->beta = w->zty + K;
  w->rb = w->beta + K;
  for (int i = 0; i < w->k; i++) {
    const double *zi = zc + (size_t)i * K;
    int p = w->s[i] - w->lo;
    for (int a = 0; a < K; a++) {
      w->B[p + N * a] += zi[a];
      w->zty[a] += zi[a] * w->y[i];
      for (int b = 0; b < K; b++) w->C[a + (size_t)K * b] += zi[a] * zi[b];
    }
  }
  for (int a = 0; a < K; a++) w->C[a + (size_t)K * a] += lambda;
  return 0;
}

/* Stores A = diag(cnt) + a2 D^T D in w->ab, summing D's rows one by one. */
static void dspline_assemble(dspline_work *w, double a2)
{
  static const double d[3] = {1.0, -2.0, 1.0};
  int N = w->N;
  memset(w->ab, 0, (size_t)DSPLINE_LDAB * N * sizeof(double));
  for (int j = 0; j < N; j++) BAND(w->ab, j, j) = w->cnt[j];
  for (int row = 0; row + 2 < N; row++)
    for (int a = 0; a < 3; a++)
      for (int b = a; b < 3; b++) BAND(w->ab, row + b, row + a) += a2 * d[a] * d[b];
}

/* w->r = E^T y - A f, with D^T D f formed as D^T (D f): this keeps the
 * residual accurate where the assembled matrix has lost digits. */
static void dspline_residual(dspline_work *w, double a2)
{
  int N = w->N;
  const double *f = w->f;
  for (int j = 0; j < N; j++) w->r[j] = w->ety[j] - w->cnt[j] * f[j];
  for (int row = 0; row + 2 < N; row++) {
    double df = a2 * (f[row] - 2.0 * f[row + 1] + f[row + 2]);
    w->r[row] -= df;
    w->r[row + 1] += 2.0 * df;
    w->r[row + 2] -= df;
  }
  /* the border's rows and columns: r -= B beta; rb = Z^T y - B^T f - C beta */
  for (int a = 0; a < w->K; a++) {
    const double *Ba = w->B + (size_t)N * a;
    double btf = 0.0, cb = 0.0;
    for (int j = 0; j < N; j++) {
      w->r[j] -= Ba[j] * w->beta[a];
      btf += Ba[j] * f[j];
    }
    for (int b = 0; b < w->K; b++) cb += w->C[a + (size_t)w->K * b] * w->beta[b];
    w->rb[a] = w->zty[a] - btf - cb;
  }
}

static int dspline_lapack_status(lapack_int info)
{
  if (info == 0) return 0;
  if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
    return SYMV_NO_MEMORY;
  return SYMV_NUMERIC;
}

/* Solves (E^T E + alpha^2 D^T D) f = E^T y into w->f; leaves L in w->ab.
 * LAPACK dpbsv, then DSPLINE_REFINE_STEPS steps of iterative refinement.
 * With a border (w->K > 0) the system is
 *     [A    B      ] [f   ]   [E^T y]
 *     [B^T  C      ] [beta] = [Z^T y],   B = E^T Z, C = Z^T Z + lambda I,
 * solved by block elimination: dpbsv of A with the K + 1 right-hand sides
 * [B | E^T y] (X), the Schur complement S = C - B^T X[:, 0..K) factored by
 * dpotrf and solved by dpotrs for beta, then f = X[:, K] - X[:, 0..K) beta;
 * refinement corrects (f, beta) together through the same factors. */
static int dspline_solve(dspline_work *w, double alpha)
{
  double a2 = alpha * alpha;
  if (!isfinite(a2)) return SYMV_INVALID_VALUE;
  dspline_assemble(w, a2);
  const int N = w->N, K = w->K;
  const size_t n = (size_t)N;
  lapack_int info;
  if (K == 0) {
    memcpy(w->f, w->ety, n * sizeof(double));
    info = LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'L', N, DSPLINE_KD, 1, w->ab, DSPLINE_LDAB, w->f, N);
    if (info != 0) return dspline_lapack_status(info);
  } else {
    memcpy(w->X, w->B, n * K * sizeof(double));
    memcpy(w->X + n * K, w->ety, n * sizeof(double));
    info = LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'L', N, DSPLINE_KD, K + 1, w->ab, DSPLINE_LDAB, w->X, N);
    if (info != 0) return dspline_lapack_status(info);
    const double *x = w->X + n * K;
    for (int a = 0; a < K; a++) {
      const double *Ba = w->B + n * a;
      double bx = 0.0;
      for (int j = 0; j < N; j++) bx += Ba[j] * x[j];
      w->beta[a] = w->zty[a] - bx;
      for (int b = 0; b <= a; b++) { /* the lower triangle is all dpotrf reads */
        const double *Xb = w->X + n * b;
        double bxb = 0.0;
        for (int j = 0; j < N; j++) bxb += Ba[j] * Xb[j];
        w->S[a + (size_t)K * b] = w->C[a + (size_t)K * b] - bxb;
      }
    }
    info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', K, w->S, K);
    if (info == 0) info = LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', K, 1, w->S, K, w->beta, K);
    if (info != 0) return dspline_lapack_status(info);
    for (int j = 0; j < N; j++) {
      double v = x[j];
      for (int a = 0; a < K; a++) v -= w->X[j + n * a] * w->beta[a];
      w->f[j] = v;
    }
  }
  for (int step = 0; step < DSPLINE_REFINE_STEPS; step++) {
    dspline_residual(w, a2);
    info = LAPACKE_dpbtrs(LAPACK_COL_MAJOR, 'L', N, DSPLINE_KD, 1, w->ab, DSPLINE_LDAB, w->r, N);
    if (info != 0) return dspline_lapack_status(info);
    if (K > 0) { /* d beta = S^-1 (rb - B^T u), u = A^-1 r; d f = u - X d beta */
      for (int a = 0; a < K; a++) {
        const double *Ba = w->B + n * a;
        double bu = 0.0;
        for (int j = 0; j < N; j++) bu += Ba[j] * w->r[j];
        w->rb[a] -= bu;
      }
      info = LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', K, 1, w->S, K, w->rb, K);
      if (info != 0) return dspline_lapack_status(info);
      for (int a = 0; a < K; a++) {
        w->beta[a] += w->rb[a];
        for (int j = 0; j < N; j++) w->r[j] -= w->X[j + n * a] * w->rb[a];
      }
    }
    for (int j = 0; j < N; j++) w->f[j] += w->r[j];
  }
  for (int j = 0; j < N; j++)
    if (!isfinite(w->f[j])) return SYMV_NUMERIC;
  for (int a = 0; a < K; a++)
    if (!isfinite(w->beta[a])) return SYMV_NUMERIC;
  return 0;
}

/* Band of Z = A^-1 from A = L L^T (w->ab after dspline_solve), into w->z in
 * the same lower layout. From L^T Z = L^-1, whose upper part is
 * diag(1 / l_ii):
 *   Z(i, j) = (delta_ij / l_ii - sum_{m = i+1}^{i+kd} l_mi Z(m, j)) / l_ii,
 * for j = i+kd down to i, i = N-1 down to 0; every Z(m, j) needed lies in the
 * band and is already known. (Takahashi, Fagan and Chin 1973; Hutchinson and
 * de Hoog 1985 use it for the same purpose on smoothing splines.) */
static void dspline_inverse_band(dspline_work *w)
{
  int N = w->N;
  for (int i = N - 1; i >= 0; i--) {
    double lii = BAND(w->ab, i, i);
    int last = i + DSPLINE_KD < N ? i + DSPLINE_KD : N - 1;
    for (int j = last; j >= i; j--) {
      double acc = (i == j) ? 1.0 / lii : 0.0;
      for (int m = i + 1; m <= last; m++) {
        double zmj = m >= j ? BAND(w->z, m, j) : BAND(w->z, j, m);
        acc -= BAND(w->ab, m, i) * zmj;
      }
      BAND(w->z, j, i) = acc / lii;
    }
  }
}

/* Fills *info for the fit in w->f at alpha (call after dspline_solve).
 * With a border, the hat matrix's diagonal element of sample i (at grid
 * point p, covariates z_i) is, by the block inverse of the bordered matrix,
 * (A^-1)_pp + (x_p - z_i)^T S^-1 (x_p - z_i), x_p the row p of
 * X[:, 0..K) = A^-1 B; S^-1 from S's factor by dpotri. */
static int dspline_diagnose(dspline_work *w, double alpha, dspline_info *info)
{
  double rss = 0.0, edf = 0.0;
  const int K = w->K;
  const size_t n = (size_t)w->N;
  for (int i = 0; i < w->k; i++) {
    double e = w->y[i] - w->f[w->s[i] - w->lo];
    for (int a = 0; a < K; a++) e -= w->zc[(size_t)i * K + a] * w->beta[a];
    rss += e * e;
  }
  dspline_inverse_band(w);
  for (int j = 0; j < w->N; j++)
    if (w->cnt[j] > 0.0) edf += w->cnt[j] * BAND(w->z, j, j);
  if (K > 0) {
    memcpy(w->Sinv, w->S, (size_t)K * K * sizeof(double));
    lapack_int li = LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', K, w->Sinv, K);
    if (li != 0) return dspline_lapack_status(li);
    for (int a = 0; a < K; a++)
      for (int b = a + 1; b < K; b++) w->Sinv[a + (size_t)K * b] = w->Sinv[b + (size_t)K * a];
    double d[DSPLINE_BORDER_MAX];
    for (int i = 0; i < w->k; i++) {
      size_t p = (size_t)(w->s[i] - w->lo);
      for (int a = 0; a < K; a++) d[a] = w->X[p + n * a] - w->zc[(size_t)i * K + a];
      for (int a = 0; a < K; a++)
        for (int b = 0; b < K; b++) edf += d[a] * w->Sinv[a + (size_t)K * b] * d[b];
    }
  }

  double dof = w->k - edf, gdof = w->k - DSPLINE_GCV_GAMMA * edf;
  info->alpha = alpha;
  info->rss = rss;
  info->edf = edf;
  info->gcv = gdof > 1e-6 * w->k ? w->k * rss / (gdof * gdof) : INFINITY;
  info->sigma = dof > 1e-6 * w->k ? sqrt(rss / dof) : NAN;
  return 0;
}

static int dspline_check_alpha(double alpha)
{
  return (isfinite(alpha) && alpha > 0.0) ? 0 : SYMV_INVALID_VALUE;
}

int dspline_fit(int lo, int hi, const int *s, const double *y, int k,
                double alpha, double *f_out)
{
  if (!f_out || dspline_check_alpha(alpha)) return SYMV_INVALID_VALUE;
  dspline_work w;
  int rc = dspline_work_init(&w, lo, hi, s, y, k);
  if (rc) return rc;
  rc = dspline_solve(&w, alpha);
  if (!rc) memcpy(f_out, w.f, (size_t)w.N * sizeof(double));
  dspline_work_free(&w);
  return rc;
}

int dspline_fit_info(int lo, int hi, const int *s, const double *y, int k,
                     double alpha, double *f_out, dspline_info *info)
{
  if (!info || dspline_check_alpha(alpha)) return SYMV_INVALID_VALUE;
  dspline_work w;
  int rc = dspline_work_init(&w, lo, hi, s, y, k);
  if (rc) return rc;
  rc = dspline_solve(&w, alpha);
  if (!rc) rc = dspline_diagnose(&w, alpha, info);
  if (!rc && f_out) memcpy(f_out, w.f, (size_t)w.N * sizeof(double));
  dspline_work_free(&w);
  return rc;
}

/* alpha at which the d-spline damps a sine of wavelength `wave` grid points
 * as much as the data hold it: alpha^2 ||D sin||^2 = ||E sin||^2 with samples
 * of density k / N and ||D sin||^2 ~ N/2 (2 pi / wave)^4. */
static double dspline_alpha_of_wave(const dspline_work *w, double wave)
{
  double q = wave / (2.0 * M_PI);
  return sqrt((double)w->k / w->N) * q * q;
}

/* GCV score at log(alpha) = la; +inf where the solve fails. */
static double dspline_gcv_at(dspline_work *w, double la)
{
  dspline_info info;
  if (dspline_solve(w, exp(la)) || dspline_diagnose(w, exp(la), &info)) return INFINITY;
  return info.gcv;
}

/* The alpha of dspline_fit_auto (see dspline.h): modified GCV over a log
 * grid of smoothing wavelengths, refined by golden-section search. */
static double dspline_choose_alpha(dspline_work *w)
{
  if (w->npos <= 2) return 1.0; /* every alpha gives the same line */
  int smin = w->s[0], smax = w->s[0];
  for (int i = 1; i < w->k; i++) {
    if (w->s[i] < smin) smin = w->s[i];
    if (w->s[i] > smax) smax = w->s[i];
  }
  double spacing = (double)(smax - smin) / (w->npos - 1);
  double wave_lo = fmax(2.0, 0.5 * spacing), wave_hi = 2.0 * (w->N - 1);
  double step = log(10.0) / DSPLINE_GRID_PER_DECADE;
  int ngrid = 1 + (int)ceil(log(wave_hi / wave_lo) / step);
  /* alpha grows as wave^2: the grid in log alpha has step 2 * step. */
  double la0 = log(dspline_alpha_of_wave(w, wave_lo)), dla = 2.0 * step;

  int ibest = -1;
  double gbest = INFINITY;
  for (int i = 0; i < ngrid; i++) {
    double g = dspline_gcv_at(w, la0 + i * dla);
    if (g < gbest) {
      gbest = g;
      ibest = i;
    }
  }
  /* Too few samples for k - 1.4 edf > 0 anywhere: the smoothest. */
  if (ibest < 0) return exp(la0 + (ngrid - 1) * dla);

  /* Golden-section search for the minimum in [ibest - 1, ibest + 1]. */
  double a = la0 + (ibest > 0 ? ibest - 1 : 0) * dla;
  double b = la0 + (ibest < ngrid - 1 ? ibest + 1 : ngrid - 1) * dla;
  const double ratio = 0.5 * (sqrt(5.0) - 1.0);
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double gc = dspline_gcv_at(w, c), gd = dspline_gcv_at(w, d);
  for (int it = 0; it < DSPLINE_GOLDEN_STEPS; it++) {
    if (gc <= gd) {
      b = d;
      d = c;
      gd = gc;
      c = b - ratio * (b - a);
      gc = dspline_gcv_at(w, c);
    } else {
      a = c;
      c = d;
      gc = gd;
      d = a + ratio * (b - a);
      gd = dspline_gcv_at(w, d);
    }
  }
  if (fmin(gc, gd) > gbest) return exp(la0 + ibest * dla);
  return exp(gc <= gd ? c : d);
}

int dspline_fit_auto(int lo, int hi, const int *s, const double *y, int k,
                     double *alpha_out, double *f_out)
{
  if (!f_out) return SYMV_INVALID_VALUE;
  dspline_work w;
  int rc = dspline_work_init(&w, lo, hi, s, y, k);
  if (rc) return rc;
  double alpha = dspline_choose_alpha(&w);
  rc = dspline_solve(&w, alpha);
  if (!rc) {
    memcpy(f_out, w.f, (size_t)w.N * sizeof(double));
    if (alpha_out) *alpha_out = alpha;
  }
  dspline_work_free(&w);
  return rc;
}

int dspline_fit_border(int lo, int hi, const int *s, const double *y, int k, const double *z, int K,
                       double lambda, double alpha, double *alpha_out, double *f_out, double *beta_out,
                       dspline_info *info)
{
  if (!f_out || (K > 0 && !beta_out) || !(isfinite(alpha) && alpha >= 0.0)) return SYMV_INVALID_VALUE;
  dspline_work w;
  int rc = dspline_work_init(&w, lo, hi, s, y, k);
  if (rc) return rc;
  rc = dspline_work_border(&w, z, K, lambda);
  if (!rc) {
    if (alpha == 0.0) alpha = dspline_choose_alpha(&w);
    rc = dspline_solve(&w, alpha);
  }
  if (!rc && info) rc = dspline_diagnose(&w, alpha, info);
  if (!rc) {
    memcpy(f_out, w.f, (size_t)w.N * sizeof(double));
    if (K > 0) memcpy(beta_out, w.beta, (size_t)K * sizeof(double));
    if (alpha_out) *alpha_out = alpha;
  }
  dspline_work_free(&w);
  return rc;
}
