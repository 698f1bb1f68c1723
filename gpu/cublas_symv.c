/* SPDX-License-Identifier: BSD-3-Clause */
/* cublas_symv.c - one signature for cuBLAS's six routines (cublas_symv.h). */
#include <ctype.h>
#include "cublas_symv.h"

typedef cublasStatus_t (*symv_cublas_fn)(cublasHandle_t, cublasFillMode_t, int, const void *, const void *, int,
                                         const void *, int, const void *, void *, int);

/* One wrapper per routine, so that each call goes through its own
 * prototype (no cast of a function pointer to another type). */
#define SYMV_CUBLAS_WRAP(fn, T)                                                                                   \
  static cublasStatus_t wrap_##fn(cublasHandle_t h, cublasFillMode_t u, int n, const void *alpha, const void *A, \
                                  int lda, const void *x, int incx, const void *beta, void *y, int incy)       \
  {                                                                                                               \
    return fn(h, u, n, (const T *)alpha, (const T *)A, lda, (const T *)x, incx, (const T *)beta, (T *)y, incy);  \
  }
SYMV_CUBLAS_WRAP(cublasSsymv_v2, float)
SYMV_CUBLAS_WRAP(cublasDsymv_v2, double)
SYMV_CUBLAS_WRAP(cublasCsymv_v2, cuComplex)
SYMV_CUBLAS_WRAP(cublasZsymv_v2, cuDoubleComplex)
SYMV_CUBLAS_WRAP(cublasChemv_v2, cuComplex)
SYMV_CUBLAS_WRAP(cublasZhemv_v2, cuDoubleComplex)

static const symv_cublas_fn table[SYMV_ROUTINE_COUNT] = {
    [SYMV_SSYMV] = wrap_cublasSsymv_v2, [SYMV_DSYMV] = wrap_cublasDsymv_v2, [SYMV_CSYMV] = wrap_cublasCsymv_v2,
    [SYMV_ZSYMV] = wrap_cublasZsymv_v2, [SYMV_CHEMV] = wrap_cublasChemv_v2, [SYMV_ZHEMV] = wrap_cublasZhemv_v2,
};

cublasStatus_t symv_cublas(cublasHandle_t h, symv_routine r, char uplo, int n, const void *alpha, const void *A,
                           int lda, const void *x, int incx, const void *beta, void *y, int incy)
{
  const char u = (char)toupper((unsigned char)uplo);
  if ((unsigned)r >= SYMV_ROUTINE_COUNT || (u != 'L' && u != 'U')) return CUBLAS_STATUS_INVALID_VALUE;
  return table[r](h, u == 'L' ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER, n, alpha, A, lda, x, incx, beta, y,
                  incy);
}
