/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fit.c - the fit stage: dense samples to curves to rules (see fit.h for the
 * method and why).
 */
#include "fit.h"
#include "params.h"
#include "routine.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../dspline/dspline.h"
#include "../dspline/rules.h"
#include "../kernels/symv_pipe.h"
#include "symv_error.h"

/* The largest grid fit_curve_compute accepts, points. */
#define FIT_MAX_SPAN (1 << 26)

void fit_label(const char *kernel, const db_candidate *c, char *buf, size_t size)
{
  if (!strcmp(kernel, DB_KERNEL_CUBLAS))
    snprintf(buf, size, "cuBLAS");
  else if (!strcmp(kernel, DB_KERNEL_CUBLAS_ATOMICS))
    snprintf(buf, size, "cuBLAS-atomics");
  else if (!strcmp(kernel, DB_KERNEL_CANDIDATE) && c) {
    symv_params_format(&c->p, buf, size);
  }
  else
    snprintf(buf, size, "?");
}

static void fit_curve_free(fit_curve *c)
{
  free(c->n);
  free(c->us);
  free(c->rejected);
  free(c->pred_us);
  memset(c, 0, sizeof *c);
}

void fit_set_free(fit_set *s)
{
  if (!s) return;
  for (size_t i = 0; i < s->ncurves; i++) fit_curve_free(&s->curve[i]);
  free(s->curve);
  memset(s, 0, sizeof *s);
}

/* Append a curve for `kernel` (candidate c, or NULL) with the samples of
 * m[0..count) that have a positive time. */
static int fit_add(fit_set *s, const char *kernel, const db_candidate *c, const db_measurement *m,
                   size_t count)
{
  fit_curve *grown = realloc(s->curve, (s->ncurves + 1) * sizeof *grown);
  if (!grown) return SYMV_NO_MEMORY;
  s->curve = grown;
  fit_curve *k = &s->curve[s->ncurves];
  memset(k, 0, sizeof *k);
  snprintf(k->kernel, sizeof k->kernel, "%s", kernel);
  if (c) k->cand = *c;
  fit_label(kernel, c, k->label, sizeof k->label);
  k->n = malloc(count * sizeof *k->n);
  k->us = malloc(count * sizeof *k->us);
  k->rejected = calloc(count, 1);
  if (!k->n || !k->us || !k->rejected) {
    fit_curve_free(k);
    return SYMV_NO_MEMORY;
  }
  /* db_*_measurements order by n; one (uplo, hot) gives one sample per n. */
  for (size_t i = 0; i < count; i++)
    if (isfinite(m[i].median_us) && m[i].median_us > 0) {
      k->n[k->nsamples] = m[i].n;
      k->us[k->nsamples] = m[i].median_us;
      k->nsamples++;
    }
  s->ncurves++;
  return 0;
}

int fit_load(db *d, symv_routine routine, char uplo, int hot, fit_set *out)
{
  static const char *const baselines[2] = {DB_KERNEL_CUBLAS, DB_KERNEL_CUBLAS_ATOMICS};
  memset(out, 0, sizeof *out);
  if ((uplo != 'L' && uplo != 'U') || (hot != 0 && hot != 1) || (unsigned)routine >= SYMV_ROUTINE_COUNT)
    return SYMV_INVALID_VALUE;
  out->routine = routine;
  out->uplo = uplo;
  out->hot = hot;
  int rc = 0;
  for (int b = 0; b < 2 && !rc; b++) {
    db_measurement *m = NULL;
    size_t count = 0;
    rc = db_baseline_measurements(d, routine, baselines[b], DB_STAGE_DENSE, uplo, hot, &m, &count);
    if (!rc && count > 0) rc = fit_add(out, baselines[b], NULL, m, count);
    free(m);
  }
  db_candidate *cand = NULL;
  size_t ncand = 0;
  if (!rc) rc = db_list_candidates(d, routine, DB_VALID, DB_ANY_FAMILY, &cand, &ncand);
  for (size_t i = 0; i < ncand && !rc; i++) {
    db_measurement *m = NULL;
    size_t count = 0;
    rc = db_candidate_measurements(d, cand[i].id, DB_STAGE_DENSE, uplo, hot, &m, &count);
    if (!rc && count > 0) rc = fit_add(out, DB_KERNEL_CANDIDATE, &cand[i], m, count);
    free(m);
  }
  free(cand);
  if (!rc) {
    int lo, hi;
    rc = fit_sampled_range(out, &lo, &hi);
  }
  db_device dev;
  if (!rc && db_get_device(d, &dev) == 0 && dev.sm_count > 0)
    for (size_t i = 0; i < out->ncurves; i++)
      if (!strcmp(out->curve[i].kernel, DB_KERNEL_CANDIDATE))
        out->curve[i].grid_blocks = fit_grid_blocks(&out->curve[i].cand, dev.sm_count),
        out->curve[i].step_width = fit_step_width(&out->curve[i].cand);
  if (rc) fit_set_free(out);
  return rc;
}

long fit_grid_blocks(const db_candidate *c, int sm_count)
{
  /* a candidate has steps where its work items do (fit_step_width) */
  return sm_count > 0 && c->p.multiplicity > 0 && fit_step_width(c) ? (long)sm_count * c->p.multiplicity : 0;
}

int fit_step_width(const db_candidate *c)
{
  if (c->p.family == SYMV_FAMILY_PANEL) return c->p.ux >= 1 && c->p.ux <= 1024 ? -c->p.ux : 0;
  if (!symv_family_pipelined(c->p.family)) return 0;
  return symv_pipe_item_width(c->p.family == SYMV_FAMILY_PIPE_DET, c->p.block_size, c->p.ux, c->p.mx);
}

int fit_cublas_range(const fit_set *s, int *lo, int *hi)
{
  int have = 0;
  for (size_t i = 0; i < s->ncurves; i++) {
    const fit_curve *c = &s->curve[i];
    if (!strcmp(c->kernel, DB_KERNEL_CANDIDATE)) continue;
    for (int j = 0; j < c->nsamples; j++) {
      if (!have || c->n[j] < *lo) *lo = c->n[j];
      if (!have || c->n[j] > *hi) *hi = c->n[j];
      have = 1;
    }
  }
  return have ? 0 : SYMV_NOT_FOUND;
}

int fit_sampled_range(const fit_set *s, int *lo, int *hi)
{
  int have = 0;
  for (size_t i = 0; i < s->ncurves; i++) {
    const fit_curve *c = &s->curve[i];
    for (int j = 0; j < c->nsamples; j++) {
      if (!have || c->n[j] < *lo) *lo = c->n[j];
      if (!have || c->n[j] > *hi) *hi = c->n[j];
      have = 1;
    }
  }
  return have ? 0 : SYMV_NOT_FOUND;
}


long fit_step_items(int width, long n)
{
  if (n < 1) return 0;
  if (width < 0) return width >= -1024 ? (n - width - 1) / -width : 0; /* ceil(n / rows) */
  return symv_pdet_width_valid(width) ? symv_pdet_units(n, width) : 0;
}

int fit_step_sizes(int width, long grid_blocks, int lo, int hi, int *n_out, int cap)
{
  if (!fit_step_items(width, 1) || grid_blocks < 1 || lo >= hi || cap < 1) return 0;
  int k = 0;
  for (int m = 1; m < FIT_STEP_MAX_TILES && k < cap; m++) {
    /* the least n with T(n) > m G: T is nondecreasing in n */
    const long want = (long)m * grid_blocks;
    if (fit_step_items(width, hi) <= want) break;
    long a = 1, b = hi; /* T(a - 1) <= want < T(b) */
    while (a < b) {
      const long mid = a + (b - a) / 2;
      if (fit_step_items(width, mid) > want) b = mid;
      else a = mid + 1;
    }
    if (a > lo) n_out[k++] = (int)a;
  }
  return k;
}

/* The fitted ln t at n, first <= n <= last, by linear interpolation in ln n
 * on the grid g[0..U] (g[u] at n = first e^(u / G)). */
static double fit_grid_eval(const double *g, int U, int first, int n)
{
  double v = FIT_GRID_PER_EFOLD * log((double)n / first);
  int j = (int)floor(v);
  if (j >= U) j = U - 1;
  if (j < 0) j = 0;
  double w = v - j;
  return g[j] * (1.0 - w) + g[j + 1] * w;
}

/* The covariate of the steps at n (see Steps in fit.h): with x = T(n) / G
 * and m = ceil(x), for 2 <= m <= FIT_STEP_MAX_TILES the tooth
 *     phi(n) = ln((c + m) / (c + x)) - mu_m,
 * the staircase ln(c + m) less its smooth counterpart ln(c + x), centred on
 * its plateau: mu_m, the mean over x in (m - 1, m], is
 * ln(c + m) - (h ln h - l ln l - 1), h = c + m, l = c + m - 1. 0 elsewhere
 * (m = 1: T <= G; m past FIT_STEP_MAX_TILES). c = FIT_STEP_C. */
static double fit_tooth(const fit_curve *c, int n)
{
  const long T = fit_step_items(c->step_width, n), G = c->grid_blocks;
  if (T < 1 || G < 1) return 0; /* no work items: no steps */
  const long m = (T + G - 1) / G;
  if (m < 2 || m > FIT_STEP_MAX_TILES) return 0;
  const double x = (double)T / G, h = FIT_STEP_C + m, l = h - 1;
  return log(h) - log(FIT_STEP_C + x) - (log(h) - (h * log(h) - l * log(l) - 1));
}

/* The covariates of the steps of one curve (see Steps in fit.h): column 0
 * the teeth where `teeth`, then one jump [n >= n_j] for each step n_j whose
 * both sides are sampled (col[j] >= 0: its column). */
typedef struct {
  int teeth;                 /* 1: column 0 is the teeth */
  int nsteps;                /* steps within first+1..last */
  int n[FIT_STEP_MAX];       /* [nsteps] their sizes, ascending */
  int col[FIT_STEP_MAX];     /* [nsteps] the jump's column, -1: not sampled on both sides */
  int K;                     /* columns */
} fit_steps;

/* The covariates of the steps at n into z[0..st->K). */
static void fit_covariates(const fit_curve *c, const fit_steps *st, int n, double *z)
{
  if (st->teeth) z[0] = fit_tooth(c, n);
  for (int j = 0; j < st->nsteps; j++)
    if (st->col[j] >= 0) z[st->col[j]] = n >= st->n[j];
}

/* What the steps add to ln t at n: z(n) . beta. */
static double fit_steps_at(const fit_curve *c, const fit_steps *st, const double *beta, int n)
{
  double z[1 + FIT_STEP_MAX], v = 0;
  fit_covariates(c, st, n, z);
  for (int j = 0; j < st->K; j++) v += beta[j] * z[j];
  return v;
}

/* A sample's residual: its ln t, less the spline's g at its grid point and
 * its covariates z[0..K) times beta. */
static double fit_residual(double y, double g, const double *z, const double *beta, int K)
{
  for (int j = 0; j < K; j++) y -= beta[j] * z[j];
  return y - g;
}

int fit_step_side(int n, int ns)
{
  if (n < ns) return (double)n * FIT_STEP_BRACKET >= ns ? -1 : 0;
  return n <= ns * FIT_STEP_BRACKET ? 1 : 0;
}

/* Whether step n_s is sampled on both sides (fit_step_side) among
 * c->n[idx[0..k)]. */
static int fit_step_bracketed(const fit_curve *c, const int *idx, int k, int ns)
{
  int below = 0, above = 0;
  for (int i = 0; i < k; i++) {
    const int side = fit_step_side(c->n[idx[i]], ns);
    below |= side < 0, above |= side > 0;
  }
  return below && above;
}

/* The working state of fit_curve_compute over one curve, shared by its
 * steps: the samples that decide the curve, their grid positions, ln t and
 * covariates, and the fitted spline and step coefficients. The arrays are
 * malloc'ed (fit_samples_used, fit_work_alloc) and freed by fit_work_free. */
typedef struct {
  int *idx;                        /* [k] the samples used: indices into c->n, c->us, ascending n, distinct */
  int k;
  int first, last;                 /* c->n[idx[0]], c->n[idx[k - 1]], elements (k >= 2) */
  int U;                           /* the spline's grid: g[0..U], g[u] at n = first e^(u / G) */
  fit_steps st;                    /* the steps' covariates */
  double beta[1 + FIT_STEP_MAX];   /* [st.K] their fitted coefficients */
  double bmax[1 + FIT_STEP_MAX];   /* [st.K] each coefficient's upper bound (its lower: 0) */
  size_t Kz;                       /* the row length of z and zs: st.K, at least 1 */
  int *pos;                        /* [k] each sample's grid point, 0..U */
  double *y;                       /* [k] each sample's ln t (t in microseconds) */
  double *z;                       /* [k * Kz] each sample's covariates (fit_covariates) */
  int *s;                          /* [k] scratch: the kept samples' grid points */
  double *ys;                      /* [k] scratch: the kept samples' ln t less the fixed covariates */
  double *zs;                      /* [k * Kz] scratch: the kept samples' free covariates */
  double *res;                     /* [k] scratch: the kept samples' absolute residuals */
  double *g;                       /* [U + 1] the fitted spline, ln t at each grid point */
  double a;                        /* the smoothing weight of the last fit */
} fit_work;

static void fit_work_free(fit_work *w)
{
  free(w->idx), free(w->pos), free(w->s), free(w->y), free(w->ys), free(w->res), free(w->g), free(w->z), free(w->zs);
}

/* Sets c's results to "not fitted" over lo..hi: pred_us (re)allocated with
 * hi - lo + 1 NaNs, the counts, alpha, rms_rel and the steps 0, no sample
 * rejected. Returns 0 or SYMV_NO_MEMORY. */
static int fit_curve_reset(fit_curve *c, int lo, int hi)
{
  size_t N = (size_t)(hi - lo) + 1;
  free(c->pred_us);
  c->pred_us = malloc(N * sizeof *c->pred_us);
  if (!c->pred_us) return SYMV_NO_MEMORY;
  for (size_t j = 0; j < N; j++) c->pred_us[j] = NAN;
  c->lo = lo, c->hi = hi;
  c->first = c->last = 0;
  c->nused = c->nrejected = 0;
  c->alpha = 0;
  c->rms_rel = 0;
  c->nsteps = 0;
  c->step_beta = 0;
  memset(c->rejected, 0, (size_t)c->nsamples);
  return 0;
}

/* The samples that decide the curve over lo..hi (elements): those in
 * lo..hi and, where lo (hi) is not itself sampled, the nearest sample below
 * (above) it, so that the curve reaches lo and hi wherever the samples
 * bracket them; where lo..hi holds fewer than two sampled sizes (lo = hi at
 * a sampled size, say), the nearest sample below lo and the nearest above
 * hi in any case, so that a curve through lo..hi exists wherever the
 * samples reach past it on one side. Sets w->idx (malloc'ed), w->k and,
 * where k >= 2, w->first, w->last and w->U. Returns 0 or SYMV_NO_MEMORY. */
static int fit_samples_used(const fit_curve *c, int lo, int hi, fit_work *w)
{
  int flo = lo, fhi = hi, at_lo = 0, at_hi = 0, inside = -1, two_inside = 0;
  for (int i = 0; i < c->nsamples; i++) {
    at_lo |= c->n[i] == lo, at_hi |= c->n[i] == hi;
    if (c->n[i] >= lo && c->n[i] <= hi) {
      if (inside >= 0 && c->n[i] != inside) two_inside = 1;
      inside = c->n[i];
    }
  }
  if (!two_inside) at_lo = at_hi = 0;
  for (int i = 0; i < c->nsamples; i++) {
    if (!at_lo && c->n[i] < lo && (flo == lo || c->n[i] > flo)) flo = c->n[i];
    if (!at_hi && c->n[i] > hi && (fhi == hi || c->n[i] < fhi)) fhi = c->n[i];
  }
  int k = 0;
  int *idx = malloc(((size_t)c->nsamples + 1) * sizeof *idx);
  if (!idx) return SYMV_NO_MEMORY;
  for (int i = 0; i < c->nsamples; i++)
    if (c->n[i] >= flo && c->n[i] <= fhi) idx[k++] = i;
  w->idx = idx, w->k = k;
  if (k < 2) return 0;
  w->first = c->n[idx[0]], w->last = c->n[idx[k - 1]];
  int U = (int)ceil(FIT_GRID_PER_EFOLD * log((double)w->last / w->first));
  if (U < 1) U = 1;
  w->U = U;
  return 0;
}

/* The steps of the curve over w->first..w->last (none for a family without
 * them, grid_blocks 0): the teeth, where the samples w->idx reach a plateau
 * past the first, and a jump at each step sampled on both sides. Sets w->st
 * and the bounds w->bmax of its columns. */
static void fit_find_steps(const fit_curve *c, fit_work *w)
{
  fit_steps *st = &w->st;
  if (c->grid_blocks > 0) {
    for (int i = 0; i < w->k && !st->teeth; i++) st->teeth = fit_tooth(c, c->n[w->idx[i]]) != 0;
    st->K = st->teeth;
    if (st->teeth) w->bmax[0] = FIT_STEP_BETA_MAX;
    st->nsteps = fit_step_sizes(c->step_width, c->grid_blocks, w->first, w->last, st->n, FIT_STEP_MAX);
    for (int j = 0; j < st->nsteps; j++) {
      st->col[j] = fit_step_bracketed(c, w->idx, w->k, st->n[j]) ? st->K++ : -1;
      if (st->col[j] >= 0) w->bmax[st->col[j]] = FIT_STEP_JUMP_MAX;
    }
  }
}

/* Allocates w's sample arrays and the spline (w->U + 1 points), and sets
 * each sample's grid point w->pos, its ln t w->y and its covariates w->z.
 * Returns 0 or SYMV_NO_MEMORY (what was allocated is left to
 * fit_work_free). */
static int fit_work_alloc(const fit_curve *c, fit_work *w)
{
  const int k = w->k;
  w->pos = malloc((size_t)k * sizeof *w->pos), w->s = malloc((size_t)k * sizeof *w->s);
  w->y = malloc((size_t)k * sizeof *w->y), w->ys = malloc((size_t)k * sizeof *w->ys);
  w->res = malloc((size_t)k * sizeof *w->res);
  w->g = malloc(((size_t)w->U + 1) * sizeof *w->g);
  w->Kz = w->st.K ? (size_t)w->st.K : 1;
  w->z = malloc((size_t)k * w->Kz * sizeof *w->z), w->zs = malloc((size_t)k * w->Kz * sizeof *w->zs);
  if (!w->pos || !w->s || !w->y || !w->ys || !w->res || !w->g || !w->z || !w->zs) return SYMV_NO_MEMORY;
  for (int i = 0; i < k; i++) {
    long p = lround(FIT_GRID_PER_EFOLD * log((double)c->n[w->idx[i]] / w->first));
    w->pos[i] = (int)(p < 0 ? 0 : p > w->U ? w->U : p);
    w->y[i] = log(c->us[w->idx[i]]);
    fit_covariates(c, &w->st, c->n[w->idx[i]], &w->z[(size_t)i * w->Kz]);
  }
  return 0;
}

/* Fits the kept samples (not c->rejected; their grid points in
 * w->s[0..m)): the spline w->g with the covariates jointly, the smoothing
 * weight alpha (0: chosen by GCV) into w->a. A covariate whose coefficient
 * falls outside 0..its bound (what a launch of cost a + tau m cannot do:
 * time falling at a step or within a plateau, see Steps in fit.h) is held
 * at the bound in w->beta, and the rest refitted to what it leaves, until
 * every free one is within bounds. Returns 0 or the d-spline's error. */
static int fit_solve(const fit_curve *c, fit_work *w, int m, double alpha)
{
  const int K = w->st.K;
  const size_t Kz = w->Kz;
  int fixed[1 + FIT_STEP_MAX] = {0};
  for (;;) {
    int Kf = 0, map[1 + FIT_STEP_MAX];
    for (int j = 0; j < K; j++)
      if (!fixed[j]) map[Kf++] = j;
    for (int i = 0, q = 0; i < w->k; i++) {
      if (c->rejected[w->idx[i]]) continue;
      const double *zi = &w->z[(size_t)i * Kz];
      w->ys[q] = w->y[i];
      for (int j = 0; j < K; j++)
        if (fixed[j]) w->ys[q] -= w->beta[j] * zi[j];
      for (int f = 0; f < Kf; f++) w->zs[(size_t)q * (size_t)Kf + (size_t)f] = zi[map[f]];
      q++;
    }
    w->a = alpha;
    if (Kf == 0)
      return alpha > 0 ? dspline_fit(0, w->U, w->s, w->ys, m, alpha, w->g)
                       : dspline_fit_auto(0, w->U, w->s, w->ys, m, &w->a, w->g);
    double bf[1 + FIT_STEP_MAX];
    int rc = dspline_fit_border(0, w->U, w->s, w->ys, m, w->zs, Kf, FIT_STEP_RIDGE, alpha, &w->a, w->g, bf, NULL);
    if (rc) return rc;
    int out_of_bounds = 0;
    for (int f = 0; f < Kf; f++) {
      const int j = map[f];
      w->beta[j] = bf[f];
      if (!(bf[f] >= 0 && bf[f] <= w->bmax[j]))
        w->beta[j] = bf[f] > w->bmax[j] ? w->bmax[j] : 0, fixed[j] = 1, out_of_bounds = 1;
    }
    if (!out_of_bounds) return 0;
  }
}

/* Sample i's residual in ln t under the current fit (fit_residual). */
static double fit_work_residual(const fit_work *w, int i)
{
  return fit_residual(w->y[i], w->g[w->pos[i]], &w->z[(size_t)i * w->Kz], w->beta, w->st.K);
}

/* The worst isolated kept sample whose residual exceeds
 * FIT_OUTLIER_SIGMAS robust sigmas of the kept samples' residuals (at least
 * FIT_NOISE_FLOOR): its index into w->idx, or -1 if none. A lone spike
 * pulls the curve toward itself, so its kept neighbours are left on the
 * other side (or near the curve); at a step of the real curve they are
 * not. A sample on a side of a step with a jump of its own is never one:
 * its residual is the step's, not a spike's. */
static int fit_worst_outlier(const fit_curve *c, fit_work *w)
{
  const int k = w->k;
  /* the robust scale of the kept samples' residuals */
  int q = 0;
  for (int i = 0; i < k; i++)
    if (!c->rejected[w->idx[i]]) w->res[q++] = fabs(fit_work_residual(w, i));
  double med = symv_median(w->res, (size_t)q);
  double limit = FIT_OUTLIER_SIGMAS * fmax(1.4826 * med, FIT_NOISE_FLOOR);
  int worst = -1;
  double rw = 0;
  for (int i = 0; i < k; i++) {
    if (c->rejected[w->idx[i]]) continue;
    double r = fit_work_residual(w, i);
    if (!(fabs(r) > limit) || fabs(r) <= rw) continue;
    int side = 0;
    for (int j = 0; j < w->st.nsteps && !side; j++) side = w->st.col[j] >= 0 && fit_step_side(c->n[w->idx[i]], w->st.n[j]);
    if (side) continue;
    int lone = 1;
    for (int dir = -1; dir <= 1 && lone; dir += 2) {
      int j = i + dir;
      while (j >= 0 && j < k && c->rejected[w->idx[j]]) j += dir;
      if (j < 0 || j >= k) continue;
      double rn = fit_work_residual(w, j);
      lone = rn * r <= 0 || fabs(rn) < 0.25 * fabs(r);
    }
    if (lone) worst = i, rw = fabs(r);
  }
  return worst;
}

/* Whether the kept samples less sample `worst` (an index into w->idx) still
 * have two distinct grid points to fit. */
static int fit_can_drop(const fit_curve *c, const fit_work *w, int worst)
{
  int p0 = -1, distinct = 0;
  for (int i = 0; i < w->k && distinct < 2; i++)
    if (i != worst && !c->rejected[w->idx[i]] && w->pos[i] != p0) p0 = w->pos[i], distinct++;
  return distinct >= 2;
}

/* Fits the samples (fit_solve), dropping the worst lone outlier
 * (fit_worst_outlier) and refitting, while fewer than FIT_MAX_REJECT of
 * them are dropped and dropping leaves two grid points. Marks the dropped
 * ones in c->rejected and counts them in c->nrejected; leaves the last fit
 * in w->g, w->beta and w->a. Returns 0 or the d-spline's error. */
static int fit_robust(fit_curve *c, fit_work *w, double alpha)
{
  const int k = w->k;
  int max_reject = (int)floor(FIT_MAX_REJECT * k);
  for (;;) {
    /* fit the kept samples */
    int m = 0;
    for (int i = 0; i < k; i++)
      if (!c->rejected[w->idx[i]]) w->s[m] = w->pos[i], w->ys[m] = w->y[i], m++;
    int rc = fit_solve(c, w, m, alpha);
    if (rc) return rc;
    if (c->nrejected >= max_reject) break;
    const int worst = fit_worst_outlier(c, w);
    if (worst < 0) break;
    if (!fit_can_drop(c, w, worst)) break;
    c->rejected[w->idx[worst]] = 1;
    c->nrejected++;
  }
  return 0;
}

/* Stores the fit w in c over lo..hi (elements): pred_us (microseconds) over
 * max(first, lo)..min(last, hi), nused and rms_rel over the kept samples,
 * alpha, and with steps step_beta and each step's n, jump and ratio. */
static void fit_curve_store(fit_curve *c, const fit_work *w, int lo, int hi)
{
  const int first = w->first, last = w->last, U = w->U;
  const fit_steps *st = &w->st;
  const double *g = w->g, *beta = w->beta;
  for (int n = first > lo ? first : lo; n <= last && n <= hi; n++)
    c->pred_us[n - lo] = exp(fit_grid_eval(g, U, first, n) + fit_steps_at(c, st, beta, n));
  double sum = 0;
  for (int i = 0; i < w->k; i++) {
    if (c->rejected[w->idx[i]]) continue;
    const int n = c->n[w->idx[i]];
    double e = (exp(fit_grid_eval(g, U, first, n) + fit_steps_at(c, st, beta, n)) - c->us[w->idx[i]]) / c->us[w->idx[i]];
    sum += e * e;
    c->nused++;
  }
  c->rms_rel = sqrt(sum / c->nused);
  c->alpha = w->a;
  if (st->K) { /* the steps within first..last, and the fitted curve's ratio across each */
    c->step_beta = st->teeth ? beta[0] : 0;
    c->nsteps = st->nsteps;
    for (int j = 0; j < c->nsteps; j++) {
      const int n = st->n[j];
      c->step_n[j] = n;
      c->step_jump[j] = st->col[j] >= 0 ? beta[st->col[j]] : NAN;
      c->step_ratio[j] = exp(fit_grid_eval(g, U, first, n) + fit_steps_at(c, st, beta, n) -
                             fit_grid_eval(g, U, first, n - 1) - fit_steps_at(c, st, beta, n - 1));
    }
  }
}

int fit_curve_compute(fit_curve *c, int lo, int hi, double alpha)
{
  if (lo < 1 || hi < lo || !(isfinite(alpha) && alpha >= 0) || (long long)hi - lo + 1 > FIT_MAX_SPAN)
    return SYMV_INVALID_VALUE;
  int rc = fit_curve_reset(c, lo, hi);
  if (rc) return rc;
  fit_work w = {0};
  if ((rc = fit_samples_used(c, lo, hi, &w))) return rc;
  if (w.k < 2) {
    c->nused = w.k;
    free(w.idx);
    return 0;
  }
  c->first = w.first, c->last = w.last;
  fit_find_steps(c, &w);
  rc = fit_work_alloc(c, &w);
  if (!rc && w.pos[0] == w.pos[w.k - 1]) { /* sizes within 0.1% of each other: one grid point, no curve */
    c->first = c->last = 0;
    c->nused = w.k;
  } else if (!rc && !(rc = fit_robust(c, &w, alpha))) {
    fit_curve_store(c, &w, lo, hi);
  }
  fit_work_free(&w);
  if (rc) {
    for (size_t j = 0; j < (size_t)(hi - lo) + 1; j++) c->pred_us[j] = NAN;
    c->alpha = 0;
  }
  return rc;
}

int fit_compute(fit_set *s, int lo, int hi, double alpha)
{
  if (lo < 1 || hi < lo || (double)s->ncurves * ((double)hi - lo + 1) > FIT_MAX_GRID) return SYMV_INVALID_VALUE;
  for (size_t i = 0; i < s->ncurves; i++) {
    int rc = fit_curve_compute(&s->curve[i], lo, hi, alpha);
    if (rc) return rc;
  }
  return 0;
}

static int fit_is_cublas(const fit_curve *c)
{
  return strcmp(c->kernel, DB_KERNEL_CANDIDATE) != 0;
}

/* The curve's prediction at n, NaN where there is none. */
static double fit_pred(const fit_curve *c, int n)
{
  if (!c->pred_us || n < c->lo || n > c->hi) return NAN;
  return c->pred_us[n - c->lo];
}

double fit_cublas_us(const fit_set *s, int n)
{
  double best = NAN;
  for (size_t i = 0; i < s->ncurves; i++) {
    double t = fit_pred(&s->curve[i], n);
    if (fit_is_cublas(&s->curve[i]) && t > 0 && !(t >= best)) best = t;
  }
  return best;
}

int fit_deterministic_view(const fit_set *s, fit_set *view)
{
  memset(view, 0, sizeof *view);
  view->routine = s->routine;
  view->uplo = s->uplo;
  view->hot = s->hot;
  view->deterministic = 1;
  view->curve = calloc(s->ncurves ? s->ncurves : 1, sizeof *view->curve);
  if (!view->curve) return SYMV_NO_MEMORY;
  for (size_t i = 0; i < s->ncurves; i++) {
    const fit_curve *c = &s->curve[i];
    if (db_kernel_deterministic(c->kernel, c->cand.p.family)) view->curve[view->ncurves++] = *c;
  }
  return 0;
}

/* The checks of fit_select and fit_select_regret and the table both choose
 * from: *t := the curves' predictions (M x N, us), margin applied to the
 * candidates, *prio := cuBLAS first (the library's fallback), atomics off
 * before on, then the curves in order. */
static int fit_table(const fit_set *s, double margin, double **t_out, int **prio_out, int *bad_n)
{
  *t_out = NULL;
  *prio_out = NULL;
  if (s->ncurves == 0 || !s->curve[0].pred_us || !(margin >= 0) || !isfinite(margin)) return SYMV_INVALID_VALUE;
  int lo = s->curve[0].lo, hi = s->curve[0].hi, M = (int)s->ncurves;
  for (int c = 0; c < M; c++)
    if (!s->curve[c].pred_us || s->curve[c].lo != lo || s->curve[c].hi != hi) return SYMV_INVALID_VALUE;
  size_t N = (size_t)(hi - lo) + 1;
  for (size_t j = 0; j < N; j++) {
    int any = 0;
    for (int c = 0; c < M && !any; c++) any = !isnan(s->curve[c].pred_us[j]);
    if (!any || isnan(fit_cublas_us(s, lo + (int)j))) {
      if (bad_n) *bad_n = lo + (int)j;
      return SYMV_NOT_FOUND;
    }
  }
  double *t = malloc((size_t)M * N * sizeof *t);
  int *prio = malloc((size_t)M * sizeof *prio);
  if (!t || !prio) {
    free(t), free(prio);
    return SYMV_NO_MEMORY;
  }
  for (int c = 0; c < M; c++) {
    memcpy(t + (size_t)c * N, s->curve[c].pred_us, N * sizeof *t);
    if (!fit_is_cublas(&s->curve[c]) && margin > 0)
      for (size_t j = 0; j < N; j++) t[(size_t)c * N + j] *= 1.0 + margin; /* NaN stays NaN */
    const char *k = s->curve[c].kernel;
    prio[c] = !strcmp(k, DB_KERNEL_CUBLAS) ? 0 : !strcmp(k, DB_KERNEL_CUBLAS_ATOMICS) ? 1 : 2 + c;
  }
  *t_out = t;
  *prio_out = prio;
  return 0;
}

/* The rules of intervals iv[0..m) over s's curves (see fit_select). */
static int fit_rules_of(const fit_set *s, const rules_interval *iv, int m, db_rule **rules, size_t *nrules)
{
  int lo = s->curve[0].lo;
  db_rule *r = calloc((size_t)m, sizeof *r);
  if (!r) return SYMV_NO_MEMORY;
  for (int i = 0; i < m; i++) {
    const fit_curve *c = &s->curve[iv[i].cand];
    int mid = (int)lround(sqrt((double)iv[i].n_start * iv[i].n_end));
    if (mid < iv[i].n_start) mid = iv[i].n_start;
    if (mid > iv[i].n_end) mid = iv[i].n_end;
    r[i].n_start = iv[i].n_start;
    r[i].n_end = iv[i].n_end;
    snprintf(r[i].kernel, sizeof r[i].kernel, "%s", c->kernel);
    if (!fit_is_cublas(c)) r[i].cand = c->cand;
    r[i].predicted_us = c->pred_us[mid - lo];
    r[i].predicted_gain = fit_cublas_us(s, mid) / r[i].predicted_us;
  }
  *rules = r;
  *nrules = (size_t)m;
  return 0;
}

/* The rules of s (*rules, *nrules as fit_select's) where valid, else
 * SYMV_INVALID_VALUE: the table of its curves (fit_table with margin), then
 * rules_select_opt with *merge or, where merge is NULL,
 * rules_select_regret with *regret, either with the table's priorities. */
static int fit_select_by(const fit_set *s, int valid, double margin, rules_options *merge,
                         rules_regret_options *regret, db_rule **rules, size_t *nrules, int *bad_n)
{
  *rules = NULL;
  *nrules = 0;
  if (!valid) return SYMV_INVALID_VALUE;
  double *t;
  int *prio;
  int rc = fit_table(s, margin, &t, &prio, bad_n);
  if (rc) return rc;
  rules_interval *iv = NULL;
  int m = 0;
  const int lo = s->curve[0].lo, hi = s->curve[0].hi;
  if (merge) {
    merge->priority = prio;
    rc = rules_select_opt(t, (int)s->ncurves, lo, hi, merge, &iv, &m);
  } else {
    regret->priority = prio;
    rc = rules_select_regret(t, (int)s->ncurves, lo, hi, regret, &iv, &m);
  }
  if (!rc) rc = fit_rules_of(s, iv, m, rules, nrules);
  free(iv), free(t), free(prio);
  return rc;
}

int fit_select(const fit_set *s, double threshold, double margin, db_rule **rules, size_t *nrules, int *bad_n)
{
  rules_options opt;
  rules_options_init(&opt);
  opt.threshold = threshold;
  return fit_select_by(s, threshold >= 0 && threshold < 1, margin, &opt, NULL, rules, nrules, bad_n);
}

int fit_select_regret(const fit_set *s, double interval_cost, db_rule **rules, size_t *nrules, int *bad_n)
{
  rules_regret_options opt;
  rules_regret_options_init(&opt);
  opt.interval_cost = interval_cost;
  opt.max_regret = FIT_MAX_PREDICTED_REGRET;
  return fit_select_by(s, interval_cost >= 0 && isfinite(interval_cost), 0.0, NULL, &opt, rules, nrules, bad_n);
}

int fit_curve_of(const fit_set *s, const char *kernel, long long cand_id)
{
  for (size_t c = 0; c < s->ncurves; c++)
    if (!strcmp(s->curve[c].kernel, kernel) && (strcmp(kernel, DB_KERNEL_CANDIDATE) || s->curve[c].cand.id == cand_id))
      return (int)c;
  return -1;
}

int fit_curve_of_rule(const fit_set *s, const db_rule *r) { return fit_curve_of(s, r->kernel, r->cand.id); }

int fit_compute_as_stored(fit_set *s, const db_fit_curve *curves, size_t ncurves, int lo, int hi, size_t *failed)
{
  for (size_t i = 0; i < s->ncurves; i++) {
    const fit_curve *c = &s->curve[i];
    double alpha = 0;
    for (size_t j = 0; j < ncurves; j++)
      if (!strcmp(curves[j].kernel, c->kernel) &&
          (strcmp(c->kernel, DB_KERNEL_CANDIDATE) || curves[j].candidate_id == c->cand.id))
        alpha = curves[j].alpha;
    const int rc = fit_curve_compute(&s->curve[i], lo, hi, alpha);
    if (rc) {
      *failed = i;
      return rc;
    }
  }
  return 0;
}

int fit_predicted_regret(const fit_set *s, const db_rule *rules, size_t nrules, double *mean, double *max,
                         int *worst_n)
{
  if (s->ncurves == 0 || !s->curve[0].pred_us || !rules || nrules == 0 || nrules > INT_MAX) return SYMV_INVALID_VALUE;
  int lo = s->curve[0].lo, hi = s->curve[0].hi, M = (int)s->ncurves;
  for (int c = 0; c < M; c++)
    if (!s->curve[c].pred_us || s->curve[c].lo != lo || s->curve[c].hi != hi) return SYMV_INVALID_VALUE;
  size_t N = (size_t)(hi - lo) + 1;
  rules_interval *iv = malloc(nrules * sizeof *iv);
  double *t = malloc((size_t)M * N * sizeof *t);
  int rc = SYMV_NO_MEMORY;
  if (!iv || !t) goto out;
  for (int c = 0; c < M; c++) memcpy(t + (size_t)c * N, s->curve[c].pred_us, N * sizeof *t);
  rc = SYMV_INVALID_VALUE;
  for (size_t i = 0; i < nrules; i++) {
    iv[i].n_start = rules[i].n_start;
    iv[i].n_end = rules[i].n_end;
    if ((iv[i].cand = fit_curve_of_rule(s, &rules[i])) < 0) goto out;
  }
  rc = rules_regret(t, M, lo, hi, 1, iv, (int)nrules, mean, max, worst_n);
out:
  free(iv), free(t);
  return rc;
}

int fit_store(db *d, const fit_set *s, double threshold, const char *method, const db_rule *rules,
              size_t nrules, db_fit *fit)
{
  if (s->ncurves == 0 || !s->curve[0].pred_us) return SYMV_INVALID_VALUE;
  db_fit_curve *fc = calloc(s->ncurves, sizeof *fc);
  if (!fc) return SYMV_NO_MEMORY;
  size_t m = 0;
  for (size_t i = 0; i < s->ncurves; i++) {
    const fit_curve *c = &s->curve[i];
    if (!(c->alpha > 0)) continue; /* not fitted: nothing to record */
    snprintf(fc[m].kernel, sizeof fc[m].kernel, "%s", c->kernel);
    fc[m].candidate_id = fit_is_cublas(c) ? 0 : c->cand.id;
    fc[m].alpha = c->alpha;
    fc[m].nsamples = c->nused;
    fc[m].rms_rel = c->rms_rel;
    m++;
  }
  memset(fit, 0, sizeof *fit);
  fit->routine = s->routine;
  fit->uplo = s->uplo;
  fit->hot = s->hot;
  fit->lo = s->curve[0].lo;
  fit->hi = s->curve[0].hi;
  fit->threshold = threshold;
  fit->deterministic = s->deterministic;
  snprintf(fit->method, sizeof fit->method, "%s", method ? method : "");
  int rc = db_put_fit(d, fit, fc, m, rules, nrules);
  free(fc);
  return rc;
}

void fit_print_rules_title(FILE *f, symv_routine routine, int deterministic)
{
  fprintf(f, "%s, rule set '%s' (%s)\n", symv_routine_name(routine), deterministic ? "deterministic" : "any",
          deterministic ? FIT_DETERMINISTIC_RULES_FOR : FIT_ANY_RULES_FOR);
}

void fit_print_rules(FILE *f, const db_fit *fit, const db_rule *rules, size_t nrules)
{
  char created[4 * sizeof fit->created], method[4 * sizeof fit->method];  /* the file's text, escaped */
  fit_print_rules_title(f, fit->routine, fit->deterministic);
  char sel[sizeof fit->method];
  size_t k = strcspn(fit->method, ";");
  if ((!strncmp(fit->method, FIT_SELECT_REGRET, strlen(FIT_SELECT_REGRET)) ||
       !strncmp(fit->method, FIT_SELECT_MERGE, strlen(FIT_SELECT_MERGE))) && k < sizeof sel)
    snprintf(sel, sizeof sel, "selected by %.*s", (int)k, fit->method);
  else
    snprintf(sel, sizeof sel, "threshold %g%%", 100 * fit->threshold);
  char esel[4 * sizeof sel];
  fprintf(f, "Rules of fit %lld (%s): uplo %c, %s, n %d..%d, %s\n", fit->id,
          symv_escape(fit->created, created, sizeof created), fit->uplo, fit->hot ? "hot" : "cold", fit->lo, fit->hi,
          symv_escape(sel, esel, sizeof esel));
  if (fit->method[0]) fprintf(f, "  method: %s\n", symv_escape(fit->method, method, sizeof method));
  fprintf(f, "  %-34s %-26s %14s %16s\n", "Kernel/candidate", "N range", "predicted us", "gain vs cuBLAS");
  for (size_t i = 0; i < nrules; i++) {
    const db_rule *r = &rules[i];
    char label[96], who[128], range[64];
    fit_label(r->kernel, &r->cand, label, sizeof label);
    if (!strcmp(r->kernel, DB_KERNEL_CANDIDATE))
      snprintf(who, sizeof who, "%s (id %lld)", label, r->cand.id);
    else
      snprintf(who, sizeof who, "%s", label);
    snprintf(range, sizeof range, "%d <= N <= %d", r->n_start, r->n_end);
    fprintf(f, "  %-34s %-26s %14.2f %15.3fx\n", who, range, r->predicted_us, r->predicted_gain);
  }
}
