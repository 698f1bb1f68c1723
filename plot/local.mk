# SPDX-License-Identifier: BSD-3-Clause
# plot: figures drawn by gnuplot: running it safely (gnuplot.h) and the
# figure of a fit (fit_figure.h).
noinst_LIBRARIES += plot/libplot.a
plot_libplot_a_SOURCES = plot/gnuplot.c plot/gnuplot.h plot/fit_figure.c plot/fit_figure.h
