#!/usr/bin/env bash
# The main job on this machine: examples/local-train.yaml runs in the local
# workspace (docs/local.md) — submitted with the same checks and artifacts as
# on Databricks, its command run with the platform's environment, its logs
# followed until it ends — then the run is listed and shown, and the loss
# curve it logged is drawn.
#   bash examples/local-demo.sh PATH/TO/air
# The state directory is $XDG_STATE_HOME/air/local (~/.local/state/air/local).
set -euo pipefail
air=${1:?usage: local-demo.sh PATH/TO/air}
here=$(cd "$(dirname "$0")" && pwd)

echo "== air run --local -f examples/local-train.yaml --watch"
"$air" run --local -f "$here/local-train.yaml" --watch
run_id=$("$air" list --local --all-status --limit 1 -o json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["runs"][0]["run_id"])')
echo
echo "== air list --local --all-status --limit 5"
"$air" list --local --all-status --limit 5
echo
echo "== air get --local $run_id"
"$air" get --local "$run_id"
echo
echo "== air logs --local $run_id --tail 3"
"$air" logs --local "$run_id" --tail 3
echo
echo "== air metrics --local $run_id"
"$air" metrics --local "$run_id"
