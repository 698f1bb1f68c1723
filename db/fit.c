/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fit.c - the fits of the results database (tables fit, fit_curve and
 * fit_rule): the d-spline curves of a fit and the dispatch rules chosen
 * from them, stored in one transaction and read back checked (the rules
 * tile the fit's range; a deterministic fit names only deterministic
 * kernels).
 */
#include "db/db_internal.h"

#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "routine.h"
#include "symv_error.h"

/* ---- Fits and dispatch rules ------------------------------------------------------ */

/* Index of a kernel name in {cublas, cublas_atomics, candidate}, or -1 for
 * anything else (including a name not terminated within `size`). */
int db_kernel_index(const char *kernel, size_t size)
{
  static const char *const names[] = { DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS,
                                        DB_KERNEL_CANDIDATE };
  if (!db_text_ok(kernel, size)) return -1;
  return db_name_index(names, 3, kernel);
}

int db_is_candidate_kernel(const char *kernel)
{
  return strcmp(kernel, DB_KERNEL_CANDIDATE) == 0;
}

int db_kernel_deterministic(const char *kernel, symv_family family)
{
  if (!strcmp(kernel, DB_KERNEL_CUBLAS)) return 1;
  if (!db_is_candidate_kernel(kernel)) return 0;
  const symv_family_info *f = symv_family_get(family);
  return f && f->deterministic;
}

/* The checks of db_put_fit that need no database. */
static int check_fit(db *d, const db_fit *fit, const db_fit_curve *curves,
                     size_t ncurves, const db_rule *rules, size_t nrules)
{
  static const char fn[] = "db_put_fit";
  if (!fit || (ncurves > 0 && !curves) || !rules || nrules == 0)
    return db_fail(d, SYMV_INVALID_VALUE, "%s: no fit, or no rules", fn);
  int status = db_check_routine(d, fn, fit->routine, 0);
  if (status) return status;
  if ((fit->uplo != 'L' && fit->uplo != 'U') || (fit->hot != 0 && fit->hot != 1) ||
      fit->lo < 1 || fit->hi < fit->lo || fit->hi > DB_N_MAX ||
      !(fit->threshold >= 0 && fit->threshold < 1) ||
      strnlen(fit->method, sizeof fit->method) >= sizeof fit->method)
    return db_fail(d, SYMV_INVALID_VALUE, "%s: bad fit (uplo 0x%02x, hot %d, "
                   "range %d..%d, threshold %g, or an unterminated method)", fn,
                   (unsigned char)fit->uplo, fit->hot, fit->lo, fit->hi,
                   fit->threshold);
  for (size_t i = 0; i < ncurves; i++) {
    const db_fit_curve *c = &curves[i];
    int k = db_kernel_index(c->kernel, sizeof c->kernel);
    if (k < 0)
      return db_fail(d, SYMV_INVALID_VALUE, "%s: curve %zu names an unknown "
                     "kernel '%.23s'", fn, i, c->kernel);
    if ((db_is_candidate_kernel(c->kernel) ? c->candidate_id < 1 : c->candidate_id != 0) ||
        !(isfinite(c->alpha) && c->alpha > 0) || c->nsamples < 0 ||
        !db_finite_nonneg(c->rms_rel))
      return db_fail(d, SYMV_INVALID_VALUE, "%s: curve %zu (%s, candidate "
                     "%lld): bad alpha %g, nsamples %d or rms_rel %g", fn, i,
                     c->kernel, c->candidate_id, c->alpha, c->nsamples, c->rms_rel);
  }
  char tile_err[256];
  if (db_rules_tile(fit->lo, fit->hi, rules, nrules, tile_err, sizeof tile_err))
    return db_fail(d, SYMV_INVALID_VALUE, "%s: %s", fn, tile_err);
  for (size_t i = 0; i < nrules; i++) {
    const db_rule *r = &rules[i];
    if (db_kernel_index(r->kernel, sizeof r->kernel) < 0)
      return db_fail(d, SYMV_INVALID_VALUE, "%s: rule %zu names an unknown "
                     "kernel '%.23s'", fn, i, r->kernel);
    if (db_is_candidate_kernel(r->kernel) && r->cand.id < 1)
      return db_fail(d, SYMV_INVALID_VALUE, "%s: rule %zu names candidate %lld",
                     fn, i, r->cand.id);
    if (fit->deterministic && !db_is_candidate_kernel(r->kernel) &&
        !db_kernel_deterministic(r->kernel, r->cand.p.family))
      return db_fail(d, SYMV_INVALID_VALUE, "%s: rule %zu of a deterministic fit "
                     "names %s, whose results are not bitwise reproducible", fn, i, r->kernel);
    if (!(isfinite(r->predicted_us) && r->predicted_us > 0) ||
        !(isfinite(r->predicted_gain) && r->predicted_gain > 0))
      return db_fail(d, SYMV_INVALID_VALUE, "%s: rule %zu (%d..%d): predicted "
                     "time %g us, gain %g", fn, i, r->n_start, r->n_end,
                     r->predicted_us, r->predicted_gain);
  }
  if (rules[nrules - 1].n_end != fit->hi)
    return db_fail(d, SYMV_INVALID_VALUE, "%s: the rules do not tile %d..%d: "
                   "they end at %d", fn, fit->lo, fit->hi, rules[nrules - 1].n_end);
  return 0;
}

/* Within db_put_fit: candidate id must exist (SYMV_NOT_FOUND) and be one
 * of `routine`'s (SYMV_INVALID_VALUE); `who` names the curve or rule. */
static int check_fit_candidate(db *d, long long id, symv_routine routine,
                               int deterministic, const char *who)
{
  static const char what[] = "SELECT routine FROM candidate";
  sqlite3_stmt *st;
  symv_family family = SYMV_FAMILY_ATOMIC;
  symv_routine theirs = routine;
  int row, status = db_query(d, &st, what,
                             "SELECT routine, family FROM candidate WHERE id = ?", "I", id);
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && !row)
    status = db_fail(d, SYMV_NOT_FOUND, "db_put_fit: %s names no candidate "
                     "%lld", who, id);
  if (status == 0) status = db_col_routine(d, st, 0, "a candidate of the fit", &theirs);
  if (status == 0) status = db_col_family(d, st, 1, "a candidate of the fit", &family);
  if (status == 0 && theirs != routine)
    status = db_fail(d, SYMV_INVALID_VALUE, "db_put_fit: %s names candidate "
                     "%lld, which is %s's, not the fit's routine %s", who, id,
                     symv_routine_name(theirs), symv_routine_name(routine));
  if (status == 0 && deterministic && !db_kernel_deterministic(DB_KERNEL_CANDIDATE, family))
    status = db_fail(d, SYMV_INVALID_VALUE, "db_put_fit: %s of a deterministic fit "
                     "names candidate %lld of family %s, whose results are not bitwise "
                     "reproducible", who, id, symv_family_name(family));
  return db_end(d, st, what, status);
}

int db_put_fit(db *d, db_fit *fit, const db_fit_curve *curves, size_t ncurves,
               const db_rule *rules, size_t nrules)
{
  int status = check_fit(d, fit, curves, ncurves, rules, nrules);
  if (status) return status;
  if (!sqlite3_get_autocommit(d->conn))
    return db_fail(d, SYMV_DB, "db_put_fit: called inside a transaction");
  if ((status = db_begin(d))) return status;
  status = db_exec(d, "INSERT INTO fit",
                   "INSERT INTO fit (routine, created, uplo, hot, lo, hi, threshold, "
                   "method, atomics) VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?, ?, "
                   "?, ?, ?, ?, ?)", "tciiidtt", symv_routine_name(fit->routine), fit->uplo, fit->hot,
                   fit->lo, fit->hi, fit->threshold, fit->method,
                   fit->deterministic ? "deterministic" : "any");
  long long id = status ? 0 : sqlite3_last_insert_rowid(d->conn);
  char created[sizeof fit->created] = "";
  if (status == 0) {
    static const char what[] = "SELECT created FROM fit";
    sqlite3_stmt *st;
    int row;
    status = db_query(d, &st, what, "SELECT created FROM fit WHERE id = ?", "I", id);
    if (status == 0) {
      status = db_next(d, st, what, &row);
      if (status == 0 && row) status = db_col_text(d, st, 0, created, sizeof created, what);
      status = db_end(d, st, what, status);
    }
  }
  for (size_t i = 0; status == 0 && i < ncurves; i++) {
    const db_fit_curve *c = &curves[i];
    if (db_is_candidate_kernel(c->kernel)) {
      char who[32];
      snprintf(who, sizeof who, "curve %zu", i);
      if ((status = check_fit_candidate(d, c->candidate_id, fit->routine, fit->deterministic, who))) break;
    }
    status = db_exec(d, "INSERT INTO fit_curve",
                     "INSERT INTO fit_curve (fit_id, seq, kernel, candidate_id, "
                     "alpha, nsamples, rms_rel) VALUES (?, ?, ?, NULLIF(?, 0), ?, ?, ?)",
                     "IitIdid", id, (int)i, c->kernel, c->candidate_id, c->alpha,
                     c->nsamples, c->rms_rel);
    if (status == SYMV_NOT_FOUND)
      status = db_fail(d, SYMV_NOT_FOUND, "db_put_fit: curve %zu names no "
                       "candidate %lld", i, c->candidate_id);
  }
  for (size_t i = 0; status == 0 && i < nrules; i++) {
    const db_rule *r = &rules[i];
    long long cid = db_is_candidate_kernel(r->kernel) ? r->cand.id : 0;
    if (cid) {
      char who[64];
      snprintf(who, sizeof who, "rule %zu (%d..%d)", i, r->n_start, r->n_end);
      if ((status = check_fit_candidate(d, cid, fit->routine, fit->deterministic, who))) break;
    }
    status = db_exec(d, "INSERT INTO fit_rule",
                     "INSERT INTO fit_rule (fit_id, n_start, n_end, kernel, "
                     "candidate_id, predicted_us, predicted_gain) "
                     "VALUES (?, ?, ?, ?, NULLIF(?, 0), ?, ?)",
                     "IiitIdd", id, r->n_start, r->n_end, r->kernel, cid,
                     r->predicted_us, r->predicted_gain);
    if (status == SYMV_NOT_FOUND)
      status = db_fail(d, SYMV_NOT_FOUND, "db_put_fit: rule %zu (%d..%d) names "
                       "no candidate %lld", i, r->n_start, r->n_end, cid);
  }
  if (status == 0) status = db_commit(d);
  if (status) {
    db_abandon(d);
    return status;
  }
  fit->id = id;
  snprintf(fit->created, sizeof fit->created, "%s", created);
  return 0;
}

/* Read the row of the latest fit of (routine, uplo, hot) into *fit. */
static int db_read_latest_fit(db *d, symv_routine routine, char uplo, int hot,
                              int deterministic, db_fit *fit)
{
  static const char what[] = "SELECT FROM fit (latest)";
  sqlite3_stmt *st;
  int row, status = db_query(d, &st, what,
    "SELECT id, created, uplo, hot, lo, hi, threshold, method FROM fit "
    "WHERE routine = ? AND uplo = ? AND hot = ? AND atomics = ? ORDER BY id DESC LIMIT 1",
    "tcit", symv_routine_name(routine), uplo, hot, deterministic ? "deterministic" : "any");
  if (status) return status;
  status = db_next(d, st, what, &row);
  if (status == 0 && !row)
    status = db_fail(d, SYMV_NOT_FOUND, "no %sfit of %s, uplo %c, %s stored yet "
                     "(run 'symvtune fit' for it)", deterministic ? "deterministic " : "",
                     symv_routine_name(routine), uplo, hot ? "hot" : "cold");
  if (status == 0) {
    char uplo_text[4];
    memset(fit, 0, sizeof *fit);
    fit->id = sqlite3_column_int64(st, 0);
    status = db_col_text(d, st, 1, fit->created, sizeof fit->created, what);
    if (status == 0) status = db_col_text(d, st, 2, uplo_text, sizeof uplo_text, what);
    if (status == 0) status = db_col_text(d, st, 7, fit->method, sizeof fit->method, what);
    fit->routine = routine;
    char who[32];
    snprintf(who, sizeof who, "fit %lld", fit->id);
    fit->uplo = uplo_text[0];
    fit->deterministic = deterministic;
    if (status == 0) status = db_col_int(d, st, 3, 0, 1, who, "hot", &fit->hot);
    if (status == 0) status = db_col_int(d, st, 4, 1, DB_N_MAX, who, "lo", &fit->lo);
    if (status == 0) status = db_col_int(d, st, 5, 1, DB_N_MAX, who, "hi", &fit->hi);
    fit->threshold = sqlite3_column_double(st, 6);
  }
  return db_end(d, st, what, status);
}

/* State of reading a fit's rules: the fit they belong to. */
typedef struct {
  const db_fit *f;
} rule_ctx;

/* row_reader for fit_rule rows joined with their candidate (db_read_rules):
 * checks the kernel name and the candidate (db_read_rules checks the
 * tiling of them all, db_rules_tile). */
static int rule_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *vctx)
{
  rule_ctx *x = vctx;
  const db_fit *f = x->f;
  db_rule *r = elem;
  enum { N_START = CANDIDATE_NCOLUMNS, N_END, KERNEL, PREDICTED_US,
         PREDICTED_GAIN, CANDIDATE_ID };
  int status = db_col_text(d, st, KERNEL, r->kernel, sizeof r->kernel, what);
  if (status) return status;
  char who[48];
  snprintf(who, sizeof who, "fit %lld: a rule", f->id);
  status = db_col_int(d, st, N_START, 1, DB_N_MAX, who, "n_start", &r->n_start);
  if (status == 0) status = db_col_int(d, st, N_END, 1, DB_N_MAX, who, "n_end", &r->n_end);
  if (status) return status;
  r->predicted_us = sqlite3_column_double(st, PREDICTED_US);
  r->predicted_gain = sqlite3_column_double(st, PREDICTED_GAIN);
  if (db_kernel_index(r->kernel, sizeof r->kernel) < 0)
    return db_fail(d, SYMV_DB_CORRUPT, "fit %lld has a rule for kernel "
                   "'%s', which this program does not know", f->id, r->kernel);
  if (db_is_candidate_kernel(r->kernel)) {
    if (sqlite3_column_type(st, 0) == SQLITE_NULL)
      return db_fail(d, SYMV_DB_CORRUPT, "fit %lld: the rule for %d..%d "
                     "names candidate %lld, which is not in the database",
                     f->id, r->n_start, r->n_end,
                     (long long)sqlite3_column_int64(st, CANDIDATE_ID));
    if ((status = db_read_candidate(d, st, what, &r->cand))) return status;
    if (r->cand.p.routine != f->routine)
      return db_fail(d, SYMV_DB_CORRUPT, "fit %lld of %s: the rule for %d..%d "
                     "names candidate %lld, which is %s's", f->id,
                     symv_routine_name(f->routine), r->n_start, r->n_end, r->cand.id,
                     symv_routine_name(r->cand.p.routine));
  }
  return 0;
}

/* The rules of fit `f`, checked to tile f->lo..f->hi as db_put_fit made
 * them: the rules are what a generated library will dispatch on, and the
 * file is input. */
static int db_read_rules(db *d, const db_fit *f, db_rule **rules, size_t *nrules)
{
  static const char what[] = "SELECT FROM fit_rule";
  sqlite3_stmt *st;
  int status = db_query(d, &st, what,
    "SELECT " CANDIDATE_COLUMNS ", n_start, n_end, kernel, predicted_us, "
    "predicted_gain, candidate_id FROM fit_rule LEFT JOIN candidate "
    "ON candidate.id = fit_rule.candidate_id WHERE fit_id = ? ORDER BY n_start",
    "I", f->id);
  if (status) return status;
  rule_ctx rc = {f};
  db_rule *a = NULL;
  size_t n = 0;
  if ((status = db_collect(d, st, what, sizeof *a, rule_row, &rc, (void **)&a, &n))) return status;
  char tile_err[256];
  if (db_rules_tile(f->lo, f->hi, a, n, tile_err, sizeof tile_err)) {
    free(a);
    return db_fail(d, SYMV_DB_CORRUPT, "fit %lld: %s", f->id, tile_err);
  }
  *rules = a;
  *nrules = n;
  return 0;
}

/* row_reader for fit_curve rows (db_read_curves); ctx: the fit's id. */
static int curve_row(db *d, sqlite3_stmt *st, const char *what, void *elem, void *ctx)
{
  db_fit_curve *c = elem;
  int status = db_col_text(d, st, 0, c->kernel, sizeof c->kernel, what);
  if (status) return status;
  if (db_kernel_index(c->kernel, sizeof c->kernel) < 0)
    return db_fail(d, SYMV_DB_CORRUPT, "fit %lld has a curve for kernel "
                   "'%s', which this program does not know", *(const long long *)ctx, c->kernel);
  c->candidate_id = sqlite3_column_int64(st, 1);  /* NULL reads as 0 */
  c->alpha = sqlite3_column_double(st, 2);
  char who[48];
  snprintf(who, sizeof who, "fit %lld: a curve", *(const long long *)ctx);
  if ((status = db_col_int(d, st, 3, 0, INT_MAX, who, "nsamples", &c->nsamples))) return status;
  c->rms_rel = sqlite3_column_double(st, 4);
  return 0;
}

/* The curves of fit `id`, in the order they were stored. */
static int db_read_curves(db *d, long long id, db_fit_curve **curves, size_t *ncurves)
{
  static const char what[] = "SELECT FROM fit_curve";
  sqlite3_stmt *st;
  int status = db_query(d, &st, what,
    "SELECT kernel, candidate_id, alpha, nsamples, rms_rel FROM fit_curve "
    "WHERE fit_id = ? ORDER BY seq", "I", id);
  if (status) return status;
  return db_collect(d, st, what, sizeof **curves, curve_row, &id, (void **)curves, ncurves);
}

int db_latest_fit(db *d, symv_routine routine, char uplo, int hot, db_fit *fit,
                  db_rule **rules, size_t *nrules, db_fit_curve **curves,
                  size_t *ncurves)
{
  return db_latest_fit_class(d, routine, uplo, hot, 0, fit, rules, nrules, curves, ncurves);
}

int db_latest_fit_class(db *d, symv_routine routine, char uplo, int hot, int deterministic,
                        db_fit *fit, db_rule **rules, size_t *nrules,
                        db_fit_curve **curves, size_t *ncurves)
{
  if (rules) *rules = NULL;
  if (nrules) *nrules = 0;
  if (curves) *curves = NULL;
  if (ncurves) *ncurves = 0;
  if (!fit || !rules || !nrules || (curves && !ncurves))
    return db_fail(d, SYMV_INVALID_VALUE, "db_latest_fit: NULL argument");
  int check = db_check_routine(d, "db_latest_fit", routine, 0);
  if (check) return check;
  if ((uplo != 'L' && uplo != 'U') || (hot != 0 && hot != 1))
    return db_fail(d, SYMV_INVALID_VALUE, "db_latest_fit: uplo 0x%02x, hot %d "
                   "(L or U, 0 or 1)", (unsigned char)uplo, hot);
  /* One read transaction: a fit stored meanwhile cannot mix in. */
  int own = sqlite3_get_autocommit(d->conn);
  int status = own ? db_exec(d, "BEGIN (latest fit)", "BEGIN", "") : 0;
  if (status) return status;
  status = db_read_latest_fit(d, routine, uplo, hot, deterministic != 0, fit);
  if (status == 0) status = db_read_rules(d, fit, rules, nrules);
  for (size_t i = 0; status == 0 && fit->deterministic && i < *nrules; i++)
    if (!db_kernel_deterministic((*rules)[i].kernel, (*rules)[i].cand.p.family))
      status = db_fail(d, SYMV_DB_CORRUPT, "fit %lld is deterministic, but its rule %zu "
                       "(n %d..%d) names a kernel whose results are not bitwise reproducible",
                       fit->id, i + 1, (*rules)[i].n_start, (*rules)[i].n_end);
  if (status == 0 && curves) status = db_read_curves(d, fit->id, curves, ncurves);
  if (own) {
    if (status == 0) status = db_exec(d, "COMMIT (latest fit)", "COMMIT", "");
    else db_abandon(d);
  }
  if (status) {
    free(*rules);
    *rules = NULL;
    *nrules = 0;
    if (curves) {
      free(*curves);
      *curves = NULL;
      *ncurves = 0;
    }
  }
  return status;
}

int db_rules_tile(int lo, int hi, const db_rule *rules, size_t n, char *err, size_t errlen)
{
  if (n == 0) {
    snprintf(err, errlen, "no rule covers %d..%d", lo, hi);
    return SYMV_INVALID_VALUE;
  }
  for (size_t i = 0; i < n; i++) {
    const db_rule *r = &rules[i];
    const long long expect = i == 0 ? (long long)lo : (long long)rules[i - 1].n_end + 1;
    if (r->n_end < r->n_start) {
      snprintf(err, errlen, "the rules do not tile %d..%d: rule %zu (n %d..%d) is empty", lo, hi, i + 1,
               r->n_start, r->n_end);
      return SYMV_INVALID_VALUE;
    }
    if (r->n_start != expect) {
      snprintf(err, errlen, "the rules do not tile %d..%d: rule %zu starts at n = %d, not %lld (%s)", lo, hi,
               i + 1, r->n_start, expect,
               i == 0 ? "not at lo" : r->n_start > expect ? "a gap" : "an overlap");
      return SYMV_INVALID_VALUE;
    }
  }
  if (rules[n - 1].n_end != hi) {
    snprintf(err, errlen, "the rules do not tile %d..%d: they end at %d, not at hi", lo, hi, rules[n - 1].n_end);
    return SYMV_INVALID_VALUE;
  }
  return 0;
}
