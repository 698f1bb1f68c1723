#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# submit.sh - submits a sharded sweep: the job array of shards, then the
# merge/dense/fit/build job once every shard has succeeded.
#   scripts/slurm/submit.sh [SHARDS [SBATCH-OPTION...]]
#     (SHARDS: a count from 1 to 4096, default 8)
#     (environment: ROUTINE, OUTDIR, SYMVTUNE, SWEEP_OPTS, NO_DENSE)
# SBATCH-OPTIONs (e.g. --partition=a100 --cpus-per-task=8) go to both jobs
# and override the #SBATCH lines of the two scripts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SHARDS=${1:-${SHARDS:-8}}
# a count in plain decimal, 1 to 4096: bash reads a leading 0 as octal, and a huge count wraps
if ! [[ $SHARDS =~ ^[1-9][0-9]{0,3}$ ]] || ((SHARDS > 4096)); then
  echo "submit.sh: SHARDS must be a count from 1 to 4096 in plain decimal (no sign, no leading 0), not '$SHARDS'" >&2
  exit 2
fi
shift $(($# > 0 ? 1 : 0))
export SHARDS
array=$(sbatch --parsable --export=ALL --array="0-$((SHARDS - 1))" "$@" "$here/sweep-array.sbatch")
array=${array%%;*}
final=$(sbatch --parsable --export=ALL --dependency="afterok:$array" "$@" "$here/merge-fit.sbatch")
echo "shards: job array $array (0-$((SHARDS - 1))); merge, dense, fit, build: job ${final%%;*}"
