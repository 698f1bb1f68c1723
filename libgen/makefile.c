/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * makefile.c - writes the generated library's Makefile (makefile.h), with
 * the flags of nvcc.h's compile and link.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "makefile.h"
#include "generate.h"
#include "nvcc.h"
#include "text.h"

/* The recipe prefix of every nvcc run: the compiler and -ccbin if set. */
#define RUN_NVCC "\t$(NVCC) $(ccbin) "

int libgen_write_makefile(const libgen_plan *pl, const char *dir, const char *nvcc, const char *cuda_lib,
                          const char *cuda_version)
{
  libgen_sbuf b = {0};
  char base[64], src[PATH_MAX], path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/Makefile", dir);
  libgen_sb_printf(&b, "# " LIBGEN_GENERATED "symvtune build\n# " LIBGEN_SPDX "\n");
  libgen_sb_printf(&b, "# Rebuilds libsymv " LIBGEN_VERSION " from src/ (make, or make all) and installs it\n"
                       "# (make install PREFIX=... DESTDIR=...). Paths are relative to this folder: make -C DIR.\n");
  libgen_sb_printf(&b, "NVCC = %s\nNVCC_CFLAGS = " LIBGEN_C_FLAGS "\n", nvcc);
  libgen_sb_printf(&b, "LDFLAGS =%s%s\nLDLIBS = %s\nCCBIN =\nPREFIX = /usr/local\nDESTDIR =\nRPATH =\n",
                   cuda_lib ? " -Xlinker -rpath=" : "", cuda_lib ? cuda_lib : "", LIBGEN_LIBS(pl));
  libgen_sb_printf(&b, "CUDA_VERSION =%s%s\n", cuda_version ? " " : "", cuda_version ? cuda_version : "");
  libgen_sb_printf(&b, "ccbin = $(if $(CCBIN),-ccbin $(CCBIN))\n"
                       "# the installed .pc: its rpath variable emptied unless RPATH=1, its cudaversion CUDA_VERSION\n"
                       "pc_rpath = $(if $(filter 1,$(RPATH)),,s|^rpath=.*|rpath=|)\n"
                       "pc_cuda = $(if $(CUDA_VERSION),s|^cudaversion=.*|cudaversion=$(CUDA_VERSION)|)\n\nOBJS =");
  for (int i = 0; i < pl->nkernels; i++) libgen_sb_printf(&b, " \\\n  obj/%s.o", pl->kernels[i].name);
  for (int i = 0; i < libgen_c_units(pl); i++) {
    libgen_c_unit(pl, i, base, sizeof base, src, sizeof src);
    libgen_sb_printf(&b, " \\\n  obj/%s.o", base);
  }
  libgen_sb_printf(&b, "\n\n.PHONY: all install FORCE\nall: lib/" LIBGEN_REALNAME "\n\n"
                       "# every object is compiled again on each make: the flags may have changed\n");
  for (int i = 0; i < pl->nkernels; i++) /* the CUBINs NVRTC made, as C */
    libgen_sb_printf(&b, "obj/%s.o: src/%s.c FORCE\n" RUN_NVCC "$(NVCC_CFLAGS) -c src/%s.c -o $@\n",
                     pl->kernels[i].name, pl->kernels[i].name, pl->kernels[i].name);
  for (int i = 0; i < libgen_c_units(pl); i++) {
    libgen_c_unit(pl, i, base, sizeof base, src, sizeof src);
    libgen_sb_printf(&b, "obj/%s.o: %s FORCE\n" RUN_NVCC "$(NVCC_CFLAGS) -Isrc/runtime -c %s -o $@\n", base, src, src);
  }
  libgen_sb_printf(&b, "\nlib/" LIBGEN_REALNAME ": $(OBJS)\n" RUN_NVCC LIBGEN_LINK_FLAGS
                       " -o lib/libsymv.so.tmp $(OBJS) $(LDFLAGS) $(LDLIBS)\n"
                       "\tmv -f lib/libsymv.so.tmp $@\n"
                       "\tln -sf " LIBGEN_REALNAME " lib/" LIBGEN_SONAME "\n"
                       "\tln -sf " LIBGEN_SONAME " lib/libsymv.so\n\n");
  libgen_sb_printf(&b, "# writes only the library's own files under $(DESTDIR)$(PREFIX); the .pc and the CMake\n"
                       "# package find PREFIX from their own folders; it installs the library as built (run make\n"
                       "# first to rebuild it) and compiles nothing\n"
                       "dest = $(DESTDIR)$(PREFIX)\n"
                       "install:\n"
                       "\tinstall -d \"$(dest)/lib\" \"$(dest)/include\" \"$(dest)/lib/pkgconfig\" "
                       "\"$(dest)/lib/cmake/symv\"\n"
                       "\tinstall -m 755 lib/" LIBGEN_REALNAME " \"$(dest)/lib/" LIBGEN_REALNAME "\"\n"
                       "\tln -sf " LIBGEN_REALNAME " \"$(dest)/lib/" LIBGEN_SONAME "\"\n"
                       "\tln -sf " LIBGEN_SONAME " \"$(dest)/lib/libsymv.so\"\n"
                       "\tinstall -m 644 include/symv.h \"$(dest)/include/symv.h\"\n"
                       "\tsed -e '$(pc_rpath)' -e '$(pc_cuda)' lib/pkgconfig/libsymv.pc "
                       ">\"$(dest)/lib/pkgconfig/libsymv.pc\"\n"
                       "\tchmod 644 \"$(dest)/lib/pkgconfig/libsymv.pc\"\n"
                       "\tinstall -m 644 lib/cmake/symv/symvConfig.cmake lib/cmake/symv/symvConfigVersion.cmake "
                       "\"$(dest)/lib/cmake/symv\"\n"
                       "\tif [ -d share/symv ]; then install -d \"$(dest)/share/symv\" && "
                       "find share/symv -maxdepth 1 -type f -exec install -m 644 {} \"$(dest)/share/symv\" \\; ; fi\n");
  int rc = b.failed ? -1 : libgen_write_text(path, b.s);
  free(b.s);
  return rc;
}
