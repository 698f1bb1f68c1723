# SPDX-License-Identifier: BSD-3-Clause
# Criterion tests. Tests that need a GPU skip themselves (cr_skip) when
# there is none. Modules with their own tests register them in their own
# local.mk the same way.
#
# A test program tests/test_X is built from tests/test_X.c (automake's
# default source, where it names no _SOURCES) and links LDADD: the tests'
# helpers (tests/libtestutil.a: test_util.c) and the stages' libraries.
# automake takes compile flags per program only, so each program names
# TEST_CPPFLAGS in a tests_test_X_CPPFLAGS of its own: Criterion's flags and
# the paths of the shipped databases, the source tree, the program under
# test, nvcc and CUDA. TEST_CFLAGS and TEST_CORE_LIBS serve the tests that
# name their own _CFLAGS and _LDADD (db's, dspline's, sieve's).
TEST_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
TEST_CORE_LIBS = $(SYMV_LIBS) $(SYMV_EXT_LIBS) $(CRITERION_LIBS)
TEST_CPPFLAGS = $(AM_CPPFLAGS) $(CRITERION_CFLAGS) -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"' \
	-DSYMV_TEST_SRCDIR='"$(abs_top_srcdir)"' -DSYMVTUNE_BIN='"$(abs_top_builddir)/src/symvtune"' \
	-DSYMV_TEST_NVCC='"$(NVCC)"' -DSYMV_TEST_CUDA_HOME='"$(CUDA_HOME)"'
LDADD = tests/libtestutil.a $(TEST_CORE_LIBS)
if HAVE_CRITERION
check_LIBRARIES = tests/libtestutil.a
endif
tests_libtestutil_a_SOURCES = tests/test_util.c
tests_libtestutil_a_CPPFLAGS = $(TEST_CPPFLAGS)
EXTRA_DIST += tests/test_util.h tests/test_device.h

CRITERION_TESTS += tests/test_error tests/test_util_core tests/test_params tests/test_reference tests/test_compile \
	tests/test_kernels
tests_test_error_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_util_core_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_params_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_reference_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_compile_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_kernels_CPPFLAGS = $(TEST_CPPFLAGS)
AM_TESTS_ENVIRONMENT = CRITERION_VERBOSITY_LEVEL=1; export CRITERION_VERBOSITY_LEVEL;

CRITERION_TESTS += tests/test_space tests/test_sweep
tests_test_space_CPPFLAGS = $(TEST_CPPFLAGS)

# symvtune restamp and the kernel sources of a folder (gpu/compile.h): NVRTC, no GPU.
CRITERION_TESTS += tests/test_restamp
tests_test_restamp_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_sweep_CPPFLAGS = $(TEST_CPPFLAGS)

# The exact fixed-point sums of the pipe_fx kernels (kernels/symv_fx.h) and
# their contribution counts, on the host: no GPU.
CRITERION_TESTS += tests/test_fx
tests_test_fx_CPPFLAGS = $(TEST_CPPFLAGS)

# The generated library (lib/local.mk): `symvtune build` and libsymv itself.
# They build a library with nvcc (once per test binary for test_libsymv);
# GPU tests skip themselves without a GPU.
CRITERION_TESTS += tests/test_build tests/test_libsymv
EXTRA_DIST += tests/libsymv_fixture.h tests/cublas_standin.c tests/data/sweep6-h100.db.xz tests/data/sweep6-h200.db.xz
tests_test_build_SOURCES = tests/test_build.c tests/test_commands.c
tests_test_build_CPPFLAGS = $(TEST_CPPFLAGS)
tests_test_libsymv_CPPFLAGS = $(TEST_CPPFLAGS)
# -rdynamic: the library the test loads binds to the test's counting cudaMalloc/cudaFree
tests_test_libsymv_LDFLAGS = -rdynamic

# The fit stage (fit/fit.c) and `symvtune rank`, `fit`, `rules`, `plot`: no
# GPU. The commands run in the test's process; the program runs once, to see
# that it lists them, so it is built first.
CRITERION_TESTS += tests/test_fit
tests_test_fit_CPPFLAGS = $(TEST_CPPFLAGS)
EXTRA_tests_test_fit_DEPENDENCIES = src/symvtune$(EXEEXT)

# A seeded mutation fuzzer of every database reader (tests/test_fuzz.c): a
# few seconds of damaged copies of the shipped databases.
CRITERION_TESTS += tests/test_fuzz
tests_test_fuzz_SOURCES = tests/test_fuzz.c tests/test_commands.c
tests_test_fuzz_CPPFLAGS = $(TEST_CPPFLAGS)

# The generated library as people install and link it (tests/test_install.c):
# its tree, programs built with pkg-config and with CMake, a moved tree,
# SYMV_LOG and symvGetInfo. Builds one library (nvcc) per run; no GPU.
CRITERION_TESTS += tests/test_install
tests_test_install_CPPFLAGS = $(TEST_CPPFLAGS)

# A stand-in for `symvtune worker` without a GPU (SYMVTUNE_WORKER): the
# scheduler of sweep (one worker per GPU, restarts), --shard and merge are
# tested with it in tests/test_shard.c. It links nothing of symvtune.
check_PROGRAMS += tests/fake_worker tests/test_shard
TESTS += tests/test_shard
tests_fake_worker_LDADD =
tests_test_shard_CPPFLAGS = $(TEST_CPPFLAGS)

# `symvtune doctor` (tests/test_doctor.c): programs linked to a library
# built once per run (nvcc; no GPU) the right way and two wrong ways, judged
# from their real bindings; the parsers of the log and the bindings; the
# documents of rank --json and bench --json (read with jq). Its GPU tests
# (bench --json --db, a program that really calls) skip without a GPU.
CRITERION_TESTS += tests/test_doctor
tests_test_doctor_CPPFLAGS = $(TEST_CPPFLAGS)
EXTRA_tests_test_doctor_DEPENDENCIES = src/symvtune$(EXEEXT)
# Wisdom files (lib/wisdom.c, compiled in from the source libsymv compiles),
# `symvtune export` and the --wisdom library without a GPU (tests/test_wisdom.c).
CRITERION_TESTS += tests/test_wisdom
tests_test_wisdom_SOURCES = tests/test_wisdom.c lib/wisdom.c
tests_test_wisdom_CPPFLAGS = $(TEST_CPPFLAGS)
# The floor family (gpu/floor.h): shapes, bytes, checksum, NVRTC without a
# GPU; every shape's checksum and the floor's timing on one.
CRITERION_TESTS += tests/test_floor
tests_test_floor_CPPFLAGS = $(TEST_CPPFLAGS)
# The adaptive dense stage's planner (measure/adaptive.h) on synthetic curves
# and on the dense samples of the shipped databases: no GPU.
CRITERION_TESTS += tests/test_adaptive
tests_test_adaptive_CPPFLAGS = $(TEST_CPPFLAGS)
# What the commands print for programs and the files they write when
# --routine names several routines (tests/test_cli.c): one JSON document of
# rules, rank and bench --json, one figure per routine; rules and rank on
# the shipped H100 sweep after fit, in the test's process. No GPU.
CRITERION_TESTS += tests/test_cli
tests_test_cli_CPPFLAGS = $(TEST_CPPFLAGS)

# Golden outputs of the stages that need no GPU on the shipped databases
# (tests/golden/make-outputs, recorded under tests/golden/GPU/).
CRITERION_TESTS += tests/test_golden
tests_test_golden_CPPFLAGS = $(TEST_CPPFLAGS)
EXTRA_tests_test_golden_DEPENDENCIES = src/symvtune$(EXEEXT)
EXTRA_DIST += tests/golden

CRITERION_TESTS += tests/test_shipped
tests_test_shipped_SOURCES = tests/test_shipped.c tests/test_device.h tests/test_util.c tests/test_util.h
tests_test_shipped_CFLAGS = $(TEST_CFLAGS)
tests_test_shipped_CPPFLAGS = $(AM_CPPFLAGS) -DSYMV_TEST_DATA='"$(abs_top_srcdir)/tests/data"' -DSYMV_TEST_SRCDIR='"$(abs_top_srcdir)"'
tests_test_shipped_LDADD = $(TEST_CORE_LIBS)
EXTRA_tests_test_shipped_DEPENDENCIES = src/symvtune$(EXEEXT)
# the fixture's database, made by the tests (tests/libsymv_fixture.h)
CLEANFILES += tests/fixture-dsymv-h200.db

# configure's --with-blas (tests/test_configure.c): runs configure twice in
# a temporary folder, with the BLAS flags this tree was configured with, and
# once with the arguments of the Spack recipe (contrib/spack/package.py),
# which tests/spack_recipe.py loads with stand-ins for Spack.
CRITERION_TESTS += tests/test_configure
EXTRA_DIST += tests/spack_recipe.py
tests_test_configure_CPPFLAGS = $(TEST_CPPFLAGS) -DSYMV_TEST_BLAS_LIBS='"$(BLAS_LIBS)"' \
	-DSYMV_TEST_BLAS_CFLAGS='"$(BLAS_CFLAGS)"'
