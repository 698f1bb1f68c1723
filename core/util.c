/* SPDX-License-Identifier: BSD-3-Clause */
/* util.c - shared helpers (util.h). */
#define _GNU_SOURCE /* nftw's FTW_DEPTH and FTW_PHYS */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"

int symv_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double symv_median(double *v, size_t n)
{
  if (n == 0) return NAN;
  qsort(v, n, sizeof *v, symv_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int symv_mkdir_p(const char *path)
{
  char tmp[PATH_MAX];
  if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *q = tmp + 1; *q; q++)
    if (*q == '/') {
      *q = 0;
      if (mkdir(tmp, 0755) && errno != EEXIST) return -1;
      *q = '/';
    }
  return (mkdir(tmp, 0755) && errno != EEXIST) ? -1 : 0;
}

int symv_same_file(const char *a, const char *b)
{
  struct stat sa, sb;
  if (stat(a, &sa) || stat(b, &sb)) return 0;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int symv_shell_safe(const char *s)
{
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          strchr("/._-+,=@%:~", *s)))
      return 0;
  return 1;
}

int symv_private_tmpdir(const char *prefix, char *out, size_t len)
{
  const char *tmp = getenv("TMPDIR");
  if (!tmp || tmp[0] != '/' || !symv_shell_safe(tmp)) tmp = "/tmp";
  if ((size_t)snprintf(out, len, "%s/%s-XXXXXX", tmp, prefix) >= len) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return mkdtemp(out) ? 0 : -1;
}

static int rmtree_errno; /* the first failure of a symv_rmtree (nftw passes no user data) */

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
  (void)sb, (void)flag, (void)f;
  if (remove(p) && errno != ENOENT && !rmtree_errno) rmtree_errno = errno;
  return 0;
}

int symv_rmtree(const char *path)
{
  struct stat st;
  if (lstat(path, &st)) return errno == ENOENT ? 0 : -1;
  rmtree_errno = 0;
  if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS)) return -1;
  if (rmtree_errno) errno = rmtree_errno;
  return rmtree_errno ? -1 : 0;
}

int symv_write_all(int fd, const void *buf, size_t len)
{
  const char *p = buf;
  while (len > 0) {
    ssize_t r = write(fd, p, len);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return errno = EIO, -1;
    p += r, len -= (size_t)r;
  }
  return 0;
}

int symv_out_open(symv_out_file *o, const char *dst)
{
  struct stat st;
  memset(o, 0, sizeof *o);
  char real[PATH_MAX];
  const char *target = dst;
  if (lstat(dst, &st) == 0 && S_ISLNK(st.st_mode) && realpath(dst, real)) target = real;
  int exists = stat(target, &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return -1;
  }
  char d1[PATH_MAX], d2[PATH_MAX];
  if ((size_t)snprintf(o->dst, sizeof o->dst, "%s", target) >= sizeof o->dst ||
      (size_t)snprintf(d1, sizeof d1, "%s", target) >= sizeof d1 ||
      (size_t)snprintf(d2, sizeof d2, "%s", target) >= sizeof d2) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if ((size_t)snprintf(o->tmp, sizeof o->tmp, "%s/.%s.XXXXXX", dirname(d1), basename(d2)) >= sizeof o->tmp) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    o->tmp[0] = 0;
    return -1;
  }
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~mask)) || !(o->f = fdopen(fd, "wb"))) {
    int e = errno;
    close(fd);
    unlink(o->tmp);
    o->tmp[0] = 0;
    errno = e;
    return -1;
  }
  return 0;
}

int symv_out_commit(symv_out_file *o)
{
  int rc = 0;
  if (o->f) {
    rc = fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)) ? -1 : 0;
    int e = errno;
    if (fclose(o->f) && !rc) rc = -1, e = errno;
    o->f = NULL;
    errno = e;
  } else if (o->tmp[0]) { /* another program wrote it: flush it to disk too */
    int fd = open(o->tmp, O_RDONLY);
    if (fd < 0 || fsync(fd)) rc = -1;
    if (fd >= 0) close(fd);
  }
  if (!rc && rename(o->tmp, o->dst)) rc = -1;
  if (rc) {
    int e = errno;
    symv_out_abort(o);
    errno = e;
  } else {
    o->tmp[0] = 0;
  }
  return rc;
}

void symv_out_abort(symv_out_file *o)
{
  if (o->f) fclose(o->f), o->f = NULL;
  if (o->tmp[0]) unlink(o->tmp), o->tmp[0] = 0;
}

int symv_replace_file(const char *src, const char *dst)
{
  FILE *in = fopen(src, "rb");
  if (!in) return -1;
  symv_out_file o;
  if (symv_out_open(&o, dst)) {
    int e = errno;
    fclose(in);
    errno = e;
    return -1;
  }
  char buf[65536];
  size_t k;
  int rc = 0;
  while ((k = fread(buf, 1, sizeof buf, in)) > 0)
    if (fwrite(buf, 1, k, o.f) != k) {
      rc = -1;
      break;
    }
  if (ferror(in)) rc = -1;
  int e = errno;
  fclose(in);
  if (rc) {
    symv_out_abort(&o);
    errno = e;
    return -1;
  }
  return symv_out_commit(&o);
}

char *symv_escape(const char *s, char *buf, size_t size)
{
  if (size == 0) return buf;
  size_t k = 0;
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    char e[5];
    int n = *p == '\\' ? snprintf(e, sizeof e, "\\\\")
            : (*p < 0x20 || *p >= 0x7f) ? snprintf(e, sizeof e, "\\x%02x", *p)
                                        : snprintf(e, sizeof e, "%c", *p);
    if (k + (size_t)n >= size) break;
    memcpy(buf + k, e, (size_t)n);
    k += (size_t)n;
  }
  buf[k] = 0;
  return buf;
}

symv_shown_text symv_shown(const char *s)
{
  symv_shown_text t;
  symv_escape(s, t.s, sizeof t.s);
  return t;
}
