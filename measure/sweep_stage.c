/* SPDX-License-Identifier: BSD-3-Clause */
/* sweep_stage.c - the steps of the sweep stage of `symvtune sweep`
 * (sweep_stage.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../db/db.h"
#include "compile.h"
#include "progress.h"
#include "reference.h"
#include "routine.h"
#include "shard.h"
#include "space.h"
#include "sweep.h"
#include "sweep_stage.h"
#include "symv_error.h"
#include "util.h"

int sweep_stage_workers(db *d, sweep_worker *w, int ndev, const int *devs, const sweep_opts *o, int allow_foreign)
{
  int rc = 0;
  for (int k = 0; k < ndev && !rc; k++) {
    sweep_opts ok = *o;
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
  if (rc) return rc;
  if (*db_warning(d)) fprintf(stderr, "symvtune sweep: warning: %s\n", db_warning(d));
  db_set_copy_gbs(d, w[0].copy_gbs);
  return 0;
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
  db_shard *rows = NULL, me = {0};
  size_t nrows = 0;
  int rc = db_list_shards(d, o->routine, &rows, &nrows);
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
  me.routine = o->routine;
  me.k = k, me.n = n, me.uplo = o->uplo, me.hot = o->hot, me.space_size = nspace;
  sweep_sizes_text(ns, nsizes, me.sizes, sizeof me.sizes);
  if (!(*shard_of = malloc(sizeof **shard_of * (size_t)(nspace ? nspace : 1))) ||
      sweep_space_fingerprint(space, nspace, ns, nsizes, o->uplo, o->hot, me.space) ||
      sweep_shard_assign(space, nspace, n, *shard_of, NULL)) {
    free(rows);
    return SYMV_NO_MEMORY;
  }
  for (long i = 0; i < nspace; i++) me.candidates += (*shard_of)[i] == k;
  rc = nrows == 0 && !db_count_candidates(d, o->routine, DB_ANY_FAMILY, &cnt) && cnt.total > 0 ? SYMV_INVALID_VALUE : 0;
  if (rc)
    fprintf(stderr, "symvtune sweep: %s already holds a whole %s sweep (%lld candidates): a shard needs a database "
            "of its own\n", path, ro, cnt.total);
  for (size_t i = 0; !rc && i < nrows; i++)
    if (rows[i].source[0] || rows[i].k != k || rows[i].n != n || strcmp(rows[i].space, me.space)) {
      fprintf(stderr, "symvtune sweep: %s holds %s %d/%d of %s space %s; this is shard %d/%d of space %s (same "
              "--families, --wide, --sizes, --uplo, --hot and GPU model make the same space): use another --db\n",
              path, rows[i].source[0] ? "the merged shard" : "shard", rows[i].k, rows[i].n, ro,
              symv_shown(rows[i].space).s, k, n, me.space);
      rc = SYMV_INVALID_VALUE;
    }
  free(rows);
  if (!rc && (rc = db_put_shard(d, &me))) fprintf(stderr, "symvtune sweep: %s\n", db_errmsg(d));
  return rc;
}

int sweep_stage_space(db *d, const char *path, const sweep_opts *o, const symv_space_opts *so,
                      const symv_device_info *dev, const int *ns, int nsizes, int k, int n, symv_params **space,
                      long *nspace, int **shard_of, int *reported)
{
  int rc;
  *shard_of = NULL;
  if ((rc = symv_space_enumerate(so, dev, space, nspace))) return rc;
  for (long i = 0; i < *nspace; i++) (*space)[i].routine = o->routine;
  if ((rc = shard_check(d, path, o, *space, *nspace, ns, nsizes, k, n, shard_of))) *reported = 1;
  return rc;
}

/* The fault family is for tests only: SYMVTUNE_TEST_FAULTS=1 adds one
 * candidate that faults and one that hangs. */
static int add_test_faults(db *d, symv_routine ro)
{
  static const int modes[2] = {0, 1};
  for (int i = 0; i < 2; i++) {
    db_candidate c = {.p = {SYMV_FAMILY_FAULT, 64, 8, 1, modes[i], ro}};
    if (db_put_candidate(d, &c, NULL)) return SYMV_DB;
  }
  return 0;
}

int sweep_put_code(db *d, const db_candidate *c)
{
  char code[17];
  if (symv_code_id(&c->p, code)) return 0;
  return db_put_kernel_code(d, c->id, code) ? SYMV_DB : 0;
}

long sweep_stale_codes(db *d, symv_routine ro)
{
  db_kernel_code *k;
  size_t nk;
  if (db_list_kernel_codes(d, ro, &k, &nk)) return -1;
  long stale = 0;
  for (size_t i = 0; i < nk; i++) stale += !symv_code_current(&k[i].p, k[i].code);
  free(k);
  return stale;
}

/* 1 if the PTX of p from set a equals that from set b, 0 if not; a
 * negative status (err set) if either fails to compile. */
static int same_ptx(const symv_source_set *a, const symv_source_set *b, const symv_params *p, int ccM, int ccm,
                    char *err, size_t errlen)
{
  symv_cubin x, y;
  char *log = NULL;
  int rc = symv_compile_ptx_in(a, p, ccM, ccm, &x, &log);
  if (!rc) rc = symv_compile_ptx_in(b, p, ccM, ccm, &y, &log);
  else memset(&y, 0, sizeof y);
  if (rc) {
    char label[64];
    symv_params_format(p, label, sizeof label);
    snprintf(err, errlen, "%s %s: %s%s%.300s", symv_routine_name(p->routine), label, symv_strerror(rc),
             log ? ": " : "", log ? log : "");
    free(log);
    symv_cubin_free(&x), symv_cubin_free(&y);
    return rc;
  }
  const int same = x.size == y.size && memcmp(x.data, y.data, x.size) == 0;
  symv_cubin_free(&x), symv_cubin_free(&y);
  return same;
}

int sweep_restamp(db *d, symv_routine ro, const symv_source_set *was, int cc_major, int cc_minor, int dry, int quiet,
                  sweep_restamp_counts *c, char *err, size_t errlen)
{
  memset(c, 0, sizeof *c);
  db_kernel_code *k = NULL;
  size_t nk = 0;
  if (db_list_kernel_codes(d, ro, &k, &nk)) return SYMV_DB;
  /* today's id of each (empty: a point today's sources cannot name, not ours to judge), and the PTX
   * compared, by (old id, today's id): candidates of one point differ in MULTIPLICITY only */
  char (*today)[17] = calloc(nk ? nk : 1, sizeof *today);
  struct {
    char was[17], now[17];
    int same;
  } *memo = calloc(nk ? nk : 1, sizeof *memo);
  if (!memo || !today) {
    free(memo), free(today), free(k);
    snprintf(err, errlen, "out of memory");
    return SYMV_NO_MEMORY;
  }
  long stale = 0;
  for (size_t j = 0; j < nk; j++) {
    if (symv_code_id(&k[j].p, today[j])) today[j][0] = 0, c->other++;
    else if (!strcmp(today[j], k[j].code)) c->current++;
    else stale++;
  }
  char label[32];
  snprintf(label, sizeof label, "restamp %s", symv_routine_name(ro));
  symv_progress prog;
  symv_progress_start(&prog, label, stale, quiet || !stale);
  size_t nmemo = 0;
  long looked = 0;
  int rc = 0;
  for (size_t j = 0; j < nk && !rc; j++) {
    if (!today[j][0] || !strcmp(today[j], k[j].code)) continue; /* counted above */
    char then[17];
    if (symv_code_id_in(was, &k[j].p, then) || strcmp(then, k[j].code)) {
      c->other++;
    } else {
      int same = -1;
      for (size_t m = 0; m < nmemo && same < 0; m++)
        if (!strcmp(memo[m].was, then) && !strcmp(memo[m].now, today[j])) same = memo[m].same;
      if (same < 0) {
        if ((same = same_ptx(was, symv_sources_embedded(), &k[j].p, cc_major, cc_minor, err, errlen)) < 0) {
          rc = same;
          break;
        }
        memcpy(memo[nmemo].was, then, 17), memcpy(memo[nmemo].now, today[j], 17), memo[nmemo++].same = same;
      }
      if (!same) c->changed++;
      else if (!dry && db_put_kernel_code(d, k[j].candidate_id, today[j])) rc = SYMV_DB;
      else c->restamped++;
    }
    char note[64];
    snprintf(note, sizeof note, "%ld the same, %ld changed", c->restamped, c->changed);
    symv_progress_update(&prog, ++looked, note);
  }
  symv_progress_finish(&prog); /* on an error too: the line ends before the caller says why */
  free(today), free(memo), free(k);
  return rc;
}

int sweep_stage_record(db *d, const sweep_opts *o, symv_params *space, long nspace, const int *shard_of, int k, int n,
                       const symv_device_info *dev)
{
  if (db_begin(d)) goto db_error;
  long dropped = 0, nmine = 0;
  for (long i = 0; i < nspace; i++) {
    if (shard_of && shard_of[i] != k) continue;
    nmine++;
    db_candidate cand = {0};
    space[i].routine = o->routine;
    cand.p = space[i];
    if (db_put_candidate(d, &cand, &cand.id)) goto db_rollback;
    char why[256];
    if (symv_static_filter(&space[i], dev, why, sizeof why)) {
      db_candidate cur;
      if (db_get_candidate(d, cand.id, &cur)) goto db_rollback;
      if (cur.status == DB_PENDING) {
        cur.status = DB_INVALID, cur.reason = DB_REASON_RESOURCES;
        snprintf(cur.detail, sizeof cur.detail, "%s", why);
        if (db_set_candidate_result(d, &cur) || sweep_put_code(d, &cur)) goto db_rollback;
        dropped++;
      }
    }
  }
  if (getenv("SYMVTUNE_TEST_FAULTS") && k == 0 && add_test_faults(d, o->routine)) goto db_rollback;
  if (db_commit(d)) goto db_error;
  const long stale = sweep_stale_codes(d, o->routine);
  if (stale < 0) goto db_error;
  if (stale > 0) /* a warning even with --quiet: the database mixes two versions of the kernels */
    fprintf(stderr,
            "symvtune sweep: warning: %ld of %s's candidates in this database were measured with kernel sources "
            "other than this symvtune's; their times stand, and the new ones join them. Those whose code the "
            "edit left the same keep their times with `symvtune restamp --db DB --was OLD/kernels`; to measure "
            "the routine again: scripts/forget-routine DB %s, then sweep (doc/design.md)\n",
            stale, symv_routine_name(o->routine), symv_routine_name(o->routine));
  if (!o->quiet && n)
    fprintf(stderr, "sweep: shard %d/%d: %ld of the %ld candidates of the space, %ld dropped before compiling "
            "(resources)\n", k, n, nmine, nspace, dropped);
  else if (!o->quiet)
    fprintf(stderr, "sweep: %ld candidates in the space, %ld dropped before compiling (resources)\n", nspace, dropped);
  return 0;
db_rollback:
  db_rollback(d);
db_error:
  fprintf(stderr, "symvtune sweep: %s\n", db_errmsg(d));
  return SYMV_DB;
}

int sweep_stage_todo(db *d, const sweep_opts *o, const int *ns, int nsizes, db_candidate **list, size_t *count)
{
  db_candidate *pending = NULL;
  size_t np = 0;
  db_times tt = {0};
  *list = NULL, *count = 0;
  if (db_list_candidates(d, o->routine, DB_PENDING, DB_ANY_FAMILY, &pending, &np) ||
      db_time_table(d, o->routine, ns, (size_t)nsizes, o->uplo, o->hot, DB_STAGE_SWEEP, &tt)) {
    free(pending);
    return SYMV_DB;
  }
  db_candidate *all = malloc(sizeof *all * (np + tt.ncand + 1));
  if (!all) {
    free(pending);
    db_times_free(&tt);
    return SYMV_NO_MEMORY;
  }
  if (np) memcpy(all, pending, sizeof *all * np);
  size_t n = np;
  for (size_t i = 0; i < tt.ncand; i++) /* valid: one NAN among its sizes is a size it lacks */
    for (size_t s = 0; s < tt.nsizes; s++)
      if (isnan(tt.median_us[i * tt.nsizes + s])) {
        all[n++] = tt.cand[i];
        break;
      }
  free(pending);
  db_times_free(&tt);
  *list = all, *count = n;
  return 0;
}

int sweep_stage_baselines(db *d, sweep_worker *w, int ndev, const sweep_opts *o, const int *ns, int nsizes,
                          double *btimes, double *wbase)
{
  int rc = sweep_baselines_each(d, w, ndev, o, ns, nsizes, DB_STAGE_SWEEP, btimes);
  if (rc) return rc;
  for (int k = 0; k < ndev; k++)
    for (int i = 0; i < nsizes; i++)
      wbase[k * nsizes + i] = fmin(btimes[(k * 2) * nsizes + i], btimes[(k * 2 + 1) * nsizes + i]);
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

void sweep_stage_summary(db *d, symv_routine ro, const sweep_worker *w, int ndev, const double *btimes,
                         const sweep_stats *st, const int *ns, int nsizes, char uplo, int hot, double wall)
{
  int restarts = 0;
  for (int k = 0; k < ndev; k++) restarts += w[k].restarts;
  db_counts cnt;
  if (db_count_candidates(d, ro, DB_ANY_FAMILY, &cnt)) return;
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
  if (db_time_table(d, ro, ns, (size_t)nsizes, uplo, hot, DB_STAGE_SWEEP, &tt)) return;
  printf("\n  best at each size (time in us; speed-up = faster cuBLAS mode's time / this time)\n");
  printf("  %7s %10s %10s  %-26s %10s %8s %6s\n", "n", "cuBLAS", "cuBLAS-a", "best candidate", "us", "speed-up",
         "%copy");
  for (int s = 0; s < nsizes; s++) {
    double base[2] = {NAN, NAN};
    for (int b = 0; b < 2; b++) {
      db_measurement *ml = NULL;
      size_t c = 0;
      if (!db_baseline_measurements(d, ro, b ? "cublas_atomics" : "cublas", DB_STAGE_SWEEP, uplo,
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
    symv_params_format(&c->p, label, sizeof label);
    double t = tt.median_us[(size_t)bi * (size_t)nsizes + (size_t)s];
    double gbs = symv_gbs(ro, ns[s], t);
    printf("  %7d %10.2f %10.2f  %-26s %10.2f %8.2f %6.1f\n", ns[s], base[0], base[1], label, t, fb / t,
           w->copy_gbs > 0 ? 100 * gbs / w->copy_gbs : 0);
  }
  db_times_free(&tt);
}
