/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * device.c - the device fingerprint of the results database (table
 * device): the GPU a file's timings were taken on, stored by the first
 * db_check_device and compared with the current GPU by every later one.
 */
#include "db/db_internal.h"

#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "symv_error.h"
#include "util.h"

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
    status = db_col_text(d, st, 0, out->name, sizeof out->name, what);
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
      status = f[i] ? db_col_int(d, st, i + 1, INT_MIN, INT_MAX, who, sqlite3_column_name(st, i + 1), f[i])
                    : db_col_int64(d, st, i + 1, LLONG_MIN, LLONG_MAX, who, "l2_bytes", &out->l2_bytes);
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
  if (!cur || !db_text_ok(cur->name, sizeof cur->name) || cur->sm_count < 1 ||
      cur->cc_major < 1 || !db_finite_nonneg(cur->copy_gbs))
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
  if (!db_finite_nonneg(gbs))
    return db_fail(d, SYMV_INVALID_VALUE, "db_set_copy_gbs: bandwidth %g GB/s", gbs);
  int status = db_exec(d, "UPDATE device SET copy_gbs",
                       "UPDATE device SET copy_gbs = ? WHERE id = 1", "d", gbs);
  if (status == 0 && sqlite3_changes(d->conn) == 0)
    status = db_fail(d, SYMV_NOT_FOUND, "no device fingerprint stored yet");
  return status;
}
