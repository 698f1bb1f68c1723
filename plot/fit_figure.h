/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fit_figure.h - the figure of a fit (`symvtune plot`): time per call over
 * n, both axes logarithmic (or, with speedup, the speed-up over the faster
 * cuBLAS mode's fitted curve on a linear axis): each densely sampled
 * kernel's samples (points) and fitted curve (line), one colour per family,
 * cuBLAS's two modes dashed; the envelope the rules choose (thick black),
 * their boundaries (dotted verticals) each interval labelled with its
 * kernel; the floor where the database has it; and the measured times of
 * the fit's latest validation run where there is one. Written as gnuplot
 * data and script (gnuplot.h) into a working directory; text taken from the
 * database is reduced to harmless characters before it enters the script.
 */
#ifndef SYMV_FIT_FIGURE_H
#define SYMV_FIT_FIGURE_H
#include <stddef.h>
#include "../db/db.h"
#include "fit.h"
#include "gnuplot.h"
#include "routine.h"

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

/** The files plot_fit_write writes into its directory (for gp_keep and gp_cleanup). */
extern const char *const plot_fit_files[];
#define PLOT_FIT_NFILES 7

/** plot_fit_write: writes the data files and plot.gp (terminal of format
 *  fmt) of the figure of *in into dir. Returns 0, -1 when a file cannot be
 *  written (errno set), or -2 when no kernel has two or more samples in the
 *  fit's range (nothing to draw). */
int plot_fit_write(const char *dir, const plot_input *in, const gp_format *fmt);

#endif
