/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of kernels/symv_fx.h on the host: the exact fixed-point sums of
 * pipe_fx (order independence, exactness, one rounding to double and to
 * float), the split into digits and its windows, and the contributions a
 * row block receives, against a simulation of pipe's schedule. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../kernels/symv_fx.h"
#include "test_util.h"

#define WD SYMV_FX_WORDS_D
#define ED SYMV_FX_E0_D
#define WF SYMV_FX_WORDS_F
#define EF SYMV_FX_E0_F

static uint64_t dbits(double v)
{
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

static uint32_t fbits(float v)
{
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

/* adds v's digits to w (a window of `words` words from 2^e0) as the kernel's
 * atomics do, in two's complement; returns symv_fx_split's result */
static int fx_add(long long *w, int words, int e0, double v)
{
  int k0;
  long long d[3];
  const int r = symv_fx_split(v, e0, words, &k0, d);
  if (r != SYMV_FX_OK) return r;
  for (int i = 0; i < 3; i++)
    if (d[i] != 0) w[k0 + i] = (long long)((unsigned long long)w[k0 + i] + (unsigned long long)d[i]);
  return r;
}

/* the exact sum of v[0..m) in a fresh double-window accumulator w */
static void fx_sum(long long w[WD], const double *v, int m)
{
  memset(w, 0, WD * sizeof *w);
  for (int i = 0; i < m; i++) cr_assert_eq(fx_add(w, WD, ED, v[i]), SYMV_FX_OK, "%a out of the window", v[i]);
}

static void shuffle(double *v, int m, uint64_t *x)
{
  for (int i = m - 1; i > 0; i--) {
    const int j = (int)(test_rng_next(x) % (uint64_t)(i + 1));
    const double t = v[i];
    v[i] = v[j], v[j] = t;
  }
}

/* a random double of random sign and 53-bit mantissa, 2^lo <= |v| < 2^(hi+1) */
static double random_double(uint64_t *x, int lo, int hi)
{
  const double m = 1.0 + (double)(test_rng_next(x) >> 12) * 0x1p-52;
  const double v = ldexp(m, test_rng_int(x, lo, hi));
  return test_rng_next(x) & 1 ? -v : v;
}

Test(fx, sums_are_the_same_bits_in_every_order)
{
  const uint64_t seed = test_fresh_seed();
  uint64_t x = seed;
  enum { M = 400, ORDERS = 6 };
  double v[M];
  for (int set = 0; set < 20; set++) {
    for (int i = 0; i < M; i++) v[i] = random_double(&x, -300, 300);
    long long w0[WD], w[WD];
    fx_sum(w0, v, M);
    const double r0 = symv_fx_round_d(w0, WD, ED);
    for (int o = 0; o < ORDERS; o++) {
      shuffle(v, M, &x);
      fx_sum(w, v, M);
      cr_assert(memcmp(w, w0, sizeof w) == 0, "seed %llu set %d: the words depend on the order",
                (unsigned long long)seed, set);
      cr_assert_eq(dbits(symv_fx_round_d(w, WD, ED)), dbits(r0), "seed %llu set %d", (unsigned long long)seed,
                   set);
    }
  }
}

Test(fx, cancelling_sets_sum_to_their_residual_exactly)
{
  const uint64_t seed = test_fresh_seed();
  uint64_t x = seed;
  enum { M = 300 };
  double v[2 * M + 1];
  for (int set = 0; set < 40; set++) {
    /* v_1..v_m, -v_1..-v_m and r: the sum is r, whatever the magnitudes */
    for (int i = 0; i < M; i++) v[i] = random_double(&x, -300, 300), v[M + i] = -v[i];
    const double r = set == 0 ? 0.0 : random_double(&x, set % 2 ? -300 : -20, set % 2 ? 300 : 20);
    v[2 * M] = r;
    shuffle(v, 2 * M + 1, &x);
    long long w[WD];
    fx_sum(w, v, 2 * M + 1);
    cr_assert_eq(dbits(symv_fx_round_d(w, WD, ED)), dbits(r), "seed %llu set %d: %a, not %a",
                 (unsigned long long)seed, set, symv_fx_round_d(w, WD, ED), r);
  }
}

Test(fx, integer_multiples_of_a_power_of_two_round_as_their_int64_sum)
{
  const uint64_t seed = test_fresh_seed();
  uint64_t x = seed;
  enum { M = 500 };
  double v[M];
  for (int set = 0; set < 200; set++) {
    /* a_i 2^k, |a_i| < 2^53: the exact sum S 2^k, |S| < 2^62 an int64 whose
     * conversions to double and to float round once, to nearest even */
    const int bits = test_rng_int(&x, 1, 53), k = set % 2 ? test_rng_int(&x, -330, 300) : test_rng_int(&x, -100, 60);
    long long S = 0;
    for (int i = 0; i < M; i++) {
      long long a = (long long)(test_rng_next(&x) >> (64 - bits));
      if (test_rng_next(&x) & 1) a = -a;
      S += a;
      v[i] = ldexp((double)a, k);
    }
    long long w[WD];
    fx_sum(w, v, M);
    const double want = ldexp((double)S, k);
    cr_assert_eq(dbits(symv_fx_round_d(w, WD, ED)), dbits(want), "seed %llu set %d: %a, not %a",
                 (unsigned long long)seed, set, symv_fx_round_d(w, WD, ED), want);
    if (set % 2 == 0) {
      /* |S| 2^k within float's normal range: scaling the float is exact */
      const float wantf = ldexpf((float)S, k);
      cr_assert_eq(fbits(symv_fx_round_f(w, WD, ED)), fbits(wantf), "seed %llu set %d: %a, not %a",
                   (unsigned long long)seed, set, (double)symv_fx_round_f(w, WD, ED), (double)wantf);
    }
  }
}

/* the double-window sum of v[0..m) rounded to double, and to float */
static double sum_d(const double *v, int m)
{
  long long w[WD];
  fx_sum(w, v, m);
  return symv_fx_round_d(w, WD, ED);
}

static float sum_f(const double *v, int m)
{
  long long w[WD];
  fx_sum(w, v, m);
  return symv_fx_round_f(w, WD, ED);
}

#define ASSERT_D(got, want) \
  cr_assert_eq(dbits(got), dbits(want), "%s: %a, not %a", #got, (double)(got), (double)(want))
#define ASSERT_F(got, want) \
  cr_assert_eq(fbits(got), fbits(want), "%s: %a, not %a", #got, (double)(got), (double)(want))

Test(fx, round_d_rounds_once_to_nearest_even)
{
  const double up = nextafter(1.0, 2.0);
  ASSERT_D(sum_d((double[]){1.0, 0x1p-53}, 2), 1.0);
  ASSERT_D(sum_d((double[]){1.0, 0x1p-53, 0x1p-300}, 3), up);
  ASSERT_D(sum_d((double[]){0x1p-300, 1.0, 0x1p-53}, 3), up);
  ASSERT_D(sum_d((double[]){1.0, 0x1p-53, -0x1p-300}, 3), 1.0);
  ASSERT_D(sum_d((double[]){1.0, 3 * 0x1p-53}, 2), 1.0 + 0x1p-51);
  ASSERT_D(sum_d((double[]){-1.0, -0x1p-53, -0x1p-300}, 3), -up);
  ASSERT_D(sum_d((double[]){-1.0, -3 * 0x1p-53}, 2), -1.0 - 0x1p-51);
  ASSERT_D(sum_d((double[]){-1.0, -0x1p-53}, 2), -1.0);
  /* zero is +0.0, from cancellation or from nothing */
  ASSERT_D(sum_d((double[]){-1.0, 0x1p-384, 1.0, -0x1p-384}, 4), 0.0);
  ASSERT_D(sum_d((double[]){-0.0}, 1), 0.0);
  ASSERT_D(sum_d(NULL, 0), 0.0);
}

Test(fx, round_d_carries_across_words)
{
  long long w[WD];
  /* (2^48 - 1) 2^-384 from a borrow out of word 0 */
  memset(w, 0, sizeof w);
  w[0] = -1, w[1] = 1;
  ASSERT_D(symv_fx_round_d(w, WD, ED), ldexp(0x1p48 - 1, ED));
  /* words that cancel through a carry: 0 */
  w[0] = 1LL << 62, w[1] = -(1LL << 14);
  ASSERT_D(symv_fx_round_d(w, WD, ED), 0.0);
  /* 2^336 + 2^283 (a tie at 2^336's precision) and +-2^-384: the sign of
   * the bit 14 words below decides, through the carries of words 1..12 */
  memset(w, 0, sizeof w);
  w[15] = 1, w[13] = 1LL << 43, w[0] = 1;
  ASSERT_D(symv_fx_round_d(w, WD, ED), 0x1p336 + 0x1p284);
  w[0] = -1;
  ASSERT_D(symv_fx_round_d(w, WD, ED), 0x1p336);
  /* the same negated, word by word */
  for (int k = 0; k < WD; k++) w[k] = -w[k];
  ASSERT_D(symv_fx_round_d(w, WD, ED), -0x1p336);
  w[0] = -1;
  ASSERT_D(symv_fx_round_d(w, WD, ED), -0x1p336 - 0x1p284);
  /* full words: 32767 digits of 2^48 - 1 in one word, either sign */
  memset(w, 0, sizeof w);
  w[7] = SYMV_FX_TERMS_MAX * ((1LL << 48) - 1);
  ASSERT_D(symv_fx_round_d(w, WD, ED), ldexp((double)w[7], ED + 48 * 7));
  w[7] = -w[7];
  ASSERT_D(symv_fx_round_d(w, WD, ED), ldexp((double)w[7], ED + 48 * 7));
}

/* w (a double window) holds exactly V 2^(ED + 48 k) in words k..k+2:
 * it rounds to the double nearest that value, and the same three words at
 * word 1 or 2 (x picks) of a float window to the float nearest theirs */
static void check_rounds_as(const long long w[WD], int k, __int128 V, uint64_t *x, uint64_t seed, int t)
{
  const double want = ldexp((double)V, ED + 48 * k);
  cr_assert_eq(dbits(symv_fx_round_d(w, WD, ED)), dbits(want), "seed %llu try %d: %a, not %a",
               (unsigned long long)seed, t, symv_fx_round_d(w, WD, ED), want);
  long long wf[WF] = {0};
  const int kf = test_rng_int(x, 1, 2);
  for (int i = 0; i < 3; i++) wf[kf + i] = w[k + i];
  const float wantf = ldexpf((float)V, EF + 48 * kf);
  cr_assert_eq(fbits(symv_fx_round_f(wf, WF, EF)), fbits(wantf), "seed %llu try %d: %a, not %a",
               (unsigned long long)seed, t, (double)symv_fx_round_f(wf, WF, EF), (double)wantf);
}

/* random words over three adjacent words k..k+2, the value an __int128 of
 * the test (libgcc's conversions of __int128 round once, to nearest even) */
Test(fx, random_words_round_as_their_exact_value)
{
  const uint64_t seed = test_fresh_seed();
  uint64_t x = seed;
  const long long full = SYMV_FX_TERMS_MAX * ((1LL << 48) - 1);
  for (int t = 0; t < 20000; t++) {
    long long w[WD] = {0};
    const int k = test_rng_int(&x, 0, WD - 3);
    __int128 V = 0;
    for (int i = 2; i >= 0; i--) {
      /* random bit lengths, and whole runs of zero bits (ties) */
      const int drop = test_rng_int(&x, 0, 62);
      long long a = (long long)(test_rng_next(&x) % (uint64_t)(full + 1)) >> drop;
      if (i == 2) a >>= 33; /* |V| < 2^126 */
      if (test_rng_next(&x) & 1) a = -a;
      w[k + i] = a;
      V = V * ((__int128)1 << 48) + a;
    }
    check_rounds_as(w, k, V, &x, seed, t);
  }
}

/* Values whose digits are runs of 0 and 2^48 - 1 (the digits a negative
 * value's magnitude turns into each other), of either sign, written with
 * carries moved between words (the same value in other words, as
 * atomics from many blocks leave it), and with a carry out of the top word,
 * round to the double and the float nearest their exact value */
Test(fx, rounding_sees_through_carries_and_runs_of_full_digits)
{
  const uint64_t seed = test_fresh_seed();
  uint64_t x = seed;
  const long long mask = (1LL << 48) - 1;
  for (int t = 0; t < 20000; t++) {
    long long a[3];
    for (int i = 0; i < 3; i++) {
      const int kind = test_rng_int(&x, 0, 4);
      a[i] = kind == 0 ? 0 : kind == 1 ? mask : kind == 2 ? 1 : kind == 3 ? mask - 1 : (long long)(test_rng_next(&x) & (uint64_t)mask);
    }
    a[2] &= (1LL << 29) - 1; /* |V| < 2^125 */
    const int neg = (int)(test_rng_next(&x) & 1);
    __int128 V = ((__int128)a[2] << 96) + ((__int128)a[1] << 48) + a[0];
    if (neg) V = -V;
    const int k = test_rng_int(&x, 0, WD - 3);
    long long w[WD] = {0};
    for (int i = 0; i < 3; i++) w[k + i] = neg ? -a[i] : a[i];
    for (int i = 0; i < 2; i++) {
      const long long c = test_rng_int(&x, -16384, 16384); /* word k+i takes c 2^48, word k+i+1 gives c */
      w[k + i] += c * (1LL << 48), w[k + i + 1] -= c;
    }
    check_rounds_as(w, k, V, &x, seed, t);
    /* past the window's top word: the top word's carry c 2^48 is a digit
     * of its own, above the last word (sums of contributions near 2^384) */
    long long wt[WD] = {0};
    const long long c = test_rng_int(&x, -16384, 16384);
    wt[WD - 2] = w[k], wt[WD - 1] = w[k + 1] + c * (1LL << 48);
    const __int128 B = (__int128)1 << 48; /* products, not shifts: the values may be negative */
    const __int128 Vt = (__int128)w[k] + ((__int128)w[k + 1] + (__int128)c * B) * B;
    const double wantt = ldexp((double)Vt, ED + 48 * (WD - 2));
    cr_assert_eq(dbits(symv_fx_round_d(wt, WD, ED)), dbits(wantt), "seed %llu try %d: %a, not %a",
                 (unsigned long long)seed, t, symv_fx_round_d(wt, WD, ED), wantt);
  }
}

Test(fx, round_f_rounds_once_to_nearest_even)
{
  ASSERT_F(sum_f((double[]){1.0, 0x1p-24}, 2), 1.0f);
  ASSERT_F(sum_f((double[]){1.0, 3 * 0x1p-24}, 2), 1.0f + 0x1p-22f);
  ASSERT_F(sum_f((double[]){1.0, 0x1p-24, 0x1p-300}, 3), 1.0f + 0x1p-23f);
  ASSERT_F(sum_f((double[]){-1.0, -0x1p-24, -0x1p-300}, 3), -1.0f - 0x1p-23f);
  ASSERT_F(sum_f((double[]){1.0, -1.0}, 2), 0.0f);
  /* subnormal results: 3 2^-150 ties to 2^-148, 2^-150 to +0, 5 2^-151 to 2^-149 */
  ASSERT_F(sum_f((double[]){0x1p-149, 0x1p-150}, 2), 0x1p-148f);
  ASSERT_F(sum_f((double[]){0x1p-150}, 1), 0.0f);
  ASSERT_F(sum_f((double[]){0x1p-150, 0x1p-300}, 2), 0x1p-149f);
  ASSERT_F(sum_f((double[]){-0x1p-149, -0x1p-151}, 2), -0x1p-149f);
  ASSERT_F(sum_f((double[]){0x1p-130, 0x1p-150}, 2), 0x1p-130f);
  ASSERT_F(sum_f((double[]){0x1p-130, 0x1p-149, 0x1p-150}, 3), 0x1p-130f + 0x1p-148f);
  /* FLT_MAX and half its ulp: a tie, to even, 2^128: inf */
  ASSERT_F(sum_f((double[]){FLT_MAX, 0x1p103}, 2), INFINITY);
  ASSERT_F(sum_f((double[]){-FLT_MAX, -0x1p103}, 2), -INFINITY);
  ASSERT_F(sum_f((double[]){FLT_MAX, 0x1p103, -0x1p-300}, 3), FLT_MAX);
}

Test(fx, round_f_does_not_round_twice)
{
  /* exactly just above the float tie 1 + 2^-24: up; the double nearest to
   * it is the tie itself, which a second rounding takes down to 1 */
  const double v[] = {1.0, 0x1p-24, 0x1p-60};
  ASSERT_F(sum_f(v, 3), 1.0f + 0x1p-23f);
  cr_assert_eq((float)sum_d(v, 3), 1.0f, "rounding to double first would round to 1");
}

/* b: a float's bits; checks its split in the float window and round_f */
static void check_float(uint32_t b)
{
  float f;
  memcpy(&f, &b, sizeof f);
  long long w[WF] = {0};
  cr_assert_eq(fx_add(w, WF, EF, f), SYMV_FX_OK, "%a", (double)f);
  cr_assert_eq(fbits(symv_fx_round_f(w, WF, EF)), fbits(f + 0.0f), "%a gives %a", (double)f,
               (double)symv_fx_round_f(w, WF, EF));
  cr_assert_eq(dbits(symv_fx_round_d(w, WF, EF)), dbits((double)f + 0.0), "%a", (double)f);
}

Test(fx, every_finite_float_splits_in_the_float_window)
{
  const uint64_t seed = test_fresh_seed();
  uint64_t x = seed;
  const float special[] = {0x1p-149f, FLT_MIN, FLT_MAX, 1.0f, 0x1.fffffep-127f, 0x1p-126f - 0x1p-149f};
  for (size_t i = 0; i < sizeof special / sizeof *special; i++) {
    check_float(fbits(special[i]));
    check_float(fbits(-special[i]));
  }
  /* every exponent (biased 0..254), random mantissas and signs */
  for (uint32_t e = 0; e < 255; e++)
    for (int t = 0; t < 40; t++) check_float(((uint32_t)test_rng_next(&x) & 0x807FFFFFu) | e << 23);
  /* zeros: no digits, +0 */
  long long w[WF] = {0};
  cr_assert_eq(fx_add(w, WF, EF, -0.0f), SYMV_FX_OK);
  for (int k = 0; k < WF; k++) cr_assert_eq(w[k], 0);
  ASSERT_F(symv_fx_round_f(w, WF, EF), 0.0f);
  cr_assert_eq(fx_add(w, WF, EF, (double)INFINITY), SYMV_FX_NONFINITE, "seed %llu", (unsigned long long)seed);
}

/* split of v in the double window: its result, and for OK, digits that
 * are below 2^48, of v's sign, and that give v back */
static int check_split_d(double v)
{
  int k0 = -7;
  long long d[3] = {11, 12, 13};
  const int r = symv_fx_split(v, ED, WD, &k0, d);
  if (r != SYMV_FX_OK) {
    cr_assert(k0 == -7 && d[0] == 11 && d[1] == 12 && d[2] == 13, "%a: written though refused", v);
    return r;
  }
  long long w[WD] = {0};
  for (int i = 0; i < 3; i++) {
    cr_assert(d[i] > -(1LL << 48) && d[i] < (1LL << 48), "%a: digit %lld", v, d[i]);
    cr_assert(signbit(v) ? d[i] <= 0 : d[i] >= 0, "%a: digit %lld of the other sign", v, d[i]);
    if (d[i] != 0) {
      cr_assert(k0 + i < WD, "%a: digit at word %d", v, k0 + i);
      w[k0 + i] = d[i];
    }
  }
  cr_assert_eq(dbits(symv_fx_round_d(w, WD, ED)), dbits(v + 0.0), "%a", v);
  return r;
}

Test(fx, split_refuses_what_the_double_window_cannot_hold)
{
  cr_assert_eq(check_split_d(0x1p-384), SYMV_FX_OK);
  cr_assert_eq(check_split_d(-0x1p-384), SYMV_FX_OK);
  cr_assert_eq(check_split_d(0x1p-385), SYMV_FX_RANGE);
  cr_assert_eq(check_split_d(0x1.0000000000001p-333), SYMV_FX_RANGE);
  cr_assert_eq(check_split_d(3 * 0x1p-385), SYMV_FX_RANGE);
  cr_assert_eq(check_split_d(DBL_MIN), SYMV_FX_RANGE);
  cr_assert_eq(check_split_d(0x1p383), SYMV_FX_OK);
  cr_assert_eq(check_split_d(nextafter(0x1p384, 0)), SYMV_FX_OK);
  cr_assert_eq(check_split_d(0x1p384), SYMV_FX_RANGE);
  cr_assert_eq(check_split_d(-0x1p384), SYMV_FX_RANGE);
  cr_assert_eq(check_split_d(DBL_MAX), SYMV_FX_RANGE);
  cr_assert_eq(check_split_d(INFINITY), SYMV_FX_NONFINITE);
  cr_assert_eq(check_split_d(-INFINITY), SYMV_FX_NONFINITE);
  cr_assert_eq(check_split_d(NAN), SYMV_FX_NONFINITE);
  int k0 = 5;
  long long d[3] = {1, 2, 3};
  cr_assert_eq(symv_fx_split(-0.0, ED, WD, &k0, d), SYMV_FX_OK);
  cr_assert(k0 == 0 && d[0] == 0 && d[1] == 0 && d[2] == 0);
  /* random doubles in the window, every offset from a word's weight */
  const uint64_t seed = test_fresh_seed();
  uint64_t x = seed;
  for (int t = 0; t < 20000; t++)
    cr_assert_eq(check_split_d(random_double(&x, -332, 383)), SYMV_FX_OK, "seed %llu", (unsigned long long)seed);
}

Test(fx, block_of_tile_is_the_block_whose_share_holds_the_tile)
{
  long bad = -1, badT = 0, badG = 0;
  for (long T = 1; T <= 200 && bad < 0; T++)
    for (long G = 1; G <= T && bad < 0; G++)
      for (long b = 0; b < G; b++)
        for (long k = b * T / G; k < (b + 1) * T / G; k++)
          if (symv_pipe_block_of(k, G, T) != b) bad = k, badT = T, badG = G;
  cr_assert_eq(bad, -1, "tile %ld of %ld among %ld blocks", bad, badT, badG);
  /* large shares: the shares' first and last tiles */
  const long Ts[] = {1000003, 134217728, 4000000000L}, Gs[] = {132, 528, 1056};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      for (long b = 0; b < Gs[j]; b++) {
        const long first = b * Ts[i] / Gs[j], end = (b + 1) * Ts[i] / Gs[j];
        cr_assert_eq(symv_pipe_block_of(first, Gs[j], Ts[i]), b);
        cr_assert_eq(symv_pipe_block_of(end - 1, Gs[j], Ts[i]), b);
      }
}

/* pipe's schedule at size n: tiles strip by strip, each strip's row blocks
 * from its diagonal down, shared among G blocks; counts per row block the
 * contributions pipe_fx adds and checks symv_fx_expected, and the most
 * contributions an element receives against ns + G */
static void check_schedule(long n, int ux, long G)
{
  const long nb = (n + 63) / 64, ns = (n + ux - 1) / ux, T = symv_pipe_tiles_before(ns, nb, ux);
  if (G > T) return;
  long *cnt = calloc((size_t)nb, sizeof *cnt), *rows = calloc((size_t)nb, sizeof *rows);
  long *pairs = calloc((size_t)ns, sizeof *pairs);
  long t = 0, b = 0;
  for (long J = 0; J < ns; J++) {
    cr_assert_eq(t, symv_pipe_tiles_before(J, nb, ux));
    long last_block = -1;
    for (long rb = symv_pipe_first_block(J, ux); rb < nb; rb++, t++) {
      while (t >= (b + 1) * T / G) b++;
      cnt[rb]++, rows[rb]++;
      if (b != last_block) {
        /* block b's column sums of strip J, once: every row block the
         * strip's columns (up to n) overlap */
        last_block = b, pairs[J]++;
        const long c1 = (J + 1) * ux < n ? (J + 1) * ux : n;
        for (long r = J * ux / 64; r <= (c1 - 1) / 64; r++) cnt[r]++;
      }
    }
  }
  cr_assert_eq(t, T);
  cr_assert_eq(b, G - 1);
  for (long rb = 0; rb < nb; rb++)
    cr_assert_eq(symv_fx_expected(rb, nb, ns, ux, T, G), cnt[rb], "n %ld ux %d G %ld row block %ld: %ld, not %ld", n,
                 ux, G, rb, symv_fx_expected(rb, nb, ns, ux, T, G), cnt[rb]);
  long most = 0;
  for (long i = 0; i < n; i++) {
    const long c = rows[i / 64] + pairs[i / ux];
    if (c > most) most = c;
  }
  cr_assert_leq(most, ns + G, "n %ld ux %d G %ld: an element receives %ld", n, ux, G, most);
  free(cnt), free(rows), free(pairs);
}

Test(fx, expected_counts_what_pipes_schedule_adds)
{
  const long ns_[] = {1, 2, 63, 64, 65, 127, 128, 129, 200, 1000, 4097};
  for (size_t i = 0; i < sizeof ns_ / sizeof *ns_; i++)
    for (int ux = 1; ux <= 128; ux *= 2) {
      const long n = ns_[i], T = symv_pipe_tiles_before((n + ux - 1) / ux, (n + 63) / 64, ux);
      const long Gs[] = {1, 2, 3, 7, 132, 528, T - 1, T};
      for (size_t j = 0; j < sizeof Gs / sizeof *Gs; j++)
        if (Gs[j] >= 1) check_schedule(n, ux, Gs[j]);
    }
}

/* pipe_fx's MX 6..8 (kernels/symv_pipe_fx.cu): the last F blocks to count
 * finish a chunk of cr row blocks each, a row a thread (cr = BLOCK_SIZE/64)
 * unless that would need more chunks than the grid has blocks. For every
 * nb, block size and grid: the F chunks cover the nb row blocks, the last
 * holds at least one, and F <= G, so that every chunk has a finisher. */
Test(fx, grid_chunks_cover_the_row_blocks_with_a_finisher_each)
{
  cr_assert_eq(symv_fx_grid_chunk(16, 256, 136), 4);    /* n = 1000: 4 chunks of 4 row blocks */
  cr_assert_eq(symv_fx_grid_chunk(1, 64, 1), 1);        /* n <= 64 */
  cr_assert_eq(symv_fx_grid_chunk(5000, 256, 264), 19); /* more row blocks than the grid's threads hold a row each */
  for (int bs = 64; bs <= 1024; bs *= 2)
    for (long G = 1; G <= 600; G += 37)
      for (long nb = 1; nb <= 4000; nb += nb < 70 ? 1 : 97) {
        const int cr = symv_fx_grid_chunk(nb, bs, G);
        const long F = (nb + cr - 1) / cr;
        cr_assert(cr >= bs / 64 && cr >= 1, "nb %ld bs %d G %ld: cr %d", nb, bs, G, cr);
        cr_assert(F <= G && F >= 1 && (F - 1) * cr < nb && F * cr >= nb, "nb %ld bs %d G %ld: F %ld", nb, bs, G, F);
      }
}
