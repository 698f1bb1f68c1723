# SPDX-License-Identifier: BSD-3-Clause
# doctor: the diagnosis of `symvtune doctor`: does a program's SYMV/HEMV
# call reach libsymv, and if not, why (no GPU; the program is run as it is).
noinst_LIBRARIES += doctor/libdoctor.a
doctor_libdoctor_a_SOURCES = doctor/doctor.c doctor/doctor.h
