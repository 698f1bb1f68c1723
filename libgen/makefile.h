/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * makefile.h - the generated library's Makefile, DIR/Makefile, with which
 * a site rebuilds and installs the library it got from `symvtune build`
 * without symvtune: `make -C DIR && make -C DIR install`.
 *
 * Its variables: NVCC (default: the nvcc the build ran), NVCC_CFLAGS (the
 * flags of every unit, all C, the kernels' CUBINs among them as data;
 * default: the build's), LDFLAGS (default: the RUNPATH of
 * the CUDA library folder, as the build linked), LDLIBS, CCBIN (passed as
 * -ccbin to every nvcc run when set), PREFIX (default /usr/local), DESTDIR
 * (prepended to every installed name, for staging), RPATH (1: the
 * installed .pc keeps its rpath variable, -Wl,-rpath,${libdir}; else, the
 * default, it is emptied: programs get no RUNPATH from it) and
 * CUDA_VERSION (the installed .pc's cudaversion, MAJOR.MINOR of the
 * toolkit's modules cublas-V and cudart-V it requires; default: the
 * build's toolkit's, empty if not known).
 *
 * Targets: all (the default) compiles every unit under src/ again into
 * obj/ with the commands the build ran, these variables in place of the
 * build's flags, and links lib/libsymv.so.X.Y.Z and its two links;
 * install copies the library and its links, include/symv.h, the pkg-config
 * file (rpath as RPATH says, cudaversion CUDA_VERSION), the CMake package (both relocatable: paths
 * found from their own folders) and share/symv (wisdom
 * files) if there is one into $(DESTDIR)$(PREFIX)/{lib, include,
 * lib/pkgconfig, lib/cmake/symv, share/symv}, creating those folders and
 * writing no other file.
 */
#ifndef SYMV_LIBGEN_MAKEFILE_H
#define SYMV_LIBGEN_MAKEFILE_H

#include "plan.h"

/* libgen_write_makefile: writes dir/Makefile for the plan's library,
 * compiled with nvcc (an absolute, shell-safe name) and cuda_lib (the
 * library's RUNPATH, or NULL: none); cuda_version (MAJOR.MINOR, or NULL:
 * not known) is CUDA_VERSION's default. Every path in it is relative to its
 * own folder, so that DIR may be moved. 0, or -1 with the error printed
 * (libgen_write_text). */
int libgen_write_makefile(const libgen_plan *pl, const char *dir, const char *nvcc, const char *cuda_lib,
                          const char *cuda_version);

#endif
