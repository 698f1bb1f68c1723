/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libsymv_fixture.h - what tests/test_build.c and tests/test_libsymv.c
 * share: a copy of the real sweep database (DSYMV of tests/data/sweep6-h200.db.xz) with a
 * fit stored through the db API, `symvtune build` run in-process on it with
 * its output captured, and temporary folders.
 *
 * The fixture's rules use real candidates of the database, found by family
 * (the file may be replaced by a newer sweep): two atomic_red candidates
 * that share one kernel (they differ in MULTIPLICITY), one atomic (mutex)
 * and one L+U candidate, and both cuBLAS modes:
 *
 *   rule  n            kernel
 *   0     32..300      atomic_red, MULTIPLICITY m1
 *   1     301..700     cuBLAS, atomics off
 *   2     701..1500    atomic_red, same code, MULTIPLICITY m2
 *   3     1501..2500   atomic
 *   4     2501..3200   cuBLAS, atomics on
 *   5     3201..4000   lu (also every n > 4000)
 */
#ifndef SYMV_LIBSYMV_FIXTURE_H
#define SYMV_LIBSYMV_FIXTURE_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <sqlite3.h>
#include "../db/db.h"
#include "cli.h"
#include "symv_error.h"
#include "test_util.h"

#ifndef SYMV_TEST_DATA
#error "SYMV_TEST_DATA (the tests/data folder) must be defined"
#endif
#ifndef SYMV_TEST_NVCC
#define SYMV_TEST_NVCC ""
#endif

extern const symv_command cmd_build_entry, cmd_fit_entry;

/* The compiled-in paths, unless the environment says otherwise (a test
 * program carried to another machine: SYMV_TEST_DATA, SYMV_TEST_SRCDIR,
 * SYMV_TEST_NVCC). */
static const char *fix_env(const char *name, const char *dflt)
{
  const char *v = getenv(name);
  return v && *v ? v : dflt;
}
#define FIX_DATA fix_env("SYMV_TEST_DATA", SYMV_TEST_DATA)
#define FIX_NVCC fix_env("SYMV_TEST_NVCC", SYMV_TEST_NVCC)

/* The real sweep database of the fixture, its path in buf (512 bytes):
 * DSYMV of the shipped H200 sweep (tests/data/sweep6-h200.db.xz), its
 * candidates, timings and baselines, without fits, validation or bench
 * runs, and without the other routines. Made once per build tree, beside
 * the test program, from a copy of its own renamed into place, so that
 * test programs running at the same time each find a whole file. */
static const char *fix_sweep_db(char *buf)
{
  char exe[400];
  snprintf(buf, 512, "%s/fixture-dsymv-h200.db", test_exe_dir(exe, sizeof exe));
  if (access(buf, R_OK) == 0) return buf;
  char tmp[560], cmd[1400];
  snprintf(tmp, sizeof tmp, "%s.%ld", buf, (long)getpid());
  snprintf(cmd, sizeof cmd, "xz -dc '%s/sweep6-h200.db.xz' > '%s'", FIX_DATA, tmp);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  sqlite3 *s;
  cr_assert_eq(sqlite3_open(tmp, &s), SQLITE_OK, "%s", tmp);
  char *msg = NULL;
  int rc = sqlite3_exec(s,
                        "PRAGMA foreign_keys = ON; BEGIN; DELETE FROM bench_run; DELETE FROM validation_run; "
                        "DELETE FROM fit; DELETE FROM candidate WHERE routine <> 'dsymv'; "
                        "DELETE FROM baseline WHERE routine <> 'dsymv'; COMMIT; VACUUM; "
                        "PRAGMA journal_mode = DELETE",
                        NULL, NULL, &msg);
  cr_assert_eq(rc, SQLITE_OK, "making %s: %s", tmp, msg ? msg : "");
  cr_assert_eq(sqlite3_close(s), SQLITE_OK);
  cr_assert_eq(rename(tmp, buf), 0, "rename %s: %s", tmp, strerror(errno));
  return buf;
}

#define FIX_LO 32
#define FIX_HI 4000
#define FIX_NRULES 6

/* The fixture's rules; kernel DB_KERNEL_* and, for candidates, which one. */
typedef struct {
  int n_start, n_end;
  const char *kernel;
  int cand; /* index into the chosen candidates: 0 red least M, 1 red most M (one code), 2 atomic, 3 lu; -1 none */
} fix_rule;

static const fix_rule fix_rules[FIX_NRULES] = {
  {32, 300, DB_KERNEL_CANDIDATE, 0},      {301, 700, DB_KERNEL_CUBLAS, -1},
  {701, 1500, DB_KERNEL_CANDIDATE, 1},    {1501, 2500, DB_KERNEL_CANDIDATE, 2},
  {2501, 3200, DB_KERNEL_CUBLAS_ATOMICS, -1}, {3201, 4000, DB_KERNEL_CANDIDATE, 3},
};

/* The fixture's deterministic rules (for handles in cuBLAS's default
 * atomics mode): lu (candidate 3) up to 1500, cuBLAS without atomics above. */
#define FIX_NDET 2
static const fix_rule fix_det_rules[FIX_NDET] = {
  {32, 1500, DB_KERNEL_CANDIDATE, 3}, {1501, 4000, DB_KERNEL_CUBLAS, -1},
};

#define fix_rmtree test_rmtree
#define fix_sh test_sh /* runs a shell command, output into a log and a string */

/* Copies src to dst (mode 0644). 0 or -1. */
static int fix_copy(const char *src, const char *dst)
{
  FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
  char buf[1 << 16];
  size_t n;
  int ok = in && out;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
  if (in) fclose(in);
  if (out && fclose(out)) ok = 0;
  return ok ? 0 : -1;
}

/* The whole text of a file (malloc'ed), or NULL. */
static char *fix_slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0, n;
  char *s = malloc(cap);
  while (s && (n = fread(s + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (len + 1 == cap) {
      char *t = realloc(s, cap *= 2);
      if (!t) free(s);
      s = t;
    }
  }
  fclose(f);
  if (s) s[len] = 0;
  return s;
}


/* Picks the fixture's candidates from the database: c[0], c[1] two valid
 * atomic_red of one code (the first code with two) with the least and the
 * most MULTIPLICITY, c[2] a valid atomic, c[3] a valid lu. M far apart
 * (1 and 8 in the default space) need different shared-memory carveouts
 * (8 and 16 KB for the smallest atomic_red), and the library must give
 * their one kernel a carveout that holds both. 0, or -1 with why in err. */
static int fix_pick(db *d, db_candidate c[4], char *err, size_t errlen)
{
  db_candidate *list = NULL;
  size_t n = 0;
  int found = 0;
  if (db_list_candidates(d, SYMV_DSYMV, DB_VALID, SYMV_FAMILY_ATOMIC_RED, &list, &n) == 0) {
    for (size_t i = 0; i < n && !found; i++) {
      size_t lo = i, hi = i;
      for (size_t j = 0; j < n; j++)
        if (symv_params_same_code(&list[i].p, &list[j].p)) {
          if (list[j].p.multiplicity < list[lo].p.multiplicity) lo = j;
          if (list[j].p.multiplicity > list[hi].p.multiplicity) hi = j;
        }
      if (lo != hi) c[0] = list[lo], c[1] = list[hi], found = 1;
    }
  }
  free(list);
  if (!found) return snprintf(err, errlen, "no two atomic_red candidates of one code"), -1;
  static const symv_family fam[2] = {SYMV_FAMILY_ATOMIC, SYMV_FAMILY_LU};
  for (int f = 0; f < 2; f++) {
    list = NULL, n = 0;
    if (db_list_candidates(d, SYMV_DSYMV, DB_VALID, fam[f], &list, &n) || n == 0) {
      free(list);
      return snprintf(err, errlen, "no valid %s candidate: %s", symv_family_name(fam[f]), db_errmsg(d)), -1;
    }
    c[2 + f] = list[n / 2]; /* one from the middle of the space */
    free(list);
  }
  return 0;
}

/* Copies the real database to dbpath, migrates it (writable open) and stores
 * a fit of `nrules` rules (fix_rules if NULL) over lo..hi. If cands is
 * non-NULL it gets the four candidates used. 0, or -1 with why in err. */
static int fix_make_db(const char *dbpath, const fix_rule *rules, int nrules, int lo, int hi, db_candidate *cands,
                       char *err, size_t errlen)
{
  char src[512];
  if (fix_copy(fix_sweep_db(src), dbpath)) return snprintf(err, errlen, "cannot copy %.200s to %.200s", src, dbpath), -1;
  chmod(dbpath, 0644);
  db *d = NULL;
  int rc = db_open(&d, dbpath, 0);
  if (rc) {
    snprintf(err, errlen, "db_open %.200s: %s: %.200s", dbpath, symv_errname(rc), d ? db_errmsg(d) : "");
    db_close(d);
    return -1;
  }
  db_candidate c[4];
  if (fix_pick(d, c, err, errlen)) {
    db_close(d);
    return -1;
  }
  const int with_det = !rules; /* the default fixture has deterministic rules too */
  if (!rules) rules = fix_rules, nrules = FIX_NRULES, lo = FIX_LO, hi = FIX_HI;
  db_rule r[32];
  memset(r, 0, sizeof r);
  for (int i = 0; i < nrules && i < 32; i++) {
    r[i].n_start = rules[i].n_start, r[i].n_end = rules[i].n_end;
    snprintf(r[i].kernel, sizeof r[i].kernel, "%s", rules[i].kernel);
    if (rules[i].cand >= 0) r[i].cand = c[rules[i].cand];
    r[i].predicted_us = 10.0 + i, r[i].predicted_gain = 1.25;
  }
  db_fit fit = {.routine = SYMV_DSYMV, .uplo = 'L', .hot = 0, .lo = lo, .hi = hi, .threshold = 0.01};
  snprintf(fit.method, sizeof fit.method, "test fixture (tests/libsymv_fixture.h)");
  rc = db_put_fit(d, &fit, NULL, 0, r, (size_t)nrules);
  if (!rc && with_det) {
    memset(r, 0, sizeof r);
    for (int i = 0; i < FIX_NDET; i++) {
      r[i].n_start = fix_det_rules[i].n_start, r[i].n_end = fix_det_rules[i].n_end;
      snprintf(r[i].kernel, sizeof r[i].kernel, "%s", fix_det_rules[i].kernel);
      if (fix_det_rules[i].cand >= 0) r[i].cand = c[fix_det_rules[i].cand];
      r[i].predicted_us = 20.0 + i, r[i].predicted_gain = 1.125;
    }
    db_fit det = fit;
    det.deterministic = 1;
    rc = db_put_fit(d, &det, NULL, 0, r, FIX_NDET);
  }
  if (rc) snprintf(err, errlen, "db_put_fit: %s: %s", symv_errname(rc), db_errmsg(d));
  if (cands) memcpy(cands, c, sizeof c);
  db_close(d);
  return rc ? -1 : 0;
}

/* Runs the CLI command cmd with av[0..ac) in this process, its stdout and
 * stderr appended to `log`. Returns its exit status. */
static inline int fix_run_cli(const symv_command *cmd, const char *log, char **av, int ac)
{
  fflush(stdout), fflush(stderr);
  int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644), o1 = dup(1), o2 = dup(2);
  if (fd >= 0) dup2(fd, 1), dup2(fd, 2), close(fd);
  int status = cmd->run(ac, av);
  fflush(stdout), fflush(stderr);
  dup2(o1, 1), dup2(o2, 2), close(o1), close(o2);
  return status;
}

/* Runs `symvtune build ARGS...` in this process with stdout and stderr sent
 * to `log` (appended). Returns its exit status. */
static int fix_build(const char *log, const char *const *args, int nargs)
{
  char *av[32];
  int ac = 0;
  av[ac++] = (char *)"build";
  for (int i = 0; i < nargs && ac < 31; i++) av[ac++] = (char *)args[i];
  av[ac] = NULL;
  return fix_run_cli(&cmd_build_entry, log, av, ac);
}

/* Nonzero if path exists. */
static int fix_exists(const char *path) { return access(path, F_OK) == 0; }

/* ---- A library tree built once per test program ---------------------------
 * (tests/test_install.c, tests/test_doctor.c): the shipped sweep, fitted,
 * built with nvcc into a temporary folder that a Criterion PRE_ALL hook
 * makes and names in an environment variable for the tests. */

/* The environment variable that names the folder of the CUDA toolkit's
 * pkg-config modules which the tree's libsymv.pc requires. */
#define FIX_CUDA_PC "SYMV_TEST_CUDA_PC"

/* Gives pkg-config the CUDA toolkit's modules that DIR/prefix's libsymv.pc
 * requires (cublas-V and cudart-V, V its cudaversion), as a site's
 * environment does: their folder is named in $SYMV_TEST_CUDA_PC and put
 * first on PKG_CONFIG_LIBDIR, before pkg-config's default path, so that a
 * PKG_CONFIG_PATH naming only libsymv's folder finds them too. The folder
 * is the toolkit's own pkgconfig where it holds them, else DIR/cuda-pc,
 * where stand-ins of the toolkit's files are written (its lib64 and
 * include, the toolkit root being FIX_NVCC's bin folder's parent). Nothing
 * if the .pc requires no module. */
static inline void fix_tree_cuda_pc(const char *dir)
{
  char p[800], root[600], pcdir[700], path[4096] = "";
  snprintf(p, sizeof p, "%s/prefix/lib/pkgconfig/libsymv.pc", dir);
  char *pc = fix_slurp(p), *v = pc ? strstr(pc, "\ncudaversion=") : NULL, ver[32];
  if (!v || sscanf(v, "\ncudaversion=%31[0-9.]", ver) != 1) {
    free(pc);
    return;
  }
  free(pc);
  snprintf(root, sizeof root, "%s", FIX_NVCC);
  for (int i = 0; i < 2 && strrchr(root, '/'); i++) *strrchr(root, '/') = 0;
  snprintf(pcdir, sizeof pcdir, "%s/pkgconfig", root);
  snprintf(p, sizeof p, "%s/cublas-%s.pc", pcdir, ver);
  if (!fix_exists(p)) {
    snprintf(pcdir, sizeof pcdir, "%s/cuda-pc", dir);
    mkdir(pcdir, 0755);
    static const char *const mods[] = {"cublas", "cudart"};
    for (int i = 0; i < 2; i++) {
      snprintf(p, sizeof p, "%s/%s-%s.pc", pcdir, mods[i], ver);
      FILE *f = fopen(p, "w");
      if (!f) return;
      fprintf(f, "cudaroot=%s\nlibdir=${cudaroot}/lib64\nincludedir=${cudaroot}/include\n\nName: %s\n"
                 "Description: stand-in of the CUDA toolkit's module\nVersion: %s\nLibs: -L${libdir} -l%s\n"
                 "Cflags: -I${includedir}\n", root, mods[i], ver, mods[i]);
      fclose(f);
    }
  }
  setenv(FIX_CUDA_PC, pcdir, 1);
  FILE *dflt = popen("pkg-config --variable pc_path pkg-config", "r");
  char *nl, *got = dflt ? fgets(path, sizeof path, dflt) : NULL;
  if (dflt) pclose(dflt);
  if (got && (nl = strchr(path, '\n'))) *nl = 0;
  char libdir[4800];
  snprintf(libdir, sizeof libdir, "%s%s%s", pcdir, *path ? ":" : "", path);
  setenv("PKG_CONFIG_LIBDIR", libdir, 1);
}

/* Makes a folder DIR from the mkdtemp template `template`, names it in
 * $env and, where nvcc is, fits a copy of the shipped sweep there
 * (DIR/sweep.db) and builds it into DIR/prefix, both commands' output in
 * DIR/build.log, and gives pkg-config the CUDA modules it requires
 * (fix_tree_cuda_pc). Nothing is reported: the tests find what is missing
 * (fix_tree_need). For a Criterion PRE_ALL hook. */
static inline void fix_tree_make(const char *template, const char *env)
{
  char dir[256];
  snprintf(dir, sizeof dir, "%s", template);
  if (!mkdtemp(dir)) return;
  setenv(env, dir, 1);
  if (!*FIX_NVCC || access(FIX_NVCC, X_OK)) return; /* the tests that need it skip */
  char db[512], src[512], log[512], out[512];
  snprintf(db, sizeof db, "%s/sweep.db", dir);
  snprintf(log, sizeof log, "%s/build.log", dir);
  snprintf(out, sizeof out, "%s/prefix", dir);
  if (fix_copy(fix_sweep_db(src), db)) return;
  chmod(db, 0644);
  char *fit_av[] = {"fit", "--db", db, NULL};
  if (fix_run_cli(&cmd_fit_entry, log, fit_av, 3)) return;
  const char *args[] = {"--db", db, "--out", out, "--nvcc", FIX_NVCC};
  if (fix_build(log, args, 6) == 0) fix_tree_cuda_pc(dir);
}

/* Removes the folder fix_tree_make named in $env, unless SYMV_TEST_KEEP is
 * set. For a Criterion POST_ALL hook. */
static inline void fix_tree_remove(const char *env)
{
  const char *dir = getenv(env);
  if (dir && !getenv("SYMV_TEST_KEEP")) fix_rmtree(dir);
}

/* The folder fix_tree_make named in $env. */
static inline const char *fix_tree_dir(const char *env)
{
  const char *d = getenv(env);
  cr_assert_not_null(d, "the PRE_ALL hook made no folder");
  return d;
}

/* DIR/name in buf (1024 bytes), DIR the folder named in $env. */
static inline char *fix_tree_at(char *buf, const char *env, const char *name)
{
  snprintf(buf, 1024, "%.400s/%.600s", fix_tree_dir(env), name);
  return buf;
}

/* Skips the test without nvcc; fails it, with the build's log, if the file
 * lib (a path in the folder of $env) was not built. */
static inline void fix_tree_need(const char *env, const char *lib)
{
  (void)fix_make_db; /* the fixture's, unused by these tests */
  if (!*FIX_NVCC || access(FIX_NVCC, X_OK)) cr_skip_test("no nvcc: the library cannot be compiled");
  char p[1024], l[1024];
  if (!fix_exists(fix_tree_at(p, env, lib))) {
    char *log = fix_slurp(fix_tree_at(l, env, "build.log"));
    cr_assert_fail("no library was built:\n%s", log ? log : "(no log)");
  }
}

/* FIX_TREE_HELPERS(ENV, LIB): the helpers of the tests of a program whose
 * tree fix_tree_make made (its PRE_ALL hook) and names in $ENV:
 *   topdir()            the tree's folder, DIR;
 *   at(buf, name)       DIR/name in buf (1024 bytes), returns buf;
 *   need_tree()         skips the test without nvcc, fails it (with the
 *                       build's log) if DIR/LIB was not built;
 *   sh(cmd, log, text)  runs cmd through the shell, its standard output and
 *                       standard error into DIR/log; its exit status (-1
 *                       if it did not exit), the output in *text (free()). */
#define FIX_TREE_HELPERS(ENV, LIB)                                                                    \
  static inline const char *topdir(void) { return fix_tree_dir(ENV); }                               \
  static inline char *at(char *buf, const char *name) { return fix_tree_at(buf, ENV, name); }         \
  static inline void need_tree(void) { fix_tree_need(ENV, LIB); }                                     \
  static inline int sh(const char *cmd, const char *log, char **text)                                 \
  {                                                                                                   \
    char p[1024];                                                                                     \
    return fix_sh(cmd, at(p, log), text);                                                             \
  }

#endif
