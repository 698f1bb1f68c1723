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
  const int nb = L->to[i];
  /* a left neighbour grows at its end, toward the next intervals; a right
   * one at its start, toward the previous ones */
  const int left = nb == L->prev[i];
  int *edge = left ? L->end : L->start;
  const int *beyond = left ? L->next : L->prev;
  edge[nb] = edge[i];
  rules_unlink(L, i);
  const int far = beyond[nb];
  if (far >= 0 && L->cand[far] == L->cand[nb]) {
    edge[nb] = edge[far];
    rules_unlink(L, far);
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

/* ---- Selection by regret (rules.h) --------------------------------------- */

void rules_regret_options_init(rules_regret_options *opt)
{
  opt->interval_cost = RULES_DEFAULT_INTERVAL_COST;
  opt->log_weight = 1;
  opt->priority = NULL;
  opt->max_regret = INFINITY;
}

/* w(n) of rules.h: the width of n on a ln n axis, or 1. */
static double rules_weight(int log_weight, int n)
{
  return log_weight ? log1p(1.0 / ((double)n - 0.5)) : 1.0;
}

/* The checks common to both functions below; *N := hi - lo + 1. */
static int rules_regret_check(const double *time_us, int ncurves, int lo, int hi, int log_weight, int *N)
{
  if (!time_us || ncurves < 1 || hi < lo || (log_weight && lo < 1)) return SYMV_INVALID_VALUE;
  long long span = (long long)hi - lo + 1;
  if (span >= 0x7fffffffLL || (double)ncurves * (double)span > (double)(SIZE_MAX / 16)) return SYMV_INVALID_VALUE;
  *N = (int)span;
  size_t MN = (size_t)ncurves * (size_t)span;
  for (size_t q = 0; q < MN; q++)
    if (rules_available(time_us[q]) && !(time_us[q] > 0.0)) return SYMV_INVALID_VALUE; /* <= 0, -inf */
  return 0;
}

/* The least available time at grid index j, or +inf where there is none. */
static double rules_best(const double *t, int M, int N, int j)
{
  double best = INFINITY;
  for (int c = 0; c < M; c++) {
    double v = t[(size_t)c * N + j];
    if (rules_available(v) && v < best) best = v;
  }
  return best;
}

int rules_select_regret(const double *time_us, int ncurves, int lo, int hi, const rules_regret_options *opt,
                        rules_interval **out, int *nout)
{
  rules_regret_options dflt;
  if (!opt) {
    rules_regret_options_init(&dflt);
    opt = &dflt;
  }
  int N = 0, M = ncurves;
  if (!out || !nout || !(opt->interval_cost >= 0.0 && isfinite(opt->interval_cost)) || !(opt->max_regret >= 0.0))
    return SYMV_INVALID_VALUE;
  int rc = rules_regret_check(time_us, ncurves, lo, hi, opt->log_weight, &N);
  if (rc) return rc;
  rules_table tb = {.M = M, .N = N, .t = time_us, .priority = opt->priority};
  const double cost = opt->interval_cost;

  /* D of the previous and current n; switched[j M + c]: 1 when the best
   * path to (j, c) comes from argmin[j - 1], another candidate */
  double *prev = malloc((size_t)M * sizeof *prev), *cur = malloc((size_t)M * sizeof *cur);
  unsigned char *switched = malloc((size_t)M * N);
  int *argmin = calloc((size_t)N, sizeof *argmin);
  rules_interval *res = NULL;
  rc = SYMV_NO_MEMORY;
  if (!prev || !cur || !switched || !argmin) goto out;
  for (int j = 0; j < N; j++) {
    double best = rules_best(time_us, M, N, j);
    if (best == INFINITY) {
      rc = SYMV_INVALID_VALUE;
      goto out;
    }
    double w = rules_weight(opt->log_weight, lo + j);
    int from = j ? argmin[j - 1] : -1;
    double sw = j ? prev[from] + cost : 0.0;
    int am = -1;
    for (int c = 0; c < M; c++) {
      double v = time_us[(size_t)c * N + j], d = INFINITY;
      unsigned char s = 0;
      if (rules_available(v) && v / best - 1.0 <= opt->max_regret) {
        double r = w * (v / best - 1.0);
        if (j == 0) d = r;
        else if (prev[c] <= sw) d = prev[c] + r; /* staying wins ties */
        else d = sw + r, s = 1;
      }
      cur[c] = d;
      switched[(size_t)j * M + c] = s;
      if (d < INFINITY && (am < 0 || d < cur[am] || (d == cur[am] && rules_ranks_before(&tb, c, am)))) am = c;
    }
    argmin[j] = am;
    double *t = prev;
    prev = cur, cur = t;
  }

  /* trace back from the best end: count the intervals, then fill them */
  int m = 1;
  for (int j = N - 1, c = argmin[N - 1]; j > 0; j--)
    if (switched[(size_t)j * M + c]) c = argmin[j - 1], m++;
  res = malloc((size_t)m * sizeof *res);
  if (!res) goto out;
  int i = m - 1, c = argmin[N - 1];
  res[i].n_end = hi;
  res[i].cand = c;
  for (int j = N - 1; j > 0; j--)
    if (switched[(size_t)j * M + c]) {
      res[i].n_start = lo + j;
      c = argmin[j - 1];
      i--;
      res[i].n_end = lo + j - 1;
      res[i].cand = c;
    }
  res[0].n_start = lo;
  *out = res;
  *nout = m;
  rc = 0;
out:
  free(prev), free(cur), free(switched), free(argmin);
  return rc;
}

int rules_regret(const double *time_us, int ncurves, int lo, int hi, int log_weight, const rules_interval *iv, int m,
                 double *mean, double *max, int *worst_n)
{
  int N = 0;
  int rc = rules_regret_check(time_us, ncurves, lo, hi, log_weight, &N);
  if (rc) return rc;
  if (!iv || m < 1 || iv[0].n_start != lo || iv[m - 1].n_end != hi) return SYMV_INVALID_VALUE;
  for (int i = 0; i < m; i++)
    if (iv[i].n_start > iv[i].n_end || iv[i].cand < 0 || iv[i].cand >= ncurves ||
        (i > 0 && iv[i].n_start != iv[i - 1].n_end + 1))
      return SYMV_INVALID_VALUE;
  double sum = 0.0, wsum = 0.0, worst = 0.0;
  int wn = lo;
  for (int i = 0; i < m; i++)
    for (int n = iv[i].n_start; n <= iv[i].n_end; n++) {
      int j = n - lo;
      double best = rules_best(time_us, ncurves, N, j);
      if (best == INFINITY) return SYMV_INVALID_VALUE;
      double v = time_us[(size_t)iv[i].cand * N + j];
      double g = rules_available(v) ? v / best : INFINITY, w = rules_weight(log_weight, n);
      sum += w * g;
      wsum += w;
      if (g > worst) worst = g, wn = n;
    }
  if (mean) *mean = sum / wsum;
  if (max) *max = worst;
  if (worst_n) *worst_n = wn;
  return 0;
}
