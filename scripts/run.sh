#!/usr/bin/env bash
# Sets up what is missing, builds Herd, and runs the default job (or `herd` with the arguments
# given): an SEIR epidemic on a built-in population of a million agents.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
source scripts/huge_pages.sh
exec build/bin/herd "$@"
