# lib: the generated library libsymv. Its runtime sources are embedded in
# symvtune (like the kernels, kernels/local.mk) so that `symvtune build`
# writes and compiles it from the program alone, installed or not; the
# subcommands that build, time and tune it live in src/ with the others.
LIBSYMV_RUNTIME_FILES = src/libsymv.c src/symv.h src/libsymv_table.h src/gpu.c src/gpu.h src/compile.h \
	src/params.c src/params.h src/symv_error.c src/symv_error.h
LIBSYMV_RUNTIME_PATHS = $(top_srcdir)/src/libsymv.c $(top_srcdir)/src/symv.h $(top_srcdir)/src/libsymv_table.h \
	$(top_srcdir)/src/gpu.c $(top_srcdir)/src/gpu.h $(top_srcdir)/src/compile.h $(top_srcdir)/src/params.c \
	$(top_srcdir)/src/params.h $(top_srcdir)/src/symv_error.c $(top_srcdir)/src/symv_error.h
EXTRA_DIST += src/libsymv.c src/symv.h src/libsymv_table.h

src/lib_sources.c: $(LIBSYMV_RUNTIME_FILES) $(top_srcdir)/scripts/embed-sources
	$(AM_V_GEN)$(top_srcdir)/scripts/embed-sources --array symv_lib_sources --count symv_lib_nsources \
		--header lib_sources.h $@ $(LIBSYMV_RUNTIME_PATHS)
BUILT_SOURCES += src/lib_sources.c
CLEANFILES += src/lib_sources.c

src_libsymvcore_a_SOURCES += src/cmd_build.c src/cmd_bench.c src/cmd_tune.c src/lib_sources.h src/libsymv_table.h
nodist_src_libsymvcore_a_SOURCES += src/lib_sources.c
