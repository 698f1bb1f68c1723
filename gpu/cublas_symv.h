/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cublas_symv.h - the cuBLAS routine of each routine of the registry
 * (core/routine.h), behind one signature, for the baselines, verification
 * and the library's hand-over: cublasSsymv_v2 ... cublasZhemv_v2 take the
 * same arguments, with scalars and data of the routine's type.
 */
#ifndef SYMV_CUBLAS_SYMV_H
#define SYMV_CUBLAS_SYMV_H

#include <cublas_v2.h>
#include "params.h"

/** symv_cublas: calls routine r's cuBLAS function (cublasDsymv_v2 for
 *  dsymv, ...) with uplo 'L' or 'U' and the BLAS arguments (device data;
 *  alpha and beta where the handle's pointer mode says). Returns cuBLAS's
 *  status; CUBLAS_STATUS_INVALID_VALUE for an unknown routine or uplo. */
cublasStatus_t symv_cublas(cublasHandle_t h, symv_routine r, char uplo, int n, const void *alpha, const void *A,
                           int lda, const void *x, int incx, const void *beta, void *y, int incy);

#endif
