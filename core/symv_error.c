/* SPDX-License-Identifier: BSD-3-Clause */
/* symv_error.c - messages of the SYMV_ERRNO_MAP table (symv_error.h). */
#include "symv_error.h"

static const char *const messages[] = {
#define SYMV_XX_MSG(name, msg) msg,
  SYMV_ERRNO_MAP(SYMV_XX_MSG)
#undef SYMV_XX_MSG
};

static const char *const names[] = {
#define SYMV_XX_NAME(name, msg) #name,
  SYMV_ERRNO_MAP(SYMV_XX_NAME)
#undef SYMV_XX_NAME
};

const char *symv_strerror(int status)
{
  int i = -status;
  if (i < 0 || i >= SYMV_ERR_COUNT_) return "unknown error";
  return messages[i];
}

const char *symv_errname(int status)
{
  int i = -status;
  if (i < 0 || i >= SYMV_ERR_COUNT_) return "UNKNOWN";
  return names[i];
}
