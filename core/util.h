/*
 * util.h - the small helpers every stage shares, written once: the
 * comparison qsort needs for times, and mkdir -p.
 */
#ifndef SYMV_UTIL_H
#define SYMV_UTIL_H

#include <stddef.h>

/** symv_cmp_double: qsort comparator of doubles, ascending (NaN compares
 *  equal to everything, so it never makes qsort's order inconsistent
 *  with itself only where NaN is absent; callers sort finite times). */
int symv_cmp_double(const void *a, const void *b);

/** symv_mkdir_p: creates the folder `path` and its missing parents (mode
 *  0755), like `mkdir -p`. 0, or -1 with errno set (ENAMETOOLONG for a
 *  path of PATH_MAX bytes or more). */
int symv_mkdir_p(const char *path);

/** symv_escape: `s` made safe for a terminal into buf (size bytes; the
 *  result is cut to fit and always NUL-terminated when size > 0): control
 *  bytes (below 0x20, and 0x7f) and bytes past ASCII are written \xHH and a
 *  backslash \\, so that text from a file (a database's device name,
 *  candidate details, a fit's method) cannot move the cursor, recolour or
 *  retitle a terminal. NULL reads as "". Returns buf. */
char *symv_escape(const char *s, char *buf, size_t size);

#endif
