/* SPDX-License-Identifier: BSD-3-Clause */
/* adaptive.c - the adaptive dense stage's planner (adaptive.h). */
#include "adaptive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fit/fit.h"
#include "../kernels/symv_pipe.h"
#include "symv_error.h"
#include "util.h"

void adaptive_opts_init(adaptive_opts *o, int lo, int hi)
{
  memset(o, 0, sizeof *o);
  o->lo = lo, o->hi = hi;
  o->start_per_decade = ADAPTIVE_DEFAULT_START;
  o->lattice_per_decade = ADAPTIVE_DEFAULT_LATTICE;
  o->batch = ADAPTIVE_DEFAULT_BATCH;
  o->target = ADAPTIVE_DEFAULT_TARGET;
  /* the grid the sweep samples without the planner: 24 per decade, hi included */
  int k = 0, prev = 0;
  for (int j = 0; lo >= 1 && hi > lo; j++) {
    int n = (int)floor(lo * pow(10.0, j / 24.0) + 0.5);
    if (n > hi) break;
    if (n != prev) k++, prev = n;
  }
  if (prev != hi) k++;
  o->max_sizes = k / 2;
}

static int opts_valid(const adaptive_opts *o)
{
  if (!o || o->lo < 1 || o->hi <= o->lo || o->start_per_decade < 1 || o->start_per_decade > 1000 || o->batch < 1 ||
      o->max_sizes < 2 || !(o->target >= 0 && o->target < 1))
    return 0;
  if (!o->lattice) return o->lattice_per_decade >= 1 && o->lattice_per_decade <= 10000;
  if (o->nlattice < 2 || o->lattice[0] != o->lo || o->lattice[o->nlattice - 1] != o->hi) return 0;
  for (int i = 1; i < o->nlattice; i++)
    if (o->lattice[i] <= o->lattice[i - 1]) return 0;
  return 1;
}

/* The lattice of o, malloc'ed, ascending, lo and hi included; NULL if out
 * of memory. */
static int *lattice_of(const adaptive_opts *o, int *count)
{
  if (o->lattice) {
    int *l = malloc(sizeof *l * (size_t)o->nlattice);
    if (l) memcpy(l, o->lattice, sizeof *l * (size_t)o->nlattice), *count = o->nlattice;
    return l;
  }
  double decades = log10((double)o->hi / o->lo);
  size_t max = (size_t)ceil(decades * o->lattice_per_decade) + 2;
  int *l = malloc(sizeof *l * max);
  if (!l) return NULL;
  int k = 0;
  for (int j = 0; (size_t)k < max - 1; j++) {
    int n = (int)floor(o->lo * pow(10.0, (double)j / o->lattice_per_decade) + 0.5);
    if (n >= o->hi) break;
    if (k == 0 || n != l[k - 1]) l[k++] = n;
  }
  l[k++] = o->hi;
  *count = k;
  return l;
}

/* The lattice size nearest to n in ln n (the smaller one on a tie). */
static int snap(const int *l, int nl, double n)
{
  int best = l[0];
  double d = INFINITY;
  for (int i = 0; i < nl; i++) {
    double e = fabs(log(l[i] / n));
    if (e < d) d = e, best = l[i];
  }
  return best;
}

/* The start set from the lattice l[0..nl) into out (maxout): round(decades
 * x start_per_decade) equal steps in ln n from lo to hi, snapped. */
static int start_of(const adaptive_opts *o, const int *l, int nl, int *out, int maxout, int *nout)
{
  double span = log((double)o->hi / o->lo);
  int steps = (int)lround(span / log(10.0) * o->start_per_decade);
  if (steps < 1) steps = 1;
  int k = 0;
  for (int j = 0; j <= steps; j++) {
    int n = j == steps ? o->hi : snap(l, nl, o->lo * exp(span * j / steps));
    if (k == 0 || n > out[k - 1]) {
      if (k >= maxout) return SYMV_INVALID_VALUE;
      out[k++] = n;
    }
  }
  *nout = k;
  return 0;
}

int adaptive_start(const adaptive_opts *o, int *out, int maxout, int *nout)
{
  if (!opts_valid(o) || !out || !nout || maxout < 1) return SYMV_INVALID_VALUE;
  int nl = 0, *l = lattice_of(o, &nl);
  if (!l) return SYMV_NO_MEMORY;
  int rc = start_of(o, l, nl, out, maxout, nout);
  free(l);
  return rc;
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Index of n in the ascending a[0..k), or -1. */
static int find(const int *a, int k, int n)
{
  const int *p = bsearch(&n, a, (size_t)k, sizeof *a, cmp_int);
  return p ? (int)(p - a) : -1;
}

/* One sample of a curve, for sorting by n. */
typedef struct {
  int n;
  double us;
} sample;

/* A step of a persistent kernel to sample on both sides: n - 1 (below)
 * and n (above), where each lacks a sample, scored by its stake. */
typedef struct {
  int n;
  int below, above;
  double score;
  double cost;     /* per side, in sizes: the fraction of the curves timed there */
} step_pair;

static int cmp_sample(const void *a, const void *b)
{
  const sample *x = a, *y = b;
  return (x->n > y->n) - (x->n < y->n);
}

/* Fits the samples s[idx[0..k)] (ascending n) of curve ac as the fit stage does, with
 * the smoothing weight *alpha (0: chosen by GCV, and returned there), and
 * writes ln t at the ne sizes e into out (NaN where not predicted). */
static int fit_at(const adaptive_curve *ac, const sample *s, const int *idx, int k, int lo, int hi, const int *e,
                  int ne, double *out, double *alpha)
{
  fit_curve c;
  memset(&c, 0, sizeof c);
  c.step_width = ac->step_width, c.grid_blocks = ac->grid_blocks; /* the steps, as the fit stage fits them */
  c.n = malloc(sizeof *c.n * (size_t)k);
  c.us = malloc(sizeof *c.us * (size_t)k);
  c.rejected = calloc((size_t)k, 1);
  int rc = SYMV_NO_MEMORY;
  if (c.n && c.us && c.rejected) {
    for (int i = 0; i < k; i++) c.n[i] = s[idx[i]].n, c.us[i] = s[idx[i]].us;
    c.nsamples = k;
    rc = fit_curve_compute(&c, lo, hi, *alpha);
    *alpha = c.alpha;
  }
  for (int i = 0; i < ne; i++) out[i] = !rc && c.pred_us[e[i] - lo] > 0 ? log(c.pred_us[e[i] - lo]) : NAN;
  free(c.n), free(c.us), free(c.rejected), free(c.pred_us);
  return rc;
}

/* The model of one curve at the ne sizes e: ln t in p, uncertainty in u
 * (both NaN where the curve is not predicted), and its sampled range in
 * *first, *last (0, 0: not fitted). */
static int model(const adaptive_curve *c, int lo, int hi, const int *e, int ne, double *p, double *u, int *first,
                 int *last)
{
  for (int i = 0; i < ne; i++) p[i] = u[i] = NAN;
  *first = *last = 0;
  int k = 0;
  sample *s = malloc(sizeof *s * (size_t)(c->nsamples + 1));
  int *idx = malloc(sizeof *idx * (size_t)(c->nsamples + 2));
  double *q = malloc(sizeof *q * (size_t)ne * 2);
  int rc = SYMV_NO_MEMORY;
  if (!s || !idx || !q) goto out;
  for (int i = 0; i < c->nsamples; i++)
    if (c->n[i] >= lo && c->n[i] <= hi && isfinite(c->us[i]) && c->us[i] > 0) s[k].n = c->n[i], s[k].us = c->us[i], k++;
  qsort(s, (size_t)k, sizeof *s, cmp_sample);
  rc = 0;
  if (k < 2) goto out;
  for (int i = 0; i < k; i++) idx[i] = i;
  double alpha = 0;
  if ((rc = fit_at(c, s, idx, k, lo, hi, e, ne, p, &alpha))) goto out;
  *first = s[0].n, *last = s[k - 1].n;
  /* the two halves, each with both ends so that both reach first..last */
  for (int h = 0; h < 2; h++) {
    int m = 0;
    if (h == 1) idx[m++] = 0;
    for (int i = h == 0 ? 0 : 1; i < k - 1; i += 2) idx[m++] = i;
    if (idx[m - 1] != k - 1) idx[m++] = k - 1;
    /* the full fit's smoothing width: alpha scales as sqrt(samples) for a
     * given width (dspline.h), and GCV on half the samples is twice the work */
    double ah = alpha > 0 ? alpha * sqrt((double)m / k) : 0;
    if ((rc = fit_at(c, s, idx, m, lo, hi, e, ne, q + (size_t)h * (size_t)ne, &ah))) goto out;
  }
  for (int i = 0, j = 0; i < ne; i++) {
    if (isnan(p[i])) continue;
    double d = 0;
    for (int h = 0; h < 2; h++) {
      double v = q[(size_t)h * (size_t)ne + (size_t)i];
      if (!isnan(v)) d = fmax(d, fabs(v - p[i]));
    }
    while (j + 1 < k && s[j + 1].n <= e[i]) j++;
    double dist = fabs(log((double)e[i] / s[j].n));
    if (j + 1 < k) dist = fmin(dist, fabs(log((double)s[j + 1].n / e[i])));
    u[i] = ADAPTIVE_DISAGREEMENT * d + ADAPTIVE_GAP_SLOPE * dist;
  }
out:
  free(s), free(idx), free(q);
  return rc;
}

/* The steps of curve c within o->lo + 1 .. o->hi (fit_step_sizes) into
 * sn[0..FIT_STEP_MAX); how many. */
static int steps_of(const adaptive_opts *o, const adaptive_curve *c, int *sn)
{
  return c->grid_blocks > 0 ? fit_step_sizes(c->step_width, c->grid_blocks, o->lo, o->hi, sn, FIT_STEP_MAX) : 0;
}

/* Whether n is a step size of curve c: n_s - 1 or n_s of one of its steps. */
static int step_size_of(const adaptive_opts *o, const adaptive_curve *c, int n)
{
  int sn[FIT_STEP_MAX], k = steps_of(o, c, sn);
  for (int j = 0; j < k; j++)
    if (n == sn[j] || n == sn[j] - 1) return 1;
  return 0;
}

/* How many of the curves c[0..ncurves) n is a step size of (step_size_of):
 * those timed there; 0 for a size every curve is timed at. */
static int curves_with_step(const adaptive_opts *o, const adaptive_curve *c, int ncurves, int n)
{
  int who = 0;
  for (int k = 0; k < ncurves; k++) who += step_size_of(o, &c[k], n);
  return who;
}

int adaptive_wants(const adaptive_opts *o, const adaptive_curve *c, int ncurves, int k, int n)
{
  if (!opts_valid(o) || !c || k < 0 || k >= ncurves) return 1;
  if (step_size_of(o, &c[k], n) || !curves_with_step(o, c, ncurves, n)) return 1;
  /* a size of the start set is every curve's */
  int nl = 0, *l = lattice_of(o, &nl), *ss = l ? malloc(sizeof *ss * (size_t)(nl + 1)) : NULL, nss = 0, start = 0;
  if (ss && !start_of(o, l, nl, ss, nl + 1, &nss)) start = find(ss, nss, n) >= 0;
  free(l), free(ss);
  return start;
}

int adaptive_next(const adaptive_opts *o, const adaptive_curve *c, int ncurves, int *out, int maxout, int *nout,
                  adaptive_state *st)
{
  adaptive_state dummy;
  if (!st) st = &dummy;
  memset(st, 0, sizeof *st);
  st->bound = NAN;
  if (!opts_valid(o) || !c || ncurves < 1 || !out || !nout || maxout < 1) return SYMV_INVALID_VALUE;
  *nout = 0;
  long total = 0;
  for (int i = 0; i < ncurves; i++) {
    if (c[i].nsamples < 0 || (c[i].nsamples > 0 && (!c[i].n || !c[i].us))) return SYMV_INVALID_VALUE;
    total += c[i].nsamples;
  }
  int nl = 0, *l = lattice_of(o, &nl);
  int *sampled = malloc(sizeof *sampled * (size_t)(total + 1));
  int *startset = malloc(sizeof *startset * (size_t)(nl + 1));
  int *e = malloc(sizeof *e * (size_t)(nl + total + 1));
  int *cf = calloc((size_t)ncurves * 2, sizeof *cf);
  double *p = NULL, *u = NULL, *risk = NULL;
  int rc = SYMV_NO_MEMORY;
  if (!l || !sampled || !startset || !e || !cf) goto out;

  /* the sizes sampled so far (by any curve), ascending */
  int ns = 0;
  for (int i = 0; i < ncurves; i++)
    for (int j = 0; j < c[i].nsamples; j++)
      if (c[i].n[j] >= o->lo && c[i].n[j] <= o->hi && isfinite(c[i].us[j]) && c[i].us[j] > 0) sampled[ns++] = c[i].n[j];
  qsort(sampled, (size_t)ns, sizeof *sampled, cmp_int);
  int w = 0;
  for (int i = 0; i < ns; i++)
    if (w == 0 || sampled[i] != sampled[w - 1]) sampled[w++] = sampled[i];
  ns = w;
  st->nsampled = ns;

  /* 1. the start set first */
  int nstart = 0;
  if ((rc = start_of(o, l, nl, startset, nl + 1, &nstart))) goto out;
  if (nstart > o->max_sizes) {
    rc = SYMV_INVALID_VALUE;
    goto out;
  }
  for (int i = 0; i < nstart; i++)
    if (find(sampled, ns, startset[i]) < 0) {
      if (*nout >= maxout) {
        rc = SYMV_INVALID_VALUE;
        goto out;
      }
      out[(*nout)++] = startset[i];
    }
  if (*nout) {
    st->starting = 1;
    rc = 0;
    goto out;
  }

  /* 2. every curve's model at the lattice and the sampled sizes */
  int ne = 0;
  for (int i = 0, j = 0; i < nl || j < ns;) {
    int v = j >= ns || (i < nl && l[i] < sampled[j]) ? l[i++] : sampled[j++];
    if (ne == 0 || v != e[ne - 1]) e[ne++] = v;
  }
  p = malloc(sizeof *p * (size_t)ncurves * (size_t)ne);
  u = malloc(sizeof *u * (size_t)ncurves * (size_t)ne);
  risk = calloc((size_t)ne, sizeof *risk);
  rc = SYMV_NO_MEMORY;
  if (!p || !u || !risk) goto out;
  for (int k = 0; k < ncurves; k++)
    if ((rc = model(&c[k], o->lo, o->hi, e, ne, p + (size_t)k * (size_t)ne, u + (size_t)k * (size_t)ne, &cf[2 * k],
                    &cf[2 * k + 1])))
      goto out;
#define P(k, i) p[(size_t)(k) * (size_t)ne + (size_t)(i)]
#define U(k, i) u[(size_t)(k) * (size_t)ne + (size_t)(i)]

  /* 3. the predicted regret bound at each size */
  int prev_best = -1;
  for (int i = 0; i < ne; i++) {
    int b = -1;
    for (int k = 0; k < ncurves; k++)
      if (!isnan(P(k, i)) && (b < 0 || P(k, i) < P(b, i))) b = k;
    if (b < 0) continue;
    if (prev_best >= 0 && b != prev_best) st->crossings++;
    prev_best = b;
    for (int k = 0; k < ncurves; k++)
      if (k != b && !isnan(P(k, i))) risk[i] = fmax(risk[i], U(b, i) + U(k, i) - (P(k, i) - P(b, i)));
  }
  /* the ends of a curve's sampled range: the sizes up to the next sampled
   * one score by how much faster it was than the others at its end */
  for (int k = 0; k < ncurves; k++) {
    for (int side = 0; side < 2; side++) {
      int end = cf[2 * k + side];
      if (!end || end == (side ? o->hi : o->lo)) continue;
      int ie = find(e, ne, end), is = find(sampled, ns, end);
      if (ie < 0 || is < 0) continue;
      double gap = INFINITY;
      for (int j = 0; j < ncurves; j++)
        if (j != k && !isnan(P(j, ie))) gap = fmin(gap, P(j, ie) - P(k, ie));
      if (!(gap > 0) || !isfinite(gap)) continue;
      int beyond = side ? (is + 1 < ns ? sampled[is + 1] : o->hi + 1) : (is > 0 ? sampled[is - 1] : o->lo - 1);
      for (int i = 0; i < ne; i++)
        if (side ? e[i] > end && e[i] < beyond : e[i] < end && e[i] > beyond) risk[i] = fmax(risk[i], gap);
    }
  }
  for (int i = 0; i < ne; i++)
    if (isnan(st->bound) || risk[i] > log(st->bound)) st->bound = exp(risk[i]), st->worst_n = e[i];
  /* a crossing of the fastest curve not yet bracketed by samples within
   * ADAPTIVE_BRACKET of each other: the unsampled size nearest to it
   * bisects the bracket, scored by the largest gap between the two curves
   * within the bracket (the loss if the crossing lay anywhere in it) */
  for (int i = 0, prev = -1; i < ne; i++) {
    int b = -1;
    for (int k = 0; k < ncurves; k++)
      if (!isnan(P(k, i)) && (b < 0 || P(k, i) < P(b, i))) b = k;
    if (b < 0) continue;
    if (prev >= 0 && b != prev) {
      double x = sqrt((double)e[i - 1] * e[i]);
      int a = 0, z = 0;
      for (int j = 0; j < ns; j++) {
        if (sampled[j] <= e[i - 1]) a = sampled[j];
        if (sampled[j] >= e[i] && !z) z = sampled[j];
      }
      if (a && z && (double)z / a > ADAPTIVE_BRACKET) {
        int pick = -1;
        for (int j = 0; j < ne; j++)
          if (e[j] > a && e[j] < z && find(l, nl, e[j]) >= 0 && fabs(log(e[j] / (double)a)) >= log(ADAPTIVE_MIN_SEPARATION) &&
              fabs(log(z / (double)e[j])) >= log(ADAPTIVE_MIN_SEPARATION) &&
              (pick < 0 || fabs(log(e[j] / x)) < fabs(log(e[pick] / x))))
            pick = j;
        double gap = 0;
        for (int j = 0; j < ne; j++)
          if (e[j] >= a && e[j] <= z && !isnan(P(b, j)) && !isnan(P(prev, j))) gap = fmax(gap, fabs(P(b, j) - P(prev, j)));
        if (pick >= 0) risk[pick] = fmax(risk[pick], gap);
      }
    }
    prev = b;
  }

  /* the steps of the persistent kernels not yet sampled on both sides:
   * the pair n_s - 1, n_s scores the stake J - |d| (adaptive.h) */
  int npair = 0;
  step_pair *pair = malloc(sizeof *pair * ((size_t)ncurves * FIT_STEP_MAX + 1));
  if (!pair) {
    rc = SYMV_NO_MEMORY;
    goto out;
  }
  for (int k = 0; k < ncurves; k++) {
    int sn[FIT_STEP_MAX];
    if (c[k].grid_blocks < 1 || !cf[2 * k]) continue;
    const int nst = fit_step_sizes(c[k].step_width, c[k].grid_blocks, cf[2 * k], cf[2 * k + 1], sn, FIT_STEP_MAX);
    for (int j = 0; j < nst; j++) {
      const int n = sn[j];
      int a = 0, z = 0; /* the curve's sampled sizes around the step */
      for (int i = 0; i < c[k].nsamples; i++) {
        const int v = c[k].n[i];
        if (!(isfinite(c[k].us[i]) && c[k].us[i] > 0)) continue;
        if (v < n && v > a) a = v;
        if (v >= n && (!z || v < z)) z = v;
      }
      /* the nearest samples on either side: the step is bracketed where they are close (fit_step_side) */
      const int need_a = !(a && fit_step_side(a, n) < 0), need_z = !(z && fit_step_side(z, n) > 0);
      if (!need_a && !need_z) continue;
      const long T = symv_pdet_units(n, c[k].step_width), m = (T + c[k].grid_blocks - 1) / c[k].grid_blocks;
      const double J = log((FIT_STEP_C + m) / (FIT_STEP_C + m - 1));
      double d = INFINITY;
      for (int i = 0; i < ne; i++) {
        if (e[i] < (a ? a : n - 1) || e[i] > (z ? z : n) || isnan(P(k, i))) continue;
        double best = INFINITY;
        for (int o2 = 0; o2 < ncurves; o2++)
          if (o2 != k && !isnan(P(o2, i))) best = fmin(best, P(o2, i));
        if (isfinite(best)) d = fmin(d, fabs(P(k, i) - best));
      }
      const double stake = isfinite(d) ? J - d : 0;
      if (!(stake > 0)) continue;
      int have = -1;
      for (int q = 0; q < npair; q++)
        if (pair[q].n == n) have = q;
      if (have < 0) /* the curves timed there: those with this step */
        have = npair++, pair[have] = (step_pair){n, need_a && n - 1 >= o->lo, need_z && n <= o->hi, 0,
                                                 (double)curves_with_step(o, c, ncurves, n) / ncurves};
      pair[have].score = fmax(pair[have].score, stake);
    }
  }

  /* 4. the next batch: unsampled lattice sizes by decreasing score */
  /* the budget spent: a size every curve was timed at counts 1, a step size
   * the fraction of the curves timed there */
  double used = 0;
  for (int i = 0; i < ns; i++) {
    int have = 0;
    if (!curves_with_step(o, c, ncurves, sampled[i]) || find(startset, nstart, sampled[i]) >= 0) {
      used += 1;
      continue;
    }
    for (int k = 0; k < ncurves; k++)
      for (int j = 0; j < c[k].nsamples; j++) have += c[k].n[j] == sampled[i];
    used += (double)have / ncurves;
  }
  const double left = o->max_sizes - used;
  if (left < 1e-9) {
    st->stop = "budget";
    rc = 0;
    free(pair);
    goto out;
  }
  int ncand = 0, *cand = malloc(sizeof *cand * (size_t)ne);
  if (!cand) {
    rc = SYMV_NO_MEMORY;
    goto out;
  }
  for (int i = 0, j = 0; i < ne; i++) {
    if (find(l, nl, e[i]) < 0 || find(sampled, ns, e[i]) >= 0) continue;
    /* a step size is timed for its curves alone: not a lattice pick */
    if (curves_with_step(o, c, ncurves, e[i])) continue;
    while (j + 1 < ns && sampled[j + 1] <= e[i]) j++;
    double near = fabs(log((double)e[i] / sampled[j]));
    if (j + 1 < ns) near = fmin(near, fabs(log((double)sampled[j + 1] / e[i])));
    if (near >= log(ADAPTIVE_MIN_SEPARATION)) cand[ncand++] = i;
  }
  if (ncand == 0 && npair == 0) {
    st->stop = "lattice";
    free(cand), free(pair);
    rc = 0;
    goto out;
  }
  /* room: at most `batch` sizes' worth and what is left of the budget (a
   * step size: the fraction of the curves timed there) */
  double room = o->batch < left ? o->batch : left, spent = 0;
  double floor_score = log1p(o->target);
  for (;;) {
    int best = -1, bp = -1;
    if (spent + 1 <= room + 1e-9 && *nout < maxout)
      for (int j = 0; j < ncand; j++)
        if (cand[j] >= 0 && risk[cand[j]] > floor_score && (best < 0 || risk[cand[j]] > risk[cand[best]])) best = j;
    for (int q = 0; q < npair; q++) {
      const int sides = pair[q].below + pair[q].above;
      if (sides && pair[q].score > floor_score && spent + sides * pair[q].cost <= room + 1e-9 &&
          *nout + sides <= maxout && (bp < 0 || pair[q].score > pair[bp].score))
        bp = q;
    }
    if (best < 0 && bp < 0) break;
    int pick;
    if (bp >= 0 && (best < 0 || pair[bp].score >= risk[cand[best]])) {
      pick = pair[bp].n;
      if (pair[bp].below) out[(*nout)++] = pick - 1;
      if (pair[bp].above) out[(*nout)++] = pick;
      spent += (pair[bp].below + pair[bp].above) * pair[bp].cost;
      pair[bp].score = 0;
    } else {
      pick = e[cand[best]];
      out[(*nout)++] = pick;
      spent += 1;
    }
    for (int j = 0; j < ncand; j++)
      if (cand[j] >= 0 && fabs(log((double)e[cand[j]] / pick)) < log(ADAPTIVE_BATCH_SPREAD)) cand[j] = -1;
  }
  free(cand), free(pair);
  if (*nout == 0) st->stop = room < 1 ? "budget" : "target"; /* nothing fits, or nothing scores */
  qsort(out, (size_t)*nout, sizeof *out, cmp_int);
  rc = 0;
#undef P
#undef U
out:
  if (rc) *nout = 0;
  free(l), free(sampled), free(startset), free(e), free(cf), free(p), free(u), free(risk);
  return rc;
}
