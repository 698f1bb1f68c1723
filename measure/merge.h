/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * merge.h - joining the databases of a sweep cut into shards (`symvtune
 * sweep --shard K/N`, run by separate processes, GPUs or cluster nodes)
 * into a new database that `symvtune sweep` then takes to its dense stage.
 * No GPU needed.
 *
 * Inputs: N database files. They must come from one GPU model (the device
 * fingerprint, as db_check_device compares it) and, where they are shards,
 * from one space (families, width, sizes, uplo, hot): each shard once, and
 * all of them unless incomplete; every candidate must lie in the shard its
 * database says (shard.h), in the cut of the space the shards make up or,
 * with shards missing, of the space rebuilt from the GPU's limits (the
 * families and width whose space has the recorded fingerprint); a set
 * whose space cannot be rebuilt is refused. Output: a new database holding
 * their candidates with their fate and timings, and the cuBLAS baselines
 * (those of the first input that has them; the others' are compared with
 * them).
 * A candidate measured in two inputs is a conflict. Fits are not copied.
 *
 * Errors: MERGE_REFUSED (a foreign device, another space, a shard missing
 * or twice, a candidate outside its shard, an incomplete set whose space
 * cannot be rebuilt, conflicting measurements, pending candidates with
 * check_complete) and MERGE_ERROR (a database or system error), each after
 * a message on stderr; then nothing is left of the output file.
 */
#ifndef SYMV_MERGE_H
#define SYMV_MERGE_H
#include "../db/db.h"

/** Statuses of merge_shards: the command's exit statuses (cli.h). */
enum { MERGE_OK = 0, MERGE_REFUSED = 1, MERGE_ERROR = 4 };

typedef struct {
  int check_complete;       /* refuse when a candidate is left pending */
  int incomplete;           /* accept a set of shards with some missing (each still once) */
  int quiet;                /* no summary on stdout */
  const char *command_line; /* recorded as the merged database's sweep run */
} merge_opts;

/** merge_shards: joins the nin databases paths[0..nin) into the new
 *  database `path` (which must not exist, nor be one of the inputs), as
 *  the header says, and prints a summary (candidates by status, timings,
 *  the baselines' spread, the command for each routine's dense stage)
 *  unless o->quiet. Returns MERGE_OK, MERGE_REFUSED or MERGE_ERROR. */
int merge_shards(const char *path, char *const *paths, int nin, const merge_opts *o);

#endif
