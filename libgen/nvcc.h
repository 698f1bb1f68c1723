/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nvcc.h - compiles the generated library with nvcc: finds the compiler
 * and its CUDA toolkit, compiles every unit codegen.h wrote as C (the
 * runtime, the table, the kernels' CUBINs that NVRTC made: cubin.h) and
 * links DIR/lib/libsymv.so.X.Y.Z (SONAME libsymv.so.X) with the links
 * libsymv.so.X and libsymv.so beside it. No GPU is needed.
 */
#ifndef SYMV_LIBGEN_NVCC_H
#define SYMV_LIBGEN_NVCC_H

#include <stddef.h>
#include "generate.h"
#include "plan.h"

/* The flags of every compile and of the link, the same here and in the
 * generated Makefile (makefile.h): the C units' (the runtime, the table,
 * the kernels' CUBINs as byte arrays), the link's and the libraries it
 * links. */
#define LIBGEN_C_FLAGS "-x c -O2 -Xcompiler -fPIC,-fvisibility=hidden,-std=gnu11,-Wall"
#define LIBGEN_LINK_FLAGS "-shared -cudart shared -Xlinker -soname=" LIBGEN_SONAME " -Xlinker --no-undefined"
#define LIBGEN_LIBS(pl) ((pl)->wisdom ? "-lcublas -lnvrtc -lcudart -lpthread -ldl" : "-lcublas -lcudart -lpthread -ldl")

/* libgen_find_nvcc: an executable nvcc into out (len bytes): opt if not
 * NULL (and only it), else the first of $NVCC, $CUDA_HOME/bin/nvcc, nvcc in
 * each folder of $PATH, /usr/local/cuda/bin/nvcc that is an executable
 * regular file. The name is made absolute, so that it still names the
 * program once build changed folder: a relative name with a slash
 * (bin/nvcc) against the current folder, a name without one (opt, $NVCC)
 * looked for in $PATH as execvp would. 0, or -1 if none is (out then holds
 * the last name tried). */
int libgen_find_nvcc(const char *opt, char *out, size_t len);

/* libgen_cuda_root: the CUDA toolkit root of nvcc (its bin folder's
 * parent) into out (len bytes), or NULL. The name is kept as nvcc was found
 * where its lib64 is there (e.g. /usr/local/cuda, the link the toolkits
 * maintain to the current one, not /usr/local/cuda-13.0 it points to), so
 * that what is written into the library (RUNPATH) and its Makefile names
 * no one toolkit version beyond need; else the folder nvcc really lies in. */
const char *libgen_cuda_root(const char *nvcc, char *out, size_t len);

/* libgen_cuda_version: the toolkit's version MAJOR.MINOR (13.0) into out
 * (len bytes), from CUDART_VERSION in cuda_root/include/cuda_runtime_api.h:
 * the version in the names of the toolkit's pkg-config modules
 * (cublas-13.0, cudart-13.0). NULL if the header or the macro is missing. */
const char *libgen_cuda_version(const char *cuda_root, char *out, size_t len);

/* libgen_c_units: the number of C units of the plan's library (its
 * runtime, src/kernel_sources.c with --wisdom, src/symv_table.c,
 * src/symv_identity.c). */
int libgen_c_units(const libgen_plan *pl);

/* libgen_c_unit: C unit i (0 <= i < libgen_c_units(pl)): the base name of
 * its object (obj/BASE.o) into base (blen bytes) and its source relative
 * to DIR (src/runtime/libsymv.c, src/symv_table.c ...) into src (slen). */
void libgen_c_unit(const libgen_plan *pl, int i, char *base, size_t blen, char *src, size_t slen);

/*
 * libgen_compile: compiles every unit under dir (a private folder with a
 * shell-safe name, symv_private_tmpdir, holding what codegen.h writes) with
 * nvcc, par at once, objects and logs in dir/obj, and links
 * dir/lib/libsymv.so.X.Y.Z and its two links; cuda_lib (or NULL) goes into
 * the library's RUNPATH. Progress on stderr (core/progress.h, label
 * "compile"). 0, or -1 with the failure reported (libgen_run_jobs) and no
 * library in dir/lib.
 */
int libgen_compile(const libgen_plan *pl, const char *dir, const char *nvcc, const char *cuda_lib, int par);

#endif
