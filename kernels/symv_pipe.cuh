/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_pipe.cuh - what the pipe families share (kernels/symv_pipe.cu,
 * atomic; kernels/symv_pipe_det.cu and kernels/symv_pipe_fx.cu,
 * deterministic): their parameters'
 * constraints and derived sizes (column groups, columns per thread,
 * pipeline stages), the tile numbering, the cp.async copies that stream
 * tiles of 64 rows x UX columns into shared memory, and the per-tile code: a tile's copies, x of a strip's columns,
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
#ifndef SYMV_PIPE_MX_MAX /* pipe_det's and pipe_fx's is 5 (symv_pipe_det.cu, symv_pipe_fx.cu) */
#define SYMV_PIPE_MX_MAX 2
#endif
#if MX > SYMV_PIPE_MX_MAX
#error "MX of the pipe family is 0..2 (pipeline stages - 2), of pipe_det and pipe_fx 0..5"
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

/* The copies of tile (iI, iJ) into stage buffer buf (CPT + 1 rows of
 * BLOCK_SIZE elements), issued with cp.async: row k < CPT holds, at
 * column t, element (i, j0 + k) of this thread's row i = iI*64 + t mod 64
 * and its first column j0 = iJ*UX + (t/64)*CPT, zero where not stored
 * (j0 + k > i) or past n; row CPT holds x(i). t is threadIdx.x. */
static __device__ __forceinline__ void symv_pipe_copy(symv_t *buf, int iI, int iJ, int t, int n,
                                                      const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                      const symv_t *__restrict__ x, symv_ll incx)
{
  const int r = t & 63, cg = t >> 6;
  const int i = iI * 64 + r, j0 = iJ * UX + cg * SYMV_PIPE_CPT;
  const symv_t *p = A + (symv_ll)i * rs + (symv_ll)j0 * cs; /* p is A(i, j0) */
#pragma unroll
  for (int k = 0; k < SYMV_PIPE_CPT; k++)
    symv_cp_elem(buf + k * BLOCK_SIZE + t, p + (symv_ll)k * cs, i < n && j0 + k <= i);
  symv_cp_elem(buf + SYMV_PIPE_CPT * BLOCK_SIZE + t, x + (symv_ll)i * incx, i < n);
}

/* symv_pipe_copy of tile (iI, iJ) into buf, then (iI, iJ) := the next tile
 * of the numbering (down strip iJ's nb row blocks, then the next strip's
 * first, symv_pipe_first_block). */
static __device__ __forceinline__ void symv_pipe_issue(symv_t *buf, int &iI, int &iJ, int t, int nb, int n,
                                                       const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                       const symv_t *__restrict__ x, symv_ll incx)
{
  symv_pipe_copy(buf, iI, iJ, t, n, A, rs, cs, x, incx);
  if (++iI == nb) iJ++, iI = (int)symv_pipe_first_block(iJ, UX);
}

/* The start of a block's share of the T = ntiles tiles among the G
 * blocks of the grid (G <= T: every share holds a tile): its tiles
 * [t0, t1) = [b*T/G, (b+1)*T/G), b = blockIdx.x, its first tile (I, J),
 * and the copies of its first S - 1 tiles issued into stages 0..S-2 of
 * bufs (S x (CPT + 1) x BLOCK_SIZE elements), one commit group a stage
 * (empty past t1); (iI, iJ) := the next tile to issue. */
static __device__ __forceinline__ void symv_pipe_begin(int ntiles, int G, int nb, int ns, int n,
                                                       const symv_t *__restrict__ A, int rs, symv_ll cs,
                                                       const symv_t *__restrict__ x, symv_ll incx, symv_t *bufs,
                                                       int &t0, int &t1, int &I, int &J, int &iI, int &iJ)
{
  t0 = (int)((long)blockIdx.x * ntiles / G), t1 = (int)((long)(blockIdx.x + 1) * ntiles / G);
  symv_pipe_tile(t0, nb, ns, I, J);
  iI = I, iJ = J;
#pragma unroll
  for (int s = 0; s < SYMV_PIPE_S - 1; s++) {
    if (t0 + s < t1)
      symv_pipe_issue(bufs + s * (SYMV_PIPE_CPT + 1) * BLOCK_SIZE, iI, iJ, threadIdx.x, nb, n, A, rs, cs, x, incx);
    symv_cp_commit();
  }
}

/* xc[kk] := x(j0 + kk), j0 = Js*UX + (t/64)*CPT: this thread's CPT
 * columns of strip Js (0 past n); t is threadIdx.x. */
static __device__ __forceinline__ void symv_pipe_load_xc(symv_t (&xc)[SYMV_PIPE_CPT], int Js, int t, int n,
                                                         const symv_t *__restrict__ x, symv_ll incx)
{
  const int j0 = Js * UX + (t >> 6) * SYMV_PIPE_CPT;
#pragma unroll
  for (int kk = 0; kk < SYMV_PIPE_CPT; kk++)
    xc[kk] = (j0 + kk < n) ? symv_ldg(x + (symv_ll)(j0 + kk) * incx) : symv_zero();
}

/* The sums of tile (I, J), whose copies are in buf (symv_pipe_copy), for
 * this thread's row i = I*64 + t mod 64 and columns j0.. j0 + CPT - 1,
 * j0 = J*UX + (t/64)*CPT: its share of row i's sum, the CPT elements
 * against xc (x(j0..)), into rsum[t/64][t mod 64]; and the column sums
 * (the mirrored elements times x(i), summed over each warp's 32 rows by
 * the transposing butterfly) into csum[w][c], c < CPT: warp w's sum of
 * column J*UX + (w/2)*CPT + c. The diagonal counts once, in the row sum,
 * as symv_diag; the column sums take symv_mirror of the elements strictly
 * below it. t is threadIdx.x. The caller synchronises before reading rsum
 * and csum. (pipe's kernel holds the same statements inline: as this
 * function they give it other machine code at some points.) */
static __device__ __forceinline__ void symv_pipe_tile_sums(const symv_t *buf, const symv_t (&xc)[SYMV_PIPE_CPT], int I,
                                                           int J, int t, symv_t (*rsum)[64],
                                                           symv_t (*csum)[SYMV_PIPE_CPT])
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

/* Row r (< 64) of the tile whose sums symv_pipe_tile_sums left in rsum:
 * its column groups' shares added in group order. */
static __device__ __forceinline__ symv_t symv_pipe_row_total(const symv_t (*rsum)[64], int r)
{
  symv_t v = symv_zero();
#pragma unroll
  for (int g = 0; g < SYMV_PIPE_CG; g++) v = symv_add(v, rsum[g][r]);
  return v;
}

/* Column c (< UX) of the tile whose sums symv_pipe_tile_sums left in csum:
 * its column group g = c/CPT's two warps' sums, 2g's plus 2g + 1's. */
static __device__ __forceinline__ symv_t symv_pipe_col_total(const symv_t (*csum)[SYMV_PIPE_CPT], int c)
{
  const int g = c / SYMV_PIPE_CPT, cc = c % SYMV_PIPE_CPT;
  return symv_add(csum[2 * g][cc], csum[2 * g + 1][cc]);
}

/* Tile (I, J), whose copies are in buf: its sums (symv_pipe_tile_sums), a
 * barrier, then column t's total added to cacc (t < UX), and row t - R0's
 * total returned by threads R0 .. R0 + 63 (R0 = 0, or BLOCK_SIZE - 64: the
 * block's last 64 threads; 0 for the other threads). t is threadIdx.x.
 * The caller synchronises before rsum and csum are written again. */
template <int R0>
static __device__ __forceinline__ symv_t symv_pipe_tile_totals(const symv_t *buf, const symv_t (&xc)[SYMV_PIPE_CPT],
                                                               int I, int J, int t, symv_t (*rsum)[64],
                                                               symv_t (*csum)[SYMV_PIPE_CPT], symv_t &cacc)
{
  static_assert(R0 == 0 || R0 == BLOCK_SIZE - 64, "the rows' threads: the block's first or last 64");
  symv_pipe_tile_sums(buf, xc, I, J, t, rsum, csum);
  __syncthreads();
  symv_t vr = symv_zero();
  if (R0 == 0 ? t < 64 : t >= R0) vr = symv_pipe_row_total(rsum, t - R0);
  if (t < UX) cacc = symv_add(cacc, symv_pipe_col_total(csum, t));
  return vr;
}

#endif
