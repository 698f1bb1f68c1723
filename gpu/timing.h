/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * timing.h - how symvtune times a DSYMV (the sweep's timing discipline):
 * CUDA events around batches of back-to-back calls on one stream, after a
 * warm-up; the median batch is reported with the fastest and slowest. For
 * "cold" timings A is rotated among enough copies to exceed twice the L2
 * cache, so no call finds its matrix in L2 (doc/method.md section 7);
 * "hot" timings reuse one copy.
 */
#ifndef SYMV_TIMING_H
#define SYMV_TIMING_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include "gpu.h"
#include "routine.h" /* symv_gbs, symv_gflops */

/** Statistics of one timed configuration; times per call, microseconds. */
typedef struct {
  double median_us; /* median over batches of (batch time / calls) */
  double min_us;    /* fastest batch */
  double max_us;    /* slowest batch */
  int batches;      /* number of batches */
  int calls;        /* calls per batch */
  double host_us;   /* symv_time_held: the least host time to queue one call over the batches,
                       microseconds; NAN from symv_time and symv_time_probe */
} symv_timing;

/** Enqueues call number `rep` (0, 1, ...) on `stream`; returns 0 or an error
 *  code (which stops the timing). Use rep to pick the copy of A. */
typedef int (*symv_call_fn)(void *ctx, int rep, cudaStream_t stream);

/** symv_time: warm-up, then `batches` batches of back-to-back calls; calls per
 *  batch chosen so that a batch lasts about target_ms (at least 3, at most
 *  max_calls). Errors: the first nonzero return of fn, SYMV_CUDA. */
int symv_time(symv_call_fn fn, void *ctx, cudaStream_t stream, int batches, double target_ms, int max_calls,
              symv_timing *out);

/** SYMV_HELD_MAX_CALLS, SYMV_HELD_WARM_CALLS: the most timed calls of a
 *  batch of symv_time_held, and the untimed ones before them. A held batch
 *  is queued whole before the GPU starts it, and a stream takes only so many
 *  launches unstarted before the host's next launch blocks (which, held,
 *  would never return): 64 calls, with cuBLAS's up to three kernels a call
 *  and the warm-up, stay far below that. */
#define SYMV_HELD_MAX_CALLS 64
#define SYMV_HELD_WARM_CALLS 8

/** symv_time_held: as symv_time, but each batch (the sizing one too) is
 *  queued behind a hold (a host function, as symv_time_probe's) together
 *  with SYMV_HELD_WARM_CALLS untimed calls before it, at most
 *  SYMV_HELD_MAX_CALLS calls: the median, least and most are the GPU's time
 *  a call, the calls run back to back whatever the host's pace, and
 *  out->host_us the least time the host took to queue one (a clock around
 *  the queuing of a batch's timed calls, the GPU held). Unheld, the two
 *  interfere: a call of a few microseconds is timed at whatever pace the
 *  host keeps, and on an H100 every kernel at n <= 500 read 3.9-4.3 us in
 *  one stage of a sweep and 2.8-3.8 us in another of the same run
 *  (validation regret 1.32 at n = 34 from it). The sweep's worker ranks
 *  kernels with it (and charges the host's launches apart, harness_charge in measure/harness.h);
 *  bench and time use symv_time. fn must only queue work (as for
 *  symv_time_probe). Errors as symv_time. */
int symv_time_held(symv_call_fn fn, void *ctx, cudaStream_t stream, int batches, double target_ms, int max_calls,
                   symv_timing *out);

/** SYMV_PROBE_SHORT_US: a kernel whose one call, launch to synchronization,
 *  took less than this many microseconds is probed with more calls
 *  (symv_probe_calls, symv_probe_warm). */
#define SYMV_PROBE_SHORT_US 100.0

/** symv_probe_calls: the timed calls of the sweep's probe (symv_time_probe)
 *  of a kernel that one call, launch to synchronization, took call_us
 *  microseconds to run: 8 below SYMV_PROBE_SHORT_US, else 2. A probe comes after the
 *  GPU has idled (the verification's copy and residual), and its first
 *  calls are slower, by a few us each: with one untimed call and 2 timed
 *  ones, a pipe kernel of 3.8 us read 5.5 us on an H100 (n = 256; the
 *  sweep would prune it), and with 1 and 8, one of 4.5 us read 6.1. For
 *  longer kernels a few us do not matter, and more calls would cost the
 *  sweep minutes (the slow candidates of the atomic family take ms a call
 *  at n = 16,384). */
static inline int symv_probe_calls(double call_us) { return call_us < SYMV_PROBE_SHORT_US ? 8 : 2; }

/** symv_probe_warm: the untimed calls that go before the probe's timed
 *  ones, for a kernel of call_us microseconds a call (as symv_probe_calls):
 *  as many as are timed below SYMV_PROBE_SHORT_US, else 1. */
static inline int symv_probe_warm(double call_us) { return call_us < SYMV_PROBE_SHORT_US ? 8 : 1; }

/** symv_time_probe: a quick estimate: one batch of `calls` calls after
 *  `warm` untimed ones; fills *out as one batch (batches = 1). The stream is
 *  held (a host function, cudaLaunchHostFunc) until all of them are queued,
 *  so that the GPU runs them back to back whatever the host's pace. Timed
 *  as the host queued them, 2 calls of a 4.7 us kernel read 7-10 us a call
 *  (the events, the first launch, host hiccups); held, and with the first
 *  calls after the pause left out, they read no more than symv_time's
 *  median, and less where the host's launches set symv_time's pace (8
 *  calls of a floor kernel at n = 256 on an H100: 2.4 against 3.6 us).
 *  fn must only queue work, never wait for the GPU (no synchronous copy
 *  or free): the stream stays held until the last call is queued.
 *  Errors as symv_time. */
int symv_time_probe(symv_call_fn fn, void *ctx, cudaStream_t stream, int warm, int calls, symv_timing *out);

/** A set of copies of one matrix in device memory. */
typedef struct {
  void *base;    /* copies, one after another */
  size_t stride; /* bytes between copies */
  int copies;    /* number of copies */
} symv_matrix_set;

/** symv_matrix_copies_for: copies needed so that copies * bytes >= 2 * l2
 *  (cold), or 1 (hot), limited so they take at most `budget` bytes. */
int symv_matrix_copies_for(size_t bytes, size_t l2_bytes, int hot, size_t budget);

/** symv_matrix_set_create: `copies` device copies of the host matrix A
 *  (lda * n elements of elem_bytes each). Errors: SYMV_CUDA. */
int symv_matrix_set_create(symv_matrix_set *s, size_t elem_bytes, const void *A, int lda, int n, int copies);

/** symv_matrix_set_get: copy number rep % copies. */
const void *symv_matrix_set_get(const symv_matrix_set *s, int rep);

/** symv_matrix_set_free: frees the copies; safe on a zeroed struct. */
void symv_matrix_set_free(symv_matrix_set *s);

/** symv_copy_bandwidth: the device-to-device copy rate in GB/s (bytes read +
 *  written per second, median of 10 copies of `bytes`), the reference of
 *  "% of copy bandwidth". 0 on error. */
double symv_copy_bandwidth(size_t bytes);

#endif
