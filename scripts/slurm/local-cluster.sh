#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# local-cluster.sh - a single-node Slurm on this machine, to try the job
# scripts of this folder before a real cluster runs them (Debian's
# slurm-wlm and munge; run as root).
#
#   scripts/slurm/local-cluster.sh start DIR [GPUS]   # writes DIR/slurm.conf, starts munged, slurmctld, slurmd
#   export SLURM_CONF=DIR/slurm.conf                  # then sbatch, squeue, sacct as usual
#   scripts/slurm/local-cluster.sh stop DIR
#
# The node is this host with all its CPUs and memory, in one partition named
# "gpu" (the name the job scripts ask for), with GPUS generic resources of
# type h100 (default 2): the scripts' generic --gres=gpu:1 and
# `submit.sh --gpu-type h100` are both accepted. On a machine without GPUs these resources are only
# counted (stand-in device files): jobs that need a real GPU fail in symvtune with "no CUDA GPU",
# and the job scripts can still be run end to end with a stand-in worker
# (SYMVTUNE_WORKER, as the tests do).
set -euo pipefail
cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR [GPUS]" >&2
  exit 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "$0: run as root (slurmd starts jobs as their users)" >&2
  exit 2
fi
for p in slurmctld slurmd munged; do
  if ! command -v "$p" >/dev/null && [ ! -x "/usr/sbin/$p" ]; then
    echo "$0: $p not found: install Debian's slurm-wlm and munge" >&2
    exit 2
  fi
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf

case $cmd in
start)
  gpus=${3:-2}
  case $gpus in '' | *[!0-9]*) echo "$0: GPUS must be a count, not '$gpus'" >&2; exit 2 ;; esac
  host=$(hostname -s)
  read -r cpus mem < <(slurmd -C | awk '/^NodeName/ {for (i = 1; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]} print v["CPUs"], v["RealMemory"]}')
  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  cat >"$conf" <<EOF
# single-node Slurm written by local-cluster.sh
ClusterName=symvlocal
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
GresTypes=gpu
NodeName=$host CPUs=$cpus RealMemory=$mem Gres=gpu:h100:$gpus State=UNKNOWN
PartitionName=gpu Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  # Slurm counts a GPU only with a device file: stand-ins made like /dev/null
  # (character device 1,3); jobs get CUDA_VISIBLE_DEVICES from their index.
  mkdir -p "$dir/dev"
  : >"$dir/gres.conf"
  echo AutoDetect=off >>"$dir/gres.conf"
  for ((g = 0; g < gpus; g++)); do
    [ -e "$dir/dev/gpu$g" ] || mknod "$dir/dev/gpu$g" c 1 3
    echo "NodeName=$host Name=gpu Type=h100 File=$dir/dev/gpu$g" >>"$dir/gres.conf"
  done
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    mkdir -p /run/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
    su -s /bin/sh munge -c /usr/sbin/munged
  fi
  /usr/sbin/slurmctld -f "$conf"
  /usr/sbin/slurmd -f "$conf"
  export SLURM_CONF=$conf
  for _ in $(seq 30); do
    if sinfo -h -o %t 2>/dev/null | grep -q idle; then
      echo "Slurm is up: export SLURM_CONF=$conf"
      sinfo
      exit 0
    fi
    sleep 1
  done
  echo "$0: the node did not come up; see $dir/log/" >&2
  exit 1
  ;;
stop)
  for f in slurmd slurmctld; do
    if [ -f "$dir/$f.pid" ]; then kill "$(cat "$dir/$f.pid")" 2>/dev/null || true; fi
  done
  echo "stopped (munged left running)"
  ;;
*)
  echo "usage: $0 start|stop DIR [GPUS]" >&2
  exit 2
  ;;
esac
