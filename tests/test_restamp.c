/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kernel sources read from a folder (symv_sources_load) name and compile
 * the code as the embedded ones do, and `symvtune restamp` records today's
 * code beside the candidates an edit left unchanged in PTX, and only
 * those. NVRTC only: no GPU.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../db/db.h"
#include "cli.h"
#include "compile.h"
#include "params.h"
#include "routine.h"
#include "symv_error.h"
#include "test_util.h"

extern const symv_command cmd_restamp_entry;

static char dir[] = "/tmp/symvtune-restamp-XXXXXX";

static void setup(void)
{
  cr_assert_not_null(mkdtemp(dir));
  char cache[128];
  snprintf(cache, sizeof cache, "%s/cache", dir);
  setenv("SYMVTUNE_CACHE", cache, 1);
}

static void teardown(void) { test_rmtree(dir); }

TestSuite(restamp, .init = setup, .fini = teardown);

static const char *srcdir(void)
{
  const char *s = getenv("SYMV_TEST_SRCDIR");
  return s && *s ? s : SYMV_TEST_SRCDIR;
}

/* A copy of kernels/ at dir/name, with `from` replaced by `to` in file
 * `file` (which must hold it); the copy's path into out. */
static void edited_copy(const char *name, const char *file, const char *from, const char *to, char *out, size_t len)
{
  char cmd[2048];
  snprintf(out, len, "%s/%s", dir, name);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s'/kernels/*.cu '%s'/kernels/*.cuh '%s'/kernels/*.h '%s'/", out,
           srcdir(), srcdir(), srcdir(), out);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", out, file);
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  char *at = strstr(text, from);
  cr_assert_not_null(at, "%s no longer holds '%s': the test's edit needs another target", file, from);
  f = fopen(path, "wb");
  cr_assert_not_null(f);
  fwrite(text, 1, (size_t)(at - text), f);
  fputs(to, f);
  fputs(at + strlen(from), f);
  cr_assert_eq(fclose(f), 0);
}

/* The sources of kernels/ read from the folder are today's: every point
 * gets the embedded sources' code id, and the same PTX; a folder without
 * them is refused. */
Test(restamp, a_folder_of_todays_sources_names_the_same_code, .timeout = 120)
{
  char kdir[1024], err[512] = "";
  snprintf(kdir, sizeof kdir, "%s/kernels", srcdir());
  symv_source_set s;
  cr_assert_eq(symv_sources_load(kdir, &s, err, sizeof err), 0, "%s", err);
  const symv_params pts[] = {{SYMV_FAMILY_ATOMIC, 128, 16, 1, 0, SYMV_DSYMV},
                             {SYMV_FAMILY_PANEL, 256, 4, 4, 0, SYMV_ZHEMV},
                             {SYMV_FAMILY_PIPE, 256, 64, 2, 0, SYMV_SSYMV},
                             {SYMV_FAMILY_PIPE_DET, 128, 32, 2, 3, SYMV_CHEMV},
                             {SYMV_FAMILY_PIPE_FX, 256, 64, 2, 6, SYMV_DSYMV}};
  for (size_t i = 0; i < sizeof pts / sizeof *pts; i++) {
    char a[17], b[17];
    cr_assert_eq(symv_code_id(&pts[i], a), 0);
    cr_assert_eq(symv_code_id_in(&s, &pts[i], b), 0);
    cr_expect_str_eq(a, b, "point %zu", i);
  }
  symv_cubin x, y;
  cr_assert_eq(symv_compile_ptx_in(&s, &pts[2], 9, 0, &x, NULL), 0);
  cr_assert_eq(symv_compile_ptx_in(symv_sources_embedded(), &pts[2], 9, 0, &y, NULL), 0);
  cr_assert(x.size > 100 && strstr(x.data, ".entry"), "not PTX");
  cr_expect(x.size == y.size && !memcmp(x.data, y.data, x.size), "the same sources, other PTX");
  symv_cubin_free(&x), symv_cubin_free(&y);
  symv_sources_free(&s);
  cr_expect_eq(symv_sources_load(dir, &s, err, sizeof err), SYMV_NOT_FOUND, "a folder without kernel sources");
  cr_expect_neq(strstr(err, "none of the kernel sources"), NULL, "%s", err);
  cr_expect_eq(symv_code_id_in(NULL, &pts[0], (char[17]){0}), SYMV_INVALID_VALUE);
}

/* One candidate of the test database: routine r's point, measured with
 * the code id `code`. */
static long long add(db *d, symv_routine r, symv_family f, int bs, int ux, int m, int mx, const char *code)
{
  db_candidate c = {.p = {f, bs, ux, m, mx, r}};
  long long id;
  cr_assert_eq(db_put_candidate(d, &c, &id), 0, "%s", db_errmsg(d));
  cr_assert_eq(db_put_kernel_code(d, id, code), 0, "%s", db_errmsg(d));
  return id;
}

/* The code id of p as the sources of folder src make it. */
static void id_in(const char *src, symv_params p, char out[17])
{
  symv_source_set s;
  char err[512] = "";
  cr_assert_eq(symv_sources_load(src, &s, err, sizeof err), 0, "%s", err);
  cr_assert_eq(symv_code_id_in(&s, &p, out), 0);
  symv_sources_free(&s);
}

/* The code recorded beside candidate id. */
static void code_of(const char *path, long long id, char out[17])
{
  db *d;
  cr_assert_eq(db_open(&d, path, DB_READONLY), 0);
  db_kernel_code *k;
  size_t n;
  cr_assert_eq(db_list_kernel_codes(d, DB_ANY_ROUTINE, &k, &n), 0, "%s", db_errmsg(d));
  const db_kernel_code *e = db_kernel_code_find(k, n, id);
  cr_assert_not_null(e);
  memcpy(out, e->code, 17);
  free(k);
  db_close(d);
}

/* symvtune restamp --db db_path --was was [--dry-run] [--quiet]: its exit
 * status, standard output and error in *text */
static int restamp(const char *db_path, const char *was, int dry, int quiet, char **text)
{
  char *av[8] = {"restamp", "--db", (char *)db_path, "--was", (char *)was};
  int ac = 5;
  if (dry) av[ac++] = "--dry-run";
  if (quiet) av[ac++] = "--quiet";
  av[ac] = NULL;
  return test_run_in_process(cmd_restamp_entry.run, ac, av, dir, text, text);
}

/* A database swept before two edits of kernels/symv_pipe.cuh: a comment
 * (the pipe families' PTX the same) and a third pipeline stage where
 * there were two (their PTX changed). restamp --was the commented sources
 * records today's code beside DSYMV's pipe, pipe_det and pipe_fx
 * candidates (two of one point: one compilation; pipe_fx's with functions
 * of internal linkage, whose PTX names NVRTC keeps across the edit), leaves the atomic candidate (already
 * today's) and one of unknown sources as they are, changes nothing with
 * --dry-run; --was the restaged sources finds SSYMV's candidate changed and
 * leaves it to be swept again. Each routine with codes to look at gets a
 * progress line (none with --quiet); one without recorded codes, a line
 * that says so. */
Test(restamp, keeps_the_timings_whose_code_is_the_same_and_only_those, .timeout = 300)
{
  char comment[1024], staged[1024], path[1024];
  edited_copy("comment", "symv_pipe.cuh", "#define SYMV_PIPE_CG", "/* an edit that changes no code */\n#define SYMV_PIPE_CG",
              comment, sizeof comment);
  edited_copy("staged", "symv_pipe.cuh", "#define SYMV_PIPE_S (MX % 3 + 2)", "#define SYMV_PIPE_S (MX % 3 + 3)", staged,
              sizeof staged);
  snprintf(path, sizeof path, "%s/sweep.db", dir);
  const symv_params dp = {SYMV_FAMILY_PIPE, 256, 64, 2, 0, SYMV_DSYMV}, dd = {SYMV_FAMILY_PIPE_DET, 128, 32, 2, 3, SYMV_DSYMV},
                    df = {SYMV_FAMILY_PIPE_FX, 256, 64, 2, 0, SYMV_DSYMV},
                    da = {SYMV_FAMILY_ATOMIC, 128, 16, 1, 0, SYMV_DSYMV}, sp = {SYMV_FAMILY_PIPE, 256, 64, 2, 0, SYMV_SSYMV};
  char c_dp[17], c_dd[17], c_df[17], c_da[17], c_sp[17], now[17], got[17];
  id_in(comment, dp, c_dp), id_in(comment, dd, c_dd), id_in(comment, df, c_df), id_in(staged, sp, c_sp);
  cr_assert_eq(symv_code_id(&da, c_da), 0);
  cr_assert_eq(symv_code_id(&dp, now), 0);
  cr_assert_str_neq(c_dp, now, "the comment changes the id (the hash of the header's text)");

  db *d;
  cr_assert_eq(db_open(&d, path, DB_CREATE), 0);
  db_device g = {.cc_major = 9, .cc_minor = 0, .sm_count = 132, .l2_bytes = 52428800, .mem_clock_khz = 2619000,
                 .bus_width_bits = 5120, .smem_per_sm = 233472, .smem_per_block_optin = 232448, .regs_per_sm = 65536,
                 .max_blocks_per_sm = 32, .max_threads_per_sm = 2048, .driver_version = 13000,
                 .runtime_version = 13000, .nvrtc_major = 13, .nvrtc_minor = 0};
  snprintf(g.name, sizeof g.name, "NVIDIA H200");
  cr_assert_eq(db_check_device(d, &g, 0), 0, "%s", db_errmsg(d));
  const long long i_dp = add(d, SYMV_DSYMV, SYMV_FAMILY_PIPE, 256, 64, 2, 0, c_dp);
  const long long i_dp1 = add(d, SYMV_DSYMV, SYMV_FAMILY_PIPE, 256, 64, 1, 0, c_dp);
  const long long i_dd = add(d, SYMV_DSYMV, SYMV_FAMILY_PIPE_DET, 128, 32, 2, 3, c_dd);
  const long long i_df = add(d, SYMV_DSYMV, SYMV_FAMILY_PIPE_FX, 256, 64, 2, 0, c_df);
  const long long i_da = add(d, SYMV_DSYMV, SYMV_FAMILY_ATOMIC, 128, 16, 1, 0, c_da);
  const long long i_x = add(d, SYMV_DSYMV, SYMV_FAMILY_PIPE, 128, 32, 2, 0, "0123456789abcdef");
  const long long i_sp = add(d, SYMV_SSYMV, SYMV_FAMILY_PIPE, 256, 64, 2, 0, c_sp);
  cr_assert_eq(db_close(d), 0);

  char *text = NULL;
  cr_assert_eq(restamp(path, comment, 1, 0, &text), 0, "%s", text);
  cr_expect_neq(strstr(text, "dsymv: 1 of today's sources, 4 to be restamped (the same PTX), 0 changed, 1 of other"), NULL,
                "%s", text);
  cr_expect_neq(strstr(text, "ssymv: 0 of today's sources, 0 to be restamped (the same PTX), 0 changed, 1 of other"),
                NULL, "%s", text);
  cr_expect_neq(strstr(text, "restamp dsymv: 5/5 done"), NULL, "no progress over DSYMV's five other codes: %s", text);
  cr_expect_neq(strstr(text, "zhemv: no candidate with a recorded code"), NULL, "%s", text);
  free(text);
  code_of(path, i_dp, got);
  cr_expect_str_eq(got, c_dp, "--dry-run changed the database");

  cr_assert_eq(restamp(path, comment, 0, 0, &text), 0, "%s", text);
  cr_expect_neq(strstr(text, "dsymv: 1 of today's sources, 4 restamped (the same PTX), 0 changed, 1 of other"), NULL,
                "%s", text);
  free(text);
  const long long now_ids[] = {i_dp, i_dp1, i_dd, i_df, i_da};
  const symv_params now_pts[] = {dp, {SYMV_FAMILY_PIPE, 256, 64, 1, 0, SYMV_DSYMV}, dd, df, da};
  for (int i = 0; i < 5; i++) {
    code_of(path, now_ids[i], got);
    cr_expect(symv_code_current(&now_pts[i], got), "candidate %d: %s is not today's code", i, got);
  }
  code_of(path, i_x, got);
  cr_expect_str_eq(got, "0123456789abcdef", "a code of unknown sources was replaced");

  cr_assert_eq(restamp(path, staged, 0, 1, &text), 0, "%s", text);
  cr_expect_neq(strstr(text, "ssymv: 0 of today's sources, 0 restamped (the same PTX), 1 changed, 0 of other"), NULL,
                "%s", text);
  cr_expect_eq(strstr(text, "restamp ssymv:"), NULL, "progress with --quiet: %s", text);
  cr_expect_neq(strstr(text, "dsymv: 5 of today's sources, 0 restamped"), NULL, "%s", text);
  free(text);
  code_of(path, i_sp, got);
  cr_expect_str_eq(got, c_sp, "a candidate whose code changed was restamped");
}

/* Bad input: no --was, a --was folder without the sources, a database
 * that is not there: a clear error and nothing changed. */
Test(restamp, refuses_what_it_cannot_read, .timeout = 60)
{
  char *text = NULL, path[1024], kdir[1024];
  snprintf(path, sizeof path, "%s/none.db", dir);
  snprintf(kdir, sizeof kdir, "%s/kernels", srcdir());
  char *a1[] = {"restamp", "--db", path, NULL};
  cr_expect_eq(test_run_in_process(cmd_restamp_entry.run, 3, a1, dir, &text, &text), SYMV_EXIT_USAGE);
  cr_expect_neq(strstr(text, "--was DIR is required"), NULL, "%s", text);
  free(text);
  char *a2[] = {"restamp", "--db", path, "--was", dir, NULL};
  cr_expect_eq(test_run_in_process(cmd_restamp_entry.run, 5, a2, dir, &text, &text), SYMV_EXIT_ERROR);
  cr_expect_neq(strstr(text, "none of the kernel sources"), NULL, "%s", text);
  free(text);
  char *a3[] = {"restamp", "--db", path, "--was", kdir, NULL};
  cr_expect_eq(test_run_in_process(cmd_restamp_entry.run, 5, a3, dir, &text, &text), SYMV_EXIT_ERROR);
  cr_expect_eq(access(path, F_OK), -1, "restamp created %s", path);
  free(text);
}
