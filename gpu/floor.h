/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * floor.h - the floor of a SYMV/HEMV on this GPU: the least time, at size
 * n, that a read-only kernel streaming the stored lower triangle's bytes
 * once takes, over a family of such kernels (kernels/symv_floor.cu),
 * launched and timed as the SYMV kernels are (programmatic dependent
 * launch, CUDA events around back-to-back calls, A rotated among copies
 * larger than twice the L2: timing.h). `symvtune time`, `bench`
 * and the sweep's dense stage report a SYMV's time over it.
 *
 * A shape is a symv_params of family floor: BLOCK_SIZE threads per block,
 * UX loads in flight per thread, MULTIPLICITY blocks per SM (the grid is
 * one wave), MX the layout (SYMV_FLOOR_* below).
 */
#ifndef SYMV_FLOOR_H
#define SYMV_FLOOR_H

#include <stdint.h>
#include "gpu.h"
#include "timing.h"

/* The layouts of kernels/symv_floor.cu (MX of a floor shape). */
#define SYMV_FLOOR_ELEMENT 0     /* element loads, column pairs cut in slices of 32 x UX */
#define SYMV_FLOOR_VEC16 1       /* 16-byte loads (element loads where a column's ends cut a piece) */
#define SYMV_FLOOR_WARP_COLUMN 8 /* the untuned floor before the family: a warp per column */
#define SYMV_FLOOR_EMPTY 9       /* reads nothing: what a launch costs */

/** Most shapes symv_floor_shapes gives. */
#define SYMV_FLOOR_MAX_SHAPES 64

/** symv_floor_shapes: the floor family for routine r on device d (NULL:
 *  no device limits), at most `max` shapes into out (routine set), in a
 *  fixed order; returns how many. For every element size: 16-byte layout
 *  (MX 1; for 16-byte elements the element layout, MX 0, which is the
 *  same loads) with BLOCK_SIZE 128, 256, 512, UX 1, 2, 4, 8 and
 *  BLOCK_SIZE x MULTIPLICITY 512, 1024, 2048 threads per SM (36 shapes);
 *  for 4- and 8-byte elements also the element layout with BLOCK_SIZE 128,
 *  256, UX 4, 8 and 1024, 2048 threads per SM (8); and the untuned warp
 *  per column kernel, floor:256,1,8,8 (1): 45 or 37 shapes. With d, shapes
 *  of more threads or blocks per SM than d allows are left out, as the
 *  candidates' filter does (measure/space.c); registers and shared memory
 *  are checked when a shape is loaded (symv_floor_family_load). */
int symv_floor_shapes(const symv_device_info *d, symv_routine r, symv_params *out, int max);

/** symv_floor_bytes: the bytes a floor kernel reads at size n, those of
 *  the stored triangle: n(n+1)/2 elements of routine r's element size (4,
 *  8, 8, 16, 8, 16 bytes for ssymv, dsymv, csymv, zsymv, chemv, zhemv). 0
 *  for n < 1 or an unknown routine. */
long long symv_floor_bytes(symv_routine r, int n);

/** symv_floor_checksum: the checksum a floor kernel reading the lower
 *  triangle of the column-major n-by-n A (host, leading dimension lda >=
 *  n, elements of routine r) must produce: the sum, modulo 2^64, of the
 *  32-bit words (native byte order, as unsigned integers) of every element
 *  (i, j), i >= j, whole. Exact and independent of the order of the
 *  additions, so the GPU's sum must equal it bit for bit. */
uint64_t symv_floor_checksum(symv_routine r, int n, const void *A, int lda);

/** The loaded floor family of one routine on the current device. */
typedef struct {
  symv_routine routine;                 /* whose element size it reads */
  int nshapes;                          /* shapes loaded (the GPU can run them) */
  symv_kernel k[SYMV_FLOOR_MAX_SHAPES]; /* k[i].p is the shape */
  int dropped;                          /* shapes of symv_floor_shapes the GPU could not run */
  int untuned;                          /* index in k of the warp-per-column shape, -1 if not loaded */
  symv_kernel empty;                    /* the empty kernel (MX 9), floor:32,1,1,9 */
  void *out;                            /* device: one uint64_t per block of the largest grid */
  size_t out_len;                       /* values out holds */
  int held;                             /* 1: timed by symv_time_held (the sweep's worker), 0 (as
                                           loaded): by symv_time (bench, time) */
} symv_floor_family;

/** symv_floor_family_load: compiles (NVRTC, cached as every candidate) and
 *  loads every shape of symv_floor_shapes(d, r) and the empty kernel on the
 *  current device (d's), dropping the shapes whose MULTIPLICITY registers
 *  or shared memory do not allow (f->dropped), and allocates the blocks'
 *  sums. Errors: SYMV_COMPILE, SYMV_CUDA, SYMV_OCCUPANCY (no shape or no
 *  empty kernel could be loaded); `err` says why. Free with
 *  symv_floor_family_free, also after an error. */
int symv_floor_family_load(const symv_device_info *d, symv_routine r, symv_floor_family *f, char *err,
                           size_t errlen);

/** symv_floor_family_free: unloads and frees; safe on a zeroed struct. */
void symv_floor_family_free(symv_floor_family *f);

/** A floor kernel's call (symv_call_fn context): reads copy `rep` of the
 *  set's A once with kernel k. */
typedef struct {
  const symv_kernel *k;       /* a floor shape, or the empty kernel */
  const symv_matrix_set *set; /* the copies of A */
  int n, lda;                 /* order and leading dimension, elements */
  void *out;                  /* device, symv_floor_grid(k, n) uint64_t at least */
} symv_floor_ctx;

/** symv_floor_call: a symv_call_fn that launches a symv_floor_ctx's kernel
 *  on copy `rep` of its set. Errors as symv_floor_launch (gpu.h). */
int symv_floor_call(void *ctx, int rep, cudaStream_t stream);

/** The floor at one n. Times in microseconds per call. */
typedef struct {
  double us;          /* the floor: the least median of the shapes timed fully */
  int shape;          /* the index in f->k of the shape that gave it */
  symv_timing t;      /* that shape's timing */
  double untuned_us;  /* the warp-per-column shape's median (always timed fully); NAN if not loaded */
  int timed;          /* shapes timed fully */
  double shape_us[SYMV_FLOOR_MAX_SHAPES]; /* each shape's median (f->k's order); NAN if not timed fully */
} symv_floor_result;

/** symv_floor_measure: the floor of f at size n on the set's copies of A
 *  (lda = n; cold when the set rotates copies, timing.h), on the default
 *  stream: every shape is probed (symv_time_probe, after one call to size
 *  the probe), the `keep` fastest by the probe and the untuned shape are
 *  timed fully (symv_time, `batches` batches of about 2 ms; keep < 1 or
 *  >= the shapes: all of them), and the least median is the floor. Errors:
 *  SYMV_INVALID_VALUE (n < 1, no shapes), those of symv_time; the first
 *  error stops it. */
int symv_floor_measure(symv_floor_family *f, const symv_matrix_set *set, int n, int batches, int keep,
                       symv_floor_result *res);

/** symv_floor_empty_time: the empty kernel's time a call, back to back,
 *  launched as the floor and SYMV kernels are (symv_time, `batches`
 *  batches): the launch cost the floor includes. Errors as symv_time. */
int symv_floor_empty_time(symv_floor_family *f, int batches, symv_timing *t);

/** symv_floor_run_checksum: one call of floor shape k on the device matrix
 *  A (n-by-n, leading dimension lda, k's routine) into the device buffer
 *  out (at least symv_floor_grid(k, n) values), synchronized; *sum gets
 *  the sum of the blocks' values, which symv_floor_checksum must equal.
 *  Errors: as symv_floor_launch; SYMV_CUDA (the call failed or the copy
 *  back did). */
int symv_floor_run_checksum(const symv_kernel *k, int n, const void *A, int lda, void *out, uint64_t *sum);

#endif
