/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rules.c - selection rules from fitted curves, see rules.h.
 *
 * The intervals live in a doubly linked list over arrays (index = interval
 * number at creation); merging unlinks. Sums of a curve over an interval come
 * from prefix sums, so every gain costs O(1).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "dspline/rules.h"
#include "symv_error.h"

/* The curves and what is precomputed from them. */
typedef struct {
  int M, N;             /* curves, grid points */
  const double *t;      /* [M * N] time, us */
  const int *priority;  /* [M] or NULL */
  double *sum;          /* [M * (N+1)] prefix sums of available times */
  int *nna;             /* [M * (N+1)] prefix counts of unavailable points */
} rules_table;

/* The interval list. */
typedef struct {
  int *start, *end, *cand; /* grid indices (0..N-1), inclusive; candidate */
  int *prev, *next;        /* neighbours, -1 at the ends */
  int *to;                 /* neighbour that would take the interval, or -1 */
  double *gain;            /* predicted gain over that neighbour (+inf: none) */
  int head, count;         /* first interval, intervals alive */
} rules_list;

static int rules_available(double v) { return !isnan(v) && v != INFINITY; }

/* Is candidate a ranked before candidate b overall? */
static int rules_ranks_before(const rules_table *tb, int a, int b)
{
  if (tb->priority && tb->priority[a] != tb->priority[b])
    return tb->priority[a] < tb->priority[b];
  return a < b;
}

/* Sum of curve c over grid indices a..b. */
static double rules_sum(const rules_table *tb, int c, int a, int b)
{
  const double *p = tb->sum + (size_t)c * (tb->N + 1);
  return p[b + 1] - p[a];
}

static int rules_unavailable(const rules_table *tb, int c, int a, int b)
{
  const int *p = tb->nna + (size_t)c * (tb->N + 1);
  return p[b + 1] - p[a];
}

/* The candidate chosen at grid index j (step 1 of rules.h). */
static int rules_choose(const rules_table *tb, int j, double tolerance)
{
  int best = -1;
  for (int c = 0; c < tb->M; c++) {
    double v = tb->t[(size_t)c * tb->N + j];
    if (!rules_available(v)) continue;
    double vb = best < 0 ? 0.0 : tb->t[(size_t)best * tb->N + j];
    if (best < 0 || v < vb || (v == vb && rules_ranks_before(tb, c, best))) best = c;
  }
  if (best < 0 || tolerance <= 0.0) return best;
  double limit = tb->t[(size_t)best * tb->N + j] * (1.0 + tolerance);
  int pick = best;
  for (int c = 0; c < tb->M; c++) {
    double v = tb->t[(size_t)c * tb->N + j];
    if (rules_available(v) && v <= limit && rules_ranks_before(tb, c, pick)) pick = c;
  }
  return pick;
}

/* Sets gain[i] and to[i]: the neighbour whose candidate is faster over i
 * (ties: the better-ranked candidate, then the left one), and the relative
 * gain sum (t_nb - t_i) / sum t_nb of keeping i. */
static void rules_gain(const rules_table *tb, rules_list *L, int i)
{
  int a = L->start[i], b = L->end[i];
  int nbs[2] = {L->prev[i], L->next[i]};
  int to = -1;
  double s_to = INFINITY;
  for (int q = 0; q < 2; q++) {
    int nb = nbs[q];
    if (nb < 0 || rules_unavailable(tb, L->cand[nb], a, b)) continue;
    double s = rules_sum(tb, L->cand[nb], a, b);
    if (to < 0 || s < s_to ||
        (s == s_to && rules_ranks_before(tb, L->cand[nb], L->cand[to]))) {
      to = nb;
      s_to = s;
    }
  }
  L->to[i] = to;
  L->gain[i] = to < 0 ? INFINITY : (s_to - rules_sum(tb, L->cand[i], a, b)) / s_to;
}

static void rules_unlink(rules_list *L, int i)
{
  if (L->prev[i] >= 0) L->next[L->prev[i]] = L->next[i];
  else L->head = L->next[i];
  if (L->next[i] >= 0) L->prev[L->next[i]] = L->prev[i];
  L->count--;
}

/* Hands interval i to its neighbour L->to[i], then merges the neighbour with
 * the interval beyond i if that names the same candidate. Returns the
 * surviving interval. */
static int rules_absorb(rules_list *L, int i)
{
  int nb = L->to[i];
  if (nb == L->prev[i]) {
    L->end[nb] = L->end[i];
    rules_unlink(L, i);
    int far = L->next[nb];
    if (far >= 0 && L->cand[far] == L->cand[nb]) {
      L->end[nb] = L->end[far];
      rules_unlink(L, far);
    }
  } else {
    L->start[nb] = L->start[i];
    rules_unlink(L, i);
    int far = L->prev[nb];
    if (far >= 0 && L->cand[far] == L->cand[nb]) {
      L->start[nb] = L->start[far];
      rules_unlink(L, far);
    }
  }
  return nb;
}

void rules_options_init(rules_options *opt)
{
  opt->threshold = RULES_DEFAULT_THRESHOLD;
  opt->tolerance = 0.0;
  opt->priority = NULL;
}

int rules_select_opt(const double *time_us, int ncurves, int lo, int hi,
                     const rules_options *opt, rules_interval **out, int *nout)
{
  rules_options dflt;
  if (!opt) {
    rules_options_init(&dflt);
    opt = &dflt;
  }
  if (!time_us || !out || !nout || ncurves < 1 || hi < lo) return SYMV_INVALID_VALUE;
  if (!(opt->threshold >= 0.0 && opt->threshold < 1.0) ||
      !(opt->tolerance >= 0.0 && opt->tolerance < 1.0))
    return SYMV_INVALID_VALUE;
  long long span = (long long)hi - lo + 1;
  if (span >= 0x7fffffffLL ||
      (double)ncurves * (double)(span + 1) > (double)(SIZE_MAX / 16))
    return SYMV_INVALID_VALUE;

  rules_table tb = {.M = ncurves, .N = (int)span, .t = time_us, .priority = opt->priority};
  int M = tb.M, N = tb.N;
  size_t MN = (size_t)M * N;
  for (size_t q = 0; q < MN; q++) {
    double v = time_us[q];
    if (rules_available(v) && !(v > 0.0)) return SYMV_INVALID_VALUE; /* <= 0, -inf */
  }

  int rc = SYMV_NO_MEMORY;
  rules_list L = {0};
  rules_interval *res = NULL;
  tb.sum = malloc((size_t)M * (N + 1) * sizeof *tb.sum);
  tb.nna = malloc((size_t)M * (N + 1) * sizeof *tb.nna);
  int *ibuf = malloc((size_t)N * 6 * sizeof *ibuf);
  L.gain = malloc((size_t)N * sizeof *L.gain);
  if (!tb.sum || !tb.nna || !ibuf || !L.gain) goto out;
  L.start = ibuf;
  L.end = L.start + N;
  L.cand = L.end + N;
  L.prev = L.cand + N;
  L.next = L.prev + N;
  L.to = L.next + N;

  for (int c = 0; c < M; c++) {
    const double *tc = time_us + (size_t)c * N;
    double *ps = tb.sum + (size_t)c * (N + 1);
    int *pn = tb.nna + (size_t)c * (N + 1);
    ps[0] = 0.0;
    pn[0] = 0;
    for (int j = 0; j < N; j++) {
      int ok = rules_available(tc[j]);
      ps[j + 1] = ps[j] + (ok ? tc[j] : 0.0);
      pn[j + 1] = pn[j] + !ok;
    }
  }

  /* Steps 1 and 2: the choice at every n, merged into runs. */
  L.head = 0;
  L.count = 0;
  for (int j = 0; j < N; j++) {
    int c = rules_choose(&tb, j, opt->tolerance);
    if (c < 0) {
      rc = SYMV_INVALID_VALUE;
      goto out;
    }
    if (L.count > 0 && L.cand[L.count - 1] == c) {
      L.end[L.count - 1] = j;
      continue;
    }
    int i = L.count++;
    L.start[i] = L.end[i] = j;
    L.cand[i] = c;
    L.prev[i] = i - 1;
    L.next[i] = -1;
    if (i > 0) L.next[i - 1] = i;
  }
  for (int i = L.head; i >= 0; i = L.next[i]) rules_gain(&tb, &L, i);

  /* Step 3: drop the interval of least gain while it is below threshold. */
  while (L.count > 1) {
    int worst = -1;
    for (int i = L.head; i >= 0; i = L.next[i])
      if (worst < 0 || L.gain[i] < L.gain[worst]) worst = i;
    if (!(L.gain[worst] < opt->threshold)) break;
    int nb = rules_absorb(&L, worst);
    rules_gain(&tb, &L, nb);
    if (L.prev[nb] >= 0) rules_gain(&tb, &L, L.prev[nb]);
    if (L.next[nb] >= 0) rules_gain(&tb, &L, L.next[nb]);
  }

  res = malloc((size_t)L.count * sizeof *res);
  if (!res) goto out;
  int m = 0;
  for (int i = L.head; i >= 0; i = L.next[i], m++) {
    res[m].n_start = lo + L.start[i];
    res[m].n_end = lo + L.end[i];
    res[m].cand = L.cand[i];
  }
  *out = res;
  *nout = m;
  rc = 0;
out:
  free(tb.sum);
  free(tb.nna);
  free(ibuf);
  free(L.gain);
  return rc;
}

int rules_select(const double *time_us, int ncurves, int lo, int hi,
                 double threshold, rules_interval **out, int *nout)
{
  rules_options opt;
  rules_options_init(&opt);
  opt.threshold = threshold;
  return rules_select_opt(time_us, ncurves, lo, hi, &opt, out, nout);
}
