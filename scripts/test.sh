#!/usr/bin/env bash
# Sets up what is missing, builds Herd with its tests, and runs them all through CTest.
#   scripts/test.sh              Release build (g++, OpenMP) in ./build
#   scripts/test.sh --sanitize   clang++ against a Serial-only Kokkos, with AddressSanitizer and
#                                UndefinedBehaviorSanitizer, in ./build-sanitize
# Other arguments go to ctest (e.g. -L unit, -R cli); a long option ctest does not know is refused.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# ctest ignores a long option it does not know and runs every test, so a misspelt mode
# (--sanitise) would pass as the Release run: refuse what neither this script nor ctest knows.
ctest_options=$(ctest --help | grep -oE -- '--[A-Za-z][A-Za-z-]*' | sort -u)
for ((k = 1; k <= $#; ++k)); do
  arg=${!k}
  if [[ $k == 1 && "$arg" == --sanitize ]]; then continue; fi
  if [[ "$arg" == --* ]] && ! grep -qxF -- "${arg%%=*}" <<<"$ctest_options"; then
    echo "scripts/test.sh: unknown option '$arg' (--sanitize first; the rest goes to ctest)" >&2
    exit 2
  fi
done
if [[ "${1:-}" == "--sanitize" ]]; then
  shift
  # Another compiler (argument order, undefined behaviour and floating point are its own), another
  # host backend as the default, and the sanitizers, in one build: the trajectories and outputs the
  # tests expect are the same bits. Herd's code does not depend on the host backend, and clang
  # compiles the instrumented tests in a third of g++'s time. -O1 and line tables only: what the
  # sanitizers' reports need. Both compilers use the same standard library, so headers compiled on
  # their own stay with Release.
  prefix=$(scripts/setup_clang.sh)
  Kokkos_ROOT=$prefix KokkosKernels_ROOT='' BUILD_DIR=build-sanitize CMAKE_BUILD_TYPE=RelWithDebInfo scripts/build.sh \
    -DCMAKE_CXX_COMPILER=clang++ -DHerd_WARNINGS_AS_ERRORS=ON -DHerd_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DHerd_ENABLE_KOKKOSKERNELS=OFF \
    -DHerd_ENABLE_BENCHMARKS=OFF -DHerd_CHECK_HEADERS=OFF
  # The spack, formatting, install and script checks do not depend on how Herd is compiled, and
  # the memory figures are the sanitizer's own: the Release run has them. Of the command suites,
  # the instrumented run keeps cli, which reaches every model, input reader, output and refusal
  # (and a few scenario files); the unit and MPI tests cover the engine, ensembles, scenarios,
  # temporal networks, partitioners and HDF5 I/O beneath the others, which start herd hundreds of
  # times on those paths (cli.mpi and cli.scenario alone took 6.5 minutes instrumented). With a
  # Serial default, a second thread would repeat the first run.
  ctest --test-dir build-sanitize --output-on-failure -j 2 -LE "spack|hygiene|docs|fuzz|serial|install|tools|scripts" \
    -E "^(cli[.].*|unit[.]threads2)$" "$@"
else
  scripts/build.sh -DHerd_WARNINGS_AS_ERRORS=ON
  ctest --test-dir build --output-on-failure -j 2 "$@"
fi
