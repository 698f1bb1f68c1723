/* SPDX-License-Identifier: BSD-3-Clause */
/* time_stage.c - the stage of `symvtune time` (time_stage.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compile.h"
#include "floor.h"
#include "harness.h"
#include "reference.h"
#include "symv_error.h"
#include "time_stage.h"

/* What the sizes share: the options, the device, the harness, the loaded
 * candidates, the copy rate (GB/s) and the floor family; and the size's
 * reference in more precision with --accuracy. */
typedef struct {
  const time_stage_opts *o;
  symv_device_info dev;
  harness hs;
  symv_kernel ks[TIME_STAGE_MAX_POINTS];
  int loaded[TIME_STAGE_MAX_POINTS];
  double copy;
  symv_floor_family fam;
  int have_floor;
  double *ref; /* --accuracy: the size's symv_ref_precise (2n doubles); else NULL */
} run_state;

/* One row of the table: n, what ran, its time (us), GFLOPS, GB/s of the
 * matrix's traffic, % of the copy rate, the two speed-ups (NAN: "-"), its
 * time over the floor fl (NAN: "-"), the residual as text, and the
 * relative error as text (NULL: no such column). */
static void print_row(symv_routine r, int n, const char *what, double us, double copy, double x0, double x1,
                      double fl, const char *resid, const char *err)
{
  char s0[16] = "-", s1[16] = "-", sf[16] = "-";
  if (!isnan(x0)) snprintf(s0, sizeof s0, "%.2f", x0);
  if (!isnan(x1)) snprintf(s1, sizeof s1, "%.2f", x1);
  if (fl > 0) snprintf(sf, sizeof sf, "%.2f", us / fl);
  printf("%7d %-24s %10.2f %9.1f %8.1f %6.1f %9s %9s %8s %9s", n, what, us, symv_gflops(r, n, us),
         symv_gbs(r, n, us), copy > 0 ? 100 * symv_gbs(r, n, us) / copy : 0, s0, s1, sf, resid);
  if (err) printf(" %9s", err);
  putchar('\n');
}

/* With --accuracy: st->ref := the reference in more precision at size s,
 * symv_ref_precise from the host's A, x and y0 that the GPU's calls read,
 * with the harness's uplo, alpha and beta. BENCH_ERROR after a message,
 * else BENCH_OK. */
static int precise_reference(run_state *st, const harness_size *s)
{
  const int n = s->n;
  st->ref = malloc(2 * (size_t)n * sizeof *st->ref);
  int rc = st->ref ? symv_ref_precise(st->o->c.routine, st->hs.uplo, n, st->hs.alpha, s->A, n, s->xh, 1,
                                      st->hs.beta, s->y0h, 1, st->ref)
                   : SYMV_NO_MEMORY;
  if (rc) fprintf(stderr, "symvtune time: the precise reference at n = %d: %s\n", n, symv_strerror(rc));
  return rc ? BENCH_ERROR : BENCH_OK;
}

/* The err column's text, into buf (len bytes), for the y that the last
 * verification read back (s->yh): its relative error against st->ref
 * (symv_relerr; "-" where no element of the reference is nonzero); NULL
 * without --accuracy. */
static const char *err_text(const run_state *st, const harness_size *s, char *buf, size_t len)
{
  if (!st->ref) return NULL;
  const double e = symv_relerr(st->o->c.routine, s->n, 1, s->yh, st->ref);
  if (isnan(e)) snprintf(buf, len, "-");
  else snprintf(buf, len, "%.2g", e);
  return buf;
}

/* Compiles and loads every candidate (st->loaded[i] says which did);
 * BENCH_FAIL when one did not (said on standard error), else BENCH_OK. */
static int load_points(run_state *st)
{
  const time_stage_opts *o = st->o;
  int status = BENCH_OK, rc;
  for (int i = 0; i < o->npoints; i++) o->points[i].routine = o->c.routine;
  for (int i = 0; i < o->npoints; i++) {
    symv_cubin cb;
    char *log = NULL, why[256] = "", label[48];
    symv_params_format(&o->points[i], label, sizeof label);
    st->loaded[i] = 0;
    rc = symv_compile(&o->points[i], st->dev.cc_major, st->dev.cc_minor, &cb, &log);
    if (rc) {
      fprintf(stderr, "symvtune time: %s: %s\n", label, log ? log : symv_strerror(rc));
      free(log);
      status = BENCH_FAIL;
      continue;
    }
    rc = symv_kernel_load(&o->points[i], &cb, &st->dev, &st->ks[i], why, sizeof why);
    symv_cubin_free(&cb);
    if (rc) {
      fprintf(stderr, "symvtune time: %s: %s: %s\n", label, symv_strerror(rc), why);
      status = BENCH_FAIL;
      continue;
    }
    st->loaded[i] = 1;
  }
  return status;
}

/* Loads the floor family unless --no-floor (st->have_floor), and says so;
 * with --floor-detail the empty kernel's time a call too. */
static void load_floor(run_state *st)
{
  const time_stage_opts *o = st->o;
  char why[600];
  if (o->no_floor) return;
  st->have_floor = symv_floor_family_load(&st->dev, o->c.routine, &st->fam, why, sizeof why) == 0;
  if (!st->have_floor) {
    symv_floor_family_free(&st->fam);
    fprintf(stderr, "symvtune time: the floor family could not be loaded (%s): no floor\n", why);
  }
  else printf("floor family: %d shapes (%d the GPU cannot run)\n", st->fam.nshapes, st->fam.dropped);
  if (st->have_floor && o->floor_detail) {
    symv_timing te;
    if (symv_floor_empty_time(&st->fam, o->c.batches, &te) == 0)
      printf("empty kernel (floor:32,1,1,9, launched as the others, back to back): %.2f us a call\n", te.median_us);
  }
}

/* The floor's rows at size s (with --floor-detail the untuned kernel and
 * every shape, '+' before its name); *fl its time, us. BENCH_ERROR after a
 * message, else BENCH_OK. */
static int floor_rows(run_state *st, const harness_size *s, double *fl)
{
  const time_stage_opts *o = st->o;
  const int n = s->n;
  symv_floor_result fr;
  char label[48];
  const char *nocol = st->ref ? "-" : NULL; /* the floor computes no y */
  int rc = symv_floor_measure(&st->fam, &s->set, n, o->c.batches, o->floor_detail ? 0 : 4, &fr);
  if (rc) {
    fprintf(stderr, "symvtune time: the floor at n = %d: %s %s\n", n, symv_strerror(rc), symv_cuda_error_text());
    return BENCH_ERROR;
  }
  *fl = fr.us;
  symv_params_format(&st->fam.k[fr.shape].p, label, sizeof label);
  print_row(o->c.routine, n, label, *fl, st->copy, NAN, NAN, *fl, "-", nocol);
  if (o->floor_detail && st->fam.untuned >= 0)
    print_row(o->c.routine, n, "floor-untuned", fr.untuned_us, st->copy, NAN, NAN, *fl, "-", nocol);
  for (int i = 0; o->floor_detail && i < st->fam.nshapes; i++) {
    if (i == st->fam.untuned || i == fr.shape || isnan(fr.shape_us[i])) continue;
    label[0] = '+';
    symv_params_format(&st->fam.k[i].p, label + 1, sizeof label - 1);
    print_row(o->c.routine, n, label, fr.shape_us[i], st->copy, NAN, NAN, *fl, "-", nocol);
  }
  return BENCH_OK;
}

/* The rows of size s: the floor's, both cuBLAS modes', every loaded
 * candidate's (verified, then timed). Returns `status`, BENCH_FAIL for a
 * wrong candidate, or BENCH_ERROR after a message. */
static int time_size(run_state *st, harness_size *s, int status)
{
  const time_stage_opts *o = st->o;
  const int n = s->n;
  double base[2] = {0, 0}, fl = NAN;
  symv_timing t;
  int rc;
  if (st->have_floor && floor_rows(st, s, &fl)) return BENCH_ERROR;
  for (int mode = 0; mode < 2; mode++) {
    const harness_target cublas = {NULL, NULL};
    cublasSetAtomicsMode(st->hs.h, mode ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED);
    char es[16];
    double call_us, resid;
    if (st->ref && (rc = harness_verify(&st->hs, s, &cublas, &call_us, &resid))) { /* cuBLAS's y into s->yh */
      fprintf(stderr, "symvtune time: cuBLAS at n = %d: %s %s\n", n, symv_strerror(rc), symv_cuda_error_text());
      return BENCH_ERROR;
    }
    const char *err = err_text(st, s, es, sizeof es);
    if ((rc = harness_time_loop(&st->hs, s, &cublas, o->c.batches, &t))) {
      fprintf(stderr, "symvtune time: cuBLAS at n = %d: %s\n", n, symv_strerror(rc));
      return BENCH_ERROR;
    }
    base[mode] = t.median_us;
    print_row(o->c.routine, n, mode ? "cuBLAS-atomics" : "cuBLAS", t.median_us, st->copy, base[0] / t.median_us,
              mode ? 1.0 : NAN, fl, "-", err);
  }
  for (int i = 0; i < o->npoints; i++) {
    if (!st->loaded[i]) continue;
    const harness_target cand = {&st->ks[i], NULL};
    char label[48], rs[16], es[16];
    double call_us, resid;
    symv_params_format(&o->points[i], label, sizeof label);
    if ((rc = harness_verify(&st->hs, s, &cand, &call_us, &resid))) {
      fprintf(stderr, "symvtune time: %s at n = %d: %s %s\n", label, n, symv_strerror(rc), symv_cuda_error_text());
      return BENCH_ERROR;
    }
    const char *err = err_text(st, s, es, sizeof es);
    if (!(resid <= SYMV_RESIDUAL_TOL)) status = BENCH_FAIL;
    if ((rc = harness_time_loop(&st->hs, s, &cand, o->c.batches, &t))) {
      fprintf(stderr, "symvtune time: %s at n = %d: %s\n", label, n, symv_strerror(rc));
      return BENCH_ERROR;
    }
    snprintf(rs, sizeof rs, "%.2g", resid);
    print_row(o->c.routine, n, label, t.median_us, st->copy, base[0] / t.median_us, base[1] / t.median_us, fl, rs, err);
  }
  return status;
}

int time_stage_run(const time_stage_opts *o)
{
  run_state st = {.o = o};
  int rc = symv_device_query(o->c.device, &st.dev);
  if (rc == SYMV_NO_DEVICE) {
    fprintf(stderr, "symvtune time: no CUDA device found: timing needs a GPU\n");
    return BENCH_NO_GPU;
  }
  if (rc) {
    fprintf(stderr, "symvtune time: device %d: %s %s\n", o->c.device, symv_strerror(rc), symv_cuda_error_text());
    return BENCH_ERROR;
  }
  const symv_routine_info *ri = symv_routine_get(o->c.routine);
  int status = load_points(&st);
  st.copy = symv_copy_bandwidth((size_t)1 << 30);
  printf("%s on %s, %d SMs, L2 %.0f MB; copy rate %.0f GB/s (read + write); A %s; uplo %c\n", ri->blas, st.dev.name,
         st.dev.sm_count, st.dev.l2_bytes / 1e6, st.copy, o->c.hot ? "hot (one copy)" : "cold (rotated copies > 2 x L2)",
         o->c.uplo);
  load_floor(&st);
  printf("%7s %-24s %10s %9s %8s %6s %9s %9s %8s %9s", "n", "kernel", "us", "GFLOPS", "GB/s", "%copy", "x cuBLAS",
         "x cuBLAS-a", "x floor", "resid");
  if (o->accuracy) printf(" %9s", "err");
  putchar('\n');

  const int have_hs = harness_init(&st.hs, o->c.routine, o->c.uplo, 1.0, 0.25, o->beta, 0.0) == 0;
  if (!have_hs) status = BENCH_ERROR;
  unsigned long long seed = 12345;
  for (int si = 0; si < o->c.nsizes && status != BENCH_ERROR; si++) {
    const int n = o->c.sizes[si];
    harness_size s;
    rc = bench_size_setup("time", &st.hs, &s, n, &st.dev, o->c.hot, &seed);
    if (!rc && o->accuracy) rc = precise_reference(&st, &s);
    status = rc ? BENCH_ERROR : time_size(&st, &s, status);
    free(st.ref);
    st.ref = NULL;
    harness_size_free(&s);
  }
  for (int i = 0; i < o->npoints; i++)
    if (st.loaded[i]) symv_kernel_unload(&st.ks[i]);
  if (st.have_floor) symv_floor_family_free(&st.fam);
  if (have_hs) harness_free(&st.hs);
  return status;
}
