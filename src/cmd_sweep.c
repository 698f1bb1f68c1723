/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_sweep.c - `symvtune sweep`: measure the whole tuning space on the GPU
 * present into an SQLite database (doc/method.md section 4, steps 1-2):
 * enumerate, filter what cannot run, compile in parallel, verify every
 * candidate at every size against cuBLAS, time the valid ones and cuBLAS
 * (atomics off and on) at the representative sizes. Resumable: rerun the
 * same command after an interruption and it goes on where it stopped.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../db/db.h"
#include "../fit/fit.h"
#include "../sieve/sieve.h"
#include "adaptive.h"
#include "cli.h"
#include "gpu.h"
#include "reference.h"
#include "compile.h"
#include "space.h"
#include "shard.h"
#include "sweep.h"
#include "routine.h"
#include "symv_error.h"

#define MAX_SIZES 64
#define MAX_DENSE 512
#define MAX_DEVICES 64 /* workers of one sweep (sweep_measure's limit) */
static const int default_sizes[] = {256, 768, 2048, 6144, 16384};

/* Dense sizes: 24 per decade (ratio 10^(1/24) = 1.10), lo..hi rounded to
 * integers; 49 of them lie in 100..10,000 (the paper sampled 48 there). */
static int dense_sizes(int lo, int hi, int *out, int max)
{
  int k = 0;
  for (int j = 0; k < max; j++) {
    int n = (int)floor(lo * pow(10.0, j / 24.0) + 0.5);
    if (n > hi) break;
    if (k == 0 || n != out[k - 1]) out[k++] = n;
  }
  if (k < max && (k == 0 || out[k - 1] != hi)) out[k++] = hi;
  return k;
}

static volatile int interrupted;
static void on_signal(int sig) { interrupted = sig; }

static void help(void)
{
  puts("Usage: symvtune sweep --db FILE [OPTIONS]\n"
       "Measures the tuning space on this GPU into FILE (SQLite; created if absent).\n"
       "Sweep stage: enumerates the candidates of each family from the GPU's limits, drops those\n"
       "it cannot run (recording why), compiles the rest with NVRTC in parallel, verifies every\n"
       "candidate at every size against cuBLAS, and times it there, with cuBLAS (atomics off and\n"
       "on) as baselines; each batch is queued whole before the GPU runs it (the GPU's time, each\n"
       "call charged its launches at the least launch cost seen). Dense stage: ranks the valid\n"
       "candidates by champion points and times the champions and cuBLAS across the whole size\n"
       "range, then once more every kernel within 1.3x of the fastest at a size, in reverse\n"
       "order, keeping the lesser time, for `symvtune fit`.\n"
       "Interrupted (Ctrl-C, a crash), it loses at most the candidate in flight: run the same\n"
       "command again to resume.\n\n"
       "Options:\n"
       "  --db FILE         the database (required)\n"
       "  --families LIST   comma-separated: " SYMV_TUNABLE_FAMILIES " (default: all)\n"
       "  --wide            widen the space where the GPU allows: MULTIPLICITY up to the\n"
       "                    GPU's blocks per SM, larger BLOCK_SIZE (see man symvtune)\n"
       "  --sizes LIST      representative sizes n (default 256,768,2048,6144,16384: geometric,\n"
       "                    factor ~3, across the range where the kernel choice matters)\n"
       CLI_ROUTINE_HELP "                    (several: one sweep after the other);\n"
       "                    one database holds every routine of a GPU\n"
       "  --uplo L|U        stored triangle (default L)\n"
       "  --hot             time with A resident in L2 (default: cold, A rotated among\n"
       "                    copies larger than twice the L2)\n"
       "  --batches N       timed batches per measurement (default 5)\n"
       "  --prune F         time fully only candidates whose first batch (8 calls, 2 for\n"
       "                    kernels of 100 us or more, queued before the GPU starts them)\n"
       "                    is within F times the best time so far at that size; the\n"
       "                    others keep that one batch\n"
       "                    (default 2; 0 times everything fully)\n"
       "  --tol T           largest scaled residual accepted (default 4)\n"
       "  --timeout S       seconds a candidate may run without answering (default 20)\n"
       "  --jobs N          compiling threads (default: the number of CPUs); 0: none, each\n"
       "                    worker compiles its candidates itself (NVRTC cache shared)\n"
       "  --limit N         measure at most N candidates in this run (0: all)\n"
       "  --device N        CUDA device (default 0)\n"
       "  --devices LIST|all  several GPUs of this node (comma-separated device numbers, or every\n"
       "                    one): a worker process on each, candidates dealt out as each becomes\n"
       "                    free, one database; the GPUs must be of one model. Pruning on a GPU\n"
       "                    uses its own cuBLAS times; the summary reports how far the GPUs'\n"
       "                    cuBLAS times differ. The dense stage runs on the first GPU only, so\n"
       "                    that the curves the fit compares come from one GPU\n"
       "  --top T           champions sampled densely after the sweep: the top T by champion\n"
       "                    points (default 10) plus the best of each family with none there,\n"
       "                    plus the first min(6, T) of the deterministic families (lu, panel,\n"
       "                    pipe_det) ranked among themselves and the fastest of them at\n"
       "                    each size\n"
       "  --points-k K      the K fastest at each size earn points, (K+1-rank)/K (default 25)\n"
       "  --dense MODE      how the dense stage picks its sizes: adaptive (default) starts from\n"
       "                    8 sizes per decade and adds sizes in rounds where the fitted curves\n"
       "                    of the best kernels are close and uncertain, until the predicted\n"
       "                    regret bound is under --dense-target or --dense-budget sizes are\n"
       "                    timed; grid times every size of the grid (--dense-sizes)\n"
       "  --dense-sizes L   the grid (default: 24 per decade from 32 to 32768, or less where the\n"
       "                    GPU's memory is smaller); given alone it implies --dense grid; with\n"
       "                    --dense adaptive, the sizes adaptive sampling may choose from\n"
       "  --dense-target F  adaptive: stop when the predicted regret bound (the time of the\n"
       "                    chosen kernel over the best's, if each fitted curve is off by its\n"
       "                    uncertainty) is at most 1 + F at every size (default 0.01)\n"
       "  --dense-budget N  adaptive: at most N sizes in all (default: half the grid's)\n"
       "  --no-dense        stop after the sweep stage\n"
       "  --shard K/N       sweep only shard K (0..N-1) of the space, cut by kernel code and\n"
       "                    expected cost, the same way on every run and machine; implies\n"
       "                    --no-dense (the dense stage needs the champions of the whole\n"
       "                    space: `symvtune merge` the N databases, then sweep the merged one)\n"
       "  --allow-foreign   accept a database made on a different GPU\n"
       "  --quiet           no progress output\n"
       "  --help            this text\n"
       "Exit status: 0 done, 1 interrupted (resumable), 2 usage, 3 no GPU (no new database created), 4 database or system error.");
}

/* --families LIST into o->family: 0, or -1 for an empty list, an empty
 * item, a list too long, or a name that is not a tunable family. */
static int family_list(const char *s, symv_space_opts *o)
{
  char buf[256];
  if (!*s || strlen(s) >= sizeof buf) return -1;
  snprintf(buf, sizeof buf, "%s", s);
  memset(o->family, 0, sizeof o->family);
  /* strsep, not strtok: "" and "lu,,pipe" have empty items, which are errors */
  for (char *rest = buf, *tok; (tok = strsep(&rest, ",")) != NULL;) {
    symv_family f;
    if (symv_family_parse(tok, &f) || !symv_family_tunable(f)) return -1;
    o->family[f] = 1;
  }
  return 0;
}

/* The fault family is for tests only: SYMVTUNE_TEST_FAULTS=1 adds one
 * candidate that faults and one that hangs. */
static int add_test_faults(db *d, symv_routine ro)
{
  static const int modes[2] = {0, 1};
  for (int i = 0; i < 2; i++) {
    db_candidate c = {0};
    snprintf(c.routine, sizeof c.routine, "%s", symv_routine_name(ro));
    snprintf(c.family, sizeof c.family, "fault");
    c.block_size = 64, c.ux = 8, c.multiplicity = 1, c.mx = modes[i];
    if (db_put_candidate(d, &c, NULL)) return SYMV_DB;
  }
  return 0;
}

/* The GPUs of a --devices sweep side by side: what each measured, and the
 * spread of their cuBLAS times at each size (same kernel, same n): (slowest
 * - fastest) / fastest, percent. btimes as sweep_baselines_each. */
static void summary_gpus(const sweep_worker *w, int ndev, const double *btimes, const int *ns, int nsizes)
{
  printf("  GPUs: ");
  for (int k = 0; k < ndev; k++)
    printf("%s%d: %ld measured, %d restarts", k ? "; " : "", w[k].device, w[k].measured, w[k].restarts);
  printf("\n  spread between the GPUs, same kernel and n: (slowest - fastest) / fastest\n");
  printf("  %7s %-15s", "n", "baseline");
  for (int k = 0; k < ndev; k++) printf(" %8s%-2d", "us GPU ", w[k].device);
  printf(" %8s\n", "spread");
  for (int i = 0; i < nsizes; i++)
    for (int b = 0; b < 2; b++) {
      double lo = INFINITY, hi = 0;
      printf("  %7d %-15s", ns[i], b ? "cublas_atomics" : "cublas");
      for (int k = 0; k < ndev; k++) {
        double v = btimes[(k * 2 + b) * nsizes + i];
        printf(" %10.2f", v);
        if (v > 0) lo = fmin(lo, v), hi = fmax(hi, v);
      }
      if (hi > 0 && isfinite(lo)) printf(" %7.2f%%\n", 100 * (hi - lo) / lo);
      else printf(" %8s\n", "-");
    }
}

static void summary(db *d, symv_routine ro, const sweep_worker *w, int ndev, const double *btimes, const sweep_stats *st,
                    const int *ns, int nsizes, char uplo, int hot, double wall)
{
  int restarts = 0;
  for (int k = 0; k < ndev; k++) restarts += w[k].restarts;
  db_counts cnt;
  if (db_count_candidates(d, symv_routine_name(ro), NULL, &cnt)) return;
  printf("\n%s sweep summary (%s, %d SMs; copy rate %.0f GB/s)\n", symv_routine_get(ro)->blas, w->dev.name, w->dev.sm_count, w->copy_gbs);
  printf("  candidates %lld: valid %lld, invalid %lld, pending %lld\n", cnt.total, cnt.by_status[DB_VALID],
         cnt.by_status[DB_INVALID], cnt.by_status[DB_PENDING]);
  for (int r = 1; r < DB_REASON_COUNT; r++)
    if (cnt.by_reason[r]) printf("    invalid (%s): %lld\n", db_reason_name(r), cnt.by_reason[r]);
  printf("  this run: %.1f s wall; compiling %.1f s wall (%.1f s of NVRTC, %ld compiled, %ld from cache),\n"
         "            measuring %.1f s (%ld candidates); %d worker restarts\n",
         wall, st->compile_s, st->compile_cpu_s, st->compiled, st->cached, st->measure_s, st->measured, restarts);
  if (ndev > 1) summary_gpus(w, ndev, btimes, ns, nsizes);
  db_times tt;
  if (db_time_table(d, symv_routine_name(ro), ns, (size_t)nsizes, uplo, hot, DB_STAGE_SWEEP, &tt)) return;
  printf("\n  best at each size (time in us; speed-up = faster cuBLAS mode's time / this time)\n");
  printf("  %7s %10s %10s  %-26s %10s %8s %6s\n", "n", "cuBLAS", "cuBLAS-a", "best candidate", "us", "speed-up",
         "%copy");
  for (int s = 0; s < nsizes; s++) {
    double base[2] = {NAN, NAN};
    for (int b = 0; b < 2; b++) {
      db_measurement *ml = NULL;
      size_t c = 0;
      if (!db_baseline_measurements(d, symv_routine_name(ro), b ? "cublas_atomics" : "cublas", DB_STAGE_SWEEP, uplo,
                                    hot, &ml, &c))
        for (size_t k = 0; k < c; k++)
          if (ml[k].n == ns[s]) base[b] = ml[k].median_us;
      free(ml);
    }
    long bi = -1;
    for (size_t c = 0; c < tt.ncand; c++) {
      double v = tt.median_us[c * (size_t)nsizes + (size_t)s];
      if (v > 0 && (bi < 0 || v < tt.median_us[(size_t)bi * (size_t)nsizes + (size_t)s])) bi = (long)c;
    }
    double fb = fmin(base[0], base[1]);
    if (bi < 0) {
      printf("  %7d %10.2f %10.2f  %-26s\n", ns[s], base[0], base[1], "(none)");
      continue;
    }
    const db_candidate *c = &tt.cand[bi];
    char label[64];
    snprintf(label, sizeof label, "%s:%d,%d,%d,%d", c->family, c->block_size, c->ux, c->multiplicity, c->mx);
    double t = tt.median_us[(size_t)bi * (size_t)nsizes + (size_t)s];
    double gbs = symv_gbs(ro, ns[s], t);
    printf("  %7d %10.2f %10.2f  %-26s %10.2f %8.2f %6.1f\n", ns[s], base[0], base[1], label, t, fb / t,
           w->copy_gbs > 0 ? 100 * gbs / w->copy_gbs : 0);
  }
  db_times_free(&tt);
}

/* "256,768,..." of ns into buf. */
static void sizes_text(const int *ns, int nsizes, char *buf, size_t len)
{
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < nsizes && k < len; i++) k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", ns[i]);
}

/* ---- the dense stage ------------------------------------------------------ */

enum { DENSE_GRID, DENSE_ADAPTIVE }; /* --dense */

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
 * SMs: the columns of its work items (fit_step_width: UX, or pipe_det's
 * units) and G (fit_grid_blocks); both 0 for a curve without steps. */
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
    if (k < 2 ? db_baseline_measurements(d, symv_routine_name(o->routine), base[k], DB_STAGE_DENSE, o->uplo, o->hot, &m, &cnt)
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
                                   const int *todo, int ntodo, const char *label, sweep_stats *st)
{
  symv_progress prog;
  symv_progress_start(&prog, label, nchamp, o->quiet);
  sweep_stats st2 = {0};
  int rc = sweep_measure(d, w, 1, o, NULL, champ, nchamp, todo, ntodo, DB_STAGE_DENSE, &interrupted, &st2, &prog);
  symv_progress_finish(&prog);
  st->measure_s += st2.measure_s;
  return rc;
}

/* Times the champions and cuBLAS at the sizes of todo[0..ntodo) that each
 * lacks (on the first GPU alone: the fit compares these curves with each
 * other), with a progress bar labelled label. */
static int dense_measure(db *d, sweep_worker *w, const sweep_opts *o, const db_candidate *champ, long nchamp,
                         const int *todo, int ntodo, const char *label, sweep_stats *st)
{
  int rc = sweep_baselines(d, &w[0], o, todo, ntodo, DB_STAGE_DENSE);
  if (rc) return rc;
  return dense_measure_champions(d, w, o, champ, nchamp, todo, ntodo, label, st);
}

/* Times the sizes todo[0..ntodo) as the planner wants them
 * (adaptive_wants over shape[0..nchamp + 2): both cuBLAS modes, then the
 * champions, no samples needed): every kernel at a size every curve wants,
 * only the champions with the step at a step size; the step sizes that
 * want the same champions (the two sides of a step) are timed together. */
static int dense_measure_planned(db *d, sweep_worker *w, const sweep_opts *o, const db_candidate *champ, long nchamp,
                                 const adaptive_opts *ao, const adaptive_curve *shape, const int *todo, int ntodo,
                                 const char *label, sweep_stats *st)
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
  if (!rc && ns) rc = dense_measure(d, w, o, champ, nchamp, sizes, ns, label, st);
  for (int i = 0; i < ntodo && !rc; i++) {
    if (done[i]) continue;
    ns = 0;
    for (int j = i; j < ntodo; j++)
      if (!done[j] && !memcmp(&want[(size_t)j * nc], &want[(size_t)i * nc], (size_t)nc)) sizes[ns++] = todo[j], done[j] = 1;
    long nsub = 0;
    for (long k = 0; k < nchamp; k++)
      if (want[(size_t)i * nc + k + 2]) sub[nsub++] = champ[k];
    if (nsub) rc = dense_measure_champions(d, w, o, sub, nsub, sizes, ns, label, st);
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
                          const int *grid, int ngrid, int explicit, double target, int budget, sweep_stats *st,
                          dense_report *rep)
{
  adaptive_opts ao;
  adaptive_opts_init(&ao, grid[0], grid[ngrid - 1]);
  if (explicit) ao.lattice = grid, ao.nlattice = ngrid;
  ao.target = target;
  ao.max_sizes = budget ? budget : ngrid / 2 > 2 ? ngrid / 2 : 2;
  int nstart = 0, *next = malloc(sizeof *next * (size_t)(MAX_DENSE + 1));
  int *tried = malloc(sizeof *tried * (size_t)(MAX_DENSE + 1)), ntried = 0;
  dense_data dd = {0};
  int rc = next && tried ? adaptive_start(&ao, next, MAX_DENSE + 1, &nstart) : SYMV_NO_MEMORY;
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
    /* more than MAX_DENSE sizes: an earlier grid stage; the planner counts them all */
    for (int i = 0; i < nall && ntodo < MAX_DENSE; i++) next[ntodo++] = all[i];
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
    if (ntodo && (rc = dense_measure_planned(d, w, o, champ, nchamp, &ao, shape, next, ntodo, label, st))) break;
    for (int i = 0; i < ntodo && ntried < MAX_DENSE; i++) tried[ntried++] = next[i];
    ntried = sort_unique(tried, ntried);
    if ((rc = dense_load(d, o, champ, nchamp, ao.lo, ao.hi, w[0].dev.sm_count, &dd))) break;
    adaptive_state as;
    rc = adaptive_next(&ao, dd.c, dd.ncurves, next, MAX_DENSE + 1, &ntodo, &as);
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
      sizes_text(next, ntodo, list, sizeof list);
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

/* DENSE_CONFIRM_SPREAD: the dense stage's second look times again every
 * kernel within this factor of the fastest at a size, as first read. The
 * largest slow first reading seen was 22% (below): a kernel truly up to
 * 6% slower than the fastest, read 22% slow, is still looked at again.
 * It was 1.5, until the step sizes (measure/adaptive.h) took their share
 * of the calls: the second look was a third of the dense stage's timed
 * calls, and the samples of an H100 DSYMV sweep within 1.3x of the
 * fastest took 48k calls, within 1.5x 87k. */
#define DENSE_CONFIRM_SPREAD 1.3

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
  const char *ro = symv_routine_name(o->routine);
  if (k < 2 ? db_baseline_measurements(d, ro, base[k], DB_STAGE_DENSE, o->uplo, o->hot, &m, &cnt)
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
      if (k < 2 ? db_put_baseline(d, ro, base[k], &m[j]) : db_put_measurement(d, champ[k - 2].id, &m[j])) rc = SYMV_DB;
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
 * over the sizes, a few seconds, and a disturbance that long reads them all
 * slow together (on an H200: pipe:256,32,3,0 read 7.30 us at n = 1374 in the
 * first pass, 22% over pipe:256,64,2,0, and 6-10% under it at every size
 * validated nearby). So every kernel within DENSE_CONFIRM_SPREAD of the
 * fastest at a dense size is timed there again, the kernels in the reverse
 * order and the sizes descending, and the lesser of the two times is kept.
 * A resumed sweep looks again (it lowers nothing that is right). */
static int dense_confirm(db *d, sweep_worker *w, const sweep_opts *o, const db_candidate *champ, long nchamp, int lo,
                         int hi, dense_confirm_report *cr)
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
    if (interrupted) {
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
      symv_params p;
      if (sweep_params_of(&champ[k - 2], &p)) nl = 0;
      else symv_params_format(&p, label, sizeof label), snprintf(what, sizeof what, "cand %s", label);
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
static void dense_summary(int mode, const dense_data *before, const dense_data *after, int ngrid, const dense_report *rep,
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

/* What a database already holds must agree with --shard: a shard's file
 * holds that shard of that space and nothing else; a whole sweep is not
 * continued in a shard's file, nor a shard in a whole sweep's. For a shard,
 * records it (db_put_shard) and sets *shard_of (malloc'd, one shard per
 * point of space). Errors (with a message): SYMV_INVALID_VALUE, SYMV_DB,
 * SYMV_NO_MEMORY. */
static int shard_check(db *d, const char *path, const sweep_opts *o, const symv_params *space, long nspace,
                       const int *ns, int nsizes, int k, int n, int **shard_of)
{
  const char *ro = symv_routine_name(o->routine);
  db_shard *rows = NULL, me = {{0}};
  size_t nrows = 0;
  int rc = db_list_shards(d, ro, &rows, &nrows);
  if (rc) {
    fprintf(stderr, "symvtune sweep: %s\n", db_errmsg(d));
    return rc;
  }
  *shard_of = NULL;
  db_counts cnt = {0};
  if (!n) {
    for (size_t i = 0; i < nrows; i++)
      if (!rows[i].source[0]) {
        fprintf(stderr, "symvtune sweep: %s holds shard %d/%d of a %s sweep: continue it with --shard %d/%d, or "
                "`symvtune merge` the shards and sweep the merged database\n", path, rows[i].k, rows[i].n, ro,
                rows[i].k, rows[i].n);
        free(rows);
        return SYMV_INVALID_VALUE;
      }
    free(rows);
    return 0;
  }
  snprintf(me.routine, sizeof me.routine, "%s", ro);
  me.k = k, me.n = n, me.uplo = o->uplo, me.hot = o->hot, me.space_size = nspace;
  sizes_text(ns, nsizes, me.sizes, sizeof me.sizes);
  if (!(*shard_of = malloc(sizeof **shard_of * (size_t)(nspace ? nspace : 1))) ||
      sweep_space_fingerprint(space, nspace, ns, nsizes, o->uplo, o->hot, me.space) ||
      sweep_shard_assign(space, nspace, n, *shard_of, NULL)) {
    free(rows);
    return SYMV_NO_MEMORY;
  }
  for (long i = 0; i < nspace; i++) me.candidates += (*shard_of)[i] == k;
  rc = nrows == 0 && !db_count_candidates(d, ro, NULL, &cnt) && cnt.total > 0 ? SYMV_INVALID_VALUE : 0;
  if (rc)
    fprintf(stderr, "symvtune sweep: %s already holds a whole %s sweep (%lld candidates): a shard needs a database "
            "of its own\n", path, ro, cnt.total);
  for (size_t i = 0; !rc && i < nrows; i++)
    if (rows[i].source[0] || rows[i].k != k || rows[i].n != n || strcmp(rows[i].space, me.space)) {
      fprintf(stderr, "symvtune sweep: %s holds %s %d/%d of %s space %s; this is shard %d/%d of space %s (same "
              "--families, --wide, --sizes, --uplo, --hot and GPU model make the same space): use another --db\n",
              path, rows[i].source[0] ? "the merged shard" : "shard", rows[i].k, rows[i].n, ro, rows[i].space, k, n,
              me.space);
      rc = SYMV_INVALID_VALUE;
    }
  free(rows);
  if (!rc && (rc = db_put_shard(d, &me))) fprintf(stderr, "symvtune sweep: %s\n", db_errmsg(d));
  return rc;
}

static int run(int argc, char **argv)
{
  int each;
  if (cli_each_routine("sweep", argc, argv, run, &each)) return each;
  static const struct option opts[] = {
    {"db", required_argument, 0, 'D'},      {"families", required_argument, 0, 'f'},
    {"wide", no_argument, 0, 'w'},           {"sizes", required_argument, 0, 's'},
    {"routine", required_argument, 0, 'r'}, {"uplo", required_argument, 0, 'u'},     {"hot", no_argument, 0, 'H'},
    {"batches", required_argument, 0, 'b'},  {"prune", required_argument, 0, 'p'},
    {"tol", required_argument, 0, 't'},      {"timeout", required_argument, 0, 'T'},
    {"jobs", required_argument, 0, 'j'},     {"limit", required_argument, 0, 'l'},
    {"device", required_argument, 0, 'd'},   {"allow-foreign", no_argument, 0, 'F'},
    {"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
    {"top", required_argument, 0, 'P'},      {"points-k", required_argument, 0, 'K'},
    {"dense-sizes", required_argument, 0, 'S'}, {"no-dense", no_argument, 0, 'N'},
    {"shard", required_argument, 0, 'k'},    {"devices", required_argument, 0, 'V'},
    {"dense", required_argument, 0, 'M'},    {"dense-target", required_argument, 0, 'G'},
    {"dense-budget", required_argument, 0, 'B'},
    {0, 0, 0, 0}};
  const char *path = NULL;
  symv_space_opts so = {{0}, 0};
  so.family[SYMV_FAMILY_ATOMIC] = so.family[SYMV_FAMILY_LU] = so.family[SYMV_FAMILY_ATOMIC_RED] = 1;
  so.family[SYMV_FAMILY_ATOMIC_W] = so.family[SYMV_FAMILY_PANEL] = so.family[SYMV_FAMILY_PIPE] = 1;
  so.family[SYMV_FAMILY_PIPE_DET] = 1;
  sweep_opts o = {.device = 0, .uplo = 'L', .hot = 0, .batches = 5, .tol = SYMV_RESIDUAL_TOL, .timeout_s = 20, .prune = 2.0,
                  .max_attempts = 3, .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), .quiet = 0};
  int ns[MAX_SIZES], nsizes = 0, limit = 0, allow_foreign = 0, c;
  int top = SIEVE_DEFAULT_T, kpts = SIEVE_DEFAULT_K, dense = 1, dn[MAX_DENSE], ndense = 0;
  int shard_k = 0, shard_n = 0; /* --shard K/N; shard_n 0: the whole space */
  int said = 0;                  /* the error is already reported */
  int dense_mode = -1;           /* --dense: DENSE_GRID, DENSE_ADAPTIVE; -1: not given */
  double dense_target = ADAPTIVE_DEFAULT_TARGET;
  int dense_budget = 0;          /* 0: half the grid's sizes */
  int devs[MAX_DEVICES], ndev = 0, all_devices = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'D': path = optarg; break;
    case 'f':
      if (family_list(optarg, &so)) return cli_usage_error("sweep", "invalid --families '%s' (" SYMV_TUNABLE_FAMILIES ")", optarg);
      break;
    case 'w': so.wide = 1; break;
    case 's':
      if (cli_parse_int_list("sweep", "--sizes", optarg, 1, 65536, ns, MAX_SIZES, &nsizes)) return SYMV_EXIT_USAGE;
      break;
    case 'u':
      if (strcmp(optarg, "L") && strcmp(optarg, "U")) return cli_usage_error("sweep", "invalid --uplo '%s' (L or U)", optarg);
      o.uplo = optarg[0];
      break;
    case 'H': o.hot = 1; break;
    case 'r':
      if (cli_parse_routine("sweep", optarg, &o.routine)) return SYMV_EXIT_USAGE;
      break;
    case 'b':
      if (cli_parse_int("sweep", "--batches", optarg, 1, 999, &o.batches)) return SYMV_EXIT_USAGE;
      break;
    case 'p':
      if (cli_parse_double("sweep", "--prune", optarg, 0, 1e6, &o.prune)) return SYMV_EXIT_USAGE;
      if (o.prune > 0 && o.prune < 1) return cli_usage_error("sweep", "--prune must be 0 or at least 1");
      break;
    case 't':
      if (cli_parse_double("sweep", "--tol", optarg, 1e-3, 1e12, &o.tol)) return SYMV_EXIT_USAGE;
      break;
    case 'T':
      if (cli_parse_double("sweep", "--timeout", optarg, 0.1, 86400, &o.timeout_s)) return SYMV_EXIT_USAGE;
      break;
    case 'j':
      if (cli_parse_int("sweep", "--jobs", optarg, 0, 256, &o.jobs)) return SYMV_EXIT_USAGE;
      break;
    case 'l':
      if (cli_parse_int("sweep", "--limit", optarg, 0, 100000000, &limit)) return SYMV_EXIT_USAGE;
      break;
    case 'd':
      if (cli_parse_int("sweep", "--device", optarg, 0, 1023, &o.device)) return SYMV_EXIT_USAGE;
      break;
    case 'F': allow_foreign = 1; break;
    case 'q': o.quiet = 1; break;
    case 'P':
      if (cli_parse_int("sweep", "--top", optarg, 1, 1000, &top)) return SYMV_EXIT_USAGE;
      break;
    case 'K':
      if (cli_parse_int("sweep", "--points-k", optarg, 1, 100000, &kpts)) return SYMV_EXIT_USAGE;
      break;
    case 'S':
      if (cli_parse_int_list("sweep", "--dense-sizes", optarg, 1, 65536, dn, MAX_DENSE, &ndense))
        return SYMV_EXIT_USAGE;
      break;
    case 'N': dense = 0; break;
    case 'M':
      if (!strcmp(optarg, "adaptive")) dense_mode = DENSE_ADAPTIVE;
      else if (!strcmp(optarg, "grid")) dense_mode = DENSE_GRID;
      else return cli_usage_error("sweep", "invalid --dense '%s' (adaptive or grid)", optarg);
      break;
    case 'G':
      if (cli_parse_double("sweep", "--dense-target", optarg, 0, 0.99, &dense_target)) return SYMV_EXIT_USAGE;
      break;
    case 'B':
      if (cli_parse_int("sweep", "--dense-budget", optarg, 2, MAX_DENSE, &dense_budget)) return SYMV_EXIT_USAGE;
      break;
    case 'k':
      if (sweep_shard_parse(optarg, &shard_k, &shard_n))
        return cli_usage_error("sweep", "invalid --shard '%s' (K/N with 0 <= K < N <= %d)", optarg, SWEEP_SHARDS_MAX);
      break;
    case 'V':
      if (!strcmp(optarg, "all")) all_devices = 1, ndev = 0;
      else if (cli_parse_int_list("sweep", "--devices", optarg, 0, 1023, devs, MAX_DEVICES, &ndev)) return SYMV_EXIT_USAGE;
      else all_devices = 0;
      for (int i = 0; i < ndev; i++)
        for (int j = 0; j < i; j++)
          if (devs[i] == devs[j]) return cli_usage_error("sweep", "--devices lists GPU %d twice", devs[i]);
      break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("sweep", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("sweep", "unexpected argument '%s'", argv[optind]);
  if (!path) return cli_usage_error("sweep", "--db FILE is required");
  if (dense_mode < 0) dense_mode = ndense ? DENSE_GRID : DENSE_ADAPTIVE;
  if (dense_mode == DENSE_GRID && dense_budget)
    return cli_usage_error("sweep", "--dense-budget is for --dense adaptive (the grid times all its sizes)");
  if (dense_mode == DENSE_ADAPTIVE && ndense == 1)
    return cli_usage_error("sweep", "--dense adaptive needs at least two --dense-sizes");
  if (nsizes == 0) {
    nsizes = (int)(sizeof default_sizes / sizeof *default_sizes);
    memcpy(ns, default_sizes, sizeof default_sizes);
  }
  double t_start = symv_now();

  /* A new database is created only where there is a GPU to fill it: the
   * GPU is looked for first then. An existing file is checked first (a
   * foreign or corrupt one is refused, GPU or not), the GPU after it. */
  int ngpu = 0;
  struct stat sb;
  if (lstat(path, &sb) != 0 && errno == ENOENT && !getenv("SYMVTUNE_WORKER") && symv_device_count(&ngpu)) {
    fprintf(stderr, "symvtune sweep: no CUDA device found (%s): the sweep needs a GPU; nothing was written\n",
            symv_cuda_error_text());
    return SYMV_EXIT_NO_GPU;
  }
  /* the database: a foreign or corrupt file is refused before any work */
  db *d = NULL;
  int rc = db_open(&d, path, DB_CREATE);
  if (rc) {
    fprintf(stderr, "symvtune sweep: %s\n", db_errmsg(d));
    db_close(d);
    return SYMV_EXIT_ERROR;
  }
  if (all_devices) {
    int count = 0;
    if (symv_device_count(&count) || count < 1) {
      fprintf(stderr, "symvtune sweep: --devices all: no CUDA device found (%s)\n", symv_cuda_error_text());
      db_close(d);
      return SYMV_EXIT_NO_GPU;
    }
    for (ndev = 0; ndev < count && ndev < MAX_DEVICES; ndev++) devs[ndev] = ndev;
  }
  if (ndev == 0) devs[ndev++] = o.device;
  o.device = devs[0];
  /* one worker per GPU (64 KB of buffer each: on the heap) */
  sweep_worker *w = calloc((size_t)ndev, sizeof *w);
  double *btimes = calloc((size_t)ndev * 2 * MAX_SIZES, sizeof *btimes), *wbase = calloc((size_t)ndev * MAX_SIZES, sizeof *wbase);
  if (!w || !btimes || !wbase) {
    free(w), free(btimes), free(wbase);
    db_close(d);
    return SYMV_EXIT_ERROR;
  }
  for (int k = 0; k < ndev && !rc; k++) {
    sweep_opts ok = o;
    ok.device = devs[k];
    if ((rc = sweep_worker_start(&w[k], &ok)))
      fprintf(stderr, "symvtune sweep: GPU %d: %s\n", devs[k], rc == SYMV_NO_DEVICE ? "no such CUDA device: the sweep needs a GPU"
                                                                                 : "cannot start the measuring process");
  }
  /* one sweep is one GPU model: timings of two models do not mix */
  for (int k = 1; k < ndev && !rc; k++)
    if (strcmp(w[k].dev.name, w[0].dev.name) || w[k].dev.cc_major != w[0].dev.cc_major ||
        w[k].dev.cc_minor != w[0].dev.cc_minor || w[k].dev.sm_count != w[0].dev.sm_count) {
      fprintf(stderr, "symvtune sweep: GPU %d is %s (compute capability %d.%d, %d SMs) but GPU %d is %s (%d.%d, %d SMs): "
              "one sweep measures one GPU model; give --devices the GPUs of one model (and another --db to the others)\n",
              devs[k], w[k].dev.name, w[k].dev.cc_major, w[k].dev.cc_minor, w[k].dev.sm_count, devs[0], w[0].dev.name,
              w[0].dev.cc_major, w[0].dev.cc_minor, w[0].dev.sm_count);
      rc = SYMV_DB_FOREIGN;
    }
  db_device fp;
  if (!rc) {
    sweep_device_fingerprint(&w[0], &fp);
    if ((rc = db_check_device(d, &fp, allow_foreign))) {
      fprintf(stderr, "symvtune sweep: %s\n", db_errmsg(d));
      if (rc == SYMV_DB_FOREIGN) fprintf(stderr, "symvtune sweep: use another --db, or --allow-foreign to add to it anyway\n");
    }
  }
  if (rc) {
    for (int k = 0; k < ndev; k++) sweep_worker_stop(&w[k]);
    free(w), free(btimes), free(wbase);
    db_close(d);
    return rc == SYMV_NO_DEVICE ? SYMV_EXIT_NO_GPU : SYMV_EXIT_ERROR;
  }
  if (*db_warning(d)) fprintf(stderr, "symvtune sweep: warning: %s\n", db_warning(d));
  db_set_copy_gbs(d, w[0].copy_gbs);

  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  char optline[1024];
  int ol = 0;
  for (int i = 0; i < argc && ol < (int)sizeof optline - 2; i++)
    ol += snprintf(optline + ol, sizeof optline - (size_t)ol, "%s%s", i ? " " : "", argv[i]);
  long long run_id = 0;
  db_run_begin(d, optline, &run_id);

  /* enumerate and record the space (or this shard of it); drop what cannot run */
  symv_params *space = NULL;
  int *shard_of = NULL;
  long nspace = 0;
  if ((rc = symv_space_enumerate(&so, &w[0].dev, &space, &nspace))) goto out;
  for (long i = 0; i < nspace; i++) space[i].routine = o.routine;
  if ((rc = shard_check(d, path, &o, space, nspace, ns, nsizes, shard_k, shard_n, &shard_of))) {
    said = 1;
    goto out;
  }
  if (shard_n && dense && !o.quiet)
    fprintf(stderr, "sweep: shard %d/%d: the sweep stage only (merge the shards, then sweep the merged database for "
            "the dense stage)\n", shard_k, shard_n);
  if (shard_n) dense = 0;
  if (db_begin(d)) goto db_error;
  long dropped = 0, nmine = 0;
  for (long i = 0; i < nspace; i++) {
    if (shard_of && shard_of[i] != shard_k) continue;
    nmine++;
    db_candidate cand = {0};
    space[i].routine = o.routine;
    snprintf(cand.routine, sizeof cand.routine, "%s", symv_routine_name(o.routine));
    snprintf(cand.family, sizeof cand.family, "%s", symv_family_name(space[i].family));
    cand.block_size = space[i].block_size, cand.ux = space[i].ux;
    cand.multiplicity = space[i].multiplicity, cand.mx = space[i].mx;
    if (db_put_candidate(d, &cand, &cand.id)) goto db_rollback;
    char why[256];
    if (symv_static_filter(&space[i], &w[0].dev, why, sizeof why)) {
      db_candidate cur;
      if (db_get_candidate(d, cand.id, &cur)) goto db_rollback;
      if (cur.status == DB_PENDING) {
        cur.status = DB_INVALID, cur.reason = DB_REASON_RESOURCES;
        snprintf(cur.detail, sizeof cur.detail, "%s", why);
        if (db_set_candidate_result(d, &cur)) goto db_rollback;
        dropped++;
      }
    }
  }
  if (getenv("SYMVTUNE_TEST_FAULTS") && shard_k == 0 && add_test_faults(d, o.routine)) goto db_rollback;
  if (db_commit(d)) goto db_error;
  if (!o.quiet && shard_n)
    fprintf(stderr, "sweep: shard %d/%d: %ld of the %ld candidates of the space, %ld dropped before compiling "
            "(resources)\n", shard_k, shard_n, nmine, nspace, dropped);
  else if (!o.quiet)
    fprintf(stderr, "sweep: %ld candidates in the space, %ld dropped before compiling (resources)\n", nspace, dropped);

  if ((rc = sweep_baselines_each(d, w, ndev, &o, ns, nsizes, DB_STAGE_SWEEP, btimes))) goto out;
  for (int k = 0; k < ndev; k++)
    for (int i = 0; i < nsizes; i++)
      wbase[k * nsizes + i] = fmin(btimes[(k * 2) * nsizes + i], btimes[(k * 2 + 1) * nsizes + i]);

  db_candidate *pending = NULL;
  size_t npending = 0;
  if (db_list_candidates(d, symv_routine_name(o.routine), DB_PENDING, NULL, &pending, &npending)) goto db_error;
  if (limit > 0 && npending > (size_t)limit) npending = (size_t)limit;
  symv_progress prog;
  symv_progress_start(&prog, "sweep", (long)npending, o.quiet);
  sweep_stats st = {0};
  rc = sweep_measure(d, w, ndev, &o, wbase, pending, (long)npending, ns, nsizes, DB_STAGE_SWEEP, &interrupted, &st, &prog);
  symv_progress_finish(&prog);
  free(pending);
  summary(d, o.routine, w, ndev, btimes, &st, ns, nsizes, o.uplo, o.hot, symv_now() - t_start);

  /* dense stage: rank by champion points, then sample the champions across
   * the range (doc/method.md section 4, steps 3-5) */
  db_counts cnt;
  if (!rc && dense && !db_count_candidates(d, symv_routine_name(o.routine), NULL, &cnt) && cnt.by_status[DB_PENDING] == 0) {
    int explicit_grid = ndense > 0;
    if (ndense == 0) {
      int hi = 32768;
      while (hi > 1024 && (double)hi * hi * symv_routine_get(o.routine)->elem_bytes > 0.2 * (double)w[0].dev.global_mem) hi /= 2;
      ndense = dense_sizes(32, hi, dn, MAX_DENSE);
    }
    db_candidate *champ = NULL;
    long nchamp = 0;
    int grid[MAX_DENSE];
    memcpy(grid, dn, sizeof *dn * (size_t)ndense);
    int ngrid = dense_mode == DENSE_ADAPTIVE ? sort_unique(grid, ndense) : ndense;
    if (dense_mode == DENSE_ADAPTIVE && ngrid < 2) {
      fprintf(stderr, "symvtune sweep: --dense adaptive needs two different --dense-sizes\n");
      rc = SYMV_INVALID_VALUE, said = 1;
    } else if ((rc = sweep_champions(d, o.routine, ns, nsizes, o.uplo, o.hot, kpts, top, &champ, &nchamp)) == 0) {
      int lo = dn[0], hi = dn[0];
      for (int i = 0; i < ndense; i++) lo = dn[i] < lo ? dn[i] : lo, hi = dn[i] > hi ? dn[i] : hi;
      dense_data before = {0}, after = {0};
      dense_report rep = {0, NULL, NAN, 0};
      if ((rc = dense_load(d, &o, champ, nchamp, lo, hi, 0, &before)) == 0) {
        if (dense_mode == DENSE_GRID) {
          if (!o.quiet) fprintf(stderr, "dense: %ld champions, cuBLAS and the floor at %d sizes from %d to %d\n", nchamp, ndense, lo, hi);
          rc = dense_measure(d, w, &o, champ, nchamp, dn, ndense, "dense", &st);
        } else {
          rc = dense_adaptive(d, w, &o, champ, nchamp, grid, ngrid, explicit_grid, dense_target, dense_budget, &st, &rep);
          said = rc == SYMV_INVALID_VALUE;
        }
        dense_confirm_report cr = {0};
        if (!rc) rc = dense_confirm(d, w, &o, champ, nchamp, lo, hi, &cr);
        if ((!rc || rc == SYMV_INTERRUPTED) && !dense_load(d, &o, champ, nchamp, lo, hi, 0, &after)) {
          dense_summary(dense_mode, &before, &after, ngrid, &rep, lo, hi);
          if (cr.retimed) {
            printf("  timed again: %ld (kernel, n) within %.2gx of the fastest there, kernels and sizes in reverse "
                   "order, %lld timed calls; %ld read faster and were lowered", cr.retimed, DENSE_CONFIRM_SPREAD,
                   cr.calls, cr.lowered);
            if (cr.lowered) printf(" (most: %s at n = %d, x%.2f)", cr.most_label, cr.most_n, cr.most);
            printf("\n");
          }
        }
      }
      if (rc == SYMV_DB) fprintf(stderr, "symvtune sweep: dense stage: %s\n", db_errmsg(d));
      dense_data_free(&before), dense_data_free(&after);
    }
    free(champ);
  }
  db_run_end(d, run_id, st.compile_s, st.measure_s);
  goto out;

db_rollback:
  db_rollback(d);
db_error:
  fprintf(stderr, "symvtune sweep: %s\n", db_errmsg(d));
  rc = SYMV_DB;
out:
  free(space);
  free(shard_of);
  for (int k = 0; k < ndev; k++) sweep_worker_stop(&w[k]);
  free(w), free(btimes), free(wbase);
  db_close(d);
  if (rc == SYMV_INTERRUPTED) {
    fprintf(stderr, "symvtune sweep: interrupted; everything measured so far is in %s: run the same command to resume\n", path);
    return SYMV_EXIT_FAIL;
  }
  if (rc) {
    if (rc != SYMV_DB && !said) fprintf(stderr, "symvtune sweep: %s\n", symv_strerror(rc));
    return SYMV_EXIT_ERROR;
  }
  return SYMV_EXIT_OK;
}

const symv_command cmd_sweep_entry = {"sweep", "measure the tuning space on this GPU into a database", run};
