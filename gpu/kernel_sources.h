/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kernel_sources.h - the CUDA kernel sources of kernels/, embedded in the
 * program at build time (scripts/embed-sources), so that the kernels NVRTC
 * compiles are byte for byte those the generated library is built from.
 */
#ifndef SYMV_KERNEL_SOURCES_H
#define SYMV_KERNEL_SOURCES_H

/** One embedded file: its base name (e.g. "symv_atomic.cu") and text. */
typedef struct {
  const char *name; /* base file name, as #include'd by the kernels */
  const char *text; /* whole file, NUL-terminated */
} symv_source;

extern const symv_source symv_sources[]; /* every file of kernels/ */
extern const int symv_nsources;          /* number of entries */

/** symv_source_text: text of the embedded file `name`, or NULL if none. */
const char *symv_source_text(const char *name);

#endif
