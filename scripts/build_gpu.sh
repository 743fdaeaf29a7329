#!/usr/bin/env bash
# Builds all of Herd (library, herd command, tests, benchmarks, example) for a GPU backend: the gate
# that every kernel compiles and links for CUDA and HIP, run by CI on machines without a GPU.
#
#   scripts/build_gpu.sh cuda|hip [--run OUTDIR] [extra CMake arguments]
#
# Kokkos comes from scripts/setup_gpu.sh unless Kokkos_ROOT names one (a site's Kokkos 4.x, say,
# with its nvcc_wrapper or hipcc as compiler). With --run, on a machine with that GPU, it then runs
# the tests and the benchmarks there (scripts/run_gpu.sh) and writes their results into OUTDIR.
# Builds in build-<backend>; warnings in Herd's code are errors here as in the host build.
set -euo pipefail
cd "$(dirname "$0")/.."
backend=${1:-}
[[ $backend == cuda || $backend == hip ]] || { echo "usage: scripts/build_gpu.sh cuda|hip [--run OUTDIR]" >&2; exit 2; }
shift
out=
if [[ ${1:-} == --run ]]; then
  out=${2:?--run needs an output folder}
  shift 2
fi

# A given Kokkos means a machine set up by its owner (a GPU node may have no package archive):
# nothing is installed then, and CMake names whatever is missing.
if [[ -z ${Kokkos_ROOT:-} ]]; then
  Kokkos_ROOT=$(scripts/setup_gpu.sh "$backend")
fi
if [[ $backend == cuda ]]; then
  command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
  compiler=$Kokkos_ROOT/bin/nvcc_wrapper
  # A host-only function called from device code is only a warning by default, and a crash or a
  # silent wrong result at run time; make it an error. nvcc_wrapper would hand -Werror to the host
  # compiler, so the flag goes to nvcc through its environment.
  export NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:+$NVCC_APPEND_FLAGS }-Werror cross-execution-space-call"
else
  compiler=$(command -v hipcc)
  # Without an AMD GPU, hipcc asks rocm_agent_enumerator for one at every link and prints its
  # failure; name the target it would find instead.
  if [[ ! -e /sys/class/kfd ]]; then
    mkdir -p "${BUILD_DIR:-build-$backend}"
    echo gfx908 >"${BUILD_DIR:-build-$backend}/rocm-targets.txt"
    export ROCM_TARGET_LST=$PWD/${BUILD_DIR:-build-$backend}/rocm-targets.txt
  fi
fi
build=${BUILD_DIR:-build-$backend}
# Kokkos Kernels is built for the host backend only; the GPU builds go without it (no RCM ordering,
# no SpMV reference benchmark), which CMake reports.
# Whether each header compiles on its own does not depend on the backend; the host build checks it.
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$Kokkos_ROOT" \
  -DCMAKE_CXX_COMPILER="$compiler" -DHerd_ENABLE_KOKKOSKERNELS=OFF -DHerd_ENABLE_MPI=ON -DHerd_ENABLE_METIS=ON \
  -DHerd_CHECK_HEADERS=OFF -DHerd_WARNINGS_AS_ERRORS=ON "$@" >"$build/configure-gpu.log" 2>&1 || { cat "$build/configure-gpu.log" >&2; exit 1; }
echo "[build-gpu] compiling Herd for $backend in $build" >&2
cmake --build "$build" -j "${JOBS:-$(nproc)}"
echo "[build-gpu] Herd compiles and links for $backend" >&2
# Without a GPU (a login node, a build machine), the command still answers --version and refuses a
# run with one line saying why, instead of aborting.
if [[ $backend == cuda && ! -e /dev/nvidia0 ]]; then
  "$build/bin/herd" --version >/dev/null
  status=0
  message=$("$build/bin/herd" run --agents 1000 --steps 2 --quiet 2>&1) || status=$?
  if [[ $status != 1 || $(wc -l <<<"$message") != 1 || $message != "herd: no usable device"* ]]; then
    echo "[build-gpu] without a GPU, herd run should exit 1 with one line; it gave $status:" >&2
    echo "$message" >&2
    exit 1
  fi
  echo "[build-gpu] without a GPU: $message" >&2
fi

[[ -z $out ]] && exit 0
exec scripts/run_gpu.sh "$backend" "$build" "$out"
