/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symv_floor.cu - the floor of a SYMV/HEMV, for `symvtune bench`: a kernel
 * that does nothing but read the stored lower triangle once (a warp per
 * column, columns dealt out to all warps of the grid, 32 consecutive rows
 * per load), so that a SYMV's time can be reported against the least time
 * any kernel that reads the triangle once needs (../shared/anchors.md). It
 * computes no product; it writes *out only if its sum hits a value no real
 * data gives, which keeps the compiler from dropping the loads.
 * Launched as the SYMV kernels are (programmatic dependent launch where
 * the GPU has it, symv_grid_dependency), so that both pay the same launch.
 * Parameters: BLOCK_SIZE (threads per block); UX and MX unused.
 *
 * Every routine (SYMV_ROUTINE, kernels/symv_scalar.cuh): A is a
 * column-major n x n matrix of symv_t, lda in elements (4, 8, 8, 16, 8, 16 bytes for ssymv,
 * dsymv, csymv, zsymv, chemv, zhemv), of which exactly the elements (i, j),
 * i >= j, are read, each once, whole (both parts of a complex element, one
 * load): n(n+1)/2 * sizeof(symv_t) bytes. Each thread's sum is kept in
 * symv_t. `out` stays a pointer to ONE double whatever the routine (8
 * bytes, as before): a thread writes its sum there, converted to double
 * (for a complex routine: the real part), only when the sum (complex: real
 * plus imaginary part) equals SYMV_FLOOR_MAGIC, 1.2345678e300 in double
 * precision or 1.2345678e30f in single (a value a float can hold, so that
 * the test cannot be folded away), i.e. in practice never.
 */
#include "symv_common.cuh"

#if SYMV_SINGLE
#define SYMV_FLOOR_MAGIC 1.2345678e30f
#else
#define SYMV_FLOOR_MAGIC 1.2345678e300
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const symv_t *__restrict__ A, symv_ll lda, double *out)
{
  symv_grid_dependency();
  const int lane = threadIdx.x & 31;
  const int warp = (blockIdx.x * BLOCK_SIZE + threadIdx.x) >> 5, nwarps = (gridDim.x * BLOCK_SIZE) >> 5;
  symv_t s = symv_zero();
  for (int j = warp; j < n; j += nwarps) {
    const symv_t *col = A + (symv_ll)j * lda;
    for (int i = j + lane; i < n; i += 32) s = symv_add(s, symv_ldg(col + i));
  }
#if SYMV_COMPLEX
  /* both parts feed the test, so that neither half of a load is dropped */
  if (s.re + s.im == SYMV_FLOOR_MAGIC) *out = s.re;
#else
  if (s == SYMV_FLOOR_MAGIC) *out = s;
#endif
}
