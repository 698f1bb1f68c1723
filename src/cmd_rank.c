/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_rank.c - `symvtune rank`: the champion ranking of the sweep stage
 * (doc/method.md section 4, steps 3-4) as `symvtune sweep` computes it before
 * the dense stage: champion points summed over the representative sizes,
 * each listed candidate's speed against cuBLAS there, its distance from the
 * floor over the dense stage's sizes, and the survivors that the dense stage
 * samples. Read-only; needs no GPU.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../db/db.h"
#include "../sieve/sieve.h"
#include "cli.h"
#include "routine.h"
#include "fit.h"
#include "json.h"
#include "sweep.h"
#include "symv_error.h"

#define MAX_SIZES 64

static void help(void)
{
  puts("Usage: symvtune rank --db FILE [OPTIONS]\n"
       "Prints the champion ranking of the sweep stage (method of Imamura et al., section 3.5):\n"
       "at each size the valid candidates are ranked by time and the K fastest earn\n"
       "(K + 1 - rank) / K points; points are summed over the sizes. Each listed candidate\n"
       "(every one that earned points, and the survivors) is shown with its points and, at\n"
       "each size, the faster cuBLAS mode's time divided by its time (> 1: faster than\n"
       "cuBLAS; '-' where not measured). Column 'x floor': the geometric mean, over the dense\n"
       "stage's sizes, of its dense-stage time over the floor measured there (the least time of\n"
       "a read-only kernel that streams the stored triangle once; 1.00 would be at the floor;\n"
       "'-' where it has no dense samples or the database no floor). Survivors, marked '*', are the top T plus the best\n"
       "candidate of each family with none among them, plus the first min(6, T) of the\n"
       "deterministic families (lu, panel, pipe_det, pipe_fx) ranked among themselves alone and the\n"
       "fastest of them at each size, whose\n"
       "candidates the deterministic rules choose from: the champions `symvtune sweep`\n"
       "samples densely. Reads FILE only.\n\n"
       "Options:\n"
       "  --db FILE       the database (required; opened read-only)\n"
       CLI_ROUTINE_HELP CLI_EACH_JSON_HELP
       "  --sizes LIST    comma-separated sizes n (default: every size with sweep-stage\n"
       "                  measurements)\n"
       "  --points-k K    the K fastest at each size earn points (default 25)\n"
       "  --top T         survivors by points (default 10)\n"
       "  --uplo L|U      stored triangle of the measurements (default L)\n"
       "  --hot           the measurements with A resident in L2 (default: cold)\n"
       "  --json          print a JSON document instead: {\"format\": 1, \"symvtune\": version,\n"
       "                  \"schema\": the database's schema version, \"device\": {name, cc_major,\n"
       "                  cc_minor, sm_count} or null, \"routine\", \"uplo\", \"hot\", \"points_k\",\n"
       "                  \"top\", \"valid_candidates\", \"sizes\": [n, ...], \"cublas_us\": [the faster\n"
       "                  cuBLAS mode's time at each size, or null], \"candidates\": [{rank, id, family,\n"
       "                  block_size, ux, multiplicity, mx, label, points, survivor, speedup: [the\n"
       "                  faster cuBLAS mode's time / the candidate's at each size, or null]}, ...]}\n"
       "                  listing the same candidates as the table, best first\n"
       "  --help          this text\n"
       "Exit status: 0, 2 usage, 4 database error or no sweep-stage measurements.");
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The sizes at which valid candidates have sweep-stage measurements at
 * (uplo, hot), ascending, at most max of them. */
static int sweep_sizes(db *d, symv_routine routine, char uplo, int hot, int *ns, int max, int *count)
{
  db_candidate *cand = NULL;
  size_t ncand = 0;
  *count = 0;
  int rc = db_list_candidates(d, routine, DB_VALID, DB_ANY_FAMILY, &cand, &ncand);
  for (size_t i = 0; !rc && i < ncand; i++) {
    db_measurement *m = NULL;
    size_t k = 0;
    rc = db_candidate_measurements(d, cand[i].id, DB_STAGE_SWEEP, uplo, hot, &m, &k);
    for (size_t j = 0; !rc && j < k; j++) {
      int seen = 0;
      for (int q = 0; q < *count && !seen; q++) seen = ns[q] == m[j].n;
      if (seen) continue;
      if (*count == max) rc = SYMV_NO_MEMORY;
      else ns[(*count)++] = m[j].n;
    }
    free(m);
  }
  free(cand);
  if (!rc) qsort(ns, (size_t)*count, sizeof *ns, cmp_int);
  return rc;
}

/* The faster cuBLAS mode's sweep-stage time at each size (NAN if neither). */
static int cublas_times(db *d, symv_routine routine, const int *ns, int nsizes, char uplo, int hot, double *best)
{
  static const char *const names[2] = {DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS};
  for (int s = 0; s < nsizes; s++) best[s] = NAN;
  for (int b = 0; b < 2; b++) {
    db_measurement *m = NULL;
    size_t k = 0;
    int rc = db_baseline_measurements(d, routine, names[b], DB_STAGE_SWEEP, uplo, hot, &m, &k);
    if (rc) return rc;
    for (size_t j = 0; j < k; j++)
      for (int s = 0; s < nsizes; s++)
        if (m[j].n == ns[s] && m[j].median_us > 0 && !(m[j].median_us >= best[s])) best[s] = m[j].median_us;
    free(m);
  }
  return 0;
}

/* The floor's dense-stage times (baseline SWEEP_FLOOR_NAME), *fl (malloc'ed,
 * NULL and *nfl = 0 when there are none). */
static int floor_times(db *d, symv_routine routine, char uplo, int hot, db_measurement **fl, size_t *nfl)
{
  *fl = NULL, *nfl = 0;
  return db_baseline_measurements(d, routine, SWEEP_FLOOR_NAME, DB_STAGE_DENSE, uplo, hot, fl, nfl);
}

/* The geometric mean of m's times over the floor's at the sizes both have;
 * NAN if none. */
static double over_floor(const db_measurement *m, size_t k, const db_measurement *fl, size_t nfl)
{
  double logsum = 0;
  int cnt = 0;
  for (size_t j = 0; j < k; j++)
    for (size_t f = 0; f < nfl; f++)
      if (fl[f].n == m[j].n && fl[f].median_us > 0 && m[j].median_us > 0)
        logsum += log(m[j].median_us / fl[f].median_us), cnt++;
  return cnt ? exp(logsum / cnt) : NAN;
}

/* x floor of each candidate of tt (xf[c]) and of the faster cuBLAS mode at
 * each dense size (*xcub), from the dense stage; NAN where none. */
static int floor_ratios(db *d, symv_routine routine, const db_times *tt, char uplo, int hot, double *xf, double *xcub)
{
  db_measurement *fl = NULL, *m = NULL;
  size_t nfl = 0, k = 0;
  for (size_t c = 0; c < tt->ncand; c++) xf[c] = NAN;
  *xcub = NAN;
  int rc = floor_times(d, routine, uplo, hot, &fl, &nfl);
  for (size_t c = 0; !rc && nfl && c < tt->ncand; c++) {
    rc = db_candidate_measurements(d, tt->cand[c].id, DB_STAGE_DENSE, uplo, hot, &m, &k);
    if (!rc) xf[c] = over_floor(m, k, fl, nfl);
    free(m), m = NULL;
  }
  /* the faster cuBLAS mode at each size */
  db_measurement *b[2] = {NULL, NULL};
  size_t nb[2] = {0, 0};
  static const char *const names[2] = {DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS};
  for (int i = 0; !rc && nfl && i < 2; i++)
    rc = db_baseline_measurements(d, routine, names[i], DB_STAGE_DENSE, uplo, hot, &b[i], &nb[i]);
  if (!rc && nfl) {
    for (size_t j = 0; j < nb[0]; j++)
      for (size_t q = 0; q < nb[1]; q++)
        if (b[1][q].n == b[0][j].n && b[1][q].median_us < b[0][j].median_us) b[0][j].median_us = b[1][q].median_us;
    *xcub = over_floor(b[0], nb[0], fl, nfl);
  }
  free(b[0]), free(b[1]), free(fl);
  return rc;
}

static void print_ranking(const db_times *tt, const sieve_result *r, const double *cub, const double *xf,
                          double xcub, int K, int T, const char *routine, char uplo, int hot)
{
  int S = (int)tt->nsizes;
  printf("%s: champion ranking of %zu valid candidates, sweep stage, uplo %c, %s; at each size the %d fastest\n"
         "earn (%d - rank)/%d points. Columns n=...: the faster cuBLAS mode's time / the candidate's time;\n"
         "x floor: its dense-stage time over the floor's, geometric mean over the dense sizes.\n",
         routine, tt->ncand, uplo, hot ? "hot" : "cold", K, K + 1, K);
  printf("   %4s  %-32s %8s", "rank", "candidate (id)", "points");
  for (int s = 0; s < S; s++) {
    char h[24];
    snprintf(h, sizeof h, "n=%d", tt->n[s]);
    printf(" %9s", h);
  }
  printf(" %8s\n", "x floor");
  char xs[16] = "-";
  if (!isnan(xcub)) snprintf(xs, sizeof xs, "%.2f", xcub);
  printf("   %4s  %-32s %8s", "", "cuBLAS (faster mode), us", "");
  for (int s = 0; s < S; s++) printf(" %9.2f", cub[s]);
  printf(" %8s\n", xs);
  int *survivor = calloc((size_t)tt->ncand, sizeof *survivor);
  for (int i = 0; survivor && i < r->nsurvivors; i++) survivor[r->survivors[i]] = 1;
  int listed = 0;
  for (int q = 0; q < r->ncand; q++) {
    int c = r->order[q];
    int surv = survivor ? survivor[c] : 0;
    if (!(r->points[c] > 0) && !surv) continue;
    char label[64], who[96];
    fit_label(DB_KERNEL_CANDIDATE, &tt->cand[c], label, sizeof label);
    snprintf(who, sizeof who, "%s (%lld)", label, tt->cand[c].id);
    snprintf(xs, sizeof xs, "-");
    if (!isnan(xf[c])) snprintf(xs, sizeof xs, "%.2f", xf[c]);
    printf(" %c %4d  %-32s %8.2f", surv ? '*' : ' ', q + 1, who, r->points[c]);
    for (int s = 0; s < S; s++) {
      double t = tt->median_us[(size_t)c * (size_t)S + (size_t)s];
      if (t > 0 && cub[s] > 0) printf(" %9.3f", cub[s] / t);
      else printf(" %9s", "-");
    }
    printf(" %8s\n", xs);
    listed++;
  }
  free(survivor);
  printf("%d listed (those with points, and the survivors); * = survivor: the top %d by points", listed, T);
  if (r->added) printf(", plus the best of %d famil%s with none among them", r->added, r->added == 1 ? "y" : "ies");
  if (r->added_det)
    printf(", plus %d of the deterministic families' top %d ranked among themselves and each size's fastest",
           r->added_det, T < SWEEP_DET_TOP ? T : SWEEP_DET_TOP);
  printf(".\n");
}

/* Version of the JSON document's layout (see json.h: json_head). */
#define RANK_JSON_FORMAT 1

/* --json: the ranking print_ranking shows, as one document. */
static void print_json(FILE *f, const db_times *tt, const sieve_result *r, const double *cub, const double *xf,
                       double xcub, int K, int T, const char *routine, char uplo, int hot, const db_device *dev)
{
  const int S = (int)tt->nsizes;
  fputs("{\n  ", f);
  json_head(f, RANK_JSON_FORMAT, dev ? dev->name : NULL, dev ? dev->cc_major : 0, dev ? dev->cc_minor : 0,
            dev ? dev->sm_count : 0);
  fputs("  \"routine\": ", f);
  json_string(f, routine);
  fprintf(f, ", \"uplo\": \"%c\", \"hot\": %s, \"points_k\": %d, \"top\": %d, \"valid_candidates\": %zu,\n",
          uplo, hot ? "true" : "false", K, T, tt->ncand);
  fputs("  \"sizes\": [", f);
  for (int s = 0; s < S; s++) fprintf(f, "%s%d", s ? ", " : "", tt->n[s]);
  fputs("],\n  \"cublas_us\": [", f);
  for (int s = 0; s < S; s++) {
    if (s) fputs(", ", f);
    json_number(f, cub[s]);
  }
  fputs("],\n  \"cublas_x_floor\": ", f);
  json_number(f, xcub);
  fputs(",\n  \"candidates\": [", f);
  int *survivor = calloc((size_t)tt->ncand + 1, sizeof *survivor);
  for (int i = 0; survivor && i < r->nsurvivors; i++) survivor[r->survivors[i]] = 1;
  int listed = 0;
  for (int q = 0; q < r->ncand; q++) {
    const int c = r->order[q], surv = survivor ? survivor[c] : 0;
    if (!(r->points[c] > 0) && !surv) continue;
    const db_candidate *k = &tt->cand[c];
    char label[64];
    fit_label(DB_KERNEL_CANDIDATE, k, label, sizeof label);
    fprintf(f, "%s\n    {\"rank\": %d, \"id\": %lld, \"family\": ", listed++ ? "," : "", q + 1, k->id);
    json_string(f, symv_family_name(k->p.family));
    fprintf(f, ", \"block_size\": %d, \"ux\": %d, \"multiplicity\": %d, \"mx\": %d, \"label\": ", k->p.block_size,
            k->p.ux, k->p.multiplicity, k->p.mx);
    json_string(f, label);
    fputs(", \"points\": ", f);
    json_number(f, r->points[c]);
    fputs(", \"x_floor\": ", f);
    json_number(f, xf[c]);
    fprintf(f, ", \"survivor\": %s, \"speedup\": [", surv ? "true" : "false");
    for (int s = 0; s < S; s++) {
      const double t = tt->median_us[(size_t)c * (size_t)S + (size_t)s];
      if (s) fputs(", ", f);
      json_number(f, t > 0 && cub[s] > 0 ? cub[s] / t : NAN);
    }
    fputs("]}", f);
  }
  free(survivor);
  fputs("\n  ]\n}\n", f);
}

static const struct option opts[] = {
  {"db", required_argument, 0, CLI_DB},    {"routine", required_argument, 0, CLI_ROUTINE}, {"sizes", required_argument, 0, 's'},
  {"points-k", required_argument, 0, 'K'}, {"top", required_argument, 0, 'T'},
  {"uplo", required_argument, 0, CLI_UPLO}, {"hot", no_argument, 0, CLI_HOT},
  {"help", no_argument, 0, 'h'},           {"json", no_argument, 0, CLI_JSON}, {0, 0, 0, 0}};

static int run(int argc, char **argv)
{
  int each;
  static const cli_each how = {.options = opts, .json = "json"}; /* several routines: one document */
  if (cli_each_routine_of("rank", argc, argv, run, &how, &each)) return each;
  cli_opts o = {.cmd = "rank", .options = opts, .help = help, .need_db = 1, .routine = SYMV_DSYMV, .uplo = 'L'};
  int ns[MAX_SIZES], nsizes = 0, K = SIEVE_DEFAULT_K, T = SIEVE_DEFAULT_T, c;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 's':
      if (cli_parse_int_list("rank", "--sizes", optarg, 1, 1 << 24, ns, MAX_SIZES, &nsizes)) return SYMV_EXIT_USAGE;
      break;
    case 'K':
      if (cli_parse_int("rank", "--points-k", optarg, 1, 100000, &K)) return SYMV_EXIT_USAGE;
      break;
    case 'T':
      if (cli_parse_int("rank", "--top", optarg, 1, 100000, &T)) return SYMV_EXIT_USAGE;
      break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  db *d;
  if (cli_open_db("rank", o.db, DB_READONLY, &d)) return SYMV_EXIT_ERROR;
  int rc, status = SYMV_EXIT_ERROR;
  db_times tt = {0};
  sieve_result r = {0};
  double cub[MAX_SIZES], *xf = NULL, xcub = NAN;
  if (nsizes == 0 && (rc = sweep_sizes(d, o.routine, o.uplo, o.hot, ns, MAX_SIZES, &nsizes))) {
    if (rc == SYMV_NO_MEMORY)
      fprintf(stderr, "symvtune rank: more than %d sizes with sweep-stage measurements: choose some with --sizes\n",
              MAX_SIZES);
    else
      fprintf(stderr, "symvtune rank: %s\n", db_errmsg(d));
    goto out;
  }
  if (nsizes == 0) {
    fprintf(stderr, "symvtune rank: %s has no sweep-stage measurements for uplo %c, %s (run 'symvtune sweep' "
            "first)\n", o.db, o.uplo, o.hot ? "hot" : "cold");
    goto out;
  }
  if ((rc = cublas_times(d, o.routine, ns, nsizes, o.uplo, o.hot, cub))) {
    fprintf(stderr, "symvtune rank: %s\n", db_errmsg(d));
    goto out;
  }
  rc = sweep_rank(d, o.routine, ns, nsizes, o.uplo, o.hot, K, T, &tt, &r);
  if (rc == SYMV_NOT_FOUND) {
    fprintf(stderr, "symvtune rank: %s has no valid candidates\n", o.db);
    goto out;
  }
  if (rc) {
    fprintf(stderr, "symvtune rank: %s\n", rc == SYMV_DB ? db_errmsg(d) : symv_strerror(rc));
    goto out;
  }
  if (r.nsurvivors == 0) {
    fprintf(stderr, "symvtune rank: no valid candidate has sweep-stage measurements at the sizes given\n");
    goto out;
  }
  xf = malloc(sizeof *xf * (tt.ncand ? tt.ncand : 1));
  if (!xf || (rc = floor_ratios(d, o.routine, &tt, o.uplo, o.hot, xf, &xcub))) {
    fprintf(stderr, "symvtune rank: %s\n", xf ? db_errmsg(d) : symv_strerror(SYMV_NO_MEMORY));
    goto out;
  }
  if (o.json) {
    db_device dev;
    const int have_dev = db_get_device(d, &dev) == 0;
    print_json(stdout, &tt, &r, cub, xf, xcub, K, T, symv_routine_name(o.routine), o.uplo, o.hot, have_dev ? &dev : NULL);
  } else {
    print_ranking(&tt, &r, cub, xf, xcub, K, T, symv_routine_name(o.routine), o.uplo, o.hot);
  }
  status = SYMV_EXIT_OK;
  if (fflush(stdout) || ferror(stdout)) {
    fprintf(stderr, "symvtune rank: cannot write the output\n");
    status = SYMV_EXIT_ERROR;
  }
out:
  free(xf);
  sieve_free(&r);
  db_times_free(&tt);
  db_close(d);
  return status;
}

const symv_command cmd_rank_entry = {"rank", "print the champion ranking of the sweep stage", run};
