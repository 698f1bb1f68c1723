# SPDX-License-Identifier: BSD-3-Clause
# kernels: CUDA sources of the kernel families. They are embedded into
# symvtune (NVRTC compiles them at run time for the GPU present) and, later,
# compiled by nvcc into the generated library: one source for both.
KERNEL_FILES = kernels/symv_mx.h kernels/symv_scalar.cuh kernels/symv_limits.h kernels/symv_common.cuh kernels/symv_pipe.h kernels/symv_fx.h kernels/symv_pipe.cuh kernels/symv_gate.cuh kernels/symv_atomic.cu kernels/symv_lu.cu kernels/symv_red.cu kernels/symv_w.cu kernels/symv_panel.cu kernels/symv_pipe.cu kernels/symv_pipe_det.cu kernels/symv_pipe_fx.cu kernels/symv_fault.cu kernels/symv_floor.cu
KERNEL_SOURCE_PATHS = $(top_srcdir)/kernels/symv_mx.h $(top_srcdir)/kernels/symv_scalar.cuh $(top_srcdir)/kernels/symv_limits.h \
	$(top_srcdir)/kernels/symv_common.cuh $(top_srcdir)/kernels/symv_pipe.h $(top_srcdir)/kernels/symv_fx.h $(top_srcdir)/kernels/symv_pipe.cuh $(top_srcdir)/kernels/symv_gate.cuh \
	$(top_srcdir)/kernels/symv_atomic.cu $(top_srcdir)/kernels/symv_lu.cu $(top_srcdir)/kernels/symv_red.cu $(top_srcdir)/kernels/symv_w.cu $(top_srcdir)/kernels/symv_panel.cu $(top_srcdir)/kernels/symv_pipe.cu \
	$(top_srcdir)/kernels/symv_pipe_det.cu $(top_srcdir)/kernels/symv_pipe_fx.cu $(top_srcdir)/kernels/symv_fault.cu $(top_srcdir)/kernels/symv_floor.cu
EXTRA_DIST += $(KERNEL_FILES) kernels/compile-all.sh

gpu/kernel_sources.c: $(KERNEL_FILES) $(top_srcdir)/scripts/embed-sources
	$(AM_V_GEN)$(top_srcdir)/scripts/embed-sources $@ $(KERNEL_SOURCE_PATHS)
BUILT_SOURCES += gpu/kernel_sources.c
CLEANFILES += gpu/kernel_sources.c
