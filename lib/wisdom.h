/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wisdom.h - wisdom files: one GPU model's dispatch rules as a small,
 * versioned, self-describing text file (after FFTW's wisdom), written by
 * `symvtune export` and read at run time by a libsymv built with `symvtune
 * build --wisdom` (one library for many GPU models; man symv-wisdom(5)).
 *
 * The format, version 1. A line is at most SYMV_WISDOM_MAX_LINE bytes
 * (newline included), printable ASCII words separated by single spaces; a
 * line that is empty or starts with '#' is a comment. The first line is
 * "symv-wisdom 1". Then, once each and in this order:
 *
 *   symvtune VERSION                 the program that wrote it
 *   sources HASH                     16 hex digits: FNV-1a of the kernel
 *                                    sources that program compiles
 *   device.name TEXT                 cudaDeviceProp.name (rest of the line)
 *   device.cc MAJOR.MINOR            compute capability
 *   device.sm_count N                streaming multiprocessors
 *   device.l2_bytes N                L2 cache, bytes
 *   device.bus_width_bits N          memory bus width, bits
 *   device.smem_per_sm N             shared memory per SM, bytes
 *   device.regs_per_sm N             32-bit registers per SM
 *   device.mem_clock_khz N           peak memory clock, kHz   (told, not matched)
 *   device.driver_version N          CUDA driver of the tune  (told, not matched)
 *   device.nvrtc MAJOR.MINOR         NVRTC of the tune        (told, not matched)
 *   db.schema N                      schema version of the database exported
 *
 * The fingerprint a device must match, field for field: name, compute
 * capability, SM count, L2 size, bus width, shared memory and registers per
 * SM (what identifies a GPU model and what tuning depends on; a MIG slice
 * has fewer SMs and matches no whole GPU's file). Then zero or more rule
 * sets, each
 *
 *   rules ROUTINE CLASS              ssymv..zhemv; any | deterministic
 *   fit ID CREATED UPLO HOT LO HI THRESHOLD
 *                                    the fit's row id, UTC time, samples'
 *                                    triangle (L/U) and cold(0)/hot(1), the
 *                                    n range the rules tile, the relative
 *                                    gain of interval compression
 *   method TEXT                      how the fit was made (rest of the line)
 *   rule N_START N_END KERNEL PREDICTED_US GAIN [REGS OCCUPANCY]
 *   ...                              KERNEL: cublas, cublas_atomics (class
 *                                    any only), or a candidate
 *                                    FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX of
 *                                    the set's routine, followed by the
 *                                    registers per thread the tuner's build
 *                                    of it had and the blocks per SM it ran
 *                                    with (its MULTIPLICITY)
 *   end                              closes the set
 *
 * and finally "end-of-wisdom", after which nothing may follow: a file cut
 * short is refused. Each (routine, class) appears at most once; the rules
 * of a set tile LO..HI in increasing n with no gap or overlap, 1 <= n <=
 * SYMV_WISDOM_N_MAX; a deterministic set names deterministic families
 * (lu, panel) and cublas only. Numbers are decimal, integers without sign
 * or leading zeros beyond one digit, at most 9 digits (18 for l2_bytes),
 * times as %g-style reals in 0..1e12. Anything else is refused whole, with
 * the line and the reason.
 */
#ifndef SYMV_WISDOM_H
#define SYMV_WISDOM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "params.h"
#include "routine.h"

#define SYMV_WISDOM_MAGIC "symv-wisdom"
#define SYMV_WISDOM_VERSION 1
#define SYMV_WISDOM_SUFFIX ".symvw"       /* the files a folder of the search path offers */
#define SYMV_WISDOM_MAX_BYTES (1 << 20)   /* a larger file is refused unread */
#define SYMV_WISDOM_MAX_LINE 1024         /* bytes of one line, its newline included */
#define SYMV_WISDOM_MAX_RULES 4096        /* rules of one set */
#define SYMV_WISDOM_MAX_CANDS 512         /* distinct candidates of a file */
#define SYMV_WISDOM_MAX_FILES 64          /* files the search path may offer */
#define SYMV_WISDOM_N_MAX 1000000000      /* largest n a rule may name */

/* The kernel of a rule that is not a candidate (kernel >= 0 indexes cands). */
#define SYMV_WISDOM_CUBLAS (-1)
#define SYMV_WISDOM_CUBLAS_ATOMICS (-2)

/** The GPU a file's rules were tuned on (the fingerprint and what is told). */
typedef struct {
  char name[256];          /* cudaDeviceProp.name */
  int cc_major, cc_minor;  /* compute capability */
  int sm_count;            /* streaming multiprocessors */
  long long l2_bytes;      /* L2 cache, bytes */
  int bus_width_bits;      /* memory bus width, bits */
  int smem_per_sm;         /* shared memory per SM, bytes */
  int regs_per_sm;         /* 32-bit registers per SM */
  int mem_clock_khz;       /* told only */
  int driver_version;      /* told only */
  int nvrtc_major, nvrtc_minor; /* told only */
} symv_wisdom_device;

/** A candidate a rule names, with what the tuner recorded of it. */
typedef struct {
  symv_params p;           /* family, BLOCK_SIZE, UX, MULTIPLICITY, MX, routine */
  int regs;                /* registers per thread of the tuner's build (1..255) */
  int occupancy;           /* blocks per SM it ran with (= MULTIPLICITY) */
  char name[64];           /* symv_kernel_name(&p) */
} symv_wisdom_cand;

/** One rule: n_start <= n <= n_end runs `kernel`. */
typedef struct {
  int n_start, n_end;      /* elements, inclusive */
  int kernel;              /* index into cands, or SYMV_WISDOM_CUBLAS* */
  double predicted_us;     /* predicted time at the interval's middle, microseconds */
  double gain;             /* faster cuBLAS mode's predicted time / predicted_us */
} symv_wisdom_rule;

/** One (routine, atomics class) rule set and the fit it comes from. */
typedef struct {
  int have;                /* 1 if the file has this set */
  long long fit_id;        /* the fit's row id in the database exported */
  char created[32];        /* UTC ISO-8601 */
  char uplo;               /* 'L' or 'U' of the samples */
  int hot;                 /* 0 cold, 1 hot */
  int lo, hi;              /* the range the rules tile */
  double threshold;        /* interval compression's relative gain */
  char method[256];        /* free text */
  int first, count;        /* its rules: rules[first .. first+count) */
} symv_wisdom_set;

/** A parsed wisdom file. Free with symv_wisdom_free. */
typedef struct {
  int version;                   /* SYMV_WISDOM_VERSION */
  char symvtune[32];             /* version of the program that wrote it */
  uint64_t sources;              /* FNV-1a of its kernel sources */
  symv_wisdom_device dev;        /* the tuned GPU */
  int db_schema;                 /* schema version of the database */
  symv_wisdom_set set[SYMV_ROUTINE_COUNT][2]; /* [routine][0 any, 1 deterministic] */
  symv_wisdom_cand *cands;       /* ncands, malloc'ed */
  int ncands;
  symv_wisdom_rule *rules;       /* nrules, malloc'ed; each set's contiguous */
  int nrules;
} symv_wisdom;

/** symv_wisdom_fnv: FNV-1a (64 bits) of len bytes at data, continuing h
 *  (start with SYMV_WISDOM_FNV_INIT). A fingerprint, not a security measure. */
#define SYMV_WISDOM_FNV_INIT 0xcbf29ce484222325ull
uint64_t symv_wisdom_fnv(uint64_t h, const void *data, size_t len);

/** symv_wisdom_parse: parses the len bytes at text (no NUL needed) into *w
 *  (zeroed first; free with symv_wisdom_free even on error). Errors:
 *  SYMV_INVALID_VALUE with "line N: why" in err for anything the format
 *  above does not allow (err holds a NUL-terminated message of errlen
 *  bytes at most); SYMV_NO_MEMORY. */
int symv_wisdom_parse(const char *text, size_t len, symv_wisdom *w, char *err, size_t errlen);

/** symv_wisdom_read: symv_wisdom_parse of the file at path, which must be
 *  a regular file (opened without following a last symbolic link or
 *  waiting on a FIFO) of at most SYMV_WISDOM_MAX_BYTES. Errors as
 *  symv_wisdom_parse, and SYMV_IO (cannot open or read; err says why). */
int symv_wisdom_read(const char *path, symv_wisdom *w, char *err, size_t errlen);

/** symv_wisdom_write: writes w in the format above to f (w's values must be
 *  what symv_wisdom_parse accepts: the writer does not check them).
 *  Returns 0, or SYMV_IO if a write failed. */
int symv_wisdom_write(FILE *f, const symv_wisdom *w);

/** symv_wisdom_free: releases w's arrays; safe on a zeroed struct. */
void symv_wisdom_free(symv_wisdom *w);

/** symv_wisdom_match: 1 if the device d has w's fingerprint (name, compute
 *  capability, SM count, L2 size, bus width, shared memory and registers
 *  per SM), else 0 with the first field that differs in why ("sm_count 114,
 *  not 132"). */
int symv_wisdom_match(const symv_wisdom *w, const symv_wisdom_device *d, char *why, size_t whylen);

/** symv_wisdom_search: the wisdom files to look at, in order: each entry of
 *  the ':'-separated list `path_list` (a file, taken whatever its name, or
 *  a folder, whose regular *.symvw files are taken in strcmp order of their
 *  names, the first SYMV_WISDOM_MAX_FILES of them, those beyond told in
 *  one note: how many, and the first; empty entries are skipped), then the
 *  folder system_dir (NULL: none). At most SYMV_WISDOM_MAX_FILES paths,
 *  each malloc'ed, into files[] (those beyond told, one note each);
 *  *nfiles their number. An entry that does not exist or cannot be
 *  read is skipped and told in notes (one line per entry, "ENTRY: why\n",
 *  NUL-terminated, truncated to noteslen); a missing system_dir is not
 *  told. Returns 0, or SYMV_NO_MEMORY. Free with symv_wisdom_search_free. */
int symv_wisdom_search(const char *path_list, const char *system_dir, char **files, int *nfiles, char *notes,
                       size_t noteslen);

/** symv_wisdom_search_free: frees the n paths symv_wisdom_search made. */
void symv_wisdom_search_free(char **files, int n);

#endif
