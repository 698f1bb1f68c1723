/* SPDX-License-Identifier: BSD-3-Clause */
/* progress.c - progress bar and ETA (progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "progress.h"

double symv_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void symv_progress_start(symv_progress *p, const char *label, long total, int quiet)
{
  memset(p, 0, sizeof *p);
  const char *mode = getenv("SYMVTUNE_PROGRESS");
  p->label = label;
  p->total = total;
  p->t0 = p->last = symv_now();
  p->quiet = quiet;
  p->tty = isatty(STDERR_FILENO) && !(mode && !strcmp(mode, "plain"));
  p->period = p->tty ? 0.2 : 10.0;
}

double symv_progress_eta(const symv_progress *p, double now)
{
  if (p->done <= 0 || now <= p->t0) return -1;
  double rate = p->done / (now - p->t0);
  return (p->total - p->done) / rate;
}

static void fmt_secs(char *buf, int len, double s)
{
  if (s < 0) snprintf(buf, len, "?");
  else if (s < 60) snprintf(buf, len, "%.0fs", s);
  else if (s < 3600) snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
  else snprintf(buf, len, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
}

void symv_progress_format(const symv_progress *p, double now, char *buf, int len)
{
  enum { W = 24 };
  char bar[W + 1], eta[16];
  long total = p->total > 0 ? p->total : 1;
  int fill = (int)(W * (double)p->done / total);
  if (fill > W) fill = W;
  for (int i = 0; i < W; i++) bar[i] = i < fill ? '#' : '.';
  bar[W] = 0;
  fmt_secs(eta, sizeof eta, symv_progress_eta(p, now));
  double el = now - p->t0, rate = el > 0 ? p->done / el : 0;
  snprintf(buf, len, "%s [%s] %ld/%ld (%.0f%%) %.1f/s ETA %s %s", p->label, bar, p->done, p->total,
           100.0 * p->done / total, rate, eta, p->note);
}

void symv_progress_update(symv_progress *p, long done, const char *note)
{
  p->done = done;
  if (note) snprintf(p->note, sizeof p->note, "%s", note);
  if (p->quiet) return;
  double now = symv_now();
  if (now - p->last < p->period && done < p->total) return;
  p->last = now;
  char line[256];
  symv_progress_format(p, now, line, sizeof line);
  if (p->tty) fprintf(stderr, "\r%-110.110s", line);
  else fprintf(stderr, "%s\n", line);
  fflush(stderr);
}

void symv_progress_finish(symv_progress *p)
{
  if (p->quiet) return;
  char el[16];
  fmt_secs(el, sizeof el, symv_now() - p->t0);
  if (p->tty) fputc('\n', stderr);
  fprintf(stderr, "%s: %ld/%ld done in %s\n", p->label, p->done, p->total, el);
}
