#!/usr/bin/env bash
# Build exactvmaf and run the whole test suite; ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build || exit 1
# What the tests drive: ffmpeg makes the compressed inputs, Chromium opens the report.
need=()
command -v ffmpeg >/dev/null || need+=(ffmpeg)
command -v chromium >/dev/null || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then s=; else s=sudo; fi
    $s apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $s apt-get install -y -qq "${need[@]}" >/dev/null
fi
meson test -C build --print-errorlogs --num-processes 2 "$@"
rc=$?
python3 scripts/test_summary.py build/meson-logs/testlog.json
exit $rc
