/* SPDX-License-Identifier: BSD-3-Clause */
/* NVRTC compiles a sample of every family for sm_90 (no GPU needed), and the
 * cache returns the same code without compiling again. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <elf.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "compile.h"
#include "space.h"
#include "routine.h"
#include "params.h"
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
    {SYMV_FAMILY_PIPE_DET, 256, 64, 2, 0}, {SYMV_FAMILY_PIPE_DET, 1024, 16, 1, 2}, {SYMV_FAMILY_PIPE_DET, 64, 1, 1, 1},
    {SYMV_FAMILY_PIPE_FX, 256, 64, 2, 0}, {SYMV_FAMILY_PIPE_FX, 512, 128, 1, 1},
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

/* symv_code_id names the code a point compiles to: 16 hex digits, the same
 * for points that differ in MULTIPLICITY only (one kernel), different for
 * another BLOCK_SIZE, UX, MX, routine or family; bad points are refused. */
Test(compile, the_code_id_names_the_code_not_the_multiplicity)
{
  const symv_params base = {SYMV_FAMILY_PIPE_DET, 256, 64, 2, 0, SYMV_SSYMV};
  char id[17], other[17];
  cr_assert_eq(symv_code_id(&base, id), 0);
  cr_assert_eq(strlen(id), 16);
  cr_assert_eq(strspn(id, "0123456789abcdef"), 16, "%s", id);
  symv_params p = base;
  p.multiplicity = 3;
  cr_assert_eq(symv_code_id(&p, other), 0);
  cr_expect_str_eq(other, id, "MULTIPLICITY is a launch setting, not code");
  const symv_params changed[] = {
      {SYMV_FAMILY_PIPE_DET, 128, 64, 2, 0, SYMV_SSYMV}, {SYMV_FAMILY_PIPE_DET, 256, 32, 2, 0, SYMV_SSYMV},
      {SYMV_FAMILY_PIPE_DET, 256, 64, 2, 3, SYMV_SSYMV}, {SYMV_FAMILY_PIPE_DET, 256, 64, 2, 0, SYMV_DSYMV},
      {SYMV_FAMILY_PIPE, 256, 64, 2, 0, SYMV_SSYMV}};
  for (size_t i = 0; i < sizeof changed / sizeof *changed; i++) {
    cr_assert_eq(symv_code_id(&changed[i], other), 0);
    cr_expect_str_neq(other, id, "point %zu has the id of another's code", i);
  }
  p = base;
  p.block_size = 100;
  cr_expect_eq(symv_code_id(&p, other), SYMV_INVALID_VALUE);
  cr_expect_eq(symv_code_id(&base, NULL), SYMV_INVALID_VALUE);
}

/* A deterministic pipe family f, for every routine, through NVRTC as the
 * tuner compiles it: the entry point carries the routine and the family
 * (tag, "_pipe_det_b"), sm_80 (the first with cp.async) compiles too, and
 * the defines name its source src. */
static void compiles_for_every_routine(symv_family f, const char *tag, const char *src_want)
{
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const symv_params p = {f, r % 2 ? 128 : 256, r % 2 ? 32 : 64, 2, r % 3, (symv_routine)r};
    symv_cubin c;
    char *log = NULL, name[64];
    int rc = symv_compile(&p, r == 5 ? 8 : 9, 0, &c, &log);
    cr_assert_eq(rc, 0, "routine %d: %s: %s", r, symv_strerror(rc), log ? log : "");
    cr_assert(is_elf(&c));
    symv_kernel_name(&p, name, sizeof name);
    cr_assert_str_eq(c.name, name);
    cr_assert_not_null(strstr(c.name, tag), "%s", c.name);
    symv_cubin_free(&c);
    free(log);
  }
  const symv_params p = {f, 128, 32, 1, 1};
  const char *src;
  char buf[256];
  symv_compile_defines(&p, buf, sizeof buf, &src);
  cr_assert_str_eq(src, src_want);
}

Test(compile, pipe_det_compiles_for_every_routine, .init = setup, .fini = teardown, .timeout = 120)
{
  compiles_for_every_routine(SYMV_FAMILY_PIPE_DET, "_pipe_det_b", "symv_pipe_det.cu");
}

/* pipe_fx includes kernels/symv_fx.h, which NVRTC finds among the embedded
 * sources, and compiles with UX 128 too */
Test(compile, pipe_fx_compiles_for_every_routine, .init = setup, .fini = teardown, .timeout = 120)
{
  compiles_for_every_routine(SYMV_FAMILY_PIPE_FX, "_pipe_fx_b", "symv_pipe_fx.cu");
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++) {
    const symv_params p = {SYMV_FAMILY_PIPE_FX, 512, 128, 1, 2, (symv_routine)r};
    symv_cubin c;
    char *log = NULL;
    int rc = symv_compile(&p, 9, 0, &c, &log);
    cr_assert_eq(rc, 0, "routine %d: %s: %s", r, symv_strerror(rc), log ? log : "");
    symv_cubin_free(&c);
    free(log);
  }
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

/* The cache entry of kernel `name` in cache_dir (asserts there is one). */
static void entry_path(const char *name, char *buf, size_t len)
{
  char prefix[96];
  snprintf(prefix, sizeof prefix, "%s-sm90-", name);
  DIR *d = opendir(cache_dir);
  cr_assert_not_null(d);
  struct dirent *e;
  int found = 0;
  while (!found && (e = readdir(d)))
    if (!strncmp(e->d_name, prefix, strlen(prefix)) && !strstr(e->d_name, ".entry.")) {
      snprintf(buf, len, "%s/%s", cache_dir, e->d_name);
      found = 1;
    }
  closedir(d);
  cr_assert(found, "no cache entry for %s", name);
}

static void put_bytes(const char *path, const void *data, size_t size)
{
  unlink(path);
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(data, 1, size, f), size);
  cr_assert_eq(fclose(f), 0);
}

/* Compiles p; asserts that its code is `want` (compiled, not read from the
 * cache, unless cached), and that the entry is whole again afterwards (the
 * next call reads it). */
static void compile_expect(const symv_params *p, const symv_cubin *want, int cached, const char *what)
{
  symv_cubin c;
  cr_assert_eq(symv_compile(p, 9, 0, &c, NULL), 0, "%s", what);
  cr_assert_eq(c.from_cache, cached, "%s: from_cache %d", what, c.from_cache);
  cr_assert_str_eq(c.name, want->name, "%s", what);
  cr_assert(c.size == want->size && !memcmp(c.data, want->data, c.size), "%s: not the candidate's code", what);
  symv_cubin_free(&c);
  if (!cached) compile_expect(p, want, 1, what);
}

/* What is at a cache key is checked: another kernel's code, a cut file, an
 * older header-less entry, a symbolic link, a FIFO or a folder there is a
 * miss (compiled again, and the entry replaced where it can be), never the
 * candidate's code nor a hang. */
Test(compile, a_bad_cache_entry_is_a_miss_and_is_replaced, .init = setup, .fini = teardown, .timeout = 120)
{
  const symv_params p = {SYMV_FAMILY_LU, 32, 1, 1, 0}, q = {SYMV_FAMILY_LU, 32, 2, 1, 0};
  symv_cubin a, b;
  cr_assert_eq(symv_compile(&p, 9, 0, &a, NULL), 0);
  cr_assert_eq(symv_compile(&q, 9, 0, &b, NULL), 0);
  char pa[1024], pb[1024], other[1100];
  entry_path(a.name, pa, sizeof pa);
  entry_path(b.name, pb, sizeof pb);
  long la, lb;
  unsigned char *ea = test_slurp(pa, &la), *eb = test_slurp(pb, &lb);
  cr_assert(ea && eb && la > 0 && lb > 0);

  put_bytes(pa, eb, (size_t)lb); /* another kernel's entry at p's key */
  compile_expect(&p, &a, 0, "another kernel's entry");
  put_bytes(pa, ea, (size_t)la / 2); /* cut short */
  compile_expect(&p, &a, 0, "a truncated entry");
  put_bytes(pa, ea, (size_t)la - 1);
  compile_expect(&p, &a, 0, "an entry one byte short");
  ea[la - 1] ^= 0x20; /* one byte changed */
  put_bytes(pa, ea, (size_t)la);
  ea[la - 1] ^= 0x20;
  compile_expect(&p, &a, 0, "a damaged entry");
  put_bytes(pa, a.data, a.size); /* a bare CUBIN, as older versions wrote */
  compile_expect(&p, &a, 0, "a header-less entry");
  put_bytes(pa, "", 0);
  compile_expect(&p, &a, 0, "an empty entry");

  snprintf(other, sizeof other, "%s.elsewhere", pa); /* a valid entry, through a link */
  put_bytes(other, ea, (size_t)la);
  unlink(pa);
  cr_assert_eq(symlink(other, pa), 0);
  compile_expect(&p, &a, 0, "a symbolic link");
  struct stat st;
  cr_assert_eq(lstat(pa, &st), 0);
  cr_assert(S_ISREG(st.st_mode), "the link was not replaced");

  unlink(pa);
  cr_assert_eq(mkfifo(pa, 0600), 0);
  compile_expect(&p, &a, 0, "a FIFO");

  unlink(pa);
  cr_assert_eq(mkdir(pa, 0700), 0);
  symv_cubin c;
  cr_assert_eq(symv_compile(&p, 9, 0, &c, NULL), 0);
  cr_assert_eq(c.from_cache, 0);
  cr_assert(c.size == a.size && !memcmp(c.data, a.data, a.size));
  symv_cubin_free(&c);
  rmdir(pa);

  free(ea), free(eb);
  symv_cubin_free(&a);
  symv_cubin_free(&b);
}

/* The bytes of section `want` of the ELF64 image c (0 if it has none). */
static unsigned long long elf_section_size(const symv_cubin *c, const char *want)
{
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)c->data;
  cr_assert(c->size >= sizeof *eh && eh->e_ident[EI_CLASS] == ELFCLASS64);
  cr_assert(eh->e_shoff + (unsigned long long)eh->e_shnum * sizeof(Elf64_Shdr) <= c->size);
  const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)c->data + eh->e_shoff);
  const char *names = (const char *)c->data + sh[eh->e_shstrndx].sh_offset;
  for (int i = 0; i < eh->e_shnum; i++)
    if (!strcmp(names + sh[i].sh_name, want)) return sh[i].sh_size;
  return 0;
}

/* The static shared memory the space's filter counts for a point
 * (symv_static_smem, measure/space.c) is at least what the compiled kernel
 * declares (its .nv.shared section), and within 64 bytes of it, so that
 * the filter neither admits a MULTIPLICITY the GPU cannot hold nor drops
 * one it can: pipe points of 1 and 4 rows a thread (SSYMV), every routine's
 * element size, and a point of each other tunable family. */
Test(compile, the_filter_counts_the_static_shared_memory_of_the_compiled_kernel, .init = setup, .fini = teardown,
     .timeout = 300)
{
  const symv_params pts[] = {
    {SYMV_FAMILY_PIPE, 128, 64, 4, 0},     {SYMV_FAMILY_PIPE, 512, 16, 1, 1},     {SYMV_FAMILY_PIPE_DET, 256, 128, 2, 3},
    {SYMV_FAMILY_PIPE_DET, 256, 8, 2, 0},  {SYMV_FAMILY_PIPE_FX, 256, 64, 2, 0},  {SYMV_FAMILY_PIPE_FX, 128, 32, 2, 3},
    {SYMV_FAMILY_ATOMIC, 128, 16, 4, 0},   {SYMV_FAMILY_ATOMIC_RED, 64, 13, 2, 7}, {SYMV_FAMILY_ATOMIC_W, 96, 11, 2, 4},
    {SYMV_FAMILY_LU, 128, 16, 1, 0},       {SYMV_FAMILY_PANEL, 256, 4, 4, 3},
  };
  const symv_routine ros[] = {SYMV_SSYMV, SYMV_DSYMV, SYMV_ZHEMV};
  for (size_t i = 0; i < sizeof pts / sizeof *pts; i++)
    for (size_t r = 0; r < sizeof ros / sizeof *ros; r++) {
      symv_params p = pts[i];
      p.routine = ros[r];
      if (!symv_family_pipelined(p.family) && r == 1) continue; /* the other families: two element sizes */
      symv_cubin c;
      char *log = NULL, name[64], sec[96];
      int rc = symv_compile(&p, 9, 0, &c, &log);
      cr_assert_eq(rc, 0, "point %zu %s: %s: %s", i, symv_routine_name(p.routine), symv_strerror(rc), log ? log : "");
      symv_kernel_name(&p, name, sizeof name);
      snprintf(sec, sizeof sec, ".nv.shared.%s", name);
      /* sm_90 reserves the first 1 KB of a block's shared memory window; the kernel's section spans the
       * window from address 0, that 1 KB included (nvcc's --resource-usage reports it less the 1 KB) */
      const long have = (long)elf_section_size(&c, sec) - 1024, counted = symv_static_smem(&p);
      cr_assert(counted >= have && counted - have < 64, "%s: the filter counts %ld bytes of static shared memory, the kernel has %ld",
                name, counted, have);
      symv_cubin_free(&c);
    }
}
