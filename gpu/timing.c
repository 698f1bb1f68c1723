/* SPDX-License-Identifier: BSD-3-Clause */
/* timing.c - batched event timing and cold-matrix rotation (timing.h). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "symv_error.h"
#include "compile.h"
#include "timing.h"
#include "util.h"
#include "routine.h"


/* The probe's hold: a host function on the stream that returns only once
 * the host has queued the whole batch. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int open;
} hold;

static void CUDART_CB hold_wait(void *p)
{
  hold *h = p;
  pthread_mutex_lock(&h->mu);
  while (!h->open) pthread_cond_wait(&h->cv, &h->mu);
  pthread_mutex_unlock(&h->mu);
}

/* monotonic clock, seconds */
static double wall_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void hold_open(hold *h)
{
  pthread_mutex_lock(&h->mu);
  h->open = 1;
  pthread_cond_signal(&h->cv);
  pthread_mutex_unlock(&h->mu);
}

/* Elapsed ms of `calls` calls starting at rep0. With a hold h, the stream
 * first waits on h while `warm` untimed calls and the timed ones after
 * them are queued, so that the host's queuing is not timed; the
 * hold opens on every path, since the stream must drain before h goes.
 * host_us (may be NULL): the host's time to queue one of the timed calls,
 * microseconds. */
static int run_batch(symv_call_fn fn, void *ctx, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, int rep0,
                     int calls, hold *h, int warm, float *ms, double *host_us)
{
  int rc = 0;
  if (h) {
    if (cudaLaunchHostFunc(s, hold_wait, h) != cudaSuccess) return SYMV_CUDA;
    for (int w = 0; !rc && w < warm; w++) rc = fn(ctx, rep0++, s); /* untimed: the first calls after a pause are slower */
  }
  if (!rc && cudaEventRecord(e0, s) != cudaSuccess) rc = SYMV_CUDA;
  const double q0 = wall_s();
  for (int r = 0; !rc && r < calls; r++) rc = fn(ctx, rep0 + r, s);
  if (host_us) *host_us = (wall_s() - q0) * 1e6 / calls;
  if (!rc && cudaEventRecord(e1, s) != cudaSuccess) rc = SYMV_CUDA;
  if (h) {
    hold_open(h);
    if (cudaStreamSynchronize(s) != cudaSuccess && !rc) rc = SYMV_CUDA;
  } else if (!rc && cudaEventSynchronize(e1) != cudaSuccess) {
    rc = SYMV_CUDA;
  }
  if (!rc && cudaEventElapsedTime(ms, e0, e1) != cudaSuccess) rc = SYMV_CUDA;
  return rc;
}

/* symv_time and symv_time_held: held, each batch is queued behind a hold
 * (with `warm` untimed calls first), at most SYMV_HELD_MAX_CALLS calls, and
 * the host's least time to queue a call is kept */
static int time_batches(symv_call_fn fn, void *ctx, cudaStream_t stream, int batches, double target_ms, int max_calls,
                        int held, symv_timing *out)
{
  cudaEvent_t e0, e1;
  if (batches < 1 || batches > 1000) return SYMV_INVALID_VALUE;
  if (cudaEventCreate(&e0) != cudaSuccess) return SYMV_CUDA;
  if (cudaEventCreate(&e1) != cudaSuccess) {
    cudaEventDestroy(e0);
    return SYMV_CUDA;
  }
  double *t = malloc(sizeof(double) * (size_t)batches);
  int rc = t ? 0 : SYMV_NO_MEMORY, rep = 0;
  float ms = 0;
  double host_min = NAN;
  hold h = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  const int warm = held ? SYMV_HELD_WARM_CALLS : 0;
  if (held && max_calls > SYMV_HELD_MAX_CALLS) max_calls = SYMV_HELD_MAX_CALLS;
  /* warm-up, which also sizes the batches */
  if (!rc) rc = run_batch(fn, ctx, stream, e0, e1, rep, 3, NULL, 0, &ms, NULL);
  rep += 3;
  int calls = 3;
  if (!rc) {
    double per = ms / 3.0;
    calls = per > 0 ? (int)(target_ms / per) : max_calls;
    if (calls < 3) calls = 3;
    if (calls > max_calls) calls = max_calls;
    h.open = 0;
    rc = run_batch(fn, ctx, stream, e0, e1, rep, calls, held ? &h : NULL, warm, &ms, NULL);
    rep += calls + warm;
  }
  for (int b = 0; !rc && b < batches; b++) {
    h.open = 0;
    double host_us = 0;
    rc = run_batch(fn, ctx, stream, e0, e1, rep, calls, held ? &h : NULL, warm, &ms, &host_us);
    rep += calls + warm;
    t[b] = ms * 1e3 / calls;
    if (held && !(host_us >= host_min)) host_min = host_us;
  }
  if (!rc) {
    out->median_us = symv_median(t, (size_t)batches); /* t sorted */
    out->min_us = t[0];
    out->max_us = t[batches - 1];
    out->batches = batches;
    out->calls = calls;
    out->host_us = host_min;
  }
  free(t);
  pthread_mutex_destroy(&h.mu);
  pthread_cond_destroy(&h.cv);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return rc;
}

int symv_time(symv_call_fn fn, void *ctx, cudaStream_t stream, int batches, double target_ms, int max_calls,
              symv_timing *out)
{
  return time_batches(fn, ctx, stream, batches, target_ms, max_calls, 0, out);
}

int symv_time_held(symv_call_fn fn, void *ctx, cudaStream_t stream, int batches, double target_ms, int max_calls,
                   symv_timing *out)
{
  return time_batches(fn, ctx, stream, batches, target_ms, max_calls, 1, out);
}

int symv_time_probe(symv_call_fn fn, void *ctx, cudaStream_t stream, int warm, int calls, symv_timing *out)
{
  cudaEvent_t e0, e1;
  if (calls < 1 || warm < 0) return SYMV_INVALID_VALUE;
  if (cudaEventCreate(&e0) != cudaSuccess) return SYMV_CUDA;
  if (cudaEventCreate(&e1) != cudaSuccess) {
    cudaEventDestroy(e0);
    return SYMV_CUDA;
  }
  hold h = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  float ms = 0;
  int rc = run_batch(fn, ctx, stream, e0, e1, 0, calls, &h, warm, &ms, NULL);
  if (!rc) {
    out->median_us = out->min_us = out->max_us = ms * 1e3 / calls;
    out->batches = 1;
    out->calls = calls;
    out->host_us = NAN;
  }
  pthread_mutex_destroy(&h.mu);
  pthread_cond_destroy(&h.cv);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return rc;
}

int symv_matrix_copies_for(size_t bytes, size_t l2_bytes, int hot, size_t budget)
{
  if (hot || bytes == 0) return 1;
  size_t want = (2 * l2_bytes + bytes - 1) / bytes;
  if (want < 1) want = 1;
  if (want > 1 && want * bytes < 2 * l2_bytes + bytes) want++; /* strictly more than 2 x L2 */
  size_t cap = budget / bytes;
  if (cap < 1) cap = 1;
  if (want > cap) want = cap;
  return (int)want;
}

int symv_matrix_set_create(symv_matrix_set *s, size_t elem_bytes, const void *A, int lda, int n, int copies)
{
  memset(s, 0, sizeof *s);
  s->stride = (size_t)lda * (size_t)n * elem_bytes;
  s->copies = copies;
  if (cudaMalloc(&s->base, s->stride * (size_t)copies) != cudaSuccess) {
    memset(s, 0, sizeof *s);
    return SYMV_CUDA;
  }
  if (cudaMemcpy(s->base, A, s->stride, cudaMemcpyHostToDevice) != cudaSuccess) goto fail;
  for (int c = 1; c < copies; c++)
    if (cudaMemcpy((char *)s->base + (size_t)c * s->stride, s->base, s->stride, cudaMemcpyDeviceToDevice) !=
        cudaSuccess)
      goto fail;
  return 0;
fail:
  symv_matrix_set_free(s);
  return SYMV_CUDA;
}

const void *symv_matrix_set_get(const symv_matrix_set *s, int rep)
{
  return (const char *)s->base + (size_t)(rep % s->copies) * s->stride;
}

void symv_matrix_set_free(symv_matrix_set *s)
{
  cudaFree(s->base);
  memset(s, 0, sizeof *s);
}

double symv_copy_bandwidth(size_t bytes)
{
  void *a = NULL, *b = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  double t[10], result = 0;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) goto out;
  if (cudaMemset(a, 1, bytes) != cudaSuccess) goto out;
  if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) goto out;
  for (int i = 0; i < 3; i++)
    if (cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice) != cudaSuccess) goto out;
  for (int i = 0; i < 10; i++) {
    float ms;
    cudaEventRecord(e0, 0);
    cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0);
    cudaEventRecord(e1, 0);
    if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess) goto out;
    t[i] = ms;
  }
  result = 2.0 * (double)bytes / (symv_median(t, 10) * 1e-3) / 1e9;
out:
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  cudaGetLastError();
  return result;
}
