# sieve: plain C, no CUDA. (Module rules and tests to be added.)
noinst_LIBRARIES += sieve/libsieve.a
sieve_libsieve_a_SOURCES = sieve/sieve_placeholder.c
