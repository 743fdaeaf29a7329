#!/usr/bin/env bash
# Configures and builds Herd in ./build against the Kokkos that scripts/setup.sh prepared (or the
# one Kokkos_ROOT names), with MPI, METIS, PT-Scotch and ParMETIS (Scotch's library of its interface
# on Debian), and with Kokkos Kernels where KokkosKernels_ROOT names it. Extra arguments go to
# CMake; HERD_TARGET builds one target (herd_cli: the command only).
set -euo pipefail
cd "$(dirname "$0")/.."
HERD_DEPS=${HERD_DEPS:-$HOME/.cache/herd-deps}
# shellcheck disable=SC1091
[[ -z "${Kokkos_ROOT:-}" && -f $HERD_DEPS/env.sh ]] && source "$HERD_DEPS/env.sh"
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} \
  -DHerd_ENABLE_MPI=ON -DHerd_ENABLE_METIS=ON -DHerd_ENABLE_PTSCOTCH=ON -DHerd_ENABLE_PARMETIS=ON \
  -DHerd_ENABLE_HDF5=ON \
  -DHerd_ENABLE_KOKKOSKERNELS="$([[ -n "${KokkosKernels_ROOT:-}" ]] && echo ON || echo OFF)" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}" ${HERD_TARGET:+--target "$HERD_TARGET"}
