# SPDX-License-Identifier: BSD-3-Clause
dist_man_MANS += man/symvtune.1
dist_man_MANS += man/libsymv.3
dist_man_MANS += man/symv-wisdom.5
