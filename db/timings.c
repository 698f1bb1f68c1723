/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * timings.c - the timings of the results database: the measurements of
 * candidates (table measurement) and of each routine's cuBLAS baselines
 * (table baseline), and the table of a routine's valid candidates' times
 * at a set of sizes (db_time_table).
 */
#include "db/db_internal.h"

#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "routine.h"
#include "symv_error.h"

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
  if (!db_finite_nonneg(m->median_us) || !db_finite_nonneg(m->min_us) ||
      !db_finite_nonneg(m->max_us) || m->min_us > m->median_us ||
      m->median_us > m->max_us || m->batches < 1 || m->calls_per_batch < 1 ||
      !db_finite_nonneg(m->gflops) || !db_finite_nonneg(m->gbs) ||
      !db_finite_nonneg(m->residual))
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
  int status = db_col_text(d, st, 1, uplo, sizeof uplo, what);
  if (status == 0) status = db_col_text(d, st, 3, stage, sizeof stage, what);
  if (status) return status;
  int s = db_name_index(stage_names, DB_STAGE_COUNT, stage);
  if (s < 0)
    return db_fail(d, SYMV_DB_CORRUPT, "a timing has stage '%s', which this "
                   "program does not know", stage);
  static const char who[] = "a timing";
  status = db_col_int(d, st, 0, 1, DB_N_MAX, who, "n", &m->n);
  if (status == 0) status = db_col_int(d, st, 2, 0, 1, who, "hot", &m->hot);
  if (status == 0) status = db_col_int(d, st, 7, 1, INT_MAX, who, "batches", &m->batches);
  if (status == 0) status = db_col_int(d, st, 8, 1, INT_MAX, who, "calls_per_batch", &m->calls_per_batch);
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

int db_put_baseline(db *d, symv_routine routine, const char *name,
                    const db_measurement *m)
{
  int status = db_check_routine(d, "db_put_baseline", routine, 0);
  if (status) return status;
  if (!db_text_ok(name, DB_BASELINE_NAME_MAX + 1))
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
    "tticitdddiiddd", symv_routine_name(routine), name, m->n, m->uplo, m->hot, stage_names[m->stage],
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

int db_has_baseline(db *d, symv_routine routine, const char *name, int n,
                    char uplo, int hot, db_stage stage, int *found)
{
  *found = 0;
  int status = db_check_routine(d, "db_has_baseline", routine, 0);
  if (status) return status;
  if (!db_text_ok(name, DB_BASELINE_NAME_MAX + 1))
    return db_fail(d, SYMV_INVALID_VALUE, "db_has_baseline: bad baseline name");
  status = check_key(d, "db_has_baseline", n, uplo, hot, (int)stage);
  if (status) return status;
  return db_exists(d, "SELECT FROM baseline (exists)",
                   "SELECT 1 FROM baseline WHERE routine = ? AND name = ? "
                   "AND stage = ? AND n = ? AND uplo = ? AND hot = ?", found,
                   "tttici", symv_routine_name(routine), name, stage_names[stage], n, uplo, hot);
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

int db_baseline_measurements(db *d, symv_routine routine, const char *name,
                             db_stage stage, char uplo, int hot,
                             db_measurement **list, size_t *count)
{
  *list = NULL;
  *count = 0;
  int status = db_check_routine(d, "db_baseline_measurements", routine, 0);
  if (status) return status;
  if (!db_text_ok(name, DB_BASELINE_NAME_MAX + 1))
    return db_fail(d, SYMV_INVALID_VALUE, "db_baseline_measurements: bad "
                   "baseline name");
  status = check_filter(d, "db_baseline_measurements", stage, uplo, hot);
  if (status) return status;
  return db_list_measurements(d, "SELECT FROM baseline (list)", list, count,
    "SELECT " MEASUREMENT_COLUMNS " FROM baseline WHERE routine = ?1 "
    "AND name = ?2 AND stage = ?3 AND (?4 IS NULL OR uplo = ?4) "
    "AND (?5 IS NULL OR hot = ?5) ORDER BY n, uplo, hot",
    "tttcN", symv_routine_name(routine), name, stage_names[stage], uplo, hot);
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
static int db_fill_times(db *d, db_times *t, symv_routine routine, char uplo,
                         int hot, db_stage stage)
{
  static const char what[] = "SELECT FROM measurement (time table)";
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what,
    "SELECT m.candidate_id, m.n, m.median_us FROM measurement AS m "
    "JOIN candidate AS c ON c.id = m.candidate_id "
    "WHERE c.routine = ? AND c.status = 'valid' AND m.stage = ? AND m.uplo = ? "
    "AND m.hot = ?", "ttci", symv_routine_name(routine), stage_names[stage], uplo, hot);
  if (status) return status;
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    long long id = sqlite3_column_int64(st, 0);
    int n;
    if ((status = db_col_int(d, st, 1, 1, DB_N_MAX, "a timing", "n", &n))) break;
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

int db_time_table(db *d, symv_routine routine, const int *ns, size_t nsizes,
                  char uplo, int hot, db_stage stage, db_times *out)
{
  memset(out, 0, sizeof *out);
  int rc = db_check_routine(d, "db_time_table", routine, 0);
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
  status = db_list_candidates(d, routine, DB_VALID, DB_ANY_FAMILY, &out->cand, &out->ncand);
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
