/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * progress.h - progress reporting for long runs (the sweep): a bar with
 * counts, rate and ETA redrawn in place when stderr is a terminal, plain
 * lines at most every `period` seconds otherwise, nothing when quiet.
 */
#ifndef SYMV_PROGRESS_H
#define SYMV_PROGRESS_H

typedef struct {
  const char *label;  /* e.g. "sweep" */
  long total;         /* work items expected */
  long done;          /* items finished */
  double t0;          /* start, seconds (monotonic) */
  double last;        /* last report, seconds */
  double period;      /* seconds between plain lines */
  int tty;            /* 1: redraw a bar on stderr */
  int quiet;          /* 1: report nothing */
  char note[96];      /* short text shown after the counts */
} symv_progress;

/** symv_progress_start: begins reporting `total` items; tty is detected
 *  with isatty(stderr) unless SYMVTUNE_PROGRESS=plain. */
void symv_progress_start(symv_progress *p, const char *label, long total, int quiet);

/** symv_progress_update: sets done and the note; redraws when due. */
void symv_progress_update(symv_progress *p, long done, const char *note);

/** symv_progress_finish: final line (with the elapsed time). */
void symv_progress_finish(symv_progress *p);

/** symv_progress_eta: seconds left at the average rate so far; -1 if
 *  unknown (nothing done yet). */
double symv_progress_eta(const symv_progress *p, double now);

/** symv_progress_format: writes the report line for time `now` into buf:
 *  "label [#####.....]  123/456 (27%)  4.1/s  ETA 1m21s  note". */
void symv_progress_format(const symv_progress *p, double now, char *buf, int len);

/** symv_now: monotonic clock, seconds. */
double symv_now(void);

#endif
