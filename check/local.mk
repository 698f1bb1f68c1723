# SPDX-License-Identifier: BSD-3-Clause
# check: the stage of `symvtune check`: kernel candidates proved right
# against cuBLAS and the CPU's reference over a grid of argument cases.
noinst_LIBRARIES += check/libcheck.a
check_libcheck_a_SOURCES = check/check.c check/check.h
