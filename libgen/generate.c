/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * generate.c - the library generator's stage: plan, sources, compilation,
 * installation, in that order (generate.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "generate.h"
#include "codegen.h"
#include "compile.h"
#include "cubin.h"
#include "lib_sources.h"
#include "makefile.h"
#include "nvcc.h"
#include "package.h"
#include "plan.h"
#include "text.h"
#include "util.h"

/* The compiler and its toolkit. */
typedef struct {
  char nvcc[PATH_MAX];
  char cuda_root[PATH_MAX];
  char cuda_lib[PATH_MAX + 16];
  char cuda_version[32];
  const char *root;    /* cuda_root, or NULL: not known */
  const char *version; /* cuda_version (MAJOR.MINOR), or NULL: not known */
  const char *libdir; /* cuda_lib if that folder exists, else NULL */
} toolchain;

/* Reads the plan (none with --wisdom: its rules come from wisdom files) and
 * checks --arch against the tuned GPU. LIBGEN_OK, or the error printed. */
static int read_plan(const libgen_request *rq, libgen_plan *pl)
{
  char err[1024] = "";
  pl->wisdom = rq->wisdom;
  if (rq->wisdom_dir) snprintf(pl->wisdom_dir, sizeof pl->wisdom_dir, "%s", rq->wisdom_dir);
  if (rq->wisdom) return LIBGEN_OK;
  if (libgen_plan_read(rq->dbpath, rq->arch, pl, err, sizeof err)) {
    fprintf(stderr, "symvtune build: %s: %s; refusing to build\n", rq->dbpath, err);
    return LIBGEN_FAILED;
  }
  const int nvrtc = symv_nvrtc_version();
  if (pl->dev.nvrtc_major != nvrtc / 1000 || pl->dev.nvrtc_minor != nvrtc % 1000 / 10) /* any ints the file holds */
    fprintf(stderr,
            "symvtune build: warning: %s was swept with NVRTC %d.%d, and this symvtune compiles the kernels with "
            "NVRTC %d.%d: the library's CUBINs may not be the code the sweep timed (build with the sweep's CUDA "
            "toolkit, or sweep again with this one)\n",
            rq->dbpath, pl->dev.nvrtc_major, pl->dev.nvrtc_minor, nvrtc / 1000, nvrtc % 1000 / 10);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++)
    if (pl->stale[r])
      fprintf(stderr,
              "symvtune build: warning: %d of the candidates %s's rules name were timed with kernel sources other than "
              "this symvtune's: the library runs today's code, whose times the rules do not know. Sweep %s again "
              "(scripts/forget-routine DB %s, then sweep and fit; doc/design.md)\n",
              pl->stale[r], symv_routine_name((symv_routine)r), symv_routine_name((symv_routine)r),
              symv_routine_name((symv_routine)r));
  /* The library loads the CUBINs NVRTC makes as the sweep did, for sm_XY
   * of the tuned GPU (symv_compile): the code whose times the rules hold. */
  const char *arch = rq->arch;
  char native[16];
  snprintf(native, sizeof native, "sm_%d%d", pl->dev.cc_major, pl->dev.cc_minor);
  if (arch && strcmp(arch, native)) {
    fprintf(stderr, "symvtune build: --arch %s is not the architecture the sweep compiled %s's kernels for (%s, "
                    "compute capability %d.%d: %s); the library runs the code the sweep timed: refusing to build\n",
            arch, rq->dbpath, pl->dev.name, pl->dev.cc_major, pl->dev.cc_minor, native);
    return LIBGEN_REFUSED;
  }
  return LIBGEN_OK;
}

/* Finds nvcc (--nvcc, else libgen_find_nvcc's search) and its toolkit, and
 * refuses names a shell would act on. LIBGEN_OK, or the error printed. */
static int find_toolchain(const libgen_request *rq, toolchain *tc)
{
  if (libgen_find_nvcc(rq->nvcc, tc->nvcc, sizeof tc->nvcc)) {
    fprintf(stderr, "symvtune build: no nvcc found%s%s (pass --nvcc PATH, or set CUDA_HOME)\n",
            rq->nvcc ? " at " : "", rq->nvcc ? rq->nvcc : "");
    return LIBGEN_FAILED;
  }
  tc->root = libgen_cuda_root(tc->nvcc, tc->cuda_root, sizeof tc->cuda_root);
  tc->version = tc->root ? libgen_cuda_version(tc->root, tc->cuda_version, sizeof tc->cuda_version) : NULL;
  struct stat st;
  if (tc->root) snprintf(tc->cuda_lib, sizeof tc->cuda_lib, "%s/lib64", tc->root);
  tc->libdir = tc->root && stat(tc->cuda_lib, &st) == 0 ? tc->cuda_lib : NULL;

  if (!symv_shell_safe(tc->nvcc) || (tc->libdir && !symv_shell_safe(tc->libdir))) {
    fprintf(stderr, "symvtune build: the compiler %s (or its library folder) has a name with characters a shell "
                    "acts on, and nvcc runs its stages through a shell: refusing to run it (pass --nvcc PATH of a "
                    "plain name)\n", tc->nvcc);
    return LIBGEN_REFUSED;
  }
  return LIBGEN_OK;
}

/* Creates the folders of the build in work and writes every file but the
 * objects and the library: sources, symv.h, pkg-config (the toolkit's
 * modules of version tc->version) and CMake files, the Makefile. 0, or -1
 * with the error printed. */
static int write_tree(const libgen_request *rq, const libgen_plan *pl, const char *work, const toolchain *tc)
{
  char cmd[1024], sub[PATH_MAX + 64];
  libgen_made_by(rq->argc, rq->argv, cmd, sizeof cmd);
  static const char *const subdirs[] = {"/src",     "/src/kernels",   "/src/runtime",        "/obj",    "/lib",
                                        "/lib/pkgconfig", "/lib/cmake", "/lib/cmake/symv", "/include"};
  for (size_t i = 0; i < sizeof subdirs / sizeof *subdirs; i++) {
    snprintf(sub, sizeof sub, "%s%s", work, subdirs[i]);
    if (mkdir(sub, 0755)) {
      fprintf(stderr, "symvtune build: cannot create %s: %s\n", sub, strerror(errno));
      return -1;
    }
  }
  const symv_source *hdr = libgen_lib_source("symv.h");
  snprintf(sub, sizeof sub, "%s/include/symv.h", work);
  if (libgen_write_embedded(symv_sources, symv_nsources, work, "src/kernels") ||
      libgen_write_embedded(symv_lib_sources, symv_lib_nsources, work, "src/runtime") ||
      libgen_write_kernel_units(pl, work, cmd) || libgen_write_table(pl, work, cmd) ||
      libgen_write_identity(pl, work, cmd) || !hdr ||
      libgen_write_text(sub, hdr->text) || (pl->wisdom && libgen_write_kernel_sources(work, cmd)) ||
      libgen_write_pc(pl, work, tc->version) || libgen_write_cmake(pl, work) ||
      libgen_write_makefile(pl, work, tc->nvcc, tc->libdir, tc->version)) {
    fprintf(stderr, "symvtune build: no library written; %s left as it was\n", rq->out);
    return -1;
  }
  return 0;
}

/* A warning for each kernel whose code, as this NVRTC made it, uses other
 * registers per thread than the database records of the tuner's build: it
 * is not the code the sweep timed (other kernel sources, which a database
 * without kernel codes cannot tell otherwise, or another NVRTC). */
static void warn_registers(const libgen_plan *pl)
{
  const int nvrtc = symv_nvrtc_version();
  for (int k = 0; k < pl->nkernels; k++) {
    const libgen_kernel *bk = &pl->kernels[k];
    if (bk->regs > 0 && bk->cubin_regs > 0 && bk->regs != bk->cubin_regs)
      fprintf(stderr,
              "symvtune build: warning: kernel %s: NVRTC %d.%d here gives it %d registers per thread, the tuner's "
              "build had %d: it is not the code the sweep timed (the kernel sources or NVRTC changed since); sweep %s "
              "again with this symvtune (scripts/forget-routine DB %s, then sweep and fit)\n",
              bk->name, nvrtc / 1000, nvrtc % 1000 / 10, bk->cubin_regs, bk->regs,
              symv_routine_name(bk->p.routine), symv_routine_name(bk->p.routine));
  }
}

/* What is about to be compiled, to stdout. */
static void print_summary(const libgen_request *rq, const libgen_plan *pl, const char *nvcc, const char *work)
{
  printf("symvtune build:");
  if (pl->wisdom)
    printf(" no rules compiled in: wisdom files from $SYMV_WISDOM, then %s%s;",
           pl->wisdom_dir[0] ? pl->wisdom_dir : rq->out, pl->wisdom_dir[0] ? "" : "/share/symv");
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const libgen_routine *rt = &pl->rt[symv_routine_order(i)];
    if (rt->have)
      printf(" %s %d rules (n %d..%d) of fit %lld;", symv_routine_name(symv_routine_order(i)), rt->nrules, rt->fit.lo,
             rt->fit.hi, rt->fit.id);
  }
  char devname[4 * sizeof pl->dev.name]; /* the database's text, escaped for the terminal */
  if (pl->wisdom)
    printf(" kernels compiled at run time by NVRTC\n");
  else {
    const int nvrtc = symv_nvrtc_version();
    printf(" %d candidates in %d kernels, for %s (%s, %d SMs): the kernels' CUBINs from NVRTC %d.%d, as the sweep "
           "made them\n", pl->ncands, pl->nkernels, symv_escape(pl->dev.name, devname, sizeof devname), pl->arch,
           pl->dev.sm_count, nvrtc / 1000, nvrtc % 1000 / 10);
  }
  printf("compiling with %s, %d jobs, in %s\n", nvcc, rq->jobs, work);
  fflush(stdout);
}

int libgen_generate(const libgen_request *rq)
{
  static libgen_plan pl; /* large: the candidates and kernels */
  memset(&pl, 0, sizeof pl);
  const char *dbpath = rq->wisdom ? "" : rq->dbpath; /* "": no input to keep DIR from replacing */
  toolchain tc;
  char abs[PATH_MAX], work[PATH_MAX];
  int rc = read_plan(rq, &pl);
  if (!rc) rc = find_toolchain(rq, &tc);
  if (!rc && (libgen_out_path(rq->out, abs, sizeof abs) || libgen_dir_replaceable(abs, rq->out, dbpath)))
    rc = LIBGEN_REFUSED;
  if (!rc && symv_private_tmpdir("symvtune-build", work, sizeof work)) {
    fprintf(stderr, "symvtune build: cannot create a temporary folder %s: %s\n", work, strerror(errno));
    rc = LIBGEN_FAILED;
  }
  if (rc) {
    libgen_plan_free(&pl);
    return rc;
  }
  print_summary(rq, &pl, tc.nvcc, work);
  if (!pl.wisdom && libgen_compile_kernels(&pl, rq->jobs)) {
    fprintf(stderr, "symvtune build: no library written; %s left as it was\n", rq->out);
    symv_rmtree(work);
    libgen_plan_free(&pl);
    return LIBGEN_FAILED;
  }
  warn_registers(&pl);
  if (write_tree(rq, &pl, work, &tc)) {
    symv_rmtree(work);
    libgen_plan_free(&pl);
    return LIBGEN_FAILED;
  }
  if (libgen_compile(&pl, work, tc.nvcc, tc.libdir, rq->jobs)) {
    fprintf(stderr, "symvtune build: no library written; %s left as it was\n", rq->out);
    symv_rmtree(work);
    libgen_plan_free(&pl);
    return LIBGEN_FAILED;
  }
  if (libgen_install(work, abs, rq->out, dbpath)) {
    fprintf(stderr, "symvtune build: no library written; %s left as it was\n", rq->out);
    libgen_plan_free(&pl);
    return LIBGEN_FAILED;
  }
  if (!pl.wisdom) libgen_plan_print(&pl);
  printf("wrote %s/lib/" LIBGEN_REALNAME " (and its links " LIBGEN_SONAME ", libsymv.so), %s/include/symv.h, "
         "%s/lib/pkgconfig/libsymv.pc, %s/lib/cmake/symv/symvConfig.cmake\n", abs, abs, abs, abs);
  libgen_plan_free(&pl);
  return LIBGEN_OK;
}
