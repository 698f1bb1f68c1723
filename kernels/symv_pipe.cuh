/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_pipe.cuh - what the two pipe families share (kernels/symv_pipe.cu,
 * atomic; kernels/symv_pipe_det.cu, deterministic): their parameters'
 * constraints and derived sizes (column groups, columns per thread,
 * pipeline stages), the cp.async copies that stream a tile of 64 rows x UX
 * columns into shared memory, the transposing butterfly of the column sums,
 * and the tile numbering. The two kernels read and sum a tile alike and
 * differ in where the sums go (atomicAdd into y, or a workspace summed in a
 * fixed order). These pieces were moved here from symv_pipe.cu as they
 * were: the pipe kernels' machine code is unchanged by the move.
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
 * column sums' butterfly (symv_pipe_tr); at BLOCK_SIZE 64, UX 64 left
 * columns 32..63 out of the column sums (wrong y, refused by every sweep) */
#if (UX & (UX - 1)) != 0 || UX < BLOCK_SIZE / 64 || UX > BLOCK_SIZE / 2
#error "UX of the pipe family (and pipe_det) must be a power of two, BLOCK_SIZE/64..BLOCK_SIZE/2"
#endif
#ifndef SYMV_PIPE_MX_MAX /* pipe_det's is 5 (symv_pipe_det.cu) */
#define SYMV_PIPE_MX_MAX 2
#endif
#if MX > SYMV_PIPE_MX_MAX
#error "MX of the pipe family is 0..2 (pipeline stages - 2), of pipe_det 0..5"
#endif
#define SYMV_PIPE_CG (BLOCK_SIZE / 64)   /* column groups of 64 threads */
#define SYMV_PIPE_CPT (UX / SYMV_PIPE_CG) /* columns per thread */
#define SYMV_PIPE_S (MX % 3 + 2) /* pipeline stages: symv_pipe_stages (symv_pipe.h) */

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
/* Not used: an L2 evict-first policy on these copies (createpolicy, then
 * cp.async with .L2::cache_hint) kept pipe_det's partial sums in L2 and made
 * it 2-4.5% faster at n = 4,096 - 16,384 on an H100, but nvcc 13's ptxas,
 * given -maxrregcount as symvtune build gives it, put the policy in an odd
 * uniform register (desc[UR1]) and the library's kernel raised an illegal
 * instruction (doc/results/2026-11-24-h100-evict-first.txt). */
/* Not used either: copying whole aligned runs of 64 elements (a tile's
 * slot taking the run that holds its last row, its head read from the slot
 * before, after a barrier), to win back the 5% pipe loses at n whose
 * columns are not a multiple of 512 bytes: correct, but slower at every n
 * on an H100, the odd n still 4-6% behind
 * (doc/results/2026-11-25-h100-pipe-runs-and-pdet-bound.txt). */
static __device__ __forceinline__ void symv_cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> static __device__ __forceinline__ void symv_cp_wait()
{
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
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

#endif
