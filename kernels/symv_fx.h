/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_fx.h - exact, order-independent accumulation of floating-point
 * values in fixed point, for the reproducible pipe_fx family
 * (kernels/symv_pipe_fx.cu) and the host that checks it (tests/test_fx.c).
 * Host C (C11) and CUDA device code (nvcc, NVRTC): 64-bit integer
 * arithmetic only, no system header.
 *
 * Number format: an accumulator is `words` signed 64-bit words w[0..words-1]
 * (unsigned long long in device memory, added with atomicAdd in two's
 * complement); word k weighs 2^(e0 + 48 k), and the accumulator's value is
 * sum_k w[k] 2^(e0 + 48 k), exactly. A value v is added as up to three
 * digits (symv_fx_split), integers with |digit| < 2^48 that each go to one
 * word, so a word takes SYMV_FX_TERMS_MAX = 2^15 - 1 additions without
 * overflow (2^15 2^48 = 2^63).
 *
 * Why the sum does not depend on the order of additions: every digit is an
 * exact integer multiple of its word's weight and every word is added to
 * with integer additions, which are associative and commutative (modulo
 * 2^64 in two's complement, and exact while no word leaves int64's range);
 * so whatever order the atomics land in, the words end up the same, and
 * so does the one rounding (symv_fx_round_d, symv_fx_round_f) of their
 * exact value.
 *
 * Windows: float (and each part of complex float): SYMV_FX_WORDS_F = 7
 * words from 2^SYMV_FX_E0_F = 2^-149, the bits [2^-149, 2^187): every finite
 * float, with room for the sums' carries. Double: SYMV_FX_WORDS_D = 16
 * words from 2^SYMV_FX_E0_D = 2^-384, the bits [2^-384, 2^384); a double
 * with a nonzero bit outside the window is refused (SYMV_FX_RANGE) and the
 * kernel falls back to a direct computation.
 *
 * The idea is that of binned and fixed-point exact accumulation: ReproBLAS's
 * binned sums (Demmel, Nguyen, Ahrens) and Kulisch's long accumulators, here
 * with carry-save words of 48-bit digits so that integer atomics add them
 * without carries between words.
 */
#ifndef SYMV_FX_H
#define SYMV_FX_H

#include "symv_pipe.h"

#if defined(__CUDACC__)
#define SYMV_FX_FN static __host__ __device__ __forceinline__
#else
#define SYMV_FX_FN static inline
#endif

/** SYMV_FX_DIGIT_BITS: the bits between two words' weights; digits have
 *  |digit| < 2^SYMV_FX_DIGIT_BITS. */
#define SYMV_FX_DIGIT_BITS 48
/** SYMV_FX_TERMS_MAX: the digits a word takes without overflow. */
#define SYMV_FX_TERMS_MAX 32767L
/** SYMV_FX_WORDS_F, SYMV_FX_E0_F: the float window, [2^-149, 2^187): every
 *  finite float (and each part of a complex float). */
#define SYMV_FX_WORDS_F 7
#define SYMV_FX_E0_F (-149)
/** SYMV_FX_WORDS_D, SYMV_FX_E0_D: the double window, [2^-384, 2^384). */
#define SYMV_FX_WORDS_D 16
#define SYMV_FX_E0_D (-384)

/** SYMV_FX_HELP_NB: pipe_fx's blocks help finish other blocks' row blocks
 *  (kernels/symv_pipe_fx.cu, symv_pfx_help) from ceil(n/64) >= this many
 *  row blocks; below it the block that completes a row block finishes
 *  it alone, which is faster there (doc/results.md, "pipe_fx, fourth
 *  version"). */
#define SYMV_FX_HELP_NB 40

/** SYMV_FX_GRID_MX: pipe_fx's first MX completed by the grid (MX 6..8:
 *  the stages of MX - 6; kernels/symv_pipe_fx.cu, SYMV_PFX_GRID). */
#define SYMV_FX_GRID_MX 6

/** SYMV_FX_GRID_WORDS(nb): the words after the accumulators that pipe_fx's
 *  MX 6..8 (completion by the grid, kernels/symv_pipe_fx.cu) use with nb
 *  row blocks: a mark per chunk (at most nb chunks), zero between calls. */
#define SYMV_FX_GRID_WORDS(nb) (nb)

/** symv_fx_grid_chunk: the row blocks of one chunk of y that a finisher of
 *  pipe_fx's MX 6..8 takes, with nb row blocks, blocks of bs threads and a
 *  grid of G blocks: bs/64 (a row a thread), or more where that would make
 *  more chunks than blocks, ceil(nb/G). At least 1. */
SYMV_FX_FN int symv_fx_grid_chunk(long nb, int bs, long G)
{
  const long a = bs / 64, b = G > 0 ? (nb + G - 1) / G : nb;
  const long c = a > b ? a : b;
  return c > 0 ? (int)c : 1;
}

/** symv_fx_split's results: OK; RANGE (a nonzero bit outside the window);
 *  NONFINITE (inf or NaN). */
enum { SYMV_FX_OK = 0, SYMV_FX_RANGE = 1, SYMV_FX_NONFINITE = 2 };

/** symv_fx_bits: the 64 bits of the double v. */
SYMV_FX_FN unsigned long long symv_fx_bits(double v)
{
#if defined(__CUDA_ARCH__)
  return (unsigned long long)__double_as_longlong(v);
#else
  unsigned long long u;
  __builtin_memcpy(&u, &v, sizeof u);
  return u;
#endif
}

/** symv_fx_scale: x 2^e (ldexp), for e in -2044..2046, as x times two
 *  normal powers of two, 2^(e/2) then 2^(e - e/2): exact whenever x 2^(e/2)
 *  and x 2^e are normal doubles (or zero), as in the windows above. */
SYMV_FX_FN double symv_fx_scale(double x, int e)
{
  const int h = e / 2;
  const int parts[2] = {h, e - h};
  for (int i = 0; i < 2; i++) {
    const unsigned long long u = (unsigned long long)(parts[i] + 1023) << 52;
#if defined(__CUDA_ARCH__)
    x *= __longlong_as_double((long long)u);
#else
    double p;
    __builtin_memcpy(&p, &u, sizeof p);
    x *= p;
#endif
  }
  return x;
}

/** symv_fx_split: v (a double, or a float converted exactly) as up to three
 *  signed digits d[0..2] (|d| < 2^48, all of v's sign) for words *k0,
 *  *k0+1, *k0+2: v = sum_i d[i] 2^(e0 + 48(*k0 + i)) exactly; unused digits
 *  0. Returns SYMV_FX_OK (v = +-0: *k0 = 0, all digits 0), SYMV_FX_RANGE
 *  when a nonzero bit of v lies below 2^e0 or a nonzero digit would fall
 *  at word `words` or above (nothing is written to *k0/d then),
 *  SYMV_FX_NONFINITE for inf or NaN (nothing written either). */
SYMV_FX_FN int symv_fx_split(double v, int e0, int words, int *k0, long long d[3])
{
  const unsigned long long mask = (1ULL << SYMV_FX_DIGIT_BITS) - 1;
  const unsigned long long bits = symv_fx_bits(v);
  const int field = (int)((bits >> 52) & 0x7FF);
  unsigned long long m = bits & ((1ULL << 52) - 1);
  if (field == 0x7FF) return SYMV_FX_NONFINITE;
  if (field == 0 && m == 0) {
    *k0 = 0;
    d[0] = d[1] = d[2] = 0;
    return SYMV_FX_OK;
  }
  /* |v| = m 2^e, m < 2^53 */
  int e = field == 0 ? -1074 : field - 1075;
  if (field != 0) m |= 1ULL << 52;
  /* r: the position of m's bit 0 above 2^e0; below 2^e0 only zeros may go */
  int r = e - e0;
  if (r < 0) {
    if (-r >= 53 || (m & ((1ULL << -r) - 1)) != 0) return SYMV_FX_RANGE;
    m >>= -r;
    r = 0;
  }
  const int k = r / SYMV_FX_DIGIT_BITS, s = r % SYMV_FX_DIGIT_BITS;
  /* |v| = (m 2^s) 2^(e0 + 48 k), m 2^s < 2^100: three digits */
  unsigned long long g[3];
  g[0] = (m << s) & mask;
  g[1] = (m >> (SYMV_FX_DIGIT_BITS - s)) & mask;
  g[2] = 2 * SYMV_FX_DIGIT_BITS - s < 64 ? m >> (2 * SYMV_FX_DIGIT_BITS - s) : 0;
  for (int i = 0; i < 3; i++)
    if (g[i] != 0 && k + i >= words) return SYMV_FX_RANGE;
  const int neg = (int)(bits >> 63);
  *k0 = k;
  for (int i = 0; i < 3; i++) d[i] = neg ? -(long long)g[i] : (long long)g[i];
  return SYMV_FX_OK;
}

/** symv_fx_clz64: the leading zero bits of u, u != 0 (0..63). */
SYMV_FX_FN int symv_fx_clz64(unsigned long long u)
{
#if defined(__CUDA_ARCH__)
  return __clzll((long long)u);
#else
  return __builtin_clzll(u);
#endif
}

/** symv_fx_ctz32: the trailing zero bits of u, u != 0 (0..31). */
SYMV_FX_FN int symv_fx_ctz32(unsigned int u)
{
#if defined(__CUDA_ARCH__)
  return __ffs((int)u) - 1;
#else
  return __builtin_ctz(u);
#endif
}

/** symv_fx_clz32: the leading zero bits of u, u != 0 (0..31). */
SYMV_FX_FN int symv_fx_clz32(unsigned int u)
{
#if defined(__CUDA_ARCH__)
  return __clz((int)u);
#else
  return __builtin_clz(u);
#endif
}

/** symv_fx_mag_digit: digit k of |value| from digit p = P[k] of an
 *  accumulator's normalized digits P (symv_fx_top): p itself for a
 *  non-negative value; for a negative one, 0 below its lowest nonzero low
 *  digit z, 2^48 - p at z, 2^48 - 1 - p above z, and dtop at k = words;
 *  0 for k < 0. */
SYMV_FX_FN unsigned long long symv_fx_mag_digit(long long p, int k, int words, int z, int negative, long long dtop)
{
  const long long mask = (1LL << SYMV_FX_DIGIT_BITS) - 1;
  if (k < 0) return 0;
  if (!negative) return (unsigned long long)p;
  return (unsigned long long)(k == words ? dtop : k < z ? 0 : k == z ? (mask + 1) - p : mask - p);
}

/** symv_fx_top: the magnitude of accumulator w[0..words-1] (words <= 16)
 *  as the top 64 bits *u of it (bit 63 set) with every bit below them ORed
 *  into bit 0 (sticky), and its sign *neg: |value| is in
 *  [*u, *u + 1) 2^(*lo), *lo a power of two's exponent. Returns 0 when the
 *  value is 0 (*u, *lo, *neg untouched), 1 otherwise.
 *  One carry chain, then bit masks of the nonzero digits and three
 *  digits selected by index: no array indexed at run time, so that on a
 *  GPU every array stays in registers, and few instructions. */
SYMV_FX_FN int symv_fx_top(const long long *w, int words, int e0, unsigned long long *u, int *lo, int *neg)
{
  const long long mask = (1LL << SYMV_FX_DIGIT_BITS) - 1;
  /* P: digits of the value, P[k] in [0, 2^48) for k < words, and P[words]
   * the signed top carry; >> of a negative long long is arithmetic (nvcc,
   * gcc, clang) */
  long long P[17];
  long long carry = 0;
  unsigned int nzp = 0; /* bit k: P[k] != 0, k < words */
  for (int k = 0; k < words; k++) {
    const long long t = w[k] + carry;
    P[k] = t & mask;
    carry = t >> SYMV_FX_DIGIT_BITS;
    nzp |= (unsigned int)(P[k] != 0) << k;
  }
  P[words] = carry;
  const int negative = carry < 0;
  /* the digits of |value|: P's for a positive value. For a negative one,
   * with L = the low digits' value (0 <= L < 2^(48 words)) and z its
   * lowest nonzero digit: -value = (-carry - 1) 2^(48 words) +
   * (2^(48 words) - L), whose low digits are 0 below z, 2^48 - P[z] at z
   * and 2^48 - 1 - P[k] above z (nonzero unless P[k] = 2^48 - 1); with
   * L = 0 it is -carry 2^(48 words). nz: bit k set where digit k of
   * |value| is nonzero. */
  const int z = nzp ? symv_fx_ctz32(nzp) : words;
  const long long dtop = negative ? (z < words ? -carry - 1 : -carry) : carry;
  unsigned int nz = dtop != 0 ? 1u << words : 0u;
  if (negative) {
    unsigned int full = 0; /* bit k: P[k] = 2^48 - 1 */
    for (int k = 0; k < words; k++) full |= (unsigned int)(P[k] == mask) << k;
    const unsigned int above = ~((2u << z) - 1); /* bits above z (z < words <= 16) */
    nz |= z < words ? (1u << z) | (~full & above & ((1u << words) - 1)) : 0u;
  } else
    nz |= nzp;
  if (nz == 0) return 0;
  *neg = negative;
  /* h: the top nonzero digit; d0, d1, d2: digits h, h - 1, h - 2 of
   * |value| (0 below digit 0), from P's; the sticky bit: any nonzero digit
   * below h - 2 */
  const int h = 31 - symv_fx_clz32(nz);
  long long p0 = 0, p1 = 0, p2 = 0;
  for (int k = 0; k <= words; k++)
    if (k <= h) p2 = p1, p1 = p0, p0 = P[k]; /* a selection: k and h only */
  const unsigned long long d0 = symv_fx_mag_digit(p0, h, words, z, negative, dtop);
  const unsigned long long d1 = symv_fx_mag_digit(p1, h - 1, words, z, negative, dtop);
  const unsigned long long d2 = symv_fx_mag_digit(p2, h - 2, words, z, negative, dtop);
  unsigned long long sticky = h >= 3 && (nz & ((1u << (h - 2)) - 1)) != 0;
  /* b: d0's top bit, 0..47 (the top carry digit is below 2^16); the value's
   * top bit is 48 h + b above 2^e0, and the 64 bits kept start 63 below it:
   * d0 lands at 63 - b, d1 at 15 - b, d2 at -33 - b */
  const int b = 63 - symv_fx_clz64(d0);
  unsigned long long top = d0 << (63 - b);
  const int s1 = 15 - b, s2 = 33 + b; /* d1 << s1 (s1 >= 0) or >> -s1; d2 >> s2, s2 in 33..80 */
  if (s1 >= 0)
    top |= d1 << s1;
  else {
    top |= d1 >> -s1;
    sticky |= d1 & ((1ULL << -s1) - 1);
  }
  if (s2 < 64) {
    top |= d2 >> s2;
    sticky |= d2 & ((1ULL << s2) - 1);
  } else
    sticky |= d2;
  *u = top | (sticky != 0);
  *lo = e0 + SYMV_FX_DIGIT_BITS * h + b - 63;
  return 1;
}

/** symv_fx_u64_to_double: u rounded to the nearest double, ties to even. */
SYMV_FX_FN double symv_fx_u64_to_double(unsigned long long u)
{
#if defined(__CUDA_ARCH__)
  return __ull2double_rn(u);
#else
  return (double)u;
#endif
}

/** symv_fx_round_d: the exact value of accumulator w[0..words-1] (each
 *  word a sum of at most SYMV_FX_TERMS_MAX digits), rounded once to the
 *  nearest double, ties to even; +0.0 when the value is 0. words <= 16,
 *  and the value lies in double's normal range for the windows above. */
SYMV_FX_FN double symv_fx_round_d(const long long *w, int words, int e0)
{
  unsigned long long u;
  int lo, neg;
  if (!symv_fx_top(w, words, e0, &u, &lo, &neg)) return 0.0;
  /* the sticky bit lies below the rounding bit (bit 10): one rounding */
  const double r = symv_fx_scale(symv_fx_u64_to_double(u), lo);
  return neg ? -r : r;
}

/** symv_fx_round_f: the same rounded once to the nearest float, ties to
 *  even, subnormal results included (round to odd at 53 bits, then one
 *  conversion to float, correct since 53 >= 24 + 2); +-inf past FLT_MAX as
 *  a float conversion gives; +0.0f when the value is 0. words <= 16. */
SYMV_FX_FN float symv_fx_round_f(const long long *w, int words, int e0)
{
  unsigned long long u;
  int lo, neg;
  if (!symv_fx_top(w, words, e0, &u, &lo, &neg)) return 0.0f;
  const unsigned long long odd = (u >> 11) | ((u & 0x7FF) != 0);
  /* odd < 2^53: the double below is exact */
  const double r = symv_fx_scale((double)(long long)odd, lo + 11);
  return (float)(neg ? -r : r);
}

/** symv_fx_expected: the contributions row block rb (rows 64 rb .. 64 rb +
 *  63, 0 <= rb < nb) receives in one call of pipe_fx with nb row blocks, ns
 *  strips of ux columns (symv_pipe.h's numbering), T tiles shared by G
 *  blocks (1 <= G <= T, so that every block holds a tile):
 *    the row sums of its tiles, one per strip holding a tile of rb
 *    (symv_pipe_strips_of(rb, ns, ux)), plus
 *    for each strip J whose columns J*ux .. J*ux+ux-1 overlap rows
 *    64 rb .. 64 rb + 63 (and J < ns), the blocks holding tiles of strip J
 *    (each adds its column sums of J once, when it leaves J, counting one
 *    contribution for every row block those ux columns overlap). */
SYMV_FX_FN long symv_fx_expected(long rb, long nb, long ns, int ux, long T, long G)
{
  long c = symv_pipe_strips_of(rb, ns, ux);
  const long first = rb * 64 / ux, last = (rb * 64 + 63) / ux;
  for (long J = first; J <= last && J < ns; J++) {
    /* strip J's tiles: rows symv_pipe_first_block(J, ux) .. nb-1, numbered
     * from symv_pipe_tiles_before(J, nb, ux); contiguous shares, each block
     * non-empty: the blocks of its first through its last tile */
    const long t0 = symv_pipe_tiles_before(J, nb, ux);
    const long t1 = t0 + nb - symv_pipe_first_block(J, ux) - 1;
    c += symv_pipe_block_of(t1, G, T) - symv_pipe_block_of(t0, G, T) + 1;
  }
  return c;
}

#endif
