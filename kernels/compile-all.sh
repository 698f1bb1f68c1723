#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# compile-all.sh - compile every kernel family for every routine at a few
# representative parameter points, with nvcc (no GPU needed), and report
# failures. Also checks that:
#   - no file in kernels/ includes a system header (NVRTC has none);
#   - without -DSYMV_ROUTINE the kernels build (DSYMV, the default);
#   - an unknown or empty routine stops at symv_scalar.cuh's #error;
#   - each family's own #error refuses a point outside its constraints.
#
# Usage: kernels/compile-all.sh [options]
#   --arch SM     target (default sm_90)
#   --jobs N      parallel compiles (default: number of CPUs)
#   --usage       print each point's ptxas resource usage (registers, smem)
#   --nvrtc       also compile every point with NVRTC, the way symvtune
#                 does (gpu/compile.c: the non-.cu files of kernels/ as the
#                 only headers, --std=c++17 -default-device); needs a C
#                 compiler and libnvrtc (CUDA_HOME, default /usr/local/cuda)
#   --keep DIR    keep the cubins in DIR (default: a temporary directory)
# Exit status: 0 when everything behaved as expected, 1 otherwise.
set -u

here=$(cd "$(dirname "$0")" && pwd)
arch=sm_90
jobs=$(nproc 2>/dev/null || echo 4)
usage=0 nvrtc=0 keep=
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --usage) usage=1; shift ;;
    --nvrtc) nvrtc=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "compile-all.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=${NVCC:-$(command -v nvcc || echo "$cuda/bin/nvcc")}
# nvcc runs its stages through a shell, with paths in double quotes where
# $(...), backticks and backslashes still act: refuse to hand it a path that
# holds anything but plain characters (the sources', --keep's, nvcc's own,
# and TMPDIR, where nvcc and mktemp put their files).
for p in "$here" "$keep" "$nvcc" "${TMPDIR:-/tmp}"; do
  case $p in
    *[!A-Za-z0-9/._+,=@%:~-]*)
      echo "compile-all.sh: '$p' holds characters a shell acts on, and nvcc runs its stages through a shell: refusing" >&2
      exit 2 ;;
  esac
done
if [ -n "$keep" ]; then
  out=$keep
  mkdir -p "$out" || exit 2
else
  out=$(mktemp -d) || exit 2
  trap 'rm -rf "$out"' EXIT
fi

routines="ssymv dsymv csymv zsymv chemv zhemv"
# family source BLOCK_SIZE UX MX (points inside each family's constraints:
# pipe, pipe_det, pipe_fx: BLOCK_SIZE a power of two 64..1024, UX a power of two in
# BLOCK_SIZE/64..BLOCK_SIZE/2 up to 128, MX 0..2 (pipe_det: 0..5); panel: UX divides 32, MX 0..3; lu: UX divides 32; all: BLOCK_SIZE
# a multiple of 32 in 32..1024, UX 1..64 (the pipe families: up to 128), MX 0..9)
points="
atomic symv_atomic.cu 128 16 0
atomic symv_atomic.cu 256 3 6
atomic symv_atomic.cu 32 1 1
lu symv_lu.cu 128 8 0
lu symv_lu.cu 32 32 9
lu symv_lu.cu 256 1 4
atomic_red symv_red.cu 64 32 0
atomic_red symv_red.cu 256 8 5
atomic_red symv_red.cu 128 1 9
atomic_w symv_w.cu 128 16 1
atomic_w symv_w.cu 256 4 0
atomic_w symv_w.cu 64 64 7
panel symv_panel.cu 128 2 3
panel symv_panel.cu 256 4 0
panel symv_panel.cu 64 32 1
pipe symv_pipe.cu 256 64 0
pipe symv_pipe.cu 128 32 1
pipe symv_pipe.cu 64 1 2
pipe symv_pipe.cu 1024 16 0
pipe_det symv_pipe_det.cu 256 64 0
pipe_det symv_pipe_det.cu 128 32 1
pipe_det symv_pipe_det.cu 64 1 2
pipe_det symv_pipe_det.cu 1024 16 0
pipe_det symv_pipe_det.cu 512 16 2
pipe symv_pipe.cu 512 128 0
pipe_det symv_pipe_det.cu 512 128 0
pipe_det symv_pipe_det.cu 256 64 3
pipe_det symv_pipe_det.cu 1024 16 5
pipe_fx symv_pipe_fx.cu 256 64 0
pipe_fx symv_pipe_fx.cu 128 32 1
pipe_fx symv_pipe_fx.cu 64 1 2
pipe_fx symv_pipe_fx.cu 1024 16 0
pipe_fx symv_pipe_fx.cu 512 128 1
pipe_fx symv_pipe_fx.cu 256 64 3
pipe_fx symv_pipe_fx.cu 1024 16 5
floor symv_floor.cu 256 1 0
floor symv_floor.cu 128 8 1
floor symv_floor.cu 512 2 1
floor symv_floor.cu 256 1 8
floor symv_floor.cu 32 1 9
fault symv_fault.cu 128 16 0
fault symv_fault.cu 128 16 1
"

# one compile: TAG EXPECT(ok|fail) SOURCE DEFINES...; writes $out/TAG.res
# (first line: PASS or FAIL, then the messages)
one() {
  local tag=$1 expect=$2 src=$3
  shift 3
  local log
  log=$("$nvcc" -cubin -arch="$arch" -std=c++17 --resource-usage "$@" -o "$out/$tag.cubin" "$here/$src" 2>&1)
  local rc=$?
  {
    if { [ "$expect" = ok ] && [ $rc -eq 0 ]; } || { [ "$expect" != ok ] && [ $rc -ne 0 ] && grep -q -- "$expect" <<<"$log"; }; then
      echo PASS
    else
      echo FAIL
    fi
    echo "$log"
  } >"$out/$tag.res"
}

list=$out/list
: >"$list"
while read -r fam src b u x; do
  [ -n "$fam" ] || continue
  extra=
  [ "$fam" = fault ] && extra="-DSYMV_FAULT_MODE=$x" && x=0
  for r in $routines; do
    echo "${fam}_${r}_b${b}_u${u}_x${x}${extra:+_m${extra##*=}} ok $src -DSYMV_ROUTINE=$r -DBLOCK_SIZE=$b -DUX=$u -DMX=$x -DSYMV_KERNEL_NAME=symv_${fam}_b${b}_u${u}_x${x} $extra" >>"$list"
  done
  # no SYMV_ROUTINE at all: DSYMV
  echo "${fam}_default_b${b}_u${u}_x${x}${extra:+_m${extra##*=}} ok $src -DBLOCK_SIZE=$b -DUX=$u -DMX=$x -DSYMV_KERNEL_NAME=symv_${fam}_b${b}_u${u}_x${x} $extra" >>"$list"
done <<<"$points"
# the routine's #error: unknown, empty, upper case, a number
for bad in foo "" DSYMV 2; do
  echo "badroutine_${bad:-empty} SYMV_ROUTINE symv_panel.cu -DSYMV_ROUTINE=$bad -DBLOCK_SIZE=128 -DUX=2 -DMX=0 -DSYMV_KERNEL_NAME=k" >>"$list"
done
# the families' own #error (a point outside the constraints must not build):
# tag, the word the #error says, source, routine, BLOCK_SIZE, UX, MX
bad_points="
badpipe_bs96 pipe symv_pipe.cu zhemv 96 2 0
badpipe_ux2 pipe symv_pipe.cu csymv 256 2 0
badpipe_mx3 pipe symv_pipe.cu ssymv 128 2 3
badpipedet_bs96 pipe_det symv_pipe_det.cu dsymv 96 2 0
badpipedet_mx6 pipe_det symv_pipe_det.cu dsymv 256 64 6
badpipedet_ux2 pipe_det symv_pipe_det.cu zhemv 256 2 0
badpipe_ux64 pipe symv_pipe.cu dsymv 64 64 0
badpipedet_ux64 pipe_det symv_pipe_det.cu zsymv 64 64 1
badpipefx_mx9 pipe symv_pipe_fx.cu dsymv 256 64 9
badpipefx_ux2 pipe symv_pipe_fx.cu csymv 256 2 0
badpanel_ux3 panel symv_panel.cu chemv 128 3 0
badpanel_mx4 panel symv_panel.cu zsymv 128 2 4
badfloor_mx2 floor symv_floor.cu dsymv 256 4 2
badfloor_ux3 floor symv_floor.cu ssymv 256 3 1
badlu_ux3 L+U symv_lu.cu dsymv 128 3 0
"
while read -r tag expect src r b u x; do
  [ -n "$tag" ] || continue
  echo "$tag $expect $src -DSYMV_ROUTINE=$r -DBLOCK_SIZE=$b -DUX=$u -DMX=$x -DSYMV_KERNEL_NAME=k" >>"$list"
done <<<"$bad_points"

# NVRTC-like constraint: no system header anywhere in kernels/
status=0
if grep -n '#[[:space:]]*include[[:space:]]*<' "$here"/*.cu "$here"/*.cuh "$here"/*.h; then
  echo "FAIL: a system header is included above (NVRTC has none)"
  status=1
fi

# throttle: called after starting a background job; waits for one to end
# once $jobs are running
running=0
throttle() {
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
}

# each line: TAG EXPECT SOURCE DEFINES..., at most $jobs at a time
while read -r line; do
  # shellcheck disable=SC2086
  one $line &
  throttle
done <"$list"
wait

total=0 failed=0
while read -r tag _; do
  total=$((total + 1))
  res=$out/$tag.res
  if [ "$(head -n 1 "$res")" != PASS ]; then
    failed=$((failed + 1))
    echo "FAIL $tag"
    sed -n '2,20p' "$res" | sed 's/^/    /'
  elif [ $usage = 1 ]; then
    u=$(grep -o 'Used [0-9]* registers.*' "$res" | head -n 1)
    [ -n "$u" ] && printf '%-40s %s\n' "$tag" "$u"
  fi
done <"$list"
echo "nvcc: $((total - failed)) of $total compiles behaved as expected"
[ $failed -eq 0 ] || status=1

if [ $nvrtc = 1 ]; then
  cat >"$out/nvrtc_check.c" <<'EOF'
/* compiles one kernel source with NVRTC, the headers being the given files
 * (by their base names), as src/compile.c does */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc(n + 1);
  if (fread(s, 1, n, f) != (size_t)n) n = 0;
  s[n] = 0;
  fclose(f);
  return s;
}
static const char *base(const char *p) { const char *b = strrchr(p, '/'); return b ? b + 1 : p; }
/* usage: nvrtc_check SOURCE NHDR HDR... OPTION... */
int main(int argc, char **argv)
{
  const char *src = argv[1];
  int nh = atoi(argv[2]);
  const char *ht[16], *hn[16];
  for (int i = 0; i < nh; i++) ht[i] = slurp(argv[3 + i]), hn[i] = base(argv[3 + i]);
  nvrtcProgram p;
  if (nvrtcCreateProgram(&p, slurp(src), base(src), nh, ht, hn) != NVRTC_SUCCESS) return 2;
  nvrtcResult r = nvrtcCompileProgram(p, argc - 3 - nh, (const char **)argv + 3 + nh);
  size_t n;
  nvrtcGetProgramLogSize(p, &n);
  char *log = malloc(n + 1);
  nvrtcGetProgramLog(p, log);
  if (r != NVRTC_SUCCESS) printf("%s\n", log);
  return r != NVRTC_SUCCESS;
}
EOF
  if ! cc -O1 -o "$out/nvrtc_check" "$out/nvrtc_check.c" -I"$cuda/include" -L"$cuda/lib64" -lnvrtc \
         -Wl,-rpath,"$cuda/lib64" 2>"$out/nvrtc_cc.log"; then
    echo "FAIL: could not build the NVRTC checker:"; cat "$out/nvrtc_cc.log"
    exit 1
  fi
  hdrs=()
  for h in "$here"/*.h "$here"/*.cuh; do hdrs+=("$h"); done
  # TAG SOURCE DEFINES...: writes $out/TAG.nvrtc, PASS or FAIL then the log
  nvrtc_one() {
    local tag=$1 src=$2 msg
    shift 2
    if msg=$("$out/nvrtc_check" "$here/$src" ${#hdrs[@]} "${hdrs[@]}" "$@" \
               --gpu-architecture="$arch" --std=c++17 -default-device 2>&1); then
      printf 'PASS\n%s\n' "$msg" >"$out/$tag.nvrtc"
    else
      printf 'FAIL\n%s\n' "$msg" >"$out/$tag.nvrtc"
    fi
  }
  running=0
  while read -r tag expect src defs; do
    [ "$expect" = ok ] || continue
    # shellcheck disable=SC2086
    nvrtc_one "$tag" "$src" $defs &
    throttle
  done <"$list"
  wait
  ntot=0 nfail=0
  while read -r tag expect _; do
    [ "$expect" = ok ] || continue
    ntot=$((ntot + 1))
    if [ "$(head -n 1 "$out/$tag.nvrtc" 2>/dev/null)" != PASS ]; then
      nfail=$((nfail + 1))
      echo "FAIL (NVRTC) $tag"
      sed -n '2,20p' "$out/$tag.nvrtc" 2>/dev/null | sed 's/^/    /'
    fi
  done <"$list"
  echo "NVRTC: $((ntot - nfail)) of $ntot compiles succeeded"
  [ $nfail -eq 0 ] || status=1
fi
exit $status
