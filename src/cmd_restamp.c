/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_restamp.c - `symvtune restamp`: after an edit to the kernel sources,
 * records today's code (symv_code_id) beside the candidates whose compiled
 * code the edit did not change, so that a database keeps the timings that
 * are still of today's kernels and only the changed ones are swept again.
 *
 * The code id hashes the text of a kernel file and of every header it
 * includes (gpu/compile.h), so an edit to a shared header, even one that
 * changes only SSYMV's path or a comment, makes every candidate that
 * includes it look measured with other sources. Here each such candidate
 * is proved unchanged or not: its recorded id must be the one the sources
 * of --was (the kernels/ folder of the tree the database was swept with)
 * make, and the PTX NVRTC makes of it from those sources must equal, byte
 * for byte, the PTX of today's embedded sources, for the database's GPU
 * (compute capability from its device row). Equal PTX is equal machine
 * code from the same ptxas, so the timings are of today's code. The work
 * is the sweep stage's sweep_restamp (measure/sweep_stage.h); this file
 * reads the options, opens the database and the old sources, and reports.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../db/db.h"
#include "cli.h"
#include "compile.h"
#include "sweep_stage.h"
#include "params.h"
#include "routine.h"
#include "symv_error.h"

static void help(void)
{
  puts("Usage: symvtune restamp --db FILE --was DIR [--routine LIST] [--dry-run] [--quiet]\n"
       "After an edit to the kernel sources, keeps the timings of the candidates whose code the\n"
       "edit did not change. The database records beside each candidate the identity of the\n"
       "kernel sources it was measured with (a hash of its kernel file and the headers that file\n"
       "includes); an edit to a shared header makes every candidate that includes it differ from\n"
       "this symvtune's sources, and `symvtune sweep` warns of them. For each such candidate,\n"
       "restamp checks that DIR's sources are the ones it was measured with (the same identity),\n"
       "compiles it from DIR's sources and from this symvtune's with NVRTC to PTX for the\n"
       "database's GPU, and where the two are the same byte for byte records this symvtune's\n"
       "identity instead: its timings are of today's code. The others are left as they are, to\n"
       "be swept again (scripts/forget-routine, then `symvtune sweep`). One transaction.\n\n"
       "Options:\n"
       "  --db FILE      the database (required)\n"
       "  --was DIR      the kernels/ folder of the sources the database was swept with (e.g.\n"
       "                 `git worktree add /tmp/old REV`, then /tmp/old/kernels)\n"
       "  --routine LIST routines, comma-separated, or all (" SYMV_ROUTINE_NAMES "; default all)\n"
       "  --dry-run      say what would be recorded; change nothing\n"
       "  --quiet        no progress output\n"
       "  --help         this text\n"
       "It prints one line per routine: the candidates already of today's sources, those\n"
       "restamped (the same PTX), those whose code changed, and those whose recorded sources are\n"
       "neither DIR's nor today's; or that it has no candidate with a recorded code (not swept\n"
       "in this database, or swept before the codes were recorded). While it compiles, a\n"
       "progress line per routine on standard error (--quiet: none).\n"
       "Exit status: 0, 2 usage, 4 error (DIR unreadable, a compilation that fails, a database\n"
       "error; nothing changed). Candidates whose code changed are not an error.");
}

static int run(int argc, char **argv)
{
  enum { OPT_WAS = 1, OPT_DRY, OPT_QUIET };
  static const struct option opts[] = {{"db", required_argument, 0, CLI_DB},
                                       {"was", required_argument, 0, OPT_WAS},
                                       {"routine", required_argument, 0, CLI_ROUTINES},
                                       {"dry-run", no_argument, 0, OPT_DRY},
                                       {"quiet", no_argument, 0, OPT_QUIET},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  cli_opts o = {.cmd = "restamp", .options = opts, .help = help, .need_db = 1};
  const char *was = NULL;
  int dry = 0, quiet = 0, c, named = 0;
  while ((c = cli_getopt(&o, argc, argv))) {
    if (c == OPT_WAS) was = optarg;
    else if (c == OPT_DRY) dry = 1;
    else if (c == OPT_QUIET) quiet = 1;
  }
  if (o.status != CLI_GO_ON) return o.status;
  if (!was || !*was) return cli_usage_error("restamp", "--was DIR is required (the kernels/ the database was swept with)");
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) named += o.routines[r];

  symv_source_set old;
  char err[1024] = "";
  int rc = symv_sources_load(was, &old, err, sizeof err);
  if (rc) {
    fprintf(stderr, "symvtune restamp: %s; nothing changed\n", err);
    return SYMV_EXIT_ERROR;
  }
  db *d;
  if (cli_open_db("restamp", o.db, dry ? DB_READONLY : 0, &d)) {
    symv_sources_free(&old);
    return SYMV_EXIT_ERROR;
  }
  db_device dev;
  if ((rc = db_get_device(d, &dev))) {
    fprintf(stderr, "symvtune restamp: %s: %s: %s; nothing changed\n", o.db,
            rc == SYMV_NOT_FOUND ? "no GPU recorded (nothing swept)" : symv_strerror(rc), db_errmsg(d));
    db_close(d);
    symv_sources_free(&old);
    return SYMV_EXIT_ERROR;
  }
  int status = SYMV_EXIT_OK, began = 0;
  if (!dry) {
    if (db_begin(d)) goto db_error;
    began = 1;
  }
  for (int i = 0; i < SYMV_ROUTINE_COUNT && status == SYMV_EXIT_OK; i++) {
    const symv_routine ro = symv_routine_order(i);
    if (named && !o.routines[ro]) continue;
    sweep_restamp_counts n;
    rc = sweep_restamp(d, ro, &old, dev.cc_major, dev.cc_minor, dry, quiet, &n, err, sizeof err);
    if (rc == SYMV_DB) goto db_error;
    if (rc) {
      fprintf(stderr, "symvtune restamp: %s; nothing changed\n", err);
      status = SYMV_EXIT_ERROR;
    } else if (n.current + n.restamped + n.changed + n.other) {
      printf("%s: %ld of today's sources, %ld %srestamped (the same PTX), %ld changed, %ld of other sources\n",
             symv_routine_name(ro), n.current, n.restamped, dry ? "to be " : "", n.changed, n.other);
    } else {
      printf("%s: no candidate with a recorded code (not swept in this database, or swept before the codes "
             "were recorded): nothing to restamp\n",
             symv_routine_name(ro));
    }
  }
  if (status != SYMV_EXIT_OK) {
    if (began) db_rollback(d);
    db_close(d);
    symv_sources_free(&old);
    return status;
  }
  if (began && db_commit(d)) goto db_error;
  symv_sources_free(&old);
  return db_close(d) ? SYMV_EXIT_ERROR : SYMV_EXIT_OK;

db_error:
  fprintf(stderr, "symvtune restamp: %s: %s; nothing changed\n", o.db, db_errmsg(d));
  if (began) db_rollback(d);
  db_close(d);
  symv_sources_free(&old);
  return SYMV_EXIT_ERROR;
}

const symv_command cmd_restamp_entry = {
    "restamp", "keep the timings of candidates whose code a kernel-source edit did not change", run};
