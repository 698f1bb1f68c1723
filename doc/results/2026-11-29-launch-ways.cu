// SPDX-License-Identifier: BSD-3-Clause
// 2026-11-29-launch-ways.cu - what a call of one or two launches costs the
// host and the GPU, by the launch APIs symvtune could use: the runtime's
// cudaLaunchKernelExC (with and without programmatic dependent launch, as
// gpu/gpu.c launches), cudaLaunchKernel, the driver's cuLaunchKernel and
// cuLaunchKernelEx (entry points from cudaGetDriverEntryPointByVersion), and
// a CUDA graph of one or two kernel nodes whose parameters are set each call
// (cudaGraphExecKernelNodeSetParams; two nodes joined by a full or a
// programmatic edge). Columns: the host's time to queue a call while the
// stream is held (a host function that waits), the pace of calls back to
// back (host clock, then the GPU's events), the GPU's time a call when the
// whole batch was queued first; the least of 5 batches, microseconds.
// Results and what they mean: results/2026-11-29-h200-launch-ways.txt.
//   nvcc -O2 -arch=sm_90 -o launch-ways 2026-11-29-launch-ways.cu
//   ./launch-ways kern.cubin [dynamic shared memory of the first node, bytes]
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
struct __align__(16) s16 { unsigned char b[16]; };
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
typedef CUresult (*cuLaunchKernel_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     CUstream, void **, void **);
typedef CUresult (*cuLaunchKernelEx_t)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*cuKernelGetFunction_t)(CUfunction *, CUkernel);
static cuLaunchKernel_t pLK; static cuLaunchKernelEx_t pLKE; static cuKernelGetFunction_t pKGF;
static cudaKernel_t K; static CUfunction F;
static int n = 1000; static unsigned SMEM = 0; static char *A, *x, *y; static int rs = 1; static long long cs = 1000, ix = 1, iy = 1;
static s16 a, b; static void *da, *db; static float *P; static int ntiles = 10, gridv = 132, phase = 0;
static void *args[] = {&n, &A, &rs, &cs, &x, &ix, &y, &iy, &a, &b, &da, &db, &P, &ntiles, &gridv, &phase};
static cudaStream_t S;
static cudaGraphExec_t GE, GE1, GEP; static cudaGraphNode_t GN[2], GN1, GNP[2];
static int launch(int method, int g, int t, int pdl)
{
  switch (method) {
  case 0: case 1: {
    cudaLaunchConfig_t cfg; cudaLaunchAttribute at; memset(&cfg, 0, sizeof cfg); memset(&at, 0, sizeof at);
    at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1;
    cfg.gridDim = dim3(g); cfg.blockDim = dim3(t); cfg.stream = S; cfg.attrs = &at; cfg.numAttrs = method == 0 && pdl;
    return cudaLaunchKernelExC(&cfg, (const void *)K, args);
  }
  case 2: return cudaLaunchKernel((const void *)K, dim3(g), dim3(t), args, 0, S);
  case 3: return pLK(F, g, 1, 1, t, 1, 1, 0, (CUstream)S, args, NULL);
  case 4: {
    CUlaunchConfig cfg; CUlaunchAttribute at; memset(&cfg, 0, sizeof cfg); memset(&at, 0, sizeof at);
    at.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION; at.value.programmaticStreamSerializationAllowed = 1;
    cfg.gridDimX = g; cfg.gridDimY = cfg.gridDimZ = 1; cfg.blockDimX = t; cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.hStream = (CUstream)S; cfg.attrs = &at; cfg.numAttrs = pdl;
    return pLKE(&cfg, F, args, NULL);
  }
  case 5: return pLK((CUfunction)K, g, 1, 1, t, 1, 1, 0, (CUstream)S, args, NULL); /* CUkernel as CUfunction */
  }
  return -1;
}
/* the first node's parameters (132 x 256 threads, SMEM bytes), or the second's (40 x 128, none) */
static cudaKernelNodeParams node(int second)
{
  cudaKernelNodeParams kp; memset(&kp, 0, sizeof kp);
  kp.func = (void *)K, kp.kernelParams = args;
  kp.gridDim = dim3(second ? 40 : 132), kp.blockDim = dim3(second ? 128 : 256), kp.sharedMemBytes = second ? 0 : SMEM;
  return kp;
}
/* graph ge's nodes nd[0 .. nn) given their parameters, then ge launched */
static int set_and_launch(cudaGraphExec_t ge, const cudaGraphNode_t *nd, int nn)
{
  int r = 0;
  for (int i = 0; i < nn; i++) {
    const cudaKernelNodeParams kp = node(i);
    r |= cudaGraphExecKernelNodeSetParams(ge, nd[i], &kp);
  }
  return r | cudaGraphLaunch(ge, S);
}
/* a call: two launches (pipe_det's shape) or one */
static int call(int method, int two)
{
  if (method == 6) return set_and_launch(GE, GN, 2);   /* graph with both nodes, params set each call */
  if (method == 7) return cudaGraphLaunch(GE, S);      /* as it is */
  if (method == 8) return set_and_launch(GE1, &GN1, 1); /* one node */
  if (method == 9) return set_and_launch(GEP, GNP, 2);  /* two nodes, programmatic edge */
  int r = launch(method, 132, 256, 1);
  if (two) r |= launch(method, 40, 128, 1);
  return r;
}
typedef struct { pthread_mutex_t m; pthread_cond_t c; int open; } hold;
static void CUDART_CB hw(void *p) { hold *h = (hold *)p; pthread_mutex_lock(&h->m); while (!h->open) pthread_cond_wait(&h->c, &h->m); pthread_mutex_unlock(&h->m); }
int main(int argc, char **argv)
{
  CK(cudaFree(0));
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", (void **)&pLK, 12000, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPointByVersion("cuLaunchKernelEx", (void **)&pLKE, 12000, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPointByVersion("cuKernelGetFunction", (void **)&pKGF, 12000, cudaEnableDefault, &q));
  FILE *f = fopen(argc > 1 ? argv[1] : "kern.cubin", "rb"); fseek(f, 0, SEEK_END); long sz = ftell(f); rewind(f);
  char *buf = (char *)malloc(sz); fread(buf, 1, sz, f); fclose(f);
  cudaLibrary_t lib; CK(cudaLibraryLoadData(&lib, buf, NULL, NULL, 0, NULL, NULL, 0));
  CK(cudaLibraryGetKernel(&K, lib, "k16"));
  if (pKGF(&F, (CUkernel)K)) { printf("cuKernelGetFunction failed\n"); return 1; }
  if (argc > 2) SMEM = atoi(argv[2]);
  if (SMEM) CK(cudaFuncSetAttribute((const void *)K, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
  CK(cudaMalloc(&P, 1 << 20)); A = x = y = (char *)P; da = db = P;
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  { /* graph of two nodes */
    cudaGraph_t G; CK(cudaGraphCreate(&G, 0));
    cudaKernelNodeParams kp; memset(&kp, 0, sizeof kp);
    kp.func = (void *)K; kp.gridDim = dim3(132); kp.blockDim = dim3(256); kp.kernelParams = args; kp.sharedMemBytes = SMEM;
    CK(cudaGraphAddKernelNode(&GN[0], G, NULL, 0, &kp));
    kp.gridDim = dim3(40); kp.blockDim = dim3(128); kp.sharedMemBytes = 0;
    CK(cudaGraphAddKernelNode(&GN[1], G, &GN[0], 1, &kp));
    CK(cudaGraphInstantiate(&GE, G, 0));
    cudaGraph_t G1; CK(cudaGraphCreate(&G1, 0));
    kp.gridDim = dim3(132); kp.blockDim = dim3(256);
    CK(cudaGraphAddKernelNode(&GN1, G1, NULL, 0, &kp));
    CK(cudaGraphInstantiate(&GE1, G1, 0));
    cudaGraph_t GP; CK(cudaGraphCreate(&GP, 0));
    CK(cudaGraphAddKernelNode(&GNP[0], GP, NULL, 0, &kp));
    kp.gridDim = dim3(40); kp.blockDim = dim3(128); kp.sharedMemBytes = 0;
    CK(cudaGraphAddKernelNode(&GNP[1], GP, NULL, 0, &kp));
    cudaGraphEdgeData ed; memset(&ed, 0, sizeof ed);
    ed.from_port = cudaGraphKernelNodePortProgrammatic; ed.type = cudaGraphDependencyTypeProgrammatic;
    CK(cudaGraphAddDependencies(GP, &GNP[0], &GNP[1], &ed, 1));
    CK(cudaGraphInstantiate(&GEP, GP, 0));
  }
  const char *names[] = {"runtime ExC +PDL", "runtime ExC", "runtime classic", "driver cuLaunchKernel(CUfunction)",
                         "driver cuLaunchKernelEx +PDL", "driver cuLaunchKernel(CUkernel)", "graph 2 nodes, set params", "graph 2 nodes, as is", "graph 1 node, set params", "graph 2 nodes prog edge, set"};
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const int N = 2000;
  printf("%-36s %5s %10s %10s %10s %10s\n", "method", "calls", "held us", "b2b us", "b2b GPU us", "held GPU us");
  for (int rep = 0; rep < 3; rep++)
  for (int two = 0; two < 2; two++)
    for (int m = 0; m < 10; m++) {
      if ((m == 6 || m == 7 || m == 9) && !two) continue;
      if (m == 8 && two) continue;
      { int r_ = 0; for (int i = 0; i < 200 && !r_; i++) r_ = call(m, two); if (r_) { printf("%-36s failed: %s\n", names[m], cudaGetErrorString(cudaGetLastError())); continue; } }
      CK(cudaStreamSynchronize(S));
      double best_h = 1e9, best_b = 1e9, best_g = 1e9, best_hg = 1e9;
      for (int t = 0; t < 5; t++) {
        hold h = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
        CK(cudaLaunchHostFunc(S, hw, &h));
        CK(cudaEventRecord(e0, S));
        double t0 = now();
        for (int i = 0; i < 500; i++) call(m, two);
        CK(cudaEventRecord(e1, S));
        double th = (now() - t0) / 500 * 1e6;
        pthread_mutex_lock(&h.m); h.open = 1; pthread_cond_signal(&h.c); pthread_mutex_unlock(&h.m);
        CK(cudaStreamSynchronize(S));
        if (th < best_h) best_h = th;
        { float ms0; CK(cudaEventElapsedTime(&ms0, e0, e1)); if (ms0 * 1e3 / 500 < best_hg) best_hg = ms0 * 1e3 / 500; }
        CK(cudaEventRecord(e0, S));
        t0 = now();
        for (int i = 0; i < N; i++) call(m, two);
        double tb = (now() - t0) / N * 1e6;
        CK(cudaEventRecord(e1, S)); CK(cudaEventSynchronize(e1));
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
        if (tb < best_b) best_b = tb;
        if (ms * 1e3 / N < best_g) best_g = ms * 1e3 / N;
      }
      printf("%-36s %5d %10.2f %10.2f %10.2f %10.2f\n", names[m], two ? 2 : 1, best_h, best_b, best_g, best_hg);
    }
  return 0;
}
