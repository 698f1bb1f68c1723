/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * text.c - the growing string, the escapes and the file writer of the
 * generated files (text.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "text.h"

/* Writes text to path (replacing it). 0, or -1 with a message printed. */
int libgen_write_text(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "symvtune build: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  size_t len = strlen(text);
  int ok = fwrite(text, 1, len, f) == len;
  ok &= fclose(f) == 0;
  if (!ok) fprintf(stderr, "symvtune build: cannot write %s: %s\n", path, strerror(errno));
  return ok ? 0 : -1;
}

void libgen_sb_printf(libgen_sbuf *b, const char *fmt, ...)
{
  va_list ap;
  for (;;) {
    if (b->failed) return;
    size_t room = b->cap - b->len;
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->failed = 1;
      return;
    }
    if ((size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = (b->cap + (size_t)n + 1) * 2;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->failed = 1;
      return;
    }
    b->s = s, b->cap = cap;
  }
}

/* s as the body of a C string literal: quotes and backslashes escaped, '?'
 * escaped (no trigraphs), anything outside printable ASCII in octal. */
void libgen_sb_c_string(libgen_sbuf *b, const char *s)
{
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\' || *p == '?') libgen_sb_printf(b, "\\%c", *p);
    else if (*p >= 0x20 && *p < 0x7f) libgen_sb_printf(b, "%c", *p);
    else libgen_sb_printf(b, "\\%03o", *p);
  }
}

/* The command line for the generated files' first line, made safe for a C
 * comment: control characters become '?', and no star-slash survives. */
void libgen_made_by(int argc, char **argv, char *out, size_t len)
{
  size_t k = 0;
  int first = 1;
  for (int i = -1; i < argc && k + 1 < len; i++) {
    const char *w = i < 0 ? "symvtune" : argv[i];
    if (!first && k + 1 < len) out[k++] = ' ';
    first = 0;
    for (const unsigned char *p = (const unsigned char *)w; *p && k + 1 < len; p++) {
      char c = (*p < 0x20 || *p == 0x7f) ? '?' : (char)*p;
      if (c == '/' && k > 0 && out[k - 1] == '*') c = '|';
      out[k++] = c;
    }
  }
  out[k] = 0;
}
