/*
 * cmd_check.c - `symvtune check`: proves every kernel family right on the
 * GPU present, against cuBLAS on the GPU and OpenBLAS on the CPU, over a grid
 * of DSYMV argument combinations (both uplo, n from 1 to 10,007, lda > n,
 * positive and negative strides, alpha = 0, beta = 0, beta = 1).
 *
 * Every case draws fresh random data. Poisons: the triangle that is not
 * stored and the rows past n (lda > n) hold NaN, so a kernel reading them
 * fails; y's elements between strided entries hold a sentinel that must
 * survive; with beta = 0, y holds NaN (must not leak); with alpha = 0, x holds
 * NaN (must not be read). Judged by the scaled residual (reference.h).
 * cuBLAS does read x when alpha = 0 (a NaN there reaches its y), so cuBLAS is
 * given a finite copy of x in those cases; its result is beta*y either way.
 */
#include <cublas_v2.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "compile.h"
#include "gpu.h"
#include "reference.h"
#include "symv_error.h"

#define MAX_POINTS 64
#define MAX_SIZES 64
#define Y_PAD 16
static const double SENTINEL = -12345.678;

static const char *const default_points[] = {
  "atomic:128,16,1,0", "atomic:32,8,2,1",  "atomic:256,32,1,9", "atomic:64,13,4,4", "atomic:160,14,4,7",
  "atomic:96,9,3,2",   "atomic:224,24,2,5", "atomic:192,20,1,8", "atomic:64,10,6,3", "atomic_red:128,16,2,0",
  "atomic_red:256,32,1,6", "lu:128,16,1,0", "lu:64,8,2,0", "lu:256,32,1,3", "lu:32,4,4,0",
  "atomic_w:64,16,8,1", "atomic_w:96,11,3,4", "panel:256,4,4,0", "panel:64,2,8,1", "panel:128,8,2,2",
  "panel:512,16,1,3", "pipe:256,64,2,0", "pipe:512,64,1,1", "pipe:64,16,4,2", "pipe:128,32,3,0",
};
static const int default_sizes[] = {1, 2, 3, 17, 32, 33, 100, 255, 256, 257, 1000, 1025, 2048, 4099, 10007};

/* The six argument combinations run at every n and uplo. */
typedef struct {
  int lda_extra;   /* lda = n + lda_extra */
  int incx, incy;
  double alpha, beta;
} combo;
static const combo combos[] = {
  {0, 1, 1, 1.3, 0.7},    /* plain */
  {0, -1, 2, 1.0, -1.2},  /* negative incx */
  {0, 1, 1, 0.0, 0.0},    /* alpha = 0, beta = 0: y := 0 */
  {3, 1, 1, -0.8, 0.0},   /* beta = 0: y (NaN) not read; lda > n */
  {3, 2, -3, 0.9, 1.0},   /* beta = 1, mixed strides */
  {3, 3, -1, 0.0, 0.6},   /* alpha = 0: A, x (NaN) not read */
};
#define NCOMBOS (int)(sizeof combos / sizeof combos[0])

typedef struct {
  symv_params p;
  char label[48];
  symv_kernel k;
  int loaded;       /* 0: could not be loaded (reason in why) */
  char why[256];
  int cases, fails;
  double worst_ref, worst_cublas;
  long untouched;
} point_result;

static void help(void)
{
  puts("Usage: symvtune check [OPTIONS]\n"
       "Runs every kernel family over a grid of DSYMV cases (uplo L and U; n from 1 to 10007;\n"
       "lda = n and lda > n; strides 1, 2, 3, -1, -3; alpha = 0; beta = 0 and 1) on fresh random\n"
       "data and compares each result with cuBLAS (GPU) and OpenBLAS (CPU) by the scaled residual\n"
       "|y - y_ref| / (n eps (|alpha| |A||x| + |beta| |y|)). Prints a table; exit status 1 if any\n"
       "candidate fails.\n\n"
       "Options:\n"
       "  --point P      check candidate P = FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX (repeatable;\n"
       "                 FAMILY: " SYMV_TUNABLE_FAMILIES "); default: a sample of 25 points\n"
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

/* Host matrix for (n, lda, uplo): stored triangle random, the other
 * triangle and the rows past n NaN. */
static void make_matrix(double *A, int n, int lda, char uplo, unsigned long long *seed)
{
  symv_fill_random(A, (long)lda * n, seed);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < lda; i++) {
      int stored = i < n && (uplo == 'L' ? i >= j : i <= j);
      if (!stored) A[(size_t)j * lda + i] = NAN;
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

static int run(int argc, char **argv)
{
  static const struct option opts[] = {{"point", required_argument, 0, 'p'}, {"sizes", required_argument, 0, 's'},
                                       {"tol", required_argument, 0, 't'},   {"seed", required_argument, 0, 'S'},
                                       {"device", required_argument, 0, 'd'}, {"verbose", no_argument, 0, 'v'},
                                       {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
  static point_result pts[MAX_POINTS + 1];
  int npts = 0, sizes[MAX_SIZES], nsizes = 0, device = 0, verbose = 0, c;
  double tol = 4.0;
  unsigned long long seed = (unsigned long long)time(NULL) * 2654435761ull;
  memset(pts, 0, sizeof pts);
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'p':
      if (npts == MAX_POINTS) return cli_usage_error("check", "at most %d --point options", MAX_POINTS);
      if (cli_parse_point("check", optarg, &pts[npts].p)) return SYMV_EXIT_USAGE;
      if (!symv_family_tunable(pts[npts].p.family))
        return cli_usage_error("check", "family '%s' computes no DSYMV", symv_family_name(pts[npts].p.family));
      npts++;
      break;
    case 's':
      if (cli_parse_int_list("check", "--sizes", optarg, 0, 100000, sizes, MAX_SIZES, &nsizes))
        return SYMV_EXIT_USAGE;
      break;
    case 't':
      if (cli_parse_double("check", "--tol", optarg, 1e-3, 1e12, &tol)) return SYMV_EXIT_USAGE;
      break;
    case 'S': {
      char *end;
      seed = strtoull(optarg, &end, 0);
      if (!*optarg || *end) return cli_usage_error("check", "invalid --seed '%s'", optarg);
      break;
    }
    case 'd':
      if (cli_parse_int("check", "--device", optarg, 0, 1023, &device)) return SYMV_EXIT_USAGE;
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

  /* compile and load every point */
  for (int i = 0; i < npts; i++) {
    point_result *r = &pts[i];
    symv_params_format(&r->p, r->label, sizeof r->label);
    symv_cubin cb;
    char *log = NULL;
    rc = symv_compile(&r->p, dev.cc_major, dev.cc_minor, &cb, &log);
    if (rc) {
      snprintf(r->why, sizeof r->why, "compile: %s", log ? log : symv_strerror(rc));
      free(log);
      continue;
    }
    rc = symv_kernel_load(&r->p, &cb, &dev, &r->k, r->why, sizeof r->why);
    symv_cubin_free(&cb);
    r->loaded = rc == 0;
  }

  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "symvtune check: cublasCreate failed\n");
    return SYMV_EXIT_ERROR;
  }
  cublasSetAtomicsMode(h, CUBLAS_ATOMICS_NOT_ALLOWED);
  point_result cub = {.label = "cuBLAS (reference)", .loaded = 1};
  symv_workspace ws = {0};
  int exit_code = SYMV_EXIT_OK, total_cases = 0;

  for (int si = 0; si < nsizes && exit_code == SYMV_EXIT_OK; si++) {
    const int n = sizes[si], lda_max = n + 3;
    fprintf(stderr, "check: n = %d (%d of %d)\n", n, si + 1, nsizes);
    size_t a_len = (size_t)lda_max * (n > 0 ? n : 1);
    long xs_max = span(n, 3), ys_max = span(n, 3) + Y_PAD;
    double *A = malloc(a_len * sizeof *A), *x = malloc(xs_max * sizeof *x), *y0 = malloc(ys_max * sizeof *y0);
    double *yref = malloc(ys_max * sizeof *yref), *ycub = malloc(ys_max * sizeof *ycub),
           *y = malloc(ys_max * sizeof *y);
    double *dA = NULL, *dx = NULL, *dy = NULL, *dxf = NULL; /* dxf: finite x for cuBLAS at alpha = 0 */
    if (!A || !x || !y0 || !yref || !ycub || !y) {
      fprintf(stderr, "symvtune check: out of host memory at n = %d\n", n);
      exit_code = SYMV_EXIT_ERROR;
    } else if (cudaMalloc((void **)&dA, a_len * sizeof *A) != cudaSuccess ||
               cudaMalloc((void **)&dx, xs_max * sizeof *x) != cudaSuccess ||
               cudaMalloc((void **)&dy, ys_max * sizeof *y) != cudaSuccess ||
               cudaMalloc((void **)&dxf, xs_max * sizeof *x) != cudaSuccess) {
      fprintf(stderr, "symvtune check: cudaMalloc failed at n = %d\n", n);
      exit_code = SYMV_EXIT_ERROR;
    }
    for (int u = 0; u < 2 && exit_code == SYMV_EXIT_OK; u++) {
      const char uplo = u ? 'U' : 'L';
      for (int ci = 0; ci < NCOMBOS && exit_code == SYMV_EXIT_OK; ci++) {
        const combo *cb = &combos[ci];
        const int lda = n + cb->lda_extra > 0 ? n + cb->lda_extra : 1;
        if (ci == 0 || combos[ci - 1].lda_extra != cb->lda_extra) {
          make_matrix(A, n, lda, uplo, &seed);
          cudaMemcpy(dA, A, (size_t)lda * n * sizeof *A, cudaMemcpyHostToDevice);
        }
        long xl = span(n, cb->incx), yl = span(n, cb->incy) + Y_PAD;
        symv_fill_random(x, xl, &seed);
        if (cb->alpha == 0.0) {
          cudaMemcpy(dxf, x, xl * sizeof *x, cudaMemcpyHostToDevice);
          for (long i = 0; i < xl; i++) x[i] = NAN;
        }
        for (long i = 0; i < yl; i++) y0[i] = SENTINEL;
        symv_fill_random(yref, n, &seed);
        for (int i = 0; i < n; i++) {
          long p = cb->incy > 0 ? (long)i * cb->incy : (long)(n - 1 - i) * -cb->incy;
          y0[p] = cb->beta == 0.0 ? NAN : yref[i];
        }
        /* reference: OpenBLAS; alpha = 0 by definition (x is NaN on purpose);
         * beta = 0 with y's NaN replaced (unread by definition) */
        memcpy(yref, y0, yl * sizeof *y0);
        if (cb->beta == 0.0)
          for (long i = 0; i < yl; i++)
            if (isnan(yref[i])) yref[i] = 0.0;
        if (cb->alpha == 0.0) {
          for (int i = 0; i < n; i++) {
            long p = cb->incy > 0 ? (long)i * cb->incy : (long)(n - 1 - i) * -cb->incy;
            yref[p] = cb->beta == 0.0 ? 0.0 : cb->beta * yref[p];
          }
        } else {
          symv_ref_dsymv(uplo, n, cb->alpha, A, lda, x, cb->incx, cb->beta, yref, cb->incy);
        }
        double *scale = n ? symv_residual_scale(uplo, n, cb->alpha, A, lda, x, cb->incx, cb->beta, y0, cb->incy)
                          : NULL;
        cudaMemcpy(dx, x, xl * sizeof *x, cudaMemcpyHostToDevice);
        total_cases++;

        /* cuBLAS */
        cudaMemcpy(dy, y0, yl * sizeof *y0, cudaMemcpyHostToDevice);
        cublasStatus_t st = cublasDsymv(h, uplo == 'L' ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER, n,
                                        &cb->alpha, dA, lda, cb->alpha == 0.0 ? dxf : dx, cb->incx, &cb->beta, dy,
                                        cb->incy);
        if (st != CUBLAS_STATUS_SUCCESS || (exit_code = check_cuda("cublasDsymv"))) {
          if (!exit_code) fprintf(stderr, "symvtune check: cublasDsymv returned %d\n", (int)st);
          exit_code = SYMV_EXIT_ERROR;
          free(scale);
          break;
        }
        cudaMemcpy(ycub, dy, yl * sizeof *y, cudaMemcpyDeviceToHost);
        double rc_ref = n ? symv_residual_scaled(n, cb->incy, scale, ycub, yref) : 0;
        long bad = symv_untouched(ycub, yl, n, cb->incy, SENTINEL);
        cub.cases++;
        if (rc_ref > cub.worst_ref) cub.worst_ref = rc_ref;
        cub.untouched += bad;
        if (!(rc_ref <= tol) || bad) cub.fails++;

        for (int pi = 0; pi < npts && exit_code == SYMV_EXIT_OK; pi++) {
          point_result *r = &pts[pi];
          if (!r->loaded) continue;
          cudaMemcpy(dy, y0, yl * sizeof *y0, cudaMemcpyHostToDevice);
          int bad_arg = 0;
          rc = symv_launch(&r->k, &ws, 0, uplo, n, &cb->alpha, dA, lda, dx, cb->incx, &cb->beta, dy, cb->incy, 0,
                           &bad_arg);
          if (rc) {
            fprintf(stderr, "symvtune check: %s: launch at n=%d: %s (%s)\n", r->label, n, symv_strerror(rc),
                    symv_cuda_error_text());
            exit_code = SYMV_EXIT_ERROR;
            break;
          }
          char what[160];
          snprintf(what, sizeof what, "%s at uplo=%c n=%d lda=%d incx=%d incy=%d", r->label, uplo, n, lda,
                   cb->incx, cb->incy);
          if ((exit_code = check_cuda(what))) break;
          cudaMemcpy(y, dy, yl * sizeof *y, cudaMemcpyDeviceToHost);
          double r1 = n ? symv_residual_scaled(n, cb->incy, scale, y, yref) : 0;
          double r2 = n ? symv_residual_scaled(n, cb->incy, scale, y, ycub) : 0;
          long b2 = symv_untouched(y, yl, n, cb->incy, SENTINEL);
          r->cases++;
          if (r1 > r->worst_ref) r->worst_ref = r1;
          if (r2 > r->worst_cublas) r->worst_cublas = r2;
          r->untouched += b2;
          if (!(r1 <= tol) || !(r2 <= tol) || b2) {
            r->fails++;
            if (verbose || r->fails == 1)
              printf("FAIL %s alpha=%g beta=%g: residual %.3g vs OpenBLAS, %.3g vs cuBLAS, %ld elements "
                     "written outside y\n",
                     what, cb->alpha, cb->beta, r1, r2, b2);
            symv_workspace_reset(&ws, 0);
          }
        }
        free(scale);
      }
    }
    cudaFree(dA), cudaFree(dx), cudaFree(dy), cudaFree(dxf);
    free(A), free(x), free(y0), free(yref), free(ycub), free(y);
  }

  printf("\n%-24s %6s %6s %12s %12s %9s  %s\n", "candidate", "cases", "fails", "resid/OpenBLAS", "resid/cuBLAS",
         "outside", "status");
  int failures = 0;
  for (int i = -1; i < npts; i++) {
    point_result *r = i < 0 ? &cub : &pts[i];
    if (!r->loaded) {
      printf("%-24s %6s %6s %14s %12s %9s  NOT RUN: %s\n", r->label, "-", "-", "-", "-", "-", r->why);
      failures++;
      continue;
    }
    int ok = r->fails == 0 && r->cases == total_cases;
    failures += !ok;
    if (i < 0)
      printf("%-24s %6d %6d %14.3g %12s %9ld  %s\n", r->label, r->cases, r->fails, r->worst_ref, "-", r->untouched,
             ok ? "ok" : "FAIL");
    else
      printf("%-24s %6d %6d %14.3g %12.3g %9ld  %s\n", r->label, r->cases, r->fails, r->worst_ref, r->worst_cublas,
             r->untouched, ok ? "ok" : "FAIL");
  }
  printf("\n%d candidates, %d cases each: %s\n", npts, total_cases, failures ? "FAILED" : "all passed");
  for (int i = 0; i < npts; i++) symv_kernel_unload(&pts[i].k);
  symv_workspace_free(&ws);
  cublasDestroy(h);
  if (exit_code) return exit_code;
  return failures ? SYMV_EXIT_FAIL : SYMV_EXIT_OK;
}

const symv_command cmd_check_entry = {"check", "verify kernel candidates against cuBLAS and OpenBLAS", run};
