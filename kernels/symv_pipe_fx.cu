/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_pipe_fx.cu - kernel family "pipe_fx": the pipe kernel
 * (kernels/symv_pipe.cu) with its sums added exactly, in fixed point, so
 * that the same inputs give the same bits run after run (cuBLAS's default
 * atomics mode, CUBLAS_ATOMICS_NOT_ALLOWED) in one launch, with no block
 * ever waiting for another.
 *
 *          strip J
 *          |<-UX->|
 *          |\     |     Tiles, shares and the pipeline are pipe's: tiles of
 *   row    | \    |     64 rows by UX columns numbered down each column
 *   block I|==\===|     strip, SMs x MULTIPLICITY persistent blocks, block b
 *          |===\==|     streaming tiles [b*T/G, (b+1)*T/G) through MX + 2
 *          |====\=|     cp.async stages (kernels/symv_pipe.cuh), the same
 *          |=====\|     arithmetic per tile (symv_pipe_tile_sums).
 *
 * What differs is where the sums go. A contribution to element i of y (a
 * tile's row sum of row i; a block's column sum of column i over its tiles
 * of one strip, once it leaves the strip or ends), computed in floating
 * point in pipe's fixed order, is split into digits of 48 bits
 * (symv_fx_split, kernels/symv_fx.h) and added with integer atomics
 * (red.global.add.u64, two's complement) into element i's fixed-point
 * accumulator, without alpha. Integer additions are associative: whatever
 * order the blocks' atomics land in, the accumulator ends up holding the
 * exact sum of its contributions, which is rounded once (symv_fx_round_d,
 * symv_fx_round_f). Each contribution is a fixed function of n, UX, the
 * grid (G = SMs x MULTIPLICITY) and the data, so y is too: the same bits on
 * every run on a GPU of the same SM count, as cuBLAS promises its default
 * mode's.
 *
 * Completion: row block rb (rows 64 rb .. 64 rb + 63) receives a known
 * number of contributions in a call (symv_fx_expected: its tiles' row sums,
 * and the column sums of the blocks holding tiles of the strips its columns
 * lie in). A block adds its digits as it goes and counts them in cnt[rb]
 * once per strip it leaves (and at its end): the row sums of its tiles of
 * that strip, one for each of their row blocks, and its column sums of the
 * strip, one for each row block their columns lie in (one, two when UX =
 * 128): a barrier, then an acquiring and releasing atomic per row block,
 * one thread each (symv_pfx_count). The block that brings cnt[rb] to the
 * expected count reads rb's accumulators
 * (through L2, __ldcg), rounds each element once and writes
 *
 *   y(i) := alpha * s(i) + beta * y(i)       (beta = 0: y(i) not read)
 *
 * then stores zeros to the accumulators, cnt[rb] and flag[rb]. y is read
 * and written once per element: nothing scales y ahead of the additions,
 * so pipe's gate is not needed, and one launch does it all.
 *
 * Who finishes: below SYMV_FX_HELP_NB row blocks (kernels/symv_fx.h) the
 * completing block does, its threads taking the completed rows in turn.
 * From there on, most row blocks complete at the launch's end, many in
 * one count of the last blocks, and the blocks that have done their tiles
 * help (symv_pfx_help): a row block is two units of 32 rows, and each
 * unit has a state, state[u] = 2 e when it is complete in the call of
 * epoch e (the host's count of launches on the workspace) and 2 e + 1 once
 * a warp has taken it (less: not yet complete). The completing block's
 * warps take the units of their first pass at once and claim the others
 * (compare and swap from 2 e to 2 e + 1) in turn, while up to
 * SYMV_PFX_HELPERS warps of the blocks that have ended wait for each unit
 * and claim it too; exactly one claim wins, and its warp finishes the
 * unit, a row a lane. No block needs a helper: the completing block claims
 * every unit itself, and a helper gives up after SYMV_PFX_WAIT_NS (the
 * blocks need not all be resident). Which warp finishes a unit does not
 * change its value. A CUDA graph replays the epoch it captured: each
 * replay then finds every unit taken by the one before, its helpers stop
 * at once, and the completing blocks finish every unit themselves.
 * With MX 6..8 none of this: no row block is counted; the last blocks of
 * the grid to end finish y, a chunk each (symv_pfx_grid_finish).
 * alpha = 0: y := beta*y, A and x not read (SYMV_ENTER_OR_SCALE).
 *
 * Fallback: a contribution whose part is not finite, or has a nonzero bit
 * outside the window (double: [2^-384, 2^384); float: every finite float),
 * is not added; flag[rb] of its row block is set (atomicOr) instead. The
 * block completing a flagged row block computes its rows directly,
 * y(i) := alpha * sum_j A(i,j) x(j) + beta * y(i), every thread of the
 * block a column group (columns g, g + BLOCK_SIZE/64, ...), the groups'
 * sums added in group order: a fixed order again, and inf and NaN spread as
 * a plain dot product spreads them. It clears the accumulators as well.
 *
 * Workspace (unsigned long long, zero when allocated and left zero by every
 * call; gpu/gpu.c): cnt[nb], flag[nb], then acc[parts][words][n] (word
 * by word, so that a warp's atomics coalesce), parts = 1
 * (2 for complex routines: real and imaginary parts), words
 * SYMV_FX_WORDS_F (float, complex float) or SYMV_FX_WORDS_D (double,
 * complex double), then MX 6..8's chunk marks, nb words
 * (SYMV_FX_GRID_WORDS). An element receives at most ns + G contributions, one
 * digit each per word; the host refuses sizes where that exceeds
 * SYMV_FX_TERMS_MAX, the digits a word holds without overflow. The
 * units' states are a region of their own (zero when allocated, then
 * below every later call's 2 epoch): state[SYMV_PFX_STATE_STRIDE u] for
 * units u < 2 nb, one 128-byte line each; MX 6..8 use state[1] alone,
 * the grid's word.
 * Programmatic dependent launch as pipe: SYMV_ENTER waits for the previous
 * grid before any access, so its clearing is visible.
 *
 * Parameters and shared memory as pipe's (kernels/symv_pipe.cuh): BLOCK_SIZE
 * a power of two, 64..1024; UX a power of two, BLOCK_SIZE/64..BLOCK_SIZE/2,
 * up to 128; MX = pipeline stages - 2, 0..2, 3..5 the same stages with
 * counts held (SYMV_PFX_DEFER), 6..8 the same stages completed by the grid
 * (SYMV_PFX_GRID); MULTIPLICITY blocks per SM; dynamic
 * shared memory symv_pipe_smem_of (gpu/gpu.c). Every routine
 * (SYMV_ROUTINE): symv_mirror for the column sums, symv_diag for the
 * diagonal, as in pipe.
 */
#include "symv_common.cuh"
#include "symv_pipe.h"
#define SYMV_PIPE_MX_MAX 8 /* MX 3..5: MX - 3's stages, counts held (SYMV_PFX_DEFER); 6..8: MX - 6's, completion by the grid (SYMV_PFX_GRID) */
#include "symv_pipe.cuh"
#include "symv_fx.h"
#include "symv_gate.cuh" /* symv_now_ns */

/* the accumulator of one real part: words from 2^E0 */
#if SYMV_SINGLE
#define SYMV_PFX_WORDS SYMV_FX_WORDS_F
#define SYMV_PFX_E0 SYMV_FX_E0_F
#else
#define SYMV_PFX_WORDS SYMV_FX_WORDS_D
#define SYMV_PFX_E0 SYMV_FX_E0_D
#endif
#define SYMV_PFX_PARTS (SYMV_COMPLEX ? 2 : 1)
/* complex double (zsymv, zhemv) with MX 0..2: a block counts the row sums
 * of a strip's tiles every SYMV_PFX_COUNT_ROWS tiles (<= 64, the least
 * BLOCK_SIZE) while more of the strip follow, so that no count completes
 * more row blocks than that and the strip's column row blocks; 0 (the
 * other routines, and MX 3..5): only when it leaves a strip or ends */
/* MX 6..8 (the stages of MX 0..2): no count per row block; the grid's
 * blocks count themselves done once, at their end, and the last ones to do
 * so finish y (symv_pfx_grid_finish) */
#define SYMV_PFX_GRID (MX >= SYMV_FX_GRID_MX)
#if SYMV_COMPLEX && !SYMV_SINGLE && MX < 3
#define SYMV_PFX_COUNT_ROWS 16
#else
#define SYMV_PFX_COUNT_ROWS 0
#endif
/* MX 3..5 (the stages of MX 0..2): a block holds the contributions of the
 * strips it leaves while their row blocks fit in BLOCK_SIZE, and counts
 * them together (at the latest when it ends), and symv_pfx_finish is a
 * function of its own, not inlined at the two places that count (inlined,
 * the kernel spills). MX 0..2: a block counts each strip as it leaves it,
 * and the compiler places symv_pfx_finish. Which pays depends on the GPU
 * and n (doc/results.md, "pipe_fx, third version"): the sweep chooses. */
#if MX >= 3 && MX < SYMV_FX_GRID_MX
#define SYMV_PFX_DEFER 1
#define SYMV_PFX_FINISH_ATTR __noinline__
#elif SYMV_PFX_GRID
#define SYMV_PFX_DEFER 0
#define SYMV_PFX_FINISH_ATTR __noinline__
#else
#define SYMV_PFX_DEFER 0
#if SYMV_COMPLEX /* inlined, the complex kernels spill (CHEMV 256,64,2,0) or take registers that cost a block */
#define SYMV_PFX_FINISH_ATTR __noinline__
#else
#define SYMV_PFX_FINISH_ATTR
#endif
#endif

#define SYMV_PFX_STATE_STRIDE 16 /* words from one unit's state to the next: a 128-byte line each */
/* whether blocks help finish at nb row blocks (see the header) */
static __device__ __forceinline__ bool symv_pfx_helped(int nb) { return nb >= SYMV_FX_HELP_NB; }
/* helping (symv_pfx_help): warps that wait for each unit, how long a
 * helper waits at most, and how long it sleeps between two looks */
#define SYMV_PFX_HELPERS 2
#define SYMV_PFX_WAIT_NS 100000
#define SYMV_PFX_POLL_NS 200

/* *p += v at GPU scope, returning the old value: the addition releases
 * what this thread's block did before it (ordered before it by a barrier)
 * and acquires what the threads that added before released */
static __device__ __forceinline__ symv_ull symv_pfx_add_acq_rel(symv_ull *p, symv_ull v)
{
  symv_ull old;
  asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], %2;\n" : "=l"(old) : "l"(p), "l"(v) : "memory");
  return old;
}

/* *p read at GPU scope, relaxed (a word other blocks write while this one
 * waits for it) */
static __device__ __forceinline__ symv_ull symv_pfx_ld_relaxed(const symv_ull *p)
{
  symv_ull v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];\n" : "=l"(v) : "l"(p) : "memory");
  return v;
}

/* real part p (0: real, 1: imaginary) of v */
static __device__ __forceinline__ symv_r symv_pfx_part(symv_t v, int p)
{
#if SYMV_COMPLEX
  return p ? v.im : v.re;
#else
  (void)p;
  return v;
#endif
}

/* word k of part p of element i's accumulator: the words are stored word
 * by word, acc[(p * WORDS + k) * n + i], so that a warp's atomics on one
 * word of 32 consecutive elements fall on consecutive addresses */
static __device__ __forceinline__ symv_ull *symv_pfx_word(symv_ull *acc, int n, int i, int p, int k)
{
  return acc + (symv_ll)(p * SYMV_PFX_WORDS + k) * n + i;
}

/* v's parts added exactly to element i's accumulator (n elements); false
 * (that part left out) when a part is not finite or out of the window. */
static __device__ __forceinline__ bool symv_pfx_add(symv_ull *acc, int n, int i, symv_t v)
{
  bool ok = true;
#pragma unroll
  for (int p = 0; p < SYMV_PFX_PARTS; p++) {
    int k0;
    long long d[3];
    if (symv_fx_split((double)symv_pfx_part(v, p), SYMV_PFX_E0, SYMV_PFX_WORDS, &k0, d) != SYMV_FX_OK) {
      ok = false;
      continue;
    }
#pragma unroll
    for (int q = 0; q < 3; q++)
      if (d[q] != 0) atomicAdd(symv_pfx_word(acc, n, i, p, k0 + q), (symv_ull)d[q]); /* k0 + q < WORDS */
  }
  return ok;
}

/* Counts, once all the block's threads have added them, the contributions
 * the block made to row blocks lo..hi: add(rb) each (its tiles' row sums
 * and its column sums of one strip there). A barrier, then one atomic per
 * row block (atom.acq_rel), thread t taking rb = lo + t: it releases the
 * block's additions, which the barrier ordered before it; the row blocks
 * this brought to their expected count (symv_fx_expected) go to
 * list[0..*nlist), in no particular order, with their flags in fl. The
 * thread that completes a row block has acquired what the blocks that
 * counted before released: with the barrier that ends this function, the
 * other blocks' additions and flags, made before their counts, are visible
 * to every thread of the block that reads them after it (through L2).
 * From SYMV_FX_HELP_NB row blocks on, that thread also sets the states of
 * the row block's two units (see the header) for the call of this epoch.
 * Called by every thread (barriers); *nlist, list and fl are shared
 * memory, list and fl of BLOCK_SIZE entries: hi - lo < BLOCK_SIZE. */
template <typename Add>
static __device__ __forceinline__ void symv_pfx_count(symv_ull *cnt, const symv_ull *flag, symv_ull *state,
                                                      symv_ull epoch, int lo, int hi, Add add,
                                                      int nb, int ns, int ntiles, int *list, int *fl, int *nlist)
{
  const int t = threadIdx.x, rb = lo + t;
  const int a = rb <= hi ? add(rb) : 0;
  /* the count is worked out while the other threads' additions finish */
  const long want = a ? symv_fx_expected(rb, nb, ns, UX, ntiles, gridDim.x) : 0;
  if (t == 0) *nlist = 0;
  __syncthreads();
  if (a) {
    /* releases the block's additions; acquires those of the blocks that counted before */
    const symv_ull old = symv_pfx_add_acq_rel(cnt + rb, (symv_ull)a);
    if ((long)(old + a) == want) {
      const int f = __ldcg(flag + rb) != 0, k = atomicAdd(nlist, 1);
      list[k] = rb, fl[k] = f;
      /* where blocks help: its two units' states, taken (flagged, or among
       * the first pass of this block's warps, which finish them without a
       * claim) or complete */
      if (symv_pfx_helped(nb)) {
        const symv_ull st = 2 * epoch + (f || 2 * k + 1 < BLOCK_SIZE / 32);
        atomicExch(state + SYMV_PFX_STATE_STRIDE * 2 * rb, st);
        atomicExch(state + SYMV_PFX_STATE_STRIDE * (2 * rb + 1), st);
      }
    }
  }
  __syncthreads();
}

/* y(i) := alpha * v + beta * yold, then element i's accumulator zero
 * again. */
static __device__ __forceinline__ void symv_pfx_store(int i, int n, symv_t v, symv_t yold, symv_t *y, symv_ll incy,
                                                      symv_t alpha, symv_t beta, symv_ull *acc)
{
  y[(symv_ll)i * incy] = symv_y_value(alpha, v, beta, yold);
#pragma unroll
  for (int p = 0; p < SYMV_PFX_PARTS; p++)
#pragma unroll
    for (int k = 0; k < SYMV_PFX_WORDS; k++) *symv_pfx_word(acc, n, i, p, k) = 0;
}

/* y(i) as symv_y_value reads it: not read when beta = 0 */
static __device__ __forceinline__ symv_t symv_pfx_yold(int i, const symv_t *y, symv_ll incy, symv_t beta)
{
  return symv_nonzero(beta) ? y[(symv_ll)i * incy] : symv_zero();
}

/* y(i) := alpha * s(i) + beta * y(i) for element i of a complete row
 * block, s(i) its accumulator rounded once per part (read through L2:
 * other blocks added to it), then the accumulator zero again. y(i) and
 * every word of every part are loaded before any is used, so that the row
 * costs one trip to memory. */
static __device__ __noinline__ void symv_pfx_finish_row(symv_ull *acc, int n, int i, symv_t *y, symv_ll incy,
                                                        symv_t alpha, symv_t beta, const symv_ull *fp)
{
  const symv_t yold = symv_pfx_yold(i, y, incy, beta);
  const symv_ull f = fp ? __ldcg(fp) : 0; /* the row block's flag, loaded with the words */
  long long wv[SYMV_PFX_PARTS][SYMV_PFX_WORDS];
#pragma unroll
  for (int p = 0; p < SYMV_PFX_PARTS; p++)
#pragma unroll
    for (int k = 0; k < SYMV_PFX_WORDS; k++) wv[p][k] = (long long)__ldcg(symv_pfx_word(acc, n, i, p, k));
  if (f) return; /* flagged: computed directly (symv_pfx_finish) */
  symv_r s[SYMV_PFX_PARTS];
#pragma unroll
  for (int p = 0; p < SYMV_PFX_PARTS; p++)
#if SYMV_SINGLE
    s[p] = symv_fx_round_f(wv[p], SYMV_PFX_WORDS, SYMV_PFX_E0);
#else
    s[p] = symv_fx_round_d(wv[p], SYMV_PFX_WORDS, SYMV_PFX_E0);
#endif
#if SYMV_COMPLEX
  symv_pfx_store(i, n, symv_make(s[0], s[1]), yold, y, incy, alpha, beta, acc);
#else
  symv_pfx_store(i, n, s[0], yold, y, incy, alpha, beta, acc);
#endif
}

/* Unit u (rows 32 u .. 32 u + 31 of row block u/2), um = 2 u + mine,
 * complete: unless mine (taken already by this warp's block), claimed
 * (state 2 epoch := 2 epoch + 1, an acquiring compare and swap: the
 * accumulators as the completing block saw them, for every lane after
 * the warp's barrier); if this warp has it, finished, row 32 u + l by lane
 * l (those < n), and for the row block's first unit its cnt zero again.
 * Called by a whole warp. */
static __device__ __noinline__ void symv_pfx_claim_finish(int um, int n, symv_t *y, symv_ll incy, symv_t alpha,
                                                          symv_t beta, symv_ull *cnt, symv_ull *state, symv_ull epoch,
                                                          symv_ull *acc)
{
  const int lane = threadIdx.x & 31, u = um >> 1, mine = um & 1;
  int won = mine;
  if (lane == 0 && !mine) {
    symv_ull old;
    asm volatile("atom.acquire.gpu.global.cas.b64 %0, [%1], %2, %3;\n"
                 : "=l"(old)
                 : "l"(state + SYMV_PFX_STATE_STRIDE * u), "l"(2 * epoch), "l"(2 * epoch + 1)
                 : "memory");
    won = old == 2 * epoch;
  }
  if (!__shfl_sync(0xffffffffu, won, 0)) return;
  __syncwarp();
  const int i = u * 32 + lane;
  if (i < n) symv_pfx_finish_row(acc, n, i, y, incy, alpha, beta, NULL);
  if (lane == 0 && u % 2 == 0) cnt[u / 2] = 0;
}

/* The helping of a warp whose block has done its tiles (nb >=
 * SYMV_FX_HELP_NB row blocks, 2 nb units): warp gw of the grid's GW waits
 * for unit u = gw mod 2 nb (warps gw < SYMV_PFX_HELPERS x 2 nb; when
 * GW < 2 nb, units gw, gw + GW, ... in turn) to complete, and claims and
 * finishes it unless another warp has taken it (symv_pfx_claim_finish).
 * It gives up after SYMV_PFX_WAIT_NS in all: the completing block claims
 * every unit as well, so none waits for a helper. Called by a whole
 * warp. */
#if !SYMV_PFX_GRID
static __device__ __noinline__ void symv_pfx_help(int n, int nb, symv_t *y, symv_ll incy, symv_t alpha, symv_t beta,
                                                  symv_ull *cnt, symv_ull *state, symv_ull epoch, symv_ull *acc)
{
  const int lane = threadIdx.x & 31, W = BLOCK_SIZE / 32;
  const int gw = blockIdx.x * W + (threadIdx.x >> 5), GW = gridDim.x * W;
  const symv_ull t0 = symv_now_ns();
  const int nu = 2 * nb;
  if (gw >= SYMV_PFX_HELPERS * nu) return; /* each unit has its helpers */
  for (int u = GW >= nu ? gw % nu : gw; u < nu; u += GW >= nu ? nu : GW) {
    int go = 0; /* 1: complete and not taken; 0: taken; -1: waited too long */
    if (lane == 0)
      for (;;) {
        const symv_ull s = symv_pfx_ld_relaxed(state + SYMV_PFX_STATE_STRIDE * u);
        if (s >= 2 * epoch) {
          go = s == 2 * epoch;
          break;
        }
        if (symv_now_ns() - t0 > SYMV_PFX_WAIT_NS) {
          go = -1;
          break;
        }
        __nanosleep(SYMV_PFX_POLL_NS);
      }
    go = __shfl_sync(0xffffffffu, go, 0);
    if (go < 0) return;
    if (go) symv_pfx_claim_finish(2 * u, n, y, incy, alpha, beta, cnt, state, epoch, acc);
  }
}
#endif

/* Row blocks list[0..nf), each complete: y(i) for their rows i < n from
 * the rows' accumulators rounded once, the block's threads taking the
 * list's rows in turn (row r of list[g] is the list's row 64 g + r), or
 * from SYMV_FX_HELP_NB row blocks on, its warps taking the list's units
 * in turn (unit h of list[g] is the list's unit 2 g + h), the first pass's
 * at once, the others claimed against helpers (symv_pfx_claim_finish); a
 * row block whose flag is set (fl[g]; see the header) is computed directly
 * instead, after the others, one at a time, by the whole block: row i's
 * column group cg takes columns cg, cg + CG, ... in order (A(i, j) stored
 * for j <= i, its mirror A(j, i) for j > i), the groups' sums added in
 * group order. Either way each row block's y is a function of its own
 * flag and sums, whichever block finishes it with whichever others. Then
 * the rows' accumulators, cnt and flag of each row block are zero again.
 * list and fl as symv_pfx_count leaves them, read after its closing
 * barrier; scratch: CG x 64 elements of shared memory, free on entry and
 * on return. Called by every thread (barriers). */
static __device__ SYMV_PFX_FINISH_ATTR void symv_pfx_finish(const int *list, int nf, int n,
                                                             const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                             const symv_t *__restrict__ x, symv_ll incx, symv_t *y,
                                                             symv_ll incy, symv_t alpha, symv_t beta, symv_ull *cnt,
                                                             symv_ull *flag, symv_ull *state, symv_ull epoch,
                                                             symv_ull *acc, const int *fl,
                                                             symv_t (*scratch)[64])
{
  const int t = threadIdx.x, r = t & 63, cg = t >> 6;
  if (nf == 0) return; /* the same in every thread */
  if (SYMV_PFX_GRID) { /* the rows done by symv_pfx_grid_chunk */
  } else if (!symv_pfx_helped((n + 63) / 64)) { /* no helpers: the block's threads take the rows in turn */
    for (int q = t; q < nf * 64; q += BLOCK_SIZE) {
      const int g = q >> 6, i = list[g] * 64 + (q & 63);
      if (!fl[g] && i < n) symv_pfx_finish_row(acc, n, i, y, incy, alpha, beta, NULL);
    }
  } else { /* a warp a unit of 32 rows in turn, claimed unless among the first pass */
    for (int g = t >> 5; g < 2 * nf; g += BLOCK_SIZE / 32)
      if (!fl[g >> 1])
        symv_pfx_claim_finish(2 * (2 * list[g >> 1] + (g & 1)) + (g < BLOCK_SIZE / 32), n, y, incy, alpha, beta, cnt,
                              state, epoch, acc);
  }
  for (int g = 0; g < nf; g++) {
    if (!fl[g]) continue; /* the same for every thread */
    const int ig = list[g] * 64 + r;
    symv_t s = symv_zero();
    if (ig < n)
      for (int j = cg; j < n; j += SYMV_PIPE_CG) {
        const symv_t a = j <= ig ? A[(symv_ll)ig * rs + (symv_ll)j * cs] : A[(symv_ll)j * rs + (symv_ll)ig * cs];
        s = symv_fma_rn(j == ig ? symv_diag(a) : j < ig ? a : symv_mirror(a), x[(symv_ll)j * incx], s);
      }
    scratch[cg][r] = s;
    __syncthreads();
    if (t < 64 && ig < n) /* row t's CG shares (scratch's rows of a tile are BLOCK_SIZE/32 for 4 rows a thread) */
      symv_pfx_store(ig, n, symv_pipe_row_total<SYMV_PIPE_CG>(scratch, t), symv_pfx_yold(ig, y, incy, beta), y,
                     incy, alpha, beta, acc);
    __syncthreads(); /* scratch is free again */
  }
  __syncthreads(); /* list, fl and the caller's count of them are free again */
  if (t < nf) cnt[list[t]] = 0, flag[list[t]] = 0;
}

#if SYMV_PFX_GRID
/* The grid's word, state[1] (beside unit 0's state, which MX 6..8 do not
 * use; the state region is zero when allocated): bits 0..15 count the
 * blocks of this call that have made their additions, bits 16..31 those
 * that have started, bits 32..63 the generation, which the last block of
 * each call advances as it sets both counts zero, in one addition. The
 * word needs no clearing between calls (a CUDA graph's replays
 * included), and a waiting finisher waits for the generation to move.
 * The host launches G < 2^16 blocks. Chunk c's mark: fx's word c after
 * the accumulators (SYMV_FX_GRID_WORDS), zero between calls: the last
 * block clears each after reading it. */
#define SYMV_PFX_ARRIVED 1ull
#define SYMV_PFX_STARTED (1ull << 16)
#define SYMV_PFX_GEN (1ull << 32)
#define SYMV_PFX_MARK_WAIT 1 /* chunk c's finisher waits for the grid and finishes c */
#define SYMV_PFX_MARK_LEFT 2 /* chunk c's finisher found blocks not started: the last block finishes c */

/* Chunk c (row blocks c cr .. c cr + cr - 1 below nb) of a call whose
 * additions are all made and visible: y of its rows, each row's flag
 * loaded with its words (symv_pfx_finish_row), then the flagged row
 * blocks computed directly and the flags zero again (symv_pfx_finish).
 * list, fl as symv_pfx_count's. Called by every thread (barriers). */
static __device__ __noinline__ void symv_pfx_grid_chunk(int c, int cr, int n, const symv_t *__restrict__ A, int rs,
                                                        symv_ll cs, const symv_t *__restrict__ x, symv_ll incx,
                                                        symv_t *y, symv_ll incy, symv_t alpha, symv_t beta,
                                                        symv_ull *fx, int *list, int *fl, symv_t (*scratch)[64])
{
  const int t = threadIdx.x, nb = (n + 63) / 64, rb0 = c * cr;
  symv_ull *const cnt = fx, *const flag = fx + nb, *const acc = fx + 2 * (symv_ll)nb;
  const int nf = min(cr, nb - rb0);
  if (t < nf) list[t] = rb0 + t, fl[t] = __ldcg(flag + rb0 + t) != 0;
  for (int q = t; q < nf * 64; q += BLOCK_SIZE) {
    const int i = rb0 * 64 + q;
    if (i < n) symv_pfx_finish_row(acc, n, i, y, incy, alpha, beta, flag + rb0 + (q >> 6));
  }
  __syncthreads(); /* list and fl */
  symv_pfx_finish(list, nf, n, A, rs, cs, x, incx, y, incy, alpha, beta, cnt, flag, NULL, 0, acc, fl, scratch);
}

/* A block's end in MX 6..8, once its additions are made: it counts itself
 * done (a barrier, then one acquiring and releasing atomic on the grid's
 * word, which returns the counts and the generation). The last F to count
 * (F chunks of cr row blocks, symv_fx_grid_chunk) are the finishers: the
 * one at place G - F + c takes chunk c. A finisher other than the last
 * looks at the started count its atomic returned: if all G blocks had
 * started, every block still to count is running and counts without
 * waiting for any, so it marks c WAIT, waits for the generation to move and
 * finishes c; if not, it marks c LEFT and ends, so that it never holds a
 * place a block still to start may need. The last block (its count the
 * G-th) moves the generation with a releasing addition (the counts zero
 * again), reads and clears each other chunk's mark (written before its
 * finisher waits), then finishes its own chunk F - 1 and those marked
 * LEFT. Each chunk is finished once, by one block, from the same
 * accumulators: y does not depend on which. Called by every thread. */
static __device__ __noinline__ void symv_pfx_grid_finish(int n, const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                         const symv_t *__restrict__ x, symv_ll incx, symv_t *y,
                                                         symv_ll incy, symv_t alpha, symv_t beta, symv_ull *fx,
                                                         symv_ull *gword, symv_ull *marks, int *list, int *fl,
                                                         symv_t (*scratch)[64])
{
  const int t = threadIdx.x, nb = (n + 63) / 64, G = gridDim.x;
  const int cr = symv_fx_grid_chunk(nb, BLOCK_SIZE, G), F = (nb + cr - 1) / cr;
  __shared__ int role; /* -2: none; -1: the last block; c >= 0: chunk c's waiting finisher */
  __syncthreads(); /* the block's additions are made */
  if (t == 0) {
    /* the count releases the block's additions and, in the last block, acquires every other block's */
    const symv_ull old = symv_pfx_add_acq_rel(gword, SYMV_PFX_ARRIVED);
    const int pos = (int)(old & 0xffff), started = (int)((old >> 16) & 0xffff);
    int r = -2;
    if (pos == G - 1) {
      asm volatile("red.release.gpu.global.add.u64 [%0], %1;\n" ::"l"(gword), /* releases them on */
                   "l"(SYMV_PFX_GEN - (symv_ull)G * (SYMV_PFX_STARTED + SYMV_PFX_ARRIVED))
                   : "memory");
      r = -1;
    } else if (pos >= G - F) {
      const int c = pos - (G - F);
      const bool all = started == G;
      asm volatile("st.relaxed.gpu.global.u64 [%0], %1;\n" ::"l"(marks + c),
                   "l"((symv_ull)(all ? SYMV_PFX_MARK_WAIT : SYMV_PFX_MARK_LEFT))
                   : "memory");
      if (all) {
        symv_ull g;
        do asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(g) : "l"(gword) : "memory");
        while ((g >> 32) == (old >> 32)); /* acquired: every block's additions, for the block after the barrier */
        r = c;
      }
    }
    role = r;
  }
  __syncthreads();
  const int r = role;
  if (r == -2) return; /* the same in every thread */
  if (r >= 0) {
    symv_pfx_grid_chunk(r, cr, n, A, rs, cs, x, incx, y, incy, alpha, beta, fx, list, fl, scratch);
    return;
  }
  /* the last block: the other chunks' marks, BLOCK_SIZE at a time */
  __shared__ int left[BLOCK_SIZE];
  for (int c0 = 0; c0 < F - 1; c0 += BLOCK_SIZE) {
    const int c = c0 + t;
    symv_ull m = 0;
    if (c < F - 1) {
      do m = symv_pfx_ld_relaxed(marks + c);
      while (m == 0);
      marks[c] = 0;
    }
    left[t] = m == SYMV_PFX_MARK_LEFT;
    __syncthreads();
    if (c0 == 0) symv_pfx_grid_chunk(F - 1, cr, n, A, rs, cs, x, incx, y, incy, alpha, beta, fx, list, fl, scratch);
    for (int k = 0; k < BLOCK_SIZE && c0 + k < F - 1; k++)
      if (left[k]) /* the same in every thread */
        symv_pfx_grid_chunk(c0 + k, cr, n, A, rs, cs, x, incx, y, incy, alpha, beta, fx, list, fl, scratch);
    __syncthreads(); /* left is free */
  }
  if (F == 1) symv_pfx_grid_chunk(0, cr, n, A, rs, cs, x, incx, y, incy, alpha, beta, fx, list, fl, scratch);
}
#endif

#define SYMV_PFX_PARAMS                                                                                      \
  (int n, const symv_t *__restrict__ A, int rs, symv_ll cs, const symv_t *__restrict__ x, symv_ll incx, symv_t *y, \
   symv_ll incy, symv_t alpha, symv_t beta, const symv_t *dalpha, const symv_t *dbeta, symv_ull *fx,              \
   symv_ull *state, symv_ull epoch, int ntiles)
SYMV_PIPE_KERNEL(symv_pfx_run, SYMV_PFX_PARAMS) /* the body; its entry points (symv_pipe.cuh) at the end */
{
  extern __shared__ SYMV_PIPE_BUF_ALIGN symv_t symv_pipe_buf[]; /* S stages x SYMV_PIPE_STAGE_OF(symv_runs) elements */
  __shared__ symv_t rsum[SYMV_PIPE_RSUM_ROWS][64];  /* a tile's row sums by column group; the fallback's scratch */
  __shared__ symv_t csum[SYMV_PIPE_CSUM_ROWS][SYMV_PIPE_CPT];
  const int t = threadIdx.x;
  const int nb = (n + 63) / 64, ns = (n + UX - 1) / UX;
  symv_ull *const cnt = fx, *const flag = fx + nb, *const acc = fx + 2 * (symv_ll)nb;
  SYMV_ENTER_OR_SCALE();
#if SYMV_PFX_GRID
  symv_ull *const marks = acc + (symv_ll)SYMV_PFX_PARTS * SYMV_PFX_WORDS * n, *const gword = state + 1;
  if (t == 0) /* started */
    asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;\n" ::"l"(gword), "l"(SYMV_PFX_STARTED) : "memory");
#endif

  /* the host launches G = gridDim.x <= ntiles blocks: every share holds a tile */
  const symv_pipe_src src = symv_pipe_src_of(A, rs, cs, n, symv_runs);
  if (symv_runs) symv_pipe_bar_init();
  int t0, t1, I, J, iI, iJ; /* (iI, iJ): the next tile to issue */
  symv_pipe_begin(ntiles, gridDim.x, nb, ns, n, A, rs, cs, x, incx, symv_pipe_buf, SYMV_PIPE_STAGE_OF(symv_runs),
                  symv_runs, t0, t1, I, J, iI, iJ);
  auto issue = [&](int stage) {
    symv_pipe_issue(symv_pipe_buf + stage * SYMV_PIPE_STAGE_OF(symv_runs), stage, iI, iJ, t, nb, n, A, rs, cs, x,
                    incx, symv_runs);
  };
  __shared__ int fin[BLOCK_SIZE], finflag[BLOCK_SIZE]; /* the row blocks a count completed (a chunk), their flags */
  symv_t cacc = symv_zero(); /* thread t < UX: column t's sum over this block's tiles of strip curJ */
#if !SYMV_PFX_GRID
  __shared__ int nfin;
  /* add(rb) contributions counted in each row block rb of lo..hi (hi - lo
   * < BLOCK_SIZE), and the row blocks that completed finished */
  auto count_and_finish = [&](int lo, int hi, auto add) {
    symv_pfx_count(cnt, flag, state, epoch, lo, hi, add, nb, ns, ntiles, fin, finflag, &nfin);
    symv_pfx_finish(fin, nfin, n, A, rs, cs, x, incx, y, incy, alpha, beta, cnt, flag, state, epoch, acc, finflag,
                    rsum);
  };
#endif
#if SYMV_PFX_DEFER
  /* contributions added and not yet counted: pend[rb - pbase] for row
   * blocks pbase..phi (phi - pbase < BLOCK_SIZE), thread t owning pend[t];
   * pbase < 0: none */
  __shared__ int pend[BLOCK_SIZE];
  pend[t] = 0;
  int pbase = -1, phi = -1;
  /* the pending contributions counted, and the row blocks completed finished */
  auto flush = [&]() {
    if (pbase < 0) return; /* the same in every thread */
    count_and_finish(pbase, phi, [&](int rb) { return pend[rb - pbase]; });
    pend[t] = 0, pbase = -1, phi = -1;
  };
#endif
  /* with cols (the block leaves strip Js, or ends), strip Js's column
   * sums, this block's share of them, added; then the block's
   * contributions in strip Js since its last count: the row sums of its
   * tiles, row blocks Ia..Ib, and with cols its column sums, in the row
   * blocks c0..c1 their columns lie in (c0 = the strip's first row block
   * <= Ia). With SYMV_PFX_DEFER they join the pending ones while all fit
   * in BLOCK_SIZE row blocks from pbase, to be counted together later (a
   * block of many short strips at the triangle's end counts once);
   * otherwise they are counted now, and the row blocks those counts
   * completed are finished */
  auto leave_strip = [&](int Js, int Ia, int Ib, bool strip_end) {
    const bool cols = SYMV_PFX_COUNT_ROWS == 0 || strip_end; /* a constant where no count comes mid-strip */
    const int j = Js * UX + t;
    if (cols && t < UX && j < n && !symv_pfx_add(acc, n, j, cacc)) atomicOr(flag + j / 64, 1ull);
#if SYMV_PFX_GRID
    (void)Ia, (void)Ib; /* counted at the block's end, by the grid */
#else
    const int c0 = Js * UX / 64, c1 = cols ? min((Js * UX + UX - 1) / 64, nb - 1) : -1, hi = max(Ib, c1);
    const int lo0 = cols ? c0 : Ia;
    auto add = [&](int rb) { return (int)(rb >= Ia && rb <= Ib) + (int)(rb <= c1); }; /* rb >= c0 */
#if SYMV_PFX_DEFER
    if (pbase >= 0 && (lo0 < pbase || hi >= pbase + BLOCK_SIZE)) flush();
    if (hi - lo0 < BLOCK_SIZE) {
      if (pbase < 0) pbase = lo0;
      const int rb = pbase + t;
      if (rb >= lo0 && rb <= hi) pend[t] += add(rb);
      phi = max(phi, hi);
      return;
    }
#endif
    for (int lo = lo0; lo <= hi; lo += BLOCK_SIZE) count_and_finish(lo, min(hi, lo + BLOCK_SIZE - 1), add);
#endif
  };

  symv_t xc[SYMV_PIPE_CPT];
  int curJ = J, Ia = I, Ib = I; /* row blocks Ia..Ib: this block's tiles of strip curJ not yet counted */
  symv_pipe_load_xc(xc, J, t, n, x, incx);
  for (int k = t0; k < t1; k++) {
    if (k + SYMV_PIPE_S - 1 < t1) issue((k + SYMV_PIPE_S - 1 - t0) % SYMV_PIPE_S);
    symv_cp_commit();
    symv_pipe_wait<SYMV_PIPE_S - 1>(k - t0, src.tma);
    const symv_t *buf = symv_pipe_buf + ((k - t0) % SYMV_PIPE_S) * SYMV_PIPE_STAGE_OF(symv_runs);
    if (J != curJ) {
      leave_strip(curJ, Ia, Ib, true);
      cacc = symv_zero();
      curJ = J, Ia = I;
      symv_pipe_load_xc(xc, J, t, n, x, incx);
    }
    /* the tile's sums, row r's total and its digits in thread tr = r of
     * the block's last 64 threads, while the column totals are the first
     * UX threads': splitting and adding is the longest work of a tile's
     * end, and the warps that do it are not the ones that total the
     * columns (BLOCK_SIZE >= 128) */
    const int tr = t - (BLOCK_SIZE - 64);
    const symv_t vr = symv_pipe_tile_totals<BLOCK_SIZE - 64>(buf, xc, I, J, t, rsum, csum, cacc, src);
    __syncthreads(); /* rsum and csum are free for the next tile */
    /* after the barrier, as pipe's atomics: the other warps go on to the next tile meanwhile */
    if (tr >= 0 && I * 64 + tr < n && !symv_pfx_add(acc, n, I * 64 + tr, vr)) atomicOr(flag + I, 1ull);
    Ib = I;
#if SYMV_PFX_COUNT_ROWS > 0
    if (Ib - Ia + 1 == SYMV_PFX_COUNT_ROWS && I + 1 < nb && k + 1 < t1) {
      leave_strip(curJ, Ia, Ib, false);
      Ia = Ib + 1;
    }
#endif
    if (++I == nb) J++, I = (int)symv_pipe_first_block(J, UX);
  }
  leave_strip(curJ, Ia, Ib, true);
#if SYMV_PFX_DEFER
  flush();
#endif
  symv_cp_wait<0>(); /* no copy outlives the block */
#if SYMV_PFX_GRID
  (void)cnt, (void)epoch;
  symv_pfx_grid_finish(n, A, rs, cs, x, incx, y, incy, alpha, beta, fx, gword, marks, fin, finflag, rsum);
#else
  if (symv_pfx_helped(nb)) symv_pfx_help(n, nb, y, incy, alpha, beta, cnt, state, epoch, acc);
#endif
}
SYMV_PIPE_ENTRIES(symv_pfx_run, SYMV_PFX_PARAMS,
                  (n, A, rs, cs, x, incx, y, incy, alpha, beta, dalpha, dbeta, fx, state, epoch, ntiles))
