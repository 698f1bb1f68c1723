/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.c - the stage of `symvtune bench` (bench.h): a generated libsymv
 * (DIR/lib/libsymv.so, loaded with dlopen) timed next to the routine's
 * cuBLAS function with atomics off and on, and OpenBLAS's cblas_dsymv on
 * the host, at each size in one run, calls back to back through the timing
 * harness (measure/harness.h: events around batches of back-to-back calls,
 * median batch, A rotated among copies larger than twice the L2 unless
 * --hot; here the better of ROUNDS rounds taken in turn, so that none of
 * the three always goes first), libsymv's result checked against cuBLAS's
 * by the scaled residual (reference.h). The copy bandwidth that "% of copy"
 * refers to is measured in the same run.
 *
 * The closing summary holds the targets: libsymv no slower than the
 * faster cuBLAS mode at every n; the geometric-mean speed-up over that mode
 * for n in 500..4096; the least % of the copy rate for n >= 8192.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench.h"
#include "config.h"
#include "floor.h"
#include "harness.h"
#include "reference.h"
#include "routine.h"
#include "sweep.h"
#include "symv.h"
#include "symv_error.h"
#include "util.h"

#define TOL SYMV_RESIDUAL_TOL /* largest scaled residual accepted (reference.h) */
#define ROUNDS 2 /* rounds of libsymv, cuBLAS, cuBLAS atomics at each n */

/* One row of the table. */
typedef struct {
  int n;
  char kernel[64];  /* symvLastKernel after libsymv's calls */
  double us[4];     /* libsymv, cuBLAS, cuBLAS atomics, OpenBLAS; median per call, us */
  double resid;     /* libsymv vs cuBLAS, scaled */
  double pct_copy;  /* libsymv's matrix traffic over the copy rate, % */
  double speedup;   /* faster cuBLAS mode's time / libsymv's */
  double floor_us;  /* the floor (gpu/floor.h: the least over the read-only floor family), us; NAN if not run */
} bench_row;

static const char *const series[4] = {"libsymv", "cuBLAS", "cuBLAS atomics", "OpenBLAS"};

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}


/* OpenBLAS: median over `batches` wall-clock batches of calls, each batch
 * about 20 ms (at least one call), per call in us; one batch of one call
 * where a call takes more than 0.25 s. */
static double time_openblas(symv_routine r, char uplo, int n, const void *alpha, const void *A, const void *x,
                            const void *beta, void *y, int batches)
{
  double t0 = now_s();
  symv_ref(r, uplo, n, alpha, A, n, x, 1, beta, y, 1); /* warm-up */
  double once = now_s() - t0;
  int calls = once > 0 ? (int)(0.02 / once) : 1000;
  if (calls < 1) calls = 1;
  if (calls > 1000) calls = 1000;
  if (once > 0.25) batches = 1; /* LAPACK's single-threaded csymv_/zsymv_ at large n: seconds a call */
  double *t = malloc(sizeof(double) * (size_t)batches);
  if (!t) return NAN;
  for (int b = 0; b < batches; b++) {
    t0 = now_s();
    for (int c = 0; c < calls; c++) symv_ref(r, uplo, n, alpha, A, n, x, 1, beta, y, 1);
    t[b] = (now_s() - t0) * 1e6 / calls;
  }
  const double med = symv_median(t, (size_t)batches);
  free(t);
  return med;
}

/* Writes FILE.gp (gnuplot, data inline) and runs gnuplot on it if there is
 * one (if not, says so: the script can be plotted elsewhere). 0, or -1 with
 * a message when the script cannot be written or gnuplot fails. */
static int plot(symv_routine r, const char *png, const bench_row *rows, int nrows, const char *device, char uplo,
                int hot)
{
  if (strchr(png, '\'') || strchr(png, '\n')) {
    fprintf(stderr, "symvtune bench: --figure: a file name with a quote or line break cannot go into gnuplot\n");
    return -1;
  }
  char gp[PATH_MAX + 8];
  snprintf(gp, sizeof gp, "%s.gp", png);
  symv_out_file gpf, pngf; /* both written whole, beside where they go */
  if (symv_out_open(&gpf, gp)) {
    fprintf(stderr, "symvtune bench: cannot write %s: %s\n", gp, strerror(errno));
    return -1;
  }
  FILE *f = gpf.f;
  char dev[256];
  size_t k = 0;
  for (const char *p = device; *p && k + 1 < sizeof dev; p++) dev[k++] = (*p == '\'' || *p == '"' || *p < 0x20) ? ' ' : *p;
  dev[k] = 0;
  fprintf(f, "# symvtune bench: GFLOPS of %s over n (gnuplot %s.gp)\n", symv_routine_get(r)->blas, png);
  fprintf(f, "$data << EOD\n# n libsymv cuBLAS cuBLAS_atomics OpenBLAS (GFLOPS)\n");
  for (int i = 0; i < nrows; i++) {
    fprintf(f, "%d", rows[i].n);
    for (int s = 0; s < 4; s++) fprintf(f, " %.4g", symv_gflops(r, rows[i].n, rows[i].us[s]));
    fprintf(f, "\n");
  }
  fprintf(f, "EOD\n");
  fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1100,650 } "
             "else { set terminal png size 1100,650 }\n");
  /* gnuplot FILE.gp writes FILE; bench has it write a temporary file (out) */
  fprintf(f, "if (!exists(\"out\")) out = '%s'\nset output out\n", png);
  fprintf(f, "set title '%s on %s, uplo %c, A %s'\n", symv_routine_get(r)->blas, dev, uplo, hot ? "hot (in L2)" : "cold");
  fprintf(f, "set logscale x 2\nset xlabel 'n'\nset ylabel 'GFLOPS'\nset key left top\nset grid\n");
  fprintf(f, "plot");
  for (int s = 0; s < 4; s++)
    fprintf(f, "%s $data using 1:%d with linespoints title '%s'", s ? "," : "", s + 2, series[s]);
  fprintf(f, "\n");
  if (symv_out_commit(&gpf)) {
    fprintf(stderr, "symvtune bench: cannot write %s: %s\n", gp, strerror(errno));
    return -1;
  }
  const char *gnuplot = GNUPLOT_PATH;
  if (!*gnuplot || access(gnuplot, X_OK)) { /* the script travels; plot it elsewhere */
    printf("plot: no gnuplot here (configure found '%s'): run gnuplot %s to make %s\n", gnuplot, gp, png);
    return 0;
  }
  if (symv_out_open(&pngf, png)) {
    fprintf(stderr, "symvtune bench: cannot write %s: %s\n", png, strerror(errno));
    return -1;
  }
  fclose(pngf.f), pngf.f = NULL;
  char setout[PATH_MAX + 16];
  snprintf(setout, sizeof setout, "out='%s'", pngf.tmp);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    execl(gnuplot, gnuplot, "-e", setout, gp, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
    fprintf(stderr, "symvtune bench: %s %s failed\n", gnuplot, gp);
    symv_out_abort(&pngf);
    return -1;
  }
  if (symv_out_commit(&pngf)) {
    fprintf(stderr, "symvtune bench: cannot write %s: %s\n", png, strerror(errno));
    return -1;
  }
  printf("plot: %s (script %s)\n", png, gp);
  return 0;
}

/* What the sizes of a run share. */
typedef struct {
  const bench_opts *o;
  void *lib;                        /* the library, dlopen's handle */
  harness_lib_fn symv;              /* its entry point of the routine */
  const char *(*last_kernel)(void); /* its symvLastKernel */
  symv_device_info dev;
  db *d;                            /* the database of --db, or NULL */
  int have_hs;                      /* hs is initialized */
  harness hs;
  double copy;                      /* the copy rate, GB/s (read + write) */
  symv_floor_family fam;
  int have_floor;
} run_state;

/* Loads the library, finds the GPU and opens the database (once there is
 * a GPU, before anything is measured; a database is one GPU). A status,
 * after a message but for BENCH_OK. */
static int open_run(run_state *st)
{
  const bench_opts *o = st->o;
  const char *path = o->path;
  st->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!st->lib) {
    fprintf(stderr, "symvtune bench: cannot load %s: %s\n", path, dlerror());
    return BENCH_ERROR;
  }
  const symv_routine_info *ri = symv_routine_get(o->c.routine);
  st->symv = (harness_lib_fn)dlsym(st->lib, ri->api);
  st->last_kernel = (const char *(*)(void))dlsym(st->lib, "symvLastKernel");
  if (!st->symv || !st->last_kernel) {
    fprintf(stderr, "symvtune bench: %s does not export %s and symvLastKernel\n", path, ri->api);
    return BENCH_ERROR;
  }
  int rc = symv_device_query(o->c.device, &st->dev);
  if (rc) {
    if (rc == SYMV_NO_DEVICE) {
      fprintf(stderr, "symvtune bench: no CUDA device found: timing needs a GPU\n");
      return BENCH_NO_GPU;
    }
    fprintf(stderr, "symvtune bench: device %d: %s %s\n", o->c.device, symv_strerror(rc), symv_cuda_error_text());
    return rc == SYMV_INVALID_VALUE ? BENCH_USAGE : BENCH_ERROR;
  }
  if (o->db_path) {
    db_device fp;
    sweep_fingerprint_of(&st->dev, 0, &fp);
    if (db_open(&st->d, o->db_path, DB_CREATE)) {
      fprintf(stderr, "symvtune bench: %s\n", db_errmsg(st->d));
      return BENCH_ERROR;
    }
    if (db_check_device(st->d, &fp, 0)) {
      fprintf(stderr, "symvtune bench: --db: %s\n", db_errmsg(st->d));
      return BENCH_ERROR;
    }
    if (*db_warning(st->d)) fprintf(stderr, "symvtune bench: --db: %s\n", db_warning(st->d));
  }
  return BENCH_OK;
}

/* The cuBLAS handle, the copy rate, the run's head lines, the floor
 * family and the table's heading. BENCH_ERROR after a message, else
 * BENCH_OK. */
static int start_run(run_state *st)
{
  const bench_opts *o = st->o;
  const symv_device_info *dev = &st->dev;
  if (harness_init(&st->hs, o->c.routine, o->c.uplo, 1.0, 0.25, 0.5, -0.125)) {
    fprintf(stderr, "symvtune bench: cublasCreate failed\n");
    return BENCH_ERROR;
  }
  st->have_hs = 1;
  st->copy = symv_copy_bandwidth((size_t)1 << 30);
  printf("symvtune bench: %s on %s (sm_%d%d, %d SMs, L2 %.0f MB); copy rate %.0f GB/s (read + write)\n", o->path,
         dev->name, dev->cc_major, dev->cc_minor, dev->sm_count, dev->l2_bytes / 1e6, st->copy);
  char sa[64], sb[64];
  symv_scalar_format(o->c.routine, st->hs.alpha, sa, sizeof sa);
  symv_scalar_format(o->c.routine, st->hs.beta, sb, sizeof sb);
  printf("libsymv called with a handle in %s (its %s rules)\n",
         o->det ? "CUBLAS_ATOMICS_NOT_ALLOWED, cuBLAS's default" : "CUBLAS_ATOMICS_ALLOWED",
         o->det ? "deterministic" : "'any'");
  printf("%s: A %s, uplo %c, lda = n, incx = incy = 1, alpha %s, beta %s; %d batches; times per call in us\n\n",
         symv_routine_get(o->c.routine)->blas, o->c.hot ? "hot (one copy)" : "cold (rotated copies > 2 x L2)", o->c.uplo,
         sa, sb, o->c.batches);
  char why[600];
  st->have_floor = symv_floor_family_load(dev, o->c.routine, &st->fam, why, sizeof why) == 0;
  if (!st->have_floor) {
    symv_floor_family_free(&st->fam);
    fprintf(stderr, "symvtune bench: the floor family could not be loaded (%s): '-' for x floor\n", why);
  } else {
    symv_timing te;
    if (symv_floor_empty_time(&st->fam, o->c.batches, &te) == 0)
      printf("floor: the least time of %d read-only kernels that stream the stored triangle once; an empty\n"
             "kernel launched the same way takes %.2f us a call\n\n", st->fam.nshapes, te.median_us);
  }
  printf("%6s %-28s %9s %9s %9s %10s %8s %6s %8s %8s %8s\n", "n", "libsymv kernel", "libsymv", "cuBLAS", "cuBLAS-a",
         "OpenBLAS", "GFLOPS", "%copy", "speed-up", "x floor", "resid");
  return BENCH_OK;
}

/* Row r of size s (the run's first where first is set): libsymv verified
 * against cuBLAS, then ROUNDS rounds of the three timed in turn, the floor
 * and OpenBLAS; printed. BENCH_OK, BENCH_FAIL (libsymv wrong; the row is
 * complete), or BENCH_ERROR after a message (the row is not). */
static int measure_size(run_state *st, harness_size *s, int first, bench_row *r)
{
  const bench_opts *o = st->o;
  const int n = s->n;
  const cublasAtomicsMode_t lib_mode = o->det ? CUBLAS_ATOMICS_NOT_ALLOWED : CUBLAS_ATOMICS_ALLOWED;
  const harness_target lib = {NULL, st->symv}, cublas = {NULL, NULL};
  double call_us;
  int status = BENCH_OK, rc;
  /* one call of libsymv from y0: its result against cuBLAS's */
  cublasSetAtomicsMode(st->hs.h, lib_mode);
  if ((rc = harness_verify(&st->hs, s, &lib, &call_us, &r->resid))) {
    fprintf(stderr, "symvtune bench: libsymv at n = %d failed: %s\n", n,
            rc == SYMV_FAULT ? cudaGetErrorString(st->hs.fault) : symv_strerror(rc));
    return BENCH_ERROR;
  }
  r->n = n;
  if (!(r->resid <= TOL)) status = BENCH_FAIL;
  /* before the first size, ~0.2 s of calls of both, untimed: the GPU has
   * been idle (build), and its clocks rise only under load */
  cublasSetAtomicsMode(st->hs.h, CUBLAS_ATOMICS_NOT_ALLOWED);
  for (int w = 0; first && w < 2; w++) harness_warm_up(&st->hs, s, w == 0 ? &lib : &cublas);
  /* ROUNDS rounds of the three in turn, the best median of each kept; the
   * order is reversed every other round, so that none goes first always
   * (clocks, caches and host threads settle) */
  for (int round = 0; round < ROUNDS; round++)
    for (int i = 0; i < 3; i++) {
      const int w = round % 2 ? 2 - i : i;
      symv_timing t;
      cublasSetAtomicsMode(st->hs.h, w == 0 ? lib_mode : w == 2 ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED);
      if ((rc = harness_time_loop(&st->hs, s, w == 0 ? &lib : &cublas, o->c.batches, &t))) {
        fprintf(stderr, "symvtune bench: timing %s at n = %d: %s\n", series[w], n, symv_strerror(rc));
        return BENCH_ERROR;
      }
      if (round == 0 || t.median_us < r->us[w]) r->us[w] = t.median_us;
      if (w == 0) snprintf(r->kernel, sizeof r->kernel, "%s", st->last_kernel());
    }
  r->floor_us = NAN;
  symv_floor_result fr;
  if (st->have_floor && symv_floor_measure(&st->fam, &s->set, n, o->c.batches, 4, &fr) == 0) r->floor_us = fr.us;
  memcpy(s->yh, s->y0h, (size_t)n * st->hs.E);
  r->us[3] = time_openblas(o->c.routine, o->c.uplo, n, st->hs.alpha, s->A, s->xh, st->hs.beta, s->yh, o->c.batches);
  r->pct_copy = st->copy > 0 ? 100.0 * symv_gbs(o->c.routine, n, r->us[0]) / st->copy : NAN;
  r->speedup = (o->det ? r->us[1] : fmin(r->us[1], r->us[2])) / r->us[0];
  char xf[16] = "-";
  if (r->floor_us > 0) snprintf(xf, sizeof xf, "%.2f", r->us[0] / r->floor_us);
  printf("%6d %-28s %9.2f %9.2f %9.2f %10.1f %8.1f %6.1f %8.2f %8s %8.2g%s\n", n, r->kernel, r->us[0], r->us[1],
         r->us[2], r->us[3], symv_gflops(o->c.routine, n, r->us[0]), r->pct_copy, r->speedup, xf, r->resid,
         r->resid <= TOL ? "" : "  WRONG");
  fflush(stdout);
  return status;
}

/* The summary against the targets of the nrows rows. */
static void summary(const bench_opts *o, const bench_row *rows, int nrows)
{
  int slower = 0, nmid = 0, nbig = 0, nfloor = 0;
  double logsum = 0, minpct = INFINITY, logfloor = 0;
  const char *ref = o->det ? "cuBLAS without atomics" : "faster cuBLAS";
  printf("\nsummary against the targets (speed-up = %s's time / libsymv's):\n",
         o->det ? "cuBLAS without atomics (the mode a deterministic caller gets)" : "faster cuBLAS mode");
  for (int i = 0; i < nrows; i++) {
    const bench_row *r = &rows[i];
    if (r->speedup < 1.0) {
      if (!slower++) printf("  libsymv slower than the %s at n =", ref);
      printf(" %d (x%.3f)", r->n, r->speedup);
    }
    if (r->n >= 500 && r->n <= 4096) logsum += log(r->speedup), nmid++;
    if (r->n >= 500 && r->n <= 4096 && r->floor_us > 0) logfloor += log(r->us[0] / r->floor_us), nfloor++;
    if (r->n >= 8192) minpct = fmin(minpct, r->pct_copy), nbig++;
  }
  if (slower) printf("\n");
  printf("  libsymv <= %s at every n:%*s %s (%d of %d sizes)\n", ref, o->det ? 3 : 10, "", slower ? "NO" : "yes",
         nrows - slower, nrows);
  if (nmid) printf("  geometric-mean speed-up, n in 500..4096:       x%.3f over %d sizes\n", exp(logsum / nmid), nmid);
  else printf("  geometric-mean speed-up, n in 500..4096:       no size measured there\n");
  if (nfloor) printf("  libsymv over the floor, n in 500..4096:        x%.3f geometric mean over %d sizes\n",
                     exp(logfloor / nfloor), nfloor);
  if (nbig) printf("  least %% of the copy rate, n >= 8192:           %.1f%% over %d sizes\n", minpct, nbig);
  else printf("  least %% of the copy rate, n >= 8192:           no size measured there\n");
}

/* The run as the database keeps it (the library named by its real path
 * and its symvGetInfo) into *rec, stored in the database when there is
 * one. 0, or -1 with a message. */
static int record(const run_state *st, const bench_row *rows, int nrows, bench_record *rec)
{
  const bench_opts *o = st->o;
  const symv_device_info *dev = &st->dev;
  const char *path = o->path;
  db_bench_run run = {.deterministic = o->det, .hot = o->c.hot, .batches = o->c.batches, .cc_major = dev->cc_major,
                      .cc_minor = dev->cc_minor, .sm_count = dev->sm_count,
                      .copy_gbs = st->copy > 0 ? st->copy : NAN, .complete = nrows == o->c.nsizes};
  snprintf(run.symvtune, sizeof run.symvtune, "%s", PACKAGE_VERSION);
  char real[PATH_MAX];
  snprintf(run.lib_path, sizeof run.lib_path, "%.1023s", realpath(path, real) ? real : path);
  snprintf(run.device, sizeof run.device, "%s", dev->name);
  cublasStatus_t (*get_info)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(st->lib, "symvGetInfo");
  symvInfo info;
  if (get_info && get_info(&info) == CUBLAS_STATUS_SUCCESS) { /* a library older than symvGetInfo: "" */
    snprintf(run.lib_version, sizeof run.lib_version, "%s", info.version ? info.version : "");
    snprintf(run.lib_tuned_gpu, sizeof run.lib_tuned_gpu, "%s", info.tuned_gpu ? info.tuned_gpu : "");
    snprintf(run.lib_arch, sizeof run.lib_arch, "%s", info.arch ? info.arch : "");
  }
  db_bench_result *res = calloc((size_t)nrows + 1, sizeof *res);
  if (!res) {
    fprintf(stderr, "symvtune bench: %s\n", symv_strerror(SYMV_NO_MEMORY));
    return -1;
  }
  for (int i = 0; i < nrows; i++) {
    const bench_row *b = &rows[i];
    db_bench_result *r = &res[i];
    r->routine = o->c.routine;
    r->uplo = o->c.uplo, r->n = b->n;
    snprintf(r->kernel, sizeof r->kernel, "%s", *b->kernel ? b->kernel : "none");
    r->libsymv_us = b->us[0], r->cublas_us = b->us[1], r->cublas_atomics_us = b->us[2];
    r->openblas_us = b->us[3] > 0 ? b->us[3] : NAN;
    r->floor_us = b->floor_us > 0 ? b->floor_us : NAN;
    r->residual = b->resid >= 0 ? b->resid : NAN;
    r->pct_copy = b->pct_copy >= 0 ? b->pct_copy : NAN;
  }
  int rc = 0;
  if (st->d) {
    if (db_put_bench(st->d, &run, res, (size_t)nrows)) {
      fprintf(stderr, "symvtune bench: --db: the run could not be stored: %s\n", db_errmsg(st->d));
      rc = -1;
    } else {
      printf("stored in the database as bench run %lld (select * from v_bench where run_id = %lld)\n", run.id,
             run.id);
    }
  }
  rec->run = run;
  rec->res = res;
  rec->nres = (size_t)nrows;
  return rc;
}

int bench_size_setup(const char *cmd, harness *hs, harness_size *s, int n, const symv_device_info *dev, int hot,
                     unsigned long long *seed)
{
  size_t freeb = 0, totalb = 0;
  cudaMemGetInfo(&freeb, &totalb);
  hs->why[0] = 0;
  const int rc = harness_size_setup(hs, s, n, dev->l2_bytes, hot, freeb / 2, seed);
  if (rc && hs->why[0]) {
    fprintf(stderr, "symvtune %s: %s\n", cmd, hs->why);
  } else if (rc == SYMV_NO_MEMORY) {
    fprintf(stderr, "symvtune %s: out of host memory at n = %d\n", cmd, n);
  } else if (rc == SYMV_CUDA) {
    fprintf(stderr, "symvtune %s: device memory at n = %d (%d copies of A): %s\n", cmd, n, s->copies,
            symv_cuda_error_text());
    cudaGetLastError();
  } else if (rc) {
    fprintf(stderr, "symvtune %s: cuBLAS at n = %d failed: %s\n", cmd, n,
            rc == SYMV_FAULT ? cudaGetErrorString(hs->fault) : symv_strerror(rc));
  }
  return rc;
}

/* The sizes measured in turn into rows (*nrows of them complete), until
 * one fails for want of memory, CUDA or cuBLAS. A status. */
static int measure_sizes(run_state *st, bench_row *rows, int *nrows)
{
  const bench_opts *o = st->o;
  int status = BENCH_OK;
  unsigned long long seed = 20240917;
  for (int si = 0; si < o->c.nsizes && status != BENCH_ERROR; si++) {
    const int n = o->c.sizes[si];
    harness_size s;
    const int rc = bench_size_setup("bench", &st->hs, &s, n, &st->dev, o->c.hot, &seed);
    const int m = rc ? BENCH_ERROR : measure_size(st, &s, si == 0, &rows[*nrows]);
    if (m != BENCH_ERROR) ++*nrows;
    if (m != BENCH_OK) status = m;
    harness_size_free(&s);
  }
  return status;
}

/* The sizes measured, the summary, the figure and the record (into rec,
 * or only stored where rec is NULL). A status. */
static int measure_run(run_state *st, bench_record *rec)
{
  const bench_opts *o = st->o;
  bench_record kept = {0};
  bench_row *rows = calloc((size_t)o->c.nsizes, sizeof *rows);
  int nrows = 0, status = rows ? measure_sizes(st, rows, &nrows) : BENCH_OK;
  harness_free(&st->hs);
  st->have_hs = 0;
  if (st->have_floor) symv_floor_family_free(&st->fam);
  st->have_floor = 0;
  summary(o, rows, nrows);
  if (nrows < o->c.nsizes && status != BENCH_ERROR) status = BENCH_ERROR;
  if (status == BENCH_FAIL) printf("  WRONG RESULTS: libsymv differs from cuBLAS beyond %g\n", TOL);
  if (o->figure && nrows > 0 && plot(o->c.routine, o->figure, rows, nrows, st->dev.name, o->c.uplo, o->c.hot) &&
      status == BENCH_OK)
    status = BENCH_ERROR;
  if ((st->d || rec) && rows && record(st, rows, nrows, rec ? rec : &kept) && status != BENCH_ERROR)
    status = BENCH_ERROR;
  bench_record_free(&kept);
  free(rows);
  return status;
}

int bench_run(const bench_opts *o, bench_record *rec)
{
  run_state st = {.o = o};
  if (rec) memset(rec, 0, sizeof *rec);
  int status = open_run(&st);
  if (status == BENCH_OK) status = start_run(&st);
  if (status == BENCH_OK) status = measure_run(&st, rec);
  if (st.have_hs) harness_free(&st.hs);
  if (st.have_floor) symv_floor_family_free(&st.fam);
  if (st.d && db_close(st.d) && status == BENCH_OK) status = BENCH_ERROR;
  if (st.lib) dlclose(st.lib);
  return status;
}

void bench_record_free(bench_record *rec)
{
  free(rec->res);
  rec->res = NULL;
  rec->nres = 0;
}
