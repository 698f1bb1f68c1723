/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routine.h - the registry of the routines symvtune tunes: the six that
 * cuBLAS offers for y := alpha*A*x + beta*y with A symmetric or Hermitian.
 *
 *   routine  BLAS    scalar           element  A is
 *   ssymv    SSYMV   float            4 bytes  symmetric
 *   dsymv    DSYMV   double           8        symmetric
 *   csymv    CSYMV   float complex    8        complex symmetric (A = A^T)
 *   zsymv    ZSYMV   double complex  16        complex symmetric
 *   chemv    CHEMV   float complex    8        Hermitian (A = A^H)
 *   zhemv    ZHEMV   double complex  16        Hermitian
 *
 * HEMV reads only the stored triangle; the mirrored element is the
 * conjugate of the stored one and the imaginary part of the diagonal is not
 * referenced and taken as zero (reference BLAS ZHEMV). Complex scalars are
 * pairs (real, imaginary) of the real type, laid out as cuComplex and
 * cuDoubleComplex are.
 *
 * Every stage reads this table (and the family table, params.h); none names
 * a precision. A family that cannot serve a routine says so here
 * (symv_routine_serves), not in a switch at its call sites.
 */
#ifndef SYMV_ROUTINE_H
#define SYMV_ROUTINE_H

#include <stddef.h>
#include "params.h"

/* symv_routine is declared in params.h (a candidate names its routine). */

/** What a routine is: every per-precision fact the pipeline needs. */
typedef struct {
  symv_routine id;
  const char *name;      /* "zhemv": the key in databases, --routine, kernel names */
  const char *blas;      /* "ZHEMV": the BLAS name, for messages and tables */
  const char *cublas;    /* "cublasZhemv_v2": the cuBLAS entry point it replaces */
  const char *api;       /* "symvZhemv": libsymv's own entry point */
  const char *c_scalar;  /* "cuDoubleComplex": the scalar type of the cuBLAS prototype */
  int elem_bytes;        /* bytes of one element of A, x, y (4, 8 or 16) */
  int real_bytes;        /* bytes of its real type (4 or 8) */
  int is_complex;        /* 1 for c/z routines */
  int hermitian;         /* 1 for HEMV */
  double eps;            /* unit roundoff of the real type: FLT_EPSILON or DBL_EPSILON */
} symv_routine_info;

/** SYMV_ROUTINE_NAMES: the names in canonical (BLAS) order, for messages and
 *  --help texts (a literal, so that it joins other literals). */
#define SYMV_ROUTINE_NAMES "ssymv, dsymv, csymv, zsymv, chemv, zhemv"

/** symv_routine_get: the registry entry of r; NULL if r is out of range. */
const symv_routine_info *symv_routine_get(symv_routine r);

/** symv_routine_order: the i-th routine (0 <= i < SYMV_ROUTINE_COUNT) in
 *  canonical order ssymv, dsymv, csymv, zsymv, chemv, zhemv, in which lists
 *  of routines are walked and printed. */
symv_routine symv_routine_order(int i);

/** symv_routine_name: "zhemv"; "unknown" for a value out of range. Never NULL. */
const char *symv_routine_name(symv_routine r);

/** symv_routine_parse: the routine named s (lower or upper case, "zhemv" or
 *  "ZHEMV"). Errors: SYMV_INVALID_VALUE (no such routine). */
int symv_routine_parse(const char *s, symv_routine *out);

/** symv_routine_parse_list: a comma-separated list of routine names, or
 *  "all" for the six, into sel[r] = 1 for each routine named (sel has
 *  SYMV_ROUTINE_COUNT entries, cleared first). Errors: SYMV_INVALID_VALUE
 *  with the offending word in err (an unknown name, an empty item). */
int symv_routine_parse_list(const char *s, int sel[SYMV_ROUTINE_COUNT], char *err, size_t errlen);

/** symv_routine_flops: floating-point operations of one call at order n
 *  (LAPACK's operation counts, lawn41: xSYMV 2n^2; a complex multiply-add is
 *  four real multiplies and four real adds, so complex routines count
 *  8n^2). */
double symv_routine_flops(symv_routine r, int n);

/** symv_routine_bytes: bytes of the stored triangle, n(n+1)/2 elements of
 *  elem_bytes each: the least traffic of any SYMV, the numerator of every
 *  GB/s figure (gpu/timing.h). */
double symv_routine_bytes(symv_routine r, int n);

/** symv_gflops: routine r's flops of one call at order n
 *  (symv_routine_flops) over t_us microseconds: GFLOPS. */
double symv_gflops(symv_routine r, int n, double t_us);

/** symv_gbs: the stored triangle's bytes (symv_routine_bytes) over t_us
 *  microseconds: GB/s (1e9 bytes per second), the one bandwidth formula of
 *  the program; its "% of the copy rate" is this over the measured
 *  device-to-device copy rate. */
double symv_gbs(symv_routine r, int n, double t_us);

/** symv_routine_serves: nonzero if kernel family f can compute routine r
 *  (every tunable family serves all six, kernels/symv_scalar.cuh; the floor
 *  and fault kernels serve every routine too, as they compute nothing
 *  routine-specific). */
int symv_routine_serves(symv_routine r, symv_family f);

/** symv_problem_bytes: the bytes one problem of routine r at order n with
 *  leading dimension lda takes: A (lda * n elements) and x, y and a copy of
 *  y (n elements each), elem_bytes each, into *bytes. 0 if they fit size_t
 *  and, where mem_bytes > 0, mem_bytes (a device's memory, bytes); else
 *  SYMV_INVALID_VALUE (n < 1, lda < n, or a product that overflows) or
 *  SYMV_NO_MEMORY (more than mem_bytes), with the reason in why (len bytes),
 *  so that no allocation is sized by a product that wrapped. */
int symv_problem_bytes(symv_routine r, long long n, long long lda, size_t mem_bytes, size_t *bytes, char *why,
                       size_t len);

/** symv_scalar_is_zero, symv_scalar_is_one: whether the scalar at p (one
 *  element of routine r, host memory) is 0, or 1 (real part 1, imaginary 0). */
int symv_scalar_is_zero(symv_routine r, const void *p);
int symv_scalar_is_one(symv_routine r, const void *p);

/** symv_scalar_format: the scalar at p as text, "0.5" or "(0.5,-0.25)". */
void symv_scalar_format(symv_routine r, const void *p, char *buf, size_t len);

/** symv_scalar_set: writes re (+ im i for complex routines; im is ignored
 *  for real ones) as one element of routine r at p (elem_bytes bytes). */
void symv_scalar_set(symv_routine r, void *p, double re, double im);

#endif
