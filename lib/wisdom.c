/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wisdom.c - reading, writing and matching wisdom files (wisdom.h). Plain
 * C, no CUDA: libsymv and symvtune's tests compile this same file.
 *
 * The reader trusts nothing: the text is cut into lines of at most
 * SYMV_WISDOM_MAX_LINE bytes, every word is checked against the grammar of
 * wisdom.h before it is converted (integers by digit count, so that no
 * conversion overflows; reals by strtod with their range checked), and the
 * limits on files, rules and candidates bound the memory a file can make
 * the reader take. The first fault refuses the whole file.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symv_error.h"
#include "wisdom.h"

uint64_t symv_wisdom_fnv(uint64_t h, const void *data, size_t len)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

void symv_wisdom_free(symv_wisdom *w)
{
  if (!w) return;
  free(w->cands), w->cands = NULL, w->ncands = 0;
  free(w->rules), w->rules = NULL, w->nrules = 0;
}

/* ---- Reading ---- */

/* The reader's state: the current line's words. */
typedef struct {
  int line;                 /* 1-based number of the current line */
  char buf[SYMV_WISDOM_MAX_LINE + 1];
  char *word[16];           /* the words of buf (split at single spaces) */
  int nwords;
  const char *rest;         /* the text after the first word and its space (for TEXT values) */
  char *err;
  size_t errlen;
} reader;

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
  if (r->err && r->errlen) {
    int k = snprintf(r->err, r->errlen, "line %d: ", r->line);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < r->errlen) vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
    va_end(ap);
  }
  return SYMV_INVALID_VALUE;
}

/* An unsigned decimal integer of 1..maxdigits digits (no sign, no leading
 * zero but "0" itself) in *out. 0, or -1. */
static int parse_uint(const char *s, int maxdigits, long long *out)
{
  size_t len = strlen(s);
  if (len < 1 || len > (size_t)maxdigits || (len > 1 && s[0] == '0')) return -1;
  long long v = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return 0;
}

/* An integer word in lo..hi into *out, or a refusal naming `what`. */
static int word_int(reader *r, const char *s, const char *what, long long lo, long long hi, long long *out)
{
  if (parse_uint(s, lo > 999999999LL || hi > 999999999LL ? 18 : 9, out) || *out < lo || *out > hi)
    return fail(r, "%s '%.40s' is not an integer in %lld..%lld", what, s, lo, hi);
  return 0;
}

static int word_int32(reader *r, const char *s, const char *what, int lo, int hi, int *out)
{
  long long v;
  int rc = word_int(r, s, what, lo, hi, &v);
  if (!rc) *out = (int)v;
  return rc;
}

/* A real number word (digits, '.', 'e', signs: what %.17g writes) in
 * 0..1e12, finite. */
static int word_real(reader *r, const char *s, const char *what, double *out)
{
  size_t len = strlen(s);
  int ok = len >= 1 && len <= 32 && strspn(s, "0123456789.e+-") == len && s[0] >= '0' && s[0] <= '9';
  char *end = NULL;
  double v = ok ? strtod(s, &end) : NAN;
  if (!ok || !end || *end || !isfinite(v) || v < 0 || v > 1e12)
    return fail(r, "%s '%.40s' is not a number in 0..1e12", what, s);
  *out = v;
  return 0;
}

/* "MAJOR.MINOR" with MAJOR 1..99 and MINOR 0..9. */
static int word_version(reader *r, const char *s, const char *what, int *major, int *minor)
{
  const char *dot = strchr(s, '.');
  char a[8];
  long long ma, mi;
  if (!dot || dot - s < 1 || dot - s > 2 || strlen(dot + 1) != 1) return fail(r, "%s '%.40s' is not MAJOR.MINOR", what, s);
  memcpy(a, s, (size_t)(dot - s));
  a[dot - s] = 0;
  if (parse_uint(a, 2, &ma) || ma < 1 || parse_uint(dot + 1, 1, &mi))
    return fail(r, "%s '%.40s' is not MAJOR.MINOR (1..99, 0..9)", what, s);
  *major = (int)ma, *minor = (int)mi;
  return 0;
}

/* A TEXT value (rest of the line): 1..cap-1 printable ASCII bytes. */
static int text_value(reader *r, const char *what, char *out, size_t cap)
{
  size_t len = r->rest ? strlen(r->rest) : 0;
  if (len < 1 || len >= cap) return fail(r, "%s is empty or longer than %zu bytes", what, cap - 1);
  memcpy(out, r->rest, len + 1);
  return 0;
}

/* The next line of text[0..len) from *pos into r (split into words). 1 if
 * there is one, 0 at the end, or a refusal. Comments and empty lines are
 * skipped. */
static int next_line(reader *r, const char *text, size_t len, size_t *pos)
{
  for (;;) {
    if (*pos >= len) return 0;
    r->line++;
    const char *start = text + *pos, *nl = memchr(start, '\n', len - *pos);
    size_t l = nl ? (size_t)(nl - start) : len - *pos;
    if (l + 1 > SYMV_WISDOM_MAX_LINE) return fail(r, "longer than %d bytes", SYMV_WISDOM_MAX_LINE - 1);
    if (!nl) return fail(r, "no newline at the end: the file is cut short");
    *pos += l + 1;
    memcpy(r->buf, start, l);
    r->buf[l] = 0;
    for (size_t i = 0; i < l; i++)
      if ((unsigned char)r->buf[i] < 0x20 || (unsigned char)r->buf[i] > 0x7e)
        return fail(r, "byte %zu is 0x%02x, not printable ASCII", i + 1, (unsigned char)r->buf[i]);
    if (l == 0 || r->buf[0] == '#') continue;
    if (r->buf[0] == ' ' || r->buf[l - 1] == ' ') return fail(r, "starts or ends with a space");
    char *sp = strchr(r->buf, ' ');
    r->rest = sp ? sp + 1 : NULL; /* a TEXT value, read before split() cuts the words */
    r->nwords = 0;
    return 1;
  }
}

/* Splits the current line into words at single spaces (in place: a TEXT
 * value is taken from rest first): n_min..n_max words, else a refusal. */
static int split(reader *r, int n_min, int n_max)
{
  char *s = r->buf;
  r->nwords = 0;
  for (;;) {
    if (r->nwords == (int)(sizeof r->word / sizeof *r->word)) return fail(r, "too many words");
    r->word[r->nwords++] = s;
    char *sp = strchr(s, ' ');
    if (!sp) break;
    *sp = 0;
    s = sp + 1;
    if (*s == ' ' || !*s) return fail(r, "two spaces in a row");
  }
  if (r->nwords < n_min || r->nwords > n_max) {
    char want[32];
    if (n_max > n_min) snprintf(want, sizeof want, "%d to %d values", n_min - 1, n_max - 1);
    else snprintf(want, sizeof want, "%d value%s", n_min - 1, n_min - 1 == 1 ? "" : "s");
    return fail(r, "'%.40s' takes %s, not %d", r->word[0], want, r->nwords - 1);
  }
  return 0;
}

/* The key (first word) of the current line, without splitting. */
static int key_is(const reader *r, const char *key)
{
  size_t k = strlen(key);
  return !strncmp(r->buf, key, k) && (r->buf[k] == ' ' || r->buf[k] == 0);
}

/* The next line must have the key `key`: its single value word into
 * r->word[1], or, when textual is nonzero, the rest of the line in r->rest. */
static int expect_key(reader *r, const char *text, size_t len, size_t *pos, const char *key, int textual)
{
  int rc = next_line(r, text, len, pos);
  if (rc < 0) return rc;
  if (rc == 0) return fail(r, "the file ends before '%s': it is cut short", key);
  if (!key_is(r, key)) {
    char first[48];
    snprintf(first, sizeof first, "%.40s", r->buf);
    char *sp = strchr(first, ' ');
    if (sp) *sp = 0;
    return fail(r, "expected '%s', found '%s'", key, first);
  }
  if (textual) {
    if (!r->rest) return fail(r, "'%s' has no value", key);
    return 0;
  }
  return split(r, 2, 2);
}

/* The next line must be `key` with an integer value in lo..hi: into *out. */
static int key_int32(reader *r, const char *text, size_t len, size_t *pos, const char *key, int lo, int hi,
                     int *out)
{
  int rc = expect_key(r, text, len, pos, key, 0);
  return rc ? rc : word_int32(r, r->word[1], key, lo, hi, out);
}

/* The next line must be `key` with a MAJOR.MINOR value: into *major, *minor. */
static int key_version(reader *r, const char *text, size_t len, size_t *pos, const char *key, int *major, int *minor)
{
  int rc = expect_key(r, text, len, pos, key, 0);
  return rc ? rc : word_version(r, r->word[1], key, major, minor);
}

/* Adds candidate p (with regs and occupancy) to w, or finds it; its index,
 * or a negative code. */
static int add_cand(reader *r, symv_wisdom *w, const symv_params *p, int regs, int occ)
{
  for (int i = 0; i < w->ncands; i++)
    if (!memcmp(&w->cands[i].p, p, sizeof *p)) {
      if (w->cands[i].regs != regs || w->cands[i].occupancy != occ)
        return fail(r, "candidate %s given twice with different registers or occupancy", w->cands[i].name);
      return i;
    }
  if (w->ncands == SYMV_WISDOM_MAX_CANDS) return fail(r, "more than %d candidates", SYMV_WISDOM_MAX_CANDS);
  if (w->ncands % 16 == 0) {
    symv_wisdom_cand *c = realloc(w->cands, (size_t)(w->ncands + 16) * sizeof *c);
    if (!c) return SYMV_NO_MEMORY;
    w->cands = c;
  }
  symv_wisdom_cand *c = &w->cands[w->ncands];
  memset(c, 0, sizeof *c);
  c->p = *p, c->regs = regs, c->occupancy = occ;
  symv_kernel_name(p, c->name, sizeof c->name);
  return w->ncands++;
}

/* A candidate word FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX of routine ro. */
static int parse_cand(reader *r, const char *s, symv_routine ro, symv_params *p)
{
  char buf[64], fam[24];
  long long v[4];
  size_t len = strlen(s);
  const char *colon = strchr(s, ':');
  if (len >= sizeof buf || !colon || (size_t)(colon - s) >= sizeof fam)
    return fail(r, "kernel '%.60s' is not cublas, cublas_atomics or FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX", s);
  memcpy(fam, s, (size_t)(colon - s));
  fam[colon - s] = 0;
  memset(p, 0, sizeof *p);
  if (symv_family_parse(fam, &p->family) || !symv_family_tunable(p->family))
    return fail(r, "unknown kernel family '%s' (" SYMV_TUNABLE_FAMILIES ")", fam);
  snprintf(buf, sizeof buf, "%s", colon + 1);
  char *save = NULL, *tok = strtok_r(buf, ",", &save);
  int k = 0;
  for (; tok && k < 4; tok = strtok_r(NULL, ",", &save), k++)
    if (parse_uint(tok, 4, &v[k])) return fail(r, "kernel '%.60s': '%.10s' is not a small integer", s, tok);
  if (k != 4 || tok || strstr(colon, ",,") || colon[strlen(colon) - 1] == ',')
    return fail(r, "kernel '%.60s' is not FAMILY:BLOCK_SIZE,UX,MULTIPLICITY,MX", s);
  p->block_size = (int)v[0], p->ux = (int)v[1], p->multiplicity = (int)v[2], p->mx = (int)v[3];
  p->routine = ro;
  char why[160];
  if (symv_params_check(p, why, sizeof why)) return fail(r, "kernel '%.60s': %s", s, why);
  if (!symv_routine_serves(ro, p->family))
    return fail(r, "kernel '%.60s': family %s does not serve %s", s, fam, symv_routine_name(ro));
  return 0;
}

/* One "rules" set: from its "rules" line (current) to its "end". */
static int parse_set(reader *r, const char *text, size_t len, size_t *pos, symv_wisdom *w)
{
  int rc;
  if ((rc = split(r, 3, 3))) return rc;
  symv_routine ro;
  if (symv_routine_parse(r->word[1], &ro)) return fail(r, "unknown routine '%.20s' (" SYMV_ROUTINE_NAMES ")", r->word[1]);
  int det;
  if (!strcmp(r->word[2], "any")) det = 0;
  else if (!strcmp(r->word[2], "deterministic")) det = 1;
  else return fail(r, "atomics class '%.20s' is not any or deterministic", r->word[2]);
  symv_wisdom_set *s = &w->set[ro][det];
  if (s->have) return fail(r, "a second set of %s %s rules", symv_routine_name(ro), r->word[2]);
  /* fit ID CREATED UPLO HOT LO HI THRESHOLD */
  if ((rc = expect_key(r, text, len, pos, "fit", 1))) return rc;
  if ((rc = split(r, 8, 8))) return rc;
  long long id;
  if ((rc = word_int(r, r->word[1], "fit id", 1, 999999999999999999LL, &id))) return rc;
  s->fit_id = id;
  if (strlen(r->word[2]) >= sizeof s->created || strlen(r->word[2]) < 1) return fail(r, "fit time too long");
  snprintf(s->created, sizeof s->created, "%s", r->word[2]);
  if (strcmp(r->word[3], "L") && strcmp(r->word[3], "U")) return fail(r, "uplo '%.10s' is not L or U", r->word[3]);
  s->uplo = r->word[3][0];
  if ((rc = word_int32(r, r->word[4], "hot", 0, 1, &s->hot))) return rc;
  if ((rc = word_int32(r, r->word[5], "lo", 1, SYMV_WISDOM_N_MAX, &s->lo))) return rc;
  if ((rc = word_int32(r, r->word[6], "hi", s->lo, SYMV_WISDOM_N_MAX, &s->hi))) return rc;
  if ((rc = word_real(r, r->word[7], "threshold", &s->threshold))) return rc;
  if ((rc = expect_key(r, text, len, pos, "method", 1))) return rc;
  if ((rc = text_value(r, "method", s->method, sizeof s->method))) return rc;
  s->first = w->nrules, s->count = 0;
  int next_n = s->lo;
  for (;;) {
    rc = next_line(r, text, len, pos);
    if (rc < 0) return rc;
    if (rc == 0) return fail(r, "the file ends inside the %s %s rules: it is cut short", symv_routine_name(ro),
                             det ? "deterministic" : "any");
    if (key_is(r, "end")) {
      if ((rc = split(r, 1, 1))) return rc;
      break;
    }
    if (!key_is(r, "rule")) return fail(r, "expected 'rule' or 'end' in the %s rules", symv_routine_name(ro));
    if ((rc = split(r, 6, 8))) return rc;
    if (r->nwords == 7) return fail(r, "a candidate's rule takes both REGS and OCCUPANCY");
    if (s->count == SYMV_WISDOM_MAX_RULES) return fail(r, "more than %d rules in one set", SYMV_WISDOM_MAX_RULES);
    symv_wisdom_rule ru = {0};
    if ((rc = word_int32(r, r->word[1], "n_start", 1, SYMV_WISDOM_N_MAX, &ru.n_start))) return rc;
    if ((rc = word_int32(r, r->word[2], "n_end", 1, SYMV_WISDOM_N_MAX, &ru.n_end))) return rc;
    if (ru.n_start != next_n)
      return fail(r, "rule n %d..%d: %s (the rules must tile %d..%d in order; expected it to start at %d)",
                  ru.n_start, ru.n_end, ru.n_start < next_n ? "an overlap or out of order" : "a gap or out of order", s->lo, s->hi,
                  next_n);
    if (ru.n_end < ru.n_start || ru.n_end > s->hi)
      return fail(r, "rule n %d..%d is empty or ends beyond hi %d", ru.n_start, ru.n_end, s->hi);
    next_n = ru.n_end + 1;
    const char *k = r->word[3];
    if (!strcmp(k, "cublas") || !strcmp(k, "cublas_atomics")) {
      if (r->nwords != 6) return fail(r, "a cuBLAS rule takes no REGS or OCCUPANCY");
      ru.kernel = !strcmp(k, "cublas") ? SYMV_WISDOM_CUBLAS : SYMV_WISDOM_CUBLAS_ATOMICS;
      if (det && ru.kernel == SYMV_WISDOM_CUBLAS_ATOMICS)
        return fail(r, "a deterministic rule set names cuBLAS with atomics");
    } else {
      symv_params p;
      int regs, occ;
      if ((rc = parse_cand(r, k, ro, &p))) return rc;
      if (r->nwords != 8) return fail(r, "the candidate %.60s has no REGS and OCCUPANCY", k);
      if ((rc = word_int32(r, r->word[6], "registers per thread", 1, 255, &regs))) return rc;
      if ((rc = word_int32(r, r->word[7], "occupancy", 1, 64, &occ))) return rc;
      if (occ != p.multiplicity) return fail(r, "occupancy %d is not the candidate's MULTIPLICITY %d", occ, p.multiplicity);
      if (det && !symv_family_get(p.family)->deterministic)
        return fail(r, "a deterministic rule set names %s, whose family is not deterministic (" SYMV_DETERMINISTIC_FAMILIES ")", k);
      if ((rc = add_cand(r, w, &p, regs, occ)) < 0) return rc;
      ru.kernel = rc;
    }
    if ((rc = word_real(r, r->word[4], "predicted_us", &ru.predicted_us))) return rc;
    if ((rc = word_real(r, r->word[5], "gain", &ru.gain))) return rc;
    if (w->nrules % 64 == 0) {
      symv_wisdom_rule *nr = realloc(w->rules, (size_t)(w->nrules + 64) * sizeof *nr);
      if (!nr) return SYMV_NO_MEMORY;
      w->rules = nr;
    }
    w->rules[w->nrules++] = ru;
    s->count++;
  }
  if (s->count == 0) return fail(r, "the %s rules are empty", symv_routine_name(ro));
  if (next_n != s->hi + 1) return fail(r, "the %s rules end at %d, not at hi %d", symv_routine_name(ro), next_n - 1, s->hi);
  s->have = 1;
  return 0;
}

int symv_wisdom_parse(const char *text, size_t len, symv_wisdom *w, char *err, size_t errlen)
{
  memset(w, 0, sizeof *w);
  if (err && errlen) err[0] = 0;
  reader *r = calloc(1, sizeof *r); /* its line buffer stays off the stack of a library's caller */
  if (!r) return SYMV_NO_MEMORY;
  r->err = err, r->errlen = errlen;
  size_t pos = 0;
  int rc;
  long long v;
  if (!text || len > SYMV_WISDOM_MAX_BYTES) {
    rc = fail(r, "the file is larger than %d bytes", SYMV_WISDOM_MAX_BYTES);
    goto out;
  }
  /* the first line, before anything else: a foreign file is told as such */
  if (len < sizeof SYMV_WISDOM_MAGIC || memcmp(text, SYMV_WISDOM_MAGIC " ", sizeof SYMV_WISDOM_MAGIC)) {
    r->line = 1;
    rc = fail(r, "not a wisdom file (it does not start with '" SYMV_WISDOM_MAGIC " ')");
    goto out;
  }
  if ((rc = next_line(r, text, len, &pos)) != 1 || (rc = split(r, 2, 2))) {
    if (rc == 0) rc = fail(r, "no header");
    goto out;
  }
  if (word_int(r, r->word[1], "format version", 1, 999999, &v)) goto bad;
  if (v != SYMV_WISDOM_VERSION) {
    rc = fail(r, "format version %lld; this library reads version %d", v, SYMV_WISDOM_VERSION);
    goto out;
  }
  w->version = (int)v;
  if ((rc = expect_key(r, text, len, &pos, "symvtune", 0))) goto out;
  if (strlen(r->word[1]) >= sizeof w->symvtune) goto bad_version;
  snprintf(w->symvtune, sizeof w->symvtune, "%s", r->word[1]);
  if ((rc = expect_key(r, text, len, &pos, "sources", 0))) goto out;
  if (strlen(r->word[1]) != 16 || strspn(r->word[1], "0123456789abcdef") != 16) {
    rc = fail(r, "sources '%.40s' is not 16 lower-case hex digits", r->word[1]);
    goto out;
  }
  w->sources = strtoull(r->word[1], NULL, 16);
  symv_wisdom_device *d = &w->dev;
  if ((rc = expect_key(r, text, len, &pos, "device.name", 1)) || (rc = text_value(r, "device.name", d->name, sizeof d->name)))
    goto out;
  if ((rc = key_version(r, text, len, &pos, "device.cc", &d->cc_major, &d->cc_minor)) ||
      (rc = key_int32(r, text, len, &pos, "device.sm_count", 1, 65536, &d->sm_count)))
    goto out;
  if ((rc = expect_key(r, text, len, &pos, "device.l2_bytes", 0)) ||
      (rc = word_int(r, r->word[1], "device.l2_bytes", 0, 1LL << 50, &d->l2_bytes)))
    goto out;
  struct { const char *key; int *out; int lo, hi; } more[] = {
      {"device.bus_width_bits", &d->bus_width_bits, 0, 1 << 20}, {"device.smem_per_sm", &d->smem_per_sm, 0, 1 << 30},
      {"device.regs_per_sm", &d->regs_per_sm, 0, 1 << 30},       {"device.mem_clock_khz", &d->mem_clock_khz, 0, 999999999},
      {"device.driver_version", &d->driver_version, 0, 999999999},
  };
  for (size_t i = 0; i < sizeof more / sizeof *more; i++)
    if ((rc = key_int32(r, text, len, &pos, more[i].key, more[i].lo, more[i].hi, more[i].out))) goto out;
  if ((rc = key_version(r, text, len, &pos, "device.nvrtc", &d->nvrtc_major, &d->nvrtc_minor)) ||
      (rc = key_int32(r, text, len, &pos, "db.schema", 1, 999, &w->db_schema)))
    goto out;
  for (;;) {
    rc = next_line(r, text, len, &pos);
    if (rc < 0) goto out;
    if (rc == 0) {
      rc = fail(r, "no 'end-of-wisdom': the file is cut short");
      goto out;
    }
    if (key_is(r, "end-of-wisdom")) {
      if ((rc = split(r, 1, 1))) goto out;
      break;
    }
    if (!key_is(r, "rules")) {
      char first[48];
      snprintf(first, sizeof first, "%.40s", r->buf);
      char *sp = strchr(first, ' ');
      if (sp) *sp = 0;
      rc = fail(r, "expected 'rules' or 'end-of-wisdom', found '%s'", first);
      goto out;
    }
    if ((rc = parse_set(r, text, len, &pos, w))) goto out;
  }
  if ((rc = next_line(r, text, len, &pos)) != 0) {
    if (rc == 1) rc = fail(r, "text after 'end-of-wisdom'");
    goto out;
  }
  rc = 0;
  goto out;
bad_version:
  rc = fail(r, "symvtune version too long");
  goto out;
bad:
  rc = SYMV_INVALID_VALUE;
out:
  free(r);
  return rc;
}

int symv_wisdom_read(const char *path, symv_wisdom *w, char *err, size_t errlen)
{
  memset(w, 0, sizeof *w);
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "cannot open: %s", strerror(errno));
    return SYMV_IO;
  }
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "not a regular file");
    close(fd);
    return SYMV_IO;
  }
  if (st.st_size > SYMV_WISDOM_MAX_BYTES) {
    snprintf(err, errlen, "%lld bytes: larger than the %d a wisdom file may have", (long long)st.st_size,
             SYMV_WISDOM_MAX_BYTES);
    close(fd);
    return SYMV_INVALID_VALUE;
  }
  char *buf = malloc((size_t)st.st_size + 1);
  size_t got = 0;
  int rc = buf ? 0 : SYMV_NO_MEMORY;
  while (!rc && got < (size_t)st.st_size) {
    ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      snprintf(err, errlen, "cannot read: %s", strerror(errno));
      rc = SYMV_IO;
    }
    if (k <= 0) break;
    got += (size_t)k;
  }
  close(fd);
  if (!rc) rc = symv_wisdom_parse(buf, got, w, err, errlen);
  free(buf);
  return rc;
}

/* ---- Writing ---- */

int symv_wisdom_write(FILE *f, const symv_wisdom *w)
{
  const symv_wisdom_device *d = &w->dev;
  fprintf(f, SYMV_WISDOM_MAGIC " %d\n", SYMV_WISDOM_VERSION);
  fprintf(f, "# The dispatch rules symvtune tuned for one GPU model, for libsymv (man symv-wisdom(5)).\n");
  fprintf(f, "symvtune %s\nsources %016llx\n", w->symvtune, (unsigned long long)w->sources);
  fprintf(f, "device.name %s\ndevice.cc %d.%d\ndevice.sm_count %d\ndevice.l2_bytes %lld\n", d->name, d->cc_major,
          d->cc_minor, d->sm_count, d->l2_bytes);
  fprintf(f, "device.bus_width_bits %d\ndevice.smem_per_sm %d\ndevice.regs_per_sm %d\n", d->bus_width_bits,
          d->smem_per_sm, d->regs_per_sm);
  fprintf(f, "device.mem_clock_khz %d\ndevice.driver_version %d\ndevice.nvrtc %d.%d\ndb.schema %d\n",
          d->mem_clock_khz, d->driver_version, d->nvrtc_major, d->nvrtc_minor, w->db_schema);
  for (int q = 0; q < 2 * SYMV_ROUTINE_COUNT; q++) {
    const symv_routine ro = symv_routine_order(q / 2);
    const int det = q % 2;
    const symv_wisdom_set *s = &w->set[ro][det];
    if (!s->have) continue;
    fprintf(f, "rules %s %s\nfit %lld %s %c %d %d %d %.17g\nmethod %s\n", symv_routine_name(ro),
            det ? "deterministic" : "any", s->fit_id, s->created, s->uplo, s->hot, s->lo, s->hi, s->threshold,
            s->method);
    for (int i = 0; i < s->count; i++) {
      const symv_wisdom_rule *ru = &w->rules[s->first + i];
      fprintf(f, "rule %d %d ", ru->n_start, ru->n_end);
      if (ru->kernel >= 0) {
        char label[64];
        symv_params_format(&w->cands[ru->kernel].p, label, sizeof label);
        fprintf(f, "%s %.17g %.17g %d %d\n", label, ru->predicted_us, ru->gain, w->cands[ru->kernel].regs,
                w->cands[ru->kernel].occupancy);
      } else {
        fprintf(f, "%s %.17g %.17g\n", ru->kernel == SYMV_WISDOM_CUBLAS ? "cublas" : "cublas_atomics",
                ru->predicted_us, ru->gain);
      }
    }
    fprintf(f, "end\n");
  }
  fprintf(f, "end-of-wisdom\n");
  return ferror(f) ? SYMV_IO : 0;
}

/* ---- Matching and searching ---- */

int symv_wisdom_match(const symv_wisdom *w, const symv_wisdom_device *d, char *why, size_t whylen)
{
  const symv_wisdom_device *t = &w->dev;
  if (strcmp(d->name, t->name)) return snprintf(why, whylen, "GPU %s, not %s", d->name, t->name), 0;
  if (d->cc_major != t->cc_major || d->cc_minor != t->cc_minor)
    return snprintf(why, whylen, "compute capability %d.%d, not %d.%d", d->cc_major, d->cc_minor, t->cc_major,
                    t->cc_minor), 0;
  if (d->sm_count != t->sm_count) return snprintf(why, whylen, "sm_count %d, not %d", d->sm_count, t->sm_count), 0;
  if (d->l2_bytes != t->l2_bytes)
    return snprintf(why, whylen, "l2_bytes %lld, not %lld", d->l2_bytes, t->l2_bytes), 0;
  if (d->bus_width_bits != t->bus_width_bits)
    return snprintf(why, whylen, "bus_width_bits %d, not %d", d->bus_width_bits, t->bus_width_bits), 0;
  if (d->smem_per_sm != t->smem_per_sm)
    return snprintf(why, whylen, "smem_per_sm %d, not %d", d->smem_per_sm, t->smem_per_sm), 0;
  if (d->regs_per_sm != t->regs_per_sm)
    return snprintf(why, whylen, "regs_per_sm %d, not %d", d->regs_per_sm, t->regs_per_sm), 0;
  if (whylen) why[0] = 0;
  return 1;
}

/* Appends "entry: why\n" to notes. */
static void note(char *notes, size_t len, const char *entry, const char *why)
{
  if (!notes || !len) return;
  size_t l = strnlen(notes, len - 1);
  snprintf(notes + l, len - l, "%s: %s\n", entry, why);
}

/* Adds path (copied) to files; 0 or SYMV_NO_MEMORY. Beyond the limit, told. */
static int add_file(char **files, int *n, const char *path, char *notes, size_t len)
{
  if (*n == SYMV_WISDOM_MAX_FILES) {
    note(notes, len, path, "skipped: the search path offers more than " "64" " files");
    return 0;
  }
  if (!(files[*n] = strdup(path))) return SYMV_NO_MEMORY;
  (*n)++;
  return 0;
}

/* Puts p into names[0..*k), kept in strcmp order and at most
 * SYMV_WISDOM_MAX_FILES + 1 long: the smallest names of those offered so
 * far. The one that falls off the end (p, or the last) is freed. */
static void keep_smallest(char **names, int *k, char *p)
{
  int i = *k;
  if (i == SYMV_WISDOM_MAX_FILES + 1) {
    if (strcmp(p, names[i - 1]) >= 0) {
      free(p);
      return;
    }
    free(names[--i]);
  }
  for (; i > 0 && strcmp(p, names[i - 1]) < 0; i--) names[i] = names[i - 1];
  names[i] = p;
  *k += *k < SYMV_WISDOM_MAX_FILES + 1;
}

/* The *.symvw regular files of folder dir in strcmp order of their names,
 * the first SYMV_WISDOM_MAX_FILES of them: any beyond are told in one note
 * (how many, and the first of them). */
static int add_folder(const char *dir, char **files, int *n, char *notes, size_t len)
{
  DIR *dp = opendir(dir);
  if (!dp) return note(notes, len, dir, strerror(errno)), 0;
  char *names[SYMV_WISDOM_MAX_FILES + 1]; /* the smallest names, sorted; one more tells the first skipped */
  int k = 0, rc = 0;
  long total = 0;
  const size_t sl = strlen(SYMV_WISDOM_SUFFIX);
  for (struct dirent *e; (e = readdir(dp));) {
    size_t l = strlen(e->d_name);
    if (l <= sl || strcmp(e->d_name + l - sl, SYMV_WISDOM_SUFFIX) || e->d_name[0] == '.') continue;
    char *p = malloc(strlen(dir) + l + 2);
    if (!p) {
      rc = SYMV_NO_MEMORY;
      break;
    }
    sprintf(p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) || !S_ISREG(st.st_mode)) {
      free(p);
      continue;
    }
    total++;
    keep_smallest(names, &k, p);
  }
  closedir(dp);
  if (k > SYMV_WISDOM_MAX_FILES) {
    char why[512];
    snprintf(why, sizeof why, "more than %d wisdom files: the first %d in name order taken, %ld skipped, the first "
             "of them %s", SYMV_WISDOM_MAX_FILES, SYMV_WISDOM_MAX_FILES, total - SYMV_WISDOM_MAX_FILES,
             names[SYMV_WISDOM_MAX_FILES] + strlen(dir) + 1);
    note(notes, len, dir, why);
    free(names[--k]);
  }
  for (int i = 0; i < k; i++) {
    if (!rc) rc = add_file(files, n, names[i], notes, len);
    free(names[i]);
  }
  return rc;
}

/* One entry of the search path: a file or a folder. */
static int add_entry(const char *entry, int system, char **files, int *n, char *notes, size_t len)
{
  struct stat st;
  if (stat(entry, &st)) {
    if (!system) note(notes, len, entry, strerror(errno));
    return 0;
  }
  if (S_ISDIR(st.st_mode)) return add_folder(entry, files, n, notes, len);
  return add_file(files, n, entry, notes, len); /* a file named is read, and refused there if not regular */
}

int symv_wisdom_search(const char *path_list, const char *system_dir, char **files, int *nfiles, char *notes,
                       size_t noteslen)
{
  *nfiles = 0;
  if (notes && noteslen) notes[0] = 0;
  int rc = 0;
  for (const char *p = path_list; p && *p && !rc;) {
    const char *colon = strchr(p, ':');
    size_t l = colon ? (size_t)(colon - p) : strlen(p);
    if (l > 0) {
      char *entry = strndup(p, l);
      if (!entry) return SYMV_NO_MEMORY;
      rc = add_entry(entry, 0, files, nfiles, notes, noteslen);
      free(entry);
    }
    p += l + (colon ? 1 : 0);
  }
  if (!rc && system_dir && *system_dir) rc = add_entry(system_dir, 1, files, nfiles, notes, noteslen);
  return rc;
}

void symv_wisdom_search_free(char **files, int n)
{
  for (int i = 0; i < n; i++) free(files[i]), files[i] = NULL;
}
