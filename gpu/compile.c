/* SPDX-License-Identifier: BSD-3-Clause */
/* compile.c - NVRTC compilation of candidates and its disk cache (compile.h). */
#include <errno.h>
#include <fcntl.h>
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

/* The text of file `name` in the set, or NULL. */
static const char *set_text(const symv_source *set, int nset, const char *name)
{
  for (int i = 0; i < nset; i++)
    if (strcmp(set[i].name, name) == 0) return set[i].text;
  return NULL;
}

const char *symv_source_text(const char *name) { return set_text(symv_sources, symv_nsources, name); }

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

/* A cache entry is a header and the CUBIN. The header names what the entry
 * claims to be (the cache key, the entry point) and holds the CUBIN's length
 * and FNV-1a hash, so that an entry that is not what its name says (another
 * kernel's code copied to the key, a file cut short by a full disk, an older
 * format) is found out and treated as a miss, never as the candidate's code:
 * the candidate is compiled again and the entry replaced. The hash is a
 * check against damage, not against an adversary who can write the cache. */
#define CACHE_MAGIC "SYMVCUB\1"          /* 8 bytes: format 1 */
#define CACHE_MAX_BYTES (64u << 20)      /* a larger CUBIN is not ours */

typedef struct {
  char magic[8];       /* CACHE_MAGIC */
  uint64_t key;        /* the cache key: FNV-1a of every input of the compilation */
  uint64_t size;       /* bytes of CUBIN after the header, 1..CACHE_MAX_BYTES */
  uint64_t hash;       /* FNV-1a of those bytes */
  char name[64];       /* the entry point, symv_kernel_name(), NUL-padded */
} cache_header;

/* Reads len bytes at fd's position into buf, again after a short count or
 * EINTR; 0, or -1 on an error or an early end of file. (Writes go through
 * symv_write_all.) */
static int read_all(int fd, void *buf, size_t len)
{
  char *p = buf;
  while (len > 0) {
    ssize_t r = read(fd, p, len);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r, len -= (size_t)r;
  }
  return 0;
}

/* The cache entry at path, if it is a regular file (opened without
 * following a symbolic link or waiting on a FIFO) that holds the code of
 * `key` and entry point `name` intact: *data (malloc'ed) and *size; else
 * -1, and nothing is allocated. */
static int cache_read(const char *path, uint64_t key, const char *name, void **data, size_t *size)
{
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  cache_header h;
  void *buf = NULL;
  int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)sizeof h &&
           st.st_size <= (off_t)(sizeof h + CACHE_MAX_BYTES) && read_all(fd, &h, sizeof h) == 0 &&
           memcmp(h.magic, CACHE_MAGIC, sizeof h.magic) == 0 && h.key == key &&
           h.size == (uint64_t)st.st_size - sizeof h && memchr(h.name, 0, sizeof h.name) &&
           strcmp(h.name, name) == 0 && (buf = malloc((size_t)h.size)) != NULL &&
           read_all(fd, buf, (size_t)h.size) == 0 && fnv1a(0xcbf29ce484222325ull, buf, (size_t)h.size) == h.hash;
  close(fd);
  if (!ok) {
    free(buf);
    return -1;
  }
  *data = buf, *size = (size_t)h.size;
  return 0;
}

/* Writes the entry to a fresh temporary file beside path, then renames it
 * over path: a reader never sees half an entry, parallel writers of the same
 * key are harmless, and whatever was at path (a bad entry, a FIFO, a
 * symbolic link) is replaced, not written through. Failure is not an error:
 * the code is just not cached. */
static void cache_write(const char *path, uint64_t key, const char *name, const void *data, size_t size)
{
  if (size == 0 || size > CACHE_MAX_BYTES) return;
  cache_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, CACHE_MAGIC, sizeof h.magic);
  h.key = key, h.size = size, h.hash = fnv1a(0xcbf29ce484222325ull, data, size);
  snprintf(h.name, sizeof h.name, "%s", name);
  char tmp[PATH_MAX + 256];
  if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) return;
  int fd = mkstemp(tmp);
  if (fd < 0) return;
  int ok = symv_write_all(fd, &h, sizeof h) == 0 && symv_write_all(fd, data, size) == 0;
  ok &= close(fd) == 0;
  if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

#define MAX_OPTS 16

/* Hashes into *h the file `name` of source set `set` and, recursively,
 * the files of the set it includes with #include "..." that seen[] has
 * not marked (seen: one mark per entry of the set). Files not in the set
 * (system headers) add nothing. */
static void code_hash_file(const symv_source *set, int nset, const char *name, unsigned char *seen, uint64_t *h)
{
  int k = -1;
  for (int i = 0; i < nset; i++)
    if (!strcmp(set[i].name, name)) k = i;
  if (k < 0 || seen[k]) return;
  seen[k] = 1;
  const char *text = set[k].text;
  *h = fnv1a(*h, name, strlen(name) + 1);
  *h = fnv1a(*h, text, strlen(text) + 1);
  for (const char *line = text, *eol; line && *line; line = eol ? eol + 1 : NULL) {
    eol = strchr(line, '\n');
    const char *q = line + strspn(line, " \t");
    if (*q != '#') continue;
    q += 1 + strspn(q + 1, " \t");
    if (strncmp(q, "include", 7)) continue;
    q += 7 + strspn(q + 7, " \t");
    const char *end = *q == '"' ? strchr(q + 1, '"') : NULL;
    if (!end || (eol && end > eol) || end - q - 1 >= 128) continue;
    char inc[128];
    memcpy(inc, q + 1, (size_t)(end - q - 1));
    inc[end - q - 1] = 0;
    code_hash_file(set, nset, inc, seen, h);
  }
}

/* symv_code_id of p over the set: the files' part (or, with memo, its
 * memoised value) and the defines */
static int code_id_of(const symv_source *set, int nset, int memo, const symv_params *p, char out[17])
{
  if (!out || !p || symv_params_check(p, NULL, 0)) return SYMV_INVALID_VALUE;
  char defines[256];
  const char *srcname;
  symv_compile_defines(p, defines, sizeof defines, &srcname);
  if (!set_text(set, nset, srcname)) return SYMV_INVALID_VALUE;
  if (nset > 256) return SYMV_INVALID_VALUE;
  /* the files' part, once per kernel file: a sweep asks for every point */
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  static struct { const char *name; uint64_t h; } memos[32];
  static int nmemo;
  uint64_t h = 0;
  int found = 0;
  if (memo) {
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nmemo && !found; i++)
      if (!strcmp(memos[i].name, srcname)) h = memos[i].h, found = 1;
  }
  if (!found) {
    unsigned char seen[256] = {0};
    h = 0xcbf29ce484222325ull;
    code_hash_file(set, nset, srcname, seen, &h);
    if (memo && nmemo < 32) memos[nmemo].name = srcname, memos[nmemo++].h = h;
  }
  if (memo) pthread_mutex_unlock(&mu);
  h = fnv1a(h, defines, strlen(defines) + 1);
  snprintf(out, 17, "%016llx", (unsigned long long)h);
  return 0;
}

int symv_code_id(const symv_params *p, char out[17])
{
  return code_id_of(symv_sources, symv_nsources, 1, p, out);
}

int symv_code_id_in(const symv_source_set *s, const symv_params *p, char out[17])
{
  if (!s) return SYMV_INVALID_VALUE;
  return code_id_of(s->files, s->n, 0, p, out);
}

int symv_code_current(const symv_params *p, const char *code)
{
  char now[17];
  return code && symv_code_id(p, now) == 0 && strcmp(now, code) == 0;
}

/* symv_compile over the source set (set, nset): a CUBIN for sm_XY, or with
 * ptx the PTX for compute_XY (then no cache: the text and its NUL in
 * out->data, size counting the NUL) */
static int compile_set(const symv_source *set, int nset, int ptx, const symv_params *p, int cc_major, int cc_minor,
                       symv_cubin *out, char **log)
{
  memset(out, 0, sizeof *out);
  if (log) *log = NULL;
  if (symv_params_check(p, NULL, 0) || cc_major < 5 || cc_major > 20 || cc_minor < 0 || cc_minor > 9)
    return SYMV_INVALID_VALUE;

  char defines[256], arch[48];
  const char *srcname;
  symv_compile_defines(p, defines, sizeof defines, &srcname);
  symv_kernel_name(p, out->name, sizeof out->name);
  snprintf(arch, sizeof arch, "--gpu-architecture=%s_%d%d", ptx ? "compute" : "sm", cc_major, cc_minor);

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

  /* headers: every embedded file that is not a .cu, all of them (a kernel
   * including one left out would fail to compile) */
  enum { MAX_HEADERS = 32 };
  const char *hdr_text[MAX_HEADERS], *hdr_name[MAX_HEADERS];
  int nhdr = 0;
  for (int i = 0; i < nset; i++)
    if (!strstr(set[i].name, ".cu") || strstr(set[i].name, ".cuh")) {
      if (nhdr == MAX_HEADERS) return SYMV_INVALID_VALUE; /* more embedded headers than NVRTC is given room for */
      hdr_name[nhdr] = set[i].name;
      hdr_text[nhdr++] = set[i].text;
    }
  const char *src = set_text(set, nset, srcname);
  if (!src) return SYMV_INVALID_VALUE;

  uint64_t h = 0xcbf29ce484222325ull;
  int ver = symv_nvrtc_version();
  h = fnv1a(h, &ver, sizeof ver);
  h = fnv1a(h, src, strlen(src) + 1);
  for (int i = 0; i < nhdr; i++) h = fnv1a(h, hdr_text[i], strlen(hdr_text[i]) + 1);
  for (int i = 0; i < nopts; i++) h = fnv1a(h, opts[i], strlen(opts[i]) + 1);

  char path[PATH_MAX + 128];
  const char *dir = ptx || getenv("SYMVTUNE_NO_CACHE") ? NULL : symv_cache_dir();
  if (dir) {
    snprintf(path, sizeof path, "%s/%s-sm%d%d-%016llx.entry", dir, out->name, cc_major, cc_minor,
             (unsigned long long)h);
    if (cache_read(path, h, out->name, &out->data, &out->size) == 0) {
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
  if ((ptx ? nvrtcGetPTXSize(prog, &n) : nvrtcGetCUBINSize(prog, &n)) == NVRTC_SUCCESS && n > 0) {
    out->data = malloc(n);
    if (!out->data) rc = SYMV_NO_MEMORY;
    else if ((ptx ? nvrtcGetPTX(prog, out->data) : nvrtcGetCUBIN(prog, out->data)) == NVRTC_SUCCESS) out->size = n, rc = 0;
  }
  nvrtcDestroyProgram(&prog);
  if (rc) {
    symv_cubin_free(out);
    return rc;
  }
  out->compile_ms = now_ms() - t0;
  if (dir) cache_write(path, h, out->name, out->data, out->size);
  return 0;
}

int symv_compile(const symv_params *p, int cc_major, int cc_minor, symv_cubin *out, char **log)
{
  return compile_set(symv_sources, symv_nsources, 0, p, cc_major, cc_minor, out, log);
}

int symv_compile_ptx_in(const symv_source_set *s, const symv_params *p, int cc_major, int cc_minor, symv_cubin *out,
                        char **log)
{
  if (!s) {
    memset(out, 0, sizeof *out);
    if (log) *log = NULL;
    return SYMV_INVALID_VALUE;
  }
  return compile_set(s->files, s->n, 1, p, cc_major, cc_minor, out, log);
}

static symv_source_set embedded_set;
static void embedded_set_init(void) { embedded_set.files = symv_sources, embedded_set.n = symv_nsources; }

const symv_source_set *symv_sources_embedded(void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, embedded_set_init);
  return &embedded_set;
}

int symv_sources_load(const char *dir, symv_source_set *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  symv_source *files = calloc((size_t)symv_nsources, sizeof *files);
  if (!files) return SYMV_NO_MEMORY;
  int n = 0, rc = 0;
  for (int i = 0; i < symv_nsources && !rc; i++) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, symv_sources[i].name) >= (int)sizeof path) {
      snprintf(err, errlen, "%s: path too long", dir);
      rc = SYMV_INVALID_VALUE;
      break;
    }
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) continue; /* a file today's sources have and these lack */
      snprintf(err, errlen, "%s: %s", path, strerror(errno));
      rc = SYMV_IO;
      break;
    }
    struct stat st;
    char *text = NULL;
    size_t len = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      snprintf(err, errlen, "%s: not a regular file", path);
      rc = SYMV_IO;
    } else if (!(text = malloc((len = (size_t)st.st_size) + 1))) {
      rc = SYMV_NO_MEMORY;
    } else if (read_all(fd, text, len) != 0) {
      snprintf(err, errlen, "%s: cannot read it whole", path);
      rc = SYMV_IO;
    }
    close(fd);
    if (rc) {
      free(text);
      break;
    }
    text[len] = 0;
    if (strlen(text) != len) {
      snprintf(err, errlen, "%s: not a text file (a NUL byte)", path);
      free(text);
      rc = SYMV_INVALID_VALUE;
      break;
    }
    files[n].name = symv_sources[i].name, files[n++].text = text;
  }
  if (!rc && n == 0) {
    snprintf(err, errlen, "%s holds none of the kernel sources (symv_*.cu, *.cuh, *.h of kernels/)", dir);
    rc = SYMV_NOT_FOUND;
  }
  if (rc) {
    for (int i = 0; i < n; i++) free((char *)files[i].text);
    free(files);
    return rc;
  }
  out->files = files, out->n = n, out->owned = 1;
  return 0;
}

void symv_sources_free(symv_source_set *s)
{
  if (!s || !s->owned) return;
  for (int i = 0; i < s->n; i++) free((char *)s->files[i].text);
  free((void *)s->files);
  memset(s, 0, sizeof *s);
}

void symv_cubin_free(symv_cubin *c)
{
  free(c->data);
  c->data = NULL;
  c->size = 0;
}
