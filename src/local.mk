# SPDX-License-Identifier: BSD-3-Clause
# src: the CLI, one cmd_*.c per subcommand. libcli.a holds everything but
# main() so that tests can run the commands in their own process.
noinst_LIBRARIES += src/libcli.a
src_libcli_a_SOURCES = \
	src/cli.c src/cli.h \
	src/cmd_devices.c src/cmd_check.c src/cmd_time.c src/cmd_worker.c src/cmd_sweep.c src/cmd_merge.c src/cmd_validate.c \
	src/cmd_rank.c src/cmd_fit.c src/cmd_rules.c src/cmd_plot.c \
	src/cmd_build.c src/cmd_bench.c src/cmd_tune.c src/cmd_export.c src/cmd_restamp.c \
	src/json.c src/json.h src/bench_json.c src/bench_json.h src/cmd_doctor.c

bin_PROGRAMS += src/symvtune
src_symvtune_SOURCES = src/main.c
src_symvtune_LDADD = $(SYMV_LIBS) $(SYMV_EXT_LIBS)
