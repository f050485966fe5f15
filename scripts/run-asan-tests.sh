#!/usr/bin/env bash
# The host code built with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-asan, without the CUDA kernels: nothing of them runs on the host),
# running the quick suite, every extractor on tiny frames and the signal
# cases, and the OpenCL pipeline's host side (the device checks, the
# pipeline test, the VMAF goldens through OpenCL). The slow suites'
# arithmetic is the same host code on more content, which the normal build
# checks; the parity runs' kernels run in the OpenCL runtime, which no
# sanitizer instruments. Every sanitizer report, from any process the tests
# start (the CLI runs under Python), is written to build-asan/sanitizer-logs/;
# any report fails the run, even inside a test that is expected to fail.
# Results: build-asan/meson-logs/testlog.json, testlog-tiny.json and
# testlog-opencl.json, and build-asan/sanitizer-results.jsonl (for
# scripts/test_summary.py).
# usage: scripts/run-asan-tests.sh [meson test options...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-asan
scripts/setup.sh "$build" -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized -Dcuda=disabled || exit 1

logs="$PWD/$build/sanitizer-logs"
rm -rf "$logs"
mkdir -p "$logs"
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:check_initialization_order=1:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
# Sanitized code runs several times slower: more time per test.
meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier 4 \
    --suite quick --no-suite opencl "$@"
rc=$?
meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier 4 \
    --logbase testlog-tiny "robustness tiny frames and signals" "$@" || rc=1
# PoCL's device threads crash LeakSanitizer's tracer at exit ("Tracer caught
# signal 11", exit 1, in some processes): the OpenCL part runs with every
# address and undefined-behaviour check but the leak check, into a log of
# its own.
ASAN_OPTIONS="${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}" \
    meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier 4 \
    --logbase testlog-opencl "opencl device" "gpu pipeline opencl" \
    "golden opencl integer-models" "$@" || rc=1

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
    "asan=$build/meson-logs/testlog-tiny.json" "asan=$build/meson-logs/testlog-opencl.json" \
    "asan=$results"
exit $rc
