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
#include <unistd.h>
#include "../sieve/sieve.h"
#include "compile.h"
#include "sweep.h"
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

/* Next line from the worker into out (without the newline). Returns 0, or
 * SYMV_TIMEOUT after timeout_s seconds without a line, SYMV_IO at end of
 * file, SYMV_INTERRUPTED when *interrupted is set. */
static int worker_line(sweep_worker *w, char *out, size_t outlen, double timeout_s, volatile int *interrupted)
{
  double deadline = symv_now() + timeout_s;
  for (;;) {
    char *nl = memchr(w->buf, '\n', w->len);
    if (nl) {
      size_t k = (size_t)(nl - w->buf);
      size_t c = k < outlen - 1 ? k : outlen - 1;
      memcpy(out, w->buf, c);
      out[c] = 0;
      memmove(w->buf, nl + 1, w->len - k - 1);
      w->len -= k + 1;
      return 0;
    }
    if (interrupted && *interrupted) return SYMV_INTERRUPTED;
    double left = deadline - symv_now();
    if (left <= 0) return SYMV_TIMEOUT;
    struct pollfd pfd = {w->from, POLLIN, 0};
    int r = poll(&pfd, 1, left > 0.25 ? 250 : (int)(left * 1000) + 1);
    if (r < 0 && errno != EINTR) return SYMV_IO;
    if (r <= 0) continue;
    if (w->len == sizeof w->buf) w->len = 0; /* an absurdly long line: drop it */
    ssize_t k = read(w->from, w->buf + w->len, sizeof w->buf - w->len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return SYMV_IO;
    w->len += (size_t)k;
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
  w->pid = pid, w->to = in[1], w->from = out[0], w->len = 0;
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
  const symv_device_info *d = &w->dev;
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
  out->copy_gbs = w->copy_gbs;
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

int sweep_baselines(db *d, sweep_worker *w, const sweep_opts *o, const int *ns, int nsizes, db_stage stage)
{
  static const char *const names[2] = {"cublas", "cublas_atomics"};
  for (int b = 0; b < 2; b++) {
    char list[8192] = "";
    int len = 0, missing = 0;
    for (int i = 0; i < nsizes; i++) {
      int found = 0;
      if (db_has_baseline(d, symv_routine_name(o->routine), names[b], ns[i], o->uplo, o->hot, stage, &found)) return SYMV_DB;
      if (found) continue;
      len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", missing++ ? "," : "", ns[i]);
    }
    if (!missing) continue;
    if (worker_send(w, "base %s %s %s", names[b], db_stage_name(stage), list)) return SYMV_IO;
    /* each size is committed as it comes: setting up a large n (random data,
     * the reference's scale) takes the worker seconds on the CPU, and an
     * interrupted run keeps the sizes already measured */
    char line[1024];
    for (;;) {
      if (worker_line(w, line, sizeof line, 600, NULL)) return SYMV_IO;
      if (!strcmp(line, "ok")) break;
      db_measurement m;
      if (parse_meas(line, o->routine, &m, o->uplo, o->hot, stage) || db_begin(d) ||
          db_put_baseline(d, symv_routine_name(o->routine), names[b], &m) || db_commit(d)) {
        fprintf(stderr, "symvtune: baseline %s: %s %s\n", names[b], line, db_errmsg(d));
        db_rollback(d);
        return SYMV_IO;
      }
    }
  }
  return 0;
}

int sweep_rank(db *d, symv_routine ro, const int *ns, int nsizes, char uplo, int hot, int K, int T, db_times *tt, sieve_result *r)
{
  memset(r, 0, sizeof *r);
  if (db_time_table(d, symv_routine_name(ro), ns, (size_t)nsizes, uplo, hot, DB_STAGE_SWEEP, tt)) return SYMV_DB;
  if (tt->ncand == 0) {
    db_times_free(tt);
    return SYMV_NOT_FOUND;
  }
  int *family = calloc(tt->ncand, sizeof *family);
  int rc = family ? 0 : SYMV_NO_MEMORY;
  for (size_t c = 0; !rc && c < tt->ncand; c++) {
    symv_family f;
    family[c] = symv_family_parse(tt->cand[c].family, &f) ? -1 : (int)f;
  }
  if (!rc) rc = sieve_rank(tt->median_us, (int)tt->ncand, nsizes, family, K, T, r);
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

int sweep_params_of(const db_candidate *c, symv_params *p)
{
  if (symv_family_parse(c->family, &p->family)) return SYMV_INVALID_VALUE;
  p->block_size = c->block_size, p->ux = c->ux, p->multiplicity = c->multiplicity, p->mx = c->mx;
  if (symv_routine_parse(c->routine, &p->routine)) return SYMV_INVALID_VALUE;
  return symv_params_check(p, NULL, 0);
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

static int record_invalid(db *d, db_candidate *c, db_reason reason, const char *detail, double cms, int regs)
{
  c->status = DB_INVALID;
  c->reason = reason;
  snprintf(c->detail, sizeof c->detail, "%s", detail);
  c->compile_ms = cms;
  c->regs_per_thread = regs;
  if (db_begin(d)) return SYMV_DB;
  if (db_set_candidate_result(d, c)) {
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

int sweep_measure(db *d, sweep_worker *w, const sweep_opts *o, const db_candidate *cands, long ncand,
                  const int *ns, int nsizes, db_stage stage, volatile int *interrupted, sweep_stats *st,
                  symv_progress *prog)
{
  int rc = 0;
  /* best time so far at each size: the pruning threshold's base */
  double *best = malloc(sizeof(double) * (size_t)nsizes);
  symv_params *code = malloc(sizeof(symv_params) * (size_t)(ncand ? ncand : 1));
  long *code_of = malloc(sizeof(long) * (size_t)(ncand ? ncand : 1));
  if (!best || !code || !code_of) {
    free(best), free(code), free(code_of);
    return SYMV_NO_MEMORY;
  }
  for (int i = 0; i < nsizes; i++) {
    best[i] = INFINITY;
    for (int b = 0; b < 2; b++) {
      db_measurement *ml = NULL;
      size_t cnt = 0;
      if (!db_baseline_measurements(d, symv_routine_name(o->routine), b ? "cublas_atomics" : "cublas", stage, o->uplo, o->hot, &ml, &cnt))
        for (size_t k = 0; k < cnt; k++)
          if (ml[k].n == ns[i] && ml[k].median_us < best[i]) best[i] = ml[k].median_us;
      free(ml);
    }
  }
  db_times tt;
  if (stage == DB_STAGE_SWEEP && !db_time_table(d, symv_routine_name(o->routine), ns, (size_t)nsizes, o->uplo, o->hot, stage, &tt)) {
    for (size_t c = 0; c < tt.ncand; c++)
      for (int i = 0; i < nsizes; i++) {
        double v = tt.median_us[c * (size_t)nsizes + (size_t)i];
        if (v > 0 && v < best[i]) best[i] = v;
      }
    db_times_free(&tt);
  }
  /* distinct codes, in order */
  long ncode = 0;
  for (long i = 0; i < ncand; i++) {
    symv_params p;
    code_of[i] = -1;
    if (sweep_params_of(&cands[i], &p)) continue;
    if (ncode > 0 && symv_params_same_code(&code[ncode - 1], &p)) {
      code_of[i] = ncode - 1;
      continue;
    }
    code[ncode] = p;
    code_of[i] = ncode++;
  }
  compile_pool cp = {.code = code, .ncode = ncode, .cc_major = w->dev.cc_major, .cc_minor = w->dev.cc_minor,
                     .stop = interrupted, .busy_from = symv_now()};
  cp.state = calloc((size_t)(ncode ? ncode : 1), sizeof *cp.state);
  cp.ms = calloc((size_t)(ncode ? ncode : 1), sizeof *cp.ms);
  cp.log = calloc((size_t)(ncode ? ncode : 1), sizeof *cp.log);
  pthread_mutex_init(&cp.mu, NULL);
  pthread_cond_init(&cp.cv, NULL);
  int nthreads = o->jobs > 0 ? o->jobs : 1;
  pthread_t th[256];
  if (nthreads > 256) nthreads = 256;
  for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, compile_thread, &cp);

  long valid = 0, invalid = 0;
  char note[96];
  for (long i = 0; i < ncand && !rc; i++) {
    db_candidate c = cands[i];
    symv_progress_update(prog, prog->done, NULL);
    if (*interrupted) {
      rc = SYMV_INTERRUPTED;
      break;
    }
    /* what is left to do for this candidate */
    char sizes[8192] = "";
    int len = 0, todo = 0;
    for (int k = 0; k < nsizes; k++) {
      int found = 0;
      if (stage == DB_STAGE_DENSE && db_has_measurement(d, c.id, ns[k], o->uplo, o->hot, stage, &found)) {
        rc = SYMV_DB;
        break;
      }
      if (found) continue;
      double prune = stage == DB_STAGE_SWEEP && o->prune > 0 && isfinite(best[k]) ? o->prune * best[k] : 0;
      len += snprintf(sizes + len, sizeof sizes - (size_t)len, "%s%d:%.4g", todo++ ? "," : "", ns[k], prune);
    }
    if (rc) break;
    if ((stage == DB_STAGE_SWEEP && c.status != DB_PENDING) || !todo || code_of[i] < 0) {
      if (code_of[i] < 0) record_invalid(d, &c, DB_REASON_COMPILE, "unknown family or parameters", 0, 0);
      symv_progress_update(prog, prog->done + 1, NULL);
      continue;
    }
    /* its code must be compiled (or have failed) first */
    long ci = code_of[i];
    pthread_mutex_lock(&cp.mu);
    while (cp.state[ci] == 0 && !*interrupted) pthread_cond_wait(&cp.cv, &cp.mu);
    int cstate = cp.state[ci];
    double cms = cp.ms[ci];
    pthread_mutex_unlock(&cp.mu);
    if (*interrupted) {
      rc = SYMV_INTERRUPTED;
      break;
    }
    if (cstate < 0) {
      char detail[400];
      snprintf(detail, sizeof detail, "%.390s", cp.log[ci] ? cp.log[ci] : "NVRTC failed");
      for (char *q = detail; *q; q++)
        if (*q == '\n') *q = ' ';
      if ((rc = record_invalid(d, &c, DB_REASON_COMPILE, detail, 0, 0))) break;
      invalid++;
      symv_progress_update(prog, prog->done + 1, NULL);
      continue;
    }
    int attempts = 0;
    if (db_start_attempt(d, c.id, &attempts)) {
      rc = SYMV_DB;
      break;
    }
    if (attempts > o->max_attempts) {
      char detail[128];
      snprintf(detail, sizeof detail, "stopped the sweep %d times while being measured", attempts - 1);
      if ((rc = record_invalid(d, &c, DB_REASON_FAULT, detail, cms, 0))) break;
      invalid++;
      symv_progress_update(prog, prog->done + 1, NULL);
      continue;
    }
    char point[64];
    symv_params p;
    sweep_params_of(&c, &p);
    symv_params_format(&p, point, sizeof point);
    double t0 = symv_now();
    db_measurement ms[256];
    int nms = 0, regs = 0, done = 0, lrc = 0;
    db_reason why = DB_REASON_NONE;
    char detail[512] = "", line[2048];
    if (worker_send(w, "cand %s %s %s", point, db_stage_name(stage), sizes)) lrc = SYMV_IO;
    while (!lrc && !done) {
      lrc = worker_line(w, line, sizeof line, o->timeout_s, interrupted);
      if (lrc) break;
      if (!strncmp(line, "load ", 5)) {
        regs = atoi(line + 5);
      } else if (!strncmp(line, "meas ", 5)) {
        if (nms < 256 && !parse_meas(line, o->routine, &ms[nms], o->uplo, o->hot, stage)) nms++;
      } else if (!strcmp(line, "ok")) {
        done = 1;
      } else if (!strncmp(line, "invalid ", 8)) {
        char rname[32] = "";
        int used = 0;
        sscanf(line + 8, "%31s %n", rname, &used);
        why = reason_of(rname);
        snprintf(detail, sizeof detail, "%s", line + 8 + used);
        done = 1;
      } else if (!strncmp(line, "error", 5)) {
        fprintf(stderr, "\nsymvtune sweep: worker: %s\n", line);
        lrc = SYMV_IO;
      }
    }
    st->measure_s += symv_now() - t0;
    if (lrc == SYMV_INTERRUPTED) {
      rc = lrc;
      break;
    }
    if (lrc == SYMV_TIMEOUT || lrc == SYMV_IO || why == DB_REASON_FAULT) {
      /* the worker is hung, dead or lost its context: a new one */
      int status = 0;
      if (lrc == SYMV_TIMEOUT) {
        kill(w->pid, SIGKILL);
        why = DB_REASON_TIMEOUT;
        snprintf(detail, sizeof detail, "no answer in %.0f s", o->timeout_s);
      } else if (lrc == SYMV_IO) {
        why = DB_REASON_FAULT;
        if (waitpid(w->pid, &status, 0) == w->pid && WIFSIGNALED(status))
          snprintf(detail, sizeof detail, "worker killed by signal %d", WTERMSIG(status));
        else if (!detail[0])
          snprintf(detail, sizeof detail, "worker died");
      }
      sweep_worker_stop(w);
      if ((rc = record_invalid(d, &c, why, detail, cms, regs))) break;
      invalid++;
      w->restarts++;
      if ((rc = sweep_worker_start(w, o))) break;
    } else if (why != DB_REASON_NONE) {
      if ((rc = record_invalid(d, &c, why, detail, cms, regs))) break;
      invalid++;
    } else {
      c.status = DB_VALID;
      c.reason = DB_REASON_NONE;
      c.detail[0] = 0;
      c.compile_ms = cms;
      c.regs_per_thread = regs;
      if (db_begin(d)) {
        rc = SYMV_DB;
        break;
      }
      for (int k = 0; k < nms && !rc; k++)
        if (db_put_measurement(d, c.id, &ms[k])) rc = SYMV_DB;
      if (!rc && stage == DB_STAGE_SWEEP && db_set_candidate_result(d, &c)) rc = SYMV_DB;
      if (rc) {
        db_rollback(d);
        break;
      }
      if (db_commit(d)) {
        rc = SYMV_DB;
        break;
      }
      valid++;
      st->measured++;
      for (int k = 0; k < nms; k++)
        for (int s = 0; s < nsizes; s++)
          if (ns[s] == ms[k].n && ms[k].batches > 1 && ms[k].median_us < best[s]) best[s] = ms[k].median_us;
    }
    snprintf(note, sizeof note, "valid %ld invalid %ld", valid, invalid);
    symv_progress_update(prog, prog->done + 1, note);
  }
  pthread_mutex_lock(&cp.mu);
  cp.next = cp.ncode; /* nothing more to compile */
  pthread_mutex_unlock(&cp.mu);
  for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
  st->compile_s += cp.busy_to > cp.busy_from ? cp.busy_to - cp.busy_from : 0;
  for (long i = 0; i < ncode; i++) {
    st->compile_cpu_s += cp.ms[i] / 1e3;
    free(cp.log[i]);
  }
  st->compiled += cp.compiled, st->cached += cp.cached;
  free(cp.state), free(cp.ms), free(cp.log);
  pthread_mutex_destroy(&cp.mu);
  pthread_cond_destroy(&cp.cv);
  free(best), free(code), free(code_of);
  return rc;
}
