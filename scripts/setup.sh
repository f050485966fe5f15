#!/usr/bin/env bash
# Install the build tools when missing (Debian/Ubuntu), then configure and build.
# usage: scripts/setup.sh [BUILDDIR] [meson setup options...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
# FFmpeg's libraries: compressed input (mp4, mkv, ...) and scaling. Optional
# for the build (y4m and raw YUV work without), installed when available.
# The OpenCL ICD loader and PoCL (an OpenCL device on the CPU): nothing needs
# them to build; the OpenCL tests run on PoCL where no GPU driver is there.
scripts/install-missing.sh meson:meson ninja:ninja-build cc:gcc python3:python3 \
    pkg-config:pkg-config libavformat-dev libavcodec-dev libavfilter-dev libavutil-dev \
    ocl-icd-libopencl1 pocl-opencl-icd || exit 1
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$@" >/dev/null
fi
ninja -C "$build" >/dev/null
