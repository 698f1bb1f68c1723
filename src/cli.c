/* SPDX-License-Identifier: BSD-3-Clause */
/* cli.c - argument parsing shared by the subcommands (cli.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "symv_error.h"
#include "util.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "symvtune %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'symvtune %s --help'.\n", cmd);
  return SYMV_EXIT_USAGE;
}

int cli_parse_int(const char *cmd, const char *option, const char *s, long lo, long hi, int *out)
{
  char *end;
  errno = 0;
  long v = s ? strtol(s, &end, 10) : 0;
  if (!s || !*s || *end || errno || v < lo || v > hi) {
    fprintf(stderr, "symvtune %s: invalid %s '%s' (expected an integer in %ld..%ld)\n", cmd, option,
            s ? s : "", lo, hi);
    return SYMV_INVALID_VALUE;
  }
  *out = (int)v;
  return 0;
}

int cli_parse_double(const char *cmd, const char *option, const char *s, double lo, double hi, double *out)
{
  char *end;
  errno = 0;
  double v = s ? strtod(s, &end) : 0;
  if (!s || !*s || *end || errno || !isfinite(v) || v < lo || v > hi) {
    fprintf(stderr, "symvtune %s: invalid %s '%s' (expected a number in %g..%g)\n", cmd, option, s ? s : "",
            lo, hi);
    return SYMV_INVALID_VALUE;
  }
  *out = v;
  return 0;
}

int cli_parse_int_list(const char *cmd, const char *option, const char *s, long lo, long hi, int *out,
                       int max, int *count)
{
  *count = 0;
  if (!s || !*s) return cli_parse_int(cmd, option, "", lo, hi, out);
  const char *p = s;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char item[32];
    if (len == 0 || len >= sizeof item || *count >= max) {
      fprintf(stderr, "symvtune %s: invalid %s '%s' (expected at most %d comma-separated integers in %ld..%ld)\n",
              cmd, option, s, max, lo, hi);
      return SYMV_INVALID_VALUE;
    }
    memcpy(item, p, len);
    item[len] = 0;
    if (cli_parse_int(cmd, option, item, lo, hi, &out[*count])) return SYMV_INVALID_VALUE;
    ++*count;
    if (!comma) return 0;
    p = comma + 1;
  }
}

int cli_parse_point(const char *cmd, const char *s, symv_params *out)
{
  char err[256];
  if (symv_params_parse(s, out, err, sizeof err)) {
    fprintf(stderr, "symvtune %s: invalid candidate %s\n", cmd, err);
    return SYMV_INVALID_VALUE;
  }
  return 0;
}

int cli_parse_routines(const char *cmd, const char *s, int sel[SYMV_ROUTINE_COUNT])
{
  char err[256];
  if (symv_routine_parse_list(s, sel, err, sizeof err)) return cli_usage_error(cmd, "--routine %s", err);
  return 0;
}

int cli_parse_routine(const char *cmd, const char *s, symv_routine *out)
{
  if (symv_routine_parse(s, out)) return cli_usage_error(cmd, "invalid --routine '%s' (one of " SYMV_ROUTINE_NAMES ")", s);
  return 0;
}

int cli_parse_atomics(const char *cmd, const char *s, int *deterministic)
{
  if (strcmp(s, "any") && strcmp(s, "deterministic"))
    return cli_usage_error(cmd, "invalid --atomics '%s' (any or deterministic)", s);
  *deterministic = !strcmp(s, "deterministic");
  return 0;
}

int cli_parse_seed(const char *cmd, const char *s, unsigned long long *out)
{
  /* strtoull takes "-1" for 2^64 - 1 and skips leading blanks: a seed is digits only */
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (!isdigit((unsigned char)s[0]) || *end || errno == ERANGE)
    return cli_usage_error(cmd, "invalid --seed '%s' (expected an integer in 0..%llu)", s, (unsigned long long)ULLONG_MAX);
  *out = v;
  return 0;
}

int cli_each_routine(const char *cmd, int argc, char **argv, int (*run)(int, char **), int *rc)
{
  int at = -1, eq = 0; /* where the list is: argv[at] (after "--routine") or after '=' */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) break;
    if (!strcmp(argv[i], "--routine") && i + 1 < argc) at = i + 1, eq = 0, i++;
    else if (!strncmp(argv[i], "--routine=", 10)) at = i, eq = 10;
  }
  if (at < 0) return 0;
  int sel[SYMV_ROUTINE_COUNT], n = 0;
  if (cli_parse_routines(cmd, argv[at] + eq, sel)) {
    *rc = SYMV_EXIT_USAGE;
    return 1;
  }
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) n += sel[r];
  if (n <= 1) return 0;
  char **av = malloc(sizeof *av * (size_t)(argc + 1));
  if (!av) {
    fprintf(stderr, "symvtune %s: out of memory\n", cmd);
    *rc = SYMV_EXIT_ERROR;
    return 1;
  }
  *rc = SYMV_EXIT_OK;
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const symv_routine r = symv_routine_order(i);
    if (!sel[r]) continue;
    char opt[32];
    memcpy(av, argv, sizeof *av * (size_t)argc);
    av[argc] = NULL;
    snprintf(opt, sizeof opt, "--routine=%s", symv_routine_name(r));
    av[at] = eq ? opt : (char *)symv_routine_name(r);
    printf("\n== %s ==\n", symv_routine_name(r));
    fflush(stdout);
    int st = run(argc, av);
    if (st > *rc) *rc = st;
  }
  free(av);
  return 1;
}

int cli_refuse_overwrite(const char *cmd, const char *option, const char *out, const char *what, const char *in)
{
  static const char *const sidecars[] = {"", "-wal", "-shm", "-journal"};
  const int db = !strcmp(what, "the database");
  for (int i = 0; i < (db ? 4 : 1); i++) {
    char p[4200];
    if ((size_t)snprintf(p, sizeof p, "%s%s", in, sidecars[i]) >= sizeof p) continue;
    if (symv_same_file(out, p)) {
      fprintf(stderr, "symvtune %s: %s %s is %s %s (an input of this command): refusing to write over it\n", cmd,
              option, out, i ? "a file of the database," : what, p);
      return SYMV_EXIT_USAGE;
    }
  }
  return 0;
}
