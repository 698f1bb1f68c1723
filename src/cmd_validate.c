/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_validate.c - `symvtune validate`: what the rules cost at sizes no
 * stage sampled. At random sizes (log-uniform over the fit's range, seeded,
 * none of them a dense sample) the kernel the rules choose, every kernel
 * the fit chose from (its dense champions and the cuBLAS modes of its
 * class) are timed in one run by the sweep's worker, in --rounds rounds of
 * different order, each time the least of its rounds' medians; regret at a
 * size is the chosen kernel's time over the least time measured there. Prints each
 * size, the regret's median, 90th percentile and maximum, and the error of
 * the fit's prediction for the chosen kernel; stores the run in the
 * database (schema 6: validation_run, validation_time). --uplo U times the
 * kernels on the upper triangle: against U's own fit where there is one,
 * else against L's rules, which libsymv then serves U with (such a run is
 * printed and drawn, not stored: the tables name the fit, not the
 * triangle). --figure draws the regret over n (gnuplot.h); --stored draws and
 * prints the latest stored run instead of measuring (no GPU); --replay
 * judges the latest fit's rules by the times of the latest stored run of
 * the routine, whichever fit it judged (no GPU: a refit's rules at the same
 * sizes). --lib DIR times libsymv's own call too (the library `symvtune
 * build` made in DIR), in the same rounds, so that what dispatch costs
 * shows: its time over the chosen kernel's and over the fastest.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../db/db.h"
#include "cli.h"
#include "fit.h"
#include "gnuplot.h"
#include "params.h"
#include "reference.h"
#include "routine.h"
#include "sweep.h"
#include "symv_error.h"
#include "util.h"

#define MAX_SIZES 256
#define DEFAULT_SIZES 50
#define LIB_KERNEL_LEN 64 /* what libsymv ran at a size (symvLastKernel), with its NUL */

static void help(void)
{
  puts("Usage: symvtune validate --db FILE [OPTIONS]\n"
       "Judges the latest fit's rules (cold; uplo L unless --uplo U) at sizes no stage\n"
       "sampled: at each, times in one run the kernel the rules choose and every kernel the fit\n"
       "chose from (its densely sampled champions and cuBLAS), on the GPU present. Prints per\n"
       "size the chosen kernel, the fastest one and the regret (chosen time / fastest time),\n"
       "and the fit's predicted time for the chosen kernel against the measured one; then the\n"
       "regret's median, 90th percentile and maximum and the sizes losing more than 5%.\n"
       "Stores the run in FILE (tables validation_run, validation_time).\n\n"
       "Options:\n"
       "  --db FILE        the database (required; a fit stored by `symvtune fit`)\n"
       "  --lib DIR        time libsymv's own call too (DIR/lib/libsymv.so, as `symvtune build\n"
       "                   --out DIR` made it; its handle in the judged rule set's atomics mode)\n"
       "                   in the same rounds: prints what it ran, its time over the chosen\n"
       "                   kernel's (dispatch) and over the fastest's; printed, not stored\n"
       CLI_ROUTINE_HELP "                   (several: one run for each; --figure: one figure each, the\n"
       "                   routine's name before FIGURE's extension: regret-dsymv.png, ...)\n"
       "  --sizes N|LIST   N random sizes, log-uniform over the fit's range, none a dense\n"
       "                   sample (default 50), or a comma-separated list of n\n"
       "  --seed S         seed of the random sizes (default: from the clock; printed)\n"
       "  --rounds R       times every kernel at every size R times (1..10, default 3), in a\n"
       "                   different order each round, and keeps the least of the R medians, so\n"
       "                   that a disturbance of a few seconds is not judged as a kernel's time;\n"
       "                   prints how many times varied by more than 5% between rounds\n"
       "  --atomics C      the rule set judged: any (default: every kernel and both cuBLAS\n"
       "                   modes) or deterministic (" SYMV_DETERMINISTIC_FAMILIES ", cuBLAS without atomics)\n"
       "  --uplo L|U       the stored triangle timed (default L); U is judged against the fit of\n"
       "                   U's own samples where there is one, else against the rules of L, which\n"
       "                   libsymv serves U with (that run is printed and drawn, not stored)\n"
       "  --figure FIGURE  draw the regret over n (log axis) of the run, with the rules'\n"
       "                   boundaries and the regret the fit predicted, into FIGURE: .png, .pdf\n"
       "                   or .svg after its extension (gnuplot)\n"
       "  --png FIGURE, --out FIGURE\n"
       "                   the same as --figure (its former names, kept for scripts)\n"
       "  --stored         measure nothing (no GPU): print and draw the latest stored run of\n"
       "                   the latest fit\n"
       "  --replay         measure nothing (no GPU): judge the latest fit's rules by the times\n"
       "                   of the latest run stored for the routine, whichever fit it judged\n"
       "                   (after a new `fit` of the same samples: the new rules at the old\n"
       "                   sizes); prints each family's prediction error there; stores nothing\n"
       "  --device N       CUDA device (default 0)\n"
       "  --timeout S      seconds a kernel may run without answering (default 20)\n"
       "  --allow-foreign  accept a database made on a different GPU\n"
       "  --help           this text\n"
       "Environment: SYMVTUNE_GNUPLOT names the gnuplot program of --figure.\n"
       "Exit status: 0, 2 usage, 3 no GPU, 4 database or system error (gnuplot missing or failing\n"
       "included).");
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

/* The kernel of s named by (kernel, candidate id), -1 if none. */
static int curve_of(const fit_set *s, const char *kernel, long long cand_id)
{
  for (size_t c = 0; c < s->ncurves; c++)
    if (!strcmp(s->curve[c].kernel, kernel) && (strcmp(kernel, DB_KERNEL_CANDIDATE) || s->curve[c].cand.id == cand_id))
      return (int)c;
  return -1;
}

/* The rule of n (the first or last beyond the range). */
static const db_rule *rule_of(const db_rule *rules, size_t nrules, int n)
{
  const db_rule *r = &rules[nrules - 1];
  for (size_t j = 0; j < nrules; j++)
    if (n >= rules[j].n_start && n <= rules[j].n_end) r = &rules[j];
  if (n < rules[0].n_start) r = &rules[0];
  return r;
}

/* The predicted time of curve k of s at n, NaN where there is none. */
static double predicted(const fit_set *s, int k, int n)
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
    const db_rule *r = rule_of(rules, nrules, n);
    char lc[64], lb[64] = "-";
    fit_label(r->kernel, &r->cand, lc, sizeof lc);
    double tc = NAN, tb = INFINITY;
    for (; i < nvt && vt[i].n == n; i++) {
      if (vt[i].chosen) tc = vt[i].median_us;
      if (vt[i].median_us < tb) {
        tb = vt[i].median_us;
        const int k = curve_of(s, vt[i].kernel, vt[i].candidate_id);
        if (k >= 0) snprintf(lb, sizeof lb, "%s", s->curve[k].label);
        else fit_label(vt[i].kernel, NULL, lb, sizeof lb);
      }
    }
    if (!(tc > 0) || tb == INFINITY) {
      printf("%8d %-26s %10s %-26s (not measured)\n", n, lc, "-", lb);
      continue;
    }
    const double pc = predicted(s, curve_of(s, r->kernel, r->cand.id), n), g = tc / tb;
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
    const int ck = curve_of_rule(s, rule_of(rules, nrules, ns[i]));
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
    const int k = curve_of(s, vt[i].kernel, vt[i].candidate_id);
    if (k < 0) continue;
    vt[m] = vt[i];
    const db_rule *r = rule_of(rules, nrules, vt[m].n);
    vt[m].chosen = k == curve_of(s, r->kernel, r->cand.id);
    vt[m].predicted_us = predicted(s, k, vt[m].n);
    m++;
  }
  return m;
}

/* The family a curve's kernel belongs to, as family_errors groups them:
 * the candidate's, or "cuBLAS" for both cuBLAS modes. */
static const char *curve_family(const fit_curve *c)
{
  return strcmp(c->kernel, DB_KERNEL_CANDIDATE) ? "cuBLAS" : c->cand.family;
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
        if (curve_of(s, vt[i].kernel, vt[i].candidate_id) == (int)k && vt[i].predicted_us > 0)
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
 * Draws the regret over n of the run vt[0..nvt) into `out` (format fmt):
 * the measured regret at each size, coloured by the chosen kernel's family;
 * the regret the fit's curves s predict for the rules, between the sizes;
 * the targets 1.005 and 1.05; the rules' boundaries. title: what was
 * judged. 0, or -1 after a message.
 */
static int draw_regret(const char *out, const gp_format *fmt, const fit_set *s, const db_fit *fit,
                       const db_rule *rules, size_t nrules, const db_validation_time *vt, size_t nvt,
                       const char *title)
{
  static const char *const files[] = {"regret.dat", "predicted.dat", "plot.gp"};
  char dir[4096], p[4200];
  if (gp_workdir("validate", dir, sizeof dir)) return -1;
  snprintf(p, sizeof p, "%s/regret.dat", dir);
  FILE *fr = fopen(p, "w");
  snprintf(p, sizeof p, "%s/predicted.dat", dir);
  FILE *fp = fopen(p, "w");
  snprintf(p, sizeof p, "%s/plot.gp", dir);
  FILE *gp = fopen(p, "w");
  int ok = fr && fp && gp, npoints = 0, npred = 0;
  /* measured: n, regret, the chosen kernel's colour as 0xRRGGBB */
  for (size_t i = 0; ok && i < nvt;) {
    size_t j = i;
    double tc = NAN, tb = INFINITY;
    const char *color = "#000000";
    for (; j < nvt && vt[j].n == vt[i].n; j++) {
      if (vt[j].median_us < tb) tb = vt[j].median_us;
      if (vt[j].chosen) {
        tc = vt[j].median_us;
        const int k = curve_of(s, vt[j].kernel, vt[j].candidate_id);
        color = gp_kernel_color(vt[j].kernel, k >= 0 ? s->curve[k].cand.family : "");
      }
    }
    if (tc > 0 && tb < INFINITY) {
      fprintf(fr, "%d %.8g %ld\n", vt[i].n, tc / tb, strtol(color + 1, NULL, 16));
      npoints++;
    }
    i = j;
  }
  /* predicted: t_chosen / t_best of the curves, log-spaced n */
  for (int q = 0, prev = 0; ok && q <= 600 && fit->hi > fit->lo; q++) {
    const int n = (int)lround(fit->lo * pow((double)fit->hi / fit->lo, q / 600.0));
    if (n <= prev) continue;
    prev = n;
    const db_rule *r = rule_of(rules, nrules, n);
    double tc = predicted(s, curve_of(s, r->kernel, r->cand.id), n), tb = INFINITY;
    for (size_t k = 0; k < s->ncurves; k++) {
      const double t = predicted(s, (int)k, n);
      if (t > 0 && t < tb) tb = t;
    }
    if (tc > 0 && tb < INFINITY) fprintf(fp, "%d %.8g\n", n, tc / tb), npred++;
  }
  if (ok) {
    char safe[400];
    gp_text(safe, sizeof safe, title);
    fprintf(gp, "# symvtune validate: generated script, run in its own directory: gnuplot plot.gp\n");
    gp_terminal(gp, fmt, 1300, 700);
    fprintf(gp, "set title \"%s\"\n"
                "set logscale x\n"
                "set xrange [%d:%d]\n"
                "set yrange [0.99:*]\n"
                "set grid xtics ytics mxtics lc rgb \"#dddddd\"\n"
                "set key inside left top opaque box\n"
                "set rmargin 8\n"
                "set xlabel \"n (matrix order)\"\n"
                "set ylabel \"regret: chosen kernel's time / fastest kernel's time\"\n"
                "set arrow from graph 0, first 1.005 to graph 1, first 1.005 nohead dt 2 lc rgb \"#2ca02c\" back\n"
                "set arrow from graph 0, first 1.05 to graph 1, first 1.05 nohead dt 2 lc rgb \"#d62728\" back\n"
                "set label \"1.005\" at graph 1.005, first 1.005 left font \",8\" tc rgb \"#2ca02c\"\n"
                "set label \"1.05\" at graph 1.005, first 1.05 left font \",8\" tc rgb \"#d62728\"\n",
            safe, fit->lo, fit->hi);
    gp_rule_marks(gp, rules, nrules);
    fprintf(gp, "plot");
    const char *sep = "";
    if (npred) {
      fprintf(gp, " \"predicted.dat\" using 1:2 with lines lw 1.5 lc rgb \"#888888\" title \"predicted by the fit\"");
      sep = ",";
    }
    if (npoints)
      fprintf(gp, "%s \\\n  \"regret.dat\" using 1:2:3 with points pt 7 ps 1.2 lc rgb variable "
                  "title \"measured (colour: the chosen kernel's family)\"", sep);
    if (!npred && !npoints) fprintf(gp, " 1 title \"no size measured\"");
    fprintf(gp, "\n");
  }
  FILE *all[3] = {fr, fp, gp};
  for (int i = 0; i < 3; i++)
    if (all[i] && (ferror(all[i]) | fclose(all[i]))) ok = 0;
  int rc = -1;
  if (!ok) fprintf(stderr, "symvtune validate: cannot write the figure's data in %s\n", dir);
  else rc = gp_draw("validate", gp_program(), dir, fmt, out);
  if (rc == 0) printf("wrote %s: regret at %d sizes\n", out, npoints);
  gp_cleanup(dir, files, sizeof files / sizeof *files);
  return rc;
}

static const struct option opts[] = {
  {"db", required_argument, 0, 'D'},      {"routine", required_argument, 0, 'r'}, {"sizes", required_argument, 0, 's'},
  {"seed", required_argument, 0, 'S'},    {"atomics", required_argument, 0, 'A'}, {"device", required_argument, 0, 'd'},
  {"timeout", required_argument, 0, 't'}, {"allow-foreign", no_argument, 0, 'F'}, {"uplo", required_argument, 0, 'u'},
  {"figure", required_argument, 0, 'p'},  {"png", required_argument, 0, 'p'},     {"out", required_argument, 0, 'p'},
  {"stored", no_argument, 0, 'T'},        {"replay", no_argument, 0, 'P'},        {"rounds", required_argument, 0, 'R'},
  {"lib", required_argument, 0, 'L'},     {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};

static int run(int argc, char **argv)
{
  int each; /* several routines: a figure each */
  static const char *const outputs[] = {"figure", "png", "out", NULL};
  static const cli_each how = {.options = opts, .outputs = outputs};
  if (cli_each_routine_of("validate", argc, argv, run, &how, &each)) return each;
  symv_routine routine = SYMV_DSYMV;
  const char *path = NULL, *figure = NULL, *libdir = NULL;
  int ns[MAX_SIZES], nsizes = 0, want = DEFAULT_SIZES, det = 0, device = 0, allow_foreign = 0, c, seeded = 0;
  int stored = 0, replay = 0, sizes_given = 0, rounds = 3, rounds_given = 0;
  char uplo = 'L';
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
      sizes_given = 1;
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
    case 'u':
      if (strcmp(optarg, "L") && strcmp(optarg, "U"))
        return cli_usage_error("validate", "invalid --uplo '%s' (L or U)", optarg);
      uplo = optarg[0];
      break;
    case 'p': figure = optarg; break;
    case 'R':
      if (cli_parse_int("validate", "--rounds", optarg, 1, 10, &rounds)) return SYMV_EXIT_USAGE;
      rounds_given = 1;
      break;
    case 'L':
      if (!*optarg) return cli_usage_error("validate", "--lib needs a folder");
      libdir = optarg;
      break;
    case 'T': stored = 1; break;
    case 'P': replay = 1; break;
    case 'F': allow_foreign = 1; break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("validate", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("validate", "unexpected argument '%s'", argv[optind]);
  if (!path) return cli_usage_error("validate", "--db FILE is required");
  const gp_format *fmt = NULL;
  if (figure) {
    if (!*figure) return cli_usage_error("validate", "--figure needs a file name");
    if (cli_refuse_overwrite("validate", "--figure", figure, "the database", path)) return SYMV_EXIT_USAGE;
    if (!(fmt = gp_format_of(figure))) {
      const char *dot = strrchr(figure, '.');
      char ext[64];
      symv_escape(dot && !strchr(dot, '/') ? dot : "(none)", ext, sizeof ext);
      return cli_usage_error("validate", "--figure %s: unknown extension %s: the format follows it, " GP_EXTENSIONS,
                             figure, ext);
    }
  }
  if (stored && replay) return cli_usage_error("validate", "--stored or --replay, not both");
  if ((stored || replay) && (sizes_given || seeded || rounds_given))
    return cli_usage_error("validate", "--%s measures nothing: --sizes, --seed and --rounds do not go with it",
                           stored ? "stored" : "replay");
  char libpath[PATH_MAX + 32] = "";
  if (libdir) {
    char given[PATH_MAX + 32];
    if (stored || replay)
      return cli_usage_error("validate", "--lib times the library: it does not go with --%s", stored ? "stored" : "replay");
    snprintf(given, sizeof given, "%s/lib/libsymv.so", libdir);
    if (!realpath(given, libpath) || access(libpath, R_OK))
      return cli_usage_error("validate", "--lib %s: no library at %s (`symvtune build --db FILE --out %s` makes one)",
                             libdir, given, libdir);
    if (strpbrk(libpath, "\n\r") || strlen(libpath) > 4000)
      return cli_usage_error("validate", "--lib %s: the library's path is longer than 4000 bytes or breaks a line",
                             libdir);
  }
  if (!seeded) seed = (unsigned long long)time(NULL) * 6364136223846793005ull + 1442695040888963407ull;

  db *d = NULL;
  int rc = db_open(&d, path, stored || replay ? DB_READONLY : 0), status = SYMV_EXIT_ERROR;
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
  double *t = NULL, *lhost = NULL;
  char *lran = NULL;
  db_validation_time *vt = NULL;
  sweep_worker w = {0};
  const char *rname = symv_routine_name(routine);
  rc = db_latest_fit_class(d, rname, uplo, 0, det, &fit, &rules, &nrules, &curves, &ncurves);
  const int l_for_u = rc == SYMV_NOT_FOUND && uplo == 'U'; /* no fit of U: libsymv serves U with L's rules */
  if (l_for_u) rc = db_latest_fit_class(d, rname, 'L', 0, det, &fit, &rules, &nrules, &curves, &ncurves);
  if (rc) {
    fprintf(stderr, "symvtune validate: %s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    goto out;
  }
  if (l_for_u)
    printf("validate %s: no fit of uplo U: judging the rules of L (fit %lld), which libsymv serves U with, on the "
           "upper triangle\n", rname, fit.id);
  if ((rc = fit_load(d, rname, fit.uplo, 0, &all))) {
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
  char title[300];
  snprintf(title, sizeof title, "%s: regret of the %s rules of fit %lld (uplo %c)%s", symv_routine_get(routine)->blas,
           det ? "deterministic" : "any", fit.id, fit.uplo, l_for_u ? " timed on uplo U" : "");

  if (stored || replay) { /* a stored run: no GPU */
    db_validation v;
    size_t nvt = 0;
    rc = replay ? db_latest_validation_of(d, rname, fit.uplo, 0, &v, &vt, &nvt)
                : db_latest_validation(d, fit.id, &v, &vt, &nvt);
    if (rc) {
      fprintf(stderr, "symvtune validate: %s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
      goto out;
    }
    if (replay) {
      printf("validate %s: the %s rules of fit %lld judged by the times of stored run %lld (of fit %lld)%s\n", rname,
             det ? "deterministic" : "any", fit.id, v.id, v.fit_id,
             l_for_u ? "; a run on uplo U is never stored: this one is of L" : "");
      nvt = rejudge(s, rules, nrules, vt, nvt);
    } else {
      printf("validate %s: stored run %lld of fit %lld (%s rules)%s\n", rname, v.id, fit.id,
             det ? "deterministic" : "any", l_for_u ? "; a run on uplo U is never stored: this one is of L" : "");
    }
    db_validation sum = v;
    if (report(s, rules, nrules, vt, nvt, NULL, 0, &sum) == 0 && replay) {
      fprintf(stderr, "symvtune validate: the run measured no kernel the rules choose\n");
      goto out;
    }
    if (replay) family_errors(s, vt, nvt);
    char r2[160];
    snprintf(r2, sizeof r2, ", run %lld: median %.3f, 90th percentile %.3f, max %.3f", v.id, sum.regret_median,
             sum.regret_p90, sum.regret_max);
    strncat(title, r2, sizeof title - strlen(title) - 1);
    if (figure && draw_regret(figure, fmt, s, &fit, rules, nrules, vt, nvt, title)) goto out;
    status = SYMV_EXIT_OK;
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
    for (int i = 1; i < nsizes; i++) /* ascending, for the report */
      for (int j = i; j > 0 && ns[j - 1] > ns[j]; j--) {
        const int x = ns[j];
        ns[j] = ns[j - 1], ns[j - 1] = x;
      }
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

  sweep_opts o = {.routine = routine, .device = device, .uplo = uplo, .hot = 0, .batches = 5,
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
  printf("%s (fit %lld, %s rules: %zu; %d kernels%s timed at each size, uplo %c; %d round%s)\n", fp.name, fit.id,
         det ? "deterministic" : "any", nrules, K, *libpath ? " and libsymv" : "", uplo, rounds, rounds > 1 ? "s" : "");
  /* rounds: every kernel at every size once a round, the kernels in a
   * rotated order and the sizes ascending, then descending; a time is the
   * least of its rounds' medians, so that a disturbance lasting the seconds
   * one kernel's sizes take (seen on an H100: a kernel reading 1.5-4x its
   * usual time over a run of sizes, the others not) is not judged as the
   * kernel's */
  /* with --lib the library is kernel K of K + 1: t and hi hold its times
   * after the kernels', lhost its host time a call, lran what it ran */
  const int K1 = K + (*libpath ? 1 : 0);
  double *tr = malloc(sizeof *tr * (size_t)nsizes), *hi = malloc(sizeof *hi * (size_t)K1 * (size_t)nsizes);
  double *th = malloc(sizeof *th * (size_t)nsizes);
  int *order = malloc(sizeof *order * (size_t)nsizes), *dead = calloc((size_t)K1, sizeof *dead);
  char *kr = malloc((size_t)nsizes * LIB_KERNEL_LEN);
  double *t1 = realloc(t, sizeof *t * (size_t)K1 * (size_t)nsizes);
  if (t1) t = t1;
  lhost = malloc(sizeof *lhost * (size_t)nsizes), lran = calloc((size_t)nsizes, LIB_KERNEL_LEN);
  if (!tr || !hi || !th || !order || !dead || !kr || !t1 || !lhost || !lran) {
    fprintf(stderr, "symvtune validate: %s\n", symv_strerror(SYMV_NO_MEMORY));
    free(tr), free(hi), free(th), free(order), free(dead), free(kr);
    goto out;
  }
  for (size_t q = 0; q < (size_t)K1 * (size_t)nsizes; q++) t[q] = NAN, hi[q] = NAN;
  for (int i = 0; i < nsizes; i++) lhost[i] = NAN;
  int lost = 0;
  fflush(stdout); /* the header before the rounds' progress on stderr */
  for (int round = 0; round < rounds && !lost; round++) {
    if (rounds > 1) fprintf(stderr, "validate %s: round %d of %d\n", rname, round + 1, rounds);
    for (int i = 0; i < nsizes; i++) order[i] = round % 2 ? ns[nsizes - 1 - i] : ns[i];
    for (int q = 0; q < K1 && !lost; q++) {
      const int k = (q + round * K1 / rounds) % K1;
      if (dead[k]) continue;
      const fit_curve *fc = k < K ? &s->curve[k] : NULL;
      char what[96], err[512];
      if (!fc) {
        rc = sweep_worker_lib_times(&w, &o, libpath, det, order, nsizes, tr, th, kr, LIB_KERNEL_LEN, err, sizeof err);
        for (int i = 0; i < nsizes; i++) { /* the least host time; what it ran, as last seen */
          const int at = round % 2 ? nsizes - 1 - i : i;
          if (th[i] > 0 && !(th[i] >= lhost[at])) lhost[at] = th[i];
          if (kr[(size_t)i * LIB_KERNEL_LEN])
            memcpy(&lran[(size_t)at * LIB_KERNEL_LEN], &kr[(size_t)i * LIB_KERNEL_LEN], LIB_KERNEL_LEN);
        }
      } else if (!strcmp(fc->kernel, DB_KERNEL_CANDIDATE)) {
        symv_params p;
        if (sweep_params_of(&fc->cand, &p)) {
          dead[k] = 1;
          continue;
        }
        char pt[64];
        symv_params_format(&p, pt, sizeof pt);
        snprintf(what, sizeof what, "cand %s", pt);
      } else {
        snprintf(what, sizeof what, "base %s", fc->kernel);
      }
      if (fc) rc = sweep_worker_times(&w, &o, what, order, nsizes, tr, NULL, err, sizeof err);
      for (int i = 0; i < nsizes; i++) { /* tr is in the round's order */
        const int at = round % 2 ? nsizes - 1 - i : i;
        double *lo = &t[(size_t)k * nsizes + at], *up = &hi[(size_t)k * nsizes + at];
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
          sweep_worker_stop(&w);
          if (sweep_worker_start(&w, &o)) {
            fprintf(stderr, "symvtune validate: cannot restart the worker\n");
            lost = 1;
          }
        }
      }
    }
  }
  free(tr), free(th), free(order), free(dead), free(kr);
  if (lost) {
    free(hi);
    goto out;
  }
  if (rounds > 1) { /* how much the rounds disagreed: the timing noise the least of them hides */
    int var = 0, cnt = 0, wk = -1, wi = -1;
    double worst = 1;
    for (int k = 0; k < K; k++)
      for (int i = 0; i < nsizes; i++) {
        const double lo = t[(size_t)k * nsizes + i], up = hi[(size_t)k * nsizes + i];
        if (!(lo > 0 && up > 0)) continue;
        cnt++, var += up / lo > 1.05;
        if (up / lo > worst) worst = up / lo, wk = k, wi = i;
      }
    printf("timing: the least of %d rounds' medians; %d of %d times varied by more than 5%% between rounds", rounds,
           var, cnt);
    if (wk >= 0) printf(" (most: %s at n = %d, x%.2f)", s->curve[wk].label, ns[wi], worst);
    printf("\n");
  }
  free(hi);

  /* every time measured, the chosen kernel marked, then the regret */
  size_t nvt = 0;
  for (int i = 0; i < nsizes; i++) {
    const int n = ns[i], ck = curve_of_rule(s, rule_of(rules, nrules, n));
    for (int k = 0; k < K; k++) {
      const double v = t[(size_t)k * nsizes + i];
      if (!(v > 0)) continue;
      db_validation_time *e = &vt[nvt++];
      e->n = n;
      snprintf(e->kernel, sizeof e->kernel, "%s", s->curve[k].kernel);
      e->candidate_id = strcmp(s->curve[k].kernel, DB_KERNEL_CANDIDATE) ? 0 : s->curve[k].cand.id;
      e->median_us = v;
      e->predicted_us = predicted(s, k, n);
      e->chosen = k == ck;
    }
  }
  qsort(vt, nvt, sizeof *vt, cmp_time); /* by n, each n's rows together, as report reads them */
  db_validation v = {.fit_id = fit.id, .seed = drawn ? seed : 0};
  if (report(s, rules, nrules, vt, nvt, ns, nsizes, &v) == 0) {
    fprintf(stderr, "symvtune validate: no size was measured\n");
    goto out;
  }
  if (l_for_u) {
    printf("not stored: the run judged fit %lld (uplo L) on uplo U, and a stored run names only its fit\n", fit.id);
  } else {
    if ((rc = db_put_validation(d, &v, vt, nvt))) {
      fprintf(stderr, "symvtune validate: storing the run: %s\n", db_errmsg(d));
      goto out;
    }
    printf("stored as validation run %lld in %s\n", v.id, path);
  }
  if (*libpath) lib_report(s, rules, nrules, t, K, ns, nsizes, &t[(size_t)K * nsizes], lhost, lran, libpath);
  char r2[200];
  if (l_for_u)
    snprintf(r2, sizeof r2, ": median %.3f, 90th percentile %.3f, max %.3f", v.regret_median, v.regret_p90,
             v.regret_max);
  else
    snprintf(r2, sizeof r2, ", run %lld: median %.3f, 90th percentile %.3f, max %.3f", v.id, v.regret_median,
             v.regret_p90, v.regret_max);
  strncat(title, r2, sizeof title - strlen(title) - 1);
  if (figure && draw_regret(figure, fmt, s, &fit, rules, nrules, vt, nvt, title)) goto out;
  status = SYMV_EXIT_OK;
out:
  sweep_worker_stop(&w);
  free(t), free(lhost), free(lran), free(vt), free(view.curve);
  fit_set_free(&all);
  free(rules), free(curves);
  db_close(d);
  return status;
}

const symv_command cmd_validate_entry = {"validate", "regret of the rules at sizes no stage sampled (GPU)", run};
