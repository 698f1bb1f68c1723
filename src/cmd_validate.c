/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_validate.c - `symvtune validate`: what the rules cost at sizes no
 * stage sampled. At random sizes (log-uniform over the fit's range, seeded,
 * none of them a dense sample) the kernel the rules choose, every kernel
 * the fit chose from (its dense champions and the cuBLAS modes of its
 * class) are timed in one run by the sweep's worker; regret at a size is
 * the chosen kernel's time over the least time measured there. Prints each
 * size, the regret's median, 90th percentile and maximum, and the error of
 * the fit's prediction for the chosen kernel; stores the run in the
 * database (schema 6: validation_run, validation_time).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../db/db.h"
#include "cli.h"
#include "fit.h"
#include "params.h"
#include "reference.h"
#include "routine.h"
#include "sweep.h"
#include "symv_error.h"
#include "util.h"

#define MAX_SIZES 256
#define DEFAULT_SIZES 50

static void help(void)
{
  puts("Usage: symvtune validate --db FILE [OPTIONS]\n"
       "Judges the latest fit's rules (uplo L, cold, as build ships them) at sizes no stage\n"
       "sampled: at each, times in one run the kernel the rules choose and every kernel the fit\n"
       "chose from (its densely sampled champions and cuBLAS), on the GPU present. Prints per\n"
       "size the chosen kernel, the fastest one and the regret (chosen time / fastest time),\n"
       "and the fit's predicted time for the chosen kernel against the measured one; then the\n"
       "regret's median, 90th percentile and maximum and the sizes losing more than 5%.\n"
       "Stores the run in FILE (tables validation_run, validation_time).\n\n"
       "Options:\n"
       "  --db FILE        the database (required; a fit stored by `symvtune fit`)\n"
       CLI_ROUTINE_HELP "                   (several: one run for each)\n"
       "  --sizes N|LIST   N random sizes, log-uniform over the fit's range, none a dense\n"
       "                   sample (default 50), or a comma-separated list of n\n"
       "  --seed S         seed of the random sizes (default: from the clock; printed)\n"
       "  --atomics C      the rule set judged: any (default: every kernel and both cuBLAS\n"
       "                   modes) or deterministic (" SYMV_DETERMINISTIC_FAMILIES ", cuBLAS without atomics)\n"
       "  --device N       CUDA device (default 0)\n"
       "  --timeout S      seconds a kernel may run without answering (default 20)\n"
       "  --allow-foreign  accept a database made on a different GPU\n"
       "  --help           this text\n"
       "Exit status: 0, 2 usage, 3 no GPU, 4 database or system error.");
}

/* xorshift64 of the random sizes */
static unsigned long long next_rand(unsigned long long *s)
{
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

/* nsizes random sizes, log-uniform in lo..hi, distinct, none of the
 * sampled[nsampled]; ascending. Returns how many (fewer if the range holds
 * too few). */
static int random_sizes(unsigned long long seed, int want, int lo, int hi, const int *sampled, int nsampled, int *out)
{
  unsigned long long s = seed ? seed : 0x9e3779b97f4a7c15ull;
  int k = 0;
  for (int tries = 0; k < want && tries < 100 * want; tries++) {
    const double u = (double)(next_rand(&s) >> 11) * (1.0 / 9007199254740992.0);
    const int n = (int)lround(exp(log((double)lo) + u * (log((double)hi) - log((double)lo))));
    int taken = n < lo || n > hi;
    for (int i = 0; !taken && i < nsampled; i++) taken = sampled[i] == n;
    for (int i = 0; !taken && i < k; i++) taken = out[i] == n;
    if (!taken) out[k++] = n;
  }
  for (int i = 1; i < k; i++) /* insertion sort: at most MAX_SIZES */
    for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
      const int t = out[j];
      out[j] = out[j - 1], out[j - 1] = t;
    }
  return k;
}

/* The index in s of the curve rule r names, -1 if none. */
static int curve_of_rule(const fit_set *s, const db_rule *r)
{
  for (size_t c = 0; c < s->ncurves; c++)
    if (!strcmp(s->curve[c].kernel, r->kernel) &&
        (strcmp(r->kernel, DB_KERNEL_CANDIDATE) || s->curve[c].cand.id == r->cand.id))
      return (int)c;
  return -1;
}

/* q-quantile (nearest rank) of the sorted v[0..m). */
static double quantile(const double *v, int m, double q)
{
  int k = (int)ceil(q * m) - 1;
  return v[k < 0 ? 0 : k >= m ? m - 1 : k];
}

static int run(int argc, char **argv)
{
  int each;
  if (cli_each_routine("validate", argc, argv, run, &each)) return each;
  static const struct option opts[] = {
    {"db", required_argument, 0, 'D'},      {"routine", required_argument, 0, 'r'}, {"sizes", required_argument, 0, 's'},
    {"seed", required_argument, 0, 'S'},    {"atomics", required_argument, 0, 'A'}, {"device", required_argument, 0, 'd'},
    {"timeout", required_argument, 0, 't'}, {"allow-foreign", no_argument, 0, 'F'}, {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};
  symv_routine routine = SYMV_DSYMV;
  const char *path = NULL;
  int ns[MAX_SIZES], nsizes = 0, want = DEFAULT_SIZES, det = 0, device = 0, allow_foreign = 0, c, seeded = 0;
  double timeout = 20;
  unsigned long long seed = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'D': path = optarg; break;
    case 'r':
      if (cli_parse_routine("validate", optarg, &routine)) return SYMV_EXIT_USAGE;
      break;
    case 's':
      if (!strchr(optarg, ',')) {
        if (cli_parse_int("validate", "--sizes", optarg, 1, MAX_SIZES, &want)) return SYMV_EXIT_USAGE;
      } else if (cli_parse_int_list("validate", "--sizes", optarg, 1, DB_N_MAX, ns, MAX_SIZES, &nsizes)) {
        return SYMV_EXIT_USAGE;
      }
      break;
    case 'S':
      if (cli_parse_seed("validate", optarg, &seed)) return SYMV_EXIT_USAGE;
      seeded = 1;
      break;
    case 'A':
      if (cli_parse_atomics("validate", optarg, &det)) return SYMV_EXIT_USAGE;
      break;
    case 'd':
      if (cli_parse_int("validate", "--device", optarg, 0, 1023, &device)) return SYMV_EXIT_USAGE;
      break;
    case 't':
      if (cli_parse_double("validate", "--timeout", optarg, 1, 3600, &timeout)) return SYMV_EXIT_USAGE;
      break;
    case 'F': allow_foreign = 1; break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("validate", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("validate", "unexpected argument '%s'", argv[optind]);
  if (!path) return cli_usage_error("validate", "--db FILE is required");
  if (!seeded) seed = (unsigned long long)time(NULL) * 6364136223846793005ull + 1442695040888963407ull;

  db *d = NULL;
  int rc = db_open(&d, path, 0), status = SYMV_EXIT_ERROR;
  if (rc) {
    fprintf(stderr, "symvtune validate: %s\n", db_errmsg(d));
    db_close(d);
    return SYMV_EXIT_ERROR;
  }
  db_fit fit;
  db_rule *rules = NULL;
  db_fit_curve *curves = NULL;
  size_t nrules = 0, ncurves = 0;
  fit_set all = {0}, view = {0};
  double *t = NULL;
  db_validation_time *vt = NULL;
  sweep_worker w = {0};
  const char *rname = symv_routine_name(routine);
  if ((rc = db_latest_fit_class(d, rname, 'L', 0, det, &fit, &rules, &nrules, &curves, &ncurves))) {
    fprintf(stderr, "symvtune validate: %s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    goto out;
  }
  if ((rc = fit_load(d, rname, 'L', 0, &all))) {
    fprintf(stderr, "symvtune validate: reading the dense samples: %s\n",
            rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    goto out;
  }
  /* the curves as the fit made them (its alphas), for the predictions */
  for (size_t i = 0; i < all.ncurves; i++) {
    double alpha = 0;
    for (size_t j = 0; j < ncurves; j++)
      if (!strcmp(curves[j].kernel, all.curve[i].kernel) &&
          (strcmp(all.curve[i].kernel, DB_KERNEL_CANDIDATE) || curves[j].candidate_id == all.curve[i].cand.id))
        alpha = curves[j].alpha;
    if ((rc = fit_curve_compute(&all.curve[i], fit.lo, fit.hi, alpha))) {
      fprintf(stderr, "symvtune validate: fitting %s: %s\n", all.curve[i].label, symv_strerror(rc));
      goto out;
    }
  }
  if (det && fit_deterministic_view(&all, &view)) goto out;
  fit_set *s = det ? &view : &all;
  for (size_t j = 0; j < nrules; j++) /* the rules choose among the fit's kernels: a file says otherwise */
    if (curve_of_rule(s, &rules[j]) < 0) {
      char label[64];
      fit_label(rules[j].kernel, &rules[j].cand, label, sizeof label);
      fprintf(stderr, "symvtune validate: fit %lld's rule n %d..%d names %s, which the fit has no curve of (a "
              "damaged or hand-edited database; run `symvtune fit` again)\n", fit.id, rules[j].n_start,
              rules[j].n_end, label);
      goto out;
    }

  const int drawn = nsizes == 0; /* no list given: the seed chose the sizes */
  if (drawn) {
    int sampled[4096], nsampled = 0;
    for (size_t i = 0; i < all.ncurves; i++)
      for (int q = 0; q < all.curve[i].nsamples && nsampled < 4096; q++) sampled[nsampled++] = all.curve[i].n[q];
    nsizes = random_sizes(seed, want, fit.lo, fit.hi, sampled, nsampled, ns);
    printf("validate %s: %d sizes log-uniform in %d..%d, none a dense sample (seed %llu)\n", rname, nsizes, fit.lo,
           fit.hi, seed);
  } else {
    printf("validate %s: %d sizes given\n", rname, nsizes);
  }
  if (nsizes == 0) {
    fprintf(stderr, "symvtune validate: no size to validate at\n");
    goto out;
  }
  const int K = (int)s->ncurves;
  t = malloc(sizeof *t * (size_t)K * (size_t)nsizes);
  vt = calloc((size_t)K * (size_t)nsizes, sizeof *vt);
  if (!t || !vt) {
    fprintf(stderr, "symvtune validate: %s\n", symv_strerror(SYMV_NO_MEMORY));
    goto out;
  }

  sweep_opts o = {.routine = routine, .device = device, .uplo = 'L', .hot = 0, .batches = 5,
                  .tol = SYMV_RESIDUAL_TOL, .timeout_s = timeout, .prune = 0, .jobs = 0, .quiet = 1};
  if ((rc = sweep_worker_start(&w, &o))) {
    fprintf(stderr, "symvtune validate: %s\n", rc == SYMV_NO_DEVICE ? "no CUDA GPU here" : symv_strerror(rc));
    status = rc == SYMV_NO_DEVICE ? SYMV_EXIT_NO_GPU : SYMV_EXIT_ERROR;
    goto out;
  }
  db_device fp;
  sweep_device_fingerprint(&w, &fp);
  if ((rc = db_check_device(d, &fp, allow_foreign))) {
    fprintf(stderr, "symvtune validate: %s\n", db_errmsg(d));
    goto out;
  }
  printf("%s (fit %lld, %s rules: %zu; %d kernels timed at each size)\n", fp.name, fit.id,
         det ? "deterministic" : "any", nrules, K);
  for (int k = 0; k < K; k++) {
    const fit_curve *fc = &s->curve[k];
    char what[96], err[512];
    if (!strcmp(fc->kernel, DB_KERNEL_CANDIDATE)) {
      symv_params p;
      if (sweep_params_of(&fc->cand, &p)) {
        for (int i = 0; i < nsizes; i++) t[(size_t)k * nsizes + i] = NAN;
        continue;
      }
      char pt[64];
      symv_params_format(&p, pt, sizeof pt);
      snprintf(what, sizeof what, "cand %s", pt);
    } else {
      snprintf(what, sizeof what, "base %s", fc->kernel);
    }
    rc = sweep_worker_times(&w, &o, what, ns, nsizes, t + (size_t)k * nsizes, err, sizeof err);
    if (rc) {
      char label[96];
      fprintf(stderr, "symvtune validate: %s: %s\n", symv_escape(fc->label, label, sizeof label),
              rc == SYMV_INVALID_VALUE ? err : rc == SYMV_TIMEOUT ? "no answer within its time limit" : "the worker died");
      if (rc != SYMV_INVALID_VALUE) { /* a fresh worker for the others */
        sweep_worker_stop(&w);
        if (sweep_worker_start(&w, &o)) {
          fprintf(stderr, "symvtune validate: cannot restart the worker\n");
          goto out;
        }
      }
    }
  }

  /* regret at each size */
  printf("\n%8s %-26s %10s %-26s %10s %8s %12s %8s\n", "n", "chosen (rules)", "us", "fastest", "us", "regret",
         "predicted us", "error");
  double *reg = malloc(sizeof *reg * (size_t)nsizes), *perr = malloc(sizeof *perr * (size_t)nsizes);
  int m = 0, mp = 0, over = 0;
  size_t nvt = 0;
  for (int i = 0; reg && perr && i < nsizes; i++) {
    const int n = ns[i];
    const db_rule *r = &rules[nrules - 1];
    for (size_t j = 0; j < nrules; j++)
      if (n >= rules[j].n_start && n <= rules[j].n_end) r = &rules[j];
    if (n < rules[0].n_start) r = &rules[0];
    const int ck = curve_of_rule(s, r);
    int best = -1;
    for (int k = 0; k < K; k++) {
      const double v = t[(size_t)k * nsizes + i];
      if (v > 0 && (best < 0 || v < t[(size_t)best * nsizes + i])) best = k;
    }
    const double tc = ck >= 0 ? t[(size_t)ck * nsizes + i] : NAN;
    const double pc = ck >= 0 && s->curve[ck].pred_us && n >= s->curve[ck].lo && n <= s->curve[ck].hi
                          ? s->curve[ck].pred_us[n - s->curve[ck].lo] : NAN;
    char lc[64], lb[64];
    fit_label(r->kernel, &r->cand, lc, sizeof lc);
    snprintf(lb, sizeof lb, "%s", best >= 0 ? s->curve[best].label : "-");
    if (!(tc > 0) || best < 0) {
      printf("%8d %-26s %10s %-26s (not measured)\n", n, lc, "-", lb);
      continue;
    }
    const double tb = t[(size_t)best * nsizes + i], g = tc / tb;
    reg[m++] = g;
    over += g > 1.05;
    if (pc > 0) perr[mp++] = pc / tc - 1;
    printf("%8d %-26s %10.2f %-26s %10.2f %8.3f %12.2f %7.1f%%%s\n", n, lc, tc, lb, tb, g, pc, 100 * (pc / tc - 1),
           g > 1.05 ? "  >5%" : "");
    for (int k = 0; k < K; k++) {
      const double v = t[(size_t)k * nsizes + i];
      if (!(v > 0)) continue;
      db_validation_time *e = &vt[nvt++];
      e->n = n;
      snprintf(e->kernel, sizeof e->kernel, "%s", s->curve[k].kernel);
      e->candidate_id = strcmp(s->curve[k].kernel, DB_KERNEL_CANDIDATE) ? 0 : s->curve[k].cand.id;
      e->median_us = v;
      e->predicted_us = s->curve[k].pred_us && n >= s->curve[k].lo && n <= s->curve[k].hi
                            ? s->curve[k].pred_us[n - s->curve[k].lo] : NAN;
      e->chosen = k == ck;
    }
  }
  if (!reg || !perr || m == 0) {
    fprintf(stderr, "symvtune validate: %s\n", m == 0 ? "no size was measured" : symv_strerror(SYMV_NO_MEMORY));
    free(reg), free(perr);
    goto out;
  }
  qsort(reg, (size_t)m, sizeof *reg, symv_cmp_double);
  for (int i = 0; i < mp; i++) perr[i] = fabs(perr[i]);
  qsort(perr, (size_t)mp, sizeof *perr, symv_cmp_double);
  db_validation v = {.fit_id = fit.id, .seed = drawn ? seed : 0, .regret_median = quantile(reg, m, 0.5),
                     .regret_p90 = quantile(reg, m, 0.9), .regret_max = reg[m - 1]};
  printf("\nregret (chosen / fastest) over %d sizes: median %.3f, 90th percentile %.3f, max %.3f; %d of them "
         "lose more than 5%%\n", m, v.regret_median, v.regret_p90, v.regret_max, over);
  if (mp) printf("prediction error of the chosen kernel: median %.1f%%, max %.1f%% (|predicted / measured - 1|)\n",
                 100 * quantile(perr, mp, 0.5), 100 * perr[mp - 1]);
  free(reg), free(perr);
  if ((rc = db_put_validation(d, &v, vt, nvt))) {
    fprintf(stderr, "symvtune validate: storing the run: %s\n", db_errmsg(d));
    goto out;
  }
  printf("stored as validation run %lld in %s\n", v.id, path);
  status = SYMV_EXIT_OK;
out:
  sweep_worker_stop(&w);
  free(t), free(vt), free(view.curve);
  fit_set_free(&all);
  free(rules), free(curves);
  db_close(d);
  return status;
}

const symv_command cmd_validate_entry = {"validate", "regret of the rules at sizes no stage sampled (GPU)", run};
