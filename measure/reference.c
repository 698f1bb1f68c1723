/* SPDX-License-Identifier: BSD-3-Clause */
/* reference.c - reference SYMV/HEMV and scaled residual (reference.h). */
#include "config.h"
#include SYMV_CBLAS_H
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"
#include "reference.h"
#include "routine.h"
#include "symv_error.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Threads of the current OpenMP team (1 without OpenMP). */
static int symv_omp_threads(void)
{
#ifdef _OPENMP
  return omp_get_num_threads();
#else
  return 1;
#endif
}

/* LAPACK's complex symmetric products (SRC/csymv.f, SRC/zsymv.f), which
 * CBLAS does not have; the Fortran string length of UPLO comes last, as
 * gfortran passes it (lapack.h: LAPACK_FORTRAN_STRLEN_END). */
void csymv_(const char *uplo, const int *n, const void *alpha, const void *A, const int *lda, const void *x,
            const int *incx, const void *beta, void *y, const int *incy, size_t uplo_len);
void zsymv_(const char *uplo, const int *n, const void *alpha, const void *A, const int *lda, const void *x,
            const int *incx, const void *beta, void *y, const int *incy, size_t uplo_len);

int symv_ref(symv_routine r, char uplo, int n, const void *alpha, const void *A, int lda, const void *x, int incx,
             const void *beta, void *y, int incy)
{
  if (!symv_routine_get(r) || symv_check_args(uplo, n, lda, incx, incy)) return SYMV_INVALID_VALUE;
  if (n == 0) return 0;
  const char u = (char)toupper((unsigned char)uplo);
  const enum CBLAS_UPLO cu = u == 'L' ? CblasLower : CblasUpper;
  switch (r) { /* the one place that names each routine's CPU routine */
  case SYMV_SSYMV:
    cblas_ssymv(CblasColMajor, cu, n, *(const float *)alpha, A, lda, x, incx, *(const float *)beta, y, incy);
    break;
  case SYMV_DSYMV:
    cblas_dsymv(CblasColMajor, cu, n, *(const double *)alpha, A, lda, x, incx, *(const double *)beta, y, incy);
    break;
  case SYMV_CHEMV: cblas_chemv(CblasColMajor, cu, n, alpha, A, lda, x, incx, beta, y, incy); break;
  case SYMV_ZHEMV: cblas_zhemv(CblasColMajor, cu, n, alpha, A, lda, x, incx, beta, y, incy); break;
  case SYMV_CSYMV: csymv_(&u, &n, alpha, A, &lda, x, &incx, beta, y, &incy, 1); break;
  case SYMV_ZSYMV: zsymv_(&u, &n, alpha, A, &lda, x, &incx, beta, y, &incy, 1); break;
  default: return SYMV_INVALID_VALUE;
  }
  return 0;
}

/* Element k of buf (routine r) as (re, im); im = 0 for real routines. */
static void get(const symv_routine_info *ri, const void *buf, long k, double *re, double *im)
{
  const int parts = ri->is_complex ? 2 : 1;
  if (ri->real_bytes == 4) {
    const float *f = (const float *)buf + k * parts;
    *re = f[0], *im = ri->is_complex ? f[1] : 0.0;
  } else {
    const double *d = (const double *)buf + k * parts;
    *re = d[0], *im = ri->is_complex ? d[1] : 0.0;
  }
}

/* |z| as hypot(re, im): no overflow or underflow of the squares, which
 * the tests' magnitudes up to 1e300 (pipe_fx's fallback) would give with
 * sqrt(re^2 + im^2). */
static double cabs2(double re, double im) { return hypot(re, im); }

static double modulus(const symv_routine_info *ri, const void *buf, long k)
{
  double re, im;
  get(ri, buf, k, &re, &im);
  return ri->is_complex ? cabs2(re, im) : fabs(re);
}

/* BLAS position of logical element k of a strided vector. */
static long pos(int n, int inc, int k) { return inc > 0 ? (long)k * inc : (long)(n - 1 - k) * -inc; }

double *symv_residual_scale(symv_routine r, char uplo, int n, const void *alpha, const void *A, int lda,
                            const void *x, int incx, const void *beta, const void *y0, int incy)
{
  const symv_routine_info *ri = symv_routine_get(r);
  if (!ri || symv_check_args(uplo, n, lda, incx, incy) || n == 0) return NULL;
  double *ax = calloc((size_t)n, sizeof *ax); /* (|A||x|)_i, then the scale */
  if (!ax) return NULL;
  const int lower = toupper((unsigned char)uplo) == 'L';
  const double al = modulus(ri, alpha, 0), be = modulus(ri, beta, 0);
  int failed = 0;
  /* columns are shared out among threads, each summing into its own copy of
   * ax, added up in thread order at the end: O(n^2) work on the sweep's
   * largest sizes, O(n * threads) to combine */
#pragma omp parallel if (al != 0.0 && (double)n * n > 1e6) reduction(| : failed)
  {
    double *part = calloc((size_t)n, sizeof *part);
    if (!part) failed = 1;
#pragma omp for schedule(dynamic, 64)
    for (int j = 0; j < n; j++) { /* alpha = 0: A and x unread */
      if (!part || al == 0.0) continue;
      const double xj = modulus(ri, x, pos(n, incx, j));
      int i0 = lower ? j : 0, i1 = lower ? n : j + 1;
      double s = 0;
      for (int i = i0; i < i1; i++) {
        double re, im;
        get(ri, A, (long)j * lda + i, &re, &im);
        if (i == j && ri->hermitian) im = 0.0; /* not referenced */
        const double a = ri->is_complex ? cabs2(re, im) : fabs(re);
        part[i] += a * xj;                                         /* a(i,j) x(j) */
        if (i != j) s += a * modulus(ri, x, pos(n, incx, i)); /* mirrored a(j,i) x(i) */
      }
      part[j] += s;
    }
#pragma omp for ordered schedule(static, 1)
    for (int t = 0; t < symv_omp_threads(); t++) {
#pragma omp ordered
      if (part)
        for (int i = 0; i < n; i++) ax[i] += part[i];
    }
    free(part);
  }
  if (failed) {
    free(ax);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    double yterm = be != 0.0 ? be * modulus(ri, y0, pos(n, incy, i)) : 0.0; /* y0 unread if beta = 0 */
    double scale = n * ri->eps * (al * ax[i] + yterm);
    ax[i] = scale > 0 ? scale : 1.0;
  }
  return ax;
}

double symv_residual_scaled(symv_routine r, int n, int incy, const double *scale, const void *y, const void *yref)
{
  const symv_routine_info *ri = symv_routine_get(r);
  double worst = 0;
  for (int i = 0; ri && i < n; i++) {
    long p = pos(n, incy, i);
    double yr, yi, rr, ri_;
    get(ri, y, p, &yr, &yi);
    get(ri, yref, p, &rr, &ri_);
    if ((isnan(rr) || isnan(ri_)) && (isnan(yr) || isnan(yi))) continue;
    double d = cabs2(yr - rr, yi - ri_);
    if (isnan(d) || isinf(d)) return INFINITY;
    if (d / scale[i] > worst) worst = d / scale[i];
  }
  return worst;
}

double symv_residual(symv_routine r, char uplo, int n, const void *alpha, const void *A, int lda, const void *x,
                     int incx, const void *beta, const void *y0, const void *y, const void *yref, int incy)
{
  if (!symv_routine_get(r) || symv_check_args(uplo, n, lda, incx, incy)) return -1;
  if (n == 0) return 0;
  double *scale = symv_residual_scale(r, uplo, n, alpha, A, lda, x, incx, beta, y0, incy);
  if (!scale) return -1;
  double res = symv_residual_scaled(r, n, incy, scale, y, yref);
  free(scale);
  return res;
}

/* Element (i, j) of the full matrix that the triangle of A (lower or
 * upper) stands for, as (re, im): the stored element, or the mirrored one
 * (conjugated for HEMV); HEMV's diagonal has imaginary part 0. */
static void full_elem(const symv_routine_info *ri, int lower, const void *A, int lda, int i, int j, double *re,
                      double *im)
{
  const int stored = lower ? i >= j : i <= j;
  get(ri, A, stored ? (long)j * lda + i : (long)i * lda + j, re, im);
  if (ri->hermitian && i == j) *im = 0.0;
  else if (ri->hermitian && !stored) *im = -*im;
}

/* Defines name: logical row i of alpha*A*x + beta*y0 (routine ri; al, be
 * the scalars as (re, im); be = 0: y0 not read; al = 0: A and x not read)
 * summed in type T, rounded to double into ref[2i], ref[2i + 1]. Elements
 * arrive as doubles (exact for float routines); T holds every product of
 * two of them exactly when it has twice their significand. */
#define SYMV_PRECISE_ROW(name, T)                                                                              \
  static void name(const symv_routine_info *ri, int lower, int n, const double *al, const void *A, int lda,     \
                   const void *x, int incx, const double *be, const void *y0, int incy, int i, double *ref)    \
  {                                                                                                            \
    T sr = 0, si = 0;                                                                                          \
    for (int j = 0; (al[0] != 0.0 || al[1] != 0.0) && j < n; j++) {                                           \
      double ar, ai, xr, xi;                                                                                   \
      full_elem(ri, lower, A, lda, i, j, &ar, &ai);                                                            \
      get(ri, x, pos(n, incx, j), &xr, &xi);                                                                   \
      sr += (T)ar * xr;                                                                                        \
      if (ri->is_complex) sr -= (T)ai * xi, si += (T)ar * xi + (T)ai * xr;                                     \
    }                                                                                                          \
    T tr = (T)al[0] * sr - (T)al[1] * si, ti = (T)al[0] * si + (T)al[1] * sr;                                  \
    if (be[0] != 0.0 || be[1] != 0.0) {                                                                        \
      double yr, yi;                                                                                           \
      get(ri, y0, pos(n, incy, i), &yr, &yi);                                                                  \
      tr += (T)be[0] * yr - (T)be[1] * yi, ti += (T)be[0] * yi + (T)be[1] * yr;                                \
    }                                                                                                          \
    ref[2 * i] = (double)tr, ref[2 * i + 1] = (double)ti;                                                      \
  }
SYMV_PRECISE_ROW(precise_row_double, double)       /* float routines: 24-bit significands, 53 in the sum */
SYMV_PRECISE_ROW(precise_row_float128, __float128) /* double routines: 53-bit significands, 113 in the sum */

int symv_ref_precise(symv_routine r, char uplo, int n, const void *alpha, const void *A, int lda, const void *x,
                     int incx, const void *beta, const void *y0, int incy, double *ref)
{
  const symv_routine_info *ri = symv_routine_get(r);
  if (!ri || symv_check_args(uplo, n, lda, incx, incy)) return SYMV_INVALID_VALUE;
  const int lower = toupper((unsigned char)uplo) == 'L';
  double al[2], be[2];
  get(ri, alpha, 0, &al[0], &al[1]);
  get(ri, beta, 0, &be[0], &be[1]);
  /* rows are independent: each thread writes the rows it is given */
#pragma omp parallel for schedule(dynamic, 16) if ((double)n * n > 1e5)
  for (int i = 0; i < n; i++) {
    if (ri->real_bytes == 4) precise_row_double(ri, lower, n, al, A, lda, x, incx, be, y0, incy, i, ref);
    else precise_row_float128(ri, lower, n, al, A, lda, x, incx, be, y0, incy, i, ref);
  }
  return 0;
}

double symv_relerr(symv_routine r, int n, int incy, const void *y, const double *ref)
{
  const symv_routine_info *ri = symv_routine_get(r);
  double worst = NAN; /* no nonzero ref_i yet */
  for (int i = 0; ri && i < n; i++) {
    const double rr = ref[2 * i], ri_ = ref[2 * i + 1];
    if (rr == 0.0 && ri_ == 0.0) continue;
    double yr, yi;
    get(ri, y, pos(n, incy, i), &yr, &yi);
    const double e = cabs2(yr - rr, yi - ri_) / cabs2(rr, ri_);
    if (isnan(e) || isinf(e)) return INFINITY;
    if (!(e <= worst)) worst = e; /* also the first: worst is NaN until then */
  }
  return worst;
}

long symv_untouched(symv_routine r, const void *buf, long len, int n, int inc, const void *poison)
{
  const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
  long bad = 0, step = labs((long)inc), span = n > 0 ? (long)(n - 1) * step + 1 : 0;
  for (long i = 0; i < len; i++) {
    int on_vector = i < span && i % step == 0;
    if (!on_vector && memcmp((const char *)buf + i * E, poison, E) != 0) bad++;
  }
  return bad;
}

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): seeds one xorshift stream per chunk. */
static unsigned long long splitmix64(unsigned long long z)
{
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void symv_fill_random(symv_routine r, void *a, long len, unsigned long long *seed)
{
  const symv_routine_info *ri = symv_routine_get(r);
  const unsigned long long s0 = *seed ? *seed : 0x9e3779b97f4a7c15ull;
  const long parts = len * (ri->is_complex ? 2 : 1), chunk = 1L << 16;
  const long nchunks = (parts + chunk - 1) / chunk;
  /* one xorshift stream per chunk of 65536 numbers, seeded from (seed,
   * chunk): the values do not depend on the number of threads */
#pragma omp parallel for schedule(static) if (parts > 4 * chunk)
  for (long c = 0; c < nchunks; c++) {
    unsigned long long s = splitmix64(s0 ^ splitmix64((unsigned long long)c));
    if (s == 0) s = 0x9e3779b97f4a7c15ull;
    const long end = (c + 1) * chunk < parts ? (c + 1) * chunk : parts;
    for (long i = c * chunk; i < end; i++) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      double u = (double)(s >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
      double v = 2.0 * u - 1.0;
      if (v == 0.0 || (ri->real_bytes == 4 && (float)v == 0.0f)) v = 0.5;
      if (ri->real_bytes == 4) ((float *)a)[i] = (float)v;
      else ((double *)a)[i] = v;
    }
  }
  *seed = splitmix64(s0 ^ (unsigned long long)parts) | 1; /* the next fill draws other numbers */
}

void symv_set_nan(symv_routine r, void *buf, long k)
{
  symv_scalar_set(r, (char *)buf + k * symv_routine_get(r)->elem_bytes, NAN, NAN);
}

void symv_ref_scale(symv_routine r, int n, const void *beta, void *y, int incy)
{
  const symv_routine_info *ri = symv_routine_get(r);
  double br, bi;
  get(ri, beta, 0, &br, &bi);
  for (int i = 0; i < n; i++) {
    const long p = pos(n, incy, i);
    double yr, yi;
    get(ri, y, p, &yr, &yi);
    if (br == 0.0 && bi == 0.0) yr = yi = 0.0; /* y not read */
    else {
      const double t = br * yr - bi * yi;
      yi = br * yi + bi * yr, yr = t;
    }
    symv_scalar_set(r, (char *)y + p * ri->elem_bytes, yr, yi);
  }
}
