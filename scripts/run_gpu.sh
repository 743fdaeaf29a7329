#!/usr/bin/env bash
# Runs a GPU build of Herd on a machine with that GPU: the test suite, the benchmarks and the
# default job, with the results and the device description written into OUTDIR.
#
#   scripts/run_gpu.sh cuda|hip BUILD_DIR OUTDIR
#
# Separate from scripts/build_gpu.sh so that a build made on a login node (which compiles for the
# GPU without having one) can run on a compute node. The benchmarks run once on one rank and the
# halo benchmarks on 2 ranks sharing the GPU. Exits non-zero if any part failed; every part runs.
# BENCHMARK_FILTER (a Google Benchmark regular expression) limits the benchmarks to those it
# matches, for a GPU lease too short for all of them (docs/benchmarks.md lists the figures wanted).
#   OUTDIR/device.txt          nvidia-smi or rocminfo
#   OUTDIR/ctest.log, .xml     the test suite (spack, hygiene and docs checks excluded: not GPU work)
#   OUTDIR/benchmarks.json     herd_benchmarks (Google Benchmark JSON; .txt: its console table)
#   OUTDIR/mpi-benchmarks.json herd_mpi_benchmarks on 2 ranks
#   OUTDIR/default-job.json    `herd run --json` on the built-in default
set -uo pipefail
cd "$(dirname "$0")/.."
backend=${1:-}
build=${2:-}
out=${3:-}
[[ ($backend == cuda || $backend == hip) && -d $build && -n $out ]] ||
  { echo "usage: scripts/run_gpu.sh cuda|hip BUILD_DIR OUTDIR" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [[ $backend == cuda ]]; then
  nvidia-smi >"$out/device.txt" 2>&1
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >>"$out/device.txt" 2>&1
else
  rocminfo >"$out/device.txt" 2>&1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 KOKKOS_DISABLE_WARNINGS=1
status=0
part() {  # part NAME COMMAND...: runs one part, remembers a failure, goes on
  local name=$1
  shift
  echo "[run-gpu] $name" >&2
  "$@" || { echo "[run-gpu] $name failed (exit $?)" >&2; status=1; }
}
part tests ctest --test-dir "$build" --output-on-failure -LE "spack|hygiene|docs" --output-junit "$out/ctest.xml" \
  >"$out/ctest.log" 2>&1
part benchmarks "$build/bin/herd_benchmarks" --benchmark_out="$out/benchmarks.json" --benchmark_out_format=json \
  --benchmark_min_time=0.5 --benchmark_filter="${BENCHMARK_FILTER:-.}" >"$out/benchmarks.txt" 2>&1
if [[ -x $build/bin/herd_mpi_benchmarks ]]; then
  part mpi-benchmarks mpiexec -n 2 "$build/bin/herd_mpi_benchmarks" --benchmark_out="$out/mpi-benchmarks.json" \
    --benchmark_out_format=json >"$out/mpi-benchmarks.txt" 2>&1
fi
part default-job "$build/bin/herd" run --json "$out/default-job.json" >"$out/default-job.txt" 2>&1
echo "[run-gpu] results in $out" >&2
exit $status
