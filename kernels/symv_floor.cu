/*
 * symv_floor.cu - the floor of DSYMV, for `symvtune bench`: a kernel that
 * does nothing but read the stored lower triangle once (a warp per column,
 * columns dealt out to all warps of the grid, 32 consecutive rows per load),
 * so that a SYMV's time can be reported against the least time any kernel
 * that reads the triangle once needs (../shared/anchors.md). It computes no
 * product; it writes *out only if its sum hits a value no real data gives,
 * which keeps the compiler from dropping the loads.
 * Launched as the DSYMV kernels are (programmatic dependent launch where
 * the GPU has it, symv_grid_dependency), so that both pay the same launch.
 * Parameters: BLOCK_SIZE (threads per block); UX and MX unused.
 */
#include "symv_common.cuh"

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const double *__restrict__ A, symv_ll lda, double *out)
{
  symv_grid_dependency();
  const int lane = threadIdx.x & 31;
  const int warp = (blockIdx.x * BLOCK_SIZE + threadIdx.x) >> 5, nwarps = (gridDim.x * BLOCK_SIZE) >> 5;
  double s = 0.0;
  for (int j = warp; j < n; j += nwarps) {
    const double *col = A + (symv_ll)j * lda;
    for (int i = j + lane; i < n; i += 32) s += __ldg(col + i);
  }
  if (s == 1.2345678e300) *out = s;
}
