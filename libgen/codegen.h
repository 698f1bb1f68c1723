/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * codegen.h - the sources of the generated library, written from a plan
 * (plan.h) into a build folder DIR whose src/, src/kernels/ and
 * src/runtime/ exist:
 *
 *   DIR/src/kernels/FILE   the kernel sources embedded in symvtune
 *                          (gpu/kernel_sources.h)
 *   DIR/src/runtime/FILE   the runtime embedded in symvtune (lib/lib_sources.h)
 *   DIR/src/NAME.c         one per kernel of the plan: its CUBIN (cubin.h)
 *   DIR/src/symv_table.c   the dispatch table (lib/libsymv_table.h)
 *   DIR/src/symv_identity.c  the library's identity (lib/identity.h)
 *   DIR/src/kernel_sources.c  the kernel sources as C, for a --wisdom library
 *
 * Each generated file's first line says it is generated and by which
 * command line (cmd, from libgen_made_by), its second carries the licence
 * (text.h). Every value written comes from a validated plan; the device
 * name and the wisdom folder are written as escaped C strings.
 *
 * Every writer returns 0, or -1 with the reason printed to stderr
 * ("symvtune build: cannot write PATH: ...") or, when memory ran out, -1
 * with nothing printed.
 */
#ifndef SYMV_LIBGEN_CODEGEN_H
#define SYMV_LIBGEN_CODEGEN_H

#include "kernel_sources.h"
#include "plan.h"

/* libgen_write_kernel_units: DIR/src/NAME.c for each kernel of pl: a
 * comment naming its candidates (and database ids), the NVRTC version, its
 * -D flags (symv_compile_defines) and its registers per thread, then its
 * CUBIN (pl->kernels[k].cubin, which libgen_compile_kernels filled) as
 * const unsigned char symv_cubin_NAME[SIZE]. -1 with nothing printed if a
 * kernel has no CUBIN. */
int libgen_write_kernel_units(const libgen_plan *pl, const char *dir, const char *cmd);

/* libgen_write_table: DIR/src/symv_table.c, the definitions
 * lib/libsymv_table.h declares: the candidates (kernel name and CUBIN),
 * the rules of every routine, 'any' then deterministic, each routine's
 * slice of them and its fit, the tuned device and the wisdom folder. With
 * pl->wisdom: no rules and no candidates. */
int libgen_write_table(const libgen_plan *pl, const char *dir, const char *cmd);

/* libgen_write_identity: DIR/src/symv_identity.c, the library's identity
 * (symv_table_id of lib/libsymv_table.h): the symvtune version, the rules
 * id and fits text of pl (pl->rules_id, pl->fits; "" with pl->wisdom),
 * and the identity line "symvtune-rules: ...", which ends with the
 * CUDART_VERSION the library is compiled with. */
int libgen_write_identity(const libgen_plan *pl, const char *dir, const char *cmd);

/* libgen_write_kernel_sources: DIR/src/kernel_sources.c, symv_sources[] and
 * symv_nsources (gpu/kernel_sources.h) holding the embedded kernel sources,
 * one string literal per source line: what a --wisdom library compiles with
 * NVRTC at run time. */
int libgen_write_kernel_sources(const char *dir, const char *cmd);

/* libgen_write_embedded: each of the n files of src, as is, into
 * DIR/SUB/NAME (sub: a folder relative to dir, e.g. "src/kernels"). */
int libgen_write_embedded(const symv_source *src, int n, const char *dir, const char *sub);

/* libgen_lib_source: the embedded runtime file called name (e.g.
 * "symv.h"), or NULL if there is none. */
const symv_source *libgen_lib_source(const char *name);

#endif
