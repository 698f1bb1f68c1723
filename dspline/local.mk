# dspline: plain C, no CUDA. (Module rules and tests to be added.)
noinst_LIBRARIES += dspline/libdspline.a
dspline_libdspline_a_SOURCES = dspline/dspline_placeholder.c
