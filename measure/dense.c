/* SPDX-License-Identifier: BSD-3-Clause */
/* dense.c - the dense stage of the sweep (dense.h): the champions and
 * cuBLAS timed across the size range, on a grid or adaptively, then a
 * second look at the kernels near the fastest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../db/db.h"
#include "../fit/fit.h"
#include "adaptive.h"
#include "dense.h"
#include "reference.h"
#include "routine.h"
#include "sweep.h"
#include "symv_error.h"

int dense_grid(int lo, int hi, int *out, int max)
{
  const int top = hi % 2 ? hi : hi - 1; /* the last size: hi, or the odd size below it */
  int k = 0;
  for (int j = 0; k < max; j++) {
    int n = (int)floor(lo * pow(10.0, j / 24.0) + 0.5) | 1;
    if (n >= top) break;
    if (k == 0 || n != out[k - 1]) out[k++] = n;
  }
  if (k < max && top >= 1 && (k == 0 || out[k - 1] != top)) out[k++] = top;
  return k;
}

int dense_default_grid(symv_routine ro, size_t global_mem, int *out, int max)
{
  int hi = 32768;
  while (hi > 1024 && (double)hi * hi * symv_routine_get(ro)->elem_bytes > 0.2 * (double)global_mem) hi /= 2;
  return dense_grid(33, hi, out, max);
}

/* What the dense stage holds of this sweep's kernels (the champions and both
 * cuBLAS modes) over lo..hi: each kernel's samples, for the planner, and
 * the totals, for the summary. */
typedef struct {
  int ncurves;            /* nchamp + 2: cublas, cublas_atomics, then the champions */
  adaptive_curve *c;      /* [ncurves]; c[k].n, c[k].us malloc'ed */
  int sizes;              /* distinct n sampled by any of them */
  long measurements;      /* samples (kernel x n) */
  long long calls;        /* timed calls behind them: batches x calls per batch */
  double timed_s;         /* the GPU time of those calls, seconds (median x calls) */
} dense_data;

static void dense_data_free(dense_data *dd)
{
  for (int k = 0; dd->c && k < dd->ncurves; k++) free((void *)dd->c[k].n), free((void *)dd->c[k].us);
  free(dd->c);
  memset(dd, 0, sizeof *dd);
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Sorts n[0..k) and drops repeats; returns the new count. */
static int sort_unique(int *n, int k)
{
  qsort(n, (size_t)k, sizeof *n, cmp_int);
  int w = 0;
  for (int i = 0; i < k; i++)
    if (w == 0 || n[i] != n[w - 1]) n[w++] = n[i];
  return w;
}

/* The shape of champion c's curve for the planner on a GPU of sm_count
 * SMs: its work items (fit_step_width: UX or pipe_det's units as columns,
 * panel's rows as a negative count) and G (fit_grid_blocks); both 0 for a
 * curve without steps. */
static void champion_shape(const db_candidate *c, int sm_count, adaptive_curve *out)
{
  out->step_width = fit_step_width(c), out->grid_blocks = fit_grid_blocks(c, sm_count);
}

/* Reads the dense samples of both cuBLAS modes and the nchamp champions at
 * (o->uplo, o->hot) within lo..hi into *dd (release with dense_data_free);
 * the persistent champions' curves get their steps on a GPU of sm_count
 * SMs (fit_grid_blocks). Errors: SYMV_DB, SYMV_NO_MEMORY (dd is then empty). */
static int dense_load(db *d, const sweep_opts *o, const db_candidate *champ, long nchamp, int lo, int hi, int sm_count,
                      dense_data *dd)
{
  static const char *const base[2] = {DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS};
  memset(dd, 0, sizeof *dd);
  dd->ncurves = (int)nchamp + 2;
  dd->c = calloc((size_t)dd->ncurves, sizeof *dd->c);
  int *all = NULL, nall = 0, rc = dd->c ? 0 : SYMV_NO_MEMORY;
  for (int k = 0; k < dd->ncurves && !rc; k++) {
    db_measurement *m = NULL;
    size_t cnt = 0;
    if (k < 2 ? db_baseline_measurements(d, o->routine, base[k], DB_STAGE_DENSE, o->uplo, o->hot, &m, &cnt)
              : db_candidate_measurements(d, champ[k - 2].id, DB_STAGE_DENSE, o->uplo, o->hot, &m, &cnt)) {
      rc = SYMV_DB;
      break;
    }
    int *n = malloc(sizeof *n * (cnt + 1)), *grown = realloc(all, sizeof *all * ((size_t)nall + cnt + 1));
    double *us = malloc(sizeof *us * (cnt + 1));
    if (grown) all = grown;
    if (!n || !us || !grown) {
      free(n), free(us), free(m);
      rc = SYMV_NO_MEMORY;
      break;
    }
    int j = 0;
    for (size_t i = 0; i < cnt; i++)
      if (m[i].n >= lo && m[i].n <= hi) {
        n[j] = m[i].n, us[j++] = m[i].median_us;
        all[nall++] = m[i].n;
        dd->measurements++;
        dd->calls += (long long)m[i].batches * m[i].calls_per_batch;
        dd->timed_s += 1e-6 * m[i].median_us * m[i].batches * m[i].calls_per_batch;
      }
    dd->c[k] = (adaptive_curve){n, us, j, 0, 0};
    if (k >= 2) champion_shape(&champ[k - 2], sm_count, &dd->c[k]);
    free(m);
  }
  if (!rc) dd->sizes = sort_unique(all, nall);
  free(all);
  if (rc) dense_data_free(dd);
  return rc;
}

/* What the dense stage did, for the summary. */
typedef struct {
  int rounds;             /* planning rounds that timed new sizes (adaptive) */
  const char *stop;       /* why the planner stopped (adaptive_state.stop) */
  double bound;           /* its last predicted regret bound (ratio), NAN if none */
  int worst_n;            /* where */
} dense_report;

/* Times the champions alone at the sizes of todo[0..ntodo) that each lacks
 * (on the first GPU alone), with a progress bar labelled label. */
static int dense_measure_champions(db *d, sweep_worker *w, const sweep_opts *o, const db_candidate *champ, long nchamp,
                                   const int *todo, int ntodo, const char *label, volatile int *interrupted,
                                   sweep_stats *st)
{
  symv_progress prog;
  symv_progress_start(&prog, label, nchamp, o->quiet);
  sweep_stats st2 = {0};
  const sweep_measure_args ma = {.d = d, .w = w, .nworkers = 1, .o = o, .worker_base = NULL, .cands = champ,
                                 .ncand = nchamp, .ns = todo, .nsizes = ntodo, .stage = DB_STAGE_DENSE,
                                 .interrupted = interrupted, .st = &st2, .prog = &prog};
  int rc = sweep_measure(&ma);
  symv_progress_finish(&prog);
  st->measure_s += st2.measure_s;
  return rc;
}

/* Times the champions and cuBLAS at the sizes of todo[0..ntodo) that each
 * lacks (on the first GPU alone: the fit compares these curves with each
 * other), with a progress bar labelled label. */
static int dense_measure(db *d, sweep_worker *w, const sweep_opts *o, const db_candidate *champ, long nchamp,
                         const int *todo, int ntodo, const char *label, volatile int *interrupted, sweep_stats *st)
{
  int rc = sweep_baselines(d, &w[0], o, todo, ntodo, DB_STAGE_DENSE);
  if (rc) return rc;
  return dense_measure_champions(d, w, o, champ, nchamp, todo, ntodo, label, interrupted, st);
}

/* Times the sizes todo[0..ntodo) as the planner wants them
 * (adaptive_wants over shape[0..nchamp + 2): both cuBLAS modes, then the
 * champions, no samples needed): every kernel at a size every curve wants,
 * only the champions with the step at a step size; the step sizes that
 * want the same champions (the two sides of a step) are timed together. */
static int dense_measure_planned(db *d, sweep_worker *w, const sweep_opts *o, const db_candidate *champ, long nchamp,
                                 const adaptive_opts *ao, const adaptive_curve *shape, const int *todo, int ntodo,
                                 const char *label, volatile int *interrupted, sweep_stats *st)
{
  const int nc = (int)nchamp + 2;
  const size_t nw = (size_t)ntodo * (size_t)nc;
  char *want = malloc(nw + 1), *done = calloc((size_t)ntodo + 1, 1);
  int *sizes = malloc(sizeof *sizes * ((size_t)ntodo + 1)), ns = 0;
  db_candidate *sub = malloc(sizeof *sub * ((size_t)nchamp + 1));
  int rc = want && done && sizes && sub ? 0 : SYMV_NO_MEMORY;
  for (int i = 0; i < ntodo && !rc; i++) {
    int all = 1;
    for (int k = 0; k < nc; k++) all &= want[(size_t)i * nc + k] = (char)adaptive_wants(ao, shape, nc, k, todo[i]);
    if (all) sizes[ns++] = todo[i], done[i] = 1;
  }
  if (!rc && ns) rc = dense_measure(d, w, o, champ, nchamp, sizes, ns, label, interrupted, st);
  for (int i = 0; i < ntodo && !rc; i++) {
    if (done[i]) continue;
    ns = 0;
    for (int j = i; j < ntodo; j++)
      if (!done[j] && !memcmp(&want[(size_t)j * nc], &want[(size_t)i * nc], (size_t)nc)) sizes[ns++] = todo[j], done[j] = 1;
    long nsub = 0;
    for (long k = 0; k < nchamp; k++)
      if (want[(size_t)i * nc + k + 2]) sub[nsub++] = champ[k];
    if (nsub) rc = dense_measure_champions(d, w, o, sub, nsub, sizes, ns, label, interrupted, st);
  }
  free(want), free(done), free(sizes), free(sub);
  return rc;
}

/* The adaptive dense stage (measure/adaptive.h): the planner's start set,
 * then its batches, each timed for every champion and both cuBLAS modes,
 * until it stops. The sizes are chosen from the samples in the database
 * alone, so a resumed run first completes the sizes some kernel lacks, then
 * plans from there as the interrupted run would have. grid[0..ngrid) is
 * ascending; explicit: it is the lattice to choose from (--dense-sizes),
 * else only its range is used. Errors: as sweep_measure, SYMV_INVALID_VALUE
 * (a budget smaller than the start set: reported here). */
static int dense_adaptive(db *d, sweep_worker *w, const sweep_opts *o, const db_candidate *champ, long nchamp,
                          const int *grid, int ngrid, int explicit, double target, int budget,
                          volatile int *interrupted, sweep_stats *st, dense_report *rep)
{
  adaptive_opts ao;
  adaptive_opts_init(&ao, grid[0], grid[ngrid - 1]);
  if (explicit) ao.lattice = grid, ao.nlattice = ngrid;
  else ao.odd = 1; /* dense_grid's sizes are odd: so are the planner's */
  ao.target = target;
  ao.max_sizes = budget ? budget : ngrid / 2 > 2 ? ngrid / 2 : 2;
  int nstart = 0, *next = malloc(sizeof *next * (size_t)(DENSE_MAX_SIZES + 1));
  int *tried = malloc(sizeof *tried * (size_t)(DENSE_MAX_SIZES + 1)), ntried = 0;
  dense_data dd = {0};
  int rc = next && tried ? adaptive_start(&ao, next, DENSE_MAX_SIZES + 1, &nstart) : SYMV_NO_MEMORY;
  if (!rc && nstart > ao.max_sizes) {
    fprintf(stderr, "symvtune sweep: --dense-budget %d is smaller than the adaptive start set (%d sizes from %d to %d)\n",
            ao.max_sizes, nstart, ao.lo, ao.hi);
    rc = SYMV_INVALID_VALUE;
  }
  if (!rc && !o->quiet)
    fprintf(stderr, "dense: %ld champions and cuBLAS, adaptive sizes from %d to %d: %d to start, at most %d in all "
            "(the grid has %d), until the predicted regret bound is at most %.3g%%\n", nchamp, ao.lo, ao.hi, nstart,
            ao.max_sizes, ngrid, 100 * target);
  /* what an earlier run left: complete it before planning */
  int ntodo = 0;
  if (!rc && !(rc = dense_load(d, o, champ, nchamp, ao.lo, ao.hi, w[0].dev.sm_count, &dd))) {
    int *all = malloc(sizeof *all * (size_t)(dd.measurements + 1)), nall = 0;
    if (!all) rc = SYMV_NO_MEMORY;
    for (int k = 0; all && k < dd.ncurves; k++)
      for (int i = 0; i < dd.c[k].nsamples; i++) all[nall++] = dd.c[k].n[i];
    if (all) nall = sort_unique(all, nall);
    /* more than DENSE_MAX_SIZES sizes: an earlier grid stage; the planner counts them all */
    for (int i = 0; i < nall && ntodo < DENSE_MAX_SIZES; i++) next[ntodo++] = all[i];
    free(all);
    if (ntodo && !o->quiet) fprintf(stderr, "dense: %d sizes already sampled: completing them first\n", ntodo);
    dense_data_free(&dd);
  }
  /* the curves' shapes, for adaptive_wants: both cuBLAS modes, then the champions */
  adaptive_curve *shape = calloc((size_t)nchamp + 2, sizeof *shape);
  if (!shape && !rc) rc = SYMV_NO_MEMORY;
  for (long k = 0; shape && k < nchamp; k++) champion_shape(&champ[k], w[0].dev.sm_count, &shape[k + 2]);
  char label[32] = "dense";
  while (!rc) {
    if (ntodo && (rc = dense_measure_planned(d, w, o, champ, nchamp, &ao, shape, next, ntodo, label, interrupted, st))) break;
    for (int i = 0; i < ntodo && ntried < DENSE_MAX_SIZES; i++) tried[ntried++] = next[i];
    ntried = sort_unique(tried, ntried);
    if ((rc = dense_load(d, o, champ, nchamp, ao.lo, ao.hi, w[0].dev.sm_count, &dd))) break;
    adaptive_state as;
    rc = adaptive_next(&ao, dd.c, dd.ncurves, next, DENSE_MAX_SIZES + 1, &ntodo, &as);
    dense_data_free(&dd);
    if (rc) break;
    rep->bound = as.bound, rep->worst_n = as.worst_n, rep->stop = as.stop;
    if (!ntodo) break;
    /* a size where nothing could be timed stays unsampled: not again */
    int fresh = 0;
    for (int i = 0; i < ntodo; i++) fresh += !bsearch(&next[i], tried, (size_t)ntried, sizeof *tried, cmp_int);
    if (!fresh) {
      fprintf(stderr, "symvtune sweep: dense: no kernel could be timed at n = %d; the adaptive stage stops there\n", next[0]);
      rep->stop = "untimable sizes";
      break;
    }
    rep->rounds++;
    snprintf(label, sizeof label, "dense %d", rep->rounds);
    if (!o->quiet) {
      char list[2048];
      sweep_sizes_text(next, ntodo, list, sizeof list);
      if (as.starting)
        fprintf(stderr, "dense: round %d: the start set, %d sizes: %s\n", rep->rounds, ntodo, list);
      else
        fprintf(stderr, "dense: round %d: %d sizes (%d sampled so far; predicted regret bound %.2f%%, largest at n = %d, "
                "%d crossings of the best kernel): %s\n", rep->rounds, ntodo, as.nsampled, 100 * (as.bound - 1),
                as.worst_n, as.crossings, list);
    }
  }
  free(next), free(tried), free(shape);
  return rc;
}

/* What the second look did, for the summary. */
typedef struct {
  long retimed;  /* (kernel, n) timed again */
  long lowered;  /* of them, read faster the second time (the lesser kept) */
  long long calls; /* the timed calls of the second look */
  double most;   /* the largest first / second time among those */
  char most_label[64];
  int most_n;
} dense_confirm_report;

/* Lowers the stored dense samples of kernel k (0, 1: cuBLAS's modes, then
 * the champions) at the sizes ns[0..nn) to the times us[] where those are
 * less (NAN: not timed), in one transaction, and counts them in *cr
 * (label names the kernel there). Errors: SYMV_DB (nothing changed). */
static int lower_samples(db *d, const sweep_opts *o, const db_candidate *champ, int k, const char *label, const int *ns,
                         const double *us, int nn, dense_confirm_report *cr)
{
  static const char *const base[2] = {DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS};
  db_measurement *m = NULL;
  size_t cnt = 0;
  if (k < 2 ? db_baseline_measurements(d, o->routine, base[k], DB_STAGE_DENSE, o->uplo, o->hot, &m, &cnt)
            : db_candidate_measurements(d, champ[k - 2].id, DB_STAGE_DENSE, o->uplo, o->hot, &m, &cnt))
    return SYMV_DB;
  dense_confirm_report add = {0};
  int rc = db_begin(d) ? SYMV_DB : 0;
  for (int i = 0; i < nn && !rc; i++) {
    if (!(us[i] > 0)) continue;
    add.retimed++;
    for (size_t j = 0; j < cnt && !rc; j++) {
      if (m[j].n != ns[i] || !(us[i] < m[j].median_us)) continue;
      const double first = m[j].median_us;
      m[j].median_us = us[i];
      if (us[i] < m[j].min_us) m[j].min_us = us[i];
      m[j].gflops = symv_gflops(o->routine, ns[i], us[i]), m[j].gbs = symv_gbs(o->routine, ns[i], us[i]);
      if (k < 2 ? db_put_baseline(d, o->routine, base[k], &m[j]) : db_put_measurement(d, champ[k - 2].id, &m[j])) rc = SYMV_DB;
      add.lowered++;
      if (first / us[i] > add.most)
        add.most = first / us[i], add.most_n = ns[i], snprintf(add.most_label, sizeof add.most_label, "%s", label);
    }
  }
  if (!rc && db_commit(d)) rc = SYMV_DB;
  if (rc) {
    db_rollback(d);
  } else {
    cr->retimed += add.retimed, cr->lowered += add.lowered;
    if (add.most > cr->most)
      cr->most = add.most, cr->most_n = add.most_n, snprintf(cr->most_label, sizeof cr->most_label, "%s", label);
  }
  free(m);
  return rc;
}

/* The dense stage's second look. A kernel's samples are taken in one pass
 * over the sizes, and a disturbance that lasts as long reads them all slow
 * together. So every kernel within DENSE_CONFIRM_SPREAD of the fastest at a
 * dense size is timed there again, the kernels in the reverse order and the
 * sizes descending, and the lesser of the two times is kept. A resumed
 * sweep looks again (it lowers nothing that is right). Errors: SYMV_DB,
 * SYMV_NO_MEMORY, SYMV_INTERRUPTED; a worker that stops answering ends the
 * second look with the first times standing. */
static int dense_confirm(db *d, sweep_worker *w, const sweep_opts *o, const db_candidate *champ, long nchamp, int lo,
                         int hi, volatile int *interrupted, dense_confirm_report *cr)
{
  dense_data dd;
  memset(cr, 0, sizeof *cr);
  int rc = dense_load(d, o, champ, nchamp, lo, hi, 0, &dd);
  if (rc) return rc;
  int *sizes = malloc(sizeof *sizes * (size_t)(dd.measurements + 1)), ns = 0;
  double *best = malloc(sizeof *best * (size_t)(dd.measurements + 1)), *t = NULL;
  int *list = malloc(sizeof *list * (size_t)(dd.measurements + 1));
  t = malloc(sizeof *t * (size_t)(dd.measurements + 1));
  if (!sizes || !best || !list || !t) rc = SYMV_NO_MEMORY;
  for (int k = 0; !rc && k < dd.ncurves; k++)
    for (int i = 0; i < dd.c[k].nsamples; i++) sizes[ns++] = dd.c[k].n[i];
  if (!rc) ns = sort_unique(sizes, ns);
  for (int q = 0; !rc && q < ns; q++) best[q] = INFINITY;
  for (int k = 0; !rc && k < dd.ncurves; k++)
    for (int i = 0; i < dd.c[k].nsamples; i++) {
      const int *at = bsearch(&dd.c[k].n[i], sizes, (size_t)ns, sizeof *sizes, cmp_int);
      if (at && dd.c[k].us[i] > 0 && dd.c[k].us[i] < best[at - sizes]) best[at - sizes] = dd.c[k].us[i];
    }
  symv_progress prog;
  symv_progress_start(&prog, "dense, again", dd.ncurves, o->quiet);
  for (int k = dd.ncurves - 1; !rc && k >= 0; k--) {
    if (*interrupted) {
      rc = SYMV_INTERRUPTED;
      break;
    }
    int nl = 0;
    for (int i = dd.c[k].nsamples - 1; i >= 0; i--) { /* descending */
      const int *at = bsearch(&dd.c[k].n[i], sizes, (size_t)ns, sizeof *sizes, cmp_int);
      if (at && dd.c[k].us[i] > 0 && dd.c[k].us[i] <= DENSE_CONFIRM_SPREAD * best[at - sizes]) list[nl++] = dd.c[k].n[i];
    }
    char what[96], label[64] = "";
    if (k < 2) {
      snprintf(what, sizeof what, "base %s", k ? DB_KERNEL_CUBLAS_ATOMICS : DB_KERNEL_CUBLAS);
      snprintf(label, sizeof label, "%s", k ? "cuBLAS-atomics" : "cuBLAS");
    } else {
      const symv_params *p = &champ[k - 2].p;
      if (symv_params_check(p, NULL, 0)) nl = 0;
      else symv_params_format(p, label, sizeof label), snprintf(what, sizeof what, "cand %s", label);
    }
    if (nl) {
      char err[512];
      int wr = sweep_worker_times(&w[0], o, what, list, nl, t, &cr->calls, err, sizeof err);
      if (wr == SYMV_IO || wr == SYMV_TIMEOUT) { /* the worker is gone: the first look stands */
        fprintf(stderr, "symvtune sweep: dense, again: %s: the worker stopped answering; the first times stand\n", label);
        break;
      }
      rc = lower_samples(d, o, champ, k, label, list, t, nl, cr);
    }
    symv_progress_update(&prog, prog.done + 1, NULL);
  }
  symv_progress_finish(&prog);
  free(sizes), free(best), free(list), free(t);
  dense_data_free(&dd);
  return rc;
}

/* The dense stage's part of the summary: sizes, rounds, timed calls. */
static void dense_summary(dense_mode mode, const dense_data *before, const dense_data *after, int ngrid, const dense_report *rep,
                          int lo, int hi)
{
  printf("\n  dense stage (%s): %d sizes from %d to %d", mode == DENSE_GRID ? "grid" : "adaptive", after->sizes, lo, hi);
  if (mode == DENSE_ADAPTIVE) {
    printf(" (the grid: %d) in %d round%s", ngrid, rep->rounds, rep->rounds == 1 ? "" : "s");
    if (rep->stop && !strcmp(rep->stop, "target"))
      printf("; stopped: no unsampled size's predicted regret bound above the target (largest, %.2f%%, at n = %d)",
             100 * (rep->bound - 1), rep->worst_n);
    else if (rep->stop)
      printf("; stopped: %s, predicted regret bound %.2f%% (largest at n = %d)", !strcmp(rep->stop, "budget") ?
             "budget spent" : !strcmp(rep->stop, "lattice") ? "no size left" : rep->stop, 100 * (rep->bound - 1),
             rep->worst_n);
  }
  printf("\n  timed: %ld measurements (%d kernels x sizes), %lld timed calls, %.1f s of GPU time in them; this run: %ld "
         "measurements, %lld calls, %.1f s\n", after->measurements, after->ncurves, after->calls, after->timed_s,
         after->measurements - before->measurements, after->calls - before->calls, after->timed_s - before->timed_s);
}

/* The second look's part of the summary. */
static void dense_confirm_summary(const dense_confirm_report *cr)
{
  if (!cr->retimed) return;
  printf("  timed again: %ld (kernel, n) within %.2gx of the fastest there, kernels and sizes in reverse "
         "order, %lld timed calls; %ld read faster and were lowered", cr->retimed, DENSE_CONFIRM_SPREAD,
         cr->calls, cr->lowered);
  if (cr->lowered) printf(" (most: %s at n = %d, x%.2f)", cr->most_label, cr->most_n, cr->most);
  printf("\n");
}

/* The dense stage for the nchamp champions at the sizes dn[0..ndense)
 * (grid[0..ngrid): the same sorted without repeats, for the adaptive mode;
 * explicit: the sizes were given): times them (grid or adaptive), looks
 * again, and prints the summary of what the database holds then. *reported
 * is set where an SYMV_INVALID_VALUE was reported. Errors as dense_stage. */
static int dense_champions(db *d, sweep_worker *w, const sweep_opts *o, const dense_opts *dop, const db_candidate *champ,
                           long nchamp, const int *dn, int ndense, const int *grid, int ngrid, int explicit,
                           sweep_stats *st, int *reported)
{
  int lo = dn[0], hi = dn[0];
  for (int i = 0; i < ndense; i++) lo = dn[i] < lo ? dn[i] : lo, hi = dn[i] > hi ? dn[i] : hi;
  dense_data before = {0}, after = {0};
  dense_report rep = {0, NULL, NAN, 0};
  int rc;
  if ((rc = dense_load(d, o, champ, nchamp, lo, hi, 0, &before)) == 0) {
    if (dop->mode == DENSE_GRID) {
      if (!o->quiet) fprintf(stderr, "dense: %ld champions, cuBLAS and the floor at %d sizes from %d to %d\n", nchamp, ndense, lo, hi);
      rc = dense_measure(d, w, o, champ, nchamp, dn, ndense, "dense", dop->interrupted, st);
    } else {
      rc = dense_adaptive(d, w, o, champ, nchamp, grid, ngrid, explicit, dop->target, dop->budget, dop->interrupted, st,
                          &rep);
      *reported = rc == SYMV_INVALID_VALUE;
    }
    dense_confirm_report cr = {0};
    if (!rc) rc = dense_confirm(d, w, o, champ, nchamp, lo, hi, dop->interrupted, &cr);
    if ((!rc || rc == SYMV_INTERRUPTED) && !dense_load(d, o, champ, nchamp, lo, hi, 0, &after)) {
      dense_summary(dop->mode, &before, &after, ngrid, &rep, lo, hi);
      dense_confirm_summary(&cr);
    }
  }
  if (rc == SYMV_DB) fprintf(stderr, "symvtune sweep: dense stage: %s\n", db_errmsg(d));
  dense_data_free(&before), dense_data_free(&after);
  return rc;
}

int dense_stage(db *d, sweep_worker *w, const sweep_opts *o, const dense_opts *dop, sweep_stats *st, int *reported)
{
  int dn[DENSE_MAX_SIZES], ndense = dop->sizes ? dop->nsizes : 0, explicit_grid = ndense > 0;
  int dummy = 0;
  if (!reported) reported = &dummy;
  if (ndense) memcpy(dn, dop->sizes, sizeof *dn * (size_t)ndense);
  else ndense = dense_default_grid(o->routine, w[0].dev.global_mem, dn, DENSE_MAX_SIZES);
  db_candidate *champ = NULL;
  long nchamp = 0;
  int grid[DENSE_MAX_SIZES], rc;
  memcpy(grid, dn, sizeof *dn * (size_t)ndense);
  int ngrid = dop->mode == DENSE_ADAPTIVE ? sort_unique(grid, ndense) : ndense;
  if (dop->mode == DENSE_ADAPTIVE && ngrid < 2) {
    fprintf(stderr, "symvtune sweep: --dense adaptive needs two different --dense-sizes\n");
    rc = SYMV_INVALID_VALUE, *reported = 1;
  } else if ((rc = sweep_champions(d, o->routine, dop->sweep_ns, dop->sweep_nsizes, o->uplo, o->hot, dop->points_k,
                                   dop->top, &champ, &nchamp)) == 0) {
    rc = dense_champions(d, w, o, dop, champ, nchamp, dn, ndense, grid, ngrid, explicit_grid, st, reported);
  }
  free(champ);
  return rc;
}
