/* SPDX-License-Identifier: BSD-3-Clause */
/* A seeded mutation fuzzer of everything that reads a database: the db
 * reader, the fit, the rules (table, JSON, --at), the ranking and the build's
 * reading and checking of the rules (stopped before nvcc). Seeds are small
 * copies of the shipped databases (tests/data), fitted; each round damages
 * one of them - random bytes of its pages flipped, or cells set through SQL
 * to extreme integers, NULL, text, blobs, reals, escape sequences, or rows
 * deleted - and runs every command on it. Every command must return 0 or 4
 * (a clear refusal, with a message naming the command); a crash or a
 * sanitizer report (scripts/check --sanitize) fails the test.
 *
 * It runs for SYMV_FUZZ_SECONDS seconds (default 4; up to a week) from a
 * fresh seed each run (printed; SYMV_TEST_SEED=<seed> replays one); its
 * time limit is those seconds and FUZZ_SETUP_S for the rest. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/logging.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "db/db.h"
#include "symv_error.h"
#include "test_util.h"

#ifndef SYMV_TEST_DATA
#error "SYMV_TEST_DATA (the folder of the shipped databases) must be defined"
#endif

extern const symv_command cmd_rank_entry, cmd_fit_entry, cmd_rules_entry, cmd_build_entry;

/* cli_each_routine and tune find commands through cli_lookup
 * (tests/test_commands.c) in this table */
const symv_command *const symv_commands[] = {&cmd_rank_entry, &cmd_fit_entry, &cmd_rules_entry, &cmd_build_entry,
                                             NULL};

static char dir[64];
static void setup(void) { test_tmpdir(dir, sizeof dir, "fuzz"); }
static void teardown(void) { test_tmpdir_remove(dir); }
TestSuite(fuzz, .init = setup, .fini = teardown);

/* DIR/name in buf (512 bytes). */
static char *in_dir(char *buf, const char *name) { return test_path(buf, dir, name); }

/* Runs a command in this process, its output to files; its exit status,
 * its standard error in *err (free() it). */
static int run_cmd(char *const *args, char **err)
{
  char *av[16];
  int ac = 0;
  while (args[ac] && ac < 15) av[ac] = args[ac], ac++;
  av[ac] = NULL;
  const symv_command *cmd = cli_lookup(av[0]);
  cr_assert_not_null(cmd);
  return test_run_in_process(cmd->run, ac, av, dir, NULL, err);
}

static void sql(sqlite3 *s, const char *q)
{
  char *msg = NULL;
  cr_assert_eq(sqlite3_exec(s, q, NULL, NULL, &msg), SQLITE_OK, "%s: %s", q, msg ? msg : "");
}

/* A small fitted seed from a shipped database: all but a few candidates
 * and a third of the dense sizes are dropped (so that a fit takes tens of
 * milliseconds, not seconds), then `fit --routine all` migrates the file to
 * the current schema and fits what has dense samples. */
static void make_seed(const char *src, const char *dst)
{
  char cmd[2048];
  size_t l = strlen(src);
  if (l > 3 && !strcmp(src + l - 3, ".xz"))
    snprintf(cmd, sizeof cmd, "xz -dc '%s' > '%s'", src, dst);
  else
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, dst);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  sqlite3 *s;
  cr_assert_eq(sqlite3_open(dst, &s), SQLITE_OK);
  sql(s, "DELETE FROM measurement WHERE stage = 'dense' AND n % 3 = 1;"
         "DELETE FROM baseline WHERE stage = 'dense' AND n % 3 = 1;"
         "CREATE TEMP TABLE keep AS SELECT id FROM (SELECT candidate_id AS id FROM measurement "
         "WHERE stage = 'dense' GROUP BY candidate_id ORDER BY min(median_us) LIMIT 8) "
         "UNION SELECT id FROM (SELECT id FROM candidate ORDER BY id LIMIT 12) "
         "UNION SELECT id FROM (SELECT id FROM candidate WHERE status = 'invalid' ORDER BY id LIMIT 4);"
         "DELETE FROM measurement WHERE candidate_id NOT IN (SELECT id FROM keep);"
         "DELETE FROM candidate WHERE id NOT IN (SELECT id FROM keep);"
         "DELETE FROM baseline WHERE stage = 'sweep' AND n > 4096;"
         "VACUUM;");
  sqlite3_close(s);
  char *err;
  char *fit[] = {"fit", "--db", (char *)dst, "--routine", "all", NULL};
  int st = run_cmd(fit, &err); /* a routine without dense samples is 4: fine, others are fitted */
  cr_assert(st == 0 || st == 4, "%s: fit: %d\n%s", dst, st, err);
  free(err);
  cr_assert_eq(sqlite3_open(dst, &s), SQLITE_OK);
  sql(s, "PRAGMA journal_mode = DELETE;");  /* one file: the image is all of it */
  sqlite3_close(s);
}

/* ---- Mutations ------------------------------------------------------------------ */

static uint64_t rng;

static const char *const tables[] = {"device", "candidate", "measurement", "baseline", "fit", "fit_curve", "fit_rule",
                                     "run"};
static const char *const values[] = {
  "0", "-1", "1", "2147483647", "2147483648", "-2147483648", "4294967296", "4294967424", "4294999999",
  "9223372036854775807", "-9223372036854775808", "1073741825", "65", "1025", "33", "NULL", "''", "'text'",
  "x'00ff'", "1e308", "-1e308", "0.5", "16.5", "char(27) || '[2J' || char(7)", "'candidate'", "'cublas'",
  "'valid'", "'invalid'", "'dense'", "'L'", "'U'", "'dsymv'", "'zhemv'", "'lu'", "'pipe'", "'atomic'",
  "(SELECT max(id) FROM candidate)", "(SELECT min(id) FROM candidate)", "67108864", "32768",
};
#define NVALUES (sizeof values / sizeof *values)

/* The columns of table t, into cols (at most max); how many. */
static int columns(sqlite3 *s, const char *t, char cols[][64], int max)
{
  char q[128];
  snprintf(q, sizeof q, "PRAGMA table_info(%s)", t);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s, q, -1, &st, NULL) != SQLITE_OK) return 0;
  int n = 0;
  while (n < max && sqlite3_step(st) == SQLITE_ROW)
    snprintf(cols[n++], 64, "%s", (const char *)sqlite3_column_text(st, 1));
  sqlite3_finalize(st);
  return n;
}

/* One to four changes of cells or rows through SQL, constraints and foreign
 * keys off (a hand-edited file obeys neither). */
static void mutate_sql(const char *path, char *what, size_t len)
{
  sqlite3 *s;
  cr_assert_eq(sqlite3_open(path, &s), SQLITE_OK);
  sql(s, "PRAGMA ignore_check_constraints = ON; PRAGMA foreign_keys = OFF;");
  int k = test_rng_int(&rng, 1, 4);
  size_t used = 0;
  for (int i = 0; i < k; i++) {
    const char *t = tables[test_rng_int(&rng, 0, (int)(sizeof tables / sizeof *tables) - 1)];
    char cols[32][64], q[512];
    int nc = columns(s, t, cols, 32);
    if (nc == 0) continue;
    const char *c = cols[test_rng_int(&rng, 0, nc - 1)];
    int kind = test_rng_int(&rng, 0, 9);
    if (kind == 0)
      snprintf(q, sizeof q, "DELETE FROM %s WHERE rowid IN (SELECT rowid FROM %s ORDER BY random() LIMIT %d)", t, t,
               test_rng_int(&rng, 1, 3));
    else if (kind == 1)
      snprintf(q, sizeof q, "UPDATE %s SET %s = %s", t, c, values[test_rng_int(&rng, 0, NVALUES - 1)]);
    else
      snprintf(q, sizeof q, "UPDATE %s SET %s = %s WHERE rowid = (SELECT rowid FROM %s ORDER BY random() LIMIT 1)",
               t, c, values[test_rng_int(&rng, 0, NVALUES - 1)], t);
    /* a change the file's own constraints refuse (UNIQUE, NOT NULL) is not a mutation */
    if (sqlite3_exec(s, q, NULL, NULL, NULL) == SQLITE_OK && used < len)
      used += (size_t)snprintf(what + used, len - used, "%s; ", q);
  }
  sqlite3_close(s);
}

/* 1..16 random bytes of the file changed (the 100-byte header of the
 * first page too, now and then). */
static void mutate_bytes(const char *path, char *what, size_t len)
{
  long n;
  unsigned char *b = test_slurp(path, &n);
  cr_assert(b && n > 200);
  int k = test_rng_int(&rng, 1, 16);
  size_t used = (size_t)snprintf(what, len, "bytes:");
  for (int i = 0; i < k; i++) {
    long at = test_rng_int(&rng, 0, 9) == 0 ? test_rng_int(&rng, 0, 99) : test_rng_int(&rng, 100, (int)(n - 1));
    unsigned char v = (unsigned char)test_rng_next(&rng);
    if (test_rng_int(&rng, 0, 1)) v = b[at] ^ (unsigned char)(1u << test_rng_int(&rng, 0, 7));
    b[at] = v;
    if (used < len) used += (size_t)snprintf(what + used, len - used, " %ld=%02x", at, v);
  }
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  free(b);
}

/* ---- The round ------------------------------------------------------------------ */

/* Every command on the damaged file: 0 or a refusal with exit 4 and a
 * message of its own, nothing else. */
static void run_all(const char *db, const char *what, unsigned long long seed, int all)
{
  char out[512];
  in_dir(out, "lib");
  char *cmds[][12] = {
    {"rules", "--db", (char *)db, "--routine", "all", NULL},
    {"rules", "--db", (char *)db, "--routine", "all", "--json", NULL},
    {"rules", "--db", (char *)db, "--routine", "ssymv,dsymv,zhemv", "--at", "1,100,5000,40000", NULL},
    {"rank", "--db", (char *)db, "--routine", "dsymv,zhemv", NULL},
    {"build", "--db", (char *)db, "--out", out, "--nvcc", "/nonexistent/nvcc", NULL},
    {"fit", "--db", (char *)db, "--routine", "dsymv,ssymv", NULL},
    {"rules", "--db", (char *)db, NULL},
  };
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    /* the two that fit curves take most of the time: every fourth round */
    if (!all && (i == 2 || i == 5) && test_rng_int(&rng, 0, 3)) continue;
    char *err;
    int st = run_cmd(cmds[i], &err);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "symvtune %s: ", cmds[i][0]);
    int is_build = !strcmp(cmds[i][0], "build");
    /* build stops at the missing nvcc when the file is good: a refusal too */
    cr_assert(st == 0 || st == SYMV_EXIT_ERROR, "seed %llu: %s exits %d after %s\n%s", seed, cmds[i][0], st, what,
              err);
    cr_assert(st == 0 || strstr(err, prefix) || (is_build && strstr(err, "symvtune build")),
              "seed %llu: %s exits %d without a message of its own after %s\n%s", seed, cmds[i][0], st, what, err);
    cr_assert_null(strchr(err, 27), "seed %llu: %s printed an escape byte after %s", seed, cmds[i][0], what);
    cr_assert(access(out, F_OK) != 0, "seed %llu: build wrote %s after %s", seed, out, what);
    free(err);
  }
}

/* The test's time beyond its rounds: the seeds made and run through every
 * command, the last round, the teardown. */
#define FUZZ_SETUP_S 300.0
#define FUZZ_SECONDS_MAX (7 * 86400.0)

/* The seconds of rounds asked for: SYMV_FUZZ_SECONDS, a number of seconds
 * in 0..FUZZ_SECONDS_MAX, 4 where unset; -1 for anything else. */
static double fuzz_seconds(void)
{
  const char *s = getenv("SYMV_FUZZ_SECONDS");
  if (!s || !*s) return 4;
  char *end;
  double v = strtod(s, &end);
  return *end || !(v >= 0 && v <= FUZZ_SECONDS_MAX) ? -1 : v;
}

/* Criterion's time limit of the suite's tests follows the seconds asked
 * for (a test's .timeout is fixed when it is compiled; the runner reads it
 * after this hook). */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
  FOREACH_SET(struct criterion_suite_set *suite, set->suites) {
    if (strcmp(suite->suite.name, "fuzz")) continue;
    FOREACH_SET(struct criterion_test *test, suite->tests) test->data->timeout = FUZZ_SETUP_S + fmax(fuzz_seconds(), 0);
  }
}

Test(fuzz, damaged_databases_are_refused_clearly, .timeout = FUZZ_SETUP_S)
{
  unsigned long long seed = test_fresh_seed();
  rng = seed;
  double seconds = fuzz_seconds();
  cr_assert_geq(seconds, 0, "SYMV_FUZZ_SECONDS=%s is not a number of seconds in 0..%g", getenv("SYMV_FUZZ_SECONDS"),
                FUZZ_SECONDS_MAX);
  static const char *const shipped[] = {"schema3-dsymv-h100.db.xz", "sweep6-h100.db.xz", "sweep6-h200.db.xz"};
  enum { NSEEDS = sizeof shipped / sizeof *shipped };
  unsigned char *image[NSEEDS];
  long size[NSEEDS];
  for (int i = 0; i < NSEEDS; i++) {
    char src[1024], dst[512], name[32];
    snprintf(src, sizeof src, "%s/%s", SYMV_TEST_DATA, shipped[i]);
    snprintf(name, sizeof name, "seed%d.db", i);
    make_seed(src, in_dir(dst, name));
    image[i] = test_slurp(dst, &size[i]);
    cr_assert_not_null(image[i]);
    run_all(dst, "nothing", seed, 1); /* the seeds themselves */
  }
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rounds = 0;
  do {
    char db[512], what[4096] = "";
    int s = test_rng_int(&rng, 0, NSEEDS - 1);
    in_dir(db, "case.db");
    FILE *f = fopen(db, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(image[s], 1, (size_t)size[s], f), (size_t)size[s]);
    fclose(f);
    if (test_rng_int(&rng, 0, 3) == 0) mutate_bytes(db, what, sizeof what);
    else mutate_sql(db, what, sizeof what);
    run_all(db, what, seed, 0);
    unlink(db);
    rounds++;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec) < seconds);
  cr_log_info("seed %llu: %d rounds in %g s", seed, rounds, seconds);
  for (int i = 0; i < NSEEDS; i++) free(image[i]);
}
