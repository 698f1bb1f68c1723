# SPDX-License-Identifier: BSD-3-Clause
# measure: the tuning space, the sweep (a worker process per GPU that is
# restarted when a candidate faults or hangs), its stages (sweep, dense),
# the merge of a sharded sweep, and the CPU reference that verifies every
# result.
noinst_LIBRARIES += measure/libmeasure.a
measure_libmeasure_a_SOURCES = \
	measure/space.c measure/space.h \
	measure/sweep.c measure/sweep.h measure/worker.c measure/worker.h \
	measure/sweep_stage.c measure/sweep_stage.h \
	measure/dense.c measure/dense.h \
	measure/shard.c measure/shard.h measure/merge.c measure/merge.h \
	measure/adaptive.c measure/adaptive.h \
	measure/reference.c measure/reference.h \
	measure/harness.c measure/harness.h
# the CPU reference fills and scales the sweep's largest sizes with OpenMP threads
measure_libmeasure_a_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
