/* SPDX-License-Identifier: BSD-3-Clause */
/* json.c - the pieces of the commands' JSON documents (see json.h). */
#include "json.h"
#include <math.h>
#include "../db/db.h"
#include "config.h"

void json_string(FILE *f, const char *s)
{
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", f);
    else if (*p == '\t') fputs("\\t", f);
    else if (*p < 0x20 || *p >= 0x7f) fprintf(f, "\\u%04x", *p); /* bytes past ASCII too: always valid */
    else fputc(*p, f);
  }
  fputc('"', f);
}

void json_number(FILE *f, double x)
{
  if (isfinite(x)) fprintf(f, "%.10g", x);
  else fputs("null", f);
}

void json_head(FILE *f, int format, const char *name, int cc_major, int cc_minor, int sm_count)
{
  fprintf(f, "\"format\": %d, \"symvtune\": ", format);
  json_string(f, PACKAGE_VERSION);
  fprintf(f, ", \"schema\": %d,\n  \"device\": ", DB_SCHEMA_VERSION);
  if (name) {
    fputs("{\"name\": ", f);
    json_string(f, name);
    fprintf(f, ", \"cc_major\": %d, \"cc_minor\": %d, \"sm_count\": %d},\n", cc_major, cc_minor, sm_count);
  } else {
    fputs("null,\n", f);
  }
}

void json_list_open(FILE *f, const char *command)
{
  fprintf(f, "{\n  \"format\": %d, \"symvtune\": ", JSON_LIST_FORMAT);
  json_string(f, PACKAGE_VERSION);
  fputs(", \"command\": ", f);
  json_string(f, command);
  fputs(",\n  \"routines\": [", f);
}

void json_list_item(FILE *f, const char *doc, size_t len, int first)
{
  while (len && (doc[len - 1] == '\n' || doc[len - 1] == ' ' || doc[len - 1] == '\t' || doc[len - 1] == '\r')) len--;
  fputs(first ? "\n    " : ",\n    ", f);
  for (size_t i = 0; i < len; i++) { /* a line break of the document is never inside a string (json_string) */
    fputc(doc[i], f);
    if (doc[i] == '\n') fputs("    ", f);
  }
}

void json_list_close(FILE *f)
{
  fputs("\n  ]\n}\n", f);
}
