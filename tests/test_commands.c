/* SPDX-License-Identifier: BSD-3-Clause */
/* test_commands.c - cli_lookup (cli.h) for the test programs that run
 * commands which find others by name (tune its stages, cli_each_routine the
 * command per routine): each such program defines its own symv_commands,
 * the commands it links, in place of src/main.c's table. */
#include <string.h>
#include "cli.h"

const symv_command *cli_lookup(const char *name)
{
  for (int i = 0; symv_commands[i]; i++)
    if (!strcmp(symv_commands[i]->name, name)) return symv_commands[i];
  return NULL;
}
