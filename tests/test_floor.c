/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor family (gpu/floor.h, kernels/symv_floor.cu). Without a GPU: the
 * shapes (valid, distinct, within a device's limits), the bytes of the
 * triangle for every element size, the CPU checksum's contract (what
 * changes it and what does not), and every shape's code compiling with
 * NVRTC for sm_90. With a GPU (skipped without): every shape of every
 * routine reads exactly the triangle's words at odd and even n, lda > n and
 * a base that is not 16-byte aligned (the checksum is an exact integer sum,
 * so the GPU's must equal the CPU's bit for bit); the measured floor reads
 * no faster than the memory's peak from cold copies of A, and the empty
 * kernel is no slower than the floor.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compile.h"
#include "floor.h"
#include "gpu.h"
#include "routine.h"
#include "symv_error.h"
#include "test_device.h"
#include "test_util.h"

/* the element sizes of the BLAS types: REAL, DOUBLE PRECISION, COMPLEX, COMPLEX*16 */
static const int elem_of[] = {[SYMV_SSYMV] = 4, [SYMV_DSYMV] = 8, [SYMV_CSYMV] = 8,
                              [SYMV_ZSYMV] = 16, [SYMV_CHEMV] = 8, [SYMV_ZHEMV] = 16};

Test(floor, the_shapes_are_valid_distinct_and_within_the_device)
{
  symv_device_info hopper = test_hopper(), small = test_hopper();
  small.max_threads_per_sm = 1536, small.max_blocks_per_sm = 16; /* as compute capability 8.6 */
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) { /* every routine of the registry */
    const symv_routine ro = symv_routine_order(r);
    symv_params sh[SYMV_FLOOR_MAX_SHAPES];
    int n = symv_floor_shapes(NULL, ro, sh, SYMV_FLOOR_MAX_SHAPES);
    cr_assert_eq(n, elem_of[ro] == 16 ? 37 : 45, "%s: %d shapes", symv_routine_name(ro), n);
    cr_assert_eq(symv_floor_shapes(&hopper, ro, sh, SYMV_FLOOR_MAX_SHAPES), n, "an H100 takes every shape");
    int untuned = 0, vec = 0;
    for (int i = 0; i < n; i++) {
      char err[128], name[48];
      symv_params_format(&sh[i], name, sizeof name);
      cr_assert_eq(symv_params_check(&sh[i], err, sizeof err), 0, "%s: %s", name, err);
      cr_assert_eq(sh[i].family, SYMV_FAMILY_FLOOR);
      cr_assert_eq(sh[i].routine, ro);
      cr_assert(sh[i].mx == SYMV_FLOOR_ELEMENT || sh[i].mx == SYMV_FLOOR_VEC16 || sh[i].mx == SYMV_FLOOR_WARP_COLUMN,
                "%s", name);
      cr_assert(sh[i].ux == 1 || sh[i].ux == 2 || sh[i].ux == 4 || sh[i].ux == 8, "%s", name);
      cr_assert_leq(sh[i].block_size * sh[i].multiplicity, 2048, "%s", name);
      untuned += sh[i].mx == SYMV_FLOOR_WARP_COLUMN;
      vec += sh[i].mx == SYMV_FLOOR_VEC16;
      for (int j = 0; j < i; j++)
        cr_assert(memcmp(&sh[i], &sh[j], sizeof sh[i]), "%s twice", name);
    }
    cr_assert_eq(untuned, 1, "the untuned kernel is one of the family");
    /* 16-byte loads of 16-byte elements are the element layout: no duplicate */
    cr_assert_eq(vec, elem_of[ro] == 16 ? 0 : 36);
    /* a GPU of 1536 threads and 16 blocks per SM: every shape within them, the others left out */
    int k = symv_floor_shapes(&small, ro, sh, SYMV_FLOOR_MAX_SHAPES);
    cr_assert(k > 0 && k < n, "%d of %d", k, n);
    for (int i = 0; i < k; i++)
      cr_assert(sh[i].block_size * sh[i].multiplicity <= 1536 && sh[i].multiplicity <= 16);
    /* max is respected */
    cr_assert_eq(symv_floor_shapes(NULL, ro, sh, 5), 5);
  }
  symv_params sh[4];
  cr_assert_eq(symv_floor_shapes(NULL, SYMV_ROUTINE_COUNT, sh, 4), 0);
}

Test(floor, the_bytes_of_the_triangle)
{
  static const int ns[] = {1, 2, 3, 1000, 46341, 65536};
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) /* every routine of the registry */
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
      const long long n = ns[i], want = n * (n + 1) / 2 * elem_of[symv_routine_order(r)];
      cr_assert_eq(symv_floor_bytes(symv_routine_order(r), ns[i]), want, "%s n=%lld",
                   symv_routine_name(symv_routine_order(r)), n);
    }
  cr_assert_eq(symv_floor_bytes(SYMV_DSYMV, 1), 8);
  cr_assert_eq(symv_floor_bytes(SYMV_ZHEMV, 46341), 17180276976ll); /* 46341 * 46342 / 2 * 16: past 2^32 */
  cr_assert_eq(symv_floor_bytes(SYMV_DSYMV, 0), 0);
  cr_assert_eq(symv_floor_bytes(SYMV_DSYMV, -5), 0);
}

/* The CPU checksum: the sum of the triangle's 32-bit words. Checked by what
 * it must and must not see: words of a constant w sum to (words) x w; a
 * word of the triangle changed by d changes the sum by d; the strict upper
 * triangle and the rows past n (lda > n) do not count. */
Test(floor, the_checksum_counts_the_triangle_only)
{
  uint64_t seed = test_fresh_seed();
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) { /* every routine of the registry */
    const symv_routine ro = symv_routine_order(r);
    const int E = elem_of[ro];
    const int n = test_rng_int(&seed, 1, 70), lda = n + test_rng_int(&seed, 0, 5);
    const size_t words = (size_t)lda * n * E / 4;
    uint32_t *A = malloc(words * 4);
    for (size_t w = 0; w < words; w++) A[w] = 0x9e3779b9u;
    const uint64_t tri_words = (uint64_t)n * (n + 1) / 2 * (E / 4);
    cr_assert_eq(symv_floor_checksum(ro, n, A, lda), tri_words * 0x9e3779b9u, "%s n=%d lda=%d (seed %llu)",
                 symv_routine_name(ro), n, lda, (unsigned long long)seed);
    for (size_t w = 0; w < words; w++) A[w] = (uint32_t)test_rng_next(&seed);
    const uint64_t s0 = symv_floor_checksum(ro, n, A, lda);
    for (int t = 0; t < 50; t++) {
      const int i = test_rng_int(&seed, 0, lda - 1), j = test_rng_int(&seed, 0, n - 1), part = test_rng_int(&seed, 0, E / 4 - 1);
      uint32_t *word = &A[((size_t)j * lda + i) * (E / 4) + part];
      const uint32_t old = *word, d = 1 + (uint32_t)test_rng_int(&seed, 0, 1000);
      *word = old + d; /* may wrap: the sum is modulo 2^64 of the words as they are */
      const uint64_t want = i >= j && i < n ? s0 - old + (uint32_t)(old + d) : s0;
      cr_assert_eq(symv_floor_checksum(ro, n, A, lda), want, "%s element (%d, %d) of n=%d lda=%d (seed %llu)",
                   symv_routine_name(ro), i, j, n, lda, (unsigned long long)seed);
      *word = old;
    }
    free(A);
  }
  cr_assert_eq(symv_floor_checksum(SYMV_DSYMV, 0, NULL, 1), 0);
}

/* Every shape's code and the empty kernel compile for sm_90 (no GPU needed;
 * the same source with nvcc: kernels/compile-all.sh). */
Test(floor, every_shape_compiles_with_nvrtc, .timeout = 600)
{
  char dir[] = "/tmp/symvtune-floor-cacheXXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  setenv("SYMVTUNE_CACHE", dir, 1);
  static const symv_routine some[] = {SYMV_SSYMV, SYMV_DSYMV, SYMV_ZHEMV}; /* 4, 8, 16 bytes */
  for (size_t r = 0; r < sizeof some / sizeof *some; r++) {
    symv_params sh[SYMV_FLOOR_MAX_SHAPES + 1];
    int n = symv_floor_shapes(NULL, some[r], sh, SYMV_FLOOR_MAX_SHAPES);
    sh[n++] = (symv_params){SYMV_FAMILY_FLOOR, 32, 1, 1, SYMV_FLOOR_EMPTY, some[r]};
    for (int i = 0; i < n; i++) {
      symv_cubin c;
      char *log = NULL, name[48];
      symv_params_format(&sh[i], name, sizeof name);
      int rc = symv_compile(&sh[i], 9, 0, &c, &log);
      cr_assert_eq(rc, 0, "%s %s: %s", symv_routine_name(some[r]), name, log ? log : symv_strerror(rc));
      cr_assert(c.size > 4 && !memcmp(c.data, "\177ELF", 4));
      symv_cubin_free(&c);
    }
  }
  unsetenv("SYMVTUNE_CACHE");
  test_rmtree(dir);
}

/* ---- on a GPU ------------------------------------------------------------ */

static symv_device_info dev;

static void need_gpu(void)
{
  if (symv_device_query(0, &dev)) test_skip_without_gpu("no CUDA device: GPU test skipped");
}

/* Every shape of every routine reads exactly the triangle's words: the
 * GPU's checksum equals the CPU's at odd and even n, lda > n, and A one
 * element past a 16-byte boundary (the 16-byte layout's cut pieces), on
 * random bits everywhere (the upper triangle and the rows past n too, so
 * that a load outside the triangle would change the sum). The blocks' sums
 * are poisoned first: a block that wrote nothing would be found. */
Test(floor, every_shape_reads_exactly_the_triangle, .init = need_gpu, .timeout = 600)
{
  static const struct {
    int n, lda, offset; /* offset: elements of A past the allocation's start */
  } cases[] = {{1, 1, 0}, {2, 3, 1}, {7, 9, 1}, {31, 31, 0}, {64, 64, 0}, {65, 70, 3},
               {100, 101, 1}, {257, 257, 2}, {1000, 1003, 1}, {2049, 2049, 0}};
  uint64_t seed = test_fresh_seed();
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) { /* every routine of the registry */
    const symv_routine ro = symv_routine_order(r);
    const size_t E = (size_t)elem_of[ro];
    symv_floor_family f;
    char why[600];
    int rc = symv_floor_family_load(&dev, ro, &f, why, sizeof why);
    cr_assert_eq(rc, 0, "%s: %s", symv_routine_name(ro), why);
    cr_assert_geq(f.nshapes, 20, "%s: %d shapes loaded, %d dropped", symv_routine_name(ro), f.nshapes, f.dropped);
    cr_assert_geq(f.untuned, 0);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
      const int n = cases[c].n, lda = cases[c].lda;
      const size_t total = (size_t)lda * n + (size_t)cases[c].offset, words = total * E / 4;
      uint32_t *h = malloc(words * 4);
      for (size_t w = 0; w < words; w++) h[w] = (uint32_t)test_rng_next(&seed);
      const unsigned char *A = (const unsigned char *)h + cases[c].offset * E;
      const uint64_t want = symv_floor_checksum(ro, n, A, lda);
      void *d = NULL;
      cr_assert_eq(cudaMalloc(&d, words * 4), cudaSuccess);
      cr_assert_eq(cudaMemcpy(d, h, words * 4, cudaMemcpyHostToDevice), cudaSuccess);
      for (int i = 0; i < f.nshapes; i++) {
        char name[48];
        symv_params_format(&f.k[i].p, name, sizeof name);
        cr_assert_eq(cudaMemset(f.out, 0xa5, f.out_len * sizeof(uint64_t)), cudaSuccess);
        uint64_t got = 0;
        rc = symv_floor_run_checksum(&f.k[i], n, (const char *)d + cases[c].offset * E, lda, f.out, &got);
        cr_assert_eq(rc, 0, "%s %s n=%d: %s %s", symv_routine_name(ro), name, n, symv_strerror(rc),
                     symv_cuda_error_text());
        cr_assert_eq(got, want, "%s %s n=%d lda=%d offset %d: checksum %llu, the triangle's %llu (seed %llu)",
                     symv_routine_name(ro), name, n, lda, cases[c].offset, (unsigned long long)got,
                     (unsigned long long)want, (unsigned long long)seed);
      }
      cudaFree(d);
      free(h);
    }
    /* refused: not a floor kernel's arguments */
    cr_assert_eq(symv_floor_launch(&f.k[0], 0, 0, f.out, 1, f.out), SYMV_INVALID_VALUE);
    cr_assert_eq(symv_floor_launch(&f.k[0], 0, 10, f.out, 9, f.out), SYMV_INVALID_VALUE);
    if (E > 4) cr_assert_eq(symv_floor_launch(&f.k[0], 0, 10, (const char *)f.out + 4, 10, f.out), SYMV_INVALID_VALUE);
    symv_floor_family_free(&f);
  }
}

/* The floor of cold copies of A reads no faster than the memory's peak (a
 * faster read would come from the L2, or from loads not made), the untuned
 * kernel is among the shapes timed and no faster than the floor, and the
 * empty kernel takes no longer than the floor. */
Test(floor, the_floor_is_physical, .init = need_gpu, .timeout = 300)
{
  const int n = 8192;
  symv_floor_family f;
  char why[600];
  cr_assert_eq(symv_floor_family_load(&dev, SYMV_DSYMV, &f, why, sizeof why), 0, "%s", why);
  const size_t bytes = (size_t)n * n * sizeof(double);
  double *A = malloc(bytes);
  uint64_t seed = test_fresh_seed();
  for (size_t i = 0; i < (size_t)n * n; i++) A[i] = test_rng_unit(&seed);
  symv_matrix_set set;
  cr_assert_eq(symv_matrix_set_create(&set, sizeof(double), A, n, n, symv_matrix_copies_for(bytes, dev.l2_bytes, 0, bytes * 8)),
               0);
  symv_floor_result fr;
  cr_assert_eq(symv_floor_measure(&f, &set, n, 5, 4, &fr), 0);
  cr_assert(fr.shape >= 0 && fr.us > 0);
  cr_assert_geq(fr.timed, 5, "the 4 fastest by the probe and the untuned kernel");
  cr_assert(fr.untuned_us >= fr.us);
  const double gbs = symv_floor_bytes(SYMV_DSYMV, n) / (fr.us * 1e3);
  cr_assert(dev.peak_gbs <= 0 || gbs <= 1.02 * dev.peak_gbs, "the floor reads %.0f GB/s, the memory's peak is %.0f",
            gbs, dev.peak_gbs);
  symv_timing te;
  cr_assert_eq(symv_floor_empty_time(&f, 5, &te), 0);
  cr_assert(te.median_us > 0 && te.median_us <= fr.us, "empty kernel %.2f us, floor %.2f us", te.median_us, fr.us);
  symv_matrix_set_free(&set);
  symv_floor_family_free(&f);
  free(A);
}
