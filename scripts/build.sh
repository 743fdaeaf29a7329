#!/usr/bin/env bash
# Configures and builds Herd in ./build against the Kokkos that scripts/setup.sh prepared (or the
# one Kokkos_ROOT names), with MPI and METIS. Extra arguments go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
HERD_DEPS=${HERD_DEPS:-$HOME/.cache/herd-deps}
# shellcheck disable=SC1091
[[ -z "${Kokkos_ROOT:-}" && -f $HERD_DEPS/env.sh ]] && source "$HERD_DEPS/env.sh"
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} \
  -DHerd_ENABLE_MPI=ON -DHerd_ENABLE_METIS=ON -DHerd_ENABLE_HDF5=ON "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}"
