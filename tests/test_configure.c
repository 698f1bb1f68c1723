/* SPDX-License-Identifier: BSD-3-Clause */
/* test_configure.c - configure's --with-blas: a value that is neither a
 * known BLAS nor linker flags is refused with its name, and the linker
 * flags of the BLAS this tree was configured with, given as FLAGS, pass. */
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
