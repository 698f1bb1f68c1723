// SPDX-License-Identifier: BSD-3-Clause
// 2026-11-29-launch-ways-kernel.cu - the empty kernel of 2026-11-29-launch-ways.cu:
// pipe_det's parameter list (16 parameters, two 16-byte scalars), waiting on
// the grid before it (griddepcontrol) as symvtune's kernels do, reading
// dynamic shared memory only when n < -5 (never). Built to a CUBIN and loaded
// as symvtune loads its kernels (cudaLibraryLoadData):
//   nvcc -O2 -arch=sm_90 -cubin -o kern.cubin 2026-11-29-launch-ways-kernel.cu
struct __align__(16) s16 { unsigned char b[16]; };
extern "C" __global__ void k16(int n, const char *A, int rs, long long cs, const char *x, long long ix, char *y,
                               long long iy, s16 a, s16 b, const void *da, const void *db, float *P, int ntiles,
                               int grid, int phase)
{
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
#endif
  extern __shared__ float sm[];
  if (n < -5) sm[threadIdx.x] = 1;
  if (n < 0 && threadIdx.x == 0 && sm[5] > 0) P[blockIdx.x] = a.b[0] + b.b[1] + rs + cs + ix + iy + ntiles + grid + phase + (long long)A + (long long)x + (long long)y + (long long)da + (long long)db;
}
