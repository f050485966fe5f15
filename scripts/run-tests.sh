#!/usr/bin/env bash
# Build exactvmaf and run the quick test suite (meson suite "quick": a few
# minutes on two cores), every golden set included, on the test data the
# build unpacks from tests/data; ends with "golden: N outputs compared, N
# identical" and "N passed, N failed". The slow suites (OpenCL parity and
# goldens on PoCL, the Dask batch runner, ASan, fuzzing, CUDA kernels for
# every architecture) are .ci/run's.
# usage: scripts/run-tests.sh [meson test options, e.g. --suite opencl to add that suite]
set -uo pipefail
cd "$(dirname "$0")/.."
# What the tests drive, installed before the build is configured (meson
# looks for a python3 with numpy then): ffmpeg makes the compressed inputs,
# Chromium opens the report, Debian's python3 with numpy runs the Python
# package's tests, valgrind checks the CLI.
scripts/install-missing.sh ffmpeg:ffmpeg chromium:chromium python3-numpy valgrind:valgrind \
    || exit 1
setup=()
if [ ! -f build/build.ninja ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    # No NVIDIA driver: no CUDA kernel could run here, so none is compiled
    # (.ci/run compiles them; a build folder configured before keeps its own
    # configuration).
    echo "run-tests.sh: no NVIDIA driver here: the CUDA kernels are not built"
    setup=(-Dcuda=disabled)
fi
scripts/setup.sh build "${setup[@]}" || exit 1
meson test -C build --print-errorlogs --num-processes 2 --suite quick "$@"
rc=$?
python3 scripts/test_summary.py build/meson-logs/testlog.json
exit $rc
