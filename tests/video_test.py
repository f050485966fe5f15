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

--hwdec: an H.264 pair decoded as --hwdec auto chooses (NVDEC where the
metrics run on CUDA, else the CPU with one line per input saying why) equals
the same pair decoded on the CPU, bit for bit; --hwdec cuda decodes on NVDEC
or, without a usable CUDA device here, fails naming the file; a codec NVDEC
is not used for (FFV1) fails with --hwdec cuda everywhere; y4m is read, not
decoded: no line.

With --decoder no (a build configured -Dffmpeg=disabled), the other side:
y4m still scores, and a container or a scale option is refused with a clear
error, a non-zero exit and no output file; --hwdec is accepted, and --hwdec
cuda says that the build has no FFmpeg. --decoder yes fails where the
executable says it has no decoder. Skipped (77) when ffmpeg is not
installed and a decoder is expected.

usage: video_test.py --exe build/tools/exactvmaf --decoder yes|no
"""
import argparse, json, os, re, shutil, struct, subprocess, sys, tempfile

import testlib
from testlib import record

EXIT_INPUT = 2


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


def score_stderr(exe, tmp, name, *args):
    """(output, stderr, exit status) of a run at full precision."""
    out = os.path.join(tmp, name + '.json')
    r = run(exe, *args, '--feature', 'psnr', '--precision', 'max', '--json', '-o', out, '-q')
    return (json.load(open(out)) if not r.returncode else None), r.stderr, r.returncode


def identical(a, b):
    """Every frame's every output and the pooled values, bit for bit."""
    if a is None or b is None:
        return False, 'no output'
    same, tot, first = same_outputs(a, b)
    pooled = json.dumps(a.get('pooled_metrics'), sort_keys=True) == \
        json.dumps(b.get('pooled_metrics'), sort_keys=True)
    return tot > 0 and same == tot and pooled, '%d/%d identical; %s; pooled %s' % (
        same, tot, first, 'equal' if pooled else 'differ')


def cuda_usable(exe):
    """Whether this machine has a CUDA device the tool can use (--list-devices)."""
    r = run(exe, '--list-devices')
    return any(re.match(r'cuda \d+: ', l) and 'cannot be opened' not in l
               for l in r.stdout.splitlines())


CPU_LINE = 'decoding on the CPU'


def hwdec(exe, tmp, src, ffv1, ffv1_10, dis10):
    """--hwdec on an H.264 pair (and FFV1 + H.264 High 10, which NVDEC refuses)."""
    gpu = cuda_usable(exe)
    print('    this machine has %s CUDA device' % ('a usable' if gpu else 'no usable'))
    if not gpu:
        testlib.missing_device('no usable CUDA device: --hwdec is checked as on a machine '
                               'without NVDEC')
    ref, dis = (os.path.join(tmp, 'hw_%s.mp4' % x) for x in ('ref', 'dis'))
    ffmpeg('-i', src, '-c:v', 'libx264', '-crf', '18', ref)
    ffmpeg('-i', src, '-c:v', 'libx264', '-crf', '36', dis)
    pair = ['-r', ref, '-d', dis]
    none, err_none, rc = score_stderr(exe, tmp, 'hw_none', *pair, '--hwdec', 'none')
    record('--hwdec none: scores, no decoder line', rc == 0 and CPU_LINE not in err_none and
           'NVDEC' not in err_none, err_none[-300:])
    auto, err_auto, rc = score_stderr(exe, tmp, 'hw_auto', *pair)
    ok, why = identical(auto, none)
    record('--hwdec auto (the default) == --hwdec none, bit for bit', rc == 0 and ok,
           why + ' ' + err_auto[-300:])
    lines = [l for l in err_auto.splitlines() if CPU_LINE in l]
    if gpu:
        # NVDEC takes 8-bit H.264 where the metrics run on CUDA: no line.
        record('--hwdec auto on a GPU: NVDEC, no line', not lines, err_auto[-300:])
    else:
        # No driver or GPU at all: the CPU is simply the way, no news at the
        # default log level; --log-level info says it, one line per input.
        record('--hwdec auto without a GPU: no line at the default log level', not lines,
               err_auto[-400:])
        _, err_info, rc = score_stderr(exe, tmp, 'hw_auto_info', *pair, '--log-level', 'info')
        lines = [l for l in err_info.splitlines() if CPU_LINE in l]
        record('--hwdec auto without a GPU, --log-level info: one line per input, naming it '
               'and why', rc == 0 and len(lines) == 2 and 'hw_ref.mp4' in lines[0] and
               'hw_dis.mp4' in lines[1] and all('metrics run on the CPU' in l for l in lines),
               err_info[-400:])
    if gpu:
        cuda, err, rc = score_stderr(exe, tmp, 'hw_cuda', *pair, '--hwdec', 'cuda')
        ok, why = identical(cuda, none)
        record('--hwdec cuda == --hwdec none, bit for bit', rc == 0 and ok, why + ' ' + err[-300:])
    else:
        expect_error(exe, tmp, '--hwdec cuda without a GPU: an error naming the file',
                     pair + ['--hwdec', 'cuda'], ['hw_ref.mp4', 'NVDEC', '--hwdec cuda'])
    # NVDEC is not used for FFV1 (nor on a GPU): cuda fails, auto says so.
    expect_error(exe, tmp, '--hwdec cuda on FFV1: an error naming the file and codec',
                 ['-r', ffv1, '-d', dis, '--hwdec', 'cuda'], [os.path.basename(ffv1), 'ffv1'])
    # 10 bits: FFV1 and H.264 High 10 (which NVDEC refuses once it starts).
    a, err_a, rc_a = score_stderr(exe, tmp, 'hw10_auto', '-r', ffv1_10, '-d', dis10)
    b, err_b, rc_b = score_stderr(exe, tmp, 'hw10_none', '-r', ffv1_10, '-d', dis10,
                                  '--hwdec', 'none')
    ok, why = identical(a, b)
    lines = [l for l in err_a.splitlines() if CPU_LINE in l]
    record('--hwdec auto, FFV1 + H.264 High 10: == none, %s' % (
           'one line per input' if gpu else 'no line without a GPU'),
           rc_a == 0 and rc_b == 0 and ok and len(lines) == (2 if gpu else 0),
           why + ' ' + err_a[-400:])
    # y4m is read, not decoded: no line, and --hwdec cuda does not apply.
    for mode in ('auto', 'cuda'):
        r = run(exe, '-r', src, '-d', src, '--hwdec', mode, '-q')
        record('--hwdec %s on y4m: no decoder line' % mode, r.returncode == 0 and
               CPU_LINE not in r.stderr and 'NVDEC' not in r.stderr, r.stderr[-300:])
    # The report names who decoded each input.
    page = os.path.join(tmp, 'hw.html')
    r = run(exe, *pair, '--report', page, '-q')
    html = open(page).read() if os.path.exists(page) else ''
    who = 'decoded by NVDEC' if gpu else 'decoded by the CPU'
    record('--report names the decoder of each input', r.returncode == 0 and
           html.count(who) == 2, r.stderr[-300:])


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


def y4m(w, h, frames, seed):
    """An 8-bit 4:2:0 y4m of textured frames, made without ffmpeg."""
    out = bytearray(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n' % (w, h))
    x = seed
    for _ in range(frames):
        out += b'FRAME\n'
        for _ in range(w * h * 3 // 2):
            x = (x * 1103515245 + 12345) & 0x7fffffff
            out.append((x >> 16) & 0xff)
    return bytes(out)


def without_decoder(exe):
    """A build without FFmpeg's libraries: y4m works, the rest is refused."""
    with tempfile.TemporaryDirectory() as tmp:
        ref, dis = os.path.join(tmp, 'ref.y4m'), os.path.join(tmp, 'dis.y4m')
        open(ref, 'wb').write(y4m(64, 48, 3, 1))
        open(dis, 'wb').write(y4m(64, 48, 3, 2))
        a, err = score(exe, tmp, 'y4m', '-r', ref, '-d', dis)
        record('without FFmpeg: a y4m pair scores', a is not None and len(a['frames']) == 3,
               err)
        mp4 = os.path.join(tmp, 'dis.mp4')
        open(mp4, 'wb').write(b'\0\0\0\x18ftypisom' + bytes(64))
        expect_error(exe, tmp, 'without FFmpeg: an .mp4 is refused', ['-r', ref, '-d', mp4],
                     ['dis.mp4', 'without FFmpeg'])
        expect_error(exe, tmp, 'without FFmpeg: --scale-to-ref is refused',
                     ['-r', ref, '-d', dis, '--scale-to-ref'], ['without FFmpeg'])
        a, err, rc = score_stderr(exe, tmp, 'y4m_hwdec', '-r', ref, '-d', dis, '--hwdec', 'auto')
        record('without FFmpeg: --hwdec auto is accepted, y4m scores, no decoder line',
               rc == 0 and a is not None and CPU_LINE not in err, err[-300:])
        expect_error(exe, tmp, 'without FFmpeg: --hwdec cuda says the build has no FFmpeg',
                     ['-r', ref, '-d', dis, '--hwdec', 'cuda'], ['--hwdec cuda', 'without FFmpeg'])
    return testlib.finish()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--decoder', choices=('yes', 'no'), required=True,
                    help='whether the build has FFmpeg\'s libraries')
    a = ap.parse_args()
    if a.decoder == 'no':
        return without_decoder(a.exe)
    if not shutil.which('ffmpeg'):
        print('SKIP: ffmpeg is not installed (Debian: apt-get install ffmpeg)')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=160x96:rate=25', '-frames:v', '1',
               '-c:v', 'ffv1', os.path.join(tmp, 'probe.mkv'))
        r = run(a.exe, '-r', os.path.join(tmp, 'probe.mkv'), '-d',
                os.path.join(tmp, 'probe.mkv'), '-q')
        record('the build decodes (it was configured with FFmpeg\'s libraries)',
               'without FFmpeg' not in r.stderr, r.stderr.strip()[-300:])

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

        hwdec(a.exe, tmp, os.path.join(tmp, 'src8.y4m'), os.path.join(tmp, 'ref8.mkv'),
              os.path.join(tmp, 'ref10.mkv'), os.path.join(tmp, 'dis10.mp4'))

        # Other planar layouts and depths pass through untouched (lossless FFV1
        # both sides, the distorted one blurred).
        for pf in ('yuv422p12le', 'yuv444p16le'):
            src = os.path.join(tmp, pf + '.y4m')
            ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=160x96:rate=25', '-frames:v', '6',
                   '-pix_fmt', pf, '-strict', '-1', src)
            ref_mkv, dis_mkv = (os.path.join(tmp, pf + x + '.mkv') for x in ('r', 'd'))
            ref_y4m, dis_y4m = (os.path.join(tmp, pf + x + '.y4m') for x in ('r', 'd'))
            ffmpeg('-i', src, '-c:v', 'ffv1', '-pix_fmt', pf, ref_mkv)
            ffmpeg('-i', src, '-vf', 'boxblur=2', '-c:v', 'ffv1', '-pix_fmt', pf, dis_mkv)
            for mkv, y in ((ref_mkv, ref_y4m), (dis_mkv, dis_y4m)):
                ffmpeg('-i', mkv, '-strict', '-1', '-f', 'yuv4mpegpipe', y)
            compare(a.exe, tmp, 'FFV1 .mkv %s == its y4m' % pf,
                    ['-r', ref_mkv, '-d', dis_mkv], ['-r', ref_y4m, '-d', dis_y4m])

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

    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
