/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * query.c - what the code of every table of the results database shares
 * (declared in db_internal.h): the names of routines, candidate states,
 * invalidity reasons and stages; error messages; preparing, binding,
 * stepping and finalizing statements; reading and checking columns; and
 * reading a query's rows into an array (db_collect).
 */
#include "db/db_internal.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routine.h"
#include "symv_error.h"
#include "util.h"

/* ---- Names ---------------------------------------------------------------- */

const char *const status_names[] = {
#define DB_XX_NAME(name, text) text,
  DB_STATUS_MAP(DB_XX_NAME)
#undef DB_XX_NAME
};

const char *const reason_names[] = {
#define DB_XX_NAME(name, text) text,
  DB_REASON_MAP(DB_XX_NAME)
#undef DB_XX_NAME
};

const char *const stage_names[DB_STAGE_COUNT] = { "sweep", "dense" };

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
int db_name_index(const char *const *names, int count, const char *s)
{
  for (int i = 0; i < count; i++)
    if (strcmp(names[i], s) == 0) return i;
  return -1;
}

/* The name stored for routine r (the registry's, lower case), or NULL for
 * DB_ANY_ROUTINE, which binds NULL: "any routine" in the filters of
 * statements. r is in range (db_check_routine). */
const char *db_routine_key(symv_routine r)
{
  return r == DB_ANY_ROUTINE ? NULL : symv_routine_name(r);
}

/* The name stored for family f (the registry's), or NULL for
 * DB_ANY_FAMILY. f is in range (db_check_family). */
const char *db_family_key(symv_family f)
{
  return f == DB_ANY_FAMILY ? NULL : symv_family_name(f);
}

/* A routine argument: one of the registry's, or DB_ANY_ROUTINE where
 * `optional`. SYMV_INVALID_VALUE otherwise. */
int db_check_routine(db *d, const char *fn, symv_routine routine, int optional)
{
  if ((unsigned)routine < SYMV_ROUTINE_COUNT || (optional && routine == DB_ANY_ROUTINE)) return 0;
  return db_fail(d, SYMV_INVALID_VALUE, "%s: routine %d is not one of the "
                 "registry's (" SYMV_ROUTINE_NAMES ")", fn, (int)routine);
}

/* A family argument: one of the registry's, or DB_ANY_FAMILY where
 * `optional`. SYMV_INVALID_VALUE otherwise. */
int db_check_family(db *d, const char *fn, symv_family family, int optional)
{
  if ((unsigned)family < SYMV_FAMILY_COUNT || (optional && family == DB_ANY_FAMILY)) return 0;
  return db_fail(d, SYMV_INVALID_VALUE, "%s: family %d is not one of the "
                 "registry's (core/params.h)", fn, (int)family);
}

static const char *routine_text(int i) { return symv_routine_name((symv_routine)i); }
static const char *family_text(int i) { return symv_family_name((symv_family)i); }

/* Column i of st, the stored name of one of the `count` entries of a
 * registry (name_of(0 .. count - 1) gives their names; `kind` says which
 * registry), into *index; `who` names the row in messages. A name no entry
 * has is SYMV_DB_CORRUPT (a foreign or damaged database). */
static int col_registry(db *d, sqlite3_stmt *st, int i, const char *who, const char *kind,
                        const char *(*name_of)(int), int count, int *index)
{
  char name[32];
  int status = db_col_text(d, st, i, name, sizeof name, who);
  if (status) return status;
  for (int k = 0; k < count; k++)
    if (strcmp(name_of(k), name) == 0) {
      *index = k;
      return 0;
    }
  return db_fail(d, SYMV_DB_CORRUPT, "%s has %s '%s', which this program does not "
                 "know (a foreign or damaged database)", who, kind, name);
}

/* Column i of st, a stored routine name, into *out (col_registry). */
int db_col_routine(db *d, sqlite3_stmt *st, int i, const char *who, symv_routine *out)
{
  int k = 0, status = col_registry(d, st, i, who, "routine", routine_text, SYMV_ROUTINE_COUNT, &k);
  *out = (symv_routine)k;
  return status;
}

/* Column i of st, a stored family name, into *out (col_registry). */
int db_col_family(db *d, sqlite3_stmt *st, int i, const char *who, symv_family *out)
{
  int k = 0, status = col_registry(d, st, i, who, "family", family_text, SYMV_FAMILY_COUNT, &k);
  *out = (symv_family)k;
  return status;
}

/* ---- Errors --------------------------------------------------------------- */

/* Record a message "path: fmt..." on d and return `status`. */
int db_fail(db *d, int status, const char *fmt, ...)
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
int db_status_of(int rc)
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
int db_sqlerr(db *d, int rc, const char *verb, const char *what)
{
  return db_fail(d, db_status_of(rc), "%s %s failed: %s (SQLite code %d)", verb,
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

int db_queryv(db *d, sqlite3_stmt **st, const char *what,
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

int db_query(db *d, sqlite3_stmt **st, const char *what,
             const char *sql, const char *types, ...)
{
  va_list ap;
  va_start(ap, types);
  int status = db_queryv(d, st, what, sql, types, ap);
  va_end(ap);
  return status;
}

/* Step st: *row = 1 if a row is ready, 0 when done. */
int db_next(db *d, sqlite3_stmt *st, const char *what, int *row)
{
  int rc = sqlite3_step(st);
  *row = rc == SQLITE_ROW;
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) return 0;
  return db_sqlerr(d, rc, "running", what);
}

/* Finalize st and return `status`, or finalize's error if status was 0. */
int db_end(db *d, sqlite3_stmt *st, const char *what, int status)
{
  int rc = sqlite3_finalize(st);
  if (status == 0 && rc != SQLITE_OK) return db_sqlerr(d, rc, "finalizing", what);
  return status;
}

/* Run a statement that returns no rows (or whose rows are not wanted). */
int db_exec(db *d, const char *what, const char *sql,
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
int db_query_int(db *d, const char *what, const char *sql,
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

/* db_col_int for a 64-bit value (sizes in bytes, row ids, counts). */
int db_col_int64(db *d, sqlite3_stmt *st, int i, long long lo, long long hi,
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
int db_col_text(db *d, sqlite3_stmt *st, int i, char *buf, size_t size,
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
int db_col_int(db *d, sqlite3_stmt *st, int i, long long lo, long long hi,
            const char *row, const char *column, int *out)
{
  long long v = 0;
  int status = db_col_int64(d, st, i, lo, hi, row, column, &v);
  if (status == 0) *out = (int)v;  /* lo..hi is inside int's range */
  return status;
}

/* Text values are checked before they are bound: a C string that would not
 * fit back into its struct field, or an empty one, is refused. */
int db_text_ok(const char *s, size_t size)
{
  return s && s[0] && strnlen(s, size) < size;
}

/* Grow *array (of *cap elements of `size` bytes) to hold at least `need`. */
int db_grow(void **array, size_t *cap, size_t need, size_t size)
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

int db_finite_nonneg(double x)
{
  return isfinite(x) && x >= 0;
}

/* Roll back after an error. ROLLBACK's own failure is not reported: the
 * first error is the one worth reading, and after some errors SQLite has
 * already rolled back, so that ROLLBACK then fails with "no transaction". */
void db_abandon(db *d)
{
  sqlite3_exec(d->conn, "ROLLBACK", NULL, NULL, NULL);
}

/* Run `sql`, a fixed text of statements without parameters. */
int db_exec_script(db *d, const char *what, const char *sql)
{
  int rc = sqlite3_exec(d->conn, sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK) return db_sqlerr(d, rc, "running", what);
  return 0;
}

/* ---- Rows into an array ---------------------------------------------------- */

/* Steps st to its end, reading each row with `read` into a growing array
 * of `size`-byte elements, and finalizes st. On success *list (malloc'ed,
 * NULL when empty) holds *count elements; on error nothing is kept. */
int db_collect(db *d, sqlite3_stmt *st, const char *what, size_t size, row_reader read, void *ctx,
               void **list, size_t *count)
{
  char *a = NULL;
  size_t n = 0, cap = 0;
  int row, status;
  while ((status = db_next(d, st, what, &row)) == 0 && row) {
    if (db_grow((void **)&a, &cap, n + 1, size)) {
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
