/* reference.c - reference DSYMV and scaled residual (reference.h). */
#include <cblas.h>
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"
#include "reference.h"
#include "symv_error.h"

int symv_ref_dsymv(char uplo, int n, double alpha, const double *A, int lda, const double *x, int incx,
                   double beta, double *y, int incy)
{
  if (symv_check_args(uplo, n, lda, incx, incy)) return SYMV_INVALID_VALUE;
  if (n == 0) return 0;
  cblas_dsymv(CblasColMajor, toupper((unsigned char)uplo) == 'L' ? CblasLower : CblasUpper, n, alpha, A, lda,
              x, incx, beta, y, incy);
  return 0;
}

/* BLAS position of logical element k of a strided vector. */
static long pos(int n, int inc, int k) { return inc > 0 ? (long)k * inc : (long)(n - 1 - k) * -inc; }

double *symv_residual_scale(char uplo, int n, double alpha, const double *A, int lda, const double *x,
                            int incx, double beta, const double *y0, int incy)
{
  if (symv_check_args(uplo, n, lda, incx, incy) || n == 0) return NULL;
  double *ax = calloc((size_t)n, sizeof *ax); /* (|A||x|)_i, then the scale */
  if (!ax) return NULL;
  const int lower = toupper((unsigned char)uplo) == 'L';
  for (int j = 0; alpha != 0.0 && j < n; j++) { /* alpha = 0: A and x unread */
    const double *col = A + (size_t)j * lda;
    const double xj = fabs(x[pos(n, incx, j)]);
    int i0 = lower ? j : 0, i1 = lower ? n : j + 1;
    double s = 0;
    for (int i = i0; i < i1; i++) {
      double a = fabs(col[i]);
      ax[i] += a * xj;                               /* a(i,j) x(j) */
      if (i != j) s += a * fabs(x[pos(n, incx, i)]); /* mirrored a(j,i) x(i) */
    }
    ax[j] += s;
  }
  for (int i = 0; i < n; i++) {
    double yterm = beta != 0.0 ? fabs(beta) * fabs(y0[pos(n, incy, i)]) : 0.0; /* y0 unread if beta = 0 */
    double scale = n * DBL_EPSILON * (fabs(alpha) * ax[i] + yterm);
    ax[i] = scale > 0 ? scale : 1.0;
  }
  return ax;
}

double symv_residual_scaled(int n, int incy, const double *scale, const double *y, const double *yref)
{
  double worst = 0;
  for (int i = 0; i < n; i++) {
    long p = pos(n, incy, i);
    if (isnan(yref[p]) && isnan(y[p])) continue;
    double d = fabs(y[p] - yref[p]);
    if (isnan(d) || isinf(d)) return INFINITY;
    if (d / scale[i] > worst) worst = d / scale[i];
  }
  return worst;
}

double symv_residual(char uplo, int n, double alpha, const double *A, int lda, const double *x, int incx,
                     double beta, const double *y0, const double *y, const double *yref, int incy)
{
  if (symv_check_args(uplo, n, lda, incx, incy)) return -1;
  if (n == 0) return 0;
  double *scale = symv_residual_scale(uplo, n, alpha, A, lda, x, incx, beta, y0, incy);
  if (!scale) return -1;
  double r = symv_residual_scaled(n, incy, scale, y, yref);
  free(scale);
  return r;
}

long symv_untouched(const double *buf, long len, int n, int inc, double poison)
{
  long bad = 0, step = labs((long)inc), span = n > 0 ? (long)(n - 1) * step + 1 : 0;
  for (long i = 0; i < len; i++) {
    int on_vector = i < span && i % step == 0;
    if (!on_vector && memcmp(&buf[i], &poison, sizeof poison) != 0) bad++;
  }
  return bad;
}

void symv_fill_random(double *a, long len, unsigned long long *seed)
{
  unsigned long long s = *seed ? *seed : 0x9e3779b97f4a7c15ull;
  for (long i = 0; i < len; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    double u = (double)(s >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
    double v = 2.0 * u - 1.0;
    a[i] = v == 0.0 ? 0.5 : v;
  }
  *seed = s;
}
