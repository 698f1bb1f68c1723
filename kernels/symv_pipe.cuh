/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_pipe.cuh - what the pipe families share (kernels/symv_pipe.cu,
 * atomic; kernels/symv_pipe_det.cu and kernels/symv_pipe_fx.cu,
 * deterministic): their parameters'
 * constraints and derived sizes (column groups, columns per thread,
 * pipeline stages), the tile numbering, the cp.async copies that stream
 * tiles of 64 rows x UX columns into shared memory (for SSYMV, in a
 * second and a third entry point the host launches where A's columns are
 * not 16-byte aligned and n >= SYMV_PIPE_TMA_MIN_N, the copy engine's runs
 * of whole columns instead, rows ascending or descending in memory),
 * and the per-tile code: a tile's copies, x of a strip's columns,
 * the row and column sums of a tile (with the transposing butterfly) and
 * their totals, and the start of a block's share. The kernels read and
 * sum a tile with these same functions and differ in where the sums go
 * (atomicAdd into y; a workspace summed in a fixed order; exact integer
 * accumulators).
 *
 * Included after symv_common.cuh (symv_t, BLOCK_SIZE, UX, MX) and
 * symv_pipe.h (symv_pipe_tiles_before).
 */
#ifndef SYMV_PIPE_CUH
#define SYMV_PIPE_CUH

#if BLOCK_SIZE % 64 != 0 || (BLOCK_SIZE & (BLOCK_SIZE - 1)) != 0
#error "BLOCK_SIZE of the pipe family (and pipe_det) must be a power of two, 64..1024"
#endif
/* UX <= BLOCK_SIZE/2: at most 32 columns a thread (CPT), one a lane of the
 * column sums' butterfly (symv_pipe_tr), which has no lane for a 33rd */
#if (UX & (UX - 1)) != 0 || UX < BLOCK_SIZE / 64 || UX > BLOCK_SIZE / 2
#error "UX of the pipe family (and pipe_det) must be a power of two, BLOCK_SIZE/64..BLOCK_SIZE/2"
#endif
#ifndef SYMV_PIPE_MX_MAX /* pipe_det's is 5, pipe_fx's 8 (symv_pipe_det.cu, symv_pipe_fx.cu) */
#define SYMV_PIPE_MX_MAX 2
#endif
#if MX > SYMV_PIPE_MX_MAX
#error "MX of the pipe family is 0..2 (pipeline stages - 2), of pipe_det 0..5, of pipe_fx 0..8"
#endif
#define SYMV_PIPE_CG (BLOCK_SIZE / 64) /* groups of 64 threads */
/* Rows a thread, V: 4 for SSYMV where that leaves each thread a column
 * (UX >= BLOCK_SIZE/16), else 1. With V = 4 a thread takes 4 consecutive
 * rows of a tile, each column's 4 elements in one 16-byte copy, and adds
 * their 4 products of a column before the transposing butterfly, which
 * then costs a quarter of an element's shuffles and selects; a column
 * group is 16 threads, half a warp
 * (doc/results/2026-11-27-tile-rows.cu). */
#ifndef SYMV_PIPE_V /* the host's symv_pipe_rows_per_thread (symv_pipe.h), from the element's bytes */
#define SYMV_PIPE_V SYMV_PIPE_ROWS_PER_THREAD((SYMV_COMPLEX ? 2 : 1) * (SYMV_SINGLE ? 4 : 8), BLOCK_SIZE, UX)
#endif
#define SYMV_PIPE_RT (64 / SYMV_PIPE_V)            /* threads down a column group */
#define SYMV_PIPE_RT_LOG2 (SYMV_PIPE_V == 1 ? 6 : 4)
#define SYMV_PIPE_GROUP(t) ((t) >> SYMV_PIPE_RT_LOG2) /* thread t's column group */
#define SYMV_PIPE_NG (BLOCK_SIZE / SYMV_PIPE_RT)   /* column groups */
#define SYMV_PIPE_CPT (UX / SYMV_PIPE_NG)          /* columns per thread */
#define SYMV_PIPE_S (MX % 3 + 2) /* pipeline stages: symv_pipe_stages (symv_pipe.h) */
/* elements of a stage: the tile's 64 x UX, then x of its rows (one a
 * thread for V = 1, 64 for V = 4) within BLOCK_SIZE more: (CPT + 1) x
 * BLOCK_SIZE; in the copy engine's entries (V = 4) the runs, UX of
 * SYMV_PIPE_RUN, in place of the tile (symv_pipe_smem_of, gpu/gpu.c) */
#define SYMV_PIPE_RUN SYMV_PIPE_RUN_FLOATS /* floats a column's run of 64 rows takes (symv_pipe.h) */
/* SYMV_PIPE_RUNS: four rows a thread (SSYMV): the kernel has two more
 * entry points whose tiles come by the copy engine's runs, rows ascending
 * or descending (SYMV_PIPE_TMA below; symv_pipe_runs, gpu/gpu.h). A stage
 * of the element copies holds SYMV_PIPE_STAGE elements, one with room for
 * the runs SYMV_PIPE_STAGE_RUNS: SYMV_PIPE_STAGE_OF(runs). */
#define SYMV_PIPE_RUNS (SYMV_PIPE_V > 1)
#define SYMV_PIPE_STAGE (64 * UX + BLOCK_SIZE)
#define SYMV_PIPE_STAGE_RUNS (SYMV_PIPE_RUN * UX + BLOCK_SIZE)
#define SYMV_PIPE_STAGE_OF(runs) ((runs) ? SYMV_PIPE_STAGE_RUNS : SYMV_PIPE_STAGE)
/* rsum's rows of 64 (a column group's row sums; for V = 4 a warp's, its
 * two groups added) and csum's rows of CPT (a warp's column sums; for
 * V = 4 a half warp's) */
#if SYMV_PIPE_V == 1
#define SYMV_PIPE_RSUM_ROWS SYMV_PIPE_CG
#define SYMV_PIPE_CSUM_ROWS (2 * SYMV_PIPE_CG)
#define SYMV_PIPE_BUF_ALIGN
#else
#define SYMV_PIPE_RSUM_ROWS (BLOCK_SIZE / 32)
#define SYMV_PIPE_CSUM_ROWS (BLOCK_SIZE / 16)
#define SYMV_PIPE_BUF_ALIGN __align__(16) /* 16-byte copies and loads */
#endif

typedef unsigned long long symv_ull;

/* asynchronous copy of one element (sizeof(symv_t) = 4, 8 or 16 bytes, all
 * sizes cp.async.ca takes) global -> shared; zero-fills when !ok (nothing
 * read: source size 0) */
static __device__ __forceinline__ void symv_cp_elem(symv_t *dst, const symv_t *src, bool ok)
{
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"((int)sizeof(symv_t)),
               "r"(ok ? (int)sizeof(symv_t) : 0)
               : "memory");
}
/* The copies take no L2 cache hint (createpolicy and .L2::cache_hint):
 * ptxas, given -maxrregcount as symvtune build gives it, can place the
 * policy in a register that makes the kernel raise an illegal instruction
 * (doc/results/2026-11-24-h100-evict-first.txt). They copy element by
 * element, not in whole aligned runs of 64 elements, which are slower
 * (doc/results/2026-11-25-h100-pipe-runs-and-pdet-bound.txt). */
/* closes the group of this thread's copies issued since the last commit */
static __device__ __forceinline__ void symv_cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/* waits until at most N of this thread's committed groups are in flight */
template <int N> static __device__ __forceinline__ void symv_cp_wait()
{
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* SSYMV's copy engine path (SYMV_PIPE_RUNS, compute capability 9.0 and
 * later: cp.async.bulk and mbarrier transaction counts) */
#if SYMV_PIPE_RUNS && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900)
#define SYMV_PIPE_TMA 1
#else
#define SYMV_PIPE_TMA 0
#endif

#if SYMV_PIPE_TMA
/* The kernel's three entry points: SYMV_KERNEL_NAME, every tile by
 * cp.async (element or 16-byte copies); SYMV_KERNEL_NAME followed by
 * _runs, every tile by the copy engine, one cp.async.bulk a column (the
 * run of aligned 16-byte words that holds its 64 rows), each stage's
 * copies completing on its mbarrier, symv_pipe_bar[stage]
 * (symv_pipe_copy_runs), for A's rows ascending in memory (uplo L, rs =
 * 1); and SYMV_KERNEL_NAME followed by _runs_u, the same for rows
 * descending (uplo U walked backwards, rs = -1). The host launches a runs
 * entry where symv_pipe_tma_at (symv_pipe.h) names its direction: A's
 * columns not 16-byte aligned, n >= SYMV_PIPE_TMA_MIN_N. Each runs entry
 * holds its path alone, with its direction a constant, and so does the
 * first the element copies' in pipe and pipe_fx, so that ptxas's code for
 * one path is not the code of a kernel holding several (more registers and
 * instructions: doc/results.md, "Why pipe with the copy engine's runs is
 * slower where they do not run", "SSYMV's copy engine in uplo U");
 * pipe_det's first keeps the element copies and the ascending runs, where
 * that code was the faster (SYMV_PDET_BOTH, symv_pipe_det.cu). A kernel
 * file writes its body once, headed by SYMV_PIPE_KERNEL (a function
 * templated on an int symv_runs, which of the three it is: 0, the element
 * copies; 1 or -1, the runs with rows ascending or descending), and names
 * the entries with SYMV_PIPE_ENTRIES; without the copy engine the same two
 * make the body the one entry point. */
__shared__ __align__(8) unsigned long long symv_pipe_bar[SYMV_PIPE_S];
#define SYMV_PIPE_RUNS_NAME SYMV_XCAT(SYMV_KERNEL_NAME, _runs) /* symv_scalar.cuh */
#define SYMV_PIPE_RUNS_U_NAME SYMV_XCAT(SYMV_KERNEL_NAME, _runs_u)
/* SYMV_PIPE_KERNEL(run, PARAMS): the head of a kernel's body, the function
 * run templated on symv_runs; SYMV_PIPE_ENTRIES(run, PARAMS, ARGS): the
 * three entry points, calling run<0>, run<1> and run<-1> with ARGS (PARAMS
 * and ARGS parenthesised) */
#define SYMV_PIPE_KERNEL(run, PARAMS) template <int symv_runs> static __device__ __forceinline__ void run PARAMS
#define SYMV_PIPE_UNPAREN(...) __VA_ARGS__
#define SYMV_PIPE_ENTRIES(run, PARAMS, ARGS)                                                                \
  extern "C" __global__ void __launch_bounds__(BLOCK_SIZE) SYMV_KERNEL_NAME(SYMV_PIPE_UNPAREN PARAMS)       \
  {                                                                                                         \
    run<0>(SYMV_PIPE_UNPAREN ARGS);                                                                         \
  }                                                                                                         \
  extern "C" __global__ void __launch_bounds__(BLOCK_SIZE) SYMV_PIPE_RUNS_NAME(SYMV_PIPE_UNPAREN PARAMS)    \
  {                                                                                                         \
    run<1>(SYMV_PIPE_UNPAREN ARGS);                                                                         \
  }                                                                                                         \
  extern "C" __global__ void __launch_bounds__(BLOCK_SIZE) SYMV_PIPE_RUNS_U_NAME(SYMV_PIPE_UNPAREN PARAMS)  \
  {                                                                                                         \
    run<-1>(SYMV_PIPE_UNPAREN ARGS);                                                                        \
  }

/* The stages' mbarriers initialised, UX arrivals a phase (one thread a
 * column of each tile arrives, symv_pipe_copy_runs). Called by every
 * thread before the first copy (a barrier). */
static __device__ __forceinline__ void symv_pipe_bar_init()
{
  if (threadIdx.x == 0)
#pragma unroll
    for (int s = 0; s < SYMV_PIPE_S; s++)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"((unsigned)__cvta_generic_to_shared(&symv_pipe_bar[s])),
                   "r"(UX)
                   : "memory");
  if (threadIdx.x == 0) asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  __syncthreads();
}
#else
/* one entry point, SYMV_KERNEL_NAME, every tile by cp.async: the body is
 * the kernel, and reads symv_runs as false (an enumerator, not a variable:
 * NVRTC's -default-device would put a variable in the module) */
enum { symv_runs = 0 };
#define SYMV_PIPE_KERNEL(run, PARAMS) extern "C" __global__ void __launch_bounds__(BLOCK_SIZE) SYMV_KERNEL_NAME PARAMS
#define SYMV_PIPE_ENTRIES(run, PARAMS, ARGS)
static __device__ __forceinline__ void symv_pipe_bar_init() {}
#endif

/* waits until at most N of this thread's tiles' copies are in flight, and
 * (V = 4) until the warp's other lanes have waited too: a word of a tile
 * may have been copied by another lane of the warp (symv_pipe_copy); with
 * tma (the runs' entry, SYMV_PIPE_TMA), until the q-th tile of the
 * block's sequence (stage q mod S, its (q / S)-th fill) has come by the
 * copy engine. */
template <int N> static __device__ __forceinline__ void symv_pipe_wait(int q, bool tma)
{
  symv_cp_wait<N>();
#if SYMV_PIPE_TMA
  if (tma) {
    const unsigned b = (unsigned)__cvta_generic_to_shared(&symv_pipe_bar[q % SYMV_PIPE_S]), par = (q / SYMV_PIPE_S) & 1;
    unsigned done = 0;
    do
      asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                   : "=r"(done)
                   : "r"(b), "r"(par)
                   : "memory");
    while (!done);
  }
#else
  (void)q, (void)tma;
#endif
#if SYMV_PIPE_V > 1
  __syncwarp();
#endif
}

/* How a kernel's tiles lie in memory, for their sums: A's row stride rs
 * (symv_pipe_copy), whether the columns come by the copy engine and in
 * which direction (tma: 0, the element copies; 1 or -1, the runs' entry
 * of rows ascending or descending, SYMV_PIPE_TMA; a constant of the
 * entry) and, for those runs' offsets (symv_pipe_copy_runs), A's address
 * in elements mod 4 (plus 1 where rows descend: a run's place is that of
 * its row 63) and the column stride mod 4; n. */
struct symv_pipe_src {
  int rs, tma, abase, cmod, n;
};
static __device__ __forceinline__ symv_pipe_src symv_pipe_src_of(const symv_t *A, int rs, symv_ll cs, int n, int tma)
{
  symv_pipe_src s;
  s.rs = rs, s.tma = tma, s.n = n;
  s.abase = (int)((((unsigned long long)A) / sizeof(symv_t) + (tma < 0 ? 1 : 0)) & 3), s.cmod = (int)(cs & 3);
  return s;
}

/* Transposing butterfly, one step of H: lanes with bit H set keep the upper
 * half of v[0..2H-1] and send the lower, the others the reverse; afterwards
 * v[k] (k < H) is the pair's sum of column k + (lane & H). */
template <int N, int H> struct symv_pipe_tr {
  static __device__ __forceinline__ void run(symv_t (&v)[N], int lane)
  {
    const bool up = lane & H;
#pragma unroll
    for (int k = 0; k < H; k++) {
      const symv_t lo = v[k], hi = v[k + H];
      v[k] = symv_add(up ? hi : lo, symv_shfl_xor(up ? lo : hi, H));
    }
    symv_pipe_tr<N, H / 2>::run(v, lane);
  }
};
template <int N> struct symv_pipe_tr<N, 0> {
  static __device__ __forceinline__ void run(symv_t (&)[N], int) {}
};

/* item number t of a numbering of 64-row items W columns wide
 * (column-major: symv_pipe_tiles_before) -> (row block I, strip J); ns
 * strips of W columns. Tiles are the items of W = UX; pipe_det's units
 * those of W = BLOCK_SIZE (symv_pipe_det.cu). */
template <int W> static __device__ __forceinline__ void symv_pipe_item(long t, int nb, int ns, int &I, int &J)
{
  int lo = 0, hi = ns - 1; /* largest J with items-before(J) <= t */
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (symv_pipe_tiles_before(mid, nb, W) <= t) lo = mid;
    else hi = mid - 1;
  }
  J = lo;
  I = (int)(symv_pipe_first_block(J, W) + (t - symv_pipe_tiles_before(J, nb, W)));
}

/* tile number t (column-major) -> (row block I, strip J) */
static __device__ __forceinline__ void symv_pipe_tile(long t, int nb, int ns, int &I, int &J)
{
  symv_pipe_item<UX>(t, nb, ns, I, J);
}

#if SYMV_PIPE_V == 1
/* The copies of tile (iI, iJ) into stage buffer buf (CPT + 1 rows of
 * BLOCK_SIZE elements), issued with cp.async: row k < CPT holds, at
 * column t, element (i, j0 + k) of this thread's row i = iI*64 + t mod 64
 * and its first column j0 = iJ*UX + (t/64)*CPT, zero where not stored
 * (j0 + k > i) or past n; row CPT holds x(i). t is threadIdx.x. */
static __device__ __forceinline__ void symv_pipe_copy(symv_t *buf, int st, int iI, int iJ, int t, int n,
                                                      const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                      const symv_t *__restrict__ x, symv_ll incx, int tma)
{
  (void)st, (void)tma; /* no copy engine at one row a thread */
  const int r = t & 63, cg = t >> 6;
  const int i = iI * 64 + r, j0 = iJ * UX + cg * SYMV_PIPE_CPT;
  const symv_t *p = A + (symv_ll)i * rs + (symv_ll)j0 * cs; /* p is A(i, j0) */
#pragma unroll
  for (int k = 0; k < SYMV_PIPE_CPT; k++)
    symv_cp_elem(buf + k * BLOCK_SIZE + t, p + (symv_ll)k * cs, i < n && j0 + k <= i);
  symv_cp_elem(buf + SYMV_PIPE_CPT * BLOCK_SIZE + t, x + (symv_ll)i * incx, i < n);
}
#else
/* cp.async of 16 bytes (4 floats) global -> shared, the first `have` (0..4)
 * of them read, the rest zero-filled; dst and src 16-byte aligned */
static __device__ __forceinline__ void symv_cp_16(symv_t *dst, const symv_t *src, int have)
{
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(have * 4) : "memory");
}

/* The columns of tile (iI, iJ) by the copy engine (the runs' entries:
 * rs = D, 1 or -1): thread t = c*(BLOCK_SIZE/UX) (the copies spread over
 * every warp) copies column j = iJ*UX + c's rows r0 .. r1 - 1 (r0 =
 * iI*64, r1 = min(n, r0 + 64)), where the column has stored rows there
 * (j < r1), as the run of aligned 16-byte words that holds them, into
 * buf[c*SYMV_PIPE_RUN ..]: rows ascending (D = 1), row i at buf[c*RUN + o
 * + i - r0], o = (the address of A(r0, j) mod 16)/4; descending (D = -1),
 * row i at buf[c*RUN + o + r0 + 63 - i], o = (the address row r0 + 63
 * would have mod 16)/4, so that the run of a row block that ends at n lies
 * where the block's full run would. One cp.async.bulk completing on
 * symv_pipe_bar[st] with the run's bytes; where the run would start before
 * the lowest stored element or end past the highest (A's first 16-byte
 * word or its last), the column's stored rows are copied an element at a
 * time to the same places instead, the arrival made when they land
 * (cp.async.mbarrier.arrive.noinc). Either way one arrival on
 * symv_pipe_bar[st] a column a tile. Words of the slot outside the stored
 * rows hold whatever the run or an earlier tile left: the sums mask them
 * (symv_pipe_tile_sums_k). */
#if SYMV_PIPE_TMA
template <int D>
static __device__ __forceinline__ void symv_pipe_copy_runs(symv_t *buf, int st, int iI, int iJ, int t, int n,
                                                           const symv_t *__restrict__ A, symv_ll cs)
{
  static_assert(D == 1 || D == -1, "the runs' rows ascend or descend");
  if (t % (BLOCK_SIZE / UX)) return;
  const int c = t / (BLOCK_SIZE / UX);
  const unsigned bar = (unsigned)__cvta_generic_to_shared(&symv_pipe_bar[st]);
  const int j = iJ * UX + c, r0 = iI * 64, r1 = min(n, r0 + 64);
  if (j >= n || j >= r1) { /* nothing stored in this tile's column */
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
    return;
  }
  /* e0: the lowest address of rows r0 .. r1 - 1, row r0 (ascending) or r1 - 1 (descending) */
  const symv_t *e0 = A + (symv_ll)j * cs + (D > 0 ? r0 : -(r1 - 1));
  const unsigned long long a0 = ((unsigned long long)e0) & ~15ull,
                           a1 = ((unsigned long long)(e0 + (r1 - r0)) + 15) & ~15ull;
  symv_t *slot = buf + c * SYMV_PIPE_RUN;
  /* the run within the stored elements' addresses: A .. A(n-1, n-1) ascending, A(n-1, n-1) .. A descending */
  if (D > 0 ? a0 >= (unsigned long long)A && a1 <= (unsigned long long)(A + (symv_ll)(n - 1) * cs + n)
            : a0 >= (unsigned long long)(A + (symv_ll)(n - 1) * cs - (n - 1)) && a1 <= (unsigned long long)(A + 1)) {
    const unsigned bytes = (unsigned)(a1 - a0);
    /* descending: e0 (row r1 - 1, word o of its 16 bytes) at slot word ((o - d) mod 4) + d, d = r0 + 64 - r1
     * (row i at ((o - d) mod 4) + r0 + 63 - i), the run's start o words before it */
    const int o = (int)((((unsigned long long)e0) & 15) >> 2), d = r0 + 64 - r1;
    symv_t *dst = D > 0 ? slot : slot + ((o - d) & 3) + d - o;
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* the stage's last reads, before it is refilled */
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(dst)),
                 "l"(a0), "r"(bytes), "r"(bar)
                 : "memory");
  } else {
    const int o = (int)((((unsigned long long)e0) & 15) >> 2);
    if (D > 0) {
      for (int i = max(r0, j); i < r1; i++) symv_cp_elem(slot + o + (i - r0), e0 + (i - r0), true);
    } else { /* row i at e0 + r1 - 1 - i, slot word ((o - d) mod 4) + r0 + 63 - i as above */
      const int at = ((o - (r0 + 64 - r1)) & 3) + r0 + 63;
      for (int i = max(r0, j); i < r1; i++) symv_cp_elem(slot + at - i, e0 + (r1 - 1 - i), true);
    }
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
  }
}
#else
template <int D>
static __device__ __forceinline__ void symv_pipe_copy_runs(symv_t *, int, int, int, int, int, const symv_t *__restrict__,
                                                           symv_ll)
{
}
#endif

/* The copies of tile (iI, iJ) into stage buffer buf (SYMV_PIPE_STAGE
 * elements), V = 4 rows a thread: thread t's rows are the logical rows i0
 * .. i0 + 3, i0 = iI*64 + 4*(t mod 16), its columns j0 .. j0 + CPT - 1, j0
 * = iJ*UX + (t/16)*CPT; the 4 elements of its column j0 + k go to
 * buf[4*(k*BLOCK_SIZE + t) + s], slot s holding row i0 + s where A's
 * rows ascend in memory (rs > 0), i0 + 3 - s where they descend (rs < 0),
 * zero past n. Where a column's 4 elements are 16-byte aligned (rs = +-1,
 * cs a multiple of 4, A(i0, j) aligned for rs = 1, A(i0 + 3, j) for rs =
 * -1) they come in one 16-byte copy, read whole where any of them is
 * stored (those above the diagonal too, which the sums mask) and the
 * column exists (j < n: a thread of the last rows has columns past n in
 * the last strip, above its rows, whose copies would read past A's end); otherwise
 * one copy an element, zero where not stored, the warp's 32 lanes copying
 * 32 consecutive rows of a column into 32 consecutive words: the reader
 * of such a word may be another lane of the warp, so the wait for a tile's
 * copies is symv_pipe_wait (cp.async.wait_group, then __syncwarp). x of
 * the rows goes to buf[64*UX + 4*(t mod 16) + s] in the same slots, each
 * thread copying its own (all column groups copy the same values). t is
 * threadIdx.x. With tma nonzero (the runs' entries, a constant of each:
 * rs = tma) the columns come by the copy engine instead
 * (symv_pipe_copy_runs), into a stage of SYMV_PIPE_STAGE_RUNS elements,
 * and x of the rows after the runs, x of row i at the word of the runs'
 * order that holds row i (i - iI*64, or iI*64 + 63 - i descending). */
static __device__ __forceinline__ void symv_pipe_copy(symv_t *buf, int st, int iI, int iJ, int t, int n,
                                                      const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                      const symv_t *__restrict__ x, symv_ll incx, int tma)
{
  const int rg = t & (SYMV_PIPE_RT - 1), cg = SYMV_PIPE_GROUP(t), lane = t & 31;
  const int i0 = iI * 64 + 4 * rg, j0 = iJ * UX + cg * SYMV_PIPE_CPT;
  const int have = i0 < n ? min(4, n - i0) : 0; /* rows i0 .. i0 + have - 1 exist */
  const bool rev = rs < 0;
  if (tma > 0) { /* x of the rows as below, after the runs */
    symv_pipe_copy_runs<1>(buf, st, iI, iJ, t, n, A, cs);
    symv_t *dx = buf + SYMV_PIPE_RUN * UX + 4 * rg;
    if (incx == 1 && (((unsigned long long)x) & 15) == 0) {
      symv_cp_16(dx, x + i0, have);
    } else {
#pragma unroll
      for (int s = 0; s < 4; s++) symv_cp_elem(dx + s, x + (symv_ll)(i0 + s) * incx, i0 + s < n);
    }
    return;
  }
  if (tma < 0) { /* x of row i0 + s at word 63 - 4*rg - s */
    symv_pipe_copy_runs<-1>(buf, st, iI, iJ, t, n, A, cs);
    symv_t *dx = buf + SYMV_PIPE_RUN * UX + 63 - 4 * rg;
#pragma unroll
    for (int s = 0; s < 4; s++) symv_cp_elem(dx - s, x + (symv_ll)(i0 + s) * incx, i0 + s < n);
    return;
  }
  const symv_t *lo = A + (rev ? -(symv_ll)(i0 + 3) : (symv_ll)i0); /* the lowest address of column 0's 4 */
  /* the same in every thread of the block: descending, a short run at the end of the rows would lie at the end
   * of its copy, not at its start, so a row block that ends past n is copied an element at a time */
  const bool whole = (rs == 1 || rs == -1) && (cs & 3) == 0 && (((unsigned long long)(rev ? A - 3 : A)) & 15) == 0 &&
                     (!rev || iI * 64 + 64 <= n);
  if (whole) {
#pragma unroll
    for (int k = 0; k < SYMV_PIPE_CPT; k++)
      symv_cp_16(buf + 4 * (k * BLOCK_SIZE + t), lo + (symv_ll)(j0 + k) * cs, j0 + k <= i0 + 3 && j0 + k < n ? have : 0);
  } else {
    /* copy q of column k: word 32q + lane of the warp's 128 for column k, i.e. slot s = lane mod 4 of thread
     * (the warp's first) + 8q + lane/4: row 32*(q mod 2) + rr of the tile, rr = lane (rows descending: the
     * slot's row of the 4 from 4*(lane/4)), and column group 2w + q/2 (w: the warp) */
    const int rr = rev ? (lane & ~3) + 3 - (lane & 3) : lane, g0 = SYMV_PIPE_GROUP(t & ~31);
    const symv_t *p0 = A + (symv_ll)(iI * 64 + rr) * rs + (symv_ll)(iJ * UX + g0 * SYMV_PIPE_CPT) * cs;
    symv_t *d0 = buf + 4 * (t & ~31) + lane;
#pragma unroll
    for (int q = 0; q < 4; q++) {
      const int iw = iI * 64 + 32 * (q & 1) + rr, jw = iJ * UX + (g0 + (q >> 1)) * SYMV_PIPE_CPT;
      const symv_t *p = p0 + (symv_ll)(32 * (q & 1)) * rs + (symv_ll)((q >> 1) * SYMV_PIPE_CPT) * cs;
#pragma unroll
      for (int k = 0; k < SYMV_PIPE_CPT; k++)
        symv_cp_elem(d0 + 4 * k * BLOCK_SIZE + 32 * q, p + (symv_ll)k * cs, iw < n && jw + k <= iw);
    }
  }
  symv_t *dx = buf + 64 * UX + 4 * rg;
  if (incx == 1 && !rev && (((unsigned long long)x) & 15) == 0) {
    symv_cp_16(dx, x + i0, have);
  } else {
#pragma unroll
    for (int s = 0; s < 4; s++) {
      const int i = i0 + (rev ? 3 - s : s);
      symv_cp_elem(dx + s, x + (symv_ll)i * incx, i < n);
    }
  }
}
#endif

/* symv_pipe_copy of tile (iI, iJ) into buf (tma: by the copy engine, its
 * rows ascending or descending), then (iI, iJ) := the next tile of the
 * numbering (down strip iJ's nb row blocks, then the next strip's first,
 * symv_pipe_first_block). */
static __device__ __forceinline__ void symv_pipe_issue(symv_t *buf, int st, int &iI, int &iJ, int t, int nb, int n,
                                                       const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                       const symv_t *__restrict__ x, symv_ll incx, int tma)
{
  symv_pipe_copy(buf, st, iI, iJ, t, n, A, rs, cs, x, incx, tma);
  if (++iI == nb) iJ++, iI = (int)symv_pipe_first_block(iJ, UX);
}

/* The start of a block's share of the T = ntiles tiles among the G
 * blocks of the grid (G <= T: every share holds a tile): its tiles
 * [t0, t1) = [b*T/G, (b+1)*T/G), b = blockIdx.x, its first tile (I, J),
 * and the copies of its first S - 1 tiles issued into stages 0..S-2 of
 * bufs (S stages of `stage` elements; tma: by the copy engine), one
 * commit group a stage (empty past t1); (iI, iJ) := the next tile to
 * issue. */
static __device__ __forceinline__ void symv_pipe_begin(int ntiles, int G, int nb, int ns, int n,
                                                       const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                       const symv_t *__restrict__ x, symv_ll incx, symv_t *bufs,
                                                       int stage, int tma, int &t0, int &t1, int &I, int &J, int &iI,
                                                       int &iJ)
{
  t0 = (int)((long)blockIdx.x * ntiles / G), t1 = (int)((long)(blockIdx.x + 1) * ntiles / G);
  symv_pipe_tile(t0, nb, ns, I, J);
  iI = I, iJ = J;
#pragma unroll
  for (int s = 0; s < SYMV_PIPE_S - 1; s++) {
    if (t0 + s < t1)
      symv_pipe_issue(bufs + s * stage, s, iI, iJ, threadIdx.x, nb, n, A, rs, cs, x, incx, tma);
    symv_cp_commit();
  }
}

/* xc[kk] := x(j0 + kk), j0 = Js*UX + cg*CPT, cg = t/RT (t/64 for V = 1):
 * this thread's CPT columns of strip Js (0 past n); t is threadIdx.x. */
static __device__ __forceinline__ void symv_pipe_load_xc(symv_t (&xc)[SYMV_PIPE_CPT], int Js, int t, int n,
                                                         const symv_t *__restrict__ x, symv_ll incx)
{
  const int j0 = Js * UX + SYMV_PIPE_GROUP(t) * SYMV_PIPE_CPT;
#pragma unroll
  for (int kk = 0; kk < SYMV_PIPE_CPT; kk++)
    xc[kk] = (j0 + kk < n) ? symv_ldg(x + (symv_ll)(j0 + kk) * incx) : symv_zero();
}

#if SYMV_PIPE_V == 1
/* The sums of tile (I, J), whose copies are in buf (symv_pipe_copy), for
 * this thread's row i = I*64 + t mod 64 and columns j0.. j0 + CPT - 1,
 * j0 = J*UX + (t/64)*CPT: its share of row i's sum, the CPT elements
 * against xc (x(j0..)), into rsum[t/64][t mod 64]; and the column sums
 * (the mirrored elements times x(i), summed over each warp's 32 rows by
 * the transposing butterfly) into csum[w][c], c < CPT: warp w's sum of
 * column J*UX + (w/2)*CPT + c. The diagonal counts once, in the row sum,
 * as symv_diag; the column sums take symv_mirror of the elements strictly
 * below it. t is threadIdx.x; the last argument (the tiles' layout) is
 * unused here (V = 4 uses it). The caller synchronises before reading rsum
 * and csum. (pipe's kernel holds the same statements inline: as this
 * function they give it other machine code at some points.) */
static __device__ __forceinline__ void symv_pipe_tile_sums(const symv_t *buf, const symv_t (&xc)[SYMV_PIPE_CPT], int I,
                                                           int J, int t, symv_t (*rsum)[64],
                                                           symv_t (*csum)[SYMV_PIPE_CPT], const symv_pipe_src &)
{
  const int r = t & 63, cg = t >> 6, lane = t & 31, w = t >> 5;
  const int i = I * 64 + r, j0 = J * UX + cg * SYMV_PIPE_CPT;
  const symv_t xr = buf[SYMV_PIPE_CPT * BLOCK_SIZE + t]; /* x(i) */
  const bool below = I * 64 >= (J + 1) * UX; /* no element on or above the diagonal */
  symv_t rsv = symv_zero(), cp[SYMV_PIPE_CPT];
#pragma unroll
  for (int kk = 0; kk < SYMV_PIPE_CPT; kk++) {
    const symv_t a = buf[kk * BLOCK_SIZE + t]; /* A(i, j0 + kk), 0 where not stored (zero-filled) */
    rsv = symv_fma_rn(!below && j0 + kk == i ? symv_diag(a) : a, xc[kk], rsv);
    cp[kk] = (below || j0 + kk < i) ? symv_mul(symv_mirror(a), xr) : symv_zero();
  }
  symv_pipe_tr<SYMV_PIPE_CPT, SYMV_PIPE_CPT / 2>::run(cp, lane);
#pragma unroll
  for (int h = SYMV_PIPE_CPT; h < 32; h *= 2) cp[0] = symv_add(cp[0], symv_shfl_xor(cp[0], h));
  if (lane < SYMV_PIPE_CPT) csum[w][lane] = cp[0]; /* lane holds column lane mod CPT of its group */
  rsum[cg][r] = rsv;
}
#else
/* The sums of tile (I, J), whose copies are in buf (symv_pipe_copy, V =
 * 4), for this thread's rows i0 .. i0 + 3, i0 = I*64 + 4*(t mod 16), in its
 * slots' order (symv_pipe_copy: descending where rs < 0), and columns j0 ..
 * j0 + CPT - 1, j0 = J*UX + (t/16)*CPT: its shares of the 4 row sums (each
 * row's CPT elements against xc, x(j0..)) and, for each column, the sum of
 * its 4 mirrored elements times x of their rows (in slot order),
 * summed over the half warp's 64 rows by the transposing butterfly into
 * csum[h][c], c < CPT, h = t/16: half warp h's sum of column J*UX + h*CPT
 * + c. The two half warps of a warp then add their row shares (lane l's
 * plus lane l + 16's) into rsum[w][i - I*64] for row i, w = t/32. The diagonal
 * counts once, in the row sums, as symv_diag; the column sums take
 * symv_mirror of the elements strictly below it; elements above it (read
 * with their column's 4) count nowhere. t is threadIdx.x. The caller
 * synchronises before reading rsum and csum. */
template <int TMA, bool FULL>
static __device__ __forceinline__ void symv_pipe_tile_sums_k(const symv_t *buf, const symv_t (&xc)[SYMV_PIPE_CPT], int I,
                                                             int J, int t, symv_t (*rsum)[64],
                                                             symv_t (*csum)[SYMV_PIPE_CPT], const symv_pipe_src &src)
{
  const int rs = src.rs;
  const int rg = t & (SYMV_PIPE_RT - 1), cg = SYMV_PIPE_GROUP(t), lane = t & 31;
  const int i0 = I * 64 + 4 * rg, j0 = J * UX + cg * SYMV_PIPE_CPT;
  /* slot s's row (symv_pipe_copy): i0 + s, or i0 + 3 - s where rows descend in memory (rs < 0); from the
   * copy engine's runs, the rows of the runs' words rg + 16 s, so that a half warp's loads of a run are
   * consecutive words: I*64 + rg + 16 s, or I*64 + 63 - rg - 16 s where rows descend (TMA = -1; their x in
   * the same words, symv_pipe_copy) */
  int row[4];
  symv_t xr[4];
  if (TMA) {
#pragma unroll
    for (int q = 0; q < 4; q++)
      row[q] = I * 64 + (TMA < 0 ? 63 - rg - 16 * q : rg + 16 * q), xr[q] = buf[SYMV_PIPE_RUN * UX + rg + 16 * q];
  } else {
#pragma unroll
    for (int q = 0; q < 4; q++) row[q] = i0 + (rs < 0 ? 3 - q : q);
    const float4 x4 = *reinterpret_cast<const float4 *>(buf + 64 * UX + 4 * rg); /* x(i0 .. i0 + 3) */
    xr[0] = x4.x, xr[1] = x4.y, xr[2] = x4.z, xr[3] = x4.w;
  }
  const bool below = I * 64 >= (J + 1) * UX; /* no element on or above the diagonal */
  symv_t rsv[4] = {symv_zero(), symv_zero(), symv_zero(), symv_zero()}, cp[SYMV_PIPE_CPT];
  const float4 *b4 = reinterpret_cast<const float4 *>(buf) + t;
#pragma unroll
  for (int kk = 0; kk < SYMV_PIPE_CPT; kk++) {
    symv_t a[4]; /* A(i0 .. i0 + 3, j0 + kk) */
    if (TMA) { /* the column's run (symv_pipe_copy_runs): rows past n masked, others as below */
      const symv_t *col =
          buf + (cg * SYMV_PIPE_CPT + kk) * SYMV_PIPE_RUN + ((src.abase + (j0 + kk) * src.cmod) & 3) + rg;
#pragma unroll
      for (int q = 0; q < 4; q++) a[q] = FULL || row[q] < src.n ? col[16 * q] : symv_zero();
    } else {
      const float4 v = b4[kk * BLOCK_SIZE];
      a[0] = v.x, a[1] = v.y, a[2] = v.z, a[3] = v.w;
    }
    symv_t c = symv_zero();
    if (below) {
#pragma unroll
      for (int q = 0; q < 4; q++) {
        rsv[q] = symv_fma_rn(a[q], xc[kk], rsv[q]);
        c = symv_fma_rn(symv_mirror(a[q]), xr[q], c);
      }
    } else {
      const int j = j0 + kk;
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const symv_t ar = j < row[q] ? a[q] : j == row[q] ? symv_diag(a[q]) : symv_zero();
        rsv[q] = symv_fma_rn(ar, xc[kk], rsv[q]);
        c = symv_fma_rn(j < row[q] ? symv_mirror(a[q]) : symv_zero(), xr[q], c);
      }
    }
    cp[kk] = c;
  }
  symv_pipe_tr<SYMV_PIPE_CPT, SYMV_PIPE_CPT / 2>::run(cp, lane);
#pragma unroll
  for (int h = SYMV_PIPE_CPT; h < 16; h *= 2) cp[0] = symv_add(cp[0], symv_shfl_xor(cp[0], h));
  if (rg < SYMV_PIPE_CPT) csum[t >> 4][rg] = cp[0]; /* lane holds column lane mod CPT of its group */
#pragma unroll
  for (int q = 0; q < 4; q++) rsv[q] = symv_add(rsv[q], symv_shfl_xor(rsv[q], 16)); /* the warp's two groups */
  if (lane < 16) {
#pragma unroll
    for (int q = 0; q < 4; q++) rsum[t >> 5][row[q] - I * 64] = rsv[q];
  }
}
/* symv_pipe_tile_sums_k with the copy path (the runs' direction) and,
 * for the runs, whether the row block lies wholly below n, chosen once a
 * tile, not a column */
static __device__ __forceinline__ void symv_pipe_tile_sums(const symv_t *buf, const symv_t (&xc)[SYMV_PIPE_CPT], int I,
                                                           int J, int t, symv_t (*rsum)[64],
                                                           symv_t (*csum)[SYMV_PIPE_CPT], const symv_pipe_src &src)
{
  if (!src.tma) symv_pipe_tile_sums_k<0, false>(buf, xc, I, J, t, rsum, csum, src);
  else if (src.tma > 0) {
    if (I * 64 + 64 <= src.n) symv_pipe_tile_sums_k<1, true>(buf, xc, I, J, t, rsum, csum, src);
    else symv_pipe_tile_sums_k<1, false>(buf, xc, I, J, t, rsum, csum, src);
  } else if (I * 64 + 64 <= src.n) symv_pipe_tile_sums_k<-1, true>(buf, xc, I, J, t, rsum, csum, src);
  else symv_pipe_tile_sums_k<-1, false>(buf, xc, I, J, t, rsum, csum, src);
}
#endif

/* Row r (< 64) of the tile whose sums symv_pipe_tile_sums left in rsum:
 * its column groups' shares (for V = 4, its warps') added in order; or, of
 * G rows of shares other code left there, their sum in the same order. */
template <int G = SYMV_PIPE_RSUM_ROWS>
static __device__ __forceinline__ symv_t symv_pipe_row_total(const symv_t (*rsum)[64], int r)
{
  symv_t v = symv_zero();
#pragma unroll
  for (int g = 0; g < G; g++) v = symv_add(v, rsum[g][r]);
  return v;
}

/* Column c (< UX) of the tile whose sums symv_pipe_tile_sums left in csum:
 * its column group g = c/CPT's two warps' sums, 2g's plus 2g + 1's (for
 * V = 4 the group is a half warp: its one sum). */
static __device__ __forceinline__ symv_t symv_pipe_col_total(const symv_t (*csum)[SYMV_PIPE_CPT], int c)
{
  const int g = c / SYMV_PIPE_CPT, cc = c % SYMV_PIPE_CPT;
#if SYMV_PIPE_V == 1
  return symv_add(csum[2 * g][cc], csum[2 * g + 1][cc]);
#else
  return csum[g][cc];
#endif
}

/* Tile (I, J), whose copies are in buf: its sums (symv_pipe_tile_sums), a
 * barrier, then column t's total added to cacc (t < UX), and row t - R0's
 * total returned by threads R0 .. R0 + 63 (R0 = 0, or BLOCK_SIZE - 64: the
 * block's last 64 threads; 0 for the other threads). t is threadIdx.x.
 * The caller synchronises before rsum and csum are written again. src:
 * the tiles' layout (symv_pipe_src_of of symv_pipe_copy's A, rs, cs). */
template <int R0>
static __device__ __forceinline__ symv_t symv_pipe_tile_totals(const symv_t *buf, const symv_t (&xc)[SYMV_PIPE_CPT],
                                                               int I, int J, int t, symv_t (*rsum)[64],
                                                               symv_t (*csum)[SYMV_PIPE_CPT], symv_t &cacc,
                                                               const symv_pipe_src &src)
{
  static_assert(R0 == 0 || R0 == BLOCK_SIZE - 64, "the rows' threads: the block's first or last 64");
  symv_pipe_tile_sums(buf, xc, I, J, t, rsum, csum, src);
  __syncthreads();
  symv_t vr = symv_zero();
  if (R0 == 0 ? t < 64 : t >= R0) vr = symv_pipe_row_total(rsum, t - R0);
  if (t < UX) cacc = symv_add(cacc, symv_pipe_col_total(csum, t));
  return vr;
}

#endif
