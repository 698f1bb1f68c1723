/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_limits.h - constants the host (gpu/gpu.c) and the kernels must agree
 * on, in one place. Plain C: the host includes it as well as the kernels
 * (like symv_pipe.h); nothing here needs CUDA.
 *
 *   SYMV_SEG              rows of y per segment in the atomic_red family
 *                         (one 64-bit state each, kernels/symv_red.cu) and
 *                         in the atomic_w family (one 64-bit counter each,
 *                         kernels/symv_w.cu): the host sizes those arrays as
 *                         ceil(n / SYMV_SEG) words.
 *   SYMV_TILE_GROUPS_MAX  the most groups G of BLOCK_SIZE rows the host may
 *                         give a tile of atomic_red and atomic_w (the
 *                         kernels' `groups` argument); symv_red.cu sizes its
 *                         per-thread list of segments to claim from it and
 *                         refuses to compile if it does not fit.
 *   SYMV_LU_SPLITS_MAX    the most column splits S (gridDim.y) the host
 *                         gives the L+U family; the kernel itself takes any
 *                         S (its workspace P holds S*n elements), the host's
 *                         workspace is sized by this bound.
 */
#ifndef SYMV_LIMITS_H
#define SYMV_LIMITS_H

#define SYMV_SEG 32
#define SYMV_TILE_GROUPS_MAX 64
#define SYMV_LU_SPLITS_MAX 64

#endif
