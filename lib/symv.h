/*
 * symv.h - libsymv, the DSYMV that `symvtune build` generates for one GPU:
 * y := alpha*A*x + beta*y with A an n-by-n symmetric matrix of which one
 * triangle is stored, column-major, on a cuBLAS handle, as cublasDsymv.
 *
 * A call picks its kernel by n from the rules symvtune fitted on the tuned
 * GPU (one of its own candidates, or cuBLAS with atomics off or on); on a
 * GPU of another name, compute capability or SM count every call goes to
 * cuBLAS. The library also exports cublasDsymv_v2 itself, so that a program
 * linked with -lsymv before -lcublas (or run with LD_PRELOAD=libsymv.so)
 * gets it without a change. man libsymv(3) has the details.
 *
 * Link: pkg-config --cflags --libs libsymv (or -lsymv -lcublas -lcudart).
 */
#ifndef SYMV_H
#define SYMV_H

#include <cublas_v2.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SYMV_API __attribute__((visibility("default")))
#else
#define SYMV_API
#endif

/**
 * symvDsymv: y := alpha*A*x + beta*y, with the arguments, semantics and
 * return codes of cublasDsymv_v2.
 *
 * handle: a cuBLAS handle; the call runs on its stream (cublasSetStream) on
 *   the current device, asynchronously, and reads alpha and beta from host
 *   or device memory by its pointer mode (cublasSetPointerMode).
 * uplo: CUBLAS_FILL_MODE_LOWER or _UPPER, the stored triangle of A.
 * n: order of A, elements (>= 0).
 * A: device pointer, n-by-n column-major with leading dimension lda >=
 *   max(1, n); only the uplo triangle is read.
 * x, y: device vectors of n elements with strides incx, incy (nonzero; a
 *   negative stride walks backwards from the end, as in reference BLAS).
 * alpha = 0: A and x are not read; beta = 0: y is not read (NaN there does
 *   not propagate).
 *
 * Returns CUBLAS_STATUS_SUCCESS; CUBLAS_STATUS_NOT_INITIALIZED for a NULL
 * handle; CUBLAS_STATUS_INVALID_VALUE for a bad uplo, n < 0, lda <
 * max(1, n) (lda = 0 with n = 0 is accepted, as cuBLAS does), incx = 0 or
 * incy = 0 (these are checked before the handle or the GPU is touched:
 * nothing is read or written), and for NULL alpha or beta when n > 0
 * (where cuBLAS 13 crashes); CUBLAS_STATUS_ALLOC_FAILED when the workspace cannot be
 * allocated; CUBLAS_STATUS_EXECUTION_FAILED when a kernel cannot be
 * launched; CUBLAS_STATUS_NOT_SUPPORTED when a call bound for cuBLAS finds
 * no cuBLAS to call; otherwise what cuBLAS returns for calls it serves.
 * n = 0 returns CUBLAS_STATUS_SUCCESS at once.
 *
 * Thread-safe: any number of host threads, handles, streams and devices.
 * The kernels of the atomic families add in an order that may change from
 * run to run (as cuBLAS's atomics mode does): the last bits of y may differ
 * between runs.
 */
SYMV_API cublasStatus_t symvDsymv(cublasHandle_t handle, cublasFillMode_t uplo, int n, const double *alpha,
                                  const double *A, int lda, const double *x, int incx, const double *beta, double *y,
                                  int incy);

/**
 * symvLastKernel: what served this host thread's last call of symvDsymv or
 * cublasDsymv_v2 through libsymv: the kernel's name (e.g.
 * "symv_atomic_red_b64_u16_x1", named by its code parameters), "cublas"
 * (cuBLAS with atomics not allowed, or any call handed to cuBLAS untouched:
 * an untuned GPU, a kernel that cannot run there), "cublas_atomics" (cuBLAS
 * with atomics allowed for the call), or "" when the last call launched
 * nothing (an argument error, n = 0) or there was none. Thread-local; the
 * string stays valid until this thread's next call. Never NULL.
 */
SYMV_API const char *symvLastKernel(void);

#ifdef __cplusplus
}
#endif

#endif
