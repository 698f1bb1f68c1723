/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sweep.c - the log of sweep runs (table sweep_run) and the shards of a
 * sweep (table shard: which part of which space a shard's database holds,
 * and after `symvtune merge` the file each part came from).
 */
#include "db/db_internal.h"

#include <limits.h>
#include <sqlite3.h>
#include <string.h>

#include "routine.h"
#include "symv_error.h"

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
  if (!db_finite_nonneg(compile_s) || !db_finite_nonneg(measure_s))
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

/* *have = 1 if the table `name` (one outside the schema's versions, made
 * on first write) is in the database, else 0. Errors: SYMV_DB. */
static int aux_table_exists(db *d, const char *name, long long *have)
{
  static const char what[] = "looking for a table (sqlite_master)";
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                             "t", name);
  if (status) return status;
  status = db_next(d, st, what, &row);
  *have = status == 0 && row ? sqlite3_column_int64(st, 0) : 0;
  return db_end(d, st, what, status);
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
  if (!s || (unsigned)s->routine >= SYMV_ROUTINE_COUNT || strnlen(s->space, sizeof s->space) != 16 ||
      strspn(s->space, "0123456789abcdef") != 16 || s->n < 1 || s->n > 4096 || s->k < 0 || s->k >= s->n ||
      s->candidates < 0 || s->space_size < s->candidates || (s->uplo != 'L' && s->uplo != 'U') ||
      (s->hot != 0 && s->hot != 1) || !db_text_ok(s->sizes, sizeof s->sizes) ||
      strnlen(s->source, sizeof s->source) >= sizeof s->source)
    return db_fail(d, SYMV_INVALID_VALUE, "db_put_shard: incomplete or out-of-range shard description");
  int status = db_exec_script(d, "CREATE TABLE shard", SHARD_TABLE);
  if (status == 0)
    status = db_exec(d, "INSERT INTO shard",
                     "INSERT OR REPLACE INTO shard (" SHARD_COLUMNS ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     "ttiiIItcit", symv_routine_name(s->routine), s->space, s->k, s->n, s->candidates, s->space_size, s->sizes,
                     s->uplo, s->hot, s->source);
  return status;
}

static int shard_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx)
{
  (void)ctx;
  db_shard *s = elem;
  char uplo[4] = "";
  static const char who[] = "a shard row";
  int status = db_col_routine(d, st, 0, who, &s->routine);
  if (status == 0) status = db_col_text(d, st, 1, s->space, sizeof s->space, what);
  if (status == 0) status = db_col_int(d, st, 2, 0, 4095, who, "k", &s->k);
  if (status == 0) status = db_col_int(d, st, 3, 1, 4096, who, "n", &s->n);
  if (status == 0) status = db_col_int64(d, st, 4, 0, LLONG_MAX, who, "candidates", &s->candidates);
  if (status == 0) status = db_col_int64(d, st, 5, 0, LLONG_MAX, who, "space_size", &s->space_size);
  if (status == 0) status = db_col_text(d, st, 6, s->sizes, sizeof s->sizes, what);
  if (status == 0) status = db_col_text(d, st, 7, uplo, sizeof uplo, what);
  if (status == 0) status = db_col_int(d, st, 8, 0, 1, who, "hot", &s->hot);
  if (status == 0) status = db_col_text(d, st, 9, s->source, sizeof s->source, what);
  if (status == 0 && (s->k >= s->n || (uplo[0] != 'L' && uplo[0] != 'U')))
    status = db_fail(d, SYMV_DB_CORRUPT, "%s: shard %d of %d, uplo '%s' (a damaged or hand-edited "
                     "database)", who, s->k, s->n, uplo);
  s->uplo = uplo[0];
  return status;
}

int db_list_shards(db *d, symv_routine routine, db_shard **list, size_t *count)
{
  *list = NULL;
  *count = 0;
  int status = db_check_routine(d, "db_list_shards", routine, 1);
  if (status) return status;
  long long have = 0;
  if ((status = aux_table_exists(d, "shard", &have)) || !have) return status;
  static const char what[] = "SELECT FROM shard";
  sqlite3_stmt *st;
  status = db_query(d, &st, what,
                    "SELECT " SHARD_COLUMNS " FROM shard WHERE (?1 IS NULL OR routine = ?1) "
                    "ORDER BY routine, space, n, k, source", "t", db_routine_key(routine));
  if (status) return status;
  return db_collect(d, st, what, sizeof **list, shard_row, NULL, (void **)list, count);
}

/* ---- The code a candidate's timings are of ------------------------------------- */

#define KERNEL_CODE_TABLE                                                     \
  "CREATE TABLE IF NOT EXISTS kernel_code (\n"                                \
  "  candidate_id INTEGER PRIMARY KEY REFERENCES candidate (id) ON DELETE CASCADE,\n" \
  "  code TEXT NOT NULL CHECK (length(code) = 16)\n"                          \
  ")"

static int code_ok(const char *code)
{
  return code && strnlen(code, 17) == 16 && strspn(code, "0123456789abcdef") == 16;
}

int db_put_kernel_code(db *d, long long candidate_id, const char *code)
{
  if (!code_ok(code)) return db_fail(d, SYMV_INVALID_VALUE, "db_put_kernel_code: a code of 16 hex digits");
  int status = db_exec_script(d, "CREATE TABLE kernel_code", KERNEL_CODE_TABLE);
  if (status == 0) /* a candidate that is not there fails the foreign key: SYMV_NOT_FOUND */
    status = db_exec(d, "INSERT INTO kernel_code", "INSERT OR REPLACE INTO kernel_code (candidate_id, code) VALUES (?, ?)",
                     "It", candidate_id, code);
  return status;
}

static int kernel_code_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx)
{
  (void)ctx;
  db_kernel_code *k = elem;
  static const char who[] = "a kernel_code row";
  k->candidate_id = sqlite3_column_int64(st, 0);
  int status = db_col_params(d, st, 1, who, &k->p);
  if (status == 0) status = db_col_text(d, st, 7, k->code, sizeof k->code, what);
  if (status == 0 && !code_ok(k->code))
    status = db_fail(d, SYMV_DB_CORRUPT, "%s: candidate %lld's code '%s' is not 16 hex digits (a damaged or "
                     "hand-edited database)", who, k->candidate_id, k->code);
  return status;
}

int db_list_kernel_codes(db *d, symv_routine routine, db_kernel_code **list, size_t *count)
{
  *list = NULL;
  *count = 0;
  int status = db_check_routine(d, "db_list_kernel_codes", routine, 1);
  if (status) return status;
  long long have = 0;
  if ((status = aux_table_exists(d, "kernel_code", &have)) || !have) return status;
  static const char what[] = "SELECT FROM kernel_code";
  sqlite3_stmt *st;
  status = db_query(d, &st, what,
                    "SELECT k.candidate_id, c.routine, c.family, c.block_size, c.ux, c.multiplicity, c.mx, k.code "
                    "FROM kernel_code k JOIN candidate c ON c.id = k.candidate_id "
                    "WHERE (?1 IS NULL OR c.routine = ?1) ORDER BY k.candidate_id", "t", db_routine_key(routine));
  if (status) return status;
  return db_collect(d, st, what, sizeof **list, kernel_code_row, NULL, (void **)list, count);
}

const db_kernel_code *db_kernel_code_find(const db_kernel_code *list, size_t n, long long candidate_id)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (list[mid].candidate_id < candidate_id) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && list[lo].candidate_id == candidate_id ? &list[lo] : NULL;
}
