#!/usr/bin/env bash
# Builds Kokkos 3.4.01 (Serial) with clang++ from the same Debian trilinos source as
# scripts/setup.sh, into a cache prefix next to the OpenMP one, and prints that prefix. Work already
# done is skipped. scripts/test.sh --sanitize builds and tests Herd against it, with the sanitizers:
# a second compiler and a second host backend, where g++ and OpenMP may hide code whose meaning is
# the compiler's.
set -euo pipefail
cd "$(dirname "$0")/.."

HERD_DEPS=${HERD_DEPS:-$HOME/.cache/herd-deps}
JOBS=${JOBS:-$(nproc)}
log() { printf '[setup-clang] %s\n' "$*" >&2; }
# The packages (clang among them) and the Debian source come first.
scripts/setup.sh >&2

src=$HERD_DEPS/src/packages/kokkos
prefix=$HERD_DEPS/kokkos-serial-clang
recipe=1
stamp=$prefix/.done-$recipe
if [[ ! -f $stamp ]]; then
  work=$HERD_DEPS/build-kokkos-clang
  rm -rf "$work" "$prefix"
  log "building Kokkos 3.4.01 (Serial, clang++) into $prefix"
  cmake -S "$src" -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_SERIAL=ON \
    -DKokkos_ENABLE_TESTS=OFF >"$HERD_DEPS/kokkos-clang-configure.log" 2>&1 ||
    { cat "$HERD_DEPS/kokkos-clang-configure.log" >&2; exit 1; }
  cmake --build "$work" -j "$JOBS" >"$HERD_DEPS/kokkos-clang-build.log" 2>&1 ||
    { tail -50 "$HERD_DEPS/kokkos-clang-build.log" >&2; exit 1; }
  cmake --install "$work" >/dev/null
  rm -rf "$work"
  touch "$stamp"
fi
echo "$prefix"
