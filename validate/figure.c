/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * figure.c - the figure of a validation run (validate_draw, validate.h),
 * drawn by gnuplot (plot/gnuplot.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gnuplot.h"
#include "util.h"
#include "validate.h"

/* The regret over n of run r, as validate.h says. */
int validate_draw(const char *out, const gp_format *fmt, const validate_result *r)
{
  const fit_set *s = r->s;
  const db_fit *fit = &r->fit;
  const db_rule *rules = r->rules;
  const size_t nrules = r->nrules, nvt = r->nvt;
  const db_validation_time *vt = r->vt;
  const char *title = r->title;
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
        const int k = fit_curve_of(s, vt[j].kernel, vt[j].candidate_id);
        color = gp_kernel_color(vt[j].kernel, k >= 0 ? symv_family_name(s->curve[k].cand.p.family) : "");
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
    const db_rule *r = validate_rule_of(rules, nrules, n);
    double tc = validate_predicted(s, fit_curve_of(s, r->kernel, r->cand.id), n), tb = INFINITY;
    for (size_t k = 0; k < s->ncurves; k++) {
      const double t = validate_predicted(s, (int)k, n);
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
