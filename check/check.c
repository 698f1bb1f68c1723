/* SPDX-License-Identifier: BSD-3-Clause */
/* check.c - the stage of `symvtune check` (check.h). */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "compile.h"
#include "cublas_symv.h"
#include "gpu.h"
#include "reference.h"
#include "symv_error.h"

#define Y_PAD 16

/* The six argument combinations run at every n and uplo. The imaginary
 * parts apply to complex routines only. */
typedef struct {
  int lda_extra;   /* lda = n + lda_extra */
  int incx, incy;
  double alpha, alpha_im, beta, beta_im;
} combo;
static const combo combos[] = {
  {0, 1, 1, 1.3, -0.4, 0.7, 0.25},  /* plain */
  {0, -1, 2, 1.0, 0.5, -1.2, -0.3}, /* negative incx */
  {0, 1, 1, 0.0, 0.0, 0.0, 0.0},    /* alpha = 0, beta = 0: y := 0 */
  {3, 1, 1, -0.8, 0.6, 0.0, 0.0},   /* beta = 0: y (NaN) not read; lda > n */
  {3, 2, -3, 0.9, -1.1, 1.0, 0.0},  /* beta = 1, mixed strides */
  {3, 3, -1, 0.0, 0.0, 0.6, -0.45}, /* alpha = 0: A, x (NaN) not read */
};
/* HEMV: what the imaginary parts of A's diagonal hold (never read) */
#define HEMV_DIAG_IM 777.0
#define NCOMBOS (int)(sizeof combos / sizeof combos[0])

typedef struct {
  symv_params p;
  char label[64];
  symv_kernel k;
  int loaded;       /* 0: could not be loaded (reason in why) */
  int skipped;      /* 1: its MULTIPLICITY or resources do not fit this routine on this GPU (not a failure) */
  char why[256];
  int cases, fails;
  double worst_ref, worst_cublas;
  long untouched;
} point_result;

/* Element k of buf (elem_bytes E). */
#define EL(buf, k) ((char *)(buf) + (size_t)(k) * E)

/* Host matrix of routine r for (n, lda, uplo): stored triangle random, the
 * other triangle and the rows past n NaN; HEMV: the diagonal's imaginary
 * parts HEMV_DIAG_IM (not referenced, so a kernel reading them fails). */
static void make_matrix(symv_routine r, void *A, int n, int lda, char uplo, unsigned long long *seed)
{
  const symv_routine_info *ri = symv_routine_get(r);
  const size_t E = (size_t)ri->elem_bytes;
  symv_fill_random(r, A, (long)lda * n, seed);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < lda; i++) {
      int stored = i < n && (uplo == 'L' ? i >= j : i <= j);
      if (!stored) symv_set_nan(r, A, (long)j * lda + i);
      else if (i == j && ri->hermitian) {
        double re = ri->real_bytes == 4 ? *(float *)EL(A, (long)j * lda + i) : *(double *)EL(A, (long)j * lda + i);
        symv_scalar_set(r, EL(A, (long)j * lda + i), re, HEMV_DIAG_IM);
      }
    }
}

static long span(int n, int inc) { return n > 0 ? (long)(n - 1) * labs((long)inc) + 1 : 1; }

static int check_cuda(const char *what)
{
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) {
    fprintf(stderr, "symvtune check: %s: %s: %s\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return CHECK_ERROR;
  }
  return CHECK_OK;
}

/* What the cases of one routine share: the routine, the options, the
 * handle, the candidates and cuBLAS's results, the workspace, the sentinel
 * of y's gaps, and the cases run so far. */
typedef struct {
  symv_routine r;
  const symv_routine_info *ri;
  size_t E; /* element size, bytes */
  const check_opts *o;
  cublasHandle_t h;
  point_result *pts;
  int npts;
  point_result cub;
  symv_workspace ws;
  _Alignas(16) unsigned char sentinel[16];
  unsigned long long *seed;
  int total_cases;
} routine_run;

/* The buffers of one n, for its largest lda and strides. */
typedef struct {
  void *A, *x, *y0, *yref, *ycub, *y; /* host */
  void *dA, *dx, *dy, *dxf;           /* device; dxf: finite x for cuBLAS at alpha = 0 */
} bufs;

/* One case: n, lda, uplo, the combination, its scalars and the lengths of
 * x and y (elements, y's padding included), the residual's scale. */
typedef struct {
  int n, lda;
  char uplo;
  const combo *cb;
  _Alignas(16) unsigned char alpha[16], beta[16];
  int alpha0, beta0;
  long xl, yl;
  double *scale;
} case_args;

/* Compiles and loads every candidate for routine rr->r; a candidate that
 * cannot be had is left unloaded, its reason in why. */
static void load_points(routine_run *rr, const symv_device_info *dev)
{
  for (int i = 0; i < rr->npts; i++) {
    point_result *pr = &rr->pts[i];
    symv_kernel_unload(&pr->k);
    pr->p.routine = rr->r;
    pr->loaded = pr->skipped = pr->cases = pr->fails = 0;
    pr->worst_ref = pr->worst_cublas = 0;
    pr->untouched = 0;
    pr->why[0] = 0;
    symv_params_format(&pr->p, pr->label, sizeof pr->label);
    symv_cubin cb;
    char *log = NULL;
    int rc = symv_compile(&pr->p, dev->cc_major, dev->cc_minor, &cb, &log);
    if (rc) {
      snprintf(pr->why, sizeof pr->why, "compile: %.200s", log ? log : symv_strerror(rc));
      free(log);
      continue;
    }
    rc = symv_kernel_load(&pr->p, &cb, dev, &pr->k, pr->why, sizeof pr->why);
    symv_cubin_free(&cb);
    pr->loaded = rc == 0;
    pr->skipped = rc == SYMV_RESOURCES || rc == SYMV_OCCUPANCY;
  }
}

/* The data of case c into b (A remade where its lda changed: new_matrix),
 * the CPU's reference y and the residual's scale (c->scale, NULL at n = 0). */
static void case_data(routine_run *rr, bufs *b, case_args *c, int new_matrix)
{
  const symv_routine r = rr->r;
  const size_t E = rr->E;
  const combo *cb = c->cb;
  const int n = c->n;
  if (new_matrix) {
    make_matrix(r, b->A, n, c->lda, c->uplo, rr->seed);
    cudaMemcpy(b->dA, b->A, (size_t)c->lda * n * E, cudaMemcpyHostToDevice);
  }
  symv_fill_random(r, b->x, c->xl, rr->seed);
  if (c->alpha0) {
    cudaMemcpy(b->dxf, b->x, c->xl * E, cudaMemcpyHostToDevice);
    for (long i = 0; i < c->xl; i++) symv_set_nan(r, b->x, i);
  }
  for (long i = 0; i < c->yl; i++) memcpy(EL(b->y0, i), rr->sentinel, E);
  symv_fill_random(r, b->yref, n, rr->seed);
  for (int i = 0; i < n; i++) {
    long p = cb->incy > 0 ? (long)i * cb->incy : (long)(n - 1 - i) * -cb->incy;
    if (c->beta0) symv_set_nan(r, b->y0, p);
    else memcpy(EL(b->y0, p), EL(b->yref, i), E);
  }
  /* reference: OpenBLAS/LAPACK; alpha = 0 by definition (x is NaN on
   * purpose); beta = 0 with y's NaN replaced (unread by definition) */
  memcpy(b->yref, b->y0, c->yl * E);
  if (c->beta0)
    for (int i = 0; i < n; i++)
      symv_scalar_set(r, EL(b->yref, cb->incy > 0 ? (long)i * cb->incy : (long)(n - 1 - i) * -cb->incy), 0, 0);
  if (c->alpha0) symv_ref_scale(r, n, c->beta, b->yref, cb->incy);
  else symv_ref(r, c->uplo, n, c->alpha, b->A, c->lda, b->x, cb->incx, c->beta, b->yref, cb->incy);
  c->scale = n ? symv_residual_scale(r, c->uplo, n, c->alpha, b->A, c->lda, b->x, cb->incx, c->beta, b->y0, cb->incy)
               : NULL;
  cudaMemcpy(b->dx, b->x, c->xl * E, cudaMemcpyHostToDevice);
}

/* cuBLAS on case c, judged against the CPU's y; its y kept in b->ycub.
 * CHECK_OK, or CHECK_ERROR after a message. */
static int case_cublas(routine_run *rr, bufs *b, const case_args *c)
{
  const size_t E = rr->E;
  const combo *cb = c->cb;
  const int n = c->n;
  int exit_code = CHECK_OK;
  cudaMemcpy(b->dy, b->y0, c->yl * E, cudaMemcpyHostToDevice);
  cublasStatus_t st = symv_cublas(rr->h, rr->r, c->uplo, n, c->alpha, b->dA, c->lda, c->alpha0 ? b->dxf : b->dx,
                                  cb->incx, c->beta, b->dy, cb->incy);
  if (st != CUBLAS_STATUS_SUCCESS || (exit_code = check_cuda(rr->ri->cublas))) {
    if (!exit_code) fprintf(stderr, "symvtune check: %s returned %d\n", rr->ri->cublas, (int)st);
    return CHECK_ERROR;
  }
  cudaMemcpy(b->ycub, b->dy, c->yl * E, cudaMemcpyDeviceToHost);
  double rc_ref = n ? symv_residual_scaled(rr->r, n, cb->incy, c->scale, b->ycub, b->yref) : 0;
  long bad = symv_untouched(rr->r, b->ycub, c->yl, n, cb->incy, rr->sentinel);
  rr->cub.cases++;
  if (rc_ref > rr->cub.worst_ref) rr->cub.worst_ref = rc_ref;
  rr->cub.untouched += bad;
  if (!(rc_ref <= rr->o->tol) || bad) rr->cub.fails++;
  return CHECK_OK;
}

/* Candidate pr on case c, judged against the CPU's y and cuBLAS's; a
 * failure printed (the first of each candidate, or all with --verbose).
 * CHECK_OK, or CHECK_ERROR after a message. */
static int case_candidate(routine_run *rr, bufs *b, const case_args *c, point_result *pr)
{
  const symv_routine r = rr->r;
  const size_t E = rr->E;
  const combo *cb = c->cb;
  const int n = c->n;
  const double tol = rr->o->tol;
  cudaMemcpy(b->dy, b->y0, c->yl * E, cudaMemcpyHostToDevice);
  int bad_arg = 0, exit_code = CHECK_OK;
  int rc = symv_launch(&pr->k, &rr->ws, 0, c->uplo, n, c->alpha, b->dA, c->lda, b->dx, cb->incx, c->beta, b->dy,
                       cb->incy, 0, &bad_arg);
  if (rc) {
    fprintf(stderr, "symvtune check: %s %s: launch at n=%d: %s (%s)\n", rr->ri->name, pr->label, n,
            symv_strerror(rc), symv_cuda_error_text());
    return CHECK_ERROR;
  }
  char what[200], sa[64], sb[64];
  snprintf(what, sizeof what, "%s %s at uplo=%c n=%d lda=%d incx=%d incy=%d", rr->ri->name, pr->label, c->uplo, n,
           c->lda, cb->incx, cb->incy);
  if ((exit_code = check_cuda(what))) return exit_code;
  cudaMemcpy(b->y, b->dy, c->yl * E, cudaMemcpyDeviceToHost);
  double r1 = n ? symv_residual_scaled(r, n, cb->incy, c->scale, b->y, b->yref) : 0;
  double r2 = n ? symv_residual_scaled(r, n, cb->incy, c->scale, b->y, b->ycub) : 0;
  long b2 = symv_untouched(r, b->y, c->yl, n, cb->incy, rr->sentinel);
  pr->cases++;
  if (r1 > pr->worst_ref) pr->worst_ref = r1;
  if (r2 > pr->worst_cublas) pr->worst_cublas = r2;
  pr->untouched += b2;
  if (!(r1 <= tol) || !(r2 <= tol) || b2) {
    pr->fails++;
    symv_scalar_format(r, c->alpha, sa, sizeof sa);
    symv_scalar_format(r, c->beta, sb, sizeof sb);
    if (rr->o->verbose || pr->fails == 1)
      printf("FAIL %s alpha=%s beta=%s: residual %.3g vs reference, %.3g vs cuBLAS, %ld elements "
             "written outside y\n",
             what, sa, sb, r1, r2, b2);
    symv_workspace_reset(&rr->ws, 0);
  }
  return CHECK_OK;
}

/* Every case of size n (both uplo, every combination) into b: cuBLAS,
 * then every loaded candidate. CHECK_OK, or CHECK_ERROR after a message. */
static int check_size(routine_run *rr, bufs *b, int n)
{
  int exit_code = CHECK_OK;
  for (int u = 0; u < 2 && exit_code == CHECK_OK; u++) {
    for (int ci = 0; ci < NCOMBOS && exit_code == CHECK_OK; ci++) {
      case_args c = {.n = n, .uplo = u ? 'U' : 'L', .cb = &combos[ci]};
      symv_scalar_set(rr->r, c.alpha, c.cb->alpha, c.cb->alpha_im);
      symv_scalar_set(rr->r, c.beta, c.cb->beta, c.cb->beta_im);
      c.alpha0 = symv_scalar_is_zero(rr->r, c.alpha), c.beta0 = symv_scalar_is_zero(rr->r, c.beta);
      c.lda = n + c.cb->lda_extra > 0 ? n + c.cb->lda_extra : 1;
      c.xl = span(n, c.cb->incx), c.yl = span(n, c.cb->incy) + Y_PAD;
      case_data(rr, b, &c, ci == 0 || combos[ci - 1].lda_extra != c.cb->lda_extra);
      rr->total_cases++;
      exit_code = case_cublas(rr, b, &c);
      for (int pi = 0; pi < rr->npts && exit_code == CHECK_OK; pi++)
        if (rr->pts[pi].loaded) exit_code = case_candidate(rr, b, &c, &rr->pts[pi]);
      free(c.scale);
    }
  }
  return exit_code;
}

/* The buffers of size n: host and device, for lda up to n + 3 and strides
 * up to 3. CHECK_OK, or CHECK_ERROR after a message (what was had is freed
 * by bufs_free). */
static int bufs_alloc(bufs *b, const routine_run *rr, int n)
{
  const size_t E = rr->E, a_len = (size_t)(n + 3) * (n > 0 ? n : 1);
  const long xs_max = span(n, 3), ys_max = span(n, 3) + Y_PAD;
  b->A = malloc(a_len * E), b->x = malloc(xs_max * E), b->y0 = malloc(ys_max * E);
  b->yref = malloc(ys_max * E), b->ycub = malloc(ys_max * E), b->y = malloc(ys_max * E);
  if (!b->A || !b->x || !b->y0 || !b->yref || !b->ycub || !b->y) {
    fprintf(stderr, "symvtune check: out of host memory at n = %d\n", n);
    return CHECK_ERROR;
  }
  if (cudaMalloc(&b->dA, a_len * E) != cudaSuccess || cudaMalloc(&b->dx, xs_max * E) != cudaSuccess ||
      cudaMalloc(&b->dy, ys_max * E) != cudaSuccess || cudaMalloc(&b->dxf, xs_max * E) != cudaSuccess) {
    fprintf(stderr, "symvtune check: cudaMalloc failed at n = %d\n", n);
    return CHECK_ERROR;
  }
  return CHECK_OK;
}

static void bufs_free(bufs *b)
{
  cudaFree(b->dA), cudaFree(b->dx), cudaFree(b->dy), cudaFree(b->dxf);
  free(b->A), free(b->x), free(b->y0), free(b->yref), free(b->ycub), free(b->y);
  memset(b, 0, sizeof *b);
}

/* Routine rr->r's table: cuBLAS first, then every candidate; *failures
 * gets the failed ones (not run counts as failed, skipped does not). */
static void print_table(routine_run *rr, int *failures)
{
  printf("\n%-24s %6s %6s %14s %12s %9s  %s\n", "candidate", "cases", "fails", "resid/CPU ref", "resid/cuBLAS",
         "outside", "status");
  for (int i = -1; i < rr->npts; i++) {
    point_result *pr = i < 0 ? &rr->cub : &rr->pts[i];
    if (!pr->loaded) {
      printf("%-24s %6s %6s %14s %12s %9s  %s: %s\n", pr->label, "-", "-", "-", "-", "-",
             pr->skipped ? "skipped" : "NOT RUN", pr->why);
      *failures += !pr->skipped;
      continue;
    }
    int ok = pr->fails == 0 && pr->cases == rr->total_cases;
    *failures += !ok;
    if (i < 0)
      printf("%-24s %6d %6d %14.3g %12s %9ld  %s\n", pr->label, pr->cases, pr->fails, pr->worst_ref, "-",
             pr->untouched, ok ? "ok" : "FAIL");
    else
      printf("%-24s %6d %6d %14.3g %12.3g %9ld  %s\n", pr->label, pr->cases, pr->fails, pr->worst_ref,
             pr->worst_cublas, pr->untouched, ok ? "ok" : "FAIL");
  }
}

/* Checks the candidates pts (their routine set to r) and cuBLAS over the
 * grid; prints routine r's table; *failures gets the failed candidates.
 * Returns CHECK_OK unless CUDA or memory failed (CHECK_ERROR). */
static int check_routine(symv_routine r, const symv_device_info *dev, cublasHandle_t h, point_result *pts,
                         const check_opts *o, unsigned long long *seed, int *failures)
{
  routine_run rr = {.r = r, .ri = symv_routine_get(r), .o = o, .h = h, .pts = pts, .npts = o->npoints,
                    .cub = {.label = "cuBLAS (reference)", .loaded = 1}, .seed = seed};
  rr.E = (size_t)rr.ri->elem_bytes;
  symv_scalar_set(r, rr.sentinel, -12345.678, 4321.5);
  printf("\n%s (%s): %d candidates\n", rr.ri->blas, rr.ri->name, rr.npts);
  load_points(&rr, dev);
  int exit_code = CHECK_OK;
  for (int si = 0; si < o->nsizes && exit_code == CHECK_OK; si++) {
    const int n = o->sizes[si];
    bufs b = {0};
    fprintf(stderr, "check %s: n = %d (%d of %d)\n", rr.ri->name, n, si + 1, o->nsizes);
    exit_code = bufs_alloc(&b, &rr, n);
    if (exit_code == CHECK_OK) exit_code = check_size(&rr, &b, n);
    bufs_free(&b);
  }
  print_table(&rr, failures);
  for (int i = 0; i < rr.npts; i++) symv_kernel_unload(&pts[i].k);
  symv_workspace_free(&rr.ws);
  return exit_code;
}

int check_run(const check_opts *o)
{
  symv_device_info dev;
  int rc = symv_device_query(o->device, &dev);
  if (rc == SYMV_NO_DEVICE) {
    fprintf(stderr, "symvtune check: no CUDA device found: check needs a GPU (%s)\n", symv_cuda_error_text());
    return CHECK_NO_GPU;
  }
  if (rc) {
    fprintf(stderr, "symvtune check: device %d: %s %s\n", o->device, symv_strerror(rc), symv_cuda_error_text());
    return rc == SYMV_INVALID_VALUE ? CHECK_USAGE : CHECK_ERROR;
  }
  printf("symvtune check on %s (sm_%d%d, %d SMs), seed %llu, tolerance %g\n", dev.name, dev.cc_major, dev.cc_minor,
         dev.sm_count, o->seed, o->tol);
  point_result *pts = calloc((size_t)o->npoints + 1, sizeof *pts);
  cublasHandle_t h;
  if (!pts) {
    fprintf(stderr, "symvtune check: %s\n", symv_strerror(SYMV_NO_MEMORY));
    return CHECK_ERROR;
  }
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "symvtune check: cublasCreate failed\n");
    free(pts);
    return CHECK_ERROR;
  }
  for (int i = 0; i < o->npoints; i++) pts[i].p = o->points[i];
  cublasSetAtomicsMode(h, CUBLAS_ATOMICS_NOT_ALLOWED);
  unsigned long long seed = o->seed;
  int exit_code = CHECK_OK, failures = 0, nroutines = 0;
  for (int i = 0; i < SYMV_ROUTINE_COUNT && exit_code == CHECK_OK; i++) {
    const symv_routine r = symv_routine_order(i);
    if (!o->routines[r]) continue;
    nroutines++;
    exit_code = check_routine(r, &dev, h, pts, o, &seed, &failures);
  }
  cublasDestroy(h);
  free(pts);
  printf("\n%d routines x %d candidates: %s\n", nroutines, o->npoints, failures ? "FAILED" : "all passed");
  if (exit_code) return exit_code;
  return failures ? CHECK_FAIL : CHECK_OK;
}
