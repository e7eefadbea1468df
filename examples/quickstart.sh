#!/usr/bin/env bash
# Install, build, and run the main job end to end on this machine:
#   1. install the Debian packages (only missing ones) and build libair + air
#   2. validate a shipped workload offline (air run --dry-run)
#   3. start the bundled fake workspace on 127.0.0.1, submit the workload with
#      --watch (logs stream until the run ends), then show it with get and list.
# Nothing leaves this machine: the "workspace" is tests/fakews/fakews.py.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${AIR_BUILD_DIR:-build}

bash .ci/install-deps
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
ninja -C "$build" >/dev/null
air="$root/$build/cli/air"
workload="$root/examples/single-gpu.yaml"

echo "== air run --dry-run (offline validation)"
"$air" run -f "$workload" --dry-run

tmp=$(mktemp -d)
cleanup() { [ -n "${fakews_pid:-}" ] && kill "$fakews_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
python3 tests/fakews/fakews.py --port-file "$tmp/port" >"$tmp/fakews.log" 2>&1 &
fakews_pid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
url="http://127.0.0.1:$(cat "$tmp/port")"
# Runs go PENDING -> RUNNING -> SUCCESS within a few seconds and log a few lines.
python3 - "$url" <<'PY'
import sys, urllib.request
body = b'{"lifecycle":{"pending_ms":1000,"running_ms":3000,"result":"SUCCESS"},"auto_logs":5}'
urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/__fakews/config", data=body, method="POST"))
PY

export DATABRICKS_HOST="$url" DATABRICKS_TOKEN="dapi-test" DATABRICKS_CONFIG_FILE=/dev/null
export AIR_LOGS_POLL_MS=500
echo
echo "== air run --watch against the local fake workspace at $url"
"$air" run -f "$workload" --watch
run_id=$("$air" list --all-status -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["runs"][0]["run_id"])')
echo
echo "== air get $run_id -o json"
"$air" get "$run_id" -o json
echo
echo "== air list --all-status"
"$air" list --all-status
