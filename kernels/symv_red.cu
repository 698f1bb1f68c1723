/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_red.cu - kernel family "atomic_red": the lock-free variant of the
 * atomic kernel (doc/method.md section 7), y := alpha*A*x + beta*y in one launch
 * with no workspace but a small per-segment state array.
 *
 *          c0   c0+UX
 *          |<UX>|        tile (b, k): column block b (columns c0..c0+UX-1),
 *   c0     |\   |  k=0   rows r0 = c0 + k*H .. r0+H-1, H = G*BLOCK_SIZE
 *          | \  |        (G groups of BLOCK_SIZE rows; G is chosen at
 *   r0     |====|  k     launch, gpu/gpu.c). Thread t takes rows r0+t,
 *          |====|        r0+t+BLOCK_SIZE, ..., UX loads each in MX order,
 *   n-1    |____|        adds each row's share as it goes and keeps
 *                        cdot[UX] (its share of the column dots) for the
 *                        whole tile. The first row's loads are issued before
 *                        anything else, so that they overlap what follows.
 *
 * Tiles are numbered k-major (all k = 0 tiles first) in a 1-D grid of
 * nblk * ceil(n/H) blocks; tiles below row n exit at once. So the work of a
 * column block is cut into pieces of H rows and there are many tiles even
 * for small n, with no tile much longer than another.
 *
 * Every partial sum goes straight into y with atomicAdd (red.global.add.f64
 * for DSYMV: fire and forget), alpha applied. That needs y scaled by beta
 * before the first addition to it, with no second launch and no grid
 * barrier: y is cut into segments of SEG = 32 rows (SYMV_SEG, kernels/
 * symv_limits.h, shared with the host), each with a 64-bit state. Call
 * number E (the workspace's epoch, +1 per call) uses states 2E-1 ("being
 * scaled") and 2E ("scaled"); anything lower is from an earlier call. Each
 * tile, first thing, raises the state of every segment it will add to with
 * atomicMax(state, 2E-1), one thread per segment, and keeps the old value:
 *   old < 2E-1   this thread scales the segment (y := beta*y, or 0 when
 *                beta = 0 without reading y), fences, sets 2E;
 *   old = 2E-1   another tile is scaling it: wait for 2E before adding;
 *   old = 2E     already scaled.
 * The old value is only looked at after the first group's loads, so its
 * latency is hidden; the warp of the winning thread scales the segment
 * together, a lane per row, several segments' loads in flight at once. A tile publishes its own scalings before it waits for anyone, and
 * the tile it waits for is running (it won the atomicMax), so no tile can
 * wait forever. beta = 1 needs no scaling and skips all of it; alpha = 0
 * scales y and reads neither A nor x. The states are zeroed once when the
 * workspace is made and never need resetting.
 *
 * Summation order varies from run to run (atomics), as in cuBLAS's atomics
 * mode.
 *
 * Every routine (SYMV_ROUTINE, kernels/symv_scalar.cuh): y, xs and the sums
 * are of the element type symv_t, a complex addition to y is two atomic
 * additions (one per part); the column dots add the mirrored element (conj
 * for HEMV), the diagonal counts its real part only for HEMV (symv_row_load
 * / symv_row_fma, symv_common.cuh).
 */
#include "symv_common.cuh"
#include "symv_limits.h" /* SYMV_SEG: rows per y segment (one state each); SYMV_TILE_GROUPS_MAX */

#define SYMV_SEGS_PER_THREAD 4 /* segments a thread may have to claim: G <= SYMV_TILE_GROUPS_MAX */
/* a tile's segments: at most G*BLOCK_SIZE/SEG + 1 of its rows, 3 of its column dots (UX <= 64) */
#if SYMV_TILE_GROUPS_MAX * BLOCK_SIZE / SYMV_SEG + 4 > SYMV_SEGS_PER_THREAD * BLOCK_SIZE
#error "SYMV_SEGS_PER_THREAD too small for SYMV_TILE_GROUPS_MAX"
#endif

typedef unsigned long long symv_ull;

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const symv_t *__restrict__ A, int rs, symv_ll cs,
                 const symv_t *__restrict__ x, symv_ll incx, symv_t *y, symv_ll incy,
                 symv_t alpha, symv_t beta, const symv_t *dalpha, const symv_t *dbeta,
                 symv_ull *state, symv_ull epoch, int nblk, int groups)
{
  __shared__ symv_t xs[UX];
  __shared__ symv_t red[SYMV_NWARPS * UX];
  __shared__ symv_t cd[UX];
  const int t = threadIdx.x;
  const int H = groups * BLOCK_SIZE;

  SYMV_ENTER_OR_SCALE();
  int c0, r0;
  if (!symv_tile_of_block(n, nblk, H, &c0, &r0)) return;
  const int k = blockIdx.x / nblk, r1 = min(n, r0 + H);

  /* the first group's row: its loads go out before anything waits */
  symv_t cdot[UX], ai0[UX];
  const int i0 = r0 + t;
  const symv_t xi0 = symv_row_first(A, rs, cs, x, incx, c0, i0, r1, ai0);

  /* the segments this tile adds to: its rows, and the rows of its column
   * dots (c0 .. c0+UX-1) above r0 */
  const bool scale = symv_not_one(beta);
  const symv_ull busy = 2 * epoch - 1, done = 2 * epoch;
  int my_seg[SYMV_SEGS_PER_THREAD];
  symv_ull my_old[SYMV_SEGS_PER_THREAD];
#pragma unroll
  for (int j = 0; j < SYMV_SEGS_PER_THREAD; j++) my_seg[j] = -1, my_old[j] = done;
  if (scale) {
    const int a0 = r0 / SYMV_SEG, a1 = (r1 - 1) / SYMV_SEG;
    /* k > 0: the column dots' rows lie above the tile (r0 >= c0 + H > c0 + UX);
     * k = 0: they are among the tile's own rows */
    const int b0 = c0 / SYMV_SEG, b1 = k > 0 ? (min(c0 + UX, n) - 1) / SYMV_SEG : b0 - 1;
    const int na = a1 - a0 + 1, nb = b1 - b0 + 1;
#pragma unroll
    for (int j = 0; j < SYMV_SEGS_PER_THREAD; j++) {
      const int idx = t + j * BLOCK_SIZE;
      if (idx < na + nb) {
        my_seg[j] = idx < na ? a0 + idx : b0 + (idx - na);
        my_old[j] = atomicMax(&state[my_seg[j]], busy);
      }
    }
  }

  if (t < UX) xs[t] = (c0 + t < n) ? x[(symv_ll)(c0 + t) * incx] : symv_zero();
#pragma unroll
  for (int kk = 0; kk < UX; kk++) cdot[kk] = symv_zero();
  __syncthreads();
  const symv_t racc0 = i0 < r1 ? symv_row_fma(c0, i0, xi0, ai0, xs, cdot) : symv_zero();

  /* every segment of the tile must be scaled before the first addition: the
   * warp scales the segments its lanes won, a lane per row, four segments'
   * loads in flight at a time */
  const int lane = t & 31;
#pragma unroll
  for (int j = 0; j < SYMV_SEGS_PER_THREAD; j++) {
    unsigned m = __ballot_sync(0xffffffffu, my_seg[j] >= 0 && my_old[j] < busy);
    while (m) {
      int sg[4];
      symv_t v[4];
#pragma unroll
      for (int c = 0; c < 4; c++) {
        sg[c] = -1;
        if (m) {
          const int src = __ffs(m) - 1;
          m &= m - 1;
          sg[c] = __shfl_sync(0xffffffffu, my_seg[j], src);
        }
      }
#pragma unroll
      for (int c = 0; c < 4; c++) {
        const int i = sg[c] * SYMV_SEG + lane;
        v[c] = (sg[c] >= 0 && i < n && symv_nonzero(beta)) ? y[(symv_ll)i * incy] : symv_zero();
      }
#pragma unroll
      for (int c = 0; c < 4; c++) {
        const int i = sg[c] * SYMV_SEG + lane;
        if (sg[c] >= 0 && i < n) y[(symv_ll)i * incy] = symv_mul(beta, v[c]);
      }
    }
  }
  if (scale) {
    __threadfence();
    __syncwarp();
#pragma unroll
    for (int j = 0; j < SYMV_SEGS_PER_THREAD; j++)
      if (my_seg[j] >= 0 && my_old[j] < busy) atomicExch(&state[my_seg[j]], done);
#pragma unroll
    for (int j = 0; j < SYMV_SEGS_PER_THREAD; j++) {
      if (my_seg[j] >= 0 && my_old[j] == busy) {
        while (*(volatile symv_ull *)&state[my_seg[j]] != done) { }
        __threadfence();
      }
    }
    __syncthreads();
  }
  if (i0 < r1) symv_atomic_add(y + (symv_ll)i0 * incy, symv_mul(alpha, racc0));
#pragma unroll 2
  for (int g = 1; g < groups; g++) {
    const int i = r0 + g * BLOCK_SIZE + t;
    if (i >= r1) break;
    symv_atomic_add(y + (symv_ll)i * incy, symv_mul(alpha, symv_row(A, rs, cs, c0, i, x[(symv_ll)i * incx], xs, cdot)));
  }
  symv_reduce_cdot(cdot, red, cd);
  if (t < UX && c0 + t < n) symv_atomic_add(y + (symv_ll)(c0 + t) * incy, symv_mul(alpha, cd[t]));
}
