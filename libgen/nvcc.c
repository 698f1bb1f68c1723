/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nvcc.c - finds nvcc and compiles and links the generated library
 * (nvcc.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvcc.h"
#include "generate.h"
#include "jobs.h"

/* 1 if path names a regular file this process may execute, else 0. */
static int executable(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The program `name` as execv must be given it after build changed
 * folder, into out (len bytes): name itself if absolute; with a slash,
 * name against the current folder; without one, the first executable
 * name in a folder of $PATH (as execvp finds it). 0 if that is an
 * executable regular file, else -1 (out then holds the last name tried). */
static int resolve(const char *name, char *out, size_t len)
{
  char cwd[PATH_MAX];
  if (name[0] == '/') return snprintf(out, len, "%s", name) >= (int)len || !executable(out) ? -1 : 0;
  if (strchr(name, '/')) {
    while (name[0] == '.' && name[1] == '/') /* ./bin/nvcc: cwd/bin/nvcc */
      for (name += 2; *name == '/';) name++;
    if (!getcwd(cwd, sizeof cwd)) return snprintf(out, len, "%s", name), -1;
    return snprintf(out, len, "%s/%s", strcmp(cwd, "/") ? cwd : "", name) >= (int)len || !executable(out) ? -1 : 0;
  }
  snprintf(out, len, "%s", name);
  for (const char *p = getenv("PATH"); p && *p;) {
    const char *colon = strchr(p, ':');
    size_t l = colon ? (size_t)(colon - p) : strlen(p);
    char in_dir[PATH_MAX];
    if (l > 0 && snprintf(in_dir, sizeof in_dir, "%.*s/%s", (int)l, p, name) < (int)sizeof in_dir &&
        resolve(in_dir, out, len) == 0)
      return 0;
    p += l + (colon ? 1 : 0);
  }
  return -1;
}

/* Finds an executable nvcc: opt, $NVCC, $CUDA_HOME/bin/nvcc, PATH,
 * /usr/local/cuda/bin/nvcc; a relative name made absolute (resolve). */
int libgen_find_nvcc(const char *opt, char *out, size_t len)
{
  if (opt) return resolve(opt, out, len);
  const char *env = getenv("NVCC"), *home = getenv("CUDA_HOME");
  if (env && *env && resolve(env, out, len) == 0) return 0;
  if (home && *home) {
    char bin[PATH_MAX + 16];
    snprintf(bin, sizeof bin, "%s/bin/nvcc", home);
    if (resolve(bin, out, len) == 0) return 0;
  }
  if (resolve("nvcc", out, len) == 0) return 0;
  snprintf(out, len, "/usr/local/cuda/bin/nvcc");
  return executable(out) ? 0 : -1;
}

/* The runtime's units: those of every library, then the source of rules
 * (lib/source.h) it links, chosen here and nowhere else: the table compiled
 * in, or (--wisdom) the wisdom files and what reads them (NVRTC, its cache,
 * the wisdom reader). */
static const char *const runtime_every[] = {"libsymv.c", "gpu.c", "params.c", "routine.c", "symv_error.c"};
static const char *const runtime_table[] = {"source_table.c"};
static const char *const runtime_wisdom[] = {"source_wisdom.c", "compile.c", "util.c", "wisdom.c", "identity.c"};
#define NUNITS(a) (int)(sizeof a / sizeof *a)

/* The number of runtime units of the plan's library. */
static int runtime_units(const libgen_plan *pl)
{
  return NUNITS(runtime_every) + (pl->wisdom ? NUNITS(runtime_wisdom) : NUNITS(runtime_table));
}

/* The file name of the plan's runtime unit i, 0 <= i < runtime_units(pl). */
static const char *runtime_unit(const libgen_plan *pl, int i)
{
  if (i < NUNITS(runtime_every)) return runtime_every[i];
  i -= NUNITS(runtime_every);
  return pl->wisdom ? runtime_wisdom[i] : runtime_table[i];
}

/* The C unit i of the plan's library, 0 <= i <= libgen_c_units(pl) - 1:
 * its object's base name into base (blen bytes) and its source, relative
 * to DIR, into src (slen bytes). */
void libgen_c_unit(const libgen_plan *pl, int i, char *base, size_t blen, char *src, size_t slen)
{
  const int nru = runtime_units(pl);
  if (i < nru) {
    const char *unit = runtime_unit(pl, i);
    snprintf(base, blen, "%.*s", (int)(strlen(unit) - 2), unit);
    snprintf(src, slen, "src/runtime/%s", unit);
  } else {
    static const char *const generated[] = {"kernel_sources", "symv_table", "symv_identity"};
    snprintf(base, blen, "%s", generated[i - nru + (pl->wisdom ? 0 : 1)]);
    snprintf(src, slen, "src/%s.c", base);
  }
}

/* The number of C units: the runtime's, src/kernel_sources.c with
 * --wisdom, src/symv_table.c and src/symv_identity.c. */
int libgen_c_units(const libgen_plan *pl) { return runtime_units(pl) + (pl->wisdom ? 1 : 0) + 2; }

/* The end of a compile job: "-c src -o DIR/obj/base.o", its log in
 * DIR/obj/base.log. */
static void job_compile_io(libgen_job *j, const char *src, const char *dir, const char *base)
{
  char obj[PATH_MAX + 256];
  libgen_job_arg(j, "-c");
  libgen_job_arg(j, src);
  libgen_job_arg(j, "-o");
  snprintf(obj, sizeof obj, "%s/obj/%s.o", dir, base);
  libgen_job_arg(j, obj);
  snprintf(j->log, sizeof j->log, "%s/obj/%s.log", dir, base);
}

/* Compiles every unit under dir (a private folder with a shell-safe name:
 * symv_private_tmpdir) and links dir/lib/libsymv.so. */
int libgen_compile(const libgen_plan *pl, const char *dir, const char *nvcc, const char *cuda_lib, int par)
{
  const int nj = pl->nkernels + libgen_c_units(pl);
  libgen_job *jobs = calloc((size_t)nj + 1, sizeof *jobs);
  if (!jobs) return -1;
  char buf[PATH_MAX + 256];
  int k = 0;
  for (int i = 0; i < pl->nkernels; i++, k++) { /* the CUBINs, as C */
    libgen_job *j = &jobs[k];
    const char *name = pl->kernels[i].name;
    libgen_job_arg(j, nvcc);
    libgen_job_words(j, LIBGEN_C_FLAGS);
    snprintf(buf, sizeof buf, "%s/src/%s.c", dir, name);
    job_compile_io(j, buf, dir, name);
    snprintf(j->what, sizeof j->what, "compiling kernel %s", name);
  }
  for (int i = 0; i < libgen_c_units(pl); i++, k++) {
    libgen_job *j = &jobs[k];
    char base[64], rel[PATH_MAX];
    libgen_c_unit(pl, i, base, sizeof base, rel, sizeof rel);
    snprintf(buf, sizeof buf, "%s/%s", dir, rel);
    libgen_job_arg(j, nvcc);
    libgen_job_words(j, LIBGEN_C_FLAGS);
    char inc[PATH_MAX + 64];
    snprintf(inc, sizeof inc, "-I%s/src/runtime", dir);
    libgen_job_arg(j, inc);
    job_compile_io(j, buf, dir, base);
    snprintf(j->what, sizeof j->what, "compiling %s.c", base);
  }
  symv_progress prog; /* on stderr: a bar on a terminal, else a line every 10 s */
  symv_progress_start(&prog, "compile", k + 1, 0);
  int rc = libgen_run_jobs(jobs, k, par, dir, &prog);
  if (rc == 0) { /* link */
    libgen_job *j = &jobs[k];
    libgen_job_arg(j, nvcc);
    libgen_job_words(j, LIBGEN_LINK_FLAGS);
    snprintf(buf, sizeof buf, "%s/lib/libsymv.so.tmp", dir);
    libgen_job_arg(j, "-o");
    libgen_job_arg(j, buf);
    for (int i = 0; i < k; i++) libgen_job_arg(j, jobs[i].argv[jobs[i].argc - 1]);
    if (cuda_lib) {
      libgen_job_arg(j, "-Xlinker");
      snprintf(buf, sizeof buf, "-rpath=%s", cuda_lib);
      libgen_job_arg(j, buf);
    }
    libgen_job_words(j, LIBGEN_LIBS(pl));
    snprintf(j->log, sizeof j->log, "%s/obj/link.log", dir);
    snprintf(j->what, sizeof j->what, "linking " LIBGEN_REALNAME);
    rc = libgen_run_jobs(j, 1, 1, dir, &prog);
    char final[PATH_MAX + 128];
    snprintf(final, sizeof final, "%s/lib/" LIBGEN_REALNAME, dir);
    snprintf(buf, sizeof buf, "%s/lib/libsymv.so.tmp", dir);
    if (rc == 0 && rename(buf, final)) {
      fprintf(stderr, "symvtune build: rename %s: %s\n", buf, strerror(errno));
      rc = -1;
    }
    if (rc) unlink(buf);
    /* the links: the SONAME (what the dynamic linker looks for) and the
     * name -lsymv finds, relative so that the folder can move */
    static const char *const links[][2] = {{LIBGEN_REALNAME, LIBGEN_SONAME}, {LIBGEN_SONAME, "libsymv.so"}};
    for (int i = 0; rc == 0 && i < 2; i++) {
      snprintf(final, sizeof final, "%s/lib/%s", dir, links[i][1]);
      if (symlink(links[i][0], final)) {
        fprintf(stderr, "symvtune build: cannot link %s to %s: %s\n", final, links[i][0], strerror(errno));
        rc = -1;
      }
    }
  }
  if (rc == 0) symv_progress_finish(&prog);
  else if (prog.tty) fputc('\n', stderr);
  for (int i = 0; i <= k; i++) libgen_job_free(&jobs[i]);
  free(jobs);
  return rc;
}

/* The CUDA toolkit root of nvcc (its bin folder's parent), or NULL. The
 * name is kept as nvcc was found where its lib64 is there (e.g.
 * /usr/local/cuda, the link the toolkits maintain to the current one, not
 * /usr/local/cuda-13.0 it points to), so that what is written into the
 * library (RUNPATH) and its Makefile names no one toolkit version beyond
 * need; else the folder nvcc really lies in. */
const char *libgen_cuda_root(const char *nvcc, char *out, size_t len)
{
  char real[PATH_MAX], named[2 * PATH_MAX + 2], lib[2 * PATH_MAX + 16];
  struct stat st;
  if (nvcc[0] == '/') snprintf(named, sizeof named, "%s", nvcc);
  else if (getcwd(real, sizeof real)) snprintf(named, sizeof named, "%s/%s", real, nvcc);
  else named[0] = 0;
  for (int pass = 0; pass < 2; pass++) {
    char *p = pass == 0 ? named : real;
    if (pass == 1 && !realpath(nvcc, real)) return NULL;
    char *slash = strrchr(p, '/');
    if (!slash) continue;
    *slash = 0;
    if (!(slash = strrchr(p, '/'))) continue;
    *slash = 0;
    snprintf(lib, sizeof lib, "%s/lib64", p[0] ? p : "");
    if (pass == 0 && (stat(lib, &st) || !S_ISDIR(st.st_mode))) continue;
    if (snprintf(out, len, "%s", p[0] ? p : "/") >= (int)len) return NULL; /* no room for it: none */
    return out;
  }
  return NULL;
}

/* The toolkit's MAJOR.MINOR from CUDART_VERSION (1000 * major + 10 *
 * minor) in cuda_root/include/cuda_runtime_api.h, or NULL. */
const char *libgen_cuda_version(const char *cuda_root, char *out, size_t len)
{
  char path[PATH_MAX + 64], line[512];
  snprintf(path, sizeof path, "%s/include/cuda_runtime_api.h", cuda_root);
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  int v = -1;
  while (v < 0 && fgets(line, sizeof line, f))
    if (sscanf(line, " #define CUDART_VERSION %d", &v) != 1 || v < 1000) v = -1;
  fclose(f);
  if (v < 0 || snprintf(out, len, "%d.%d", v / 1000, v % 1000 / 10) >= (int)len) return NULL;
  return out;
}
