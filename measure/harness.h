/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * harness.h - the timing harness: how symvtune verifies and times one
 * SYMV/HEMV call (a candidate kernel, libsymv's entry point, or the
 * routine's cuBLAS function) at one n, for the sweep's worker
 * (measure/worker.c), `bench` and `time`.
 *
 * A size is set up once (harness_size_setup): fresh random A, x and y0, A
 * in enough device copies to exceed twice the L2 cache unless hot
 * (gpu/timing.h), cuBLAS's y := alpha*A*x + beta*y0 with atomics not
 * allowed, and the residual's scale (reference.h). A call is verified
 * against cuBLAS's y (harness_verify) and then timed in one of two ways:
 *
 *   harness_time_loop  calls back to back as the host queues them, as a
 *                      program calling SYMV in a loop makes them (symv_time:
 *                      batches of about 2 ms, at most 2000 calls); `bench`
 *                      and `time`
 *   harness_time_held  the worker's: a probe, then batches held until queued
 *                      whole (symv_time_held: the GPU's time), each call
 *                      charged its launches (harness_charge)
 *
 * Sizes n and counts are in elements, times in microseconds.
 */
#ifndef SYMV_HARNESS_H
#define SYMV_HARNESS_H

#include <cublas_v2.h>
#include <stddef.h>
#include "gpu.h"
#include "routine.h"
#include "timing.h"

/** libsymv's entry point of a routine (symvDsymv, ..., symvZhemv): the
 *  cuBLAS prototype, with the routine's scalar type behind each pointer. */
typedef cublasStatus_t (*harness_lib_fn)(cublasHandle_t, cublasFillMode_t, int, const void *, const void *, int,
                                         const void *, int, const void *, void *, int);

/** HARNESS_LAUNCH_OBS: the host launch costs kept for the charge (harness_charge). */
#define HARNESS_LAUNCH_OBS 1024

/** What every call of a run shares: the routine, the stored triangle, the
 *  cuBLAS handle (cuBLAS's calls and libsymv's; the caller sets its atomics
 *  mode), the candidates' workspace, the scalars, and the launch costs seen
 *  so far (harness_charge). */
typedef struct {
  symv_routine routine;
  char uplo;   /* 'L' or 'U' */
  size_t E;    /* the routine's element size, bytes */
  cublasHandle_t h;
  symv_workspace ws;
  _Alignas(16) unsigned char alpha[16], beta[16];
  double launch_obs[HARNESS_LAUNCH_OBS]; /* host times to queue one launch, us: the timings' so far (a ring) */
  int nlaunch_obs;                       /* timings seen so far (the ring's next slot modulo HARNESS_LAUNCH_OBS) */
  double launch_min;                     /* the least of them all (0 before the first) */
  char why[200];                         /* why harness_size_setup refused a size ("" otherwise) */
  cudaError_t fault;                     /* the CUDA error of the last SYMV_FAULT */
  const char *fault_at;                  /* where it was found: a call's name, "verification call", "timing" */
} harness;

/** One size set up (harness_size_setup). */
typedef struct {
  int n;
  int copies;          /* copies of A on the device (1: hot) */
  symv_matrix_set set; /* A on the device, `copies` copies */
  void *x, *y, *y0;    /* device: x, the y calls update, y's initial values */
  void *A, *xh, *y0h;  /* host: A (n x n, lda = n), x, y0; NULL after harness_size_drop_host */
  void *yref;          /* host: cuBLAS's y := alpha*A*x + beta*y0, atomics not allowed */
  double *scale;       /* host: the residual's denominators (symv_residual_scale) */
  void *yh;            /* host: the y of the last verification, or scratch */
} harness_size;

/** What a call runs: a candidate k, libsymv's entry point lib, or (both
 *  NULL) the routine's cuBLAS function. */
typedef struct {
  const symv_kernel *k;
  harness_lib_fn lib;
} harness_target;

/** harness_init: hs for routine r and triangle uplo, with the scalars
 *  alpha = alpha_re + alpha_im i and beta = beta_re + beta_im i (the
 *  imaginary parts for complex routines only) and a new cuBLAS handle.
 *  Errors: SYMV_CUBLAS (no handle; hs needs no harness_free then). */
int harness_init(harness *hs, symv_routine r, char uplo, double alpha_re, double alpha_im, double beta_re,
                 double beta_im);

/** harness_free: the handle and the workspace of hs. */
void harness_free(harness *hs);

/** harness_size_setup: size n into *s: A, x, y0 drawn from *seed in that
 *  order (symv_fill_random), A in symv_matrix_copies_for(n*n elements,
 *  l2_bytes, hot, budget bytes) device copies, x and y0 on the device, and
 *  cuBLAS's y from y0 with atomics not allowed (the handle's mode is put
 *  back) with the residual's scale. s->copies is set before any device
 *  memory is taken. A size whose problem (symv_problem_bytes) overflows,
 *  or exceeds the device's memory, is refused before anything is
 *  allocated, with the reason in hs->why: SYMV_INVALID_VALUE or
 *  SYMV_NO_MEMORY. On error *s is freed (harness_size_free). Errors:
 *  SYMV_NO_MEMORY (host), SYMV_CUDA (device memory or a copy), SYMV_CUBLAS
 *  (cuBLAS's call), SYMV_FAULT (cuBLAS's call faulted: hs->fault). */
int harness_size_setup(harness *hs, harness_size *s, int n, size_t l2_bytes, int hot, size_t budget,
                       unsigned long long *seed);

/** harness_size_drop_host: frees the host's A, x and y0 of s (the
 *  verification keeps working: it needs yref and scale only). */
void harness_size_drop_host(harness_size *s);

/** harness_size_free: frees everything of s; safe on a zeroed struct. */
void harness_size_free(harness_size *s);

/** harness_call: one call of target t at size s, y updated in place,
 *  queued on stream; rep picks the copy of A (symv_matrix_set_get).
 *  Errors: SYMV_CUBLAS (cuBLAS's or libsymv's status), symv_launch's. */
int harness_call(harness *hs, const harness_size *s, const harness_target *t, int rep, cudaStream_t stream);

/** harness_sync: waits for the device; a CUDA error then (or a launch error
 *  left over) means the context is lost: SYMV_FAULT, with the error in
 *  hs->fault and `what` in hs->fault_at. 0 otherwise. */
int harness_sync(harness *hs, const char *what);

/** harness_verify: y reset to y0, one call of t from it, launch to
 *  synchronization (*call_us, microseconds: the call's time bound from
 *  above), its y read back into s->yh and compared with cuBLAS's
 *  (*resid, the scaled residual; large or NaN when wrong). Errors: the
 *  call's (harness_call; *call_us and *resid unset), SYMV_FAULT
 *  (harness_sync, at "verification call"). */
int harness_verify(harness *hs, harness_size *s, const harness_target *t, double *call_us, double *resid);

/** harness_warm_up: about 0.1 s of calls of t back to back, untimed (10
 *  batches of about 10 ms), so that the GPU's clocks rise after idling.
 *  Errors as symv_time. */
int harness_warm_up(harness *hs, harness_size *s, const harness_target *t);

/** harness_time_loop: y reset to y0, then `batches` batches of calls of t
 *  back to back as the host queues them (symv_time: a warm-up, batches of
 *  about 2 ms, 3 to 2000 calls each); *out as symv_time's, microseconds a
 *  call. Errors as symv_time. */
int harness_time_loop(harness *hs, harness_size *s, const harness_target *t, int batches, symv_timing *out);

/** harness_launches: the kernel launches one call of t makes, as the
 *  charge counts them: a candidate's (symv_kernel_launches), libsymv's
 *  those of the family of the kernel it ran (ran: its symvLastKernel; 1
 *  where no family has that name), cuBLAS's 1. */
int harness_launches(const harness_target *t, const char *ran);

/** harness_charge: what the worker reports as a call's cost: the GPU's
 *  time of *t, but no less than the host's time to queue the call's
 *  `launches` launches (calls back to back go at the slower of the two
 *  paces); the median, least and most of *t are raised to it. The launch's
 *  cost is a property of the host, kept apart: with observe set (timings
 *  whose launches are known: candidates', floor kernels'; cuBLAS's call
 *  counts as one launch but may make more), t->host_us / launches is added
 *  to hs's observations. A call of one launch is charged the least cost a
 *  launch took so far, so that the GPU's differences at small n stay in the
 *  times; a call of more (pipe_det's two) is charged each at the median of
 *  the last HARNESS_LAUNCH_OBS, so that it wins only where it wins at the
 *  host's usual pace (doc/results/2026-11-24-h100-launch-charge.txt has
 *  the measurements behind this choice). Nothing is charged before the
 *  first observation. */
void harness_charge(harness *hs, symv_timing *t, int launches, int observe);

/** harness_time_held: the worker's timing of t at s, after its
 *  verification took call_us microseconds: a probe (symv_time_probe, with
 *  symv_probe_warm(call_us) untimed and symv_probe_calls(call_us) timed
 *  calls); when prune_us > 0 and the probe's time a call exceeds it, *out
 *  is the probe's (batches = 1: such a call cannot be among the champions);
 *  else `batches` batches held until queued whole (symv_time_held: batches
 *  of about 1 ms, at most 2000 calls: the GPU's time, not the host's pace),
 *  charged harness_launches(t, ran) launches (harness_charge, observed for
 *  a candidate). y is not reset. Errors as symv_time; SYMV_FAULT
 *  (harness_sync after the probe or the held batches, at "timing"). */
int harness_time_held(harness *hs, harness_size *s, const harness_target *t, int batches, double call_us,
                      double prune_us, const char *ran, symv_timing *out);

#endif
