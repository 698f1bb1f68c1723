/* SPDX-License-Identifier: BSD-3-Clause */
/* test_util_core.c - core/util.c's symv_median against counting on fresh random data. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include "test_util.h"
#include "util.h"

/* For random n and values (ties included), the median m has at most n/2
 * values strictly below it and at most n/2 strictly above it; for odd n it
 * is one of the values, for even n the mean of the two middle ones. */
Test(util, median_splits_the_values)
{
  const uint64_t seed = test_fresh_seed();
  uint64_t rng = seed;
  for (int trial = 0; trial < 200; trial++) {
    const size_t n = (size_t)test_rng_int(&rng, 1, 40);
    double v[40], w[40];
    for (size_t i = 0; i < n; i++) v[i] = w[i] = (test_rng_int(&rng, 0, 3) ? test_rng_unit(&rng) : 0.5) * 10.0;
    const double m = symv_median(w, n);
    size_t below = 0, above = 0, equal = 0;
    for (size_t i = 0; i < n; i++) below += v[i] < m, above += v[i] > m, equal += v[i] == m;
    cr_assert(2 * below <= n && 2 * above <= n, "seed %" PRIu64 ", n %zu: median %g, %zu below, %zu above", seed, n, m, below,
              above);
    if (n % 2) cr_assert(equal >= 1, "seed %" PRIu64 ", n %zu: median %g is not a value", seed, n, m);
    for (size_t i = 1; i < n; i++) cr_assert(w[i - 1] <= w[i], "seed %" PRIu64 ": not sorted", seed);
    if (n % 2 == 0) cr_assert(m == 0.5 * (w[n / 2 - 1] + w[n / 2]), "seed %" PRIu64 ", n %zu: even median", seed, n);
  }
}

Test(util, median_of_nothing_is_nan)
{
  double v[1] = {1.0};
  cr_assert(isnan(symv_median(v, 0)));
  cr_assert(symv_median(v, 1) == 1.0);
}
