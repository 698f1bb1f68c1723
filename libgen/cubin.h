/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cubin.h - the kernels of the generated library as the tuner ran them:
 * each kernel of the plan compiled by NVRTC with symv_compile, the very
 * call (sources, options, architecture sm_XY of the tuned GPU) the sweep
 * made, so that the library loads the CUBIN whose times the rules hold
 * (from symvtune's cache when the sweep ran on this machine). No GPU is
 * needed.
 */
#ifndef SYMV_LIBGEN_CUBIN_H
#define SYMV_LIBGEN_CUBIN_H

#include <stddef.h>
#include "plan.h"

/*
 * libgen_compile_kernels: compiles every kernel of pl for compute
 * capability pl->dev.cc_major.cc_minor with symv_compile, par at once,
 * into pl->kernels[k].cubin, and reads the registers per thread of each
 * into pl->kernels[k].cubin_regs (libgen_cubin_regs; 0 if it cannot be
 * read). Progress on stderr (core/progress.h, label "nvrtc"). 0, or -1
 * with the first failure printed ("symvtune build: NVRTC cannot compile
 * kernel NAME: ERROR: LOG"); what was compiled is freed by
 * libgen_plan_free either way.
 */
int libgen_compile_kernels(libgen_plan *pl, int par);

/*
 * libgen_cubin_regs: the registers per thread of kernel `name` in the
 * CUBIN data[size] (a 64-bit little-endian ELF as NVRTC writes it): the
 * EIATTR_REGCOUNT attribute of the section .nv.info whose symbol is `name`
 * (what cuobjdump -res-usage prints as REG). -1 if data is not such an
 * ELF or holds no such attribute.
 */
int libgen_cubin_regs(const void *data, size_t size, const char *name);

#endif
