/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_export.c - `symvtune export`: the latest fits' rules of a database as
 * a wisdom file (lib/wisdom.h, man symv-wisdom(5)), which a libsymv built
 * with `symvtune build --wisdom` reads at run time on the GPU model whose
 * fingerprint it carries.
 *
 * The rules taken are those `symvtune build` takes: per routine, the latest
 * fit of cold samples of uplo L, of each atomics class (any, deterministic).
 * Every value is checked as build checks it; the text is then parsed back
 * with the reader libsymv uses before it replaces --out, so that export
 * never writes a file the library would refuse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../db/db.h"
#include "cli.h"
#include "config.h"
#include "kernel_sources.h"
#include "params.h"
#include "routine.h"
#include "symv_error.h"
#include "util.h"
#include "wisdom.h"

static void help(void)
{
  puts("Usage: symvtune export --db FILE --out FILE.symvw [--routine LIST]\n"
       "Writes the dispatch rules of the latest fits in FILE (see `symvtune fit`) as a wisdom file:\n"
       "a small versioned text file (man symv-wisdom(5)) with the tuned GPU's fingerprint (name,\n"
       "compute capability, SMs, L2, bus width, shared memory and registers per SM), the fits'\n"
       "provenance and, per routine and atomics class (any, deterministic), the rules with each\n"
       "candidate's registers per thread and occupancy. A libsymv built with `symvtune build\n"
       "--wisdom` reads it at run time, from $SYMV_WISDOM or its system folder, on GPUs with that\n"
       "fingerprint. The file is written whole (a temporary file renamed over FILE.symvw) after it\n"
       "was read back with libsymv's own reader.\n\n"
       "Options:\n"
       "  --db FILE        the database (read only; needs a fit)\n"
       "  --out FILE       the wisdom file to write (replaced); '-' for standard output\n"
       "  --routine LIST   routines to export, comma-separated, or all (default: every routine\n"
       "                   with a fit)\n"
       "  --help           this text\n"
       "Exit status: 0 written; 2 usage; 4 database refused (no fit, a bad value) or FILE not written.");
}

/* s with every byte outside printable ASCII (and, if nospace, the space)
 * made '?', cut to cap-1 bytes; "-" if empty. */
static void clean_text(char *out, size_t cap, const char *s, int nospace)
{
  size_t k = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p && k + 1 < cap; p++)
    out[k++] = (*p < 0x20 || *p > 0x7e || (nospace && *p == ' ')) ? '?' : (char)*p;
  while (k > 0 && out[k - 1] == ' ') k--; /* a line may not end with a space */
  size_t lead = 0;
  while (lead < k && out[lead] == ' ') lead++;
  memmove(out, out + lead, k - lead);
  k -= lead;
  if (k == 0) out[k++] = '-';
  out[k] = 0;
}

/* The rules of one fit into w's set [ro][det]; err says what is wrong. */
static int add_set(symv_wisdom *w, symv_routine ro, int det, const db_fit *f, const db_rule *r, size_t nr, char *err,
                   size_t errlen)
{
  symv_wisdom_set *s = &w->set[ro][det];
  if (nr < 1 || nr > SYMV_WISDOM_MAX_RULES) {
    snprintf(err, errlen, "fit %lld has %zu rules (1..%d)", f->id, nr, SYMV_WISDOM_MAX_RULES);
    return SYMV_INVALID_VALUE;
  }
  if (f->lo < 1 || f->hi < f->lo || f->hi > SYMV_WISDOM_N_MAX) {
    snprintf(err, errlen, "fit %lld: range %d..%d out of 1..%d", f->id, f->lo, f->hi, SYMV_WISDOM_N_MAX);
    return SYMV_INVALID_VALUE;
  }
  int rc = db_rules_tile(f->lo, f->hi, r, nr, err, errlen);
  if (rc) return rc;
  symv_wisdom_rule *nrules = realloc(w->rules, (size_t)(w->nrules + (int)nr) * sizeof *nrules);
  if (!nrules) return SYMV_NO_MEMORY;
  w->rules = nrules;
  s->have = 1, s->fit_id = f->id, s->uplo = f->uplo, s->hot = f->hot, s->lo = f->lo, s->hi = f->hi;
  s->threshold = f->threshold;
  clean_text(s->created, sizeof s->created, f->created, 1);
  clean_text(s->method, sizeof s->method, f->method, 0);
  s->first = w->nrules, s->count = (int)nr;
  for (size_t i = 0; i < nr; i++) {
    symv_wisdom_rule *ru = &w->rules[w->nrules++];
    ru->n_start = r[i].n_start, ru->n_end = r[i].n_end;
    ru->predicted_us = r[i].predicted_us, ru->gain = r[i].predicted_gain;
    if (!strcmp(r[i].kernel, DB_KERNEL_CUBLAS)) {
      ru->kernel = SYMV_WISDOM_CUBLAS;
    } else if (!strcmp(r[i].kernel, DB_KERNEL_CUBLAS_ATOMICS)) {
      ru->kernel = SYMV_WISDOM_CUBLAS_ATOMICS;
    } else {
      const db_candidate *c = &r[i].cand;
      const symv_params p = c->p;
      char label[96], why[160];
      symv_params_format(&p, label, sizeof label);
      if (symv_params_check(&p, why, sizeof why)) {
        snprintf(err, errlen, "rule %zu names candidate %lld: '%s': %s", i + 1, c->id, label, why);
        return SYMV_INVALID_VALUE;
      }
      if (c->status != DB_VALID || c->regs_per_thread < 1 || c->regs_per_thread > 255) {
        snprintf(err, errlen, "rule %zu names candidate %lld (%s), which is %s with %d registers per thread recorded",
                 i + 1, c->id, label, db_status_name(c->status), c->regs_per_thread);
        return SYMV_INVALID_VALUE;
      }
      int k;
      for (k = 0; k < w->ncands && memcmp(&w->cands[k].p, &p, sizeof p); k++) {}
      if (k == w->ncands) {
        if (w->ncands == SYMV_WISDOM_MAX_CANDS) {
          snprintf(err, errlen, "more than %d candidates", SYMV_WISDOM_MAX_CANDS);
          return SYMV_INVALID_VALUE;
        }
        symv_wisdom_cand *nc = realloc(w->cands, (size_t)(w->ncands + 1) * sizeof *nc);
        if (!nc) return SYMV_NO_MEMORY;
        w->cands = nc;
        memset(&nc[k], 0, sizeof nc[k]);
        nc[k].p = p, nc[k].regs = c->regs_per_thread, nc[k].occupancy = p.multiplicity;
        symv_kernel_name(&p, nc[k].name, sizeof nc[k].name);
        w->ncands++;
      }
      ru->kernel = k;
    }
  }
  return 0;
}

/* Reads the device and the latest fits of the selected routines into w. */
static int read_db(const char *path, const int sel[SYMV_ROUTINE_COUNT], int all, symv_wisdom *w, char *err,
                   size_t errlen)
{
  db *d = NULL;
  int rc = db_open(&d, path, DB_READONLY), nsets = 0;
  if (rc) {
    snprintf(err, errlen, "cannot open the database: %s: %s", symv_strerror(rc), d ? db_errmsg(d) : "");
    db_close(d);
    return rc;
  }
  db_device dev;
  if ((rc = db_get_device(d, &dev))) {
    snprintf(err, errlen, "no device fingerprint: %s: %s", symv_strerror(rc), db_errmsg(d));
    db_close(d);
    return rc;
  }
  w->version = SYMV_WISDOM_VERSION;
  snprintf(w->symvtune, sizeof w->symvtune, "%s", PACKAGE_VERSION);
  uint64_t h = SYMV_WISDOM_FNV_INIT;
  for (int i = 0; i < symv_nsources; i++) {
    h = symv_wisdom_fnv(h, symv_sources[i].name, strlen(symv_sources[i].name) + 1);
    h = symv_wisdom_fnv(h, symv_sources[i].text, strlen(symv_sources[i].text) + 1);
  }
  w->sources = h;
  w->db_schema = DB_SCHEMA_VERSION;
  symv_wisdom_device *wd = &w->dev;
  if (!memchr(dev.name, 0, sizeof dev.name) || !dev.name[0]) {
    snprintf(err, errlen, "the device name is empty or not terminated");
    db_close(d);
    return SYMV_INVALID_VALUE;
  }
  for (const unsigned char *c = (const unsigned char *)dev.name; *c; c++)
    if (*c < 0x20 || *c > 0x7e) {
      snprintf(err, errlen, "the device name holds a byte 0x%02x outside printable ASCII", *c);
      db_close(d);
      return SYMV_INVALID_VALUE;
    }
  snprintf(wd->name, sizeof wd->name, "%s", dev.name);
  wd->cc_major = dev.cc_major, wd->cc_minor = dev.cc_minor, wd->sm_count = dev.sm_count;
  wd->l2_bytes = dev.l2_bytes, wd->bus_width_bits = dev.bus_width_bits, wd->smem_per_sm = dev.smem_per_sm;
  wd->regs_per_sm = dev.regs_per_sm, wd->mem_clock_khz = dev.mem_clock_khz, wd->driver_version = dev.driver_version;
  wd->nvrtc_major = dev.nvrtc_major, wd->nvrtc_minor = dev.nvrtc_minor;
  for (int q = 0; q < 2 * SYMV_ROUTINE_COUNT && !rc; q++) {
    const symv_routine ro = symv_routine_order(q / 2);
    const int det = q % 2;
    if (!sel[ro]) continue;
    db_fit fit;
    db_rule *rules = NULL;
    size_t nrules = 0;
    rc = db_latest_fit_class(d, ro, 'L', 0, det, &fit, &rules, &nrules, NULL, NULL);
    if (rc == SYMV_NOT_FOUND) {
      rc = 0;
      if (!all && !det) {
        snprintf(err, errlen, "no fit of %s (run `symvtune fit --db FILE --routine %s` first)", symv_routine_name(ro),
                 symv_routine_name(ro));
        rc = SYMV_NOT_FOUND;
      }
      continue;
    }
    if (rc) {
      snprintf(err, errlen, "%s %sfit: %s: %s", symv_routine_name(ro), det ? "deterministic " : "", symv_strerror(rc),
               db_errmsg(d));
    } else {
      char why[512];
      if ((rc = add_set(w, ro, det, &fit, rules, nrules, why, sizeof why)))
        snprintf(err, errlen, "%s%s: %s", symv_routine_name(ro), det ? " (deterministic rules)" : "", why);
      nsets++;
    }
    free(rules);
  }
  if (!rc && nsets == 0) {
    rc = SYMV_NOT_FOUND;
    snprintf(err, errlen, "no fit in the database (run `symvtune fit --db FILE` first)");
  }
  db_close(d);
  return rc;
}

static int run(int argc, char **argv)
{
  static const struct option opts[] = {{"db", required_argument, 0, CLI_DB},   {"out", required_argument, 0, 'o'},
                                       {"routine", required_argument, 0, 'r'}, {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  cli_opts o = {.cmd = "export", .options = opts, .help = help, .need_db = 1};
  const char *out = NULL;
  int sel[SYMV_ROUTINE_COUNT], all = 1, c;
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) sel[i] = 1;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'r':
      if (cli_parse_routines("export", optarg, sel)) return SYMV_EXIT_USAGE;
      all = !strcmp(optarg, "all");
      break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  if (!out || !*out) return cli_usage_error("export", "--out FILE is required");
  if (strcmp(out, "-") && cli_refuse_overwrite("export", "--out", out, "the database", o.db)) return SYMV_EXIT_USAGE;

  symv_wisdom w;
  memset(&w, 0, sizeof w);
  char err[1024] = "";
  int rc = read_db(o.db, sel, all, &w, err, sizeof err);
  if (rc) {
    fprintf(stderr, "symvtune export: %s: %s; nothing written\n", o.db, err);
    symv_wisdom_free(&w);
    return SYMV_EXIT_ERROR;
  }
  /* the text, then read back as libsymv reads it */
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  rc = mem ? symv_wisdom_write(mem, &w) : SYMV_NO_MEMORY;
  if (mem && fclose(mem)) rc = SYMV_NO_MEMORY;
  symv_wisdom back;
  if (!rc && (rc = symv_wisdom_parse(text, len, &back, err, sizeof err)))
    fprintf(stderr, "symvtune export: %s: the wisdom made of it does not read back (%s); nothing written\n", o.db,
            err);
  else if (rc)
    fprintf(stderr, "symvtune export: out of memory; nothing written\n");
  symv_wisdom_free(&back);
  if (rc) {
    free(text);
    symv_wisdom_free(&w);
    return SYMV_EXIT_ERROR;
  }
  if (!strcmp(out, "-")) {
    rc = fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : -1;
    if (rc) fprintf(stderr, "symvtune export: cannot write to standard output: %s\n", strerror(errno));
  } else {
    symv_out_file o;
    rc = symv_out_open(&o, out);
    if (!rc && (fwrite(text, 1, len, o.f) != len || symv_out_commit(&o))) {
      rc = -1;
      symv_out_abort(&o);
    }
    if (rc) fprintf(stderr, "symvtune export: cannot write %s: %s; it is as it was\n", out, strerror(errno));
  }
  if (!rc && strcmp(out, "-")) {
    char name[4 * sizeof w.dev.name];
    int nsets = 0;
    for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) nsets += w.set[i][0].have + w.set[i][1].have;
    printf("symvtune export: %s: %d rule sets, %d rules, %d candidates, for %s (sm_%d%d, %d SMs)\n", out,
           nsets, w.nrules, w.ncands,
           symv_escape(w.dev.name, name, sizeof name), w.dev.cc_major, w.dev.cc_minor, w.dev.sm_count);
  }
  free(text);
  symv_wisdom_free(&w);
  return rc ? SYMV_EXIT_ERROR : SYMV_EXIT_OK;
}

const symv_command cmd_export_entry = {"export", "write a database's rules as a wisdom file for libsymv --wisdom builds",
                                       run};
