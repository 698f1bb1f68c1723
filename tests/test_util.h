/* SPDX-License-Identifier: BSD-3-Clause */
/* test_util.h - helpers shared by the tests: running the symvtune program, removing temporary folders. */
#ifndef SYMV_TEST_UTIL_H
#define SYMV_TEST_UTIL_H
#include <stddef.h>
#include <stdint.h>

/** test_symvtune_path: the symvtune program the tests run: $SYMVTUNE_BIN,
 *  else ../src/symvtune from the test program's folder (the build tree),
 *  else symvtune beside it (a bundle of programs). A static buffer. */
const char *test_symvtune_path(void);

/** run_symvtune: runs the symvtune program (SYMVTUNE_BIN, else ../src/symvtune
 *  relative to the test program, else symvtune beside it) with args (argv,
 *  NULL-terminated, args[0] = "symvtune"), standard output discarded,
 *  standard error captured into err (errlen bytes, NUL-terminated).
 *  Returns its exit status, 128 if it died of a signal. */
int run_symvtune(char *err, size_t errlen, char *const args[]);

/** run_symvtune_all: run_symvtune with standard output and standard error
 *  together into out (len bytes, NUL-terminated; the rest is dropped). */
int run_symvtune_all(char *out, size_t len, char *const args[]);

/** test_rmtree: removes dir and everything below it (rm -rf); NULL or ""
 *  is a no-op. */
void test_rmtree(const char *dir);

/** test_tmpdir: makes a new folder /tmp/symvtune-test-NAME-XXXXXX (mkdtemp)
 *  and writes its path into dir (len bytes); fails the test where it
 *  cannot. */
void test_tmpdir(char *dir, size_t len, const char *name);

/** test_tmpdir_remove: test_rmtree(dir), unless SYMV_TEST_KEEP is set (the
 *  folder is kept to look at after a failure). */
void test_tmpdir_remove(const char *dir);

/** test_path: "DIR/name" into buf (512 bytes, truncated beyond); returns
 *  buf. */
char *test_path(char *buf, const char *dir, const char *name);

/** test_exe_dir: the folder of the running test program (the build tree's
 *  tests/, or a bundle's bin/) into buf (len bytes); returns buf. Fails the
 *  test if /proc/self/exe cannot be read or does not fit. */
char *test_exe_dir(char *buf, size_t len);

/** test_fake_worker: points SYMVTUNE_WORKER at tests/fake_worker, the
 *  stand-in for `symvtune worker` built beside the test program; fails the
 *  test if it is not there. */
void test_fake_worker(void);

/** test_sh: runs cmd through the shell, its standard output and standard
 *  error into the file log; returns its exit status (-1 if it did not
 *  exit), the output in *text (malloc'ed, "" if the log cannot be read;
 *  free() it). */
int test_sh(const char *cmd, const char *log, char **text);

/** test_slurp: the whole file at path (malloc'ed, NUL-terminated past its
 *  *len bytes; free() it); NULL if it cannot be read. */
unsigned char *test_slurp(const char *path, long *len);

/** test_put_file: writes `text` to the file at path (replacing it), mode
 *  0755 if executable (a stand-in script), else as created; fails the
 *  test if it cannot. */
void test_put_file(const char *path, const char *text, int executable);

/** test_put_standin_nvcc: an executable at path that stands in for nvcc
 *  and needs no CUDA: it writes the file its -o names, a line for an
 *  object and `lib_bytes` zero bytes for a link (a name ending .so.tmp,
 *  as `symvtune build` links). It lifts the file size limit, so that only
 *  the caller's own writes meet one it sets. */
void test_put_standin_nvcc(const char *path, long lib_bytes);

/** test_run_in_process: runs a command's entry run(argc, argv) (argv[0]
 *  the command's name, argv[argc] NULL) in this process, its standard
 *  output and standard error sent to files in dir and read back into *out
 *  and *err (malloc'ed, "" if empty; free() them; either may be NULL). With
 *  out == err both streams go, interleaved, into the one text. Returns the
 *  command's exit status. */
int test_run_in_process(int (*run)(int, char **), int argc, char **argv, const char *dir, char **out, char **err);

/* Seedable random numbers for tests (splitmix64: the same on every
 * platform): test_rng_next a 64-bit word, test_rng_unit uniform in [0, 1),
 * test_rng_int uniform in lo..hi, test_rng_normal standard normal
 * (Box-Muller). All advance the state *x. */
uint64_t test_rng_next(uint64_t *x);
double test_rng_unit(uint64_t *x);
int test_rng_int(uint64_t *x, int lo, int hi);
double test_rng_normal(uint64_t *x);

/** test_skip_without_gpu: ends the calling test (its body or its .init)
 *  for want of a CUDA device, `why` saying so: the test is skipped, or,
 *  where SYMV_REQUIRE_GPU=1 is set (the GPU runs set it: scripts/gpu-run,
 *  scripts/gpu-final), failed, so that a run meant to test the GPU cannot
 *  pass by skipping. Does not return. */
void test_skip_without_gpu(const char *why);

/** test_fresh_seed: a new seed every run, or SYMV_TEST_SEED=<seed> to replay
 *  a failure (tests print the seed they used). */
uint64_t test_fresh_seed(void);

/** test_sql_int: the first column of the first row of sql on the SQLite
 *  database at path, opened read-only; fails the test where it cannot. */
long long test_sql_int(const char *path, const char *sql);

/** test_sql_exec: runs sql (statements) on the database at path; fails the
 *  test on an error, with SQLite's message. */
void test_sql_exec(const char *path, const char *sql);

/** test_json_check: 0 if text[0..len) is exactly one JSON value (RFC 8259:
 *  objects, arrays, strings with their escapes, numbers, true, false,
 *  null; blanks around it), else -1 with why (whylen bytes) saying what
 *  is wrong and where (byte offset and line). Checks the syntax only; a
 *  document's content is read with jq. */
int test_json_check(const char *text, size_t len, char *why, size_t whylen);

#endif
