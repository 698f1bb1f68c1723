/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_pipe.h - the tile numbering of the pipe family (kernels/symv_pipe.cu),
 * shared by the kernel and the host (symv_pipe_tiles, src/gpu.c), so that
 * both count the same tiles by the same formula.
 *
 * The lower triangle of an n x n matrix is cut into tiles of 64 rows by UX
 * columns (UX a divisor of 64); column strip j holds the row blocks
 * floor(j*UX/64) .. nb-1, nb = ceil(n/64), and tiles are numbered strip by
 * strip (column-major).
 */
#ifndef SYMV_PIPE_H
#define SYMV_PIPE_H

#if defined(__CUDACC__)
#define SYMV_PIPE_FN static __host__ __device__ __forceinline__
#else
#define SYMV_PIPE_FN static inline
#endif

/** symv_pipe_tiles_before: the tiles of strips 0..J-1 with nb row blocks,
 *  J*nb less the row blocks above them, sum over j < J of floor(j*ux/64):
 *  with q = 64/ux and J = a*q + b that sum is q*a*(a-1)/2 + b*a. ux must
 *  divide 64. */
SYMV_PIPE_FN long symv_pipe_tiles_before(long J, long nb, int ux)
{
  const long q = 64 / ux, a = J / q, b = J % q;
  return J * nb - (q * a * (a - 1) / 2 + b * a);
}

#endif
