/* SPDX-License-Identifier: BSD-3-Clause */
/* test_configure.c - configure's --with-blas: a value that is neither a
 * known BLAS nor linker flags is refused with its name, and the linker
 * flags of the BLAS this tree was configured with, given as FLAGS, pass.
 * The Spack recipe (contrib/spack/package.py, loaded by
 * tests/spack_recipe.py with stand-ins for Spack): every argument it gives
 * configure is one configure lists, and configure takes them for a spec
 * whose blas is the system's OpenBLAS and whose lapack its LAPACKE. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_util.h"

static char dir[512];
static void setup(void) { test_tmpdir(dir, sizeof dir, "configure"); }
static void teardown(void) { test_tmpdir_remove(dir); }

/* Runs SRCDIR/configure --with-blas='blas' in dir, environment env first;
 * returns its exit status, its output in *text (free() it). */
static int configure_with(const char *env, const char *blas, char **text)
{
  char cmd[8192], log[512];
  snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s/configure' --quiet --with-cuda='%s' --with-blas='%s'", dir, env,
           SYMV_TEST_SRCDIR, SYMV_TEST_CUDA_HOME, blas);
  return test_sh(cmd, test_path(log, dir, "configure.out"), text);
}

Test(configure, an_unknown_blas_is_refused_by_name, .init = setup, .fini = teardown, .timeout = 120)
{
  char *text;
  const int rc = configure_with("", "nosuchblas-xyz", &text);
  cr_expect_neq(rc, 0, "configure took --with-blas=nosuchblas-xyz:\n%s", text);
  cr_expect_not_null(strstr(text, "--with-blas=nosuchblas-xyz: not openblas, flexiblas, mkl"), "%s", text);
  free(text);
}

Test(configure, the_configured_blas_given_as_linker_flags_is_taken, .init = setup, .fini = teardown, .timeout = 300)
{
  if (!*SYMV_TEST_BLAS_LIBS || SYMV_TEST_BLAS_LIBS[0] != '-') cr_skip_test("BLAS_LIBS is not linker flags starting with -");
  char env[4096], *text;
  snprintf(env, sizeof env, "BLAS_CFLAGS='%s'", SYMV_TEST_BLAS_CFLAGS);
  const int rc = configure_with(env, SYMV_TEST_BLAS_LIBS, &text);
  cr_expect_eq(rc, 0, "configure --with-blas='%s': exit %d\n%s", SYMV_TEST_BLAS_LIBS, rc, text);
  char mk[512];
  char *made = (char *)test_slurp(test_path(mk, dir, "Makefile"), NULL);
  cr_assert_not_null(made, "no Makefile:\n%s", text);
  char want[4096];
  snprintf(want, sizeof want, "\nBLAS_LIBS = %s", SYMV_TEST_BLAS_LIBS);
  cr_expect_not_null(strstr(made, want), "the Makefile has no '%s'", want + 1);
  free(made), free(text);
}

/* Runs python3 SRCDIR/tests/spack_recipe.py on the recipe in dir with the
 * spec arguments spec, then tail; returns its exit status, its output in
 * *text (free() it). Skips the test where there is no python3. */
static int recipe_with(const char *spec, const char *tail, char **text)
{
  char cmd[8192], log[512];
  if (test_sh("command -v python3", test_path(log, dir, "python3.out"), text) != 0) {
    free(*text);
    cr_skip_test("no python3");
  }
  free(*text);
  snprintf(cmd, sizeof cmd, "cd '%s' && python3 '%s/tests/spack_recipe.py' '%s/contrib/spack/package.py' %s %s", dir,
           SYMV_TEST_SRCDIR, SYMV_TEST_SRCDIR, spec, tail);
  return test_sh(cmd, test_path(log, dir, "recipe.out"), text);
}

Test(configure, the_spack_recipe_gives_only_options_configure_lists, .init = setup, .fini = teardown, .timeout = 60)
{
  char cmd[4096], log[512], *text;
  snprintf(cmd, sizeof cmd, "'%s/configure' --help > '%s/help.txt'", SYMV_TEST_SRCDIR, dir);
  cr_assert_eq(test_sh(cmd, test_path(log, dir, "help.out"), &text), 0, "configure --help:\n%s", text);
  free(text);
  /* a spec of made-up folders: only the arguments' names are judged */
  const char *spec = "--prefix cuda=/opt/cuda --prefix gnuplot=/opt/gnuplot --libs blas:c=/opt/blas/lib/libcblas.so "
                     "--headers blas:c=/opt/blas/include --libs lapack:c=/opt/lapack/lib/liblapacke.so "
                     "--libs lapack=/opt/lapack/lib/liblapack.so --headers lapack:c=/opt/lapack/include";
  const char *variants[] = {"", "--variant +plot"};
  for (int v = 0; v < 2; v++) {
    char args[2048];
    snprintf(args, sizeof args, "%s %s", spec, variants[v]);
    const int rc = recipe_with(args, "--help-of help.txt", &text);
    cr_expect_eq(rc, 0, "the recipe %s: exit %d\n%s", variants[v], rc, text);
    cr_expect_not_null(strstr(text, "--with-blas=-L/opt/blas/lib -lcblas\n"), "%s", text);
    cr_expect_not_null(strstr(text, "LAPACKE_LIBS=-L/opt/lapack/lib -L/opt/blas/lib -llapacke -llapack -lcblas\n"), "%s",
                       text);
    cr_expect_eq(strstr(text, "GNUPLOT=/opt/gnuplot/bin/gnuplot") != NULL, v == 1, "%s", text);
    free(text);
  }
}

Test(configure, the_spack_recipe_configures_with_openblas_and_lapacke, .init = setup, .fini = teardown, .timeout = 300)
{
  char log[512], *text;
  if (test_sh("pkg-config --exists openblas lapacke", test_path(log, dir, "pc.out"), &text) != 0) {
    free(text);
    cr_skip_test("pkg-config knows no openblas or no lapacke");
  }
  free(text);
  char spec[4096], tail[1024];
  snprintf(spec, sizeof spec,
           "--prefix cuda='%s' --libs blas:c=\"$(pkg-config --variable=libdir openblas)/libopenblas.so\" "
           "--headers blas:c=\"$(pkg-config --variable=includedir openblas)\" "
           "--libs lapack:c=\"$(pkg-config --variable=libdir lapacke)/liblapacke.so\" "
           "--libs lapack=\"$(pkg-config --variable=libdir lapacke)/liblapack.so\" "
           "--headers lapack:c=\"$(pkg-config --variable=includedir lapacke)\"",
           SYMV_TEST_CUDA_HOME);
  snprintf(tail, sizeof tail, "--run '%s/configure' --quiet", SYMV_TEST_SRCDIR);
  const int rc = recipe_with(spec, tail, &text);
  cr_expect_eq(rc, 0, "configure with the recipe's arguments: exit %d\n%s", rc, text);
  char mk[512];
  char *made = (char *)test_slurp(test_path(mk, dir, "Makefile"), NULL);
  cr_assert_not_null(made, "no Makefile:\n%s", text);
  cr_expect(strstr(made, "\nBLAS_LIBS = -L") && strstr(made, "-lopenblas\n"), "BLAS_LIBS is not the recipe's:\n%s", text);
  cr_expect(strstr(made, "\nLAPACKE_LIBS = -L") && strstr(made, "-llapacke -llapack -lopenblas\n"),
            "LAPACKE_LIBS is not the recipe's:\n%s", text);
  free(made), free(text);
}
