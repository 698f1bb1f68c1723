/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_bench.c - `symvtune bench`: its options, then the stage
 * (bench/bench.h): a generated libsymv timed next to the routine's cuBLAS
 * function with atomics off and on and OpenBLAS on the host, at each size
 * in one run, through the timing harness (measure/harness.h), with the
 * summary against the targets; with --json the run as one document on the
 * real standard output (bench_json.h), the table on standard error.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench.h"
#include "bench_json.h"
#include "cli.h"
#include "gnuplot.h"
#include "reference.h"

#define MAX_SIZES 64

_Static_assert((int)BENCH_OK == (int)SYMV_EXIT_OK && (int)BENCH_FAIL == (int)SYMV_EXIT_FAIL &&
                   (int)BENCH_USAGE == (int)SYMV_EXIT_USAGE && (int)BENCH_NO_GPU == (int)SYMV_EXIT_NO_GPU &&
                   (int)BENCH_ERROR == (int)SYMV_EXIT_ERROR,
               "bench_run's statuses are the command's exit statuses");

/* Default sizes: geometric, about sqrt(2) apart, 32..32768, with the round
 * sizes of the targets, and (apart from the ends) none of
 * the sweep's dense samples (24 per decade from 32), so the bench also
 * judges the fit between its samples. */
static const int default_sizes[] = {32,   64,   128,  256,  500,   724,   1000,  1448,  2000,
                                    2896, 4096, 5793, 8192, 11585, 16384, 23170, 32768};

static void help(void)
{
  puts("Usage: symvtune bench --lib DIR [OPTIONS]\n"
       "Times the generated library DIR/lib/libsymv.so (symvDsymv, ... for --routine) next to cuBLAS with\n"
       "atomics off and on, and OpenBLAS cblas_dsymv on the host, at each size in one run: CUDA\n"
       "events around batches of back-to-back calls, median of the batches, the better of two\n"
       "rounds taken in turn, A rotated among copies larger than twice the L2 (cold) unless\n"
       "--hot; the host's time is the median of wall-clock batches. Checks libsymv's y against cuBLAS's (scaled residual). Prints n, the\n"
       "kernel libsymv ran (symvLastKernel), microseconds of each, libsymv's GFLOPS and % of the\n"
       "device-to-device copy rate measured in the same run, the speed-up over the faster cuBLAS\n"
       "mode, libsymv's time over the floor (the least time over a family of read-only kernels\n"
       "that stream the stored triangle once, kernels/symv_floor.cu, measured in the same run and\n"
       "timed the same way), and a summary against the targets: libsymv <= the\n"
       "faster cuBLAS at every n; the geometric-mean speed-up for n in 500..4096; the least % of\n"
       "the copy rate for n >= 8192; libsymv over the floor in 500..4096.\n\n"
       "Options:\n"
       "  --lib DIR      the output folder of `symvtune build` (required)\n"
       CLI_ROUTINE_HELP CLI_EACH_JSON_HELP
       "  --sizes LIST   comma-separated n (default 32,64,128,256,500,724,1000,1448,2000,2896,\n"
       "                 4096,5793,8192,11585,16384,23170,32768: geometric, mostly between the\n"
       "                 sweep's dense samples)\n"
       "  --uplo L|U     stored triangle (default L)\n"
       "  --hot          keep A in L2 (one copy) instead of rotating copies\n"
       "  --batches N    timed batches per measurement (default 7)\n"
       "  --figure FIGURE\n"
       "                 plot GFLOPS of each over n with gnuplot into FIGURE, a PNG image (a\n"
       "                 name ending .pdf or .svg is refused); the gnuplot script, data inline,\n"
       "                 is written to FIGURE.gp as well (alone where there is no gnuplot: plot\n"
       "                 it elsewhere with gnuplot FIGURE.gp). Several routines: one figure\n"
       "                 each, the routine's name before the extension (bench-dsymv.png, ...)\n"
       "  --png FIGURE   the same as --figure (its former name, kept for scripts)\n"
       "  --device N     CUDA device (default 0)\n"
       "  --atomics C    the handle libsymv is called with: any (default: CUBLAS_ATOMICS_ALLOWED,\n"
       "                 so libsymv runs its 'any' rules; speed-up over the faster cuBLAS mode) or\n"
       "                 deterministic (cuBLAS's default CUBLAS_ATOMICS_NOT_ALLOWED: libsymv runs\n"
       "                 its deterministic rules; speed-up over cuBLAS without atomics, the mode\n"
       "                 such a caller gets)\n"
       "  --db FILE      store the run in FILE (created if missing; a database belongs to one GPU,\n"
       "                 and one of another GPU is refused): tables bench_run (when, this version,\n"
       "                 the library's path and what its symvGetInfo says, atomics mode, GPU) and\n"
       "                 bench_result (per n: libsymv's kernel and time, both cuBLAS modes', the\n"
       "                 host BLAS's, the floor's, residual, % of copy); the view v_bench adds\n"
       "                 the ratios. Stored at the end, also when a size failed (complete = 0)\n"
       "  --json         print a JSON document on stdout instead of the table, which goes to\n"
       "                 stderr as the run goes: {\"format\": 1, \"symvtune\": version, \"schema\",\n"
       "                 \"device\": {name, cc_major, cc_minor, sm_count}, \"routine\", \"uplo\",\n"
       "                 \"atomics\", \"hot\", \"batches\", \"copy_gbs\", \"library\": {path, version,\n"
       "                 tuned_gpu, arch}, \"complete\", \"run_id\" (with --db, else null), \"results\":\n"
       "                 [{n, kernel, libsymv_us, cublas_us, cublas_atomics_us, openblas_us, floor_us,\n"
       "                 gflops, pct_copy, speedup, x_floor, residual, correct}, ...], \"summary\":\n"
       "                 {slower_at, speedup_geomean_500_4096, least_pct_copy_8192,\n"
       "                 x_floor_geomean_500_4096}}\n"
       "  --help         this text\n"
       "Exit status: 0, 1 if libsymv's result is wrong, 2 usage, 3 no GPU, 4 library, CUDA,\n"
       "cuBLAS or database error.");
}

/* --json: the real stdout while the table goes to stderr (-1: no --json).
 * It belongs to one call of bench() and is put back by run(). */
static int json_fd = -1;

/* The document of --json, rec, to the real stdout. 0, or -1 with a message. */
static int write_json(const bench_record *rec)
{
  int fd = dup(json_fd);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    fprintf(stderr, "symvtune bench: --json: %s\n", strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  bench_json_write(f, &rec->run, rec->res, rec->nres, SYMV_RESIDUAL_TOL);
  if (fclose(f)) {
    fprintf(stderr, "symvtune bench: --json: cannot write the output\n");
    return -1;
  }
  return 0;
}

static const struct option opts[] = {
  {"lib", required_argument, 0, 'l'},             {"sizes", required_argument, 0, 's'},
  {"uplo", required_argument, 0, CLI_UPLO_ANYCASE}, {"hot", no_argument, 0, CLI_HOT},
  {"batches", required_argument, 0, CLI_BATCHES}, {"figure", required_argument, 0, 'p'},
  {"png", required_argument, 0, 'p'},             {"device", required_argument, 0, CLI_DEVICE},
  {"help", no_argument, 0, 'h'},                  {"routine", required_argument, 0, CLI_ROUTINE},
  {"atomics", required_argument, 0, CLI_ATOMICS}, {"db", required_argument, 0, 'D'},
  {"json", no_argument, 0, CLI_JSON},             {0, 0, 0, 0}};

static int bench(int argc, char **argv)
{
  cli_opts o = {.cmd = "bench", .options = opts, .help = help, .routine = SYMV_DSYMV, .uplo = 'L', .batches = 7};
  const char *libdir = NULL, *png = NULL, *dbpath = NULL;
  int sizes[MAX_SIZES], nsizes = 0, c;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 'l':
      if (!*optarg) return cli_usage_error("bench", "--lib needs a folder (made by `symvtune build --out DIR`)");
      libdir = optarg;
      break;
    case 's':
      if (cli_parse_int_list("bench", "--sizes", optarg, 1, 65536, sizes, MAX_SIZES, &nsizes))
        return SYMV_EXIT_USAGE;
      break;
    case 'p': png = optarg; break;
    case 'D':
      if (!*optarg) return cli_usage_error("bench", "--db needs a file name");
      dbpath = optarg;
      break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  if (!libdir) return cli_usage_error("bench", "--lib DIR is required");
  char path[PATH_MAX + 32], gp[PATH_MAX + 8];
  snprintf(path, sizeof path, "%s/lib/libsymv.so", libdir);
  if (png && !*png) return cli_usage_error("bench", "--figure needs a file name");
  if (png && (strchr(png, '\'') || strchr(png, '\n'))) /* checked before the run, not after */
    return cli_usage_error("bench", "--figure: a file name with a quote or line break cannot go into gnuplot");
  const gp_format *fmt = png ? gp_format_of(png) : NULL;
  if (fmt && strcmp(fmt->ext, ".png")) /* any other name is drawn as PNG, as --png always did */
    return cli_usage_error("bench", "--figure %s: bench draws a PNG image only (name it .png)", png);
  if (png && (snprintf(gp, sizeof gp, "%s.gp", png),
              cli_refuse_overwrite("bench", "--figure", png, "the library", path) ||
                  cli_refuse_overwrite("bench", "--figure's script", gp, "the library", path)))
    return SYMV_EXIT_USAGE;
  if (dbpath && png && (cli_refuse_overwrite("bench", "--figure", png, "the database", dbpath) ||
                        cli_refuse_overwrite("bench", "--figure's script", gp, "the database", dbpath)))
    return SYMV_EXIT_USAGE;
  if (o.json) { /* the table to stderr, the document to the real stdout at the end */
    fflush(stdout);
    if ((json_fd = dup(1)) < 0 || dup2(2, 1) < 0) {
      fprintf(stderr, "symvtune bench: --json: %s\n", strerror(errno));
      return SYMV_EXIT_ERROR;
    }
  }
  if (nsizes == 0) {
    nsizes = (int)(sizeof default_sizes / sizeof *default_sizes);
    memcpy(sizes, default_sizes, sizeof default_sizes);
  }

  const bench_opts bo = {.c = {.routine = o.routine, .sizes = sizes, .nsizes = nsizes, .uplo = o.uplo, .hot = o.hot,
                               .batches = o.batches, .device = o.device},
                         .path = path, .det = o.deterministic, .figure = png, .db_path = dbpath};
  bench_record rec = {0};
  int status = bench_run(&bo, o.json ? &rec : NULL);
  if (rec.res && write_json(&rec) && status != SYMV_EXIT_ERROR) status = SYMV_EXIT_ERROR;
  bench_record_free(&rec);
  return status;
}

static int run(int argc, char **argv)
{
  int each;
  static const char *const outputs[] = {"figure", "png", NULL}; /* several routines: a figure each, */
  static const cli_each how = {.options = opts, .json = "json", .outputs = outputs}; /* one document */
  if (cli_each_routine_of("bench", argc, argv, run, &how, &each)) return each;
  int status = bench(argc, argv);
  if (json_fd >= 0) { /* stdout back */
    fflush(stdout);
    dup2(json_fd, 1);
    close(json_fd);
    json_fd = -1;
  }
  return status;
}

const symv_command cmd_bench_entry = {"bench", "time a generated libsymv against cuBLAS and OpenBLAS", run};
