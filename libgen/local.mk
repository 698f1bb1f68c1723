# SPDX-License-Identifier: BSD-3-Clause
# libgen: the library generator of `symvtune build`: reads and validates a
# database's rules into a plan, writes the generated library's sources and
# packaging, compiles the kernels with NVRTC as the sweep does and the rest
# with nvcc, and puts the result in place. Plain C; needs no GPU. It writes out the kernel sources (gpu's
# kernel_sources.c) and the library's runtime, embedded in lib_sources.c,
# which lib/local.mk makes and adds to this library.
noinst_LIBRARIES += libgen/liblibgen.a
libgen_liblibgen_a_SOURCES = \
	libgen/generate.c libgen/generate.h \
	libgen/plan.c libgen/plan.h \
	libgen/codegen.c libgen/codegen.h \
	libgen/cubin.c libgen/cubin.h \
	libgen/package.c libgen/package.h \
	libgen/nvcc.c libgen/nvcc.h \
	libgen/makefile.c libgen/makefile.h \
	libgen/jobs.c libgen/jobs.h \
	libgen/text.c libgen/text.h
