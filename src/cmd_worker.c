/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_worker.c - `symvtune worker`: the sweep's measuring process
 * (measure/worker.h, served by worker_serve). */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "worker.h"

static int run(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "--help")) {
    puts("Usage: symvtune worker\nThe sweep's measuring process, started by `symvtune sweep`; reads commands on\n"
         "standard input (see measure/worker.h). Not meant to be run by hand.");
    return SYMV_EXIT_OK;
  }
  return worker_serve() ? SYMV_EXIT_NO_GPU : SYMV_EXIT_OK;
}

const symv_command cmd_worker_entry = {"worker", "(internal) the sweep's measuring process", run};
