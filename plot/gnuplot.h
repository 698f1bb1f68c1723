/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gnuplot.h - drawing figures with gnuplot, for `symvtune plot` and
 * `symvtune validate --figure`: the output format from the file's extension,
 * a private temporary directory for the script and its data, gnuplot run
 * there by fork/exec (no shell) on a script that names only files of that
 * directory, the image checked by its first bytes and copied over the
 * output whole (a reader sees the old file or the new one).
 */
#ifndef SYMV_GNUPLOT_H
#define SYMV_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

/* The extensions gp_format_of knows, for messages. */
#define GP_EXTENSIONS ".png, .pdf or .svg"

/* One output format. */
typedef struct gp_format {
  const char *ext;              /* ".png", ".pdf", ".svg" */
  const char *terminal;         /* the gnuplot terminal: "pngcairo", "pdfcairo", "svg" */
  const char *image;            /* the image's name in the working directory: "plot.png" */
  const char *magic;            /* the first bytes of such a file */
  size_t nmagic;                /* their number */
} gp_format;

/* gp_format_of: the format of an output file by its extension (case
 * ignored): .png (pngcairo, or gnuplot's png where pngcairo is missing),
 * .pdf (pdfcairo), .svg (svg); NULL for any other (or none). */
const gp_format *gp_format_of(const char *path);

/* gp_program: the gnuplot to run: $SYMVTUNE_GNUPLOT if set, else the one
 * configure found; "" when there is none. Never NULL. */
const char *gp_program(void);

/* gp_text: src reduced to characters that are inert in a double-quoted
 * gnuplot string with enhanced text off (letters, digits, " :,.()_+-/=%<>"),
 * others become '?', into dst (size bytes, always terminated). For text
 * taken from a database (device name, families). */
void gp_text(char *dst, size_t size, const char *src);

/* gp_terminal: writes to the script the lines that choose f's terminal at
 * width x height pixels (PDF: at 100 pixels per inch) and set the output to
 * f->image, enhanced text off. Where pdfcairo is missing the script prints
 * why and exits with status 3. */
void gp_terminal(FILE *gp, const gp_format *f, int width, int height);

/* gp_workdir: a fresh private directory under $TMPDIR (or /tmp) into dir
 * (size bytes). 0, or -1 with a message on stderr naming cmd. */
int gp_workdir(const char *cmd, char *dir, size_t size);

/*
 * gp_draw: runs `gnuplot plot.gp` in dir (its output into dir/gnuplot.log),
 * checks that it wrote dir/f->image starting with f->magic, and copies that
 * over `out`. 0, or -1 with a message on stderr naming cmd (gnuplot
 * missing: how to install it; failing: the last lines of its log).
 */
int gp_draw(const char *cmd, const char *gnuplot, const char *dir, const gp_format *f, const char *out);

/* gp_keep: copies the files names[0..n) that exist in dir into keep
 * (created if missing), for people who want to edit the figure. 0, or -1
 * with a message on stderr naming cmd. */
int gp_keep(const char *cmd, const char *dir, const char *const *names, size_t n, const char *keep);

/* gp_cleanup: removes the files names[0..n) from dir, the image and log
 * gp_draw may have left, and dir itself; nothing when dir is "". */
void gp_cleanup(const char *dir, const char *const *names, size_t n);

/* gp_family_color: the colour ("#rrggbb") of a kernel family in every
 * figure, fixed so that figures of several routines agree: one each for
 * the families of the tuning space, the rest share a few by a hash of the
 * name. */
const char *gp_family_color(const char *family);

/* gp_kernel_color: the colour of a kernel (a DB_KERNEL_ name; the family
 * for a candidate): black for cuBLAS, grey for cuBLAS with atomics, else
 * gp_family_color(family). */
const char *gp_kernel_color(const char *kernel, const char *family);

struct db_rule;

/* gp_rule_marks: writes to the script a dotted vertical line at each
 * boundary between rules[0..n) and each interval's kernel as a label at
 * its geometric middle, rotated, at the top of the graph, in its kernel's
 * colour (text reduced by gp_text). */
void gp_rule_marks(FILE *gp, const struct db_rule *rules, size_t n);

#endif
