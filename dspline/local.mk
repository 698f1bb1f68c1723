# SPDX-License-Identifier: BSD-3-Clause
# dspline: plain C, no CUDA. The d-spline fit (doc/method.md section 5) and the
# selection rules built from the fitted curves (section 4 step 7).
noinst_LIBRARIES += dspline/libdspline.a
dspline_libdspline_a_SOURCES = \
	dspline/dspline.c dspline/dspline.h \
	dspline/rules.c dspline/rules.h

CRITERION_TESTS += tests/test_dspline tests/test_rules

tests_test_dspline_SOURCES = tests/test_dspline.c tests/test_util.c tests/test_util.h
tests_test_dspline_CFLAGS = $(TEST_CFLAGS)
tests_test_dspline_LDADD = $(TEST_CORE_LIBS)

tests_test_rules_SOURCES = tests/test_rules.c tests/test_util.c tests/test_util.h
tests_test_rules_CFLAGS = $(TEST_CFLAGS)
tests_test_rules_LDADD = $(TEST_CORE_LIBS)
