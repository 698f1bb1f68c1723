# src: the CLI and the GPU-facing code (device limits, compile, launch, time,
# verify). libsymvcore.a holds everything but main() so tests can link it.
noinst_LIBRARIES += src/libsymvcore.a
src_libsymvcore_a_SOURCES = \
	src/symv_error.c src/symv_error.h \
	src/params.c src/params.h \
	src/compile.c src/compile.h src/kernel_sources.h \
	src/gpu.c src/gpu.h \
	src/reference.c src/reference.h \
	src/timing.c src/timing.h \
	src/cli.c src/cli.h \
	src/progress.c src/progress.h \
	src/space.c src/space.h \
	src/sweep.c src/sweep.h src/worker.h \
	src/cmd_devices.c src/cmd_check.c src/cmd_time.c src/cmd_worker.c src/cmd_sweep.c
nodist_src_libsymvcore_a_SOURCES = src/kernel_sources.c

bin_PROGRAMS += src/symvtune
src_symvtune_SOURCES = src/main.c
src_symvtune_LDADD = src/libsymvcore.a sieve/libsieve.a dspline/libdspline.a db/libdb.a \
	$(CUDA_LDFLAGS) $(CUDA_LIBS) $(OPENBLAS_LIBS) $(LAPACKE_LIBS) $(SQLITE_LIBS) -lm -lpthread

# The fit stage and the subcommands that read its results (no GPU).
src_libsymvcore_a_SOURCES += src/fit.c src/fit.h src/cmd_rank.c src/cmd_fit.c src/cmd_rules.c src/cmd_plot.c
