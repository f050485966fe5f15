#!/usr/bin/env python3
"""The Windows tool's FFmpeg input module (exactvmaf-ffmpeg.dll, FFmpeg 7.1's
libraries linked in) under Wine against the Linux tool's module (the
system's FFmpeg) on the same compressed files: the JSON at --precision max,
byte for byte, all but the "fps" line (the run's speed).

Pairs made here by Debian's ffmpeg from testsrc2 (320x180, 24 frames), in a
folder with spaces handed to the Windows tool as Z:\\...\\ with backslashes:
H.264 8-bit .mp4 (B-frames), HEVC 10-bit .mkv, an FFV1 .mkv reference with
the H.264 distorted .mp4, and the H.264 pair through --scale (FFmpeg's
bicubic scaler); PSNR is added to VMAF so that the chroma planes are
compared too. Then the tool and its DLL copied into a folder with spaces
(the module found beside the tool), the tool alone (the refusal names the
missing DLL), and a control: one pair's Windows JSON against another pair's
Linux JSON must differ.

One JSON line per check ({"name", "result", "stdout"}, as
scripts/test_summary.py reads) appended to --log; exit 0 when every check
passed. Needs wine (WINEPREFIX as the caller set it) and the ffmpeg tool
with libx264 and libx265.

usage: windows_decode_test.py --win-exe EXE --linux-exe EXE --work DIR --log FILE
"""
import argparse, json, os, re, shutil, subprocess, sys

# The run's speed is the one line a JSON may differ in: it is dropped, nothing else.
FPS = re.compile(rb'^  "fps": [0-9.]+,\n', re.M)
MODULE = 'exactvmaf-ffmpeg.dll'
OPTS = ['--precision', 'max', '--json', '-q', '--feature', 'psnr']


def ffmpeg(*args):
    subprocess.run(['ffmpeg', '-hide_banner', '-loglevel', 'error', '-y'] + list(args),
                   check=True)


def make_clips(d):
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, 'src.y4m')
    ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=24', '-frames:v', '24',
           '-pix_fmt', 'yuv420p', src)
    j = lambda f: os.path.join(d, f)
    h264 = ['-c:v', 'libx264', '-bf', '3', '-g', '12', '-pix_fmt', 'yuv420p']
    ffmpeg('-i', src, *h264, '-crf', '18', j('ref h264.mp4'))
    ffmpeg('-i', src, *h264, '-crf', '36', j('dis h264.mp4'))
    hevc = ['-c:v', 'libx265', '-pix_fmt', 'yuv420p10le', '-x265-params', 'log-level=error']
    ffmpeg('-i', src, *hevc, '-crf', '18', j('ref hevc10.mkv'))
    ffmpeg('-i', src, *hevc, '-crf', '36', j('dis hevc10.mkv'))
    ffmpeg('-i', src, '-c:v', 'ffv1', j('ref ffv1.mkv'))
    return {
        'H.264 8-bit .mp4 pair (B-frames)': ['-r', j('ref h264.mp4'), '-d', j('dis h264.mp4')],
        'HEVC 10-bit .mkv pair': ['-r', j('ref hevc10.mkv'), '-d', j('dis hevc10.mkv')],
        'FFV1 .mkv reference, H.264 .mp4 distorted':
            ['-r', j('ref ffv1.mkv'), '-d', j('dis h264.mp4')],
        'H.264 pair --scale 256x144 (FFmpeg\'s bicubic scaler)':
            ['-r', j('ref h264.mp4'), '-d', j('dis h264.mp4'), '--scale', '256x144'],
    }


def winp(p):
    """A Linux path as the Windows tool is given it under Wine: drive Z:, backslashes."""
    return 'Z:' + os.path.abspath(p).replace('/', '\\')


def stripped(path):
    return FPS.sub(b'', open(path, 'rb').read(), count=1)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--win-exe', required=True)
    ap.add_argument('--linux-exe', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--log', required=True)
    a = ap.parse_args()
    entries = []
    say = lambda name, ok, why: entries.append(
        {'name': 'ffmpeg input: ' + name, 'result': 'OK' if ok else 'FAIL', 'stdout': why})

    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    pairs = make_clips(os.path.join(work, 'clips and more'))
    out = os.path.join(work, 'out json')
    os.makedirs(out)

    def windows(exe, args, json_out):
        w = [winp(x) if os.path.isabs(x) else x for x in args]
        return run(['wine', exe] + w + ['-o', winp(json_out)] + OPTS)

    def compare(name, exe, args, tag):
        wj, lj = os.path.join(out, tag + ' win.json'), os.path.join(out, tag + ' linux.json')
        r = windows(exe, args, wj)
        l = run([a.linux_exe] + args + ['-o', lj] + OPTS)
        if r.returncode or l.returncode:
            say(name, False, 'exit %d (Windows) / %d (Linux): %s' % (
                r.returncode, l.returncode, (r.stderr + l.stderr).strip()[-400:]))
            return None
        same = stripped(wj) == stripped(lj)
        say(name, same, 'identical to Linux (%d bytes)' % len(stripped(lj)) if same else
            'differs from Linux: diff %r %r' % (wj, lj))
        return wj, lj

    got = {}
    for i, (name, args) in enumerate(pairs.items()):
        got[i] = compare(name, a.win_exe, args, 'pair %d' % i)

    # The module found beside a tool in a folder with spaces (the DLL opened
    # by a path that has them), and a tool without its DLL beside it.
    first = list(pairs.values())[0]
    tool = os.path.join(work, 'tool with module')
    alone = os.path.join(work, 'tool alone')
    for d in (tool, alone):
        os.makedirs(d)
        shutil.copy(a.win_exe, d)
    shutil.copy(os.path.join(os.path.dirname(a.win_exe), MODULE), tool)
    compare('the tool and its DLL in a folder with spaces',
            os.path.join(tool, os.path.basename(a.win_exe)), first, 'moved')
    r = windows(os.path.join(alone, os.path.basename(a.win_exe)), first,
                os.path.join(out, 'alone.json'))
    said = r.stderr.strip().splitlines()
    ok = r.returncode != 0 and MODULE in r.stderr and 'is not installed' in r.stderr
    say('a tool without %s refuses compressed input, naming it' % MODULE, ok,
        (said[-1] if said else 'nothing said') + (' (exit %d)' % r.returncode))

    # Control: the comparison tells different results apart.
    if got[0] and got[2]:
        differ = stripped(got[0][0]) != stripped(got[2][1])
        say('control: one pair\'s Windows JSON against another pair\'s Linux JSON differs',
            differ, 'they differ' if differ else 'no difference found: the comparison is broken')

    with open(a.log, 'a') as f:
        for e in entries:
            f.write(json.dumps(e) + '\n')
    for e in entries:
        if e['result'] != 'OK':
            print('%s: %s (%s)' % (e['result'], e['name'], e['stdout']))
    ok = sum(e['result'] == 'OK' for e in entries)
    print('windows vs linux, compressed input: %d of %d checks passed' % (ok, len(entries)))
    return 0 if ok == len(entries) else 1


if __name__ == '__main__':
    sys.exit(main())
