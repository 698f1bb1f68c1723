/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * db.c - symvtune's results database: schema, migrations, and the queries
 * of the pipeline's stages (see db.h for the contract of each function).
 *
 * Opening is done in two steps so that a file which is not ours is never
 * written: a read-only connection first inspects it (SQLite header,
 * application_id, user_version, table names, PRAGMA quick_check), and only a
 * file that passes is reopened for writing and migrated. Opening read-write
 * and inspecting there would not do: closing a read-write connection to
 * someone else's WAL database checkpoints it, and one with a hot rollback
 * journal is rolled back on first read. The file's journal mode is switched
 * to WAL only after a migration has committed, so that a migration that
 * fails leaves the file's bytes as they were. A read-only open of an older
 * schema migrates a private in-memory copy of the file instead.
 */
#include "db/db.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "params.h"
#include "symv_error.h"
#include "util.h"
#include "../kernels/symv_mx.h"

/* How long a statement waits for another process's lock, milliseconds. */
#define DB_BUSY_TIMEOUT_MS 10000

/* Longest baseline name, characters (matches the CHECK of the schema). */
#define DB_BASELINE_NAME_MAX 63

struct db {
  sqlite3 *conn;        /* the connection; NULL before open succeeds */
  char *path;           /* file name, for messages */
  int readonly;         /* opened with DB_READONLY */
  char errmsg[1024];    /* last error, "" if none */
  char warning[1024];   /* last db_check_device warning, "" if none */
};

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

/* The routines, in the canonical order; the CHECK of schema version 4 lists
 * the same names. */
static const char *const routine_names[DB_ROUTINE_COUNT] = {
  "ssymv", "dsymv", "csymv", "zsymv", "chemv", "zhemv"
};

#define ROUTINE_CHECK \
  "CHECK (routine IN ('ssymv', 'dsymv', 'csymv', 'zsymv', 'chemv', 'zhemv'))"

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
    "  family TEXT NOT NULL,\n"
    "  block_size INTEGER NOT NULL,\n"
    "  ux INTEGER NOT NULL,\n"
    "  multiplicity INTEGER NOT NULL,\n"
    "  mx INTEGER NOT NULL,\n"
    "  status TEXT NOT NULL DEFAULT 'pending'\n"
    "    CHECK (status IN ('pending', 'valid', 'invalid')),\n"
    "  reason TEXT CHECK (reason IN ('resources', 'occupancy', 'compile',\n"
    "    'launch', 'fault', 'timeout', 'wrong')),\n"
    "  detail TEXT NOT NULL DEFAULT '',\n"
    "  compile_ms REAL NOT NULL DEFAULT 0,\n"
    "  regs_per_thread INTEGER NOT NULL DEFAULT 0,\n"
    "  UNIQUE (family, block_size, ux, multiplicity, mx),\n"
    "  CHECK ((status = 'invalid') = (reason IS NOT NULL))\n"
    ");\n"
    "CREATE TABLE measurement (\n"
    "  candidate_id INTEGER NOT NULL REFERENCES candidate (id) ON DELETE CASCADE,\n"
    "  stage TEXT NOT NULL CHECK (stage IN ('sweep', 'dense')),\n"
    "  n INTEGER NOT NULL CHECK (n > 0),\n"
    "  uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),\n"
    "  hot INTEGER NOT NULL CHECK (hot IN (0, 1)),\n"
    "  median_us REAL NOT NULL,\n"
    "  min_us REAL NOT NULL,\n"
    "  max_us REAL NOT NULL,\n"
    "  batches INTEGER NOT NULL,\n"
    "  calls_per_batch INTEGER NOT NULL,\n"
    "  gflops REAL NOT NULL,\n"
    "  gbs REAL NOT NULL,\n"
    "  residual REAL NOT NULL,\n"
    "  PRIMARY KEY (candidate_id, stage, n, uplo, hot)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE baseline (\n"
    "  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 63),\n"
    "  stage TEXT NOT NULL CHECK (stage IN ('sweep', 'dense')),\n"
    "  n INTEGER NOT NULL CHECK (n > 0),\n"
    "  uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),\n"
    "  hot INTEGER NOT NULL CHECK (hot IN (0, 1)),\n"
    "  median_us REAL NOT NULL,\n"
    "  min_us REAL NOT NULL,\n"
    "  max_us REAL NOT NULL,\n"
    "  batches INTEGER NOT NULL,\n"
    "  calls_per_batch INTEGER NOT NULL,\n"
    "  gflops REAL NOT NULL,\n"
    "  gbs REAL NOT NULL,\n"
    "  residual REAL NOT NULL,\n"
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
    "  created TEXT NOT NULL,\n"
    "  uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),\n"
    "  hot INTEGER NOT NULL CHECK (hot IN (0, 1)),\n"
    "  lo INTEGER NOT NULL CHECK (lo > 0),\n"
    "  hi INTEGER NOT NULL,\n"
    "  threshold REAL NOT NULL CHECK (threshold >= 0 AND threshold < 1),\n"
    "  method TEXT NOT NULL DEFAULT '',\n"
    "  CHECK (hi >= lo)\n"
    ");\n"
    "CREATE TABLE fit_curve (\n"
    "  fit_id INTEGER NOT NULL REFERENCES fit (id) ON DELETE CASCADE,\n"
    "  seq INTEGER NOT NULL,\n"
    "  kernel TEXT NOT NULL\n"
    "    CHECK (kernel IN ('cublas', 'cublas_atomics', 'candidate')),\n"
    "  candidate_id INTEGER REFERENCES candidate (id),\n"
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
    "  kernel TEXT NOT NULL\n"
    "    CHECK (kernel IN ('cublas', 'cublas_atomics', 'candidate')),\n"
    "  candidate_id INTEGER REFERENCES candidate (id),\n"
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
    "  family TEXT NOT NULL,\n"
    "  block_size INTEGER NOT NULL,\n"
    "  ux INTEGER NOT NULL,\n"
    "  multiplicity INTEGER NOT NULL,\n"
    "  mx INTEGER NOT NULL,\n"
    "  status TEXT NOT NULL DEFAULT 'pending'\n"
    "    CHECK (status IN ('pending', 'valid', 'invalid')),\n"
    "  reason TEXT CHECK (reason IN ('resources', 'occupancy', 'compile',\n"
    "    'launch', 'fault', 'timeout', 'wrong')),\n"
    "  detail TEXT NOT NULL DEFAULT '',\n"
    "  compile_ms REAL NOT NULL DEFAULT 0,\n"
    "  regs_per_thread INTEGER NOT NULL DEFAULT 0,\n"
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
    "  stage TEXT NOT NULL CHECK (stage IN ('sweep', 'dense')),\n"
    "  n INTEGER NOT NULL CHECK (n > 0),\n"
    "  uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),\n"
    "  hot INTEGER NOT NULL CHECK (hot IN (0, 1)),\n"
    "  median_us REAL NOT NULL,\n"
    "  min_us REAL NOT NULL,\n"
    "  max_us REAL NOT NULL,\n"
    "  batches INTEGER NOT NULL,\n"
    "  calls_per_batch INTEGER NOT NULL,\n"
    "  gflops REAL NOT NULL,\n"
    "  gbs REAL NOT NULL,\n"
    "  residual REAL NOT NULL,\n"
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
    "  created TEXT NOT NULL,\n"
    "  uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),\n"
    "  hot INTEGER NOT NULL CHECK (hot IN (0, 1)),\n"
    "  lo INTEGER NOT NULL CHECK (lo > 0),\n"
    "  hi INTEGER NOT NULL,\n"
    "  threshold REAL NOT NULL CHECK (threshold >= 0 AND threshold < 1),\n"
    "  method TEXT NOT NULL DEFAULT '',\n"
    "  CHECK (hi >= lo)\n"
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
    "  kernel TEXT NOT NULL\n"
    "    CHECK (kernel IN ('cublas', 'cublas_atomics', 'candidate')),\n"
    "  candidate_id INTEGER REFERENCES candidate (id),\n"
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

/* ---- Names ---------------------------------------------------------------- */

static const char *const status_names[] = {
#define DB_XX_NAME(name, text) text,
  DB_STATUS_MAP(DB_XX_NAME)
#undef DB_XX_NAME
};

static const char *const reason_names[] = {
#define DB_XX_NAME(name, text) text,
  DB_REASON_MAP(DB_XX_NAME)
#undef DB_XX_NAME
};

static const char *const stage_names[DB_STAGE_COUNT] = { "sweep", "dense" };

const char *db_status_name(int status)
{
  return status >= 0 && status < DB_STATUS_COUNT ? status_names[status] : "?";
}

const char *db_reason_name(int reason)
{
  return reason >= 0 && reason < DB_REASON_COUNT ? reason_names[reason] : "?";
}

const char *db_stage_name(int stage)
{
  return stage >= 0 && stage < DB_STAGE_COUNT ? stage_names[stage] : "?";
}

/* Index of `s` in names[0..count), or -1. */
static int name_index(const char *const *names, int count, const char *s)
{
  for (int i = 0; i < count; i++)
    if (strcmp(names[i], s) == 0) return i;
  return -1;
}

/* Index of routine `name` in the canonical order, or -1 (NULL included). */
static int routine_index(const char *name)
{
  if (!name || strnlen(name, DB_ROUTINE_SIZE) >= DB_ROUTINE_SIZE) return -1;
  return name_index(routine_names, DB_ROUTINE_COUNT, name);
}

int db_routine_valid(const char *name)
{
  return routine_index(name) >= 0;
}

const char *db_routine_name(int index)
{
  return index >= 0 && index < DB_ROUTINE_COUNT ? routine_names[index] : NULL;
}

/* ---- Errors --------------------------------------------------------------- */

/* Record a message "path: fmt..." on d and return `status`. */
static int db_fail(db *d, int status, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

static int db_fail(db *d, int status, const char *fmt, ...)
{
  /* the message names what the file holds, which may be anything: it is
   * escaped for the terminal it will be printed on */
  char raw[sizeof d->errmsg];
  int len = snprintf(raw, sizeof raw, "%s: ", d->path ? d->path : "(no path)");
  if (len < 0 || (size_t)len >= sizeof raw) len = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw + len, sizeof raw - len, fmt, ap);
  va_end(ap);
  symv_escape(raw, d->errmsg, sizeof d->errmsg);
  return status;
}

/* The symvtune status for SQLite result code rc (primary or extended). */
static int status_of(int rc)
{
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) return SYMV_NOT_FOUND;
  switch (rc & 0xff) {
  case SQLITE_NOMEM:    return SYMV_NO_MEMORY;
  case SQLITE_CORRUPT:
  case SQLITE_NOTADB:   return SYMV_DB_CORRUPT;
  case SQLITE_IOERR:
  case SQLITE_FULL:
  case SQLITE_CANTOPEN: return SYMV_IO;
  default:              return SYMV_DB;
  }
}

/* Record that "<verb> <what>" failed with SQLite code rc, and return the
 * matching status. */
static int db_sqlerr(db *d, int rc, const char *verb, const char *what)
{
  return db_fail(d, status_of(rc), "%s %s failed: %s (SQLite code %d)", verb,
                 what, d->conn ? sqlite3_errmsg(d->conn) : sqlite3_errstr(rc), rc);
}

/* ---- Statements ------------------------------------------------------------
 *
 * db_query prepares `sql` and binds its parameters from `types`, one letter
 * per parameter: i int, I long long, d double, t const char * (NULL binds
 * NULL), c a char passed as int (bound as a one-letter text; 0 binds NULL),
 * N an int (a negative one binds NULL). db_next steps,
 * db_end finalizes. `what` names the statement in error messages.
 */
static int db_bindv(db *d, sqlite3_stmt *st, const char *what,
                    const char *types, va_list ap)
{
  for (int i = 0; types[i]; i++) {
    int k = i + 1, rc;
    switch (types[i]) {
    case 'i': rc = sqlite3_bind_int(st, k, va_arg(ap, int)); break;
    case 'I': rc = sqlite3_bind_int64(st, k, (sqlite3_int64)va_arg(ap, long long)); break;
    case 'd': rc = sqlite3_bind_double(st, k, va_arg(ap, double)); break;
    case 'D': { /* a double, NULL if not finite */
      double v = va_arg(ap, double);
      rc = isfinite(v) ? sqlite3_bind_double(st, k, v) : sqlite3_bind_null(st, k);
      break;
    }
    case 't': {
      const char *s = va_arg(ap, const char *);
      rc = s ? sqlite3_bind_text(st, k, s, -1, SQLITE_TRANSIENT)
             : sqlite3_bind_null(st, k);
      break;
    }
    case 'c': {
      char s[2] = { (char)va_arg(ap, int), 0 };
      rc = s[0] ? sqlite3_bind_text(st, k, s, 1, SQLITE_TRANSIENT)
                : sqlite3_bind_null(st, k);
      break;
    }
    case 'N': {
      int v = va_arg(ap, int);
      rc = v >= 0 ? sqlite3_bind_int(st, k, v) : sqlite3_bind_null(st, k);
      break;
    }
    default:
      return db_fail(d, SYMV_INVALID_VALUE, "binding %s: bad type letter '%c'",
                     what, types[i]);
    }
    if (rc != SQLITE_OK) return db_sqlerr(d, rc, "binding a parameter of", what);
  }
  return 0;
}

static int db_queryv(db *d, sqlite3_stmt **st, const char *what,
                     const char *sql, const char *types, va_list ap)
{
  *st = NULL;
  int rc = sqlite3_prepare_v2(d->conn, sql, -1, st, NULL);
  if (rc != SQLITE_OK) {
    int status = db_sqlerr(d, rc, "preparing", what);
    sqlite3_finalize(*st);
    *st = NULL;
    return status;
  }
  int status = db_bindv(d, *st, what, types, ap);
  if (status) {
    sqlite3_finalize(*st);
    *st = NULL;
  }
  return status;
}

static int db_query(db *d, sqlite3_stmt **st, const char *what,
                    const char *sql, const char *types, ...)
{
  va_list ap;
  va_start(ap, types);
  int status = db_queryv(d, st, what, sql, types, ap);
  va_end(ap);
  return status;
}

/* Step st: *row = 1 if a row is ready, 0 when done. */
static int db_next(db *d, sqlite3_stmt *st, const char *what, int *row)
{
  int rc = sqlite3_step(st);
  *row = rc == SQLITE_ROW;
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) return 0;
  return db_sqlerr(d, rc, "running", what);
}

/* Finalize st and return `status`, or finalize's error if status was 0. */
static int db_end(db *d, sqlite3_stmt *st, const char *what, int status)
{
  int rc = sqlite3_finalize(st);
  if (status == 0 && rc != SQLITE_OK) return db_sqlerr(d, rc, "finalizing", what);
  return status;
}

/* Run a statement that returns no rows (or whose rows are not wanted). */
static int db_exec(db *d, const char *what, const char *sql,
                   const char *types, ...)
{
  sqlite3_stmt *st;
  va_list ap;
  va_start(ap, types);
  int status = db_queryv(d, &st, what, sql, types, ap);
  va_end(ap);
  if (status) return status;
  int row;
  do
    status = db_next(d, st, what, &row);
  while (status == 0 && row);
  return db_end(d, st, what, status);
}

/* Run a query returning one integer: *value = first column of the first row;
 * *found = 0 (and *value untouched) if there is no row. found may be NULL
 * when a row always comes back. */
static int db_query_int(db *d, const char *what, const char *sql,
                        long long *value, int *found)
{
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what, sql, "");
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && row) *value = sqlite3_column_int64(st, 0);
  if (status == 0 && !row && !found)
    status = db_fail(d, SYMV_DB, "%s returned no row", what);
  if (found) *found = row;
  return db_end(d, st, what, status);
}

/* col_int for a 64-bit value (sizes in bytes, row ids, counts). */
static int col_int64(db *d, sqlite3_stmt *st, int i, long long lo, long long hi,
                     const char *row, const char *column, long long *out)
{
  int type = sqlite3_column_type(st, i);
  if (type != SQLITE_INTEGER) {
    static const char *const types[] = {"?", "an integer", "a real number", "text", "a blob", "NULL"};
    return db_fail(d, SYMV_DB_CORRUPT, "%s: %s is %s, not an integer (a damaged "
                   "or hand-edited database)", row, column, types[type >= 1 && type <= 5 ? type : 0]);
  }
  long long v = sqlite3_column_int64(st, i);
  if (v < lo || v > hi)
    return db_fail(d, SYMV_DB_CORRUPT, "%s: %s is %lld, outside %lld..%lld (a "
                   "damaged or hand-edited database)", row, column, v, lo, hi);
  *out = v;
  return 0;
}

/* Copy text column i into buf (truncating); NULL reads as "". */
static int col_text(db *d, sqlite3_stmt *st, int i, char *buf, size_t size,
                    const char *what)
{
  const unsigned char *s = sqlite3_column_text(st, i);
  if (!s && sqlite3_column_type(st, i) != SQLITE_NULL)
    return db_fail(d, SYMV_NO_MEMORY, "reading a column of %s: out of memory", what);
  snprintf(buf, size, "%s", s ? (const char *)s : "");
  return 0;
}

/* Integer column i of the row `row` (e.g. "candidate 12"), named `column`,
 * into *out as an int in lo..hi. The value is read as 64 bits, so that
 * 2^32 + 128 is not taken for 128; a value of another type (text, real,
 * blob, NULL) or out of range is a damaged or hand-edited file:
 * SYMV_DB_CORRUPT, with the row, the column and the value in the message. */
static int col_int(db *d, sqlite3_stmt *st, int i, long long lo, long long hi,
                   const char *row, const char *column, int *out)
{
  long long v = 0;
  int status = col_int64(d, st, i, lo, hi, row, column, &v);
  if (status == 0) *out = (int)v;  /* lo..hi is inside int's range */
  return status;
}

/* Text values are checked before they are bound: a C string that would not
 * fit back into its struct field, or an empty one, is refused. */
static int text_ok(const char *s, size_t size)
{
  return s && s[0] && strnlen(s, size) < size;
}

/* Grow *array (of *cap elements of `size` bytes) to hold at least `need`. */
static int grow(void **array, size_t *cap, size_t need, size_t size)
{
  if (need <= *cap) return 0;
  size_t n = *cap ? 2 * *cap : 64;
  while (n < need) n *= 2;
  void *p = realloc(*array, n * size);
  if (!p) return SYMV_NO_MEMORY;
  *array = p;
  *cap = n;
  return 0;
}

static int finite_nonneg(double x)
{
  return isfinite(x) && x >= 0;
}

/* Roll back after an error. ROLLBACK's own failure is not reported: the
 * first error is the one worth reading, and after some errors SQLite has
 * already rolled back, so that ROLLBACK then fails with "no transaction". */
static void db_abandon(db *d)
{
  sqlite3_exec(d->conn, "ROLLBACK", NULL, NULL, NULL);
}

/* Run `sql`, a fixed text of statements without parameters. */
static int db_exec_script(db *d, const char *what, const char *sql)
{
  int rc = sqlite3_exec(d->conn, sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK) return db_sqlerr(d, rc, "running", what);
  return 0;
}

/* ---- Opening ---------------------------------------------------------------- */

enum { FILE_MISSING, FILE_EMPTY, FILE_SQLITE };

/* Classify d->path by its first bytes, without opening it with SQLite. */
static int db_probe_file(db *d, int *kind)
{
  static const char header[16] = "SQLite format 3";  /* with its NUL */
  struct stat sb;
  if (stat(d->path, &sb) != 0) {
    if (errno == ENOENT) {
      *kind = FILE_MISSING;
      return 0;
    }
    return db_fail(d, SYMV_IO, "cannot stat: %s", strerror(errno));
  }
  if (!S_ISREG(sb.st_mode))
    return db_fail(d, SYMV_IO, "not a regular file");
  if (sb.st_size == 0) {
    *kind = FILE_EMPTY;
    return 0;
  }
  FILE *f = fopen(d->path, "rb");
  if (!f) return db_fail(d, SYMV_IO, "cannot open: %s", strerror(errno));
  char buf[sizeof header];
  size_t got = fread(buf, 1, sizeof buf, f);
  int read_error = ferror(f);
  fclose(f);
  if (read_error) return db_fail(d, SYMV_IO, "cannot read its header");
  if (got < sizeof buf || memcmp(buf, header, sizeof header) != 0)
    return db_fail(d, SYMV_DB_CORRUPT,
                   "not a symvtune database: not an SQLite file at all "
                   "(left untouched)");
  *kind = FILE_SQLITE;
  return 0;
}

/* Open d->conn on `filename` (d->path, or ":memory:") with SQLite flags
 * `flags`, extended result codes and the busy timeout. */
static int db_connect_to(db *d, const char *filename, int flags)
{
  int rc = sqlite3_open_v2(filename, &d->conn, flags, NULL);
  if (rc != SQLITE_OK) {
    int status = db_sqlerr(d, rc, "opening", "the database");
    sqlite3_close(d->conn);  /* the failed handle is only freed */
    d->conn = NULL;
    return status;
  }
  rc = sqlite3_extended_result_codes(d->conn, 1);
  if (rc == SQLITE_OK) rc = sqlite3_busy_timeout(d->conn, DB_BUSY_TIMEOUT_MS);
  if (rc != SQLITE_OK) return db_sqlerr(d, rc, "configuring", "the connection");
  return 0;
}

static int db_connect(db *d, int flags)
{
  return db_connect_to(d, d->path, flags);
}

static void db_disconnect(db *d)
{
  /* Only read-only connections are dropped this way, between the steps of
   * db_open; nothing is pending, so a failure to close loses nothing. */
  sqlite3_close(d->conn);
  d->conn = NULL;
}

/* Opens a read-only connection that can read the file where it lies. A
 * database in WAL mode (every one a writer has opened) needs its -shm file,
 * and SQLite creates it (and an empty -wal) if missing; in a folder that
 * cannot be written that fails (SQLITE_READONLY_DIRECTORY, or CANTOPEN).
 * Then, if there is no -wal file with content (whose commits the file
 * would lack), the file is reopened immutable (URI immutable=1: no locks,
 * no -shm, no -wal; sqlite.org/uri.html), which reads it as it is. With a
 * -wal of content that cannot be read without its -shm the open fails with
 * a message saying so. */
static int db_connect_reader(db *d)
{
  int status = db_connect(d, SQLITE_OPEN_READONLY);
  if (status) return status;
  int rc = sqlite3_exec(d->conn, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
  if (rc == SQLITE_OK) return 0;
  if ((rc & 0xff) != SQLITE_READONLY && (rc & 0xff) != SQLITE_CANTOPEN)
    return db_sqlerr(d, rc, "reading", "the schema");
  db_disconnect(d);
  char wal[PATH_MAX + 8], real[PATH_MAX];
  struct stat st;
  snprintf(wal, sizeof wal, "%s-wal", d->path);
  if (stat(wal, &st) == 0 && st.st_size > 0)
    return db_fail(d, SYMV_IO, "cannot be read here: its write-ahead log %s holds commits, and the folder cannot "
                   "be written to make the shared-memory file that reading them needs (open it once where it "
                   "can be written, or copy the database with its -wal file to such a place)", wal);
  if (!realpath(d->path, real))
    return db_fail(d, SYMV_IO, "cannot resolve the file name: %s", strerror(errno));
  /* file:PATH?immutable=1, PATH percent-encoded but for unreserved bytes */
  char uri[3 * PATH_MAX + 32];
  size_t k = (size_t)snprintf(uri, sizeof uri, "file:");
  for (const unsigned char *c = (const unsigned char *)real; *c; c++)
    k += (size_t)snprintf(uri + k, sizeof uri - k, (isalnum(*c) || strchr("/._-~", *c)) ? "%c" : "%%%02X", *c);
  snprintf(uri + k, sizeof uri - k, "?immutable=1");
  status = db_connect_to(d, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  if (status == 0 && (rc = sqlite3_exec(d->conn, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL)))
    status = db_sqlerr(d, rc, "reading", "the schema (immutable)");
  return status;
}

/* The connection of a read-only handle of the current schema. Where the
 * file and its folder can be written, a read-write connection that refuses
 * writes (PRAGMA query_only): closing the last connection then removes the
 * -wal and -shm files that reading a WAL database makes, as a read-only
 * connection cannot. Only with no -wal file of content (left by a writer that
 * did not finish), so that the close has nothing to move into the file: the
 * file's bytes stay as they were. Elsewhere db_connect_reader. */
static int db_connect_query_only(db *d)
{
  char folder[PATH_MAX + 8];
  snprintf(folder, sizeof folder, "%s", d->path);
  char *slash = strrchr(folder, '/');
  if (!slash) snprintf(folder, sizeof folder, ".");
  else if (slash == folder) folder[1] = 0;
  else *slash = 0;
  char wal[PATH_MAX + 8];
  struct stat st;
  snprintf(wal, sizeof wal, "%s-wal", d->path);
  int wal_empty = stat(wal, &st) != 0 || st.st_size == 0; /* closing then moves nothing into the file */
  if (wal_empty && access(d->path, W_OK) == 0 && access(folder, W_OK) == 0 &&
      db_connect(d, SQLITE_OPEN_READWRITE) == 0) {
    int rc = sqlite3_exec(d->conn, "PRAGMA query_only = ON; SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
    if (rc == SQLITE_OK) return 0;
    sqlite3_close(d->conn);
    d->conn = NULL;
  }
  return db_connect_reader(d);
}

/* Is `name` a table of schema version `version`? */
static int table_of_version(const char *name, int version)
{
  for (int v = 0; v < version; v++)
    for (const char *const *t = migrations[v].tables; *t; t++)
      if (strcmp(*t, name) == 0) return 1;
  return 0;
}

/* Tables outside the numbered schema versions, accepted beside those of
 * any version (db.h: the shard table). */
static int table_auxiliary(const char *name)
{
  return strcmp(name, "shard") == 0;
}

/* Check the tables of the open database against schema `version`: none
 * missing, none extra. SQLite's own (sqlite_*) and the auxiliary ones are
 * not counted. */
static int db_check_tables(db *d, int version)
{
  static const char what[] = "listing the tables (sqlite_master)";
  sqlite3_stmt *st;
  int row, found = 0, status = db_query(d, &st, what,
    "SELECT name FROM sqlite_master WHERE type = 'table' "
    "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'", "");
  if (status) return status;
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    char name[128];
    if ((status = col_text(d, st, 0, name, sizeof name, what))) break;
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

/* PRAGMA quick_check: the b-trees and records are well formed. */
static int db_quick_check(db *d)
{
  static const char what[] = "PRAGMA quick_check";
  sqlite3_stmt *st;
  int row;
  char result[256] = "";
  int status = db_query(d, &st, what, "PRAGMA quick_check(1)", "");
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && row) status = col_text(d, st, 0, result, sizeof result, what);
  status = db_end(d, st, what, status);
  for (char *c = result; *c; c++)
    if (*c == '\n') *c = ' ';  /* one line of message */
  if (status == 0 && strcmp(result, "ok") != 0)
    status = db_fail(d, SYMV_DB_CORRUPT,
                     "damaged symvtune database: PRAGMA quick_check says "
                     "\"%s\" (left untouched)", result);
  return status;
}

/* Inspect the existing SQLite file d->path through a read-only connection,
 * writing nothing. *version is its schema version; *blank = 1 for an SQLite
 * file with nothing in it (no tables, application_id and user_version 0). */
static int db_inspect(db *d, int *version, int *blank)
{
  int status = db_connect_reader(d);
  long long app_id = 0, user_version = 0, ntables = 0;
  if (status == 0)
    status = db_query_int(d, "PRAGMA application_id", "PRAGMA application_id",
                          &app_id, NULL);
  if (status == 0)
    status = db_query_int(d, "PRAGMA user_version", "PRAGMA user_version",
                          &user_version, NULL);
  if (status == 0)
    status = db_query_int(d, "counting tables (sqlite_master)",
                          "SELECT count(*) FROM sqlite_master", &ntables, NULL);
  if (status) goto out;

  *blank = app_id == 0 && user_version == 0 && ntables == 0;
  *version = (int)user_version;
  if (*blank) goto out;
  if (app_id != DB_APPLICATION_ID) {
    status = db_fail(d, SYMV_DB_CORRUPT,
                     "not a symvtune database: an SQLite database with "
                     "application_id 0x%08llx, not 0x%08x (left untouched)",
                     (unsigned long long)app_id & 0xffffffffu, DB_APPLICATION_ID);
    goto out;
  }
  if (user_version > DB_SCHEMA_VERSION) {
    status = db_fail(d, SYMV_DB_VERSION,
                     "schema version %lld is newer than this program's (%d); "
                     "use a newer symvtune (nothing was written)",
                     user_version, DB_SCHEMA_VERSION);
    goto out;
  }
  if (user_version < 1) {
    status = db_fail(d, SYMV_DB_CORRUPT,
                     "damaged symvtune database: schema version %lld "
                     "(left untouched)", user_version);
    goto out;
  }
  if ((status = db_check_tables(d, (int)user_version))) goto out;
  status = db_quick_check(d);
out:
  db_disconnect(d);
  return status;
}

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
    if (grow((void **)&out->sql, &cap, out->n + 1, sizeof *out->sql) ||
        !(create = sqlite3_mprintf("%s", sql))) {
      status = db_fail(d, SYMV_NO_MEMORY, "%s: out of memory", what);
      break;
    }
    out->sql[out->n++] = create;
    if (strcmp(type, "index") == 0) continue;
    if (grow((void **)&drops, &dcap, ndrops + 1, sizeof *drops) ||
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
    status = col_text(d, st, 0, table, sizeof table, what);
    if (status == 0) status = col_text(d, st, 2, parent, sizeof parent, what);
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
static int db_migrate(db *d)
{
  long long app_id, version, ntables;
  int status = db_exec_script(d, "PRAGMA foreign_keys = OFF (migration)",
                              "PRAGMA foreign_keys = OFF");
  if (status) return status;
  status = db_exec(d, "BEGIN IMMEDIATE (migration)", "BEGIN IMMEDIATE", "");
  if (status) goto out;
  status = db_query_int(d, "PRAGMA application_id", "PRAGMA application_id",
                        &app_id, NULL);
  if (status == 0)
    status = db_query_int(d, "PRAGMA user_version", "PRAGMA user_version",
                          &version, NULL);
  if (status == 0)
    status = db_query_int(d, "counting tables (sqlite_master)",
                          "SELECT count(*) FROM sqlite_master", &ntables, NULL);
  if (status) goto fail;

  if (version > DB_SCHEMA_VERSION) {
    status = db_fail(d, SYMV_DB_VERSION,
                     "schema version %lld is newer than this program's (%d); "
                     "use a newer symvtune (nothing was written)",
                     version, DB_SCHEMA_VERSION);
    goto fail;
  }
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

/* Read-write connection settings, after the migration: WAL (a migration
 * that fails has then not changed the file's header either) and foreign
 * keys. PRAGMA synchronous = FULL is set before the migration. */
static int db_configure(db *d)
{
  static const char what[] = "PRAGMA journal_mode = WAL";
  sqlite3_stmt *st;
  char mode[16] = "";
  int row, status = db_query(d, &st, what, what, "");
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && row) status = col_text(d, st, 0, mode, sizeof mode, what);
  status = db_end(d, st, what, status);
  if (status) return status;
  if (strcmp(mode, "wal") != 0)
    return db_fail(d, SYMV_DB, "%s: the journal stays in mode '%s'", what, mode);
  return db_exec_script(d, "PRAGMA foreign_keys = ON", "PRAGMA foreign_keys = ON");
}

/* A read-only open of an older schema: the file is read, through a
 * read-only connection, into a private in-memory database (the backup API
 * copies a consistent snapshot, WAL content included), the copy is migrated,
 * and the connection is made to refuse writes (PRAGMA query_only) as a
 * read-only one does. The file is never written. */
static int db_open_migrated_copy(db *d)
{
  int status = db_connect_reader(d);
  if (status) return status;
  sqlite3 *file = d->conn;
  d->conn = NULL;
  status = db_connect_to(d, ":memory:", SQLITE_OPEN_READWRITE);
  if (status == 0) {
    sqlite3_backup *b = sqlite3_backup_init(d->conn, "main", file, "main");
    if (!b) {
      status = db_sqlerr(d, sqlite3_extended_errcode(d->conn), "starting",
                         "the copy of an older schema into memory");
    } else {
      int rc = sqlite3_backup_step(b, -1);
      int rc_finish = sqlite3_backup_finish(b);
      if (rc == SQLITE_DONE) rc = rc_finish;
      if (rc != SQLITE_OK)
        status = db_fail(d, status_of(rc), "copying the file (schema version "
                         "older than this program's) into memory to migrate it "
                         "failed: %s (SQLite code %d)", sqlite3_errstr(rc), rc);
    }
  }
  sqlite3_close(file);  /* read-only, nothing pending */
  if (status == 0) status = db_migrate(d);
  if (status == 0)
    status = db_exec_script(d, "PRAGMA query_only = ON", "PRAGMA query_only = ON");
  return status;
}

int db_open(db **out, const char *path, int flags)
{
  if (!out) return SYMV_INVALID_VALUE;
  db *d = calloc(1, sizeof *d);
  *out = d;
  if (!d) return SYMV_NO_MEMORY;
  if (!path || !path[0])
    return db_fail(d, SYMV_INVALID_VALUE, "db_open: no file name given");
  d->path = strdup(path);
  if (!d->path) {
    snprintf(d->errmsg, sizeof d->errmsg, "db_open: out of memory");
    return SYMV_NO_MEMORY;
  }
  if ((flags & ~(DB_CREATE | DB_READONLY)) ||
      (flags & (DB_CREATE | DB_READONLY)) == (DB_CREATE | DB_READONLY))
    return db_fail(d, SYMV_INVALID_VALUE, "db_open: bad flags 0x%x", flags);
  d->readonly = (flags & DB_READONLY) != 0;

  int kind, version = 0, blank = 0;
  int status = db_probe_file(d, &kind);
  if (status) return status;
  if (kind == FILE_SQLITE) {
    if ((status = db_inspect(d, &version, &blank))) return status;
    if (blank) kind = FILE_EMPTY;
  }
  if (kind == FILE_MISSING && !(flags & DB_CREATE))
    return db_fail(d, SYMV_NOT_FOUND, "no such database (and not asked to "
                   "create one)");
  if (kind == FILE_EMPTY && !(flags & DB_CREATE))
    return db_fail(d, SYMV_DB_CORRUPT, "not a symvtune database: the file "
                   "is empty (left untouched)");

  if (d->readonly) {
    if (version < DB_SCHEMA_VERSION) return db_open_migrated_copy(d);
    return db_connect_query_only(d);
  }
  status = db_connect(d, SQLITE_OPEN_READWRITE |
                         (kind == FILE_MISSING ? SQLITE_OPEN_CREATE : 0));
  if (status == 0)
    status = db_exec_script(d, "PRAGMA synchronous = FULL", "PRAGMA synchronous = FULL");
  if (status == 0 && version < DB_SCHEMA_VERSION) status = db_migrate(d);
  if (status == 0) status = db_configure(d);
  return status;
}

int db_close(db *d)
{
  if (!d) return 0;
  int status = 0;
  if (d->conn) {
    /* A transaction still open is rolled back by sqlite3_close. */
    int rc = sqlite3_close(d->conn);
    if (rc != SQLITE_OK) {
      /* Statements left unfinalized (a bug here): let SQLite close the
       * connection when they go, and report the failure. */
      status = status_of(rc);
      sqlite3_close_v2(d->conn);
    }
  }
  free(d->path);
  free(d);
  return status;
}

const char *db_errmsg(const db *d)
{
  return d ? d->errmsg : "no database handle (out of memory)";
}

const char *db_warning(const db *d)
{
  return d ? d->warning : "";
}

/* ---- Device fingerprint ---------------------------------------------------- */

#define DEVICE_COLUMNS                                                        \
  "name, cc_major, cc_minor, sm_count, l2_bytes, mem_clock_khz, "             \
  "bus_width_bits, smem_per_sm, smem_per_block_optin, regs_per_sm, "          \
  "max_blocks_per_sm, max_threads_per_sm, driver_version, runtime_version, "  \
  "nvrtc_major, nvrtc_minor, copy_gbs"

int db_get_device(db *d, db_device *out)
{
  static const char what[] = "SELECT FROM device";
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what,
                             "SELECT " DEVICE_COLUMNS " FROM device WHERE id = 1", "");
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && !row)
    status = db_fail(d, SYMV_NOT_FOUND, "no device fingerprint stored yet");
  if (status == 0) {
    memset(out, 0, sizeof *out);
    status = col_text(d, st, 0, out->name, sizeof out->name, what);
    static const char who[] = "the device fingerprint";
    /* read whole, so that 2^32 + 132 SMs is not 132; what each field may
     * be is for the reader to say (db_check_device, symvtune build) */
    int *const f[] = {&out->cc_major, &out->cc_minor, &out->sm_count, NULL,
                      &out->mem_clock_khz, &out->bus_width_bits, &out->smem_per_sm,
                      &out->smem_per_block_optin, &out->regs_per_sm,
                      &out->max_blocks_per_sm, &out->max_threads_per_sm,
                      &out->driver_version, &out->runtime_version,
                      &out->nvrtc_major, &out->nvrtc_minor};
    for (int i = 0; status == 0 && i < (int)(sizeof f / sizeof *f); i++)
      status = f[i] ? col_int(d, st, i + 1, INT_MIN, INT_MAX, who, sqlite3_column_name(st, i + 1), f[i])
                    : col_int64(d, st, i + 1, LLONG_MIN, LLONG_MAX, who, "l2_bytes", &out->l2_bytes);
    out->copy_gbs = sqlite3_column_double(st, 16);
  }
  return db_end(d, st, what, status);
}

/* Append "fmt..." to d->warning: "path: first; second; ...". */
static void db_warn(db *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void db_warn(db *d, const char *fmt, ...)
{
  size_t len = strlen(d->warning);
  int k = snprintf(d->warning + len, sizeof d->warning - len, len ? "; " : "%s: ",
                   d->path);
  if (k > 0) len += (size_t)k;
  if (len >= sizeof d->warning) return;
  char raw[sizeof d->warning];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  symv_escape(raw, d->warning + len, sizeof d->warning - len);  /* names the file's device */
}

int db_check_device(db *d, const db_device *cur, int allow_foreign)
{
  d->warning[0] = 0;
  if (!cur || !text_ok(cur->name, sizeof cur->name) || cur->sm_count < 1 ||
      cur->cc_major < 1 || !finite_nonneg(cur->copy_gbs))
    return db_fail(d, SYMV_INVALID_VALUE, "db_check_device: incomplete "
                   "device description (name, compute capability, SM count)");
  db_device old;
  int status = db_get_device(d, &old);
  if (status == SYMV_NOT_FOUND) {
    if (d->readonly)
      return db_fail(d, SYMV_NOT_FOUND, "no device fingerprint stored, and "
                     "the database is open read-only");
    return db_exec(d, "INSERT INTO device",
      "INSERT INTO device (id, " DEVICE_COLUMNS ") "
      "VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      "tiiiIiiiiiiiiiiid", cur->name, cur->cc_major, cur->cc_minor,
      cur->sm_count, cur->l2_bytes, cur->mem_clock_khz, cur->bus_width_bits,
      cur->smem_per_sm, cur->smem_per_block_optin, cur->regs_per_sm,
      cur->max_blocks_per_sm, cur->max_threads_per_sm, cur->driver_version,
      cur->runtime_version, cur->nvrtc_major, cur->nvrtc_minor, cur->copy_gbs);
  }
  if (status) return status;

  if (strcmp(old.name, cur->name) != 0 || old.cc_major != cur->cc_major ||
      old.cc_minor != cur->cc_minor || old.sm_count != cur->sm_count) {
    char was[400], now[400];
    snprintf(was, sizeof was, "%s (compute capability %d.%d, %d SMs)",
             old.name, old.cc_major, old.cc_minor, old.sm_count);
    snprintf(now, sizeof now, "%s (compute capability %d.%d, %d SMs)",
             cur->name, cur->cc_major, cur->cc_minor, cur->sm_count);
    if (!allow_foreign)
      return db_fail(d, SYMV_DB_FOREIGN, "the database was made on %s but this "
                     "GPU is %s; its timings do not apply here (use another "
                     "database file)", was, now);
    db_warn(d, "the database was made on %s, this GPU is %s", was, now);
  }
  if (old.driver_version != cur->driver_version)
    db_warn(d, "driver version was %d, is %d", old.driver_version,
            cur->driver_version);
  if (old.runtime_version != cur->runtime_version)
    db_warn(d, "CUDA runtime version was %d, is %d", old.runtime_version,
            cur->runtime_version);
  if (old.nvrtc_major != cur->nvrtc_major || old.nvrtc_minor != cur->nvrtc_minor)
    db_warn(d, "NVRTC version was %d.%d, is %d.%d", old.nvrtc_major,
            old.nvrtc_minor, cur->nvrtc_major, cur->nvrtc_minor);
  if (old.mem_clock_khz != cur->mem_clock_khz)
    db_warn(d, "memory clock was %d kHz, is %d kHz", old.mem_clock_khz,
            cur->mem_clock_khz);
  if (old.l2_bytes != cur->l2_bytes || old.bus_width_bits != cur->bus_width_bits ||
      old.smem_per_sm != cur->smem_per_sm ||
      old.smem_per_block_optin != cur->smem_per_block_optin ||
      old.regs_per_sm != cur->regs_per_sm ||
      old.max_blocks_per_sm != cur->max_blocks_per_sm ||
      old.max_threads_per_sm != cur->max_threads_per_sm)
    db_warn(d, "the GPU's limits (L2, bus width, shared memory, registers, "
            "resident blocks or threads) differ from the recorded ones");
  return 0;
}

int db_set_copy_gbs(db *d, double gbs)
{
  if (!finite_nonneg(gbs))
    return db_fail(d, SYMV_INVALID_VALUE, "db_set_copy_gbs: bandwidth %g GB/s", gbs);
  int status = db_exec(d, "UPDATE device SET copy_gbs",
                       "UPDATE device SET copy_gbs = ? WHERE id = 1", "d", gbs);
  if (status == 0 && sqlite3_changes(d->conn) == 0)
    status = db_fail(d, SYMV_NOT_FOUND, "no device fingerprint stored yet");
  return status;
}

/* ---- Transactions ------------------------------------------------------------ */

int db_begin(db *d)
{
  return db_exec(d, "BEGIN IMMEDIATE", "BEGIN IMMEDIATE", "");
}

int db_commit(db *d)
{
  return db_exec(d, "COMMIT", "COMMIT", "");
}

int db_rollback(db *d)
{
  return db_exec(d, "ROLLBACK", "ROLLBACK", "");
}

/* ---- Candidates --------------------------------------------------------------- */

#define CANDIDATE_COLUMNS                                                     \
  "id, routine, family, block_size, ux, multiplicity, mx, status, reason, "   \
  "detail, compile_ms, regs_per_thread, attempts"
#define CANDIDATE_NCOLUMNS 13  /* columns in CANDIDATE_COLUMNS */

/* Read a row of CANDIDATE_COLUMNS into *c. */
static int read_candidate(db *d, sqlite3_stmt *st, const char *what,
                          db_candidate *c)
{
  char routine[16], status[16], reason[16];
  memset(c, 0, sizeof *c);
  c->id = sqlite3_column_int64(st, 0);
  int rc = col_text(d, st, 1, routine, sizeof routine, what);
  if (rc == 0) rc = col_text(d, st, 2, c->family, sizeof c->family, what);
  if (rc == 0) rc = col_text(d, st, 7, status, sizeof status, what);
  if (rc == 0) rc = col_text(d, st, 8, reason, sizeof reason, what);
  if (rc == 0) rc = col_text(d, st, 9, c->detail, sizeof c->detail, what);
  if (rc) return rc;
  char who[48];
  snprintf(who, sizeof who, "candidate %lld", c->id);
  rc = col_int(d, st, 3, 0, SYMV_BLOCK_SIZE_MAX, who, "BLOCK_SIZE", &c->block_size);
  if (rc == 0) rc = col_int(d, st, 4, 0, SYMV_UX_MAX, who, "UX", &c->ux);
  if (rc == 0) rc = col_int(d, st, 5, 0, SYMV_MULTIPLICITY_MAX, who, "MULTIPLICITY", &c->multiplicity);
  if (rc == 0) rc = col_int(d, st, 6, 0, SYMV_MX_COUNT - 1, who, "MX", &c->mx);
  if (rc == 0) rc = col_int(d, st, 11, 0, DB_REGS_MAX, who, "regs_per_thread", &c->regs_per_thread);
  if (rc == 0) rc = col_int(d, st, 12, 0, INT_MAX, who, "attempts", &c->attempts);
  if (rc) return rc;
  c->compile_ms = sqlite3_column_double(st, 10);
  int s = name_index(status_names, DB_STATUS_COUNT, status);
  int r = name_index(reason_names, DB_REASON_COUNT, reason);
  if (s < 0 || r < 0 || routine_index(routine) < 0)
    return db_fail(d, SYMV_DB_CORRUPT, "candidate %lld has routine '%s' status "
                   "'%s' reason '%s', which this program does not know", c->id,
                   routine, status, reason);
  snprintf(c->routine, sizeof c->routine, "%.7s", routine);  /* checked: < 8 */
  c->status = (db_status)s;
  c->reason = (db_reason)r;
  return 0;
}

/* row_reader for CANDIDATE_COLUMNS rows (db_collect). */
static int candidate_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx)
{
  (void)ctx;
  return read_candidate(d, st, what, elem);
}

/* A routine argument: one of the six names, or NULL where `optional`. */
static int check_routine(db *d, const char *fn, const char *routine, int optional)
{
  if ((optional && !routine) || routine_index(routine) >= 0) return 0;
  return db_fail(d, SYMV_INVALID_VALUE, "%s: %s%.16s%s is not a routine (ssymv, "
                 "dsymv, csymv, zsymv, chemv or zhemv)", fn, routine ? "'" : "",
                 routine ? routine : "NULL", routine ? "'" : "");
}

static int check_point(db *d, const char *fn, const char *routine,
                       const char *family, int block_size, int ux,
                       int multiplicity, int mx)
{
  int status = check_routine(d, fn, routine, 0);
  if (status) return status;
  if (!text_ok(family, sizeof ((db_candidate *)0)->family) || block_size < 0 ||
      block_size > SYMV_BLOCK_SIZE_MAX || ux < 0 || ux > SYMV_UX_MAX ||
      multiplicity < 0 || multiplicity > SYMV_MULTIPLICITY_MAX || mx < 0 ||
      mx >= SYMV_MX_COUNT)
    return db_fail(d, SYMV_INVALID_VALUE, "%s: bad candidate (family '%.20s', "
                   "BLOCK_SIZE %d, UX %d, MULTIPLICITY %d, MX %d)", fn,
                   family ? family : "(null)", block_size, ux, multiplicity, mx);
  return 0;
}

int db_find_candidate(db *d, const char *routine, const char *family,
                      int block_size, int ux, int multiplicity, int mx,
                      long long *id)
{
  int status = check_point(d, "db_find_candidate", routine, family, block_size,
                           ux, multiplicity, mx);
  if (status) return status;
  static const char what[] = "SELECT id FROM candidate";
  sqlite3_stmt *st;
  int row;
  status = db_query(d, &st, what,
                    "SELECT id FROM candidate WHERE routine = ? AND family = ? "
                    "AND block_size = ? AND ux = ? AND multiplicity = ? AND mx = ?",
                    "ttiiii", routine, family, block_size, ux, multiplicity, mx);
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && !row)
    status = db_fail(d, SYMV_NOT_FOUND, "no %s candidate %s b%d u%d m%d x%d",
                     routine, family, block_size, ux, multiplicity, mx);
  if (status == 0 && id) *id = sqlite3_column_int64(st, 0);
  return db_end(d, st, what, status);
}

int db_put_candidate(db *d, const db_candidate *c, long long *id)
{
  if (!c) return db_fail(d, SYMV_INVALID_VALUE, "db_put_candidate: no candidate");
  int status = check_point(d, "db_put_candidate", c->routine, c->family,
                           c->block_size, c->ux, c->multiplicity, c->mx);
  if (status == 0)
    status = db_exec(d, "INSERT INTO candidate",
                     "INSERT INTO candidate (routine, family, block_size, ux, "
                     "multiplicity, mx) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT "
                     "(routine, family, block_size, ux, multiplicity, mx) DO NOTHING",
                     "ttiiii", c->routine, c->family, c->block_size, c->ux,
                     c->multiplicity, c->mx);
  if (status == 0)
    status = db_find_candidate(d, c->routine, c->family, c->block_size, c->ux,
                               c->multiplicity, c->mx, id);
  return status;
}

int db_get_candidate(db *d, long long id, db_candidate *out)
{
  static const char what[] = "SELECT FROM candidate";
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what,
                             "SELECT " CANDIDATE_COLUMNS " FROM candidate WHERE id = ?",
                             "I", id);
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && !row) status = db_fail(d, SYMV_NOT_FOUND, "no candidate %lld", id);
  if (status == 0) status = read_candidate(d, st, what, out);
  return db_end(d, st, what, status);
}

int db_set_candidate_result(db *d, const db_candidate *c)
{
  if (!c) return db_fail(d, SYMV_INVALID_VALUE, "db_set_candidate_result: no candidate");
  if (c->status < 0 || c->status >= DB_STATUS_COUNT ||
      c->reason < 0 || c->reason >= DB_REASON_COUNT ||
      (c->status == DB_INVALID) != (c->reason != DB_REASON_NONE))
    return db_fail(d, SYMV_INVALID_VALUE, "db_set_candidate_result: candidate "
                   "%lld: status %d with reason %d (a reason goes with, and only "
                   "with, status invalid)", c->id, (int)c->status, (int)c->reason);
  if (strnlen(c->detail, sizeof c->detail) >= sizeof c->detail ||
      !finite_nonneg(c->compile_ms) || c->regs_per_thread < 0 ||
      c->regs_per_thread > DB_REGS_MAX)
    return db_fail(d, SYMV_INVALID_VALUE, "db_set_candidate_result: candidate "
                   "%lld: unterminated detail, or compile_ms %g or "
                   "regs_per_thread %d out of range", c->id, c->compile_ms,
                   c->regs_per_thread);
  int status = db_exec(d, "UPDATE candidate (result)",
                       "UPDATE candidate SET status = ?, reason = ?, detail = ?, "
                       "compile_ms = ?, regs_per_thread = ? WHERE id = ?",
                       "tttdiI", status_names[c->status],
                       c->reason == DB_REASON_NONE ? NULL : reason_names[c->reason],
                       c->detail, c->compile_ms, c->regs_per_thread, c->id);
  if (status == 0 && sqlite3_changes(d->conn) == 0)
    status = db_fail(d, SYMV_NOT_FOUND, "no candidate %lld", c->id);
  return status;
}

int db_start_attempt(db *d, long long id, int *attempts)
{
  /* Outside a transaction the increment and the read are made one. */
  int own = sqlite3_get_autocommit(d->conn);
  int status = own ? db_begin(d) : 0;
  if (status) return status;
  status = db_exec(d, "UPDATE candidate (attempts)",
                   "UPDATE candidate SET attempts = attempts + 1 WHERE id = ?",
                   "I", id);
  if (status == 0 && sqlite3_changes(d->conn) == 0)
    status = db_fail(d, SYMV_NOT_FOUND, "no candidate %lld", id);
  if (status == 0) {
    static const char what[] = "SELECT attempts FROM candidate";
    sqlite3_stmt *st;
    int row;
    status = db_query(d, &st, what, "SELECT attempts FROM candidate WHERE id = ?",
                      "I", id);
    if (status == 0) {
      status = db_next(d, st, what, &row);
      int a = 0;
      if (status == 0 && row) status = col_int(d, st, 0, 0, INT_MAX, "a candidate", "attempts", &a);
      if (status == 0 && row && attempts) *attempts = a;
      status = db_end(d, st, what, status);
    }
  }
  if (own) {
    if (status == 0) return db_commit(d);
    db_abandon(d);
  }
  return status;
}

/* Reads one row of st into the zeroed element *elem; ctx as given to
 * db_collect. Returns 0 or a status (db_fail'ed). */
typedef int (*row_reader)(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx);

/* Steps st to its end, reading each row with `read` into a growing array
 * of `size`-byte elements, and finalizes st. On success *list (malloc'ed,
 * NULL when empty) holds *count elements; on error nothing is kept. */
static int db_collect(db *d, sqlite3_stmt *st, const char *what, size_t size, row_reader read, void *ctx,
                      void **list, size_t *count)
{
  char *a = NULL;
  size_t n = 0, cap = 0;
  int row, status;
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    if (grow((void **)&a, &cap, n + 1, size)) {
      status = db_fail(d, SYMV_NO_MEMORY, "%s: out of memory", what);
      break;
    }
    memset(a + n * size, 0, size);
    if ((status = read(d, st, what, a + n * size, ctx))) break;
    n++;
  }
  status = db_end(d, st, what, status);
  if (status) {
    free(a);
    return status;
  }
  *list = a;
  *count = n;
  return 0;
}

int db_list_candidates(db *d, const char *routine, int status_filter,
                       const char *family, db_candidate **list, size_t *count)
{
  *list = NULL;
  *count = 0;
  int status = check_routine(d, "db_list_candidates", routine, 1);
  if (status) return status;
  if (status_filter < -1 || status_filter >= DB_STATUS_COUNT)
    return db_fail(d, SYMV_INVALID_VALUE, "db_list_candidates: status %d",
                   status_filter);
  static const char what[] = "SELECT FROM candidate (list)";
  sqlite3_stmt *st;
  status = db_query(d, &st, what,
    "SELECT " CANDIDATE_COLUMNS " FROM candidate "
    "WHERE (?1 IS NULL OR routine = ?1) AND (?2 IS NULL OR status = ?2) "
    "AND (?3 IS NULL OR family = ?3) ORDER BY id",
    "ttt", routine, status_filter < 0 ? NULL : status_names[status_filter], family);
  if (status) return status;
  return db_collect(d, st, what, sizeof **list, candidate_row, NULL, (void **)list, count);
}

int db_count_candidates(db *d, const char *routine, const char *family,
                        db_counts *out)
{
  memset(out, 0, sizeof *out);
  int status = check_routine(d, "db_count_candidates", routine, 1);
  if (status) return status;
  static const char what[] = "SELECT count(*) FROM candidate";
  sqlite3_stmt *st;
  int row;
  status = db_query(d, &st, what,
    "SELECT status, reason, count(*) FROM candidate "
    "WHERE (?1 IS NULL OR routine = ?1) AND (?2 IS NULL OR family = ?2) "
    "GROUP BY status, reason", "tt", routine, family);
  if (status) return status;
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    char s[16], r[16];
    if ((status = col_text(d, st, 0, s, sizeof s, what))) break;
    if ((status = col_text(d, st, 1, r, sizeof r, what))) break;
    int si = name_index(status_names, DB_STATUS_COUNT, s);
    int ri = name_index(reason_names, DB_REASON_COUNT, r);
    if (si < 0 || ri < 0) {
      status = db_fail(d, SYMV_DB_CORRUPT, "candidates with status '%s' reason "
                       "'%s', which this program does not know", s, r);
      break;
    }
    long long k = sqlite3_column_int64(st, 2);
    out->total += k;
    out->by_status[si] += k;
    if (ri != DB_REASON_NONE) out->by_reason[ri] += k;
  }
  return db_end(d, st, what, status);
}

int db_list_routines(db *d, db_routines_of what_of,
                     char (*names)[DB_ROUTINE_SIZE], size_t max, size_t *count)
{
  if (count) *count = 0;
  if (!count || (max > 0 && !names) ||
      (what_of != DB_ROUTINES_CANDIDATES && what_of != DB_ROUTINES_FITS))
    return db_fail(d, SYMV_INVALID_VALUE, "db_list_routines: bad argument "
                   "(what %d)", (int)what_of);
  const char *what = what_of == DB_ROUTINES_FITS ? "SELECT routine FROM fit"
                                                 : "SELECT routine FROM candidate";
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what, what_of == DB_ROUTINES_FITS ?
                             "SELECT DISTINCT routine FROM fit" :
                             "SELECT DISTINCT routine FROM candidate", "");
  if (status) return status;
  int have[DB_ROUTINE_COUNT] = { 0 };
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    char name[16];
    if ((status = col_text(d, st, 0, name, sizeof name, what))) break;
    int i = routine_index(name);
    if (i < 0) {
      status = db_fail(d, SYMV_DB_CORRUPT, "a stored routine '%s' is not one "
                       "this program knows", name);
      break;
    }
    have[i] = 1;
  }
  status = db_end(d, st, what, status);
  if (status) return status;
  size_t n = 0;
  for (int i = 0; i < DB_ROUTINE_COUNT; i++) {
    if (!have[i]) continue;
    if (n < max) snprintf(names[n], DB_ROUTINE_SIZE, "%s", routine_names[i]);
    n++;
  }
  *count = n;
  return 0;
}

/* ---- Measurements and baselines ------------------------------------------------ */

#define MEASUREMENT_COLUMNS                                                   \
  "n, uplo, hot, stage, median_us, min_us, max_us, batches, "                 \
  "calls_per_batch, gflops, gbs, residual"

static int check_key(db *d, const char *fn, int n, char uplo, int hot, int stage)
{
  if (n < 1 || n > DB_N_MAX || (uplo != 'L' && uplo != 'U') || (hot != 0 && hot != 1) ||
      stage < 0 || stage >= DB_STAGE_COUNT)
    return db_fail(d, SYMV_INVALID_VALUE, "%s: bad key (n %d, uplo 0x%02x, "
                   "hot %d, stage %d)", fn, n, (unsigned char)uplo, hot, stage);
  return 0;
}

static int check_measurement(db *d, const char *fn, const db_measurement *m)
{
  if (!m) return db_fail(d, SYMV_INVALID_VALUE, "%s: no measurement", fn);
  int status = check_key(d, fn, m->n, m->uplo, m->hot, (int)m->stage);
  if (status) return status;
  if (!finite_nonneg(m->median_us) || !finite_nonneg(m->min_us) ||
      !finite_nonneg(m->max_us) || m->min_us > m->median_us ||
      m->median_us > m->max_us || m->batches < 1 || m->calls_per_batch < 1 ||
      !finite_nonneg(m->gflops) || !finite_nonneg(m->gbs) ||
      !finite_nonneg(m->residual))
    return db_fail(d, SYMV_INVALID_VALUE, "%s: bad statistics at n %d (min %g "
                   "median %g max %g us, %d batches of %d calls, %g GFLOPS, "
                   "%g GB/s, residual %g)", fn, m->n, m->min_us, m->median_us,
                   m->max_us, m->batches, m->calls_per_batch, m->gflops, m->gbs,
                   m->residual);
  return 0;
}

/* Read a row of MEASUREMENT_COLUMNS into *m. */
static int read_measurement(db *d, sqlite3_stmt *st, const char *what,
                            db_measurement *m)
{
  char uplo[4], stage[16];
  memset(m, 0, sizeof *m);
  int status = col_text(d, st, 1, uplo, sizeof uplo, what);
  if (status == 0) status = col_text(d, st, 3, stage, sizeof stage, what);
  if (status) return status;
  int s = name_index(stage_names, DB_STAGE_COUNT, stage);
  if (s < 0)
    return db_fail(d, SYMV_DB_CORRUPT, "a timing has stage '%s', which this "
                   "program does not know", stage);
  static const char who[] = "a timing";
  status = col_int(d, st, 0, 1, DB_N_MAX, who, "n", &m->n);
  if (status == 0) status = col_int(d, st, 2, 0, 1, who, "hot", &m->hot);
  if (status == 0) status = col_int(d, st, 7, 1, INT_MAX, who, "batches", &m->batches);
  if (status == 0) status = col_int(d, st, 8, 1, INT_MAX, who, "calls_per_batch", &m->calls_per_batch);
  if (status) return status;
  m->uplo = uplo[0];
  m->stage = (db_stage)s;
  m->median_us = sqlite3_column_double(st, 4);
  m->min_us = sqlite3_column_double(st, 5);
  m->max_us = sqlite3_column_double(st, 6);
  m->gflops = sqlite3_column_double(st, 9);
  m->gbs = sqlite3_column_double(st, 10);
  m->residual = sqlite3_column_double(st, 11);
  return 0;
}

/* row_reader for MEASUREMENT_COLUMNS rows (db_collect). */
static int measurement_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx)
{
  (void)ctx;
  return read_measurement(d, st, what, elem);
}

int db_put_measurement(db *d, long long id, const db_measurement *m)
{
  int status = check_measurement(d, "db_put_measurement", m);
  if (status) return status;
  status = db_exec(d, "INSERT INTO measurement",
    "INSERT INTO measurement (candidate_id, " MEASUREMENT_COLUMNS ") "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (candidate_id, stage, n, uplo, hot) DO UPDATE SET "
    "median_us = excluded.median_us, min_us = excluded.min_us, "
    "max_us = excluded.max_us, batches = excluded.batches, "
    "calls_per_batch = excluded.calls_per_batch, gflops = excluded.gflops, "
    "gbs = excluded.gbs, residual = excluded.residual",
    "Iicitdddiiddd", id, m->n, m->uplo, m->hot, stage_names[m->stage],
    m->median_us, m->min_us, m->max_us, m->batches, m->calls_per_batch,
    m->gflops, m->gbs, m->residual);
  if (status == SYMV_NOT_FOUND)
    status = db_fail(d, SYMV_NOT_FOUND, "db_put_measurement: no candidate %lld", id);
  return status;
}

int db_put_baseline(db *d, const char *routine, const char *name,
                    const db_measurement *m)
{
  int status = check_routine(d, "db_put_baseline", routine, 0);
  if (status) return status;
  if (!text_ok(name, DB_BASELINE_NAME_MAX + 1))
    return db_fail(d, SYMV_INVALID_VALUE, "db_put_baseline: baseline name "
                   "empty or longer than %d characters", DB_BASELINE_NAME_MAX);
  status = check_measurement(d, "db_put_baseline", m);
  if (status) return status;
  return db_exec(d, "INSERT INTO baseline",
    "INSERT INTO baseline (routine, name, " MEASUREMENT_COLUMNS ") "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (routine, name, stage, n, uplo, hot) DO UPDATE SET "
    "median_us = excluded.median_us, min_us = excluded.min_us, "
    "max_us = excluded.max_us, batches = excluded.batches, "
    "calls_per_batch = excluded.calls_per_batch, gflops = excluded.gflops, "
    "gbs = excluded.gbs, residual = excluded.residual",
    "tticitdddiiddd", routine, name, m->n, m->uplo, m->hot, stage_names[m->stage],
    m->median_us, m->min_us, m->max_us, m->batches, m->calls_per_batch,
    m->gflops, m->gbs, m->residual);
}

/* *found = whether the query `sql`, with parameters `types, ...` as for
 * db_query, returns a row. */
static int db_exists(db *d, const char *what, const char *sql, int *found,
                     const char *types, ...)
{
  sqlite3_stmt *st;
  int row;
  va_list ap;
  va_start(ap, types);
  int status = db_queryv(d, &st, what, sql, types, ap);
  va_end(ap);
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0) *found = row;
  return db_end(d, st, what, status);
}

int db_has_measurement(db *d, long long id, int n, char uplo, int hot,
                       db_stage stage, int *found)
{
  *found = 0;
  int status = check_key(d, "db_has_measurement", n, uplo, hot, (int)stage);
  if (status) return status;
  return db_exists(d, "SELECT FROM measurement (exists)",
                   "SELECT 1 FROM measurement WHERE candidate_id = ? AND "
                   "stage = ? AND n = ? AND uplo = ? AND hot = ?", found,
                   "Itici", id, stage_names[stage], n, uplo, hot);
}

int db_has_baseline(db *d, const char *routine, const char *name, int n,
                    char uplo, int hot, db_stage stage, int *found)
{
  *found = 0;
  int status = check_routine(d, "db_has_baseline", routine, 0);
  if (status) return status;
  if (!text_ok(name, DB_BASELINE_NAME_MAX + 1))
    return db_fail(d, SYMV_INVALID_VALUE, "db_has_baseline: bad baseline name");
  status = check_key(d, "db_has_baseline", n, uplo, hot, (int)stage);
  if (status) return status;
  return db_exists(d, "SELECT FROM baseline (exists)",
                   "SELECT 1 FROM baseline WHERE routine = ? AND name = ? "
                   "AND stage = ? AND n = ? AND uplo = ? AND hot = ?", found,
                   "tttici", routine, name, stage_names[stage], n, uplo, hot);
}

/* Check a filter of db_candidate_measurements / db_baseline_measurements. */
static int check_filter(db *d, const char *fn, db_stage stage, char uplo, int hot)
{
  if (stage < 0 || stage >= DB_STAGE_COUNT ||
      (uplo != 0 && uplo != 'L' && uplo != 'U') || hot < -1 || hot > 1)
    return db_fail(d, SYMV_INVALID_VALUE, "%s: bad filter (stage %d, uplo "
                   "0x%02x, hot %d)", fn, (int)stage, (unsigned char)uplo, hot);
  return 0;
}

/* The rows of MEASUREMENT_COLUMNS that the query `sql` (parameters `types,
 * ...` as for db_query) returns, as a malloc'ed array. */
static int db_list_measurements(db *d, const char *what, db_measurement **list,
                                size_t *count, const char *sql,
                                const char *types, ...)
{
  sqlite3_stmt *st;
  va_list ap;
  va_start(ap, types);
  int status = db_queryv(d, &st, what, sql, types, ap);
  va_end(ap);
  if (status) return status;
  return db_collect(d, st, what, sizeof **list, measurement_row, NULL, (void **)list, count);
}

int db_candidate_measurements(db *d, long long id, db_stage stage, char uplo,
                              int hot, db_measurement **list, size_t *count)
{
  *list = NULL;
  *count = 0;
  int status = check_filter(d, "db_candidate_measurements", stage, uplo, hot);
  if (status) return status;
  return db_list_measurements(d, "SELECT FROM measurement (list)", list, count,
    "SELECT " MEASUREMENT_COLUMNS " FROM measurement WHERE candidate_id = ?1 "
    "AND stage = ?2 AND (?3 IS NULL OR uplo = ?3) "
    "AND (?4 IS NULL OR hot = ?4) ORDER BY n, uplo, hot",
    "ItcN", id, stage_names[stage], uplo, hot);
}

int db_baseline_measurements(db *d, const char *routine, const char *name,
                             db_stage stage, char uplo, int hot,
                             db_measurement **list, size_t *count)
{
  *list = NULL;
  *count = 0;
  int status = check_routine(d, "db_baseline_measurements", routine, 0);
  if (status) return status;
  if (!text_ok(name, DB_BASELINE_NAME_MAX + 1))
    return db_fail(d, SYMV_INVALID_VALUE, "db_baseline_measurements: bad "
                   "baseline name");
  status = check_filter(d, "db_baseline_measurements", stage, uplo, hot);
  if (status) return status;
  return db_list_measurements(d, "SELECT FROM baseline (list)", list, count,
    "SELECT " MEASUREMENT_COLUMNS " FROM baseline WHERE routine = ?1 "
    "AND name = ?2 AND stage = ?3 AND (?4 IS NULL OR uplo = ?4) "
    "AND (?5 IS NULL OR hot = ?5) ORDER BY n, uplo, hot",
    "tttcN", routine, name, stage_names[stage], uplo, hot);
}

void db_times_free(db_times *t)
{
  if (!t) return;
  free(t->n);
  free(t->cand);
  free(t->median_us);
  memset(t, 0, sizeof *t);
}

static int compare_id(const void *key, const void *elem)
{
  long long a = *(const long long *)key, b = ((const db_candidate *)elem)->id;
  return (a > b) - (a < b);
}

/* Fill t (routine's candidates already listed) from the measurements. */
static int db_fill_times(db *d, db_times *t, const char *routine, char uplo,
                         int hot, db_stage stage)
{
  static const char what[] = "SELECT FROM measurement (time table)";
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what,
    "SELECT m.candidate_id, m.n, m.median_us FROM measurement AS m "
    "JOIN candidate AS c ON c.id = m.candidate_id "
    "WHERE c.routine = ? AND c.status = 'valid' AND m.stage = ? AND m.uplo = ? "
    "AND m.hot = ?", "ttci", routine, stage_names[stage], uplo, hot);
  if (status) return status;
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    long long id = sqlite3_column_int64(st, 0);
    int n;
    if ((status = col_int(d, st, 1, 1, DB_N_MAX, "a timing", "n", &n))) break;
    double us = sqlite3_column_double(st, 2);
    const db_candidate *c = bsearch(&id, t->cand, t->ncand, sizeof *t->cand,
                                    compare_id);
    if (!c) continue;  /* validated after the list was read: not in the table */
    size_t i = (size_t)(c - t->cand);
    for (size_t j = 0; j < t->nsizes; j++)
      if (t->n[j] == n) t->median_us[i * t->nsizes + j] = us;
  }
  return db_end(d, st, what, status);
}

int db_time_table(db *d, const char *routine, const int *ns, size_t nsizes,
                  char uplo, int hot, db_stage stage, db_times *out)
{
  memset(out, 0, sizeof *out);
  int rc = check_routine(d, "db_time_table", routine, 0);
  if (rc) return rc;
  if (nsizes == 0 || !ns)
    return db_fail(d, SYMV_INVALID_VALUE, "db_time_table: no sizes");
  for (size_t j = 0; j < nsizes; j++) {
    int status = check_key(d, "db_time_table", ns[j], uplo, hot, (int)stage);
    if (status) return status;
  }
  out->nsizes = nsizes;
  out->n = malloc(nsizes * sizeof *out->n);
  if (!out->n) return db_fail(d, SYMV_NO_MEMORY, "db_time_table: out of memory");
  memcpy(out->n, ns, nsizes * sizeof *ns);

  /* The list and the timings are read in one read transaction, so that a
   * sweep committing meanwhile cannot make them disagree. */
  int own = sqlite3_get_autocommit(d->conn);
  int status = own ? db_exec(d, "BEGIN (time table)", "BEGIN", "") : 0;
  if (status) goto fail;
  status = db_list_candidates(d, routine, DB_VALID, NULL, &out->cand, &out->ncand);
  if (status == 0 && out->ncand > 0) {
    out->median_us = malloc(out->ncand * nsizes * sizeof *out->median_us);
    if (!out->median_us)
      status = db_fail(d, SYMV_NO_MEMORY, "db_time_table: out of memory");
    else {
      for (size_t k = 0; k < out->ncand * nsizes; k++) out->median_us[k] = NAN;
      status = db_fill_times(d, out, routine, uplo, hot, stage);
    }
  }
  if (own) {
    if (status == 0) status = db_exec(d, "COMMIT (time table)", "COMMIT", "");
    else db_abandon(d);
  }
  if (status == 0) return 0;
fail:
  db_times_free(out);
  return status;
}

/* ---- Sweep runs ----------------------------------------------------------------- */

int db_run_begin(db *d, const char *options, long long *run_id)
{
  if (!run_id) return db_fail(d, SYMV_INVALID_VALUE, "db_run_begin: no run_id");
  int status = db_exec(d, "INSERT INTO sweep_run",
                       "INSERT INTO sweep_run (started, options) VALUES "
                       "(strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?)",
                       "t", options ? options : "");
  if (status == 0) *run_id = sqlite3_last_insert_rowid(d->conn);
  return status;
}

int db_run_end(db *d, long long run_id, double compile_s, double measure_s)
{
  if (!finite_nonneg(compile_s) || !finite_nonneg(measure_s))
    return db_fail(d, SYMV_INVALID_VALUE, "db_run_end: compile %g s, measure "
                   "%g s", compile_s, measure_s);
  int status = db_exec(d, "UPDATE sweep_run",
                       "UPDATE sweep_run SET finished = "
                       "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), compile_s = ?, "
                       "measure_s = ? WHERE id = ?",
                       "ddI", compile_s, measure_s, run_id);
  if (status == 0 && sqlite3_changes(d->conn) == 0)
    status = db_fail(d, SYMV_NOT_FOUND, "no sweep run %lld", run_id);
  return status;
}

/* ---- Shards of a sweep ----------------------------------------------------------- */

#define SHARD_TABLE                                                           \
  "CREATE TABLE IF NOT EXISTS shard (\n"                                      \
  "  routine TEXT NOT NULL " ROUTINE_CHECK ",\n"                              \
  "  space TEXT NOT NULL CHECK (length(space) = 16),\n"                       \
  "  k INTEGER NOT NULL CHECK (k >= 0),\n"                                    \
  "  n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 4096 AND k < n),\n"            \
  "  candidates INTEGER NOT NULL CHECK (candidates >= 0),\n"                  \
  "  space_size INTEGER NOT NULL CHECK (space_size >= candidates),\n"         \
  "  sizes TEXT NOT NULL,\n"                                                  \
  "  uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),\n"                        \
  "  hot INTEGER NOT NULL CHECK (hot IN (0, 1)),\n"                           \
  "  source TEXT NOT NULL DEFAULT '',\n"                                      \
  "  UNIQUE (routine, space, k, n, source)\n"                                 \
  ")"

#define SHARD_COLUMNS "routine, space, k, n, candidates, space_size, sizes, uplo, hot, source"

int db_put_shard(db *d, const db_shard *s)
{
  if (!s || !db_routine_valid(s->routine) || strnlen(s->space, sizeof s->space) != 16 ||
      strspn(s->space, "0123456789abcdef") != 16 || s->n < 1 || s->n > 4096 || s->k < 0 || s->k >= s->n ||
      s->candidates < 0 || s->space_size < s->candidates || (s->uplo != 'L' && s->uplo != 'U') ||
      (s->hot != 0 && s->hot != 1) || !text_ok(s->sizes, sizeof s->sizes) ||
      strnlen(s->source, sizeof s->source) >= sizeof s->source)
    return db_fail(d, SYMV_INVALID_VALUE, "db_put_shard: incomplete or out-of-range shard description");
  int status = db_exec_script(d, "CREATE TABLE shard", SHARD_TABLE);
  if (status == 0)
    status = db_exec(d, "INSERT INTO shard",
                     "INSERT OR REPLACE INTO shard (" SHARD_COLUMNS ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     "ttiiIItcit", s->routine, s->space, s->k, s->n, s->candidates, s->space_size, s->sizes,
                     s->uplo, s->hot, s->source);
  return status;
}

static int shard_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx)
{
  (void)ctx;
  db_shard *s = elem;
  char uplo[4] = "";
  static const char who[] = "a shard row";
  int status = col_text(d, st, 0, s->routine, sizeof s->routine, what);
  if (status == 0) status = col_text(d, st, 1, s->space, sizeof s->space, what);
  if (status == 0) status = col_int(d, st, 2, 0, 4095, who, "k", &s->k);
  if (status == 0) status = col_int(d, st, 3, 1, 4096, who, "n", &s->n);
  if (status == 0) status = col_int64(d, st, 4, 0, LLONG_MAX, who, "candidates", &s->candidates);
  if (status == 0) status = col_int64(d, st, 5, 0, LLONG_MAX, who, "space_size", &s->space_size);
  if (status == 0) status = col_text(d, st, 6, s->sizes, sizeof s->sizes, what);
  if (status == 0) status = col_text(d, st, 7, uplo, sizeof uplo, what);
  if (status == 0) status = col_int(d, st, 8, 0, 1, who, "hot", &s->hot);
  if (status == 0) status = col_text(d, st, 9, s->source, sizeof s->source, what);
  if (status == 0 && (!db_routine_valid(s->routine) || s->k >= s->n || (uplo[0] != 'L' && uplo[0] != 'U')))
    status = db_fail(d, SYMV_DB_CORRUPT, "%s: routine '%s', shard %d of %d, uplo '%s' (a damaged or hand-edited "
                     "database)", who, s->routine, s->k, s->n, uplo);
  s->uplo = uplo[0];
  return status;
}

int db_list_shards(db *d, const char *routine, db_shard **list, size_t *count)
{
  *list = NULL;
  *count = 0;
  int status = check_routine(d, "db_list_shards", routine, 1);
  if (status) return status;
  long long have = 0;
  status = db_query_int(d, "looking for the shard table (sqlite_master)",
                        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'shard'", &have, NULL);
  if (status || !have) return status;
  static const char what[] = "SELECT FROM shard";
  sqlite3_stmt *st;
  status = db_query(d, &st, what,
                    "SELECT " SHARD_COLUMNS " FROM shard WHERE (?1 IS NULL OR routine = ?1) "
                    "ORDER BY routine, space, n, k, source", "t", routine);
  if (status) return status;
  return db_collect(d, st, what, sizeof **list, shard_row, NULL, (void **)list, count);
}

/* ---- Fits and dispatch rules ------------------------------------------------------ */

/* Index of a kernel name in {cublas, cublas_atomics, candidate}, or -1 for
 * anything else (including a name not terminated within `size`). */
static int kernel_index(const char *kernel, size_t size)
{
  static const char *const names[] = { DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS,
                                        DB_KERNEL_CANDIDATE };
  if (!text_ok(kernel, size)) return -1;
  return name_index(names, 3, kernel);
}

static int is_candidate_kernel(const char *kernel)
{
  return strcmp(kernel, DB_KERNEL_CANDIDATE) == 0;
}

/* The checks of db_put_fit that need no database. */
int db_kernel_deterministic(const char *kernel, const char *family)
{
  if (!strcmp(kernel, DB_KERNEL_CUBLAS)) return 1;
  if (!is_candidate_kernel(kernel)) return 0;
  symv_family f;
  return symv_family_parse(family, &f) == 0 && symv_family_get(f)->deterministic;
}

static int check_fit(db *d, const db_fit *fit, const db_fit_curve *curves,
                     size_t ncurves, const db_rule *rules, size_t nrules)
{
  static const char fn[] = "db_put_fit";
  if (!fit || (ncurves > 0 && !curves) || !rules || nrules == 0)
    return db_fail(d, SYMV_INVALID_VALUE, "%s: no fit, or no rules", fn);
  int status = check_routine(d, fn, fit->routine, 0);
  if (status) return status;
  if ((fit->uplo != 'L' && fit->uplo != 'U') || (fit->hot != 0 && fit->hot != 1) ||
      fit->lo < 1 || fit->hi < fit->lo || fit->hi > DB_N_MAX ||
      !(fit->threshold >= 0 && fit->threshold < 1) ||
      strnlen(fit->method, sizeof fit->method) >= sizeof fit->method)
    return db_fail(d, SYMV_INVALID_VALUE, "%s: bad fit (uplo 0x%02x, hot %d, "
                   "range %d..%d, threshold %g, or an unterminated method)", fn,
                   (unsigned char)fit->uplo, fit->hot, fit->lo, fit->hi,
                   fit->threshold);
  for (size_t i = 0; i < ncurves; i++) {
    const db_fit_curve *c = &curves[i];
    int k = kernel_index(c->kernel, sizeof c->kernel);
    if (k < 0)
      return db_fail(d, SYMV_INVALID_VALUE, "%s: curve %zu names an unknown "
                     "kernel '%.23s'", fn, i, c->kernel);
    if ((is_candidate_kernel(c->kernel) ? c->candidate_id < 1 : c->candidate_id != 0) ||
        !(isfinite(c->alpha) && c->alpha > 0) || c->nsamples < 0 ||
        !finite_nonneg(c->rms_rel))
      return db_fail(d, SYMV_INVALID_VALUE, "%s: curve %zu (%s, candidate "
                     "%lld): bad alpha %g, nsamples %d or rms_rel %g", fn, i,
                     c->kernel, c->candidate_id, c->alpha, c->nsamples, c->rms_rel);
  }
  char tile_err[256];
  if (db_rules_tile(fit->lo, fit->hi, rules, nrules, tile_err, sizeof tile_err))
    return db_fail(d, SYMV_INVALID_VALUE, "%s: %s", fn, tile_err);
  for (size_t i = 0; i < nrules; i++) {
    const db_rule *r = &rules[i];
    if (kernel_index(r->kernel, sizeof r->kernel) < 0)
      return db_fail(d, SYMV_INVALID_VALUE, "%s: rule %zu names an unknown "
                     "kernel '%.23s'", fn, i, r->kernel);
    if (is_candidate_kernel(r->kernel) && r->cand.id < 1)
      return db_fail(d, SYMV_INVALID_VALUE, "%s: rule %zu names candidate %lld",
                     fn, i, r->cand.id);
    if (fit->deterministic && !is_candidate_kernel(r->kernel) && !db_kernel_deterministic(r->kernel, ""))
      return db_fail(d, SYMV_INVALID_VALUE, "%s: rule %zu of a deterministic fit "
                     "names %s, whose results are not bitwise reproducible", fn, i, r->kernel);
    if (!(isfinite(r->predicted_us) && r->predicted_us > 0) ||
        !(isfinite(r->predicted_gain) && r->predicted_gain > 0))
      return db_fail(d, SYMV_INVALID_VALUE, "%s: rule %zu (%d..%d): predicted "
                     "time %g us, gain %g", fn, i, r->n_start, r->n_end,
                     r->predicted_us, r->predicted_gain);
  }
  if (rules[nrules - 1].n_end != fit->hi)
    return db_fail(d, SYMV_INVALID_VALUE, "%s: the rules do not tile %d..%d: "
                   "they end at %d", fn, fit->lo, fit->hi, rules[nrules - 1].n_end);
  return 0;
}

/* Within db_put_fit: candidate id must exist (SYMV_NOT_FOUND) and be one
 * of `routine`'s (SYMV_INVALID_VALUE); `who` names the curve or rule. */
static int check_fit_candidate(db *d, long long id, const char *routine,
                               int deterministic, const char *who)
{
  static const char what[] = "SELECT routine FROM candidate";
  sqlite3_stmt *st;
  char theirs[16] = "", family[16] = "";
  int row, status = db_query(d, &st, what,
                             "SELECT routine, family FROM candidate WHERE id = ?", "I", id);
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && !row)
    status = db_fail(d, SYMV_NOT_FOUND, "db_put_fit: %s names no candidate "
                     "%lld", who, id);
  if (status == 0) status = col_text(d, st, 0, theirs, sizeof theirs, what);
  if (status == 0) status = col_text(d, st, 1, family, sizeof family, what);
  if (status == 0 && strcmp(theirs, routine) != 0)
    status = db_fail(d, SYMV_INVALID_VALUE, "db_put_fit: %s names candidate "
                     "%lld, which is %s's, not the fit's routine %s", who, id,
                     theirs, routine);
  if (status == 0 && deterministic && !db_kernel_deterministic(DB_KERNEL_CANDIDATE, family))
    status = db_fail(d, SYMV_INVALID_VALUE, "db_put_fit: %s of a deterministic fit "
                     "names candidate %lld of family %s, whose results are not bitwise "
                     "reproducible", who, id, family);
  return db_end(d, st, what, status);
}

int db_put_fit(db *d, db_fit *fit, const db_fit_curve *curves, size_t ncurves,
               const db_rule *rules, size_t nrules)
{
  int status = check_fit(d, fit, curves, ncurves, rules, nrules);
  if (status) return status;
  if (!sqlite3_get_autocommit(d->conn))
    return db_fail(d, SYMV_DB, "db_put_fit: called inside a transaction");
  if ((status = db_begin(d))) return status;
  status = db_exec(d, "INSERT INTO fit",
                   "INSERT INTO fit (routine, created, uplo, hot, lo, hi, threshold, "
                   "method, atomics) VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?, ?, "
                   "?, ?, ?, ?, ?)", "tciiidtt", fit->routine, fit->uplo, fit->hot,
                   fit->lo, fit->hi, fit->threshold, fit->method,
                   fit->deterministic ? "deterministic" : "any");
  long long id = status ? 0 : sqlite3_last_insert_rowid(d->conn);
  char created[sizeof fit->created] = "";
  if (status == 0) {
    static const char what[] = "SELECT created FROM fit";
    sqlite3_stmt *st;
    int row;
    status = db_query(d, &st, what, "SELECT created FROM fit WHERE id = ?", "I", id);
    if (status == 0) {
      status = db_next(d, st, what, &row);
      if (status == 0 && row) status = col_text(d, st, 0, created, sizeof created, what);
      status = db_end(d, st, what, status);
    }
  }
  for (size_t i = 0; status == 0 && i < ncurves; i++) {
    const db_fit_curve *c = &curves[i];
    if (is_candidate_kernel(c->kernel)) {
      char who[32];
      snprintf(who, sizeof who, "curve %zu", i);
      if ((status = check_fit_candidate(d, c->candidate_id, fit->routine, fit->deterministic, who))) break;
    }
    status = db_exec(d, "INSERT INTO fit_curve",
                     "INSERT INTO fit_curve (fit_id, seq, kernel, candidate_id, "
                     "alpha, nsamples, rms_rel) VALUES (?, ?, ?, NULLIF(?, 0), ?, ?, ?)",
                     "IitIdid", id, (int)i, c->kernel, c->candidate_id, c->alpha,
                     c->nsamples, c->rms_rel);
    if (status == SYMV_NOT_FOUND)
      status = db_fail(d, SYMV_NOT_FOUND, "db_put_fit: curve %zu names no "
                       "candidate %lld", i, c->candidate_id);
  }
  for (size_t i = 0; status == 0 && i < nrules; i++) {
    const db_rule *r = &rules[i];
    long long cid = is_candidate_kernel(r->kernel) ? r->cand.id : 0;
    if (cid) {
      char who[64];
      snprintf(who, sizeof who, "rule %zu (%d..%d)", i, r->n_start, r->n_end);
      if ((status = check_fit_candidate(d, cid, fit->routine, fit->deterministic, who))) break;
    }
    status = db_exec(d, "INSERT INTO fit_rule",
                     "INSERT INTO fit_rule (fit_id, n_start, n_end, kernel, "
                     "candidate_id, predicted_us, predicted_gain) "
                     "VALUES (?, ?, ?, ?, NULLIF(?, 0), ?, ?)",
                     "IiitIdd", id, r->n_start, r->n_end, r->kernel, cid,
                     r->predicted_us, r->predicted_gain);
    if (status == SYMV_NOT_FOUND)
      status = db_fail(d, SYMV_NOT_FOUND, "db_put_fit: rule %zu (%d..%d) names "
                       "no candidate %lld", i, r->n_start, r->n_end, cid);
  }
  if (status == 0) status = db_commit(d);
  if (status) {
    db_abandon(d);
    return status;
  }
  fit->id = id;
  snprintf(fit->created, sizeof fit->created, "%s", created);
  return 0;
}

/* Read the row of the latest fit of (routine, uplo, hot) into *fit. */
static int db_read_latest_fit(db *d, const char *routine, char uplo, int hot,
                              int deterministic, db_fit *fit)
{
  static const char what[] = "SELECT FROM fit (latest)";
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what,
    "SELECT id, created, uplo, hot, lo, hi, threshold, method, routine FROM fit "
    "WHERE routine = ? AND uplo = ? AND hot = ? AND atomics = ? ORDER BY id DESC LIMIT 1",
    "tcit", routine, uplo, hot, deterministic ? "deterministic" : "any");
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && !row)
    status = db_fail(d, SYMV_NOT_FOUND, "no %sfit of %s, uplo %c, %s stored yet "
                     "(run 'symvtune fit' for it)", deterministic ? "deterministic " : "",
                     routine, uplo, hot ? "hot" : "cold");
  if (status == 0) {
    char uplo_text[4];
    memset(fit, 0, sizeof *fit);
    fit->id = sqlite3_column_int64(st, 0);
    status = col_text(d, st, 1, fit->created, sizeof fit->created, what);
    if (status == 0) status = col_text(d, st, 2, uplo_text, sizeof uplo_text, what);
    if (status == 0) status = col_text(d, st, 7, fit->method, sizeof fit->method, what);
    if (status == 0) status = col_text(d, st, 8, fit->routine, sizeof fit->routine, what);
    char who[32];
    snprintf(who, sizeof who, "fit %lld", fit->id);
    fit->uplo = uplo_text[0];
    fit->deterministic = deterministic;
    if (status == 0) status = col_int(d, st, 3, 0, 1, who, "hot", &fit->hot);
    if (status == 0) status = col_int(d, st, 4, 1, DB_N_MAX, who, "lo", &fit->lo);
    if (status == 0) status = col_int(d, st, 5, 1, DB_N_MAX, who, "hi", &fit->hi);
    fit->threshold = sqlite3_column_double(st, 6);
  }
  return db_end(d, st, what, status);
}

/* State of reading a fit's rules: the fit, and where the last rule ended. */
typedef struct {
  const db_fit *f;
} rule_ctx;

/* row_reader for fit_rule rows joined with their candidate (db_read_rules):
 * checks the kernel name and the candidate (db_read_rules checks the
 * tiling of them all, db_rules_tile). */
static int rule_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *vctx)
{
  rule_ctx *x = vctx;
  const db_fit *f = x->f;
  db_rule *r = elem;
  enum { N_START = CANDIDATE_NCOLUMNS, N_END, KERNEL, PREDICTED_US,
         PREDICTED_GAIN, CANDIDATE_ID };
  int status = col_text(d, st, KERNEL, r->kernel, sizeof r->kernel, what);
  if (status) return status;
  char who[48];
  snprintf(who, sizeof who, "fit %lld: a rule", f->id);
  status = col_int(d, st, N_START, 1, DB_N_MAX, who, "n_start", &r->n_start);
  if (status == 0) status = col_int(d, st, N_END, 1, DB_N_MAX, who, "n_end", &r->n_end);
  if (status) return status;
  r->predicted_us = sqlite3_column_double(st, PREDICTED_US);
  r->predicted_gain = sqlite3_column_double(st, PREDICTED_GAIN);
  if (kernel_index(r->kernel, sizeof r->kernel) < 0)
    return db_fail(d, SYMV_DB_CORRUPT, "fit %lld has a rule for kernel "
                   "'%s', which this program does not know", f->id, r->kernel);
  if (is_candidate_kernel(r->kernel)) {
    if (sqlite3_column_type(st, 0) == SQLITE_NULL)
      return db_fail(d, SYMV_DB_CORRUPT, "fit %lld: the rule for %d..%d "
                     "names candidate %lld, which is not in the database",
                     f->id, r->n_start, r->n_end,
                     (long long)sqlite3_column_int64(st, CANDIDATE_ID));
    if ((status = read_candidate(d, st, what, &r->cand))) return status;
    if (strcmp(r->cand.routine, f->routine) != 0)
      return db_fail(d, SYMV_DB_CORRUPT, "fit %lld of %s: the rule for %d..%d "
                     "names candidate %lld, which is %s's", f->id, f->routine,
                     r->n_start, r->n_end, r->cand.id, r->cand.routine);
  }
  return 0;
}

/* The rules of fit `f`, checked to tile f->lo..f->hi as db_put_fit made
 * them: the rules are what a generated library will dispatch on, and the
 * file is input. */
static int db_read_rules(db *d, const db_fit *f, db_rule **rules, size_t *nrules)
{
  static const char what[] = "SELECT FROM fit_rule";
  sqlite3_stmt *st;
  int status = db_query(d, &st, what,
    "SELECT " CANDIDATE_COLUMNS ", n_start, n_end, kernel, predicted_us, "
    "predicted_gain, candidate_id FROM fit_rule LEFT JOIN candidate "
    "ON candidate.id = fit_rule.candidate_id WHERE fit_id = ? ORDER BY n_start",
    "I", f->id);
  if (status) return status;
  rule_ctx rc = {f};
  db_rule *a = NULL;
  size_t n = 0;
  if ((status = db_collect(d, st, what, sizeof *a, rule_row, &rc, (void **)&a, &n))) return status;
  char tile_err[256];
  if (db_rules_tile(f->lo, f->hi, a, n, tile_err, sizeof tile_err)) {
    free(a);
    return db_fail(d, SYMV_DB_CORRUPT, "fit %lld: %s", f->id, tile_err);
  }
  *rules = a;
  *nrules = n;
  return 0;
}

/* row_reader for fit_curve rows (db_read_curves); ctx: the fit's id. */
static int curve_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx)
{
  db_fit_curve *c = elem;
  int status = col_text(d, st, 0, c->kernel, sizeof c->kernel, what);
  if (status) return status;
  if (kernel_index(c->kernel, sizeof c->kernel) < 0)
    return db_fail(d, SYMV_DB_CORRUPT, "fit %lld has a curve for kernel "
                   "'%s', which this program does not know", *(const long long *)ctx, c->kernel);
  c->candidate_id = sqlite3_column_int64(st, 1);  /* NULL reads as 0 */
  c->alpha = sqlite3_column_double(st, 2);
  char who[48];
  snprintf(who, sizeof who, "fit %lld: a curve", *(const long long *)ctx);
  if ((status = col_int(d, st, 3, 0, INT_MAX, who, "nsamples", &c->nsamples))) return status;
  c->rms_rel = sqlite3_column_double(st, 4);
  return 0;
}

/* The curves of fit `id`, in the order they were stored. */
static int db_read_curves(db *d, long long id, db_fit_curve **curves, size_t *ncurves)
{
  static const char what[] = "SELECT FROM fit_curve";
  sqlite3_stmt *st;
  int status = db_query(d, &st, what,
    "SELECT kernel, candidate_id, alpha, nsamples, rms_rel FROM fit_curve "
    "WHERE fit_id = ? ORDER BY seq", "I", id);
  if (status) return status;
  return db_collect(d, st, what, sizeof **curves, curve_row, &id, (void **)curves, ncurves);
}

int db_latest_fit(db *d, const char *routine, char uplo, int hot, db_fit *fit,
                  db_rule **rules, size_t *nrules, db_fit_curve **curves,
                  size_t *ncurves)
{
  return db_latest_fit_class(d, routine, uplo, hot, 0, fit, rules, nrules, curves, ncurves);
}

int db_latest_fit_class(db *d, const char *routine, char uplo, int hot, int deterministic,
                        db_fit *fit, db_rule **rules, size_t *nrules,
                        db_fit_curve **curves, size_t *ncurves)
{
  if (rules) *rules = NULL;
  if (nrules) *nrules = 0;
  if (curves) *curves = NULL;
  if (ncurves) *ncurves = 0;
  if (!fit || !rules || !nrules || (curves && !ncurves))
    return db_fail(d, SYMV_INVALID_VALUE, "db_latest_fit: NULL argument");
  int check = check_routine(d, "db_latest_fit", routine, 0);
  if (check) return check;
  if ((uplo != 'L' && uplo != 'U') || (hot != 0 && hot != 1))
    return db_fail(d, SYMV_INVALID_VALUE, "db_latest_fit: uplo 0x%02x, hot %d "
                   "(L or U, 0 or 1)", (unsigned char)uplo, hot);
  /* One read transaction: a fit stored meanwhile cannot mix in. */
  int own = sqlite3_get_autocommit(d->conn);
  int status = own ? db_exec(d, "BEGIN (latest fit)", "BEGIN", "") : 0;
  if (status) return status;
  status = db_read_latest_fit(d, routine, uplo, hot, deterministic != 0, fit);
  if (status == 0) status = db_read_rules(d, fit, rules, nrules);
  for (size_t i = 0; status == 0 && fit->deterministic && i < *nrules; i++)
    if (!db_kernel_deterministic((*rules)[i].kernel, (*rules)[i].cand.family))
      status = db_fail(d, SYMV_DB_CORRUPT, "fit %lld is deterministic, but its rule %zu "
                       "(n %d..%d) names a kernel whose results are not bitwise reproducible",
                       fit->id, i + 1, (*rules)[i].n_start, (*rules)[i].n_end);
  if (status == 0 && curves) status = db_read_curves(d, fit->id, curves, ncurves);
  if (own) {
    if (status == 0) status = db_exec(d, "COMMIT (latest fit)", "COMMIT", "");
    else db_abandon(d);
  }
  if (status) {
    free(*rules);
    *rules = NULL;
    *nrules = 0;
    if (curves) {
      free(*curves);
      *curves = NULL;
      *ncurves = 0;
    }
  }
  return status;
}

int db_rules_tile(int lo, int hi, const db_rule *rules, size_t n, char *err, size_t errlen)
{
  if (n == 0) {
    snprintf(err, errlen, "no rule covers %d..%d", lo, hi);
    return SYMV_INVALID_VALUE;
  }
  for (size_t i = 0; i < n; i++) {
    const db_rule *r = &rules[i];
    const long long expect = i == 0 ? (long long)lo : (long long)rules[i - 1].n_end + 1;
    if (r->n_end < r->n_start) {
      snprintf(err, errlen, "the rules do not tile %d..%d: rule %zu (n %d..%d) is empty", lo, hi, i + 1,
               r->n_start, r->n_end);
      return SYMV_INVALID_VALUE;
    }
    if (r->n_start != expect) {
      snprintf(err, errlen, "the rules do not tile %d..%d: rule %zu starts at n = %d, not %lld (%s)", lo, hi,
               i + 1, r->n_start, expect,
               i == 0 ? "not at lo" : r->n_start > expect ? "a gap" : "an overlap");
      return SYMV_INVALID_VALUE;
    }
  }
  if (rules[n - 1].n_end != hi) {
    snprintf(err, errlen, "the rules do not tile %d..%d: they end at %d, not at hi", lo, hi, rules[n - 1].n_end);
    return SYMV_INVALID_VALUE;
  }
  return 0;
}

int db_put_validation(db *d, db_validation *v, const db_validation_time *t, size_t nt)
{
  static const char fn[] = "db_put_validation";
  if (!v || (nt > 0 && !t))
    return db_fail(d, SYMV_INVALID_VALUE, "%s: NULL argument", fn);
  if (v->fit_id < 1 || !(v->regret_median >= 1) || !(v->regret_p90 >= v->regret_median) ||
      !(v->regret_max >= v->regret_p90) || !isfinite(v->regret_max))
    return db_fail(d, SYMV_INVALID_VALUE, "%s: fit %lld, regrets %g, %g, %g (1 <= median <= p90 <= max)", fn,
                   v->fit_id, v->regret_median, v->regret_p90, v->regret_max);
  for (size_t i = 0; i < nt; i++)
    if (t[i].n < 1 || t[i].n > DB_N_MAX || kernel_index(t[i].kernel, sizeof t[i].kernel) < 0 ||
        (is_candidate_kernel(t[i].kernel) ? t[i].candidate_id < 1 : t[i].candidate_id != 0) ||
        !(isfinite(t[i].median_us) && t[i].median_us > 0) || (t[i].chosen != 0 && t[i].chosen != 1))
      return db_fail(d, SYMV_INVALID_VALUE, "%s: time %zu (n %d, %.23s, candidate %lld, %g us, chosen %d) is "
                     "out of range", fn, i, t[i].n, t[i].kernel, t[i].candidate_id, t[i].median_us, t[i].chosen);
  if (!sqlite3_get_autocommit(d->conn))
    return db_fail(d, SYMV_DB, "%s: called inside a transaction", fn);
  int status = db_begin(d);
  if (status) return status;
  status = db_exec(d, "INSERT INTO validation_run",
                   "INSERT INTO validation_run (fit_id, created, seed, regret_median, regret_p90, regret_max) "
                   "VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?, ?, ?, ?)", "IIddd", v->fit_id,
                   (long long)v->seed, v->regret_median, v->regret_p90, v->regret_max);
  const long long id = status ? 0 : sqlite3_last_insert_rowid(d->conn);
  for (size_t i = 0; status == 0 && i < nt; i++) {
    if (is_candidate_kernel(t[i].kernel))
      status = db_exec(d, "INSERT INTO validation_time",
                       "INSERT INTO validation_time (run_id, n, kernel, candidate_id, median_us, predicted_us, chosen) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", "IitIdDi", id, t[i].n, t[i].kernel, t[i].candidate_id,
                       t[i].median_us, t[i].predicted_us, t[i].chosen);
    else
      status = db_exec(d, "INSERT INTO validation_time",
                       "INSERT INTO validation_time (run_id, n, kernel, candidate_id, median_us, predicted_us, chosen) "
                       "VALUES (?, ?, ?, NULL, ?, ?, ?)", "IitdDi", id, t[i].n, t[i].kernel, t[i].median_us,
                       t[i].predicted_us, t[i].chosen);
  }
  if (status) {
    db_rollback(d);
    return status;
  }
  if ((status = db_commit(d))) return status;
  v->id = id;
  return 0;
}

/* ---- Bench runs (schema version 7) ------------------------------------------ */

/* 1 if the string field s (size bytes) is terminated, and not empty unless
 * empty_ok. */
static int field_ok(const char *s, size_t size, int empty_ok)
{
  const size_t l = strnlen(s, size);
  return l < size && (empty_ok || l > 0);
}

/* x > 0 and finite; or, where missing_ok, NAN (stored NULL). */
static int positive_or_nan(double x, int missing_ok)
{
  return (isfinite(x) && x > 0) || (missing_ok && isnan(x));
}

int db_put_bench(db *d, db_bench_run *run, const db_bench_result *r, size_t nr)
{
  static const char fn[] = "db_put_bench";
  if (!run || (nr > 0 && !r))
    return db_fail(d, SYMV_INVALID_VALUE, "%s: NULL argument", fn);
  if (!field_ok(run->symvtune, sizeof run->symvtune, 0) || !field_ok(run->lib_path, sizeof run->lib_path, 0) ||
      !field_ok(run->lib_version, sizeof run->lib_version, 1) ||
      !field_ok(run->lib_tuned_gpu, sizeof run->lib_tuned_gpu, 1) ||
      !field_ok(run->lib_arch, sizeof run->lib_arch, 1) || !field_ok(run->device, sizeof run->device, 0))
    return db_fail(d, SYMV_INVALID_VALUE, "%s: an empty or unterminated name (symvtune version, library path, "
                   "device)", fn);
  if ((run->deterministic != 0 && run->deterministic != 1) || (run->hot != 0 && run->hot != 1) ||
      run->batches < 1 || run->cc_major < 1 || run->cc_minor < 0 || run->sm_count < 1 ||
      !(isnan(run->copy_gbs) || (isfinite(run->copy_gbs) && run->copy_gbs >= 0)) ||
      (run->complete != 0 && run->complete != 1))
    return db_fail(d, SYMV_INVALID_VALUE, "%s: bad run (atomics %d, hot %d, batches %d, sm_%d%d, %d SMs, copy "
                   "%g GB/s, complete %d)", fn, run->deterministic, run->hot, run->batches, run->cc_major,
                   run->cc_minor, run->sm_count, run->copy_gbs, run->complete);
  for (size_t i = 0; i < nr; i++) {
    const db_bench_result *b = &r[i];
    int status = field_ok(b->routine, sizeof b->routine, 0) ? check_routine(d, fn, b->routine, 0)
                 : db_fail(d, SYMV_INVALID_VALUE, "%s: result %zu: an unterminated routine", fn, i);
    if (status) return status;
    if ((b->uplo != 'L' && b->uplo != 'U') || b->n < 1 || b->n > DB_N_MAX ||
        !field_ok(b->kernel, sizeof b->kernel, 0) || !positive_or_nan(b->libsymv_us, 0) ||
        !positive_or_nan(b->cublas_us, 0) || !positive_or_nan(b->cublas_atomics_us, 0) ||
        !positive_or_nan(b->openblas_us, 1) || !positive_or_nan(b->floor_us, 1) ||
        !(isnan(b->residual) || (isfinite(b->residual) && b->residual >= 0)) ||
        !(isnan(b->pct_copy) || (isfinite(b->pct_copy) && b->pct_copy >= 0)))
      return db_fail(d, SYMV_INVALID_VALUE, "%s: result %zu (uplo 0x%02x, n %d, kernel '%.63s', %g, %g, %g, %g, "
                     "%g us, residual %g, %g%% of copy) is out of range", fn, i, (unsigned char)b->uplo, b->n,
                     b->kernel, b->libsymv_us, b->cublas_us, b->cublas_atomics_us, b->openblas_us, b->floor_us,
                     b->residual, b->pct_copy);
    for (size_t j = 0; j < i; j++)
      if (r[j].n == b->n && r[j].uplo == b->uplo && !strcmp(r[j].routine, b->routine))
        return db_fail(d, SYMV_INVALID_VALUE, "%s: results %zu and %zu are both %s, uplo %c, n = %d", fn, j, i,
                       b->routine, b->uplo, b->n);
  }
  if (!sqlite3_get_autocommit(d->conn))
    return db_fail(d, SYMV_DB, "%s: called inside a transaction", fn);
  int status = db_begin(d);
  if (status) return status;
  const double copy = run->copy_gbs > 0 ? run->copy_gbs : NAN;
  status = db_exec(d, "INSERT INTO bench_run",
                   "INSERT INTO bench_run (created, symvtune, lib_path, lib_version, lib_tuned_gpu, lib_arch, "
                   "atomics, hot, batches, device, cc_major, cc_minor, sm_count, copy_gbs, complete) "
                   "VALUES (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   "ttttttiitiiiDi", run->symvtune, run->lib_path, run->lib_version, run->lib_tuned_gpu,
                   run->lib_arch, run->deterministic ? "deterministic" : "any", run->hot, run->batches, run->device,
                   run->cc_major, run->cc_minor, run->sm_count, copy, run->complete);
  const long long id = status ? 0 : sqlite3_last_insert_rowid(d->conn);
  for (size_t i = 0; status == 0 && i < nr; i++) {
    const db_bench_result *b = &r[i];
    status = db_exec(d, "INSERT INTO bench_result",
                     "INSERT INTO bench_result (run_id, routine, uplo, n, kernel, libsymv_us, cublas_us, "
                     "cublas_atomics_us, openblas_us, floor_us, residual, pct_copy) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     "ItcitdddDDDD", id, b->routine, b->uplo, b->n, b->kernel, b->libsymv_us, b->cublas_us,
                     b->cublas_atomics_us, b->openblas_us, b->floor_us, b->residual, b->pct_copy);
  }
  char created[sizeof run->created] = "";
  if (status == 0) {
    static const char what[] = "SELECT created FROM bench_run";
    sqlite3_stmt *st;
    int row = 0;
    status = db_query(d, &st, what, "SELECT created FROM bench_run WHERE id = ?", "I", id);
    if (status == 0) {
      status = db_next(d, st, what, &row);
      if (status == 0 && row) status = col_text(d, st, 0, created, sizeof created, what);
      status = db_end(d, st, what, status);
    }
  }
  if (status) {
    db_rollback(d);
    return status;
  }
  if ((status = db_commit(d))) return status;
  run->id = id;
  snprintf(run->created, sizeof run->created, "%s", created);
  return 0;
}

/* row_reader for validation_time rows (db_latest_validation). */
static int validation_time_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx)
{
  (void)ctx;
  db_validation_time *e = elem;
  const long long run = sqlite3_column_int64(st, 6);
  char who[48];
  snprintf(who, sizeof who, "validation run %lld", run);
  int status = col_int(d, st, 0, 1, DB_N_MAX, who, "n", &e->n);
  if (status == 0) status = col_text(d, st, 1, e->kernel, sizeof e->kernel, what);
  if (status == 0 && kernel_index(e->kernel, sizeof e->kernel) < 0)
    status = db_fail(d, SYMV_DB_CORRUPT, "%s: unknown kernel (a damaged or hand-edited database)", who);
  e->candidate_id = sqlite3_column_type(st, 2) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 2);
  e->median_us = sqlite3_column_double(st, 3);
  e->predicted_us = sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4);
  if (status == 0) status = col_int(d, st, 5, 0, 1, who, "chosen", &e->chosen);
  if (status == 0 && !(isfinite(e->median_us) && e->median_us > 0))
    status = db_fail(d, SYMV_DB_CORRUPT, "%s: a time of %g us at n %d (a damaged or hand-edited database)", who,
                     e->median_us, e->n);
  return status;
}

/* The run of the first row of st (id, fit_id, seed, regret_median, regret_p90,
 * regret_max) into *v and its times into *t (db_latest_validation,
 * db_latest_validation_of); `none`: the message when st has no row. */
static int validation_read(db *d, sqlite3_stmt *st, const char *what, const char *none, db_validation *v,
                           db_validation_time **t, size_t *nt)
{
  int row, status = db_next(d, st, what, &row);
  if (status == 0 && !row) status = db_fail(d, SYMV_NOT_FOUND, "%s", none);
  if (status == 0) {
    v->id = sqlite3_column_int64(st, 0);
    v->fit_id = sqlite3_column_int64(st, 1);
    v->seed = (unsigned long long)sqlite3_column_int64(st, 2);
    v->regret_median = sqlite3_column_double(st, 3);
    v->regret_p90 = sqlite3_column_double(st, 4);
    v->regret_max = sqlite3_column_double(st, 5);
  }
  status = db_end(d, st, what, status);
  if (status) return status;
  static const char what_t[] = "SELECT FROM validation_time";
  status = db_query(d, &st, what_t,
    "SELECT n, kernel, candidate_id, median_us, predicted_us, chosen, run_id FROM validation_time "
    "WHERE run_id = ? ORDER BY n, kernel, candidate_id", "I", v->id);
  if (status) return status;
  void *list = NULL;
  status = db_collect(d, st, what_t, sizeof **t, validation_time_row, NULL, &list, nt);
  if (status) return status;
  *t = list;
  return 0;
}

int db_latest_validation(db *d, long long fit_id, db_validation *v, db_validation_time **t, size_t *nt)
{
  static const char what[] = "SELECT FROM validation_run (latest)";
  if (!v || !t || !nt) return db_fail(d, SYMV_INVALID_VALUE, "db_latest_validation: NULL argument");
  *t = NULL;
  *nt = 0;
  memset(v, 0, sizeof *v);
  sqlite3_stmt *st;
  int status = db_query(d, &st, what,
    "SELECT id, fit_id, seed, regret_median, regret_p90, regret_max FROM validation_run WHERE fit_id = ? "
    "ORDER BY id DESC LIMIT 1", "I", fit_id);
  if (status) return status;
  char none[128];
  snprintf(none, sizeof none, "fit %lld has no validation run stored (run 'symvtune validate' for it)", fit_id);
  return validation_read(d, st, what, none, v, t, nt);
}

int db_latest_validation_of(db *d, const char *routine, char uplo, int hot, db_validation *v,
                            db_validation_time **t, size_t *nt)
{
  static const char what[] = "SELECT FROM validation_run (latest of the routine)";
  if (!v || !t || !nt || !routine) return db_fail(d, SYMV_INVALID_VALUE, "db_latest_validation_of: NULL argument");
  *t = NULL;
  *nt = 0;
  memset(v, 0, sizeof *v);
  if (!db_routine_valid(routine) || (uplo != 'L' && uplo != 'U') || (hot != 0 && hot != 1))
    return db_fail(d, SYMV_INVALID_VALUE, "db_latest_validation_of: no routine, uplo or hot of that name");
  sqlite3_stmt *st;
  int status = db_query(d, &st, what,
    "SELECT r.id, r.fit_id, r.seed, r.regret_median, r.regret_p90, r.regret_max FROM validation_run r "
    "JOIN fit f ON f.id = r.fit_id WHERE f.routine = ? AND f.uplo = ? AND f.hot = ? ORDER BY r.id DESC LIMIT 1",
    "tci", routine, uplo, hot);
  if (status) return status;
  char none[128];
  snprintf(none, sizeof none, "no validation run of %s (uplo %c, %s) stored (run 'symvtune validate')", routine, uplo,
           hot ? "hot" : "cold");
  return validation_read(d, st, what, none, v, t, nt);
}
