/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan.h - what the library generator builds: the tuned device and, per
 * routine and atomics class, the latest fit's rules, read from a database
 * and validated into a plan of candidates and the distinct kernels that
 * implement them.
 *
 * Input: a symvtune database (db/db.h), read only: its device fingerprint
 * and, for each routine (core/routine.h) and each atomics class ('any' and
 * 'deterministic'), the latest fit of cold samples of uplo L (the fit
 * `symvtune fit` makes by default) with its rules.
 *
 * Every value is checked before it can reach generated source: the device
 * name terminated and not empty, compute capability 1.0..99.9, 1..65536 SMs;
 * each fit's uplo L or U, hot 0 or 1, range 1 <= lo <= hi <= DB_N_MAX and
 * 1..100000 rules that tile it (db_rules_tile); each rule's kernel cuBLAS,
 * cuBLAS with atomics (not in a deterministic fit) or a candidate; each
 * candidate a row id, of a tunable family (core/params.h), of the fit's
 * routine, passing symv_params_check, stored as valid, and of a
 * deterministic family in a deterministic fit. At most LIBGEN_MAX_CANDS
 * distinct candidates. The first bad value stops the read with a SYMV_
 * code and the reason in err.
 */
#ifndef SYMV_LIBGEN_PLAN_H
#define SYMV_LIBGEN_PLAN_H

#include <limits.h>
#include <stddef.h>
#include "../db/db.h"
#include "compile.h"
#include "identity.h"
#include "params.h"
#include "routine.h"

#define LIBGEN_MAX_CANDS 256 /* distinct candidates (and kernels) a plan may hold */

/* A distinct candidate named by the rules. */
typedef struct {
  symv_params p;  /* validated */
  long long id;   /* its row in the database */
  int kernel;     /* index of its code in plan.kernels */
} libgen_cand;

/* A distinct kernel (candidates that differ in MULTIPLICITY share it). */
typedef struct {
  symv_params p;        /* its first candidate */
  char name[64];        /* symv_kernel_name */
  char defines[256];    /* symv_compile_defines */
  const char *source;   /* kernel file, e.g. "symv_red.cu" */
  int regs;             /* registers per thread the tuner's build of it used, as the database
                           records them (the least over its candidates; 0: unknown) */
  symv_cubin cubin;     /* its code, compiled by libgen_compile_kernels (cubin.h): what the
                           library loads */
  int cubin_regs;       /* registers per thread of that code (0: unknown); other than regs
                           when this NVRTC is not the tuner's */
} libgen_kernel;

/* A rule, validated. */
typedef struct {
  int n_start, n_end;   /* interval, inclusive */
  int kernel;           /* index into plan.cands, or SYMV_RULE_CUBLAS* */
  double predicted_us;  /* for the summary only */
  double gain;          /* for the summary only */
} libgen_rule;

/* The rules of one routine. */
typedef struct {
  int have;                          /* 1: the database has a fit of this routine */
  db_fit fit;                        /* the fit the rules come from */
  libgen_rule *rules;                /* nrules, malloc'ed */
  int nrules;
} libgen_routine;

/* What to generate: the device, the rules, their candidates and kernels. */
typedef struct {
  db_device dev;                     /* fingerprint of the tuned GPU */
  libgen_routine rt[SYMV_ROUTINE_COUNT]; /* indexed by symv_routine: the 'any' rules */
  libgen_routine det[SYMV_ROUTINE_COUNT]; /* the 'deterministic' rules (CUBLAS_ATOMICS_NOT_ALLOWED) */
  libgen_cand cands[LIBGEN_MAX_CANDS];
  int ncands;
  libgen_kernel kernels[LIBGEN_MAX_CANDS];
  int nkernels;
  char arch[16];                     /* "sm_90" */
  int wisdom;                        /* 1: --wisdom: no rules compiled in; wisdom files read at run time */
  char wisdom_dir[PATH_MAX];         /* --wisdom-dir: the library's system folder of wisdom files ("": its own
                                        LIBDIR/../share/symv) */
  char rules_id[SYMV_RULES_ID_LEN + 1]; /* the rules id of the rules (lib/identity.h); "" with wisdom */
  char fits[2048];                   /* symv_fits_text of the fits; "" with wisdom */
  int stale[SYMV_ROUTINE_COUNT];     /* per routine: candidates of its rules (either set) that the database
                                        records as measured with other kernel sources than this symvtune's
                                        (db_list_kernel_codes against symv_code_id); 0 where none or unknown */
} libgen_plan;

/*
 * libgen_plan_read: fills pl (zeroed by the caller; pl->wisdom and
 * pl->wisdom_dir are left as they are) from the database at path: the
 * device, pl->arch (arch_opt if not NULL, else "sm_XY" of the device's
 * compute capability; arch_opt is not checked against the device here) and
 * the rules, candidates and kernels of every routine that has a fit, and
 * pl->rules_id and pl->fits of them, as the library reports them
 * (lib/identity.h: what a wisdom file exported from the same fits gives).
 * Errors: the SYMV_ code of db_open, db_get_device or db_latest_fit_class,
 * SYMV_INVALID_VALUE for a value that fails the checks above, SYMV_NO_MEMORY,
 * SYMV_NOT_FOUND if no routine has an 'any' fit; the reason in err (errlen
 * bytes). Free the plan with libgen_plan_free either way.
 */
int libgen_plan_read(const char *path, const char *arch_opt, libgen_plan *pl, char *err, size_t errlen);

/* libgen_plan_free: frees the rules of every routine of pl and the code of
 * every kernel (the rest of the plan holds no allocation). */
void libgen_plan_free(libgen_plan *pl);

/* libgen_plan_print: the rules table to stdout: a header line, then per
 * routine in symv_routine_order its 'any' rules and its deterministic rules
 * (n range, kernel name, candidate, predicted microseconds, gain), or one
 * line "cublas (not tuned)" for a routine without a fit. */
void libgen_plan_print(const libgen_plan *pl);

#endif
