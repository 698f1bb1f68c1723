/* compile.c - NVRTC compilation of candidates and its disk cache (compile.h). */
#include <errno.h>
#include <limits.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "compile.h"
#include "util.h"
#include "kernel_sources.h"
#include "routine.h"
#include "symv_error.h"

const char *symv_source_text(const char *name)
{
  for (int i = 0; i < symv_nsources; i++)
    if (strcmp(symv_sources[i].name, name) == 0) return symv_sources[i].text;
  return NULL;
}

int symv_compile_defines(const symv_params *p, char *buf, size_t len, const char **source)
{
  char name[64];
  symv_kernel_name(p, name, sizeof name);
  const char *src = symv_family_get(p->family) ? symv_family_get(p->family)->source : "symv_atomic.cu", *extra = "";
  char extra_buf[40];
  if (p->family == SYMV_FAMILY_FAULT) { /* its MX is the fault mode */
    snprintf(extra_buf, sizeof extra_buf, "-DSYMV_FAULT_MODE=%d", p->mx);
    extra = extra_buf;
  }
  if (source) *source = src;
  return snprintf(buf, len, "-DSYMV_ROUTINE=%s -DBLOCK_SIZE=%d -DUX=%d -DMX=%d -DSYMV_KERNEL_NAME=%s %s",
                  symv_routine_name(p->routine), p->block_size, p->ux, p->family == SYMV_FAMILY_FAULT ? 0 : p->mx,
                  name, extra);
}

int symv_nvrtc_version(void)
{
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return 0;
  return major * 1000 + minor * 10;
}

/* FNV-1a, 64 bits: a cache key, not a security measure. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}


static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static char cache_path[PATH_MAX];
static int cache_ok;

static void cache_init(void)
{
  const char *env = getenv("SYMVTUNE_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int r;
  if (env && *env) r = snprintf(cache_path, sizeof cache_path, "%s", env);
  else if (xdg && *xdg) r = snprintf(cache_path, sizeof cache_path, "%s/symvtune", xdg);
  else if (home && *home) r = snprintf(cache_path, sizeof cache_path, "%s/.cache/symvtune", home);
  else return;
  cache_ok = r > 0 && r < (int)sizeof cache_path && symv_mkdir_p(cache_path) == 0;
}

const char *symv_cache_dir(void)
{
  pthread_once(&cache_once, cache_init);
  return cache_ok ? cache_path : NULL;
}

static int read_file(const char *path, void **data, size_t *size)
{
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  int rc = -1;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0) {
      void *buf = malloc((size_t)n);
      if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        *data = buf, *size = (size_t)n, rc = 0;
      } else {
        free(buf);
      }
    }
  }
  fclose(f);
  return rc;
}

/* Writes to a temporary name, then renames: a reader never sees half a file,
 * and parallel writers of the same key are harmless. */
static void write_file_atomic(const char *path, const void *data, size_t size)
{
  char tmp[PATH_MAX + 256];
  snprintf(tmp, sizeof tmp, "%s.%ld.%lu.tmp", path, (long)getpid(), (unsigned long)pthread_self());
  FILE *f = fopen(tmp, "wb");
  if (!f) return;
  int ok = fwrite(data, 1, size, f) == size;
  ok &= fclose(f) == 0;
  if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

#define MAX_OPTS 16

int symv_compile(const symv_params *p, int cc_major, int cc_minor, symv_cubin *out, char **log)
{
  memset(out, 0, sizeof *out);
  if (log) *log = NULL;
  if (symv_params_check(p, NULL, 0) || cc_major < 5 || cc_major > 20 || cc_minor < 0 || cc_minor > 9)
    return SYMV_INVALID_VALUE;

  char defines[256], arch[48];
  const char *srcname;
  symv_compile_defines(p, defines, sizeof defines, &srcname);
  symv_kernel_name(p, out->name, sizeof out->name);
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", cc_major, cc_minor);

  /* options: the -D words of `defines`, then fixed ones */
  char optbuf[sizeof defines];
  const char *opts[MAX_OPTS];
  int nopts = 0;
  memcpy(optbuf, defines, sizeof optbuf);
  for (char *save = NULL, *tok = strtok_r(optbuf, " ", &save); tok && nopts < MAX_OPTS - 4;
       tok = strtok_r(NULL, " ", &save))
    opts[nopts++] = tok;
  opts[nopts++] = arch;
  opts[nopts++] = "--std=c++17";
  opts[nopts++] = "-default-device";

  /* headers: every embedded file that is not a .cu */
  const char *hdr_text[8], *hdr_name[8];
  int nhdr = 0;
  for (int i = 0; i < symv_nsources && nhdr < 8; i++)
    if (!strstr(symv_sources[i].name, ".cu") || strstr(symv_sources[i].name, ".cuh")) {
      hdr_name[nhdr] = symv_sources[i].name;
      hdr_text[nhdr++] = symv_sources[i].text;
    }
  const char *src = symv_source_text(srcname);
  if (!src) return SYMV_INVALID_VALUE;

  uint64_t h = 0xcbf29ce484222325ull;
  int ver = symv_nvrtc_version();
  h = fnv1a(h, &ver, sizeof ver);
  h = fnv1a(h, src, strlen(src) + 1);
  for (int i = 0; i < nhdr; i++) h = fnv1a(h, hdr_text[i], strlen(hdr_text[i]) + 1);
  for (int i = 0; i < nopts; i++) h = fnv1a(h, opts[i], strlen(opts[i]) + 1);

  char path[PATH_MAX + 128];
  const char *dir = getenv("SYMVTUNE_NO_CACHE") ? NULL : symv_cache_dir();
  if (dir) {
    snprintf(path, sizeof path, "%s/%s-sm%d%d-%016llx.cubin", dir, out->name, cc_major, cc_minor,
             (unsigned long long)h);
    if (read_file(path, &out->data, &out->size) == 0) {
      out->from_cache = 1;
      return 0;
    }
  }

  double t0 = now_ms();
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, src, srcname, nhdr, hdr_text, hdr_name) != NVRTC_SUCCESS)
    return SYMV_NO_MEMORY;
  nvrtcResult r = nvrtcCompileProgram(prog, nopts, opts);
  if (r != NVRTC_SUCCESS) {
    size_t n = 0;
    if (log && nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && (*log = malloc(n + 64))) {
      int k = snprintf(*log, 64, "%s: ", nvrtcGetErrorString(r));
      if (nvrtcGetProgramLog(prog, *log + k) != NVRTC_SUCCESS) (*log)[k] = 0;
    }
    nvrtcDestroyProgram(&prog);
    return SYMV_COMPILE;
  }
  size_t n = 0;
  int rc = SYMV_COMPILE;
  if (nvrtcGetCUBINSize(prog, &n) == NVRTC_SUCCESS && n > 0) {
    out->data = malloc(n);
    if (!out->data) rc = SYMV_NO_MEMORY;
    else if (nvrtcGetCUBIN(prog, out->data) == NVRTC_SUCCESS) out->size = n, rc = 0;
  }
  nvrtcDestroyProgram(&prog);
  if (rc) {
    symv_cubin_free(out);
    return rc;
  }
  out->compile_ms = now_ms() - t0;
  if (dir) write_file_atomic(path, out->data, out->size);
  return 0;
}

void symv_cubin_free(symv_cubin *c)
{
  free(c->data);
  c->data = NULL;
  c->size = 0;
}
