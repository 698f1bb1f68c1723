/* test_util.h - helpers shared by the tests: running the symvtune program, removing temporary folders. */
#ifndef SYMV_TEST_UTIL_H
#define SYMV_TEST_UTIL_H
#include <stddef.h>

/** run_symvtune: runs the symvtune program (SYMVTUNE_BIN, else ../src/symvtune
 *  relative to the test program, else symvtune beside it) with args (argv,
 *  NULL-terminated, args[0] = "symvtune"), standard output discarded,
 *  standard error captured into err (errlen bytes, NUL-terminated).
 *  Returns its exit status, 128 if it died of a signal. */
int run_symvtune(char *err, size_t errlen, char *const args[]);

/** test_rmtree: removes dir and everything below it (rm -rf); NULL or ""
 *  is a no-op. */
void test_rmtree(const char *dir);

#endif
