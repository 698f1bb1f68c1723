/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the results database (db/db.h): opening, refusal of files that
 * are not ours (left byte for byte unchanged), migration, the device check,
 * crash and resume, upserts, and the queries of the later stages. Every test
 * works in its own mkdtemp directory, removed afterwards. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/db.h"
#include "params.h"
#include "routine.h"
#include "symv_error.h"
#include "test_util.h"

/* ---- Fixture and helpers ---------------------------------------------------- */

static char dir[64];

static void setup(void)
{
  snprintf(dir, sizeof dir, "/tmp/symvtune-test-db-XXXXXX");
  cr_assert_not_null(mkdtemp(dir), "mkdtemp");
}

static void teardown(void) { test_rmtree(dir); }

TestSuite(db, .init = setup, .fini = teardown);

/* The path of `name` in the test's directory, in buf (256 bytes). */
static char *path_of(char *buf, const char *name)
{
  snprintf(buf, 256, "%s/%s", dir, name);
  return buf;
}

static db *open_ok(const char *path, int flags)
{
  db *d;
  int rc = db_open(&d, path, flags);
  cr_assert_eq(rc, 0, "db_open: %s: %s", symv_errname(rc), db_errmsg(d));
  return d;
}

static void close_ok(db *d)
{
  cr_assert_eq(db_close(d), 0, "db_close");
}

#define OK(call)                                                            \
  do {                                                                      \
    int rc_ = (call);                                                       \
    cr_assert_eq(rc_, 0, "%s: %s: %s", #call, symv_errname(rc_),            \
                 db_errmsg(d));                                             \
  } while (0)

static db_device h100(void)
{
  db_device g = { .cc_major = 9, .cc_minor = 0, .sm_count = 132,
                  .l2_bytes = 52428800, .mem_clock_khz = 2619000,
                  .bus_width_bits = 5120, .smem_per_sm = 233472,
                  .smem_per_block_optin = 232448, .regs_per_sm = 65536,
                  .max_blocks_per_sm = 32, .max_threads_per_sm = 2048,
                  .driver_version = 12040, .runtime_version = 12020,
                  .nvrtc_major = 12, .nvrtc_minor = 2, .copy_gbs = 0 };
  snprintf(g.name, sizeof g.name, "NVIDIA H100 80GB HBM3");
  return g;
}

/* routine's candidate (family, b, ux, m, mx). */
static db_candidate point_of(symv_routine routine, symv_family family, int b, int ux, int m, int mx)
{
  db_candidate c = { .p = { family, b, ux, m, mx, routine } };
  return c;
}

static db_candidate point(symv_family family, int b, int ux, int m, int mx)
{
  return point_of(SYMV_DSYMV, family, b, ux, m, mx);
}

/* A plausible timing of `us` microseconds at n. */
static db_measurement timing(int n, char uplo, int hot, db_stage stage, double us)
{
  db_measurement m = { .n = n, .uplo = uplo, .hot = hot, .stage = stage,
                       .median_us = us, .min_us = 0.9 * us, .max_us = 1.2 * us,
                       .batches = 11, .calls_per_batch = 20,
                       .gflops = 2.0 * n * n / (us * 1e3),
                       .gbs = 8.0 * n * (n + 1) / 2 / (us * 1e3),
                       .residual = 0.25 };
  return m;
}

static void raw_exec(const char *path, const char *sql)
{
  sqlite3 *c;
  cr_assert_eq(sqlite3_open(path, &c), SQLITE_OK, "sqlite3_open %s", path);
  char *err = NULL;
  int rc = sqlite3_exec(c, sql, NULL, NULL, &err);
  cr_assert_eq(rc, SQLITE_OK, "sqlite3_exec: %s", err ? err : "?");
  cr_assert_eq(sqlite3_close(c), SQLITE_OK);
}

static long long raw_int(const char *path, const char *sql)
{
  sqlite3 *c;
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  cr_assert_eq(sqlite3_prepare_v2(c, sql, -1, &st, NULL), SQLITE_OK, "%s: %s",
               sql, sqlite3_errmsg(c));
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s: no row", sql);
  long long v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(c);
  return v;
}

static unsigned char *slurp(const char *path, long *len)
{
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "fopen %s", path);
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  rewind(f);
  unsigned char *b = malloc(*len + 1);
  cr_assert_eq(fread(b, 1, *len, f), (size_t)*len);
  fclose(f);
  return b;
}

static void spew(const char *path, const void *bytes, size_t len)
{
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(bytes, 1, len, f), len);
  fclose(f);
}

/* db_open(path, flags) must fail with `expect`, the message must name the
 * file (and contain `part`), and the file's bytes must not change. */
static void assert_refused(const char *path, int flags, int expect, const char *part)
{
  long len0, len1;
  unsigned char *before = slurp(path, &len0);
  db *d;
  int rc = db_open(&d, path, flags);
  cr_assert_eq(rc, expect, "db_open gave %s, not %s: %s", symv_errname(rc),
               symv_errname(expect), db_errmsg(d));
  cr_assert_not_null(strstr(db_errmsg(d), path), "message names the file: %s",
                     db_errmsg(d));
  if (part)
    cr_assert_not_null(strstr(db_errmsg(d), part), "message \"%s\" lacks \"%s\"",
                       db_errmsg(d), part);
  db_close(d);
  unsigned char *after = slurp(path, &len1);
  cr_assert_eq(len0, len1, "file length changed");
  cr_assert_eq(memcmp(before, after, len0), 0, "file bytes changed");
  free(before);
  free(after);
}

/* Field by field: structs have padding, which memcmp would compare. */
static void assert_same_device(const db_device *a, const db_device *b)
{
  cr_assert_str_eq(a->name, b->name);
  cr_assert(a->cc_major == b->cc_major && a->cc_minor == b->cc_minor &&
            a->sm_count == b->sm_count && a->l2_bytes == b->l2_bytes &&
            a->mem_clock_khz == b->mem_clock_khz &&
            a->bus_width_bits == b->bus_width_bits &&
            a->smem_per_sm == b->smem_per_sm &&
            a->smem_per_block_optin == b->smem_per_block_optin &&
            a->regs_per_sm == b->regs_per_sm &&
            a->max_blocks_per_sm == b->max_blocks_per_sm &&
            a->max_threads_per_sm == b->max_threads_per_sm &&
            a->driver_version == b->driver_version &&
            a->runtime_version == b->runtime_version &&
            a->nvrtc_major == b->nvrtc_major && a->nvrtc_minor == b->nvrtc_minor &&
            a->copy_gbs == b->copy_gbs, "device fields differ");
}

static void assert_same_measurement(const db_measurement *a, const db_measurement *b)
{
  cr_assert(a->n == b->n && a->uplo == b->uplo && a->hot == b->hot &&
            a->stage == b->stage && a->median_us == b->median_us &&
            a->min_us == b->min_us && a->max_us == b->max_us &&
            a->batches == b->batches && a->calls_per_batch == b->calls_per_batch &&
            a->gflops == b->gflops && a->gbs == b->gbs &&
            a->residual == b->residual, "measurement fields differ at n %d", a->n);
}

/* A fresh database at path with the H100 fingerprint. */
static db *fresh(const char *path)
{
  db *d = open_ok(path, DB_CREATE);
  db_device g = h100();
  OK(db_check_device(d, &g, 0));
  return d;
}

/* ---- Opening, fingerprint ----------------------------------------------------- */

Test(db, create_and_reopen_keeps_the_fingerprint)
{
  char p[256];
  path_of(p, "a.db");
  db *d = fresh(p);
  OK(db_set_copy_gbs(d, 2950.5));
  close_ok(d);

  cr_assert_eq(raw_int(p, "PRAGMA application_id"), DB_APPLICATION_ID);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), DB_SCHEMA_VERSION);
  cr_assert_eq(raw_int(p, "SELECT journal_mode = 'wal' FROM pragma_journal_mode"), 1);

  d = open_ok(p, 0);
  db_device g = h100(), got;
  OK(db_get_device(d, &got));
  g.copy_gbs = 2950.5;
  assert_same_device(&g, &got);
  OK(db_check_device(d, &g, 0));
  cr_assert_str_empty(db_warning(d));
  close_ok(d);

  d = open_ok(p, DB_READONLY);
  OK(db_get_device(d, &got));
  cr_assert_str_eq(got.name, "NVIDIA H100 80GB HBM3");
  OK(db_check_device(d, &g, 0));
  close_ok(d);
}

Test(db, missing_file_is_created_only_when_asked)
{
  char p[256];
  path_of(p, "none.db");
  db *d;
  cr_assert_eq(db_open(&d, p, 0), SYMV_NOT_FOUND);
  cr_assert_not_null(strstr(db_errmsg(d), p));
  db_close(d);
  cr_assert_eq(db_open(&d, p, DB_READONLY), SYMV_NOT_FOUND);
  db_close(d);
  cr_assert_eq(access(p, F_OK), -1, "not created");

  cr_assert_eq(db_open(&d, p, DB_CREATE | DB_READONLY), SYMV_INVALID_VALUE);
  db_close(d);
  cr_assert_eq(db_open(&d, NULL, DB_CREATE), SYMV_INVALID_VALUE);
  db_close(d);
  cr_assert_eq(access(p, F_OK), -1, "not created");

  d = open_ok(p, DB_CREATE);
  db_device g;
  cr_assert_eq(db_get_device(d, &g), SYMV_NOT_FOUND);
  close_ok(d);
}

Test(db, empty_file_needs_create)
{
  char p[256];
  path_of(p, "empty.db");
  spew(p, "", 0);
  assert_refused(p, 0, SYMV_DB_CORRUPT, "empty");
  db *d = fresh(p);
  close_ok(d);
}

Test(db, read_only_handle_reads_and_refuses_writes)
{
  char p[256];
  path_of(p, "ro.db");
  db *d = fresh(p);
  db_candidate c = point(SYMV_FAMILY_ATOMIC, 128, 15, 5, 0);
  long long id;
  OK(db_put_candidate(d, &c, &id));
  close_ok(d);

  long len0, len1;
  unsigned char *before = slurp(p, &len0);
  d = open_ok(p, DB_READONLY);
  db_candidate got;
  OK(db_get_candidate(d, id, &got));
  cr_assert_eq(got.p.ux, 15);
  cr_assert_eq(db_put_candidate(d, &c, &id), SYMV_DB);
  cr_assert_not_null(strstr(db_errmsg(d), "readonly"), "%s", db_errmsg(d));
  close_ok(d);
  unsigned char *after = slurp(p, &len1);
  cr_assert(len0 == len1 && memcmp(before, after, len0) == 0);
  free(before);
  free(after);

  /* Without a fingerprint, a read-only handle cannot record one. */
  path_of(p, "ro2.db");
  close_ok(open_ok(p, DB_CREATE));
  d = open_ok(p, DB_READONLY);
  db_device g = h100();
  cr_assert_eq(db_check_device(d, &g, 0), SYMV_NOT_FOUND);
  close_ok(d);
}

/* A read-only handle to a WAL database (every one after a writer) leaves
 * no -wal or -shm file behind where it can remove them, and the file as it
 * was. */
Test(db, a_read_only_open_leaves_no_wal_or_shm_behind)
{
  char p[256], wal[300], shm[300];
  path_of(p, "clean.db");
  db *d = fresh(p);
  db_candidate c = point(SYMV_FAMILY_ATOMIC, 128, 15, 5, 0);
  long long id;
  OK(db_put_candidate(d, &c, &id));
  close_ok(d);
  snprintf(wal, sizeof wal, "%s-wal", p), snprintf(shm, sizeof shm, "%s-shm", p);
  cr_assert(access(wal, F_OK) && access(shm, F_OK), "the writer left -wal or -shm");
  long len0, len1;
  unsigned char *before = slurp(p, &len0);
  cr_assert(len0 > 100 && before[18] == 2 && before[19] == 2, "not a WAL database"); /* file format: header */
  d = open_ok(p, DB_READONLY);
  db_candidate got;
  OK(db_get_candidate(d, id, &got));
  cr_assert_eq(got.p.ux, 15);
  close_ok(d);
  cr_assert_neq(access(wal, F_OK), 0, "%s left behind", wal);
  cr_assert_neq(access(shm, F_OK), 0, "%s left behind", shm);
  unsigned char *after = slurp(p, &len1);
  cr_assert(len0 == len1 && memcmp(before, after, len0) == 0, "the file was written");
  free(before), free(after);
}

static sqlite3 *raw_open(const char *path, int flags);

/* The number of entries in folder p. */
static int count_files(const char *p)
{
  DIR *dp = opendir(p);
  cr_assert_not_null(dp, "%s", p);
  int k = 0;
  for (struct dirent *e; (e = readdir(dp));) k += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(dp);
  return k;
}

/* Runs db_open(path, DB_READONLY) and a read of candidate id in a child
 * process that cannot write the folder: as root (who writes any folder) the
 * child becomes nobody. Returns 0 if the read worked, 77 if the child
 * could not give up root, else 1 with db_errmsg in msg. */
static int read_where_unwritable(const char *path, long long id, char *msg, size_t len)
{
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    if (geteuid() == 0 && (setgroups(0, NULL) || setgid(65534) || setuid(65534))) _exit(77);
    db *d;
    int rc = db_open(&d, path, DB_READONLY);
    db_candidate got;
    if (rc == 0) rc = db_get_candidate(d, id, &got);
    if (rc == 0 && got.p.ux != 15) rc = SYMV_WRONG_RESULT;
    if (rc) {
      const char *m = d ? db_errmsg(d) : "out of memory";
      if (write(fds[1], m, strlen(m)) < 0) _exit(2);
    }
    db_close(d);
    _exit(rc ? 1 : 0);
  }
  close(fds[1]);
  ssize_t k, n = 0;
  while (n + 1 < (ssize_t)len && (k = read(fds[0], msg + n, len - 1 - (size_t)n)) > 0) n += k;
  msg[n] = 0;
  close(fds[0]);
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A WAL database in a folder that cannot be written (where SQLite cannot
 * make the -shm file) is read (as immutable: nothing is left there); one
 * whose -wal holds commits, which could not then be read, is refused with
 * a message saying why, rather than read without them. */
Test(db, a_read_only_open_reads_a_wal_database_in_a_read_only_folder)
{
  char ro[256], p[300], ro2[256], p2[300], wal[310], msg[2048];
  cr_assert_eq(chmod(dir, 0755), 0); /* for nobody, below */
  cr_assert_eq(mkdir(path_of(ro, "ro"), 0755), 0);
  snprintf(p, sizeof p, "%s/x.db", ro);
  db *d = fresh(p);
  db_candidate c = point(SYMV_FAMILY_ATOMIC, 128, 15, 5, 0);
  long long id;
  OK(db_put_candidate(d, &c, &id));
  close_ok(d);
  /* the same database with a commit left in its -wal (a writer that never
   * checkpointed): the file and its -wal, without -shm, in another folder */
  cr_assert_eq(mkdir(path_of(ro2, "ro2"), 0755), 0);
  snprintf(p2, sizeof p2, "%s/x.db", ro2);
  sqlite3 *w = raw_open(p, SQLITE_OPEN_READWRITE);
  cr_assert_eq(sqlite3_exec(w, "PRAGMA wal_autocheckpoint = 0; UPDATE candidate SET detail = 'in the wal'", NULL,
                            NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(w));
  long len;
  unsigned char *bytes = slurp(p, &len);
  spew(p2, bytes, (size_t)len);
  free(bytes);
  snprintf(wal, sizeof wal, "%s-wal", p);
  bytes = slurp(wal, &len);
  cr_assert_gt(len, 0);
  snprintf(wal, sizeof wal, "%s-wal", p2);
  spew(wal, bytes, (size_t)len);
  free(bytes);
  cr_assert_eq(sqlite3_close(w), SQLITE_OK); /* checkpoints p's -wal and removes it */
  chmod(p, 0644), chmod(p2, 0644), chmod(wal, 0644);
  cr_assert_eq(chmod(ro, 0555), 0);
  cr_assert_eq(chmod(ro2, 0555), 0);
  int st = read_where_unwritable(p, id, msg, sizeof msg);
  char msg2[2048];
  int st2 = st == 0 ? read_where_unwritable(p2, id, msg2, sizeof msg2) : -1;
  int left = count_files(ro);
  chmod(ro, 0755), chmod(ro2, 0755);
  if (st == 77) cr_skip_test("running as root, and the test could not become nobody to meet a read-only folder");
  cr_assert_eq(st, 0, "the read-only open failed in a read-only folder: %s", msg);
  cr_assert_eq(left, 1, "files were made in the read-only folder");
  cr_assert_eq(st2, 1, "a database whose -wal holds commits was read without them");
  cr_assert_not_null(strstr(msg2, "write-ahead log"), "%s", msg2);
}

/* ---- Files that are not ours ----------------------------------------------------- */

Test(db, garbage_file_is_refused_untouched)
{
  char p[256];
  path_of(p, "garbage.db");
  unsigned char junk[8192];
  srand(12345);
  for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)rand();
  spew(p, junk, sizeof junk);
  assert_refused(p, 0, SYMV_DB_CORRUPT, "not an SQLite file");
  assert_refused(p, DB_CREATE, SYMV_DB_CORRUPT, NULL);
  assert_refused(p, DB_READONLY, SYMV_DB_CORRUPT, NULL);

  /* A short text file. */
  spew(p, "hello\n", 6);
  assert_refused(p, DB_CREATE, SYMV_DB_CORRUPT, NULL);

  /* The SQLite header followed by garbage. */
  memcpy(junk, "SQLite format 3", 16);
  spew(p, junk, sizeof junk);
  assert_refused(p, DB_CREATE, SYMV_DB_CORRUPT, NULL);
}

Test(db, foreign_sqlite_file_is_refused_untouched)
{
  char p[256];
  path_of(p, "other.db");
  raw_exec(p, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
              "INSERT INTO notes (body) VALUES ('keep me');");
  assert_refused(p, DB_CREATE, SYMV_DB_CORRUPT, "application_id");
  assert_refused(p, 0, SYMV_DB_CORRUPT, NULL);

  path_of(p, "other2.db");
  raw_exec(p, "PRAGMA application_id = 1234; PRAGMA user_version = 1;"
              "CREATE TABLE device (x);");
  assert_refused(p, DB_CREATE, SYMV_DB_CORRUPT, "0x000004d2");

  /* Another program's file in WAL mode: a read-write open that closed would
   * checkpoint it; ours must not. */
  path_of(p, "other3.db");
  raw_exec(p, "PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);");
  assert_refused(p, DB_CREATE, SYMV_DB_CORRUPT, NULL);
}

Test(db, unexpected_or_missing_tables_are_refused_untouched)
{
  char p[256];
  path_of(p, "extra.db");
  close_ok(fresh(p));
  raw_exec(p, "PRAGMA journal_mode = DELETE; CREATE TABLE stranger (x);");
  assert_refused(p, 0, SYMV_DB_CORRUPT, "stranger");

  path_of(p, "missing.db");
  close_ok(fresh(p));
  raw_exec(p, "PRAGMA journal_mode = DELETE; DROP TABLE sweep_run;");
  assert_refused(p, 0, SYMV_DB_CORRUPT, "missing");
}

Test(db, damaged_database_is_refused_untouched)
{
  char p[256];
  path_of(p, "damaged.db");
  db *d = fresh(p);
  OK(db_begin(d));
  for (int b = 32; b <= 256; b += 32)
    for (int ux = 8; ux <= 32; ux++) {
      db_candidate c = point(SYMV_FAMILY_ATOMIC, b, ux, 1, 0);
      OK(db_put_candidate(d, &c, NULL));
    }
  OK(db_commit(d));
  close_ok(d);
  long long root = raw_int(p, "SELECT rootpage FROM sqlite_master WHERE name = 'candidate'");
  long long page = raw_int(p, "PRAGMA page_size");
  /* Smash the b-tree page header of the candidate table's root. */
  long len;
  unsigned char *b = slurp(p, &len);
  cr_assert_gt(len, root * page);
  memset(b + (root - 1) * page, 0x7f, 12);
  spew(p, b, len);
  free(b);
  assert_refused(p, 0, SYMV_DB_CORRUPT, NULL);
  assert_refused(p, DB_READONLY, SYMV_DB_CORRUPT, NULL);
}

/* ---- Versions ----------------------------------------------------------------- */

/* Schema version 1 as its migration made it: a file of an older symvtune. */
static const char schema_v1[] =
  "PRAGMA application_id = 1398361430;"
  "PRAGMA user_version = 1;"
  "CREATE TABLE device (id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL,"
  " cc_major INTEGER NOT NULL, cc_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL,"
  " l2_bytes INTEGER NOT NULL, mem_clock_khz INTEGER NOT NULL,"
  " bus_width_bits INTEGER NOT NULL, smem_per_sm INTEGER NOT NULL,"
  " smem_per_block_optin INTEGER NOT NULL, regs_per_sm INTEGER NOT NULL,"
  " max_blocks_per_sm INTEGER NOT NULL, max_threads_per_sm INTEGER NOT NULL,"
  " driver_version INTEGER NOT NULL, runtime_version INTEGER NOT NULL,"
  " nvrtc_major INTEGER NOT NULL, nvrtc_minor INTEGER NOT NULL,"
  " copy_gbs REAL NOT NULL DEFAULT 0);"
  "CREATE TABLE candidate (id INTEGER PRIMARY KEY, family TEXT NOT NULL,"
  " block_size INTEGER NOT NULL, ux INTEGER NOT NULL, multiplicity INTEGER NOT NULL,"
  " mx INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'pending'"
  " CHECK (status IN ('pending', 'valid', 'invalid')),"
  " reason TEXT CHECK (reason IN ('resources', 'occupancy', 'compile',"
  " 'launch', 'fault', 'timeout', 'wrong')),"
  " detail TEXT NOT NULL DEFAULT '', compile_ms REAL NOT NULL DEFAULT 0,"
  " regs_per_thread INTEGER NOT NULL DEFAULT 0,"
  " UNIQUE (family, block_size, ux, multiplicity, mx),"
  " CHECK ((status = 'invalid') = (reason IS NOT NULL)));"
  "CREATE TABLE measurement (candidate_id INTEGER NOT NULL REFERENCES candidate (id)"
  " ON DELETE CASCADE, stage TEXT NOT NULL CHECK (stage IN ('sweep', 'dense')),"
  " n INTEGER NOT NULL CHECK (n > 0), uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),"
  " hot INTEGER NOT NULL CHECK (hot IN (0, 1)), median_us REAL NOT NULL,"
  " min_us REAL NOT NULL, max_us REAL NOT NULL, batches INTEGER NOT NULL,"
  " calls_per_batch INTEGER NOT NULL, gflops REAL NOT NULL, gbs REAL NOT NULL,"
  " residual REAL NOT NULL, PRIMARY KEY (candidate_id, stage, n, uplo, hot))"
  " WITHOUT ROWID;"
  "CREATE TABLE baseline (name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 63),"
  " stage TEXT NOT NULL CHECK (stage IN ('sweep', 'dense')),"
  " n INTEGER NOT NULL CHECK (n > 0), uplo TEXT NOT NULL CHECK (uplo IN ('L', 'U')),"
  " hot INTEGER NOT NULL CHECK (hot IN (0, 1)), median_us REAL NOT NULL,"
  " min_us REAL NOT NULL, max_us REAL NOT NULL, batches INTEGER NOT NULL,"
  " calls_per_batch INTEGER NOT NULL, gflops REAL NOT NULL, gbs REAL NOT NULL,"
  " residual REAL NOT NULL, PRIMARY KEY (name, stage, n, uplo, hot)) WITHOUT ROWID;"
  "INSERT INTO device VALUES (1, 'NVIDIA H100 80GB HBM3', 9, 0, 132, 52428800,"
  " 2619000, 5120, 233472, 232448, 65536, 32, 2048, 12040, 12020, 12, 2, 0);"
  "INSERT INTO candidate (family, block_size, ux, multiplicity, mx, status,"
  " compile_ms, regs_per_thread) VALUES ('atomic', 128, 15, 5, 0, 'valid', 812.5, 64);"
  "INSERT INTO candidate (family, block_size, ux, multiplicity, mx, status, reason,"
  " detail) VALUES ('atomic', 256, 32, 8, 3, 'invalid', 'resources', 'smem');"
  "INSERT INTO candidate (family, block_size, ux, multiplicity, mx)"
  " VALUES ('lu', 64, 0, 1, 0);"
  "INSERT INTO measurement VALUES (1, 'sweep', 4096, 'L', 0, 50.0, 49.0, 52.0,"
  " 11, 20, 671.0, 1342.0, 0.3);"
  "INSERT INTO baseline VALUES ('cublas', 'sweep', 4096, 'L', 0, 60.0, 59.0, 61.0,"
  " 11, 20, 559.0, 1118.0, 0.2);";

Test(db, version_1_database_is_migrated_keeping_its_data)
{
  char p[256];
  path_of(p, "v1.db");
  raw_exec(p, schema_v1);

  /* A read-only open migrates a copy in memory: it reads the data as the
   * current schema has it, refuses writes, and never writes the file. */
  long len0, len1;
  unsigned char *before = slurp(p, &len0);
  db *d = open_ok(p, DB_READONLY);
  {
    db_candidate c;
    OK(db_get_candidate(d, 1, &c));
    cr_assert_eq(c.p.routine, SYMV_DSYMV);
    cr_assert(c.p.block_size == 128 && c.p.ux == 15 && c.status == DB_VALID && c.attempts == 0);
    cr_assert_eq(db_put_candidate(d, &c, NULL), SYMV_DB, "the copy is read-only too");
    cr_assert_not_null(strstr(db_errmsg(d), "readonly"), "%s", db_errmsg(d));
    db_measurement *m;
    size_t k;
    OK(db_baseline_measurements(d, SYMV_DSYMV, "cublas", DB_STAGE_SWEEP, 'L', 0, &m, &k));
    cr_assert(k == 1 && m[0].median_us == 60.0);
    free(m);
  }
  close_ok(d);
  unsigned char *after = slurp(p, &len1);
  cr_assert(len0 == len1 && memcmp(before, after, len0) == 0, "the file was written");
  free(before);
  free(after);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), 1);

  d = open_ok(p, 0);
  close_ok(d);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), DB_SCHEMA_VERSION);
  cr_assert_eq(raw_int(p, "PRAGMA application_id"), DB_APPLICATION_ID);

  d = open_ok(p, DB_READONLY);
  db_device g = h100();
  OK(db_check_device(d, &g, 0));
  db_candidate c;
  OK(db_get_candidate(d, 1, &c));
  cr_assert_eq(c.p.family, SYMV_FAMILY_ATOMIC);
  cr_assert(c.p.block_size == 128 && c.p.ux == 15 && c.p.multiplicity == 5 && c.p.mx == 0);
  cr_assert_eq(c.status, DB_VALID);
  cr_assert_eq(c.compile_ms, 812.5);
  cr_assert_eq(c.regs_per_thread, 64);
  cr_assert_eq(c.attempts, 0, "the new column starts at 0");
  OK(db_get_candidate(d, 2, &c));
  cr_assert(c.status == DB_INVALID && c.reason == DB_REASON_RESOURCES);
  cr_assert_str_eq(c.detail, "smem");
  db_measurement *m;
  size_t k;
  OK(db_candidate_measurements(d, 1, DB_STAGE_SWEEP, 0, -1, &m, &k));
  cr_assert_eq(k, 1);
  cr_assert(m[0].n == 4096 && m[0].median_us == 50.0 && m[0].residual == 0.3);
  free(m);
  OK(db_baseline_measurements(d, SYMV_DSYMV, "cublas", DB_STAGE_SWEEP, 'L', 0, &m, &k));
  cr_assert(k == 1 && m[0].median_us == 60.0);
  free(m);
  close_ok(d);

  /* What version 2 added works. */
  d = open_ok(p, 0);
  int attempts;
  long long run;
  OK(db_start_attempt(d, 3, &attempts));
  cr_assert_eq(attempts, 1);
  OK(db_run_begin(d, "--sizes 1024,4096", &run));
  OK(db_run_end(d, run, 12.5, 30.25));
  close_ok(d);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM sweep_run WHERE finished IS NOT NULL"
                          " AND compile_s = 12.5 AND measure_s = 30.25"
                          " AND options = '--sizes 1024,4096'"), 1);
}

Test(db, newer_schema_is_refused_and_not_written)
{
  char p[256];
  path_of(p, "future.db");
  close_ok(fresh(p));
  raw_exec(p, "PRAGMA user_version = 99;");
  assert_refused(p, 0, SYMV_DB_VERSION, "99");
  assert_refused(p, DB_CREATE, SYMV_DB_VERSION, NULL);
  assert_refused(p, DB_READONLY, SYMV_DB_VERSION, NULL);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), 99);
}

/* ---- Device check -------------------------------------------------------------- */

Test(db, database_of_another_gpu_is_refused)
{
  char p[256];
  path_of(p, "gpu.db");
  close_ok(fresh(p));
  db *d = open_ok(p, 0);

  db_device other = h100();
  snprintf(other.name, sizeof other.name, "NVIDIA H200");
  cr_assert_eq(db_check_device(d, &other, 0), SYMV_DB_FOREIGN);
  cr_assert_not_null(strstr(db_errmsg(d), "NVIDIA H100 80GB HBM3"), "%s", db_errmsg(d));
  cr_assert_not_null(strstr(db_errmsg(d), "NVIDIA H200"), "%s", db_errmsg(d));

  other = h100();
  other.sm_count = 114;  /* an H100 PCIe */
  cr_assert_eq(db_check_device(d, &other, 0), SYMV_DB_FOREIGN);
  cr_assert_not_null(strstr(db_errmsg(d), "114 SMs"), "%s", db_errmsg(d));

  other = h100();
  other.cc_minor = 1;
  cr_assert_eq(db_check_device(d, &other, 0), SYMV_DB_FOREIGN);

  /* Forced: accepted, with a warning; the stored device is unchanged. */
  other.sm_count = 114;
  OK(db_check_device(d, &other, 1));
  cr_assert_not_null(strstr(db_warning(d), "114 SMs"), "%s", db_warning(d));
  db_device got;
  OK(db_get_device(d, &got));
  cr_assert_eq(got.sm_count, 132);

  /* A new driver or toolkit is not another GPU. */
  other = h100();
  other.driver_version = 12080;
  other.nvrtc_minor = 8;
  OK(db_check_device(d, &other, 0));
  cr_assert_not_null(strstr(db_warning(d), "driver version was 12040, is 12080"),
                     "%s", db_warning(d));
  cr_assert_not_null(strstr(db_warning(d), "NVRTC"), "%s", db_warning(d));
  other = h100();
  OK(db_check_device(d, &other, 0));
  cr_assert_str_empty(db_warning(d));

  other.sm_count = 0;
  cr_assert_eq(db_check_device(d, &other, 0), SYMV_INVALID_VALUE);
  close_ok(d);
}

/* ---- Crash and resume ------------------------------------------------------------ */

static const int sizes[2] = { 1024, 4096 };

/* Measure candidate id the way the sweep does: count the attempt, then
 * write all its results in one transaction. */
static void measure_candidate(db *d, long long id, double us)
{
  OK(db_start_attempt(d, id, NULL));
  OK(db_begin(d));
  for (int k = 0; k < 2; k++) {
    db_measurement m = timing(sizes[k], 'L', 0, DB_STAGE_SWEEP, us * (k + 1));
    OK(db_put_measurement(d, id, &m));
  }
  db_candidate c = { .id = id, .status = DB_VALID, .compile_ms = 900, .regs_per_thread = 72 };
  OK(db_set_candidate_result(d, &c));
  OK(db_commit(d));
}

Test(db, interrupted_sweep_resumes_with_committed_data_only)
{
  char p[256];
  path_of(p, "resume.db");
  db *d = fresh(p);
  long long id[10];
  for (int i = 0; i < 10; i++) {
    db_candidate c = point(SYMV_FAMILY_ATOMIC, 32 * (i + 1), 16, 2, i % 10);
    OK(db_put_candidate(d, &c, &id[i]));
  }
  for (int i = 0; i < 5; i++) measure_candidate(d, id[i], 10.0 + i);

  /* A worker process dies in the middle of candidate 5's transaction. */
  fflush(NULL);
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    db *w;
    if (db_open(&w, p, 0) || db_start_attempt(w, id[5], NULL) || db_begin(w)) _exit(2);
    db_measurement m = timing(1024, 'L', 0, DB_STAGE_SWEEP, 99.0);
    db_candidate c = { .id = id[5], .status = DB_VALID };
    if (db_put_measurement(w, id[5], &m) || db_set_candidate_result(w, &c)) _exit(3);
    _exit(0);  /* no commit, no close */
  }
  int wstatus;
  cr_assert_eq(waitpid(pid, &wstatus, 0), pid);
  cr_assert(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "child status %d", wstatus);

  /* And one killed outright mid-transaction. */
  fflush(NULL);
  pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    db *w;
    if (db_open(&w, p, 0) || db_begin(w)) _exit(2);
    db_measurement m = timing(4096, 'L', 0, DB_STAGE_SWEEP, 99.0);
    if (db_put_measurement(w, id[6], &m)) _exit(3);
    raise(SIGKILL);
    _exit(4);
  }
  cr_assert_eq(waitpid(pid, &wstatus, 0), pid);
  cr_assert(WIFSIGNALED(wstatus), "child status %d", wstatus);

  /* And, in this process, a handle closed without commit. */
  OK(db_begin(d));
  db_measurement m = timing(1024, 'U', 1, DB_STAGE_SWEEP, 77.0);
  OK(db_put_measurement(d, id[7], &m));
  close_ok(d);

  d = open_ok(p, 0);
  for (int i = 0; i < 5; i++) {
    db_candidate c;
    OK(db_get_candidate(d, id[i], &c));
    cr_assert_eq(c.status, DB_VALID, "candidate %d", i);
    cr_assert_eq(c.attempts, 1);
    cr_assert_eq(c.regs_per_thread, 72);
    for (int k = 0; k < 2; k++) {
      int found;
      OK(db_has_measurement(d, id[i], sizes[k], 'L', 0, DB_STAGE_SWEEP, &found));
      cr_assert_eq(found, 1, "candidate %d n %d", i, sizes[k]);
    }
  }
  db_candidate c;
  OK(db_get_candidate(d, id[5], &c));
  cr_assert_eq(c.status, DB_PENDING, "uncommitted result absent");
  cr_assert_eq(c.attempts, 1, "the attempt was committed before the crash");
  for (int i = 5; i < 10; i++) {
    db_measurement *ms;
    size_t k;
    OK(db_candidate_measurements(d, id[i], DB_STAGE_SWEEP, 0, -1, &ms, &k));
    cr_assert_eq(k, 0, "candidate %d has no committed timing", i);
    cr_assert_null(ms);
  }

  db_candidate *pending;
  size_t np;
  OK(db_list_candidates(d, SYMV_DSYMV, DB_PENDING, DB_ANY_FAMILY, &pending, &np));
  cr_assert_eq(np, 5);
  for (size_t i = 0; i < np; i++) {
    cr_assert_eq(pending[i].id, id[5 + i], "pending in id order");
    cr_assert_eq(pending[i].p.block_size, 32 * (int)(6 + i));
  }
  free(pending);

  db_counts n;
  OK(db_count_candidates(d, SYMV_DSYMV, DB_ANY_FAMILY, &n));
  cr_assert_eq(n.total, 10);
  cr_assert_eq(n.by_status[DB_VALID], 5);
  cr_assert_eq(n.by_status[DB_PENDING], 5);
  cr_assert_eq(n.by_status[DB_INVALID], 0);
  OK(db_count_candidates(d, SYMV_DSYMV, SYMV_FAMILY_LU, &n));
  cr_assert_eq(n.total, 0);
  close_ok(d);
  cr_assert_eq(raw_int(p, "SELECT quick_check = 'ok' FROM pragma_quick_check"), 1);
}

Test(db, a_candidate_that_keeps_crashing_the_worker_becomes_a_fault)
{
  char p[256];
  path_of(p, "crash.db");
  db *d = fresh(p);
  long long id;
  db_candidate c = point(SYMV_FAMILY_ATOMIC_RED, 64, 9, 3, 2);
  OK(db_put_candidate(d, &c, &id));
  close_ok(d);

  enum { MAX_ATTEMPTS = 3 };
  for (int k = 0; k < MAX_ATTEMPTS; k++) {
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
      db *w;
      if (db_open(&w, p, 0) || db_start_attempt(w, id, NULL)) _exit(2);
      raise(SIGKILL);  /* the kernel took the worker down */
      _exit(3);
    }
    int wstatus;
    cr_assert_eq(waitpid(pid, &wstatus, 0), pid);
    cr_assert(WIFSIGNALED(wstatus));
  }

  d = open_ok(p, 0);
  OK(db_get_candidate(d, id, &c));
  cr_assert_eq(c.attempts, MAX_ATTEMPTS);
  c.status = DB_INVALID;
  c.reason = DB_REASON_FAULT;
  snprintf(c.detail, sizeof c.detail, "worker died %d times", c.attempts);
  OK(db_set_candidate_result(d, &c));
  db_counts n;
  OK(db_count_candidates(d, SYMV_DSYMV, SYMV_FAMILY_ATOMIC_RED, &n));
  cr_assert_eq(n.by_status[DB_INVALID], 1);
  cr_assert_eq(n.by_reason[DB_REASON_FAULT], 1);
  cr_assert_eq(n.by_reason[DB_REASON_NONE], 0);
  db_candidate *list;
  size_t k;
  OK(db_list_candidates(d, SYMV_DSYMV, DB_PENDING, DB_ANY_FAMILY, &list, &k));
  cr_assert_eq(k, 0);
  cr_assert_eq(db_start_attempt(d, id + 1000, NULL), SYMV_NOT_FOUND);
  close_ok(d);
}

Test(db, transactions_commit_and_roll_back)
{
  char p[256];
  path_of(p, "tx.db");
  db *d = fresh(p);
  long long id;
  db_candidate c = point(SYMV_FAMILY_LU, 64, 0, 1, 0);
  OK(db_put_candidate(d, &c, &id));

  OK(db_begin(d));
  cr_assert_eq(db_begin(d), SYMV_DB, "transactions do not nest");
  cr_assert_not_null(strstr(db_errmsg(d), "BEGIN"), "%s", db_errmsg(d));
  db_measurement m = timing(512, 'U', 1, DB_STAGE_DENSE, 3.5);
  OK(db_put_measurement(d, id, &m));

  /* A reader in another handle does not see the open transaction. */
  db *r = open_ok(p, DB_READONLY);
  int found;
  cr_assert_eq(db_has_measurement(r, id, 512, 'U', 1, DB_STAGE_DENSE, &found), 0);
  cr_assert_eq(found, 0);

  OK(db_rollback(d));
  OK(db_has_measurement(d, id, 512, 'U', 1, DB_STAGE_DENSE, &found));
  cr_assert_eq(found, 0);
  cr_assert_eq(db_commit(d), SYMV_DB, "no transaction to commit");

  OK(db_begin(d));
  OK(db_put_measurement(d, id, &m));
  OK(db_commit(d));
  cr_assert_eq(db_has_measurement(r, id, 512, 'U', 1, DB_STAGE_DENSE, &found), 0);
  cr_assert_eq(found, 1, "committed data seen by the other handle");
  close_ok(r);
  close_ok(d);
}

/* ---- Upserts and validation ------------------------------------------------------- */

Test(db, reinserting_keeps_candidates_and_replaces_timings)
{
  char p[256];
  path_of(p, "upsert.db");
  db *d = fresh(p);
  long long a, b, a2, found_id;
  db_candidate c = point(SYMV_FAMILY_ATOMIC, 128, 14, 6, 9);
  OK(db_put_candidate(d, &c, &a));
  db_candidate c2 = point(SYMV_FAMILY_ATOMIC, 128, 14, 6, 8);
  OK(db_put_candidate(d, &c2, &b));
  cr_assert_neq(a, b);

  db_candidate r = { .id = a, .status = DB_VALID, .compile_ms = 1234.5, .regs_per_thread = 80 };
  snprintf(r.detail, sizeof r.detail, "ok");
  OK(db_set_candidate_result(d, &r));
  OK(db_put_candidate(d, &c, &a2));
  cr_assert_eq(a, a2, "same point, same id");
  OK(db_find_candidate(d, &(symv_params){SYMV_FAMILY_ATOMIC, 128, 14, 6, 9, SYMV_DSYMV}, &found_id));
  cr_assert_eq(found_id, a);
  cr_assert_eq(db_find_candidate(d, &(symv_params){SYMV_FAMILY_ATOMIC, 128, 14, 6, 7, SYMV_DSYMV}, &found_id),
               SYMV_NOT_FOUND);
  cr_assert_eq(db_find_candidate(d, NULL, &found_id), SYMV_INVALID_VALUE);
  db_candidate got;
  OK(db_get_candidate(d, a, &got));
  cr_assert_eq(got.status, DB_VALID, "re-inserting does not reset the result");
  cr_assert_eq(got.compile_ms, 1234.5);
  cr_assert_str_eq(got.detail, "ok");

  db_measurement m = timing(2048, 'L', 0, DB_STAGE_SWEEP, 20.0);
  OK(db_put_measurement(d, a, &m));
  m = timing(2048, 'L', 0, DB_STAGE_SWEEP, 18.0);
  OK(db_put_measurement(d, a, &m));
  db_measurement *ms;
  size_t k;
  OK(db_candidate_measurements(d, a, DB_STAGE_SWEEP, 'L', 0, &ms, &k));
  cr_assert_eq(k, 1, "replaced, not added");
  assert_same_measurement(&ms[0], &m);
  free(ms);

  m = timing(2048, 'L', 0, DB_STAGE_SWEEP, 25.0);
  OK(db_put_baseline(d, SYMV_DSYMV, "cublas", &m));
  m = timing(2048, 'L', 0, DB_STAGE_SWEEP, 24.0);
  OK(db_put_baseline(d, SYMV_DSYMV, "cublas", &m));
  m = timing(2048, 'L', 0, DB_STAGE_SWEEP, 22.0);
  OK(db_put_baseline(d, SYMV_DSYMV, "cublas_atomics", &m));
  int found;
  OK(db_has_baseline(d, SYMV_DSYMV, "cublas", 2048, 'L', 0, DB_STAGE_SWEEP, &found));
  cr_assert_eq(found, 1);
  OK(db_has_baseline(d, SYMV_DSYMV, "cublas", 2048, 'U', 0, DB_STAGE_SWEEP, &found));
  cr_assert_eq(found, 0);
  OK(db_has_baseline(d, SYMV_DSYMV, "cublas", 2048, 'L', 0, DB_STAGE_DENSE, &found));
  cr_assert_eq(found, 0);
  OK(db_baseline_measurements(d, SYMV_DSYMV, "cublas", DB_STAGE_SWEEP, 0, -1, &ms, &k));
  cr_assert(k == 1 && ms[0].median_us == 24.0);
  free(ms);
  OK(db_baseline_measurements(d, SYMV_DSYMV, "cublas_atomics", DB_STAGE_SWEEP, 0, -1, &ms, &k));
  cr_assert(k == 1 && ms[0].median_us == 22.0);
  free(ms);
  close_ok(d);
}

Test(db, bad_values_are_refused)
{
  char p[256];
  path_of(p, "bad.db");
  db *d = fresh(p);
  long long id;
  db_candidate c = point(SYMV_FAMILY_ATOMIC, 128, 15, 5, 0);
  OK(db_put_candidate(d, &c, &id));

  db_candidate bad = point(SYMV_FAMILY_COUNT + 1, 128, 15, 5, 0);
  cr_assert_eq(db_put_candidate(d, &bad, NULL), SYMV_INVALID_VALUE);
  bad = point(DB_ANY_FAMILY, 128, 15, 5, 0);
  cr_assert_eq(db_put_candidate(d, &bad, NULL), SYMV_INVALID_VALUE, "a candidate has one family");
  bad = point(SYMV_FAMILY_ATOMIC, 128, -1, 5, 0);
  cr_assert_eq(db_put_candidate(d, &bad, NULL), SYMV_INVALID_VALUE);

  db_measurement good = timing(1000, 'L', 0, DB_STAGE_SWEEP, 10.0);
  db_measurement m = good;
  m.uplo = 'l';
  cr_assert_eq(db_put_measurement(d, id, &m), SYMV_INVALID_VALUE);
  m = good;
  m.n = 0;
  cr_assert_eq(db_put_measurement(d, id, &m), SYMV_INVALID_VALUE);
  m = good;
  m.hot = 2;
  cr_assert_eq(db_put_measurement(d, id, &m), SYMV_INVALID_VALUE);
  m = good;
  m.stage = DB_STAGE_COUNT;
  cr_assert_eq(db_put_measurement(d, id, &m), SYMV_INVALID_VALUE);
  m = good;
  m.min_us = 11.0;
  cr_assert_eq(db_put_measurement(d, id, &m), SYMV_INVALID_VALUE);
  m = good;
  m.gflops = NAN;
  cr_assert_eq(db_put_measurement(d, id, &m), SYMV_INVALID_VALUE);
  m = good;
  m.batches = 0;
  cr_assert_eq(db_put_measurement(d, id, &m), SYMV_INVALID_VALUE);
  cr_assert_eq(db_put_measurement(d, id + 99, &good), SYMV_NOT_FOUND);
  cr_assert_not_null(strstr(db_errmsg(d), "no candidate"), "%s", db_errmsg(d));
  cr_assert_eq(db_put_baseline(d, SYMV_DSYMV, "", &good), SYMV_INVALID_VALUE);

  db_candidate r = { .id = id, .status = DB_INVALID, .reason = DB_REASON_NONE };
  cr_assert_eq(db_set_candidate_result(d, &r), SYMV_INVALID_VALUE);
  r.status = DB_VALID;
  r.reason = DB_REASON_WRONG;
  cr_assert_eq(db_set_candidate_result(d, &r), SYMV_INVALID_VALUE);
  r = (db_candidate){ .id = id + 99, .status = DB_VALID };
  cr_assert_eq(db_set_candidate_result(d, &r), SYMV_NOT_FOUND);

  /* Every reason the program knows is one the schema accepts. */
  for (int reason = DB_REASON_NONE + 1; reason < DB_REASON_COUNT; reason++) {
    r = (db_candidate){ .id = id, .status = DB_INVALID, .reason = reason };
    OK(db_set_candidate_result(d, &r));
    db_candidate got;
    OK(db_get_candidate(d, id, &got));
    cr_assert_eq(got.reason, (db_reason)reason);
  }
  cr_assert_eq(db_set_copy_gbs(d, -1), SYMV_INVALID_VALUE);
  cr_assert_eq(db_run_end(d, 12345, 0, 0), SYMV_NOT_FOUND);
  close_ok(d);
}

/* ---- Queries of the later stages ------------------------------------------------------ */

Test(db, time_table_for_the_ranking)
{
  char p[256];
  path_of(p, "rank.db");
  db *d = fresh(p);
  long long id[5];
  for (int i = 0; i < 5; i++) {
    db_candidate c = point(i == 4 ? SYMV_FAMILY_LU : SYMV_FAMILY_ATOMIC, 64 * (i + 1), 12, 2, 0);
    OK(db_put_candidate(d, &c, &id[i]));
  }
  /* 0, 1, 2 and 4 valid; 3 invalid; all but 2 have timings at every size. */
  static const int ns[3] = { 1000, 2000, 8000 };
  OK(db_begin(d));
  for (int i = 0; i < 5; i++) {
    db_candidate r = { .id = id[i], .status = i == 3 ? DB_INVALID : DB_VALID,
                       .reason = i == 3 ? DB_REASON_OCCUPANCY : DB_REASON_NONE };
    OK(db_set_candidate_result(d, &r));
    for (int j = 0; j < 3; j++) {
      if (i == 2 && j == 1) continue;
      db_measurement m = timing(ns[j], 'L', 0, DB_STAGE_SWEEP, 100.0 * i + j + 1);
      OK(db_put_measurement(d, id[i], &m));
      /* Timings of other keys, which must not leak into the table. */
      m = timing(ns[j], 'U', 0, DB_STAGE_SWEEP, 1e6);
      OK(db_put_measurement(d, id[i], &m));
      m = timing(ns[j], 'L', 1, DB_STAGE_SWEEP, 2e6);
      OK(db_put_measurement(d, id[i], &m));
      m = timing(ns[j], 'L', 0, DB_STAGE_DENSE, 3e6);
      OK(db_put_measurement(d, id[i], &m));
    }
    db_measurement m = timing(3000, 'L', 0, DB_STAGE_SWEEP, 5e6);
    OK(db_put_measurement(d, id[i], &m));
  }
  OK(db_commit(d));

  /* Asked in another order than stored, with one size nobody measured. */
  static const int ask[4] = { 8000, 1000, 2000, 5000 };
  db_times t;
  OK(db_time_table(d, SYMV_DSYMV, ask, 4, 'L', 0, DB_STAGE_SWEEP, &t));
  cr_assert_eq(t.ncand, 4, "valid candidates only");
  cr_assert_eq(t.nsizes, 4);
  static const int rows[4] = { 0, 1, 2, 4 };
  for (size_t r = 0; r < t.ncand; r++) {
    int i = rows[r];
    cr_assert_eq(t.cand[r].id, id[i], "rows in id order");
    cr_assert_eq(t.median_us[r * 4 + 0], 100.0 * i + 3, "n 8000, candidate %d", i);
    cr_assert_eq(t.median_us[r * 4 + 1], 100.0 * i + 1, "n 1000, candidate %d", i);
    if (i == 2)
      cr_assert(isnan(t.median_us[r * 4 + 2]), "not measured at 2000");
    else
      cr_assert_eq(t.median_us[r * 4 + 2], 100.0 * i + 2);
    cr_assert(isnan(t.median_us[r * 4 + 3]), "nobody measured 5000");
  }
  cr_assert_eq(t.cand[3].p.family, SYMV_FAMILY_LU);
  db_times_free(&t);
  cr_assert_null(t.median_us);

  int bad[1] = { 0 };
  cr_assert_eq(db_time_table(d, SYMV_DSYMV, bad, 1, 'L', 0, DB_STAGE_SWEEP, &t), SYMV_INVALID_VALUE);
  cr_assert_eq(db_time_table(d, SYMV_DSYMV, ask, 4, 'X', 0, DB_STAGE_SWEEP, &t), SYMV_INVALID_VALUE);
  close_ok(d);

  /* A read-only handle (the rank stage) gets the same table. */
  d = open_ok(p, DB_READONLY);
  OK(db_time_table(d, SYMV_DSYMV, ns, 3, 'L', 0, DB_STAGE_SWEEP, &t));
  cr_assert_eq(t.ncand, 4);
  cr_assert_eq(t.median_us[0], 1.0);
  db_times_free(&t);
  close_ok(d);
}

Test(db, measurements_of_one_candidate_come_in_n_order)
{
  char p[256];
  path_of(p, "dense.db");
  db *d = fresh(p);
  long long id;
  db_candidate c = point(SYMV_FAMILY_ATOMIC, 160, 14, 5, 7);
  OK(db_put_candidate(d, &c, &id));
  static const int ns[6] = { 9000, 100, 5000, 2336, 700, 10000 };
  OK(db_begin(d));
  for (int j = 0; j < 6; j++)
    for (int hot = 0; hot <= 1; hot++) {
      db_measurement m = timing(ns[j], 'U', hot, DB_STAGE_DENSE, ns[j] / 100.0 + hot);
      OK(db_put_measurement(d, id, &m));
      m = timing(ns[j], 'U', hot, DB_STAGE_DENSE, ns[j] / 50.0);
      OK(db_put_baseline(d, SYMV_DSYMV, "cublas", &m));
    }
  db_measurement m = timing(4096, 'U', 0, DB_STAGE_SWEEP, 1.0);
  OK(db_put_measurement(d, id, &m));
  OK(db_commit(d));

  db_measurement *ms;
  size_t k;
  OK(db_candidate_measurements(d, id, DB_STAGE_DENSE, 'U', 0, &ms, &k));
  cr_assert_eq(k, 6);
  for (size_t j = 0; j < k; j++) {
    cr_assert(j == 0 || ms[j - 1].n < ms[j].n, "n ascending");
    cr_assert_eq(ms[j].hot, 0);
    cr_assert_eq(ms[j].stage, DB_STAGE_DENSE);
    cr_assert_eq(ms[j].median_us, ms[j].n / 100.0);
  }
  cr_assert_eq(ms[0].n, 100);
  cr_assert_eq(ms[5].n, 10000);
  free(ms);
  OK(db_candidate_measurements(d, id, DB_STAGE_DENSE, 0, -1, &ms, &k));
  cr_assert_eq(k, 12);
  cr_assert(ms[0].n == 100 && ms[0].hot == 0 && ms[1].n == 100 && ms[1].hot == 1);
  free(ms);
  OK(db_candidate_measurements(d, id, DB_STAGE_DENSE, 'L', -1, &ms, &k));
  cr_assert_eq(k, 0);
  OK(db_baseline_measurements(d, SYMV_DSYMV, "cublas", DB_STAGE_DENSE, 'U', 1, &ms, &k));
  cr_assert_eq(k, 6);
  for (size_t j = 1; j < k; j++) cr_assert_lt(ms[j - 1].n, ms[j].n);
  cr_assert_eq(ms[2].median_us, 2336 / 50.0);
  free(ms);
  cr_assert_eq(db_candidate_measurements(d, id, DB_STAGE_DENSE, 'x', -1, &ms, &k),
               SYMV_INVALID_VALUE);
  close_ok(d);
}

Test(db, names_match_the_stored_text)
{
  cr_assert_str_eq(db_status_name(DB_PENDING), "pending");
  cr_assert_str_eq(db_status_name(DB_INVALID), "invalid");
  cr_assert_str_eq(db_reason_name(DB_REASON_NONE), "");
  cr_assert_str_eq(db_reason_name(DB_REASON_OCCUPANCY), "occupancy");
  cr_assert_str_eq(db_reason_name(DB_REASON_WRONG), "wrong");
  cr_assert_str_eq(db_stage_name(DB_STAGE_DENSE), "dense");
  cr_assert_str_eq(db_stage_name(7), "?");
  cr_assert_str_eq(db_reason_name(-1), "?");
}

/* ---- Fits and rules (schema version 3) ---------------------------------------- */

/* Schema version 2 as its migrations made it, with data of every table. */
static void make_v2(const char *path)
{
  raw_exec(path, schema_v1);
  raw_exec(path,
    "ALTER TABLE candidate ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE sweep_run (id INTEGER PRIMARY KEY, started TEXT NOT NULL,"
    " finished TEXT, options TEXT NOT NULL DEFAULT '',"
    " compile_s REAL NOT NULL DEFAULT 0, measure_s REAL NOT NULL DEFAULT 0);"
    "PRAGMA user_version = 2;"
    "UPDATE candidate SET attempts = 2 WHERE id = 1;"
    "INSERT INTO sweep_run (started, finished, options, compile_s, measure_s)"
    " VALUES ('2026-01-02T03:04:05Z', '2026-01-02T04:00:00Z', '--wide', 61.5, 120.25);"
    "INSERT INTO measurement VALUES (1, 'dense', 1000, 'L', 0, 9.5, 9.4, 9.7,"
    " 5, 40, 210.5, 421.0, 0.1);");
}

/* A fit of lo..hi (uplo L, cold) with `threshold`. */
static db_fit fit_of(int lo, int hi, double threshold)
{
  db_fit f = { .routine = SYMV_DSYMV, .uplo = 'L', .hot = 0, .lo = lo, .hi = hi, .threshold = threshold };
  snprintf(f.method, sizeof f.method, "test: %d..%d", lo, hi);
  return f;
}

/* The rule a..b for `kernel` (candidate id, or 0), predicted at us. */
static db_rule rule_of(int a, int b, const char *kernel, long long id, double us)
{
  db_rule r = { .n_start = a, .n_end = b, .predicted_us = us, .predicted_gain = 1.25 };
  snprintf(r.kernel, sizeof r.kernel, "%s", kernel);
  r.cand.id = id;
  return r;
}

Test(db, version_2_database_is_migrated_keeping_its_data)
{
  char p[256];
  path_of(p, "v2.db");
  make_v2(p);
  db *d = open_ok(p, DB_READONLY);
  close_ok(d);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), 2, "a read-only open does not migrate the file");

  d = open_ok(p, 0);
  close_ok(d);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), DB_SCHEMA_VERSION);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                          "('fit', 'fit_curve', 'fit_rule')"), 3);

  d = open_ok(p, DB_READONLY);
  db_candidate c;
  OK(db_get_candidate(d, 1, &c));
  cr_assert(c.p.block_size == 128 && c.p.ux == 15 && c.status == DB_VALID && c.attempts == 2);
  cr_assert_eq(c.p.routine, SYMV_DSYMV);
  db_measurement *m;
  size_t k;
  OK(db_candidate_measurements(d, 1, DB_STAGE_DENSE, 'L', 0, &m, &k));
  cr_assert(k == 1 && m[0].n == 1000 && m[0].median_us == 9.5);
  free(m);
  OK(db_candidate_measurements(d, 1, DB_STAGE_SWEEP, 'L', 0, &m, &k));
  cr_assert(k == 1 && m[0].n == 4096 && m[0].median_us == 50.0);
  free(m);
  OK(db_baseline_measurements(d, SYMV_DSYMV, "cublas", DB_STAGE_SWEEP, 'L', 0, &m, &k));
  cr_assert(k == 1 && m[0].median_us == 60.0);
  free(m);
  db_fit f;
  db_rule *r;
  size_t nr;
  cr_assert_eq(db_latest_fit(d, SYMV_DSYMV, 'L', 0, &f, &r, &nr, NULL, NULL), SYMV_NOT_FOUND);
  cr_assert_null(r);
  close_ok(d);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM sweep_run WHERE options = '--wide' AND compile_s = 61.5"), 1);

  /* what versions 3 and 4 added works on the migrated file */
  d = open_ok(p, 0);
  f = fit_of(32, 9000, 0.01);
  db_rule rules[2] = { rule_of(32, 4000, DB_KERNEL_CANDIDATE, 1, 12.5),
                       rule_of(4001, 9000, DB_KERNEL_CUBLAS, 0, 300) };
  OK(db_put_fit(d, &f, NULL, 0, rules, 2));
  close_ok(d);

  /* a current file without one of its tables is not ours */
  raw_exec(p, "PRAGMA journal_mode = DELETE; DROP TABLE fit_curve;");
  assert_refused(p, 0, SYMV_DB_CORRUPT, "missing");
}

Test(db, fits_round_trip_and_the_latest_wins)
{
  char p[256];
  path_of(p, "fit.db");
  db *d = fresh(p);
  long long id[3];
  const symv_family fam[3] = { SYMV_FAMILY_LU, SYMV_FAMILY_ATOMIC, SYMV_FAMILY_ATOMIC_RED };
  for (int i = 0; i < 3; i++) {
    db_candidate c = point(fam[i], 64 << i, 8 + i, 1 + i, i);
    OK(db_put_candidate(d, &c, &id[i]));
    c.id = id[i];
    c.status = DB_VALID;
    c.compile_ms = 100.0 + i;
    c.regs_per_thread = 40 + i;
    OK(db_set_candidate_result(d, &c));
  }
  db_fit f;
  db_rule *r;
  size_t nr;
  cr_assert_eq(db_latest_fit(d, SYMV_DSYMV, 'L', 0, &f, &r, &nr, NULL, NULL), SYMV_NOT_FOUND);
  cr_assert_not_null(strstr(db_errmsg(d), "no fit"), "%s", db_errmsg(d));

  db_fit f1 = fit_of(32, 1000, 0.02);
  db_rule r1[1] = { rule_of(32, 1000, DB_KERNEL_CUBLAS_ATOMICS, 0, 7.0) };
  OK(db_put_fit(d, &f1, NULL, 0, r1, 1));
  cr_assert_gt(f1.id, 0);
  cr_assert_eq(strlen(f1.created), 20, "created '%s' is YYYY-MM-DDTHH:MM:SSZ", f1.created);

  db_fit f2 = fit_of(100, 20000, 0.05);
  f2.uplo = 'U';
  f2.hot = 1;
  db_fit_curve curves[4] = {
    { .kernel = DB_KERNEL_CUBLAS, .alpha = 700.5, .nsamples = 70, .rms_rel = 0.03 },
    { .kernel = DB_KERNEL_CUBLAS_ATOMICS, .alpha = 1200, .nsamples = 71, .rms_rel = 0.02 },
    { .kernel = DB_KERNEL_CANDIDATE, .candidate_id = id[2], .alpha = 3.5, .nsamples = 9, .rms_rel = 0 },
    { .kernel = DB_KERNEL_CANDIDATE, .candidate_id = id[0], .alpha = 1e6, .nsamples = 2, .rms_rel = 0.5 },
  };
  db_rule r2[4] = { rule_of(100, 299, DB_KERNEL_CANDIDATE, id[0], 4.5),
                    rule_of(300, 300, DB_KERNEL_CUBLAS, 0, 5.25),
                    rule_of(301, 5000, DB_KERNEL_CANDIDATE, id[2], 20.125),
                    rule_of(5001, 20000, DB_KERNEL_CUBLAS_ATOMICS, 0, 700) };
  r2[2].predicted_gain = 1.0625;
  OK(db_put_fit(d, &f2, curves, 4, r2, 4));
  cr_assert_gt(f2.id, f1.id);
  close_ok(d);

  d = open_ok(p, DB_READONLY);
  db_fit_curve *cv;
  size_t nc;
  OK(db_latest_fit(d, SYMV_DSYMV, 'U', 1, &f, &r, &nr, &cv, &nc));
  cr_assert_eq(f.id, f2.id);
  cr_assert_eq(f.routine, SYMV_DSYMV);
  cr_assert_str_eq(f.created, f2.created);
  cr_assert(f.uplo == 'U' && f.hot == 1 && f.lo == 100 && f.hi == 20000 && f.threshold == 0.05);
  cr_assert_str_eq(f.method, "test: 100..20000");
  cr_assert_eq(nr, 4);
  for (size_t i = 0; i < 4; i++) {
    cr_assert(r[i].n_start == r2[i].n_start && r[i].n_end == r2[i].n_end, "rule %zu", i);
    cr_assert_str_eq(r[i].kernel, r2[i].kernel);
    cr_assert(r[i].predicted_us == r2[i].predicted_us && r[i].predicted_gain == r2[i].predicted_gain);
  }
  /* candidate rules carry the whole candidate, cuBLAS ones none */
  cr_assert_eq(r[0].cand.id, id[0]);
  cr_assert_eq(r[0].cand.p.family, SYMV_FAMILY_LU);
  cr_assert_eq(r[0].cand.p.routine, SYMV_DSYMV);
  cr_assert(r[0].cand.p.block_size == 64 && r[0].cand.p.ux == 8 && r[0].cand.p.multiplicity == 1 &&
            r[0].cand.p.mx == 0 && r[0].cand.status == DB_VALID && r[0].cand.regs_per_thread == 40);
  cr_assert_eq(r[2].cand.id, id[2]);
  cr_assert_eq(r[2].cand.p.family, SYMV_FAMILY_ATOMIC_RED);
  cr_assert(r[2].cand.p.block_size == 256 && r[2].cand.p.ux == 10 && r[2].cand.p.mx == 2 &&
            r[2].cand.compile_ms == 102.0);
  const db_candidate none = {0};
  cr_assert(memcmp(&r[1].cand, &none, sizeof none) == 0, "a cuBLAS rule's candidate is all zero");
  cr_assert_eq(nc, 4);
  for (size_t i = 0; i < 4; i++) {
    cr_assert_str_eq(cv[i].kernel, curves[i].kernel, "curve %zu in stored order", i);
    cr_assert(cv[i].candidate_id == curves[i].candidate_id && cv[i].alpha == curves[i].alpha &&
              cv[i].nsamples == curves[i].nsamples && cv[i].rms_rel == curves[i].rms_rel, "curve %zu", i);
  }
  free(r);
  free(cv);
  /* curves are optional */
  OK(db_latest_fit(d, SYMV_DSYMV, 'U', 1, &f, &r, &nr, NULL, NULL));
  cr_assert_eq(nr, 4);
  free(r);
  /* the newer fit is of (U, hot): it does not hide the (L, cold) one */
  OK(db_latest_fit(d, SYMV_DSYMV, 'L', 0, &f, &r, &nr, NULL, NULL));
  cr_assert_eq(f.id, f1.id);
  cr_assert(nr == 1 && f.uplo == 'L' && f.hot == 0 && f.lo == 32 && f.hi == 1000);
  free(r);
  close_ok(d);
}

Test(db, rules_that_do_not_tile_the_range_are_refused)
{
  char p[256];
  path_of(p, "tile.db");
  db *d = fresh(p);
  long long id;
  db_candidate c = point(SYMV_FAMILY_ATOMIC, 128, 16, 4, 1);
  OK(db_put_candidate(d, &c, &id));
  db_fit good = fit_of(32, 1000, 0.01);
  db_rule ok[2] = { rule_of(32, 499, DB_KERNEL_CANDIDATE, id, 5), rule_of(500, 1000, DB_KERNEL_CUBLAS, 0, 9) };
  OK(db_put_fit(d, &good, NULL, 0, ok, 2));

  static const struct {
    int a0, b0, a1, b1;   /* the two rules */
    const char *part;     /* what the message says */
  } bad[] = {
    { 33, 499, 500, 1000, "not at lo" },
    { 32, 499, 501, 1000, "gap" },
    { 32, 499, 499, 1000, "overlap" },
    { 32, 499, 500, 999, "end at 999" },
    { 32, 499, 500, 1001, "end at 1001" },
    { 32, 31, 32, 1000, "empty" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    db_fit f = fit_of(32, 1000, 0.01);
    db_rule r[2] = { rule_of(bad[i].a0, bad[i].b0, DB_KERNEL_CANDIDATE, id, 5),
                     rule_of(bad[i].a1, bad[i].b1, DB_KERNEL_CUBLAS, 0, 9) };
    cr_assert_eq(db_put_fit(d, &f, NULL, 0, r, 2), SYMV_INVALID_VALUE, "case %zu", i);
    cr_assert_not_null(strstr(db_errmsg(d), bad[i].part), "case %zu: %s", i, db_errmsg(d));
  }
  /* other bad values */
  db_fit f = fit_of(32, 1000, 0.01);
  db_rule r[2];
  memcpy(r, ok, sizeof r);
  snprintf(r[1].kernel, sizeof r[1].kernel, "nvblas");
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, r, 2), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(db_errmsg(d), "nvblas"), "%s", db_errmsg(d));
  memcpy(r, ok, sizeof r);
  r[0].cand.id = 0;
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, r, 2), SYMV_INVALID_VALUE, "a candidate rule without a candidate");
  memcpy(r, ok, sizeof r);
  r[1].predicted_us = NAN;
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, r, 2), SYMV_INVALID_VALUE);
  memcpy(r, ok, sizeof r);
  r[0].predicted_gain = 0;
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, r, 2), SYMV_INVALID_VALUE);
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, ok, 0), SYMV_INVALID_VALUE, "no rules");
  db_fit bf = fit_of(32, 1000, 1.0);
  cr_assert_eq(db_put_fit(d, &bf, NULL, 0, ok, 2), SYMV_INVALID_VALUE, "threshold 1");
  bf = fit_of(32, 1000, 0.01);
  bf.uplo = 'X';
  cr_assert_eq(db_put_fit(d, &bf, NULL, 0, ok, 2), SYMV_INVALID_VALUE, "uplo X");
  db_fit_curve cv = { .kernel = DB_KERNEL_CUBLAS, .candidate_id = id, .alpha = 1, .nsamples = 3 };
  cr_assert_eq(db_put_fit(d, &f, &cv, 1, ok, 2), SYMV_INVALID_VALUE, "a cuBLAS curve naming a candidate");
  cv.candidate_id = 0;
  cv.alpha = 0;
  cr_assert_eq(db_put_fit(d, &f, &cv, 1, ok, 2), SYMV_INVALID_VALUE, "alpha 0");
  /* a candidate that does not exist: refused by the database, nothing kept */
  memcpy(r, ok, sizeof r);
  r[0].cand.id = id + 1000;
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, r, 2), SYMV_NOT_FOUND);
  cr_assert_not_null(strstr(db_errmsg(d), "no candidate"), "%s", db_errmsg(d));
  /* inside a transaction */
  OK(db_begin(d));
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, ok, 2), SYMV_DB);
  OK(db_rollback(d));

  db_fit latest;
  db_rule *got;
  size_t n;
  OK(db_latest_fit(d, SYMV_DSYMV, 'L', 0, &latest, &got, &n, NULL, NULL));
  cr_assert_eq(latest.id, good.id, "only the good fit was stored");
  cr_assert_eq(n, 2);
  free(got);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM fit"), 1);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM fit_rule"), 2);
  close_ok(d);

  /* read-only handles cannot store */
  d = open_ok(p, DB_READONLY);
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, ok, 2), SYMV_DB);
  close_ok(d);

  /* rules damaged in the file are reported, not returned */
  raw_exec(p, "UPDATE fit_rule SET n_start = 510 WHERE n_start = 500");
  d = open_ok(p, DB_READONLY);
  cr_assert_eq(db_latest_fit(d, SYMV_DSYMV, 'L', 0, &latest, &got, &n, NULL, NULL), SYMV_DB_CORRUPT);
  cr_assert_null(got);
  cr_assert_not_null(strstr(db_errmsg(d), "510"), "%s", db_errmsg(d));
  close_ok(d);
}

/* ---- Routines (schema version 4) ------------------------------------------------ */

Test(db, routines_are_stored_by_their_registry_names)
{
  char p[256];
  path_of(p, "names.db");
  db *d = fresh(p);
  static const char *const six[6] = { "ssymv", "dsymv", "csymv", "zsymv", "chemv", "zhemv" };
  long long id[6];
  for (int i = 5; i >= 0; i--) { /* stored in reverse canonical order */
    db_candidate c = point_of(symv_routine_order(i), SYMV_FAMILY_ATOMIC, 128, 16, 2, 3);
    OK(db_put_candidate(d, &c, &id[i]));
  }
  symv_routine got[SYMV_ROUTINE_COUNT];
  size_t k;
  OK(db_list_routines(d, DB_ROUTINES_CANDIDATES, got, SYMV_ROUTINE_COUNT, &k));
  cr_assert_eq(k, 6);
  for (int i = 0; i < 6; i++) cr_assert_eq(got[i], symv_routine_order(i), "canonical order at %d", i);
  close_ok(d);
  for (int i = 0; i < 6; i++) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM candidate WHERE id = %lld AND routine = '%s'", id[i], six[i]);
    cr_assert_eq(raw_int(p, sql), 1, "candidate %lld is stored as %s", id[i], six[i]);
  }
}

Test(db, the_same_parameters_under_two_routines_are_two_candidates)
{
  char p[256];
  path_of(p, "routines.db");
  db *d = fresh(p);
  symv_routine names[SYMV_ROUTINE_COUNT];
  size_t k;
  OK(db_list_routines(d, DB_ROUTINES_CANDIDATES, names, SYMV_ROUTINE_COUNT, &k));
  cr_assert_eq(k, 0);

  /* stored in another order than the canonical one */
  long long idz, idd, idc, again;
  db_candidate z = point_of(SYMV_ZHEMV, SYMV_FAMILY_ATOMIC, 128, 16, 2, 3);
  db_candidate dd = point_of(SYMV_DSYMV, SYMV_FAMILY_ATOMIC, 128, 16, 2, 3);
  db_candidate c = point_of(SYMV_CHEMV, SYMV_FAMILY_LU, 64, 8, 1, 0);
  OK(db_put_candidate(d, &z, &idz));
  OK(db_put_candidate(d, &dd, &idd));
  OK(db_put_candidate(d, &c, &idc));
  cr_assert(idz != idd && idd != idc && idz != idc, "three rows");
  OK(db_put_candidate(d, &z, &again));
  cr_assert_eq(again, idz, "the same routine's point is the same row");
  OK(db_find_candidate(d, &(symv_params){SYMV_FAMILY_ATOMIC, 128, 16, 2, 3, SYMV_DSYMV}, &again));
  cr_assert_eq(again, idd);
  OK(db_find_candidate(d, &(symv_params){SYMV_FAMILY_ATOMIC, 128, 16, 2, 3, SYMV_ZHEMV}, &again));
  cr_assert_eq(again, idz);
  cr_assert_eq(db_find_candidate(d, &(symv_params){SYMV_FAMILY_ATOMIC, 128, 16, 2, 3, SYMV_SSYMV}, &again),
               SYMV_NOT_FOUND);
  cr_assert_not_null(strstr(db_errmsg(d), "ssymv"), "%s", db_errmsg(d));
  db_candidate got;
  OK(db_get_candidate(d, idz, &got));
  cr_assert_eq(got.p.routine, SYMV_ZHEMV);
  OK(db_get_candidate(d, idd, &got));
  cr_assert_eq(got.p.routine, SYMV_DSYMV);

  /* results and timings stay with their row */
  db_candidate r = { .id = idz, .status = DB_VALID };
  OK(db_set_candidate_result(d, &r));
  r.id = idd;
  OK(db_set_candidate_result(d, &r));
  db_measurement m = timing(1000, 'L', 0, DB_STAGE_SWEEP, 7.0);
  OK(db_put_measurement(d, idd, &m));
  m = timing(1000, 'L', 0, DB_STAGE_SWEEP, 30.0);
  OK(db_put_measurement(d, idz, &m));

  db_candidate *list;
  OK(db_list_candidates(d, SYMV_ZHEMV, -1, DB_ANY_FAMILY, &list, &k));
  cr_assert(k == 1 && list[0].id == idz && list[0].p.routine == SYMV_ZHEMV);
  free(list);
  OK(db_list_candidates(d, DB_ANY_ROUTINE, -1, DB_ANY_FAMILY, &list, &k));
  cr_assert_eq(k, 3, "DB_ANY_ROUTINE: every routine");
  free(list);
  OK(db_list_candidates(d, DB_ANY_ROUTINE, DB_VALID, SYMV_FAMILY_ATOMIC, &list, &k));
  cr_assert(k == 2 && list[0].id == idz && list[1].id == idd, "valid atomic of any routine, id order");
  free(list);
  OK(db_list_candidates(d, SYMV_SSYMV, -1, DB_ANY_FAMILY, &list, &k));
  cr_assert(k == 0 && list == NULL);

  db_counts n;
  OK(db_count_candidates(d, SYMV_DSYMV, DB_ANY_FAMILY, &n));
  cr_assert(n.total == 1 && n.by_status[DB_VALID] == 1);
  OK(db_count_candidates(d, SYMV_CHEMV, DB_ANY_FAMILY, &n));
  cr_assert(n.total == 1 && n.by_status[DB_PENDING] == 1);
  OK(db_count_candidates(d, DB_ANY_ROUTINE, SYMV_FAMILY_ATOMIC, &n));
  cr_assert_eq(n.total, 2);
  OK(db_count_candidates(d, DB_ANY_ROUTINE, DB_ANY_FAMILY, &n));
  cr_assert_eq(n.total, 3);

  static const int ns[1] = { 1000 };
  db_times t;
  OK(db_time_table(d, SYMV_DSYMV, ns, 1, 'L', 0, DB_STAGE_SWEEP, &t));
  cr_assert(t.ncand == 1 && t.cand[0].id == idd && t.median_us[0] == 7.0, "dsymv's table has dsymv's timing");
  db_times_free(&t);
  OK(db_time_table(d, SYMV_ZHEMV, ns, 1, 'L', 0, DB_STAGE_SWEEP, &t));
  cr_assert(t.ncand == 1 && t.cand[0].id == idz && t.median_us[0] == 30.0);
  db_times_free(&t);
  OK(db_time_table(d, SYMV_CHEMV, ns, 1, 'L', 0, DB_STAGE_SWEEP, &t));
  cr_assert_eq(t.ncand, 0, "chemv's only candidate is pending");
  db_times_free(&t);

  /* routines with candidates, canonical order; a short array gets a prefix */
  OK(db_list_routines(d, DB_ROUTINES_CANDIDATES, names, SYMV_ROUTINE_COUNT, &k));
  cr_assert_eq(k, 3);
  cr_assert_eq(names[0], SYMV_DSYMV);
  cr_assert_eq(names[1], SYMV_CHEMV);
  cr_assert_eq(names[2], SYMV_ZHEMV);
  names[1] = SYMV_SSYMV;
  OK(db_list_routines(d, DB_ROUTINES_CANDIDATES, names, 1, &k));
  cr_assert_eq(k, 3, "the count is of all of them");
  cr_assert_eq(names[0], SYMV_DSYMV);
  cr_assert_eq(names[1], SYMV_SSYMV, "nothing past max");
  OK(db_list_routines(d, DB_ROUTINES_FITS, names, SYMV_ROUTINE_COUNT, &k));
  cr_assert_eq(k, 0, "no fits yet");
  cr_assert_eq(db_list_routines(d, (db_routines_of)7, names, SYMV_ROUTINE_COUNT, &k), SYMV_INVALID_VALUE);

  /* values that are not routines are refused, not treated as "any" */
  static const symv_routine bad[] = { SYMV_ROUTINE_COUNT + 1, (symv_routine)-1, (symv_routine)1000 };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    db_candidate b = point_of(bad[i], SYMV_FAMILY_ATOMIC, 128, 16, 2, 3);
    cr_assert_eq(db_put_candidate(d, &b, NULL), SYMV_INVALID_VALUE, "%d", (int)bad[i]);
    cr_assert_eq(db_find_candidate(d, &b.p, &again), SYMV_INVALID_VALUE);
    cr_assert_eq(db_list_candidates(d, bad[i], -1, DB_ANY_FAMILY, &list, &k), SYMV_INVALID_VALUE);
    cr_assert_eq(db_count_candidates(d, bad[i], DB_ANY_FAMILY, &n), SYMV_INVALID_VALUE);
    cr_assert_eq(db_time_table(d, bad[i], ns, 1, 'L', 0, DB_STAGE_SWEEP, &t), SYMV_INVALID_VALUE);
  }
  db_candidate any = point_of(DB_ANY_ROUTINE, SYMV_FAMILY_ATOMIC, 128, 16, 2, 3);
  cr_assert_eq(db_put_candidate(d, &any, NULL), SYMV_INVALID_VALUE, "a candidate has one routine");
  cr_assert_eq(db_find_candidate(d, &any.p, &again), SYMV_INVALID_VALUE);
  cr_assert_eq(db_time_table(d, DB_ANY_ROUTINE, ns, 1, 'L', 0, DB_STAGE_SWEEP, &t), SYMV_INVALID_VALUE);
  close_ok(d);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM candidate"), 3, "nothing bad was stored");
}

Test(db, baselines_of_two_routines_do_not_mix)
{
  char p[256];
  path_of(p, "baselines.db");
  db *d = fresh(p);
  db_measurement m = timing(2048, 'L', 0, DB_STAGE_SWEEP, 25.0);
  OK(db_put_baseline(d, SYMV_DSYMV, "cublas", &m));
  m = timing(2048, 'L', 0, DB_STAGE_SWEEP, 90.0);
  OK(db_put_baseline(d, SYMV_ZHEMV, "cublas", &m));
  int found;
  OK(db_has_baseline(d, SYMV_DSYMV, "cublas", 2048, 'L', 0, DB_STAGE_SWEEP, &found));
  cr_assert_eq(found, 1);
  OK(db_has_baseline(d, SYMV_ZHEMV, "cublas", 2048, 'L', 0, DB_STAGE_SWEEP, &found));
  cr_assert_eq(found, 1);
  OK(db_has_baseline(d, SYMV_SSYMV, "cublas", 2048, 'L', 0, DB_STAGE_SWEEP, &found));
  cr_assert_eq(found, 0);

  db_measurement *ms;
  size_t k;
  OK(db_baseline_measurements(d, SYMV_DSYMV, "cublas", DB_STAGE_SWEEP, 0, -1, &ms, &k));
  cr_assert(k == 1 && ms[0].median_us == 25.0, "dsymv's own, not replaced by zhemv's");
  free(ms);
  OK(db_baseline_measurements(d, SYMV_ZHEMV, "cublas", DB_STAGE_SWEEP, 0, -1, &ms, &k));
  cr_assert(k == 1 && ms[0].median_us == 90.0);
  free(ms);

  /* replacing one routine's timing leaves the other's */
  m = timing(2048, 'L', 0, DB_STAGE_SWEEP, 80.0);
  OK(db_put_baseline(d, SYMV_ZHEMV, "cublas", &m));
  OK(db_baseline_measurements(d, SYMV_ZHEMV, "cublas", DB_STAGE_SWEEP, 0, -1, &ms, &k));
  cr_assert(k == 1 && ms[0].median_us == 80.0);
  free(ms);
  OK(db_baseline_measurements(d, SYMV_DSYMV, "cublas", DB_STAGE_SWEEP, 0, -1, &ms, &k));
  cr_assert(k == 1 && ms[0].median_us == 25.0);
  free(ms);
  OK(db_baseline_measurements(d, SYMV_CSYMV, "cublas", DB_STAGE_SWEEP, 0, -1, &ms, &k));
  cr_assert(k == 0 && ms == NULL);

  cr_assert_eq(db_put_baseline(d, SYMV_ROUTINE_COUNT + 1, "cublas", &m), SYMV_INVALID_VALUE);
  cr_assert_eq(db_put_baseline(d, DB_ANY_ROUTINE, "cublas", &m), SYMV_INVALID_VALUE);
  cr_assert_eq(db_has_baseline(d, (symv_routine)-1, "cublas", 2048, 'L', 0, DB_STAGE_SWEEP, &found), SYMV_INVALID_VALUE);
  cr_assert_eq(db_baseline_measurements(d, DB_ANY_ROUTINE, "cublas", DB_STAGE_SWEEP, 0, -1, &ms, &k),
               SYMV_INVALID_VALUE);
  close_ok(d);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM baseline"), 2);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM baseline WHERE routine = 'zhemv' AND median_us = 80"), 1);
}

/* A valid candidate of `routine`, its id. */
static long long valid_candidate(db *d, symv_routine routine, symv_family family, int b)
{
  long long id;
  db_candidate c = point_of(routine, family, b, 8, 1, 0);
  OK(db_put_candidate(d, &c, &id));
  db_candidate r = { .id = id, .status = DB_VALID };
  OK(db_set_candidate_result(d, &r));
  return id;
}

Test(db, the_latest_fit_is_that_of_the_routine_uplo_and_hot_asked)
{
  char p[256];
  path_of(p, "latest.db");
  db *d = fresh(p);
  long long cd = valid_candidate(d, SYMV_DSYMV, SYMV_FAMILY_ATOMIC, 128);
  long long cz = valid_candidate(d, SYMV_ZHEMV, SYMV_FAMILY_ATOMIC, 128);

  /* stored in this order: each later one is newer than those it must not hide */
  static const struct { symv_routine routine; char uplo; int hot; } key[5] = {
    { SYMV_DSYMV, 'L', 0 }, { SYMV_ZHEMV, 'L', 0 }, { SYMV_DSYMV, 'L', 1 }, { SYMV_DSYMV, 'U', 0 },
    { SYMV_ZHEMV, 'U', 1 },
  };
  long long fid[5];
  for (int i = 0; i < 5; i++) {
    db_fit f = fit_of(32, 1000 + i, 0.01);
    f.routine = key[i].routine;
    f.uplo = key[i].uplo;
    f.hot = key[i].hot;
    long long cand = key[i].routine == SYMV_DSYMV ? cd : cz;
    db_rule r[2] = { rule_of(32, 500, DB_KERNEL_CANDIDATE, cand, 5), rule_of(501, 1000 + i, DB_KERNEL_CUBLAS, 0, 9) };
    OK(db_put_fit(d, &f, NULL, 0, r, 2));
    fid[i] = f.id;
  }
  close_ok(d);

  d = open_ok(p, DB_READONLY);
  for (int i = 0; i < 5; i++) {
    db_fit f;
    db_rule *r;
    size_t nr;
    OK(db_latest_fit(d, key[i].routine, key[i].uplo, key[i].hot, &f, &r, &nr, NULL, NULL));
    cr_assert_eq(f.id, fid[i], "%s %c %d: fit %lld, not %lld", symv_routine_name(key[i].routine), key[i].uplo,
                 key[i].hot, f.id, fid[i]);
    cr_assert_eq(f.routine, key[i].routine);
    cr_assert(f.uplo == key[i].uplo && f.hot == key[i].hot && f.hi == 1000 + i);
    cr_assert_eq(nr, 2);
    cr_assert_eq(r[0].cand.p.routine, key[i].routine);
    free(r);
  }
  /* none of (dsymv, U, hot) or of ssymv: NOT_FOUND, saying which */
  db_fit f;
  db_rule *r;
  size_t nr;
  cr_assert_eq(db_latest_fit(d, SYMV_DSYMV, 'U', 1, &f, &r, &nr, NULL, NULL), SYMV_NOT_FOUND);
  cr_assert_null(r);
  cr_assert_not_null(strstr(db_errmsg(d), "dsymv, uplo U, hot"), "%s", db_errmsg(d));
  cr_assert_eq(db_latest_fit(d, SYMV_SSYMV, 'L', 0, &f, &r, &nr, NULL, NULL), SYMV_NOT_FOUND);
  cr_assert_eq(db_latest_fit(d, SYMV_ROUTINE_COUNT + 1, 'L', 0, &f, &r, &nr, NULL, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(db_latest_fit(d, DB_ANY_ROUTINE, 'L', 0, &f, &r, &nr, NULL, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(db_latest_fit(d, SYMV_DSYMV, 'l', 0, &f, &r, &nr, NULL, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(db_latest_fit(d, SYMV_DSYMV, 'L', -1, &f, &r, &nr, NULL, NULL), SYMV_INVALID_VALUE);

  symv_routine names[SYMV_ROUTINE_COUNT];
  size_t k;
  OK(db_list_routines(d, DB_ROUTINES_FITS, names, SYMV_ROUTINE_COUNT, &k));
  cr_assert_eq(k, 2);
  cr_assert_eq(names[0], SYMV_DSYMV);
  cr_assert_eq(names[1], SYMV_ZHEMV);
  close_ok(d);

  /* a newer fit of a key replaces it for that key only */
  d = open_ok(p, 0);
  db_fit g = fit_of(64, 2000, 0.02);
  db_rule gr[1] = { rule_of(64, 2000, DB_KERNEL_CANDIDATE, cd, 3) };
  OK(db_put_fit(d, &g, NULL, 0, gr, 1));
  OK(db_latest_fit(d, SYMV_DSYMV, 'L', 0, &f, &r, &nr, NULL, NULL));
  cr_assert(f.id == g.id && nr == 1);
  free(r);
  OK(db_latest_fit(d, SYMV_ZHEMV, 'L', 0, &f, &r, &nr, NULL, NULL));
  cr_assert_eq(f.id, fid[1]);
  free(r);
  close_ok(d);
}

Test(db, a_fit_naming_a_candidate_of_another_routine_is_refused)
{
  char p[256];
  path_of(p, "cross.db");
  db *d = fresh(p);
  long long cd = valid_candidate(d, SYMV_DSYMV, SYMV_FAMILY_ATOMIC, 128);
  long long cz = valid_candidate(d, SYMV_ZHEMV, SYMV_FAMILY_ATOMIC, 128);

  db_fit f = fit_of(32, 1000, 0.01);  /* dsymv's */
  db_rule r[2] = { rule_of(32, 500, DB_KERNEL_CANDIDATE, cd, 5), rule_of(501, 1000, DB_KERNEL_CANDIDATE, cz, 9) };
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, r, 2), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(db_errmsg(d), "zhemv"), "%s", db_errmsg(d));
  cr_assert_not_null(strstr(db_errmsg(d), "rule 1"), "%s", db_errmsg(d));
  cr_assert_eq(f.id, 0, "not stored");

  /* a curve likewise */
  r[1] = rule_of(501, 1000, DB_KERNEL_CUBLAS, 0, 9);
  db_fit_curve cv = { .kernel = DB_KERNEL_CANDIDATE, .candidate_id = cz, .alpha = 1, .nsamples = 3 };
  cr_assert_eq(db_put_fit(d, &f, &cv, 1, r, 2), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(db_errmsg(d), "curve 0"), "%s", db_errmsg(d));

  /* the fit's routine must be one of the six */
  f.routine = SYMV_ROUTINE_COUNT + 1;
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, r, 2), SYMV_INVALID_VALUE);
  f.routine = DB_ANY_ROUTINE;
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, r, 2), SYMV_INVALID_VALUE);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM fit"), 0, "nothing was stored");
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM fit_rule"), 0);

  /* the same rules under zhemv's own candidate are fine */
  f = fit_of(32, 1000, 0.01);
  f.routine = SYMV_ZHEMV;
  r[0] = rule_of(32, 500, DB_KERNEL_CANDIDATE, cz, 5);
  cv.candidate_id = cz;
  OK(db_put_fit(d, &f, &cv, 1, r, 2));
  close_ok(d);

  /* and a file changed behind the program's back is reported on reading */
  raw_exec(p, "UPDATE candidate SET routine = 'csymv' WHERE routine = 'zhemv'");
  d = open_ok(p, DB_READONLY);
  db_rule *got;
  size_t n;
  db_fit lf;
  cr_assert_eq(db_latest_fit(d, SYMV_ZHEMV, 'L', 0, &lf, &got, &n, NULL, NULL), SYMV_DB_CORRUPT);
  cr_assert_null(got);
  cr_assert_not_null(strstr(db_errmsg(d), "csymv"), "%s", db_errmsg(d));
  close_ok(d);
}

/* ---- Migration of the shipped version 3 databases ---------------------------------- */

#ifndef SYMV_TEST_DATA
#error "SYMV_TEST_DATA (the tests/data folder) must be defined"
#endif

/* The shipped database `name` (tests/data, or $SYMV_TEST_DATA) in buf (512 bytes). */
static const char *shipped(char *buf, const char *name)
{
  const char *data = getenv("SYMV_TEST_DATA");
  snprintf(buf, 512, "%s/%s", data && *data ? data : SYMV_TEST_DATA, name);
  return buf;
}

/* A copy of the shipped database `name` at `dst` in the test's directory,
 * unpacked with xz where the name ends in .xz. */
static void copy_shipped(const char *name, const char *dst)
{
  char src[512];
  shipped(src, name);
  size_t k = strlen(name);
  if (k > 3 && !strcmp(name + k - 3, ".xz")) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "xz -dc '%s' > '%s'", src, dst);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return;
  }
  long len;
  unsigned char *b = slurp(src, &len);
  spew(dst, b, (size_t)len);
  free(b);
}

/* The version 3 file of the tests of migration: a real sweep of DSYMV
 * (17,192 candidates) on an H100, as version 3 stored it. */
#define SCHEMA3_DB "schema3-dsymv-h100.db.xz"

static sqlite3 *raw_open(const char *path, int flags)
{
  sqlite3 *c;
  cr_assert_eq(sqlite3_open_v2(path, &c, flags, NULL), SQLITE_OK, "sqlite3_open_v2 %s", path);
  return c;
}

static long long conn_int(sqlite3 *c, const char *sql)
{
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(c, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(c));
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s: no row", sql);
  long long v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* What a table holds, as the migration must keep it. */
typedef struct {
  char name[32];
  char columns[1024];        /* its columns before the migration, "a", "b", ... */
  long long rows;
  uint64_t hash;             /* FNV-1a of every value of those columns, rows in column order */
} table_state;

/* FNV-1a over the rows of `select`, each value with its type. */
static uint64_t rows_hash(sqlite3 *c, const char *select)
{
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(c, select, -1, &st, NULL), SQLITE_OK, "%s: %s", select, sqlite3_errmsg(c));
  uint64_t h = 1469598103934665603ull;
#define MIX(p, len)                                         \
  for (size_t q_ = 0; q_ < (size_t)(len); q_++) {           \
    h ^= ((const unsigned char *)(p))[q_];                  \
    h *= 1099511628211ull;                                  \
  }
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(st); i++) {
      unsigned char type = (unsigned char)sqlite3_column_type(st, i);
      MIX(&type, 1);
      if (type == SQLITE_INTEGER) {
        long long v = sqlite3_column_int64(st, i);
        MIX(&v, sizeof v);
      } else if (type == SQLITE_FLOAT) {
        double v = sqlite3_column_double(st, i);
        MIX(&v, sizeof v);
      } else if (type != SQLITE_NULL) {
        const void *b = sqlite3_column_blob(st, i);
        int len = sqlite3_column_bytes(st, i);
        MIX(&len, sizeof len);
        MIX(b, len);
      }
    }
  }
#undef MIX
  cr_assert_eq(rc, SQLITE_DONE, "%s: %s", select, sqlite3_errmsg(c));
  sqlite3_finalize(st);
  return h;
}

/* The rows and hash of table t->name over t->columns, on connection c. */
static void measure_table(sqlite3 *c, table_state *t)
{
  char sql[2300];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", t->name);
  t->rows = conn_int(c, sql);
  snprintf(sql, sizeof sql, "SELECT %s FROM \"%s\" ORDER BY %s", t->columns, t->name, t->columns);
  t->hash = rows_hash(c, sql);
}

/* Every table of the file at path (as it is now), with its columns, rows and
 * hash; *n tables. */
static void read_tables(const char *path, table_state *ts, int max, int *n)
{
  sqlite3 *c = raw_open(path, SQLITE_OPEN_READONLY);
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(c, "SELECT name FROM sqlite_master WHERE type = 'table' "
                                     "AND name NOT LIKE 'sqlite%' ORDER BY name", -1, &st, NULL), SQLITE_OK);
  *n = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    cr_assert_lt(*n, max);
    table_state *t = &ts[(*n)++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_stmt *ci;
    cr_assert_eq(sqlite3_prepare_v2(c, "SELECT group_concat('\"' || name || '\"', ', ') FROM "
                                       "pragma_table_info(?)", -1, &ci, NULL), SQLITE_OK);
    sqlite3_bind_text(ci, 1, t->name, -1, SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(ci), SQLITE_ROW);
    snprintf(t->columns, sizeof t->columns, "%s", (const char *)sqlite3_column_text(ci, 0));
    sqlite3_finalize(ci);
    measure_table(c, t);
  }
  sqlite3_finalize(st);
  sqlite3_close(c);
}

/* Store, with plain SQL in the version 3 file at path, two fits of dsymv's
 * dense samples (uplo L, cold) as a version 3 symvtune would have: an older
 * one of cuBLAS alone, and the latest, whose rules name the fastest valid
 * candidate at every 12th dense size (and cuBLAS with atomics on over one
 * interval), with their curves. The shipped sweeps have no fit. Returns the
 * latest fit's id. */
static long long add_v3_fits(const char *path)
{
  sqlite3 *c = raw_open(path, SQLITE_OPEN_READWRITE);
  int ns[256], nn = 0;
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(c, "SELECT DISTINCT n FROM measurement WHERE stage = 'dense' AND uplo = 'L' "
                                     "AND hot = 0 ORDER BY n", -1, &st, NULL), SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW && nn < 256) ns[nn++] = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  cr_assert_geq(nn, 40, "the shipped file has dense samples");
  int lo = ns[0], hi = ns[nn - 1];
  char sql[512];
  snprintf(sql, sizeof sql, "INSERT INTO fit (created, uplo, hot, lo, hi, threshold, method) VALUES "
                            "('2026-11-22T09:00:00Z', 'L', 0, %d, %d, 0.01, 'older: cuBLAS only');"
                            "INSERT INTO fit_rule VALUES (last_insert_rowid(), %d, %d, 'cublas', NULL, 50, 1);"
                            "INSERT INTO fit (created, uplo, hot, lo, hi, threshold, method) VALUES "
                            "('2026-11-22T10:00:00Z', 'L', 0, %d, %d, 0.02, 'latest');", lo, hi, lo, hi, lo, hi);
  cr_assert_eq(sqlite3_exec(c, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(c));
  long long fit = sqlite3_last_insert_rowid(c);
  int nrules = 0, seq = 0;
  for (int i = 0; i < nn; i += 12) {
    int start = i == 0 ? lo : ns[i], end = i + 12 < nn ? ns[i + 12] - 1 : hi;
    long long cand = 0;
    double us = 0;
    cr_assert_eq(sqlite3_prepare_v2(c, "SELECT m.candidate_id, m.median_us FROM measurement AS m JOIN candidate AS c "
                                       "ON c.id = m.candidate_id WHERE c.status = 'valid' AND m.stage = 'dense' "
                                       "AND m.uplo = 'L' AND m.hot = 0 AND m.n = ? ORDER BY m.median_us, "
                                       "m.candidate_id LIMIT 1", -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_int(st, 1, ns[i]);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "a candidate sampled at n %d", ns[i]);
    cand = sqlite3_column_int64(st, 0);
    us = sqlite3_column_double(st, 1);
    sqlite3_finalize(st);
    if (nrules == 2) {
      snprintf(sql, sizeof sql, "INSERT INTO fit_rule VALUES (%lld, %d, %d, 'cublas_atomics', NULL, %.17g, 0.95)",
               fit, start, end, 1.05 * us);
    } else {
      snprintf(sql, sizeof sql, "INSERT INTO fit_rule VALUES (%lld, %d, %d, 'candidate', %lld, %.17g, %.17g);"
                                "INSERT INTO fit_curve VALUES (%lld, %d, 'candidate', %lld, %.17g, 12, 0.01)",
               fit, start, end, cand, us, 1.0 + 0.01 * nrules, fit, seq, cand, 1.5 + seq);
      seq++;
    }
    cr_assert_eq(sqlite3_exec(c, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(c));
    nrules++;
  }
  snprintf(sql, sizeof sql, "INSERT INTO fit_curve VALUES (%lld, %d, 'cublas', NULL, 700, 74, 0.02)", fit, seq);
  cr_assert_eq(sqlite3_exec(c, sql, NULL, NULL, NULL), SQLITE_OK);
  cr_assert_geq(nrules, 4);
  cr_assert_eq(sqlite3_close(c), SQLITE_OK);
  return fit;
}

/* A rule as plain SQL reads it from a version 3 file. */
typedef struct {
  int n_start, n_end;
  char kernel[24];
  long long cand;
  char family[16];
  int block_size, ux, multiplicity, mx;
  double predicted_us, predicted_gain;
} raw_rule;

static int raw_rules(const char *path, long long fit, raw_rule *r, int max)
{
  sqlite3 *c = raw_open(path, SQLITE_OPEN_READONLY);
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(c, "SELECT r.n_start, r.n_end, r.kernel, r.candidate_id, c.family, c.block_size, "
                                     "c.ux, c.multiplicity, c.mx, r.predicted_us, r.predicted_gain FROM fit_rule AS r "
                                     "LEFT JOIN candidate AS c ON c.id = r.candidate_id WHERE r.fit_id = ? "
                                     "ORDER BY r.n_start", -1, &st, NULL), SQLITE_OK);
  sqlite3_bind_int64(st, 1, fit);
  int n = 0;
  while (sqlite3_step(st) == SQLITE_ROW && n < max) {
    raw_rule *x = &r[n++];
    memset(x, 0, sizeof *x);
    x->n_start = sqlite3_column_int(st, 0);
    x->n_end = sqlite3_column_int(st, 1);
    snprintf(x->kernel, sizeof x->kernel, "%s", (const char *)sqlite3_column_text(st, 2));
    x->cand = sqlite3_column_int64(st, 3);
    if (x->cand) snprintf(x->family, sizeof x->family, "%s", (const char *)sqlite3_column_text(st, 4));
    x->block_size = sqlite3_column_int(st, 5);
    x->ux = sqlite3_column_int(st, 6);
    x->multiplicity = sqlite3_column_int(st, 7);
    x->mx = sqlite3_column_int(st, 8);
    x->predicted_us = sqlite3_column_double(st, 9);
    x->predicted_gain = sqlite3_column_double(st, 10);
  }
  sqlite3_finalize(st);
  sqlite3_close(c);
  return n;
}

static void migrate_shipped(const char *name)
{
  char p[256];
  path_of(p, name);
  copy_shipped(name, p);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), 3, "%s is a version 3 file", name);
  long long fit = add_v3_fits(p);

  table_state before[16], after[16];
  int nb, na;
  read_tables(p, before, 16, &nb);
  cr_assert_eq(nb, 8, "the eight tables of version 3");
  for (int i = 0; i < nb; i++)
    cr_assert_gt(before[i].rows, 0, "%s: table %s has rows to keep", name, before[i].name);
  raw_rule rules[64];
  int nr = raw_rules(p, fit, rules, 64);
  cr_assert_geq(nr, 4);

  db *d = open_ok(p, 0);  /* migrates */
  close_ok(d);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), DB_SCHEMA_VERSION);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM fit WHERE atomics <> 'any'"), 0, "old fits are of class 'any'");

  /* every table: the same rows, the same values in its old columns (ids
   * included), as many rows */
  read_tables(p, after, 16, &na);
  /* version 6 adds the two validation tables, version 7 the two bench
   * tables, all empty; none other is added or lost */
  int added = 0;
  for (int i = 0; i < na; i++)
    if (!strcmp(after[i].name, "validation_run") || !strcmp(after[i].name, "validation_time") ||
        !strcmp(after[i].name, "bench_run") || !strcmp(after[i].name, "bench_result")) {
      cr_assert_eq(after[i].rows, 0, "%s: %s has rows", name, after[i].name);
      memmove(&after[i], &after[i + 1], sizeof *after * (size_t)(na - i - 1));
      na--, i--, added++;
    }
  cr_assert_eq(added, 4, "the validation tables of version 6 and the bench tables of version 7");
  cr_assert_eq(na, nb, "no table added or lost");
  sqlite3 *c = raw_open(p, SQLITE_OPEN_READONLY);
  for (int i = 0; i < nb; i++) {
    cr_assert_str_eq(after[i].name, before[i].name);
    table_state t = before[i];
    measure_table(c, &t);  /* the old columns, read from the migrated file */
    cr_log_info("%s: table %s: %lld rows before, %lld after", name, t.name, before[i].rows, t.rows);
    cr_assert_eq(t.rows, before[i].rows, "%s: table %s: %lld rows, %lld before", name, t.name, t.rows,
                 before[i].rows);
    cr_assert_eq(t.hash, before[i].hash, "%s: table %s: its values changed", name, t.name);
  }
  cr_assert_eq(conn_int(c, "SELECT count(*) FROM candidate WHERE routine IS NOT 'dsymv'"), 0);
  cr_assert_eq(conn_int(c, "SELECT count(*) FROM baseline WHERE routine IS NOT 'dsymv'"), 0);
  cr_assert_eq(conn_int(c, "SELECT count(*) FROM fit WHERE routine IS NOT 'dsymv'"), 0);
  cr_assert_gt(conn_int(c, "SELECT count(*) FROM candidate"), 10000);
  cr_assert_eq(conn_int(c, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(c, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
  cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
  sqlite3_finalize(st);
  /* the new keys are the unique ones */
  cr_assert_eq(conn_int(c, "SELECT count(*) FROM pragma_index_list('candidate') AS l WHERE l.\"unique\" AND "
                           "(SELECT group_concat(name) FROM pragma_index_info(l.name)) = "
                           "'routine,family,block_size,ux,multiplicity,mx'"), 1);
  sqlite3_close(c);

  /* the latest fit's rules, read through the API, are those plain SQL read */
  d = open_ok(p, DB_READONLY);
  db_fit f;
  db_rule *r;
  size_t n;
  OK(db_latest_fit(d, SYMV_DSYMV, 'L', 0, &f, &r, &n, NULL, NULL));
  cr_assert_eq(f.id, fit);
  cr_assert_str_eq(f.method, "latest");
  cr_assert_eq(n, (size_t)nr);
  for (int i = 0; i < nr; i++) {
    cr_assert(r[i].n_start == rules[i].n_start && r[i].n_end == rules[i].n_end, "%s rule %d", name, i);
    cr_assert_str_eq(r[i].kernel, rules[i].kernel);
    cr_assert(r[i].predicted_us == rules[i].predicted_us && r[i].predicted_gain == rules[i].predicted_gain,
              "%s rule %d: predicted times", name, i);
    cr_assert_eq(r[i].cand.id, rules[i].cand, "%s rule %d: candidate id", name, i);
    if (rules[i].cand) {
      cr_assert_eq(r[i].cand.p.routine, SYMV_DSYMV);
      cr_assert_str_eq(symv_family_name(r[i].cand.p.family), rules[i].family);
      cr_assert(r[i].cand.p.block_size == rules[i].block_size && r[i].cand.p.ux == rules[i].ux &&
                r[i].cand.p.multiplicity == rules[i].multiplicity && r[i].cand.p.mx == rules[i].mx &&
                r[i].cand.status == DB_VALID, "%s rule %d: candidate parameters", name, i);
    }
  }
  free(r);
  close_ok(d);
}

Test(db, a_version_3_sweep_migrates_losing_nothing) { migrate_shipped(SCHEMA3_DB); }

Test(db, a_failed_migration_leaves_the_file_as_it_was)
{
  /* A timing of a candidate that is not there (written with foreign keys
   * off, as damage would): the migration rebuilds the tables, then PRAGMA
   * foreign_key_check finds it, and everything is rolled back. A real sweep
   * file (6 MB), so that the rebuild is not a small one. */
  char p[256], journal[300];
  path_of(p, "dangling.db");
  copy_shipped(SCHEMA3_DB, p);
  raw_exec(p, "INSERT INTO measurement VALUES (99999999, 'sweep', 1000, 'L', 0, 5.0, 4.9, 5.1,"
              " 11, 20, 400.0, 800.0, 0.1);");
  assert_refused(p, 0, SYMV_DB_CORRUPT, "foreign_key_check");
  assert_refused(p, DB_READONLY, SYMV_DB_CORRUPT, "foreign_key_check");
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), 3);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM sqlite_master WHERE sql LIKE '%routine%'"), 0);
  snprintf(journal, sizeof journal, "%s-journal", p);
  cr_assert_eq(access(journal, F_OK), -1, "no journal left behind");

  /* repaired, it migrates */
  raw_exec(p, "DELETE FROM measurement WHERE candidate_id = 99999999");
  close_ok(open_ok(p, 0));
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), DB_SCHEMA_VERSION);
}

Test(db, indexes_triggers_and_views_survive_the_rebuild)
{
  static const char *const objects[4] = {
    "CREATE INDEX candidate_regs ON candidate (regs_per_thread)",
    "CREATE INDEX baseline_median ON baseline (median_us)",
    "CREATE VIEW valid_candidate AS SELECT id, family FROM candidate WHERE status = 'valid'",
    "CREATE TRIGGER fit_kept BEFORE DELETE ON fit BEGIN SELECT RAISE(ABORT, 'fits are kept'); END",
  };
  char p[256];
  path_of(p, "objects.db");
  copy_shipped(SCHEMA3_DB, p);
  for (int i = 0; i < 4; i++) raw_exec(p, objects[i]);
  long long valid = raw_int(p, "SELECT count(*) FROM candidate WHERE status = 'valid'");
  close_ok(open_ok(p, 0));
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), DB_SCHEMA_VERSION);
  sqlite3 *c = raw_open(p, SQLITE_OPEN_READWRITE);
  for (int i = 0; i < 4; i++) {
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(c, "SELECT count(*) FROM sqlite_master WHERE sql = ?", -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, objects[i], -1, SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int(st, 0), 1, "kept: %s", objects[i]);
    sqlite3_finalize(st);
  }
  cr_assert_eq(conn_int(c, "SELECT count(*) FROM valid_candidate"), valid);
  cr_assert_eq(conn_int(c, "SELECT count(*) FROM pragma_index_list('candidate') WHERE name = 'candidate_regs'"), 1);
  cr_assert_eq(sqlite3_exec(c, "INSERT INTO fit (routine, created, uplo, hot, lo, hi, threshold) VALUES "
                               "('dsymv', 'now', 'L', 0, 1, 2, 0)", NULL, NULL, NULL), SQLITE_OK);
  cr_assert_neq(sqlite3_exec(c, "DELETE FROM fit", NULL, NULL, NULL), SQLITE_OK, "the trigger works");
  cr_assert_str_eq(sqlite3_errmsg(c), "fits are kept");
  sqlite3_close(c);
}

Test(db, a_read_only_open_of_a_version_3_file_sees_its_wal)
{
  /* Another process has committed to the file's WAL and not checkpointed:
   * the copy a read-only open migrates must hold that too. */
  char p[256];
  path_of(p, "wal3.db");
  copy_shipped(SCHEMA3_DB, p);
  sqlite3 *w = raw_open(p, SQLITE_OPEN_READWRITE);
  cr_assert_eq(sqlite3_exec(w, "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;"
                               "UPDATE candidate SET detail = 'in the wal' WHERE id = 1", NULL, NULL, NULL),
               SQLITE_OK, "%s", sqlite3_errmsg(w));
  long len0, len1;
  unsigned char *before = slurp(p, &len0);
  db *d = open_ok(p, DB_READONLY);
  db_candidate c;
  OK(db_get_candidate(d, 1, &c));
  cr_assert_str_eq(c.detail, "in the wal");
  cr_assert_eq(c.p.routine, SYMV_DSYMV);
  db_counts n;
  OK(db_count_candidates(d, SYMV_DSYMV, DB_ANY_FAMILY, &n));
  cr_assert_eq(n.total, 17192);
  close_ok(d);
  unsigned char *after = slurp(p, &len1);
  cr_assert(len0 == len1 && memcmp(before, after, len0) == 0, "the file was written");
  free(before);
  free(after);
  cr_assert_eq(sqlite3_close(w), SQLITE_OK);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), 3);
}

/* ---- Integers read whole ------------------------------------------------------ */

/* A small database with one candidate, its timing, a baseline and a fit
 * whose rules name it, for the tampering below. */
static void make_small(const char *p)
{
  db *d = fresh(p);
  long long id;
  db_candidate c = point(SYMV_FAMILY_ATOMIC, 128, 16, 2, 3);
  OK(db_put_candidate(d, &c, &id));
  c.id = id, c.status = DB_VALID, c.regs_per_thread = 40;
  OK(db_set_candidate_result(d, &c));
  db_measurement m = timing(1024, 'L', 0, DB_STAGE_SWEEP, 10.0);
  OK(db_put_measurement(d, id, &m));
  OK(db_put_baseline(d, SYMV_DSYMV, "cublas", &m));
  db_fit f = fit_of(32, 4096, 0.01);
  db_fit_curve cv = { .kernel = DB_KERNEL_CANDIDATE, .candidate_id = id, .alpha = 1, .nsamples = 9, .rms_rel = 0.01 };
  db_rule r[2] = { rule_of(32, 1000, DB_KERNEL_CUBLAS, 0, 5.0), rule_of(1001, 4096, DB_KERNEL_CANDIDATE, id, 9.0) };
  OK(db_put_fit(d, &f, &cv, 1, r, 2));
  db_shard sh = { .routine = SYMV_DSYMV, .space = "0123456789abcdef", .k = 0, .n = 2, .candidates = 1,
                  .space_size = 2, .sizes = "1024", .uplo = 'L', .hot = 0 };
  OK(db_put_shard(d, &sh));
  close_ok(d);
}

/* Runs every reader on the file (read-only); the first failure's status,
 * its message in msg. */
static int read_everything(const char *p, char *msg, size_t len)
{
  db *d = NULL;
  int rc = db_open(&d, p, DB_READONLY);
  db_device g;
  db_candidate *cl = NULL;
  db_measurement *ml = NULL, *bl = NULL;
  size_t nc = 0, nm = 0, nb = 0, nr = 0, ncv = 0;
  db_fit f;
  db_rule *r = NULL;
  db_fit_curve *cv = NULL;
  db_times t = {0};
  db_shard *sh = NULL;
  size_t nsh = 0, nro = 0;
  symv_routine ro[SYMV_ROUTINE_COUNT];
  const int ns[1] = {1024};
  if (!rc) rc = db_get_device(d, &g);
  if (!rc) rc = db_list_routines(d, DB_ROUTINES_CANDIDATES, ro, SYMV_ROUTINE_COUNT, &nro);
  if (!rc) rc = db_list_routines(d, DB_ROUTINES_FITS, ro, SYMV_ROUTINE_COUNT, &nro);
  if (!rc) rc = db_list_shards(d, DB_ANY_ROUTINE, &sh, &nsh);
  if (!rc) rc = db_list_candidates(d, DB_ANY_ROUTINE, -1, DB_ANY_FAMILY, &cl, &nc);
  if (!rc) rc = db_candidate_measurements(d, cl[0].id, DB_STAGE_SWEEP, 'L', 0, &ml, &nm);
  if (!rc) rc = db_baseline_measurements(d, SYMV_DSYMV, "cublas", DB_STAGE_SWEEP, 'L', 0, &bl, &nb);
  if (!rc) rc = db_time_table(d, SYMV_DSYMV, ns, 1, 'L', 0, DB_STAGE_SWEEP, &t);
  if (!rc) rc = db_latest_fit(d, SYMV_DSYMV, 'L', 0, &f, &r, &nr, &cv, &ncv);
  snprintf(msg, len, "%s", rc ? db_errmsg(d) : "");
  free(cl), free(ml), free(bl), free(r), free(cv), free(sh);
  db_times_free(&t);
  db_close(d);
  return rc;
}

/* One change made to make_small's file behind the program's back, and
 * what the refusal of the readers must say. */
typedef struct {
  const char *sql, *expect;
} tamper_case;

/* Each case on a fresh copy of make_small's file, `prefix` run before its
 * SQL: every reader refuses the file as SYMV_DB_CORRUPT, naming the value. */
static void expect_tampered_refused(const tamper_case *cases, size_t n, const char *prefix)
{
  char good[256], p[256], msg[1024], sql[512];
  make_small(path_of(good, "small.db"));
  cr_assert_eq(read_everything(good, msg, sizeof msg), 0, "the untampered file: %s", msg);
  long len;
  unsigned char *bytes = slurp(good, &len);
  for (size_t i = 0; i < n; i++) {
    spew(path_of(p, "tampered.db"), bytes, (size_t)len);
    snprintf(sql, sizeof sql, "%s%s", prefix, cases[i].sql);
    raw_exec(p, sql);
    int rc = read_everything(p, msg, sizeof msg);
    cr_expect_eq(rc, SYMV_DB_CORRUPT, "%s: %s (%s)", cases[i].sql, symv_errname(rc), msg);
    cr_expect_not_null(strstr(msg, cases[i].expect), "%s: '%s' does not say '%s'", cases[i].sql, msg,
                       cases[i].expect);
  }
  free(bytes);
}

/* Values that an int would cut to a plausible one (2^32 + 128 reads as 128),
 * values past the limits the tool uses, and values of another type: each a
 * damaged database, named in the refusal. */
Test(db, integers_are_read_whole_and_checked_against_the_limits)
{
  static const tamper_case cases[] = {
    {"UPDATE candidate SET block_size = 4294967424", "BLOCK_SIZE is 4294967424"},
    {"UPDATE candidate SET ux = 16.5", "UX is a real number"},
    {"UPDATE candidate SET mx = 'x3'", "MX is text"},
    {"UPDATE candidate SET multiplicity = 65", "MULTIPLICITY is 65"},
    {"UPDATE candidate SET regs_per_thread = 4294967336", "regs_per_thread is 4294967336"},
    {"UPDATE candidate SET attempts = -1", "attempts is -1"},
    {"UPDATE measurement SET n = 4294968320", "n is 4294968320"},
    {"UPDATE measurement SET batches = 4294967307", "batches is 4294967307"},
    {"UPDATE baseline SET calls_per_batch = x'00'", "calls_per_batch is a blob"},
    {"UPDATE fit SET hi = 4294999999; UPDATE fit_rule SET n_end = 4294999999 WHERE n_start = 1001", "hi is 4294999999"},
    {"UPDATE fit SET lo = 2147483648, hi = 2147483648; DELETE FROM fit_rule WHERE n_start = 32;"
     "UPDATE fit_rule SET n_start = 2147483648, n_end = 2147483648", "lo is 2147483648"},
    {"UPDATE fit_rule SET n_start = 4294967328, n_end = 4294968296 WHERE n_start = 32", "n_start is 4294967328"},
    {"UPDATE fit_curve SET nsamples = 4294967305", "nsamples is 4294967305"},
    {"UPDATE device SET sm_count = 4294967428", "sm_count is 4294967428"},
    {"UPDATE device SET l2_bytes = 'big'", "l2_bytes is text"},
  };
  expect_tampered_refused(cases, sizeof cases / sizeof *cases, "");
}

/* A routine or family name this program does not know, in any table that
 * holds one: a database of another program or a damaged one, refused with
 * the name (the CHECK of the schema is bypassed as a foreign writer could). */
Test(db, unknown_routine_and_family_names_are_a_foreign_or_damaged_database)
{
  static const tamper_case cases[] = {
    {"INSERT INTO candidate (routine, family, block_size, ux, multiplicity, mx) "
     "VALUES ('qsymv', 'atomic', 64, 8, 1, 0)", "routine 'qsymv'"},
    {"UPDATE candidate SET routine = 'DSYMV'", "routine 'DSYMV'"},
    {"UPDATE fit SET routine = 'dsymm'", "routine 'dsymm'"},
    {"UPDATE shard SET routine = 'zhemv '", "routine 'zhemv '"},
    {"UPDATE candidate SET family = 'atomics'", "family 'atomics'"},
    {"UPDATE candidate SET family = 'Atomic'", "family 'Atomic'"},
    {"UPDATE candidate SET family = ''", "family ''"},
  };
  expect_tampered_refused(cases, sizeof cases / sizeof *cases, "PRAGMA ignore_check_constraints = ON; ");
}

/* The writers refuse what the readers would refuse. */
Test(db, writers_refuse_values_past_the_limits)
{
  char p[256];
  db *d = fresh(path_of(p, "limits.db"));
  db_candidate c = point(SYMV_FAMILY_ATOMIC, 2048, 16, 2, 3);
  cr_assert_eq(db_put_candidate(d, &c, NULL), SYMV_INVALID_VALUE);
  c = point(SYMV_FAMILY_ATOMIC, 128, SYMV_UX_MAX + 1, 2, 3);
  cr_assert_eq(db_put_candidate(d, &c, NULL), SYMV_INVALID_VALUE);
  c = point(SYMV_FAMILY_ATOMIC, 128, 16, 2, 10);
  cr_assert_eq(db_put_candidate(d, &c, NULL), SYMV_INVALID_VALUE);
  c = point(SYMV_FAMILY_ATOMIC, 128, 16, 2, 3);
  long long id;
  OK(db_put_candidate(d, &c, &id));
  db_measurement m = timing(DB_N_MAX + 1, 'L', 0, DB_STAGE_SWEEP, 10.0);
  cr_assert_eq(db_put_measurement(d, id, &m), SYMV_INVALID_VALUE);
  db_fit f = fit_of(32, DB_N_MAX + 1, 0.01);
  db_rule r = rule_of(32, DB_N_MAX + 1, DB_KERNEL_CUBLAS, 0, 5.0);
  cr_assert_eq(db_put_fit(d, &f, NULL, 0, &r, 1), SYMV_INVALID_VALUE);
  close_ok(d);
}

/* A dsymv candidate of the given parameters, stored and marked valid; its id. */
static long long valid_point(db *d, symv_family family, int b, int ux, int m, int mx)
{
  db_candidate c = point(family, b, ux, m, mx);
  long long id;
  OK(db_put_candidate(d, &c, &id));
  c.id = id, c.status = DB_VALID;
  OK(db_set_candidate_result(d, &c));
  return id;
}

/* Schema 5: a fit's atomics class. A deterministic fit names only cuBLAS
 * with atomics off and candidates of deterministic families, on writing and
 * on reading (a file edited to say otherwise is corrupt); each class has its
 * own latest fit. */
Test(db, deterministic_fits_name_only_reproducible_kernels)
{
  char p[256];
  path_of(p, "det.db");
  db *d = fresh(p);
  long long id[3];
  const symv_family fam[3] = { SYMV_FAMILY_LU, SYMV_FAMILY_PIPE, SYMV_FAMILY_PANEL };
  for (int i = 0; i < 3; i++) id[i] = valid_point(d, fam[i], 128, 2 + 2 * i, 1, 0);
  db_fit any = fit_of(32, 9000, 0.01);
  db_rule ar[2] = { rule_of(32, 4000, DB_KERNEL_CANDIDATE, id[1], 5),
                    rule_of(4001, 9000, DB_KERNEL_CUBLAS_ATOMICS, 0, 300) };
  OK(db_put_fit(d, &any, NULL, 0, ar, 2));

  db_fit det = fit_of(32, 9000, 0.01);
  det.deterministic = 1;
  db_rule bad[2] = { rule_of(32, 4000, DB_KERNEL_CANDIDATE, id[1], 5), rule_of(4001, 9000, DB_KERNEL_CUBLAS, 0, 300) };
  cr_assert_eq(db_put_fit(d, &det, NULL, 0, bad, 2), SYMV_INVALID_VALUE, "a pipe rule in a deterministic fit");
  cr_assert_not_null(strstr(db_errmsg(d), "bitwise"), "%s", db_errmsg(d));
  bad[0] = rule_of(32, 4000, DB_KERNEL_CANDIDATE, id[0], 5);
  bad[1] = rule_of(4001, 9000, DB_KERNEL_CUBLAS_ATOMICS, 0, 300);
  cr_assert_eq(db_put_fit(d, &det, NULL, 0, bad, 2), SYMV_INVALID_VALUE, "cuBLAS with atomics in a deterministic fit");
  db_fit_curve cv = { .kernel = DB_KERNEL_CANDIDATE, .candidate_id = id[1], .alpha = 3, .nsamples = 9, .rms_rel = 0 };
  db_rule dr[3] = { rule_of(32, 700, DB_KERNEL_CANDIDATE, id[2], 3), rule_of(701, 3000, DB_KERNEL_CANDIDATE, id[0], 9),
                    rule_of(3001, 9000, DB_KERNEL_CUBLAS, 0, 300) };
  cr_assert_eq(db_put_fit(d, &det, &cv, 1, dr, 3), SYMV_INVALID_VALUE, "a pipe curve in a deterministic fit");
  OK(db_put_fit(d, &det, NULL, 0, dr, 3));
  cr_assert_gt(det.id, any.id);
  close_ok(d);

  /* each class's latest, whatever the other's age */
  d = open_ok(p, DB_READONLY);
  db_fit f;
  db_rule *r;
  size_t nr;
  OK(db_latest_fit(d, SYMV_DSYMV, 'L', 0, &f, &r, &nr, NULL, NULL));
  cr_assert(f.id == any.id && !f.deterministic && nr == 2 && r[0].cand.p.family == SYMV_FAMILY_PIPE);
  free(r);
  OK(db_latest_fit_class(d, SYMV_DSYMV, 'L', 0, 1, &f, &r, &nr, NULL, NULL));
  cr_assert(f.id == det.id && f.deterministic && nr == 3);
  cr_assert_eq(r[0].cand.p.family, SYMV_FAMILY_PANEL);
  cr_assert_eq(r[1].cand.p.family, SYMV_FAMILY_LU);
  cr_assert_str_eq(r[2].kernel, DB_KERNEL_CUBLAS);
  free(r);
  cr_assert_eq(db_latest_fit_class(d, SYMV_DSYMV, 'U', 0, 1, &f, &r, &nr, NULL, NULL), SYMV_NOT_FOUND);
  cr_assert_not_null(strstr(db_errmsg(d), "deterministic"), "%s", db_errmsg(d));
  close_ok(d);

  /* the view for people: each class's latest rules, kernels by name */
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM v_rules WHERE latest AND atomics = 'deterministic'"), 3);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM v_rules WHERE latest AND atomics = 'any' AND kernel LIKE 'pipe:128,%'"), 1);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM v_rules WHERE kernel = 'cuBLAS-atomics'"), 1);

  /* a file edited so that a deterministic rule names pipe is refused */
  char sql[256];
  snprintf(sql, sizeof sql, "UPDATE fit_rule SET candidate_id = %lld WHERE fit_id = %lld AND n_start = 701", id[1], det.id);
  raw_exec(p, sql);
  d = open_ok(p, DB_READONLY);
  cr_assert_eq(db_latest_fit_class(d, SYMV_DSYMV, 'L', 0, 1, &f, &r, &nr, NULL, NULL), SYMV_DB_CORRUPT);
  cr_assert_null(r);
  cr_assert_not_null(strstr(db_errmsg(d), "not bitwise reproducible"), "%s", db_errmsg(d));
  close_ok(d);
  /* and the schema itself holds the class to its two values */
  raw_exec(p, "PRAGMA journal_mode = DELETE");
  sqlite3 *c = raw_open(p, SQLITE_OPEN_READWRITE);
  cr_assert_neq(sqlite3_exec(c, "UPDATE fit SET atomics = 'some'", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(c);
}

/* pipe_det, pipe's deterministic twin, may appear in a deterministic fit,
 * its rules and its curves, with no change of schema; pipe may not. */
Test(db, pipe_det_is_a_deterministic_kernel)
{
  cr_assert(db_kernel_deterministic(DB_KERNEL_CANDIDATE, SYMV_FAMILY_PIPE_DET));
  cr_assert_not(db_kernel_deterministic(DB_KERNEL_CANDIDATE, SYMV_FAMILY_PIPE));
  cr_assert_not(db_kernel_deterministic(DB_KERNEL_CANDIDATE, DB_ANY_FAMILY));
  cr_assert_not(db_kernel_deterministic(DB_KERNEL_CANDIDATE, (symv_family)-1));
  cr_assert_not(db_kernel_deterministic(DB_KERNEL_CUBLAS_ATOMICS, SYMV_FAMILY_PIPE_DET));
  cr_assert(db_kernel_deterministic(DB_KERNEL_CUBLAS, DB_ANY_FAMILY), "cuBLAS without atomics: no family read");
  char p[256];
  path_of(p, "pipe_det.db");
  db *d = fresh(p);
  const long long lu = valid_point(d, SYMV_FAMILY_LU, 128, 4, 1, 0), pd = valid_point(d, SYMV_FAMILY_PIPE_DET, 256, 64, 2, 0),
                  pipe = valid_point(d, SYMV_FAMILY_PIPE, 256, 64, 2, 0);
  db_fit det = fit_of(32, 9000, 0.01);
  det.deterministic = 1;
  db_fit_curve cv[2] = { { .kernel = DB_KERNEL_CANDIDATE, .candidate_id = lu, .alpha = 3, .nsamples = 9 },
                         { .kernel = DB_KERNEL_CANDIDATE, .candidate_id = pd, .alpha = 3, .nsamples = 9 } };
  db_rule r[3] = { rule_of(32, 700, DB_KERNEL_CANDIDATE, lu, 3), rule_of(701, 8000, DB_KERNEL_CANDIDATE, pd, 9),
                   rule_of(8001, 9000, DB_KERNEL_CUBLAS, 0, 300) };
  OK(db_put_fit(d, &det, cv, 2, r, 3));
  r[1] = rule_of(701, 8000, DB_KERNEL_CANDIDATE, pipe, 9);
  db_fit bad = det;
  cr_assert_eq(db_put_fit(d, &bad, NULL, 0, r, 3), SYMV_INVALID_VALUE, "pipe in a deterministic fit");
  close_ok(d);
  d = open_ok(p, DB_READONLY);
  db_fit f;
  db_rule *got;
  size_t nr;
  OK(db_latest_fit_class(d, SYMV_DSYMV, 'L', 0, 1, &f, &got, &nr, NULL, NULL));
  cr_assert(f.id == det.id && f.deterministic && nr == 3);
  cr_assert_eq(got[1].cand.p.family, SYMV_FAMILY_PIPE_DET);
  cr_assert_eq(got[1].cand.id, pd);
  free(got);
  close_ok(d);
}

/* Schema 6: a validation run and its times, stored whole or not at all. */
Test(db, validation_runs_are_stored_and_checked)
{
  char p[256];
  path_of(p, "val.db");
  db *d = fresh(p);
  const long long cid = valid_point(d, SYMV_FAMILY_LU, 128, 4, 1, 0);
  db_fit f = fit_of(32, 9000, 0.01);
  db_rule r[1] = { rule_of(32, 9000, DB_KERNEL_CANDIDATE, cid, 5) };
  OK(db_put_fit(d, &f, NULL, 0, r, 1));
  db_validation v = { .fit_id = f.id, .seed = 18446744073709551615ull, .regret_median = 1.0, .regret_p90 = 1.02,
                      .regret_max = 1.1 };
  db_validation_time t[3] = {
    { .n = 100, .kernel = DB_KERNEL_CANDIDATE, .candidate_id = cid, .median_us = 3.5, .predicted_us = 3.4, .chosen = 1 },
    { .n = 100, .kernel = DB_KERNEL_CUBLAS, .median_us = 5.25, .predicted_us = NAN, .chosen = 0 },
    { .n = 7000, .kernel = DB_KERNEL_CUBLAS_ATOMICS, .median_us = 90, .predicted_us = 88, .chosen = 0 },
  };
  OK(db_put_validation(d, &v, t, 3));
  cr_assert_gt(v.id, 0);
  /* refusals leave nothing */
  db_validation bad = v;
  bad.regret_p90 = 0.9;
  cr_assert_eq(db_put_validation(d, &bad, t, 3), SYMV_INVALID_VALUE, "regrets out of order");
  bad = v;
  bad.fit_id = f.id + 100;
  cr_assert_eq(db_put_validation(d, &bad, t, 3), SYMV_NOT_FOUND, "a run of no fit");
  db_validation_time bt = t[0];
  bt.candidate_id = 0;
  cr_assert_eq(db_put_validation(d, &v, &bt, 1), SYMV_INVALID_VALUE, "a candidate time without a candidate");
  bt = t[1];
  snprintf(bt.kernel, sizeof bt.kernel, "magma");
  cr_assert_eq(db_put_validation(d, &v, &bt, 1), SYMV_INVALID_VALUE, "an unknown kernel");
  bt = t[1];
  bt.median_us = 0;
  cr_assert_eq(db_put_validation(d, &v, &bt, 1), SYMV_INVALID_VALUE, "a time of 0");
  close_ok(d);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM validation_run"), 1);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM validation_time"), 3);
  cr_assert_eq(raw_int(p, "SELECT seed FROM validation_run"), -1, "the seed's 64 bits, stored as SQLite's integer");
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM validation_time WHERE predicted_us IS NULL"), 1);
  cr_assert_eq(raw_int(p, "SELECT sum(chosen) FROM validation_time"), 1);
}

/* The run `validate --replay` judges a rule set by: the latest of a fit of
 * the same atomics class, else the latest of the other class; a run of
 * another routine or uplo is never taken. */
Test(db, the_replayed_run_is_the_latest_of_the_same_rule_set)
{
  char p[256];
  path_of(p, "replay.db");
  db *d = fresh(p);
  const long long lu = valid_point(d, SYMV_FAMILY_LU, 128, 4, 1, 0);
  db_fit any = fit_of(32, 9000, 0.01), det = fit_of(32, 9000, 0.01), upper = fit_of(32, 9000, 0.01);
  det.deterministic = 1;
  upper.uplo = 'U';
  db_rule r[1] = { rule_of(32, 9000, DB_KERNEL_CANDIDATE, lu, 5) };
  OK(db_put_fit(d, &any, NULL, 0, r, 1));
  OK(db_put_fit(d, &det, NULL, 0, r, 1));
  OK(db_put_fit(d, &upper, NULL, 0, r, 1));
  db_validation_time t = { .n = 100, .kernel = DB_KERNEL_CANDIDATE, .candidate_id = lu, .median_us = 3.5,
                           .predicted_us = 3.4, .chosen = 1 };
  db_validation got;
  db_validation_time *vt = NULL;
  size_t nvt = 0;
  /* only a deterministic run: both rule sets take it */
  db_validation vd1 = { .fit_id = det.id, .seed = 1, .regret_median = 1, .regret_p90 = 1, .regret_max = 1 };
  OK(db_put_validation(d, &vd1, &t, 1));
  for (int cls = 0; cls < 2; cls++) {
    OK(db_latest_validation_of(d, SYMV_DSYMV, 'L', 0, cls, &got, &vt, &nvt));
    cr_expect_eq(got.id, vd1.id, "class %d: the only run", cls);
    free(vt);
  }
  /* a run of the any rules, then a later deterministic one, then a later run on uplo U */
  db_validation va = vd1, vd2 = vd1, vu = vd1;
  va.fit_id = any.id, va.seed = 2;
  vd2.seed = 3;
  vu.fit_id = upper.id, vu.seed = 4;
  OK(db_put_validation(d, &va, &t, 1));
  OK(db_put_validation(d, &vd2, &t, 1));
  OK(db_put_validation(d, &vu, &t, 1));
  OK(db_latest_validation_of(d, SYMV_DSYMV, 'L', 0, 0, &got, &vt, &nvt));
  cr_expect_eq(got.id, va.id, "the any rules: their own run, not the later deterministic one");
  cr_expect_eq(got.fit_id, any.id);
  free(vt);
  OK(db_latest_validation_of(d, SYMV_DSYMV, 'L', 0, 1, &got, &vt, &nvt));
  cr_expect_eq(got.id, vd2.id, "the deterministic rules: the latest deterministic run");
  cr_expect_eq(nvt, 1);
  free(vt);
  OK(db_latest_validation_of(d, SYMV_DSYMV, 'U', 0, 0, &got, &vt, &nvt));
  cr_expect_eq(got.id, vu.id, "uplo U: the run of the U fit, of the other class");
  free(vt);
  cr_expect_eq(db_latest_validation_of(d, SYMV_SSYMV, 'L', 0, 0, &got, &vt, &nvt), SYMV_NOT_FOUND,
               "no run of SSYMV");
  cr_expect_eq(db_latest_validation_of(d, SYMV_DSYMV, 'L', 0, 2, &got, &vt, &nvt), SYMV_INVALID_VALUE);
  close_ok(d);
}

/* The code a candidate was measured with: 16 hex digits or refused, a
 * candidate that is not there refused, listed by routine, replaced when
 * recorded again, gone with its candidate; a database with the table opens
 * at its version, one without lists none. */
Test(db, kernel_codes_are_recorded_listed_and_go_with_their_candidate)
{
  char p[256];
  path_of(p, "codes.db");
  db *d = fresh(p);
  db_kernel_code *k = NULL;
  size_t nk = 99;
  OK(db_list_kernel_codes(d, DB_ANY_ROUTINE, &k, &nk));
  cr_assert_eq(nk, 0, "no table, no codes");
  const long long a = valid_point(d, SYMV_FAMILY_LU, 128, 4, 1, 0), b = valid_point(d, SYMV_FAMILY_PANEL, 256, 2, 2, 0);
  cr_assert_eq(db_put_kernel_code(d, a, "0123456789ABCDEF"), SYMV_INVALID_VALUE, "upper case");
  cr_assert_eq(db_put_kernel_code(d, a, "0123456789abcde"), SYMV_INVALID_VALUE, "15 digits");
  cr_assert_eq(db_put_kernel_code(d, a, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(db_put_kernel_code(d, b + 100, "0123456789abcdef"), SYMV_NOT_FOUND, "no such candidate");
  OK(db_put_kernel_code(d, a, "0000000000000001"));
  OK(db_put_kernel_code(d, b, "0000000000000002"));
  OK(db_put_kernel_code(d, a, "00000000000000aa"));
  OK(db_list_kernel_codes(d, SYMV_DSYMV, &k, &nk));
  cr_assert_eq(nk, 2);
  cr_expect_eq(k[0].candidate_id, a);
  cr_expect_str_eq(k[0].code, "00000000000000aa", "recorded again: replaced");
  cr_expect_eq(k[1].p.family, SYMV_FAMILY_PANEL);
  cr_expect_eq(k[1].p.block_size, 256);
  free(k);
  OK(db_list_kernel_codes(d, SYMV_SSYMV, &k, &nk));
  cr_expect_eq(nk, 0, "another routine's");
  free(k);
  close_ok(d);
  cr_assert_eq(db_open(&d, p, DB_READONLY), 0, "the table is accepted beside the schema's");
  close_ok(d);
  raw_exec(p, "PRAGMA foreign_keys = ON; DELETE FROM candidate WHERE family = 'lu'");
  cr_expect_eq(raw_int(p, "SELECT count(*) FROM kernel_code"), 1, "a code outlived its candidate");
}

/* ---- Bench runs (schema version 7) ------------------------------------------ */

/* A plausible bench run of the H100 and its result at n. */
static db_bench_run bench_run_of(int deterministic)
{
  db_bench_run r = { .deterministic = deterministic, .hot = 0, .batches = 7, .cc_major = 9, .cc_minor = 0,
                     .sm_count = 132, .copy_gbs = 2950.5, .complete = 1 };
  snprintf(r.symvtune, sizeof r.symvtune, "0.1.0");
  snprintf(r.lib_path, sizeof r.lib_path, "/opt/libsymv/lib/libsymv.so");
  snprintf(r.lib_version, sizeof r.lib_version, "0.1.0");
  snprintf(r.lib_tuned_gpu, sizeof r.lib_tuned_gpu, "NVIDIA H100 80GB HBM3");
  snprintf(r.lib_arch, sizeof r.lib_arch, "sm_90");
  snprintf(r.device, sizeof r.device, "NVIDIA H100 80GB HBM3");
  return r;
}

static db_bench_result bench_result_of(symv_routine routine, int n, double lib, double cub, double cuba)
{
  db_bench_result b = { .routine = routine, .uplo = 'L', .n = n, .libsymv_us = lib, .cublas_us = cub,
                        .cublas_atomics_us = cuba, .openblas_us = 40 * lib, .floor_us = 0.8 * lib,
                        .residual = 0.125, .pct_copy = 61.5 };
  snprintf(b.kernel, sizeof b.kernel, "%s_pipe_b256_u32_x0", symv_routine_name(routine));
  return b;
}

Test(db, bench_runs_are_stored_with_a_view_for_people)
{
  char p[256];
  path_of(p, "bench.db");
  db *d = fresh(p);
  db_bench_run run = bench_run_of(0);
  db_bench_result b[3] = { bench_result_of(SYMV_DSYMV, 500, 4.0, 9.0, 6.0), bench_result_of(SYMV_DSYMV, 4096, 40.0, 66.0, 70.0),
                           bench_result_of(SYMV_DSYMV, 32768, 2000.0, 1990.0, 2010.0) };
  b[1].openblas_us = NAN, b[1].floor_us = NAN; /* not measured: NULL */
  snprintf(b[2].kernel, sizeof b[2].kernel, "cublas");
  OK(db_put_bench(d, &run, b, 3));
  cr_assert_gt(run.id, 0);
  cr_assert_eq(strlen(run.created), 20, "created: '%s'", run.created);
  db_bench_run det = bench_run_of(1);
  db_bench_result db1 = bench_result_of(SYMV_ZHEMV, 1000, 10.0, 20.0, 12.0);
  OK(db_put_bench(d, &det, &db1, 1));
  db_bench_run again = bench_run_of(0); /* a later run of the same: the latest */
  db_bench_result b2 = bench_result_of(SYMV_DSYMV, 500, 5.0, 9.0, 6.0);
  OK(db_put_bench(d, &again, &b2, 1));
  close_ok(d);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), 7);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM bench_run"), 3);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM bench_result"), 5);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM bench_result WHERE openblas_us IS NULL AND floor_us IS NULL"), 1);
  /* the view: ratios are the other's time over libsymv's; the speed-up is
   * over the faster cuBLAS mode for 'any', over cuBLAS without atomics for
   * 'deterministic' */
  cr_assert_eq(raw_int(p, "SELECT x_cublas * 1000 FROM v_bench WHERE run_id = 1 AND n = 500"), 2250);
  cr_assert_eq(raw_int(p, "SELECT x_cublas_atomics * 1000 FROM v_bench WHERE run_id = 1 AND n = 500"), 1500);
  cr_assert_eq(raw_int(p, "SELECT speedup * 1000 FROM v_bench WHERE run_id = 1 AND n = 500"), 1500);
  cr_assert_eq(raw_int(p, "SELECT speedup * 1000 FROM v_bench WHERE run_id = 1 AND n = 4096"), 1650);
  cr_assert_eq(raw_int(p, "SELECT x_openblas * 1000 FROM v_bench WHERE run_id = 1 AND n = 500"), 40000);
  cr_assert_eq(raw_int(p, "SELECT x_openblas IS NULL FROM v_bench WHERE run_id = 1 AND n = 4096"), 1);
  cr_assert_eq(raw_int(p, "SELECT x_floor * 1000 FROM v_bench WHERE run_id = 1 AND n = 500"), 1250);
  cr_assert_eq(raw_int(p, "SELECT speedup * 1000 FROM v_bench WHERE routine = 'zhemv'"), 2000,
               "deterministic: over cuBLAS without atomics, though cuBLAS with atomics is faster");
  cr_assert_eq(raw_int(p, "SELECT atomics = 'deterministic' FROM v_bench WHERE routine = 'zhemv'"), 1);
  cr_assert_eq(raw_int(p, "SELECT kernel = 'cublas' FROM v_bench WHERE n = 32768"), 1);
  /* the latest run of (dsymv, any, L, cold, H100) is the third; the first is not */
  cr_assert_eq(raw_int(p, "SELECT run_id FROM v_bench WHERE routine = 'dsymv' AND latest"), 3);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM v_bench WHERE run_id = 1 AND latest"), 0);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM v_bench WHERE routine = 'zhemv' AND latest"), 1);
  cr_assert_eq(raw_int(p, "SELECT lib_path = '/opt/libsymv/lib/libsymv.so' AND lib_tuned_gpu LIKE '%H100%' "
                          "FROM v_bench LIMIT 1"), 1);
}

Test(db, bad_bench_runs_are_refused_and_leave_nothing)
{
  char p[256];
  path_of(p, "bench-bad.db");
  db *d = fresh(p);
  const db_bench_run good = bench_run_of(0);
  const db_bench_result ok = bench_result_of(SYMV_DSYMV, 500, 4.0, 9.0, 6.0);
  struct {
    const char *what;
    db_bench_run run;
    db_bench_result res[2];
    size_t nres;
  } bad[16];
  int nb = 0;
#define BAD_RUN(desc, field, value) \
  bad[nb] = (typeof(bad[0])){desc, good, {ok, ok}, 1}, bad[nb].run.field = value, nb++
#define BAD_RESULT(desc, field, value) \
  bad[nb] = (typeof(bad[0])){desc, good, {ok, ok}, 1}, bad[nb].res[0].field = value, nb++
  BAD_RUN("no batches", batches, 0);
  BAD_RUN("an atomics class of 2", deterministic, 2);
  BAD_RUN("no SMs", sm_count, 0);
  BAD_RUN("a negative copy rate", copy_gbs, -1.0);
  BAD_RUN("an empty device name", device[0], 0);
  BAD_RUN("an empty library path", lib_path[0], 0);
  BAD_RESULT("n = 0", n, 0);
  BAD_RESULT("uplo X", uplo, 'X');
  BAD_RESULT("a time of 0", libsymv_us, 0.0);
  BAD_RESULT("cuBLAS not measured", cublas_us, NAN);
  BAD_RESULT("a negative residual", residual, -1.0);
  BAD_RESULT("an unknown routine", routine, SYMV_ROUTINE_COUNT + 1);
  BAD_RESULT("any routine", routine, DB_ANY_ROUTINE);
  BAD_RESULT("no kernel", kernel[0], 0);
  bad[nb] = (typeof(bad[0])){"one size twice", good, {ok, ok}, 2}, nb++;
  for (int i = 0; i < nb; i++) {
    int rc = db_put_bench(d, &bad[i].run, bad[i].res, bad[i].nres);
    cr_assert_eq(rc, SYMV_INVALID_VALUE, "%s: %s (%s)", bad[i].what, symv_errname(rc), db_errmsg(d));
    cr_assert_not_null(strstr(db_errmsg(d), "db_put_bench"), "%s: %s", bad[i].what, db_errmsg(d));
  }
#undef BAD_RUN
#undef BAD_RESULT
  /* a run with no result (a bench stopped before its first size) is kept */
  db_bench_run empty = good;
  empty.complete = 0;
  OK(db_put_bench(d, &empty, NULL, 0));
  OK(db_begin(d));
  db_bench_run in_tx = good;
  cr_assert_eq(db_put_bench(d, &in_tx, &ok, 1), SYMV_DB, "inside a transaction");
  OK(db_rollback(d));
  close_ok(d);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM bench_run"), 1);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM bench_result"), 0);
}

/* A version 6 file: what this program writes, less the step of version 7
 * (the same statements as the released version 6 made). */
static void make_v6(const char *p)
{
  db *d = fresh(p);
  const long long cid = valid_point(d, SYMV_FAMILY_LU, 128, 4, 1, 0);
  db_fit f = fit_of(32, 9000, 0.01);
  db_rule r[1] = { rule_of(32, 9000, DB_KERNEL_CANDIDATE, cid, 5) };
  OK(db_put_fit(d, &f, NULL, 0, r, 1));
  db_validation v = { .fit_id = f.id, .seed = 7, .regret_median = 1.0, .regret_p90 = 1.0, .regret_max = 1.2 };
  db_validation_time t = { .n = 100, .kernel = DB_KERNEL_CANDIDATE, .candidate_id = cid, .median_us = 3.5,
                           .predicted_us = 3.4, .chosen = 1 };
  OK(db_put_validation(d, &v, &t, 1));
  close_ok(d);
  raw_exec(p, "PRAGMA journal_mode = DELETE; DROP VIEW v_bench; DROP TABLE bench_result; DROP TABLE bench_run; "
              "PRAGMA user_version = 6;");
}

Test(db, version_6_database_is_migrated_to_7_keeping_its_data)
{
  char p[256];
  path_of(p, "v6.db");
  make_v6(p);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), 6);
  const long long cands = raw_int(p, "SELECT count(*) FROM candidate"), fits = raw_int(p, "SELECT count(*) FROM fit");
  /* read-only: migrated in memory, the file untouched, and the bench tables there to read */
  db *d = open_ok(p, DB_READONLY);
  close_ok(d);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), 6, "a read-only open does not migrate the file");
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'bench%'"), 0);
  /* a writable open migrates it for good */
  d = open_ok(p, 0);
  db_bench_run run = bench_run_of(0);
  db_bench_result b = bench_result_of(SYMV_DSYMV, 1000, 10.0, 20.0, 12.0);
  OK(db_put_bench(d, &run, &b, 1));
  close_ok(d);
  cr_assert_eq(raw_int(p, "PRAGMA user_version"), DB_SCHEMA_VERSION);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM candidate"), cands);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM fit"), fits);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM validation_run"), 1, "the validation run of version 6 is kept");
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM v_rules"), 1, "the view of version 6 is kept");
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM v_bench"), 1);
  cr_assert_eq(raw_int(p, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
}

Test(db, a_newer_or_foreign_version_7_file_is_refused_untouched)
{
  char p[256], q[256], r[256];
  /* one version past this program's, with tables it does not know */
  path_of(p, "v8.db");
  close_ok(fresh(p));
  raw_exec(p, "PRAGMA journal_mode = DELETE; CREATE TABLE bench_gpu (x); PRAGMA user_version = 8;");
  assert_refused(p, 0, SYMV_DB_VERSION, "newer");
  assert_refused(p, DB_READONLY, SYMV_DB_VERSION, "newer");
  /* a version 7 file of another application */
  path_of(q, "foreign7.db");
  close_ok(fresh(q));
  raw_exec(q, "PRAGMA journal_mode = DELETE; PRAGMA application_id = 42;");
  assert_refused(q, 0, SYMV_DB_CORRUPT, NULL);
  /* a version 7 file that lacks a bench table, or claims version 6 with them */
  path_of(r, "damaged7.db");
  close_ok(fresh(r));
  raw_exec(r, "PRAGMA journal_mode = DELETE; DROP VIEW v_bench; DROP TABLE bench_result;");
  assert_refused(r, 0, SYMV_DB_CORRUPT, "missing");
  raw_exec(q, "PRAGMA application_id = 1398361430; PRAGMA user_version = 6;"); /* "SYMV", one version back */
  assert_refused(q, 0, SYMV_DB_CORRUPT, "unexpected table 'bench_");
}

/* ---- Read-only use leaves nothing behind ------------------------------------- */

/* What the child of read_only_use_leaves_no_sidecars found, by exit status. */
static const char *const sidecar_step[] = {
  "passed", "could not drop to an unprivileged user", "could not create the database",
  "could not make it read-only", "could not open it read-only", "could not read it",
  "left a -wal or -shm file beside it", "could not make it writable again",
  "could not open it for writing", "could not write to it",
};

/* Runs the steps as the caller, or as nobody (65534) where the caller is
 * root, for whom a file's mode bits do not refuse a write; the exit status
 * indexes sidecar_step. */
static int sidecar_steps(const char *folder)
{
  if (geteuid() == 0 && (setgroups(0, NULL) || setgid(65534) || setuid(65534))) return 1;
  char p[512], wal[520], shm[520];
  snprintf(p, sizeof p, "%s/r.db", folder);
  snprintf(wal, sizeof wal, "%s-wal", p);
  snprintf(shm, sizeof shm, "%s-shm", p);
  db *d;
  if (db_open(&d, p, DB_CREATE) || db_close(d)) return 2;
  if (chmod(p, 0444)) return 3;
  if (db_open(&d, p, DB_READONLY)) return 4;
  symv_routine r[SYMV_ROUTINE_COUNT];
  size_t n;
  int read = db_list_routines(d, DB_ROUTINES_CANDIDATES, r, SYMV_ROUTINE_COUNT, &n);
  db_close(d);
  if (read) return 5;
  if (access(wal, F_OK) == 0 || access(shm, F_OK) == 0) return 6;
  if (chmod(p, 0644)) return 7;
  if (db_open(&d, p, 0)) return 8;
  int wrote = db_begin(d) || db_commit(d);
  db_close(d);
  return wrote ? 9 : 0;
}

Test(db, read_only_use_of_a_read_only_file_leaves_no_sidecars_that_break_a_later_writer)
{
  /* `chmod 444 r.db; symvtune rules --db r.db`: SQLite's read-only
   * connection makes -wal and -shm files of the file's mode (0444) and
   * cannot remove them; after `chmod 644 r.db`, a writer then fails with
   * "attempt to write a readonly database". */
  char folder[] = "/tmp/symvtune-sidecar-XXXXXX";
  cr_assert_not_null(mkdtemp(folder));
  cr_assert_eq(chmod(folder, 0777), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) _exit(sidecar_steps(folder));
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
  int rm = system(cmd);
  cr_assert(WIFEXITED(status), "the child ended by signal %d", WTERMSIG(status));
  int step = WEXITSTATUS(status);
  cr_assert(step >= 0 && step < (int)(sizeof sidecar_step / sizeof *sidecar_step), "exit status %d", step);
  cr_assert_eq(step, 0, "read-only use of a read-only file: %s", sidecar_step[step]);
  cr_assert_eq(rm, 0);
}
