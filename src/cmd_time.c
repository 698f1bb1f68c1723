/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_time.c - `symvtune time`: its options, then the stage
 * (bench/time_stage.h): chosen candidates timed next to cuBLAS (atomics
 * mode off and on) at chosen sizes, in one run, calls back to back as the
 * timing harness times them (measure/harness.h), with ratios against
 * cuBLAS, the fraction of the copy bandwidth and every time over the floor
 * (gpu/floor.h), both measured in the same run.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
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
       "  --device N     CUDA device (default 0)\n"
       "  --help         this text\n"
       "Exit status: 0, 1 if a candidate could not run or was wrong, 2 usage, 3 no GPU, 4 CUDA error.");
}

static int run(int argc, char **argv)
{
  int each;
  if (cli_each_routine("time", argc, argv, run, &each)) return each;
  static const struct option opts[] = {{"point", required_argument, 0, 'p'}, {"sizes", required_argument, 0, 's'},
                                       {"uplo", required_argument, 0, 'u'},  {"hot", no_argument, 0, 'H'},
                                       {"batches", required_argument, 0, 'b'}, {"device", required_argument, 0, 'd'},
                                       {"beta", required_argument, 0, 'B'},  {"help", no_argument, 0, 'h'},
                                       {"routine", required_argument, 0, 'r'}, {"floor-detail", no_argument, 0, 'F'},
                                       {"no-floor", no_argument, 0, 'N'},      {0, 0, 0, 0}};
  symv_routine routine = SYMV_DSYMV;
  symv_params pts[MAX_POINTS];
  int npts = 0, sizes[MAX_SIZES] = {1000, 4096, 16384}, nsizes = 3, hot = 0, batches = 7, device = 0, c;
  int floor_detail = 0, no_floor = 0;
  char uplo = 'L';
  double beta = 0.5;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'p':
      if (npts == MAX_POINTS) return cli_usage_error("time", "at most %d --point options", MAX_POINTS);
      if (cli_parse_point("time", optarg, &pts[npts])) return SYMV_EXIT_USAGE;
      if (!symv_family_tunable(pts[npts].family))
        return cli_usage_error("time", "family '%s' computes no product", symv_family_name(pts[npts].family));
      npts++;
      break;
    case 's':
      if (cli_parse_int_list("time", "--sizes", optarg, 1, 65536, sizes, MAX_SIZES, &nsizes)) return SYMV_EXIT_USAGE;
      break;
    case 'u':
      if (strcmp(optarg, "L") && strcmp(optarg, "U") && strcmp(optarg, "l") && strcmp(optarg, "u"))
        return cli_usage_error("time", "invalid --uplo '%s' (expected L or U)", optarg);
      uplo = (char)(optarg[0] & ~0x20);
      break;
    case 'H': hot = 1; break;
    case 'F': floor_detail = 1; break;
    case 'N': no_floor = 1; break;
    case 'r':
      if (cli_parse_routine("time", optarg, &routine)) return SYMV_EXIT_USAGE;
      break;
    case 'b':
      if (cli_parse_int("time", "--batches", optarg, 1, 999, &batches)) return SYMV_EXIT_USAGE;
      break;
    case 'B':
      if (cli_parse_double("time", "--beta", optarg, -1e6, 1e6, &beta)) return SYMV_EXIT_USAGE;
      break;
    case 'd':
      if (cli_parse_int("time", "--device", optarg, 0, 1023, &device)) return SYMV_EXIT_USAGE;
      break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("time", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("time", "unexpected argument '%s'", argv[optind]);
  if (floor_detail && no_floor) return cli_usage_error("time", "--floor-detail and --no-floor exclude each other");

  const time_stage_opts o = {.c = {.routine = routine, .sizes = sizes, .nsizes = nsizes, .uplo = uplo, .hot = hot,
                                   .batches = batches, .device = device},
                             .points = pts, .npoints = npts, .beta = beta, .floor_detail = floor_detail,
                             .no_floor = no_floor};
  return time_stage_run(&o);
}

const symv_command cmd_time_entry = {"time", "time candidates against cuBLAS at chosen sizes", run};
