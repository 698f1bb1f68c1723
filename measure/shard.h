/*
 * shard.h - cutting a sweep into shards that separate processes, GPUs or
 * cluster nodes run on their own, into databases of their own that
 * `symvtune merge` joins (man symvtune: sweep --shard, merge).
 *
 * The partition depends only on the candidates' parameters: the space is
 * grouped into compile units (the points sharing a kernel code: all
 * parameters but MULTIPLICITY equal, symv_params_same_code), the units are
 * ordered by expected cost, costliest first, ties by their parameters, and
 * each unit goes to the shard with the least cost so far, ties to the
 * lowest K (longest processing time first). Neither database ids nor the
 * order of enumeration play a part, so every run on every machine cuts the
 * same space the same way. Bound (what the greedy rule guarantees): the
 * expected costs of any two shards differ by at most the cost of the
 * costliest compile unit (sweep_unit_cost).
 */
#ifndef SYMV_SHARD_H
#define SYMV_SHARD_H

#include <stdint.h>
#include "params.h"

/** Most shards of one sweep. */
#define SWEEP_SHARDS_MAX 4096

/** sweep_unit_cost: expected cost of a compile unit of `count` candidates
 *  whose shared code is that of p, in seconds of an H100 (a cost model, not
 *  a measurement): one NVRTC compile (about 1 s, more for the unrolled
 *  kernels of large UX and BLOCK_SIZE) plus, per candidate, verification and
 *  timing at the representative sizes (about 0.1 s each). */
double sweep_unit_cost(const symv_params *p, long count);

/** sweep_shard_assign: the shard (0..nshards-1) of each of the n points of
 *  `space` into shard[] (n entries), and, if cost is not NULL, each shard's
 *  expected cost (nshards entries, seconds as sweep_unit_cost). Points of a
 *  non-tunable family (the test family "fault") go to shard 0 and count
 *  nothing. Errors: SYMV_INVALID_VALUE (nshards outside
 *  1..SWEEP_SHARDS_MAX, n < 0), SYMV_NO_MEMORY. */
int sweep_shard_assign(const symv_params *space, long n, int nshards, int *shard, double *cost);

/** sweep_shard_of: the shard that the cut of `space` (n points, as
 *  sweep_shard_assign cuts it into nshards) gives each of the m points
 *  pts[], into shard[] (m entries): a point of a tunable family that is
 *  not in space gets -1, a point of a non-tunable family 0. Errors: as
 *  sweep_shard_assign (m < 0 too). */
int sweep_shard_of(const symv_params *space, long n, int nshards, const symv_params *pts, long m, int *shard);

/** sweep_space_fingerprint: a 64-bit FNV-1a hash of a sweep's space, as 16
 *  lower-case hex digits and a NUL in out (17 bytes): the set of tunable
 *  points of `space` (order does not matter), their routine, and the sizes
 *  ns (order does not matter), uplo and hot they are measured at. Two
 *  shards belong to the same sweep when their fingerprints are equal.
 *  Errors: SYMV_NO_MEMORY, SYMV_INVALID_VALUE (n < 0). */
int sweep_space_fingerprint(const symv_params *space, long n, const int *ns, int nsizes, char uplo, int hot,
                            char out[17]);

/** sweep_shard_parse: "K/N" (0 <= K < N <= SWEEP_SHARDS_MAX, decimal) into
 *  *k and *n; nonzero if s is not of that form. */
int sweep_shard_parse(const char *s, int *k, int *n);

#endif
