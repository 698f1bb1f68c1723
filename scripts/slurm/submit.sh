#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# submit.sh - submits a sharded sweep: the job array of shards, then the
# merge/dense/fit/build job once every shard has succeeded.
#   scripts/slurm/submit.sh [SHARDS [SBATCH-OPTION...]]
#     (environment: ROUTINE, OUTDIR, SYMVTUNE, SWEEP_OPTS, NO_DENSE)
# SBATCH-OPTIONs (e.g. --partition=a100 --cpus-per-task=8) go to both jobs
# and override the #SBATCH lines of the two scripts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SHARDS=${1:-${SHARDS:-8}}
case $SHARDS in '' | *[!0-9]* | 0) echo "submit.sh: SHARDS must be a positive count, not '$SHARDS'" >&2; exit 2 ;; esac
shift $(($# > 0 ? 1 : 0))
export SHARDS
array=$(sbatch --parsable --export=ALL --array="0-$((SHARDS - 1))" "$@" "$here/sweep-array.sbatch")
array=${array%%;*}
final=$(sbatch --parsable --export=ALL --dependency="afterok:$array" "$@" "$here/merge-fit.sbatch")
echo "shards: job array $array (0-$((SHARDS - 1))); merge, dense, fit, build: job ${final%%;*}"
