/* SPDX-License-Identifier: BSD-3-Clause */
/* routine.c - the routine registry (routine.h). */
#include <ctype.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "routine.h"
#include "symv_error.h"

/* Indexed by symv_routine. */
static const symv_routine_info routines[SYMV_ROUTINE_COUNT] = {
    [SYMV_SSYMV] = {SYMV_SSYMV, "ssymv", "SSYMV", "cublasSsymv_v2", "symvSsymv", "float", 4, 4, 0, 0, FLT_EPSILON},
    [SYMV_DSYMV] = {SYMV_DSYMV, "dsymv", "DSYMV", "cublasDsymv_v2", "symvDsymv", "double", 8, 8, 0, 0, DBL_EPSILON},
    [SYMV_CSYMV] = {SYMV_CSYMV, "csymv", "CSYMV", "cublasCsymv_v2", "symvCsymv", "cuComplex", 8, 4, 1, 0, FLT_EPSILON},
    [SYMV_ZSYMV] = {SYMV_ZSYMV, "zsymv", "ZSYMV", "cublasZsymv_v2", "symvZsymv", "cuDoubleComplex", 16, 8, 1, 0,
                    DBL_EPSILON},
    [SYMV_CHEMV] = {SYMV_CHEMV, "chemv", "CHEMV", "cublasChemv_v2", "symvChemv", "cuComplex", 8, 4, 1, 1, FLT_EPSILON},
    [SYMV_ZHEMV] = {SYMV_ZHEMV, "zhemv", "ZHEMV", "cublasZhemv_v2", "symvZhemv", "cuDoubleComplex", 16, 8, 1, 1,
                    DBL_EPSILON},
};

static const symv_routine order[SYMV_ROUTINE_COUNT] = {SYMV_SSYMV, SYMV_DSYMV, SYMV_CSYMV,
                                                       SYMV_ZSYMV, SYMV_CHEMV, SYMV_ZHEMV};

const symv_routine_info *symv_routine_get(symv_routine r)
{
  return (unsigned)r < SYMV_ROUTINE_COUNT ? &routines[r] : NULL;
}

symv_routine symv_routine_order(int i) { return order[(unsigned)i % SYMV_ROUTINE_COUNT]; }

const char *symv_routine_name(symv_routine r)
{
  return (unsigned)r < SYMV_ROUTINE_COUNT ? routines[r].name : "unknown";
}

int symv_routine_parse(const char *s, symv_routine *out)
{
  char low[8];
  size_t n = s ? strlen(s) : 0;
  if (n == 0 || n >= sizeof low) return SYMV_INVALID_VALUE;
  for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)s[i]);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++)
    if (strcmp(low, routines[r].name) == 0) {
      *out = (symv_routine)r;
      return 0;
    }
  return SYMV_INVALID_VALUE;
}

int symv_routine_parse_list(const char *s, int sel[SYMV_ROUTINE_COUNT], char *err, size_t errlen)
{
  memset(sel, 0, SYMV_ROUTINE_COUNT * sizeof *sel);
  if (s && strcmp(s, "all") == 0) {
    for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) sel[r] = 1;
    return 0;
  }
  const char *p = s ? s : "";
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char word[16];
    symv_routine r;
    if (len >= sizeof word) len = sizeof word - 1;
    memcpy(word, p, len);
    word[len] = 0;
    if (symv_routine_parse(word, &r)) {
      if (err)
        snprintf(err, errlen, "'%s': %s '%s' (one or more of " SYMV_ROUTINE_NAMES ", comma-separated, or all)",
                 s ? s : "", len ? "unknown routine" : "empty item", word);
      return SYMV_INVALID_VALUE;
    }
    sel[r] = 1;
    if (!comma) return 0;
    p = comma + 1;
  }
}

double symv_routine_flops(symv_routine r, int n)
{
  const symv_routine_info *ri = symv_routine_get(r);
  return (ri && ri->is_complex ? 8.0 : 2.0) * (double)n * (double)n;
}

double symv_routine_bytes(symv_routine r, int n)
{
  const symv_routine_info *ri = symv_routine_get(r);
  return (double)n * ((double)n + 1) / 2.0 * (ri ? ri->elem_bytes : 0);
}

double symv_gflops(symv_routine r, int n, double t_us) { return symv_routine_flops(r, n) / (t_us * 1e-6) / 1e9; }

double symv_gbs(symv_routine r, int n, double t_us) { return symv_routine_bytes(r, n) / (t_us * 1e-6) / 1e9; }

int symv_routine_serves(symv_routine r, symv_family f)
{
  return (unsigned)r < SYMV_ROUTINE_COUNT && (unsigned)f < SYMV_FAMILY_COUNT;
}

/* The parts of the scalar at p as doubles: im = 0 for real routines. */
static void scalar_parts(symv_routine r, const void *p, double *re, double *im)
{
  const symv_routine_info *ri = &routines[r];
  *im = 0.0;
  if (ri->real_bytes == 4) {
    float v[2];
    memcpy(v, p, (size_t)ri->elem_bytes);
    *re = v[0];
    if (ri->is_complex) *im = v[1];
  } else {
    double v[2];
    memcpy(v, p, (size_t)ri->elem_bytes);
    *re = v[0];
    if (ri->is_complex) *im = v[1];
  }
}

int symv_scalar_is_zero(symv_routine r, const void *p)
{
  double re, im;
  scalar_parts(r, p, &re, &im);
  return re == 0.0 && im == 0.0;
}

int symv_scalar_is_one(symv_routine r, const void *p)
{
  double re, im;
  scalar_parts(r, p, &re, &im);
  return re == 1.0 && im == 0.0;
}

void symv_scalar_format(symv_routine r, const void *p, char *buf, size_t len)
{
  double re, im;
  scalar_parts(r, p, &re, &im);
  if (routines[r].is_complex) snprintf(buf, len, "(%g,%g)", re, im);
  else snprintf(buf, len, "%g", re);
}

void symv_scalar_set(symv_routine r, void *p, double re, double im)
{
  const symv_routine_info *ri = &routines[r];
  if (ri->real_bytes == 4) {
    float v[2] = {(float)re, (float)im};
    memcpy(p, v, (size_t)ri->elem_bytes);
  } else {
    double v[2] = {re, im};
    memcpy(p, v, (size_t)ri->elem_bytes);
  }
}

int symv_problem_bytes(symv_routine r, long long n, long long lda, size_t mem_bytes, size_t *bytes, char *why,
                       size_t len)
{
  const symv_routine_info *info = symv_routine_get(r);
  if (why && len) why[0] = 0;
  if (!info || n < 1 || lda < n) {
    if (why) snprintf(why, len, "n = %lld, lda = %lld: n must be at least 1 and lda at least n", n, lda);
    return SYMV_INVALID_VALUE;
  }
  const size_t E = (size_t)info->elem_bytes;
  /* lda * n + 3 n elements, each product checked before it is taken */
  const int overflow = (unsigned long long)lda > SIZE_MAX / (size_t)n ||
                       (size_t)n > (SIZE_MAX - (size_t)lda * (size_t)n) / 3 ||
                       (size_t)lda * (size_t)n + 3 * (size_t)n > SIZE_MAX / E;
  if (overflow) {
    if (why)
      snprintf(why, len, "n = %lld: %s's matrix of %lld x %lld elements of %zu bytes is more than this machine can "
               "address", n, info->blas, lda, n, E);
    return SYMV_INVALID_VALUE;
  }
  const size_t b = ((size_t)lda * (size_t)n + 3 * (size_t)n) * E;
  if (mem_bytes > 0 && b > mem_bytes) {
    if (why)
      snprintf(why, len, "n = %lld: %s needs %.3g GB (A, x and y), more than the GPU's %.3g GB", n, info->blas,
               b / 1e9, mem_bytes / 1e9);
    return SYMV_NO_MEMORY;
  }
  if (bytes) *bytes = b;
  return 0;
}
