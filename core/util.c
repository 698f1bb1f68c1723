/* util.c - shared helpers (util.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "util.h"

int symv_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
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
