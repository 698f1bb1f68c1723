/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_fit.c - `symvtune fit`: d-spline curves of every densely sampled
 * kernel, cuBLAS included, and the dispatch rules chosen from them
 * (doc/method.md section 4, steps 6-8; the method of fitting is in fit.h),
 * stored in the database for `symvtune rules`, `plot` and `build`.
 * Needs no GPU.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../db/db.h"
#include "cli.h"
#include "routine.h"
#include "fit.h"
#include "symv_error.h"

#define FIT_N_MAX 16777216 /* largest --lo/--hi accepted */

static void help(void)
{
  printf("Usage: symvtune fit --db FILE [OPTIONS]\n"
         "Fits the dense samples of every kernel measured densely by `symvtune sweep` (the\n"
         "champions, and cuBLAS with atomics off and on) and stores the fit and its dispatch rules\n"
         "in FILE. Each curve is a d-spline (discrete smoothing spline) of ln(time) over a grid\n"
         "uniform in ln n; its alpha is chosen by generalized cross-validation, and a lone sample\n"
         "beyond %g robust standard deviations is dropped as an outlier. Every kernel's predicted\n"
         "time is evaluated at every n of the range, cuBLAS's two modes among them.\n\n"
         "The rules (--select regret, the default) are the intervals of n, each with its kernel,\n"
         "that minimise exactly the predicted regret (the chosen kernel's predicted time over the\n"
         "least predicted time at n, less 1) integrated over ln n, plus the interval cost for each\n"
         "interval past the first: a kernel takes an interval wherever its predicted gain there pays\n"
         "for it, cuBLAS included, with no margin (dynamic programming over n and kernel). With\n"
         "--select merge, the fastest kernel at each n is taken (a candidate only where it is\n"
         "predicted faster than cuBLAS by the margin) and intervals whose kernel gains less than\n"
         "the threshold over a neighbour are merged into it. Both rule sets, 'any' and\n"
         "'deterministic', are chosen so. Prints the curves, the rules and their predicted regret.\n\n"
         "Without --uplo, the samples of uplo L are fitted, and those of uplo U as well where the\n"
         "database has dense samples of U (a fit of their own); where it has none, libsymv serves\n"
         "uplo U with the rules of L.\n\n"
         "Options:\n"
         "  --db FILE        the database (required; opened for writing)\n"
         CLI_ROUTINE_HELP "                 (several: the command runs once for each)\n"
         "  --select M       how the rules are chosen: regret (default) or merge; --threshold or\n"
         "                   --margin without --select means merge\n"
         "  --interval-cost X  --select regret: the price of each interval past the first, in\n"
         "                   regret x ln n (default %g: an interval must gain 1%% over a fifth\n"
         "                   of an e-fold of n, or 9%% over n = 1860..2261); 0: the fastest\n"
         "                   kernel at every n\n"
         "  --threshold F    --select merge: least relative gain that keeps an interval, a\n"
         "                   fraction in [0, 1) (default %g, i.e. %g%%)\n"
         "  --margin F       --select merge: a candidate replaces cuBLAS only where it is\n"
         "                   predicted faster by more than F (default %g)\n"
         "  --lo N, --hi N   the range of n the rules cover (default: the range of the dense\n"
         "                   samples); any n, sampled or not: a range past cuBLAS's samples is\n"
         "                   cut to them, with a message (the rules need its time at every n)\n"
         "  --uplo L|U       fit the samples of this stored triangle only (default: L, and U\n"
         "                   where it was sampled)\n"
         "  --hot            the samples timed with A resident in L2 (default: cold)\n"
         "  --alpha A        fixed d-spline smoothing weight instead of GCV's choice (> 0; on the\n"
         "                   grid of %d points per unit of ln n; larger is smoother)\n"
         "  --help           this text\n"
         "Exit status: 0, 2 usage, 4 database error or missing dense data.\n",
         FIT_OUTLIER_SIGMAS, RULES_DEFAULT_INTERVAL_COST, FIT_DEFAULT_THRESHOLD, 100 * FIT_DEFAULT_THRESHOLD,
         FIT_DEFAULT_MARGIN, FIT_GRID_PER_EFOLD);
}

static void print_curves(const fit_set *s, int lo, int hi, double alpha)
{
  printf("Curves over n = %d..%d: d-spline of ln(time) over ln n, alpha %s\n", lo, hi,
         alpha > 0 ? "fixed" : "by GCV");
  printf("  %-34s %9s %9s %11s %10s %12s\n", "kernel (candidate id)", "samples", "outliers", "alpha", "rms error",
         "fitted n");
  for (size_t i = 0; i < s->ncurves; i++) {
    const fit_curve *c = &s->curve[i];
    char who[128], span[32];
    if (!strcmp(c->kernel, DB_KERNEL_CANDIDATE)) snprintf(who, sizeof who, "%s (%lld)", c->label, c->cand.id);
    else snprintf(who, sizeof who, "%s", c->label);
    if (c->alpha > 0) {
      snprintf(span, sizeof span, "%d..%d", c->first, c->last);
      printf("  %-34s %9d %9d %11.4g %9.2f%% %12s\n", who, c->nused, c->nrejected, c->alpha, 100 * c->rms_rel, span);
    } else {
      printf("  %-34s %9d %9s %11s %10s %12s\n", who, c->nused, "-", "-", "-", "not fitted");
    }
  }
  int head = 0;
  for (size_t i = 0; i < s->ncurves; i++) {
    const fit_curve *c = &s->curve[i];
    if (c->nsteps == 0) continue;
    if (!head++)
      printf("  steps where the tiles a block takes, ceil(T / (SMs x MULTIPLICITY)), rises (fitted amplitude, "
             "1 = flat plateaus; n: fitted time ratio across, * where both sides were sampled and the step has "
             "a jump of its own):\n");
    printf("  %-34s beta %.2f;", c->label, c->step_beta);
    for (int j = 0; j < c->nsteps; j++)
      printf(" %d: x%.3f%s", c->step_n[j], c->step_ratio[j], isnan(c->step_jump[j]) ? "" : "*");
    printf("\n");
  }
}

/* What the command line asked for. */
typedef struct {
  const char *path;          /* the database */
  symv_routine routine;
  int regret;                /* 1: --select regret, 0: merge */
  double interval_cost;      /* --select regret */
  double threshold, margin;  /* --select merge */
  double alpha;              /* 0: GCV */
  int lo, hi;                /* 0: the samples' range */
  int hot;
  int printed;               /* a fit was printed already (a blank line before the next) */
} fit_args;

/* The rules of s by the method of a (fit_select_regret or fit_select). */
static int choose(const fit_args *a, const fit_set *s, db_rule **rules, size_t *nrules, int *bad_n)
{
  return a->regret ? fit_select_regret(s, a->interval_cost, rules, nrules, bad_n)
                   : fit_select(s, a->threshold, a->margin, rules, nrules, bad_n);
}

/* The predicted regret of rules over s, with the other method's for
 * comparison, one line. */
static void print_regret(const fit_args *a, const fit_set *s, const db_rule *rules, size_t nrules)
{
  double mean, max, omean = NAN, omax = NAN;
  int worst;
  if (fit_predicted_regret(s, rules, nrules, &mean, &max, &worst)) return;
  fit_args other = *a;
  other.regret = !a->regret;
  db_rule *orules = NULL;
  size_t norules = 0;
  if (choose(&other, s, &orules, &norules, NULL) == 0) fit_predicted_regret(s, orules, norules, &omean, &omax, NULL);
  free(orules);
  printf("  predicted regret (chosen / fastest predicted): mean over ln n %.4f, max %.4f at n = %d; %s rules: "
         "%zu, mean %.4f, max %.4f\n", mean, max, worst, other.regret ? "regret" : "merge", norules, omean, omax);
}

/* The method text stored with the fit (db_fit.method, 255 bytes). */
static void method_text(const fit_args *a, char *buf, size_t size)
{
  char sel[96], alpha[32];
  if (a->regret)
    snprintf(sel, sizeof sel, "%s, interval cost %g, max %g%%", FIT_SELECT_REGRET, a->interval_cost,
             100 * FIT_MAX_PREDICTED_REGRET);
  else snprintf(sel, sizeof sel, "%s, threshold %g, margin %g over cuBLAS", FIT_SELECT_MERGE, a->threshold, a->margin);
  if (a->alpha > 0) snprintf(alpha, sizeof alpha, "alpha fixed at %g", a->alpha);
  else snprintf(alpha, sizeof alpha, "alpha by modified GCV");
  snprintf(buf, size, "%s; d-spline of ln(time) on a ln(n) grid of %d points per unit, %s; lone outliers beyond %g "
           "robust sigma dropped; steps m <= %d", sel, FIT_GRID_PER_EFOLD, alpha, FIT_OUTLIER_SIGMAS, FIT_STEP_MAX_TILES);
}

/* Fits (uplo) of a and stores both rule sets. Returns an exit status;
 * SYMV_NOT_FOUND when there are no dense samples of uplo, after saying so
 * unless quiet_missing. */
static int fit_one(fit_args *a, db *d, char uplo, int quiet_missing)
{
  const char *path = a->path, *rname = symv_routine_name(a->routine);
  int status = SYMV_EXIT_ERROR, hot = a->hot;
  fit_set s = {0};
  db_rule *rules = NULL;
  size_t nrules = 0;
  int rc = fit_load(d, a->routine, uplo, hot, &s);
  if (rc == SYMV_NOT_FOUND) {
    if (!quiet_missing)
      fprintf(stderr, "symvtune fit: %s has no dense-stage measurements of %s for uplo %c, %s (run 'symvtune sweep "
              "--db %s --routine %s%s%s' through its dense stage first%s)\n", path, rname, uplo, hot ? "hot" : "cold",
              path, rname, uplo == 'U' ? " --uplo U" : "", hot ? " --hot" : "",
              uplo == 'U' ? "; without them libsymv serves uplo U with the rules of L" : "");
    return SYMV_NOT_FOUND;
  }
  if (rc) {
    fprintf(stderr, "symvtune fit: reading the dense samples: %s\n",
            rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    goto out;
  }
  int slo, shi, clo = 0, chi = 0;
  fit_sampled_range(&s, &slo, &shi);
  int want_lo = a->lo ? a->lo : slo, want_hi = a->hi ? a->hi : shi;
  int lo = want_lo, hi = want_hi;
  /* Rules need cuBLAS's time at every n: no rule reaches past its samples.
   * Bounds between samples are fine (fit_curve_compute). */
  if (fit_cublas_range(&s, &clo, &chi) == 0) {
    if (lo < clo) lo = clo;
    if (hi > chi) hi = chi;
    if (lo <= hi && (lo != want_lo || hi != want_hi))
      fprintf(stderr, "symvtune fit: cuBLAS is sampled over %d..%d only: the rules cover %d..%d, not %d..%d\n",
              clo, chi, lo, hi, want_lo, want_hi);
  }
  if (lo > hi) {
    fprintf(stderr, "symvtune fit: empty range %d..%d (the dense samples cover %d..%d, those of cuBLAS %d..%d)\n",
            want_lo, want_hi, slo, shi, clo, chi);
    goto out;
  }
  if ((rc = fit_compute(&s, lo, hi, a->alpha))) {
    fprintf(stderr, "symvtune fit: fitting the curves over %d..%d: %s\n", lo, hi, symv_strerror(rc));
    goto out;
  }
  if (uplo == 'U') printf("%sUplo U, from its own dense samples\n", a->printed ? "\n" : "");
  print_curves(&s, lo, hi, a->alpha);
  int bad_n = 0;
  rc = choose(a, &s, &rules, &nrules, &bad_n);
  if (rc == SYMV_NOT_FOUND) {
    fprintf(stderr, "symvtune fit: no %s is predicted at n = %d: the range %d..%d must lie within the sampled "
            "range of cuBLAS (the dense samples cover %d..%d)\n",
            isnan(fit_cublas_us(&s, bad_n)) ? "cuBLAS mode" : "kernel", bad_n, lo, hi, slo, shi);
    goto out;
  }
  if (rc) {
    fprintf(stderr, "symvtune fit: choosing the rules: %s\n", symv_strerror(rc));
    goto out;
  }
  char method[sizeof ((db_fit *)0)->method];
  method_text(a, method, sizeof method);
  const double threshold = a->regret ? 0.0 : a->threshold; /* the merge method's; none for regret */
  db_fit fit;
  if ((rc = fit_store(d, &s, threshold, method, rules, nrules, &fit))) {
    fprintf(stderr, "symvtune fit: storing the fit: %s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    goto out;
  }
  printf("\n");
  fit_print_rules(stdout, &fit, rules, nrules);
  print_regret(a, &s, rules, nrules);
  /* the rules for cuBLAS's default atomics mode: deterministic kernels and
   * cuBLAS without atomics only (libsymv follows the handle's mode) */
  fit_set det;
  db_rule *drules = NULL;
  size_t ndrules = 0;
  if ((rc = fit_deterministic_view(&s, &det)) == 0) {
    rc = choose(a, &det, &drules, &ndrules, &bad_n);
    if (rc == 0) rc = fit_store(d, &det, threshold, method, drules, ndrules, &fit);
    if (rc == 0) {
      printf("\n");
      fit_print_rules(stdout, &fit, drules, ndrules);
      print_regret(a, &det, drules, ndrules);
    } else {
      fprintf(stderr, "symvtune fit: the deterministic rules: %s\n",
              rc == SYMV_NOT_FOUND || rc == SYMV_INVALID_VALUE || rc == SYMV_NO_MEMORY ? symv_strerror(rc)
                                                                                   : db_errmsg(d));
    }
    free(det.curve);
    free(drules);
  }
  if (rc == 0) status = SYMV_EXIT_OK;
  a->printed = 1;
out:
  free(rules);
  fit_set_free(&s);
  return status;
}

static int run(int argc, char **argv)
{
  int each;
  if (cli_each_routine("fit", argc, argv, run, &each)) return each;
  static const struct option opts[] = {
    {"db", required_argument, 0, CLI_DB}, {"routine", required_argument, 0, CLI_ROUTINE},
    {"threshold", required_argument, 0, 't'}, {"margin", required_argument, 0, 'm'},
    {"lo", required_argument, 0, 'l'}, {"hi", required_argument, 0, 'i'},
    {"uplo", required_argument, 0, CLI_UPLO}, {"hot", no_argument, 0, CLI_HOT},
    {"alpha", required_argument, 0, 'a'}, {"select", required_argument, 0, 's'},
    {"interval-cost", required_argument, 0, 'c'}, {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};
  /* uplo 0: no --uplo, L and U both fitted */
  cli_opts o = {.cmd = "fit", .options = opts, .help = help, .need_db = 1, .routine = SYMV_DSYMV, .uplo = 0};
  fit_args a = {.regret = 1, .interval_cost = RULES_DEFAULT_INTERVAL_COST, .threshold = FIT_DEFAULT_THRESHOLD,
                .margin = FIT_DEFAULT_MARGIN};
  int c, merge_opt = 0, regret_opt = 0, selected = 0;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 's':
      if (strcmp(optarg, FIT_SELECT_REGRET) && strcmp(optarg, FIT_SELECT_MERGE))
        return cli_usage_error("fit", "invalid --select '%s' (regret or merge)", optarg);
      a.regret = !strcmp(optarg, FIT_SELECT_REGRET);
      selected = 1;
      break;
    case 'c':
      if (cli_parse_double("fit", "--interval-cost", optarg, 0, 1e6, &a.interval_cost)) return SYMV_EXIT_USAGE;
      regret_opt = 1;
      break;
    case 't':
      if (cli_parse_double("fit", "--threshold", optarg, 0, 0.999999, &a.threshold)) return SYMV_EXIT_USAGE;
      merge_opt = 1;
      break;
    case 'm':
      if (cli_parse_double("fit", "--margin", optarg, 0, 10, &a.margin)) return SYMV_EXIT_USAGE;
      merge_opt = 1;
      break;
    case 'l':
      if (cli_parse_int("fit", "--lo", optarg, 1, FIT_N_MAX, &a.lo)) return SYMV_EXIT_USAGE;
      break;
    case 'i':
      if (cli_parse_int("fit", "--hi", optarg, 1, FIT_N_MAX, &a.hi)) return SYMV_EXIT_USAGE;
      break;
    case 'a':
      if (cli_parse_double("fit", "--alpha", optarg, 1e-12, 1e15, &a.alpha)) return SYMV_EXIT_USAGE;
      break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  a.path = o.db, a.routine = o.routine, a.hot = o.hot;
  if (a.lo && a.hi && a.lo > a.hi) return cli_usage_error("fit", "--lo %d is above --hi %d", a.lo, a.hi);
  if (!selected && merge_opt && !regret_opt) a.regret = 0; /* the options of merge ask for merge */
  if (a.regret && merge_opt) return cli_usage_error("fit", "--threshold and --margin go with --select merge");
  if (!a.regret && regret_opt) return cli_usage_error("fit", "--interval-cost goes with --select regret");

  db *d;
  if (cli_open_db("fit", a.path, 0, &d)) return SYMV_EXIT_ERROR;
  int status;
  if (o.uplo) {
    status = fit_one(&a, d, o.uplo, 0);
  } else { /* L, and U where it was sampled (a database swept with --uplo U has only U) */
    status = fit_one(&a, d, 'L', 1);
    int su = status == SYMV_EXIT_OK || status == SYMV_NOT_FOUND ? fit_one(&a, d, 'U', 1) : SYMV_EXIT_ERROR;
    if (status == SYMV_NOT_FOUND && su == SYMV_NOT_FOUND)
      status = fit_one(&a, d, 'L', 0); /* neither: the message of L */
    else if (status == SYMV_NOT_FOUND)
      status = su;
    else if (su == SYMV_NOT_FOUND)
      printf("\nNo dense samples of uplo U: libsymv serves uplo U with the rules of L\n");
    else if (su != SYMV_EXIT_OK)
      status = su;
  }
  if (status == SYMV_NOT_FOUND) status = SYMV_EXIT_ERROR;
  db_close(d);
  return status;
}

const symv_command cmd_fit_entry = {"fit", "fit the dense samples and choose dispatch rules (no GPU)", run};
