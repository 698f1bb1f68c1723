/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_sweep.c - `symvtune sweep`: measure the whole tuning space on the GPU
 * present into an SQLite database (doc/method.md section 4, steps 1-2):
 * enumerate, filter what cannot run, compile in parallel, verify every
 * candidate at every size against cuBLAS, time the valid ones and cuBLAS
 * (atomics off and on) at the representative sizes. Resumable: rerun the
 * same command after an interruption and it goes on where it stopped.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../db/db.h"
#include "../sieve/sieve.h"
#include "adaptive.h"
#include "cli.h"
#include "dense.h"
#include "gpu.h"
#include "reference.h"
#include "space.h"
#include "shard.h"
#include "sweep.h"
#include "sweep_stage.h"
#include "routine.h"
#include "symv_error.h"

#define MAX_SIZES 64
#define MAX_DEVICES 64 /* workers of one sweep (sweep_measure's limit) */
static const int default_sizes[] = {256, 768, 2048, 6144, 16384};

static volatile int interrupted;
static void on_signal(int sig) { interrupted = sig; }

static void help(void)
{
  puts("Usage: symvtune sweep --db FILE [OPTIONS]\n"
       "Measures the tuning space on this GPU into FILE (SQLite; created if absent).\n"
       "Sweep stage: enumerates the candidates of each family from the GPU's limits, drops those\n"
       "it cannot run (recording why), compiles the rest with NVRTC in parallel, verifies every\n"
       "candidate at every size against cuBLAS, and times it there, with cuBLAS (atomics off and\n"
       "on) as baselines; each batch is queued whole before the GPU runs it (the GPU's time, each\n"
       "call charged its launches at the least launch cost seen). Dense stage: ranks the valid\n"
       "candidates by champion points and times the champions and cuBLAS across the whole size\n"
       "range, then once more every kernel within 1.3x of the fastest at a size, in reverse\n"
       "order, keeping the lesser time, for `symvtune fit`.\n"
       "Interrupted (Ctrl-C, a crash), it loses at most the candidate in flight: run the same\n"
       "command again to resume.\n\n"
       "Options:\n"
       "  --db FILE         the database (required)\n"
       "  --families LIST   comma-separated: " SYMV_TUNABLE_FAMILIES "\n"
       "                    (default: all but pipe_fx, which is swept only when named)\n"
       "  --wide            widen the space where the GPU allows: MULTIPLICITY up to the\n"
       "                    GPU's blocks per SM, larger BLOCK_SIZE (see man symvtune)\n"
       "  --sizes LIST      representative sizes n (default 256,768,2048,6144,16384: geometric,\n"
       "                    factor ~3, across the range where the kernel choice matters)\n"
       CLI_ROUTINE_HELP "                    (several: one sweep after the other);\n"
       "                    one database holds every routine of a GPU\n"
       "  --uplo L|U        stored triangle (default L); a sweep of U (or --hot) in a\n"
       "                    database swept in L times its valid candidates again in U\n"
       "  --hot             time with A resident in L2 (default: cold, A rotated among\n"
       "                    copies larger than twice the L2)\n"
       "  --batches N       timed batches per measurement (default 5)\n"
       "  --prune F         time fully only candidates whose first batch (8 calls, 2 for\n"
       "                    kernels of 100 us or more, queued before the GPU starts them)\n"
       "                    is within F times the best time so far at that size; the\n"
       "                    others keep that one batch\n"
       "                    (default 2; 0 times everything fully)\n"
       "  --tol T           largest scaled residual accepted (default 4)\n"
       "  --timeout S       seconds a candidate may run without answering (default 20)\n"
       "  --jobs N          compiling threads (default: the number of CPUs); 0: none, each\n"
       "                    worker compiles its candidates itself (NVRTC cache shared)\n"
       "  --limit N         measure at most N candidates in this run (0: all)\n"
       "  --device N        CUDA device (default 0)\n"
       "  --devices LIST|all  several GPUs of this node (comma-separated device numbers, or every\n"
       "                    one): a worker process on each, candidates dealt out as each becomes\n"
       "                    free, one database; the GPUs must be of one model. Pruning on a GPU\n"
       "                    uses its own cuBLAS times; the summary reports how far the GPUs'\n"
       "                    cuBLAS times differ. The dense stage runs on the first GPU only, so\n"
       "                    that the curves the fit compares come from one GPU\n"
       "  --top T           champions sampled densely after the sweep: the top T by champion\n"
       "                    points (default 10) plus the best of each family with none there,\n"
       "                    plus the first min(6, T) of the deterministic families (lu, panel,\n"
       "                    pipe_det, pipe_fx) ranked among themselves and the fastest of them at\n"
       "                    each size\n"
       "  --points-k K      the K fastest at each size earn points, (K+1-rank)/K (default 25)\n"
       "  --dense MODE      how the dense stage picks its sizes: adaptive (default) starts from\n"
       "                    8 sizes per decade and adds sizes in rounds where the fitted curves\n"
       "                    of the best kernels are close and uncertain, until the predicted\n"
       "                    regret bound is under --dense-target or --dense-budget sizes are\n"
       "                    timed; grid times every size of the grid (--dense-sizes)\n"
       "  --dense-sizes L   the grid (default: 24 odd sizes per decade from 33 to 32767, or less\n"
       "                    where the GPU's memory is smaller); given alone it implies --dense\n"
       "                    grid; with --dense adaptive, the sizes the planner may choose from\n"
       "  --dense-target F  adaptive: stop when the predicted regret bound (the time of the\n"
       "                    chosen kernel over the best's, if each fitted curve is off by its\n"
       "                    uncertainty) is at most 1 + F at every size (default 0.01)\n"
       "  --dense-budget N  adaptive: at most N sizes in all (default: half the grid's)\n"
       "  --no-dense        stop after the sweep stage\n"
       "  --shard K/N       sweep only shard K (0..N-1) of the space, cut by kernel code and\n"
       "                    expected cost, the same way on every run and machine; implies\n"
       "                    --no-dense (the dense stage needs the champions of the whole\n"
       "                    space: `symvtune merge` the N databases, then sweep the merged one)\n"
       "  --allow-foreign   accept a database made on a different GPU\n"
       "  --quiet           no progress output\n"
       "  --help            this text\n"
       "Exit status: 0 done, 1 interrupted (resumable), 2 usage, 3 no GPU (no new database created), 4 database or system error.");
}

/* --families LIST into o->family: 0, or -1 for an empty list, an empty
 * item, a list too long, or a name that is not a tunable family. */
static int family_list(const char *s, symv_space_opts *o)
{
  char buf[256];
  if (!*s || strlen(s) >= sizeof buf) return -1;
  snprintf(buf, sizeof buf, "%s", s);
  memset(o->family, 0, sizeof o->family);
  /* strsep, not strtok: "" and "lu,,pipe" have empty items, which are errors */
  for (char *rest = buf, *tok; (tok = strsep(&rest, ",")) != NULL;) {
    symv_family f;
    if (symv_family_parse(tok, &f) || !symv_family_tunable(f)) return -1;
    o->family[f] = 1;
  }
  return 0;
}

/* The command line of a sweep. */
typedef struct {
  const char *path;              /* --db */
  symv_space_opts so;            /* --families, --wide */
  sweep_opts o;                  /* the measuring options */
  int ns[MAX_SIZES], nsizes;     /* --sizes */
  int limit, allow_foreign;
  int top, kpts;                 /* --top, --points-k */
  int dense;                     /* 0: --no-dense */
  int dn[DENSE_MAX_SIZES], ndense; /* --dense-sizes */
  int shard_k, shard_n;          /* --shard K/N; shard_n 0: the whole space */
  int dense_mode;                /* --dense: DENSE_GRID, DENSE_ADAPTIVE; -1: not given */
  double dense_target;
  int dense_budget;              /* 0: half the grid's sizes */
  int devs[MAX_DEVICES], ndev, all_devices;
} sweep_args;

/* Reads the command line into *a, defaults first. Returns -1 to go on, or
 * the exit status (--help, a usage error, said on stderr). */
static int parse_args(int argc, char **argv, sweep_args *a)
{
  static const struct option opts[] = {
    {"db", required_argument, 0, CLI_DB},   {"families", required_argument, 0, 'f'},
    {"wide", no_argument, 0, 'w'},           {"sizes", required_argument, 0, 's'},
    {"routine", required_argument, 0, CLI_ROUTINE}, {"uplo", required_argument, 0, CLI_UPLO},
    {"hot", no_argument, 0, CLI_HOT},
    {"batches", required_argument, 0, CLI_BATCHES}, {"prune", required_argument, 0, 'p'},
    {"tol", required_argument, 0, 't'},      {"timeout", required_argument, 0, 'T'},
    {"jobs", required_argument, 0, 'j'},     {"limit", required_argument, 0, 'l'},
    {"device", required_argument, 0, CLI_DEVICE}, {"allow-foreign", no_argument, 0, 'F'},
    {"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
    {"top", required_argument, 0, 'P'},      {"points-k", required_argument, 0, 'K'},
    {"dense-sizes", required_argument, 0, 'S'}, {"no-dense", no_argument, 0, 'N'},
    {"shard", required_argument, 0, 'k'},    {"devices", required_argument, 0, 'V'},
    {"dense", required_argument, 0, 'M'},    {"dense-target", required_argument, 0, 'G'},
    {"dense-budget", required_argument, 0, 'B'},
    {0, 0, 0, 0}};
  memset(a, 0, sizeof *a);
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++) a->so.family[f] = symv_family_default_space((symv_family)f);
  a->o = (sweep_opts){.tol = SYMV_RESIDUAL_TOL, .timeout_s = 20, .prune = 2.0, .max_attempts = 3,
                      .jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), .quiet = 0};
  a->top = SIEVE_DEFAULT_T, a->kpts = SIEVE_DEFAULT_K, a->dense = 1;
  a->dense_mode = -1, a->dense_target = ADAPTIVE_DEFAULT_TARGET;
  cli_opts o = {.cmd = "sweep", .options = opts, .help = help, .need_db = 1, .routine = SYMV_DSYMV, .uplo = 'L',
                .batches = 5};
  int c;
  while ((c = cli_getopt(&o, argc, argv))) {
    switch (c) {
    case 'f':
      if (family_list(optarg, &a->so)) return cli_usage_error("sweep", "invalid --families '%s' (" SYMV_TUNABLE_FAMILIES ")", optarg);
      break;
    case 'w': a->so.wide = 1; break;
    case 's':
      if (cli_parse_int_list("sweep", "--sizes", optarg, 1, 65536, a->ns, MAX_SIZES, &a->nsizes)) return SYMV_EXIT_USAGE;
      break;
    case 'p':
      if (cli_parse_double("sweep", "--prune", optarg, 0, 1e6, &a->o.prune)) return SYMV_EXIT_USAGE;
      if (a->o.prune > 0 && a->o.prune < 1) return cli_usage_error("sweep", "--prune must be 0 or at least 1");
      break;
    case 't':
      if (cli_parse_double("sweep", "--tol", optarg, 1e-3, 1e12, &a->o.tol)) return SYMV_EXIT_USAGE;
      break;
    case 'T':
      if (cli_parse_double("sweep", "--timeout", optarg, 0.1, 86400, &a->o.timeout_s)) return SYMV_EXIT_USAGE;
      break;
    case 'j':
      if (cli_parse_int("sweep", "--jobs", optarg, 0, 256, &a->o.jobs)) return SYMV_EXIT_USAGE;
      break;
    case 'l':
      if (cli_parse_int("sweep", "--limit", optarg, 0, 100000000, &a->limit)) return SYMV_EXIT_USAGE;
      break;
    case 'F': a->allow_foreign = 1; break;
    case 'q': a->o.quiet = 1; break;
    case 'P':
      if (cli_parse_int("sweep", "--top", optarg, 1, 1000, &a->top)) return SYMV_EXIT_USAGE;
      break;
    case 'K':
      if (cli_parse_int("sweep", "--points-k", optarg, 1, 100000, &a->kpts)) return SYMV_EXIT_USAGE;
      break;
    case 'S':
      if (cli_parse_int_list("sweep", "--dense-sizes", optarg, 1, 65536, a->dn, DENSE_MAX_SIZES, &a->ndense))
        return SYMV_EXIT_USAGE;
      break;
    case 'N': a->dense = 0; break;
    case 'M':
      if (!strcmp(optarg, "adaptive")) a->dense_mode = DENSE_ADAPTIVE;
      else if (!strcmp(optarg, "grid")) a->dense_mode = DENSE_GRID;
      else return cli_usage_error("sweep", "invalid --dense '%s' (adaptive or grid)", optarg);
      break;
    case 'G':
      if (cli_parse_double("sweep", "--dense-target", optarg, 0, 0.99, &a->dense_target)) return SYMV_EXIT_USAGE;
      break;
    case 'B':
      if (cli_parse_int("sweep", "--dense-budget", optarg, 2, DENSE_MAX_SIZES, &a->dense_budget)) return SYMV_EXIT_USAGE;
      break;
    case 'k':
      if (sweep_shard_parse(optarg, &a->shard_k, &a->shard_n))
        return cli_usage_error("sweep", "invalid --shard '%s' (K/N with 0 <= K < N <= %d)", optarg, SWEEP_SHARDS_MAX);
      break;
    case 'V':
      if (!strcmp(optarg, "all")) a->all_devices = 1, a->ndev = 0;
      else if (cli_parse_int_list("sweep", "--devices", optarg, 0, 1023, a->devs, MAX_DEVICES, &a->ndev)) return SYMV_EXIT_USAGE;
      else a->all_devices = 0;
      for (int i = 0; i < a->ndev; i++)
        for (int j = 0; j < i; j++)
          if (a->devs[i] == a->devs[j]) return cli_usage_error("sweep", "--devices lists GPU %d twice", a->devs[i]);
      break;
    }
  }
  if (o.status != CLI_GO_ON) return o.status;
  a->path = o.db, a->o.routine = o.routine, a->o.uplo = o.uplo, a->o.hot = o.hot, a->o.batches = o.batches;
  a->o.device = o.device;
  if (a->dense_mode < 0) a->dense_mode = a->ndense ? DENSE_GRID : DENSE_ADAPTIVE;
  if (a->dense_mode == DENSE_GRID && a->dense_budget)
    return cli_usage_error("sweep", "--dense-budget is for --dense adaptive (the grid times all its sizes)");
  if (a->dense_mode == DENSE_ADAPTIVE && a->ndense == 1)
    return cli_usage_error("sweep", "--dense adaptive needs at least two --dense-sizes");
  if (a->nsizes == 0) {
    a->nsizes = (int)(sizeof default_sizes / sizeof *default_sizes);
    memcpy(a->ns, default_sizes, sizeof default_sizes);
  }
  return -1;
}

/* Opens the database, looking for a GPU first where none exists yet (a new
 * database is created only where there is a GPU to fill it; an existing
 * file is checked first: a foreign or corrupt one is refused, GPU or not),
 * and settles the GPUs (a->devs[0..a->ndev), a->o.device the first).
 * Returns -1 to go on with *d open, or the exit status (said on stderr,
 * nothing left open). */
static int open_sweep(sweep_args *a, db **d)
{
  int ngpu = 0;
  struct stat sb;
  if (lstat(a->path, &sb) != 0 && errno == ENOENT && !getenv("SYMVTUNE_WORKER") && symv_device_count(&ngpu)) {
    fprintf(stderr, "symvtune sweep: no CUDA device found (%s): the sweep needs a GPU; nothing was written\n",
            symv_cuda_error_text());
    return SYMV_EXIT_NO_GPU;
  }
  /* the database: a foreign or corrupt file is refused before any work */
  if (cli_open_db("sweep", a->path, DB_CREATE, d)) return SYMV_EXIT_ERROR;
  if (a->all_devices) {
    int count = 0;
    if (symv_device_count(&count) || count < 1) {
      fprintf(stderr, "symvtune sweep: --devices all: no CUDA device found (%s)\n", symv_cuda_error_text());
      db_close(*d);
      return SYMV_EXIT_NO_GPU;
    }
    for (a->ndev = 0; a->ndev < count && a->ndev < MAX_DEVICES; a->ndev++) a->devs[a->ndev] = a->ndev;
  }
  if (a->ndev == 0) a->devs[a->ndev++] = a->o.device;
  a->o.device = a->devs[0];
  return -1;
}

static int run(int argc, char **argv)
{
  int each;
  if (cli_each_routine("sweep", argc, argv, run, &each)) return each;
  sweep_args a;
  int status = parse_args(argc, argv, &a);
  if (status >= 0) return status;
  double t_start = symv_now();
  db *d = NULL;
  if ((status = open_sweep(&a, &d)) >= 0) return status;
  const int ndev = a.ndev;
  int rc = 0, said = 0; /* said: the error is already reported */
  /* one worker per GPU (64 KB of buffer each: on the heap) */
  sweep_worker *w = calloc((size_t)ndev, sizeof *w);
  double *btimes = calloc((size_t)ndev * 2 * MAX_SIZES, sizeof *btimes), *wbase = calloc((size_t)ndev * MAX_SIZES, sizeof *wbase);
  if (!w || !btimes || !wbase) {
    free(w), free(btimes), free(wbase);
    db_close(d);
    return SYMV_EXIT_ERROR;
  }
  if ((rc = sweep_stage_workers(d, w, ndev, a.devs, &a.o, a.allow_foreign))) {
    for (int k = 0; k < ndev; k++) sweep_worker_stop(&w[k]);
    free(w), free(btimes), free(wbase);
    db_close(d);
    return rc == SYMV_NO_DEVICE ? SYMV_EXIT_NO_GPU : SYMV_EXIT_ERROR;
  }

  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  char optline[1024];
  long long run_id = 0;
  db_run_begin(d, cli_command_line(argc, argv, optline, sizeof optline), &run_id);

  /* enumerate and record the space (or this shard of it); drop what cannot run */
  symv_params *space = NULL;
  int *shard_of = NULL;
  long nspace = 0;
  if ((rc = sweep_stage_space(d, a.path, &a.o, &a.so, &w[0].dev, a.ns, a.nsizes, a.shard_k, a.shard_n, &space, &nspace,
                              &shard_of, &said)))
    goto out;
  if (a.shard_n && a.dense && !a.o.quiet)
    fprintf(stderr, "sweep: shard %d/%d: the sweep stage only (merge the shards, then sweep the merged database for "
            "the dense stage)\n", a.shard_k, a.shard_n);
  if (a.shard_n) a.dense = 0;
  if ((rc = sweep_stage_record(d, &a.o, space, nspace, shard_of, a.shard_k, a.shard_n, &w[0].dev))) goto out;

  /* the sweep stage: cuBLAS, then every candidate still to measure (pending, or valid and not yet timed in this
   * uplo and L2 mode) */
  if ((rc = sweep_stage_baselines(d, w, ndev, &a.o, a.ns, a.nsizes, btimes, wbase))) goto out;
  db_candidate *pending = NULL;
  size_t npending = 0;
  if ((rc = sweep_stage_todo(d, &a.o, a.ns, a.nsizes, &pending, &npending))) {
    if (rc == SYMV_DB) goto db_error;
    goto out;
  }
  if (a.limit > 0 && npending > (size_t)a.limit) npending = (size_t)a.limit;
  symv_progress prog;
  symv_progress_start(&prog, "sweep", (long)npending, a.o.quiet);
  sweep_stats st = {0};
  const sweep_measure_args ma = {.d = d, .w = w, .nworkers = ndev, .o = &a.o, .worker_base = wbase, .cands = pending,
                                 .ncand = (long)npending, .ns = a.ns, .nsizes = a.nsizes, .stage = DB_STAGE_SWEEP,
                                 .interrupted = &interrupted, .st = &st, .prog = &prog};
  rc = sweep_measure(&ma);
  symv_progress_finish(&prog);
  free(pending);
  sweep_stage_summary(d, a.o.routine, w, ndev, btimes, &st, a.ns, a.nsizes, a.o.uplo, a.o.hot, symv_now() - t_start);

  /* the dense stage, once no candidate is pending (doc/method.md section 4, steps 3-5) */
  db_counts cnt;
  if (!rc && a.dense && !db_count_candidates(d, a.o.routine, DB_ANY_FAMILY, &cnt) &&
      cnt.by_status[DB_PENDING] == 0) {
    const dense_opts dop = {.mode = (dense_mode)a.dense_mode, .sizes = a.dn, .nsizes = a.ndense,
                            .target = a.dense_target, .budget = a.dense_budget, .top = a.top, .points_k = a.kpts,
                            .sweep_ns = a.ns, .sweep_nsizes = a.nsizes, .interrupted = &interrupted};
    rc = dense_stage(d, w, &a.o, &dop, &st, &said);
  }
  db_run_end(d, run_id, st.compile_s, st.measure_s);
  goto out;

db_error:
  fprintf(stderr, "symvtune sweep: %s\n", db_errmsg(d));
  rc = SYMV_DB;
out:
  free(space);
  free(shard_of);
  for (int k = 0; k < ndev; k++) sweep_worker_stop(&w[k]);
  free(w), free(btimes), free(wbase);
  db_close(d);
  if (rc == SYMV_INTERRUPTED) {
    fprintf(stderr, "symvtune sweep: interrupted; everything measured so far is in %s: run the same command to resume\n", a.path);
    return SYMV_EXIT_FAIL;
  }
  if (rc) {
    if (rc != SYMV_DB && !said) fprintf(stderr, "symvtune sweep: %s\n", symv_strerror(rc));
    return SYMV_EXIT_ERROR;
  }
  return SYMV_EXIT_OK;
}

const symv_command cmd_sweep_entry = {"sweep", "measure the tuning space on this GPU into a database", run};
