/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - symvtune's entry point: dispatches to the subcommand table. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "config.h"

extern const symv_command cmd_build_entry, cmd_bench_entry, cmd_tune_entry;
extern const symv_command cmd_rank_entry, cmd_fit_entry, cmd_rules_entry, cmd_plot_entry;
extern const symv_command cmd_devices_entry, cmd_check_entry, cmd_time_entry, cmd_sweep_entry, cmd_worker_entry;
extern const symv_command cmd_merge_entry, cmd_validate_entry, cmd_doctor_entry, cmd_export_entry, cmd_restamp_entry;

/* In the order of the pipeline: look, verify, measure (and merge shards), rank, fit, build, time; then
 * doctor, for the programs that use the library. */
const symv_command *const symv_commands[] = {
  &cmd_devices_entry, &cmd_check_entry, &cmd_time_entry,  &cmd_sweep_entry, &cmd_merge_entry, &cmd_rank_entry,
  &cmd_fit_entry,     &cmd_rules_entry, &cmd_plot_entry,  &cmd_build_entry, &cmd_export_entry, &cmd_bench_entry, &cmd_validate_entry,
  &cmd_tune_entry,    &cmd_restamp_entry, &cmd_doctor_entry, &cmd_worker_entry, NULL,
};

const symv_command *cli_lookup(const char *name)
{
  for (int i = 0; symv_commands[i]; i++)
    if (strcmp(symv_commands[i]->name, name) == 0) return symv_commands[i];
  return NULL;
}

static void usage(FILE *f)
{
  fprintf(f,
          "Usage: symvtune COMMAND [OPTIONS]\n"
          "Empirical autotuner for SYMV and HEMV (y := alpha*A*x + beta*y, A symmetric or Hermitian;\n"
          "SSYMV, DSYMV, CSYMV, ZSYMV, CHEMV, ZHEMV) on NVIDIA GPUs.\n\n"
          "Commands:\n");
  for (int i = 0; symv_commands[i]; i++) fprintf(f, "  %-10s %s\n", symv_commands[i]->name, symv_commands[i]->summary);
  fprintf(f, "\n'symvtune COMMAND --help' describes a command's options; man symvtune(1) has the details.\n");
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage(stderr);
    return SYMV_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return SYMV_EXIT_OK;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("symvtune %s\n", PACKAGE_VERSION);
    return SYMV_EXIT_OK;
  }
  const symv_command *c = cli_lookup(argv[1]);
  if (!c) {
    fprintf(stderr, "symvtune: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return SYMV_EXIT_USAGE;
  }
  return c->run(argc - 1, argv + 1);
}
