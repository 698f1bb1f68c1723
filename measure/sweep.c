/* SPDX-License-Identifier: BSD-3-Clause */
/* sweep.c - worker processes and the resumable measuring loop (sweep.h). */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../sieve/sieve.h"
#include "compile.h"
#include "sweep.h"
#include "sweep_stage.h"
#include "routine.h"
#include "symv_error.h"
#include "worker.h"

/* ---- the worker process ------------------------------------------------- */

static int worker_send(sweep_worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int worker_send(sweep_worker *w, const char *fmt, ...)
{
  char line[16384];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (len < 0 || len >= (int)sizeof line - 1) return SYMV_INVALID_VALUE;
  line[len++] = '\n';
  for (int off = 0; off < len;) {
    ssize_t k = write(w->to, line + off, (size_t)(len - off));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return SYMV_IO;
    off += (int)k;
  }
  return 0;
}

/* Lines of a worker that are already read, without waiting: 1 and the line
 * in out when there is one, else 0. */
static int worker_take_line(sweep_worker *w, char *out, size_t outlen)
{
  char *nl = memchr(w->buf, '\n', w->len);
  if (!nl) return 0;
  size_t k = (size_t)(nl - w->buf);
  size_t c = k < outlen - 1 ? k : outlen - 1;
  memcpy(out, w->buf, c);
  out[c] = 0;
  memmove(w->buf, nl + 1, w->len - k - 1);
  w->len -= k + 1;
  return 1;
}

/* One read of what the worker has written (call when poll says so).
 * Returns 0, or SYMV_IO at end of file (the worker is gone). */
static int worker_fill(sweep_worker *w)
{
  if (w->len == sizeof w->buf) w->len = 0; /* an absurdly long line: drop it */
  ssize_t k = read(w->from, w->buf + w->len, sizeof w->buf - w->len);
  if (k < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
  if (k <= 0) return SYMV_IO;
  w->len += (size_t)k;
  return 0;
}

/* Next line from the worker into out (without the newline). Returns 0, or
 * SYMV_TIMEOUT after timeout_s seconds without a line, SYMV_IO at end of
 * file, SYMV_INTERRUPTED when *interrupted is set. */
static int worker_line(sweep_worker *w, char *out, size_t outlen, double timeout_s, volatile int *interrupted)
{
  double deadline = symv_now() + timeout_s;
  for (;;) {
    if (worker_take_line(w, out, outlen)) return 0;
    if (interrupted && *interrupted) return SYMV_INTERRUPTED;
    double left = deadline - symv_now();
    if (left <= 0) return SYMV_TIMEOUT;
    struct pollfd pfd = {w->from, POLLIN, 0};
    int r = poll(&pfd, 1, left > 0.25 ? 250 : (int)(left * 1000) + 1);
    if (r < 0 && errno != EINTR) return SYMV_IO;
    if (r > 0 && worker_fill(w)) return SYMV_IO;
  }
}

void sweep_worker_stop(sweep_worker *w)
{
  if (w->pid <= 0) return;
  worker_send(w, "quit");
  close(w->to);
  close(w->from);
  for (int i = 0; i < 50; i++) { /* up to 0.5 s to leave on its own */
    if (waitpid(w->pid, NULL, WNOHANG) == w->pid) {
      w->pid = 0;
      return;
    }
    usleep(10000);
  }
  kill(w->pid, SIGKILL);
  waitpid(w->pid, NULL, 0);
  w->pid = 0;
}

int sweep_worker_start(sweep_worker *w, const sweep_opts *o)
{
  int in[2], out[2];
  char self[4096];
  const char *exe = getenv("SYMVTUNE_WORKER");
  if (!exe) {
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) return SYMV_IO;
    self[k] = 0;
    exe = self;
  }
  if (pipe(in) || pipe(out)) return SYMV_IO;
  pid_t pid = fork();
  if (pid < 0) return SYMV_IO;
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    signal(SIGINT, SIG_IGN); /* the parent decides when to stop */
    execl(exe, exe, "worker", (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  signal(SIGPIPE, SIG_IGN);
  w->pid = pid, w->to = in[1], w->from = out[0], w->len = 0, w->device = o->device;
  char line[1024];
  if (worker_send(w, "init %d %c %d %d %g %s", o->device, o->uplo, o->hot, o->batches, o->tol,
                  symv_routine_name(o->routine)))
    goto fail;
  for (;;) {
    int rc = worker_line(w, line, sizeof line, 120, NULL);
    if (rc) goto fail;
    if (!strncmp(line, "device ", 7)) {
      symv_device_info *d = &w->dev;
      int used = 0;
      memset(d, 0, sizeof *d);
      if (sscanf(line + 7, "%d %d %d %zu %d %d %zu %zu %d %d %d %d %d %zu %d %zu %n", &d->cc_major, &d->cc_minor,
                 &d->sm_count, &d->l2_bytes, &d->mem_clock_khz, &d->bus_width_bits, &d->smem_per_sm,
                 &d->smem_per_block_optin, &d->regs_per_sm, &d->max_blocks_per_sm, &d->max_threads_per_sm,
                 &d->driver_version, &d->runtime_version, &d->global_mem, &d->max_threads_per_block,
                 &d->smem_reserved_per_block, &used) < 16)
        goto fail;
      snprintf(d->name, sizeof d->name, "%s", line + 7 + used);
    } else if (!strncmp(line, "copy ", 5)) {
      w->copy_gbs = atof(line + 5);
    } else if (!strcmp(line, "ok")) {
      return 0;
    } else if (!strncmp(line, "error", 5)) {
      fprintf(stderr, "symvtune: worker: %s\n", line);
      sweep_worker_stop(w);
      return SYMV_NO_DEVICE;
    }
  }
fail:
  sweep_worker_stop(w);
  return SYMV_IO;
}

void sweep_device_fingerprint(const sweep_worker *w, db_device *out)
{
  sweep_fingerprint_of(&w->dev, w->copy_gbs, out);
}

void sweep_fingerprint_of(const symv_device_info *d, double copy_gbs, db_device *out)
{
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", d->name);
  out->cc_major = d->cc_major, out->cc_minor = d->cc_minor, out->sm_count = d->sm_count;
  out->l2_bytes = (long long)d->l2_bytes;
  out->mem_clock_khz = d->mem_clock_khz, out->bus_width_bits = d->bus_width_bits;
  out->smem_per_sm = (int)d->smem_per_sm, out->smem_per_block_optin = (int)d->smem_per_block_optin;
  out->regs_per_sm = d->regs_per_sm, out->max_blocks_per_sm = d->max_blocks_per_sm;
  out->max_threads_per_sm = d->max_threads_per_sm;
  out->driver_version = d->driver_version, out->runtime_version = d->runtime_version;
  int nv = symv_nvrtc_version();
  out->nvrtc_major = nv / 1000, out->nvrtc_minor = nv % 1000 / 10;
  out->copy_gbs = copy_gbs;
}

void sweep_limits_of(const db_device *fp, symv_device_info *d)
{
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "%s", fp->name);
  d->cc_major = fp->cc_major, d->cc_minor = fp->cc_minor, d->sm_count = fp->sm_count;
  d->l2_bytes = fp->l2_bytes > 0 ? (size_t)fp->l2_bytes : 0;
  d->mem_clock_khz = fp->mem_clock_khz, d->bus_width_bits = fp->bus_width_bits;
  d->smem_per_sm = fp->smem_per_sm > 0 ? (size_t)fp->smem_per_sm : 0;
  d->smem_per_block_optin = fp->smem_per_block_optin > 0 ? (size_t)fp->smem_per_block_optin : 0;
  d->regs_per_sm = fp->regs_per_sm, d->max_blocks_per_sm = fp->max_blocks_per_sm;
  d->max_threads_per_sm = fp->max_threads_per_sm;
  d->driver_version = fp->driver_version, d->runtime_version = fp->runtime_version;
}

/* "meas N MEDIAN MIN MAX BATCHES CALLS RESID" */
static int parse_meas(const char *line, symv_routine ro, db_measurement *m, char uplo, int hot, db_stage stage)
{
  memset(m, 0, sizeof *m);
  if (sscanf(line, "meas %d %lf %lf %lf %d %d %lf", &m->n, &m->median_us, &m->min_us, &m->max_us, &m->batches,
             &m->calls_per_batch, &m->residual) != 7 || m->n < 1 || !(m->median_us > 0))
    return SYMV_IO;
  m->uplo = uplo, m->hot = hot, m->stage = stage;
  m->gflops = symv_gflops(ro, m->n, m->median_us);
  m->gbs = symv_gbs(ro, m->n, m->median_us);
  return 0;
}

static const char *const baseline_names[2] = {"cublas", "cublas_atomics"};

/* cuBLAS mode b (0 atomics off, 1 on) at the sizes not yet in the
 * database, measured by w and stored as they come. */
static int baseline_mode(db *d, sweep_worker *w, const sweep_opts *o, const int *ns, int nsizes, db_stage stage, int b)
{
  char list[8192] = "";
  int len = 0, missing = 0;
  for (int i = 0; i < nsizes; i++) {
    int found = 0;
    if (db_has_baseline(d, o->routine, baseline_names[b], ns[i], o->uplo, o->hot, stage, &found)) return SYMV_DB;
    if (found) continue;
    len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", missing++ ? "," : "", ns[i]);
  }
  if (!missing) return 0;
  if (worker_send(w, "base %s %s %s", baseline_names[b], db_stage_name(stage), list)) return SYMV_IO;
  /* each size is committed as it comes: setting up a large n (random data,
   * the reference's scale) takes the worker seconds on the CPU, and an
   * interrupted run keeps the sizes already measured */
  char line[1024];
  for (;;) {
    if (worker_line(w, line, sizeof line, 600, NULL)) return SYMV_IO;
    if (!strcmp(line, "ok")) break;
    db_measurement m;
    if (parse_meas(line, o->routine, &m, o->uplo, o->hot, stage) || db_begin(d) ||
        db_put_baseline(d, o->routine, baseline_names[b], &m) || db_commit(d)) {
      fprintf(stderr, "symvtune: baseline %s: %s %s\n", baseline_names[b], line, db_errmsg(d));
      db_rollback(d);
      return SYMV_IO;
    }
  }
  return 0;
}

/* The floor (gpu/floor.h) at the sizes not yet in the database, measured by
 * w and stored as the baseline "floor" as they come; the winning shapes
 * are logged, consecutive sizes with the same winner on one line. */
static int floor_baseline(db *d, sweep_worker *w, const sweep_opts *o, const int *ns, int nsizes, db_stage stage)
{
  char list[8192] = "", line[1024], shape[64] = "", run_shape[64] = "";
  int len = 0, missing = 0, run_lo = 0, run_hi = 0, run_count = 0;
  for (int i = 0; i < nsizes; i++) {
    int found = 0;
    if (db_has_baseline(d, o->routine, SWEEP_FLOOR_NAME, ns[i], o->uplo, o->hot, stage, &found)) return SYMV_DB;
    if (found) continue;
    len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", missing++ ? "," : "", ns[i]);
  }
  if (!missing) return 0;
  if (worker_send(w, "floor %s %s", db_stage_name(stage), list)) return SYMV_IO;
  for (;;) {
    if (worker_line(w, line, sizeof line, 600, NULL)) return SYMV_IO;
    if (!strcmp(line, "ok")) break;
    double us = 0;
    int n = 0;
    if (sscanf(line, "empty %lf", &us) == 1) {
      if (!o->quiet) fprintf(stderr, "floor: the empty kernel takes %.2f us a call (launch cost)\n", us);
      continue;
    }
    if (sscanf(line, "shape %d %63s %lf", &n, shape, &us) == 3) continue;
    if (!strncmp(line, "error", 5)) { /* the worker goes on; so does the dense stage, without the floor */
      fprintf(stderr, "symvtune: the floor: %s (the dense stage goes on without it)\n", line);
      return 0;
    }
    db_measurement m;
    if (parse_meas(line, o->routine, &m, o->uplo, o->hot, stage) || db_begin(d) ||
        db_put_baseline(d, o->routine, SWEEP_FLOOR_NAME, &m) || db_commit(d)) {
      fprintf(stderr, "symvtune: baseline %s: %s %s\n", SWEEP_FLOOR_NAME, line, db_errmsg(d));
      db_rollback(d);
      return SYMV_IO;
    }
    if (run_count && strcmp(shape, run_shape) && !o->quiet)
      fprintf(stderr, "floor: %s at n = %d..%d (%d sizes)\n", run_shape, run_lo, run_hi, run_count);
    if (!run_count || strcmp(shape, run_shape)) snprintf(run_shape, sizeof run_shape, "%s", shape), run_lo = m.n, run_count = 0;
    run_hi = m.n, run_count++;
  }
  if (run_count && !o->quiet) fprintf(stderr, "floor: %s at n = %d..%d (%d sizes)\n", run_shape, run_lo, run_hi, run_count);
  return 0;
}

/* sweep_worker_times, and for the lib command the libk lines: host_us[i]
 * and kernel[i * kernel_len] of ns[i] (both may be NULL). */
static int worker_times(sweep_worker *w, const sweep_opts *o, const char *what, const char *tail, const int *ns,
                        int nsizes, double *median_us, long long *calls, double *host_us, char *kernel,
                        size_t kernel_len, char *err, size_t errlen)
{
  char list[8192] = "", line[1024];
  int len = 0;
  for (int i = 0; i < nsizes; i++) {
    median_us[i] = NAN;
    len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", i ? "," : "", ns[i]);
    if (len >= (int)sizeof list) return SYMV_INVALID_VALUE;
  }
  if (err && errlen) err[0] = 0;
  const int cand = !strncmp(what, "cand ", 5) || !strncmp(what, "lib ", 4);
  for (int i = 0; i < nsizes; i++) {
    if (host_us) host_us[i] = NAN;
    if (kernel && kernel_len) kernel[(size_t)i * kernel_len] = 0;
  }
  if (worker_send(w, "%s dense %s%s%s", what, list, tail ? " " : "", tail ? tail : "")) return SYMV_IO;
  /* sizes without ":PRUNE": every one timed fully */
  for (;;) {
    /* setting up a large n takes the worker seconds on the CPU; a kernel,
     * at most the candidate's time limit */
    int rc = worker_line(w, line, sizeof line, cand ? o->timeout_s + 600 : 600, NULL);
    if (rc) return rc == SYMV_TIMEOUT ? SYMV_TIMEOUT : SYMV_IO;
    if (!strcmp(line, "ok")) return 0;
    if (!strncmp(line, "load ", 5)) continue;
    if (!strncmp(line, "invalid", 7) || !strncmp(line, "error", 5)) {
      if (err && errlen) snprintf(err, errlen, "%s", line);
      return SYMV_INVALID_VALUE;
    }
    if (!strncmp(line, "libk ", 5)) {
      int n;
      char name[64];
      double h;
      if (sscanf(line + 5, "%d %63s %lf", &n, name, &h) != 3) return SYMV_IO;
      for (int i = 0; i < nsizes; i++)
        if (ns[i] == n) {
          if (host_us) host_us[i] = h;
          if (kernel && kernel_len) snprintf(&kernel[(size_t)i * kernel_len], kernel_len, "%s", name);
        }
      continue;
    }
    db_measurement m;
    if (parse_meas(line, o->routine, &m, o->uplo, o->hot, DB_STAGE_DENSE)) return SYMV_IO;
    if (calls) *calls += (long long)m.batches * m.calls_per_batch;
    for (int i = 0; i < nsizes; i++)
      if (ns[i] == m.n) median_us[i] = m.median_us;
  }
}

int sweep_worker_times(sweep_worker *w, const sweep_opts *o, const char *what, const int *ns, int nsizes,
                       double *median_us, long long *calls, char *err, size_t errlen)
{
  return worker_times(w, o, what, NULL, ns, nsizes, median_us, calls, NULL, NULL, 0, err, errlen);
}

int sweep_worker_lib_times(sweep_worker *w, const sweep_opts *o, const char *libpath, int deterministic,
                           const int *ns, int nsizes, double *median_us, double *host_us, char *kernel,
                           size_t kernel_len, char *err, size_t errlen)
{
  if (!libpath || !*libpath || strpbrk(libpath, "\n\r") || strlen(libpath) > 4000) return SYMV_INVALID_VALUE;
  return worker_times(w, o, deterministic ? "lib deterministic" : "lib any", libpath, ns, nsizes, median_us, NULL,
                      host_us, kernel, kernel_len, err, errlen);
}

int sweep_baselines(db *d, sweep_worker *w, const sweep_opts *o, const int *ns, int nsizes, db_stage stage)
{
  for (int b = 0; b < 2; b++) {
    int rc = baseline_mode(d, w, o, ns, nsizes, stage, b);
    if (rc) return rc;
  }
  return stage == DB_STAGE_DENSE ? floor_baseline(d, w, o, ns, nsizes, stage) : 0;
}

int sweep_baselines_each(db *d, sweep_worker *w, int nworkers, const sweep_opts *o, const int *ns, int nsizes,
                         db_stage stage, double *times)
{
  char list[8192] = "", line[1024];
  int len = 0;
  for (int i = 0; i < nsizes; i++) len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", i ? "," : "", ns[i]);
  if (times)
    for (size_t i = 0; i < (size_t)nworkers * 2 * (size_t)nsizes; i++) times[i] = NAN;
  for (int b = 0; b < 2; b++) {
    /* the other GPUs measure while the first one fills the database */
    for (int k = 1; k < nworkers; k++)
      if (worker_send(&w[k], "base %s %s %s", baseline_names[b], db_stage_name(stage), list)) return SYMV_IO;
    int rc = baseline_mode(d, &w[0], o, ns, nsizes, stage, b);
    if (rc) return rc;
    for (int k = 1; k < nworkers; k++)
      for (;;) {
        if (worker_line(&w[k], line, sizeof line, 600, NULL)) return SYMV_IO;
        if (!strcmp(line, "ok")) break;
        db_measurement m;
        if (parse_meas(line, o->routine, &m, o->uplo, o->hot, stage)) {
          fprintf(stderr, "symvtune: baseline %s on GPU %d: %s\n", baseline_names[b], w[k].device, line);
          return SYMV_IO;
        }
        for (int i = 0; times && i < nsizes; i++)
          if (ns[i] == m.n) times[((size_t)k * 2 + (size_t)b) * (size_t)nsizes + (size_t)i] = m.median_us;
      }
  }
  for (int b = 0; times && b < 2; b++) {
    db_measurement *ml = NULL;
    size_t cnt = 0;
    if (db_baseline_measurements(d, o->routine, baseline_names[b], stage, o->uplo, o->hot, &ml, &cnt))
      return SYMV_DB;
    for (size_t j = 0; j < cnt; j++)
      for (int i = 0; i < nsizes; i++)
        if (ml[j].n == ns[i]) times[(size_t)b * (size_t)nsizes + (size_t)i] = ml[j].median_us;
    free(ml);
  }
  return 0;
}

/* Appends to r's survivors the first min(SWEEP_DET_TOP, T) candidates of
 * the deterministic families (and the best of each sieve family, key[])
 * ranked among themselves alone (the others' times masked), then the
 * fastest of them at each size, those not survivors already, counted in
 * r->added_det. Errors: SYMV_NO_MEMORY, sieve_rank's. */
static int add_deterministic(const db_times *tt, int nsizes, const int *family, const int *key, int K, int T,
                             sieve_result *r)
{
  const size_t C = tt->ncand, S = (size_t)nsizes;
  double *t = malloc(sizeof *t * (C * S > 0 ? C * S : 1));
  if (!t) return SYMV_NO_MEMORY;
  for (size_t c = 0; c < C; c++) {
    const symv_family_info *fi = family[c] >= 0 ? symv_family_get((symv_family)family[c]) : NULL;
    for (size_t j = 0; j < S; j++) t[c * S + j] = fi && fi->deterministic ? tt->median_us[c * S + j] : NAN;
  }
  sieve_result dr;
  int rc = sieve_rank(t, (int)C, nsizes, key, K, T < SWEEP_DET_TOP ? T : SWEEP_DET_TOP, &dr);
  if (rc) {
    free(t);
    return rc;
  }
  /* the ranking's survivors, then each size's fastest (points summed over
   * sizes can pass over a kernel that wins one size alone: pipe_det's
   * tiles at n = 2,048, behind its units, fast at the two larger sizes) */
  int *add = malloc(sizeof *add * (size_t)(dr.nsurvivors + nsizes + 1)), nadd = 0;
  if (!add) rc = SYMV_NO_MEMORY;
  for (int i = 0; !rc && i < dr.nsurvivors; i++) add[nadd++] = dr.survivors[i];
  for (size_t j = 0; !rc && j < S; j++) {
    long best = -1;
    for (size_t c = 0; c < C; c++) {
      const double v = t[c * S + j];
      if (isfinite(v) && v > 0 && (best < 0 || v < t[(size_t)best * S + j])) best = (long)c;
    }
    if (best >= 0) add[nadd++] = (int)best;
  }
  free(t);
  int *sv = rc ? NULL : realloc(r->survivors, sizeof *sv * (size_t)(r->nsurvivors + nadd + 1));
  if (!rc && !sv) rc = SYMV_NO_MEMORY;
  else if (!rc) r->survivors = sv;
  for (int i = 0; !rc && i < nadd; i++) {
    int have = 0;
    for (int k = 0; k < r->nsurvivors && !have; k++) have = r->survivors[k] == add[i];
    if (!have) r->survivors[r->nsurvivors++] = add[i], r->added_det++;
  }
  free(add);
  sieve_free(&dr);
  return rc;
}

int sweep_sieve_family(const db_candidate *c)
{
  const symv_family f = c->p.family;
  return f == SYMV_FAMILY_PIPE_DET && c->p.mx >= 3 ? SYMV_FAMILY_COUNT + (int)f : (int)f;
}

int sweep_rank(db *d, symv_routine ro, const int *ns, int nsizes, char uplo, int hot, int K, int T, db_times *tt, sieve_result *r)
{
  memset(r, 0, sizeof *r);
  if (db_time_table(d, ro, ns, (size_t)nsizes, uplo, hot, DB_STAGE_SWEEP, tt)) return SYMV_DB;
  if (tt->ncand == 0) {
    db_times_free(tt);
    return SYMV_NOT_FOUND;
  }
  int *family = calloc(2 * tt->ncand, sizeof *family), *key = family + tt->ncand;
  int rc = family ? 0 : SYMV_NO_MEMORY;
  for (size_t c = 0; !rc && c < tt->ncand; c++) {
    family[c] = (int)tt->cand[c].p.family;
    key[c] = sweep_sieve_family(&tt->cand[c]);
  }
  if (!rc) rc = sieve_rank(tt->median_us, (int)tt->ncand, nsizes, key, K, T, r);
  if (!rc && (rc = add_deterministic(tt, nsizes, family, key, K, T, r))) sieve_free(r);
  free(family);
  if (rc) db_times_free(tt);
  return rc;
}

int sweep_champions(db *d, symv_routine ro, const int *ns, int nsizes, char uplo, int hot, int K, int T, db_candidate **out,
                    long *count)
{
  db_times tt;
  sieve_result r;
  *out = NULL, *count = 0;
  int rc = sweep_rank(d, ro, ns, nsizes, uplo, hot, K, T, &tt, &r);
  if (rc) return rc;
  *out = malloc(sizeof **out * (size_t)(r.nsurvivors ? r.nsurvivors : 1));
  if (!*out) rc = SYMV_NO_MEMORY;
  for (int i = 0; !rc && i < r.nsurvivors; i++) (*out)[i] = tt.cand[r.survivors[i]];
  if (!rc) *count = r.nsurvivors;
  sieve_free(&r);
  db_times_free(&tt);
  return rc;
}

/* ---- compiling ahead of the worker -------------------------------------- */

typedef struct {
  const symv_params *code; /* one params per distinct code */
  int *state;              /* 0 waiting, 1 ok, -1 failed */
  double *ms;              /* NVRTC time */
  char **log;              /* failure log */
  long ncode, next;
  int cc_major, cc_minor;
  volatile int *stop;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  long compiled, cached;
  double busy_from, busy_to;
} compile_pool;

static void *compile_thread(void *arg)
{
  compile_pool *cp = arg;
  for (;;) {
    pthread_mutex_lock(&cp->mu);
    long i = cp->next < cp->ncode && !*cp->stop ? cp->next++ : -1;
    pthread_mutex_unlock(&cp->mu);
    if (i < 0) return NULL;
    symv_cubin cb;
    char *log = NULL;
    int rc = symv_compile(&cp->code[i], cp->cc_major, cp->cc_minor, &cb, &log);
    pthread_mutex_lock(&cp->mu);
    cp->state[i] = rc ? -1 : 1;
    cp->ms[i] = rc ? 0 : cb.compile_ms;
    cp->log[i] = log;
    if (!rc) cb.from_cache ? cp->cached++ : cp->compiled++;
    cp->busy_to = symv_now();
    pthread_cond_broadcast(&cp->cv);
    pthread_mutex_unlock(&cp->mu);
    if (!rc) symv_cubin_free(&cb);
  }
}

/* ---- the measuring loop -------------------------------------------------- */

/* Records c invalid for reason (detail: why, cms: its NVRTC time, regs: its
 * registers) with its code and its count of attempts cleared, in one
 * transaction. Errors: SYMV_DB (rolled back). */
static int record_invalid(db *d, db_candidate *c, db_reason reason, const char *detail, double cms, int regs)
{
  c->status = DB_INVALID;
  c->reason = reason;
  snprintf(c->detail, sizeof c->detail, "%s", detail);
  c->compile_ms = cms;
  c->regs_per_thread = regs;
  if (db_begin(d)) return SYMV_DB;
  if (db_set_candidate_result(d, c) || sweep_put_code(d, c) || db_clear_attempts(d, c->id)) {
    db_rollback(d);
    return SYMV_DB;
  }
  return db_commit(d) ? SYMV_DB : 0;
}

static db_reason reason_of(const char *name)
{
  for (int r = 1; r < DB_REASON_COUNT; r++)
    if (!strcmp(name, db_reason_name(r))) return (db_reason)r;
  return DB_REASON_LAUNCH;
}

/* Waits up to a second for a worker whose output ended to exit, then kills
 * it; its exit status into *status. Afterwards w has no process. */
static void worker_reap(sweep_worker *w, int *status)
{
  *status = 0;
  int gone = 0;
  for (int i = 0; i < 100 && !gone; i++) {
    gone = waitpid(w->pid, status, WNOHANG) == w->pid;
    if (!gone) usleep(10000);
  }
  if (!gone) {
    kill(w->pid, SIGKILL);
    waitpid(w->pid, status, 0);
  }
  close(w->to), close(w->from);
  w->pid = 0;
}

/* What one worker is doing: the candidate in flight and what it said so far. */
typedef struct {
  long cand;             /* index into cands; -1: idle */
  double t0, last;       /* when it was sent, when the worker last said something (symv_now, s) */
  double cms;            /* NVRTC time of its code, ms */
  db_measurement ms[256];
  int nms, regs;
  db_reason why;         /* DB_REASON_NONE unless it said invalid */
  char detail[512];
  int lrc;               /* SYMV_IO: the worker died; SYMV_TIMEOUT: it overran */
  int done;              /* ok or invalid received */
  int dead;              /* the worker could not be restarted: no more work for it */
  double *best;          /* nsizes: fastest time so far on this GPU at each size (pruning base), us */
} slot;

/* One call of sweep_measure: its arguments and the state of its loop. */
typedef struct {
  const sweep_measure_args *a; /* the call's arguments */
  double *best;                /* nworkers x nsizes: each GPU's pruning bases, us (slot.best points in here) */
  slot *sl;                    /* nworkers: what each worker is doing */
  symv_params *code;           /* the distinct codes of the candidates, in their order (ncode of them) */
  long *code_of;               /* ncand: each candidate's index into code; -1: not a valid candidate */
  long ncode;                  /* distinct codes */
  compile_pool cp;             /* what the compiling threads share */
  pthread_t th[256];           /* the compiling threads */
  int nthreads;                /* how many run (0: the worker compiles) */
  long valid, invalid;         /* candidates recorded valid, invalid by this call */
  long next;                   /* index into cands of the next candidate to deal out */
} measure_run;

/* Allocates r's arrays (r->a set, the rest zero). Errors: SYMV_NO_MEMORY,
 * with nothing left allocated. */
static int measure_alloc(measure_run *r)
{
  const sweep_measure_args *a = r->a;
  r->best = malloc(sizeof(double) * (size_t)a->nsizes * (size_t)a->nworkers + 1);
  r->sl = calloc((size_t)a->nworkers, sizeof *r->sl);
  r->code = malloc(sizeof(symv_params) * (size_t)(a->ncand ? a->ncand : 1));
  r->code_of = malloc(sizeof(long) * (size_t)(a->ncand ? a->ncand : 1));
  if (!r->best || !r->sl || !r->code || !r->code_of) {
    free(r->best), free(r->sl), free(r->code), free(r->code_of);
    return SYMV_NO_MEMORY;
  }
  return 0;
}

/* The pruning bases: per GPU and size, the fastest time so far (us;
 * INFINITY where none): the faster cuBLAS mode (the database's baselines for
 * worker 0, and for every worker where worker_base is NULL; worker_base's
 * row for the others), then, in the sweep stage, the database's sweep-stage
 * times of earlier runs. Every slot is set idle. */
static void measure_pruning_bases(measure_run *r)
{
  const sweep_measure_args *a = r->a;
  const sweep_opts *o = a->o;
  int nsizes = a->nsizes, nworkers = a->nworkers;
  for (int i = 0; i < nsizes; i++) {
    double b0 = INFINITY;
    for (int b = 0; b < 2; b++) {
      db_measurement *ml = NULL;
      size_t cnt = 0;
      if (!db_baseline_measurements(a->d, o->routine, b ? "cublas_atomics" : "cublas", a->stage,
                                    o->uplo, o->hot, &ml, &cnt))
        for (size_t k = 0; k < cnt; k++)
          if (ml[k].n == a->ns[i] && ml[k].median_us < b0) b0 = ml[k].median_us;
      free(ml);
    }
    for (int k = 0; k < nworkers; k++) {
      double v = a->worker_base && k > 0 ? a->worker_base[(size_t)k * (size_t)nsizes + (size_t)i] : b0;
      r->best[(size_t)k * (size_t)nsizes + (size_t)i] = v > 0 ? v : INFINITY;
    }
  }
  for (int k = 0; k < nworkers; k++) r->sl[k].cand = -1, r->sl[k].best = r->best + (size_t)k * (size_t)nsizes;
  db_times tt;
  if (a->stage == DB_STAGE_SWEEP &&
      !db_time_table(a->d, o->routine, a->ns, (size_t)nsizes, o->uplo, o->hot, a->stage, &tt)) {
    for (size_t c = 0; c < tt.ncand; c++)
      for (int i = 0; i < nsizes; i++) {
        double v = tt.median_us[c * (size_t)nsizes + (size_t)i];
        for (int k = 0; k < nworkers; k++)
          if (v > 0 && v < r->sl[k].best[i]) r->sl[k].best[i] = v;
      }
    db_times_free(&tt);
  }
}

/* The distinct codes of the candidates, in order (neighbours of the same
 * code share one), into r->code, and each candidate's into r->code_of (-1
 * for one whose family or parameters are not valid). */
static void measure_codes(measure_run *r)
{
  const sweep_measure_args *a = r->a;
  r->ncode = 0;
  for (long i = 0; i < a->ncand; i++) {
    const symv_params *p = &a->cands[i].p;
    r->code_of[i] = -1;
    if (symv_params_check(p, NULL, 0)) continue;
    if (r->ncode > 0 && symv_params_same_code(&r->code[r->ncode - 1], p)) {
      r->code_of[i] = r->ncode - 1;
      continue;
    }
    r->code[r->ncode] = *p;
    r->code_of[i] = r->ncode++;
  }
}

/* Starts o->jobs compiling threads (at most 256) on r's codes, for worker
 * 0's GPU; with none, every code counts as compiled (the worker compiles).
 * 0, or SYMV_NO_MEMORY with no thread started (measure_release still frees
 * what r holds). */
static int measure_compile_start(measure_run *r)
{
  const sweep_measure_args *a = r->a;
  compile_pool *cp = &r->cp;
  long ncode = r->ncode;
  *cp = (compile_pool){.code = r->code, .ncode = ncode, .cc_major = a->w[0].dev.cc_major,
                       .cc_minor = a->w[0].dev.cc_minor, .stop = a->interrupted, .busy_from = symv_now()};
  cp->state = calloc((size_t)(ncode ? ncode : 1), sizeof *cp->state);
  cp->ms = calloc((size_t)(ncode ? ncode : 1), sizeof *cp->ms);
  cp->log = calloc((size_t)(ncode ? ncode : 1), sizeof *cp->log);
  pthread_mutex_init(&cp->mu, NULL);
  pthread_cond_init(&cp->cv, NULL);
  r->nthreads = 0;
  if (!cp->state || !cp->ms || !cp->log) {
    r->ncode = 0; /* nothing for measure_release to read */
    return SYMV_NO_MEMORY;
  }
  r->nthreads = a->o->jobs > 0 ? a->o->jobs : 0;
  if (r->nthreads == 0) /* nothing compiled ahead: the worker compiles each code itself */
    for (long i = 0; i < ncode; i++) cp->state[i] = 1;
  if (r->nthreads > 256) r->nthreads = 256;
  for (int t = 0; t < r->nthreads; t++) pthread_create(&r->th[t], NULL, compile_thread, cp);
  return 0;
}

/* Stops the compiling threads, adds what they did to the totals (compile
 * wall and NVRTC time, codes compiled and cached), and frees what r holds. */
static void measure_release(measure_run *r)
{
  compile_pool *cp = &r->cp;
  sweep_stats *st = r->a->st;
  pthread_mutex_lock(&cp->mu);
  cp->next = cp->ncode; /* nothing more to compile */
  pthread_mutex_unlock(&cp->mu);
  for (int t = 0; t < r->nthreads; t++) pthread_join(r->th[t], NULL);
  st->compile_s += cp->busy_to > cp->busy_from ? cp->busy_to - cp->busy_from : 0;
  for (long i = 0; i < r->ncode; i++) {
    st->compile_cpu_s += cp->ms[i] / 1e3;
    free(cp->log[i]);
  }
  st->compiled += cp->compiled, st->cached += cp->cached;
  free(cp->state), free(cp->ms), free(cp->log);
  pthread_mutex_destroy(&cp->mu);
  pthread_cond_destroy(&cp->cv);
  free(r->best), free(r->sl), free(r->code), free(r->code_of);
}

/* Whether the sizes candidate c already has a measurement of at this
 * stage, uplo and L2 mode are left out: in the dense stage, and in the
 * sweep stage for a candidate already valid (measured before with another
 * uplo or L2 mode); a pending one is measured at every size. */
static int measure_skips_done(const sweep_measure_args *a, const db_candidate *c)
{
  return a->stage == DB_STAGE_DENSE || c->status == DB_VALID;
}

/* Into *todo: at how many sizes candidate c is still to be measured (every
 * size, or those without a measurement of it where measure_skips_done).
 * Errors: SYMV_DB. */
static int measure_todo(const measure_run *r, const db_candidate *c, int *todo)
{
  const sweep_measure_args *a = r->a;
  int rc = 0;
  *todo = 0;
  for (int s = 0; s < a->nsizes && !rc; s++) {
    int found = 0;
    if (measure_skips_done(a, c) && db_has_measurement(a->d, c->id, a->ns[s], a->o->uplo, a->o->hot, a->stage, &found))
      rc = SYMV_DB;
    *todo += !found;
  }
  return rc;
}

/* Counts an attempt at candidate c in the database (db_start_attempt) and
 * puts the count, this one included, into *attempts. A candidate that
 * stopped the sweep while measured is counted once per stage: as the
 * adaptive dense stage deals each champion once a round, a dense-stage
 * candidate with dense samples already ran in this stage and is not counted
 * (*attempts 0). Errors: SYMV_DB. */
static int measure_attempt(const measure_run *r, const db_candidate *c, int *attempts)
{
  const sweep_measure_args *a = r->a;
  int counted = 1;
  *attempts = 0;
  if (a->stage == DB_STAGE_DENSE) {
    db_measurement *ml = NULL;
    size_t cnt = 0;
    if (db_candidate_measurements(a->d, c->id, a->stage, a->o->uplo, a->o->hot, &ml, &cnt)) {
      free(ml);
      return SYMV_DB;
    }
    free(ml);
    counted = cnt == 0;
  }
  if (counted && db_start_attempt(a->d, c->id, attempts)) return SYMV_DB;
  return 0;
}

/* Sends candidate i to worker k, which is idle: "cand P STAGE n:prune,..."
 * with the sizes it lacks, each with its pruning threshold (o->prune times
 * k's base, us; 0: time fully), and sets up k's slot for it; cms: its code's
 * NVRTC time, ms. A send that fails leaves SYMV_IO in the slot, for
 * measure_collect. Errors: SYMV_DB. */
static int measure_send(measure_run *r, int k, long i, double cms)
{
  const sweep_measure_args *a = r->a;
  const sweep_opts *o = a->o;
  const db_candidate *c = &a->cands[i];
  slot *q = &r->sl[k];
  char sizes[8192] = "", point[64];
  int len = 0, n2 = 0, rc = 0;
  for (int s = 0; s < a->nsizes && !rc; s++) {
    int found = 0;
    if (measure_skips_done(a, c) && db_has_measurement(a->d, c->id, a->ns[s], o->uplo, o->hot, a->stage, &found))
      rc = SYMV_DB;
    if (found) continue;
    double prune = a->stage == DB_STAGE_SWEEP && o->prune > 0 && isfinite(q->best[s]) ? o->prune * q->best[s] : 0;
    len += snprintf(sizes + len, sizeof sizes - (size_t)len, "%s%d:%.4g", n2++ ? "," : "", a->ns[s], prune);
  }
  if (rc) return rc;
  symv_params_format(&c->p, point, sizeof point);
  q->cand = i, q->t0 = q->last = symv_now(), q->cms = cms, q->nms = 0, q->regs = 0;
  q->why = DB_REASON_NONE, q->detail[0] = 0, q->lrc = 0, q->done = 0;
  if (worker_send(&a->w[k], "cand %s %s %s", point, db_stage_name(a->stage), sizes)) q->lrc = SYMV_IO;
  return 0;
}

/* Deals the next candidates out to worker k, which is idle, in order: one
 * that needs no measuring is passed over (and recorded invalid where its
 * family or parameters are not valid), one whose code failed to compile or
 * that was dealt out more than o->max_attempts times is recorded invalid,
 * and the first one left is sent to k (measure_send); each passed over or
 * recorded advances the progress by one. Sets *waiting_compile, and deals
 * nothing, where the next one's code is not compiled yet. Errors: SYMV_DB. */
static int measure_deal(measure_run *r, int k, int *waiting_compile)
{
  const sweep_measure_args *a = r->a;
  int rc = 0;
  while (r->next < a->ncand) {
    long i = r->next;
    db_candidate c = a->cands[i];
    int todo = 0;
    if ((rc = measure_todo(r, &c, &todo))) return rc;
    if ((a->stage == DB_STAGE_SWEEP && c.status == DB_INVALID) || !todo || r->code_of[i] < 0) {
      if (r->code_of[i] < 0 && (rc = record_invalid(a->d, &c, DB_REASON_COMPILE, "unknown family or parameters", 0, 0)))
        return rc;
      r->next++;
      symv_progress_update(a->prog, a->prog->done + 1, NULL);
      continue;
    }
    /* its code must be compiled (or have failed) first */
    long ci = r->code_of[i];
    pthread_mutex_lock(&r->cp.mu);
    int cstate = r->cp.state[ci];
    double cms = r->cp.ms[ci];
    pthread_mutex_unlock(&r->cp.mu);
    if (cstate == 0) {
      *waiting_compile = 1;
      return 0;
    }
    r->next++;
    if (cstate < 0) {
      char detail[400];
      snprintf(detail, sizeof detail, "%.390s", r->cp.log[ci] ? r->cp.log[ci] : "NVRTC failed");
      for (char *p = detail; *p; p++)
        if (*p == '\n') *p = ' ';
      if ((rc = record_invalid(a->d, &c, DB_REASON_COMPILE, detail, 0, 0))) return rc;
      r->invalid++;
      symv_progress_update(a->prog, a->prog->done + 1, NULL);
      continue;
    }
    int attempts = 0;
    if ((rc = measure_attempt(r, &c, &attempts))) return rc;
    if (attempts > a->o->max_attempts) {
      char detail[128];
      snprintf(detail, sizeof detail, "stopped the sweep %d times while being measured", attempts - 1);
      if ((rc = record_invalid(a->d, &c, DB_REASON_FAULT, detail, cms, 0))) return rc;
      r->invalid++;
      symv_progress_update(a->prog, a->prog->done + 1, NULL);
      continue;
    }
    return measure_send(r, k, i, cms);
  }
  return 0;
}

/* Waits for what the busy workers say: reads what arrives within 50 ms
 * into their buffers (a worker whose output ended gets SYMV_IO in its
 * slot), or, with none busy, waits up to 50 ms for a code to finish
 * compiling; returns at once where a busy worker's line is already read or
 * its candidate already failed. Errors: SYMV_IO (poll failed). */
static int measure_wait(measure_run *r)
{
  const sweep_measure_args *a = r->a;
  sweep_worker *w = a->w;
  struct pollfd pfd[64];
  int widx[64], np = 0;
  for (int k = 0; k < a->nworkers && np < 64; k++)
    if (r->sl[k].cand >= 0 && !r->sl[k].lrc && !memchr(w[k].buf, '\n', w[k].len)) {
      pfd[np] = (struct pollfd){w[k].from, POLLIN, 0};
      widx[np++] = k;
    }
  int pending_lines = 0;
  for (int k = 0; k < a->nworkers; k++)
    pending_lines += r->sl[k].cand >= 0 && (r->sl[k].lrc || memchr(w[k].buf, '\n', w[k].len));
  if (pending_lines) return 0;
  int n = np ? poll(pfd, (nfds_t)np, 50) : 0;
  if (!np) { /* every worker idle, waiting for a code to compile */
    pthread_mutex_lock(&r->cp.mu);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50000000;
    if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&r->cp.cv, &r->cp.mu, &ts);
    pthread_mutex_unlock(&r->cp.mu);
  }
  if (n < 0 && errno != EINTR) return SYMV_IO;
  for (int j = 0; n > 0 && j < np; j++)
    if (pfd[j].revents && worker_fill(&w[widx[j]])) r->sl[widx[j]].lrc = SYMV_IO;
  return 0;
}

/* Takes the lines worker k has already sent about its candidate (without
 * waiting) into its slot, until it says "ok" or "invalid REASON DETAIL" or
 * fails: "load REGS" (registers per thread), "meas ..." (a measurement, at
 * most 256 kept), "error ..." (logged on standard error; SYMV_IO in the
 * slot). now: the time (symv_now, s), which each line sets as k's last. */
static void measure_read(measure_run *r, int k, double now)
{
  const sweep_measure_args *a = r->a;
  sweep_worker *w = &a->w[k];
  slot *q = &r->sl[k];
  char line[2048];
  while (!q->lrc && !q->done && worker_take_line(w, line, sizeof line)) {
    q->last = now;
    if (!strncmp(line, "load ", 5)) {
      q->regs = atoi(line + 5);
    } else if (!strncmp(line, "meas ", 5)) {
      if (q->nms < 256 && !parse_meas(line, a->o->routine, &q->ms[q->nms], a->o->uplo, a->o->hot, a->stage)) q->nms++;
    } else if (!strcmp(line, "ok")) {
      q->done = 1;
    } else if (!strncmp(line, "invalid ", 8)) {
      char rname[32] = "";
      int used = 0;
      sscanf(line + 8, "%31s %n", rname, &used);
      q->why = reason_of(rname);
      snprintf(q->detail, sizeof q->detail, "%s", line + 8 + used);
      q->done = 1;
    } else if (!strncmp(line, "error", 5)) {
      fprintf(stderr, "\nsymvtune sweep: worker on GPU %d: %s\n", w->device, line);
      snprintf(q->detail, sizeof q->detail, "worker: %.500s", line);
      q->lrc = SYMV_IO;
    }
  }
}

/* Worker k hung (SYMV_TIMEOUT: killed), died (SYMV_IO: reaped) or lost its
 * context (said invalid fault): records its candidate c invalid (timeout or
 * fault) and starts a new worker on the same GPU; one that cannot be started
 * is logged and marks k dead (no more work for it). Errors: SYMV_DB. */
static int measure_restart(measure_run *r, int k, db_candidate *c)
{
  const sweep_measure_args *a = r->a;
  sweep_worker *w = &a->w[k];
  slot *q = &r->sl[k];
  int status = 0, rc;
  if (q->lrc == SYMV_TIMEOUT) {
    kill(w->pid, SIGKILL);
    q->why = DB_REASON_TIMEOUT;
    snprintf(q->detail, sizeof q->detail, "no answer in %.0f s", a->o->timeout_s);
  } else if (q->lrc == SYMV_IO) {
    q->why = DB_REASON_FAULT;
    worker_reap(w, &status); /* reaped: sweep_worker_stop must not signal a pid that may be reused */
    if (WIFSIGNALED(status) && !q->detail[0])
      snprintf(q->detail, sizeof q->detail, "worker killed by signal %d", WTERMSIG(status));
    else if (!q->detail[0])
      snprintf(q->detail, sizeof q->detail, "worker died");
  }
  sweep_worker_stop(w);
  if ((rc = record_invalid(a->d, c, q->why, q->detail, q->cms, q->regs))) return rc;
  r->invalid++;
  w->restarts++;
  sweep_opts ok = *a->o;
  ok.device = w->device;
  if (sweep_worker_start(w, &ok)) {
    fprintf(stderr, "\nsymvtune sweep: the worker on GPU %d cannot be restarted%s\n", w->device,
            a->nworkers > 1 ? "; the other GPUs go on" : "");
    q->dead = 1;
  }
  return 0;
}

/* Stores worker k's measurements of candidate c, and in the sweep stage c
 * as valid (its NVRTC time and registers; where c was valid already, its
 * result and recorded code stay as they are: this run measured it in
 * another uplo or L2 mode), and clears its count of attempts
 * (db_clear_attempts), in one transaction; counts it
 * measured, and lowers k's pruning bases to its fully timed (more than one
 * batch) medians. Errors: SYMV_DB (the transaction rolled back). */
static int measure_store_valid(measure_run *r, int k, db_candidate *c)
{
  const sweep_measure_args *a = r->a;
  slot *q = &r->sl[k];
  int rc = 0;
  const int settle = a->stage == DB_STAGE_SWEEP && c->status != DB_VALID;
  c->status = DB_VALID;
  c->reason = DB_REASON_NONE;
  c->detail[0] = 0;
  c->compile_ms = q->cms;
  c->regs_per_thread = q->regs;
  if (db_begin(a->d)) return SYMV_DB;
  for (int m = 0; m < q->nms && !rc; m++)
    if (db_put_measurement(a->d, c->id, &q->ms[m])) rc = SYMV_DB;
  if (!rc && settle && (db_set_candidate_result(a->d, c) || sweep_put_code(a->d, c))) rc = SYMV_DB;
  if (!rc && db_clear_attempts(a->d, c->id)) rc = SYMV_DB; /* measured: no attempt is left pending */
  if (rc) {
    db_rollback(a->d);
    return rc;
  }
  if (db_commit(a->d)) return SYMV_DB;
  r->valid++;
  a->st->measured++;
  a->w[k].measured++;
  for (int m = 0; m < q->nms; m++)
    for (int s = 0; s < a->nsizes; s++)
      if (a->ns[s] == q->ms[m].n && q->ms[m].batches > 1 && q->ms[m].median_us < q->best[s])
        q->best[s] = q->ms[m].median_us;
  return 0;
}

/* Worker k's candidate is finished, one way or another (now: as
 * measure_read): adds its time to the measuring total, records it (restart
 * on a timeout, a dead worker or a fault; invalid with the worker's reason;
 * else valid with its measurements), frees k and advances the progress by
 * one. Errors: SYMV_DB. */
static int measure_finish(measure_run *r, int k, double now)
{
  const sweep_measure_args *a = r->a;
  slot *q = &r->sl[k];
  db_candidate c = a->cands[q->cand];
  char note[96];
  int rc;
  a->st->measure_s += now - q->t0;
  if (q->lrc || q->why == DB_REASON_FAULT) {
    rc = measure_restart(r, k, &c);
  } else if (q->why != DB_REASON_NONE) {
    if (!(rc = record_invalid(a->d, &c, q->why, q->detail, q->cms, q->regs))) r->invalid++;
  } else {
    rc = measure_store_valid(r, k, &c);
  }
  if (rc) return rc;
  q->cand = -1;
  snprintf(note, sizeof note, "valid %ld invalid %ld", r->valid, r->invalid);
  symv_progress_update(a->prog, a->prog->done + 1, note);
  return 0;
}

/* Reads what each busy worker has said (measure_read), marks one silent
 * past o->timeout_s SYMV_TIMEOUT, and records each finished candidate
 * (measure_finish). Errors: SYMV_DB. */
static int measure_collect(measure_run *r)
{
  const sweep_measure_args *a = r->a;
  double now = symv_now();
  for (int k = 0; k < a->nworkers; k++) {
    slot *q = &r->sl[k];
    if (q->cand < 0) continue;
    measure_read(r, k, now);
    if (!q->lrc && !q->done && now - q->last > a->o->timeout_s) q->lrc = SYMV_TIMEOUT;
    if (!q->lrc && !q->done) continue;
    int rc = measure_finish(r, k, now);
    if (rc) return rc;
  }
  return 0;
}

/* The measuring loop: deals candidates out to the idle workers, waits for
 * the busy ones and records what they finish, until every candidate is dealt
 * with and none is in flight. Errors: SYMV_INTERRUPTED (*interrupted set),
 * SYMV_IO (no worker left for the rest, or poll failed), SYMV_DB. */
static int measure_loop(measure_run *r)
{
  const sweep_measure_args *a = r->a;
  for (;;) {
    if (*a->interrupted) return SYMV_INTERRUPTED;
    /* deal the next candidates out to the idle workers, in order */
    int rc = 0, waiting_compile = 0;
    for (int k = 0; k < a->nworkers && !rc && !waiting_compile; k++)
      if (r->sl[k].cand < 0 && !r->sl[k].dead) rc = measure_deal(r, k, &waiting_compile);
    if (rc) return rc;
    int busy = 0, alive = 0;
    for (int k = 0; k < a->nworkers; k++) busy += r->sl[k].cand >= 0, alive += !r->sl[k].dead;
    if (!busy && (r->next >= a->ncand || !alive))
      return r->next < a->ncand ? SYMV_IO : 0; /* SYMV_IO: no worker left to measure the rest */
    if ((rc = measure_wait(r))) return rc;
    if ((rc = measure_collect(r))) return rc;
  }
}

int sweep_measure(const sweep_measure_args *a)
{
  if (a->nworkers < 1) return SYMV_INVALID_VALUE;
  measure_run r = {.a = a};
  int rc = measure_alloc(&r);
  if (rc) return rc;
  measure_pruning_bases(&r);
  measure_codes(&r);
  if ((rc = measure_compile_start(&r))) {
    measure_release(&r);
    return rc;
  }
  sweep_stats *st = a->st;
  double t_measure = symv_now(), measure_before = st->measure_s;
  rc = measure_loop(&r);
  if (a->nworkers > 1) /* wall time, not the sum over the GPUs */
    st->measure_s = measure_before + (st->measure_s > measure_before ? symv_now() - t_measure : 0);
  measure_release(&r);
  return rc;
}

void sweep_sizes_text(const int *ns, int nsizes, char *buf, size_t len)
{
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < nsizes && k < len; i++) k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", ns[i]);
}
