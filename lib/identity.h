/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * identity.h - the identity of a generated library's rules: the rules id,
 * a short fingerprint of the rules themselves, and the text that names the
 * fits they come from. `symvtune build` computes both from the plan it
 * compiles in (libgen/plan.c) and writes them into the library
 * (src/symv_identity.c); a --wisdom library computes them from each wisdom
 * file it accepts (lib/source_wisdom.c). The same rules give the same id
 * either way: compiled in from a database, or read from a wisdom file that
 * `symvtune export` wrote from the same database and fits.
 *
 * The rules id is the first SYMV_RULES_ID_LEN hexadecimal digits of the
 * 64-bit FNV-1a (symv_wisdom_fnv) of this text, one line each:
 *
 *   device NAME CC_MAJOR.CC_MINOR SM_COUNT     the tuned GPU
 *   ROUTINE any|deterministic                  each rule set, routines in
 *                                              core/routine.h's order
 *   N_START N_END KERNEL                       each of its rules, in
 *                                              increasing n; KERNEL is
 *                                              cublas, cublas_atomics or
 *                                              symv_params_format's
 *                                              FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX
 *
 * so that it changes with the GPU, the rules' n ranges and the kernels
 * they name, and with nothing else (not the fits' row ids or dates, which
 * the fits text tells, nor the symvtune or CUDA version, which symvInfo
 * tells apart). Internal to libsymv and symvtune.
 */
#ifndef SYMV_LIB_IDENTITY_H
#define SYMV_LIB_IDENTITY_H

#include <stddef.h>
#include "libsymv_table.h"
#include "routine.h"

#define SYMV_RULES_ID_LEN 12 /* hexadecimal digits of a rules id */

/** What the fits text tells of one fit (one routine's rule set of one
 *  atomics class). */
typedef struct {
  int have;            /* 1 if the routine has rules of this class */
  long long id;        /* the fit's row id in the database */
  const char *created; /* its UTC ISO-8601 time */
  char uplo;           /* 'L' or 'U' of its samples */
  int hot;             /* 0 cold, 1 hot samples */
  int lo, hi;          /* the n range its rules tile, elements */
} symv_fit_brief;

/**
 * symv_rules_id: the rules id (above) of the rules of dev: routines[r]
 * says where routine r's rules are in rules (first, count; det_first,
 * det_count), whose kernels index cands (or are SYMV_RULE_CUBLAS*). Into
 * out, SYMV_RULES_ID_LEN + 1 bytes, NUL-terminated. Cannot fail.
 */
void symv_rules_id(const symv_table_info *dev, const symv_table_candidate *cands, const symv_table_rule *rules,
                   const symv_table_routine *routines, char *out);

/**
 * symv_fits_text: the fits of fits[routine][0 any, 1 deterministic] as one
 * line, the routines in symv_routine_order, those without a fit left out:
 * "dsymv fit 12 (DATE, cold, uplo L, n 32..4000), deterministic fit 13
 * (DATE, cold, uplo L, n 32..4000); zhemv ...". Into buf (len bytes,
 * cut to fit, NUL-terminated; "" when no routine has a fit).
 */
void symv_fits_text(const symv_fit_brief fits[SYMV_ROUTINE_COUNT][2], char *buf, size_t len);

#endif
