/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.c - the bench runs of the results database (tables bench_run and
 * bench_result, `symvtune bench --db`): a library's times beside both
 * cuBLAS modes' and the host BLAS's, per routine, uplo and size.
 */
#include "db/db_internal.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "routine.h"
#include "symv_error.h"

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
    int status = db_check_routine(d, fn, b->routine, 0);
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
      if (r[j].n == b->n && r[j].uplo == b->uplo && r[j].routine == b->routine)
        return db_fail(d, SYMV_INVALID_VALUE, "%s: results %zu and %zu are both %s, uplo %c, n = %d", fn, j, i,
                       symv_routine_name(b->routine), b->uplo, b->n);
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
                     "ItcitdddDDDD", id, symv_routine_name(b->routine), b->uplo, b->n, b->kernel, b->libsymv_us, b->cublas_us,
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
      if (status == 0 && row) status = db_col_text(d, st, 0, created, sizeof created, what);
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
