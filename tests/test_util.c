/* SPDX-License-Identifier: BSD-3-Clause */
/* test_util.c - helpers shared by the tests: running the symvtune program, removing temporary folders. */
#define _GNU_SOURCE /* nftw flags */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <time.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test_util.h"

/* Runs symvtune (built next to the tests) with args; returns its exit status
 * and captures stderr into err. */
/* run_symvtune and run_symvtune_all: out gets the program's standard error,
 * and its standard output too when both is nonzero (else that goes to
 * /dev/null); what does not fit is read and dropped, so that the program
 * never blocks on a full pipe. */
char *test_exe_dir(char *buf, size_t len)
{
  ssize_t k = readlink("/proc/self/exe", buf, len);
  cr_assert(k > 0 && (size_t)k < len, "readlink /proc/self/exe: %s", k < 0 ? strerror(errno) : "too long");
  buf[k] = 0;
  *strrchr(buf, '/') = 0;
  return buf;
}

const char *test_symvtune_path(void)
{
  static char path[4096];
  const char *bin = getenv("SYMVTUNE_BIN");
  if (bin) return bin;
  /* ../src/symvtune from the test program's folder (the build tree), or beside it (a bundle) */
  test_exe_dir(path, sizeof path - 32);
  char *dir_end = path + strlen(path);
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

void test_tmpdir(char *dir, size_t len, const char *name)
{
  cr_assert_lt(snprintf(dir, len, "/tmp/symvtune-test-%s-XXXXXX", name), (int)len, "folder name too long: %s", name);
  cr_assert_not_null(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
}

void test_tmpdir_remove(const char *dir)
{
  if (!getenv("SYMV_TEST_KEEP")) test_rmtree(dir);
}

char *test_path(char *buf, const char *dir, const char *name)
{
  snprintf(buf, 512, "%s/%s", dir, name);
  return buf;
}

void test_fake_worker(void)
{
  char exe[4096], fake[4200];
  snprintf(fake, sizeof fake, "%s/fake_worker", test_exe_dir(exe, sizeof exe));
  cr_assert_eq(access(fake, X_OK), 0, "%s not built", fake);
  setenv("SYMVTUNE_WORKER", fake, 1);
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

void test_skip_without_gpu(const char *why)
{
  const char *req = getenv("SYMV_REQUIRE_GPU");
  if (req && !strcmp(req, "1")) cr_assert_fail("%s, and SYMV_REQUIRE_GPU=1: a GPU test must not skip", why);
  cr_skip_test("%s", why);
}

uint64_t test_fresh_seed(void)
{
  const char *env = getenv("SYMV_TEST_SEED");
  if (env && *env) return strtoull(env, NULL, 10);
  return (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
}

void test_put_file(const char *path, const char *text, int executable)
{
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s: %s", path, strerror(errno));
  fputs(text, f);
  cr_assert_eq(fclose(f), 0, "%s", path);
  if (executable) cr_assert_eq(chmod(path, 0755), 0, "chmod %s: %s", path, strerror(errno));
}

void test_put_standin_nvcc(const char *path, long lib_bytes)
{
  char text[512];
  snprintf(text, sizeof text,
           "#!/bin/sh\nulimit -f unlimited 2>/dev/null\nout=\n"
           "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
           "case $out in *.so.tmp) head -c %ld /dev/zero >\"$out\" ;; *) echo object >\"$out\" ;; esac\n",
           lib_bytes);
  test_put_file(path, text, 1);
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

/* ---- A strict JSON reader (RFC 8259), for checking documents ------------------ */

typedef struct {
  const char *p, *end;
  int depth;
  const char *why;
} json_in;

static void jws(json_in *j)
{
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static int jfail(json_in *j, const char *why)
{
  if (!j->why) j->why = why;
  return -1;
}

static int jvalue(json_in *j);

static int jlit(json_in *j, const char *lit)
{
  const size_t n = strlen(lit);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n)) return jfail(j, "unknown literal");
  j->p += n;
  return 0;
}

static int jstring(json_in *j)
{
  if (j->p >= j->end || *j->p != '"') return jfail(j, "a string expected");
  for (j->p++; j->p < j->end; j->p++) {
    const unsigned char c = (unsigned char)*j->p;
    if (c == '"') {
      j->p++;
      return 0;
    }
    if (c < 0x20) return jfail(j, "a control character in a string");
    if (c != '\\') continue;
    if (++j->p >= j->end) break;
    if (*j->p == 'u') {
      for (int k = 0; k < 4; k++)
        if (++j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p) || !*j->p) return jfail(j, "a bad \\u escape");
    } else if (!strchr("\"\\/bfnrt", *j->p) || !*j->p) {
      return jfail(j, "a bad escape");
    }
  }
  return jfail(j, "an unterminated string");
}

static int jdigits(json_in *j)
{
  const char *s = j->p;
  while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
  return j->p > s ? 0 : jfail(j, "digits expected");
}

static int jnumber(json_in *j)
{
  if (j->p < j->end && *j->p == '-') j->p++;
  if (j->p < j->end && *j->p == '0') j->p++;
  else if (jdigits(j)) return -1;
  if (j->p < j->end && *j->p == '.') {
    j->p++;
    if (jdigits(j)) return -1;
  }
  if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
    j->p++;
    if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
    if (jdigits(j)) return -1;
  }
  return 0;
}

/* An object or an array, j->p at its opening bracket. */
static int jcompound(json_in *j, char close)
{
  if (++j->depth > 200) return jfail(j, "nested too deep");
  j->p++;
  jws(j);
  if (j->p < j->end && *j->p == close) {
    j->p++, j->depth--;
    return 0;
  }
  for (;;) {
    if (close == '}') {
      jws(j);
      if (jstring(j)) return -1;
      jws(j);
      if (j->p >= j->end || *j->p != ':') return jfail(j, "':' expected");
      j->p++;
    }
    if (jvalue(j)) return -1;
    jws(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    if (j->p < j->end && *j->p == close) {
      j->p++, j->depth--;
      return 0;
    }
    return jfail(j, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
  }
}

static int jvalue(json_in *j)
{
  jws(j);
  if (j->p >= j->end) return jfail(j, "a value expected, end of text");
  switch (*j->p) {
  case '{': return jcompound(j, '}');
  case '[': return jcompound(j, ']');
  case '"': return jstring(j);
  case 't': return jlit(j, "true");
  case 'f': return jlit(j, "false");
  case 'n': return jlit(j, "null");
  default:
    if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) return jnumber(j);
    return jfail(j, "a value expected");
  }
}

int test_json_check(const char *text, size_t len, char *why, size_t whylen)
{
  json_in j = {text, text + len, 0, NULL};
  if (!jvalue(&j)) {
    jws(&j);
    if (j.p == j.end) return 0;
    jfail(&j, "text after the document");
  }
  const size_t at = (size_t)(j.p - text);
  size_t line = 1;
  for (size_t i = 0; i < at && i < len; i++) line += text[i] == '\n';
  snprintf(why, whylen, "%s at byte %zu (line %zu)", j.why, at, line);
  return -1;
}

int test_sh(const char *cmd, const char *log, char **text)
{
  char full[8192];
  snprintf(full, sizeof full, "(%s) > '%s' 2>&1", cmd, log);
  const int rc = system(full);
  long len = 0;
  *text = (char *)test_slurp(log, &len);
  if (!*text) *text = strdup("");
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}
