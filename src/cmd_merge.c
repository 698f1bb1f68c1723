/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_merge.c - `symvtune merge`: the options; the merge is merge_shards
 * (measure/merge.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "merge.h"

_Static_assert((int)MERGE_OK == (int)SYMV_EXIT_OK && (int)MERGE_REFUSED == (int)SYMV_EXIT_FAIL &&
                   (int)MERGE_ERROR == (int)SYMV_EXIT_ERROR,
               "merge_shards's statuses are the command's exit statuses");

#define MAX_INPUTS 4096

static void help(void)
{
  puts("Usage: symvtune merge --db OUT IN.db...\n"
       "Joins databases of one GPU model into OUT, a new database: their candidates with\n"
       "their fate and timings, and the cuBLAS baselines (those of the first input that has\n"
       "them; the others' are compared with them). Made for the shards of one sweep\n"
       "(symvtune sweep --shard K/N): they must come from the same space (families, width,\n"
       "sizes, uplo, hot and GPU model), hold each shard once, and, unless --incomplete, all\n"
       "N of them; every candidate is checked to lie in the shard its database says (with\n"
       "shards missing, in the space rebuilt from the GPU model's limits: the families and\n"
       "width whose space has the recorded fingerprint; a set whose space cannot be rebuilt\n"
       "is refused). A candidate measured in two inputs is a conflict. Fits are not copied.\n"
       "Then `symvtune sweep --db OUT` with the shards' options runs the dense stage.\n"
       "Needs no GPU. Nothing is left of OUT when the merge is refused.\n\n"
       "Options:\n"
       "  --db OUT          the merged database (must not exist)\n"
       "  --check-complete  also require that no candidate is left pending (every input\n"
       "                    finished its sweep stage)\n"
       "  --incomplete      accept a set of shards with some missing (each still once)\n"
       "  --quiet           no summary\n"
       "  --help            this text\n"
       "Exit status: 0 merged, 1 refused (foreign device, other space, a shard missing or\n"
       "twice, a candidate outside its shard, an incomplete set whose space cannot be\n"
       "rebuilt, conflicting measurements, pending candidates with --check-complete),\n"
       "2 usage, 4 database or system error.");
}

static int run(int argc, char **argv)
{
  static const struct option opts[] = {{"db", required_argument, 0, CLI_DB}, {"check-complete", no_argument, 0, 'c'},
                                       {"incomplete", no_argument, 0, 'i'}, {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
  cli_opts o = {.cmd = "merge", .options = opts, .help = help, .operands = CLI_OPERANDS};
  int check_complete = 0, incomplete = 0, quiet = 0, c;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 'c': check_complete = 1; break;
    case 'i': incomplete = 1; break;
    case 'q': quiet = 1; break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  if (!o.db) return cli_usage_error("merge", "--db OUT is required");
  int nin = argc - optind;
  if (nin < 1) return cli_usage_error("merge", "no input databases");
  if (nin > MAX_INPUTS) return cli_usage_error("merge", "more than %d inputs", MAX_INPUTS);
  char *const *paths = argv + optind;
  struct stat sb;
  if (lstat(o.db, &sb) == 0 || errno != ENOENT)
    return cli_usage_error("merge", "%s exists: merge writes a new database (remove it, or name another)", o.db);
  for (int i = 0; i < nin; i++)
    if (!strcmp(paths[i], o.db)) return cli_usage_error("merge", "%s is both an input and the output", o.db);

  char optline[512];
  cli_command_line(argc, argv, optline, sizeof optline);
  const merge_opts mo = {.check_complete = check_complete, .incomplete = incomplete, .quiet = quiet,
                         .command_line = optline};
  return merge_shards(o.db, paths, nin, &mo);
}

const symv_command cmd_merge_entry = {"merge", "join the databases of a sweep's shards (one GPU model) into one", run};
