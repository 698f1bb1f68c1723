/* shard.c - the partition of a sweep's space into shards, and the space's
 * fingerprint (shard.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "routine.h"
#include "shard.h"
#include "symv_error.h"

double sweep_unit_cost(const symv_params *p, long count)
{
  /* NVRTC time grows with the unrolling: UX loads per thread, and the
   * block's shared-memory reduction */
  double compile_s = 0.5 + 0.01 * p->ux + 0.0005 * p->block_size;
  return compile_s + 0.1 * (double)count;
}

/* Order of code keys: routine, family, BLOCK_SIZE, UX, MX (MULTIPLICITY
 * last, so that the points of a compile unit are next to each other). */
static int cmp_point(const symv_params *a, const symv_params *b)
{
  const int ka[6] = {(int)a->routine, (int)a->family, a->block_size, a->ux, a->mx, a->multiplicity};
  const int kb[6] = {(int)b->routine, (int)b->family, b->block_size, b->ux, b->mx, b->multiplicity};
  for (int i = 0; i < 6; i++)
    if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
  return 0;
}

/* A point and its index in the caller's array, so that sorting needs no
 * global state. */
typedef struct {
  const symv_params *p;
  long i;
} ref;

static int cmp_ref(const void *x, const void *y)
{
  const ref *a = x, *b = y;
  int c = cmp_point(a->p, b->p);
  return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* The tunable points of space, sorted, into a malloc'd array; *m of them. */
static ref *sorted_points(const symv_params *space, long n, long *m)
{
  ref *r = malloc(sizeof *r * (size_t)(n ? n : 1));
  if (!r) return NULL;
  *m = 0;
  for (long i = 0; i < n; i++)
    if (symv_family_tunable(space[i].family)) r[(*m)++] = (ref){&space[i], i};
  qsort(r, (size_t)*m, sizeof *r, cmp_ref);
  return r;
}

typedef struct {
  long first, count; /* run of the sorted index */
  double cost;
  const symv_params *key;
} unit;

static int cmp_unit(const void *x, const void *y)
{
  const unit *a = x, *b = y;
  if (a->cost != b->cost) return a->cost > b->cost ? -1 : 1;
  return cmp_point(a->key, b->key);
}

int sweep_shard_assign(const symv_params *space, long n, int nshards, int *shard, double *cost)
{
  if (n < 0 || nshards < 1 || nshards > SWEEP_SHARDS_MAX) return SYMV_INVALID_VALUE;
  long m = 0;
  ref *idx = sorted_points(space, n, &m);
  unit *u = malloc(sizeof *u * (size_t)(n ? n : 1));
  double *load = calloc((size_t)nshards, sizeof *load);
  if (!idx || !u || !load) {
    free(idx), free(u), free(load);
    return SYMV_NO_MEMORY;
  }
  for (long i = 0; i < n; i++)
    if (!symv_family_tunable(space[i].family)) shard[i] = 0;
  long nu = 0;
  for (long i = 0; i < m;) {
    long j = i + 1;
    while (j < m && symv_params_same_code(idx[i].p, idx[j].p)) j++;
    u[nu].first = i, u[nu].count = j - i, u[nu].key = idx[i].p;
    u[nu].cost = sweep_unit_cost(idx[i].p, j - i);
    nu++;
    i = j;
  }
  qsort(u, (size_t)nu, sizeof *u, cmp_unit);
  for (long k = 0; k < nu; k++) {
    int best = 0;
    for (int s = 1; s < nshards; s++)
      if (load[s] < load[best]) best = s;
    load[best] += u[k].cost;
    for (long j = 0; j < u[k].count; j++) shard[idx[u[k].first + j].i] = best;
  }
  if (cost) memcpy(cost, load, sizeof *load * (size_t)nshards);
  free(idx), free(u), free(load);
  return 0;
}

int sweep_shard_of(const symv_params *space, long n, int nshards, const symv_params *pts, long m, int *shard)
{
  if (n < 0 || m < 0 || nshards < 1 || nshards > SWEEP_SHARDS_MAX) return SYMV_INVALID_VALUE;
  long nt = 0;
  ref *idx = sorted_points(space, n, &nt);
  int *cut = malloc(sizeof *cut * (size_t)(n ? n : 1));
  int rc = idx && cut ? sweep_shard_assign(space, n, nshards, cut, NULL) : SYMV_NO_MEMORY;
  for (long j = 0; j < m && !rc; j++) {
    shard[j] = symv_family_tunable(pts[j].family) ? -1 : 0;
    long lo = 0, hi = nt; /* idx[lo..hi) may hold pts[j] */
    while (shard[j] < 0 && lo < hi) {
      long mid = lo + (hi - lo) / 2;
      int c = cmp_point(idx[mid].p, &pts[j]);
      if (c == 0) shard[j] = cut[idx[mid].i];
      else if (c < 0) lo = mid + 1;
      else hi = mid;
    }
  }
  free(idx), free(cut);
  return rc;
}

static unsigned long long fnv(unsigned long long h, const void *data, size_t len)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static int cmp_int(const void *x, const void *y)
{
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

int sweep_space_fingerprint(const symv_params *space, long n, const int *ns, int nsizes, char uplo, int hot,
                            char out[17])
{
  if (n < 0 || nsizes < 0) return SYMV_INVALID_VALUE;
  long m = 0;
  ref *idx = sorted_points(space, n, &m);
  int *sz = malloc(sizeof *sz * (size_t)(nsizes ? nsizes : 1));
  if (!idx || !sz) {
    free(idx), free(sz);
    return SYMV_NO_MEMORY;
  }
  unsigned long long h = 0xcbf29ce484222325ull;
  char line[128];
  for (long i = 0; i < m; i++) {
    const symv_params *p = idx[i].p;
    if (i > 0 && cmp_point(p, idx[i - 1].p) == 0) continue; /* a set: duplicates once */
    int len = snprintf(line, sizeof line, "%s %s %d %d %d %d\n", symv_routine_name(p->routine),
                       symv_family_name(p->family), p->block_size, p->ux, p->multiplicity, p->mx);
    h = fnv(h, line, (size_t)len);
  }
  memcpy(sz, ns, sizeof *sz * (size_t)nsizes);
  qsort(sz, (size_t)nsizes, sizeof *sz, cmp_int);
  for (int i = 0; i < nsizes; i++) {
    if (i > 0 && sz[i] == sz[i - 1]) continue;
    int len = snprintf(line, sizeof line, "n %d\n", sz[i]);
    h = fnv(h, line, (size_t)len);
  }
  int len = snprintf(line, sizeof line, "uplo %c hot %d\n", uplo, hot ? 1 : 0);
  h = fnv(h, line, (size_t)len);
  snprintf(out, 17, "%016llx", h);
  free(idx), free(sz);
  return 0;
}

int sweep_shard_parse(const char *s, int *k, int *n)
{
  char *end;
  if (!s || *s < '0' || *s > '9') return -1;
  long a = strtol(s, &end, 10);
  if (*end != '/' || end[1] < '0' || end[1] > '9') return -1;
  long b = strtol(end + 1, &end, 10);
  if (*end || b < 1 || b > SWEEP_SHARDS_MAX || a < 0 || a >= b) return -1;
  *k = (int)a, *n = (int)b;
  return 0;
}
