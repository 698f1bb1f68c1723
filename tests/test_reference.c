/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the CPU reference of every routine, the scaled residual, the
 * reference in more precision with its relative error, and the argument
 * checks. Each test loops over the routine registry, so a new
 * routine is tested without anyone adding it here. */
#include <complex.h>
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"
#include "reference.h"
#include "routine.h"
#include "symv_error.h"
#include "test_util.h"

/* Element k of buf (routine r) as a complex long double. */
static long double complex elem(symv_routine r, const void *buf, long k)
{
  const symv_routine_info *ri = symv_routine_get(r);
  const int parts = ri->is_complex ? 2 : 1;
  if (ri->real_bytes == 4) {
    const float *f = (const float *)buf + k * parts;
    return ri->is_complex ? f[0] + f[1] * I : f[0];
  }
  const double *d = (const double *)buf + k * parts;
  return ri->is_complex ? d[0] + d[1] * I : d[0];
}

/* The product straight from the definition (long double), for comparison:
 * the full matrix from the stored triangle, mirrored (conjugated for HEMV),
 * with the diagonal's imaginary part dropped for HEMV. */
static void naive(symv_routine r, char uplo, int n, const void *alpha, const void *A, int lda, const void *x, int incx,
                  const void *beta, void *y, int incy)
{
  const symv_routine_info *ri = symv_routine_get(r);
  const long double complex al = elem(r, alpha, 0), be = elem(r, beta, 0);
  long double complex *out = calloc((size_t)n, sizeof *out);
  for (int i = 0; i < n; i++) {
    long double complex s = 0;
    for (int j = 0; j < n; j++) {
      int stored = uplo == 'L' ? i >= j : i <= j;
      long double complex a = stored ? elem(r, A, (long)j * lda + i) : elem(r, A, (long)i * lda + j);
      if (ri->hermitian && !stored) a = conjl(a);
      if (ri->hermitian && i == j) a = creall(a);
      long px = incx > 0 ? (long)j * incx : (long)(n - 1 - j) * -incx;
      s += a * elem(r, x, px);
    }
    long py = incy > 0 ? (long)i * incy : (long)(n - 1 - i) * -incy;
    out[i] = al * s + (be == 0 ? 0 : be * elem(r, y, py));
  }
  for (int i = 0; i < n; i++) {
    long py = incy > 0 ? (long)i * incy : (long)(n - 1 - i) * -incy;
    symv_scalar_set(r, (char *)y + py * ri->elem_bytes, (double)creall(out[i]), (double)cimagl(out[i]));
  }
  free(out);
}

/* alpha = ar + ai i and beta = br + bi i, scalars of routine r (its
 * element size each; the imaginary parts are dropped for a real routine). */
static void set_scalars(symv_routine r, void *alpha, double ar, double ai, void *beta, double br, double bi)
{
  symv_scalar_set(r, alpha, ar, ai);
  symv_scalar_set(r, beta, br, bi);
}

/* count random elements of routine r (malloc'ed; free() them). */
static void *random_elems(symv_routine r, long count, unsigned long long *seed)
{
  void *buf = malloc((size_t)symv_routine_get(r)->elem_bytes * (size_t)count);
  cr_assert_not_null(buf);
  symv_fill_random(r, buf, count, seed);
  return buf;
}

Test(args, blas_positions)
{
  cr_assert_eq(symv_check_args('L', 10, 10, 1, 1), 0);
  cr_assert_eq(symv_check_args('u', 10, 12, -2, 3), 0);
  cr_assert_eq(symv_check_args('X', 10, 10, 1, 1), 1);
  cr_assert_eq(symv_check_args('L', -1, 10, 1, 1), 2);
  cr_assert_eq(symv_check_args('L', 10, 9, 1, 1), 5);
  cr_assert_eq(symv_check_args('L', 0, 0, 1, 1), 5, "lda >= max(1, n)");
  cr_assert_eq(symv_check_args('L', 0, 1, 1, 1), 0);
  cr_assert_eq(symv_check_args('L', 10, 10, 0, 1), 7);
  cr_assert_eq(symv_check_args('L', 10, 10, 1, 0), 10);
}

Test(reference, every_routine_matches_definition_with_small_residual)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  const int ns[] = {1, 5, 33, 120};
  const int incs[][2] = {{1, 1}, {-2, 3}, {3, -1}};
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++) {
    const symv_routine r = symv_routine_order(ro);
    const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
    _Alignas(16) unsigned char alpha[16], beta[16];
    set_scalars(r, alpha, 1.5, -0.75, beta, -0.5, 0.25);
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
      for (size_t b = 0; b < 3; b++)
        for (int u = 0; u < 2; u++) {
          int n = ns[a], lda = n + 2, incx = incs[b][0], incy = incs[b][1];
          char uplo = u ? 'U' : 'L';
          long xl = (long)(n - 1) * abs(incx) + 1, yl = (long)(n - 1) * abs(incy) + 1;
          void *A = random_elems(r, (long)lda * n, &seed), *x = random_elems(r, xl, &seed),
               *y0 = random_elems(r, yl, &seed), *y1 = malloc(E * yl), *y2 = malloc(E * yl);
          memcpy(y1, y0, E * yl);
          memcpy(y2, y0, E * yl);
          cr_assert_eq(symv_ref(r, uplo, n, alpha, A, lda, x, incx, beta, y1, incy), 0);
          naive(r, uplo, n, alpha, A, lda, x, incx, beta, y2, incy);
          double res = symv_residual(r, uplo, n, alpha, A, lda, x, incx, beta, y0, y1, y2, incy);
          /* below 2: a complex multiply-add rounds up to about 2 u relative
           * (Higham, Accuracy and Stability, 3.6), and at n = 1 the n eps of
           * the scale leaves no room for that (seen: 1.08) */
          cr_assert(res >= 0 && res < 2.0, "%s n=%d uplo=%c inc=%d,%d: residual %g (seed %llu)",
                    symv_routine_name(r), n, uplo, incx, incy, res, seed0);
          free(A), free(x), free(y0), free(y1), free(y2);
        }
  }
}

/* HEMV reads only the real part of the diagonal; a SYMV reads all of it. */
Test(reference, hemv_ignores_the_diagonal_imaginary_part)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++) {
    const symv_routine r = symv_routine_order(ro);
    const symv_routine_info *ri = symv_routine_get(r);
    if (!ri->is_complex) continue;
    const int n = 20;
    const size_t E = (size_t)ri->elem_bytes;
    _Alignas(16) unsigned char alpha[16], beta[16];
    set_scalars(r, alpha, 1.0, 0.5, beta, 0.0, 0.0);
    void *A = random_elems(r, (long)n * n, &seed), *x = random_elems(r, n, &seed), *y1 = calloc(n, E),
         *y2 = calloc(n, E), *y0 = calloc(n, E);
    symv_ref(r, 'L', n, alpha, A, n, x, 1, beta, y1, 1);
    for (int i = 0; i < n; i++) { /* a different imaginary part on the diagonal */
      double re = ri->real_bytes == 4 ? ((float *)A)[2 * ((long)i * n + i)] : ((double *)A)[2 * ((long)i * n + i)];
      symv_scalar_set(r, (char *)A + ((long)i * n + i) * E, re, 99.0);
    }
    symv_ref(r, 'L', n, alpha, A, n, x, 1, beta, y2, 1);
    double res = symv_residual(r, 'L', n, alpha, A, n, x, 1, beta, y0, y2, y1, 1);
    if (ri->hermitian)
      cr_assert(res >= 0 && res < 1.0, "%s read the diagonal's imaginary part (%g; seed %llu)", ri->name, res, seed0);
    else cr_assert(res > 100, "%s must read the diagonal's imaginary part (%g; seed %llu)", ri->name, res, seed0);
    free(A), free(x), free(y0), free(y1), free(y2);
  }
}

Test(residual, detects_a_wrong_element_and_nan)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++) {
    const symv_routine r = symv_routine_order(ro);
    const symv_routine_info *ri = symv_routine_get(r);
    const size_t E = (size_t)ri->elem_bytes;
    const int n = 50, lda = 50;
    _Alignas(16) unsigned char alpha[16], beta[16];
    set_scalars(r, alpha, 2.0, -1.0, beta, 0.5, 0.5);
    void *A = random_elems(r, (long)lda * n, &seed), *x = random_elems(r, n, &seed), *y0 = random_elems(r, n, &seed),
         *y = malloc(E * n), *yref = malloc(E * n);
    memcpy(yref, y0, E * n);
    symv_ref(r, 'L', n, alpha, A, lda, x, 1, beta, yref, 1);
    memcpy(y, yref, E * n);
    /* an error of 100 times element 17's scale stands out; half of each
     * element's scale (rounding) passes */
    double *scale = symv_residual_scale(r, 'L', n, alpha, A, lda, x, 1, beta, y0, 1);
    cr_assert_not_null(scale);
    long double complex v = elem(r, y, 17) + 100 * scale[17];
    symv_scalar_set(r, (char *)y + 17 * E, (double)creall(v), (double)cimagl(v));
    double res = symv_residual(r, 'L', n, alpha, A, lda, x, 1, beta, y0, y, yref, 1);
    cr_assert(res > 50, "%s: an error of 100 x the scale must stand out, got %g (seed %llu)", ri->name, res, seed0);
    symv_set_nan(r, y, 17);
    cr_assert(isinf(symv_residual(r, 'L', n, alpha, A, lda, x, 1, beta, y0, y, yref, 1)), "%s (seed %llu)", ri->name,
              seed0);
    memcpy(y, yref, E * n);
    for (int i = 0; i < n; i++) {
      v = elem(r, y, i) + 0.25 * scale[i];
      symv_scalar_set(r, (char *)y + i * E, (double)creall(v), (double)cimagl(v));
    }
    cr_assert(symv_residual(r, 'L', n, alpha, A, lda, x, 1, beta, y0, y, yref, 1) < 1.0, "%s (seed %llu)", ri->name,
              seed0);
    free(scale);
    free(A), free(x), free(y0), free(y), free(yref);
  }
}

Test(residual, beta_zero_ignores_nan_in_y0)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++) {
    const symv_routine r = symv_routine_order(ro);
    const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
    _Alignas(16) unsigned char A[16 * 16], x[16 * 4], y0[16 * 4], y[16 * 4], yref[16 * 4] = {0}, alpha[16],
        beta[16];
    set_scalars(r, alpha, 1.0, 0.0, beta, 0.0, 0.0);
    symv_fill_random(r, A, 16, &seed);
    symv_fill_random(r, x, 4, &seed);
    for (int i = 0; i < 4; i++) symv_set_nan(r, y0, i);
    symv_ref(r, 'U', 4, alpha, A, 4, x, 1, beta, yref, 1);
    memcpy(y, yref, 4 * E);
    double res = symv_residual(r, 'U', 4, alpha, A, 4, x, 1, beta, y0, y, yref, 1);
    cr_assert(res >= 0 && res < 1.0, "%s: got %g (seed %llu)", symv_routine_name(r), res, seed0);
  }
}

Test(residual, untouched_counts_writes_between_strides)
{
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++) {
    const symv_routine r = symv_routine_order(ro);
    const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
    _Alignas(16) unsigned char buf[20 * 16], poison[16], v[16];
    symv_scalar_set(r, poison, -1.0, 2.0);
    for (int i = 0; i < 20; i++) memcpy(buf + i * E, poison, E);
    for (int i = 0; i < 5; i++) symv_scalar_set(r, buf + i * 3 * E, i, i); /* n = 5, inc = 3: 0,3,...,12 */
    cr_assert_eq(symv_untouched(r, buf, 20, 5, 3, poison), 0);
    symv_scalar_set(r, v, 7.0, 0.0);
    memcpy(buf + 4 * E, v, E);
    memcpy(buf + 19 * E, v, E);
    cr_assert_eq(symv_untouched(r, buf, 20, 5, -3, poison), 2, "%s", symv_routine_name(r));
  }
}

Test(routine, registry_names_parse_and_sizes)
{
  int seen[SYMV_ROUTINE_COUNT] = {0};
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const symv_routine r = symv_routine_order(i);
    const symv_routine_info *ri = symv_routine_get(r);
    symv_routine back;
    cr_assert(ri && ri->id == r);
    cr_assert(!seen[r], "order lists %s twice", ri->name);
    seen[r] = 1;
    cr_assert_eq(symv_routine_parse(ri->name, &back), 0);
    cr_assert_eq(back, r);
    cr_assert_eq(symv_routine_parse(ri->blas, &back), 0, "upper case %s", ri->blas);
    cr_assert_eq(ri->elem_bytes, ri->real_bytes * (ri->is_complex ? 2 : 1));
    cr_assert(ri->hermitian == 0 || ri->is_complex, "a Hermitian routine is complex");
    cr_assert(strstr(ri->cublas, ri->blas + 1) || strstr(ri->cublas, "symv") || strstr(ri->cublas, "hemv"));
    cr_assert_float_eq(symv_routine_bytes(r, 10), 55.0 * ri->elem_bytes, 1e-9);
    cr_assert_float_eq(symv_routine_flops(r, 10), (ri->is_complex ? 800.0 : 200.0), 1e-9);
    cr_assert(strstr(SYMV_ROUTINE_NAMES, ri->name), "SYMV_ROUTINE_NAMES lacks %s", ri->name);
  }
  symv_routine r;
  cr_assert_eq(symv_routine_parse("qsymv", &r), SYMV_INVALID_VALUE);
  cr_assert_eq(symv_routine_parse("", &r), SYMV_INVALID_VALUE);
  cr_assert_eq(symv_routine_parse("dsymvv", &r), SYMV_INVALID_VALUE);
  int sel[SYMV_ROUTINE_COUNT];
  char err[256];
  cr_assert_eq(symv_routine_parse_list("all", sel, err, sizeof err), 0);
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) cr_assert(sel[i]);
  cr_assert_eq(symv_routine_parse_list("zhemv,SSYMV", sel, err, sizeof err), 0);
  cr_assert(sel[SYMV_ZHEMV] && sel[SYMV_SSYMV] && !sel[SYMV_DSYMV] && !sel[SYMV_CHEMV]);
  cr_assert_eq(symv_routine_parse_list("zhemv,,dsymv", sel, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert(strstr(err, "empty"), "%s", err);
  cr_assert_eq(symv_routine_parse_list("zhemv,xgemv", sel, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert(strstr(err, "xgemv"), "%s", err);
}

/* The reference in more precision (symv_ref_precise) as elements of
 * routine r in y (n elements, stride incy). */
static void precise_as_elems(symv_routine r, int n, const double *ref, void *y, int incy)
{
  const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
  for (int i = 0; i < n; i++) {
    long py = incy > 0 ? (long)i * incy : (long)(n - 1 - i) * -incy;
    symv_scalar_set(r, (char *)y + py * E, ref[2 * i], ref[2 * i + 1]);
  }
}

/* Row 0 of A (both triangles' places) times x is sum_j a(0,j) x_j with
 * a(0,j) = x_j = 1 + 2^-30 for odd j and a(0,j) = -1, x_j = 1 for even j:
 * exactly k (2^-29 + 2^-60) for the k odd j. Double arithmetic loses the
 * 2^-60 parts in any order of the sum (a partial sum of magnitude near 1
 * has no room for them); binary128 keeps them. The rest of A is random. */
Test(precise, dsymv_keeps_what_double_sums_lose)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  const int n = 16, k = n / 2;
  const double e = ldexp(1.0, -30);
  const double exact = 0.5 * ldexp(1.0, -20) + k * (ldexp(1.0, -29) + ldexp(1.0, -60)); /* beta y0_0 + row 0 */
  for (int u = 0; u < 2; u++) {
    const char uplo = u ? 'U' : 'L';
    double A[16 * 16], x[16], y0[16], y[16], ref[32], alpha = 1.0, beta = 0.5;
    symv_fill_random(SYMV_DSYMV, A, n * n, &seed);
    symv_fill_random(SYMV_DSYMV, y0, n, &seed);
    y0[0] = ldexp(1.0, -20);
    for (int j = 0; j < n; j++) {
      x[j] = j % 2 ? 1 + e : 1.0;
      A[j] = A[(long)j * n] = j % 2 ? 1 + e : -1.0; /* a(j,0) and a(0,j) */
    }
    cr_assert_eq(symv_ref_precise(SYMV_DSYMV, uplo, n, &alpha, A, n, x, 1, &beta, y0, 1, ref), 0);
    cr_assert(ref[0] == exact && ref[1] == 0.0, "uplo %c: %a, not %a (seed %llu)", uplo, ref[0], exact, seed0);
    memcpy(y, y0, sizeof y);
    cr_assert_eq(symv_ref(SYMV_DSYMV, uplo, n, &alpha, A, n, x, 1, &beta, y, 1), 0);
    cr_assert(y[0] != exact, "uplo %c: cblas_dsymv's double sum gave the exact %a", uplo, y[0]);
    cr_assert(symv_relerr(SYMV_DSYMV, n, 1, y, ref) > 1e-12, "uplo %c: the error of %a stands out (seed %llu)", uplo,
              y[0], seed0);
  }
}

/* A y equal to the reference but for one element, off by a relative d in
 * a random direction, has relative error d; a NaN gives +Inf. */
Test(precise, relerr_reports_a_known_perturbation)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  const int n = 40, incy = -2;
  const long yl = (long)(n - 1) * 2 + 1;
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++) {
    const symv_routine r = symv_routine_order(ro);
    const symv_routine_info *ri = symv_routine_get(r);
    /* elements of float routines round by up to 2^-24 relative: d well above that */
    const double d = ri->real_bytes == 4 ? 1e-3 : 1e-9, slack = ri->real_bytes == 4 ? 2 * FLT_EPSILON : 1e-15;
    _Alignas(16) unsigned char alpha[16], beta[16];
    set_scalars(r, alpha, 1.25, 0.5, beta, -0.5, 0.75);
    void *A = random_elems(r, (long)n * n, &seed), *x = random_elems(r, n, &seed), *y0 = random_elems(r, yl, &seed),
         *y = random_elems(r, yl, &seed);
    double *ref = malloc(2 * n * sizeof *ref);
    cr_assert_eq(symv_ref_precise(r, 'U', n, alpha, A, n, x, 1, beta, y0, incy, ref), 0);
    const int i = 23;
    const double theta = 6.283185307179586 * (double)(seed % 1000) / 1000, c = ri->is_complex ? cos(theta) : 1.0,
                 s = ri->is_complex ? sin(theta) : 0.0;
    double *moved = malloc(2 * n * sizeof *moved); /* ref, element i times 1 + d e^{i theta} */
    memcpy(moved, ref, 2 * n * sizeof *ref);
    moved[2 * i] += d * (c * ref[2 * i] - s * ref[2 * i + 1]);
    moved[2 * i + 1] += d * (c * ref[2 * i + 1] + s * ref[2 * i]);
    precise_as_elems(r, n, moved, y, incy);
    const double err = symv_relerr(r, n, incy, y, ref);
    cr_assert(fabs(err - d) <= d * 1e-3 + slack, "%s: relative error %g, not %g (seed %llu)", ri->name, err, d, seed0);
    long py = (long)(n - 1 - 5) * 2; /* logical element 5 at stride -2 */
    symv_set_nan(r, y, py);
    cr_assert(isinf(symv_relerr(r, n, incy, y, ref)), "%s: a NaN (seed %llu)", ri->name, seed0);
    free(A), free(x), free(y0), free(y), free(ref), free(moved);
  }
}

/* On random data the reference in more precision and the BLAS's agree to
 * rounding: scaled residual O(1), for every routine, both triangles and
 * strides. */
Test(precise, agrees_with_the_blas_on_random_data)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  const int ns[] = {1, 7, 64, 130};
  const int incs[][2] = {{1, 1}, {-2, 3}};
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++) {
    const symv_routine r = symv_routine_order(ro);
    const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
    _Alignas(16) unsigned char alpha[16], beta[16];
    set_scalars(r, alpha, -0.75, 1.5, beta, 0.5, -0.25);
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
      for (int b = 0; b < 2; b++)
        for (int u = 0; u < 2; u++) {
          const int n = ns[a], lda = n + 1, incx = incs[b][0], incy = incs[b][1];
          const char uplo = u ? 'U' : 'L';
          const long xl = (long)(n - 1) * abs(incx) + 1, yl = (long)(n - 1) * abs(incy) + 1;
          void *A = random_elems(r, (long)lda * n, &seed), *x = random_elems(r, xl, &seed),
               *y0 = random_elems(r, yl, &seed), *y = malloc(E * yl), *yp = malloc(E * yl);
          double *ref = malloc(2 * n * sizeof *ref);
          memcpy(y, y0, E * yl);
          memcpy(yp, y0, E * yl);
          cr_assert_eq(symv_ref(r, uplo, n, alpha, A, lda, x, incx, beta, y, incy), 0);
          cr_assert_eq(symv_ref_precise(r, uplo, n, alpha, A, lda, x, incx, beta, y0, incy, ref), 0);
          precise_as_elems(r, n, ref, yp, incy);
          double res = symv_residual(r, uplo, n, alpha, A, lda, x, incx, beta, y0, y, yp, incy);
          /* below 2, as every_routine_matches_definition_with_small_residual */
          cr_assert(res >= 0 && res < 2.0, "%s n=%d uplo=%c inc=%d,%d: residual %g (seed %llu)",
                    symv_routine_name(r), n, uplo, incx, incy, res, seed0);
          free(A), free(x), free(y0), free(y), free(yp), free(ref);
        }
  }
}
