#!/usr/bin/env bash
# Build libair from scratch and run every test:
#   1. a -Werror build (debugoptimized): all suites, then the compiled tests
#      of the library's suites again under valgrind memcheck (errors and
#      definite leaks fail; interpreted tests are not repeated there)
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build: all suites but
#      embed (leaks fail)
#   3. a ThreadSanitizer build: the suites that share one client between
#      threads (transport, runs, soak), config (loads in several threads
#      share libfyaml's parser objects) and the local workspace (local: its
#      supervisor program and the CLI instrumented too)
#   4. with clang: every libFuzzer target over 20 000 inputs from a fixed seed
#      (fuzz/run.sh, ASan+UBSan; skipped without clang)
#   5. packaging, on the first build: `meson dist`, the Debian packages built
#      from the tarball (running its own tests), lintian, the packages unpacked
#      (tests/package; AIR_PACKAGE_TESTS=1; AIR_PACKAGE_TESTS=0 leaves it out)
# The soak suite (tests/soak) runs in builds 1-3 at its CI size; its figures
# are printed after build 1.
# Prints "tests: N passed, M failed" (meson's results added up) last and exits
# non-zero when anything failed. Build directories: build-ci-*/.
# Extra arguments are passed to every `meson test` (e.g. --suite config).
set -u
cd "$(dirname "$0")/.."
export AIR_TEST_CI=1
passed=0
failed=0
# Most tests wait on servers, runs and polls rather than compute: two per
# core keep the cores busy. Under valgrind, which computes, one per core.
jobs=$(( $(nproc) * 2 ))
valgrind_jobs=$(nproc)

count_results() { # testlog*.json -> "ok fail"
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
    elif r != "SKIP":
        bad += 1
print(ok, bad)
PY
}

setup_build() { # name, meson options... -> 0 when built
  local name=$1; shift
  local dir=build-ci-$name
  echo "=== $name build ==="
  rm -rf "$dir"
  if ! meson setup "$dir" -Dwerror=true "$@" >"$dir.setup.log" 2>&1; then
    cat "$dir.setup.log"; echo "setup of $name build failed"; failed=$((failed + 1)); return 1
  fi
  local start=$SECONDS
  if ! ninja -C "$dir" >"$dir.build.log" 2>&1; then
    tail -50 "$dir.build.log"; echo "$name build failed"; failed=$((failed + 1)); return 1
  fi
  echo "$name build: $((SECONDS - start)) s"
}

run_tests() { # name, label, logname, meson test options...
  local dir=build-ci-$1 label=$2 log=$3; shift 3
  rm -f "$dir/meson-logs/$log"
  local start=$SECONDS procs=$jobs
  [ "$label" = valgrind ] && procs=$valgrind_jobs
  meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes "$procs" "$@" \
    | grep -vE '^ *[0-9]+/[0-9]+ .* (OK|SKIP) ' || true
  local ok=0 bad=1
  [ -f "$dir/meson-logs/$log" ] && read -r ok bad < <(count_results "$dir/meson-logs/$log")
  echo "$label: $ok passed, $bad failed ($((SECONDS - start)) s)"
  passed=$((passed + ok)); failed=$((failed + bad))
}

EXTRA=("$@")
c_suites=(--suite unit --suite config --suite transport --suite submit --suite sweeps
          --suite checks --suite runs --suite fakews --suite local --no-suite local_cli)

soak_figures() { # testlog.json -> the lines the soak tests print
  python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    if line.strip():
        t = json.loads(line)
        if ":soak / " in t.get("name", ""):
            for l in t.get("stdout", "").splitlines():
                if l.startswith("soak "):
                    print("  " + l)
PY
}

# The release build makes the static library too (tests/embed links it).
if setup_build release -Dbuildtype=debugoptimized -Ddefault_library=both; then
  run_tests release release testlog.json "${EXTRA[@]}"
  [ -f build-ci-release/meson-logs/testlog.json ] && soak_figures build-ci-release/meson-logs/testlog.json
  run_tests release valgrind testlog-valgrind.json --setup=valgrind "${c_suites[@]}" "${EXTRA[@]}"
fi
if setup_build asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false; then
  # Installing and consuming the library (embed) says nothing more under
  # ASan, and an instrumented libair cannot be linked by a plain consumer.
  run_tests asan asan testlog.json --no-suite embed "${EXTRA[@]}"
fi
if setup_build tsan -Dbuildtype=debugoptimized -Db_sanitize=thread -Db_lundef=false; then
  export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
  run_tests tsan tsan testlog.json --suite transport --suite runs --suite soak --suite config \
    --suite local \
    "${EXTRA[@]}"
  unset TSAN_OPTIONS
fi
if [ ${#EXTRA[@]} -eq 0 ]; then
  echo "=== fuzz (clang) ==="
  rm -rf build-ci-fuzz
  fuzz_start=$SECONDS
  # A fixed seed and count: the result depends on the code, not on the
  # machine's speed or luck (a random seed once found a crash inside
  # libfyaml's parser clean-up that no fixed input of ours reaches).
  bash fuzz/run.sh build-ci-fuzz runs=20000 | tee build-ci-fuzz.log
  fuzz_rc=${PIPESTATUS[0]}
  echo "fuzz build and runs: $((SECONDS - fuzz_start)) s"
  if [ "$fuzz_rc" -ne 77 ]; then
    read -r fok fbad < <(sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' build-ci-fuzz.log)
    [ -z "${fok:-}" ] && { fok=0; fbad=1; }
    passed=$((passed + fok)); failed=$((failed + fbad))
  fi
fi
if [ "${AIR_PACKAGE_TESTS:-1}" != 0 ] && [ -f build-ci-release/build.ninja ]; then
  echo "=== packages ==="
  export AIR_PACKAGE_TESTS=1
  run_tests release packages testlog.json --suite package
  unset AIR_PACKAGE_TESTS
fi

echo "all of it: $SECONDS s"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
