/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_pipe_det.cu - kernel family "pipe_det": the pipe kernel
 * (kernels/symv_pipe.cu) without atomics on data, so that the same inputs
 * give the same bits run after run (cuBLAS's default atomics mode,
 * CUBLAS_ATOMICS_NOT_ALLOWED), in two launches of this one kernel (phase
 * 0 streams, phase 1 sums) and with no block ever waiting for another.
 *
 *          strip J
 *          |<-UX->|
 *          |\     |     Tiles, shares and the pipeline are pipe's: tiles of
 *   row    | \    |     64 rows by UX columns numbered down each column
 *   block I|==\===|     strip, SMs x MULTIPLICITY persistent blocks, block b
 *          |===\==|     streaming tiles [b*T/G, (b+1)*T/G) through MX + 2
 *          |====\=|     cp.async stages (kernels/symv_pipe.cuh), the same
 *          |=====\|     arithmetic per tile.
 *
 * What differs is where the sums go. Phase 0 (grid G, the streaming)
 * writes them to workspace P (elements, any contents between calls):
 *   R[k*64 + r]       tile k's row sum of its row r (pipe adds it to y)
 *   C[(b + J)*UX + c] block b's column sum of column J*UX + c over its
 *                     tiles of strip J (pipe adds it to y on leaving J).
 *                     The pairs (b, J) of a block and a strip it has tiles
 *                     in form a staircase along the numbering (each step
 *                     moves to the next block, the next strip or both), so
 *                     b + J names each pair once: G + ns - 1 slots.
 * and nothing else: no ticket, no fence, no atomic. Phase 1 (grid
 * ceil(n/RB) of blocks of min(BLOCK_SIZE, 128) threads, RB = 16 rows each,
 * 8 below BLOCK_SIZE 128; launched right after on the same stream,
 * gpu/gpu.c) gives rows blockIdx.x*RB.. to each block, which reads its
 * rows of y (and the scalars), waits for phase 0 to finish
 * (griddepcontrol.wait under programmatic dependent launch, where phase
 * 0's blocks let it launch as they start, so that it is resident and
 * waiting while they stream; the stream's order otherwise) and writes
 *
 *   y(i) := alpha * (sum over strips J of R[tile (I, J), row i],
 *                    then sum over blocks b of C[(b + J_i)*UX + c_i])
 *           + beta * y(i)
 *
 * in that order (the row's R and C sums are one list, whose entries g,
 * g + 8, ... the row's thread of group g = 0..7 takes; the groups' sums
 * are added in g order). Every partial sum
 * is a fixed function of n, UX, the grid and the data, and so is y: the
 * same bits on every run on a GPU of the same SM count (the grid is SMs x
 * MULTIPLICITY), as cuBLAS promises its default mode's. y is read (beta !=
 * 0) and written once per element, in phase 1: nothing scales y ahead of
 * the additions, so pipe's gate is not needed. alpha = 0: phase 0 scales y
 * and reads neither A nor x, phase 1 does nothing.
 *
 * Why two phases: in one launch a row block could be summed only once all
 * its tiles were, and row block I has a tile in every strip J <= I, which
 * every block's share reaches last: nearly every row block would complete
 * at the very end, and the few blocks that completed them would read the
 * T x 64 row sums (n/UX a row) alone, a tail growing as n^2/UX. Phase 1
 * reads them with the whole GPU, RB consecutive rows of a tile per load
 * (coalesced), SYMV_PDET_BATCH loads in flight per thread. Its blocks are
 * small (at most 128 threads) so that they fit on an SM beside phase 0's
 * and are resident, their y read, when phase 0 ends. Two phases rather
 * than one launch with a barrier of the grid before the summing, or one
 * launch taking the tiles round robin and summing each row block as it
 * completes: both are slower (doc/results.md;
 * doc/results/2026-11-24-h100-pipe_det-one-launch.txt,
 * doc/results/2026-11-24-h100-pipe_ticket-one-launch.txt). One kernel with
 * a phase argument rather than two kernels: both phases are one entry
 * point, whose loading, registers and occupancy checks are the other
 * families' (SSYMV's copy-engine entries, symv_pipe.cuh, are two more
 * entry points for phase 0 alone; phase 1 is always the first's).
 *
 * Traffic over pipe's: R holds T x 64 elements, about 1/UX of the
 * triangle's, written once and read once; C holds (G + ns - 1) x UX. Both
 * are stored evict-last in L2 and read evict-first (symv_pdet_store,
 * symv_pdet_load), so that while they fit beside A's stream they need not
 * go to DRAM and back.
 *
 * Units (MX 3..5): the row sums R are stored once a unit, a row block's
 * tiles in a strip of W = BLOCK_SIZE columns (BLOCK_SIZE/UX tiles side by
 * side, fewer on the diagonal), instead of once a tile: R holds U x 64
 * elements, about 1/W of the triangle's. Units are numbered as tiles W
 * wide would be (symv_pdet_units, symv_pipe.h) and shared as tiles are,
 * block b taking units [b*U/G, (b+1)*U/G) and streaming their tiles
 * through the same pipeline, row by row of each unit; a unit's row sums
 * add up over its tiles in order, the column sums (thread t: column
 * S*W + t of unit strip S, x of its columns in shared memory) over the
 * block's units of that strip, stored at slot b + S (G + ceil(n/W) - 1
 * slots of W). Phase 1 reads them as it reads tiles, with W for UX. The
 * fit chooses between tiles and units by n: units write and read back
 * less at large n, and leave a block few units at small n
 * (doc/results/2026-11-25-h100-pipe_det-units.txt).
 *
 * Parameters as pipe's (kernels/symv_pipe.cuh): BLOCK_SIZE a power of two,
 * 64..1024; UX a power of two, BLOCK_SIZE/64..BLOCK_SIZE/2, up to 128 (a
 * strip of 128 columns starts at row block 2J: its diagonal spans two
 * tiles; R and the rows' lists are half those of UX 64); MX = pipeline
 * stages - 2, 0..2, and 3..5 the same stages (MX - 3) with units;
 * MULTIPLICITY blocks per SM = phase 0's grid. Dynamic
 * shared memory: the pipeline's in phase 0, as pipe (symv_pipe_smem_of,
 * gpu/gpu.c), none in phase 1; static, with units, x of W columns.
 * Workspace: P of T*64 + (G + ns - 1)*UX elements, with units U*64 +
 * (G + ceil(n/W) - 1)*W (symv_pipe_det_partials, gpu/gpu.c). Every routine
 * (SYMV_ROUTINE): symv_mirror for the column sums, symv_diag for the
 * diagonal, as in pipe.
 */
#define SYMV_PIPE_MX_MAX 5 /* MX 3..5: MX - 3's stages, units of BLOCK_SIZE columns */
#include "symv_common.cuh"
#include "symv_pipe.h"
#include "symv_pipe.cuh"

/* The workspace's accesses carry an L2 eviction policy (.L2::cache_hint):
 * phase 0 stores the partial sums evict-last, so that A's stream, which
 * passes through L2 at normal priority, does not push them out to DRAM
 * before phase 1 reads them, and phase 1 reads them evict-first, so that
 * their lines go before others once read. The policies are the 64-bit
 * operands that createpolicy.fractional.L2::evict_last.b64 and
 * .L2::evict_first.b64 make with fraction 1.0 (the constants of CUTLASS's
 * CacheHintSm90), given as immediates: a createpolicy in the kernel let
 * ptxas place the policy where the kernel raised an illegal instruction
 * (doc/results/2026-11-24-h100-evict-first.txt). Measured:
 * doc/results/2026-11-29-h200-pipe_det-l2-hints.txt. */
#define SYMV_PDET_EVICT_LAST 0x14F0000000000000ull
#define SYMV_PDET_EVICT_FIRST 0x12F0000000000000ull

/* *p := v, cached in L2 only (as __stcg), evict-last */
static __device__ __forceinline__ void symv_pdet_store(symv_t *p, symv_t v)
{
#if SYMV_COMPLEX
  asm volatile("st.global.cg.L2::cache_hint.v2." SYMV_PTX_R " [%0], {%1,%2}, %3;" ::"l"(p), SYMV_RC(v.re),
               SYMV_RC(v.im), "l"(SYMV_PDET_EVICT_LAST)
               : "memory");
#else
  asm volatile("st.global.cg.L2::cache_hint." SYMV_PTX_R " [%0], %1, %2;" ::"l"(p), SYMV_RC(v),
               "l"(SYMV_PDET_EVICT_LAST)
               : "memory");
#endif
}

/* *p, cached in L2 only (as __ldcg), evict-first; the memory clobber keeps
 * it after the wait for phase 0 */
static __device__ __forceinline__ symv_t symv_pdet_load(const symv_t *p)
{
  symv_t v;
#if SYMV_COMPLEX
  asm volatile("ld.global.cg.L2::cache_hint.v2." SYMV_PTX_R " {%0,%1}, [%2], %3;"
               : "=" SYMV_RC(v.re), "=" SYMV_RC(v.im)
               : "l"(p), "l"(SYMV_PDET_EVICT_FIRST)
               : "memory");
#else
  asm volatile("ld.global.cg.L2::cache_hint." SYMV_PTX_R " %0, [%1], %2;"
               : "=" SYMV_RC(v)
               : "l"(p), "l"(SYMV_PDET_EVICT_FIRST)
               : "memory");
#endif
  return v;
}

/* the columns of a unit, the tiles of a row block whose row sums a block
 * adds before storing them (SYMV_PDET_UNIT_WIDTH, symv_pipe.h), and the
 * tiles side by side in one */
#define SYMV_PDET_W SYMV_PDET_UNIT_WIDTH(BLOCK_SIZE, UX, MX)
#define SYMV_PDET_A (SYMV_PDET_W / UX)

#if MX >= 3
/* the tiles of unit (I, S): its strips S*A.. that hold tiles of row block I
 * (ns strips of UX columns), at most A */
static __device__ __forceinline__ int symv_pdet_unit_tiles(int I, int S, int ns)
{
  const int c = (int)symv_pipe_strips_of(I, ns, UX) - S * SYMV_PDET_A;
  return c < SYMV_PDET_A ? c : SYMV_PDET_A;
}

/* the next unit of the numbering (nb row blocks, ns strips of UX): (I, S)
 * moves down unit strip S, then to the next strip's first row block; cnt
 * := its tiles */
static __device__ __forceinline__ void symv_pdet_next_unit(int &I, int &S, int &cnt, int nb, int ns)
{
  if (++I == nb) S++, I = (int)symv_pipe_first_block(S, SYMV_PDET_W);
  cnt = symv_pdet_unit_tiles(I, S, ns);
}
#endif

/* Loads in flight per thread when rows are summed (phase 1): 64 bytes of
 * elements, at least 8 bytes each (8 loads of DSYMV). A row holds up to
 * ns + G partial sums, read by its SYMV_PDET_P1_GROUPS = 8 threads, so
 * that 64 a row are in flight at once; those loads, not arithmetic, are
 * what the summing costs; more loads a thread would cost registers
 * (doc/results/2026-11-24-h100-pipe_det-phase1-batch.txt). */
#define SYMV_PDET_BATCH (64 / (sizeof(symv_t) < 8 ? 8 : (int)sizeof(symv_t)))

/* Phase 1's block: SYMV_PDET_P1 threads (at most 128; kernels/symv_pipe.h,
 * which the host's launch reads too), SYMV_PDET_RB rows of y */
#define SYMV_PDET_P1 SYMV_PDET_P1_THREADS(BLOCK_SIZE)
#define SYMV_PDET_RB (SYMV_PDET_P1 / SYMV_PDET_P1_GROUPS)

/* s + *addr(k) for k = k0, k0 + step, ... (< k1), added in that order,
 * SYMV_PDET_BATCH loads at a time (phase 0 stored them, past L1). */
template <class F>
static __device__ __forceinline__ symv_t symv_pdet_sum(symv_t s, long k0, long k1, int step, F addr)
{
  for (long k = k0; k < k1; k += (long)SYMV_PDET_BATCH * step) {
    symv_t v[SYMV_PDET_BATCH];
#pragma unroll
    for (int u = 0; u < SYMV_PDET_BATCH; u++)
      v[u] = k + (long)u * step < k1 ? symv_pdet_load(addr(k + (long)u * step)) : symv_zero();
#pragma unroll
    for (int u = 0; u < SYMV_PDET_BATCH; u++)
      if (k + (long)u * step < k1) s = symv_add(s, v[u]);
  }
  return s;
}

/* Rows i = blk*RB + rr < n (RB = SYMV_PDET_RB, rr = t mod RB; a block
 * of SYMV_PDET_P1 threads): y(i) := alpha * (row i's sums over the strips,
 * then column i's sums over the blocks of its strip) + beta * y_i, in the
 * fixed order of the header, y_i being y(i) as read before (yv, thread
 * t < RB's; unread when beta = 0). The row sums and the column sums are
 * one list of addresses a row (its ns' strips' R, then its strip's
 * blocks' C), which the row's SYMV_PDET_P1_GROUPS threads (groups g =
 * t / RB) take in turn, g, g + 8, ..., SYMV_PDET_BATCH loads in flight: a
 * row's loads all in flight at once while it has at most 8 x
 * SYMV_PDET_BATCH sums (n up to 4,000 - 8,000 with UX = 64), where summing
 * the two parts one after the other waited for memory twice. Consecutive
 * threads take consecutive rows, so that each load of a warp reads RB
 * consecutive elements of R or C. T tiles, G blocks, nb row blocks, ns
 * strips; R and C the workspace's two parts; cbuf SYMV_PDET_P1 elements of
 * shared memory. The wait for phase 0 (symv_grid_dependency) is here,
 * after each row's list is worked out (its 64-bit block numbers take two
 * divisions), so that that arithmetic overlaps phase 0's end. alpha = 0 (device pointer mode): phase 0
 * scaled y; nothing more after the wait. Called by every thread of the
 * block (a barrier). */
static __device__ void symv_pdet_rows(int blk, int n, int nb, int ns, long G, long T, const symv_t *R,
                                      const symv_t *C, symv_t *y, symv_ll incy, symv_t alpha, symv_t beta,
                                      symv_t yv, symv_t *cbuf)
{
  const int t = threadIdx.x, rr = t % SYMV_PDET_RB, g = t / SYMV_PDET_RB;
  const int i0 = blk * SYMV_PDET_RB, i = i0 + rr, I = i0 / 64, r = i % 64; /* RB divides 64: one row block */
  /* the row's list, worked out before the wait: nr strips' R, then the
   * C of blocks b0..b1 of column i's strip J (tiles [a, e); the block's
   * strip when UX >= RB, fewer registers) */
  const long nr = symv_pipe_strips_of(I, ns, SYMV_PDET_W);
  const int J = (SYMV_PDET_W >= SYMV_PDET_RB ? i0 : i) / SYMV_PDET_W;
  const long a = symv_pipe_tiles_before(J, nb, SYMV_PDET_W), e = a + (nb - symv_pipe_first_block(J, SYMV_PDET_W));
  const long b0 = symv_pipe_block_of(a, G, T), len = i < n ? nr + (symv_pipe_block_of(e - 1, G, T) + 1 - b0) : 0;
  symv_grid_dependency();
  if (symv_is_zero(alpha)) return; /* phase 0 scaled y */
  symv_t s = symv_pdet_sum(symv_zero(), g, len, SYMV_PDET_P1_GROUPS, [&](long k) {
    return k < nr ? R + (symv_pipe_tiles_before(k, nb, SYMV_PDET_W) + I - symv_pipe_first_block(k, SYMV_PDET_W)) * 64 + r
                  : C + (b0 + (k - nr) + J) * SYMV_PDET_W + (i - J * SYMV_PDET_W);
  });
  cbuf[t] = s;
  __syncthreads();
  if (t < SYMV_PDET_RB && i < n) {
    symv_t v = cbuf[t];
#pragma unroll
    for (int h = 1; h < SYMV_PDET_P1_GROUPS; h++) v = symv_add(v, cbuf[h * SYMV_PDET_RB + t]);
    y[(symv_ll)i * incy] = symv_y_value(alpha, v, beta, yv);
  }
}

#define SYMV_PDET_PARAMS                                                                                     \
  (int n, const symv_t *__restrict__ A, int rs, symv_ll cs, const symv_t *__restrict__ x, symv_ll incx, symv_t *y, \
   symv_ll incy, symv_t alpha, symv_t beta, const symv_t *dalpha, const symv_t *dbeta, symv_t *P, int ntiles, int G, \
   int phase)
/* SYMV_PDET_BOTH: pipe_det's first entry point keeps the copy engine's
 * path of ascending rows beside the element copies, chosen at run time
 * by symv_pipe_tma_up (false wherever the host launches that entry: the
 * second takes those calls), with stages as wide as the runs'. ptxas's code for the element
 * copies alone was 1-2.5% slower at n = 2171..5003 for the tiles' shapes
 * and up to 1.2x for pipe_det:128,64,4,3 at n = 4093; with both it is
 * the kernel's before the two entries (H200; doc/results.md, "The copy
 * engine's path as a second entry point"). */
#define SYMV_PDET_BOTH SYMV_PIPE_TMA
SYMV_PIPE_KERNEL(symv_pdet_run, SYMV_PDET_PARAMS) /* the body; its entry points (symv_pipe.cuh) at the end */
{
  extern __shared__ SYMV_PIPE_BUF_ALIGN symv_t symv_pipe_buf[]; /* S stages x SYMV_PIPE_STAGE_OF(wide) elements (phase 0) */
  __shared__ symv_t rsum[SYMV_PIPE_RSUM_ROWS][64];   /* a tile's row sums by column group; phase 1's scratch */
  __shared__ symv_t csum[SYMV_PIPE_CSUM_ROWS][SYMV_PIPE_CPT];
  const int t = threadIdx.x;
  const int nb = (n + 63) / 64, ns = (n + UX - 1) / UX, nsw = (n + SYMV_PDET_W - 1) / SYMV_PDET_W;
  symv_t *const R = P, *const C = P + (symv_ll)ntiles * 64; /* ntiles: the units (tiles when MX < 3) */
  if (phase) { /* phase 1: rows blockIdx.x*RB.., SYMV_PDET_P1 threads, phase 0 of grid G done */
    /* The scalars and these rows of y are read before the wait for phase
     * 0: phase 0 writes neither (alpha != 0), and phase 1 starts only once
     * every phase 0 block has passed its own wait for the grid before it
     * (programmatic dependent launch; the stream's order without it), so
     * whatever wrote them is done. The wait (symv_pdet_rows) then overlaps
     * these loads. */
    SYMV_READ_SCALARS();
    const int i = blockIdx.x * SYMV_PDET_RB + t;
    const symv_t yv = t < SYMV_PDET_RB && i < n && symv_nonzero(beta) ? y[(symv_ll)i * incy] : symv_zero();
    symv_pdet_rows(blockIdx.x, n, nb, nsw, G, ntiles, R, C, y, incy, alpha, beta, yv, &rsum[0][0]);
    return;
  }
  SYMV_ENTER_OR_SCALE();
  /* the copy engine's path and its rows' direction: a constant of the entry, or with SYMV_PDET_BOTH the
   * ascending one chosen at run time; wide: stages as wide as the runs' */
  const int tma = symv_runs ? symv_runs : SYMV_PDET_BOTH && symv_pipe_tma_up(n, rs, cs, (unsigned long long)A);
  constexpr bool wide = symv_runs || SYMV_PDET_BOTH;
  const symv_pipe_src src = symv_pipe_src_of(A, rs, cs, n, tma);
  if (wide) symv_pipe_bar_init();

#if MX >= 3
  /* units: block b takes units [b*U/G, (b+1)*U/G) (U = ntiles), each unit
   * (I, S) the tiles of row block I in strips S*A .. S*A + A - 1, in that
   * order; the row sums add up over a unit's tiles and are stored once a
   * unit, the column sums (thread t: column S*W + t) over the block's units
   * of unit strip S */
  {
    __shared__ symv_t xs[SYMV_PDET_W]; /* x of unit strip curS's columns */
    const int u0 = (int)((long)blockIdx.x * ntiles / G), u1 = (int)((long)(blockIdx.x + 1) * ntiles / G);
    int I, S;
    symv_pipe_item<SYMV_PDET_W>(u0, nb, nsw, I, S); /* unit u0 -> (row block, unit strip) */
    int iI = I, iS = S, is = 0, iu = u0, icnt = symv_pdet_unit_tiles(I, S, ns); /* the next tile to issue */
    auto issue = [&](int stage) {
      symv_pipe_copy(symv_pipe_buf + stage * SYMV_PIPE_STAGE_OF(wide), stage, iI, iS * SYMV_PDET_A + is, t, n,
                     A, rs, cs, x, incx, tma);
      if (++is == icnt) is = 0, iu++, symv_pdet_next_unit(iI, iS, icnt, nb, ns);
    };
#pragma unroll
    for (int s = 0; s < SYMV_PIPE_S - 1; s++) {
      if (iu < u1) issue(s);
      symv_cp_commit();
    }
    auto load_xs = [&](int Su) { /* x of unit strip Su's columns, then a barrier before they are read */
      xs[t] = Su * SYMV_PDET_W + t < n ? symv_ldg(x + (symv_ll)(Su * SYMV_PDET_W + t) * incx) : symv_zero();
      __syncthreads();
    };
    int curS = S;
    load_xs(S);
    symv_t cacc = symv_zero(), racc = symv_zero();
    const int cg = SYMV_PIPE_GROUP(t);
    int s = 0, cnt = symv_pdet_unit_tiles(I, S, ns);
    for (int k = 0, u = u0; u < u1; k++) {
      if (iu < u1) issue((k + SYMV_PIPE_S - 1) % SYMV_PIPE_S);
      symv_cp_commit();
      symv_pipe_wait<SYMV_PIPE_S - 1>(k, src.tma);
      const symv_t *buf = symv_pipe_buf + (k % SYMV_PIPE_S) * SYMV_PIPE_STAGE_OF(wide);
      if (S != curS) { /* unit strip curS's column sums, this block's share of them; x of the next */
        if (curS * SYMV_PDET_W + t < n) symv_pdet_store(C + (symv_ll)(blockIdx.x + curS) * SYMV_PDET_W + t, cacc);
        cacc = symv_zero();
        curS = S;
        load_xs(S);
      }
      symv_t xc[SYMV_PIPE_CPT];
#pragma unroll
      for (int kk = 0; kk < SYMV_PIPE_CPT; kk++) xc[kk] = xs[s * UX + cg * SYMV_PIPE_CPT + kk];
      symv_pipe_tile_sums(buf, xc, I, S * SYMV_PDET_A + s, t, rsum, csum, src);
      __syncthreads();
      if (t < 64) racc = symv_add(racc, symv_pipe_row_total(rsum, t));
      if (t >= s * UX && t < (s + 1) * UX) /* column t of the unit strip: tile s's column t - s*UX */
        cacc = symv_add(cacc, symv_pipe_col_total(csum, t - s * UX));
      __syncthreads(); /* rsum and csum are free for the next tile */
      if (++s == cnt) { /* the unit's row sums */
        if (t < 64 && I * 64 + t < n) symv_pdet_store(R + (symv_ll)u * 64 + t, racc);
        racc = symv_zero();
        s = 0, u++;
        symv_pdet_next_unit(I, S, cnt, nb, ns);
      }
    }
    if (curS * SYMV_PDET_W + t < n) symv_pdet_store(C + (symv_ll)(blockIdx.x + curS) * SYMV_PDET_W + t, cacc);
    symv_cp_wait<0>(); /* no copy outlives the block */
    return;
  }
#endif
  /* the host launches G = gridDim.x <= ntiles blocks: every share holds a tile */
  int t0, t1, I, J, iI, iJ; /* (iI, iJ): the next tile to issue */
  symv_pipe_begin(ntiles, G, nb, ns, n, A, rs, cs, x, incx, symv_pipe_buf, SYMV_PIPE_STAGE_OF(wide), tma, t0, t1, I, J,
                  iI, iJ);
  auto issue = [&](int stage) {
    symv_pipe_issue(symv_pipe_buf + stage * SYMV_PIPE_STAGE_OF(wide), stage, iI, iJ, t, nb, n, A, rs, cs, x, incx,
                    tma);
  };

  symv_t xc[SYMV_PIPE_CPT];
  int curJ = J;
  symv_pipe_load_xc(xc, J, t, n, x, incx);
  symv_t cacc = symv_zero(); /* thread t < UX: column t's sum over this block's tiles of strip curJ */
  for (int k = t0; k < t1; k++) {
    if (k + SYMV_PIPE_S - 1 < t1) issue((k + SYMV_PIPE_S - 1 - t0) % SYMV_PIPE_S);
    symv_cp_commit();
    symv_pipe_wait<SYMV_PIPE_S - 1>(k - t0, src.tma);
    const symv_t *buf = symv_pipe_buf + ((k - t0) % SYMV_PIPE_S) * SYMV_PIPE_STAGE_OF(wide);
    if (J != curJ) { /* strip curJ's column sums, block blockIdx.x's share of them */
      if (t < UX && curJ * UX + t < n) symv_pdet_store(C + (symv_ll)(blockIdx.x + curJ) * UX + t, cacc);
      cacc = symv_zero();
      curJ = J;
      symv_pipe_load_xc(xc, J, t, n, x, incx);
    }
    const symv_t vr = symv_pipe_tile_totals<0>(buf, xc, I, J, t, rsum, csum, cacc, src);
    __syncthreads(); /* rsum and csum are free for the next tile */
    if (t < 64 && I * 64 + t < n) symv_pdet_store(R + (symv_ll)k * 64 + t, vr);
    if (++I == nb) J++, I = (int)symv_pipe_first_block(J, UX);
  }
  if (t < UX && curJ * UX + t < n) symv_pdet_store(C + (symv_ll)(blockIdx.x + curJ) * UX + t, cacc);
  symv_cp_wait<0>(); /* no copy outlives the block */
}
SYMV_PIPE_ENTRIES(symv_pdet_run, SYMV_PDET_PARAMS,
                  (n, A, rs, cs, x, incx, y, incy, alpha, beta, dalpha, dbeta, P, ntiles, G, phase))
