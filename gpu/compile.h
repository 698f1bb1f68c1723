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
#include "kernel_sources.h"
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

/** A set of kernel sources by file name: today's embedded copies
 *  (symv_sources_embedded) or the files of a folder (symv_sources_load),
 *  e.g. the kernels/ of the tree a database was swept with. */
typedef struct {
  const symv_source *files; /* n files, each a base name and its text */
  int n;
  int owned; /* 1: symv_sources_load's, freed by symv_sources_free */
} symv_source_set;

/** symv_sources_embedded: the kernel sources this program was built with
 *  (kernel_sources.h), as a set; never NULL, not to be freed. */
const symv_source_set *symv_sources_embedded(void);

/** symv_sources_load: reads from folder `dir` each file that the embedded
 *  sources name (symv_atomic.cu, symv_pipe.cuh, ...) into *out; a file
 *  the folder lacks is left out of the set (sources from before it
 *  existed). Errors: SYMV_NOT_FOUND (none of the files there), SYMV_IO (a
 *  file that cannot be read), SYMV_INVALID_VALUE (a path too long, a file
 *  with a NUL byte), SYMV_NO_MEMORY; err says which file and why. */
int symv_sources_load(const char *dir, symv_source_set *out, char *err, size_t errlen);

/** symv_sources_free: releases a set symv_sources_load filled; safe on a
 *  zeroed set and on the embedded one (nothing done). */
void symv_sources_free(symv_source_set *s);

/** symv_code_id_in: symv_code_id of p as the sources of set s make it
 *  (the same hash over s's files). Errors: SYMV_INVALID_VALUE (bad
 *  parameters, s NULL or without the family's kernel file). */
int symv_code_id_in(const symv_source_set *s, const symv_params *p, char out[17]);

/** symv_compile_ptx_in: the PTX NVRTC makes of p (MULTIPLICITY ignored)
 *  from the sources of set s for compute_XY (cc_major.cc_minor), the text
 *  and its NUL in out->data (out->size counts the NUL); no cache. Equal
 *  PTX from two sets means equal machine code from the same ptxas. Errors
 *  as symv_compile's (SYMV_INVALID_VALUE also for s NULL). */
int symv_compile_ptx_in(const symv_source_set *s, const symv_params *p, int cc_major, int cc_minor, symv_cubin *out,
                        char **log);

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
