/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_shipped.c - the sweep databases shipped in tests/data
 * (sweep6-*.db.xz) hold what the code of this tree would make: every point
 * of today's default space of every tunable family for each of the six
 * routines, settled (none pending), timed with today's kernel sources
 * (their recorded codes, and the registers of the CUBINs the rules' kernels
 * compile to here); the dense stage's rows, cuBLAS's in
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
#include <math.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "compile.h"
#include "params.h"
#include "routine.h"
#include "space.h"
#include "test_device.h"
#include "test_util.h"

/* Files made before today's space, each to be swept again; NULL ends the
 * list. The H100's: SSYMV's pipe and pipe_det candidates were timed before
 * pipe_det's L2 hints and the copy engine's path changed their code (456
 * of 468 compile to other PTX; `symvtune restamp --dry-run`); its other
 * routines were swept before candidates' codes were recorded, so nothing
 * says which code they were timed with. No H100 has been lent since. */
static const char *const stale[] = {"sweep6-h100.db.xz", NULL};

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

/* Per routine, the candidates that database s records as measured with
 * kernel sources other than this tree's (table kernel_code against
 * symv_code_id), and those it records no code for (swept before codes
 * were recorded: what they were timed with is unknown), as lines of
 * *lacks. A database without the table (swept before it) records nothing
 * and lacks nothing here. */
static void stale_codes(sqlite3 *s, char **lacks, size_t *len)
{
  if (!sql_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'kernel_code'", NULL)) return;
  long long stale[SYMV_ROUTINE_COUNT] = {0}, recorded = 0;
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(s,
                                  "SELECT c.routine, c.family, c.block_size, c.ux, c.multiplicity, c.mx, k.code "
                                  "FROM kernel_code k JOIN candidate c ON c.id = k.candidate_id",
                                  -1, &st, NULL),
               SQLITE_OK, "%s", sqlite3_errmsg(s));
  while (sqlite3_step(st) == SQLITE_ROW) {
    symv_params p = {0};
    cr_assert_eq(symv_routine_parse((const char *)sqlite3_column_text(st, 0), &p.routine), 0);
    cr_assert_eq(symv_family_parse((const char *)sqlite3_column_text(st, 1), &p.family), 0);
    p.block_size = sqlite3_column_int(st, 2), p.ux = sqlite3_column_int(st, 3);
    p.multiplicity = sqlite3_column_int(st, 4), p.mx = sqlite3_column_int(st, 5);
    char now[17] = "";
    if (symv_code_id(&p, now) || strcmp(now, (const char *)sqlite3_column_text(st, 6))) stale[p.routine]++;
    recorded++;
  }
  sqlite3_finalize(st);
  cr_log_info("%lld candidates with their kernel code recorded", recorded);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const char *name = symv_routine_name((symv_routine)r);
    if (stale[r])
      lack(lacks, len, "%s: %lld candidates measured with kernel sources other than this tree's (sweep it again: "
           "doc/design.md)", name, stale[r]);
    const long long unknown = sql_int(s,
                                      "SELECT count(*) FROM candidate c LEFT JOIN kernel_code k ON k.candidate_id = c.id "
                                      "WHERE c.routine = ?1 AND c.status != 'pending' AND k.code IS NULL",
                                      name);
    if (unknown)
      lack(lacks, len, "%s: %lld candidates without the code they were measured with (swept before codes were "
           "recorded)", name, unknown);
  }
}

/* The kernels the rules of the database at `path` name whose code, as this
 * symvtune's NVRTC makes it, has other registers per thread than the sweep
 * recorded: `symvtune build` (a stand-in nvcc beside path) warns of each,
 * and each is code the sweep did not time. Told, not counted, when the
 * database was swept with another NVRTC than this one: then no CUBIN can
 * be expected to match. */
static void other_registers(const char *path, char **lacks, size_t *len)
{
  char dir[1200], nvcc[1300], out[1300];
  static char err[1 << 16];
  snprintf(dir, sizeof dir, "%s", path);
  *strrchr(dir, '/') = 0;
  snprintf(nvcc, sizeof nvcc, "%s/standin-nvcc", dir);
  test_put_standin_nvcc(nvcc, 16);
  snprintf(out, sizeof out, "%s/lib", dir);
  char *args[] = {"symvtune", "build", "--db", (char *)path, "--out", out, "--nvcc", nvcc, "--jobs", "2", NULL};
  int rc = run_symvtune(err, sizeof err, args);
  test_rmtree(out);
  if (rc) {
    lack(lacks, len, "symvtune build: exit %d: %.400s", rc, err);
    return;
  }
  if (strstr(err, "was swept with NVRTC")) {
    cr_log_warn("%s: swept with another NVRTC than this one: its CUBINs are not compared", path);
    return;
  }
  for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n"))
    if (strstr(line, "registers per thread, the tuner's build had")) lack(lacks, len, "%s", line);
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
  stale_codes(s, &lacks, &len);
  sqlite3_close(s);
  other_registers(path, &lacks, &len);
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

/* Rows of each table that routine r owns in database s, as one line
 * (candidates, measurements, baselines, fits, curves, rules, validation runs). */
static void routine_rows(sqlite3 *s, const char *r, char *line, size_t len)
{
  snprintf(line, len, "%lld %lld %lld %lld %lld %lld %lld",
           sql_int(s, "SELECT count(*) FROM candidate WHERE routine = ?1", r),
           sql_int(s, "SELECT count(*) FROM measurement JOIN candidate c ON c.id = candidate_id WHERE c.routine = ?1", r),
           sql_int(s, "SELECT count(*) FROM baseline WHERE routine = ?1", r),
           sql_int(s, "SELECT count(*) FROM fit WHERE routine = ?1", r),
           sql_int(s, "SELECT count(*) FROM fit_curve JOIN fit f ON f.id = fit_id WHERE f.routine = ?1", r),
           sql_int(s, "SELECT count(*) FROM fit_rule JOIN fit f ON f.id = fit_id WHERE f.routine = ?1", r),
           sql_int(s, "SELECT count(*) FROM validation_run JOIN fit f ON f.id = fit_id WHERE f.routine = ?1", r));
}

/* scripts/forget-routine left no reference dangling in database s: no
 * foreign key broken, no kernel code without its candidate. */
static void expect_no_dangling(sqlite3 *s)
{
  cr_expect_eq(sql_int(s, "SELECT count(*) FROM pragma_foreign_key_check", NULL), 0, "dangling references");
  cr_expect_eq(sql_int(s, "SELECT count(*) FROM kernel_code WHERE candidate_id NOT IN (SELECT id FROM candidate)",
                       NULL), 0, "codes without their candidate");
}

/* The shipped database tests/data/`file` (.db.xz) decompressed to
 * dir/sweep.db, its path into db (len bytes). */
static void unpack_shipped(const char *file, const char *dir, char *db, size_t len)
{
  char cmd[2048];
  snprintf(db, len, "%s/sweep.db", dir);
  snprintf(cmd, sizeof cmd, "xz -dc '%s/%s' > '%s'", SYMV_TEST_DATA, file, db);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* scripts/forget-routine, the first step of sweeping one routine again:
 * on a shipped database it removes every row of the routines named and
 * leaves the other routines' rows, fits and validation runs as they were,
 * with no reference left dangling; a name that is not a routine changes
 * nothing. */
Test(shipped, forget_routine_removes_one_routine_and_keeps_the_others, .timeout = 300)
{
  char dir[] = "/tmp/symvtune-forget-XXXXXX", db[256], cmd[2048], before[SYMV_ROUTINE_COUNT][160], after[160];
  cr_assert(mkdtemp(dir));
  unpack_shipped("sweep6-h100.db.xz", dir, db, sizeof db);
  sqlite3 *s;
  cr_assert_eq(sqlite3_open(db, &s), SQLITE_OK);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) routine_rows(s, symv_routine_name((symv_routine)r), before[r], sizeof before[r]);
  sqlite3_close(s);
  cr_assert(strncmp(before[SYMV_SSYMV], "0 ", 2), "the shipped database holds SSYMV's candidates");

  snprintf(cmd, sizeof cmd, "'%s/scripts/forget-routine' '%s' ssymv dgemv >/dev/null 2>&1", SYMV_TEST_SRCDIR, db);
  int rc = system(cmd);
  cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "a name that is not a routine: exit status 2, got %d", rc);
  cr_assert_eq(sqlite3_open(db, &s), SQLITE_OK);
  routine_rows(s, "ssymv", after, sizeof after);
  cr_expect_str_eq(after, before[SYMV_SSYMV], "refused, yet SSYMV's rows changed");
  sqlite3_close(s);

  snprintf(cmd, sizeof cmd, "'%s/scripts/forget-routine' '%s' ssymv chemv >/dev/null", SYMV_TEST_SRCDIR, db);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  cr_assert_eq(sqlite3_open(db, &s), SQLITE_OK);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const char *name = symv_routine_name((symv_routine)r);
    routine_rows(s, name, after, sizeof after);
    if (r == SYMV_SSYMV || r == SYMV_CHEMV)
      cr_expect_str_eq(after, "0 0 0 0 0 0 0", "%s: rows left", name);
    else
      cr_expect_str_eq(after, before[r], "%s's rows changed", name);
  }
  expect_no_dangling(s);
  cr_expect_eq(sql_int(s, "SELECT count(*) FROM kernel_code k JOIN candidate c ON c.id = k.candidate_id "
                          "WHERE c.routine IN ('ssymv', 'chemv')", NULL), 0, "codes of the routines removed");
  cr_expect_eq(sql_int(s, "SELECT count(*) FROM device", NULL), 1, "the device row went");
  sqlite3_close(s);

  /* the stages still answer for a routine kept, and no longer for one removed */
  char err[4096];
  char *kept[] = {"symvtune", "rules", "--db", db, "--routine", "dsymv", NULL};
  cr_expect_eq(run_symvtune(err, sizeof err, kept), 0, "rules of DSYMV after the removal: %s", err);
  char *gone[] = {"symvtune", "rules", "--db", db, "--routine", "ssymv", NULL};
  cr_expect_neq(run_symvtune(err, sizeof err, gone), 0, "SSYMV still has rules");
  /* the script knows every routine of the registry (one call: a name it did not know would refuse them all) */
  int len = snprintf(cmd, sizeof cmd, "'%s/scripts/forget-routine' '%s'", SYMV_TEST_SRCDIR, db);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++)
    len += snprintf(cmd + len, sizeof cmd - (size_t)len, " %s", symv_routine_name((symv_routine)r));
  snprintf(cmd + len, sizeof cmd - (size_t)len, " >/dev/null");
  cr_expect_eq(system(cmd), 0, "forget-routine refuses a routine of the registry: %s", cmd);
  test_rmtree(dir);
}

/* Rows of routine r in database s as one line, for forget-routine --family:
 * the family's candidates, the other families' candidates, their
 * sweep-stage measurements, dense-stage measurements of any candidate,
 * sweep-stage and dense-stage baselines, fits. */
static void family_rows(sqlite3 *s, const char *r, char *line, size_t len)
{
  snprintf(line, len, "%lld %lld %lld %lld %lld %lld %lld",
           sql_int(s, "SELECT count(*) FROM candidate WHERE routine = ?1 AND family = 'pipe_det'", r),
           sql_int(s, "SELECT count(*) FROM candidate WHERE routine = ?1 AND family <> 'pipe_det'", r),
           sql_int(s, "SELECT count(*) FROM measurement JOIN candidate c ON c.id = candidate_id "
                      "WHERE c.routine = ?1 AND c.family <> 'pipe_det' AND stage = 'sweep'", r),
           sql_int(s, "SELECT count(*) FROM measurement JOIN candidate c ON c.id = candidate_id "
                      "WHERE c.routine = ?1 AND stage = 'dense'", r),
           sql_int(s, "SELECT count(*) FROM baseline WHERE routine = ?1 AND stage = 'sweep'", r),
           sql_int(s, "SELECT count(*) FROM baseline WHERE routine = ?1 AND stage = 'dense'", r),
           sql_int(s, "SELECT count(*) FROM fit WHERE routine = ?1", r));
}

/* A shipped database unpacked for forget-routine's tests, with what it held
 * before: routine's family_rows (v: the seven counts, each checked > 0) and
 * every routine's routine_rows. */
typedef struct {
  char db[256];
  const char *routine;
  char before[160];
  long long v[7];
  char others[SYMV_ROUTINE_COUNT][160];
} forget_case;

static void forget_case_setup(forget_case *fc, const char *dir, const char *routine)
{
  fc->routine = routine;
  unpack_shipped("sweep6-h200.db.xz", dir, fc->db, sizeof fc->db);
  sqlite3 *s;
  cr_assert_eq(sqlite3_open(fc->db, &s), SQLITE_OK);
  family_rows(s, routine, fc->before, sizeof fc->before);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++)
    routine_rows(s, symv_routine_name((symv_routine)r), fc->others[r], sizeof fc->others[r]);
  sqlite3_close(s);
  long long *v = fc->v;
  cr_assert_eq(sscanf(fc->before, "%lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]),
               7);
  for (int i = 0; i < 7; i++)
    cr_assert_gt(v[i], 0, "the shipped database holds %s's rows of every kind: %s", routine, fc->before);
}

/* After forget-routine --family or --dense on fc: the routine's
 * family_rows are `want`, the other routines kept their rows, nothing
 * dangles, its sweep-stage ranking still answers and its rules are gone
 * until a fit. */
static void expect_dense_stage_forgotten(const forget_case *fc, const char *want)
{
  char after[160], err[4096];
  char *db = (char *)fc->db, *ro = (char *)fc->routine;
  sqlite3 *s;
  cr_assert_eq(sqlite3_open(db, &s), SQLITE_OK);
  family_rows(s, fc->routine, after, sizeof after);
  cr_expect_str_eq(after, want, "%s's rows (pipe_det, other candidates, their sweep measurements, dense "
                                "measurements, sweep baselines, dense baselines, fits) before: %s", fc->routine,
                   fc->before);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const char *name = symv_routine_name((symv_routine)r);
    if (!strcmp(name, fc->routine)) continue;
    routine_rows(s, name, after, sizeof after);
    cr_expect_str_eq(after, fc->others[r], "%s's rows changed", name);
  }
  expect_no_dangling(s);
  sqlite3_close(s);
  char *rank[] = {"symvtune", "rank", "--db", db, "--routine", ro, NULL};
  cr_expect_eq(run_symvtune(err, sizeof err, rank), 0, "rank of %s after the removal: %s", ro, err);
  char *gone[] = {"symvtune", "rules", "--db", db, "--routine", ro, NULL};
  cr_expect_neq(run_symvtune(err, sizeof err, gone), 0, "%s still has rules", ro);
}

/* scripts/forget-routine --family, the first step of sweeping one family
 * again: of the routine named it removes that family's candidates (their
 * measurements and codes with them) and everything of the dense stage on
 * (dense measurements of every candidate, dense baselines, fits), and
 * keeps the other families' candidates with their sweep-stage
 * measurements, the sweep-stage baselines and the other routines' rows; a
 * family that is not one refuses and changes nothing. */
Test(shipped, forget_routine_family_keeps_the_other_families_sweep_stage, .timeout = 300)
{
  char dir[] = "/tmp/symvtune-forget-family-XXXXXX", cmd[2048], after[160];
  cr_assert(mkdtemp(dir));
  forget_case fc;
  forget_case_setup(&fc, dir, "dsymv");
  char *db = fc.db;
  const char *before = fc.before;
  sqlite3 *s;

  snprintf(cmd, sizeof cmd, "'%s/scripts/forget-routine' --family pipe_dett '%s' dsymv >/dev/null 2>&1",
           SYMV_TEST_SRCDIR, db);
  int rc = system(cmd);
  cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "a name that is not a family: exit status 2, got %d", rc);
  cr_assert_eq(sqlite3_open(db, &s), SQLITE_OK);
  family_rows(s, "dsymv", after, sizeof after);
  cr_expect_str_eq(after, before, "refused, yet DSYMV's rows changed");
  sqlite3_close(s);

  snprintf(cmd, sizeof cmd, "'%s/scripts/forget-routine' --family pipe_det '%s' dsymv >/dev/null", SYMV_TEST_SRCDIR, db);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  char want[160];
  snprintf(want, sizeof want, "0 %lld %lld 0 %lld 0 0", fc.v[1], fc.v[2], fc.v[4]);
  expect_dense_stage_forgotten(&fc, want);
  /* the script knows every tunable family of the registry */
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++) {
    if (!symv_family_tunable((symv_family)f)) continue;
    snprintf(cmd, sizeof cmd, "'%s/scripts/forget-routine' --family %s '%s' dsymv >/dev/null", SYMV_TEST_SRCDIR,
             symv_family_name((symv_family)f), db);
    cr_expect_eq(system(cmd), 0, "forget-routine refuses a family of the registry: %s", cmd);
  }
  test_rmtree(dir);
}

/* scripts/forget-routine --dense, the first step of timing the dense stage
 * again (after a change to its sizes): of the routine named it removes
 * everything of the dense stage on (dense measurements, dense baselines,
 * fits) and keeps every candidate with its sweep-stage measurements, the
 * sweep-stage baselines and the other routines' rows. */
Test(shipped, forget_routine_dense_keeps_the_sweep_stage, .timeout = 300)
{
  char dir[] = "/tmp/symvtune-forget-dense-XXXXXX", cmd[2048];
  cr_assert(mkdtemp(dir));
  forget_case fc;
  forget_case_setup(&fc, dir, "csymv");
  char *db = fc.db;
  sqlite3 *s;
  cr_assert_eq(sqlite3_open(db, &s), SQLITE_OK);
  long long codes = sql_int(s, "SELECT count(*) FROM kernel_code", NULL);
  /* counts of attempts as a symvtune before db_clear_attempts left them: one a stage */
  cr_assert_eq(sqlite3_exec(s, "UPDATE candidate SET attempts = 3 WHERE routine = 'csymv' AND status = 'valid'", NULL,
                            NULL, NULL), SQLITE_OK);
  sqlite3_close(s);

  snprintf(cmd, sizeof cmd, "'%s/scripts/forget-routine' --dense '%s' csymv >/dev/null", SYMV_TEST_SRCDIR, db);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  char want[160];
  snprintf(want, sizeof want, "%lld %lld %lld 0 %lld 0 0", fc.v[0], fc.v[1], fc.v[2], fc.v[4]);
  expect_dense_stage_forgotten(&fc, want);
  cr_assert_eq(sqlite3_open(db, &s), SQLITE_OK);
  cr_expect_eq(sql_int(s, "SELECT count(*) FROM kernel_code", NULL), codes, "kernel codes removed");
  cr_expect_eq(sql_int(s, "SELECT count(*) FROM candidate WHERE routine = ?1 AND attempts > 0", "csymv"), 0,
               "counts of attempts left, which the dense stage would take for crashes");
  sqlite3_close(s);
  test_rmtree(dir);
}

/* validate's run of the any rules also judges the deterministic rules at
 * its sizes in 500..4096, from the same times: checked against the stored
 * rows of the shipped H200 database, read here with SQL (the latest any
 * run's chosen kernel and, at each n, the kernel of the latest
 * deterministic fit's rule holding n). A replay of the deterministic rules
 * prints no such line. */
Test(shipped, validate_judges_the_deterministic_rules_beside_the_any_rules, .timeout = 120)
{
  char dir[] = "/tmp/symvtune-detany-XXXXXX", p[256];
  static char out[1 << 17];
  cr_assert(mkdtemp(dir));
  unpack_shipped("sweep6-h200.db.xz", dir, p, sizeof p);
  char *replay[] = {"symvtune", "validate", "--db", p, "--routine", "ssymv", "--replay", NULL};
  int st = run_symvtune_all(out, sizeof out, replay);
  cr_assert_eq(st, 0, "validate --replay: exit %d: %s", st, out);
  const char *line = strstr(out, "deterministic rules of fit ");
  cr_assert_not_null(line, "no line for the deterministic rules:\n%s", out);
  long long fit = 0;
  double mean = 0, least = 0;
  int m = 0, least_n = 0;
  cr_assert_eq(sscanf(line, "deterministic rules of fit %lld at the run's sizes in 500..4096, the any rules' chosen "
                            "time over theirs: geometric mean %lf over %d sizes, least %lf at n = %d", &fit, &mean, &m,
                      &least, &least_n), 5, "%s", line);
  sqlite3 *s;
  sqlite3_stmt *q;
  cr_assert_eq(sqlite3_open_v2(p, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  const char *sql =
      "WITH a AS (SELECT max(v.id) AS run FROM validation_run v JOIN fit f ON f.id = v.fit_id WHERE f.routine = "
      "'ssymv' AND f.atomics = 'any' AND f.uplo = 'L'), d AS (SELECT max(id) AS fit FROM fit WHERE routine = 'ssymv' "
      "AND atomics = 'deterministic' AND uplo = 'L') "
      "SELECT c.n, c.median_us, t.median_us, d.fit FROM a, d JOIN validation_time c ON c.run_id = a.run AND c.chosen = 1 "
      "JOIN fit_rule r ON r.fit_id = d.fit AND c.n BETWEEN r.n_start AND r.n_end JOIN validation_time t ON t.run_id = "
      "a.run AND t.n = c.n AND t.kernel = r.kernel AND coalesce(t.candidate_id, 0) = coalesce(r.candidate_id, 0) "
      "WHERE c.n BETWEEN 500 AND 4096";
  cr_assert_eq(sqlite3_prepare_v2(s, sql, -1, &q, NULL), SQLITE_OK, "%s", sqlite3_errmsg(s));
  double sum = 0, lo = INFINITY;
  int k = 0, lo_n = 0;
  long long dfit = 0;
  while (sqlite3_step(q) == SQLITE_ROW) {
    const double r = sqlite3_column_double(q, 1) / sqlite3_column_double(q, 2);
    sum += log(r), k++;
    if (r < lo) lo = r, lo_n = sqlite3_column_int(q, 0);
    dfit = sqlite3_column_int64(q, 3);
  }
  sqlite3_finalize(q);
  sqlite3_close(s);
  cr_assert_gt(k, 5, "the stored run has %d sizes in 500..4096", k);
  cr_expect_eq(fit, dfit);
  cr_expect_eq(m, k, "sizes: printed %d, stored %d", m, k);
  cr_expect(fabs(mean - exp(sum / k)) < 6e-4, "geometric mean: printed %.3f, from the stored rows %.4f", mean,
            exp(sum / k));
  cr_expect(fabs(least - lo) < 6e-4 && least_n == lo_n, "least: printed %.3f at %d, stored %.4f at %d", least, least_n,
            lo, lo_n);
  char *det[] = {"symvtune", "validate", "--db", p, "--routine", "ssymv", "--replay", "--atomics", "deterministic", NULL};
  st = run_symvtune_all(out, sizeof out, det);
  cr_assert_eq(st, 0, "%s", out);
  cr_expect_null(strstr(out, "the any rules' chosen time over theirs"), "%s", out);
  test_rmtree(dir);
}

/* Writes the executable script `text` to dir/name. */
static void put_exec(const char *dir, const char *name, const char *text)
{
  char path[1400];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  test_put_file(path, text, 1);
}

/* scripts/gpu-ship with stand-ins for the bundle's symvtune and for
 * nvidia-smi: ROUTINES limits every step to the routines named, a call
 * after a sweep that finished does not sweep again (a resumed sweep would
 * time the dense stage's second look again after the fits), and the
 * validation runs, which complete the database, come before the benches. */
Test(shipped, gpu_ship_makes_the_routines_named_and_sweeps_once, .timeout = 120)
{
  char dir[] = "/tmp/symvtune-gpuship-XXXXXX", sub[512], cmd[4096], log[512], *text;
  cr_assert(mkdtemp(dir));
  snprintf(sub, sizeof sub, "%s/bundle", dir), mkdir(sub, 0755);
  snprintf(sub, sizeof sub, "%s/bin", dir), mkdir(sub, 0755);
  snprintf(sub, sizeof sub, "%s/work", dir), mkdir(sub, 0755);
  /* run symvtune ARGS: logs the call; `rules` and `validate --stored` find nothing, bench summarises */
  put_exec(dir, "bundle/run",
           "#!/bin/sh\nshift\necho \"$*\" >>\"$CALLS\"\n"
           "case \"$1 $*\" in rules*|*--stored*) exit 1 ;; bench*) echo 'summary against the targets' ;; esac\nexit 0\n");
  put_exec(dir, "bin/nvidia-smi", "#!/bin/sh\necho 'GPU 0: stand-in'\n");
  snprintf(log, sizeof log, "%s/ship.log", dir);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && : > work/sweep.db && PATH='%s/bin':\"$PATH\" CALLS='%s/calls' "
           "bash '%s/scripts/gpu-ship' '%s/bundle' '%s/work' '%s/out' 100 ssymv,chemv",
           dir, dir, dir, SYMV_TEST_SRCDIR, dir, dir, dir);
  int rc = test_sh(cmd, log, &text);
  cr_assert_eq(rc, 0, "gpu-ship: exit %d\n%s", rc, text);
  free(text);
  char calls[512];
  snprintf(calls, sizeof calls, "%s/calls", dir);
  char *first = (char *)test_slurp(calls, NULL);
  cr_assert_not_null(first);
  unlink(calls);
  cr_expect_not_null(strstr(first, "sweep --db"), "no sweep:\n%s", first);
  cr_expect_not_null(strstr(first, "--routine ssymv,chemv --devices all"), "the sweep is not of the routines named:\n%s",
                     first);
  static const char *const want[] = {"fit --db", "build --db", "--routine ssymv --device 0 --atomics any",
                                     "--routine chemv --device 0 --atomics deterministic"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    cr_expect_not_null(strstr(first, want[i]), "no '%s' in\n%s", want[i], first);
  static const char *const never[] = {"dsymv", "csymv", "zsymv", "zhemv"};
  for (size_t i = 0; i < sizeof never / sizeof *never; i++)
    cr_expect_null(strstr(first, never[i]), "%s was not named:\n%s", never[i], first);
  /* one GPU: every validation run before the first bench */
  const char *bench = strstr(first, "bench --lib"), *v = first, *last_validate = NULL;
  while ((v = strstr(v, "validate --db"))) last_validate = v++;
  cr_expect(bench && last_validate && last_validate < bench, "a bench before a validation run:\n%s", first);
  snprintf(sub, sizeof sub, "%s/out/sweep.db.xz", dir);
  cr_expect_eq(access(sub, F_OK), 0, "no database shipped");
  free(first);

  rc = test_sh(cmd, log, &text);
  cr_assert_eq(rc, 0, "gpu-ship, again: exit %d\n%s", rc, text);
  cr_expect_not_null(strstr(text, "sweep: done in an earlier call"), "%s", text);
  char *second = (char *)test_slurp(calls, NULL);
  cr_expect(second == NULL || !strstr(second, "sweep --db"), "swept again:\n%s", second ? second : "");
  cr_expect(second == NULL || !strstr(second, "bench --lib"), "benched again after a summary:\n%s",
            second ? second : "");
  free(text), free(second);
  test_rmtree(dir);
}
