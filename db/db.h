/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * db.h - symvtune's results database (SQLite).
 *
 * One file per GPU holds everything the pipeline learns on it, for every
 * routine it tunes (ssymv, dsymv, csymv, zsymv, chemv, zhemv): the device
 * fingerprint (one per file: a database is one GPU), every candidate of each
 * routine's space with its fate (valid, or invalid and why), the timings of
 * each candidate and of each routine's cuBLAS baselines, the fits and their
 * dispatch rules, and a log of sweep runs. Candidates, baselines and fits are
 * keyed by routine; timings, curves and rules belong to a candidate or a fit
 * and so to its routine. Each stage reads what the previous one wrote, so the
 * sweep can be interrupted and resumed and the later stages rerun alone.
 *
 * Durability: the file is in WAL mode, and the sweep writes each candidate's
 * results inside one transaction (db_begin .. db_commit), so a crash loses at
 * most the candidate in flight. db_start_attempt commits on its own, before
 * the worker starts, so a candidate that kills the worker leaves a trace.
 *
 * Units: times in microseconds, bandwidth in GB/s (1e9 bytes per second),
 * rates in GFLOPS (1e9 flops per second), sizes n in matrix elements.
 *
 * Every function returns 0 on success or a negative status of symv_error.h;
 * on error db_errmsg() says which statement failed and why. A handle is not
 * safe for use by two threads at once; processes may share a file.
 */
#ifndef SYMV_DB_H
#define SYMV_DB_H

#include <stddef.h>

#include "params.h"

/* PRAGMA application_id of every symvtune database: "SYMV" in ASCII. */
#define DB_APPLICATION_ID 0x53594D56

/* Schema version this program writes (PRAGMA user_version). Version 4
 * keys candidates, baselines and fits by routine; version 5 gives each fit
 * an atomics class ('any' or 'deterministic'); version 6 adds validation
 * runs (`symvtune validate`); version 7 adds bench runs (`symvtune bench
 * --db`); db_open migrates a file of version 1 to 6 (rows of 3 and earlier
 * become routine "dsymv", fits of 4 and earlier class 'any'). */
#define DB_SCHEMA_VERSION 7

/* Limits of the integers a database holds, beside those of a candidate
 * (core/params.h: SYMV_BLOCK_SIZE_MAX, SYMV_UX_MAX, SYMV_MULTIPLICITY_MAX;
 * kernels/symv_mx.h: SYMV_MX_COUNT). Writers refuse values outside them and
 * readers report them as SYMV_DB_CORRUPT: every integer is read as 64 bits
 * and checked, so that a hand-edited 2^32 + 128 is never taken for 128. */
#define DB_N_MAX (1 << 30)  /* largest matrix order n, elements (timings, fits, rules) */
#define DB_REGS_MAX 255     /* most registers per thread an NVIDIA GPU gives */

/* Flags of db_open. */
#define DB_CREATE   0x1 /* create the file when it does not exist */
#define DB_READONLY 0x2 /* open for reading only (rank, rules, plot, build) */

typedef struct db db;

/* Routines cross this interface as the registry's symv_routine
 * (core/params.h, core/routine.h); the database stores their names in lower
 * case ("dsymv"), and a stored name this program does not know is
 * SYMV_DB_CORRUPT. A routine filter of a list or count is a symv_routine,
 * or DB_ANY_ROUTINE for every routine. */
#define DB_ANY_ROUTINE SYMV_ROUTINE_COUNT

/* Kernel families likewise cross it as the registry's symv_family
 * (core/params.h), stored by name ("pipe_det"); DB_ANY_FAMILY is the
 * filter for every family. */
#define DB_ANY_FAMILY SYMV_FAMILY_COUNT

/* Status of a candidate: the order of the X-macro is the enum's order. */
#define DB_STATUS_MAP(XX) \
  XX(PENDING, "pending")  \
  XX(VALID,   "valid")    \
  XX(INVALID, "invalid")

typedef enum {
#define DB_XX_ENUM(name, text) DB_##name,
  DB_STATUS_MAP(DB_XX_ENUM)
#undef DB_XX_ENUM
  DB_STATUS_COUNT
} db_status;

/* Why a candidate is invalid. DB_REASON_NONE is for pending and valid ones. */
#define DB_REASON_MAP(XX)                                                    \
  XX(NONE,      "")          /* not invalid */                               \
  XX(RESOURCES, "resources") /* needs more shared memory/registers/threads */ \
  XX(OCCUPANCY, "occupancy") /* achieved blocks per SM != MULTIPLICITY */    \
  XX(COMPILE,   "compile")   /* NVRTC failed */                              \
  XX(LAUNCH,    "launch")    /* launch returned an error */                  \
  XX(FAULT,     "fault")     /* faulted, or crashed the worker repeatedly */ \
  XX(TIMEOUT,   "timeout")   /* exceeded its time limit */                   \
  XX(WRONG,     "wrong")     /* scaled residual too large */

typedef enum {
#define DB_XX_ENUM(name, text) DB_REASON_##name,
  DB_REASON_MAP(DB_XX_ENUM)
#undef DB_XX_ENUM
  DB_REASON_COUNT
} db_reason;

/* Which stage of the pipeline a timing belongs to (method section 4). */
typedef enum {
  DB_STAGE_SWEEP, /* "sweep": every valid candidate at a few sizes */
  DB_STAGE_DENSE, /* "dense": the champions across the whole range */
  DB_STAGE_COUNT
} db_stage;

/* The GPU a database was made on. Name, compute capability and SM count
 * decide which kernel wins; the rest is recorded for the report. */
typedef struct db_device {
  char name[256];            /* cudaDeviceProp.name, e.g. "NVIDIA H100 80GB HBM3" */
  int cc_major;              /* compute capability, major (9 for sm_90) */
  int cc_minor;              /* compute capability, minor */
  int sm_count;              /* streaming multiprocessors */
  long long l2_bytes;        /* L2 cache size, bytes */
  int mem_clock_khz;         /* peak memory clock, kHz */
  int bus_width_bits;        /* global memory bus width, bits */
  int smem_per_sm;           /* shared memory per SM, bytes */
  int smem_per_block_optin;  /* shared memory per block with opt-in, bytes */
  int regs_per_sm;           /* 32-bit registers per SM */
  int max_blocks_per_sm;     /* resident blocks per SM, at most */
  int max_threads_per_sm;    /* resident threads per SM, at most */
  int driver_version;        /* cudaDriverGetVersion, e.g. 12040 */
  int runtime_version;       /* cudaRuntimeGetVersion, e.g. 12020 */
  int nvrtc_major;           /* nvrtcVersion, major */
  int nvrtc_minor;           /* nvrtcVersion, minor */
  double copy_gbs;           /* measured device-to-device copy bandwidth, GB/s; 0 until measured */
} db_device;

/* One point of the tuning space and what became of it. */
typedef struct db_candidate {
  long long id;              /* row id, assigned by the database */
  symv_params p;             /* the point: routine, family, BLOCK_SIZE, UX, MULTIPLICITY, MX
                                (each in 0..its limit above; symv_params_check is stricter) */
  db_status status;          /* DB_PENDING, DB_VALID or DB_INVALID */
  db_reason reason;          /* why invalid; DB_REASON_NONE otherwise */
  char detail[512];          /* free text (compiler log excerpt, residual...); may be "" */
  double compile_ms;         /* compile time, milliseconds; 0 if not compiled */
  int regs_per_thread;       /* registers per thread from the compiled kernel; 0 if unknown */
  int attempts;              /* times a worker started measuring it */
} db_candidate;

/* The timing of one (n, uplo, hot, stage) point, for a candidate or a
 * baseline (of one routine). Statistics are over `batches` timed batches of
 * `calls_per_batch` calls each, per call. */
typedef struct db_measurement {
  int n;                     /* matrix order, elements */
  char uplo;                 /* 'L' or 'U': the stored triangle */
  int hot;                   /* 1: same A every call (L2 may hold it); 0: cold, rotated copies */
  db_stage stage;            /* DB_STAGE_SWEEP or DB_STAGE_DENSE */
  double median_us;          /* median time per call, microseconds */
  double min_us;             /* fastest batch, per call, microseconds */
  double max_us;             /* slowest batch, per call, microseconds */
  int batches;               /* timed batches */
  int calls_per_batch;       /* calls in each batch */
  double gflops;             /* flops of one call / median, GFLOPS (2 n^2 for dsymv) */
  double gbs;                /* matrix traffic / median, GB/s (8 n(n+1)/2 bytes for dsymv) */
  double residual;           /* scaled residual against the reference (dimensionless) */
} db_measurement;

/* Candidates counted by status and, for invalid ones, by reason. */
typedef struct db_counts {
  long long total;                       /* all candidates */
  long long by_status[DB_STATUS_COUNT];  /* indexed by db_status */
  long long by_reason[DB_REASON_COUNT];  /* invalid ones, indexed by db_reason; [NONE] is 0 */
} db_counts;

/* Median times of one routine's valid candidates at a list of sizes, for
 * the champion ranking (method section 4, step 3). Free with db_times_free. */
typedef struct db_times {
  size_t ncand;              /* rows: the routine's valid candidates, in id order */
  size_t nsizes;             /* columns: the sizes asked for, in the order given */
  int *n;                    /* nsizes sizes, copied from the request */
  db_candidate *cand;        /* ncand candidates */
  double *median_us;         /* ncand x nsizes, row-major, microseconds; NAN where not measured */
} db_times;

/* ---- Opening and closing ------------------------------------------------ */

/*
 * db_open: open the database at `path`, flags a bitwise or of DB_CREATE and
 * DB_READONLY (not both).
 *
 * An older schema (version 1, 2 or 3) is migrated to DB_SCHEMA_VERSION; every
 * row keeps its values and its id, and the rows of version 3 and earlier
 * (which knew one routine) become routine "dsymv". A writable open migrates
 * the file in one transaction: if the migration fails (e.g. a timing or rule
 * names a candidate that is not there: SYMV_DB_CORRUPT), the file is left
 * byte for byte as it was. A read-only open never writes the file: it reads
 * the whole file into a private in-memory copy and migrates that, so the
 * handle holds the file as it was at the open (no later writes of other
 * processes are seen) and takes about the file's size in memory; write a
 * file once (e.g. `symvtune fit`) to migrate it for good.
 *
 * A read-only open reads a database in WAL mode in a folder it cannot write
 * (where SQLite cannot create the -shm file) by opening it immutable, unless
 * its -wal file holds commits (they could not be read: SYMV_IO, with a
 * message saying so). Where the file and its folder can be written, the
 * handle is a read-write connection that refuses writes (PRAGMA
 * query_only), so that closing it removes the -wal and -shm files reading
 * made, as a read-only connection cannot.
 *
 * The file is checked before anything is written: a file that is not an
 * SQLite database, an SQLite database of another application (application_id,
 * or tables this schema does not have), or one that fails PRAGMA quick_check
 * is refused and left byte for byte as it was.
 *
 * *out is set even on failure (NULL only when memory runs out) so that
 * db_errmsg can say why; the caller always db_closes it.
 *
 * Errors: SYMV_INVALID_VALUE (NULL argument, bad flags), SYMV_NOT_FOUND (no
 * such file and no DB_CREATE), SYMV_DB_CORRUPT (not a symvtune database, or
 * damaged, including rows that reference missing rows, found when migrating),
 * SYMV_DB_VERSION (schema newer than this program; nothing is written),
 * SYMV_IO, SYMV_DB (e.g. the file is locked by another writer past the busy
 * timeout), SYMV_NO_MEMORY.
 */
int db_open(db **out, const char *path, int flags);

/*
 * db_close: close the handle; an open transaction is rolled back. NULL is a
 * no-op. Errors: SYMV_DB when SQLite cannot close (the handle is freed anyway).
 */
int db_close(db *d);

/*
 * db_errmsg: the message of the last error on this handle ("" if none),
 * naming the file and the statement that failed. Valid until the next call
 * on the handle. Never NULL.
 */
const char *db_errmsg(const db *d);

/*
 * db_warning: the warning of the last db_check_device ("" if none), e.g.
 * that the driver version changed since the database was made. Never NULL.
 */
const char *db_warning(const db *d);

/* ---- Device fingerprint -------------------------------------------------- */

/*
 * db_check_device: make sure the database belongs to the GPU `current`.
 * A database without a fingerprint stores `current`'s. One whose stored
 * device differs in name, compute capability or SM count is refused, unless
 * allow_foreign is nonzero, in which case the difference becomes a warning.
 * Any other difference (driver, CUDA runtime, NVRTC, clocks, memory sizes) is
 * allowed and reported by db_warning. The stored fingerprint is not changed.
 * Errors: SYMV_DB_FOREIGN (the message names both devices), SYMV_INVALID_VALUE
 * (empty name, sm_count or cc_major < 1), SYMV_NOT_FOUND (read-only handle
 * and no fingerprint stored), SYMV_DB.
 */
int db_check_device(db *d, const db_device *current, int allow_foreign);

/*
 * db_get_device: the stored fingerprint into *out.
 * Errors: SYMV_NOT_FOUND (none stored yet), SYMV_DB.
 */
int db_get_device(db *d, db_device *out);

/*
 * db_set_copy_gbs: record the measured copy bandwidth, GB/s (finite, >= 0).
 * Errors: SYMV_INVALID_VALUE, SYMV_NOT_FOUND (no fingerprint), SYMV_DB.
 */
int db_set_copy_gbs(db *d, double gbs);

/* ---- Transactions -------------------------------------------------------- */

/*
 * db_begin, db_commit, db_rollback: one write transaction (BEGIN IMMEDIATE:
 * it takes the write lock at once, waiting up to the busy timeout for
 * another writer). Transactions do not nest.
 * Errors: SYMV_DB (already in / not in a transaction, database busy), SYMV_IO.
 */
int db_begin(db *d);
int db_commit(db *d);
int db_rollback(db *d);

/* ---- Candidates ---------------------------------------------------------- */

/*
 * db_put_candidate: insert the point c->p (routine, family, BLOCK_SIZE, UX,
 * MULTIPLICITY, MX) as pending and set *id to its row id; if the point is
 * already there, leave its row as it is and return its existing id. The
 * other fields of *c are ignored. id may be NULL. The same parameters under
 * two routines are two candidates.
 * Errors: SYMV_INVALID_VALUE (routine or family out of range, a parameter
 * < 0 or past its limit), SYMV_DB.
 */
int db_put_candidate(db *d, const db_candidate *c, long long *id);

/*
 * db_find_candidate: the id of the candidate at point *point (all six
 * fields of it, routine included). Errors: SYMV_NOT_FOUND,
 * SYMV_INVALID_VALUE (NULL point, routine or family out of range, a
 * parameter < 0 or past its limit), SYMV_DB.
 */
int db_find_candidate(db *d, const symv_params *point, long long *id);

/*
 * db_get_candidate: candidate `id` (routine included) into *out.
 * Errors: SYMV_NOT_FOUND, SYMV_DB_CORRUPT (a stored name or value this
 * program does not know: a foreign or damaged database), SYMV_DB.
 */
int db_get_candidate(db *d, long long id, db_candidate *out);

/*
 * db_set_candidate_result: record the fate of candidate c->id: its status,
 * reason, detail, compile_ms and regs_per_thread (the parameters and attempts
 * are not touched). Reason must be DB_REASON_NONE unless status is
 * DB_INVALID, and something else if it is.
 * Errors: SYMV_INVALID_VALUE, SYMV_NOT_FOUND (no such id), SYMV_DB.
 */
int db_set_candidate_result(db *d, const db_candidate *c);

/*
 * db_start_attempt: add one to candidate id's attempts and set *attempts
 * (may be NULL) to the new count. Call it outside a transaction, before the
 * worker starts, so the count survives a worker that crashes: the sweep marks
 * a candidate invalid (DB_REASON_FAULT) once the count passes its limit.
 * Errors: SYMV_NOT_FOUND, SYMV_DB.
 */
int db_start_attempt(db *d, long long id, int *attempts);

/*
 * db_clear_attempts: sets candidate id's attempts to 0: its measuring ended
 * with a result (valid, or invalid with a reason), so the count
 * (db_start_attempt) holds only the attempts without one since, and a
 * candidate measured in stage after stage is not taken for one that
 * crashed. Inside or outside a transaction.
 * Errors: SYMV_NOT_FOUND, SYMV_DB.
 */
int db_clear_attempts(db *d, long long id);

/*
 * db_list_candidates: the candidates of `routine` (or of any routine if
 * DB_ANY_ROUTINE) with `status` (or any status if status is -1) and `family` (or any
 * family if DB_ANY_FAMILY), in id order, as a malloc'ed array in *list (NULL when
 * *count is 0) that the caller frees with free().
 * db_list_candidates(d, SYMV_DSYMV, DB_PENDING, DB_ANY_FAMILY, ...) is
 * what a resumed dsymv sweep still has to do.
 * Errors: SYMV_INVALID_VALUE (routine or family out of range, bad status),
 * SYMV_DB_CORRUPT (a stored name or value this program does not know),
 * SYMV_NO_MEMORY, SYMV_DB.
 */
int db_list_candidates(db *d, symv_routine routine, int status,
                       symv_family family, db_candidate **list,
                       size_t *count);

/*
 * db_count_candidates: candidates of `routine` (any routine if
 * DB_ANY_ROUTINE) and `family` (any family if DB_ANY_FAMILY) counted by
 * status and reason into *out.
 * Errors: SYMV_INVALID_VALUE (routine or family out of range), SYMV_DB_CORRUPT (a
 * stored status or reason this program does not know), SYMV_DB.
 */
int db_count_candidates(db *d, symv_routine routine, symv_family family,
                        db_counts *out);

/*
 * db_list_routines: the routines that have at least one candidate (what =
 * DB_ROUTINES_CANDIDATES) or at least one fit (DB_ROUTINES_FITS), in the
 * canonical order (symv_routine_order: ssymv, dsymv, csymv, zsymv, chemv,
 * zhemv). *count is set to how many there are; the first min(*count, max)
 * are written to routines[]. max = SYMV_ROUTINE_COUNT always suffices.
 * `symvtune build` makes a library of every routine with a fit this way.
 * Errors: SYMV_INVALID_VALUE (bad what, NULL count, NULL routines with max > 0),
 * SYMV_DB_CORRUPT (a stored routine this program does not know), SYMV_DB.
 */
typedef enum {
  DB_ROUTINES_CANDIDATES, /* routines with candidates */
  DB_ROUTINES_FITS        /* routines with fits */
} db_routines_of;

int db_list_routines(db *d, db_routines_of what, symv_routine *routines,
                     size_t max, size_t *count);

/* ---- Measurements and baselines ---------------------------------------- */

/*
 * db_put_measurement: store *m as candidate id's timing at (m->n, m->uplo,
 * m->hot, m->stage), replacing any earlier one at that key.
 * Errors: SYMV_INVALID_VALUE (n < 1, uplo not 'L'/'U', hot not 0/1, bad
 * stage, a time or rate negative or not finite, min > median > max,
 * batches or calls_per_batch < 1), SYMV_NOT_FOUND (no candidate id), SYMV_DB.
 */
int db_put_measurement(db *d, long long id, const db_measurement *m);

/*
 * db_has_measurement: *found = 1 if candidate id has a timing at (n, uplo,
 * hot, stage), else 0. Errors: SYMV_INVALID_VALUE, SYMV_DB.
 */
int db_has_measurement(db *d, long long id, int n, char uplo, int hot,
                       db_stage stage, int *found);

/*
 * db_candidate_measurements: candidate id's timings at `stage`, restricted to
 * `uplo` ('L', 'U', or 0 for both) and `hot` (0, 1, or -1 for both), ordered
 * by n ascending (then uplo, hot), as a malloc'ed array the caller frees
 * with free() (NULL when *count is 0).
 * Errors: SYMV_INVALID_VALUE, SYMV_NO_MEMORY, SYMV_DB.
 */
int db_candidate_measurements(db *d, long long id, db_stage stage, char uplo,
                              int hot, db_measurement **list, size_t *count);

/*
 * db_put_baseline: store *m as the timing of `routine`'s baseline `name`
 * ("cublas": cuBLAS's routine, e.g. cublasDsymv, with atomics off;
 * "cublas_atomics": with atomics on; any other non-empty name up to 63
 * characters), replacing any earlier one at the same key (routine, name, n,
 * uplo, hot, stage). Baselines of two routines never mix.
 * Errors: as db_put_measurement, without SYMV_NOT_FOUND; SYMV_INVALID_VALUE
 * also for a routine out of range.
 */
int db_put_baseline(db *d, symv_routine routine, const char *name,
                    const db_measurement *m);

/*
 * db_has_baseline: *found = 1 if `routine`'s baseline `name` has a timing at
 * (n, uplo, hot, stage), else 0. Errors: SYMV_INVALID_VALUE (routine out
 * of range, bad name or key), SYMV_DB.
 */
int db_has_baseline(db *d, symv_routine routine, const char *name, int n,
                    char uplo, int hot, db_stage stage, int *found);

/*
 * db_baseline_measurements: as db_candidate_measurements, for `routine`'s
 * baseline `name`; SYMV_INVALID_VALUE also for a routine out of range.
 */
int db_baseline_measurements(db *d, symv_routine routine, const char *name,
                             db_stage stage, char uplo, int hot,
                             db_measurement **list, size_t *count);

/*
 * db_time_table: the median times (microseconds) of every valid candidate of
 * `routine` at each of the nsizes sizes ns[], for one (uplo, hot, stage),
 * into *out; a candidate without a timing at a size gets NAN there. Sizes
 * must be >= 1.
 * Errors: SYMV_INVALID_VALUE (routine out of range, bad key),
 * SYMV_DB_CORRUPT (a stored candidate this program does not know),
 * SYMV_NO_MEMORY, SYMV_DB (*out is then empty).
 */
int db_time_table(db *d, symv_routine routine, const int *ns, size_t nsizes,
                  char uplo, int hot, db_stage stage, db_times *out);

/* db_times_free: free what db_time_table allocated; zeroes *t. */
void db_times_free(db_times *t);

/* ---- Sweep runs ---------------------------------------------------------- */

/*
 * db_run_begin: log the start of a sweep run (timestamp now, UTC) with its
 * command-line options (may be NULL) and set *run_id.
 * Errors: SYMV_INVALID_VALUE, SYMV_DB.
 */
int db_run_begin(db *d, const char *options, long long *run_id);

/*
 * db_run_end: log the end of run run_id (timestamp now) with the seconds
 * spent compiling and measuring (finite, >= 0).
 * Errors: SYMV_INVALID_VALUE, SYMV_NOT_FOUND, SYMV_DB.
 */
int db_run_end(db *d, long long run_id, double compile_s, double measure_s);


/* ---- Shards of a sweep ---------------------------------------------------- */

/*
 * A sweep cut into shards (`symvtune sweep --shard K/N`) records in each
 * shard's database which part of which space it holds; `symvtune merge`
 * copies these rows into the merged database (with the file each came from)
 * and checks with them that the shards cover their space once.
 *
 * Storage: the table `shard`, outside the numbered schema versions (it does
 * not change DB_SCHEMA_VERSION): it is created (CREATE TABLE IF NOT EXISTS)
 * by the first db_put_shard, so that only databases of sharded sweeps carry
 * it, and db_open accepts it beside the tables of any schema version.
 * A symvtune older than this table refuses a file that has it ("unexpected
 * table 'shard'").
 */
typedef struct db_shard {
  symv_routine routine;      /* the routine swept */
  char space[17];            /* fingerprint of the whole space (16 hex digits, measure/shard.h) */
  int k;                     /* this shard, 0..n-1 */
  int n;                     /* shards of the space, 1..4096 */
  long long candidates;      /* points of the space in shard k */
  long long space_size;      /* points of the whole space */
  char sizes[512];           /* representative sizes n of the sweep stage, "256,768,..." */
  char uplo;                 /* 'L' or 'U' */
  int hot;                   /* 0 cold, 1 hot */
  char source[256];          /* the database it was merged from; "" where it was swept */
} db_shard;

/*
 * db_put_shard: record *s (replacing the row of the same routine, space,
 * k, n and source), creating the table on first use. Call it inside or
 * outside a transaction.
 * Errors: SYMV_INVALID_VALUE (routine out of range, space not 16 hex digits,
 * k or n out of range, counts < 0, bad uplo or hot, empty sizes), SYMV_DB.
 */
int db_put_shard(db *d, const db_shard *s);

/*
 * db_list_shards: the shard rows of `routine` (any routine if
 * DB_ANY_ROUTINE), ordered by routine name, space, n, k, source, as a
 * malloc'ed array in *list (NULL when *count is 0; free()). A database
 * without the table has none.
 * Errors: SYMV_INVALID_VALUE (routine out of range), SYMV_DB_CORRUPT (values
 * out of range, a routine this program does not know), SYMV_NO_MEMORY,
 * SYMV_DB.
 */
int db_list_shards(db *d, symv_routine routine, db_shard **list, size_t *count);

/* ---- The code a candidate's timings are of ------------------------------- */

/*
 * The sweep records, beside each candidate it settles, the identity of the
 * code it compiled (symv_code_id, gpu/compile.h: a hash of the kernel
 * sources and the point's definitions), so that a later symvtune can tell
 * timings of other kernel sources from its own.
 *
 * Storage: the table `kernel_code` (candidate_id, code), outside the
 * numbered schema versions like `shard`: created by the first
 * db_put_kernel_code, its rows removed with their candidate. A database
 * swept before it has no such rows: the code of its timings is unknown.
 */
typedef struct db_kernel_code {
  long long candidate_id;    /* the candidate */
  symv_params p;             /* its point */
  char code[17];             /* symv_code_id when it was measured: 16 hex digits */
} db_kernel_code;

/*
 * db_put_kernel_code: records `code` (16 hex digits) as the code candidate
 * candidate_id was measured with, replacing what was recorded. Errors:
 * SYMV_INVALID_VALUE (code not 16 hex digits), SYMV_NOT_FOUND (no such
 * candidate), SYMV_DB.
 */
int db_put_kernel_code(db *d, long long candidate_id, const char *code);

/*
 * db_list_kernel_codes: the recorded codes of `routine`'s candidates (any
 * routine if DB_ANY_ROUTINE) into *list (malloc'ed, free(); *count of
 * them, by candidate id); none where nothing was recorded. Errors:
 * SYMV_INVALID_VALUE (a routine out of range), SYMV_DB_CORRUPT (a row out
 * of range), SYMV_DB, SYMV_NO_MEMORY.
 */
int db_list_kernel_codes(db *d, symv_routine routine, db_kernel_code **list, size_t *count);

/*
 * db_kernel_code_find: the entry of candidate_id in list[0..n) (ordered by
 * candidate id, as db_list_kernel_codes returns it), or NULL if it has none.
 */
const db_kernel_code *db_kernel_code_find(const db_kernel_code *list, size_t n, long long candidate_id);

/* ---- Fits and dispatch rules (schema version 3; by routine since 4) ------- */

/* Which kernel a curve or a rule names. */
#define DB_KERNEL_CUBLAS "cublas"                 /* cuBLAS's routine, atomics off */
#define DB_KERNEL_CUBLAS_ATOMICS "cublas_atomics" /* cuBLAS's routine, atomics on */
#define DB_KERNEL_CANDIDATE "candidate"           /* a candidate of the fit's routine */

/* One fitted curve of a fit: the d-spline of one kernel's dense samples. */
typedef struct db_fit_curve {
  char kernel[24];           /* DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS or DB_KERNEL_CANDIDATE */
  long long candidate_id;    /* the candidate when kernel is DB_KERNEL_CANDIDATE, else 0 */
  double alpha;              /* d-spline smoothing weight chosen (dimensionless) */
  int nsamples;              /* dense samples fitted */
  double rms_rel;            /* RMS of (fit - sample) / sample at the samples */
} db_fit_curve;

/* One rule: sizes n_start..n_end (inclusive) run `kernel`. */
typedef struct db_rule {
  int n_start;               /* first n of the interval, elements */
  int n_end;                 /* last n of the interval, elements */
  char kernel[24];           /* DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS or DB_KERNEL_CANDIDATE */
  db_candidate cand;         /* the candidate (all fields) when kernel is DB_KERNEL_CANDIDATE */
  double predicted_us;       /* predicted time at the interval's geometric middle, microseconds */
  double predicted_gain;     /* predicted time of the faster cuBLAS mode / predicted_us there */
} db_rule;

/* A fit: the rules made from the dense samples of one (routine, uplo, hot). */
typedef struct db_fit {
  long long id;              /* row id */
  symv_routine routine;      /* the routine: its candidates and baselines were fitted */
  char created[32];          /* UTC ISO-8601 timestamp */
  char uplo;                 /* 'L' or 'U' of the samples */
  int hot;                   /* 0 cold, 1 hot samples */
  int lo, hi;                /* the range covered, elements; rules cover lo..hi exactly */
  double threshold;          /* interval-compression threshold (relative gain) */
  char method[256];          /* how alpha was chosen etc., free text */
  int deterministic;         /* atomics class: 1 'deterministic' (only bitwise reproducible kernels and
                                cuBLAS with atomics off: for CUBLAS_ATOMICS_NOT_ALLOWED), 0 'any' */
} db_fit;

/*
 * db_rules_tile: the one check that rules[0..n) tile lo..hi: each rule
 * non-empty (n_start <= n_end), the first starting at lo, each next one at
 * the previous n_end + 1 (no gap, no overlap), the last ending at hi. On
 * failure err (errlen bytes) says which rule and how ("a gap", "an
 * overlap", "empty", "ends at", with the numbers). Used by db_put_fit, by
 * the reading of a fit, and by `symvtune build`.
 * Errors: SYMV_INVALID_VALUE.
 */
int db_rules_tile(int lo, int hi, const db_rule *rules, size_t n, char *err, size_t errlen);

/*
 * db_kernel_deterministic: 1 if kernel `kernel` (a DB_KERNEL_ name; for
 * DB_KERNEL_CANDIDATE, of family `family`) gives bitwise reproducible
 * results, as a deterministic fit requires: cuBLAS with atomics off, or a
 * candidate of a family the registry calls deterministic (core/params.c);
 * else 0 (cuBLAS with atomics, other families, a family out of range, an
 * unknown kernel name). `family` is read only for DB_KERNEL_CANDIDATE.
 */
int db_kernel_deterministic(const char *kernel, symv_family family);

/*
 * db_put_fit: store a fit of fit->routine with its curves and rules in one
 * transaction (call it outside db_begin); fit->id and fit->created are set.
 * Rules must cover fit->lo..fit->hi with no gap and no overlap, in order; a
 * candidate rule's cand.id (the only field of cand read) and a candidate
 * curve's candidate_id must name a candidate of fit->routine; a
 * deterministic fit (fit->deterministic) may name only cuBLAS with atomics
 * off and candidates of deterministic families (core/params.h). Nothing is
 * stored on error.
 * Errors: SYMV_INVALID_VALUE (routine out of range, rules that do not tile the
 * range, unknown kernel names, values out of range, a candidate of another
 * routine), SYMV_NOT_FOUND (no such candidate), SYMV_DB.
 */
int db_put_fit(db *d, db_fit *fit, const db_fit_curve *curves, size_t ncurves, const db_rule *rules,
               size_t nrules);

/*
 * db_latest_fit: the most recent fit (largest id) of exactly (routine, uplo,
 * hot) and atomics class 'any', with its rules, ordered by n_start, candidate fields filled from the
 * candidate table; *rules is malloc'ed (free()). curves/ncurves may be NULL;
 * else its curves likewise. A fit of another routine, triangle or L2 state
 * is never returned, whatever its age.
 * Errors: SYMV_INVALID_VALUE (routine out of range, uplo not 'L'/'U', hot
 * not 0/1, NULL argument), SYMV_NOT_FOUND (no such fit stored; the message
 * says which), SYMV_DB_CORRUPT (stored rules that do not tile the range, or
 * name a candidate of another routine, or a name this program does not
 * know), SYMV_DB, SYMV_NO_MEMORY.
 */
int db_latest_fit(db *d, symv_routine routine, char uplo, int hot, db_fit *fit, db_rule **rules, size_t *nrules,
                  db_fit_curve **curves, size_t *ncurves);

/*
 * db_latest_fit_class: db_latest_fit of the atomics class `deterministic`
 * (1: the latest 'deterministic' fit, whose rules name only cuBLAS with
 * atomics off and candidates of deterministic families; 0: the latest 'any'
 * fit, which db_latest_fit returns). A deterministic fit whose stored rules
 * name another kernel is SYMV_DB_CORRUPT. Errors otherwise as db_latest_fit.
 */
int db_latest_fit_class(db *d, symv_routine routine, char uplo, int hot, int deterministic, db_fit *fit,
                        db_rule **rules, size_t *nrules, db_fit_curve **curves, size_t *ncurves);

/* ---- Names --------------------------------------------------------------- */

/* db_status_name, db_reason_name, db_stage_name: the text stored in the
 * database ("pending", "wrong", "dense"; "" for DB_REASON_NONE); "?" for a
 * value out of range. Never NULL. */
const char *db_status_name(int status);
const char *db_reason_name(int reason);
const char *db_stage_name(int stage);

/* ---- Validation runs (schema version 6) ----------------------------------- */

/* One run of `symvtune validate`: a fit's rules judged at sizes no stage
 * sampled. Regret at a size: the time of the kernel the rules chose over the
 * least time of any kernel the fit chose from, both measured there in the
 * run (dimensionless, >= 1). */
typedef struct {
  long long id;              /* row id, set by db_put_validation */
  long long fit_id;          /* the fit whose rules were judged */
  unsigned long long seed;   /* of the random sizes, 0 for sizes given (stored as a 64-bit integer) */
  double regret_median;      /* over the sizes */
  double regret_p90;         /* 90th percentile (nearest rank) */
  double regret_max;
} db_validation;

/* One kernel's time at one validation size. */
typedef struct {
  int n;                     /* matrix order, elements */
  char kernel[24];           /* DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS or DB_KERNEL_CANDIDATE */
  long long candidate_id;    /* the candidate when kernel is DB_KERNEL_CANDIDATE, else 0 */
  double median_us;          /* measured median time per call, microseconds */
  double predicted_us;       /* the fit's prediction there, microseconds; NAN: none (stored NULL) */
  int chosen;                /* 1: the kernel the rules name at n */
} db_validation_time;

/*
 * db_put_validation: stores run v (v->fit_id must name a fit) with its nt
 * times in one transaction (call it outside db_begin); v->id is set.
 * Errors: SYMV_INVALID_VALUE (regrets not 1 <= median <= p90 <= max, a time
 * out of range, an unknown kernel name, NULL argument), SYMV_NOT_FOUND (no
 * such fit or candidate: the foreign keys), SYMV_DB (a failed write).
 * Nothing is stored on error.
 */
int db_put_validation(db *d, db_validation *v, const db_validation_time *t, size_t nt);

/* ---- Bench runs (schema version 7) ---------------------------------------- */

/* One run of `symvtune bench`: a generated library timed next to cuBLAS on
 * one GPU. The library is named by its path and by what its symvGetInfo
 * says (symv.h); fields it could not say are "". */
typedef struct {
  long long id;              /* row id, set by db_put_bench */
  char created[32];          /* UTC ISO-8601 timestamp, set by db_put_bench */
  char symvtune[32];         /* version of the symvtune that measured (PACKAGE_VERSION) */
  char lib_path[1024];       /* the library measured, as loaded (DIR/lib/libsymv.so); not empty */
  char lib_version[32];      /* symvInfo.version, "0.1.0" */
  char lib_tuned_gpu[256];   /* symvInfo.tuned_gpu: the GPU its rules were tuned on */
  char lib_arch[16];         /* symvInfo.arch, "sm_90" */
  int deterministic;         /* the handle's atomics mode: 1 CUBLAS_ATOMICS_NOT_ALLOWED (the library's
                                deterministic rules), 0 CUBLAS_ATOMICS_ALLOWED (its 'any' rules) */
  int hot;                   /* 1: A kept in L2 (one copy); 0: cold, rotated copies */
  int batches;               /* timed batches per measurement, >= 1 */
  char device[256];          /* the GPU measured on, cudaDeviceProp.name; not empty */
  int cc_major, cc_minor;    /* its compute capability (major >= 1) */
  int sm_count;              /* its streaming multiprocessors (>= 1) */
  double copy_gbs;           /* device-to-device copy rate measured in the run, GB/s; NAN or 0: none (NULL) */
  int complete;              /* 1: every size asked for was measured; 0: the run stopped early */
} db_bench_run;

/* One size of a bench run. Times are medians per call, microseconds. */
typedef struct {
  symv_routine routine;      /* the routine timed */
  char uplo;                 /* 'L' or 'U' */
  int n;                     /* matrix order, elements, 1..DB_N_MAX */
  char kernel[64];           /* what libsymv ran (symvLastKernel): a kernel's name, "cublas", "cublas_atomics" */
  double libsymv_us;         /* libsymv, > 0 */
  double cublas_us;          /* cuBLAS with atomics off, > 0 */
  double cublas_atomics_us;  /* cuBLAS with atomics on, > 0 */
  double openblas_us;        /* the host BLAS (OpenBLAS or LAPACK), > 0; NAN: not measured (NULL) */
  double floor_us;           /* the read-only floor kernel, > 0; NAN: not run (NULL) */
  double residual;           /* libsymv's y against cuBLAS's, scaled (>= 0); NAN: unknown (NULL) */
  double pct_copy;           /* libsymv's matrix traffic over the copy rate, % (>= 0); NAN: unknown (NULL) */
} db_bench_result;

/*
 * db_put_bench: stores run *run with its nr results in one transaction
 * (call it outside db_begin); run->id and run->created are set. Two
 * results of one run may not share (routine, uplo, n).
 * Errors: SYMV_INVALID_VALUE (NULL argument, an empty or unterminated
 * string, values out of the ranges above, a routine out of range, a repeated
 * size), SYMV_DB (a failed write). Nothing is stored on error.
 */
int db_put_bench(db *d, db_bench_run *run, const db_bench_result *r, size_t nr);
/*
 * db_latest_validation: the latest run (largest id) of `symvtune validate`
 * of fit fit_id into *v, with its times, ordered by n then kernel, into
 * *t (malloc'ed, free(); *nt of them). For `validate --figure` and `plot`.
 * Errors: SYMV_INVALID_VALUE (NULL argument), SYMV_NOT_FOUND (the fit has
 * no run), SYMV_DB_CORRUPT (a row out of range: a hand-edited file),
 * SYMV_DB, SYMV_NO_MEMORY. Nothing is returned on error.
 */
int db_latest_validation(db *d, long long fit_id, db_validation *v, db_validation_time **t, size_t *nt);

/*
 * db_latest_validation_of: as db_latest_validation, the latest run of a
 * fit of `routine` at (uplo, hot) and of atomics class `deterministic` (1
 * 'deterministic', 0 'any'), or where there is none, the latest of either
 * class: the times `validate --replay` judges a later fit's rules by (a run
 * times every kernel its fit chose from, so a run of the other class lacks
 * the kernels only this class may choose). v->fit_id names the fit the run
 * judged. Errors: SYMV_INVALID_VALUE (NULL argument, a routine out of
 * range, uplo not 'L'/'U', hot or deterministic not 0/1), SYMV_NOT_FOUND
 * (no such run), SYMV_DB_CORRUPT, SYMV_DB, SYMV_NO_MEMORY. Nothing is
 * returned on error.
 */
int db_latest_validation_of(db *d, symv_routine routine, char uplo, int hot, int deterministic, db_validation *v,
                            db_validation_time **t, size_t *nt);

#endif
