#!/usr/bin/env bash
# Build the libFuzzer targets (tests/fuzz; clang, ASan + UBSan) in
# build-fuzz and run each for a bounded time, starting from its seed
# corpus. A crash, leak, sanitizer report, timeout or out-of-memory fails
# the target and saves the input in build-fuzz/fuzz-artifacts/<target>/
# (reproduce: build-fuzz/tests/fuzz/fuzz_<target> <that file>; to keep it
# as a regression seed, copy it into tests/fuzz/corpus/<target>/).
# Results: build-fuzz/fuzz-results.jsonl (for scripts/test_summary.py).
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET (45)] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-fuzz
secs=${1:-45}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(y4m yuv model options api)

scripts/install-missing.sh clang:clang || exit 1
results="$build/fuzz-results.jsonl"
if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" -Dfuzzing=true -Dcuda=disabled -Dbuildtype=debugoptimized \
        -Db_sanitize=address,undefined -Db_lundef=false \
        "-Dc_args=-fsanitize=fuzzer-no-link" >/dev/null || exit 1
else
    meson configure "$build" "-Dc_args=-fsanitize=fuzzer-no-link" >/dev/null || exit 1
fi
mkdir -p "$build"
if ! ninja -C "$build" $(printf 'tests/fuzz/fuzz_%s ' "${targets[@]}") >/dev/null; then
    echo "fuzz build failed"
    printf '{"name": "fuzz build", "result": "FAIL"}\n' > "$results"
    exit 1
fi

export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export ASAN_OPTIONS="detect_leaks=1"
: > "$results"
rc=0
for t in "${targets[@]}"; do
    work="$build/fuzz-corpus/$t"
    art="$build/fuzz-artifacts/$t"
    log="$build/fuzz-$t.log"
    mkdir -p "$work" "$art"
    # -close_fd_mask=3: the library's own messages about bad input are
    # expected by the thousand; libFuzzer and the sanitizers still report.
    timeout $((secs + 300)) "$build/tests/fuzz/fuzz_$t" "$work" "tests/fuzz/corpus/$t" \
        -max_total_time="$secs" -timeout=30 -rss_limit_mb=2560 -malloc_limit_mb=2048 \
        -max_len=65536 -close_fd_mask=3 -print_final_stats=1 \
        -artifact_prefix="$art/" >"$log" 2>&1
    status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [ $status -eq 0 ]; then
        result=OK
        echo "fuzz $t: ${execs:-?} inputs in ${secs} s, no crash"
    else
        result=FAIL
        rc=1
        echo "fuzz $t: FAILED (exit $status), input saved in $art/:"
        grep -E -A30 'ERROR|SUMMARY|runtime error|deadly signal|Timeout|out-of-memory' "$log" | head -60
    fi
    printf '{"name": "fuzz %s (%s s, %s inputs)", "result": "%s"}\n' "$t" "$secs" \
        "${execs:-?}" "$result" >> "$results"
done
exit $rc
