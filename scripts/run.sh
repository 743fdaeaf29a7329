#!/usr/bin/env bash
# Sets up what is missing, builds Herd, and runs the default job (or `herd` with the arguments
# given): an SEIR epidemic on a built-in population of a million agents.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the command needs: Kokkos without Kokkos Kernels, and herd without its tests.
scripts/setup.sh --run
HERD_TARGET=herd_cli scripts/build.sh >/dev/null
source scripts/huge_pages.sh
exec build/bin/herd "$@"
