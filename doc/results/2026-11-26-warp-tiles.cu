// SPDX-License-Identifier: BSD-3-Clause
// 2026-11-26-warp-tiles.cu - a prototype DSYMV (lower, lda = n, unit
// strides) whose work items are warp tiles, next to the read-only kernel of
// results/2026-11-26-combine-bound.cu: does a SYMV built on the floor's
// habits (register loads, no shared-memory pipeline, no block barrier per
// tile) come closer to the floor than pipe at n = 500..4096?
//
// Tile (I, J): rows H*I .. H*I+H-1, H = 32*U (lane l: rows H*I + 32u + l,
// u < U) by columns W*J .. W*J+W-1 of the lower triangle, W = 8, 16 or 32,
// numbered down each strip of W columns; warp w of block b takes tile
// 8*b + w (blocks of 8 warps, one tile a warp, ceil(T/8) blocks). A lane
// loads its U rows' W elements (a warp: W runs of H consecutive elements in
// U loads of 32) and x of its rows;
// lanes 0..W-1 load x of the strip's columns, shared by shuffles. Row sums in
// registers; the W column sums over the warp's H rows by the transposing
// butterfly of kernels/symv_pipe.cuh; then H + W red.adds into y, alpha
// applied. beta: pipe's gate (kernels/symv_pipe.cu) without its claims:
// blocks 0..C-1, C = min(G, ceil(n/64)), scale a chunk of y each and count
// it; each block waits (one thread polls) after its tiles' arithmetic,
// before its first red.add.
//
// nvcc -O3 -arch=sm_90 -o wtiles 2026-11-26-warp-tiles.cu && ./wtiles
#include <algorithm>
#include <cmath>
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

// transposing butterfly (kernels/symv_pipe.cuh's symv_pipe_tr)
template <int N, int H> struct tr {
  static __device__ __forceinline__ void run(double (&v)[N], int lane)
  {
    const bool up = lane & H;
#pragma unroll
    for (int k = 0; k < H; k++) {
      const double lo = v[k], hi = v[k + H];
      v[k] = (up ? hi : lo) + __shfl_xor_sync(0xffffffffu, up ? lo : hi, H);
    }
    tr<N, H / 2>::run(v, lane);
  }
};
template <int N> struct tr<N, 0> {
  static __device__ __forceinline__ void run(double (&)[N], int) {}
};

// tiles before strip J: strips J' < J hold nb - J'/q tiles each (q = H/W: row blocks of H = 32*U rows)
__host__ __device__ __forceinline__ long before(int J, int nb, int q)
{
  const long m = J / q, r = J % q;
  return (long)J * nb - (q * m * (m - 1) / 2 + m * r);
}

template <int W, int U, bool ATOMIC = true>
__global__ void __launch_bounds__(256) wsymv(int n, const double *__restrict__ A, long long lda,
                                             const double *__restrict__ x, double *y, double alpha, double beta,
                                             unsigned long long *gate, unsigned long long target, int nb, int ns,
                                             long T)
{
  pdl();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, q = 32 * U / W;
  const long t = (long)blockIdx.x * 8 + warp;
  const bool has = t < T;
  int I = 0, J = 0;
  if (has) {
    int lo = 0, hi = ns - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (before(mid, nb, q) <= t) lo = mid;
      else hi = mid - 1;
    }
    J = lo, I = J / q + (int)(t - before(J, nb, q));
  }
  const int j0 = W * J;
  double a[U][W], xr[U];
#pragma unroll
  for (int u = 0; u < U; u++) {
    const int i = 32 * U * I + 32 * u + lane;
#pragma unroll
    for (int k = 0; k < W; k++)
      a[u][k] = (has && i < n && j0 + k <= i) ? __ldg(A + (long long)(j0 + k) * lda + i) : 0.0;
    xr[u] = (has && i < n) ? __ldg(x + i) : 0.0;
  }
  const double xl = (has && lane < W && j0 + lane < n) ? __ldg(x + j0 + lane) : 0.0;

  const int G = gridDim.x, C = min(G, (n + 63) / 64);
  if ((int)blockIdx.x < C && beta != 1.0) { // this block's chunk of y := beta*y, counted
    const int a0 = (int)((long long)blockIdx.x * n / C), a1 = (int)((long long)(blockIdx.x + 1) * n / C);
    for (int r = a0 + threadIdx.x; r < a1; r += blockDim.x) y[r] = beta == 0.0 ? 0.0 : beta * y[r];
    __syncthreads();
    if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.u64 [%0], 1;\n" ::"l"(gate) : "memory");
  }

  double rsum[U], c[W];
#pragma unroll
  for (int k = 0; k < W; k++) c[k] = 0.0;
#pragma unroll
  for (int u = 0; u < U; u++) {
    const int i = 32 * U * I + 32 * u + lane;
    rsum[u] = 0;
#pragma unroll
    for (int k = 0; k < W; k++) {
      const double xc = __shfl_sync(0xffffffffu, xl, k);
      rsum[u] = fma(a[u][k], xc, rsum[u]);
      if (j0 + k < i) c[k] = fma(a[u][k], xr[u], c[k]); // column k's share (symmetric: the element itself)
    }
  }
  tr<W, W / 2>::run(c, lane);
#pragma unroll
  for (int h = W; h < 32; h *= 2) c[0] += __shfl_xor_sync(0xffffffffu, c[0], h);

  if (beta != 1.0) {
    if (threadIdx.x == 0) {
      unsigned long long g;
      do asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(g) : "l"(gate) : "memory");
      while (g < target);
    }
    __syncthreads();
  }
#pragma unroll
  for (int u = 0; u < U; u++) {
    const int i = 32 * U * I + 32 * u + lane;
    if (has && i < n) {
      if (ATOMIC) atomicAdd(y + i, alpha * rsum[u]);
      else y[i] = alpha * rsum[u]; /* timing only: what the red.adds cost (y is wrong) */
    }
  }
  if (has && lane < W && j0 + lane < n) {
    if (ATOMIC) atomicAdd(y + j0 + lane, alpha * c[0]);
    else y[j0 + lane] = alpha * c[0];
  }
}

__global__ void __launch_bounds__(256) readk(int n, const double *__restrict__ A, long long lda, double *out)
{
  pdl();
  const int lane = threadIdx.x & 31, U = 4, per = 32 * U;
  const int pairs = (n + 1) / 2;
  const unsigned Q = (unsigned)((n + 1 + per - 1) / per), items = (unsigned)pairs * Q,
                 nwarps = gridDim.x * (blockDim.x / 32);
  double acc = 0;
  for (unsigned it = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5); it < items; it += nwarps) {
    const int p = (int)(it / Q), s = (int)(it % Q);
    const int j1 = p, j2 = n - 1 - p, m1 = n - j1, m2 = j2 == j1 ? 0 : n - j2;
    double v[U];
#pragma unroll
    for (int k = 0; k < U; k++) {
      const int u = s * per + k * 32 + lane;
      v[k] = 0;
      if (u < m1) v[k] = __ldg(A + (long long)j1 * lda + j1 + u);
      else if (u - m1 < m2) v[k] = __ldg(A + (long long)j2 * lda + j2 + (u - m1));
    }
#pragma unroll
    for (int k = 0; k < U; k++) acc += v[k];
  }
  if (acc == 1234.5) out[0] = acc;
}

template <typename F, typename... Args> static void pdl_launch(F fn, int grid, cudaStream_t st, Args... args)
{
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.gridDim = dim3(grid), cfg.blockDim = dim3(256), cfg.stream = st, cfg.attrs = &attr, cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, fn, args...));
}

int main(int argc, char **argv)
{
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::vector<int> sizes = {500, 724, 1000, 1448, 2000, 2896, 4096, 8192};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; i++) sizes.push_back(atoi(argv[i]));
  }
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("%s: DSYMV lower, alpha 1, beta 0.5, cold A; us a call (median of 9 batches); resid = max |y - y_ref| / "
         "(n eps (|A||x| + |beta||y|))\n",
         prop.name);
  /* variants: tiles of 32*U rows by W columns; 0 is the read-only kernel */
  /* the last two: 32x32 and 64x16 with plain stores for the red.adds, timed only (y wrong, not checked) */
  const int VW[] = {0, 8, 16, 32, 8, 8, 16, 32, 16}, VU[] = {0, 1, 1, 1, 2, 4, 2, 1, 2}, NV = 9, NCHECK = 7;
  printf("%6s %8s", "n", "read");
  for (int v = 1; v < NV; v++) printf("  %3dx%-2d%s", 32 * VU[v], VW[v], v < NCHECK ? "" : "s");
  printf("   (tile rows x columns: us; then each over read)   %8s\n", "resid");
  unsigned long long *gate;
  CK(cudaMalloc(&gate, 8));
  CK(cudaMemset(gate, 0, 8));
  unsigned long long target = 0;
  for (int n : sizes) {
    const size_t msz = (size_t)n * n;
    const int copies = (int)std::max<size_t>(2, std::min<size_t>(256, (2 * (size_t)prop.l2CacheSize) / (msz * 8) + 2));
    double *A, *x, *y, *out;
    CK(cudaMalloc(&A, msz * 8 * copies));
    fill<<<1024, 256>>>(A, msz * copies, 7);
    CK(cudaMalloc(&x, (size_t)n * 8));
    fill<<<64, 256>>>(x, n, 3);
    CK(cudaMalloc(&y, (size_t)n * 8));
    CK(cudaMalloc(&out, 8));
    CK(cudaDeviceSynchronize());
    double best[NV], worst_resid = 0;
    const int R = std::max(20, std::min(400, (int)(2e8 / (msz * 8.0 / 2))));
    for (int v = 0; v < NV; v++) {
      const int W = v ? VW[v] : 32, U = v ? VU[v] : 1, H = 32 * U, ns = (n + W - 1) / W, nb = (n + H - 1) / H;
      const long T = before(ns, nb, H / W);
      const int grid = v == 0 ? prop.multiProcessorCount * 8 : (int)((T + 7) / 8);
      auto call = [&](int r, double *yy) {
        const double *Ar = A + (size_t)(r % copies) * msz;
        if (v == 0) {
          pdl_launch(readk, grid, st, n, Ar, (long long)n, out);
          return;
        }
        target += (unsigned long long)std::min(grid, (n + 63) / 64);
#define WT_LAUNCH(w, u)                                                                                           \
  if (W == w && U == u)                                                                                             \
    pdl_launch(wsymv<w, u>, grid, st, n, Ar, (long long)n, (const double *)x, yy, 1.0, 0.5, gate, target, nb, ns, T);
        if (v < NCHECK) {
          WT_LAUNCH(8, 1) WT_LAUNCH(16, 1) WT_LAUNCH(32, 1) WT_LAUNCH(8, 2) WT_LAUNCH(8, 4) WT_LAUNCH(16, 2)
        } else if (W == 32) {
          pdl_launch(wsymv<32, 1, false>, grid, st, n, Ar, (long long)n, (const double *)x, yy, 1.0, 0.5, gate, target, nb, ns, T);
        } else {
          pdl_launch(wsymv<16, 2, false>, grid, st, n, Ar, (long long)n, (const double *)x, yy, 1.0, 0.5, gate, target, nb, ns, T);
        }
#undef WT_LAUNCH
      };
      if (v > 0 && v < NCHECK) { // correctness: one call on fresh y against the CPU
        std::vector<double> hA(msz), hx(n), hy(n), out_y(n);
        fill<<<64, 256>>>(y, n, 11 + v);
        CK(cudaMemcpy(hA.data(), A, msz * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hx.data(), x, (size_t)n * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hy.data(), y, (size_t)n * 8, cudaMemcpyDeviceToHost));
        call(0, y);
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(out_y.data(), y, (size_t)n * 8, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
          double s = 0, sa = 0;
          for (int j = 0; j < n; j++) {
            const double aij = i >= j ? hA[(size_t)j * n + i] : hA[(size_t)i * n + j];
            s += aij * hx[j], sa += fabs(aij * hx[j]);
          }
          const double ref = s + 0.5 * hy[i], scale = n * 2.2e-16 * (sa + 0.5 * fabs(hy[i]));
          worst_resid = std::max(worst_resid, fabs(out_y[i] - ref) / scale);
          if (!(fabs(out_y[i] - ref) <= 4 * scale)) {
            printf("WRONG: n %d W %d row %d: %.17g against %.17g\n", n, W, i, out_y[i], ref);
            return 1;
          }
        }
      }
      std::vector<float> tm;
      for (int b = 0; b < 10; b++) {
        CK(cudaEventRecord(e0, st));
        for (int r = 0; r < R; r++) call(r, y);
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (b > 0) tm.push_back(ms * 1e3f / R);
      }
      CK(cudaGetLastError());
      std::sort(tm.begin(), tm.end());
      best[v] = tm[tm.size() / 2];
    }
    printf("%6d %8.2f", n, best[0]);
    for (int v = 1; v < NV; v++) printf(" %8.2f", best[v]);
    printf("  ");
    for (int v = 1; v < NV; v++) printf(" %6.3f", best[v] / best[0]);
    printf("   %8.2g\n", worst_resid);
    fflush(stdout);
    CK(cudaFree(A));
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(out));
  }
  return 0;
}
