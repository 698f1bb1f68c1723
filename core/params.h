/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * params.h - candidates: one point of a kernel family's tuning space.
 *
 * Families (doc/method.md sections 2, 3, 7):
 *   atomic      the atomic-mutex kernel, kernels/symv_atomic.cu
 *   atomic_red  the lock-free variant (atomicAdd into y), kernels/symv_red.cu
 *   atomic_w    lock-free atomics into a workspace w, y written by the last
 *               tile to add to it, kernels/symv_w.cu
 *   lu          the L+U kernel, kernels/symv_lu.cu
 *   panel       no atomics: a block owns UX rows of y and reads their row
 *               panel and column panel, kernels/symv_panel.cu
 *   pipe        persistent blocks stream tiles of 64 rows x UX columns
 *               through a cp.async shared-memory pipeline, kernels/symv_pipe.cu
 *   pipe_det    pipe without atomics on data: sums into a workspace, each
 *               row block summed in a fixed order by the block that
 *               completes it, kernels/symv_pipe_det.cu
 *   pipe_fx     pipe adding exactly with integer atomics into fixed-point
 *               accumulators, each row block rounded once and written by
 *               the block that completes it, kernels/symv_pipe_fx.cu
 * Parameters (all families): BLOCK_SIZE threads per block, UX columns per
 * block (panel: rows of y per block; pipe, pipe_det, pipe_fx: columns per tile),
 * MULTIPLICITY thread blocks resident per SM (a launch setting, enforced
 * through dynamic shared memory), MX load order (kernels/symv_mx.h; panel:
 * its schedule, 0..3; pipe, pipe_det, pipe_fx: pipeline stages - 2, 0..2;
 * pipe_det and pipe_fx also 3..5, the stages of MX - 3 with pipe_det's units
 * or with pipe_fx's counts held, kernels/symv_pipe_det.cu, symv_pipe_fx.cu;
 * pipe_fx also 6..8, the stages of MX - 6 completed by the grid).
 * BLOCK_SIZE, UX, MX and the family select the compiled code.
 */
#ifndef SYMV_PARAMS_H
#define SYMV_PARAMS_H

#include <stddef.h>

typedef enum {
  SYMV_FAMILY_ATOMIC = 0,
  SYMV_FAMILY_LU = 1,
  SYMV_FAMILY_ATOMIC_RED = 2,
  SYMV_FAMILY_FAULT = 3,   /* test-only kernels/symv_fault.cu; mx = fault mode */
  SYMV_FAMILY_FLOOR = 4,   /* bench-only kernels/symv_floor.cu: reads the triangle, computes nothing */
  SYMV_FAMILY_ATOMIC_W = 5,
  SYMV_FAMILY_PANEL = 6,
  SYMV_FAMILY_PIPE = 7,
  SYMV_FAMILY_PIPE_DET = 8,
  SYMV_FAMILY_PIPE_FX = 9,
  SYMV_FAMILY_COUNT
} symv_family;

/** The routine a candidate computes (core/routine.h holds what each one
 *  is). DSYMV is 0: a zeroed symv_params is a DSYMV candidate, as every
 *  candidate was before the routine became a key. */
typedef enum {
  SYMV_DSYMV = 0,
  SYMV_SSYMV = 1,
  SYMV_CSYMV = 2,
  SYMV_ZSYMV = 3,
  SYMV_CHEMV = 4,
  SYMV_ZHEMV = 5,
  SYMV_ROUTINE_COUNT
} symv_routine;

/** One candidate of the tuning space. */
typedef struct {
  symv_family family; /* kernel family */
  int block_size;     /* BLOCK_SIZE: threads per block, multiple of 32, 32..1024 */
  int ux;             /* UX: columns per block, 1..128 (the pipe families' alone above 64) */
  int multiplicity;   /* MULTIPLICITY: resident blocks per SM, >= 1 */
  int mx;             /* MX: load order 0..9 (kernels/symv_mx.h) */
  symv_routine routine; /* the routine it computes; last, so that {family, BLOCK_SIZE, UX,
                           MULTIPLICITY, MX} initializers mean DSYMV */
} symv_params;

/** Limits every candidate must respect, whatever the GPU. */
#define SYMV_UX_MAX 128
#define SYMV_BLOCK_SIZE_MAX 1024
#define SYMV_MULTIPLICITY_MAX 64

/** What a kernel family is. */
typedef struct {
  const char *name;    /* "pipe": in candidates' names, databases and options */
  const char *source;  /* its kernel source in kernels/, "symv_pipe.cu" */
  int tunable;         /* 1: part of the tuning space and the library; 0: test or bench only */
  int deterministic;   /* 1: the same inputs give the same bits, run after run (no atomics on data) */
  int launches;        /* the grids one call launches (alpha != 0): 2 for pipe_det's two phases, else 1 */
  int default_space;   /* 1: a sweep that names no family enumerates it; 0: only when named (tunable
                          families whose databases are not yet swept with them) */
} symv_family_info;

/** symv_family_get: the registry entry of f; NULL if out of range. */
const symv_family_info *symv_family_get(symv_family f);

/** symv_family_name: "atomic", "lu", "atomic_red", "fault", "floor",
 *  "atomic_w", "panel", "pipe", "pipe_det" or "pipe_fx". */
const char *symv_family_name(symv_family f);

/** symv_family_tunable: nonzero for the families of the tuning space and of
 *  the library (SYMV_TUNABLE_FAMILIES); zero for the test-only fault and
 *  the bench-only floor kernels, which do not compute DSYMV. */
int symv_family_tunable(symv_family f);

/** symv_family_default_space: nonzero for the tunable families a sweep
 *  enumerates when it names none (symv_family_info.default_space); the
 *  others (pipe_fx) are swept only when named. */
int symv_family_default_space(symv_family f);

/** SYMV_TUNABLE_FAMILIES: the names of the families symv_family_tunable
 *  accepts, in enum order, for messages and --help texts (a literal, so that
 *  it joins other literals; tests/test_params.c checks it against the
 *  table). */
#define SYMV_TUNABLE_FAMILIES "atomic, lu, atomic_red, atomic_w, panel, pipe, pipe_det, pipe_fx"

/** SYMV_DETERMINISTIC_FAMILIES: the names of the families of the default
 *  space (symv_family_default_space) whose results are bitwise reproducible
 *  run after run (symv_family_info .deterministic), in enum order, for
 *  messages and the deterministic rule set's heading (tests/test_params.c
 *  checks it against the table). pipe_fx, deterministic too, joins it when
 *  it joins the default space. */
#define SYMV_DETERMINISTIC_FAMILIES "lu, panel, pipe_det"

/** symv_family_pipelined: nonzero for the families of the cp.async tile
 *  pipeline, pipe, pipe_det and pipe_fx (kernels/symv_pipe.cuh), which share their
 *  parameters' constraints, their pipeline's shared memory and their tile
 *  numbering. */
int symv_family_pipelined(symv_family f);

/** symv_pipe_mx_max: the largest MX of pipelined family f: pipe 2 (pipeline
 *  stages - 2), pipe_det 5 (3..5: with units), pipe_fx 8 (3..5: counts
 *  held; 6..8: completion by the grid); -1 for the other families. */
int symv_pipe_mx_max(symv_family f);

/** symv_family_parse: the family named `s`; SYMV_INVALID_VALUE if none. */
int symv_family_parse(const char *s, symv_family *out);

/** symv_kernel_name_family: the family of a kernel named as
 *  symv_kernel_name names it ("dsymv_pipe_det_b512_u64_x0": pipe_det);
 *  SYMV_INVALID_VALUE for any other name ("cublas", ""). */
int symv_kernel_name_family(const char *name, symv_family *out);

/** symv_params_check: 0 if `p` is inside the limits above, else
 *  SYMV_INVALID_VALUE with a message naming the parameter in err. */
int symv_params_check(const symv_params *p, char *err, size_t errlen);

/** symv_params_format: "family:BLOCK_SIZE,UX,MULTIPLICITY,MX", e.g.
 *  "atomic:128,16,4,0", the form symv_params_parse reads. */
void symv_params_format(const symv_params *p, char *buf, size_t len);

/** symv_params_parse: reads the symv_params_format form; SYMV_INVALID_VALUE
 *  with a message in err if malformed or out of the limits. */
int symv_params_parse(const char *s, symv_params *out, char *err, size_t errlen);

/** symv_kernel_name: the entry point of the compiled code, named by its
 *  routine and code parameters, e.g. "zhemv_pipe_b256_u64_x0" (MULTIPLICITY
 *  is a launch setting, not part of the code). */
void symv_kernel_name(const symv_params *p, char *buf, size_t len);

/** symv_params_same_code: nonzero if a and b compile to the same code
 *  (same routine; they differ at most in MULTIPLICITY). */
int symv_params_same_code(const symv_params *a, const symv_params *b);

#endif
