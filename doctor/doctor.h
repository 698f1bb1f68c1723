/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doctor.h - the diagnosis behind `symvtune doctor` (src/cmd_doctor.c):
 * runs a program once and says whether its SYMV/HEMV calls reach libsymv,
 * and if not, why and the fix (doctor.c); the exit statuses that carry
 * the verdict; and the two readers it is built on, of libsymv's call log
 * (SYMV_LOG, lib/libsymv.c) and of the dynamic linker's bindings
 * (LD_DEBUG=bindings), one line at a time.
 */
#ifndef SYMV_DOCTOR_H
#define SYMV_DOCTOR_H

/** Exit statuses of `symvtune doctor`, beside those of every command (0,
 *  2 usage, 4 the program could not be run). The verdict is the first of
 *  these that applies, in the order of the list (a link problem hides
 *  what follows from it). */
enum {
  DOCTOR_OK = 0,           /* the calls reach libsymv (or the program made none, and they would); SYMV_EXIT_OK */
  DOCTOR_ERROR = 4,        /* the program could not be run, or a system error; SYMV_EXIT_ERROR */
  DOCTOR_NOT_LINKED = 11,  /* libsymv is not loaded: not NEEDED (dropped by --as-needed, or never linked) */
  DOCTOR_CUBLAS_FIRST = 12, /* libsymv is loaded, but the calls bind to cuBLAS, found first */
  DOCTOR_OTHER_API = 13,   /* the program calls the legacy or the 64-bit-integer names, which libsymv does not replace */
  DOCTOR_CUDA_MAJOR = 14,  /* the program's libcublas.so.N is not the one libsymv was built against */
  DOCTOR_OTHER_PATH = 15,  /* the calls reach a libsymv at another path than --lib DIR's */
  DOCTOR_NO_RULES = 16,    /* libsymv has no rules for this GPU or routine: its calls go to cuBLAS */
  DOCTOR_ATOMICS = 17,     /* the handle's default atomics mode selects rules that send every call to cuBLAS */
  DOCTOR_NO_CALLS = 10     /* the program references none of the routines (nothing to judge) */
};

/** doctor_expected_lib: the libsymv that --lib DIR names, as a real path
 *  into out (PATH_MAX bytes): DIR/lib/libsymv.so.0 (a `symvtune build`
 *  output or an installed prefix), else DIR/libsymv.so.0. 0, or -1 when
 *  neither is there. */
int doctor_expected_lib(const char *libdir, char *out);

/** doctor_run: runs prog (argv, NULL-terminated; prog[0] searched in PATH)
 *  once with SYMV_LOG, LD_DEBUG=bindings and LD_BIND_NOW into a private
 *  temporary folder (kept, and named, if keep), then prints on stdout the
 *  bindings of the routines' cuBLAS names, the NEEDED order of the objects
 *  that call them, what libsymv says of itself, its calls per routine and
 *  the verdict with its fix. libdir (or NULL) is --lib DIR, want its
 *  doctor_expected_lib. Returns the verdict's status (DOCTOR_OK, or one
 *  of DOCTOR_NOT_LINKED..DOCTOR_NO_CALLS), or DOCTOR_ERROR when the
 *  program could not be started or the bindings not read. */
int doctor_run(char **prog, const char *libdir, const char *want, int keep);

/** doctor_lib_report: what the libsymv at path (doctor_expected_lib's)
 *  says of itself, loaded in this process without running a program: its
 *  version, the GPU and rules it holds, and its identity (symvInfo's
 *  identity line; a --wisdom library's rules id of this GPU's wisdom
 *  file), on stdout. Returns DOCTOR_OK, or DOCTOR_ERROR when it cannot be
 *  loaded or has no symvGetInfo (why printed) or stdout cannot be
 *  written. */
int doctor_lib_report(const char *path);

/** One line of libsymv's call log:
 *    libsymv: ROUTINE n=N uplo=U lda=L incx=X incy=Y: SERVED (WHY) -> STATUS (CODE)
 *  perhaps followed by more fields, which are ignored. The log's first
 *  line, "libsymv: symvtune-rules: ..." (the library's identity), is not
 *  a call line. */
typedef struct {
  char routine[8];  /* "dsymv", ... */
  int n;            /* matrix order as called, elements (may be invalid: < 0) */
  char uplo[8];     /* "L", "U", or the number of an invalid fill mode */
  char served[96];  /* a kernel's name, "cuBLAS", "cuBLAS with atomics" or "none" */
  char why[192];    /* the rule, or why not a kernel ("untuned routine: ...", "fallback: ...", "argument error: ...") */
  char status[48];  /* "CUBLAS_STATUS_SUCCESS", ... */
} doctor_call;

/** doctor_parse_call: 0 and *out filled if line is a call line of the log
 *  (text past the status, such as fields a later libsymv adds, is
 *  ignored; fields longer than out's are cut); -1 for any other line. */
int doctor_parse_call(const char *line, doctor_call *out);

/** One binding of LD_DEBUG=bindings:
 *    PID: binding file FROM [NS] to TO [NS]: normal symbol `NAME' [VERSION] */
typedef struct {
  char from[1024];  /* the object that refers to the symbol, as the dynamic linker names it */
  char to[1024];    /* the object whose definition it got */
  char symbol[128]; /* the symbol's name */
} doctor_binding;

/** doctor_parse_binding: 0 and *out filled for a binding line (names too
 *  long for out are refused); -1 for any other line. */
int doctor_parse_binding(const char *line, doctor_binding *out);

#endif
