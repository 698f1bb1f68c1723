# SPDX-License-Identifier: BSD-3-Clause
# validate: the validation stage: the rules judged at sizes no stage
# sampled, timed through the sweep's worker or read from a stored run.
noinst_LIBRARIES += validate/libvalidate.a
validate_libvalidate_a_SOURCES = validate/validate.c validate/validate.h validate/figure.c
