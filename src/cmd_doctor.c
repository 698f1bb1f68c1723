/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_doctor.c - `symvtune doctor [--lib DIR] [--keep] [--] PROGRAM [ARGS]`
 * and `symvtune doctor --lib DIR`: the options; the diagnosis is doctor_run,
 * the library's report of itself doctor_lib_report (doctor/doctor.h).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include "cli.h"
#include "doctor.h"

_Static_assert((int)DOCTOR_OK == (int)SYMV_EXIT_OK && (int)DOCTOR_ERROR == (int)SYMV_EXIT_ERROR,
               "doctor's statuses are the command's exit statuses");

static void help(void)
{
  puts("Usage: symvtune doctor [--lib DIR] [--keep] [--] PROGRAM [ARGS...]\n"
       "       symvtune doctor --lib DIR\n"
       "Runs PROGRAM with ARGS once and says whether its SYMV/HEMV calls (cublasSsymv_v2, ...,\n"
       "cublasZhemv_v2) reach libsymv. It runs with SYMV_LOG=1 and SYMV_LOG_FILE set to a\n"
       "private temporary file, LD_DEBUG=bindings (into private files: LD_DEBUG_OUTPUT) and\n"
       "LD_BIND_NOW=1, so that the symbol bindings show even if it fails before its first call;\n"
       "its own output is left as it is. Then it reports which library each of the routines'\n"
       "names bound to, the NEEDED order of the objects that call them (readelf -d), a summary\n"
       "of the calls libsymv logged (per routine: calls, n range, kernels, reasons), and, when\n"
       "the calls do not reach libsymv's kernels, why and the fix.\n"
       "With --lib DIR and no program, it says what DIR's libsymv holds: its version, the GPU\n"
       "and the rules per routine, and its identity line (\"symvtune-rules: rules RULES_ID of GPU\n"
       "...; symvtune V; CUDART_VERSION N; fits ...\"), which tells two libraries apart; exit 0,\n"
       "or 4 if it cannot be loaded.\n\n"
       "Options:\n"
       "  --lib DIR  the libsymv expected: DIR/lib/libsymv.so.0 (the output of `symvtune build`\n"
       "             or an installed prefix) or DIR/libsymv.so.0; a libsymv found elsewhere at\n"
       "             run time is reported (exit 15). The fixes name DIR's pkg-config file.\n"
       "  --keep     keep the temporary folder (call log, bindings) and print its name\n"
       "  --help     this text\n"
       "Exit status (the first that applies, in this order):\n"
       "   0  the calls reach libsymv (or the program made none, and they would)\n"
       "  11  libsymv is not loaded: not NEEDED (dropped by -Wl,--as-needed, or never linked)\n"
       "  12  libsymv is loaded but the calls bind to cuBLAS (libcublas comes first)\n"
       "  13  the program calls the legacy (cublas.h) or 64-bit-integer (_64) names, which libsymv\n"
       "      does not replace\n"
       "  14  the program's libcublas.so.N is not the libcublas.so.M libsymv was built against\n"
       "  15  the calls reach a libsymv at another path than --lib DIR's\n"
       "  16  libsymv has no rules for this GPU or routine (its log says so): calls go to cuBLAS\n"
       "  17  every call went to cuBLAS because the handle is in cuBLAS's default atomics mode\n"
       "      and libsymv's deterministic rules choose cuBLAS there\n"
       "  10  the program refers to none of the routines' names (nothing to judge)\n"
       "   2  usage; 4 the program could not be run, or a system error");
}

static int run(int argc, char **argv)
{
  static const struct option opts[] = {{"lib", required_argument, 0, CLI_LIB}, {"keep", no_argument, 0, 'k'},
                                       {"help", no_argument, 0, 'h'},      {0, 0, 0, 0}};
  /* options stop at the program's name */
  cli_opts o = {.cmd = "doctor", .options = opts, .help = help, .operands = CLI_OPERANDS_STOP};
  int keep = 0, c;
  while ((c = cli_getopt(&o, argc, argv)))
    if (c == 'k') keep = 1;
  if (o.status != CLI_GO_ON) return o.status;
  if (optind >= argc && !o.lib)
    return cli_usage_error("doctor", "no program to run (symvtune doctor [--lib DIR] -- ./app ARGS)");
  char want[PATH_MAX] = "";
  if (o.lib && doctor_expected_lib(o.lib, want))
    return cli_usage_error("doctor", "--lib %s: neither %s/lib/libsymv.so.0 nor %s/libsymv.so.0 is there", o.lib,
                           o.lib, o.lib);
  if (optind >= argc) return doctor_lib_report(want); /* --lib DIR alone: what the library holds */
  return doctor_run(argv + optind, o.lib, want, keep);
}

const symv_command cmd_doctor_entry = {"doctor", "run a program and say whether its calls reach libsymv, and why not",
                                       run};
