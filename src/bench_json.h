/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_json.h - the JSON document of `symvtune bench --json`, written
 * from what the bench stores in the database (db/db.h: db_bench_run and
 * its db_bench_result rows), so that the document and the stored run say
 * the same.
 */
#ifndef SYMV_BENCH_JSON_H
#define SYMV_BENCH_JSON_H

#include <stddef.h>
#include <stdio.h>
#include "../db/db.h"

/* Version of the document's layout (json.h: json_head). */
#define BENCH_JSON_FORMAT 1

/**
 * bench_json_write: writes to f the document of one bench run: the head
 * (format, symvtune, schema, device: run's GPU), "routine", "uplo",
 * "atomics" ("any" or "deterministic"), "hot", "batches", "copy_gbs" (null
 * when not measured), "library": {path, version, tuned_gpu, arch},
 * "complete", "run_id" (the row id of the stored run, or null: not
 * stored), "results": one object per row of r (n, kernel, libsymv_us,
 * cublas_us, cublas_atomics_us, openblas_us, floor_us, gflops, pct_copy,
 * speedup, x_floor, residual, correct), and "summary" (the bench's targets:
 * slower_at, the sizes where libsymv is slower than the reference cuBLAS
 * mode; speedup_geomean_500_4096; least_pct_copy_8192; x_floor_geomean_500_4096;
 * null where no size falls in the range).
 *
 * The speed-up is the reference cuBLAS mode's time over libsymv's: the
 * faster of the two modes for run->deterministic == 0, cuBLAS without
 * atomics for 1 (the mode such a caller gets). x_floor is libsymv's time
 * over the floor kernel's. A row is correct when its residual is at most
 * tol. Times in microseconds; NAN fields are null. All rows are of one
 * routine and uplo (those of r[0]; "routine" and "uplo" are null for nr = 0).
 */
void bench_json_write(FILE *f, const db_bench_run *run, const db_bench_result *r, size_t nr, double tol);

#endif
