/* SPDX-License-Identifier: BSD-3-Clause */
/* worker.c - the sweep's measuring process: the protocol of worker.h,
 * served on standard input and output. */
#include <cublas_v2.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "compile.h"
#include "util.h"
#include "gpu.h"
#include "cublas_symv.h"
#include "floor.h"
#include "reference.h"
#include "routine.h"
#include "symv_error.h"
#include "timing.h"
#include "worker.h"

#define MAX_SIZES 256

/* Everything prepared for one n. */
typedef struct {
  int n;
  symv_matrix_set set; /* A, cold or hot copies */
  void *x, *y, *y0;    /* device: x, the y being updated, y's initial values */
  void *yref;          /* host: cuBLAS's y := alpha*A*x + beta*y0 */
  double *scale;       /* host: residual denominators (reference.h) */
  void *yhost;         /* host scratch */
  uint64_t floor_sum;  /* symv_floor_checksum of A: what a floor kernel must read */
} size_data;

/* host launch costs kept for the charge (charge_launches) */
#define LAUNCH_OBS 1024

static struct {
  symv_device_info dev;
  cublasHandle_t h;
  symv_workspace ws;
  char uplo;
  symv_routine routine; /* what every candidate and baseline of this worker computes */
  size_t E;             /* its element size, bytes */
  _Alignas(16) unsigned char alpha[16], beta[16]; /* the scalars of every call */
  int hot, batches;
  double tol;
  size_data sizes[MAX_SIZES];
  int nsizes;
  unsigned long long seed;
  symv_floor_family floor; /* loaded by the first floor command */
  int floor_loaded;
  double launch_obs[LAUNCH_OBS]; /* host times to queue one launch, us: the timings' so far (a ring) */
  int nlaunch_obs;               /* timings seen so far (the ring's next slot modulo LAUNCH_OBS) */
  double launch_min;             /* the least of them all (0 before the first) */
} W;

/* libsymv's entry point of a routine (symvDsymv, ..., symvZhemv): the
 * cuBLAS prototype, with the routine's scalar type behind each pointer. */
typedef cublasStatus_t (*lib_fn)(cublasHandle_t, cublasFillMode_t, int, const void *, const void *, int,
                                 const void *, int, const void *, void *, int);

/* The library of the lib command, loaded once (one path a worker). */
static struct {
  char path[4096];
  void *h;
  lib_fn fn;                  /* the routine's entry point */
  const char *(*last)(void);  /* symvLastKernel */
} L;

/* What a timing held (symv_time_held) reports as a call's cost: the GPU's
 * time, but no less than the host's time to queue the call's `launches`
 * launches (calls back to back go at the slower of the two paces). The
 * launch's cost is a property of the host, kept apart: measured with each
 * timing (observe != 0: candidates' and floor kernels', whose launches are
 * known; cuBLAS's call counts as one launch but may make more), it varies
 * with the host's state, which the GPU's time does not. A call of one
 * launch is charged the least cost a launch took this worker so far, so
 * that the GPU's differences at small n stay in the times; a call of more
 * (pipe_det's two) is charged each at the median over this worker's
 * timings (the last LAUNCH_OBS), so that it wins only where it wins at the
 * host's usual pace (doc/results/2026-11-24-h100-launch-charge.txt has the
 * measurements behind this choice). */
static void charge_launches(symv_timing *t, int launches, int observe)
{
  if (observe && t->host_us > 0) {
    const double l = t->host_us / launches;
    W.launch_obs[W.nlaunch_obs++ % LAUNCH_OBS] = l;
    if (W.nlaunch_obs == 1 || l < W.launch_min) W.launch_min = l;
  }
  const int m = W.nlaunch_obs < LAUNCH_OBS ? W.nlaunch_obs : LAUNCH_OBS;
  double host = 0;
  if (m && launches == 1) host = W.launch_min;
  else if (m) {
    static double sorted[LAUNCH_OBS];
    memcpy(sorted, W.launch_obs, (size_t)m * sizeof *sorted);
    host = launches * symv_median(sorted, (size_t)m);
  }
  if (t->median_us < host) t->median_us = host;
  if (t->min_us < host) t->min_us = host;
  if (t->max_us < host) t->max_us = host;
}

/* The scalars of every timed call: alpha = 1, beta = 0.5 (complex
 * routines: imaginary parts 0.25 and -0.125, so that they are exercised). */
#define ALPHA_RE 1.0
#define ALPHA_IM 0.25
#define BETA_RE 0.5
#define BETA_IM -0.125

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
}

/* Any sticky CUDA error means the context is gone: report and leave. */
static int sync_or_die(const char *what)
{
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e == cudaSuccess) return 0;
  say("invalid fault %s: %s", what, cudaGetErrorName(e));
  exit(SYMV_WORKER_EXIT_FAULT);
}

typedef struct {
  const symv_kernel *k; /* NULL: cuBLAS, or the library where lib is set */
  lib_fn lib;           /* libsymv's entry point (the lib command), or NULL */
  size_data *s;
} call_ctx;

static int call(void *vc, int rep, cudaStream_t st)
{
  call_ctx *c = vc;
  const void *A = symv_matrix_set_get(&c->s->set, rep);
  int n = c->s->n;
  if (c->lib) {
    cublasStatus_t r = c->lib(W.h, W.uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, n, W.alpha, A, n,
                              c->s->x, 1, W.beta, c->s->y, 1);
    return r == CUBLAS_STATUS_SUCCESS ? 0 : SYMV_CUBLAS;
  }
  if (!c->k) {
    cublasStatus_t r = symv_cublas(W.h, W.routine, W.uplo, n, W.alpha, A, n, c->s->x, 1, W.beta, c->s->y, 1);
    return r == CUBLAS_STATUS_SUCCESS ? 0 : SYMV_CUBLAS;
  }
  return symv_launch(c->k, &W.ws, st, W.uplo, n, W.alpha, A, n, c->s->x, 1, W.beta, c->s->y, 1, 0, NULL);
}

static void size_free(size_data *s)
{
  symv_matrix_set_free(&s->set);
  cudaFree(s->x), cudaFree(s->y), cudaFree(s->y0);
  free(s->yref), free(s->scale), free(s->yhost);
  memset(s, 0, sizeof *s);
}

static size_data *size_get(int n)
{
  for (int i = 0; i < W.nsizes; i++)
    if (W.sizes[i].n == n) return &W.sizes[i];
  if (W.nsizes == MAX_SIZES) return NULL;
  const size_t E = W.E;
  size_t bytes = (size_t)n * n * E, freeb = 0, totalb = 0;
  cudaMemGetInfo(&freeb, &totalb);
  if (freeb < 3 * bytes + 2 * W.dev.l2_bytes + ((size_t)1 << 30)) { /* short of memory: forget the other sizes */
    for (int i = 0; i < W.nsizes; i++) size_free(&W.sizes[i]);
    W.nsizes = 0;
    cudaMemGetInfo(&freeb, &totalb);
  }
  size_data *s = &W.sizes[W.nsizes];
  memset(s, 0, sizeof *s);
  s->n = n;
  int copies = symv_matrix_copies_for(bytes, W.dev.l2_bytes, W.hot, freeb / 4);
  void *A = malloc(bytes), *xh = malloc(n * E), *y0 = malloc(n * E);
  s->yref = malloc(n * E);
  s->yhost = malloc(n * E);
  if (!A || !xh || !y0 || !s->yref || !s->yhost) return NULL;
  symv_fill_random(W.routine, A, (long)n * n, &W.seed);
  symv_fill_random(W.routine, xh, n, &W.seed);
  symv_fill_random(W.routine, y0, n, &W.seed);
  if (symv_matrix_set_create(&s->set, E, A, n, n, copies) || cudaMalloc(&s->x, n * E) || cudaMalloc(&s->y, n * E) ||
      cudaMalloc(&s->y0, n * E))
    return NULL;
  cudaMemcpy(s->x, xh, n * E, cudaMemcpyHostToDevice);
  cudaMemcpy(s->y0, y0, n * E, cudaMemcpyHostToDevice);
  cudaMemcpy(s->y, y0, n * E, cudaMemcpyHostToDevice);
  call_ctx c = {NULL, NULL, s};
  cublasAtomicsMode_t mode = CUBLAS_ATOMICS_NOT_ALLOWED; /* the caller's (base cublas_atomics, lib any) */
  cublasGetAtomicsMode(W.h, &mode);
  cublasSetAtomicsMode(W.h, CUBLAS_ATOMICS_NOT_ALLOWED);
  const int rc = call(&c, 0, 0);
  cublasSetAtomicsMode(W.h, mode);
  if (rc) return NULL;
  sync_or_die(symv_routine_get(W.routine)->cublas);
  cudaMemcpy(s->yref, s->y, n * E, cudaMemcpyDeviceToHost);
  s->scale = symv_residual_scale(W.routine, W.uplo, n, W.alpha, A, n, xh, 1, W.beta, y0, 1);
  s->floor_sum = symv_floor_checksum(W.routine, n, A, n);
  free(A), free(xh), free(y0);
  if (!s->scale) return NULL;
  W.nsizes++;
  return s;
}

/* Verifies (unless k and lib are NULL: cuBLAS is the reference) and times
 * one configuration (kernel k, the library's entry point lib, or cuBLAS)
 * at size s; prints the meas line, for the library after a libk line (the
 * kernel it ran, its host time to queue a call). Returns 0, or 1 after
 * printing an invalid line. */
static int measure(const symv_kernel *k, lib_fn lib, size_data *s, double prune_us)
{
  call_ctx c = {k, lib, s};
  int n = s->n, rc;
  double resid = 0;
  cudaMemcpy(s->y, s->y0, n * W.E, cudaMemcpyDeviceToDevice);
  struct timespec v0, v1;
  clock_gettime(CLOCK_MONOTONIC, &v0);
  if ((rc = call(&c, 0, 0))) {
    say("invalid launch n=%d: %s %s", n, symv_strerror(rc), symv_cuda_error_text());
    return 1;
  }
  sync_or_die("verification call");
  clock_gettime(CLOCK_MONOTONIC, &v1);
  /* the verification call, launch to sync, bounds the kernel's time from above */
  const double verify_us = (double)(v1.tv_sec - v0.tv_sec) * 1e6 + (double)(v1.tv_nsec - v0.tv_nsec) * 1e-3;
  cudaMemcpy(s->yhost, s->y, n * W.E, cudaMemcpyDeviceToHost);
  resid = symv_residual_scaled(W.routine, n, 1, s->scale, s->yhost, s->yref);
  char ran[64] = "";
  if (lib) snprintf(ran, sizeof ran, "%s", *L.last() ? L.last() : "-");
  if ((k || lib) && !(resid <= W.tol)) {
    say("invalid wrong scaled residual %.3g at n=%d", resid, n);
    return 1;
  }
  symv_timing t;
  rc = symv_time_probe(call, &c, 0, symv_probe_warm(verify_us), symv_probe_calls(verify_us), &t);
  if (!rc) sync_or_die("timing");
  if (!rc && !(prune_us > 0 && t.median_us > prune_us)) {
    rc = symv_time_held(call, &c, 0, W.batches, 1.0, 2000, &t); /* the GPU's time, not the host's pace */
    if (!rc) sync_or_die("timing");
    /* cuBLAS: counted as one launch; the library as the kernel it ran */
    symv_family f;
    const int launches = k ? symv_kernel_launches(k) : lib && !symv_kernel_name_family(ran, &f)
                                                           ? symv_family_get(f)->launches : 1;
    if (!rc) charge_launches(&t, launches, k != NULL);
  }
  if (rc) {
    say("invalid launch timing at n=%d: %s %s", n, symv_strerror(rc), symv_cuda_error_text());
    return 1;
  }
  if (lib) say("libk %d %s %.6g", n, ran, t.host_us);
  say("meas %d %.6g %.6g %.6g %d %d %.4g", n, t.median_us, t.min_us, t.max_us, t.batches, t.calls, resid);
  return 0;
}

static int cmd_init(char *args)
{
  int dev, hot, batches;
  char uplo, routine[16];
  double tol;
  if (sscanf(args, "%d %c %d %d %lf %15s", &dev, &uplo, &hot, &batches, &tol, routine) != 6 ||
      symv_routine_parse(routine, &W.routine))
    return SYMV_INVALID_VALUE;
  W.E = (size_t)symv_routine_get(W.routine)->elem_bytes;
  symv_scalar_set(W.routine, W.alpha, ALPHA_RE, ALPHA_IM);
  symv_scalar_set(W.routine, W.beta, BETA_RE, BETA_IM);
  int rc = symv_device_query(dev, &W.dev);
  if (rc) {
    say("error no device: %s %s", symv_strerror(rc), symv_cuda_error_text());
    return rc;
  }
  W.uplo = uplo, W.hot = hot, W.batches = batches, W.tol = tol;
  W.seed = 0x5eed5eedull ^ (unsigned long long)dev;
  if (cublasCreate(&W.h) != CUBLAS_STATUS_SUCCESS) {
    say("error cublasCreate failed");
    return SYMV_CUBLAS;
  }
  const symv_device_info *d = &W.dev;
  say("device %d %d %d %zu %d %d %zu %zu %d %d %d %d %d %zu %d %zu %s", d->cc_major, d->cc_minor, d->sm_count,
      d->l2_bytes, d->mem_clock_khz, d->bus_width_bits, d->smem_per_sm, d->smem_per_block_optin, d->regs_per_sm,
      d->max_blocks_per_sm, d->max_threads_per_sm, d->driver_version, d->runtime_version, d->global_mem,
      d->max_threads_per_block, d->smem_reserved_per_block, d->name);
  say("copy %.1f", symv_copy_bandwidth((size_t)1 << 30));
  return 0;
}

/* "N1,N2,..." or "N1:P1,N2:P2,..." */
static int parse_sizes(char *s, int *ns, double *prune, int max)
{
  int k = 0;
  for (char *save = NULL, *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (k == max) return -1;
    char *colon = strchr(tok, ':');
    ns[k] = atoi(tok);
    prune[k] = colon ? atof(colon + 1) : 0;
    if (ns[k] < 1) return -1;
    k++;
  }
  return k;
}

/* Sets up and measures (measure) the k sizes ns (prune[i] as measure's)
 * with kernel kern, the library's entry point lib, or cuBLAS (both NULL).
 * Returns 0; 1 after an error line (a size that cannot be set up); 2 after
 * measure's invalid line. */
static int measure_sizes(const symv_kernel *kern, lib_fn lib, const int *ns, const double *prune, int k)
{
  for (int i = 0; i < k; i++) {
    size_data *s = size_get(ns[i]);
    if (!s) {
      say("error cannot set up n=%d: %s", ns[i], symv_cuda_error_text());
      return 1;
    }
    if (measure(kern, lib, s, prune[i])) return 2;
  }
  return 0;
}

static void cmd_base(char *args)
{
  char name[32], stage[16], list[8192];
  int ns[MAX_SIZES];
  double prune[MAX_SIZES];
  if (sscanf(args, "%31s %15s %8191s", name, stage, list) != 3) {
    say("error usage: base NAME STAGE SIZES");
    return;
  }
  int k = parse_sizes(list, ns, prune, MAX_SIZES);
  for (int i = 0; i < k; i++) prune[i] = 0; /* a baseline is timed fully */
  cublasSetAtomicsMode(W.h, strcmp(name, "cublas_atomics") ? CUBLAS_ATOMICS_NOT_ALLOWED : CUBLAS_ATOMICS_ALLOWED);
  const int rc = measure_sizes(NULL, NULL, ns, prune, k);
  cublasSetAtomicsMode(W.h, CUBLAS_ATOMICS_NOT_ALLOWED);
  if (!rc) say("ok");
}

/* The floor (gpu/floor.h) at each size: the empty kernel's time once,
 * then for each n the winning shape and the untuned kernel's time, and the
 * winner's timing as a meas line (RESID 0: its checksum and the untuned
 * kernel's were checked against the CPU's). */
static void cmd_floor(char *args)
{
  char stage[16], list[8192], why[600];
  int ns[MAX_SIZES];
  double prune[MAX_SIZES];
  if (sscanf(args, "%15s %8191s", stage, list) != 2) {
    say("error usage: floor STAGE SIZES");
    return;
  }
  int k = parse_sizes(list, ns, prune, MAX_SIZES);
  if (k < 1) {
    say("error bad sizes");
    return;
  }
  if (!W.floor_loaded) {
    int rc = symv_floor_family_load(&W.dev, W.routine, &W.floor, why, sizeof why);
    if (rc) {
      symv_floor_family_free(&W.floor);
      say("error the floor family: %s", why);
      return;
    }
    W.floor_loaded = 1;
    W.floor.held = 1; /* timed as the candidates it is compared with */
  }
  symv_timing te;
  if (symv_floor_empty_time(&W.floor, W.batches, &te)) {
    say("error the empty kernel: %s", symv_cuda_error_text());
    return;
  }
  sync_or_die("empty kernel");
  charge_launches(&te, 1, 1);
  say("empty %.6g", te.median_us);
  for (int i = 0; i < k; i++) {
    size_data *s = size_get(ns[i]);
    if (!s) {
      say("error cannot set up n=%d: %s", ns[i], symv_cuda_error_text());
      return;
    }
    symv_floor_result fr;
    int rc = symv_floor_measure(&W.floor, &s->set, s->n, W.batches, 4, &fr);
    sync_or_die("floor timing");
    if (!rc) { /* one launch a call, charged as the candidates' */
      charge_launches(&fr.t, 1, 1);
      fr.us = fr.t.median_us;
      if (fr.untuned_us < fr.us) fr.untuned_us = fr.us;
    }
    for (int c = 0; !rc && c < 2; c++) {
      const int sh = c ? W.floor.untuned : fr.shape;
      uint64_t sum = 0;
      if (sh < 0) continue;
      rc = symv_floor_run_checksum(&W.floor.k[sh], s->n, symv_matrix_set_get(&s->set, 0), s->n, W.floor.out, &sum);
      if (!rc && sum != s->floor_sum) {
        char label[48];
        symv_params_format(&W.floor.k[sh].p, label, sizeof label);
        say("error %s read a checksum of %llu at n=%d, not %llu", label, (unsigned long long)sum, s->n,
            (unsigned long long)s->floor_sum);
        return;
      }
    }
    if (rc) {
      say("error the floor at n=%d: %s %s", s->n, symv_strerror(rc), symv_cuda_error_text());
      return;
    }
    char label[48];
    symv_params_format(&W.floor.k[fr.shape].p, label, sizeof label);
    say("shape %d %s %.6g", s->n, label, fr.untuned_us);
    say("meas %d %.6g %.6g %.6g %d %d 0", s->n, fr.us, fr.t.min_us, fr.t.max_us, fr.t.batches, fr.t.calls);
  }
  say("ok");
}

static void cmd_cand(char *args)
{
  char point[64], stage[16], list[8192], why[512] = "";
  int ns[MAX_SIZES];
  double prune[MAX_SIZES];
  symv_params p;
  if (sscanf(args, "%63s %15s %8191s", point, stage, list) != 3 || symv_params_parse(point, &p, why, sizeof why)) {
    say("error usage: cand P STAGE SIZES (%s)", why);
    return;
  }
  p.routine = W.routine;
  int k = parse_sizes(list, ns, prune, MAX_SIZES);
  if (k < 1) {
    say("error bad sizes");
    return;
  }
  symv_cubin cb;
  char *log = NULL;
  int rc = symv_compile(&p, W.dev.cc_major, W.dev.cc_minor, &cb, &log);
  if (rc) {
    for (char *q = log; q && *q; q++)
      if (*q == '\n') *q = ' ';
    say("invalid compile %.400s", log ? log : symv_strerror(rc));
    free(log);
    return;
  }
  symv_kernel kern;
  rc = symv_kernel_load(&p, &cb, &W.dev, &kern, why, sizeof why);
  double cms = cb.compile_ms;
  symv_cubin_free(&cb);
  if (rc) {
    say("invalid %s %s", rc == SYMV_OCCUPANCY ? "occupancy" : rc == SYMV_RESOURCES ? "resources" : "launch", why);
    return;
  }
  say("load %d %zu %.3f", kern.regs, kern.dyn_smem, cms);
  rc = measure_sizes(&kern, NULL, ns, prune, k);
  if (rc == 2) symv_workspace_reset(&W.ws, 0); /* after an invalid launch or result */
  symv_kernel_unload(&kern);
  if (!rc) say("ok");
}

/* lib ATOMICS STAGE SIZES PATH: libsymv (PATH, the rest of the line, loaded once) called through
 * the routine's entry point with the worker's handle in ATOMICS (any:
 * ALLOWED, deterministic: NOT_ALLOWED), verified and timed at each size as
 * a candidate is. */
static void cmd_lib(char *args)
{
  char atomics[16], stage[16], list[8192];
  int ns[MAX_SIZES], at = 0;
  double prune[MAX_SIZES];
  if (sscanf(args, "%15s %15s %8191s %n", atomics, stage, list, &at) != 3 || !at || !args[at] ||
      (strcmp(atomics, "any") && strcmp(atomics, "deterministic"))) {
    say("error usage: lib any|deterministic STAGE SIZES PATH");
    return;
  }
  const char *path = args + at;
  int k = parse_sizes(list, ns, prune, MAX_SIZES);
  if (k < 1) {
    say("error bad sizes");
    return;
  }
  if (!L.h || strcmp(L.path, path)) {
    if (L.h) {
      say("error one library a worker: %s is loaded", L.path);
      return;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      say("error cannot load %s: %s", path, dlerror());
      return;
    }
    L.fn = (lib_fn)dlsym(h, symv_routine_get(W.routine)->api);
    L.last = (const char *(*)(void))dlsym(h, "symvLastKernel");
    if (!L.fn || !L.last) {
      say("error %s does not export %s and symvLastKernel", path, symv_routine_get(W.routine)->api);
      dlclose(h);
      return;
    }
    L.h = h;
    snprintf(L.path, sizeof L.path, "%s", path);
  }
  for (int i = 0; i < k; i++) prune[i] = 0; /* timed fully, as a baseline */
  cublasSetAtomicsMode(W.h, strcmp(atomics, "any") ? CUBLAS_ATOMICS_NOT_ALLOWED : CUBLAS_ATOMICS_ALLOWED);
  const int rc = measure_sizes(NULL, L.fn, ns, prune, k);
  cublasSetAtomicsMode(W.h, CUBLAS_ATOMICS_NOT_ALLOWED);
  if (!rc) say("ok");
}

int worker_serve(void)
{
  char line[16384];
  int inited = 0, rc;
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    char *args = strchr(line, ' ');
    if (args) *args++ = 0;
    else args = line + strlen(line);
    if (!strcmp(line, "quit")) break;
    if (!strcmp(line, "init")) {
      if ((rc = cmd_init(args))) return rc;
      inited = 1;
      say("ok");
    } else if (!inited) {
      say("error init first");
    } else if (!strcmp(line, "base")) {
      cmd_base(args);
    } else if (!strcmp(line, "cand")) {
      cmd_cand(args);
    } else if (!strcmp(line, "floor")) {
      cmd_floor(args);
    } else if (!strcmp(line, "lib")) {
      cmd_lib(args);
    } else {
      say("error unknown command '%s'", line);
    }
  }
  return 0;
}
