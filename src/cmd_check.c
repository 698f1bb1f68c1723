/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_check.c - `symvtune check`: proves every kernel family right on the
 * GPU present, for every routine asked for (--routine), against cuBLAS on
 * the GPU and OpenBLAS/LAPACK on the CPU, over a grid of argument
 * combinations (both uplo, n from 1 to 10,007, lda > n, positive and
 * negative strides, alpha = 0, beta = 0, beta = 1; complex routines with
 * scalars whose imaginary parts are nonzero).
 *
 * Every case draws fresh random data. Poisons: the triangle that is not
 * stored and the rows past n (lda > n) hold NaN, so a kernel reading them
 * fails; y's elements between strided entries hold a sentinel that must
 * survive; with beta = 0, y holds NaN (must not leak); with alpha = 0, x holds
 * NaN (must not be read); HEMV: the imaginary parts of A's diagonal hold a
 * large value, which must not be read. Judged by the scaled residual
 * (reference.h).
 * cuBLAS does read x when alpha = 0 (a NaN there reaches its y), so cuBLAS is
 * given a finite copy of x in those cases; its result is beta*y either way.
 */
#include <cublas_v2.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "compile.h"
#include "gpu.h"
#include "cublas_symv.h"
#include "reference.h"
#include "routine.h"
#include "symv_error.h"

#define MAX_POINTS 64
#define MAX_SIZES 64
#define Y_PAD 16

static const char *const default_points[] = {
  "atomic:128,16,1,0", "atomic:32,8,2,1",  "atomic:256,32,1,9", "atomic:64,13,4,4", "atomic:160,14,4,7",
  "atomic:96,9,3,2",   "atomic:224,24,2,5", "atomic:192,20,1,8", "atomic:64,10,6,3", "atomic_red:128,16,2,0",
  "atomic_red:256,32,1,6", "lu:128,16,1,0", "lu:64,8,2,0", "lu:256,32,1,3", "lu:32,4,4,0",
  "atomic_w:64,16,8,1", "atomic_w:96,11,3,4", "panel:256,4,4,0", "panel:64,2,8,1", "panel:128,8,2,2",
  "panel:512,16,1,3", "pipe:256,64,2,0", "pipe:512,64,1,1", "pipe:64,16,4,2", "pipe:128,32,3,0",
  "pipe_det:256,64,2,0", "pipe_det:512,32,1,1", "pipe_det:64,16,4,2", "pipe_det:128,64,3,0",
  "pipe:512,128,1,0", "pipe_det:512,128,1,0", "pipe_det:256,64,2,3", "pipe_det:128,4,3,4",
};
static const int default_sizes[] = {1, 2, 3, 17, 32, 33, 100, 255, 256, 257, 1000, 1025, 2048, 4099, 10007};

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

static void help(void)
{
  puts("Usage: symvtune check [OPTIONS]\n"
       "Runs every kernel family over a grid of cases of each routine (uplo L and U; n from 1 to\n"
       "10007; lda = n and lda > n; strides 1, 2, 3, -1, -3; alpha = 0; beta = 0 and 1; complex\n"
       "scalars with nonzero imaginary parts) on fresh random data and compares each result with\n"
       "cuBLAS (GPU) and OpenBLAS/LAPACK (CPU) by the scaled residual\n"
       "|y - y_ref| / (n eps (|alpha| |A||x| + |beta| |y|)). Prints a table per routine; exit\n"
       "status 1 if any candidate fails. A candidate whose MULTIPLICITY cannot be had for a\n"
       "routine's element size is listed as skipped, not failed.\n\n"
       "Options:\n"
       CLI_ROUTINE_HELP
       "  --point P      check candidate P = FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX (repeatable;\n"
       "                 FAMILY: " SYMV_TUNABLE_FAMILIES "); default: a sample of 31 points\n"
       "                 covering every family and every MX\n"
       "  --sizes LIST   comma-separated n values (default 1,2,3,17,32,33,100,255,256,257,1000,\n"
       "                 1025,2048,4099,10007)\n"
       "  --tol T        largest scaled residual accepted (default 4)\n"
       "  --seed S       random seed (default: from the clock; printed)\n"
       "  --device N     CUDA device (default 0)\n"
       "  --verbose      print every failing case\n"
       "  --help         this text\n"
       "Exit status: 0 all pass, 1 a failure, 2 usage, 3 no GPU, 4 CUDA error.");
}

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
    return SYMV_EXIT_ERROR;
  }
  return 0;
}

/* Checks the npts candidates (their routine set to r) and cuBLAS over the
 * grid; prints routine r's table; *failures gets the failed candidates.
 * Returns an exit code (SYMV_EXIT_OK unless CUDA or memory failed). */
static int check_routine(symv_routine r, const symv_device_info *dev, cublasHandle_t h, point_result *pts, int npts,
                         const int *sizes, int nsizes, double tol, int verbose, unsigned long long *seed,
                         int *failures)
{
  const symv_routine_info *ri = symv_routine_get(r);
  const size_t E = (size_t)ri->elem_bytes;
  _Alignas(16) unsigned char sentinel[16];
  symv_scalar_set(r, sentinel, -12345.678, 4321.5);
  int rc;
  printf("\n%s (%s): %d candidates\n", ri->blas, ri->name, npts);
  /* compile and load every point for this routine */
  for (int i = 0; i < npts; i++) {
    point_result *pr = &pts[i];
    symv_kernel_unload(&pr->k);
    pr->p.routine = r;
    pr->loaded = pr->skipped = pr->cases = pr->fails = 0;
    pr->worst_ref = pr->worst_cublas = 0;
    pr->untouched = 0;
    pr->why[0] = 0;
    symv_params_format(&pr->p, pr->label, sizeof pr->label);
    symv_cubin cb;
    char *log = NULL;
    rc = symv_compile(&pr->p, dev->cc_major, dev->cc_minor, &cb, &log);
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

  point_result cub = {.label = "cuBLAS (reference)", .loaded = 1};
  symv_workspace ws = {0};
  int exit_code = SYMV_EXIT_OK, total_cases = 0;

  for (int si = 0; si < nsizes && exit_code == SYMV_EXIT_OK; si++) {
    const int n = sizes[si], lda_max = n + 3;
    fprintf(stderr, "check %s: n = %d (%d of %d)\n", ri->name, n, si + 1, nsizes);
    size_t a_len = (size_t)lda_max * (n > 0 ? n : 1);
    long xs_max = span(n, 3), ys_max = span(n, 3) + Y_PAD;
    void *A = malloc(a_len * E), *x = malloc(xs_max * E), *y0 = malloc(ys_max * E);
    void *yref = malloc(ys_max * E), *ycub = malloc(ys_max * E), *y = malloc(ys_max * E);
    void *dA = NULL, *dx = NULL, *dy = NULL, *dxf = NULL; /* dxf: finite x for cuBLAS at alpha = 0 */
    if (!A || !x || !y0 || !yref || !ycub || !y) {
      fprintf(stderr, "symvtune check: out of host memory at n = %d\n", n);
      exit_code = SYMV_EXIT_ERROR;
    } else if (cudaMalloc(&dA, a_len * E) != cudaSuccess || cudaMalloc(&dx, xs_max * E) != cudaSuccess ||
               cudaMalloc(&dy, ys_max * E) != cudaSuccess || cudaMalloc(&dxf, xs_max * E) != cudaSuccess) {
      fprintf(stderr, "symvtune check: cudaMalloc failed at n = %d\n", n);
      exit_code = SYMV_EXIT_ERROR;
    }
    for (int u = 0; u < 2 && exit_code == SYMV_EXIT_OK; u++) {
      const char uplo = u ? 'U' : 'L';
      for (int ci = 0; ci < NCOMBOS && exit_code == SYMV_EXIT_OK; ci++) {
        const combo *cb = &combos[ci];
        _Alignas(16) unsigned char alpha[16], beta[16];
        symv_scalar_set(r, alpha, cb->alpha, cb->alpha_im);
        symv_scalar_set(r, beta, cb->beta, cb->beta_im);
        const int alpha0 = symv_scalar_is_zero(r, alpha), beta0 = symv_scalar_is_zero(r, beta);
        const int lda = n + cb->lda_extra > 0 ? n + cb->lda_extra : 1;
        if (ci == 0 || combos[ci - 1].lda_extra != cb->lda_extra) {
          make_matrix(r, A, n, lda, uplo, seed);
          cudaMemcpy(dA, A, (size_t)lda * n * E, cudaMemcpyHostToDevice);
        }
        long xl = span(n, cb->incx), yl = span(n, cb->incy) + Y_PAD;
        symv_fill_random(r, x, xl, seed);
        if (alpha0) {
          cudaMemcpy(dxf, x, xl * E, cudaMemcpyHostToDevice);
          for (long i = 0; i < xl; i++) symv_set_nan(r, x, i);
        }
        for (long i = 0; i < yl; i++) memcpy(EL(y0, i), sentinel, E);
        symv_fill_random(r, yref, n, seed);
        for (int i = 0; i < n; i++) {
          long p = cb->incy > 0 ? (long)i * cb->incy : (long)(n - 1 - i) * -cb->incy;
          if (beta0) symv_set_nan(r, y0, p);
          else memcpy(EL(y0, p), EL(yref, i), E);
        }
        /* reference: OpenBLAS/LAPACK; alpha = 0 by definition (x is NaN on
         * purpose); beta = 0 with y's NaN replaced (unread by definition) */
        memcpy(yref, y0, yl * E);
        if (beta0)
          for (int i = 0; i < n; i++)
            symv_scalar_set(r, EL(yref, cb->incy > 0 ? (long)i * cb->incy : (long)(n - 1 - i) * -cb->incy), 0, 0);
        if (alpha0) symv_ref_scale(r, n, beta, yref, cb->incy);
        else symv_ref(r, uplo, n, alpha, A, lda, x, cb->incx, beta, yref, cb->incy);
        double *scale = n ? symv_residual_scale(r, uplo, n, alpha, A, lda, x, cb->incx, beta, y0, cb->incy) : NULL;
        cudaMemcpy(dx, x, xl * E, cudaMemcpyHostToDevice);
        total_cases++;

        /* cuBLAS */
        cudaMemcpy(dy, y0, yl * E, cudaMemcpyHostToDevice);
        cublasStatus_t st = symv_cublas(h, r, uplo, n, alpha, dA, lda, alpha0 ? dxf : dx, cb->incx, beta, dy,
                                        cb->incy);
        if (st != CUBLAS_STATUS_SUCCESS || (exit_code = check_cuda(ri->cublas))) {
          if (!exit_code) fprintf(stderr, "symvtune check: %s returned %d\n", ri->cublas, (int)st);
          exit_code = SYMV_EXIT_ERROR;
          free(scale);
          break;
        }
        cudaMemcpy(ycub, dy, yl * E, cudaMemcpyDeviceToHost);
        double rc_ref = n ? symv_residual_scaled(r, n, cb->incy, scale, ycub, yref) : 0;
        long bad = symv_untouched(r, ycub, yl, n, cb->incy, sentinel);
        cub.cases++;
        if (rc_ref > cub.worst_ref) cub.worst_ref = rc_ref;
        cub.untouched += bad;
        if (!(rc_ref <= tol) || bad) cub.fails++;

        for (int pi = 0; pi < npts && exit_code == SYMV_EXIT_OK; pi++) {
          point_result *pr = &pts[pi];
          if (!pr->loaded) continue;
          cudaMemcpy(dy, y0, yl * E, cudaMemcpyHostToDevice);
          int bad_arg = 0;
          rc = symv_launch(&pr->k, &ws, 0, uplo, n, alpha, dA, lda, dx, cb->incx, beta, dy, cb->incy, 0, &bad_arg);
          if (rc) {
            fprintf(stderr, "symvtune check: %s %s: launch at n=%d: %s (%s)\n", ri->name, pr->label, n,
                    symv_strerror(rc), symv_cuda_error_text());
            exit_code = SYMV_EXIT_ERROR;
            break;
          }
          char what[200], sa[64], sb[64];
          snprintf(what, sizeof what, "%s %s at uplo=%c n=%d lda=%d incx=%d incy=%d", ri->name, pr->label, uplo, n,
                   lda, cb->incx, cb->incy);
          if ((exit_code = check_cuda(what))) break;
          cudaMemcpy(y, dy, yl * E, cudaMemcpyDeviceToHost);
          double r1 = n ? symv_residual_scaled(r, n, cb->incy, scale, y, yref) : 0;
          double r2 = n ? symv_residual_scaled(r, n, cb->incy, scale, y, ycub) : 0;
          long b2 = symv_untouched(r, y, yl, n, cb->incy, sentinel);
          pr->cases++;
          if (r1 > pr->worst_ref) pr->worst_ref = r1;
          if (r2 > pr->worst_cublas) pr->worst_cublas = r2;
          pr->untouched += b2;
          if (!(r1 <= tol) || !(r2 <= tol) || b2) {
            pr->fails++;
            symv_scalar_format(r, alpha, sa, sizeof sa);
            symv_scalar_format(r, beta, sb, sizeof sb);
            if (verbose || pr->fails == 1)
              printf("FAIL %s alpha=%s beta=%s: residual %.3g vs reference, %.3g vs cuBLAS, %ld elements "
                     "written outside y\n",
                     what, sa, sb, r1, r2, b2);
            symv_workspace_reset(&ws, 0);
          }
        }
        free(scale);
      }
    }
    cudaFree(dA), cudaFree(dx), cudaFree(dy), cudaFree(dxf);
    free(A), free(x), free(y0), free(yref), free(ycub), free(y);
  }

  printf("\n%-24s %6s %6s %14s %12s %9s  %s\n", "candidate", "cases", "fails", "resid/CPU ref", "resid/cuBLAS",
         "outside", "status");
  for (int i = -1; i < npts; i++) {
    point_result *pr = i < 0 ? &cub : &pts[i];
    if (!pr->loaded) {
      printf("%-24s %6s %6s %14s %12s %9s  %s: %s\n", pr->label, "-", "-", "-", "-", "-",
             pr->skipped ? "skipped" : "NOT RUN", pr->why);
      *failures += !pr->skipped;
      continue;
    }
    int ok = pr->fails == 0 && pr->cases == total_cases;
    *failures += !ok;
    if (i < 0)
      printf("%-24s %6d %6d %14.3g %12s %9ld  %s\n", pr->label, pr->cases, pr->fails, pr->worst_ref, "-",
             pr->untouched, ok ? "ok" : "FAIL");
    else
      printf("%-24s %6d %6d %14.3g %12.3g %9ld  %s\n", pr->label, pr->cases, pr->fails, pr->worst_ref,
             pr->worst_cublas, pr->untouched, ok ? "ok" : "FAIL");
  }
  for (int i = 0; i < npts; i++) symv_kernel_unload(&pts[i].k);
  symv_workspace_free(&ws);
  return exit_code;
}

static int run(int argc, char **argv)
{
  static const struct option opts[] = {{"point", required_argument, 0, 'p'}, {"sizes", required_argument, 0, 's'},
                                       {"tol", required_argument, 0, 't'},   {"seed", required_argument, 0, 'S'},
                                       {"device", required_argument, 0, 'd'}, {"verbose", no_argument, 0, 'v'},
                                       {"routine", required_argument, 0, 'r'}, {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  static point_result pts[MAX_POINTS + 1];
  int npts = 0, sizes[MAX_SIZES], nsizes = 0, device = 0, verbose = 0, c;
  int sel[SYMV_ROUTINE_COUNT] = {[SYMV_DSYMV] = 1};
  double tol = SYMV_RESIDUAL_TOL;
  unsigned long long seed = (unsigned long long)time(NULL) * 2654435761ull;
  memset(pts, 0, sizeof pts);
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'p':
      if (npts == MAX_POINTS) return cli_usage_error("check", "at most %d --point options", MAX_POINTS);
      if (cli_parse_point("check", optarg, &pts[npts].p)) return SYMV_EXIT_USAGE;
      if (!symv_family_tunable(pts[npts].p.family))
        return cli_usage_error("check", "family '%s' computes no product", symv_family_name(pts[npts].p.family));
      npts++;
      break;
    case 's':
      if (cli_parse_int_list("check", "--sizes", optarg, 0, 100000, sizes, MAX_SIZES, &nsizes))
        return SYMV_EXIT_USAGE;
      break;
    case 't':
      if (cli_parse_double("check", "--tol", optarg, 1e-3, 1e12, &tol)) return SYMV_EXIT_USAGE;
      break;
    case 'S':
      if (cli_parse_seed("check", optarg, &seed)) return SYMV_EXIT_USAGE;
      break;
    case 'd':
      if (cli_parse_int("check", "--device", optarg, 0, 1023, &device)) return SYMV_EXIT_USAGE;
      break;
    case 'r':
      if (cli_parse_routines("check", optarg, sel)) return SYMV_EXIT_USAGE;
      break;
    case 'v': verbose = 1; break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("check", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("check", "unexpected argument '%s'", argv[optind]);
  if (npts == 0)
    for (size_t i = 0; i < sizeof default_points / sizeof *default_points; i++)
      symv_params_parse(default_points[i], &pts[npts++].p, NULL, 0);
  if (nsizes == 0) {
    nsizes = (int)(sizeof default_sizes / sizeof *default_sizes);
    memcpy(sizes, default_sizes, sizeof default_sizes);
  }

  symv_device_info dev;
  int rc = symv_device_query(device, &dev);
  if (rc == SYMV_NO_DEVICE) {
    fprintf(stderr, "symvtune check: no CUDA device found: check needs a GPU (%s)\n", symv_cuda_error_text());
    return SYMV_EXIT_NO_GPU;
  }
  if (rc) {
    fprintf(stderr, "symvtune check: device %d: %s %s\n", device, symv_strerror(rc), symv_cuda_error_text());
    return rc == SYMV_INVALID_VALUE ? SYMV_EXIT_USAGE : SYMV_EXIT_ERROR;
  }
  printf("symvtune check on %s (sm_%d%d, %d SMs), seed %llu, tolerance %g\n", dev.name, dev.cc_major, dev.cc_minor,
         dev.sm_count, seed, tol);

  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "symvtune check: cublasCreate failed\n");
    return SYMV_EXIT_ERROR;
  }
  cublasSetAtomicsMode(h, CUBLAS_ATOMICS_NOT_ALLOWED);
  int exit_code = SYMV_EXIT_OK, failures = 0, nroutines = 0;
  for (int i = 0; i < SYMV_ROUTINE_COUNT && exit_code == SYMV_EXIT_OK; i++) {
    const symv_routine r = symv_routine_order(i);
    if (!sel[r]) continue;
    nroutines++;
    exit_code = check_routine(r, &dev, h, pts, npts, sizes, nsizes, tol, verbose, &seed, &failures);
  }
  cublasDestroy(h);
  printf("\n%d routines x %d candidates: %s\n", nroutines, npts, failures ? "FAILED" : "all passed");
  if (exit_code) return exit_code;
  return failures ? SYMV_EXIT_FAIL : SYMV_EXIT_OK;
}

const symv_command cmd_check_entry = {"check", "verify kernel candidates against cuBLAS and OpenBLAS", run};
