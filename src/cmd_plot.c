/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_plot.c - `symvtune plot`: a PNG of the latest fit, drawn by gnuplot.
 * Panel 1: each densely sampled kernel's samples (points) and fitted curve
 * (lines) in GFLOPS over n, log x axis, cuBLAS included, and the envelope
 * the rules choose (thick line); panel 2: the same as a percentage of the
 * device's copy bandwidth (matrix traffic 8 n(n+1)/2 bytes / time).
 *
 * The data and the script go to a fresh temporary directory and gnuplot
 * runs there by fork/exec (no shell) on that script, which names only files
 * of that directory; the image is then copied to a temporary file beside
 * --out and renamed over it (a reader sees the old image or the new one),
 * never over the database it reads (refused). Text taken from the
 * database (device name, families) is reduced to harmless characters before
 * it enters the script.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../db/db.h"
#include "cli.h"
#include "routine.h"
#include "config.h"
#include "fit.h"
#include "symv_error.h"
#include "util.h"

#define PLOT_POINTS 400 /* points of a curve drawn across the whole range */

/* The files written to the temporary directory, removed afterwards. */
static const char *const plot_files[] = {"samples.dat", "outliers.dat", "curves.dat", "envelope.dat",
                                         "plot.gp", "plot.png", "gnuplot.log"};

static void help(void)
{
  puts("Usage: symvtune plot --db FILE --out FILE.png [--atomics any|deterministic]\n"
       "Draws the latest fit stored by `symvtune fit` with gnuplot: in the upper panel each\n"
       "densely sampled kernel's samples (points; outliers the fit dropped as crosses) and\n"
       "fitted curve (lines) in GFLOPS (LAPACK flop count / time) over n on a log axis, both cuBLAS modes\n"
       "among them, and the envelope the rules choose (thick black line); in the lower panel\n"
       "the same as a percentage of the copy bandwidth measured by the sweep (matrix traffic\n"
       "8 n(n+1)/2 bytes / time), or in GB/s if none was recorded. Curves are refitted from\n"
       "the samples now in FILE with the stored alphas. Reads FILE only.\n\n"
       "Options:\n"
       "  --db FILE    the database (required; opened read-only)\n"
       "  --routine R  the routine (" SYMV_ROUTINE_NAMES "; default dsymv)\n"
       "  --out FILE   the PNG to write (required; replaced whole if it exists; never\n"
       "               the database or its -wal, -shm or -journal file)\n"
       "  --atomics C  the rule set drawn: any (default: every kernel, both cuBLAS modes) or\n"
       "               deterministic (" SYMV_DETERMINISTIC_FAMILIES " and cuBLAS without atomics: what libsymv runs\n"
       "               for handles in cuBLAS's default atomics mode; only those curves drawn)\n"
       "  --help       this text\n"
       "Environment: SYMVTUNE_GNUPLOT names the gnuplot program (default: the one configure\n"
       "found).\n"
       "Exit status: 0, 2 usage, 4 database error, no fit, or gnuplot missing or failing.");
}

/* src reduced to characters that are inert in a double-quoted gnuplot
 * string with enhanced text off: others become '?'. */
static void plot_text(char *dst, size_t size, const char *src)
{
  size_t j = 0;
  for (; *src && j + 1 < size; src++) {
    unsigned char ch = (unsigned char)*src;
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             strchr(" :,.()_+-/=%", ch);
    dst[j++] = ok ? (char)ch : '?';
  }
  dst[j] = 0;
}

/* Column 3 of the data files: % of the copy bandwidth, or GB/s if unknown. */
/* The routine being plotted (run sets it), for its flops and bytes. */
static symv_routine plot_routine = SYMV_DSYMV;

static double plot_y2(int n, double us, double copy_gbs)
{
  double gbs = symv_gbs(plot_routine, n, us);
  return copy_gbs > 0 ? 100.0 * gbs / copy_gbs : gbs;
}

static void plot_row(FILE *f, int n, double us, double copy_gbs)
{
  fprintf(f, "%d %.8g %.8g\n", n, symv_gflops(plot_routine, n, us), plot_y2(n, us, copy_gbs));
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
static void plot_span(FILE *f, const fit_curve *c, int first, int last, int lo, int hi, double copy_gbs)
{
  double width = hi > lo ? log((double)last / first) / log((double)hi / lo) : 1;
  int k = 2 + (int)(PLOT_POINTS * width), prev = 0;
  for (int i = 0; i <= k; i++) {
    int n = i == k ? last : (int)lround(first * pow((double)last / first, (double)i / k));
    if (n <= prev || n < first || n > last) continue;
    prev = n;
    double t = c->pred_us[n - c->lo];
    if (t > 0) plot_row(f, n, t, copy_gbs);
  }
}

/* Writes the data files and plot.gp into dir. Returns 0, -1 when a file
 * cannot be written (errno), or -2 when no curve was fitted. */
static int plot_write(const char *dir, const fit_set *s, const db_fit *fit, const db_rule *rules, size_t nrules,
                      const db_device *dev)
{
  char p[4200];
  FILE *fs, *fo, *fc, *fe, *gp;
  snprintf(p, sizeof p, "%s/samples.dat", dir), fs = fopen(p, "w");
  snprintf(p, sizeof p, "%s/outliers.dat", dir), fo = fopen(p, "w");
  snprintf(p, sizeof p, "%s/curves.dat", dir), fc = fopen(p, "w");
  snprintf(p, sizeof p, "%s/envelope.dat", dir), fe = fopen(p, "w");
  snprintf(p, sizeof p, "%s/plot.gp", dir), gp = fopen(p, "w");
  int ok = fs && fo && fc && fe && gp;
  double copy = dev->copy_gbs;
  int nplotted = 0, noutliers = 0, nenvelope = 0;
  /* samples and curves: one block (gnuplot index) per plotted kernel */
  for (size_t i = 0; ok && i < s->ncurves; i++) {
    const fit_curve *c = &s->curve[i];
    if (!(c->alpha > 0)) continue;
    fprintf(fs, "%s# %s\n", nplotted ? "\n\n" : "", c->label);
    fprintf(fc, "%s# %s\n", nplotted ? "\n\n" : "", c->label);
    for (int j = 0; j < c->nsamples; j++) {
      if (c->n[j] < fit->lo || c->n[j] > fit->hi) continue;
      plot_row(c->rejected[j] ? fo : fs, c->n[j], c->us[j], copy);
      noutliers += c->rejected[j];
    }
    plot_span(fc, c, c->first, c->last, fit->lo, fit->hi, copy);
    nplotted++;
  }
  for (size_t i = 0; ok && i < nrules; i++) {
    int ci = plot_curve_of(s, &rules[i]);
    if (ci < 0 || !(s->curve[ci].alpha > 0)) continue;
    plot_span(fe, &s->curve[ci], rules[i].n_start, rules[i].n_end, fit->lo, fit->hi, copy);
    nenvelope++;
  }

  /* the script */
  static const char *const colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                       "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939"};
  const int ncolors = (int)(sizeof colors / sizeof *colors);
  char name[300], title[600];
  plot_text(name, sizeof name, dev->name[0] ? dev->name : "unknown GPU");
  snprintf(title, sizeof title, "symvtune fit %lld: %s on %s, uplo %c, %s, n = %d..%d, threshold %g%%", fit->id,
           symv_routine_get(plot_routine)->blas, name, fit->uplo == 'U' ? 'U' : 'L', fit->hot ? "hot" : "cold", fit->lo, fit->hi, 100 * fit->threshold);
  if (ok) {
    fprintf(gp, "# symvtune plot: generated script, run in its own temporary directory\n"
                "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
                "  set terminal pngcairo size 1400,1100 font \",10\"\n"
                "} else {\n"
                "  set terminal png size 1400,1100\n"
                "}\n"
                "set termoption noenhanced\n"
                "set output \"plot.png\"\n"
                "set multiplot layout 2,1 title \"%s\"\n"
                "set logscale x\n"
                "set xrange [%d:%d]\n"
                "set grid\n"
                "set key outside right top\n"
                "set xlabel \"n\"\n",
            title, fit->lo, fit->hi);
    for (int panel = 0; panel < 2; panel++) {
      if (panel == 0) fprintf(gp, "set ylabel \"GFLOPS (2n^2 real, 8n^2 complex / time)\"\n");
      else if (copy > 0) fprintf(gp, "set ylabel \"%% of the copy bandwidth (%.0f GB/s)\"\n", copy);
      else fprintf(gp, "set ylabel \"GB/s of matrix traffic (copy bandwidth not recorded)\"\n");
      int col = panel == 0 ? 2 : 3, idx = 0;
      fprintf(gp, "plot");
      for (size_t i = 0; i < s->ncurves; i++) {
        const fit_curve *c = &s->curve[i];
        if (!(c->alpha > 0)) continue;
        char label[100], style[64];
        plot_text(label, sizeof label, c->label);
        if (!strcmp(c->kernel, DB_KERNEL_CUBLAS)) snprintf(style, sizeof style, "lc rgb \"#444444\" dt 2");
        else if (!strcmp(c->kernel, DB_KERNEL_CUBLAS_ATOMICS)) snprintf(style, sizeof style, "lc rgb \"#999999\" dt 4");
        else snprintf(style, sizeof style, "lc rgb \"%s\" dt %d", colors[idx % ncolors], 1 + (idx / ncolors) % 5);
        fprintf(gp, "%s \\\n  \"curves.dat\" index %d using 1:%d with lines lw 1.5 %s title \"%s\", \\\n"
                    "  \"samples.dat\" index %d using 1:%d with points pt 7 ps 0.5 %s notitle",
                idx ? "," : "", idx, col, style, label, idx, col, style);
        idx++;
      }
      if (noutliers)
        fprintf(gp, ", \\\n  \"outliers.dat\" using 1:%d with points pt 2 ps 1.2 lc rgb \"red\" "
                    "title \"outliers dropped\"", col);
      if (nenvelope)
        fprintf(gp, ", \\\n  \"envelope.dat\" using 1:%d with lines lw 4 lc rgb \"black\" "
                    "title \"rules (chosen kernel)\"", col);
      fprintf(gp, "\n");
    }
    fprintf(gp, "unset multiplot\n");
  }
  FILE *all[5] = {fs, fo, fc, fe, gp};
  for (int i = 0; i < 5; i++)
    if (all[i] && (ferror(all[i]) | fclose(all[i]))) ok = 0;
  return !ok ? -1 : nplotted ? 0 : -2;
}

/* Runs `gnuplot plot.gp` in dir, its output into dir/gnuplot.log.
 * Returns its wait status, or -1 if it could not be started (errno). */
static int plot_run(const char *gnuplot, const char *dir)
{
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = -1;
    if (chdir(dir) == 0) fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) _exit(126);
    dup2(fd, 1), dup2(fd, 2), close(fd);
    execlp(gnuplot, gnuplot, "plot.gp", (char *)NULL);
    fprintf(stderr, "cannot run %s: %s\n", gnuplot, strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return st;
}

/* Prints the last lines of dir/gnuplot.log to stderr, indented. */
static void plot_show_log(const char *dir)
{
  char p[4200], line[512];
  snprintf(p, sizeof p, "%s/gnuplot.log", dir);
  FILE *f = fopen(p, "r");
  if (!f) return;
  char tail[8][512];
  int n = 0;
  while (fgets(line, sizeof line, f)) snprintf(tail[n++ % 8], sizeof tail[0], "%s", line);
  fclose(f);
  for (int i = n > 8 ? n - 8 : 0; i < n; i++) fprintf(stderr, "  gnuplot: %s", tail[i % 8]);
}

static int run(int argc, char **argv)
{
  static const struct option opts[] = {
    {"db", required_argument, 0, 'D'}, {"routine", required_argument, 0, 'r'}, {"out", required_argument, 0, 'o'},
    {"atomics", required_argument, 0, 'A'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  symv_routine routine = SYMV_DSYMV;
  const char *path = NULL, *out = NULL;
  int det = 0;
  int c;
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
    case 'o': out = optarg; break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("plot", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
  if (!path) return cli_usage_error("plot", "--db FILE is required");
  if (!out || !*out) return cli_usage_error("plot", "--out FILE.png is required");
  if (cli_refuse_overwrite("plot", "--out", out, "the database", path)) return SYMV_EXIT_USAGE;
  const char *gnuplot = getenv("SYMVTUNE_GNUPLOT");
  if (!gnuplot) gnuplot = GNUPLOT_PATH;
  if (!gnuplot[0]) {
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
  size_t nrules = 0, ncurves = 0;
  fit_set s = {0};
  db_device dev;
  char dir[4096] = "";
  if ((rc = db_latest_fit_class(d, symv_routine_name(routine), 'L', 0, det, &fit, &rules, &nrules, &curves,
                                &ncurves))) {
    fprintf(stderr, "symvtune plot: %s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    goto out;
  }
  if ((rc = db_get_device(d, &dev)) == SYMV_NOT_FOUND) {
    memset(&dev, 0, sizeof dev);
  } else if (rc) {
    fprintf(stderr, "symvtune plot: %s\n", db_errmsg(d));
    goto out;
  }
  plot_routine = routine;
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

  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/symvtune-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "symvtune plot: cannot create a temporary directory %s: %s\n", dir, strerror(errno));
    dir[0] = 0;
    goto out;
  }
  errno = 0;
  fit_set view = {0}; /* the deterministic rules: their kernels' curves only */
  if (det && fit_deterministic_view(&s, &view)) {
    fprintf(stderr, "symvtune plot: %s\n", symv_strerror(SYMV_NO_MEMORY));
    goto out;
  }
  rc = plot_write(dir, det ? &view : &s, &fit, rules, nrules, &dev);
  const size_t drawn = det ? view.ncurves : s.ncurves;
  free(view.curve);
  if (rc == -2) {
    fprintf(stderr, "symvtune plot: no kernel has two or more samples in %d..%d: nothing to draw\n", fit.lo, fit.hi);
    goto out;
  }
  if (rc) {
    fprintf(stderr, "symvtune plot: cannot write the plot's data in %s: %s\n", dir, strerror(errno ? errno : EIO));
    goto out;
  }
  int st = plot_run(gnuplot, dir);
  if (st == -1) {
    fprintf(stderr, "symvtune plot: cannot start %s: %s\n", gnuplot, strerror(errno));
    goto out;
  }
  char png[4200];
  snprintf(png, sizeof png, "%s/plot.png", dir);
  struct stat sb;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || stat(png, &sb) != 0 || sb.st_size == 0) {
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
      fprintf(stderr, "symvtune plot: cannot run gnuplot '%s' (install it, e.g. apt-get install gnuplot-nox, or "
                      "set SYMVTUNE_GNUPLOT)\n", gnuplot);
    else
      fprintf(stderr, "symvtune plot: gnuplot (%s) failed (%s %d) and wrote no image:\n", gnuplot,
              WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    plot_show_log(dir);
    goto out;
  }
  if (symv_replace_file(png, out)) {
    fprintf(stderr, "symvtune plot: cannot write %s: %s\n", out, strerror(errno));
    goto out;
  }
  printf("wrote %s: fit %lld%s, %zu kernels, %zu rules, n = %d..%d\n", out, fit.id, det ? " (deterministic)" : "",
         drawn, nrules, fit.lo,
         fit.hi);
  status = SYMV_EXIT_OK;
out:
  if (dir[0]) {
    char p[4200];
    for (size_t i = 0; i < sizeof plot_files / sizeof *plot_files; i++) {
      snprintf(p, sizeof p, "%s/%s", dir, plot_files[i]);
      unlink(p);
    }
    rmdir(dir);
  }
  fit_set_free(&s);
  free(rules);
  free(curves);
  db_close(d);
  return status;
}

const symv_command cmd_plot_entry = {"plot", "draw the latest fit's curves and rules as a PNG (gnuplot)", run};
