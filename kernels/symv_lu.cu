/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_lu.cu - kernel family "L+U" (doc/method.md section 3): no atomics, no
 * mutex, no workspace, one launch, bitwise reproducible; the small-n family.
 *
 * A = L + D + U. Block b owns the 32 rows i0 = 32b .. i0+31, lane l row
 * i0+l. Its warps share out the 32-column tiles j0 = 0, 32, 64, ... of those
 * rows (warp w takes tiles w, w+W, w+2W, ...; W = BLOCK_SIZE/32):
 *
 *        j0 < i0            j0 = i0            j0 > i0
 *     |a a a ... a|      |d          |      (stored as the transposed tile
 *     |a a a ... a|      |a d        |       below the diagonal: column i0+c,
 *     |           |      |a a d      |       rows j0..j0+31)
 *     (L: row i0+l,       (L+D and U of       (U: lane l reads row j0+l of
 *      columns j0+c)       the diagonal tile)   column i0+c, c = 0..31)
 *
 *   L tiles: racc   += a(i0+l, j0+c) x(j0+c)     lane l reads row i0+l
 *   U tiles: acc[c] += a(j0+l, i0+c)' x(j0+l)    = A(i0+c, j0+l) x(j0+l)
 *   the diagonal tile is both: an L tile for c <= l, a U tile for c < l
 * (a' = symv_mirror(a): a for SYMV, conj(a) for HEMV; the diagonal a(i,i),
 * in the L part only, is symv_diag(a): real part only for HEMV. Every
 * routine, kernels/symv_scalar.cuh: all data are of the element type
 * symv_t.)
 * Both read 32 consecutive rows of one column per load instruction
 * (coalesced). Each lane issues its 32 loads per tile UX at a time, in MX
 * order within each group of UX. x(j0+l) is loaded once per tile and
 * broadcast with shuffles.
 * At the end each warp sums acc[c] over its lanes (shuffles) into lane c,
 * adds racc, and the block sums its warps' values in warp order through
 * shared memory: y(i0+l) := alpha * total + beta * y(i0+l).
 *
 * Column split (for small n, where ceil(n/32) blocks would leave SMs idle):
 * the grid's second dimension S (chosen at launch, gpu/gpu.c) deals the
 * tiles out to S blocks per row block. Each leaves its 32 partial sums in
 * the workspace P[S][n]; the last of the S to finish (a counter per row
 * block, reset by that block) adds them in split order and writes y.
 *
 * Every stored element is read twice (once for its row block, once for its
 * column block): twice the bytes of the atomic kernels, for no
 * synchronisation between blocks at all - the trade that wins while A is
 * small (latency-bound n). Every sum runs in a fixed order, so the result
 * does not change from run to run.
 *
 * Parameters: BLOCK_SIZE (32..1024), UX (loads in flight per lane: 1, 2, 4,
 * 8, 16 or 32), MX (load order). Grid: ceil(n/32) x S blocks. Workspace
 * (S > 1): P, S*n elements symv_t (any contents); count, ceil(n/32) ints,
 * zero. (The host bounds S by SYMV_LU_SPLITS_MAX, kernels/symv_limits.h.)
 */
#include "symv_common.cuh"

#if 32 % UX != 0
#error "the L+U kernel needs UX to divide 32"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const symv_t *__restrict__ A, int rs, symv_ll cs,
                 const symv_t *__restrict__ x, symv_ll incx, symv_t *y, symv_ll incy,
                 symv_t alpha, symv_t beta, const symv_t *dalpha, const symv_t *dbeta,
                 symv_t *P, int *count)
{
  __shared__ symv_t part[SYMV_NWARPS][32];
  __shared__ int last;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  SYMV_ENTER();
  if (symv_is_zero(alpha)) {
    if (blockIdx.y == 0) symv_scale_y(n, y, incy, beta); /* once per row, not once per split */
    return;
  }
  const int i0 = blockIdx.x * 32, ntiles = (n + 31) / 32, bt = blockIdx.x;
  const int my_row = i0 + lane;
  const bool row_ok = my_row < n;
  symv_t racc = symv_zero(), acc[32];
#pragma unroll
  for (int c = 0; c < 32; c++) acc[c] = symv_zero();

  const int S = gridDim.y, sb = blockIdx.y; /* column split: tiles jt = sb*W + w + S*W*m */
  for (int jt = sb * SYMV_NWARPS + warp; jt < ntiles; jt += S * SYMV_NWARPS) {
    const int j0 = jt * 32;
    /* an opaque copy of cs, so the compiler keeps no table of 32 column
     * offsets alive across the loop (it would spill) */
    symv_ll csv = cs;
    asm volatile("" : "+l"(csv));
    const symv_t xl = (j0 + lane < n) ? x[(symv_ll)(j0 + lane) * incx] : symv_zero();
    /* L part: row i0+l, columns j0..j0+31 (all of them left of the
     * diagonal tile; in the diagonal tile those with c <= l, the
     * diagonal itself as symv_diag) */
    if (jt <= bt) {
      const symv_t *Ar = A + (symv_ll)my_row * rs + (symv_ll)j0 * csv;
#pragma unroll
      for (int g = 0; g < 32; g += UX) {
        symv_t a[UX];
#pragma unroll
        for (int kk = 0; kk < UX; kk++) {
          const int k = symv_mx_index(MX, UX, kk);
          if (row_ok && (jt < bt || g + k <= lane)) {
            const symv_t v = symv_ldg(Ar + (symv_ll)(g + k) * csv);
            a[k] = (jt == bt && g + k == lane) ? symv_diag(v) : v;
          } else {
            a[k] = symv_zero();
          }
        }
#pragma unroll
        for (int k = 0; k < UX; k++) racc = symv_fma(a[k], symv_shfl(xl, g + k), racc);
      }
    }
    /* U part: row j0+l of columns i0..i0+31, stored below the diagonal
     * (right of the diagonal tile: all; in it: c < l). The diagonal tile's
     * elements are read a second time here, from cache. These are the
     * mirrored elements: conj for HEMV. */
    if (jt >= bt) {
      const bool ok = j0 + lane < n;
      const symv_t *Ac = A + (symv_ll)(j0 + lane) * rs + (symv_ll)i0 * csv;
#pragma unroll
      for (int g = 0; g < 32; g += UX) {
        symv_t a[UX];
#pragma unroll
        for (int kk = 0; kk < UX; kk++) {
          const int k = symv_mx_index(MX, UX, kk);
          a[k] = (ok && i0 + g + k < n && (jt > bt || g + k < lane)) ? symv_ldg(Ac + (symv_ll)(g + k) * csv)
                                                                     : symv_zero();
        }
#pragma unroll
        for (int k = 0; k < UX; k++) acc[g + k] = symv_fma(symv_mirror(a[k]), xl, acc[g + k]);
      }
    }
  }

  /* lane c of the warp collects sum over lanes of acc[c] */
  symv_t mine = racc;
#pragma unroll
  for (int c = 0; c < 32; c++) {
    symv_t v = acc[c];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = symv_add(v, symv_shfl_xor(v, off));
    if (lane == c) mine = symv_add(mine, v);
  }
  part[warp][lane] = mine;
  __syncthreads();
  symv_t v = symv_zero();
  if (warp == 0)
    for (int w = 0; w < SYMV_NWARPS; w++) v = symv_add(v, part[w][lane]);
  if (S == 1) {
    if (warp == 0 && row_ok) symv_store_y(y, incy, my_row, alpha, v, beta);
    return;
  }
  /* several blocks share these rows: each leaves its partial sums in P; the
   * last to finish adds them up in split order (deterministic) and writes y */
  if (warp == 0 && row_ok) P[(symv_ll)sb * n + my_row] = v;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(&count[bt], 1) == S - 1;
    if (last) count[bt] = 0;
  }
  __syncthreads();
  if (last && warp == 0 && row_ok) {
    __threadfence();
    symv_t t = symv_zero();
    for (int b = 0; b < S; b++) t = symv_add(t, symv_ldcg(P + (symv_ll)b * n + my_row));
    symv_store_y(y, incy, my_row, alpha, t, beta);
  }
}
