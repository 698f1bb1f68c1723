/* SPDX-License-Identifier: BSD-3-Clause */
/* gpu.c - device limits, candidate loading, workspace, DSYMV launch (gpu.h). */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "gpu.h"
#include "../kernels/symv_pipe.h"
#include "../kernels/symv_fx.h"
#include "routine.h"
#include "symv_error.h"

/* the constants host and kernels agree on: SYMV_SEG (y rows per state of
 * kernels/symv_red.cu and per counter of kernels/symv_w.cu),
 * SYMV_TILE_GROUPS_MAX, SYMV_LU_SPLITS_MAX */
#include "../kernels/symv_limits.h"
#define SYMV_RED_SEG SYMV_SEG

static _Thread_local char last_error[256];

static dim3 dim3_make(unsigned x)
{
  dim3 d = {x, 1, 1};
  return d;
}

const char *symv_cuda_error_text(void) { return last_error; }


/* Records a failed CUDA call's name and error for messages; returns `code`. */
static int cuda_fail(const char *call, cudaError_t e, int code)
{
  snprintf(last_error, sizeof last_error, "%s: %s: %s", call, cudaGetErrorName(e), cudaGetErrorString(e));
  return code;
}

#define CUDA_TRY(call, code)                                   \
  do {                                                         \
    cudaError_t e_ = (call);                                   \
    if (e_ != cudaSuccess) return cuda_fail(#call, e_, code);  \
  } while (0)

int symv_device_count(int *n)
{
  *n = 0;
  cudaError_t e = cudaGetDeviceCount(n);
  if (e != cudaSuccess || *n == 0) {
    *n = 0;
    if (e != cudaSuccess) cuda_fail("cudaGetDeviceCount", e, 0);
    cudaGetLastError(); /* clear the sticky "no device" status */
    return SYMV_NO_DEVICE;
  }
  return 0;
}

int symv_device_query(int ordinal, symv_device_info *d)
{
  int count;
  if (symv_device_count(&count)) return SYMV_NO_DEVICE;
  if (ordinal < 0 || ordinal >= count) return SYMV_INVALID_VALUE;
  struct cudaDeviceProp p;
  CUDA_TRY(cudaSetDevice(ordinal), SYMV_CUDA);
  CUDA_TRY(cudaGetDeviceProperties(&p, ordinal), SYMV_CUDA);
  memset(d, 0, sizeof *d);
  d->ordinal = ordinal;
  snprintf(d->name, sizeof d->name, "%s", p.name);
  d->cc_major = p.major, d->cc_minor = p.minor;
  d->sm_count = p.multiProcessorCount;
  d->smem_per_sm = p.sharedMemPerMultiprocessor;
  d->smem_per_block = p.sharedMemPerBlock;
  d->smem_per_block_optin = p.sharedMemPerBlockOptin;
  d->smem_reserved_per_block = p.reservedSharedMemPerBlock;
  d->regs_per_sm = p.regsPerMultiprocessor;
  d->regs_per_block = p.regsPerBlock;
  d->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d->max_threads_per_block = p.maxThreadsPerBlock;
  d->l2_bytes = (size_t)p.l2CacheSize;
  d->global_mem = p.totalGlobalMem;
  d->bus_width_bits = p.memoryBusWidth;
  int clk = 0;
  if (cudaDeviceGetAttribute(&clk, cudaDevAttrMemoryClockRate, ordinal) != cudaSuccess) clk = 0;
  cudaGetLastError();
  d->mem_clock_khz = clk;
  d->peak_gbs = 2.0 * clk * 1e3 * (d->bus_width_bits / 8.0) / 1e9;
  CUDA_TRY(cudaDriverGetVersion(&d->driver_version), SYMV_CUDA);
  CUDA_TRY(cudaRuntimeGetVersion(&d->runtime_version), SYMV_CUDA);
  return 0;
}

long symv_dyn_smem_for(const symv_device_info *d, int multiplicity, int static_smem, int min_pct, int *carveout_pct)
{
  /* An SM allocates a block's shared memory (static + dynamic) in units of
   * SMEM_UNIT bytes, plus the driver's reserved bytes: the block's total is
   * kept a whole number of units so that M of them fit in the carveout and
   * M+1 do not. Carveouts: the shared-memory capacities an SM of compute
   * capability 8.0-9.0 can be set to (CUDA C++ Programming Guide, "Shared
   * Memory" of compute capabilities 8.x and 9.0), smallest first. */
  enum { SMEM_UNIT = 128 };
  static const int kb[] = {8, 16, 32, 64, 100, 132, 164, 196, 228};
  const long M = multiplicity, R = (long)d->smem_reserved_per_block;
  if (multiplicity < 1 || multiplicity > d->max_blocks_per_sm || d->smem_per_sm == 0) return -1;
  for (size_t i = 0; i < sizeof kb / sizeof *kb && (size_t)kb[i] * 1024 <= d->smem_per_sm; i++) {
    const long cap = kb[i] * 1024L;
    const int pct = (int)(100 * cap / (long)d->smem_per_sm); /* rounded down: the driver takes the capacity at or
                                                                 above */
    if (pct < min_pct) continue;
    long total = cap / M - R;
    if (total < 0) continue;
    total -= total % SMEM_UNIT;
    if (total > (long)d->smem_per_block_optin) total = (long)d->smem_per_block_optin;
    if (total < static_smem || (M + 1) * (total + R) <= cap) continue;
    if (carveout_pct) *carveout_pct = pct;
    return total - static_smem;
  }
  return -1;
}

/* What symv_kernel_load does once an entry point fn (a cudaKernel_t) of
 * candidate p is known: k gets it with its dynamic shared memory (`need`
 * bytes for the pipeline, symv_pipe_smem_of, plus padding) sized for
 * MULTIPLICITY in the smallest carveout that holds it (symv_dyn_smem_for),
 * set on fn, and the occupancy checked. k->lib is left as it is. Errors as
 * symv_kernel_load. */
static int kernel_prepare(const symv_params *p, const void *fn, long need, const symv_device_info *d, symv_kernel *k,
                          char *err, size_t errlen)
{
  k->p = *p;
  k->fn = (cudaKernel_t)fn;
  k->sm_count = d->sm_count;
  k->pdl = d->cc_major >= 9;
  struct cudaFuncAttributes fa;
  const char *call = "cudaFuncGetAttributes";
  cudaError_t e;
  if ((e = cudaFuncGetAttributes(&fa, fn)) != cudaSuccess) goto cuda_error;
  k->regs = fa.numRegs;
  k->static_smem = (int)fa.sharedSizeBytes;
  if (p->block_size > fa.maxThreadsPerBlock) {
    snprintf(err, errlen, "BLOCK_SIZE %d exceeds the %d threads this kernel allows (%d registers per thread)",
             p->block_size, fa.maxThreadsPerBlock, k->regs);
    return SYMV_RESOURCES;
  }
  int carveout = 100; /* need: the pipeline's stages; padding comes on top */
  long dyn = symv_dyn_smem_for(d, p->multiplicity, k->static_smem + (int)need, 0, &carveout);
  if (dyn < 0) {
    snprintf(err, errlen,
             "MULTIPLICITY %d: %zu bytes of shared memory per SM cannot hold %d blocks of %ld bytes "
             "(+%zu reserved), or the SM takes at most %d blocks",
             p->multiplicity, d->smem_per_sm, p->multiplicity, k->static_smem + need, d->smem_reserved_per_block,
             d->max_blocks_per_sm);
    return SYMV_RESOURCES;
  }
  k->dyn_smem = (size_t)(dyn + need);
  k->carveout_pct = carveout;
  call = "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)";
  if ((e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)k->dyn_smem)) != cudaSuccess)
    goto cuda_error;
  call = "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)";
  if ((e = cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout)) != cudaSuccess)
    goto cuda_error;
  call = "cudaOccupancyMaxActiveBlocksPerMultiprocessor";
  if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k->occupancy, fn, p->block_size, k->dyn_smem)) !=
      cudaSuccess)
    goto cuda_error;
  if (k->occupancy != p->multiplicity) {
    snprintf(err, errlen,
             "MULTIPLICITY %d requested but %d blocks per SM achieved (%d registers x %d threads, %zu+%d bytes "
             "shared memory per block)",
             p->multiplicity, k->occupancy, k->regs, p->block_size, k->dyn_smem, k->static_smem);
    return SYMV_OCCUPANCY;
  }
  return 0;
cuda_error:
  cuda_fail(call, e, 0);
  snprintf(err, errlen, "%s", last_error);
  return SYMV_CUDA;
}

int symv_kernel_load(const symv_params *p, const symv_cubin *c, const symv_device_info *d, symv_kernel *k, char *err,
                     size_t errlen)
{
  memset(k, 0, sizeof *k);
  cudaError_t e = cudaLibraryLoadData(&k->lib, c->data, NULL, NULL, 0, NULL, NULL, 0);
  if (e != cudaSuccess) {
    cuda_fail("cudaLibraryLoadData", e, 0);
    snprintf(err, errlen, "%s", last_error);
    return SYMV_CUDA;
  }
  cudaKernel_t fn;
  if ((e = cudaLibraryGetKernel(&fn, k->lib, c->name)) != cudaSuccess) {
    cuda_fail("cudaLibraryGetKernel", e, 0);
    snprintf(err, errlen, "%s", last_error);
    symv_kernel_unload(k);
    return SYMV_CUDA;
  }
  int rc = kernel_prepare(p, (const void *)fn, symv_pipe_smem_of(p, 0), d, k, err, errlen);
  /* the copy-engine entries, rows ascending then descending (symv_pipe_tma_at), each checked as the first */
  static const char *const suffix[2] = {"_runs", "_runs_u"};
  for (int i = 0; i < 2 && !rc && symv_pipe_runs(p) && d->cc_major >= 9; i++) {
    char name[sizeof c->name + 8], why[512];
    snprintf(name, sizeof name, "%s%s", c->name, suffix[i]);
    symv_kernel r;
    memset(&r, 0, sizeof r);
    if ((e = cudaLibraryGetKernel(&fn, k->lib, name)) != cudaSuccess) {
      cuda_fail("cudaLibraryGetKernel", e, 0);
      snprintf(err, errlen, "%s (entry point %s)", last_error, name);
      rc = SYMV_CUDA;
    } else if ((rc = kernel_prepare(p, (const void *)fn, symv_pipe_smem_of(p, 1), d, &r, why, sizeof why))) {
      snprintf(err, errlen, "entry point %s: %s", name, why);
    } else {
      k->fn_runs[i] = r.fn, k->dyn_smem_runs[i] = r.dyn_smem, k->regs_runs[i] = r.regs;
    }
  }
  if (rc) symv_kernel_unload(k);
  return rc;
}

void symv_kernel_unload(symv_kernel *k)
{
  if (k->lib) cudaLibraryUnload(k->lib);
  k->lib = NULL;
  k->fn = k->fn_runs[0] = k->fn_runs[1] = NULL;
}

/* The work items the blocks of a pipe or pipe_det candidate p share at
 * size n: tiles, or pipe_det's units (MX 3..5); 0 for the other families. */
static long pipe_items(const symv_params *p, int n)
{
  if (!symv_family_pipelined(p->family)) return 0;
  return symv_pdet_units(n, symv_pipe_item_width(p->family == SYMV_FAMILY_PIPE_DET, p->block_size, p->ux, p->mx));
}

/* The blocks of candidate p's launch when its blocks share items work
 * items (pipe_items) on a GPU of sm_count SMs: SMs x MULTIPLICITY, or
 * items where fewer. */
static long pipe_grid_of(const symv_params *p, long items, int sm_count)
{
  const long full = (long)(sm_count > 0 ? sm_count : 1) * p->multiplicity;
  return items < full ? items : full;
}

long symv_pipe_grid(const symv_params *p, int n, int sm_count) { return pipe_grid_of(p, pipe_items(p, n), sm_count); }

long symv_pipe_det_partials(int n, int w, long grid)
{
  const long units = symv_pdet_units(n, w);
  if (units < 1 || grid < 1 || grid > units) return 0;
  return units * 64 + (grid + (n + w - 1) / w - 1) * w; /* R, then C (kernels/symv_pipe_det.cu) */
}

long symv_pipe_fx_words(symv_routine r, int n)
{
  if (n < 1 || (unsigned)r >= SYMV_ROUTINE_COUNT) return 0;
  const symv_routine_info *ri = symv_routine_get(r);
  const long words = ri->real_bytes == 4 ? SYMV_FX_WORDS_F : SYMV_FX_WORDS_D;
  const long nb = (n + 63L) / 64;
  return 2 * nb + (long)n * (ri->is_complex ? 2 : 1) * words + SYMV_FX_GRID_WORDS(nb);
}

int symv_pipe_fx_fits(const symv_params *p, int n, int sm_count)
{
  const long G = symv_pipe_grid(p, n, sm_count);
  if (p->mx >= SYMV_FX_GRID_MX && (G >= 1L << 16 || symv_fx_grid_chunk((n + 63L) / 64, p->block_size, G) > p->block_size))
    return 0; /* the grid's word counts G in 16 bits; a finisher's chunk lists its row blocks a thread each */
  return (n + (long)p->ux - 1) / p->ux + G <= SYMV_FX_TERMS_MAX;
}

long symv_pipe_smem_of(const symv_params *p, int runs)
{
  if (!symv_family_pipelined(p->family)) return 0;
  const int cg = p->block_size / 64, cpt = cg > 0 ? p->ux / cg : 0; /* columns per thread */
  const int eb = symv_routine_get(p->routine)->elem_bytes;
  /* room for the copy engine's runs, SYMV_PIPE_RUN_FLOATS floats a column: its entry's, and pipe_det's first
   * entry's, which holds both paths (SYMV_PDET_BOTH, kernels/symv_pipe_det.cu) */
  if (p->family == SYMV_FAMILY_PIPE_DET) runs = 1;
  const long stage = runs && symv_pipe_runs(p) ? (long)SYMV_PIPE_RUN_FLOATS * p->ux + p->block_size
                                               : (long)(cpt + 1) * p->block_size;
  return (long)symv_pipe_stages(p->mx) * stage * eb;
}

long symv_pipe_smem(const symv_params *p) { return symv_pipe_smem_of(p, 1); }

int symv_pipe_runs(const symv_params *p)
{
  return symv_family_pipelined(p->family) &&
         symv_pipe_rows_per_thread(symv_routine_get(p->routine)->elem_bytes, p->block_size, p->ux) == 4;
}

/* Workspace each family needs at size n (elements). */
int symv_lu_splits(int n, int block_size, int multiplicity, int sm_count)
{
  const int rb = (n + 31) / 32, ntiles = rb, warps = block_size / 32;
  const int want = 2 * (sm_count > 0 ? sm_count : 1) * multiplicity; /* blocks: two waves */
  int S = (want + rb - 1) / rb;
  int smax = (ntiles + warps - 1) / warps; /* at least one tile per warp */
  if (S > smax) S = smax;
  if (S > SYMV_LU_SPLITS_MAX) S = SYMV_LU_SPLITS_MAX;
  return S < 1 ? 1 : S;
}

static void ws_needs(const symv_params *p, int n, int sm_count, size_t *w, size_t *sync, size_t *P, size_t *state,
                     size_t *cnt, size_t *gate, size_t *fx, size_t *fxst)
{
  size_t nseg = ((size_t)n + p->block_size - 1) / p->block_size;
  *w = *sync = *P = *state = *cnt = *gate = *fx = *fxst = 0;
  if (p->family == SYMV_FAMILY_LU) {
    int S = symv_lu_splits(n, p->block_size, p->multiplicity, sm_count);
    if (S > 1) {
      *P = (size_t)S * (size_t)n;
      *sync = ((size_t)n + 31) / 32;
    }
  } else if (p->family == SYMV_FAMILY_ATOMIC_RED) {
    *state = ((size_t)n + SYMV_RED_SEG - 1) / SYMV_RED_SEG;
  } else if (p->family == SYMV_FAMILY_ATOMIC_W) {
    *w = (size_t)n;
    *cnt = ((size_t)n + SYMV_RED_SEG - 1) / SYMV_RED_SEG;
  } else if (p->family == SYMV_FAMILY_PANEL) {
    /* no workspace */
  } else if (p->family == SYMV_FAMILY_PIPE) {
    *gate = 1 + (size_t)(sm_count > 0 ? sm_count : 1) * (size_t)p->multiplicity; /* count, a claim per chunk (C <= G, symv_pipe_chunks) */
  } else if (p->family == SYMV_FAMILY_PIPE_DET) {
    /* the tiles' row sums and the blocks' column sums (scratch; phase 1 sums them) */
    *P = (size_t)symv_pipe_det_partials(n, symv_pdet_unit_width(p->block_size, p->ux, p->mx),
                                        symv_pipe_grid(p, n, sm_count));
  } else if (p->family == SYMV_FAMILY_PIPE_FX) {
    *fx = (size_t)symv_pipe_fx_words(p->routine, n); /* zero between calls: the kernel clears what it used */
    /* a state per 32 rows, one per 128 bytes; zero is below every later call's epoch */
    *fxst = 32 * (((size_t)n + 63) / 64);
  } else {
    *w = (size_t)n;
    *sync = 2 * nseg;
  }
}

int symv_stream_capturing(cudaStream_t stream)
{
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    cudaGetLastError(); /* this query's own error, not the caller's */
    return -1;
  }
  return capture != cudaStreamCaptureStatusNone;
}

/* Grows the region *ptr of *cap elements of `elem` bytes to hold `need`
 * (with headroom), zeroed on `stream` if `zero`. The old region is freed
 * once the stream is idle. Not while the stream is being captured into a
 * graph (cudaStreamSynchronize and cudaMalloc are not allowed there, and
 * the captured kernels would keep the old pointer): that is refused with
 * SYMV_CUDA, and a message saying to make one call of that size before
 * the capture, which leaves the workspace large enough. */
static int grow(void **ptr, size_t *cap, size_t need, size_t elem, int zero, cudaStream_t stream)
{
  if (need <= *cap) return 0;
  if (symv_stream_capturing(stream) == 1) { /* (unknown: the calls below report their own errors) */
    snprintf(last_error, sizeof last_error,
             "the workspace must grow to %zu bytes while the stream is being captured: make one call of this n "
             "(or larger) on this stream before the capture",
             need * elem);
    return SYMV_CUDA;
  }
  size_t want = need + need / 4 + 256; /* headroom: fewer reallocations as n grows */
  if (*ptr) {
    CUDA_TRY(cudaStreamSynchronize(stream), SYMV_CUDA);
    CUDA_TRY(cudaFree(*ptr), SYMV_CUDA);
    *ptr = NULL, *cap = 0;
  }
  CUDA_TRY(cudaMalloc(ptr, want * elem), SYMV_CUDA);
  if (zero) CUDA_TRY(cudaMemsetAsync(*ptr, 0, want * elem, stream), SYMV_CUDA);
  *cap = want;
  return 0;
}

int symv_workspace_reserve(symv_workspace *ws, const symv_params *p, int n, int sm_count, cudaStream_t stream)
{
  size_t w, s, P, st, c, g, fx, fxst;
  ws_needs(p, n, sm_count, &w, &s, &P, &st, &c, &g, &fx, &fxst);
  int rc;
  if ((rc = grow((void **)&ws->fxst, &ws->fxst_len, fxst, sizeof(unsigned long long), 1, stream))) return rc;
  if ((rc = grow((void **)&ws->fx, &ws->fx_len, fx, sizeof(unsigned long long), 1, stream))) return rc;
  if (g > ws->gate_len) ws->gate_target = 0; /* a new gate counts from zero */
  if ((rc = grow((void **)&ws->gate, &ws->gate_len, g, sizeof(unsigned long long), 1, stream))) return rc;
  if ((rc = grow((void **)&ws->cnt, &ws->cnt_len, c, sizeof(unsigned long long), 1, stream))) return rc;
  if ((rc = grow((void **)&ws->state, &ws->state_len, st, sizeof(unsigned long long), 1, stream))) return rc;
  const size_t elem = (size_t)symv_routine_get(p->routine)->elem_bytes;
  if ((rc = grow(&ws->w, &ws->w_bytes, w * elem, 1, 1, stream))) return rc;
  if ((rc = grow((void **)&ws->sync, &ws->sync_len, s, sizeof(int), 1, stream))) return rc;
  return grow(&ws->P, &ws->P_bytes, P * elem, 1, 0, stream);
}

int symv_workspace_reset(symv_workspace *ws, cudaStream_t stream)
{
  if (ws->w) CUDA_TRY(cudaMemsetAsync(ws->w, 0, ws->w_bytes, stream), SYMV_CUDA);
  if (ws->sync) CUDA_TRY(cudaMemsetAsync(ws->sync, 0, ws->sync_len * sizeof(int), stream), SYMV_CUDA);
  if (ws->cnt) CUDA_TRY(cudaMemsetAsync(ws->cnt, 0, ws->cnt_len * sizeof(unsigned long long), stream), SYMV_CUDA);
  if (ws->gate) CUDA_TRY(cudaMemsetAsync(ws->gate, 0, ws->gate_len * sizeof(unsigned long long), stream), SYMV_CUDA);
  if (ws->fx) CUDA_TRY(cudaMemsetAsync(ws->fx, 0, ws->fx_len * sizeof(unsigned long long), stream), SYMV_CUDA);
  ws->gate_target = 0;
  return 0;
}

void symv_workspace_free(symv_workspace *ws)
{
  cudaFree(ws->w);
  cudaFree(ws->sync);
  cudaFree(ws->P);
  cudaFree(ws->state);
  cudaFree(ws->cnt);
  cudaFree(ws->gate);
  cudaFree(ws->fx);
  cudaFree(ws->fxst);
  memset(ws, 0, sizeof *ws);
}

int symv_check_args(char uplo, int n, int lda, int incx, int incy)
{
  char u = (char)toupper((unsigned char)uplo);
  if (u != 'L' && u != 'U') return 1;
  if (n < 0) return 2;
  if (lda < (n > 1 ? n : 1)) return 5;
  if (incx == 0) return 7;
  if (incy == 0) return 10;
  return 0;
}

int symv_tile_groups(int n, int ux, int block_size)
{
  int g = (int)((double)n / (12.0 * block_size) + 0.5); /* tiles of ~n/12 rows */
  int gmax = (int)(65536.0 / ux / block_size);          /* at most ~512 KB of A per tile */
  if (g > gmax) g = gmax;
  if (g > SYMV_TILE_GROUPS_MAX) g = SYMV_TILE_GROUPS_MAX;
  return g < 1 ? 1 : g;
}

/* Launches k's entry point fn (k->fn, or one of k->fn_runs) in grid g on
 * `stream` with args: blocks of `threads` threads
 * (k's BLOCK_SIZE but for pipe_det's phase 1) and `smem` bytes
 * of dynamic shared memory (k->dyn_smem but where a kernel's phase needs
 * none), and, where `early` and the GPU has it (k->pdl), programmatic
 * dependent launch, so that
 * the grid may start while the stream's previous one finishes (every
 * kernel waits for that one first: symv_grid_dependency,
 * kernels/symv_common.cuh). The launch's own error is the one returned
 * (SYMV_LAUNCH, named `what` in the message): a refused launch leaves no
 * error behind for the next call to find, and a good one asks nothing more
 * (a cudaGetLastError there costs 0.3 us of host time a call, a tenth of a
 * launch-bound call's, and would report, and clear, an error of the
 * program's own). */
static int launch_grid(const symv_kernel *k, cudaKernel_t fn, dim3 g, int threads, size_t smem, cudaStream_t stream,
                       void **args, const char *what, int early)
{
  cudaLaunchConfig_t cfg;
  cudaLaunchAttribute attr;
  memset(&cfg, 0, sizeof cfg);
  memset(&attr, 0, sizeof attr);
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.gridDim = g, cfg.blockDim = dim3_make((unsigned)threads), cfg.dynamicSmemBytes = smem;
  cfg.stream = stream, cfg.attrs = &attr, cfg.numAttrs = k->pdl && early ? 1 : 0;
  cudaError_t e = cudaLaunchKernelExC(&cfg, (const void *)fn, args);
  if (e == cudaSuccess) return 0;
  cudaGetLastError();
  return cuda_fail(what, e, SYMV_LAUNCH);
}

int symv_launch(const symv_kernel *k, symv_workspace *ws, cudaStream_t stream, char uplo, int n,
                const void *alpha, const void *A, int lda, const void *x, int incx,
                const void *beta, void *y, int incy, int scalars_on_device, int *bad_arg)
{
  int bad = symv_check_args(uplo, n, lda, incx, incy);
  if (bad_arg) *bad_arg = bad;
  if (bad || !alpha || !beta) {
    if (!bad && bad_arg) *bad_arg = !alpha ? 3 : 8;
    return SYMV_INVALID_VALUE;
  }
  if (n == 0) return 0;
  if (k->p.family == SYMV_FAMILY_FLOOR) return SYMV_INVALID_VALUE; /* symv_floor_launch */
  const symv_routine r = k->p.routine;
  const long long E = symv_routine_get(r)->elem_bytes;
  /* the scalars by value (host pointer mode), as many bytes as the kernel's
   * scalar parameters take; 16-byte aligned for cuDoubleComplex */
  _Alignas(16) unsigned char a[16] = {0}, b[16] = {0};
  const void *da = NULL, *db = NULL;
  if (scalars_on_device) {
    da = alpha, db = beta;
  } else {
    memcpy(a, alpha, (size_t)E), memcpy(b, beta, (size_t)E);
    if (symv_scalar_is_zero(r, a) && symv_scalar_is_one(r, b)) return 0;
  }
  const long long N1 = n - 1;
  int rs;
  long long cs, ix = incx, iy = incy;
  const char *A0, *x0;
  char *y0;
  if (toupper((unsigned char)uplo) == 'L') {
    A0 = A, rs = 1, cs = lda;
    x0 = (const char *)x + (ix < 0 ? N1 * -ix : 0) * E;
    y0 = (char *)y + (iy < 0 ? N1 * -iy : 0) * E;
  } else { /* logical k = BLAS element n-1-k: the upper triangle walked backwards */
    A0 = (const char *)A + N1 * (1 + (long long)lda) * E, rs = -1, cs = -(long long)lda;
    x0 = (const char *)x + (ix > 0 ? N1 * ix : 0) * E, ix = -ix;
    y0 = (char *)y + (iy > 0 ? N1 * iy : 0) * E, iy = -iy;
  }
  if (k->p.family == SYMV_FAMILY_PIPE_FX && !symv_pipe_fx_fits(&k->p, n, k->sm_count)) {
    snprintf(last_error, sizeof last_error,
             "pipe_fx at n = %d: an element may receive ceil(n/UX) + %ld contributions, more than the %ld "
             "additions a word of its accumulators holds",
             n, symv_pipe_grid(&k->p, n, k->sm_count), SYMV_FX_TERMS_MAX);
    return SYMV_INVALID_VALUE;
  }
  int rc = symv_workspace_reserve(ws, &k->p, n, k->sm_count, stream);
  if (rc) return rc;
  const int nblk = (n + k->p.ux - 1) / k->p.ux;
  const int nseg = (n + k->p.block_size - 1) / k->p.block_size;
  int *mutex = ws->sync, *count = ws->sync + nseg;
  void *args_atomic[] = {&n, &A0, &rs, &cs, &x0, &ix, &y0, &iy, &a, &b, &da, &db, &ws->w, &mutex, &count};
  void *args_lu[] = {&n, &A0, &rs, &cs, &x0, &ix, &y0, &iy, &a, &b, &da, &db, &ws->P, &ws->sync};
  unsigned long long epoch = ++ws->epoch;
  int nblk_arg = nblk, groups = 1;
  void *args_red[] = {&n, &A0, &rs, &cs, &x0, &ix, &y0, &iy, &a, &b, &da, &db, &ws->state, &epoch, &nblk_arg, &groups};
  void *args_w[] = {&n, &A0, &rs, &cs, &x0, &ix, &y0, &iy, &a, &b, &da, &db, &ws->w, &ws->cnt, &nblk_arg, &groups};
  void *args_panel[] = {&n, &A0, &rs, &cs, &x0, &ix, &y0, &iy, &a, &b, &da, &db};
  unsigned long long target = 0;
  int ntiles = 0, det_grid = 0, det_phase = 0;
  void *args_pipe[] = {&n, &A0, &rs, &cs, &x0, &ix, &y0, &iy, &a, &b, &da, &db, &ws->gate, &target, &ntiles};
  void *args_pipe_det[] = {&n,  &A0, &rs, &cs, &x0, &ix, &y0, &iy, &a, &b, &da, &db, &ws->P, &ntiles, &det_grid,
                           &det_phase};
  void *args_pipe_fx[] = {&n, &A0, &rs, &cs, &x0, &ix, &y0, &iy, &a, &b, &da, &db, &ws->fx, &ws->fxst, &epoch,
                          &ntiles};
  void **args = args_atomic;
  unsigned grid = (unsigned)nblk;
  unsigned gridy = 1;
  if (k->p.family == SYMV_FAMILY_LU) {
    args = args_lu;
    grid = (unsigned)((n + 31) / 32); /* a block per 32 rows ... */
    gridy = (unsigned)symv_lu_splits(n, k->p.block_size, k->p.multiplicity, k->sm_count); /* ... times S */
  } else if (k->p.family == SYMV_FAMILY_ATOMIC_RED || k->p.family == SYMV_FAMILY_ATOMIC_W) {
    groups = symv_tile_groups(n, k->p.ux, k->p.block_size);
    const int H = groups * k->p.block_size;
    args = k->p.family == SYMV_FAMILY_ATOMIC_RED ? args_red : args_w;
    grid = (unsigned)nblk * (unsigned)((n + H - 1) / H);
  } else if (k->p.family == SYMV_FAMILY_PANEL) {
    args = args_panel; /* a block per UX rows of y: grid nblk */
  } else if (symv_family_pipelined(k->p.family)) {
    /* SMs x MULTIPLICITY persistent blocks, at most one per work item
     * (tiles; pipe_det's units for MX 3..5); pipe's gate counts
     * symv_pipe_chunks chunks of y, pipe_det's workspace was sized for
     * this grid (ws_needs) */
    const long items = pipe_items(&k->p, n);
    if (items > INT_MAX) return SYMV_INVALID_VALUE;
    ntiles = (int)items;
    grid = (unsigned)pipe_grid_of(&k->p, items, k->sm_count);
    if (k->p.family == SYMV_FAMILY_PIPE) {
      target = ws->gate_target + (unsigned long long)symv_pipe_chunks(n, (long)grid);
      args = args_pipe;
    } else if (k->p.family == SYMV_FAMILY_PIPE_FX) {
      args = args_pipe_fx; /* the region was sized for n (ws_needs) */
    } else {
      det_grid = (int)grid;
      args = args_pipe_det;
    }
  }
  dim3 g3 = dim3_make(grid);
  g3.y = gridy;
  /* the copy-engine entry of the rows' direction where A's columns are not 16-byte aligned and n is large
   * (symv_pipe_tma_at: 1 ascending, -1 descending, 0 neither) */
  const int dir = symv_pipe_tma_at(n, rs, cs, (unsigned long long)(uintptr_t)A0), e = dir < 0;
  const int runs = dir && k->fn_runs[e];
  if ((rc = launch_grid(k, runs ? k->fn_runs[e] : k->fn, g3, k->p.block_size, runs ? k->dyn_smem_runs[e] : k->dyn_smem,
                        stream, args, "cudaLaunchKernelExC", 1)))
    return rc;
  if (k->p.family == SYMV_FAMILY_PIPE) ws->gate_target = target; /* its chunks will all be counted */
  if (k->p.family == SYMV_FAMILY_PIPE_DET && !(!scalars_on_device && symv_scalar_is_zero(r, a))) {
    /* phase 1: small blocks (symv_pdet_p1_threads, kernels/symv_pipe.h) of
     * symv_pdet_p1_rows rows each sum phase 0's partial sums and write y
     * (kernels/symv_pipe_det.cu); no pipeline, so no dynamic shared memory;
     * launched early or in the stream's order as symv_pdet_phase1_pdl says.
     * alpha = 0 (known here): phase 0 scaled y, nothing to add. */
    const int rows = symv_pdet_p1_rows(k->p.block_size);
    det_phase = 1;
    if ((rc = launch_grid(k, k->fn, dim3_make((unsigned)((n + rows - 1) / rows)), symv_pdet_p1_threads(k->p.block_size),
                          0, stream, args, "cudaLaunchKernelExC(phase 1)",
                          symv_pdet_phase1_pdl(k->p.multiplicity, n))))
      return rc;
  }
  return 0;
}

int symv_pdet_phase1_pdl(int multiplicity, int n) { return multiplicity < 3 || n <= SYMV_PDET_P1_PDL_N; }

int symv_kernel_launches(const symv_kernel *k) { return symv_family_get(k->p.family)->launches; }

long symv_floor_grid(const symv_kernel *k, int n)
{
  if (k->p.family != SYMV_FAMILY_FLOOR || n < 1) return 0;
  const long warps_per_block = k->p.block_size / 32;
  const long fill = (long)k->sm_count * k->p.multiplicity; /* one full wave */
  long want;
  if (k->p.mx == 9) { /* empty */
    want = fill;
  } else if (k->p.mx == 8) { /* a warp per column */
    want = ((long)n + warps_per_block - 1) / warps_per_block;
  } else { /* pairs of columns x slices of 32 x UX units (kernels/symv_floor.cu) */
    const long E = symv_routine_get(k->p.routine)->elem_bytes, V = k->p.mx == 1 ? 16 / E : 1;
    const long per = 32L * k->p.ux, Q = ((n - 1) / V + 4 + per - 1) / per, items = (n + 1L) / 2 * Q;
    if (items > INT_MAX) return -1;
    want = (items + warps_per_block - 1) / warps_per_block;
  }
  return want < fill ? want : fill;
}

int symv_floor_launch(const symv_kernel *k, cudaStream_t stream, int n, const void *A, int lda, void *out)
{
  const long E = (unsigned)k->p.routine < SYMV_ROUTINE_COUNT ? symv_routine_get(k->p.routine)->elem_bytes : 0;
  if (k->p.family != SYMV_FAMILY_FLOOR || n < 1 || lda < n || !A || !out || (uintptr_t)A % (uintptr_t)E)
    return SYMV_INVALID_VALUE;
  const long grid = symv_floor_grid(k, n);
  if (grid < 1) return SYMV_INVALID_VALUE;
  long long ld = lda;
  void *args[] = {&n, &A, &ld, &out};
  return launch_grid(k, k->fn, dim3_make((unsigned)grid), k->p.block_size, k->dyn_smem, stream, args,
                     "cudaLaunchKernelExC(floor)", 1);
}
