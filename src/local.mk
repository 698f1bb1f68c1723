# src: the CLI and the GPU-facing code (device limits, compile, launch, time,
# verify). libsymvcore.a holds everything but main() so tests can link it.
noinst_LIBRARIES += src/libsymvcore.a
src_libsymvcore_a_SOURCES = \
	src/symv_error.c src/symv_error.h

bin_PROGRAMS += src/symvtune
src_symvtune_SOURCES = src/main.c
src_symvtune_LDADD = src/libsymvcore.a sieve/libsieve.a dspline/libdspline.a db/libdb.a \
	$(CUDA_LDFLAGS) $(CUDA_LIBS) $(OPENBLAS_LIBS) $(LAPACKE_LIBS) $(SQLITE_LIBS) -lm -lpthread
