# SPDX-License-Identifier: BSD-3-Clause
# sieve: plain C, no CUDA. Champion ranking of the candidates measured at a
# few sizes (doc/method.md section 4 steps 3-4).
noinst_LIBRARIES += sieve/libsieve.a
sieve_libsieve_a_SOURCES = sieve/sieve.c sieve/sieve.h

CRITERION_TESTS += tests/test_sieve

tests_test_sieve_SOURCES = tests/test_sieve.c
tests_test_sieve_CFLAGS = $(TEST_CFLAGS)
tests_test_sieve_LDADD = $(TEST_CORE_LIBS)
