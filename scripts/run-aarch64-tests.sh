#!/usr/bin/env bash
# The CPU code cross-built for AArch64 (build-aarch64, Debian's cross gcc,
# tools/cross/aarch64-linux-gnu.txt) and tested under qemu-user: every unit
# test, checkasm (each NEON kernel against C, bit for bit) and every golden
# set (Netflix's x86 results, bit for bit). The GPU backends, FFmpeg and the
# CLI's other suites are the native build's. Without the cross compiler or
# qemu, and no way to install them, it skips: the log then holds one
# skipped entry saying why (for scripts/test_summary.py).
# Result: build-aarch64/meson-logs/testlog.json.
# usage: scripts/run-aarch64-tests.sh [meson test options...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-aarch64

skip() {
    echo "SKIP: $1"
    mkdir -p "$build/meson-logs"
    python3 -c 'import json, sys; print(json.dumps({"name": "aarch64 cross build and tests",
        "result": "SKIP", "stdout": "SKIP: " + sys.argv[1]}))' "$1" \
        > "$build/meson-logs/testlog.json"
    exit 0
}

if ! scripts/install-missing.sh aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu \
        qemu-aarch64:qemu-user libc6-dev-arm64-cross; then
    skip "gcc-aarch64-linux-gnu, libc6-dev-arm64-cross or qemu-user could not be installed: the AArch64 build and its NEON kernels are not tested"
fi
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" --cross-file tools/cross/aarch64-linux-gnu.txt \
        -Dcuda=disabled -Dopencl=disabled -Dffmpeg=disabled -Dpython=disabled >/dev/null || exit 1
fi
ninja -C "$build" >/dev/null || exit 1
# qemu runs several times slower than the processor: more time per test.
meson test -C "$build" --print-errorlogs --num-processes 2 --timeout-multiplier 4 \
    --suite unit --suite golden "$@"
