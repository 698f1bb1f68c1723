/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_json.c - the document of `symvtune bench --json` (see bench_json.h). */
#include "bench_json.h"
#include <math.h>
#include "json.h"
#include "routine.h"

/* The reference cuBLAS mode's time over libsymv's (bench_json.h). */
static double speedup_of(const db_bench_run *run, const db_bench_result *b)
{
  const double ref = run->deterministic ? b->cublas_us : fmin(b->cublas_us, b->cublas_atomics_us);
  return ref / b->libsymv_us;
}

void bench_json_write(FILE *f, const db_bench_run *run, const db_bench_result *r, size_t nr, double tol)
{
  const symv_routine ro = nr > 0 ? r[0].routine : SYMV_DSYMV;
  const int known = nr > 0 && symv_routine_get(ro) != NULL;
  fputs("{\n  ", f);
  json_head(f, BENCH_JSON_FORMAT, run->device, run->cc_major, run->cc_minor, run->sm_count);
  fputs("  \"routine\": ", f);
  json_string(f, known ? symv_routine_name(ro) : NULL);
  fputs(", \"uplo\": ", f);
  if (nr) fprintf(f, "\"%c\"", r[0].uplo == 'U' ? 'U' : 'L');
  else fputs("null", f);
  fprintf(f, ", \"atomics\": \"%s\", \"hot\": %s, \"batches\": %d, \"copy_gbs\": ",
          run->deterministic ? "deterministic" : "any", run->hot ? "true" : "false", run->batches);
  json_number(f, run->copy_gbs > 0 ? run->copy_gbs : NAN);
  fputs(",\n  \"library\": {\"path\": ", f);
  json_string(f, run->lib_path);
  fputs(", \"version\": ", f);
  json_string(f, run->lib_version);
  fputs(", \"tuned_gpu\": ", f);
  json_string(f, run->lib_tuned_gpu);
  fputs(", \"arch\": ", f);
  json_string(f, run->lib_arch);
  fprintf(f, "},\n  \"complete\": %s, \"run_id\": ", run->complete ? "true" : "false");
  if (run->id > 0) fprintf(f, "%lld", run->id);
  else fputs("null", f);
  fputs(",\n  \"results\": [", f);
  int nmid = 0, nbig = 0, nfloor = 0, nslow = 0;
  double logsum = 0, logfloor = 0, minpct = INFINITY;
  for (size_t i = 0; i < nr; i++) {
    const db_bench_result *b = &r[i];
    const double sp = speedup_of(run, b), xf = b->libsymv_us / b->floor_us;
    fprintf(f, "%s\n    {\"n\": %d, \"kernel\": ", i ? "," : "", b->n);
    json_string(f, b->kernel);
    const double v[] = {b->libsymv_us, b->cublas_us, b->cublas_atomics_us, b->openblas_us, b->floor_us,
                        known ? symv_gflops(ro, b->n, b->libsymv_us) : NAN, b->pct_copy, sp, xf, b->residual};
    static const char *const k[] = {"libsymv_us", "cublas_us", "cublas_atomics_us", "openblas_us", "floor_us",
                                    "gflops", "pct_copy", "speedup", "x_floor", "residual"};
    for (size_t j = 0; j < sizeof v / sizeof *v; j++) {
      fprintf(f, ", \"%s\": ", k[j]);
      json_number(f, v[j]);
    }
    fprintf(f, ", \"correct\": %s}", b->residual <= tol ? "true" : "false");
    if (b->n >= 500 && b->n <= 4096 && sp > 0 && isfinite(sp)) logsum += log(sp), nmid++;
    if (b->n >= 500 && b->n <= 4096 && xf > 0 && isfinite(xf)) logfloor += log(xf), nfloor++;
    if (b->n >= 8192 && isfinite(b->pct_copy)) minpct = fmin(minpct, b->pct_copy), nbig++;
  }
  fputs("\n  ],\n  \"summary\": {\"slower_at\": [", f);
  for (size_t i = 0; i < nr; i++)
    if (speedup_of(run, &r[i]) < 1.0) fprintf(f, "%s%d", nslow++ ? ", " : "", r[i].n);
  fputs("], \"speedup_geomean_500_4096\": ", f);
  json_number(f, nmid ? exp(logsum / nmid) : NAN);
  fputs(", \"least_pct_copy_8192\": ", f);
  json_number(f, nbig ? minpct : NAN);
  fputs(", \"x_floor_geomean_500_4096\": ", f);
  json_number(f, nfloor ? exp(logfloor / nfloor) : NAN);
  fputs("}\n}\n", f);
}
