/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_devices.c - `symvtune devices`: the GPUs and the limits tuning depends on. */
#include <getopt.h>
#include <stdio.h>
#include "cli.h"
#include "compile.h"
#include "gpu.h"
#include "symv_error.h"

static void help(void)
{
  puts("Usage: symvtune devices [--help]\n"
       "Lists the CUDA devices with the limits tuning depends on: SMs, shared memory per SM and\n"
       "per block, registers, blocks and threads per SM, L2, memory, and the memory bandwidth\n"
       "computed from the clocks (2 x memory clock x bus width).\n"
       "Exit status: 0, or 3 when there is no GPU.");
}

static int run(int argc, char **argv)
{
  static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  cli_opts o = {.cmd = "devices", .options = opts, .help = help};
  cli_getopt(&o, argc, argv); /* no option of its own: one call reads them all */
  if (o.status != CLI_GO_ON) return o.status;
  int n;
  int nv = symv_nvrtc_version();
  if (symv_device_count(&n)) {
    fprintf(stderr, "symvtune devices: no CUDA device found (%s)\n", symv_cuda_error_text());
    return SYMV_EXIT_NO_GPU;
  }
  for (int i = 0; i < n; i++) {
    symv_device_info d;
    int rc = symv_device_query(i, &d);
    if (rc) {
      fprintf(stderr, "symvtune devices: device %d: %s (%s)\n", i, symv_strerror(rc), symv_cuda_error_text());
      return SYMV_EXIT_ERROR;
    }
    printf("device %d: %s\n", i, d.name);
    printf("  compute capability       %d.%d (sm_%d%d)\n", d.cc_major, d.cc_minor, d.cc_major, d.cc_minor);
    printf("  SMs                      %d\n", d.sm_count);
    printf("  shared memory per SM     %zu bytes\n", d.smem_per_sm);
    printf("  shared memory per block  %zu bytes (opt-in %zu, %zu reserved per block)\n", d.smem_per_block,
           d.smem_per_block_optin, d.smem_reserved_per_block);
    printf("  registers                %d per SM, %d per block\n", d.regs_per_sm, d.regs_per_block);
    printf("  blocks per SM            %d\n", d.max_blocks_per_sm);
    printf("  threads                  %d per SM, %d per block\n", d.max_threads_per_sm, d.max_threads_per_block);
    printf("  L2 cache                 %.1f MB\n", d.l2_bytes / 1e6);
    printf("  memory                   %.1f GB, %d-bit bus at %d MHz: %.0f GB/s from the clocks\n",
           d.global_mem / 1e9, d.bus_width_bits, d.mem_clock_khz / 1000, d.peak_gbs);
    printf("  driver / runtime / NVRTC %d.%d / %d.%d / %d.%d\n", d.driver_version / 1000,
           d.driver_version % 1000 / 10, d.runtime_version / 1000, d.runtime_version % 1000 / 10, nv / 1000,
           nv % 1000 / 10);
  }
  return SYMV_EXIT_OK;
}

const symv_command cmd_devices_entry = {"devices", "list GPUs and the limits tuning depends on", run};
