/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan.c - reads the device and the rules the library is built from, and
 * validates every value (plan.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan.h"
#include "compile.h"
#include "libsymv_table.h"
#include "symv_error.h"

#define MAX_RULES 100000 /* more would be a broken fit, not a tuned one */
#define N_MAX DB_N_MAX   /* largest n a rule may name (db.h) */

/* Nonzero if the char array s[len] holds a NUL (a C string that fits). */
static int terminated(const char *s, size_t len) { return memchr(s, 0, len) != NULL; }

/* Checks a candidate row from the database; err says what is wrong. */
static int check_candidate(const db_candidate *c, symv_params *p, char *err, size_t errlen)
{
  char why[160];
  if (c->id < 1) {
    snprintf(err, errlen, "candidate id %lld is not a row id", c->id);
    return SYMV_INVALID_VALUE;
  }
  *p = c->p;
  if (!symv_family_tunable(p->family)) {
    snprintf(err, errlen, "candidate %lld: unknown kernel family (" SYMV_TUNABLE_FAMILIES ")", c->id);
    return SYMV_INVALID_VALUE;
  }
  if (!symv_routine_get(p->routine)) {
    snprintf(err, errlen, "candidate %lld: unknown routine (" SYMV_ROUTINE_NAMES ")", c->id);
    return SYMV_INVALID_VALUE;
  }
  if (symv_params_check(p, why, sizeof why)) {
    snprintf(err, errlen, "candidate %lld (%s): %s", c->id, symv_family_name(p->family), why);
    return SYMV_INVALID_VALUE;
  }
  if (c->status != DB_VALID) {
    char point[64];
    symv_params_format(p, point, sizeof point);
    snprintf(err, errlen, "candidate %lld (%s) is %s, not valid", c->id, point, db_status_name(c->status));
    return SYMV_INVALID_VALUE;
  }
  return 0;
}

/* Index of candidate p in the plan, added (with its kernel) if new. */
static int plan_add_candidate(libgen_plan *pl, const symv_params *p, long long id, int regs, char *err,
                              size_t errlen)
{
  for (int i = 0; i < pl->ncands; i++)
    if (!memcmp(&pl->cands[i].p, p, sizeof *p)) return i;
  if (pl->ncands == LIBGEN_MAX_CANDS) {
    snprintf(err, errlen, "the rules name more than %d candidates", LIBGEN_MAX_CANDS);
    return SYMV_INVALID_VALUE;
  }
  int k;
  for (k = 0; k < pl->nkernels; k++)
    if (symv_params_same_code(&pl->kernels[k].p, p)) break;
  if (k == pl->nkernels) {
    libgen_kernel *bk = &pl->kernels[pl->nkernels++];
    bk->p = *p;
    symv_kernel_name(p, bk->name, sizeof bk->name);
    int len = symv_compile_defines(p, bk->defines, sizeof bk->defines, &bk->source);
    if (len < 0 || (size_t)len >= sizeof bk->defines) {
      snprintf(err, errlen, "candidate %lld: compile flags too long", id);
      return SYMV_INVALID_VALUE;
    }
  }
  if (regs > 0 && (pl->kernels[k].regs == 0 || regs < pl->kernels[k].regs)) pl->kernels[k].regs = regs;
  libgen_cand *c = &pl->cands[pl->ncands];
  c->p = *p, c->id = id, c->kernel = k;
  return pl->ncands++;
}

/* Checks the device fingerprint and picks the architecture. */
static int check_device(libgen_plan *pl, const char *arch_opt, char *err, size_t errlen)
{
  const db_device *d = &pl->dev;
  if (!terminated(d->name, sizeof d->name) || !d->name[0]) {
    snprintf(err, errlen, "the device name is empty or not terminated");
    return SYMV_INVALID_VALUE;
  }
  if (d->cc_major < 1 || d->cc_major > 99 || d->cc_minor < 0 || d->cc_minor > 9) {
    snprintf(err, errlen, "compute capability %d.%d out of range (1.0..99.9)", d->cc_major, d->cc_minor);
    return SYMV_INVALID_VALUE;
  }
  if (d->sm_count < 1 || d->sm_count > 65536) {
    snprintf(err, errlen, "SM count %d out of range (1..65536)", d->sm_count);
    return SYMV_INVALID_VALUE;
  }
  if (arch_opt) snprintf(pl->arch, sizeof pl->arch, "%s", arch_opt);
  else snprintf(pl->arch, sizeof pl->arch, "sm_%d%d", d->cc_major, d->cc_minor);
  return 0;
}

/* Checks routine ro's fit (in rt, which is pl->rt[ro] or pl->det[ro]) and
 * its rules, and fills rt's rules and the plan's candidates. Rules of a
 * deterministic fit must name deterministic kernels only. */
static int check_rules(libgen_plan *pl, symv_routine ro, libgen_routine *rt, const db_rule *r, size_t nr, char *err,
                       size_t errlen)
{
  const db_fit *f = &rt->fit;
  if (f->uplo != 'L' && f->uplo != 'U') {
    snprintf(err, errlen, "fit %lld: uplo is not L or U", f->id);
    return SYMV_INVALID_VALUE;
  }
  if (f->hot != 0 && f->hot != 1) {
    snprintf(err, errlen, "fit %lld: hot is %d, not 0 or 1", f->id, f->hot);
    return SYMV_INVALID_VALUE;
  }
  if (f->lo < 1 || f->hi < f->lo || f->hi > N_MAX) {
    snprintf(err, errlen, "fit %lld: range %d..%d is not 1 <= lo <= hi <= %d", f->id, f->lo, f->hi, N_MAX);
    return SYMV_INVALID_VALUE;
  }
  if (nr < 1 || nr > MAX_RULES) {
    snprintf(err, errlen, "fit %lld has %zu rules (expected 1..%d)", f->id, nr, MAX_RULES);
    return SYMV_INVALID_VALUE;
  }
  int rc = db_rules_tile(f->lo, f->hi, r, nr, err, errlen);
  if (rc) return rc;
  rt->rules = calloc(nr, sizeof *rt->rules);
  if (!rt->rules) {
    snprintf(err, errlen, "out of memory");
    return SYMV_NO_MEMORY;
  }
  for (size_t i = 0; i < nr; i++) {
    const db_rule *ri = &r[i];
    libgen_rule *b = &rt->rules[i];
    if (ri->n_start < 1 || ri->n_end > N_MAX) { /* the tiling is checked above (db_rules_tile) */
      snprintf(err, errlen, "rule %zu: n %d..%d is not inside 1..%d", i + 1, ri->n_start, ri->n_end, N_MAX);
      return SYMV_INVALID_VALUE;
    }
    if (!terminated(ri->kernel, sizeof ri->kernel)) {
      snprintf(err, errlen, "rule %zu: kernel name is not terminated", i + 1);
      return SYMV_INVALID_VALUE;
    }
    b->n_start = ri->n_start, b->n_end = ri->n_end;
    b->predicted_us = ri->predicted_us, b->gain = ri->predicted_gain;
    if (!strcmp(ri->kernel, DB_KERNEL_CUBLAS)) {
      b->kernel = SYMV_RULE_CUBLAS;
    } else if (!strcmp(ri->kernel, DB_KERNEL_CUBLAS_ATOMICS) && !f->deterministic) {
      b->kernel = SYMV_RULE_CUBLAS_ATOMICS;
    } else if (!strcmp(ri->kernel, DB_KERNEL_CUBLAS_ATOMICS)) {
      snprintf(err, errlen, "rule %zu (n %d..%d) of deterministic fit %lld names cuBLAS with atomics", i + 1,
               ri->n_start, ri->n_end, f->id);
      return SYMV_INVALID_VALUE;
    } else if (!strcmp(ri->kernel, DB_KERNEL_CANDIDATE)) {
      symv_params p;
      char why[400];
      int rc = check_candidate(&ri->cand, &p, why, sizeof why);
      if (!rc && p.routine != ro) {
        snprintf(why, sizeof why, "candidate %lld is a %s candidate", ri->cand.id, symv_routine_name(p.routine));
        rc = SYMV_INVALID_VALUE;
      }
      if (!rc && f->deterministic && !symv_family_get(p.family)->deterministic) {
        snprintf(why, sizeof why, "candidate %lld of deterministic fit %lld is of family %s, which is not "
                 "deterministic", ri->cand.id, f->id, symv_family_name(p.family));
        rc = SYMV_INVALID_VALUE;
      }
      if (rc) {
        snprintf(err, errlen, "rule %zu (n %d..%d): %s", i + 1, ri->n_start, ri->n_end, why);
        return rc;
      }
      if ((rc = plan_add_candidate(pl, &p, ri->cand.id, ri->cand.regs_per_thread, err, errlen)) < 0) return rc;
      b->kernel = rc;
    } else {
      snprintf(err, errlen, "rule %zu (n %d..%d): unknown kernel (expected %s, %s or %s)", i + 1, ri->n_start,
               ri->n_end, DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS, DB_KERNEL_CANDIDATE);
      return SYMV_INVALID_VALUE;
    }
  }
  rt->nrules = (int)nr;
  rt->have = 1;
  return 0;
}

/* The latest fit of routine ro and atomics class `deterministic` (cold
 * samples of uplo L, what `symvtune fit` makes by default) with its rules;
 * SYMV_NOT_FOUND if there is none. */
static int latest_fit(db *d, symv_routine ro, int deterministic, db_fit *fit, db_rule **rules, size_t *nrules)
{
  return db_latest_fit_class(d, ro, 'L', 0, deterministic, fit, rules, nrules, NULL, NULL);
}

/* The plan's rules of every routine, freed. */
void libgen_plan_free(libgen_plan *pl)
{
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    free(pl->rt[r].rules), pl->rt[r].rules = NULL;
    free(pl->det[r].rules), pl->det[r].rules = NULL;
  }
  for (int k = 0; k < pl->nkernels; k++) symv_cubin_free(&pl->kernels[k].cubin);
}

/* pl->rules_id and pl->fits of the plan's rules. 0, or SYMV_NO_MEMORY. */
static int plan_identity(libgen_plan *pl)
{
  /* the plan as the dispatch table that codegen.c writes: each routine's
   * 'any' rules, then its deterministic ones, in routine order */
  size_t total = 0;
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) total += (size_t)(pl->rt[r].nrules + pl->det[r].nrules);
  symv_table_rule *rules = calloc(total > 0 ? total : 1, sizeof *rules);
  symv_table_candidate *cands = calloc(pl->ncands > 0 ? (size_t)pl->ncands : 1, sizeof *cands);
  if (!rules || !cands) {
    free(rules), free(cands);
    return SYMV_NO_MEMORY;
  }
  symv_table_routine routines[SYMV_ROUTINE_COUNT];
  symv_fit_brief fits[SYMV_ROUTINE_COUNT][2];
  memset(routines, 0, sizeof routines);
  int n = 0;
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++)
    for (int det = 0; det < 2; det++) {
      const libgen_routine *rt = det ? &pl->det[r] : &pl->rt[r];
      *(det ? &routines[r].det_first : &routines[r].first) = n;
      *(det ? &routines[r].det_count : &routines[r].count) = rt->nrules;
      for (int i = 0; i < rt->nrules; i++, n++)
        rules[n] = (symv_table_rule){rt->rules[i].n_start, rt->rules[i].n_end, rt->rules[i].kernel};
      const db_fit *f = &rt->fit;
      fits[r][det] = (symv_fit_brief){rt->have, f->id, f->created, f->uplo, f->hot, f->lo, f->hi};
    }
  for (int c = 0; c < pl->ncands; c++) cands[c].p = pl->cands[c].p;
  const symv_table_info dev = {pl->dev.name, pl->dev.cc_major, pl->dev.cc_minor, pl->dev.sm_count, pl->arch};
  symv_rules_id(&dev, cands, rules, routines, pl->rules_id);
  symv_fits_text(fits, pl->fits, sizeof pl->fits);
  free(rules), free(cands);
  return 0;
}

/* Reads the device and, for every routine with a fit (cold samples, uplo
 * L: the fit `symvtune fit` makes by default), its latest fit's rules. */
int libgen_plan_read(const char *path, const char *arch_opt, libgen_plan *pl, char *err, size_t errlen)
{
  db *d = NULL;
  int rc = db_open(&d, path, DB_READONLY), nfits = 0;
  if (rc) {
    snprintf(err, errlen, "cannot open the database: %s: %s", symv_strerror(rc), d ? db_errmsg(d) : "");
    db_close(d);
    return rc;
  }
  if ((rc = db_get_device(d, &pl->dev))) {
    snprintf(err, errlen, "no device fingerprint: %s: %s", symv_strerror(rc), db_errmsg(d));
    db_close(d);
    return rc;
  }
  if ((rc = check_device(pl, arch_opt, err, errlen))) {
    db_close(d);
    return rc;
  }
  for (int i = 0; i < 2 * SYMV_ROUTINE_COUNT && !rc; i++) {
    const symv_routine ro = symv_routine_order(i / 2);
    const int det = i % 2;
    libgen_routine *rt = det ? &pl->det[ro] : &pl->rt[ro];
    db_rule *rules = NULL;
    size_t nrules = 0;
    rc = latest_fit(d, ro, det, &rt->fit, &rules, &nrules);
    if (rc == SYMV_NOT_FOUND) {
      rc = 0;
      continue;
    }
    if (rc) {
      snprintf(err, errlen, "%s %sfit: %s: %s", symv_routine_name(ro), det ? "deterministic " : "",
               symv_strerror(rc), db_errmsg(d));
    } else {
      char why[512];
      if ((rc = check_rules(pl, ro, rt, rules, nrules, why, sizeof why)))
        snprintf(err, errlen, "%s%s: %s", symv_routine_name(ro), det ? " (deterministic rules)" : "", why);
      nfits += !det;
    }
    free(rules);
  }
  if (!rc && nfits == 0) {
    rc = SYMV_NOT_FOUND;
    snprintf(err, errlen, "no fit in the database (run `symvtune fit --db FILE` first)");
  }
  if (!rc) { /* the rules' candidates timed with other kernel sources (codes: by candidate id) */
    db_kernel_code *codes = NULL;
    size_t ncodes = 0;
    if ((rc = db_list_kernel_codes(d, DB_ANY_ROUTINE, &codes, &ncodes)))
      snprintf(err, errlen, "the kernels' codes: %s: %s", symv_strerror(rc), db_errmsg(d));
    for (int c = 0; !rc && c < pl->ncands; c++) {
      const db_kernel_code *k = db_kernel_code_find(codes, ncodes, pl->cands[c].id);
      if (k && !symv_code_current(&pl->cands[c].p, k->code)) pl->stale[pl->cands[c].p.routine]++;
    }
    free(codes);
  }
  if (!rc && (rc = plan_identity(pl))) snprintf(err, errlen, "out of memory");
  db_close(d);
  return rc;
}

void libgen_plan_print(const libgen_plan *pl)
{
  printf("%-6s %-8s %-8s  %-28s %-24s %12s %8s\n", "routine", "n from", "n to", "kernel", "candidate",
         "predicted us", "gain");
  for (int q = 0; q < SYMV_ROUTINE_COUNT; q++) {
   const symv_routine ro = symv_routine_order(q);
   if (!pl->rt[ro].have) printf("%-6s %-8s %-8s  %-28s\n", symv_routine_name(ro), "-", "-", "cublas (not tuned)");
   for (int q = 0; q < pl->rt[ro].nrules + pl->det[ro].nrules; q++) {
    const int det = q >= pl->rt[ro].nrules, i = det ? q - pl->rt[ro].nrules : q;
    const libgen_rule *r = det ? &pl->det[ro].rules[i] : &pl->rt[ro].rules[i];
    char label[64] = "-";
    const char *name = r->kernel == SYMV_RULE_CUBLAS ? "cublas" : r->kernel == SYMV_RULE_CUBLAS_ATOMICS
                                                                      ? "cublas_atomics"
                                                                      : pl->kernels[pl->cands[r->kernel].kernel].name;
    if (r->kernel >= 0) symv_params_format(&pl->cands[r->kernel].p, label, sizeof label);
    printf("%-6s %-8d %-8d  %-28s %-24s %12.4g %8.3g%s\n", symv_routine_name(ro), r->n_start, r->n_end, name, label,
           r->predicted_us, r->gain, det ? "  deterministic" : "");
   }
  }
}
