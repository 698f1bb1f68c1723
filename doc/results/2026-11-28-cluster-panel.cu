// SPDX-License-Identifier: BSD-3-Clause
// 2026-11-28-cluster-panel.cu - a deterministic SYMV in one launch whose
// blocks own whole row blocks of y, sharing each among the blocks of a
// thread-block cluster (sm_90), summed through distributed shared memory.
//
// Row block I (rows r0 = 64 I .. r0 + 63 of y) needs the nb tiles of 64 x 64
// of its block row of the full matrix: tiles (I, J), J < I, of the stored
// lower triangle (its row panel), the diagonal tile, and tiles (J, I), J > I
// (its column panel, transposed). Both panels are read as 64-row runs of a
// column, a warp's 32 lanes 32 consecutive rows: whole sectors. Every tile
// below the diagonal is read twice (by the row block of its rows and by that
// of its columns); while the triangle fits in L2 the second read is from L2.
//
// A cluster of K blocks owns a row block; block q of it takes tiles J = q,
// q + K, ... Thread t is row i = t mod 64 of a tile and column group
// g = t / 64 of CPT = 64 / (BLOCK_SIZE / 64) columns. Over its tiles it
// keeps one row sum (row tiles and the diagonal: a(i, j) x(j)) and CPT
// column sums (column tiles and the diagonal below it: a(i, j) x(i) for its
// columns j, the same columns in every tile of the row block), in registers,
// no reduction per tile. At the end the block adds the column groups' row
// sums and the 64 rows' column sums (transposing butterfly in a warp, then
// the two warps), each in a fixed order, into 64 partial sums in its shared
// memory; after a cluster barrier, block q sums rows q*64/K .. of every
// block's partials in rank order, read through distributed shared memory,
// and writes y = alpha s + beta y. A second barrier keeps every block's
// shared memory alive until then. No atomics, no workspace, no second
// launch: the same bits whatever the timing.
//
// Every copy of y before a call is on the calls' stream (a non-blocking
// stream does not wait for the legacy default stream's copies).
// The harness times it against cuBLAS in both modes (cold A: copies > 2 x
// L2 rotated; batches of back-to-back calls timed with events, the median
// of 9), after checking it against cuBLAS (scaled residual) and that two
// calls give identical bits. Launched with programmatic stream
// serialization, as libsymv's kernels are (griddepcontrol.wait first).
//
// nvcc -O3 -arch=sm_90 -o cpanel 2026-11-28-cluster-panel.cu -lcublas && ./cpanel [d|s] [sizes]
#include <algorithm>
#include <cmath>
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <vector>

namespace cg = cooperative_groups;

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "CUDA error %s at line %d: %s\n", cudaGetErrorString(e_), __LINE__, #x); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)
#define CB(x)                                                          \
  do {                                                                 \
    cublasStatus_t s_ = (x);                                           \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                 \
      fprintf(stderr, "cuBLAS error %d at line %d\n", (int)s_, __LINE__); \
      exit(1);                                                         \
    }                                                                  \
  } while (0)

__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void pdl_launch() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

template <typename T> __device__ __forceinline__ T ldg(const T *p) { return __ldg(p); }

/* the tile's CPT elements of this thread: element (i, gC + jj) of tile J of
 * row block I, as stored: row tiles A(r0 + i, c0 + gC + jj), column tiles
 * A(c0 + i, r0 + gC + jj), the diagonal's lower part; zero where not stored
 * or past n */
template <typename T, int CPT>
__device__ __forceinline__ void load_tile(T (&a)[CPT], const T *__restrict__ A, long lda, int n, int I, int J, int i,
                                          int gC)
{
  const int r0 = I * 64, c0 = J * 64;
  const int row = (J <= I ? r0 : c0) + i, col = (J <= I ? c0 : r0) + gC;
  const T *p = A + row + (long)col * lda;
  const bool ok = row < n;
#pragma unroll
  for (int jj = 0; jj < CPT; jj++) a[jj] = (ok && (J != I || col + jj <= row)) ? ldg(p + (long)jj * lda) : T(0);
}

/* transposing butterfly, one step of H: lanes with bit H set keep the upper
 * half of v[0..2H-1] and send the lower, the others the reverse; afterwards
 * v[k] (k < H) is the pair's sum of column k + (lane & H) */
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

template <typename T, int BS>
__global__ void __launch_bounds__(BS) cpanel(int n, const T *__restrict__ A, long lda, const T *__restrict__ x, T *y,
                                             T alpha, T beta, int nb)
{
  constexpr int G = BS / 64, CPT = 64 / G;
  __shared__ T srow[G][64];
  __shared__ T scol[2 * G][CPT]; /* [warp][column]: each warp's column sums over its 32 rows */
  __shared__ T part[64];
  cg::cluster_group cl = cg::this_cluster();
  const int K = (int)cl.num_blocks(), q = (int)cl.block_rank();
  const int I = blockIdx.x / K;
  const int t = threadIdx.x, i = t & 63, g = t >> 6, gC = g * CPT, lane = t & 31, w = t >> 5;
  pdl_wait();
  pdl_launch();
  T rs = T(0), cs[CPT];
#pragma unroll
  for (int jj = 0; jj < CPT; jj++) cs[jj] = T(0);
  T a[CPT], an[CPT];
  int J = q;
  if (J < nb) load_tile<T, CPT>(a, A, lda, n, I, J, i, gC);
  for (; J < nb; J += K) {
    if (J + K < nb) load_tile<T, CPT>(an, A, lda, n, I, J + K, i, gC);
    const int r0 = I * 64, c0 = J * 64;
    if (J < I) {
#pragma unroll
      for (int jj = 0; jj < CPT; jj++) rs += a[jj] * ldg(x + c0 + gC + jj);
    } else if (J == I) {
      const int row = r0 + i;
      const T xi = row < n ? ldg(x + row) : T(0);
#pragma unroll
      for (int jj = 0; jj < CPT; jj++) {
        const int col = r0 + gC + jj;
        if (col <= row && row < n) {
          rs += a[jj] * ldg(x + col);
          if (col < row) cs[jj] += a[jj] * xi;
        }
      }
    } else {
      const int row = c0 + i;
      const T xi = row < n ? ldg(x + row) : T(0);
#pragma unroll
      for (int jj = 0; jj < CPT; jj++) cs[jj] += a[jj] * xi;
    }
#pragma unroll
    for (int jj = 0; jj < CPT; jj++) a[jj] = an[jj];
  }
  /* column sums over the warp's 32 rows: transposing butterfly over the
   * low log2(CPT) lane bits, then plain adds over the rest */
  constexpr int LOG = CPT == 32 ? 5 : CPT == 16 ? 4 : CPT == 8 ? 3 : 2;
  tr<T, CPT, CPT / 2>::run(cs, lane);
  /* cs[0] is now column (lane mod CPT)'s sum over the CPT lanes sharing the higher bits */
#pragma unroll
  for (int st = LOG; st < 5; st++) cs[0] += __shfl_xor_sync(0xffffffffu, cs[0], 1 << st);
  if (lane < CPT) scol[w][lane] = cs[0];
  srow[g][i] = rs;
  __syncthreads();
  if (t < 64) {
    T s = srow[0][t];
#pragma unroll
    for (int gg = 1; gg < G; gg++) s += srow[gg][t];
    const int gg = t / CPT, c = t % CPT;
    s += scol[2 * gg][c] + scol[2 * gg + 1][c];
    part[t] = s;
  }
  cl.sync();
  const int lo = q * 64 / K, hi = (q + 1) * 64 / K;
  if (t < hi - lo) {
    const int r = lo + t, row = I * 64 + r;
    T s = T(0);
    for (int b = 0; b < K; b++) s += cl.map_shared_rank(part, b)[r];
    if (row < n) y[row] = beta == T(0) ? alpha * s : alpha * s + beta * y[row];
  }
  cl.sync();
}

template <typename T> struct blas;
template <> struct blas<double> {
  static cublasStatus_t symv(cublasHandle_t h, int n, const double *al, const double *A, int lda, const double *x,
                             const double *be, double *y)
  {
    return cublasDsymv(h, CUBLAS_FILL_MODE_LOWER, n, al, A, lda, x, 1, be, y, 1);
  }
  static const char *name() { return "dsymv"; }
};
template <> struct blas<float> {
  static cublasStatus_t symv(cublasHandle_t h, int n, const float *al, const float *A, int lda, const float *x,
                             const float *be, float *y)
  {
    return cublasSsymv(h, CUBLAS_FILL_MODE_LOWER, n, al, A, lda, x, 1, be, y, 1);
  }
  static const char *name() { return "ssymv"; }
};

template <typename T, int BS> static void launch(int K, int n, const T *A, const T *x, T *y, T alpha, T beta,
                                                 cudaStream_t st)
{
  const int nb = (n + 63) / 64;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(nb * K);
  cfg.blockDim = dim3(BS);
  cfg.stream = st;
  cudaLaunchAttribute at[2];
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = K, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
  at[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[1].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = at, cfg.numAttrs = 2;
  CK(cudaLaunchKernelEx(&cfg, cpanel<T, BS>, n, A, (long)n, x, y, alpha, beta, nb));
}

/* whether K-block clusters of cpanel<T, BS> can be resident at all */
template <typename T, int BS> static bool fits(int K)
{
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(K * 64);
  cfg.blockDim = dim3(BS);
  cudaLaunchAttribute at;
  at.id = cudaLaunchAttributeClusterDimension;
  at.val.clusterDim.x = K, at.val.clusterDim.y = 1, at.val.clusterDim.z = 1;
  cfg.attrs = &at, cfg.numAttrs = 1;
  int c = 0;
  return cudaOccupancyMaxActiveClusters(&c, cpanel<T, BS>, &cfg) == cudaSuccess && c > 0;
}

struct variant {
  int bs, k;
};

template <typename T> static void run(const std::vector<int> &sizes)
{
  int dev = 0;
  cudaDeviceProp pr;
  CK(cudaGetDeviceProperties(&pr, dev));
  CK(cudaFuncSetAttribute(cpanel<T, 128>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaFuncSetAttribute(cpanel<T, 256>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaFuncSetAttribute(cpanel<T, 512>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  const variant vs[] = {{128, 4}, {128, 8}, {128, 16}, {256, 2}, {256, 4}, {256, 8}, {256, 16}, {512, 4}, {512, 8}, {512, 16}};
  const int nv = sizeof vs / sizeof vs[0];
  bool ok[nv];
  for (int v = 0; v < nv; v++) {
    ok[v] = vs[v].bs == 128 ? fits<T, 128>(vs[v].k) : vs[v].bs == 256 ? fits<T, 256>(vs[v].k) : fits<T, 512>(vs[v].k);
    (void)cudaGetLastError();
    if (!ok[v]) printf("cp%d/%d: clusters of %d cannot be resident; left out\n", vs[v].bs, vs[v].k, vs[v].k);
  }
  cublasHandle_t h;
  CB(cublasCreate(&h));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  CB(cublasSetStream(h, st));
  printf("%s on %s, %d SMs, L2 %d MB; lower, lda = n, alpha 1, beta 0.5; cold A; us a call, median of 9 batches\n",
         blas<T>::name(), pr.name, pr.multiProcessorCount, pr.l2CacheSize >> 20);
  printf("%6s %8s %8s", "n", "cuBLAS", "cuBLAS-a");
  for (int v = 0; v < nv; v++) printf("  cp%d/%-3d", vs[v].bs, vs[v].k);
  printf("  best   resid    bits\n");
  for (int n : sizes) {
    const size_t elems = (size_t)n * n, bytes = elems * sizeof(T);
    const int copies = (int)std::max<size_t>(2, (size_t)(2.5 * pr.l2CacheSize) / bytes + 1);
    std::vector<T *> As(copies);
    std::vector<T> hA(elems), hx(n), hy(n);
    srand(n);
    for (size_t e = 0; e < elems; e++) hA[e] = (T)(rand() / (double)RAND_MAX - 0.5);
    for (int e = 0; e < n; e++) hx[e] = (T)(rand() / (double)RAND_MAX - 0.5), hy[e] = (T)(rand() / (double)RAND_MAX - 0.5);
    for (int c = 0; c < copies; c++) {
      CK(cudaMalloc(&As[c], bytes));
      CK(cudaMemcpy(As[c], hA.data(), bytes, cudaMemcpyHostToDevice));
    }
    T *x, *y, *y0, *yr;
    CK(cudaMalloc(&x, n * sizeof(T)));
    CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMalloc(&y0, n * sizeof(T)));
    CK(cudaMalloc(&yr, n * sizeof(T)));
    CK(cudaMemcpy(x, hx.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(y0, hy.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    const T alpha = 1, beta = 0.5;
    /* reference: cuBLAS default mode */
    CK(cudaMemcpyAsync(yr, y0, n * sizeof(T), cudaMemcpyDeviceToDevice, st));
    CB(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_NOT_ALLOWED));
    CB(blas<T>::symv(h, n, &alpha, As[0], n, x, &beta, yr));
    std::vector<T> ref(n), got(n), got2(n);
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(ref.data(), yr, n * sizeof(T), cudaMemcpyDeviceToHost));
    double resid = 0;
    bool same = true;
    double anorm = 0;
    for (int r = 0; r < n; r++) {
      double s = 0;
      for (int c = 0; c < n; c++) s += std::fabs((double)hA[r >= c ? r + (size_t)c * n : c + (size_t)r * n]);
      anorm = std::max(anorm, s);
    }
    for (int v = 0; v < nv; v++) {
      if (!ok[v]) continue;
      for (int rep = 0; rep < 2; rep++) {
        CK(cudaMemcpyAsync(y, y0, n * sizeof(T), cudaMemcpyDeviceToDevice, st));
        switch (vs[v].bs) {
        case 128: launch<T, 128>(vs[v].k, n, As[0], x, y, alpha, beta, st); break;
        case 256: launch<T, 256>(vs[v].k, n, As[0], x, y, alpha, beta, st); break;
        default: launch<T, 512>(vs[v].k, n, As[0], x, y, alpha, beta, st); break;
        }
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(rep ? got2.data() : got.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
      }
      if (memcmp(got.data(), got2.data(), n * sizeof(T))) same = false;
      double m = 0;
      for (int r = 0; r < n; r++) m = std::max(m, std::fabs((double)got[r] - (double)ref[r]));
      const double eps = sizeof(T) == 8 ? 1.1e-16 : 6e-8;
      resid = std::max(resid, m / (eps * n * anorm));
    }
    /* timing: batches of back-to-back calls, A rotated */
    const int per = 20, nbatch = 9;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto time_it = [&](auto &&call) {
      std::vector<float> ts;
      for (int c = 0; c < copies; c++) call(As[c]);
      for (int b = 0; b < nbatch; b++) {
        CK(cudaEventRecord(e0, st));
        for (int c = 0; c < per; c++) call(As[(b * per + c) % copies]);
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        ts.push_back(ms * 1000.f / per);
      }
      std::sort(ts.begin(), ts.end());
      return ts[nbatch / 2];
    };
    CB(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_NOT_ALLOWED));
    const float tc = time_it([&](T *Ac) { CB(blas<T>::symv(h, n, &alpha, Ac, n, x, &beta, y)); });
    CB(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED));
    const float ta = time_it([&](T *Ac) { CB(blas<T>::symv(h, n, &alpha, Ac, n, x, &beta, y)); });
    printf("%6d %8.2f %8.2f", n, tc, ta);
    float best = 1e30f;
    for (int v = 0; v < nv; v++) {
      if (!ok[v]) {
        printf(" %9s", "-");
        continue;
      }
      const float tv = time_it([&](T *Ac) {
        switch (vs[v].bs) {
        case 128: launch<T, 128>(vs[v].k, n, Ac, x, y, alpha, beta, st); break;
        case 256: launch<T, 256>(vs[v].k, n, Ac, x, y, alpha, beta, st); break;
        default: launch<T, 512>(vs[v].k, n, Ac, x, y, alpha, beta, st); break;
        }
      });
      best = std::min(best, tv);
      printf(" %9.2f", tv);
    }
    printf(" %6.2f %7.1e %7s\n", best, resid, same ? "same" : "DIFFER");
    fflush(stdout);
    for (T *p : As) CK(cudaFree(p));
    CK(cudaFree(x)); CK(cudaFree(y)); CK(cudaFree(y0)); CK(cudaFree(yr));
    CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
  }
  CB(cublasDestroy(h));
}

int main(int argc, char **argv)
{
  const bool single = argc > 1 && argv[1][0] == 's';
  std::vector<int> sizes = {523, 733, 1051, 1259, 1511, 1811, 2171, 2609, 3121, 3739, 4093, 6007};
  if (argc > 2) {
    sizes.clear();
    for (char *s = strtok(argv[2], ","); s; s = strtok(nullptr, ",")) sizes.push_back(atoi(s));
  }
  if (single) run<float>(sizes);
  else run<double>(sizes);
  return 0;
}
