/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * identity.c - the rules id and the fits text of a library's rules
 * (identity.h).
 */
#include <stdio.h>
#include <string.h>
#include "identity.h"
#include "wisdom.h"

/* h continued with the NUL-terminated text s (its NUL left out). */
static uint64_t fnv_text(uint64_t h, const char *s) { return symv_wisdom_fnv(h, s, strlen(s)); }

void symv_rules_id(const symv_table_info *dev, const symv_table_candidate *cands, const symv_table_rule *rules,
                   const symv_table_routine *routines, char *out)
{
  char line[384], kernel[64];
  snprintf(line, sizeof line, "device %s %d.%d %d\n", dev->name, dev->cc_major, dev->cc_minor, dev->sm_count);
  uint64_t h = fnv_text(SYMV_WISDOM_FNV_INIT, line);
  for (int r = 0; r < SYMV_ROUTINE_COUNT; r++)
    for (int det = 0; det < 2; det++) {
      const symv_table_routine *t = &routines[r];
      const int first = det ? t->det_first : t->first, count = det ? t->det_count : t->count;
      if (count < 1) continue;
      snprintf(line, sizeof line, "%s %s\n", symv_routine_name((symv_routine)r), det ? "deterministic" : "any");
      h = fnv_text(h, line);
      for (int i = first; i < first + count; i++) {
        const int k = rules[i].kernel;
        if (k >= 0) symv_params_format(&cands[k].p, kernel, sizeof kernel);
        else snprintf(kernel, sizeof kernel, "%s", k == SYMV_RULE_CUBLAS_ATOMICS ? "cublas_atomics" : "cublas");
        snprintf(line, sizeof line, "%d %d %s\n", rules[i].n_start, rules[i].n_end, kernel);
        h = fnv_text(h, line);
      }
    }
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
  memcpy(out, hex, SYMV_RULES_ID_LEN); /* the first digits */
  out[SYMV_RULES_ID_LEN] = 0;
}

/* One fit as "fit ID (DATE, cold, uplo L, n LO..HI)" at the end of buf. */
static void fit_text(const symv_fit_brief *f, char *buf, size_t len)
{
  size_t l = strlen(buf);
  snprintf(buf + l, len - l, "fit %lld (%s, %s, uplo %c, n %d..%d)", f->id, f->created, f->hot ? "hot" : "cold",
           f->uplo, f->lo, f->hi);
}

void symv_fits_text(const symv_fit_brief fits[SYMV_ROUTINE_COUNT][2], char *buf, size_t len)
{
  buf[0] = 0;
  for (int i = 0; i < SYMV_ROUTINE_COUNT; i++) {
    const symv_routine r = symv_routine_order(i);
    const symv_fit_brief *any = &fits[r][0], *det = &fits[r][1];
    if (!any->have && !det->have) continue;
    size_t l = strlen(buf);
    snprintf(buf + l, len - l, "%s%s ", buf[0] ? "; " : "", symv_routine_name(r));
    if (any->have) fit_text(any, buf, len);
    if (det->have) {
      l = strlen(buf);
      snprintf(buf + l, len - l, "%sdeterministic ", any->have ? ", " : "");
      fit_text(det, buf, len);
    }
  }
}
