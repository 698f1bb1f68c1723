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

/* Version of the layout of the document that holds several (json_list_*):
 * raised when one of its own fields changes meaning or goes away. */
#define JSON_LIST_FORMAT 1

/** json_list_open: the opening of the one document a command prints for
 *  several routines (--routine LIST or all with --json): {"format":
 *  JSON_LIST_FORMAT, "symvtune": the program's version, "command": command
 *  (as typed: "rules", ...), "routines": [ ...; json_list_item adds each
 *  routine's document, json_list_close ends it. */
void json_list_open(FILE *f, const char *command);

/** json_list_item: doc[0..len), one whole JSON document as the command
 *  prints it for one routine (an object, its layout unchanged), as the next
 *  element of "routines", indented, trailing blanks and line breaks
 *  dropped. first: 1 for the list's first element (no comma before it). */
void json_list_item(FILE *f, const char *doc, size_t len, int first);

/** json_list_close: ends the array (empty when no item was written) and
 *  the document json_list_open began, with a line break. */
void json_list_close(FILE *f);

#endif
