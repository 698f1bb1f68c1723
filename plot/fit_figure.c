/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fit_figure.c - the figure of a fit (fit_figure.h), as gnuplot data files
 * and a script that names only files of its directory.
 */
#include "fit_figure.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symv_error.h"
#include "util.h"

#define PLOT_POINTS 400 /* points of a curve drawn across the whole range */

const char *const plot_fit_files[PLOT_FIT_NFILES] = {"samples.dat", "outliers.dat", "curves.dat", "envelope.dat",
                                                     "floor.dat",   "validation.dat", "plot.gp"};



/* The y value of a time us at n: the time, or the predicted faster cuBLAS
 * mode over it (NaN where cuBLAS is not predicted). */
static double plot_y(const plot_input *in, int n, double us)
{
  if (!in->speedup) return us;
  return fit_cublas_us(in->s, n) / us;
}

static void plot_row(FILE *f, const plot_input *in, int n, double us)
{
  double y = plot_y(in, n, us);
  if (isfinite(y) && y > 0) fprintf(f, "%d %.8g\n", n, y);
}

/* Writes c's prediction at log-spaced sizes first..last, both included,
 * about PLOT_POINTS of them per the whole range lo..hi, each n once; sizes
 * outside c's predicted range c->lo..c->hi (where first and last are the
 * samples that bracket it) are left out. */
static void plot_span(FILE *f, const plot_input *in, const fit_curve *c, int first, int last)
{
  int lo = in->fit->lo, hi = in->fit->hi;
  if (first < c->lo) first = c->lo;
  if (last > c->hi) last = c->hi;
  if (first > last) return;
  double width = hi > lo ? log((double)last / first) / log((double)hi / lo) : 1;
  int k = 2 + (int)(PLOT_POINTS * width), prev = 0;
  for (int i = 0; i <= k; i++) {
    int n = i == k ? last : (int)lround(first * pow((double)last / first, (double)i / k));
    if (n <= prev || n < first || n > last) continue;
    prev = n;
    double t = c->pred_us[n - c->lo];
    if (t > 0) plot_row(f, in, n, t);
  }
}

/* The line style of curve i of s: colour by family, dash type and point
 * type by its place among the family's curves drawn. */
static void plot_style(const fit_set *s, size_t i, char *buf, size_t size)
{
  const fit_curve *c = &s->curve[i];
  if (!strcmp(c->kernel, DB_KERNEL_CUBLAS)) {
    snprintf(buf, size, "lc rgb \"#000000\" dt 2 pt 4");
    return;
  }
  if (!strcmp(c->kernel, DB_KERNEL_CUBLAS_ATOMICS)) {
    snprintf(buf, size, "lc rgb \"#777777\" dt 4 pt 12");
    return;
  }
  int rank = 0;
  for (size_t j = 0; j < i; j++)
    rank += !strcmp(s->curve[j].kernel, DB_KERNEL_CANDIDATE) && s->curve[j].alpha > 0 &&
            s->curve[j].cand.p.family == c->cand.p.family;
  static const int pts[] = {7, 5, 9, 11, 13, 15};
  snprintf(buf, size, "lc rgb \"%s\" dt %d pt %d", gp_family_color(symv_family_name(c->cand.p.family)), 1 + rank % 5,
           pts[rank % 6]);
}

/* Opens dir/name for writing; NULL on failure (errno). */
static FILE *plot_open(const char *dir, const char *name)
{
  char p[4200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return fopen(p, "w");
}

/* Writes the validation points: per size, the chosen kernel's measured y
 * and the fastest's. Returns the sizes written. */
static int plot_validation(FILE *f, const plot_input *in)
{
  int sizes = 0;
  for (size_t i = 0; i < in->nvt;) {
    size_t j = i;
    double chosen = NAN, best = INFINITY, cublas = INFINITY;
    for (; j < in->nvt && in->vt[j].n == in->vt[i].n; j++) {
      const db_validation_time *e = &in->vt[j];
      if (e->chosen) chosen = e->median_us;
      if (e->median_us < best) best = e->median_us;
      if (strcmp(e->kernel, DB_KERNEL_CANDIDATE) && e->median_us < cublas) cublas = e->median_us;
    }
    int n = in->vt[i].n;
    i = j;
    if (!(chosen > 0)) continue;
    double yc = in->speedup ? cublas / chosen : chosen, yb = in->speedup ? cublas / best : best;
    if (!(isfinite(yc) && yc > 0 && isfinite(yb) && yb > 0)) continue;
    fprintf(f, "%d %.8g %.8g\n", n, yc, yb);
    sizes++;
  }
  return sizes;
}

int plot_fit_write(const char *dir, const plot_input *in, const gp_format *fmt)
{
  const fit_set *s = in->s;
  const db_fit *fit = in->fit;
  FILE *fs = plot_open(dir, "samples.dat"), *fo = plot_open(dir, "outliers.dat");
  FILE *fc = plot_open(dir, "curves.dat"), *fe = plot_open(dir, "envelope.dat");
  FILE *ff = plot_open(dir, "floor.dat"), *fv = plot_open(dir, "validation.dat");
  FILE *gp = plot_open(dir, "plot.gp");
  FILE *all[] = {fs, fo, fc, fe, ff, fv, gp};
  const int nall = (int)(sizeof all / sizeof *all);
  int ok = 1;
  for (int i = 0; i < nall; i++) ok &= all[i] != NULL;
  int nplotted = 0, noutliers = 0, nenvelope = 0, nfloor = 0, nvalid = 0;
  /* samples and curves: one block (gnuplot index) per plotted kernel */
  for (size_t i = 0; ok && i < s->ncurves; i++) {
    const fit_curve *c = &s->curve[i];
    if (!(c->alpha > 0)) continue;
    fprintf(fs, "%s# %s\n", nplotted ? "\n\n" : "", c->label);
    fprintf(fc, "%s# %s\n", nplotted ? "\n\n" : "", c->label);
    for (int j = 0; j < c->nsamples; j++) {
      if (c->n[j] < fit->lo || c->n[j] > fit->hi) continue;
      plot_row(c->rejected[j] ? fo : fs, in, c->n[j], c->us[j]);
      noutliers += c->rejected[j];
    }
    plot_span(fc, in, c, c->first, c->last);
    nplotted++;
  }
  for (size_t i = 0; ok && i < in->nrules; i++) {
    int ci = fit_curve_of_rule(s, &in->rules[i]);
    if (ci < 0 || !(s->curve[ci].alpha > 0)) continue;
    plot_span(fe, in, &s->curve[ci], in->rules[i].n_start, in->rules[i].n_end);
    nenvelope++;
  }
  for (size_t i = 0; ok && i < in->nfloor; i++)
    if (in->floor[i].n >= fit->lo && in->floor[i].n <= fit->hi && in->floor[i].median_us > 0) {
      plot_row(ff, in, in->floor[i].n, in->floor[i].median_us);
      nfloor++;
    }
  if (ok && in->run) nvalid = plot_validation(fv, in);

  /* the script */
  char name[300], title[700], sel[300];
  gp_text(name, sizeof name, in->dev->name[0] ? in->dev->name : "unknown GPU");
  size_t k = strcspn(fit->method, ";");
  if (!strncmp(fit->method, FIT_SELECT_REGRET, strlen(FIT_SELECT_REGRET)) ||
      !strncmp(fit->method, FIT_SELECT_MERGE, strlen(FIT_SELECT_MERGE))) {
    char m[sizeof fit->method];
    snprintf(m, sizeof m, "%.*s", (int)k, fit->method);
    gp_text(sel, sizeof sel, m);
  } else {
    snprintf(sel, sizeof sel, "threshold %g%%", 100 * fit->threshold);
  }
  snprintf(title, sizeof title, "%s on %s: fit %lld, %s rules (%s), uplo %c, %s A", symv_routine_get(in->routine)->blas,
           name, fit->id, fit->deterministic ? "deterministic" : "any", sel, fit->uplo == 'U' ? 'U' : 'L',
           fit->hot ? "hot" : "cold");
  /* the fit's range; one size (lo = hi) widened by 5% each way, since
   * gnuplot refuses an empty x range */
  const int one = fit->lo == fit->hi; /* curves and rules are then drawn as points */
  double xlo = fit->lo, xhi = fit->hi;
  if (one) xlo /= 1.05, xhi *= 1.05;
  if (ok) {
    fprintf(gp, "# symvtune plot: generated script, run in its own directory: gnuplot plot.gp\n");
    gp_terminal(gp, fmt, 1400, 900);
    fprintf(gp, "set title \"%s\"\n"
                "%s\n"
                "set xrange [%g:%g]\n"
                "set grid xtics ytics mxtics mytics lc rgb \"#dddddd\"\n"
                "set key outside right top spacing 1.1\n"
                "set xlabel \"n (matrix order)\"\n"
                "set ylabel \"%s\"\n",
            title, in->speedup ? "set logscale x\nset yrange [0:*]" : "set logscale xy", xlo, xhi,
            in->speedup ? (fit->deterministic ? "speed-up over cuBLAS without atomics (fitted)"
                                              : "speed-up over the faster cuBLAS mode (fitted)")
                        : "time per call (us)");
    /* the rules: a dotted line at each boundary, each interval labelled
     * with its kernel in its family's colour at its geometric middle */
    gp_rule_marks(gp, in->rules, in->nrules);
    if (in->speedup)
      fprintf(gp, "set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 1 lc rgb \"#000000\" back\n");
    fprintf(gp, "plot");
    int idx = 0;
    for (size_t i = 0; i < s->ncurves; i++) {
      const fit_curve *c = &s->curve[i];
      if (!(c->alpha > 0)) continue;
      char label[100], style[96];
      gp_text(label, sizeof label, c->label);
      plot_style(s, i, style, sizeof style);
      fprintf(gp, "%s \\\n  \"curves.dat\" index %d using 1:2 with %s %s title \"%s\", \\\n"
                  "  \"samples.dat\" index %d using 1:2 with points ps 0.5 %s notitle",
              idx ? "," : "", idx, one ? "points ps 1.5" : "lines lw 1.5", style, label, idx, style);
      idx++;
    }
    if (noutliers)
      fprintf(gp, ", \\\n  \"outliers.dat\" using 1:2 with points pt 2 ps 1.2 lc rgb \"red\" "
                  "title \"outliers dropped\"");
    if (nenvelope)
      fprintf(gp, ", \\\n  \"envelope.dat\" using 1:2 with %s lc rgb \"black\" "
                  "title \"rules (chosen kernel)\"", one ? "points pt 6 ps 3" : "lines lw 4");
    if (nfloor)
      fprintf(gp, ", \\\n  \"floor.dat\" using 1:2 with linespoints lw 2 dt 3 pt 1 lc rgb \"#006400\" "
                  "title \"floor (reads the triangle only)\"");
    if (nvalid)
      fprintf(gp, ", \\\n  \"validation.dat\" using 1:2 with points pt 6 ps 1.6 lw 1.5 lc rgb \"black\" "
                  "title \"validate run %lld: chosen, measured\", \\\n"
                  "  \"validation.dat\" using 1:3 with points pt 2 ps 1.2 lw 1.5 lc rgb \"#cc0000\" "
                  "title \"validate run %lld: fastest, measured\"", in->run->id, in->run->id);
    fprintf(gp, "\n");
  }
  for (int i = 0; i < nall; i++)
    if (all[i] && (ferror(all[i]) | fclose(all[i]))) ok = 0;
  return !ok ? -1 : nplotted ? 0 : -2;
}
