#!/usr/bin/env bash
# Install the build tools when missing (Debian/Ubuntu), then configure and build.
# usage: scripts/setup.sh [BUILDDIR] [meson setup options...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
need=()
command -v meson >/dev/null || need+=(meson)
command -v ninja >/dev/null || need+=(ninja-build)
command -v cc >/dev/null || need+=(gcc)
command -v python3 >/dev/null || need+=(python3)
command -v pkg-config >/dev/null || need+=(pkg-config)
# FFmpeg's libraries: compressed input (mp4, mkv, ...) and scaling. Optional
# for the build (y4m and raw YUV work without), installed when available.
if command -v dpkg-query >/dev/null; then
    for p in libavformat-dev libavcodec-dev libavfilter-dev libavutil-dev; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
    done
fi
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then s=; else s=sudo; fi
    $s apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $s apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$@" >/dev/null
fi
ninja -C "$build" >/dev/null
