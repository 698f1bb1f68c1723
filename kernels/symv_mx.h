/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_mx.h - the 10 MX load orders of the atomic SYMV kernel.
 *
 * A thread of the atomic kernel issues UX strided loads a(i, c0+k), one per
 * column k of its block's UX columns. MX picks the order of those loads
 * (doc/method.md section 2, [paper] Table 2): the k-th load issued reads column
 * symv_mx_index(MX, UX, k). The paper fixed 10 orders without naming them;
 * ours, each a permutation of 0..UX-1 for every UX >= 1:
 *
 *   MX  order                                   UX = 8
 *   0   natural                                 0 1 2 3 4 5 6 7
 *   1   reversed                                7 6 5 4 3 2 1 0
 *   2   evens, then odds (stride 2)             0 2 4 6 1 3 5 7
 *   3   odds, then evens                        1 3 5 7 0 2 4 6
 *   4   stride 3 (residue classes 0, 1, 2)      0 3 6 1 4 7 2 5
 *   5   stride 4                                0 4 1 5 2 6 3 7
 *   6   halves interleaved, upper first         4 0 5 1 6 2 7 3 (h = floor(UX/2))
 *   7   rotated by half: h.., then 0..h-1       4 5 6 7 0 1 2 3 (h = floor(UX/2))
 *   8   stride 2, reversed                      7 5 3 1 6 4 2 0
 *   9   neighbours swapped                      1 0 3 2 5 4 7 6
 *
 * The header is plain C that also compiles as CUDA: the kernel evaluates it
 * with constant MX, UX and k, so the order costs nothing at run time; the
 * host uses it to test that every order is a permutation.
 */
#ifndef SYMV_MX_H
#define SYMV_MX_H

#if defined(__CUDACC__)
#define SYMV_MX_FN static __host__ __device__ __forceinline__
#else
#define SYMV_MX_FN static inline
#endif

/** Number of MX orders; valid MX values are 0..SYMV_MX_COUNT-1. */
#define SYMV_MX_COUNT 10

/* k-th element of 0..ux-1 listed by residue class mod s, classes in order
 * first, first+1, ... (mod s). */
SYMV_MX_FN int symv_mx_strided(int ux, int s, int first, int k)
{
  for (int c = 0; c < s; c++) {
    int g = (first + c) % s;
    int cnt = g < ux ? (ux - g + s - 1) / s : 0;
    if (k < cnt) return g + k * s;
    k -= cnt;
  }
  return -1;
}

/** symv_mx_index: the column (0..ux-1) read by the k-th load (0 <= k < ux)
 *  under load order mx (0..SYMV_MX_COUNT-1). Returns -1 for mx, ux or k out
 *  of range. Pure function; see the table above. */
SYMV_MX_FN int symv_mx_index(int mx, int ux, int k)
{
  if (ux < 1 || k < 0 || k >= ux) return -1;
  switch (mx) {
  case 0: return k;
  case 1: return ux - 1 - k;
  case 2: return symv_mx_strided(ux, 2, 0, k);
  case 3: return symv_mx_strided(ux, 2, 1, k);
  case 4: return symv_mx_strided(ux, 3, 0, k);
  case 5: return symv_mx_strided(ux, 4, 0, k);
  case 6: return (k & 1) ? k / 2 : ux / 2 + k / 2;
  case 7: return (k + ux / 2) % ux;
  case 8: return ux - 1 - symv_mx_strided(ux, 2, 0, k);
  case 9: return (k ^ 1) < ux ? (k ^ 1) : k;
  default: return -1;
  }
}

#endif
