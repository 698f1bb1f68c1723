# SPDX-License-Identifier: BSD-3-Clause
# Criterion tests. Tests that need a GPU skip themselves (cr_skip) when
# there is none. Modules with their own tests register them in their own
# local.mk the same way.
TEST_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
TEST_CORE_LIBS = $(SYMV_LIBS) $(SYMV_EXT_LIBS) $(CRITERION_LIBS)

CORE_TESTS = tests/test_error tests/test_util_core tests/test_params tests/test_reference tests/test_compile tests/test_kernels
CRITERION_TESTS += $(CORE_TESTS)

tests_test_error_SOURCES = tests/test_error.c
tests_test_error_CFLAGS = $(TEST_CFLAGS)
tests_test_error_LDADD = $(TEST_CORE_LIBS)
tests_test_util_core_SOURCES = tests/test_util_core.c tests/test_util.c tests/test_util.h
tests_test_util_core_CFLAGS = $(TEST_CFLAGS)
tests_test_util_core_LDADD = $(TEST_CORE_LIBS)

tests_test_params_SOURCES = tests/test_params.c
tests_test_params_CFLAGS = $(TEST_CFLAGS)
tests_test_params_LDADD = $(TEST_CORE_LIBS)

tests_test_reference_SOURCES = tests/test_reference.c tests/test_util.c tests/test_util.h
tests_test_reference_CFLAGS = $(TEST_CFLAGS)
tests_test_reference_LDADD = $(TEST_CORE_LIBS)

tests_test_compile_SOURCES = tests/test_compile.c tests/test_util.c tests/test_util.h
tests_test_compile_CFLAGS = $(TEST_CFLAGS)
tests_test_compile_LDADD = $(TEST_CORE_LIBS)

tests_test_kernels_SOURCES = tests/test_kernels.c tests/test_util.c tests/test_util.h
tests_test_kernels_CFLAGS = $(TEST_CFLAGS)
tests_test_kernels_LDADD = $(TEST_CORE_LIBS)
AM_TESTS_ENVIRONMENT = CRITERION_VERBOSITY_LEVEL=1; export CRITERION_VERBOSITY_LEVEL;

CRITERION_TESTS += tests/test_space
tests_test_space_SOURCES = tests/test_space.c tests/test_device.h tests/test_util.c tests/test_util.h
tests_test_space_CFLAGS = $(TEST_CFLAGS)
tests_test_space_LDADD = $(TEST_CORE_LIBS)

CRITERION_TESTS += tests/test_sweep
tests_test_sweep_SOURCES = tests/test_sweep.c tests/test_util.c tests/test_util.h
tests_test_sweep_CFLAGS = $(TEST_CFLAGS)
tests_test_sweep_LDADD = $(TEST_CORE_LIBS)

# The generated library (lib/local.mk): `symvtune build` and libsymv itself.
# They build a library with nvcc (once per test binary for test_libsymv);
# GPU tests skip themselves without a GPU.
LIBSYMV_TEST_DEFS = -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"' -DSYMV_TEST_SRCDIR='"$(abs_top_srcdir)"' \
	-DSYMV_TEST_NVCC='"$(NVCC)"' -DSYMV_TEST_CUDA_HOME='"$(CUDA_HOME)"'
CRITERION_TESTS += tests/test_build tests/test_libsymv
EXTRA_DIST += tests/libsymv_fixture.h tests/cublas_standin.c tests/data/sweep-h200.db tests/data/sweep-h100.db tests/data/sweep6-h100.db.xz tests/data/sweep6-h200.db.xz

tests_test_build_SOURCES = tests/test_build.c tests/libsymv_fixture.h tests/test_util.c tests/test_util.h
tests_test_build_CFLAGS = $(TEST_CFLAGS)
tests_test_build_CPPFLAGS = $(AM_CPPFLAGS) $(LIBSYMV_TEST_DEFS)
tests_test_build_LDADD = $(TEST_CORE_LIBS)

tests_test_libsymv_SOURCES = tests/test_libsymv.c tests/libsymv_fixture.h tests/test_util.c tests/test_util.h
tests_test_libsymv_CFLAGS = $(TEST_CFLAGS)
tests_test_libsymv_CPPFLAGS = $(AM_CPPFLAGS) $(LIBSYMV_TEST_DEFS)
tests_test_libsymv_LDADD = $(TEST_CORE_LIBS)
# -rdynamic: the library the test loads binds to the test's counting cudaMalloc/cudaFree
tests_test_libsymv_LDFLAGS = -rdynamic

# The fit stage (fit/fit.c) and `symvtune rank`, `fit`, `rules`, `plot`: no
# GPU. The commands run in the test's process; the program runs once, to see
# that it lists them, so it is built first.
CRITERION_TESTS += tests/test_fit
tests_test_fit_SOURCES = tests/test_fit.c tests/test_util.c tests/test_util.h
tests_test_fit_CFLAGS = $(TEST_CFLAGS)
tests_test_fit_CPPFLAGS = $(AM_CPPFLAGS) -DSYMVTUNE_BIN='"$(abs_top_builddir)/src/symvtune"' -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
tests_test_fit_LDADD = $(TEST_CORE_LIBS)
EXTRA_tests_test_fit_DEPENDENCIES = src/symvtune$(EXEEXT)

# A seeded mutation fuzzer of every database reader (tests/test_fuzz.c): a
# few seconds of damaged copies of the shipped databases.
CRITERION_TESTS += tests/test_fuzz
tests_test_fuzz_SOURCES = tests/test_fuzz.c tests/test_util.c tests/test_util.h
tests_test_fuzz_CFLAGS = $(TEST_CFLAGS)
tests_test_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
tests_test_fuzz_LDADD = $(TEST_CORE_LIBS)

# The generated library as people install and link it (tests/test_install.c):
# its tree, programs built with pkg-config and with CMake, a moved tree,
# SYMV_LOG and symvGetInfo. Builds one library (nvcc) per run; no GPU.
CRITERION_TESTS += tests/test_install
tests_test_install_SOURCES = tests/test_install.c tests/libsymv_fixture.h tests/test_util.c tests/test_util.h
tests_test_install_CFLAGS = $(TEST_CFLAGS)
tests_test_install_CPPFLAGS = $(AM_CPPFLAGS) $(LIBSYMV_TEST_DEFS)
tests_test_install_LDADD = $(TEST_CORE_LIBS)

# A stand-in for `symvtune worker` without a GPU (SYMVTUNE_WORKER): the
# scheduler of sweep (one worker per GPU, restarts), --shard and merge are
# tested with it in tests/test_shard.c.
check_PROGRAMS += tests/fake_worker tests/test_shard
TESTS += tests/test_shard
tests_fake_worker_SOURCES = tests/fake_worker.c
tests_test_shard_SOURCES = tests/test_shard.c tests/test_device.h tests/test_util.c tests/test_util.h
tests_test_shard_CFLAGS = $(TEST_CFLAGS)
tests_test_shard_CPPFLAGS = $(AM_CPPFLAGS) -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
tests_test_shard_LDADD = $(TEST_CORE_LIBS)

# `symvtune doctor` (tests/test_doctor.c): programs linked to a library
# built once per run (nvcc; no GPU) the right way and two wrong ways, judged
# from their real bindings; the parsers of the log and the bindings; the
# documents of rank --json and bench --json (read with jq). Its GPU tests
# (bench --json --db, a program that really calls) skip without a GPU.
CRITERION_TESTS += tests/test_doctor
tests_test_doctor_SOURCES = tests/test_doctor.c tests/libsymv_fixture.h tests/test_util.c tests/test_util.h
tests_test_doctor_CFLAGS = $(TEST_CFLAGS)
tests_test_doctor_CPPFLAGS = $(AM_CPPFLAGS) $(LIBSYMV_TEST_DEFS)
tests_test_doctor_LDADD = $(TEST_CORE_LIBS)
EXTRA_tests_test_doctor_DEPENDENCIES = src/symvtune$(EXEEXT)
# Wisdom files (lib/wisdom.c, compiled in from the source libsymv compiles),
# `symvtune export` and the --wisdom library without a GPU (tests/test_wisdom.c).
CRITERION_TESTS += tests/test_wisdom
tests_test_wisdom_SOURCES = tests/test_wisdom.c tests/libsymv_fixture.h tests/test_util.c tests/test_util.h lib/wisdom.c
tests_test_wisdom_CFLAGS = $(TEST_CFLAGS)
tests_test_wisdom_CPPFLAGS = $(AM_CPPFLAGS) $(LIBSYMV_TEST_DEFS)
tests_test_wisdom_LDADD = $(TEST_CORE_LIBS)
# The floor family (gpu/floor.h): shapes, bytes, checksum, NVRTC without a
# GPU; every shape's checksum and the floor's timing on one.
CRITERION_TESTS += tests/test_floor
tests_test_floor_SOURCES = tests/test_floor.c tests/test_device.h tests/test_util.c tests/test_util.h
tests_test_floor_CFLAGS = $(TEST_CFLAGS)
tests_test_floor_LDADD = $(TEST_CORE_LIBS)
# The adaptive dense stage's planner (measure/adaptive.h) on synthetic curves
# and on the dense samples of the shipped databases: no GPU.
CRITERION_TESTS += tests/test_adaptive
tests_test_adaptive_SOURCES = tests/test_adaptive.c tests/test_util.c tests/test_util.h
tests_test_adaptive_CFLAGS = $(TEST_CFLAGS)
tests_test_adaptive_CPPFLAGS = $(AM_CPPFLAGS) -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
tests_test_adaptive_LDADD = $(TEST_CORE_LIBS)
# What the commands print for programs and the files they write when
# --routine names several routines (tests/test_cli.c): one JSON document of
# rules, rank and bench --json, one figure per routine; rules and rank on
# the shipped H100 sweep after fit, in the test's process. No GPU.
CRITERION_TESTS += tests/test_cli
tests_test_cli_SOURCES = tests/test_cli.c tests/test_util.c tests/test_util.h
tests_test_cli_CFLAGS = $(TEST_CFLAGS)
tests_test_cli_CPPFLAGS = $(AM_CPPFLAGS) -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
tests_test_cli_LDADD = $(TEST_CORE_LIBS)

# Golden outputs of the stages that need no GPU on the shipped databases
# (tests/golden/make-outputs, recorded under tests/golden/GPU/).
CRITERION_TESTS += tests/test_golden
tests_test_golden_SOURCES = tests/test_golden.c tests/test_util.c tests/test_util.h
tests_test_golden_CFLAGS = $(TEST_CFLAGS)
tests_test_golden_CPPFLAGS = $(AM_CPPFLAGS) -DSYMV_TEST_SRCDIR='"$(abs_top_srcdir)"'
tests_test_golden_LDADD = $(TEST_CORE_LIBS)
EXTRA_tests_test_golden_DEPENDENCIES = src/symvtune$(EXEEXT)
EXTRA_DIST += tests/golden

CRITERION_TESTS += tests/test_shipped
tests_test_shipped_SOURCES = tests/test_shipped.c tests/test_device.h tests/test_util.c tests/test_util.h
tests_test_shipped_CFLAGS = $(TEST_CFLAGS)
tests_test_shipped_CPPFLAGS = $(AM_CPPFLAGS) -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"'
tests_test_shipped_LDADD = $(TEST_CORE_LIBS)
EXTRA_tests_test_shipped_DEPENDENCIES = src/symvtune$(EXEEXT)
