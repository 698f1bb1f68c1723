/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libsymv.c - the runtime of the generated library (symv.h): dispatch of
 * each of the six routines (SSYMV, DSYMV, CSYMV, ZSYMV, CHEMV, ZHEMV;
 * core/routine.h) by n through the rules of symv_table.c (written by
 * `symvtune build`), the kernels compiled into the library by nvcc from the
 * sources the tuner measured, and cuBLAS for the rest.
 *
 * Dispatch. The handle's atomics mode picks one of the routine's two rule
 * sets: under cuBLAS's default, CUBLAS_ATOMICS_NOT_ALLOWED, which promises
 * bitwise reproducible results, the deterministic rules (candidates of the
 * families without atomics on data, and cuBLAS with atomics off); under
 * CUBLAS_ATOMICS_ALLOWED, the 'any' rules (every family, both cuBLAS
 * modes). The rule whose interval holds n (n below the fitted range: the
 * first rule; above it: the last) names a candidate or cuBLAS with atomics
 * off or on; a routine the database had no fit of (of that class) has no
 * rules, and all its calls go to cuBLAS as they came. cuBLAS rules call the real
 * routine (cublasZhemv_v2 ...: the next one in the dynamic linker's search
 * order after this library, else the one in libcublas.so.13) in the mode
 * the rule names, whatever the handle's: the rule's atomics mode is set on
 * the handle for the call (CUBLAS_ATOMICS_NOT_ALLOWED for "cuBLAS",
 * CUBLAS_ATOMICS_ALLOWED for "cuBLAS with atomics") and the handle's own
 * mode restored afterwards. Fallbacks hand the call over as it came.
 *
 * Wisdom. A library built with `symvtune build --wisdom` carries no rules
 * and no compiled kernels: on the first call it reads the wisdom files
 * (lib/wisdom.h) of $SYMV_WISDOM (a ':'-separated list of files and
 * folders) and then of its system folder (symv_table_wisdom_dir, else
 * LIBDIR/../share/symv beside the library itself), refusing each malformed,
 * hostile or foreign file whole (with a line in the log and in symvGetInfo),
 * and on each device's first call takes the first accepted file whose GPU
 * fingerprint is the device's. A candidate its rules name is compiled on
 * the first call that needs it, by NVRTC from the kernel sources embedded in
 * the library with the options the tuner gave NVRTC (gpu/compile.c, whose
 * disk cache it shares), and refused, its sizes going to cuBLAS, if its
 * registers per thread or blocks per SM differ from what the wisdom file
 * recorded of the tuner's build. A device no file matches goes to cuBLAS.
 *
 * Fallback. A device whose name, compute capability or SM count differs from
 * the tuned one, or a candidate that cannot be prepared there (its
 * MULTIPLICITY not achieved, say), is served by the real cuBLAS routine,
 * called as the program would have called it (the handle untouched); with
 * SYMV_VERBOSE set in the environment, each such decision is told once on
 * stderr.
 *
 * Stream capture. pipe's and atomic_red's launches carry a count of the
 * calls made on their workspace, kept on the host (the gate's target, the
 * epoch: gpu/gpu.c): a graph would replay the count of the moment it was
 * captured, and the kernel would add to y before it is scaled (pipe) or
 * read stale states (atomic_red). A call whose rule names one of these
 * families, made while its stream is being captured (cudaStreamIsCapturing),
 * is served by cuBLAS with atomics instead (the handle allowed them), which
 * captures correctly and needs no workspace. The other families keep
 * nothing on the host between calls and are captured as they are.
 *
 * Log. With SYMV_LOG set (and not "0"), every call writes one line: the
 * routine and its arguments n, uplo, lda, incx, incy, what served it (a
 * kernel's name, cuBLAS, cuBLAS with atomics, or nothing), why (the rule's
 * n range, an untuned routine, an argument error, a fallback's reason) and
 * the status returned, and in a --wisdom library the wisdom file whose rules
 * served it (" wisdom=PATH", or " wisdom=none" when no file matches the
 * device); to stderr, or to the file SYMV_LOG_FILE names
 * (appended; "stdout" and "stderr" name those). The environment is read
 * once, on the first call (pthread_once); each line is written whole.
 *
 * Thread safety. One mutex guards the caches: per device, whether it is
 * covered and its prepared kernels (made once, on the device's first call,
 * and read without the lock afterwards: the state is published last, with
 * release/acquire ordering); per (device, stream) a workspace (gpu.h),
 * created on first use, grown as n grows, reused by every later call on
 * that stream and freed when the library is unloaded (destructor; at
 * process exit the CUDA runtime may be gone first, and then the driver
 * reclaims them). Each thread remembers its last workspace, so the usual
 * call takes no global lock. A workspace has its own mutex, held while a
 * call enqueues on its stream, so host threads sharing a stream serialise
 * only there. Calls on cudaStreamPerThread get one workspace per host
 * thread. The hot path adds no allocation and three cuBLAS getters (atomics
 * mode, stream, pointer mode: field reads) to the launch, and for pipe and
 * atomic_red one cudaStreamIsCapturing (see Stream capture).
 */
#define _GNU_SOURCE
#include <cublas_v2.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"
#include "libsymv_table.h"
#include "routine.h"
#include "symv.h"
#include "symv_error.h"
#include <limits.h>
#ifdef SYMV_WISDOM_LIB
#include <libgen.h>
#include "compile.h"
#include "kernel_sources.h"
#include "wisdom.h"
#endif

#define SYMV_MAX_DEVICES 64

/* The cuBLAS prototype of the six routines, with the routine's scalar type
 * behind each pointer (cuComplex, cuDoubleComplex: pairs of reals). */
typedef cublasStatus_t (*symv_fn)(cublasHandle_t, cublasFillMode_t, int, const void *, const void *, int,
                                  const void *, int, const void *, void *, int);

/* Why a device's calls go to cuBLAS (device_entry.why). */
enum { WHY_NONE, WHY_QUERY, WHY_OTHER_GPU, WHY_NO_MEMORY, WHY_NO_WISDOM };

/* The rules a call is dispatched by: the table compiled in, or, in a
 * --wisdom library, those of the wisdom file that matched the device. */
typedef struct {
  const symv_table_candidate *cands; /* [ncands] */
  int ncands;
  const symv_table_rule *rules;      /* each routine's run, symv_table_routine says where */
  const symv_table_routine *routines; /* [SYMV_ROUTINE_COUNT] */
  const symv_table_info *info;       /* the tuned GPU */
  const char *path;                  /* the wisdom file; NULL for the compiled-in table */
} rules_view;

/* What the library knows of one device. */
typedef struct {
  int state;           /* 0 not looked at yet, 1 tuned GPU, -1 another GPU (or unusable: why) */
  int why;             /* WHY_*, set before state */
  symv_kernel *k;      /* [view's ncands] prepared kernels */
  char *ok;            /* [view's ncands] 1 if k[i] can run */
#ifdef SYMV_WISDOM_LIB
  const struct wisdom_file *wf; /* the matched wisdom file (state 1) */
  symv_device_info info;    /* the device, for NVRTC and loading */
  signed char *kst;         /* [ncands] 0 not compiled yet, 1 ok (k, ok set), -1 refused (kwhy says why) */
  char (*kwhy)[200];        /* [ncands] */
#endif
} device_entry;

/* The workspace of one (device, stream[, thread]). */
typedef struct ws_entry {
  int device;             /* CUDA device ordinal */
  cudaStream_t stream;    /* the handle's stream */
  pthread_t thread;       /* owner, for cudaStreamPerThread only */
  pthread_mutex_t lock;   /* held while a call uses ws */
  symv_workspace ws;      /* gpu.h */
  struct ws_entry *next;
} ws_entry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static device_entry devices[SYMV_MAX_DEVICES];
static ws_entry *workspaces;
static _Thread_local const char *last_kernel __attribute__((tls_model("initial-exec"))) = ""; /* static strings or table names */

/* This thread's last workspace: most calls find it here without the lock. */
static _Thread_local struct {
  int device;
  cudaStream_t stream;
  struct ws_entry *entry; /* NULL: none yet */
} ws_cache;

static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static symv_fn real_fn[SYMV_ROUTINE_COUNT];    /* the real cuBLAS routines */
static char real_why[SYMV_ROUTINE_COUNT][256]; /* why one was not found */
static const void *const own_fn[SYMV_ROUTINE_COUNT][2]; /* this library's two entry points per routine, below */

/* One line on stderr when SYMV_VERBOSE is set. */
static void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void notice(const char *fmt, ...)
{
  if (!getenv("SYMV_VERBOSE")) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "libsymv: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* ---- The call log (SYMV_LOG, SYMV_LOG_FILE) ---- */

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static FILE *log_out; /* NULL: no log */

/* Reads SYMV_LOG and SYMV_LOG_FILE, once. A file that cannot be opened is
 * told on stderr, and the log goes to stderr instead. */
static void log_init(void)
{
  const char *on = getenv("SYMV_LOG"), *path = getenv("SYMV_LOG_FILE");
  if (!on || !*on || !strcmp(on, "0")) return;
  if (!path || !*path || !strcmp(path, "stderr")) {
    log_out = stderr;
  } else if (!strcmp(path, "stdout")) {
    log_out = stdout;
  } else if (!(log_out = fopen(path, "a"))) {
    fprintf(stderr, "libsymv: SYMV_LOG_FILE %s: %s; logging to stderr\n", path, strerror(errno));
    log_out = stderr;
  }
}

/* What served a call and why, for the log (filled only while logging). */
typedef struct {
  const char *served; /* kernel name, "cuBLAS", "cuBLAS with atomics", "none" */
  char why[160];
  const char *wisdom; /* a --wisdom library's: the file whose rules served the call, "none"; NULL: not told */
} call_note;

#define NOTE(note, served_, ...)                                                                                  \
  do {                                                                                                            \
    if (note) (note)->served = (served_), snprintf((note)->why, sizeof (note)->why, __VA_ARGS__);               \
  } while (0)

static const char *status_name(cublasStatus_t st)
{
  switch (st) {
  case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  default: return "cublasStatus_t (unknown)";
  }
}

/* One line of the log, written with one call so that threads' lines do
 * not mix. */
static void log_call(symv_routine ro, cublasFillMode_t uplo, int n, int lda, int incx, int incy,
                     const call_note *note, cublasStatus_t st)
{
  char line[512 + PATH_MAX], u[16];
  if (uplo == CUBLAS_FILL_MODE_LOWER) snprintf(u, sizeof u, "L");
  else if (uplo == CUBLAS_FILL_MODE_UPPER) snprintf(u, sizeof u, "U");
  else snprintf(u, sizeof u, "%d", (int)uplo);
  /* the fields after the status are added at the end, so that readers of the older line still read it */
  snprintf(line, sizeof line, "libsymv: %s n=%d uplo=%s lda=%d incx=%d incy=%d: %s (%s) -> %s (%d)%s%s\n",
           symv_routine_name(ro), n, u, lda, incx, incy, note->served, note->why, status_name(st), (int)st,
           note->wisdom ? " wisdom=" : "", note->wisdom ? note->wisdom : "");
  fputs(line, log_out);
  fflush(log_out);
}

/* Finds the cuBLAS routines this library stands in front of. */
static void find_real(void)
{
  void *h = NULL;
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const char *name = symv_routine_get((symv_routine)r)->cublas;
    void *f = dlsym(RTLD_NEXT, name);
    if (f == own_fn[r][0] || f == own_fn[r][1]) f = NULL;
    if (!f) {
      if (!h) h = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
      if (h) f = dlsym(h, name);
      if (!f) snprintf(real_why[r], sizeof real_why[r], "%s%s", h ? "not in libcublas.so.13: " : dlerror(), h ? name : "");
    }
    real_fn[r] = (symv_fn)f;
  }
}

/* How call_cublas treats the handle's atomics mode. */
typedef enum {
  CUBLAS_WAY_AS_CALLED,  /* the handle as it is: a fallback, the call as the program made it */
  CUBLAS_WAY_NO_ATOMICS, /* CUBLAS_ATOMICS_NOT_ALLOWED for the call: a rule naming cuBLAS */
  CUBLAS_WAY_ATOMICS     /* CUBLAS_ATOMICS_ALLOWED for the call: a rule naming cuBLAS with atomics */
} cublas_way;

/* Calls cuBLAS on handle h, in the atomics mode `way` names for the call
 * (the handle's own mode restored afterwards, also when the call fails),
 * or on the handle as it is. Returns cuBLAS's status, the first failing
 * one of the mode's getter, setter, the call and the restoring setter;
 * CUBLAS_STATUS_NOT_SUPPORTED when no cuBLAS routine was found, with why
 * in note (if non-NULL). */
static cublasStatus_t call_cublas(symv_routine r, cublas_way way, cublasHandle_t h, cublasFillMode_t uplo, int n,
                                  const void *alpha, const void *A, int lda, const void *x, int incx,
                                  const void *beta, void *y, int incy, call_note *note)
{
  pthread_once(&real_once, find_real);
  const symv_fn real = real_fn[r];
  if (!real) {
    if (note) {
      size_t l = strlen(note->why);
      snprintf(note->why + l, sizeof note->why - l, "; no cuBLAS to call: %s", real_why[r]);
    }
    static int told[SYMV_ROUTINE_COUNT];
    if (!__atomic_exchange_n(&told[r], 1, __ATOMIC_RELAXED))
      notice("cannot find the real %s (%s): calls bound for cuBLAS fail", symv_routine_get(r)->cublas, real_why[r]);
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  last_kernel = way == CUBLAS_WAY_ATOMICS ? "cublas_atomics" : "cublas";
  if (way == CUBLAS_WAY_AS_CALLED) return real(h, uplo, n, alpha, A, lda, x, incx, beta, y, incy);
  const cublasAtomicsMode_t want = way == CUBLAS_WAY_ATOMICS ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED;
  cublasAtomicsMode_t old;
  cublasStatus_t st;
  if ((st = cublasGetAtomicsMode(h, &old)) != CUBLAS_STATUS_SUCCESS) return st;
  if (old != want && (st = cublasSetAtomicsMode(h, want)) != CUBLAS_STATUS_SUCCESS) return st;
  st = real(h, uplo, n, alpha, A, lda, x, incx, beta, y, incy);
  if (old != want) { /* the handle is the caller's: its mode as it was */
    cublasStatus_t st2 = cublasSetAtomicsMode(h, old);
    if (st == CUBLAS_STATUS_SUCCESS) st = st2;
  }
  return st;
}

/* 1 if kernels of family f carry a count of calls kept on the host (see
 * Stream capture in the header) */
static int family_counts_calls(symv_family f) { return f == SYMV_FAMILY_PIPE || f == SYMV_FAMILY_ATOMIC_RED; }

/* Routine ro's rule for n in view v among its deterministic rules
 * (deterministic nonzero) or its 'any' rules: the interval holding it, else
 * the nearest end one; NULL if the routine has no rules of that class. */
static const symv_table_rule *rule_for(const rules_view *v, symv_routine ro, int deterministic, int n)
{
  const symv_table_routine *t = &v->routines[ro];
  const int count = deterministic ? t->det_count : t->count;
  if (count < 1) return NULL;
  const symv_table_rule *r = v->rules + (deterministic ? t->det_first : t->first);
  int lo = 0, hi = count - 1;
  if (n <= r[lo].n_end) return &r[lo];
  if (n >= r[hi].n_start) return &r[hi];
  while (lo < hi) { /* r[lo].n_end < n < r[hi].n_start shrinks to the holder */
    int mid = lo + (hi - lo) / 2;
    if (n > r[mid].n_end) lo = mid + 1;
    else hi = mid;
  }
  return &r[lo];
}

/* Looks at device `dev` on its first call, each flavour in its own way (the
 * compiled-in rules' GPU and kernels, or the wisdom file that matches it),
 * and sets e->state last. Called with cache_lock held. */
static void device_setup(int dev, device_entry *e);

/* Device dev's entry, set up on its first call (device_setup, under
 * cache_lock), with its state in *state (1: ready; else e->why says why
 * not); NULL for a device beyond the SYMV_MAX_DEVICES this library keeps
 * (then, when note is non-NULL, why). */
static device_entry *device_entry_of(int dev, int *state, call_note *note)
{
  if (dev < 0 || dev >= SYMV_MAX_DEVICES) {
    NOTE(note, "cuBLAS", "fallback: device %d is beyond the %d this library keeps", dev, SYMV_MAX_DEVICES);
    return NULL;
  }
  device_entry *e = &devices[dev];
  int st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
  if (st == 0) { /* first call on this device */
    pthread_mutex_lock(&cache_lock);
    if (e->state == 0) device_setup(dev, e);
    st = e->state;
    pthread_mutex_unlock(&cache_lock);
  }
  *state = st;
  return e;
}

#ifndef SYMV_WISDOM_LIB
/* The compiled-in table as a view. */
static rules_view builtin;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static void builtin_init(void)
{
  builtin = (rules_view){symv_table_candidates, symv_table_ncandidates, symv_table_rules, symv_table_routines,
                         &symv_table_device, NULL};
}

/* 1 if d is the GPU the rules were tuned on: its name, compute capability
 * and SM count. */
static int device_is_tuned(const symv_device_info *d)
{
  const symv_table_info *t = &symv_table_device;
  return !strcmp(d->name, t->name) && d->cc_major == t->cc_major && d->cc_minor == t->cc_minor &&
         d->sm_count == t->sm_count;
}

/* Looks at device `dev` on its first call: is it the tuned GPU; prepare every
 * candidate there. Called with cache_lock held. */
static void device_setup(int dev, device_entry *e)
{
  symv_device_info d;
  const symv_table_info *t = &symv_table_device;
  int rc = symv_device_query(dev, &d);
  if (rc) {
    notice("device %d cannot be queried (%s %s): its calls go to cuBLAS", dev, symv_strerror(rc),
           symv_cuda_error_text());
    e->why = WHY_QUERY;
    __atomic_store_n(&e->state, -1, __ATOMIC_RELEASE);
    return;
  }
  if (!device_is_tuned(&d)) {
    notice("device %d is a %s (sm_%d%d, %d SMs), not the %s (sm_%d%d, %d SMs) this library was tuned for: its "
           "calls go to cuBLAS",
           dev, d.name, d.cc_major, d.cc_minor, d.sm_count, t->name, t->cc_major, t->cc_minor, t->sm_count);
    e->why = WHY_OTHER_GPU;
    __atomic_store_n(&e->state, -1, __ATOMIC_RELEASE);
    return;
  }
  int nc = symv_table_ncandidates;
  e->k = calloc(nc > 0 ? (size_t)nc : 1, sizeof *e->k);
  e->ok = calloc(nc > 0 ? (size_t)nc : 1, 1);
  int *floor_pct = calloc(nc > 0 ? (size_t)nc : 1, sizeof *floor_pct);
  if (!e->k || !e->ok || !floor_pct) {
    free(e->k), free(e->ok), free(floor_pct);
    e->k = NULL, e->ok = NULL;
    notice("out of memory preparing device %d: its calls go to cuBLAS", dev);
    e->why = WHY_NO_MEMORY;
    __atomic_store_n(&e->state, -1, __ATOMIC_RELEASE);
    return;
  }
  /* candidates sharing a kernel differ in MULTIPLICITY, and the kernel has
   * one shared-memory carveout: each is prepared in the largest carveout any
   * of them needs (a few passes: a larger carveout can need a larger one
   * still for another M) */
  for (int pass = 0, again = 1; again && pass < 4; pass++) {
    again = 0;
    for (int i = 0; i < nc; i++) {
      const symv_table_candidate *c = &symv_table_candidates[i];
      char why[512] = "", label[64];
      if (pass > 0 && !e->ok[i]) continue;
      rc = symv_kernel_prepare(&c->p, c->stub, &d, floor_pct[i], &e->k[i], why, sizeof why);
      e->ok[i] = rc == 0;
      if (rc) {
        symv_params_format(&c->p, label, sizeof label);
        notice("kernel %s (%s) cannot run on device %d: %s: %s; its sizes go to cuBLAS", c->name, label, dev,
               symv_strerror(rc), why);
      }
    }
    for (int i = 0; i < nc; i++)
      for (int j = 0; e->ok[i] && j < nc; j++)
        if (e->ok[j] && symv_table_candidates[j].stub == symv_table_candidates[i].stub &&
            e->k[j].carveout_pct > e->k[i].carveout_pct && e->k[j].carveout_pct > floor_pct[i])
          floor_pct[i] = e->k[j].carveout_pct, again = 1;
  }
  free(floor_pct);
  /* ... and its dynamic shared memory limit must admit the largest of them */
  for (int i = 0; i < nc; i++) {
    if (!e->ok[i]) continue;
    size_t most = e->k[i].dyn_smem;
    for (int j = 0; j < nc; j++)
      if (e->ok[j] && symv_table_candidates[j].stub == symv_table_candidates[i].stub && e->k[j].dyn_smem > most)
        most = e->k[j].dyn_smem;
    if (most != e->k[i].dyn_smem &&
        cudaFuncSetAttribute(symv_table_candidates[i].stub, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)most) != cudaSuccess) {
      cudaGetLastError();
      notice("kernel %s: cannot raise its shared memory limit to %zu bytes on device %d; its sizes go to cuBLAS",
             symv_table_candidates[i].name, most, dev);
      e->ok[i] = 0;
    }
  }
  /* with every attribute settled, each candidate still gets its MULTIPLICITY */
  for (int i = 0; i < nc; i++) {
    int occ = 0;
    if (!e->ok[i]) continue;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, symv_table_candidates[i].stub,
                                                      symv_table_candidates[i].p.block_size,
                                                      e->k[i].dyn_smem) != cudaSuccess)
      cudaGetLastError();
    if (occ != symv_table_candidates[i].p.multiplicity) {
      notice("kernel %s: %d blocks per SM instead of its MULTIPLICITY %d on device %d (kernels sharing code need "
             "different shared-memory carveouts); its sizes go to cuBLAS",
             symv_table_candidates[i].name, occ, symv_table_candidates[i].p.multiplicity, dev);
      e->ok[i] = 0;
    }
  }
  __atomic_store_n(&e->state, 1, __ATOMIC_RELEASE); /* k and ok are complete */
}

/* The prepared kernel of candidate `cand` on device `dev`, or NULL if the
 * device or the kernel is not covered (then, when note is non-NULL, why). */
static const symv_kernel *kernel_for(const rules_view *v, int dev, int cand, call_note *note)
{
  (void)v; /* the compiled-in table */
  int state;
  device_entry *e = device_entry_of(dev, &state, note);
  if (!e) return NULL;
  if (state == 1 && e->ok[cand]) return &e->k[cand];
  if (state == 1)
    NOTE(note, "cuBLAS", "fallback: kernel %s cannot run on device %d", symv_table_candidates[cand].name, dev);
  else if (e->why == WHY_OTHER_GPU)
    NOTE(note, "cuBLAS", "fallback: device %d is not the %s (sm_%d%d, %d SMs) the rules were tuned on", dev,
         symv_table_device.name, symv_table_device.cc_major, symv_table_device.cc_minor, symv_table_device.sm_count);
  else
    NOTE(note, "cuBLAS", "fallback: device %d %s", dev,
         e->why == WHY_NO_MEMORY ? "could not be prepared (out of memory)" : "cannot be queried");
  return NULL;
}
#else /* SYMV_WISDOM_LIB */

/* ---- Wisdom: the rules of files read at run time ---- */

/* One file the search path offered, and what became of it. */
typedef struct wisdom_file {
  char *path;                              /* as found (malloc'ed) */
  int ok;                                  /* 1 accepted */
  symv_wisdom w;                           /* parsed (if ok) */
  symv_table_candidate *cands;             /* w's candidates as the dispatch reads them */
  symv_table_rule *rules;                  /* w's rules likewise */
  symv_table_routine routines[SYMV_ROUTINE_COUNT];
  symv_table_info info;                    /* w's device */
  char arch[16];                           /* "sm_90": what NVRTC compiles for there */
  rules_view view;
} wisdom_file;

static pthread_once_t wisdom_once = PTHREAD_ONCE_INIT;
static wisdom_file wfiles[SYMV_WISDOM_MAX_FILES];
static int nwfiles, nwaccepted;
static char wisdom_system[PATH_MAX];       /* the system folder */
static char wisdom_report[16384];          /* one line per file or skipped entry, for symvGetInfo */

/* A line in the report, in the log (when on) and told with SYMV_VERBOSE. */
static void wisdom_tell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void wisdom_tell(const char *fmt, ...)
{
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  for (char *c = line; *c; c++) /* paths and texts of files: one line each, whatever they hold */
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  size_t l = strlen(wisdom_report);
  snprintf(wisdom_report + l, sizeof wisdom_report - l, "%s\n", line);
  pthread_once(&log_once, log_init);
  if (log_out) {
    char out[1100];
    snprintf(out, sizeof out, "libsymv: wisdom %s\n", line);
    fputs(out, log_out);
    fflush(log_out);
  }
  notice("wisdom %s", line);
}

/* Makes f's dispatch view of its parsed wisdom. 0, or -1 out of memory. */
static int wisdom_view_make(wisdom_file *f)
{
  const symv_wisdom *w = &f->w;
  f->cands = calloc(w->ncands > 0 ? (size_t)w->ncands : 1, sizeof *f->cands);
  f->rules = calloc(w->nrules > 0 ? (size_t)w->nrules : 1, sizeof *f->rules);
  if (!f->cands || !f->rules) return -1;
  for (int i = 0; i < w->ncands; i++) f->cands[i].p = w->cands[i].p, f->cands[i].name = w->cands[i].name;
  for (int i = 0; i < w->nrules; i++) /* SYMV_WISDOM_CUBLAS* are SYMV_RULE_CUBLAS* */
    f->rules[i].n_start = w->rules[i].n_start, f->rules[i].n_end = w->rules[i].n_end,
    f->rules[i].kernel = w->rules[i].kernel;
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const symv_wisdom_set *a = &w->set[r][0], *d = &w->set[r][1];
    symv_table_routine *t = &f->routines[r];
    t->first = a->have ? a->first : 0, t->count = a->have ? a->count : 0, t->fit_id = a->have ? a->fit_id : 0;
    t->uplo = a->have ? a->uplo : 'L', t->hot = a->have ? a->hot : 0;
    t->det_first = d->have ? d->first : 0, t->det_count = d->have ? d->count : 0;
    t->det_fit_id = d->have ? d->fit_id : 0;
  }
  snprintf(f->arch, sizeof f->arch, "sm_%d%d", w->dev.cc_major, w->dev.cc_minor);
  f->info = (symv_table_info){w->dev.name, w->dev.cc_major, w->dev.cc_minor, w->dev.sm_count, f->arch};
  f->view = (rules_view){f->cands, w->ncands, f->rules, f->routines, &f->info, f->path};
  return 0;
}

SYMV_API cublasStatus_t symvGetInfo_v2(symvInfo *info);

/* Reads every file of the search path, once: $SYMV_WISDOM, then the
 * system folder. A file is accepted if it parses and was written from the
 * kernel sources this library compiles. */
static void wisdom_load(void)
{
  if (symv_table_wisdom_dir[0]) {
    snprintf(wisdom_system, sizeof wisdom_system, "%s", symv_table_wisdom_dir);
  } else { /* LIBDIR/../share/symv, beside the library wherever it was moved */
    Dl_info di;
    char tmp[PATH_MAX];
    if (dladdr((const void *)symvGetInfo_v2, &di) && di.dli_fname && strlen(di.dli_fname) < sizeof tmp) {
      snprintf(tmp, sizeof tmp, "%s", di.dli_fname);
      snprintf(wisdom_system, sizeof wisdom_system, "%s/../share/symv", dirname(tmp));
    }
  }
  uint64_t own = SYMV_WISDOM_FNV_INIT;
  for (int i = 0; i < symv_nsources; i++) {
    own = symv_wisdom_fnv(own, symv_sources[i].name, strlen(symv_sources[i].name) + 1);
    own = symv_wisdom_fnv(own, symv_sources[i].text, strlen(symv_sources[i].text) + 1);
  }
  char *files[SYMV_WISDOM_MAX_FILES], notes[4096];
  int n = 0;
  if (symv_wisdom_search(getenv("SYMV_WISDOM"), wisdom_system, files, &n, notes, sizeof notes)) {
    wisdom_tell("search: out of memory; no wisdom read");
    symv_wisdom_search_free(files, n);
    return;
  }
  for (char *p = notes, *nl; *p && (nl = strchr(p, '\n')); p = nl + 1) {
    *nl = 0;
    wisdom_tell("skipped %s", p);
  }
  for (int i = 0; i < n; i++) {
    wisdom_file *f = &wfiles[nwfiles++];
    char why[512];
    f->path = files[i];
    int rc = symv_wisdom_read(f->path, &f->w, why, sizeof why);
    if (rc) {
      wisdom_tell("%s: refused: %s", f->path, why);
    } else if (f->w.sources != own) {
      wisdom_tell("%s: refused: written by symvtune %s from kernel sources %016llx, and this library compiles "
                  "%016llx: export it again with the symvtune that built this library", f->path, f->w.symvtune,
                  (unsigned long long)f->w.sources, (unsigned long long)own);
    } else if (wisdom_view_make(f)) {
      wisdom_tell("%s: refused: out of memory", f->path);
    } else {
      int sets = 0;
      for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) sets += f->w.set[r][0].have + f->w.set[r][1].have;
      f->ok = 1, nwaccepted++;
      wisdom_tell("%s: accepted: %s (sm_%d%d, %d SMs), %d rule sets", f->path, f->w.dev.name, f->w.dev.cc_major,
                  f->w.dev.cc_minor, f->w.dev.sm_count, sets);
      continue;
    }
    symv_wisdom_free(&f->w);
    free(f->cands), free(f->rules), f->cands = NULL, f->rules = NULL;
  }
}

/* The first accepted file whose fingerprint is d's, or NULL; then, if
 * dev >= 0, each file is told with what differs. */
static const wisdom_file *wisdom_match(const symv_device_info *d, int dev)
{
  symv_wisdom_device wd;
  memset(&wd, 0, sizeof wd);
  snprintf(wd.name, sizeof wd.name, "%s", d->name);
  wd.cc_major = d->cc_major, wd.cc_minor = d->cc_minor, wd.sm_count = d->sm_count;
  wd.l2_bytes = (long long)d->l2_bytes, wd.bus_width_bits = d->bus_width_bits;
  wd.smem_per_sm = (int)d->smem_per_sm, wd.regs_per_sm = d->regs_per_sm;
  for (int i = 0; i < nwfiles; i++) {
    char why[300];
    if (wfiles[i].ok && symv_wisdom_match(&wfiles[i].w, &wd, why, sizeof why)) return &wfiles[i];
  }
  for (int i = 0; dev >= 0 && i < nwfiles; i++) {
    char why[300];
    if (wfiles[i].ok && !symv_wisdom_match(&wfiles[i].w, &wd, why, sizeof why))
      wisdom_tell("device %d: %s does not match: %s", dev, wfiles[i].path, why);
  }
  return NULL;
}

/* Looks at device `dev` on its first call: the wisdom file that matches it.
 * Its kernels are compiled later, each on its first use. Called with
 * cache_lock held. */
static void device_setup(int dev, device_entry *e)
{
  pthread_once(&wisdom_once, wisdom_load);
  int rc = symv_device_query(dev, &e->info);
  if (rc) {
    notice("device %d cannot be queried (%s %s): its calls go to cuBLAS", dev, symv_strerror(rc),
           symv_cuda_error_text());
    e->why = WHY_QUERY;
    __atomic_store_n(&e->state, -1, __ATOMIC_RELEASE);
    return;
  }
  const symv_device_info *d = &e->info;
  const wisdom_file *f = wisdom_match(d, dev);
  if (!f) {
    wisdom_tell("device %d: no accepted file (%d of %d) is of a %s (sm_%d%d, %d SMs, L2 %zu bytes): its calls go to "
                "cuBLAS", dev, nwaccepted, nwfiles, d->name, d->cc_major, d->cc_minor, d->sm_count, d->l2_bytes);
    e->why = WHY_NO_WISDOM;
    __atomic_store_n(&e->state, -1, __ATOMIC_RELEASE);
    return;
  }
  const int nc = f->view.ncands > 0 ? f->view.ncands : 1;
  e->k = calloc((size_t)nc, sizeof *e->k);
  e->ok = calloc((size_t)nc, 1);
  e->kst = calloc((size_t)nc, 1);
  e->kwhy = calloc((size_t)nc, sizeof *e->kwhy);
  if (!e->k || !e->ok || !e->kst || !e->kwhy) {
    free(e->k), free(e->ok), free(e->kst), free(e->kwhy);
    e->k = NULL, e->ok = NULL, e->kst = NULL, e->kwhy = NULL;
    notice("out of memory preparing device %d: its calls go to cuBLAS", dev);
    e->why = WHY_NO_MEMORY;
    __atomic_store_n(&e->state, -1, __ATOMIC_RELEASE);
    return;
  }
  e->wf = f;
  wisdom_tell("device %d: %s matches, a %s (sm_%d%d, %d SMs)", dev, f->path, d->name, d->cc_major, d->cc_minor,
              d->sm_count);
  __atomic_store_n(&e->state, 1, __ATOMIC_RELEASE);
}

/* Compiles and loads candidate `cand` of e's wisdom on device dev (the
 * current one) with NVRTC, as the tuner did, and holds it to what the file
 * recorded of the tuner's build: its registers per thread and blocks per
 * SM. Called with cache_lock held; sets e->kst[cand]. */
static void wisdom_prepare(int dev, device_entry *e, int cand)
{
  const wisdom_file *f = e->wf;
  const symv_wisdom_cand *wc = &f->w.cands[cand];
  char *why = e->kwhy[cand], label[64];
  const size_t whylen = sizeof e->kwhy[cand];
  symv_cubin cub;
  char *log = NULL;
  symv_params_format(&wc->p, label, sizeof label);
  int rc = symv_compile(&wc->p, e->info.cc_major, e->info.cc_minor, &cub, &log);
  if (rc) {
    snprintf(why, whylen, "NVRTC: %s: %.120s", symv_strerror(rc), log ? log : "");
  } else {
    rc = symv_kernel_load(&wc->p, &cub, &e->info, &e->k[cand], why, whylen);
    if (!rc && (e->k[cand].regs != wc->regs || e->k[cand].occupancy != wc->occupancy)) {
      snprintf(why, whylen, "%d registers per thread and %d blocks per SM, where the tuner's build had %d and %d",
               e->k[cand].regs, e->k[cand].occupancy, wc->regs, wc->occupancy);
      symv_kernel_unload(&e->k[cand]);
      rc = SYMV_OCCUPANCY;
    }
  }
  free(log);
  symv_cubin_free(&cub);
  if (rc) {
    for (char *c = why; *c; c++) /* one line: the NVRTC log may have several */
      if (*c == '\n' || *c == '\r') *c = ' ';
    wisdom_tell("device %d: kernel %s (%s) of %s refused: %s; its sizes go to cuBLAS", dev, wc->name, label, f->path,
                why);
  }
  e->ok[cand] = rc == 0;
  __atomic_store_n(&e->kst[cand], rc ? -1 : 1, __ATOMIC_RELEASE);
}

/* The rules of device dev (the current one): its wisdom file's, or NULL
 * (then, when note is non-NULL, why). */
static const rules_view *wisdom_view(int dev, call_note *note)
{
  if (note) note->wisdom = "none";
  int state;
  device_entry *e = device_entry_of(dev, &state, note);
  if (!e) return NULL;
  if (state == 1) {
    if (note) note->wisdom = e->wf->path;
    return &e->wf->view;
  }
  NOTE(note, "cuBLAS", "fallback: device %d %s", dev,
       e->why == WHY_NO_WISDOM   ? "matches no wisdom file"
       : e->why == WHY_NO_MEMORY ? "could not be prepared (out of memory)"
                                 : "cannot be queried");
  return NULL;
}

/* The prepared kernel of candidate `cand` of device dev's wisdom (dev has
 * one: wisdom_view), compiled on its first use; NULL if it was refused
 * (then, when note is non-NULL, why). */
static const symv_kernel *kernel_for(const rules_view *v, int dev, int cand, call_note *note)
{
  device_entry *e = &devices[dev];
  int st = __atomic_load_n(&e->kst[cand], __ATOMIC_ACQUIRE);
  if (st == 0) {
    pthread_mutex_lock(&cache_lock);
    if (e->kst[cand] == 0) wisdom_prepare(dev, e, cand);
    st = e->kst[cand];
    pthread_mutex_unlock(&cache_lock);
  }
  if (st == 1) return &e->k[cand];
  NOTE(note, "cuBLAS", "fallback: kernel %s refused on device %d: %.100s", v->cands[cand].name, dev, e->kwhy[cand]);
  return NULL;
}
#endif /* SYMV_WISDOM_LIB */

/* The workspace of (dev, stream), created on first use; NULL if out of
 * memory. Entries live until the library is unloaded. */
static ws_entry *workspace_for(int dev, cudaStream_t stream)
{
  if (ws_cache.entry && ws_cache.device == dev && ws_cache.stream == stream) return ws_cache.entry;
  const int per_thread = stream == cudaStreamPerThread;
  const pthread_t self = pthread_self();
  pthread_mutex_lock(&cache_lock);
  ws_entry *w;
  for (w = workspaces; w; w = w->next)
    if (w->device == dev && w->stream == stream && (!per_thread || pthread_equal(w->thread, self))) break;
  if (!w && (w = calloc(1, sizeof *w))) {
    w->device = dev;
    w->stream = stream;
    w->thread = self;
    pthread_mutex_init(&w->lock, NULL);
    w->next = workspaces;
    workspaces = w;
  }
  pthread_mutex_unlock(&cache_lock);
  if (w) ws_cache.device = dev, ws_cache.stream = stream, ws_cache.entry = w;
  return w;
}

/* Frees the workspaces when the library is unloaded (dlclose, or exit while
 * the CUDA runtime is still there). */
/* The wisdom files read (host memory only). */
static void wisdom_unload(void)
{
#ifdef SYMV_WISDOM_LIB
  for (int i = 0; i < nwfiles; i++) {
    symv_wisdom_free(&wfiles[i].w);
    free(wfiles[i].cands), free(wfiles[i].rules), free(wfiles[i].path);
    memset(&wfiles[i], 0, sizeof wfiles[i]);
  }
  nwfiles = nwaccepted = 0;
#endif
}

__attribute__((destructor)) static void symv_unload(void)
{
  int cur, used = workspaces != NULL;
  for (int i = 0; i < SYMV_MAX_DEVICES; i++) used |= devices[i].state != 0;
  if (!used) {
    wisdom_unload();
    return; /* never called: no reason to wake the CUDA runtime */
  }
  if (cudaGetDevice(&cur) != cudaSuccess) return; /* runtime gone: the driver reclaims */
  for (ws_entry *w = workspaces, *next; w; w = next) {
    next = w->next;
    if (cudaSetDevice(w->device) == cudaSuccess) symv_workspace_free(&w->ws);
    pthread_mutex_destroy(&w->lock);
    free(w);
  }
  workspaces = NULL;
  ws_cache.entry = NULL;
  cudaSetDevice(cur);
  for (int i = 0; i < SYMV_MAX_DEVICES; i++) {
#ifdef SYMV_WISDOM_LIB
    /* the kernels NVRTC compiled were loaded as libraries of their own */
    for (int c = 0; devices[i].kst && c < devices[i].wf->view.ncands; c++)
      if (devices[i].kst[c] == 1) symv_kernel_unload(&devices[i].k[c]);
    free(devices[i].kst), free(devices[i].kwhy);
#endif
    free(devices[i].k), free(devices[i].ok);
    memset(&devices[i], 0, sizeof devices[i]);
  }
  cudaGetLastError();
  wisdom_unload();
}

/* Names of the arguments by their position in the BLAS call, for the log. */
static const char *arg_name(int pos)
{
  switch (pos) {
  case 1: return "uplo";
  case 2: return "n";
  case 5: return "lda";
  case 7: return "incx";
  case 10: return "incy";
  default: return "?";
  }
}

/* Rule r as "rule n A..B" in buf ("deterministic rule n A..B" for one of
 * the deterministic set, which handles in the default atomics mode get). */
static const char *rule_text(const symv_table_rule *r, int deterministic, char *buf, size_t len)
{
  snprintf(buf, len, "%srule n %d..%d", deterministic ? "deterministic " : "", r->n_start, r->n_end);
  return buf;
}

/* One call of routine ro with the cuBLAS arguments (scalars and data of
 * its type); what served it and why into *note when note is non-NULL (the
 * log is on). */
static cublasStatus_t dispatch(symv_routine ro, cublasHandle_t handle, cublasFillMode_t uplo, int n,
                               const void *alpha, const void *A, int lda, const void *x, int incx, const void *beta,
                               void *y, int incy, call_note *note)
{
  last_kernel = "";
  if (!handle) {
    NOTE(note, "none", "argument error: NULL handle");
    return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  const char u = uplo == CUBLAS_FILL_MODE_LOWER ? 'L' : uplo == CUBLAS_FILL_MODE_UPPER ? 'U' : 0;
  /* reference BLAS wants lda >= max(1, n); cuBLAS accepts lda = 0 when n = 0 */
  int bad = u ? symv_check_args(u, n, n == 0 && lda == 0 ? 1 : lda, incx, incy) : 1;
  if (bad) {
    NOTE(note, "none", "argument error: argument %d (%s)", bad, arg_name(bad));
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  if (n == 0) {
    NOTE(note, "none", "n = 0: nothing to do");
    return CUBLAS_STATUS_SUCCESS;
  }
  if (!alpha || !beta) {
    NOTE(note, "none", "argument error: NULL %s", !alpha ? "alpha" : "beta");
    return CUBLAS_STATUS_INVALID_VALUE;
  }

  /* the handle's atomics mode picks the rule set: its default,
   * CUBLAS_ATOMICS_NOT_ALLOWED, promises bitwise reproducible results, which
   * only the deterministic rules keep */
  cublasAtomicsMode_t atomics;
  cublasStatus_t ast = cublasGetAtomicsMode(handle, &atomics);
  if (ast != CUBLAS_STATUS_SUCCESS) {
    NOTE(note, "none", "cublasGetAtomicsMode failed");
    return ast;
  }
  const int det = atomics != CUBLAS_ATOMICS_ALLOWED;
  char rt[64];
  int dev = -1;
#ifdef SYMV_WISDOM_LIB
  /* the rules are those of the device's wisdom file */
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    if (note) note->wisdom = "none";
    NOTE(note, "cuBLAS", "fallback: no current CUDA device");
    return call_cublas(ro, CUBLAS_WAY_AS_CALLED, handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy, note);
  }
  const rules_view *v = wisdom_view(dev, note);
  if (!v) return call_cublas(ro, CUBLAS_WAY_AS_CALLED, handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy, note);
#else
  pthread_once(&builtin_once, builtin_init);
  const rules_view *v = &builtin;
#endif
  const symv_table_rule *r = rule_for(v, ro, det, n);
  if (!r) { /* not tuned (for this atomics mode) */
    NOTE(note, "cuBLAS", "untuned routine: the %s had no %sfit of %s", v->path ? "wisdom file" : "database",
         det ? "deterministic " : "", symv_routine_name(ro));
    return call_cublas(ro, CUBLAS_WAY_AS_CALLED, handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy, note);
  }
  /* cuBLAS in the mode the rule names, the mode its curve was measured in:
   * a handle that allowed atomics must not turn "cuBLAS" into cuBLAS's
   * atomics path, nor the default mode "cuBLAS with atomics" into the other */
  if (r->kernel < 0) {
    const int with_atomics = r->kernel == SYMV_RULE_CUBLAS_ATOMICS;
    NOTE(note, with_atomics ? "cuBLAS with atomics" : "cuBLAS", "%s", rule_text(r, det, rt, sizeof rt));
    return call_cublas(ro, with_atomics ? CUBLAS_WAY_ATOMICS : CUBLAS_WAY_NO_ATOMICS, handle, uplo, n, alpha, A, lda,
                       x, incx, beta, y, incy, note);
  }
  const symv_kernel *k = NULL;
#ifdef SYMV_WISDOM_LIB
  k = kernel_for(v, dev, r->kernel, note);
#else
  if (cudaGetDevice(&dev) == cudaSuccess) {
    k = kernel_for(v, dev, r->kernel, note);
  } else {
    cudaGetLastError();
    NOTE(note, "cuBLAS", "fallback: no current CUDA device");
  }
#endif
  if (!k) return call_cublas(ro, CUBLAS_WAY_AS_CALLED, handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy, note);

  cudaStream_t stream;
  cublasPointerMode_t mode;
  cublasStatus_t st;
  if ((st = cublasGetStream(handle, &stream)) != CUBLAS_STATUS_SUCCESS) return st;
  if (family_counts_calls(k->p.family) && symv_stream_capturing(stream) != 0) { /* capturing, or cannot tell */
    /* (only 'any' rules name these families: the handle allowed atomics) */
    NOTE(note, det ? "cuBLAS" : "cuBLAS with atomics", "stream capture: %s counts calls on the host (%s)",
         v->cands[r->kernel].name, rule_text(r, det, rt, sizeof rt));
    return call_cublas(ro, det ? CUBLAS_WAY_AS_CALLED : CUBLAS_WAY_ATOMICS, handle, uplo, n, alpha, A, lda, x, incx,
                       beta, y, incy, note);
  }
  NOTE(note, v->cands[r->kernel].name, "%s", rule_text(r, det, rt, sizeof rt));
  if ((st = cublasGetPointerMode(handle, &mode)) != CUBLAS_STATUS_SUCCESS) return st;
  ws_entry *w = workspace_for(dev, stream);
  if (!w) return CUBLAS_STATUS_ALLOC_FAILED;
  pthread_mutex_lock(&w->lock);
  int rc = symv_launch(k, &w->ws, stream, u, n, alpha, A, lda, x, incx, beta, y, incy,
                       mode == CUBLAS_POINTER_MODE_DEVICE, NULL);
  pthread_mutex_unlock(&w->lock);
  switch (rc) {
  case 0: last_kernel = v->cands[r->kernel].name; return st;
  case SYMV_INVALID_VALUE: return CUBLAS_STATUS_INVALID_VALUE;
  case SYMV_CUDA: return CUBLAS_STATUS_ALLOC_FAILED;
  case SYMV_LAUNCH: return CUBLAS_STATUS_EXECUTION_FAILED;
  default: return CUBLAS_STATUS_INTERNAL_ERROR;
  }
}

/* A call through either entry point: dispatch, and one line of log when
 * SYMV_LOG asks for it. */
static cublasStatus_t symv_call(symv_routine ro, cublasHandle_t handle, cublasFillMode_t uplo, int n,
                                const void *alpha, const void *A, int lda, const void *x, int incx, const void *beta,
                                void *y, int incy)
{
  pthread_once(&log_once, log_init);
  if (!log_out) return dispatch(ro, handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy, NULL);
  call_note note = {"none", "", NULL};
  cublasStatus_t st = dispatch(ro, handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy, &note);
  log_call(ro, uplo, n, lda, incx, incy, &note, st);
  return st;
}

/* The two entry points of each routine: libsymv's own (symvZhemv) and the
 * cuBLAS one (cublasZhemv_v2), which a program linked with -lsymv before
 * -lcublas, or run with LD_PRELOAD=libsymv.so, calls. One line per routine
 * of the registry (core/routine.h: its names and scalar type). */
#define SYMV_ENTRY_POINTS(R, API, CUBLAS, T)                                                                      \
  SYMV_API cublasStatus_t API(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *alpha, const T *A,    \
                              int lda, const T *x, int incx, const T *beta, T *y, int incy)                       \
  {                                                                                                               \
    return symv_call(R, handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy);                                 \
  }                                                                                                               \
  SYMV_API cublasStatus_t CUBLASWINAPI CUBLAS(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T *alpha, \
                                              const T *A, int lda, const T *x, int incx, const T *beta, T *y,     \
                                              int incy)                                                           \
  {                                                                                                               \
    return symv_call(R, handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy);                                 \
  }
SYMV_ENTRY_POINTS(SYMV_SSYMV, symvSsymv, cublasSsymv_v2, float)
SYMV_ENTRY_POINTS(SYMV_DSYMV, symvDsymv, cublasDsymv_v2, double)
SYMV_ENTRY_POINTS(SYMV_CSYMV, symvCsymv, cublasCsymv_v2, cuComplex)
SYMV_ENTRY_POINTS(SYMV_ZSYMV, symvZsymv, cublasZsymv_v2, cuDoubleComplex)
SYMV_ENTRY_POINTS(SYMV_CHEMV, symvChemv, cublasChemv_v2, cuComplex)
SYMV_ENTRY_POINTS(SYMV_ZHEMV, symvZhemv, cublasZhemv_v2, cuDoubleComplex)

/* Ours, so that find_real never takes one of them for the real routine. */
static const void *const own_fn[SYMV_ROUTINE_COUNT][2] = {
    [SYMV_SSYMV] = {(const void *)symvSsymv, (const void *)cublasSsymv_v2},
    [SYMV_DSYMV] = {(const void *)symvDsymv, (const void *)cublasDsymv_v2},
    [SYMV_CSYMV] = {(const void *)symvCsymv, (const void *)cublasCsymv_v2},
    [SYMV_ZSYMV] = {(const void *)symvZsymv, (const void *)cublasZsymv_v2},
    [SYMV_CHEMV] = {(const void *)symvChemv, (const void *)cublasChemv_v2},
    [SYMV_ZHEMV] = {(const void *)symvZhemv, (const void *)cublasZhemv_v2},
};

SYMV_API const char *symvLastKernel(void) { return last_kernel; }

/* The public routine numbers of symvInfo.rules (symv.h) in the registry's
 * order. */
static const symv_routine info_routine[SYMV_INFO_ROUTINES] = {
    [SYMV_INFO_SSYMV] = SYMV_SSYMV, [SYMV_INFO_DSYMV] = SYMV_DSYMV, [SYMV_INFO_CSYMV] = SYMV_CSYMV,
    [SYMV_INFO_ZSYMV] = SYMV_ZSYMV, [SYMV_INFO_CHEMV] = SYMV_CHEMV, [SYMV_INFO_ZHEMV] = SYMV_ZHEMV,
};

#define SYMV_STR_(x) #x
#define SYMV_STR(x) SYMV_STR_(x)

/* What v carries, into info's rule fields. */
static void info_rules(symvInfo *info, const rules_view *v)
{
  info->tuned_gpu = v->info->name;
  info->tuned_cc_major = v->info->cc_major;
  info->tuned_cc_minor = v->info->cc_minor;
  info->tuned_sm_count = v->info->sm_count;
  info->arch = v->info->arch;
  for (int i = 0; i < SYMV_INFO_ROUTINES; i++) {
    const symv_table_routine *t = &v->routines[info_routine[i]];
    info->rules[i] = t->count;
    info->det_rules[i] = t->det_count;
    if (t->count > 0) {
      info->n_lo[i] = v->rules[t->first].n_start;
      info->n_hi[i] = v->rules[t->first + t->count - 1].n_end;
    }
  }
  info->candidates = v->ncands;
}

#undef symvGetInfo /* symv.h maps it to symvGetInfo_v2; the old entry point is defined below */

SYMV_API cublasStatus_t symvGetInfo_v2(symvInfo *info)
{
  if (!info) return CUBLAS_STATUS_INVALID_VALUE;
  memset(info, 0, sizeof *info);
  info->version_major = SYMV_VERSION_MAJOR;
  info->version_minor = SYMV_VERSION_MINOR;
  info->version_patch = SYMV_VERSION_PATCH;
  info->version = SYMV_STR(SYMV_VERSION_MAJOR) "." SYMV_STR(SYMV_VERSION_MINOR) "." SYMV_STR(SYMV_VERSION_PATCH);
  info->device = -1;
  info->device_matched = -1;
#ifdef SYMV_WISDOM_LIB
  /* the rules are those of the wisdom file the current device matches, if any */
  static const symv_table_info none = {"", 0, 0, 0, ""};
  info->tuned_gpu = none.name, info->arch = none.arch;
  info->wisdom = 1;
  pthread_once(&wisdom_once, wisdom_load);
  info->wisdom_files = nwfiles;
  info->wisdom_accepted = nwaccepted;
  info->wisdom_report = wisdom_report;
  info->wisdom_dir = wisdom_system;
  int dev;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return CUBLAS_STATUS_SUCCESS;
  }
  info->device = dev;
  const rules_view *v = wisdom_view(dev, NULL); /* reads the files and matches; compiles nothing */
  info->device_matched = v != NULL || (dev >= 0 && dev < SYMV_MAX_DEVICES && devices[dev].why == WHY_NO_MEMORY);
  if (v) {
    info_rules(info, v);
    info->wisdom_matched = v->path;
  }
#else
  pthread_once(&builtin_once, builtin_init);
  info_rules(info, &builtin);
  info->wisdom_report = "";
  info->wisdom_dir = "";
  /* the current device, looked at as a call would (without preparing its kernels) */
  int dev;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return CUBLAS_STATUS_SUCCESS;
  }
  info->device = dev;
  int state = dev >= 0 && dev < SYMV_MAX_DEVICES ? __atomic_load_n(&devices[dev].state, __ATOMIC_ACQUIRE) : 0;
  if (state != 0) {
    info->device_matched = state == 1 || devices[dev].why == WHY_NO_MEMORY;
  } else {
    symv_device_info d;
    if (symv_device_query(dev, &d) == 0) info->device_matched = device_is_tuned(&d);
    else cudaGetLastError();
  }
#endif
  return CUBLAS_STATUS_SUCCESS;
}

/* The entry point of programs built against symv.h 0.1, whose symvInfo
 * ends at device_matched: that much is filled, nothing beyond. */
SYMV_API cublasStatus_t symvGetInfo(symvInfo *info)
{
  if (!info) return CUBLAS_STATUS_INVALID_VALUE;
  symvInfo full;
  cublasStatus_t st = symvGetInfo_v2(&full);
  memcpy(info, &full, offsetof(symvInfo, wisdom));
  return st;
}
