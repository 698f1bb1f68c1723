/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_table.c - the rules compiled into the library (source.h): the
 * table of symv_table.c that `symvtune build` writes from a fit's rules,
 * for the GPU they were tuned on, with the CUBINs NVRTC made of their
 * kernels as the tuner did. A device of another name, compute capability or
 * SM count goes to cuBLAS; on the tuned GPU every candidate is loaded on the
 * device's first call, and one that cannot run there sends its sizes to
 * cuBLAS.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "source.h"
#include "symv_error.h"

/* The compiled-in table as a view. */
static libsymv_rules builtin;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static void builtin_init(void)
{
  builtin = (libsymv_rules){symv_table_candidates, symv_table_ncandidates, symv_table_rules, symv_table_routines,
                            &symv_table_device, NULL};
}

static void table_open(void) { pthread_once(&builtin_once, builtin_init); }

/* 1 if d is the GPU the rules were tuned on: its name, compute capability
 * and SM count. */
static int device_is_tuned(const symv_device_info *d)
{
  const symv_table_info *t = &symv_table_device;
  return !strcmp(d->name, t->name) && d->cc_major == t->cc_major && d->cc_minor == t->cc_minor &&
         d->sm_count == t->sm_count;
}

/* Device dev, of properties *d, on its first call: is it the tuned GPU;
 * load every candidate's CUBIN there, each as a library of its own (so
 * candidates that share a CUBIN get shared-memory carveouts of their own),
 * sized and checked for its MULTIPLICITY by symv_kernel_load. */
static int table_setup(int dev, const symv_device_info *d, libsymv_device *e)
{
  const symv_table_info *t = &symv_table_device;
  if (!device_is_tuned(d)) {
    libsymv_notice("device %d is a %s (sm_%d%d, %d SMs), not the %s (sm_%d%d, %d SMs) this library was tuned for: "
                   "its calls go to cuBLAS",
                   dev, d->name, d->cc_major, d->cc_minor, d->sm_count, t->name, t->cc_major, t->cc_minor,
                   t->sm_count);
    return LIBSYMV_WHY_UNMATCHED;
  }
  const int nc = symv_table_ncandidates;
  if (libsymv_device_alloc(e, nc)) return LIBSYMV_WHY_NO_MEMORY;
  for (int i = 0; i < nc; i++) {
    const symv_table_candidate *c = &symv_table_candidates[i];
    symv_cubin code = {.data = (void *)c->cubin, .size = c->cubin_size};
    char why[512] = "", label[64];
    snprintf(code.name, sizeof code.name, "%s", c->name);
    int rc = symv_kernel_load(&c->p, &code, d, &e->k[i], why, sizeof why);
    e->ok[i] = rc == 0;
    if (rc) {
      symv_params_format(&c->p, label, sizeof label);
      libsymv_notice("kernel %s (%s) cannot run on device %d: %s: %s; its sizes go to cuBLAS", c->name, label, dev,
                     symv_strerror(rc), why);
    }
  }
  return LIBSYMV_WHY_NONE; /* k and ok are complete */
}

/* The table, whatever the device: a device is looked at when a rule names
 * one of its kernels (table_kernel). */
static const libsymv_rules *table_rules(int *dev, libsymv_note *note)
{
  (void)dev, (void)note;
  table_open();
  return &builtin;
}

/* The prepared kernel of candidate `cand` on device `dev`, or NULL if the
 * device or the kernel is not covered (then, when note is non-NULL, why). */
static const symv_kernel *table_kernel(const libsymv_rules *v, int dev, int cand, libsymv_note *note)
{
  (void)v; /* the compiled-in table */
  int state;
  libsymv_device *e = libsymv_device_of(dev, &state, note);
  if (!e) return NULL;
  if (state == 1 && e->ok[cand]) return &e->k[cand];
  if (state == 1) {
    NOTE(note, "cuBLAS", "fallback: kernel %s cannot run on device %d", symv_table_candidates[cand].name, dev);
  } else if (note) {
    char unmatched[160];
    snprintf(unmatched, sizeof unmatched, "is not the %s (sm_%d%d, %d SMs) the rules were tuned on",
             symv_table_device.name, symv_table_device.cc_major, symv_table_device.cc_minor,
             symv_table_device.sm_count);
    libsymv_device_fallback(dev, e, unmatched, note);
  }
  return NULL;
}

/* The table's rules and their identity, and whether device dev is the
 * tuned GPU, looked at as a call would (without preparing its kernels). */
static void table_info(symvInfo *info, int dev)
{
  table_open();
  libsymv_info_rules(info, &builtin);
  info->rules_id = symv_table_id.rules_id;
  info->fits = symv_table_id.fits;
  info->wisdom_report = "";
  info->wisdom_dir = "";
  if (dev < 0) return;
  int matched = libsymv_device_matched(dev);
  if (matched < 0) {
    symv_device_info d;
    if (symv_device_query(dev, &d) == 0) matched = device_is_tuned(&d);
    else cudaGetLastError();
  }
  info->device_matched = matched;
}

/* The candidates loaded on device dev were libraries of their own; the
 * table itself is static. */
static void table_release(int dev, libsymv_device *e)
{
  (void)dev;
  for (int i = 0; e->k && e->ok && i < symv_table_ncandidates; i++)
    if (e->ok[i]) symv_kernel_unload(&e->k[i]);
}
static void table_close(void) {}

/* The source this library links (source.h). */
const libsymv_source libsymv_rules_source = {.open = table_open, .setup = table_setup, .rules = table_rules,
                                             .kernel = table_kernel, .info = table_info,
                                             .release = table_release, .close = table_close};
