/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu.h - everything in symvtune that touches the GPU, behind one small
 * interface: device limits, loading a compiled candidate (with its
 * MULTIPLICITY enforced and checked), the workspace, and the DSYMV launch
 * with the full semantics of cublasDsymv.
 *
 * Uses the CUDA runtime API only (cudaLibraryLoadData for NVRTC's CUBINs), so
 * programs that link it still start on a machine without a GPU or driver and
 * get SYMV_NO_DEVICE.
 */
#ifndef SYMV_GPU_H
#define SYMV_GPU_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include "compile.h"
#include "params.h"
#include "../kernels/symv_pipe.h" /* symv_pipe_tiles */

/** The limits tuning depends on, read from the device. */
typedef struct {
  int ordinal;                   /* CUDA device number */
  char name[256];                /* e.g. "NVIDIA H100 80GB HBM3" */
  int cc_major, cc_minor;        /* compute capability */
  int sm_count;                  /* streaming multiprocessors */
  size_t smem_per_sm;            /* shared memory per SM, bytes */
  size_t smem_per_block;         /* default per-block limit, bytes */
  size_t smem_per_block_optin;   /* opt-in per-block limit, bytes */
  size_t smem_reserved_per_block;/* reserved by the driver per block, bytes */
  int regs_per_sm;               /* 32-bit registers per SM */
  int regs_per_block;            /* 32-bit registers per block */
  int max_blocks_per_sm;         /* resident blocks per SM */
  int max_threads_per_sm;        /* resident threads per SM */
  int max_threads_per_block;     /* threads per block */
  size_t l2_bytes;               /* L2 cache, bytes */
  size_t global_mem;             /* device memory, bytes */
  int mem_clock_khz;             /* peak memory clock, kHz (0 if unknown) */
  int bus_width_bits;            /* memory bus width, bits */
  double peak_gbs;               /* 2 * clock * bus width / 8: GB/s from the clocks (DDR) */
  int driver_version;            /* e.g. 13000 */
  int runtime_version;           /* e.g. 13000 */
} symv_device_info;

/** symv_device_count: number of CUDA devices in *n. SYMV_NO_DEVICE when
 *  there is none or no driver (then *n = 0). */
int symv_device_count(int *n);

/** symv_device_query: fills *d for device `ordinal` and makes it current.
 *  Errors: SYMV_NO_DEVICE, SYMV_INVALID_VALUE (no such ordinal), SYMV_CUDA. */
int symv_device_query(int ordinal, symv_device_info *d);

/** A candidate loaded on the current device, ready to launch. */
typedef struct {
  symv_params p;          /* the candidate */
  cudaLibrary_t lib;      /* loaded CUBIN */
  cudaKernel_t fn;        /* its entry point */
  size_t dyn_smem;        /* dynamic shared memory per block enforcing MULTIPLICITY, bytes */
  /* its copy-engine entry points (symv_pipe_runs, compute capability 9.0 on), or NULL: [0] A's rows
   * ascending in memory (NAME_runs, uplo L), [1] descending (NAME_runs_u, uplo U); symv_pipe_tma_at */
  cudaKernel_t fn_runs[2];
  size_t dyn_smem_runs[2]; /* their dynamic shared memory, bytes (0 without them) */
  int regs_runs[2];        /* their registers per thread (0 without them) */
  int carveout_pct;       /* shared-memory carveout it asks for, % of the SM's shared memory */
  int static_smem;        /* static shared memory per block, bytes */
  int regs;               /* registers per thread */
  int occupancy;          /* blocks per SM the occupancy API reports */
  int sm_count;           /* SMs of the device it was loaded for */
  int pdl;                /* launched with programmatic dependent launch (compute capability 9.0 on) */
} symv_kernel;

/** symv_tile_groups: row groups G per tile of the atomic_red and atomic_w
 *  kernels (kernels/symv_red.cu, symv_w.cu; a group is BLOCK_SIZE rows, one
 *  per thread) at size n: tiles of about n/12 rows, G = round(n / (12 x
 *  BLOCK_SIZE)), at most ~512 KB of A per tile, 1..64. Below n = 18 x
 *  BLOCK_SIZE a tile is one group and the product about one wave of small
 *  tiles; beyond, longer tiles add fewer atomics. Chosen on an H200 (symvtune
 *  time, 3 candidates, 14 sizes in 1,000..4,096) against tiles of n/8, n/16
 *  (rounded, and rounded up), n/24 rows and fixed numbers of waves: the
 *  geometric-mean speed-up of the best candidate over the faster cuBLAS mode
 *  was 1.465 with n/12, 1.451 (n/8), 1.437 and 1.409 (n/16), 1.380 (n/24). */
int symv_tile_groups(int n, int ux, int block_size);

/* symv_pipe_tiles (the tiles of the pipe and pipe_det kernels at size n)
 * is in kernels/symv_pipe.h, shared with the kernels and the fit. */

/** symv_pipe_grid: the blocks a pipe or pipe_det candidate p is launched
 *  with at size n on a GPU of sm_count SMs: SMs x MULTIPLICITY persistent
 *  blocks, fewer when there are fewer work items (one at least each: tiles,
 *  or pipe_det's units for MX 3..5, symv_pdet_units). 0 for the other
 *  families. */
long symv_pipe_grid(const symv_params *p, int n, int sm_count);

/** symv_pipe_det_partials: the elements of the pipe_det kernel's workspace
 *  P (kernels/symv_pipe_det.cu) at size n with units w columns wide
 *  (symv_pdet_unit_width: the tile's UX for MX 0..2, BLOCK_SIZE for 3..5)
 *  and `grid` blocks in its phase 0 (phase 1 sums them): U x 64 row sums of
 *  the U units (symv_pdet_units), then (grid + ns - 1) x w column sums,
 *  ns = ceil(n/w) strips (a block's column sums of a strip go to slot
 *  block + strip). 0 when n < 1, w is not a power of two in 1..1024, or
 *  grid is not in 1..U. */
long symv_pipe_det_partials(int n, int w, long grid);

/** symv_pipe_fx_words: the unsigned 64-bit words of the pipe_fx kernel's
 *  workspace region (kernels/symv_pipe_fx.cu) for routine r at size n:
 *  cnt[nb] and flag[nb] (nb = ceil(n/64) row blocks), then n elements'
 *  accumulators of parts (2 for complex routines, else 1) x words
 *  (SYMV_FX_WORDS_F for single precision, SYMV_FX_WORDS_D for double,
 *  kernels/symv_fx.h). 0 when n < 1 or r is not a routine. */
long symv_pipe_fx_words(symv_routine r, int n);

/** symv_pipe_fx_fits: 1 if a pipe_fx call of candidate p at size n on a
 *  GPU of sm_count SMs adds at most SYMV_FX_TERMS_MAX digits to any word
 *  of its accumulators (an element receives at most ns + G contributions:
 *  ns = ceil(n/UX) strips, G = symv_pipe_grid blocks) and, with MX 6..8,
 *  G < 2^16 and a finisher's chunk of row blocks (symv_fx_grid_chunk) no
 *  more than BLOCK_SIZE, else 0. */
int symv_pipe_fx_fits(const symv_params *p, int n, int sm_count);

/** symv_pipe_smem_of: the dynamic shared memory the pipe, pipe_det and
 *  pipe_fx kernels need for their pipeline, bytes: symv_pipe_stages(MX) =
 *  MX mod 3 + 2 stages of (CPT + 1) x BLOCK_SIZE elements of the
 *  candidate's routine (CPT = UX / (BLOCK_SIZE/64) columns per thread);
 *  for the copy-engine entries (runs nonzero, where symv_pipe_runs)
 *  SYMV_PIPE_RUN_FLOATS x UX + BLOCK_SIZE floats a stage, and so for
 *  pipe_det's first entry, which holds both paths (SYMV_PDET_BOTH,
 *  kernels/symv_pipe_det.cu). 0 for the other families, whose dynamic
 *  shared memory only pads for MULTIPLICITY. */
long symv_pipe_smem_of(const symv_params *p, int runs);

/** symv_pipe_smem: the most of symv_pipe_smem_of over p's entry points
 *  (the copy-engine entries' where symv_pipe_runs), bytes: what the static
 *  filter must find room for. */
long symv_pipe_smem(const symv_params *p);

/** symv_pipe_runs: 1 if candidate p's kernel has entry points that bring
 *  A's columns by the copy engine (kernels/symv_pipe.cuh), NAME_runs for
 *  A's rows ascending in memory (uplo L) and NAME_runs_u for rows
 *  descending (uplo U), built for compute capability 9.0 and later and
 *  launched where symv_pipe_tma_at names their direction (A's columns not
 *  16-byte aligned, from n = SYMV_PIPE_TMA_MIN_N): the pipe families at
 *  four rows a thread (SSYMV). Those entries' stages are sized for the
 *  runs and the module has 8 bytes of static shared memory a stage for
 *  their mbarriers. Entries apart rather than one kernel holding every
 *  path: pipe's kernel with both was 5-14% slower
 *  where the copy engine did not run, and pipe_fx's up to 1.35x (more
 *  registers and instructions; doc/results.md, "Why pipe with the copy
 *  engine's runs is slower where they do not run", "The copy engine's path
 *  as a second entry point", "SSYMV's copy engine in uplo U"); pipe_det's
 *  first entry keeps the element copies and the ascending runs, where that
 *  code was the faster (SYMV_PDET_BOTH). */
int symv_pipe_runs(const symv_params *p);

/** symv_dyn_smem_for: dynamic shared memory per block (bytes) that lets at
 *  most `multiplicity` blocks of a kernel with `static_smem` bytes reside on
 *  one SM of `d` (doc/method.md section 2), and in *carveout_pct (if non-NULL)
 *  the shared-memory carveout to ask for, in percent of smem_per_sm. The
 *  carveout is the smallest capacity an SM can be set to (8, 16, 32, 64,
 *  100, ... KB), and of at least min_pct percent, in which M blocks fit and
 *  M+1 do not; the block's total is
 *  floor(capacity / M) - reserved, rounded down to the 128-byte allocation
 *  unit (at most the opt-in per-block limit), less `static_smem`. The rest
 *  of the SM's 256 KB stays L1: the largest carveout for every M would
 *  leave 28 KB of L1, and memory-bound kernels run slower with so little,
 *  most likely because loads in flight hold L1 space (doc/results.md,
 *  "Other designs tried, not kept"). Returns -1 if M exceeds the blocks an SM takes or M blocks
 *  cannot fit at all. */
long symv_dyn_smem_for(const symv_device_info *d, int multiplicity, int static_smem, int min_pct, int *carveout_pct);

/** symv_kernel_load: loads compiled code `c` of candidate `p` on the current
 *  device, sizes its dynamic shared memory for MULTIPLICITY, and checks with
 *  cudaOccupancyMaxActiveBlocksPerMultiprocessor that exactly MULTIPLICITY
 *  blocks fit; where symv_pipe_runs and the device is of compute
 *  capability 9.0 or later, the same for the copy-engine entry points
 *  (c->name followed by _runs and _runs_u) into k->fn_runs[0] and [1].
 *  Errors: SYMV_RESOURCES
 *  (shared memory cannot give that MULTIPLICITY), SYMV_OCCUPANCY
 *  (registers or threads make the real occupancy differ), SYMV_CUDA (an
 *  entry point missing among them); `err` says why with the numbers, and
 *  which entry. */
int symv_kernel_load(const symv_params *p, const symv_cubin *c, const symv_device_info *d,
                     symv_kernel *k, char *err, size_t errlen);

/** symv_kernel_launches: the grids symv_launch launches for one call of k
 *  with alpha != 0, its family's (symv_family_info.launches: 2 for
 *  pipe_det's two phases, 1 for every other family). A call back to back
 *  costs the host that many launches. */
int symv_kernel_launches(const symv_kernel *k);

/** symv_pdet_phase1_pdl: whether pipe_det's phase 1 (kernels/symv_pipe_det.cu)
 *  is launched with programmatic dependent launch, for a candidate of
 *  MULTIPLICITY `multiplicity` at size n, on a GPU that has it: 1 unless
 *  multiplicity >= 3 and n > SYMV_PDET_P1_PDL_N, where it is launched in
 *  the stream's order (its blocks' griddepcontrol.wait then returns at
 *  once). With 3 or 4 phase 0 blocks to an SM, calls back to back with
 *  both phases launched early ran 1.1-1.45x slower at n = 6007..16411
 *  (H200, every such SSYMV and DSYMV shape timed), and with either phase
 *  launched in order they did not; with MULTIPLICITY 1 or 2, and at n up
 *  to about 4,000, launching early saved 0.3-2 us a call (doc/results.md,
 *  "pipe_det's phase 1 launched early"). Phase 0 is always launched
 *  early, as every kernel is. */
int symv_pdet_phase1_pdl(int multiplicity, int n);
#define SYMV_PDET_P1_PDL_N 4096

/** symv_kernel_unload: releases k's library; safe on a zeroed struct. */
void symv_kernel_unload(symv_kernel *k);

/** Reusable device workspace for one stream: regions that every successful
 *  call leaves zero (w, sync, cnt, fx) and a scratch region (P). It grows (never
 *  shrinks) to the largest need seen; growing waits for the stream, and is
 *  refused (SYMV_CUDA) while the stream is being captured into a graph:
 *  one call of the largest n before the capture avoids that. */
typedef struct {
  void *w;          /* zero between calls: atomic family's w (elements of the call's routine) */
  int *sync;        /* zero between calls: mutexes and counters */
  void *P;          /* scratch: L+U partial sums of a column split, pipe_det's row and column sums (any
                       contents) */
  unsigned long long *state; /* atomic_red's y-segment states, zeroed once */
  unsigned long long epoch;  /* atomic_red's call counter (kernels/symv_red.cu) */
  unsigned long long *cnt;   /* zero between calls: atomic_w's segment counters (kernels/symv_w.cu) */
  unsigned long long *gate;  /* pipe's gate (kernels/symv_pipe.cu): gate[0] counts the chunks of y scaled
                                over all calls, gate[1 + c] the last call that claimed chunk c */
  unsigned long long gate_target; /* what gate[0] reaches when the calls launched so far are all counted */
  unsigned long long *fx;    /* zero between calls: pipe_fx's cnt[nb], flag[nb] and accumulators
                                (kernels/symv_pipe_fx.cu, symv_pipe_fx_words) */
  unsigned long long *fxst;  /* pipe_fx's states of units of 32 rows, 16 words apart (kernels/symv_pipe_fx.cu):
                                2e when the unit is complete in the call of epoch e, 2e + 1 once a warp has
                                taken it; less before */
  size_t w_bytes, P_bytes;                            /* capacities of w and P, bytes */
  size_t sync_len, state_len, cnt_len, gate_len, fx_len, fxst_len; /* capacities of the others, elements */
} symv_workspace;

/** symv_stream_capturing: 1 if `stream` is being captured into a CUDA
 *  graph, 0 if not, -1 if cudaStreamIsCapturing cannot tell (the legacy
 *  stream while another stream captures globally); its error is cleared,
 *  so that it is not taken for a later call's. */
int symv_stream_capturing(cudaStream_t stream);

/** symv_workspace_reserve: grows ws (on `stream`) to what candidate p needs
 *  at size n on a GPU of sm_count SMs, zeroing new zero-regions.
 *  Errors: SYMV_CUDA (allocation, or growth during stream capture;
 *  symv_cuda_error_text says which). */
int symv_workspace_reserve(symv_workspace *ws, const symv_params *p, int n, int sm_count, cudaStream_t stream);

/** symv_lu_splits: the column split S of the L+U kernel (kernels/symv_lu.cu)
 *  at size n: enough blocks for two waves over sm_count SMs x MULTIPLICITY,
 *  at least one 32-column tile per warp, 1..64. */
int symv_lu_splits(int n, int block_size, int multiplicity, int sm_count);

/** symv_workspace_reset: zeroes the zero-regions again (after a failed or
 *  wrong call). */
int symv_workspace_reset(symv_workspace *ws, cudaStream_t stream);

/** symv_workspace_free: frees ws; safe on a zeroed struct. */
void symv_workspace_free(symv_workspace *ws);

/** symv_check_args: xSYMV's and xHEMV's argument checks in reference-BLAS
 *  order (the six routines check the same arguments). Returns 0 if valid,
 *  else the 1-based position of the first bad argument in the Fortran list
 *  (UPLO=1, N=2, LDA=5, INCX=7, INCY=10), as XERBLA. */
int symv_check_args(char uplo, int n, int lda, int incx, int incy);

/** symv_launch: y := alpha*A*x + beta*y with candidate k on `stream`, for
 *  the routine k was compiled for (k->p.routine, core/routine.h: every
 *  pointer addresses elements of that routine's type, float, double,
 *  cuComplex or cuDoubleComplex): uplo 'L'/'U' (either case), A n-by-n
 *  column-major with leading dimension lda >= max(1,n), x and y of n
 *  elements with strides incx, incy (nonzero; negative walks backwards as
 *  in reference BLAS), all device pointers. alpha, beta point to host
 *  memory, or to device memory when scalars_on_device is nonzero. n = 0:
 *  returns at once. alpha = 0: A and x are not read; beta = 0: y is not
 *  read. HEMV: the imaginary part of A's diagonal is not read. Asynchronous:
 *  one launch, two for pipe_det (its phase 0 streams A into partial sums,
 *  its phase 1 sums them in a fixed order and writes y; alpha = 0 in host
 *  pointer mode: phase 0 alone). The first launch is of k->fn_runs[0] or
 *  [1] where k has it and symv_pipe_tma_at names that direction for uplo,
 *  n, lda and A, else of k->fn (pipe_det's phase 1 always of k->fn).
 *  pipe_fx refuses (SYMV_INVALID_VALUE, the reason in
 *  symv_cuda_error_text) sizes where symv_pipe_fx_fits fails.
 *  On compute capability 9.0 and later the kernel is launched with
 *  programmatic dependent launch: it may start while the stream's previous
 *  kernel finishes, and waits for it before touching memory (a kernel of
 *  the program's own that follows, launched so too, must wait likewise, as
 *  that feature asks; one launched normally waits for this one as usual).
 *  Errors: SYMV_INVALID_VALUE (nothing touched; *bad_arg, if non-NULL, gets
 *  the position from symv_check_args), SYMV_CUDA (allocation, or a
 *  workspace that must grow during stream capture), SYMV_LAUNCH. */
int symv_launch(const symv_kernel *k, symv_workspace *ws, cudaStream_t stream, char uplo, int n,
                const void *alpha, const void *A, int lda, const void *x, int incx,
                const void *beta, void *y, int incy, int scalars_on_device, int *bad_arg);

/** symv_floor_grid: the blocks a launch of the floor kernel k (family
 *  floor, kernels/symv_floor.cu) at size n has: one wave of SMs x
 *  MULTIPLICITY blocks, fewer where its layout (MX) has less work for them.
 *  It is also how many values the launch writes to `out`. 0 when k is not
 *  a floor kernel or n < 1; -1 when n is too large for the layout's 32-bit
 *  work counter. */
long symv_floor_grid(const symv_kernel *k, int n);

/** symv_floor_launch: launches the floor kernel k (family floor,
 *  kernels/symv_floor.cu), which reads the lower triangle of the n-by-n A
 *  (column-major, leading dimension lda >= n, elements of k's routine,
 *  aligned to the element) once, element (i, j), i >= j, exactly once, and
 *  computes nothing but a checksum: block b writes to out[b] (device, at
 *  least symv_floor_grid(k, n) unsigned 64-bit values) the sum of the
 *  32-bit words it read, so that the sum of out over the grid is
 *  symv_floor_checksum's (gpu/floor.h). Launched on `stream` as symv_launch
 *  launches (programmatic dependent launch on compute capability 9.0 and
 *  later), so that the time of a SYMV over a floor kernel's is how far the
 *  SYMV is from the least a kernel that reads the triangle once needs.
 *  Errors: SYMV_INVALID_VALUE (not a floor kernel, n < 1, lda < n, A
 *  misaligned, n too large), SYMV_LAUNCH. */
int symv_floor_launch(const symv_kernel *k, cudaStream_t stream, int n, const void *A, int lda, void *out);

/** symv_cuda_error_text: "cudaErrorName: description" of the last error seen
 *  by this module in this thread (for messages). */
const char *symv_cuda_error_text(void);

#endif
