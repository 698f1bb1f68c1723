/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cli.h - the subcommand table and argument parsing shared by the
 * subcommands. Each subcommand lives in its own file src/cmd_NAME.c and
 * exports one symv_command descriptor; main.c lists them.
 */
#ifndef SYMV_CLI_H
#define SYMV_CLI_H

#include <getopt.h>
#include <stddef.h>
#include "../db/db.h"
#include "params.h"
#include "routine.h"

/** A subcommand: `symvtune NAME ...` calls run(argc, argv) with argv[0] =
 *  NAME; it returns the process exit status. */
typedef struct {
  const char *name;    /* as typed */
  const char *summary; /* one line for `symvtune --help` */
  int (*run)(int argc, char **argv);
} symv_command;

/** Exit statuses of every subcommand. */
enum {
  SYMV_EXIT_OK = 0,       /* success */
  SYMV_EXIT_FAIL = 1,     /* the work ran and found a failure (wrong result, ...) */
  SYMV_EXIT_USAGE = 2,    /* bad command line */
  SYMV_EXIT_NO_GPU = 3,   /* the command needs a GPU and there is none */
  SYMV_EXIT_ERROR = 4     /* a system, CUDA or database error */
};

/** cli_parse_int: *out = the whole decimal integer `s` if lo <= it <= hi;
 *  else prints "symvtune CMD: invalid OPTION 'S' (expected an integer in
 *  LO..HI)" to stderr and returns SYMV_INVALID_VALUE. */
int cli_parse_int(const char *cmd, const char *option, const char *s, long lo, long hi, int *out);

/** cli_parse_double: like cli_parse_int for a finite double in lo..hi. */
int cli_parse_double(const char *cmd, const char *option, const char *s, double lo, double hi, double *out);

/** cli_parse_int_list: a comma-separated list of integers in lo..hi, at
 *  most max of them, into out; *count gets how many. Errors as
 *  cli_parse_int (empty items, trailing commas and junk are errors). */
int cli_parse_int_list(const char *cmd, const char *option, const char *s, long lo, long hi, int *out,
                       int max, int *count);

/** cli_parse_routines: --routine's LIST (core/routine.h:
 *  symv_routine_parse_list: names comma-separated, or "all") into sel[];
 *  on error prints the usage message and returns nonzero. */
int cli_parse_routines(const char *cmd, const char *s, int sel[SYMV_ROUTINE_COUNT]);

/** cli_parse_routine: --routine of a command that works on one routine at
 *  a time: *out = the routine named s (core/routine.h); else prints
 *  "symvtune CMD: invalid --routine 'S' (one of ...)" and the help hint,
 *  and returns SYMV_EXIT_USAGE. */
int cli_parse_routine(const char *cmd, const char *s, symv_routine *out);

/** cli_parse_atomics: --atomics, the rule set of cuBLAS's atomics mode:
 *  *deterministic = 1 for "deterministic" (CUBLAS_ATOMICS_NOT_ALLOWED, the
 *  default mode), 0 for "any" (CUBLAS_ATOMICS_ALLOWED); anything else is a
 *  usage error as above, SYMV_EXIT_USAGE. */
int cli_parse_atomics(const char *cmd, const char *s, int *deterministic);

/** cli_parse_seed: --seed, a 64-bit unsigned integer that starts with a
 *  digit (strtoull with base 0: decimal, or 0x hexadecimal; no sign, no
 *  blanks, nothing past 2^64 - 1); else a usage error as above,
 *  SYMV_EXIT_USAGE. */
int cli_parse_seed(const char *cmd, const char *s, unsigned long long *out);

/** Codes of the options that several commands share: a command's
 *  getopt_long table gives one as an entry's val (a value above every
 *  character's), and cli_getopt parses it into the command's cli_opts. */
enum {
  CLI_DB = 0x100,   /* --db FILE: db = FILE */
  CLI_LIB,          /* --lib DIR: lib = DIR, a generated library's folder; an empty DIR is "--lib needs a folder" */
  CLI_ROUTINE,      /* --routine R of a command of one routine: routine (cli_parse_routine) */
  CLI_ROUTINES,     /* --routine LIST: routines[] (cli_parse_routines) */
  CLI_ATOMICS,      /* --atomics C: deterministic (cli_parse_atomics) */
  CLI_UPLO,         /* --uplo L|U: uplo; anything else "invalid --uplo 'S' (L or U)" */
  CLI_UPLO_ANYCASE, /* --uplo L|U|l|u: uplo, upper case; anything else "invalid --uplo 'S' (expected L or U)" */
  CLI_DEVICE,       /* --device N: device, a CUDA device 0..1023 */
  CLI_BATCHES,      /* --batches N: batches, timed batches per measurement, 1..999 */
  CLI_HOT,          /* --hot: hot = 1 */
  CLI_JSON,         /* --json: json = 1 */
  CLI_POINT         /* --point P: the candidate P, of a family that computes the product, appended to
                       points[npoints++] (at most max_points of them: "at most MAX --point options") */
};

/** What a command accepts after its options (cli_opts.operands). */
enum {
  CLI_NO_OPERANDS = 0, /* none: the first is "unexpected argument 'ARG'" */
  CLI_OPERANDS,        /* any number, options and operands mixed (argv permuted: operands last) */
  CLI_OPERANDS_STOP    /* any number; options end at the first (a program and its arguments follow) */
};

/** cli_getopt's status while the command goes on with its options read. */
#define CLI_GO_ON (-1)

/** One command's reading of its options: what it is, set before the first
 *  cli_getopt, and the values of the shared options (the CLI_* codes its
 *  table holds), its defaults until argv gives others. */
typedef struct {
  const char *cmd;                /* the command's name, as messages give it */
  const struct option *options;   /* its getopt_long table, a zero entry last; --help's val is 'h' */
  void (*help)(void);             /* prints its --help text to stdout */
  int operands;                   /* CLI_NO_OPERANDS, CLI_OPERANDS or CLI_OPERANDS_STOP */
  int need_db;                    /* 1: no --db is "--db FILE is required" */
  const char *db, *lib;           /* CLI_DB, CLI_LIB */
  symv_routine routine;           /* CLI_ROUTINE */
  int routines[SYMV_ROUTINE_COUNT]; /* CLI_ROUTINES: routines[r] = 1 for each routine r named */
  int deterministic;              /* CLI_ATOMICS: 1 deterministic, 0 any */
  char uplo;                      /* CLI_UPLO, CLI_UPLO_ANYCASE: 'L' or 'U' */
  int device, batches, hot, json; /* CLI_DEVICE, CLI_BATCHES, CLI_HOT, CLI_JSON */
  symv_params *points;            /* CLI_POINT: points[0..npoints), room for max_points */
  int max_points, npoints;
  int status;                     /* when cli_getopt returns 0: CLI_GO_ON, or the exit status to return */
  int started;                    /* cli_getopt's own: 0 before its first call */
} cli_opts;

/** cli_getopt: the next option of argv that is the command's own (its val
 *  a character other than 'h'), read with getopt_long (o->options; no short
 *  option but -h; optarg its value), as a command's option loop calls it:
 *  `while ((c = cli_getopt(&o, argc, argv))) switch (c) {...}`. The first
 *  call starts argv afresh (optind = 0). The shared options (CLI_*) are
 *  parsed into *o and not returned; -h and --help print o->help's text.
 *  Returns the option's val, or 0 when the
 *  loop ends, with o->status: SYMV_EXIT_OK after --help; SYMV_EXIT_USAGE
 *  (the message printed) for a bad shared value, an option the command does
 *  not have ("unknown option"), an operand it does not take, or no --db
 *  where o->need_db; else CLI_GO_ON with optind at the first operand. */
int cli_getopt(cli_opts *o, int argc, char **argv);

/** cli_open_db: db_open(d, path, flags) for command cmd: 0 with *d open,
 *  or SYMV_EXIT_ERROR with "symvtune CMD: WHY" printed and *d = NULL. */
int cli_open_db(const char *cmd, const char *path, int flags, db **d);

/** What cli_each_routine_of needs to know of a command beyond --routine. */
typedef struct {
  const struct option *options; /* the command's getopt_long table (a zero entry last), so that argv is read
                                   as the command reads it: abbreviations, --name=value, a value that looks
                                   like an option; NULL: a table of --routine alone */
  const char *json;             /* the long option with which the command prints one JSON document on
                                   stdout ("json"), or NULL */
  const char *const *outputs;   /* the long options that name a file or folder the command writes (a
                                   figure, a script folder), NULL-terminated; or NULL */
} cli_each;

/** cli_each_routine_of: lets a command that works on one routine take
 *  --routine LIST. If argv's --routine (the last, where there are several)
 *  names several routines (a list, or all), runs `run` once per routine in
 *  canonical order with every --routine value replaced by that routine's
 *  name and every value of how->outputs by cli_routine_file's name for the
 *  routine, so that no routine writes over another's file; puts the worst
 *  exit status (the largest) in *rc and returns 1; the command then
 *  returns *rc. Each run's output follows a "== ROUTINE ==" line; but when
 *  argv holds how->json, stdout gets one JSON document instead
 *  (json_list_open: {"format", "symvtune", "command", "routines": [each
 *  routine's document as the command prints it alone, in canonical
 *  order]}), a routine whose run printed no document (an error, said on
 *  stderr) left out; anything else a run printed on stdout goes to stderr.
 *  Returns 0 (the command goes on as usual) when --routine names one
 *  routine or is absent; a malformed list returns 1 with the usage error
 *  printed and *rc = SYMV_EXIT_USAGE; no memory or no temporary file for
 *  the documents returns 1 with *rc = SYMV_EXIT_ERROR. how may be NULL
 *  (all fields NULL). Leaves optind for the command to set. */
int cli_each_routine_of(const char *cmd, int argc, char **argv, int (*run)(int, char **), const cli_each *how,
                        int *rc);

/** cli_each_routine: cli_each_routine_of with how = NULL (--routine read
 *  alone, no JSON document, no output files made per routine). */
int cli_each_routine(const char *cmd, int argc, char **argv, int (*run)(int, char **), int *rc);

/** cli_routine_file: the name of routine's own file where a command runs
 *  for several routines: path with "-ROUTINE" inserted before the extension
 *  of its last component ("fit.png" -> "fit-dsymv.png", "figs/regret.pdf"
 *  -> "figs/regret-dsymv.pdf"; appended where it has none: "out" ->
 *  "out-dsymv", ".hidden" -> ".hidden-dsymv"), into buf (size bytes).
 *  Returns 0, or -1 when it does not fit (buf then holds "" if size > 0). */
int cli_routine_file(const char *path, const char *routine, char *buf, size_t size);

/** CLI_ROUTINE_HELP: the --routine line of every command's --help. */
#define CLI_ROUTINE_HELP \
  "  --routine LIST routines, comma-separated, or all (" SYMV_ROUTINE_NAMES "; default dsymv)\n"

/** CLI_EACH_JSON_HELP: what follows CLI_ROUTINE_HELP in the --help of a
 *  command with --json (cli_each_routine_of, json_list_open). */
#define CLI_EACH_JSON_HELP \
  "                 (several: the command runs once for each; with --json it prints one\n" \
  "                 document, {\"format\": 1, \"symvtune\": version, \"command\", \"routines\":\n" \
  "                 [each routine's document, as --routine R alone prints it]}; a routine\n" \
  "                 that fails is left out of it, its error on stderr)\n"

/** cli_parse_point: one candidate "FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX";
 *  errors printed as above. */
int cli_parse_point(const char *cmd, const char *s, symv_params *out);

/** cli_usage_error: prints "symvtune CMD: MESSAGE" and "Try 'symvtune CMD
 *  --help'." to stderr; returns SYMV_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** cli_command_line: argv[0..argc) joined by spaces into buf (size bytes,
 *  NUL-terminated, cut to fit): the command line a database records of a
 *  run. Returns buf. */
char *cli_command_line(int argc, char **argv, char *buf, size_t size);

/** cli_refuse_overwrite: nonzero (SYMV_EXIT_USAGE, with "symvtune CMD:
 *  OPTION OUT is WHAT IN (an input of this command): refusing to write
 *  over it" printed) if the output file `out` is the input file `in` (the
 *  same file, symbolic links followed: symv_same_file), or when what names
 *  a database ("the database"), its -wal, -shm or -journal file; 0 if not
 *  (or if out does not exist yet). */
int cli_refuse_overwrite(const char *cmd, const char *option, const char *out, const char *what, const char *in);

/** cli_lookup: the command named `name` in the table, or NULL. */
const symv_command *cli_lookup(const char *name);

/** The table (main.c), NULL-name terminated. */
extern const symv_command *const symv_commands[];

#endif
