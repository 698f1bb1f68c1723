/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doctor.c - the diagnosis of `symvtune doctor` (doctor.h): runs a program
 * once and says whether its SYMV/HEMV calls reach libsymv, and if not, why
 * and how to fix it.
 *
 * The program runs with, in a private temporary folder:
 *   SYMV_LOG=1 SYMV_LOG_FILE=TMP/calls.log  libsymv's line per call (lib/libsymv.c)
 *   LD_DEBUG=bindings LD_DEBUG_OUTPUT=TMP/ld  the dynamic linker's bindings, one file per process (ld.PID)
 *   LD_BIND_NOW=1                            every binding made at load time, so that they show even when
 *                                            the program fails before its first call
 * The verdict comes from what happened, not from guessing: which object
 * each of the routines' cuBLAS names bound to (for every object that refers
 * to one, libsymv and cuBLAS themselves aside); the dynamic sections
 * (readelf -d, binutils, through a pipe) of those objects and of the
 * libsymv loaded, for the NEEDED order and the libcublas.so.N each needs;
 * and the log's lines, summarized per routine. The first problem found,
 * in the order of doctor.h's list, gives the exit status.
 */
#define _GNU_SOURCE
#include "doctor.h"
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "routine.h"
#include "symv.h"

/* ---- Parsing the log and the bindings -------------------------------------- */

/* Copies [s, e) into buf (size bytes), cut to fit. */
static void copy_span(char *buf, size_t size, const char *s, const char *e)
{
  size_t l = (size_t)(e - s);
  if (l >= size) l = size - 1;
  memcpy(buf, s, l);
  buf[l] = 0;
}

int doctor_parse_call(const char *line, doctor_call *out)
{
  static const char head[] = "libsymv: ";
  memset(out, 0, sizeof *out);
  if (strncmp(line, head, sizeof head - 1)) return -1;
  const char *p = line + sizeof head - 1, *sp = strchr(p, ' ');
  if (!sp || sp == p || strncmp(sp, " n=", 3)) return -1;
  copy_span(out->routine, sizeof out->routine, p, sp);
  char *end;
  errno = 0;
  long n = strtol(sp + 3, &end, 10);
  if (end == sp + 3 || errno || n < -2147483647L - 1 || n > 2147483647L || strncmp(end, " uplo=", 6)) return -1;
  out->n = (int)n;
  const char *u = end + 6, *ue = strchr(u, ' ');
  if (!ue) return -1;
  copy_span(out->uplo, sizeof out->uplo, u, ue);
  const char *incy = strstr(ue, " incy="), *colon = incy ? strstr(incy, ": ") : NULL;
  if (!colon) return -1;
  const char *served = colon + 2, *open = strstr(served, " ("), *close = open ? strstr(open, ") -> ") : NULL;
  if (!open || open == served || !close) return -1;
  copy_span(out->served, sizeof out->served, served, open);
  copy_span(out->why, sizeof out->why, open + 2, close);
  const char *st = close + 5, *se = st + strcspn(st, " \n");
  if (se == st) return -1;
  copy_span(out->status, sizeof out->status, st, se);
  return 0;
}

int doctor_parse_binding(const char *line, doctor_binding *out)
{
  static const char head[] = "binding file ", to[] = " to ", sym[] = "symbol `";
  memset(out, 0, sizeof *out);
  const char *p = strstr(line, head);
  if (!p) return -1;
  p += sizeof head - 1;
  const char *fe = strstr(p, " ["), *t = fe ? strstr(fe, to) : NULL;
  if (!fe || !t) return -1;
  t += sizeof to - 1;
  const char *te = strstr(t, " ["), *s = te ? strstr(te, sym) : NULL;
  if (!te || !s) return -1;
  s += sizeof sym - 1;
  const char *se = strchr(s, '\'');
  if (!se || se == s || fe == p || te == t) return -1;
  if ((size_t)(fe - p) >= sizeof out->from || (size_t)(te - t) >= sizeof out->to ||
      (size_t)(se - s) >= sizeof out->symbol)
    return -1;
  copy_span(out->from, sizeof out->from, p, fe);
  copy_span(out->to, sizeof out->to, t, te);
  copy_span(out->symbol, sizeof out->symbol, s, se);
  return 0;
}

/* ---- The routines' names ------------------------------------------------------- */

/* How libsymv stands to a name. */
enum { NAME_V2, NAME_LEGACY, NAME_64 };

/* name as one of the routines' cuBLAS names: 0 with *r and *kind set, else
 * -1. NAME_V2: cublasDsymv_v2 (libsymv's); NAME_LEGACY: cublasDsymv (the
 * legacy API of cublas.h, where cuBLAS exports it); NAME_64: cublasDsymv_v2_64. */
static int routine_name_of(const char *name, symv_routine *r, int *kind)
{
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const char *v2 = symv_routine_get((symv_routine)i)->cublas; /* "cublasDsymv_v2" */
    const size_t l = strlen(v2) - 3;                            /* "cublasDsymv" */
    if (strncmp(name, v2, l)) continue;
    *r = (symv_routine)i;
    if (!strcmp(name + l, "_v2")) *kind = NAME_V2;
    else if (!name[l]) *kind = NAME_LEGACY;
    else if (!strcmp(name + l, "_v2_64") || !strcmp(name + l, "_64")) *kind = NAME_64;
    else continue;
    return 0;
  }
  return -1;
}

/* The file name of a path. */
static const char *base_of(const char *path)
{
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int is_libsymv(const char *path) { return !strncmp(base_of(path), "libsymv.so", 10); }
static int is_libcublas(const char *path) { return !strncmp(base_of(path), "libcublas.so", 12); }

/* The N of a libcublas.so.N name, or -1. */
static int cublas_major(const char *name)
{
  const char *b = base_of(name);
  if (strncmp(b, "libcublas.so.", 13)) return -1;
  char *end;
  long v = strtol(b + 13, &end, 10);
  return end != b + 13 && v >= 0 && v < 1000 ? (int)v : -1;
}

/* ---- Running things ------------------------------------------------------------- */

/* A growing list of unique strings. */
typedef struct {
  char **s;
  size_t n, cap;
} strlist;

static int strlist_add(strlist *l, const char *s)
{
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->s[i], s)) return 0;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    char **t = realloc(l->s, cap * sizeof *t);
    if (!t) return -1;
    l->s = t, l->cap = cap;
  }
  if (!(l->s[l->n] = strdup(s))) return -1;
  l->n++;
  return 0;
}

static void strlist_free(strlist *l)
{
  for (size_t i = 0; i < l->n; i++) free(l->s[i]);
  free(l->s);
  memset(l, 0, sizeof *l);
}

/* The dynamic section of an ELF object as readelf -d (binutils) prints it:
 * its NEEDED entries in order, and RUNPATH or RPATH. */
typedef struct {
  int ok;              /* readelf ran and the object has a dynamic section */
  strlist needed;      /* DT_NEEDED, in the order the dynamic linker searches them */
  char runpath[4096];  /* DT_RUNPATH, else DT_RPATH ("" if none) */
} elf_dyn;

/* Reads path's dynamic section with `readelf -d -W` (LC_ALL=C, no shell). 0,
 * or -1 with why in err (readelf missing, not an ELF object). */
static int read_dynamic(const char *path, elf_dyn *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  int fd[2];
  if (pipe(fd)) {
    snprintf(err, errlen, "pipe: %s", strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "fork: %s", strerror(errno));
    close(fd[0]), close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2);
    close(fd[0]), close(fd[1]);
    setenv("LC_ALL", "C", 1);
    unsetenv("LD_PRELOAD"), unsetenv("LD_DEBUG");
    execlp("readelf", "readelf", "-d", "-W", "--", path, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  FILE *f = fdopen(fd[0], "r");
  char line[8192];
  int have = 0;
  while (f && fgets(line, sizeof line, f)) {
    char *l = strchr(line, '['), *r = l ? strchr(l, ']') : NULL;
    if (!r) continue;
    *r = 0;
    if (strstr(line, "(NEEDED)")) {
      if (strlist_add(&out->needed, l + 1)) break;
      have = 1;
    } else if (strstr(line, "(RUNPATH)") || (strstr(line, "(RPATH)") && !*out->runpath)) {
      snprintf(out->runpath, sizeof out->runpath, "%s", l + 1);
      have = 1;
    } else if (strstr(line, "(SONAME)")) {
      have = 1;
    }
  }
  if (f) fclose(f);
  else close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    snprintf(err, errlen, "readelf (binutils) is not installed");
    return -1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) || !have) {
    snprintf(err, errlen, "readelf -d found no dynamic section (not a dynamically linked ELF object?)");
    out->ok = 0;
    return -1;
  }
  out->ok = 1;
  return 0;
}

static void elf_dyn_free(elf_dyn *e) { strlist_free(&e->needed); }

/* The index of the first NEEDED entry of e for which pred holds, or -1. */
static int needed_index(const elf_dyn *e, int (*pred)(const char *))
{
  for (size_t i = 0; i < e->needed.n; i++)
    if (pred(e->needed.s[i])) return (int)i;
  return -1;
}

/* Removes the folder made for a run and what the run left in it. */
static void remove_tmp(const char *dir)
{
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char p[PATH_MAX];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
      }
    closedir(d);
  }
  rmdir(dir);
}

/* Runs argv[0] (searched in PATH like execvp) with the doctor's
 * environment; *wstatus its wait status. 0, or -1 with a message when it
 * could not be started. */
static int run_program(char **argv, const char *tmp, int *wstatus)
{
  char log[PATH_MAX + 16], ld[PATH_MAX + 16];
  snprintf(log, sizeof log, "%s/calls.log", tmp);
  snprintf(ld, sizeof ld, "%s/ld", tmp);
  int fd[2]; /* the child's exec error, if any; closed on a successful exec */
  if (pipe2(fd, O_CLOEXEC)) {
    fprintf(stderr, "symvtune doctor: pipe: %s\n", strerror(errno));
    return -1;
  }
  struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGINT, &ign, &old_int); /* like system(): the program takes ^C, the doctor reports */
  sigaction(SIGQUIT, &ign, &old_quit);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    setenv("SYMV_LOG", "1", 1);
    setenv("SYMV_LOG_FILE", log, 1);
    setenv("LD_DEBUG", "bindings", 1);
    setenv("LD_DEBUG_OUTPUT", ld, 1);
    setenv("LD_BIND_NOW", "1", 1);
    execvp(argv[0], argv);
    int e = errno;
    if (write(fd[1], &e, sizeof e) < 0) {}
    _exit(127);
  }
  close(fd[1]);
  int e = 0, rc = 0;
  if (pid < 0) {
    fprintf(stderr, "symvtune doctor: fork: %s\n", strerror(errno));
    rc = -1;
  } else {
    ssize_t got = read(fd[0], &e, sizeof e);
    while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR) {}
    if (got == (ssize_t)sizeof e) {
      fprintf(stderr, "symvtune doctor: cannot run %s: %s\n", argv[0], strerror(e));
      rc = -1;
    }
  }
  close(fd[0]);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGQUIT, &old_quit, NULL);
  return rc;
}

/* ---- What happened ------------------------------------------------------------ */

/* A binding of one of the routines' names, from an object of the program. */
typedef struct {
  char from[1024], to[1024], symbol[128];
  symv_routine r;
  int kind; /* NAME_V2, NAME_LEGACY, NAME_64 */
} ref;

/* Calls of one routine in the log. */
#define MAX_GROUPS 8
typedef struct {
  char text[192]; /* what served the calls, or why */
  long count;     /* calls */
} group;

typedef struct {
  long calls;        /* lines of the routine */
  long kernel_calls; /* served by a kernel of libsymv */
  long args;         /* served by nothing: argument errors, n = 0 */
  long untuned;      /* no rules of the routine ('any' set) */
  long untuned_det;  /* no deterministic rules of the routine */
  long other_gpu;    /* a GPU that is not the one the rules were tuned on */
  long det_cublas;   /* cuBLAS by a deterministic rule */
  int n_lo, n_hi;    /* range of n called */
  group served[MAX_GROUPS], why[MAX_GROUPS];
  int nserved, nwhy;
  long served_more, why_more; /* calls of kinds past MAX_GROUPS */
} routine_log;

/* One more call of kind s among g[0..*n), or in *more past MAX_GROUPS kinds. */
static void count_in(group *g, int *n, long *more, const char *s)
{
  for (int i = 0; i < *n; i++)
    if (!strcmp(g[i].text, s)) {
      g[i].count++;
      return;
    }
  if (*n == MAX_GROUPS) {
    (*more)++;
    return;
  }
  snprintf(g[*n].text, sizeof g[*n].text, "%s", s);
  g[(*n)++].count = 1;
}

/* Adds call c to lg. */
static void log_add(routine_log *lg, const doctor_call *c)
{
  if (!lg->calls || c->n < lg->n_lo) lg->n_lo = c->n;
  if (!lg->calls || c->n > lg->n_hi) lg->n_hi = c->n;
  lg->calls++;
  const int cublas = !strcmp(c->served, "cuBLAS") || !strcmp(c->served, "cuBLAS with atomics");
  if (!cublas && strcmp(c->served, "none")) lg->kernel_calls++;
  if (!strcmp(c->served, "none")) lg->args++;
  if (!strncmp(c->why, "untuned routine", 15)) {
    if (strstr(c->why, "deterministic")) lg->untuned_det++;
    else lg->untuned++;
  }
  if (!strncmp(c->why, "fallback: device", 16) && (strstr(c->why, "tuned on") || strstr(c->why, "no wisdom")))
    lg->other_gpu++; /* a compiled-in library's other GPU, or a --wisdom library's GPU no file matches */
  if (cublas && !strncmp(c->why, "deterministic rule", 18)) lg->det_cublas++;
  count_in(lg->served, &lg->nserved, &lg->served_more, c->served);
  count_in(lg->why, &lg->nwhy, &lg->why_more, c->why);
}

/* Reads the call log; returns the lines that were calls, -1 if the file
 * cannot be read (none written: no call was logged). */
static long read_log(const char *path, routine_log *lg, long *unparsed)
{
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[2048];
  long calls = 0;
  while (fgets(line, sizeof line, f)) {
    doctor_call c;
    symv_routine r;
    static const char identity[] = "libsymv: symvtune-rules: "; /* the log's identity line: symvGetInfo tells it */
    if (!strncmp(line, identity, sizeof identity - 1)) continue;
    if (doctor_parse_call(line, &c) || symv_routine_parse(c.routine, &r)) {
      (*unparsed)++;
      continue;
    }
    log_add(&lg[r], &c);
    calls++;
  }
  fclose(f);
  return calls;
}

/* Reads every LD_DEBUG_OUTPUT file (TMP/ld.PID) into refs (those of the
 * routines' names from objects other than libsymv and cuBLAS) and loaded
 * (every object named). 0, or -1 when out of memory. */
static int read_bindings(const char *tmp, ref **refs, size_t *nrefs, strlist *loaded)
{
  DIR *d = opendir(tmp);
  if (!d) return 0;
  struct dirent *e;
  size_t cap = 0;
  int rc = 0;
  char *line = malloc(8192);
  doctor_binding *b = malloc(sizeof *b);
  if (!line || !b) rc = -1;
  while (!rc && (e = readdir(d))) {
    if (strncmp(e->d_name, "ld.", 3)) continue;
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", tmp, e->d_name);
    FILE *f = fopen(p, "r");
    while (f && !rc && fgets(line, 8192, f)) {
      if (doctor_parse_binding(line, b)) continue;
      if (strlist_add(loaded, b->from) || strlist_add(loaded, b->to)) rc = -1;
      symv_routine r;
      int kind;
      if (rc || routine_name_of(b->symbol, &r, &kind) || is_libsymv(b->from) || is_libcublas(b->from)) continue;
      int seen = 0;
      for (size_t i = 0; i < *nrefs && !seen; i++)
        seen = !strcmp((*refs)[i].from, b->from) && !strcmp((*refs)[i].to, b->to) &&
               !strcmp((*refs)[i].symbol, b->symbol);
      if (seen) continue;
      if (*nrefs == cap) {
        cap = cap ? 2 * cap : 16;
        ref *t = realloc(*refs, cap * sizeof *t);
        if (!t) {
          rc = -1;
          break;
        }
        *refs = t;
      }
      ref *x = &(*refs)[(*nrefs)++];
      snprintf(x->from, sizeof x->from, "%s", b->from);
      snprintf(x->to, sizeof x->to, "%s", b->to);
      snprintf(x->symbol, sizeof x->symbol, "%s", b->symbol);
      x->r = r, x->kind = kind;
    }
    if (f) fclose(f);
  }
  closedir(d);
  free(line), free(b);
  return rc;
}

int doctor_expected_lib(const char *dir, char *out)
{
  char p[PATH_MAX + 32];
  snprintf(p, sizeof p, "%s/lib/libsymv.so.0", dir);
  if (realpath(p, out)) return 0;
  snprintf(p, sizeof p, "%s/libsymv.so.0", dir);
  return realpath(p, out) ? 0 : -1;
}

/* Prints the ways to link libsymv so that it stays, and comes first: with
 * --lib DIR's pkg-config file (and the CUDA modules' folder it requires)
 * and library, else the libsymv loaded (may be ""). */
static void print_link_fix(const char *libdir, const char *loaded)
{
  char pc[PATH_MAX + 96] = "", so[PATH_MAX + 32] = "/path/to/libsymv.so.0", dir[PATH_MAX];
  if (*loaded) snprintf(so, sizeof so, "%s", loaded);
  if (libdir && realpath(libdir, dir)) {
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/lib/pkgconfig", dir);
    if (access(p, F_OK) == 0) snprintf(pc, sizeof pc, "PKG_CONFIG_PATH=%s:$CUDA_HOME/pkgconfig ", p);
    snprintf(p, sizeof p, "%s/lib/libsymv.so.0", dir);
    if (access(p, F_OK) == 0 || (snprintf(p, sizeof p, "%s/libsymv.so.0", dir), access(p, F_OK) == 0))
      snprintf(so, sizeof so, "%s", p);
  }
  printf("  fix: link with libsymv's own flags, before any -lcublas of yours; they keep it NEEDED under\n"
         "       -Wl,--as-needed (-Wl,--push-state,--no-as-needed -lsymv -Wl,--pop-state -lcublas):\n"
         "         cc ... -o prog prog.o $(%spkg-config --libs libsymv)\n"
         "       (the .pc requires the CUDA toolkit's modules cublas-V and cudart-V: their folder, here\n"
         "       $CUDA_HOME/pkgconfig, on PKG_CONFIG_PATH)\n"
         "       CMake: find_package(symv) and target_link_libraries(prog PRIVATE symv::symv) (it puts\n"
         "       libsymv ahead of every library); or, without relinking, run the program with\n"
         "         LD_PRELOAD=%s\n",
         pc, so);
}

/* Prints e's NEEDED list, marking libsymv and libcublas. */
static void print_needed(const char *obj, const elf_dyn *e)
{
  printf("  %s NEEDED:", obj);
  for (size_t i = 0; i < e->needed.n; i++) {
    const char *s = e->needed.s[i];
    printf(" %s%s%s", is_libsymv(s) || is_libcublas(s) ? "[" : "", s, is_libsymv(s) || is_libcublas(s) ? "]" : "");
  }
  printf("%s\n", e->needed.n ? "" : " (none)");
  if (*e->runpath) printf("  %s RUNPATH: %s\n", obj, e->runpath);
}

static const char *const info_name[SYMV_INFO_ROUTINES] = {"ssymv", "dsymv", "csymv", "zsymv", "chemv", "zhemv"};

/* libsymv's report of itself (symvGetInfo), loaded here on its own
 * (RTLD_LOCAL), printed, and unloaded: *info keeps its numbers, its
 * strings are NULL. 0, or -1 with why printed. */
static int lib_info(const char *path, symvInfo *info)
{
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("  (cannot load it here to ask symvGetInfo: %s)\n", dlerror());
    return -1;
  }
  /* symvGetInfo_v3 fills the whole symvInfo of this symv.h; an older
   * library has symvGetInfo_v2, which fills the fields before
   * `symvtune_version`, or (older than the wisdom files) only symvGetInfo,
   * which fills those before `wisdom` (the rest left zero here). */
  memset(info, 0, sizeof *info);
  static const char *const entry[] = {"symvGetInfo_v3", "symvGetInfo_v2", "symvGetInfo"};
  cublasStatus_t (*get)(symvInfo *) = NULL;
  for (int i = 0; i < 3 && !get; i++) get = (cublasStatus_t (*)(symvInfo *))dlsym(h, entry[i]);
  int rc = get && get(info) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
  if (rc) {
    printf("  (it has no symvGetInfo: a libsymv older than this symvtune)\n");
  } else {
    printf("  version %s, rules tuned on %s (sm_%d%d, %d SMs), kernels for %s; this machine's GPU: %s\n",
           info->version, info->tuned_gpu, info->tuned_cc_major, info->tuned_cc_minor, info->tuned_sm_count,
           info->arch, info->device < 0 ? "none" : info->device_matched == 1 ? "the tuned one" : "another one");
    printf("  rules (any / deterministic):");
    for (int i = 0; i < SYMV_INFO_ROUTINES; i++) printf(" %s %d/%d", info_name[i], info->rules[i], info->det_rules[i]);
    printf("\n");
    if (info->wisdom)
      printf("  wisdom: %d file(s) offered, %d accepted; this GPU's: %s\n", info->wisdom_files,
             info->wisdom_accepted, info->wisdom_matched ? info->wisdom_matched : "none (its calls go to cuBLAS)");
    for (const char *l = info->wisdom ? info->wisdom_report : NULL; l && *l;) { /* each file: accepted, rules id */
      const size_t n = strcspn(l, "\n");
      printf("    %.*s\n", (int)n, l);
      l += n + (l[n] == '\n');
    }
    if (info->identity) {
      printf("  identity: %s\n", info->identity);
      if (info->wisdom && *info->rules_id) printf("  this GPU's wisdom file: rules %s; fits %s\n", info->rules_id,
                                                  info->fits);
    } else {
      printf("  identity: not told (a libsymv older than symvGetInfo_v3)\n");
    }
    info->version = info->tuned_gpu = info->arch = NULL; /* the library's, gone with it */
    info->wisdom_report = info->wisdom_matched = info->wisdom_dir = NULL;
    info->symvtune_version = info->rules_id = info->fits = info->identity = NULL;
  }
  dlclose(h);
  return rc;
}

int doctor_lib_report(const char *path)
{
  symvInfo info;
  printf("libsymv %s\n", path);
  int rc = lib_info(path, &info);
  if (fflush(stdout) || ferror(stdout)) {
    fprintf(stderr, "symvtune doctor: cannot write the output\n");
    return DOCTOR_ERROR;
  }
  return rc ? DOCTOR_ERROR : DOCTOR_OK;
}

/* The symvInfo index of routine r. */
static int info_index(symv_routine r)
{
  for (int i = 0; i < SYMV_INFO_ROUTINES; i++)
    if (!strcmp(info_name[i], symv_routine_name(r))) return i;
  return -1;
}

/* ---- The diagnosis ------------------------------------------------------------ */

/* What one run showed, gathered step by step for the verdict. */
typedef struct {
  const char *libdir;       /* --lib DIR, or NULL */
  const char *want;         /* the libsymv --lib names (realpath), "" without --lib */
  ref *refs;                /* the routines' names bound, from objects other than libsymv and cuBLAS */
  size_t nrefs;
  strlist loaded;           /* every object the dynamic linker named */
  strlist symv_loaded;      /* the libsymv objects loaded (realpath) */
  strlist cublas_loaded;    /* the libcublas objects loaded */
  strlist callers;          /* the objects whose _v2 names were bound */
  const char *symv_path;    /* the libsymv the calls reach, or NULL */
  char symv_real[PATH_MAX]; /* its realpath (or the first libsymv loaded), "" if none */
  elf_dyn symv_dyn;         /* its dynamic section */
  int lib_major;            /* the N of the libcublas.so.N libsymv needs, or -1 */
  routine_log lg[SYMV_ROUTINE_COUNT];
  long ncalls, unparsed;    /* lines of the call log that were calls (-1: no log), that were not */
  long kernel_calls, cublas_calls;
  symvInfo info;            /* the libsymv's symvGetInfo, when have_info */
  int have_info;
  int found[8];             /* which statuses apply, by index status - 10 */
} diagnosis;

/* Prints which library each routine name bound to; notes what that says. */
static void judge_bindings(diagnosis *g)
{
  for (size_t i = 0; i < g->loaded.n; i++) {
    char real[PATH_MAX];
    const char *p = realpath(g->loaded.s[i], real) ? real : g->loaded.s[i];
    if (is_libsymv(g->loaded.s[i])) strlist_add(&g->symv_loaded, p);
    if (is_libcublas(g->loaded.s[i])) strlist_add(&g->cublas_loaded, g->loaded.s[i]);
  }
  printf("\nbindings of the routines' cuBLAS names (LD_DEBUG=bindings):\n");
  if (!g->nrefs) printf("  none: the program refers to none of the routines' names\n");
  for (size_t i = 0; i < g->nrefs; i++) {
    const ref *x = &g->refs[i];
    const char *kind = is_libsymv(x->to) ? "libsymv" : is_libcublas(x->to) ? "cuBLAS" : "another library";
    printf("  %s: %s -> %s (%s)%s\n", x->from, x->symbol, x->to, kind,
           x->kind == NAME_LEGACY ? ": the legacy API, which libsymv does not replace"
           : x->kind == NAME_64    ? ": the 64-bit-integer API, which libsymv does not replace"
                                   : "");
    if (x->kind != NAME_V2) g->found[DOCTOR_OTHER_API - 10] = 1;
    else if (is_libsymv(x->to)) g->symv_path = x->to;
    else g->found[g->symv_loaded.n ? DOCTOR_CUBLAS_FIRST - 10 : DOCTOR_NOT_LINKED - 10] = 1;
  }
  if (g->symv_loaded.n) {
    printf("libsymv loaded from:");
    for (size_t i = 0; i < g->symv_loaded.n; i++) printf(" %s", g->symv_loaded.s[i]);
    printf("\n");
  }
}

/* Prints the NEEDED order of each calling object and of libsymv; notes
 * libsymv dropped or after cuBLAS, two CUDA major versions, another
 * libsymv than --lib's. */
static void judge_links(diagnosis *g)
{
  for (size_t i = 0; i < g->nrefs; i++)
    if (g->refs[i].kind == NAME_V2) strlist_add(&g->callers, g->refs[i].from);
  char err[256] = "";
  if (g->symv_path || g->symv_loaded.n) {
    const char *p = g->symv_path ? g->symv_path : g->symv_loaded.s[0];
    char real[PATH_MAX];
    snprintf(g->symv_real, sizeof g->symv_real, "%s", realpath(p, real) ? real : p);
    if (read_dynamic(g->symv_real, &g->symv_dyn, err, sizeof err)) printf("  %s: %s\n", g->symv_real, err);
  }
  for (size_t i = 0; g->symv_dyn.ok && i < g->symv_dyn.needed.n; i++)
    if (cublas_major(g->symv_dyn.needed.s[i]) >= 0) g->lib_major = cublas_major(g->symv_dyn.needed.s[i]);
  for (size_t i = 0; i < g->callers.n; i++) {
    elf_dyn e;
    if (read_dynamic(g->callers.s[i], &e, err, sizeof err)) {
      printf("  %s: %s\n", g->callers.s[i], err);
      elf_dyn_free(&e);
      continue;
    }
    print_needed(g->callers.s[i], &e);
    const int is = needed_index(&e, is_libsymv), ic = needed_index(&e, is_libcublas);
    int bound_cublas = 0;
    for (size_t j = 0; j < g->nrefs; j++)
      bound_cublas |= g->refs[j].kind == NAME_V2 && !strcmp(g->refs[j].from, g->callers.s[i]) &&
                      is_libcublas(g->refs[j].to);
    if (bound_cublas && is < 0)
      printf("  -> %s does not record libsymv NEEDED: %s\n", g->callers.s[i],
             g->symv_loaded.n ? "libsymv came in another way (another object, or dlopen) after cuBLAS had been "
                                "found"
                              : "it was dropped at link time (-Wl,--as-needed drops a library that resolves "
                                "nothing where the linker meets it: -lsymv after -lcublas), or never linked");
    else if (bound_cublas && ic >= 0 && ic < is)
      printf("  -> libcublas is NEEDED before libsymv: the dynamic linker searches in this order and takes "
             "cuBLAS's definition\n");
    const int cm = ic >= 0 ? cublas_major(e.needed.s[ic]) : -1;
    if (cm >= 0 && g->lib_major >= 0 && cm != g->lib_major) {
      printf("  -> %s needs libcublas.so.%d; libsymv %s was built against libcublas.so.%d (CUDA %d): one "
             "process, two CUDA major versions\n", g->callers.s[i], cm, g->symv_real, g->lib_major, g->lib_major);
      g->found[DOCTOR_CUDA_MAJOR - 10] = 1;
    }
    elf_dyn_free(&e);
  }
  if (g->cublas_loaded.n > 1) { /* two majors loaded, whoever needs them */
    int m0 = cublas_major(g->cublas_loaded.s[0]);
    for (size_t i = 1; i < g->cublas_loaded.n; i++)
      if (cublas_major(g->cublas_loaded.s[i]) >= 0 && m0 >= 0 && cublas_major(g->cublas_loaded.s[i]) != m0) {
        printf("  -> two cuBLAS major versions are loaded: %s and %s\n", g->cublas_loaded.s[0],
               g->cublas_loaded.s[i]);
        g->found[DOCTOR_CUDA_MAJOR - 10] = 1;
      }
  }
  if (g->libdir && g->symv_path) {
    char real[PATH_MAX];
    const char *p = realpath(g->symv_path, real) ? real : g->symv_path;
    if (strcmp(p, g->want)) {
      printf("  -> the calls reach %s, not the library of --lib %s (%s): the program's RUNPATH or\n"
             "     LD_LIBRARY_PATH finds that one first\n", p, g->libdir, g->want);
      g->found[DOCTOR_OTHER_PATH - 10] = 1;
    }
  }
}

/* Prints what libsymv says of itself and the calls it logged, per
 * routine; notes calls that went to cuBLAS for want of rules or by the
 * handle's default atomics mode. */
static void judge_calls(diagnosis *g)
{
  if (*g->symv_real) {
    printf("\nlibsymv %s\n", g->symv_real);
    if (g->lib_major >= 0) printf("  built against libcublas.so.%d\n", g->lib_major);
    g->have_info = lib_info(g->symv_real, &g->info) == 0;
  }
  printf("\ncalls libsymv logged (SYMV_LOG):");
  if (g->ncalls <= 0) printf(" none%s\n", g->symv_path ? " (the program made no SYMV/HEMV call in this run)" : "");
  else printf(" %ld\n", g->ncalls);
  if (g->unparsed)
    printf("  (%ld line%s of the log not understood, left out)\n", g->unparsed, g->unparsed == 1 ? "" : "s");
  for (int r = 0; r < SYMV_ROUTINE_COUNT && g->ncalls > 0; r++) {
    const routine_log *l = &g->lg[symv_routine_order(r)];
    if (!l->calls) continue;
    const symv_routine ro = symv_routine_order(r);
    printf("  %s: %ld call%s, n %d..%d; %ld ran a libsymv kernel\n", symv_routine_name(ro), l->calls,
           l->calls == 1 ? "" : "s", l->n_lo, l->n_hi, l->kernel_calls);
    for (int i = 0; i < l->nserved; i++) printf("    %8ld  %s\n", l->served[i].count, l->served[i].text);
    if (l->served_more) printf("    %8ld  others\n", l->served_more);
    printf("    why:\n");
    for (int i = 0; i < l->nwhy; i++) printf("    %8ld  %s\n", l->why[i].count, l->why[i].text);
    if (l->why_more) printf("    %8ld  others\n", l->why_more);
    g->kernel_calls += l->kernel_calls;
    g->cublas_calls += l->calls - l->kernel_calls - l->args;
    if (l->other_gpu || l->untuned) g->found[DOCTOR_NO_RULES - 10] = 1;
    const int ii = info_index(ro);
    if (!l->kernel_calls && (l->det_cublas || l->untuned_det) && g->have_info && ii >= 0 && g->info.rules[ii] > 0)
      g->found[DOCTOR_ATOMICS - 10] = 1;
  }
  if (!g->nrefs) g->found[DOCTOR_NO_CALLS - 10] = 1;
}

/* The first status found, in doctor.h's order, printed with its fix. */
static int verdict(const diagnosis *g)
{
  int status = DOCTOR_OK;
  for (int s = DOCTOR_NOT_LINKED; s <= DOCTOR_ATOMICS && status == DOCTOR_OK; s++)
    if (g->found[s - 10]) status = s;
  if (status == DOCTOR_OK && g->found[DOCTOR_NO_CALLS - 10]) status = DOCTOR_NO_CALLS;
  printf("\nverdict (exit %d): ", status);
  switch (status) {
  case DOCTOR_OK:
    printf("the program's SYMV/HEMV calls reach libsymv (%s)\n", g->symv_real);
    if (g->ncalls > 0 && !g->kernel_calls && g->cublas_calls)
      printf("  its rules chose cuBLAS at every size called: that is what they predict to be fastest there\n");
    break;
  case DOCTOR_NOT_LINKED:
    printf("libsymv is not loaded, so the calls go to cuBLAS\n");
    print_link_fix(g->libdir, g->symv_real);
    break;
  case DOCTOR_CUBLAS_FIRST:
    printf("libsymv is loaded, but the calls bind to cuBLAS, which the dynamic linker finds first\n");
    print_link_fix(g->libdir, g->symv_real);
    break;
  case DOCTOR_OTHER_API:
    printf("the program calls names libsymv does not replace\n"
           "  fix: call the cublas_v2.h routines with 32-bit n (cublasDsymv_v2 and the like, which cublasDsymv\n"
           "       names under cublas_v2.h): the legacy cublas.h API and the _64 routines go to cuBLAS\n");
    break;
  case DOCTOR_CUDA_MAJOR:
    printf("the program and libsymv use two CUDA major versions\n"
           "  fix: build libsymv with the toolkit the program uses (symvtune build --nvcc PATH of that CUDA),\n"
           "       or the program with libsymv's\n");
    break;
  case DOCTOR_OTHER_PATH:
    printf("the calls reach another libsymv than %s\n"
           "  fix: link the program against that tree (its pkg-config file sets the RUNPATH), or run it with\n"
           "       LD_LIBRARY_PATH=%.*s\n", g->want, (int)(strrchr(g->want, '/') - g->want), g->want);
    break;
  case DOCTOR_NO_RULES:
    printf("the calls reach libsymv, but it has no rules for %s, so they go to cuBLAS\n",
           g->have_info && g->info.device >= 0 && g->info.device_matched == 0 ? "this GPU" : "this GPU or routine");
    if (g->have_info && g->info.wisdom)
      printf("  fix: tune on this GPU (symvtune tune --routine R, or sweep + fit), then symvtune export the rules\n"
             "       into the library's wisdom folder (%s) or a file named by SYMV_WISDOM\n",
             "DIR/share/symv");
    else
      printf("  fix: tune on this GPU (symvtune tune --routine R, or sweep + fit + build), and link the new library\n");
    break;
  case DOCTOR_ATOMICS:
    printf("the calls reach libsymv, but every one went to cuBLAS: the handle is in cuBLAS's default\n"
           "  CUBLAS_ATOMICS_NOT_ALLOWED, which promises bitwise reproducible results, and libsymv's deterministic\n"
           "  rules choose cuBLAS at these sizes\n"
           "  fix: if run-to-run identical bits are not needed, call cublasSetAtomicsMode(handle,\n"
           "       CUBLAS_ATOMICS_ALLOWED): libsymv then runs its 'any' rules (symvtune rules shows both sets)\n");
    break;
  case DOCTOR_NO_CALLS:
    printf("the program refers to none of cublasSsymv_v2, ..., cublasZhemv_v2 through the dynamic linker\n"
           "  (it does not call them, or links cuBLAS statically): libsymv cannot stand in for them\n");
    break;
  }
  return status;
}

int doctor_run(char **prog, const char *libdir, const char *want, int keep)
{
  const char *tmpdir = getenv("TMPDIR");
  char tmp[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s/symvtune-doctor-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(tmp)) {
    fprintf(stderr, "symvtune doctor: cannot make a temporary folder %s: %s\n", tmp, strerror(errno));
    return DOCTOR_ERROR;
  }
  printf("symvtune doctor: running %s with SYMV_LOG=1, LD_DEBUG=bindings, LD_BIND_NOW=1\n", prog[0]);
  printf("---- the program's output ----\n");
  int ws = 0;
  if (run_program(prog, tmp, &ws)) {
    remove_tmp(tmp);
    return DOCTOR_ERROR;
  }
  fflush(NULL);
  printf("---- end of the program's output ----\n");
  if (WIFEXITED(ws)) printf("the program exited with status %d\n", WEXITSTATUS(ws));
  else if (WIFSIGNALED(ws)) printf("the program was killed by signal %d (%s)\n", WTERMSIG(ws), strsignal(WTERMSIG(ws)));

  diagnosis *g = calloc(1, sizeof *g);
  if (!g) {
    fprintf(stderr, "symvtune doctor: out of memory\n");
    remove_tmp(tmp);
    return DOCTOR_ERROR;
  }
  g->libdir = libdir, g->want = want ? want : "", g->lib_major = -1;
  char logpath[PATH_MAX + 16];
  snprintf(logpath, sizeof logpath, "%s/calls.log", tmp);
  int status = DOCTOR_ERROR;
  if (read_bindings(tmp, &g->refs, &g->nrefs, &g->loaded)) {
    fprintf(stderr, "symvtune doctor: out of memory reading the bindings\n");
  } else {
    g->ncalls = read_log(logpath, g->lg, &g->unparsed);
    if (!g->loaded.n)
      printf("\nno binding was recorded: %s is not a dynamically linked program, or it ran setuid (the dynamic\n"
             "linker then ignores LD_DEBUG); nothing can be said of its links\n", prog[0]);
    judge_bindings(g);
    judge_links(g);
    judge_calls(g);
    status = verdict(g);
  }
  strlist_free(&g->callers);
  strlist_free(&g->symv_loaded), strlist_free(&g->cublas_loaded);
  elf_dyn_free(&g->symv_dyn);
  free(g->refs);
  strlist_free(&g->loaded);
  free(g);
  if (keep) printf("the call log and the bindings are kept in %s\n", tmp);
  else remove_tmp(tmp);
  if (fflush(stdout) || ferror(stdout)) {
    fprintf(stderr, "symvtune doctor: cannot write the output\n");
    return DOCTOR_ERROR;
  }
  return status;
}
