/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_panel.cu - kernel family "panel": y := alpha*A*x + beta*y in one
 * launch with no atomics, no workspace and no waiting. Each block owns UX
 * rows of y and computes them whole, so it applies beta itself and writes
 * each of its rows once.
 *
 *        0          s   s+UX
 *        |          |<UX>|     block b owns rows s = b*UX .. s+UX-1. It reads
 *   s    |==========|\   |     - its row panel A(s..s+UX-1, 0..s-1) (=====),
 *   s+UX |          |_\__|       column by column, UX rows (UX elements) each;
 *        |          |    |     - its column panel A(s.., s..s+UX-1): the
 *        |          |    |       diagonal tile, then rows s+UX..n-1, a row
 *   n-1  |__________|____|       per thread and UX loads per row, whose
 *                                column dots (Ux) are this block's too.
 *
 * So every element below the diagonal tiles is read twice: by the block that
 * owns its row and by the block that owns its column. That is twice the
 * triangle through L2 but, while the triangle fits in L2, once from DRAM:
 * the second read hits what the first brought in. In exchange nothing is
 * shared between blocks: no atomics, no y-scaling handshake (kernels/
 * symv_red.cu), no second launch. It pays at small and middle n, where a
 * call is bound by latency rather than bandwidth; the rules decide where.
 * Summation order is fixed: results are reproducible, unlike the atomic
 * families'.
 *
 * The work of every block is UX*n elements whatever b is: the row panel
 * grows as the column panel shrinks.
 *
 * A thread issues first what it needs last: y(s+t) (for beta) and the first
 * batch of its row-panel loads go out before the column panel, so that
 * their latency overlaps it (doc/design.md, "The families").
 *
 * MX chooses the schedule (the order in which a thread issues its loads):
 *   bit 0   row panel from the left (0) or from the diagonal leftwards (1),
 *           where the tiles just read by the blocks above, still in L2, are
 *   bit 1   column panel one row (0) or two rows (1) per thread per step
 *           (UX or 2*UX loads in flight)
 * so MX is 0..3. UX must divide 32 (the row panel's partial sums are
 * reduced with shuffles within a warp).
 *
 * Every routine (SYMV_ROUTINE, kernels/symv_scalar.cuh): all data are of
 * the element type symv_t. The row panel and the diagonal tile's rows are
 * the row sums (elements as stored; the diagonal element as symv_diag, its
 * real part only for HEMV); the column panel's and the diagonal tile's
 * column dots add the mirrored element symv_mirror(a) (conj for HEMV).
 */
#include "symv_common.cuh"

#if 32 % UX != 0
#error "UX of the panel family must divide 32"
#endif
#if MX > 3
#error "MX of the panel family is 0..3"
#endif

#define SYMV_PANEL_ROWS_PER_STEP ((MX & 2) ? 2 : 1)
/* row-panel loads in flight per thread: as many as the column panel's, 8..16;
 * the first batch, issued before the column panel, is half that (registers) */
#define SYMV_PANEL_FIRST (SYMV_PANEL_U2 / 2)
#define SYMV_PANEL_U2 (SYMV_PANEL_ROWS_PER_STEP * UX < 8 ? 8 : SYMV_PANEL_ROWS_PER_STEP * UX > 16 ? 16 : SYMV_PANEL_ROWS_PER_STEP * UX)

/* N loads of a row-panel batch: a[u] := a(row, j + u*step), xv[u] := x(j +
 * u*step), u = 0..N-1 (Ar: the row's element in column 0) */
template <int N>
static __device__ __forceinline__ void symv_panel_batch(const symv_t *__restrict__ Ar, symv_ll cs,
                                                        const symv_t *__restrict__ x, symv_ll incx, int j, int step,
                                                        symv_t (&a)[N], symv_t (&xv)[N])
{
#pragma unroll
  for (int u = 0; u < N; u++) {
    const int jc = j + u * step;
    a[u] = symv_ldg(Ar + (symv_ll)jc * cs);
    xv[u] = x[(symv_ll)jc * incx];
  }
}

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const symv_t *__restrict__ A, int rs, symv_ll cs,
                 const symv_t *__restrict__ x, symv_ll incx, symv_t *y, symv_ll incy,
                 symv_t alpha, symv_t beta, const symv_t *dalpha, const symv_t *dbeta)
{
  __shared__ symv_t part[SYMV_NWARPS * UX];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;

  SYMV_ENTER_OR_SCALE();
  const int s = blockIdx.x * UX;
  if (s >= n) return;

  /* what the block needs last is loaded first, so that its latency hides
   * behind the loads of A: y(s+t) (thread t < UX writes it at the end) and
   * the row panel's first batch of loads */
  const bool owner = t < UX && s + t < n;
  const symv_t yold = owner && symv_nonzero(beta) ? y[(symv_ll)(s + t) * incy] : symv_zero();

  /* row panel: thread t takes row s + t%UX, columns t/UX + m*P (P =
   * BLOCK_SIZE/UX), SYMV_PANEL_U2 loads at a time */
  const int r = t % UX, P = BLOCK_SIZE / UX;
  const bool rows_in = s + r < n && s > 0;
  const symv_t *Ar = A + (symv_ll)(s + r) * rs;
  const int step = (MX & 1) ? -P : P;
  int j = (MX & 1) ? s - 1 - t / UX : t / UX;
  const int full = (MX & 1) ? (SYMV_PANEL_U2 - 1) * P : s - 1 - (SYMV_PANEL_U2 - 1) * P;
  const int full1 = (MX & 1) ? (SYMV_PANEL_FIRST - 1) * P : s - 1 - (SYMV_PANEL_FIRST - 1) * P;
  /* a batch of U2 (or of FIRST) loads, every column in 0..s-1 */
#define SYMV_PANEL_FULL(j, f) (rows_in && ((MX & 1) ? (j) >= (f) : (j) <= (f)))
  symv_t a0[SYMV_PANEL_FIRST], x0[SYMV_PANEL_FIRST];
  const bool first = SYMV_PANEL_FULL(j, full1);
  if (first) symv_panel_batch(Ar, cs, x, incx, j, step, a0, x0);

  symv_t cdot[UX], dacc = symv_zero(), acc = symv_zero();
#pragma unroll
  for (int k = 0; k < UX; k++) cdot[k] = symv_zero();

  /* column panel, diagonal tile: thread t < UX takes row s+t, columns s..s+t
   * (the diagonal element, k = t, as symv_diag) */
  if (owner) {
    const int i = s + t;
    const symv_t *Ai = A + (symv_ll)i * rs + (symv_ll)s * cs;
    symv_t a[UX];
#pragma unroll
    for (int k = 0; k < UX; k++) {
      if (k <= t) {
        const symv_t v = symv_ldg(Ai + (symv_ll)k * cs);
        a[k] = k == t ? symv_diag(v) : v;
      } else {
        a[k] = symv_zero();
      }
    }
    const symv_t xi = x[(symv_ll)i * incx];
#pragma unroll
    for (int k = 0; k < UX; k++) {
      if (k < t) cdot[k] = symv_fma(symv_mirror(a[k]), xi, cdot[k]);
      if (k <= t) dacc = symv_fma(a[k], x[(symv_ll)(s + k) * incx], dacc);
    }
  }

  /* column panel below the diagonal tile: rows s+UX+t, s+UX+t+BLOCK_SIZE, ... */
  for (int i0 = s + UX + t; i0 < n; i0 += SYMV_PANEL_ROWS_PER_STEP * BLOCK_SIZE) {
    symv_t a[SYMV_PANEL_ROWS_PER_STEP][UX], xi[SYMV_PANEL_ROWS_PER_STEP];
#pragma unroll
    for (int u = 0; u < SYMV_PANEL_ROWS_PER_STEP; u++) {
      const int i = i0 + u * BLOCK_SIZE;
      const symv_t *Ai = A + (symv_ll)i * rs + (symv_ll)s * cs;
      const bool in = i < n;
#pragma unroll
      for (int k = 0; k < UX; k++) a[u][k] = in ? symv_ldg(Ai + (symv_ll)k * cs) : symv_zero();
      xi[u] = in ? x[(symv_ll)i * incx] : symv_zero();
    }
#pragma unroll
    for (int u = 0; u < SYMV_PANEL_ROWS_PER_STEP; u++)
#pragma unroll
      for (int k = 0; k < UX; k++) cdot[k] = symv_fma(symv_mirror(a[u][k]), xi[u], cdot[k]);
  }

  /* row panel: the first batch, loaded above, then the rest */
  if (first) {
#pragma unroll
    for (int u = 0; u < SYMV_PANEL_FIRST; u++) acc = symv_fma(a0[u], x0[u], acc);
    j += SYMV_PANEL_FIRST * step;
  }
  while (SYMV_PANEL_FULL(j, full)) {
    symv_t a[SYMV_PANEL_U2], xv[SYMV_PANEL_U2];
    symv_panel_batch(Ar, cs, x, incx, j, step, a, xv);
#pragma unroll
    for (int u = 0; u < SYMV_PANEL_U2; u++) acc = symv_fma(a[u], xv[u], acc);
    j += SYMV_PANEL_U2 * step;
  }
  for (; rows_in && j >= 0 && j < s; j += step)
    acc = symv_fma(symv_ldg(Ar + (symv_ll)j * cs), x[(symv_ll)j * incx], acc);
#undef SYMV_PANEL_FULL

  /* reduce: lanes with equal t%UX hold row s+r's row-panel share (UX divides
   * 32, so a warp holds 32/UX of them); the column dots are summed over the
   * whole warp; lane k < UX writes both for row s+k */
#pragma unroll
  for (int off = 16; off >= UX; off >>= 1) acc = symv_add(acc, symv_shfl_down(acc, off));
  symv_t mine = acc;
#pragma unroll
  for (int k = 0; k < UX; k++) {
    symv_t v = cdot[k];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = symv_add(v, symv_shfl_xor(v, off));
    if (lane == k) mine = symv_add(mine, v);
  }
  if (lane < UX) part[warp * UX + lane] = mine;
  __syncthreads();
  if (owner) {
    symv_t v = dacc;
#pragma unroll
    for (int w = 0; w < SYMV_NWARPS; w++) v = symv_add(v, part[w * UX + t]);
    y[(symv_ll)(s + t) * incy] = symv_y_value(alpha, v, beta, yold);
  }
}
