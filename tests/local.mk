# Criterion tests. Tests that need a GPU skip themselves (cr_skip) when
# there is none. Modules with their own tests register them in their own
# local.mk the same way.
TEST_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
TEST_CORE_LIBS = src/libsymvcore.a $(CUDA_LDFLAGS) $(CUDA_LIBS) $(OPENBLAS_LIBS) $(SQLITE_LIBS) $(LAPACKE_LIBS) $(CRITERION_LIBS) -lm -lpthread

CORE_TESTS = tests/test_error
check_PROGRAMS += $(CORE_TESTS)
TESTS += $(CORE_TESTS)

tests_test_error_SOURCES = tests/test_error.c
tests_test_error_CFLAGS = $(TEST_CFLAGS)
tests_test_error_LDADD = $(TEST_CORE_LIBS)
