/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of `symvtune doctor` and of the documents of `rank --json` and
 * `bench --json`.
 *
 * doctor: a library is built once per run of this program (a Criterion
 * PRE_ALL hook, as tests/test_install.c does: the shipped sweep, fitted,
 * built with nvcc), and small programs written against cuBLAS alone are
 * linked to it three ways: right (pkg-config's flags, under
 * -Wl,--as-needed), with -Wl,--as-needed and -lsymv after -lcublas (the
 * linker drops libsymv), and with -lcublas before -lsymv (both NEEDED,
 * cuBLAS first). Each link is first checked with readelf -d, so that a
 * test cannot pass on a link that is not what it says; then the doctor's
 * verdict, which it takes from the real bindings of the run (LD_DEBUG),
 * must be the one of that link. The programs call cublasDsymv_v2 with a
 * NULL handle, which libsymv and cuBLAS both refuse before touching a GPU:
 * no GPU is needed, except for the tests that say so (they skip without).
 */
#include "libsymv_fixture.h"
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <math.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include "bench_json.h"
#include "doctor.h"
#include "gpu.h"
#include "symv.h"
#include "test_util.h"


extern const symv_command cmd_rank_entry;

/* ---- The library, built once ------------------------------------------- */

#define TREE "SYMV_TEST_DOCTORDIR" /* names the tree's folder */
ReportHook(PRE_ALL)(struct criterion_test_set *set) { (void)set; fix_tree_make("/tmp/symvtune-test-doctor-XXXXXX", TREE); }
ReportHook(POST_ALL)(struct criterion_global_stats *stats) { (void)stats; fix_tree_remove(TREE); }
FIX_TREE_HELPERS(TREE, "prefix/lib/libsymv.so.0")

/* A program written against cuBLAS alone: cublasGetProperty (which libsymv
 * does not stand in for, so that cuBLAS stays NEEDED), then, unless its
 * argument is "early" (it fails before calling: exit 5), one
 * cublasDsymv_v2 with a NULL handle, which both libsymv and cuBLAS refuse. */
static const char prog_src[] =
  "#include <stdio.h>\n#include <string.h>\n#include <cublas_v2.h>\n"
  "int main(int argc, char **argv)\n{\n"
  "  int v = -1;\n  double a = 1, b = 0;\n"
  "  if (cublasGetProperty(MAJOR_VERSION, &v) != CUBLAS_STATUS_SUCCESS) return 3;\n"
  "  if (argc > 1 && !strcmp(argv[1], \"early\")) return 5;\n"
  "  cublasStatus_t st = cublasDsymv_v2(NULL, CUBLAS_FILL_MODE_LOWER, -1, &a, NULL, 4, NULL, 1, &b, NULL, 1);\n"
  "  printf(\"cuBLAS %d, status %d\\n\", v, (int)st);\n"
  "  return 0;\n}\n";

/* How a program is linked. */
enum { LINK_RIGHT, LINK_AS_NEEDED_DROPS, LINK_CUBLAS_FIRST };

/* Writes text to the file DIR/name; its path in path (1024 bytes), returned. */
static char *write_src(char *path, const char *name, const char *text)
{
  FILE *f = fopen(at(path, name), "w");
  cr_assert_not_null(f, "%s: %s", path, strerror(errno));
  fputs(text, f);
  cr_assert_eq(fclose(f), 0, "%s: %s", path, strerror(errno));
  return path;
}

/* Runs the command printf(fmt, ...) through the shell, its output into
 * DIR/log; fails the test, with the command and its output, unless it
 * exits with status 0. */
__attribute__((format(printf, 2, 3))) static void sh_ok(const char *log, const char *fmt, ...)
{
  char cmd[8192], *text;
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  cr_assert_lt(len, (int)sizeof cmd, "the command is longer than its buffer: %s", cmd);
  int rc = sh(cmd, log, &text);
  cr_assert_eq(rc, 0, "%s\nexit %d:\n%s", cmd, rc, text);
  free(text);
}

/* Writes text to DIR/name.c and compiles it into DIR/name (path in exe,
 * 1024 bytes) with pkg-config's flags for the tree's libsymv, then libs;
 * the compiler's output in DIR/name.build.log, shown if it fails. */
static void cc_with_libsymv(const char *name, const char *text, const char *libs, char *exe)
{
  char src[1024], pc[1024], n[256];
  snprintf(n, sizeof n, "%s.c", name);
  write_src(src, n, text);
  at(exe, name);
  at(pc, "prefix/lib/pkgconfig");
  snprintf(n, sizeof n, "%s.build.log", name);
  sh_ok(n, "cc -std=gnu11 -o '%s' '%s' $(PKG_CONFIG_PATH='%s' pkg-config --cflags --libs libsymv) %s", exe, src, pc,
        libs);
}

/* The sources of a stand-in library and of a program to link to it: makes
 * the folder DIR/sub (path in dir), writes lib_text to DIR/sub/fake.c (in
 * src) and prog_src to DIR/name.c (in prog); 1024 bytes each. */
static void stand_in(const char *sub, const char *lib_text, const char *name, char *dir, char *src, char *prog)
{
  char n[256];
  cr_assert_eq(mkdir(at(dir, sub), 0755), 0, "mkdir %s: %s", dir, strerror(errno));
  snprintf(n, sizeof n, "%s/fake.c", sub);
  write_src(src, n, lib_text);
  snprintf(n, sizeof n, "%s.c", name);
  write_src(prog, n, prog_src);
}

/* Builds DIR/name, linked to the tree DIR/prefix the way `how` says;
 * its path in exe (1024 bytes). */
static void build_prog(const char *name, int how, char *exe)
{
  char src[1024], pc[1024], cmd[6144], log[300], n[256], lib[1024];
  snprintf(n, sizeof n, "%s.c", name);
  write_src(src, n, prog_src);
  at(exe, name);
  at(pc, "prefix/lib/pkgconfig");
  at(lib, "prefix/lib");
  /* the .pc's flags (they name CUDA's folders too) for the right link;
   * its --cflags and -L folders with a plain -lsymv for the wrong ones */
  if (how == LINK_RIGHT)
    snprintf(cmd, sizeof cmd,
             "cc -std=gnu11 -Wl,--as-needed -o '%s' '%s' $(PKG_CONFIG_PATH='%s' pkg-config --cflags --libs libsymv) "
             "-lcublas", exe, src, pc);
  else
    snprintf(cmd, sizeof cmd,
             "cc -std=gnu11 %s -o '%s' '%s' $(PKG_CONFIG_PATH='%s' pkg-config --cflags --libs-only-L libsymv) "
             "-Wl,-rpath,'%s' -lcublas -lsymv", how == LINK_AS_NEEDED_DROPS ? "-Wl,--as-needed" : "-Wl,--no-as-needed",
             exe, src, pc, lib);
  snprintf(log, sizeof log, "%s.build.log", name);
  sh_ok(log, "%s", cmd);
}

/* exe's NEEDED entries, from readelf -d: the index of libsymv.so.0 and of
 * libcublas.so.N (-1 when absent). */
static void needed_of(const char *exe, int *symv, int *cublas)
{
  char cmd[1200], line[512];
  int n = 0;
  *symv = *cublas = -1;
  snprintf(cmd, sizeof cmd, "LC_ALL=C readelf -d '%s'", exe);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  while (fgets(line, sizeof line, p)) {
    char *b = strstr(line, "(NEEDED)"), *l = b ? strchr(b, '[') : NULL;
    if (!l) continue;
    if (!strncmp(l + 1, "libsymv.so.0]", 13)) *symv = n;
    if (!strncmp(l + 1, "libcublas.so.", 13)) *cublas = n;
    n++;
  }
  cr_assert_eq(pclose(p), 0, "%s failed", cmd);
}

/* Runs `symvtune doctor ARGS`; its exit status, its output in out. */
static int doctor(char *out, size_t len, char *const *args)
{
  char *av[16];
  int ac = 0;
  av[ac++] = "symvtune";
  av[ac++] = "doctor";
  while (*args && ac < 15) av[ac++] = *args++;
  av[ac] = NULL;
  return run_symvtune_all(out, len, av);
}

static char out[1 << 16];

/* Runs `symvtune doctor ARGS` (args NULL-terminated), its output into out:
 * its exit status must be `verdict` and its output must hold each text of
 * says (NULL-terminated). */
static void expect_doctor(char *const *args, int verdict, const char *const *says)
{
  int rc = doctor(out, sizeof out, args);
  cr_assert_eq(rc, verdict, "exit %d, not %d:\n%s", rc, verdict, out);
  for (; *says; says++) cr_assert_not_null(strstr(out, *says), "no '%s' in the doctor's output:\n%s", *says, out);
}

TestSuite(doctor, .timeout = 120);

Test(doctor, a_program_linked_right_reaches_libsymv, .init = need_tree)
{
  char exe[1024], pre[1024], want[1100];
  build_prog("right", LINK_RIGHT, exe);
  int s, c;
  needed_of(exe, &s, &c);
  cr_assert(s >= 0 && c >= 0 && s < c, "the right link: libsymv NEEDED (%d) before libcublas (%d)", s, c);
  char *args[] = {"--lib", at(pre, "prefix"), "--", exe, NULL};
  expect_doctor(args, 0, (const char *const[]){"verdict (exit 0): the program's SYMV/HEMV calls reach libsymv", NULL});
  snprintf(want, sizeof want, "%s: cublasDsymv_v2 -> ", exe);
  char *line = strstr(out, want);
  cr_assert_not_null(line, "no binding line for the program:\n%s", out);
  cr_assert_not_null(strstr(line, "libsymv.so.0 (libsymv)"), "%s", out);
  /* the call, from libsymv's log: a NULL handle is an argument error */
  cr_assert_not_null(strstr(out, "calls libsymv logged (SYMV_LOG): 1\n"), "%s", out);
  cr_assert_not_null(strstr(out, "dsymv: 1 call, n -1..-1; 0 ran a libsymv kernel"), "%s", out);
  cr_assert_not_null(strstr(out, "argument error: NULL handle"), "%s", out);
  /* what the library says of itself; the log's identity line is not a call, nor a line not understood */
  cr_assert_not_null(strstr(out, "rules tuned on NVIDIA H200"), "%s", out);
  cr_assert_not_null(strstr(out, "  identity: symvtune-rules: rules "), "%s", out);
  cr_assert_null(strstr(out, "not understood"), "%s", out);
  char db[1024], rules[64];
  const long long nany = test_sql_int(at(db, "sweep.db"), "SELECT count(*) FROM fit_rule WHERE fit_id = (SELECT max(id) "
                                                          "FROM fit WHERE routine = 'dsymv' AND atomics = 'any')"),
                  ndet = test_sql_int(db, "SELECT count(*) FROM fit_rule WHERE fit_id = (SELECT max(id) FROM fit "
                                          "WHERE routine = 'dsymv' AND atomics = 'deterministic')");
  cr_assert(nany > 1 && ndet > 0, "the fit's rules: %lld, %lld", nany, ndet);
  snprintf(rules, sizeof rules, "dsymv %lld/%lld ", nany, ndet);
  cr_assert_not_null(strstr(out, rules), "the fit's rules, %s:\n%s", rules, out);
  cr_assert_not_null(strstr(out, "the program exited with status 0"), "%s", out);
}

/* --lib DIR without a program: the library's report of itself, with the
 * identity line that names its rules id, the one the .pc names. */
Test(doctor, lib_alone_tells_what_the_library_holds, .init = need_tree)
{
  char pre[1024], pc[1100], want[128];
  char *args[] = {"--lib", at(pre, "prefix"), NULL};
  expect_doctor(args, 0, (const char *const[]){"rules tuned on NVIDIA H200", "rules (any / deterministic): ", NULL});
  snprintf(pc, sizeof pc, "%s/lib/pkgconfig/libsymv.pc", pre);
  char *text = fix_slurp(pc), *id = text ? strstr(text, "\nrules_id=") : NULL;
  cr_assert_not_null(id, "no rules_id in %s", pc);
  snprintf(want, sizeof want, "  identity: symvtune-rules: rules %.12s of NVIDIA H200 (sm_90, 132 SMs), ", id + 10);
  cr_assert_not_null(strstr(out, want), "no '%s' in the doctor's output:\n%s", want, out);
  free(text);
  char *nolib[] = {"--lib", "/nonexistent", NULL};
  expect_doctor(nolib, SYMV_EXIT_USAGE, (const char *const[]){"neither", NULL});
}

Test(doctor, a_program_that_fails_before_its_first_call_is_judged_by_its_bindings, .init = need_tree)
{
  char exe[1024], exe2[1024];
  build_prog("early", LINK_RIGHT, exe);
  char *args[] = {"--", exe, "early", NULL};
  expect_doctor(args, 0,
                (const char *const[]){"the program exited with status 5",
                                      "calls libsymv logged (SYMV_LOG): none (the program made no SYMV/HEMV call", NULL});
  /* and a wrong link is found the same way without a call */
  build_prog("early_first", LINK_CUBLAS_FIRST, exe2);
  char *args2[] = {exe2, "early", NULL};
  expect_doctor(args2, DOCTOR_CUBLAS_FIRST, (const char *const[]){NULL});
}

Test(doctor, as_needed_dropping_libsymv_is_found_with_the_fix, .init = need_tree)
{
  char exe[1024], pre[1024];
  build_prog("dropped", LINK_AS_NEEDED_DROPS, exe);
  int s, c;
  needed_of(exe, &s, &c);
  cr_assert(s < 0 && c >= 0, "the link was meant to drop libsymv and keep cuBLAS: libsymv %d, libcublas %d", s, c);
  char *args[] = {"--lib", at(pre, "prefix"), exe, NULL};
  /* the binding to cuBLAS, the pkg-config and CMake fixes, the fix naming --lib's .pc */
  expect_doctor(args, DOCTOR_NOT_LINKED,
                (const char *const[]){"(cuBLAS)", "does not record libsymv NEEDED: it was dropped at link time",
                                      "pkg-config --libs libsymv", "symv::symv", "prefix/lib/pkgconfig:$CUDA_HOME/pkgconfig pkg-config",
                                      "calls libsymv logged (SYMV_LOG): none", NULL});
}

Test(doctor, cublas_before_libsymv_is_found_with_the_fix, .init = need_tree)
{
  char exe[1024], pre[1024];
  build_prog("first", LINK_CUBLAS_FIRST, exe);
  int s, c;
  needed_of(exe, &s, &c);
  cr_assert(s >= 0 && c >= 0 && c < s, "the link was meant to need libcublas (%d) before libsymv (%d)", c, s);
  char *args[] = {"--lib", at(pre, "prefix"), "--", exe, NULL};
  expect_doctor(args, DOCTOR_CUBLAS_FIRST,
                (const char *const[]){"libcublas is NEEDED before libsymv", "libsymv loaded from: ",
                                      "pkg-config --libs libsymv", NULL});
}

Test(doctor, a_libsymv_from_another_path_than_expected_is_found, .init = need_tree)
{
  char exe[1024], a[1024], b[1024], cmd[5200];
  build_prog("other", LINK_RIGHT, exe); /* its RUNPATH names DIR/prefix/lib */
  sh_ok("copy.log", "cp -a '%s' '%s'", at(a, "prefix"), at(b, "copy"));
  char *args[] = {"--lib", b, "--", exe, NULL};
  expect_doctor(args, DOCTOR_OTHER_PATH, (const char *const[]){"not the library of --lib", NULL});
  /* with the copy first in the search, the same program is right */
  snprintf(cmd, sizeof cmd, "LD_LIBRARY_PATH='%s/lib' '%s' doctor --lib '%s' '%s' > /dev/null 2>&1", b, test_symvtune_path(), b,
           exe);
  int rc = system(cmd);
  cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s: exit %d", cmd, WEXITSTATUS(rc));
}

/* A stand-in for the cuBLAS of another CUDA major version (libcublas.so.99, a major no toolkit has):
 * what the program calls, with the SONAME of that version. */
static const char fake_cublas_src[] =
  "int cublasGetProperty(int type, int *value) { (void)type; *value = 99; return 0; }\n"
  "int cublasDsymv_v2(void) { return 7; }\n";

Test(doctor, a_program_of_another_cuda_major_version_is_found, .init = need_tree)
{
  char dir[1024], src[1024], prog[1024], exe[1024], pc[1024], cmd[1200];
  stand_in("fake99", fake_cublas_src, "major", dir, src, prog);
  at(exe, "major");
  at(pc, "prefix/lib/pkgconfig");
  /* the program: libsymv's flags, but its -lcublas found first in fake99 */
  sh_ok("major.build.log",
        "cc -shared -fPIC -Wl,-soname,libcublas.so.99 -o '%s/libcublas.so.99' '%s' && "
        "ln -s libcublas.so.99 '%s/libcublas.so' && "
        "cc -std=gnu11 -o '%s' '%s' -L'%s' -Wl,-rpath,'%s' $(PKG_CONFIG_PATH='%s' pkg-config --cflags --libs libsymv)",
        dir, src, dir, exe, prog, dir, dir, pc);
  snprintf(cmd, sizeof cmd, "LC_ALL=C readelf -d '%s' | grep -q 'Shared library: \\[libcublas.so.99\\]'", exe);
  cr_assert_eq(system(cmd), 0, "the program was meant to need libcublas.so.99: %s", cmd);
  char *args[] = {"--", exe, NULL};
  expect_doctor(args, DOCTOR_CUDA_MAJOR,
                (const char *const[]){"needs libcublas.so.99; libsymv", "was built against libcublas.so.",
                                      "two cuBLAS major versions are loaded", NULL});
}

/* A program of the legacy API (cublas.h), linked right: its cublasDsymv
 * is not a name libsymv stands in for. It refers to it without calling it
 * (no cublasInit): the binding is made at load time all the same. */
static const char legacy_src[] =
  "#include <cublas.h>\n"
  "int main(int argc, char **argv)\n{\n  (void)argv;\n"
  "  if (argc > 99) cublasDsymv('L', 4, 1.0, 0, 4, 0, 1, 0.0, 0, 1);\n"
  "  return 0;\n}\n";

Test(doctor, a_program_of_the_legacy_api_is_told_libsymv_does_not_replace_it, .init = need_tree)
{
  char exe[1024];
  cc_with_libsymv("legacy", legacy_src, "", exe);
  char *args[] = {"--", exe, NULL};
  expect_doctor(args, DOCTOR_OTHER_API,
                (const char *const[]){"cublasDsymv -> ", "the legacy API, which libsymv does not replace", NULL});
}

/* A stand-in libsymv.so.0 for the verdicts that rest on the log (a real
 * call needs a GPU): its cublasDsymv_v2 appends the line FAKE_SYMV_LINE
 * to SYMV_LOG_FILE, as libsymv logs a call, and its symvGetInfo reports 3
 * 'any' rules and 1 deterministic rule of dsymv for an H200. The program
 * is linked to it with -lsymv before -lcublas, so the binding is real. */
static const char fake_symv_src[] =
  "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include \"symv.h\"\n"
  "cublasStatus_t cublasDsymv_v2(cublasHandle_t h, cublasFillMode_t uplo, int n, const double *alpha,\n"
  "                              const double *A, int lda, const double *x, int incx, const double *beta,\n"
  "                              double *y, int incy)\n{\n"
  "  (void)h, (void)uplo, (void)n, (void)alpha, (void)A, (void)lda, (void)x, (void)incx, (void)beta, (void)y, (void)incy;\n"
  "  const char *p = getenv(\"SYMV_LOG_FILE\"), *l = getenv(\"FAKE_SYMV_LINE\");\n"
  "  FILE *f = p && l ? fopen(p, \"a\") : NULL;\n"
  "  if (f) fprintf(f, \"%s\\n\", l), fclose(f);\n"
  "  return CUBLAS_STATUS_SUCCESS;\n}\n"
  "cublasStatus_t symvGetInfo(symvInfo *info)\n{\n"
  "  memset(info, 0, sizeof *info);\n"
  "  info->version = \"0.1.0\", info->tuned_gpu = \"NVIDIA H200\", info->arch = \"sm_90\";\n"
  "  info->tuned_cc_major = 9, info->tuned_sm_count = 132;\n"
  "  info->rules[SYMV_INFO_DSYMV] = 3, info->det_rules[SYMV_INFO_DSYMV] = 1, info->device = -1;\n"
  "  info->device_matched = -1;\n  return CUBLAS_STATUS_SUCCESS;\n}\n";

/* Builds the stand-in and a program linked to it, once; the program's path in exe. */
static void build_fake(char *exe)
{
  char dir[1024], src[1024], prog[1024], inc[1024], pc[1024];
  if (fix_exists(at(exe, "fake_prog"))) return;
  stand_in("fakesymv", fake_symv_src, "fake_prog", dir, src, prog);
  at(inc, "prefix/include");
  at(pc, "prefix/lib/pkgconfig");
  sh_ok("fake.build.log",
        "CF=$(PKG_CONFIG_PATH='%s' pkg-config --cflags libsymv) && L=$(PKG_CONFIG_PATH='%s' pkg-config --libs-only-L libsymv) && "
        "cc -std=gnu11 -shared -fPIC -Wl,-soname,libsymv.so.0 -I'%s' $CF -o '%s/libsymv.so.0' '%s' $L -lcublas && "
        "ln -s libsymv.so.0 '%s/libsymv.so' && "
        "cc -std=gnu11 -Wl,--no-as-needed -o '%s' '%s' $CF -L'%s' -Wl,-rpath,'%s' -lsymv $L -lcublas",
        pc, pc, inc, dir, src, dir, exe, prog, dir, dir);
}

/* Runs the doctor on the stand-in's program with FAKE_SYMV_LINE = line. */
static int doctor_fake(const char *line)
{
  char exe[1024];
  build_fake(exe);
  setenv("FAKE_SYMV_LINE", line, 1);
  char *args[] = {"--", exe, NULL};
  int rc = doctor(out, sizeof out, args);
  unsetenv("FAKE_SYMV_LINE");
  return rc;
}

Test(doctor, the_logged_reasons_give_the_verdict, .init = need_tree)
{
  static const struct {
    const char *line, *want;
    int status;
  } cases[] = {
    {"libsymv: dsymv n=1000 uplo=L lda=1000 incx=1 incy=1: dsymv_pipe_b256_u32_x0 (rule n 803..32768) -> "
     "CUBLAS_STATUS_SUCCESS (0) wisdom=none", "1 ran a libsymv kernel", 0},
    {"libsymv: dsymv n=1000 uplo=L lda=1000 incx=1 incy=1: cuBLAS (rule n 803..32768) -> CUBLAS_STATUS_SUCCESS (0)",
     "its rules chose cuBLAS at every size called", 0},
    {"libsymv: dsymv n=1000 uplo=L lda=1000 incx=1 incy=1: cuBLAS (fallback: device 0 is not the NVIDIA H200 "
     "(sm_90, 132 SMs) the rules were tuned on) -> CUBLAS_STATUS_SUCCESS (0)", "fix: tune on this GPU", DOCTOR_NO_RULES},
    {"libsymv: dsymv n=1000 uplo=L lda=1000 incx=1 incy=1: cuBLAS (untuned routine: the database had no fit of dsymv) "
     "-> CUBLAS_STATUS_SUCCESS (0)", "has no rules for", DOCTOR_NO_RULES},
    {"libsymv: dsymv n=1000 uplo=L lda=1000 incx=1 incy=1: cuBLAS (deterministic rule n 32..4000) -> "
     "CUBLAS_STATUS_SUCCESS (0)", "cublasSetAtomicsMode(handle,", DOCTOR_ATOMICS},
    {"libsymv: dsymv n=1000 uplo=L lda=1000 incx=1 incy=1: cuBLAS (untuned routine: the database had no "
     "deterministic fit of dsymv) -> CUBLAS_STATUS_SUCCESS (0)", "CUBLAS_ATOMICS_NOT_ALLOWED", DOCTOR_ATOMICS},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int rc = doctor_fake(cases[i].line);
    cr_assert_eq(rc, cases[i].status, "case %zu: exit %d, not %d:\n%s", i, rc, cases[i].status, out);
    cr_assert_not_null(strstr(out, cases[i].want), "case %zu: no '%s' in:\n%s", i, cases[i].want, out);
    cr_assert_not_null(strstr(out, "dsymv: 1 call, n 1000..1000"), "case %zu:\n%s", i, out);
  }
}

Test(doctor, a_program_without_the_routines_has_nothing_to_judge)
{
  char *args[] = {"--", "/bin/true", NULL};
  expect_doctor(args, DOCTOR_NO_CALLS, (const char *const[]){"refers to none of", NULL});
}

Test(doctor, bad_command_lines_are_refused)
{
  char *none[] = {NULL};
  expect_doctor(none, SYMV_EXIT_USAGE, (const char *const[]){"no program to run", NULL});
  char *missing[] = {"--", "/nonexistent/program", NULL};
  expect_doctor(missing, SYMV_EXIT_ERROR, (const char *const[]){"cannot run /nonexistent/program", NULL});
  char *nolib[] = {"--lib", "/nonexistent", "/bin/true", NULL};
  expect_doctor(nolib, SYMV_EXIT_USAGE, (const char *const[]){NULL});
  char *help[] = {"--help", NULL};
  expect_doctor(help, 0, (const char *const[]){"Exit status", NULL});
  /* options after the program's name are the program's */
  char *prog_opts[] = {"/bin/sh", "-c", "exit 0", "--lib", NULL};
  expect_doctor(prog_opts, DOCTOR_NO_CALLS, (const char *const[]){NULL});
}

/* ---- The parsers ---------------------------------------------------------- */

/* Lines of libsymv's log (lib/libsymv.c: log_call) and what they hold;
 * served NULL: not a call line. */
static const struct {
  const char *line, *routine, *uplo, *served, *why, *status;
  int n;
} calls[] = {
  {"libsymv: dsymv n=500 uplo=L lda=500 incx=1 incy=1: dsymv_pipe_b256_u32_x0 (rule n 323..802) -> "
   "CUBLAS_STATUS_SUCCESS (0)\n", "dsymv", "L", "dsymv_pipe_b256_u32_x0", "rule n 323..802", "CUBLAS_STATUS_SUCCESS", 500},
  /* a why with parentheses of its own */
  {"libsymv: zhemv n=4096 uplo=U lda=4100 incx=1 incy=2: cuBLAS (fallback: device 1 is not the NVIDIA H200 (sm_90, "
   "132 SMs) the rules were tuned on) -> CUBLAS_STATUS_SUCCESS (0)\n", "zhemv", "U", "cuBLAS",
   "fallback: device 1 is not the NVIDIA H200 (sm_90, 132 SMs) the rules were tuned on", "CUBLAS_STATUS_SUCCESS", 4096},
  /* fields a later libsymv adds at the end are ignored */
  {"libsymv: ssymv n=32 uplo=L lda=32 incx=1 incy=1: cuBLAS with atomics (deterministic rule n 32..2800) -> "
   "CUBLAS_STATUS_SUCCESS (0) wisdom=/home/u/.symv/h100.wisdom source=wisdom\n", "ssymv", "L", "cuBLAS with atomics",
   "deterministic rule n 32..2800", "CUBLAS_STATUS_SUCCESS", 32},
  {"libsymv: dsymv n=-1 uplo=7 lda=4 incx=1 incy=1: none (argument error: argument 2 (n)) -> "
   "CUBLAS_STATUS_INVALID_VALUE (7)", "dsymv", "7", "none", "argument error: argument 2 (n)",
   "CUBLAS_STATUS_INVALID_VALUE", -1},
  {"libsymv: SYMV_LOG_FILE /x: Permission denied; logging to stderr\n", NULL, NULL, NULL, NULL, NULL, 0},
  {"libsymv: dsymv n=12x uplo=L lda=4 incx=1 incy=1: none (n = 0: nothing to do) -> CUBLAS_STATUS_SUCCESS (0)\n",
   NULL, NULL, NULL, NULL, NULL, 0},
  {"libsymv: dsymv n=4 uplo=L lda=4 incx=1 incy=1: dsymv_lu_b64_u4_x0 (rule n 1..9) ->\n", NULL, NULL, NULL, NULL,
   NULL, 0},
  {"something else entirely\n", NULL, NULL, NULL, NULL, NULL, 0},
  {"", NULL, NULL, NULL, NULL, NULL, 0},
};

Test(parse, log_lines_give_their_known_fields_and_ignore_the_rest)
{
  for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
    doctor_call c;
    int rc = doctor_parse_call(calls[i].line, &c);
    if (!calls[i].served) {
      cr_assert_eq(rc, -1, "line %zu is not a call: %s", i, calls[i].line);
      continue;
    }
    cr_assert_eq(rc, 0, "line %zu: %s", i, calls[i].line);
    cr_assert_str_eq(c.routine, calls[i].routine, "line %zu", i);
    cr_assert_eq(c.n, calls[i].n, "line %zu", i);
    cr_assert_str_eq(c.uplo, calls[i].uplo, "line %zu", i);
    cr_assert_str_eq(c.served, calls[i].served, "line %zu", i);
    cr_assert_str_eq(c.why, calls[i].why, "line %zu", i);
    cr_assert_str_eq(c.status, calls[i].status, "line %zu", i);
  }
}

Test(parse, binding_lines_give_the_two_objects_and_the_symbol)
{
  doctor_binding b;
  cr_assert_eq(doctor_parse_binding("     41873:\tbinding file ./app [0] to /usr/local/cuda/lib64/libcublas.so.13 [0]: "
                                    "normal symbol `cublasDsymv_v2' [libcublas.so.13]\n", &b), 0);
  cr_assert_str_eq(b.from, "./app");
  cr_assert_str_eq(b.to, "/usr/local/cuda/lib64/libcublas.so.13");
  cr_assert_str_eq(b.symbol, "cublasDsymv_v2");
  cr_assert_eq(doctor_parse_binding("  7:\tbinding file /a b/libx.so [0] to /c/libsymv.so.0 [1]: normal symbol "
                                    "`cublasZhemv_v2'\n", &b), 0, "a name with a blank, no version");
  cr_assert_str_eq(b.from, "/a b/libx.so");
  cr_assert_str_eq(b.to, "/c/libsymv.so.0");
  cr_assert_str_eq(b.symbol, "cublasZhemv_v2");
  cr_assert_eq(doctor_parse_binding("     41873:\tsymbol=cublasDsymv_v2;  lookup in file=./app [0]\n", &b), -1);
  cr_assert_eq(doctor_parse_binding("     41873:\tbinding file ./app [0] to \n", &b), -1);
}

/* ---- The JSON documents ---------------------------------------------------- */

/* Skips without jq (Debian's jq: scripts/deps installs it). */
static void need_jq(void)
{
  if (system("jq --version > /dev/null 2>&1")) cr_skip_test("no jq to read the document with");
}

/* 0 if the JSON file at path parses and the jq expression holds (jq -e). */
static int jq_holds(const char *path, const char *expr)
{
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "jq -e '%s' '%s' > /dev/null", expr, path);
  int rc = system(cmd);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

Test(json, rank_json_carries_the_head_and_the_ranking, .init = need_jq)
{
  char db[1100], src[512], dir[1024], doc[1100];
  snprintf(dir, sizeof dir, "%s/rank", topdir());
  cr_assert_eq(mkdir(dir, 0755), 0);
  snprintf(db, sizeof db, "%s/sweep.db", dir);
  cr_assert_eq(fix_copy(fix_sweep_db(src), db), 0);
  char *av[] = {"rank", "--db", db, "--json", NULL}, *json = NULL, *err = NULL;
  int rc = test_run_in_process(cmd_rank_entry.run, 4, av, dir, &json, &err);
  cr_assert_eq(rc, 0, "rank --json: exit %d: %s", rc, err);
  snprintf(doc, sizeof doc, "%s/rank.json", dir);
  FILE *f = fopen(doc, "w");
  cr_assert_not_null(f);
  fputs(json, f);
  fclose(f);
  /* the same ranking as the table: its survivors, in its order */
  char *tav[] = {"rank", "--db", db, NULL}, *table = NULL;
  cr_assert_eq(test_run_in_process(cmd_rank_entry.run, 3, tav, dir, &table, NULL), 0);
  int survivors = 0;
  for (char *p = table; (p = strstr(p, "\n *")); p++) survivors++;
  cr_assert_gt(survivors, 0, "the table lists survivors:\n%s", table);
  char expr[2048];
  snprintf(expr, sizeof expr,
           ".format == 1 and (.symvtune | type) == \"string\" and .schema == %d and "
           "(.device.name | test(\"H200\")) and (.device.sm_count | type) == \"number\" and "
           ".routine == \"dsymv\" and .uplo == \"L\" and .hot == false and .points_k == 25 and .top == 10 and "
           "(.sizes | length) > 0 and (.cublas_us | length) == (.sizes | length) and "
           "([.candidates[] | select(.survivor)] | length) == %d and "
           "([.candidates[].rank] == ([.candidates[].rank] | sort)) and "
           "(.candidates[0] | (.id > 0) and (.family | type) == \"string\" and .block_size > 0 and .points > 0 and "
           "(.family as $f | .label | startswith($f))) and "
           "((.sizes | length) as $s | all(.candidates[]; (.speedup | length) == $s))",
           DB_SCHEMA_VERSION, survivors);
  cr_assert_eq(jq_holds(doc, expr), 0, "%s does not hold for:\n%s", expr, json);
  free(json), free(err), free(table);
}

Test(json, bench_json_carries_the_head_the_library_and_each_size, .init = need_jq)
{
  db_bench_run run = {.id = 12, .deterministic = 0, .hot = 0, .batches = 7, .cc_major = 9, .cc_minor = 0,
                      .sm_count = 132, .copy_gbs = 3000, .complete = 1};
  snprintf(run.symvtune, sizeof run.symvtune, "0.1.0");
  snprintf(run.lib_path, sizeof run.lib_path, "/opt/lib\"symv/lib/libsymv.so"); /* a quote to escape */
  snprintf(run.lib_version, sizeof run.lib_version, "0.1.0");
  snprintf(run.lib_tuned_gpu, sizeof run.lib_tuned_gpu, "NVIDIA H200");
  snprintf(run.lib_arch, sizeof run.lib_arch, "sm_90");
  snprintf(run.device, sizeof run.device, "NVIDIA H200");
  db_bench_result r[4];
  const int ns[4] = {256, 1000, 2000, 16384};
  const double lib[4] = {5, 10, 20, 1000}, cub[4] = {6, 20, 30, 990}, cuba[4] = {8, 25, 50, 1010};
  for (int i = 0; i < 4; i++) {
    r[i] = (db_bench_result){.uplo = 'L', .n = ns[i], .libsymv_us = lib[i], .cublas_us = cub[i],
                             .cublas_atomics_us = cuba[i], .openblas_us = 30 * lib[i], .floor_us = 0.8 * lib[i],
                             .residual = 0.5, .pct_copy = 50 + i};
    r[i].routine = SYMV_DSYMV;
    snprintf(r[i].kernel, sizeof r[i].kernel, "dsymv_pipe_b256_u32_x0");
  }
  r[1].openblas_us = NAN;  /* not measured: null */
  r[2].residual = 1e6;     /* a wrong result */
  char doc[1024];
  at(doc, "bench.json");
  FILE *f = fopen(doc, "w");
  cr_assert_not_null(f);
  bench_json_write(f, &run, r, 4, 64);
  cr_assert_eq(fclose(f), 0);
  char expr[2048];
  snprintf(expr, sizeof expr,
           ".format == 1 and .symvtune != null and .schema == %d and .device.name == \"NVIDIA H200\" and "
           ".device.cc_major == 9 and .device.sm_count == 132 and .routine == \"dsymv\" and .uplo == \"L\" and "
           ".atomics == \"any\" and .hot == false and .batches == 7 and .copy_gbs == 3000 and .run_id == 12 and "
           ".complete == true and .library.path == \"/opt/lib\\\"symv/lib/libsymv.so\" and "
           ".library.version == \"0.1.0\" and .library.tuned_gpu == \"NVIDIA H200\" and .library.arch == \"sm_90\" and "
           "(.results | length) == 4 and .results[0].n == 256 and .results[0].speedup == 1.2 and "
           ".results[1].openblas_us == null and .results[1].speedup == 2 and .results[2].correct == false and "
           ".results[0].correct == true and .results[3].speedup == 0.99 and .results[0].x_floor == 1.25 and "
           ".summary.slower_at == [16384] and (.summary.speedup_geomean_500_4096 - 1.732050808 | fabs) < 1e-6 and "
           ".summary.least_pct_copy_8192 == 53 and .summary.x_floor_geomean_500_4096 == 1.25",
           DB_SCHEMA_VERSION);
  cr_assert_eq(jq_holds(doc, expr), 0, "%s does not hold for %s:\n%s", expr, doc, fix_slurp(doc));
  /* deterministic: against cuBLAS without atomics; nothing measured: nulls, a valid document */
  run.deterministic = 1, run.id = 0, run.complete = 0, run.copy_gbs = NAN;
  f = fopen(doc, "w");
  bench_json_write(f, &run, r, 4, 64);
  fclose(f);
  cr_assert_eq(jq_holds(doc, ".atomics == \"deterministic\" and .results[0].speedup == 1.2 and "
                             ".results[3].speedup == 0.99 and .run_id == null and .copy_gbs == null and "
                             ".complete == false"), 0, "%s", fix_slurp(doc));
  f = fopen(doc, "w");
  bench_json_write(f, &run, r, 0, 64);
  fclose(f);
  cr_assert_eq(jq_holds(doc, ".results == [] and .routine == null and .summary.speedup_geomean_500_4096 == null "
                             "and .summary.slower_at == []"), 0, "%s", fix_slurp(doc));
}

/* ---- On a GPU (skipped without) ---------------------------------------------- */

static void need_gpu(void)
{
  symv_device_info dev;
  if (symv_device_query(0, &dev)) test_skip_without_gpu("no CUDA device: GPU test skipped");
}

/* bench --json --db: the document and the stored run say the same. */
Test(gpu, bench_stores_its_run_and_prints_its_document, .init = need_tree, .timeout = 600)
{
  need_gpu();
  need_jq();
  char pre[1024], db[1024], doc[1024], cmd[4096], *text;
  at(db, "bench.db");
  at(doc, "bench-gpu.json");
  snprintf(cmd, sizeof cmd, "'%s' bench --lib '%s' --sizes 256,1000,2000 --batches 3 --json --db '%s' > '%s'",
           test_symvtune_path(), at(pre, "prefix"), db, doc);
  int rc = sh(cmd, "bench-gpu.log", &text);
  cr_assert_eq(rc, 0, "%s: exit %d\n%s", cmd, rc, text);
  free(text);
  cr_assert_eq(jq_holds(doc, ".format == 1 and .schema == 7 and (.device.name | length) > 0 and "
                             ".run_id == 1 and .complete == true and (.results | length) == 3 and "
                             "all(.results[]; .correct and .libsymv_us > 0 and .cublas_us > 0) and "
                             "(.library.tuned_gpu | test(\"H200\"))"), 0, "%s", fix_slurp(doc));
  sqlite3 *c;
  cr_assert_eq(sqlite3_open_v2(db, &c, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_prepare_v2(c, "SELECT count(*), min(n), max(n), sum(latest) FROM v_bench WHERE run_id = 1 "
                                     "AND routine = 'dsymv'", -1, &st, NULL), SQLITE_OK);
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
  cr_assert(sqlite3_column_int(st, 0) == 3 && sqlite3_column_int(st, 1) == 256 && sqlite3_column_int(st, 2) == 2000 &&
            sqlite3_column_int(st, 3) == 3, "v_bench of the run");
  sqlite3_finalize(st);
  sqlite3_close(c);
}

/* A program that really calls: a handle in cuBLAS's default atomics mode,
 * then one that allows atomics; n = 1000. */
static const char gpu_prog_src[] =
  "#include <stdio.h>\n#include <cublas_v2.h>\n#include <cuda_runtime.h>\n"
  "int main(void)\n{\n"
  "  const int n = 1000;\n  double a = 1, b = 0, *A, *x, *y;\n  cublasHandle_t h;\n"
  "  if (cudaMalloc((void **)&A, sizeof *A * n * n) || cudaMalloc((void **)&x, sizeof *x * n) ||\n"
  "      cudaMalloc((void **)&y, sizeof *y * n) || cublasCreate(&h)) return 3;\n"
  "  cudaMemset(A, 0, sizeof *A * n * n), cudaMemset(x, 0, sizeof *x * n);\n"
  "  int bad = cublasDsymv(h, CUBLAS_FILL_MODE_LOWER, n, &a, A, n, x, 1, &b, y, 1) != 0;\n"
  "  cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED);\n"
  "  bad |= cublasDsymv(h, CUBLAS_FILL_MODE_LOWER, n, &a, A, n, x, 1, &b, y, 1) != 0;\n"
  "  bad |= cudaDeviceSynchronize() != 0;\n"
  "  cublasDestroy(h);\n  return bad;\n}\n";

Test(gpu, doctor_judges_the_calls_of_a_real_program, .init = need_tree, .timeout = 300)
{
  need_gpu();
  char exe[1024], pre[1024];
  cc_with_libsymv("gpu_prog", gpu_prog_src, "-lcudart -lcublas", exe);
  char *args[] = {"--lib", at(pre, "prefix"), "--", exe, NULL};
  int rc = doctor(out, sizeof out, args);
  cr_assert_not_null(strstr(out, "dsymv: 2 calls, n 1000..1000"), "%s", out);
  cr_assert_not_null(strstr(out, "the program exited with status 0"), "%s", out);
  /* the library was tuned on an H200: there its rules run (a kernel for
   * the handle that allows atomics at least: verdict 0); elsewhere every
   * call goes to cuBLAS for want of rules for this GPU */
  symv_device_info dev;
  cr_assert_eq(symv_device_query(0, &dev), 0);
  if (strstr(dev.name, "H200")) {
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert_null(strstr(out, "; 0 ran a libsymv kernel"), "%s", out);
  } else {
    cr_assert_eq(rc, DOCTOR_NO_RULES, "exit %d:\n%s", rc, out);
    cr_assert_not_null(strstr(out, "the rules were tuned on"), "%s", out);
  }
}
