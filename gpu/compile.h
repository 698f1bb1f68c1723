/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compile.h - run-time compilation of a candidate with NVRTC, with a disk
 * cache of the compiled code.
 *
 * NVRTC needs no GPU: code for any architecture can be compiled anywhere.
 * Cache: $SYMVTUNE_CACHE, else $XDG_CACHE_HOME/symvtune, else
 * ~/.cache/symvtune; one file per compiled kernel (NAME-smXY-KEY.entry),
 * named by the kernel, the architecture and a 64-bit hash KEY of every input
 * of the compilation (the embedded sources, the options, the NVRTC version),
 * so a different architecture, source or compiler never reuses another's
 * code. An entry is a header (the key, the entry point, the CUBIN's length
 * and FNV-1a hash) and the CUBIN. What is read is checked: an entry that is
 * not a regular file (a FIFO, a symbolic link, a folder), is cut short, is of
 * another key or entry point, or fails its hash is a cache miss - the
 * candidate is compiled again and the entry atomically replaced - never a
 * verdict on the candidate.
 * Thread-safe: separate calls may run in parallel (the sweep does).
 */
#ifndef SYMV_COMPILE_H
#define SYMV_COMPILE_H

#include <stddef.h>
#include "params.h"

/** Compiled code of one candidate. */
typedef struct {
  void *data;        /* CUBIN image (malloc'd) */
  size_t size;       /* bytes */
  int from_cache;    /* 1 if read from the disk cache */
  double compile_ms; /* wall time of the NVRTC compilation (0 if cached), ms */
  char name[64];     /* entry point, symv_kernel_name() */
} symv_cubin;

/** symv_compile: compiles candidate `p` (MULTIPLICITY ignored) for compute
 *  capability cc_major.cc_minor into a CUBIN, using the cache unless
 *  SYMVTUNE_NO_CACHE is set (a bad cache entry is a miss, see above). On SYMV_COMPILE, *log (if log is non-NULL) gets
 *  the NVRTC log (free() it). Errors: SYMV_INVALID_VALUE (bad parameters or
 *  architecture; more than 32 embedded kernel headers), SYMV_COMPILE, SYMV_NO_MEMORY. A cache that cannot be
 *  written is not an error. */
int symv_compile(const symv_params *p, int cc_major, int cc_minor, symv_cubin *out, char **log);

/** symv_cubin_free: releases out->data; safe on a zeroed struct. */
void symv_cubin_free(symv_cubin *c);

/** symv_code_id: the identity of the code candidate `p` compiles to, as
 *  16 lowercase hex digits and a NUL in out[17]: FNV-1a (64 bits) over the
 *  text of its kernel file, of every embedded header that file includes
 *  (#include "...", followed through the headers, each once, in the order
 *  first met) and of symv_compile_defines. MULTIPLICITY, the architecture
 *  and the compiler are not part of it: it names what the sources make of
 *  the point, so that a database can tell whether its timings are of
 *  today's sources. Coarse by design: an edit to an included header changes
 *  the id of every kernel that includes it, whether or not its code changes.
 *  Errors: SYMV_INVALID_VALUE (bad parameters, no embedded file of the
 *  family, out NULL). */
int symv_code_id(const symv_params *p, char out[17]);

/** symv_code_current: 1 if `code` (as a database records it) is
 *  symv_code_id of p, the code today's sources make of the point; 0 if it
 *  differs or p cannot be named. */
int symv_code_current(const symv_params *p, const char *code);

/** symv_compile_defines: the preprocessor definitions that select the code
 *  of `p` ("-DBLOCK_SIZE=128 -DUX=16 -DMX=0 -DSYMV_KERNEL_NAME=... "), as
 *  given to NVRTC, and to nvcc when building the library; and in *source the
 *  kernel file they apply to ("symv_atomic.cu"). Returns the length written
 *  (snprintf semantics). */
int symv_compile_defines(const symv_params *p, char *buf, size_t len, const char **source);

/** symv_cache_dir: the cache folder in use (see above), created if absent;
 *  NULL if no folder can be found or made. */
const char *symv_cache_dir(void);

/** symv_nvrtc_version: NVRTC's version (major*1000 + minor*10). */
int symv_nvrtc_version(void);

#endif
