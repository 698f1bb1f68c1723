/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * space.h - the tuning space: enumeration of the candidates of each family
 * from the GPU's limits, and the filter that drops, before compiling, the
 * points the GPU cannot run at all.
 *
 * Default space (doc/method.md section 2, [paper] Table 2, plus our families):
 *   atomic      BLOCK_SIZE 32..256 step 32, UX 8..32, MULTIPLICITY 1..8,
 *               MX 0..9: 8 x 25 x 8 x 10 = 16,000 points (the paper's)
 *   lu          BLOCK_SIZE 32, 64, 128, 256, 512; UX 4, 8, 16, 32;
 *               MULTIPLICITY 1, 2, 4; MX 0, 2: 120 points
 *   atomic_red, atomic_w  BLOCK_SIZE 32, 64, 128, 256; UX 8..32 step 4;
 *               MULTIPLICITY 1, 2, 3, 4, 6, 8; MX 0, 1: 336 points each
 *   panel       BLOCK_SIZE 64, 128, 256, 512; UX 2, 4, 8, 16;
 *               MULTIPLICITY 1, 2, 4, 8; MX 0..3: 256 points
 *   pipe, pipe_det  BLOCK_SIZE 64, 128, 256, 512; UX 16, 32, 64, 128
 *               (at most BLOCK_SIZE/2); MULTIPLICITY 1..4; MX 0..2: 156
 *               points; pipe_det MX 0..5 (3..5: units): 312 points
 *   pipe_fx     pipe's 156 points, enumerated only when named
 *               (symv_family_default_space)
 * Wide space (--wide), where the GPU allows: MULTIPLICITY up to the GPU's
 * blocks per SM (32 on Hopper) and BLOCK_SIZE up to 512 for atomic and
 * atomic_red (up to 1024 for lu), the rest as above.
 */
#ifndef SYMV_SPACE_H
#define SYMV_SPACE_H

#include "gpu.h"
#include "params.h"

/** Which families and how wide. */
typedef struct {
  int family[SYMV_FAMILY_COUNT]; /* nonzero: enumerate this family (never FAULT) */
  int wide;                      /* nonzero: the wide space */
} symv_space_opts;

/** symv_space_count: number of points symv_space_enumerate would return for
 *  `o` on device limits `d`: the axes' product less the points a family's
 *  own constraints refuse (symv_params_check), before any device filtering. */
long symv_space_count(const symv_space_opts *o, const symv_device_info *d);

/** symv_space_enumerate: the points of the space, family by family, those
 *  sharing code (all but MULTIPLICITY equal) next to each other, in a
 *  malloc'd array *out of *count entries. Errors: SYMV_NO_MEMORY. */
int symv_space_enumerate(const symv_space_opts *o, const symv_device_info *d, symv_params **out, long *count);

/** symv_static_smem: shared memory (bytes) the kernel of p declares
 *  statically, computed from the kernel sources' __shared__ arrays (with
 *  the compiler's 16-byte padding): for the tunable families at least the
 *  compiled kernel's figure and within 64 bytes of it (tests/test_compile.c
 *  checks a sample against the cubins NVRTC makes for sm_90). */
int symv_static_smem(const symv_params *p);

/** symv_static_filter: 0 if `p` may run on `d` as far as can be told
 *  without compiling; else SYMV_RESOURCES with the reason in why:
 *  MULTIPLICITY above the blocks an SM takes, MULTIPLICITY x BLOCK_SIZE
 *  above the threads an SM takes, BLOCK_SIZE above the threads a block may
 *  have, MULTIPLICITY x (static shared memory + the pipe families'
 *  pipeline (symv_pipe_smem) + reserved) above the SM's shared memory, or
 *  a pipe, pipe_det or pipe_fx point on a GPU below compute capability 8.0 (their
 *  cp.async copies).
 *  Registers are checked after compiling (occupancy API). */
int symv_static_filter(const symv_params *p, const symv_device_info *d, char *why, int len);

#endif
