# db: plain C, no CUDA. (Module rules and tests to be added.)
noinst_LIBRARIES += db/libdb.a
db_libdb_a_SOURCES = db/db_placeholder.c
