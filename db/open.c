/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * open.c - opening and closing the results database, its messages, and
 * transactions.
 *
 * Opening is done in two steps so that a file which is not ours is never
 * written: a read-only connection first inspects it (SQLite header,
 * application_id, user_version, table names, PRAGMA quick_check), and only a
 * file that passes is reopened for writing and migrated (db/schema.c).
 * Opening read-write and inspecting there would not do: closing a read-write
 * connection to someone else's WAL database checkpoints it, and one with a
 * hot rollback journal is rolled back on first read. The file's journal mode
 * is switched to WAL only after a migration has committed, so that a
 * migration that fails leaves the file's bytes as they were. A read-only
 * open of an older schema migrates a private in-memory copy of the file
 * instead.
 */
#include "db/db_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symv_error.h"

/* How long a statement waits for another process's lock, milliseconds. */
#define DB_BUSY_TIMEOUT_MS 10000

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

/* Opens the file immutable (URI immutable=1: no locks, no -shm, no -wal;
 * sqlite.org/uri.html), which reads it as it is. */
static int db_connect_immutable(db *d)
{
  char real[PATH_MAX];
  if (!realpath(d->path, real))
    return db_fail(d, SYMV_IO, "cannot resolve the file name: %s", strerror(errno));
  /* file:PATH?immutable=1, PATH percent-encoded but for unreserved bytes */
  char uri[3 * PATH_MAX + 32];
  size_t k = (size_t)snprintf(uri, sizeof uri, "file:");
  for (const unsigned char *c = (const unsigned char *)real; *c; c++)
    k += (size_t)snprintf(uri + k, sizeof uri - k, (isalnum(*c) || strchr("/._-~", *c)) ? "%c" : "%%%02X", *c);
  snprintf(uri + k, sizeof uri - k, "?immutable=1");
  int status = db_connect_to(d, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  int rc;
  if (status == 0 && (rc = sqlite3_exec(d->conn, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL)))
    status = db_sqlerr(d, rc, "reading", "the schema (immutable)");
  return status;
}

/* Opens a read-only connection that can read the file where it lies. A
 * database in WAL mode (every one a writer has opened) needs its -shm file,
 * and SQLite creates it (and an empty -wal) if missing, with the file's
 * mode, and a read-only connection cannot remove them at its close. So a
 * file this process cannot write, with neither a -wal nor a -shm beside it
 * (no connection has it open in WAL mode), is opened immutable: no file is
 * made that a later writer, once the file is writable, would find
 * read-only. Otherwise the read-only connection; where the folder cannot be
 * written, making the -shm fails (SQLITE_READONLY_DIRECTORY, or CANTOPEN),
 * and then, if there is no -wal file with content (whose commits the file
 * would lack), the file is opened immutable too. With a -wal of content
 * that cannot be read without its -shm the open fails with a message
 * saying so. */
static int db_connect_reader(db *d)
{
  char wal[PATH_MAX + 8], shm[PATH_MAX + 8];
  struct stat st;
  snprintf(wal, sizeof wal, "%s-wal", d->path);
  snprintf(shm, sizeof shm, "%s-shm", d->path);
  if (access(d->path, W_OK) != 0 && errno == EACCES && access(wal, F_OK) != 0 && access(shm, F_OK) != 0)
    return db_connect_immutable(d);
  int status = db_connect(d, SQLITE_OPEN_READONLY);
  if (status) return status;
  int rc = sqlite3_exec(d->conn, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
  if (rc == SQLITE_OK) return 0;
  if ((rc & 0xff) != SQLITE_READONLY && (rc & 0xff) != SQLITE_CANTOPEN)
    return db_sqlerr(d, rc, "reading", "the schema");
  db_disconnect(d);
  if (stat(wal, &st) == 0 && st.st_size > 0)
    return db_fail(d, SYMV_IO, "cannot be read here: its write-ahead log %s holds commits, and the folder cannot "
                   "be written to make the shared-memory file that reading them needs (open it once where it "
                   "can be written, or copy the database with its -wal file to such a place)", wal);
  return db_connect_immutable(d);
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
  if (status == 0 && row) status = db_col_text(d, st, 0, result, sizeof result, what);
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
  if (status == 0) status = db_read_header(d, &app_id, &user_version, &ntables);
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
  if ((status = db_check_version(d, user_version))) goto out;
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
  if (status == 0 && row) status = db_col_text(d, st, 0, mode, sizeof mode, what);
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
        status = db_fail(d, db_status_of(rc), "copying the file (schema version "
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
      status = db_status_of(rc);
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
