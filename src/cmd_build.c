/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_build.c - `symvtune build`: parses the options and calls the library
 * generator (libgen/generate.h), which turns the latest fit's rules in a
 * database into the generated library DIR/lib/libsymv.so.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "../libgen/generate.h"

/* The --help text, to stdout. */
static void help(void)
{
  puts("Usage: symvtune build --db FILE --out DIR [OPTIONS]\n"
       "       symvtune build --wisdom --out DIR [--wisdom-dir PATH] [OPTIONS]\n"
       "Generates libsymv, drop-ins for cuBLAS's SYMV and HEMV routines on the GPU the database\n"
       "was measured on, from the latest fit of each routine in FILE (see `symvtune fit`): writes\n"
       "under DIR/src the kernel sources, one unit per chosen kernel holding the CUBIN NVRTC makes\n"
       "of it as the sweep did (the code whose times the rules hold), a dispatch table and the\n"
       "runtime, compiles them with nvcc (no GPU needed) and links DIR/lib/" LIBGEN_REALNAME "\n"
       "(SONAME " LIBGEN_SONAME ", with the links " LIBGEN_SONAME " and libsymv.so); writes DIR/include/symv.h,\n"
       "DIR/lib/pkgconfig/libsymv.pc and DIR/lib/cmake/symv (find_package(symv): symv::symv), which\n"
       "find the library from their own folder: DIR may be moved; and DIR/Makefile, with which a site\n"
       "compiles the library again with its own flags (make -C DIR NVCC_CFLAGS=... CCBIN=..., NVCC=...)\n"
       "and installs it into a prefix (make -C DIR install PREFIX=/usr/local DESTDIR=...: the library,\n"
       "symv.h, the .pc (no RUNPATH for programs unless RPATH=1), the CMake package, share/symv; no\n"
       "other file is touched).\n"
       "Every value read from FILE is validated first; a bad one\n"
       "stops the build before anything is written. All is compiled in a private temporary\n"
       "folder and then takes DIR's place in one rename: a build that fails leaves DIR as it was.\n\n"
       "With --wisdom, no rules are compiled in: the library reads wisdom files (`symvtune export`) at\n"
       "run time, from $SYMV_WISDOM and then its system folder, and on each GPU uses the file of that\n"
       "GPU model; the kernels its rules name are compiled there on first use by NVRTC, from the\n"
       "sources this program compiles, with its options, and cached (as symvtune caches them). One\n"
       "such library serves every GPU model a site has wisdom for (man libsymv(3), symv-wisdom(5)).\n\n"
       "Options:\n"
       "  --db FILE      the database (read only; needs a fit)\n"
       "  --wisdom       build the wisdom-driven library instead (no --db, no --arch)\n"
       "  --wisdom-dir PATH  its system folder of wisdom files, an absolute path (default: the\n"
       "                 library's own folder's ../share/symv, i.e. DIR/share/symv, wherever DIR is moved)\n"
       "  --out DIR      where to write: created, or replaced whole once the library is built\n"
       "                 (an existing DIR may hold only a previous build: src, obj, lib, include,\n"
       "                 Makefile, and share, the site's wisdom files, which the new DIR keeps)\n"
       "  --nvcc PATH    nvcc to use (default: $NVCC, $CUDA_HOME/bin/nvcc, nvcc in PATH,\n"
       "                 /usr/local/cuda/bin/nvcc)\n"
       "  --arch sm_XY   GPU architecture: the database's device's (the default, e.g. sm_90) and no\n"
       "                 other: the library loads the CUBINs the sweep timed, made for it\n"
       "  --jobs N       parallel compilations (default: the number of CPUs)\n"
       "  --help         this text\n"
       "Use: cc prog.c $(PKG_CONFIG_PATH=DIR/lib/pkgconfig:CUDA_PC pkg-config --cflags --libs libsymv),\n"
       "CUDA_PC the folder of the toolkit's cublas-V.pc and cudart-V.pc (e.g. $CUDA_HOME/pkgconfig);\n"
       "CMake: find_package(symv) with CMAKE_PREFIX_PATH=DIR and target_link_libraries(prog\n"
       "symv::symv), or LD_PRELOAD=DIR/lib/libsymv.so; man libsymv(3). SYMV_LOG=1 logs every call.\n"
       "Exit status: 0 built; 2 usage, an --arch not the database's GPU's, or a DIR not build's own to\n"
       "replace; 4 database refused, compiler missing or failed (DIR is then as it was).");
}

/* Parses and checks the options, then builds (libgen_generate). */
static int run(int argc, char **argv)
{
  static const struct option opts[] = {{"db", required_argument, 0, CLI_DB}, {"out", required_argument, 0, 'o'},
                                       {"nvcc", required_argument, 0, 'n'}, {"arch", required_argument, 0, 'a'},
                                       {"jobs", required_argument, 0, 'j'}, {"help", no_argument, 0, 'h'},
                                       {"wisdom", no_argument, 0, 'w'}, {"wisdom-dir", required_argument, 0, 'W'},
                                       {0, 0, 0, 0}};
  cli_opts o = {.cmd = "build", .options = opts, .help = help};
  const char *out = NULL, *nvcc_opt = NULL, *arch = NULL, *wisdom_dir = NULL;
  int wisdom = 0;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  int jobs = ncpu > 0 ? (int)ncpu : 1, c;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'n': nvcc_opt = optarg; break;
    case 'a': arch = optarg; break;
    case 'j':
      if (cli_parse_int("build", "--jobs", optarg, 1, 256, &jobs)) return SYMV_EXIT_USAGE;
      break;
    case 'w': wisdom = 1; break;
    case 'W': wisdom_dir = optarg; break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  if (wisdom && o.db)
    return cli_usage_error("build", "--wisdom takes no --db: its rules come from wisdom files (symvtune export)");
  if (wisdom && arch)
    return cli_usage_error("build", "--wisdom takes no --arch: its kernels are compiled at run time for the GPU found");
  if (!wisdom && wisdom_dir) return cli_usage_error("build", "--wisdom-dir goes with --wisdom");
  if (wisdom_dir) {
    int ok = wisdom_dir[0] == '/' && strlen(wisdom_dir) < PATH_MAX - 200;
    for (const unsigned char *c = (const unsigned char *)wisdom_dir; ok && *c; c++) ok = *c >= 0x20 && *c < 0x7f;
    if (!ok)
      return cli_usage_error("build", "--wisdom-dir '%s': expected an absolute path of printable characters",
                             wisdom_dir);
  }
  if (!o.db && !wisdom) return cli_usage_error("build", "--db FILE is required (or --wisdom)");
  if (!out || !*out) return cli_usage_error("build", "--out DIR is required");
  if (strlen(out) > PATH_MAX - 200 || strpbrk(out, "\n\r"))
    return cli_usage_error("build", "--out: the folder name is too long or holds a line break");
  if (arch) {
    size_t l = strlen(arch);
    int ok = l >= 5 && l <= 7 && !strncmp(arch, "sm_", 3);
    for (size_t i = 3; ok && i < l; i++)
      ok = (i < 5 || i < l - 1) ? (arch[i] >= '0' && arch[i] <= '9')
                                : ((arch[i] >= '0' && arch[i] <= '9') || arch[i] == 'a' || arch[i] == 'f');
    if (!ok) return cli_usage_error("build", "invalid --arch '%s' (expected sm_XY, e.g. sm_90 or sm_90a)", arch);
  }

  const libgen_request rq = {o.db, out, nvcc_opt, arch, wisdom_dir, wisdom, jobs, argc, argv};
  switch (libgen_generate(&rq)) {
  case LIBGEN_OK: return SYMV_EXIT_OK;
  case LIBGEN_REFUSED: return SYMV_EXIT_USAGE;
  default: return SYMV_EXIT_ERROR;
  }
}

const symv_command cmd_build_entry = {"build", "generate libsymv, drop-ins for cuBLAS's SYMV and HEMV, from the fits' rules", run};
