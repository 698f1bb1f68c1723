/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * text.h - what the generated files are written with: a growing string,
 * escapes for C string literals, the first two lines every generated file
 * carries, and a file writer.
 *
 * A libgen_sbuf starts zeroed ({0}); its text is s[0..len), NUL-terminated
 * once anything was written. When memory runs out (or vsnprintf fails) it
 * sets `failed` and ignores every later write: the writer checks `failed`
 * once, at the end. The caller frees s.
 */
#ifndef SYMV_LIBGEN_TEXT_H
#define SYMV_LIBGEN_TEXT_H

#include <stddef.h>

/* The first line of every generated file, before the command line that made
 * it, inside the file's comment syntax. */
#define LIBGEN_GENERATED "This file was automatically generated --- DO NOT EDIT. Made by: "
/* The second line of every generated file: the library's licence (LICENSE). */
#define LIBGEN_SPDX "SPDX-License-Identifier: BSD-3-Clause"

/* A growing string. */
typedef struct {
  char *s;
  size_t len, cap;
  int failed;
} libgen_sbuf;

/* libgen_sb_printf: appends printf(fmt, ...) to b (see above for errors). */
void libgen_sb_printf(libgen_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* libgen_sb_c_string: appends s as the body of a C string literal: quotes
 * and backslashes escaped, '?' escaped (no trigraphs), anything outside
 * printable ASCII in octal. */
void libgen_sb_c_string(libgen_sbuf *b, const char *s);

/* libgen_made_by: "symvtune" and the words argv[0..argc) joined by spaces
 * into out (len bytes, cut to fit, NUL-terminated), made safe for a C
 * comment: control characters become '?', and no star-slash survives. */
void libgen_made_by(int argc, char **argv, char *out, size_t len);

/* libgen_write_text: writes text to path (replacing it). 0, or -1 with
 * "symvtune build: cannot write PATH: REASON" printed to stderr. */
int libgen_write_text(const char *path, const char *text);

#endif
