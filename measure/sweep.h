/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sweep.h - the parent side of measuring: a worker process (worker.h) that
 * is restarted when a candidate faults or hangs, and the loop that measures
 * a list of candidates at a list of sizes into the database, resumably.
 * Used by `symvtune sweep` for both its stages (sweep, dense).
 */
#ifndef SYMV_SWEEP_H
#define SYMV_SWEEP_H

#include <sys/types.h>
#include "../db/db.h"
#include "../sieve/sieve.h"
#include "gpu.h"
#include "params.h"
#include "progress.h"

/** Options of a measuring run. */
typedef struct {
  symv_routine routine;  /* what is measured: every candidate's and baseline's routine */
  int device;            /* CUDA device */
  char uplo;             /* 'L' or 'U' */
  int hot;               /* 1: A stays in L2 */
  int batches;           /* timed batches per measurement */
  double tol;            /* largest scaled residual accepted */
  double timeout_s;      /* a candidate silent this long is killed (seconds) */
  double prune;          /* time fully only what is within prune x the best so far (0: all) */
  int max_attempts;      /* a candidate that killed the worker this often is invalid (fault) */
  int jobs;              /* compiling threads; 0: none, the worker compiles */
  int quiet;             /* no progress output */
} sweep_opts;

/** A running worker process, on one GPU. */
typedef struct {
  pid_t pid;             /* 0: none */
  int device;            /* the CUDA device it was started on */
  long measured;         /* candidates it measured valid in this run */
  int to, from;          /* pipe ends: its stdin, its stdout */
  char buf[65536];       /* bytes read, not yet returned as lines */
  size_t len;
  symv_device_info dev;  /* as the worker reported it */
  double copy_gbs;       /* device-to-device copy rate it measured, GB/s */
  int restarts;          /* workers started after the first */
} sweep_worker;

/** Totals of a run, for the summary. */
typedef struct {
  double compile_s;      /* wall time the compile threads were busy */
  double compile_cpu_s;  /* sum of NVRTC times */
  double measure_s;      /* wall time spent waiting for the worker */
  long compiled, cached; /* codes compiled, codes found in the cache */
  long measured;         /* candidates measured in this run */
} sweep_stats;

/** sweep_worker_start: starts `symvtune worker` (or the program named by
 *  the environment variable SYMVTUNE_WORKER, which must speak the same
 *  protocol, worker.h: tests use a fake one) and initialises it on
 *  o->device. Errors: SYMV_NO_DEVICE, SYMV_IO (cannot start or talk to it). */
int sweep_worker_start(sweep_worker *w, const sweep_opts *o);

/** sweep_worker_stop: asks the worker to quit, or kills it. */
void sweep_worker_stop(sweep_worker *w);

/** sweep_device_fingerprint: the db_device of the worker's GPU. */
void sweep_device_fingerprint(const sweep_worker *w, db_device *out);

/** sweep_fingerprint_of: the db_device of GPU d as the sweep records it
 *  (its limits, the driver, runtime and NVRTC versions), with copy rate
 *  copy_gbs (GB/s; 0: not measured). */
void sweep_fingerprint_of(const symv_device_info *d, double copy_gbs, db_device *out);

/** sweep_limits_of: the limits of the GPU whose fingerprint is fp, as far
 *  as it records them (name, compute capability, SM count, shared memory
 *  per SM and opt-in per block, registers, blocks and threads per SM, L2,
 *  memory clock and bus, driver and runtime); the rest of *d is 0. Enough
 *  for symv_space_enumerate, which is how `merge` rebuilds a sweep's space
 *  without the GPU; not for symv_static_filter. */
void sweep_limits_of(const db_device *fp, symv_device_info *d);

/** sweep_worker_times: has worker w time one kernel at the nsizes sizes ns,
 *  nothing stored: `what` is "base cublas", "base cublas_atomics" or
 *  "cand P" (P as symv_params_format writes it; the worker compiles it,
 *  verifies it at each size against cuBLAS, and times it fully). The median
 *  time per call of size ns[i] goes to median_us[i], microseconds (NAN where
 *  none came); *calls (may be NULL) grows by the timed calls behind them
 *  (batches x calls per batch). Errors: SYMV_INVALID_VALUE (the worker said
 *  the candidate is invalid, or an error: its line in err), SYMV_TIMEOUT
 *  (silent past its limit: restart it), SYMV_IO (it died or talked nonsense:
 *  restart it). */
int sweep_worker_times(sweep_worker *w, const sweep_opts *o, const char *what, const int *ns, int nsizes,
                       double *median_us, long long *calls, char *err, size_t errlen);

/** sweep_worker_lib_times: as sweep_worker_times, for libsymv at libpath
 *  (a libsymv.so that `symvtune build` made; at most 4000 bytes, no line break)
 *  called through the routine's entry point with a cuBLAS handle in
 *  CUBLAS_ATOMICS_NOT_ALLOWED (deterministic) or ALLOWED: verified against
 *  cuBLAS and timed as a candidate (the GPU's time, charged the launches of
 *  the kernel it ran). host_us[i] (may be NULL): the least host time to
 *  queue one call of size ns[i], microseconds (dispatch included);
 *  kernel + i * kernel_len (may be NULL): what it ran there (symvLastKernel);
 *  NAN and "" where none came. Errors as sweep_worker_times (a library that
 *  cannot be loaded or does not export the routine: SYMV_INVALID_VALUE, the
 *  worker's line in err; a path of a line break: SYMV_INVALID_VALUE). */
int sweep_worker_lib_times(sweep_worker *w, const sweep_opts *o, const char *libpath, int deterministic,
                           const int *ns, int nsizes, double *median_us, double *host_us, char *kernel,
                           size_t kernel_len, char *err, size_t errlen);

/** SWEEP_FLOOR_NAME: the baseline name of the floor (gpu/floor.h: the least
 *  time of a read-only kernel streaming A's stored triangle once) at each
 *  dense size, in the database's baseline table. */
#define SWEEP_FLOOR_NAME "floor"

/** sweep_baselines: measures cuBLAS (atomics off: "cublas", on:
 *  "cublas_atomics") at the sizes not yet in the database, and, for the
 *  dense stage, the floor (SWEEP_FLOOR_NAME; the winning shapes logged on
 *  standard error unless quiet). Errors: SYMV_IO, SYMV_DB. */
int sweep_baselines(db *d, sweep_worker *w, const sweep_opts *o, const int *ns, int nsizes, db_stage stage);

/** sweep_baselines_each: sweep_baselines on the first of the nworkers
 *  workers w (into the database), and both cuBLAS modes at every size on
 *  each of the others at the same time (not stored: the database holds one
 *  GPU's baselines). times, if not NULL, receives nworkers x 2 x nsizes
 *  median times (microseconds; [(k * 2 + mode) * nsizes + i], mode 0
 *  "cublas", 1 "cublas_atomics"; NAN where missing), worker 0's read back
 *  from the database. Errors: SYMV_IO, SYMV_DB. */
int sweep_baselines_each(db *d, sweep_worker *w, int nworkers, const sweep_opts *o, const int *ns, int nsizes,
                         db_stage stage, double *times);

/** What sweep_measure measures, on which workers, and where it puts it. */
typedef struct {
  db *d;                     /* the database: read for what is left to do, written with every result */
  sweep_worker *w;           /* nworkers started workers, one per GPU (w[0]'s GPU compiles); restarted in place */
  int nworkers;              /* workers in w, 1..64 */
  const sweep_opts *o;       /* the run's options (routine, uplo, hot, prune, timeout_s, max_attempts, jobs, ...) */
  const double *worker_base; /* nworkers x nsizes, [k * nsizes + i]: GPU k's faster cuBLAS time at ns[i], us
                                (row 0 unused; 0 or less: none); NULL: every GPU's from the database */
  const db_candidate *cands; /* the candidates, dealt out in this order */
  long ncand;                /* candidates in cands */
  const int *ns;             /* the sizes to measure at, n (matrix order) */
  int nsizes;                /* sizes in ns */
  db_stage stage;            /* DB_STAGE_SWEEP or DB_STAGE_DENSE: which stage's measurements */
  volatile int *interrupted; /* set nonzero (a signal handler) to stop early */
  sweep_stats *st;           /* the run's totals, added to */
  symv_progress *prog;       /* advanced by one for each candidate dealt with */
} sweep_measure_args;

/** sweep_measure: verifies and times every candidate of a->cands that is
 *  still pending (status DB_PENDING in the database; stage DB_STAGE_SWEEP:
 *  at every size a->ns) or that lacks a measurement of this stage, o->uplo
 *  and o->hot at one of the sizes a->ns (stage DB_STAGE_DENSE, and a valid
 *  candidate in stage DB_STAGE_SWEEP: at those sizes), one transaction per
 *  candidate, compiling in o->jobs
 *  threads ahead of the workers (none: o->jobs 0). A candidate measured
 *  stores its measurements (median time per call, us, at each size the
 *  worker timed) and, in the sweep stage where it was pending, its status
 *  valid with its NVRTC time (ms) and registers per thread; a candidate
 *  rejected stores its status invalid with a reason and a detail (one
 *  valid before too: wrong or faulting in this uplo, it is wrong). The candidates are dealt out
 *  in order to the nworkers workers w (1..64, one per GPU) as each becomes
 *  free; the parent alone writes the database. Pruning on worker k compares
 *  with that GPU's own fastest times: its faster cuBLAS mode
 *  (worker_base[k * nsizes + i], microseconds, for k >= 1; worker 0's and,
 *  with worker_base NULL, everyone's come from the database's baselines),
 *  the database's times of earlier runs, and what it measured itself. A
 *  worker that faults, dies or hangs (o->timeout_s seconds without a line)
 *  has its candidate recorded invalid and is restarted on its GPU; one dealt
 *  out more than o->max_attempts times without a result (each time the
 *  whole sweep stopped while it was measured) is recorded invalid (fault), a
 *  dense-stage attempt counted only while the candidate has no dense sample
 *  (the adaptive dense stage deals each champion once per round); one that
 *  cannot be restarted gets no more work, and the others go on. Stops
 *  early, with everything measured so far committed, when *a->interrupted
 *  becomes nonzero. Adds to *a->st: the time candidates were in flight on
 *  the workers (s; with several workers, the measuring loop's wall time),
 *  the compile threads' wall and NVRTC time (s), the codes compiled and
 *  found cached, the candidates measured valid; and to each worker's
 *  measured count.
 *  Errors: SYMV_INTERRUPTED, SYMV_IO (no worker left), SYMV_DB,
 *  SYMV_NO_MEMORY, SYMV_INVALID_VALUE (nworkers < 1). */
int sweep_measure(const sweep_measure_args *a);

/** SWEEP_DET_TOP: the candidates of the deterministic families (lu, panel,
 *  pipe_det) that survive by their points among themselves alone, besides
 *  the survivors of the whole ranking (at most T). The deterministic rules
 *  choose among these families only, and at the sizes where pipe wins the
 *  whole ranking their best earn no points there: on an H100 the panel
 *  candidate that served n = 500..1400 in one sweep was not a champion in
 *  the next, and the deterministic rules lost 10-30% there. 6 since
 *  pipe_det has units (MX 3..5): with 4, its units took the places of the
 *  tiles that win n = 1,000..4,000 (an H100 sweep), and the deterministic
 *  rules lost 10-30% there again. */
#define SWEEP_DET_TOP 6

/** sweep_sieve_family: the family candidate c counts in for the sieve's
 *  rule that every family's best survives (sieve_rank): its kernel family,
 *  but for pipe_det's MX 3..5 (units of BLOCK_SIZE columns, fast at large
 *  n), which count as a family of their own beside pipe_det's tiles (fast
 *  at n = 1,000..4,000), so that the best of each survives. */
int sweep_sieve_family(const db_candidate *c);

/** sweep_rank: the champion ranking behind sweep_champions (doc/method.md
 *  section 4, steps 3-4): the sweep-stage median times (microseconds) of
 *  every valid candidate of routine ro at the nsizes sizes ns (db_time_table, NAN where
 *  not measured) into *tt, and sieve_rank's points, order and survivors
 *  over them (K, T as sieve_rank; each candidate's family is its sieve
 *  family, sweep_sieve_family, so every family's best survives), then the first
 *  min(SWEEP_DET_TOP, T) of the deterministic families ranked among
 *  themselves (and each such sieve family's best, and the fastest of them
 *  at each size) not already survivors,
 *  appended to the survivors and counted in r->added_det, into *r, whose
 *  candidate indices are rows of tt. Release with db_times_free and
 *  sieve_free. Errors: SYMV_NOT_FOUND (nothing valid), SYMV_DB,
 *  SYMV_NO_MEMORY, SYMV_INVALID_VALUE; on error nothing is left allocated. */
int sweep_rank(db *d, symv_routine ro, const int *ns, int nsizes, char uplo, int hot, int K, int T, db_times *tt, sieve_result *r);

/** sweep_champions: the champions of the sweep stage (doc/method.md section 4,
 *  steps 3-4): valid candidates ranked by champion points over the sizes ns
 *  (sieve_rank with K, T), the top T plus the best of each family with none
 *  among them, in rank order, then the deterministic ones sweep_rank adds,
 *  as a malloc'd array. Errors: SYMV_NOT_FOUND (nothing valid),
 *  SYMV_DB, SYMV_NO_MEMORY. */
int sweep_champions(db *d, symv_routine ro, const int *ns, int nsizes, char uplo, int hot, int K, int T, db_candidate **out,
                    long *count);

/** sweep_sizes_text: the sizes ns[0..nsizes) as "256,768,..." into buf
 *  (len bytes, len >= 1), cut short where they do not fit. */
void sweep_sizes_text(const int *ns, int nsizes, char *buf, size_t len);

#endif
