/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reference.h - the CPU side of verification, for every routine of the
 * registry (core/routine.h): the reference product (OpenBLAS's cblas_ssymv,
 * cblas_dsymv, cblas_chemv, cblas_zhemv, and LAPACK's csymv_ and zsymv_,
 * which CBLAS lacks), the scaled residual that judges a result, and a
 * reference in more precision with the relative error against it (how
 * accurate a result is, not only whether it is right).
 *
 * Data are host arrays of the routine's element type (float, double, or
 * complex pairs of those), column-major as BLAS has them; scalars point to
 * one such element.
 */
#ifndef SYMV_REFERENCE_H
#define SYMV_REFERENCE_H

#include "params.h"

/** symv_ref: y := alpha*A*x + beta*y on the CPU for routine r, same
 *  arguments and semantics as the BLAS routine (uplo 'L' or 'U'; HEMV
 *  ignores the imaginary part of A's diagonal). Errors: SYMV_INVALID_VALUE
 *  as symv_check_args (gpu/gpu.h), or r out of range. */
int symv_ref(symv_routine r, char uplo, int n, const void *alpha, const void *A, int lda, const void *x, int incx,
             const void *beta, void *y, int incy);

/** SYMV_RESIDUAL_TOL: the largest scaled residual (symv_residual) a result
 *  may have and be called right, wherever results are judged (check, time,
 *  bench, the sweep's verification; check and sweep take --tol). A correct
 *  result is O(1) or below; a wrong one O(1/eps). */
#define SYMV_RESIDUAL_TOL 4.0

/** symv_residual_scale: the denominators of symv_residual for each of the
 *  n logical elements, n eps (|alpha| (|A||x|)_i + |beta| |y0_i|) (1 where
 *  that is 0), in a malloc'd array of n doubles, so several results of one
 *  case are judged without recomputing |A||x|. |.| of a complex number is
 *  its modulus; |A| is the elementwise modulus of the full matrix the
 *  stored triangle uplo stands for (HEMV: diagonal real parts); eps is the
 *  routine's unit roundoff (FLT_EPSILON or DBL_EPSILON). y0 is y before the
 *  call (not read when beta is 0). NULL on bad arguments or no memory. */
double *symv_residual_scale(symv_routine r, char uplo, int n, const void *alpha, const void *A, int lda,
                            const void *x, int incx, const void *beta, const void *y0, int incy);

/** symv_residual_scaled: max_i |y_i - yref_i| / scale_i over the n logical
 *  elements of the strided y, yref (stride incy) of routine r; +Inf where
 *  y is NaN or Inf and yref is not. */
double symv_residual_scaled(symv_routine r, int n, int incy, const double *scale, const void *y, const void *yref);

/** symv_residual: the scaled residual of a computed y against a reference
 *  yref, scaled as LAPACK's test routines scale theirs:
 *     max_i |y_i - yref_i| / (n eps (|alpha| (|A||x|)_i + |beta| |y0_i|))
 *  as symv_residual_scale defines it. A correct result is O(1) or below; a
 *  wrong one is O(1/eps). Denominators of 0 (alpha = 0 and beta = 0) use 1
 *  instead (the result must then be zero). Returns -1 on bad arguments.
 *  The elements between strided entries are not looked at (symv_untouched
 *  checks those). */
double symv_residual(symv_routine r, char uplo, int n, const void *alpha, const void *A, int lda, const void *x,
                     int incx, const void *beta, const void *y0, const void *y, const void *yref, int incy);

/** symv_ref_precise: y := alpha*A*x + beta*y0 for routine r computed on
 *  the CPU in more precision than the routine's own, from the same
 *  arguments as symv_ref (uplo 'L' or 'U'; HEMV ignores the imaginary part
 *  of A's diagonal; y0 not read where beta is 0), rounded to double once at
 *  the end, into ref[0..2n): the real and imaginary parts of logical
 *  element i at ref[2i], ref[2i+1] (imaginary parts 0 for real routines).
 *  Float routines (S, C) sum in double, where every product of two floats
 *  is exact; double routines (D, Z) sum in __float128 (IEEE binary128),
 *  where every product of two doubles is exact. Rows are shared out among
 *  OpenMP threads where the build has them. Errors: SYMV_INVALID_VALUE as
 *  symv_check_args (gpu/gpu.h), or r out of range. */
int symv_ref_precise(symv_routine r, char uplo, int n, const void *alpha, const void *A, int lda, const void *x,
                     int incx, const void *beta, const void *y0, int incy, double *ref);

/** symv_relerr: the largest componentwise relative error of a computed y
 *  (n logical elements of routine r, stride incy) against ref (2n doubles,
 *  as symv_ref_precise writes them): max_i |y_i - ref_i| / |ref_i| over
 *  the i with ref_i != 0, in double (|.| of a complex number is its
 *  modulus). +Inf where such a y_i is NaN or Inf; NaN where no ref_i is
 *  nonzero. */
double symv_relerr(symv_routine r, int n, int incy, const void *y, const double *ref);

/** symv_untouched: number of the len elements (of routine r) of buf that
 *  are not part of the strided vector (n elements, stride inc) and differ
 *  bitwise from the element at `poison`: what a call wrote where it must
 *  not. */
long symv_untouched(symv_routine r, const void *buf, long len, int n, int inc, const void *poison);

/** symv_fill_random: fills a[0..len) (elements of routine r; both parts of
 *  complex ones) with uniform values in [-1, 1): xorshift streams, one per
 *  chunk of 65536 numbers, seeded by splitmix64 from *seed and the chunk,
 *  filled by OpenMP threads where the build has them (the values do not
 *  depend on the number of threads). *seed is advanced. Never zeros by
 *  construction. */
void symv_fill_random(symv_routine r, void *a, long len, unsigned long long *seed);

/** symv_set_nan: writes NaN into both parts of element k of buf (elements
 *  of routine r): a poison that any read of it turns into a wrong result. */
void symv_set_nan(symv_routine r, void *buf, long k);

/** symv_ref_scale: y := beta*y over the n logical elements of the strided
 *  y (routine r), y not read where beta is 0: what every routine does when
 *  alpha is 0 (A and x are then not read). */
void symv_ref_scale(symv_routine r, int n, const void *beta, void *y, int incy);

#endif
