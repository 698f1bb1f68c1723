/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_plot.c - `symvtune plot`: the latest fit as a figure for a paper,
 * drawn by gnuplot (gnuplot.h) as PNG, PDF or SVG after --figure's
 * extension (--out: the former name). With --routine LIST, one figure per
 * routine (cli_each_routine_of: the routine's name before the extension).
 * Time per call over n, both axes logarithmic so that small n is as
 * readable as large (or, with --speedup, the speed-up over the faster
 * cuBLAS mode's fitted curve, on a linear axis, n still logarithmic): each densely sampled kernel's samples (points) and
 * fitted curve (line), one colour per family, cuBLAS's two modes dashed;
 * the envelope the rules choose (thick black), their boundaries (dotted
 * verticals) each interval labelled with its kernel; the floor (baseline
 * rows "floor" of the dense stage) where the database has it; and the
 * measured times of the fit's latest validation run where there is one.
 *
 * The data and the script go to a fresh temporary directory, gnuplot runs
 * there on that script, which names only files of that directory; the image
 * is then copied to a temporary file beside --figure and renamed over it (a
 * reader sees the old image or the new one), never over the database it
 * reads (refused). Text taken from the database (device name, families) is
 * reduced to harmless characters before it enters the script. --script DIR
 * keeps the script and its data for people who want to edit the figure.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../db/db.h"
#include "cli.h"
#include "fit.h"
#include "gnuplot.h"
#include "routine.h"
#include "symv_error.h"
#include "util.h"

#define PLOT_POINTS 400 /* points of a curve drawn across the whole range */

/* The files written to the working directory, kept by --script. */
static const char *const plot_files[] = {"samples.dat", "outliers.dat", "curves.dat", "envelope.dat",
                                         "floor.dat",   "validation.dat", "plot.gp"};

static void help(void)
{
  puts("Usage: symvtune plot --db FILE --figure FIGURE.png|.pdf|.svg [OPTIONS]\n"
       "Draws the latest fit stored by `symvtune fit` with gnuplot, as a figure for a paper: the\n"
       "time per call over n, both axes logarithmic, of each densely sampled kernel (samples as\n"
       "points, outliers the fit dropped as crosses, fitted curve as a line; one colour per\n"
       "family, cuBLAS's two modes dashed), the envelope the rules choose (thick black line),\n"
       "the rules' boundaries (dotted verticals, each interval labelled with its kernel), the\n"
       "floor (a kernel that only reads the triangle) where the database has its dense samples,\n"
       "and the times measured by the fit's latest `symvtune validate` run where there is one\n"
       "(the chosen kernel: circles; the fastest there: crosses). Curves are refitted from the\n"
       "samples now in FILE with the stored alphas. The format follows FIGURE's extension:\n"
       ".png (pngcairo), .pdf (pdfcairo), .svg. Reads FILE only.\n\n"
       "Options:\n"
       "  --db FILE      the database (required; opened read-only)\n"
       CLI_ROUTINE_HELP "                 (several: one figure each, the routine's name before FIGURE's\n"
       "                 extension: fit.png -> fit-ssymv.png, fit-dsymv.png, ...; --script DIR\n"
       "                 likewise: DIR-ssymv, ...)\n"
       "  --figure FIGURE\n"
       "                 the figure to write (required; replaced whole if it exists; never\n"
       "                 the database or its -wal, -shm or -journal file)\n"
       "  --out FIGURE   the same as --figure (its former name, kept for scripts)\n"
       "  --atomics C    the rule set drawn: any (default: every kernel, both cuBLAS modes) or\n"
       "                 deterministic (" SYMV_DETERMINISTIC_FAMILIES " and cuBLAS without atomics: what libsymv runs\n"
       "                 for handles in cuBLAS's default atomics mode; only those curves drawn)\n"
       "  --uplo L|U     the fit of this stored triangle (default L)\n"
       "  --speedup      draw the speed-up over the faster cuBLAS mode's fitted curve (over\n"
       "                 cuBLAS without atomics for the deterministic rules; linear axis)\n"
       "                 instead of time;\n"
       "                 validation points: over the faster cuBLAS mode measured in the run\n"
       "  --script DIR   also keep the gnuplot script plot.gp and its data files in DIR\n"
       "                 (created if missing): `cd DIR && gnuplot plot.gp` draws plot.EXT\n"
       "  --help         this text\n"
       "Environment: SYMVTUNE_GNUPLOT names the gnuplot program (default: the one configure\n"
       "found).\n"
       "Exit status: 0, 2 usage, 4 database error, no fit, or gnuplot missing or failing.");
}

/* What the figure shows and from where. */
typedef struct {
  symv_routine routine;
  const fit_set *s;            /* the curves drawn (the deterministic view for those rules) */
  const db_fit *fit;
  const db_rule *rules;
  size_t nrules;
  const db_device *dev;
  const db_measurement *floor; /* dense samples of the floor, or NULL */
  size_t nfloor;
  const db_validation *run;    /* the latest validation run of the fit, or NULL */
  const db_validation_time *vt;
  size_t nvt;
  int speedup;                 /* 1: speed-up over the faster cuBLAS mode instead of time */
} plot_input;

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

/* Index of the curve of rule r in s, or -1. */
static int plot_curve_of(const fit_set *s, const db_rule *r)
{
  for (size_t i = 0; i < s->ncurves; i++) {
    const fit_curve *c = &s->curve[i];
    if (strcmp(c->kernel, r->kernel)) continue;
    if (!strcmp(c->kernel, DB_KERNEL_CANDIDATE) && c->cand.id != r->cand.id) continue;
    return (int)i;
  }
  return -1;
}

/* Writes c's prediction at log-spaced sizes first..last, both included,
 * about PLOT_POINTS of them per the whole range lo..hi, each n once. */
static void plot_span(FILE *f, const plot_input *in, const fit_curve *c, int first, int last)
{
  int lo = in->fit->lo, hi = in->fit->hi;
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
            !strcmp(s->curve[j].cand.family, c->cand.family);
  static const int pts[] = {7, 5, 9, 11, 13, 15};
  snprintf(buf, size, "lc rgb \"%s\" dt %d pt %d", gp_family_color(c->cand.family), 1 + rank % 5,
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

/* Writes the data files and plot.gp of format fmt into dir. Returns 0, -1
 * when a file cannot be written (errno), or -2 when no curve was fitted. */
static int plot_write(const char *dir, const plot_input *in, const gp_format *fmt)
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
    int ci = plot_curve_of(s, &in->rules[i]);
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
  if (ok) {
    fprintf(gp, "# symvtune plot: generated script, run in its own directory: gnuplot plot.gp\n");
    gp_terminal(gp, fmt, 1400, 900);
    fprintf(gp, "set title \"%s\"\n"
                "%s\n"
                "set xrange [%d:%d]\n"
                "set grid xtics ytics mxtics mytics lc rgb \"#dddddd\"\n"
                "set key outside right top spacing 1.1\n"
                "set xlabel \"n (matrix order)\"\n"
                "set ylabel \"%s\"\n",
            title, in->speedup ? "set logscale x\nset yrange [0:*]" : "set logscale xy", fit->lo, fit->hi,
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
      fprintf(gp, "%s \\\n  \"curves.dat\" index %d using 1:2 with lines lw 1.5 %s title \"%s\", \\\n"
                  "  \"samples.dat\" index %d using 1:2 with points ps 0.5 %s notitle",
              idx ? "," : "", idx, style, label, idx, style);
      idx++;
    }
    if (noutliers)
      fprintf(gp, ", \\\n  \"outliers.dat\" using 1:2 with points pt 2 ps 1.2 lc rgb \"red\" "
                  "title \"outliers dropped\"");
    if (nenvelope)
      fprintf(gp, ", \\\n  \"envelope.dat\" using 1:2 with lines lw 4 lc rgb \"black\" "
                  "title \"rules (chosen kernel)\"");
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

static const struct option opts[] = {
  {"db", required_argument, 0, 'D'},      {"routine", required_argument, 0, 'r'}, {"figure", required_argument, 0, 'o'},
  {"out", required_argument, 0, 'o'},     {"atomics", required_argument, 0, 'A'}, {"uplo", required_argument, 0, 'u'},
  {"speedup", no_argument, 0, 'S'},       {"script", required_argument, 0, 'k'},  {"help", no_argument, 0, 'h'},
  {0, 0, 0, 0}};

static int run(int argc, char **argv)
{
  int each; /* several routines: a figure (and --script folder) each */
  static const char *const outputs[] = {"figure", "out", "script", NULL};
  static const cli_each how = {.options = opts, .outputs = outputs};
  if (cli_each_routine_of("plot", argc, argv, run, &how, &each)) return each;
  symv_routine routine = SYMV_DSYMV;
  const char *path = NULL, *out = NULL, *keep = NULL;
  int det = 0, speedup = 0, c;
  char uplo = 'L';
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'D': path = optarg; break;
    case 'r':
      if (cli_parse_routine("plot", optarg, &routine)) return SYMV_EXIT_USAGE;
      break;
    case 'A':
      if (cli_parse_atomics("plot", optarg, &det)) return SYMV_EXIT_USAGE;
      break;
    case 'u':
      if (strcmp(optarg, "L") && strcmp(optarg, "U"))
        return cli_usage_error("plot", "invalid --uplo '%s' (L or U)", optarg);
      uplo = optarg[0];
      break;
    case 'S': speedup = 1; break;
    case 'k': keep = optarg; break;
    case 'o': out = optarg; break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("plot", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
  if (!path) return cli_usage_error("plot", "--db FILE is required");
  if (!out || !*out) return cli_usage_error("plot", "--figure FIGURE (" GP_EXTENSIONS ") is required");
  if (cli_refuse_overwrite("plot", "--figure", out, "the database", path)) return SYMV_EXIT_USAGE;
  const gp_format *fmt = gp_format_of(out);
  if (!fmt) {
    const char *dot = strrchr(out, '.');
    char ext[64];
    symv_escape(dot && !strchr(dot, '/') ? dot : "(none)", ext, sizeof ext);
    return cli_usage_error("plot", "--figure %s: unknown extension %s: the format follows it, " GP_EXTENSIONS, out,
                           ext);
  }
  if (keep && !*keep) return cli_usage_error("plot", "--script needs a directory");
  const char *gnuplot = gp_program();
  if (!gnuplot[0] && !keep) {
    fprintf(stderr, "symvtune plot: gnuplot was not found when symvtune was configured: install it (Debian: "
                    "apt-get install gnuplot-nox) and rerun configure, or set SYMVTUNE_GNUPLOT\n");
    return SYMV_EXIT_ERROR;
  }

  db *d = NULL;
  int rc = db_open(&d, path, DB_READONLY);
  if (rc) {
    fprintf(stderr, "symvtune plot: %s\n", db_errmsg(d));
    db_close(d);
    return SYMV_EXIT_ERROR;
  }
  int status = SYMV_EXIT_ERROR;
  db_fit fit;
  db_rule *rules = NULL;
  db_fit_curve *curves = NULL;
  db_measurement *floor_samples = NULL;
  db_validation run;
  db_validation_time *vt = NULL;
  size_t nrules = 0, ncurves = 0, nfloor = 0, nvt = 0;
  int have_run = 0;
  fit_set s = {0}, view = {0};
  db_device dev;
  char dir[4096] = "";
  if ((rc = db_latest_fit_class(d, symv_routine_name(routine), uplo, 0, det, &fit, &rules, &nrules, &curves,
                                &ncurves))) {
    fprintf(stderr, "symvtune plot: %s%s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d),
            rc == SYMV_NOT_FOUND && uplo == 'U' ? " (without one, libsymv serves uplo U with the rules of L)" : "");
    goto out;
  }
  if ((rc = db_get_device(d, &dev)) == SYMV_NOT_FOUND) {
    memset(&dev, 0, sizeof dev);
  } else if (rc) {
    fprintf(stderr, "symvtune plot: %s\n", db_errmsg(d));
    goto out;
  }
  if ((rc = fit_load(d, fit.routine, fit.uplo, fit.hot, &s))) {
    if (rc == SYMV_NOT_FOUND)
      fprintf(stderr, "symvtune plot: %s has no dense-stage measurements for uplo %c, %s (those of fit %lld)\n",
              path, fit.uplo, fit.hot ? "hot" : "cold", fit.id);
    else
      fprintf(stderr, "symvtune plot: reading the dense samples: %s\n",
              rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    goto out;
  }
  /* each curve with the alpha the fit chose for it (GCV if it had none) */
  for (size_t i = 0; i < s.ncurves; i++) {
    fit_curve *fc = &s.curve[i];
    double alpha = 0;
    for (size_t j = 0; j < ncurves; j++)
      if (!strcmp(curves[j].kernel, fc->kernel) && (strcmp(fc->kernel, DB_KERNEL_CANDIDATE) ||
                                                     curves[j].candidate_id == fc->cand.id))
        alpha = curves[j].alpha;
    if ((rc = fit_curve_compute(fc, fit.lo, fit.hi, alpha))) {
      fprintf(stderr, "symvtune plot: fitting %s: %s\n", fc->label, symv_strerror(rc));
      goto out;
    }
  }
  /* the floor, where another stage measured it; the latest validation run */
  if ((rc = db_baseline_measurements(d, fit.routine, "floor", DB_STAGE_DENSE, fit.uplo, fit.hot, &floor_samples,
                                     &nfloor))) {
    fprintf(stderr, "symvtune plot: reading the floor's samples: %s\n", db_errmsg(d));
    goto out;
  }
  if ((rc = db_latest_validation(d, fit.id, &run, &vt, &nvt)) == 0) have_run = 1;
  else if (rc != SYMV_NOT_FOUND) {
    fprintf(stderr, "symvtune plot: reading the validation run: %s\n", db_errmsg(d));
    goto out;
  }
  if (det && fit_deterministic_view(&s, &view)) { /* the deterministic rules: their kernels' curves only */
    fprintf(stderr, "symvtune plot: %s\n", symv_strerror(SYMV_NO_MEMORY));
    goto out;
  }
  if (gp_workdir("plot", dir, sizeof dir)) goto out;
  errno = 0;
  plot_input in = {.routine = routine, .s = det ? &view : &s, .fit = &fit, .rules = rules, .nrules = nrules,
                   .dev = &dev, .floor = floor_samples, .nfloor = nfloor, .run = have_run ? &run : NULL, .vt = vt,
                   .nvt = nvt, .speedup = speedup};
  rc = plot_write(dir, &in, fmt);
  if (rc == -2) {
    fprintf(stderr, "symvtune plot: no kernel has two or more samples in %d..%d: nothing to draw\n", fit.lo, fit.hi);
    goto out;
  }
  if (rc) {
    fprintf(stderr, "symvtune plot: cannot write the plot's data in %s: %s\n", dir, strerror(errno ? errno : EIO));
    goto out;
  }
  if (keep) {
    if (gp_keep("plot", dir, plot_files, sizeof plot_files / sizeof *plot_files, keep)) goto out;
    printf("wrote the gnuplot script and its data to %s (cd there and run: gnuplot plot.gp)\n", keep);
  }
  if (gp_draw("plot", gnuplot, dir, fmt, out)) goto out;
  printf("wrote %s: fit %lld%s, %zu kernels, %zu rules, n = %d..%d%s%s\n", out, fit.id,
         det ? " (deterministic)" : "", in.s->ncurves, nrules, fit.lo, fit.hi, nfloor ? ", the floor" : "",
         have_run ? ", a validation run" : "");
  status = SYMV_EXIT_OK;
out:
  gp_cleanup(dir, plot_files, sizeof plot_files / sizeof *plot_files);
  free(view.curve);
  fit_set_free(&s);
  free(rules), free(curves), free(floor_samples), free(vt);
  db_close(d);
  return status;
}

const symv_command cmd_plot_entry = {"plot", "draw the latest fit's curves and rules (gnuplot: .png, .pdf, .svg)",
                                     run};
