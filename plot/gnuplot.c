/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gnuplot.c - drawing figures with gnuplot (see gnuplot.h).
 */
#include "gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../db/db.h"
#include "config.h"
#include "fit.h"
#include "util.h"

static const gp_format gp_formats[] = {
  {".png", "pngcairo", "plot.png", "\x89PNG\r\n\x1a\n", 8},
  {".pdf", "pdfcairo", "plot.pdf", "%PDF-", 5},
  {".svg", "svg", "plot.svg", "<?xml", 5},
};

const gp_format *gp_format_of(const char *path)
{
  const char *dot = path ? strrchr(path, '.') : NULL;
  if (!dot || strchr(dot, '/')) return NULL;
  for (size_t i = 0; i < sizeof gp_formats / sizeof *gp_formats; i++)
    if (!strcasecmp(dot, gp_formats[i].ext)) return &gp_formats[i];
  return NULL;
}

const char *gp_program(void)
{
  const char *g = getenv("SYMVTUNE_GNUPLOT");
  return g ? g : GNUPLOT_PATH;
}

void gp_text(char *dst, size_t size, const char *src)
{
  size_t j = 0;
  if (!size) return;
  for (; src && *src && j + 1 < size; src++) {
    unsigned char ch = (unsigned char)*src;
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             strchr(" :,.()_+-/=%<>", ch);
    dst[j++] = ok ? (char)ch : '?';
  }
  dst[j] = 0;
}

void gp_terminal(FILE *gp, const gp_format *f, int width, int height)
{
  if (!strcmp(f->terminal, "pngcairo"))
    fprintf(gp, "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
                "  set terminal pngcairo size %d,%d font \",10\"\n"
                "} else {\n"
                "  set terminal png size %d,%d\n"
                "}\n", width, height, width, height);
  else if (!strcmp(f->terminal, "pdfcairo"))
    fprintf(gp, "if (strstrt(GPVAL_TERMINALS, \"pdfcairo\") == 0) {\n"
                "  print \"this gnuplot has no pdfcairo terminal: draw a .png or .svg, or install a gnuplot built "
                "with cairo\"\n"
                "  exit status 3\n"
                "}\n"
                "set terminal pdfcairo size %.2fin,%.2fin font \",9\"\n", width / 100.0, height / 100.0);
  else
    fprintf(gp, "set terminal svg size %d,%d dynamic font \"sans,10\"\n", width, height);
  fprintf(gp, "set termoption noenhanced\nset output \"%s\"\n", f->image);
}

int gp_workdir(const char *cmd, char *dir, size_t size)
{
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, size, "%s/symvtune-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", cmd);
  if (mkdtemp(dir)) return 0;
  fprintf(stderr, "symvtune %s: cannot create a temporary directory %s: %s\n", cmd, dir, strerror(errno));
  dir[0] = 0;
  return -1;
}

/* Runs `gnuplot plot.gp` in dir, its output into dir/gnuplot.log.
 * Returns its wait status, or -1 if it could not be started (errno). */
static int gp_run(const char *gnuplot, const char *dir)
{
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = -1;
    if (chdir(dir) == 0) fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) _exit(126);
    dup2(fd, 1), dup2(fd, 2), close(fd);
    execlp(gnuplot, gnuplot, "plot.gp", (char *)NULL);
    fprintf(stderr, "cannot run %s: %s\n", gnuplot, strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return st;
}

/* Prints the last lines of dir/gnuplot.log to stderr, indented. */
static void gp_show_log(const char *dir)
{
  char p[4200], line[512];
  snprintf(p, sizeof p, "%s/gnuplot.log", dir);
  FILE *f = fopen(p, "r");
  if (!f) return;
  char tail[8][512];
  int n = 0;
  while (fgets(line, sizeof line, f)) snprintf(tail[n++ % 8], sizeof tail[0], "%s", line);
  fclose(f);
  for (int i = n > 8 ? n - 8 : 0; i < n; i++) fprintf(stderr, "  gnuplot: %s", tail[i % 8]);
}

/* 1 if the file at path begins with f's magic bytes. */
static int gp_has_magic(const char *path, const gp_format *f)
{
  unsigned char head[16];
  FILE *in = fopen(path, "rb");
  if (!in) return 0;
  size_t got = fread(head, 1, f->nmagic, in);
  fclose(in);
  return got == f->nmagic && !memcmp(head, f->magic, f->nmagic);
}

int gp_draw(const char *cmd, const char *gnuplot, const char *dir, const gp_format *f, const char *out)
{
  if (!gnuplot[0]) {
    fprintf(stderr, "symvtune %s: gnuplot was not found when symvtune was configured: install it (Debian: "
                    "apt-get install gnuplot-nox) and rerun configure, or set SYMVTUNE_GNUPLOT\n", cmd);
    return -1;
  }
  int st = gp_run(gnuplot, dir);
  if (st == -1) {
    fprintf(stderr, "symvtune %s: cannot start %s: %s\n", cmd, gnuplot, strerror(errno));
    return -1;
  }
  char img[4200];
  snprintf(img, sizeof img, "%s/%s", dir, f->image);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !gp_has_magic(img, f)) {
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
      fprintf(stderr, "symvtune %s: cannot run gnuplot '%s' (install it, e.g. apt-get install gnuplot-nox, or "
                      "set SYMVTUNE_GNUPLOT)\n", cmd, gnuplot);
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
      fprintf(stderr, "symvtune %s: gnuplot (%s) wrote no %s image:\n", cmd, gnuplot, f->ext + 1);
    else
      fprintf(stderr, "symvtune %s: gnuplot (%s) failed (%s %d) and wrote no image:\n", cmd, gnuplot,
              WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    gp_show_log(dir);
    return -1;
  }
  if (symv_replace_file(img, out)) {
    fprintf(stderr, "symvtune %s: cannot write %s: %s\n", cmd, out, strerror(errno));
    return -1;
  }
  return 0;
}

int gp_keep(const char *cmd, const char *dir, const char *const *names, size_t n, const char *keep)
{
  if (mkdir(keep, 0777) && errno != EEXIST) {
    fprintf(stderr, "symvtune %s: cannot create %s: %s\n", cmd, keep, strerror(errno));
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    char src[4200], dst[4200];
    snprintf(src, sizeof src, "%s/%s", dir, names[i]);
    snprintf(dst, sizeof dst, "%s/%s", keep, names[i]);
    if (access(src, F_OK)) continue;
    if (symv_replace_file(src, dst)) {
      fprintf(stderr, "symvtune %s: cannot write %s: %s\n", cmd, dst, strerror(errno));
      return -1;
    }
  }
  return 0;
}

void gp_cleanup(const char *dir, const char *const *names, size_t n)
{
  if (!dir[0]) return;
  char p[4200];
  for (size_t i = 0; i < n; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    unlink(p);
  }
  for (size_t i = 0; i < sizeof gp_formats / sizeof *gp_formats; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, gp_formats[i].image);
    unlink(p);
  }
  snprintf(p, sizeof p, "%s/gnuplot.log", dir);
  unlink(p);
  rmdir(dir);
}

const char *gp_family_color(const char *family)
{
  static const struct { const char *family, *color; } known[] = {
    {"atomic", "#1f77b4"}, {"atomic_red", "#ff7f0e"}, {"atomic_w", "#2ca02c"},
    {"lu", "#d62728"},     {"panel", "#9467bd"},      {"pipe", "#8c564b"}};
  static const char *const others[] = {"#e377c2", "#17becf", "#bcbd22", "#393b79"};
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (!strcmp(family, known[i].family)) return known[i].color;
  unsigned h = 0;
  for (const char *p = family; *p; p++) h = h * 31 + (unsigned char)*p;
  return others[h % (sizeof others / sizeof *others)];
}

const char *gp_kernel_color(const char *kernel, const char *family)
{
  if (!strcmp(kernel, DB_KERNEL_CUBLAS)) return "#000000";
  if (!strcmp(kernel, DB_KERNEL_CUBLAS_ATOMICS)) return "#777777";
  return gp_family_color(family);
}

void gp_rule_marks(FILE *gp, const db_rule *rules, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    const db_rule *r = &rules[i];
    char label[100], safe[100];
    fit_label(r->kernel, &r->cand, label, sizeof label);
    gp_text(safe, sizeof safe, label);
    if (i > 0)
      fprintf(gp, "set arrow from %g, graph 0 to %g, graph 1 nohead dt 3 lw 1 lc rgb \"#555555\" back\n",
              r->n_start - 0.5, r->n_start - 0.5);
    fprintf(gp, "set label \"%s\" at %.6g, graph 0.98 rotate by 90 right font \",8\" tc rgb \"%s\" front\n", safe,
            sqrt((double)r->n_start * r->n_end), gp_kernel_color(r->kernel, symv_family_name(r->cand.p.family)));
  }
}
