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
  if (!o->lattice)
    return o->lattice_per_decade >= 1 && o->lattice_per_decade <= 10000 && (!o->odd || (o->lo % 2 && o->hi % 2));
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
    int n = (int)floor(o->lo * pow(10.0, (double)j / o->lattice_per_decade) + 0.5) | (o->odd ? 1 : 0);
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

/* A step of a persistent kernel to sample on both sides: step_below(n)
 * and step_above(n) (n - 1 and n unless odd), where each lacks a sample,
 * scored by its stake. */
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

/* The size timed below step n_s: n_s - 1; with o->odd the largest odd size
 * below n_s where it is within FIT_STEP_BRACKET (fit_step_side), so n_s - 2
 * where n_s - 1 is even. */
static int step_below(const adaptive_opts *o, int ns)
{
  return o->odd && (ns - 1) % 2 == 0 && fit_step_side(ns - 2, ns) < 0 ? ns - 2 : ns - 1;
}

/* The size timed above step n_s: n_s; with o->odd the least odd size from
 * n_s on where it is within FIT_STEP_BRACKET, so n_s + 1 where n_s is even
 * (and below hi). */
static int step_above(const adaptive_opts *o, int ns)
{
  return o->odd && ns % 2 == 0 && ns + 1 <= o->hi && fit_step_side(ns + 1, ns) > 0 ? ns + 1 : ns;
}

/* Whether n is a step size of curve c: step_below or step_above of one of
 * its steps. */
static int step_size_of(const adaptive_opts *o, const adaptive_curve *c, int n)
{
  int sn[FIT_STEP_MAX], k = steps_of(o, c, sn);
  for (int j = 0; j < k; j++)
    if (n == step_above(o, sn[j]) || n == step_below(o, sn[j])) return 1;
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

/* The working state of adaptive_next, shared by its steps. Sizes are in
 * elements; ln t with t in microseconds. The arrays are malloc'ed and
 * freed by plan_free. */
typedef struct {
  const adaptive_opts *o;
  const adaptive_curve *c;   /* [ncurves] the curves */
  int ncurves;
  adaptive_state *st;        /* what the planner found, filled as it goes */
  int *l, nl;                /* [nl] the lattice, ascending */
  int *sampled, ns;          /* [ns] the sizes in lo..hi sampled by any curve, ascending, distinct */
  int *startset, nstart;     /* [nstart] the start set, ascending */
  int *e, ne;                /* [ne] the sizes modelled: the lattice and the sampled sizes, ascending */
  int *cf;                   /* [2 ncurves] each curve's sampled range: first, last (0, 0: not fitted) */
  double *p, *u;             /* [ncurves x ne] each curve's ln t and its uncertainty at e (NaN: not predicted) */
  double *risk;              /* [ne] each size's score, in ln t (0: none) */
  step_pair *pair;           /* [npair] the steps to sample on both sides */
  int npair;
  int *cand, ncand;          /* [ncand] the lattice sizes proposed, indices into e (-1: excluded by a pick) */
} plan;

/* Curve k's ln t at e[i] (NaN: not predicted). */
static double plan_p(const plan *pl, int k, int i)
{
  return pl->p[(size_t)k * (size_t)pl->ne + (size_t)i];
}

/* Curve k's uncertainty in ln t at e[i]. */
static double plan_u(const plan *pl, int k, int i)
{
  return pl->u[(size_t)k * (size_t)pl->ne + (size_t)i];
}

/* The curve predicted fastest at e[i] (the first of equals), or -1 if none
 * is predicted there. */
static int plan_fastest(const plan *pl, int i)
{
  int b = -1;
  for (int k = 0; k < pl->ncurves; k++)
    if (!isnan(plan_p(pl, k, i)) && (b < 0 || plan_p(pl, k, i) < plan_p(pl, b, i))) b = k;
  return b;
}

static void plan_free(plan *pl)
{
  free(pl->l), free(pl->sampled), free(pl->startset), free(pl->e), free(pl->cf), free(pl->p), free(pl->u),
      free(pl->risk), free(pl->pair), free(pl->cand);
}

/* Allocates the lattice (filled in, pl->l, pl->nl) and the arrays that
 * total samples and the lattice bound: sampled, startset, e and cf.
 * Returns 0 or SYMV_NO_MEMORY. */
static int plan_alloc(plan *pl, long total)
{
  pl->l = lattice_of(pl->o, &pl->nl);
  pl->sampled = malloc(sizeof *pl->sampled * (size_t)(total + 1));
  pl->startset = malloc(sizeof *pl->startset * (size_t)(pl->nl + 1));
  pl->e = malloc(sizeof *pl->e * (size_t)(pl->nl + total + 1));
  pl->cf = calloc((size_t)pl->ncurves * 2, sizeof *pl->cf);
  return pl->l && pl->sampled && pl->startset && pl->e && pl->cf ? 0 : SYMV_NO_MEMORY;
}

/* The sizes sampled so far by any curve (within lo..hi, with a finite
 * positive time) into pl->sampled, ascending and distinct, and their
 * number into pl->ns and st->nsampled. */
static void plan_sampled(plan *pl)
{
  const adaptive_opts *o = pl->o;
  const adaptive_curve *c = pl->c;
  int *sampled = pl->sampled, ns = 0;
  for (int i = 0; i < pl->ncurves; i++)
    for (int j = 0; j < c[i].nsamples; j++)
      if (c[i].n[j] >= o->lo && c[i].n[j] <= o->hi && isfinite(c[i].us[j]) && c[i].us[j] > 0) sampled[ns++] = c[i].n[j];
  qsort(sampled, (size_t)ns, sizeof *sampled, cmp_int);
  int w = 0;
  for (int i = 0; i < ns; i++)
    if (w == 0 || sampled[i] != sampled[w - 1]) sampled[w++] = sampled[i];
  pl->ns = w;
  pl->st->nsampled = w;
}

/* Step 1: the start set into pl->startset, and its sizes not yet sampled
 * into out (maxout), their number into *nout; st->starting set where there
 * are any. Errors: SYMV_INVALID_VALUE (the start set exceeds max_sizes, or
 * its missing sizes maxout). */
static int plan_start(plan *pl, int *out, int maxout, int *nout)
{
  int rc;
  if ((rc = start_of(pl->o, pl->l, pl->nl, pl->startset, pl->nl + 1, &pl->nstart))) return rc;
  if (pl->nstart > pl->o->max_sizes) return SYMV_INVALID_VALUE;
  for (int i = 0; i < pl->nstart; i++)
    if (find(pl->sampled, pl->ns, pl->startset[i]) < 0) {
      if (*nout >= maxout) return SYMV_INVALID_VALUE;
      out[(*nout)++] = pl->startset[i];
    }
  if (*nout) pl->st->starting = 1;
  return 0;
}

/* Step 2: the sizes modelled (pl->e: the lattice and the sampled sizes),
 * and every curve's model there (model): pl->p, pl->u and its sampled
 * range pl->cf; pl->risk allocated, all 0. Returns 0, SYMV_NO_MEMORY or
 * the fit's error. */
static int plan_models(plan *pl)
{
  const int nl = pl->nl, ns = pl->ns, *l = pl->l, *sampled = pl->sampled;
  int *e = pl->e, ne = 0;
  for (int i = 0, j = 0; i < nl || j < ns;) {
    int v = j >= ns || (i < nl && l[i] < sampled[j]) ? l[i++] : sampled[j++];
    if (ne == 0 || v != e[ne - 1]) e[ne++] = v;
  }
  pl->ne = ne;
  pl->p = malloc(sizeof *pl->p * (size_t)pl->ncurves * (size_t)ne);
  pl->u = malloc(sizeof *pl->u * (size_t)pl->ncurves * (size_t)ne);
  pl->risk = calloc((size_t)ne, sizeof *pl->risk);
  if (!pl->p || !pl->u || !pl->risk) return SYMV_NO_MEMORY;
  int rc;
  for (int k = 0; k < pl->ncurves; k++)
    if ((rc = model(&pl->c[k], pl->o->lo, pl->o->hi, e, ne, pl->p + (size_t)k * (size_t)ne,
                    pl->u + (size_t)k * (size_t)ne, &pl->cf[2 * k], &pl->cf[2 * k + 1])))
      return rc;
  return 0;
}

/* Step 3, the predicted regret bound: at each size, the largest
 * u_b + u_k - (ln t_k - ln t_b) over the curves k other than the fastest
 * b, into pl->risk; the changes of the fastest curve from size to size
 * counted in st->crossings. */
static void plan_regret(plan *pl)
{
  double *risk = pl->risk;
  int prev_best = -1;
  for (int i = 0; i < pl->ne; i++) {
    int b = plan_fastest(pl, i);
    if (b < 0) continue;
    if (prev_best >= 0 && b != prev_best) pl->st->crossings++;
    prev_best = b;
    for (int k = 0; k < pl->ncurves; k++)
      if (k != b && !isnan(plan_p(pl, k, i)))
        risk[i] = fmax(risk[i], plan_u(pl, b, i) + plan_u(pl, k, i) - (plan_p(pl, k, i) - plan_p(pl, b, i)));
  }
}

/* Step 3, the ends of a curve's sampled range (short of lo, hi): the sizes
 * up to the next sampled one score (pl->risk, raised to) by how much faster
 * it was than the others at its end, in ln t. */
static void plan_ends(plan *pl)
{
  const adaptive_opts *o = pl->o;
  const int *e = pl->e, ne = pl->ne, *sampled = pl->sampled, ns = pl->ns;
  for (int k = 0; k < pl->ncurves; k++) {
    for (int side = 0; side < 2; side++) {
      int end = pl->cf[2 * k + side];
      if (!end || end == (side ? o->hi : o->lo)) continue;
      int ie = find(e, ne, end), is = find(sampled, ns, end);
      if (ie < 0 || is < 0) continue;
      double gap = INFINITY;
      for (int j = 0; j < pl->ncurves; j++)
        if (j != k && !isnan(plan_p(pl, j, ie))) gap = fmin(gap, plan_p(pl, j, ie) - plan_p(pl, k, ie));
      if (!(gap > 0) || !isfinite(gap)) continue;
      int beyond = side ? (is + 1 < ns ? sampled[is + 1] : o->hi + 1) : (is > 0 ? sampled[is - 1] : o->lo - 1);
      for (int i = 0; i < ne; i++)
        if (side ? e[i] > end && e[i] < beyond : e[i] < end && e[i] > beyond) pl->risk[i] = fmax(pl->risk[i], gap);
    }
  }
}

/* Step 3, rule boundaries: at a crossing of the fastest curve not yet
 * bracketed by samples within ADAPTIVE_BRACKET of each other, the
 * unsampled lattice size nearest to it (in ln n, at least
 * ADAPTIVE_MIN_SEPARATION from the bracket's samples) bisects the bracket,
 * scored (pl->risk, raised to) by the largest gap in ln t between the two
 * curves within the bracket (the loss if the crossing lay anywhere in it). */
static void plan_crossings(plan *pl)
{
  const int *e = pl->e, ne = pl->ne, *sampled = pl->sampled, ns = pl->ns;
  for (int i = 0, prev = -1; i < ne; i++) {
    int b = plan_fastest(pl, i);
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
          if (e[j] > a && e[j] < z && find(pl->l, pl->nl, e[j]) >= 0 &&
              fabs(log(e[j] / (double)a)) >= log(ADAPTIVE_MIN_SEPARATION) &&
              fabs(log(z / (double)e[j])) >= log(ADAPTIVE_MIN_SEPARATION) &&
              (pick < 0 || fabs(log(e[j] / x)) < fabs(log(e[pick] / x))))
            pick = j;
        double gap = 0;
        for (int j = 0; j < ne; j++)
          if (e[j] >= a && e[j] <= z && !isnan(plan_p(pl, b, j)) && !isnan(plan_p(pl, prev, j)))
            gap = fmax(gap, fabs(plan_p(pl, b, j) - plan_p(pl, prev, j)));
        if (pick >= 0) pl->risk[pick] = fmax(pl->risk[pick], gap);
      }
    }
    prev = b;
  }
}

/* The stake of step n of curve k (adaptive.h, steps), in ln t: J - |d|, J
 * the jump of a launch into m tiles a block, d the least gap between the
 * curve and the fastest other one between the curve's samples around n.
 * *need_a, *need_z: whether the side below (n - 1) and above (n) lack a
 * sample within FIT_STEP_BRACKET (fit_step_side). 0 where neither does or
 * no other curve is predicted there. */
static double plan_step_stake(const plan *pl, int k, int n, int *need_a, int *need_z)
{
  const adaptive_curve *ck = &pl->c[k];
  int a = 0, z = 0; /* the curve's sampled sizes around the step */
  for (int i = 0; i < ck->nsamples; i++) {
    const int v = ck->n[i];
    if (!(isfinite(ck->us[i]) && ck->us[i] > 0)) continue;
    if (v < n && v > a) a = v;
    if (v >= n && (!z || v < z)) z = v;
  }
  /* the nearest samples on either side: the step is bracketed where they are close (fit_step_side) */
  *need_a = !(a && fit_step_side(a, n) < 0), *need_z = !(z && fit_step_side(z, n) > 0);
  if (!*need_a && !*need_z) return 0;
  const long T = fit_step_items(ck->step_width, n), m = (T + ck->grid_blocks - 1) / ck->grid_blocks;
  const double J = log((FIT_STEP_C + m) / (FIT_STEP_C + m - 1));
  double d = INFINITY;
  for (int i = 0; i < pl->ne; i++) {
    if (pl->e[i] < (a ? a : n - 1) || pl->e[i] > (z ? z : n) || isnan(plan_p(pl, k, i))) continue;
    double best = INFINITY;
    for (int other = 0; other < pl->ncurves; other++)
      if (other != k && !isnan(plan_p(pl, other, i))) best = fmin(best, plan_p(pl, other, i));
    if (isfinite(best)) d = fmin(d, fabs(plan_p(pl, k, i) - best));
  }
  return isfinite(d) ? J - d : 0;
}

/* Step 3, steps: the steps of the persistent kernels within their sampled
 * ranges not yet sampled on both sides, each with a positive stake
 * (plan_step_stake), into pl->pair: one pair per n, scored by the largest
 * stake of its curves, costing per side the fraction of the curves timed
 * there. Returns 0 or SYMV_NO_MEMORY. */
static int plan_step_pairs(plan *pl)
{
  const adaptive_opts *o = pl->o;
  const adaptive_curve *c = pl->c;
  const int ncurves = pl->ncurves;
  pl->npair = 0;
  pl->pair = malloc(sizeof *pl->pair * ((size_t)ncurves * FIT_STEP_MAX + 1));
  if (!pl->pair) return SYMV_NO_MEMORY;
  step_pair *pair = pl->pair;
  for (int k = 0; k < ncurves; k++) {
    int sn[FIT_STEP_MAX];
    if (c[k].grid_blocks < 1 || !pl->cf[2 * k]) continue;
    const int nst = fit_step_sizes(c[k].step_width, c[k].grid_blocks, pl->cf[2 * k], pl->cf[2 * k + 1], sn, FIT_STEP_MAX);
    for (int j = 0; j < nst; j++) {
      const int n = sn[j];
      int need_a, need_z;
      const double stake = plan_step_stake(pl, k, n, &need_a, &need_z);
      if (!(stake > 0)) continue;
      int have = -1;
      for (int q = 0; q < pl->npair; q++)
        if (pair[q].n == n) have = q;
      if (have < 0) /* the curves timed there: those with this step */
        have = pl->npair++, pair[have] = (step_pair){n, need_a && step_below(o, n) >= o->lo, need_z && n <= o->hi, 0,
                                                     (double)curves_with_step(o, c, ncurves, n) / ncurves};
      pair[have].score = fmax(pair[have].score, stake);
    }
  }
  return 0;
}

/* The budget spent, in sizes: a size every curve was timed at counts 1, a
 * step size the fraction of the curves timed there. */
static double plan_used(const plan *pl)
{
  const adaptive_curve *c = pl->c;
  const int ncurves = pl->ncurves;
  double used = 0;
  for (int i = 0; i < pl->ns; i++) {
    const int n = pl->sampled[i];
    int have = 0;
    if (!curves_with_step(pl->o, c, ncurves, n) || find(pl->startset, pl->nstart, n) >= 0) {
      used += 1;
      continue;
    }
    for (int k = 0; k < ncurves; k++)
      for (int j = 0; j < c[k].nsamples; j++) have += c[k].n[j] == n;
    used += (double)have / ncurves;
  }
  return used;
}

/* The lattice sizes not sampled, not a step size of any curve and not
 * within a factor of ADAPTIVE_MIN_SEPARATION of a sampled size, into
 * pl->cand (indices into e, ascending). Returns 0 or SYMV_NO_MEMORY. */
static int plan_candidates(plan *pl)
{
  const int *e = pl->e, *sampled = pl->sampled, ns = pl->ns;
  pl->ncand = 0;
  pl->cand = malloc(sizeof *pl->cand * (size_t)pl->ne);
  if (!pl->cand) return SYMV_NO_MEMORY;
  for (int i = 0, j = 0; i < pl->ne; i++) {
    if (find(pl->l, pl->nl, e[i]) < 0 || find(sampled, ns, e[i]) >= 0) continue;
    /* a step size is timed for its curves alone: not a lattice pick */
    if (curves_with_step(pl->o, pl->c, pl->ncurves, e[i])) continue;
    while (j + 1 < ns && sampled[j + 1] <= e[i]) j++;
    double near = fabs(log((double)e[i] / sampled[j]));
    if (j + 1 < ns) near = fmin(near, fabs(log((double)sampled[j + 1] / e[i])));
    if (near >= log(ADAPTIVE_MIN_SEPARATION)) pl->cand[pl->ncand++] = i;
  }
  return 0;
}

/* Step 4, the next batch: candidates and step pairs by decreasing score,
 * above ln(1 + target), each pick excluding the candidates within a factor
 * of ADAPTIVE_BATCH_SPREAD of it, within room: at most `batch` sizes and
 * `left` (the budget left, in sizes; a step size costs the fraction of the
 * curves timed there), and maxout. The sizes into out, ascending, their
 * number into *nout; where none, st->stop says why. */
static void plan_batch(plan *pl, double left, int *out, int maxout, int *nout)
{
  const adaptive_opts *o = pl->o;
  int *cand = pl->cand;
  const int ncand = pl->ncand;
  const double *risk = pl->risk;
  step_pair *pair = pl->pair;
  double room = o->batch < left ? o->batch : left, spent = 0;
  double floor_score = log1p(o->target);
  for (;;) {
    int best = -1, bp = -1;
    if (spent + 1 <= room + 1e-9 && *nout < maxout)
      for (int j = 0; j < ncand; j++)
        if (cand[j] >= 0 && risk[cand[j]] > floor_score && (best < 0 || risk[cand[j]] > risk[cand[best]])) best = j;
    for (int q = 0; q < pl->npair; q++) {
      const int sides = pair[q].below + pair[q].above;
      if (sides && pair[q].score > floor_score && spent + sides * pair[q].cost <= room + 1e-9 &&
          *nout + sides <= maxout && (bp < 0 || pair[q].score > pair[bp].score))
        bp = q;
    }
    if (best < 0 && bp < 0) break;
    int pick;
    if (bp >= 0 && (best < 0 || pair[bp].score >= risk[cand[best]])) {
      pick = pair[bp].n;
      if (pair[bp].below) out[(*nout)++] = step_below(o, pick);
      if (pair[bp].above) out[(*nout)++] = step_above(o, pick);
      spent += (pair[bp].below + pair[bp].above) * pair[bp].cost;
      pair[bp].score = 0;
    } else {
      pick = pl->e[cand[best]];
      out[(*nout)++] = pick;
      spent += 1;
    }
    for (int j = 0; j < ncand; j++)
      if (cand[j] >= 0 && fabs(log((double)pl->e[cand[j]] / pick)) < log(ADAPTIVE_BATCH_SPREAD)) cand[j] = -1;
  }
  if (*nout == 0) pl->st->stop = room < 1 ? "budget" : "target"; /* nothing fits, or nothing scores */
  qsort(out, (size_t)*nout, sizeof *out, cmp_int);
}

/* One round of the planner over the allocated pl (adaptive_next's steps
 * 1-5): the sizes into out (maxout), their number into *nout (0: stop,
 * st->stop says why). Returns 0 or an error of adaptive_next. */
static int plan_round(plan *pl, int *out, int maxout, int *nout)
{
  int rc;
  plan_sampled(pl);
  /* 1. the start set first */
  if ((rc = plan_start(pl, out, maxout, nout)) || *nout) return rc;
  /* 2. every curve's model at the lattice and the sampled sizes */
  if ((rc = plan_models(pl))) return rc;
  /* 3. the predicted regret bound at each size, its largest in st */
  plan_regret(pl);
  plan_ends(pl);
  for (int i = 0; i < pl->ne; i++)
    if (isnan(pl->st->bound) || pl->risk[i] > log(pl->st->bound))
      pl->st->bound = exp(pl->risk[i]), pl->st->worst_n = pl->e[i];
  /* and what raises a size's score past it: crossings, steps */
  plan_crossings(pl);
  if ((rc = plan_step_pairs(pl))) return rc;
  /* 4. the next batch: unsampled lattice sizes by decreasing score */
  const double left = pl->o->max_sizes - plan_used(pl);
  if (left < 1e-9) {
    pl->st->stop = "budget";
    return 0;
  }
  if ((rc = plan_candidates(pl))) return rc;
  if (pl->ncand == 0 && pl->npair == 0) {
    pl->st->stop = "lattice";
    return 0;
  }
  plan_batch(pl, left, out, maxout, nout);
  return 0;
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
  plan pl = {.o = o, .c = c, .ncurves = ncurves, .st = st};
  int rc = plan_alloc(&pl, total);
  if (!rc) rc = plan_round(&pl, out, maxout, nout);
  if (rc) *nout = 0;
  plan_free(&pl);
  return rc;
}
