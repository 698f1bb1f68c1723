/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * worker.h - the measuring process of the sweep.
 *
 * A kernel that faults destroys its CUDA context, and one that hangs never
 * returns: so the sweep (the parent, which never touches the GPU) runs every
 * candidate in a child process, `symvtune worker` (started by the parent,
 * not meant to be typed), and restarts it when it dies or overruns its time
 * limit. They talk in lines of text over pipes:
 *
 *   parent                                worker
 *   init DEV UPLO HOT BATCHES TOL R    ->  device CC_MAJOR CC_MINOR SMS L2 MEMCLK BUS SMEM_SM
 *                                              SMEM_OPTIN REGS_SM MAXBLK MAXTHR DRV RT MEM
 *                                              MAXTHR_BLOCK SMEM_RESERVED NAME...
 *                                          copy GBS
 *                                          ok
 *   base NAME STAGE N1,N2,...          ->  meas N MEDIAN MIN MAX BATCHES CALLS RESID  (per n)
 *                                          ok
 *   cand P STAGE N1:PRUNE1,N2:...      ->  load REGS DYN_SMEM COMPILE_MS
 *                                          meas ... (per n)
 *                                          ok | invalid REASON DETAIL...
 *   lib ATOMICS STAGE N1,N2,... PATH   ->  libk N KERNEL HOST_US  (per n: what libsymv ran,
 *                                                   symvLastKernel, and its host time to queue a call)
 *                                          meas ... (per n)
 *                                          ok | invalid REASON DETAIL... | error ...
 *   floor STAGE N1,N2,...              ->  empty US          (the empty kernel, once)
 *                                          shape N SHAPE UNTUNED_US  (per n: the floor's
 *                                                   winning shape, the untuned kernel's time)
 *                                          meas N MEDIAN MIN MAX BATCHES CALLS 0  (per n)
 *                                          ok | error ...
 *   quit
 *
 * R is the routine (core/routine.h) of every candidate and baseline the
 * worker measures. P is a candidate as symv_params_format writes it. PRUNE (microseconds, 0
 * for none): when the first timing batch at that n is slower, the worker
 * reports that batch (BATCHES = 1) instead of timing fully - such a
 * candidate cannot be among the champions there. Each size is set up once
 * (fresh random data, A in enough copies to exceed twice the L2 unless HOT,
 * the cuBLAS result and the residual's scale), and every candidate is
 * verified at every size against cuBLAS before it is timed. REASON is a
 * db_reason name (resources, occupancy, compile, launch, fault, wrong).
 * floor times the floor family at each n (gpu/floor.h: the least time of a
 * read-only kernel streaming A's stored triangle; its checksum checked
 * against the CPU's). lib times libsymv at PATH (the rest of the line: it
 * may hold spaces; `symvtune build` made it, loaded
 * once; one library a worker) called with the worker's cuBLAS handle in
 * ATOMICS (any: ALLOWED, deterministic: NOT_ALLOWED), verified as a
 * candidate and charged the launches of the kernel it ran. After a fault the worker says so and exits with
 * status 3.
 */
#ifndef SYMV_WORKER_H
#define SYMV_WORKER_H

/** Exit status of a worker whose CUDA context was lost to a fault. */
#define SYMV_WORKER_EXIT_FAULT 3

/** worker_serve: the worker's side of the protocol above: reads commands
 *  from standard input and answers each on standard output (flushed line
 *  by line) until quit or the end of input. A fault ends the process
 *  (SYMV_WORKER_EXIT_FAULT) after its invalid line. Returns 0, or the error
 *  of an init that failed (SYMV_INVALID_VALUE for a malformed line, the
 *  device query's, SYMV_CUBLAS), after which it reads nothing more. */
int worker_serve(void);

#endif
