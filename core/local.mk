# SPDX-License-Identifier: BSD-3-Clause
# core: what every stage shares and nothing of the GPU: the status codes,
# the kernel families and their parameters, the progress line.
noinst_LIBRARIES += core/libcore.a
core_libcore_a_SOURCES = \
	core/symv_error.c core/symv_error.h \
	core/params.c core/params.h \
	core/routine.c core/routine.h \
	core/progress.c core/progress.h \
	core/util.c core/util.h
