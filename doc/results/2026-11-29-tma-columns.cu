// SPDX-License-Identifier: BSD-3-Clause
// 2026-11-29-tma-columns.cu - can the copy engine (TMA, cp.async.bulk) bring
// SSYMV's tiles where lda is not a multiple of 4 (and DSYMV's where it is
// odd), faster than the element copies pipe falls back to there? The stripped pipe of 2026-11-27-tile-rows.cu
// (tiles of R rows x CW columns of the lower triangle, lda = n, numbered down
// each strip and dealt out in equal contiguous shares to SMs x M persistent
// blocks of BS threads, an S-stage shared-memory pipeline), copy only: each
// thread adds the elements of its row and CPT columns from shared memory,
// masked to the triangle (i >= j, i < n), and the grid's total is checked
// against a plain double-precision sum of the triangle; or, computing, does
// pipe's per-tile arithmetic with x = 1 (row sums, column products below
// the diagonal through the transposing butterfly, the block's totals through
// shared memory, two barriers a tile), its totals kept in registers and
// checked against twice the triangle's sum less the diagonal's. Copies:
//   elem  cp.async of an element (4 or 8 bytes), an element a thread a column
//         (pipe's copies where lda is not a multiple of 16 bytes' elements);
//   vec4  cp.async of 16 bytes, 4 (float) or 2 (double) rows a thread (pipe's
//         SSYMV copies where lda is a multiple of 4; timed at such n only);
//   tma   one cp.async.bulk a column: the run of aligned 16-byte words that
//         holds the column's R rows (R elements, 16 bytes more where the run
//         starts off a 16-byte boundary), issued by thread c for column c,
//         completing on the stage's mbarrier (arrive.expect_tx of its bytes);
//         a thread reads its element at the run's offset, (j*lda + i0) mod E,
//         E = 16 / element bytes.
// Beside them, a plain read of the triangle (a warp a column, 4-byte loads).
// Times by events, 20 launches after 3 (A is 4-8 times the L2); GB/s of the
// triangle's bytes.
//
// nvcc -O3 -arch=sm_90 -std=c++17 -o tmacols 2026-11-29-tma-columns.cu && ./tmacols
#include <cstdint>
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

__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
template <typename T> __device__ __forceinline__ void cp_elem(T *dst, const T *src, bool ok)
{
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem_addr(dst)), "l"(src),
               "n"((int)sizeof(T)), "r"(ok ? (int)sizeof(T) : 0)
               : "memory");
}
template <typename T> __device__ __forceinline__ void cp16(T *dst, const T *src, int have)
{
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
               "r"(have * (int)sizeof(T))
               : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

__device__ __forceinline__ void mbar_init(uint64_t *b, unsigned count)
{
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(b)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive_tx(uint64_t *b, unsigned bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *b, unsigned parity)
{
  unsigned done = 0;
  do
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(smem_addr(b)), "r"(parity)
                 : "memory");
  while (!done);
}
__device__ __forceinline__ void bulk_copy(void *dst, const void *src, unsigned bytes, uint64_t *b)
{
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(b))
               : "memory");
}

enum { ELEM, VEC4, TMA, TMA4 };

/* the shares: block b takes tiles [b*nt/G, (b+1)*nt/G) of the list */
template <typename T, int N, int H> struct tr { /* the transposing butterfly of 2026-11-27-tile-rows.cu */
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

template <typename T, int MODE, int R, int CW, int BS, int S, bool COMPUTE>
__global__ void __launch_bounds__(BS) tiles(const T *__restrict__ A, int n, const int2 *__restrict__ tl, int nt,
                                            double *out)
{
  constexpr int E = 16 / sizeof(T); /* elements a 16-byte word */
  constexpr int V = MODE == VEC4 ? E : 1, RT = R / V, CG = BS / RT, CPT = CW / CG;
  static_assert(CPT >= 1 && RT % 32 == 0 && CG >= 1 && CW <= BS && (!COMPUTE || CPT <= 32), "shape");
  constexpr int SLOT = MODE == TMA ? R + E : 0;                 /* elements a column's run takes (TMA) */
  constexpr int STAGE = MODE == TMA ? CW * SLOT : CPT * BS * V; /* elements a stage */
  extern __shared__ __align__(128) unsigned char sm_[];
  T *buf = (T *)sm_;
  __shared__ __align__(8) uint64_t bar[S];
  __shared__ T rs[COMPUTE ? CG : 1][R];
  __shared__ T cs[COMPUTE ? BS / 32 : 1][CPT];
  const int t = threadIdx.x, rg = t % RT, cg = t / RT, lane = t & 31, w = t >> 5;
  const int t0 = (int)((long)blockIdx.x * nt / gridDim.x), t1 = (int)((long)(blockIdx.x + 1) * nt / gridDim.x);
  if (MODE == TMA) {
    if (t == 0)
      for (int s = 0; s < S; s++) mbar_init(&bar[s], CW);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    __syncthreads();
  }
  auto issue = [&](int k, int s) {
    const int2 it = tl[k];
    T *b = buf + s * STAGE;
    if (MODE == TMA) {
      if (t < CW) {
        const long j = (long)it.y * CW + t;
        const int r0 = it.x * R, r1 = min(n, r0 + R);
        if (j < n && j < r1) {
          const long e0 = j * n + r0, e1 = j * n + r1;    /* the run's elements [e0, e1) */
          const long a0 = e0 & ~(long)(E - 1), a1 = (e1 + E - 1) & ~(long)(E - 1); /* the aligned words that hold it */
          asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* this stage's reads, before it is refilled */
          mbar_arrive_tx(&bar[s], (unsigned)((a1 - a0) * sizeof(T)));
          bulk_copy(b + t * SLOT, A + a0, (unsigned)((a1 - a0) * sizeof(T)), &bar[s]);
        } else
          mbar_arrive_tx(&bar[s], 0);
      }
      return;
    }
    const int i0 = it.x * R + rg * V, j0 = it.y * CW + cg * CPT;
#pragma unroll
    for (int kk = 0; kk < CPT; kk++) {
      if (MODE == ELEM) cp_elem(b + kk * BS + t, A + i0 + (long)(j0 + kk) * n, i0 < n && j0 + kk <= i0);
      else {
        const int have = i0 < n && j0 + kk <= i0 + V - 1 ? min(V, n - i0) : 0;
        cp16(b + (kk * BS + t) * V, A + i0 + (long)(j0 + kk) * n, have);
      }
    }
  };
#pragma unroll
  for (int s = 0; s < S - 1; s++) {
    if (t0 + s < t1) issue(t0 + s, s);
    if (MODE != TMA) cp_commit();
  }
  double acc = 0;
  for (int k = t0; k < t1; k++) {
    if (k + S - 1 < t1) issue(k + S - 1, (k - t0 + S - 1) % S);
    const int s = (k - t0) % S;
    if (MODE == TMA) mbar_wait(&bar[s], ((k - t0) / S) & 1);
    else {
      cp_commit();
      cp_wait<S - 1>(); /* this thread's copies of the stage: the ones it reads */
    }
    const T *b = buf + s * STAGE;
    const int2 it = tl[k];
    const int i0 = it.x * R + rg * V, j0 = it.y * CW + cg * CPT;
    if constexpr (COMPUTE && V == 1) { /* x = 1: row sums and column sums of the tile's lower part */
      T rsv = 0, cp[CPT];
#pragma unroll
      for (int kk = 0; kk < CPT; kk++) {
        const int j = j0 + kk;
        T a;
        if (MODE == TMA) {
          const int off = (int)(((long)j * n + it.x * R) & (E - 1));
          a = i0 < n && j <= i0 ? b[(cg * CPT + kk) * SLOT + off + rg] : T(0);
        } else
          a = b[kk * BS + t];
        rsv += a;
        cp[kk] = j < i0 ? a : T(0);
      }
      tr<T, CPT, CPT / 2>::run(cp, lane);
#pragma unroll
      for (int h = CPT; h < 32; h *= 2) cp[0] += __shfl_xor_sync(0xffffffffu, cp[0], h);
      if (lane < CPT) cs[w][lane] = cp[0];
      rs[cg][rg] = rsv;
      __syncthreads();
      if (t < R) {
        T u = 0;
#pragma unroll
        for (int g = 0; g < CG; g++) u += rs[g][t];
        acc += u;
      }
      if (t < CW) { /* column t: group g = t / CPT, its RT/32 warps */
        const int g = t / CPT, c = t % CPT;
        T u = 0;
#pragma unroll
        for (int q = 0; q < RT / 32; q++) u += cs[g * (RT / 32) + q][c];
        acc += u;
      }
      __syncthreads();
      continue;
    }
    T v = 0;
#pragma unroll
    for (int kk = 0; kk < CPT; kk++) {
      const int j = j0 + kk;
      if (MODE == TMA) {
        const int off = (int)(((long)j * n + it.x * R) & (E - 1));
        const T a = b[(cg * CPT + kk) * SLOT + off + rg];
        v += i0 < n && j <= i0 ? a : T(0);
      } else if (MODE == ELEM)
        v += b[kk * BS + t];
      else
#pragma unroll
        for (int q = 0; q < V; q++) {
          const T a = b[(kk * BS + t) * V + q];
          v += i0 + q < n && j <= i0 + q ? a : T(0);
        }
    }
    acc += v;
    __syncthreads(); /* the stage is read: it may be refilled */
  }
  if (MODE != TMA) cp_wait<0>();
  out[(long)blockIdx.x * BS + t] = acc;
}

/* TMA4: tma's copies, and pipe's arithmetic for SSYMV at four rows a
 * thread (kernels/symv_pipe.cuh, V = 4): thread t takes rows i0 .. i0 + 3,
 * i0 = I*R + 4*(t mod RT), RT = R/4 threads down a column group, and CPT
 * columns; it reads a column's 4 elements from the run with 4-byte loads
 * (the run's offset misaligns them for one 16-byte load), x of its rows
 * from global memory, adds its 4 products of a column before the
 * transposing butterfly over the group's RT lanes (RT <= 32). */
template <int R, int CW, int BS, int S>
__global__ void __launch_bounds__(BS) tiles4(const float *__restrict__ A, int n, const int2 *__restrict__ tl, int nt,
                                             const float *__restrict__ x, double *out)
{
  constexpr int RT = R / 4, CG = BS / RT, CPT = CW / CG, SLOT = R + 4, STAGE = CW * SLOT;
  static_assert(RT == 16 || RT == 32, "a column group within a warp");
  static_assert(CPT >= 1 && CPT <= RT && CW <= BS, "shape");
  extern __shared__ __align__(128) unsigned char sm_[];
  float *buf = (float *)sm_;
  __shared__ __align__(8) uint64_t bar[S];
  __shared__ float rs[CG][R];
  __shared__ float cs[CG][CPT];
  const int t = threadIdx.x, rg = t % RT, cg = t / RT, lane = t & 31;
  const int t0 = (int)((long)blockIdx.x * nt / gridDim.x), t1 = (int)((long)(blockIdx.x + 1) * nt / gridDim.x);
  if (t == 0)
    for (int s = 0; s < S; s++) mbar_init(&bar[s], CW);
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  __syncthreads();
  auto issue = [&](int k, int s) {
    const int2 it = tl[k];
    float *b = buf + s * STAGE;
    if (t < CW) {
      const long j = (long)it.y * CW + t;
      const int r0 = it.x * R, r1 = min(n, r0 + R);
      if (j < n && j < r1) {
        const long e0 = j * n + r0, e1 = j * n + r1;
        const long a0 = e0 & ~3L, a1 = (e1 + 3) & ~3L;
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        mbar_arrive_tx(&bar[s], (unsigned)((a1 - a0) * 4));
        bulk_copy(b + t * SLOT, A + a0, (unsigned)((a1 - a0) * 4), &bar[s]);
      } else
        mbar_arrive_tx(&bar[s], 0);
    }
  };
#pragma unroll
  for (int s = 0; s < S - 1; s++)
    if (t0 + s < t1) issue(t0 + s, s);
  double acc = 0;
  int curJ = -1;
  float xc[CPT];
  for (int k = t0; k < t1; k++) {
    if (k + S - 1 < t1) issue(k + S - 1, (k - t0 + S - 1) % S);
    const int s = (k - t0) % S;
    const int2 it = tl[k];
    const int i0 = it.x * R + 4 * rg, j0 = it.y * CW + cg * CPT;
    if (it.y != curJ) {
      curJ = it.y;
#pragma unroll
      for (int kk = 0; kk < CPT; kk++) xc[kk] = j0 + kk < n ? __ldg(x + j0 + kk) : 0.f;
    }
    float xr[4];
#pragma unroll
    for (int q = 0; q < 4; q++) xr[q] = i0 + q < n ? __ldg(x + i0 + q) : 0.f;
    mbar_wait(&bar[s], ((k - t0) / S) & 1);
    const float *b = buf + s * STAGE;
    const bool below = it.x * R >= (it.y + 1) * CW;
    float rsv[4] = {0.f, 0.f, 0.f, 0.f}, cp[CPT];
#pragma unroll
    for (int kk = 0; kk < CPT; kk++) {
      const int j = j0 + kk;
      const int off = (int)(((long)j * n + it.x * R) & 3);
      const float *col = b + (cg * CPT + kk) * SLOT + off + 4 * rg;
      float c = 0.f;
#pragma unroll
      for (int q = 0; q < 4; q++) {
        const float a = i0 + q < n && (below || j <= i0 + q) ? col[q] : 0.f; /* rows past n: not copied */
        rsv[q] = fmaf(a, xc[kk], rsv[q]);
        c = below || j < i0 + q ? fmaf(a, xr[q], c) : c;
      }
      cp[kk] = c;
    }
    tr<float, CPT, CPT / 2>::run(cp, lane);
#pragma unroll
    for (int h = CPT; h < RT; h *= 2) cp[0] += __shfl_xor_sync(0xffffffffu, cp[0], h);
    if (rg < CPT) cs[cg][rg] = cp[0];
#pragma unroll
    for (int q = 0; q < 4; q++) rs[cg][4 * rg + q] = rsv[q];
    __syncthreads();
    if (t < R) {
      float u = 0;
#pragma unroll
      for (int g = 0; g < CG; g++) u += rs[g][t];
      acc += u;
    }
    if (t < CW) acc += cs[t / CPT][t % CPT];
    __syncthreads(); /* the stage and rs, cs are read: they may be written again */
  }
  out[(long)blockIdx.x * BS + t] = acc;
}

template <typename T> __global__ void colread(const T *__restrict__ A, int n, double *out)
{ /* a warp a column, columns dealt out to the grid's warps in turn */
  const int lane = threadIdx.x & 31, gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, nw = (gridDim.x * blockDim.x) >> 5;
  T v = 0;
  for (int j = gw; j < n; j += nw)
    for (int i = j + lane; i < n; i += 32) v += A[i + (long)j * n];
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

template <typename T> __global__ void fill(T *A, long len)
{
  for (long k = blockIdx.x * (long)blockDim.x + threadIdx.x; k < len; k += (long)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)k * 2654435761u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    A[k] = (T)(h & 0xffff) / (T)65536; /* multiples of 2^-16 below 1: sums of up to 2^8 are exact in float */
  }
}

template <typename T> __global__ void refsum(const T *__restrict__ A, int n, int below, double *out)
{ /* the triangle's sum (below: strictly below the diagonal), a double a thread */
  double v = 0;
  for (int j = blockIdx.x; j < n; j += gridDim.x)
    for (int i = j + below + threadIdx.x; i < n; i += blockDim.x) v += A[i + (long)j * n];
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

static int sms;
static double *out;
static std::vector<double> hout;

static double total(int cnt)
{
  hout.resize(cnt);
  CK(cudaMemcpy(hout.data(), out, cnt * sizeof(double), cudaMemcpyDeviceToHost));
  double s = 0;
  for (double v : hout) s += v;
  return s;
}

template <int R, int CW, int BS, int S>
static void run4(const char *name, int M, const float *A, const float *x, int n, double want)
{
  std::vector<int2> h;
  const int nb = (n + R - 1) / R, ns = (n + CW - 1) / CW;
  for (int J = 0; J < ns; J++)
    for (int I = (J * CW) / R; I < nb; I++) h.push_back(make_int2(I, J));
  int2 *tl;
  CK(cudaMalloc(&tl, h.size() * sizeof(int2)));
  CK(cudaMemcpy(tl, h.data(), h.size() * sizeof(int2), cudaMemcpyHostToDevice));
  const size_t smem = (size_t)S * CW * (R + 4) * sizeof(float);
  auto k = tiles4<R, CW, BS, S>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, BS, smem));
  const int m = occ < M ? occ : M, G = sms * m;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; i++) k<<<G, BS, smem>>>(A, n, tl, (int)h.size(), x, out);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const double got = total(G * BS);
  CK(cudaEventRecord(e0));
  for (int i = 0; i < 20; i++) k<<<G, BS, smem>>>(A, n, tl, (int)h.size(), x, out);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  const double us = ms * 1e3 / 20, bytes = (double)n * (n + 1) / 2 * sizeof(float);
  printf("float  n=%5d tma4  %-22s compute M=%d(occ %d) %9.2f us %7.1f GB/s  sum %s (%.6g)\n", n, name, m, occ, us,
         bytes / us / 1e3, got == want ? "exact" : "WRONG", got - want);
  CK(cudaFree(tl));
}

template <typename T, int MODE, int R, int CW, int BS, int S, bool COMPUTE = false>
static void run(const char *name, int M, const T *A, int n, double want)
{
  std::vector<int2> h;
  const int nb = (n + R - 1) / R, ns = (n + CW - 1) / CW;
  for (int J = 0; J < ns; J++)
    for (int I = (J * CW) / R; I < nb; I++) h.push_back(make_int2(I, J));
  int2 *tl;
  CK(cudaMalloc(&tl, h.size() * sizeof(int2)));
  CK(cudaMemcpy(tl, h.data(), h.size() * sizeof(int2), cudaMemcpyHostToDevice));
  constexpr int E = 16 / sizeof(T), V = MODE == VEC4 ? E : 1, CPT = CW / (BS / (R / V));
  const size_t smem = (size_t)S * (MODE == TMA ? CW * (R + E) : CPT * BS * V) * sizeof(T);
  auto k = tiles<T, MODE, R, CW, BS, S, COMPUTE>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, BS, smem));
  if (occ < 1) {
    printf("%-6s n=%5d %-22s does not fit an SM\n", sizeof(T) == 4 ? "float" : "double", n, name);
    CK(cudaFree(tl));
    return;
  }
  const int m = occ < M ? occ : M, G = sms * m;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; i++) k<<<G, BS, smem>>>(A, n, tl, (int)h.size(), out);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const double got = total(G * BS);
  CK(cudaEventRecord(e0));
  for (int i = 0; i < 20; i++) k<<<G, BS, smem>>>(A, n, tl, (int)h.size(), out);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  const double us = ms * 1e3 / 20, bytes = (double)n * (n + 1) / 2 * sizeof(T);
  printf("%-6s n=%5d %-5s %-22s %s M=%d(occ %d) %9.2f us %7.1f GB/s  sum %s (%.6g)\n", sizeof(T) == 4 ? "float" : "double", n,
         MODE == ELEM ? "elem" : MODE == VEC4 ? "vec4" : "tma", name, COMPUTE ? "compute" : "copy   ", m, occ, us,
         bytes / us / 1e3,
         got == want ? "exact" : "WRONG", got - want);
  CK(cudaFree(tl));
}

template <typename T> static void all(int n)
{
  T *A;
  const long len = (long)n * n + 4; /* a run's aligned words may pass the last column's end by 12 bytes */
  CK(cudaMalloc(&A, len * sizeof(T)));
  fill<<<sms * 8, 256>>>(A, len);
  refsum<<<sms * 8, 256>>>(A, n, 0, out);
  CK(cudaDeviceSynchronize());
  const double want = total(sms * 8 * 256);
  refsum<<<sms * 8, 256>>>(A, n, 1, out);
  CK(cudaDeviceSynchronize());
  const double want2 = want + total(sms * 8 * 256); /* row sums + column sums below the diagonal */
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
    printf("%-6s n=%5d %-28s %16s %9.2f us %7.1f GB/s\n", sizeof(T) == 4 ? "float" : "double", n, "column read", "", us,
           bytes / us / 1e3);
  }
#define RUN(MODE, R, CW, BS, S, M) run<T, MODE, R, CW, BS, S>("R" #R " CW" #CW " BS" #BS " S" #S, M, A, n, want)
  RUN(ELEM, 64, 64, 128, 2, 4); /* pipe:128,64,4,0's copies, one row a thread */
  RUN(ELEM, 64, 64, 256, 2, 3);
  RUN(ELEM, 64, 128, 256, 3, 2);
  if (n % 4 == 0) {
    RUN(VEC4, 128, 64, 128, 2, 4);
    RUN(VEC4, 128, 32, 128, 3, 4);
  }
  RUN(TMA, 64, 64, 128, 2, 4);
  RUN(TMA, 64, 64, 128, 3, 4);
  RUN(TMA, 64, 64, 256, 2, 3);
  RUN(TMA, 64, 64, 256, 4, 2);
  RUN(TMA, 64, 128, 256, 2, 2);
  RUN(TMA, 64, 128, 256, 3, 2);
  RUN(TMA, 128, 64, 256, 2, 3);
  RUN(TMA, 128, 32, 128, 3, 4);
  RUN(TMA, 128, 64, 128, 2, 4);
#define RUNC(MODE, R, CW, BS, S, M) run<T, MODE, R, CW, BS, S, true>("R" #R " CW" #CW " BS" #BS " S" #S, M, A, n, want2)
  RUNC(ELEM, 64, 64, 128, 2, 4);
  RUNC(ELEM, 64, 128, 256, 3, 2);
  RUNC(ELEM, 64, 64, 256, 3, 3);
  RUNC(TMA, 64, 64, 128, 2, 4);
  RUNC(TMA, 64, 128, 256, 2, 2);
  RUNC(TMA, 64, 64, 256, 3, 3);
  RUNC(TMA, 128, 64, 256, 2, 3);
  RUNC(TMA, 128, 32, 128, 3, 4);
  if constexpr (sizeof(T) == 4) {
    float *x;
    CK(cudaMalloc(&x, (size_t)n * sizeof(float)));
    std::vector<float> ones(n, 1.0f);
    CK(cudaMemcpy(x, ones.data(), (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
#define RUN4(R, CW, BS, S, M) run4<R, CW, BS, S>("R" #R " CW" #CW " BS" #BS " S" #S, M, A, x, n, want2)
    RUN4(64, 128, 256, 2, 2); /* pipe:256,128,2,0's shape */
    RUN4(64, 64, 256, 3, 3);  /* pipe:256,64,3,0's */
    RUN4(64, 64, 128, 2, 4);  /* pipe:128,64,4,0's */
    RUN4(64, 32, 128, 3, 4);
    RUN4(128, 64, 256, 2, 3);
    RUN4(128, 32, 128, 3, 4);
    CK(cudaFree(x));
  }
  CK(cudaFree(A));
}

int main()
{
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  sms = p.multiProcessorCount;
  printf("%s, %d SMs, L2 %d MB\n", p.name, sms, p.l2CacheSize >> 20);
  CK(cudaMalloc(&out, (size_t)sms * 8 * 1024 * sizeof(double)));
  for (int n : {16384, 16411, 8447, 24007}) all<float>(n);
  if (!getenv("TMA_FLOAT_ONLY"))
    for (int n : {16384, 16411, 8447}) all<double>(n);
  return 0;
}
