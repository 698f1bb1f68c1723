/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_build.c - `symvtune build`: turns the latest fit's rules in a database
 * into the generated library DIR/lib/libsymv.so (doc/method.md section 4 step
 * 8: the paper emits its rules as code; so does this).
 *
 * What it writes under DIR:
 *   src/kernels/   the kernel sources, from the copies embedded in symvtune
 *                  (the very text NVRTC compiled when the tuner measured them)
 *   src/runtime/   the library's runtime (libsymv.c, gpu.c, ...), likewise
 *   src/NAME.cu    one per chosen kernel: #include of its family's source,
 *                  compiled with exactly symv_compile_defines' -D flags
 *   src/symv_table.c  the dispatch table: rules, candidates, tuned device
 *   obj/           objects and each compilation's log
 *   lib/libsymv.so.X.Y.Z  the library, SONAME libsymv.so.X (X.Y.Z: symv.h's
 *                  SYMV_VERSION_*), with the links libsymv.so.X and
 *                  libsymv.so (for -lsymv) beside it
 *   lib/pkgconfig/libsymv.pc, lib/cmake/symv/symvConfig*.cmake: how to link
 *                  it (pkg-config, CMake's find_package), relocatable: both
 *                  find the library from their own folder
 *   include/symv.h
 *
 * Every value read from the database is validated before it is written into
 * source (style.md, "Generated code"): rule kernels in the known set,
 * candidates through symv_params_check and the family list, intervals
 * positive, ordered and tiling the fit's range, the device name written as
 * an escaped C string. A bad value stops the build before anything is
 * written. No GPU is needed: nvcc compiles for the architecture named.
 */
#define _GNU_SOURCE /* renameat2, nftw's FTW_PHYS */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../db/db.h"
#include "cli.h"
#include "util.h"
#include "compile.h"
#include "config.h"
#include "kernel_sources.h"
#include "lib_sources.h"
#include "libsymv_table.h"
#include "params.h"
#include "progress.h"
#include "routine.h"
#include "symv.h"
#include "symv_error.h"

/* The library's file names: the SONAME carries the major version only. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define LIB_VERSION STR(SYMV_VERSION_MAJOR) "." STR(SYMV_VERSION_MINOR) "." STR(SYMV_VERSION_PATCH)
#define LIB_SONAME "libsymv.so." STR(SYMV_VERSION_MAJOR)
#define LIB_REALNAME "libsymv.so." LIB_VERSION

#define MAX_RULES 100000 /* more would be a broken fit, not a tuned one */
#define MAX_CANDS 256
#define N_MAX DB_N_MAX   /* largest n a rule may name (db.h) */

/* A distinct candidate named by the rules. */
typedef struct {
  symv_params p;  /* validated */
  long long id;   /* its row in the database */
  int kernel;     /* index of its code in plan.kernels */
} build_cand;

/* A distinct kernel (candidates that differ in MULTIPLICITY share it). */
typedef struct {
  symv_params p;        /* its first candidate */
  char name[64];        /* symv_kernel_name */
  char defines[256];    /* symv_compile_defines */
  const char *source;   /* kernel file, e.g. "symv_red.cu" */
  int maxreg;           /* registers per thread the tuner's build of it used (the least over its
                           candidates; 0: unknown): nvcc gets -maxrregcount=maxreg, so that the
                           library's build is never given fewer blocks per SM than the tuner measured
                           (nvcc and NVRTC may allocate differently: pipe_det:512,64,2,0 of DSYMV,
                           64 or fewer with NVRTC, 75 with nvcc, one block per SM instead of two) */
} build_kernel;

/* A rule, validated. */
typedef struct {
  int n_start, n_end;   /* interval, inclusive */
  int kernel;           /* index into plan.cands, or SYMV_RULE_CUBLAS* */
  double predicted_us;  /* for the summary only */
  double gain;          /* for the summary only */
} build_rule;

/* The rules of one routine. */
typedef struct {
  int have;                          /* 1: the database has a fit of this routine */
  db_fit fit;                        /* the fit the rules come from */
  build_rule *rules;                 /* nrules, malloc'ed */
  int nrules;
} build_routine;

typedef struct {
  db_device dev;                     /* fingerprint of the tuned GPU */
  build_routine rt[SYMV_ROUTINE_COUNT]; /* indexed by symv_routine: the 'any' rules */
  build_routine det[SYMV_ROUTINE_COUNT]; /* the 'deterministic' rules (CUBLAS_ATOMICS_NOT_ALLOWED) */
  build_cand cands[MAX_CANDS];
  int ncands;
  build_kernel kernels[MAX_CANDS];
  int nkernels;
  char arch[16];                     /* "sm_90" */
  int wisdom;                        /* 1: --wisdom: no rules compiled in; wisdom files read at run time */
  char wisdom_dir[PATH_MAX];         /* --wisdom-dir: the library's system folder of wisdom files ("": its own
                                        LIBDIR/../share/symv) */
} build_plan;

static const char *const family_enum[SYMV_FAMILY_COUNT] = {"SYMV_FAMILY_ATOMIC", "SYMV_FAMILY_LU",
                                                           "SYMV_FAMILY_ATOMIC_RED", "SYMV_FAMILY_FAULT",
                                                           "SYMV_FAMILY_FLOOR", "SYMV_FAMILY_ATOMIC_W",
                                                           "SYMV_FAMILY_PANEL", "SYMV_FAMILY_PIPE",
                                                           "SYMV_FAMILY_PIPE_DET"};

static void help(void)
{
  puts("Usage: symvtune build --db FILE --out DIR [OPTIONS]\n"
       "       symvtune build --wisdom --out DIR [--wisdom-dir PATH] [OPTIONS]\n"
       "Generates libsymv, drop-ins for cuBLAS's SYMV and HEMV routines on the GPU the database\n"
       "was measured on, from the latest fit of each routine in FILE (see `symvtune fit`): writes\n"
       "the kernel sources, one .cu per chosen kernel, a dispatch table and the runtime under\n"
       "DIR/src, compiles them with nvcc (no GPU needed) and links DIR/lib/" LIB_REALNAME "\n"
       "(SONAME " LIB_SONAME ", with the links " LIB_SONAME " and libsymv.so); writes DIR/include/symv.h,\n"
       "DIR/lib/pkgconfig/libsymv.pc and DIR/lib/cmake/symv (find_package(symv): symv::symv), which\n"
       "find the library from their own folder: DIR may be moved. Every value read from FILE is\n"
       "validated first; a bad one\n"
       "stops the build before anything is written. All is compiled in a private temporary\n"
       "folder and then takes DIR's place in one rename: a build that fails leaves DIR as it was.\n\n"
       "With --wisdom, no rules are compiled in: the library reads wisdom files (`symvtune export`) at\n"
       "run time, from $SYMV_WISDOM and then its system folder, and on each GPU uses the file of that\n"
       "GPU model; the kernels its rules name are compiled there on first use by NVRTC, from the\n"
       "sources this program compiles, with its options, and cached (as symvtune caches them). One\n"
       "such library serves every GPU model a site has wisdom for (man libsymv(3), symv-wisdom(5)).\n\n"
       "Options:\n"
       "  --db FILE      the database (read only; needs a fit)\n"
       "  --wisdom       build the wisdom-driven library instead (no --db, no --arch)\n"
       "  --wisdom-dir PATH  its system folder of wisdom files, an absolute path (default: the\n"
       "                 library's own folder's ../share/symv, i.e. DIR/share/symv, wherever DIR is moved)\n"
       "  --out DIR      where to write: created, or replaced whole once the library is built\n"
       "                 (an existing DIR may hold only a previous build: src, obj, lib, include,\n"
       "                 and share, the site's wisdom files, which the new DIR keeps)\n"
       "  --nvcc PATH    nvcc to use (default: $NVCC, $CUDA_HOME/bin/nvcc, nvcc in PATH,\n"
       "                 /usr/local/cuda/bin/nvcc)\n"
       "  --arch sm_XY   GPU architecture: the database's device's (the default, e.g. sm_90),\n"
       "                 or its sm_XYa or sm_XYf; another is refused\n"
       "  --jobs N       parallel compilations (default: the number of CPUs)\n"
       "  --help         this text\n"
       "Use: cc prog.c $(PKG_CONFIG_PATH=DIR/lib/pkgconfig pkg-config --cflags --libs libsymv),\n"
       "CMake: find_package(symv) with symv_DIR=DIR/lib/cmake/symv and target_link_libraries(prog\n"
       "symv::symv), or LD_PRELOAD=DIR/lib/libsymv.so; man libsymv(3). SYMV_LOG=1 logs every call.\n"
       "Exit status: 0 built; 2 usage, an --arch not the database's GPU's, or a DIR not build's own to\n"
       "replace; 4 database refused, compiler missing or failed (DIR is then as it was).");
}

/* ---- Validation of what the database says ------------------------------ */

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
  if (!terminated(c->family, sizeof c->family) || symv_family_parse(c->family, &p->family) ||
      !symv_family_tunable(p->family)) {
    snprintf(err, errlen, "candidate %lld: unknown kernel family (" SYMV_TUNABLE_FAMILIES ")", c->id);
    return SYMV_INVALID_VALUE;
  }
  p->block_size = c->block_size, p->ux = c->ux, p->multiplicity = c->multiplicity, p->mx = c->mx;
  if (!terminated(c->routine, sizeof c->routine) || symv_routine_parse(c->routine, &p->routine)) {
    snprintf(err, errlen, "candidate %lld: unknown routine (" SYMV_ROUTINE_NAMES ")", c->id);
    return SYMV_INVALID_VALUE;
  }
  if (symv_params_check(p, why, sizeof why)) {
    snprintf(err, errlen, "candidate %lld (%s): %s", c->id, c->family, why);
    return SYMV_INVALID_VALUE;
  }
  if (c->status != DB_VALID) {
    snprintf(err, errlen, "candidate %lld (%s:%d,%d,%d,%d) is %s, not valid", c->id, c->family, c->block_size, c->ux,
             c->multiplicity, c->mx, db_status_name(c->status));
    return SYMV_INVALID_VALUE;
  }
  return 0;
}

/* Index of candidate p in the plan, added (with its kernel) if new. */
static int plan_add_candidate(build_plan *pl, const symv_params *p, long long id, int regs, char *err,
                              size_t errlen)
{
  for (int i = 0; i < pl->ncands; i++)
    if (!memcmp(&pl->cands[i].p, p, sizeof *p)) return i;
  if (pl->ncands == MAX_CANDS) {
    snprintf(err, errlen, "the rules name more than %d candidates", MAX_CANDS);
    return SYMV_INVALID_VALUE;
  }
  int k;
  for (k = 0; k < pl->nkernels; k++)
    if (symv_params_same_code(&pl->kernels[k].p, p)) break;
  if (k == pl->nkernels) {
    build_kernel *bk = &pl->kernels[pl->nkernels++];
    bk->p = *p;
    symv_kernel_name(p, bk->name, sizeof bk->name);
    int len = symv_compile_defines(p, bk->defines, sizeof bk->defines, &bk->source);
    if (len < 0 || (size_t)len >= sizeof bk->defines) {
      snprintf(err, errlen, "candidate %lld: compile flags too long", id);
      return SYMV_INVALID_VALUE;
    }
  }
  if (regs > 0 && (pl->kernels[k].maxreg == 0 || regs < pl->kernels[k].maxreg)) pl->kernels[k].maxreg = regs;
  build_cand *c = &pl->cands[pl->ncands];
  c->p = *p, c->id = id, c->kernel = k;
  return pl->ncands++;
}

/* Checks the device fingerprint and picks the architecture. */
static int check_device(build_plan *pl, const char *arch_opt, char *err, size_t errlen)
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
static int check_rules(build_plan *pl, symv_routine ro, build_routine *rt, const db_rule *r, size_t nr, char *err,
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
    build_rule *b = &rt->rules[i];
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

/* Reads and validates everything the build takes from the database at path.
 * Errors: a SYMV_ code, with the reason in err. */
/* The latest fit of routine ro and atomics class `deterministic` (cold
 * samples of uplo L, what `symvtune fit` makes by default) with its rules;
 * SYMV_NOT_FOUND if there is none. */
static int latest_fit(db *d, symv_routine ro, int deterministic, db_fit *fit, db_rule **rules, size_t *nrules)
{
  return db_latest_fit_class(d, symv_routine_name(ro), 'L', 0, deterministic, fit, rules, nrules, NULL, NULL);
}

/* The plan's rules of every routine, freed. */
static void plan_free(build_plan *pl)
{
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    free(pl->rt[r].rules), pl->rt[r].rules = NULL;
    free(pl->det[r].rules), pl->det[r].rules = NULL;
  }
}

/* Reads the device and, for every routine with a fit (cold samples, uplo
 * L: the fit `symvtune fit` makes by default), its latest fit's rules. */
static int plan_read(const char *path, const char *arch_opt, build_plan *pl, char *err, size_t errlen)
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
    build_routine *rt = det ? &pl->det[ro] : &pl->rt[ro];
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
  db_close(d);
  return rc;
}

/* ---- Writing ------------------------------------------------------------- */


/* Writes text to path (replacing it). 0, or -1 with a message printed. */
static int write_text(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "symvtune build: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  size_t len = strlen(text);
  int ok = fwrite(text, 1, len, f) == len;
  ok &= fclose(f) == 0;
  if (!ok) fprintf(stderr, "symvtune build: cannot write %s: %s\n", path, strerror(errno));
  return ok ? 0 : -1;
}

/* A growing string. */
typedef struct {
  char *s;
  size_t len, cap;
  int failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
  va_list ap;
  for (;;) {
    if (b->failed) return;
    size_t room = b->cap - b->len;
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->failed = 1;
      return;
    }
    if ((size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = (b->cap + (size_t)n + 1) * 2;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->failed = 1;
      return;
    }
    b->s = s, b->cap = cap;
  }
}

/* s as the body of a C string literal: quotes and backslashes escaped, '?'
 * escaped (no trigraphs), anything outside printable ASCII in octal. */
static void sb_c_string(sbuf *b, const char *s)
{
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\' || *p == '?') sb_printf(b, "\\%c", *p);
    else if (*p >= 0x20 && *p < 0x7f) sb_printf(b, "%c", *p);
    else sb_printf(b, "\\%03o", *p);
  }
}

/* The command line for the generated files' first line, made safe for a C
 * comment: control characters become '?', and no star-slash survives. */
static void made_by(int argc, char **argv, char *out, size_t len)
{
  size_t k = 0;
  int first = 1;
  for (int i = -1; i < argc && k + 1 < len; i++) {
    const char *w = i < 0 ? "symvtune" : argv[i];
    if (!first && k + 1 < len) out[k++] = ' ';
    first = 0;
    for (const unsigned char *p = (const unsigned char *)w; *p && k + 1 < len; p++) {
      char c = (*p < 0x20 || *p == 0x7f) ? '?' : (char)*p;
      if (c == '/' && k > 0 && out[k - 1] == '*') c = '|';
      out[k++] = c;
    }
  }
  out[k] = 0;
}

#define GENERATED "This file was automatically generated --- DO NOT EDIT. Made by: "
/* The second line of every generated file: the library's licence (LICENSE). */
#define SPDX "SPDX-License-Identifier: BSD-3-Clause"

/* src/NAME.cu for each kernel. */
static int write_kernel_units(const build_plan *pl, const char *dir, const char *cmd)
{
  char path[PATH_MAX + 128];
  for (int k = 0; k < pl->nkernels; k++) {
    const build_kernel *bk = &pl->kernels[k];
    sbuf b = {0};
    sb_printf(&b, "/* " GENERATED "%s */\n/* " SPDX " */\n", cmd);
    sb_printf(&b, "/* Kernel %s of candidates", bk->name);
    for (int c = 0; c < pl->ncands; c++)
      if (pl->cands[c].kernel == k) {
        char label[64];
        symv_params_format(&pl->cands[c].p, label, sizeof label);
        sb_printf(&b, " %s (id %lld)", label, pl->cands[c].id);
      }
    sb_printf(&b, ",\n * compiled with the flags the tuner gave NVRTC (symv_compile_defines):\n *   %s", bk->defines);
    if (bk->maxreg > 0)
      sb_printf(&b, "\n * and -maxrregcount=%d, the registers per thread of the tuner's build", bk->maxreg);
    sb_printf(&b, " */\n");
    sb_printf(&b, "#include \"%s\"\n", bk->source);
    snprintf(path, sizeof path, "%s/src/%s.cu", dir, bk->name);
    int rc = b.failed ? -1 : write_text(path, b.s);
    free(b.s);
    if (rc) return -1;
  }
  return 0;
}

/* src/symv_table.c: the rules, the candidates, the tuned device. */
static int write_table(const build_plan *pl, const char *dir, const char *cmd)
{
  char path[PATH_MAX + 128];
  sbuf b = {0};
  sb_printf(&b, "/* " GENERATED "%s */\n/* " SPDX " */\n", cmd);
  if (pl->wisdom)
    sb_printf(&b, "/* Dispatch table of a libsymv built with --wisdom (lib/libsymv_table.h): no rules; they come\n"
                  " * from the wisdom files the library reads at run time (lib/wisdom.h).\n");
  else
    sb_printf(&b, "/* Dispatch table of libsymv (lib/libsymv_table.h), %d candidates in %d kernels, for sm_%d%d with %d "
                  "SMs:\n",
              pl->ncands, pl->nkernels, pl->dev.cc_major, pl->dev.cc_minor, pl->dev.sm_count);
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const build_routine *rt = &pl->rt[symv_routine_order(i)];
    const build_routine *dt = &pl->det[symv_routine_order(i)];
    if (rt->have)
      sb_printf(&b, " * %s: the rules of fit %lld (samples uplo %c, %s), n %d..%d, %d rules; deterministic: %s%lld, "
                "%d rules\n", symv_routine_name(symv_routine_order(i)), rt->fit.id, rt->fit.uplo,
                rt->fit.hot ? "hot" : "cold", rt->fit.lo, rt->fit.hi, rt->nrules, dt->have ? "fit " : "none (cuBLAS) ",
                dt->have ? dt->fit.id : 0LL, dt->nrules);
    else if (!pl->wisdom) sb_printf(&b, " * %s: not tuned (cuBLAS)\n", symv_routine_name(symv_routine_order(i)));
  }
  sb_printf(&b, " */\n");
  sb_printf(&b, "#include \"libsymv_table.h\"\n\n");
  sb_printf(&b, "/* The kernels' host stubs (compiled in by nvcc from src/NAME.cu); only their addresses are\n"
                " * taken here, so their parameters need not be spelled out. */\n");
  for (int k = 0; k < pl->nkernels; k++) sb_printf(&b, "void %s(void);\n", pl->kernels[k].name);
  sb_printf(&b, "\nconst symv_table_candidate symv_table_candidates[] = {\n");
  for (int c = 0; c < pl->ncands; c++) {
    const build_cand *bc = &pl->cands[c];
    const char *name = pl->kernels[bc->kernel].name;
    sb_printf(&b, "  {{%s, %d, %d, %d, %d, (symv_routine)%d}, \"%s\", (const void *)%s}, /* %d: candidate id %lld */\n",
              family_enum[bc->p.family], bc->p.block_size, bc->p.ux, bc->p.multiplicity, bc->p.mx, (int)bc->p.routine,
              name, name, c, bc->id);
  }
  if (pl->ncands == 0) sb_printf(&b, "  {{SYMV_FAMILY_ATOMIC, 32, 1, 1, 0}, \"\", 0}, /* unused: no candidate */\n");
  sb_printf(&b, "};\nconst int symv_table_ncandidates = %d;\n\n", pl->ncands);
  sb_printf(&b, "const symv_table_rule symv_table_rules[] = {\n");
  int first[2][SYMV_ROUTINE_COUNT] = {{0}}, total = 0;
  for (int q = 0; q < 2 * SYMV_ROUTINE_COUNT; q++) {
    const int ro = q / 2, det = q % 2;
    const build_routine *rt = det ? &pl->det[ro] : &pl->rt[ro];
    first[det][ro] = total;
    if (rt->nrules) sb_printf(&b, "  /* %s%s */\n", symv_routine_name((symv_routine)ro), det ? ", deterministic" : "");
    for (int i = 0; i < rt->nrules; i++, total++) {
      const build_rule *r = &rt->rules[i];
      char kernel[32];
      if (r->kernel >= 0) snprintf(kernel, sizeof kernel, "%d", r->kernel);
      sb_printf(&b, "  {%d, %d, %s}, /* predicted %.4g us at the middle, x%.3g over the faster cuBLAS */\n",
                r->n_start, r->n_end,
                r->kernel == SYMV_RULE_CUBLAS ? "SYMV_RULE_CUBLAS"
                : r->kernel == SYMV_RULE_CUBLAS_ATOMICS ? "SYMV_RULE_CUBLAS_ATOMICS" : kernel,
                r->predicted_us, r->gain);
    }
  }
  if (total == 0) sb_printf(&b, "  {1, 1, SYMV_RULE_CUBLAS}, /* unused: no rule */\n");
  sb_printf(&b, "};\nconst int symv_table_nrules = %d;\n\n", total);
  sb_printf(&b, "const symv_table_routine symv_table_routines[SYMV_ROUTINE_COUNT] = {\n");
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++) {
    const build_routine *rt = &pl->rt[ro], *dt = &pl->det[ro];
    sb_printf(&b, "  {%d, %d, %lldLL, '%c', %d, %d, %d, %lldLL}, /* %s */\n", first[0][ro], rt->nrules,
              rt->have ? rt->fit.id : 0LL, rt->have ? rt->fit.uplo : 'L', rt->have ? rt->fit.hot : 0, first[1][ro],
              dt->nrules, dt->have ? dt->fit.id : 0LL, symv_routine_name((symv_routine)ro));
  }
  sb_printf(&b, "};\n\n");
  sb_printf(&b, "const symv_table_info symv_table_device = {\"");
  sb_c_string(&b, pl->dev.name);
  sb_printf(&b, "\", %d, %d, %d, \"%s\"};\n", pl->dev.cc_major, pl->dev.cc_minor, pl->dev.sm_count, pl->arch);
  sb_printf(&b, "\n/* the system folder of wisdom files (a --wisdom library's; \"\": LIBDIR/../share/symv) */\n"
                "const char symv_table_wisdom_dir[] = \"");
  sb_c_string(&b, pl->wisdom_dir);
  sb_printf(&b, "\";\n");
  snprintf(path, sizeof path, "%s/src/symv_table.c", dir);
  int rc = b.failed ? -1 : write_text(path, b.s);
  free(b.s);
  return rc;
}

/* src/kernel_sources.c of a --wisdom library: the kernel sources NVRTC
 * compiles there (gpu/kernel_sources.h), the very text this program
 * compiles and the wisdom files' "sources" fingerprint names. */
static int write_kernel_sources(const char *dir, const char *cmd)
{
  char path[PATH_MAX + 128];
  sbuf b = {0};
  sb_printf(&b, "/* " GENERATED "%s */\n/* " SPDX " */\n#include \"kernel_sources.h\"\n\n", cmd);
  sb_printf(&b, "const symv_source symv_sources[] = {\n");
  for (int i = 0; i < symv_nsources; i++) {
    sb_printf(&b, "  {\"");
    sb_c_string(&b, symv_sources[i].name);
    sb_printf(&b, "\",\n   \"");
    for (const char *t = symv_sources[i].text; *t;) { /* one literal per line of the source */
      const char *nl = strchr(t, '\n');
      size_t l = nl ? (size_t)(nl - t + 1) : strlen(t);
      char *line = strndup(t, l);
      if (!line) {
        b.failed = 1;
        break;
      }
      sb_c_string(&b, line);
      free(line);
      t += l;
      if (*t) sb_printf(&b, "\"\n   \"");
    }
    sb_printf(&b, "\"},\n");
  }
  sb_printf(&b, "};\nconst int symv_nsources = %d;\n", symv_nsources);
  snprintf(path, sizeof path, "%s/src/kernel_sources.c", dir);
  int rc = b.failed ? -1 : write_text(path, b.s);
  free(b.s);
  return rc;
}

/* Every embedded file of `src` into dir/sub. */
static int write_embedded(const symv_source *src, int n, const char *dir, const char *sub)
{
  char path[PATH_MAX + 128];
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, src[i].name);
    if (write_text(path, src[i].text)) return -1;
  }
  return 0;
}

static const symv_source *lib_source(const char *name)
{
  for (int i = 0; i < symv_lib_nsources; i++)
    if (!strcmp(symv_lib_sources[i].name, name)) return &symv_lib_sources[i];
  return NULL;
}

/* s with the characters pkg-config treats specially escaped. */
static void sb_pc_path(sbuf *b, const char *s)
{
  for (; *s; s++) sb_printf(b, strchr(" \t\"'\\$#", *s) ? "\\%c" : "%c", *s);
}

/* The flags that link libsymv so that it cannot silently drop out: kept
 * against --as-needed (a program that names no symv* function still needs
 * it, for the cuBLAS entry points it stands in front of) and listed before
 * cuBLAS, so that the dynamic linker binds cublasDsymv_v2 ... to it. */
#define KEEP_LINKED_ON "-Wl,--push-state,--no-as-needed"
#define KEEP_LINKED_OFF "-Wl,--pop-state"

/* dir/lib/pkgconfig/libsymv.pc: relocatable (prefix is found from the
 * file's own folder, ${pcfiledir}); the CUDA toolkit at cuda_root. */
static int write_pc(const build_plan *pl, const char *dir, const char *cuda_root)
{
  char path[PATH_MAX + 128];
  sbuf b = {0};
  sb_printf(&b, "# " GENERATED "symvtune build\n# " SPDX "\n");
  sb_printf(&b, "# Relocatable: the prefix is this file's folder's grandparent. The Libs keep libsymv\n"
                "# against --as-needed and put it before cuBLAS, whose SYMV and HEMV it stands in for.\n");
  sb_printf(&b, "prefix=${pcfiledir}/../..\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\ncudadir=");
  sb_pc_path(&b, cuda_root);
  if (pl->wisdom) {
    sb_printf(&b, "\n\nName: libsymv\nDescription: SYMV and HEMV tuned by symvtune, by the rules of the wisdom "
                  "files of each GPU model, drop-ins for cuBLAS's\nVersion: %s\n", LIB_VERSION);
  } else {
    sb_printf(&b, "\n\nName: libsymv\nDescription: SYMV and HEMV tuned by symvtune for ");
    for (const char *c = pl->dev.name; *c; c++) /* the database's text: printable ASCII, no $ or # */
      sb_printf(&b, "%c", *c >= 0x20 && *c < 0x7f && *c != '$' && *c != '#' ? *c : '?');
    sb_printf(&b, " (sm_%d%d, %d SMs), drop-ins for cuBLAS's\nVersion: %s\n", pl->dev.cc_major, pl->dev.cc_minor,
              pl->dev.sm_count, LIB_VERSION);
  }
  sb_printf(&b, "Libs: -L${libdir} -Wl,-rpath,${libdir} " KEEP_LINKED_ON " -lsymv " KEEP_LINKED_OFF
                " -L${cudadir}/lib64 -lcublas -lcudart\n"
                "Cflags: -I${includedir} -I${cudadir}/include\n");
  snprintf(path, sizeof path, "%s/lib/pkgconfig/libsymv.pc", dir);
  int rc = b.failed ? -1 : write_text(path, b.s);
  free(b.s);
  return rc;
}

/* s as the body of a CMake quoted argument. */
static void sb_cmake_string(sbuf *b, const char *s)
{
  for (; *s; s++) sb_printf(b, strchr("\"\\$;", *s) ? "\\%c" : "%c", *s);
}

/* dir/lib/cmake/symv/symvConfig.cmake and symvConfigVersion.cmake:
 * find_package(symv) gives the imported target symv::symv, which links as
 * libsymv.pc does; relocatable (paths from the file's own folder). */
static int write_cmake(const build_plan *pl, const char *dir, const char *cuda_root)
{
  char path[PATH_MAX + 128];
  sbuf b = {0};
  sb_printf(&b, "# " GENERATED "symvtune build\n# " SPDX "\n");
  char tuned[64];
  if (pl->wisdom) snprintf(tuned, sizeof tuned, "by the wisdom files of each GPU model");
  else snprintf(tuned, sizeof tuned, "for sm_%d%d with %d SMs", pl->dev.cc_major, pl->dev.cc_minor, pl->dev.sm_count);
  sb_printf(&b, "#\n# find_package(symv) gives the imported target symv::symv: libsymv %s, SYMV and HEMV\n"
                "# tuned %s, drop-ins for cuBLAS's. Linking it links libsymv kept against\n"
                "# --as-needed and before cuBLAS (CUDA::cublas, CUDA::cudart of find_package(CUDAToolkit)), so\n"
                "# that the program's cublas{S,D,C,Z}symv_v2 and cublas{C,Z}hemv_v2 calls bind to libsymv.\n"
                "# Relocatable: every path is found from this file's folder, DIR/lib/cmake/symv.\n",
            LIB_VERSION, tuned);
  sb_printf(&b, "if(CMAKE_VERSION VERSION_LESS 3.17)\n"
                "  set(symv_FOUND FALSE)\n"
                "  set(symv_NOT_FOUND_MESSAGE \"symv needs CMake 3.17 or later (FindCUDAToolkit)\")\n"
                "  return()\n"
                "endif()\n"
                "get_filename_component(_symv_prefix \"${CMAKE_CURRENT_LIST_DIR}/../../..\" ABSOLUTE)\n"
                "if(NOT DEFINED CUDAToolkit_ROOT AND NOT DEFINED ENV{CUDAToolkit_ROOT} AND EXISTS \"");
  sb_cmake_string(&b, cuda_root);
  sb_printf(&b, "\")\n  set(CUDAToolkit_ROOT \"");
  sb_cmake_string(&b, cuda_root);
  sb_printf(&b, "\") # the toolkit the library was built with\nendif()\n"
                "include(CMakeFindDependencyMacro)\n"
                "find_dependency(CUDAToolkit)\n"
                "# libsymv goes in the link options, which come before the objects and every library on\n"
                "# the link line: first, wherever the program lists cuBLAS (CUDA::cublas before symv::symv\n"
                "# too). SHELL: keeps the group whole when CMake merges options.\n"
                "if(NOT TARGET symv::symv)\n"
                "  add_library(symv::symv INTERFACE IMPORTED)\n"
                "  set_target_properties(symv::symv PROPERTIES\n"
                "    INTERFACE_INCLUDE_DIRECTORIES \"${_symv_prefix}/include\"\n"
                "    INTERFACE_LINK_OPTIONS \"SHELL:-Wl,-rpath,'${_symv_prefix}/lib' " KEEP_LINKED_ON
                " '${_symv_prefix}/lib/libsymv.so' " KEEP_LINKED_OFF "\"\n"
                "    INTERFACE_LINK_LIBRARIES \"CUDA::cublas;CUDA::cudart\")\n"
                "endif()\n"
                "set(symv_LIBRARY \"${_symv_prefix}/lib/" LIB_REALNAME "\")\n"
                "set(symv_INCLUDE_DIR \"${_symv_prefix}/include\")\n"
                "unset(_symv_prefix)\n");
  snprintf(path, sizeof path, "%s/lib/cmake/symv/symvConfig.cmake", dir);
  int rc = b.failed ? -1 : write_text(path, b.s);
  free(b.s);
  if (rc) return rc;
  sbuf v = {0};
  sb_printf(&v, "# " GENERATED "symvtune build\n# " SPDX "\n");
  sb_printf(&v, "# libsymv %s: compatible with a request of the same major version, not newer.\n"
                "set(PACKAGE_VERSION \"%s\")\n"
                "if(NOT PACKAGE_FIND_VERSION)\n"
                "  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
                "elseif(PACKAGE_FIND_VERSION_MAJOR STREQUAL \"%d\" AND NOT PACKAGE_FIND_VERSION VERSION_GREATER "
                "PACKAGE_VERSION)\n"
                "  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
                "  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)\n"
                "    set(PACKAGE_VERSION_EXACT TRUE)\n"
                "  endif()\n"
                "else()\n"
                "  set(PACKAGE_VERSION_COMPATIBLE FALSE)\n"
                "endif()\n"
                "if(NOT CMAKE_SIZEOF_VOID_P STREQUAL \"8\") # the library is 64-bit\n"
                "  set(PACKAGE_VERSION \"${PACKAGE_VERSION} (64bit)\")\n"
                "  set(PACKAGE_VERSION_UNSUITABLE TRUE)\n"
                "endif()\n",
            LIB_VERSION, LIB_VERSION, SYMV_VERSION_MAJOR);
  snprintf(path, sizeof path, "%s/lib/cmake/symv/symvConfigVersion.cmake", dir);
  rc = v.failed ? -1 : write_text(path, v.s);
  free(v.s);
  return rc;
}

/* ---- Compiling ------------------------------------------------------------ */

/* Finds an executable nvcc: opt, $NVCC, $CUDA_HOME/bin/nvcc, PATH,
 * /usr/local/cuda/bin/nvcc. */
static int find_nvcc(const char *opt, char *out, size_t len)
{
  if (opt) {
    snprintf(out, len, "%s", opt);
    return access(out, X_OK) == 0 ? 0 : -1;
  }
  const char *env = getenv("NVCC"), *home = getenv("CUDA_HOME"), *path = getenv("PATH");
  if (env && *env && access(env, X_OK) == 0) return snprintf(out, len, "%s", env), 0;
  if (home && *home) {
    snprintf(out, len, "%s/bin/nvcc", home);
    if (access(out, X_OK) == 0) return 0;
  }
  for (const char *p = path; p && *p;) {
    const char *colon = strchr(p, ':');
    size_t l = colon ? (size_t)(colon - p) : strlen(p);
    if (l > 0) {
      snprintf(out, len, "%.*s/nvcc", (int)l, p);
      if (access(out, X_OK) == 0) return 0;
    }
    p += l + (colon ? 1 : 0);
  }
  snprintf(out, len, "/usr/local/cuda/bin/nvcc");
  return access(out, X_OK) == 0 ? 0 : -1;
}

/* One compiler run. */
typedef struct {
  char **argv;        /* NULL-terminated, words strdup'ed */
  int argc, cap;
  int failed;         /* out of memory while adding words */
  char log[PATH_MAX + 128];
  char what[96];
  pid_t pid;
} job;

static void job_arg(job *j, const char *w)
{
  if (j->argc + 2 > j->cap) {
    int cap = j->cap ? 2 * j->cap : 32;
    char **a = realloc(j->argv, (size_t)cap * sizeof *a);
    if (!a) {
      j->failed = 1;
      return;
    }
    j->argv = a, j->cap = cap;
  }
  if (!(j->argv[j->argc] = strdup(w))) {
    j->failed = 1;
    return;
  }
  j->argv[++j->argc] = NULL;
}

/* Adds each space-separated word of s. */
static void job_words(job *j, const char *s)
{
  char *buf = strdup(s);
  if (!buf) {
    j->failed = 1;
    return;
  }
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) job_arg(j, tok);
  free(buf);
}

static void job_free(job *j)
{
  for (int i = 0; i < j->argc; i++) free(j->argv[i]);
  free(j->argv);
}

/* Starts job j in the folder dir (its working folder and nvcc's TMPDIR:
 * nvcc runs its stages through a shell, and every path it then names,
 * its temporary files' included, lies in dir, whose name is shell-safe). */
static int job_start(job *j, const char *dir)
{
  if (j->failed || !j->argv) {
    errno = ENOMEM;
    return -1;
  }
  fflush(NULL);
  j->pid = fork();
  if (j->pid < 0) return -1;
  if (j->pid == 0) {
    if (chdir(dir) || setenv("TMPDIR", dir, 1)) {
      fprintf(stderr, "cannot enter %s: %s\n", dir, strerror(errno));
      _exit(127);
    }
    int fd = open(j->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execv(j->argv[0], j->argv);
    fprintf(stderr, "cannot run %s: %s\n", j->argv[0], strerror(errno));
    _exit(127);
  }
  return 0;
}

/* Prints the end of a failed job's log. */
static void job_report(const job *j, int status)
{
  fprintf(stderr, "symvtune build: %s failed (%s %d); command:\n ", j->what,
          WIFEXITED(status) ? "exit status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  for (int i = 0; i < j->argc; i++) fprintf(stderr, " %s", j->argv[i]);
  fprintf(stderr, "\n--- %s ---\n", j->log);
  FILE *f = fopen(j->log, "r");
  if (f) {
    char line[1024];
    int shown = 0;
    while (fgets(line, sizeof line, f) && shown++ < 60) fputs(line, stderr);
    fclose(f);
  }
}

/* Runs the jobs in dir, at most par at once, waiting only for its own
 * children (oldest first); each job that succeeds advances prog, its
 * `what` the note. 0 if all succeeded. */
static int run_jobs(job *jobs, int n, int par, const char *dir, symv_progress *prog)
{
  int next = 0, oldest = 0, failed = 0;
  while (oldest < next || (!failed && next < n)) {
    while (!failed && next - oldest < par && next < n) {
      if (job_start(&jobs[next], dir)) {
        fprintf(stderr, "symvtune build: cannot start %s: %s\n", jobs[next].what, strerror(errno));
        failed = 1;
        break;
      }
      next++;
    }
    if (oldest == next) break;
    int status;
    if (waitpid(jobs[oldest].pid, &status, 0) < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "symvtune build: waitpid: %s\n", strerror(errno));
      failed = 1;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      job_report(&jobs[oldest], status);
      failed = 1;
    } else {
      symv_progress_update(prog, prog->done + 1, jobs[oldest].what);
    }
    jobs[oldest++].pid = 0;
  }
  return failed ? -1 : 0;
}

static const char *const runtime_c[] = {"libsymv.c", "gpu.c",     "params.c", "routine.c",
                                        "symv_error.c", "compile.c", "util.c",   "wisdom.c"};
/* the runtime's units: the first five; a --wisdom library's: all (NVRTC, its cache, the wisdom reader) */
#define NRUNTIME_TABLE 5
#define NRUNTIME_ALL (int)(sizeof runtime_c / sizeof *runtime_c)

/* The end of a compile job: "-c src -o DIR/obj/base.o", its log in
 * DIR/obj/base.log. */
static void job_compile_io(job *j, const char *src, const char *dir, const char *base)
{
  char obj[PATH_MAX + 256];
  job_arg(j, "-c");
  job_arg(j, src);
  job_arg(j, "-o");
  snprintf(obj, sizeof obj, "%s/obj/%s.o", dir, base);
  job_arg(j, obj);
  snprintf(j->log, sizeof j->log, "%s/obj/%s.log", dir, base);
}

/* Compiles every unit under dir (a private folder with a shell-safe name:
 * symv_private_tmpdir) and links dir/lib/libsymv.so. */
static int compile_all(const build_plan *pl, const char *dir, const char *nvcc, const char *cuda_lib, int par)
{
  const int nrt = pl->wisdom ? NRUNTIME_ALL + 1 : NRUNTIME_TABLE; /* + src/kernel_sources.c */
  const int nj = pl->nkernels + nrt + 1;
  job *jobs = calloc((size_t)nj + 1, sizeof *jobs);
  if (!jobs) return -1;
  char buf[PATH_MAX + 256];
  int k = 0;
  for (int i = 0; i < pl->nkernels; i++, k++) {
    job *j = &jobs[k];
    const char *name = pl->kernels[i].name;
    job_arg(j, nvcc);
    job_words(j, "-O3 -std=c++17 -Xcompiler -fPIC -Xcompiler -fvisibility=hidden");
    snprintf(buf, sizeof buf, "-arch=%s", pl->arch);
    job_arg(j, buf);
    snprintf(buf, sizeof buf, "-I%s/src/kernels", dir);
    job_arg(j, buf);
    job_words(j, pl->kernels[i].defines);
    if (pl->kernels[i].maxreg > 0) {
      snprintf(buf, sizeof buf, "-maxrregcount=%d", pl->kernels[i].maxreg);
      job_arg(j, buf);
    }
    snprintf(buf, sizeof buf, "%s/src/%s.cu", dir, name);
    job_compile_io(j, buf, dir, name);
    snprintf(j->what, sizeof j->what, "compiling kernel %s", name);
  }
  for (int i = 0; i <= nrt; i++, k++) {
    job *j = &jobs[k];
    char base[64];
    if (i < nrt && i < NRUNTIME_ALL) {
      snprintf(base, sizeof base, "%.*s", (int)(strlen(runtime_c[i]) - 2), runtime_c[i]);
      snprintf(buf, sizeof buf, "%s/src/runtime/%s", dir, runtime_c[i]);
    } else if (i < nrt) {
      snprintf(base, sizeof base, "kernel_sources");
      snprintf(buf, sizeof buf, "%s/src/kernel_sources.c", dir);
    } else {
      snprintf(base, sizeof base, "symv_table");
      snprintf(buf, sizeof buf, "%s/src/symv_table.c", dir);
    }
    job_arg(j, nvcc);
    job_words(j, "-x c -O2 -Xcompiler -fPIC,-fvisibility=hidden,-std=gnu11,-Wall");
    if (pl->wisdom) job_arg(j, "-DSYMV_WISDOM_LIB");
    char inc[PATH_MAX + 64];
    snprintf(inc, sizeof inc, "-I%s/src/runtime", dir);
    job_arg(j, inc);
    job_compile_io(j, buf, dir, base);
    snprintf(j->what, sizeof j->what, "compiling %s.c", base);
  }
  symv_progress prog; /* on stderr: a bar on a terminal, else a line every 10 s */
  symv_progress_start(&prog, "compile", k + 1, 0);
  int rc = run_jobs(jobs, k, par, dir, &prog);
  if (rc == 0) { /* link */
    job *j = &jobs[k];
    job_arg(j, nvcc);
    job_words(j, "-shared -cudart shared -Xlinker -soname=" LIB_SONAME " -Xlinker --no-undefined");
    snprintf(buf, sizeof buf, "%s/lib/libsymv.so.tmp", dir);
    job_arg(j, "-o");
    job_arg(j, buf);
    for (int i = 0; i < k; i++) job_arg(j, jobs[i].argv[jobs[i].argc - 1]);
    if (cuda_lib) {
      job_arg(j, "-Xlinker");
      snprintf(buf, sizeof buf, "-rpath=%s", cuda_lib);
      job_arg(j, buf);
    }
    job_words(j, pl->wisdom ? "-lcublas -lnvrtc -lcudart -lpthread -ldl" : "-lcublas -lcudart -lpthread -ldl");
    snprintf(j->log, sizeof j->log, "%s/obj/link.log", dir);
    snprintf(j->what, sizeof j->what, "linking " LIB_REALNAME);
    rc = run_jobs(j, 1, 1, dir, &prog);
    char final[PATH_MAX + 128];
    snprintf(final, sizeof final, "%s/lib/" LIB_REALNAME, dir);
    snprintf(buf, sizeof buf, "%s/lib/libsymv.so.tmp", dir);
    if (rc == 0 && rename(buf, final)) {
      fprintf(stderr, "symvtune build: rename %s: %s\n", buf, strerror(errno));
      rc = -1;
    }
    if (rc) unlink(buf);
    /* the links: the SONAME (what the dynamic linker looks for) and the
     * name -lsymv finds, relative so that the folder can move */
    static const char *const links[][2] = {{LIB_REALNAME, LIB_SONAME}, {LIB_SONAME, "libsymv.so"}};
    for (int i = 0; rc == 0 && i < 2; i++) {
      snprintf(final, sizeof final, "%s/lib/%s", dir, links[i][1]);
      if (symlink(links[i][0], final)) {
        fprintf(stderr, "symvtune build: cannot link %s to %s: %s\n", final, links[i][0], strerror(errno));
        rc = -1;
      }
    }
  }
  if (rc == 0) symv_progress_finish(&prog);
  else if (prog.tty) fputc('\n', stderr);
  for (int i = 0; i <= k; i++) job_free(&jobs[i]);
  free(jobs);
  return rc;
}

/* The CUDA toolkit root of nvcc (its bin folder's parent), or NULL. The
 * name is kept as nvcc was found where its lib64 is there (e.g.
 * /usr/local/cuda, the link the toolkits maintain to the current one, not
 * /usr/local/cuda-13.0 it points to), so that what is written into the
 * library (RUNPATH) and its .pc names no one toolkit version beyond need;
 * else the folder nvcc really lies in. */
static const char *cuda_root_of(const char *nvcc, char *out, size_t len)
{
  char real[PATH_MAX], named[2 * PATH_MAX + 2], lib[2 * PATH_MAX + 16];
  struct stat st;
  if (nvcc[0] == '/') snprintf(named, sizeof named, "%s", nvcc);
  else if (getcwd(real, sizeof real)) snprintf(named, sizeof named, "%s/%s", real, nvcc);
  else named[0] = 0;
  for (int pass = 0; pass < 2; pass++) {
    char *p = pass == 0 ? named : real;
    if (pass == 1 && !realpath(nvcc, real)) return NULL;
    char *slash = strrchr(p, '/');
    if (!slash) continue;
    *slash = 0;
    if (!(slash = strrchr(p, '/'))) continue;
    *slash = 0;
    snprintf(lib, sizeof lib, "%s/lib64", p[0] ? p : "");
    if (pass == 0 && (stat(lib, &st) || !S_ISDIR(st.st_mode))) continue;
    if (snprintf(out, len, "%s", p[0] ? p : "/") >= (int)len) return NULL; /* no room for it: none */
    return out;
  }
  return NULL;
}

/* ---- Installing ----------------------------------------------------------
 *
 * Nothing is written under DIR while the library is built: the sources are
 * written and compiled in a private folder under $TMPDIR or /tmp whose name
 * is safe for the shell nvcc runs its stages through (symv_private_tmpdir),
 * so that no folder name of the user's reaches a shell. Once the library is
 * linked, that folder is moved (renamed, or copied across file systems) to a
 * fresh folder beside DIR, which then takes DIR's place in one rename. A
 * build that fails leaves DIR as it was; a symbolic link planted in DIR is
 * replaced with the rest, never followed. An existing DIR is replaced only
 * if it holds nothing but what build writes and not the database.
 */

static const char *const build_entries[] = {"src", "obj", "lib", "include", "share"};

/* DIR/share (the wisdom files a site dropped into a --wisdom library's
 * system folder, DIR/share/symv) is the site's, not build's: a new build
 * takes it over from the old DIR. Moves from/share to to/share if there is
 * one; 0, or -1 with a message printed. */
static int carry_share(const char *from, const char *to)
{
  char a[PATH_MAX + 16], b[PATH_MAX + 16];
  struct stat st;
  snprintf(a, sizeof a, "%s/share", from);
  snprintf(b, sizeof b, "%s/share", to);
  if (lstat(a, &st) && errno == ENOENT) return 0;
  if (rename(a, b)) {
    fprintf(stderr, "symvtune build: cannot keep %s (moving it to %s): %s\n", a, b, strerror(errno));
    return -1;
  }
  return 0;
}

/* The database's identity and whether a walk met it (nftw passes no user
 * data). */
static struct stat walk_db[4];
static int walk_ndb, walk_hit;

static int walk_find_db(const char *p, const struct stat *st, int flag, struct FTW *f)
{
  (void)p, (void)flag, (void)f;
  for (int i = 0; i < walk_ndb; i++)
    if (st->st_dev == walk_db[i].st_dev && st->st_ino == walk_db[i].st_ino) return walk_hit = 1;
  return 0;
}

/* 0 if the folder abs may be replaced by a new build: it does not exist, or
 * it is a folder holding only build's own entries (src, obj, lib, include),
 * none of them the database or its -wal, -shm or -journal file. Else prints
 * why and returns -1. */
static int dir_replaceable(const char *abs, const char *out, const char *dbpath)
{
  struct stat st;
  if (lstat(abs, &st)) {
    if (errno == ENOENT) return 0;
    fprintf(stderr, "symvtune build: --out %s: %s\n", out, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "symvtune build: --out %s exists and is not a folder: refusing to replace it\n", out);
    return -1;
  }
  DIR *dp = opendir(abs);
  if (!dp) {
    fprintf(stderr, "symvtune build: --out %s: %s\n", out, strerror(errno));
    return -1;
  }
  int rc = 0;
  for (struct dirent *e; rc == 0 && (e = readdir(dp));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    size_t i = 0;
    while (i < sizeof build_entries / sizeof *build_entries && strcmp(e->d_name, build_entries[i])) i++;
    if (i == sizeof build_entries / sizeof *build_entries) {
      fprintf(stderr, "symvtune build: --out %s holds '%s', which build does not write: refusing to replace the "
                      "folder (choose another --out, or empty it)\n", out, e->d_name);
      rc = -1;
    }
  }
  closedir(dp);
  if (rc) return rc;
  static const char *const sidecars[] = {"", "-wal", "-shm", "-journal"};
  walk_ndb = walk_hit = 0;
  for (int i = 0; *dbpath && i < 4; i++) { /* --wisdom: no database */
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s%s", dbpath, sidecars[i]);
    if (stat(p, &walk_db[walk_ndb]) == 0) walk_ndb++;
  }
  if (nftw(abs, walk_find_db, 16, FTW_PHYS) < 0 || walk_hit) {
    if (walk_hit)
      fprintf(stderr, "symvtune build: --out %s holds the database %s (an input of this command): refusing to "
                      "replace it\n", out, dbpath);
    else
      fprintf(stderr, "symvtune build: cannot read %s: %s\n", out, strerror(errno));
    return -1;
  }
  return 0;
}

/* The absolute name of the folder --out names, in abs: the folder a symbolic
 * link names if out is one, else out made absolute (its parent folders are
 * created). 0, or -1 with a message printed. */
static int out_path(const char *out, char *abs, size_t len)
{
  char real[PATH_MAX], tmp[PATH_MAX], base[PATH_MAX];
  struct stat st;
  if (realpath(out, real)) return snprintf(abs, len, "%s", real) >= (int)len ? -1 : 0;
  if (errno != ENOENT || lstat(out, &st) == 0) { /* a link to nothing is refused too */
    fprintf(stderr, "symvtune build: --out %s: %s\n", out,
            errno == ENOENT ? "a symbolic link to nothing" : strerror(errno));
    return -1;
  }
  snprintf(tmp, sizeof tmp, "%s", out);
  snprintf(base, sizeof base, "%s", basename(tmp));
  snprintf(tmp, sizeof tmp, "%s", out);
  char *parent = dirname(tmp);
  if (!strcmp(base, ".") || !strcmp(base, "..") || !strcmp(base, "/")) {
    fprintf(stderr, "symvtune build: --out %s: not a folder name\n", out);
    return -1;
  }
  if (symv_mkdir_p(parent) || !realpath(parent, real)) {
    fprintf(stderr, "symvtune build: cannot create %s: %s\n", parent, strerror(errno));
    return -1;
  }
  if (snprintf(abs, len, "%s/%s", strcmp(real, "/") ? real : "", base) >= (int)len) {
    fprintf(stderr, "symvtune build: --out %s: name too long\n", out);
    return -1;
  }
  return 0;
}

/* Where a tree copy goes (nftw passes no user data). */
static const char *copy_from, *copy_to;
static int copy_errno;

static int copy_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
  (void)f;
  char dst[PATH_MAX + 256];
  if (snprintf(dst, sizeof dst, "%s%s", copy_to, p + strlen(copy_from)) >= (int)sizeof dst) {
    copy_errno = ENAMETOOLONG;
    return 1;
  }
  if (flag == FTW_D) {
    if (mkdir(dst, st->st_mode & 07777) && errno != EEXIST) return copy_errno = errno, 1;
    return 0;
  }
  if (flag == FTW_SL) { /* the library's version links */
    char target[PATH_MAX];
    ssize_t n = readlink(p, target, sizeof target - 1);
    if (n < 0) return copy_errno = errno, 1;
    target[n] = 0;
    if (symlink(target, dst)) return copy_errno = errno, 1;
    return 0;
  }
  if (flag != FTW_F) return copy_errno = EINVAL, 1; /* build writes only folders, files and the links above */
  int in = open(p, O_RDONLY), out = in < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_EXCL, st->st_mode & 07777);
  char buf[65536];
  ssize_t k = 0;
  while (out >= 0 && (k = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)k) != k) k = -1;
  if (in < 0 || out < 0 || k < 0) copy_errno = errno ? errno : EIO;
  if (out >= 0 && close(out) && !copy_errno) copy_errno = errno;
  if (in >= 0) close(in);
  return copy_errno != 0;
}

/* Moves the finished build in work to DIR (abs): into a fresh folder beside
 * DIR (renamed there, or copied if /tmp is another file system), which then
 * takes DIR's place (an old DIR is swapped out and removed). 0, or -1 with
 * a message printed; DIR is then as it was. work is gone either way. */
static int install(const char *work, const char *abs, const char *out, const char *dbpath)
{
  char stage[PATH_MAX + 64], old[PATH_MAX + 64], tmp[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s", abs);
  const char *parent = dirname(tmp);
  snprintf(stage, sizeof stage, "%s/.symvtune-build-XXXXXX", parent);
  mode_t mask = umask(0);
  umask(mask);
  if (!mkdtemp(stage)) {
    fprintf(stderr, "symvtune build: cannot create a folder in %s: %s\n", parent, strerror(errno));
    symv_rmtree(work);
    return -1;
  }
  if (rename(work, stage)) {
    if (errno != EXDEV) {
      fprintf(stderr, "symvtune build: cannot move %s to %s: %s\n", work, stage, strerror(errno));
      symv_rmtree(work), symv_rmtree(stage);
      return -1;
    }
    copy_from = work, copy_to = stage, copy_errno = 0;
    if (nftw(work, copy_entry, 16, FTW_PHYS) || copy_errno) {
      fprintf(stderr, "symvtune build: cannot copy %s to %s: %s\n", work, stage, strerror(copy_errno ? copy_errno : errno));
      symv_rmtree(work), symv_rmtree(stage);
      return -1;
    }
    symv_rmtree(work);
  }
  chmod(stage, 0777 & ~mask); /* mkdtemp made it 0700; DIR is an ordinary folder */
  if (dir_replaceable(abs, out, dbpath)) { /* again: it may have changed while we compiled */
    symv_rmtree(stage);
    return -1;
  }
  if (rename(stage, abs) == 0) return 0; /* DIR was absent or empty */
  if (errno != ENOTEMPTY && errno != EEXIST) {
    fprintf(stderr, "symvtune build: cannot rename %s to %s: %s\n", stage, abs, strerror(errno));
    symv_rmtree(stage);
    return -1;
  }
  if (carry_share(abs, stage)) {
    symv_rmtree(stage);
    return -1;
  }
#ifdef RENAME_EXCHANGE
  if (renameat2(AT_FDCWD, stage, AT_FDCWD, abs, RENAME_EXCHANGE) == 0) {
    if (symv_rmtree(stage)) fprintf(stderr, "symvtune build: warning: the old build left in %s: %s\n", stage, strerror(errno));
    return 0;
  }
#endif
  /* no atomic exchange here: the old DIR aside, the new one in, the old removed */
  snprintf(old, sizeof old, "%s/.symvtune-old-XXXXXX", parent);
  if (!mkdtemp(old)) {
    fprintf(stderr, "symvtune build: cannot create a folder in %s: %s\n", parent, strerror(errno));
    carry_share(stage, abs); /* the site's files back where they were */
    symv_rmtree(stage);
    return -1;
  }
  if (rename(abs, old)) {
    fprintf(stderr, "symvtune build: cannot move the old %s aside: %s\n", abs, strerror(errno));
    rmdir(old);
    carry_share(stage, abs);
    symv_rmtree(stage);
    return -1;
  }
  if (rename(stage, abs)) {
    fprintf(stderr, "symvtune build: cannot rename %s to %s: %s\n", stage, abs, strerror(errno));
    rename(old, abs);
    carry_share(stage, abs);
    symv_rmtree(stage);
    return -1;
  }
  if (symv_rmtree(old)) fprintf(stderr, "symvtune build: warning: the old build left in %s: %s\n", old, strerror(errno));
  return 0;
}

static void print_plan(const build_plan *pl)
{
  printf("%-6s %-8s %-8s  %-28s %-24s %12s %8s\n", "routine", "n from", "n to", "kernel", "candidate",
         "predicted us", "gain");
  for (int q = 0; q < SYMV_ROUTINE_COUNT; q++) {
   const symv_routine ro = symv_routine_order(q);
   if (!pl->rt[ro].have) printf("%-6s %-8s %-8s  %-28s\n", symv_routine_name(ro), "-", "-", "cublas (not tuned)");
   for (int q = 0; q < pl->rt[ro].nrules + pl->det[ro].nrules; q++) {
    const int det = q >= pl->rt[ro].nrules, i = det ? q - pl->rt[ro].nrules : q;
    const build_rule *r = det ? &pl->det[ro].rules[i] : &pl->rt[ro].rules[i];
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

static int run(int argc, char **argv)
{
  static const struct option opts[] = {{"db", required_argument, 0, 'D'},   {"out", required_argument, 0, 'o'},
                                       {"nvcc", required_argument, 0, 'n'}, {"arch", required_argument, 0, 'a'},
                                       {"jobs", required_argument, 0, 'j'}, {"help", no_argument, 0, 'h'},
                                       {"wisdom", no_argument, 0, 'w'}, {"wisdom-dir", required_argument, 0, 'W'},
                                       {0, 0, 0, 0}};
  const char *dbpath = NULL, *out = NULL, *nvcc_opt = NULL, *arch = NULL, *wisdom_dir = NULL;
  int wisdom = 0;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  int jobs = ncpu > 0 ? (int)ncpu : 1, c;
  optind = 0;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'D': dbpath = optarg; break;
    case 'o': out = optarg; break;
    case 'n': nvcc_opt = optarg; break;
    case 'a': arch = optarg; break;
    case 'j':
      if (cli_parse_int("build", "--jobs", optarg, 1, 256, &jobs)) return SYMV_EXIT_USAGE;
      break;
    case 'w': wisdom = 1; break;
    case 'W': wisdom_dir = optarg; break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("build", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("build", "unexpected argument '%s'", argv[optind]);
  if (wisdom && dbpath)
    return cli_usage_error("build", "--wisdom takes no --db: its rules come from wisdom files (symvtune export)");
  if (wisdom && arch)
    return cli_usage_error("build", "--wisdom takes no --arch: its kernels are compiled at run time for the GPU found");
  if (!wisdom && wisdom_dir) return cli_usage_error("build", "--wisdom-dir goes with --wisdom");
  if (wisdom_dir) {
    int ok = wisdom_dir[0] == '/' && strlen(wisdom_dir) < PATH_MAX - 200;
    for (const unsigned char *c = (const unsigned char *)wisdom_dir; ok && *c; c++) ok = *c >= 0x20 && *c < 0x7f;
    if (!ok)
      return cli_usage_error("build", "--wisdom-dir '%s': expected an absolute path of printable characters",
                             wisdom_dir);
  }
  if (!dbpath && !wisdom) return cli_usage_error("build", "--db FILE is required (or --wisdom)");
  if (!out || !*out) return cli_usage_error("build", "--out DIR is required");
  if (strlen(out) > PATH_MAX - 200 || strpbrk(out, "\n\r"))
    return cli_usage_error("build", "--out: the folder name is too long or holds a line break");
  if (arch) {
    size_t l = strlen(arch);
    int ok = l >= 5 && l <= 7 && !strncmp(arch, "sm_", 3);
    for (size_t i = 3; ok && i < l; i++)
      ok = (i < 5 || i < l - 1) ? (arch[i] >= '0' && arch[i] <= '9')
                                : ((arch[i] >= '0' && arch[i] <= '9') || arch[i] == 'a' || arch[i] == 'f');
    if (!ok) return cli_usage_error("build", "invalid --arch '%s' (expected sm_XY, e.g. sm_90 or sm_90a)", arch);
  }

  static build_plan pl;
  memset(&pl, 0, sizeof pl);
  char err[1024] = "";
  pl.wisdom = wisdom;
  if (wisdom_dir) snprintf(pl.wisdom_dir, sizeof pl.wisdom_dir, "%s", wisdom_dir);
  int rc = wisdom ? 0 : plan_read(dbpath, arch, &pl, err, sizeof err);
  if (wisdom) dbpath = ""; /* no input to keep DIR from replacing */
  if (rc) {
    fprintf(stderr, "symvtune build: %s: %s; refusing to build\n", dbpath, err);
    plan_free(&pl);
    return SYMV_EXIT_ERROR;
  }
  /* The runtime launches with programmatic dependent launch on compute
   * capability 9.0 and later (the GPU it finds), so the kernels must be
   * code of that GPU: sm_XY of the tuned device, or its sm_XYa / sm_XYf. */
  char native[16];
  snprintf(native, sizeof native, "sm_%d%d", pl.dev.cc_major, pl.dev.cc_minor);
  size_t nl = strlen(native);
  if (!wisdom && arch && (strncmp(arch, native, nl) || (arch[nl] && (arch[nl + 1] || !strchr("af", arch[nl]))))) {
    fprintf(stderr, "symvtune build: --arch %s is not the architecture of the GPU %s was tuned on (%s, compute "
                    "capability %d.%d: %s, %sa or %sf); the kernels and their launch are those of that GPU: "
                    "refusing to build\n", arch, dbpath, pl.dev.name, pl.dev.cc_major, pl.dev.cc_minor, native,
            native, native);
    plan_free(&pl);
    return SYMV_EXIT_USAGE;
  }
  char nvcc[PATH_MAX], cuda_root[PATH_MAX], cuda_lib[PATH_MAX + 16];
  if (find_nvcc(nvcc_opt, nvcc, sizeof nvcc)) {
    fprintf(stderr, "symvtune build: no nvcc found%s%s (pass --nvcc PATH, or set CUDA_HOME)\n",
            nvcc_opt ? " at " : "", nvcc_opt ? nvcc_opt : "");
    plan_free(&pl);
    return SYMV_EXIT_ERROR;
  }
  const char *root = cuda_root_of(nvcc, cuda_root, sizeof cuda_root);
  struct stat st;
  if (root) snprintf(cuda_lib, sizeof cuda_lib, "%s/lib64", root);
  const char *libdir = root && stat(cuda_lib, &st) == 0 ? cuda_lib : NULL;

  if (!symv_shell_safe(nvcc) || (libdir && !symv_shell_safe(libdir))) {
    fprintf(stderr, "symvtune build: the compiler %s (or its library folder) has a name with characters a shell "
                    "acts on, and nvcc runs its stages through a shell: refusing to run it (pass --nvcc PATH of a "
                    "plain name)\n", nvcc);
    plan_free(&pl);
    return SYMV_EXIT_USAGE;
  }

  char cmd[1024], sub[PATH_MAX + 64], abs[PATH_MAX], work[PATH_MAX];
  if (out_path(out, abs, sizeof abs) || dir_replaceable(abs, out, dbpath)) {
    plan_free(&pl);
    return SYMV_EXIT_USAGE;
  }
  if (symv_private_tmpdir("symvtune-build", work, sizeof work)) {
    fprintf(stderr, "symvtune build: cannot create a temporary folder %s: %s\n", work, strerror(errno));
    plan_free(&pl);
    return SYMV_EXIT_ERROR;
  }
  made_by(argc, argv, cmd, sizeof cmd);
  static const char *const subdirs[] = {"/src",     "/src/kernels",   "/src/runtime",        "/obj",    "/lib",
                                        "/lib/pkgconfig", "/lib/cmake", "/lib/cmake/symv", "/include"};
  for (size_t i = 0; i < sizeof subdirs / sizeof *subdirs; i++) {
    snprintf(sub, sizeof sub, "%s%s", work, subdirs[i]);
    if (mkdir(sub, 0755)) {
      fprintf(stderr, "symvtune build: cannot create %s: %s\n", sub, strerror(errno));
      symv_rmtree(work);
      plan_free(&pl);
      return SYMV_EXIT_ERROR;
    }
  }
  const symv_source *hdr = lib_source("symv.h");
  snprintf(sub, sizeof sub, "%s/include/symv.h", work);
  if (write_embedded(symv_sources, symv_nsources, work, "src/kernels") ||
      write_embedded(symv_lib_sources, symv_lib_nsources, work, "src/runtime") ||
      write_kernel_units(&pl, work, cmd) || write_table(&pl, work, cmd) || !hdr || write_text(sub, hdr->text) ||
      (wisdom && write_kernel_sources(work, cmd)) ||
      write_pc(&pl, work, root ? root : "/usr/local/cuda") || write_cmake(&pl, work, root ? root : "/usr/local/cuda")) {
    fprintf(stderr, "symvtune build: no library written; %s left as it was\n", out);
    symv_rmtree(work);
    plan_free(&pl);
    return SYMV_EXIT_ERROR;
  }
  printf("symvtune build:");
  if (wisdom)
    printf(" no rules compiled in: wisdom files from $SYMV_WISDOM, then %s%s;", pl.wisdom_dir[0] ? pl.wisdom_dir : out,
           pl.wisdom_dir[0] ? "" : "/share/symv");
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const build_routine *rt = &pl.rt[symv_routine_order(i)];
    if (rt->have)
      printf(" %s %d rules (n %d..%d) of fit %lld;", symv_routine_name(symv_routine_order(i)), rt->nrules, rt->fit.lo,
             rt->fit.hi, rt->fit.id);
  }
  char devname[4 * sizeof pl.dev.name];  /* the database's text, escaped for the terminal */
  if (wisdom)
    printf(" kernels compiled at run time by NVRTC\n");
  else
    printf(" %d candidates in %d kernels, for %s (%s, %d SMs)\n", pl.ncands, pl.nkernels,
           symv_escape(pl.dev.name, devname, sizeof devname), pl.arch, pl.dev.sm_count);
  printf("compiling with %s, %d jobs, in %s\n", nvcc, jobs, work);
  fflush(stdout);
  if (compile_all(&pl, work, nvcc, libdir, jobs)) {
    fprintf(stderr, "symvtune build: no library written; %s left as it was\n", out);
    symv_rmtree(work);
    plan_free(&pl);
    return SYMV_EXIT_ERROR;
  }
  if (install(work, abs, out, dbpath)) {
    fprintf(stderr, "symvtune build: no library written; %s left as it was\n", out);
    plan_free(&pl);
    return SYMV_EXIT_ERROR;
  }
  if (!wisdom) print_plan(&pl);
  printf("wrote %s/lib/" LIB_REALNAME " (and its links " LIB_SONAME ", libsymv.so), %s/include/symv.h, "
         "%s/lib/pkgconfig/libsymv.pc, %s/lib/cmake/symv/symvConfig.cmake\n", abs, abs, abs, abs);
  plan_free(&pl);
  return SYMV_EXIT_OK;
}

const symv_command cmd_build_entry = {"build", "generate libsymv, drop-ins for cuBLAS's SYMV and HEMV, from the fits' rules", run};
