/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_time.c - `symvtune time`: its options, then the stage
 * (bench/time_stage.h): chosen candidates timed next to cuBLAS (atomics
 * mode off and on) at chosen sizes, in one run, calls back to back as the
 * timing harness times them (measure/harness.h), with ratios against
 * cuBLAS, the fraction of the copy bandwidth and every time over the floor
 * (gpu/floor.h), both measured in the same run; with --accuracy each y's
 * relative error against a reference computed on the CPU in more precision.
 */
#include <getopt.h>
#include <stdio.h>
#include "cli.h"
#include "time_stage.h"

#define MAX_POINTS TIME_STAGE_MAX_POINTS
#define MAX_SIZES 64

_Static_assert((int)BENCH_OK == (int)SYMV_EXIT_OK && (int)BENCH_FAIL == (int)SYMV_EXIT_FAIL &&
                   (int)BENCH_NO_GPU == (int)SYMV_EXIT_NO_GPU && (int)BENCH_ERROR == (int)SYMV_EXIT_ERROR,
               "time_stage_run's statuses are the command's exit statuses");

static void help(void)
{
  puts("Usage: symvtune time [OPTIONS]\n"
       "Times candidates and cuBLAS (atomics mode off and on) at each size, in one run, for one\n"
       "routine:\n"
       "CUDA events around batches of back-to-back calls, median of the batches, A rotated among\n"
       "copies larger than twice the L2 cache (cold) unless --hot. Prints microseconds, GFLOPS,\n"
       "GB/s of matrix traffic, % of the device-to-device copy rate measured in the same run,\n"
       "and the speed-up over each cuBLAS mode (cuBLAS time / candidate time). The row\n"
       "'floor:BLOCK_SIZE,UX,MULTIPLICITY,MX' is the floor at that n: the least time over the floor\n"
       "family, read-only kernels that stream the stored triangle's n(n+1)/2 elements once\n"
       "(kernels/symv_floor.cu), timed the same way; 'x floor' is each time over it (1.00: at\n"
       "the floor).\n\n"
       "Options:\n"
       CLI_ROUTINE_HELP "                 (several: the command runs once for each)\n"
       "  --point P      candidate FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX (repeatable)\n"
       "  --sizes LIST   comma-separated n values (default 1000,4096,16384)\n"
       "  --uplo L|U     stored triangle (default L)\n"
       "  --hot          keep A in L2 (one copy) instead of rotating copies\n"
       "  --batches N    timed batches per measurement (default 7)\n"
       "  --beta B       the calls' beta (default 0.5; 1 and 0 take other paths; its imaginary\n"
       "                 part is 0); alpha is 1 (complex routines: 1 + 0.25i)\n"
       "  --floor-detail time every floor shape fully (not only the 4 fastest by a probe), and\n"
       "                 print each shape's time (rows '+floor:...'), the untuned floor kernel\n"
       "                 (floor:256,1,8,8, the floor before the family) and the empty kernel's\n"
       "                 time a call (what a launch costs)\n"
       "  --no-floor     measure no floor: no floor row, and '-' for x floor\n"
       "  --accuracy     add a column err: max_i |y_i - r_i| / |r_i| over the r_i != 0 (complex:\n"
       "                 moduli), in double, where r is y computed on the CPU from the same A, x,\n"
       "                 y0, alpha and beta in more precision (s/c routines: double sums of exact\n"
       "                 products; d/z: __float128 sums of exact products), rounded to double\n"
       "  --device N     CUDA device (default 0)\n"
       "  --help         this text\n"
       "Exit status: 0, 1 if a candidate could not run or was wrong, 2 usage, 3 no GPU, 4 CUDA error.");
}

static int run(int argc, char **argv)
{
  int each;
  if (cli_each_routine("time", argc, argv, run, &each)) return each;
  static const struct option opts[] = {
    {"point", required_argument, 0, CLI_POINT},     {"sizes", required_argument, 0, 's'},
    {"uplo", required_argument, 0, CLI_UPLO_ANYCASE}, {"hot", no_argument, 0, CLI_HOT},
    {"batches", required_argument, 0, CLI_BATCHES}, {"device", required_argument, 0, CLI_DEVICE},
    {"beta", required_argument, 0, 'B'},            {"help", no_argument, 0, 'h'},
    {"routine", required_argument, 0, CLI_ROUTINE}, {"floor-detail", no_argument, 0, 'F'},
    {"no-floor", no_argument, 0, 'N'},              {"accuracy", no_argument, 0, 'A'},
    {0, 0, 0, 0}};
  symv_params pts[MAX_POINTS];
  cli_opts o = {.cmd = "time", .options = opts, .help = help, .routine = SYMV_DSYMV, .uplo = 'L', .batches = 7,
                .points = pts, .max_points = MAX_POINTS};
  int sizes[MAX_SIZES] = {1000, 4096, 16384}, nsizes = 3, c;
  int floor_detail = 0, no_floor = 0, accuracy = 0;
  double beta = 0.5;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 's':
      if (cli_parse_int_list("time", "--sizes", optarg, 1, 65536, sizes, MAX_SIZES, &nsizes)) return SYMV_EXIT_USAGE;
      break;
    case 'F': floor_detail = 1; break;
    case 'N': no_floor = 1; break;
    case 'A': accuracy = 1; break;
    case 'B':
      if (cli_parse_double("time", "--beta", optarg, -1e6, 1e6, &beta)) return SYMV_EXIT_USAGE;
      break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  if (floor_detail && no_floor) return cli_usage_error("time", "--floor-detail and --no-floor exclude each other");

  const time_stage_opts to = {.c = {.routine = o.routine, .sizes = sizes, .nsizes = nsizes, .uplo = o.uplo,
                                    .hot = o.hot, .batches = o.batches, .device = o.device},
                              .points = pts, .npoints = o.npoints, .beta = beta, .floor_detail = floor_detail,
                              .no_floor = no_floor, .accuracy = accuracy};
  return time_stage_run(&to);
}

const symv_command cmd_time_entry = {"time", "time candidates against cuBLAS at chosen sizes", run};
