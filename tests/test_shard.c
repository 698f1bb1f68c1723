/*
 * Tests without a GPU of sharded and multi-GPU sweeps:
 *  - the partition of the space (measure/shard.h): every point in exactly
 *    one shard, compile units whole, costs within the stated bound, the same
 *    cut whatever the order of the points;
 *  - `symvtune sweep --devices` with a stand-in worker (tests/fake_worker.c,
 *    through SYMVTUNE_WORKER): every candidate measured once, a worker that
 *    kills itself and one that hangs restarted on their own GPU, GPUs of two
 *    models refused;
 *  - `symvtune sweep --shard` and `symvtune merge`: the merged shards equal a
 *    whole sweep; the shipped H200 database split into shards and merged
 *    back is the same; foreign, overlapping, incomplete and tampered sets are
 *    refused;
 *  - `symvtune validate` with the stand-in worker, whose times are known:
 *    regret 1 where the rules name the fastest kernel, the exact ratio
 *    where they are made to name another, random sizes none of them a dense
 *    sample and the same for the same seed, the run stored; uplo U judged
 *    against its own fit or, without one, against L's rules (not stored);
 *    the regret drawn (--png) from a run and from the stored run.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../db/db.h"
#include "config.h"
#include "routine.h"
#include "shard.h"
#include "space.h"
#include "symv_error.h"
#include "test_device.h"
#include "test_util.h"
#include "util.h"


static void whole_space(int wide, symv_params **sp, long *n)
{
  symv_space_opts o = {{0}, wide};
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++) o.family[f] = symv_family_default_space((symv_family)f);
  symv_device_info d = test_hopper();
  cr_assert_eq(symv_space_enumerate(&o, &d, sp, n), 0);
}

/* A point of the space and its index there. */
typedef struct {
  symv_params p;
  long i;
} point_at;

/* Order of the code a point shares with its compile unit: all but
 * MULTIPLICITY (symv_params_same_code), then the index. */
static int cmp_code(const void *x, const void *y)
{
  const point_at *a = x, *b = y;
  const long ka[6] = {a->p.routine, a->p.family, a->p.block_size, a->p.ux, a->p.mx, a->i};
  const long kb[6] = {b->p.routine, b->p.family, b->p.block_size, b->p.ux, b->p.mx, b->i};
  for (int k = 0; k < 6; k++)
    if (ka[k] != kb[k]) return ka[k] < kb[k] ? -1 : 1;
  return 0;
}

Test(shard, every_point_in_one_shard_units_whole_costs_within_the_bound)
{
  symv_params *sp;
  long n;
  whole_space(0, &sp, &n);
  cr_assert_gt(n, 17000);
  int *shard = malloc(sizeof *shard * (size_t)n);
  point_at *by_code = malloc(sizeof *by_code * (size_t)n);
  for (long i = 0; i < n; i++) by_code[i] = (point_at){sp[i], i};
  qsort(by_code, (size_t)n, sizeof *by_code, cmp_code);
  static const int counts[] = {1, 2, 3, 7, 16, 64};
  for (size_t t = 0; t < sizeof counts / sizeof *counts; t++) {
    int N = counts[t];
    double cost[64], recomputed[64] = {0}, maxunit = 0;
    cr_assert_eq(sweep_shard_assign(sp, n, N, shard, cost), 0);
    long members[64] = {0};
    for (long i = 0; i < n; i++) {
      cr_assert(shard[i] >= 0 && shard[i] < N, "point %ld in shard %d of %d", i, shard[i], N);
      members[shard[i]]++;
    }
    /* compile units (same code) whole, and each shard's cost from its
     * units: the points sorted by their code, each run a unit */
    for (long r = 0, e; r < n; r = e) {
      for (e = r + 1; e < n && symv_params_same_code(&by_code[r].p, &by_code[e].p); e++)
        cr_assert_eq(shard[by_code[e].i], shard[by_code[r].i], "N %d: a compile unit split between shards %d and %d",
                     N, shard[by_code[r].i], shard[by_code[e].i]);
      double c = sweep_unit_cost(&by_code[r].p, e - r);
      recomputed[shard[by_code[r].i]] += c;
      maxunit = fmax(maxunit, c);
    }
    double lo = INFINITY, hi = 0, total = 0;
    for (int s = 0; s < N; s++) {
      lo = fmin(lo, cost[s]), hi = fmax(hi, cost[s]), total += cost[s];
      cr_assert_gt(members[s], 0, "shard %d of %d is empty", s, N);
      cr_assert_float_eq(cost[s], recomputed[s], 1e-9 * recomputed[s], "N %d: shard %d costs %g, its units %g", N, s,
                         cost[s], recomputed[s]);
    }
    /* the stated bound: any two shards within the costliest unit */
    for (long i = 0; i < n; i++) maxunit = fmax(maxunit, sweep_unit_cost(&sp[i], 10));
    cr_assert_leq(hi - lo, maxunit + 1e-9, "N %d: costs %g..%g differ by more than a unit (%g)", N, lo, hi, maxunit);
    if (N > 1) cr_assert_lt(hi / (total / N), 1.02, "N %d: the costliest shard is %g of the mean", N, hi / (total / N));
  }
  free(shard), free(by_code);
  free(sp);
}

Test(shard, the_cut_and_the_fingerprint_do_not_depend_on_the_order)
{
  symv_params *sp;
  long n;
  whole_space(1, &sp, &n);
  int *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n);
  long *perm = malloc(sizeof *perm * (size_t)n);
  symv_params *shuffled = malloc(sizeof *shuffled * (size_t)n);
  uint64_t seed = test_fresh_seed(), x = seed;
  for (long i = 0; i < n; i++) perm[i] = i;
  for (long i = n - 1; i > 0; i--) {
    long j = (long)(test_rng_next(&x) % (uint64_t)(i + 1)), t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  for (long i = 0; i < n; i++) shuffled[i] = sp[perm[i]];
  cr_assert_eq(sweep_shard_assign(sp, n, 5, a, NULL), 0);
  cr_assert_eq(sweep_shard_assign(shuffled, n, 5, b, NULL), 0);
  for (long i = 0; i < n; i++) cr_assert_eq(b[i], a[perm[i]], "seed %llu: point %ld moved", (unsigned long long)seed, perm[i]);
  /* the same again (no state kept between calls) */
  cr_assert_eq(sweep_shard_assign(sp, n, 5, b, NULL), 0);
  cr_assert_eq(memcmp(a, b, sizeof *a * (size_t)n), 0);
  int ns[] = {256, 2048}, ns2[] = {2048, 256}, ns3[] = {256, 4096};
  char f1[17], f2[17], f3[17], f4[17], f5[17];
  cr_assert_eq(sweep_space_fingerprint(sp, n, ns, 2, 'L', 0, f1), 0);
  cr_assert_eq(sweep_space_fingerprint(shuffled, n, ns2, 2, 'L', 0, f2), 0);
  cr_assert_str_eq(f1, f2, "seed %llu", (unsigned long long)seed);
  cr_assert_eq(sweep_space_fingerprint(sp, n, ns3, 2, 'L', 0, f3), 0);
  cr_assert_eq(sweep_space_fingerprint(sp, n - 1, ns, 2, 'L', 0, f4), 0);
  cr_assert_eq(sweep_space_fingerprint(sp, n, ns, 2, 'U', 0, f5), 0);
  cr_assert_str_neq(f1, f3);
  cr_assert_str_neq(f1, f4);
  cr_assert_str_neq(f1, f5);
  int k, N;
  cr_assert_eq(sweep_shard_parse("3/8", &k, &N), 0);
  cr_assert(k == 3 && N == 8);
  static const char *const bad[] = {"8/8", "-1/4", "1/0", "1", "1/", "/4", "1/4x", "1/5000", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) cr_assert_neq(sweep_shard_parse(bad[i], &k, &N), 0, "'%s'", bad[i]);
  free(a), free(b), free(perm), free(shuffled), free(sp);
}

/* ---- the program, with the stand-in worker -------------------------------- */

static char dir[64];

static void setup(void)
{
  test_fake_worker();
  /* in memory where there is /dev/shm: a sweep commits once per candidate */
  snprintf(dir, sizeof dir, "%s/symvtune-shard-XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) { test_rmtree(dir); }


#define FAKE_SWEEP(db, ...)                                                                                       \
  (char *[]){"symvtune", "sweep", "--db", db, "--families", "lu", "--sizes", "256,2048", "--jobs", "0",         \
             "--quiet", __VA_ARGS__, NULL}

static char out[1 << 16];

/* The fake worker's time factor of a point (its hash), and its device's. */
static double fake_factor(const char *point)
{
  unsigned h = 2166136261u;
  for (const char *c = point; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
  return 0.6 + (h % 1000) / 1000.0;
}

Test(devices, two_gpus_share_the_work_a_dying_and_a_hanging_worker_are_restarted, .init = setup, .fini = teardown,
     .timeout = 60)
{
  char one[128], two[128], state[128], log[128];
  snprintf(one, sizeof one, "%s/one.db", dir);
  snprintf(two, sizeof two, "%s/two.db", dir);
  snprintf(state, sizeof state, "%s/died", dir);
  snprintf(log, sizeof log, "%s/log", dir);
  int rc = run_symvtune_all(out, sizeof out, FAKE_SWEEP(one, "--no-dense"));
  cr_assert_eq(rc, 0, "%s", out);
  setenv("FAKE_DIE_DEVICE", "1", 1), setenv("FAKE_DIE_AFTER", "4", 1), setenv("FAKE_STATE", state, 1);
  setenv("FAKE_HANG", "lu:128,8,2,0", 1), setenv("FAKE_US", "300", 1);
  rc = run_symvtune_all(out, sizeof out, FAKE_SWEEP(two, "--no-dense", "--devices", "0,1", "--timeout", "1"));
  unsetenv("FAKE_DIE_DEVICE"), unsetenv("FAKE_DIE_AFTER"), unsetenv("FAKE_STATE"), unsetenv("FAKE_HANG"), unsetenv("FAKE_US");
  cr_assert_eq(rc, 0, "%s", out);
  cr_assert_eq(access(state, F_OK), 0, "the worker on GPU 1 never reached its 4th candidate:\n%s", out);
  cr_assert_not_null(strstr(out, "spread between the GPUs"), "%s", out);
  cr_assert_not_null(strstr(out, "1.00%"), "the GPUs' cuBLAS times differ by 1%%:\n%s", out);
  db *a, *b;
  cr_assert_eq(db_open(&a, one, DB_READONLY), 0);
  cr_assert_eq(db_open(&b, two, DB_READONLY), 0);
  db_candidate *la, *lb;
  size_t na, nb;
  cr_assert_eq(db_list_candidates(a, SYMV_DSYMV, -1, DB_ANY_FAMILY, &la, &na), 0);
  cr_assert_eq(db_list_candidates(b, SYMV_DSYMV, -1, DB_ANY_FAMILY, &lb, &nb), 0);
  cr_assert_eq(na, nb);
  int faults = 0, timeouts = 0, on[2] = {0, 0};
  for (size_t i = 0; i < nb; i++) {
    char point[64];
    symv_params_format(&lb[i].p, point, sizeof point);
    cr_assert_neq(lb[i].status, DB_PENDING, "%s left pending", point);
    if (lb[i].status == DB_INVALID) {
      if (lb[i].reason == DB_REASON_FAULT) {
        faults++;
        cr_assert_not_null(strstr(lb[i].detail, "signal 9"), "%s", lb[i].detail);
      } else {
        cr_assert_eq(lb[i].reason, DB_REASON_TIMEOUT, "%s: %s", point, db_reason_name(lb[i].reason));
        cr_assert_str_eq(point, "lu:128,8,2,0");
        timeouts++;
      }
      continue;
    }
    /* the same fate as on one GPU, and a time that says which GPU measured it */
    long long id;
    cr_assert_eq(db_find_candidate(a, &lb[i].p, &id), 0);
    db_candidate ca;
    cr_assert_eq(db_get_candidate(a, id, &ca), 0);
    cr_assert_eq(ca.status, DB_VALID);
    db_measurement *m;
    size_t nm;
    cr_assert_eq(db_candidate_measurements(b, lb[i].id, DB_STAGE_SWEEP, 'L', 0, &m, &nm), 0);
    cr_assert_eq(nm, 2, "%s: %zu timings", point, nm);
    double base = (2 + (double)m[0].n * m[0].n * 8 / 2 / 3000e3) * fake_factor(point);
    double gpu = m[0].median_us / base - 1;
    cr_assert(fabs(gpu) < 1e-4 || fabs(gpu - 0.01) < 1e-4, "%s: %g", point, gpu);
    on[gpu > 0.005]++;
    free(m);
  }
  cr_assert_eq(faults, 1, "one candidate killed its worker: %d faults", faults);
  cr_assert_eq(timeouts, 1);
  cr_assert_gt(on[0], 0);
  cr_assert_gt(on[1], 0, "GPU 1 measured nothing");
  cr_assert_not_null(strstr(out, "2 worker restarts"), "%s", out);
  free(la), free(lb);
  db_close(a), db_close(b);
}

Test(devices, gpus_of_two_models_are_refused_together, .init = setup, .fini = teardown, .timeout = 30)
{
  char path[128];
  snprintf(path, sizeof path, "%s/mixed.db", dir);
  setenv("FAKE_NAME_1", "NVIDIA A100-SXM4-80GB", 1);
  int rc = run_symvtune_all(out, sizeof out, FAKE_SWEEP(path, "--devices", "0,1"));
  unsetenv("FAKE_NAME_1");
  cr_assert_eq(rc, 4, "%s", out);
  cr_assert_not_null(strstr(out, "one GPU model"), "%s", out);
  db *d;
  cr_assert_eq(db_open(&d, path, DB_READONLY), 0);
  db_counts c;
  cr_assert_eq(db_count_candidates(d, DB_ANY_ROUTINE, DB_ANY_FAMILY, &c), 0);
  cr_assert_eq(c.total, 0, "candidates recorded by a refused sweep");
  db_close(d);
  cr_assert_eq(run_symvtune_all(out, sizeof out, FAKE_SWEEP(path, "--devices", "0,0")), 2, "%s", out);
}

/* ---- shards and merge ------------------------------------------------------ */

static void shard_paths(char p[3][128])
{
  for (int k = 0; k < 3; k++) snprintf(p[k], 128, "%s/part-%d.db", dir, k);
}

static void sweep_shards(char p[3][128])
{
  shard_paths(p);
  for (int k = 0; k < 3; k++) {
    char sh[8];
    snprintf(sh, sizeof sh, "%d/3", k);
    int rc = run_symvtune_all(out, sizeof out, FAKE_SWEEP(p[k], "--shard", sh));
    cr_assert_eq(rc, 0, "shard %d: %s", k, out);
  }
}

Test(merge, shards_merged_equal_a_whole_sweep_and_the_merged_database_goes_on_to_the_dense_stage, .init = setup,
     .fini = teardown, .timeout = 60)
{
  char p[3][128], whole[128], merged[160];
  sweep_shards(p);
  snprintf(whole, sizeof whole, "%s/whole.db", dir);
  snprintf(merged, sizeof merged, "%s/merged.db", dir);
  cr_assert_eq(run_symvtune_all(out, sizeof out, FAKE_SWEEP(whole, "--no-dense")), 0, "%s", out);
  long long parts = 0;
  for (int k = 0; k < 3; k++) {
    long long c = test_sql_int(p[k], "SELECT count(*) FROM candidate");
    cr_assert_gt(c, 30, "shard %d holds %lld candidates", k, c);
    cr_assert_eq(test_sql_int(p[k], "SELECT count(*) FROM measurement WHERE stage = 'dense'"), 0, "a shard ran the dense stage");
    parts += c;
  }
  cr_assert_eq(parts, test_sql_int(whole, "SELECT count(*) FROM candidate"));
  int rc = run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "merge", "--db", merged, p[2], p[0], p[1], "--check-complete", NULL});
  cr_assert_eq(rc, 0, "%s", out);
  /* the same candidates with the same fate and the same timings (the fake worker's are exact) */
  static const char *const q[] = {
    "SELECT count(*) FROM candidate",
    "SELECT count(*) FROM candidate WHERE status = 'valid'",
    "SELECT count(*) FROM measurement",
    "SELECT count(*) FROM baseline WHERE routine = 'dsymv' AND name IN ('cublas', 'cublas_atomics')",
    "SELECT total(m.median_us * c.block_size + c.ux) FROM measurement m JOIN candidate c ON c.id = m.candidate_id",
    /* the code each candidate was measured with, kept with it */
    "SELECT count(*) FROM kernel_code k JOIN candidate c ON c.id = k.candidate_id",
    "SELECT count(DISTINCT c.family || c.block_size || c.ux || c.mx || k.code) FROM kernel_code k "
    "JOIN candidate c ON c.id = k.candidate_id",
  };
  for (size_t i = 0; i < sizeof q / sizeof *q; i++)
    cr_assert_eq(test_sql_int(merged, q[i]), test_sql_int(whole, q[i]), "%s", q[i]);
  cr_assert_eq(test_sql_int(merged, "SELECT count(*) FROM shard"), 3);
  /* pending 0: sweeping the merged database is its dense stage */
  rc = run_symvtune_all(out, sizeof out, FAKE_SWEEP(merged, "--top", "3"));
  cr_assert_eq(rc, 0, "%s", out);
  cr_assert_geq(test_sql_int(merged, "SELECT count(DISTINCT candidate_id) FROM measurement WHERE stage = 'dense'"), 3);
  cr_assert_eq(test_sql_int(merged, "SELECT count(*) FROM candidate WHERE status = 'pending'"), 0);
  /* the floor at every dense size, stored as the baseline "floor" (the
   * stand-in's floor is half its cuBLAS time) */
  long long ndense = test_sql_int(merged, "SELECT count(*) FROM baseline WHERE name = 'cublas' AND stage = 'dense'");
  cr_assert_geq(ndense, 20); /* the adaptive dense stage: at least its start set */
  cr_assert_eq(test_sql_int(merged, "SELECT count(*) FROM baseline f JOIN baseline c ON c.n = f.n AND c.stage = f.stage "
                                  "AND c.uplo = f.uplo AND c.hot = f.hot AND c.routine = f.routine "
                                  "WHERE f.name = 'floor' AND c.name = 'cublas' AND f.stage = 'dense' "
                                  "AND abs(f.median_us - 0.5 * c.median_us) <= 1e-5 * c.median_us"),
               ndense);
  /* rank: each survivor's x floor, its dense time over the floor's: twice its factor */
  rc = run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "rank", "--db", merged, "--top", "3", NULL});
  cr_assert_eq(rc, 0, "%s", out);
  int checked = 0;
  for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
    char point[64];
    double xf;
    const char *last = strrchr(line, ' '); /* x floor: the last column */
    if (sscanf(line, " * %*d %63s", point) != 1 || !last || sscanf(last, "%lf", &xf) != 1) continue;
    cr_assert(fabs(xf - 2 * fake_factor(point)) <= 0.0051, "%s: x floor %.2f, not %.2f", point, xf, 2 * fake_factor(point));
    checked++;
  }
  cr_assert_geq(checked, 3, "rank listed no survivor with its x floor");
}

Test(merge, foreign_overlapping_incomplete_and_tampered_sets_are_refused_and_leave_no_file, .init = setup,
     .fini = teardown, .timeout = 60)
{
  char p[3][128], other[128], foreign[128], m[160];
  sweep_shards(p);
  snprintf(m, sizeof m, "%s/m.db", dir);
  snprintf(other, sizeof other, "%s/other.db", dir);
  snprintf(foreign, sizeof foreign, "%s/foreign.db", dir);
  struct {
    char *const *args;
    const char *says;
  } cases[] = {
    {(char *[]){"symvtune", "merge", "--db", m, p[0], p[2], NULL}, "1 of the 3 shards are missing (K = 1)"},
    {(char *[]){"symvtune", "merge", "--db", m, p[0], p[1], p[2], p[1], NULL}, "shard 1/3 is in both"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int rc = run_symvtune_all(out, sizeof out, cases[i].args);
    cr_assert_eq(rc, 1, "case %zu: %s", i, out);
    cr_assert_not_null(strstr(out, cases[i].says), "case %zu: %s", i, out);
    cr_assert_neq(access(m, F_OK), 0, "case %zu left %s", i, m);
  }
  /* --incomplete takes the two, once each */
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "merge", "--db", m, p[0], p[2], "--incomplete", NULL}), 0, "%s", out);
  unlink(m);
  /* another space (other sizes) */
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "sweep", "--db", other, "--families", "lu", "--sizes",
                                                   "256", "--jobs", "0", "--quiet", "--shard", "1/3", NULL}), 0, "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "merge", "--db", m, p[0], other, p[2], NULL}), 1, "%s", out);
  cr_assert_not_null(strstr(out, "not one sweep"), "%s", out);
  /* another GPU model */
  setenv("FAKE_NAME_0", "NVIDIA A100-SXM4-80GB", 1);
  cr_assert_eq(run_symvtune_all(out, sizeof out, FAKE_SWEEP(foreign, "--shard", "1/3")), 0, "%s", out);
  unsetenv("FAKE_NAME_0");
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "merge", "--db", m, p[0], foreign, p[2], NULL}), 1, "%s", out);
  cr_assert_not_null(strstr(out, "two GPU models"), "%s", out);
  cr_assert_neq(access(m, F_OK), 0);
  /* a shard that lost a candidate: the set no longer makes up its space */
  char lost[160];
  cr_assert_lt(snprintf(lost, sizeof lost, "cp %s %s/lost.db", p[1], dir), (int)sizeof lost);
  cr_assert_eq(system(lost), 0);
  snprintf(lost, sizeof lost, "%s/lost.db", dir);
  test_sql_exec(lost, "DELETE FROM candidate WHERE id = (SELECT max(id) FROM candidate)");
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "merge", "--db", m, p[0], lost, p[2], NULL}), 1, "%s", out);
  cr_assert_not_null(strstr(out, "not the space"), "%s", out);
  /* a candidate of shard 2 measured in shard 1's file too */
  test_sql_exec(lost, "INSERT INTO candidate (routine, family, block_size, ux, multiplicity, mx, status) "
                 "SELECT routine, family, block_size, ux, multiplicity, mx, 'valid' FROM candidate LIMIT 0");
  char sql[600];
  snprintf(sql, sizeof sql, "ATTACH '%s' AS two; INSERT INTO candidate (routine, family, block_size, ux, multiplicity, mx, "
           "status) SELECT routine, family, block_size, ux, multiplicity, mx, status FROM two.candidate "
           "WHERE status = 'valid' LIMIT 1", p[2]);
  test_sql_exec(lost, sql);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "merge", "--db", m, p[0], lost, p[2], NULL}), 1, "%s", out);
  cr_assert_not_null(strstr(out, "measured in both"), "%s", out);
  cr_assert_neq(access(m, F_OK), 0);
  /* a shard's database takes no other shard, nor a whole sweep */
  cr_assert_eq(run_symvtune_all(out, sizeof out, FAKE_SWEEP(p[1], "--shard", "2/3")), 4, "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, FAKE_SWEEP(p[1], "--no-dense")), 4, "%s", out);
}

/* DSYMV of the shipped H200 database (tests/data/sweep6-h200.db.xz), cut
 * into 4 shards by the partition, each written as a shard's database
 * through db.h, and merged back: the same candidates, fates and timings.
 * To keep it fast (db/ prepares each statement anew: about 20 s for all
 * 17,516 candidates), the space is a part of it: every family but atomic,
 * and atomic at BLOCK_SIZE 64, MX 0-1. */
#define H200_PART "routine = 'dsymv' AND (family <> 'atomic' OR (block_size = 64 AND mx < 2))"
Test(merge, the_shipped_h200_database_split_into_shards_and_merged_is_the_same, .init = setup, .fini = teardown,
     .timeout = 120)
{
  char whole[160], cmd[512];
  snprintf(whole, sizeof whole, "%s/sweep6-h200.db", dir);
  snprintf(cmd, sizeof cmd, "xz -dc '%s/sweep6-h200.db.xz' > '%s'", SYMV_TEST_DATA, whole);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  db *src;
  cr_assert_eq(db_open(&src, whole, DB_READONLY), 0);
  db_device dev;
  cr_assert_eq(db_get_device(src, &dev), 0);
  db_candidate *c;
  size_t n;
  cr_assert_eq(db_list_candidates(src, SYMV_DSYMV, -1, DB_ANY_FAMILY, &c, &n), 0);
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (c[i].p.family != SYMV_FAMILY_ATOMIC || (c[i].p.block_size == 64 && c[i].p.mx < 2)) c[kept++] = c[i];
  n = kept;
  cr_assert_eq((long long)n, test_sql_int(whole, "SELECT count(*) FROM candidate WHERE " H200_PART));
  cr_assert_gt(n, 1500);
  symv_params *sp = calloc(n, sizeof *sp);
  int *shard = malloc(sizeof *shard * n);
  for (size_t i = 0; i < n; i++) sp[i] = c[i].p;
  enum { N = 4 };
  int ns[] = {256, 768, 2048, 6144, 16384};
  db_shard row = {.k = 0, .n = N, .uplo = 'L', .hot = 0, .space_size = (long long)n};
  row.routine = SYMV_DSYMV;
  snprintf(row.sizes, sizeof row.sizes, "256,768,2048,6144,16384");
  cr_assert_eq(sweep_space_fingerprint(sp, (long)n, ns, 5, 'L', 0, row.space), 0);
  cr_assert_eq(sweep_shard_assign(sp, (long)n, N, shard, NULL), 0);
  char part[N][128];
  static const char *const names[2] = {"cublas", "cublas_atomics"};
  for (int k = 0; k < N; k++) {
    snprintf(part[k], sizeof part[k], "%s/h200-%d.db", dir, k);
    db *d;
    cr_assert_eq(db_open(&d, part[k], DB_CREATE), 0);
    cr_assert_eq(db_check_device(d, &dev, 0), 0);
    cr_assert_eq(db_begin(d), 0);
    row.k = k, row.candidates = 0;
    for (size_t i = 0; i < n; i++) {
      if (shard[i] != k) continue;
      row.candidates++;
      db_candidate x = c[i];
      cr_assert_eq(db_put_candidate(d, &x, &x.id), 0);
      if (c[i].status != DB_PENDING) cr_assert_eq(db_set_candidate_result(d, &x), 0, "%s", db_errmsg(d));
      for (int s = 0; s < DB_STAGE_COUNT; s++) {
        db_measurement *m;
        size_t nm;
        cr_assert_eq(db_candidate_measurements(src, c[i].id, (db_stage)s, 0, -1, &m, &nm), 0);
        for (size_t j = 0; j < nm; j++) cr_assert_eq(db_put_measurement(d, x.id, &m[j]), 0);
        free(m);
      }
    }
    for (int b = 0; b < 2; b++)
      for (int s = 0; s < DB_STAGE_COUNT; s++) {
        db_measurement *m;
        size_t nm;
        cr_assert_eq(db_baseline_measurements(src, SYMV_DSYMV, names[b], (db_stage)s, 0, -1, &m, &nm), 0);
        for (size_t j = 0; j < nm; j++) cr_assert_eq(db_put_baseline(d, SYMV_DSYMV, names[b], &m[j]), 0);
        free(m);
      }
    cr_assert_eq(db_put_shard(d, &row), 0, "%s", db_errmsg(d));
    cr_assert_eq(db_commit(d), 0);
    db_close(d);
  }
  char merged[160];
  snprintf(merged, sizeof merged, "%s/h200-merged.db", dir);
  int rc = run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "merge", "--db", merged, part[3], part[1], part[0], part[2], NULL});
  cr_assert_eq(rc, 0, "%s", out);
  static const char *const q[] = {
    "SELECT count(*) FROM candidate WHERE " H200_PART,
    "SELECT count(*) FROM candidate WHERE status = 'valid' AND " H200_PART,
    "SELECT count(*) FROM candidate WHERE reason = 'occupancy' AND " H200_PART,
    "SELECT count(*) FROM measurement JOIN candidate ON id = candidate_id WHERE stage = 'sweep' AND " H200_PART,
    "SELECT count(*) FROM measurement JOIN candidate ON id = candidate_id WHERE stage = 'dense' AND " H200_PART,
    "SELECT count(*) FROM baseline WHERE routine = 'dsymv' AND name IN ('cublas', 'cublas_atomics')",
    "SELECT CAST(total(median_us * 1000) AS INTEGER) FROM measurement JOIN candidate ON id = candidate_id WHERE " H200_PART,
    "SELECT CAST(total(regs_per_thread * block_size + length(detail)) AS INTEGER) FROM candidate WHERE " H200_PART,
  };
  for (size_t i = 0; i < sizeof q / sizeof *q; i++)
    cr_assert_eq(test_sql_int(merged, q[i]), test_sql_int(whole, q[i]), "%s", q[i]);
  /* every candidate's fate and timings, one by one */
  db *m;
  cr_assert_eq(db_open(&m, merged, DB_READONLY), 0);
  for (size_t i = 0; i < n; i++) {
    long long id;
    db_candidate x;
    cr_assert_eq(db_find_candidate(m, &c[i].p, &id), 0);
    cr_assert_eq(db_get_candidate(m, id, &x), 0);
    cr_assert(x.status == c[i].status && x.reason == c[i].reason && !strcmp(x.detail, c[i].detail));
    db_measurement *ma, *mb;
    size_t na, nb;
    cr_assert_eq(db_candidate_measurements(src, c[i].id, DB_STAGE_SWEEP, 0, -1, &ma, &na), 0);
    cr_assert_eq(db_candidate_measurements(m, id, DB_STAGE_SWEEP, 0, -1, &mb, &nb), 0);
    cr_assert_eq(na, nb);
    for (size_t j = 0; j < na; j++) cr_assert(ma[j].n == mb[j].n && ma[j].median_us == mb[j].median_us);
    free(ma), free(mb);
  }
  db_close(m);
  db_close(src);
  /* the same four with one left out: refused */
  unlink(merged);
  rc = run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "merge", "--db", merged, part[3], part[1], part[0], NULL});
  cr_assert_eq(rc, 1, "%s", out);
  cr_assert_not_null(strstr(out, "K = 2"), "%s", out);
  free(c), free(sp), free(shard);
}

/* ---- validate --------------------------------------------------------------- */

/* The fake worker's times are base(n) x f(candidate): the fastest kernel is
 * the same at every n, and a fit of them is exact. */
Test(validate, regret_is_measured_at_unsampled_sizes_and_stored, .init = setup, .fini = teardown, .timeout = 60)
{
  char db[128];
  snprintf(db, sizeof db, "%s/v.db", dir);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "sweep", "--db", db, "--families", "lu,panel", "--sizes",
                                                   "256,2048", "--jobs", "0", "--quiet", NULL}), 0, "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "fit", "--db", db, NULL}), 0, "%s", out);
  char *const val[] = {"symvtune", "validate", "--db", db, "--sizes", "12", "--seed", "5", NULL};
  cr_assert_eq(run_symvtune_all(out, sizeof out, val), 0, "%s", out);
  cr_assert_not_null(strstr(out, "seed 5"), "%s", out);
  cr_assert_not_null(strstr(out, "median 1.000, 90th percentile 1.000, max 1.000; 0 of them"), "%s", out);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_run"), 1);
  cr_assert_eq(test_sql_int(db, "SELECT count(DISTINCT n) FROM validation_time"), 12);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_time WHERE chosen = 1"), 12, "one chosen per size");
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_time v WHERE EXISTS (SELECT 1 FROM measurement m "
                              "WHERE m.n = v.n AND m.stage = 'dense')"), 0, "a validation size was a dense sample");
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_time WHERE n < 32 OR n > 32768"), 0);
  long long kernels = test_sql_int(db, "SELECT count(*) FROM fit_curve WHERE fit_id = (SELECT id FROM fit WHERE "
                                     "atomics = 'any' ORDER BY id DESC LIMIT 1)");
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_time"), 12 * kernels, "every kernel at every size");

  /* the same seed, the same sizes */
  cr_assert_eq(run_symvtune_all(out, sizeof out, val), 0, "%s", out);
  cr_assert_eq(test_sql_int(db, "SELECT count(DISTINCT n) FROM validation_time"), 12, "the second run's sizes differ");

  /* rules made to name a slower champion of the fit: its time over the
   * fastest's, exactly, at every size */
  sqlite3 *c;
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_open_v2(db, &c, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  cr_assert_eq(sqlite3_prepare_v2(c, "SELECT c.id, c.family, c.block_size, c.ux, c.multiplicity, c.mx FROM candidate c "
                                     "JOIN fit_rule r ON r.candidate_id = c.id JOIN fit f ON f.id = r.fit_id AND "
                                     "f.atomics = 'any' UNION ALL SELECT c.id, c.family, c.block_size, c.ux, c.multiplicity, c.mx "
                                     "FROM candidate c JOIN fit_curve v ON v.candidate_id = c.id JOIN fit f ON "
                                     "f.id = v.fit_id AND f.atomics = 'any'",
                                  -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(c));
  char best[64] = "", worst[64] = "";
  long long worst_id = 0;
  double fb = 0, fw = 0;
  for (int row = 0; sqlite3_step(st) == SQLITE_ROW; row++) {
    char pt[64];
    snprintf(pt, sizeof pt, "%s:%d,%d,%d,%d", sqlite3_column_text(st, 1), sqlite3_column_int(st, 2),
             sqlite3_column_int(st, 3), sqlite3_column_int(st, 4), sqlite3_column_int(st, 5));
    const double f = fake_factor(pt);
    if (row == 0) snprintf(best, sizeof best, "%s", pt), fb = f;
    else if (f > fw) snprintf(worst, sizeof worst, "%s", pt), fw = f, worst_id = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(c);
  cr_assert(fb > 0 && fw > fb, "the rules' %s (%g) and the slowest lu %s (%g)", best, fb, worst, fw);

  char sql[256];
  snprintf(sql, sizeof sql, "UPDATE fit_rule SET candidate_id = %lld WHERE kernel = 'candidate' AND fit_id = (SELECT "
           "id FROM fit WHERE atomics = 'any' ORDER BY id DESC LIMIT 1)", worst_id);
  test_sql_exec(db, sql);
  /* --replay: these rules judged by the times of run 2 (the right rules',
   * 12 sizes), nothing measured or stored: the same ratio at every size */
  char want[128];
  snprintf(want, sizeof want, "median %.3f, 90th percentile %.3f, max %.3f; %d of them", fw / fb, fw / fb, fw / fb,
           fw / fb > 1.05 ? 12 : 0);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--replay", NULL}), 0,
               "%s", out);
  cr_assert_not_null(strstr(out, "judged by the times of stored run 2"), "%s", out);
  cr_assert_not_null(strstr(out, "over 12 sizes"), "%s", out);
  cr_assert_not_null(strstr(out, want), "expected '%s' (%s over %s):\n%s", want, worst, best, out);
  cr_assert_not_null(strstr(out, "prediction error of every curve at the run's sizes, by family"), "%s", out);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_run"), 2, "--replay stores nothing");
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--replay", "--stored",
                                                   NULL}), 2, "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--replay", "--sizes",
                                                   "3", NULL}), 2, "%s", out);
  char *const val2[] = {"symvtune", "validate", "--db", db, "--sizes", "300,5000", NULL};
  cr_assert_eq(run_symvtune_all(out, sizeof out, val2), 0, "%s", out);
  snprintf(want, sizeof want, "median %.3f, 90th percentile %.3f, max %.3f; %d of them", fw / fb, fw / fb, fw / fb,
           fw / fb > 1.05 ? 2 : 0);
  cr_assert_not_null(strstr(out, want), "expected '%s' (%s over %s):\n%s", want, worst, best, out);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_run"), 3);

  /* --lib: the library's own call in the same rounds; the stand-in says
   * it ran the rules' (slower) kernel, 3% slower: 1.030 over the chosen,
   * 1.03 fw / fb over the fastest, at every size */
  char libdir[200], libfile[256];
  snprintf(libdir, sizeof libdir, "%s/built lib", dir); /* a space: the path is the rest of the worker's line */
  cr_assert_eq(mkdir(libdir, 0755), 0);
  char *const withlib[] = {"symvtune", "validate", "--db", db, "--sizes", "300,5000", "--lib", libdir, NULL};
  cr_assert_eq(run_symvtune_all(out, sizeof out, withlib), 2, "no library in the folder yet:\n%s", out);
  cr_assert_not_null(strstr(out, "no library at"), "%s", out);
  snprintf(libfile, sizeof libfile, "%s/lib", libdir);
  cr_assert_eq(mkdir(libfile, 0755), 0);
  snprintf(libfile, sizeof libfile, "%s/lib/libsymv.so", libdir);
  FILE *lf = fopen(libfile, "w");
  cr_assert_not_null(lf);
  fclose(lf);
  setenv("FAKE_LIB_KERNEL", worst, 1);
  setenv("FAKE_LIB_FACTOR", "1.03", 1);
  const long long runs_before = test_sql_int(db, "SELECT count(*) FROM validation_run");
  const int lrc = run_symvtune_all(out, sizeof out, withlib);
  unsetenv("FAKE_LIB_KERNEL");
  unsetenv("FAKE_LIB_FACTOR");
  cr_assert_eq(lrc, 0, "%s", out);
  cr_assert_not_null(strstr(out, "kernels and libsymv timed at each size"), "%s", out);
  cr_assert_not_null(strstr(out, "libsymv over the chosen kernel (dispatch) at 2 sizes: median 1.030, max 1.030"),
                     "%s", out);
  snprintf(want, sizeof want, "libsymv over the fastest kernel (its regret): median %.3f, 90th percentile %.3f, max "
           "%.3f", 1.03 * fw / fb, 1.03 * fw / fb, 1.03 * fw / fb);
  cr_assert_not_null(strstr(out, want), "expected '%s':\n%s", want, out);
  cr_assert_not_null(strstr(out, "host time to queue a call: median 3.50 us"), "%s", out);
  char ranrow[96];
  snprintf(ranrow, sizeof ranrow, "     300 %-30s", worst);
  cr_assert_not_null(strstr(out, ranrow), "what the library ran, at n = 300:\n%s", out);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_run"), runs_before + 1, "the kernels' run is stored");
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_time WHERE run_id = (SELECT max(id) FROM "
                                "validation_run)"), 2 * kernels, "the library's times are not stored as a kernel's");
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--stored", "--lib",
                                                   libdir, NULL}), 2, "%s", out);

  /* rules that name a kernel the fit has no curve of are refused, nothing run */
  test_sql_exec(db, "UPDATE fit_rule SET candidate_id = (SELECT max(id) FROM candidate WHERE status = 'valid' AND id NOT IN "
               "(SELECT candidate_id FROM fit_curve WHERE candidate_id IS NOT NULL)) WHERE kernel = 'candidate' AND "
               "fit_id = (SELECT id FROM fit WHERE atomics = 'any' ORDER BY id DESC LIMIT 1)");
  cr_assert_eq(run_symvtune_all(out, sizeof out, val2), 4, "%s", out);
  cr_assert_not_null(strstr(out, "which the fit has no curve of"), "%s", out);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_run"), 4, "three runs and the one with --lib");
}

/* A disturbance (the stand-in worker's FAKE_DISTURB: one candidate command
 * reads three times its times at every size) is judged as the kernel's
 * time by one round, and not by three: the least of the rounds' medians
 * is the undisturbed time, the same as a run without it, and the rounds'
 * disagreement is reported. */
Test(validate, rounds_keep_a_disturbance_out_of_the_times, .init = setup, .fini = teardown, .timeout = 90)
{
  char db[128];
  snprintf(db, sizeof db, "%s/r.db", dir);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "sweep", "--db", db, "--families", "lu,panel", "--sizes",
                                                   "256,2048", "--jobs", "0", "--quiet", NULL}), 0, "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "fit", "--db", db, NULL}), 0, "%s", out);
  /* the reference: no disturbance, one round (run 1) */
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--sizes", "300,700,5000",
                                                   "--rounds", "1", NULL}), 0, "%s", out);
  cr_assert_not_null(strstr(out, "; 1 round)"), "%s", out);
  setenv("FAKE_DISTURB", "1", 1);
  /* one round: the disturbed kernel's times are three times run 1's (run 2) */
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--sizes", "300,700,5000",
                                                   "--rounds", "1", NULL}), 0, "%s", out);
  /* three rounds: the disturbance is in one of them only (run 3) */
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--sizes", "300,700,5000",
                                                   NULL}), 0, "%s", out);
  unsetenv("FAKE_DISTURB");
  cr_assert_not_null(strstr(out, "; 3 rounds)"), "%s", out);
  cr_assert_not_null(strstr(out, "the least of 3 rounds' medians; 3 of "), "three times (one kernel, 3 sizes) varied:\n%s", out);
  cr_assert_not_null(strstr(out, "x3.00)"), "%s", out);
  const char *same = "SELECT count(*) FROM validation_time a JOIN validation_time b ON a.n = b.n AND a.kernel = b.kernel "
                     "AND ifnull(a.candidate_id, 0) = ifnull(b.candidate_id, 0) WHERE a.run_id = 1 AND b.run_id = %d AND "
                     "abs(b.median_us / a.median_us - %d) < 1e-4";
  char sql[512];
  const long long rows = test_sql_int(db, "SELECT count(*) FROM validation_time WHERE run_id = 1");
  cr_assert_gt(rows, 3);
  snprintf(sql, sizeof sql, same, 2, 3);
  cr_assert_eq(test_sql_int(db, sql), 3, "one round: one kernel at 3 sizes read three times its time");
  snprintf(sql, sizeof sql, same, 2, 1);
  cr_assert_eq(test_sql_int(db, sql), rows - 3);
  snprintf(sql, sizeof sql, same, 3, 1);
  cr_assert_eq(test_sql_int(db, sql), rows, "three rounds: every time as without the disturbance");
  /* bad counts refused; --stored measures nothing */
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--rounds", "0", NULL}), 2,
               "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--rounds", "11", NULL}), 2,
               "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--stored", "--rounds", "2",
                                                   NULL}), 2, "%s", out);
}

Test(validate, command_line_and_missing_fit, .init = setup, .fini = teardown, .timeout = 30)
{
  char db[128];
  snprintf(db, sizeof db, "%s/none.db", dir);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", NULL}), 2, "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--seed", "-1", NULL}), 2,
               "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--atomics", "some", NULL}), 2,
               "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--sizes", "0", NULL}), 2,
               "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "sweep", "--db", db, "--families", "lu", "--sizes",
                                                   "256", "--jobs", "0", "--quiet", "--no-dense", NULL}), 0, "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, NULL}), 4, "%s", out);
  cr_assert_not_null(strstr(out, "no fit"), "%s", out);
}

/* 1 if the file at path begins with the n bytes magic. */
static int has_magic(const char *path, const char *magic, size_t n)
{
  char head[16] = {0};
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t got = fread(head, 1, n, f);
  fclose(f);
  return got == n && !memcmp(head, magic, n);
}

/* uplo U without a fit of its own: L's rules judged on the upper triangle,
 * printed, not stored; --png draws a run, --stored the latest stored run
 * without measuring; bad figure names refused before anything runs. */
Test(validate, uplo_u_against_l_rules_and_the_regret_drawn, .init = setup, .fini = teardown, .timeout = 90)
{
  char db[128], fig[160], fig2[160];
  snprintf(db, sizeof db, "%s/v.db", dir);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "sweep", "--db", db, "--families", "lu,panel", "--sizes",
                                                   "256,2048", "--jobs", "0", "--quiet", NULL}), 0, "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "fit", "--db", db, NULL}), 0, "%s", out);
  cr_assert_not_null(strstr(out, "libsymv serves uplo U with the rules of L"), "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--uplo", "U", "--sizes",
                                                   "6", "--seed", "3", NULL}), 0, "%s", out);
  cr_assert_not_null(strstr(out, "no fit of uplo U: judging the rules of L"), "%s", out);
  cr_assert_not_null(strstr(out, "uplo U; 3 rounds)"), "%s", out);
  cr_assert_not_null(strstr(out, "median 1.000, 90th percentile 1.000, max 1.000; 0 of them"), "%s", out);
  cr_assert_not_null(strstr(out, "not stored"), "%s", out);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_run"), 0);

  /* refused before anything runs */
  snprintf(fig, sizeof fig, "%s/regret.gif", dir);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--png", fig, NULL}), 2,
               "%s", out);
  cr_assert_not_null(strstr(out, "unknown extension .gif"), "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--png", db, NULL}), 2,
               "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--stored", "--sizes", "4",
                                                   NULL}), 2, "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--uplo", "X", NULL}), 2,
               "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--stored", NULL}), 4,
               "%s", out);
  cr_assert_not_null(strstr(out, "no validation run stored"), "%s", out);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_run"), 0);

  /* a run drawn as it is measured, then the stored one without measuring */
  snprintf(fig, sizeof fig, "%s/regret.svg", dir);
  snprintf(fig2, sizeof fig2, "%s/stored.png", dir);
  char *const val[] = {"symvtune", "validate", "--db", db, "--sizes", "8", "--seed", "5", "--png", fig, NULL};
  char *const again[] = {"symvtune", "validate", "--db", db, "--stored", "--out", fig2, NULL};
  int st = run_symvtune_all(out, sizeof out, val);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_run"), 1, "the run is stored before it is drawn");
  if (!GNUPLOT_PATH[0]) {
    cr_assert_eq(st, 4, "%s", out);
    cr_assert_not_null(strstr(out, "gnuplot was not found"), "%s", out);
    cr_skip_test("gnuplot was not found by configure");
  }
  cr_assert_eq(st, 0, "%s", out);
  cr_assert_not_null(strstr(out, "wrote "), "%s", out);
  cr_assert(has_magic(fig, "<?xml", 5), "%s is not an SVG file", fig);
  cr_assert_eq(run_symvtune_all(out, sizeof out, again), 0, "%s", out);
  cr_assert_not_null(strstr(out, "stored run 1 of fit"), "%s", out);
  cr_assert_not_null(strstr(out, "median 1.000, 90th percentile 1.000, max 1.000; 0 of them"), "%s", out);
  cr_assert(has_magic(fig2, "\x89PNG\r\n\x1a\n", 8), "%s is not a PNG file", fig2);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_run"), 1, "--stored measures and stores nothing");
}

/* A database swept on the upper triangle: fit makes U's rules from its own
 * samples, and validate --uplo U judges them and stores the run. */
Test(validate, uplo_u_with_its_own_fit_is_stored, .init = setup, .fini = teardown, .timeout = 60)
{
  char db[128];
  snprintf(db, sizeof db, "%s/u.db", dir);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "sweep", "--db", db, "--families", "lu,panel", "--sizes",
                                                   "256,2048", "--jobs", "0", "--quiet", "--uplo", "U", NULL}), 0, "%s", out);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "fit", "--db", db, NULL}), 0, "%s", out);
  cr_assert_not_null(strstr(out, "Uplo U, from its own dense samples"), "%s", out);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM fit WHERE uplo = 'U'"), 2, "both rule sets of U");
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM fit WHERE uplo = 'L'"), 0);
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--uplo", "U", "--sizes",
                                                   "5", "--seed", "2", NULL}), 0, "%s", out);
  cr_assert_null(strstr(out, "judging the rules of L"), "%s", out);
  cr_assert_not_null(strstr(out, "stored as validation run"), "%s", out);
  cr_assert_eq(test_sql_int(db, "SELECT count(*) FROM validation_run r JOIN fit f ON f.id = r.fit_id WHERE f.uplo = 'U'"), 1);
  /* L has no fit here: said so */
  cr_assert_eq(run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "validate", "--db", db, "--sizes", "5", NULL}), 4,
               "%s", out);
  cr_assert_not_null(strstr(out, "no fit"), "%s", out);
}

/* ---- merge: text from the databases on a terminal --------------------------- */

/* Copies of the three shards' databases into t[k] (dir/tK.db), fresh each
 * time, then sql run on copy k where k is in which (bit k). */
static void tampered_copies(char p[3][128], char t[3][128], unsigned which, const char *sql)
{
  for (int k = 0; k < 3; k++) {
    char cmd[400];
    snprintf(t[k], 128, "%s/t%d.db", dir, k);
    unlink(t[k]);
    cr_assert_lt(snprintf(cmd, sizeof cmd, "cp '%s' '%s'", p[k], t[k]), (int)sizeof cmd);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    if (which >> k & 1) test_sql_exec(t[k], sql);
  }
}

/* A device name, a shard's space, sizes and source holding ESC and BEL
 * sequences reach merge's output (refused or merged) written \xHH: no byte
 * below 0x20 but newline and tab. */
Test(merge, text_a_database_holds_is_escaped_on_the_terminal, .init = setup, .fini = teardown, .timeout = 60)
{
  char p[3][128], t[3][128], m[160];
  sweep_shards(p);
  snprintf(m, sizeof m, "%s/m.db", dir);
  static const struct {
    unsigned which;
    const char *sql, *says;
  } cases[] = {
    {2, "UPDATE device SET name = 'NVIDIA' || char(27) || ']0;owned' || char(7) || ' H100'", "two GPU models"},
    {7, "UPDATE shard SET sizes = sizes || char(27) || '[31m' || char(7)", "--sizes"},
    {2, "UPDATE shard SET space = substr(space, 1, 11) || char(27) || '[2J' || char(7)", "not one sweep"},
    {2, "UPDATE shard SET source = 'm' || char(27) || '[5m.db', space = '0123456789abcdef'", "not one sweep"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    tampered_copies(p, t, cases[i].which, cases[i].sql);
    unlink(m);
    run_symvtune_all(out, sizeof out, (char *[]){"symvtune", "merge", "--db", m, t[0], t[1], t[2], NULL});
    cr_assert_not_null(strstr(out, cases[i].says), "case %zu: %s", i, symv_shown(out).s);
    cr_assert_not_null(strstr(out, "\\x1b"), "case %zu: the escape is not shown: %s", i, symv_shown(out).s);
    for (const char *c = out; *c; c++)
      cr_assert((unsigned char)*c >= 0x20 || *c == '\n' || *c == '\t', "case %zu: byte 0x%02x at %ld of the output: %s",
                i, (unsigned char)*c, (long)(c - out), symv_shown(out).s);
  }
}

/* merge --incomplete checks every candidate's shard too, in the space
 * rebuilt from the GPU's limits: a shard's file that holds a candidate of a
 * missing shard is refused, and so is a set whose space cannot be rebuilt;
 * the set as swept is taken. */
Test(merge, an_incomplete_set_is_checked_against_its_rebuilt_space, .init = setup, .fini = teardown, .timeout = 60)
{
  char p[3][128], t[3][128], m[160], sql[600];
  sweep_shards(p);
  snprintf(m, sizeof m, "%s/m.db", dir);
  char *const args[] = {"symvtune", "merge", "--db", m, t[0], t[1], "--incomplete", NULL};
  tampered_copies(p, t, 0, NULL);
  cr_assert_eq(run_symvtune_all(out, sizeof out, args), 0, "%s", out);
  cr_assert_not_null(strstr(out, "1 of the 3 shards missing (K = 2)"), "%s", out);
  unlink(m);
  /* shard 1's file with a measured candidate of the missing shard 2 */
  snprintf(sql, sizeof sql, "ATTACH '%s' AS two; INSERT INTO candidate (routine, family, block_size, ux, multiplicity, "
           "mx, status) SELECT routine, family, block_size, ux, multiplicity, mx, status FROM two.candidate "
           "WHERE status = 'valid' LIMIT 1", p[2]);
  tampered_copies(p, t, 2, sql);
  cr_assert_eq(run_symvtune_all(out, sizeof out, args), 1, "%s", out);
  cr_assert_not_null(strstr(out, "shard 1/3, but the partition puts it in shard 2"), "%s", out);
  cr_assert_neq(access(m, F_OK), 0);
  /* a point of no space of lu */
  tampered_copies(p, t, 2, "INSERT INTO candidate (routine, family, block_size, ux, multiplicity, mx, status) "
                           "VALUES ('dsymv', 'lu', 96, 8, 1, 0, 'valid')");
  cr_assert_eq(run_symvtune_all(out, sizeof out, args), 1, "%s", out);
  cr_assert_not_null(strstr(out, "lu:96,8,1,0 came from"), "%s", out);
  cr_assert_not_null(strstr(out, "no point of the space"), "%s", out);
  /* a space no choice of families gives: not checked, refused */
  tampered_copies(p, t, 3, "UPDATE shard SET space = '0123456789abcdef'");
  cr_assert_eq(run_symvtune_all(out, sizeof out, args), 1, "%s", out);
  cr_assert_not_null(strstr(out, "cannot be checked"), "%s", out);
  cr_assert_neq(access(m, F_OK), 0);
}

/* ---- the Slurm scripts (scripts/slurm/), with stand-ins ------------------- */

/* Writes an executable script to dir/name, its path in path (4200 bytes). */
static void put_script(char *path, const char *name, const char *text)
{
  snprintf(path, 4200, "%s/%s", dir, name);
  test_put_file(path, text, 1);
}

/* A stand-in for sbatch and symvtune alike: each call appends its name and
 * arguments, one line, to $CALLS and prints a job id. */
static const char standin[] = "#!/bin/sh\necho \"$(basename \"$0\") $*\" >>\"$CALLS\"\necho 42\n";

/* The lines the stand-ins appended to dir/calls (malloc'ed; "" for none),
 * the file then removed. */
static char *calls_taken(void)
{
  char p[4200];
  snprintf(p, sizeof p, "%s/calls", dir);
  char *text = (char *)test_slurp(p, NULL);
  unlink(p);
  return text ? text : strdup("");
}

/* submit.sh SHARDS: a count in plain decimal from 1 to 4096, nothing else
 * (bash would read 010 as octal, 8 tasks for shards K/010; a huge count
 * wraps): refused with exit 2 before anything is submitted. */
Test(slurm, submit_takes_only_a_plain_decimal_count_of_shards, .init = setup, .fini = teardown, .timeout = 60)
{
  char sbatch[4200], cmd[16384], log[4200], *text;
  mkdir(strcat(strcpy(sbatch, dir), "/bin"), 0755);
  put_script(sbatch, "bin/sbatch", standin);
  snprintf(log, sizeof log, "%s/submit.log", dir);
  static const struct { const char *shards, *array; } good[] = {{"8", "--array=0-7"}, {"1", "--array=0-0"},
                                                                {"4096", "--array=0-4095"}};
  static const char *const bad[] = {"010", "0", "00", "4097", "99999999999999999999", "-1", "+8", "1e3", "0x10", "8 ",
                                    " 8", "a[$(touch PWNED)]"};
  for (size_t i = 0; i < sizeof good / sizeof *good + sizeof bad / sizeof *bad; i++) {
    const int ok = i < sizeof good / sizeof *good;
    const char *shards = ok ? good[i].shards : bad[i - sizeof good / sizeof *good];
    snprintf(cmd, sizeof cmd, "cd '%s' && PATH='%s/bin':\"$PATH\" CALLS='%s/calls' bash '%s/../../scripts/slurm/submit.sh' "
             "'%s' --partition=test", dir, dir, dir, SYMV_TEST_DATA, shards);
    int rc = test_sh(cmd, log, &text);
    char *calls = calls_taken();
    if (ok) {
      cr_expect_eq(rc, 0, "submit.sh %s: exit %d\n%s", shards, rc, text);
      cr_expect_not_null(strstr(calls, good[i].array), "submit.sh %s: no %s in\n%s", shards, good[i].array, calls);
    } else {
      cr_expect_eq(rc, 2, "submit.sh '%s': exit %d\n%s", shards, rc, text);
      cr_expect_not_null(strstr(text, "SHARDS must be"), "submit.sh '%s':\n%s", shards, text);
      cr_expect_str_eq(calls, "", "submit.sh '%s' submitted:\n%s", shards, calls);
    }
    free(text), free(calls);
  }
  snprintf(cmd, sizeof cmd, "%s/PWNED", dir);
  cr_assert_neq(access(cmd, F_OK), 0, "a count was run as code");
}

/* submit.sh --help prints its options; --gpu-type TYPE puts
 * --gres=gpu:TYPE:1 on both sbatch command lines (none without it: the
 * scripts' generic --gres=gpu:1), --dry-run prints them and submits
 * nothing, and a TYPE that is not a gres name is refused with exit 2. */
Test(slurm, submit_asks_for_the_gpu_type_given_and_a_dry_run_submits_nothing, .init = setup, .fini = teardown,
     .timeout = 60)
{
  char sbatch[4200], cmd[16384], log[4200], *text;
  mkdir(strcat(strcpy(sbatch, dir), "/bin"), 0755);
  put_script(sbatch, "bin/sbatch", standin);
  snprintf(log, sizeof log, "%s/submit.log", dir);
  /* gres: the --gres= expected in the sbatch command lines, -1 not counted */
  static const struct { const char *args, *want; int rc, submits, gres; } runs[] = {
      {"--help", "--gpu-type TYPE", 0, 0, -1},
      {"--dry-run --gpu-type a100 4 --partition=test", "--array=0-3 --gres=gpu:a100:1 --partition=test", 0, 0, 2},
      {"--dry-run 4", "--array=0-3 ", 0, 0, 0},
      {"--gpu-type=h100 2", "merge, dense, fit, build: job 42", 0, 1, 2},
      {"--gpu-type 'a b' 2", "--gpu-type must be a gres type name", 2, 0, 0},
  };
  for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
    snprintf(cmd, sizeof cmd, "cd '%s' && PATH='%s/bin':\"$PATH\" CALLS='%s/calls' GPU_TYPE= bash "
             "'%s/../../scripts/slurm/submit.sh' %s", dir, dir, dir, SYMV_TEST_DATA, runs[i].args);
    int rc = test_sh(cmd, log, &text);
    char *calls = calls_taken();
    cr_expect_eq(rc, runs[i].rc, "submit.sh %s: exit %d\n%s", runs[i].args, rc, text);
    cr_expect_not_null(strstr(text, runs[i].want), "submit.sh %s: no '%s' in\n%s", runs[i].args, runs[i].want, text);
    const char *seen = runs[i].submits ? calls : text;
    int gres = 0;
    for (const char *p = seen; (p = strstr(p, "--gres=")) != NULL; p++) gres++;
    if (runs[i].gres >= 0) /* the help text names the option itself */
      cr_expect_eq(gres, runs[i].gres, "submit.sh %s: %d --gres= in\n%s", runs[i].args, gres, seen);
    if (!runs[i].submits) cr_expect_str_eq(calls, "", "submit.sh %s submitted:\n%s", runs[i].args, calls);
    free(text), free(calls);
  }
}

/* merge-fit.sbatch with NO_DENSE=1 needs no GPU: it merges the shards and
 * runs neither the dense stage nor fit nor build (which would fail without
 * dense samples), and says what is left; without it, merge, the dense
 * stage, fit and build run in that order. A SHARDS that is not a plain
 * count is refused before anything runs. */
Test(slurm, merge_fit_with_no_dense_merges_only, .init = setup, .fini = teardown, .timeout = 60)
{
  char symvtune[4200], cmd[16384], log[4200], *text;
  put_script(symvtune, "symvtune", standin);
  snprintf(log, sizeof log, "%s/merge-fit.log", dir);
  static const char *const env[] = {"NO_DENSE=1 SHARDS=2", "SHARDS=2", "SHARDS=010"};
  for (int i = 0; i < 3; i++) {
    snprintf(cmd, sizeof cmd, "cd '%s' && %s OUTDIR='%s/shards' SYMVTUNE='%s' ROUTINE=zhemv CALLS='%s/calls' "
             "bash '%s/../../scripts/slurm/merge-fit.sbatch'", dir, env[i], dir, symvtune, dir, SYMV_TEST_DATA);
    int rc = test_sh(cmd, log, &text);
    char *calls = calls_taken(), want[16384];
    if (i == 0) {
      cr_expect_eq(rc, 0, "%s: exit %d\n%s", env[i], rc, text);
      snprintf(want, sizeof want, "symvtune merge --db %s/shards/merged.db --check-complete %s/shards/part-0.db "
               "%s/shards/part-1.db\n", dir, dir, dir);
      cr_expect_str_eq(calls, want, "%s: ran\n%s", env[i], calls);
      cr_expect_not_null(strstr(text, "NO_DENSE=1"), "%s: nothing said of what is left:\n%s", env[i], text);
    } else if (i == 1) {
      cr_expect_eq(rc, 0, "%s: exit %d\n%s", env[i], rc, text);
      snprintf(want, sizeof want, "symvtune merge --db %s/shards/merged.db --check-complete %s/shards/part-0.db "
               "%s/shards/part-1.db\nsymvtune sweep --db %s/shards/merged.db --routine zhemv\n"
               "symvtune fit --db %s/shards/merged.db --routine zhemv\n"
               "symvtune build --db %s/shards/merged.db --out %s/shards/libsymv\n", dir, dir, dir, dir, dir, dir, dir);
      cr_expect_str_eq(calls, want, "%s: ran\n%s", env[i], calls);
    } else {
      cr_expect_eq(rc, 2, "%s: exit %d\n%s", env[i], rc, text);
      cr_expect_not_null(strstr(text, "SHARDS must be"), "%s:\n%s", env[i], text);
      cr_expect_str_eq(calls, "", "%s: ran\n%s", env[i], calls);
    }
    free(text), free(calls);
  }
}
