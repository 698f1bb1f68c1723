/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Golden outputs: what the stages that need no GPU print for the sweep
 * databases shipped in tests/data (`fit` of every routine, `rules` and
 * `rank` as text and JSON, `validate --replay` of both rule sets, `build`
 * with its generated dispatch table), made by tests/golden/make-outputs
 * with this tree's symvtune and compared byte for byte with the outputs
 * recorded under tests/golden/GPU/. A change meant to keep behaviour (a
 * move of code between modules) keeps them; a change of behaviour records
 * them again (make-outputs SYMVTUNE tests/data tests/golden) in the same
 * commit, so that the difference is in the diff.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test_util.h"

#ifndef SYMV_TEST_SRCDIR
#error "SYMV_TEST_SRCDIR (the source tree) must be defined"
#endif

Test(golden, no_gpu_stages_print_the_recorded_outputs, .timeout = 900)
{
  const char *src = getenv("SYMV_TEST_SRCDIR") && *getenv("SYMV_TEST_SRCDIR") ? getenv("SYMV_TEST_SRCDIR")
                                                                              : SYMV_TEST_SRCDIR;
  char dir[] = "/tmp/symvtune-test-golden-XXXXXX", cmd[4096], log[512], *text;
  cr_assert_not_null(mkdtemp(dir));
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(cmd, sizeof cmd, "'%s/tests/golden/make-outputs' '%s' '%s/tests/data' '%s/out'", src, test_symvtune_path(),
           src, dir);
  int rc = test_sh(cmd, log, &text);
  cr_assert_eq(rc, 0, "%s: exit %d\n%s", cmd, rc, text);
  free(text);
  /* every shipped database has recorded outputs, and every recorded one a database */
  int compared = 0;
  for (int side = 0; side < 2; side++) {
    char path[1024];
    snprintf(path, sizeof path, side ? "%s/tests/golden" : "%s/out", side ? src : dir);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "cannot read %s", path);
    struct dirent *e;
    while ((e = readdir(d))) {
      char sub[2048], other[2048];
      struct stat sb;
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      if (e->d_name[0] == '.' || stat(sub, &sb) || !S_ISDIR(sb.st_mode)) continue;
      snprintf(other, sizeof other, side ? "%s/out/%s" : "%s/tests/golden/%s", side ? dir : src, e->d_name);
      if (side) {
        cr_expect_eq(access(other, F_OK), 0, "outputs recorded for %s, but tests/data has no sweep6-%s.db.xz",
                     e->d_name, e->d_name);
        continue;
      }
      cr_expect_eq(access(other, F_OK), 0,
                   "no outputs recorded for tests/data/sweep6-%s.db.xz: record them with "
                   "tests/golden/make-outputs SYMVTUNE tests/data tests/golden",
                   e->d_name);
      snprintf(cmd, sizeof cmd, "diff -r -u '%s/tests/golden/%s' '%s'", src, e->d_name, sub);
      rc = test_sh(cmd, log, &text);
      cr_expect_eq(rc, 0, "the outputs for %s differ from the recorded ones:\n%.20000s", e->d_name, text);
      free(text);
      compared++;
    }
    closedir(d);
  }
  cr_expect_gt(compared, 0, "no shipped database was compared");
  if (!getenv("SYMV_TEST_KEEP")) test_rmtree(dir);
}
