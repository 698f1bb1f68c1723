/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_floor.cu - the floor of a SYMV/HEMV: read-only kernels that do
 * nothing but stream the stored lower triangle's bytes once, so that a
 * SYMV's time can be reported against the least time a kernel that reads
 * the triangle once needs on this GPU (`symvtune time`, `bench`, the
 * sweep's dense stage). The floor at n is the least time over the family's
 * shapes (gpu/floor.h enumerates them); launched as the SYMV kernels are
 * (programmatic dependent launch where the GPU has it,
 * symv_grid_dependency), so that both pay the same launch.
 *
 * What is read, every routine (SYMV_ROUTINE, kernels/symv_scalar.cuh): A is
 * a column-major n x n matrix of symv_t (4, 8, 8, 16, 8, 16 bytes for
 * ssymv, dsymv, csymv, zsymv, chemv, zhemv), lda in elements, aligned to
 * its element; exactly the elements (i, j), i >= j, are read, each once and
 * whole (a complex element's two parts, a HEMV diagonal's imaginary part
 * too, as the SYMV kernels load it): n(n+1)/2 x sizeof(symv_t) bytes.
 *
 * The checksum: each thread adds the 32-bit words it loaded, as unsigned
 * integers, into a 64-bit sum (modulo 2^64: exact and independent of the
 * order); block b writes its block's sum to out[b] (out holds gridDim.x
 * values, see symv_floor_grid in gpu/gpu.h). The sum of out[0..grid) is
 * then the sum of the 32-bit words of the triangle's elements, which
 * gpu/floor.c's symv_floor_checksum computes on the CPU: a load dropped,
 * made twice or made outside the triangle changes it. The stores keep the
 * compiler from dropping a load and cost one 8-byte store per block.
 *
 * The layout is MX (parameters: BLOCK_SIZE threads per block, UX loads in
 * flight per thread, MULTIPLICITY blocks per SM, a launch setting; the grid
 * is one wave of SMs x MULTIPLICITY blocks, fewer when there is less work):
 *
 *   MX 0  element loads: one element (4, 8 or 16 bytes) per load.
 *   MX 1  16-byte loads: the 16-byte aligned pieces of a column wholly in
 *         the triangle are read as one uint4 each; the pieces a column's
 *         first and last rows cut are read element by element (for 16-byte
 *         elements MX 0 and MX 1 are the same code).
 *         Both: column j is paired with column n-1-j, so that every pair
 *         holds n+1 elements (an odd n's middle column is alone); a pair's
 *         load units (elements, or 16-byte pieces) are cut into slices of
 *         32 x UX units, and slice s of pair p is work item p*Q + s, dealt
 *         out to the grid's warps in turn. Lane l's k-th load of a slice
 *         is unit s*32*UX + 32k + l, so that a warp's load is 32
 *         consecutive units of one column; a thread issues its UX loads
 *         before it adds any of them.
 *
 *            column j         column n-1-j
 *            |                        |
 *            v  rows j..n-1           v  rows n-1-j..n-1
 *            [u0 u1 ... u(m1-1)] [u(m1) ... u(m1+m2-1)]   one pair's units
 *            [ slice 0: 32*UX  ][ slice 1 ] ...           one warp per slice
 *
 *   MX 8  the untuned floor this family replaces: a warp per column, lane
 *         l reading rows j+l, j+l+32, ..., element loads, columns dealt
 *         out to the grid's warps in turn (UX unused).
 *   MX 9  empty: waits for the previous grid (symv_grid_dependency) and
 *         returns; its time, back to back, is what a launch costs.
 */
#include "symv_common.cuh"

#define SYMV_FLOOR_ELEMENT 0
#define SYMV_FLOOR_VEC16 1
#define SYMV_FLOOR_WARP_COLUMN 8
#define SYMV_FLOOR_EMPTY 9

#if MX != SYMV_FLOOR_ELEMENT && MX != SYMV_FLOOR_VEC16 && MX != SYMV_FLOOR_WARP_COLUMN && MX != SYMV_FLOOR_EMPTY
#error "MX of the floor family: 0 (element loads), 1 (16-byte loads), 8 (a warp per column) or 9 (empty)"
#endif
#if UX != 1 && UX != 2 && UX != 4 && UX != 8 && UX != 16
#error "UX of the floor family (loads in flight per thread): 1, 2, 4, 8 or 16"
#endif

typedef unsigned long long floor_u64;

/* bytes of one element, bytes of one load unit, elements per unit */
#define FLOOR_ELEM ((int)sizeof(symv_t))
#define FLOOR_UNIT (MX == SYMV_FLOOR_VEC16 ? 16 : FLOOR_ELEM)
#define FLOOR_V (FLOOR_UNIT / FLOOR_ELEM)

/* the sum of the 32-bit words of v (unused words are zero) */
static __device__ __forceinline__ floor_u64 floor_words(uint4 v)
{
  return (floor_u64)v.x + (floor_u64)v.y + (floor_u64)v.z + (floor_u64)v.w;
}

/* one load of `bytes` (4, 8 or 16) read-only bytes at p (aligned to them),
 * in the first bytes/4 words of the result, the others zero */
template <int bytes> static __device__ __forceinline__ uint4 floor_load(const char *p)
{
  if constexpr (bytes == 16) {
    return __ldg((const uint4 *)p);
  } else if constexpr (bytes == 8) {
    const uint2 t = __ldg((const uint2 *)p);
    return make_uint4(t.x, t.y, 0u, 0u);
  } else {
    const unsigned t = __ldg((const unsigned *)p);
    return make_uint4(t, 0u, 0u, 0u);
  }
}

/* One column's units: element indices gs..ge-1 counted from the aligned
 * base, the first unit k0 (unit k holds elements k*V .. k*V+V-1), m units. */
typedef struct {
  symv_ll gs, ge, k0;
  int m;
} floor_col;

static __device__ __forceinline__ floor_col floor_column(int c, int n, symv_ll lda, int a0)
{
  floor_col r;
  r.gs = a0 + (symv_ll)c * lda + c;
  r.ge = a0 + (symv_ll)c * lda + n;
  r.k0 = r.gs / FLOOR_V;
  r.m = (int)((r.ge - 1) / FLOOR_V - r.k0 + 1);
  return r;
}

/* The sum of the words of the elements of unit u of column C that lie in
 * the column, loaded one by one (a unit the column's ends cut). */
static __device__ floor_u64 floor_cut_unit(const char *base, const floor_col &C, int u)
{
  const symv_ll g = (C.k0 + u) * FLOOR_V;
  floor_u64 s = 0;
  for (int e = 0; e < FLOOR_V; e++)
    if (g + e >= C.gs && g + e < C.ge) s += floor_words(floor_load<FLOOR_ELEM>(base + (g + e) * FLOOR_ELEM));
  return s;
}

/* The block's sum of every thread's acc into out[blockIdx.x]. */
static __device__ __forceinline__ void floor_store(floor_u64 acc, floor_u64 *out)
{
  __shared__ floor_u64 red[SYMV_NWARPS];
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    floor_u64 s = 0;
    for (int w = 0; w < SYMV_NWARPS; w++) s += red[w];
    out[blockIdx.x] = s;
  }
}

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const symv_t *__restrict__ A, symv_ll lda, floor_u64 *out)
{
  symv_grid_dependency();
#if MX == SYMV_FLOOR_EMPTY
  (void)n, (void)A, (void)lda, (void)out;
#elif MX == SYMV_FLOOR_WARP_COLUMN
  const int lane = threadIdx.x & 31;
  const int warp = (blockIdx.x * BLOCK_SIZE + threadIdx.x) >> 5, nwarps = (gridDim.x * BLOCK_SIZE) >> 5;
  const char *base = (const char *)A;
  floor_u64 acc = 0;
  for (int j = warp; j < n; j += nwarps)
    for (int i = j + lane; i < n; i += 32)
      acc += floor_words(floor_load<FLOOR_ELEM>(base + ((symv_ll)j * lda + i) * FLOOR_ELEM));
  floor_store(acc, out);
#else
  /* a0: elements between the 16-byte boundary at or below A and A */
  const int a0 = FLOOR_V == 1 ? 0 : (int)(((unsigned long long)A & 15u) / FLOOR_ELEM);
  const char *base = (const char *)A - (symv_ll)a0 * FLOOR_ELEM;
  const int lane = threadIdx.x & 31;
  /* a pair has n+1 elements, so at most (n-1)/V + 4 units (each column's
   * ends add at most one unit each) */
  const int pairs = (n + 1) / 2, per = 32 * UX;
  const unsigned Q = (unsigned)(((n - 1) / FLOOR_V + 4 + per - 1) / per);
  const unsigned items = (unsigned)pairs * Q; /* symv_floor_launch checks it fits */
  const unsigned nwarps = gridDim.x * SYMV_NWARPS;
  floor_u64 acc = 0;
  for (unsigned it = blockIdx.x * SYMV_NWARPS + (threadIdx.x >> 5); it < items; it += nwarps) {
    const int p = (int)(it / Q), s = (int)(it % Q);
    const floor_col C1 = floor_column(p, n, lda, a0);
    floor_col C2 = floor_column(n - 1 - p, n, lda, a0);
    if (n - 1 - p == p) C2.m = 0; /* an odd n's middle column: alone */
    uint4 v[UX];
    unsigned cut = 0; /* the units the column's ends cut, bit k for load k: loaded after the whole ones */
#pragma unroll
    for (int k = 0; k < UX; k++) {
      const int u = s * per + k * 32 + lane;
      const bool first = u < C1.m;
      const int uc = first ? u : u - C1.m, m = first ? C1.m : C2.m;
      const symv_ll g = ((first ? C1.k0 : C2.k0) + uc) * FLOOR_V; /* the unit's first element */
      v[k] = make_uint4(0u, 0u, 0u, 0u);
      if (uc < m) {
        if (FLOOR_V == 1 || (g >= (first ? C1.gs : C2.gs) && g + FLOOR_V <= (first ? C1.ge : C2.ge)))
          v[k] = floor_load<FLOOR_UNIT>(base + g * FLOOR_ELEM);
        else
          cut |= 1u << k;
      }
    }
#pragma unroll
    for (int k = 0; k < UX; k++) acc += floor_words(v[k]);
    for (; cut; cut &= cut - 1) {
      const int u = s * per + (__ffs(cut) - 1) * 32 + lane;
      acc += u < C1.m ? floor_cut_unit(base, C1, u) : floor_cut_unit(base, C2, u - C1.m);
    }
  }
  floor_store(acc, out);
#endif
}
