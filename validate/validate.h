/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * validate.h - the validation stage: what the latest fit's rules of a
 * routine cost at sizes no stage sampled.
 *
 * Inputs: a database holding a fit (`symvtune fit`) and its dense samples;
 * the rule set judged (any or deterministic); sizes (a list, or a count
 * drawn log-uniform over the fit's range with a seed, none of them a dense
 * sample). Measuring (VALIDATE_MEASURE, GPU): at each size the kernel the
 * rules choose and every kernel the fit chose from (its dense champions and
 * the cuBLAS modes of its class) are timed by the sweep's worker in
 * `rounds` rounds of different order, each time the least of its rounds'
 * medians, and libsymv's own call too when libpath names a library. The
 * regret at a size is the chosen kernel's time over the least time there.
 * Output: per size the chosen kernel, the fastest, the regret and the
 * fit's prediction error on stdout, then the regret's median, 90th
 * percentile and maximum, and for a run of the any rules the latest
 * deterministic rules' speed against them at the run's sizes in
 * VALIDATE_DET_LO..VALIDATE_DET_HI; the run stored (tables validation_run,
 * validation_time), except a run of uplo U judged by L's rules (the tables
 * name the fit, not the triangle). VALIDATE_STORED prints the latest stored
 * run of the latest fit; VALIDATE_REPLAY judges the latest fit's rules by
 * the times of the latest run stored for the routine (no GPU either).
 *
 * Errors: the function returns an exit status: VALIDATE_OK,
 * VALIDATE_NO_GPU (measuring without a GPU), VALIDATE_ERROR (no fit, no
 * stored run, a damaged fit, the worker lost, a foreign GPU, out of
 * memory), each after a message on stderr.
 */
#ifndef SYMV_VALIDATE_H
#define SYMV_VALIDATE_H
#include <stddef.h>
#include "../db/db.h"
#include "fit.h"
#include "routine.h"

/** Exit statuses of validate_run: those of the command (cli.h). */
enum { VALIDATE_OK = 0, VALIDATE_NO_GPU = 3, VALIDATE_ERROR = 4 };

#define VALIDATE_MAX_SIZES 256    /* sizes of one run at most */
#define VALIDATE_DEFAULT_SIZES 50 /* sizes drawn when none are given */
#define VALIDATE_DET_LO 500       /* a run of the any rules also judges the deterministic rules' */
#define VALIDATE_DET_HI 4096      /* speed against theirs over n in LO..HI (issue targets' range) */

/** What a run judges and how. */
typedef enum {
  VALIDATE_MEASURE, /* time the kernels now (GPU), store the run */
  VALIDATE_STORED,  /* print the latest stored run of the latest fit */
  VALIDATE_REPLAY   /* judge the latest fit's rules by the latest stored run's times */
} validate_mode;

typedef struct {
  validate_mode mode;
  symv_routine routine;
  char uplo;                /* 'L' or 'U': the triangle timed */
  int deterministic;        /* 1: the deterministic rule set, 0: the any set */
  int *ns, nsizes;          /* the sizes given (sorted ascending in place), or nsizes 0: draw `want` */
  int want;                 /* sizes to draw, 1..VALIDATE_MAX_SIZES */
  unsigned long long seed;  /* of the drawn sizes */
  int rounds;               /* 1..10 */
  int device;               /* CUDA device */
  double timeout_s;         /* seconds a kernel may run without answering */
  int allow_foreign;        /* accept a database of another GPU */
  const char *libpath;      /* "" or libsymv's real path (--lib), timed beside the kernels */
  const char *dbpath;       /* the database's path, for the "stored as" line */
} validate_opts;

/** What a successful run judged, for a figure of it. */
typedef struct {
  db_fit fit;                /* the fit judged */
  db_rule *rules;            /* its rules (of the set judged) */
  size_t nrules;
  db_fit_curve *curves;
  size_t ncurves;
  fit_set all, view;         /* the fit's curves; view: the deterministic ones */
  const fit_set *s;          /* &all, or &view for the deterministic set */
  db_validation_time *vt;    /* the run's times, sorted by n */
  size_t nvt;
  char title[300];           /* what was judged, with the regret's summary */
} validate_result;

/** validate_run: the stage, as the header says, on database d (opened
 *  writable for VALIDATE_MEASURE). *r is filled when it returns
 *  VALIDATE_OK; free it with validate_result_free in every case. */
int validate_run(db *d, const validate_opts *o, validate_result *r);

/** validate_result_free: frees what validate_run put in r. */
void validate_result_free(validate_result *r);

/** validate_draw: draws the regret over n of run r into the file out, in
 *  format fmt (gnuplot.h): the measured regret at each size, coloured by
 *  the chosen kernel's family; the regret the fit's curves predict for the
 *  rules, between the sizes; the targets 1.005 and 1.05; the rules'
 *  boundaries; r->title as the title. 0, or -1 after a message (gnuplot
 *  missing or failing, a file that cannot be written). */
struct gp_format;
int validate_draw(const char *out, const struct gp_format *fmt, const validate_result *r);

/** validate_rule_of: the rule of rules[0..nrules) (nrules > 0) whose interval holds n
 *  (the first below the range, the last above it). */
const db_rule *validate_rule_of(const db_rule *rules, size_t nrules, int n);

/** validate_predicted: the time of curve k of s at n (microseconds) as fitted,
 *  NaN where it has none. */
double validate_predicted(const fit_set *s, int k, int n);

#endif
