/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_wisdom.c - the rules of wisdom files read at run time (source.h),
 * for a library built with `symvtune build --wisdom`, which carries no
 * rules and no compiled kernels. open() reads the wisdom files (lib/wisdom.h)
 * of $SYMV_WISDOM (a ':'-separated list of files and folders) and then of
 * its system folder (symv_table_wisdom_dir, else LIBDIR/../share/symv
 * beside the library itself), refusing each malformed, hostile or foreign
 * file whole (with a line in the log and in symvGetInfo); each device takes
 * the first accepted file whose GPU fingerprint is the device's, and a
 * device no file matches goes to cuBLAS. A candidate its rules name is
 * compiled on the first call that needs it, by NVRTC from the kernel
 * sources embedded in the library with the options the tuner gave NVRTC
 * (gpu/compile.c, whose disk cache it shares), and refused, its sizes going
 * to cuBLAS, if its registers per thread or blocks per SM differ from what
 * the wisdom file recorded of the tuner's build.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "compile.h"
#include "identity.h"
#include "kernel_sources.h"
#include "source.h"
#include "symv_error.h"
#include "wisdom.h"

/* One file the search path offered, and what became of it. */
typedef struct {
  char *path;                              /* as found (malloc'ed) */
  int ok;                                  /* 1 accepted */
  symv_wisdom w;                           /* parsed (if ok) */
  symv_table_candidate *cands;             /* w's candidates as the dispatch reads them */
  symv_table_rule *rules;                  /* w's rules likewise */
  symv_table_routine routines[SYMV_ROUTINE_COUNT];
  symv_table_info info;                    /* w's device */
  char arch[16];                           /* "sm_90": what NVRTC compiles for there */
  libsymv_rules view;
  char rules_id[SYMV_RULES_ID_LEN + 1];    /* the rules id of view (identity.h) */
  char fits[2048];                         /* symv_fits_text of w's sets */
} wisdom_file;

static pthread_once_t wisdom_once = PTHREAD_ONCE_INIT;
static wisdom_file wfiles[SYMV_WISDOM_MAX_FILES];
static int nwfiles, nwaccepted;
static char wisdom_system[PATH_MAX];       /* the system folder */
static char wisdom_report[16384];          /* one line per file or skipped entry, for symvGetInfo */

/* What this source knows of each device beyond its libsymv_device (set up
 * and read as that is: under libsymv_lock, then published by its state). */
static struct {
  const wisdom_file *wf;    /* the matched wisdom file (state 1) */
  symv_device_info info;    /* the device, for NVRTC and loading */
  signed char *kst;         /* [ncands] 0 not compiled yet, 1 ok (k, ok set), -1 refused (kwhy says why) */
  char (*kwhy)[200];        /* [ncands] */
} wdev[LIBSYMV_MAX_DEVICES];

/* A line in the report, in the log (when on) and told with SYMV_VERBOSE. */
static void wisdom_tell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void wisdom_tell(const char *fmt, ...)
{
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  for (char *c = line; *c; c++) /* paths and texts of files: one line each, whatever they hold */
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  size_t l = strlen(wisdom_report);
  snprintf(wisdom_report + l, sizeof wisdom_report - l, "%s\n", line);
  FILE *log = libsymv_log();
  if (log) {
    char out[1100];
    snprintf(out, sizeof out, "libsymv: wisdom %s\n", line);
    fputs(out, log);
    fflush(log);
  }
  libsymv_notice("wisdom %s", line);
}

/* Makes f's dispatch view of its parsed wisdom, and its rules id and fits
 * text. 0, or -1 out of memory. */
static int wisdom_view_make(wisdom_file *f)
{
  const symv_wisdom *w = &f->w;
  f->cands = calloc(w->ncands > 0 ? (size_t)w->ncands : 1, sizeof *f->cands);
  f->rules = calloc(w->nrules > 0 ? (size_t)w->nrules : 1, sizeof *f->rules);
  if (!f->cands || !f->rules) return -1;
  for (int i = 0; i < w->ncands; i++) f->cands[i].p = w->cands[i].p, f->cands[i].name = w->cands[i].name;
  for (int i = 0; i < w->nrules; i++) /* SYMV_WISDOM_CUBLAS* are SYMV_RULE_CUBLAS* */
    f->rules[i].n_start = w->rules[i].n_start, f->rules[i].n_end = w->rules[i].n_end,
    f->rules[i].kernel = w->rules[i].kernel;
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const symv_wisdom_set *a = &w->set[r][0], *d = &w->set[r][1];
    symv_table_routine *t = &f->routines[r];
    t->first = a->have ? a->first : 0, t->count = a->have ? a->count : 0, t->fit_id = a->have ? a->fit_id : 0;
    t->uplo = a->have ? a->uplo : 'L', t->hot = a->have ? a->hot : 0;
    t->det_first = d->have ? d->first : 0, t->det_count = d->have ? d->count : 0;
    t->det_fit_id = d->have ? d->fit_id : 0;
  }
  snprintf(f->arch, sizeof f->arch, "sm_%d%d", w->dev.cc_major, w->dev.cc_minor);
  f->info = (symv_table_info){w->dev.name, w->dev.cc_major, w->dev.cc_minor, w->dev.sm_count, f->arch};
  f->view = (libsymv_rules){f->cands, w->ncands, f->rules, f->routines, &f->info, f->path};
  symv_rules_id(&f->info, f->cands, f->rules, f->routines, f->rules_id);
  symv_fit_brief fits[SYMV_ROUTINE_COUNT][2];
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++)
    for (int c = 0; c < 2; c++) {
      const symv_wisdom_set *a = &w->set[r][c];
      fits[r][c] = (symv_fit_brief){a->have, a->fit_id, a->created, a->uplo, a->hot, a->lo, a->hi};
    }
  symv_fits_text(fits, f->fits, sizeof f->fits);
  return 0;
}

/* Reads every file of the search path: $SYMV_WISDOM, then the system
 * folder. A file is accepted if it parses and was written from the kernel
 * sources this library compiles. */
static void wisdom_load(void)
{
  if (symv_table_wisdom_dir[0]) {
    snprintf(wisdom_system, sizeof wisdom_system, "%s", symv_table_wisdom_dir);
  } else { /* LIBDIR/../share/symv, beside the library wherever it was moved */
    Dl_info di;
    char tmp[PATH_MAX];
    if (dladdr((const void *)symvGetInfo_v3, &di) && di.dli_fname && strlen(di.dli_fname) < sizeof tmp) {
      snprintf(tmp, sizeof tmp, "%s", di.dli_fname);
      snprintf(wisdom_system, sizeof wisdom_system, "%s/../share/symv", dirname(tmp));
    }
  }
  uint64_t own = SYMV_WISDOM_FNV_INIT;
  for (int i = 0; i < symv_nsources; i++) {
    own = symv_wisdom_fnv(own, symv_sources[i].name, strlen(symv_sources[i].name) + 1);
    own = symv_wisdom_fnv(own, symv_sources[i].text, strlen(symv_sources[i].text) + 1);
  }
  char *files[SYMV_WISDOM_MAX_FILES], notes[4096];
  int n = 0;
  if (symv_wisdom_search(getenv("SYMV_WISDOM"), wisdom_system, files, &n, notes, sizeof notes)) {
    wisdom_tell("search: out of memory; no wisdom read");
    symv_wisdom_search_free(files, n);
    return;
  }
  for (char *p = notes, *nl; *p && (nl = strchr(p, '\n')); p = nl + 1) {
    *nl = 0;
    wisdom_tell("skipped %s", p);
  }
  for (int i = 0; i < n; i++) {
    wisdom_file *f = &wfiles[nwfiles++];
    char why[512];
    f->path = files[i];
    int rc = symv_wisdom_read(f->path, &f->w, why, sizeof why);
    if (rc) {
      wisdom_tell("%s: refused: %s", f->path, why);
    } else if (f->w.sources != own) {
      wisdom_tell("%s: refused: written by symvtune %s from kernel sources %016llx, and this library compiles "
                  "%016llx: export it again with the symvtune that built this library", f->path, f->w.symvtune,
                  (unsigned long long)f->w.sources, (unsigned long long)own);
    } else if (wisdom_view_make(f)) {
      wisdom_tell("%s: refused: out of memory", f->path);
    } else {
      int sets = 0;
      for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) sets += f->w.set[r][0].have + f->w.set[r][1].have;
      f->ok = 1, nwaccepted++;
      wisdom_tell("%s: accepted: %s (sm_%d%d, %d SMs), %d rule sets, rules %s", f->path, f->w.dev.name,
                  f->w.dev.cc_major, f->w.dev.cc_minor, f->w.dev.sm_count, sets, f->rules_id);
      continue;
    }
    symv_wisdom_free(&f->w);
    free(f->cands), free(f->rules), f->cands = NULL, f->rules = NULL;
  }
}

static void wisdom_open(void) { pthread_once(&wisdom_once, wisdom_load); }

/* The first accepted file whose fingerprint is d's, or NULL; then each
 * file is told with what differs on device dev. */
static const wisdom_file *wisdom_match(const symv_device_info *d, int dev)
{
  symv_wisdom_device wd;
  memset(&wd, 0, sizeof wd);
  snprintf(wd.name, sizeof wd.name, "%s", d->name);
  wd.cc_major = d->cc_major, wd.cc_minor = d->cc_minor, wd.sm_count = d->sm_count;
  wd.l2_bytes = (long long)d->l2_bytes, wd.bus_width_bits = d->bus_width_bits;
  wd.smem_per_sm = (int)d->smem_per_sm, wd.regs_per_sm = d->regs_per_sm;
  for (int i = 0; i < nwfiles; i++) {
    char why[300];
    if (wfiles[i].ok && symv_wisdom_match(&wfiles[i].w, &wd, why, sizeof why)) return &wfiles[i];
  }
  for (int i = 0; i < nwfiles; i++) {
    char why[300];
    if (wfiles[i].ok && !symv_wisdom_match(&wfiles[i].w, &wd, why, sizeof why))
      wisdom_tell("device %d: %s does not match: %s", dev, wfiles[i].path, why);
  }
  return NULL;
}

/* Device dev, of properties *d, on its first call: the wisdom file that
 * matches it. Its kernels are compiled later, each on its first use. */
static int wisdom_setup(int dev, const symv_device_info *d, libsymv_device *e)
{
  wdev[dev].info = *d;
  const wisdom_file *f = wisdom_match(d, dev);
  if (!f) {
    wisdom_tell("device %d: no accepted file (%d of %d) is of a %s (sm_%d%d, %d SMs, L2 %zu bytes): its calls go to "
                "cuBLAS", dev, nwaccepted, nwfiles, d->name, d->cc_major, d->cc_minor, d->sm_count, d->l2_bytes);
    return LIBSYMV_WHY_UNMATCHED;
  }
  const int nc = f->view.ncands > 0 ? f->view.ncands : 1;
  wdev[dev].kst = calloc((size_t)nc, 1);
  wdev[dev].kwhy = calloc((size_t)nc, sizeof *wdev[dev].kwhy);
  if (!wdev[dev].kst || !wdev[dev].kwhy || libsymv_device_alloc(e, nc)) {
    free(wdev[dev].kst), free(wdev[dev].kwhy);
    wdev[dev].kst = NULL, wdev[dev].kwhy = NULL;
    return LIBSYMV_WHY_NO_MEMORY;
  }
  wdev[dev].wf = f;
  wisdom_tell("device %d: %s matches, a %s (sm_%d%d, %d SMs)", dev, f->path, d->name, d->cc_major, d->cc_minor,
              d->sm_count);
  return LIBSYMV_WHY_NONE;
}

/* Compiles and loads candidate `cand` of device dev's wisdom (dev the
 * current device, e its entry) with NVRTC, as the tuner did, and holds it
 * to what the file recorded of the tuner's build: its registers per thread
 * and blocks per SM. Called with libsymv_lock held; sets kst[cand]. */
static void wisdom_prepare(int dev, libsymv_device *e, int cand)
{
  const wisdom_file *f = wdev[dev].wf;
  const symv_device_info *d = &wdev[dev].info;
  const symv_wisdom_cand *wc = &f->w.cands[cand];
  char *why = wdev[dev].kwhy[cand], label[64];
  const size_t whylen = sizeof wdev[dev].kwhy[cand];
  symv_cubin cub;
  char *log = NULL;
  symv_params_format(&wc->p, label, sizeof label);
  int rc = symv_compile(&wc->p, d->cc_major, d->cc_minor, &cub, &log);
  if (rc) {
    snprintf(why, whylen, "NVRTC: %s: %.120s", symv_strerror(rc), log ? log : "");
  } else {
    rc = symv_kernel_load(&wc->p, &cub, d, &e->k[cand], why, whylen);
    if (!rc && (e->k[cand].regs != wc->regs || e->k[cand].occupancy != wc->occupancy)) {
      snprintf(why, whylen, "%d registers per thread and %d blocks per SM, where the tuner's build had %d and %d",
               e->k[cand].regs, e->k[cand].occupancy, wc->regs, wc->occupancy);
      symv_kernel_unload(&e->k[cand]);
      rc = SYMV_OCCUPANCY;
    }
  }
  free(log);
  symv_cubin_free(&cub);
  if (rc) {
    for (char *c = why; *c; c++) /* one line: the NVRTC log may have several */
      if (*c == '\n' || *c == '\r') *c = ' ';
    wisdom_tell("device %d: kernel %s (%s) of %s refused: %s; its sizes go to cuBLAS", dev, wc->name, label, f->path,
                why);
  }
  e->ok[cand] = rc == 0;
  __atomic_store_n(&wdev[dev].kst[cand], rc ? -1 : 1, __ATOMIC_RELEASE);
}

/* The rules of device dev: its wisdom file's, or NULL (then, when note is
 * non-NULL, why). */
static const libsymv_rules *wisdom_view(int dev, libsymv_note *note)
{
  int state;
  libsymv_device *e = libsymv_device_of(dev, &state, note);
  if (!e) return NULL;
  if (state == 1) {
    if (note) note->wisdom = wdev[dev].wf->path;
    return &wdev[dev].wf->view;
  }
  libsymv_device_fallback(dev, e, "matches no wisdom file", note);
  return NULL;
}

/* The rules of the current device's wisdom file, or NULL (no current
 * device, or no file matches it). */
static const libsymv_rules *wisdom_rules(int *dev, libsymv_note *note)
{
  if (note) note->wisdom = "none";
  if (libsymv_current_device(dev, note)) return NULL;
  return wisdom_view(*dev, note);
}

/* The prepared kernel of candidate `cand` of device dev's wisdom (dev has
 * one: wisdom_rules), compiled on its first use; NULL if it was refused
 * (then, when note is non-NULL, why). */
static const symv_kernel *wisdom_kernel(const libsymv_rules *v, int dev, int cand, libsymv_note *note)
{
  int state;
  libsymv_device *e = libsymv_device_of(dev, &state, NULL); /* set up by wisdom_rules: state 1 */
  int st = __atomic_load_n(&wdev[dev].kst[cand], __ATOMIC_ACQUIRE);
  if (st == 0) {
    pthread_mutex_lock(&libsymv_lock);
    if (wdev[dev].kst[cand] == 0) wisdom_prepare(dev, e, cand);
    st = wdev[dev].kst[cand];
    pthread_mutex_unlock(&libsymv_lock);
  }
  if (st == 1) return &e->k[cand];
  NOTE(note, "cuBLAS", "fallback: kernel %s refused on device %d: %.100s", v->cands[cand].name, dev,
       wdev[dev].kwhy[cand]);
  return NULL;
}

/* The wisdom files read and, for device dev, the file it matches and that
 * file's GPU, rules and their identity (reads the files and matches;
 * compiles nothing). */
static void wisdom_info(symvInfo *info, int dev)
{
  static const symv_table_info none = {"", 0, 0, 0, ""};
  info->tuned_gpu = none.name, info->arch = none.arch;
  info->wisdom = 1;
  wisdom_open();
  info->wisdom_files = nwfiles;
  info->wisdom_accepted = nwaccepted;
  info->wisdom_report = wisdom_report;
  info->wisdom_dir = wisdom_system;
  if (dev < 0) return;
  const libsymv_rules *v = wisdom_view(dev, NULL);
  info->device_matched = libsymv_device_matched(dev) == 1;
  if (v) {
    libsymv_info_rules(info, v);
    info->wisdom_matched = v->path;
    info->rules_id = wdev[dev].wf->rules_id;
    info->fits = wdev[dev].wf->fits;
  }
}

/* The kernels NVRTC compiled for device dev were loaded as libraries of
 * their own. */
static void wisdom_release(int dev, libsymv_device *e)
{
  for (int c = 0; wdev[dev].kst && c < wdev[dev].wf->view.ncands; c++)
    if (wdev[dev].kst[c] == 1) symv_kernel_unload(&e->k[c]);
  free(wdev[dev].kst), free(wdev[dev].kwhy);
  memset(&wdev[dev], 0, sizeof wdev[dev]);
}

/* The wisdom files read (host memory only). */
static void wisdom_close(void)
{
  for (int i = 0; i < nwfiles; i++) {
    symv_wisdom_free(&wfiles[i].w);
    free(wfiles[i].cands), free(wfiles[i].rules), free(wfiles[i].path);
    memset(&wfiles[i], 0, sizeof wfiles[i]);
  }
  nwfiles = nwaccepted = 0;
}

/* The source this library links (source.h). */
const libsymv_source libsymv_rules_source = {.open = wisdom_open, .setup = wisdom_setup, .rules = wisdom_rules,
                                             .kernel = wisdom_kernel, .info = wisdom_info,
                                             .release = wisdom_release, .close = wisdom_close};
