/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * merge.c - joining the databases of a sweep cut into shards (merge.h).
 * Everything is written in one transaction; on a refusal the new file is
 * removed.
 */
#include "merge.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "params.h"
#include "routine.h"
#include "shard.h"
#include "space.h"
#include "sweep.h"
#include "symv_error.h"
#include "util.h"

/* A refusal: message, then the merge is undone. */
static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int refuse(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("symvtune merge: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return MERGE_REFUSED;
}

/* One input's shard of each routine, indexed by symv_routine (-1: not a
 * shard, or several). */
typedef struct {
  int k[SYMV_ROUTINE_COUNT];
} input_info;

/* Copies the candidates of input `in` (index i, path) into out: a point
 * new to out is added with its fate and timings; one out has pending takes
 * them; one measured in both is a conflict. from[] (indexed by out's ids,
 * grown as needed) records the input each point's fate came from. */
static int copy_candidates(db *out, db *in, int i, char *const *paths, int **from, long long *nfrom, long long *copied,
                           long long *nmeas)
{
  db_candidate *list = NULL;
  size_t n = 0;
  db_kernel_code *codes = NULL;
  size_t ncodes = 0;
  if (db_list_candidates(in, DB_ANY_ROUTINE, -1, DB_ANY_FAMILY, &list, &n) ||
      db_list_kernel_codes(in, DB_ANY_ROUTINE, &codes, &ncodes)) {
    fprintf(stderr, "symvtune merge: %s: %s\n", paths[i], db_errmsg(in));
    free(list);
    return MERGE_ERROR;
  }
  int rc = 0;
  for (size_t j = 0; j < n && !rc; j++) {
    db_candidate c = list[j], cur;
    long long id;
    if (db_put_candidate(out, &c, &id) || db_get_candidate(out, id, &cur)) {
      rc = MERGE_ERROR;
      break;
    }
    if (id >= *nfrom) {
      long long cap = 2 * (id + 1);
      int *f = realloc(*from, sizeof *f * (size_t)cap);
      if (!f) {
        rc = MERGE_ERROR;
        break;
      }
      for (long long q = *nfrom; q < cap; q++) f[q] = -1;
      *from = f, *nfrom = cap;
    }
    if (c.status == DB_PENDING) continue;
    if (cur.status != DB_PENDING) {
      int other = (*from)[id];
      char point[64];
      symv_params_format(&c.p, point, sizeof point);
      rc = refuse("%s:%s was measured in both %s and %s: the inputs overlap (shards of one sweep hold disjoint "
                  "candidates)", symv_routine_name(c.p.routine), point, other >= 0 ? paths[other] : "an earlier input",
                  paths[i]);
      break;
    }
    c.id = id;
    if (db_set_candidate_result(out, &c)) {
      rc = MERGE_ERROR;
      break;
    }
    /* the code it was measured with, where the input recorded one (codes: by candidate id) */
    const db_kernel_code *code = db_kernel_code_find(codes, ncodes, list[j].id);
    if (code && db_put_kernel_code(out, id, code->code)) {
      rc = MERGE_ERROR;
      break;
    }
    (*from)[id] = i;
    (*copied)++;
    for (int s = 0; s < DB_STAGE_COUNT && !rc; s++) {
      db_measurement *ml = NULL;
      size_t nm = 0;
      if (db_candidate_measurements(in, list[j].id, (db_stage)s, 0, -1, &ml, &nm)) {
        fprintf(stderr, "symvtune merge: %s: %s\n", paths[i], db_errmsg(in));
        rc = MERGE_ERROR;
      }
      for (size_t m = 0; m < nm && !rc; m++)
        if (db_put_measurement(out, id, &ml[m])) rc = MERGE_ERROR;
      *nmeas += (long long)nm;
      free(ml);
    }
  }
  free(list);
  free(codes);
  return rc;
}

/* Copies the cuBLAS baselines of input `in` that out lacks; where out has
 * them, the largest relative difference goes into *spread. */
static int copy_baselines(db *out, db *in, long long *copied, double *spread)
{
  static const char *const names[2] = {"cublas", "cublas_atomics"};
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++)
    for (int b = 0; b < 2; b++)
      for (int s = 0; s < DB_STAGE_COUNT; s++) {
        db_measurement *ml = NULL;
        size_t nm = 0;
        if (db_baseline_measurements(in, symv_routine_order(r), names[b], (db_stage)s, 0, -1, &ml, &nm)) return MERGE_ERROR;
        int rc = 0;
        for (size_t m = 0; m < nm && !rc; m++) {
          db_measurement *have = NULL;
          size_t nh = 0;
          int found = 0;
          if (db_has_baseline(out, symv_routine_order(r), names[b], ml[m].n, ml[m].uplo, ml[m].hot, (db_stage)s, &found)) {
            rc = MERGE_ERROR;
            break;
          }
          if (!found) {
            if (db_put_baseline(out, symv_routine_order(r), names[b], &ml[m])) rc = MERGE_ERROR;
            (*copied)++;
            continue;
          }
          if (db_baseline_measurements(out, symv_routine_order(r), names[b], (db_stage)s, ml[m].uplo, ml[m].hot, &have, &nh))
            rc = MERGE_ERROR;
          for (size_t h = 0; h < nh; h++)
            if (have[h].n == ml[m].n) {
              double lo = fmin(have[h].median_us, ml[m].median_us), hi = fmax(have[h].median_us, ml[m].median_us);
              if (lo > 0 && (hi - lo) / lo > *spread) *spread = (hi - lo) / lo;
            }
          free(have);
        }
        free(ml);
        if (rc) return rc;
      }
  return 0;
}

/* The shard rows of all inputs, per routine: one space and one N, each
 * shard once, all of them unless incomplete. Sets info[i].k. Returns 0 or
 * a refusal. */
static int check_shards(db **in, int nin, char *const *paths, input_info *info, int incomplete, db_shard **rows_out,
                        size_t *nrows_out, int *any)
{
  db_shard *all = NULL;
  int *owner = NULL;
  size_t nall = 0;
  int rc = 0;
  *any = 0;
  for (int i = 0; i < nin && !rc; i++) {
    for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) info[i].k[r] = -2; /* -2: no shard row; -1: several */
    db_shard *rows = NULL;
    size_t n = 0;
    if (db_list_shards(in[i], DB_ANY_ROUTINE, &rows, &n)) {
      fprintf(stderr, "symvtune merge: %s: %s\n", paths[i], db_errmsg(in[i]));
      return MERGE_ERROR;
    }
    db_shard *grown = realloc(all, sizeof *all * (nall + n + 1));
    int *og = realloc(owner, sizeof *owner * (nall + n + 1));
    if (grown) all = grown;
    if (og) owner = og;
    if (!grown || !og) {
      free(rows);
      rc = MERGE_ERROR;
      break;
    }
    for (size_t j = 0; j < n; j++) {
      all[nall] = rows[j], owner[nall] = i;
      if (!all[nall].source[0]) snprintf(all[nall].source, sizeof all[nall].source, "%s", paths[i]);
      nall++;
      int *k = &info[i].k[rows[j].routine];
      *k = *k == -2 ? rows[j].k : -1;
    }
    free(rows);
  }
  for (int q = 0; q < SYMV_ROUTINE_COUNT && !rc; q++) {
    const symv_routine r = symv_routine_order(q);
    const char *ro = symv_routine_name(r);
    long first = -1;
    for (size_t j = 0; j < nall && !rc; j++) {
      if (all[j].routine != r) continue;
      if (first < 0) {
        first = (long)j;
        continue;
      }
      const db_shard *a = &all[first], *b = &all[j];
      if (strcmp(a->space, b->space) || a->n != b->n)
        rc = refuse("%s: %s holds shard %d/%d of space %s (sizes %s) and %s shard %d/%d of space %s (sizes %s): not "
                    "one sweep (same --families, --wide, --sizes, --uplo, --hot and GPU model make the same space)",
                    ro, symv_shown(a->source).s, a->k, a->n, symv_shown(a->space).s, symv_shown(a->sizes).s, symv_shown(b->source).s, b->k,
                    b->n, symv_shown(b->space).s, symv_shown(b->sizes).s);
    }
    if (rc || first < 0) continue;
    *any = 1;
    int n = all[first].n;
    int *seen = calloc((size_t)n, sizeof *seen);
    const char **who = calloc((size_t)n, sizeof *who);
    if (!seen || !who) rc = MERGE_ERROR;
    for (size_t j = 0; j < nall && !rc; j++) {
      if (all[j].routine != r) continue;
      if (seen[all[j].k]++) rc = refuse("%s: shard %d/%d is in both %s and %s: each shard must be merged once", ro,
                                        all[j].k, n, symv_shown(who[all[j].k]).s, symv_shown(all[j].source).s);
      who[all[j].k] = all[j].source;
    }
    for (int i = 0; i < nin && !rc; i++)
      if (info[i].k[r] == -2) {
        db_counts cnt;
        if (!db_count_candidates(in[i], r, DB_ANY_FAMILY, &cnt) && cnt.total > 0)
          rc = refuse("%s: %s holds a whole %s sweep (no shard record) but others hold shards %s/%d: not one sweep",
                      ro, paths[i], ro, "K", n);
      }
    if (!rc) {
      char missing[1024] = "";
      int nmiss = 0, len = 0;
      for (int k = 0; k < n; k++)
        if (!seen[k] && nmiss++ < 40) len += snprintf(missing + len, sizeof missing - (size_t)len, "%s%d", len ? "," : "", k);
      if (nmiss && !incomplete)
        rc = refuse("%s: %d of the %d shards are missing (K = %s%s): merge all of them, or pass --incomplete", ro, nmiss,
                    n, missing, nmiss > 40 ? ",..." : "");
      else if (nmiss)
        fprintf(stderr, "symvtune merge: warning: %s: %d of the %d shards missing (K = %s%s): the dense stage would "
                "rank an incomplete space\n", ro, nmiss, n, missing, nmiss > 40 ? ",..." : "");
    }
    free(seen);
    free(who);
  }
  free(owner);
  *rows_out = all, *nrows_out = nall;
  return rc;
}

/* The space `row` (of routine r) was cut from, rebuilt without the
 * shards: the points symv_space_enumerate gives on the limits of the GPU
 * whose fingerprint is dev for a choice of families and width, as many as
 * row->space_size, whose fingerprint with the sizes ns[0..nsizes), row->uplo
 * and row->hot is row->space. The shard record does not say which families
 * and width the sweep took: every set of tunable families that holds
 * `present` (a bit per family: those of the candidates at hand) is tried,
 * fewest families first, each narrow then wide. *space is malloc'd (free()),
 * or NULL (*nspace 0) where no choice gives the space. 0 or
 * SYMV_NO_MEMORY. */
static int rebuild_space(const db_shard *row, symv_routine r, const db_device *dev, unsigned present, const int *ns,
                         int nsizes, symv_params **space, long *nspace)
{
  symv_device_info d;
  sweep_limits_of(dev, &d);
  /* no point has a MULTIPLICITY above this (symv_params_check), whatever
   * the fingerprint says: the wide space's walk stops there */
  if (d.max_blocks_per_sm > SYMV_MULTIPLICITY_MAX) d.max_blocks_per_sm = SYMV_MULTIPLICITY_MAX;
  unsigned tunable = 0;
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++)
    if (symv_family_tunable((symv_family)f)) tunable |= 1u << f;
  *space = NULL, *nspace = 0;
  for (int size = __builtin_popcount(present); size <= __builtin_popcount(tunable); size++)
    for (unsigned set = 1; set <= tunable; set++) {
      if ((set & ~tunable) || (set & present) != present || __builtin_popcount(set) != size) continue;
      for (int wide = 0; wide < 2; wide++) {
        symv_space_opts o = {{0}, wide};
        for (int f = 0; f < SYMV_FAMILY_COUNT; f++) o.family[f] = set >> f & 1;
        if (symv_space_count(&o, &d) != row->space_size) continue;
        symv_params *v;
        long nv;
        char fp[17];
        if (symv_space_enumerate(&o, &d, &v, &nv)) return SYMV_NO_MEMORY;
        for (long i = 0; i < nv; i++) v[i].routine = r;
        if (sweep_space_fingerprint(v, nv, ns, nsizes, row->uplo, row->hot, fp)) {
          free(v);
          return SYMV_NO_MEMORY;
        }
        if (!strcmp(fp, row->space)) {
          *space = v, *nspace = nv;
          return 0;
        }
        free(v);
      }
    }
  return 0;
}

/* Every candidate of a sharded routine must lie in the shard its input
 * says, in the cut (sweep_shard_of) of the space the shards were cut from:
 * for a complete set, the union of their candidates, which must make up
 * the space their fingerprint names; for an incomplete one, the space
 * rebuilt from the GPU's limits (rebuild_space), refused where it cannot
 * be. dev: the inputs' device fingerprint. */
static int check_membership(db *out, const db_shard *rows, size_t nrows, const int *from, long long nfrom,
                            const input_info *info, char *const *paths, const db_device *dev)
{
  for (int q = 0; q < SYMV_ROUTINE_COUNT; q++) {
    const symv_routine r = symv_routine_order(q);
    const char *ro = symv_routine_name(r);
    const db_shard *row = NULL;
    int present = 0;
    for (size_t j = 0; j < nrows; j++)
      if (rows[j].routine == r) {
        if (!row) row = &rows[j];
        present++; /* each shard once: check_shards made sure */
      }
    if (!row) continue;
    db_candidate *list = NULL;
    size_t n = 0;
    if (db_list_candidates(out, r, -1, DB_ANY_FAMILY, &list, &n)) return MERGE_ERROR;
    symv_params *p = malloc(sizeof *p * (n ? n : 1)), *space = p;
    long nspace = (long)n;
    int *shard = malloc(sizeof *shard * (n ? n : 1));
    int ns[64], nsizes = 0, rc = p && shard ? 0 : MERGE_ERROR;
    unsigned families = 0;
    for (size_t j = 0; j < n && !rc; j++) {
      p[j] = list[j].p;
      if (symv_family_tunable(p[j].family)) families |= 1u << p[j].family;
    }
    char sizes[sizeof row->sizes];
    snprintf(sizes, sizeof sizes, "%s", row->sizes);
    for (char *save = NULL, *t = strtok_r(sizes, ",", &save); t && nsizes < 64; t = strtok_r(NULL, ",", &save))
      ns[nsizes++] = atoi(t);
    if (!rc && present == row->n) { /* the union must be the space, or the cut below means nothing */
      char fp[17];
      if (sweep_space_fingerprint(p, (long)n, ns, nsizes, row->uplo, row->hot, fp)) rc = MERGE_ERROR;
      else if (strcmp(fp, row->space))
        rc = refuse("%s: the shards' %zu candidates make up space %s, not the space %s they were cut from: a shard "
                    "holds candidates of another space", ro, n, fp, symv_shown(row->space).s);
    } else if (!rc) {
      if (rebuild_space(row, r, dev, families, ns, nsizes, &space, &nspace)) rc = MERGE_ERROR;
      else if (!space)
        rc = refuse("%s: %d of the %d shards are here, and no choice of --families and --wide on this GPU model "
                    "gives their space %s (%lld candidates): which shard each candidate belongs to cannot be "
                    "checked; merge all %d shards", ro, present, row->n, symv_shown(row->space).s, row->space_size,
                    row->n);
    }
    if (!rc && sweep_shard_of(space, nspace, row->n, p, (long)n, shard)) rc = MERGE_ERROR;
    for (size_t j = 0; j < n && !rc; j++) {
      int i = list[j].id < nfrom ? from[list[j].id] : -1;
      if (i < 0 || !symv_family_tunable(p[j].family) || info[i].k[r] < 0) continue; /* pending, test family, or an input of several shards */
      char point[64];
      symv_params_format(&p[j], point, sizeof point);
      if (shard[j] < 0)
        rc = refuse("%s:%s came from %s, but it is no point of the space %s the shards were cut from", ro, point,
                    paths[i], symv_shown(row->space).s);
      else if (shard[j] != info[i].k[r])
        rc = refuse("%s:%s came from %s, shard %d/%d, but the partition puts it in shard %d: the shards were not cut "
                    "from this space", ro, point, paths[i], info[i].k[r], row->n, shard[j]);
    }
    if (space != p) free(space);
    free(list), free(p), free(shard);
    if (rc) return rc;
  }
  return 0;
}

static void remove_db(const char *path)
{
  char aux[4200];
  unlink(path);
  snprintf(aux, sizeof aux, "%s-wal", path);
  unlink(aux);
  snprintf(aux, sizeof aux, "%s-shm", path);
  unlink(aux);
}

int merge_shards(const char *path, char *const *paths, int nin, const merge_opts *o)
{
  db **in = calloc((size_t)nin, sizeof *in);
  input_info *info = calloc((size_t)nin, sizeof *info);
  db *out = NULL;
  db_shard *rows = NULL;
  size_t nrows = 0;
  int *from = NULL, rc = 0, any_shards = 0, created = 0;
  long long nfrom = 0, ncand = 0, nmeas = 0, nbase = 0;
  double spread = 0;
  if (!in || !info) rc = MERGE_ERROR;
  /* every input readable, of one GPU model */
  db_device dev0;
  for (int i = 0; i < nin && !rc; i++) {
    db_device dv;
    if (db_open(&in[i], paths[i], DB_READONLY) || db_get_device(in[i], &dv)) {
      fprintf(stderr, "symvtune merge: %s: %s\n", paths[i], db_errmsg(in[i]));
      rc = MERGE_ERROR;
      break;
    }
    if (i == 0) dev0 = dv;
    else if (strcmp(dv.name, dev0.name) || dv.cc_major != dev0.cc_major || dv.cc_minor != dev0.cc_minor ||
             dv.sm_count != dev0.sm_count)
      rc = refuse("%s was made on %s (compute capability %d.%d, %d SMs) but %s on %s (%d.%d, %d SMs): timings of two "
                  "GPU models do not merge", paths[i], symv_shown(dv.name).s, dv.cc_major, dv.cc_minor, dv.sm_count,
                  paths[0], symv_shown(dev0.name).s, dev0.cc_major, dev0.cc_minor, dev0.sm_count);
  }
  if (!rc) rc = check_shards(in, nin, paths, info, o->incomplete, &rows, &nrows, &any_shards);
  if (!rc) {
    created = 1;
    if (db_open(&out, path, DB_CREATE) || db_check_device(out, &dev0, 0) || db_begin(out)) {
      fprintf(stderr, "symvtune merge: %s: %s\n", path, db_errmsg(out));
      rc = MERGE_ERROR;
    }
  }
  for (int i = 0; i < nin && !rc; i++) {
    db_device dv;
    db_get_device(in[i], &dv);
    if (db_check_device(out, &dv, 0)) {
      fprintf(stderr, "symvtune merge: %s: %s\n", paths[i], db_errmsg(out));
      rc = MERGE_REFUSED;
    } else if (*db_warning(out)) {
      fprintf(stderr, "symvtune merge: warning: %s: %s\n", paths[i], db_warning(out));
    }
    if (!rc) rc = copy_candidates(out, in[i], i, paths, &from, &nfrom, &ncand, &nmeas);
    if (!rc) rc = copy_baselines(out, in[i], &nbase, &spread);
    if (rc == MERGE_ERROR) fprintf(stderr, "symvtune merge: %s into %s: %s %s\n", paths[i], path, db_errmsg(in[i]),
                                       db_errmsg(out));
    for (int q = 0; !rc && q < SYMV_ROUTINE_COUNT; q++) {
      const symv_routine r = symv_routine_order(q);
      db_fit f;
      db_rule *ru = NULL;
      size_t nr = 0;
      if (!db_latest_fit(in[i], r, 'L', 0, &f, &ru, &nr, NULL, NULL) ||
          !db_latest_fit(in[i], r, 'U', 0, &f, &ru, &nr, NULL, NULL))
        fprintf(stderr, "symvtune merge: note: %s has fits of %s; they are not merged (run symvtune fit on %s)\n",
                paths[i], symv_routine_name(r), path);
      free(ru);
    }
  }
  for (size_t j = 0; j < nrows && !rc; j++)
    if (db_put_shard(out, &rows[j])) {
      fprintf(stderr, "symvtune merge: %s\n", db_errmsg(out));
      rc = MERGE_ERROR;
    }
  if (!rc && any_shards) rc = check_membership(out, rows, nrows, from, nfrom, info, paths, &dev0);
  db_counts cnt = {0};
  if (!rc && db_count_candidates(out, DB_ANY_ROUTINE, DB_ANY_FAMILY, &cnt)) rc = MERGE_ERROR;
  if (!rc && o->check_complete && cnt.by_status[DB_PENDING] > 0)
    rc = refuse("%lld candidates are still pending (--check-complete): finish the sweep of every input first",
                cnt.by_status[DB_PENDING]);
  if (!rc) {
    long long run_id;
    if (db_run_begin(out, o->command_line, &run_id) || db_run_end(out, run_id, 0, 0) || db_commit(out)) {
      fprintf(stderr, "symvtune merge: %s\n", db_errmsg(out));
      rc = MERGE_ERROR;
    }
  }
  for (int i = 0; in && i < nin; i++) db_close(in[i]);
  if (db_close(out) && !rc) rc = MERGE_ERROR;
  if (rc && created) {
    remove_db(path);
    fprintf(stderr, "symvtune merge: nothing was written (%s removed)\n", path);
  }
  if (!rc && !o->quiet) {
    printf("merged %d databases into %s: %lld candidates (valid %lld, invalid %lld, pending %lld), %lld of them with "
           "results, %lld timings, %lld baseline timings\n", nin, path, cnt.total, cnt.by_status[DB_VALID],
           cnt.by_status[DB_INVALID], cnt.by_status[DB_PENDING], ncand, nmeas, nbase);
    if (spread > 0) printf("  baselines measured in several inputs differ by up to %.2f%% (the first input's are kept)\n", 100 * spread);
    for (size_t j = 0; j < nrows; j++)
      if (j == 0 || rows[j].routine != rows[j - 1].routine)
        printf("  %s: shards of space %s (sizes %s, uplo %c%s), %lld candidates: run `symvtune sweep --db %s --routine "
               "%s --sizes %s` with the shards' other options for the dense stage\n", symv_routine_name(rows[j].routine),
               symv_shown(rows[j].space).s, symv_shown(rows[j].sizes).s, rows[j].uplo, rows[j].hot ? ", hot" : "",
               rows[j].space_size, path, symv_routine_name(rows[j].routine), symv_shown(rows[j].sizes).s);
  }
  free(in), free(info), free(rows), free(from);
  return rc;
}
