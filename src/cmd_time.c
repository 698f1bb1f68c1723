/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_time.c - `symvtune time`: times chosen candidates next to cuBLAS
 * (atomics mode off and on) at chosen sizes, in one run, with the sweep's
 * timing discipline (timing.h), and prints ratios against cuBLAS and the
 * fraction of the copy bandwidth measured in the same run, and every time
 * over the floor (gpu/floor.h) measured in the same run.
 */
#include <cublas_v2.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "compile.h"
#include "gpu.h"
#include "cublas_symv.h"
#include "floor.h"
#include "reference.h"
#include "routine.h"
#include "symv_error.h"
#include "timing.h"

#define MAX_POINTS 64
#define MAX_SIZES 64

typedef struct {
  const symv_kernel *k; /* NULL: cuBLAS */
  cublasHandle_t h;
  symv_workspace *ws;
  const symv_matrix_set *set;
  int n;
  const void *x;
  void *y;
  symv_routine r;
  const void *alpha, *beta;
  char uplo;
} call_ctx;

static int call(void *vctx, int rep, cudaStream_t s)
{
  call_ctx *c = vctx;
  const void *A = symv_matrix_set_get(c->set, rep);
  if (!c->k) {
    cublasStatus_t st = symv_cublas(c->h, c->r, c->uplo, c->n, c->alpha, A, c->n, c->x, 1, c->beta, c->y, 1);
    return st == CUBLAS_STATUS_SUCCESS ? 0 : SYMV_CUBLAS;
  }
  return symv_launch(c->k, c->ws, s, c->uplo, c->n, c->alpha, A, c->n, c->x, 1, c->beta, c->y, 1, 0, NULL);
}

/* One row of the table: n, what ran, its time (us), GFLOPS, GB/s of the
 * matrix's traffic, % of the copy rate, the two speed-ups (NAN: "-"), its
 * time over the floor fl (NAN: "-"), the residual as text. */
static void print_row(symv_routine r, int n, const char *what, double us, double copy, double x0, double x1,
                      double fl, const char *resid)
{
  char s0[16] = "-", s1[16] = "-", sf[16] = "-";
  if (!isnan(x0)) snprintf(s0, sizeof s0, "%.2f", x0);
  if (!isnan(x1)) snprintf(s1, sizeof s1, "%.2f", x1);
  if (fl > 0) snprintf(sf, sizeof sf, "%.2f", us / fl);
  printf("%7d %-24s %10.2f %9.1f %8.1f %6.1f %9s %9s %8s %9s\n", n, what, us, symv_gflops(r, n, us),
         symv_gbs(r, n, us), copy > 0 ? 100 * symv_gbs(r, n, us) / copy : 0, s0, s1, sf, resid);
}

static void help(void)
{
  puts("Usage: symvtune time [OPTIONS]\n"
       "Times candidates and cuBLAS (atomics mode off and on) at each size, in one run, for one\n"
       "routine:\n"
       "CUDA events around batches of back-to-back calls, median of the batches, A rotated among\n"
       "copies larger than twice the L2 cache (cold) unless --hot. Prints microseconds, GFLOPS,\n"
       "GB/s of matrix traffic, % of the device-to-device copy rate measured in the same run,\n"
       "and the speed-up over each cuBLAS mode (cuBLAS time / candidate time). The row\n"
       "'floor:BLOCK_SIZE,UX,MULTIPLICITY,MX' is the floor at that n: the least time over the floor\n"
       "family, read-only kernels that stream the stored triangle's n(n+1)/2 elements once\n"
       "(kernels/symv_floor.cu), timed the same way; 'x floor' is each time over it (1.00: at\n"
       "the floor).\n\n"
       "Options:\n"
       CLI_ROUTINE_HELP "                 (several: the command runs once for each)\n"
       "  --point P      candidate FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX (repeatable)\n"
       "  --sizes LIST   comma-separated n values (default 1000,4096,16384)\n"
       "  --uplo L|U     stored triangle (default L)\n"
       "  --hot          keep A in L2 (one copy) instead of rotating copies\n"
       "  --batches N    timed batches per measurement (default 7)\n"
       "  --beta B       the calls' beta (default 0.5; 1 and 0 take other paths; its imaginary\n"
       "                 part is 0); alpha is 1 (complex routines: 1 + 0.25i)\n"
       "  --floor-detail time every floor shape fully (not only the 4 fastest by a probe), and\n"
       "                 print each shape's time (rows '+floor:...'), the untuned floor kernel\n"
       "                 (floor:256,1,8,8, the floor before the family) and the empty kernel's\n"
       "                 time a call (what a launch costs)\n"
       "  --no-floor     measure no floor: no floor row, and '-' for x floor\n"
       "  --device N     CUDA device (default 0)\n"
       "  --help         this text\n"
       "Exit status: 0, 1 if a candidate could not run or was wrong, 2 usage, 3 no GPU, 4 CUDA error.");
}

static int run(int argc, char **argv)
{
  int each;
  if (cli_each_routine("time", argc, argv, run, &each)) return each;
  static const struct option opts[] = {{"point", required_argument, 0, 'p'}, {"sizes", required_argument, 0, 's'},
                                       {"uplo", required_argument, 0, 'u'},  {"hot", no_argument, 0, 'H'},
                                       {"batches", required_argument, 0, 'b'}, {"device", required_argument, 0, 'd'},
                                       {"beta", required_argument, 0, 'B'},  {"help", no_argument, 0, 'h'},
                                       {"routine", required_argument, 0, 'r'}, {"floor-detail", no_argument, 0, 'F'},
                                       {"no-floor", no_argument, 0, 'N'},      {0, 0, 0, 0}};
  symv_routine routine = SYMV_DSYMV;
  symv_params pts[MAX_POINTS];
  int npts = 0, sizes[MAX_SIZES] = {1000, 4096, 16384}, nsizes = 3, hot = 0, batches = 7, device = 0, c;
  int floor_detail = 0, no_floor = 0;
  char uplo = 'L';
  double beta = 0.5;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'p':
      if (npts == MAX_POINTS) return cli_usage_error("time", "at most %d --point options", MAX_POINTS);
      if (cli_parse_point("time", optarg, &pts[npts])) return SYMV_EXIT_USAGE;
      if (!symv_family_tunable(pts[npts].family))
        return cli_usage_error("time", "family '%s' computes no product", symv_family_name(pts[npts].family));
      npts++;
      break;
    case 's':
      if (cli_parse_int_list("time", "--sizes", optarg, 1, 65536, sizes, MAX_SIZES, &nsizes)) return SYMV_EXIT_USAGE;
      break;
    case 'u':
      if (strcmp(optarg, "L") && strcmp(optarg, "U") && strcmp(optarg, "l") && strcmp(optarg, "u"))
        return cli_usage_error("time", "invalid --uplo '%s' (expected L or U)", optarg);
      uplo = (char)(optarg[0] & ~0x20);
      break;
    case 'H': hot = 1; break;
    case 'F': floor_detail = 1; break;
    case 'N': no_floor = 1; break;
    case 'r':
      if (cli_parse_routine("time", optarg, &routine)) return SYMV_EXIT_USAGE;
      break;
    case 'b':
      if (cli_parse_int("time", "--batches", optarg, 1, 999, &batches)) return SYMV_EXIT_USAGE;
      break;
    case 'B':
      if (cli_parse_double("time", "--beta", optarg, -1e6, 1e6, &beta)) return SYMV_EXIT_USAGE;
      break;
    case 'd':
      if (cli_parse_int("time", "--device", optarg, 0, 1023, &device)) return SYMV_EXIT_USAGE;
      break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("time", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("time", "unexpected argument '%s'", argv[optind]);
  if (floor_detail && no_floor) return cli_usage_error("time", "--floor-detail and --no-floor exclude each other");

  symv_device_info dev;
  int rc = symv_device_query(device, &dev);
  if (rc == SYMV_NO_DEVICE) {
    fprintf(stderr, "symvtune time: no CUDA device found: timing needs a GPU\n");
    return SYMV_EXIT_NO_GPU;
  }
  if (rc) {
    fprintf(stderr, "symvtune time: device %d: %s %s\n", device, symv_strerror(rc), symv_cuda_error_text());
    return SYMV_EXIT_ERROR;
  }
  symv_kernel ks[MAX_POINTS];
  int loaded[MAX_POINTS], status = SYMV_EXIT_OK;
  const symv_routine_info *ri = symv_routine_get(routine);
  const size_t E = (size_t)ri->elem_bytes;
  _Alignas(16) unsigned char alpha[16], betas[16];
  symv_scalar_set(routine, alpha, 1.0, 0.25);
  symv_scalar_set(routine, betas, beta, 0.0);
  for (int i = 0; i < npts; i++) pts[i].routine = routine;
  for (int i = 0; i < npts; i++) {
    symv_cubin cb;
    char *log = NULL, why[256] = "", label[48];
    symv_params_format(&pts[i], label, sizeof label);
    loaded[i] = 0;
    rc = symv_compile(&pts[i], dev.cc_major, dev.cc_minor, &cb, &log);
    if (rc) {
      fprintf(stderr, "symvtune time: %s: %s\n", label, log ? log : symv_strerror(rc));
      free(log);
      status = SYMV_EXIT_FAIL;
      continue;
    }
    rc = symv_kernel_load(&pts[i], &cb, &dev, &ks[i], why, sizeof why);
    symv_cubin_free(&cb);
    if (rc) {
      fprintf(stderr, "symvtune time: %s: %s: %s\n", label, symv_strerror(rc), why);
      status = SYMV_EXIT_FAIL;
      continue;
    }
    loaded[i] = 1;
  }
  double copy = symv_copy_bandwidth((size_t)1 << 30);
  printf("%s on %s, %d SMs, L2 %.0f MB; copy rate %.0f GB/s (read + write); A %s; uplo %c\n", ri->blas, dev.name,
         dev.sm_count, dev.l2_bytes / 1e6, copy, hot ? "hot (one copy)" : "cold (rotated copies > 2 x L2)", uplo);
  symv_floor_family fam;
  int have_floor = 0;
  if (!no_floor) {
    char why[600];
    have_floor = symv_floor_family_load(&dev, routine, &fam, why, sizeof why) == 0;
    if (!have_floor) {
      symv_floor_family_free(&fam);
      fprintf(stderr, "symvtune time: the floor family could not be loaded (%s): no floor\n", why);
    }
    else printf("floor family: %d shapes (%d the GPU cannot run)\n", fam.nshapes, fam.dropped);
    if (have_floor && floor_detail) {
      symv_timing te;
      if (symv_floor_empty_time(&fam, batches, &te) == 0)
        printf("empty kernel (floor:32,1,1,9, launched as the others, back to back): %.2f us a call\n", te.median_us);
    }
  }
  printf("%7s %-24s %10s %9s %8s %6s %9s %9s %8s %9s\n", "n", "kernel", "us", "GFLOPS", "GB/s", "%copy", "x cuBLAS",
         "x cuBLAS-a", "x floor", "resid");

  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return SYMV_EXIT_ERROR;
  symv_workspace ws = {0};
  unsigned long long seed = 12345;
  for (int si = 0; si < nsizes && status != SYMV_EXIT_ERROR; si++) {
    const int n = sizes[si];
    size_t bytes = (size_t)n * n * E;
    size_t freeb = 0, totalb = 0;
    cudaMemGetInfo(&freeb, &totalb);
    int copies = symv_matrix_copies_for(bytes, dev.l2_bytes, hot, freeb / 2);
    void *A = malloc(bytes), *xh = malloc(n * E), *yh = malloc(n * E), *yc = malloc(n * E), *yk = malloc(n * E);
    symv_matrix_set set = {0};
    void *dx = NULL, *dy = NULL;
    double *scale = NULL;
    if (!A || !xh || !yh || !yc || !yk) {
      fprintf(stderr, "symvtune time: out of host memory at n = %d\n", n);
      status = SYMV_EXIT_ERROR;
      goto next;
    }
    symv_fill_random(routine, A, (long)n * n, &seed);
    symv_fill_random(routine, xh, n, &seed);
    symv_fill_random(routine, yh, n, &seed);
    if (symv_matrix_set_create(&set, E, A, n, n, copies) || cudaMalloc(&dx, n * E) || cudaMalloc(&dy, n * E)) {
      fprintf(stderr, "symvtune time: device memory at n = %d: %s\n", n, symv_cuda_error_text());
      status = SYMV_EXIT_ERROR;
      goto next;
    }
    cudaMemcpy(dx, xh, n * E, cudaMemcpyHostToDevice);
    call_ctx cx = {.h = h, .ws = &ws, .set = &set, .n = n, .x = dx, .y = dy, .r = routine, .alpha = alpha,
                   .beta = betas, .uplo = uplo};
    /* the result of one call from the same y, for the residual column */
    scale = symv_residual_scale(routine, uplo, n, alpha, A, n, xh, 1, betas, yh, 1);
    double base[2] = {0, 0}, fl = NAN;
    if (have_floor) {
      symv_floor_result fr;
      char label[48];
      if ((rc = symv_floor_measure(&fam, &set, n, batches, floor_detail ? 0 : 4, &fr))) {
        fprintf(stderr, "symvtune time: the floor at n = %d: %s %s\n", n, symv_strerror(rc), symv_cuda_error_text());
        status = SYMV_EXIT_ERROR;
        goto next;
      }
      fl = fr.us;
      symv_params_format(&fam.k[fr.shape].p, label, sizeof label);
      print_row(routine, n, label, fl, copy, NAN, NAN, fl, "-");
      if (floor_detail && fam.untuned >= 0)
        print_row(routine, n, "floor-untuned", fr.untuned_us, copy, NAN, NAN, fl, "-");
      for (int i = 0; floor_detail && i < fam.nshapes; i++) { /* every shape, '+' before its name */
        if (i == fam.untuned || i == fr.shape || isnan(fr.shape_us[i])) continue;
        label[0] = '+';
        symv_params_format(&fam.k[i].p, label + 1, sizeof label - 1);
        print_row(routine, n, label, fr.shape_us[i], copy, NAN, NAN, fl, "-");
      }
    }
    for (int mode = 0; mode < 2; mode++) {
      symv_timing t;
      cublasSetAtomicsMode(h, mode ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED);
      cudaMemcpy(dy, yh, n * E, cudaMemcpyHostToDevice);
      cx.k = NULL;
      if (mode == 0) {
        call(&cx, 0, 0);
        cudaMemcpy(yc, dy, n * E, cudaMemcpyDeviceToHost);
      }
      if ((rc = symv_time(call, &cx, 0, batches, 2.0, 2000, &t))) {
        fprintf(stderr, "symvtune time: cuBLAS at n = %d: %s\n", n, symv_strerror(rc));
        status = SYMV_EXIT_ERROR;
        break;
      }
      base[mode] = t.median_us;
      print_row(routine, n, mode ? "cuBLAS-atomics" : "cuBLAS", t.median_us, copy, base[0] / t.median_us,
                mode ? 1.0 : NAN, fl, "-");
    }
    for (int i = 0; i < npts && status != SYMV_EXIT_ERROR; i++) {
      if (!loaded[i]) continue;
      char label[48];
      symv_params_format(&pts[i], label, sizeof label);
      symv_timing t;
      cx.k = &ks[i];
      cudaMemcpy(dy, yh, n * E, cudaMemcpyHostToDevice);
      rc = call(&cx, 0, 0);
      if (!rc && cudaDeviceSynchronize() != cudaSuccess) rc = SYMV_FAULT;
      if (rc) {
        fprintf(stderr, "symvtune time: %s at n = %d: %s %s\n", label, n, symv_strerror(rc), symv_cuda_error_text());
        status = SYMV_EXIT_ERROR;
        break;
      }
      cudaMemcpy(yk, dy, n * E, cudaMemcpyDeviceToHost);
      double resid = scale ? symv_residual_scaled(routine, n, 1, scale, yk, yc) : NAN;
      if (!(resid <= SYMV_RESIDUAL_TOL)) status = SYMV_EXIT_FAIL;
      if ((rc = symv_time(call, &cx, 0, batches, 2.0, 2000, &t))) {
        fprintf(stderr, "symvtune time: %s at n = %d: %s\n", label, n, symv_strerror(rc));
        status = SYMV_EXIT_ERROR;
        break;
      }
      char rs[16];
      snprintf(rs, sizeof rs, "%.2g", resid);
      print_row(routine, n, label, t.median_us, copy, base[0] / t.median_us, base[1] / t.median_us, fl, rs);
    }
  next:
    free(scale);
    symv_matrix_set_free(&set);
    cudaFree(dx), cudaFree(dy);
    free(A), free(xh), free(yh), free(yc), free(yk);
  }
  for (int i = 0; i < npts; i++)
    if (loaded[i]) symv_kernel_unload(&ks[i]);
  symv_workspace_free(&ws);
  if (have_floor) symv_floor_family_free(&fam);
  cublasDestroy(h);
  return status;
}

const symv_command cmd_time_entry = {"time", "time candidates against cuBLAS at chosen sizes", run};
