# SPDX-License-Identifier: BSD-3-Clause
# gpu: everything that touches the GPU, behind one small interface: device
# limits, NVRTC compilation and its cache, loading, workspace, launch, timing.
noinst_LIBRARIES += gpu/libgpu.a
gpu_libgpu_a_SOURCES = \
	gpu/gpu.c gpu/gpu.h \
	gpu/compile.c gpu/compile.h gpu/kernel_sources.h \
	gpu/timing.c gpu/timing.h \
	gpu/floor.c gpu/floor.h \
	gpu/cublas_symv.c gpu/cublas_symv.h
nodist_gpu_libgpu_a_SOURCES = gpu/kernel_sources.c
