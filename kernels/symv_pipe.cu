/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_pipe.cu - kernel family "pipe": y := alpha*A*x + beta*y in one
 * launch of SMs x MULTIPLICITY persistent blocks, each streaming
 * its share of the triangle's tiles through a shared-memory pipeline.
 *
 *          strip J
 *          |<-UX->|
 *          |\     |     The lower triangle is cut into tiles of 64 rows by
 *   row    | \    |     UX columns, numbered down each column strip
 *   block I|==\===|     (column-major): strip J holds row blocks
 *          |===\==|     floor(J*UX/64) .. nb-1. Block b takes the tiles
 *          |====\=|     [b*T/G, (b+1)*T/G) of the T in all (G blocks,
 *          |=====\|     kernels/symv_pipe.h): equal shares,
 *                       mostly in one strip.
 *
 * A thread owns row r = t mod 64 of a tile and CPT = UX / (BLOCK_SIZE/64)
 * of its columns (column group t / 64). Its CPT elements and x(row) go to
 * shared memory with cp.async of one element each (4, 8 or 16 bytes,
 * sizeof(symv_t)) (no registers held while loads are in
 * flight; zero-filled where not stored or past n), S = MX + 2 tiles
 * ahead: a block keeps S-1 tiles in flight while it computes one, so an SM
 * has MULTIPLICITY x (S-1) tiles in flight whatever its registers. Each
 * thread reads back only what it copied itself, so waiting for the copies
 * needs no barrier. SSYMV's points with UX >= BLOCK_SIZE/16 take 4 rows a
 * thread instead (SYMV_PIPE_V, kernels/symv_pipe.cuh): 16 threads down a
 * column group, a column's 4 elements in one 16-byte copy where A allows
 * it, and the butterfly on sums of 4 products.
 *
 * Per tile: the row sums (Ax, CPT columns a thread, then the column groups
 * through shared memory) are added to y with atomicAdd (red.global.add.f64
 * for DSYMV; a complex element is two, one per part);
 * the column sums (A^T x: CPT columns a thread, summed over the warp's 32
 * rows by a transposing butterfly, CPT-1 + log2(32/CPT) shuffles, then the
 * two warps of a group) accumulate over the block's tiles of one strip and
 * are added once the block leaves the strip.
 *
 * beta: y must be scaled before the first addition. y is cut into
 * C = min(G, ceil(n/64)) chunks (rows c*n/C .. (c+1)*n/C - 1,
 * symv_pipe_chunks in kernels/symv_pipe.h): block c < C scales chunk c
 * first thing and counts it at a gate (gate[0]); before its first addition
 * a block waits until the gate has counted all C chunks of this call
 * (target: the host's running sum of the chunks of the calls launched on
 * this workspace). Blocks c >= C neither scale nor count. While n < 64 x G
 * the chunks thus go to the first blocks launched, 64 rows or more each,
 * and the gate opens about one access of y after those start, not after
 * the grid's last block has started and scaled its few rows
 * (doc/results/2026-11-24-h100-gate-chunks.txt). The wait is cheap because
 * S-1 tiles' loads are already in flight. The launch is not cooperative (a
 * cooperative launch forgoes the overlap of programmatic dependent launch,
 * symv_common.cuh), so the blocks need not all be resident at once (a
 * shared GPU, a concurrent kernel): a block must not wait for one that may
 * never start. So a chunk is claimed before it is
 * scaled (gate[1 + c] raised to the call's target with atomicMax: exactly
 * one claim of a call wins), and a block that has waited 20 us at the gate
 * claims, and scales, the chunks not yet claimed; the chunks are then all
 * scaled by blocks that run, and the gate opens. alpha = 0 scales y and
 * reads neither A nor x; beta = 1 scales nothing, and no block waits.
 *
 * Parameters: BLOCK_SIZE threads (a power of two, 64..1024), UX the tile's
 * columns (a power of two, BLOCK_SIZE/64..BLOCK_SIZE/2, at most 128: 1 <= CPT <= 32); MX = pipeline
 * stages - 2 (0..2); MULTIPLICITY blocks per SM = the grid's blocks per SM.
 * Dynamic shared memory: S x (CPT + 1) x BLOCK_SIZE elements, i.e. that
 * many times sizeof(symv_t) bytes (4, 8 or 16 by routine;
 * symv_pipe_smem_of, gpu/gpu.c); SSYMV's copy-engine entries (four rows a
 * thread, symv_pipe.cuh) S x (SYMV_PIPE_RUN_FLOATS x UX + BLOCK_SIZE)
 * floats. Workspace: gate, 1 + G words (the count, then a claim for
 * each of C <= G chunks; unsigned long long whatever the routine).
 * Summation order varies from run to run (atomics).
 *
 * Every routine (SYMV_ROUTINE, kernels/symv_scalar.cuh): all data are of
 * the element type symv_t. The row sums use the elements as stored, the
 * diagonal element as symv_diag (real part only for HEMV); the column sums
 * use symv_mirror(a) (conj for HEMV).
 */
#include "symv_common.cuh"
#include "symv_pipe.h"
#include "symv_pipe.cuh"
#include "symv_gate.cuh"

#define SYMV_PIPE_PARAMS                                                                                     \
  (int n, const symv_t *__restrict__ A, int rs, symv_ll cs, const symv_t *__restrict__ x, symv_ll incx, symv_t *y, \
   symv_ll incy, symv_t alpha, symv_t beta, const symv_t *dalpha, const symv_t *dbeta, symv_ull *gate,            \
   symv_ull target, int ntiles)
SYMV_PIPE_KERNEL(symv_pipe_run, SYMV_PIPE_PARAMS) /* the body; its entry points (symv_pipe.cuh) at the end */
{
  extern __shared__ SYMV_PIPE_BUF_ALIGN symv_t symv_pipe_buf[]; /* S stages x SYMV_PIPE_STAGE_OF(symv_runs) elements */
  __shared__ symv_t rsum[SYMV_PIPE_RSUM_ROWS][64];
  __shared__ symv_t csum[SYMV_PIPE_CSUM_ROWS][SYMV_PIPE_CPT];
  const int t = threadIdx.x, r = t & 63, cg = t >> 6, lane = t & 31, w = t >> 5;
  const int G = gridDim.x, C = (int)symv_pipe_chunks(n, G);
  SYMV_ENTER();

  const int nb = (n + 63) / 64, ns = (n + UX - 1) / UX;
  const int t0 = (int)((long)blockIdx.x * ntiles / G), t1 = (int)((long)(blockIdx.x + 1) * ntiles / G);
  const bool work = symv_nonzero(alpha) && t0 < t1;
  int I = 0, J = 0;
  if (work) symv_pipe_tile(t0, nb, ns, I, J);
  int iI = I, iJ = J; /* the next tile to issue */
  auto issue = [&](int stage) {
    symv_pipe_issue(symv_pipe_buf + stage * SYMV_PIPE_STAGE_OF(symv_runs), stage, iI, iJ, t, nb, n, A, rs, cs, x,
                    incx, symv_runs);
  };
  const symv_pipe_src src = symv_pipe_src_of(A, rs, cs, n, symv_runs);
  if (symv_runs) symv_pipe_bar_init();
  if (work) {
#pragma unroll
    for (int s = 0; s < SYMV_PIPE_S - 1; s++) {
      if (t0 + s < t1) issue(s);
      symv_cp_commit();
    }
  }

  /* this block's chunk of y := beta*y, then the gate (see the header).
   * The chunk's first rows are read while the claim is in flight; a lost
   * claim discards them. */
  if ((int)blockIdx.x >= C) {
    /* no chunk: neither scales nor counts */
  } else if (symv_not_one(beta)) {
    const int a0 = (int)((long)blockIdx.x * n / C), a1 = (int)((long)(blockIdx.x + 1) * n / C);
    const int i = a0 + t;
    const symv_t v = (i < a1 && symv_nonzero(beta)) ? y[(symv_ll)i * incy] : symv_zero();
    const bool won = t == 0 && symv_gate_claim(gate + 1 + blockIdx.x, target);
    if (__syncthreads_or(won)) {
      if (i < a1) y[(symv_ll)i * incy] = symv_mul(beta, v);
      for (int k = i + BLOCK_SIZE; k < a1; k += BLOCK_SIZE) /* chunks longer than the block */
        symv_scale_elem(y + (symv_ll)k * incy, beta);
      __syncthreads();
      if (t == 0) symv_gate_arrive(gate);
    }
  } else if (t == 0) {
    symv_gate_arrive(gate); /* no scaling: counted all the same, so that the host's target holds in every
                               pointer mode */
  }
  if (!work) return;

  /* x of strip J's columns, this thread's CPT. The first strip's go out
   * here, after the arrival (a release waits for the arriving thread's
   * loads; the tiles' cp.async it does not wait for) and before the first
   * tile's wait, which hides them. */
  symv_t xc[SYMV_PIPE_CPT];
  int curJ = J;
  symv_pipe_load_xc(xc, J, t, n, x, incx);
  bool open = symv_is_one(beta); /* nothing to wait for when y is not scaled */

  symv_t cacc = symv_zero(); /* thread t < UX: column t's sum over this block's tiles of strip curJ */
  for (int k = t0; k < t1; k++) {
    if (k + SYMV_PIPE_S - 1 < t1) issue((k + SYMV_PIPE_S - 1 - t0) % SYMV_PIPE_S);
    symv_cp_commit();
    symv_pipe_wait<SYMV_PIPE_S - 1>(k - t0, src.tma);
    const symv_t *buf = symv_pipe_buf + ((k - t0) % SYMV_PIPE_S) * SYMV_PIPE_STAGE_OF(symv_runs);
    const int i = I * 64 + r, j0 = J * UX + cg * SYMV_PIPE_CPT;
    if (J != curJ) {
      if (t < UX && curJ * UX + t < n) /* the last strip's column sums (the gate opened at its first tile) */
        symv_atomic_add(y + (symv_ll)(curJ * UX + t) * incy, symv_mul(alpha, cacc));
      cacc = symv_zero();
      curJ = J;
      symv_pipe_load_xc(xc, J, t, n, x, incx);
    }
#if SYMV_PIPE_V == 1
    const symv_t xr = buf[SYMV_PIPE_CPT * BLOCK_SIZE + t];
    const bool below = I * 64 >= (J + 1) * UX; /* no element on or above the diagonal */
    symv_t rsv = symv_zero(), cp[SYMV_PIPE_CPT];
#pragma unroll
    for (int kk = 0; kk < SYMV_PIPE_CPT; kk++) {
      const symv_t a = buf[kk * BLOCK_SIZE + t]; /* 0 where not stored (zero-filled) */
      /* the diagonal counts once, in the row sum (as symv_diag); the column
       * sums take the mirrored element */
      rsv = symv_fma_rn(!below && j0 + kk == i ? symv_diag(a) : a, xc[kk], rsv);
      cp[kk] = (below || j0 + kk < i) ? symv_mul(symv_mirror(a), xr) : symv_zero();
    }
    symv_pipe_tr<SYMV_PIPE_CPT, SYMV_PIPE_CPT / 2>::run(cp, lane);
#pragma unroll
    for (int h = SYMV_PIPE_CPT; h < 32; h *= 2) cp[0] = symv_add(cp[0], symv_shfl_xor(cp[0], h));
    if (lane < SYMV_PIPE_CPT) csum[w][lane] = cp[0]; /* lane holds column lane mod CPT of its group */
    rsum[cg][r] = rsv;
#else
    (void)j0, (void)lane, (void)w; /* symv_pipe_tile_sums works them out for 4 rows a thread */
    symv_pipe_tile_sums(buf, xc, I, J, t, rsum, csum, src);
#endif
    __syncthreads();
    symv_t vr = symv_zero();
    if (t < 64) vr = symv_pipe_row_total(rsum, t);
    if (t < UX) cacc = symv_add(cacc, symv_pipe_col_total(csum, t));
    if (!open) {
      if (t == 0) symv_gate_wait(gate, target, n, C, y, incy, beta);
      open = true;
    }
    __syncthreads(); /* the gate is open, and rsum/csum are free for the next tile */
    if (t < 64 && i < n) symv_atomic_add(y + (symv_ll)i * incy, symv_mul(alpha, vr));
    if (++I == nb) J++, I = (int)symv_pipe_first_block(J, UX);
  }
  if (t < UX && curJ * UX + t < n) /* the last strip's column sums */
    symv_atomic_add(y + (symv_ll)(curJ * UX + t) * incy, symv_mul(alpha, cacc));
}
SYMV_PIPE_ENTRIES(symv_pipe_run, SYMV_PIPE_PARAMS,
                  (n, A, rs, cs, x, incx, y, incy, alpha, beta, dalpha, dbeta, gate, target, ntiles))
