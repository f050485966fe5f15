#!/usr/bin/env bash
# The library and the tool cross-built for 64-bit Windows (build-win, Debian's
# mingw-w64 with posix threads, cross/x86_64-w64-mingw32.txt) and tested under
# Wine: every unit test, the CLI test and every golden set (Netflix's results,
# bit for bit), then every golden output at --precision max compared byte for
# byte with the Linux build's (all but the "fps" line, the run's speed) (build/, made by scripts/setup.sh when missing),
# and a run with Windows paths (spaces, backslashes, a drive letter) for the
# inputs, the output and the model, equal to Linux's. The GPU backends' host
# code builds (the CUDA kernels are the native build's); nothing GPU runs under
# Wine. Without mingw-w64 or Wine, and no way to install them, it skips: the
# log then holds one skipped entry saying why (for scripts/test_summary.py).
# Compressed input: where FFmpeg's libraries for Windows are (made once,
# outside the repo, by `scripts/build-ffmpeg-windows.sh --module-libs`, about
# 5 min: too long for CI's budget every run, so they are kept in
# /tmp/exactvmaf-ffmpeg-win, or $EXACTVMAF_FFMPEG_WIN, and reused), the tool's
# FFmpeg input module is built (tools/exactvmaf-ffmpeg.dll, those libraries
# linked in) and tests/windows_decode_test.py compares the Windows tool on
# H.264, HEVC and FFV1 files, and scaled, with the Linux tool byte for byte;
# where they are not, that check is one skipped entry naming the command.
# Results: build-win/meson-logs/testlog.json (unit, golden),
# testlog-cli.json, and build-win/windows-compare.json (the byte comparisons:
# one entry per golden set, one for the paths run, the compressed-input checks).
# usage: scripts/run-windows-tests.sh [meson test options...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-win
linux=build

skip() {
    echo "SKIP: $1"
    mkdir -p "$build/meson-logs"
    python3 -c 'import json, sys; print(json.dumps({"name": "windows cross build and tests",
        "result": "SKIP", "stdout": "SKIP: " + sys.argv[1]}))' "$1" \
        > "$build/meson-logs/testlog.json"
    : > "$build/meson-logs/testlog-cli.json"
    : > "$build/windows-compare.json"
    exit 0
}

if ! scripts/install-missing.sh x86_64-w64-mingw32-gcc-posix:gcc-mingw-w64 wine:wine wine64; then
    skip "gcc-mingw-w64 or wine64 could not be installed: the Windows build is not tested"
fi
# A Wine prefix of our own, made once: the user's ~/.wine is left alone.
export WINEPREFIX="$PWD/$build/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$build"
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    wineboot -i >/dev/null 2>&1 || skip "wineboot cannot make a Wine prefix: nothing runs under Wine"
fi
# FFmpeg's static libraries for Windows, where they were made: the input
# module links them (a static-only FFmpeg writes its libraries into Libs).
ffwin=${EXACTVMAF_FFMPEG_WIN:-/tmp/exactvmaf-ffmpeg-win}/module-prefix/lib/pkgconfig
ffopts=(-Dffmpeg=disabled)
if [ -f "$ffwin/libavformat.pc" ]; then
    ffopts=(-Dffmpeg=enabled -Dpkg_config_path="$ffwin")
fi
if [ ! -f "$build/build.ninja" ]; then
    # No nvcc kernels: the cubins are the native build's (the same for both
    # systems); the CUDA host code needs them, OpenCL's builds without.
    meson setup "$build" --cross-file cross/x86_64-w64-mingw32.txt \
        -Dcuda=disabled -Dpython=disabled "${ffopts[@]}" >/dev/null || exit 1
    echo "${ffopts[*]}" > "$build/ffmpeg-options"
elif [ "$(cat "$build/ffmpeg-options" 2>/dev/null)" != "${ffopts[*]}" ]; then
    # The libraries came or went since the build was configured.
    meson configure "$build" "${ffopts[@]}" >/dev/null || exit 1
    echo "${ffopts[*]}" > "$build/ffmpeg-options"
fi
ninja -C "$build" >/dev/null || exit 1
if [ ! -x "$linux/tools/exactvmaf" ]; then
    scripts/setup.sh "$linux" -Dcuda=disabled >/dev/null || exit 1
fi

keep_win="$PWD/$build/golden-out/windows" keep_lin="$PWD/$build/golden-out/linux"
rm -rf "$keep_win" "$keep_lin"
rc=0
# Wine starts several times slower than a process: more time per test.
EXACTVMAF_GOLDEN_KEEP="$keep_win" meson test -C "$build" --print-errorlogs --num-processes 2 \
    --timeout-multiplier 4 --suite unit --suite golden "$@" || rc=1
meson test -C "$build" --print-errorlogs --timeout-multiplier 4 --logbase testlog-cli \
    cli "$@" || rc=1
# The same goldens through the Linux tool, kept for the byte comparison.
EXACTVMAF_GOLDEN_KEEP="$keep_lin" meson test -C "$linux" --num-processes 2 --suite golden \
    --no-suite opencl --logbase testlog-golden-for-windows >/dev/null

python3 - "$keep_lin" "$keep_win" "$build" "$linux" <<'EOF' || rc=1
"""Byte comparisons, Linux against Windows: every kept golden output, and one run
with Windows paths (spaces, backslashes, drive Z:, Wine's view of /) for the
inputs, the model and the output. One testlog entry per comparison."""
import json, os, re, shutil, subprocess, sys

lin, win, build, linux = sys.argv[1:5]
# The run's speed is the one line a JSON may differ in: it is dropped, nothing else.
FPS = re.compile(rb'^  "fps": [0-9.]+,\n', re.M)


def same_bytes(a, b):
    return FPS.sub(b'', open(a, 'rb').read(), count=1) == FPS.sub(b'', open(b, 'rb').read(), count=1)


entries = []
same = tot = 0
for st in sorted(os.listdir(lin)) if os.path.isdir(lin) else []:
    files = sorted(os.listdir(os.path.join(lin, st)))
    diff = [f for f in files
            if not os.path.exists(os.path.join(win, st, f)) or
            not same_bytes(os.path.join(lin, st, f), os.path.join(win, st, f))]
    same += len(files) - len(diff)
    tot += len(files)
    entries.append(('golden bytes ' + st, 'FAIL' if diff else 'OK',
                    '%d/%d output files byte-identical%s' % (
                        len(files) - len(diff), len(files),
                        '; differ: ' + ', '.join(diff[:5]) if diff else '')))
if not entries:
    entries.append(('golden bytes', 'FAIL', 'no Linux golden outputs were kept'))

# Windows paths: a folder with spaces, given with backslashes and a drive letter.
d = os.path.abspath(os.path.join(build, 'paths test', 'in and out'))
shutil.rmtree(os.path.dirname(d), ignore_errors=True)
os.makedirs(d)
for f in ('ref.y4m', 'dis.y4m'):
    shutil.copyfile(os.path.join('samples', f), os.path.join(d, f))
shutil.copyfile('models/vmaf_float_v0.6.1.json', os.path.join(d, 'my model.json'))
winp = lambda p: 'Z:' + p.replace('/', '\\')
base = ['--precision', 'max', '--json', '-q']
wexe = ['wine', os.path.join(build, 'tools', 'exactvmaf.exe')]
r = subprocess.run(wexe + ['-r', winp(d + '/ref.y4m'), '-d', winp(d + '/dis.y4m'),
                           '--model', 'path=' + winp(d + '/my model.json'),
                           '-o', winp(d + '/out win.json')] + base,
                   capture_output=True, text=True)
l = subprocess.run([os.path.join(linux, 'tools', 'exactvmaf'), '-r', d + '/ref.y4m',
                    '-d', d + '/dis.y4m', '--model', 'path=' + d + '/my model.json',
                    '-o', d + '/out linux.json'] + base, capture_output=True, text=True)
ok = (r.returncode == 0 and l.returncode == 0 and os.path.exists(d + '/out win.json') and
      same_bytes(d + '/out win.json', d + '/out linux.json'))
entries.append(('windows paths (spaces, backslashes, Z:) for inputs, model and output',
                'OK' if ok else 'FAIL',
                'identical to Linux' if ok else 'exit %d / %d: %s' % (
                    r.returncode, l.returncode, (r.stderr + l.stderr).strip()[-300:])))

with open(os.path.join(build, 'windows-compare.json'), 'w') as out:
    for name, res, why in entries:
        out.write(json.dumps({'name': name, 'result': res, 'stdout': why}) + '\n')
for name, res, why in entries:
    if res != 'OK':
        print('%s: %s (%s)' % (res, name, why))
print('windows vs linux: %d of %d golden output files byte-identical; paths run: %s'
      % (same, tot, entries[-1][1]))
sys.exit(0 if all(e[1] == 'OK' for e in entries) else 1)
EOF
# Compressed input: the Windows tool's FFmpeg module against Linux's.
decode_skip() {
    echo "SKIP: $1"
    python3 -c 'import json, sys; print(json.dumps({"name": "ffmpeg input (exactvmaf-ffmpeg.dll)",
        "result": "SKIP", "stdout": "SKIP: " + sys.argv[1]}))' "$1" >> "$build/windows-compare.json"
}
if [ "${ffopts[0]}" = -Dffmpeg=disabled ]; then
    decode_skip "no FFmpeg libraries for Windows in $ffwin: exactvmaf-ffmpeg.dll is not built \
and compressed input is not tested under Wine; make them once (about 5 min, outside the repo) \
with scripts/build-ffmpeg-windows.sh --module-libs, then run scripts/run-windows-tests.sh again"
elif [ ! -f "$linux/tools/exactvmaf-ffmpeg.so" ]; then
    decode_skip "the Linux build ($linux) has no FFmpeg module to compare with"
elif ! scripts/install-missing.sh ffmpeg:ffmpeg >/dev/null; then
    decode_skip "no ffmpeg tool to make the compressed pairs with"
else
    python3 tests/windows_decode_test.py --win-exe "$build/tools/exactvmaf.exe" \
        --linux-exe "$linux/tools/exactvmaf" --work "$build/decode-test" \
        --log "$build/windows-compare.json" || rc=1
fi
python3 scripts/test_summary.py "$build/meson-logs/testlog.json" \
    "$build/meson-logs/testlog-cli.json" "$build/windows-compare.json"
exit $rc
