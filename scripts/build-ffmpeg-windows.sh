#!/usr/bin/env bash
# FFmpeg 7.1 cross-built for 64-bit Windows against this project's static
# libvmaf.pc, and its libvmaf filter checked under Wine against the Linux CLI;
# or, with --module-libs, FFmpeg's static libraries that the tool's Windows
# input module (exactvmaf-ffmpeg.dll) links.
#   usage: scripts/build-ffmpeg-windows.sh [WORKDIR]
#          scripts/build-ffmpeg-windows.sh --module-libs [WORKDIR]
#   WORKDIR  where everything is built, outside the repo (default
#            /tmp/exactvmaf-ffmpeg-win); a step already done there is not redone
#            (delete WORKDIR/ffmpeg-build to rebuild FFmpeg)
# Steps:
#  1. the library cross-built (cross/x86_64-w64-mingw32.txt, static) and
#     installed into WORKDIR/prefix: lib/libexactvmaf.a, lib/pkgconfig/libvmaf.pc
#  2. FFmpeg's source: Debian trixie's ffmpeg source package (7.1.x), fetched
#     with apt through a temporary deb-src entry for the machine's own Debian
#     mirror, removed again (as /work/shared/tools/build-ffmpeg-nvdec.sh does)
#  3. FFmpeg configured with the configure line a Windows packager uses
#     (--target-os=mingw32 --enable-cross-compile --pkg-config-flags=--static
#     --enable-libvmaf), only what a y4m pair through the libvmaf filter needs,
#     PKG_CONFIG_PATH at our libvmaf.pc; ffmpeg.exe built (timed)
#  4. the check: for each pair, `wine ffmpeg.exe -i dis.y4m -i ref.y4m -lavfi
#     libvmaf=log_fmt=json:log_path=out.json -f null -` against the Linux
#     tool's `exactvmaf -r ref.y4m -d dis.y4m --json -o x.json` (build/, set up
#     and the tool built when missing), every frame's every metric and every
#     pooled value compared by scripts/compare-vmaf-json.py as printed text,
#     twice: at full precision (EXACTVMAF_PRECISION=max for the filter, which
#     writes through our vmaf_write_output, and --precision max: "%.17g", so
#     equal text is an equal 64-bit pattern) and at the default "%.6f". Then
#     a negative control: one pair's FFmpeg log against another pair's Linux
#     log must differ, or the check itself is broken.
# Pairs: q_160x90_8b (48 frames, 8-bit) and src01_576x324_10b (3 frames,
# 10-bit) from tests/data, wrapped as y4m.
# Needs gcc-mingw-w64, wine, meson, make, pkg-config, apt (root) for the source.
# About 4 min from nothing on 2 cores shared with a CI run (the library 1.3 min,
# the source 7 s, FFmpeg's configure 43-51 s and make 104-168 s, the check 2 s),
# plus the Linux tool when build/ lacks it: not in CI (docs/testing.md says why).
# Exit status 0 only when every value is identical and the control differs.
#
# --module-libs: steps 2 and 3' only. FFmpeg's libavformat, libavcodec,
# libavfilter, libswscale and libavutil, static (Win32 threads, x86 asm where
# nasm is), installed with their .pc files into WORKDIR/module-prefix, the
# place scripts/run-windows-tests.sh looks for them (EXACTVMAF_FFMPEG_WIN
# names another WORKDIR). The parts the tool's input module reads: the
# demuxers mov (mp4, m4v, mov), matroska (mkv, webm), avi, mpegts, mpegps,
# ivf, yuv4mpegpipe, rawvideo and the raw H.264/HEVC/MPEG elementary streams;
# the CPU decoders h264, hevc, vp8, vp9, mpeg1video, mpeg2video, mpeg4,
# mjpeg, prores, ffv1, rawvideo; the filters buffer, buffersink, scale,
# format, null. Not there: AV1 (FFmpeg's software AV1 is libdav1d, not
# built here) and NVDEC (FFmpeg 7.1 needs nv-codec-headers >= 11.1.5.3,
# Debian 12 has 11.1.5.2: --hwdec on Windows says the decoder has no NVDEC).
# Once: 15.5 min on 2 cores shared with a run of the Windows tests
# (configure 94 s, make install 835 s; 5.4 min of CPU), outside CI's budget.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
mode=filter
if [ "${1:-}" = --module-libs ]; then
    mode=module
    shift
fi
W=$(realpath -m "${1:-/tmp/exactvmaf-ffmpeg-win}")
case "$W/" in "$repo"/*) echo "WORKDIR must be outside the repo"; exit 2 ;; esac
mkdir -p "$W"
jobs=${JOBS:-2}
export WINEPREFIX="$W/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
log() { echo "[$(date +%H:%M:%S)] $*"; }

scripts/install-missing.sh x86_64-w64-mingw32-gcc-posix:gcc-mingw-w64 wine:wine wine64 \
    make:make pkg-config:pkg-config meson:meson ninja:ninja-build > /dev/null

# 2. FFmpeg 7.1's source, Debian trixie's package.
fetch_source() {
    if ! ls -d "$W"/ffmpeg-7.1*/configure > /dev/null 2>&1; then
        log "fetching FFmpeg's source (Debian trixie ffmpeg)"
        src=/etc/apt/sources.list.d/build-ffmpeg-windows-trixie-src.sources
        uri=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 | awk '{print $2}')
        [ -n "$uri" ] || { echo "no Debian source entry (URIs:) found in /etc/apt/sources.list.d"; exit 1; }
        printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$uri" > $src
        trap 'rm -f $src; apt-get update -qq > /dev/null 2>&1 || true' EXIT
        apt-get update -qq > /dev/null 2>&1
        ( cd "$W" && apt-get source --download-only ffmpeg/trixie > /dev/null 2>&1 )
        rm -f $src
        trap - EXIT
        apt-get update -qq > /dev/null 2>&1 || true
        tar -xf "$W"/ffmpeg_*.orig.tar.xz -C "$W"
    fi
}

# 3'. --module-libs: FFmpeg's static libraries for the tool's input module.
if [ $mode = module ]; then
    fetch_source
    ffsrc=$(ls -d "$W"/ffmpeg-7.1* | head -1)
    mp=$W/module-prefix
    if [ ! -f "$mp/lib/pkgconfig/libavformat.pc" ]; then
        asm=--disable-x86asm
        command -v nasm > /dev/null && asm=
        rm -rf "$W/module-build" "$mp"
        mkdir -p "$W/module-build"
        log "configuring $(basename "$ffsrc")'s libraries for the input module (x86_64-w64-mingw32)"
        t0=$(date +%s)
        ( cd "$W/module-build" && "$ffsrc/configure" --prefix="$mp" \
            --target-os=mingw32 --arch=x86_64 --cross-prefix=x86_64-w64-mingw32- --enable-cross-compile \
            --pkg-config=pkg-config --enable-static --disable-shared \
            --disable-everything --disable-doc --disable-programs $asm --disable-network \
            --disable-autodetect --enable-w32threads --disable-avdevice --disable-swresample \
            --enable-protocol=file,pipe \
            --enable-demuxer=mov,matroska,avi,mpegts,mpegps,ivf,yuv4mpegpipe,rawvideo,h264,hevc,m4v,mpegvideo \
            --enable-decoder=h264,hevc,vp8,vp9,mpeg1video,mpeg2video,mpeg4,mjpeg,prores,ffv1,rawvideo \
            --enable-parser=h264,hevc,vp8,vp9,mpeg4video,mpegvideo,mjpeg \
            --enable-filter=buffer,buffersink,scale,format,null ) > "$W/module-configure.log" 2>&1 \
            || { tail -30 "$W/module-configure.log"; exit 1; }
        t1=$(date +%s)
        log "building and installing the libraries into $mp (make -j$jobs)"
        make -C "$W/module-build" -j"$jobs" install > "$W/module-make.log" 2>&1 \
            || { tail -30 "$W/module-make.log"; exit 1; }
        t2=$(date +%s)
        echo "configure $((t1 - t0)) s, make -j$jobs $((t2 - t1)) s" | tee "$W/module-build-time.txt"
    fi
    log "FFmpeg's libraries for the input module: $mp (scripts/run-windows-tests.sh builds"
    log "exactvmaf-ffmpeg.dll against them: EXACTVMAF_FFMPEG_WIN=$W when WORKDIR is not the default)"
    exit 0
fi

# 1. Our library for Windows, static, with its libvmaf.pc.
if [ ! -f "$W/prefix/lib/pkgconfig/libvmaf.pc" ]; then
    log "cross-building the library (static) into $W/prefix"
    rm -rf "$W/lib-build"
    meson setup "$W/lib-build" --cross-file cross/x86_64-w64-mingw32.txt --prefix="$W/prefix" \
        --libdir=lib -Ddefault_library=static -Dffmpeg=disabled -Dcuda=disabled \
        -Dpython=disabled > "$W/lib-setup.log" 2>&1 || { tail -20 "$W/lib-setup.log"; exit 1; }
    # The install's devel files include the tool's import library: the tool
    # is built with the library, the tests are not.
    ninja -C "$W/lib-build" -j"$jobs" src/libexactvmaf.a tools/exactvmaf.exe \
        > "$W/lib-build.log" 2>&1 || { tail -20 "$W/lib-build.log"; exit 1; }
    meson install -C "$W/lib-build" --no-rebuild --tags devel > "$W/lib-install.log" 2>&1 \
        || { tail -20 "$W/lib-install.log"; exit 1; }
fi
# A client linked as pkg-config --static says, without -static: it must not
# need a libexactvmaf DLL (a static install holds the .a alone).
printf '#include <libvmaf.h>\nint main(void) { VmafConfiguration c = {0}; VmafContext *v;\n    return vmaf_init(&v, c); }\n' \
    > "$W/client.c"
x86_64-w64-mingw32-gcc-posix "$W/client.c" -o "$W/client.exe" \
    $(PKG_CONFIG_PATH="$W/prefix/lib/pkgconfig" pkg-config --static --cflags --libs libvmaf)
if x86_64-w64-mingw32-objdump -p "$W/client.exe" | grep -qi 'DLL Name: libexactvmaf'; then
    echo "a client of the static install needs libexactvmaf's DLL"; exit 1
fi
log "libvmaf.pc: $(grep -E '^(Version|Libs|Libs.private):' "$W/prefix/lib/pkgconfig/libvmaf.pc" | tr '\n' ' ')"

fetch_source
ffsrc=$(ls -d "$W"/ffmpeg-7.1* | head -1)

# 3. FFmpeg for Windows against our libvmaf.pc.
ffexe=$W/ffmpeg-build/ffmpeg.exe
if [ ! -f "$ffexe" ]; then
    asm=--disable-x86asm
    command -v nasm > /dev/null && asm=
    rm -rf "$W/ffmpeg-build"
    mkdir -p "$W/ffmpeg-build"
    log "configuring $(basename "$ffsrc") for x86_64-w64-mingw32"
    t0=$(date +%s)
    ( cd "$W/ffmpeg-build" && PKG_CONFIG_PATH="$W/prefix/lib/pkgconfig" "$ffsrc/configure" \
        --target-os=mingw32 --arch=x86_64 --cross-prefix=x86_64-w64-mingw32- --enable-cross-compile \
        --pkg-config=pkg-config --pkg-config-flags=--static --enable-static --disable-shared \
        --enable-libvmaf --disable-everything --disable-doc $asm \
        --disable-ffplay --disable-ffprobe --disable-network --disable-autodetect \
        --enable-demuxer=yuv4mpegpipe --enable-decoder=rawvideo --enable-encoder=wrapped_avframe \
        --enable-muxer=null --enable-protocol=file,pipe \
        --enable-filter=libvmaf,format,scale,null,buffer,buffersink \
        --extra-ldflags=-static ) > "$W/ffmpeg-configure.log" 2>&1 \
        || { tail -30 "$W/ffmpeg-configure.log"; grep -B2 -A20 'vmaf' "$W/ffmpeg-build/ffbuild/config.log" | tail -40; exit 1; }
    t1=$(date +%s)
    log "building ffmpeg.exe (make -j$jobs)"
    make -C "$W/ffmpeg-build" -j"$jobs" ffmpeg.exe > "$W/ffmpeg-make.log" 2>&1 \
        || { tail -30 "$W/ffmpeg-make.log"; exit 1; }
    t2=$(date +%s)
    echo "configure $((t1 - t0)) s, make -j$jobs $((t2 - t1)) s" | tee "$W/ffmpeg-build-time.txt"
fi
log "ffmpeg.exe: $(wine "$ffexe" -hide_banner -version 2>/dev/null | head -1 | tr -d '\r')"
wine "$ffexe" -hide_banner -filters 2>/dev/null | grep -q ' libvmaf ' \
    || { echo "ffmpeg.exe has no libvmaf filter"; exit 1; }

# 4. The check, against the Linux tool.
if [ ! -x build/tools/exactvmaf ]; then
    log "building the Linux tool (build/tools/exactvmaf)"
    [ -f build/build.ninja ] || meson setup build -Dcuda=disabled > /dev/null 2>&1
    ninja -C build -j"$jobs" tools/exactvmaf > /dev/null 2>&1
fi
pairs="q_160x90_8b src01_576x324_10b"
python3 - "$W/pairs" $pairs <<'EOF'
"""The pairs unpacked from tests/data (checked against its sums) and wrapped as y4m."""
import json, lzma, os, sys
sys.path.insert(0, 'tests')
import testdata
dest = sys.argv[1]
sums = testdata.read_sums('tests/data')
fix = {f['name']: f for f in json.load(open('tests/data/fixtures/fixtures.json'))}
for name in sys.argv[2:]:
    f = fix[name]
    os.makedirs(os.path.join(dest, name), exist_ok=True)
    for side in ('ref', 'dis'):
        path = 'fixtures/%s/%s' % (name, f[side])
        data = lzma.decompress(open('tests/data/' + path + '.xz', 'rb').read())
        if testdata.sha256(data) != sums[path]:
            sys.exit('%s: not its sum in tests/data/SHA256SUMS' % path)
        w, h, bd = f['width'], f['height'], f['bitdepth']
        cs = {'yuv420p': '420', 'yuv444p': '444'}[f['pix_fmt']]
        if bd > 8:
            cs += 'p%d' % bd
        fsize = len(data) // f['frames']
        with open(os.path.join(dest, name, side + '.y4m'), 'wb') as out:
            out.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C%s\n' % (w, h, cs.encode()))
            for i in range(f['frames']):
                out.write(b'FRAME\n' + data[i * fsize:(i + 1) * fsize])
EOF
rc=0
# Twice per pair: at full precision (EXACTVMAF_PRECISION=max, which Wine hands
# to the Windows process, against --precision max: "%.17g" round-trips, so
# equal text is an equal 64-bit pattern) and at the default "%.6f" (what a user
# of the filter gets: neither the variable nor --precision given).
for p in $pairs; do
    d=$W/pairs/$p
    for prec in max default; do
        rm -f "$d/ffmpeg-$prec.json" "$d/linux-$prec.json"
        fenv=(env -u EXACTVMAF_PRECISION) lopt=()
        [ $prec = max ] && fenv=(env EXACTVMAF_PRECISION=max) lopt=(--precision max)
        ( cd "$d" && "${fenv[@]}" wine "$ffexe" -hide_banner -nostdin -loglevel error \
            -i dis.y4m -i ref.y4m -lavfi libvmaf=log_fmt=json:log_path=ffmpeg-$prec.json -f null - ) \
            || { echo "$p: ffmpeg.exe failed"; rc=1; continue; }
        build/tools/exactvmaf -r "$d/ref.y4m" -d "$d/dis.y4m" --json -o "$d/linux-$prec.json" -q \
            "${lopt[@]}" || { echo "$p: exactvmaf failed"; rc=1; continue; }
        scripts/compare-vmaf-json.py "$d/ffmpeg-$prec.json" "$d/linux-$prec.json" \
            --label "$p precision $prec, ffmpeg.exe vs Linux" || rc=1
    done
done
# Negative control: a different pair's values must be told apart.
set -- $pairs
if scripts/compare-vmaf-json.py "$W/pairs/$1/ffmpeg-max.json" "$W/pairs/$2/linux-max.json" \
        --label "control: $1 ffmpeg.exe vs $2 Linux (must differ)"; then
    echo "the negative control found no difference: the comparison is broken"
    rc=1
fi
[ $rc = 0 ] && log "PASS" || log "FAIL"
exit $rc
