/* SPDX-License-Identifier: BSD-3-Clause */
/* test_device.h - a GPU's limits for the tests that enumerate the space
 * without one (test_space.c, test_shard.c). */
#ifndef SYMV_TEST_DEVICE_H
#define SYMV_TEST_DEVICE_H
#include <stdio.h>
#include "gpu.h"

/** test_hopper: an H100/H200-like device: compute capability 9.0, 132 SMs,
 *  the sm_90 limits of shared memory (bytes), registers, blocks and
 *  threads, a 50 MiB L2. */
static inline symv_device_info test_hopper(void)
{
  symv_device_info d = {0};
  snprintf(d.name, sizeof d.name, "test GPU");
  d.cc_major = 9, d.sm_count = 132;
  d.smem_per_sm = 233472, d.smem_per_block = 49152, d.smem_per_block_optin = 232448;
  d.smem_reserved_per_block = 1024;
  d.regs_per_sm = 65536, d.regs_per_block = 65536;
  d.max_blocks_per_sm = 32, d.max_threads_per_sm = 2048, d.max_threads_per_block = 1024;
  d.l2_bytes = 50 << 20;
  return d;
}

#endif
