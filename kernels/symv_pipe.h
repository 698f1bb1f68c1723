/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_pipe.h - the tile numbering of the pipe families (kernels/symv_pipe.cu,
 * kernels/symv_pipe_det.cu), shared by the kernels and the host (gpu/gpu.c,
 * fit/fit.c; tests/test_space.c), so that all count the same tiles by the
 * same formulas.
 *
 * The lower triangle of an n x n matrix is cut into tiles of 64 rows by UX
 * columns (UX a power of two, 1..128: a divisor of 64 or a multiple of it);
 * column strip j holds the row blocks floor(j*UX/64) .. nb-1,
 * nb = ceil(n/64), and tiles are numbered strip by strip (column-major).
 */
#ifndef SYMV_PIPE_H
#define SYMV_PIPE_H

#if defined(__CUDACC__)
#define SYMV_PIPE_FN static __host__ __device__ __forceinline__
#else
#define SYMV_PIPE_FN static inline
#endif

/** symv_pdet_width_valid: 1 if work items w columns wide can be numbered
 *  (symv_pdet_units): w a power of two in 1..1024 (tiles' UX, or pipe_det's
 *  units of BLOCK_SIZE columns), else 0. */
SYMV_PIPE_FN int symv_pdet_width_valid(int w) { return w >= 1 && w <= 1024 && (w & (w - 1)) == 0; }

/** symv_pipe_ux_valid: 1 if the tiles of the pipe kernels take ux columns
 *  (a power of two in 1..128: a divisor of 64 or twice it), else 0. */
SYMV_PIPE_FN int symv_pipe_ux_valid(int ux) { return ux <= 128 && symv_pdet_width_valid(ux); }

/* symv_pipe_rows_per_thread's rule as a constant expression, which the
 * kernels' preprocessor tests too (SYMV_PIPE_V, kernels/symv_pipe.cuh) */
#define SYMV_PIPE_ROWS_PER_THREAD(elem_bytes, bs, ux) ((elem_bytes) == 4 && (ux) * 16 >= (bs) ? 4 : 1)

/* floats a column's run of 64 rows takes in a stage where the copy engine
 * brings it (four rows a thread, A's columns not 16-byte aligned): the
 * aligned 16-byte words that hold the run, one more than 64 floats'
 * where it starts off a boundary (symv_pipe_copy_runs, kernels/symv_pipe.cuh) */
#define SYMV_PIPE_RUN_FLOATS 68

/* the least n at which SSYMV's pipe families bring A's columns by the copy
 * engine where they are not 16-byte aligned (symv_pipe_tma_at): below it each block has too few tiles for the
 * copies' issue to pay, and the element copies are faster. From the H200
 * (doc/results.md, "SSYMV with odd lda: the copy engine in the kernels"):
 * the best pipe kernel of each kind crosses at n = 7001..8447, the best
 * pipe_det at 6007..7001. */
#define SYMV_PIPE_TMA_MIN_N 8000

/** symv_pipe_tma_up: 1 if a call at size n whose A has row stride rs,
 *  column stride cs (elements) and address a_addr (bytes, of logical
 *  element (0, 0)) takes the copy engine's runs with rows ascending: rs =
 *  1 (uplo L), n >= SYMV_PIPE_TMA_MIN_N and A's columns not 16-byte
 *  aligned (cs not a multiple of 4, or A off a 16-byte boundary); else 0.
 *  symv_pipe_tma_at's case of rs = 1, and pipe_det's first entry's test
 *  (SYMV_PDET_BOTH, kernels/symv_pipe_det.cu). */
SYMV_PIPE_FN int symv_pipe_tma_up(int n, int rs, long long cs, unsigned long long a_addr)
{
  return rs == 1 && n >= SYMV_PIPE_TMA_MIN_N && ((cs & 3) != 0 || (a_addr & 15) != 0);
}

/** symv_pipe_tma_at: which copy-engine entry of a pipe kernel at four
 *  rows a thread (compute capability 9.0 on: kernels/symv_pipe.cuh) a
 *  call at size n takes whose A has row stride rs (1: uplo L; -1: U,
 *  walked backwards), column stride cs (elements) and address a_addr
 *  (bytes, of logical element (0, 0)): 1 (NAME_runs) where
 *  symv_pipe_tma_up holds; -1 (NAME_runs_u) where rs = -1, n >=
 *  SYMV_PIPE_TMA_MIN_N and A's columns are not 16-byte aligned (cs not a
 *  multiple of 4, or the lowest address of a column's first 4 rows, A - 3
 *  elements of 4 bytes, off a 16-byte boundary); else 0 (the 16-byte or
 *  element copies of the first entry). */
SYMV_PIPE_FN int symv_pipe_tma_at(int n, int rs, long long cs, unsigned long long a_addr)
{
  if (symv_pipe_tma_up(n, rs, cs, a_addr)) return 1;
  return rs == -1 && n >= SYMV_PIPE_TMA_MIN_N && ((cs & 3) != 0 || ((a_addr - 12) & 15) != 0) ? -1 : 0;
}

/** symv_pipe_rows_per_thread: the rows of a tile a thread of the pipe
 *  families takes (SYMV_PIPE_V, kernels/symv_pipe.cuh): 4 for elements of
 *  4 bytes (SSYMV) where that leaves each thread a column (ux*16 >= bs),
 *  else 1. */
SYMV_PIPE_FN int symv_pipe_rows_per_thread(int elem_bytes, int bs, int ux)
{
  return SYMV_PIPE_ROWS_PER_THREAD(elem_bytes, bs, ux);
}

/** symv_pipe_sums_elems: the elements of a pipe kernel's static arrays of
 *  a tile's sums (kernels/symv_pipe.cuh): rsum, 64 a column group (V = 1)
 *  or a warp (V = 4), and csum, CPT a warp (V = 1) or a half warp (V = 4):
 *  bs + 2*ux, or 2*bs + ux. */
SYMV_PIPE_FN int symv_pipe_sums_elems(int elem_bytes, int bs, int ux)
{
  return symv_pipe_rows_per_thread(elem_bytes, bs, ux) == 1 ? bs + 2 * ux : 2 * bs + ux;
}

/** symv_pipe_first_block: the first row block of column strip J,
 *  floor(J*ux/64) (the one holding the strip's diagonal). */
SYMV_PIPE_FN long symv_pipe_first_block(long J, int ux)
{
  return J * ux / 64;
}

/** symv_pipe_tiles_before: the tiles of strips 0..J-1 with nb row blocks,
 *  J*nb less the row blocks above them, sum over j < J of floor(j*ux/64):
 *  with q = 64/ux and J = a*q + b that sum is q*a*(a-1)/2 + b*a (ux a
 *  divisor of 64); with p = ux/64 it is p*J*(J-1)/2 (ux a multiple of 64). */
SYMV_PIPE_FN long symv_pipe_tiles_before(long J, long nb, int ux)
{
  if (ux > 64) return J * nb - (long)(ux / 64) * J * (J - 1) / 2;
  const long q = 64 / ux, a = J / q, b = J % q;
  return J * nb - (q * a * (a - 1) / 2 + b * a);
}

/** symv_pipe_strips_of: the strips that hold tiles of row block rb (rows
 *  rb*64..rb*64+63) among ns: those j with j*ux <= rb*64 + 63, that is
 *  min(ns, floor((rb*64 + 63)/ux) + 1) (= (rb + 1)*64/ux for ux <= 64). */
SYMV_PIPE_FN long symv_pipe_strips_of(long rb, long ns, int ux)
{
  const long s = (rb * 64 + 63) / ux + 1;
  return s < ns ? s : ns;
}

/** symv_pipe_stages: the cp.async pipeline's stages of a pipe or pipe_det
 *  kernel of MX mx: mx mod 3 + 2 (MX 0..2 in pipe; 0..5 in pipe_det, whose
 *  MX 3..5 take the stages of MX 0..2 with units of BLOCK_SIZE columns,
 *  symv_pdet_unit_width). */
SYMV_PIPE_FN int symv_pipe_stages(int mx) { return mx % 3 + 2; }

/** SYMV_PDET_UNIT_WIDTH(bs, ux, mx), symv_pdet_unit_width: the columns of a
 *  unit of the pipe_det kernel, the span of a row block whose tiles one
 *  block sums before it stores their row sums (kernels/symv_pipe_det.cu): a
 *  tile's UX for MX 0..2, BLOCK_SIZE (BLOCK_SIZE/UX tiles side by side) for
 *  MX 3..5. The macro is the kernel's constant (SYMV_PDET_W), the function
 *  the host's (gpu/gpu.c, fit/fit.c). */
#define SYMV_PDET_UNIT_WIDTH(bs, ux, mx) ((mx) >= 3 ? (bs) : (ux))
SYMV_PIPE_FN int symv_pdet_unit_width(int block_size, int ux, int mx) { return SYMV_PDET_UNIT_WIDTH(block_size, ux, mx); }

/** symv_pipe_item_width: the columns of the work items the blocks of a
 *  pipe kernel (det = 0) or a pipe_det kernel (det = 1) share: the tile's
 *  ux, or pipe_det's unit width (symv_pdet_unit_width: BLOCK_SIZE for MX
 *  3..5); 0 when ux is not a tile width (symv_pipe_ux_valid). The one
 *  mapping of the host's launch (gpu/gpu.c) and the fit's step sizes
 *  (fit/fit.c). */
SYMV_PIPE_FN int symv_pipe_item_width(int det, int block_size, int ux, int mx)
{
  if (!symv_pipe_ux_valid(ux)) return 0;
  return det ? symv_pdet_unit_width(block_size, ux, mx) : ux;
}

/** symv_pdet_units: the units of the pipe_det kernel at size n with units
 *  w columns wide (symv_pdet_unit_width; a power of two, 1..1024),
 *  numbered as tiles of w columns are (symv_pipe_tiles_before): a unit is
 *  a row block's tiles in a strip of w columns. 0 for n < 1 or w out of
 *  range (symv_pdet_width_valid). */
SYMV_PIPE_FN long symv_pdet_units(long n, int w)
{
  if (n < 1 || !symv_pdet_width_valid(w)) return 0;
  return symv_pipe_tiles_before((n + w - 1) / w, (n + 63) / 64, w);
}

/** symv_pipe_tiles: the tiles of the pipe kernels at size n, all
 *  ceil(n/ux) strips' (symv_pipe_tiles_before), counted as the kernels
 *  number them: the work items of ux columns (symv_pdet_units). 0 for
 *  n < 1 or ux not a power of two in 1..128. */
SYMV_PIPE_FN long symv_pipe_tiles(long n, int ux) { return symv_pipe_ux_valid(ux) ? symv_pdet_units(n, ux) : 0; }

/** symv_pipe_block_of: the block whose share holds tile t when G blocks
 *  share T tiles as the pipe kernels share them (block b: tiles
 *  floor(b*T/G) .. floor((b+1)*T/G) - 1): the largest b with
 *  floor(b*T/G) <= t, i.e. floor(((t+1)*G - 1) / T). 0 <= t < T, G <= T. */
SYMV_PIPE_FN long symv_pipe_block_of(long t, long G, long T)
{
  return ((t + 1) * G - 1) / T;
}

/** symv_pipe_chunks: the chunks of y the pipe kernel's gate counts per
 *  call (kernels/symv_pipe.cu) with a grid of G blocks: min(G, ceil(n/64)),
 *  so that every chunk holds at least 64 rows while there are fewer than
 *  64 x G rows and the first blocks launched scale them. n >= 1, G >= 1. */
SYMV_PIPE_FN long symv_pipe_chunks(long n, long G)
{
  const long nb = (n + 63) / 64;
  return nb < G ? nb : G;
}

/** SYMV_PDET_P1_THREADS(bs), symv_pdet_p1_threads: the threads of a block
 *  of the pipe_det kernel's phase 1 (kernels/symv_pipe_det.cu) for a
 *  candidate of BLOCK_SIZE bs: min(bs, 128), fewer than phase 0's so that
 *  its blocks fit in the registers phase 0's leave on an SM and wait
 *  there, launched early, for phase 0 to end. The macro is the
 *  kernel's constant, the function the host's launch. */
#define SYMV_PDET_P1_THREADS(bs) ((bs) < 128 ? (bs) : 128)
SYMV_PIPE_FN int symv_pdet_p1_threads(int block_size) { return SYMV_PDET_P1_THREADS(block_size); }

/** SYMV_PDET_P1_GROUPS: the threads that share a row's sums in phase 1
 *  (its column groups), whatever the block size: 8. */
#define SYMV_PDET_P1_GROUPS 8

/** symv_pdet_p1_rows: the rows of y a phase 1 block writes,
 *  symv_pdet_p1_threads / SYMV_PDET_P1_GROUPS (8 or 16, a divisor of 64);
 *  phase 1's grid is ceil(n / that). */
SYMV_PIPE_FN int symv_pdet_p1_rows(int block_size) { return symv_pdet_p1_threads(block_size) / SYMV_PDET_P1_GROUPS; }

#endif
