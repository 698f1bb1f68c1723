/*
 * symv_fault.cu - deliberately misbehaving kernels, used only to test that
 * symvtune survives a candidate that faults or hangs (the sweep's worker
 * isolation). Same signature as the atomic family's entry point.
 *   SYMV_FAULT_MODE 0: writes through a wild pointer (illegal address)
 *   SYMV_FAULT_MODE 1: spins forever (to be stopped by the time limit)
 */
#include "symv_common.cuh"

#ifndef SYMV_FAULT_MODE
#define SYMV_FAULT_MODE 0
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const double *__restrict__ A, int rs, symv_ll cs,
                 const double *__restrict__ x, symv_ll incx, double *y, symv_ll incy,
                 double alpha, double beta, const double *dalpha, const double *dbeta,
                 double *w, int *mutex, int *count)
{
#if SYMV_FAULT_MODE == 0
  double *wild = (double *)(0xdead0000ull + 8ull * threadIdx.x);
  *wild = alpha;
#else
  volatile int *spin = mutex;
  while (spin[0] == 0 || spin[0] != 0) { }
#endif
}
