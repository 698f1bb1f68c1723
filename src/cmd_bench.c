/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_bench.c - `symvtune bench`: times a generated libsymv (DIR/lib/
 * libsymv.so, loaded with dlopen) next to the routine's cuBLAS function with atomics off and
 * on, and OpenBLAS's cblas_dsymv on the host, at each size in one run, with
 * the sweep's timing discipline (timing.h: events around batches of
 * back-to-back calls, median batch, A rotated among copies larger than
 * twice the L2 unless --hot; here the better of ROUNDS rounds taken in
 * turn, so that none of the three always goes first), and checks libsymv's result against cuBLAS by
 * the scaled residual (reference.h). The copy bandwidth that "% of copy"
 * refers to is measured in the same run.
 *
 * The closing summary holds the targets: libsymv no slower than the
 * faster cuBLAS mode at every n; the geometric-mean speed-up over that mode
 * for n in 500..4096; the least % of the copy rate for n >= 8192.
 */
#include <cublas_v2.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../db/db.h"
#include "bench_json.h"
#include "cli.h"
#include "compile.h"
#include "symv.h"
#include "util.h"
#include "config.h"
#include "gpu.h"
#include "sweep.h"
#include "cublas_symv.h"
#include "floor.h"
#include "gnuplot.h"
#include "reference.h"
#include "routine.h"
#include "symv_error.h"
#include "timing.h"

#define MAX_SIZES 64
#define TOL SYMV_RESIDUAL_TOL /* largest scaled residual accepted (reference.h) */
#define ROUNDS 2 /* rounds of libsymv, cuBLAS, cuBLAS atomics at each n */

/* Default sizes: geometric, about sqrt(2) apart, 32..32768, with the round
 * sizes of the targets, and (apart from the ends) none of
 * the sweep's dense samples (24 per decade from 32), so the bench also
 * judges the fit between its samples. */
static const int default_sizes[] = {32,   64,   128,  256,  500,   724,   1000,  1448,  2000,
                                    2896, 4096, 5793, 8192, 11585, 16384, 23170, 32768};

/* libsymv's entry point of a routine (symvDsymv, ..., symvZhemv): the
 * cuBLAS prototype, with the routine's scalar type behind each pointer. */
typedef cublasStatus_t (*lib_fn)(cublasHandle_t, cublasFillMode_t, int, const void *, const void *, int,
                                 const void *, int, const void *, void *, int);

/* One timed configuration's call. */
typedef struct {
  lib_fn fn; /* libsymv's entry point; NULL: the routine's cuBLAS function */
  symv_routine r;
  cublasHandle_t h;
  const symv_matrix_set *set;
  int n;
  const void *x;
  void *y;
  const void *alpha, *beta;
  char uplo;
} call_ctx;

static int call(void *vctx, int rep, cudaStream_t s)
{
  call_ctx *c = vctx;
  const void *A = symv_matrix_set_get(c->set, rep);
  cublasStatus_t st =
      c->fn ? c->fn(c->h, c->uplo == 'L' ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER, c->n, c->alpha, A, c->n,
                    c->x, 1, c->beta, c->y, 1)
            : symv_cublas(c->h, c->r, c->uplo, c->n, c->alpha, A, c->n, c->x, 1, c->beta, c->y, 1);
  return st == CUBLAS_STATUS_SUCCESS ? 0 : SYMV_CUBLAS;
}

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

static void help(void)
{
  puts("Usage: symvtune bench --lib DIR [OPTIONS]\n"
       "Times the generated library DIR/lib/libsymv.so (symvDsymv, ... for --routine) next to cuBLAS with\n"
       "atomics off and on, and OpenBLAS cblas_dsymv on the host, at each size in one run: CUDA\n"
       "events around batches of back-to-back calls, median of the batches, the better of two\n"
       "rounds taken in turn, A rotated among copies larger than twice the L2 (cold) unless\n"
       "--hot; the host's time is the median of wall-clock batches. Checks libsymv's y against cuBLAS's (scaled residual). Prints n, the\n"
       "kernel libsymv ran (symvLastKernel), microseconds of each, libsymv's GFLOPS and % of the\n"
       "device-to-device copy rate measured in the same run, the speed-up over the faster cuBLAS\n"
       "mode, libsymv's time over the floor (the least time over a family of read-only kernels\n"
       "that stream the stored triangle once, kernels/symv_floor.cu, measured in the same run and\n"
       "timed the same way), and a summary against the targets: libsymv <= the\n"
       "faster cuBLAS at every n; the geometric-mean speed-up for n in 500..4096; the least % of\n"
       "the copy rate for n >= 8192; libsymv over the floor in 500..4096.\n\n"
       "Options:\n"
       "  --lib DIR      the output folder of `symvtune build` (required)\n"
       CLI_ROUTINE_HELP CLI_EACH_JSON_HELP
       "  --sizes LIST   comma-separated n (default 32,64,128,256,500,724,1000,1448,2000,2896,\n"
       "                 4096,5793,8192,11585,16384,23170,32768: geometric, mostly between the\n"
       "                 sweep's dense samples)\n"
       "  --uplo L|U     stored triangle (default L)\n"
       "  --hot          keep A in L2 (one copy) instead of rotating copies\n"
       "  --batches N    timed batches per measurement (default 7)\n"
       "  --figure FIGURE\n"
       "                 plot GFLOPS of each over n with gnuplot into FIGURE, a PNG image (a\n"
       "                 name ending .pdf or .svg is refused); the gnuplot script, data inline,\n"
       "                 is written to FIGURE.gp as well (alone where there is no gnuplot: plot\n"
       "                 it elsewhere with gnuplot FIGURE.gp). Several routines: one figure\n"
       "                 each, the routine's name before the extension (bench-dsymv.png, ...)\n"
       "  --png FIGURE   the same as --figure (its former name, kept for scripts)\n"
       "  --device N     CUDA device (default 0)\n"
       "  --atomics C    the handle libsymv is called with: any (default: CUBLAS_ATOMICS_ALLOWED,\n"
       "                 so libsymv runs its 'any' rules; speed-up over the faster cuBLAS mode) or\n"
       "                 deterministic (cuBLAS's default CUBLAS_ATOMICS_NOT_ALLOWED: libsymv runs\n"
       "                 its deterministic rules; speed-up over cuBLAS without atomics, the mode\n"
       "                 such a caller gets)\n"
       "  --db FILE      store the run in FILE (created if missing; a database belongs to one GPU,\n"
       "                 and one of another GPU is refused): tables bench_run (when, this version,\n"
       "                 the library's path and what its symvGetInfo says, atomics mode, GPU) and\n"
       "                 bench_result (per n: libsymv's kernel and time, both cuBLAS modes', the\n"
       "                 host BLAS's, the floor's, residual, % of copy); the view v_bench adds\n"
       "                 the ratios. Stored at the end, also when a size failed (complete = 0)\n"
       "  --json         print a JSON document on stdout instead of the table, which goes to\n"
       "                 stderr as the run goes: {\"format\": 1, \"symvtune\": version, \"schema\",\n"
       "                 \"device\": {name, cc_major, cc_minor, sm_count}, \"routine\", \"uplo\",\n"
       "                 \"atomics\", \"hot\", \"batches\", \"copy_gbs\", \"library\": {path, version,\n"
       "                 tuned_gpu, arch}, \"complete\", \"run_id\" (with --db, else null), \"results\":\n"
       "                 [{n, kernel, libsymv_us, cublas_us, cublas_atomics_us, openblas_us, floor_us,\n"
       "                 gflops, pct_copy, speedup, x_floor, residual, correct}, ...], \"summary\":\n"
       "                 {slower_at, speedup_geomean_500_4096, least_pct_copy_8192,\n"
       "                 x_floor_geomean_500_4096}}\n"
       "  --help         this text\n"
       "Exit status: 0, 1 if libsymv's result is wrong, 2 usage, 3 no GPU, 4 library, CUDA,\n"
       "cuBLAS or database error.");
}

/* --json: the real stdout while the table goes to stderr (-1: no --json);
 * --db: the database the run goes into (NULL: none). Both belong to one
 * call of bench() and are put back, and closed, by run(). */
static int json_fd = -1;
static db *bench_db;

static int store(void *lib, const char *path, const symv_device_info *dev, double copy, const bench_row *rows,
                 int nrows, int nsizes, symv_routine routine, char uplo, int hot, int batches, int det);

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

static const struct option opts[] = {{"lib", required_argument, 0, 'l'},     {"sizes", required_argument, 0, 's'},
                                     {"uplo", required_argument, 0, 'u'},    {"hot", no_argument, 0, 'H'},
                                     {"batches", required_argument, 0, 'b'}, {"figure", required_argument, 0, 'p'},
                                     {"png", required_argument, 0, 'p'},
                                     {"device", required_argument, 0, 'd'},  {"help", no_argument, 0, 'h'},
                                     {"routine", required_argument, 0, 'r'}, {"atomics", required_argument, 0, 'A'},
                                     {"db", required_argument, 0, 'D'},      {"json", no_argument, 0, 'j'},
                                     {0, 0, 0, 0}};

static int bench(int argc, char **argv)
{
  symv_routine routine = SYMV_DSYMV;
  const char *libdir = NULL, *png = NULL, *dbpath = NULL;
  int sizes[MAX_SIZES], nsizes = 0, hot = 0, batches = 7, device = 0, c, det = 0, json = 0;
  char uplo = 'L';
  optind = 0;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'l':
      if (!*optarg) return cli_usage_error("bench", "--lib needs a folder (made by `symvtune build --out DIR`)");
      libdir = optarg;
      break;
    case 's':
      if (cli_parse_int_list("bench", "--sizes", optarg, 1, 65536, sizes, MAX_SIZES, &nsizes))
        return SYMV_EXIT_USAGE;
      break;
    case 'u':
      if (strcmp(optarg, "L") && strcmp(optarg, "U") && strcmp(optarg, "l") && strcmp(optarg, "u"))
        return cli_usage_error("bench", "invalid --uplo '%s' (expected L or U)", optarg);
      uplo = (char)(optarg[0] & ~0x20);
      break;
    case 'H': hot = 1; break;
    case 'r':
      if (cli_parse_routine("bench", optarg, &routine)) return SYMV_EXIT_USAGE;
      break;
    case 'b':
      if (cli_parse_int("bench", "--batches", optarg, 1, 999, &batches)) return SYMV_EXIT_USAGE;
      break;
    case 'p': png = optarg; break;
    case 'A':
      if (cli_parse_atomics("bench", optarg, &det)) return SYMV_EXIT_USAGE;
      break;
    case 'd':
      if (cli_parse_int("bench", "--device", optarg, 0, 1023, &device)) return SYMV_EXIT_USAGE;
      break;
    case 'D':
      if (!*optarg) return cli_usage_error("bench", "--db needs a file name");
      dbpath = optarg;
      break;
    case 'j': json = 1; break;
    case 'h': help(); return SYMV_EXIT_OK;
    default: return cli_usage_error("bench", "unknown option");
    }
  }
  if (optind < argc) return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
  if (!libdir) return cli_usage_error("bench", "--lib DIR is required");
  char path[PATH_MAX + 32], gp[PATH_MAX + 8];
  snprintf(path, sizeof path, "%s/lib/libsymv.so", libdir);
  if (png && !*png) return cli_usage_error("bench", "--figure needs a file name");
  if (png && (strchr(png, '\'') || strchr(png, '\n'))) /* checked before the run, not after */
    return cli_usage_error("bench", "--figure: a file name with a quote or line break cannot go into gnuplot");
  const gp_format *fmt = png ? gp_format_of(png) : NULL;
  if (fmt && strcmp(fmt->ext, ".png")) /* any other name is drawn as PNG, as --png always did */
    return cli_usage_error("bench", "--figure %s: bench draws a PNG image only (name it .png)", png);
  if (png && (snprintf(gp, sizeof gp, "%s.gp", png),
              cli_refuse_overwrite("bench", "--figure", png, "the library", path) ||
                  cli_refuse_overwrite("bench", "--figure's script", gp, "the library", path)))
    return SYMV_EXIT_USAGE;
  if (dbpath && png && (cli_refuse_overwrite("bench", "--figure", png, "the database", dbpath) ||
                        cli_refuse_overwrite("bench", "--figure's script", gp, "the database", dbpath)))
    return SYMV_EXIT_USAGE;
  if (json) { /* the table to stderr, the document to the real stdout at the end */
    fflush(stdout);
    if ((json_fd = dup(1)) < 0 || dup2(2, 1) < 0) {
      fprintf(stderr, "symvtune bench: --json: %s\n", strerror(errno));
      return SYMV_EXIT_ERROR;
    }
  }
  if (nsizes == 0) {
    nsizes = (int)(sizeof default_sizes / sizeof *default_sizes);
    memcpy(sizes, default_sizes, sizeof default_sizes);
  }

  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "symvtune bench: cannot load %s: %s\n", path, dlerror());
    return SYMV_EXIT_ERROR;
  }
  const symv_routine_info *ri = symv_routine_get(routine);
  const size_t E = (size_t)ri->elem_bytes;
  lib_fn symv = (lib_fn)dlsym(lib, ri->api);
  const char *(*last_kernel)(void) = (const char *(*)(void))dlsym(lib, "symvLastKernel");
  if (!symv || !last_kernel) {
    fprintf(stderr, "symvtune bench: %s does not export %s and symvLastKernel\n", path, ri->api);
    dlclose(lib);
    return SYMV_EXIT_ERROR;
  }

  symv_device_info dev;
  int rc = symv_device_query(device, &dev);
  if (rc) {
    dlclose(lib);
    if (rc == SYMV_NO_DEVICE) {
      fprintf(stderr, "symvtune bench: no CUDA device found: timing needs a GPU\n");
      return SYMV_EXIT_NO_GPU;
    }
    fprintf(stderr, "symvtune bench: device %d: %s %s\n", device, symv_strerror(rc), symv_cuda_error_text());
    return rc == SYMV_INVALID_VALUE ? SYMV_EXIT_USAGE : SYMV_EXIT_ERROR;
  }
  if (dbpath) { /* opened once there is a GPU, before anything is measured; a database is one GPU */
    db_device fp;
    sweep_fingerprint_of(&dev, 0, &fp);
    if (db_open(&bench_db, dbpath, DB_CREATE)) {
      fprintf(stderr, "symvtune bench: %s\n", db_errmsg(bench_db));
      dlclose(lib);
      return SYMV_EXIT_ERROR;
    }
    if (db_check_device(bench_db, &fp, 0)) {
      fprintf(stderr, "symvtune bench: --db: %s\n", db_errmsg(bench_db));
      dlclose(lib);
      return SYMV_EXIT_ERROR;
    }
    if (*db_warning(bench_db)) fprintf(stderr, "symvtune bench: --db: %s\n", db_warning(bench_db));
  }
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "symvtune bench: cublasCreate failed\n");
    dlclose(lib);
    return SYMV_EXIT_ERROR;
  }
  double copy = symv_copy_bandwidth((size_t)1 << 30);
  printf("symvtune bench: %s on %s (sm_%d%d, %d SMs, L2 %.0f MB); copy rate %.0f GB/s (read + write)\n", path,
         dev.name, dev.cc_major, dev.cc_minor, dev.sm_count, dev.l2_bytes / 1e6, copy);
  _Alignas(16) unsigned char alpha[16], beta[16];
  char sa[64], sb[64];
  symv_scalar_set(routine, alpha, 1.0, 0.25);
  symv_scalar_set(routine, beta, 0.5, -0.125);
  symv_scalar_format(routine, alpha, sa, sizeof sa);
  symv_scalar_format(routine, beta, sb, sizeof sb);
  printf("libsymv called with a handle in %s (its %s rules)\n",
         det ? "CUBLAS_ATOMICS_NOT_ALLOWED, cuBLAS's default" : "CUBLAS_ATOMICS_ALLOWED", det ? "deterministic" : "'any'");
  printf("%s: A %s, uplo %c, lda = n, incx = incy = 1, alpha %s, beta %s; %d batches; times per call in us\n\n",
         ri->blas, hot ? "hot (one copy)" : "cold (rotated copies > 2 x L2)", uplo, sa, sb, batches);
  symv_floor_family fam;
  char why[600];
  int have_floor = symv_floor_family_load(&dev, routine, &fam, why, sizeof why) == 0;
  if (!have_floor) {
    symv_floor_family_free(&fam);
    fprintf(stderr, "symvtune bench: the floor family could not be loaded (%s): '-' for x floor\n", why);
  } else {
    symv_timing te;
    if (symv_floor_empty_time(&fam, batches, &te) == 0)
      printf("floor: the least time of %d read-only kernels that stream the stored triangle once; an empty\n"
             "kernel launched the same way takes %.2f us a call\n\n", fam.nshapes, te.median_us);
  }
  printf("%6s %-28s %9s %9s %9s %10s %8s %6s %8s %8s %8s\n", "n", "libsymv kernel", "libsymv", "cuBLAS", "cuBLAS-a",
         "OpenBLAS", "GFLOPS", "%copy", "speed-up", "x floor", "resid");

  bench_row *rows = calloc((size_t)nsizes, sizeof *rows);
  int nrows = 0, status = SYMV_EXIT_OK;
  unsigned long long seed = 20240917;
  for (int si = 0; rows && si < nsizes && status != SYMV_EXIT_ERROR; si++) {
    const int n = sizes[si];
    const size_t bytes = (size_t)n * n * E;
    size_t freeb = 0, totalb = 0;
    cudaMemGetInfo(&freeb, &totalb);
    const int copies = symv_matrix_copies_for(bytes, dev.l2_bytes, hot, freeb / 2);
    void *A = malloc(bytes), *xh = malloc(n * E), *y0 = malloc(n * E), *ylib = malloc(n * E), *ycub = malloc(n * E);
    double *scale = NULL;
    void *dx = NULL, *dy = NULL;
    symv_matrix_set set = {0};
    bench_row *r = &rows[nrows];
    if (!A || !xh || !y0 || !ylib || !ycub) {
      fprintf(stderr, "symvtune bench: out of host memory at n = %d\n", n);
      status = SYMV_EXIT_ERROR;
      goto next;
    }
    symv_fill_random(routine, A, (long)n * n, &seed);
    symv_fill_random(routine, xh, n, &seed);
    symv_fill_random(routine, y0, n, &seed);
    if (symv_matrix_set_create(&set, E, A, n, n, copies) || cudaMalloc(&dx, n * E) != cudaSuccess ||
        cudaMalloc(&dy, n * E) != cudaSuccess || cudaMemcpy(dx, xh, n * E, cudaMemcpyHostToDevice) != cudaSuccess) {
      fprintf(stderr, "symvtune bench: device memory at n = %d (%d copies of A): %s\n", n, copies,
              symv_cuda_error_text());
      cudaGetLastError();
      status = SYMV_EXIT_ERROR;
      goto next;
    }
    call_ctx cx = {.r = routine, .h = h, .set = &set, .n = n, .x = dx, .y = dy, .alpha = alpha, .beta = beta,
                   .uplo = uplo};
    /* one call of each from the same y: libsymv's result against cuBLAS's */
    for (int w = 0; w < 2; w++) {
      cx.fn = w == 0 ? symv : NULL;
      cublasSetAtomicsMode(h, w == 0 && !det ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED);
      void *out = w == 0 ? ylib : ycub;
      cudaMemcpy(dy, y0, n * E, cudaMemcpyHostToDevice);
      if ((rc = call(&cx, 0, 0)) || cudaMemcpy(out, dy, n * E, cudaMemcpyDeviceToHost) != cudaSuccess) {
        fprintf(stderr, "symvtune bench: %s at n = %d failed: %s\n", w ? "cuBLAS" : "libsymv", n,
                rc ? symv_strerror(rc) : cudaGetErrorString(cudaGetLastError()));
        status = SYMV_EXIT_ERROR;
        goto next;
      }
    }
    scale = symv_residual_scale(routine, uplo, n, alpha, A, n, xh, 1, beta, y0, 1);
    r->n = n;
    r->resid = scale ? symv_residual_scaled(routine, n, 1, scale, ylib, ycub) : NAN;
    if (!(r->resid <= TOL)) status = SYMV_EXIT_FAIL;
    /* before the first size, ~0.2 s of calls of both, untimed: the GPU has
     * been idle (build), and its clocks rise only under load */
    for (int w = 0; si == 0 && w < 2; w++) {
      symv_timing t;
      cx.fn = w == 0 ? symv : NULL;
      symv_time(call, &cx, 0, 10, 10.0, 100000, &t);
    }
    /* ROUNDS rounds of the three in turn, the best median of each kept; the
     * order is reversed every other round, so that none goes first always
     * (clocks, caches and host threads settle) */
    for (int round = 0; round < ROUNDS; round++)
      for (int i = 0; i < 3; i++) {
        const int w = round % 2 ? 2 - i : i;
        symv_timing t;
        cx.fn = w == 0 ? symv : NULL;
        cublasSetAtomicsMode(h, w == 2 || (w == 0 && !det) ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED);
        cudaMemcpy(dy, y0, n * E, cudaMemcpyHostToDevice);
        if ((rc = symv_time(call, &cx, 0, batches, 2.0, 2000, &t))) {
          fprintf(stderr, "symvtune bench: timing %s at n = %d: %s\n", series[w], n, symv_strerror(rc));
          status = SYMV_EXIT_ERROR;
          goto next;
        }
        if (round == 0 || t.median_us < r->us[w]) r->us[w] = t.median_us;
        if (w == 0) snprintf(r->kernel, sizeof r->kernel, "%s", last_kernel());
      }
    r->floor_us = NAN;
    symv_floor_result fr;
    if (have_floor && symv_floor_measure(&fam, &set, n, batches, 4, &fr) == 0) r->floor_us = fr.us;
    memcpy(ylib, y0, n * E);
    r->us[3] = time_openblas(routine, uplo, n, alpha, A, xh, beta, ylib, batches);
    r->pct_copy = copy > 0 ? 100.0 * symv_gbs(routine, n, r->us[0]) / copy : NAN;
    r->speedup = (det ? r->us[1] : fmin(r->us[1], r->us[2])) / r->us[0];
    char xf[16] = "-";
    if (r->floor_us > 0) snprintf(xf, sizeof xf, "%.2f", r->us[0] / r->floor_us);
    printf("%6d %-28s %9.2f %9.2f %9.2f %10.1f %8.1f %6.1f %8.2f %8s %8.2g%s\n", n, r->kernel, r->us[0], r->us[1],
           r->us[2], r->us[3], symv_gflops(routine, n, r->us[0]), r->pct_copy, r->speedup, xf, r->resid,
           r->resid <= TOL ? "" : "  WRONG");
    fflush(stdout);
    nrows++;
  next:
    free(scale);
    symv_matrix_set_free(&set);
    cudaFree(dx), cudaFree(dy);
    free(A), free(xh), free(y0), free(ylib), free(ycub);
  }
  cublasDestroy(h);
  if (have_floor) symv_floor_family_free(&fam);

  /* the targets */
  int slower = 0, nmid = 0, nbig = 0, nfloor = 0;
  double logsum = 0, minpct = INFINITY, logfloor = 0;
  const char *ref = det ? "cuBLAS without atomics" : "faster cuBLAS";
  printf("\nsummary against the targets (speed-up = %s's time / libsymv's):\n",
         det ? "cuBLAS without atomics (the mode a deterministic caller gets)" : "faster cuBLAS mode");
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
  printf("  libsymv <= %s at every n:%*s %s (%d of %d sizes)\n", ref, det ? 3 : 10, "", slower ? "NO" : "yes",
         nrows - slower, nrows);
  if (nmid) printf("  geometric-mean speed-up, n in 500..4096:       x%.3f over %d sizes\n", exp(logsum / nmid), nmid);
  else printf("  geometric-mean speed-up, n in 500..4096:       no size measured there\n");
  if (nfloor) printf("  libsymv over the floor, n in 500..4096:        x%.3f geometric mean over %d sizes\n",
                     exp(logfloor / nfloor), nfloor);
  if (nbig) printf("  least %% of the copy rate, n >= 8192:           %.1f%% over %d sizes\n", minpct, nbig);
  else printf("  least %% of the copy rate, n >= 8192:           no size measured there\n");
  if (nrows < nsizes && status != SYMV_EXIT_ERROR) status = SYMV_EXIT_ERROR;
  if (status == SYMV_EXIT_FAIL) printf("  WRONG RESULTS: libsymv differs from cuBLAS beyond %g\n", TOL);
  if (png && nrows > 0 && plot(routine, png, rows, nrows, dev.name, uplo, hot) && status == SYMV_EXIT_OK)
    status = SYMV_EXIT_ERROR;
  if ((bench_db || json) && rows && store(lib, path, &dev, copy, rows, nrows, nsizes, routine, uplo, hot, batches,
                                           det) && status != SYMV_EXIT_ERROR)
    status = SYMV_EXIT_ERROR;
  free(rows);
  dlclose(lib);
  return status;
}

/* The end of a run with --db or --json: the run as the database keeps it
 * (the library named by its real path and its symvGetInfo), stored in
 * bench_db when there is one, and written as the document of --json to
 * the real stdout. 0, or -1 with a message. */
static int store(void *lib, const char *path, const symv_device_info *dev, double copy, const bench_row *rows,
                 int nrows, int nsizes, symv_routine routine, char uplo, int hot, int batches, int det)
{
  db_bench_run run = {.deterministic = det, .hot = hot, .batches = batches, .cc_major = dev->cc_major,
                      .cc_minor = dev->cc_minor, .sm_count = dev->sm_count, .copy_gbs = copy > 0 ? copy : NAN,
                      .complete = nrows == nsizes};
  snprintf(run.symvtune, sizeof run.symvtune, "%s", PACKAGE_VERSION);
  char real[PATH_MAX];
  snprintf(run.lib_path, sizeof run.lib_path, "%.1023s", realpath(path, real) ? real : path);
  snprintf(run.device, sizeof run.device, "%s", dev->name);
  cublasStatus_t (*get_info)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(lib, "symvGetInfo");
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
    db_bench_result *o = &res[i];
    o->routine = routine;
    o->uplo = uplo, o->n = b->n;
    snprintf(o->kernel, sizeof o->kernel, "%s", *b->kernel ? b->kernel : "none");
    o->libsymv_us = b->us[0], o->cublas_us = b->us[1], o->cublas_atomics_us = b->us[2];
    o->openblas_us = b->us[3] > 0 ? b->us[3] : NAN;
    o->floor_us = b->floor_us > 0 ? b->floor_us : NAN;
    o->residual = b->resid >= 0 ? b->resid : NAN;
    o->pct_copy = b->pct_copy >= 0 ? b->pct_copy : NAN;
  }
  int rc = 0;
  if (bench_db) {
    if (db_put_bench(bench_db, &run, res, (size_t)nrows)) {
      fprintf(stderr, "symvtune bench: --db: the run could not be stored: %s\n", db_errmsg(bench_db));
      rc = -1;
    } else {
      printf("stored in the database as bench run %lld (select * from v_bench where run_id = %lld)\n", run.id,
             run.id);
    }
  }
  if (json_fd >= 0) {
    int fd = dup(json_fd);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
      fprintf(stderr, "symvtune bench: --json: %s\n", strerror(errno));
      if (fd >= 0) close(fd);
      rc = -1;
    } else {
      bench_json_write(f, &run, res, (size_t)nrows, TOL);
      if (fclose(f)) {
        fprintf(stderr, "symvtune bench: --json: cannot write the output\n");
        rc = -1;
      }
    }
  }
  free(res);
  return rc;
}

static int run(int argc, char **argv)
{
  int each;
  static const char *const outputs[] = {"figure", "png", NULL}; /* several routines: a figure each, */
  static const cli_each how = {.options = opts, .json = "json", .outputs = outputs}; /* one document */
  if (cli_each_routine_of("bench", argc, argv, run, &how, &each)) return each;
  int status = bench(argc, argv);
  if (json_fd >= 0) { /* stdout back */
    fflush(stdout);
    dup2(json_fd, 1);
    close(json_fd);
    json_fd = -1;
  }
  if (bench_db && db_close(bench_db) && status == SYMV_EXIT_OK) status = SYMV_EXIT_ERROR;
  bench_db = NULL;
  return status;
}

const symv_command cmd_bench_entry = {"bench", "time a generated libsymv against cuBLAS and OpenBLAS", run};
