/* util.c - shared helpers (util.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
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
