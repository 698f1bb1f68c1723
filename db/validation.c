/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * validation.c - the validation runs of the results database (tables
 * validation_run and validation_time, `symvtune validate`): a fit's rules
 * judged at sizes no stage sampled, and the latest run of a fit or of a
 * routine read back.
 */
#include "db/db_internal.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "routine.h"
#include "symv_error.h"

/* ---- Validation runs (schema version 6) ------------------------------------ */

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
    if (t[i].n < 1 || t[i].n > DB_N_MAX || db_kernel_index(t[i].kernel, sizeof t[i].kernel) < 0 ||
        (db_is_candidate_kernel(t[i].kernel) ? t[i].candidate_id < 1 : t[i].candidate_id != 0) ||
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
    if (db_is_candidate_kernel(t[i].kernel))
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

/* row_reader for validation_time rows (db_latest_validation). */
static int validation_time_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx)
{
  (void)ctx;
  db_validation_time *e = elem;
  const long long run = sqlite3_column_int64(st, 6);
  char who[48];
  snprintf(who, sizeof who, "validation run %lld", run);
  int status = db_col_int(d, st, 0, 1, DB_N_MAX, who, "n", &e->n);
  if (status == 0) status = db_col_text(d, st, 1, e->kernel, sizeof e->kernel, what);
  if (status == 0 && db_kernel_index(e->kernel, sizeof e->kernel) < 0)
    status = db_fail(d, SYMV_DB_CORRUPT, "%s: unknown kernel (a damaged or hand-edited database)", who);
  e->candidate_id = sqlite3_column_type(st, 2) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 2);
  e->median_us = sqlite3_column_double(st, 3);
  e->predicted_us = sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4);
  if (status == 0) status = db_col_int(d, st, 5, 0, 1, who, "chosen", &e->chosen);
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

int db_latest_validation_of(db *d, symv_routine routine, char uplo, int hot, int deterministic, db_validation *v,
                            db_validation_time **t, size_t *nt)
{
  static const char what[] = "SELECT FROM validation_run (latest of the routine)";
  if (!v || !t || !nt) return db_fail(d, SYMV_INVALID_VALUE, "db_latest_validation_of: NULL argument");
  *t = NULL;
  *nt = 0;
  memset(v, 0, sizeof *v);
  if ((unsigned)routine >= SYMV_ROUTINE_COUNT || (uplo != 'L' && uplo != 'U') || (hot != 0 && hot != 1) ||
      (deterministic != 0 && deterministic != 1))
    return db_fail(d, SYMV_INVALID_VALUE, "db_latest_validation_of: no routine, uplo, hot or atomics class of that name");
  sqlite3_stmt *st;
  /* the class asked for first, then the latest */
  int status = db_query(d, &st, what,
    "SELECT r.id, r.fit_id, r.seed, r.regret_median, r.regret_p90, r.regret_max FROM validation_run r "
    "JOIN fit f ON f.id = r.fit_id WHERE f.routine = ? AND f.uplo = ? AND f.hot = ? "
    "ORDER BY f.atomics = ? DESC, r.id DESC LIMIT 1",
    "tcit", symv_routine_name(routine), uplo, hot, deterministic ? "deterministic" : "any");
  if (status) return status;
  char none[128];
  snprintf(none, sizeof none, "no validation run of %s (uplo %c, %s) stored (run 'symvtune validate')",
           symv_routine_name(routine), uplo,
           hot ? "hot" : "cold");
  return validation_read(d, st, what, none, v, t, nt);
}
