/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_w.cu - kernel family "atomic_w": lock-free atomics into a workspace
 * w, y written by the last tile to add to it (doc/method.md section 7),
 * y := alpha*A*x + beta*y in one launch with no waiting anywhere.
 *
 * Tiles are cut as in the atomic_red family (kernels/symv_red.cu), with one
 * row per thread in a group:
 *
 *          c0   c1 = min(n, c0+UX)
 *          |<UX>|        tile (b, k): column block b (columns c0..c1-1),
 *   c0     |\   |  k=0   rows r0 = c0 + k*H .. r1-1, H = G*BLOCK_SIZE
 *          | \  |        (G groups of BLOCK_SIZE rows, chosen at launch by
 *   r0     |====|  k     gpu/gpu.c). Thread t takes rows r0+t,
 *          |====|        r0+t+BLOCK_SIZE, ..., UX loads each in MX order,
 *   n-1    |____|        adds each row's sum as it goes and keeps cdot[UX]
 *                        (its share of the column dots) for the tile. The
 * first row's loads are issued before anything else, x's included, so that a
 * tile's first wait is for its matrix data: at small n the whole product is
 * one wave of tiles and its time is a few memory latencies.
 *
 * What differs is where the sums go. atomic_red adds into y and so must have
 * y scaled by beta first, which makes tiles wait for one another; here every
 * partial sum goes with atomicAdd (red.global.add.f64 for DSYMV) into w,
 * which is zero between calls, and no tile ever waits. y is cut into
 * segments of SEG = 32 rows (SYMV_SEG, kernels/symv_limits.h, shared with
 * the host), each with a 64-bit counter cnt[s], also zero between calls. Each
 * tile, after its additions and a fence, adds to the counter of every
 * segment it added to the number of matrix elements it summed into it: row
 * i's share of a tile counts the tile's columns j <= i, column j's dot counts
 * the tile's rows i > j. Over all tiles row i receives (i+1) + (n-1-i) = n
 * of them, so segment s is complete when its counter reaches rows(s) * n. The
 * tile whose addition completes it (atomicAdd returns the old value) fences
 * and writes y := alpha*w + beta*y for those rows (y not read when beta = 0,
 * BLAS semantics), and leaves w and cnt zero for the next call. Exactly one
 * tile completes each segment, and no other touches it afterwards in the
 * same call. alpha = 0 scales y and reads neither A nor x.
 *
 * Summation order varies from run to run (atomics), as in cuBLAS's atomics
 * mode.
 *
 * Every routine (SYMV_ROUTINE, kernels/symv_scalar.cuh): w, y, xs and the
 * sums are of the element type symv_t, a complex addition to w is two
 * atomic additions (one per part; the counters count matrix elements, not
 * additions, so they are unchanged); the column dots add the mirrored
 * element (conj for HEMV), the diagonal counts its real part only for HEMV
 * (symv_row_load / symv_row_fma, symv_common.cuh).
 */
#include "symv_common.cuh"
#include "symv_limits.h" /* SYMV_SEG: rows per segment of y, as the host counts them */

typedef unsigned long long symv_ull;

/* Elements that rows p..q-1 (c0 <= p <= q) of a tile of columns c0..c0+wd-1
 * sum into their row shares: sum over i of min(i - c0 + 1, wd). */
static __device__ __forceinline__ long long symv_row_weight(int c0, int wd, int p, int q)
{
  long long m1 = q - c0, m0 = p - c0;
  long long f1 = m1 <= wd ? m1 * (m1 + 1) / 2 : (long long)wd * (wd + 1) / 2 + (m1 - wd) * wd;
  long long f0 = m0 <= wd ? m0 * (m0 + 1) / 2 : (long long)wd * (wd + 1) / 2 + (m0 - wd) * wd;
  return f1 - f0;
}

/* Elements that columns p..q-1 sum into their column dots in a tile of rows
 * r0..r1-1: sum over j of the rows i > j. */
static __device__ __forceinline__ long long symv_col_weight(int r0, int r1, int p, int q)
{
  long long s = 0;
  for (int j = p; j < q; j++) {
    const int lo = max(r0, j + 1);
    if (r1 > lo) s += r1 - lo;
  }
  return s;
}

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const symv_t *__restrict__ A, int rs, symv_ll cs,
                 const symv_t *__restrict__ x, symv_ll incx, symv_t *y, symv_ll incy,
                 symv_t alpha, symv_t beta, const symv_t *dalpha, const symv_t *dbeta,
                 symv_t *w, symv_ull *cnt, int nblk, int groups)
{
  __shared__ symv_t xs[UX];
  __shared__ symv_t red[SYMV_NWARPS * UX];
  __shared__ symv_t cd[UX];
  __shared__ int fin[BLOCK_SIZE];
  __shared__ int nfin;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int H = groups * BLOCK_SIZE;

  SYMV_ENTER_OR_SCALE();
  int c0, r0;
  if (!symv_tile_of_block(n, nblk, H, &c0, &r0)) return;
  const int r1 = min(n, r0 + H), c1 = min(n, c0 + UX);

  /* the first group's row: its loads go out before anything waits */
  symv_t cdot[UX], ai0[UX];
  const int i0 = r0 + t;
  const symv_t xi0 = symv_row_first(A, rs, cs, x, incx, c0, i0, r1, ai0);
  if (t < UX) xs[t] = (c0 + t < n) ? x[(symv_ll)(c0 + t) * incx] : symv_zero();
#pragma unroll
  for (int kk = 0; kk < UX; kk++) cdot[kk] = symv_zero();
  __syncthreads();
  if (i0 < r1) symv_atomic_add(w + i0, symv_row_fma(c0, i0, xi0, ai0, xs, cdot));
#pragma unroll 2
  for (int g = 1; g < groups; g++) {
    const int i = r0 + g * BLOCK_SIZE + t;
    if (i >= r1) break;
    symv_atomic_add(w + i, symv_row(A, rs, cs, c0, i, x[(symv_ll)i * incx], xs, cdot));
  }
  symv_reduce_cdot(cdot, red, cd);
  if (t < UX && c0 + t < c1) symv_atomic_add(w + c0 + t, cd[t]);
  __threadfence(); /* this thread's additions are performed before the counts below */
  __syncthreads();

  /* the segments added to: the rows' a0..a1, then the column dots' b0..b1 */
  const int a0 = r0 / SYMV_SEG, a1 = (r1 - 1) / SYMV_SEG;
  const int b0 = c0 / SYMV_SEG, b1 = (c1 - 1) / SYMV_SEG;
  const int na = a1 - a0 + 1, tot = na + (b1 - b0 + 1);
  for (int from = 0; from < tot; from += BLOCK_SIZE) {
    if (t == 0) nfin = 0;
    __syncthreads();
    const int idx = from + t;
    if (idx < tot) {
      const int s = idx < na ? a0 + idx : b0 + (idx - na);
      const int lo = s * SYMV_SEG, hi = min(n, lo + SYMV_SEG);
      const long long wt = idx < na ? symv_row_weight(c0, c1 - c0, max(lo, r0), min(hi, r1))
                                    : symv_col_weight(r0, r1, max(lo, c0), min(hi, c1));
      if (wt > 0) {
        const symv_ull need = (symv_ull)(hi - lo) * (symv_ull)n;
        if (atomicAdd(cnt + s, (symv_ull)wt) + (symv_ull)wt == need) fin[atomicAdd(&nfin, 1)] = s;
      }
    }
    __syncthreads();
    const int nf = nfin;
    if (nf > 0) {
      __threadfence(); /* every other tile's additions to these segments are visible */
      for (int f = warp; f < nf; f += SYMV_NWARPS) {
        const int s = fin[f], i = s * SYMV_SEG + lane;
        if (i < n) {
          symv_t *p = y + (symv_ll)i * incy;
          const symv_t v = symv_ldcg(w + i), yi = *p; /* both loads in flight; yi unused when beta = 0 */
          w[i] = symv_zero();
          *p = symv_y_value(alpha, v, beta, yi);
        }
        if (lane == 0) cnt[s] = 0;
      }
    }
    __syncthreads();
  }
}
