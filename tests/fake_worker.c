/*
 * fake_worker.c - a stand-in for `symvtune worker` (measure/worker.h) that
 * needs no GPU, so that the sweep's scheduler can be tested anywhere:
 * SYMVTUNE_WORKER=path/to/fake_worker symvtune sweep --jobs 0 ...
 *
 * It speaks the worker's line protocol and reports an H100-like device and
 * made-up times that depend only on the candidate, n and the device number:
 * t = (2 + n^2 E / 2 / 3000e3) x f(candidate) x (1 + FAKE_SLOW x device)
 * microseconds, f in [0.6, 1.6) from a hash of the parameters (cuBLAS: 1,
 * with atomics 1.05; the floor: 0.5, always the shape floor:256,4,8,1).
 * Environment:
 *   FAKE_NAME_<D>     the name device D reports (default NVIDIA H100 80GB HBM3)
 *   FAKE_SLOW         relative slowness per device number (default 0.01)
 *   FAKE_US           microseconds each candidate takes (default 0)
 *   FAKE_DIE_DEVICE, FAKE_DIE_AFTER, FAKE_STATE
 *                     the worker on device FAKE_DIE_DEVICE kills itself
 *                     (SIGKILL, after its "load" line) at its
 *                     FAKE_DIE_AFTER-th candidate, once: it leaves the file
 *                     FAKE_STATE so that its successor does not
 *   FAKE_HANG         a candidate (FAMILY:B,U,M,X) on which it stops answering
 *   FAKE_DISTURB      the K-th candidate command this worker answers reports
 *                     FAKE_DISTURB_FACTOR (default 3) times its times at
 *                     every size (a disturbance: something else slowing the
 *                     GPU for as long as one candidate's sizes take)
 *   FAKE_DISTURB_DENSE the first K candidate commands of the dense stage
 *                     read so, each
 *   FAKE_LIB_KERNEL   the candidate (FAMILY:B,U,M,X) the lib command says
 *                     the library ran, timed as that candidate x
 *   FAKE_LIB_FACTOR   (default 1); without FAKE_LIB_KERNEL, cuBLAS. The
 *                     library's file must exist (nothing is loaded); its
 *                     host time a call is reported as 3.5 us
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int device;
static double elem = 8;

static void say(const char *s)
{
  fputs(s, stdout);
  fputc('\n', stdout);
  fflush(stdout);
}

/* Whether a command's arguments parsed: sscanf gave `got` of the `want`
 * fields; where not, says "error usage: USAGE" (the worker's answer). */
static int parsed(int got, int want, const char *usage)
{
  if (got == want) return 1;
  printf("error usage: %s\n", usage);
  fflush(stdout);
  return 0;
}

static double base_us(int n) { return 2 + (double)n * n * elem / 2 / 3000e3; }

/* f(candidate) of a point FAMILY:B,U,M,X: in [0.6, 1.6) from its hash */
static double point_factor(const char *point)
{
  unsigned h = 2166136261u;
  for (const char *c = point; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
  return 0.6 + (h % 1000) / 1000.0;
}

static double slow(void)
{
  const char *s = getenv("FAKE_SLOW");
  return 1 + (s ? atof(s) : 0.01) * device;
}

/* "N1:P1,N2:P2" (or without :P): one meas line each */
static void meas(char *list, double f)
{
  for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int n = atoi(tok);
    char *colon = strchr(tok, ':');
    double prune = colon ? atof(colon + 1) : 0, t = base_us(n) * f * slow();
    int batches = prune > 0 && t > prune ? 1 : 5;
    printf("meas %d %.6g %.6g %.6g %d %d %.3g\n", n, t, t * 0.99, t * 1.01, batches, 100, 0.5);
  }
  fflush(stdout);
}

int main(void)
{
  char line[16384];
  static int handled, dense_handled;
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    if (!strcmp(line, "quit")) break;
    if (!strncmp(line, "init ", 5)) {
      char routine[16] = "";
      if (!parsed(sscanf(line + 5, "%d %*c %*d %*d %*g %15s", &device, routine), 2, "init")) continue;
      elem = routine[0] == 's' ? 4 : routine[0] == 'z' ? 16 : 8;
      char var[32];
      snprintf(var, sizeof var, "FAKE_NAME_%d", device);
      const char *name = getenv(var) ? getenv(var) : "NVIDIA H100 80GB HBM3";
      printf("device 9 0 132 52428800 2619000 5120 233472 232448 65536 32 2048 12040 12020 85000000000 1024 1024 %s\n",
             name);
      say("copy 3000.0");
      say("ok");
    } else if (!strncmp(line, "base ", 5)) {
      char name[32], stage[16], list[8192];
      if (!parsed(sscanf(line + 5, "%31s %15s %8191s", name, stage, list), 3, "base")) continue;
      meas(list, strcmp(name, "cublas_atomics") ? 1.0 : 1.05);
      say("ok");
    } else if (!strncmp(line, "floor ", 6)) {
      char stage[16], list[8192];
      if (!parsed(sscanf(line + 6, "%15s %8191s", stage, list), 2, "floor")) continue;
      say("empty 2.5");
      /* a shape line before each meas line, as the worker's */
      for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const int n = atoi(tok);
        const double t = base_us(n) * 0.5;
        printf("shape %d floor:256,4,8,1 %.6g\n", n, t * 1.2);
        printf("meas %d %.6g %.6g %.6g %d %d 0\n", n, t, t * 0.99, t * 1.01, 5, 100);
      }
      say("ok");
    } else if (!strncmp(line, "lib ", 4)) {
      char atomics[16], stage[16], list[8192];
      int at = 0;
      if (sscanf(line + 4, "%15s %15s %8191s %n", atomics, stage, list, &at) != 3 || !at || !line[4 + at]) {
        say("error usage: lib ATOMICS STAGE SIZES PATH");
        continue;
      }
      const char *path = line + 4 + at;
      if (access(path, R_OK)) {
        printf("error cannot load %s: no such file\n", path);
        fflush(stdout);
        continue;
      }
      const char *lk = getenv("FAKE_LIB_KERNEL"), *lf = getenv("FAKE_LIB_FACTOR");
      const double f = (lk ? point_factor(lk) : 1) * (lf ? atof(lf) : 1);
      char sizes[8192];
      snprintf(sizes, sizeof sizes, "%s", list);
      for (char *save = NULL, *tok = strtok_r(sizes, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        printf("libk %d %s 3.5\n", atoi(tok), lk ? lk : "cublas");
      meas(list, f);
      say("ok");
    } else if (!strncmp(line, "cand ", 5)) {
      char point[64], stage[16], list[8192];
      if (!parsed(sscanf(line + 5, "%63s %15s %8191s", point, stage, list), 3, "cand")) continue;
      handled++;
      dense_handled += !strcmp(stage, "dense");
      const char *us = getenv("FAKE_US");
      if (us) usleep((useconds_t)atoi(us));
      if (getenv("FAKE_HANG") && !strcmp(getenv("FAKE_HANG"), point)) pause();
      say("load 64 0 0.0");
      const char *dd = getenv("FAKE_DIE_DEVICE"), *da = getenv("FAKE_DIE_AFTER"), *state = getenv("FAKE_STATE");
      if (dd && da && state && atoi(dd) == device && handled == atoi(da) && access(state, F_OK) != 0) {
        FILE *f = fopen(state, "w");
        if (f) fclose(f);
        kill(getpid(), SIGKILL);
      }
      const char *dk = getenv("FAKE_DISTURB"), *dz = getenv("FAKE_DISTURB_DENSE"), *df = getenv("FAKE_DISTURB_FACTOR");
      const int disturbed = (dk && handled == atoi(dk)) || (dz && !strcmp(stage, "dense") && dense_handled <= atoi(dz));
      meas(list, point_factor(point) * (disturbed ? (df ? atof(df) : 3) : 1));
      say("ok");
    } else {
      say("error unknown command");
    }
  }
  return 0;
}
