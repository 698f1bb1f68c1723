/* Tests of the CPU reference, the scaled residual and the argument checks. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include "gpu.h"
#include "reference.h"
#include "symv_error.h"

static unsigned long long fresh_seed(void) { return (unsigned long long)time(NULL) * 6364136223846793005ull + clock(); }

/* Naive DSYMV straight from the definition, for comparison. */
static void naive(char uplo, int n, double alpha, const double *A, int lda, const double *x, int incx, double beta,
                  double *y, int incy)
{
  for (int i = 0; i < n; i++) {
    long py = incy > 0 ? (long)i * incy : (long)(n - 1 - i) * -incy;
    long double s = 0;
    for (int j = 0; j < n; j++) {
      int r = i, c = j;
      if ((uplo == 'L') ? r < c : r > c) r = j, c = i;
      long px = incx > 0 ? (long)j * incx : (long)(n - 1 - j) * -incx;
      s += (long double)A[(size_t)c * lda + r] * x[px];
    }
    y[py] = alpha * (double)s + (beta == 0 ? 0 : beta * y[py]);
  }
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

Test(reference, openblas_matches_definition_with_small_residual)
{
  unsigned long long seed = fresh_seed();
  const int ns[] = {1, 5, 33, 120};
  const int incs[][2] = {{1, 1}, {-2, 3}, {3, -1}};
  for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
    for (size_t b = 0; b < 3; b++)
      for (int u = 0; u < 2; u++) {
        int n = ns[a], lda = n + 2, incx = incs[b][0], incy = incs[b][1];
        char uplo = u ? 'U' : 'L';
        long xl = (long)(n - 1) * abs(incx) + 1, yl = (long)(n - 1) * abs(incy) + 1;
        double *A = malloc(sizeof(double) * lda * n), *x = malloc(sizeof(double) * xl);
        double *y0 = malloc(sizeof(double) * yl), *y1 = malloc(sizeof(double) * yl), *y2 = malloc(sizeof(double) * yl);
        symv_fill_random(A, (long)lda * n, &seed);
        symv_fill_random(x, xl, &seed);
        symv_fill_random(y0, yl, &seed);
        memcpy(y1, y0, sizeof(double) * yl);
        memcpy(y2, y0, sizeof(double) * yl);
        cr_assert_eq(symv_ref_dsymv(uplo, n, 1.5, A, lda, x, incx, -0.5, y1, incy), 0);
        naive(uplo, n, 1.5, A, lda, x, incx, -0.5, y2, incy);
        double r = symv_residual(uplo, n, 1.5, A, lda, x, incx, -0.5, y0, y1, y2, incy);
        cr_assert(r >= 0 && r < 1.0, "n=%d uplo=%c inc=%d,%d: residual %g (seed %llu)", n, uplo, incx, incy, r, seed);
        free(A), free(x), free(y0), free(y1), free(y2);
      }
}

Test(residual, detects_a_wrong_element_and_nan)
{
  unsigned long long seed = fresh_seed();
  const int n = 50, lda = 50;
  double *A = malloc(sizeof(double) * lda * n), x[50], y0[50], y[50], yref[50];
  symv_fill_random(A, (long)lda * n, &seed);
  symv_fill_random(x, n, &seed);
  symv_fill_random(y0, n, &seed);
  memcpy(yref, y0, sizeof y0);
  symv_ref_dsymv('L', n, 2.0, A, lda, x, 1, 0.5, yref, 1);
  memcpy(y, yref, sizeof y);
  y[17] *= 1 + 1e-6; /* far above rounding, far below any tolerance on values */
  double r = symv_residual('L', n, 2.0, A, lda, x, 1, 0.5, y0, y, yref, 1);
  cr_assert(r > 100, "a 1e-6 relative error must stand out, got %g", r);
  y[17] = NAN;
  cr_assert(isinf(symv_residual('L', n, 2.0, A, lda, x, 1, 0.5, y0, y, yref, 1)));
  /* rounding-level differences pass */
  memcpy(y, yref, sizeof y);
  for (int i = 0; i < n; i++) y[i] = nextafter(y[i], INFINITY);
  cr_assert(symv_residual('L', n, 2.0, A, lda, x, 1, 0.5, y0, y, yref, 1) < 1.0);
  free(A);
}

Test(residual, beta_zero_ignores_nan_in_y0)
{
  unsigned long long seed = fresh_seed();
  double A[16], x[4], y0[4] = {NAN, NAN, NAN, NAN}, y[4], yref[4] = {0};
  symv_fill_random(A, 16, &seed);
  symv_fill_random(x, 4, &seed);
  symv_ref_dsymv('U', 4, 1.0, A, 4, x, 1, 0.0, yref, 1);
  memcpy(y, yref, sizeof y);
  double r = symv_residual('U', 4, 1.0, A, 4, x, 1, 0.0, y0, y, yref, 1);
  cr_assert(r >= 0 && r < 1.0, "got %g", r);
}

Test(residual, untouched_counts_writes_between_strides)
{
  double buf[20];
  for (int i = 0; i < 20; i++) buf[i] = -1.0;
  for (int i = 0; i < 5; i++) buf[i * 3] = i; /* n = 5, inc = 3: elements 0,3,...,12 */
  cr_assert_eq(symv_untouched(buf, 20, 5, 3, -1.0), 0);
  buf[4] = 7;
  buf[19] = 7;
  cr_assert_eq(symv_untouched(buf, 20, 5, -3, -1.0), 2);
}
