/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the tuning space: enumeration counts from device limits, the
 * static filter, and the sweep's refusals that need no GPU. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "routine.h"
#include "space.h"
#include "test_device.h"
#include "../kernels/symv_pipe.h"
#include "../kernels/symv_fx.h"
#include "test_util.h"
#include "symv_error.h"


Test(space, the_papers_atomic_space_has_16000_points)
{
  symv_device_info d = test_hopper();
  symv_space_opts o = {{0}, 0};
  o.family[SYMV_FAMILY_ATOMIC] = 1;
  cr_assert_eq(symv_space_count(&o, &d), 16000);
  symv_params *v;
  long n;
  cr_assert_eq(symv_space_enumerate(&o, &d, &v, &n), 0);
  cr_assert_eq(n, 16000);
  /* every point is valid, distinct in its parameters, and within the paper's ranges */
  for (long i = 0; i < n; i++) {
    cr_assert_eq(symv_params_check(&v[i], NULL, 0), 0);
    cr_assert(v[i].block_size % 32 == 0 && v[i].block_size <= 256);
    cr_assert(v[i].ux >= 8 && v[i].ux <= 32 && v[i].multiplicity >= 1 && v[i].multiplicity <= 8);
    if (i > 0) cr_assert(memcmp(&v[i], &v[i - 1], sizeof v[i]) != 0);
  }
  /* points sharing code are adjacent: 2000 distinct codes in runs of 8 */
  long codes = 1;
  for (long i = 1; i < n; i++) codes += !symv_params_same_code(&v[i], &v[i - 1]);
  cr_assert_eq(codes, 16000 / 8);
  free(v);
}

Test(space, default_and_wide_counts_follow_the_device)
{
  symv_device_info d = test_hopper();
  symv_space_opts o = {{0}, 0};
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++) o.family[f] = symv_family_default_space((symv_family)f);
  /* every tunable family but pipe_fx, which a sweep enumerates only when named */
  cr_assert_not(o.family[SYMV_FAMILY_PIPE_FX]);
  cr_assert(o.family[SYMV_FAMILY_PIPE_DET] && !o.family[SYMV_FAMILY_FAULT] && !o.family[SYMV_FAMILY_FLOOR]);
  /* pipe: 4 x 4 x 4 x 3 less BLOCK_SIZE 64 with UX 64 and 128 and BLOCK_SIZE 128 with
   * UX 128 (UX <= BLOCK_SIZE/2): 192 - 36; pipe_det the same with MX 0..5 */
  cr_assert_eq(symv_space_count(&o, &d), 16000 + 120 + 336 + 336 + 256 + 156 + 312);
  o.wide = 1;
  /* atomic: BLOCK_SIZE 32..512 (16) x UX 25 x MULTIPLICITY 1..32 x MX 10 */
  long atomic_wide = 16L * 25 * 32 * 10;
  long lu_wide = 6L * 4 * 32 * 2, red_wide = 5L * 7 * 32 * 2, panel_wide = 5L * 4 * 32 * 4;
  long pipe_wide = 5L * 4 * 32 * 3 - 3L * 32 * 3; /* pipe_det's: twice (MX 0..5) */
  cr_assert_eq(symv_space_count(&o, &d), atomic_wide + lu_wide + 2 * red_wide + panel_wide + 3 * pipe_wide);
  d.max_blocks_per_sm = 16; /* an older GPU: the wide space shrinks with it */
  cr_assert_eq(symv_space_count(&o, &d), (atomic_wide + lu_wide + 2 * red_wide + panel_wide + 3 * pipe_wide) / 2);
}

Test(space, static_filter_drops_what_cannot_fit)
{
  symv_device_info d = test_hopper();
  char why[256];
  symv_params ok = {SYMV_FAMILY_ATOMIC, 128, 16, 8, 0};
  cr_assert_eq(symv_static_filter(&ok, &d, why, sizeof why), 0);
  symv_params too_many_threads = {SYMV_FAMILY_ATOMIC, 512, 16, 8, 0};
  cr_assert_eq(symv_static_filter(&too_many_threads, &d, why, sizeof why), SYMV_RESOURCES);
  cr_assert_not_null(strstr(why, "threads per SM"), "%s", why);
  symv_params too_many_blocks = {SYMV_FAMILY_ATOMIC, 32, 8, 33, 0};
  cr_assert_eq(symv_static_filter(&too_many_blocks, &d, why, sizeof why), SYMV_RESOURCES);
  cr_assert_not_null(strstr(why, "blocks per SM"), "%s", why);
  /* shared memory: a device with little of it */
  d.smem_per_sm = 16384;
  symv_params big = {SYMV_FAMILY_ATOMIC, 256, 32, 8, 0}; /* 8 x (2564 + 1024) bytes */
  cr_assert_eq(symv_static_filter(&big, &d, why, sizeof why), SYMV_RESOURCES);
  cr_assert_not_null(strstr(why, "shared memory"), "%s", why);
}

Test(sweep_cli, a_corrupt_database_is_refused_untouched)
{
  char dir[] = "/tmp/symvtune-space-XXXXXX", file[128], err[4096];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(file, sizeof file, "%s/not-a-db", dir);
  FILE *f = fopen(file, "wb");
  const char junk[] = "these bytes are no SQLite database, and must stay as they are\n";
  fwrite(junk, 1, sizeof junk, f);
  fclose(f);
  char *args[] = {"symvtune", "sweep", "--db", file, "--quiet", NULL};
  int rc = run_symvtune(err, sizeof err, args);
  cr_assert_eq(rc, 4, "exit %d: %s", rc, err);
  cr_assert_not_null(strstr(err, file), "the message names the file: %s", err);
  char back[sizeof junk];
  f = fopen(file, "rb");
  cr_assert_eq(fread(back, 1, sizeof back, f), sizeof junk);
  fclose(f);
  cr_assert_eq(memcmp(back, junk, sizeof junk), 0, "the file was changed");
  unlink(file);
  rmdir(dir);
}

Test(sweep_cli, bad_options_are_usage_errors)
{
  char err[4096];
  char *a1[] = {"symvtune", "sweep", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a1), 2);
  cr_assert_not_null(strstr(err, "--db"), "%s", err);
  char *a2[] = {"symvtune", "sweep", "--db", "/tmp/x.db", "--families", "gemv", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a2), 2);
  char *a3[] = {"symvtune", "sweep", "--db", "/tmp/x.db", "--prune", "0.5", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a3), 2);
  char *a4[] = {"symvtune", "sweep", "--db", "/tmp/x.db", "--sizes", "100,,200", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a4), 2);
  char *a5[] = {"symvtune", "sweep", "--help", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a5), 0);
}

Test(time_cli, bad_options_are_usage_errors)
{
  char err[4096];
  char *a1[] = {"symvtune", "time", "--beta", "half", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a1), 2, "%s", err);
  cr_assert_not_null(strstr(err, "--beta"), "%s", err);
  char *a2[] = {"symvtune", "time", "--beta", "nan", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a2), 2, "%s", err);
  char *a3[] = {"symvtune", "time", "--point", "floor:256,1,8,0", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a3), 2, "%s", err);
  cr_assert_not_null(strstr(err, "computes no product"), "%s", err);
  char *a3b[] = {"symvtune", "time", "--routine", "qsymv", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a3b), 2, "%s", err);
  cr_assert_not_null(strstr(err, "qsymv"), "%s", err);
  char *a4[] = {"symvtune", "time", "--point", "atomic_w:64,16,8", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a4), 2, "%s", err);
  char *a5[] = {"symvtune", "time", "--help", NULL};
  cr_assert_eq(run_symvtune(err, sizeof err, a5), 0, "%s", err);
}

/* --accuracy is listed and parsed: with it a run gets past the options
 * (0 with a GPU, 3 without one; 2 would be a usage error). */
Test(time_cli, accuracy_is_an_option)
{
  char out[8192];
  char *help[] = {"symvtune", "time", "--help", NULL};
  cr_assert_eq(run_symvtune_all(out, sizeof out, help), 0, "%s", out);
  cr_assert_not_null(strstr(out, "\n  --accuracy "), "%s", out);
  char *run[] = {"symvtune", "time", "--accuracy", "--sizes", "64", "--no-floor", "--batches", "1", NULL};
  const int rc = run_symvtune_all(out, sizeof out, run);
  cr_assert(rc == 0 || rc == 3, "exit %d: %s", rc, out);
  if (rc == 0) cr_assert_not_null(strstr(out, " resid       err\n"), "%s", out);
  char *bad[] = {"symvtune", "time", "--accuracy=yes", NULL};
  cr_assert_eq(run_symvtune_all(out, sizeof out, bad), 2, "%s", out);
}

Test(space, each_family_alone_counts_its_own_points)
{
  symv_device_info d = test_hopper();
  const long want[SYMV_FAMILY_COUNT] = {[SYMV_FAMILY_ATOMIC] = 16000, [SYMV_FAMILY_LU] = 120,
                                        [SYMV_FAMILY_ATOMIC_RED] = 336, [SYMV_FAMILY_ATOMIC_W] = 336,
                                        [SYMV_FAMILY_PANEL] = 256, [SYMV_FAMILY_PIPE] = 156,
                                        [SYMV_FAMILY_PIPE_DET] = 312, /* 192 less UX > BLOCK_SIZE/2;
                                                                         pipe_det: MX 0..5 */
                                        [SYMV_FAMILY_PIPE_FX] = 468}; /* named: pipe's points, MX 0..8 */
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++) {
    symv_space_opts o = {{0}, 0};
    o.family[f] = 1;
    cr_assert_eq(symv_space_count(&o, &d), want[f], "family %s", symv_family_name((symv_family)f));
  }
}

/* MULTIPLICITY through shared memory: M blocks fit in the carveout and M+1
 * do not, in the smallest carveout that does it (the rest stays L1). */
Test(space, multiplicity_takes_the_smallest_carveout_that_enforces_it)
{
  symv_device_info d = test_hopper();
  const int statics[] = {0, 256, 3000, 20000};
  for (size_t s = 0; s < sizeof statics / sizeof *statics; s++)
    for (int m = 1; m <= d.max_blocks_per_sm; m++) {
      int pct = -1;
      long dyn = symv_dyn_smem_for(&d, m, statics[s], 0, &pct);
      if ((long)m * (statics[s] + (long)d.smem_reserved_per_block) > (long)d.smem_per_sm) {
        cr_assert_eq(dyn, -1, "static %d, M %d cannot fit", statics[s], m);
        continue;
      }
      cr_assert(dyn >= 0, "static %d, M %d", statics[s], m);
      const long block = statics[s] + dyn + (long)d.smem_reserved_per_block;
      const long cap = (long)pct * (long)d.smem_per_sm / 100; /* what the percentage asks for */
      long cfg = 0;                                           /* the capacity at or above it */
      const long kb[] = {8, 16, 32, 64, 100, 132, 164, 196, 228};
      for (size_t i = 0; i < sizeof kb / sizeof *kb && !cfg; i++)
        if (kb[i] * 1024 >= cap) cfg = kb[i] * 1024;
      cr_assert(m * block <= cfg && (m + 1) * block > cfg, "static %d, M %d: block %ld bytes, carveout %ld", statics[s],
                m, block, cfg);
      /* no smaller capacity would do */
      for (size_t i = 0; i < sizeof kb / sizeof *kb && kb[i] * 1024 < cfg; i++) {
        long c = kb[i] * 1024, b = c / m - (long)d.smem_reserved_per_block;
        b -= b < 0 ? 0 : b % 128;
        cr_assert(b < statics[s] || (m + 1) * (b + (long)d.smem_reserved_per_block) <= c, "static %d, M %d: %ld KB would do",
                  statics[s], m, kb[i]);
      }
    }
  /* a floor on the carveout: never below it, and M still enforced */
  for (int m = 1; m <= 8; m++) {
    int pct = -1;
    long dyn = symv_dyn_smem_for(&d, m, 256, 28, &pct); /* 28% of 228 KB: 63.8 KB -> 64 KB */
    const long block = 256 + dyn + (long)d.smem_reserved_per_block;
    cr_assert(dyn >= 0 && pct >= 28, "M %d: %ld, %d%%", m, dyn, pct);
    cr_assert(m * block <= 65536 && (m + 1) * block > 65536, "M %d in 64 KB: block %ld bytes", m, block);
  }
  cr_assert_eq(symv_dyn_smem_for(&d, d.max_blocks_per_sm + 1, 0, 0, NULL), -1);
  cr_assert_eq(symv_dyn_smem_for(&d, 0, 0, 0, NULL), -1);
}

/* The pipe kernel's tiles: every 64-row block of a UX-column strip that holds
 * an element on or below the diagonal, counted one by one, against the
 * closed form the host and the kernel use. */
Test(space, pipe_tiles_are_the_blocks_that_touch_the_triangle)
{
  const int ns[] = {1, 2, 63, 64, 65, 100, 127, 128, 129, 1000, 4099, 32768};
  const int uxs[] = {1, 2, 4, 8, 16, 32, 64, 128};
  for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
    for (size_t b = 0; b < sizeof uxs / sizeof *uxs; b++) {
      const int n = ns[a], ux = uxs[b];
      long want = 0;
      for (int j0 = 0; j0 < n; j0 += ux)
        for (int i0 = 0; i0 < n; i0 += 64) {
          const int ilast = i0 + 63 < n - 1 ? i0 + 63 : n - 1;
          want += ilast >= j0; /* its last row reaches the strip's first column */
        }
      cr_assert_eq(symv_pipe_tiles(n, ux), want, "n %d UX %d", n, ux);
    }
  cr_assert_eq(symv_pipe_tiles(0, 64), 0);
  cr_assert_eq(symv_pipe_tiles(100, 256), 0);
  cr_assert_eq(symv_pipe_tiles(100, 48), 0);
  cr_assert_eq(symv_pipe_tiles(100, 96), 0);
  for (int ux = -1; ux <= 300; ux++) { /* the widths the tiles take: the powers of two 1..128 */
    int pow2 = 0;
    for (int p = 1; p <= 128; p *= 2) pow2 |= ux == p;
    cr_assert_eq(symv_pipe_ux_valid(ux), pow2, "UX %d", ux);
  }
}

/* Its pipeline: MX + 2 stages of (CPT + 1) x BLOCK_SIZE doubles, counted in
 * the shared memory the static filter and the loader size MULTIPLICITY with. */
Test(space, pipe_pipeline_counts_in_shared_memory)
{
  symv_device_info d = test_hopper();
  char why[256];
  const symv_params p = {SYMV_FAMILY_PIPE, 256, 64, 2, 0}; /* CPT 16: 2 x 17 x 256 x 8 bytes */
  cr_assert_eq(symv_pipe_smem(&p), 2L * 17 * 256 * 8);
  const symv_params q = {SYMV_FAMILY_PIPE, 512, 16, 1, 2}; /* CPT 2: 4 x 3 x 512 x 8 */
  cr_assert_eq(symv_pipe_smem(&q), 4L * 3 * 512 * 8);
  const symv_params other = {SYMV_FAMILY_PANEL, 256, 4, 4, 3};
  cr_assert_eq(symv_pipe_smem(&other), 0);
  cr_assert_eq(symv_static_filter(&p, &d, why, sizeof why), 0, "%s", why);
  const symv_params big = {SYMV_FAMILY_PIPE, 512, 64, 4, 2}; /* 4 x 147 KB */
  cr_assert_eq(symv_static_filter(&big, &d, why, sizeof why), SYMV_RESOURCES);
  cr_assert_not_null(strstr(why, "shared memory"), "%s", why);
  /* pipe_det streams tiles through the same pipeline */
  symv_params pd = p, qd = q, bigd = big;
  pd.family = qd.family = bigd.family = SYMV_FAMILY_PIPE_DET;
  cr_assert_eq(symv_pipe_smem(&pd), symv_pipe_smem(&p));
  cr_assert_eq(symv_pipe_smem(&qd), symv_pipe_smem(&q));
  cr_assert_gt(symv_static_smem(&pd), symv_static_smem(&p)); /* and 16 bytes of margin (symv_static_smem) */
  cr_assert_eq(symv_static_filter(&pd, &d, why, sizeof why), 0, "%s", why);
  cr_assert_eq(symv_static_filter(&bigd, &d, why, sizeof why), SYMV_RESOURCES);
  /* and pipe_fx through pipe's, with pipe's static arrays, its list of
   * completed row blocks and their flags, two ints for each thread and a
   * count, and for MX 3..5 (counts held) one int more for each thread */
  symv_params pf = p, bigf = big, pfh = p;
  pf.family = bigf.family = pfh.family = SYMV_FAMILY_PIPE_FX;
  pfh.mx = p.mx + 3;
  cr_assert_eq(symv_pipe_smem(&pf), symv_pipe_smem(&p));
  cr_assert_eq(symv_pipe_smem(&pfh), symv_pipe_smem(&p));
  cr_assert_eq(symv_static_smem(&pf), symv_static_smem(&p) + 2 * p.block_size * 4 + 16); /* nfin padded to 16 */
  cr_assert_eq(symv_static_smem(&pfh), symv_static_smem(&pf) + p.block_size * 4);
  cr_assert_eq(symv_static_filter(&pf, &d, why, sizeof why), 0, "%s", why);
  cr_assert_eq(symv_static_filter(&bigf, &d, why, sizeof why), SYMV_RESOURCES);
}

/* Which entry a call takes (symv_pipe_tma_at): the copy engine's where
 * n >= SYMV_PIPE_TMA_MIN_N and A's columns are off 16-byte boundaries,
 * rows ascending (uplo L, 1: lda not a multiple of 4, or A's address off
 * 16) or descending (uplo U walked backwards from A(n-1, n-1), -1: lda not
 * a multiple of 4, or the last column's rows n-4 .. n-1, the lowest
 * address of a logical column's first 4 rows, off 16); the element
 * copies' otherwise (0). */
Test(space, the_copy_engine_entry_is_taken_where_columns_are_unaligned_and_n_large)
{
  const int n0 = SYMV_PIPE_TMA_MIN_N;
  const unsigned long long al = 1ull << 20; /* 16-byte aligned */
  int took[3] = {0, 0, 0};
  for (int n = n0 - 2; n <= n0 + 2; n++)
    for (long long lda = n0 + 3; lda <= n0 + 10; lda++)
      for (int off = 0; off < 4; off++) {
        const unsigned long long a = al + 4ull * off; /* floats: BLAS's A(0, 0) */
        const unsigned long long a_last = a + 4ull * ((unsigned long long)(n - 1) * (unsigned long long)lda + (n - 1));
        const unsigned long long low4 = a + 4ull * ((unsigned long long)(n - 1) * (unsigned long long)lda + (n - 4));
        const int unaligned = lda % 4 != 0 || off != 0, unaligned_u = lda % 4 != 0 || low4 % 16 != 0;
        const int l = symv_pipe_tma_at(n, 1, lda, a), u = symv_pipe_tma_at(n, -1, -lda, a_last);
        cr_assert_eq(l, n >= n0 && unaligned, "n %d lda %lld A+%d", n, lda, off);
        cr_assert_eq(u, n >= n0 && unaligned_u ? -1 : 0, "uplo U, n %d lda %lld A+%d", n, lda, off);
        took[l]++, took[2] += u == -1; /* the element copies', NAME_runs, NAME_runs_u */
      }
  cr_assert(took[0] > 0 && took[1] > 0 && took[2] > 0, "every entry among the cases: %d %d %d", took[0], took[1],
            took[2]);
  cr_assert_eq(symv_pipe_tma_at(1 << 20, 1, 1 << 20, al), 0, "aligned at any n");
  cr_assert_eq(symv_pipe_tma_at(1 << 20, 1, (1 << 20) + 1, al), 1);
  cr_assert_eq(symv_pipe_tma_at(1 << 20, -1, -(1 << 20), al + 12), 0, "aligned in U at any n");
  cr_assert_eq(symv_pipe_tma_at(1 << 20, -1, -(1 << 20), al), -1);
  cr_assert_eq(symv_pipe_tma_at(1 << 20, 2, 1 << 20, al + 4), 0, "a row stride other than 1 or -1");
}

/* cp.async came with compute capability 8.0: the three pipe families are
 * dropped below it, with the reason, and kept from it on. */
Test(space, pipe_families_need_compute_capability_8)
{
  symv_device_info d = test_hopper();
  char why[256];
  const symv_params pts[] = {{SYMV_FAMILY_PIPE, 256, 64, 2, 0}, {SYMV_FAMILY_PIPE_DET, 256, 64, 2, 0},
                             {SYMV_FAMILY_PIPE_FX, 256, 64, 2, 0}};
  for (int i = 0; i < 3; i++) {
    d.cc_major = 7, d.cc_minor = 5;
    cr_assert_eq(symv_static_filter(&pts[i], &d, why, sizeof why), SYMV_RESOURCES);
    cr_assert_not_null(strstr(why, "compute capability 8.0"), "%s", why);
    cr_assert_not_null(strstr(why, symv_family_name(pts[i].family)), "%s", why);
    d.cc_major = 8, d.cc_minor = 0;
    cr_assert_eq(symv_static_filter(&pts[i], &d, why, sizeof why), 0, "%s", why);
  }
  const symv_params panel = {SYMV_FAMILY_PANEL, 256, 4, 4, 3};
  d.cc_major = 7;
  cr_assert_eq(symv_static_filter(&panel, &d, why, sizeof why), 0, "%s", why);
}

/* pipe_det's phase 1 is launched early (programmatic dependent launch)
 * except where 3 or more phase 0 blocks fill each SM and n is large: there
 * back-to-back calls with both phases launched early ran up to 1.45x
 * slower (gpu/gpu.h). */
Test(space, pipe_det_phase1_launches_early_but_where_blocks_fill_the_sm_at_large_n)
{
  const int ns[] = {1, 1000, SYMV_PDET_P1_PDL_N, SYMV_PDET_P1_PDL_N + 1, 16411, 1 << 30};
  for (int m = 1; m <= 32; m++)
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
      const int want = m < 3 || ns[i] <= SYMV_PDET_P1_PDL_N;
      cr_assert_eq(symv_pdet_phase1_pdl(m, ns[i]), want, "MULTIPLICITY %d, n %d", m, ns[i]);
    }
}

/* The bookkeeping of the pipe_det kernel (kernels/symv_pipe_det.cu), against
 * a brute-force walk of its tiles: G blocks of phase 0 take tiles
 * [b*T/G, (b+1)*T/G) of the column-major numbering. Checked, for sizes and
 * grids from one tile per block to many strips per block, and for MX 3..5,
 * whose blocks share units of BLOCK_SIZE columns numbered as tiles that
 * wide would be (here "tile" and "UX" stand for the unit and its width):
 *  - symv_pipe_block_of names the block whose share holds each tile;
 *  - the column-sum slots b + J of the (block, strip) pairs are distinct
 *    and within the workspace symv_pipe_det_partials sizes;
 *  - phase 1 reads, for each row block I, every partial sum phase 0 wrote
 *    for its rows and nothing else: the row sums of tile (I, J) for each
 *    strip J with a tile in row block I (J*UX <= I*64 + 63: as many as
 *    symv_pipe_strips_of says), at symv_pipe_tiles_before(J) + I
 *    - floor(J*UX/64), and the column sums of the blocks
 *    symv_pipe_block_of(a) .. symv_pipe_block_of(e - 1) (strip J's tiles
 *    [a, e)), exactly the blocks that wrote slot b + J for each strip J of
 *    row block I's columns. */
Test(space, pipe_det_bookkeeping_matches_its_tiles)
{
  const int sizes[] = {1, 63, 64, 65, 200, 1000, 2049, 4099};
  /* BLOCK_SIZE, UX, MX: tiles of UX 1..128 (MX 0), units of 64..1024 (MX 3, 5) */
  const int pts[][3] = {{64, 1, 0}, {64, 4, 0}, {64, 16, 0}, {64, 32, 0}, {128, 64, 0}, {256, 128, 0},
                        {64, 16, 3}, {128, 4, 5}, {256, 64, 3}, {512, 128, 4}, {1024, 16, 3}};
  const long grids[] = {1, 2, 7, 132, 264, 528, 100000};
  for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
    for (size_t u = 0; u < sizeof pts / sizeof *pts; u++)
      for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
        const symv_params p = {SYMV_FAMILY_PIPE_DET, pts[u][0], pts[u][1], 1, pts[u][2]};
        const int ux = symv_pdet_unit_width(p.block_size, p.ux, p.mx);
        cr_assert_eq(ux, p.mx >= 3 ? p.block_size : p.ux);
        const int n = sizes[a], nb = (n + 63) / 64, ns = (n + ux - 1) / ux;
        const long T = symv_pdet_units(n, ux);
        if (p.mx < 3) cr_assert_eq(T, symv_pipe_tiles(n, ux), "units of MX 0..2 are the tiles");
        const long G = symv_pipe_grid(&p, n, (int)grids[g]); /* one block an SM */
        cr_assert(G >= 1 && G <= T && G <= grids[g], "n %d UX %d: grid %ld of %ld tiles", n, ux, G, T);
        int *tI = malloc(sizeof *tI * (size_t)T), *tJ = malloc(sizeof *tJ * (size_t)T);
        const long nslots = G + ns - 1;
        long *writer = malloc(sizeof *writer * (size_t)nslots); /* the block that wrote each column-sum slot */
        long *lo = malloc(sizeof *lo * (size_t)ns), *hi = malloc(sizeof *hi * (size_t)ns); /* strip J's writers */
        cr_assert(tI && tJ && writer && lo && hi);
        for (long s = 0; s < nslots; s++) writer[s] = -1;
        for (int J = 0; J < ns; J++) lo[J] = -1, hi[J] = -2;
        long k = 0;
        for (int J = 0; J < ns; J++)
          for (int I = J * ux / 64; I < nb; I++) tI[k] = I, tJ[k] = J, k++;
        cr_assert_eq(k, T);
        for (long b = 0; b < G; b++) {
          const long t0 = b * T / G, t1 = (b + 1) * T / G;
          cr_assert_lt(t0, t1, "block %ld has no tile", b);
          for (long t = t0; t < t1; t++) {
            cr_assert_eq(symv_pipe_block_of(t, G, T), b, "n %d UX %d G %ld: tile %ld", n, ux, G, t);
            if (t + 1 == t1 || tJ[t + 1] != tJ[t]) { /* leaves strip tJ[t]: its column sums */
              const long slot = b + tJ[t];
              cr_assert(slot < nslots && writer[slot] < 0, "n %d UX %d G %ld: slot %ld", n, ux, G, slot);
              writer[slot] = b;
              if (lo[tJ[t]] < 0)
                lo[tJ[t]] = b;
              else
                cr_assert_eq(b, hi[tJ[t]] + 1, "n %d UX %d G %ld: strip %d's writers skip a block", n, ux, G, tJ[t]);
              hi[tJ[t]] = b;
            }
          }
        }
        for (int I = 0; I < nb; I++) {
          int nr = 0;
          for (int J = 0; J < ns && (long)J * ux <= I * 64L + 63; J++, nr++) { /* the row sums phase 1 reads */
            const long t = symv_pipe_tiles_before(J, nb, ux) + I - (long)J * ux / 64;
            cr_assert(t >= 0 && t < T && tI[t] == I && tJ[t] == J, "n %d UX %d: tile (%d, %d)", n, ux, I, J);
          }
          cr_assert_eq(symv_pipe_strips_of(I, ns, ux), nr, "n %d UX %d: row block %d's strips", n, ux, I);
          /* the column sums phase 1 reads: the strips of row block I's columns */
          for (int J = I * 64 / ux; J < ns && (long)J * ux <= I * 64L + 63; J++) {
            const long a0 = symv_pipe_tiles_before(J, nb, ux), e = a0 + (nb - symv_pipe_first_block(J, ux));
            cr_assert_eq(symv_pipe_first_block(J, ux), tI[a0], "n %d UX %d: strip %d's first row block", n, ux, J);
            const long b0 = symv_pipe_block_of(a0, G, T), b1 = symv_pipe_block_of(e - 1, G, T);
            cr_assert(b0 == lo[J] && b1 == hi[J], "n %d UX %d G %ld: strip %d read from blocks %ld..%ld, written by %ld..%ld",
                      n, ux, G, J, b0, b1, lo[J], hi[J]);
            for (long b = b0; b <= b1; b++) cr_assert_eq(writer[b + J], b, "n %d UX %d G %ld: slot %ld", n, ux, G, b + J);
          }
        }
        cr_assert_eq(symv_pipe_det_partials(n, ux, G), T * 64 + nslots * ux);
        free(tI), free(tJ), free(writer), free(lo), free(hi);
      }
  cr_assert_eq(symv_pipe_det_partials(0, 64, 1), 0);
  cr_assert_eq(symv_pipe_det_partials(100, 48, 1), 0);
  cr_assert_eq(symv_pipe_det_partials(100, 2048, 1), 0);
  cr_assert_eq(symv_pipe_det_partials(100, 64, 0), 0);
  cr_assert_eq(symv_pipe_det_partials(100, 64, 4), 0, "more blocks than tiles");
  const symv_params other = {SYMV_FAMILY_PANEL, 256, 4, 4, 3};
  cr_assert_eq(symv_pipe_grid(&other, 1000, 132), 0);
}

/* Every routine's space, from the registry: the element size scales every
 * family's shared memory (static arrays and pipe's pipeline), so the
 * static filter keeps fewer points of the 16-byte routines than of the
 * 4-byte ones, and pipe:256,64,2,0, which fits for DSYMV, does not fit two
 * blocks an SM for ZHEMV (2 x 2 x 17 x 256 x 16 bytes > 228 KB). */
Test(space, every_routine_scales_shared_memory_by_its_element)
{
  symv_device_info d = test_hopper();
  symv_space_opts o = {{0}, 0};
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++) o.family[f] = symv_family_tunable((symv_family)f);
  symv_params *v;
  long n, kept[SYMV_ROUTINE_COUNT] = {0};
  cr_assert_eq(symv_space_enumerate(&o, &d, &v, &n), 0);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const symv_routine_info *ri = symv_routine_get((symv_routine)r);
    for (long i = 0; i < n; i++) {
      symv_params p = v[i], dp = v[i];
      char why[256];
      p.routine = (symv_routine)r, dp.routine = SYMV_DSYMV;
      /* the arrays of doubles become arrays of elements: static bytes scale by
       * elem/8 up to the few int fields and pipe's 16-byte rounding, and for
       * pipe's SSYMV points of 4 rows a thread by its arrays' other shape
       * (symv_pipe_sums_elems: 2*BLOCK_SIZE + UX elements, not BLOCK_SIZE + 2*UX) and its copy-engine
       * entry's stages' mbarriers (8 bytes a stage, rounded up to 16) */
      const long bars = symv_pipe_runs(&p) ? (8 * symv_pipe_stages(p.mx) + 15) / 16 * 16 : 0;
      const double ratio = (double)(symv_static_smem(&p) - bars) / symv_static_smem(&dp);
      double want = ri->elem_bytes / 8.0;
      if (p.family == SYMV_FAMILY_PIPE && symv_pipe_rows_per_thread(ri->elem_bytes, p.block_size, p.ux) == 4) {
        cr_assert_eq(r, SYMV_SSYMV, "4 rows a thread only for SSYMV");
        want *= (2.0 * p.block_size + p.ux) / (p.block_size + 2.0 * p.ux);
      }
      if (p.family == SYMV_FAMILY_PIPE || p.family == SYMV_FAMILY_PANEL || p.family == SYMV_FAMILY_ATOMIC_RED)
        cr_assert(fabs(ratio - want) < 0.05 * want, "%s %s: static shared memory ratio %g, not %g", ri->name,
                  symv_family_name(p.family), ratio, want);
      /* the pipeline's stages scale by the element too (the element copies' entry of every point), but the
       * copy-engine entry of SSYMV's points of 4 rows a thread (symv_pipe_runs: every pipe family) has stages
       * of SYMV_PIPE_RUN_FLOATS (not 64) floats a column, and so has pipe_det's first entry there (it holds
       * both paths); the static filter makes room for the larger */
      cr_assert_eq(symv_pipe_runs(&p), symv_family_pipelined(p.family) &&
                                           symv_pipe_rows_per_thread(ri->elem_bytes, p.block_size, p.ux) == 4);
      if (symv_pipe_runs(&p)) {
        const long wide = symv_pipe_stages(p.mx) * (SYMV_PIPE_RUN_FLOATS * (long)p.ux + p.block_size) * 4;
        cr_assert_eq(symv_pipe_smem_of(&p, 1), wide);
        cr_assert_gt(wide, symv_pipe_smem(&dp) / 8 * ri->elem_bytes);
        cr_assert_eq(symv_pipe_smem_of(&p, 0),
                     p.family == SYMV_FAMILY_PIPE_DET ? wide : symv_pipe_smem(&dp) / 8 * ri->elem_bytes);
      } else {
        cr_assert_eq(symv_pipe_smem_of(&p, 0), symv_pipe_smem(&dp) / 8 * ri->elem_bytes);
        cr_assert_eq(symv_pipe_smem_of(&p, 1), symv_pipe_smem_of(&p, 0));
      }
      cr_assert_eq(symv_pipe_smem(&p), symv_pipe_smem_of(&p, 1));
      kept[r] += symv_static_filter(&p, &d, why, sizeof why) == 0;
    }
  }
  cr_assert(kept[SYMV_SSYMV] >= kept[SYMV_DSYMV] && kept[SYMV_DSYMV] >= kept[SYMV_ZHEMV],
            "kept %ld (s) %ld (d) %ld (z)", kept[SYMV_SSYMV], kept[SYMV_DSYMV], kept[SYMV_ZHEMV]);
  cr_assert_eq(kept[SYMV_ZHEMV], kept[SYMV_ZSYMV], "same element size, same space");
  cr_assert_eq(kept[SYMV_CHEMV], kept[SYMV_DSYMV], "8-byte elements, both");
  cr_assert_lt(kept[SYMV_ZHEMV], kept[SYMV_DSYMV], "16-byte elements must lose points");
  free(v);
  char why[256];
  symv_params p = {SYMV_FAMILY_PIPE, 256, 64, 2, 0};
  cr_assert_eq(symv_static_filter(&p, &d, why, sizeof why), 0, "%s", why);
  p.routine = SYMV_ZHEMV;
  cr_assert_eq(symv_static_filter(&p, &d, why, sizeof why), SYMV_RESOURCES, "zhemv pipe:256,64,2,0 fits?");
}

/* The completion counts of the pipe_fx kernel (kernels/symv_pipe_fx.cu):
 * its blocks walked on the host as the kernel walks them, each tile's row
 * sums counted once in its row block, and a block's column sums of a
 * strip, when it leaves the strip or ends, counted once in every row block
 * of the strip's UX columns (one, or two at UX 128, the second only where
 * it exists). Each row block is counted exactly symv_fx_expected times, so
 * every row block is completed, once, by the block that counts its last
 * contribution. Sizes from one tile per block to many strips per block,
 * n not a multiple of 64 or of UX among them. */
Test(space, pipe_fx_counts_every_row_blocks_contributions)
{
  const int uxs[] = {1, 4, 16, 32, 64, 128};
  const int ns_[] = {1, 63, 64, 65, 127, 129, 300, 1000, 2049};
  const long gs[] = {1, 2, 3, 7, 64, 132, 528};
  for (size_t u = 0; u < sizeof uxs / sizeof *uxs; u++)
    for (size_t a = 0; a < sizeof ns_ / sizeof *ns_; a++) {
      const int ux = uxs[u], n = ns_[a], nb = (n + 63) / 64, ns = (n + ux - 1) / ux;
      const long T = symv_pipe_tiles(n, ux);
      long *got = calloc((size_t)nb, sizeof *got);
      cr_assert(got);
      for (size_t g = 0; g < sizeof gs / sizeof *gs; g++) {
        const long G = gs[g] < T ? gs[g] : T;
        memset(got, 0, sizeof *got * (size_t)nb);
        for (long b = 0; b < G; b++) {
          const long t0 = b * T / G, t1 = (b + 1) * T / G;
          long J = 0;
          while (J + 1 < ns && symv_pipe_tiles_before(J + 1, nb, ux) <= t0) J++;
          long I = symv_pipe_first_block(J, ux) + (t0 - symv_pipe_tiles_before(J, nb, ux)), curJ = J;
          for (long k = t0; k <= t1; k++) {
            if (k == t1 || J != curJ) { /* leaving strip curJ */
              for (long rb = curJ * ux / 64; rb <= (curJ * ux + ux - 1) / 64 && rb < nb; rb++) got[rb]++;
              curJ = J;
            }
            if (k == t1) break;
            got[I]++;
            if (++I == nb) J++, I = symv_pipe_first_block(J, ux);
          }
        }
        for (long rb = 0; rb < nb; rb++)
          cr_assert_eq(got[rb], symv_fx_expected(rb, nb, ns, ux, T, G), "n %d, UX %d, G %ld: row block %ld", n, ux, G,
                       rb);
      }
      free(got);
    }
}

/* pipe_fx's workspace: cnt and flag a row block each, then every element's
 * accumulators (two parts for complex routines; 7 words of 48-bit digits
 * for single precision, 16 for double), then MX 6..8's chunk marks, one a
 * row block; and its launch's limit, at most SYMV_FX_TERMS_MAX
 * contributions an element (ns + G). */
Test(space, pipe_fx_workspace_and_limit)
{
  cr_assert_eq(symv_pipe_fx_words(SYMV_DSYMV, 100), 2 * 2 + 100 * 16 + 2);
  cr_assert_eq(symv_pipe_fx_words(SYMV_SSYMV, 64), 2 * 1 + 64 * 7 + 1);
  cr_assert_eq(symv_pipe_fx_words(SYMV_CHEMV, 65), 2 * 2 + 65 * 2 * 7 + 2);
  cr_assert_eq(symv_pipe_fx_words(SYMV_ZSYMV, 1), 2 + 2 * 16 + 1);
  cr_assert_eq(symv_pipe_fx_words(SYMV_ZHEMV, 0), 0);
  symv_params p = {SYMV_FAMILY_PIPE_FX, 256, 16, 4, 0};
  /* 132 SMs x 4 = 528 blocks: ns + 528 <= 32767 up to ns = 32239 strips of 16 columns */
  cr_assert(symv_pipe_fx_fits(&p, 32239 * 16, 132));
  cr_assert_not(symv_pipe_fx_fits(&p, 32239 * 16 + 1, 132));
  cr_assert(symv_pipe_fx_fits(&p, 100000, 132));
  /* MX 6..8: a finisher's chunk of ceil(nb/G) row blocks fits its BLOCK_SIZE threads: one SM
   * and BLOCK_SIZE 64 (G = 4 blocks) hold 4 x 64 row blocks, n = 16384 */
  symv_params g = {SYMV_FAMILY_PIPE_FX, 64, 16, 4, 6};
  cr_assert(symv_pipe_fx_fits(&g, 16384, 1));
  cr_assert_not(symv_pipe_fx_fits(&g, 16385, 1));
  g.mx = 0;
  cr_assert(symv_pipe_fx_fits(&g, 16385, 1));
}
