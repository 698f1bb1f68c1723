// SPDX-License-Identifier: BSD-3-Clause
// 2026-11-27-tile-rows.cu - does SSYMV's pipe fall short of the floor at
// large n (about 84% of it, DSYMV about 95%) because of its access pattern
// (a tile of 64 rows reads runs of 256 bytes of float, 512 of double) or
// because of its arithmetic? A stripped pipe streams the lower triangle
// (lda = n) in tiles of R rows x CW columns, numbered down each strip of CW
// columns and dealt out in equal contiguous shares to SMs x M persistent
// blocks of BS threads, through an S-stage shared-memory pipeline of
// element-wise cp.async copies, as kernels/symv_pipe.cuh does (thread t:
// row t mod R, columns (t/R)*CPT .. + CPT - 1 of the tile, CPT = CW*R/BS).
// With COMPUTE off a thread only adds its copied elements; with it on, it
// does pipe's per-tile arithmetic (row sums, column products, the
// transposing butterfly, the block's totals through shared memory, two
// barriers a tile) but keeps its totals in registers instead of adding
// them into y. Beside them, a plain read of the triangle column by column
// (a warp a column, the floor's element loads). Times by events, 20
// launches after 3, n = 8192 and 16384; GB/s of the triangle's bytes.
//
// nvcc -O3 -arch=sm_90 -std=c++17 -o tilerows 2026-11-27-tile-rows.cu && ./tilerows
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

template <typename T> __device__ __forceinline__ void cp_elem(T *dst, const T *src, bool ok)
{
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"((int)sizeof(T)),
               "r"(ok ? (int)sizeof(T) : 0)
               : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

template <typename T, int N, int H> struct tr {
  static __device__ __forceinline__ void run(T (&v)[N], int lane)
  {
    const bool up = lane & H;
#pragma unroll
    for (int k = 0; k < H; k++) {
      const T lo = v[k], hi = v[k + H];
      v[k] = (up ? hi : lo) + __shfl_xor_sync(0xffffffffu, up ? lo : hi, H);
    }
    tr<T, N, H / 2>::run(v, lane);
  }
};
template <typename T, int N> struct tr<T, N, 0> {
  static __device__ __forceinline__ void run(T (&)[N], int) {}
};

template <typename T, int R, int CW, int BS, int S, bool COMPUTE>
__global__ void __launch_bounds__(BS) tiles(const T *__restrict__ A, int n, const int2 *__restrict__ tl, int nt,
                                            const T *__restrict__ x, T *out)
{
  constexpr int CG = BS / R, CPT = CW / CG;
  static_assert(CPT >= 1 && CPT <= 32 && R % 32 == 0, "shape");
  extern __shared__ __align__(16) unsigned char sm_[];
  T *buf = (T *)sm_;
  __shared__ T rs[CG][R];
  __shared__ T cs[BS / 32][CPT];
  const int t = threadIdx.x, r = t % R, cg = t / R, lane = t & 31, w = t >> 5;
  const int t0 = (int)((long)blockIdx.x * nt / gridDim.x), t1 = (int)((long)(blockIdx.x + 1) * nt / gridDim.x);
  auto issue = [&](int k, int s) {
    const int2 it = tl[k];
    const int i = it.x * R + r, j0 = it.y * CW + cg * CPT;
    T *b = buf + s * (CPT + 1) * BS;
#pragma unroll
    for (int kk = 0; kk < CPT; kk++) cp_elem(b + kk * BS + t, A + i + (long)(j0 + kk) * n, i < n && j0 + kk <= i);
    cp_elem(b + CPT * BS + t, x + i, i < n);
  };
#pragma unroll
  for (int s = 0; s < S - 1; s++) {
    if (t0 + s < t1) issue(t0 + s, s);
    cp_commit();
  }
  T racc = 0, cacc = 0, xc[CPT];
  int curJ = -1;
  for (int k = t0; k < t1; k++) {
    if (k + S - 1 < t1) issue(k + S - 1, (k - t0 + S - 1) % S);
    cp_commit();
    cp_wait<S - 1>();
    const T *b = buf + ((k - t0) % S) * (CPT + 1) * BS;
    if (!COMPUTE) {
      T v = 0;
#pragma unroll
      for (int kk = 0; kk < CPT; kk++) v += b[kk * BS + t];
      racc += v;
      continue;
    }
    const int2 it = tl[k];
    const int I = it.x, J = it.y, i = I * R + r, j0 = J * CW + cg * CPT;
    if (J != curJ) {
      curJ = J;
#pragma unroll
      for (int kk = 0; kk < CPT; kk++) xc[kk] = j0 + kk < n ? __ldg(x + j0 + kk) : T(0);
    }
    const T xr = b[CPT * BS + t];
    const bool below = I * R >= (J + 1) * CW;
    T rsv = 0, cp[CPT];
#pragma unroll
    for (int kk = 0; kk < CPT; kk++) {
      const T a = b[kk * BS + t];
      rsv = fma(a, xc[kk], rsv);
      cp[kk] = (below || j0 + kk < i) ? a * xr : T(0);
    }
    tr<T, CPT, CPT / 2>::run(cp, lane);
#pragma unroll
    for (int h = CPT; h < 32; h *= 2) cp[0] += __shfl_xor_sync(0xffffffffu, cp[0], h);
    if (lane < CPT) cs[w][lane] = cp[0];
    rs[cg][r] = rsv;
    __syncthreads();
    if (t < R) {
      T v = 0;
#pragma unroll
      for (int g = 0; g < CG; g++) v += rs[g][t];
      racc += v;
    }
    if (t < CW) { /* column t: group g = t / CPT, its R/32 warps */
      const int g = t / CPT, c = t % CPT;
      T v = 0;
#pragma unroll
      for (int q = 0; q < R / 32; q++) v += cs[g * (R / 32) + q][c];
      cacc += v;
    }
    __syncthreads();
  }
  cp_wait<0>();
  out[(long)blockIdx.x * BS + t] = racc + cacc;
}

/* cp.async of V consecutive elements (4, 8 or 16 bytes of T = float, or 8,
 * 16 of double), the first `have` of them read, the rest zero-filled */
template <typename T, int V> __device__ __forceinline__ void cp_vec(T *dst, const T *src, int have)
{
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"((int)(V * sizeof(T))),
               "r"(have * (int)sizeof(T))
               : "memory");
}

/* tiles with V rows a thread: thread t takes rows (t mod RT)*V .. + V - 1
 * of the tile (RT = R/V threads down a column group, a multiple of 32, so
 * that a warp is in one group) and CPT = CW*RT/BS columns; each column's V
 * elements come in one cp.async of V*sizeof(T) bytes (A and lda = n
 * aligned to it); a thread adds its V products of a column before the
 * butterfly, so that the butterfly's shuffles and selects are 1/V of an
 * element's. */
template <typename T, int V, int R, int CW, int BS, int S, bool COMPUTE>
__global__ void __launch_bounds__(BS) tilesv(const T *__restrict__ A, int n, const int2 *__restrict__ tl, int nt,
                                             const T *__restrict__ x, T *out)
{
  constexpr int RT = R / V, CG = BS / RT, CPT = CW / CG;
  static_assert(CPT >= 1 && CPT <= 32 && RT % 32 == 0 && CG >= 1, "shape");
  extern __shared__ __align__(16) unsigned char sm_[];
  T *buf = (T *)sm_;
  __shared__ T rs[CG][R];
  __shared__ T cs[BS / 32][CPT];
  const int t = threadIdx.x, rg = t % RT, cg = t / RT, lane = t & 31, w = t >> 5;
  const int t0 = (int)((long)blockIdx.x * nt / gridDim.x), t1 = (int)((long)(blockIdx.x + 1) * nt / gridDim.x);
  auto issue = [&](int k, int s) {
    const int2 it = tl[k];
    const int i0 = it.x * R + rg * V, j0 = it.y * CW + cg * CPT;
    const int have = i0 < n ? (n - i0 < V ? n - i0 : V) : 0;
    T *b = buf + s * (CPT + 1) * BS * V;
#pragma unroll
    for (int kk = 0; kk < CPT; kk++)
      cp_vec<T, V>(b + (kk * BS + t) * V, A + i0 + (long)(j0 + kk) * n, j0 + kk <= i0 + V - 1 ? have : 0);
    cp_vec<T, V>(b + (CPT * BS + t) * V, x + i0, have);
  };
#pragma unroll
  for (int s = 0; s < S - 1; s++) {
    if (t0 + s < t1) issue(t0 + s, s);
    cp_commit();
  }
  T racc[V] = {}, cacc = 0, xc[CPT];
  int curJ = -1;
  for (int k = t0; k < t1; k++) {
    if (k + S - 1 < t1) issue(k + S - 1, (k - t0 + S - 1) % S);
    cp_commit();
    cp_wait<S - 1>();
    const T *b = buf + ((k - t0) % S) * (CPT + 1) * BS * V;
    if (!COMPUTE) {
      T v = 0;
#pragma unroll
      for (int kk = 0; kk < CPT; kk++)
#pragma unroll
        for (int q = 0; q < V; q++) v += b[(kk * BS + t) * V + q];
      racc[0] += v;
      continue;
    }
    const int2 it = tl[k];
    const int I = it.x, J = it.y, i0 = I * R + rg * V, j0 = J * CW + cg * CPT;
    if (J != curJ) {
      curJ = J;
#pragma unroll
      for (int kk = 0; kk < CPT; kk++) xc[kk] = j0 + kk < n ? __ldg(x + j0 + kk) : T(0);
    }
    T xr[V], rsv[V], cp[CPT];
#pragma unroll
    for (int q = 0; q < V; q++) xr[q] = b[(CPT * BS + t) * V + q], rsv[q] = 0;
    const bool below = I * R >= (J + 1) * CW;
    if (below) {
#pragma unroll
      for (int kk = 0; kk < CPT; kk++) {
        T c = 0;
#pragma unroll
        for (int q = 0; q < V; q++) {
          const T a = b[(kk * BS + t) * V + q];
          rsv[q] = fma(a, xc[kk], rsv[q]);
          c = fma(a, xr[q], c);
        }
        cp[kk] = c;
      }
    } else {
#pragma unroll
      for (int kk = 0; kk < CPT; kk++) {
        T c = 0;
#pragma unroll
        for (int q = 0; q < V; q++) {
          const T a = j0 + kk <= i0 + q ? b[(kk * BS + t) * V + q] : T(0);
          rsv[q] = fma(a, xc[kk], rsv[q]);
          c = j0 + kk < i0 + q ? fma(a, xr[q], c) : c;
        }
        cp[kk] = c;
      }
    }
    tr<T, CPT, CPT / 2>::run(cp, lane);
#pragma unroll
    for (int h = CPT; h < 32; h *= 2) cp[0] += __shfl_xor_sync(0xffffffffu, cp[0], h);
    if (lane < CPT) cs[w][lane] = cp[0];
#pragma unroll
    for (int q = 0; q < V; q++) rs[cg][rg * V + q] = rsv[q];
    __syncthreads();
    if (t < R) {
      T v = 0;
#pragma unroll
      for (int g = 0; g < CG; g++) v += rs[g][t];
      racc[0] += v;
    }
    if (t < CW) { /* column t: group g = t / CPT, its RT/32 warps */
      const int g = t / CPT, c = t % CPT;
      T v = 0;
#pragma unroll
      for (int q = 0; q < RT / 32; q++) v += cs[g * (RT / 32) + q][c];
      cacc += v;
    }
    __syncthreads();
  }
  cp_wait<0>();
  out[(long)blockIdx.x * BS + t] = racc[0] + cacc;
}

template <typename T> __global__ void colread(const T *__restrict__ A, int n, T *out)
{ /* a warp a column, columns dealt out to the grid's warps in turn */
  const int lane = threadIdx.x & 31, gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, nw = (gridDim.x * blockDim.x) >> 5;
  T v = 0;
  for (int j = gw; j < n; j += nw)
    for (int i = j + lane; i < n; i += 32) v += A[i + (long)j * n];
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

static int sms;

template <typename T, int V, int R, int CW, int BS, int S, bool COMPUTE>
static void run(const char *name, int M, const T *A, const T *x, T *out, int n)
{
  std::vector<int2> h;
  const int nb = (n + R - 1) / R, ns = (n + CW - 1) / CW;
  for (int J = 0; J < ns; J++)
    for (int I = (J * CW) / R; I < nb; I++) h.push_back(make_int2(I, J));
  int2 *tl;
  CK(cudaMalloc(&tl, h.size() * sizeof(int2)));
  CK(cudaMemcpy(tl, h.data(), h.size() * sizeof(int2), cudaMemcpyHostToDevice));
  constexpr int CPT = CW / (BS / (R / V));
  const size_t smem = (size_t)S * (CPT + 1) * BS * V * sizeof(T);
  void (*k)(const T *, int, const int2 *, int, const T *, T *);
  if constexpr (V == 1) k = tiles<T, R, CW, BS, S, COMPUTE>;
  else k = tilesv<T, V, R, CW, BS, S, COMPUTE>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, BS, smem));
  const int m = occ < M ? occ : M, G = sms * m;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; i++) k<<<G, BS, smem>>>(A, n, tl, (int)h.size(), x, out);
  CK(cudaEventRecord(e0));
  for (int i = 0; i < 20; i++) k<<<G, BS, smem>>>(A, n, tl, (int)h.size(), x, out);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  const double us = ms * 1e3 / 20, bytes = (double)n * (n + 1) / 2 * sizeof(T);
  printf("%-6s n=%5d V%d %-25s compute=%d M=%d(occ %d) %9.2f us %7.1f GB/s\n", sizeof(T) == 4 ? "float" : "double",
         n, V, name, (int)COMPUTE, m, occ, us, bytes / us / 1e3);
  CK(cudaFree(tl));
}

template <typename T> static void all(int n)
{
  T *A, *x, *out;
  CK(cudaMalloc(&A, (size_t)n * n * sizeof(T)));
  CK(cudaMalloc(&x, (size_t)n * sizeof(T)));
  CK(cudaMalloc(&out, (size_t)sms * 8 * 1024 * sizeof(T)));
  CK(cudaMemset(A, 0, (size_t)n * n * sizeof(T)));
  CK(cudaMemset(x, 0, (size_t)n * sizeof(T)));
  {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 3; i++) colread<<<sms * 8, 256>>>(A, n, out);
    CK(cudaEventRecord(e0));
    for (int i = 0; i < 20; i++) colread<<<sms * 8, 256>>>(A, n, out);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    const double us = ms * 1e3 / 20, bytes = (double)n * (n + 1) / 2 * sizeof(T);
    printf("%-6s n=%5d %-28s %20s %9.2f us %7.1f GB/s\n", sizeof(T) == 4 ? "float" : "double", n, "column read", "", us,
           bytes / us / 1e3);
  }
  for (int c = 0; c < 2; c++) {
    const bool C = c;
#define RUN(V, R, CW, BS, S, M)                                                                             \
  (C ? run<T, V, R, CW, BS, S, true>("R" #R " CW" #CW " BS" #BS " S" #S, M, A, x, out, n)                   \
     : run<T, V, R, CW, BS, S, false>("R" #R " CW" #CW " BS" #BS " S" #S, M, A, x, out, n))
    if constexpr (sizeof(T) == 4) {
      RUN(1, 64, 64, 128, 2, 4); /* pipe:128,64,4,0 */
      RUN(1, 64, 64, 256, 2, 3); /* pipe:256,64,3,0 */
      RUN(1, 128, 64, 256, 2, 3);
      RUN(2, 64, 64, 128, 2, 4);
      RUN(2, 64, 32, 128, 2, 4);
      RUN(2, 64, 64, 256, 2, 3);
      RUN(2, 128, 64, 256, 2, 3);
      RUN(4, 128, 64, 128, 2, 4);
      RUN(4, 128, 32, 128, 2, 4);
      RUN(4, 128, 64, 256, 2, 2);
      RUN(4, 128, 32, 128, 3, 4);
    } else {
      RUN(1, 64, 64, 256, 2, 2); /* pipe:256,64,2,0 */
      RUN(1, 64, 32, 128, 2, 4);
      RUN(2, 64, 64, 128, 2, 4);
      RUN(2, 64, 32, 128, 2, 4);
      RUN(2, 64, 64, 256, 2, 2);
    }
  }
  CK(cudaFree(A));
  CK(cudaFree(x));
  CK(cudaFree(out));
}

int main()
{
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  sms = p.multiProcessorCount;
  printf("%s, %d SMs\n", p.name, sms);
  for (int n : {8192, 16384}) {
    all<float>(n);
    all<double>(n);
  }
  return 0;
}
