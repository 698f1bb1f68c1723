# SPDX-License-Identifier: BSD-3-Clause
# db: the results database (SQLite). Plain C, no CUDA: builds and tests on a
# machine without a GPU.
noinst_LIBRARIES += db/libdb.a
db_libdb_a_SOURCES = db/db.c db/db.h

CRITERION_TESTS += tests/test_db
tests_test_db_SOURCES = tests/test_db.c tests/test_util.c tests/test_util.h
tests_test_db_CFLAGS = $(TEST_CFLAGS)
# The migration tests migrate copies of the shipped version 3 sweeps.
tests_test_db_CPPFLAGS = $(AM_CPPFLAGS) -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
EXTRA_DIST += tests/data/sweep-h100.db
tests_test_db_LDADD = $(TEST_CORE_LIBS)
