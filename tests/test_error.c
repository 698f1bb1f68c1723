/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the status-code table (core/symv_error.h). */
#include <criterion/criterion.h>
#include <string.h>
#include "symv_error.h"

Test(error, every_code_has_a_distinct_message)
{
  for (int a = 0; a < SYMV_ERR_COUNT_; a++) {
    cr_assert_neq(strcmp(symv_strerror(-a), "unknown error"), 0, "code %d", -a);
    for (int b = a + 1; b < SYMV_ERR_COUNT_; b++)
      cr_assert_neq(strcmp(symv_strerror(-a), symv_strerror(-b)), 0,
                    "codes %d and %d share a message", -a, -b);
  }
}

Test(error, out_of_range_codes_are_unknown)
{
  cr_assert_str_eq(symv_strerror(1), "unknown error");
  cr_assert_str_eq(symv_strerror(-SYMV_ERR_COUNT_), "unknown error");
  cr_assert_str_eq(symv_errname(SYMV_INVALID_VALUE), "INVALID_VALUE");
}
