/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_fault.cu - deliberately misbehaving kernels, used only to test that
 * symvtune survives a candidate that faults or hangs (the sweep's worker
 * isolation). Same signature as the atomic family's entry point (any
 * SYMV_ROUTINE, kernels/symv_scalar.cuh).
 *   SYMV_FAULT_MODE 0: writes through a wild pointer (illegal address)
 *   SYMV_FAULT_MODE 1: spins forever (to be stopped by the time limit)
 */
#include "symv_common.cuh"

#ifndef SYMV_FAULT_MODE
#define SYMV_FAULT_MODE 0
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const symv_t *__restrict__ A, int rs, symv_ll cs,
                 const symv_t *__restrict__ x, symv_ll incx, symv_t *y, symv_ll incy,
                 symv_t alpha, symv_t beta, const symv_t *dalpha, const symv_t *dbeta,
                 symv_t *w, int *mutex, int *count)
{
#if SYMV_FAULT_MODE == 0
  symv_t *wild = (symv_t *)(0xdead0000ull + sizeof(symv_t) * threadIdx.x); /* aligned: an illegal address */
  *wild = alpha;
#else
  volatile int *spin = mutex;
  while (spin[0] == 0 || spin[0] != 0) { }
#endif
}
