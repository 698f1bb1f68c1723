// SPDX-License-Identifier: BSD-3-Clause
// 2026-11-29-fx-bound.cu - 2026-11-26-combine-bound.cu with two more modes,
// fx and fx3: the least a one-launch exact (fixed-point) combine adds to the
// floor's read, next to the gate the atomic kernels pay (issue 38; the runs:
// results/2026-11-29-h200-fx-bound.txt).
//
// A SYMV must read the stored triangle (the floor: kernels/symv_floor.cu)
// and, besides, add up partial sums made by different blocks and apply
// beta to y before or with them. Each kernel below does the floor's read
// and only the cheapest form of one way to combine, with nothing else of a
// SYMV (no x, no arithmetic beyond a sum), so its time over the read-only
// kernel's is a lower bound on what that way of combining adds:
//   read   the floor: warps stream (column, 32*U-row slice) items of the
//          lower triangle (columns j and n-1-j paired, as the floor family
//          pairs them), a sum per thread, one store per block;
//   red    read, then each warp adds its sum to an element of y with one
//          red.add (the atomics' drain, at its least: one a warp);
//   gate   red, and before its red.add each warp waits for y to have been
//          scaled by beta: C = min(G, ceil(n/64)) blocks scale a chunk of y
//          each first thing and count it (red.release), a thread of each
//          block polls (ld.acquire) once the block's reads are done (pipe's
//          gate, without its claims, waited for as late as it can be:
//          kernels/symv_pipe.cu);
//   2grid  read, each warp storing its slice's sum to a workspace, then a
//          second grid (programmatic dependent launch, 128-thread blocks,
//          a thread a row) that reads y(old) before it waits, then ceil(n/64)
//          sums a row from the workspace, all loads in flight, and writes y
//          (pipe_det's two phases, kernels/symv_pipe_det.cu, with nothing of
//          its tiles);
//   1grid  2grid in one launch: the streaming blocks count themselves done
//          (a barrier, then red.release) and ceil(n/256) more blocks of the
//          grid, resident beside one wave of them, read y(old), poll the
//          count (ld.acquire) and then sum and write as 2grid's second grid
//          does (no block of it may run before the streamers: a skeleton,
//          not a kernel for a shared GPU);
//   fx     read, then each warp adds its sum, rounded to a 64-bit integer of
//          fixed weight 2^-32, to a word of row (warp mod n) with one
//          red.add.u64 (order-independent: integer addition); the block
//          then counts itself done (a barrier, then one atom.acq_rel.add that
//          returns the count); the last F = ceil(n/256) blocks to count each
//          own 256 rows of y: they read y(old), wait for the count to reach
//          the grid's (ld.acquire), read their rows' words, write
//          y = beta*y(old) + word*2^-32 and clear the words for the next call
//          (pipe_fx's finishing, kernels/symv_pipe_fx.cu, at its cheapest:
//          one word a row instead of pipe_fx's 3 digits of 7 or 16 words, one
//          count for the grid instead of one a row block, no rounding);
//   fx3    fx with three words a row, each warp adding three digits (the
//          least pipe_fx adds a value with), the finishers reading three;
//   empty  griddepcontrol only: what a launch costs, back to back.
// Every kernel starts with griddepcontrol.wait and launch_dependents and is
// launched with programmatic stream serialization, as libsymv's are; A is
// rotated among copies > 2 x L2 (cold); batches of back-to-back calls
// timed with events, the median of 9; each mode's time is its least over
// three launch shapes (U loads a thread, blocks of 256 per SM: 4x8, 8x4,
// 4x4), as the floor is the least over its family.
//
// nvcc -O3 -arch=sm_90 -o fxbound 2026-11-29-fx-bound.cu && ./fxbound
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "CUDA error %s at line %d: %s\n", cudaGetErrorString(e_), __LINE__, #x); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

enum { READ = 0, RED = 1, GATE = 2, TWO = 3, ONE = 4, FX = 5, FX3 = 6, EMPTY = 7, NMODES = 8 };

__device__ __forceinline__ void pdl()
{
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

__global__ void fill(double *a, size_t n, unsigned s)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)(i * 2654435761u) ^ s;
    h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
    a[i] = (h & 0xffff) / 65536.0 - 0.5;
  }
}

__global__ void empty_kernel() { pdl(); }

// Row i's K = ceil(n/64) partial sums P[i + k*n] (coalesced over i), eight
// loads in flight at a time: what 2grid's and 1grid's summers add up.
__device__ __forceinline__ double row_sums(int n, const double *__restrict__ P, int i)
{
  const int K = (n + 63) / 64;
  double s = 0;
  int k = 0;
  for (; k + 8 <= K; k += 8) {
    double v[8];
#pragma unroll
    for (int u = 0; u < 8; u++) v[u] = __ldcg(P + (long long)(k + u) * n + i);
#pragma unroll
    for (int u = 0; u < 8; u++) s += v[u];
  }
  for (; k < K; k++) s += __ldcg(P + (long long)k * n + i);
  return s;
}

// One kernel for read, red, gate, 2grid's first grid, 1grid, fx and fx3 (MODE);
// 1grid's first `streamers` blocks stream, the rest sum; fx's last `streamers`
// blocks to count finish (W: the words, 3n of them).
template <int U, int MODE>
__global__ void __launch_bounds__(256) stream_kernel(int n, const double *__restrict__ A, long long lda, double *out,
                                                     double *y, unsigned long long *gate, unsigned long long target,
                                                     double beta, double *P, unsigned long long streamers,
                                                     unsigned long long *W)
{
  pdl();
  const int lane = threadIdx.x & 31, G = gridDim.x;
  if (MODE == GATE) { // chunk b of y := beta*y, counted
    const int C = min(G, (n + 63) / 64);
    if ((int)blockIdx.x < C) {
      const int a0 = (int)((long long)blockIdx.x * n / C), a1 = (int)((long long)(blockIdx.x + 1) * n / C);
      for (int i = a0 + threadIdx.x; i < a1; i += blockDim.x) y[i] *= beta;
      __syncthreads();
      if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.u64 [%0], 1;\n" ::"l"(gate) : "memory");
    }
  }
  const int G0 = MODE == ONE ? (int)streamers : G; /* ONE: blocks >= G0 sum (below) */
  if (MODE == ONE && (int)blockIdx.x >= G0) { /* a summer: 256 rows of y */
    const int i = (blockIdx.x - G0) * blockDim.x + threadIdx.x;
    const double yold = i < n ? y[i] : 0;
    if (threadIdx.x == 0) {
      unsigned long long g;
      do asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(g) : "l"(gate) : "memory");
      while (g < target);
    }
    __syncthreads();
    if (i >= n) return;
    y[i] = beta * yold + row_sums(n, P, i);
    return;
  }
  const int pairs = (n + 1) / 2, per = 32 * U;
  const unsigned Q = (unsigned)((n + 1 + per - 1) / per); // slices of a pair of n+1 elements
  const unsigned items = (unsigned)pairs * Q, nwarps = G0 * (blockDim.x / 32);
  double acc = 0;
  for (unsigned it = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5); it < items; it += nwarps) {
    const int p = (int)(it / Q), s = (int)(it % Q);
    const int j1 = p, j2 = n - 1 - p, m1 = n - j1, m2 = j2 == j1 ? 0 : n - j2;
    double v[U], sum = 0;
#pragma unroll
    for (int k = 0; k < U; k++) {
      const int u = s * per + k * 32 + lane;
      v[k] = 0;
      if (u < m1) v[k] = __ldg(A + (long long)j1 * lda + j1 + u);
      else if (u - m1 < m2) v[k] = __ldg(A + (long long)j2 * lda + j2 + (u - m1));
    }
#pragma unroll
    for (int k = 0; k < U; k++) sum += v[k];
    if (MODE == TWO || MODE == ONE) {
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
      if (lane == 0) P[it] = sum;
    } else {
      acc += sum;
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if (MODE == READ) {
    __shared__ double part[8];
    if (lane == 0) part[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
      double s = 0;
      for (int w = 0; w < (int)(blockDim.x / 32); w++) s += part[w];
      out[blockIdx.x] = s;
    }
  } else if (MODE == RED || MODE == GATE) {
    if (MODE == GATE) { /* y must be scaled before the first addition: one poller a block, as pipe */
      if (threadIdx.x == 0) {
        unsigned long long g;
        do asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(g) : "l"(gate) : "memory");
        while (g < target);
      }
      __syncthreads();
    }
    if (lane == 0) atomicAdd(y + (blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5)) % n, acc);
  } else if (MODE == ONE) { /* this block's sums are stored: count it */
    __syncthreads();
    if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.u64 [%0], 1;\n" ::"l"(gate) : "memory");
  } else if (MODE == FX || MODE == FX3) {
    const int e = (int)((blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5)) % (unsigned)n);
    if (lane == 0) {
      const long long q = __double2ll_rn(acc * 4294967296.0);
      asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;\n" ::"l"(W + e), "l"(q) : "memory");
      if (MODE == FX3) {
        asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;\n" ::"l"(W + n + e), "l"(q >> 16) : "memory");
        asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;\n" ::"l"(W + 2 * n + e), "l"(q >> 32) : "memory");
      }
    }
    __shared__ long long pos_s;
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned long long old;
      asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;\n" : "=l"(old) : "l"(gate) : "memory");
      pos_s = (long long)(old - (target - (unsigned long long)G));
    }
    __syncthreads();
    const long long F = (long long)streamers, f = pos_s - (G - F);
    if (f < 0) return;
    const int i = (int)(f * 256) + threadIdx.x;
    const double yold = i < n ? y[i] : 0;
    if (threadIdx.x == 0) {
      unsigned long long g;
      do asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(g) : "l"(gate) : "memory");
      while (g < target);
    }
    __syncthreads();
    if (i >= n) return;
    long long v = (long long)__ldcg(W + i);
    W[i] = 0;
    if (MODE == FX3) {
      v += (long long)__ldcg(W + n + i) + (long long)__ldcg(W + 2 * n + i);
      W[n + i] = 0, W[2 * n + i] = 0;
    }
    y[i] = beta * yold + (double)v * (1.0 / 4294967296.0);
  }
}

// 2grid's second grid: thread i = row i; y(old) read, then the wait, then
// row i's sums (row_sums).
__global__ void __launch_bounds__(128) sum_kernel(int n, const double *__restrict__ P, double *y, double beta)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const double yold = i < n ? y[i] : 0;
  pdl();
  if (i >= n) return;
  y[i] = beta * yold + row_sums(n, P, i);
}

static void launch(void (*fn)(int, const double *, long long, double *, double *, unsigned long long *,
                              unsigned long long, double, double *, unsigned long long, unsigned long long *),
                   int grid, cudaStream_t st, int n, const double *A, long long lda, double *out, double *y,
                   unsigned long long *gate, unsigned long long target, double beta, double *P,
                   unsigned long long streamers, unsigned long long *W)
{
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.gridDim = dim3(grid), cfg.blockDim = dim3(256), cfg.stream = st, cfg.attrs = &attr, cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, fn, n, A, lda, out, y, gate, target, beta, P, streamers, W));
}

static void launch_sum(int n, cudaStream_t st, const double *P, double *y, double beta)
{
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.gridDim = dim3((n + 127) / 128), cfg.blockDim = dim3(128), cfg.stream = st, cfg.attrs = &attr, cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, sum_kernel, n, P, y, beta));
}

static void launch_empty(cudaStream_t st, int grid)
{
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.gridDim = dim3(grid), cfg.blockDim = dim3(256), cfg.stream = st, cfg.attrs = &attr, cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, empty_kernel));
}

typedef void (*stream_fn)(int, const double *, long long, double *, double *, unsigned long long *,
                          unsigned long long, double, double *, unsigned long long, unsigned long long *);
#define MODES(U) {stream_kernel<U, READ>, stream_kernel<U, RED>, stream_kernel<U, GATE>, stream_kernel<U, TWO>, \
                  stream_kernel<U, ONE>, stream_kernel<U, FX>, stream_kernel<U, FX3>}
struct shape {
  int u, bps;
  stream_fn fn[7];
};

int main(int argc, char **argv)
{
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::vector<int> sizes = {500, 724, 1000, 1448, 2000, 2896, 4096, 8192};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; i++) sizes.push_back(atoi(argv[i]));
  }
  const shape shapes[] = {
      {4, 8, MODES(4)},
      {8, 4, MODES(8)},
      {4, 4, MODES(4)},
  };
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("%s, %d SMs, L2 %d MB; cold A (copies > 2 x L2); us a call, median of 9 batches; each mode the least of "
         "3 shapes\n",
         prop.name, sms, prop.l2CacheSize >> 20);
  printf("%6s %8s %8s %8s %8s %8s %8s %8s %8s   %9s %9s %9s %9s %9s %9s  %9s %9s\n", "n", "empty", "read", "red",
         "gate", "2grid", "1grid", "fx", "fx3", "red/read", "gate/read", "2grid/read", "1grid/read", "fx/read",
         "fx3/read", "fx-gate", "fx3-gate");
  for (int n : sizes) {
    const size_t msz = (size_t)n * n;
    const int copies = (int)std::max<size_t>(2, std::min<size_t>(256, (2 * (size_t)prop.l2CacheSize) / (msz * 8) + 2));
    double *A, *y, *out, *P;
    unsigned long long *gate, *W;
    CK(cudaMalloc(&W, (size_t)3 * n * 8));
    CK(cudaMemset(W, 0, (size_t)3 * n * 8));
    CK(cudaMalloc(&A, msz * 8 * copies));
    fill<<<1024, 256>>>(A, msz * copies, 7);
    CK(cudaMalloc(&y, (size_t)n * 8));
    fill<<<64, 256>>>(y, n, 5);
    const int maxgrid = sms * 8 * 8;
    CK(cudaMalloc(&out, (size_t)maxgrid * 8));
    const size_t pitems = (size_t)((n + 1) / 2) * ((n + 1 + 127) / 128 + 1);
    CK(cudaMalloc(&P, std::max(pitems, (size_t)n * ((n + 63) / 64)) * 8));
    CK(cudaMemset(P, 0, std::max(pitems, (size_t)n * ((n + 63) / 64)) * 8));
    CK(cudaMalloc(&gate, 8));
    CK(cudaMemset(gate, 0, 8));
    CK(cudaDeviceSynchronize());
    unsigned long long target = 0;
    double best[NMODES];
    for (int m = 0; m < NMODES; m++) best[m] = 1e30;
    const int R = std::max(20, std::min(400, (int)(2e8 / (msz * 8.0 / 2))));
    for (const shape &sh : shapes) {
      for (int m = 0; m < NMODES; m++) {
        int occ = sh.bps; /* one wave: never more blocks than fit (gate's waiters need its scalers resident) */
        if (m != EMPTY) CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, sh.fn[m], 256, 0));
        /* ONE: its summers (ceil(n/256) blocks) must fit beside one wave of streamers */
        const int bps = m == ONE ? std::min(sh.bps, occ - 1) : sh.bps;
        if (bps < 1) continue;
        const int G0 = sms * std::min(occ, bps), grid = m == ONE ? G0 + (n + 255) / 256 : G0;
        if (m == EMPTY && &sh != &shapes[0]) continue;
        std::vector<float> t;
        for (int b = 0; b < 10; b++) { // the first batch warms up
          CK(cudaEventRecord(e0, st));
          for (int r = 0; r < R; r++) {
            const double *Ar = A + (size_t)(r % copies) * msz;
            if (m == EMPTY) {
              launch_empty(st, grid);
            } else {
              const int C = std::min(grid, (n + 63) / 64);
              if (m == GATE) target += (unsigned long long)C;
              if (m == ONE || m == FX || m == FX3) target += (unsigned long long)G0;
              const unsigned long long F = (unsigned long long)std::min(G0, (n + 255) / 256);
              launch(sh.fn[m], grid, st, n, Ar, n, out, y, gate, target, 0.999, P,
                     m == FX || m == FX3 ? F : (unsigned long long)G0, W);
              if (m == TWO) launch_sum(n, st, P, y, 0.999);
            }
          }
          CK(cudaEventRecord(e1, st));
          CK(cudaEventSynchronize(e1));
          float ms;
          CK(cudaEventElapsedTime(&ms, e0, e1));
          if (b > 0) t.push_back(ms * 1e3f / R);
        }
        CK(cudaGetLastError());
        std::sort(t.begin(), t.end());
        best[m] = std::min(best[m], (double)t[t.size() / 2]);
      }
    }
    printf("%6d %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f   %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f  %9.2f %9.2f\n",
           n, best[EMPTY], best[READ], best[RED], best[GATE], best[TWO], best[ONE], best[FX], best[FX3],
           best[RED] / best[READ], best[GATE] / best[READ], best[TWO] / best[READ], best[ONE] / best[READ],
           best[FX] / best[READ], best[FX3] / best[READ], best[FX] - best[GATE], best[FX3] - best[GATE]);
    fflush(stdout);
    CK(cudaFree(A));
    CK(cudaFree(y));
    CK(cudaFree(out));
    CK(cudaFree(P));
    CK(cudaFree(gate));
    CK(cudaFree(W));
  }
  return 0;
}
