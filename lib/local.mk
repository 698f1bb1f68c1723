# SPDX-License-Identifier: BSD-3-Clause
# lib: the generated library libsymv. Its runtime sources are embedded in
# symvtune (like the kernels, kernels/local.mk) so that `symvtune build`
# writes and compiles it from the program alone, installed or not. The
# runtime depends on core and gpu only.
LIBSYMV_RUNTIME_FILES = lib/libsymv.c lib/symv.h lib/libsymv_table.h lib/source.h lib/source_table.c \
	lib/source_wisdom.c gpu/gpu.c gpu/gpu.h gpu/compile.h \
	core/params.c core/params.h core/routine.c core/routine.h core/symv_error.c core/symv_error.h \
	lib/wisdom.c lib/wisdom.h lib/identity.c lib/identity.h gpu/compile.c gpu/kernel_sources.h core/util.c \
	core/util.h
LIBSYMV_RUNTIME_PATHS = $(top_srcdir)/lib/libsymv.c $(top_srcdir)/lib/symv.h $(top_srcdir)/lib/libsymv_table.h \
	$(top_srcdir)/lib/source.h $(top_srcdir)/lib/source_table.c $(top_srcdir)/lib/source_wisdom.c \
	$(top_srcdir)/gpu/gpu.c $(top_srcdir)/gpu/gpu.h $(top_srcdir)/gpu/compile.h $(top_srcdir)/core/params.c \
	$(top_srcdir)/core/params.h $(top_srcdir)/core/routine.c $(top_srcdir)/core/routine.h \
	$(top_srcdir)/core/symv_error.c $(top_srcdir)/core/symv_error.h \
	$(top_srcdir)/lib/wisdom.c $(top_srcdir)/lib/wisdom.h $(top_srcdir)/lib/identity.c $(top_srcdir)/lib/identity.h \
	$(top_srcdir)/gpu/compile.c $(top_srcdir)/gpu/kernel_sources.h $(top_srcdir)/core/util.c $(top_srcdir)/core/util.h
EXTRA_DIST += lib/libsymv.c lib/symv.h lib/libsymv_table.h lib/source.h lib/source_table.c lib/source_wisdom.c

lib/lib_sources.c: $(LIBSYMV_RUNTIME_FILES) $(top_srcdir)/scripts/embed-sources
	$(AM_V_GEN)$(top_srcdir)/scripts/embed-sources --array symv_lib_sources --count symv_lib_nsources \
		--header lib_sources.h $@ $(LIBSYMV_RUNTIME_PATHS)
BUILT_SOURCES += lib/lib_sources.c
CLEANFILES += lib/lib_sources.c

# the embedded runtime and the dispatch table's declarations: for the generator
# that writes them out (libgen/local.mk)
libgen_liblibgen_a_SOURCES += lib/lib_sources.h lib/libsymv_table.h
nodist_libgen_liblibgen_a_SOURCES = lib/lib_sources.c
# wisdom files (lib/wisdom.h): read by the --wisdom library, written by `symvtune export`;
# the rules id (lib/identity.h, which hashes with wisdom.h's FNV-1a): computed by the
# generator and by the --wisdom library. In liblibgen, which links after libcli.
libgen_liblibgen_a_SOURCES += lib/wisdom.c lib/wisdom.h lib/identity.c lib/identity.h
