#!/usr/bin/env bash
# The whole test suite again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan). Every sanitizer report, from any
# process the tests start (the CLI runs under Python), is written to
# build-asan/sanitizer-logs/; any report fails the run, even inside a test
# that is expected to fail. Results: build-asan/meson-logs/testlog.json
# (testlog-opencl.json for the OpenCL suite) and
# build-asan/sanitizer-results.jsonl (for scripts/test_summary.py).
# usage: scripts/run-asan-tests.sh [meson test options...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-asan
scripts/setup.sh "$build" -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized || exit 1

logs="$PWD/$build/sanitizer-logs"
rm -rf "$logs"
mkdir -p "$logs"
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:check_initialization_order=1:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
# Sanitized code runs several times slower: more time per test.
meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier 4 \
    --no-suite opencl --no-suite opencl-parity "$@"
rc=$?
# The OpenCL suite loads PoCL, whose device threads crash LeakSanitizer's
# tracer at exit ("Tracer caught signal 11", exit 1, in some processes):
# it runs with every address and undefined-behaviour check but the leak
# check, into a log of its own.
ASAN_OPTIONS="${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}" \
    meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier 4 \
    --suite opencl --logbase testlog-opencl "$@" || rc=1

results="$build/sanitizer-results.jsonl"
reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
    echo "sanitizer reports:"
    for f in $reports; do
        echo "== $f"
        head -n 40 "$f"
    done
    printf '{"name": "no sanitizer reports", "result": "FAIL"}\n' > "$results"
    rc=1
else
    printf '{"name": "no sanitizer reports", "result": "OK"}\n' > "$results"
fi
python3 scripts/test_summary.py "asan=$build/meson-logs/testlog.json" \
    "asan=$build/meson-logs/testlog-opencl.json" "asan=$results"
exit $rc
