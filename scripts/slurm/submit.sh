#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# submit.sh - submits a sharded sweep: the job array of shards, then the
# merge/dense/fit/build job once every shard has succeeded.
usage() {
  cat <<'USAGE'
usage: submit.sh [--gpu-type TYPE] [--dry-run] [SHARDS [SBATCH-OPTION...]]
  SHARDS           a count from 1 to 4096, default 8 (or $SHARDS)
  --gpu-type TYPE  ask each job for one GPU of Slurm's gres type TYPE
                   (--gres=gpu:TYPE:1, e.g. h100); default $GPU_TYPE, or
                   none: the scripts' generic --gres=gpu:1, any GPU
  --dry-run        print the two sbatch commands instead of running them
                   (the array's job id shown as ARRAY_JOB_ID)
  --help           this text
SBATCH-OPTIONs (e.g. --partition=a100 --cpus-per-task=8) go to both jobs and
override the #SBATCH lines of sweep-array.sbatch and merge-fit.sbatch.
Environment: ROUTINE, OUTDIR, SYMVTUNE, SWEEP_OPTS, NO_DENSE (the jobs'),
SHARDS, GPU_TYPE.
USAGE
}
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gpu_type=${GPU_TYPE:-}
dry_run=0
while (($# > 0)); do
  case $1 in
    --help | -h) usage; exit 0 ;;
    --dry-run) dry_run=1; shift ;;
    --gpu-type) (($# > 1)) || { echo "submit.sh: --gpu-type needs a TYPE" >&2; exit 2; }; gpu_type=$2; shift 2 ;;
    --gpu-type=*) gpu_type=${1#--gpu-type=}; shift ;;
    *) break ;;
  esac
done
# a gres type is a Slurm name: letters, digits, '_', '-', '.'
if [ -n "$gpu_type" ] && ! [[ $gpu_type =~ ^[A-Za-z0-9_.-]+$ ]]; then
  echo "submit.sh: --gpu-type must be a gres type name (letters, digits, _ - .), not '$gpu_type'" >&2
  exit 2
fi
SHARDS=${1:-${SHARDS:-8}}
# a count in plain decimal, 1 to 4096: bash reads a leading 0 as octal, and a huge count wraps
if ! [[ $SHARDS =~ ^[1-9][0-9]{0,3}$ ]] || ((SHARDS > 4096)); then
  echo "submit.sh: SHARDS must be a count from 1 to 4096 in plain decimal (no sign, no leading 0), not '$SHARDS'" >&2
  exit 2
fi
shift $(($# > 0 ? 1 : 0))
export SHARDS
gres=()
[ -z "$gpu_type" ] || gres=(--gres="gpu:$gpu_type:1")
# sbatch with these arguments, its output the job id; with --dry-run the
# command line on standard output (fd 3: outside the $(...) that takes the
# job id) and ARRAY_JOB_ID for the id
exec 3>&1
submit() {
  if ((dry_run)); then
    echo "sbatch $*" >&3
    echo ARRAY_JOB_ID
  else
    sbatch "$@"
  fi
}
array=$(submit --parsable --export=ALL --array="0-$((SHARDS - 1))" "${gres[@]}" "$@" "$here/sweep-array.sbatch")
array=${array%%;*}
final=$(submit --parsable --export=ALL --dependency="afterok:$array" "${gres[@]}" "$@" "$here/merge-fit.sbatch")
((dry_run)) && exit 0
echo "shards: job array $array (0-$((SHARDS - 1))); merge, dense, fit, build: job ${final%%;*}"
