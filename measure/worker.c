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
#include "compile.h"
#include "util.h"
#include "gpu.h"
#include "floor.h"
#include "harness.h"
#include "routine.h"
#include "symv_error.h"
#include "timing.h"
#include "worker.h"

#define MAX_SIZES 256

/* Everything prepared for one n. */
typedef struct {
  harness_size h;     /* A, x, y, cuBLAS's y and the residual's scale */
  uint64_t floor_sum; /* symv_floor_checksum of A: what a floor kernel must read */
} size_data;

static struct {
  symv_device_info dev;
  harness hs; /* the routine every candidate and baseline of this worker computes, uplo, scalars, handle */
  int hot, batches;
  double tol;
  size_data sizes[MAX_SIZES];
  int nsizes;
  unsigned long long seed;
  symv_floor_family floor; /* loaded by the first floor command */
  int floor_loaded;
} W;

/* The library of the lib command, loaded once (one path a worker). */
static struct {
  char path[4096];
  void *h;
  harness_lib_fn fn;          /* the routine's entry point */
  const char *(*last)(void);  /* symvLastKernel */
} L;

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

/* A fault (harness_sync's SYMV_FAULT) means the context is gone: report and
 * leave. Returns rc otherwise. */
static int fault_or(int rc)
{
  if (rc != SYMV_FAULT) return rc;
  say("invalid fault %s: %s", W.hs.fault_at, cudaGetErrorName(W.hs.fault));
  exit(SYMV_WORKER_EXIT_FAULT);
}

/* Any sticky CUDA error means the context is gone: report and leave. */
static void sync_or_die(const char *what) { fault_or(harness_sync(&W.hs, what)); }

/* Size n, set up once (harness_size_setup, a quarter of the free device
 * memory at most for A's copies) and kept; the other sizes are forgotten
 * first where the device is short of memory. NULL after an error but a
 * fault (which ends the process). */
static size_data *size_get(int n)
{
  for (int i = 0; i < W.nsizes; i++)
    if (W.sizes[i].h.n == n) return &W.sizes[i];
  if (W.nsizes == MAX_SIZES) return NULL;
  size_t bytes = 0, freeb = 0, totalb = 0;
  cudaMemGetInfo(&freeb, &totalb);
  if (symv_problem_bytes(W.hs.routine, n, n, totalb, &bytes, W.hs.why, sizeof W.hs.why)) return NULL;
  if (freeb < 3 * bytes + 2 * W.dev.l2_bytes + ((size_t)1 << 30)) { /* short of memory: forget the other sizes */
    for (int i = 0; i < W.nsizes; i++) harness_size_free(&W.sizes[i].h);
    W.nsizes = 0;
    cudaMemGetInfo(&freeb, &totalb);
  }
  size_data *s = &W.sizes[W.nsizes];
  if (fault_or(harness_size_setup(&W.hs, &s->h, n, W.dev.l2_bytes, W.hot, freeb / 4, &W.seed))) return NULL;
  s->floor_sum = symv_floor_checksum(W.hs.routine, n, s->h.A, n);
  harness_size_drop_host(&s->h);
  W.nsizes++;
  return s;
}

/* Verifies (unless k and lib are NULL: cuBLAS is the reference) and times
 * (harness_time_held) one configuration (kernel k, the library's entry
 * point lib, or cuBLAS) at size s; prints the meas line, for the library
 * after a libk line (the kernel it ran, its host time to queue a call).
 * Returns 0, or 1 after printing an invalid line. */
static int measure(const symv_kernel *k, harness_lib_fn lib, size_data *s, double prune_us)
{
  const harness_target t = {k, lib};
  const int n = s->h.n;
  double call_us, resid;
  int rc = fault_or(harness_verify(&W.hs, &s->h, &t, &call_us, &resid));
  if (rc) {
    say("invalid launch n=%d: %s %s", n, symv_strerror(rc), symv_cuda_error_text());
    return 1;
  }
  char ran[64] = "";
  if (lib) snprintf(ran, sizeof ran, "%s", *L.last() ? L.last() : "-");
  if ((k || lib) && !(resid <= W.tol)) {
    say("invalid wrong scaled residual %.3g at n=%d", resid, n);
    return 1;
  }
  symv_timing tm;
  if ((rc = fault_or(harness_time_held(&W.hs, &s->h, &t, W.batches, call_us, prune_us, ran, &tm)))) {
    say("invalid launch timing at n=%d: %s %s", n, symv_strerror(rc), symv_cuda_error_text());
    return 1;
  }
  if (lib) say("libk %d %s %.6g", n, ran, tm.host_us);
  say("meas %d %.6g %.6g %.6g %d %d %.4g", n, tm.median_us, tm.min_us, tm.max_us, tm.batches, tm.calls, resid);
  return 0;
}

static int cmd_init(char *args)
{
  int dev, hot, batches;
  char uplo, routine[16];
  double tol;
  symv_routine r;
  if (sscanf(args, "%d %c %d %d %lf %15s", &dev, &uplo, &hot, &batches, &tol, routine) != 6 ||
      symv_routine_parse(routine, &r))
    return SYMV_INVALID_VALUE;
  int rc = symv_device_query(dev, &W.dev);
  if (rc) {
    say("error no device: %s %s", symv_strerror(rc), symv_cuda_error_text());
    return rc;
  }
  W.hot = hot, W.batches = batches, W.tol = tol;
  W.seed = 0x5eed5eedull ^ (unsigned long long)dev;
  if (harness_init(&W.hs, r, uplo, ALPHA_RE, ALPHA_IM, BETA_RE, BETA_IM)) {
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
static int measure_sizes(const symv_kernel *kern, harness_lib_fn lib, const int *ns, const double *prune, int k)
{
  for (int i = 0; i < k; i++) {
    size_data *s = size_get(ns[i]);
    if (!s) {
      say("error cannot set up n=%d: %s", ns[i], W.hs.why[0] ? W.hs.why : symv_cuda_error_text());
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
  cublasSetAtomicsMode(W.hs.h, strcmp(name, "cublas_atomics") ? CUBLAS_ATOMICS_NOT_ALLOWED : CUBLAS_ATOMICS_ALLOWED);
  const int rc = measure_sizes(NULL, NULL, ns, prune, k);
  cublasSetAtomicsMode(W.hs.h, CUBLAS_ATOMICS_NOT_ALLOWED);
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
    int rc = symv_floor_family_load(&W.dev, W.hs.routine, &W.floor, why, sizeof why);
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
  harness_charge(&W.hs, &te, 1, 1);
  say("empty %.6g", te.median_us);
  for (int i = 0; i < k; i++) {
    size_data *s = size_get(ns[i]);
    if (!s) {
      say("error cannot set up n=%d: %s", ns[i], W.hs.why[0] ? W.hs.why : symv_cuda_error_text());
      return;
    }
    symv_floor_result fr;
    const int n = s->h.n;
    int rc = symv_floor_measure(&W.floor, &s->h.set, n, W.batches, 4, &fr);
    sync_or_die("floor timing");
    if (!rc) { /* one launch a call, charged as the candidates' */
      harness_charge(&W.hs, &fr.t, 1, 1);
      fr.us = fr.t.median_us;
      if (fr.untuned_us < fr.us) fr.untuned_us = fr.us;
    }
    for (int c = 0; !rc && c < 2; c++) {
      const int sh = c ? W.floor.untuned : fr.shape;
      uint64_t sum = 0;
      if (sh < 0) continue;
      rc = symv_floor_run_checksum(&W.floor.k[sh], n, symv_matrix_set_get(&s->h.set, 0), n, W.floor.out, &sum);
      if (!rc && sum != s->floor_sum) {
        char label[48];
        symv_params_format(&W.floor.k[sh].p, label, sizeof label);
        say("error %s read a checksum of %llu at n=%d, not %llu", label, (unsigned long long)sum, n,
            (unsigned long long)s->floor_sum);
        return;
      }
    }
    if (rc) {
      say("error the floor at n=%d: %s %s", n, symv_strerror(rc), symv_cuda_error_text());
      return;
    }
    char label[48];
    symv_params_format(&W.floor.k[fr.shape].p, label, sizeof label);
    say("shape %d %s %.6g", n, label, fr.untuned_us);
    say("meas %d %.6g %.6g %.6g %d %d 0", n, fr.us, fr.t.min_us, fr.t.max_us, fr.t.batches, fr.t.calls);
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
  p.routine = W.hs.routine;
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
  if (rc == 2) symv_workspace_reset(&W.hs.ws, 0); /* after an invalid launch or result */
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
    L.fn = (harness_lib_fn)dlsym(h, symv_routine_get(W.hs.routine)->api);
    L.last = (const char *(*)(void))dlsym(h, "symvLastKernel");
    if (!L.fn || !L.last) {
      say("error %s does not export %s and symvLastKernel", path, symv_routine_get(W.hs.routine)->api);
      dlclose(h);
      return;
    }
    L.h = h;
    snprintf(L.path, sizeof L.path, "%s", path);
  }
  for (int i = 0; i < k; i++) prune[i] = 0; /* timed fully, as a baseline */
  cublasSetAtomicsMode(W.hs.h, strcmp(atomics, "any") ? CUBLAS_ATOMICS_NOT_ALLOWED : CUBLAS_ATOMICS_ALLOWED);
  const int rc = measure_sizes(NULL, L.fn, ns, prune, k);
  cublasSetAtomicsMode(W.hs.h, CUBLAS_ATOMICS_NOT_ALLOWED);
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
