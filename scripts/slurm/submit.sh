#!/bin/bash
# submit.sh - submits a sharded sweep: the job array of shards, then the
# merge/dense/fit/build job once every shard has succeeded.
#   scripts/slurm/submit.sh [SHARDS]     (environment: ROUTINE, OUTDIR, SYMVTUNE, SWEEP_OPTS)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SHARDS=${1:-${SHARDS:-8}}
export SHARDS
array=$(sbatch --parsable --export=ALL --array="0-$((SHARDS - 1))" "$here/sweep-array.sbatch")
array=${array%%;*}
final=$(sbatch --parsable --export=ALL --dependency="afterok:$array" "$here/merge-fit.sbatch")
echo "shards: job array $array (0-$((SHARDS - 1))); merge, dense, fit, build: job ${final%%;*}"
