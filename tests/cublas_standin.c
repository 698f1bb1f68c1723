/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cublas_standin.c - a stand-in for the cuBLAS calls libsymv makes where a
 * rule names cuBLAS, so that tests/test_libsymv.c can watch them without a
 * GPU. A handle is a pointer to a cublasAtomicsMode_t, the handle's atomics
 * mode, which cublasGetAtomicsMode and cublasSetAtomicsMode read and write.
 * cublasDsymv_v2 touches no data: it counts the call and records the
 * handle's atomics mode at the call. Built as a shared library that a test
 * program links after libsymv and before libcublas, so that libsymv's
 * references bind to these definitions and its RTLD_NEXT search for the
 * real cublasDsymv_v2 finds this one.
 */
#include <cublas_v2.h>

int standin_calls;          /* calls of cublasDsymv_v2 */
int standin_mode_seen = -1; /* the handle's atomics mode at the last one; -1 before any */
int standin_sets;           /* calls of cublasSetAtomicsMode */

cublasStatus_t CUBLASWINAPI cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
  if (!handle || !mode) return CUBLAS_STATUS_NOT_INITIALIZED;
  *mode = *(cublasAtomicsMode_t *)(void *)handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode)
{
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_ATOMICS_ALLOWED && mode != CUBLAS_ATOMICS_NOT_ALLOWED) return CUBLAS_STATUS_INVALID_VALUE;
  *(cublasAtomicsMode_t *)(void *)handle = mode;
  standin_sets++;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasDsymv_v2(cublasHandle_t handle, cublasFillMode_t uplo, int n, const double *alpha,
                                           const double *A, int lda, const double *x, int incx, const double *beta,
                                           double *y, int incy)
{
  (void)uplo, (void)n, (void)alpha, (void)A, (void)lda, (void)x, (void)incx, (void)beta, (void)y, (void)incy;
  cublasAtomicsMode_t mode;
  cublasStatus_t st = cublasGetAtomicsMode(handle, &mode);
  if (st != CUBLAS_STATUS_SUCCESS) return st;
  standin_calls++;
  standin_mode_seen = (int)mode;
  return CUBLAS_STATUS_SUCCESS;
}
