#!/usr/bin/env bash
# Sets up what is missing, builds Herd with its tests, and runs them all through CTest.
#   scripts/test.sh              Release build in ./build
#   scripts/test.sh --sanitize   AddressSanitizer + UndefinedBehaviorSanitizer build in ./build-sanitize
#   scripts/test.sh --clang      clang++ build against a Serial-only Kokkos in ./build-clang
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
  if [[ $k == 1 && ("$arg" == --sanitize || "$arg" == --clang) ]]; then continue; fi
  if [[ "$arg" == --* ]] && ! grep -qxF -- "${arg%%=*}" <<<"$ctest_options"; then
    echo "scripts/test.sh: unknown option '$arg' (--sanitize or --clang first; the rest goes to ctest)" >&2
    exit 2
  fi
done
if [[ "${1:-}" == "--sanitize" ]]; then
  shift
  # -O1 and line tables only (-g1): what the sanitizers' reports need, at about half the compile
  # time of -O2 -g. Headers compiled on their own do not depend on how Herd is instrumented.
  BUILD_DIR=build-sanitize CMAKE_BUILD_TYPE=RelWithDebInfo scripts/build.sh -DHerd_WARNINGS_AS_ERRORS=ON -DHerd_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DHerd_ENABLE_BENCHMARKS=OFF -DHerd_CHECK_HEADERS=OFF
  # The spack, formatting, install and script checks do not depend on how Herd is compiled, and
  # the memory figures are the sanitizer's own: the Release run has them. The output-file and
  # COVID command suites start herd dozens of times for code that the unit, cli, cli.mpi and
  # cli.hdf5 tests also run (COVID with and without attributes, every output format). The unit
  # tests run with one thread: a second thread reaches the same memory through the same code.
  ctest --test-dir build-sanitize --output-on-failure -j 2 -LE "spack|hygiene|docs|fuzz|serial|install|tools|scripts" \
    -E "^(cli[.](outputs|covid)|unit[.]threads2)$" "$@"
elif [[ "${1:-}" == "--clang" ]]; then
  shift
  # Another compiler (argument order, undefined behaviour and floating point are its own) and
  # another host backend as the default: the trajectories and outputs the tests expect are the same.
  # Both compilers use the same standard library, so headers compiled on their own stay with Release.
  prefix=$(scripts/setup_clang.sh)
  Kokkos_ROOT=$prefix KokkosKernels_ROOT='' BUILD_DIR=build-clang scripts/build.sh -DCMAKE_CXX_COMPILER=clang++ \
    -DHerd_WARNINGS_AS_ERRORS=ON -DHerd_ENABLE_KOKKOSKERNELS=OFF -DHerd_ENABLE_BENCHMARKS=OFF -DHerd_CHECK_HEADERS=OFF
  # What a compiler decides shows in the library's results: the unit and MPI tests (trajectories
  # bit for bit, one and several ranks), the example, and the main command suite. The other command
  # suites test options, files and messages, which the Release and sanitizer runs cover; with a
  # Serial default, a second thread would repeat the first run.
  ctest --test-dir build-clang --output-on-failure -j 2 -R "^(unit[.]threads1|mpi[.].*|contract[.].*|example[.].*|cli)$" "$@"
else
  scripts/build.sh -DHerd_WARNINGS_AS_ERRORS=ON
  ctest --test-dir build --output-on-failure -j 2 "$@"
fi
