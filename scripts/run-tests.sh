#!/usr/bin/env bash
# Build exactvmaf and run the whole test suite; ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build || exit 1
# What the tests drive: ffmpeg makes the compressed inputs, Chromium opens the
# report, Debian's python3 with numpy and Dask runs the Python package's tests.
scripts/install-missing.sh ffmpeg:ffmpeg chromium:chromium python3-numpy python3-distributed \
    || exit 1
meson test -C build --print-errorlogs --num-processes 2 "$@"
rc=$?
python3 scripts/test_summary.py build/meson-logs/testlog.json
exit $rc
