#!/usr/bin/env bash
# Builds Kokkos 3.4.01 for a GPU backend from the same Debian trilinos source as scripts/setup.sh,
# into a cache prefix next to the OpenMP one, and prints that prefix. Work already done is skipped.
#
#   scripts/setup_gpu.sh cuda   # needs nvcc (PATH or /usr/local/cuda/bin); Kokkos_ARCH_AMPERE80 by default
#   scripts/setup_gpu.sh hip    # installs Debian's ROCm 5.2 (hipcc) if missing; Kokkos_ARCH_VEGA908
#
# HERD_KOKKOS_ARCH overrides the Kokkos architecture option (e.g. Kokkos_ARCH_VOLTA70). The CUDA
# build applies scripts/patches/kokkos-3.4.01-cuda13.patch: CUDA 13 makes half conversions
# explicit, drops __half2double and changes cudaMemPrefetchAsync; nvcc_wrapper's default sm_35 is
# gone. Kokkos Kernels is not built for GPUs here (Herd builds without it, minus RCM ordering).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
backend=${1:-}
[[ $backend == cuda || $backend == hip ]] || { echo "usage: scripts/setup_gpu.sh cuda|hip" >&2; exit 2; }

HERD_DEPS=${HERD_DEPS:-$HOME/.cache/herd-deps}
JOBS=${JOBS:-$(nproc)}
log() { printf '[setup-gpu] %s\n' "$*" >&2; }
# The Debian source and the OpenMP Kokkos come first.
scripts/setup.sh >&2

src=$HERD_DEPS/src/packages/kokkos
prefix=$HERD_DEPS/kokkos-$backend
recipe=1
if [[ $backend == cuda ]]; then
  command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
  command -v nvcc >/dev/null || { echo "setup_gpu.sh: nvcc not found (PATH, /usr/local/cuda/bin)" >&2; exit 1; }
  arch=${HERD_KOKKOS_ARCH:-Kokkos_ARCH_AMPERE80}
  options=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON "-D$arch=ON")
else
  if ! command -v hipcc >/dev/null; then
    log "installing Debian's ROCm (hipcc, libamdhip64-dev, rocm-device-libs)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends hipcc libamdhip64-dev rocm-device-libs >/dev/null
  fi
  arch=${HERD_KOKKOS_ARCH:-Kokkos_ARCH_VEGA908}
  options=(-DKokkos_ENABLE_HIP=ON "-D$arch=ON")
fi

stamp=$prefix/.done-$recipe-$arch
if [[ ! -f $stamp ]]; then
  work=$HERD_DEPS/build-kokkos-$backend
  rm -rf "$work" "$prefix"
  mkdir -p "$work"
  cp -r "$src" "$work/src"
  if [[ $backend == cuda ]]; then
    patch -s -p1 -d "$work/src" <"$root/scripts/patches/kokkos-3.4.01-cuda13.patch"
    compiler=$work/src/bin/nvcc_wrapper
  else
    compiler=hipcc
  fi
  log "building Kokkos 3.4.01 ($backend, $arch) into $prefix"
  cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_SERIAL=ON \
    -DKokkos_ENABLE_TESTS=OFF "${options[@]}" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log" >&2; exit 1; }
  cmake --build "$work/build" -j "$JOBS" >"$work/build.log" 2>&1 || { tail -50 "$work/build.log" >&2; exit 1; }
  cmake --install "$work/build" >/dev/null
  rm -rf "$work"
  touch "$stamp"
fi
echo "$prefix"
