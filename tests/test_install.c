/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the generated library as people install and link it: the tree
 * `symvtune build` writes from the shipped sweep (DSYMV of tests/data/sweep6-h200.db.xz,
 * copied, fitted with `symvtune fit`), built once per run of this program
 * (a Criterion PRE_ALL hook, in a temp folder whose name the tests find in
 * SYMV_TEST_INSTALLDIR).
 *
 * - the tree: libsymv.so -> libsymv.so.0 -> libsymv.so.0.1.0, SONAME
 *   libsymv.so.0, RUNPATH the toolkit's folder as nvcc is named;
 * - a program built with pkg-config and one built with CMake
 *   (find_package(symv), symv::symv), both with -Wl,--as-needed and naming
 *   cuBLAS too (CMake: CUDA::cublas before symv::symv), record libsymv
 *   NEEDED before libcublas, and at run time (LD_DEBUG=bindings) their
 *   cublasDsymv_v2 binds to libsymv;
 * - a copy of the tree elsewhere works alike, and names nothing of the
 *   original folder;
 * - `make install` staged (DESTDIR) and the installed prefix moved: a
 *   program links against the moved copy through pkg-config (no RUNPATH
 *   unless installed with RPATH=1) and through CMake (CMAKE_PREFIX_PATH,
 *   find_package(symv 0.1 CONFIG), a request for 9.0 refused);
 * - SYMV_LOG / SYMV_LOG_FILE: the library's identity line, then one line
 *   per call, here an argument error;
 * - symvGetInfo: the version, the tuned GPU, the rules the fit chose; the
 *   identity (symvtune and CUDA versions, rules id, fits), which `strings`
 *   and the .pc's rules_id tell alike; the older entry points fill no more
 *   than their programs' symvInfo.
 *
 * No GPU needed: the programs' calls are argument errors (n = -1, a bad
 * uplo), which libsymv returns before it touches the handle or the GPU.
 * pkg-config finds the CUDA modules libsymv.pc requires in the folder
 * $SYMV_TEST_CUDA_PC (fix_tree_cuda_pc). Skips without nvcc (no library)
 * and, for their tests, without cmake or pkg-config.
 */
#include "libsymv_fixture.h"
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dlfcn.h>
#include <limits.h>
#include <sys/wait.h>
#include "config.h"
#include "../libgen/generate.h"
#include "symv.h"


/* ---- The tree, built once ---------------------------------------------- */

#define TREE "SYMV_TEST_INSTALLDIR" /* names the tree's folder */
ReportHook(PRE_ALL)(struct criterion_test_set *set) { (void)set; fix_tree_make("/tmp/symvtune-test-install-XXXXXX", TREE); }
ReportHook(POST_ALL)(struct criterion_global_stats *stats) { (void)stats; fix_tree_remove(TREE); }
FIX_TREE_HELPERS(TREE, "prefix/lib/libsymv.so")

/* A program written against cuBLAS only. It calls cublasGetProperty, which
 * libsymv does not stand in for (so cuBLAS stays NEEDED under
 * --as-needed), then cublasDsymv_v2 with n = -1 (argument "n") or, given
 * the argument "uplo", a fill mode of 7: an argument error either way. */
static const char prog_src[] =
  "#include <stdio.h>\n#include <string.h>\n#include <cublas_v2.h>\n"
  "int main(int argc, char **argv)\n{\n"
  "  int v = -1, bad_uplo = argc > 1 && !strcmp(argv[1], \"uplo\");\n"
  "  double a = 1, b = 0;\n"
  "  if (cublasGetProperty(MAJOR_VERSION, &v) != CUBLAS_STATUS_SUCCESS) return 3;\n"
  "  cublasStatus_t st = cublasDsymv_v2((cublasHandle_t)&v, bad_uplo ? (cublasFillMode_t)7 : CUBLAS_FILL_MODE_LOWER,\n"
  "                                     bad_uplo ? 4 : -1, &a, NULL, 4, NULL, 1, &b, NULL, 1);\n"
  "  printf(\"cuBLAS %d, status %d\\n\", v, (int)st);\n"
  "  return st == CUBLAS_STATUS_INVALID_VALUE ? 0 : 1;\n"
  "}\n";

/* Writes the program's source to DIR/name.c, in buf. */
static char *write_prog(char *buf, const char *name)
{
  char n[256];
  snprintf(n, sizeof n, "%s.c", name);
  FILE *f = fopen(at(buf, n), "w");
  cr_assert_not_null(f, "%s: %s", buf, strerror(errno));
  fputs(prog_src, f);
  cr_assert_eq(fclose(f), 0);
  return buf;
}

/* Builds DIR/name with pkg-config from the tree at prefix (DIR-relative),
 * PKG_CONFIG_PATH naming its .pc's folder and the CUDA toolkit's modules'
 * ($SYMV_TEST_CUDA_PC), as a site sets it: -Wl,--as-needed, libsymv's
 * flags, then -lcublas. Returns the program's path in exe (1024 bytes)
 * and, if libs is not NULL, what `pkg-config --libs libsymv` printed
 * (free() it). */
static void build_pc(const char *prefix, const char *name, char *exe, char **libs)
{
  char src[1024], cmd[4096], log[300], pc[2200], pcdir[300];
  const char *cuda_pc = getenv(FIX_CUDA_PC);
  write_prog(src, name);
  at(exe, name);
  snprintf(pcdir, sizeof pcdir, "%s/lib/pkgconfig", prefix);
  at(pc, pcdir);
  if (cuda_pc) strcat(strcat(pc, ":"), cuda_pc);
  snprintf(cmd, sizeof cmd,
           "export PKG_CONFIG_PATH='%s'; pkg-config --libs libsymv || exit 9; "
           "cc -std=gnu11 -Wl,--as-needed -o '%s' '%s' $(pkg-config --cflags --libs libsymv) -lcublas",
           pc, exe, src);
  snprintf(log, sizeof log, "%s.build.log", name);
  char *text;
  int rc = sh(cmd, log, &text);
  cr_assert_eq(rc, 0, "%s\nexit %d:\n%s", cmd, rc, text);
  if (libs) *libs = text;
  else free(text);
}

static void need_cmake(void)
{
  if (system("cmake --version >/dev/null 2>&1")) cr_skip_test("no cmake");
}

/* Configures and builds DIR/name/build/prog with CMake: the project
 * `lists` (CMakeLists.txt) over the program's source prog.c, the cache
 * entry `define` (-D...) given. Returns the program's path in exe (1024
 * bytes) and, if out is not NULL, CMake's output (free() it). */
static void build_cmake_project(const char *name, const char *lists, const char *define, char *exe, char **out)
{
  char d[1024], p[1100], cmd[4096], log[300];
  cr_assert_lt(strlen(at(d, name)), 900u, "folder name too long");
  cr_assert_eq(mkdir(at(d, name), 0755), 0, "%s: %s", d, strerror(errno));
  snprintf(p, sizeof p, "%s/prog.c", d);
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  fputs(prog_src, f);
  fclose(f);
  snprintf(p, sizeof p, "%s/CMakeLists.txt", d);
  f = fopen(p, "w");
  cr_assert_not_null(f);
  fputs(lists, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cd '%s' && cmake -S . -B build '%s' && cmake --build build", d, define);
  snprintf(log, sizeof log, "%s.build.log", name);
  char *text;
  int rc = sh(cmd, log, &text);
  cr_assert_eq(rc, 0, "%s\nexit %d:\n%s", cmd, rc, text);
  if (out) *out = text;
  else free(text);
  snprintf(exe, 1024, "%.900s/build/prog", d);
}

/* Builds DIR/name/build/prog with CMake: find_package(symv) from the tree at
 * prefix (DIR-relative), CUDA::cublas listed before symv::symv,
 * -Wl,--as-needed. Returns the program's path in exe (1024 bytes). */
static void build_cmake(const char *prefix, const char *name, char *exe)
{
  char cfg[300], cfgdir[1024], define[1100];
  snprintf(cfg, sizeof cfg, "%s/lib/cmake/symv", prefix);
  snprintf(define, sizeof define, "-Dsymv_DIR=%s", at(cfgdir, cfg));
  build_cmake_project(name,
                      "cmake_minimum_required(VERSION 3.17)\n"
                      "project(prog C)\n"
                      "find_package(symv 0.1 REQUIRED)\n"
                      "find_package(CUDAToolkit REQUIRED)\n"
                      "add_executable(prog prog.c)\n"
                      "target_link_options(prog PRIVATE -Wl,--as-needed)\n"
                      "target_link_libraries(prog PRIVATE CUDA::cublas symv::symv)\n",
                      define, exe, NULL);
}

/* Asserts that exe records libsymv.so.0 NEEDED, before libcublas.so.N. */
static void assert_needed_order(const char *exe)
{
  char cmd[1200], line[512], *needed[32];
  int n = 0, symv = -1, cublas = -1;
  snprintf(cmd, sizeof cmd, "readelf -d '%s'", exe);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  while (fgets(line, sizeof line, p) && n < 32) {
    char *b = strstr(line, "(NEEDED)"), *l = b ? strchr(b, '[') : NULL, *r = l ? strchr(l, ']') : NULL;
    if (!r) continue;
    *r = 0;
    needed[n] = strdup(l + 1);
    if (!strcmp(needed[n], "libsymv.so.0")) symv = n;
    if (!strncmp(needed[n], "libcublas.so.", 13)) cublas = n;
    n++;
  }
  cr_assert_eq(pclose(p), 0, "%s failed", cmd);
  char list[1024] = "";
  for (int i = 0; i < n; i++) strcat(strcat(list, " "), needed[i]), free(needed[i]);
  cr_assert_geq(symv, 0, "%s does not need libsymv.so.0 (NEEDED:%s)", exe, list);
  cr_assert_geq(cublas, 0, "%s does not need libcublas (NEEDED:%s): the test proves nothing", exe, list);
  cr_assert_lt(symv, cublas, "%s needs libcublas before libsymv (NEEDED:%s)", exe, list);
}

/* Runs exe with LD_DEBUG=bindings (and env, shell assignments or "", in
 * its environment) and asserts that its cublasDsymv_v2 binds to the
 * library of the tree at prefix (DIR-relative), and that the call came
 * back as libsymv's argument error. */
static void assert_binds_to_libsymv(const char *exe, const char *env, const char *prefix, const char *log)
{
  char cmd[2400], want[1024], rel[300], real_want[PATH_MAX];
  snprintf(cmd, sizeof cmd, "%s LD_DEBUG=bindings '%s'", env, exe);
  char *text;
  int rc = sh(cmd, log, &text);
  snprintf(rel, sizeof rel, "%s/lib/libsymv.so.0", prefix);
  cr_assert_not_null(realpath(at(want, rel), real_want), "%s: %s", want, strerror(errno));
  char head[1100];
  snprintf(head, sizeof head, "binding file %s [0] to ", exe);
  int bound = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char *h = strstr(line, head), *sym = strstr(line, "normal symbol `cublasDsymv_v2'");
    if (!h || !sym) continue;
    char *to = h + strlen(head), *end = strstr(to, " [");
    cr_assert_not_null(end, "%s", line);
    *end = 0;
    char real[PATH_MAX];
    cr_assert_not_null(realpath(to, real), "%s: %s", to, strerror(errno));
    cr_assert_str_eq(real, real_want, "cublasDsymv_v2 bound to %s, not to %s", to, want);
    bound = 1;
  }
  free(text);
  cr_assert(bound, "LD_DEBUG=bindings shows no binding of cublasDsymv_v2 in %s (see %s)", exe, log);
  snprintf(cmd, sizeof cmd, "%s '%s'", env, exe);
  rc = sh(cmd, log, &text);
  cr_assert_eq(rc, 0, "%s: exit %d (not libsymv's CUBLAS_STATUS_INVALID_VALUE):\n%s", exe, rc, text);
  free(text);
}

TestSuite(install, .init = need_tree);

/* ---- The tree ------------------------------------------------------------ */

Test(install, versioned_library_and_its_links, .timeout = 60)
{
  char p[1024], target[64], cmd[1200];
  static const char *const links[][2] = {{"libsymv.so", "libsymv.so.0"}, {"libsymv.so.0", "libsymv.so.0.1.0"}};
  for (int i = 0; i < 2; i++) {
    snprintf(cmd, sizeof cmd, "prefix/lib/%s", links[i][0]);
    ssize_t n = readlink(at(p, cmd), target, sizeof target - 1);
    cr_assert_gt(n, 0, "%s is not a link: %s", p, strerror(errno));
    target[n] = 0;
    cr_assert_str_eq(target, links[i][1], "%s -> %s", p, target);
  }
  struct stat st;
  cr_assert_eq(lstat(at(p, "prefix/lib/libsymv.so.0.1.0"), &st), 0);
  cr_assert(S_ISREG(st.st_mode), "%s is not a file", p);
  static const char *const files[] = {"prefix/include/symv.h", "prefix/lib/pkgconfig/libsymv.pc",
                                      "prefix/lib/cmake/symv/symvConfig.cmake",
                                      "prefix/lib/cmake/symv/symvConfigVersion.cmake"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) cr_assert(fix_exists(at(p, files[i])), "no %s", p);

  snprintf(cmd, sizeof cmd, "readelf -d '%s'", at(p, "prefix/lib/libsymv.so.0.1.0"));
  char *text;
  cr_assert_eq(sh(cmd, "readelf.log", &text), 0, "%s:\n%s", cmd, text);
  cr_assert_not_null(strstr(text, "Library soname: [libsymv.so.0]"), "SONAME:\n%s", text);
  /* RUNPATH: the CUDA library folder as nvcc is named (/usr/local/cuda/lib64,
   * not the versioned folder the link points to), nothing else */
  char root[1024], lib64[1100], want[1200];
  snprintf(root, sizeof root, "%s", FIX_NVCC);
  for (int i = 0; i < 2; i++) *strrchr(root, '/') = 0;
  snprintf(lib64, sizeof lib64, "%s/lib64", root);
  if (stat(lib64, &st) == 0) {
    snprintf(want, sizeof want, "Library runpath: [%s]", lib64);
    cr_assert_not_null(strstr(text, want), "expected %s:\n%s", want, text);
  }
  free(text);

  /* the .pc and the CMake files name no folder of the tree: relocatable */
  static const char *const cfg[] = {"prefix/lib/pkgconfig/libsymv.pc", "prefix/lib/cmake/symv/symvConfig.cmake"};
  for (int i = 0; i < 2; i++) {
    char *t = fix_slurp(at(p, cfg[i]));
    cr_assert_not_null(t);
    cr_assert_null(strstr(t, topdir()), "%s names the folder it was built in:\n%s", p, t);
    cr_assert_not_null(strstr(t, "SPDX-License-Identifier: BSD-3-Clause"), "%s has no SPDX line", p);
    free(t);
  }
}

/* ---- Programs linked against it ----------------------------------------- */

Test(install, pkg_config_program_binds_to_libsymv, .timeout = 120)
{
  char exe[1024];
  build_pc("prefix", "prog_pc", exe, NULL);
  assert_needed_order(exe);
  assert_binds_to_libsymv(exe, "", "prefix", "prog_pc.run.log");
}

Test(install, cmake_program_binds_to_libsymv, .init = need_cmake, .timeout = 120)
{
  need_tree();
  char exe[1024];
  build_cmake("prefix", "prog_cmake", exe);
  assert_needed_order(exe);
  assert_binds_to_libsymv(exe, "", "prefix", "prog_cmake.run.log");
}

/* The tree copied elsewhere (a copy, not a move: the other tests run at the
 * same time) serves programs built against it, from its own folder. */
Test(install, a_moved_tree_still_works, .timeout = 120)
{
  char cmd[3200], a[1024], b[1024], exe[1024], *text;
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -a '%s' '%s/tree'", at(a, "elsewhere"), at(b, "prefix"), a);
  cr_assert_eq(sh(cmd, "copy.log", &text), 0, "%s:\n%s", cmd, text);
  free(text);
  build_pc("elsewhere/tree", "prog_moved_pc", exe, NULL);
  assert_needed_order(exe);
  assert_binds_to_libsymv(exe, "", "elsewhere/tree", "prog_moved_pc.run.log");
  if (system("cmake --version >/dev/null 2>&1") == 0) {
    build_cmake("elsewhere/tree", "prog_moved_cmake", exe);
    assert_needed_order(exe);
    assert_binds_to_libsymv(exe, "", "elsewhere/tree", "prog_moved_cmake.run.log");
  }
}

/* ---- An install, staged and moved ---------------------------------------- */

/* `make install` of the tree (make_args added: "" or "RPATH=1") staged
 * into DIR/stage-NAME (DESTDIR, PREFIX=/opt/symv), then the installed
 * prefix moved to DIR/moved/NAME and the stage removed: a site's package,
 * unpacked elsewhere. */
static void install_moved(const char *make_args, const char *name)
{
  char cmd[6400], tree[1024], stage[1024], moved[1024], rel[300], *text;
  snprintf(rel, sizeof rel, "stage-%s", name);
  at(stage, rel);
  snprintf(rel, sizeof rel, "moved/%s", name);
  at(moved, rel);
  snprintf(cmd, sizeof cmd,
           "make -s -C '%s' install DESTDIR='%s' PREFIX=/opt/symv %s && mkdir -p \"$(dirname '%s')\" && "
           "mv '%s/opt/symv' '%s' && rm -r '%s'",
           at(tree, "prefix"), stage, make_args, moved, stage, moved, stage);
  snprintf(rel, sizeof rel, "install-%s.log", name);
  cr_assert_eq(sh(cmd, rel, &text), 0, "%s:\n%s", cmd, text);
  free(text);
}

/* The RUNPATH and RPATH entries of exe's dynamic section (readelf -d),
 * each line's [...] part, into buf (len bytes); "" if none. */
static char *runpath_of(const char *exe, char *buf, size_t len)
{
  char cmd[1200], line[1200];
  snprintf(cmd, sizeof cmd, "readelf -d '%s'", exe);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  buf[0] = 0;
  while (fgets(line, sizeof line, p)) {
    char *l = strchr(line, '['), *r = l ? strchr(l, ']') : NULL;
    if ((strstr(line, "(RUNPATH)") || strstr(line, "(RPATH)")) && r)
      strncat(buf, l, (size_t)(r + 1 - l) < len - strlen(buf) ? (size_t)(r + 1 - l) : len - strlen(buf) - 1);
  }
  cr_assert_eq(pclose(p), 0, "%s failed", cmd);
  return buf;
}

/* The installed .pc, its prefix moved: PKG_CONFIG_PATH naming its folder
 * and the CUDA modules' links a program against the moved library. By
 * default the .pc gives no RUNPATH (the program finds libsymv through
 * LD_LIBRARY_PATH, as with a distribution's package); installed with
 * RPATH=1, it gives the RUNPATH of the moved library's folder. */
Test(install, a_staged_install_moved_elsewhere_links_through_pkg_config, .timeout = 120)
{
  if (system("pkg-config --version >/dev/null 2>&1")) cr_skip_test("no pkg-config");
  char exe[1024], lib[1024], want[1200], env[1100], rp[1024], *libs;
  install_moved("", "pc");
  build_pc("moved/pc", "prog_installed_pc", exe, &libs);
  snprintf(want, sizeof want, "-L%s/lib/pkgconfig/../../lib ", at(lib, "moved/pc"));
  cr_assert_not_null(strstr(libs, want), "pkg-config --libs does not name the moved library (%s):\n%s", want, libs);
  cr_assert_null(strstr(libs, "-rpath"), "the installed .pc gives a RUNPATH:\n%s", libs);
  free(libs);
  cr_assert_null(strstr(runpath_of(exe, rp, sizeof rp), "moved/"), "%s has the RUNPATH %s", exe, rp);
  assert_needed_order(exe);
  snprintf(env, sizeof env, "LD_LIBRARY_PATH='%s/lib'", lib);
  assert_binds_to_libsymv(exe, env, "moved/pc", "prog_installed_pc.run.log");

  install_moved("RPATH=1", "pc-rpath");
  build_pc("moved/pc-rpath", "prog_installed_pc_rpath", exe, &libs);
  snprintf(want, sizeof want, "-Wl,-rpath,%s/lib/pkgconfig/../../lib ", at(lib, "moved/pc-rpath"));
  cr_assert_not_null(strstr(libs, want), "RPATH=1: pkg-config --libs gives no %s:\n%s", want, libs);
  free(libs);
  snprintf(want, sizeof want, "[%s/lib/pkgconfig/../../lib]", lib);
  cr_assert_str_eq(runpath_of(exe, rp, sizeof rp), want, "RPATH=1: %s has the RUNPATH %s", exe, rp);
  assert_needed_order(exe);
  assert_binds_to_libsymv(exe, "", "moved/pc-rpath", "prog_installed_pc_rpath.run.log");
}

/* The installed CMake package, its prefix moved: CMAKE_PREFIX_PATH naming
 * it, find_package(symv 9.0 CONFIG) refuses it (symvConfigVersion.cmake),
 * find_package(symv 0.1 CONFIG REQUIRED) takes it, and a program linked
 * with symv::symv (after CUDA::cublas, under --as-needed) names the moved
 * library on its link line and binds to it at run time. */
Test(install, a_staged_install_moved_elsewhere_links_through_cmake, .init = need_cmake, .timeout = 180)
{
  need_tree();
  char exe[1024], moved[1024], define[1100], p[1100], want[1100], orig[1100], *out;
  install_moved("", "cmake");
  snprintf(define, sizeof define, "-DCMAKE_PREFIX_PATH=%s", at(moved, "moved/cmake"));
  build_cmake_project("prog_installed_cmake",
                      "cmake_minimum_required(VERSION 3.17)\n"
                      "project(prog C)\n"
                      "find_package(symv 9.0 CONFIG QUIET)\n"
                      "if(symv_FOUND)\n"
                      "  message(FATAL_ERROR \"find_package(symv 9.0) took symv ${symv_VERSION}\")\n"
                      "endif()\n"
                      "message(STATUS \"symv 9.0 refused; versions considered: ${symv_CONSIDERED_VERSIONS}\")\n"
                      "find_package(symv 0.1 CONFIG REQUIRED)\n"
                      "add_executable(prog prog.c)\n"
                      "target_link_options(prog PRIVATE -Wl,--as-needed)\n"
                      "target_link_libraries(prog PRIVATE CUDA::cublas symv::symv)\n",
                      define, exe, &out);
  cr_assert_not_null(strstr(out, "symv 9.0 refused; versions considered: " LIBGEN_VERSION "\n"),
                     "symv 9.0 was not refused by its version:\n%s", out);
  free(out);
  char *link = fix_slurp(at(p, "prog_installed_cmake/build/CMakeFiles/prog.dir/link.txt"));
  cr_assert_not_null(link, "no %s", p);
  snprintf(want, sizeof want, "%s/lib/" LIBGEN_REALNAME, moved);
  cr_assert_not_null(strstr(link, want), "the link does not name %s:\n%s", want, link);
  snprintf(orig, sizeof orig, "%s/prefix/", topdir());
  cr_assert_null(strstr(link, orig), "the link names the tree the package was installed from:\n%s", link);
  free(link);
  assert_needed_order(exe);
  assert_binds_to_libsymv(exe, "", "moved/cmake", "prog_installed_cmake.run.log");
}

/* ---- Proof that it is in use --------------------------------------------- */

Test(install, symv_log_tells_each_call, .timeout = 120)
{
  char exe[1024], logf[1024], cmd[4400], *text;
  build_pc("prefix", "prog_log", exe, NULL);
  /* to stderr, one line for the call */
  snprintf(cmd, sizeof cmd, "SYMV_LOG=1 '%s'", exe);
  cr_assert_eq(sh(cmd, "log1.log", &text), 0, "%s:\n%s", cmd, text);
  static const char want_n[] = "libsymv: dsymv n=-1 uplo=L lda=4 incx=1 incy=1: none (argument error: argument 2 "
                               "(n)) -> CUBLAS_STATUS_INVALID_VALUE (7)\n";
  char *hit = strstr(text, want_n);
  cr_assert_not_null(hit, "expected the line\n%swithin:\n%s", want_n, text);
  cr_assert_null(strstr(hit + 1, "libsymv: "), "more than one line for one call:\n%s", text);
  free(text);
  /* to a file (appended), nothing on stderr; an invalid uplo */
  at(logf, "calls.log");
  snprintf(cmd, sizeof cmd, "SYMV_LOG=1 SYMV_LOG_FILE='%s' '%s' uplo && SYMV_LOG=1 SYMV_LOG_FILE='%s' '%s'", logf, exe,
           logf, exe);
  cr_assert_eq(sh(cmd, "log2.log", &text), 0, "%s:\n%s", cmd, text);
  cr_assert_null(strstr(text, "libsymv:"), "logged on stderr with SYMV_LOG_FILE set:\n%s", text);
  free(text);
  text = fix_slurp(logf);
  cr_assert_not_null(text, "no %s", logf);
  static const char want_uplo[] = "libsymv: dsymv n=4 uplo=7 lda=4 incx=1 incy=1: none (argument error: argument 1 "
                                  "(uplo)) -> CUBLAS_STATUS_INVALID_VALUE (7)\n";
  /* each process first names the library (its identity line), then its call */
  static const char head[] = "libsymv: symvtune-rules: rules ";
  char *second = strchr(text, '\n');
  cr_assert(second && !strncmp(text, head, strlen(head)), "first line, expected %s...; got:\n%s", head, text);
  const size_t idlen = (size_t)(++second - text);
  cr_assert_eq(strncmp(second, want_uplo, strlen(want_uplo)), 0, "second line, expected\n%sgot:\n%s", want_uplo,
               text);
  const char *third = second + strlen(want_uplo);
  cr_assert_eq(strncmp(third, text, idlen), 0, "third line, expected the identity line again; got:\n%s", text);
  cr_assert_str_eq(third + idlen, want_n, "fourth line, expected\n%sgot:\n%s", want_n, text);
  free(text);
  /* without SYMV_LOG (or with 0), nothing */
  snprintf(cmd, sizeof cmd, "'%s' && SYMV_LOG=0 '%s'", exe, exe);
  cr_assert_eq(sh(cmd, "log3.log", &text), 0, "%s:\n%s", cmd, text);
  cr_assert_null(strstr(text, "libsymv:"), "logged without SYMV_LOG:\n%s", text);
  free(text);
}

Test(install, symv_get_info_reports_what_the_library_carries, .timeout = 60)
{
  char p[1024];
  void *h = dlopen(at(p, "prefix/lib/libsymv.so.0"), RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "dlopen %s: %s", p, dlerror());
  cublasStatus_t (*get)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(h, "symvGetInfo");
  cr_assert_not_null(get, "no symvGetInfo");
  cr_assert_eq(get(NULL), CUBLAS_STATUS_INVALID_VALUE);
  symvInfo info;
  memset(&info, 0xa5, sizeof info);
  cr_assert_eq(get(&info), CUBLAS_STATUS_SUCCESS);
  /* the entry point of programs of symv.h 0.1 fills their symvInfo, which ends at device_matched */
  cr_assert_eq(info.wisdom, (int)0xa5a5a5a5, "symvGetInfo wrote past device_matched");
  cr_assert_eq(info.version_major, SYMV_VERSION_MAJOR);
  cr_assert_eq(info.version_minor, SYMV_VERSION_MINOR);
  cr_assert_eq(info.version_patch, SYMV_VERSION_PATCH);
  char v[32];
  snprintf(v, sizeof v, "%d.%d.%d", SYMV_VERSION_MAJOR, SYMV_VERSION_MINOR, SYMV_VERSION_PATCH);
  cr_assert_str_eq(info.version, v);
  /* the GPU and the rules: those of the database's device and its fit */
  db *d = NULL;
  db_device dev;
  db_fit fit;
  db_rule *rules = NULL;
  size_t nrules = 0;
  cr_assert_eq(db_open(&d, at(p, "sweep.db"), DB_READONLY), 0);
  cr_assert_eq(db_get_device(d, &dev), 0);
  cr_assert_eq(db_latest_fit(d, SYMV_DSYMV, 'L', 0, &fit, &rules, &nrules, NULL, NULL), 0, "%s", db_errmsg(d));
  db_fit dfit; /* the deterministic rules, which `symvtune fit` makes too */
  db_rule *drules = NULL;
  size_t ndrules = 0;
  cr_assert_eq(db_latest_fit_class(d, SYMV_DSYMV, 'L', 0, 1, &dfit, &drules, &ndrules, NULL, NULL), 0, "%s",
               db_errmsg(d));
  db_close(d);
  cr_assert_str_eq(info.tuned_gpu, dev.name);
  cr_assert_eq(info.tuned_cc_major, dev.cc_major);
  cr_assert_eq(info.tuned_cc_minor, dev.cc_minor);
  cr_assert_eq(info.tuned_sm_count, dev.sm_count);
  snprintf(v, sizeof v, "sm_%d%d", dev.cc_major, dev.cc_minor);
  cr_assert_str_eq(info.arch, v);
  cr_assert_eq(info.rules[SYMV_INFO_DSYMV], (int)nrules, "dsymv: %d rules, the fit has %zu", info.rules[SYMV_INFO_DSYMV],
               nrules);
  cr_assert_eq(info.n_lo[SYMV_INFO_DSYMV], rules[0].n_start);
  cr_assert_eq(info.n_hi[SYMV_INFO_DSYMV], rules[nrules - 1].n_end);
  cr_assert_eq(info.det_rules[SYMV_INFO_DSYMV], (int)ndrules, "dsymv: %d deterministic rules, the fit has %zu",
               info.det_rules[SYMV_INFO_DSYMV], ndrules);
  /* distinct candidates the two rule sets name */
  db_rule all[256];
  size_t nall = 0;
  cr_assert_leq(nrules + ndrules, 256);
  memcpy(all, rules, nrules * sizeof *all), nall = nrules;
  memcpy(all + nall, drules, ndrules * sizeof *all), nall += ndrules;
  int kernels = 0;
  for (size_t i = 0; i < nall; i++) {
    int seen = 0;
    for (size_t j = 0; j < i && strcmp(all[i].kernel, DB_KERNEL_CANDIDATE) == 0; j++)
      seen |= !strcmp(all[j].kernel, DB_KERNEL_CANDIDATE) && all[j].cand.id == all[i].cand.id;
    kernels += !strcmp(all[i].kernel, DB_KERNEL_CANDIDATE) && !seen;
  }
  cr_assert_eq(info.candidates, kernels, "%d candidates, the fits' rules name %d", info.candidates, kernels);
  free(rules), free(drules);
  static const int untuned[] = {SYMV_INFO_SSYMV, SYMV_INFO_CSYMV, SYMV_INFO_ZSYMV, SYMV_INFO_CHEMV, SYMV_INFO_ZHEMV};
  for (int i = 0; i < 5; i++) /* the fixture holds DSYMV only */
    cr_assert(info.rules[untuned[i]] == 0 && info.det_rules[untuned[i]] == 0 && info.n_lo[untuned[i]] == 0 &&
                  info.n_hi[untuned[i]] == 0,
              "routine %d: %d rules", untuned[i], info.rules[untuned[i]]);
  /* the device: none here, or one that is the H200 or not */
  if (info.device < 0) cr_assert_eq(info.device_matched, -1, "no device, yet matched %d", info.device_matched);
  else cr_assert(info.device_matched == 0 || info.device_matched == 1, "device %d matched %d", info.device,
                 info.device_matched);
  dlclose(h);
}

/* SYMV_LOG_FILE naming what is not a regular file or a terminal: a FIFO
 * no one reads is refused at once (the call does not wait for a reader:
 * `timeout` would end it with 124), in one line on stderr, and the call's
 * line goes to stderr; a character device (/dev/null) is taken. */
Test(install, symv_log_file_a_fifo_is_refused_without_waiting, .timeout = 120)
{
  char exe[1024], fifo[1024], cmd[4400], *text;
  build_pc("prefix", "prog_log_fifo", exe, NULL);
  cr_assert_eq(mkfifo(at(fifo, "calls.fifo"), 0644), 0, "%s: %s", fifo, strerror(errno));
  snprintf(cmd, sizeof cmd, "SYMV_LOG=1 SYMV_LOG_FILE='%s' timeout 30 '%s'", fifo, exe);
  int rc = sh(cmd, "log_fifo.log", &text);
  cr_assert_eq(rc, 0, "%s: exit %d (124: it waited on the FIFO):\n%s", cmd, rc, text);
  char want[1200];
  snprintf(want, sizeof want, "libsymv: SYMV_LOG_FILE %s: not a regular file or a terminal; logging to stderr\n", fifo);
  char *hit = strstr(text, want);
  cr_assert_not_null(hit, "expected the notice\n%swithin:\n%s", want, text);
  cr_assert_null(strstr(hit + strlen(want), "SYMV_LOG_FILE"), "more than one notice:\n%s", text);
  cr_assert_not_null(strstr(text, "libsymv: dsymv n=-1 uplo=L"), "the call was not logged on stderr:\n%s", text);
  free(text);
  snprintf(cmd, sizeof cmd, "SYMV_LOG=1 SYMV_LOG_FILE=/dev/null timeout 30 '%s'", exe);
  cr_assert_eq(sh(cmd, "log_null.log", &text), 0, "%s:\n%s", cmd, text);
  cr_assert_null(strstr(text, "libsymv:"), "/dev/null was refused:\n%s", text);
  free(text);
}

/* The library's identity, the same wherever it is read: symvGetInfo_v3 (the
 * symvtune and CUDA it was built with, the rules id, the fits of the
 * database), the line in the file (strings), the .pc's rules_id; the
 * entry point of programs of the symv.h before it fills what their
 * symvInfo has. */
Test(install, the_library_tells_its_identity, .timeout = 60)
{
  char p[1024], cmd[2400], want[256], *text;
  void *h = dlopen(at(p, "prefix/lib/libsymv.so.0"), RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "dlopen %s: %s", p, dlerror());
  cublasStatus_t (*get)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(h, "symvGetInfo_v3");
  cublasStatus_t (*get_v2)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(h, "symvGetInfo_v2");
  cr_assert(get && get_v2, "no symvGetInfo_v3 or symvGetInfo_v2");
  symvInfo info;
  memset(&info, 0xa5, sizeof info);
  cr_assert_eq(get_v2(&info), CUBLAS_STATUS_SUCCESS);
  cr_assert_eq(info.wisdom, 0);
  cr_assert_eq(info.cuda_major, (int)0xa5a5a5a5, "symvGetInfo_v2 wrote past wisdom_dir");
  memset(&info, 0xa5, sizeof info);
  cr_assert_eq(get(&info), CUBLAS_STATUS_SUCCESS);
  cr_assert_str_eq(info.symvtune_version, PACKAGE_VERSION);
  cr_assert_eq(info.cuda_major, CUDART_VERSION / 1000);
  cr_assert_eq(strlen(info.rules_id), 12, "rules id '%s'", info.rules_id);
  cr_assert_eq(strspn(info.rules_id, "0123456789abcdef"), 12, "rules id '%s'", info.rules_id);
  /* the fits: the database's latest of DSYMV, both classes */
  db *d = NULL;
  db_fit fit, det;
  db_rule *rules = NULL;
  size_t n = 0;
  cr_assert_eq(db_open(&d, at(p, "sweep.db"), DB_READONLY), 0);
  cr_assert_eq(db_latest_fit_class(d, SYMV_DSYMV, 'L', 0, 0, &fit, &rules, &n, NULL, NULL), 0, "%s", db_errmsg(d));
  free(rules), rules = NULL;
  cr_assert_eq(db_latest_fit_class(d, SYMV_DSYMV, 'L', 0, 1, &det, &rules, &n, NULL, NULL), 0, "%s", db_errmsg(d));
  free(rules);
  db_close(d);
  snprintf(want, sizeof want, "dsymv fit %lld (%s, cold, uplo L, n %d..%d), deterministic fit %lld (%s, ", fit.id,
           fit.created, fit.lo, fit.hi, det.id, det.created);
  cr_assert_eq(strncmp(info.fits, want, strlen(want)), 0, "fits: expected %s...; got %s", want, info.fits);
  snprintf(want, sizeof want, "symvtune-rules: rules %s of %s (sm_%d%d, %d SMs), ", info.rules_id, info.tuned_gpu,
           info.tuned_cc_major, info.tuned_cc_minor, info.tuned_sm_count);
  cr_assert_eq(strncmp(info.identity, want, strlen(want)), 0, "identity: expected %s...; got %s", want, info.identity);
  snprintf(want, sizeof want, "; symvtune %s; CUDART_VERSION %d; fits ", PACKAGE_VERSION, CUDART_VERSION);
  const char *f = strstr(info.identity, want);
  cr_assert_not_null(f, "identity: no %s in %s", want, info.identity);
  cr_assert_str_eq(f + strlen(want), info.fits, "identity: not ending with the fits");
  /* the same line in the file, for a user without a program */
  snprintf(cmd, sizeof cmd, "strings '%s' | grep symvtune-rules:", at(p, "prefix/lib/libsymv.so.0.1.0"));
  cr_assert_eq(sh(cmd, "strings.log", &text), 0, "%s:\n%s", cmd, text);
  snprintf(cmd, sizeof cmd, "%s\n", info.identity);
  cr_assert_str_eq(text, cmd, "strings finds another line");
  free(text);
  snprintf(cmd, sizeof cmd, "PKG_CONFIG_PATH='%s' pkg-config --variable=rules_id libsymv", at(p, "prefix/lib/pkgconfig"));
  cr_assert_eq(sh(cmd, "pc-id.log", &text), 0, "%s:\n%s", cmd, text);
  snprintf(cmd, sizeof cmd, "%s\n", info.rules_id);
  cr_assert_str_eq(text, cmd, "the .pc's rules_id is not the library's");
  free(text);
  dlclose(h);
}
