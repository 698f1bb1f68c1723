# SPDX-License-Identifier: BSD-3-Clause
# fit: the fit stage, no GPU: the dense samples of the champions -> d-spline
# curves (dspline/) -> dispatch rules, stored in the database.
noinst_LIBRARIES += fit/libfit.a
fit_libfit_a_SOURCES = fit/fit.c fit/fit.h
