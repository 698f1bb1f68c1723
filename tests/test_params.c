/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the MX orders, candidate naming/parsing and CLI parsing. */
#include <criterion/criterion.h>
#include <string.h>
#include "../kernels/symv_mx.h"
#include "cli.h"
#include "params.h"
#include "symv_error.h"

Test(mx, every_order_is_a_permutation_for_every_ux)
{
  for (int mx = 0; mx < SYMV_MX_COUNT; mx++)
    for (int ux = 1; ux <= SYMV_UX_MAX; ux++) {
      int seen[SYMV_UX_MAX] = {0};
      for (int k = 0; k < ux; k++) {
        int c = symv_mx_index(mx, ux, k);
        cr_assert(c >= 0 && c < ux, "MX %d UX %d: load %d reads column %d", mx, ux, k, c);
        cr_assert_eq(seen[c], 0, "MX %d UX %d: column %d read twice", mx, ux, c);
        seen[c] = 1;
      }
    }
}

Test(mx, orders_are_distinct_at_typical_ux)
{
  /* the 10 orders are 10 different permutations at the paper's UX range */
  for (int ux = 8; ux <= 32; ux++)
    for (int a = 0; a < SYMV_MX_COUNT; a++)
      for (int b = a + 1; b < SYMV_MX_COUNT; b++) {
        int same = 1;
        for (int k = 0; k < ux && same; k++) same = symv_mx_index(a, ux, k) == symv_mx_index(b, ux, k);
        cr_assert_not(same, "MX %d and %d coincide at UX %d", a, b, ux);
      }
}

Test(mx, out_of_range_is_rejected)
{
  cr_assert_eq(symv_mx_index(10, 8, 0), -1);
  cr_assert_eq(symv_mx_index(-1, 8, 0), -1);
  cr_assert_eq(symv_mx_index(0, 8, 8), -1);
  cr_assert_eq(symv_mx_index(0, 0, 0), -1);
}

Test(params, format_parse_round_trip)
{
  const char *in[] = {"atomic:128,16,4,0", "lu:64,8,1,3", "atomic_red:256,32,2,9", "panel:256,4,8,3", "pipe:512,16,1,2",
                      "pipe_det:256,64,2,0", "pipe_det:64,1,4,2", "pipe_fx:256,64,2,0", "pipe_fx:128,32,2,4"};
  for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
    symv_params p;
    char buf[64];
    cr_assert_eq(symv_params_parse(in[i], &p, NULL, 0), 0, "%s", in[i]);
    symv_params_format(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, in[i]);
  }
}

Test(params, malformed_and_out_of_range_are_errors)
{
  const char *bad[] = {"", "atomic", "atomic:", "atomic:128,16,4", "atomic:128,16,4,0,1", "atomic:128,16,4,0x",
                       "gemv:128,16,4,0", "atomic:100,16,4,0", "atomic:0,16,4,0", "atomic:128,0,4,0",
                       "atomic:128,65,4,0", "lu:64,5,1,0", "atomic:128,16,0,0", "atomic:128,16,4,10", "atomic:2048,16,4,0",
                       "panel:256,6,4,0", "panel:256,4,4,4", "pipe:96,16,1,0", "pipe:256,2,1,0", "pipe:256,48,1,0",
                       "pipe:256,64,1,3", "pipe_det:96,16,1,0", "pipe_det:256,2,1,0", "pipe_det:256,48,1,0",
                       "pipe_det:256,64,1,6", "pipe_det:32,16,1,0", "pipe-det:256,64,1,0", "pipe_de:256,64,1,0",
                       "pipe_fx:256,64,1,9", "pipe_fx:96,16,1,0"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    symv_params p;
    char err[128] = "";
    cr_assert_eq(symv_params_parse(bad[i], &p, err, sizeof err), SYMV_INVALID_VALUE, "accepted '%s'", bad[i]);
    cr_assert(strlen(err) > 0, "no message for '%s'", bad[i]);
  }
}

Test(params, tunable_family_list_matches_the_table)
{
  char want[256] = "";
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++)
    if (symv_family_tunable((symv_family)f)) {
      if (*want) strcat(want, ", ");
      strcat(want, symv_family_name((symv_family)f));
    }
  cr_assert_str_eq(SYMV_TUNABLE_FAMILIES, want);
}

Test(params, kernel_name_says_what_runs)
{
  symv_params p = {SYMV_FAMILY_ATOMIC, 128, 15, 5, 7}, q = p;
  char buf[64];
  symv_kernel_name(&p, buf, sizeof buf);
  cr_assert_str_eq(buf, "dsymv_atomic_b128_u15_x7", "a zeroed routine is DSYMV");
  p.routine = SYMV_ZHEMV;
  symv_kernel_name(&p, buf, sizeof buf);
  cr_assert_str_eq(buf, "zhemv_atomic_b128_u15_x7");
  q.routine = SYMV_ZHEMV;
  q.multiplicity = 2;
  cr_assert(symv_params_same_code(&p, &q), "MULTIPLICITY is a launch setting");
  q.routine = SYMV_CHEMV;
  cr_assert_not(symv_params_same_code(&p, &q), "another routine is other code");
  q.routine = SYMV_ZHEMV;
  q.mx = 6;
  cr_assert_not(symv_params_same_code(&p, &q));
}

Test(cli, integers_and_lists)
{
  int v, list[8], count;
  cr_assert_eq(cli_parse_int("t", "--n", "42", 0, 100, &v), 0);
  cr_assert_eq(v, 42);
  cr_assert_neq(cli_parse_int("t", "--n", "101", 0, 100, &v), 0);
  cr_assert_neq(cli_parse_int("t", "--n", "4x", 0, 100, &v), 0);
  cr_assert_neq(cli_parse_int("t", "--n", "", 0, 100, &v), 0);
  cr_assert_neq(cli_parse_int("t", "--n", "99999999999999999999", 0, 100, &v), 0);
  cr_assert_eq(cli_parse_int_list("t", "--sizes", "1,20,300", 1, 1000, list, 8, &count), 0);
  cr_assert_eq(count, 3);
  cr_assert_eq(list[2], 300);
  cr_assert_neq(cli_parse_int_list("t", "--sizes", "1,,3", 1, 1000, list, 8, &count), 0);
  cr_assert_neq(cli_parse_int_list("t", "--sizes", "1,2,", 1, 1000, list, 8, &count), 0);
  cr_assert_neq(cli_parse_int_list("t", "--sizes", "1,2,3", 1, 1000, list, 2, &count), 0);
  double d;
  cr_assert_eq(cli_parse_double("t", "--tol", "2.5", 0, 10, &d), 0);
  cr_assert_float_eq(d, 2.5, 1e-15);
  cr_assert_neq(cli_parse_double("t", "--tol", "nan", 0, 10, &d), 0);
}

Test(params, deterministic_family_list_matches_the_table)
{
  char want[256] = "";
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++)
    if (symv_family_default_space((symv_family)f) && symv_family_get((symv_family)f)->deterministic) {
      if (*want) strcat(want, ", ");
      strcat(want, symv_family_name((symv_family)f));
    }
  cr_assert_str_eq(SYMV_DETERMINISTIC_FAMILIES, want);
}

/* pipe_det: the deterministic twin of pipe. It is tunable and deterministic
 * (so the fit may put it in the rule set of cuBLAS's default atomics mode),
 * pipe is not deterministic; the two share their constraints but MX, which
 * pipe_det takes up to 5 (MX 3..5: MX 0..2's stages with units of
 * BLOCK_SIZE columns), and each names itself in the message that refuses a
 * point. */
Test(params, pipe_det_is_registered_deterministic_with_pipes_constraints)
{
  symv_family f;
  cr_assert_eq(symv_family_parse("pipe_det", &f), 0);
  cr_assert_eq(f, SYMV_FAMILY_PIPE_DET);
  const symv_family_info *fi = symv_family_get(f);
  cr_assert_not_null(fi);
  cr_assert_str_eq(fi->source, "symv_pipe_det.cu");
  cr_assert(fi->tunable && fi->deterministic);
  cr_assert_not(symv_family_get(SYMV_FAMILY_PIPE)->deterministic, "pipe adds with atomics");
  cr_assert(symv_family_pipelined(SYMV_FAMILY_PIPE) && symv_family_pipelined(SYMV_FAMILY_PIPE_DET));
  cr_assert_not(symv_family_pipelined(SYMV_FAMILY_PANEL));
  /* every point pipe takes, pipe_det and pipe_fx take, and no other; their
   * MX 3..5 are their MX 0..2 with pipe_det's units or pipe_fx's counts
   * held, and pipe_fx's MX 6..8 its MX 0..2 completed by the grid */
  for (int bs = 32; bs <= 1024; bs += 32)
    for (int ux = 1; ux <= 128; ux++)
      for (int mx = 0; mx < 10; mx++) {
        symv_params a = {SYMV_FAMILY_PIPE, bs, ux, 1, mx % 3}, b = a;
        b.family = SYMV_FAMILY_PIPE_DET, b.mx = mx;
        cr_assert_eq(symv_params_check(&a, NULL, 0) == 0 && mx <= 5, symv_params_check(&b, NULL, 0) == 0,
                     "%d,%d,%d", bs, ux, mx);
        symv_params d = b; /* pipe_fx: pipe_det's points, and MX 6..8 where pipe takes MX - 6 */
        d.family = SYMV_FAMILY_PIPE_FX;
        cr_assert_eq(mx <= 5 ? symv_params_check(&b, NULL, 0) == 0 : symv_params_check(&a, NULL, 0) == 0 && mx <= 8,
                     symv_params_check(&d, NULL, 0) == 0, "pipe_fx %d,%d,%d", bs, ux, mx);
      }
  symv_params p;
  char err[128] = "";
  cr_assert_eq(symv_params_parse("pipe_det:256,2,1,0", &p, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "UX of the pipe_det family"), "%s", err);
  /* at most 32 columns a thread: UX <= BLOCK_SIZE/2 (UX 64 at BLOCK_SIZE 64 lost half the column sums) */
  cr_assert_eq(symv_params_parse("pipe:64,64,1,0", &p, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "UX of the pipe family (a power of two, BLOCK_SIZE/64..BLOCK_SIZE/2)"), "%s", err);
  cr_assert_eq(symv_params_parse("pipe_det:64,64,2,1", &p, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_eq(symv_params_parse("pipe_det:64,32,1,0", &p, err, sizeof err), 0, "%s", err);
  cr_assert_eq(symv_params_parse("pipe:128,64,1,0", &p, err, sizeof err), 0, "%s", err);
  cr_assert_eq(symv_params_parse("pipe_det:96,16,1,0", &p, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "BLOCK_SIZE of the pipe_det family"), "%s", err);
  cr_assert_eq(symv_params_parse("pipe:256,64,1,3", &p, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "MX of the pipe family"), "%s", err);
  cr_assert_eq(symv_params_parse("pipe_det:256,64,1,3", &p, err, sizeof err), 0, "%s", err);
  cr_assert_eq(symv_params_parse("pipe_det:256,64,1,6", &p, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "MX of the pipe_det family (0..5)"), "%s", err);
  p = (symv_params){SYMV_FAMILY_PIPE_DET, 256, 64, 2, 0, SYMV_ZHEMV};
  char name[64];
  symv_kernel_name(&p, name, sizeof name);
  cr_assert_str_eq(name, "zhemv_pipe_det_b256_u64_x0");
}

/* pipe_fx: pipe with exact integer accumulation, deterministic in one
 * launch. It takes pipe's points (MX 0..2) and no other (checked with
 * pipe_det's beside pipe's above), names itself in
 * the messages that refuse a point, and is tunable but outside the default
 * space: a sweep enumerates it only when named, and the deterministic
 * families' list (the rule set's heading) leaves it out until then. */
Test(params, pipe_fx_is_registered_deterministic_in_one_launch_outside_the_default_space)
{
  symv_family f;
  cr_assert_eq(symv_family_parse("pipe_fx", &f), 0);
  cr_assert_eq(f, SYMV_FAMILY_PIPE_FX);
  cr_assert_eq((int)SYMV_FAMILY_PIPE_FX, 9);
  const symv_family_info *fi = symv_family_get(f);
  cr_assert_str_eq(fi->source, "symv_pipe_fx.cu");
  cr_assert(fi->tunable && fi->deterministic && fi->launches == 1 && !fi->default_space);
  cr_assert(symv_family_tunable(f) && !symv_family_default_space(f) && symv_family_pipelined(f));
  cr_assert_null(strstr(SYMV_DETERMINISTIC_FAMILIES, "pipe_fx"));
  cr_assert_not_null(strstr(SYMV_TUNABLE_FAMILIES, "pipe_fx"));
  for (int g = 0; g < SYMV_FAMILY_COUNT; g++)
    cr_assert_eq(symv_family_default_space((symv_family)g), symv_family_tunable((symv_family)g) && g != SYMV_FAMILY_PIPE_FX,
                 "%s", symv_family_name((symv_family)g));
  /* its points are pipe's (pipe_det_is_registered_deterministic_with_pipes_constraints) */
  static const struct {
    const char *point, *says;
  } refused[] = {{"pipe_fx:256,2,1,0", "UX of the pipe_fx family"},
                 {"pipe_fx:96,16,1,0", "BLOCK_SIZE of the pipe_fx family"},
                 {"pipe_fx:256,64,1,9", "MX of the pipe_fx family (0..8)"}};
  symv_params p;
  char err[128] = "";
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    cr_assert_eq(symv_params_parse(refused[i].point, &p, err, sizeof err), SYMV_INVALID_VALUE, "%s", refused[i].point);
    cr_assert_not_null(strstr(err, refused[i].says), "%s", err);
  }
  cr_assert_eq(symv_params_parse("pipe_fx:256,64,2,0", &p, err, sizeof err), 0, "%s", err);
  p.routine = SYMV_DSYMV;
  char name[64];
  symv_kernel_name(&p, name, sizeof name);
  cr_assert_str_eq(name, "dsymv_pipe_fx_b256_u64_x0");
  cr_assert_eq(symv_kernel_name_family(name, &f), 0);
  cr_assert_eq(f, SYMV_FAMILY_PIPE_FX);
}

/* symv_kernel_name_family reads back the family of every registered
 * family's kernel name, for every routine (pipe and pipe_det, whose names
 * share a prefix, among them), and nothing from a name symv_kernel_name
 * does not make. The family's launches come from the same registry. */
Test(params, a_kernel_name_gives_back_its_family)
{
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++) {
    const symv_family_info *fi = symv_family_get((symv_family)f);
    cr_assert(fi->launches >= 1 && fi->launches <= 2, "%s: %d launches", fi->name, fi->launches);
    for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
      symv_params p = {(symv_family)f, 256, 32, 2, 0};
      p.routine = symv_routine_order(r);
      char name[64];
      symv_kernel_name(&p, name, sizeof name);
      symv_family got = SYMV_FAMILY_COUNT;
      cr_assert_eq(symv_kernel_name_family(name, &got), 0, "%s", name);
      cr_assert_eq(got, (symv_family)f, "%s: %s", name, symv_family_name(got));
    }
  }
  symv_family got;
  static const char *const bad[] = {"", "cublas", "cublas_atomics", "dsymv_pipe", "dsymv_nope_b256_u32_x0",
                                    "dsymv_pipe_de_b256_u32_x0"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    cr_assert_neq(symv_kernel_name_family(bad[i], &got), 0, "'%s'", bad[i]);
  cr_assert_neq(symv_kernel_name_family(NULL, &got), 0);
}

Test(params, a_value_past_an_int_is_refused_not_wrapped)
{
  /* 4294967552 = 2^32 + 256: read as an int it would wrap to 256, a point
   * of the space; so would 2^64 + 256 through a long. */
  const char *bad[] = {"pipe:4294967552,32,1,0", "pipe:256,4294967328,1,0", "atomic:128,16,4294967300,0",
                       "atomic:128,16,4,4294967296", "pipe:18446744073709551872,32,1,0", "atomic:+128,16,4,0",
                       "atomic: 128,16,4,0", "atomic:128, 16,4,0", "atomic:128,16,4,0 ", "atomic:128,,4,0"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    symv_params p = {0};
    char err[160] = "";
    cr_assert_eq(symv_params_parse(bad[i], &p, err, sizeof err), SYMV_INVALID_VALUE, "accepted '%s' as %d,%d,%d,%d",
                 bad[i], p.block_size, p.ux, p.multiplicity, p.mx);
    cr_assert(strlen(err) > 0, "no message for '%s'", bad[i]);
  }
  char err[160] = "";
  symv_params p;
  cr_assert_eq(symv_params_parse("pipe:4294967552,32,1,0", &p, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "4294967552 is out of range"), "%s", err);
}

Test(params, a_problem_too_large_to_address_or_to_fit_the_gpu_is_refused_before_it_is_sized)
{
  size_t b = 0;
  char why[200] = "";
  /* DSYMV at n = 1000: A (lda * n) and x, y and y's copy, 8 bytes each */
  cr_assert_eq(symv_problem_bytes(SYMV_DSYMV, 1000, 1000, 0, &b, why, sizeof why), 0, "%s", why);
  cr_assert_eq(b, (size_t)(1000 * 1000 + 3 * 1000) * 8);
  cr_assert_eq(symv_problem_bytes(SYMV_ZHEMV, 1000, 1200, 0, &b, why, sizeof why), 0, "%s", why);
  cr_assert_eq(b, (size_t)(1200 * 1000 + 3 * 1000) * 16);
  /* n = 2^30: 2^60 elements of 16 bytes wrap a 64-bit size to 0 */
  cr_assert_eq(symv_problem_bytes(SYMV_ZHEMV, 1LL << 30, 1LL << 30, 0, &b, why, sizeof why), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(why, "more than this machine can address"), "%s", why);
  cr_assert_eq(symv_problem_bytes(SYMV_SSYMV, 1LL << 31, 1LL << 31, 0, &b, why, sizeof why), SYMV_INVALID_VALUE);
  cr_assert_eq(symv_problem_bytes(SYMV_SSYMV, 4, 1LL << 62, 0, &b, why, sizeof why), SYMV_INVALID_VALUE);
  /* n = 2^29: 2^62 bytes fit a size, not an 80 GB GPU */
  cr_assert_eq(symv_problem_bytes(SYMV_ZHEMV, 1LL << 29, 1LL << 29, 80000000000ULL, &b, why, sizeof why),
               SYMV_NO_MEMORY);
  cr_assert_not_null(strstr(why, "more than the GPU's 80 GB"), "%s", why);
  /* n = 65536 of DSYMV: 34.4 GB, which an 80 GB GPU holds and a 16 GB one does not */
  cr_assert_eq(symv_problem_bytes(SYMV_DSYMV, 65536, 65536, 80000000000ULL, &b, why, sizeof why), 0, "%s", why);
  cr_assert_eq(symv_problem_bytes(SYMV_DSYMV, 65536, 65536, 16000000000ULL, &b, why, sizeof why), SYMV_NO_MEMORY);
  /* arguments BLAS refuses */
  cr_assert_eq(symv_problem_bytes(SYMV_DSYMV, 0, 1, 0, &b, why, sizeof why), SYMV_INVALID_VALUE);
  cr_assert_eq(symv_problem_bytes(SYMV_DSYMV, 100, 99, 0, &b, why, sizeof why), SYMV_INVALID_VALUE);
}
