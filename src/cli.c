/* SPDX-License-Identifier: BSD-3-Clause */
/* cli.c - argument parsing shared by the subcommands (cli.h). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "json.h"
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

/* --uplo's value s into *uplo: "L" or "U", and "l" or "u" too where
 * anycase; else a usage error, worded as each kind of command words it. */
static int parse_uplo(const char *cmd, const char *s, int anycase, char *uplo)
{
  if (!strcmp(s, "L") || !strcmp(s, "U") || (anycase && (!strcmp(s, "l") || !strcmp(s, "u")))) {
    *uplo = (char)(s[0] & ~0x20);
    return 0;
  }
  return cli_usage_error(cmd, anycase ? "invalid --uplo '%s' (expected L or U)" : "invalid --uplo '%s' (L or U)", s);
}

/* --point's value s appended to o->points: 0, or the exit status. */
static int parse_point(cli_opts *o, const char *s)
{
  if (o->npoints == o->max_points) return cli_usage_error(o->cmd, "at most %d --point options", o->max_points);
  symv_params *p = &o->points[o->npoints];
  if (cli_parse_point(o->cmd, s, p)) return SYMV_EXIT_USAGE;
  if (!symv_family_tunable(p->family))
    return cli_usage_error(o->cmd, "family '%s' computes no product", symv_family_name(p->family));
  o->npoints++;
  return 0;
}

/* Option c ('h', '?' or a CLI_* code) of o->cmd, with value arg: CLI_GO_ON
 * when it is parsed into *o, else the exit status of the command. */
static int shared_option(cli_opts *o, int c, const char *arg)
{
  const char *cmd = o->cmd;
  switch (c) {
  case 'h': o->help(); return SYMV_EXIT_OK;
  case CLI_DB: o->db = arg; return CLI_GO_ON;
  case CLI_LIB: return *(o->lib = arg) ? CLI_GO_ON : cli_usage_error(cmd, "--lib needs a folder");
  case CLI_ROUTINE: return cli_parse_routine(cmd, arg, &o->routine) ? SYMV_EXIT_USAGE : CLI_GO_ON;
  case CLI_ROUTINES: return cli_parse_routines(cmd, arg, o->routines) ? SYMV_EXIT_USAGE : CLI_GO_ON;
  case CLI_ATOMICS: return cli_parse_atomics(cmd, arg, &o->deterministic) ? SYMV_EXIT_USAGE : CLI_GO_ON;
  case CLI_UPLO:
  case CLI_UPLO_ANYCASE: return parse_uplo(cmd, arg, c == CLI_UPLO_ANYCASE, &o->uplo) ? SYMV_EXIT_USAGE : CLI_GO_ON;
  case CLI_DEVICE: return cli_parse_int(cmd, "--device", arg, 0, 1023, &o->device) ? SYMV_EXIT_USAGE : CLI_GO_ON;
  case CLI_BATCHES: return cli_parse_int(cmd, "--batches", arg, 1, 999, &o->batches) ? SYMV_EXIT_USAGE : CLI_GO_ON;
  case CLI_HOT: o->hot = 1; return CLI_GO_ON;
  case CLI_JSON: o->json = 1; return CLI_GO_ON;
  case CLI_POINT: return parse_point(o, arg) ? SYMV_EXIT_USAGE : CLI_GO_ON;
  default: return cli_usage_error(cmd, "unknown option");
  }
}

int cli_getopt(cli_opts *o, int argc, char **argv)
{
  if (!o->started) optind = 0, o->started = 1;
  for (;;) {
    const int c = getopt_long(argc, argv, o->operands == CLI_OPERANDS_STOP ? "+h" : "h", o->options, NULL);
    if (c == -1) break;
    if (c != 'h' && c != '?' && c < CLI_DB) return c; /* the command's own */
    if ((o->status = shared_option(o, c, optarg)) != CLI_GO_ON) return 0;
  }
  if (o->operands == CLI_NO_OPERANDS && optind < argc)
    o->status = cli_usage_error(o->cmd, "unexpected argument '%s'", argv[optind]);
  else if (o->need_db && !o->db)
    o->status = cli_usage_error(o->cmd, "--db FILE is required");
  else
    o->status = CLI_GO_ON;
  return 0;
}

int cli_open_db(const char *cmd, const char *path, int flags, db **d)
{
  if (db_open(d, path, flags) == 0) return 0;
  fprintf(stderr, "symvtune %s: %s\n", cmd, db_errmsg(*d));
  db_close(*d);
  *d = NULL;
  return SYMV_EXIT_ERROR;
}

int cli_routine_file(const char *path, const char *routine, char *buf, size_t size)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  if (!dot || dot == base) dot = base + strlen(base); /* no extension: appended */
  const int n = snprintf(buf, size, "%.*s-%s%s", (int)(dot - path), path, routine, dot);
  if (n < 0 || (size_t)n >= size) {
    if (size) buf[0] = 0;
    return -1;
  }
  return 0;
}

/* One value of argv that a routine's run gets in its own version: the
 * value's first byte in argv's strings and what kind it is. */
typedef struct {
  const char *at;
  int output; /* 0 --routine's list, 1 an output file or folder */
} each_value;

/* Reads argv as the command would (how->options) and notes the values to
 * replace (vals, at most argc), the last --routine list (*list, NULL if
 * none) and whether how->json is given (*json). */
static int each_scan(int argc, char **argv, const cli_each *how, each_value *vals, const char **list, int *json)
{
  static const struct option routine_only[] = {{"routine", required_argument, 0, 'r'}, {0, 0, 0, 0}};
  const struct option *opts = how && how->options ? how->options : routine_only;
  char **av = malloc(sizeof *av * (size_t)(argc + 1)); /* getopt permutes its argv: a copy */
  int nvals = 0;
  *list = NULL, *json = 0;
  if (!av) return -1;
  memcpy(av, argv, sizeof *av * (size_t)argc);
  av[argc] = NULL;
  const int saved_opterr = opterr;
  opterr = 0, optind = 0;
  for (;;) {
    int li = -1;
    const int c = getopt_long(argc, av, "h", opts, &li);
    if (c == -1) break;
    if (li < 0 || c == '?' || c == ':') continue;
    const char *name = opts[li].name;
    if (!strcmp(name, "routine") && optarg) {
      *list = optarg;
      vals[nvals++] = (each_value){optarg, 0};
    } else if (how && how->json && !strcmp(name, how->json)) {
      *json = 1;
    } else if (how && how->outputs && optarg) {
      for (const char *const *o = how->outputs; *o; o++)
        if (!strcmp(name, *o)) vals[nvals++] = (each_value){optarg, 1};
    }
  }
  opterr = saved_opterr, optind = 1;
  free(av);
  return nvals;
}

/* argv[i] with the value at v (inside it) replaced by rep: malloc'ed. */
static char *each_replace(const char *arg, const char *v, const char *rep)
{
  const size_t pre = (size_t)(v - arg), len = pre + strlen(rep) + 1;
  char *s = malloc(len);
  if (s) snprintf(s, len, "%.*s%s", (int)pre, arg, rep);
  return s;
}

/* The bytes of the file open at fd (malloc'ed, NUL-terminated past *len
 * of them), NULL if they cannot be read. Read through the descriptor: the
 * runs write to it as fd 1, past any stdio buffer. */
static char *each_read(int fd, size_t *len)
{
  struct stat sb;
  *len = 0;
  if (fstat(fd, &sb) || sb.st_size < 0) return NULL;
  char *b = malloc((size_t)sb.st_size + 1);
  if (!b) return NULL;
  while (*len < (size_t)sb.st_size) {
    const ssize_t k = pread(fd, b + *len, (size_t)sb.st_size - *len, (off_t)*len);
    if (k <= 0) break;
    *len += (size_t)k;
  }
  b[*len] = 0;
  return b;
}

int cli_each_routine_of(const char *cmd, int argc, char **argv, int (*run)(int, char **), const cli_each *how,
                        int *rc)
{
  each_value *vals = malloc(sizeof *vals * (size_t)(argc + 1));
  const char *list = NULL;
  int json = 0, nvals = vals ? each_scan(argc, argv, how, vals, &list, &json) : -1;
  if (nvals < 0) {
    free(vals);
    fprintf(stderr, "symvtune %s: out of memory\n", cmd);
    *rc = SYMV_EXIT_ERROR;
    return 1;
  }
  int sel[SYMV_ROUTINE_COUNT], n = 0;
  if (list && cli_parse_routines(cmd, list, sel)) {
    free(vals);
    *rc = SYMV_EXIT_USAGE;
    return 1;
  }
  for (int r = 0; list && r < SYMV_ROUTINE_COUNT; r++) n += sel[r];
  if (n <= 1) {
    free(vals);
    return 0;
  }
  char **av = malloc(sizeof *av * (size_t)(argc + 1));
  char **made = calloc((size_t)argc + 1, sizeof *made); /* the strings av has of its own */
  FILE *tmp = NULL;
  if (!av || !made || (json && !(tmp = tmpfile()))) {
    fprintf(stderr, "symvtune %s: %s\n", cmd, !av || !made ? "out of memory" : "no temporary file for the documents");
    free(av), free(made), free(vals);
    *rc = SYMV_EXIT_ERROR;
    return 1;
  }
  *rc = SYMV_EXIT_OK;
  int items = 0;
  fflush(stdout);
  if (json) json_list_open(stdout, cmd);
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const symv_routine r = symv_routine_order(i);
    if (!sel[r]) continue;
    const char *name = symv_routine_name(r);
    int st = SYMV_EXIT_OK;
    memcpy(av, argv, sizeof *av * (size_t)argc);
    av[argc] = NULL;
    for (int a = 0; a < argc && st == SYMV_EXIT_OK; a++)
      for (int k = 0; k < nvals; k++) {
        const size_t len = strlen(argv[a]);
        if (vals[k].at < argv[a] || vals[k].at > argv[a] + len) continue;
        char file[4200];
        if (vals[k].output && cli_routine_file(vals[k].at, name, file, sizeof file)) {
          fprintf(stderr, "symvtune %s: %s: the name of %s's file is too long\n", cmd, vals[k].at, name);
          st = SYMV_EXIT_USAGE;
          break;
        }
        if (!(made[a] = each_replace(argv[a], vals[k].at, vals[k].output ? file : name))) {
          fprintf(stderr, "symvtune %s: out of memory\n", cmd);
          st = SYMV_EXIT_ERROR;
          break;
        }
        av[a] = made[a];
        break;
      }
    if (st == SYMV_EXIT_OK && !json) {
      printf("\n== %s ==\n", name);
      fflush(stdout);
      st = run(argc, av);
    } else if (st == SYMV_EXIT_OK) { /* the run's stdout into tmp, then into the list */
      fflush(stdout); /* the list so far, before fd 1 goes to tmp */
      int saved = dup(1);
      if (saved < 0 || ftruncate(fileno(tmp), 0) || lseek(fileno(tmp), 0, SEEK_SET) || dup2(fileno(tmp), 1) < 0) {
        fprintf(stderr, "symvtune %s: %s: %s\n", cmd, name, strerror(errno));
        if (saved >= 0) close(saved);
        st = SYMV_EXIT_ERROR;
      } else {
        st = run(argc, av);
        fflush(stdout);
        dup2(saved, 1);
        close(saved);
        clearerr(stdout);
        size_t len;
        char *doc = each_read(fileno(tmp), &len);
        size_t skip = 0;
        while (doc && skip < len && doc[skip] && strchr(" \t\r\n", doc[skip])) skip++;
        if (!doc) {
          fprintf(stderr, "symvtune %s: %s: cannot read the document back\n", cmd, name);
          st = SYMV_EXIT_ERROR;
        } else if (skip < len && doc[skip] == '{') {
          json_list_item(stdout, doc + skip, len - skip, items++ == 0);
        } else if (skip < len) { /* not a document: said, not put into one */
          fwrite(doc, 1, len, stderr);
        }
        free(doc);
      }
    }
    for (int a = 0; a < argc; a++) free(made[a]), made[a] = NULL;
    if (st > *rc) *rc = st;
  }
  if (json) {
    json_list_close(stdout);
    fclose(tmp);
    if (fflush(stdout) || ferror(stdout)) {
      fprintf(stderr, "symvtune %s: cannot write the output\n", cmd);
      *rc = SYMV_EXIT_ERROR;
    }
  }
  free(av), free(made), free(vals);
  return 1;
}

int cli_each_routine(const char *cmd, int argc, char **argv, int (*run)(int, char **), int *rc)
{
  return cli_each_routine_of(cmd, argc, argv, run, NULL, rc);
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

char *cli_command_line(int argc, char **argv, char *buf, size_t size)
{
  int ol = 0;
  buf[0] = 0;
  for (int i = 0; i < argc && ol < (int)size - 2; i++)
    ol += snprintf(buf + ol, size - (size_t)ol, "%s%s", i ? " " : "", argv[i]);
  return buf;
}
