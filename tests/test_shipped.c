/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_shipped.c - the sweep databases shipped in tests/data
 * (sweep6-*.db.xz) hold what the code of this tree would make: every point
 * of today's default space of every tunable family for each of the six
 * routines, settled (none pending); the dense stage's rows, cuBLAS's in
 * both atomics modes and the floor's; and a stored validation run of both
 * rule sets of every routine (`validate --stored` answers). `scripts/quickstart`
 * builds libsymv from these files on a machine without a GPU, so a file
 * that falls behind the space ships old kernels to users.
 *
 * A database known to be behind is named in `stale` below: the test then
 * requires it to lack something, so that the entry goes once the file is
 * made again.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "params.h"
#include "routine.h"
#include "space.h"
#include "test_device.h"
#include "test_util.h"

/* Files made before today's space, each to be swept again; NULL ends the
 * list (none today). */
static const char *const stale[] = {NULL};

static int is_stale(const char *base)
{
  for (size_t i = 0; stale[i]; i++)
    if (!strcmp(base, stale[i])) return 1;
  return 0;
}

/* What a database lacks, one line each, appended to *lacks (malloc'd). */
static void lack(char **lacks, size_t *len, const char *fmt, ...)
{
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  size_t add = strlen(line) + 1;
  *lacks = realloc(*lacks, *len + add + 1);
  cr_assert(*lacks);
  snprintf(*lacks + *len, add + 1, "%s\n", line);
  *len += add;
}

static long long sql_int(sqlite3 *s, const char *sql, const char *text)
{
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(s, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(s));
  if (text) sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s: %s", sql, sqlite3_errmsg(s));
  long long v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* Today's default space (the families of symv_family_default_space; the points are the same for
 * every routine) into database s's temporary table `point`. */
static void load_space(sqlite3 *s)
{
  symv_space_opts o = {{0}, 0};
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++) o.family[f] = symv_family_default_space((symv_family)f);
  symv_device_info d = test_hopper();
  symv_params *v;
  long n;
  cr_assert_eq(symv_space_enumerate(&o, &d, &v, &n), 0);
  cr_assert_gt(n, 0);
  cr_assert_eq(sqlite3_exec(s,
                            "CREATE TEMP TABLE point (family TEXT, block_size INT, ux INT, multiplicity INT, mx INT); "
                            "BEGIN",
                            NULL, NULL, NULL),
               SQLITE_OK, "%s", sqlite3_errmsg(s));
  sqlite3_stmt *ins;
  cr_assert_eq(sqlite3_prepare_v2(s, "INSERT INTO temp.point VALUES (?, ?, ?, ?, ?)", -1, &ins, NULL), SQLITE_OK);
  for (long i = 0; i < n; i++) {
    sqlite3_bind_text(ins, 1, symv_family_name(v[i].family), -1, SQLITE_STATIC);
    sqlite3_bind_int(ins, 2, v[i].block_size);
    sqlite3_bind_int(ins, 3, v[i].ux);
    sqlite3_bind_int(ins, 4, v[i].multiplicity);
    sqlite3_bind_int(ins, 5, v[i].mx);
    cr_assert_eq(sqlite3_step(ins), SQLITE_DONE);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  free(v);
  cr_assert_eq(sqlite3_exec(s, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
}

/* Points of the space in temp.point (load_space) that database s lacks as
 * candidates of routine r. */
static long long missing_points(sqlite3 *s, symv_routine r)
{
  return sql_int(s,
                 "SELECT count(*) FROM temp.point p WHERE NOT EXISTS (SELECT 1 FROM candidate c WHERE "
                 "c.routine = ?1 AND c.family = p.family AND c.block_size = p.block_size AND c.ux = p.ux AND "
                 "c.multiplicity = p.multiplicity AND c.mx = p.mx)",
                 symv_routine_name(r));
}

/* Everything the database at `path` lacks, one line each; NULL if nothing. */
static char *lacks_of(const char *path)
{
  char *lacks = NULL;
  size_t len = 0;
  sqlite3 *s;
  cr_assert_eq(sqlite3_open_v2(path, &s, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
  load_space(s);
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    symv_routine r = symv_routine_order(i);
    const char *name = symv_routine_name(r);
    long long k = missing_points(s, r);
    if (k) lack(&lacks, &len, "%s: %lld points of today's space are not candidates", name, k);
    k = sql_int(s, "SELECT count(*) FROM candidate WHERE routine = ?1 AND status = 'pending'", name);
    if (k) lack(&lacks, &len, "%s: %lld candidates pending", name, k);
    k = sql_int(s,
                "SELECT count(*) FROM measurement m JOIN candidate c ON c.id = m.candidate_id "
                "WHERE c.routine = ?1 AND m.stage = 'dense'",
                name);
    if (!k) lack(&lacks, &len, "%s: no dense-stage measurements", name);
    static const char *const base[] = {"cublas", "cublas_atomics", "floor"};
    for (int b = 0; b < 3; b++) {
      char sql[256];
      snprintf(sql, sizeof sql,
               "SELECT count(*) FROM baseline WHERE routine = ?1 AND name = '%s' AND stage = 'dense'", base[b]);
      if (!sql_int(s, sql, name)) lack(&lacks, &len, "%s: no dense-stage rows of %s", name, base[b]);
    }
  }
  sqlite3_close(s);
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const char *name = symv_routine_name(symv_routine_order(i));
    static const char *const atomics[] = {"any", "deterministic"};
    for (int a = 0; a < 2; a++) {
      char err[512] = "";
      char *args[] = {"symvtune", "validate", "--db", (char *)path, "--routine", (char *)name, "--atomics",
                      (char *)atomics[a], "--stored", NULL};
      if (run_symvtune(err, sizeof err, args)) {
        err[strcspn(err, "\n")] = 0;
        lack(&lacks, &len, "%s, %s rules: no stored validation run (%s)", name, atomics[a], err);
      }
    }
  }
  return lacks;
}

Test(shipped, every_database_holds_todays_space_its_floor_and_validation_runs, .timeout = 600)
{
  char pattern[1024], dir[] = "/tmp/symvtune-shipped-XXXXXX";
  snprintf(pattern, sizeof pattern, "%s/sweep6-*.db.xz", SYMV_TEST_DATA);
  glob_t g;
  cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "no database matches %s", pattern);
  cr_assert_geq(g.gl_pathc, 2, "tests/data ships a database for the H100 and one for the H200");
  cr_assert(mkdtemp(dir));
  int complete = 0;
  for (size_t i = 0; i < g.gl_pathc; i++) {
    const char *xz = g.gl_pathv[i], *base = strrchr(xz, '/') + 1;
    char db[1200], cmd[3000];
    snprintf(db, sizeof db, "%s/%.*s", dir, (int)(strlen(base) - 3), base);
    snprintf(cmd, sizeof cmd, "xz -dc '%s' > '%s'", xz, db);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *lacks = lacks_of(db);
    if (is_stale(base))
      cr_expect(lacks != NULL, "%s lacks nothing now: take it off the list `stale` in tests/test_shipped.c", base);
    else {
      cr_expect(lacks == NULL, "%s lacks:\n%s", base, lacks ? lacks : "");
      complete++;
    }
    if (lacks) cr_log_info("%s lacks:\n%s", base, lacks);
    free(lacks);
    unlink(db);
  }
  globfree(&g);
  test_rmtree(dir);
  cr_assert_geq(complete, 1, "no shipped database is of today's space");
}
