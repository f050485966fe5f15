#!/usr/bin/env python3
"""Compressed input through FFmpeg's libraries, against the same content as y4m.

Content is made here with Debian's `ffmpeg`: a lossless FFV1 reference in
.mkv and an H.264 distorted .mp4, at 8 and 10 bits. exactvmaf on the
containers must equal exactvmaf on the y4m files ffmpeg decodes from them,
every output of every frame bit for bit (--precision max); with
--scale-to-ref, the same against y4m made by `ffmpeg -vf
scale=W:H:flags=bicubic`. Then bad input: a truncated and a damaged mp4, an
audio-only file, a pixel format that is not planar YUV (refused, then
accepted with --convert), frame rates and lengths that differ: each a clear
error naming the file, a non-zero exit and no output file.

Skipped (77) when exactvmaf was built without FFmpeg's libraries or ffmpeg
is not installed.

usage: video_test.py --exe build/tools/exactvmaf
"""
import argparse, json, os, shutil, struct, subprocess, sys, tempfile

EXIT_INPUT = 2
results = []


def record(name, ok, why=''):
    results.append(ok)
    print('%-58s %s%s' % (name, 'ok' if ok else 'FAIL', '' if ok else ': ' + why), flush=True)


def ffmpeg(*args):
    subprocess.run(['ffmpeg', '-hide_banner', '-loglevel', 'error', '-y'] + list(args),
                   check=True)


def run(exe, *args):
    return subprocess.run([exe] + list(args), capture_output=True, text=True)


def bits(x):
    return struct.pack('<d', x)


def same_outputs(a, b):
    """(identical, total, first difference) over every frame's every metric."""
    fa = {f['frameNum']: f['metrics'] for f in a['frames']}
    fb = {f['frameNum']: f['metrics'] for f in b['frames']}
    tot = same = 0
    first = None
    for n in sorted(set(fa) | set(fb)):
        ma, mb = fa.get(n, {}), fb.get(n, {})
        for k in sorted(set(ma) | set(mb)):
            tot += 1
            if k in ma and k in mb and bits(ma[k]) == bits(mb[k]):
                same += 1
            elif first is None:
                first = 'frame %s %s: %r vs %r' % (n, k, ma.get(k), mb.get(k))
    return same, tot, first


def score(exe, tmp, name, *args):
    out = os.path.join(tmp, name + '.json')
    r = run(exe, *args, '--feature', 'psnr', '--precision', 'max', '--json', '-o', out, '-q')
    if r.returncode:
        return None, r.stderr.strip()[-300:]
    return json.load(open(out)), ''


def compare(exe, tmp, name, container_args, y4m_args):
    a, ea = score(exe, tmp, name + '_c', *container_args)
    b, eb = score(exe, tmp, name + '_y', *y4m_args)
    if a is None or b is None:
        record(name, False, ea or eb)
        return
    same, tot, first = same_outputs(a, b)
    record(name, tot > 0 and same == tot and len(a['frames']) == len(b['frames']),
           '%d/%d identical; %s' % (same, tot, first))
    if tot and same == tot:
        print('    %d/%d outputs identical over %d frames' % (same, tot, len(a['frames'])))


def expect_error(exe, tmp, name, args, needles):
    outdir = tempfile.mkdtemp(dir=tmp)
    out = os.path.join(outdir, 'out.json')
    r = run(exe, *args, '--json', '-o', out)
    why = []
    if r.returncode != EXIT_INPUT:
        why.append('exit %d, expected %d' % (r.returncode, EXIT_INPUT))
    for n in needles:
        if n.lower() not in r.stderr.lower():
            why.append('stderr lacks %r' % n)
    if os.listdir(outdir):
        why.append('left files %s' % os.listdir(outdir))
    record(name, not why, '; '.join(why) + ' stderr: %r' % r.stderr.strip()[-300:])
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    a = ap.parse_args()
    if not shutil.which('ffmpeg'):
        print('SKIP: ffmpeg is not installed (Debian: apt-get install ffmpeg)')
        return 77
    probe = run(a.exe, '--help')
    with tempfile.TemporaryDirectory() as tmp:
        ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=160x96:rate=25', '-frames:v', '1',
               '-c:v', 'ffv1', os.path.join(tmp, 'probe.mkv'))
        r = run(a.exe, '-r', os.path.join(tmp, 'probe.mkv'), '-d',
                os.path.join(tmp, 'probe.mkv'), '-q')
        if 'without FFmpeg' in r.stderr:
            print('SKIP: this exactvmaf was built without FFmpeg\'s libraries')
            return 77
        del probe

        for bpc in (8, 10):
            pf = 'yuv420p' if bpc == 8 else 'yuv420p10le'
            src = os.path.join(tmp, 'src%d.y4m' % bpc)
            ref_mkv = os.path.join(tmp, 'ref%d.mkv' % bpc)
            dis_mp4 = os.path.join(tmp, 'dis%d.mp4' % bpc)
            ref_y4m = os.path.join(tmp, 'ref%d.y4m' % bpc)
            dis_y4m = os.path.join(tmp, 'dis%d.y4m' % bpc)
            ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25', '-frames:v', '24',
                   '-pix_fmt', pf, '-strict', '-1', src)
            ffmpeg('-i', src, '-c:v', 'ffv1', ref_mkv)
            ffmpeg('-i', src, '-c:v', 'libx264', '-crf', '32', '-pix_fmt', pf, dis_mp4)
            ffmpeg('-i', ref_mkv, '-strict', '-1', '-f', 'yuv4mpegpipe', ref_y4m)
            ffmpeg('-i', dis_mp4, '-strict', '-1', '-f', 'yuv4mpegpipe', dis_y4m)
            compare(a.exe, tmp, 'FFV1 .mkv + H.264 .mp4, %d-bit == their y4m' % bpc,
                    ['-r', ref_mkv, '-d', dis_mp4], ['-r', ref_y4m, '-d', dis_y4m])
            # Scaled to the reference's size, as ffmpeg's scale filter does it.
            small = os.path.join(tmp, 'small%d.mp4' % bpc)
            scaled = os.path.join(tmp, 'scaled%d.y4m' % bpc)
            ffmpeg('-i', src, '-vf', 'scale=176:100', '-c:v', 'libx264', '-crf', '28',
                   '-pix_fmt', pf, small)
            ffmpeg('-i', small, '-vf', 'scale=320:180:flags=bicubic', '-strict', '-1',
                   '-f', 'yuv4mpegpipe', scaled)
            compare(a.exe, tmp, '--scale-to-ref, %d-bit == ffmpeg scale=W:H:flags=bicubic' % bpc,
                    ['-r', ref_mkv, '-d', small, '--scale-to-ref'],
                    ['-r', ref_y4m, '-d', scaled])
            if bpc == 8:
                both = os.path.join(tmp, 'both.y4m')
                ffmpeg('-i', dis_mp4, '-vf', 'scale=256:144:flags=bicubic', '-f', 'yuv4mpegpipe',
                       both)
                ref_s = os.path.join(tmp, 'ref_s.y4m')
                ffmpeg('-i', ref_mkv, '-vf', 'scale=256:144:flags=bicubic', '-f', 'yuv4mpegpipe',
                       ref_s)
                compare(a.exe, tmp, '--scale 256x144 (both) == ffmpeg scale',
                        ['-r', ref_mkv, '-d', dis_mp4, '--scale', '256x144'],
                        ['-r', ref_s, '-d', both])

        ref = os.path.join(tmp, 'ref8.mkv')
        src = os.path.join(tmp, 'src8.y4m')
        # Damaged and truncated streams (moov first, so that the damage is in the frames).
        fs = os.path.join(tmp, 'fs.mp4')
        ffmpeg('-i', src, '-c:v', 'libx264', '-crf', '32', '-movflags', '+faststart', fs)
        data = bytearray(open(fs, 'rb').read())
        open(os.path.join(tmp, 'trunc.mp4'), 'wb').write(data[:len(data) * 2 // 3])
        open(os.path.join(tmp, 'cut.mp4'), 'wb').write(data[:600])
        for i in range(len(data) // 2, len(data) // 2 + 400):
            data[i] ^= 0x5a
        open(os.path.join(tmp, 'damaged.mp4'), 'wb').write(data)
        r = expect_error(a.exe, tmp, 'bad: truncated mp4',
                         ['-r', ref, '-d', os.path.join(tmp, 'trunc.mp4')], ['trunc.mp4', 'frame'])
        record('bad: truncated mp4: earlier frames reported incomplete',
               '[INCOMPLETE:' in r.stdout, repr(r.stdout[-200:]))
        expect_error(a.exe, tmp, 'bad: damaged mp4',
                     ['-r', ref, '-d', os.path.join(tmp, 'damaged.mp4')], ['damaged.mp4', 'frame'])
        expect_error(a.exe, tmp, 'bad: mp4 cut before its first frame',
                     ['-r', ref, '-d', os.path.join(tmp, 'cut.mp4')], ['cut.mp4'])
        audio = os.path.join(tmp, 'audio.m4a')
        ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', audio)
        expect_error(a.exe, tmp, 'bad: audio only', ['-r', ref, '-d', audio],
                     ['audio.m4a', 'no video stream'])
        nv12 = os.path.join(tmp, 'nv12.mkv')
        ffmpeg('-i', src, '-pix_fmt', 'nv12', '-c:v', 'rawvideo', nv12)
        expect_error(a.exe, tmp, 'bad: NV12 is refused, naming the format', ['-r', ref, '-d', nv12],
                     ['nv12.mkv', 'nv12', '--convert'])
        conv = os.path.join(tmp, 'conv.y4m')
        ffmpeg('-i', nv12, '-vf', 'scale=flags=bicubic', '-pix_fmt', 'yuv420p', '-f',
               'yuv4mpegpipe', conv)
        compare(a.exe, tmp, '--convert NV12 == ffmpeg -pix_fmt yuv420p (bicubic)',
                ['-r', ref, '-d', nv12, '--convert'], ['-r', os.path.join(tmp, 'ref8.y4m'), '-d', conv])
        fps30 = os.path.join(tmp, 'fps30.mp4')
        ffmpeg('-i', src, '-r', '30', '-c:v', 'libx264', fps30)
        expect_error(a.exe, tmp, 'bad: frame rates differ', ['-r', ref, '-d', fps30],
                     ['frame rates differ', 'ref8.mkv', 'fps30.mp4'])
        short = os.path.join(tmp, 'short.mp4')
        ffmpeg('-i', src, '-frames:v', '20', '-c:v', 'libx264', short)
        expect_error(a.exe, tmp, 'bad: lengths differ', ['-r', ref, '-d', short],
                     ['differ in length', 'ref8.mkv', 'short.mp4'])
        r = run(a.exe, '-r', ref, '-d', short, '--frame_cnt', '20', '-q')
        record('lengths differ but --frame_cnt stops first', r.returncode == 0, r.stderr[-200:])

    print('%d passed, %d failed' % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == '__main__':
    sys.exit(main())
