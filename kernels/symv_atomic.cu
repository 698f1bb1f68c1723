/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_atomic.cu - kernel family "atomic": the atomic-mutex SYMV of
 * Imamura et al. (doc/method.md section 2), y := alpha*A*x + beta*y.
 *
 *            c0      c0+UX                   column block b = blockIdx.x
 *            |<-UX->|                        owns columns c0..c0+UX-1
 *   row 0    .                                 and their stored part
 *            .                                 (rows i >= c0).
 *   c0       |\     |  <- diagonal tile
 *            | \    |
 *   seg s    |==t==>|  thread t takes row i = s*BLOCK_SIZE + t of every
 *            |      |  row segment s from c0's segment down to n-1,
 *   n-1      |______|  issuing its UX loads in MX order.
 *
 * Per row i a thread forms
 *   racc   = sum_k a(i,c0+k) x(c0+k)   -> w(i)          (mirrored, "w" of
 *   cdot_k += a(i,c0+k) x(i)            -> w(c0+k)       the paper's loop)
 * Many blocks add to the same w(i): w is cut into segments of BLOCK_SIZE
 * rows with one mutex each. The block's thread 0 spins on atomicCAS for the
 * segment's mutex, the block adds its BLOCK_SIZE values, fences, and thread 0
 * releases with atomicExch. After the row sweep the block reduces its UX
 * column dots (shuffles + shared memory) and adds them the same way.
 *
 * One launch does the whole call: each segment also has a counter of the
 * additions it has received. The block whose addition completes segment s
 * (the count reaches expected(s), closed form below) writes
 * y(s) := alpha*w(s) + beta*y(s) and zeroes w(s) and the counter, still
 * holding the mutex. The workspace therefore returns to zero after every
 * call and needs no memset between calls (it is zeroed once at allocation).
 *
 * The order in which blocks take a mutex, and so the last bits of y, may
 * change between runs. (The lock-free variant is kernels/symv_red.cu.)
 *
 * Every routine (SYMV_ROUTINE, kernels/symv_scalar.cuh): w, xs and the sums
 * are of the element type symv_t; the column dots add the mirrored element
 * (conj for HEMV), the diagonal counts its real part only for HEMV
 * (symv_row_load / symv_row_fma, symv_common.cuh).
 *
 * Workspace: w[n] elements (symv_t), mutex[nseg] and count[nseg] ints, all zero,
 * nseg = ceil(n / BLOCK_SIZE). Grid: ceil(n / UX) blocks of BLOCK_SIZE
 * threads; dynamic shared memory only enforces MULTIPLICITY.
 */
#include "symv_common.cuh"

/* Additions segment s receives in one call: one per block whose row sweep
 * visits it (blocks with c0 <= hi) plus one per block whose columns
 * intersect it (column dots). */
static __device__ __forceinline__ int symv_seg_expected(int s, int n)
{
  const int lo = s * BLOCK_SIZE;
  const int hi = min((s + 1) * BLOCK_SIZE, n) - 1;
  return (hi / UX + 1) + (hi / UX - lo / UX + 1);
}

/* Adds val to w[wi] (threads with has != 0) as one addition to segment s,
 * then, if that completes the segment, writes its rows of y. Every thread of
 * the block calls it (barriers inside). */
static __device__ __forceinline__ void symv_seg_add(int s, int n, int wi, symv_t val, bool has,
                                                    symv_t *w, int *mutex, int *count,
                                                    symv_t *y, symv_ll incy, symv_t alpha, symv_t beta,
                                                    int *flag)
{
  const int t = threadIdx.x;
  if (t == 0) {
    while (atomicCAS(&mutex[s], 0, 1) != 0) { }
    __threadfence();
  }
  __syncthreads();
  if (has) symv_stcg(&w[wi], symv_add(symv_ldcg(&w[wi]), val));
  __threadfence();
  __syncthreads();
  if (t == 0) {
    const int c = atomicAdd(&count[s], 1) + 1;
    *flag = (c == symv_seg_expected(s, n));
  }
  __syncthreads();
  if (*flag) {
    __threadfence();
    const int i = s * BLOCK_SIZE + t;
    if (i < n) {
      symv_store_y(y, incy, i, alpha, symv_ldcg(&w[i]), beta);
      symv_stcg(&w[i], symv_zero());
    }
    if (t == 0) count[s] = 0;
  }
  if (t == 0) {
    __threadfence();
    atomicExch(&mutex[s], 0);
  }
}

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const symv_t *__restrict__ A, int rs, symv_ll cs,
                 const symv_t *__restrict__ x, symv_ll incx, symv_t *y, symv_ll incy,
                 symv_t alpha, symv_t beta, const symv_t *dalpha, const symv_t *dbeta,
                 symv_t *w, int *mutex, int *count)
{
  __shared__ symv_t xs[UX];
  __shared__ symv_t red[SYMV_NWARPS * UX];
  __shared__ symv_t cd[UX];
  __shared__ int flag;
  const int t = threadIdx.x;

  SYMV_ENTER_OR_SCALE();
  const int c0 = blockIdx.x * UX;
  if (t < UX) xs[t] = (c0 + t < n) ? x[(symv_ll)(c0 + t) * incx] : symv_zero();
  __syncthreads();

  symv_t cdot[UX];
#pragma unroll
  for (int k = 0; k < UX; k++) cdot[k] = symv_zero();

  const int s_hi = (n - 1) / BLOCK_SIZE;
  for (int s = c0 / BLOCK_SIZE; s <= s_hi; s++) {
    const int i = s * BLOCK_SIZE + t;
    const bool mine = i < n && i >= c0;
    symv_t racc = symv_zero();
    if (mine) racc = symv_row(A, rs, cs, c0, i, x[(symv_ll)i * incx], xs, cdot);
    symv_seg_add(s, n, i, racc, mine, w, mutex, count, y, incy, alpha, beta, &flag);
  }

  symv_reduce_cdot(cdot, red, cd);
  const int cend = min(c0 + UX, n) - 1;
  for (int s = c0 / BLOCK_SIZE; s <= cend / BLOCK_SIZE; s++) {
    const int j = c0 + t;
    const bool has = t < UX && j <= cend && j / BLOCK_SIZE == s;
    symv_seg_add(s, n, j, has ? cd[t] : symv_zero(), has, w, mutex, count, y, incy, alpha, beta, &flag);
  }
}
