/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sweep_stage.h - the steps of the sweep stage of `symvtune sweep`
 * (doc/method.md section 4, steps 1-2), in the order the command takes
 * them:
 *
 *   sweep_stage_workers    a worker on each GPU, one GPU model, the database's
 *   sweep_stage_space      the tuning space, and this shard of it
 *   sweep_stage_record     its candidates in the database, those that
 *                          cannot run recorded invalid
 *   sweep_stage_baselines  cuBLAS at the representative sizes on every GPU
 *   sweep_stage_todo       the candidates still to measure
 *   sweep_measure          (sweep.h) each of them verified and timed
 *   sweep_stage_summary    what the database holds, on standard output
 *
 * Sizes n are in elements, times in microseconds. Every step reports its
 * errors on standard error as "symvtune sweep: ...", where it says so.
 */
#ifndef SYMV_SWEEP_STAGE_H
#define SYMV_SWEEP_STAGE_H

#include "../db/db.h"
#include "space.h"
#include "sweep.h"

/** sweep_stage_workers: starts a worker on each of the ndev GPUs devs
 *  (w[k] on devs[k], with the options o), checks that they are of one
 *  model and that the database was made on it (db_check_device; a foreign
 *  one is accepted with allow_foreign), then prints the database's warning,
 *  if any, and records the first GPU's copy rate. Errors, reported:
 *  SYMV_NO_DEVICE, SYMV_IO (a worker cannot be started), SYMV_DB_FOREIGN
 *  (two models, or the database's is another), db_check_device's. The
 *  workers started stay running on error: the caller stops them
 *  (sweep_worker_stop). */
int sweep_stage_workers(db *d, sweep_worker *w, int ndev, const int *devs, const sweep_opts *o, int allow_foreign);

/** sweep_stage_space: the tuning space of so on the GPU dev
 *  (symv_space_enumerate) for routine o->routine into *space (*nspace
 *  points); for shard k of n (n 0: the whole space) the shard of each point
 *  into *shard_of (NULL for the whole space), once the database is found to
 *  hold that shard of that space and nothing else (a shard's file holds
 *  that shard alone; a whole sweep is not continued in a shard's file, nor
 *  a shard in a whole sweep's); the shard is then recorded (db_put_shard).
 *  ns[0..nsizes) are the representative sizes (part of the space's
 *  fingerprint). The caller frees *space and *shard_of, on error too.
 *  Errors: symv_space_enumerate's (not reported); SYMV_INVALID_VALUE,
 *  SYMV_DB, SYMV_NO_MEMORY of the shard check, with *reported set to 1
 *  (a message on standard error, but for SYMV_NO_MEMORY). */
int sweep_stage_space(db *d, const char *path, const sweep_opts *o, const symv_space_opts *so,
                      const symv_device_info *dev, const int *ns, int nsizes, int k, int n, symv_params **space,
                      long *nspace, int **shard_of, int *reported);

/** sweep_stage_record: records the points of space in shard k
 *  (shard_of[i] == k; every point where shard_of is NULL) as candidates of
 *  routine o->routine (pending where new), and those that cannot run on
 *  dev (symv_static_filter) as invalid (resources) where still pending; with
 *  the environment variable SYMVTUNE_TEST_FAULTS set and k 0, the test
 *  family's two candidates too (one faults, one hangs). One transaction.
 *  Says the counts on standard error unless o->quiet (n: the number of
 *  shards, 0 for the whole space). Errors: SYMV_DB (reported; nothing
 *  recorded). */
int sweep_stage_record(db *d, const sweep_opts *o, symv_params *space, long nspace, const int *shard_of, int k, int n,
                       const symv_device_info *dev);

/** sweep_stage_todo: the candidates of routine o->routine the sweep stage
 *  measures into *list (*count of them; the caller frees *list): the
 *  pending ones, then the valid ones (each in id order) without a sweep-stage
 *  measurement of o->uplo and o->hot at one of the representative sizes
 *  ns[0..nsizes): a sweep of uplo U (or --hot) after one of L times again
 *  in U every candidate the first made valid, which sweep_measure then
 *  measures at the sizes they lack. Errors: SYMV_DB, SYMV_NO_MEMORY (not
 *  reported). */
int sweep_stage_todo(db *d, const sweep_opts *o, const int *ns, int nsizes, db_candidate **list, size_t *count);

/** sweep_put_code: records beside candidate c, which is being settled,
 *  the identity of the code today's sources make of it (symv_code_id,
 *  db_put_kernel_code), in the caller's transaction. A point the sources
 *  cannot name is left without one. Errors: SYMV_DB (not reported). */
int sweep_put_code(db *d, const db_candidate *c);

/** sweep_stale_codes: how many of routine ro's candidates were settled
 *  with code other than today's sources make (their recorded
 *  symv_code_id differs); -1 on a database error (not reported). */
long sweep_stale_codes(db *d, symv_routine ro);

/** What sweep_restamp found among a routine's recorded codes. */
typedef struct {
  long current;   /* already today's code id */
  long restamped; /* the old sources' id, the same PTX as today's: recorded as today's (or, dry, would be) */
  long changed;   /* the old sources' id, PTX other than today's: left as they are */
  long other;     /* of neither the old sources nor today's (or a point today's sources cannot name) */
} sweep_restamp_counts;

/** sweep_restamp: for each of routine ro's candidates in d whose recorded
 *  code id (symv_code_id) is not today's: if it is the id the sources of
 *  `was` make, compiles the point from `was` and from today's embedded
 *  sources to PTX for compute capability cc_major.cc_minor
 *  (symv_compile_ptx_in) and, where the two are byte for byte the same,
 *  records today's id (db_put_kernel_code), unless dry. Points of one
 *  kernel (MULTIPLICITY apart) are compiled once. In the caller's
 *  transaction. Counts into *c. Progress over the candidates not of
 *  today's code on standard error ("restamp ROUTINE", core/progress.h)
 *  unless quiet. Errors: SYMV_DB (db_errmsg says why), a compilation's
 *  status (SYMV_COMPILE, SYMV_NO_MEMORY, ...; err names the point and
 *  gives NVRTC's log), SYMV_NO_MEMORY (err says so). */
int sweep_restamp(db *d, symv_routine ro, const symv_source_set *was, int cc_major, int cc_minor, int dry, int quiet,
                  sweep_restamp_counts *c, char *err, size_t errlen);

/** sweep_stage_baselines: sweep_baselines_each at the sweep stage's sizes
 *  ns[0..nsizes) on the ndev workers w; btimes (ndev x 2 x nsizes) as
 *  sweep_baselines_each's times, and wbase[k * nsizes + i] the faster
 *  cuBLAS mode of worker k at ns[i] (microseconds), for pruning.
 *  Errors: SYMV_IO, SYMV_DB (not reported). */
int sweep_stage_baselines(db *d, sweep_worker *w, int ndev, const sweep_opts *o, const int *ns, int nsizes,
                          double *btimes, double *wbase);

/** sweep_stage_summary: the sweep stage's summary on standard output: the
 *  GPU, the candidates by status and reason, this run's times (wall
 *  seconds; st), the GPUs side by side (ndev > 1; btimes as
 *  sweep_baselines_each's), and at each size of ns both cuBLAS modes and
 *  the fastest candidate at (uplo, hot). Prints what it can read; database
 *  errors end it silently. */
void sweep_stage_summary(db *d, symv_routine ro, const sweep_worker *w, int ndev, const double *btimes,
                         const sweep_stats *st, const int *ns, int nsizes, char uplo, int hot, double wall);

#endif
