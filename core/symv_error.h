/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_error.h - the one list of symvtune's status codes and their messages.
 *
 * SYMV_ERRNO_MAP(XX) expands XX(name, message) once per code; it generates
 * both the enum symv_status and symv_strerror() (the libuv UV_ERRNO_MAP
 * pattern), so a code and its message can never drift apart.
 * Every module returns these codes; 0 is success, every error is negative.
 */
#ifndef SYMV_ERROR_H
#define SYMV_ERROR_H

#define SYMV_ERRNO_MAP(XX)                                                        \
  XX(SUCCESS,        "success")                                                   \
  XX(INVALID_VALUE,  "invalid argument")                                          \
  XX(NO_MEMORY,      "out of host memory")                                        \
  XX(NO_DEVICE,      "no CUDA device found")                                      \
  XX(CUDA,           "CUDA runtime call failed")                                  \
  XX(CUBLAS,         "cuBLAS call failed")                                        \
  XX(COMPILE,        "NVRTC compilation failed")                                  \
  XX(OCCUPANCY,      "achieved occupancy differs from MULTIPLICITY")              \
  XX(RESOURCES,      "candidate needs more resources than the GPU has")           \
  XX(LAUNCH,         "kernel launch failed")                                      \
  XX(FAULT,          "kernel faulted during execution")                           \
  XX(TIMEOUT,        "kernel exceeded its time limit")                            \
  XX(WRONG_RESULT,   "result differs from the reference")                         \
  XX(IO,             "file input/output failed")                                  \
  XX(DB,             "database error")                                            \
  XX(DB_FOREIGN,     "database was made on a different GPU")                      \
  XX(DB_CORRUPT,     "file is not a symvtune database or is corrupt")             \
  XX(DB_VERSION,     "database schema is newer than this program")                \
  XX(NOT_FOUND,      "no such item")                                              \
  XX(INTERRUPTED,    "interrupted")                                               \
  XX(NUMERIC,        "numerical routine failed")

/** symv_status: 0 on success, negative on error (see SYMV_ERRNO_MAP). */
typedef enum {
#define SYMV_XX_ENUM(name, msg) SYMV_ERR_##name##_,
  SYMV_ERRNO_MAP(SYMV_XX_ENUM)
#undef SYMV_XX_ENUM
  SYMV_ERR_COUNT_
} symv_status_index;

#define SYMV_XX_CODE(name, msg) enum { SYMV_##name = -(int)SYMV_ERR_##name##_ };
SYMV_ERRNO_MAP(SYMV_XX_CODE)
#undef SYMV_XX_CODE

/** symv_strerror: the message of status code `status` (0 or negative);
 *  "unknown error" for a code outside the table. Never NULL. */
const char *symv_strerror(int status);

/** symv_errname: the code's name without prefix ("INVALID_VALUE"). */
const char *symv_errname(int status);

#endif
