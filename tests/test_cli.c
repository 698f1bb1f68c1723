/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of what the commands print for programs to read, and of the files
 * they write, when --routine names several routines (src/cli.c:
 * cli_each_routine_of): `rules`, `rank` (and `bench`, whose run is
 * imitated here, as it needs a GPU) with --json print one JSON document,
 * checked by a strict reader (test_json_check) and read with jq (Debian's
 * jq: scripts/deps installs it; the content checks skip without); each
 * routine writes its own figure. rules and rank run on a copy of the
 * shipped H100 sweep of six routines (tests/data/sweep6-h100.db.xz) after
 * `symvtune fit`, in this process. */
#include <criterion/criterion.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "test_util.h"

#ifndef SYMV_TEST_DATA
#error "SYMV_TEST_DATA must name tests/data (tests/local.mk)"
#endif

extern const symv_command cmd_fit_entry, cmd_rules_entry, cmd_rank_entry, cmd_plot_entry, cmd_validate_entry,
    cmd_bench_entry;

static char dir[64];

static void setup(void)
{
  snprintf(dir, sizeof dir, "/tmp/symvtune-test-cli-XXXXXX");
  cr_assert_not_null(mkdtemp(dir), "mkdtemp");
}

static void teardown(void) { test_rmtree(dir); }

TestSuite(several, .init = setup, .fini = teardown);

static char *at(char *buf, const char *name)
{
  snprintf(buf, 1024, "%s/%s", dir, name);
  return buf;
}

/* Runs cmd's entry with the NULL-terminated arguments (argv[0] = its name)
 * in this process; *out and *err get what it printed (free them). */
static int run_cmd(const symv_command *cmd, char **out, char **err, ...)
{
  char *argv[32] = {(char *)cmd->name};
  int argc = 1;
  va_list ap;
  va_start(ap, err);
  for (char *a; argc < 31 && (a = va_arg(ap, char *));) argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;
  return test_run_in_process(cmd->run, argc, argv, dir, out, err);
}

/* Writes text to dir/name; returns the path in buf. */
static char *save(char *buf, const char *name, const char *text)
{
  FILE *f = fopen(at(buf, name), "w");
  cr_assert_not_null(f);
  fputs(text, f);
  cr_assert_eq(fclose(f), 0);
  return buf;
}

/* Fails the test unless text is one JSON document. */
static void expect_one_document(const char *what, const char *text)
{
  char why[256];
  cr_assert_eq(test_json_check(text, strlen(text), why, sizeof why), 0, "%s is not one JSON document: %s:\n%.3000s",
               what, why, text);
}

static int have_jq(void) { return system("jq --version > /dev/null 2>&1") == 0; }

/* 0 if the jq expression holds for the JSON file at path (jq -e), with
 * the file at other, if not NULL, bound to $other (--slurpfile: an array). */
static int jq_holds(const char *path, const char *expr, const char *other)
{
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "jq -e %s%s%s '%s' '%s' > /dev/null", other ? "--slurpfile other '" : "",
           other ? other : "", other ? "'" : "", expr, path);
  const int rc = system(cmd);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The shipped H100 sweep, unpacked into dir/name; skips without xz. */
static char *shipped_h100(char *db, const char *name)
{
  char xz[1024], cmd[2200];
  snprintf(xz, sizeof xz, "%s/sweep6-h100.db.xz", SYMV_TEST_DATA);
  if (access(xz, R_OK)) cr_skip_test("no %s", xz);
  snprintf(cmd, sizeof cmd, "xz -dc '%s' > '%s'", xz, at(db, name));
  if (system(cmd)) cr_skip_test("xz could not unpack %s", xz);
  return db;
}

#define ALL_ROUTINES "[\"ssymv\", \"dsymv\", \"csymv\", \"zsymv\", \"chemv\", \"zhemv\"]"

/* rules and rank with --routine all --json: one document, the routines'
 * documents in canonical order, each as the command prints it alone. */
Test(several, rules_and_rank_print_one_json_document, .timeout = 180)
{
  char db[1024], p[1024], q[1024], *out, *err;
  shipped_h100(db, "h100.db");
  int st = run_cmd(&cmd_fit_entry, &out, &err, "--db", db, "--routine", "all", NULL);
  cr_assert_eq(st, 0, "fit --routine all: exit %d\n%s", st, err);
  free(out), free(err);

  /* rules, the 'any' set (the default) */
  st = run_cmd(&cmd_rules_entry, &out, &err, "--db", db, "--routine", "all", "--json", NULL);
  cr_assert_eq(st, 0, "rules --routine all --json: exit %d\n%s", st, err);
  expect_one_document("rules --routine all --json", out);
  save(p, "rules-all.json", out);
  free(out), free(err);
  /* the deterministic set, the list written after '=' */
  st = run_cmd(&cmd_rules_entry, &out, &err, "--db", db, "--routine=ssymv,zhemv,dsymv", "--atomics",
               "deterministic", "--json", NULL);
  cr_assert_eq(st, 0, "rules --atomics deterministic --json: exit %d\n%s", st, err);
  expect_one_document("rules --routine=ssymv,zhemv,dsymv --atomics deterministic --json", out);
  char d[1024];
  save(d, "rules-det.json", out);
  free(out), free(err);
  /* one routine alone: the document as before */
  st = run_cmd(&cmd_rules_entry, &out, &err, "--db", db, "--routine", "zhemv", "--json", NULL);
  cr_assert_eq(st, 0, "rules --routine zhemv --json: exit %d\n%s", st, err);
  expect_one_document("rules --routine zhemv --json", out);
  save(q, "rules-zhemv.json", out);
  free(out), free(err);
  /* rank */
  char k[1024];
  st = run_cmd(&cmd_rank_entry, &out, &err, "--db", db, "--routine", "all", "--json", NULL);
  cr_assert_eq(st, 0, "rank --routine all --json: exit %d\n%s", st, err);
  expect_one_document("rank --routine all --json", out);
  save(k, "rank-all.json", out);
  free(out), free(err);

  if (!have_jq()) cr_skip_test("no jq: the documents are well formed, their content is not checked");
  cr_assert_eq(jq_holds(p, ".format == 1 and .command == \"rules\" and (.symvtune | type) == \"string\" and "
                           "[.routines[].routine] == " ALL_ROUTINES " and "
                           "all(.routines[]; .format == 1 and .atomics == \"any\" and .fit.atomics == \"any\" and "
                           "(.device.name | test(\"H100\")) and (.rules | length) > 0 and "
                           ".rules[0].n_start == .fit.lo and .rules[-1].n_end == .fit.hi)", NULL), 0,
               "%s", p);
  cr_assert_eq(jq_holds(d, ".command == \"rules\" and [.routines[].routine] == [\"ssymv\", \"dsymv\", \"zhemv\"] and "
                           "all(.routines[]; .atomics == \"deterministic\" and .fit.atomics == \"deterministic\" and "
                           "all(.rules[]; .candidate == null or "
                           "(.candidate.family | IN(\"lu\", \"panel\", \"pipe_det\"))))", NULL), 0, "%s", d);
  cr_assert_eq(jq_holds(q, ".routine == \"zhemv\" and .atomics == \"any\" and (has(\"routines\") | not)", NULL), 0,
               "one routine: the routine's document itself, %s", q);
  cr_assert_eq(jq_holds(p, "(.routines[] | select(.routine == \"zhemv\")) == $other[0]", q), 0,
               "the list's zhemv document is the one `rules --routine zhemv --json` prints");
  cr_assert_eq(jq_holds(k, ".format == 1 and .command == \"rank\" and [.routines[].routine] == " ALL_ROUTINES " and "
                           "all(.routines[]; (.candidates | length) > 0 and (.sizes | length) > 0 and "
                           "([.candidates[] | select(.survivor)] | length) > 0)", NULL), 0, "%s", k);
}

/* A routine without a fit: said on stderr and left out of the document,
 * which stays well formed; the exit status is the worst, 4. */
Test(several, a_routine_that_fails_is_left_out_of_the_document, .timeout = 60)
{
  char db[1024], p[1024], *out, *err;
  shipped_h100(db, "unfitted.db");
  test_sql_exec(db, "PRAGMA foreign_keys = ON; DELETE FROM fit WHERE routine IN ('dsymv', 'chemv')");
  const int st = run_cmd(&cmd_rules_entry, &out, &err, "--db", db, "--routine", "all", "--json", NULL);
  cr_assert_eq(st, 4, "exit %d\n%s", st, err);
  expect_one_document("rules --routine all --json, two routines unfitted", out);
  cr_assert_not_null(strstr(err, "no fit of dsymv"), "%s", err);
  cr_assert_not_null(strstr(err, "no fit of chemv"), "%s", err);
  save(p, "partial.json", out);
  free(out), free(err);
  if (!have_jq()) cr_skip_test("no jq: the document is well formed, its content is not checked");
  cr_assert_eq(jq_holds(p, "[.routines[].routine] == [\"ssymv\", \"csymv\", \"zsymv\", \"zhemv\"]", NULL), 0, "%s",
               p);
}

/* Text: each routine under its "== ROUTINE ==" line, each rule set under
 * a heading that names the routine and the set. */
Test(several, the_text_names_each_routine_and_rule_set, .timeout = 60)
{
  char db[1024], *out, *err;
  shipped_h100(db, "text.db");
  const int st = run_cmd(&cmd_rules_entry, &out, &err, "--db", db, "--routine", "zsymv,ssymv", NULL);
  cr_assert_eq(st, 0, "exit %d\n%s", st, err);
  const char *s = strstr(out, "== ssymv ==\nssymv, rule set 'any' ("), *z = strstr(out, "== zsymv ==\nzsymv, rule set 'any' (");
  cr_assert(s && z && s < z, "ssymv, then zsymv, each under its heading:\n%s", out);
  /* the shipped fits are older than the deterministic rules: said under their heading */
  cr_assert_not_null(strstr(s, "\nssymv, rule set 'deterministic' (for handles in cuBLAS's default atomics mode"),
                     "%s", out);
  free(out), free(err);
}

/* ---- Figures ------------------------------------------------------------------- */

/* 1 if the file at path begins with the n bytes magic. */
static int has_magic(const char *path, const char *magic, size_t n)
{
  char head[16] = {0};
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  const size_t got = fread(head, 1, n, f);
  fclose(f);
  return got == n && !memcmp(head, magic, n);
}

/* plot --routine LIST: a figure per routine (and a script folder), the
 * routine's name before the extension; --out, the former name of
 * --figure, still draws one. */
Test(several, plot_draws_a_figure_for_each_routine, .timeout = 180)
{
  char db[1024], fig[1024], sc[1024], f[1200], *out, *err;
  shipped_h100(db, "plot.db");
  int st = run_cmd(&cmd_fit_entry, &out, &err, "--db", db, "--routine", "dsymv,chemv", NULL); /* unfitted as shipped */
  cr_assert_eq(st, 0, "fit: exit %d\n%s", st, err);
  free(out), free(err);
  static const char *const routines[] = {"ssymv", "dsymv", "csymv", "zsymv", "chemv", "zhemv"};
  /* without gnuplot: each routine's script kept in its own folder, then the error */
  setenv("SYMVTUNE_GNUPLOT", "", 1);
  st = run_cmd(&cmd_plot_entry, &out, &err, "--db", db, "--routine", "all", "--figure", at(fig, "fit.svg"), "--script",
               at(sc, "script"), NULL);
  unsetenv("SYMVTUNE_GNUPLOT");
  cr_assert_eq(st, 4, "exit %d\n%s%s", st, out, err);
  for (int i = 0; i < 6; i++) {
    snprintf(f, sizeof f, "%s-%s/plot.gp", sc, routines[i]);
    long len;
    char *gp = (char *)test_slurp(f, &len);
    cr_assert_not_null(gp, "no %s:\n%s%s", f, out, err);
    cr_assert_not_null(strstr(gp, "set terminal svg"), "%s", f);
    free(gp);
  }
  free(out), free(err);
  if (!GNUPLOT_PATH[0]) cr_skip_test("gnuplot was not found by configure");
  st = run_cmd(&cmd_plot_entry, &out, &err, "--db", db, "--routine", "zhemv,dsymv", "--figure", at(fig, "fit.png"), NULL);
  cr_assert_eq(st, 0, "exit %d\n%s%s", st, out, err);
  char *const drawn[] = {"fit-dsymv.png", "fit-zhemv.png"};
  for (int i = 0; i < 2; i++) {
    cr_assert(has_magic(at(f, drawn[i]), "\x89PNG\r\n\x1a\n", 8), "%s is not a PNG image:\n%s%s", f, out, err);
    cr_assert_not_null(strstr(out, f), "%s names what it wrote:\n%s", f, out);
  }
  cr_assert_eq(access(at(f, "fit.png"), F_OK), -1, "no figure under the name given: each routine has its own");
  free(out), free(err);
  /* one routine, the former name of the option: the file as named */
  st = run_cmd(&cmd_plot_entry, &out, &err, "--db", db, "--routine", "csymv", "--out", at(fig, "csymv-fit.png"), NULL);
  cr_assert_eq(st, 0, "exit %d\n%s%s", st, out, err);
  cr_assert(has_magic(fig, "\x89PNG\r\n\x1a\n", 8), "%s is not a PNG image", fig);
  free(out), free(err);
}

/* validate and bench take --figure, and their former names, with the same
 * checks, made before anything runs (no GPU, no library needed). */
Test(several, validate_and_bench_take_figure_and_its_former_names)
{
  char db[1024], fig[1024], *out, *err;
  at(db, "none.db");
  static const char *const validate_names[] = {"--figure", "--png", "--out"};
  for (int i = 0; i < 3; i++) {
    const int st = run_cmd(&cmd_validate_entry, &out, &err, "--db", db, validate_names[i], at(fig, "regret.gif"), NULL);
    cr_assert_eq(st, 2, "validate %s: exit %d\n%s", validate_names[i], st, err);
    cr_assert_not_null(strstr(err, "--figure ") && strstr(err, "unknown extension .gif"), "%s", err);
    free(out), free(err);
  }
  static const char *const bench_names[] = {"--figure", "--png"};
  for (int i = 0; i < 2; i++) {
    int st = run_cmd(&cmd_bench_entry, &out, &err, "--lib", dir, bench_names[i], at(fig, "bench.svg"), NULL);
    cr_assert_eq(st, 2, "bench %s: exit %d\n%s", bench_names[i], st, err);
    cr_assert_not_null(strstr(err, "bench draws a PNG image only"), "%s", err);
    free(out), free(err);
    st = run_cmd(&cmd_bench_entry, &out, &err, "--lib", dir, bench_names[i], at(fig, "it's.png"), NULL);
    cr_assert_eq(st, 2, "bench %s: exit %d\n%s", bench_names[i], st, err);
    cr_assert_not_null(strstr(err, "a file name with a quote"), "%s", err);
    free(out), free(err);
  }
  /* several routines: each routine's name is checked as its own */
  const int st = run_cmd(&cmd_bench_entry, &out, &err, "--lib", dir, "--routine", "ssymv,dsymv", "--figure",
                         at(fig, "bench.pdf"), NULL);
  cr_assert_eq(st, 2, "exit %d\n%s", st, err);
  cr_assert_not_null(strstr(err, "bench-ssymv.pdf: bench draws a PNG image only"), "%s", err);
  cr_assert_not_null(strstr(err, "bench-dsymv.pdf: bench draws a PNG image only"), "%s", err);
  free(out), free(err);
}

/* ---- The mechanism, with commands of its own ------------------------------------- */

static const struct option fake_opts[] = {{"routine", required_argument, 0, 'r'}, {"json", no_argument, 0, 'j'},
                                          {"figure", required_argument, 0, 'f'}, {"png", required_argument, 0, 'f'},
                                          {"db", required_argument, 0, 'D'},     {0, 0, 0, 0}};
static const char *const fake_outputs[] = {"figure", "png", NULL};
static const cli_each fake_how = {.options = fake_opts, .json = "json", .outputs = fake_outputs};

/* What the fake commands were given, one line per run: routine, figure. */
static char given[4096];

/* A command in the manner of rules: a document per routine on stdout;
 * csymv fails (nothing on stdout, a message on stderr, exit 4) and zsymv
 * prints a line that is not a document. */
static int fake_run(int argc, char **argv)
{
  int each;
  if (cli_each_routine_of("fake", argc, argv, fake_run, &fake_how, &each)) return each;
  const char *routine = "dsymv", *figure = "-";
  int json = 0, c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", fake_opts, NULL)) != -1) {
    if (c == 'r') routine = optarg;
    else if (c == 'j') json = 1;
    else if (c == 'f') figure = optarg;
  }
  snprintf(given + strlen(given), sizeof given - strlen(given), "%s %s\n", routine, figure);
  if (!strcmp(routine, "csymv")) {
    fprintf(stderr, "fake: no fit of csymv\n");
    return 4;
  }
  if (!strcmp(routine, "zsymv")) {
    printf("a note, not a document\n");
    return 0;
  }
  if (json) printf("{\n  \"routine\": \"%s\", \"text\": \"a \\\"quoted\\\" line\\nbreak\",\n  \"list\": [1, 2]\n}\n", routine);
  else printf("table of %s\n", routine);
  return 0;
}

/* A command in the manner of bench --json: its table to stderr as it goes
 * (stdout made stderr), the document to the real stdout at the end. */
static int fake_bench(int argc, char **argv)
{
  int each;
  if (cli_each_routine_of("fake-bench", argc, argv, fake_bench, &fake_how, &each)) return each;
  const char *routine = "dsymv";
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", fake_opts, NULL)) != -1)
    if (c == 'r') routine = optarg;
  fflush(stdout);
  const int real = dup(1);
  cr_assert(real >= 0 && dup2(2, 1) >= 0);
  printf("bench table of %s\n", routine);
  fflush(stdout);
  FILE *f = fdopen(dup(real), "w");
  cr_assert_not_null(f);
  fprintf(f, "{\"routine\": \"%s\", \"results\": []}\n", routine);
  fclose(f);
  dup2(real, 1);
  close(real);
  return 0;
}

Test(several, json_gathers_each_routine_document_whatever_else_a_run_prints)
{
  char *out, *err, p[1024];
  given[0] = 0;
  char *av[] = {"fake", "--rout", "all", "--js", "--db", "--routine", NULL}; /* abbreviations; a value like an option */
  int st = test_run_in_process(fake_run, 6, av, dir, &out, &err);
  cr_assert_eq(st, 4, "the worst status: %d", st);
  expect_one_document("fake --routine all --json", out);
  cr_assert_not_null(strstr(err, "fake: no fit of csymv"), "%s", err);
  cr_assert_not_null(strstr(err, "a note, not a document"), "what is not a document goes to stderr: %s\nstdout: %s", err, out);
  cr_assert_null(strstr(out, "=="), "no heading lines in the document:\n%s", out);
  cr_assert_str_eq(given, "ssymv -\ndsymv -\ncsymv -\nzsymv -\nchemv -\nzhemv -\n");
  save(p, "fake.json", out);
  free(out), free(err);
  /* text: headings, no document */
  char *tav[] = {"fake", "--routine=zhemv,dsymv", NULL};
  st = test_run_in_process(fake_run, 2, tav, dir, &out, &err);
  cr_assert_eq(st, 0);
  cr_assert_str_eq(out, "\n== dsymv ==\ntable of dsymv\n\n== zhemv ==\ntable of zhemv\n");
  free(out), free(err);
  /* bench's way of writing its document */
  char *bav[] = {"fake-bench", "--routine", "ssymv,chemv", "--json", NULL};
  char b[1024];
  st = test_run_in_process(fake_bench, 4, bav, dir, &out, &err);
  cr_assert_eq(st, 0);
  expect_one_document("fake-bench --routine ssymv,chemv --json", out);
  cr_assert_str_eq(err, "bench table of ssymv\nbench table of chemv\n");
  save(b, "fake-bench.json", out);
  free(out), free(err);
  if (!have_jq()) cr_skip_test("no jq: the documents are well formed, their content is not checked");
  cr_assert_eq(jq_holds(p, ".format == 1 and .command == \"fake\" and "
                           "[.routines[].routine] == [\"ssymv\", \"dsymv\", \"chemv\", \"zhemv\"] and "
                           "all(.routines[]; .text == \"a \\\"quoted\\\" line\\nbreak\" and .list == [1, 2])", NULL),
               0, "%s", p);
  cr_assert_eq(jq_holds(b, ".command == \"fake-bench\" and .routines == [{\"routine\": \"ssymv\", \"results\": []}, "
                           "{\"routine\": \"chemv\", \"results\": []}]", NULL), 0, "%s", b);
}

/* Several routines: each run gets its own file, the routine's name before
 * the extension, however the option is written; one routine: the name
 * as given. */
Test(several, each_routine_writes_its_own_figure)
{
  char *out, *err;
  given[0] = 0;
  char *av[] = {"fake", "--routine", "dsymv,zhemv", "--figure", "figs/fit.png", NULL};
  cr_assert_eq(test_run_in_process(fake_run, 5, av, dir, &out, &err), 0);
  free(out), free(err);
  cr_assert_str_eq(given, "dsymv figs/fit-dsymv.png\nzhemv figs/fit-zhemv.png\n");
  given[0] = 0;
  char *eav[] = {"fake", "--png=regret.v2.svg", "--routine=ssymv,csymv", NULL};
  cr_assert_eq(test_run_in_process(fake_run, 3, eav, dir, &out, &err), 4);
  free(out), free(err);
  cr_assert_str_eq(given, "ssymv regret.v2-ssymv.svg\ncsymv regret.v2-csymv.svg\n");
  given[0] = 0;
  char *fav[] = {"fake", "--fig", "plain", "--routine", "chemv,dsymv", NULL};
  cr_assert_eq(test_run_in_process(fake_run, 5, fav, dir, &out, &err), 0);
  free(out), free(err);
  cr_assert_str_eq(given, "dsymv plain-dsymv\nchemv plain-chemv\n");
  given[0] = 0;
  char *oav[] = {"fake", "--figure", "one.png", "--routine", "zhemv", NULL};
  cr_assert_eq(test_run_in_process(fake_run, 5, oav, dir, &out, &err), 0);
  free(out), free(err);
  cr_assert_str_eq(given, "zhemv one.png\n", "one routine: the file as named");
}

Test(several, routine_file_names)
{
  static const struct { const char *in, *out; } cases[] = {
    {"fit.png", "fit-dsymv.png"},   {"a/b.c/fit.PDF", "a/b.c/fit-dsymv.PDF"}, {"out", "out-dsymv"},
    {"a.b/out", "a.b/out-dsymv"},   {".hidden", ".hidden-dsymv"},            {"dir/", "dir/-dsymv"},
    {"x.tar.gz", "x.tar-dsymv.gz"}, {"", "-dsymv"}};
  char buf[64];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cr_assert_eq(cli_routine_file(cases[i].in, "dsymv", buf, sizeof buf), 0, "%s", cases[i].in);
    cr_assert_str_eq(buf, cases[i].out, "%s", cases[i].in);
  }
  cr_assert_eq(cli_routine_file("fit.png", "dsymv", buf, 13), -1, "13 bytes do not hold fit-dsymv.png");
  cr_assert_str_eq(buf, "");
  cr_assert_eq(cli_routine_file("fit.png", "dsymv", buf, 14), 0);
}

/* The reader the tests judge documents by: it must refuse what jq does. */
Test(several, the_json_reader_refuses_what_is_not_one_document)
{
  static const char *const bad[] = {
    "", "\n== ssymv ==\n{}", "{} {}", "{\"a\": 1,}", "[1, 2", "{\"a\" 1}", "{a: 1}", "\"tab\there\"",
    "[01]", "[1.]", "[.5]", "[nan]", "[NaN]", "[-]", "{\"a\": tru}", "[\"\\x\"]", "[\"\\u12g4\"]", "{}\n]"};
  static const char *const good[] = {
    "{}", " [ ] ", "{\"a\": [1, -2.5e-3, 0, true, false, null, \"\\u00e9\\n\\\"\"]}\n", "[{\"b\": {}}, [[]], 1E5]"};
  char why[128];
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    cr_assert_eq(test_json_check(bad[i], strlen(bad[i]), why, sizeof why), -1, "accepted: %s", bad[i]);
  for (size_t i = 0; i < sizeof good / sizeof *good; i++)
    cr_assert_eq(test_json_check(good[i], strlen(good[i]), why, sizeof why), 0, "refused %s: %s", good[i], why);
}

Test(sizes, a_size_whose_matrix_cannot_be_addressed_is_refused_before_anything_runs)
{
  /* ZHEMV at n = 2^30: n * n * 16 bytes wrap a 64-bit size to 0; refused
   * as a usage error, before the database is opened or a worker started */
  char err[2048];
  char *args[] = {"symvtune", "validate", "--db", "/nonexistent/sweep.db", "--routine", "zhemv", "--sizes",
                  "1000,1073741824", NULL};
  int rc = run_symvtune(err, sizeof err, args);
  cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
  cr_assert_not_null(strstr(err, "n = 1073741824: ZHEMV's matrix"), "%s", err);
  cr_assert_null(strstr(err, "nonexistent"), "the database was opened: %s", err);
}
