#!/usr/bin/env bash
# The command-line suite built without FFmpeg's libraries (build-noffmpeg,
# -Dffmpeg=disabled): y4m and raw YUV must work there, and what needs the
# libraries must be refused clearly. Results: build-noffmpeg/meson-logs/testlog.json.
# usage: scripts/run-noffmpeg-tests.sh [meson test options...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-noffmpeg
scripts/setup.sh "$build" -Dffmpeg=disabled -Dcuda=disabled || exit 1
meson test -C "$build" --suite cli --print-errorlogs --num-processes 2 "$@"
rc=$?
python3 scripts/test_summary.py "noffmpeg=$build/meson-logs/testlog.json"
exit $rc
