/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_gate.cuh - the beta gate: y := beta*y must be done before the first
 * addition into y, and the blocks that scale y are not the ones that add.
 * y is cut into C chunks; whoever scales a chunk claims it first and then
 * counts it at the gate; a block waits at the gate until it has counted
 * all C chunks of this call. The gate is a workspace of 1 + C words:
 *   gate[0]      the count of chunks scaled, over every call on the workspace
 *   gate[1 + c]  the last call that claimed chunk c
 * target: the count the gate reaches when this call's chunks are all in
 * (the host's running sum of the chunks of the calls on this workspace);
 * the claims only grow, since successive calls' targets increase. Used by
 * the pipe family (symv_pipe.cu, whose header says where its chunks lie).
 * Needs symv_common.cuh (symv_t, symv_ull, symv_ll, symv_scale_elem).
 */
#ifndef SYMV_GATE_CUH
#define SYMV_GATE_CUH

/* arrive: one more chunk of y scaled. Adds one with release semantics at
 * GPU scope, called by one thread after a barrier, so that the whole
 * block's scaled y is ordered before it (the pattern of CUTLASS's
 * GenericBarrier); only that thread pays for the ordering, and no thread
 * fences while its block's copies are in flight. */
static __device__ __forceinline__ void symv_gate_arrive(symv_ull *gate)
{
  asm volatile("red.release.gpu.global.add.u64 [%0], 1;\n" ::"l"(gate) : "memory");
}

/* Claims a chunk for this call: true for exactly one claim per call (the
 * claim words only grow: the targets of successive calls increase). */
static __device__ __forceinline__ bool symv_gate_claim(symv_ull *word, symv_ull target)
{
  return atomicMax(word, target) < target;
}

static __device__ __forceinline__ symv_ull symv_now_ns()
{
  symv_ull t;
  asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
  return t;
}

/* Rows a0..a1-1 of y := beta*y by one thread (a chunk taken over from a
 * block that has not started). */
static __device__ void symv_gate_scale(symv_t *y, symv_ll incy, int a0, int a1, symv_t beta)
{
  for (int i = a0; i < a1; i++) symv_scale_elem(y + (symv_ll)i * incy, beta);
}

/* One thread spins with acquire loads until the gate has counted all C
 * chunks; after 20 us it scales the chunks no block has claimed (their
 * blocks have not started), counting each, and spins on. */
static __device__ void symv_gate_wait(symv_ull *gate, symv_ull target, int n, int C, symv_t *y, symv_ll incy,
                                      symv_t beta)
{
  const symv_ull t0 = symv_now_ns();
  bool helped = false;
  symv_ull v;
  for (;;) {
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(v) : "l"(gate) : "memory");
    if (v >= target) return;
    if (!helped && symv_now_ns() - t0 > 20000) {
      helped = true;
      for (int c = 0; c < C; c++)
        if (symv_gate_claim(gate + 1 + c, target)) {
          symv_gate_scale(y, incy, (int)((long)c * n / C), (int)((long)(c + 1) * n / C), beta);
          symv_gate_arrive(gate);
        }
    }
  }
}

#endif
