#!/usr/bin/env bash
# Run every libFuzzer target over a copy of its seed corpus:
#   fuzz/run.sh BUILD_DIR [SECONDS | runs=N]
# SECONDS (default 4): that long each, from a random seed, to explore.
# runs=N: N inputs each from a fixed seed, the same inputs on every machine
# for the same build, however fast it is: what CI runs, so that its result
# depends on the code alone (a crash found is found again by the same
# command).
# BUILD_DIR is a clang build with -Dfuzzers=enabled (made here when it does
# not exist: ASan+UBSan, only the fuzz targets are built). Prints one line
# per target ("fuzz_x: ok, N runs" or its crash report) and, last,
# "fuzz: N passed, M failed"; the exit status is non-zero on a failure, 77
# when clang is not installed.
set -u
cd "$(dirname "$0")/.."
build=${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS]}
budget=${2:-4}
case $budget in
  runs=*) limit=(-seed=1 "-runs=${budget#runs=}") ;;
  *) limit=("-max_total_time=$budget") ;;
esac
targets=(fuzz_config fuzz_run_json fuzz_runs_list fuzz_logs_page fuzz_http_error fuzz_profile
         fuzz_token_reply fuzz_docker_config)
if ! command -v clang >/dev/null; then
  echo "fuzz: clang not installed, skipped"
  exit 77
fi
if [ ! -d "$build" ]; then
  if ! CC=clang meson setup "$build" -Dwerror=true -Dfuzzers=enabled -Dbuildtype=debug \
       -Db_sanitize=address,undefined -Db_lundef=false -Dbindings=disabled \
       >"$build.setup.log" 2>&1; then
    cat "$build.setup.log"; echo "fuzz: setup failed"; exit 1
  fi
fi
if ! ninja -C "$build" "${targets[@]/#/fuzz/}" >"$build.build.log" 2>&1; then
  tail -40 "$build.build.log"; echo "fuzz: build failed"; exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  dict=()
  [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
  # New inputs go to the first directory (a scratch copy), never the tree.
  if "$build/fuzz/$t" "${dict[@]}" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$work/" "$work/$t" "fuzz/corpus/$t" >"$work/$t.log" 2>&1; then
    echo "$t: ok, $(grep -o 'Done [0-9]* runs' "$work/$t.log" | grep -o '[0-9]*') runs"
    passed=$((passed + 1))
  else
    grep -E 'ERROR|runtime error|SUMMARY|Test unit|failed \(line|^ +#[0-9]+ ' "$work/$t.log" | head -30
    mkdir -p "$build/fuzz-failures"
    cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$build/fuzz-failures/" 2>/dev/null
    rm -f "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*
    echo "$t: FAILED (the input is in $build/fuzz-failures)"
    failed=$((failed + 1))
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
