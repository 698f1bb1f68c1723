# Criterion tests. Tests that need a GPU skip themselves (cr_skip) when
# there is none. Modules with their own tests register them in their own
# local.mk the same way.
TEST_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
TEST_CORE_LIBS = src/libsymvcore.a $(CUDA_LDFLAGS) $(CUDA_LIBS) $(OPENBLAS_LIBS) $(SQLITE_LIBS) $(LAPACKE_LIBS) $(CRITERION_LIBS) -lm -lpthread

CORE_TESTS = tests/test_error tests/test_params tests/test_reference tests/test_compile tests/test_kernels
check_PROGRAMS += $(CORE_TESTS)
TESTS += $(CORE_TESTS)

tests_test_error_SOURCES = tests/test_error.c
tests_test_error_CFLAGS = $(TEST_CFLAGS)
tests_test_error_LDADD = $(TEST_CORE_LIBS)

tests_test_params_SOURCES = tests/test_params.c
tests_test_params_CFLAGS = $(TEST_CFLAGS)
tests_test_params_LDADD = $(TEST_CORE_LIBS)

tests_test_reference_SOURCES = tests/test_reference.c
tests_test_reference_CFLAGS = $(TEST_CFLAGS)
tests_test_reference_LDADD = $(TEST_CORE_LIBS)

tests_test_compile_SOURCES = tests/test_compile.c
tests_test_compile_CFLAGS = $(TEST_CFLAGS)
tests_test_compile_LDADD = $(TEST_CORE_LIBS)

tests_test_kernels_SOURCES = tests/test_kernels.c
tests_test_kernels_CFLAGS = $(TEST_CFLAGS)
tests_test_kernels_LDADD = $(TEST_CORE_LIBS)
AM_TESTS_ENVIRONMENT = CRITERION_VERBOSITY_LEVEL=1; export CRITERION_VERBOSITY_LEVEL;

check_PROGRAMS += tests/test_space
TESTS += tests/test_space
tests_test_space_SOURCES = tests/test_space.c tests/test_util.c tests/test_util.h
tests_test_space_CFLAGS = $(TEST_CFLAGS)
tests_test_space_LDADD = $(TEST_CORE_LIBS)

check_PROGRAMS += tests/test_sweep
TESTS += tests/test_sweep
tests_test_sweep_SOURCES = tests/test_sweep.c tests/test_util.c tests/test_util.h
tests_test_sweep_CFLAGS = $(TEST_CFLAGS)
tests_test_sweep_LDADD = db/libdb.a $(TEST_CORE_LIBS)
