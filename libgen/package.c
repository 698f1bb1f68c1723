/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * package.c - the generated library's pkg-config and CMake files, and the
 * checks and the rename by which a finished build takes DIR's place
 * (package.h).
 */
#define _GNU_SOURCE /* renameat2, nftw's FTW_PHYS */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "package.h"
#include "generate.h"
#include "text.h"
#include "util.h"

/* The flags that link libsymv so that it cannot silently drop out: kept
 * against --as-needed (a program that names no symv* function still needs
 * it, for the cuBLAS entry points it stands in front of) and listed before
 * cuBLAS, so that the dynamic linker binds cublasDsymv_v2 ... to it. */
#define KEEP_LINKED_ON "-Wl,--push-state,--no-as-needed"
#define KEEP_LINKED_OFF "-Wl,--pop-state"

/* dir/lib/pkgconfig/libsymv.pc: relocatable (prefix is found from the
 * file's own folder, ${pcfiledir}); the variable rpath (the RUNPATH of
 * libdir, emptied by the Makefile's install); CUDA through the toolkit's
 * modules cublas-V and cudart-V (V = cuda_version), or, with cuda_version
 * NULL, -lcublas -lcudart from the linker's own search path. */
int libgen_write_pc(const libgen_plan *pl, const char *dir, const char *cuda_version)
{
  char path[PATH_MAX + 128];
  libgen_sbuf b = {0};
  libgen_sb_printf(&b, "# " LIBGEN_GENERATED "symvtune build\n# " LIBGEN_SPDX "\n");
  libgen_sb_printf(&b, "# Relocatable: the prefix is this file's folder's grandparent. The Libs keep libsymv\n"
                       "# against --as-needed and put it before cuBLAS, whose SYMV and HEMV it stands in for.\n"
                       "# rpath: the RUNPATH a program gets (pkg-config --define-variable=rpath= drops it).\n");
  if (cuda_version)
    libgen_sb_printf(&b, "# CUDA: the toolkit's pkg-config modules cublas-${cudaversion}, cudart-${cudaversion}\n"
                         "# (PKG_CONFIG_PATH names their folder, e.g. $CUDA_HOME/pkgconfig).\n");
  libgen_sb_printf(&b, "prefix=${pcfiledir}/../..\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n"
                       "rpath=-Wl,-rpath,${libdir}\n");
  if (cuda_version) libgen_sb_printf(&b, "cudaversion=%s\n", cuda_version);
  libgen_sb_printf(&b, "# the rules the library holds (empty: read from wisdom files at run time) and what generated\n"
                       "# it: pkg-config --variable=rules_id libsymv (man libsymv(3), IDENTITY)\n"
                       "rules_id=%s\nsymvtune_version=%s\n", pl->rules_id, PACKAGE_VERSION);
  if (pl->wisdom) {
    libgen_sb_printf(&b, "\nName: libsymv\nDescription: SYMV and HEMV tuned by symvtune, by the rules of the wisdom "
                  "files of each GPU model, drop-ins for cuBLAS's\nVersion: %s\n", LIBGEN_VERSION);
  } else {
    libgen_sb_printf(&b, "\nName: libsymv\nDescription: SYMV and HEMV tuned by symvtune for ");
    for (const char *c = pl->dev.name; *c; c++) /* the database's text: printable ASCII, no $ or # */
      libgen_sb_printf(&b, "%c", *c >= 0x20 && *c < 0x7f && *c != '$' && *c != '#' ? *c : '?');
    libgen_sb_printf(&b, " (sm_%d%d, %d SMs), drop-ins for cuBLAS's\nVersion: %s\n", pl->dev.cc_major, pl->dev.cc_minor,
              pl->dev.sm_count, LIBGEN_VERSION);
  }
  if (cuda_version) libgen_sb_printf(&b, "Requires: cublas-${cudaversion} cudart-${cudaversion}\n");
  libgen_sb_printf(&b, "Libs: -L${libdir} ${rpath} " KEEP_LINKED_ON " -lsymv " KEEP_LINKED_OFF "%s\n"
                       "Cflags: -I${includedir}\n", cuda_version ? "" : " -lcublas -lcudart");
  snprintf(path, sizeof path, "%s/lib/pkgconfig/libsymv.pc", dir);
  int rc = b.failed ? -1 : libgen_write_text(path, b.s);
  free(b.s);
  return rc;
}

/* dir/lib/cmake/symv/symvConfig.cmake and symvConfigVersion.cmake:
 * find_package(symv) gives the imported shared library symv::symv, which
 * links as libsymv.pc does, with CUDA::cublas and CUDA::cudart of
 * find_dependency(CUDAToolkit); relocatable (paths from the file's own
 * folder). */
int libgen_write_cmake(const libgen_plan *pl, const char *dir)
{
  char path[PATH_MAX + 128];
  libgen_sbuf b = {0};
  libgen_sb_printf(&b, "# " LIBGEN_GENERATED "symvtune build\n# " LIBGEN_SPDX "\n");
  char tuned[64];
  if (pl->wisdom) snprintf(tuned, sizeof tuned, "by the wisdom files of each GPU model");
  else snprintf(tuned, sizeof tuned, "for sm_%d%d with %d SMs", pl->dev.cc_major, pl->dev.cc_minor, pl->dev.sm_count);
  libgen_sb_printf(&b, "#\n# find_package(symv) gives the imported target symv::symv: libsymv %s, SYMV and HEMV\n"
                "# tuned %s, drop-ins for cuBLAS's. Linking it links libsymv kept against\n"
                "# --as-needed and before cuBLAS (CUDA::cublas, CUDA::cudart of find_package(CUDAToolkit)), so\n"
                "# that the program's cublas{S,D,C,Z}symv_v2 and cublas{C,Z}hemv_v2 calls bind to libsymv.\n"
                "# Relocatable: every path is found from this file's folder, DIR/lib/cmake/symv.\n",
            LIBGEN_VERSION, tuned);
  libgen_sb_printf(&b, "if(CMAKE_VERSION VERSION_LESS 3.17)\n"
                "  set(symv_FOUND FALSE)\n"
                "  set(symv_NOT_FOUND_MESSAGE \"symv needs CMake 3.17 or later (FindCUDAToolkit)\")\n"
                "  return()\n"
                "endif()\n"
                "get_filename_component(_symv_prefix \"${CMAKE_CURRENT_LIST_DIR}/../../..\" ABSOLUTE)\n"
                "include(CMakeFindDependencyMacro)\n"
                "find_dependency(CUDAToolkit) # CUDAToolkit_ROOT, CUDA_PATH or nvcc in PATH pick the toolkit\n"
                "# libsymv also goes in the link options, which come before the objects and every library\n"
                "# on the link line: first, wherever the program lists cuBLAS (CUDA::cublas before\n"
                "# symv::symv too). SHELL: keeps the group whole when CMake merges options. A program's\n"
                "# RUNPATH is CMake's own: the library's folder in its build tree, INSTALL_RPATH once installed.\n"
                "if(NOT TARGET symv::symv)\n"
                "  add_library(symv::symv SHARED IMPORTED)\n"
                "  set_target_properties(symv::symv PROPERTIES\n"
                "    IMPORTED_LOCATION \"${_symv_prefix}/lib/" LIBGEN_REALNAME "\"\n"
                "    IMPORTED_SONAME \"" LIBGEN_SONAME "\"\n"
                "    INTERFACE_INCLUDE_DIRECTORIES \"${_symv_prefix}/include\"\n"
                "    INTERFACE_LINK_OPTIONS \"SHELL:" KEEP_LINKED_ON " '${_symv_prefix}/lib/" LIBGEN_REALNAME "' "
                KEEP_LINKED_OFF "\"\n"
                "    INTERFACE_LINK_LIBRARIES \"CUDA::cublas;CUDA::cudart\")\n"
                "endif()\n"
                "set(symv_LIBRARY \"${_symv_prefix}/lib/" LIBGEN_REALNAME "\")\n"
                "set(symv_INCLUDE_DIR \"${_symv_prefix}/include\")\n"
                "unset(_symv_prefix)\n");
  snprintf(path, sizeof path, "%s/lib/cmake/symv/symvConfig.cmake", dir);
  int rc = b.failed ? -1 : libgen_write_text(path, b.s);
  free(b.s);
  if (rc) return rc;
  libgen_sbuf v = {0};
  libgen_sb_printf(&v, "# " LIBGEN_GENERATED "symvtune build\n# " LIBGEN_SPDX "\n");
  libgen_sb_printf(&v, "# libsymv %s: compatible with a request of the same major version, not newer.\n"
                "set(PACKAGE_VERSION \"%s\")\n"
                "if(NOT PACKAGE_FIND_VERSION)\n"
                "  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
                "elseif(PACKAGE_FIND_VERSION_MAJOR STREQUAL \"%d\" AND NOT PACKAGE_FIND_VERSION VERSION_GREATER "
                "PACKAGE_VERSION)\n"
                "  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
                "  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)\n"
                "    set(PACKAGE_VERSION_EXACT TRUE)\n"
                "  endif()\n"
                "else()\n"
                "  set(PACKAGE_VERSION_COMPATIBLE FALSE)\n"
                "endif()\n"
                "if(NOT CMAKE_SIZEOF_VOID_P STREQUAL \"8\") # the library is 64-bit\n"
                "  set(PACKAGE_VERSION \"${PACKAGE_VERSION} (64bit)\")\n"
                "  set(PACKAGE_VERSION_UNSUITABLE TRUE)\n"
                "endif()\n",
            LIBGEN_VERSION, LIBGEN_VERSION, SYMV_VERSION_MAJOR);
  snprintf(path, sizeof path, "%s/lib/cmake/symv/symvConfigVersion.cmake", dir);
  rc = v.failed ? -1 : libgen_write_text(path, v.s);
  free(v.s);
  return rc;
}

/* The entries of DIR that build writes (share: the site's, carried over). */
static const char *const build_entries[] = {"src", "obj", "lib", "include", "share", "Makefile"};

/* DIR/share (the wisdom files a site dropped into a --wisdom library's
 * system folder, DIR/share/symv) is the site's, not build's: a new build
 * takes it over from the old DIR. Moves from/share to to/share if there is
 * one; 0, or -1 with a message printed. */
static int carry_share(const char *from, const char *to)
{
  char a[PATH_MAX + 16], b[PATH_MAX + 16];
  struct stat st;
  snprintf(a, sizeof a, "%s/share", from);
  snprintf(b, sizeof b, "%s/share", to);
  if (lstat(a, &st) && errno == ENOENT) return 0;
  if (rename(a, b)) {
    fprintf(stderr, "symvtune build: cannot keep %s (moving it to %s): %s\n", a, b, strerror(errno));
    return -1;
  }
  return 0;
}

/* The database's identity and whether a walk met it (nftw passes no user
 * data). */
static struct stat walk_db[4];
static int walk_ndb, walk_hit;

static int walk_find_db(const char *p, const struct stat *st, int flag, struct FTW *f)
{
  (void)p, (void)flag, (void)f;
  for (int i = 0; i < walk_ndb; i++)
    if (st->st_dev == walk_db[i].st_dev && st->st_ino == walk_db[i].st_ino) return walk_hit = 1;
  return 0;
}

/* 0 if the folder abs may be replaced by a new build: it does not exist, or
 * it is a folder holding only build's own entries (src, obj, lib, include,
 * share, Makefile), none of them the database or its -wal, -shm or -journal file. Else prints
 * why and returns -1. */
int libgen_dir_replaceable(const char *abs, const char *out, const char *dbpath)
{
  struct stat st;
  if (lstat(abs, &st)) {
    if (errno == ENOENT) return 0;
    fprintf(stderr, "symvtune build: --out %s: %s\n", out, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "symvtune build: --out %s exists and is not a folder: refusing to replace it\n", out);
    return -1;
  }
  DIR *dp = opendir(abs);
  if (!dp) {
    fprintf(stderr, "symvtune build: --out %s: %s\n", out, strerror(errno));
    return -1;
  }
  int rc = 0;
  for (struct dirent *e; rc == 0 && (e = readdir(dp));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    size_t i = 0;
    while (i < sizeof build_entries / sizeof *build_entries && strcmp(e->d_name, build_entries[i])) i++;
    if (i == sizeof build_entries / sizeof *build_entries) {
      fprintf(stderr, "symvtune build: --out %s holds '%s', which build does not write: refusing to replace the "
                      "folder (choose another --out, or empty it)\n", out, e->d_name);
      rc = -1;
    }
  }
  closedir(dp);
  if (rc) return rc;
  static const char *const sidecars[] = {"", "-wal", "-shm", "-journal"};
  walk_ndb = walk_hit = 0;
  for (int i = 0; *dbpath && i < 4; i++) { /* --wisdom: no database */
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s%s", dbpath, sidecars[i]);
    if (stat(p, &walk_db[walk_ndb]) == 0) walk_ndb++;
  }
  if (nftw(abs, walk_find_db, 16, FTW_PHYS) < 0 || walk_hit) {
    if (walk_hit)
      fprintf(stderr, "symvtune build: --out %s holds the database %s (an input of this command): refusing to "
                      "replace it\n", out, dbpath);
    else
      fprintf(stderr, "symvtune build: cannot read %s: %s\n", out, strerror(errno));
    return -1;
  }
  return 0;
}

/* The absolute name of the folder --out names, in abs: the folder a symbolic
 * link names if out is one, else out made absolute (its parent folders are
 * created). 0, or -1 with a message printed. */
int libgen_out_path(const char *out, char *abs, size_t len)
{
  char real[PATH_MAX], tmp[PATH_MAX], base[PATH_MAX];
  struct stat st;
  if (realpath(out, real)) return snprintf(abs, len, "%s", real) >= (int)len ? -1 : 0;
  if (errno != ENOENT || lstat(out, &st) == 0) { /* a link to nothing is refused too */
    fprintf(stderr, "symvtune build: --out %s: %s\n", out,
            errno == ENOENT ? "a symbolic link to nothing" : strerror(errno));
    return -1;
  }
  snprintf(tmp, sizeof tmp, "%s", out);
  snprintf(base, sizeof base, "%s", basename(tmp));
  snprintf(tmp, sizeof tmp, "%s", out);
  char *parent = dirname(tmp);
  if (!strcmp(base, ".") || !strcmp(base, "..") || !strcmp(base, "/")) {
    fprintf(stderr, "symvtune build: --out %s: not a folder name\n", out);
    return -1;
  }
  if (symv_mkdir_p(parent) || !realpath(parent, real)) {
    fprintf(stderr, "symvtune build: cannot create %s: %s\n", parent, strerror(errno));
    return -1;
  }
  if (snprintf(abs, len, "%s/%s", strcmp(real, "/") ? real : "", base) >= (int)len) {
    fprintf(stderr, "symvtune build: --out %s: name too long\n", out);
    return -1;
  }
  return 0;
}

/* Where a tree copy goes (nftw passes no user data). */
static const char *copy_from, *copy_to;
static int copy_errno;

static int copy_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
  (void)f;
  char dst[PATH_MAX + 256];
  if (snprintf(dst, sizeof dst, "%s%s", copy_to, p + strlen(copy_from)) >= (int)sizeof dst) {
    copy_errno = ENAMETOOLONG;
    return 1;
  }
  if (flag == FTW_D) {
    if (mkdir(dst, st->st_mode & 07777) && errno != EEXIST) return copy_errno = errno, 1;
    return 0;
  }
  if (flag == FTW_SL) { /* the library's version links */
    char target[PATH_MAX];
    ssize_t n = readlink(p, target, sizeof target - 1);
    if (n < 0) return copy_errno = errno, 1;
    target[n] = 0;
    if (symlink(target, dst)) return copy_errno = errno, 1;
    return 0;
  }
  if (flag != FTW_F) return copy_errno = EINVAL, 1; /* build writes only folders, files and the links above */
  int in = open(p, O_RDONLY), out = in < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_EXCL, st->st_mode & 07777);
  char buf[65536];
  ssize_t k = 0;
  if (in < 0 || out < 0) copy_errno = errno;
  while (!copy_errno && (k = read(in, buf, sizeof buf)) != 0)
    if ((k < 0 && errno != EINTR) || (k > 0 && symv_write_all(out, buf, (size_t)k))) copy_errno = errno;
  /* here copy_errno is 0 only if every byte of p was read and written */
  if (out >= 0 && close(out) && !copy_errno) copy_errno = errno;
  if (in >= 0) close(in);
  return copy_errno != 0;
}

/* The first error of the walk that flushes a tree to disk (nftw passes no
 * user data). */
static int sync_errno;

static int sync_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
  (void)st, (void)f;
  if (flag == FTW_SL) return 0; /* a link is written with its folder */
  int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || (fsync(fd) && errno != EINVAL)) sync_errno = errno; /* EINVAL: a file system with no flush */
  if (fd >= 0 && close(fd) && !sync_errno) sync_errno = errno;
  return sync_errno != 0;
}

/* Flushes every file and folder of the tree at path to disk (fsync), so
 * that a disk that is full, or fills while the data is written back, fails
 * here and not after the tree took DIR's place. 0, or -1 with errno set. */
static int sync_tree(const char *path)
{
  sync_errno = 0;
  if (nftw(path, sync_entry, 16, FTW_PHYS) && !sync_errno) sync_errno = errno ? errno : EIO;
  errno = sync_errno;
  return sync_errno ? -1 : 0;
}

/* Flushes the folder parent to disk, so that the rename that put the new
 * build in it lasts; a failure is told as a warning (DIR is already the new
 * build). */
static void sync_parent(const char *parent)
{
  int fd = open(parent, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || (fsync(fd) && errno != EINVAL))
    fprintf(stderr, "symvtune build: warning: cannot flush %s to disk: %s\n", parent, strerror(errno));
  if (fd >= 0) close(fd);
}

/* Moves the finished build in work to DIR (abs): into a fresh folder beside
 * DIR (renamed there, or copied if /tmp is another file system), flushed to
 * disk, which then takes DIR's place (an old DIR is swapped out and
 * removed). 0, or -1 with a message printed; DIR is then as it was. work is
 * gone either way. */
int libgen_install(const char *work, const char *abs, const char *out, const char *dbpath)
{
  char stage[PATH_MAX + 64], old[PATH_MAX + 64], tmp[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s", abs);
  const char *parent = dirname(tmp);
  snprintf(stage, sizeof stage, "%s/.symvtune-build-XXXXXX", parent);
  mode_t mask = umask(0);
  umask(mask);
  if (!mkdtemp(stage)) {
    fprintf(stderr, "symvtune build: cannot create a folder in %s: %s\n", parent, strerror(errno));
    symv_rmtree(work);
    return -1;
  }
  if (rename(work, stage)) {
    if (errno != EXDEV) {
      fprintf(stderr, "symvtune build: cannot move %s to %s: %s\n", work, stage, strerror(errno));
      symv_rmtree(work), symv_rmtree(stage);
      return -1;
    }
    copy_from = work, copy_to = stage, copy_errno = 0;
    if (nftw(work, copy_entry, 16, FTW_PHYS) || copy_errno) {
      fprintf(stderr, "symvtune build: cannot copy %s to %s: %s\n", work, stage, strerror(copy_errno ? copy_errno : errno));
      symv_rmtree(work), symv_rmtree(stage);
      return -1;
    }
    symv_rmtree(work);
  }
  chmod(stage, 0777 & ~mask); /* mkdtemp made it 0700; DIR is an ordinary folder */
  if (sync_tree(stage)) {
    fprintf(stderr, "symvtune build: cannot write %s to disk: %s\n", stage, strerror(errno));
    symv_rmtree(stage);
    return -1;
  }
  if (libgen_dir_replaceable(abs, out, dbpath)) { /* again: it may have changed while we compiled */
    symv_rmtree(stage);
    return -1;
  }
  if (rename(stage, abs) == 0) { /* DIR was absent or empty */
    sync_parent(parent);
    return 0;
  }
  if (errno != ENOTEMPTY && errno != EEXIST) {
    fprintf(stderr, "symvtune build: cannot rename %s to %s: %s\n", stage, abs, strerror(errno));
    symv_rmtree(stage);
    return -1;
  }
  if (carry_share(abs, stage)) {
    symv_rmtree(stage);
    return -1;
  }
#ifdef RENAME_EXCHANGE
  if (renameat2(AT_FDCWD, stage, AT_FDCWD, abs, RENAME_EXCHANGE) == 0) {
    sync_parent(parent);
    if (symv_rmtree(stage)) fprintf(stderr, "symvtune build: warning: the old build left in %s: %s\n", stage, strerror(errno));
    return 0;
  }
#endif
  /* no atomic exchange here: the old DIR aside, the new one in, the old removed */
  snprintf(old, sizeof old, "%s/.symvtune-old-XXXXXX", parent);
  if (!mkdtemp(old)) {
    fprintf(stderr, "symvtune build: cannot create a folder in %s: %s\n", parent, strerror(errno));
    carry_share(stage, abs); /* the site's files back where they were */
    symv_rmtree(stage);
    return -1;
  }
  if (rename(abs, old)) {
    fprintf(stderr, "symvtune build: cannot move the old %s aside: %s\n", abs, strerror(errno));
    rmdir(old);
    carry_share(stage, abs);
    symv_rmtree(stage);
    return -1;
  }
  if (rename(stage, abs)) {
    fprintf(stderr, "symvtune build: cannot rename %s to %s: %s\n", stage, abs, strerror(errno));
    rename(old, abs);
    carry_share(stage, abs);
    symv_rmtree(stage);
    return -1;
  }
  sync_parent(parent);
  if (symv_rmtree(old)) fprintf(stderr, "symvtune build: warning: the old build left in %s: %s\n", old, strerror(errno));
  return 0;
}
