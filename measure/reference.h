/*
 * reference.h - the CPU side of verification: the reference DSYMV
 * (OpenBLAS's cblas_dsymv) and the scaled residual that judges a result.
 */
#ifndef SYMV_REFERENCE_H
#define SYMV_REFERENCE_H

/** symv_ref_dsymv: y := alpha*A*x + beta*y on the CPU with OpenBLAS
 *  (cblas_dsymv, column-major), same arguments and semantics as DSYMV
 *  (host arrays; uplo 'L' or 'U'). Errors: SYMV_INVALID_VALUE as
 *  symv_check_args. */
int symv_ref_dsymv(char uplo, int n, double alpha, const double *A, int lda, const double *x, int incx,
                   double beta, double *y, int incy);

/** symv_residual: the scaled residual of a computed y against a reference
 *  yref (../shared/style.md):
 *     max_i |y_i - yref_i| / (n eps (|alpha| (|A||x|)_i + |beta| |y0_i|))
 *  over the n elements of the strided vectors, where y0 is y before the call
 *  and |A| the elementwise absolute value of the symmetric matrix (stored
 *  triangle uplo), eps = DBL_EPSILON. A correct result is O(1) or below; a
 *  wrong one is O(1/eps). A NaN or Inf in y where yref is finite gives
 *  +Inf. Denominators of 0 (alpha = 0 and beta = 0) use 1 instead of the
 *  scale (the result must then be exactly zero). Returns -1 on bad
 *  arguments. Host arrays; the elements between strided entries are not
 *  looked at (symv_untouched checks those). */
double symv_residual(char uplo, int n, double alpha, const double *A, int lda, const double *x, int incx,
                     double beta, const double *y0, const double *y, const double *yref, int incy);

/** symv_residual_scale: the denominators of symv_residual for each of the
 *  n logical elements, n eps (|alpha| (|A||x|)_i + |beta| |y0_i|) (1 where
 *  that is 0), in a malloc'd array of n doubles, so several results of one
 *  case are judged without recomputing |A||x|. NULL on bad arguments or
 *  no memory. */
double *symv_residual_scale(char uplo, int n, double alpha, const double *A, int lda, const double *x,
                            int incx, double beta, const double *y0, int incy);

/** symv_residual_scaled: max_i |y_i - yref_i| / scale_i over the n logical
 *  elements of the strided y, yref (stride incy); +Inf where y is NaN or
 *  Inf and yref is not. */
double symv_residual_scaled(int n, int incy, const double *scale, const double *y, const double *yref);

/** symv_untouched: number of the len elements of buf that are not part of
 *  the strided vector (n elements, stride inc) and differ bitwise from
 *  `poison`: what a call wrote where it must not. */
long symv_untouched(const double *buf, long len, int n, int inc, double poison);

/** symv_fill_random: fills a[0..len) with uniform values in [-1, 1) from
 *  the xorshift state *seed (advanced). Never zeros by construction. */
void symv_fill_random(double *a, long len, unsigned long long *seed);

#endif
