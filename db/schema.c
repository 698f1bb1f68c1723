/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * schema.c - the schema of the results database: the migration steps that
 * build each version from the one before (the DDL of every table), the
 * check of a file's tables against a version, and db_migrate, which brings
 * a connection to DB_SCHEMA_VERSION.
 */
#include "db/db_internal.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symv_error.h"

/* ---- Schema ---------------------------------------------------------------
 *
 * migrations[v] takes a database from user_version v to v + 1. A step, once
 * released, is never edited: files in the field were made by it. A change of
 * schema is a new step at the end and DB_SCHEMA_VERSION + 1.
 *
 * A step that changes a table's constraints rebuilds it as SQLite documents
 * (lang_altertable.html, "other kinds of table schema changes"): CREATE the
 * new table, INSERT ... SELECT every row with its id, DROP the old one,
 * RENAME the new one. db_migrate runs all steps in one transaction with
 * foreign keys off (else the DROP would delete, and cascade into, the rows
 * that reference the table), re-creates the indexes of the rebuilt tables
 * and every trigger and view, and runs PRAGMA foreign_key_check before it
 * commits.
 */
struct migration {
  const char *sql;           /* statements, run in the migration's transaction */
  const char *tables[6];     /* the tables this step creates, NULL-terminated */
  const char *rebuilds[6];   /* the existing tables it rebuilds, NULL-terminated */
};

/* Columns that more than one step writes: a table's first version and its
 * rebuild in version 4, the two tables of timings, and the three that name
 * a kernel. Each is text of released steps, never edited either. */

/* A candidate's point and fate, after its id (and routine). */
#define CANDIDATE_DDL                                                         \
  "  family TEXT NOT NULL,\n"                                                 \
  "  block_size INTEGER NOT NULL,\n"                                          \
  "  ux INTEGER NOT NULL,\n"                                                  \
  "  multiplicity INTEGER NOT NULL,\n"                                        \
  "  mx INTEGER NOT NULL,\n"                                                  \
  "  status TEXT NOT NULL DEFAULT 'pending'\n"                                \
  "    CHECK (status IN ('pending', 'valid', 'invalid')),\n"                  \
  "  reason TEXT CHECK (reason IN ('resources', 'occupancy', 'compile',\n"    \
  "    'launch', 'fault', 'timeout', 'wrong')),\n"                            \
  "  detail TEXT NOT NULL DEFAULT '',\n"                                      \
  "  compile_ms REAL NOT NULL DEFAULT 0,\n"                                   \
  "  regs_per_thread INTEGER NOT NULL DEFAULT 0,\n"

/* A timing's key after its owner (a candidate or a baseline's routine and
 * name), and its statistics: measurement and baseline. */
#define TIMING_DDL                                                            \
  "  stage TEXT NOT NULL CHECK (stage IN ('sweep', 'dense')),\n"              \
  "  n INTEGER NOT NULL CHECK (n > 0),\n"                                     \
  "  uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),\n"                        \
  "  hot INTEGER NOT NULL CHECK (hot IN (0, 1)),\n"                           \
  "  median_us REAL NOT NULL,\n"                                              \
  "  min_us REAL NOT NULL,\n"                                                 \
  "  max_us REAL NOT NULL,\n"                                                 \
  "  batches INTEGER NOT NULL,\n"                                             \
  "  calls_per_batch INTEGER NOT NULL,\n"                                     \
  "  gflops REAL NOT NULL,\n"                                                 \
  "  gbs REAL NOT NULL,\n"                                                    \
  "  residual REAL NOT NULL,\n"

/* A fit, after its id (and routine). */
#define FIT_DDL                                                               \
  "  created TEXT NOT NULL,\n"                                                \
  "  uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),\n"                        \
  "  hot INTEGER NOT NULL CHECK (hot IN (0, 1)),\n"                           \
  "  lo INTEGER NOT NULL CHECK (lo > 0),\n"                                   \
  "  hi INTEGER NOT NULL,\n"                                                  \
  "  threshold REAL NOT NULL CHECK (threshold >= 0 AND threshold < 1),\n"     \
  "  method TEXT NOT NULL DEFAULT '',\n"                                      \
  "  CHECK (hi >= lo)\n"

/* The kernel a curve, rule or validation time is of: a cuBLAS mode, or a
 * candidate (candidate_id, NULL for cuBLAS). */
#define KERNEL_DDL                                                            \
  "  kernel TEXT NOT NULL\n"                                                  \
  "    CHECK (kernel IN ('cublas', 'cublas_atomics', 'candidate')),\n"        \
  "  candidate_id INTEGER REFERENCES candidate (id),\n"

static const struct migration migrations[] = {
  /* v1: the device fingerprint, candidates, their timings and baselines. */
  { "CREATE TABLE device (\n"
    "  id INTEGER PRIMARY KEY CHECK (id = 1),\n"
    "  name TEXT NOT NULL,\n"
    "  cc_major INTEGER NOT NULL,\n"
    "  cc_minor INTEGER NOT NULL,\n"
    "  sm_count INTEGER NOT NULL,\n"
    "  l2_bytes INTEGER NOT NULL,\n"
    "  mem_clock_khz INTEGER NOT NULL,\n"
    "  bus_width_bits INTEGER NOT NULL,\n"
    "  smem_per_sm INTEGER NOT NULL,\n"
    "  smem_per_block_optin INTEGER NOT NULL,\n"
    "  regs_per_sm INTEGER NOT NULL,\n"
    "  max_blocks_per_sm INTEGER NOT NULL,\n"
    "  max_threads_per_sm INTEGER NOT NULL,\n"
    "  driver_version INTEGER NOT NULL,\n"
    "  runtime_version INTEGER NOT NULL,\n"
    "  nvrtc_major INTEGER NOT NULL,\n"
    "  nvrtc_minor INTEGER NOT NULL,\n"
    "  copy_gbs REAL NOT NULL DEFAULT 0\n"
    ");\n"
    "CREATE TABLE candidate (\n"
    "  id INTEGER PRIMARY KEY,\n"
    CANDIDATE_DDL
    "  UNIQUE (family, block_size, ux, multiplicity, mx),\n"
    "  CHECK ((status = 'invalid') = (reason IS NOT NULL))\n"
    ");\n"
    "CREATE TABLE measurement (\n"
    "  candidate_id INTEGER NOT NULL REFERENCES candidate (id) ON DELETE CASCADE,\n"
    TIMING_DDL
    "  PRIMARY KEY (candidate_id, stage, n, uplo, hot)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE baseline (\n"
    "  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 63),\n"
    TIMING_DDL
    "  PRIMARY KEY (name, stage, n, uplo, hot)\n"
    ") WITHOUT ROWID;\n",
    { "device", "candidate", "measurement", "baseline", NULL }, { NULL } },

  /* v2: crash accounting for resume, and the log of sweep runs. */
  { "ALTER TABLE candidate ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;\n"
    "CREATE TABLE sweep_run (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  started TEXT NOT NULL,\n"
    "  finished TEXT,\n"
    "  options TEXT NOT NULL DEFAULT '',\n"
    "  compile_s REAL NOT NULL DEFAULT 0,\n"
    "  measure_s REAL NOT NULL DEFAULT 0\n"
    ");\n",
    { "sweep_run", NULL }, { NULL } },

  /* v3: fits (doc/method.md section 4 steps 6-8): the d-spline curves of the
   * dense samples and the dispatch rules chosen from them. A rule or curve
   * names a candidate (candidate_id) or a cuBLAS mode (candidate_id NULL). */
  { "CREATE TABLE fit (\n"
    "  id INTEGER PRIMARY KEY,\n"
    FIT_DDL
    ");\n"
    "CREATE TABLE fit_curve (\n"
    "  fit_id INTEGER NOT NULL REFERENCES fit (id) ON DELETE CASCADE,\n"
    "  seq INTEGER NOT NULL,\n"
    KERNEL_DDL
    "  alpha REAL NOT NULL CHECK (alpha > 0),\n"
    "  nsamples INTEGER NOT NULL CHECK (nsamples >= 0),\n"
    "  rms_rel REAL NOT NULL CHECK (rms_rel >= 0),\n"
    "  PRIMARY KEY (fit_id, seq),\n"
    "  CHECK ((kernel = 'candidate') = (candidate_id IS NOT NULL))\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE fit_rule (\n"
    "  fit_id INTEGER NOT NULL REFERENCES fit (id) ON DELETE CASCADE,\n"
    "  n_start INTEGER NOT NULL,\n"
    "  n_end INTEGER NOT NULL,\n"
    KERNEL_DDL
    "  predicted_us REAL NOT NULL CHECK (predicted_us > 0),\n"
    "  predicted_gain REAL NOT NULL CHECK (predicted_gain > 0),\n"
    "  PRIMARY KEY (fit_id, n_start),\n"
    "  CHECK (n_end >= n_start),\n"
    "  CHECK ((kernel = 'candidate') = (candidate_id IS NOT NULL))\n"
    ") WITHOUT ROWID;\n",
    { "fit", "fit_curve", "fit_rule", NULL }, { NULL } },

  /* v4: every routine in one file. Candidates, baselines and fits gain a
   * routine, part of the unique key of the first two; the rows of a
   * version 3 file were all dsymv's. Measurements, curves and rules keep
   * their candidate and fit ids, which the rebuilds preserve. */
  { "CREATE TABLE candidate_v4 (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  routine TEXT NOT NULL " ROUTINE_CHECK ",\n"
    CANDIDATE_DDL
    "  attempts INTEGER NOT NULL DEFAULT 0,\n"
    "  UNIQUE (routine, family, block_size, ux, multiplicity, mx),\n"
    "  CHECK ((status = 'invalid') = (reason IS NOT NULL))\n"
    ");\n"
    "INSERT INTO candidate_v4 (id, routine, family, block_size, ux,\n"
    "  multiplicity, mx, status, reason, detail, compile_ms, regs_per_thread,\n"
    "  attempts)\n"
    "  SELECT id, 'dsymv', family, block_size, ux, multiplicity, mx, status,\n"
    "    reason, detail, compile_ms, regs_per_thread, attempts FROM candidate;\n"
    "DROP TABLE candidate;\n"
    "ALTER TABLE candidate_v4 RENAME TO candidate;\n"
    "CREATE TABLE baseline_v4 (\n"
    "  routine TEXT NOT NULL " ROUTINE_CHECK ",\n"
    "  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 63),\n"
    TIMING_DDL
    "  PRIMARY KEY (routine, name, stage, n, uplo, hot)\n"
    ") WITHOUT ROWID;\n"
    "INSERT INTO baseline_v4 (routine, name, stage, n, uplo, hot, median_us,\n"
    "  min_us, max_us, batches, calls_per_batch, gflops, gbs, residual)\n"
    "  SELECT 'dsymv', name, stage, n, uplo, hot, median_us, min_us, max_us,\n"
    "    batches, calls_per_batch, gflops, gbs, residual FROM baseline;\n"
    "DROP TABLE baseline;\n"
    "ALTER TABLE baseline_v4 RENAME TO baseline;\n"
    "CREATE TABLE fit_v4 (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  routine TEXT NOT NULL " ROUTINE_CHECK ",\n"
    FIT_DDL
    ");\n"
    "INSERT INTO fit_v4 (id, routine, created, uplo, hot, lo, hi, threshold,\n"
    "  method)\n"
    "  SELECT id, 'dsymv', created, uplo, hot, lo, hi, threshold, method\n"
    "    FROM fit;\n"
    "DROP TABLE fit;\n"
    "ALTER TABLE fit_v4 RENAME TO fit;\n",
    { NULL },
    { "candidate", "baseline", "fit", NULL } },

  /* v5: a fit's rules are of one atomics class: 'any' (every kernel and
   * both cuBLAS modes; what cuBLAS's CUBLAS_ATOMICS_ALLOWED permits) or
   * 'deterministic' (only kernels whose result is bitwise reproducible run
   * after run, and cuBLAS with atomics off: what the default
   * CUBLAS_ATOMICS_NOT_ALLOWED promises). Fits made before were of
   * every kernel: 'any'. */
  { "ALTER TABLE fit ADD COLUMN atomics TEXT NOT NULL DEFAULT 'any'\n"
    "  CHECK (atomics IN ('any', 'deterministic'));\n",
    { NULL }, { NULL } },

  /* v6: validation runs (`symvtune validate`): a fit's rules judged at
   * sizes no stage sampled, with every kernel it chose from timed there in
   * one run; `chosen` marks the kernel the rules name at that n. */
  { "CREATE TABLE validation_run (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  fit_id INTEGER NOT NULL REFERENCES fit (id) ON DELETE CASCADE,\n"
    "  created TEXT NOT NULL,\n"
    "  seed INTEGER NOT NULL,\n"
    "  regret_median REAL NOT NULL CHECK (regret_median >= 1),\n"
    "  regret_p90 REAL NOT NULL CHECK (regret_p90 >= 1),\n"
    "  regret_max REAL NOT NULL CHECK (regret_max >= 1)\n"
    ");\n"
    "CREATE TABLE validation_time (\n"
    "  run_id INTEGER NOT NULL REFERENCES validation_run (id) ON DELETE CASCADE,\n"
    "  n INTEGER NOT NULL CHECK (n > 0),\n"
    KERNEL_DDL
    "  median_us REAL NOT NULL CHECK (median_us > 0),\n"
    "  predicted_us REAL,\n"
    "  chosen INTEGER NOT NULL CHECK (chosen IN (0, 1)),\n"
    "  CHECK ((kernel = 'candidate') = (candidate_id IS NOT NULL))\n"
    ");\n"
    /* for people at the sqlite3 prompt: every fit's rules, the latest fit
     * of each (routine, uplo, hot, atomics) first, kernels by name */
    "CREATE VIEW v_rules AS\n"
    "  SELECT f.routine, f.atomics, f.uplo, f.hot, f.id AS fit_id, f.created,\n"
    "    f.id = (SELECT max(g.id) FROM fit g WHERE g.routine = f.routine AND\n"
    "            g.uplo = f.uplo AND g.hot = f.hot AND g.atomics = f.atomics) AS latest,\n"
    "    r.n_start, r.n_end,\n"
    "    CASE r.kernel WHEN 'candidate' THEN c.family || ':' || c.block_size || ','\n"
    "      || c.ux || ',' || c.multiplicity || ',' || c.mx\n"
    "      WHEN 'cublas' THEN 'cuBLAS' ELSE 'cuBLAS-atomics' END AS kernel,\n"
    "    r.candidate_id, r.predicted_us, r.predicted_gain\n"
    "  FROM fit f JOIN fit_rule r ON r.fit_id = f.id\n"
    "  LEFT JOIN candidate c ON c.id = r.candidate_id\n"
    "  ORDER BY f.routine, f.atomics, latest DESC, f.id DESC, r.n_start;\n",
    { "validation_run", "validation_time", NULL }, { NULL } },

  /* v7: bench runs (`symvtune bench --db`): the library measured (its path
   * and what symvGetInfo says of it), the GPU and the handle's atomics
   * mode; per size, libsymv's time beside both cuBLAS modes' and the host
   * BLAS's, in microseconds. */
  { "CREATE TABLE bench_run (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  created TEXT NOT NULL,\n"
    "  symvtune TEXT NOT NULL,\n"
    "  lib_path TEXT NOT NULL CHECK (length(lib_path) > 0),\n"
    "  lib_version TEXT NOT NULL,\n"
    "  lib_tuned_gpu TEXT NOT NULL,\n"
    "  lib_arch TEXT NOT NULL,\n"
    "  atomics TEXT NOT NULL CHECK (atomics IN ('any', 'deterministic')),\n"
    "  hot INTEGER NOT NULL CHECK (hot IN (0, 1)),\n"
    "  batches INTEGER NOT NULL CHECK (batches >= 1),\n"
    "  device TEXT NOT NULL CHECK (length(device) > 0),\n"
    "  cc_major INTEGER NOT NULL CHECK (cc_major >= 1),\n"
    "  cc_minor INTEGER NOT NULL CHECK (cc_minor >= 0),\n"
    "  sm_count INTEGER NOT NULL CHECK (sm_count >= 1),\n"
    "  copy_gbs REAL CHECK (copy_gbs IS NULL OR copy_gbs > 0),\n"
    "  complete INTEGER NOT NULL CHECK (complete IN (0, 1))\n"
    ");\n"
    "CREATE TABLE bench_result (\n"
    "  run_id INTEGER NOT NULL REFERENCES bench_run (id) ON DELETE CASCADE,\n"
    "  routine TEXT NOT NULL " ROUTINE_CHECK ",\n"
    "  uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),\n"
    "  n INTEGER NOT NULL CHECK (n > 0),\n"
    "  kernel TEXT NOT NULL,\n"
    "  libsymv_us REAL NOT NULL CHECK (libsymv_us > 0),\n"
    "  cublas_us REAL NOT NULL CHECK (cublas_us > 0),\n"
    "  cublas_atomics_us REAL NOT NULL CHECK (cublas_atomics_us > 0),\n"
    "  openblas_us REAL CHECK (openblas_us IS NULL OR openblas_us > 0),\n"
    "  floor_us REAL CHECK (floor_us IS NULL OR floor_us > 0),\n"
    "  residual REAL CHECK (residual IS NULL OR residual >= 0),\n"
    "  pct_copy REAL CHECK (pct_copy IS NULL OR pct_copy >= 0),\n"
    "  PRIMARY KEY (run_id, routine, uplo, n)\n"
    ");\n"
    /* for people at the sqlite3 prompt: every bench, the latest run of each
     * (routine, atomics, uplo, hot, device) marked; x_ columns are the
     * other's time over libsymv's (> 1: libsymv faster); speedup is over
     * the cuBLAS mode the atomics class is judged against (the faster one
     * for 'any', the one without atomics for 'deterministic') */
    "CREATE VIEW v_bench AS\n"
    "  SELECT b.routine, r.atomics, b.uplo, r.hot, r.device, r.id AS run_id, r.created,\n"
    "    r.id = (SELECT max(q.id) FROM bench_run q JOIN bench_result c ON c.run_id = q.id\n"
    "            WHERE c.routine = b.routine AND c.uplo = b.uplo AND q.atomics = r.atomics\n"
    "            AND q.hot = r.hot AND q.device = r.device) AS latest,\n"
    "    b.n, b.kernel, b.libsymv_us, b.cublas_us, b.cublas_atomics_us, b.openblas_us,\n"
    "    round(b.cublas_us / b.libsymv_us, 3) AS x_cublas,\n"
    "    round(b.cublas_atomics_us / b.libsymv_us, 3) AS x_cublas_atomics,\n"
    "    round(b.openblas_us / b.libsymv_us, 3) AS x_openblas,\n"
    "    round(CASE r.atomics WHEN 'deterministic' THEN b.cublas_us\n"
    "      ELSE min(b.cublas_us, b.cublas_atomics_us) END / b.libsymv_us, 3) AS speedup,\n"
    "    round(b.libsymv_us / b.floor_us, 3) AS x_floor, b.pct_copy, b.residual,\n"
    "    r.lib_path, r.lib_version, r.lib_tuned_gpu, r.symvtune\n"
    "  FROM bench_run r JOIN bench_result b ON b.run_id = r.id\n"
    "  ORDER BY b.routine, r.atomics, b.uplo, r.hot, latest DESC, r.id DESC, b.n;\n",
    { "bench_run", "bench_result", NULL }, { NULL } },
};

_Static_assert(sizeof migrations / sizeof migrations[0] == DB_SCHEMA_VERSION,
               "one migration step per schema version");

/* ---- Tables of a version ---------------------------------------------------- */

/* Is `name` a table of schema version `version`? */
static int table_of_version(const char *name, int version)
{
  for (int v = 0; v < version; v++)
    for (const char *const *t = migrations[v].tables; *t; t++)
      if (strcmp(*t, name) == 0) return 1;
  return 0;
}

/* Tables outside the numbered schema versions, accepted beside those of
 * any version (db.h: the shard and kernel_code tables). */
static int table_auxiliary(const char *name)
{
  return strcmp(name, "shard") == 0 || strcmp(name, "kernel_code") == 0;
}

/* Check the tables of the open database against schema `version`: none
 * missing, none extra. SQLite's own (sqlite_*) and the auxiliary ones are
 * not counted. */
int db_check_tables(db *d, int version)
{
  static const char what[] = "listing the tables (sqlite_master)";
  sqlite3_stmt *st;
  int row, found = 0, status = db_query(d, &st, what,
    "SELECT name FROM sqlite_master WHERE type = 'table' "
    "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'", "");
  if (status) return status;
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    char name[128];
    if ((status = db_col_text(d, st, 0, name, sizeof name, what))) break;
    if (table_auxiliary(name)) continue;
    if (!table_of_version(name, version)) {
      status = db_fail(d, SYMV_DB_CORRUPT,
                       "not a symvtune database: unexpected table '%s' "
                       "(left untouched)", name);
      break;
    }
    found++;
  }
  status = db_end(d, st, what, status);
  if (status) return status;
  int expected = 0;
  for (int v = 0; v < version; v++)
    for (const char *const *t = migrations[v].tables; *t; t++) expected++;
  if (found != expected)
    return db_fail(d, SYMV_DB_CORRUPT,
                   "damaged symvtune database: %d of the %d tables of schema "
                   "version %d are missing (left untouched)",
                   expected - found, expected, version);
  return 0;
}

/* The file's PRAGMA application_id into *app_id, its PRAGMA user_version
 * into *version and the count of its schema objects (rows of sqlite_master)
 * into *ntables: what tells a symvtune database, a blank file and another
 * program's apart (db_inspect, and db_migrate under the write lock). */
int db_read_header(db *d, long long *app_id, long long *version, long long *ntables)
{
  int status = db_query_int(d, "PRAGMA application_id", "PRAGMA application_id",
                            app_id, NULL);
  if (status == 0)
    status = db_query_int(d, "PRAGMA user_version", "PRAGMA user_version",
                          version, NULL);
  if (status == 0)
    status = db_query_int(d, "counting tables (sqlite_master)",
                          "SELECT count(*) FROM sqlite_master", ntables, NULL);
  return status;
}

/* 0 when a file of schema version `version` is one this program reads (one
 * not above DB_SCHEMA_VERSION); else SYMV_DB_VERSION, db_fail'ed. */
int db_check_version(db *d, long long version)
{
  if (version <= DB_SCHEMA_VERSION) return 0;
  return db_fail(d, SYMV_DB_VERSION,
                 "schema version %lld is newer than this program's (%d); "
                 "use a newer symvtune (nothing was written)",
                 version, DB_SCHEMA_VERSION);
}

/* ---- Migration --------------------------------------------------------------- */

/* The schema objects a rebuild would lose, saved by db_save_schema: the
 * indexes of the rebuilt tables (DROP TABLE drops them), and every trigger
 * and view (one that names a dropped table would make the RENAME fail; they
 * are dropped first). db_restore_schema re-creates them from their SQL. */
typedef struct {
  char **sql;                /* CREATE statements: indexes, then views, then triggers */
  size_t n;
} saved_schema;

static void saved_schema_free(saved_schema *s)
{
  for (size_t i = 0; i < s->n; i++) sqlite3_free(s->sql[i]);
  free(s->sql);
  s->sql = NULL;
  s->n = 0;
}

static int db_save_schema(db *d, const char *const *rebuilds, saved_schema *out)
{
  static const char what[] = "listing the indexes, triggers and views (sqlite_master)";
  const char *t[5] = { NULL, NULL, NULL, NULL, NULL };
  for (int i = 0; i < 5 && rebuilds[i]; i++) t[i] = rebuilds[i];
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what,
    "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND "
    "(type IN ('trigger', 'view') OR (type = 'index' AND tbl_name IN "
    "(?1, ?2, ?3, ?4, ?5))) ORDER BY CASE type WHEN 'index' THEN 0 "
    "WHEN 'view' THEN 1 ELSE 2 END, rowid", "ttttt", t[0], t[1], t[2], t[3], t[4]);
  if (status) return status;
  size_t cap = 0, dcap = 0, ndrops = 0;
  char **drops = NULL;
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    const char *type = (const char *)sqlite3_column_text(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    const char *sql = (const char *)sqlite3_column_text(st, 2);
    if (!type || !name || !sql) {
      status = db_fail(d, SYMV_NO_MEMORY, "%s: out of memory", what);
      break;
    }
    char *create = NULL, *drop = NULL;
    if (db_grow((void **)&out->sql, &cap, out->n + 1, sizeof *out->sql) ||
        !(create = sqlite3_mprintf("%s", sql))) {
      status = db_fail(d, SYMV_NO_MEMORY, "%s: out of memory", what);
      break;
    }
    out->sql[out->n++] = create;
    if (strcmp(type, "index") == 0) continue;
    if (db_grow((void **)&drops, &dcap, ndrops + 1, sizeof *drops) ||
        !(drop = sqlite3_mprintf("DROP %s \"%w\"", strcmp(type, "view") == 0 ?
                                 "VIEW" : "TRIGGER", name))) {
      status = db_fail(d, SYMV_NO_MEMORY, "%s: out of memory", what);
      break;
    }
    drops[ndrops++] = drop;
  }
  status = db_end(d, st, what, status);
  for (size_t i = 0; i < ndrops; i++) {
    if (status == 0) status = db_exec_script(d, "dropping a trigger or view before a table rebuild", drops[i]);
    sqlite3_free(drops[i]);
  }
  free(drops);
  if (status) saved_schema_free(out);
  return status;
}

static int db_restore_schema(db *d, const saved_schema *s)
{
  for (size_t i = 0; i < s->n; i++) {
    int status = db_exec_script(d, "re-creating an index, trigger or view after a table rebuild", s->sql[i]);
    if (status) return status;
  }
  return 0;
}

/* PRAGMA foreign_key_check: no row references a row that is not there. */
static int db_foreign_key_check(db *d)
{
  static const char what[] = "PRAGMA foreign_key_check";
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what, "PRAGMA foreign_key_check", "");
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && row) {
    char table[128] = "", parent[128] = "";
    status = db_col_text(d, st, 0, table, sizeof table, what);
    if (status == 0) status = db_col_text(d, st, 2, parent, sizeof parent, what);
    if (status == 0)
      status = db_fail(d, SYMV_DB_CORRUPT, "damaged symvtune database: a row "
                       "of table '%s' references a row of '%s' that is not "
                       "there (PRAGMA foreign_key_check); the migration to "
                       "schema version %d was rolled back (left untouched)",
                       table, parent, DB_SCHEMA_VERSION);
  }
  return db_end(d, st, what, status);
}

/* Bring the connection from its schema version to DB_SCHEMA_VERSION in one
 * transaction; a blank database gets the application_id first. The version
 * is read again under the write lock: another process may have migrated the
 * file since db_inspect. Foreign keys are off during the migration (the
 * pragma is a no-op inside a transaction, so it is set around it) and on
 * after it, whatever happens; the migrated rows are checked by PRAGMA
 * foreign_key_check before the commit. */
int db_migrate(db *d)
{
  long long app_id, version, ntables;
  int status = db_exec_script(d, "PRAGMA foreign_keys = OFF (migration)",
                              "PRAGMA foreign_keys = OFF");
  if (status) return status;
  status = db_exec(d, "BEGIN IMMEDIATE (migration)", "BEGIN IMMEDIATE", "");
  if (status) goto out;
  status = db_read_header(d, &app_id, &version, &ntables);
  if (status) goto fail;

  if ((status = db_check_version(d, version))) goto fail;
  if (version == 0) {
    if (app_id != 0 || ntables != 0) {
      status = db_fail(d, SYMV_DB_CORRUPT, "not a symvtune database (changed "
                       "while it was being opened)");
      goto fail;
    }
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d", DB_APPLICATION_ID);
    if ((status = db_exec_script(d, "PRAGMA application_id (set)", sql))) goto fail;
  } else if (app_id != DB_APPLICATION_ID) {
    status = db_fail(d, SYMV_DB_CORRUPT, "not a symvtune database (changed "
                     "while it was being opened)");
    goto fail;
  }
  for (long long v = version; v < DB_SCHEMA_VERSION; v++) {
    char what[64];
    snprintf(what, sizeof what, "migration to schema version %lld", v + 1);
    saved_schema saved = { NULL, 0 };
    int rebuild = migrations[v].rebuilds[0] != NULL;
    if (rebuild) status = db_save_schema(d, migrations[v].rebuilds, &saved);
    if (status == 0) status = db_exec_script(d, what, migrations[v].sql);
    if (status == 0 && rebuild) status = db_restore_schema(d, &saved);
    saved_schema_free(&saved);
    if (status) goto fail;
  }
  if (version < DB_SCHEMA_VERSION) {
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", DB_SCHEMA_VERSION);
    if ((status = db_exec_script(d, "PRAGMA user_version (set)", sql))) goto fail;
    if ((status = db_foreign_key_check(d))) goto fail;
  }
  status = db_exec(d, "COMMIT (migration)", "COMMIT", "");
  if (status) goto fail;
  goto out;

fail:
  db_abandon(d);  /* nothing is kept of a half-done migration */
out:
  /* Back on, even after a failure: the handle must not be left without. */
  sqlite3_exec(d->conn, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
  return status;
}
