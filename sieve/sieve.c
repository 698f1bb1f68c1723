/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sieve.c - champion ranking (doc/method.md section 4, steps 3-4), see sieve.h.
 *
 * Points are accumulated as integers, sum of (K + 1 - r), and divided by K at
 * the end, so equal point totals compare equal whatever the order of sizes.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sieve/sieve.h"
#include "symv_error.h"

/* A measured candidate at one size. */
typedef struct {
  double t; /* time, us */
  int c;    /* candidate */
} sieve_entry;

/* A candidate's standing, for the overall order. */
typedef struct {
  long long score;  /* sum over sizes of (K + 1 - r), r <= K */
  int nmeasured;    /* sizes measured */
  double slowdown;  /* geometric mean of time / best time; NaN if none */
  int c;            /* candidate */
} sieve_standing;

static int sieve_measured(double t) { return isfinite(t) && t > 0.0; }

static int sieve_cmp_entry(const void *pa, const void *pb)
{
  const sieve_entry *a = pa, *b = pb;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  return (a->c > b->c) - (a->c < b->c);
}

static int sieve_cmp_standing(const void *pa, const void *pb)
{
  const sieve_standing *a = pa, *b = pb;
  int ma = a->nmeasured > 0, mb = b->nmeasured > 0;
  if (ma != mb) return mb - ma;
  if (ma) {
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    if (a->nmeasured != b->nmeasured) return b->nmeasured - a->nmeasured;
    if (a->slowdown != b->slowdown) return a->slowdown < b->slowdown ? -1 : 1;
  }
  return (a->c > b->c) - (a->c < b->c);
}

void sieve_free(sieve_result *r)
{
  if (!r) return;
  free(r->points);
  free(r->rank);
  free(r->nmeasured);
  free(r->slowdown);
  free(r->order);
  free(r->survivors);
  memset(r, 0, sizeof *r);
}

/* Is any of the n candidates in list[] of family fam? */
static int family_listed(const int *family, const int *list, int n, int fam)
{
  for (int i = 0; i < n; i++)
    if (family[list[i]] == fam) return 1;
  return 0;
}

int sieve_rank(const double *time_us, int ncand, int nsizes, const int *family,
               int K, int T, sieve_result *out)
{
  if (!time_us || !out || ncand < 1 || nsizes < 1 || K < 0 || T < 0)
    return SYMV_INVALID_VALUE;
  if ((size_t)ncand > SIZE_MAX / sizeof(double) / (size_t)nsizes)
    return SYMV_INVALID_VALUE;
  if (K == 0) K = SIEVE_DEFAULT_K;
  if (T == 0) T = SIEVE_DEFAULT_T;
  int C = ncand, S = nsizes;

  memset(out, 0, sizeof *out);
  out->ncand = C;
  out->nsizes = S;
  out->points = calloc((size_t)C, sizeof *out->points);
  out->rank = calloc((size_t)C * S, sizeof *out->rank);
  out->nmeasured = calloc((size_t)C, sizeof *out->nmeasured);
  out->slowdown = calloc((size_t)C, sizeof *out->slowdown);
  out->order = malloc((size_t)C * sizeof *out->order);
  out->survivors = malloc(((size_t)C + 1) * sizeof *out->survivors);
  sieve_entry *ent = malloc((size_t)C * sizeof *ent);
  sieve_standing *st = calloc((size_t)C, sizeof *st);
  if (!out->points || !out->rank || !out->nmeasured || !out->slowdown ||
      !out->order || !out->survivors || !ent || !st) {
    free(ent);
    free(st);
    sieve_free(out);
    return SYMV_NO_MEMORY;
  }

  /* slowdown holds the sum of log(time / best) until the end. */
  for (int j = 0; j < S; j++) {
    int m = 0;
    for (int c = 0; c < C; c++) {
      double t = time_us[(size_t)c * S + j];
      if (sieve_measured(t)) ent[m++] = (sieve_entry){t, c};
    }
    if (m == 0) continue;
    qsort(ent, (size_t)m, sizeof *ent, sieve_cmp_entry);
    for (int r = 1; r <= m; r++) {
      int c = ent[r - 1].c;
      out->rank[(size_t)c * S + j] = r;
      out->nmeasured[c]++;
      out->slowdown[c] += log(ent[r - 1].t / ent[0].t);
      if (r <= K) st[c].score += K + 1 - r;
    }
  }

  for (int c = 0; c < C; c++) {
    out->points[c] = (double)st[c].score / K;
    out->slowdown[c] = out->nmeasured[c] > 0 ? exp(out->slowdown[c] / out->nmeasured[c]) : NAN;
    st[c].nmeasured = out->nmeasured[c];
    st[c].slowdown = out->slowdown[c];
    st[c].c = c;
  }
  qsort(st, (size_t)C, sizeof *st, sieve_cmp_standing);

  for (int q = 0; q < C; q++) {
    out->order[q] = st[q].c;
    if (q < T && st[q].nmeasured > 0) out->survivors[out->nsurvivors++] = st[q].c;
  }
  /* each family's best, in order, if the top T hold none of that family */
  const int top = out->nsurvivors;
  for (int q = top; family && q < C && st[q].nmeasured > 0; q++) {
    const int c = st[q].c;
    if (!family_listed(family, out->survivors, out->nsurvivors, family[c])) {
      out->survivors[out->nsurvivors++] = c;
      out->added++;
    }
  }
  free(ent);
  free(st);
  return 0;
}
