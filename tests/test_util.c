/* SPDX-License-Identifier: BSD-3-Clause */
/* test_util.c - helpers shared by the tests: running the symvtune program, removing temporary folders. */
#define _GNU_SOURCE /* nftw flags */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <fcntl.h>
#include <math.h>
#include <time.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test_util.h"

/* Runs symvtune (built next to the tests) with args; returns its exit status
 * and captures stderr into err. */
/* run_symvtune and run_symvtune_all: out gets the program's standard error,
 * and its standard output too when both is nonzero (else that goes to
 * /dev/null); what does not fit is read and dropped, so that the program
 * never blocks on a full pipe. */
const char *test_symvtune_path(void)
{
  static char path[4096];
  const char *bin = getenv("SYMVTUNE_BIN");
  if (bin) return bin;
  /* ../src/symvtune from the test program's folder (the build tree), or beside it (a bundle) */
  ssize_t k = readlink("/proc/self/exe", path, sizeof path - 32);
  cr_assert(k > 0);
  path[k] = 0;
  char *dir_end = strrchr(path, '/');
  strcpy(dir_end, "/../src/symvtune");
  if (access(path, X_OK)) strcpy(dir_end, "/symvtune");
  return path;
}

static int run_symvtune_into(char *out, size_t len, char *const args[], int both)
{
  const char *bin = test_symvtune_path();
  int pipefd[2];
  cr_assert_eq(pipe(pipefd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], 2);
    if (both) {
      dup2(pipefd[1], 1);
    } else {
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
    }
    close(pipefd[0]);
    execv(bin, args);
    _exit(126);
  }
  close(pipefd[1]);
  size_t n = 0;
  ssize_t k;
  while (n < len - 1 && (k = read(pipefd[0], out + n, len - 1 - n)) > 0) n += (size_t)k;
  out[n] = 0;
  char drain[4096];
  while (read(pipefd[0], drain, sizeof drain) > 0) {}
  close(pipefd[0]);
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int run_symvtune(char *err, size_t errlen, char *const args[]) { return run_symvtune_into(err, errlen, args, 0); }

int run_symvtune_all(char *out, size_t len, char *const args[]) { return run_symvtune_into(out, len, args, 1); }


static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
  (void)sb, (void)flag, (void)f;
  return remove(p);
}

void test_rmtree(const char *dir)
{
  if (dir && *dir) nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

uint64_t test_rng_next(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double test_rng_unit(uint64_t *x) { return (test_rng_next(x) >> 11) * 0x1.0p-53; }

int test_rng_int(uint64_t *x, int lo, int hi) { return lo + (int)(test_rng_next(x) % (uint64_t)(hi - lo + 1)); }

double test_rng_normal(uint64_t *x)
{
  double u = test_rng_unit(x), v = test_rng_unit(x);
  return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

uint64_t test_fresh_seed(void)
{
  const char *env = getenv("SYMV_TEST_SEED");
  if (env && *env) return strtoull(env, NULL, 10);
  return (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
}

unsigned char *test_slurp(const char *path, long *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *buf = NULL;
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
      fread(buf, 1, (size_t)n, f) == (size_t)n) {
    buf[n] = 0;
    if (len) *len = n;
  } else {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

int test_run_in_process(int (*run)(int, char **), int argc, char **argv, const char *dir, char **out, char **err)
{
  char po[4200], pe[4200];
  const int together = out && out == err;
  snprintf(po, sizeof po, "%s/cmd-out.txt", dir);
  snprintf(pe, sizeof pe, "%s/cmd-err.txt", dir);
  fflush(stdout), fflush(stderr);
  int fo = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int fe = together ? dup(fo) : open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  cr_assert(fo >= 0 && fe >= 0);
  int o1 = dup(1), o2 = dup(2);
  dup2(fo, 1), dup2(fe, 2), close(fo), close(fe);
  int st = run(argc, argv);
  fflush(stdout), fflush(stderr);
  dup2(o1, 1), dup2(o2, 2), close(o1), close(o2);
  if (out) {
    *out = (char *)test_slurp(po, NULL);
    if (!*out) *out = strdup("");
  }
  if (err && !together) {
    *err = (char *)test_slurp(pe, NULL);
    if (!*err) *err = strdup("");
  }
  return st;
}

long long test_sql_int(const char *path, const char *sql)
{
  sqlite3 *s;
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  cr_assert_eq(sqlite3_prepare_v2(s, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(s));
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
  long long v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(s);
  return v;
}

void test_sql_exec(const char *path, const char *sql)
{
  sqlite3 *s;
  char *err = NULL;
  cr_assert_eq(sqlite3_open(path, &s), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(s, sql, NULL, NULL, &err), SQLITE_OK, "%s", err ? err : "");
  sqlite3_close(s);
}
