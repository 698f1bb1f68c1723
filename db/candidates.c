/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * candidates.c - the candidates of the results database (table
 * candidate): each point of a routine's space with its fate (pending,
 * valid, or invalid and why), its compile time and registers, and the
 * count of attempts that resume reads; their lists and counts, and the
 * routines a file holds.
 */
#include "db/db_internal.h"

#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "params.h"
#include "routine.h"
#include "symv_error.h"
#include "../kernels/symv_mx.h"

/* ---- Candidates --------------------------------------------------------------- */

int db_col_params(db *d, sqlite3_stmt *st, int i, const char *who, symv_params *p)
{
  int rc = db_col_routine(d, st, i, who, &p->routine);
  if (rc == 0) rc = db_col_family(d, st, i + 1, who, &p->family);
  if (rc == 0) rc = db_col_int(d, st, i + 2, 0, SYMV_BLOCK_SIZE_MAX, who, "BLOCK_SIZE", &p->block_size);
  if (rc == 0) rc = db_col_int(d, st, i + 3, 0, SYMV_UX_MAX, who, "UX", &p->ux);
  if (rc == 0) rc = db_col_int(d, st, i + 4, 0, SYMV_MULTIPLICITY_MAX, who, "MULTIPLICITY", &p->multiplicity);
  if (rc == 0) rc = db_col_int(d, st, i + 5, 0, SYMV_MX_COUNT - 1, who, "MX", &p->mx);
  return rc;
}

/* Read a row of CANDIDATE_COLUMNS into *c. */
int db_read_candidate(db *d, sqlite3_stmt *st, const char *what,
                   db_candidate *c)
{
  char status[16], reason[16];
  memset(c, 0, sizeof *c);
  c->id = sqlite3_column_int64(st, 0);
  char who[48];
  snprintf(who, sizeof who, "candidate %lld", c->id);
  int rc = db_col_params(d, st, 1, who, &c->p);
  if (rc == 0) rc = db_col_text(d, st, 7, status, sizeof status, what);
  if (rc == 0) rc = db_col_text(d, st, 8, reason, sizeof reason, what);
  if (rc == 0) rc = db_col_text(d, st, 9, c->detail, sizeof c->detail, what);
  if (rc == 0) rc = db_col_int(d, st, 11, 0, DB_REGS_MAX, who, "regs_per_thread", &c->regs_per_thread);
  if (rc == 0) rc = db_col_int(d, st, 12, 0, INT_MAX, who, "attempts", &c->attempts);
  if (rc) return rc;
  c->compile_ms = sqlite3_column_double(st, 10);
  int s = db_name_index(status_names, DB_STATUS_COUNT, status);
  int r = db_name_index(reason_names, DB_REASON_COUNT, reason);
  if (s < 0 || r < 0)
    return db_fail(d, SYMV_DB_CORRUPT, "candidate %lld has status '%s' reason "
                   "'%s', which this program does not know", c->id, status, reason);
  c->status = (db_status)s;
  c->reason = (db_reason)r;
  return 0;
}

/* row_reader for CANDIDATE_COLUMNS rows (db_collect). */
static int candidate_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx)
{
  (void)ctx;
  return db_read_candidate(d, st, what, elem);
}

/* A point to bind: routine and family of the registry, each parameter in
 * 0..its limit (db.h). */
static int check_point(db *d, const char *fn, const symv_params *p)
{
  if (!p) return db_fail(d, SYMV_INVALID_VALUE, "%s: no point", fn);
  int status = db_check_routine(d, fn, p->routine, 0);
  if (status == 0) status = db_check_family(d, fn, p->family, 0);
  if (status) return status;
  if (p->block_size < 0 || p->block_size > SYMV_BLOCK_SIZE_MAX || p->ux < 0 || p->ux > SYMV_UX_MAX ||
      p->multiplicity < 0 || p->multiplicity > SYMV_MULTIPLICITY_MAX || p->mx < 0 ||
      p->mx >= SYMV_MX_COUNT)
    return db_fail(d, SYMV_INVALID_VALUE, "%s: bad candidate (family %s, "
                   "BLOCK_SIZE %d, UX %d, MULTIPLICITY %d, MX %d)", fn,
                   symv_family_name(p->family), p->block_size, p->ux, p->multiplicity, p->mx);
  return 0;
}

int db_find_candidate(db *d, const symv_params *p, long long *id)
{
  int status = check_point(d, "db_find_candidate", p);
  if (status) return status;
  static const char what[] = "SELECT id FROM candidate";
  sqlite3_stmt *st;
  int row;
  status = db_query(d, &st, what,
                    "SELECT id FROM candidate WHERE routine = ? AND family = ? "
                    "AND block_size = ? AND ux = ? AND multiplicity = ? AND mx = ?",
                    "ttiiii", symv_routine_name(p->routine), symv_family_name(p->family),
                    p->block_size, p->ux, p->multiplicity, p->mx);
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && !row)
    status = db_fail(d, SYMV_NOT_FOUND, "no %s candidate %s b%d u%d m%d x%d",
                     symv_routine_name(p->routine), symv_family_name(p->family), p->block_size,
                     p->ux, p->multiplicity, p->mx);
  if (status == 0 && id) *id = sqlite3_column_int64(st, 0);
  return db_end(d, st, what, status);
}

int db_put_candidate(db *d, const db_candidate *c, long long *id)
{
  if (!c) return db_fail(d, SYMV_INVALID_VALUE, "db_put_candidate: no candidate");
  const symv_params *p = &c->p;
  int status = check_point(d, "db_put_candidate", p);
  if (status == 0)
    status = db_exec(d, "INSERT INTO candidate",
                     "INSERT INTO candidate (routine, family, block_size, ux, "
                     "multiplicity, mx) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT "
                     "(routine, family, block_size, ux, multiplicity, mx) DO NOTHING",
                     "ttiiii", symv_routine_name(p->routine), symv_family_name(p->family),
                     p->block_size, p->ux, p->multiplicity, p->mx);
  if (status == 0) status = db_find_candidate(d, p, id);
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
  if (status == 0) status = db_read_candidate(d, st, what, out);
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
      !db_finite_nonneg(c->compile_ms) || c->regs_per_thread < 0 ||
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

int db_clear_attempts(db *d, long long id)
{
  int status = db_exec(d, "UPDATE candidate (attempts = 0)", "UPDATE candidate SET attempts = 0 WHERE id = ?", "I", id);
  if (status == 0 && sqlite3_changes(d->conn) == 0) status = db_fail(d, SYMV_NOT_FOUND, "no candidate %lld", id);
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
      if (status == 0 && row) status = db_col_int(d, st, 0, 0, INT_MAX, "a candidate", "attempts", &a);
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

int db_list_candidates(db *d, symv_routine routine, int status_filter,
                       symv_family family, db_candidate **list, size_t *count)
{
  *list = NULL;
  *count = 0;
  int status = db_check_routine(d, "db_list_candidates", routine, 1);
  if (status == 0) status = db_check_family(d, "db_list_candidates", family, 1);
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
    "ttt", db_routine_key(routine), status_filter < 0 ? NULL : status_names[status_filter],
    db_family_key(family));
  if (status) return status;
  return db_collect(d, st, what, sizeof **list, candidate_row, NULL, (void **)list, count);
}

int db_count_candidates(db *d, symv_routine routine, symv_family family,
                        db_counts *out)
{
  memset(out, 0, sizeof *out);
  int status = db_check_routine(d, "db_count_candidates", routine, 1);
  if (status == 0) status = db_check_family(d, "db_count_candidates", family, 1);
  if (status) return status;
  static const char what[] = "SELECT count(*) FROM candidate";
  sqlite3_stmt *st;
  int row;
  status = db_query(d, &st, what,
    "SELECT status, reason, count(*) FROM candidate "
    "WHERE (?1 IS NULL OR routine = ?1) AND (?2 IS NULL OR family = ?2) "
    "GROUP BY status, reason", "tt", db_routine_key(routine),
    db_family_key(family));
  if (status) return status;
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    char s[16], r[16];
    if ((status = db_col_text(d, st, 0, s, sizeof s, what))) break;
    if ((status = db_col_text(d, st, 1, r, sizeof r, what))) break;
    int si = db_name_index(status_names, DB_STATUS_COUNT, s);
    int ri = db_name_index(reason_names, DB_REASON_COUNT, r);
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
                     symv_routine *routines, size_t max, size_t *count)
{
  if (count) *count = 0;
  if (!count || (max > 0 && !routines) ||
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
  int have[SYMV_ROUTINE_COUNT] = { 0 };
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    symv_routine r;
    if ((status = db_col_routine(d, st, 0, what_of == DB_ROUTINES_FITS ? "a fit" : "a candidate", &r))) break;
    have[r] = 1;
  }
  status = db_end(d, st, what, status);
  if (status) return status;
  size_t n = 0;
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const symv_routine r = symv_routine_order(i);
    if (!have[r]) continue;
    if (n < max) routines[n] = r;
    n++;
  }
  *count = n;
  return 0;
}
