#!/usr/bin/env bash
# Build libair twice from scratch and run every test in each build:
#   1. a -Werror build (debugoptimized)
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build (leaks fail)
# Prints "tests: N passed, M failed" (meson's results added up) last and exits
# non-zero when anything failed. Build directories: build-ci-*/.
set -u
cd "$(dirname "$0")/.."
export AIR_TEST_CI=1
passed=0
failed=0

count_results() { # testlog.json -> "ok fail"
  python3 - "$1" <<'PY'
import json, sys
ok = bad = 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line).get("result")
    if r in ("OK", "EXPECTEDFAIL"):
        ok += 1
    elif r not in ("SKIP",):
        bad += 1
print(ok, bad)
PY
}

run_build() {
  local name=$1; shift
  local dir=build-ci-$name
  echo "=== $name build ==="
  rm -rf "$dir"
  if ! meson setup "$dir" -Dwerror=true "$@" >"$dir.setup.log" 2>&1; then
    cat "$dir.setup.log"; echo "setup of $name build failed"; failed=$((failed + 1)); return
  fi
  if ! ninja -C "$dir" >"$dir.build.log" 2>&1; then
    tail -50 "$dir.build.log"; echo "$name build failed"; failed=$((failed + 1)); return
  fi
  meson test -C "$dir" --print-errorlogs --num-processes "$(nproc)" "${MESON_TEST_ARGS[@]}" \
    | grep -vE '^ *[0-9]+/[0-9]+ .* (OK|SKIP) ' || true
  local log=$dir/meson-logs/testlog.json
  if [ -f "$log" ]; then
    read -r ok bad < <(count_results "$log")
  else
    ok=0; bad=1
  fi
  echo "$name: $ok passed, $bad failed"
  passed=$((passed + ok)); failed=$((failed + bad))
}

MESON_TEST_ARGS=("$@")
run_build release -Dbuildtype=debugoptimized
run_build asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
