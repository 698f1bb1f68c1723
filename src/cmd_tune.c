/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_tune.c - `symvtune tune`: the whole job for the GPU present in one
 * command (doc/method.md section 4): sweep (resumable), fit, build, bench, each
 * stage by calling that subcommand's run function from the command table
 * with a constructed argv, as if typed: for each routine asked for, its
 * sweep and fit; then one build of a library of them all; then of each, a
 * bench and a validate with a handle that allowed atomics and with one in
 * cuBLAS's default (deterministic) mode. Prints the wall time of each stage at the end. Rerun after an
 * interruption: each routine's sweep resumes where it stopped (a finished
 * one has nothing left to measure), and the later stages are redone from
 * the database.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "gpu.h"
#include "routine.h"
#include "symv_error.h"

#define NSTAGES (6 * SYMV_ROUTINE_COUNT + 1) /* sweep, fit, two benches and two validates of each routine, one build */

static void help(void)
{
  puts("Usage: symvtune tune [OPTIONS]\n"
       "Tunes the routines asked for (default DSYMV) for the GPU present, start to finish:\n"
       "  1. symvtune sweep --db FILE --routine R   measure the space (resumes an interrupted sweep)\n"
       "  2. symvtune fit --db FILE --routine R     d-spline fits and dispatch rules\n"
       "     (1 and 2 for each routine)\n"
       "  3. symvtune build --db FILE --out DIR     one DIR/lib/libsymv.so of every fitted routine\n"
       "  4. symvtune bench --lib DIR --routine R --atomics any|deterministic --db FILE\n"
       "                                            libsymv against cuBLAS and OpenBLAS, each routine, with a\n"
       "                                            handle that allowed atomics and one in cuBLAS's default;\n"
       "                                            the runs stored in FILE (view v_bench)\n"
       "  5. symvtune validate --db FILE --routine R --lib DIR --atomics any|deterministic\n"
       "                                            each rule set's regret at 50 sizes no stage sampled,\n"
       "                                            and libsymv's own call (its handle in that set's\n"
       "                                            atomics mode) against the kernel it should run\n"
       "and prints the wall time of each stage. A stage that fails stops the job with its exit\n"
       "status; run the same command again to go on (the sweep keeps what it measured).\n\n"
       "Options:\n"
       CLI_ROUTINE_HELP
       "  --db FILE      the results database (default symvtune.db)\n"
       "  --out DIR      where the library goes (default libsymv)\n"
       "  --device N     CUDA device to tune and bench on (default 0)\n"
       "  --devices L    GPUs the sweep uses (sweep --devices: a list, or all; one model);\n"
       "                 the dense stage runs on the first of them, the bench on --device\n"
       "  --help         this text\n"
       "Exit status: 0 done; 3 no GPU; else the exit status of the stage that failed.");
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int run(int argc, char **argv)
{
  static const struct option opts[] = {{"db", required_argument, 0, CLI_DB},
                                       {"out", required_argument, 0, 'o'},
                                       {"device", required_argument, 0, CLI_DEVICE},
                                       {"routine", required_argument, 0, CLI_ROUTINES},
                                       {"devices", required_argument, 0, 'V'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  cli_opts o = {.cmd = "tune", .options = opts, .help = help, .db = "symvtune.db", .routines = {[SYMV_DSYMV] = 1}};
  const char *out = "libsymv", *devices = NULL;
  int c;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'V': devices = optarg; break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  if (!*o.db || !*out) return cli_usage_error("tune", "--db and --out need a name");

  int count = 0;
  if (symv_device_count(&count) || o.device >= count) {
    if (count == 0)
      fprintf(stderr, "symvtune tune: no CUDA device found (%s): tuning needs a GPU; without one, fit and build "
                      "from an existing database (scripts/quickstart)\n", symv_cuda_error_text());
    else
      fprintf(stderr, "symvtune tune: no device %d (%d found)\n", o.device, count);
    return count == 0 ? SYMV_EXIT_NO_GPU : SYMV_EXIT_USAGE;
  }

  char dev[16];
  snprintf(dev, sizeof dev, "%d", o.device);
  /* argv of each stage; argv[0] is the command's name, as main() passes it */
  static char *argvs[NSTAGES][12];
  char **stages[NSTAGES];
  int nstages = 0;
  for (int pass = 0; pass < 3; pass++) { /* sweep and fit of each routine; build; bench of each */
    if (pass == 1) {
      char **av = argvs[nstages];
      av[0] = "build", av[1] = "--db", av[2] = (char *)o.db, av[3] = "--out", av[4] = (char *)out, av[5] = NULL;
      stages[nstages++] = av;
    }
    for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
      const symv_routine r = symv_routine_order(i);
      char *name = (char *)symv_routine_name(r);
      if (!o.routines[r]) continue;
      if (pass == 0) {
        char **av = argvs[nstages];
        av[0] = "sweep", av[1] = "--db", av[2] = (char *)o.db, av[3] = "--device", av[4] = dev;
        av[5] = "--routine", av[6] = name, av[7] = NULL;
        if (devices) av[3] = "--devices", av[4] = (char *)devices; /* sweep checks the list */
        stages[nstages++] = av;
        av = argvs[nstages];
        av[0] = "fit", av[1] = "--db", av[2] = (char *)o.db, av[3] = "--routine", av[4] = name, av[5] = NULL;
        stages[nstages++] = av;
      } else if (pass == 2) { /* a handle that allowed atomics, then one in cuBLAS's default mode */
        for (int det = 0; det < 2; det++) {
          char **av = argvs[nstages];
          av[0] = "bench", av[1] = "--lib", av[2] = (char *)out, av[3] = "--device", av[4] = dev;
          av[5] = "--routine", av[6] = name, av[7] = "--atomics", av[8] = det ? "deterministic" : "any";
          av[9] = "--db", av[10] = (char *)o.db, av[11] = NULL; /* the bench runs go into the database */
          stages[nstages++] = av;
        }
        for (int det = 0; det < 2; det++) { /* each rule set's regret at sizes no stage sampled */
          char **av = argvs[nstages];
          av[0] = "validate", av[1] = "--db", av[2] = (char *)o.db, av[3] = "--device", av[4] = dev;
          av[5] = "--routine", av[6] = name, av[7] = "--lib", av[8] = (char *)out;
          av[9] = "--atomics", av[10] = det ? "deterministic" : "any", av[11] = NULL;
          stages[nstages++] = av; /* --lib: libsymv's own call timed too, so that dispatch shows */
        }
      }
    }
  }
  double wall[NSTAGES] = {0};
  int done = 0, status = SYMV_EXIT_OK;
  for (int s = 0; s < nstages && status == SYMV_EXIT_OK; s++) {
    char **av = stages[s];
    int ac = 0;
    while (av[ac]) ac++;
    const symv_command *cmd = cli_lookup(av[0]);
    printf("\n==== symvtune tune: stage %d of %d:", s + 1, nstages);
    for (int i = 0; i < ac; i++) printf(" %s", av[i]);
    printf(" ====\n");
    fflush(stdout);
    if (!cmd) {
      fprintf(stderr, "symvtune tune: this symvtune has no '%s' command\n", av[0]);
      status = SYMV_EXIT_ERROR;
      break;
    }
    double t0 = now_s();
    status = cmd->run(ac, av);
    wall[s] = now_s() - t0;
    done = s + 1;
    fflush(stdout);
    if (status) fprintf(stderr, "symvtune tune: stage '%s' failed with exit status %d\n", av[0], status);
  }
  printf("\nsymvtune tune: wall time by stage\n");
  double total = 0;
  for (int s = 0; s < done; s++) {
    const char *what = "", *cls = ""; /* the stage's routine (after its --routine), its --atomics */
    for (int i = 1; stages[s][i] && stages[s][i + 1]; i++) {
      if (!strcmp(stages[s][i], "--routine")) what = stages[s][i + 1];
      if (!strcmp(stages[s][i], "--atomics")) cls = stages[s][i + 1];
    }
    printf("  %-6s %-6s %10.1f s%s%s%s\n", stages[s][0], what, wall[s], *cls ? "  atomics " : "", cls,
           s == done - 1 && status ? "  (failed)" : "");
    total += wall[s];
  }
  printf("  %-13s %10.1f s\n", "total", total);
  if (status == SYMV_EXIT_OK) printf("library: %s/lib/libsymv.so (man libsymv)\n", out);
  return status;
}

const symv_command cmd_tune_entry = {"tune", "sweep, fit, build, bench and validate in one command for the GPU present", run};
