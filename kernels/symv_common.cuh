/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_common.cuh - pieces shared by both SYMV kernel families.
 *
 * Index convention (both families, both uplo). The kernels see the matrix as
 * LOWER-stored in "logical" indices 0..n-1: element (i, j), i >= j, sits at
 * A[i*rs + j*cs], vector element k at x[k*incx] and y[k*incy]. The host
 * (src/launch.c) maps the BLAS arguments onto this:
 *   uplo = lower: A as given, rs = 1, cs = lda; x, y start at BLAS element 0.
 *   uplo = upper: logical k is BLAS element n-1-k, so the stored upper
 *                 triangle reads as a lower one walked backwards:
 *                 A + (n-1)(1+lda), rs = -1, cs = -lda, incx -> -incx.
 * Negative increments are pre-offset the reference-BLAS way, so every
 * pointer given to a kernel addresses logical element 0.
 *
 * Compile-time parameters (NVRTC -D or nvcc -D):
 *   BLOCK_SIZE  threads per block (multiple of 32)
 *   UX          columns per block
 *   MX          load order, kernels/symv_mx.h
 *   SYMV_KERNEL_NAME  the entry point's name, e.g. symv_atomic_b128_u16_x0
 *   SYMV_ROUTINE  ssymv dsymv csymv zsymv chemv zhemv (default dsymv): the
 *               element type symv_t and its arithmetic, kernels/
 *               symv_scalar.cuh. Every data pointer and scalar of a kernel
 *               is symv_t; a stored a(i,j) enters column j's sum (the
 *               mirrored A(j,i)) as symv_mirror(a) (conj for HEMV) and a
 *               diagonal element as symv_diag(a) (real part only for HEMV).
 */
#ifndef SYMV_COMMON_CUH
#define SYMV_COMMON_CUH

#include "symv_mx.h"
#include "symv_scalar.cuh"

#if !defined(BLOCK_SIZE) || !defined(UX) || !defined(MX) || !defined(SYMV_KERNEL_NAME)
#error "BLOCK_SIZE, UX, MX and SYMV_KERNEL_NAME must be defined"
#endif
#if BLOCK_SIZE % 32 != 0 || BLOCK_SIZE < 32 || BLOCK_SIZE > 1024
#error "BLOCK_SIZE must be a multiple of 32 in 32..1024"
#endif
#if UX < 1 || UX > 128
#error "UX must be in 1..128"
#endif
#if MX < 0 || MX >= SYMV_MX_COUNT
#error "MX out of range"
#endif

#define SYMV_NWARPS (BLOCK_SIZE / 32)

typedef long long symv_ll;

/* alpha*v + beta*yold: the value symv_store_y stores, for a kernel that
 * read y(i) ahead into yold (unused when beta == 0). */
static __device__ __forceinline__ symv_t symv_y_value(symv_t alpha, symv_t v, symv_t beta, symv_t yold)
{
  const symv_t av = symv_mul(alpha, v);
  return symv_is_zero(beta) ? av : symv_fma(beta, yold, av);
}

/* y(i) := alpha*v + beta*y(i); y is not read when beta == 0, so a NaN in y
 * cannot leak (BLAS semantics). */
static __device__ __forceinline__ void symv_store_y(symv_t *y, symv_ll incy, int i,
                                                    symv_t alpha, symv_t v, symv_t beta)
{
  symv_t *p = y + (symv_ll)i * incy;
  const symv_t av = symv_mul(alpha, v);
  *p = symv_is_zero(beta) ? av : symv_fma(beta, *p, av);
}

/* alpha == 0: y := beta*y (A and x are not read), grid-stride over rows,
 * symv_scale_elem (kernels/symv_scalar.cuh). beta == 1 leaves y untouched. */
static __device__ void symv_scale_y(int n, symv_t *y, symv_ll incy, symv_t beta)
{
  if (symv_is_one(beta)) return;
  for (int i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += gridDim.x * BLOCK_SIZE)
    symv_scale_elem(y + (symv_ll)i * incy, beta);
}

/*
 * One row of one column block (the inner loop of doc/method.md section 1), in
 * two steps so that a kernel can issue a row's loads before it waits for
 * anything else (symv_row does both at once).
 * symv_row_load: thread's row i (c0 <= i < n) against the block's columns
 * c0..c0+UX-1 (those < n and <= i): a[k] := a(i, c0+k), 0 for the others,
 * loads issued in MX order.
 */
static __device__ __forceinline__ void symv_row_load(const symv_t *__restrict__ A, int rs, symv_ll cs, int c0,
                                                     int i, symv_t (&a)[UX])
{
  const symv_t *Ai = A + (symv_ll)i * rs + (symv_ll)c0 * cs;
  if (i >= c0 + UX) {           /* strictly below the block's diagonal tile */
#pragma unroll
    for (int kk = 0; kk < UX; kk++) {
      const int k = symv_mx_index(MX, UX, kk);
      a[k] = symv_ldg(Ai + (symv_ll)k * cs);
    }
  } else {                      /* the diagonal tile: j <= i only */
#pragma unroll
    for (int kk = 0; kk < UX; kk++) {
      const int k = symv_mx_index(MX, UX, kk);
      if (c0 + k <= i) {
        const symv_t v = symv_ldg(Ai + (symv_ll)k * cs);
        a[k] = c0 + k == i ? symv_diag(v) : v;
      } else {
        a[k] = symv_zero();
      }
    }
  }
}

/* symv_row_fma: with a[] from symv_row_load for row i, returns
 *   sum_k a(i, c0+k) * x(c0+k)        (row i's share: (L+D)x)
 * and adds cdot[k] += mirror(a(i, c0+k)) * x(i) for i > c0+k (column c0+k's
 * dot: Ux, conj for HEMV). xs holds x(c0..c0+UX-1), zero past n; xi is x(i).
 * (The diagonal element came from symv_row_load as symv_diag already.) */
static __device__ __forceinline__ symv_t symv_row_fma(int c0, int i, symv_t xi, const symv_t (&a)[UX],
                                                     const symv_t *xs, symv_t (&cdot)[UX])
{
  symv_t racc = symv_zero();
  if (i >= c0 + UX) {
#pragma unroll
    for (int k = 0; k < UX; k++) {
      racc = symv_fma(a[k], xs[k], racc);
      cdot[k] = symv_fma(symv_mirror(a[k]), xi, cdot[k]);
    }
  } else {
#pragma unroll
    for (int k = 0; k < UX; k++) {
      if (c0 + k <= i) racc = symv_fma(a[k], xs[k], racc);
      if (c0 + k < i) cdot[k] = symv_fma(symv_mirror(a[k]), xi, cdot[k]);
    }
  }
  return racc;
}

/* A tile's first row i (c0 <= i), loads issued at once: a[] as
 * symv_row_load, and x(i) returned; nothing is loaded when i >= r1 (the
 * tile's end), and then 0 is returned and a[] is not to be used. */
static __device__ __forceinline__ symv_t symv_row_first(const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                        const symv_t *__restrict__ x, symv_ll incx, int c0,
                                                        int i, int r1, symv_t (&a)[UX])
{
  if (i >= r1) return symv_zero();
  symv_row_load(A, rs, cs, c0, i, a);
  return x[(symv_ll)i * incx];
}

/* The tile of this block in the atomic_red and atomic_w kernels (the
 * figure in kernels/symv_red.cu): blocks are numbered k-major over nblk
 * column blocks; tile (b, k) has columns c0 = b*UX.. and rows r0 = c0 + k*H
 * .. r0+H-1. Returns 0 if the tile lies wholly below row n - 1 (nothing to
 * do). */
static __device__ __forceinline__ int symv_tile_of_block(int n, int nblk, int H, int *c0, int *r0)
{
  const int b = blockIdx.x % nblk, k = blockIdx.x / nblk;
  *c0 = b * UX, *r0 = *c0 + k * H;
  return *r0 < n;
}

/* Both steps for row i: returns row i's share, adds to cdot (see above). */
static __device__ __forceinline__ symv_t symv_row(const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                  int c0, int i, symv_t xi,
                                                  const symv_t *xs, symv_t (&cdot)[UX])
{
  symv_t a[UX];
  symv_row_load(A, rs, cs, c0, i, a);
  return symv_row_fma(c0, i, xi, a, xs, cdot);
}

/* Sum cdot[k] over the block's threads into out[k] (shared, UX values).
 * red is shared scratch of SYMV_NWARPS*UX elements. Contains barriers: every
 * thread of the block must call it. */
static __device__ __forceinline__ void symv_reduce_cdot(symv_t (&cdot)[UX], symv_t *red, symv_t *out)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < UX; k++) {
    symv_t v = cdot[k];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = symv_add(v, symv_shfl_down(v, off));
    if (lane == 0) red[warp * UX + k] = v;
  }
  __syncthreads();
  if (threadIdx.x < UX) {
    symv_t v = symv_zero();
    for (int w = 0; w < SYMV_NWARPS; w++) v = symv_add(v, red[w * UX + threadIdx.x]);
    out[threadIdx.x] = v;
  }
  __syncthreads();
}

/* Programmatic dependent launch (sm_90 and later; symv_launch, gpu/gpu.c,
 * launches every kernel so): the grid may be launched while the stream's
 * preceding grid is still finishing, so it first waits until that grid has
 * completed and its memory is visible (griddepcontrol.wait, the PTX of
 * cudaGridDependencySynchronize), then lets the next grid of the stream
 * start launching in turn (griddepcontrol.launch_dependents). What it saves
 * is the launch's latency between back-to-back calls (doc/design.md). A
 * no-op in a launch without the attribute and on older GPUs. CUDA C++ Programming
 * Guide, "Programmatic Dependent Launch and Synchronization". */
static __device__ __forceinline__ void symv_grid_dependency()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/* The scalars from device memory in device pointer mode (dalpha, dbeta
 * non-null), else as passed: the kernel's parameters alpha and beta. */
#define SYMV_READ_SCALARS()              \
  do {                                   \
    if (dalpha) alpha = *dalpha;         \
    if (dbeta) beta = *dbeta;            \
  } while (0)

/* A kernel's first statement, before any access to global memory: waits
 * for the preceding grid (symv_grid_dependency), then reads the scalars
 * (device pointer mode when the pointers are non-null). */
#define SYMV_ENTER()                     \
  do {                                   \
    symv_grid_dependency();              \
    SYMV_READ_SCALARS();                 \
  } while (0)

/* A kernel's first statement where alpha = 0 leaves nothing but
 * y := beta*y: SYMV_ENTER, then, when alpha = 0, y scaled by the grid
 * (symv_scale_y; A and x are not read) and a return from the kernel.
 * Reads the kernel's parameters n, y, incy, alpha and beta. */
#define SYMV_ENTER_OR_SCALE()            \
  do {                                   \
    SYMV_ENTER();                        \
    if (symv_is_zero(alpha)) {           \
      symv_scale_y(n, y, incy, beta);    \
      return;                            \
    }                                    \
  } while (0)

#endif
