/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * generate.h - the library generator: turns the latest fit's rules in a
 * database into the generated library DIR/lib/libsymv.so (doc/method.md
 * section 4 step 8: the paper emits its rules as code; so does this). It is
 * the stage of `symvtune build` (src/cmd_build.c parses the options and calls
 * libgen_generate).
 *
 * What it writes under DIR:
 *   src/kernels/   the kernel sources, from the copies embedded in symvtune
 *                  (the very text NVRTC compiled when the tuner measured them)
 *   src/runtime/   the library's runtime (libsymv.c, gpu.c, ...), likewise
 *   src/NAME.c     one per chosen kernel: the CUBIN NVRTC made of it with
 *                  the sweep's own call (symv_compile), as a byte array
 *   src/symv_table.c  the dispatch table: rules, candidates, tuned device
 *   src/symv_identity.c  the library's identity: its rules id, the fits
 *                  they come from, the symvtune that generated it
 *   obj/           objects and each compilation's log
 *   lib/libsymv.so.X.Y.Z  the library, SONAME libsymv.so.X (X.Y.Z: symv.h's
 *                  SYMV_VERSION_*), with the links libsymv.so.X and
 *                  libsymv.so (for -lsymv) beside it
 *   lib/pkgconfig/libsymv.pc, lib/cmake/symv/symvConfig*.cmake: how to link
 *                  it (pkg-config, CMake's find_package), relocatable: both
 *                  find the library from their own folder
 *   include/symv.h
 *   Makefile       rebuilds the library with a site's flags and installs
 *                  it into a prefix (makefile.h)
 *
 * The pieces, in the order libgen_generate runs them:
 *   plan.h     read and validate the device and the rules into a plan
 *   cubin.h    compile each kernel with NVRTC, as the sweep did
 *   codegen.h  write the sources: kernel units, dispatch table, runtime
 *   package.h  pkg-config and CMake files; DIR's checks and its replacement
 *   makefile.h the Makefile that compiles and installs it again
 *   nvcc.h     find nvcc, compile every unit and link the library
 *   jobs.h     the parallel runner of the compiler's processes
 *   text.h     the growing string and file writer they share
 *
 * Every value read from the database is validated before it is written into
 * source (plan.h). A bad value stops the build before anything is written.
 * No GPU is needed: NVRTC compiles the kernels for sm_XY of the tuned GPU,
 * nvcc the C units.
 */
#ifndef SYMV_LIBGEN_GENERATE_H
#define SYMV_LIBGEN_GENERATE_H

#include "symv.h"

/* The library's file names: the SONAME carries the major version only. */
#define LIBGEN_STR_(x) #x
#define LIBGEN_STR(x) LIBGEN_STR_(x)
#define LIBGEN_VERSION                                                                                                 \
  LIBGEN_STR(SYMV_VERSION_MAJOR) "." LIBGEN_STR(SYMV_VERSION_MINOR) "." LIBGEN_STR(SYMV_VERSION_PATCH)
#define LIBGEN_SONAME "libsymv.so." LIBGEN_STR(SYMV_VERSION_MAJOR)
#define LIBGEN_REALNAME "libsymv.so." LIBGEN_VERSION

/* What `symvtune build` asks for, its options as parsed and checked by the
 * command (src/cmd_build.c: --out given, --arch of the form sm_XY[af], refused here unless sm_XY of the tuned GPU,
 * --wisdom-dir absolute and printable, --wisdom without --db or --arch). */
typedef struct {
  const char *dbpath;     /* --db FILE; NULL with wisdom */
  const char *out;        /* --out DIR, as typed */
  const char *nvcc;       /* --nvcc PATH, or NULL: search (libgen_find_nvcc) */
  const char *arch;       /* --arch sm_XY, or NULL: the database's device's */
  const char *wisdom_dir; /* --wisdom-dir PATH, or NULL */
  int wisdom;             /* 1: --wisdom, no rules compiled in */
  int jobs;               /* parallel compilations, >= 1 */
  int argc;               /* the command line (argv[0] = "build"), written */
  char **argv;            /* into the generated files' first line */
} libgen_request;

/* What libgen_generate returns; the command maps them to its exit statuses. */
enum {
  LIBGEN_OK = 0,      /* built, DIR replaced */
  LIBGEN_REFUSED = 1, /* an --arch not the database's GPU's, an nvcc whose name a shell acts on,
                         an --out that names no usable folder, or a DIR that is not build's own
                         to replace */
  LIBGEN_FAILED = 2   /* database refused, compiler missing or failed, a file not written */
};

/*
 * libgen_generate: reads and validates the plan (the database's device and
 * rules, or none with wisdom), writes every source into a private temporary
 * folder, compiles and links it there with nvcc (rq->jobs at once), and puts
 * it in DIR's place in one rename; then prints the rules table (not with
 * wisdom) and where the library is. Progress and a summary go to stdout,
 * every error to stderr ("symvtune build: ..."). On LIBGEN_REFUSED or
 * LIBGEN_FAILED nothing under DIR has changed.
 */
int libgen_generate(const libgen_request *rq);

#endif
