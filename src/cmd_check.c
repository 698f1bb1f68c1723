/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_check.c - `symvtune check`: its options, then the stage
 * (check/check.h): every kernel family proved right on the GPU present,
 * for every routine asked for (--routine), against cuBLAS on the GPU and
 * OpenBLAS/LAPACK on the CPU, over a grid of argument combinations.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "cli.h"
#include "reference.h"

#define MAX_POINTS 64
#define MAX_SIZES 64

_Static_assert((int)CHECK_OK == (int)SYMV_EXIT_OK && (int)CHECK_FAIL == (int)SYMV_EXIT_FAIL &&
                   (int)CHECK_USAGE == (int)SYMV_EXIT_USAGE && (int)CHECK_NO_GPU == (int)SYMV_EXIT_NO_GPU &&
                   (int)CHECK_ERROR == (int)SYMV_EXIT_ERROR,
               "check_run's statuses are the command's exit statuses");

static const char *const default_points[] = {
  "atomic:128,16,1,0", "atomic:32,8,2,1",  "atomic:256,32,1,9", "atomic:64,13,4,4", "atomic:160,14,4,7",
  "atomic:96,9,3,2",   "atomic:224,24,2,5", "atomic:192,20,1,8", "atomic:64,10,6,3", "atomic_red:128,16,2,0",
  "atomic_red:256,32,1,6", "lu:128,16,1,0", "lu:64,8,2,0", "lu:256,32,1,3", "lu:32,4,4,0",
  "atomic_w:64,16,8,1", "atomic_w:96,11,3,4", "panel:256,4,4,0", "panel:64,2,8,1", "panel:128,8,2,2",
  "panel:512,16,1,3", "pipe:256,64,2,0", "pipe:512,64,1,1", "pipe:64,16,4,2", "pipe:128,32,3,0",
  "pipe_det:256,64,2,0", "pipe_det:512,32,1,1", "pipe_det:64,16,4,2", "pipe_det:128,64,3,0",
  "pipe:512,128,1,0", "pipe_det:512,128,1,0", "pipe_det:256,64,2,3", "pipe_det:128,4,3,4",
  "pipe_fx:256,64,2,0", "pipe_fx:512,128,1,1", "pipe_fx:64,16,4,2", "pipe_fx:128,4,3,0", "pipe_fx:256,64,2,3",
  "pipe_fx:256,64,2,6", "pipe_fx:64,16,4,8",
};
static const int default_sizes[] = {1, 2, 3, 17, 32, 33, 100, 255, 256, 257, 1000, 1025, 2048, 4099, 10007};

static void help(void)
{
  printf("Usage: symvtune check [OPTIONS]\n"
       "Runs every kernel family over a grid of cases of each routine (uplo L and U; n from 1 to\n"
       "10007; lda = n and lda > n; strides 1, 2, 3, -1, -3; alpha = 0; beta = 0 and 1; complex\n"
       "scalars with nonzero imaginary parts) on fresh random data and compares each result with\n"
       "cuBLAS (GPU) and OpenBLAS/LAPACK (CPU) by the scaled residual\n"
       "|y - y_ref| / (n eps (|alpha| |A||x| + |beta| |y|)). Prints a table per routine; exit\n"
       "status 1 if any candidate fails. A candidate whose MULTIPLICITY cannot be had for a\n"
       "routine's element size is listed as skipped, not failed.\n\n"
       "Options:\n"
       CLI_ROUTINE_HELP
       "  --point P      check candidate P = FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX (repeatable;\n"
       "                 FAMILY: " SYMV_TUNABLE_FAMILIES "); default: a sample of %d points\n"
       "                 covering every family and every MX\n"
       "  --sizes LIST   comma-separated n values (default 1,2,3,17,32,33,100,255,256,257,1000,\n"
       "                 1025,2048,4099,10007)\n"
       "  --tol T        largest scaled residual accepted (default 4)\n"
       "  --seed S       random seed (default: from the clock; printed)\n"
       "  --device N     CUDA device (default 0)\n"
       "  --verbose      print every failing case\n"
       "  --help         this text\n"
       "Exit status: 0 all pass, 1 a failure, 2 usage, 3 no GPU, 4 CUDA error.\n",
         (int)(sizeof default_points / sizeof *default_points));
}

static int run(int argc, char **argv)
{
  static const struct option opts[] = {
    {"point", required_argument, 0, CLI_POINT},      {"sizes", required_argument, 0, 's'},
    {"tol", required_argument, 0, 't'},              {"seed", required_argument, 0, 'S'},
    {"device", required_argument, 0, CLI_DEVICE},    {"verbose", no_argument, 0, 'v'},
    {"routine", required_argument, 0, CLI_ROUTINES}, {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};
  static symv_params pts[MAX_POINTS];
  memset(pts, 0, sizeof pts);
  cli_opts o = {.cmd = "check", .options = opts, .help = help, .routines = {[SYMV_DSYMV] = 1}, .points = pts,
                .max_points = MAX_POINTS};
  int sizes[MAX_SIZES], nsizes = 0, verbose = 0, c;
  double tol = SYMV_RESIDUAL_TOL;
  unsigned long long seed = (unsigned long long)time(NULL) * 2654435761ull;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 's':
      if (cli_parse_int_list("check", "--sizes", optarg, 0, 100000, sizes, MAX_SIZES, &nsizes))
        return SYMV_EXIT_USAGE;
      break;
    case 't':
      if (cli_parse_double("check", "--tol", optarg, 1e-3, 1e12, &tol)) return SYMV_EXIT_USAGE;
      break;
    case 'S':
      if (cli_parse_seed("check", optarg, &seed)) return SYMV_EXIT_USAGE;
      break;
    case 'v': verbose = 1; break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  int npts = o.npoints;
  if (npts == 0)
    for (size_t i = 0; i < sizeof default_points / sizeof *default_points; i++)
      symv_params_parse(default_points[i], &pts[npts++], NULL, 0);
  if (nsizes == 0) {
    nsizes = (int)(sizeof default_sizes / sizeof *default_sizes);
    memcpy(sizes, default_sizes, sizeof default_sizes);
  }

  const check_opts co = {.points = pts, .npoints = npts, .sizes = sizes, .nsizes = nsizes, .routines = o.routines,
                         .tol = tol, .seed = seed, .device = o.device, .verbose = verbose};
  return check_run(&co);
}

const symv_command cmd_check_entry = {"check", "verify kernel candidates against cuBLAS and OpenBLAS", run};
