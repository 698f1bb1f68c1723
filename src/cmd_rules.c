/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_rules.c - `symvtune rules`: the dispatch rules of the latest fit, as
 * a table in the manner of the paper's Table 5 or as JSON. Read-only.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../db/db.h"
#include "cli.h"
#include "json.h"
#include "config.h"
#include "routine.h"
#include "fit.h"
#include "params.h"
#include "symv_error.h"

static void help(void)
{
  puts("Usage: symvtune rules --db FILE [--atomics any|deterministic] [--uplo L|U] [--json | --at LIST]\n"
       "Prints the dispatch rules of the latest fit stored by `symvtune fit`: for each interval\n"
       "of n, the kernel to run (a candidate FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX, or cuBLAS),\n"
       "its predicted time at the interval's geometric middle and the gain over the faster\n"
       "cuBLAS mode there. A fit has two rule sets: 'any' (every kernel and both cuBLAS modes:\n"
       "what libsymv runs for a handle in CUBLAS_ATOMICS_ALLOWED) and 'deterministic' (the\n"
       "families " SYMV_DETERMINISTIC_FAMILIES " and cuBLAS without atomics, bitwise reproducible: what it runs for\n"
       "the default CUBLAS_ATOMICS_NOT_ALLOWED); the table shows both, each under a heading that\n"
       "names the routine and the rule set, then the fit and how its rules were selected (by\n"
       "regret with its interval cost, or by merging with its threshold). Reads FILE only.\n\n"
       "Options:\n"
       "  --db FILE   the database (required; opened read-only)\n"
       CLI_ROUTINE_HELP CLI_EACH_JSON_HELP
       "  --atomics C the rule set of --json and --at: any (default) or deterministic\n"
       "  --uplo L|U  the rules of this stored triangle (default L); where U has no fit of its\n"
       "              own, L's, which libsymv serves U with (said so)\n"
       "  --json      print a JSON document instead: {\"format\": 1, \"symvtune\": version,\n"
       "              \"schema\": the database's schema version, \"device\": {name, cc_major,\n"
       "              cc_minor, sm_count} or null, \"routine\", \"atomics\": the rule set (any or\n"
       "              deterministic), \"fit\": {id, created, uplo, hot, lo, hi,\n"
       "              threshold, method, atomics}, \"rules\": [{n_start, n_end, kernel, label, candidate\n"
       "              (id, family, block_size, ux, multiplicity, mx; null for cuBLAS),\n"
       "              predicted_us, predicted_gain}, ...]}\n"
       "  --at LIST   for each n of the comma-separated LIST, the kernel the rules choose and its\n"
       "              predicted time, with the faster cuBLAS mode's, from the fitted curves\n"
       "              (recomputed from the dense samples as `symvtune fit` does); '*' marks an n\n"
       "              that is one of the dense samples. For checking predictions against\n"
       "              `symvtune bench` at sizes that were not sampled.\n"
       "  --help      this text\n"
       "Exit status: 0, 2 usage, 4 database error or no fit stored.");
}

/* Version of the JSON document's layout: raised when a field changes
 * meaning or goes away (new fields keep it). */
#define RULES_JSON_FORMAT 1

static void print_json(FILE *f, const db_fit *fit, const db_rule *rules, size_t nrules, const db_device *dev)
{
  fputs("{\n  ", f);
  json_head(f, RULES_JSON_FORMAT, dev ? dev->name : NULL, dev ? dev->cc_major : 0, dev ? dev->cc_minor : 0,
            dev ? dev->sm_count : 0);
  fputs("  \"routine\": ", f); /* which rules these are: the routine's, of one rule set */
  json_string(f, symv_routine_name(fit->routine));
  fprintf(f, ", \"atomics\": \"%s\",\n", fit->deterministic ? "deterministic" : "any");
  fprintf(f, "  \"fit\": {\"id\": %lld, \"created\": ", fit->id);
  json_string(f, fit->created);
  fprintf(f, ", \"uplo\": \"%c\", \"hot\": %s, \"lo\": %d, \"hi\": %d, \"threshold\": ",
          fit->uplo == 'U' ? 'U' : 'L', fit->hot ? "true" : "false", fit->lo, fit->hi);
  json_number(f, fit->threshold);
  fputs(", \"method\": ", f);
  json_string(f, fit->method);
  fprintf(f, ", \"atomics\": \"%s\"},\n  \"rules\": [", fit->deterministic ? "deterministic" : "any");
  for (size_t i = 0; i < nrules; i++) {
    const db_rule *r = &rules[i];
    char label[96];
    fit_label(r->kernel, &r->cand, label, sizeof label);
    fprintf(f, "%s\n    {\"n_start\": %d, \"n_end\": %d, \"kernel\": ", i ? "," : "", r->n_start, r->n_end);
    json_string(f, r->kernel);
    fputs(", \"label\": ", f);
    json_string(f, label);
    fputs(", \"candidate\": ", f);
    if (!strcmp(r->kernel, DB_KERNEL_CANDIDATE)) {
      fprintf(f, "{\"id\": %lld, \"family\": ", r->cand.id);
      json_string(f, symv_family_name(r->cand.p.family));
      fprintf(f, ", \"block_size\": %d, \"ux\": %d, \"multiplicity\": %d, \"mx\": %d}", r->cand.p.block_size,
              r->cand.p.ux, r->cand.p.multiplicity, r->cand.p.mx);
    } else {
      fputs("null", f);
    }
    fputs(", \"predicted_us\": ", f);
    json_number(f, r->predicted_us);
    fputs(", \"predicted_gain\": ", f);
    json_number(f, r->predicted_gain);
    fputc('}', f);
  }
  fputs("\n  ]\n}\n", f);
}

/* The curve of s that rule r names, or NULL. */
static const fit_curve *curve_of(const fit_set *s, const db_rule *r)
{
  const int c = fit_curve_of_rule(s, r);
  return c >= 0 ? &s->curve[c] : NULL;
}

/* --at: predicted time of the chosen kernel at each n (see help). */
static int print_at(db *d, const db_fit *fit, const db_rule *rules, size_t nrules, const int *ns, int k)
{
  fit_set s;
  int rc = fit_load(d, fit->routine, fit->uplo, fit->hot, &s);
  if (!rc && (double)s.ncurves * ((double)fit->hi - fit->lo + 1) > FIT_MAX_GRID) {
    fprintf(stderr, "symvtune rules: cannot recompute the curves: fit %lld's range %d..%d is too large to "
            "tabulate for %zu curves (at most %d predicted times in all); a fit made by `symvtune fit` "
            "covers its dense samples\n", fit->id, fit->lo, fit->hi, s.ncurves, FIT_MAX_GRID);
    fit_set_free(&s);
    return SYMV_EXIT_ERROR;
  }
  if (!rc) rc = fit_compute(&s, fit->lo, fit->hi, 0);
  if (rc) {
    fprintf(stderr, "symvtune rules: cannot recompute the curves: %s %s\n", symv_strerror(rc), db_errmsg(d));
    fit_set_free(&s);
    return SYMV_EXIT_ERROR;
  }
  fit_set all = s; /* a deterministic fit: its kernels, and cuBLAS without atomics as the reference */
  if (fit->deterministic && fit_deterministic_view(&all, &s)) {
    fprintf(stderr, "symvtune rules: %s\n", symv_strerror(SYMV_NO_MEMORY));
    fit_set_free(&all);
    return SYMV_EXIT_ERROR;
  }
  fit_print_rules_title(stdout, fit->routine, fit->deterministic);
  printf("Fit %lld: uplo %c, %s, n %d..%d; the kernel the rules choose at each n and the predicted times\n", fit->id,
         fit->uplo == 'U' ? 'U' : 'L', fit->hot ? "hot" : "cold", fit->lo, fit->hi);
  printf("%8s %-26s %12s %12s %8s\n", "n", "kernel (rules)", "predicted us", "cuBLAS us", "gain");
  for (int i = 0; i < k; i++) {
    int n = ns[i] < fit->lo ? fit->lo : ns[i] > fit->hi ? fit->hi : ns[i];
    const db_rule *r = &rules[nrules - 1];
    for (size_t j = 0; j < nrules; j++)
      if (n >= rules[j].n_start && n <= rules[j].n_end) r = &rules[j];
    const fit_curve *c = curve_of(&s, r);
    double t = c && c->pred_us ? c->pred_us[n - c->lo] : NAN, cb = fit_cublas_us(&s, n);
    int sampled = 0;
    for (int q = 0; c && q < c->nsamples; q++) sampled |= c->n[q] == ns[i];
    char label[64];
    fit_label(r->kernel, &r->cand, label, sizeof label);
    printf("%7d%s %-26s %12.2f %12.2f %8.2f\n", ns[i], sampled ? "*" : " ", label, t, cb, cb / t);
  }
  if (fit->deterministic) free(s.curve);
  fit_set_free(&all);
  return SYMV_EXIT_OK;
}

static const struct option opts[] = {
  {"db", required_argument, 0, CLI_DB},     {"routine", required_argument, 0, CLI_ROUTINE},
  {"json", no_argument, 0, CLI_JSON},       {"at", required_argument, 0, 'a'},
  {"help", no_argument, 0, 'h'},            {"atomics", required_argument, 0, CLI_ATOMICS},
  {"uplo", required_argument, 0, CLI_UPLO}, {0, 0, 0, 0}};

static int run(int argc, char **argv)
{
  int each;
  static const cli_each how = {.options = opts, .json = "json"}; /* several routines: one document */
  if (cli_each_routine_of("rules", argc, argv, run, &how, &each)) return each;
  /* deterministic -1: no --atomics, the table shows both rule sets */
  cli_opts o = {.cmd = "rules", .options = opts, .help = help, .need_db = 1, .routine = SYMV_DSYMV, .uplo = 'L',
                .deterministic = -1};
  int c, at[256], nat = 0;
  while ((c = cli_getopt(&o, argc, argv)))
    if (c == 'a' && cli_parse_int_list("rules", "--at", optarg, 1, 1 << 30, at, 256, &nat)) return SYMV_EXIT_USAGE;
  if (o.status != CLI_GO_ON) return o.status;
  if (o.json && nat) return cli_usage_error("rules", "--json and --at do not go together");
  const int class_given = o.deterministic >= 0, deterministic = class_given && o.deterministic;
  char uplo = o.uplo;
  db *d;
  if (cli_open_db("rules", o.db, DB_READONLY, &d)) return SYMV_EXIT_ERROR;
  db_fit fit;
  db_rule *rules = NULL;
  size_t nrules = 0;
  int rc = db_latest_fit_class(d, o.routine, uplo, 0, deterministic, &fit, &rules, &nrules, NULL, NULL);
  if (rc == SYMV_NOT_FOUND && uplo == 'U') { /* what libsymv serves U with */
    fprintf(o.json ? stderr : stdout, "No fit of uplo U (no dense samples of U): libsymv serves uplo U with the rules "
            "of L\n");
    uplo = 'L';
    rc = db_latest_fit_class(d, o.routine, uplo, 0, deterministic, &fit, &rules, &nrules, NULL, NULL);
  }
  if (rc) {
    fprintf(stderr, "symvtune rules: %s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    db_close(d);
    return SYMV_EXIT_ERROR;
  }
  int status = SYMV_EXIT_OK;
  db_device dev;
  const int have_dev = o.json && db_get_device(d, &dev) == 0;
  if (o.json) print_json(stdout, &fit, rules, nrules, have_dev ? &dev : NULL);
  else if (nat) status = print_at(d, &fit, rules, nrules, at, nat);
  else {
    fit_print_rules(stdout, &fit, rules, nrules);
    if (!class_given) { /* the table: the deterministic set too */
      db_fit dfit;
      db_rule *drules = NULL;
      size_t ndrules = 0;
      rc = db_latest_fit_class(d, o.routine, uplo, 0, 1, &dfit, &drules, &ndrules, NULL, NULL);
      printf("\n");
      if (rc == 0) fit_print_rules(stdout, &dfit, drules, ndrules);
      else if (rc == SYMV_NOT_FOUND) {
        fit_print_rules_title(stdout, o.routine, 1);
        printf("  none stored: libsymv runs cuBLAS for such handles ('symvtune fit' makes them)\n");
      } else {
        fprintf(stderr, "symvtune rules: %s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
        status = SYMV_EXIT_ERROR;
      }
      free(drules);
    }
  }
  free(rules);
  db_close(d);
  if (fflush(stdout) || ferror(stdout)) {
    fprintf(stderr, "symvtune rules: cannot write the output\n");
    return SYMV_EXIT_ERROR;
  }
  return status;
}

const symv_command cmd_rules_entry = {"rules", "print the dispatch rules of the latest fit (table or JSON)", run};
