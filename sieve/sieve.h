/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sieve.h - champion ranking: which candidates deserve dense measurement
 * (doc/method.md section 4, steps 3 and 4).
 *
 * Input: the time in microseconds of every candidate at a few representative
 * sizes, row-major C x S: time_us[c * S + j] for candidate c at size j. A time
 * that is NaN, infinite, zero or negative means "not measured or invalid" and
 * is never ranked.
 *
 * Points: at each size the measured candidates are ranked by time, fastest
 * first; equal times are ranked by candidate index (lower first), so the
 * ranking is deterministic. Rank r = 1..K earns (K + 1 - r) / K points, rank
 * r > K none: the winner gets 1, the K-th 1/K. This is one reading of the
 * paper's "points by rank/25 to the top 25" (K = 25; doc/method.md section 4
 * step 3). Points are summed over sizes.
 *
 * Order: by points, more first; ties by the number of sizes at which the
 * candidate was measured, more first; then by the geometric mean over those
 * sizes of its time divided by the best time at that size, lower first
 * (a scale-free "how far from the champion"); then by index. Candidates never
 * measured come last, by index.
 *
 * Survivors: the first T of the order among candidates measured at least
 * once (T = 10 in the paper, step 4), plus, for every kernel family with no
 * candidate among those T, its first candidate of the order (measured at
 * least once), in order. The paper adds the best L+U candidate this way
 * (doc/method.md section 3: L+U wins for small n on every GPU of the paper, so
 * it is always measured densely); we extend the rule to every family, since
 * each family of ours wins a range of n of its own, and points summed over
 * sizes favour the family that wins at the most representative sizes.
 */
#ifndef SIEVE_H
#define SIEVE_H

#define SIEVE_DEFAULT_K 25 /* sizes' top K earn points [paper] */
#define SIEVE_DEFAULT_T 10 /* survivors by points [paper] */

/* Result of sieve_rank; release with sieve_free. */
typedef struct {
  int ncand;       /* C */
  int nsizes;      /* S */
  double *points;  /* [C] champion points summed over sizes */
  int *rank;       /* [C * S] rank at each size, 1 = fastest; 0 = not measured */
  int *nmeasured;  /* [C] sizes at which the candidate was measured */
  double *slowdown;/* [C] geometric mean of time / best time at the size over
                      the measured sizes (>= 1); NaN if never measured */
  int *order;      /* [C] candidate indices, best first (all C of them) */
  int *survivors;  /* [nsurvivors] candidate indices, in order */
  int nsurvivors;  /* at most T + the number of families */
  int added;       /* survivors added beyond the top T, one per family that
                      had none there (the last `added` survivors) */
  int added_det;   /* survivors appended after those by sweep_rank from the
                      deterministic families' own ranking (measure/sweep.h,
                      SWEEP_DET_TOP); sieve_rank leaves it 0 */
} sieve_result;

/*
 * sieve_rank: champion points, order and survivors as described above.
 *   time_us[C * S]  times in microseconds, row-major (candidate, size)
 *   ncand C >= 1, nsizes S >= 1
 *   family[C]       kernel family of each candidate, any int per family
 *                   (NULL: no family rule, the survivors are the top T)
 *   K               candidates per size that earn points; 0 = SIEVE_DEFAULT_K;
 *                   K may exceed C (every measured candidate then scores)
 *   T               survivors by points; 0 = SIEVE_DEFAULT_T
 *   out             filled on success; release with sieve_free
 * Errors: SYMV_INVALID_VALUE (NULL time_us or out, C < 1, S < 1, K < 0,
 * T < 0), SYMV_NO_MEMORY. On error *out holds no allocation.
 */
int sieve_rank(const double *time_us, int ncand, int nsizes, const int *family,
               int K, int T, sieve_result *out);

/* sieve_free: releases the arrays of *r and zeroes it; NULL is allowed. */
void sieve_free(sieve_result *r);

#endif
