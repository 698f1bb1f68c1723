/* SPDX-License-Identifier: BSD-3-Clause */
/* floor.c - the floor family: its shapes, loading, checksum and timing (floor.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compile.h"
#include "floor.h"
#include "routine.h"
#include "symv_error.h"

int symv_floor_shapes(const symv_device_info *d, symv_routine r, symv_params *out, int max)
{
  if ((unsigned)r >= SYMV_ROUTINE_COUNT) return 0;
  const int E = symv_routine_get(r)->elem_bytes;
  static const int bs_vec[] = {128, 256, 512}, ux_vec[] = {1, 2, 4, 8}, threads_vec[] = {512, 1024, 2048};
  static const int bs_el[] = {128, 256}, ux_el[] = {4, 8}, threads_el[] = {1024, 2048};
  symv_params all[SYMV_FLOOR_MAX_SHAPES];
  int na = 0;
  /* the 16-byte layout; for 16-byte elements the element layout is those loads */
  const int mx_vec = E == 16 ? SYMV_FLOOR_ELEMENT : SYMV_FLOOR_VEC16;
  for (size_t b = 0; b < 3; b++)
    for (size_t u = 0; u < 4; u++)
      for (size_t t = 0; t < 3; t++)
        all[na++] = (symv_params){SYMV_FAMILY_FLOOR, bs_vec[b], ux_vec[u], threads_vec[t] / bs_vec[b], mx_vec, r};
  if (E < 16)
    for (size_t b = 0; b < 2; b++)
      for (size_t u = 0; u < 2; u++)
        for (size_t t = 0; t < 2; t++)
          all[na++] = (symv_params){SYMV_FAMILY_FLOOR, bs_el[b], ux_el[u], threads_el[t] / bs_el[b],
                                    SYMV_FLOOR_ELEMENT, r};
  all[na++] = (symv_params){SYMV_FAMILY_FLOOR, 256, 1, 8, SYMV_FLOOR_WARP_COLUMN, r};
  int k = 0;
  for (int i = 0; i < na && k < max; i++) {
    if (d && (all[i].multiplicity > d->max_blocks_per_sm ||
              (long)all[i].multiplicity * all[i].block_size > d->max_threads_per_sm ||
              all[i].block_size > d->max_threads_per_block))
      continue;
    out[k++] = all[i];
  }
  return k;
}

long long symv_floor_bytes(symv_routine r, int n)
{
  if ((unsigned)r >= SYMV_ROUTINE_COUNT || n < 1) return 0;
  return (long long)n * (n + 1) / 2 * symv_routine_get(r)->elem_bytes;
}

uint64_t symv_floor_checksum(symv_routine r, int n, const void *A, int lda)
{
  if ((unsigned)r >= SYMV_ROUTINE_COUNT || n < 1 || lda < n) return 0;
  const size_t E = (size_t)symv_routine_get(r)->elem_bytes;
  const unsigned char *a = A;
  uint64_t s = 0;
  for (int j = 0; j < n; j++) {
    const unsigned char *col = a + ((size_t)j * (size_t)lda + (size_t)j) * E;
    const size_t words = (size_t)(n - j) * E / 4; /* rows j..n-1, contiguous */
    for (size_t w = 0; w < words; w++) {
      uint32_t v;
      memcpy(&v, col + 4 * w, 4);
      s += v;
    }
  }
  return s;
}

/* Compiles p and loads it; the compiled code of an earlier shape with the
 * same code (it differs at most in MULTIPLICITY) is reused. */
static int load_shape(const symv_params *p, const symv_device_info *d, symv_cubin *cache, symv_params *cached,
                      int *ncached, symv_kernel *k, char *why, size_t whylen)
{
  int c = 0;
  while (c < *ncached && !symv_params_same_code(&cached[c], p)) c++;
  if (c == *ncached) {
    char *log = NULL;
    int rc = symv_compile(p, d->cc_major, d->cc_minor, &cache[c], &log);
    if (rc) {
      snprintf(why, whylen, "%s", log ? log : symv_strerror(rc));
      free(log);
      return rc;
    }
    cached[c] = *p;
    (*ncached)++;
  }
  return symv_kernel_load(p, &cache[c], d, k, why, whylen);
}

int symv_floor_family_load(const symv_device_info *d, symv_routine r, symv_floor_family *f, char *err,
                           size_t errlen)
{
  memset(f, 0, sizeof *f);
  f->routine = r;
  f->untuned = -1;
  if (err && errlen) err[0] = 0;
  symv_params shapes[SYMV_FLOOR_MAX_SHAPES + 1], cached[SYMV_FLOOR_MAX_SHAPES + 1];
  symv_cubin cache[SYMV_FLOOR_MAX_SHAPES + 1];
  int ns = symv_floor_shapes(d, r, shapes, SYMV_FLOOR_MAX_SHAPES), ncached = 0, rc = 0;
  char why[512] = "";
  for (int i = 0; i < ns; i++) {
    rc = load_shape(&shapes[i], d, cache, cached, &ncached, &f->k[f->nshapes], why, sizeof why);
    if ((rc == SYMV_OCCUPANCY || rc == SYMV_RESOURCES) && shapes[i].mx == SYMV_FLOOR_WARP_COLUMN &&
        shapes[i].multiplicity > 1) {
      /* the untuned kernel as it always ran: the most blocks per SM that load (8, 4, 2, 1) */
      shapes[i].multiplicity /= 2;
      i--;
      rc = 0;
      continue;
    }
    if (rc == SYMV_OCCUPANCY || rc == SYMV_RESOURCES) {
      f->dropped++;
      rc = 0;
      continue;
    }
    if (rc) break;
    if (shapes[i].mx == SYMV_FLOOR_WARP_COLUMN) f->untuned = f->nshapes;
    size_t len = (size_t)d->sm_count * (size_t)shapes[i].multiplicity;
    if (len > f->out_len) f->out_len = len;
    f->nshapes++;
  }
  if (!rc) {
    const symv_params pe = {SYMV_FAMILY_FLOOR, 32, 1, 1, SYMV_FLOOR_EMPTY, r};
    rc = load_shape(&pe, d, cache, cached, &ncached, &f->empty, why, sizeof why);
    if (rc == 0 && (size_t)d->sm_count > f->out_len) f->out_len = (size_t)d->sm_count;
  }
  for (int c = 0; c < ncached; c++) symv_cubin_free(&cache[c]);
  if (!rc && f->nshapes == 0) rc = SYMV_OCCUPANCY, snprintf(why, sizeof why, "the GPU runs none of the %d shapes", ns);
  if (!rc && cudaMalloc(&f->out, f->out_len * sizeof(uint64_t)) != cudaSuccess) {
    cudaGetLastError();
    f->out = NULL;
    rc = SYMV_CUDA, snprintf(why, sizeof why, "cudaMalloc of %zu block sums failed", f->out_len);
  }
  if (rc && err && errlen) snprintf(err, errlen, "%s: %s", symv_strerror(rc), why);
  return rc;
}

void symv_floor_family_free(symv_floor_family *f)
{
  for (int i = 0; i < f->nshapes; i++) symv_kernel_unload(&f->k[i]);
  symv_kernel_unload(&f->empty);
  cudaFree(f->out);
  memset(f, 0, sizeof *f);
  f->untuned = -1;
}

int symv_floor_call(void *vctx, int rep, cudaStream_t s)
{
  symv_floor_ctx *c = vctx;
  return symv_floor_launch(c->k, s, c->n, symv_matrix_set_get(c->set, rep), c->lda, c->out);
}

typedef struct {
  double us;
  int i;
} probe_entry;

static int cmp_probe(const void *a, const void *b)
{
  const probe_entry *x = a, *y = b;
  return (x->us > y->us) - (x->us < y->us);
}

int symv_floor_measure(symv_floor_family *f, const symv_matrix_set *set, int n, int batches, int keep,
                       symv_floor_result *res)
{
  res->us = res->untuned_us = NAN;
  res->shape = -1;
  res->timed = 0;
  memset(&res->t, 0, sizeof res->t);
  for (int i = 0; i < SYMV_FLOOR_MAX_SHAPES; i++) res->shape_us[i] = NAN;
  if (n < 1 || f->nshapes < 1) return SYMV_INVALID_VALUE;
  probe_entry pr[SYMV_FLOOR_MAX_SHAPES];
  symv_timing t;
  int rc, warm = 1, calls = 2;
  if (keep < 1 || keep >= f->nshapes) {
    for (int i = 0; i < f->nshapes; i++) pr[i] = (probe_entry){0, i};
    keep = f->nshapes;
  } else {
    for (int i = 0; i < f->nshapes; i++) {
      symv_floor_ctx c = {&f->k[i], set, n, n, f->out};
      if (i == 0) { /* one call sizes the probe, as the sweep's verification call does */
        if ((rc = symv_time_probe(symv_floor_call, &c, 0, 1, 1, &t))) return rc;
        warm = symv_probe_warm(t.median_us), calls = symv_probe_calls(t.median_us);
      }
      if ((rc = symv_time_probe(symv_floor_call, &c, 0, warm, calls, &t))) return rc;
      pr[i] = (probe_entry){t.median_us, i};
    }
    qsort(pr, (size_t)f->nshapes, sizeof *pr, cmp_probe);
  }
  for (int j = 0; j < f->nshapes; j++) {
    const int i = pr[j].i;
    if (j >= keep && i != f->untuned) continue;
    symv_floor_ctx c = {&f->k[i], set, n, n, f->out};
    if ((rc = (f->held ? symv_time_held : symv_time)(symv_floor_call, &c, 0, batches, 2.0, 2000, &t))) return rc;
    res->timed++;
    res->shape_us[i] = t.median_us;
    if (i == f->untuned) res->untuned_us = t.median_us;
    if (res->shape < 0 || t.median_us < res->us) res->us = t.median_us, res->shape = i, res->t = t;
  }
  return 0;
}

int symv_floor_empty_time(symv_floor_family *f, int batches, symv_timing *t)
{
  /* the empty kernel reads nothing: any aligned address will do for A */
  symv_matrix_set one = {f->out, 0, 1};
  symv_floor_ctx c = {&f->empty, &one, 1, 1, f->out};
  return (f->held ? symv_time_held : symv_time)(symv_floor_call, &c, 0, batches, 2.0, 2000, t);
}

int symv_floor_run_checksum(const symv_kernel *k, int n, const void *A, int lda, void *out, uint64_t *sum)
{
  const long grid = symv_floor_grid(k, n);
  int rc = symv_floor_launch(k, 0, n, A, lda, out);
  if (rc) return rc;
  uint64_t *h = malloc(sizeof *h * (size_t)grid);
  if (!h) return SYMV_NO_MEMORY;
  if (cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemcpy(h, out, sizeof *h * (size_t)grid, cudaMemcpyDeviceToHost) != cudaSuccess) {
    cudaGetLastError();
    free(h);
    return SYMV_CUDA;
  }
  uint64_t s = 0;
  for (long b = 0; b < grid; b++) s += h[b];
  *sum = s;
  free(h);
  return 0;
}
