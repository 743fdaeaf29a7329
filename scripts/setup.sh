#!/usr/bin/env bash
# Installs what Herd needs on Debian 12 and builds Kokkos + Kokkos Kernels 3.4.01
# (OpenMP + Serial) from Debian's trilinos source package into a cache prefix.
# Work already done is skipped, so running it again is cheap.
#
#   scripts/setup.sh            # packages + Kokkos + Kokkos Kernels (what the tests need)
#   scripts/setup.sh --run      # only what building and running herd needs: Kokkos, no Kernels
#   Kokkos_ROOT=/path scripts/setup.sh   # use an existing Kokkos; build nothing
#
# Prints nothing on success but progress lines; the prefix it built is written to
# $HERD_DEPS/env.sh for the build scripts to source.
set -euo pipefail

HERD_DEPS=${HERD_DEPS:-$HOME/.cache/herd-deps}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$HERD_DEPS"
log() { printf '[setup] %s\n' "$*"; }

run_only=false
case "${1:-}" in
  --run) run_only=true ;;
  "") ;;
  *) echo "scripts/setup.sh: unknown option '$1' (--run, or nothing)" >&2; exit 2 ;;
esac

packages=(build-essential cmake ninja-build pkg-config libopenmpi-dev openmpi-bin libhdf5-openmpi-dev libmetis-dev
  libptscotch-dev libscotchparmetis-dev libcli11-dev nlohmann-json3-dev)
$run_only || packages+=(git hdf5-tools libgtest-dev libgmock-dev libbenchmark-dev
  libhdf5-dev python3 python3-h5py python3-matplotlib python3-numpy doxygen clang-format clang-tidy clang libclang-rt-14-dev)

need_pkgs=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need_pkgs+=("$p")
done
if ((${#need_pkgs[@]})); then
  log "installing Debian packages: ${need_pkgs[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

if [[ -n "${Kokkos_ROOT:-}" ]]; then
  log "using existing Kokkos at $Kokkos_ROOT"
  printf 'export Kokkos_ROOT=%q\n' "$Kokkos_ROOT" >"$HERD_DEPS/env.sh"
  [[ -n "${KokkosKernels_ROOT:-}" ]] && printf 'export KokkosKernels_ROOT=%q\n' "$KokkosKernels_ROOT" >>"$HERD_DEPS/env.sh"
  exit 0
fi

src=$HERD_DEPS/src
prefix=$HERD_DEPS/kokkos-openmp
# Bump when a build recipe below changes (recipe: Kokkos; kernels_recipe: Kokkos Kernels), so that
# caches made by an older recipe are rebuilt.
recipe=2
kernels_recipe=3
if [[ ! -d $src/packages/kokkos ]]; then
  log "fetching Debian's trilinos source package (Kokkos 3.4.01 inside)"
  dpkg-query -W -f='${Status}' dpkg-dev 2>/dev/null | grep -q 'install ok installed' ||
    { apt-get update -q >/dev/null; apt-get install -y -q --no-install-recommends dpkg-dev >/dev/null; }
  work=$(mktemp -d)
  list=$work/src.list
  mkdir -p "$work/lists/partial"
  echo "deb-src http://deb.debian.org/debian bookworm main" >"$list"
  apt_src=(-q -o Dir::Etc::SourceList="$list" -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists="$work/lists" -o APT::Sandbox::User=root)
  apt-get "${apt_src[@]}" update >/dev/null
  (cd "$work" && apt-get "${apt_src[@]}" source --download-only trilinos >/dev/null)
  mkdir -p "$src.tmp"
  tar -xf "$work"/trilinos_*.orig.tar.* -C "$src.tmp" --strip-components=1 \
    --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  rm -rf "$src" && mv "$src.tmp" "$src" && rm -rf "$work"
fi

if [[ ! -f $prefix/.done-kokkos-$recipe ]]; then
  log "building Kokkos 3.4.01 (OpenMP + Serial) into $prefix"
  cmake -S "$src/packages/kokkos" -B "$HERD_DEPS/build-kokkos" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=ON -DCMAKE_INSTALL_RPATH="$prefix/lib" \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_TESTS=OFF >/dev/null
  cmake --build "$HERD_DEPS/build-kokkos" -j "$JOBS" >/dev/null
  cmake --install "$HERD_DEPS/build-kokkos" >/dev/null
  touch "$prefix/.done-kokkos-$recipe"
fi

# Kokkos Kernels serves RCM reordering, the reference SpMV and the tests, not the default job.
if ! $run_only && [[ ! -f $prefix/.done-kernels-$kernels_recipe ]]; then
  log "building Kokkos Kernels 3.4.01 into $prefix (about 5 minutes, once)"
  # Few explicit instantiations keep the build short (OpenMP only: Herd calls Kokkos Kernels on the
  # default host space); Herd instantiates what it uses.
  cmake -S "$src/packages/kokkos-kernels" -B "$HERD_DEPS/build-kernels" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" \
    -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=ON -DCMAKE_INSTALL_RPATH="$prefix/lib" \
    -DKokkosKernels_INST_DOUBLE=ON -DKokkosKernels_INST_FLOAT=OFF \
    -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF \
    -DKokkosKernels_INST_ORDINAL_INT=ON -DKokkosKernels_INST_ORDINAL_INT64_T=OFF \
    -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=ON \
    -DKokkosKernels_INST_LAYOUTLEFT=ON -DKokkosKernels_INST_LAYOUTRIGHT=OFF -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF \
    -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TESTS=OFF >"$HERD_DEPS/kernels-configure.log" 2>&1
  cmake --build "$HERD_DEPS/build-kernels" -j "$JOBS" >/dev/null
  cmake --install "$HERD_DEPS/build-kernels" >/dev/null
  touch "$prefix/.done-kernels-$kernels_recipe"
fi

printf 'export Kokkos_ROOT=%q\n' "$prefix" >"$HERD_DEPS/env.sh"
[[ -f $prefix/.done-kernels-$kernels_recipe ]] && printf 'export KokkosKernels_ROOT=%q\n' "$prefix" >>"$HERD_DEPS/env.sh"
log "dependencies ready in $prefix"
