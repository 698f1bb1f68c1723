/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib_sources.h - the runtime sources of the generated library libsymv
 * (lib/libsymv.c, its public header lib/symv.h, the dispatch-table header
 * lib/libsymv_table.h, the sources of rules lib/source.h, source_table.c
 * and source_wisdom.c, the wisdom reader lib/wisdom.c, wisdom.h, and what
 * they use of gpu/ and core/: lib/local.mk lists them all), embedded in
 * symvtune at build time by scripts/embed-sources, so that `symvtune build`
 * writes the library from the program alone, installed or not.
 */
#ifndef SYMV_LIB_SOURCES_H
#define SYMV_LIB_SOURCES_H

#include "kernel_sources.h"

extern const symv_source symv_lib_sources[]; /* the files listed above */
extern const int symv_lib_nsources;          /* number of entries */

#endif
