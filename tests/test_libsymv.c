/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the generated library libsymv (lib/libsymv.c with each of its
 * sources of rules, lib/source_table.c and lib/source_wisdom.c; lib/symv.h),
 * built once per run of this program (a Criterion PRE_ALL hook, in a temp
 * folder whose name the tests find in SYMV_TEST_LIBDIR) from the real sweep
 * database with the fixture's rules (tests/libsymv_fixture.h); with a GPU
 * present, the fixture's device fingerprint is that GPU's, so its kernels
 * run.
 *
 * Without a GPU: the argument checks of symvDsymv and cublasDsymv_v2 (they
 * come before the handle or the GPU is touched), and that a program written
 * against cublasDsymv, linked -lsymv before -lcublas or run with
 * LD_PRELOAD, binds its call to libsymv; that a rule naming cuBLAS calls
 * cuBLAS (a stand-in, tests/cublas_standin.c) in the rule's atomics mode and
 * restores the handle's; that a call at either end of a rule, and past
 * the first and the last, goes by that rule. With a GPU: libsymv against cuBLAS
 * and OpenBLAS over an argument grid like `symvtune check`'s in both pointer
 * modes, with the kernel each rule names checked by symvLastKernel; the
 * handle's atomics mode restored; two streams from two threads at once
 * (and a third on the default stream); the return codes of real cuBLAS; the
 * workspace reused and freed at unload; the fallback to cuBLAS of a foreign
 * GPU and of a kernel that cannot run there, told once with SYMV_VERBOSE.
 *
 * The library of `symvtune build --wisdom` (built by the same hook, no GPU
 * needed): with a GPU, a wisdom file exported from the fixture's database
 * with this GPU's fingerprint (and the registers NVRTC gives the fixture's
 * kernels here) drives its calls, checked by symvLastKernel, symvGetInfo,
 * the log and the residual against OpenBLAS and cuBLAS; a file of another
 * GPU sends every call to cuBLAS; a kernel whose registers differ from the
 * file's is refused and its sizes go to cuBLAS.
 */
#include "libsymv_fixture.h"
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include "gpu.h"
#include "params.h"
#include "reference.h"
#include "routine.h"
#include "symv.h"

#ifndef SYMV_TEST_CUDA_HOME
#define SYMV_TEST_CUDA_HOME "/usr/local/cuda"
#endif

typedef cublasStatus_t (*dsymv_fn)(cublasHandle_t, cublasFillMode_t, int, const double *, const double *, int,
                                   const double *, int, const double *, double *, int);
typedef const char *(*last_fn)(void);

/* ---- The library, built once ------------------------------------------- */

static int have_nvcc(void) { return *FIX_NVCC && access(FIX_NVCC, X_OK) == 0; }

/* Points the database's fingerprint at `d`, so the library covers it. */
static int retarget(const char *dbpath, const symv_device_info *d)
{
  sqlite3 *s;
  sqlite3_stmt *st;
  if (sqlite3_open(dbpath, &s) != SQLITE_OK) return -1;
  int rc = sqlite3_prepare_v2(s, "UPDATE device SET name = ?, cc_major = ?, cc_minor = ?, sm_count = ?", -1, &st,
                              NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(st, 1, d->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, d->cc_major);
    sqlite3_bind_int(st, 3, d->cc_minor);
    sqlite3_bind_int(st, 4, d->sm_count);
    rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_finalize(st);
  }
  sqlite3_close(s);
  return rc == SQLITE_OK ? 0 : -1;
}

/* Builds DIR/lib from DIR/fit.db; 0 or the exit status, log in DIR/build.log. */
static int build_into(const char *dir, const char *dbname, const char *outname)
{
  char db[512], out[512], log[512];
  snprintf(db, sizeof db, "%s/%s", dir, dbname);
  snprintf(out, sizeof out, "%s/%s", dir, outname);
  snprintf(log, sizeof log, "%s/%s.log", dir, outname);
  const char *args[] = {"--db", db, "--out", out, "--nvcc", FIX_NVCC}; /* architecture: the fingerprint's */
  return fix_build(log, args, 6);
}

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
  (void)set;
  static char dir[64] = "/tmp/symvtune-test-libsymv-XXXXXX";
  if (!mkdtemp(dir)) return;
  setenv("SYMV_TEST_LIBDIR", dir, 1);
  char db[512], log[512], err[512] = "";
  snprintf(db, sizeof db, "%s/fit.db", dir);
  snprintf(log, sizeof log, "%s/lib.log", dir);
  int rc = fix_make_db(db, NULL, 0, 0, 0, NULL, err, sizeof err);
  symv_device_info dev;
  if (!rc && symv_device_query(0, &dev) == 0 && retarget(db, &dev))
    rc = -1, snprintf(err, sizeof err, "cannot retarget %.400s", db);
  if (rc) {
    FILE *f = fopen(log, "w");
    if (f) fprintf(f, "fixture: %s\n", err), fclose(f);
    return;
  }
  if (have_nvcc()) {
    build_into(dir, "fit.db", "lib");
    /* the wisdom-driven library; its system folder empty (SYMV_WISDOM names the files) */
    char out[512], sys[512];
    snprintf(out, sizeof out, "%s/wlib", dir);
    snprintf(sys, sizeof sys, "%s/no-system-wisdom", dir);
    snprintf(log, sizeof log, "%s/wlib.log", dir);
    const char *args[] = {"--wisdom", "--out", out, "--wisdom-dir", sys, "--nvcc", FIX_NVCC};
    fix_build(log, args, 7);
  }
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
  (void)stats;
  const char *dir = getenv("SYMV_TEST_LIBDIR");
  if (dir && !getenv("SYMV_TEST_KEEP")) fix_rmtree(dir);
}

static const char *libdir(void)
{
  const char *d = getenv("SYMV_TEST_LIBDIR");
  cr_assert_not_null(d, "the PRE_ALL hook made no folder");
  return d;
}

static void *lib;
static dsymv_fn symv, symv_cublas_entry;
static last_fn last_kernel;

/* Loads the library built for this run (skips without nvcc). */
static void *load(const char *path, dsymv_fn *fn, dsymv_fn *entry, last_fn *last)
{
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "dlopen %s: %s", path, dlerror());
  *fn = (dsymv_fn)dlsym(h, "symvDsymv");
  if (entry) *entry = (dsymv_fn)dlsym(h, "cublasDsymv_v2");
  *last = (last_fn)dlsym(h, "symvLastKernel");
  cr_assert(*fn && *last && (!entry || *entry), "%s lacks its entry points", path);
  return h;
}

/* LIBDIR/name/lib/libsymv.so, the library the PRE_ALL hook built into
 * LIBDIR/name, in path (512 bytes); fails the test, with its build's log
 * LIBDIR/name.log, if it is not there. */
static char *built_lib(char *path, const char *name)
{
  snprintf(path, 512, "%s/%s/lib/libsymv.so", libdir(), name);
  if (!fix_exists(path)) {
    char log[512];
    snprintf(log, sizeof log, "%s/%s.log", libdir(), name);
    char *text = fix_slurp(log);
    cr_assert_fail("the library %s was not built:\n%s", path, text ? text : "(no log)");
  }
  return path;
}

static void need_lib(void)
{
  if (!have_nvcc()) cr_skip_test("no nvcc: no library to test");
  char path[512];
  lib = load(built_lib(path, "lib"), &symv, &symv_cublas_entry, &last_kernel);
}

static symv_device_info dev;

static void need_gpu(void)
{
  need_lib();
  if (symv_device_query(0, &dev)) test_skip_without_gpu("no CUDA device: GPU test skipped");
}

/* The fixture's candidates, from the library's database. */
static void fixture_candidates(db_candidate c[4])
{
  char path[512], err[256];
  snprintf(path, sizeof path, "%s/fit.db", libdir());
  db *d = NULL;
  cr_assert_eq(db_open(&d, path, DB_READONLY), 0);
  cr_assert_eq(fix_pick(d, c, err, sizeof err), 0, "%s", err);
  db_close(d);
}

/* What symvLastKernel must say after a call of size n by a handle in
 * CUBLAS_ATOMICS_ALLOWED (the 'any' rules, fix_rules) or, deterministic
 * nonzero, in the default CUBLAS_ATOMICS_NOT_ALLOWED (fix_det_rules). */
static void expected_kernel_of(int deterministic, int n, char *out, size_t len)
{
  const fix_rule *rules = deterministic ? fix_det_rules : fix_rules;
  const int count = deterministic ? FIX_NDET : FIX_NRULES;
  int i = 0;
  while (i < count - 1 && n > rules[i].n_end) i++;
  const fix_rule *r = &rules[i];
  if (r->cand < 0) {
    snprintf(out, len, "%s", r->kernel);
    return;
  }
  db_candidate c[4];
  fixture_candidates(c);
  symv_kernel_name(&c[r->cand].p, out, len);
}

/* expected_kernel_of the 'any' rules: what handles that allowed atomics get. */
static void expected_kernel(int n, char *out, size_t len) { expected_kernel_of(0, n, out, len); }

/* A cuBLAS handle that allows atomics: libsymv runs its 'any' rules for it. */
static cublasHandle_t atomics_handle(void)
{
  cublasHandle_t h;
  cr_assert_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  cr_assert_eq(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED), CUBLAS_STATUS_SUCCESS);
  return h;
}

/* A device array of count doubles, a copy of h (left as allocated where h
 * is NULL); the test fails if it cannot be made. Free with cudaFree. */
static double *dev_doubles(const double *h, size_t count)
{
  double *d = NULL;
  cr_assert_eq(cudaMalloc((void **)&d, sizeof(double) * count), cudaSuccess, "cudaMalloc of %zu doubles", count);
  if (h) cr_assert_eq(cudaMemcpy(d, h, sizeof(double) * count, cudaMemcpyHostToDevice), cudaSuccess);
  return d;
}

/* ---- Without a GPU --------------------------------------------------------- */

Test(libsymv, arguments_are_checked_before_anything_is_touched, .init = need_lib)
{
  /* a handle that is never dereferenced: the checks must come first */
  cublasHandle_t fake = (cublasHandle_t)(uintptr_t)0x10;
  double A[16], x[4], y[4], alpha = 1.0, beta = 0.5;
  for (int i = 0; i < 16; i++) A[i] = 1.0 + i;
  for (int i = 0; i < 4; i++) x[i] = 1.0, y[i] = -7.0;
  const struct {
    cublasHandle_t h;
    int uplo, n, lda, incx, incy;
    int null_scalar;
    cublasStatus_t expect;
  } cases[] = {
    {NULL, CUBLAS_FILL_MODE_LOWER, 4, 4, 1, 1, 0, CUBLAS_STATUS_NOT_INITIALIZED},
    {NULL, 99, -1, 0, 0, 0, 0, CUBLAS_STATUS_NOT_INITIALIZED}, /* the handle first */
    {fake, 99, 4, 4, 1, 1, 0, CUBLAS_STATUS_INVALID_VALUE},
    {fake, CUBLAS_FILL_MODE_FULL, 4, 4, 1, 1, 0, CUBLAS_STATUS_INVALID_VALUE},
    {fake, CUBLAS_FILL_MODE_UPPER, -1, 4, 1, 1, 0, CUBLAS_STATUS_INVALID_VALUE},
    {fake, CUBLAS_FILL_MODE_LOWER, 4, 3, 1, 1, 0, CUBLAS_STATUS_INVALID_VALUE},
    {fake, CUBLAS_FILL_MODE_LOWER, 1, 0, 1, 1, 0, CUBLAS_STATUS_INVALID_VALUE}, /* lda >= max(1, n) */
    {fake, CUBLAS_FILL_MODE_LOWER, 0, -1, 1, 1, 0, CUBLAS_STATUS_INVALID_VALUE},
    {fake, CUBLAS_FILL_MODE_LOWER, 0, 4, 0, 1, 0, CUBLAS_STATUS_INVALID_VALUE}, /* inc 0 even at n = 0 */
    {fake, CUBLAS_FILL_MODE_LOWER, 0, 0, 1, 1, 0, CUBLAS_STATUS_SUCCESS}, /* but lda = 0 at n = 0, as cuBLAS */
    {fake, CUBLAS_FILL_MODE_LOWER, 4, 4, 0, 1, 0, CUBLAS_STATUS_INVALID_VALUE},
    {fake, CUBLAS_FILL_MODE_UPPER, 4, 4, 1, 0, 0, CUBLAS_STATUS_INVALID_VALUE},
    {fake, CUBLAS_FILL_MODE_LOWER, 4, 4, 1, 1, 1, CUBLAS_STATUS_INVALID_VALUE}, /* NULL alpha */
    {fake, CUBLAS_FILL_MODE_LOWER, 4, 4, 1, 1, 2, CUBLAS_STATUS_INVALID_VALUE}, /* NULL beta */
    {fake, CUBLAS_FILL_MODE_LOWER, 0, 1, 1, 1, 0, CUBLAS_STATUS_SUCCESS},       /* n = 0: nothing to do */
    {fake, CUBLAS_FILL_MODE_UPPER, 0, 5, -3, 2, 1, CUBLAS_STATUS_SUCCESS},
  };
  for (int e = 0; e < 2; e++) {
    dsymv_fn f = e ? symv_cublas_entry : symv;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
      cublasStatus_t st = f(cases[i].h, (cublasFillMode_t)cases[i].uplo, cases[i].n, cases[i].null_scalar == 1 ? NULL
                                                                                                               : &alpha,
                            A, cases[i].lda, x, cases[i].incx, cases[i].null_scalar == 2 ? NULL : &beta, y,
                            cases[i].incy);
      cr_assert_eq(st, cases[i].expect, "%s case %zu: status %d, expected %d", e ? "cublasDsymv_v2" : "symvDsymv", i,
                   (int)st, (int)cases[i].expect);
      cr_assert_str_eq(last_kernel(), "", "case %zu ran '%s'", i, last_kernel());
      for (int k = 0; k < 4; k++) cr_assert_eq(y[k], -7.0, "case %zu touched y", i);
      cr_assert_eq(alpha, 1.0);
      cr_assert_eq(beta, 0.5);
    }
  }
}

/* A program written against cublasDsymv only. With an argument n it runs one
 * call (y := 1.5 A x + 0.25 y, lower, lda = n) and checks it on the host. */
static const char prog_src[] =
  "#define _GNU_SOURCE\n"
  "#include <cublas_v2.h>\n#include <cuda_runtime_api.h>\n#include <dlfcn.h>\n#include <math.h>\n"
  "#include <stdio.h>\n#include <stdlib.h>\n"
  "int main(int argc, char **argv)\n{\n"
  "  Dl_info info;\n"
  "  void *f = dlsym(RTLD_DEFAULT, \"cublasDsymv_v2\");\n"
  "  if (!f || !dladdr(f, &info)) return 2;\n"
  "  printf(\"cublasDsymv_v2 from %s\\n\", info.dli_fname);\n"
  "  if (argc < 2) return 0;\n"
  "  int n = atoi(argv[1]);\n"
  "  double *A = malloc(sizeof(double) * n * n), *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n),\n"
  "         *r = malloc(sizeof(double) * n), alpha = 1.5, beta = 0.25, *dA, *dx, *dy;\n"
  "  srand(7);\n"
  "  for (int i = 0; i < n * n; i++) A[i] = rand() / (double)RAND_MAX - 0.5;\n"
  "  for (int i = 0; i < n; i++) x[i] = rand() / (double)RAND_MAX - 0.5, y[i] = r[i] = rand() / (double)RAND_MAX;\n"
  "  cublasHandle_t h;\n"
  "  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 3;\n"
  "  cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED); /* the fixture's 'any' rules */\n"
  "  cudaMalloc((void **)&dA, sizeof(double) * n * n), cudaMalloc((void **)&dx, sizeof(double) * n);\n"
  "  cudaMalloc((void **)&dy, sizeof(double) * n);\n"
  "  cudaMemcpy(dA, A, sizeof(double) * n * n, cudaMemcpyHostToDevice);\n"
  "  cudaMemcpy(dx, x, sizeof(double) * n, cudaMemcpyHostToDevice);\n"
  "  cudaMemcpy(dy, y, sizeof(double) * n, cudaMemcpyHostToDevice);\n"
  "  if (cublasDsymv(h, CUBLAS_FILL_MODE_LOWER, n, &alpha, dA, n, dx, 1, &beta, dy, 1)) return 4;\n"
  "  if (cudaMemcpy(y, dy, sizeof(double) * n, cudaMemcpyDeviceToHost)) return 5;\n"
  "  double err = 0;\n"
  "  for (int i = 0; i < n; i++) {\n"
  "    double s = 0;\n"
  "    for (int j = 0; j < n; j++) s += (i >= j ? A[i + (size_t)j * n] : A[j + (size_t)i * n]) * x[j];\n"
  "    double e = fabs(y[i] - (alpha * s + beta * r[i]));\n"
  "    if (!(e <= err)) err = e;\n"
  "  }\n"
  "  const char *(*last)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, \"symvLastKernel\");\n"
  "  printf(\"kernel %s maxerr %.3g\\n\", last ? last() : \"(none)\", err);\n"
  "  return err < 1e-11 * n ? 0 : 1;\n"
  "}\n";

/* Compiles prog_src into DIR/name (once per name), with libsymv linked or not; runs it with
 * `args` (and LD_PRELOAD=libsymv if preload); returns its output. */
static char *program(const char *name, int link_symv, int preload, const char *args)
{
  const char *dir = libdir();
  char src[512], exe[512], cmd[4096], out[512];
  snprintf(src, sizeof src, "%s/%s.c", dir, name);
  snprintf(exe, sizeof exe, "%s/%s", dir, name);
  snprintf(out, sizeof out, "%s/%s.out", dir, name);
  FILE *f = fopen(src, "w");
  cr_assert_not_null(f);
  fputs(prog_src, f);
  fclose(f);
  const char *cuda = fix_env("SYMV_TEST_CUDA_HOME", SYMV_TEST_CUDA_HOME);
  char symvlib[1024] = "";
  if (link_symv) snprintf(symvlib, sizeof symvlib, "-L%s/lib/lib -Wl,-rpath,%s/lib/lib -lsymv", dir, dir);
  snprintf(cmd, sizeof cmd,
           "cc -std=gnu11 -o '%s' '%s' -I'%s/include' %s -L'%s/lib64' -Wl,-rpath,'%s/lib64' -lcublas -lcudart -lm "
           "> '%s' 2>&1",
           exe, src, cuda, symvlib, cuda, cuda, out);
  int rc = fix_exists(exe) ? 0 : system(cmd); /* compiled once per name */
  char *log = rc ? fix_slurp(out) : NULL;
  cr_assert_eq(rc, 0, "%s\n%s", cmd, log ? log : "");
  free(log);
  if (preload)
    snprintf(cmd, sizeof cmd, "LD_PRELOAD='%s/lib/lib/libsymv.so' '%s' %s > '%s' 2>&1", dir, exe, args, out);
  else
    snprintf(cmd, sizeof cmd, "'%s' %s > '%s' 2>&1", exe, args, out);
  rc = system(cmd);
  char *text = fix_slurp(out);
  cr_assert_not_null(text);
  cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s: exit %d:\n%s", cmd, WEXITSTATUS(rc), text);
  return text;
}

Test(libsymv, program_linked_before_cublas_calls_libsymv, .init = need_lib, .timeout = 120)
{
  char *text = program("prog_linked", 1, 0, "");
  cr_assert_not_null(strstr(text, "/libsymv.so.0\n"), "the program's cublasDsymv_v2 is not libsymv's:\n%s", text);
  free(text);
}

Test(libsymv, ld_preload_replaces_cublas, .init = need_lib, .timeout = 120)
{
  char *text = program("prog_preload", 0, 1, "");
  cr_assert_not_null(strstr(text, "/libsymv.so\n"), "LD_PRELOAD did not replace cublasDsymv_v2:\n%s", text);
  free(text);
}

/* A program calling cublasDsymv_v2 once on a stand-in handle
 * (tests/cublas_standin.c): argv n and the handle's atomics mode; prints
 * the status, the stand-in's count of calls, the mode it saw, the handle's
 * mode afterwards and symvLastKernel. */
static const char mode_prog_src[] =
  "#include <cublas_v2.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
  "extern int standin_calls, standin_mode_seen;\n"
  "const char *symvLastKernel(void);\n"
  "int main(int argc, char **argv)\n{\n"
  "  if (argc < 3) return 2;\n"
  "  int n = atoi(argv[1]);\n"
  "  cublasAtomicsMode_t mode = (cublasAtomicsMode_t)atoi(argv[2]);\n"
  "  double alpha = 1, beta = 0.5, data[1];\n"
  "  cublasStatus_t st = cublasDsymv_v2((cublasHandle_t)(void *)&mode, CUBLAS_FILL_MODE_LOWER, n, &alpha, data, n,\n"
  "                                     data, 1, &beta, data, 1);\n"
  "  printf(\"status %d calls %d seen %d after %d kernel %s\\n\", (int)st, standin_calls, standin_mode_seen,\n"
  "         (int)mode, symvLastKernel());\n"
  "  return 0;\n"
  "}\n";

/* A rule names cuBLAS in one atomics mode, measured in it: libsymv calls
 * cuBLAS in that mode whatever the handle's, and gives the handle its own
 * mode back. Without a GPU: cuBLAS is the stand-in of tests/cublas_standin.c,
 * linked between libsymv and libcublas. */
/* Compiles mode_prog_src, linked with libsymv and the stand-in cuBLAS,
 * into a folder `name` of its own in the library's folder (tests run at
 * once): the program's path into exe, its log's into log (512 bytes each). */
static void mode_prog_build(const char *name, char *exe, char *log)
{
  const char *cuda = fix_env("SYMV_TEST_CUDA_HOME", SYMV_TEST_CUDA_HOME);
  const char *srcdir = fix_env("SYMV_TEST_SRCDIR", SYMV_TEST_SRCDIR);
  char dir[400], lib[512], src[600], cmd[4096], *text;
  snprintf(lib, sizeof lib, "%s/lib/lib", libdir());
  snprintf(dir, sizeof dir, "%s/%s", libdir(), name);
  cr_assert(mkdir(dir, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
  snprintf(src, sizeof src, "%s/mode_prog.c", dir);
  snprintf(exe, 512, "%s/mode_prog", dir);
  snprintf(log, 512, "%s/mode_prog.log", dir);
  FILE *f = fopen(src, "w");
  cr_assert_not_null(f);
  fputs(mode_prog_src, f);
  cr_assert_eq(fclose(f), 0);
  snprintf(cmd, sizeof cmd,
           "cc -std=gnu11 -shared -fPIC -o '%s/libcublas_standin.so' '%s/tests/cublas_standin.c' -I'%s/include' && "
           "cc -std=gnu11 -o '%s' '%s' -I'%s/include' -Wl,--no-as-needed -L'%s' -Wl,-rpath,'%s' "
           "-lsymv -L'%s' -Wl,-rpath,'%s' -lcublas_standin -L'%s/lib64' -Wl,-rpath,'%s/lib64' -lcublas -lcudart",
           dir, srcdir, cuda, exe, src, cuda, lib, lib, dir, dir, cuda, cuda);
  int rc = fix_sh(cmd, log, &text);
  cr_assert_eq(rc, 0, "%s\n%s", cmd, text);
  free(text);
}

Test(libsymv, cublas_rules_run_cublas_in_the_rules_mode, .init = need_lib, .timeout = 120)
{
  char exe[512], log[512], cmd[4096], *text;
  mode_prog_build("modes", exe, log);
  int rc;
  /* the fixture's rules: 'any' 301..700 cuBLAS, 2501..3200 cuBLAS with
   * atomics; deterministic 1501..4000 cuBLAS */
  static const struct {
    int n, handle_mode, mode_seen;
    const char *kernel;
  } cases[] = {
    {500, CUBLAS_ATOMICS_ALLOWED, CUBLAS_ATOMICS_NOT_ALLOWED, "cublas"},
    {2900, CUBLAS_ATOMICS_ALLOWED, CUBLAS_ATOMICS_ALLOWED, "cublas_atomics"},
    {2000, CUBLAS_ATOMICS_NOT_ALLOWED, CUBLAS_ATOMICS_NOT_ALLOWED, "cublas"},
    {2900, CUBLAS_ATOMICS_NOT_ALLOWED, CUBLAS_ATOMICS_NOT_ALLOWED, "cublas"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char want[160];
    snprintf(cmd, sizeof cmd, "'%s' %d %d", exe, cases[i].n, cases[i].handle_mode);
    rc = fix_sh(cmd, log, &text);
    cr_assert_eq(rc, 0, "%s: exit %d\n%s", cmd, rc, text);
    snprintf(want, sizeof want, "status 0 calls 1 seen %d after %d kernel %s\n", cases[i].mode_seen,
             cases[i].handle_mode, cases[i].kernel);
    cr_assert_str_eq(text, want, "n = %d, handle mode %d", cases[i].n, cases[i].handle_mode);
    free(text);
  }
}

/* ---- With a GPU --------------------------------------------------------- */

Test(libsymv, programs_calls_are_served_by_libsymv, .init = need_gpu, .timeout = 300)
{
  static const int ns[] = {100, 500, 1000, 2000, 2900, 3500}; /* every rule, cuBLAS's too */
  for (int i = 0; i < 6; i++) {
    char args[16], want[64], line[128];
    snprintf(args, sizeof args, "%d", ns[i]);
    expected_kernel(ns[i], want, sizeof want);
    snprintf(line, sizeof line, "kernel %s maxerr", want);
    char *a = program("prog_linked_run", 1, 0, args), *b = program("prog_preload_run", 0, 1, args);
    cr_assert_not_null(strstr(a, line), "linked, n = %d: expected %s:\n%s", ns[i], want, a);
    cr_assert_not_null(strstr(b, line), "LD_PRELOAD, n = %d: expected %s:\n%s", ns[i], want, b);
    free(a), free(b);
  }
}

/* The argument combinations of `symvtune check`. */
typedef struct {
  int lda_extra;
  int incx, incy;
  double alpha, beta;
} combo;
static const combo combos[] = {
  {0, 1, 1, 1.3, 0.7},   {0, -1, 2, 1.0, -1.2}, {0, 1, 1, 0.0, 0.0},
  {3, 1, 1, -0.8, 0.0},  {3, 2, -3, 0.9, 1.0},  {3, 3, -1, 0.0, 0.6},
};
#define NCOMBOS (int)(sizeof combos / sizeof *combos)
static const double SENTINEL = -12345.678;

static long span(int n, int inc) { return n > 0 ? (long)(n - 1) * labs((long)inc) + 1 : 1; }
static long bpos(int n, int inc, int i) { return inc > 0 ? (long)i * inc : (long)(n - 1 - i) * -inc; }

Test(libsymv, matches_cublas_and_openblas_over_the_grid, .init = need_gpu, .timeout = 600)
{
  static const int sizes[] = {1, 17, 100, 500, 1000, 2000, 2900, 3500, 4500};
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  cublasHandle_t ref, h;
  cr_assert_eq(cublasCreate(&ref), CUBLAS_STATUS_SUCCESS);
  h = atomics_handle(); /* every family runs */
  double *ds;
  cr_assert_eq(cudaMalloc((void **)&ds, 2 * sizeof(double)), cudaSuccess);
  int cases = 0;
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    const int n = sizes[si];
    char want[64];
    expected_kernel(n, want, sizeof want);
    const int cublas_rule = !strncmp(want, "cublas", 6);
    const size_t alen = (size_t)(n + 3) * n;
    const long xmax = span(n, 3), ymax = span(n, 3) + 16;
    double *A = malloc(alen * sizeof *A), *x = malloc(xmax * sizeof *x), *xf = malloc(xmax * sizeof *x);
    double *y0 = malloc(ymax * sizeof *y0), *yref = malloc(ymax * sizeof *y0), *ycub = malloc(ymax * sizeof *y0),
           *y = malloc(ymax * sizeof *y0), *dA, *dx, *dxf, *dy;
    cr_assert(A && x && xf && y0 && yref && ycub && y);
    cr_assert_eq(cudaMalloc((void **)&dA, alen * sizeof *A), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&dx, xmax * sizeof *x), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&dxf, xmax * sizeof *x), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&dy, ymax * sizeof *y), cudaSuccess);
    for (int u = 0; u < 2; u++) {
      const char uplo = u ? 'U' : 'L';
      const cublasFillMode_t fill = u ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
      for (int ci = 0; ci < NCOMBOS; ci++) {
        const combo *cb = &combos[ci];
        const int lda = n + cb->lda_extra;
        /* stored triangle random; the other one and the rows past n NaN */
        symv_fill_random(SYMV_DSYMV, A, (long)lda * n, &seed);
        for (int j = 0; j < n; j++)
          for (int i = 0; i < lda; i++)
            if (!(i < n && (u ? i <= j : i >= j))) A[(size_t)j * lda + i] = NAN;
        cudaMemcpy(dA, A, (size_t)lda * n * sizeof *A, cudaMemcpyHostToDevice);
        const long xl = span(n, cb->incx), yl = span(n, cb->incy) + 16;
        symv_fill_random(SYMV_DSYMV, xf, xl, &seed);
        for (long i = 0; i < xl; i++) x[i] = cb->alpha == 0.0 ? NAN : xf[i]; /* alpha = 0: x unread */
        symv_fill_random(SYMV_DSYMV, yref, n, &seed);
        for (long i = 0; i < yl; i++) y0[i] = SENTINEL;
        for (int i = 0; i < n; i++) y0[bpos(n, cb->incy, i)] = cb->beta == 0.0 ? NAN : yref[i]; /* beta = 0: unread */
        memcpy(yref, y0, yl * sizeof *y0);
        for (int i = 0; i < n; i++) {
          double *p = &yref[bpos(n, cb->incy, i)];
          if (cb->beta == 0.0) *p = 0.0;
          else if (cb->alpha == 0.0) *p *= cb->beta;
        }
        if (cb->alpha != 0.0) symv_ref(SYMV_DSYMV, uplo, n, &cb->alpha, A, lda, x, cb->incx, &cb->beta, yref, cb->incy);
        double *scale = symv_residual_scale(SYMV_DSYMV, uplo, n, &cb->alpha, A, lda, x, cb->incx, &cb->beta, y0, cb->incy);
        cr_assert_not_null(scale);
        cudaMemcpy(dx, x, xl * sizeof *x, cudaMemcpyHostToDevice);
        cudaMemcpy(dxf, xf, xl * sizeof *x, cudaMemcpyHostToDevice);
        /* cuBLAS (it reads x even when alpha = 0: give it the finite copy) */
        cudaMemcpy(dy, y0, yl * sizeof *y0, cudaMemcpyHostToDevice);
        cr_assert_eq(cublasDsymv(ref, fill, n, &cb->alpha, dA, lda, cb->alpha == 0.0 ? dxf : dx, cb->incx, &cb->beta,
                                 dy, cb->incy),
                     CUBLAS_STATUS_SUCCESS);
        cr_assert_eq(cudaMemcpy(ycub, dy, yl * sizeof *y, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int mode = 0; mode < 2; mode++) {
          double s[2] = {cb->alpha, cb->beta};
          cudaMemcpy(ds, s, sizeof s, cudaMemcpyHostToDevice);
          cr_assert_eq(cublasSetPointerMode(h, mode ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST),
                       CUBLAS_STATUS_SUCCESS);
          cudaMemcpy(dy, y0, yl * sizeof *y0, cudaMemcpyHostToDevice);
          /* where cuBLAS serves, cuBLAS's semantics: the finite x at alpha = 0 */
          const double *xin = cublas_rule && cb->alpha == 0.0 ? dxf : dx;
          cublasStatus_t st = symv(h, fill, n, mode ? ds : &s[0], dA, lda, xin, cb->incx, mode ? ds + 1 : &s[1], dy,
                                   cb->incy);
          char what[200];
          snprintf(what, sizeof what, "n=%d uplo=%c lda=%d incx=%d incy=%d alpha=%g beta=%g %s pointers (seed %llu)",
                   n, uplo, lda, cb->incx, cb->incy, cb->alpha, cb->beta, mode ? "device" : "host", seed0);
          cr_assert_eq(st, CUBLAS_STATUS_SUCCESS, "%s: status %d", what, (int)st);
          cr_assert_str_eq(last_kernel(), want, "%s: ran %s, the rule says %s", what, last_kernel(), want);
          cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess, "%s: kernel failed", what);
          cr_assert_eq(cudaMemcpy(y, dy, yl * sizeof *y, cudaMemcpyDeviceToHost), cudaSuccess);
          double r1 = symv_residual_scaled(SYMV_DSYMV, n, cb->incy, scale, y, yref);
          double r2 = symv_residual_scaled(SYMV_DSYMV, n, cb->incy, scale, y, ycub);
          long bad = symv_untouched(SYMV_DSYMV, y, yl, n, cb->incy, &SENTINEL);
          cr_expect(r1 <= 4.0, "%s (%s): residual %.3g against OpenBLAS", what, want, r1);
          cr_expect(r2 <= 4.0, "%s (%s): residual %.3g against cuBLAS", what, want, r2);
          cr_expect_eq(bad, 0, "%s (%s): %ld elements written outside y", what, want, bad);
          cases++;
        }
        free(scale);
      }
    }
    cudaFree(dA), cudaFree(dx), cudaFree(dxf), cudaFree(dy);
    free(A), free(x), free(xf), free(y0), free(yref), free(ycub), free(y);
  }
  cr_assert_eq(cases, 9 * 2 * NCOMBOS * 2);
  cudaFree(ds);
  cublasDestroy(ref);
  cublasDestroy(h);
}

Test(libsymv, atomics_mode_is_set_for_cublas_rules_and_restored, .init = need_gpu)
{
  cublasHandle_t h;
  cr_assert_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  const int n = 2900; /* cublas_atomics rule */
  double *dA, *dx, *dy, alpha = 1, beta = 0;
  cr_assert_eq(cudaMalloc((void **)&dA, sizeof(double) * n * n), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dx, sizeof(double) * n), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dy, sizeof(double) * n), cudaSuccess);
  cudaMemset(dA, 0, sizeof(double) * n * n), cudaMemset(dx, 0, sizeof(double) * n);
  for (int start = 0; start < 2; start++) {
    /* the default mode takes the deterministic rules, ALLOWED the 'any' ones
     * (whose cublas_atomics rule sets the mode for the call) */
    cublasAtomicsMode_t mine = start ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED, now;
    for (int k = 0; k < 3; k++) {
      static const int ns[3] = {2900, 500, 1000};
      char want[64];
      expected_kernel_of(!start, ns[k], want, sizeof want);
      cr_assert_eq(cublasSetAtomicsMode(h, mine), CUBLAS_STATUS_SUCCESS);
      cr_assert_eq(symv(h, CUBLAS_FILL_MODE_LOWER, ns[k], &alpha, dA, ns[k], dx, 1, &beta, dy, 1),
                   CUBLAS_STATUS_SUCCESS);
      cr_assert_str_eq(last_kernel(), want, "mode %d, n = %d", (int)mine, ns[k]);
      cr_assert_eq(cublasGetAtomicsMode(h, &now), CUBLAS_STATUS_SUCCESS);
      cr_assert_eq(now, mine, "n = %d changed the handle's atomics mode", ns[k]);
    }
  }
  cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(dA), cudaFree(dx), cudaFree(dy);
  cublasDestroy(h);
}

Test(libsymv, return_codes_are_cublas_codes, .init = need_gpu)
{
  cublasHandle_t h;
  cr_assert_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  double *d, alpha = 1, beta = 1;
  cr_assert_eq(cudaMalloc((void **)&d, sizeof(double) * 64), cudaSuccess);
  const struct {
    int uplo, n, lda, incx, incy;
  } cases[] = {
    {99, 4, 4, 1, 1}, {CUBLAS_FILL_MODE_FULL, 4, 4, 1, 1}, {CUBLAS_FILL_MODE_LOWER, -1, 4, 1, 1},
    {CUBLAS_FILL_MODE_LOWER, 4, 3, 1, 1}, {CUBLAS_FILL_MODE_UPPER, 0, 0, 1, 1}, {CUBLAS_FILL_MODE_LOWER, 4, 4, 0, 1},
    {CUBLAS_FILL_MODE_LOWER, 4, 4, 1, 0}, {CUBLAS_FILL_MODE_LOWER, 0, 1, 1, 1}, {CUBLAS_FILL_MODE_UPPER, 4, 4, -1, -2},
    {CUBLAS_FILL_MODE_LOWER, 1, 0, 1, 1}, {CUBLAS_FILL_MODE_LOWER, 0, 4, 0, 1}, {CUBLAS_FILL_MODE_UPPER, 0, 4, 1, 0},
    {CUBLAS_FILL_MODE_LOWER, 0, -1, 1, 1}, {99, 0, 0, 1, 1}, {CUBLAS_FILL_MODE_LOWER, -1, 0, 1, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cublasStatus_t want = cublasDsymv(h, (cublasFillMode_t)cases[i].uplo, cases[i].n, &alpha, d, cases[i].lda, d + 16,
                                      cases[i].incx, &beta, d + 32, cases[i].incy);
    cublasStatus_t got = symv(h, (cublasFillMode_t)cases[i].uplo, cases[i].n, &alpha, d, cases[i].lda, d + 16,
                              cases[i].incx, &beta, d + 32, cases[i].incy);
    cr_assert_eq(got, want, "case %zu: libsymv %d, cuBLAS %d", i, (int)got, (int)want);
  }
  cr_assert_eq(symv(NULL, CUBLAS_FILL_MODE_LOWER, 4, &alpha, d, 4, d, 1, &beta, d, 1),
               cublasDsymv(NULL, CUBLAS_FILL_MODE_LOWER, 4, &alpha, d, 4, d, 1, &beta, d, 1));
  cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(d);
  cublasDestroy(h);
}

/* ---- Threads and streams ------------------------------------------------ */

typedef struct {
  int use_default_stream; /* the legacy default stream instead of its own */
  dsymv_fn fn;
  last_fn last;
  char want[4][64];       /* expected kernel per size */
  char msg[512];          /* first failure, "" if none */
  unsigned long long seed;
} worker_arg;

static const int thread_sizes[4] = {100, 1000, 2000, 3500};

static void *worker(void *varg)
{
  worker_arg *w = varg;
  cudaStream_t s = 0;
  cublasHandle_t h;
  if (!w->use_default_stream && cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
    snprintf(w->msg, sizeof w->msg, "cudaStreamCreate failed");
    return NULL;
  }
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(h, s) != CUBLAS_STATUS_SUCCESS ||
      cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED) != CUBLAS_STATUS_SUCCESS) {
    snprintf(w->msg, sizeof w->msg, "cublasCreate failed");
    return NULL;
  }
  double *A[4], *x[4], *y0[4], *yref[4], *scale[4], *dA[4], *dx[4], *dy[4], *y = malloc(sizeof(double) * 4000);
  const double alpha = 1.1, beta = 0.3;
  for (int k = 0; k < 4; k++) {
    const int n = thread_sizes[k];
    A[k] = malloc(sizeof(double) * n * n), x[k] = malloc(sizeof(double) * n);
    y0[k] = malloc(sizeof(double) * n), yref[k] = malloc(sizeof(double) * n);
    symv_fill_random(SYMV_DSYMV, A[k], (long)n * n, &w->seed);
    symv_fill_random(SYMV_DSYMV, x[k], n, &w->seed);
    symv_fill_random(SYMV_DSYMV, y0[k], n, &w->seed);
    memcpy(yref[k], y0[k], sizeof(double) * n);
    symv_ref(SYMV_DSYMV, 'L', n, &alpha, A[k], n, x[k], 1, &beta, yref[k], 1);
    scale[k] = symv_residual_scale(SYMV_DSYMV, 'L', n, &alpha, A[k], n, x[k], 1, &beta, y0[k], 1);
    cudaMalloc((void **)&dA[k], sizeof(double) * n * n), cudaMalloc((void **)&dx[k], sizeof(double) * n);
    cudaMalloc((void **)&dy[k], sizeof(double) * n);
    cudaMemcpy(dA[k], A[k], sizeof(double) * n * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dx[k], x[k], sizeof(double) * n, cudaMemcpyHostToDevice);
  }
  for (int it = 0; it < 25 && !w->msg[0]; it++)
    for (int k = 0; k < 4 && !w->msg[0]; k++) {
      const int n = thread_sizes[(k + it) % 4], kk = (k + it) % 4;
      cudaMemcpyAsync(dy[kk], y0[kk], sizeof(double) * n, cudaMemcpyHostToDevice, s);
      cublasStatus_t st = w->fn(h, CUBLAS_FILL_MODE_LOWER, n, &alpha, dA[kk], n, dx[kk], 1, &beta, dy[kk], 1);
      const char *ran = w->last();
      if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(w->msg, sizeof w->msg, "n = %d: status %d", n, (int)st);
        break;
      }
      if (strcmp(ran, w->want[kk])) {
        snprintf(w->msg, sizeof w->msg, "n = %d: ran %s, expected %s", n, ran, w->want[kk]);
        break;
      }
      if (cudaMemcpyAsync(y, dy[kk], sizeof(double) * n, cudaMemcpyDeviceToHost, s) != cudaSuccess ||
          cudaStreamSynchronize(s) != cudaSuccess) {
        snprintf(w->msg, sizeof w->msg, "n = %d: CUDA error %s", n, cudaGetErrorString(cudaGetLastError()));
        break;
      }
      double r = symv_residual_scaled(SYMV_DSYMV, n, 1, scale[kk], y, yref[kk]);
      if (!(r <= 4.0)) snprintf(w->msg, sizeof w->msg, "iteration %d, n = %d (%s): residual %.3g", it, n, ran, r);
    }
  for (int k = 0; k < 4; k++) {
    cudaFree(dA[k]), cudaFree(dx[k]), cudaFree(dy[k]);
    free(A[k]), free(x[k]), free(y0[k]), free(yref[k]), free(scale[k]);
  }
  free(y);
  cublasDestroy(h);
  if (s) cudaStreamDestroy(s);
  return NULL;
}

Test(libsymv, concurrent_threads_and_streams, .init = need_gpu, .timeout = 300)
{
  worker_arg w[3];
  memset(w, 0, sizeof w);
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  for (int t = 0; t < 3; t++) {
    w[t].use_default_stream = t == 2;
    w[t].fn = t == 1 ? symv_cublas_entry : symv;
    w[t].last = last_kernel;
    w[t].seed = 1000003ull * (t + 1) + seed0;
    for (int k = 0; k < 4; k++) expected_kernel(thread_sizes[k], w[t].want[k], sizeof w[t].want[k]);
  }
  pthread_t th[3];
  for (int t = 0; t < 3; t++) cr_assert_eq(pthread_create(&th[t], NULL, worker, &w[t]), 0);
  for (int t = 0; t < 3; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < 3; t++) cr_expect_str_eq(w[t].msg, "", "thread %d: %s (seed %llu)", t, w[t].msg, seed0);
  cr_assert_str_eq(last_kernel(), "", "symvLastKernel is not per thread");
}

/* ---- Workspace and fallback --------------------------------------------- */

/* Device allocations made while `counting`: this program exports its own
 * cudaMalloc and cudaFree (linked -rdynamic, tests/local.mk), which the
 * library, loaded later, binds to; they count and pass on to the CUDA
 * runtime's. */
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static int counting;
static void *allocs[1024]; /* live allocations made while counting */
static int nallocs, nfreed;

cudaError_t cudaMalloc(void **p, size_t size)
{
  static cudaError_t (*real)(void **, size_t);
  if (!real) real = (cudaError_t(*)(void **, size_t))dlsym(RTLD_NEXT, "cudaMalloc");
  cudaError_t e = real(p, size);
  pthread_mutex_lock(&alloc_lock);
  if (counting && e == cudaSuccess && nallocs < 1024) allocs[nallocs++] = *p;
  pthread_mutex_unlock(&alloc_lock);
  return e;
}

cudaError_t cudaFree(void *p)
{
  static cudaError_t (*real)(void *);
  if (!real) real = (cudaError_t(*)(void *))dlsym(RTLD_NEXT, "cudaFree");
  pthread_mutex_lock(&alloc_lock);
  for (int i = 0; p && i < nallocs; i++)
    if (allocs[i] == p) allocs[i] = NULL, nfreed++;
  pthread_mutex_unlock(&alloc_lock);
  return real(p);
}

Test(libsymv, workspace_is_reused_and_freed_at_unload, .init = need_gpu, .timeout = 300)
{
  char path[512];
  snprintf(path, sizeof path, "%s/lib/lib/libsymv.so", libdir());
  cublasHandle_t h;
  cudaStream_t s2;
  h = atomics_handle(); /* the 'any' rules */
  cr_assert_eq(cudaStreamCreate(&s2), cudaSuccess);
  const int n = 12000; /* beyond the range: the lu rule */
  double *dA, *dx, *dy, alpha = 1, beta = 0.5;
  cr_assert_eq(cudaMalloc((void **)&dA, sizeof(double) * n * n), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dx, sizeof(double) * n), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dy, sizeof(double) * n), cudaSuccess);
  cudaMemset(dA, 0, sizeof(double) * n * n), cudaMemset(dx, 0, sizeof(double) * n);
  cudaMemset(dy, 0, sizeof(double) * n);
  cr_assert_eq(dlclose(lib), 0); /* unused so far: this test loads, counts and unloads its own */
  lib = NULL;
  dsymv_fn fn;
  last_fn last;
  void *l = load(path, &fn, NULL, &last);
  static const int ns[4] = {12000, 1000, 2000, 100}; /* lu, atomic_red, atomic, atomic_red */
  int made[3];
  counting = 1;
  for (int round = 0; round < 3; round++) {
    if (round == 2) cr_assert_eq(cublasSetStream(h, s2), CUBLAS_STATUS_SUCCESS); /* a second stream */
    for (int i = 0; i < 40; i++) {
      cr_assert_eq(fn(h, CUBLAS_FILL_MODE_LOWER, ns[i % 4], &alpha, dA, ns[i % 4], dx, 1, &beta, dy, 1),
                   CUBLAS_STATUS_SUCCESS);
      cr_assert_eq(strncmp(last(), "dsymv_", 6), 0, "n = %d ran %s", ns[i % 4], last());
    }
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    made[round] = nallocs;
  }
  cr_assert_gt(made[0], 0, "the first calls allocated no workspace");
  cr_assert_eq(made[1], made[0], "calls of sizes seen before allocate again (%d then %d allocations)", made[0],
               made[1]);
  cr_assert_gt(made[2], made[1], "a second stream got no workspace of its own");
  cr_assert_eq(nfreed, 0, "workspace freed while in use");
  cr_assert_eq(dlclose(l), 0);
  counting = 0;
  cr_assert_eq(nfreed, nallocs, "unloading freed %d of the %d workspace allocations", nfreed, nallocs);
  cudaFree(dA), cudaFree(dx), cudaFree(dy);
  cudaStreamDestroy(s2);
  cublasDestroy(h);
}

/* Runs fn twice at n with stderr captured; returns what it wrote. */
static char *two_calls_captured(dsymv_fn fn, last_fn last, int n, const char *want_kernel)
{
  char log[512];
  snprintf(log, sizeof log, "%s/stderr-%d.txt", libdir(), getpid());
  cublasHandle_t h = atomics_handle();
  unsigned long long seed = 99;
  double *A = malloc(sizeof(double) * n * n), *x = malloc(sizeof(double) * n), *y0 = malloc(sizeof(double) * n),
         *yref = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), alpha = 0.7, beta = -0.4, *dA, *dx, *dy;
  symv_fill_random(SYMV_DSYMV, A, (long)n * n, &seed), symv_fill_random(SYMV_DSYMV, x, n, &seed), symv_fill_random(SYMV_DSYMV, y0, n, &seed);
  memcpy(yref, y0, sizeof(double) * n);
  symv_ref(SYMV_DSYMV, 'U', n, &alpha, A, n, x, 1, &beta, yref, 1);
  cudaMalloc((void **)&dA, sizeof(double) * n * n), cudaMalloc((void **)&dx, sizeof(double) * n);
  cudaMalloc((void **)&dy, sizeof(double) * n);
  cudaMemcpy(dA, A, sizeof(double) * n * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof(double) * n, cudaMemcpyHostToDevice);
  fflush(stderr);
  int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644), saved = dup(2);
  dup2(fd, 2), close(fd);
  for (int i = 0; i < 2; i++) {
    cudaMemcpy(dy, y0, sizeof(double) * n, cudaMemcpyHostToDevice);
    cublasStatus_t st = fn(h, CUBLAS_FILL_MODE_UPPER, n, &alpha, dA, n, dx, 1, &beta, dy, 1);
    fflush(stderr);
    cr_assert_eq(st, CUBLAS_STATUS_SUCCESS);
    cr_assert_str_eq(last(), want_kernel);
    cudaMemcpy(y, dy, sizeof(double) * n, cudaMemcpyDeviceToHost);
    double r = symv_residual(SYMV_DSYMV, 'U', n, &alpha, A, n, x, 1, &beta, y0, y, yref, 1);
    cr_assert(r <= 4.0, "residual %.3g", r);
  }
  dup2(saved, 2), close(saved);
  cudaFree(dA), cudaFree(dx), cudaFree(dy);
  free(A), free(x), free(y0), free(yref), free(y);
  cublasDestroy(h);
  char *text = fix_slurp(log);
  cr_assert_not_null(text);
  return text;
}

static int count(const char *hay, const char *needle)
{
  int k = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) k++;
  return k;
}

/* Copies the fixture's database to NAME.db, runs `sql` on the copy, builds
 * it into NAME/ and loads the library: its handle, *fn and *last set. */
static void *build_tampered(const char *name, const char *sql, dsymv_fn *fn, last_fn *last)
{
  char src[512], dst[512], path[512];
  snprintf(src, sizeof src, "%s/fit.db", libdir());
  snprintf(dst, sizeof dst, "%s/%s.db", libdir(), name);
  cr_assert_eq(fix_copy(src, dst), 0);
  sqlite3 *s;
  cr_assert_eq(sqlite3_open(dst, &s), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sql);
  sqlite3_close(s);
  snprintf(path, sizeof path, "%s.db", name);
  int rc = build_into(libdir(), path, name);
  char *blog;
  snprintf(path, sizeof path, "%s/%s.log", libdir(), name);
  cr_assert_eq(rc, 0, "build: %s", (blog = fix_slurp(path)) ? blog : "");
  snprintf(path, sizeof path, "%s/%s/lib/libsymv.so", libdir(), name);
  return load(path, fn, NULL, last);
}

Test(libsymv, foreign_gpu_goes_to_cublas_told_once, .init = need_gpu, .timeout = 300)
{
  dsymv_fn fn;
  last_fn last;
  void *l = build_tampered("foreign", "UPDATE device SET name = 'Not This GPU'", &fn, &last);
  setenv("SYMV_VERBOSE", "1", 1);
  char *text = two_calls_captured(fn, last, 1000, "cublas"); /* a candidate's rule, on a GPU it was not tuned for */
  cr_assert_eq(count(text, "libsymv: device 0 is a "), 1, "expected one notice:\n%s", text);
  cr_assert_not_null(strstr(text, "not the Not This GPU"), "%s", text);
  free(text);
  dlclose(l);
}

Test(libsymv, kernel_that_cannot_run_goes_to_cublas_told_once, .init = need_gpu, .timeout = 300)
{
  dsymv_fn fn;
  last_fn last;
  /* the atomic candidate of 1501..2500 asks for 40 resident blocks per SM:
   * inside the limits of params.h, beyond what an SM holds */
  void *l = build_tampered("unfit",
                           "UPDATE candidate SET multiplicity = 40 WHERE id = "
                           "(SELECT candidate_id FROM fit_rule WHERE n_start = 1501 AND candidate_id IS NOT NULL)",
                           &fn, &last);
  setenv("SYMV_VERBOSE", "1", 1);
  char *text = two_calls_captured(fn, last, 2000, "cublas");
  cr_assert_eq(count(text, "cannot run on device 0"), 1, "expected one notice:\n%s", text);
  free(text);
  char want[64];
  expected_kernel(1000, want, sizeof want); /* the other candidates still run */
  text = two_calls_captured(fn, last, 1000, want);
  cr_assert_eq(count(text, "libsymv:"), 0, "%s", text);
  free(text);
  dlclose(l);
}

/* ---- The default atomics mode is bitwise reproducible ------------------- */

/* A handle left in cuBLAS's default mode (CUBLAS_ATOMICS_NOT_ALLOWED) gets
 * the same bits from the same inputs, call after call: 50 calls at sizes
 * of each deterministic rule (lu, then cuBLAS without atomics), while
 * another thread keeps the GPU busy with the atomic families through a
 * handle that allowed atomics (which changes the timing of every call). */
typedef struct {
  volatile int stop;
  int calls;
  char msg[256];
} noise_arg;

static void *noise(void *varg)
{
  noise_arg *a = varg;
  cudaStream_t s;
  cublasHandle_t h;
  const int n = 2000; /* the atomic family's rule of the fixture */
  double *dA, *dx, *dy, alpha = 1, beta = 1;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess || cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
      cublasSetStream(h, s) != CUBLAS_STATUS_SUCCESS ||
      cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED) != CUBLAS_STATUS_SUCCESS ||
      cudaMalloc((void **)&dA, sizeof(double) * n * n) != cudaSuccess ||
      cudaMalloc((void **)&dx, sizeof(double) * n) != cudaSuccess ||
      cudaMalloc((void **)&dy, sizeof(double) * n) != cudaSuccess) {
    snprintf(a->msg, sizeof a->msg, "setting up the noise failed");
    return NULL;
  }
  cudaMemsetAsync(dA, 0, sizeof(double) * n * n, s), cudaMemsetAsync(dx, 0, sizeof(double) * n, s);
  cudaMemsetAsync(dy, 0, sizeof(double) * n, s);
  while (!a->stop) {
    if (symv(h, CUBLAS_FILL_MODE_LOWER, n, &alpha, dA, n, dx, 1, &beta, dy, 1) != CUBLAS_STATUS_SUCCESS) {
      snprintf(a->msg, sizeof a->msg, "a noise call failed");
      break;
    }
    if (++a->calls % 16 == 0) cudaStreamSynchronize(s);
  }
  cudaStreamSynchronize(s);
  cudaFree(dA), cudaFree(dx), cudaFree(dy);
  cublasDestroy(h);
  cudaStreamDestroy(s);
  return NULL;
}

Test(libsymv, default_atomics_mode_gives_the_same_bits_every_call, .init = need_gpu, .timeout = 300)
{
  static const int sizes[] = {300, 1200, 3000}; /* lu, lu, cuBLAS without atomics */
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  noise_arg na = {0};
  pthread_t th;
  cr_assert_eq(pthread_create(&th, NULL, noise, &na), 0);
  cublasHandle_t h;
  cr_assert_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS); /* default mode, as a program leaves it */
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    const int n = sizes[si];
    double *A = malloc(sizeof(double) * n * n), *x = malloc(sizeof(double) * n), *y0 = malloc(sizeof(double) * n);
    double *first = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *yref = malloc(sizeof(double) * n);
    double alpha = 0.75, beta = -1.25;
    symv_fill_random(SYMV_DSYMV, A, (long)n * n, &seed), symv_fill_random(SYMV_DSYMV, x, n, &seed);
    symv_fill_random(SYMV_DSYMV, y0, n, &seed);
    double *dA = dev_doubles(A, (size_t)n * n), *dx = dev_doubles(x, n), *dy = dev_doubles(NULL, n);
    char want[64];
    expected_kernel_of(1, n, want, sizeof want);
    for (int call = 0; call < 50; call++) {
      cudaMemcpy(dy, y0, sizeof(double) * n, cudaMemcpyHostToDevice);
      cr_assert_eq(symv(h, CUBLAS_FILL_MODE_LOWER, n, &alpha, dA, n, dx, 1, &beta, dy, 1), CUBLAS_STATUS_SUCCESS);
      cr_assert_str_eq(last_kernel(), want, "n = %d: the default mode ran %s", n, last_kernel());
      cr_assert_eq(cudaMemcpy(call ? y : first, dy, sizeof(double) * n, cudaMemcpyDeviceToHost), cudaSuccess);
      if (call) cr_assert_eq(memcmp(y, first, sizeof(double) * n), 0, "n = %d (%s): call %d differs in its bits (seed "
                             "%llu)", n, want, call, seed0);
    }
    /* and the bits are right: a scaled residual against OpenBLAS */
    memcpy(yref, y0, sizeof(double) * n);
    symv_ref(SYMV_DSYMV, 'L', n, &alpha, A, n, x, 1, &beta, yref, 1);
    double res = symv_residual(SYMV_DSYMV, 'L', n, &alpha, A, n, x, 1, &beta, y0, first, yref, 1);
    cr_assert(res >= 0 && res <= SYMV_RESIDUAL_TOL, "n = %d: scaled residual %g (seed %llu)", n, res, seed0);
    cudaFree(dA), cudaFree(dx), cudaFree(dy);
    free(A), free(x), free(y0), free(first), free(y), free(yref);
  }
  na.stop = 1;
  pthread_join(th, NULL);
  cr_assert_str_eq(na.msg, "", "%s", na.msg);
  cr_assert_gt(na.calls, 10, "the noise thread made only %d calls", na.calls);
  cublasDestroy(h);
}

/* A call captured into a CUDA graph and replayed: pipe and atomic_red keep
 * a count of calls on the host, which a replay would repeat stale, so a
 * captured call of their rules goes to cuBLAS with atomics (lib/libsymv.c,
 * Stream capture). The fixture's 'any' rule at n = 1000 is atomic_red's.
 * Every replay, between calls that advance the count, must be right. */
Test(libsymv, a_captured_call_replays_right, .init = need_gpu, .timeout = 120)
{
  const int n = 1000;
  const unsigned long long seed0 = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  unsigned long long seed = seed0;
  char want[64];
  expected_kernel(n, want, sizeof want);
  cr_assert_not_null(strstr(want, "atomic_red"), "the fixture's rule at n = %d is %s, not atomic_red", n, want);
  double *A = malloc(sizeof(double) * n * n), *x = malloc(sizeof(double) * n), *y0 = malloc(sizeof(double) * n);
  double *y = malloc(sizeof(double) * n), *yref = malloc(sizeof(double) * n);
  double alpha = 1.25, beta = -0.75;
  symv_fill_random(SYMV_DSYMV, A, (long)n * n, &seed), symv_fill_random(SYMV_DSYMV, x, n, &seed);
  double *dA = dev_doubles(A, (size_t)n * n), *dx = dev_doubles(x, n), *dy = dev_doubles(NULL, n);
  cudaStream_t s;
  cublasHandle_t h;
  cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cr_assert_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  cr_assert_eq(cublasSetStream(h, s), CUBLAS_STATUS_SUCCESS);
  cr_assert_eq(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED), CUBLAS_STATUS_SUCCESS);
  /* y := fresh y0 on the device; then the check of dy against OpenBLAS */
  const char *what = "";
#define FRESH_Y()                                                                                                   \
  do {                                                                                                              \
    symv_fill_random(SYMV_DSYMV, y0, n, &seed);                                                                     \
    cr_assert_eq(cudaMemcpyAsync(dy, y0, sizeof(double) * n, cudaMemcpyHostToDevice, s), cudaSuccess);             \
  } while (0)
#define CHECK_Y(round)                                                                                              \
  do {                                                                                                              \
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess, "%s, round %d", what, round);                               \
    cr_assert_eq(cudaMemcpy(y, dy, sizeof(double) * n, cudaMemcpyDeviceToHost), cudaSuccess);                     \
    memcpy(yref, y0, sizeof(double) * n);                                                                           \
    symv_ref(SYMV_DSYMV, 'L', n, &alpha, A, n, x, 1, &beta, yref, 1);                                               \
    double res = symv_residual(SYMV_DSYMV, 'L', n, &alpha, A, n, x, 1, &beta, y0, y, yref, 1);                      \
    cr_assert(res >= 0 && res <= SYMV_RESIDUAL_TOL, "%s, round %d: scaled residual %g (seed %llu)", what, round,    \
              res, seed0);                                                                                          \
  } while (0)
  FRESH_Y();
  cr_assert_eq(symv(h, CUBLAS_FILL_MODE_LOWER, n, &alpha, dA, n, dx, 1, &beta, dy, 1), CUBLAS_STATUS_SUCCESS);
  cr_assert_str_eq(last_kernel(), want);
  what = "an uncaptured call";
  CHECK_Y(0);
  cudaGraph_t g;
  cudaGraphExec_t ge;
  cr_assert_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  cublasStatus_t st = symv(h, CUBLAS_FILL_MODE_LOWER, n, &alpha, dA, n, dx, 1, &beta, dy, 1);
  char during[64];
  snprintf(during, sizeof during, "%s", last_kernel());
  cr_assert_eq(cudaStreamEndCapture(s, &g), cudaSuccess);
  cr_assert_eq(st, CUBLAS_STATUS_SUCCESS);
  cr_assert_eq(cudaGraphInstantiate(&ge, g, 0), cudaSuccess);
  for (int round = 1; round <= 5; round++) {
    FRESH_Y();
    cr_assert_eq(cudaGraphLaunch(ge, s), cudaSuccess);
    what = "a replay";
    CHECK_Y(round);
    for (int c = 0; c < round; c++) { /* calls between replays advance the host's count */
      FRESH_Y();
      cr_assert_eq(symv(h, CUBLAS_FILL_MODE_LOWER, n, &alpha, dA, n, dx, 1, &beta, dy, 1), CUBLAS_STATUS_SUCCESS);
      cr_assert_str_eq(last_kernel(), want);
      what = "an uncaptured call between replays";
      CHECK_Y(round);
    }
  }
#undef FRESH_Y
#undef CHECK_Y
  cr_assert_str_eq(during, "cublas_atomics", "a captured call of %s's rule was served by %s", want, during);
  cudaGraphExecDestroy(ge), cudaGraphDestroy(g);
  cublasDestroy(h);
  cudaStreamDestroy(s);
  cudaFree(dA), cudaFree(dx), cudaFree(dy);
  free(A), free(x), free(y0), free(y), free(yref);
}

/* ---- The wisdom-driven library (build --wisdom) --------------------------- */

extern const symv_command cmd_export_entry;

/* The fixture's database with this GPU's whole fingerprint and, for each of
 * the fixture's candidates, the registers per thread NVRTC gives its kernel
 * here (what the sweep would have recorded on this GPU), exported to
 * LIBDIR/NAME-PID.symvw, PID this process's (path in wpath, 512 bytes). */
static void wisdom_for_this_gpu(const char *name, char *wpath)
{
  char src[512], dbp[512], sql[1024];
  snprintf(src, sizeof src, "%s/fit.db", libdir());
  snprintf(dbp, sizeof dbp, "%s/%s-%d.db", libdir(), name, (int)getpid());
  cr_assert_eq(fix_copy(src, dbp), 0);
  sqlite3 *s;
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_open(dbp, &s), SQLITE_OK);
  cr_assert_eq(sqlite3_prepare_v2(s, "UPDATE device SET name = ?, cc_major = ?, cc_minor = ?, sm_count = ?, "
                                     "l2_bytes = ?, bus_width_bits = ?, smem_per_sm = ?, regs_per_sm = ?",
                                  -1, &st, NULL), SQLITE_OK);
  sqlite3_bind_text(st, 1, dev.name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 2, dev.cc_major);
  sqlite3_bind_int(st, 3, dev.cc_minor);
  sqlite3_bind_int(st, 4, dev.sm_count);
  sqlite3_bind_int64(st, 5, (sqlite3_int64)dev.l2_bytes);
  sqlite3_bind_int(st, 6, dev.bus_width_bits);
  sqlite3_bind_int64(st, 7, (sqlite3_int64)dev.smem_per_sm);
  sqlite3_bind_int(st, 8, dev.regs_per_sm);
  cr_assert_eq(sqlite3_step(st), SQLITE_DONE, "%s", sqlite3_errmsg(s));
  sqlite3_finalize(st);
  db_candidate c[4];
  fixture_candidates(c);
  for (int i = 0; i < 4; i++) {
    const symv_params p = c[i].p;
    symv_cubin cub;
    symv_kernel k;
    char why[512];
    cr_assert_eq(symv_compile(&p, dev.cc_major, dev.cc_minor, &cub, NULL), 0);
    cr_assert_eq(symv_kernel_load(&p, &cub, &dev, &k, why, sizeof why), 0, "%s", why);
    snprintf(sql, sizeof sql, "UPDATE candidate SET regs_per_thread = %d WHERE id = %lld", k.regs, c[i].id);
    symv_kernel_unload(&k);
    symv_cubin_free(&cub);
    cr_assert_eq(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sql);
  }
  sqlite3_close(s);
  snprintf(wpath, 512, "%s/%s-%d.symvw", libdir(), name, (int)getpid());
  char *av[] = {"export", "--db", dbp, "--out", wpath, NULL}, *text;
  int rc = test_run_in_process(cmd_export_entry.run, 5, av, libdir(), &text, &text);
  cr_assert_eq(rc, 0, "export: %s", text);
  free(text);
}

/* The text of file `path` with its first `from` made `to`, written to
 * LIBDIR/NAME-PID.symvw (path in out, 512 bytes). */
static void wisdom_edited(const char *path, const char *from, const char *to, const char *name, char *out)
{
  char *text = fix_slurp(path);
  cr_assert_not_null(text);
  char *at = strstr(text, from);
  cr_assert_not_null(at, "no '%s' in %s", from, path);
  snprintf(out, 512, "%s/%s-%d.symvw", libdir(), name, (int)getpid());
  FILE *f = fopen(out, "w");
  cr_assert_not_null(f);
  fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  cr_assert_eq(fclose(f), 0);
  free(text);
}

/* Loads the --wisdom library with SYMV_WISDOM = `files`, the log on into
 * LIBDIR/NAME-PID.log (path in logpath, 512 bytes) and the kernel cache in
 * LIBDIR/cache. */
static void *load_wisdom_lib(const char *files, const char *name, char *logpath, dsymv_fn *fn, last_fn *last)
{
  char path[512], cache[512];
  built_lib(path, "wlib");
  snprintf(logpath, 512, "%s/%s-%d.log", libdir(), name, (int)getpid());
  snprintf(cache, sizeof cache, "%s/cache", libdir());
  setenv("SYMV_WISDOM", files, 1);
  setenv("SYMVTUNE_CACHE", cache, 1);
  setenv("SYMV_LOG", "1", 1);
  setenv("SYMV_LOG_FILE", logpath, 1);
  return load(path, fn, NULL, last);
}

/* One call of fn at n (uplo L, lda n + 2, strides 1 and -2) on handle h,
 * served by `want`; its residual against OpenBLAS and against cuBLAS. */
static void call_checked(dsymv_fn fn, last_fn last, cublasHandle_t h, int n, const char *want)
{
  static unsigned long long seed0, seed;
  if (!seed0) seed0 = seed = test_fresh_seed(); /* SYMV_TEST_SEED replays it */
  const int lda = n + 2, incy = -2;
  const long ylen = span(n, incy);
  double alpha = 0.75, beta = -0.5;
  double *A = malloc(sizeof(double) * lda * n), *x = malloc(sizeof(double) * n), *y0 = malloc(sizeof(double) * ylen),
         *yref = malloc(sizeof(double) * ylen), *ycub = malloc(sizeof(double) * ylen), *y = malloc(sizeof(double) * ylen);
  cr_assert(A && x && y0 && yref && ycub && y);
  symv_fill_random(SYMV_DSYMV, A, (long)lda * n, &seed);
  symv_fill_random(SYMV_DSYMV, x, n, &seed);
  symv_fill_random(SYMV_DSYMV, y0, ylen, &seed);
  memcpy(yref, y0, sizeof(double) * ylen);
  symv_ref(SYMV_DSYMV, 'L', n, &alpha, A, lda, x, 1, &beta, yref, incy);
  double *dA = dev_doubles(A, (size_t)lda * n), *dx = dev_doubles(x, n), *dy = dev_doubles(NULL, (size_t)ylen);
  cublasHandle_t ref;
  cr_assert_eq(cublasCreate(&ref), CUBLAS_STATUS_SUCCESS);
  cudaMemcpy(dy, y0, sizeof(double) * ylen, cudaMemcpyHostToDevice);
  cr_assert_eq(cublasDsymv(ref, CUBLAS_FILL_MODE_LOWER, n, &alpha, dA, lda, dx, 1, &beta, dy, incy),
               CUBLAS_STATUS_SUCCESS);
  cudaMemcpy(ycub, dy, sizeof(double) * ylen, cudaMemcpyDeviceToHost);
  cublasDestroy(ref);
  cudaMemcpy(dy, y0, sizeof(double) * ylen, cudaMemcpyHostToDevice);
  cublasStatus_t st = fn(h, CUBLAS_FILL_MODE_LOWER, n, &alpha, dA, lda, dx, 1, &beta, dy, incy);
  cr_assert_eq(st, CUBLAS_STATUS_SUCCESS, "n=%d: status %d", n, (int)st);
  cr_assert_str_eq(last(), want, "n=%d: ran %s, expected %s", n, last(), want);
  cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess, "n=%d: %s failed", n, want);
  cudaMemcpy(y, dy, sizeof(double) * ylen, cudaMemcpyDeviceToHost);
  double r1 = symv_residual(SYMV_DSYMV, 'L', n, &alpha, A, lda, x, 1, &beta, y0, y, yref, incy);
  double r2 = symv_residual(SYMV_DSYMV, 'L', n, &alpha, A, lda, x, 1, &beta, y0, y, ycub, incy);
  cr_expect(r1 <= 4.0, "n=%d (%s): residual %.3g against OpenBLAS (seed %llu)", n, want, r1, seed0);
  cr_expect(r2 <= 4.0, "n=%d (%s): residual %.3g against cuBLAS (seed %llu)", n, want, r2, seed0);
  cudaFree(dA), cudaFree(dx), cudaFree(dy);
  free(A), free(x), free(y0), free(yref), free(ycub), free(y);
}

Test(libsymv, wisdom_library_runs_the_rules_of_this_gpus_file, .init = need_gpu, .timeout = 600)
{
  char wpath[512], foreign[512], logpath[512];
  wisdom_for_this_gpu("match", wpath);
  wisdom_edited(wpath, "device.name ", "device.name Not ", "foreign", foreign);
  char files[1700], second[512];
  wisdom_edited(wpath, "symv-wisdom 1\n", "symv-wisdom 1\n# the same GPU again: the first file wins\n", "second", second);
  /* the foreign one first: matched by fingerprint, not order; of two that match, the first */
  snprintf(files, sizeof files, "%s:%s:%s", foreign, wpath, second);
  dsymv_fn fn;
  last_fn last;
  void *l = load_wisdom_lib(files, "wlog", logpath, &fn, &last);
  cublasStatus_t (*get)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(l, "symvGetInfo_v3");
  cr_assert_not_null(get);
  symvInfo info;
  cr_assert_eq(get(&info), CUBLAS_STATUS_SUCCESS);
  /* the file's rules are those compiled into the library built from the same database: one rules id */
  cublasStatus_t (*get_lib)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(lib, "symvGetInfo_v3");
  cr_assert_not_null(get_lib);
  symvInfo compiled;
  cr_assert_eq(get_lib(&compiled), CUBLAS_STATUS_SUCCESS);
  cr_assert_eq(strlen(compiled.rules_id), 12, "'%s'", compiled.rules_id);
  cr_assert_str_eq(info.rules_id, compiled.rules_id, "%s", info.wisdom_report);
  cr_assert_str_eq(info.fits, compiled.fits);
  cr_assert_eq(info.wisdom, 1);
  cr_assert_eq(info.wisdom_files, 3, "%s", info.wisdom_report);
  cr_assert_eq(info.wisdom_accepted, 3, "%s", info.wisdom_report);
  cr_assert_eq(info.device, 0);
  cr_assert_eq(info.device_matched, 1, "%s", info.wisdom_report);
  cr_assert_not_null(info.wisdom_matched);
  cr_assert_str_eq(info.wisdom_matched, wpath);
  cr_assert_str_eq(info.tuned_gpu, dev.name);
  cr_assert_eq(info.tuned_sm_count, dev.sm_count);
  cr_assert_eq(info.rules[SYMV_INFO_DSYMV], FIX_NRULES);
  cr_assert_eq(info.det_rules[SYMV_INFO_DSYMV], FIX_NDET);
  cr_assert_eq(info.rules[SYMV_INFO_ZHEMV], 0);
  cr_assert_eq(info.n_lo[SYMV_INFO_DSYMV], FIX_LO);
  cr_assert_eq(info.n_hi[SYMV_INFO_DSYMV], FIX_HI);
  cublasHandle_t h, hdet;
  h = atomics_handle();
  cr_assert_eq(cublasCreate(&hdet), CUBLAS_STATUS_SUCCESS);
  static const int sizes[] = {100, 1000, 2000, 2900, 3500, 4500};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    char want[64];
    expected_kernel_of(0, sizes[i], want, sizeof want);
    call_checked(fn, last, h, sizes[i], want);
    expected_kernel_of(1, sizes[i], want, sizeof want);
    call_checked(fn, last, hdet, sizes[i], want);
  }
  cublasDestroy(h), cublasDestroy(hdet);
  char *text = fix_slurp(logpath);
  cr_assert_not_null(text);
  char want[700];
  snprintf(want, sizeof want, "libsymv: wisdom device 0: %s matches", wpath);
  cr_assert_not_null(strstr(text, want), "%s", text);
  snprintf(want, sizeof want, "(rule n 32..300) -> CUBLAS_STATUS_SUCCESS (0) wisdom=%s\n", wpath);
  cr_assert_not_null(strstr(text, want), "no '%s' in\n%s", want, text);
  cr_assert_null(strstr(text, "refused"), "%s", text);
  free(text);
  dlclose(l);
}

Test(libsymv, wisdom_library_sends_a_gpu_of_no_file_to_cublas, .init = need_gpu, .timeout = 300)
{
  char wpath[512], foreign[512], logpath[512];
  wisdom_for_this_gpu("match2", wpath);
  wisdom_edited(wpath, "device.sm_count ", "device.sm_count 1", "foreign2", foreign); /* 132 -> 1132 SMs: another GPU */
  dsymv_fn fn;
  last_fn last;
  void *l = load_wisdom_lib(foreign, "wlog2", logpath, &fn, &last);
  cublasHandle_t h = atomics_handle();
  call_checked(fn, last, h, 1000, "cublas"); /* a candidate's rule in the file, which is not of this GPU */
  cublasDestroy(h);
  cublasStatus_t (*get)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(l, "symvGetInfo_v2");
  symvInfo info;
  cr_assert_eq(get(&info), CUBLAS_STATUS_SUCCESS);
  cr_assert_eq(info.wisdom_accepted, 1, "%s", info.wisdom_report);
  cr_assert_null(info.wisdom_matched);
  cr_assert_eq(info.device_matched, 0);
  cr_assert_eq(info.rules[SYMV_INFO_DSYMV], 0);
  char *text = fix_slurp(logpath);
  cr_assert_not_null(text);
  cr_assert_not_null(strstr(text, "libsymv: wisdom device 0: no accepted file"), "%s", text);
  char want[700];
  snprintf(want, sizeof want, "libsymv: wisdom device 0: %s does not match: sm_count %d, not 1%d\n", foreign,
           dev.sm_count, dev.sm_count);
  cr_assert_not_null(strstr(text, want), "no '%s' in\n%s", want, text);
  cr_assert_not_null(strstr(text, ": cuBLAS (fallback: device 0 matches no wisdom file) -> CUBLAS_STATUS_SUCCESS (0) "
                                  "wisdom=none\n"), "%s", text);
  free(text);
  dlclose(l);
}

Test(libsymv, wisdom_library_refuses_a_kernel_of_other_registers, .init = need_gpu, .timeout = 300)
{
  char wpath[512], edited[512], logpath[512];
  wisdom_for_this_gpu("regs", wpath);
  /* the atomic candidate of 1501..2500: its recorded registers one more than NVRTC gives it here */
  char *text = fix_slurp(wpath);
  cr_assert_not_null(text);
  char *r = strstr(text, "\nrule 1501 2500 ");
  cr_assert_not_null(r, "%s", text);
  char line[256], from[300], to[300];
  snprintf(line, sizeof line, "%.*s", (int)(strchr(r + 1, '\n') - r - 1), r + 1);
  char *last_sp = strrchr(line, ' ');
  *last_sp = 0;
  char *regs_sp = strrchr(line, ' ');
  int regs = atoi(regs_sp + 1), occ = atoi(last_sp + 1);
  snprintf(from, sizeof from, "%s %d\n", line, occ);
  *regs_sp = 0;
  snprintf(to, sizeof to, "%s %d %d\n", line, regs < 255 ? regs + 1 : regs - 1, occ);
  free(text);
  wisdom_edited(wpath, from, to, "regs-edited", edited);
  dsymv_fn fn;
  last_fn last;
  void *l = load_wisdom_lib(edited, "wlog3", logpath, &fn, &last);
  cublasHandle_t h = atomics_handle();
  call_checked(fn, last, h, 2000, "cublas");
  call_checked(fn, last, h, 2100, "cublas"); /* refused once, remembered */
  char want[64];
  expected_kernel(1000, want, sizeof want);
  call_checked(fn, last, h, 1000, want); /* the others still run */
  cublasDestroy(h);
  text = fix_slurp(logpath);
  cr_assert_not_null(text);
  cr_assert_eq(count(text, " refused: "), 1, "%s", text);
  cr_assert_not_null(strstr(text, "registers per thread and"), "%s", text);
  cr_assert_not_null(strstr(text, "(fallback: kernel "), "%s", text);
  free(text);
  dlclose(l);
}

/* Dispatch at both ends of every rule of both sets, and past the first and
 * the last: the call goes by the rule that holds n, else the nearest end
 * one. Without a GPU (none is shown to the program) a rule naming cuBLAS
 * calls the stand-in in its mode and the log names the rule; one naming a
 * kernel falls back to cuBLAS as called. */
Test(libsymv, dispatch_at_the_ends_of_every_rule, .init = need_lib, .timeout = 120)
{
  char exe[512], log[512], cmd[4096], *text;
  mode_prog_build("ends", exe, log);
  for (int det = 0; det < 2; det++) {
    const fix_rule *rules = det ? fix_det_rules : fix_rules;
    const int count = det ? FIX_NDET : FIX_NRULES, mode = det ? CUBLAS_ATOMICS_NOT_ALLOWED : CUBLAS_ATOMICS_ALLOWED;
    for (int i = 0; i < count; i++) {
      const fix_rule *r = &rules[i];
      int ns[4], m = 0;
      ns[m++] = r->n_start, ns[m++] = r->n_end;
      if (i == 0) ns[m++] = r->n_start - 1;
      if (i == count - 1) ns[m++] = r->n_end + 1;
      for (int k = 0; k < m; k++) {
        char want[160], rule[80];
        const int atomics = r->cand < 0 && !strcmp(r->kernel, DB_KERNEL_CUBLAS_ATOMICS);
        snprintf(cmd, sizeof cmd, "SYMV_LOG=1 CUDA_VISIBLE_DEVICES= '%s' %d %d", exe, ns[k], mode);
        int rc = fix_sh(cmd, log, &text);
        cr_assert_eq(rc, 0, "%s: exit %d\n%s", cmd, rc, text);
        snprintf(want, sizeof want, "status 0 calls 1 seen %d after %d kernel %s\n",
                 r->cand >= 0 ? mode : atomics ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED, mode,
                 r->cand >= 0 ? "cublas" : r->kernel);
        if (r->cand >= 0) snprintf(rule, sizeof rule, "(fallback: ");
        else snprintf(rule, sizeof rule, "(%srule n %d..%d)", det ? "deterministic " : "", r->n_start, r->n_end);
        cr_assert_not_null(strstr(text, want), "%s rules, n = %d: not by rule %d..%d (%s):\n%s",
                           det ? "deterministic" : "'any'", ns[k], r->n_start, r->n_end, r->kernel, text);
        cr_assert_not_null(strstr(text, rule), "%s rules, n = %d: not by rule %d..%d (%s):\n%s",
                           det ? "deterministic" : "'any'", ns[k], r->n_start, r->n_end, r->kernel, text);
        free(text);
      }
    }
  }
}
