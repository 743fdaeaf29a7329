#!/usr/bin/env bash
# Strong- and weak-scaling sweeps of the herd command, one JSON record per run.
#
#   scripts/scaling.sh [-o records.jsonl] [-r "1 2 4"] [-t THREADS_PER_RANK] [-n AGENTS] [-s STEPS] [-- herd options]
#
# Strong scaling runs -n agents on each rank count of -r; weak scaling runs -n agents per rank, of
# a generated graph (the default population, or --graph erdos-renyi, power-law, watts-strogatz).
# Every run appends one line to the records file (herd --record), labelled strong or weak;
# scripts/plot_scaling.py turns the file into plots. Options after -- go to every run (e.g.
# --graph erdos-renyi --partition metis). -n takes an integer or 1e6-style powers of ten. Paths
# are the caller's: the records file (default scaling.jsonl in the current folder), HERD (the
# command, default build/bin/herd of this checkout) and files among the herd options. MPIEXEC and
# MPIEXEC_FLAGS pick the launcher and its flags (default: mpiexec --oversubscribe).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '2,13p' "$0"; exit "$1"; }
# --help wherever it comes among the script's own options (getopts would call it an unknown one).
for arg in "$@"; do
  [[ $arg == -- ]] && break
  [[ $arg == --help ]] && usage 0
done
records=scaling.jsonl
ranks="1 2 4"
threads=1
agents=1000000
steps=50
while getopts "o:r:t:n:s:h" flag; do
  case $flag in
    o) records=$OPTARG ;;
    r) ranks=$OPTARG ;;
    t) threads=$OPTARG ;;
    n) agents=$OPTARG ;;
    s) steps=$OPTARG ;;
    h) usage 0 ;;
    *) usage 2 ;;
  esac
done
shift $((OPTIND - 1))

fail() { echo "scaling.sh: $*" >&2; exit 2; }
positive='^[1-9][0-9]*$'
given=$agents
if [[ $agents =~ ^([1-9][0-9]*)e([0-9]+)$ ]]; then  # bash arithmetic has no 1e6
  # Digits beyond a run's 10 would wrap bash's 64-bit arithmetic: refused below by their count.
  if ((${#BASH_REMATCH[1]} + 10#${BASH_REMATCH[2]} > 10)); then
    fail "-n $given: more agents than a run holds (2147483647)"
  fi
  agents=$((BASH_REMATCH[1] * 10 ** 10#${BASH_REMATCH[2]}))
fi
[[ $agents =~ $positive ]] || fail "-n $given: not a positive agent count (1000000 or 1e6)"
[[ $steps =~ $positive ]] || fail "-s $steps: not a positive step count"
[[ $threads =~ $positive ]] || fail "-t $threads: not a positive thread count"
for p in $ranks; do [[ $p =~ $positive ]] || fail "-r \"$ranks\": $p is not a positive rank count"; done
[[ -n ${ranks// /} ]] || fail "-r: no rank counts"
# Herd's agents are 32-bit: the weak study's largest run, and -n itself, must fit (and bash's
# 64-bit arithmetic must not have wrapped).
most=0
for p in $ranks; do ((p > most)) && most=$p; done
((${#agents} <= 10 && agents * most <= 2147483647 && agents > 0)) ||
  fail "-n $given: more agents than a run holds (2147483647) at $most rank(s) of the weak study"

source "$root/scripts/huge_pages.sh"
herd=${HERD:-$root/build/bin/herd}
[[ -x $herd ]] || { echo "scaling.sh: $herd not found: run scripts/build.sh first" >&2; exit 1; }
mpiexec=${MPIEXEC:-mpiexec}
command -v "$mpiexec" >/dev/null || { echo "scaling.sh: $mpiexec not found: install MPI or set MPIEXEC" >&2; exit 1; }
read -r -a flags <<<"${MPIEXEC_FLAGS---oversubscribe}"
# Open MPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 KOKKOS_DISABLE_WARNINGS=1
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=${OMP_PROC_BIND:-false}

run() {  # run STUDY RANKS AGENTS [herd options]
  local study=$1 p=$2 n=$3
  shift 3
  echo "scaling.sh: $study scaling, $p rank(s) x $threads thread(s), $n agents" >&2
  "$mpiexec" "${flags[@]}" -n "$p" "$herd" run --agents "$n" --steps "$steps" --quiet --label "$study" \
    --record "$records" "$@"
}

for p in $ranks; do run strong "$p" "$agents" "$@"; done
for p in $ranks; do run weak "$p" $((agents * p)) "$@"; done
echo "scaling.sh: records appended to $records" >&2
