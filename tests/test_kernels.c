/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU tests of every kernel family (skipped when there is no GPU): results
 * of every routine of the registry against the CPU reference (OpenBLAS,
 * LAPACK) by the scaled residual on fresh random data, device
 * pointer mode, argument checks that touch nothing, n = 0, the L+U and panel
 * families' reproducibility, the MULTIPLICITY check, the workspace's return
 * to zero after every call, back-to-back calls under programmatic dependent
 * launch, and the pipe family with more blocks than the GPU holds at once;
 * pipe_fx's fallback, exactness, inf and NaN, subnormal inputs and clearing;
 * and the timing probe the sweep prunes on, against the full timing.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../kernels/symv_fx.h"
#include "compile.h"
#include "cublas_symv.h"
#include "floor.h"
#include "gpu.h"
#include "reference.h"
#include "routine.h"
#include "symv_error.h"
#include "test_util.h"
#include "timing.h"

static symv_device_info dev;

static void need_gpu(void)
{
  if (symv_device_query(0, &dev)) test_skip_without_gpu("no CUDA device: GPU test skipped");
}

/* Compiles and loads p; 0, or the status (SYMV_RESOURCES, SYMV_OCCUPANCY:
 * its MULTIPLICITY cannot be had for this routine's element size). */
static int try_load(symv_params p, symv_kernel *k)
{
  symv_cubin cb;
  char *log = NULL, why[256] = "";
  int rc = symv_compile(&p, dev.cc_major, dev.cc_minor, &cb, &log);
  cr_assert_eq(rc, 0, "compile %s: %s", symv_routine_name(p.routine), log ? log : symv_strerror(rc));
  rc = symv_kernel_load(&p, &cb, &dev, k, why, sizeof why);
  symv_cubin_free(&cb);
  cr_assert(rc == 0 || rc == SYMV_RESOURCES || rc == SYMV_OCCUPANCY, "load: %s: %s", symv_strerror(rc), why);
  return rc;
}

static symv_kernel load(symv_params p)
{
  symv_cubin cb;
  char *log = NULL, why[256] = "";
  int rc = symv_compile(&p, dev.cc_major, dev.cc_minor, &cb, &log);
  cr_assert_eq(rc, 0, "compile: %s", log ? log : symv_strerror(rc));
  symv_kernel k;
  rc = symv_kernel_load(&p, &cb, &dev, &k, why, sizeof why);
  symv_cubin_free(&cb);
  cr_assert_eq(rc, 0, "load: %s: %s", symv_strerror(rc), why);
  return k;
}


/* Runs one case with k (of routine k->p.routine) and returns the scaled
 * residual against the CPU reference. alpha and beta get imaginary parts
 * alpha/3 and -beta/5 for complex routines (none when they are 0). With
 * poison, every element of A that BLAS does not reference (the other
 * triangle, and rows n..lda-1) is NaN: a kernel that lets one of them into
 * y gives a NaN residual. A lies off elements (0..3) past the start of its
 * allocation, which holds NaN before A and after it. */
static double run_case_at(const symv_kernel *k, symv_workspace *ws, char uplo, int n, int lda, int incx, int incy,
                          double alpha, double beta, int on_device, int poison, int off, unsigned long long *seed)
{
  const symv_routine ro = k->p.routine;
  const size_t E = (size_t)symv_routine_get(ro)->elem_bytes;
  long xl = (long)(n - 1) * abs(incx) + 1, yl = (long)(n - 1) * abs(incy) + 1;
  void *A = malloc(E * lda * n), *x = malloc(E * xl), *y0 = malloc(E * yl), *y = malloc(E * yl),
       *yref = malloc(E * yl);
  _Alignas(16) unsigned char s[32];
  symv_scalar_set(ro, s, alpha, alpha / 3);
  symv_scalar_set(ro, s + E, beta, -beta / 5);
  symv_fill_random(ro, A, (long)lda * n, seed);
  for (int j = 0; poison && j < n; j++)
    for (int i = 0; i < lda; i++)
      if (i >= n || (uplo == 'L' ? i < j : i > j)) symv_scalar_set(ro, (char *)A + E * ((long)j * lda + i), NAN, NAN);
  symv_fill_random(ro, x, xl, seed);
  symv_fill_random(ro, y0, yl, seed);
  memcpy(yref, y0, E * yl);
  symv_ref(ro, uplo, n, s, A, lda, x, incx, s + E, yref, incy);
  void *dA0, *dA, *dx, *dy, *ds;
  cr_assert(off >= 0 && off <= 3);
  cr_assert_eq(cudaMalloc(&dA0, E * ((size_t)lda * n + 8)), cudaSuccess);
  cr_assert_eq(cudaMemset(dA0, 0xff, E * ((size_t)lda * n + 8)), cudaSuccess); /* all bits set: NaN */
  dA = (char *)dA0 + E * off;
  cr_assert_eq(cudaMalloc(&dx, E * xl), cudaSuccess);
  cr_assert_eq(cudaMalloc(&dy, E * yl), cudaSuccess);
  cr_assert_eq(cudaMalloc(&ds, 2 * E), cudaSuccess);
  cudaMemcpy(dA, A, E * lda * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, E * xl, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y0, E * yl, cudaMemcpyHostToDevice);
  cudaMemcpy(ds, s, 2 * E, cudaMemcpyHostToDevice);
  int rc = symv_launch(k, ws, 0, uplo, n, on_device ? ds : (void *)s, dA, lda, dx, incx,
                       on_device ? (char *)ds + E : (void *)(s + E), dy, incy, on_device, NULL);
  cr_assert_eq(rc, 0, "launch: %s %s", symv_strerror(rc), symv_cuda_error_text());
  cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess, "kernel faulted");
  cudaMemcpy(y, dy, E * yl, cudaMemcpyDeviceToHost);
  double r = symv_residual(ro, uplo, n, s, A, lda, x, incx, s + E, y0, y, yref, incy);
  cudaFree(dA0), cudaFree(dx), cudaFree(dy), cudaFree(ds);
  free(A), free(x), free(y0), free(y), free(yref);
  return r;
}

/* Fresh random operands of routine r on the host: A (n x n), x and y0
 * (n each), into *A, *x, *y0 (free them). */
static void host_operands(symv_routine r, int n, unsigned long long *seed, void **A, void **x, void **y0)
{
  const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
  *A = malloc(E * n * n), *x = malloc(E * n), *y0 = malloc(E * n);
  cr_assert(*A && *x && *y0);
  symv_fill_random(r, *A, (long)n * n, seed);
  symv_fill_random(r, *x, n, seed);
  symv_fill_random(r, *y0, n, seed);
}

/* Device copies of A (n x n, lda = n) and x, and room for y (n), for a
 * routine of E-byte elements, into *dA, *dx, *dy (cudaFree them). */
static void device_operands(size_t E, int n, const void *A, const void *x, void **dA, void **dx, void **dy)
{
  cr_assert_eq(cudaMalloc(dA, E * n * n), cudaSuccess);
  cr_assert_eq(cudaMalloc(dx, E * n), cudaSuccess);
  cr_assert_eq(cudaMalloc(dy, E * n), cudaSuccess);
  cudaMemcpy(*dA, A, E * n * n, cudaMemcpyHostToDevice);
  cudaMemcpy(*dx, x, E * n, cudaMemcpyHostToDevice);
}

/* run_case_at with A at the start of its allocation */
static double run_case_poisoned(const symv_kernel *k, symv_workspace *ws, char uplo, int n, int lda, int incx,
                                int incy, double alpha, double beta, int on_device, int poison,
                                unsigned long long *seed)
{
  return run_case_at(k, ws, uplo, n, lda, incx, incy, alpha, beta, on_device, poison, 0, seed);
}

/* run_case_poisoned without the poison */
static double run_case(const symv_kernel *k, symv_workspace *ws, char uplo, int n, int lda, int incx, int incy,
                       double alpha, double beta, int on_device, unsigned long long *seed)
{
  return run_case_poisoned(k, ws, uplo, n, lda, incx, incy, alpha, beta, on_device, 0, seed);
}

static const symv_params sample[] = {
  {SYMV_FAMILY_ATOMIC, 128, 16, 1, 0},    {SYMV_FAMILY_ATOMIC, 64, 9, 4, 6}, {SYMV_FAMILY_ATOMIC, 256, 32, 1, 9},
  {SYMV_FAMILY_ATOMIC_RED, 96, 12, 2, 3}, {SYMV_FAMILY_ATOMIC_W, 96, 12, 2, 3}, {SYMV_FAMILY_ATOMIC_W, 64, 16, 8, 1}, {SYMV_FAMILY_LU, 128, 16, 1, 0},   {SYMV_FAMILY_LU, 256, 8, 1, 8},  {SYMV_FAMILY_LU, 64, 32, 2, 1},
  {SYMV_FAMILY_PANEL, 256, 4, 4, 0}, {SYMV_FAMILY_PANEL, 64, 2, 8, 1}, {SYMV_FAMILY_PANEL, 128, 8, 2, 2}, {SYMV_FAMILY_PANEL, 96, 16, 2, 3},
  /* pipe: tiles of 16, 32, 64 and 128 columns (two row blocks a strip's diagonal), 1 to 16 columns
   * per thread, 2 to 4 stages */
  {SYMV_FAMILY_PIPE, 256, 64, 2, 0}, {SYMV_FAMILY_PIPE, 512, 32, 1, 1}, {SYMV_FAMILY_PIPE, 64, 16, 4, 2}, {SYMV_FAMILY_PIPE, 1024, 16, 1, 0},
  {SYMV_FAMILY_PIPE, 512, 128, 1, 0},
  /* pipe_det: the same tiles; one to many blocks per strip, several strips per block */
  {SYMV_FAMILY_PIPE_DET, 256, 64, 2, 0}, {SYMV_FAMILY_PIPE_DET, 512, 32, 1, 1}, {SYMV_FAMILY_PIPE_DET, 64, 16, 4, 2},
  {SYMV_FAMILY_PIPE_DET, 128, 4, 3, 0}, {SYMV_FAMILY_PIPE_DET, 512, 128, 1, 0},
  /* pipe_det's units of BLOCK_SIZE columns (MX 3..5): 2 to 64 tiles side by side */
  {SYMV_FAMILY_PIPE_DET, 256, 64, 2, 3}, {SYMV_FAMILY_PIPE_DET, 64, 16, 4, 5}, {SYMV_FAMILY_PIPE_DET, 128, 4, 3, 4},
  {SYMV_FAMILY_PIPE_DET, 512, 128, 1, 3}, {SYMV_FAMILY_PIPE_DET, 1024, 16, 1, 3},
  /* pipe_fx: pipe's tiles, exact sums completed by the last block to add to a row block */
  {SYMV_FAMILY_PIPE_FX, 256, 64, 2, 0}, {SYMV_FAMILY_PIPE_FX, 512, 128, 1, 1}, {SYMV_FAMILY_PIPE_FX, 64, 16, 4, 2},
  {SYMV_FAMILY_PIPE_FX, 128, 4, 3, 0}, {SYMV_FAMILY_PIPE_FX, 1024, 16, 1, 0},
  /* pipe_fx's MX 3..5: counts held */
  {SYMV_FAMILY_PIPE_FX, 256, 64, 2, 3}, {SYMV_FAMILY_PIPE_FX, 64, 16, 4, 5},
  /* pipe_fx's MX 6..8: completed by the grid, a chunk of y per finisher */
  {SYMV_FAMILY_PIPE_FX, 256, 64, 2, 6}, {SYMV_FAMILY_PIPE_FX, 64, 16, 4, 8}, {SYMV_FAMILY_PIPE_FX, 512, 128, 1, 7},
};
#define NSAMPLE (int)(sizeof sample / sizeof *sample)

Test(kernels, every_family_and_routine_matches_the_reference, .init = need_gpu, .timeout = 600)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  const int ns[] = {1, 2, 31, 64, 300, 1100};
  const int incs[][2] = {{1, 1}, {-1, 2}, {3, -2}};
  symv_workspace ws = {0};
  for (int q = 0; q < NSAMPLE * SYMV_ROUTINE_COUNT; q++) {
    const int p = q % NSAMPLE;
    symv_params pp = sample[p];
    pp.routine = symv_routine_order(q / NSAMPLE);
    symv_kernel k;
    if (try_load(pp, &k)) {
      cr_assert(pp.routine != SYMV_DSYMV, "point %d cannot be loaded for dsymv", p);
      continue; /* MULTIPLICITY out of reach at this element size */
    }
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
      for (int c = 0; c < 3; c++)
        for (int u = 0; u < 2; u++) {
          char uplo = u ? 'U' : 'L';
          int n = ns[a], lda = n + c;
          double alpha = c == 0 && a % 2 ? 0.0 : 1.25; /* alpha = 0 at some sizes */
          double r = run_case(&k, &ws, uplo, n, lda, incs[c][0], incs[c][1], alpha, c == 1 ? 0.0 : -0.75, c == 2, &seed);
          cr_assert(r >= 0 && r < 4.0, "%s point %d uplo=%c n=%d lda=%d incs=%d,%d: residual %g (seed %llu)",
                    symv_routine_name(pp.routine), p, uplo, n, lda, incs[c][0], incs[c][1], r, seed0);
        }
    symv_kernel_unload(&k);
  }
  symv_workspace_free(&ws);
}

/* BLAS references one triangle of A and its first n rows only. The pipe
 * families read a diagonal tile's column in whole 16-byte runs for SSYMV
 * (kernels/symv_pipe.cuh), elements above the diagonal included, and
 * where the columns are not 16-byte aligned the aligned words around them,
 * elements before and after a column included: NaN everywhere else, and
 * around A, must not reach y, with lda = n a multiple of 4 (whole runs) or
 * not, A aligned or not, rows ascending (L) or descending (U), row blocks
 * all of 64 rows or not. The pipe families' sample points, every
 * routine. */
Test(kernels, the_unreferenced_elements_never_reach_y, .init = need_gpu, .timeout = 300)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  symv_workspace ws = {0};
  for (int q = 0; q < NSAMPLE * SYMV_ROUTINE_COUNT; q++) {
    symv_params pp = sample[q % NSAMPLE];
    pp.routine = symv_routine_order(q / NSAMPLE);
    if (!symv_family_pipelined(pp.family)) continue;
    symv_kernel k;
    if (try_load(pp, &k)) continue; /* MULTIPLICITY out of reach at this element size */
    /* (n, lda, A's offset in elements): whole runs in L and U; in neither; in L only (U's need n a multiple of
     * 4 too); in neither; then columns off 16-byte boundaries by lda or by A, with row blocks all full (U's
     * aligned runs) or not */
    static const int cases[][3] = {{300, 300, 0}, {300, 302, 0}, {133, 136, 0}, {133, 133, 0},
                                   {256, 257, 0}, {192, 194, 1}, {133, 133, 3}, {256, 256, 2}};
    for (int c = 0; c < 8; c++) {
      const int n = cases[c][0], lda = cases[c][1], off = cases[c][2];
      for (int u = 0; u < 2; u++) {
        const char uplo = u ? 'U' : 'L';
        double r = run_case_at(&k, &ws, uplo, n, lda, 1, 1, 1.25, -0.75, 0, 1, off, &seed);
        cr_assert(r >= 0 && r < 4.0,
                  "%s point %d uplo=%c n=%d lda=%d A+%d: residual %g with NaN outside the triangle (seed %llu)",
                  symv_routine_name(pp.routine), q % NSAMPLE, uplo, n, lda, off, r, seed0);
      }
    }
    symv_kernel_unload(&k);
  }
  symv_workspace_free(&ws);
}

/* SSYMV's pipe families bring A's columns by the copy engine where they
 * are not 16-byte aligned and n >= SYMV_PIPE_TMA_MIN_N (their entry
 * points NAME_runs, rows ascending, uplo L, and NAME_runs_u, rows
 * descending, uplo U: symv_pipe_tma_at; a run of aligned words a column,
 * its stored rows read at the run's offset; the runs at A's first or last
 * 16-byte word an element at a time): right, and no element outside the
 * triangle (NaN) reaches y, in L and U, for lda odd, lda 2 mod 4, A off a
 * 16-byte boundary, row blocks all full (n a multiple of 64) or not (in
 * U the short row block is the first in memory), lda > n; and one case
 * whose columns are aligned in L and U (the 16-byte copies' entry). The
 * sample points of four rows a thread, each loaded with all three entries
 * on compute capability 9.0 and later; the points of one row a thread, and
 * the other routines, with one. */
Test(kernels, ssymv_columns_by_the_copy_engine_are_right, .init = need_gpu, .timeout = 600)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  symv_workspace ws = {0};
  const int n0 = SYMV_PIPE_TMA_MIN_N;
  /* (n, lda, A's offset in elements) */
  const int cases[][3] = {{n0 + 3, n0 + 3, 0}, {n0 + 1, n0 + 6, 0}, {n0 + 192, n0 + 192, 1}, {n0, n0 + 1, 0},
                          {n0 + 64, n0 + 64, 0}};
  enum { NCASES = sizeof cases / sizeof *cases };
  int points = 0;
  for (int q = 0; q < NSAMPLE; q++) {
    symv_params pp = sample[q];
    pp.routine = SYMV_SSYMV;
    if (!symv_family_pipelined(pp.family)) continue;
    symv_kernel k;
    if (symv_pipe_rows_per_thread(4, pp.block_size, pp.ux) != 4) {
      if (!try_load(pp, &k))
        cr_assert(!k.fn_runs[0] && !k.fn_runs[1], "point %d: a copy-engine entry at one row a thread", q);
      symv_kernel_unload(&k);
      pp.routine = SYMV_DSYMV;
      if (!try_load(pp, &k)) cr_assert(!k.fn_runs[0] && !k.fn_runs[1], "point %d: a copy-engine entry for DSYMV", q);
      symv_kernel_unload(&k);
      continue;
    }
    if (try_load(pp, &k)) continue;
    if (dev.cc_major >= 9)
      for (int e = 0; e < 2; e++) {
        cr_assert_not_null(k.fn_runs[e], "point %d: no copy-engine entry %d", q, e);
        cr_assert(k.regs_runs[e] > 0 && k.dyn_smem_runs[e] >= (size_t)symv_pipe_smem_of(&pp, 1),
                  "point %d: copy-engine entry %d's registers %d, shared memory %zu for stages of %ld", q, e,
                  k.regs_runs[e], k.dyn_smem_runs[e], symv_pipe_smem_of(&pp, 1));
      }
    points++;
    for (int c = 0; c < NCASES; c++)
      for (int u = 0; u < 2; u++) {
        const int n = cases[c][0], lda = cases[c][1], off = cases[c][2];
        const char uplo = u ? 'U' : 'L';
        double r = run_case_at(&k, &ws, uplo, n, lda, 1, 1, 1.25, -0.75, 0, 1, off, &seed);
        cr_assert(r >= 0 && r < 4.0, "point %d uplo=%c n=%d lda=%d A+%d: residual %g (seed %llu)", q, uplo, n, lda,
                  off, r, seed0);
      }
    symv_kernel_unload(&k);
  }
  cr_assert_geq(points, 3, "too few sample points of four rows a thread ran (%d)", points);
  symv_workspace_free(&ws);
}

/* pipe_fx's states of 32 rows after a call of size n with MX mx: the
 * call's epoch's "claimed" (2 epoch + 1) for each, where its blocks help
 * one another (SYMV_FX_HELP_NB row blocks or more, MX 0..5); below every
 * state of the call's epoch (untouched) where they do not. With MX 6..8,
 * the grid's word (state[1]) holds its counts zero again and a generation
 * moved by every call. */
static void fxst_claimed(int p, int mx, const symv_workspace *ws, int n)
{
  const int nb = (n + 63) / 64, nu = 2 * nb; /* states 16 words apart */
  unsigned long long *st = malloc(sizeof *st * (size_t)nu * 16);
  cudaMemcpy(st, ws->fxst, sizeof *st * (size_t)nu * 16, cudaMemcpyDeviceToHost);
  if (mx >= SYMV_FX_GRID_MX) {
    cr_assert_eq(st[1] & 0xffffffffull, 0ull, "point %d: the grid's counts %#llx after the call", p, st[1]);
    cr_assert_gt(st[1] >> 32, 0ull, "point %d: the grid's generation did not move", p);
  }
  for (int u = 0; u < nu; u++)
    if (nb >= SYMV_FX_HELP_NB && mx < SYMV_FX_GRID_MX)
      cr_assert_eq(st[16 * u], 2 * ws->epoch + 1, "point %d: rows %d..%d's state %llu, want %llu", p, 32 * u,
                   32 * u + 31, st[16 * u], 2 * ws->epoch + 1);
    else
      cr_assert_lt(st[16 * u], 2 * ws->epoch, "point %d: rows %d..%d's state %llu, written without helpers", p, 32 * u,
                   32 * u + 31, st[16 * u]);
  free(st);
}

Test(kernels, workspace_returns_to_zero, .init = need_gpu, .timeout = 120)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  symv_workspace ws = {0};
  for (int p = 0; p < NSAMPLE; p++) {
    symv_kernel k = load(sample[p]);
    run_case(&k, &ws, 'L', 777, 777, 1, 1, 0.5, 2.0, 0, &seed);
    unsigned char *w = malloc(ws.w_bytes + 1);
    int *sy = malloc(sizeof(int) * (ws.sync_len + 1));
    cudaMemcpy(w, ws.w, ws.w_bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(sy, ws.sync, sizeof(int) * ws.sync_len, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < ws.w_bytes; i++) cr_assert(w[i] == 0, "point %d: w byte %zu = %d after the call", p, i, w[i]);
    for (size_t i = 0; i < ws.sync_len; i++) cr_assert_eq(sy[i], 0, "point %d: sync[%zu] = %d after the call", p, i, sy[i]);
    unsigned long long *cnt = malloc(sizeof *cnt * (ws.cnt_len + 1));
    cudaMemcpy(cnt, ws.cnt, sizeof *cnt * ws.cnt_len, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < ws.cnt_len; i++)
      cr_assert_eq(cnt[i], 0ull, "point %d: cnt[%zu] = %llu after the call", p, i, cnt[i]);
    unsigned long long *fx = malloc(sizeof *fx * (ws.fx_len + 1));
    cudaMemcpy(fx, ws.fx, sizeof *fx * ws.fx_len, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < ws.fx_len; i++)
      cr_assert_eq(fx[i], 0ull, "point %d: fx[%zu] = %llu after the call", p, i, fx[i]);
    free(fx);
    if (ws.gate) { /* pipe: every block of every call has passed the gate */
      unsigned long long g = 0;
      cudaMemcpy(&g, ws.gate, sizeof g, cudaMemcpyDeviceToHost);
      cr_assert_eq(g, ws.gate_target, "point %d: gate %llu, want %llu", p, g, ws.gate_target);
    }
    if (ws.fxst) /* pipe_fx: every row block of the call completed and claimed once */
      fxst_claimed(p, sample[p].mx, &ws, 777);
    free(w), free(sy), free(cnt);
    symv_kernel_unload(&k);
  }
  symv_workspace_free(&ws);
}

/* Work for the GPU on another stream while a kernel under test runs:
 * pipe:256,64,2,0 (atomics) of one routine on a zeroed nb x nb matrix,
 * so that the timing of every run differs. have: 0 where it cannot load. */
typedef struct {
  symv_kernel k;
  symv_workspace ws;
  cudaStream_t s;
  void *A, *x, *y;
  int nb, have;
} busy_gpu;

static void busy_open(busy_gpu *b, symv_routine r, int nb)
{
  const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
  memset(b, 0, sizeof *b);
  b->nb = nb;
  cr_assert_eq(cudaStreamCreateWithFlags(&b->s, cudaStreamNonBlocking), cudaSuccess);
  cr_assert_eq(cudaMalloc(&b->A, E * nb * nb), cudaSuccess);
  cr_assert_eq(cudaMalloc(&b->x, E * nb), cudaSuccess);
  cr_assert_eq(cudaMalloc(&b->y, E * nb), cudaSuccess);
  cudaMemset(b->A, 0, E * nb * nb), cudaMemset(b->x, 0, E * nb), cudaMemset(b->y, 0, E * nb);
  symv_params bp = {SYMV_FAMILY_PIPE, 256, 64, 2, 0};
  bp.routine = r;
  b->have = try_load(bp, &b->k) == 0;
}

static void busy_run(busy_gpu *b, const void *alpha, const void *beta)
{
  if (b->have)
    cr_assert_eq(symv_launch(&b->k, &b->ws, b->s, 'L', b->nb, alpha, b->A, b->nb, b->x, 1, beta, b->y, 1, 0, NULL), 0);
}

static void busy_close(busy_gpu *b)
{
  cr_assert_eq(cudaStreamSynchronize(b->s), cudaSuccess);
  if (b->have) symv_kernel_unload(&b->k);
  symv_workspace_free(&b->ws);
  cudaFree(b->A), cudaFree(b->x), cudaFree(b->y);
  cudaStreamDestroy(b->s);
}

/* 50 runs of k at n (triangle uplo, lda = n, A and x already on the
 * device at dA, dx) from y0 (host, n elements) into dy, the busy kernel
 * launched before every other run: every run's y must have the first
 * run's bits. */
static void same_bits_over_runs(const symv_kernel *k, symv_workspace *ws, busy_gpu *b, char uplo, int n, const void *alpha,
                                const void *beta, const void *dA, const void *dx, void *dy, const void *y0,
                                unsigned long long seed0)
{
  const symv_routine r = k->p.routine;
  const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
  void *y1 = malloc(E * n), *y2 = malloc(E * n);
  char label[64];
  symv_params_format(&k->p, label, sizeof label);
  for (int rep = 0; rep < 50; rep++) {
    if (rep % 2) busy_run(b, alpha, beta); /* atomics elsewhere on the GPU, every other run */
    cudaMemcpy(dy, y0, E * n, cudaMemcpyHostToDevice);
    cr_assert_eq(symv_launch(k, ws, 0, uplo, n, alpha, dA, n, dx, 1, beta, dy, 1, 0, NULL), 0);
    cr_assert_eq(cudaMemcpy(rep ? y2 : y1, dy, E * n, cudaMemcpyDeviceToHost), cudaSuccess);
    if (rep)
      cr_assert_eq(memcmp(y1, y2, E * n), 0,
                   "%s %s uplo=%c at n = %d: run %d differs in its bits from the first (seed %llu)",
                   symv_routine_name(r), label, uplo, n, rep, seed0);
  }
  free(y1), free(y2);
}

/* Every family the registry calls deterministic (core/params.c: the ones
 * libsymv runs for handles in cuBLAS's default atomics mode) gives the same
 * bits from the same inputs: 50 runs of each sample point of such a family,
 * for every routine, at several n, while a pipe kernel (atomics) runs on
 * another stream and changes the timing of every run. The property is
 * tested here, not assumed. */
Test(kernels, deterministic_families_are_reproducible_bit_for_bit, .init = need_gpu, .timeout = 300)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  /* 4500: pipe_det's phase 1 of MULTIPLICITY 3 and 4 in the stream's order (symv_pdet_phase1_pdl) */
  static const int sizes[] = {100, 1000, 3000, 4500};
  int families_seen[SYMV_FAMILY_COUNT] = {0};
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++) {
    const symv_routine r = symv_routine_order(ro);
    const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
    const int nmax = 4500;
    void *A, *x, *y0, *dA, *dx, *dy;
    host_operands(r, nmax, &seed, &A, &x, &y0);
    device_operands(E, nmax, A, x, &dA, &dx, &dy); /* A of each n below copied again, lda = n */
    _Alignas(16) unsigned char al[16], be[16];
    symv_scalar_set(r, al, 1.0, 0.5);
    symv_scalar_set(r, be, 1.0, -0.25);
    busy_gpu busy;
    busy_open(&busy, r, 4096);
    symv_workspace ws = {0};
    for (int q = 0; q < NSAMPLE; q++) {
      if (!symv_family_get(sample[q].family)->deterministic) continue;
      symv_params pt = sample[q];
      pt.routine = r;
      symv_kernel k;
      if (try_load(pt, &k)) continue;
      families_seen[pt.family]++;
      for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        const int n = sizes[si];
        cudaMemcpy2D(dA, E * n, A, E * nmax, E * n, (size_t)n, cudaMemcpyHostToDevice);
        cudaMemcpy(dx, x, E * n, cudaMemcpyHostToDevice);
        same_bits_over_runs(&k, &ws, &busy, 'L', n, al, be, dA, dx, dy, y0, seed0);
      }
      symv_kernel_unload(&k);
    }
    busy_close(&busy);
    symv_workspace_free(&ws);
    cudaFree(dA), cudaFree(dx), cudaFree(dy);
    free(A), free(x), free(y0);
  }
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++)
    if (symv_family_tunable((symv_family)f) && symv_family_get((symv_family)f)->deterministic)
      cr_assert_gt(families_seen[f], 0, "no sample point of deterministic family %s ran", symv_family_name((symv_family)f));
}

/* SSYMV's deterministic families bring A's columns by the copy engine
 * where lda is odd from n = SYMV_PIPE_TMA_MIN_N (their entry points
 * NAME_runs and NAME_runs_u, symv_pipe_tma_at, kernels/symv_pipe.h), above
 * the sizes of the test before: those paths too give the same bits over 50
 * runs with atomics elsewhere on the GPU, for each deterministic sample
 * point of four rows a thread (the ones that take them), at n = lda odd,
 * uplo L and U. */
Test(kernels, ssymv_copy_engine_path_is_reproducible_bit_for_bit, .init = need_gpu, .timeout = 300)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  const symv_routine r = SYMV_SSYMV;
  const int n = SYMV_PIPE_TMA_MIN_N + 11; /* odd: every column off a 16-byte boundary but one in four */
  const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
  void *A, *x, *y0, *dA, *dx, *dy;
  host_operands(r, n, &seed, &A, &x, &y0);
  device_operands(E, n, A, x, &dA, &dx, &dy);
  _Alignas(16) unsigned char al[16], be[16];
  symv_scalar_set(r, al, 1.0, 0.0);
  symv_scalar_set(r, be, -0.25, 0.0);
  busy_gpu busy;
  busy_open(&busy, r, 4096);
  symv_workspace ws = {0};
  int points = 0;
  for (int q = 0; q < NSAMPLE; q++) {
    symv_params pt = sample[q];
    pt.routine = r;
    if (!symv_family_get(pt.family)->deterministic || !symv_family_pipelined(pt.family) ||
        symv_pipe_rows_per_thread((int)E, pt.block_size, pt.ux) != 4)
      continue;
    symv_kernel k;
    if (try_load(pt, &k)) continue;
    points++;
    same_bits_over_runs(&k, &ws, &busy, 'L', n, al, be, dA, dx, dy, y0, seed0);
    same_bits_over_runs(&k, &ws, &busy, 'U', n, al, be, dA, dx, dy, y0, seed0);
    symv_kernel_unload(&k);
  }
  cr_assert_geq(points, 3, "too few deterministic sample points of four rows a thread ran (%d)", points);
  busy_close(&busy);
  symv_workspace_free(&ws);
  cudaFree(dA), cudaFree(dx), cudaFree(dy);
  free(A), free(x), free(y0);
}

Test(kernels, invalid_arguments_touch_nothing, .init = need_gpu)
{
  symv_kernel k = load(sample[0]);
  symv_workspace ws = {0};
  double poison[64], back[64], *dy, *dA, al = 1, be = 0;
  for (int i = 0; i < 64; i++) poison[i] = -3.5 - i;
  cudaMalloc((void **)&dy, sizeof poison);
  cudaMalloc((void **)&dA, sizeof(double) * 64 * 64);
  cudaMemcpy(dy, poison, sizeof poison, cudaMemcpyHostToDevice);
  struct {
    char uplo;
    int n, lda, incx, incy, pos;
  } bad[] = {{'X', 8, 8, 1, 1, 1}, {'L', -1, 8, 1, 1, 2}, {'L', 8, 7, 1, 1, 5}, {'U', 8, 8, 0, 1, 7}, {'U', 8, 8, 1, 0, 10}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int pos = 0;
    int rc = symv_launch(&k, &ws, 0, bad[i].uplo, bad[i].n, &al, dA, bad[i].lda, dy, bad[i].incx, &be, dy, bad[i].incy,
                         0, &pos);
    cr_assert_eq(rc, SYMV_INVALID_VALUE);
    cr_assert_eq(pos, bad[i].pos);
  }
  cr_assert_eq(symv_launch(&k, &ws, 0, 'L', 8, NULL, dA, 8, dy, 1, &be, dy, 1, 0, NULL), SYMV_INVALID_VALUE);
  cr_assert_eq(symv_launch(&k, &ws, 0, 'L', 0, &al, dA, 1, dy, 1, &be, dy, 1, 0, NULL), 0, "n = 0 quick return");
  cudaDeviceSynchronize();
  cudaMemcpy(back, dy, sizeof back, cudaMemcpyDeviceToHost);
  cr_assert_eq(memcmp(back, poison, sizeof back), 0, "y changed by a call that must not touch it");
  symv_kernel_unload(&k);
  symv_workspace_free(&ws);
  cudaFree(dy), cudaFree(dA);
}

Test(kernels, multiplicity_is_enforced_and_checked, .init = need_gpu)
{
  symv_cubin cb;
  symv_kernel k;
  char why[256];
  /* more blocks than an SM can hold */
  symv_params p = {SYMV_FAMILY_ATOMIC, 64, 8, dev.max_blocks_per_sm + 1, 0};
  cr_assert_eq(symv_compile(&p, dev.cc_major, dev.cc_minor, &cb, NULL), 0);
  cr_assert_eq(symv_kernel_load(&p, &cb, &dev, &k, why, sizeof why), SYMV_RESOURCES, "%s", why);
  symv_cubin_free(&cb);
  /* registers limit the real occupancy below MULTIPLICITY */
  p = (symv_params){SYMV_FAMILY_ATOMIC, 256, 32, 8, 0};
  cr_assert_eq(symv_compile(&p, dev.cc_major, dev.cc_minor, &cb, NULL), 0);
  cr_assert_eq(symv_kernel_load(&p, &cb, &dev, &k, why, sizeof why), SYMV_OCCUPANCY, "%s", why);
  symv_cubin_free(&cb);
  /* and a point that fits gets exactly its MULTIPLICITY */
  for (int m = 1; m <= 4; m++) {
    p = (symv_params){SYMV_FAMILY_LU, 64, 8, m, 0};
    cr_assert_eq(symv_compile(&p, dev.cc_major, dev.cc_minor, &cb, NULL), 0);
    cr_assert_eq(symv_kernel_load(&p, &cb, &dev, &k, why, sizeof why), 0, "%s", why);
    cr_assert_eq(k.occupancy, m);
    symv_kernel_unload(&k);
    symv_cubin_free(&cb);
  }
}

/* The kernel of `family` (BLOCK_SIZE 256, UX 64, MULTIPLICITY 2) told of
 * four times the SMs, so that it launches four times the blocks the GPU
 * holds at once (n = 4096: 2080 tiles, 8 x SMs blocks): right for each
 * beta, with uplo U and a negative incy among the cases, and, where `gate`
 * (the pipe family's), with the gate's count at its target after each
 * call; then right with the true count of SMs in the same workspace. */
static void check_more_blocks_than_the_gpu_holds(symv_family family, int mx, int gate)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  symv_kernel k = load((symv_params){family, 256, 64, 2, mx});
  symv_kernel big = k;
  big.sm_count = 4 * k.sm_count;
  symv_workspace ws = {0};
  const double betas[] = {0.5, 0.0, 1.0};
  for (int c = 0; c < 3; c++) {
    double r = run_case(&big, &ws, c == 1 ? 'U' : 'L', 4096, 4099, 1, c == 2 ? -2 : 1, 1.5, betas[c], c == 1, &seed);
    cr_assert(r >= 0 && r < 4.0, "beta %g: residual %g (seed %llu)", betas[c], r, seed0);
    if (!gate) continue;
    unsigned long long g;
    cudaMemcpy(&g, ws.gate, sizeof g, cudaMemcpyDeviceToHost);
    cr_assert_eq(g, ws.gate_target, "beta %g: gate %llu, want %llu", betas[c], g, ws.gate_target);
  }
  double r = run_case(&k, &ws, 'L', 1500, 1500, 1, 1, -0.5, 2.0, 0, &seed);
  cr_assert(r >= 0 && r < 4.0, "after: residual %g (seed %llu)", r, seed0);
  symv_kernel_unload(&k);
  symv_workspace_free(&ws);
}

/* The pipe kernel's blocks wait at its gate for y's chunks to be scaled,
 * and its launch is not cooperative, so a block must never wait for one
 * that cannot start. Told of four times the SMs, it launches four times the
 * blocks the GPU holds at once: the resident ones must scale the chunks of
 * those that have not started, and the result must still be right (a gate
 * that waited for every block would hang here, caught by the timeout). */
Test(kernels, pipe_is_right_with_more_blocks_than_the_gpu_holds, .init = need_gpu, .timeout = 120)
{
  check_more_blocks_than_the_gpu_holds(SYMV_FAMILY_PIPE, 0, 1);
}

/* pipe_det's blocks never wait for one another, and its phase 1 waits for
 * all of phase 0 (programmatic dependent launch lets it start only once
 * every phase 0 block has): told of four times the SMs, phase 0 launches
 * four times the blocks the GPU holds at once, its column sums in four
 * times the slots, and the result is right for each beta, with uplo U and
 * a negative incy; then the usual grid in the same workspace. */
Test(kernels, pipe_det_is_right_with_more_blocks_than_the_gpu_holds, .init = need_gpu, .timeout = 120)
{
  check_more_blocks_than_the_gpu_holds(SYMV_FAMILY_PIPE_DET, 0, 0);
}

/* pipe_fx's blocks never wait for one another: told of four times the
 * SMs, it launches four times the blocks the GPU holds at once, and the
 * blocks that complete each row block (whenever they run) are right for
 * each beta, with uplo U and a negative incy; then the usual grid in the
 * same workspace, which the calls left zero. */
Test(kernels, pipe_fx_is_right_with_more_blocks_than_the_gpu_holds, .init = need_gpu, .timeout = 120)
{
  check_more_blocks_than_the_gpu_holds(SYMV_FAMILY_PIPE_FX, 0, 0);
}

/* The same for pipe_fx's MX 6..8, whose last blocks to count finish y: a
 * finisher waits for the others only once every block has started, and
 * otherwise leaves its chunk to the last block (a finisher that waited for
 * blocks not yet started would hang here, caught by the timeout). */
Test(kernels, pipe_fx_grid_is_right_with_more_blocks_than_the_gpu_holds, .init = need_gpu, .timeout = 120)
{
  check_more_blocks_than_the_gpu_holds(SYMV_FAMILY_PIPE_FX, 6, 0);
}

/* A kernel that holds SMs: each of its blocks takes all the shared memory
 * a block may have (the SM's whole, less what the GPU reserves a block),
 * so no other block that uses shared memory fits beside it; thread 0
 * counts the block in *up, then spins until *go is nonzero (both in mapped
 * host memory). Compiled with NVRTC for the device in dev. */
static const char hog_src[] =
  "extern \"C\" __global__ void hog(volatile unsigned *go, unsigned *up)\n"
  "{\n"
  "  extern __shared__ unsigned char s[];\n"
  "  if (threadIdx.x == 0) {\n"
  "    s[0] = 1;\n"
  "    atomicAdd_system(up, 1u);\n"
  "    while (*go == 0) __nanosleep(1000);\n"
  "  }\n"
  "}\n";

static cudaLibrary_t hog_load(cudaKernel_t *fn)
{
  nvrtcProgram prog;
  cr_assert_eq(nvrtcCreateProgram(&prog, hog_src, "hog.cu", 0, NULL, NULL), NVRTC_SUCCESS);
  char arch[32];
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", dev.cc_major, dev.cc_minor);
  const char *opts[] = {arch};
  nvrtcResult rc = nvrtcCompileProgram(prog, 1, opts);
  size_t len = 0;
  char log[4096] = "";
  if (rc != NVRTC_SUCCESS && nvrtcGetProgramLogSize(prog, &len) == NVRTC_SUCCESS && len < sizeof log)
    nvrtcGetProgramLog(prog, log);
  cr_assert_eq(rc, NVRTC_SUCCESS, "hog: %s", log);
  cr_assert_eq(nvrtcGetCUBINSize(prog, &len), NVRTC_SUCCESS);
  char *cubin = malloc(len);
  cr_assert_eq(nvrtcGetCUBIN(prog, cubin), NVRTC_SUCCESS);
  nvrtcDestroyProgram(&prog);
  cudaLibrary_t lib;
  cr_assert_eq(cudaLibraryLoadData(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0), cudaSuccess);
  free(cubin);
  cr_assert_eq(cudaLibraryGetKernel(fn, lib, "hog"), cudaSuccess);
  return lib;
}

/* pipe_fx's MX 6..8 while another kernel holds every SM but one. Its
 * finishers are the last F blocks to count (F chunks of y: 16 at n =
 * 4096), and a finisher that finds blocks not yet started leaves its chunk
 * to the last block instead of waiting (symv_pfx_grid_finish). With the
 * GPU whole all G blocks have started before the last F count, so only
 * this reaches that path: on one SM at most MULTIPLICITY (2, or 1 where
 * ZHEMV's shared memory allows no more) blocks run at once, so the finishers of chunks 0 .. F - 3 count while blocks are still
 * to start, mark their chunks LEFT and end, and the last block finishes
 * them. The holder is checked to have all its blocks running before the
 * call and to be running still after it. Right for uplo L and U, DSYMV and
 * ZHEMV, against the CPU reference. */
Test(kernels, pipe_fx_grid_is_right_when_blocks_wait_to_start, .init = need_gpu, .timeout = 120)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  cudaKernel_t hog;
  cudaLibrary_t hog_lib = hog_load(&hog);
  int smem = 0;
  cr_assert_eq(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), cudaSuccess);
  cr_assert_eq(cudaFuncSetAttribute((const void *)hog, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), cudaSuccess);
  unsigned *go, *up, *dgo, *dup;
  cr_assert_eq(cudaHostAlloc((void **)&go, 2 * sizeof *go, cudaHostAllocMapped), cudaSuccess);
  up = go + 1;
  cr_assert_eq(cudaHostGetDevicePointer((void **)&dgo, go, 0), cudaSuccess);
  dup = dgo + 1;
  cudaStream_t s, busy;
  cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cr_assert_eq(cudaStreamCreateWithFlags(&busy, cudaStreamNonBlocking), cudaSuccess);
  const symv_routine routines[] = {SYMV_DSYMV, SYMV_ZHEMV};
  const int n = 4096;
  for (int ri = 0; ri < 2; ri++)
    for (int u = 0; u < 2; u++) {
      const symv_routine ro = routines[ri];
      const char uplo = u ? 'U' : 'L';
      symv_params p = {SYMV_FAMILY_PIPE_FX, 256, 64, 2, SYMV_FX_GRID_MX};
      p.routine = ro;
      symv_kernel k;
      if (try_load(p, &k)) /* ZHEMV's stages take more shared memory than two blocks an SM have */
        p.multiplicity = 1, k = load(p);
      const int nb = (n + 63) / 64, G = (int)symv_pipe_grid(&p, n, k.sm_count);
      const int F = (nb + symv_fx_grid_chunk(nb, 256, G) - 1) / symv_fx_grid_chunk(nb, 256, G);
      cr_assert_gt(F - 2, k.occupancy, "F = %d chunks: too few for blocks to be still to start", F);
      const size_t E = (size_t)symv_routine_get(ro)->elem_bytes;
      void *A, *x, *y0, *y = malloc(E * n), *yref = malloc(E * n);
      host_operands(ro, n, &seed, &A, &x, &y0);
      _Alignas(16) unsigned char sc[32];
      symv_scalar_set(ro, sc, 1.25, 0.5);
      symv_scalar_set(ro, sc + E, 0.75, -0.25);
      memcpy(yref, y0, E * n);
      symv_ref(ro, uplo, n, sc, A, n, x, 1, sc + E, yref, 1);
      void *dA, *dx, *dy;
      device_operands(E, n, A, x, &dA, &dx, &dy);
      symv_workspace ws = {0};
      /* the workspace allocated beforehand: no allocation while the holder runs */
      cr_assert_eq(symv_launch(&k, &ws, s, uplo, n, sc, dA, n, dx, 1, sc + E, dy, 1, 0, NULL), 0);
      cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
      cudaMemcpy(dy, y0, E * n, cudaMemcpyHostToDevice);
      go[0] = 0, up[0] = 0;
      void *args[] = {&dgo, &dup};
      const dim3 hg = {(unsigned)k.sm_count - 1, 1, 1}, hb = {32, 1, 1};
      cr_assert_eq(cudaLaunchKernel((const void *)hog, hg, hb, args, (size_t)smem, busy), cudaSuccess);
      for (int spin = 0; *(volatile unsigned *)up < (unsigned)(k.sm_count - 1) && spin < 5000000; spin++) {}
      const unsigned held = *(volatile unsigned *)up;
      if (held < (unsigned)(k.sm_count - 1)) *(volatile unsigned *)go = 1; /* let it end before failing */
      cr_assert_eq(held, (unsigned)(k.sm_count - 1), "the holder has %u of its %d blocks running", held,
                   k.sm_count - 1);
      cr_assert_eq(symv_launch(&k, &ws, s, uplo, n, sc, dA, n, dx, 1, sc + E, dy, 1, 0, NULL), 0);
      const cudaError_t done = cudaStreamSynchronize(s);
      const cudaError_t still = cudaStreamQuery(busy);
      *(volatile unsigned *)go = 1;
      cr_assert_eq(cudaStreamSynchronize(busy), cudaSuccess);
      cr_assert_eq(done, cudaSuccess, "%s", cudaGetErrorString(done));
      cr_assert_eq(still, cudaErrorNotReady, "the holder ended before the call did");
      cudaMemcpy(y, dy, E * n, cudaMemcpyDeviceToHost);
      const double r = symv_residual(ro, uplo, n, sc, A, n, x, 1, sc + E, y0, y, yref, 1);
      cr_assert(r >= 0 && r < 4.0, "%s uplo %c: residual %g (seed %llu)", symv_routine_name(ro), uplo, r, seed0);
      symv_workspace_free(&ws);
      symv_kernel_unload(&k);
      cudaFree(dA), cudaFree(dx), cudaFree(dy);
      free(A), free(x), free(y0), free(y), free(yref);
    }
  cudaStreamDestroy(s), cudaStreamDestroy(busy);
  cudaFreeHost(go);
  cudaLibraryUnload(hog_lib);
}

/* Under programmatic dependent launch a call's grid may start while the
 * previous call's is still running; it must wait for that one's result
 * all the same. Two calls back to back on one stream and one workspace,
 * the second reading the first's y as its x: y2 = 0.5*y2 + A*(A*x), at
 * n = 3000 and, for pipe_det of MULTIPLICITY 4, also at 4500, where its
 * phase 1 is launched in the stream's order (symv_pdet_phase1_pdl) and
 * the next call's phase 0 early. */
Test(kernels, back_to_back_calls_see_each_others_results, .init = need_gpu, .timeout = 120)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  const int nmax = 4500;
  const struct {
    symv_params p;
    int n;
  } pts[] = {{{SYMV_FAMILY_PANEL, 256, 4, 4, 0}, 3000},     {{SYMV_FAMILY_PIPE, 256, 64, 2, 0}, 3000},
             {{SYMV_FAMILY_PIPE, 64, 16, 4, 2}, 3000},      {{SYMV_FAMILY_ATOMIC, 128, 16, 1, 0}, 3000},
             {{SYMV_FAMILY_LU, 128, 16, 1, 0}, 3000},       {{SYMV_FAMILY_ATOMIC_W, 96, 12, 2, 3}, 3000},
             {{SYMV_FAMILY_PIPE_DET, 256, 64, 2, 0}, 3000}, {{SYMV_FAMILY_PIPE_FX, 256, 64, 2, 0}, 3000},
             {{SYMV_FAMILY_PIPE_FX, 256, 64, 2, 6}, 3000},
             {{SYMV_FAMILY_PIPE_DET, 128, 32, 4, 3}, 3000}, {{SYMV_FAMILY_PIPE_DET, 128, 32, 4, 3}, nmax}};
  double *A = malloc(sizeof(double) * nmax * nmax), *x = malloc(sizeof(double) * nmax), *t = calloc(nmax, sizeof(double));
  double *y0 = malloc(sizeof(double) * nmax), *y = malloc(sizeof(double) * nmax), *yref = malloc(sizeof(double) * nmax);
  double *dA, *dx, *dt, *dy, one = 1.0, zero = 0.0, half = 0.5;
  cr_assert_eq(cudaMalloc((void **)&dA, sizeof(double) * nmax * nmax), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dx, sizeof(double) * nmax), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dt, sizeof(double) * nmax), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dy, sizeof(double) * nmax), cudaSuccess);
  cudaStream_t s;
  cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  for (size_t p = 0; p < sizeof pts / sizeof *pts; p++) {
    const int n = pts[p].n;
    symv_fill_random(SYMV_DSYMV, A, (long)n * n, &seed);
    symv_fill_random(SYMV_DSYMV, x, n, &seed);
    symv_fill_random(SYMV_DSYMV, y0, n, &seed);
    memset(t, 0, sizeof(double) * n);
    symv_ref(SYMV_DSYMV, 'L', n, &one, A, n, x, 1, &zero, t, 1); /* t = A x */
    memcpy(yref, y0, sizeof(double) * n);
    symv_ref(SYMV_DSYMV, 'L', n, &one, A, n, t, 1, &half, yref, 1); /* yref = 0.5 y0 + A t */
    cudaMemcpy(dA, A, sizeof(double) * n * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x, sizeof(double) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y0, sizeof(double) * n, cudaMemcpyHostToDevice);
    cudaMemset(dt, 0xff, sizeof(double) * n); /* NaN until the first call has written it */
    symv_kernel k = load(pts[p].p);
    symv_workspace ws = {0};
    /* sizes the workspace, so that the two calls below follow each other with nothing between them */
    cr_assert_eq(symv_workspace_reserve(&ws, &k.p, n, k.sm_count, s), 0);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    int rc = symv_launch(&k, &ws, s, 'L', n, &one, dA, n, dx, 1, &zero, dt, 1, 0, NULL);
    if (!rc) rc = symv_launch(&k, &ws, s, 'L', n, &one, dA, n, dt, 1, &half, dy, 1, 0, NULL);
    cr_assert_eq(rc, 0, "point %zu: %s %s", p, symv_strerror(rc), symv_cuda_error_text());
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess, "point %zu faulted", p);
    cudaMemcpy(y, dy, sizeof(double) * n, cudaMemcpyDeviceToHost);
    double r = symv_residual(SYMV_DSYMV, 'L', n, &one, A, n, t, 1, &half, y0, y, yref, 1);
    cr_assert(r >= 0 && r < 4.0, "point %zu: residual %g of the second call (seed %llu)", p, r, seed0);
    symv_kernel_unload(&k);
    symv_workspace_free(&ws);
  }
  cudaStreamDestroy(s);
  cudaFree(dA), cudaFree(dx), cudaFree(dt), cudaFree(dy);
  free(A), free(x), free(t), free(y0), free(y), free(yref);
}

/* The pipe_fx points of the tests below (tiles of 4 to 128 columns; MX 4:
 * counts held; MX 6 and 8: completed by the grid, FX_GRID the first). */
static const symv_params fx_points[] = {{SYMV_FAMILY_PIPE_FX, 256, 64, 2, 0}, {SYMV_FAMILY_PIPE_FX, 512, 128, 1, 1},
                                        {SYMV_FAMILY_PIPE_FX, 64, 16, 4, 2}, {SYMV_FAMILY_PIPE_FX, 128, 4, 3, 0},
                                        {SYMV_FAMILY_PIPE_FX, 256, 32, 2, 4}, {SYMV_FAMILY_PIPE_FX, 256, 64, 2, 6},
                                        {SYMV_FAMILY_PIPE_FX, 128, 4, 3, 8}};
#define FX_GRID 5
#define NFX (int)(sizeof fx_points / sizeof *fx_points)

/* fx_points[p] for routine ro, loaded (asserts that it loads) */
static symv_kernel load_fx(int p, symv_routine ro)
{
  symv_params pt = fx_points[p];
  pt.routine = ro;
  return load(pt);
}

/* y := alpha*A*x + beta*y for routine ro on host data (A n x n, lda = n,
 * unit strides; y in place) on the GPU: with kernel k in workspace ws, or
 * with cuBLAS (handle h, default atomics mode) when k is NULL. */
static void gpu_symv(const symv_kernel *k, symv_workspace *ws, cublasHandle_t h, symv_routine ro, char uplo, int n,
                     const void *alpha, const void *A, const void *x, const void *beta, void *y)
{
  const size_t E = (size_t)symv_routine_get(ro)->elem_bytes;
  void *dA, *dx, *dy;
  device_operands(E, n, A, x, &dA, &dx, &dy);
  cudaMemcpy(dy, y, E * n, cudaMemcpyHostToDevice);
  if (k) {
    int rc = symv_launch(k, ws, 0, uplo, n, alpha, dA, n, dx, 1, beta, dy, 1, 0, NULL);
    cr_assert_eq(rc, 0, "launch: %s %s", symv_strerror(rc), symv_cuda_error_text());
  } else {
    cr_assert_eq(symv_cublas(h, ro, uplo, n, alpha, dA, n, dx, 1, beta, dy, 1), CUBLAS_STATUS_SUCCESS);
  }
  cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess, "kernel faulted");
  cudaMemcpy(y, dy, E * n, cudaMemcpyDeviceToHost);
  cudaFree(dA), cudaFree(dx), cudaFree(dy);
}

/* A(i, j) and A(j, i) of the n x n column-major A (routine ro) := re + im i,
 * so that either triangle holds it */
static void set_sym(symv_routine ro, void *A, int n, int i, int j, double re, double im)
{
  const size_t E = (size_t)symv_routine_get(ro)->elem_bytes;
  symv_scalar_set(ro, (char *)A + E * ((size_t)i + (size_t)j * n), re, im);
  symv_scalar_set(ro, (char *)A + E * ((size_t)j + (size_t)i * n), re, im);
}

/* A random n x n matrix of routine ro, symmetric (both triangles equal) */
static void *random_symmetric(symv_routine ro, int n, unsigned long long *seed)
{
  const size_t E = (size_t)symv_routine_get(ro)->elem_bytes;
  char *A = malloc(E * n * n);
  symv_fill_random(ro, A, (long)n * n, seed);
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) memcpy(A + E * ((size_t)j + (size_t)i * n), A + E * ((size_t)i + (size_t)j * n), E);
  return A;
}

/* Element k of an array of a real routine's elements, as a double. */
static double real_at(symv_routine ro, const void *v, long k)
{
  return symv_routine_get(ro)->real_bytes == 4 ? ((const float *)v)[k] : ((const double *)v)[k];
}

/* A case of the pipe_fx tests below, for routine ro, in workspace ws, its
 * random numbers from *seed (seed0 reported on failure). */
typedef void fx_case(symv_routine ro, symv_workspace *ws, unsigned long long *seed, unsigned long long seed0);

/* Runs case fn for each of the nro routines ros, in one workspace, from a
 * fresh seed (SYMV_TEST_SEED replays it). */
static void for_routines(const symv_routine *ros, int nro, fx_case *fn)
{
  const unsigned long long seed0 = test_fresh_seed();
  unsigned long long seed = seed0;
  symv_workspace ws = {0};
  for (int q = 0; q < nro; q++) fn(ros[q], &ws, &seed, seed0);
  symv_workspace_free(&ws);
}

/* (a) A row whose entries span 1e-300 .. 1e300 (and their mirrors in its
 * column): its products fall outside pipe_fx's double window, so the row
 * blocks they reach are computed directly (the fallback); every element
 * is still right to the scaled residual against the CPU reference. */
static void fallback_case(symv_routine ro, symv_workspace *ws, unsigned long long *seed, unsigned long long seed0)
{
  const int n = 700, i0 = 333;
  const size_t E = (size_t)symv_routine_get(ro)->elem_bytes;
  void *A = random_symmetric(ro, n, seed), *x = malloc(E * n), *y0 = malloc(E * n), *y = malloc(E * n),
       *yref = malloc(E * n);
  for (int j = 0; j < n; j++) {
    const double v = (j % 2 ? -1 : 1) * pow(10.0, -300.0 + 600.0 * j / (n - 1));
    set_sym(ro, A, n, i0, j, v, v / 2);
  }
  symv_fill_random(ro, x, n, seed);
  symv_fill_random(ro, y0, n, seed);
  _Alignas(16) unsigned char al[16], be[16];
  symv_scalar_set(ro, al, 1.5, 0.5);
  symv_scalar_set(ro, be, -0.5, 0.25);
  int ran = 0;
  for (int p = 0; p < NFX; p++) {
    symv_params pt = fx_points[p];
    pt.routine = ro;
    symv_kernel k;
    if (try_load(pt, &k)) continue;
    ran++;
    for (int u = 0; u < 2; u++) {
      const char uplo = u ? 'U' : 'L';
      memcpy(yref, y0, E * n), memcpy(y, y0, E * n);
      symv_ref(ro, uplo, n, al, A, n, x, 1, be, yref, 1);
      gpu_symv(&k, ws, NULL, ro, uplo, n, al, A, x, be, y);
      const double r = symv_residual(ro, uplo, n, al, A, n, x, 1, be, y0, y, yref, 1);
      cr_assert(r >= 0 && r < 4.0, "%s point %d uplo=%c: residual %g (seed %llu)", symv_routine_name(ro), p, uplo, r,
                seed0);
    }
    symv_kernel_unload(&k);
  }
  cr_assert_gt(ran, 0, "no pipe_fx point loads for %s", symv_routine_name(ro));
  free(A), free(x), free(y0), free(y), free(yref);
}

Test(kernels, pipe_fx_falls_back_on_magnitudes_outside_its_window, .init = need_gpu, .timeout = 120)
{
  const symv_routine ros[] = {SYMV_DSYMV, SYMV_ZSYMV};
  for_routines(ros, 2, fallback_case);
}

/* (b) Heavy cancellation with an exactly known result. A = S + D, D a
 * diagonal of small integers, S(i, j) = H r(i) r(j) where i and j lie in
 * different aligned blocks of 128 (0 within a block), H a large power of
 * two (2^60 for DSYMV, 2^30 for SSYMV), r(2m) = -r(2m+1) small integers,
 * x(2m) = x(2m+1) small integers: in S x every block's pairs cancel, so
 * y = alpha*D*x + beta*y0 exactly, a small integer, while the partial sums
 * reach H 2^16. Each of pipe_fx's contributions is exact in floating point
 * (a tile lies within one block of 128 columns: its diagonal tile holds
 * only D, the others only multiples of H of at most 2^13 H; a block's
 * column sums at most 2^16 H), and their sum is exact: so y must EQUAL the
 * exact result here. This is the one place equality is right: the test is
 * of exactness, and any rounding of the large partial sums (an order of
 * additions in floating point) would lose the small result entirely. */
static void cancellation_case(symv_routine ro, symv_workspace *ws, unsigned long long *seed, unsigned long long seed0)
{
  const int n = 1024;
  const size_t E = (size_t)symv_routine_get(ro)->elem_bytes;
  const double H = ldexp(1.0, ro == SYMV_DSYMV ? 60 : 30);
  void *A = malloc(E * n * n), *x = malloc(E * n), *y0 = malloc(E * n), *y = malloc(E * n);
  double *r = malloc(sizeof *r * n), *xd = malloc(sizeof *xd * n), *want = malloc(sizeof *want * n);
  double *u = malloc(sizeof *u * 3 * n);
  symv_fill_random(SYMV_DSYMV, u, 3L * n, seed); /* uniform in [-1, 1): small integers from it */
  for (int m = 0; m < n / 2; m++) {
    const double rv = 1 + floor(fabs(u[m]) * 4), xv = (u[n + m] < 0 ? -1 : 1) * (1 + floor(fabs(u[n + m]) * 4));
    r[2 * m] = rv, r[2 * m + 1] = -rv;
    xd[2 * m] = xd[2 * m + 1] = xv;
  }
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) {
      const double d = floor(u[2 * n + i] * 8); /* -8 .. 7 */
      set_sym(ro, A, n, i, j, i == j ? d : i / 128 == j / 128 ? 0.0 : H * r[i] * r[j], 0);
    }
  for (int j = 0; j < n; j++) symv_scalar_set(ro, (char *)x + E * j, xd[j], 0);
  for (int i = 0; i < n; i++) symv_scalar_set(ro, (char *)y0 + E * i, (double)((i % 7) - 3), 0);
  _Alignas(16) unsigned char al[16], be[16];
  symv_scalar_set(ro, al, 2.0, 0);
  symv_scalar_set(ro, be, 0.5, 0);
  for (int i = 0; i < n; i++) want[i] = 2.0 * floor(u[2 * n + i] * 8) * xd[i] + 0.5 * ((i % 7) - 3);
  for (int p = 0; p < NFX; p++) {
    symv_kernel k = load_fx(p, ro);
    for (int uu = 0; uu < 2; uu++) {
      const char uplo = uu ? 'U' : 'L'; /* n a multiple of 128: U's reversed blocks are blocks too */
      memcpy(y, y0, E * n);
      gpu_symv(&k, ws, NULL, ro, uplo, n, al, A, x, be, y);
      for (int i = 0; i < n; i++)
        cr_assert(real_at(ro, y, i) == want[i], "%s point %d uplo=%c: y(%d) = %.17g, exactly %.17g (seed %llu)",
                  symv_routine_name(ro), p, uplo, i, real_at(ro, y, i), want[i], seed0);
    }
    symv_kernel_unload(&k);
  }
  free(A), free(x), free(y0), free(y), free(r), free(xd), free(want), free(u);
}

Test(kernels, pipe_fx_is_exact_under_heavy_cancellation, .init = need_gpu, .timeout = 120)
{
  const symv_routine ros[] = {SYMV_DSYMV, SYMV_SSYMV};
  for_routines(ros, 2, cancellation_case);
}

/* (b') Sizes past the window of row blocks a block holds its counts in
 * (MX 3..5: BLOCK_SIZE row blocks, kernels/symv_pipe_fx.cu,
 * SYMV_PFX_DEFER): with 64 and 128 threads a block, the first strips' row
 * blocks do not fit and are counted at once, the later strips' are held.
 * Every element right to the scaled residual against the CPU reference. */
static void window_case(symv_routine ro, symv_workspace *ws, unsigned long long *seed, unsigned long long seed0)
{
  const symv_params pts[] = {{SYMV_FAMILY_PIPE_FX, 64, 16, 4, 5}, {SYMV_FAMILY_PIPE_FX, 128, 32, 2, 3}};
  const int ns[] = {4500, 8500}; /* 71 and 133 row blocks: past 64 and 128 */
  const size_t E = (size_t)symv_routine_get(ro)->elem_bytes;
  _Alignas(16) unsigned char al[16], be[16];
  symv_scalar_set(ro, al, 1.5, 0.5);
  symv_scalar_set(ro, be, -0.5, 0.25);
  for (int p = 0; p < 2; p++) {
    const int n = ns[p];
    void *A = random_symmetric(ro, n, seed), *x = malloc(E * n), *y0 = malloc(E * n), *y = malloc(E * n),
         *yref = malloc(E * n);
    symv_fill_random(ro, x, n, seed);
    symv_fill_random(ro, y0, n, seed);
    symv_params pt = pts[p];
    pt.routine = ro;
    symv_kernel k = load(pt);
    memcpy(yref, y0, E * n), memcpy(y, y0, E * n);
    symv_ref(ro, 'L', n, al, A, n, x, 1, be, yref, 1);
    gpu_symv(&k, ws, NULL, ro, 'L', n, al, A, x, be, y);
    const double r = symv_residual(ro, 'L', n, al, A, n, x, 1, be, y0, y, yref, 1);
    cr_assert(r >= 0 && r < 4.0, "%s point %d n %d: residual %g (seed %llu)", symv_routine_name(ro), p, n, r, seed0);
    symv_kernel_unload(&k);
    free(A), free(x), free(y0), free(y), free(yref);
  }
}

Test(kernels, pipe_fx_is_right_past_its_window_of_held_counts, .init = need_gpu, .timeout = 120)
{
  const symv_routine ros[] = {SYMV_SSYMV, SYMV_DSYMV};
  for_routines(ros, 2, window_case);
}

/* (c) inf and NaN in A and in x: where pipe_fx's y is NaN, inf (and of
 * which sign) or finite is where cuBLAS's is, and its finite elements
 * match cuBLAS's to the scaled residual (|A||x| of the finite terms: the
 * non-finite entries count as 0 there, and a finite element has none). */
static void nonfinite_case(symv_routine ro, symv_workspace *ws, unsigned long long *seed, unsigned long long seed0)
{
  const int n = 700;
  cublasHandle_t h;
  cr_assert_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  const size_t E = (size_t)symv_routine_get(ro)->elem_bytes;
  _Alignas(16) unsigned char al[16], be[16];
  symv_scalar_set(ro, al, 1.25, 0);
  symv_scalar_set(ro, be, -0.5, 0);
  /* cases: inf and NaN in A (rows 5 and 300, 600 and 37); NaN in x(410); -inf in x(99) */
  for (int c = 0; c < 3; c++) {
    void *A = random_symmetric(ro, n, seed), *x = malloc(E * n), *y0 = malloc(E * n), *y = malloc(E * n),
         *yc = malloc(E * n), *A0 = malloc(E * n * n), *x0 = malloc(E * n);
    symv_fill_random(ro, x, n, seed);
    symv_fill_random(ro, y0, n, seed);
    memcpy(A0, A, E * n * n), memcpy(x0, x, E * n); /* the finite terms: 0 where A, x are not finite */
    if (c == 0) {
      set_sym(ro, A, n, 300, 5, INFINITY, 0), set_sym(ro, A0, n, 300, 5, 0, 0);
      set_sym(ro, A, n, 600, 37, NAN, 0), set_sym(ro, A0, n, 600, 37, 0, 0);
    } else {
      symv_scalar_set(ro, (char *)x + E * (c == 1 ? 410 : 99), c == 1 ? NAN : -INFINITY, 0);
      symv_scalar_set(ro, (char *)x0 + E * (c == 1 ? 410 : 99), 0, 0);
    }
    for (int p = 0; p < NFX; p++) {
      symv_kernel k = load_fx(p, ro);
      for (int u = 0; u < 2; u++) {
        const char uplo = u ? 'U' : 'L';
        memcpy(y, y0, E * n), memcpy(yc, y0, E * n);
        gpu_symv(&k, ws, NULL, ro, uplo, n, al, A, x, be, y);
        gpu_symv(NULL, NULL, h, ro, uplo, n, al, A, x, be, yc);
        double *scale = symv_residual_scale(ro, uplo, n, al, A0, n, x0, 1, be, y0, 1);
        cr_assert_not_null(scale);
        int nonfinite = 0;
        for (int i = 0; i < n; i++) {
          const double a = real_at(ro, y, i), b = real_at(ro, yc, i);
          cr_assert(!!isnan(a) == !!isnan(b) && !!isinf(a) == !!isinf(b) && (!isinf(a) || a == b),
                    "%s point %d case %d uplo=%c: y(%d) = %g, cuBLAS %g (seed %llu)", symv_routine_name(ro), p, c,
                    uplo, i, a, b, seed0);
          nonfinite += !isfinite(a);
          if (isfinite(a))
            cr_assert(fabs(a - b) / scale[i] < 4.0, "%s point %d case %d uplo=%c: y(%d) = %.17g, cuBLAS %.17g",
                      symv_routine_name(ro), p, c, uplo, i, a, b);
        }
        cr_assert(c == 0 ? nonfinite >= 4 && nonfinite < n : nonfinite == n, "case %d: %d non-finite", c, nonfinite);
        free(scale);
      }
      symv_kernel_unload(&k);
    }
    free(A), free(x), free(y0), free(y), free(yc), free(A0), free(x0);
  }
  cublasDestroy(h);
}

Test(kernels, pipe_fx_spreads_inf_and_nan_as_cublas, .init = need_gpu, .timeout = 120)
{
  const symv_routine ros[] = {SYMV_DSYMV, SYMV_SSYMV};
  for_routines(ros, 2, nonfinite_case);
}

/* (d) SSYMV with subnormal inputs: A's entries and y's below FLT_MIN
 * (2^-140 times uniform values), x large (2^30 times), so that the
 * products are normal floats: right to the scaled residual. */
static void subnormal_case(symv_routine ro, symv_workspace *ws, unsigned long long *seed, unsigned long long seed0)
{
  const int n = 1000;
  float *A = random_symmetric(ro, n, seed), *x = malloc(sizeof *x * n), *y0 = malloc(sizeof *y0 * n),
        *y = malloc(sizeof *y * n), *yref = malloc(sizeof *yref * n);
  symv_fill_random(ro, x, n, seed);
  symv_fill_random(ro, y0, n, seed);
  int subnormal = 0;
  for (long i = 0; i < (long)n * n; i++) A[i] = ldexpf(A[i], -140), subnormal += fpclassify(A[i]) == FP_SUBNORMAL;
  cr_assert_gt(subnormal, n * n / 2);
  for (int i = 0; i < n; i++) x[i] = ldexpf(x[i], 30), y0[i] = ldexpf(y0[i], -135);
  const float al = 0.75f, be = 1.5f;
  for (int p = 0; p < NFX; p++) {
    symv_kernel k = load_fx(p, ro);
    for (int u = 0; u < 2; u++) {
      const char uplo = u ? 'U' : 'L';
      memcpy(yref, y0, sizeof *y0 * n), memcpy(y, y0, sizeof *y0 * n);
      symv_ref(ro, uplo, n, &al, A, n, x, 1, &be, yref, 1);
      gpu_symv(&k, ws, NULL, ro, uplo, n, &al, A, x, &be, y);
      const double r = symv_residual(ro, uplo, n, &al, A, n, x, 1, &be, y0, y, yref, 1);
      cr_assert(r >= 0 && r < 4.0, "point %d uplo=%c: residual %g (seed %llu)", p, uplo, r, seed0);
    }
    symv_kernel_unload(&k);
  }
  free(A), free(x), free(y0), free(y), free(yref);
}

Test(kernels, pipe_fx_takes_subnormal_inputs, .init = need_gpu, .timeout = 120)
{
  const symv_routine ro = SYMV_SSYMV;
  for_routines(&ro, 1, subnormal_case);
}

/* (e) The clearing invariant: 20 calls of different n (1 to 3000) back to
 * back on one stream and one workspace, sized first for the largest, so
 * that each call finds the accumulators, counts and flags the previous
 * ones left zero; every other call with beta = 0 over a y of NaN (not
 * read). Each result is right, and the workspace is zero at the end; for
 * MX 0, 1 and 6 (FX_GRID: the grid's word and chunk marks as well). */
Test(kernels, pipe_fx_calls_back_to_back_leave_the_workspace_clear, .init = need_gpu, .timeout = 120)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  enum { CALLS = 20 };
  static const int ns[CALLS] = {3000, 1, 777, 64, 2049, 65, 1500, 2, 129, 3000,
                                31, 1024, 999, 128, 2500, 63, 300, 1100, 4, 2999};
  const int nmax = 3000;
  double *A = malloc(sizeof *A * nmax * nmax), *x = malloc(sizeof *x * nmax), *y0 = malloc(sizeof *y0 * nmax);
  double *y = malloc(sizeof *y * nmax), *yref = malloc(sizeof *yref * nmax), *dA, *dx, *dy[CALLS];
  symv_fill_random(SYMV_DSYMV, A, (long)nmax * nmax, &seed);
  symv_fill_random(SYMV_DSYMV, x, nmax, &seed);
  symv_fill_random(SYMV_DSYMV, y0, nmax, &seed);
  cr_assert_eq(cudaMalloc((void **)&dA, sizeof *A * nmax * nmax), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dx, sizeof *x * nmax), cudaSuccess);
  cudaMemcpy(dA, A, sizeof *A * nmax * nmax, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof *x * nmax, cudaMemcpyHostToDevice);
  for (int c = 0; c < CALLS; c++) cr_assert_eq(cudaMalloc((void **)&dy[c], sizeof *y * nmax), cudaSuccess);
  const double al = -1.25, betas[2] = {0.75, 0.0};
  static const int which[] = {0, 1, FX_GRID};
  for (int q = 0; q < 3; q++) {
    const int p = which[q];
    symv_kernel k = load(fx_points[p]);
    symv_workspace ws = {0};
    cr_assert_eq(symv_workspace_reserve(&ws, &k.p, nmax, k.sm_count, 0), 0);
    for (int c = 0; c < CALLS; c++) {
      if (c % 2) cudaMemset(dy[c], 0xff, sizeof *y * nmax); /* NaN: beta = 0 must not read it */
      else cudaMemcpy(dy[c], y0, sizeof *y0 * nmax, cudaMemcpyHostToDevice);
    }
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    for (int c = 0; c < CALLS; c++) {
      const char uplo = c % 3 ? 'L' : 'U';
      int rc = symv_launch(&k, &ws, 0, uplo, ns[c], &al, dA, nmax, dx, 1, &betas[c % 2], dy[c], 1, 0, NULL);
      cr_assert_eq(rc, 0, "call %d: %s %s", c, symv_strerror(rc), symv_cuda_error_text());
    }
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess, "point %d faulted", p);
    for (int c = 0; c < CALLS; c++) {
      const char uplo = c % 3 ? 'L' : 'U';
      const double *yin = c % 2 ? yref : y0; /* beta = 0: y's NaN is not read; yref zeroed below stands for it */
      if (c % 2) memset(yref, 0, sizeof *yref * nmax);
      double *want = malloc(sizeof *want * nmax);
      memcpy(want, yin, sizeof *want * ns[c]);
      symv_ref(SYMV_DSYMV, uplo, ns[c], &al, A, nmax, x, 1, &betas[c % 2], want, 1);
      cudaMemcpy(y, dy[c], sizeof *y * ns[c], cudaMemcpyDeviceToHost);
      const double r = symv_residual(SYMV_DSYMV, uplo, ns[c], &al, A, nmax, x, 1, &betas[c % 2], yin, y, want, 1);
      cr_assert(r >= 0 && r < 4.0, "point %d call %d (n = %d, uplo %c, beta %g): residual %g (seed %llu)", p, c, ns[c],
                uplo, betas[c % 2], r, seed0);
      free(want);
    }
    unsigned long long *fx = malloc(sizeof *fx * ws.fx_len);
    cudaMemcpy(fx, ws.fx, sizeof *fx * ws.fx_len, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < ws.fx_len; i++) cr_assert_eq(fx[i], 0ull, "point %d: fx[%zu] = %llu at the end", p, i, fx[i]);
    free(fx);
    fxst_claimed(p, fx_points[p].mx, &ws, ns[CALLS - 1]);
    symv_kernel_unload(&k);
    symv_workspace_free(&ws);
  }
  for (int c = 0; c < CALLS; c++) cudaFree(dy[c]);
  cudaFree(dA), cudaFree(dx);
  free(A), free(x), free(y0), free(y), free(yref);
}

/* (f) A call captured in a CUDA graph and replayed: the launch's epoch
 * (the host's count, kernels/symv_pipe_fx.cu) is the captured one in
 * every replay, so the units' states hold the last replay's "taken" when
 * the next begins; the completing blocks must finish every unit all the
 * same. n = 3000 (47 row blocks, where blocks help). Each of 3 replays
 * (y := y0 first, in the graph) is right, the three give the same bits
 * (the determinism the family promises), and the workspace is zero at the
 * end. fx_points[p]: MX 0, or MX 6 (FX_GRID), whose grid's word needs no
 * epoch. */
static void replay_in_a_graph(int p)
{
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  const int n = 3000;
  cr_assert_geq((n + 63) / 64, SYMV_FX_HELP_NB);
  double *A = malloc(sizeof *A * n * n), *x = malloc(sizeof *x * n), *y0 = malloc(sizeof *y0 * n);
  double *y[3], *want = malloc(sizeof *want * n), *dA, *dx, *dy0, *dy;
  symv_fill_random(SYMV_DSYMV, A, (long)n * n, &seed);
  symv_fill_random(SYMV_DSYMV, x, n, &seed);
  symv_fill_random(SYMV_DSYMV, y0, n, &seed);
  cr_assert_eq(cudaMalloc((void **)&dA, sizeof *A * n * n), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dx, sizeof *x * n), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dy0, sizeof *y0 * n), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dy, sizeof *y0 * n), cudaSuccess);
  cudaMemcpy(dA, A, sizeof *A * n * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof *x * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dy0, y0, sizeof *y0 * n, cudaMemcpyHostToDevice);
  const double al = 0.75, be = -0.5;
  memcpy(want, y0, sizeof *want * n);
  symv_ref(SYMV_DSYMV, 'L', n, &al, A, n, x, 1, &be, want, 1);
  symv_kernel k = load(fx_points[p]);
  symv_workspace ws = {0};
  cudaStream_t s;
  cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cr_assert_eq(symv_workspace_reserve(&ws, &k.p, n, k.sm_count, s), 0); /* no growing while captured */
  cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cr_assert_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  cr_assert_eq(cudaMemcpyAsync(dy, dy0, sizeof *y0 * n, cudaMemcpyDeviceToDevice, s), cudaSuccess);
  const int rc = symv_launch(&k, &ws, s, 'L', n, &al, dA, n, dx, 1, &be, dy, 1, 0, NULL);
  cr_assert_eq(cudaStreamEndCapture(s, &g), cudaSuccess);
  cr_assert_eq(rc, 0, "captured launch: %s %s", symv_strerror(rc), symv_cuda_error_text());
  cr_assert_eq(cudaGraphInstantiate(&ge, g, 0), cudaSuccess);
  for (int r = 0; r < 3; r++) {
    cr_assert_eq(cudaGraphLaunch(ge, s), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess, "replay %d faulted", r);
    y[r] = malloc(sizeof *y[r] * n);
    cudaMemcpy(y[r], dy, sizeof *y[r] * n, cudaMemcpyDeviceToHost);
    const double res = symv_residual(SYMV_DSYMV, 'L', n, &al, A, n, x, 1, &be, y0, y[r], want, 1);
    cr_assert(res >= 0 && res < 4.0, "replay %d: residual %g (seed %llu)", r, res, seed0);
    if (r) cr_assert(memcmp(y[r], y[0], sizeof *y[0] * n) == 0, "replay %d differs from the first in its bits", r);
  }
  unsigned long long *fx = malloc(sizeof *fx * ws.fx_len);
  cudaMemcpy(fx, ws.fx, sizeof *fx * ws.fx_len, cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < ws.fx_len; i++) cr_assert_eq(fx[i], 0ull, "fx[%zu] = %llu after the replays", i, fx[i]);
  free(fx);
  cudaGraphExecDestroy(ge), cudaGraphDestroy(g), cudaStreamDestroy(s);
  symv_kernel_unload(&k);
  symv_workspace_free(&ws);
  cudaFree(dA), cudaFree(dx), cudaFree(dy0), cudaFree(dy);
  for (int r = 0; r < 3; r++) free(y[r]);
  free(A), free(x), free(y0), free(want);
}

Test(kernels, pipe_fx_replays_in_a_graph, .init = need_gpu, .timeout = 120) { replay_in_a_graph(0); }

Test(kernels, pipe_fx_grid_replays_in_a_graph, .init = need_gpu, .timeout = 120) { replay_in_a_graph(FX_GRID); }

/* The sweep prunes on the probe, so the probe must not read a kernel slower
 * than the full timing does (a 2-call probe as the host queued it read a
 * 4.6 us floor kernel as 6.3 us). It may read it faster: its calls are held
 * until all are queued, so where the host's launches set the full timing's
 * pace (n = 256: 8 calls of the floor kernel read 2.4 us on an H100, the
 * full timing 3.6 us; 2.2 against 4.4 on an H200) it times the GPU alone,
 * which only times fully a candidate that could have been pruned. */
Test(kernels, the_probe_agrees_with_the_full_timing, .init = need_gpu, .timeout = 120)
{
  const int n = 256;
  symv_floor_family f;
  char why[600];
  cr_assert_eq(symv_floor_family_load(&dev, SYMV_DSYMV, &f, why, sizeof why), 0, "%s", why);
  cr_assert_geq(f.untuned, 0);
  double *A = malloc(sizeof(double) * n * n);
  unsigned long long s = test_fresh_seed();
  symv_fill_random(SYMV_DSYMV, A, (long)n * n, &s);
  symv_matrix_set set;
  cr_assert_eq(symv_matrix_set_create(&set, sizeof(double), A, n, n, 4), 0);
  symv_floor_ctx fc = {&f.k[f.untuned], &set, n, n, f.out}; /* the untuned floor kernel, as before the family */
  symv_timing full, probe;
  double least_full = INFINITY, least_probe = INFINITY;
  for (int round = 0; round < 3; round++) { /* the worst of three probes */
    cr_assert_eq(symv_time(symv_floor_call, &fc, 0, 5, 1.0, 2000, &full), 0);
    cr_assert_eq(symv_time_probe(symv_floor_call, &fc, 0, symv_probe_warm(full.median_us), symv_probe_calls(full.median_us), &probe), 0);
    cr_expect(probe.median_us < 1.3 * full.median_us, "probe %.2f us a call, full timing %.2f us", probe.median_us,
              full.median_us);
    least_full = fmin(least_full, full.median_us), least_probe = fmin(least_probe, probe.median_us);
  }
  /* and not absurdly faster: against the least full timing of the three (a
   * GPU still raising its clocks has read one full timing at 7.0 us where
   * the others read 3.6) */
  cr_expect(least_probe > 0.4 * least_full, "probe %.2f us a call, full timing %.2f us", least_probe, least_full);
  symv_matrix_set_free(&set);
  symv_floor_family_free(&f);
  free(A);
}

/* cuBLAS's DSYMV as a timed call: with atomics allowed it queues up to three
 * kernels a call (the scaling of y and two stages). */
typedef struct {
  cublasHandle_t h;
  const symv_matrix_set *set;
  int n;
  const double *x;
  double *y;
} cublas_ctx;

static int cublas_call(void *vctx, int rep, cudaStream_t st)
{
  cublas_ctx *c = vctx;
  const double one = 1, half = 0.5;
  cublasSetStream(c->h, st);
  return symv_cublas(c->h, SYMV_DSYMV, 'L', c->n, &one, symv_matrix_set_get(c->set, rep), c->n, c->x, 1, &half, c->y,
                     1) == CUBLAS_STATUS_SUCCESS ? 0 : SYMV_CUBLAS;
}

/* symv_time_held times the GPU and the host's queuing apart: the GPU's
 * time is never (beyond noise) more than symv_time's, calls queued as the
 * host goes, and for the floor kernel (one launch a call) the larger of the
 * two is not below symv_time's (at n = 256 the host sets symv_time's pace,
 * at 4096 the GPU); and a held batch of cuBLAS calls
 * with atomics (three kernels a call, the most the worker queues) is
 * queued whole without the host blocking. */
Test(kernels, held_timing_reads_the_gpu_not_the_host, .init = need_gpu, .timeout = 120)
{
  const int sizes[] = {256, 4096};
  symv_floor_family f;
  char why[600];
  cr_assert_eq(symv_floor_family_load(&dev, SYMV_DSYMV, &f, why, sizeof why), 0, "%s", why);
  cublasHandle_t h;
  cr_assert_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  cr_assert_eq(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED), CUBLAS_STATUS_SUCCESS);
  for (size_t q = 0; q < sizeof sizes / sizeof *sizes; q++) {
    const int n = sizes[q];
    double *A = malloc(sizeof(double) * n * n), *x = malloc(sizeof(double) * n), *dx, *dy;
    unsigned long long s = test_fresh_seed();
    symv_fill_random(SYMV_DSYMV, A, (long)n * n, &s);
    symv_fill_random(SYMV_DSYMV, x, n, &s);
    symv_matrix_set set;
    cr_assert_eq(symv_matrix_set_create(&set, sizeof(double), A, n, n, 4), 0);
    cr_assert_eq(cudaMalloc((void **)&dx, sizeof(double) * n), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&dy, sizeof(double) * n), cudaSuccess);
    cudaMemcpy(dx, x, sizeof(double) * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, x, sizeof(double) * n, cudaMemcpyHostToDevice);
    symv_floor_ctx fc = {&f.k[f.untuned >= 0 ? f.untuned : 0], &set, n, n, f.out};
    cublas_ctx cc = {h, &set, n, dx, dy};
    struct {
      symv_call_fn fn;
      void *ctx;
      const char *what;
    } calls[] = {{symv_floor_call, &fc, "a floor kernel"}, {cublas_call, &cc, "cuBLAS with atomics"}};
    for (int k = 0; k < 2; k++) {
      double least_full = INFINITY, least_held = INFINITY, least_host = INFINITY;
      for (int round = 0; round < 3; round++) {
        symv_timing full, held;
        cr_assert_eq(symv_time(calls[k].fn, calls[k].ctx, 0, 5, 1.0, 2000, &full), 0);
        cr_assert_eq(symv_time_held(calls[k].fn, calls[k].ctx, 0, 5, 1.0, 2000, &held), 0, "%s at n = %d", calls[k].what, n);
        cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
        cr_assert(held.calls >= 3 && held.calls <= SYMV_HELD_MAX_CALLS && held.batches == 5);
        cr_assert(held.host_us > 0 && isnan(full.host_us), "host %g us, unheld %g", held.host_us, full.host_us);
        least_full = fmin(least_full, full.median_us), least_held = fmin(least_held, held.median_us);
        least_host = fmin(least_host, held.host_us);
      }
      const double both = fmax(least_held, least_host);
      cr_log_info("%s at n = %d: held: GPU %.2f us a call, host %.2f; unheld %.2f\n", calls[k].what, n, least_held,
                  least_host, least_full);
      cr_expect(least_held < 1.1 * least_full, "%s at n = %d: held GPU %.2f us a call, unheld %.2f", calls[k].what, n,
                least_held, least_full);
      /* For a kernel of one launch, as the worker's candidates are, the
       * larger of the two is not below the unheld time: unheld calls run
       * at the pace of the slower of the GPU and the host. It may be above
       * it: queued 64 calls deep behind the hold, the host takes longer a
       * launch on some machines (a floor kernel at n = 256: 3.83 us a call
       * against 2.38 unheld on an H100, 3.26 against 2.19 on an H200;
       * cuBLAS with atomics, three launches a call, 10.85 against 7.96 on
       * an H100), which is why the worker charges a call its launches at
       * the least (one) or median (more) launch cost of its candidates'
       * timings, never a host time of its own (harness_charge,
       * measure/harness.h). */
      if (k == 0)
        cr_expect(both > 0.75 * least_full, "%s at n = %d: held: GPU %.2f us, host %.2f; unheld %.2f", calls[k].what,
                  n, least_held, least_host, least_full);
    }
    symv_matrix_set_free(&set);
    cudaFree(dx), cudaFree(dy);
    free(A), free(x);
  }
  cublasDestroy(h);
  symv_floor_family_free(&f);
}
