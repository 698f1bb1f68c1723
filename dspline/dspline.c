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
#include <lapacke.h>
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
  w->mem = NULL;
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
}

static int dspline_lapack_status(lapack_int info)
{
  if (info == 0) return 0;
  if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
    return SYMV_NO_MEMORY;
  return SYMV_NUMERIC;
}

/* Solves (E^T E + alpha^2 D^T D) f = E^T y into w->f; leaves L in w->ab.
 * LAPACK dpbsv, then DSPLINE_REFINE_STEPS steps of iterative refinement. */
static int dspline_solve(dspline_work *w, double alpha)
{
  double a2 = alpha * alpha;
  if (!isfinite(a2)) return SYMV_INVALID_VALUE;
  dspline_assemble(w, a2);
  memcpy(w->f, w->ety, (size_t)w->N * sizeof(double));
  lapack_int info = LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'L', w->N, DSPLINE_KD, 1,
                                  w->ab, DSPLINE_LDAB, w->f, w->N);
  if (info != 0) return dspline_lapack_status(info);
  for (int step = 0; step < DSPLINE_REFINE_STEPS; step++) {
    dspline_residual(w, a2);
    info = LAPACKE_dpbtrs(LAPACK_COL_MAJOR, 'L', w->N, DSPLINE_KD, 1, w->ab,
                          DSPLINE_LDAB, w->r, w->N);
    if (info != 0) return dspline_lapack_status(info);
    for (int j = 0; j < w->N; j++) w->f[j] += w->r[j];
  }
  for (int j = 0; j < w->N; j++)
    if (!isfinite(w->f[j])) return SYMV_NUMERIC;
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

/* Fills *info for the fit in w->f at alpha (call after dspline_solve). */
static void dspline_diagnose(dspline_work *w, double alpha, dspline_info *info)
{
  double rss = 0.0, edf = 0.0;
  for (int i = 0; i < w->k; i++) {
    double e = w->y[i] - w->f[w->s[i] - w->lo];
    rss += e * e;
  }
  dspline_inverse_band(w);
  for (int j = 0; j < w->N; j++)
    if (w->cnt[j] > 0.0) edf += w->cnt[j] * BAND(w->z, j, j);

  double dof = w->k - edf, gdof = w->k - DSPLINE_GCV_GAMMA * edf;
  info->alpha = alpha;
  info->rss = rss;
  info->edf = edf;
  info->gcv = gdof > 1e-6 * w->k ? w->k * rss / (gdof * gdof) : INFINITY;
  info->sigma = dof > 1e-6 * w->k ? sqrt(rss / dof) : NAN;
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
  if (!rc) {
    dspline_diagnose(&w, alpha, info);
    if (f_out) memcpy(f_out, w.f, (size_t)w.N * sizeof(double));
  }
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
  if (dspline_solve(w, exp(la))) return INFINITY;
  dspline_diagnose(w, exp(la), &info);
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
