/* SPDX-License-Identifier: BSD-3-Clause */
/* space.c - enumeration and static filtering of the tuning space (space.h). */
#include <stdio.h>
#include <stdlib.h>
#include "space.h"
#include "../kernels/symv_pipe.h"
#include "routine.h"
#include "symv_error.h"

/* Values of one parameter: either a range lo..hi step, or a list. */
typedef struct {
  int lo, hi, step;
  int list[16];
  int nlist;
} axis;

static int axis_len(const axis *a) { return a->nlist ? a->nlist : (a->hi - a->lo) / a->step + 1; }
static int axis_at(const axis *a, int i) { return a->nlist ? a->list[i] : a->lo + i * a->step; }

/* The axes of family f: BLOCK_SIZE, UX, MULTIPLICITY, MX. */
static void axes(symv_family f, int wide, const symv_device_info *d, axis ax[4])
{
  int mmax = wide && d ? d->max_blocks_per_sm : 8;
  for (int i = 0; i < 4; i++) ax[i] = (axis){0, 0, 1, {0}, 0};
  switch (f) {
  case SYMV_FAMILY_ATOMIC:
    ax[0] = (axis){32, wide ? 512 : 256, 32, {0}, 0};
    ax[1] = (axis){8, 32, 1, {0}, 0};
    ax[2] = (axis){1, mmax, 1, {0}, 0};
    ax[3] = (axis){0, 9, 1, {0}, 0};
    break;
  case SYMV_FAMILY_LU:
    ax[0] = wide ? (axis){0, 0, 1, {32, 64, 128, 256, 512, 1024}, 6} : (axis){0, 0, 1, {32, 64, 128, 256, 512}, 5};
    ax[1] = (axis){0, 0, 1, {4, 8, 16, 32}, 4};
    ax[2] = wide ? (axis){1, mmax, 1, {0}, 0} : (axis){0, 0, 1, {1, 2, 4}, 3};
    ax[3] = (axis){0, 0, 1, {0, 2}, 2};
    break;
  case SYMV_FAMILY_ATOMIC_RED: /* both tile families share one space */
  case SYMV_FAMILY_ATOMIC_W:
    ax[0] = wide ? (axis){0, 0, 1, {32, 64, 128, 256, 512}, 5} : (axis){0, 0, 1, {32, 64, 128, 256}, 4};
    ax[1] = (axis){8, 32, 4, {0}, 0};
    ax[2] = wide ? (axis){1, mmax, 1, {0}, 0} : (axis){0, 0, 1, {1, 2, 3, 4, 6, 8}, 6};
    ax[3] = (axis){0, 0, 1, {0, 1}, 2};
    break;
  case SYMV_FAMILY_PANEL: /* UX: rows of y per block, a divisor of 32; MX: schedule 0..3 */
    ax[0] = wide ? (axis){0, 0, 1, {64, 128, 256, 512, 1024}, 5} : (axis){0, 0, 1, {64, 128, 256, 512}, 4};
    ax[1] = (axis){0, 0, 1, {2, 4, 8, 16}, 4};
    ax[2] = wide ? (axis){1, mmax, 1, {0}, 0} : (axis){0, 0, 1, {1, 2, 4, 8}, 4};
    ax[3] = (axis){0, 3, 1, {0}, 0};
    break;
  case SYMV_FAMILY_PIPE: /* UX: columns per tile; MX: pipeline stages - 2; MULTIPLICITY: the grid per SM */
  case SYMV_FAMILY_PIPE_DET: /* the same space, but for MX 3..5 of pipe_det (units of BLOCK_SIZE columns) */
  case SYMV_FAMILY_PIPE_FX:  /* the same, and for MX 3..5 of pipe_fx its counts held (kernels/symv_pipe_fx.cu) */
    ax[0] = wide ? (axis){0, 0, 1, {64, 128, 256, 512, 1024}, 5} : (axis){0, 0, 1, {64, 128, 256, 512}, 4};
    ax[1] = (axis){0, 0, 1, {16, 32, 64, 128}, 4};
    ax[2] = wide ? (axis){1, mmax, 1, {0}, 0} : (axis){0, 0, 1, {1, 2, 3, 4}, 4};
    ax[3] = (axis){0, symv_pipe_mx_max(f), 1, {0}, 0};
    break;
  default:
    ax[0].nlist = 0, ax[0].lo = 1, ax[0].hi = 0; /* empty */
    break;
  }
}

/* Visits the points of the families o selects, in the order of
 * symv_space_enumerate (MULTIPLICITY innermost: points sharing compiled
 * code are adjacent), skipping those symv_params_check refuses (the axes
 * are a product; a family's constraints may tie two of them: pipe's UX <=
 * BLOCK_SIZE/2). out (may be NULL) receives them; returns their count. */
static long space_walk(const symv_space_opts *o, const symv_device_info *d, symv_params *out)
{
  long k = 0;
  for (int f = 0; f < SYMV_FAMILY_COUNT; f++) {
    if (!o->family[f] || !symv_family_tunable((symv_family)f)) continue;
    axis ax[4];
    axes((symv_family)f, o->wide, d, ax);
    for (int a = 0; a < axis_len(&ax[0]); a++)
      for (int b = 0; b < axis_len(&ax[1]); b++)
        for (int m = 0; m < axis_len(&ax[3]); m++)
          for (int c = 0; c < axis_len(&ax[2]); c++) {
            const symv_params p = {(symv_family)f, axis_at(&ax[0], a), axis_at(&ax[1], b), axis_at(&ax[2], c),
                                   axis_at(&ax[3], m)};
            if (symv_params_check(&p, NULL, 0)) continue;
            if (out) out[k] = p;
            k++;
          }
  }
  return k;
}

long symv_space_count(const symv_space_opts *o, const symv_device_info *d) { return space_walk(o, d, NULL); }

int symv_space_enumerate(const symv_space_opts *o, const symv_device_info *d, symv_params **out, long *count)
{
  const long total = symv_space_count(o, d);
  symv_params *v = malloc(sizeof *v * (size_t)(total > 0 ? total : 1));
  if (!v) return SYMV_NO_MEMORY;
  *out = v;
  *count = space_walk(o, d, v);
  return 0;
}

/* bytes of a pipe kernel's rsum and csum (symv_pipe_sums_elems), rounded up
 * to 16 as the compiler places them, and where symv_pipe_runs its stages'
 * mbarriers, 8 bytes each, rounded likewise (symv_pipe_bar,
 * kernels/symv_pipe.cuh: compute capability 9.0 and later; counted for
 * every GPU, 16-32 bytes too many before it) */
static int pipe_sums_bytes(const symv_params *p, int d)
{
  const int bars = symv_pipe_runs(p) ? 8 * symv_pipe_stages(p->mx) : 0;
  return (symv_pipe_sums_elems(d, p->block_size, p->ux) * d + 15) / 16 * 16 + (bars + 15) / 16 * 16;
}

int symv_static_smem(const symv_params *p)
{
  /* the shared arrays hold elements of the routine (kernels/symv_scalar.cuh) */
  const int nw = p->block_size / 32, d = symv_routine_get(p->routine)->elem_bytes;
  switch (p->family) {
  case SYMV_FAMILY_ATOMIC: /* xs[UX], red[NW*UX], cd[UX], flag */
    return (2 * p->ux + nw * p->ux) * d + (int)sizeof(int);
  case SYMV_FAMILY_LU: /* part[NW][32], last */
    return nw * 32 * d + (int)sizeof(int);
  case SYMV_FAMILY_ATOMIC_RED: /* xs, red, cd */
    return (2 * p->ux + nw * p->ux) * d;
  case SYMV_FAMILY_ATOMIC_W: /* xs, red, cd; fin[BLOCK_SIZE], nfin */
    return (2 * p->ux + nw * p->ux) * d + (p->block_size + 1) * (int)sizeof(int);
  case SYMV_FAMILY_PANEL: /* part[NW*UX] */
    return nw * p->ux * d;
  case SYMV_FAMILY_PIPE: /* rsum and csum (symv_pipe_sums_elems), 16-byte aligned; the pipeline is dynamic
                            (symv_pipe_smem) */
    return pipe_sums_bytes(p, d);
  case SYMV_FAMILY_PIPE_FX: /* pipe's arrays, then fin[BLOCK_SIZE], nfin (padded to 16 bytes) and
                                finflag[BLOCK_SIZE] (int), and for MX 3..5 pend[BLOCK_SIZE], for MX 6..8
                                the last block's left[BLOCK_SIZE] and role (int) */
    return pipe_sums_bytes(p, d) + p->block_size * (p->mx >= 3 ? 3 : 2) * 4 + 16;
  case SYMV_FAMILY_PIPE_DET: /* pipe's, 16 bytes more (the ticket counter of the one-launch kernel, gone
                                 since the two phases; kept as a margin, so that the filter drops what it
                                 dropped), and for MX 3..5 xs[BLOCK_SIZE] */
    return pipe_sums_bytes(p, d) + 16 + (p->mx >= 3 ? p->block_size * d : 0);
  default:
    return 0;
  }
}

int symv_static_filter(const symv_params *p, const symv_device_info *d, char *why, int len)
{
  long need = (long)p->multiplicity * (symv_static_smem(p) + symv_pipe_smem(p) + (long)d->smem_reserved_per_block);
  if (symv_family_pipelined(p->family) && d->cc_major < 8)
    snprintf(why, len, "the %s family's cp.async copies need compute capability 8.0, not %d.%d",
             symv_family_name(p->family), d->cc_major, d->cc_minor);
  else if (p->multiplicity > d->max_blocks_per_sm)
    snprintf(why, len, "MULTIPLICITY %d > %d blocks per SM", p->multiplicity, d->max_blocks_per_sm);
  else if (p->block_size > d->max_threads_per_block)
    snprintf(why, len, "BLOCK_SIZE %d > %d threads per block", p->block_size, d->max_threads_per_block);
  else if ((long)p->multiplicity * p->block_size > d->max_threads_per_sm)
    snprintf(why, len, "MULTIPLICITY x BLOCK_SIZE = %ld > %d threads per SM", (long)p->multiplicity * p->block_size,
             d->max_threads_per_sm);
  else if (need > (long)d->smem_per_sm)
    snprintf(why, len, "MULTIPLICITY x shared memory = %ld > %zu bytes per SM", need, d->smem_per_sm);
  else
    return 0;
  return SYMV_RESOURCES;
}
