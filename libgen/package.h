/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * package.h - how the generated library is found and linked, and how it
 * takes DIR's place.
 *
 * Linking: DIR/lib/pkgconfig/libsymv.pc (pkg-config) and
 * DIR/lib/cmake/symv/symvConfig.cmake with symvConfigVersion.cmake
 * (find_package(symv), the imported target symv::symv), both relocatable
 * (every path found from the file's own folder), both keeping libsymv
 * against --as-needed and before cuBLAS, whose SYMV and HEMV entry points it
 * stands in for. Neither names a CUDA folder: pkg-config finds the
 * toolkit's own modules (cublas-V, cudart-V), CMake FindCUDAToolkit.
 *
 * Installing: nothing is written under DIR while the library is built: the
 * sources are written and compiled in a private folder under $TMPDIR or
 * /tmp whose name is safe for the shell nvcc runs its stages through
 * (symv_private_tmpdir), so that no folder name of the user's reaches a
 * shell. Once the library is linked, that folder is moved (renamed, or
 * copied across file systems, every write checked) to a fresh folder beside
 * DIR, whose files are flushed to disk (fsync), and which then takes DIR's
 * place in one rename. A build that fails, a write that fails (a full disk)
 * included, leaves DIR as it was; a symbolic link planted in DIR is
 * replaced with the rest, never followed.
 * An existing DIR is replaced only if it holds nothing but what build
 * writes (src, obj, lib, include, share, Makefile) and not the database; its share/
 * (a site's wisdom files) moves into the new DIR.
 *
 * Every function returns 0, or -1 with the reason printed to stderr
 * ("symvtune build: ..."); the writers print nothing when memory ran out.
 */
#ifndef SYMV_LIBGEN_PACKAGE_H
#define SYMV_LIBGEN_PACKAGE_H

#include <stddef.h>
#include "plan.h"

/* libgen_write_pc: DIR/lib/pkgconfig/libsymv.pc; describes the device of
 * pl, or the wisdom files with pl->wisdom. Its variable rpath holds
 * -Wl,-rpath,${libdir} (DIR's file; the Makefile's install empties it
 * unless RPATH=1). CUDA comes from the toolkit's pkg-config modules
 * (Requires: cublas-V cudart-V, V = cuda_version, MAJOR.MINOR, in the
 * variable cudaversion), or, with cuda_version NULL, as -lcublas -lcudart
 * from the linker's search path. Its variables rules_id (pl->rules_id)
 * and symvtune_version name what the library holds and what generated it. */
int libgen_write_pc(const libgen_plan *pl, const char *dir, const char *cuda_version);

/* libgen_write_cmake: DIR/lib/cmake/symv/symvConfig.cmake (the imported
 * shared library symv::symv: IMPORTED_LOCATION, IMPORTED_SONAME, its
 * include folder, CUDA::cublas and CUDA::cudart of
 * find_dependency(CUDAToolkit), which picks the toolkit its own way) and
 * symvConfigVersion.cmake (compatible with a request of the same major
 * version, not newer; 64-bit only). */
int libgen_write_cmake(const libgen_plan *pl, const char *dir);

/* libgen_out_path: the absolute name of the folder --out names, into abs
 * (len bytes): the folder a symbolic link names if out is one, else out
 * made absolute, its parent folders created. A link to nothing, ".", ".."
 * or "/" as the last component, or a name that does not fit are refused. */
int libgen_out_path(const char *out, char *abs, size_t len);

/* libgen_dir_replaceable: 0 if the folder abs (--out out, named so in
 * messages) may be replaced by a new build: it does not exist, or it is a
 * folder holding only build's own entries, none of them, at any depth, the
 * database dbpath or its -wal, -shm or -journal file (dbpath "": no
 * database to look for). */
int libgen_dir_replaceable(const char *abs, const char *out, const char *dbpath);

/* libgen_install: moves the finished build in the folder work to DIR (abs;
 * out and dbpath as for libgen_dir_replaceable, which it checks again):
 * into a fresh folder beside DIR (renamed there, or copied if work is on
 * another file system), flushed to disk, which then takes DIR's place (an
 * old DIR is swapped out, its share/ carried over, and removed). A copy or
 * flush that fails (ENOSPC, EFBIG, EIO) returns -1 with the reason printed.
 * On -1, DIR is as it was. work is gone either way. */
int libgen_install(const char *work, const char *abs, const char *out, const char *dbpath);

#endif
