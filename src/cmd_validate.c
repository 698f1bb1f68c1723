/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_validate.c - `symvtune validate`: the options of the validation stage
 * (validate/validate.h: the rules judged at sizes no stage sampled, timed
 * now or read from a stored run, and its figure, the regret over n).
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../db/db.h"
#include "cli.h"
#include "fit.h"
#include "gnuplot.h"
#include "routine.h"
#include "symv_error.h"
#include "util.h"
#include "validate.h"

_Static_assert((int)VALIDATE_OK == (int)SYMV_EXIT_OK && (int)VALIDATE_NO_GPU == (int)SYMV_EXIT_NO_GPU &&
                   (int)VALIDATE_ERROR == (int)SYMV_EXIT_ERROR,
               "validate_run's statuses are the command's exit statuses");

static void help(void)
{
  puts("Usage: symvtune validate --db FILE [OPTIONS]\n"
       "Judges the latest fit's rules (cold; uplo L unless --uplo U) at sizes no stage\n"
       "sampled: at each, times in one run the kernel the rules choose and every kernel the fit\n"
       "chose from (its densely sampled champions and cuBLAS), on the GPU present. Prints per\n"
       "size the chosen kernel, the fastest one and the regret (chosen time / fastest time),\n"
       "and the fit's predicted time for the chosen kernel against the measured one; then the\n"
       "regret's median, 90th percentile and maximum and the sizes losing more than 5%. A run of\n"
       "the any rules also gives the deterministic rules' speed against them at its sizes in\n"
       "500..4096 (the any rules' chosen time over the deterministic rules' kernel's: geometric\n"
       "mean and least).\n"
       "Stores the run in FILE (tables validation_run, validation_time).\n\n"
       "Options:\n"
       "  --db FILE        the database (required; a fit stored by `symvtune fit`)\n"
       "  --lib DIR        time libsymv's own call too (DIR/lib/libsymv.so, as `symvtune build\n"
       "                   --out DIR` made it; its handle in the judged rule set's atomics mode)\n"
       "                   in the same rounds: prints what it ran, its time over the chosen\n"
       "                   kernel's (dispatch) and over the fastest's; printed, not stored\n"
       CLI_ROUTINE_HELP "                   (several: one run for each; --figure: one figure each, the\n"
       "                   routine's name before FIGURE's extension: regret-dsymv.png, ...)\n"
       "  --sizes N|LIST   N random sizes, log-uniform over the fit's range, none a dense\n"
       "                   sample (default 50), or a comma-separated list of n\n"
       "  --seed S         seed of the random sizes (default: from the clock; printed)\n"
       "  --rounds R       times every kernel at every size R times (1..10, default 3), in a\n"
       "                   different order each round, and keeps the least of the R medians, so\n"
       "                   that a disturbance of a few seconds is not judged as a kernel's time;\n"
       "                   prints how many times varied by more than 5% between rounds\n"
       "  --atomics C      the rule set judged: any (default: every kernel and both cuBLAS\n"
       "                   modes) or deterministic (" SYMV_DETERMINISTIC_FAMILIES ", cuBLAS without atomics)\n"
       "  --uplo L|U       the stored triangle timed (default L); U is judged against the fit of\n"
       "                   U's own samples where there is one, else against the rules of L, which\n"
       "                   libsymv serves U with (that run is printed and drawn, not stored)\n"
       "  --figure FIGURE  draw the regret over n (log axis) of the run, with the rules'\n"
       "                   boundaries and the regret the fit predicted, into FIGURE: .png, .pdf\n"
       "                   or .svg after its extension (gnuplot)\n"
       "  --png FIGURE, --out FIGURE\n"
       "                   the same as --figure (its former names, kept for scripts)\n"
       "  --stored         measure nothing (no GPU): print and draw the latest stored run of\n"
       "                   the latest fit\n"
       "  --replay         measure nothing (no GPU): judge the latest fit's rules by the times\n"
       "                   of the latest run stored for the routine's rules of the same\n"
       "                   --atomics (else of the other), whichever fit it judged (after a\n"
       "                   new `fit` of the same samples: the new rules at the old sizes);\n"
       "                   prints each family's prediction error there; stores nothing\n"
       "  --device N       CUDA device (default 0)\n"
       "  --timeout S      seconds a kernel may run without answering (default 20)\n"
       "  --allow-foreign  accept a database made on a different GPU\n"
       "  --help           this text\n"
       "Environment: SYMVTUNE_GNUPLOT names the gnuplot program of --figure.\n"
       "Exit status: 0, 2 usage, 3 no GPU, 4 database or system error (gnuplot missing or failing\n"
       "included).");
}


static const struct option opts[] = {
  {"db", required_argument, 0, CLI_DB},       {"routine", required_argument, 0, CLI_ROUTINE},
  {"sizes", required_argument, 0, 's'},       {"seed", required_argument, 0, 'S'},
  {"atomics", required_argument, 0, CLI_ATOMICS}, {"device", required_argument, 0, CLI_DEVICE},
  {"timeout", required_argument, 0, 't'},     {"allow-foreign", no_argument, 0, 'F'},
  {"uplo", required_argument, 0, CLI_UPLO},   {"figure", required_argument, 0, 'p'},
  {"png", required_argument, 0, 'p'},         {"out", required_argument, 0, 'p'},
  {"stored", no_argument, 0, 'T'},            {"replay", no_argument, 0, 'P'},
  {"rounds", required_argument, 0, 'R'},      {"lib", required_argument, 0, CLI_LIB},
  {"help", no_argument, 0, 'h'},              {0, 0, 0, 0}};

static int run(int argc, char **argv)
{
  int each; /* several routines: a figure each */
  static const char *const outputs[] = {"figure", "png", "out", NULL};
  static const cli_each how = {.options = opts, .outputs = outputs};
  if (cli_each_routine_of("validate", argc, argv, run, &how, &each)) return each;
  cli_opts o = {.cmd = "validate", .options = opts, .help = help, .need_db = 1, .routine = SYMV_DSYMV, .uplo = 'L'};
  const char *figure = NULL;
  int ns[VALIDATE_MAX_SIZES], nsizes = 0, want = VALIDATE_DEFAULT_SIZES, allow_foreign = 0, c, seeded = 0;
  int stored = 0, replay = 0, sizes_given = 0, rounds = 3, rounds_given = 0;
  double timeout = 20;
  unsigned long long seed = 0;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 's':
      sizes_given = 1;
      if (!strchr(optarg, ',')) {
        if (cli_parse_int("validate", "--sizes", optarg, 1, VALIDATE_MAX_SIZES, &want)) return SYMV_EXIT_USAGE;
      } else if (cli_parse_int_list("validate", "--sizes", optarg, 1, DB_N_MAX, ns, VALIDATE_MAX_SIZES, &nsizes)) {
        return SYMV_EXIT_USAGE;
      }
      break;
    case 'S':
      if (cli_parse_seed("validate", optarg, &seed)) return SYMV_EXIT_USAGE;
      seeded = 1;
      break;
    case 't':
      if (cli_parse_double("validate", "--timeout", optarg, 1, 3600, &timeout)) return SYMV_EXIT_USAGE;
      break;
    case 'p': figure = optarg; break;
    case 'R':
      if (cli_parse_int("validate", "--rounds", optarg, 1, 10, &rounds)) return SYMV_EXIT_USAGE;
      rounds_given = 1;
      break;
    case 'T': stored = 1; break;
    case 'P': replay = 1; break;
    case 'F': allow_foreign = 1; break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  for (int i = 0; i < nsizes; i++) { /* the device's memory is checked once the worker reports it */
    char why[200];
    if (symv_problem_bytes(o.routine, ns[i], ns[i], 0, NULL, why, sizeof why))
      return cli_usage_error("validate", "--sizes: %s", why);
  }
  const gp_format *fmt = NULL;
  if (figure) {
    if (!*figure) return cli_usage_error("validate", "--figure needs a file name");
    if (cli_refuse_overwrite("validate", "--figure", figure, "the database", o.db)) return SYMV_EXIT_USAGE;
    if (!(fmt = gp_format_of(figure))) {
      const char *dot = strrchr(figure, '.');
      char ext[64];
      symv_escape(dot && !strchr(dot, '/') ? dot : "(none)", ext, sizeof ext);
      return cli_usage_error("validate", "--figure %s: unknown extension %s: the format follows it, " GP_EXTENSIONS,
                             figure, ext);
    }
  }
  if (stored && replay) return cli_usage_error("validate", "--stored or --replay, not both");
  if ((stored || replay) && (sizes_given || seeded || rounds_given))
    return cli_usage_error("validate", "--%s measures nothing: --sizes, --seed and --rounds do not go with it",
                           stored ? "stored" : "replay");
  char libpath[PATH_MAX + 32] = "";
  if (o.lib) {
    char given[PATH_MAX + 32];
    if (stored || replay)
      return cli_usage_error("validate", "--lib times the library: it does not go with --%s", stored ? "stored" : "replay");
    snprintf(given, sizeof given, "%s/lib/libsymv.so", o.lib);
    if (!realpath(given, libpath) || access(libpath, R_OK))
      return cli_usage_error("validate", "--lib %s: no library at %s (`symvtune build --db FILE --out %s` makes one)",
                             o.lib, given, o.lib);
    if (strpbrk(libpath, "\n\r") || strlen(libpath) > 4000)
      return cli_usage_error("validate", "--lib %s: the library's path is longer than 4000 bytes or breaks a line",
                             o.lib);
  }
  if (!seeded) seed = (unsigned long long)time(NULL) * 6364136223846793005ull + 1442695040888963407ull;

  db *d;
  if (cli_open_db("validate", o.db, stored || replay ? DB_READONLY : 0, &d)) return SYMV_EXIT_ERROR;
  const validate_opts vo = {.mode = stored ? VALIDATE_STORED : replay ? VALIDATE_REPLAY : VALIDATE_MEASURE,
                            .routine = o.routine, .uplo = o.uplo, .deterministic = o.deterministic, .ns = ns,
                            .nsizes = nsizes, .want = want, .seed = seed, .rounds = rounds, .device = o.device,
                            .timeout_s = timeout, .allow_foreign = allow_foreign, .libpath = libpath, .dbpath = o.db};
  validate_result r;
  int status = validate_run(d, &vo, &r);
  if (status == VALIDATE_OK && figure &&
      validate_draw(figure, fmt, &r))
    status = SYMV_EXIT_ERROR;
  validate_result_free(&r);
  db_close(d);
  return status;
}

const symv_command cmd_validate_entry = {"validate", "regret of the rules at sizes no stage sampled (GPU)", run};
