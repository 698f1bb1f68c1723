/* NVRTC compiles a sample of every family for sm_90 (no GPU needed), and the
 * cache returns the same code without compiling again. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "compile.h"
#include "symv_error.h"
#include "test_util.h"

static char cache_dir[] = "/tmp/symvtune-test-cacheXXXXXX";

static void setup(void)
{
  cr_assert_not_null(mkdtemp(cache_dir));
  setenv("SYMVTUNE_CACHE", cache_dir, 1);
}

static void teardown(void) { test_rmtree(cache_dir); }

/* ELF magic at the start of a CUBIN */
static int is_elf(const symv_cubin *c) { return c->size > 4 && !memcmp(c->data, "\177ELF", 4); }

Test(compile, every_family_compiles_for_sm90_and_is_cached, .init = setup, .fini = teardown, .timeout = 120)
{
  const symv_params pts[] = {
    {SYMV_FAMILY_ATOMIC, 128, 16, 4, 0}, {SYMV_FAMILY_ATOMIC, 32, 8, 1, 9},  {SYMV_FAMILY_ATOMIC, 256, 32, 1, 4},
    {SYMV_FAMILY_ATOMIC_RED, 64, 13, 2, 7}, {SYMV_FAMILY_LU, 128, 16, 1, 0}, {SYMV_FAMILY_LU, 32, 1, 1, 5},
    {SYMV_FAMILY_FLOOR, 256, 1, 8, 0}, {SYMV_FAMILY_ATOMIC_W, 64, 16, 8, 1}, {SYMV_FAMILY_ATOMIC_W, 96, 11, 2, 4},
    {SYMV_FAMILY_PANEL, 256, 4, 4, 3}, {SYMV_FAMILY_PANEL, 64, 16, 2, 0},
    {SYMV_FAMILY_PIPE, 256, 64, 2, 0}, {SYMV_FAMILY_PIPE, 1024, 16, 1, 2},
  };
  for (size_t i = 0; i < sizeof pts / sizeof *pts; i++) {
    symv_cubin a, b;
    char *log = NULL;
    int rc = symv_compile(&pts[i], 9, 0, &a, &log);
    cr_assert_eq(rc, 0, "point %zu: %s: %s", i, symv_strerror(rc), log ? log : "");
    cr_assert(is_elf(&a));
    cr_assert_eq(a.from_cache, 0);
    cr_assert(a.compile_ms > 0);
    char name[64];
    symv_kernel_name(&pts[i], name, sizeof name);
    cr_assert_str_eq(a.name, name);
    /* a second compile of the same code, even at another MULTIPLICITY, is a cache hit */
    symv_params q = pts[i];
    q.multiplicity = 3;
    cr_assert_eq(symv_compile(&q, 9, 0, &b, NULL), 0);
    cr_assert_eq(b.from_cache, 1);
    cr_assert_eq(a.size, b.size);
    cr_assert_eq(memcmp(a.data, b.data, a.size), 0);
    symv_cubin_free(&a);
    symv_cubin_free(&b);
  }
}

Test(compile, another_architecture_is_not_served_from_cache, .init = setup, .fini = teardown, .timeout = 60)
{
  symv_params p = {SYMV_FAMILY_LU, 64, 8, 1, 0};
  symv_cubin a, b;
  cr_assert_eq(symv_compile(&p, 9, 0, &a, NULL), 0);
  cr_assert_eq(symv_compile(&p, 8, 0, &b, NULL), 0);
  cr_assert_eq(b.from_cache, 0, "sm_80 must not reuse sm_90 code");
  symv_cubin_free(&a);
  symv_cubin_free(&b);
}

Test(compile, bad_parameters_and_architecture_are_rejected, .init = setup, .fini = teardown)
{
  symv_params p = {SYMV_FAMILY_ATOMIC, 100, 8, 1, 0};
  symv_cubin c;
  cr_assert_eq(symv_compile(&p, 9, 0, &c, NULL), SYMV_INVALID_VALUE);
  p.block_size = 128;
  cr_assert_eq(symv_compile(&p, 1, 0, &c, NULL), SYMV_INVALID_VALUE);
}

Test(compile, defines_name_the_source)
{
  symv_params p = {SYMV_FAMILY_LU, 64, 8, 2, 3};
  const char *src;
  char buf[256];
  symv_compile_defines(&p, buf, sizeof buf, &src);
  cr_assert_str_eq(src, "symv_lu.cu");
  cr_assert_not_null(strstr(buf, "-DBLOCK_SIZE=64 "));
  cr_assert_not_null(strstr(buf, "-DUX=8 "));
  cr_assert_not_null(strstr(buf, "-DMX=3 "));
}
