/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libsymv_table.h - the dispatch table of the generated library: the types
 * of the file symv_table.c that `symvtune build` writes from a fit's rules
 * (libgen/codegen.c), and that libsymv's runtime reads (lib/source.h:
 * lib/source_table.c serves this table; lib/source_wisdom.c makes the same
 * types of a wisdom file), and of src/symv_identity.c, the library's
 * identity. Internal to libsymv.
 *
 * The rules of each routine (core/routine.h) are one run of
 * symv_table_rules, symv_table_routines[r] says where; a routine with no
 * rules was not tuned and goes to cuBLAS. A routine's rules cover its fit's
 * lo..hi in order with no gap; n below lo takes the first rule, n above hi
 * the last.
 */
#ifndef SYMV_LIBSYMV_TABLE_H
#define SYMV_LIBSYMV_TABLE_H

#include <stddef.h>
#include "params.h"

/* Kernel of a rule that is not a candidate (kernel >= 0 indexes the candidates). */
#define SYMV_RULE_CUBLAS (-1)         /* the routine's cuBLAS function, atomics not allowed */
#define SYMV_RULE_CUBLAS_ATOMICS (-2) /* the routine's cuBLAS function, atomics allowed */

/** One candidate the library can run: the CUBIN NVRTC made of its kernel
 *  with the tuner's options (libgen/cubin.h), loaded as a library of its
 *  own on each device (symv_kernel_load). Several candidates may share one
 *  CUBIN (they differ in MULTIPLICITY only). */
typedef struct {
  symv_params p;              /* family, BLOCK_SIZE, UX, MULTIPLICITY, MX and routine as measured */
  const char *name;           /* entry point, symv_kernel_name(&p) */
  const unsigned char *cubin; /* the kernel's code for symv_table_device.arch */
  size_t cubin_size;          /* bytes */
} symv_table_candidate;

/** One rule: n_start <= n <= n_end runs `kernel`. */
typedef struct {
  int n_start; /* first n, elements */
  int n_end;   /* last n, elements */
  int kernel;  /* index into symv_table_candidates, or SYMV_RULE_CUBLAS* */
} symv_table_rule;

/** The GPU the rules were measured on, and where they came from. */
typedef struct {
  const char *name;     /* cudaDeviceProp.name of the tuned GPU */
  int cc_major;         /* its compute capability */
  int cc_minor;
  int sm_count;         /* its streaming multiprocessors */
  const char *arch;     /* architecture of the kernels' CUBINs, "sm_90" */
} symv_table_info;

/** Where a routine's rules are, and the fits they come from: the rules of
 *  atomics class 'any', for handles in CUBLAS_ATOMICS_ALLOWED, and the
 *  'deterministic' ones (bitwise reproducible kernels and cuBLAS without
 *  atomics), for handles in the default CUBLAS_ATOMICS_NOT_ALLOWED. */
typedef struct {
  int first;            /* index of its first 'any' rule in symv_table_rules */
  int count;            /* its 'any' rules; 0: not tuned, every call goes to cuBLAS */
  long long fit_id;     /* the fit's row id in the database (0 if none) */
  char uplo;            /* triangle of the fitted samples ('L'/'U'); the rules serve both */
  int hot;              /* 1 if the samples were hot (A in L2), 0 cold */
  int det_first;        /* index of its first deterministic rule */
  int det_count;        /* its deterministic rules; 0: such calls go to cuBLAS as they came */
  long long det_fit_id; /* the deterministic fit's row id (0 if none) */
} symv_table_routine;

extern const symv_table_candidate symv_table_candidates[]; /* at least one entry, even if unused */
extern const int symv_table_ncandidates;                   /* entries in use */
extern const symv_table_rule symv_table_rules[];           /* each routine's in increasing n */
extern const int symv_table_nrules;                        /* all routines' */
extern const symv_table_routine symv_table_routines[SYMV_ROUTINE_COUNT]; /* indexed by symv_routine */
extern const symv_table_info symv_table_device;
/* A --wisdom library's system folder of wisdom files (build --wisdom-dir);
 * "": LIBDIR/../share/symv beside the library. Unused by a library with
 * rules compiled in. */
extern const char symv_table_wisdom_dir[];

/** The library's identity (identity.h), in src/symv_identity.c that
 *  `symvtune build` writes beside symv_table.c. */
typedef struct {
  const char *symvtune_version; /* the symvtune that generated the library */
  const char *rules_id;         /* the rules id of the table; "" in a --wisdom library */
  const char *fits;             /* symv_fits_text of the table's fits; "" in a --wisdom library */
  const char *line;             /* "symvtune-rules: ...", symvInfo.identity (symv.h) */
} symv_table_identity;

extern const symv_table_identity symv_table_id;

#endif
