// SPDX-License-Identifier: BSD-3-Clause
// 2026-11-26-launch-cost.cu - what a libsymv call costs the host besides
// its kernel: the handle and stream queries it makes each call (gpu/gpu.c,
// lib/libsymv.c), and the launch itself by four ways, each timed as the
// host's time to queue it (batches of 64, the GPU then drained) and as the
// time a launch back to back (5,000, CUDA events). The kernel takes pipe's
// parameters and does nothing but griddepcontrol.
//
// nvcc -O2 -arch=sm_90 -o launchcost 2026-11-26-launch-cost.cu -lcuda -lcublas && ./launchcost
#include <chrono>
#include <cublas_v2.h>
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>
__global__ void kpdl(int n, const double *A, int rs, long long cs, const double *x, long long incx, double *y, long long incy,
                     double alpha, double beta, const double *da, const double *db, unsigned long long *gate,
                     unsigned long long target, int ntiles) {
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  if (y && threadIdx.x == 9999 && n == -5) y[0] = alpha + beta + A[0] + x[0] + rs + cs + incx + incy + (da ? 1 : 0) + (db ? 1 : 0) + (gate ? 1 : 0) + target + ntiles; }
static double now() { return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int n = 1000, rs = 1, nt = 5; long long cs = 1000, ix = 1, iy = 1; double a = 1, b = 0.5; const double *A = 0, *x = 0, *da = 0, *db = 0; double *y = 0;
  unsigned long long *gate = 0, tg = 0;
  void *args[] = {&n, &A, &rs, &cs, &x, &ix, &y, &iy, &a, &b, &da, &db, &gate, &tg, &nt};
  cudaFunction_t rf; cudaGetFuncBySymbol(&rf, (const void *)kpdl); CUfunction f = (CUfunction)rf;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  {
    cublasHandle_t h; cublasCreate(&h); cublasSetStream(h, s);
    const int N = 20000; int dev; cudaStreamCaptureStatus st; cudaStream_t ss; cublasAtomicsMode_t am; cublasPointerMode_t pm;
    double t0 = now(); for (int i = 0; i < N; i++) cudaGetDevice(&dev); printf("%-26s %7.1f ns\n", "cudaGetDevice", (now() - t0) / N);
    t0 = now(); for (int i = 0; i < N; i++) cudaStreamIsCapturing(s, &st); printf("%-26s %7.1f ns\n", "cudaStreamIsCapturing", (now() - t0) / N);
    t0 = now(); for (int i = 0; i < N; i++) cublasGetStream(h, &ss); printf("%-26s %7.1f ns\n", "cublasGetStream", (now() - t0) / N);
    t0 = now(); for (int i = 0; i < N; i++) cublasGetAtomicsMode(h, &am); printf("%-26s %7.1f ns\n", "cublasGetAtomicsMode", (now() - t0) / N);
    t0 = now(); for (int i = 0; i < N; i++) cublasGetPointerMode(h, &pm); printf("%-26s %7.1f ns\n", "cublasGetPointerMode", (now() - t0) / N);
    cublasDestroy(h);
  }
  for (int rep = 0; rep < 2; rep++)
  for (int way = 0; way < 4; way++) {
    auto launch = [&]() {
      if (way == 0) {
        cudaLaunchConfig_t cfg = {}; cudaLaunchAttribute at = {}; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1;
        cfg.gridDim = dim3(264); cfg.blockDim = dim3(256); cfg.stream = s; cfg.attrs = &at; cfg.numAttrs = 1;
        cudaLaunchKernelExC(&cfg, (const void *)kpdl, args);
      } else if (way == 1) {
        CUlaunchConfig cfg = {}; CUlaunchAttribute at = {}; at.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION; at.value.programmaticStreamSerializationAllowed = 1;
        cfg.gridDimX = 264; cfg.gridDimY = 1; cfg.gridDimZ = 1; cfg.blockDimX = 256; cfg.blockDimY = 1; cfg.blockDimZ = 1; cfg.hStream = (CUstream)s; cfg.attrs = &at; cfg.numAttrs = 1;
        cuLaunchKernelEx(&cfg, f, args, nullptr);
      } else if (way == 2) {
        cuLaunchKernel(f, 264, 1, 1, 256, 1, 1, 0, (CUstream)s, args, nullptr);
      } else {
        kpdl<<<264, 256, 0, s>>>(n, A, rs, cs, x, ix, y, iy, a, b, da, db, gate, tg, nt);
      }
    };
    const char *name[] = {"cudaLaunchKernelExC+PDL", "cuLaunchKernelEx+PDL", "cuLaunchKernel", "<<<>>>"};
    cudaStreamSynchronize(s);
    double tot = 0; int cnt = 0;
    for (int bb = 0; bb < 200; bb++) { double t0 = now(); for (int i = 0; i < 64; i++) launch(); tot += now() - t0; cnt += 64; cudaStreamSynchronize(s); }
    cudaEventRecord(e0, s); for (int i = 0; i < 5000; i++) launch(); cudaEventRecord(e1, s); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    printf("%-26s host %7.1f ns a launch; back to back %.2f us\n", name[way], tot / cnt, ms * 1000 / 5000);
  }
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
