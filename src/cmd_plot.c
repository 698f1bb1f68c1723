/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_plot.c - `symvtune plot`: the latest fit as a figure for a paper
 * (plot/fit_figure.h), drawn by gnuplot (plot/gnuplot.h) as PNG, PDF or SVG after --figure's
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
#include "fit_figure.h"
#include "gnuplot.h"
#include "routine.h"
#include "symv_error.h"
#include "util.h"

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

static const struct option opts[] = {
  {"db", required_argument, 0, CLI_DB},           {"routine", required_argument, 0, CLI_ROUTINE},
  {"figure", required_argument, 0, 'o'},          {"out", required_argument, 0, 'o'},
  {"atomics", required_argument, 0, CLI_ATOMICS}, {"uplo", required_argument, 0, CLI_UPLO},
  {"speedup", no_argument, 0, 'S'},               {"script", required_argument, 0, 'k'},
  {"help", no_argument, 0, 'h'},                  {0, 0, 0, 0}};

static int run(int argc, char **argv)
{
  int each; /* several routines: a figure (and --script folder) each */
  static const char *const outputs[] = {"figure", "out", "script", NULL};
  static const cli_each how = {.options = opts, .outputs = outputs};
  if (cli_each_routine_of("plot", argc, argv, run, &how, &each)) return each;
  cli_opts o = {.cmd = "plot", .options = opts, .help = help, .need_db = 1, .routine = SYMV_DSYMV, .uplo = 'L'};
  const char *out = NULL, *keep = NULL;
  int speedup = 0, c;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 'S': speedup = 1; break;
    case 'k': keep = optarg; break;
    case 'o': out = optarg; break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  if (!out || !*out) return cli_usage_error("plot", "--figure FIGURE (" GP_EXTENSIONS ") is required");
  if (cli_refuse_overwrite("plot", "--figure", out, "the database", o.db)) return SYMV_EXIT_USAGE;
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

  db *d;
  if (cli_open_db("plot", o.db, DB_READONLY, &d)) return SYMV_EXIT_ERROR;
  int rc, status = SYMV_EXIT_ERROR;
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
  if ((rc = db_latest_fit_class(d, o.routine, o.uplo, 0, o.deterministic, &fit, &rules, &nrules, &curves,
                                &ncurves))) {
    fprintf(stderr, "symvtune plot: %s%s\n", rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d),
            rc == SYMV_NOT_FOUND && o.uplo == 'U' ? " (without one, libsymv serves uplo U with the rules of L)" : "");
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
              o.db, fit.uplo, fit.hot ? "hot" : "cold", fit.id);
    else
      fprintf(stderr, "symvtune plot: reading the dense samples: %s\n",
              rc == SYMV_NO_MEMORY ? symv_strerror(rc) : db_errmsg(d));
    goto out;
  }
  size_t bad = 0; /* each curve with the alpha the fit chose for it (GCV if it had none) */
  if ((rc = fit_compute_as_stored(&s, curves, ncurves, fit.lo, fit.hi, &bad))) {
    fprintf(stderr, "symvtune plot: fitting %s: %s\n", s.curve[bad].label, symv_strerror(rc));
    goto out;
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
  if (o.deterministic && fit_deterministic_view(&s, &view)) { /* the deterministic rules: their kernels' curves only */
    fprintf(stderr, "symvtune plot: %s\n", symv_strerror(SYMV_NO_MEMORY));
    goto out;
  }
  if (gp_workdir("plot", dir, sizeof dir)) goto out;
  errno = 0;
  plot_input in = {.routine = o.routine, .s = o.deterministic ? &view : &s, .fit = &fit, .rules = rules,
                   .nrules = nrules, .dev = &dev, .floor = floor_samples, .nfloor = nfloor,
                   .run = have_run ? &run : NULL, .vt = vt, .nvt = nvt, .speedup = speedup};
  rc = plot_fit_write(dir, &in, fmt);
  if (rc == -2) {
    fprintf(stderr, "symvtune plot: no kernel has two or more samples in %d..%d: nothing to draw\n", fit.lo, fit.hi);
    goto out;
  }
  if (rc) {
    fprintf(stderr, "symvtune plot: cannot write the plot's data in %s: %s\n", dir, strerror(errno ? errno : EIO));
    goto out;
  }
  if (keep) {
    if (gp_keep("plot", dir, plot_fit_files, PLOT_FIT_NFILES, keep)) goto out;
    printf("wrote the gnuplot script and its data to %s (cd there and run: gnuplot plot.gp)\n", keep);
  }
  if (gp_draw("plot", gnuplot, dir, fmt, out)) goto out;
  printf("wrote %s: fit %lld%s, %zu kernels, %zu rules, n = %d..%d%s%s\n", out, fit.id,
         o.deterministic ? " (deterministic)" : "", in.s->ncurves, nrules, fit.lo, fit.hi,
         nfloor ? ", the floor" : "", have_run ? ", a validation run" : "");
  status = SYMV_EXIT_OK;
out:
  gp_cleanup(dir, plot_fit_files, PLOT_FIT_NFILES);
  free(view.curve);
  fit_set_free(&s);
  free(rules), free(curves), free(floor_samples), free(vt);
  db_close(d);
  return status;
}

const symv_command cmd_plot_entry = {"plot", "draw the latest fit's curves and rules (gnuplot: .png, .pdf, .svg)",
                                     run};
