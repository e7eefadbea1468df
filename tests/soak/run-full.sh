#!/usr/bin/env bash
# The soak tests at full size, with their figures:
#   1000 submissions from 4 processes x 8 threads under random faults
#   24 followed log streams of 5000 records over 10 s under random faults
#   a sweep of 2000 variants under lost replies and 503s on runs/submit
# Usage: tests/soak/run-full.sh [BUILD_DIR] (default: build; built if needed).
# Exit status: non-zero when a soak failed.
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
if [ ! -d "$build" ]; then
  meson setup "$build" >/dev/null || exit 1
fi
ninja -C "$build" tests/soak/soak_submit tests/soak/soak_logs tests/soak/soak_sweep >/dev/null || exit 1
export FAKEWS_PY=${FAKEWS_PY:-$PWD/tests/fakews/fakews.py}
export PYTHON=${PYTHON:-$(command -v python3)}
rc=0
"$build/tests/soak/soak_submit" 1000 4 8 || rc=1
"$build/tests/soak/soak_logs" 24 5000 10 || rc=1
"$build/tests/soak/soak_sweep" 2000 8 || rc=1
exit $rc
