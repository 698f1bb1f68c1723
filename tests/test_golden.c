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
 *
 * Byte for byte, but for one allowance: the fitted numbers' last digits
 * differ between machines with other CPUs (seen: an Intel machine's
 * recording against an AMD EPYC's, the same packages and the same results
 * whatever OpenBLAS core type): the smoothing parameters that GCV chooses
 * (a flat minimum) by up to 0.2%, and with them rule boundaries by a few
 * n. A file that differs passes where every line has the same text
 * between its numbers and every number is within 5e-3 of the recorded one
 * (relative) or one unit of its last printed digit; the test names such
 * files.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
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

/* a number starting at *p (digits, a '.' or a '-' before one): its value,
 * *p moved past it, *unit := one unit of its last printed digit */
static double golden_number(const char **p, double *unit)
{
  char *end;
  const char *s = *p;
  const double v = strtod(s, &end);
  const char *dot = memchr(s, '.', (size_t)(end - s)), *e = NULL;
  for (const char *q = s; q < end; q++)
    if (*q == 'e' || *q == 'E') e = q;
  const int decimals = dot ? (int)((e ? e : end) - dot - 1) : 0, exponent = e ? atoi(e + 1) : 0;
  *unit = 1.0;
  for (int k = 0; k < decimals - exponent; k++) *unit /= 10;
  for (int k = 0; k > decimals - exponent; k--) *unit *= 10;
  *p = end;
  return v;
}

static int golden_starts_number(const char *p)
{
  return (*p >= '0' && *p <= '9') || ((*p == '-' || *p == '.') && p[1] >= '0' && p[1] <= '9');
}

/* 1 if texts a and b (NUL-terminated) are the same but for their numbers,
 * each pair within 5e-3 relative or one unit of the last printed digit of
 * either (runs of blanks count as one), else 0; *line := the first line that
 * differs */
static int golden_close(const char *a, const char *b, int *line)
{
  *line = 1;
  while (*a || *b) {
    if ((*a == ' ' || *a == '\t') && (*b == ' ' || *b == '\t')) {
      while (*a == ' ' || *a == '\t') a++;
      while (*b == ' ' || *b == '\t') b++;
    } else if (golden_starts_number(a) && golden_starts_number(b)) {
      double ua, ub;
      const double x = golden_number(&a, &ua), y = golden_number(&b, &ub);
      const double tol = fmax(5e-3 * fmax(fabs(x), fabs(y)), 1.0001 * fmax(ua, ub) * (ua < 1 || ub < 1));
      if (!(fabs(x - y) <= tol)) return 0;
    } else {
      if (*a != *b) return 0;
      if (*a == '\n') ++*line;
      a++, b++;
    }
  }
  return 1;
}

Test(golden, numbers_differing_in_their_last_digits_are_close)
{
  int line;
  cr_assert(golden_close("pipe:256,64,2,0 (87198)   39  0  1884   1.07%", "pipe:256,64,2,0 (87198)   39  0  1883   1.08%", &line));
  cr_assert(golden_close("n_end\": 11941, x1.191*\n", "n_end\": 11943, x1.192*\n", &line));
  cr_assert(golden_close("resid 1.2e-05\n", "resid 1.3e-05\n", &line));
  cr_assert(golden_close("a  b\n", "a b\n", &line), "blanks");
  cr_assert_not(golden_close("count 39\n", "count 40\n", &line), "a count of 39 is not 40");
  cr_assert(golden_close("alpha 2624\n", "alpha 2619\n", &line));
  cr_assert_not(golden_close("x1.191\n", "x1.21\n", &line));
  cr_assert_not(golden_close("pipe:256\nok\n", "pipe:256\nfail\n", &line));
  cr_assert_eq(line, 2);
  cr_assert_not(golden_close("pipe:256,64,2,0\n", "pipe:256,64,3,0\n", &line), "another candidate");
  cr_assert_not(golden_close("1 2\n", "1 2\n3\n", &line), "a line more");
}

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
      free(text);
      if (rc != 0) { /* each differing file: only in its numbers' last digits? */
        char *list;
        snprintf(cmd, sizeof cmd, "diff -r -q '%s/tests/golden/%s' '%s'", src, e->d_name, sub);
        test_sh(cmd, log, &list);
        int close = 1;
        for (char *q = list, *nl; q && *q; q = nl ? nl + 1 : NULL) {
          nl = strchr(q, '\n');
          if (nl) *nl = 0;
          char fa[1024], fb[1024];
          if (sscanf(q, "Files %1023s and %1023s differ", fa, fb) != 2) { close = 0; break; }
          long la, lb;
          char *ta = (char *)test_slurp(fa, &la), *tb = (char *)test_slurp(fb, &lb);
          int line;
          const int ok = ta && tb && golden_close(ta, tb, &line);
          if (ok) cr_log_info("%s: equal but for the last digits of numbers", fb);
          else if (ta && tb) cr_log_error("%s: differs from line %d on", fb, line);
          close = close && ok;
          free(ta), free(tb);
        }
        free(list);
        if (!close) {
          snprintf(cmd, sizeof cmd, "diff -r -u '%s/tests/golden/%s' '%s'", src, e->d_name, sub);
          test_sh(cmd, log, &text);
          cr_expect(0, "the outputs for %s differ from the recorded ones:\n%.20000s", e->d_name, text);
          free(text);
        }
      }
      compared++;
    }
    closedir(d);
  }
  cr_expect_gt(compared, 0, "no shipped database was compared");
  if (!getenv("SYMV_TEST_KEEP")) test_rmtree(dir);
}
