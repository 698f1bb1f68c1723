/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cubin.c - compiles the plan's kernels with NVRTC, as the sweep does
 * (cubin.h).
 */
#include <elf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cubin.h"
#include "compile.h"
#include "progress.h"
#include "symv_error.h"

/* Section i's header of the ELF b[size] (its header eh checked) into sh;
 * 1 if its contents lie within b (a SHT_NOBITS section has none there). */
static int section(const unsigned char *b, const Elf64_Ehdr *eh, unsigned i, size_t size, Elf64_Shdr *sh)
{
  if (i >= eh->e_shnum) return 0;
  memcpy(sh, b + eh->e_shoff + (size_t)i * sizeof *sh, sizeof *sh);
  return sh->sh_type != SHT_NOBITS && sh->sh_offset <= size && sh->sh_size <= size - sh->sh_offset;
}

/* 1 if the NUL-terminated string at offset off of section strtab is s. */
static int named(const unsigned char *b, const Elf64_Shdr *strtab, size_t off, const char *s)
{
  size_t l = strlen(s);
  return off < strtab->sh_size && strtab->sh_size - off > l && !memcmp(b + strtab->sh_offset + off, s, l + 1);
}

int libgen_cubin_regs(const void *data, size_t size, const char *name)
{
  enum { EIFMT_SVAL = 4, EIATTR_REGCOUNT = 0x2f };
  const unsigned char *b = data;
  Elf64_Ehdr eh;
  Elf64_Shdr names, sh, info = {0}, symtab = {0}, strtab;
  if (!b || !name || size < sizeof eh || memcmp(b, ELFMAG, SELFMAG) || b[EI_CLASS] != ELFCLASS64 ||
      b[EI_DATA] != ELFDATA2LSB)
    return -1;
  memcpy(&eh, b, sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum || !section(b, &eh, eh.e_shstrndx, size, &names))
    return -1;
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    if (!section(b, &eh, i, size, &sh)) continue;
    if (sh.sh_type == SHT_SYMTAB) symtab = sh;
    else if (named(b, &names, sh.sh_name, ".nv.info")) info = sh;
  }
  if (!info.sh_size || symtab.sh_entsize != sizeof(Elf64_Sym) || !section(b, &eh, symtab.sh_link, size, &strtab))
    return -1;
  /* .nv.info: attributes of 4 bytes (format, attribute, 2 bytes), those of
   * format SVAL followed by as many bytes as the last two say; REGCOUNT's
   * are the symbol's index and the count, 4 bytes each */
  const unsigned char *a = b + info.sh_offset, *end = a + info.sh_size;
  while (end - a >= 4) {
    unsigned len = a[2] | (unsigned)a[3] << 8;
    if (a[0] != EIFMT_SVAL) len = 0;
    if ((size_t)(end - a - 4) < len) return -1;
    if (a[0] == EIFMT_SVAL && a[1] == EIATTR_REGCOUNT && len == 8) {
      uint32_t sym, regs;
      Elf64_Sym st;
      memcpy(&sym, a + 4, 4), memcpy(&regs, a + 8, 4);
      if (sym < symtab.sh_size / sizeof st) {
        memcpy(&st, b + symtab.sh_offset + (size_t)sym * sizeof st, sizeof st);
        if (named(b, &strtab, st.st_name, name)) return regs <= 255 ? (int)regs : -1;
      }
    }
    a += 4 + len;
  }
  return -1;
}

/* The kernels still to compile, shared by the threads. */
typedef struct {
  libgen_plan *pl;
  int next, done, failed;
  int rc;       /* the first failure's SYMV_ code */
  int bad;      /* its kernel */
  char *log;    /* its NVRTC log */
  symv_progress prog;
  pthread_mutex_t mu;
} pool;

static void *compile_thread(void *arg)
{
  pool *q = arg;
  for (;;) {
    pthread_mutex_lock(&q->mu);
    int k = !q->failed && q->next < q->pl->nkernels ? q->next++ : -1;
    pthread_mutex_unlock(&q->mu);
    if (k < 0) return NULL;
    libgen_kernel *bk = &q->pl->kernels[k];
    char *log = NULL;
    int rc = symv_compile(&bk->p, q->pl->dev.cc_major, q->pl->dev.cc_minor, &bk->cubin, &log);
    if (!rc) {
      int regs = libgen_cubin_regs(bk->cubin.data, bk->cubin.size, bk->name);
      bk->cubin_regs = regs > 0 ? regs : 0;
    }
    pthread_mutex_lock(&q->mu);
    if (rc && !q->failed) q->failed = 1, q->rc = rc, q->bad = k, q->log = log, log = NULL;
    q->done++;
    symv_progress_update(&q->prog, q->done, bk->name);
    pthread_mutex_unlock(&q->mu);
    free(log);
  }
}

int libgen_compile_kernels(libgen_plan *pl, int par)
{
  if (pl->nkernels == 0) return 0;
  enum { MAX_THREADS = 64 };
  pool q = {.pl = pl};
  pthread_t th[MAX_THREADS];
  int nth = par < 1 ? 1 : par > MAX_THREADS ? MAX_THREADS : par, started = 0;
  if (nth > pl->nkernels) nth = pl->nkernels;
  pthread_mutex_init(&q.mu, NULL);
  symv_progress_start(&q.prog, "nvrtc", pl->nkernels, 0);
  for (int i = 0; i < nth; i++) started += pthread_create(&th[started], NULL, compile_thread, &q) == 0;
  if (started == 0) compile_thread(&q); /* no thread to be had: this one compiles them all */
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
  pthread_mutex_destroy(&q.mu);
  if (q.failed) {
    if (q.prog.tty) fputc('\n', stderr);
    fprintf(stderr, "symvtune build: NVRTC cannot compile kernel %s: %s: %s\n", pl->kernels[q.bad].name,
            symv_strerror(q.rc), q.log ? q.log : "(no log)");
    free(q.log);
    return -1;
  }
  symv_progress_finish(&q.prog);
  return 0;
}
