/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util.h - the small helpers every stage shares, written once: the
 * comparison qsort needs for times, mkdir -p and rm -r, and the file
 * handling that keeps a command from losing data: comparing an output with
 * an input, writing an output whole or not at all, private temporary
 * folders with names safe for a shell.
 */
#ifndef SYMV_UTIL_H
#define SYMV_UTIL_H

#include <stdio.h>
#include <stddef.h>

/** symv_cmp_double: qsort comparator of doubles, ascending (NaN compares
 *  equal to everything, so it never makes qsort's order inconsistent
 *  with itself only where NaN is absent; callers sort finite times). */
int symv_cmp_double(const void *a, const void *b);

/** symv_median: the median of v[0..n) (sorted ascending in place, by
 *  symv_cmp_double): the middle element for odd n, the mean of the two
 *  middle ones for even n; NaN for n = 0. Units are the caller's (times in
 *  microseconds, here). */
double symv_median(double *v, size_t n);

/** symv_mkdir_p: creates the folder `path` and its missing parents (mode
 *  0755), like `mkdir -p`. 0, or -1 with errno set (ENAMETOOLONG for a
 *  path of PATH_MAX bytes or more). */
int symv_mkdir_p(const char *path);

/** symv_same_file: 1 if the paths a and b name one file (the same st_dev
 *  and st_ino, symbolic links followed), 0 if they do not or either does
 *  not exist. A command compares each output with its inputs with it, so
 *  that it never writes over what it reads. */
int symv_same_file(const char *a, const char *b);

/** symv_shell_safe: 1 if every byte of s is one that no shell treats
 *  specially, quoted or not (letters, digits and / . _ - + , = @ % : ~), so
 *  that s can be handed to a program that runs its own stages through a
 *  shell (nvcc does, with paths in double quotes, where $(...), backticks
 *  and backslashes still act); 0 otherwise. */
int symv_shell_safe(const char *s);

/** symv_private_tmpdir: creates a fresh folder PREFIX-XXXXXX (mkdtemp, mode
 *  0700) under $TMPDIR if that is an absolute, shell-safe path
 *  (symv_shell_safe), else under /tmp, and puts its name in out (len
 *  bytes). 0, or -1 with errno set (ENAMETOOLONG if it does not fit). */
int symv_private_tmpdir(const char *prefix, char *out, size_t len);

/** symv_write_all: writes the len bytes at buf to the file descriptor fd,
 *  going on after short writes and EINTR. 0, or -1 with errno set by the
 *  write that failed (ENOSPC on a full disk, EFBIG past a file size limit);
 *  some bytes may have been written then. */
int symv_write_all(int fd, const void *buf, size_t len);

/** symv_rmtree: removes path and, if it is a folder, everything below it,
 *  never following a symbolic link (a link is removed, not its target).
 *  0, or -1 with errno set by the first removal that failed (the rest is
 *  still tried). A missing path is 0. */
int symv_rmtree(const char *path);

/** An output file written whole or not at all: symv_out_open makes a
 *  temporary file beside the destination, the caller writes to f (or lets
 *  another program write to tmp), and symv_out_commit renames it over the
 *  destination; symv_out_abort removes it. A reader of the destination sees
 *  the old file or the new one, never a part. */
typedef struct {
  FILE *f;             /* open for writing on tmp; NULL once closed */
  char tmp[4096];      /* the temporary file: DIR/.NAME.XXXXXX */
  char dst[4096];      /* the destination (a symbolic link's target) */
} symv_out_file;

/** symv_out_open: opens a new temporary file beside dst (in dst's folder;
 *  if dst is a symbolic link to an existing file, beside that file, which is
 *  what gets replaced), mode 0666 less the umask, or dst's mode if it exists.
 *  0, or -1 with errno set (EISDIR if dst is a folder). */
int symv_out_open(symv_out_file *o, const char *dst);

/** symv_out_commit: closes o->f if open, flushes the file to disk and
 *  renames it over o->dst. 0, or -1 with errno set; on failure the
 *  temporary file is removed and the destination is as it was. */
int symv_out_commit(symv_out_file *o);

/** symv_out_abort: closes and removes the temporary file; the destination
 *  is as it was. Safe to call twice. */
void symv_out_abort(symv_out_file *o);

/** symv_replace_file: dst := a copy of the file src, through symv_out_*
 *  (whole or not at all). 0, or -1 with errno set; dst is then unchanged. */
int symv_replace_file(const char *src, const char *dst);

/** symv_escape: `s` made safe for a terminal into buf (size bytes; the
 *  result is cut to fit and always NUL-terminated when size > 0): control
 *  bytes (below 0x20, and 0x7f) and bytes past ASCII are written \xHH and a
 *  backslash \\, so that text from a file (a database's device name,
 *  candidate details, a fit's method) cannot move the cursor, recolour or
 *  retitle a terminal. NULL reads as "". Returns buf. */
char *symv_escape(const char *s, char *buf, size_t size);

/** symv_shown_text: room for a text of up to 512 bytes escaped whole (4
 *  bytes each, and the NUL). */
typedef struct {
  char s[4 * 512 + 1];
} symv_shown_text;

/** symv_shown: s as symv_escape writes it (cut to fit symv_shown_text),
 *  for a message's arguments: `printf("%s", symv_shown(name).s)`. The text
 *  lives until the end of the full expression that calls symv_shown, so
 *  that one message can show several texts read from files (a database's
 *  device name, a shard's space, sizes and source). */
symv_shown_text symv_shown(const char *s);

#endif
