/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libsymv.c - the runtime of the generated library (symv.h): dispatch of
 * each of the six routines (SSYMV, DSYMV, CSYMV, ZSYMV, CHEMV, ZHEMV;
 * core/routine.h) by n through the rules of the library's source
 * (lib/source.h: the table compiled in, lib/source_table.c, or the wisdom
 * files read at run time, lib/source_wisdom.c), the kernels it prepares,
 * and cuBLAS for the rest.
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
 * Sources. A library links one source of rules (lib/source.h), chosen by
 * `symvtune build` (libgen/nvcc.c): the table compiled in, for the GPU it
 * was tuned on, with its kernels compiled in by nvcc; or, built with
 * --wisdom, no rules and no compiled kernels, but the wisdom files read at
 * run time, each device taking the file of its GPU model and compiling its
 * kernels with NVRTC on first use (lib/source_wisdom.c says how).
 *
 * Fallback. A device the source has no rules for (its name, compute
 * capability or SM count not the tuned GPU's; no wisdom file of it), or a
 * candidate that cannot be prepared there (its MULTIPLICITY not achieved,
 * its registers not the tuner's, say), is served by the real cuBLAS routine,
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
 * nothing on the host between calls and are captured as they are, but for
 * pipe_fx's epoch, which a replay may repeat: its blocks then only do
 * without one another's help (kernels/symv_pipe_fx.cu).
 *
 * Log. With SYMV_LOG set (and not "0"), the library first writes its
 * identity line ("libsymv: symvtune-rules: ...", symvInfo.identity), and
 * then every call writes one line: the
 * routine and its arguments n, uplo, lda, incx, incy, what served it (a
 * kernel's name, cuBLAS, cuBLAS with atomics, or nothing), why (the rule's
 * n range, an untuned routine, an argument error, a fallback's reason) and
 * the status returned, and in a --wisdom library the wisdom file whose rules
 * served it (" wisdom=PATH", or " wisdom=none" when no file matches the
 * device); to stderr, or to the file SYMV_LOG_FILE names
 * (appended; "stdout" and "stderr" name those). A file that cannot be
 * opened, or is neither a regular file nor a character device (a terminal,
 * /dev/null; a FIFO is refused, opened without waiting for a reader), is
 * told in one line on stderr, and the log goes to stderr. The environment
 * is read once, on the first call (pthread_once); each line is written
 * whole.
 *
 * Thread safety. One mutex (libsymv_lock) guards the caches: per device,
 * whether it is covered and its prepared kernels (made once, on the
 * device's first call or the kernel's first use, and read without the lock
 * afterwards: the state is published last, with release/acquire ordering);
 * per (device, stream) a workspace (gpu.h), created on first use, grown as
 * n grows, reused by every later call on that stream and freed when the
 * library is unloaded (destructor; at process exit the CUDA runtime may be
 * gone first, and then the driver reclaims them). Each thread remembers its last workspace, so the usual
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
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gpu.h"
#include "libsymv_table.h"
#include "routine.h"
#include "source.h"
#include "symv.h"
#include "symv_error.h"
#include <limits.h>

/* The cuBLAS prototype of the six routines, with the routine's scalar type
 * behind each pointer (cuComplex, cuDoubleComplex: pairs of reals). */
typedef cublasStatus_t (*symv_fn)(cublasHandle_t, cublasFillMode_t, int, const void *, const void *, int,
                                  const void *, int, const void *, void *, int);

/* The workspace of one (device, stream[, thread]). */
typedef struct ws_entry {
  int device;             /* CUDA device ordinal */
  cudaStream_t stream;    /* the handle's stream */
  pthread_t thread;       /* owner, for cudaStreamPerThread only */
  pthread_mutex_t lock;   /* held while a call uses ws */
  symv_workspace ws;      /* gpu.h */
  struct ws_entry *next;
} ws_entry;

pthread_mutex_t libsymv_lock = PTHREAD_MUTEX_INITIALIZER;
static libsymv_device devices[LIBSYMV_MAX_DEVICES];
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

void libsymv_notice(const char *fmt, ...)
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

/* The file at path opened for appending (created if absent), if it is a
 * regular file or a character device (a terminal, /dev/null); else NULL
 * with why (len bytes) said. Opened without blocking, so that a FIFO with
 * no reader is refused at once instead of holding the call; the stream
 * then blocks as usual. */
static FILE *log_open(const char *path, char *why, size_t len)
{
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
  struct stat st;
  if (fd < 0 && errno != ENXIO) return snprintf(why, len, "%s", strerror(errno)), NULL;
  if (fd < 0 || fstat(fd, &st) || (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))) { /* ENXIO: a FIFO, no reader */
    if (fd >= 0) close(fd);
    return snprintf(why, len, "not a regular file or a terminal"), NULL;
  }
  int flags = fcntl(fd, F_GETFL);
  FILE *f = flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) ? NULL : fdopen(fd, "a");
  if (!f) {
    snprintf(why, len, "%s", strerror(errno));
    close(fd);
  }
  return f;
}

/* Reads SYMV_LOG and SYMV_LOG_FILE, once, and writes the identity line
 * into the log. A file that cannot be opened, or is not a regular file or
 * a terminal, is told on stderr (one line), and the log goes to stderr
 * instead. */
static void log_init(void)
{
  const char *on = getenv("SYMV_LOG"), *path = getenv("SYMV_LOG_FILE");
  char why[256];
  if (!on || !*on || !strcmp(on, "0")) return;
  if (!path || !*path || !strcmp(path, "stderr")) {
    log_out = stderr;
  } else if (!strcmp(path, "stdout")) {
    log_out = stdout;
  } else if (!(log_out = log_open(path, why, sizeof why))) {
    fprintf(stderr, "libsymv: SYMV_LOG_FILE %s: %s; logging to stderr\n", path, why);
    log_out = stderr;
  }
  fprintf(log_out, "libsymv: %s\n", symv_table_id.line); /* the first line: which library logs */
  fflush(log_out);
}

FILE *libsymv_log(void)
{
  pthread_once(&log_once, log_init);
  return log_out;
}

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
                     const libsymv_note *note, cublasStatus_t st)
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
                                  const void *beta, void *y, int incy, libsymv_note *note)
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
      libsymv_notice("cannot find the real %s (%s): calls bound for cuBLAS fail", symv_routine_get(r)->cublas, real_why[r]);
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
static const symv_table_rule *rule_for(const libsymv_rules *v, symv_routine ro, int deterministic, int n)
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

/* Looks at device dev on its first call: the source's rules opened, the
 * device queried and the source's setup; sets e->why, and e->state last.
 * Called with libsymv_lock held. */
static void device_setup(int dev, libsymv_device *e)
{
  symv_device_info d;
  libsymv_rules_source.open();
  int rc = symv_device_query(dev, &d), why = LIBSYMV_WHY_QUERY;
  if (rc)
    libsymv_notice("device %d cannot be queried (%s %s): its calls go to cuBLAS", dev, symv_strerror(rc),
                   symv_cuda_error_text());
  else if ((why = libsymv_rules_source.setup(dev, &d, e)) == LIBSYMV_WHY_NO_MEMORY)
    libsymv_notice("out of memory preparing device %d: its calls go to cuBLAS", dev);
  e->why = why;
  __atomic_store_n(&e->state, why == LIBSYMV_WHY_NONE ? 1 : -1, __ATOMIC_RELEASE); /* k and ok are complete */
}

libsymv_device *libsymv_device_of(int dev, int *state, libsymv_note *note)
{
  if (dev < 0 || dev >= LIBSYMV_MAX_DEVICES) {
    NOTE(note, "cuBLAS", "fallback: device %d is beyond the %d this library keeps", dev, LIBSYMV_MAX_DEVICES);
    return NULL;
  }
  libsymv_device *e = &devices[dev];
  int st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
  if (st == 0) { /* first call on this device */
    pthread_mutex_lock(&libsymv_lock);
    if (e->state == 0) device_setup(dev, e);
    st = e->state;
    pthread_mutex_unlock(&libsymv_lock);
  }
  *state = st;
  return e;
}

int libsymv_device_matched(int dev)
{
  if (dev < 0 || dev >= LIBSYMV_MAX_DEVICES) return -1;
  int state = __atomic_load_n(&devices[dev].state, __ATOMIC_ACQUIRE);
  if (state == 0) return -1;
  return state == 1 || devices[dev].why == LIBSYMV_WHY_NO_MEMORY;
}

int libsymv_current_device(int *dev, libsymv_note *note)
{
  if (cudaGetDevice(dev) == cudaSuccess) return 0;
  cudaGetLastError();
  NOTE(note, "cuBLAS", "fallback: no current CUDA device");
  return -1;
}

void libsymv_device_fallback(int dev, const libsymv_device *e, const char *unmatched, libsymv_note *note)
{
  NOTE(note, "cuBLAS", "fallback: device %d %s", dev,
       e->why == LIBSYMV_WHY_UNMATCHED   ? unmatched
       : e->why == LIBSYMV_WHY_NO_MEMORY ? "could not be prepared (out of memory)"
                                         : "cannot be queried");
}

int libsymv_device_alloc(libsymv_device *e, int ncands)
{
  const size_t nc = ncands > 0 ? (size_t)ncands : 1;
  e->k = calloc(nc, sizeof *e->k);
  e->ok = calloc(nc, 1);
  if (e->k && e->ok) return 0;
  free(e->k), free(e->ok);
  e->k = NULL, e->ok = NULL;
  return -1;
}

/* The workspace of (dev, stream), created on first use; NULL if out of
 * memory. Entries live until the library is unloaded. */
static ws_entry *workspace_for(int dev, cudaStream_t stream)
{
  if (ws_cache.entry && ws_cache.device == dev && ws_cache.stream == stream) return ws_cache.entry;
  const int per_thread = stream == cudaStreamPerThread;
  const pthread_t self = pthread_self();
  pthread_mutex_lock(&libsymv_lock);
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
  pthread_mutex_unlock(&libsymv_lock);
  if (w) ws_cache.device = dev, ws_cache.stream = stream, ws_cache.entry = w;
  return w;
}

/* Frees the workspaces and the devices' kernels when the library is
 * unloaded (dlclose, or exit while the CUDA runtime is still there), and
 * the source's rules. */
__attribute__((destructor)) static void symv_unload(void)
{
  int cur, used = workspaces != NULL;
  for (int i = 0; i < LIBSYMV_MAX_DEVICES; i++) used |= devices[i].state != 0;
  if (!used) {
    libsymv_rules_source.close();
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
  for (int i = 0; i < LIBSYMV_MAX_DEVICES; i++) {
    libsymv_rules_source.release(i, &devices[i]);
    free(devices[i].k), free(devices[i].ok);
    memset(&devices[i], 0, sizeof devices[i]);
  }
  cudaGetLastError();
  libsymv_rules_source.close();
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
                               void *y, int incy, libsymv_note *note)
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
  int dev = -1; /* the current device, once looked at */
  const libsymv_rules *v = libsymv_rules_source.rules(&dev, note);
  if (!v) return call_cublas(ro, CUBLAS_WAY_AS_CALLED, handle, uplo, n, alpha, A, lda, x, incx, beta, y, incy, note);
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
  if (dev >= 0 || libsymv_current_device(&dev, note) == 0) k = libsymv_rules_source.kernel(v, dev, r->kernel, note);
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
  libsymv_note note = {"none", "", NULL};
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

/* What v carries, into info's rule fields (source.h). */
void libsymv_info_rules(symvInfo *info, const libsymv_rules *v)
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

#undef symvGetInfo /* symv.h maps it to symvGetInfo_v3; the older entry points are defined below */

SYMV_API cublasStatus_t symvGetInfo_v3(symvInfo *info)
{
  if (!info) return CUBLAS_STATUS_INVALID_VALUE;
  memset(info, 0, sizeof *info);
  info->version_major = SYMV_VERSION_MAJOR;
  info->version_minor = SYMV_VERSION_MINOR;
  info->version_patch = SYMV_VERSION_PATCH;
  info->version = SYMV_STR(SYMV_VERSION_MAJOR) "." SYMV_STR(SYMV_VERSION_MINOR) "." SYMV_STR(SYMV_VERSION_PATCH);
  info->symvtune_version = symv_table_id.symvtune_version;
  info->cuda_major = CUDART_VERSION / 1000;
  info->identity = symv_table_id.line;
  info->rules_id = info->fits = "";
  info->device_matched = -1;
  int dev;
  if (libsymv_current_device(&dev, NULL)) dev = -1;
  info->device = dev;
  libsymv_rules_source.info(info, dev);
  return CUBLAS_STATUS_SUCCESS;
}

/* symvGetInfo_v3 into a symvInfo of an older symv.h, which ends `size`
 * bytes in: that much is filled, nothing beyond. */
static cublasStatus_t info_of_size(symvInfo *info, size_t size)
{
  if (!info) return CUBLAS_STATUS_INVALID_VALUE;
  symvInfo full;
  cublasStatus_t st = symvGetInfo_v3(&full);
  memcpy(info, &full, size);
  return st;
}

/* The entry point of programs built against the symv.h whose symvInfo
 * ends at wisdom_dir. */
SYMV_API cublasStatus_t symvGetInfo_v2(symvInfo *info)
{
  return info_of_size(info, offsetof(symvInfo, symvtune_version));
}

/* The entry point of programs built against symv.h 0.1, whose symvInfo
 * ends at device_matched. */
SYMV_API cublasStatus_t symvGetInfo(symvInfo *info) { return info_of_size(info, offsetof(symvInfo, wisdom)); }
