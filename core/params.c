/* SPDX-License-Identifier: BSD-3-Clause */
/* params.c - naming, parsing and checking of candidates (params.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "params.h"
#include "routine.h"
#include "symv_error.h"
#include "../kernels/symv_mx.h"
#include "../kernels/symv_pipe.h"

/* The family registry, indexed by symv_family: adding a family is a row
 * here (and its kernel source in kernels/). */
static const symv_family_info families[SYMV_FAMILY_COUNT] = {
    [SYMV_FAMILY_ATOMIC] = {"atomic", "symv_atomic.cu", 1, 0, 1, 1},
    [SYMV_FAMILY_LU] = {"lu", "symv_lu.cu", 1, 1, 1, 1},
    [SYMV_FAMILY_ATOMIC_RED] = {"atomic_red", "symv_red.cu", 1, 0, 1, 1},
    [SYMV_FAMILY_FAULT] = {"fault", "symv_fault.cu", 0, 0, 1, 0},
    [SYMV_FAMILY_FLOOR] = {"floor", "symv_floor.cu", 0, 1, 1, 0},
    [SYMV_FAMILY_ATOMIC_W] = {"atomic_w", "symv_w.cu", 1, 0, 1, 1},
    [SYMV_FAMILY_PANEL] = {"panel", "symv_panel.cu", 1, 1, 1, 1},
    [SYMV_FAMILY_PIPE] = {"pipe", "symv_pipe.cu", 1, 0, 1, 1},
    [SYMV_FAMILY_PIPE_DET] = {"pipe_det", "symv_pipe_det.cu", 1, 1, 2, 1},
    [SYMV_FAMILY_PIPE_FX] = {"pipe_fx", "symv_pipe_fx.cu", 1, 1, 1, 0},
};

const symv_family_info *symv_family_get(symv_family f)
{
  return (unsigned)f < SYMV_FAMILY_COUNT ? &families[f] : NULL;
}

const char *symv_family_name(symv_family f)
{
  return (unsigned)f < SYMV_FAMILY_COUNT ? families[f].name : "unknown";
}

int symv_family_tunable(symv_family f)
{
  return (unsigned)f < SYMV_FAMILY_COUNT && families[f].tunable;
}

int symv_family_default_space(symv_family f)
{
  return symv_family_tunable(f) && families[f].default_space;
}

int symv_pipe_mx_max(symv_family f)
{
  return f == SYMV_FAMILY_PIPE ? 2 : f == SYMV_FAMILY_PIPE_DET ? 5 : f == SYMV_FAMILY_PIPE_FX ? 8 : -1;
}

int symv_family_pipelined(symv_family f)
{
  return f == SYMV_FAMILY_PIPE || f == SYMV_FAMILY_PIPE_DET || f == SYMV_FAMILY_PIPE_FX;
}

int symv_family_parse(const char *s, symv_family *out)
{
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++)
    if (s && strcmp(s, families[f].name) == 0) {
      *out = (symv_family)f;
      return 0;
    }
  return SYMV_INVALID_VALUE;
}

/* "PARAM of the FAMILY family RANGE" into buf, for the pipelined families'
 * checks; returns buf. */
static const char *pipe_what(symv_family f, const char *param, const char *range, char *buf, size_t len)
{
  snprintf(buf, len, "%s of the %s family %s", param, symv_family_name(f), range);
  return buf;
}

int symv_params_check(const symv_params *p, char *err, size_t errlen)
{
  char wbuf[96];
  const char *what = NULL;
  int v = 0;
  if ((unsigned)p->family >= SYMV_FAMILY_COUNT) what = "family", v = (int)p->family;
  else if (p->block_size < 32 || p->block_size > SYMV_BLOCK_SIZE_MAX || p->block_size % 32)
    what = "BLOCK_SIZE (a multiple of 32 in 32..1024)", v = p->block_size;
  else if (p->ux < 1 || p->ux > SYMV_UX_MAX) what = "UX (1..128)", v = p->ux;
  else if (p->ux > 64 && !symv_family_pipelined(p->family))
    what = "UX (1..64; up to 128 in the pipe families alone)", v = p->ux;
  else if (p->multiplicity < 1 || p->multiplicity > SYMV_MULTIPLICITY_MAX)
    what = "MULTIPLICITY (1..64)", v = p->multiplicity;
  else if (p->mx < 0 || p->mx >= SYMV_MX_COUNT) what = "MX (0..9)", v = p->mx;
  else if ((unsigned)p->routine >= SYMV_ROUTINE_COUNT) what = "routine", v = (int)p->routine;
  else if (p->family == SYMV_FAMILY_LU && 32 % p->ux) what = "UX of the L+U family (1, 2, 4, 8, 16 or 32)", v = p->ux;
  else if (p->family == SYMV_FAMILY_PANEL && 32 % p->ux) what = "UX of the panel family (1, 2, 4, 8, 16 or 32)", v = p->ux;
  else if (p->family == SYMV_FAMILY_PANEL && p->mx > 3) what = "MX of the panel family (0..3)", v = p->mx;
  else if (symv_family_pipelined(p->family) && (p->block_size < 64 || (p->block_size & (p->block_size - 1))))
    what = pipe_what(p->family, "BLOCK_SIZE", "(64, 128, 256, 512 or 1024)", wbuf, sizeof wbuf), v = p->block_size;
  else if (symv_family_pipelined(p->family) &&
           (!symv_pipe_ux_valid(p->ux) || p->ux < p->block_size / 64 || p->ux > p->block_size / 2))
    what = pipe_what(p->family, "UX", "(a power of two, BLOCK_SIZE/64..BLOCK_SIZE/2)", wbuf, sizeof wbuf), v = p->ux;
  else if (symv_family_pipelined(p->family) && p->mx > symv_pipe_mx_max(p->family)) {
    char range[16];
    snprintf(range, sizeof range, "(0..%d)", symv_pipe_mx_max(p->family));
    what = pipe_what(p->family, "MX", range, wbuf, sizeof wbuf), v = p->mx;
  }
  if (!what) return 0;
  if (err) snprintf(err, errlen, "invalid %s: %d", what, v);
  return SYMV_INVALID_VALUE;
}

void symv_params_format(const symv_params *p, char *buf, size_t len)
{
  snprintf(buf, len, "%s:%d,%d,%d,%d", symv_family_name(p->family), p->block_size, p->ux,
           p->multiplicity, p->mx);
}

int symv_params_parse(const char *s, symv_params *out, char *err, size_t errlen)
{
  char fam[32];
  const char *colon = s ? strchr(s, ':') : NULL;
  if (!colon || (size_t)(colon - s) >= sizeof fam) {
    if (err) snprintf(err, errlen, "'%s': expected FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX", s ? s : "");
    return SYMV_INVALID_VALUE;
  }
  memcpy(fam, s, (size_t)(colon - s));
  fam[colon - s] = 0;
  symv_params p = {0};
  if (symv_family_parse(fam, &p.family)) {
    if (err) snprintf(err, errlen, "'%s': unknown family '%s' (" SYMV_TUNABLE_FAMILIES ")", s, fam);
    return SYMV_INVALID_VALUE;
  }
  int *field[4] = {&p.block_size, &p.ux, &p.multiplicity, &p.mx};
  const char *c = colon + 1;
  for (int i = 0; i < 4; i++) {
    /* a whole decimal integer that fits an int, then ',' (the last: the end) */
    char *end = (char *)c;
    long v = 0;
    errno = 0;
    if (isdigit((unsigned char)*c) || (*c == '-' && isdigit((unsigned char)c[1]))) v = strtol(c, &end, 10);
    if (end == c || *end != (i < 3 ? ',' : '\0')) {
      if (err) snprintf(err, errlen, "'%s': expected FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX", s);
      return SYMV_INVALID_VALUE;
    }
    if (errno == ERANGE || v < INT_MIN || v > INT_MAX) {
      if (err) snprintf(err, errlen, "'%s': %.*s is out of range", s, (int)(end - c), c);
      return SYMV_INVALID_VALUE;
    }
    *field[i] = (int)v;
    c = end + (i < 3);
  }
  char why[128];
  if (symv_params_check(&p, why, sizeof why)) {
    if (err) snprintf(err, errlen, "'%s': %s", s, why);
    return SYMV_INVALID_VALUE;
  }
  *out = p;
  return 0;
}

void symv_kernel_name(const symv_params *p, char *buf, size_t len)
{
  snprintf(buf, len, "%s_%s_b%d_u%d_x%d", symv_routine_name(p->routine), symv_family_name(p->family), p->block_size,
           p->ux, p->mx);
}

int symv_kernel_name_family(const char *name, symv_family *out)
{
  const char *fam = name ? strchr(name, '_') : NULL; /* past the routine's name, which has no '_' */
  for (int f = 0; fam && f < SYMV_FAMILY_COUNT; f++) {
    const size_t len = strlen(families[f].name);
    if (!strncmp(fam + 1, families[f].name, len) && !strncmp(fam + 1 + len, "_b", 2)) {
      *out = (symv_family)f;
      return 0;
    }
  }
  return SYMV_INVALID_VALUE;
}

int symv_params_same_code(const symv_params *a, const symv_params *b)
{
  return a->routine == b->routine && a->family == b->family && a->block_size == b->block_size && a->ux == b->ux && a->mx == b->mx;
}
