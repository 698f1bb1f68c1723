/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source.h - the source of libsymv's rules: the interface between the
 * runtime (lib/libsymv.c: the entry points, dispatch by the rules, the
 * calls of cuBLAS, the workspaces, the call log, symvGetInfo) and where a
 * library's rules and kernels come from. Internal to libsymv.
 *
 * Two sources implement it, and each library links exactly one, which
 * defines libsymv_rules_source (libgen/nvcc.c picks the unit):
 *
 *   lib/source_table.c   the rules compiled in (symv_table.c, written by
 *                        `symvtune build`), for the GPU they were tuned on;
 *                        the kernels' CUBINs, made by NVRTC as the sweep
 *                        made them and compiled in as data, each loaded on
 *                        the device's first call.
 *   lib/source_wisdom.c  the rules of wisdom files read at run time
 *                        (`symvtune build --wisdom`, lib/wisdom.h), the file
 *                        of each device's GPU model; kernels compiled by
 *                        NVRTC on their first use.
 *
 * The runtime keeps one libsymv_device per device ordinal, set up once
 * under libsymv_lock on the device's first call (open, then the device
 * query, then setup) and read without the lock afterwards: its state is
 * published last, with release/acquire ordering. The members below say
 * what each computes, when the runtime calls it, its errors and its thread
 * safety. Below them, what the runtime offers the sources.
 */
#ifndef SYMV_LIB_SOURCE_H
#define SYMV_LIB_SOURCE_H

#include <pthread.h>
#include <stdio.h>
#include "gpu.h"
#include "libsymv_table.h"
#include "symv.h"

#define LIBSYMV_MAX_DEVICES 64 /* device ordinals the library keeps; calls on others go to cuBLAS */

/** The rules a call is dispatched by (libsymv_table.h's types): the table
 *  compiled in, or a wisdom file's. */
typedef struct {
  const symv_table_candidate *cands;  /* [ncands] */
  int ncands;
  const symv_table_rule *rules;       /* each routine's run, routines says where */
  const symv_table_routine *routines; /* [SYMV_ROUTINE_COUNT] */
  const symv_table_info *info;        /* the tuned GPU */
  const char *path;                   /* the wisdom file; NULL for the table compiled in */
} libsymv_rules;

/** Why a device's calls go to cuBLAS (libsymv_device.why). */
enum {
  LIBSYMV_WHY_NONE,      /* they do not: the source's rules serve it */
  LIBSYMV_WHY_QUERY,     /* the device cannot be queried */
  LIBSYMV_WHY_UNMATCHED, /* the source has no rules for it: another GPU than the tuned one, no wisdom file of it */
  LIBSYMV_WHY_NO_MEMORY  /* out of host memory while it was set up */
};

/** What the library knows of one device. */
typedef struct {
  int state;      /* 0 not looked at yet, 1 served by the source's rules, -1 by cuBLAS (why says why) */
  int why;        /* LIBSYMV_WHY_*, set before state */
  symv_kernel *k; /* [the rules' ncands] its kernels (state 1), as the source prepared them */
  char *ok;       /* [the rules' ncands] 1 if k[i] is prepared and can run */
} libsymv_device;

/** What served a call and why, for the call log (filled only while
 *  logging: functions taking a note write nothing where it is NULL). */
typedef struct {
  const char *served; /* kernel name, "cuBLAS", "cuBLAS with atomics", "none" */
  char why[160];
  const char *wisdom; /* a --wisdom library's: the file whose rules served the call, "none"; NULL: not told */
} libsymv_note;

/* Into note, if non-NULL: what served the call (served_) and why (a printf
 * format and its arguments). */
#define NOTE(note, served_, ...)                                                                                  \
  do {                                                                                                            \
    if (note) (note)->served = (served_), snprintf((note)->why, sizeof (note)->why, __VA_ARGS__);               \
  } while (0)

/** A source of rules. Every member is called from any thread; each says
 *  which lock it needs. */
typedef struct {
  /** open: makes the source's rules ready (the table as a view; the wisdom
   *  files read, each accepted or refused with a line in the report and
   *  the log). Runs its work once per process however often it is called
   *  (pthread_once); the runtime calls it before it queries a device on
   *  its first call, and the other members call it where they need the
   *  rules. Errors are the source's to tell: a source that cannot read its
   *  rules has none, and its devices go to cuBLAS. */
  void (*open)(void);
  /** setup: looks at device dev, of properties *d, on its first call:
   *  whether the source has rules for it and, if so, e->k and e->ok for
   *  the candidates of those rules (allocated with libsymv_device_alloc;
   *  each prepared now, or left for kernel() to prepare on its first use).
   *  Returns LIBSYMV_WHY_NONE when the rules serve the device, else
   *  LIBSYMV_WHY_UNMATCHED (told by the source) or LIBSYMV_WHY_NO_MEMORY
   *  (nothing left allocated; told by the runtime). The runtime then sets
   *  e->why and publishes e->state. Called with libsymv_lock held, once
   *  per device. */
  int (*setup)(int dev, const symv_device_info *d, libsymv_device *e);
  /** rules: the rules a call is dispatched by. *dev is -1 on entry; a
   *  source whose rules depend on the device sets it to the current device
   *  (cudaGetDevice) and sets that device up (libsymv_device_of). Returns
   *  NULL when the call goes to cuBLAS as it came (no current device, a
   *  device the source has no rules for; why in note), with note->wisdom
   *  set where the source tells it. Takes libsymv_lock only to set a device
   *  up. */
  const libsymv_rules *(*rules)(int *dev, libsymv_note *note);
  /** kernel: the kernel of candidate cand (an index into v->cands) of the
   *  rules v that rules() gave, on device dev (the current one), ready to
   *  launch; NULL when it cannot run there and the call goes to cuBLAS as
   *  it came (why in note). Sets the device up if rules() did not. Takes
   *  libsymv_lock only to set a device up or prepare a kernel, each once. */
  const symv_kernel *(*kernel)(const libsymv_rules *v, int dev, int cand, libsymv_note *note);
  /** info: fills the fields of *info (symv.h) that are the source's: the
   *  tuned GPU, the rules and candidates (libsymv_info_rules), rules_id
   *  and fits, the wisdom fields, and, when dev >= 0 (the current device;
   *  -1: none), device_matched; the runtime has zeroed *info and set the
   *  version, the identity fields (rules_id and fits to ""), device, and
   *  device_matched to -1. Prepares no kernel. Thread-safe. */
  void (*info)(symvInfo *info, int dev);
  /** release: frees what the source holds of device dev (entry e) beyond
   *  e->k and e->ok, which the runtime frees next; its kernels loaded at
   *  run time are unloaded. Called when the library is unloaded, for every
   *  device, while the CUDA runtime is still there; nothing else runs. */
  void (*release)(int dev, libsymv_device *e);
  /** close: frees the host memory of the rules open() made. Called last
   *  when the library is unloaded; nothing else runs. */
  void (*close)(void);
} libsymv_source;

/** The source this library was linked with (lib/source_table.c or
 *  lib/source_wisdom.c). */
extern const libsymv_source libsymv_rules_source;

/* ---- What the runtime (lib/libsymv.c) offers the sources ---- */

/** libsymv_lock: guards the devices' entries while they are set up, the
 *  workspaces' list, and what a source prepares later (kernel()). */
extern pthread_mutex_t libsymv_lock;

/** libsymv_notice: one line "libsymv: ..." on stderr when SYMV_VERBOSE is
 *  set in the environment; nothing otherwise. */
void libsymv_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** libsymv_log: the call log's stream (SYMV_LOG, SYMV_LOG_FILE, read once,
 *  on the first use: lib/libsymv.c says how), or NULL when there is no
 *  log. Thread-safe; a line written with one fputs is not mixed with
 *  others. */
FILE *libsymv_log(void);

/** libsymv_current_device: the current CUDA device into *dev; 0, or -1
 *  when there is none (the CUDA error cleared; "fallback: no current CUDA
 *  device" and cuBLAS as what serves the call into note). */
int libsymv_current_device(int *dev, libsymv_note *note);

/** libsymv_device_of: device dev's entry, set up on its first call (open,
 *  the device query, setup, under libsymv_lock), with its state in *state
 *  (1: the source's rules serve it; else e->why says why not); NULL for a
 *  device beyond the LIBSYMV_MAX_DEVICES this library keeps (then, when
 *  note is non-NULL, why). Thread-safe. */
libsymv_device *libsymv_device_of(int dev, int *state, libsymv_note *note);

/** libsymv_device_matched: what symvGetInfo's device_matched says of
 *  device dev without setting it up: 1 if it was set up and the source's
 *  rules serve it, or would but for the memory to prepare it; 0 if it was
 *  set up and they do not; -1 if it was not set up yet or dev is beyond
 *  LIBSYMV_MAX_DEVICES. Thread-safe. */
int libsymv_device_matched(int dev);

/** libsymv_device_fallback: into note, if non-NULL, why device dev (entry
 *  e, state -1) goes to cuBLAS: "fallback: device DEV " and what e->why
 *  says, `unmatched` for LIBSYMV_WHY_UNMATCHED. */
void libsymv_device_fallback(int dev, const libsymv_device *e, const char *unmatched, libsymv_note *note);

/** libsymv_device_alloc: e->k and e->ok for ncands candidates (at least
 *  one entry each), zeroed. 0, or -1 out of memory (then neither is
 *  allocated). Called from setup, with libsymv_lock held. */
int libsymv_device_alloc(libsymv_device *e, int ncands);

/** libsymv_info_rules: what v carries into info's rule fields: the tuned
 *  GPU, each routine's rules and their n range, the candidates. */
void libsymv_info_rules(symvInfo *info, const libsymv_rules *v);

#endif
