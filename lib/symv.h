/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv.h - libsymv, the SYMV and HEMV routines that `symvtune build`
 * generates for one GPU: y := alpha*A*x + beta*y with A an n-by-n symmetric
 * (SSYMV, DSYMV, CSYMV, ZSYMV) or Hermitian (CHEMV, ZHEMV) matrix of which
 * one triangle is stored, column-major, on a cuBLAS handle, as
 * cublasSsymv_v2 ... cublasZhemv_v2.
 *
 * A call picks its kernel by n from the rules symvtune fitted for its
 * routine on the tuned GPU (one of its own candidates, or cuBLAS with
 * atomics off or on); a routine that was not tuned, and every call on a GPU
 * of another name, compute capability or SM count, goes to cuBLAS. A
 * library built with `symvtune build --wisdom` has no rules of its own: it
 * reads wisdom files ($SYMV_WISDOM, then its system folder DIR/share/symv)
 * at run time and on each GPU uses the file of that GPU model (man
 * symv-wisdom(5)). The
 * library also exports the six cuBLAS entry points itself, so that a
 * program linked with -lsymv before -lcublas (or run with
 * LD_PRELOAD=libsymv.so) gets them without a change. man libsymv(3) has
 * the details.
 *
 * Proof that it is in use: SYMV_LOG=1 in the environment logs every call
 * (routine, n, uplo, what served it and why) on stderr, or in the file
 * SYMV_LOG_FILE names, after a first line that names the library's rules
 * (symvInfo.identity); symvGetInfo() reports what the library carries.
 *
 * Link: pkg-config --cflags --libs libsymv, or CMake's find_package(symv)
 * and the target symv::symv: both keep libsymv against --as-needed and put
 * it before cuBLAS (by hand: -Wl,--push-state,--no-as-needed -lsymv
 * -Wl,--pop-state -lcublas -lcudart).
 */
#ifndef SYMV_H
#define SYMV_H

#include <cublas_v2.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version: libsymv.so.MAJOR.MINOR.PATCH, SONAME
 * libsymv.so.MAJOR. A program built against one major version runs with
 * any later minor or patch of it; symvGetInfo() says which one it runs. */
#define SYMV_VERSION_MAJOR 0
#define SYMV_VERSION_MINOR 1
#define SYMV_VERSION_PATCH 0

#if defined(__GNUC__)
#define SYMV_API __attribute__((visibility("default")))
#else
#define SYMV_API
#endif

/**
 * symvSsymv, symvDsymv, symvCsymv, symvZsymv, symvChemv, symvZhemv:
 * y := alpha*A*x + beta*y, with the arguments, semantics and return codes
 * of cublasSsymv_v2 ... cublasZhemv_v2 (scalars and data of the routine's
 * type: float, double, cuComplex, cuDoubleComplex). HEMV does not read the
 * imaginary parts of A's diagonal.
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
SYMV_API cublasStatus_t symvSsymv(cublasHandle_t handle, cublasFillMode_t uplo, int n, const float *alpha,
                                  const float *A, int lda, const float *x, int incx, const float *beta, float *y,
                                  int incy);
SYMV_API cublasStatus_t symvDsymv(cublasHandle_t handle, cublasFillMode_t uplo, int n, const double *alpha,
                                  const double *A, int lda, const double *x, int incx, const double *beta, double *y,
                                  int incy);
SYMV_API cublasStatus_t symvCsymv(cublasHandle_t handle, cublasFillMode_t uplo, int n, const cuComplex *alpha,
                                  const cuComplex *A, int lda, const cuComplex *x, int incx, const cuComplex *beta,
                                  cuComplex *y, int incy);
SYMV_API cublasStatus_t symvZsymv(cublasHandle_t handle, cublasFillMode_t uplo, int n, const cuDoubleComplex *alpha,
                                  const cuDoubleComplex *A, int lda, const cuDoubleComplex *x, int incx,
                                  const cuDoubleComplex *beta, cuDoubleComplex *y, int incy);
SYMV_API cublasStatus_t symvChemv(cublasHandle_t handle, cublasFillMode_t uplo, int n, const cuComplex *alpha,
                                  const cuComplex *A, int lda, const cuComplex *x, int incx, const cuComplex *beta,
                                  cuComplex *y, int incy);
SYMV_API cublasStatus_t symvZhemv(cublasHandle_t handle, cublasFillMode_t uplo, int n, const cuDoubleComplex *alpha,
                                  const cuDoubleComplex *A, int lda, const cuDoubleComplex *x, int incx,
                                  const cuDoubleComplex *beta, cuDoubleComplex *y, int incy);

/**
 * symvLastKernel: what served this host thread's last call of any of the
 * routines through libsymv: the kernel's name (e.g.
 * "zhemv_pipe_b256_u64_x0", named by its routine and code parameters), "cublas"
 * (cuBLAS with atomics not allowed, or any call handed to cuBLAS untouched:
 * an untuned GPU, a kernel that cannot run there), "cublas_atomics" (cuBLAS
 * with atomics allowed for the call), or "" when the last call launched
 * nothing (an argument error, n = 0) or there was none. Thread-local; the
 * string stays valid until this thread's next call. Never NULL.
 */
SYMV_API const char *symvLastKernel(void);

/** Indices of symvInfo.rules, n_lo and n_hi: one per routine. */
enum {
  SYMV_INFO_SSYMV,
  SYMV_INFO_DSYMV,
  SYMV_INFO_CSYMV,
  SYMV_INFO_ZSYMV,
  SYMV_INFO_CHEMV,
  SYMV_INFO_ZHEMV,
  SYMV_INFO_ROUTINES /* their number, 6 */
};

/** What symvGetInfo reports: the library's version and what it carries. */
typedef struct {
  int version_major;          /* SYMV_VERSION_MAJOR of the library running (the SONAME's number) */
  int version_minor;
  int version_patch;
  const char *version;        /* "0.1.0" */
  const char *tuned_gpu;      /* name of the GPU the rules were tuned on (cudaDeviceProp.name) */
  int tuned_cc_major;         /* its compute capability */
  int tuned_cc_minor;
  int tuned_sm_count;         /* its streaming multiprocessors */
  const char *arch;           /* architecture the kernels are compiled for, "sm_90" */
  int rules[SYMV_INFO_ROUTINES]; /* dispatch rules per routine; 0: untuned, every call goes to cuBLAS */
  int n_lo[SYMV_INFO_ROUTINES];  /* first n of a routine's rules, elements (0 if untuned; smaller n take the first rule) */
  int n_hi[SYMV_INFO_ROUTINES];  /* last n of them (0 if untuned; larger n take the last rule) */
  int det_rules[SYMV_INFO_ROUTINES]; /* deterministic rules per routine (what handles in cuBLAS's default atomics
                                        mode get); 0: such calls go to cuBLAS */
  int candidates;             /* kernels (candidates) the library carries, all routines, both rule sets */
  int device;                 /* the current CUDA device, -1 if there is none (no GPU, no driver) */
  int device_matched;         /* 1: it is the tuned GPU (name, compute capability, SM count), so the rules
                                 apply; 0: another GPU, every call goes to cuBLAS; -1: no device to look at */
  /* since 0.1 with symvGetInfo_v2: wisdom files */
  int wisdom;                 /* 1: a library built with `symvtune build --wisdom`, whose rules come from the
                                 wisdom files it reads at run time; 0: rules compiled in (the fields below are
                                 0, "" or NULL) */
  int wisdom_files;           /* files the search path offered ($SYMV_WISDOM, then wisdom_dir) */
  int wisdom_accepted;        /* of them, those accepted */
  const char *wisdom_report;  /* what became of each, one line each: "PATH: accepted: GPU (sm_XY, N SMs), K rule
                                 sets, rules RULES_ID", "PATH: refused: WHY", "skipped ENTRY: WHY", and of each
                                 device looked at and each kernel refused (lines are added as devices and
                                 kernels are first used); "" if nothing */
  const char *wisdom_matched; /* the file whose rules serve the current device; NULL if none matches (its calls
                                 go to cuBLAS). The tuned_* fields, arch, rules, n_lo, n_hi, det_rules and
                                 candidates are then that file's (0 and "" when none) */
  const char *wisdom_dir;     /* the system folder, searched after $SYMV_WISDOM */
  /* since 0.1 with symvGetInfo_v3 (what symvGetInfo names): the library's identity, which tells two libraries
     of one version apart */
  const char *symvtune_version; /* version of the symvtune that generated the library */
  int cuda_major;             /* CUDA major version the library was compiled with (CUDART_VERSION / 1000) */
  const char *rules_id;       /* 12 hexadecimal digits that identify the rules: the same GPU, n ranges and
                                 kernels give the same id (man libsymv(3), IDENTITY); those compiled in, or a
                                 --wisdom library's of wisdom_matched ("" when none matches) */
  const char *fits;           /* the fits the rules come from, one line: "dsymv fit 12 (DATE, cold, uplo L,
                                 n 32..4000), deterministic fit 13 (...); ..." (ids of the database's fit
                                 table); a --wisdom library's of wisdom_matched ("" when none matches) */
  const char *identity;       /* the library's identity line, which `strings libsymv.so.0 | grep
                                 symvtune-rules:` finds in the file and SYMV_LOG writes first: "symvtune-rules:
                                 rules RULES_ID of GPU (sm_XY, N SMs), kernels for ARCH; symvtune V;
                                 CUDART_VERSION N; fits FITS", or "symvtune-rules: wisdom files read at run
                                 time; symvtune V; CUDART_VERSION N" */
} symvInfo;

/**
 * symvGetInfo: fills *info with the library's version, the GPU its rules
 * were tuned for, the number of rules of each routine (and the n they
 * span; its deterministic rules apart), and whether the current CUDA device is that GPU. The strings are
 * the library's own and stay valid while it is loaded. Looks at the current
 * device (cudaGetDevice, and its properties on the first look) but prepares
 * nothing and needs no GPU: with none, device is -1. A --wisdom library
 * reads its wisdom files (once) and reports what became of them, the file
 * the current device matches, and that file's GPU and rules.
 *
 * The identity fields say what generated the library and from which
 * rules (symvtune_version, cuda_major, rules_id, fits, identity).
 *
 * symvGetInfo is a macro for symvGetInfo_v3, as cuBLAS names its _v2
 * entry points: a program built against an older symv.h calls the entry
 * point of its symvInfo, which fills that much only: symvGetInfo (a
 * symvInfo that ends at device_matched) or symvGetInfo_v2 (one that ends
 * at wisdom_dir).
 *
 * Returns CUBLAS_STATUS_SUCCESS, or CUBLAS_STATUS_INVALID_VALUE for a NULL
 * info. Thread-safe.
 */
SYMV_API cublasStatus_t symvGetInfo_v3(symvInfo *info);
#define symvGetInfo symvGetInfo_v3

#ifdef __cplusplus
}
#endif

#endif
