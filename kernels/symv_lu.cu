/*
 * symv_lu.cu - kernel family "L+U" (method.md section 3): no atomics on
 * data, no mutex, deterministic results; the small-n family.
 *
 * A = L + D + U. Column block b (blockIdx.x) owns columns c0..c0+UX-1 and
 * their stored rows i >= c0, BLOCK_SIZE rows at a time (thread t: rows
 * c0+t, c0+t+BLOCK_SIZE, ...), UX loads per row in MX order:
 *
 *   P[b][i]    = sum_{k, c0+k <= i} a(i,c0+k) x(c0+k)      ((L+D)x, partial)
 *   P[b][c0+k] += sum_{i > c0+k} a(i,c0+k) x(i)           (Ux, complete)
 *
 * Each partial is written with a plain store to its own slot of the
 * workspace P (gridDim.x rows of n doubles), so nothing conflicts. Rows of
 * segment s (rows s*UX .. s*UX+UX-1) have partials from blocks 0..s only.
 * After a __threadfence, block b adds one to the counter of every segment
 * s >= b; the block that brings counter s to s+1 (all of 0..s are done)
 * sums that segment's partials in the fixed order b' = 0..s:
 *   y(i) := alpha * sum_{b'<=s} P[b'][i] + beta*y(i)
 * and zeroes the counter. The sum order never changes, so y is bitwise
 * reproducible run to run; the counters return to zero after every call.
 *
 * Parameters: BLOCK_SIZE, UX (columns per block = rows per segment), MX
 * (load order, as in the atomic family). Grid: ceil(n/UX) blocks.
 * Workspace: P[ceil(n/UX) * n] doubles (any contents), count[ceil(n/UX)]
 * ints, zero.
 */
#include "symv_common.cuh"

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
SYMV_KERNEL_NAME(int n, const double *__restrict__ A, int rs, symv_ll cs,
                 const double *__restrict__ x, symv_ll incx, double *y, symv_ll incy,
                 double alpha, double beta, const double *dalpha, const double *dbeta,
                 double *P, int *count)
{
  __shared__ double xs[UX];
  __shared__ double red[SYMV_NWARPS * UX];
  __shared__ double cd[UX];
  __shared__ int done[BLOCK_SIZE];
  __shared__ int ndone;
  const int t = threadIdx.x;

  SYMV_LOAD_SCALARS();
  if (alpha == 0.0) {
    symv_scale_y(n, y, incy, beta);
    return;
  }
  const int b = blockIdx.x, nblk = gridDim.x, c0 = b * UX;
  double *Pb = P + (symv_ll)b * n;
  if (t < UX) xs[t] = (c0 + t < n) ? x[(symv_ll)(c0 + t) * incx] : 0.0;
  __syncthreads();

  double cdot[UX];
#pragma unroll
  for (int k = 0; k < UX; k++) cdot[k] = 0.0;
  for (int i = c0 + t; i < n; i += BLOCK_SIZE)
    Pb[i] = symv_row(A, rs, cs, n, c0, i, x[(symv_ll)i * incx], xs, cdot);

  symv_reduce_cdot(cdot, red, cd);
  /* thread t < UX wrote Pb[c0+t] itself in its first row */
  if (t < UX && c0 + t < n) Pb[c0 + t] += cd[t];

  __threadfence();
  __syncthreads();
  for (int s0 = b; s0 < nblk; s0 += BLOCK_SIZE) {
    if (t == 0) ndone = 0;
    __syncthreads();
    const int s = s0 + t;
    if (s < nblk && atomicAdd(&count[s], 1) == s) {
      count[s] = 0;
      done[atomicAdd(&ndone, 1)] = s;
    }
    __syncthreads();
    __threadfence();
    const int m = ndone;
    for (int idx = t; idx < m * UX; idx += BLOCK_SIZE) {
      const int sd = done[idx / UX];
      const int i = sd * UX + idx % UX;
      if (i < n) {
        double v = 0.0;
        for (int bb = 0; bb <= sd; bb++) v += __ldcg(P + (symv_ll)bb * n + i);
        symv_store_y(y, incy, i, alpha, v, beta);
      }
    }
    __syncthreads();
  }
}
