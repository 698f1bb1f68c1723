/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_fit.c - `symvtune fit`: d-spline curves of every densely sampled
 * kernel, cuBLAS included, and the dispatch rules chosen from them
 * (method.md section 4, steps 6-8; the method of fitting is in fit.h),
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
         "time is evaluated at every n of the range; at each n the fastest is chosen, cuBLAS\n"
         "included, so no rule names a kernel predicted slower than cuBLAS except across an\n"
         "interval merged away by the threshold. Intervals whose kernel gains less than the\n"
         "threshold over a neighbour (predicted time summed over the interval) are merged into\n"
         "the neighbour. Prints the curves and the rules.\n\n"
         "Options:\n"
         "  --db FILE        the database (required; opened for writing)\n"
         CLI_ROUTINE_HELP "                 (several: the command runs once for each)\n"
         "  --threshold F    least relative gain that keeps an interval, a fraction in [0, 1)\n"
         "                   (default %g, i.e. %g%%)\n"
         "  --margin F       a candidate replaces cuBLAS only where it is predicted faster by more\n"
         "                   than F (default %g): predictions between samples are good to a few\n"
         "                   percent, and libsymv must not lose to cuBLAS\n"
         "  --lo N, --hi N   the range of n the rules cover (default: the range of the dense\n"
         "                   samples); any n, sampled or not: a range past cuBLAS's samples is\n"
         "                   cut to them, with a message (the rules need its time at every n)\n"
         "  --uplo L|U       stored triangle of the samples (default L)\n"
         "  --hot            the samples timed with A resident in L2 (default: cold)\n"
         "  --alpha A        fixed d-spline smoothing weight instead of GCV's choice (> 0; on the\n"
         "                   grid of %d points per unit of ln n; larger is smoother)\n"
         "  --help           this text\n"
         "Exit status: 0, 2 usage, 4 database error or missing dense data.\n",
         FIT_OUTLIER_SIGMAS, FIT_DEFAULT_THRESHOLD, 100 * FIT_DEFAULT_THRESHOLD, FIT_DEFAULT_MARGIN,
         FIT_GRID_PER_EFOLD);
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
}

static int run(int argc, char **argv)
{
  int each;
  if (cli_each_routine("fit", argc, argv, run, &each)) return each;
  static const struct option opts[] = {
    {"db", required_argument, 0, 'D'}, {"routine", required_argument, 0, 'r'}, {"threshold", required_argument, 0, 't'}, {"margin", required_argument, 0, 'm'},
    {"lo", required_argument, 0, 'l'}, {"hi", required_argument, 0, 'i'},
    {"uplo", required_argument, 0, 'u'}, {"hot", no_argument, 0, 'H'},
    {"alpha", required_argument, 0, 'a'}, {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};
  symv_routine routine = SYMV_DSYMV;
  const char *path = NULL;
  double threshold = FIT_DEFAULT_THRESHOLD, alpha = 0, margin = FIT_DEFAULT_MARGIN;
  int lo = 0, hi = 0, hot = 0, c;
  char uplo = 'L';
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'D': path = optarg; break;
    case 'r':
      if (cli_parse_routine("fit", optarg, &routine)) return SYMV_EXIT_USAGE;
      break;
    case 't':
      if (cli_parse_double("fit", "--threshold", optarg, 0, 0.999999, &threshold)) return SYMV_EXIT_USAGE;
      break;
    case 'm':
      if (cli_parse_double("fit", "--margin", optarg, 0, 10, &margin)) return SYMV_EXIT_USAGE;
      break;
    case 'l':
      if (cli_parse_int("fit", "--lo", optarg, 1, FIT_N_MAX, &lo)) return SYMV_EXIT_USAGE;
      break;
    case 'i':
      if (cli_parse_int("fit", "--hi", optarg, 1, FIT_N_MAX, &hi)) return SYMV_EXIT_USAGE;
      break;
    case 'u':
      if (strcmp(optarg, "L") && strcmp(optarg, "U")) return cli_usage_error("fit", "invalid --uplo '%s' (L or U)", optarg);
      uplo = optarg[0];
      break;
    case 'H': hot = 1; break;
    case 'a':
      if (cli_parse_double("fit", "--alpha", optarg, 1e-12, 1e15, &alpha)) return SYMV_EXIT_USAGE;
      break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("fit", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("fit", "unexpected argument '%s'", argv[optind]);
  if (!path) return cli_usage_error("fit", "--db FILE is required");
  if (lo && hi && lo > hi) return cli_usage_error("fit", "--lo %d is above --hi %d", lo, hi);

  db *d = NULL;
  int rc = db_open(&d, path, 0);
  if (rc) {
    fprintf(stderr, "symvtune fit: %s\n", db_errmsg(d));
    db_close(d);
    return SYMV_EXIT_ERROR;
  }
  int status = SYMV_EXIT_ERROR;
  fit_set s = {0};
  db_rule *rules = NULL;
  size_t nrules = 0;
  rc = fit_load(d, symv_routine_name(routine), uplo, hot, &s);
  if (rc == SYMV_NOT_FOUND) {
    fprintf(stderr, "symvtune fit: %s has no dense-stage measurements of %s for uplo %c, %s (run 'symvtune sweep "
            "--db %s --routine %s%s%s' through its dense stage first)\n", path, symv_routine_name(routine), uplo,
            hot ? "hot" : "cold", path, symv_routine_name(routine), uplo == 'U' ? " --uplo U" : "", hot ? " --hot" : "");
    goto out;
  }
  if (rc) {
    fprintf(stderr, "symvtune fit: reading the dense samples: %s\n",
            rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    goto out;
  }
  int slo, shi, clo = 0, chi = 0;
  fit_sampled_range(&s, &slo, &shi);
  int want_lo = lo ? lo : slo, want_hi = hi ? hi : shi;
  lo = want_lo, hi = want_hi;
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
  if ((rc = fit_compute(&s, lo, hi, alpha))) {
    fprintf(stderr, "symvtune fit: fitting the curves over %d..%d: %s\n", lo, hi, symv_strerror(rc));
    goto out;
  }
  print_curves(&s, lo, hi, alpha);
  int bad_n = 0;
  rc = fit_select(&s, threshold, margin, &rules, &nrules, &bad_n);
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
  char method[256];
  if (alpha > 0)
    snprintf(method, sizeof method, "d-spline of ln(time) on a ln(n) grid of %d points per unit, alpha fixed at "
             "%g; lone outliers beyond %g robust sigma dropped; margin %g over cuBLAS", FIT_GRID_PER_EFOLD, alpha,
             FIT_OUTLIER_SIGMAS, margin);
  else
    snprintf(method, sizeof method, "d-spline of ln(time) on a ln(n) grid of %d points per unit, alpha by "
             "modified GCV; lone outliers beyond %g robust sigma dropped; margin %g over cuBLAS", FIT_GRID_PER_EFOLD,
             FIT_OUTLIER_SIGMAS, margin);
  db_fit fit;
  if ((rc = fit_store(d, &s, threshold, method, rules, nrules, &fit))) {
    fprintf(stderr, "symvtune fit: storing the fit: %s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    goto out;
  }
  printf("\n");
  fit_print_rules(stdout, &fit, rules, nrules);
  /* the rules for cuBLAS's default atomics mode: deterministic kernels and
   * cuBLAS without atomics only (libsymv follows the handle's mode) */
  fit_set det;
  db_rule *drules = NULL;
  size_t ndrules = 0;
  if ((rc = fit_deterministic_view(&s, &det)) == 0) {
    rc = fit_select(&det, threshold, margin, &drules, &ndrules, &bad_n);
    if (rc == 0) rc = fit_store(d, &det, threshold, method, drules, ndrules, &fit);
    if (rc == 0) {
      printf("\n");
      fit_print_rules(stdout, &fit, drules, ndrules);
    } else {
      fprintf(stderr, "symvtune fit: the deterministic rules: %s\n",
              rc == SYMV_NOT_FOUND || rc == SYMV_INVALID_VALUE || rc == SYMV_NO_MEMORY ? symv_strerror(rc)
                                                                                   : db_errmsg(d));
    }
    free(det.curve);
    free(drules);
  }
  if (rc == 0) status = SYMV_EXIT_OK;
out:
  free(rules);
  fit_set_free(&s);
  db_close(d);
  return status;
}

const symv_command cmd_fit_entry = {"fit", "fit the dense samples and choose dispatch rules (no GPU)", run};
