/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * db_internal.h - what the files of db/ share and callers of db.h do not
 * see: the handle, the names and the routine CHECK of the schema, the
 * functions for errors, statements and columns (db/query.c), and the few
 * functions one table's file lends another. Each function's contract is
 * the comment at its definition.
 */
#ifndef SYMV_DB_INTERNAL_H
#define SYMV_DB_INTERNAL_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>

#include "db/db.h"

/* Longest baseline name, characters (matches the CHECK of the schema). */
#define DB_BASELINE_NAME_MAX 63

struct db {
  sqlite3 *conn;        /* the connection; NULL before open succeeds */
  char *path;           /* file name, for messages */
  int readonly;         /* opened with DB_READONLY */
  char errmsg[1024];    /* last error, "" if none */
  char warning[1024];   /* last db_check_device warning, "" if none */
};

/* ---- Names (query.c) ------------------------------------------------------ */

/* ROUTINE_CHECK, the CHECK of schema version 4 and later (schema.c, and
 * the shard table of sweep.c), lists the names of the registry's routines
 * (core/routine.h), the only text of a routine the database holds. */
#define ROUTINE_CHECK \
  "CHECK (routine IN ('ssymv', 'dsymv', 'csymv', 'zsymv', 'chemv', 'zhemv'))"

extern const char *const status_names[];  /* by db_status */
extern const char *const reason_names[];  /* by db_reason */
extern const char *const stage_names[DB_STAGE_COUNT];

int db_name_index(const char *const *names, int count, const char *s);
const char *db_routine_key(symv_routine r);
const char *db_family_key(symv_family f);
int db_check_routine(db *d, const char *fn, symv_routine routine, int optional);
int db_check_family(db *d, const char *fn, symv_family family, int optional);
int db_col_routine(db *d, sqlite3_stmt *st, int i, const char *who, symv_routine *out);
int db_col_family(db *d, sqlite3_stmt *st, int i, const char *who, symv_family *out);

/* ---- Errors (query.c) ----------------------------------------------------- */

int db_fail(db *d, int status, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
int db_status_of(int rc);
int db_sqlerr(db *d, int rc, const char *verb, const char *what);

/* ---- Statements and columns (query.c) ------------------------------------- */

int db_queryv(db *d, sqlite3_stmt **st, const char *what, const char *sql,
              const char *types, va_list ap);
int db_query(db *d, sqlite3_stmt **st, const char *what, const char *sql,
             const char *types, ...);
int db_next(db *d, sqlite3_stmt *st, const char *what, int *row);
int db_end(db *d, sqlite3_stmt *st, const char *what, int status);
int db_exec(db *d, const char *what, const char *sql, const char *types, ...);
int db_query_int(db *d, const char *what, const char *sql, long long *value,
                 int *found);
int db_col_int64(db *d, sqlite3_stmt *st, int i, long long lo, long long hi,
              const char *row, const char *column, long long *out);
int db_col_text(db *d, sqlite3_stmt *st, int i, char *buf, size_t size,
             const char *what);
int db_col_int(db *d, sqlite3_stmt *st, int i, long long lo, long long hi,
            const char *row, const char *column, int *out);
int db_text_ok(const char *s, size_t size);
int db_grow(void **array, size_t *cap, size_t need, size_t size);
int db_finite_nonneg(double x);
void db_abandon(db *d);
int db_exec_script(db *d, const char *what, const char *sql);

/* Reads one row of st into the zeroed element *elem; ctx as given to
 * db_collect. Returns 0 or a status (db_fail'ed). */
typedef int (*row_reader)(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx);

int db_collect(db *d, sqlite3_stmt *st, const char *what, size_t size,
               row_reader read, void *ctx, void **list, size_t *count);

/* ---- Schema (schema.c) ---------------------------------------------------- */

int db_read_header(db *d, long long *app_id, long long *version, long long *ntables);
int db_check_version(db *d, long long version);
int db_check_tables(db *d, int version);
int db_migrate(db *d);

/* ---- Candidates (candidates.c) -------------------------------------------- */

#define CANDIDATE_COLUMNS                                                     \
  "id, routine, family, block_size, ux, multiplicity, mx, status, reason, "   \
  "detail, compile_ms, regs_per_thread, attempts"
#define CANDIDATE_NCOLUMNS 13  /* columns in CANDIDATE_COLUMNS */

int db_read_candidate(db *d, sqlite3_stmt *st, const char *what, db_candidate *c);
/* The point in columns i..i+5 of a row (routine, family, block_size, ux,
 * multiplicity, mx, as CANDIDATE_COLUMNS has them after the id) into *p,
 * each within its limit; errors as db_col_int (`who` names the row). */
int db_col_params(db *d, sqlite3_stmt *st, int i, const char *who, symv_params *p);

/* ---- Kernels (fit.c) ------------------------------------------------------ */

int db_kernel_index(const char *kernel, size_t size);
int db_is_candidate_kernel(const char *kernel);

#endif
