# SPDX-License-Identifier: BSD-3-Clause
# db: the results database (SQLite). Plain C, no CUDA: builds and tests on a
# machine without a GPU.
noinst_LIBRARIES += db/libdb.a
db_libdb_a_SOURCES = \
	db/db.h db/db_internal.h \
	db/query.c db/schema.c db/open.c db/device.c \
	db/candidates.c db/timings.c db/sweep.c \
	db/fit.c db/validation.c db/bench.c

CRITERION_TESTS += tests/test_db
tests_test_db_SOURCES = tests/test_db.c tests/test_util.c tests/test_util.h
tests_test_db_CFLAGS = $(TEST_CFLAGS)
# The migration tests migrate copies of the shipped version 3 sweeps.
tests_test_db_CPPFLAGS = $(AM_CPPFLAGS) -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
EXTRA_DIST += tests/data/schema3-dsymv-h100.db.xz
tests_test_db_LDADD = $(TEST_CORE_LIBS)
