/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * jobs.h - runs compiler processes in parallel: each job is a command line
 * (argv[0] an executable path, run with execv, no shell), its stdout and
 * stderr into a log file, run in a given folder that is also its TMPDIR.
 *
 * A job starts zeroed ({0}); libgen_job_arg and libgen_job_words add words,
 * the caller fills log (the log file's path) and what (a note for progress
 * and messages, e.g. "compiling kernel NAME"), and libgen_job_free releases
 * the words. Adding a word when memory runs out sets `failed`; such a job
 * fails to start with ENOMEM.
 */
#ifndef SYMV_LIBGEN_JOBS_H
#define SYMV_LIBGEN_JOBS_H

#include <limits.h>
#include <sys/types.h>
#include "progress.h"

/* One compiler run. */
typedef struct {
  char **argv;        /* NULL-terminated, words strdup'ed */
  int argc, cap;
  int failed;         /* out of memory while adding words */
  char log[PATH_MAX + 128];
  char what[96];
  pid_t pid;
} libgen_job;

/* libgen_job_arg: appends the word w (copied) to j's command line. */
void libgen_job_arg(libgen_job *j, const char *w);

/* libgen_job_words: appends each space-separated word of s. */
void libgen_job_words(libgen_job *j, const char *s);

/* libgen_job_free: frees j's words (j itself is the caller's). */
void libgen_job_free(libgen_job *j);

/*
 * libgen_run_jobs: runs jobs[0..n) in the folder dir (their working folder
 * and TMPDIR: nvcc runs its stages through a shell, so every path it then
 * names lies in dir, whose name must be shell-safe), at most par at once,
 * waiting only for its own children, oldest first. Each job that exits 0
 * advances prog by one, its `what` the note. At the first failure no more
 * jobs start, those running are waited for, and the failed job's command
 * line and the first 60 lines of its log go to stderr ("symvtune build:
 * WHAT failed (exit status N); command: ..."); a job that cannot start is
 * reported likewise ("cannot start WHAT: REASON"). Returns 0 if every job
 * succeeded, else -1.
 */
int libgen_run_jobs(libgen_job *jobs, int n, int par, const char *dir, symv_progress *prog);

#endif
