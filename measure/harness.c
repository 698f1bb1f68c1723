/* SPDX-License-Identifier: BSD-3-Clause */
/* harness.c - one size set up, a call verified and timed (harness.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cublas_symv.h"
#include "harness.h"
#include "reference.h"
#include "symv_error.h"
#include "util.h"

int harness_init(harness *hs, symv_routine r, char uplo, double alpha_re, double alpha_im, double beta_re,
                 double beta_im)
{
  memset(hs, 0, sizeof *hs);
  hs->routine = r;
  hs->uplo = uplo;
  hs->E = (size_t)symv_routine_get(r)->elem_bytes;
  symv_scalar_set(r, hs->alpha, alpha_re, alpha_im);
  symv_scalar_set(r, hs->beta, beta_re, beta_im);
  return cublasCreate(&hs->h) == CUBLAS_STATUS_SUCCESS ? 0 : SYMV_CUBLAS;
}

void harness_free(harness *hs)
{
  symv_workspace_free(&hs->ws);
  cublasDestroy(hs->h);
  hs->h = NULL;
}

int harness_call(harness *hs, const harness_size *s, const harness_target *t, int rep, cudaStream_t stream)
{
  const void *A = symv_matrix_set_get(&s->set, rep);
  const int n = s->n;
  if (t->lib) {
    cublasStatus_t st = t->lib(hs->h, hs->uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, n,
                               hs->alpha, A, n, s->x, 1, hs->beta, s->y, 1);
    return st == CUBLAS_STATUS_SUCCESS ? 0 : SYMV_CUBLAS;
  }
  if (!t->k) {
    cublasStatus_t st = symv_cublas(hs->h, hs->routine, hs->uplo, n, hs->alpha, A, n, s->x, 1, hs->beta, s->y, 1);
    return st == CUBLAS_STATUS_SUCCESS ? 0 : SYMV_CUBLAS;
  }
  return symv_launch(t->k, &hs->ws, stream, hs->uplo, n, hs->alpha, A, n, s->x, 1, hs->beta, s->y,
                     1, 0, NULL);
}

/* The symv_call_fn of the timings: one call of a target at a size. */
typedef struct {
  harness *hs;
  const harness_size *s;
  const harness_target *t;
} call_ctx;

static int call(void *vc, int rep, cudaStream_t stream)
{
  const call_ctx *c = vc;
  return harness_call(c->hs, c->s, c->t, rep, stream);
}

int harness_sync(harness *hs, const char *what)
{
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e == cudaSuccess) return 0;
  hs->fault = e;
  hs->fault_at = what;
  return SYMV_FAULT;
}

void harness_size_drop_host(harness_size *s)
{
  free(s->A), free(s->xh), free(s->y0h);
  s->A = s->xh = s->y0h = NULL;
}

void harness_size_free(harness_size *s)
{
  symv_matrix_set_free(&s->set);
  cudaFree(s->x), cudaFree(s->y), cudaFree(s->y0);
  harness_size_drop_host(s);
  free(s->yref), free(s->scale), free(s->yh);
  memset(s, 0, sizeof *s);
}

/* cuBLAS's y from y0 with atomics not allowed into s->yref, the handle's
 * atomics mode put back; errors as harness_size_setup's. */
static int reference(harness *hs, harness_size *s)
{
  const harness_target cublas = {NULL, NULL};
  const size_t bytes = (size_t)s->n * hs->E;
  cublasAtomicsMode_t mode = CUBLAS_ATOMICS_NOT_ALLOWED; /* the caller's (the worker's base cublas_atomics, lib any) */
  cublasGetAtomicsMode(hs->h, &mode);
  cublasSetAtomicsMode(hs->h, CUBLAS_ATOMICS_NOT_ALLOWED);
  int rc = cudaMemcpy(s->y, s->y0, bytes, cudaMemcpyDeviceToDevice) != cudaSuccess ? SYMV_CUDA : 0;
  if (!rc) rc = harness_call(hs, s, &cublas, 0, 0);
  cublasSetAtomicsMode(hs->h, mode);
  if (!rc) rc = harness_sync(hs, symv_routine_get(hs->routine)->cublas);
  if (!rc && cudaMemcpy(s->yref, s->y, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) rc = SYMV_CUDA;
  return rc;
}

int harness_size_setup(harness *hs, harness_size *s, int n, size_t l2_bytes, int hot, size_t budget,
                       unsigned long long *seed)
{
  memset(s, 0, sizeof *s);
  s->n = n;
  size_t freeb = 0, totalb = 0;
  cudaMemGetInfo(&freeb, &totalb);
  int fits = symv_problem_bytes(hs->routine, n, n, totalb, NULL, hs->why, sizeof hs->why);
  if (fits) return fits;
  /* n*n*E and n*E fit size_t from here on */
  const size_t E = hs->E, bytes = (size_t)n * (size_t)n * E, vec = (size_t)n * E;
  s->copies = symv_matrix_copies_for(bytes, l2_bytes, hot, budget);
  s->A = malloc(bytes), s->xh = malloc(vec), s->y0h = malloc(vec), s->yref = malloc(vec), s->yh = malloc(vec);
  int rc = s->A && s->xh && s->y0h && s->yref && s->yh ? 0 : SYMV_NO_MEMORY;
  if (!rc) {
    symv_fill_random(hs->routine, s->A, (long)n * n, seed);
    symv_fill_random(hs->routine, s->xh, n, seed);
    symv_fill_random(hs->routine, s->y0h, n, seed);
    if (symv_matrix_set_create(&s->set, E, s->A, n, n, s->copies) || cudaMalloc(&s->x, vec) != cudaSuccess ||
        cudaMalloc(&s->y, vec) != cudaSuccess || cudaMalloc(&s->y0, vec) != cudaSuccess ||
        cudaMemcpy(s->x, s->xh, vec, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(s->y0, s->y0h, vec, cudaMemcpyHostToDevice) != cudaSuccess)
      rc = SYMV_CUDA;
  }
  if (!rc) rc = reference(hs, s);
  if (!rc) {
    s->scale = symv_residual_scale(hs->routine, hs->uplo, n, hs->alpha, s->A, n, s->xh, 1, hs->beta, s->y0h, 1);
    if (!s->scale) rc = SYMV_NO_MEMORY;
  }
  if (rc) {
    const int copies = s->copies;
    harness_size_free(s);
    s->n = n, s->copies = copies;
  }
  return rc;
}

/* monotonic clock, microseconds */
static double now_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* y := y0 on the device; SYMV_CUDA if the copy fails */
static int reset_y(const harness *hs, harness_size *s)
{
  return cudaMemcpy(s->y, s->y0, (size_t)s->n * hs->E, cudaMemcpyDeviceToDevice) == cudaSuccess ? 0 : SYMV_CUDA;
}

int harness_verify(harness *hs, harness_size *s, const harness_target *t, double *call_us, double *resid)
{
  int rc = reset_y(hs, s);
  if (rc) return rc;
  const double t0 = now_us();
  if ((rc = harness_call(hs, s, t, 0, 0))) return rc;
  if ((rc = harness_sync(hs, "verification call"))) return rc;
  *call_us = now_us() - t0;
  cudaMemcpy(s->yh, s->y, (size_t)s->n * hs->E, cudaMemcpyDeviceToHost);
  *resid = symv_residual_scaled(hs->routine, s->n, 1, s->scale, s->yh, s->yref);
  return 0;
}

int harness_warm_up(harness *hs, harness_size *s, const harness_target *t)
{
  call_ctx c = {hs, s, t};
  symv_timing unused;
  return symv_time(call, &c, 0, 10, 10.0, 100000, &unused);
}

int harness_time_loop(harness *hs, harness_size *s, const harness_target *t, int batches, symv_timing *out)
{
  call_ctx c = {hs, s, t};
  int rc = reset_y(hs, s);
  return rc ? rc : symv_time(call, &c, 0, batches, 2.0, 2000, out);
}

int harness_launches(const harness_target *t, const char *ran)
{
  symv_family f;
  if (t->k) return symv_kernel_launches(t->k);
  if (t->lib && ran && !symv_kernel_name_family(ran, &f)) return symv_family_get(f)->launches;
  return 1;
}

void harness_charge(harness *hs, symv_timing *t, int launches, int observe)
{
  if (observe && t->host_us > 0) {
    const double l = t->host_us / launches;
    hs->launch_obs[hs->nlaunch_obs++ % HARNESS_LAUNCH_OBS] = l;
    if (hs->nlaunch_obs == 1 || l < hs->launch_min) hs->launch_min = l;
  }
  const int m = hs->nlaunch_obs < HARNESS_LAUNCH_OBS ? hs->nlaunch_obs : HARNESS_LAUNCH_OBS;
  double host = 0;
  if (m && launches == 1) host = hs->launch_min;
  else if (m) {
    double sorted[HARNESS_LAUNCH_OBS];
    memcpy(sorted, hs->launch_obs, (size_t)m * sizeof *sorted);
    host = launches * symv_median(sorted, (size_t)m);
  }
  if (t->median_us < host) t->median_us = host;
  if (t->min_us < host) t->min_us = host;
  if (t->max_us < host) t->max_us = host;
}

int harness_time_held(harness *hs, harness_size *s, const harness_target *t, int batches, double call_us,
                      double prune_us, const char *ran, symv_timing *out)
{
  call_ctx c = {hs, s, t};
  int rc = symv_time_probe(call, &c, 0, symv_probe_warm(call_us), symv_probe_calls(call_us), out);
  if (!rc) rc = harness_sync(hs, "timing");
  if (rc || (prune_us > 0 && out->median_us > prune_us)) return rc;
  rc = symv_time_held(call, &c, 0, batches, 1.0, 2000, out); /* the GPU's time, not the host's pace */
  if (!rc) rc = harness_sync(hs, "timing");
  if (!rc) harness_charge(hs, out, harness_launches(t, ran), t->k != NULL);
  return rc;
}
