/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of `symvtune build` (src/cmd_build.c, libgen/): the library
 * generated from the real sweep database with a fit stored through the db
 * API (files, first line, the rules and flags written, the embedded sources
 * equal to kernels/, the exported symbols), the device name written as an
 * escaped C string, and the refusal of every kind of bad value a database
 * can hold (nothing is written then). Also the usage errors of build, bench
 * and tune.
 * No GPU needed; tests that compile skip themselves without nvcc.
 */
#include "libsymv_fixture.h"
#include <criterion/criterion.h>
#include <cublas_v2.h>
#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include "../libgen/cubin.h"
#include "../libgen/generate.h"
#include "config.h"
#include "compile.h"
#include "gpu.h"
#include "kernel_sources.h"
#include "params.h"
#include "routine.h"

#ifndef SYMV_TEST_SRCDIR
#error "SYMV_TEST_SRCDIR (the source tree) must be defined"
#endif

extern const symv_command cmd_bench_entry, cmd_tune_entry, cmd_fit_entry, cmd_sweep_entry, cmd_check_entry;

/* tune finds the stages through cli_lookup (tests/test_commands.c) in this table */
const symv_command *const symv_commands[] = {&cmd_build_entry, &cmd_bench_entry, &cmd_tune_entry, &cmd_fit_entry,
                                             NULL};

static char dir[64];
static void setup(void) { test_tmpdir(dir, sizeof dir, "build"); }
static void teardown(void) { test_tmpdir_remove(dir); }
TestSuite(build, .init = setup, .fini = teardown);

/* DIR/name in buf (512 bytes). */
static char *in_dir(char *buf, const char *name) { return test_path(buf, dir, name); }

static void need_nvcc(void)
{
  if (!*FIX_NVCC || access(FIX_NVCC, X_OK)) cr_skip_test("no nvcc: the library cannot be compiled");
}

/* Runs build on dbpath into out; returns the exit status, log in *text. */
static int build(const char *dbpath, const char *out, const char *arch, char **text)
{
  char log[512];
  in_dir(log, "build.log");
  unlink(log);
  const char *args[] = {"--db", dbpath, "--out", out, "--nvcc", *FIX_NVCC ? FIX_NVCC : "/nonexistent/nvcc",
                        "--jobs", "2", "--arch", arch};
  int status = fix_build(log, args, arch ? 10 : 8);
  *text = fix_slurp(log);
  if (!*text) *text = strdup("");
  return status;
}

/* The generated dispatch table out/src/symv_table.c (free() it); asserts
 * it is there. */
static char *read_table(const char *out)
{
  char p[1024];
  snprintf(p, sizeof p, "%s/src/symv_table.c", out);
  char *table = fix_slurp(p);
  cr_assert_not_null(table, "no %s", p);
  return table;
}

/* Runs SQL on the database file (check constraints off, as a damaged or
 * hand-edited file could be). */
/* The bytes of symv_cubin_NAME[SIZE] = {b, b, ...}; in the kernel unit
 * `unit` (malloc'ed, *size of them); fails the test if the array is not
 * there or its initializer does not hold SIZE bytes. */
static unsigned char *unit_cubin(const char *unit, const char *name, size_t *size)
{
  char decl[128];
  snprintf(decl, sizeof decl, "const unsigned char symv_cubin_%s[", name);
  const char *at = strstr(unit, decl);
  cr_assert_not_null(at, "no %s in the unit", decl);
  char *end;
  unsigned long n = strtoul(at + strlen(decl), &end, 10);
  cr_assert(n > 0 && !strncmp(end, "] = {", 5), "%.80s", at);
  unsigned char *b = malloc(n);
  cr_assert_not_null(b);
  const char *q = end + 5;
  for (unsigned long i = 0; i < n; i++) {
    unsigned long v = strtoul(q, &end, 10);
    cr_assert(end != q && v < 256 && *end == ',', "byte %lu of %s: %.20s", i, name, q);
    b[i] = (unsigned char)v;
    q = end + 1;
  }
  cr_assert_eq(strncmp(q + strspn(q, " \n"), "};", 2), 0, "%s: more than %lu bytes", name, n);
  *size = n;
  return b;
}

static void tamper(const char *path, const char *sql)
{
  sqlite3 *s;
  cr_assert_eq(sqlite3_open(path, &s), SQLITE_OK);
  char *msg = NULL;
  int rc = sqlite3_exec(s, "PRAGMA ignore_check_constraints = ON;", NULL, NULL, &msg);
  if (rc == SQLITE_OK) rc = sqlite3_exec(s, sql, NULL, NULL, &msg);
  cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, msg ? msg : "");
  cr_assert_gt(sqlite3_changes(s), 0, "tampering changed nothing: %s", sql);
  sqlite3_close(s);
}

Test(build, generates_library_from_real_database, .timeout = 600)
{
  need_nvcc();
  char dbpath[512], out[512], p[1024], err[512];
  db_candidate c[4];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, c, err, sizeof err), 0, "%s", err);
  char *log;
  int status = build(dbpath, in_dir(out, "lib"), NULL, &log);
  cr_assert_eq(status, 0, "build failed (%d):\n%s", status, log);

  static const char *const files[] = {"lib/libsymv.so", "include/symv.h", "lib/pkgconfig/libsymv.pc",
                                      "src/symv_table.c", "src/runtime/libsymv.c", "src/runtime/gpu.c",
                                      "src/runtime/libsymv_table.h", "src/kernels/symv_common.cuh"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(p, sizeof p, "%s/%s", out, files[i]);
    cr_assert(fix_exists(p), "%s was not written", p);
  }
  cr_assert_not(fix_exists(strcat(strcpy(p, out), "/lib/libsymv.so.tmp")), "temporary library left behind");

  /* the dispatch table: first line, rules, candidates, device */
  char *table = read_table(out);
  static const char first[] = "/* This file was automatically generated --- DO NOT EDIT. Made by: symvtune build --db ";
  cr_assert_eq(strncmp(table, first, strlen(first)), 0, "first line: %.160s", table);
  char *nl = strchr(table, '\n');
  cr_assert_not_null(nl);
  *nl = 0;
  cr_assert_not_null(strstr(table, " --out "), "first line lacks --out: %s", table);
  cr_assert_not_null(strstr(table, dbpath), "first line lacks the database: %s", table);
  *nl = '\n';
  static const char *const rules[] = {"{32, 300, 0}", "{301, 700, SYMV_RULE_CUBLAS}", "{701, 1500, 1}",
                                      "{1501, 2500, 2}", "{2501, 3200, SYMV_RULE_CUBLAS_ATOMICS}", "{3201, 4000, 3}"};
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
    cr_assert_not_null(strstr(table, rules[i]), "rule %s missing from the table:\n%s", rules[i], table);
  cr_assert_not_null(strstr(table, "{\"NVIDIA H200\", 9, 0, 132, \"sm_90\"}"), "device:\n%s", table);
  /* dsymv's 'any' rules are the six, from the table's first, then its two
   * deterministic ones (the lu candidate, cuBLAS without atomics); the other
   * routines have none (cuBLAS) */
  cr_assert_not_null(strstr(table, "{0, 6, "), "dsymv's rule range:\n%s", table);
  cr_assert_not_null(strstr(table, ", 6, 2, "), "dsymv's deterministic rule range:\n%s", table);
  cr_assert_not_null(strstr(table, "{32, 1500, 3}"), "the deterministic lu rule:\n%s", table);
  cr_assert_not_null(strstr(table, "{1501, 4000, SYMV_RULE_CUBLAS}"), "the deterministic cuBLAS rule:\n%s", table);
  cr_assert_not_null(strstr(table, "{8, 0, 0LL, 'L', 0, 8, 0, 0LL}, /* zhemv */"), "zhemv is not tuned:\n%s", table);
  cr_assert_eq(strstr(table, "symv_table_nrules = 8;") != NULL, 1);
  cr_assert_eq(strstr(table, "symv_table_ncandidates = 4;") != NULL, 1);

  /* one unit per kernel (the two atomic_red share one): the CUBIN NVRTC
   * makes of it with the sweep's own call, byte for byte, and its
   * registers; the kernel sources as embedded and as in kernels/ */
  for (int i = 0; i < 4; i++) {
    const symv_params prm = c[i].p;
    char name[64], defines[256], line[300];
    const char *source;
    symv_kernel_name(&prm, name, sizeof name);
    symv_compile_defines(&prm, defines, sizeof defines, &source);
    snprintf(p, sizeof p, "%s/src/%s.c", out, name);
    char *unit = fix_slurp(p);
    cr_assert_not_null(unit, "no unit %s", p);
    snprintf(line, sizeof line, " *   %s\n", defines);
    cr_assert_not_null(strstr(unit, line), "%s lacks the flags '%s':\n%.600s", p, defines, unit);
    snprintf(line, sizeof line, "src/kernels/%s for sm_90 ", source);
    cr_assert_not_null(strstr(unit, line), "%s does not name %s:\n%.600s", p, source, unit);
    cr_assert_eq(strncmp(unit, first, 60), 0);
    symv_cubin want;
    char *nvlog = NULL;
    cr_assert_eq(symv_compile(&prm, 9, 0, &want, &nvlog), 0, "NVRTC: %s", nvlog ? nvlog : "");
    size_t have_size = 0;
    unsigned char *have = unit_cubin(unit, name, &have_size);
    cr_assert_eq(have_size, want.size, "%s: %zu bytes, NVRTC makes %zu", p, have_size, want.size);
    cr_assert(memcmp(have, want.data, want.size) == 0, "%s: not the CUBIN NVRTC makes of %s", p, name);
    const int regs = libgen_cubin_regs(want.data, want.size, name);
    cr_assert_gt(regs, 0, "%s: no register count in the CUBIN", name);
    snprintf(line, sizeof line, " * %d registers per thread", regs);
    cr_assert_not_null(strstr(unit, line), "%s lacks '%s':\n%.600s", p, line, unit);
    free(have), symv_cubin_free(&want), free(unit);
    snprintf(p, sizeof p, "%s/obj/%s.o", out, name);
    cr_assert(fix_exists(p), "kernel %s not compiled", name);
  }
  snprintf(p, sizeof p, "%s/src", out);
  DIR *dp = opendir(p);
  cr_assert_not_null(dp);
  int units = 0;
  for (struct dirent *e; (e = readdir(dp));) {
    size_t l = strlen(e->d_name);
    units += l > 2 && !strcmp(e->d_name + l - 2, ".c") && strncmp(e->d_name, "symv_", 5);
  }
  closedir(dp);
  cr_assert_eq(units, 3, "%d kernel units for 4 candidates of 3 kernels", units);
  for (int i = 0; i < symv_nsources; i++) {
    snprintf(p, sizeof p, "%s/src/kernels/%s", out, symv_sources[i].name);
    char *text = fix_slurp(p), *orig;
    cr_assert_not_null(text);
    cr_assert_str_eq(text, symv_sources[i].text, "%s differs from the embedded copy", p);
    snprintf(p, sizeof p, "%s/kernels/%s", fix_env("SYMV_TEST_SRCDIR", SYMV_TEST_SRCDIR), symv_sources[i].name);
    cr_assert_not_null(orig = fix_slurp(p));
    cr_assert_str_eq(text, orig, "the embedded %s is not the one in kernels/ (rebuild symvtune)", symv_sources[i].name);
    free(text), free(orig);
  }
  snprintf(p, sizeof p, "%s/include/symv.h", out);
  char *hdr = fix_slurp(p), *orig;
  snprintf(p, sizeof p, "%s/lib/symv.h", fix_env("SYMV_TEST_SRCDIR", SYMV_TEST_SRCDIR));
  cr_assert_not_null(orig = fix_slurp(p));
  cr_assert_str_eq(hdr, orig, "include/symv.h is not lib/symv.h");
  free(hdr), free(orig);

  /* pkg-config: -lsymv kept against --as-needed; cuBLAS from the module
   * of the toolkit's version (CUDART_VERSION), which pkg-config lists
   * after libsymv's Libs, or else -lcublas after -lsymv */
  snprintf(p, sizeof p, "%s/lib/pkgconfig/libsymv.pc", out);
  char *pc = fix_slurp(p);
  cr_assert_not_null(pc);
  char *ls = strstr(pc, " -Wl,--push-state,--no-as-needed -lsymv -Wl,--pop-state"), *lc = strstr(pc, "-lcublas");
  char *rq = strstr(pc, "\nRequires: cublas-${cudaversion} cudart-${cudaversion}\n");
  cr_assert(ls && (rq ? !lc : lc && ls < lc), "libsymv.pc: %s", pc);
  char root[1024], *hdr_cuda, *def, want[64];
  int v;
  snprintf(root, sizeof root, "%s", FIX_NVCC);
  for (int i = 0; i < 2; i++) *strrchr(root, '/') = 0;
  hdr_cuda = fix_slurp(strcat(root, "/include/cuda_runtime_api.h"));
  if (hdr_cuda && (def = strstr(hdr_cuda, "#define CUDART_VERSION")) && sscanf(def + 22, "%d", &v) == 1) {
    snprintf(want, sizeof want, "\ncudaversion=%d.%d\n", v / 1000, v % 1000 / 10);
    cr_assert(rq && strstr(pc, want), "libsymv.pc, expected %s:\n%s", want + 1, pc);
  }
  free(hdr_cuda);
  free(pc);

  /* the exports: each routine's symvXxxxx and cuBLAS entry point (named by
   * the registry), symvLastKernel, symvGetInfo; nothing of symv_ */
  snprintf(p, sizeof p, "%s/lib/libsymv.so", out);
  void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "dlopen: %s", dlerror());
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const symv_routine_info *ri = symv_routine_get((symv_routine)r);
    cr_assert_not_null(dlsym(h, ri->api), "no %s", ri->api);
    cr_assert_not_null(dlsym(h, ri->cublas), "no %s", ri->cublas);
  }
  cr_assert_not_null(dlsym(h, "symvLastKernel"));
  cr_assert_not_null(dlsym(h, "symvGetInfo"));
  cr_assert_null(dlsym(h, "symv_launch"), "internal symbols must stay hidden");
  dlclose(h);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s' 2>/dev/null", p);
  FILE *nm = popen(cmd, "r");
  cr_assert_not_null(nm);
  char line[512];
  int exported = 0;
  while (fgets(line, sizeof line, nm)) {
    char addr[64], type[8], name[400];
    if (sscanf(line, "%63s %7s %399s", addr, type, name) != 3) continue;
    for (int r = 0; r < SYMV_ROUTINE_COUNT; r++)
      exported += !strcmp(name, symv_routine_get((symv_routine)r)->api) +
                  !strcmp(name, symv_routine_get((symv_routine)r)->cublas);
    exported += !strcmp(name, "symvLastKernel") + !strcmp(name, "symvGetInfo");
    cr_assert_neq(strncmp(name, "symv_", 5), 0, "libsymv.so exports the internal %s", name);
  }
  int nm_status = pclose(nm);
  if (nm_status == 0)
    cr_assert_eq(exported, 2 * SYMV_ROUTINE_COUNT + 2, "nm -D: %d of the %d entry points", exported,
                 2 * SYMV_ROUTINE_COUNT + 2);
  free(table);
  free(log);
}

/* The pipeline as the user runs it: `symvtune fit` on a copy of the real
 * database, then build; the table must hold exactly the fit's rules. */
Test(build, builds_the_rules_symvtune_fit_chose, .timeout = 600)
{
  need_nvcc();
  char dbpath[512], out[512], sweep[512], p[1024], log[512], *text;
  cr_assert_eq(fix_copy(fix_sweep_db(sweep), in_dir(dbpath, "real.db")), 0);
  chmod(dbpath, 0644);
  char *fit_argv[] = {"fit", "--db", dbpath, NULL};
  fflush(stdout), fflush(stderr);
  int fd = open(in_dir(log, "fit.log"), O_WRONLY | O_CREAT | O_TRUNC, 0644), o1 = dup(1), o2 = dup(2);
  dup2(fd, 1), dup2(fd, 2), close(fd);
  int status = cmd_fit_entry.run(3, fit_argv);
  fflush(stdout), fflush(stderr);
  dup2(o1, 1), dup2(o2, 2), close(o1), close(o2);
  text = fix_slurp(log);
  cr_assert_eq(status, 0, "symvtune fit failed (%d):\n%s", status, text);
  free(text);

  db *d = NULL;
  db_fit fit;
  db_rule *rules = NULL;
  size_t nrules = 0;
  cr_assert_eq(db_open(&d, dbpath, DB_READONLY), 0);
  cr_assert_eq(db_latest_fit(d, SYMV_DSYMV, 'L', 0, &fit, &rules, &nrules, NULL, NULL), 0, "%s", db_errmsg(d));
  db_close(d);
  cr_assert_eq(build(dbpath, in_dir(out, "lib"), NULL, &text), 0, "build failed:\n%s", text);
  free(text);
  char *table = read_table(out);
  const char *at = table;
  for (size_t i = 0; i < nrules; i++) { /* in order, with the right kernel */
    char rule[96];
    const char *kernel = !strcmp(rules[i].kernel, DB_KERNEL_CUBLAS) ? "SYMV_RULE_CUBLAS"
                         : !strcmp(rules[i].kernel, DB_KERNEL_CUBLAS_ATOMICS) ? "SYMV_RULE_CUBLAS_ATOMICS"
                                                                              : NULL;
    if (kernel) snprintf(rule, sizeof rule, "{%d, %d, %s}", rules[i].n_start, rules[i].n_end, kernel);
    else snprintf(rule, sizeof rule, "{%d, %d, ", rules[i].n_start, rules[i].n_end);
    const char *hit = strstr(at, rule);
    cr_assert_not_null(hit, "rule %zu (%s) missing or out of order:\n%s", i, rule, table);
    if (!kernel) { /* the candidate row it names holds the fit's parameters */
      int idx = atoi(hit + strlen(rule));
      char row[160];
      const symv_params *q = &rules[i].cand.p;
      snprintf(row, sizeof row, ", %d, %d, %d, %d, (symv_routine)%d}, \"dsymv_%s_b%d_u%d_x%d\"", q->block_size, q->ux,
               q->multiplicity, q->mx, (int)SYMV_DSYMV, symv_family_name(q->family), q->block_size, q->ux, q->mx);
      char tag[64];
      snprintf(tag, sizeof tag, "/* %d: candidate id %lld */", idx, rules[i].cand.id);
      const char *line = strstr(table, tag);
      cr_assert_not_null(line, "no candidate %d (id %lld) in the table", idx, rules[i].cand.id);
      const char *start = line;
      while (start > table && start[-1] != '\n') start--;
      cr_assert(strstr(start, row) && strstr(start, row) < line, "candidate %d is not %s:\n%.*s", idx, row,
                (int)(line - start), start);
    }
    at = hit + 1;
  }
  snprintf(p, sizeof p, "%s/lib/libsymv.so", out);
  cr_assert(fix_exists(p));
  free(rules);
  free(table);
}

/* A deterministic fit that runs candidate f:256,64,2,0 of a deterministic
 * pipe family f (enumerator `fenum`): build writes it into the table as
 * fenum, in the deterministic rules, and its unit holds the CUBIN NVRTC
 * made of the family's source with the tuner's flags. */
static void deterministic_rules_may_run(symv_family f, const char *fenum)
{
  need_nvcc();
  const symv_params prm = {f, 256, 64, 2, 0};
  char name[64], incl[64];
  symv_kernel_name(&prm, name, sizeof name);
  snprintf(incl, sizeof incl, "src/kernels/%s for sm_90 ", symv_family_get(f)->source);
  char dbpath[512], out[512], p[1024], err[512], *text;
  cr_assert_eq(fix_make_db(in_dir(dbpath, "pdet.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  db *d = NULL;
  cr_assert_eq(db_open(&d, dbpath, 0), 0);
  db_candidate c = {.p = prm};
  long long id;
  cr_assert_eq(db_put_candidate(d, &c, &id), 0, "%s", db_errmsg(d));
  c.id = id, c.status = DB_VALID;
  cr_assert_eq(db_set_candidate_result(d, &c), 0, "%s", db_errmsg(d));
  db_rule r[2];
  memset(r, 0, sizeof r);
  r[0].n_start = FIX_LO, r[0].n_end = 2000, r[0].cand = c, r[0].predicted_us = 9, r[0].predicted_gain = 1.5;
  snprintf(r[0].kernel, sizeof r[0].kernel, "%s", DB_KERNEL_CANDIDATE);
  r[1].n_start = 2001, r[1].n_end = FIX_HI, r[1].predicted_us = 30, r[1].predicted_gain = 1;
  snprintf(r[1].kernel, sizeof r[1].kernel, "%s", DB_KERNEL_CUBLAS);
  db_fit det = {.routine = SYMV_DSYMV, .uplo = 'L', .hot = 0, .lo = FIX_LO, .hi = FIX_HI, .threshold = 0.01,
                .deterministic = 1};
  snprintf(det.method, sizeof det.method, "test: %s", symv_family_name(f));
  cr_assert_eq(db_put_fit(d, &det, NULL, 0, r, 2), 0, "%s", db_errmsg(d));
  db_close(d);

  cr_assert_eq(build(dbpath, in_dir(out, "lib"), NULL, &text), 0, "build failed:\n%s", text);
  free(text);
  char *table = read_table(out);
  snprintf(p, sizeof p, "{%s, 256, 64, 2, 0, (symv_routine)%d}, \"%s\"", fenum, (int)SYMV_DSYMV, name);
  const char *row = strstr(table, p), *tag = row ? strstr(row, "/* ") : NULL;
  cr_assert(row && tag, "no %s candidate row %s:\n%s", symv_family_name(f), p, table);
  char rule[64];
  snprintf(rule, sizeof rule, "{%d, 2000, %d}", FIX_LO, atoi(tag + 3)); /* the rule names that row */
  cr_assert_not_null(strstr(table, rule), "no deterministic rule %s:\n%s", rule, table);
  cr_assert_not_null(strstr(table, "{2001, 4000, SYMV_RULE_CUBLAS}"), "the deterministic cuBLAS rule:\n%s", table);
  free(table);
  char defines[256], line[300];
  const char *source;
  symv_compile_defines(&prm, defines, sizeof defines, &source);
  snprintf(p, sizeof p, "%s/src/%s.c", out, name);
  char *unit = fix_slurp(p);
  cr_assert_not_null(unit, "no unit %s", p);
  snprintf(line, sizeof line, " *   %s\n", defines);
  cr_assert_not_null(strstr(unit, line), "%s lacks the flags '%s':\n%.600s", p, defines, unit);
  cr_assert_not_null(strstr(unit, incl), "%.600s", unit);
  size_t size = 0;
  unsigned char *code = unit_cubin(unit, name, &size);
  cr_assert_gt(libgen_cubin_regs(code, size, name), 0, "%s: no CUBIN of %s with its registers", p, name);
  free(code), free(unit);
  snprintf(p, sizeof p, "%s/obj/%s.o", out, name);
  cr_assert(fix_exists(p), "%s's unit was not compiled", name);
  snprintf(p, sizeof p, "%s/lib/libsymv.so", out);
  cr_assert(fix_exists(p));
}

/* pipe_det, the two-phase deterministic pipe family */
Test(build, deterministic_rules_may_run_pipe_det, .timeout = 600)
{
  deterministic_rules_may_run(SYMV_FAMILY_PIPE_DET, "SYMV_FAMILY_PIPE_DET");
}

/* pipe_fx, the one-launch deterministic pipe family (its unit includes
 * kernels/symv_fx.h, and the runtime's workspace has its region) */
Test(build, deterministic_rules_may_run_pipe_fx, .timeout = 600)
{
  deterministic_rules_may_run(SYMV_FAMILY_PIPE_FX, "SYMV_FAMILY_PIPE_FX");
}

Test(build, device_name_becomes_an_escaped_c_string, .timeout = 300)
{
  need_nvcc();
  static const fix_rule cublas_only[] = {{1, 1000, DB_KERNEL_CUBLAS, -1}, {1001, 9000, DB_KERNEL_CUBLAS_ATOMICS, -1}};
  char dbpath[512], out[512], p[1024], err[512], *log;
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), cublas_only, 2, 1, 9000, NULL, err, sizeof err), 0, "%s", err);
  tamper(dbpath, "UPDATE device SET name = 'Evil \"GPU\" \\ ?\?=' || char(10) || '*/ x' || char(1)");
  cr_assert_eq(build(dbpath, in_dir(out, "lib"), "sm_90", &log), 0, "build failed:\n%s", log);
  char *table = read_table(out);
  cr_assert_not_null(strstr(table, "{\"Evil \\\"GPU\\\" \\\\ \\?\\?=\\012*/ x\\001\", 9, 0, 132, \"sm_90\""),
                     "device name not escaped:\n%s", table);
  cr_assert_not_null(strstr(table, "symv_table_ncandidates = 0;"));
  snprintf(p, sizeof p, "%s/lib/libsymv.so", out);
  cr_assert(fix_exists(p), "no library: the escaped table did not compile?\n%s", log);
  free(table), free(log);
}

/* Each bad value a database can hold, and what the refusal must name. The
 * candidate of rule 1501..2500 (an atomic one) is the one tampered with. */
#define CAND "(SELECT candidate_id FROM fit_rule WHERE n_start = 1501)"
static const struct {
  const char *sql;    /* the damage */
  const char *expect; /* a fragment of the message */
} bad_values[] = {
  {"UPDATE candidate SET block_size = 33 WHERE id = " CAND, "BLOCK_SIZE"},
  {"UPDATE candidate SET block_size = 2048 WHERE id = " CAND, "BLOCK_SIZE"},
  {"UPDATE candidate SET ux = 0 WHERE id = " CAND, "UX"},
  {"UPDATE candidate SET multiplicity = 99 WHERE id = " CAND, "MULTIPLICITY"},
  {"UPDATE candidate SET mx = 10 WHERE id = " CAND, "MX"},
  {"UPDATE candidate SET mx = -1 WHERE id = " CAND, "MX"},
  {"UPDATE candidate SET family = 'fault' WHERE id = " CAND, "family"},
  {"UPDATE candidate SET family = 'lu\");x(' WHERE id = " CAND, "family"},
  {"UPDATE candidate SET status = 'invalid', reason = 'wrong' WHERE id = " CAND, "not valid"},
  {"UPDATE fit_rule SET n_end = n_start - 3 WHERE n_start = 701", "701"},
  {"UPDATE fit_rule SET n_start = 720 WHERE n_start = 701", "720"},
  {"UPDATE fit_rule SET n_end = 4100 WHERE n_start = 3201", "4100"},
  {"UPDATE fit SET lo = -5; UPDATE fit_rule SET n_start = -5 WHERE n_start = 32", "-5"},
  {"UPDATE fit SET hi = 2147483647; UPDATE fit_rule SET n_end = 2147483647 WHERE n_start = 3201", "2147483647"},
  /* 64-bit values an int would cut to plausible ones: n = 32703, BLOCK_SIZE 128, 132 SMs */
  {"UPDATE fit SET hi = 4294999999; UPDATE fit_rule SET n_end = 4294999999 WHERE n_start = 3201", "4294999999"},
  {"UPDATE fit SET lo = 2147483648, hi = 2147483648; DELETE FROM fit_rule WHERE n_start > 32;"
   "UPDATE fit_rule SET n_start = 2147483648, n_end = 2147483648", "2147483648"},
  {"UPDATE candidate SET block_size = 4294967424 WHERE id = " CAND, "BLOCK_SIZE is 4294967424"},
  {"UPDATE candidate SET ux = 16.5 WHERE id = " CAND, "UX is a real number"},
  {"UPDATE device SET sm_count = 4294967428", "sm_count is 4294967428"},
  {"UPDATE fit_rule SET kernel = 'nvblas' WHERE n_start = 301", "nvblas"},
  {"UPDATE fit_rule SET candidate_id = 999999 WHERE n_start = 32", "999999"},
  {"UPDATE fit SET uplo = 'X'", "no fit"}, /* no longer the (L, cold) fit build ships */
  {"UPDATE device SET sm_count = 0", "SM count"},
  {"UPDATE device SET cc_major = 100", "compute capability"},
  {"UPDATE device SET cc_minor = -1", "compute capability"},
  {"UPDATE device SET name = ''", "device name"},
};

Test(build, refuses_bad_database_values_and_writes_nothing, .timeout = 120)
{
  char good[512], err[512];
  cr_assert_eq(fix_make_db(in_dir(good, "good.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  for (size_t i = 0; i < sizeof bad_values / sizeof *bad_values; i++) {
    char dbpath[512], out[512], name[64], *log;
    snprintf(name, sizeof name, "bad%zu.db", i);
    cr_assert_eq(fix_copy(good, in_dir(dbpath, name)), 0);
    tamper(dbpath, bad_values[i].sql);
    snprintf(name, sizeof name, "out%zu", i);
    int status = build(dbpath, in_dir(out, name), NULL, &log);
    cr_expect_eq(status, SYMV_EXIT_ERROR, "case %zu (%s): exit status %d:\n%s", i, bad_values[i].sql, status, log);
    cr_expect_not_null(strstr(log, "refusing to build"), "case %zu (%s):\n%s", i, bad_values[i].sql, log);
    cr_expect_not_null(strstr(log, bad_values[i].expect), "case %zu (%s): the message does not name '%s':\n%s", i,
                       bad_values[i].sql, bad_values[i].expect, log);
    cr_expect_not(fix_exists(out), "case %zu (%s): %s was created", i, bad_values[i].sql, out);
    free(log);
  }
}

/* A refused build: exit status `status` (`want` expected), `why` in its
 * log `text` (free()d here), nothing written at out. */
static void expect_refusal(int status, int want, char *text, const char *why, const char *out)
{
  cr_assert_not_null(text, "the build left no log");
  cr_assert_eq(status, want, "exit %d, not %d:\n%s", status, want, text);
  cr_assert_not_null(strstr(text, why), "no '%s' in the log:\n%s", why, text);
  cr_assert_not(fix_exists(out), "%s was written", out);
  free(text);
}

Test(build, refuses_a_database_without_a_fit)
{
  char dbpath[512], out[512], sweep[512], *log;
  /* the sweep database as shipped: an older schema, no fit */
  int status = build(fix_sweep_db(sweep), in_dir(out, "lib"), NULL, &log);
  expect_refusal(status, SYMV_EXIT_ERROR, log, "refusing to build", out);
  /* migrated, but no fit stored */
  cr_assert_eq(fix_copy(sweep, in_dir(dbpath, "nofit.db")), 0);
  chmod(dbpath, 0644);
  db *d = NULL;
  cr_assert_eq(db_open(&d, dbpath, 0), 0, "%s", d ? db_errmsg(d) : "");
  db_close(d);
  status = build(dbpath, out, NULL, &log);
  expect_refusal(status, SYMV_EXIT_ERROR, log, "no fit", out);
}

Test(build, refuses_a_missing_nvcc_before_writing)
{
  char dbpath[512], out[512], log[512], err[512];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  const char *args[] = {"--db", dbpath, "--out", in_dir(out, "lib"), "--nvcc", "/nonexistent/bin/nvcc"};
  int status = fix_build(in_dir(log, "log"), args, 6);
  expect_refusal(status, SYMV_EXIT_ERROR, fix_slurp(log), "no nvcc", out);
}

/* The kernels are the CUBINs the sweep timed, made for sm_XY of the tuned
 * GPU: another --arch, its a and f variants included, is refused with exit
 * 2 before anything is written; the database's own goes on (to the missing
 * compiler here). */
Test(build, refuses_an_arch_other_than_the_tuned_gpus)
{
  char dbpath[512], out[512], log[512], err[512];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  static const char *const refused[] = {"sm_80", "sm_89", "sm_100", "sm_100a", "sm_91", "sm_9a", "sm_90a", "sm_90f"};
  static const char *const accepted[] = {"sm_90"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused + sizeof accepted / sizeof *accepted; i++) {
    int bad = i < sizeof refused / sizeof *refused;
    const char *arch = bad ? refused[i] : accepted[i - sizeof refused / sizeof *refused];
    const char *args[] = {"--db", dbpath, "--out", in_dir(out, "lib"), "--nvcc", "/nonexistent/bin/nvcc",
                          "--arch", arch};
    unlink(in_dir(log, "arch.log"));
    int status = fix_build(log, args, 8);
    char *text = fix_slurp(log);
    if (bad) {
      cr_expect_eq(status, SYMV_EXIT_USAGE, "--arch %s: exit %d:\n%s", arch, status, text);
      cr_expect(strstr(text, "refusing to build") || strstr(text, "invalid --arch"), "--arch %s:\n%s", arch, text);
    } else {
      cr_expect_eq(status, SYMV_EXIT_ERROR, "--arch %s: exit %d:\n%s", arch, status, text);
      cr_expect_not_null(strstr(text, "no nvcc"), "--arch %s:\n%s", arch, text);
    }
    cr_expect_not(fix_exists(out), "--arch %s: %s was created", arch, out);
    free(text);
  }
}

Test(build, a_failed_compilation_leaves_no_library)
{
  char dbpath[512], out[512], fake[512], err[512], *log;
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  FILE *f = fopen(in_dir(fake, "nvcc"), "w");
  cr_assert_not_null(f);
  fputs("#!/bin/sh\necho \"nvcc: planted failure\" >&2\nexit 3\n", f);
  fclose(f);
  chmod(fake, 0755);
  char logp[512];
  const char *args[] = {"--db", dbpath, "--out", in_dir(out, "lib"), "--nvcc", fake, "--jobs", "2"};
  cr_assert_eq(fix_build(in_dir(logp, "fail.log"), args, 8), SYMV_EXIT_ERROR);
  log = fix_slurp(logp);
  cr_assert_not_null(strstr(log, "planted failure"), "the compiler's output is not shown:\n%s", log);
  cr_assert_not_null(strstr(log, "no library written"), "%s", log);
  char p[1024];
  snprintf(p, sizeof p, "%s/lib/libsymv.so", out);
  cr_assert_not(fix_exists(p), "a library was written");
  snprintf(p, sizeof p, "%s/lib/libsymv.so.tmp", out);
  cr_assert_not(fix_exists(p), "a partial library was left");
  free(log);
}

/* Writes text to path (replacing it); asserts it worked. */
static void put(const char *path, const char *text) { test_put_file(path, text, 0); }

/* Number of entries of folder p whose name starts with prefix. */
static int count_entries(const char *p, const char *prefix)
{
  DIR *dp = opendir(p);
  cr_assert_not_null(dp, "%s: %s", p, strerror(errno));
  int k = 0;
  for (struct dirent *e; (e = readdir(dp));)
    k += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !strncmp(e->d_name, prefix, strlen(prefix));
  closedir(dp);
  return k;
}

/* An old build in out: lib/libsymv.so and src/symv_table.c with known
 * text, and a symbolic link planted at link_at (relative to out) to the
 * folder outside (created empty). */
static void plant_old_build(const char *out, const char *link_at, const char *outside)
{
  char p[1024];
  cr_assert_eq(mkdir(outside, 0755), 0);
  static const char *const dirs[] = {"", "/lib", "/src", "/obj"};
  for (int i = 0; i < 4; i++) {
    snprintf(p, sizeof p, "%s%s", out, dirs[i]);
    cr_assert_eq(mkdir(p, 0755), 0, "%s: %s", p, strerror(errno));
  }
  put(strcat(strcpy(p, out), "/lib/libsymv.so"), "old library");
  put(strcat(strcpy(p, out), "/src/symv_table.c"), "old table");
  snprintf(p, sizeof p, "%s/%s", out, link_at);
  cr_assert_eq(symlink(outside, p), 0, "%s: %s", p, strerror(errno));
}

/* nvcc runs its stages through a shell with paths in double quotes: a
 * folder name with $(...) or backticks, in --out or a parent of it, must
 * never reach it. Built (cuBLAS rules only: no kernel to compile, quick)
 * into such a folder that holds an old build with a symbolic link planted
 * in it: nothing runs, the old build is replaced whole (the link too, its
 * target untouched), nothing temporary is left. */
Test(build, a_folder_name_never_reaches_a_shell, .timeout = 300)
{
  need_nvcc();
  char dbpath[512], parent[512], out[600], outside[512], tmp[512], p[1024], *log;
  static const fix_rule cublas_only[] = {{32, 4000, DB_KERNEL_CUBLAS, -1}};
  char err[512];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), cublas_only, 1, 32, 4000, NULL, err, sizeof err), 0, "%s", err);
  /* what a shell would run creates files in $HOME: this test's folder */
  cr_assert_eq(setenv("HOME", dir, 1), 0);
  cr_assert_eq(setenv("TMPDIR", in_dir(tmp, "tmp"), 1), 0);
  cr_assert_eq(mkdir(tmp, 0700), 0);
  cr_assert_eq(mkdir(in_dir(parent, "p$(cd;touch PWNED1)`cd;touch PWNED2`"), 0755), 0);
  snprintf(out, sizeof out, "%s/lib$(cd;touch PWNED3)", parent);
  plant_old_build(out, "lib/pkgconfig", in_dir(outside, "outside"));
  int status = build(dbpath, out, NULL, &log);
  cr_assert_eq(count_entries(dir, "PWNED"), 0, "a folder name was run by a shell:\n%s", log);
  cr_assert_eq(status, 0, "build failed (%d):\n%s", status, log);
  snprintf(p, sizeof p, "%s/lib/libsymv.so", out);
  char *lib = fix_slurp(p);
  cr_assert(lib && !memcmp(lib, "\x7f" "ELF", 4), "%s is not the new library", p);
  free(lib);
  char *table = read_table(out);
  cr_assert_not_null(strstr(table, "DO NOT EDIT"), "the old table is still there");
  free(table);
  struct stat st;
  snprintf(p, sizeof p, "%s/lib/pkgconfig", out);
  cr_assert(lstat(p, &st) == 0 && S_ISDIR(st.st_mode), "%s is not a fresh folder", p);
  cr_assert_eq(count_entries(outside, ""), 0, "the build wrote through the planted link");
  snprintf(p, sizeof p, "%s/lib/pkgconfig/libsymv.pc", out);
  char *pc = fix_slurp(p);
  cr_assert_not_null(pc);
  /* relocatable: the prefix is found from the file's folder, never written */
  cr_assert_not_null(strstr(pc, "\nprefix=${pcfiledir}/../..\n"), "the prefix is not relative:\n%s", pc);
  cr_assert_null(strstr(pc, "PWNED3"), "the .pc names the folder:\n%s", pc);
  free(pc);
  cr_assert_eq(count_entries(parent, "."), 0, "a temporary folder was left beside --out");
  cr_assert_eq(count_entries(tmp, ""), 0, "a temporary folder was left in TMPDIR");
  free(log);
}

/* A failed compilation leaves an old build as it was: no new source beside
 * the old library, nothing written through a symbolic link planted in it,
 * nothing temporary left. (The planted failure makes it quick.) */
Test(build, a_failed_build_leaves_the_old_one_untouched)
{
  char dbpath[512], out[512], outside[512], fake[512], logp[512], tmp[512], p[1024], err[512];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  put(in_dir(fake, "nvcc"), "#!/bin/sh\necho \"nvcc: planted failure\" >&2\nexit 3\n");
  chmod(fake, 0755);
  cr_assert_eq(setenv("TMPDIR", in_dir(tmp, "tmp"), 1), 0);
  cr_assert_eq(mkdir(tmp, 0700), 0);
  plant_old_build(in_dir(out, "lib"), "src/kernels", in_dir(outside, "outside"));
  const char *args[] = {"--db", dbpath, "--out", out, "--nvcc", fake, "--jobs", "2"};
  cr_assert_eq(fix_build(in_dir(logp, "fail.log"), args, 8), SYMV_EXIT_ERROR);
  char *log = fix_slurp(logp);
  cr_assert_not_null(strstr(log, "planted failure"), "%s", log);
  cr_assert_not_null(strstr(log, "left as it was"), "%s", log);
  char *text = fix_slurp(strcat(strcpy(p, out), "/src/symv_table.c"));
  cr_assert_str_eq(text, "old table", "the old build's sources were replaced by the failed build's");
  free(text);
  text = fix_slurp(strcat(strcpy(p, out), "/lib/libsymv.so"));
  cr_assert_str_eq(text, "old library");
  free(text);
  cr_assert_eq(count_entries(outside, ""), 0, "the build wrote through the planted link");
  cr_assert_eq(count_entries(dir, "."), 0, "a temporary folder was left beside --out");
  cr_assert_eq(count_entries(tmp, ""), 0, "a temporary folder was left in TMPDIR");
  free(log);
}

static int run_cmd(const symv_command *cmd, char **av, int ac, char **text);

/* bench --png (FILE, and its script FILE.gp) never names the library it
 * times, also through a symbolic link: exit 2, the library untouched,
 * before the library is loaded or a GPU looked for. */
Test(build, bench_never_writes_over_its_library)
{
  char lib[512], so[600], link[512], gplink[512], p[600];
  cr_assert_eq(mkdir(in_dir(lib, "lib"), 0755), 0);
  snprintf(p, sizeof p, "%s/lib", lib);
  cr_assert_eq(mkdir(p, 0755), 0);
  snprintf(so, sizeof so, "%s/lib/libsymv.so", lib);
  put(so, "the library");
  cr_assert_eq(symlink(so, in_dir(link, "plot.png")), 0);
  cr_assert_eq(symlink(so, in_dir(gplink, "other.png.gp")), 0);
  const char *pngs[] = {so, link, in_dir(p, "other.png")};
  for (int i = 0; i < 3; i++) {
    char *av[] = {"bench", "--lib", lib, "--png", (char *)pngs[i], NULL}, *text;
    int status = run_cmd(&cmd_bench_entry, av, 5, &text);
    cr_expect_eq(status, SYMV_EXIT_USAGE, "--png %s: exit %d\n%s", pngs[i], status, text);
    cr_expect_not_null(strstr(text, "refusing to write over it"), "--png %s:\n%s", pngs[i], text);
    free(text);
  }
  char *text = fix_slurp(so);
  cr_assert_str_eq(text, "the library");
  free(text);
}

/* The bytes of the file at path (malloc'ed), their number in *len. */
static unsigned char *slurp_bytes(const char *path, long *len)
{
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  rewind(f);
  unsigned char *b = malloc((size_t)*len + 1);
  cr_assert_eq(fread(b, 1, (size_t)*len, f), (size_t)*len);
  fclose(f);
  return b;
}

/* build replaces only a folder of its own: not one with other files in it,
 * not a file (the database itself), not one holding the database deeper
 * down: exit 2, the database untouched. */
Test(build, replaces_only_a_folder_of_its_own)
{
  char dbpath[512], inner[512], innerdb[600], fake[512], logp[512], p[600], err[512];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  put(in_dir(fake, "nvcc"), "#!/bin/sh\nexit 3\n");
  chmod(fake, 0755);
  cr_assert_eq(mkdir(in_dir(inner, "own"), 0755), 0);
  snprintf(p, sizeof p, "%s/obj", inner);
  cr_assert_eq(mkdir(p, 0755), 0);
  snprintf(innerdb, sizeof innerdb, "%s/obj/fit.db", inner);
  cr_assert_eq(fix_copy(dbpath, innerdb), 0);
  long len0, len1, ilen0, ilen1;
  unsigned char *before = slurp_bytes(dbpath, &len0), *ibefore = slurp_bytes(innerdb, &ilen0);
  const char *dbs[] = {dbpath, dbpath, innerdb};
  const char *outs[] = {dir, dbpath, inner};
  const char *expect[] = {"which build does not write", "is not a folder", "holds the database"};
  for (int i = 0; i < 3; i++) {
    const char *args[] = {"--db", dbs[i], "--out", outs[i], "--nvcc", fake};
    unlink(in_dir(logp, "log"));
    int status = fix_build(logp, args, 6);
    char *log = fix_slurp(logp);
    cr_expect_eq(status, SYMV_EXIT_USAGE, "--out %s: exit %d\n%s", outs[i], status, log);
    cr_expect_not_null(strstr(log, expect[i]), "--out %s:\n%s", outs[i], log);
    free(log);
  }
  unsigned char *after = slurp_bytes(dbpath, &len1), *iafter = slurp_bytes(innerdb, &ilen1);
  cr_assert(len0 == len1 && !memcmp(before, after, (size_t)len0), "the database changed");
  cr_assert(ilen0 == ilen1 && !memcmp(ibefore, iafter, (size_t)ilen0), "the database in --out changed");
  free(before), free(after), free(ibefore), free(iafter);
}

/* Runs a command's run function with output to a log; exit status. */
static int run_cmd(const symv_command *cmd, char **av, int ac, char **text)
{
  return test_run_in_process(cmd->run, ac, av, dir, text, text);
}

/* A command line, the exit status it must give and a text its output
 * must hold (NULL: any). */
typedef struct {
  const symv_command *cmd;
  const char *args[8]; /* NULL-terminated */
  int status;
  const char *expect;
} cmd_case;

/* Runs each case; the messages name the case by its number and command line. */
static void expect_cases(const cmd_case *cases, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    char *av[8] = {0}, *t, line[256] = "";
    int ac = 0;
    for (; ac < 7 && cases[i].args[ac]; ac++) {
      av[ac] = (char *)cases[i].args[ac];
      snprintf(line + strlen(line), sizeof line - strlen(line), "%s'%s'", ac ? " " : "", av[ac]);
    }
    int status = run_cmd(cases[i].cmd, av, ac, &t);
    cr_expect_eq(status, cases[i].status, "case %zu (%s): exit %d, not %d:\n%s", i, line, status, cases[i].status, t);
    if (cases[i].expect)
      cr_expect_not_null(strstr(t, cases[i].expect), "case %zu (%s): no '%s' in:\n%s", i, line, cases[i].expect, t);
    free(t);
  }
}

Test(build, usage_of_build_bench_and_tune)
{
  static const cmd_case cases[] = {
    {&cmd_build_entry, {"build", "--help"}, 0, "Usage: symvtune build --db FILE --out DIR"},
    {&cmd_bench_entry, {"bench", "--help"}, 0, "Usage: symvtune bench --lib DIR"},
    {&cmd_tune_entry, {"tune", "--help"}, 0, "Usage: symvtune tune"},
    {&cmd_build_entry, {"build", "--out", "x"}, SYMV_EXIT_USAGE, NULL},
    {&cmd_build_entry, {"build", "--db", "x"}, SYMV_EXIT_USAGE, NULL},
    {&cmd_build_entry, {"build", "--db", "x", "--out", "y", "--arch", "sm_9x"}, SYMV_EXIT_USAGE, "--arch"},
    {&cmd_build_entry, {"build", "--db", "x", "--out", "y", "z"}, SYMV_EXIT_USAGE, NULL},
    {&cmd_bench_entry, {"bench"}, SYMV_EXIT_USAGE, NULL},
    {&cmd_bench_entry, {"bench", "--lib", "x", "--sizes", "10,,20"}, SYMV_EXIT_USAGE, NULL},
    {&cmd_bench_entry, {"bench", "--lib", "/nonexistent/libsymv"}, SYMV_EXIT_ERROR, "cannot load"},
    {&cmd_tune_entry, {"tune", "now"}, SYMV_EXIT_USAGE, NULL},
  };
  expect_cases(cases, sizeof cases / sizeof *cases);
  char *t;
  int count;
  if (symv_device_count(&count) == SYMV_NO_DEVICE) { /* with a GPU, tune would start a sweep */
    char db_opt[512], out_opt[512];
    char *tune[] = {"tune", "--db", in_dir(db_opt, "t.db"), "--out", in_dir(out_opt, "t"), NULL};
    cr_assert_eq(run_cmd(&cmd_tune_entry, tune, 5, &t), SYMV_EXIT_NO_GPU);
    cr_assert_not_null(strstr(t, "no CUDA device"), "%s", t);
    cr_assert_not(fix_exists(db_opt), "tune without a GPU wrote a database");
    free(t);
  }
}

/* Empty lists and folders, and a negative seed, are usage errors (exit 2
 * with a message), checked before any GPU is looked for. */
Test(build, empty_and_negative_arguments_are_usage_errors)
{
  static const cmd_case cases[] = {
    {&cmd_sweep_entry, {"sweep", "--db", "x.db", "--families", ""}, SYMV_EXIT_USAGE, "invalid --families ''"},
    {&cmd_sweep_entry, {"sweep", "--db", "x.db", "--families", "lu,,pipe"}, SYMV_EXIT_USAGE,
     "invalid --families 'lu,,pipe'"},
    {&cmd_sweep_entry, {"sweep", "--db", "x.db", "--families", "lu,"}, SYMV_EXIT_USAGE, "invalid --families 'lu,'"},
    {&cmd_bench_entry, {"bench", "--lib", ""}, SYMV_EXIT_USAGE, "--lib needs a folder"},
    {&cmd_check_entry, {"check", "--seed", "-1"}, SYMV_EXIT_USAGE, "invalid --seed '-1'"},
    {&cmd_check_entry, {"check", "--seed", " 7"}, SYMV_EXIT_USAGE, "invalid --seed ' 7'"},
    {&cmd_check_entry, {"check", "--seed", "18446744073709551616"}, SYMV_EXIT_USAGE,
     "invalid --seed '18446744073709551616'"},
  };
  expect_cases(cases, sizeof cases / sizeof *cases);
}

/* The shipped six-routine sweep (tests/data/sweep6-h100.db.xz; it holds
 * dense samples of all six routines), its fits of dsymv and chemv and every
 * deterministic fit deleted, so that it holds 'any' fits of ssymv, csymv,
 * zsymv and zhemv alone: `symvtune fit` of two routines again, then one
 * build. The table holds each fitted routine's rules and none for the
 * others (they go to cuBLAS), and every
 * routine's two entry points check their arguments as BLAS does, in the
 * library itself, before the handle or a GPU is touched. */
typedef cublasStatus_t (*entry_fn)(cublasHandle_t, cublasFillMode_t, int, const void *, const void *, int,
                                   const void *, int, const void *, void *, int);

Test(build, six_routine_library_from_the_shipped_sweep, .timeout = 600)
{
  need_nvcc();
  char xz[1024], dbpath[512], out[512], cmd[2048], p[1024], *text;
  snprintf(xz, sizeof xz, "%s/tests/data/sweep6-h100.db.xz", fix_env("SYMV_TEST_SRCDIR", SYMV_TEST_SRCDIR));
  if (access(xz, R_OK)) cr_skip_test("no %s", xz);
  snprintf(cmd, sizeof cmd, "xz -dc '%s' > '%s'", xz, in_dir(dbpath, "six.db"));
  if (system(cmd)) cr_skip_test("xz could not unpack %s", xz);
  test_sql_exec(dbpath, "PRAGMA foreign_keys = ON; DELETE FROM fit WHERE routine IN ('dsymv', 'chemv') OR "
                        "atomics = 'deterministic'");
  const char *fitted[] = {"zhemv", "ssymv"};
  for (int i = 0; i < 2; i++) {
    char *av[] = {"fit", "--db", dbpath, "--routine", (char *)fitted[i], NULL};
    int st = run_cmd(&cmd_fit_entry, av, 5, &text);
    cr_assert_eq(st, 0, "fit --routine %s: %s", fitted[i], text);
    free(text);
  }
  cr_assert_eq(build(dbpath, in_dir(out, "lib6"), NULL, &text), 0, "build failed:\n%s", text);
  free(text);
  char *table = read_table(out);
  /* the rules and the candidates' families, in table order */
  struct { int n_start, n_end; char kernel[32]; } rule[512];
  int nrule = 0, ncand = 0;
  char family[512][32];
  const char *rules_at = strstr(table, "symv_table_rules[] = {\n"), *cands_at = strstr(table, "symv_table_candidates[] = {\n");
  cr_assert(rules_at && cands_at);
  for (const char *q = strchr(rules_at, '\n') + 1; !strncmp(q, "  ", 2); q = strchr(q, '\n') + 1)
    if (q[2] == '{' && nrule < 512 &&
        sscanf(q, "  {%d, %d, %31[^}]}", &rule[nrule].n_start, &rule[nrule].n_end, rule[nrule].kernel) == 3)
      nrule++;
  for (const char *q = strchr(cands_at, '\n') + 1; !strncmp(q, "  {{", 4) && ncand < 512; q = strchr(q, '\n') + 1)
    cr_assert_eq(sscanf(q, "  {{SYMV_FAMILY_%31[A-Z_],", family[ncand++]), 1, "%.80s", q);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const char *name = symv_routine_name((symv_routine)r);
    char tag[32];
    snprintf(tag, sizeof tag, "}, /* %s */\n", name);
    const char *row = strstr(table, tag);
    cr_assert_not_null(row, "no range of %s:\n%s", name, table);
    while (row > table && row[-1] != '{') row--;
    int first = -1, count = -1, dfirst = -1, dcount = -1;
    long long fit_id = -1, dfit_id = -1;
    char uplo = 0;
    int hot = -1;
    cr_assert_eq(sscanf(row, "%d, %d, %lldLL, '%c', %d, %d, %d, %lldLL", &first, &count, &fit_id, &uplo, &hot, &dfirst,
                        &dcount, &dfit_id), 8, "%.80s", row);
    const int tuned = strcmp(name, "dsymv") && strcmp(name, "chemv");
    cr_assert(tuned ? count >= 1 : count == 0, "%s has %d rules", name, count);
    /* the two refitted here have deterministic rules too (fitted after
     * their 'any' rules): lu, panel, pipe_det or cuBLAS without atomics only */
    const int refitted = !strcmp(name, "zhemv") || !strcmp(name, "ssymv");
    cr_assert(refitted ? dcount >= 1 && dfit_id > fit_id : dcount == 0, "%s has %d deterministic rules", name, dcount);
    cr_assert_leq(dfirst + dcount, nrule);
    for (int i = dfirst; i < dfirst + dcount; i++) {
      if (!strcmp(rule[i].kernel, "SYMV_RULE_CUBLAS")) continue;
      int k = atoi(rule[i].kernel);
      cr_assert(k >= 0 && k < ncand, "%s: deterministic rule %d..%d names %s", name, rule[i].n_start, rule[i].n_end,
                rule[i].kernel);
      cr_assert(!strcmp(family[k], "LU") || !strcmp(family[k], "PANEL") || !strcmp(family[k], "PIPE_DET"),
                "%s: deterministic rule %d..%d runs a %s kernel", name, rule[i].n_start, rule[i].n_end, family[k]);
    }
    if (tuned) { /* its candidates are its own: the kernel names carry the routine */
      char prefix[40];
      snprintf(prefix, sizeof prefix, "\"%s_", name);
      cr_assert_not_null(strstr(table, prefix), "no %s kernel in the table", name);
    }
  }
  free(table);

  snprintf(p, sizeof p, "%s/lib/libsymv.so", out);
  void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "dlopen: %s", dlerror());
  static const struct {
    int uplo, n, lda, incx, incy;
    cublasStatus_t want;
  } cases[] = {
    {7, 4, 4, 1, 1, CUBLAS_STATUS_INVALID_VALUE},                      /* uplo */
    {CUBLAS_FILL_MODE_LOWER, -1, 4, 1, 1, CUBLAS_STATUS_INVALID_VALUE}, /* n < 0 */
    {CUBLAS_FILL_MODE_UPPER, 4, 3, 1, 1, CUBLAS_STATUS_INVALID_VALUE},  /* lda < n */
    {CUBLAS_FILL_MODE_LOWER, 4, 4, 0, 1, CUBLAS_STATUS_INVALID_VALUE},  /* incx = 0 */
    {CUBLAS_FILL_MODE_UPPER, 4, 4, 1, 0, CUBLAS_STATUS_INVALID_VALUE},  /* incy = 0 */
    {CUBLAS_FILL_MODE_LOWER, 0, 0, 1, 1, CUBLAS_STATUS_SUCCESS},        /* n = 0: quick return */
  };
  double scalars[4] = {1, 0, 1, 0};
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++)
    for (int e = 0; e < 2; e++) {
      const symv_routine_info *ri = symv_routine_get((symv_routine)r);
      entry_fn f = (entry_fn)dlsym(h, e ? ri->cublas : ri->api);
      cr_assert_not_null(f);
      cr_assert_eq(f(NULL, CUBLAS_FILL_MODE_LOWER, 4, scalars, NULL, 4, NULL, 1, scalars, NULL, 1),
                   CUBLAS_STATUS_NOT_INITIALIZED, "%s: a NULL handle", e ? ri->cublas : ri->api);
      for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        /* a handle that must never be dereferenced: the checks come first */
        cublasHandle_t fake = (cublasHandle_t)(void *)&cases[c];
        cublasStatus_t st = f(fake, (cublasFillMode_t)cases[c].uplo, cases[c].n, scalars, NULL, cases[c].lda, NULL,
                              cases[c].incx, scalars, NULL, cases[c].incy);
        cr_assert_eq(st, cases[c].want, "%s case %zu: status %d", e ? ri->cublas : ri->api, c, (int)st);
      }
    }
  dlclose(h);
}

/* A database that records the rules' kernels as measured with other
 * kernel sources than this symvtune's: build says so, names the routine and
 * what to do, and builds; with the codes of today's sources it says
 * nothing. */
Test(build, warns_of_rules_timed_with_other_kernel_sources, .timeout = 120)
{
  char dbpath[512], out[512], fake[512], logp[512], err[512];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  test_put_standin_nvcc(in_dir(fake, "nvcc"), 16);
  /* every candidate the latest DSYMV fits name, with today's code */
  db *d;
  cr_assert_eq(db_open(&d, dbpath, 0), 0);
  db_candidate *l;
  size_t n;
  cr_assert_eq(db_list_candidates(d, SYMV_DSYMV, DB_VALID, DB_ANY_FAMILY, &l, &n), 0);
  for (size_t i = 0; i < n; i++) {
    char code[17];
    cr_assert_eq(symv_code_id(&l[i].p, code), 0);
    cr_assert_eq(db_put_kernel_code(d, l[i].id, code), 0, "%s", db_errmsg(d));
  }
  free(l);
  db_close(d);
  const char *args[] = {"--db", dbpath, "--out", in_dir(out, "lib"), "--nvcc", fake};
  int status = fix_build(in_dir(logp, "log"), args, 6);
  char *log = fix_slurp(logp);
  cr_assert_eq(status, 0, "%s", log);
  cr_expect_null(strstr(log, "kernel sources other"), "today's codes, yet:\n%s", log);
  free(log);
  /* one rule's candidate measured with other code */
  test_sql_exec(dbpath, "UPDATE kernel_code SET code = '0123456789abcdef' WHERE candidate_id = "
                        "(SELECT r.candidate_id FROM fit_rule r JOIN fit f ON f.id = r.fit_id WHERE "
                        "f.routine = 'dsymv' AND r.candidate_id IS NOT NULL ORDER BY f.id DESC LIMIT 1)");
  cr_assert_eq(test_sql_int(dbpath, "SELECT count(*) FROM kernel_code WHERE code = '0123456789abcdef'"), 1);
  status = fix_build(logp, args, 6);
  log = fix_slurp(logp);
  cr_assert_eq(status, 0, "%s", log);
  cr_expect_not_null(strstr(log, "warning: 1 of the candidates dsymv's rules name were timed with kernel sources "
                                 "other than this symvtune's"),
                     "%s", log);
  cr_expect_not_null(strstr(log, "scripts/forget-routine DB dsymv"), "%s", log);
  free(log);
}

/* The register count build reads from a CUBIN is the one the GPU reported
 * for that code: SSYMV's candidates of the shipped H100 database measured
 * with today's sources (their kernel code current), one per distinct
 * kernel of each family, compiled here as the sweep compiled them, read
 * the registers per thread the sweep recorded (cudaFuncGetAttributes on
 * the GPU). */
Test(build, cubin_registers_are_those_the_gpu_reported, .timeout = 300)
{
  char dbpath[512], cmd[1200];
  snprintf(cmd, sizeof cmd, "xz -dc '%s/sweep6-h100.db.xz' > '%s'", FIX_DATA, in_dir(dbpath, "h100.db"));
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  db *d;
  cr_assert_eq(db_open(&d, dbpath, 1), 0);
  db_candidate *l;
  size_t n, ncodes;
  db_kernel_code *codes;
  cr_assert_eq(db_list_candidates(d, SYMV_SSYMV, DB_VALID, DB_ANY_FAMILY, &l, &n), 0);
  cr_assert_eq(db_list_kernel_codes(d, SYMV_SSYMV, &codes, &ncodes), 0);
  db_close(d);
  int checked = 0, per_family[SYMV_FAMILY_COUNT] = {0};
  for (size_t i = 0; i < n; i++) {
    const db_kernel_code *k = db_kernel_code_find(codes, ncodes, l[i].id);
    if (!k || !symv_code_current(&l[i].p, k->code) || l[i].regs_per_thread <= 0 || per_family[l[i].p.family] >= 3)
      continue;
    if (l[i].p.multiplicity != 1 && l[i].p.multiplicity != 2) continue; /* one of each kernel, mostly */
    per_family[l[i].p.family]++;
    symv_cubin cb;
    char *nvlog = NULL, name[64], label[64];
    symv_kernel_name(&l[i].p, name, sizeof name);
    symv_params_format(&l[i].p, label, sizeof label);
    cr_assert_eq(symv_compile(&l[i].p, 9, 0, &cb, &nvlog), 0, "%s: %s", label, nvlog ? nvlog : "");
    cr_expect_eq(libgen_cubin_regs(cb.data, cb.size, name), l[i].regs_per_thread,
                 "%s: %d registers in the CUBIN, the sweep recorded %d", label,
                 libgen_cubin_regs(cb.data, cb.size, name), l[i].regs_per_thread);
    symv_cubin_free(&cb);
    checked++;
  }
  free(l), free(codes);
  cr_assert_geq(checked, 6, "only %d candidates with today's code and registers to check", checked);
}

/* libgen_cubin_regs on what is not a whole CUBIN of the kernel named: a
 * CUBIN cut short anywhere, one whose ELF magic is broken, another kernel's
 * name, no data. It answers -1 or, where the cut leaves every part it reads,
 * the count itself; never another number. */
Test(build, cubin_registers_of_a_broken_cubin_are_unknown)
{
  const symv_params p = {SYMV_FAMILY_PIPE_DET, 256, 64, 2, 0, SYMV_DSYMV};
  symv_cubin cb;
  char *nvlog = NULL, name[64];
  symv_kernel_name(&p, name, sizeof name);
  cr_assert_eq(symv_compile(&p, 9, 0, &cb, &nvlog), 0, "%s", nvlog ? nvlog : "");
  const int regs = libgen_cubin_regs(cb.data, cb.size, name);
  cr_assert(regs > 0 && regs <= 255, "%s: %d registers", name, regs);
  int short_ok = 0;
  for (size_t cut = 0; cut < cb.size; cut += cut < 4096 ? 1 : 61) {
    const int r = libgen_cubin_regs(cb.data, cut, name);
    cr_assert(r == -1 || r == regs, "cut at %zu of %zu bytes: %d", cut, cb.size, r);
    short_ok += r == regs;
  }
  cr_expect_lt(short_ok, 4096, "every short CUBIN read as whole");
  cr_expect_eq(libgen_cubin_regs(cb.data, cb.size, "dsymv_pipe_det_b256_u64_x1"), -1, "another kernel's name");
  cr_expect_eq(libgen_cubin_regs(NULL, cb.size, name), -1);
  cr_expect_eq(libgen_cubin_regs(cb.data, cb.size, NULL), -1);
  unsigned char *b = cb.data;
  b[1] ^= 0x20; /* "\x7fElF" */
  cr_expect_eq(libgen_cubin_regs(cb.data, cb.size, name), -1, "a broken ELF magic");
  symv_cubin_free(&cb);
}

/* A database whose tuner's build of a rule's kernel had other registers
 * per thread than the CUBIN NVRTC makes here: build warns, naming the
 * kernel, both counts, the routine and what to do, and builds; with the
 * CUBIN's own count it says nothing. */
Test(build, warns_of_a_kernel_whose_registers_differ_from_the_tuners, .timeout = 120)
{
  char dbpath[512], out[512], fake[512], logp[512], err[512], name[64], want[320];
  db_candidate c[4];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, c, err, sizeof err), 0, "%s", err);
  test_put_standin_nvcc(in_dir(fake, "nvcc"), 16);
  symv_cubin cb;
  char *nvlog = NULL, sql[256];
  symv_kernel_name(&c[0].p, name, sizeof name);
  cr_assert_eq(symv_compile(&c[0].p, 9, 0, &cb, &nvlog), 0, "%s", nvlog ? nvlog : "");
  const int regs = libgen_cubin_regs(cb.data, cb.size, name);
  symv_cubin_free(&cb);
  cr_assert_gt(regs, 1);
  const char *args[] = {"--db", dbpath, "--out", in_dir(out, "lib"), "--nvcc", fake};
  for (int differ = 0; differ < 2; differ++) {
    snprintf(sql, sizeof sql, "UPDATE candidate SET regs_per_thread = %d WHERE id = %lld", regs - differ, c[0].id);
    test_sql_exec(dbpath, sql);
    int status = fix_build(in_dir(logp, "log"), args, 6);
    char *log = fix_slurp(logp);
    cr_assert_eq(status, 0, "%s", log);
    snprintf(want, sizeof want, "warning: kernel %s: NVRTC %d.%d here gives it %d registers per thread, the tuner's "
             "build had %d", name, symv_nvrtc_version() / 1000, symv_nvrtc_version() % 1000 / 10, regs, regs - 1);
    if (differ) {
      cr_expect_not_null(strstr(log, want), "no '%s' in:\n%s", want, log);
      cr_expect_not_null(strstr(log, "scripts/forget-routine DB dsymv"), "%s", log);
    } else {
      cr_expect_null(strstr(log, "registers per thread, the tuner's"), "the tuner's count, yet:\n%s", log);
    }
    free(log);
  }
}

/* A database swept with another NVRTC than the one this symvtune compiles
 * with: build warns, naming both versions, and builds; with this NVRTC's
 * version it says nothing of it. */
Test(build, warns_of_a_database_swept_with_another_nvrtc, .timeout = 120)
{
  char dbpath[512], out[512], fake[512], logp[512], err[512], sql[160], want[160];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  test_put_standin_nvcc(in_dir(fake, "nvcc"), 16);
  const int v = symv_nvrtc_version(), major = v / 1000, minor = v % 1000 / 10;
  const char *args[] = {"--db", dbpath, "--out", in_dir(out, "lib"), "--nvcc", fake};
  for (int other = 0; other < 2; other++) {
    snprintf(sql, sizeof sql, "UPDATE device SET nvrtc_major = %d, nvrtc_minor = %d", major, minor + other);
    test_sql_exec(dbpath, sql);
    int status = fix_build(in_dir(logp, "log"), args, 6);
    char *log = fix_slurp(logp);
    cr_assert_eq(status, 0, "%s", log);
    snprintf(want, sizeof want, "was swept with NVRTC %d.%d, and this symvtune compiles the kernels with NVRTC %d.%d",
             major, minor + 1, major, minor);
    if (other) cr_expect_not_null(strstr(log, want), "no '%s' in:\n%s", want, log);
    else cr_expect_null(strstr(log, "was swept with NVRTC"), "this NVRTC's version, yet:\n%s", log);
    free(log);
  }
}

/* A build onto a file system that takes no more bytes: the build, compiled
 * on another file system ($TMPDIR) and copied beside DIR, meets a write
 * that fails (a file size limit the library is larger than, SIGXFSZ
 * ignored: write fails with EFBIG) and must fail, exit 4, say why, and
 * leave the old build in DIR as it was, with nothing temporary left. */
Test(build, a_write_that_fails_while_installing_leaves_the_old_build, .timeout = 120)
{
  char dbpath[512], out[512], outside[512], fake[512], logp[512], p[1024], err[512];
  char tmp[64] = "/dev/shm/symvtune-test-build-XXXXXX";
  struct stat here, there;
  if (!mkdtemp(tmp)) cr_skip_test("no /dev/shm for a $TMPDIR on another file system: %s", strerror(errno));
  cr_assert_eq(stat(dir, &here), 0);
  cr_assert_eq(stat(tmp, &there), 0);
  if (here.st_dev == there.st_dev) {
    rmdir(tmp);
    cr_skip_test("%s and %s are one file system: the build would be renamed, not copied", dir, tmp);
  }
  cr_assert_eq(setenv("TMPDIR", tmp, 1), 0);
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  test_put_standin_nvcc(in_dir(fake, "nvcc"), 3 << 20);
  plant_old_build(in_dir(out, "lib"), "src/kernels", in_dir(outside, "outside"));
  struct rlimit lim;
  cr_assert_eq(getrlimit(RLIMIT_FSIZE, &lim), 0);
  lim.rlim_cur = 1 << 20; /* above every source build writes, below the library */
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  signal(SIGXFSZ, SIG_IGN);
  const char *args[] = {"--db", dbpath, "--out", out, "--nvcc", fake, "--jobs", "2"};
  int status = fix_build(in_dir(logp, "full.log"), args, 8);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_FSIZE, &lim);
  char *log = fix_slurp(logp);
  int left = count_entries(tmp, "");
  fix_rmtree(tmp);
  cr_assert_eq(status, SYMV_EXIT_ERROR, "exit %d:\n%s", status, log);
  cr_assert_not_null(strstr(log, strerror(EFBIG)), "the failed write is not told:\n%s", log);
  cr_assert_not_null(strstr(log, "left as it was"), "%s", log);
  char *text = fix_slurp(strcat(strcpy(p, out), "/lib/libsymv.so"));
  cr_assert_str_eq(text, "old library", "the old library was replaced");
  free(text);
  text = fix_slurp(strcat(strcpy(p, out), "/src/symv_table.c"));
  cr_assert_str_eq(text, "old table", "the old build's sources were replaced");
  free(text);
  cr_assert_eq(count_entries(dir, "."), 0, "a temporary folder was left beside --out");
  cr_assert_eq(left, 0, "a temporary folder was left in TMPDIR");
  free(log);
}

/* A relative nvcc, as --nvcc (bin/nvcc, ./bin/nvcc), as $NVCC, or a bare
 * name found in $PATH (a relative folder of it too), is the program of that
 * name where build was started, though the compiler runs in build's own
 * folder: each build succeeds and says the absolute name it compiles with. */
Test(build, a_relative_nvcc_is_found_from_where_build_started, .timeout = 120)
{
  char dbpath[512], bin[512], fake[512], logp[512], out[512], p[4200], err[512], cwd[4096];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  cr_assert_eq(mkdir(in_dir(bin, "cuda"), 0755), 0);
  cr_assert_eq(mkdir(in_dir(bin, "cuda/bin"), 0755), 0);
  test_put_standin_nvcc(in_dir(fake, "cuda/bin/standin-nvcc"), 4096);
  char real[4096];
  cr_assert_not_null(realpath(fake, real)); /* the name build finds: the current folder's, links resolved */
  cr_assert_not_null(getcwd(cwd, sizeof cwd));
  cr_assert_eq(chdir(dir), 0);
  const char *path = getenv("PATH");
  char path_with[8192];
  snprintf(path_with, sizeof path_with, "/nonexistent:cuda/bin:%s", path ? path : "/usr/bin:/bin");
  static const struct { const char *nvcc, *env_nvcc; int in_path; } cases[] = {
    {"cuda/bin/standin-nvcc", NULL, 0}, {"./cuda/bin/standin-nvcc", NULL, 0},
    {NULL, "cuda/bin/standin-nvcc", 0}, {"standin-nvcc", NULL, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char name[32];
    snprintf(name, sizeof name, "lib%zu", i);
    in_dir(out, name);
    if (cases[i].env_nvcc) setenv("NVCC", cases[i].env_nvcc, 1);
    else unsetenv("NVCC");
    if (cases[i].in_path) setenv("PATH", path_with, 1);
    const char *args[] = {"--db", dbpath, "--out", out, "--jobs", "2", "--nvcc", cases[i].nvcc};
    unlink(in_dir(logp, "rel.log"));
    int status = fix_build(logp, args, cases[i].nvcc ? 8 : 6);
    if (path) setenv("PATH", path, 1);
    char *log = fix_slurp(logp);
    cr_expect_eq(status, 0, "case %zu (nvcc %s, NVCC %s): exit %d\n%s", i, cases[i].nvcc ? cases[i].nvcc : "-",
                 cases[i].env_nvcc ? cases[i].env_nvcc : "-", status, log);
    snprintf(p, sizeof p, "compiling with %s, ", real);
    cr_expect_not_null(strstr(log, p), "case %zu: no '%s' in\n%s", i, p, log);
    snprintf(p, sizeof p, "%s/lib/libsymv.so", out);
    cr_expect(fix_exists(p), "case %zu: no %s", i, p);
    free(log);
  }
  unsetenv("NVCC");
  cr_assert_eq(chdir(cwd), 0);
}

/* A stand-in nvcc at dir/bin/nvcc that appends its arguments, one line a
 * run, to dir/nvcc.args and then writes what put_writing_nvcc's does, its
 * toolkit (dir) of version 12.8 (dir/include/cuda_runtime_api.h); a
 * database with the default fixture's rules at dir/fit.db, built into
 * dir/lib with it: asserts the build and its Makefile are there. */
static void build_with_recording_nvcc(char *out)
{
  char dbpath[512], fake[512], rec[512], args_path[512], logp[512], p[1024], err[512];
  cr_assert_eq(fix_make_db(in_dir(dbpath, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
  cr_assert_eq(mkdir(in_dir(p, "bin"), 0755), 0);
  cr_assert_eq(mkdir(in_dir(p, "include"), 0755), 0); /* the toolkit's version, CUDA 12.8 */
  put(in_dir(p, "include/cuda_runtime_api.h"), "#ifndef CUDART_VERSION\n#define  CUDART_VERSION  12080\n#endif\n");
  test_put_standin_nvcc(in_dir(fake, "bin/writing-nvcc"), 4096);
  snprintf(p, sizeof p, "#!/bin/sh\necho \"$*\" >>'%s'\nexec '%s' \"$@\"\n", in_dir(args_path, "nvcc.args"), fake);
  put(in_dir(rec, "bin/nvcc"), p);
  cr_assert_eq(chmod(rec, 0755), 0);
  const char *args[] = {"--db", dbpath, "--out", in_dir(out, "lib"), "--nvcc", rec, "--jobs", "2"};
  int status = fix_build(in_dir(logp, "build.log"), args, 8);
  char *log = fix_slurp(logp);
  cr_assert_eq(status, 0, "exit %d:\n%s", status, log);
  free(log);
  cr_assert(fix_exists(strcat(strcpy(p, out), "/Makefile")), "no %s", p);
}

/* Runs `make -C out ARGS` (a shell command line's words), its output in
 * dir/make.log (*text, free() it). Returns the exit status. */
static int run_make(const char *out, const char *make_args, char **text)
{
  char cmd[2048], logp[512];
  snprintf(cmd, sizeof cmd, "make -C '%s' %s >'%s' 2>&1", out, make_args, in_dir(logp, "make.log"));
  int st = system(cmd);
  *text = fix_slurp(logp);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* text with its line `from` (a whole line, present) made `to`, into out
 * (len bytes). */
static void replace_line(const char *text, const char *from, const char *to, char *out, size_t len)
{
  char line[256];
  snprintf(line, sizeof line, "\n%s\n", from);
  const char *at = strstr(text, line);
  cr_assert_not_null(at, "no line %s in:\n%s", from, text);
  snprintf(out, len, "%.*s\n%s\n%s", (int)(at - text), text, to, at + strlen(line));
}

/* `make install DESTDIR=STAGE PREFIX=/opt/site` into a prefix that holds
 * another package: that package's files stay byte for byte, the library,
 * its links, symv.h, libsymv.pc (relocatable, its rpath emptied; with
 * RPATH=1 CUDA_VERSION=12.9, as built but for CUDA 12.9) and the CMake
 * package are there, and nothing else is written. */
Test(build, makefile_installs_beside_other_software, .timeout = 120)
{
  char out[512], stage[512], p[1024], cmd[2048];
  build_with_recording_nvcc(out);
  static const char *const dirs[] = {"", "/opt", "/opt/site", "/opt/site/lib", "/opt/site/include",
                                     "/opt/site/lib/pkgconfig"};
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
    cr_assert_eq(mkdir(strcat(in_dir(stage, "stage"), dirs[i]), 0755), 0);
  static const char *const others[][2] = {{"lib/libother.so", "other library\n"},
                                          {"include/other.h", "int other(void);\n"},
                                          {"lib/pkgconfig/other.pc", "prefix=/opt/site\nName: other\n"}};
  for (int i = 0; i < 3; i++) put(strcat(in_dir(p, "stage/opt/site/"), others[i][0]), others[i][1]);
  char *text;
  snprintf(cmd, sizeof cmd, "install DESTDIR='%s' PREFIX=/opt/site", in_dir(stage, "stage"));
  int status = run_make(out, cmd, &text);
  cr_assert_eq(status, 0, "make install: exit %d\n%s", status, text);
  free(text);
  for (int i = 0; i < 3; i++) {
    char *t = fix_slurp(strcat(in_dir(p, "stage/opt/site/"), others[i][0]));
    cr_assert_str_eq(t, others[i][1], "%s was changed", others[i][0]);
    free(t);
  }
  long a, b;
  unsigned char *built = slurp_bytes(strcat(strcpy(p, out), "/lib/" LIBGEN_REALNAME), &a);
  unsigned char *inst = slurp_bytes(in_dir(p, "stage/opt/site/lib/" LIBGEN_REALNAME), &b);
  cr_assert(a == b && memcmp(built, inst, (size_t)a) == 0, "the installed library is not the built one");
  free(built), free(inst);
  /* the installed .pc: the built one (relocatable; CUDA 12.8's modules),
   * its rpath emptied */
  char *pc = fix_slurp(in_dir(p, "stage/opt/site/lib/pkgconfig/libsymv.pc"));
  char *built_pc = fix_slurp(strcat(strcpy(p, out), "/lib/pkgconfig/libsymv.pc")), want_pc[8192];
  cr_assert(pc && built_pc && strstr(pc, "\nprefix=${pcfiledir}/../..\n") &&
                strstr(built_pc, "\nRequires: cublas-${cudaversion} cudart-${cudaversion}\n"),
            "built:\n%s\ninstalled:\n%s", built_pc, pc);
  replace_line(built_pc, "rpath=-Wl,-rpath,${libdir}", "rpath=", want_pc, sizeof want_pc);
  cr_assert_str_eq(pc, want_pc, "the installed .pc is not the built one with rpath emptied");
  free(pc);
  /* every file and link under the stage: the other package's and the library's, no more */
  snprintf(cmd, sizeof cmd, "cd '%s' && find . ! -type d | LC_ALL=C sort", in_dir(stage, "stage"));
  FILE *f = popen(cmd, "r");
  cr_assert_not_null(f);
  char listed[2048] = "", line[512];
  while (fgets(line, sizeof line, f)) strncat(listed, line, sizeof listed - strlen(listed) - 1);
  cr_assert_eq(pclose(f), 0);
  cr_assert_str_eq(listed, "./opt/site/include/other.h\n./opt/site/include/symv.h\n"
                           "./opt/site/lib/cmake/symv/symvConfig.cmake\n"
                           "./opt/site/lib/cmake/symv/symvConfigVersion.cmake\n./opt/site/lib/libother.so\n"
                           "./opt/site/lib/libsymv.so\n./opt/site/lib/" LIBGEN_SONAME "\n"
                           "./opt/site/lib/" LIBGEN_REALNAME "\n./opt/site/lib/pkgconfig/libsymv.pc\n"
                           "./opt/site/lib/pkgconfig/other.pc\n");
  char target[64] = "";
  cr_assert_gt(readlink(in_dir(p, "stage/opt/site/lib/libsymv.so"), target, sizeof target - 1), 0);
  cr_assert_str_eq(target, LIBGEN_SONAME);
  /* RPATH=1 CUDA_VERSION=12.9: the .pc as built, but for CUDA 12.9's modules */
  snprintf(cmd, sizeof cmd, "install DESTDIR='%s' PREFIX=/opt/site RPATH=1 CUDA_VERSION=12.9",
           in_dir(stage, "stage-rpath"));
  status = run_make(out, cmd, &text);
  cr_assert_eq(status, 0, "make install RPATH=1: exit %d\n%s", status, text);
  free(text);
  pc = fix_slurp(in_dir(p, "stage-rpath/opt/site/lib/pkgconfig/libsymv.pc"));
  replace_line(built_pc, "cudaversion=12.8", "cudaversion=12.9", want_pc, sizeof want_pc);
  cr_assert_str_eq(pc, want_pc, "RPATH=1 CUDA_VERSION=12.9: the installed .pc is not the built one for 12.9");
  free(pc), free(built_pc);
}

/* `make NVCC_CFLAGS=... CCBIN=...` compiles every unit the build compiled
 * again and links the library: the units, the kernels' CUBINs among them,
 * get the site's flags in place of the build's, and every nvcc run gets
 * -ccbin. */
Test(build, makefile_rebuilds_with_the_sites_flags, .timeout = 120)
{
  char out[512], args_path[512], p[1024];
  build_with_recording_nvcc(out);
  char *built = fix_slurp(in_dir(args_path, "nvcc.args"));
  int runs = 0;
  for (const char *c = built; *c; c++) runs += *c == '\n';
  free(built);
  cr_assert_gt(runs, 2);
  unlink(args_path);
  unlink(strcat(strcpy(p, out), "/lib/" LIBGEN_REALNAME));
  char *text;
  int status = run_make(out, "NVCC_CFLAGS='-x c -O1 -Xcompiler -fPIC,-g' CCBIN=/opt/gcc/bin/g++", &text);
  cr_assert_eq(status, 0, "make: exit %d\n%s", status, text);
  free(text);
  cr_assert(fix_exists(p), "make linked no %s", p);
  char *rec = fix_slurp(args_path);
  int made = 0, kernels = 0, links = 0;
  for (char *line = strtok(rec, "\n"); line; line = strtok(NULL, "\n"), made++) {
    cr_expect(strstr(line, "-ccbin /opt/gcc/bin/g++ ") == line, "no -ccbin first: %s", line);
    if (strstr(line, " -c src/")) {
      kernels += !strstr(line, " -c src/runtime/") && !strstr(line, " -c src/symv_");
      cr_expect_not_null(strstr(line, " -x c -O1 -Xcompiler -fPIC,-g "), "the site's flags missing: %s", line);
      cr_expect_null(strstr(line, "-O2"), "the build's flags left: %s", line);
    }
    links += strstr(line, "-soname=" LIBGEN_SONAME) != NULL;
  }
  free(rec);
  cr_assert_eq(made, runs, "the build ran nvcc %d times, make %d", runs, made);
  cr_assert_gt(kernels, 0);
  cr_assert_eq(links, 1);
}

/* The identity of build out, a stand-in compiler's (no library): the rules
 * id its .pc names, which must be the one src/symv_identity.c carries in
 * symv_table_id and in its identity line (of the fixture's GPU), into id
 * (13 bytes); that file's text in *identity (free() it). */
static void built_identity(const char *out, char *id, char **identity)
{
  char p[1024], want[256];
  char *pc = fix_slurp(strcat(strcpy(p, out), "/lib/pkgconfig/libsymv.pc"));
  cr_assert_not_null(pc, "no %s", p);
  const char *v = strstr(pc, "\nrules_id=");
  cr_assert_not_null(v, "no rules_id in %s:\n%s", p, pc);
  cr_assert_eq(strspn(v + 10, "0123456789abcdef"), 12, "not 12 hexadecimal digits: %.40s", v + 10);
  cr_assert_eq(v[22], '\n', "not 12 hexadecimal digits: %.40s", v + 10);
  snprintf(id, 13, "%s", v + 10);
  cr_assert_not_null(strstr(pc, "\nsymvtune_version=" PACKAGE_VERSION "\n"), "%s", pc);
  free(pc);
  *identity = fix_slurp(strcat(strcpy(p, out), "/src/symv_identity.c"));
  cr_assert_not_null(*identity, "no %s", p);
  snprintf(want, sizeof want, "\"symvtune-rules: rules %s of NVIDIA H200 (sm_90, 132 SMs), kernels for sm_90; "
           "symvtune " PACKAGE_VERSION "; CUDART_VERSION \" SYMV_STR(CUDART_VERSION) \"; fits dsymv fit ", id);
  cr_assert_not_null(strstr(*identity, want), "no identity line %s in\n%s", want, *identity);
  snprintf(want, sizeof want, "{\"" PACKAGE_VERSION "\", \"%s\", \"dsymv fit ", id);
  cr_assert_not_null(strstr(*identity, want), "no symv_table_id %s in\n%s", want, *identity);
}

/* Libraries built from the same database and fits carry the same rules
 * id; rules that differ in one interval's end, in a rule set, or in the
 * GPU, another one. The fits text names the database's fits. */
Test(build, the_rules_id_tells_libraries_of_other_rules_apart, .timeout = 120)
{
  enum { LIBS = 5 };
  char dbs[LIBS][512], out[LIBS][512], fake[512], logp[512], err[512], id[LIBS][13], *identity[LIBS];
  static const fix_rule moved[FIX_NRULES] = { /* fix_rules, 301..700 ending at 701 */
    {32, 300, DB_KERNEL_CANDIDATE, 0},      {301, 701, DB_KERNEL_CUBLAS, -1},
    {702, 1500, DB_KERNEL_CANDIDATE, 1},    {1501, 2500, DB_KERNEL_CANDIDATE, 2},
    {2501, 3200, DB_KERNEL_CUBLAS_ATOMICS, -1}, {3201, 4000, DB_KERNEL_CANDIDATE, 3},
  };
  /* 0, 1: two copies of the fixture; 2: its 'any' rules alone; 3: those with one end moved; 4: the fixture of a
   * GPU of other SMs */
  static const fix_rule *const rules[LIBS] = {NULL, NULL, fix_rules, moved, NULL};
  static const char *const name[LIBS] = {"a", "a2", "any", "moved", "sm114"};
  for (int i = 0; i < LIBS; i++) {
    char file[32];
    snprintf(file, sizeof file, "%s.db", name[i]);
    cr_assert_eq(fix_make_db(in_dir(dbs[i], file), rules[i], rules[i] ? FIX_NRULES : 0, FIX_LO, FIX_HI, NULL, err,
                             sizeof err), 0, "%s", err);
  }
  tamper(dbs[4], "UPDATE device SET sm_count = 114");
  test_put_standin_nvcc(in_dir(fake, "nvcc"), 64);
  for (int i = 0; i < LIBS; i++) {
    const char *args[] = {"--db", dbs[i], "--out", in_dir(out[i], name[i]), "--nvcc", fake, "--jobs", "2"};
    int status = fix_build(in_dir(logp, "id.log"), args, 8);
    cr_assert_eq(status, 0, "build of %s: exit %d\n%s", dbs[i], status, fix_slurp(logp));
    if (i == 4) { /* another GPU, in the identity line too */
      char p[1024], *text = fix_slurp(strcat(strcpy(p, out[i]), "/src/symv_identity.c")), *v;
      cr_assert_not_null(strstr(text, "of NVIDIA H200 (sm_90, 114 SMs)"), "%s", text);
      free(text);
      text = fix_slurp(strcat(strcpy(p, out[i]), "/lib/pkgconfig/libsymv.pc"));
      cr_assert_not_null(v = strstr(text, "\nrules_id="));
      snprintf(id[i], 13, "%s", v + 10);
      free(text);
      identity[i] = NULL;
    } else {
      built_identity(out[i], id[i], &identity[i]);
    }
  }
  cr_assert_str_eq(id[0], id[1], "the same database and fits, two rules ids");
  for (int i = 2; i < LIBS; i++)
    for (int j = 0; j < i; j++)
      if (j != 1) cr_assert_str_neq(id[i], id[j], "%s and %s: the same rules id", name[i], name[j]);
  /* the fits text: the fixture's two fits, by their ids in the database */
  db *d = NULL;
  db_fit fit, det;
  db_rule *r = NULL;
  size_t n = 0;
  cr_assert_eq(db_open(&d, dbs[0], DB_READONLY), 0);
  cr_assert_eq(db_latest_fit_class(d, SYMV_DSYMV, 'L', 0, 0, &fit, &r, &n, NULL, NULL), 0);
  free(r), r = NULL;
  cr_assert_eq(db_latest_fit_class(d, SYMV_DSYMV, 'L', 0, 1, &det, &r, &n, NULL, NULL), 0);
  free(r);
  db_close(d);
  char want[256];
  snprintf(want, sizeof want, "dsymv fit %lld (%s, cold, uplo L, n %d..%d), deterministic fit %lld (%s, cold, uplo L, "
           "n %d..%d)\"", fit.id, fit.created, FIX_LO, FIX_HI, det.id, det.created, FIX_LO, FIX_HI);
  cr_assert_not_null(strstr(identity[0], want), "no fits text %s in\n%s", want, identity[0]);
  for (int i = 0; i < LIBS; i++) free(identity[i]);
}
