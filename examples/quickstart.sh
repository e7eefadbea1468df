#!/usr/bin/env bash
# Install, build, and run the main job end to end on this machine:
#   1. install the Debian packages (only missing ones) and build libair + air
#   2. validate a shipped workload offline (air run --dry-run)
#   3. run a small training workload on this machine with the platform's
#      contract (air run --local --watch), then list and show it
#      (examples/local-demo.sh), and draw its loss curve (air metrics). No
#      account and no network are needed: a local workspace keeps its runs
#      in ~/.local/state/air/local.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${AIR_BUILD_DIR:-build}

bash .ci/install-deps
echo "== building libair and air in $build/ (about a minute the first time)"
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
ninja -C "$build" >/dev/null
echo
case $build in /*) air="$build/cli/air" ;; *) air="$root/$build/cli/air" ;; esac

echo "== air run --dry-run (offline validation)"
"$air" run -f "$root/examples/local-train.yaml" --dry-run
echo
exec bash "$root/examples/local-demo.sh" "$air"
