/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * jobs.c - the parallel runner of the compiler's processes (jobs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "jobs.h"

/* Appends the word w. */
void libgen_job_arg(libgen_job *j, const char *w)
{
  if (j->argc + 2 > j->cap) {
    int cap = j->cap ? 2 * j->cap : 32;
    char **a = realloc(j->argv, (size_t)cap * sizeof *a);
    if (!a) {
      j->failed = 1;
      return;
    }
    j->argv = a, j->cap = cap;
  }
  if (!(j->argv[j->argc] = strdup(w))) {
    j->failed = 1;
    return;
  }
  j->argv[++j->argc] = NULL;
}

/* Adds each space-separated word of s. */
void libgen_job_words(libgen_job *j, const char *s)
{
  char *buf = strdup(s);
  if (!buf) {
    j->failed = 1;
    return;
  }
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) libgen_job_arg(j, tok);
  free(buf);
}

/* Frees the words. */
void libgen_job_free(libgen_job *j)
{
  for (int i = 0; i < j->argc; i++) free(j->argv[i]);
  free(j->argv);
}

/* Starts job j in the folder dir (its working folder and nvcc's TMPDIR:
 * nvcc runs its stages through a shell, and every path it then names,
 * its temporary files' included, lies in dir, whose name is shell-safe). */
static int job_start(libgen_job *j, const char *dir)
{
  if (j->failed || !j->argv) {
    errno = ENOMEM;
    return -1;
  }
  fflush(NULL);
  j->pid = fork();
  if (j->pid < 0) return -1;
  if (j->pid == 0) {
    if (chdir(dir) || setenv("TMPDIR", dir, 1)) {
      fprintf(stderr, "cannot enter %s: %s\n", dir, strerror(errno));
      _exit(127);
    }
    int fd = open(j->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execv(j->argv[0], j->argv);
    fprintf(stderr, "cannot run %s: %s\n", j->argv[0], strerror(errno));
    _exit(127);
  }
  return 0;
}

/* Prints the end of a failed job's log. */
static void job_report(const libgen_job *j, int status)
{
  fprintf(stderr, "symvtune build: %s failed (%s %d); command:\n ", j->what,
          WIFEXITED(status) ? "exit status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  for (int i = 0; i < j->argc; i++) fprintf(stderr, " %s", j->argv[i]);
  fprintf(stderr, "\n--- %s ---\n", j->log);
  FILE *f = fopen(j->log, "r");
  if (f) {
    char line[1024];
    int shown = 0;
    while (fgets(line, sizeof line, f) && shown++ < 60) fputs(line, stderr);
    fclose(f);
  }
}

/* Runs the jobs in dir, at most par at once, waiting only for its own
 * children (oldest first); each job that succeeds advances prog, its
 * `what` the note. 0 if all succeeded. */
int libgen_run_jobs(libgen_job *jobs, int n, int par, const char *dir, symv_progress *prog)
{
  int next = 0, oldest = 0, failed = 0;
  while (oldest < next || (!failed && next < n)) {
    while (!failed && next - oldest < par && next < n) {
      if (job_start(&jobs[next], dir)) {
        fprintf(stderr, "symvtune build: cannot start %s: %s\n", jobs[next].what, strerror(errno));
        failed = 1;
        break;
      }
      next++;
    }
    if (oldest == next) break;
    int status;
    if (waitpid(jobs[oldest].pid, &status, 0) < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "symvtune build: waitpid: %s\n", strerror(errno));
      failed = 1;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      job_report(&jobs[oldest], status);
      failed = 1;
    } else {
      symv_progress_update(prog, prog->done + 1, jobs[oldest].what);
    }
    jobs[oldest++].pid = 0;
  }
  return failed ? -1 : 0;
}
