/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * json.h - the pieces of the JSON documents the commands print (rules,
 * rank, bench --json; RFC 8259): strings, numbers, and the head every
 * document opens with.
 */
#ifndef SYMV_JSON_H
#define SYMV_JSON_H

#include <stdio.h>

/** json_string: s as a JSON string, quotes included: '"', '\' and control
 *  characters escaped, bytes past ASCII as \u00XX, so that the document is
 *  well formed whatever s holds. NULL is written as null. */
void json_string(FILE *f, const char *s);

/** json_number: x with 10 significant digits; null for NaN and the
 *  infinities, which JSON lacks. */
void json_number(FILE *f, double x);

/** json_head: the fields every document of the commands starts with,
 *  after its opening brace: "format": format (the layout's version, raised
 *  when a field changes meaning or goes away), "symvtune": the program's
 *  version, "schema": the database schema version it reads and writes
 *  (DB_SCHEMA_VERSION), and "device": {name, cc_major, cc_minor, sm_count},
 *  or null when name is NULL; each field followed by a comma. */
void json_head(FILE *f, int format, const char *name, int cc_major, int cc_minor, int sm_count);

#endif
