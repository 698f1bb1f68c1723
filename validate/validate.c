/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * validate.c - the validation stage (validate.h): the latest fit's rules
 * judged at sizes no stage sampled, measured now by the sweep's worker or
 * read from a stored run.
 */
#define _GNU_SOURCE
#include "validate.h"
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "params.h"
#include "reference.h"
#include "sweep.h"
#include "symv_error.h"
#include "util.h"

#define LIB_KERNEL_LEN 64 /* what libsymv ran at a size (symvLastKernel), with its NUL */

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
  for (int i = 1; i < k; i++) /* insertion sort: at most VALIDATE_MAX_SIZES */
    for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
      const int t = out[j];
      out[j] = out[j - 1], out[j - 1] = t;
    }
  return k;
}

/* q-quantile (nearest rank) of the sorted v[0..m). */
static double quantile(const double *v, int m, double q)
{
  int k = (int)ceil(q * m) - 1;
  return v[k < 0 ? 0 : k >= m ? m - 1 : k];
}

/* The rule of n (the first or last beyond the range). */
const db_rule *validate_rule_of(const db_rule *rules, size_t nrules, int n)
{
  const db_rule *r = &rules[nrules - 1];
  for (size_t j = 0; j < nrules; j++)
    if (n >= rules[j].n_start && n <= rules[j].n_end) r = &rules[j];
  if (n < rules[0].n_start) r = &rules[0];
  return r;
}

/* The predicted time of curve k of s at n, NaN where there is none. */
double validate_predicted(const fit_set *s, int k, int n)
{
  const fit_curve *c = k >= 0 ? &s->curve[k] : NULL;
  return c && c->pred_us && n >= c->lo && n <= c->hi ? c->pred_us[n - c->lo] : NAN;
}

/*
 * Prints, for each size of the run vt[0..nvt) (sorted by n), the chosen
 * kernel, the fastest, the regret and the prediction's error, then the
 * summary into *v (regret median, p90, max). Sizes of ns[0..nsizes) absent
 * from the run are printed as not measured. Returns the sizes with a
 * regret, 0 if none (or out of memory: a message).
 */
static int report(const fit_set *s, const db_rule *rules, size_t nrules, const db_validation_time *vt, size_t nvt,
                  const int *ns, int nsizes, db_validation *v)
{
  printf("\n%8s %-26s %10s %-26s %10s %8s %12s %8s\n", "n", "chosen (rules)", "us", "fastest", "us", "regret",
         "predicted us", "error");
  const size_t cap = nvt + (size_t)nsizes + 1;
  double *reg = malloc(sizeof *reg * cap), *perr = malloc(sizeof *perr * cap);
  int m = 0, mp = 0, over = 0;
  if (!reg || !perr) {
    fprintf(stderr, "symvtune validate: %s\n", symv_strerror(SYMV_NO_MEMORY));
    free(reg), free(perr);
    return 0;
  }
  size_t i = 0;
  for (int q = 0; i < nvt || q < nsizes;) {
    /* the next n: of the run, or a size it lacks */
    int n = i < nvt ? vt[i].n : ns[q];
    if (q < nsizes && ns[q] < n) n = ns[q];
    while (q < nsizes && ns[q] <= n) q++;
    const db_rule *r = validate_rule_of(rules, nrules, n);
    char lc[64], lb[64] = "-";
    fit_label(r->kernel, &r->cand, lc, sizeof lc);
    double tc = NAN, tb = INFINITY;
    for (; i < nvt && vt[i].n == n; i++) {
      if (vt[i].chosen) tc = vt[i].median_us;
      if (vt[i].median_us < tb) {
        tb = vt[i].median_us;
        const int k = fit_curve_of(s, vt[i].kernel, vt[i].candidate_id);
        if (k >= 0) snprintf(lb, sizeof lb, "%s", s->curve[k].label);
        else fit_label(vt[i].kernel, NULL, lb, sizeof lb);
      }
    }
    if (!(tc > 0) || tb == INFINITY) {
      printf("%8d %-26s %10s %-26s (not measured)\n", n, lc, "-", lb);
      continue;
    }
    const double pc = validate_predicted(s, fit_curve_of(s, r->kernel, r->cand.id), n), g = tc / tb;
    reg[m++] = g;
    over += g > 1.05;
    if (pc > 0) perr[mp++] = fabs(pc / tc - 1);
    printf("%8d %-26s %10.2f %-26s %10.2f %8.3f %12.2f %7.1f%%%s\n", n, lc, tc, lb, tb, g, pc, 100 * (pc / tc - 1),
           g > 1.05 ? "  >5%" : "");
  }
  if (m) {
    qsort(reg, (size_t)m, sizeof *reg, symv_cmp_double);
    qsort(perr, (size_t)mp, sizeof *perr, symv_cmp_double);
    v->regret_median = quantile(reg, m, 0.5);
    v->regret_p90 = quantile(reg, m, 0.9);
    v->regret_max = reg[m - 1];
    printf("\nregret (chosen / fastest) over %d sizes: median %.3f, 90th percentile %.3f, max %.3f; %d of them "
           "lose more than 5%%\n", m, v->regret_median, v->regret_p90, v->regret_max, over);
    if (mp) printf("prediction error of the chosen kernel: median %.1f%%, max %.1f%% (|predicted / measured - 1|)\n",
                   100 * quantile(perr, mp, 0.5), 100 * perr[mp - 1]);
  }
  free(reg), free(perr);
  return m;
}

/*
 * lib_report: libsymv's own call (--lib) at each size ns[i]: what it ran
 * (lran + i * LIB_KERNEL_LEN), its time lt[i] (us) over the chosen
 * kernel's (the rules' kernel of s at ns[i], t[k * nsizes + i]) and over the
 * fastest kernel's there, and its host time to queue a call lhost[i] (us);
 * then the median and most of both ratios. Sizes without a time print '-'.
 */
static void lib_report(const fit_set *s, const db_rule *rules, size_t nrules, const double *t, int K, const int *ns,
                       int nsizes, const double *lt, const double *lhost, const char *lran, const char *libpath)
{
  double *dc = malloc(sizeof *dc * ((size_t)nsizes + 1)), *db = malloc(sizeof *db * ((size_t)nsizes + 1));
  double *hh = malloc(sizeof *hh * ((size_t)nsizes + 1));
  if (!dc || !db || !hh) {
    fprintf(stderr, "symvtune validate: %s\n", symv_strerror(SYMV_NO_MEMORY));
    free(dc), free(db), free(hh);
    return;
  }
  printf("\nlibsymv's own call (%s), timed in the same rounds as the kernels:\n", libpath);
  printf("%8s %-30s %10s %10s %10s %10s %10s\n", "n", "libsymv ran", "us", "chosen us", "x chosen", "x fastest",
         "host us");
  int m = 0, mh = 0, nc = 0, nb = 0; /* nc, nb: where each ratio is largest */
  double mc = 0, mb = 0;
  for (int i = 0; i < nsizes; i++) {
    const int ck = fit_curve_of_rule(s, validate_rule_of(rules, nrules, ns[i]));
    const double tc = ck >= 0 ? t[(size_t)ck * nsizes + i] : NAN;
    double tb = INFINITY;
    for (int k = 0; k < K; k++)
      if (t[(size_t)k * nsizes + i] > 0 && t[(size_t)k * nsizes + i] < tb) tb = t[(size_t)k * nsizes + i];
    const char *ran = lran[(size_t)i * LIB_KERNEL_LEN] ? &lran[(size_t)i * LIB_KERNEL_LEN] : "-";
    if (!(lt[i] > 0) || !(tc > 0) || tb == INFINITY) {
      printf("%8d %-30s %10s\n", ns[i], ran, "-");
      continue;
    }
    dc[m] = lt[i] / tc, db[m] = lt[i] / tb;
    if (dc[m] > mc) mc = dc[m], nc = ns[i];
    if (db[m] > mb) mb = db[m], nb = ns[i];
    if (lhost[i] > 0) hh[mh++] = lhost[i];
    printf("%8d %-30s %10.2f %10.2f %10.3f %10.3f %10.2f\n", ns[i], ran, lt[i], tc, dc[m], db[m], lhost[i]);
    m++;
  }
  if (m) {
    qsort(dc, (size_t)m, sizeof *dc, symv_cmp_double);
    qsort(db, (size_t)m, sizeof *db, symv_cmp_double);
    printf("\nlibsymv over the chosen kernel (dispatch) at %d sizes: median %.3f, max %.3f at n = %d\n", m,
           quantile(dc, m, 0.5), mc, nc);
    printf("libsymv over the fastest kernel (its regret): median %.3f, 90th percentile %.3f, max %.3f at n = %d\n",
           quantile(db, m, 0.5), quantile(db, m, 0.9), mb, nb);
    if (mh) {
      qsort(hh, (size_t)mh, sizeof *hh, symv_cmp_double);
      printf("libsymv's host time to queue a call: median %.2f us, max %.2f us\n", quantile(hh, mh, 0.5), hh[mh - 1]);
    }
  }
  free(dc), free(db), free(hh);
}

static int cmp_time(const void *a, const void *b)
{
  const db_validation_time *x = a, *y = b;
  return (x->n > y->n) - (x->n < y->n);
}

/*
 * rejudge: the times of a stored run vt[0..nvt) (sorted by n) as if the
 * rules[0..nrules) had been judged: the rows of kernels s has no curve of
 * (another atomics class) are dropped, each row's chosen flag set where
 * the rules name its kernel at its n, and predicted_us set to s's curve
 * there. In place, order kept; returns the rows kept.
 */
static size_t rejudge(const fit_set *s, const db_rule *rules, size_t nrules, db_validation_time *vt, size_t nvt)
{
  size_t m = 0;
  for (size_t i = 0; i < nvt; i++) {
    const int k = fit_curve_of(s, vt[i].kernel, vt[i].candidate_id);
    if (k < 0) continue;
    vt[m] = vt[i];
    const db_rule *r = validate_rule_of(rules, nrules, vt[m].n);
    vt[m].chosen = k == fit_curve_of(s, r->kernel, r->cand.id);
    vt[m].predicted_us = validate_predicted(s, k, vt[m].n);
    m++;
  }
  return m;
}

/* The family a curve's kernel belongs to, as family_errors groups them:
 * the candidate's, or "cuBLAS" for both cuBLAS modes. */
static const char *curve_family(const fit_curve *c)
{
  return strcmp(c->kernel, DB_KERNEL_CANDIDATE) ? "cuBLAS" : symv_family_name(c->cand.p.family);
}

/*
 * family_errors: for each kernel family of s (cuBLAS's two modes as one),
 * the error of the curves' predictions at the sizes of vt[0..nvt)
 * (|predicted / measured - 1|, the rows' predicted_us): median, 90th
 * percentile, max and how many, one line each.
 */
static void family_errors(const fit_set *s, const db_validation_time *vt, size_t nvt)
{
  double *e = malloc(sizeof *e * (nvt ? nvt : 1));
  if (!e) {
    fprintf(stderr, "symvtune validate: %s\n", symv_strerror(SYMV_NO_MEMORY));
    return;
  }
  printf("prediction error of every curve at the run's sizes, by family (|predicted / measured - 1|):\n");
  char done[32][16];
  int ndone = 0;
  for (size_t c = 0; c < s->ncurves; c++) {
    const char *fam = curve_family(&s->curve[c]);
    int seen = 0;
    for (int q = 0; q < ndone && !seen; q++) seen = !strcmp(done[q], fam);
    if (seen || ndone == 32) continue;
    snprintf(done[ndone++], sizeof done[0], "%s", fam);
    int m = 0, kernels = 0;
    for (size_t k = 0; k < s->ncurves; k++) {
      if (strcmp(curve_family(&s->curve[k]), fam)) continue;
      kernels++;
      for (size_t i = 0; i < nvt; i++)
        if (fit_curve_of(s, vt[i].kernel, vt[i].candidate_id) == (int)k && vt[i].predicted_us > 0)
          e[m++] = fabs(vt[i].predicted_us / vt[i].median_us - 1);
    }
    if (!m) continue;
    qsort(e, (size_t)m, sizeof *e, symv_cmp_double);
    char lab[64];
    printf("  %-12s median %5.1f%%, 90th percentile %5.1f%%, max %5.1f%% (%d kernel%s, %d times)\n",
           symv_escape(fam, lab, sizeof lab), 100 * quantile(e, m, 0.5), 100 * quantile(e, m, 0.9), 100 * e[m - 1],
           kernels, kernels > 1 ? "s" : "", m);
  }
  free(e);
}

/*
 * det_against_any: for a run of the any rules vt[0..nvt) (sorted by n) of
 * the any fit s, the latest deterministic fit of the same routine and
 * triangle judged at
 * the same sizes from the same times: at each n in VALIDATE_DET_LO..
 * VALIDATE_DET_HI where the run timed the kernel the deterministic rules
 * name, the any rules' chosen time over that kernel's (the speed of the
 * deterministic rules relative to the any rules, one process, held
 * timing); prints their geometric mean and the least, with its n. Nothing
 * where there is no deterministic fit or no such size.
 */
static void det_against_any(db *d, symv_routine ro, char uplo, const fit_set *s, const db_validation_time *vt,
                            size_t nvt)
{
  db_fit fit;
  db_rule *rules = NULL;
  size_t nrules = 0;
  if (db_latest_fit_class(d, ro, uplo, 0, 1, &fit, &rules, &nrules, NULL, NULL) || nrules == 0) {
    free(rules);
    return;
  }
  double sum = 0, least = INFINITY;
  int m = 0, least_n = 0;
  for (size_t i = 0; i < nvt;) {
    const int n = vt[i].n;
    const int dk = fit_curve_of_rule(s, validate_rule_of(rules, nrules, n)); /* -1: none of s's kernels */
    double chosen = NAN, det = NAN;
    for (; i < nvt && vt[i].n == n; i++) {
      if (vt[i].chosen) chosen = vt[i].median_us;
      if (dk >= 0 && fit_curve_of(s, vt[i].kernel, vt[i].candidate_id) == dk) det = vt[i].median_us;
    }
    if (n < VALIDATE_DET_LO || n > VALIDATE_DET_HI || !(chosen > 0) || !(det > 0)) continue;
    const double q = chosen / det;
    sum += log(q), m++;
    if (q < least) least = q, least_n = n;
  }
  if (m)
    printf("deterministic rules of fit %lld at the run's sizes in %d..%d, the any rules' chosen time over theirs: "
           "geometric mean %.3f over %d sizes, least %.3f at n = %d\n", fit.id, VALIDATE_DET_LO, VALIDATE_DET_HI,
           exp(sum / m), m, least, least_n);
  free(rules);
}

/* ---- The stage ------------------------------------------------------------- */

/* Reads the latest fit of o's class into r (L's for U when U has none:
 * *l_for_u set), its curves as the fit made them, and checks that every
 * rule names one of them. 0, or -1 after a message. */
static int load_fit(db *d, const validate_opts *o, validate_result *r, int *l_for_u)
{
  const char *rname = symv_routine_name(o->routine);
  const int det = o->deterministic;
  int rc = db_latest_fit_class(d, o->routine, o->uplo, 0, det, &r->fit, &r->rules, &r->nrules, &r->curves, &r->ncurves);
  *l_for_u = rc == SYMV_NOT_FOUND && o->uplo == 'U'; /* no fit of U: libsymv serves U with L's rules */
  if (*l_for_u) rc = db_latest_fit_class(d, o->routine, 'L', 0, det, &r->fit, &r->rules, &r->nrules, &r->curves, &r->ncurves);
  if (rc) {
    fprintf(stderr, "symvtune validate: %s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    return -1;
  }
  if (*l_for_u)
    printf("validate %s: no fit of uplo U: judging the rules of L (fit %lld), which libsymv serves U with, on the "
           "upper triangle\n", rname, r->fit.id);
  if ((rc = fit_load(d, o->routine, r->fit.uplo, 0, &r->all))) {
    fprintf(stderr, "symvtune validate: reading the dense samples: %s\n",
            rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    return -1;
  }
  size_t bad = 0; /* the curves as the fit made them (its alphas), for the predictions */
  if ((rc = fit_compute_as_stored(&r->all, r->curves, r->ncurves, r->fit.lo, r->fit.hi, &bad))) {
    fprintf(stderr, "symvtune validate: fitting %s: %s\n", r->all.curve[bad].label, symv_strerror(rc));
    return -1;
  }
  if (det && fit_deterministic_view(&r->all, &r->view)) return -1;
  r->s = det ? &r->view : &r->all;
  for (size_t j = 0; j < r->nrules; j++) /* the rules choose among the fit's kernels: a file says otherwise */
    if (fit_curve_of_rule(r->s, &r->rules[j]) < 0) {
      char label[64];
      fit_label(r->rules[j].kernel, &r->rules[j].cand, label, sizeof label);
      fprintf(stderr, "symvtune validate: fit %lld's rule n %d..%d names %s, which the fit has no curve of (a "
              "damaged or hand-edited database; run `symvtune fit` again)\n", r->fit.id, r->rules[j].n_start,
              r->rules[j].n_end, label);
      return -1;
    }
  snprintf(r->title, sizeof r->title, "%s: regret of the %s rules of fit %lld (uplo %c)%s",
           symv_routine_get(o->routine)->blas, det ? "deterministic" : "any", r->fit.id, r->fit.uplo,
           *l_for_u ? " timed on uplo U" : "");
  return 0;
}

/* VALIDATE_STORED and VALIDATE_REPLAY: a stored run, printed (and for
 * replay rejudged by r's rules). 0, or -1 after a message. */
static int judge_stored(db *d, const validate_opts *o, validate_result *r, int l_for_u)
{
  const char *rname = symv_routine_name(o->routine);
  const int replay = o->mode == VALIDATE_REPLAY;
  db_validation v;
  int rc = replay ? db_latest_validation_of(d, o->routine, r->fit.uplo, 0, o->deterministic, &v, &r->vt, &r->nvt)
                  : db_latest_validation(d, r->fit.id, &v, &r->vt, &r->nvt);
  if (rc) {
    fprintf(stderr, "symvtune validate: %s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    return -1;
  }
  if (replay) {
    printf("validate %s: the %s rules of fit %lld judged by the times of stored run %lld (of fit %lld)%s\n", rname,
           o->deterministic ? "deterministic" : "any", r->fit.id, v.id, v.fit_id,
           l_for_u ? "; a run on uplo U is never stored: this one is of L" : "");
    r->nvt = rejudge(r->s, r->rules, r->nrules, r->vt, r->nvt);
  } else {
    printf("validate %s: stored run %lld of fit %lld (%s rules)%s\n", rname, v.id, r->fit.id,
           o->deterministic ? "deterministic" : "any", l_for_u ? "; a run on uplo U is never stored: this one is of L" : "");
  }
  db_validation sum = v;
  if (report(r->s, r->rules, r->nrules, r->vt, r->nvt, NULL, 0, &sum) == 0 && replay) {
    fprintf(stderr, "symvtune validate: the run measured no kernel the rules choose\n");
    return -1;
  }
  if (!o->deterministic) det_against_any(d, o->routine, r->fit.uplo, r->s, r->vt, r->nvt);
  if (replay) family_errors(r->s, r->vt, r->nvt);
  char r2[160];
  snprintf(r2, sizeof r2, ", run %lld: median %.3f, 90th percentile %.3f, max %.3f", v.id, sum.regret_median,
           sum.regret_p90, sum.regret_max);
  strncat(r->title, r2, sizeof r->title - strlen(r->title) - 1);
  return 0;
}

/* The sizes of a measuring run into ns (ascending), *nsizes of them; *drawn
 * set when the seed chose them. 0, or -1 after a message (none). */
static int choose_sizes(const validate_opts *o, const validate_result *r, int *ns, int *nsizes, int *drawn)
{
  const char *rname = symv_routine_name(o->routine);
  *drawn = o->nsizes == 0;
  if (*drawn) {
    int sampled[4096], nsampled = 0;
    for (size_t i = 0; i < r->all.ncurves; i++)
      for (int q = 0; q < r->all.curve[i].nsamples && nsampled < 4096; q++) sampled[nsampled++] = r->all.curve[i].n[q];
    *nsizes = random_sizes(o->seed, o->want, r->fit.lo, r->fit.hi, sampled, nsampled, ns);
    printf("validate %s: %d sizes log-uniform in %d..%d, none a dense sample (seed %llu)\n", rname, *nsizes,
           r->fit.lo, r->fit.hi, o->seed);
  } else {
    *nsizes = o->nsizes;
    memcpy(ns, o->ns, sizeof *ns * (size_t)o->nsizes);
    for (int i = 1; i < *nsizes; i++) /* ascending, for the report */
      for (int j = i; j > 0 && ns[j - 1] > ns[j]; j--) {
        const int x = ns[j];
        ns[j] = ns[j - 1], ns[j - 1] = x;
      }
    printf("validate %s: %d sizes given\n", rname, *nsizes);
  }
  if (*nsizes == 0) {
    fprintf(stderr, "symvtune validate: no size to validate at\n");
    return -1;
  }
  return 0;
}

/* The times of one measuring run: K kernels (the curves of s) and, with
 * --lib, libsymv as kernel K, at nsizes sizes. */
typedef struct {
  int K, K1;      /* kernels, and with libsymv */
  double *t, *hi; /* least and most of the rounds' medians, [k * nsizes + i], us; NaN: none */
  double *lhost;  /* libsymv's host time a call at each size, us */
  char *lran;     /* what libsymv ran at each size, LIB_KERNEL_LEN bytes each */
} run_times;

/* Times every kernel of r->s (and libsymv) at ns[0..nsizes) in o->rounds
 * rounds through worker w: the kernels in a rotated order and the sizes
 * ascending, then descending; a time is the least of its rounds' medians,
 * so that a disturbance lasting the seconds one kernel's sizes take is not
 * judged as the kernel's. A kernel that fails keeps what it measured and
 * leaves the later rounds. 0, or -1 when the worker could not be restarted
 * or out of memory (a message). */
static int time_rounds(sweep_worker *w, const sweep_opts *so, const validate_opts *o, const validate_result *r,
                       const int *ns, int nsizes, run_times *rt)
{
  const char *rname = symv_routine_name(o->routine);
  const int K = rt->K, K1 = rt->K1, rounds = o->rounds;
  double *tr = malloc(sizeof *tr * (size_t)nsizes), *th = malloc(sizeof *th * (size_t)nsizes);
  int *order = malloc(sizeof *order * (size_t)nsizes), *dead = calloc((size_t)K1, sizeof *dead), lost = 0, rc;
  char *kr = malloc((size_t)nsizes * LIB_KERNEL_LEN);
  if (!tr || !th || !order || !dead || !kr) {
    fprintf(stderr, "symvtune validate: %s\n", symv_strerror(SYMV_NO_MEMORY));
    free(tr), free(th), free(order), free(dead), free(kr);
    return -1;
  }
  for (int round = 0; round < rounds && !lost; round++) {
    if (rounds > 1) fprintf(stderr, "validate %s: round %d of %d\n", rname, round + 1, rounds);
    for (int i = 0; i < nsizes; i++) order[i] = round % 2 ? ns[nsizes - 1 - i] : ns[i];
    for (int q = 0; q < K1 && !lost; q++) {
      const int k = (q + round * K1 / rounds) % K1;
      if (dead[k]) continue;
      const fit_curve *fc = k < K ? &r->s->curve[k] : NULL;
      char what[96], err[512];
      if (!fc) {
        rc = sweep_worker_lib_times(w, so, o->libpath, o->deterministic, order, nsizes, tr, th, kr, LIB_KERNEL_LEN,
                                    err, sizeof err);
        for (int i = 0; i < nsizes; i++) { /* the least host time; what it ran, as last seen */
          const int at = round % 2 ? nsizes - 1 - i : i;
          if (th[i] > 0 && !(th[i] >= rt->lhost[at])) rt->lhost[at] = th[i];
          if (kr[(size_t)i * LIB_KERNEL_LEN])
            memcpy(&rt->lran[(size_t)at * LIB_KERNEL_LEN], &kr[(size_t)i * LIB_KERNEL_LEN], LIB_KERNEL_LEN);
        }
      } else if (!strcmp(fc->kernel, DB_KERNEL_CANDIDATE)) {
        if (symv_params_check(&fc->cand.p, NULL, 0)) {
          dead[k] = 1;
          continue;
        }
        char pt[64];
        symv_params_format(&fc->cand.p, pt, sizeof pt);
        snprintf(what, sizeof what, "cand %s", pt);
      } else {
        snprintf(what, sizeof what, "base %s", fc->kernel);
      }
      if (fc) rc = sweep_worker_times(w, so, what, order, nsizes, tr, NULL, err, sizeof err);
      for (int i = 0; i < nsizes; i++) { /* tr is in the round's order */
        const int at = round % 2 ? nsizes - 1 - i : i;
        double *lo = &rt->t[(size_t)k * nsizes + at], *up = &rt->hi[(size_t)k * nsizes + at];
        if (!(tr[i] > 0)) continue;
        if (!(*lo > 0) || tr[i] < *lo) *lo = tr[i];
        if (!(*up > 0) || tr[i] > *up) *up = tr[i];
      }
      if (rc) {
        char label[96];
        dead[k] = 1; /* what it measured stands; no more rounds of it */
        fprintf(stderr, "symvtune validate: %s: %s\n", fc ? symv_escape(fc->label, label, sizeof label) : "libsymv",
                rc == SYMV_INVALID_VALUE ? err : rc == SYMV_TIMEOUT ? "no answer within its time limit" : "the worker died");
        if (rc != SYMV_INVALID_VALUE) { /* a fresh worker for the others */
          sweep_worker_stop(w);
          if (sweep_worker_start(w, so)) {
            fprintf(stderr, "symvtune validate: cannot restart the worker\n");
            lost = 1;
          }
        }
      }
    }
  }
  free(tr), free(th), free(order), free(dead), free(kr);
  return lost ? -1 : 0;
}

/* Prints how much the rounds disagreed: the timing noise the least of them hides. */
static void print_round_spread(const validate_result *r, const run_times *rt, const int *ns, int nsizes, int rounds)
{
  int var = 0, cnt = 0, wk = -1, wi = -1;
  double worst = 1;
  for (int k = 0; k < rt->K; k++)
    for (int i = 0; i < nsizes; i++) {
      const double lo = rt->t[(size_t)k * nsizes + i], up = rt->hi[(size_t)k * nsizes + i];
      if (!(lo > 0 && up > 0)) continue;
      cnt++, var += up / lo > 1.05;
      if (up / lo > worst) worst = up / lo, wk = k, wi = i;
    }
  printf("timing: the least of %d rounds' medians; %d of %d times varied by more than 5%% between rounds", rounds, var,
         cnt);
  if (wk >= 0) printf(" (most: %s at n = %d, x%.2f)", r->s->curve[wk].label, ns[wi], worst);
  printf("\n");
}

/* Every time measured into r->vt, sorted by n, the chosen kernel marked;
 * then the report, the run stored (not a U run judged by L's rules) and
 * libsymv's own call. 0, or -1 after a message. */
static int judge_run(db *d, const validate_opts *o, validate_result *r, const run_times *rt, const int *ns,
                     int nsizes, int drawn, int l_for_u)
{
  const fit_set *s = r->s;
  r->nvt = 0;
  for (int i = 0; i < nsizes; i++) {
    const int n = ns[i], ck = fit_curve_of_rule(s, validate_rule_of(r->rules, r->nrules, n));
    for (int k = 0; k < rt->K; k++) {
      const double v = rt->t[(size_t)k * nsizes + i];
      if (!(v > 0)) continue;
      db_validation_time *e = &r->vt[r->nvt++];
      e->n = n;
      snprintf(e->kernel, sizeof e->kernel, "%s", s->curve[k].kernel);
      e->candidate_id = strcmp(s->curve[k].kernel, DB_KERNEL_CANDIDATE) ? 0 : s->curve[k].cand.id;
      e->median_us = v;
      e->predicted_us = validate_predicted(s, k, n);
      e->chosen = k == ck;
    }
  }
  qsort(r->vt, r->nvt, sizeof *r->vt, cmp_time); /* by n, each n's rows together, as report reads them */
  db_validation v = {.fit_id = r->fit.id, .seed = drawn ? o->seed : 0};
  if (report(s, r->rules, r->nrules, r->vt, r->nvt, ns, nsizes, &v) == 0) {
    fprintf(stderr, "symvtune validate: no size was measured\n");
    return -1;
  }
  if (!o->deterministic) det_against_any(d, o->routine, r->fit.uplo, s, r->vt, r->nvt);
  if (l_for_u) {
    printf("not stored: the run judged fit %lld (uplo L) on uplo U, and a stored run names only its fit\n", r->fit.id);
  } else {
    int rc = db_put_validation(d, &v, r->vt, r->nvt);
    if (rc) {
      fprintf(stderr, "symvtune validate: storing the run: %s\n", db_errmsg(d));
      return -1;
    }
    printf("stored as validation run %lld in %s\n", v.id, o->dbpath);
  }
  if (*o->libpath)
    lib_report(s, r->rules, r->nrules, rt->t, rt->K, ns, nsizes, &rt->t[(size_t)rt->K * nsizes], rt->lhost, rt->lran,
               o->libpath);
  char r2[200];
  if (l_for_u)
    snprintf(r2, sizeof r2, ": median %.3f, 90th percentile %.3f, max %.3f", v.regret_median, v.regret_p90,
             v.regret_max);
  else
    snprintf(r2, sizeof r2, ", run %lld: median %.3f, 90th percentile %.3f, max %.3f", v.id, v.regret_median,
             v.regret_p90, v.regret_max);
  strncat(r->title, r2, sizeof r->title - strlen(r->title) - 1);
  return 0;
}

/* VALIDATE_MEASURE: sizes, the worker on o->device (this GPU must be the
 * database's), the rounds, the judgement. An exit status. */
static int measure(db *d, const validate_opts *o, validate_result *r, int l_for_u)
{
  int ns[VALIDATE_MAX_SIZES], nsizes = 0, drawn = 0, status = VALIDATE_ERROR, rc;
  if (choose_sizes(o, r, ns, &nsizes, &drawn)) return VALIDATE_ERROR;
  run_times rt = {.K = (int)r->s->ncurves};
  rt.K1 = rt.K + (*o->libpath ? 1 : 0); /* with --lib the library is kernel K of K + 1 */
  rt.t = malloc(sizeof *rt.t * (size_t)rt.K1 * (size_t)nsizes);
  rt.hi = malloc(sizeof *rt.hi * (size_t)rt.K1 * (size_t)nsizes);
  rt.lhost = malloc(sizeof *rt.lhost * (size_t)nsizes), rt.lran = calloc((size_t)nsizes, LIB_KERNEL_LEN);
  r->vt = calloc((size_t)rt.K * (size_t)nsizes, sizeof *r->vt);
  sweep_worker w = {0};
  if (!rt.t || !rt.hi || !rt.lhost || !rt.lran || !r->vt) {
    fprintf(stderr, "symvtune validate: %s\n", symv_strerror(SYMV_NO_MEMORY));
    goto out;
  }
  for (size_t q = 0; q < (size_t)rt.K1 * (size_t)nsizes; q++) rt.t[q] = NAN, rt.hi[q] = NAN;
  for (int i = 0; i < nsizes; i++) rt.lhost[i] = NAN;
  sweep_opts so = {.routine = o->routine, .device = o->device, .uplo = o->uplo, .hot = 0, .batches = 5,
                   .tol = SYMV_RESIDUAL_TOL, .timeout_s = o->timeout_s, .prune = 0, .jobs = 0, .quiet = 1};
  if ((rc = sweep_worker_start(&w, &so))) {
    fprintf(stderr, "symvtune validate: %s\n", rc == SYMV_NO_DEVICE ? "no CUDA GPU here" : symv_strerror(rc));
    status = rc == SYMV_NO_DEVICE ? VALIDATE_NO_GPU : VALIDATE_ERROR;
    goto out;
  }
  for (int i = 0; i < nsizes; i++) {
    char why[200];
    if (symv_problem_bytes(o->routine, ns[i], ns[i], w.dev.global_mem, NULL, why, sizeof why)) {
      fprintf(stderr, "symvtune validate: %s\n", why);
      goto out;
    }
  }
  db_device fp;
  sweep_device_fingerprint(&w, &fp);
  if ((rc = db_check_device(d, &fp, o->allow_foreign))) {
    fprintf(stderr, "symvtune validate: %s\n", db_errmsg(d));
    goto out;
  }
  printf("%s (fit %lld, %s rules: %zu; %d kernels%s timed at each size, uplo %c; %d round%s)\n", fp.name, r->fit.id,
         o->deterministic ? "deterministic" : "any", r->nrules, rt.K, *o->libpath ? " and libsymv" : "", o->uplo,
         o->rounds, o->rounds > 1 ? "s" : "");
  fflush(stdout); /* the header before the rounds' progress on stderr */
  if (time_rounds(&w, &so, o, r, ns, nsizes, &rt)) goto out;
  if (o->rounds > 1) print_round_spread(r, &rt, ns, nsizes, o->rounds);
  if (judge_run(d, o, r, &rt, ns, nsizes, drawn, l_for_u)) goto out;
  status = VALIDATE_OK;
out:
  sweep_worker_stop(&w);
  free(rt.t), free(rt.hi), free(rt.lhost), free(rt.lran);
  return status;
}

int validate_run(db *d, const validate_opts *o, validate_result *r)
{
  memset(r, 0, sizeof *r);
  int l_for_u = 0;
  if (load_fit(d, o, r, &l_for_u)) return VALIDATE_ERROR;
  if (o->mode != VALIDATE_MEASURE) return judge_stored(d, o, r, l_for_u) ? VALIDATE_ERROR : VALIDATE_OK;
  return measure(d, o, r, l_for_u);
}

void validate_result_free(validate_result *r)
{
  free(r->vt), free(r->view.curve);
  fit_set_free(&r->all);
  free(r->rules), free(r->curves);
  memset(r, 0, sizeof *r);
}
