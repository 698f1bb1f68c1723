/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of wisdom files (lib/wisdom.h, compiled into this program from the
 * very source libsymv compiles), `symvtune export` and the library of
 * `symvtune build --wisdom`, none of which needs a GPU:
 *
 * - export of the shipped six-routine H100 sweep after `fit --routine all`,
 *   read back and compared with the database, rule for rule;
 * - export's options and refusals;
 * - a table of malformed and hostile files (bad numbers, huge ones, unknown
 *   kernels, overlapping or unsorted ranges, foreign headers, overlong
 *   lines, control bytes), each refused with its reason, every cut of a
 *   valid file refused, and a seeded mutation fuzzer: never a crash, and
 *   what is accepted writes back to the same text;
 * - the device match, field by field (a foreign GPU matches nothing);
 * - the search path's order ($SYMV_WISDOM entries, folders sorted, then
 *   the system folder);
 * - a --wisdom library loaded without a GPU: symvGetInfo reports every
 *   file of its search path in order, accepted or refused (an accepted
 *   one with the rules id a library compiled from the same database
 *   carries), its system folder and its identity.
 */
#include "libsymv_fixture.h"
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <sys/types.h>
#include "config.h"
#include "routine.h"
#include "symv.h"
#include "test_util.h"
#include "wisdom.h"
#include "../libgen/plan.h"

#ifndef SYMV_TEST_SRCDIR
#error "SYMV_TEST_SRCDIR (the source tree) must be defined"
#endif

extern const symv_command cmd_export_entry, cmd_fit_entry;

static char dir[64];
static void setup(void) { test_tmpdir(dir, sizeof dir, "wisdom"); }
static void teardown(void) { test_tmpdir_remove(dir); }
TestSuite(wisdom, .init = setup, .fini = teardown);

/* DIR/name in buf (512 bytes). */
static char *in_dir(char *buf, const char *name) { return test_path(buf, dir, name); }

static void put(const char *path, const char *text, size_t len)
{
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f, "%s", path);
  cr_assert_eq(fwrite(text, 1, len, f), len);
  cr_assert_eq(fclose(f), 0);
}

static int run_cmd(const symv_command *cmd, char **av, int ac, char **text)
{
  return test_run_in_process(cmd->run, ac, av, dir, text, text);
}

/* A valid file: two rule sets of dsymv, one of zhemv. */
static const char valid[] =
    "symv-wisdom 1\n"
    "# a comment\n"
    "symvtune 0.1.0\n"
    "sources 0123456789abcdef\n"
    "device.name NVIDIA H100 80GB HBM3\n"
    "device.cc 9.0\n"
    "device.sm_count 132\n"
    "device.l2_bytes 52428800\n"
    "device.bus_width_bits 5120\n"
    "device.smem_per_sm 233472\n"
    "device.regs_per_sm 65536\n"
    "device.mem_clock_khz 2619000\n"
    "device.driver_version 13000\n"
    "device.nvrtc 13.0\n"
    "db.schema 6\n"
    "\n"
    "rules dsymv any\n"
    "fit 5 2026-11-24T02:30:07Z L 0 32 32768 0.01\n"
    "method d-spline test\n"
    "rule 32 557 panel:256,2,4,2 2.8 1.9 64 4\n"
    "rule 558 9051 pipe:256,32,3,0 11.3 2.0 64 3\n"
    "rule 9052 32768 cublas_atomics 418.5 1\n"
    "end\n"
    "rules dsymv deterministic\n"
    "fit 6 2026-11-24T02:30:07Z L 0 32 32768 0.01\n"
    "method d-spline test\n"
    "rule 32 2338 panel:256,2,4,2 3.0 2.2 64 4\n"
    "rule 2339 32768 cublas 172.7 1\n"
    "end\n"
    "rules zhemv any\n"
    "fit 2 2026-11-23T22:56:54Z L 0 32 16384 0.01\n"
    "method m\n"
    "rule 32 16384 pipe:128,16,2,0 3.4 1.27 120 2\n"
    "end\n"
    "end-of-wisdom\n";

static int parse(const char *text, size_t len, symv_wisdom *w, char *err, size_t errlen)
{
  return symv_wisdom_parse(text, len, w, err, errlen);
}

/* w written to text (malloc'ed). */
static char *write_text(const symv_wisdom *w, size_t *len)
{
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  cr_assert_not_null(f);
  cr_assert_eq(symv_wisdom_write(f, w), 0);
  cr_assert_eq(fclose(f), 0);
  return text;
}

Test(wisdom, valid_file_parses_into_its_values)
{
  symv_wisdom w;
  char err[512];
  cr_assert_eq(parse(valid, strlen(valid), &w, err, sizeof err), 0, "%s", err);
  cr_assert_str_eq(w.dev.name, "NVIDIA H100 80GB HBM3");
  cr_assert_eq(w.dev.cc_major * 10 + w.dev.cc_minor, 90);
  cr_assert_eq(w.dev.sm_count, 132);
  cr_assert_eq(w.dev.l2_bytes, 52428800LL);
  cr_assert_eq(w.sources, 0x0123456789abcdefULL);
  cr_assert_eq(w.db_schema, 6);
  const symv_wisdom_set *a = &w.set[SYMV_DSYMV][0], *d = &w.set[SYMV_DSYMV][1], *z = &w.set[SYMV_ZHEMV][0];
  cr_assert(a->have && d->have && z->have && !w.set[SYMV_ZHEMV][1].have && !w.set[SYMV_SSYMV][0].have);
  cr_assert_eq(a->count, 3);
  cr_assert_eq(d->count, 2);
  cr_assert_eq(w.ncands, 3, "panel is shared by both dsymv sets: %d", w.ncands);
  const symv_wisdom_rule *r = &w.rules[a->first + 1];
  cr_assert_eq(r->n_start, 558);
  cr_assert_eq(r->n_end, 9051);
  cr_assert_str_eq(w.cands[r->kernel].name, "dsymv_pipe_b256_u32_x0");
  cr_assert_eq(w.cands[r->kernel].regs, 64);
  cr_assert_eq(w.cands[r->kernel].occupancy, 3);
  cr_assert_eq(w.rules[a->first + 2].kernel, SYMV_WISDOM_CUBLAS_ATOMICS);
  cr_assert_eq(w.rules[d->first + 1].kernel, SYMV_WISDOM_CUBLAS);
  cr_assert_eq(w.cands[w.rules[z->first].kernel].p.routine, SYMV_ZHEMV);
  /* written and read again: the same values, the same text */
  size_t len;
  char *text = write_text(&w, &len);
  symv_wisdom w2;
  cr_assert_eq(parse(text, len, &w2, err, sizeof err), 0, "%s\n%s", err, text);
  size_t len2;
  char *text2 = write_text(&w2, &len2);
  cr_assert(len == len2 && !memcmp(text, text2, len), "%s\n---\n%s", text, text2);
  free(text), free(text2);
  symv_wisdom_free(&w), symv_wisdom_free(&w2);
}

/* ---- Malformed and hostile files ------------------------------------------ */

typedef struct {
  const char *from, *to; /* the valid file with the first `from` made `to` */
  const char *expect;    /* in the refusal */
} bad_case;

static const bad_case bad_cases[] = {
  {"symv-wisdom 1\n", "symv-wisdom 2\n", "format version 2"},
  {"symv-wisdom 1\n", "SYMV-WISDOM 1\n", "not a wisdom file"},
  {"symv-wisdom 1\n", "symv-wisdom 99999999999999999999\n", "not an integer"},
  {"device.cc 9.0", "device.cc 9.0.1", "MAJOR.MINOR"},
  {"device.cc 9.0", "device.cc 9", "MAJOR.MINOR"},
  {"device.sm_count 132", "device.sm_count 99999999999999999999999999", "not an integer"},
  {"device.sm_count 132", "device.sm_count -132", "not an integer"},
  {"device.sm_count 132", "device.sm_count 0132", "not an integer"},
  {"device.sm_count 132", "device.sm_count 0", "not an integer in 1..65536"},
  {"device.l2_bytes 52428800\n", "", "expected 'device.l2_bytes'"},
  {"device.name NVIDIA H100 80GB HBM3", "device.name NVIDIA H100 80GB HBM3 ", "ends with a space"},
  {"sources 0123456789abcdef", "sources 0123456789ABCDEF", "16 lower-case hex"},
  {"db.schema 6\n", "db.schema 6\nbogus 1\n", "expected 'rules' or 'end-of-wisdom'"},
  {"rule 558 9051", "rule 558 2147483648", "not an integer in"},
  {"rule 558 9051", "rule 559 9051", "a gap"},
  {"rule 558 9051", "rule 500 9051", "an overlap or out of order"},
  {"rule 32 557 panel:256,2,4,2 2.8 1.9 64 4\nrule 558 9051 pipe:256,32,3,0 11.3 2.0 64 3",
   "rule 558 9051 pipe:256,32,3,0 11.3 2.0 64 3\nrule 32 557 panel:256,2,4,2 2.8 1.9 64 4", "out of order"},
  {"rule 9052 32768 cublas_atomics", "rule 9052 30000 cublas_atomics", "end at 30000, not at hi 32768"},
  {"rule 9052 32768 cublas_atomics", "rule 9052 40000 cublas_atomics", "ends beyond hi"},
  {"rule 558 9051", "rule 558 557", "empty"},
  {"pipe:256,32,3,0", "warp:256,32,3,0", "unknown kernel family 'warp'"},
  {"pipe:256,32,3,0", "floor:256,32,3,0", "unknown kernel family 'floor'"},
  {"pipe:256,32,3,0", "pipe:256,32,3", "FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX"},
  {"pipe:256,32,3,0", "pipe:256,32,3,0,", "FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX"},
  {"pipe:256,32,3,0", "pipe:256,32,99999,0", "not a small integer"},
  {"pipe:256,32,3,0", "pipe:256,33,3,0", "kernel 'pipe:256,33,3,0'"},
  {"pipe:256,32,3,0 11.3 2.0 64 3", "pipe:256,32,3,0 11.3 2.0 64 2", "not the candidate's MULTIPLICITY 3"},
  {"pipe:256,32,3,0 11.3 2.0 64 3", "pipe:256,32,3,0 11.3 2.0 300 3", "registers per thread"},
  {"pipe:256,32,3,0 11.3 2.0 64 3", "pipe:256,32,3,0 11.3 2.0", "no REGS and OCCUPANCY"},
  {"pipe:256,32,3,0 11.3 2.0 64 3", "pipe:256,32,3,0 11.3 2.0 64", "both REGS and OCCUPANCY"},
  {"rule 2339 32768 cublas 172.7 1", "rule 2339 32768 cublas 172.7 1 64 1", "takes no REGS"},
  {"rule 2339 32768 cublas 172.7 1", "rule 2339 32768 cublas_atomics 172.7 1", "names cuBLAS with atomics"},
  {"rule 32 2338 panel:256,2,4,2 3.0 2.2 64 4", "rule 32 2338 pipe:256,32,3,0 3.0 2.2 64 3", "not deterministic"},
  {"rule 32 2338 panel:256,2,4,2 3.0 2.2 64 4", "rule 32 2338 panel:256,2,4,2 3.0 2.2 65 4", "given twice"},
  {"11.3 2.0", "nan 2.0", "not a number"},
  {"11.3 2.0", "inf 2.0", "not a number"},
  {"11.3 2.0", "1e300 2.0", "not a number in 0..1e12"},
  {"11.3 2.0", "-11.3 2.0", "not a number"},
  {"rules zhemv any", "rules dsymv any", "a second set of dsymv any"},
  {"rules zhemv any", "rules dgemv any", "unknown routine 'dgemv'"},
  {"rules zhemv any", "rules zhemv maybe", "atomics class"},
  {"rules zhemv any", "rules  zhemv any", "two spaces"},
  {"fit 2 2026", "fit 0 2026", "fit id"},
  {"L 0 32 16384", "X 0 32 16384", "uplo"},
  {"L 0 32 16384", "L 2 32 16384", "hot"},
  {"L 0 32 16384", "L 0 40000 16384", "hi '16384'"},
  {"rule 32 16384 pipe:128,16,2,0 3.4 1.27 120 2\n", "", "are empty"},
  {"method m\n", "", "expected 'method'"},
  {"method m\n", "method m\r\n", "not printable ASCII"},
  {"method m\n", "method m\x01\n", "not printable ASCII"},
  {"method m\n", "method \xc3\xa9\n", "not printable ASCII"},
  {"end-of-wisdom\n", "end-of-wisdom\nrule 1 2\n", "text after 'end-of-wisdom'"},
  {"end-of-wisdom\n", "", "no 'end-of-wisdom'"},
  {"end-of-wisdom\n", "end-of-wisdom", "no newline at the end"},
  {"end\nend-of-wisdom\n", "end-of-wisdom\n", "expected 'rule' or 'end'"},
  {"rules zhemv any", "rules zhemv any extra", "'rules' takes 2 values, not 3"},
  {"rule 2339 32768 cublas 172.7 1", "rule 2339 32768 cublas 172.7", "'rule' takes 5 to 7 values, not 4"},
  {"db.schema 6", "db.schema", "'db.schema' takes 1 value, not 0"},
};

static char *mutate(const char *from, const char *to, size_t *len)
{
  const char *at = strstr(valid, from);
  cr_assert_not_null(at, "'%s' is not in the valid file", from);
  size_t pre = (size_t)(at - valid), fl = strlen(from), tl = strlen(to), vl = strlen(valid);
  char *s = malloc(vl - fl + tl + 1);
  memcpy(s, valid, pre);
  memcpy(s + pre, to, tl);
  memcpy(s + pre + tl, at + fl, vl - pre - fl + 1);
  *len = vl - fl + tl;
  return s;
}

/* pipe_fx is deterministic: a deterministic rule set may name it, and
 * the wisdom loader takes its candidate by the name its entry point has. */
Test(wisdom, a_deterministic_rule_set_may_name_pipe_fx)
{
  size_t len;
  char *text = mutate("rule 32 2338 panel:256,2,4,2 3.0 2.2 64 4", "rule 32 2338 pipe_fx:256,64,2,0 3.0 2.2 96 2", &len),
       err[512] = "";
  symv_wisdom w;
  cr_assert_eq(parse(text, len, &w, err, sizeof err), 0, "%s", err);
  const symv_wisdom_set *d = &w.set[SYMV_DSYMV][1];
  const symv_wisdom_rule *r = &w.rules[d->first];
  cr_assert_eq(w.cands[r->kernel].p.family, SYMV_FAMILY_PIPE_FX);
  cr_assert_str_eq(w.cands[r->kernel].name, "dsymv_pipe_fx_b256_u64_x0");
  cr_assert_eq(w.cands[r->kernel].regs, 96);
  symv_wisdom_free(&w);
  free(text);
}

Test(wisdom, malformed_and_hostile_files_are_refused_with_the_reason)
{
  for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
    size_t len;
    char *text = mutate(bad_cases[i].from, bad_cases[i].to, &len), err[512] = "";
    symv_wisdom w;
    int rc = parse(text, len, &w, err, sizeof err);
    cr_expect_eq(rc, SYMV_INVALID_VALUE, "case %zu (%s -> %s): accepted", i, bad_cases[i].from, bad_cases[i].to);
    cr_expect_not_null(strstr(err, bad_cases[i].expect), "case %zu: expected '%s' in '%s'", i, bad_cases[i].expect,
                       err);
    cr_expect_eq(strncmp(err, "line ", 5), 0, "case %zu: the refusal names no line: %s", i, err);
    cr_expect_eq(w.ncands == 0 || w.cands != NULL, 1);
    symv_wisdom_free(&w);
    free(text);
  }
}

Test(wisdom, a_nul_byte_an_overlong_line_and_too_many_rules_are_refused)
{
  symv_wisdom w;
  char err[512];
  /* a NUL inside the text (not the end of the string to this reader) */
  char *nul = strdup(valid);
  nul[strstr(nul, "method m") - nul + 7] = 0;
  cr_assert_eq(parse(nul, strlen(valid), &w, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "0x00"), "%s", err);
  symv_wisdom_free(&w);
  free(nul);
  /* a method of 5000 bytes */
  char *big = malloc(6000 + sizeof valid);
  const char *m = strstr(valid, "method m\n");
  size_t pre = (size_t)(m - valid);
  memcpy(big, valid, pre + 8);
  memset(big + pre + 8, 'x', 5000);
  strcpy(big + pre + 5008, m + 8);
  cr_assert_eq(parse(big, strlen(big), &w, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "longer than"), "%s", err);
  symv_wisdom_free(&w);
  free(big);
  /* 4097 one-wide rules in one set */
  size_t cap = 300000, len = 0;
  char *many = malloc(cap);
  const char *z = strstr(valid, "rules zhemv any\n");
  memcpy(many, valid, (size_t)(z - valid));
  len = (size_t)(z - valid);
  len += (size_t)sprintf(many + len, "rules zhemv any\nfit 2 t L 0 1 4097 0.01\nmethod m\n");
  for (int n = 1; n <= 4097; n++) len += (size_t)sprintf(many + len, "rule %d %d cublas 1 1\n", n, n);
  len += (size_t)sprintf(many + len, "end\nend-of-wisdom\n");
  cr_assert_eq(parse(many, len, &w, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "more than 4096 rules"), "%s", err);
  symv_wisdom_free(&w);
  /* 4096 are fine */
  len = (size_t)(z - valid);
  len += (size_t)sprintf(many + len, "rules zhemv any\nfit 2 t L 0 1 4096 0.01\nmethod m\n");
  for (int n = 1; n <= 4096; n++) len += (size_t)sprintf(many + len, "rule %d %d cublas 1 1\n", n, n);
  len += (size_t)sprintf(many + len, "end\nend-of-wisdom\n");
  cr_assert_eq(parse(many, len, &w, err, sizeof err), 0, "%s", err);
  cr_assert_eq(w.set[SYMV_ZHEMV][0].count, 4096);
  symv_wisdom_free(&w);
  free(many);
  /* longer than a wisdom file may be */
  cr_assert_eq(parse(valid, (size_t)SYMV_WISDOM_MAX_BYTES + 1, &w, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "larger than"), "%s", err);
  symv_wisdom_free(&w);
}

Test(wisdom, every_cut_of_a_valid_file_is_refused)
{
  const size_t vl = strlen(valid);
  for (size_t l = 0; l < vl; l++) {
    symv_wisdom w;
    char err[512] = "";
    cr_expect_eq(parse(valid, l, &w, err, sizeof err), SYMV_INVALID_VALUE, "cut at %zu of %zu accepted", l, vl);
    symv_wisdom_free(&w);
  }
}

/* A seeded mutation fuzzer: byte changes, deletions, duplicated and swapped
 * lines, long digit runs. The reader never crashes (the sanitizer build
 * runs this too), refuses with a line number, or accepts a file that
 * writes back to a text it accepts again, with the same values. */
Test(wisdom, random_damage_is_refused_or_read_consistently, .timeout = 120)
{
  uint64_t seed = test_fresh_seed(), x = seed;
  cr_log_info("seed %llu (SYMV_TEST_SEED replays it)", (unsigned long long)seed);
  const size_t vl = strlen(valid);
  int accepted = 0;
  for (int it = 0; it < 4000; it++) {
    char *s = malloc(2 * vl + 256);
    memcpy(s, valid, vl + 1);
    size_t len = vl;
    for (int ops = test_rng_int(&x, 1, 3); ops > 0; ops--) {
      size_t at = (size_t)test_rng_int(&x, 0, (int)len - 1);
      switch (test_rng_int(&x, 0, 4)) {
      case 0: s[at] = (char)test_rng_int(&x, 0, 255); break;
      case 1: s[at] = "0123456789 .,:-\n"[test_rng_int(&x, 0, 15)]; break;
      case 2: { /* delete a span */
        size_t k = (size_t)test_rng_int(&x, 1, 12);
        if (at + k > len) k = len - at;
        memmove(s + at, s + at + k, len - at - k + 1);
        len -= k;
        break;
      }
      case 3: { /* a run of digits */
        size_t k = (size_t)test_rng_int(&x, 1, 24);
        memmove(s + at + k, s + at, len - at + 1);
        for (size_t i = 0; i < k; i++) s[at + i] = (char)('0' + test_rng_int(&x, 0, 9));
        len += k;
        break;
      }
      default: { /* duplicate the line at `at` */
        size_t b = at, e = at;
        while (b > 0 && s[b - 1] != '\n') b--;
        while (e < len && s[e] != '\n') e++;
        if (e < len) e++;
        size_t k = e - b;
        if (len + k < 2 * vl + 200) {
          memmove(s + e + k, s + e, len - e + 1);
          memcpy(s + e, s + b, k);
          len += k;
        }
      }
      }
      if (len == 0) break;
    }
    symv_wisdom w;
    char err[512] = "";
    int rc = parse(s, len, &w, err, sizeof err);
    cr_assert(rc == 0 || rc == SYMV_INVALID_VALUE, "iteration %d: code %d", it, rc);
    if (rc) {
      cr_assert_eq(strncmp(err, "line ", 5), 0, "iteration %d: %s", it, err);
    } else {
      accepted++;
      size_t l1, l2;
      char *t1 = write_text(&w, &l1);
      symv_wisdom w2;
      cr_assert_eq(parse(t1, l1, &w2, err, sizeof err), 0, "iteration %d: written back, refused: %s\n%s", it, err, t1);
      char *t2 = write_text(&w2, &l2);
      cr_assert(l1 == l2 && !memcmp(t1, t2, l1), "iteration %d: not stable", it);
      free(t1), free(t2);
      symv_wisdom_free(&w2);
    }
    symv_wisdom_free(&w);
    free(s);
  }
  cr_log_info("%d of 4000 damaged files accepted (comments, numbers still in range)", accepted);
}

/* ---- The device match --------------------------------------------------- */

Test(wisdom, only_the_same_gpu_model_matches)
{
  symv_wisdom w;
  char err[512], why[300];
  cr_assert_eq(parse(valid, strlen(valid), &w, err, sizeof err), 0, "%s", err);
  const symv_wisdom_device same = w.dev;
  cr_assert_eq(symv_wisdom_match(&w, &same, why, sizeof why), 1);
  symv_wisdom_device other = same;
  other.mem_clock_khz = 1, other.driver_version = 1, other.nvrtc_major = 99; /* told, not matched */
  cr_assert_eq(symv_wisdom_match(&w, &other, why, sizeof why), 1, "%s", why);
  symv_wisdom_device d;
  d = same, snprintf(d.name, sizeof d.name, "NVIDIA H200");
  cr_assert_eq(symv_wisdom_match(&w, &d, why, sizeof why), 0);
  cr_assert_not_null(strstr(why, "GPU NVIDIA H200, not NVIDIA H100 80GB HBM3"), "%s", why);
  d = same, d.cc_minor = 1;
  cr_assert_eq(symv_wisdom_match(&w, &d, why, sizeof why), 0);
  cr_assert_not_null(strstr(why, "compute capability 9.1"), "%s", why);
  d = same, d.sm_count = 114; /* a smaller part of the same name, or a MIG slice */
  cr_assert_eq(symv_wisdom_match(&w, &d, why, sizeof why), 0);
  cr_assert_not_null(strstr(why, "sm_count 114, not 132"), "%s", why);
  d = same, d.l2_bytes /= 2;
  cr_assert_eq(symv_wisdom_match(&w, &d, why, sizeof why), 0);
  cr_assert_not_null(strstr(why, "l2_bytes"), "%s", why);
  d = same, d.bus_width_bits = 4096;
  cr_assert_eq(symv_wisdom_match(&w, &d, why, sizeof why), 0);
  cr_assert_not_null(strstr(why, "bus_width_bits"), "%s", why);
  d = same, d.smem_per_sm = 1;
  cr_assert_eq(symv_wisdom_match(&w, &d, why, sizeof why), 0);
  cr_assert_not_null(strstr(why, "smem_per_sm"), "%s", why);
  d = same, d.regs_per_sm = 1;
  cr_assert_eq(symv_wisdom_match(&w, &d, why, sizeof why), 0);
  cr_assert_not_null(strstr(why, "regs_per_sm"), "%s", why);
  symv_wisdom_free(&w);
}

/* ---- Files and the search path ------------------------------------------ */

Test(wisdom, only_regular_files_of_bounded_size_are_read)
{
  char p[1024], q[512], err[512];
  symv_wisdom w;
  put(in_dir(p, "ok.symvw"), valid, strlen(valid));
  cr_assert_eq(symv_wisdom_read(p, &w, err, sizeof err), 0, "%s", err);
  symv_wisdom_free(&w);
  cr_assert_eq(symlink(p, in_dir(q, "link.symvw")), 0);
  cr_assert_eq(symv_wisdom_read(q, &w, err, sizeof err), SYMV_IO, "a symbolic link was followed");
  cr_assert_eq(mkfifo(in_dir(q, "fifo.symvw"), 0644), 0);
  cr_assert_eq(symv_wisdom_read(q, &w, err, sizeof err), SYMV_IO, "a FIFO was read");
  cr_assert_not_null(strstr(err, "not a regular file"), "%s", err);
  cr_assert_eq(symv_wisdom_read(in_dir(q, "absent.symvw"), &w, err, sizeof err), SYMV_IO);
  FILE *f = fopen(in_dir(q, "huge.symvw"), "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fputs(valid, f) >= 0, 1);
  cr_assert_eq(fseek(f, SYMV_WISDOM_MAX_BYTES + 10, SEEK_SET), 0);
  cr_assert_eq(fputc('\n', f), '\n');
  cr_assert_eq(fclose(f), 0);
  cr_assert_eq(symv_wisdom_read(q, &w, err, sizeof err), SYMV_INVALID_VALUE);
  cr_assert_not_null(strstr(err, "larger than"), "%s", err);
  symv_wisdom_free(&w);
}

Test(wisdom, search_path_order_is_the_lists_then_the_system_folder)
{
  char a[512], b[512], sys[512], p[1024], f1[512], f2[512], list[4096];
  cr_assert_eq(mkdir(in_dir(a, "a"), 0755), 0);
  cr_assert_eq(mkdir(in_dir(b, "b"), 0755), 0);
  cr_assert_eq(mkdir(in_dir(sys, "sys"), 0755), 0);
  static const char *const names[] = {"a/z.symvw", "a/b.symvw", "a/m.symvw", "a/notes.txt", "a/.hidden.symvw",
                                      "b/x.symvw", "sys/s1.symvw", "sys/s0.symvw", "one.symvw", "two.wisdom"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) put(in_dir(p, names[i]), "x\n", 2);
  cr_assert_eq(mkdir(in_dir(p, "a/dir.symvw"), 0755), 0); /* a folder is no file */
  snprintf(list, sizeof list, "%s:%s::%s/absent:%s:%s", in_dir(f1, "one.symvw"), a, dir, in_dir(f2, "two.wisdom"), b);
  char *files[SYMV_WISDOM_MAX_FILES], notes[1024];
  int n = -1;
  cr_assert_eq(symv_wisdom_search(list, sys, files, &n, notes, sizeof notes), 0);
  static const char *const want[] = {"one.symvw", "a/b.symvw", "a/m.symvw", "a/z.symvw", "two.wisdom", "b/x.symvw",
                                     "sys/s0.symvw", "sys/s1.symvw"};
  cr_assert_eq(n, 8, "%d files", n);
  for (int i = 0; i < n; i++) {
    in_dir(p, want[i]);
    cr_expect_str_eq(files[i], p, "file %d", i);
  }
  cr_assert_not_null(strstr(notes, "/absent: No such file or directory\n"), "%s", notes);
  symv_wisdom_search_free(files, n);
  /* no list, a system folder that does not exist: nothing, and nothing told */
  cr_assert_eq(symv_wisdom_search(NULL, "/nonexistent/share/symv", files, &n, notes, sizeof notes), 0);
  cr_assert_eq(n, 0);
  cr_assert_str_eq(notes, "");
  /* more files than the limit: the first ones kept, the rest told */
  char many[512];
  cr_assert_eq(mkdir(in_dir(many, "many"), 0755), 0);
  for (int i = 0; i < SYMV_WISDOM_MAX_FILES + 5; i++) {
    snprintf(p, sizeof p, "%s/f%03d.symvw", many, i);
    put(p, "x\n", 2);
  }
  cr_assert_eq(symv_wisdom_search(many, NULL, files, &n, notes, sizeof notes), 0);
  cr_assert_eq(n, SYMV_WISDOM_MAX_FILES);
  cr_assert_not_null(strstr(files[0], "f000.symvw"), "%s", files[0]);
  cr_assert_not_null(strstr(notes, "more than"), "%s", notes);
  symv_wisdom_search_free(files, n);
}

/* ---- symvtune export ---------------------------------------------------- */

/* The fixture's database (tests/libsymv_fixture.h): a dsymv fit of both
 * classes on the shipped H200 sweep. */
static void fixture_db(char *path)
{
  char err[512] = "";
  cr_assert_eq(fix_make_db(in_dir(path, "fit.db"), NULL, 0, 0, 0, NULL, err, sizeof err), 0, "%s", err);
}

Test(wisdom, export_options_and_refusals)
{
  char db[512], out[512], *t;
  fixture_db(db);
  char *help[] = {"export", "--help", NULL};
  cr_assert_eq(run_cmd(&cmd_export_entry, help, 2, &t), 0);
  cr_assert_not_null(strstr(t, "Usage: symvtune export --db FILE --out FILE.symvw"), "%s", t);
  free(t);
  struct { char *args[8]; int status; const char *expect; } cases[] = {
    {{"export", "--out", "x.symvw"}, SYMV_EXIT_USAGE, "--db FILE is required"},
    {{"export", "--db", db}, SYMV_EXIT_USAGE, "--out FILE is required"},
    {{"export", "--db", db, "--out", "x", "--routine", "dgemv"}, SYMV_EXIT_USAGE, "dgemv"},
    {{"export", "--db", db, "--out", db}, SYMV_EXIT_USAGE, "refusing to write over it"},
    {{"export", "--db", db, "--out", "x", "extra"}, SYMV_EXIT_USAGE, "unexpected argument"},
    {{"export", "--db", db, "--out", in_dir(out, "z.symvw"), "--routine", "zhemv"}, SYMV_EXIT_ERROR, "no fit of zhemv"},
    {{"export", "--db", "/nonexistent.db", "--out", "x"}, SYMV_EXIT_ERROR, "cannot open the database"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int ac = 0;
    while (cases[i].args[ac]) ac++;
    int st = run_cmd(&cmd_export_entry, cases[i].args, ac, &t);
    cr_expect_eq(st, cases[i].status, "case %zu: exit %d\n%s", i, st, t);
    cr_expect_not_null(strstr(t, cases[i].expect), "case %zu: no '%s' in\n%s", i, cases[i].expect, t);
    free(t);
  }
  cr_assert_neq(access(out, F_OK), 0, "a refused export wrote %s", out);
  /* the sweep as shipped: no fit */
  char sweep[512], nofit[512];
  cr_assert_eq(fix_copy(fix_sweep_db(sweep), in_dir(nofit, "nofit.db")), 0);
  char *av[] = {"export", "--db", nofit, "--out", in_dir(out, "n.symvw"), NULL};
  cr_assert_eq(run_cmd(&cmd_export_entry, av, 5, &t), SYMV_EXIT_ERROR, "%s", t);
  cr_assert_not_null(strstr(t, "no fit in the database"), "%s", t);
  free(t);
  cr_assert_neq(access(out, F_OK), 0);
  /* to standard output, and to a file: the same text, the fixture's rules */
  char *so[] = {"export", "--db", db, "--out", "-", "--routine", "dsymv", NULL};
  char *text = NULL;
  cr_assert_eq(test_run_in_process(cmd_export_entry.run, 7, so, dir, &text, NULL), 0);
  char *fo[] = {"export", "--db", db, "--out", in_dir(out, "h200.symvw"), NULL};
  cr_assert_eq(run_cmd(&cmd_export_entry, fo, 5, &t), 0, "%s", t);
  cr_assert_not_null(strstr(t, "2 rule sets, 8 rules, 4 candidates"), "%s", t);
  free(t);
  long len;
  char *file = (char *)test_slurp(out, &len);
  cr_assert_not_null(file);
  cr_assert_str_eq(text, file);
  symv_wisdom w;
  char err[512];
  cr_assert_eq(symv_wisdom_read(out, &w, err, sizeof err), 0, "%s", err);
  cr_assert_eq(w.set[SYMV_DSYMV][0].count, FIX_NRULES);
  cr_assert_eq(w.set[SYMV_DSYMV][1].count, FIX_NDET);
  for (int i = 0; i < FIX_NRULES; i++) {
    const symv_wisdom_rule *r = &w.rules[w.set[SYMV_DSYMV][0].first + i];
    cr_expect_eq(r->n_start, fix_rules[i].n_start);
    cr_expect_eq(r->n_end, fix_rules[i].n_end);
    cr_expect_eq(r->kernel >= 0, fix_rules[i].cand >= 0, "rule %d", i);
  }
  symv_wisdom_free(&w);
  free(text), free(file);
}

/* The shipped six-routine H100 sweep, every routine fitted again (both
 * atomics classes), exported, read back with the library's reader: every
 * value of the database is in the file. */
Test(wisdom, export_round_trip_of_all_six_routines, .timeout = 600)
{
  char xz[1024], dbp[512], out[512], cmd[2048], *t;
  snprintf(xz, sizeof xz, "%s/tests/data/sweep6-h100.db.xz", fix_env("SYMV_TEST_SRCDIR", SYMV_TEST_SRCDIR));
  cr_assert_eq(access(xz, R_OK), 0, "no %s", xz);
  snprintf(cmd, sizeof cmd, "xz -dc '%s' > '%s'", xz, in_dir(dbp, "six.db"));
  if (system(cmd)) cr_skip_test("xz could not unpack %s", xz);
  char *fit[] = {"fit", "--db", dbp, "--routine", "all", NULL};
  cr_assert_eq(run_cmd(&cmd_fit_entry, fit, 5, &t), 0, "%s", t);
  free(t);
  char *ex[] = {"export", "--db", dbp, "--out", in_dir(out, "h100.symvw"), NULL};
  cr_assert_eq(run_cmd(&cmd_export_entry, ex, 5, &t), 0, "%s", t);
  free(t);
  symv_wisdom w;
  char err[512];
  cr_assert_eq(symv_wisdom_read(out, &w, err, sizeof err), 0, "%s", err);
  db *d = NULL;
  db_device dev;
  cr_assert_eq(db_open(&d, dbp, DB_READONLY), 0);
  cr_assert_eq(db_get_device(d, &dev), 0);
  cr_assert_str_eq(w.dev.name, dev.name);
  cr_assert_eq(w.dev.cc_major, dev.cc_major);
  cr_assert_eq(w.dev.cc_minor, dev.cc_minor);
  cr_assert_eq(w.dev.sm_count, dev.sm_count);
  cr_assert_eq(w.dev.l2_bytes, dev.l2_bytes);
  cr_assert_eq(w.dev.bus_width_bits, dev.bus_width_bits);
  cr_assert_eq(w.dev.smem_per_sm, dev.smem_per_sm);
  cr_assert_eq(w.dev.regs_per_sm, dev.regs_per_sm);
  cr_assert_eq(w.dev.mem_clock_khz, dev.mem_clock_khz);
  cr_assert_eq(w.dev.nvrtc_major, dev.nvrtc_major);
  cr_assert_eq(w.db_schema, DB_SCHEMA_VERSION);
  cr_assert_str_eq(w.symvtune, PACKAGE_VERSION);
  int sets = 0, rules = 0;
  for (int q = 0; q < 2 * SYMV_ROUTINE_COUNT; q++) {
    const symv_routine ro = (symv_routine)(q / 2);
    const int det = q % 2;
    db_fit f;
    db_rule *r = NULL;
    size_t nr = 0;
    int rc = db_latest_fit_class(d, ro, 'L', 0, det, &f, &r, &nr, NULL, NULL);
    const symv_wisdom_set *s = &w.set[ro][det];
    if (rc == SYMV_NOT_FOUND) {
      cr_expect_eq(s->have, 0, "%s %d: a set without a fit", symv_routine_name(ro), det);
      continue;
    }
    cr_assert_eq(rc, 0, "%s", db_errmsg(d));
    cr_assert(s->have, "%s %s: no set in the file", symv_routine_name(ro), det ? "deterministic" : "any");
    sets++;
    cr_expect_eq(s->fit_id, f.id);
    cr_expect_str_eq(s->created, f.created);
    cr_expect_eq(s->uplo, f.uplo);
    cr_expect_eq(s->hot, f.hot);
    cr_expect_eq(s->lo, f.lo);
    cr_expect_eq(s->hi, f.hi);
    cr_expect_eq(s->threshold, f.threshold, "%.17g %.17g", s->threshold, f.threshold);
    cr_expect_str_eq(s->method, f.method);
    cr_assert_eq((size_t)s->count, nr);
    for (size_t i = 0; i < nr; i++, rules++) {
      const symv_wisdom_rule *wr = &w.rules[s->first + (int)i];
      cr_expect_eq(wr->n_start, r[i].n_start);
      cr_expect_eq(wr->n_end, r[i].n_end);
      cr_expect_eq(wr->predicted_us, r[i].predicted_us);
      cr_expect_eq(wr->gain, r[i].predicted_gain);
      if (!strcmp(r[i].kernel, DB_KERNEL_CANDIDATE)) {
        cr_assert_geq(wr->kernel, 0);
        const symv_wisdom_cand *c = &w.cands[wr->kernel];
        cr_expect_eq(c->p.family, r[i].cand.p.family);
        cr_expect_eq(c->p.block_size, r[i].cand.p.block_size);
        cr_expect_eq(c->p.ux, r[i].cand.p.ux);
        cr_expect_eq(c->p.multiplicity, r[i].cand.p.multiplicity);
        cr_expect_eq(c->p.mx, r[i].cand.p.mx);
        cr_expect_eq(c->p.routine, ro);
        cr_expect_eq(c->regs, r[i].cand.regs_per_thread);
        cr_expect_eq(c->occupancy, r[i].cand.p.multiplicity);
      } else {
        cr_expect_eq(wr->kernel, strcmp(r[i].kernel, DB_KERNEL_CUBLAS) ? SYMV_WISDOM_CUBLAS_ATOMICS
                                                                        : SYMV_WISDOM_CUBLAS, "%s", r[i].kernel);
      }
    }
    free(r);
  }
  db_close(d);
  for (int ro = 0; ro < SYMV_ROUTINE_COUNT; ro++)
    cr_expect(w.set[ro][0].have, "%s: no 'any' rules after fit --routine all", symv_routine_name((symv_routine)ro));
  cr_assert_eq(rules, w.nrules);
  cr_log_info("%d rule sets, %d rules, %d candidates", sets, rules, w.ncands);
  symv_wisdom_free(&w);
}

/* ---- The --wisdom library, without a GPU --------------------------------- */

static int have_nvcc(void) { return *FIX_NVCC && access(FIX_NVCC, X_OK) == 0; }

Test(wisdom, build_wisdom_options)
{
  char db[512], out[512], *t;
  fixture_db(db);
  struct { char *args[8]; const char *expect; } cases[] = {
    {{"build", "--wisdom", "--db", db, "--out", "x"}, "--wisdom takes no --db"},
    {{"build", "--wisdom", "--arch", "sm_90", "--out", "x"}, "--wisdom takes no --arch"},
    {{"build", "--wisdom", "--wisdom-dir", "relative/dir", "--out", "x"}, "an absolute path"},
    {{"build", "--db", db, "--wisdom-dir", "/x", "--out", "x"}, "--wisdom-dir goes with --wisdom"},
    {{"build", "--out", "x"}, "--db FILE is required (or --wisdom)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int ac = 0;
    while (cases[i].args[ac]) ac++;
    int st = run_cmd(&cmd_build_entry, cases[i].args, ac, &t);
    cr_expect_eq(st, SYMV_EXIT_USAGE, "case %zu: exit %d\n%s", i, st, t);
    cr_expect_not_null(strstr(t, cases[i].expect), "case %zu: no '%s' in\n%s", i, cases[i].expect, t);
    free(t);
  }
  cr_assert(!fix_exists(in_dir(out, "x")), "a refused build wrote its --out");
}

/* A --wisdom library, loaded in a process without a GPU: it reads its
 * search path (SYMV_WISDOM, then the system folder) once, accepts the
 * files it can use and refuses the others, each with its reason, in that
 * order; symvGetInfo reports it all. */
Test(wisdom, library_reads_its_search_path, .timeout = 300)
{
  if (!have_nvcc()) cr_skip_test("no nvcc: no library to build");
  char db[512], out[512], sys[512], good[512], p[1024], q[512], log[512], *t;
  fixture_db(db);
  char *ex[] = {"export", "--db", db, "--out", in_dir(good, "good.symvw"), NULL};
  cr_assert_eq(run_cmd(&cmd_export_entry, ex, 5, &t), 0, "%s", t);
  free(t);
  cr_assert_eq(mkdir(in_dir(sys, "sys"), 0755), 0);
  const char *args[] = {"--wisdom", "--out", in_dir(out, "wlib"), "--wisdom-dir", sys, "--nvcc", FIX_NVCC};
  int rc = fix_build(in_dir(log, "build.log"), args, 7);
  cr_assert_eq(rc, 0, "build --wisdom: %s", (t = fix_slurp(log)) ? t : "");
  /* the system folder: one good file, one of other kernel sources */
  long len;
  char *text = (char *)test_slurp(good, &len);
  cr_assert_not_null(text);
  snprintf(p, sizeof p, "%s/a.symvw", sys);
  put(p, text, (size_t)len);
  char *src = strstr(text, "\nsources ");
  cr_assert_not_null(src);
  src[9] = src[9] == '0' ? '1' : '0';
  snprintf(p, sizeof p, "%s/b.symvw", sys);
  put(p, text, (size_t)len);
  put(in_dir(q, "bad.symvw"), "symv-wisdom 1\nsymvtune x\n", 25);
  char env[2048];
  snprintf(env, sizeof env, "%s:%s/absent:%s", q, dir, good);
  setenv("SYMV_WISDOM", env, 1);
  unsetenv("SYMV_LOG");
  snprintf(p, sizeof p, "%s/lib/libsymv.so", out);
  void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "dlopen: %s", dlerror());
  cublasStatus_t (*get)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(h, "symvGetInfo_v3");
  cr_assert_not_null(get);
  cr_assert_not_null(dlsym(h, "symvGetInfo_v2"), "the entry point of older programs");
  cr_assert_not_null(dlsym(h, "symvGetInfo"), "the entry point of older programs");
  symvInfo info;
  memset(&info, 0xa5, sizeof info);
  cr_assert_eq(get(&info), CUBLAS_STATUS_SUCCESS);
  cr_assert_eq(info.wisdom, 1);
  cr_assert_eq(info.wisdom_files, 4, "%s", info.wisdom_report);
  cr_assert_eq(info.wisdom_accepted, 2, "%s", info.wisdom_report);
  cr_assert_str_eq(info.wisdom_dir, sys);
  const char *rep = info.wisdom_report;
  char line[4][700];
  snprintf(line[0], sizeof line[0], "skipped %s/absent: No such file or directory\n", dir);
  snprintf(line[1], sizeof line[1], "%s: refused: line 2: the file ends before 'sources': it is cut short", q);
  snprintf(line[2], sizeof line[2], "%s: accepted: ", good);
  snprintf(line[3], sizeof line[3], "%s/b.symvw: refused: written by symvtune", sys);
  const char *at = rep;
  for (int i = 0; i < 4; i++) {
    const char *f = strstr(rep, line[i]);
    cr_assert_not_null(f, "no '%s' in\n%s", line[i], rep);
    cr_assert_geq(f, at, "'%s' out of order in\n%s", line[i], rep);
    at = f;
  }
  cr_assert_not_null(strstr(rep, "/a.symvw: accepted: "), "%s", rep);
  /* an accepted file's rules id is the one a library compiled from the same database gives */
  static libgen_plan pl;
  char err[512];
  memset(&pl, 0, sizeof pl);
  cr_assert_eq(libgen_plan_read(db, NULL, &pl, err, sizeof err), 0, "%s", err);
  libgen_plan_free(&pl);
  snprintf(p, sizeof p, "%s: accepted: NVIDIA H200 (sm_90, 132 SMs), 2 rule sets, rules %s\n", good, pl.rules_id);
  cr_assert_not_null(strstr(rep, p), "no '%s' in\n%s", p, rep);
  snprintf(p, sizeof p, "symvtune-rules: wisdom files read at run time; symvtune %s; CUDART_VERSION %d",
           PACKAGE_VERSION, CUDART_VERSION);
  cr_assert_str_eq(info.identity, p);
  cr_assert_str_eq(info.symvtune_version, PACKAGE_VERSION);
  if (info.device < 0) { /* no GPU here: nothing matched, no rules */
    cr_assert_null(info.wisdom_matched);
    cr_assert_eq(info.device_matched, -1);
    cr_assert_str_eq(info.tuned_gpu, "");
    cr_assert_eq(info.rules[SYMV_INFO_DSYMV], 0);
    cr_assert_str_eq(info.rules_id, "");
    cr_assert_str_eq(info.fits, "");
  }
  /* the legacy entry point fills only what older programs' symvInfo has */
  cublasStatus_t (*old)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(h, "symvGetInfo");
  memset(&info, 0xa5, sizeof info);
  cr_assert_eq(old(&info), CUBLAS_STATUS_SUCCESS);
  cr_assert_eq(info.version_major, SYMV_VERSION_MAJOR);
  cr_assert_eq(info.wisdom, (int)0xa5a5a5a5, "symvGetInfo wrote past the older symvInfo");
  dlclose(h);
  free(text);
}

/* Without --wisdom-dir the system folder is DIR/share/symv beside the
 * library, found where the library is, so that the tree can move; a new
 * build of DIR keeps DIR/share. */
Test(wisdom, library_system_folder_follows_the_library, .timeout = 300)
{
  if (!have_nvcc()) cr_skip_test("no nvcc: no library to build");
  char db[512], out[512], moved[512], good[1024], p[1024], log[512], *t;
  fixture_db(db);
  const char *args[] = {"--wisdom", "--out", in_dir(out, "wlib"), "--nvcc", FIX_NVCC};
  cr_assert_eq(fix_build(in_dir(log, "build.log"), args, 5), 0, "build --wisdom: %s", (t = fix_slurp(log)) ? t : "");
  cr_assert_eq(rename(out, in_dir(moved, "moved")), 0);
  snprintf(p, sizeof p, "%s/share", moved);
  cr_assert_eq(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/share/symv", moved);
  cr_assert_eq(mkdir(p, 0755), 0);
  snprintf(good, sizeof good, "%s/share/symv/h200.symvw", moved);
  char *ex[] = {"export", "--db", db, "--out", good, NULL};
  cr_assert_eq(run_cmd(&cmd_export_entry, ex, 5, &t), 0, "%s", t);
  free(t);
  unsetenv("SYMV_WISDOM");
  snprintf(p, sizeof p, "%s/lib/libsymv.so.0", moved);
  void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(h, "dlopen: %s", dlerror());
  cublasStatus_t (*get)(symvInfo *) = (cublasStatus_t (*)(symvInfo *))dlsym(h, "symvGetInfo_v2");
  symvInfo info;
  cr_assert_eq(get(&info), CUBLAS_STATUS_SUCCESS);
  snprintf(p, sizeof p, "%s/lib/../share/symv", moved);
  cr_assert_str_eq(info.wisdom_dir, p);
  cr_assert_eq(info.wisdom_files, 1, "%s", info.wisdom_report);
  cr_assert_eq(info.wisdom_accepted, 1, "%s", info.wisdom_report);
  dlclose(h);
  /* built again over the moved tree: the site's wisdom files are kept */
  const char *again[] = {"--wisdom", "--out", moved, "--nvcc", FIX_NVCC};
  cr_assert_eq(fix_build(log, again, 5), 0, "build --wisdom again: %s", (t = fix_slurp(log)) ? t : "");
  cr_assert(fix_exists(good), "the rebuild lost %s", good);
  symv_wisdom w;
  char err[512];
  cr_assert_eq(symv_wisdom_read(good, &w, err, sizeof err), 0, "%s", err);
  symv_wisdom_free(&w);
}

/* A folder of more than SYMV_WISDOM_MAX_FILES wisdom files offers the first
 * ones in name order, whatever order the folder lists them in: the files
 * are created in ascending order in one folder and in descending order in
 * another (a file system that lists in creation order, or in its reverse,
 * lists one of them unsorted; one that hashes names, both), and each gives
 * f000 ... f063, with one note: the count skipped and the first of them. */
Test(wisdom, a_folder_of_too_many_files_offers_the_first_in_name_order)
{
  const int total = SYMV_WISDOM_MAX_FILES + 5;
  for (int descending = 0; descending < 2; descending++) {
    char many[512], p[1024];
    cr_assert_eq(mkdir(in_dir(many, descending ? "down" : "up"), 0755), 0);
    for (int i = 0; i < total; i++) {
      snprintf(p, sizeof p, "%s/f%03d.symvw", many, descending ? total - 1 - i : i);
      put(p, "x\n", 2);
    }
    char *files[SYMV_WISDOM_MAX_FILES], notes[1024];
    int n = -1;
    cr_assert_eq(symv_wisdom_search(many, NULL, files, &n, notes, sizeof notes), 0);
    cr_assert_eq(n, SYMV_WISDOM_MAX_FILES);
    for (int i = 0; i < n; i++) {
      snprintf(p, sizeof p, "%s/f%03d.symvw", many, i);
      cr_expect_str_eq(files[i], p, "%s: file %d", many, i);
    }
    symv_wisdom_search_free(files, n);
    snprintf(p, sizeof p, "%s: more than %d wisdom files: the first %d in name order taken, %d skipped, the first of "
             "them f%03d.symvw\n", many, SYMV_WISDOM_MAX_FILES, SYMV_WISDOM_MAX_FILES, total - SYMV_WISDOM_MAX_FILES,
             SYMV_WISDOM_MAX_FILES);
    cr_assert_str_eq(notes, p);
  }
}
