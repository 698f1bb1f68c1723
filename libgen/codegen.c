/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * codegen.c - writes the generated library's sources: the kernel units, the
 * CUBINs, the dispatch table, the embedded kernels and runtime (codegen.h).
 */
#define _GNU_SOURCE /* strndup */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "codegen.h"
#include "compile.h"
#include "lib_sources.h"
#include "libsymv_table.h"
#include "text.h"

/* The enumerators of core/params.h, by symv_family. */
static const char *const family_enum[SYMV_FAMILY_COUNT] = {"SYMV_FAMILY_ATOMIC", "SYMV_FAMILY_LU",
                                                           "SYMV_FAMILY_ATOMIC_RED", "SYMV_FAMILY_FAULT",
                                                           "SYMV_FAMILY_FLOOR", "SYMV_FAMILY_ATOMIC_W",
                                                           "SYMV_FAMILY_PANEL", "SYMV_FAMILY_PIPE",
                                                           "SYMV_FAMILY_PIPE_DET", "SYMV_FAMILY_PIPE_FX"};

/* src/NAME.c for each kernel: its CUBIN as a byte array. */
int libgen_write_kernel_units(const libgen_plan *pl, const char *dir, const char *cmd)
{
  char path[PATH_MAX + 128];
  const int nvrtc = symv_nvrtc_version();
  for (int k = 0; k < pl->nkernels; k++) {
    const libgen_kernel *bk = &pl->kernels[k];
    const unsigned char *code = bk->cubin.data;
    if (!code || bk->cubin.size == 0) return -1; /* libgen_compile_kernels did not run */
    libgen_sbuf b = {0};
    libgen_sb_printf(&b, "/* " LIBGEN_GENERATED "%s */\n/* " LIBGEN_SPDX " */\n", cmd);
    libgen_sb_printf(&b, "/* Kernel %s of candidates", bk->name);
    for (int c = 0; c < pl->ncands; c++)
      if (pl->cands[c].kernel == k) {
        char label[64];
        symv_params_format(&pl->cands[c].p, label, sizeof label);
        libgen_sb_printf(&b, " %s (id %lld)", label, pl->cands[c].id);
      }
    libgen_sb_printf(&b, ":\n * the CUBIN NVRTC %d.%d made of src/kernels/%s for %s with the tuner's options\n"
                         " * (symv_compile), of the flags\n *   %s\n",
                     nvrtc / 1000, nvrtc % 1000 / 10, bk->source, pl->arch, bk->defines);
    if (bk->cubin_regs > 0) libgen_sb_printf(&b, " * %d registers per thread", bk->cubin_regs);
    else libgen_sb_printf(&b, " * registers per thread not read");
    if (bk->regs > 0) libgen_sb_printf(&b, "; the tuner's build used %d", bk->regs);
    libgen_sb_printf(&b, " */\nconst unsigned char symv_cubin_%s[%zu] = {", bk->name, bk->cubin.size);
    for (size_t i = 0; i < bk->cubin.size; i++) libgen_sb_printf(&b, "%s%u,", i % 24 ? "" : "\n  ", code[i]);
    libgen_sb_printf(&b, "\n};\n");
    snprintf(path, sizeof path, "%s/src/%s.c", dir, bk->name);
    int rc = b.failed ? -1 : libgen_write_text(path, b.s);
    free(b.s);
    if (rc) return -1;
  }
  return 0;
}

/* src/symv_table.c: the rules, the candidates, the tuned device. */
int libgen_write_table(const libgen_plan *pl, const char *dir, const char *cmd)
{
  char path[PATH_MAX + 128];
  libgen_sbuf b = {0};
  libgen_sb_printf(&b, "/* " LIBGEN_GENERATED "%s */\n/* " LIBGEN_SPDX " */\n", cmd);
  if (pl->wisdom)
    libgen_sb_printf(&b, "/* Dispatch table of a libsymv built with --wisdom (lib/libsymv_table.h): no rules; they come\n"
                  " * from the wisdom files the library reads at run time (lib/wisdom.h).\n");
  else
    libgen_sb_printf(&b, "/* Dispatch table of libsymv (lib/libsymv_table.h), %d candidates in %d kernels, for sm_%d%d with %d "
                  "SMs:\n",
              pl->ncands, pl->nkernels, pl->dev.cc_major, pl->dev.cc_minor, pl->dev.sm_count);
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const libgen_routine *rt = &pl->rt[symv_routine_order(i)];
    const libgen_routine *dt = &pl->det[symv_routine_order(i)];
    if (rt->have)
      libgen_sb_printf(&b, " * %s: the rules of fit %lld (samples uplo %c, %s), n %d..%d, %d rules; deterministic: %s%lld, "
                "%d rules\n", symv_routine_name(symv_routine_order(i)), rt->fit.id, rt->fit.uplo,
                rt->fit.hot ? "hot" : "cold", rt->fit.lo, rt->fit.hi, rt->nrules, dt->have ? "fit " : "none (cuBLAS) ",
                dt->have ? dt->fit.id : 0LL, dt->nrules);
    else if (!pl->wisdom) libgen_sb_printf(&b, " * %s: not tuned (cuBLAS)\n", symv_routine_name(symv_routine_order(i)));
  }
  libgen_sb_printf(&b, " */\n");
  libgen_sb_printf(&b, "#include \"libsymv_table.h\"\n\n");
  libgen_sb_printf(&b, "/* The kernels' CUBINs (src/NAME.c). */\n");
  for (int k = 0; k < pl->nkernels; k++)
    libgen_sb_printf(&b, "extern const unsigned char symv_cubin_%s[%zu];\n", pl->kernels[k].name,
                     pl->kernels[k].cubin.size);
  libgen_sb_printf(&b, "\nconst symv_table_candidate symv_table_candidates[] = {\n");
  for (int c = 0; c < pl->ncands; c++) {
    const libgen_cand *bc = &pl->cands[c];
    const char *name = pl->kernels[bc->kernel].name;
    libgen_sb_printf(&b, "  {{%s, %d, %d, %d, %d, (symv_routine)%d}, \"%s\", symv_cubin_%s, sizeof symv_cubin_%s}, "
                         "/* %d: candidate id %lld */\n",
              family_enum[bc->p.family], bc->p.block_size, bc->p.ux, bc->p.multiplicity, bc->p.mx, (int)bc->p.routine,
              name, name, name, c, bc->id);
  }
  if (pl->ncands == 0) libgen_sb_printf(&b, "  {{SYMV_FAMILY_ATOMIC, 32, 1, 1, 0}, \"\", 0, 0}, /* unused: no candidate */\n");
  libgen_sb_printf(&b, "};\nconst int symv_table_ncandidates = %d;\n\n", pl->ncands);
  libgen_sb_printf(&b, "const symv_table_rule symv_table_rules[] = {\n");
  int first[2][SYMV_ROUTINE_COUNT] = {{0}}, total = 0;
  for (int q = 0; q < 2 * SYMV_ROUTINE_COUNT; q++) {
    const int ro = q / 2, det = q % 2;
    const libgen_routine *rt = det ? &pl->det[ro] : &pl->rt[ro];
    first[det][ro] = total;
    if (rt->nrules) libgen_sb_printf(&b, "  /* %s%s */\n", symv_routine_name((symv_routine)ro), det ? ", deterministic" : "");
    for (int i = 0; i < rt->nrules; i++, total++) {
      const libgen_rule *r = &rt->rules[i];
      char kernel[32];
      if (r->kernel >= 0) snprintf(kernel, sizeof kernel, "%d", r->kernel);
      libgen_sb_printf(&b, "  {%d, %d, %s}, /* predicted %.4g us at the middle, x%.3g over the faster cuBLAS */\n",
                r->n_start, r->n_end,
                r->kernel == SYMV_RULE_CUBLAS ? "SYMV_RULE_CUBLAS"
                : r->kernel == SYMV_RULE_CUBLAS_ATOMICS ? "SYMV_RULE_CUBLAS_ATOMICS" : kernel,
                r->predicted_us, r->gain);
    }
  }
  if (total == 0) libgen_sb_printf(&b, "  {1, 1, SYMV_RULE_CUBLAS}, /* unused: no rule */\n");
  libgen_sb_printf(&b, "};\nconst int symv_table_nrules = %d;\n\n", total);
  libgen_sb_printf(&b, "const symv_table_routine symv_table_routines[SYMV_ROUTINE_COUNT] = {\n");
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++) {
    const libgen_routine *rt = &pl->rt[ro], *dt = &pl->det[ro];
    libgen_sb_printf(&b, "  {%d, %d, %lldLL, '%c', %d, %d, %d, %lldLL}, /* %s */\n", first[0][ro], rt->nrules,
              rt->have ? rt->fit.id : 0LL, rt->have ? rt->fit.uplo : 'L', rt->have ? rt->fit.hot : 0, first[1][ro],
              dt->nrules, dt->have ? dt->fit.id : 0LL, symv_routine_name((symv_routine)ro));
  }
  libgen_sb_printf(&b, "};\n\n");
  libgen_sb_printf(&b, "const symv_table_info symv_table_device = {\"");
  libgen_sb_c_string(&b, pl->dev.name);
  libgen_sb_printf(&b, "\", %d, %d, %d, \"%s\"};\n", pl->dev.cc_major, pl->dev.cc_minor, pl->dev.sm_count, pl->arch);
  libgen_sb_printf(&b, "\n/* the system folder of wisdom files (a --wisdom library's; \"\": LIBDIR/../share/symv) */\n"
                "const char symv_table_wisdom_dir[] = \"");
  libgen_sb_c_string(&b, pl->wisdom_dir);
  libgen_sb_printf(&b, "\";\n");
  snprintf(path, sizeof path, "%s/src/symv_table.c", dir);
  int rc = b.failed ? -1 : libgen_write_text(path, b.s);
  free(b.s);
  return rc;
}

/* src/symv_identity.c: what generated the library and from which rules. */
int libgen_write_identity(const libgen_plan *pl, const char *dir, const char *cmd)
{
  char path[PATH_MAX + 128];
  libgen_sbuf b = {0};
  libgen_sb_printf(&b, "/* " LIBGEN_GENERATED "%s */\n/* " LIBGEN_SPDX " */\n", cmd);
  libgen_sb_printf(&b, "/* The identity of this libsymv (lib/libsymv_table.h, lib/identity.h). */\n"
                       "#include <cuda_runtime_api.h>\n#include \"libsymv_table.h\"\n\n"
                       "#define SYMV_STR_(x) #x\n#define SYMV_STR(x) SYMV_STR_(x)\n\n"
                       "/* the line `strings libsymv.so.0 | grep symvtune-rules:` finds, and SYMV_LOG writes first */\n"
                       "static const char line[] = \"symvtune-rules: ");
  if (pl->wisdom) {
    libgen_sb_printf(&b, "wisdom files read at run time");
  } else {
    libgen_sb_printf(&b, "rules %s of ", pl->rules_id);
    libgen_sb_c_string(&b, pl->dev.name);
    libgen_sb_printf(&b, " (sm_%d%d, %d SMs), kernels for %s", pl->dev.cc_major, pl->dev.cc_minor, pl->dev.sm_count,
                     pl->arch);
  }
  libgen_sb_printf(&b, "; symvtune %s; CUDART_VERSION \" SYMV_STR(CUDART_VERSION) \"", PACKAGE_VERSION);
  if (!pl->wisdom) {
    libgen_sb_printf(&b, "; fits ");
    libgen_sb_c_string(&b, pl->fits);
  }
  libgen_sb_printf(&b, "\";\n\n");
  libgen_sb_printf(&b, "const symv_table_identity symv_table_id = {\"%s\", \"%s\", \"", PACKAGE_VERSION, pl->rules_id);
  libgen_sb_c_string(&b, pl->fits);
  libgen_sb_printf(&b, "\", line};\n");
  snprintf(path, sizeof path, "%s/src/symv_identity.c", dir);
  int rc = b.failed ? -1 : libgen_write_text(path, b.s);
  free(b.s);
  return rc;
}

/* src/kernel_sources.c of a --wisdom library: the kernel sources NVRTC
 * compiles there (gpu/kernel_sources.h), the very text this program
 * compiles and the wisdom files' "sources" fingerprint names. */
int libgen_write_kernel_sources(const char *dir, const char *cmd)
{
  char path[PATH_MAX + 128];
  libgen_sbuf b = {0};
  libgen_sb_printf(&b, "/* " LIBGEN_GENERATED "%s */\n/* " LIBGEN_SPDX " */\n#include \"kernel_sources.h\"\n\n", cmd);
  libgen_sb_printf(&b, "const symv_source symv_sources[] = {\n");
  for (int i = 0; i < symv_nsources; i++) {
    libgen_sb_printf(&b, "  {\"");
    libgen_sb_c_string(&b, symv_sources[i].name);
    libgen_sb_printf(&b, "\",\n   \"");
    for (const char *t = symv_sources[i].text; *t;) { /* one literal per line of the source */
      const char *nl = strchr(t, '\n');
      size_t l = nl ? (size_t)(nl - t + 1) : strlen(t);
      char *line = strndup(t, l);
      if (!line) {
        b.failed = 1;
        break;
      }
      libgen_sb_c_string(&b, line);
      free(line);
      t += l;
      if (*t) libgen_sb_printf(&b, "\"\n   \"");
    }
    libgen_sb_printf(&b, "\"},\n");
  }
  libgen_sb_printf(&b, "};\nconst int symv_nsources = %d;\n", symv_nsources);
  snprintf(path, sizeof path, "%s/src/kernel_sources.c", dir);
  int rc = b.failed ? -1 : libgen_write_text(path, b.s);
  free(b.s);
  return rc;
}

/* Every embedded file of `src` into dir/sub. */
int libgen_write_embedded(const symv_source *src, int n, const char *dir, const char *sub)
{
  char path[PATH_MAX + 128];
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, src[i].name);
    if (libgen_write_text(path, src[i].text)) return -1;
  }
  return 0;
}

/* The embedded runtime file name, or NULL. */
const symv_source *libgen_lib_source(const char *name)
{
  for (int i = 0; i < symv_lib_nsources; i++)
    if (!strcmp(symv_lib_sources[i].name, name)) return &symv_lib_sources[i];
  return NULL;
}
