/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the champion ranking (sieve/sieve.h). The cases are data: each row
 * is a time table with the points, order and survivors worked out by hand
 * from the rules in sieve.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "sieve/sieve.h"
#include "symv_error.h"

#define MAXC 8
#define X NAN /* not measured */

typedef struct {
  const char *name;
  int C, S, K, T;
  double time[MAXC * 4];   /* row-major C x S, us */
  int use_family;          /* pass family (else NULL) */
  int family[MAXC];
  double points[MAXC];     /* expected */
  int rank[MAXC * 4];      /* expected, checked when check_rank */
  int check_rank;
  int order[MAXC];
  int survivors[MAXC + 1];
  int nsurvivors;
  int added;
} sieve_case;

static const sieve_case cases[] = {
  {/* ranks 1..4 earn 3/3, 2/3, 1/3, 0; c0 and c2 tie on points, c0 is
      closer to the champions (geometric mean slowdown 2 against sqrt 6) */
   "points_formula", 4, 2, 3, 2,
   {10, 40,
    20, 10,
    30, 20,
    40, 30},
   1, {0, 0, 0, 1},
   {1.0, 5.0 / 3, 1.0, 1.0 / 3},
   {1, 4, 2, 1, 3, 2, 4, 3}, 1,
   {1, 0, 2, 3}, {1, 0, 3}, 3, 1},
  {/* equal times are ranked by candidate index */
   "equal_times_by_index", 3, 1, 2, 10,
   {5, 5, 5},
   0, {0},
   {1.0, 0.5, 0.0},
   {1, 2, 3}, 1,
   {0, 1, 2}, {0, 1, 2}, 3, 0},
  {/* NaN, negative, zero and infinite times are not ranked and the ranks
      of the others close up; a never-measured candidate comes last, does
      not survive, and is not added as L+U */
   "unmeasured_times", 4, 3, 2, 10,
   {X, 10, 10,
    5, -1, 20,
    X, INFINITY, X,
    6, 20, 0},
   1, {0, 0, 1, 0},
   {2.0, 1.5, 0.0, 1.0},
   {0, 1, 1, 1, 0, 2, 0, 0, 0, 2, 2, 0}, 1,
   {0, 1, 3, 2}, {0, 1, 3}, 3, 0},
  {/* K (default 25) larger than C: every candidate scores; a full tie on
      points, sizes and slowdown falls back to the index */
   "k_exceeds_candidates", 3, 2, 0, 0,
   {1, 3,
    2, 2,
    3, 1},
   0, {0},
   {48.0 / 25, 48.0 / 25, 48.0 / 25},
   {1, 3, 2, 2, 3, 1}, 1,
   {0, 2, 1}, {0, 2, 1}, 3, 0},
  {/* an L+U candidate already among the top T adds nothing */
   "lu_in_top", 3, 1, 3, 2,
   {1, 2, 3},
   1, {0, 1, 0},
   {1.0, 2.0 / 3, 1.0 / 3},
   {0}, 0,
   {0, 1, 2}, {0, 1}, 2, 0},
  {/* otherwise the best-ordered L+U candidate is added after the top T */
   "lu_added", 5, 1, 5, 2,
   {1, 2, 3, 4, 5},
   1, {0, 0, 0, 1, 1},
   {1.0, 0.8, 0.6, 0.4, 0.2},
   {0}, 0,
   {0, 1, 2, 3, 4}, {0, 1, 3}, 3, 1},
  {/* three families: the best of each family missing from the top T is
      added, in order: c2 for family 2, then c4 for family 7; c5 and c6
      add nothing */
   "each_family_added", 7, 1, 7, 2,
   {1, 2, 3, 4, 5, 6, 7},
   1, {0, 0, 2, 0, 7, 7, 2},
   {1.0, 6.0 / 7, 5.0 / 7, 4.0 / 7, 3.0 / 7, 2.0 / 7, 1.0 / 7},
   {0}, 0,
   {0, 1, 2, 3, 4, 5, 6}, {0, 1, 2, 4}, 4, 2},
  {/* no family flags: no family rule */
   "no_lu_flags", 5, 1, 5, 2,
   {1, 2, 3, 4, 5},
   0, {0},
   {1.0, 0.8, 0.6, 0.4, 0.2},
   {0}, 0,
   {0, 1, 2, 3, 4}, {0, 1}, 2, 0},
  {/* equal points: the candidate measured at more sizes first */
   "more_sizes_first", 2, 2, 1, 10,
   {1, X,
    2, 3},
   0, {0},
   {1.0, 1.0},
   {1, 0, 2, 1}, 1,
   {1, 0}, {1, 0}, 2, 0},
};

static void check_case(const sieve_case *c)
{
  sieve_result r;
  memset(&r, 0xff, sizeof r); /* poison */
  int rc = sieve_rank(c->time, c->C, c->S, c->use_family ? c->family : NULL, c->K, c->T, &r);
  cr_assert_eq(rc, 0, "%s: rc %d", c->name, rc);
  cr_assert_eq(r.ncand, c->C, "%s", c->name);
  cr_assert_eq(r.nsizes, c->S, "%s", c->name);
  for (int i = 0; i < c->C; i++) {
    cr_assert_float_eq(r.points[i], c->points[i], 1e-12, "%s: points[%d] = %g, expected %g",
                       c->name, i, r.points[i], c->points[i]);
    cr_assert_eq(r.order[i], c->order[i], "%s: order[%d] = %d, expected %d", c->name, i,
                 r.order[i], c->order[i]);
  }
  if (c->check_rank)
    for (int i = 0; i < c->C * c->S; i++)
      cr_assert_eq(r.rank[i], c->rank[i], "%s: rank[%d] = %d, expected %d", c->name, i,
                   r.rank[i], c->rank[i]);
  cr_assert_eq(r.nsurvivors, c->nsurvivors, "%s: %d survivors, expected %d", c->name,
               r.nsurvivors, c->nsurvivors);
  for (int i = 0; i < c->nsurvivors; i++)
    cr_assert_eq(r.survivors[i], c->survivors[i], "%s: survivor %d is %d, expected %d",
                 c->name, i, r.survivors[i], c->survivors[i]);
  cr_assert_eq(r.added, c->added, "%s: added", c->name);
  sieve_free(&r);
  cr_assert_null(r.points);
}

Test(sieve, hand_made_tables)
{
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_case(&cases[i]);
}

/* Defaults K = 25, T = 10; the slowdown is the geometric mean of the time
 * over the best time at each measured size. */
Test(sieve, defaults_and_slowdown)
{
  double t[30 * 2];
  for (int c = 0; c < 30; c++) {
    t[2 * c] = 1.0 + c;
    t[2 * c + 1] = 2.0 * (1.0 + c);
  }
  sieve_result r;
  cr_assert_eq(sieve_rank(t, 30, 2, NULL, 0, 0, &r), 0);
  for (int c = 0; c < 30; c++) {
    double expect = c < 25 ? 2.0 * (25 - c) / 25.0 : 0.0;
    cr_assert_float_eq(r.points[c], expect, 1e-12, "c %d", c);
    cr_assert_float_eq(r.slowdown[c], 1.0 + c, 1e-12, "c %d", c);
    cr_assert_eq(r.nmeasured[c], 2);
    cr_assert_eq(r.order[c], c);
  }
  cr_assert_eq(r.nsurvivors, SIEVE_DEFAULT_T);
  for (int i = 0; i < r.nsurvivors; i++) cr_assert_eq(r.survivors[i], i);
  cr_assert(isnan(r.slowdown[0]) == 0);
  sieve_free(&r);
  sieve_free(NULL);
}

Test(sieve, refuses_bad_input)
{
  double t[4] = {1, 2, 3, 4};
  sieve_result r;
  cr_assert_eq(sieve_rank(NULL, 2, 2, NULL, 0, 0, &r), SYMV_INVALID_VALUE);
  cr_assert_eq(sieve_rank(t, 2, 2, NULL, 0, 0, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(sieve_rank(t, 0, 2, NULL, 0, 0, &r), SYMV_INVALID_VALUE);
  cr_assert_eq(sieve_rank(t, 2, 0, NULL, 0, 0, &r), SYMV_INVALID_VALUE);
  cr_assert_eq(sieve_rank(t, -1, 2, NULL, 0, 0, &r), SYMV_INVALID_VALUE);
  cr_assert_eq(sieve_rank(t, 2, 2, NULL, -1, 0, &r), SYMV_INVALID_VALUE);
  cr_assert_eq(sieve_rank(t, 2, 2, NULL, 0, -3, &r), SYMV_INVALID_VALUE);
}

/* The slowdown of a candidate measured at some sizes only is the geometric
 * mean over the sizes it was measured at, not over all of them. */
Test(sieve, slowdown_counts_only_the_measured_sizes)
{
  const double t[4 * 4] = {
    10, 20, X, 40,  /* the best wherever measured */
    20, X,  X, 80,  /* twice the best at 2 sizes */
    X,  60, 30, X,  /* three times the best, then the best */
    X,  X,  X, X,   /* never measured */
  };
  const double slowdown[4] = {1.0, 2.0, sqrt(3.0), NAN};
  const int nmeasured[4] = {3, 2, 2, 0};
  sieve_result r;
  cr_assert_eq(sieve_rank(t, 4, 4, NULL, 0, 0, &r), 0);
  for (int c = 0; c < 4; c++) {
    cr_assert_eq(r.nmeasured[c], nmeasured[c], "c %d: %d sizes", c, r.nmeasured[c]);
    if (isnan(slowdown[c])) cr_assert(isnan(r.slowdown[c]), "c %d: slowdown %g", c, r.slowdown[c]);
    else cr_assert_float_eq(r.slowdown[c], slowdown[c], 1e-12, "c %d: slowdown %g, expected %g", c, r.slowdown[c],
                            slowdown[c]);
  }
  sieve_free(&r);
}
