#!/usr/bin/env python3
"""Several decode sessions per input (tools/av_sessions.c) against one decoder.

The segments' logic (closed-GOP cuts found from the packets, a seek per
segment, frames handed on in order across sessions) is the same for NVDEC
and the CPU decoder; EXACTVMAF_SESSIONS_ON_CPU=1 makes the tool cut
CPU-decoded input too, so that it is tested where there is no GPU (the
H200 runs it with NVDEC). For H.264 with B-frames (decode order is not
presentation order), HEVC 10-bit and VP9 in Matroska, each made of GOPs of
12 frames: every per-frame value with 2, 3 and 7 sessions equals the one-
decoder run's as a 64-bit pattern, the tool says how many segments it cut
(the knob took effect), a stream of one GOP is not cut, and an open-GOP
stream (frames that reach back over a keyframe) is not cut either; counts
outside 1..16 are refused.
Skipped (77) without the ffmpeg tool or its encoders.

usage: sessions_test.py --exe build/tools/exactvmaf
"""
import argparse, json, os, re, shutil, struct, subprocess, sys, tempfile

failures = checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    if not ok:
        failures += 1
        print('FAIL: ' + what)


def ffmpeg(*args):
    subprocess.run(['ffmpeg', '-hide_banner', '-loglevel', 'error', '-y'] + list(args), check=True)


def values(path):
    d = json.load(open(path))
    return [(f['frameNum'], k, struct.pack('<d', float(v)))
            for f in d['frames'] for k, v in sorted(f['metrics'].items())]


def run(exe, ref, dis, out, sessions=None, knob=True, extra=()):
    env = dict(os.environ)
    if knob:
        env['EXACTVMAF_SESSIONS_ON_CPU'] = '1'
    argv = [exe, '-r', ref, '-d', dis, '--backend', 'cpu', '--feature', 'psnr', '--json',
            '--precision', 'max', '-o', out]
    if sessions:
        argv += ['--hwdec-sessions', str(sessions)]
    argv += list(extra)
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    segs = [int(m) for m in re.findall(r'(\d+) segments on', r.stderr)]
    return r.returncode, segs, r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    a = ap.parse_args()
    for bad in ('0', '17', 'x', ''):
        r = subprocess.run([a.exe, '-r', 'a.y4m', '-d', 'b.y4m', '--hwdec-sessions', bad],
                           capture_output=True, text=True)
        check(r.returncode != 0 and '--hwdec-sessions' in r.stderr,
              '--hwdec-sessions %r: rc %d, %s' % (bad, r.returncode, r.stderr.strip()[:200]))
    if not shutil.which('ffmpeg'):
        print('SKIP: ffmpeg is not installed (Debian: apt-get install ffmpeg)')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'src.y4m')
        ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=192x108:rate=24', '-frames:v', '96',
               '-vf', 'noise=alls=8:allf=t', '-pix_fmt', 'yuv420p', src)
        kinds = [
            ('h264', 'mp4', ['-c:v', 'libx264', '-bf', '3', '-g', '12', '-keyint_min', '12',
                             '-sc_threshold', '0', '-pix_fmt', 'yuv420p']),
            ('hevc10', 'mp4', ['-c:v', 'libx265', '-pix_fmt', 'yuv420p10le', '-x265-params',
                               'keyint=12:min-keyint=12:open-gop=0:scenecut=0:log-level=error']),
            ('vp9', 'mkv', ['-c:v', 'libvpx-vp9', '-g', '12', '-deadline', 'realtime',
                            '-cpu-used', '8']),
        ]
        for name, ext, enc in kinds:
            ref, dis = (os.path.join(tmp, '%s_%s.%s' % (name, s, ext)) for s in ('ref', 'dis'))
            try:
                ffmpeg('-i', src, *enc, '-crf', '18', ref)
                ffmpeg('-i', src, *enc, '-crf', '40', dis)
            except subprocess.CalledProcessError:
                print('SKIP: %s: Debian\'s ffmpeg cannot encode it here' % name)
                continue
            one = os.path.join(tmp, name + '_one.json')
            rc, segs, err = run(a.exe, ref, dis, one, knob=False)
            check(rc == 0 and not segs, '%s: one decoder: rc %d, segments %s: %s' %
                  (name, rc, segs, err[-300:]))
            base = values(one)
            for n in (2, 3, 7):
                out = os.path.join(tmp, '%s_%d.json' % (name, n))
                rc, segs, err = run(a.exe, ref, dis, out, sessions=n)
                check(rc == 0, '%s, %d sessions: rc %d: %s' % (name, n, rc, err[-300:]))
                check(len(segs) == 2 and all(s >= 2 for s in segs),
                      '%s, %d sessions: segments cut %s (2 inputs, 2 or more each expected)' %
                      (name, n, segs))
                got = values(out) if rc == 0 else []
                same = sum(1 for x, y in zip(got, base) if x == y)
                check(len(got) == len(base) and same == len(base) and base,
                      '%s, %d sessions: %d/%d values identical' % (name, n, same, len(base)))
                print('%-8s %d sessions, segments %s: %d/%d values identical' %
                      (name, n, segs, same, len(base)))

        # One GOP: nothing to cut. An open GOP (x264 open-gop with B-frames
        # reaching back over the keyframe): cut only where closed.
        one_gop = os.path.join(tmp, 'one.mp4')
        ffmpeg('-i', src, '-c:v', 'libx264', '-g', '300', '-pix_fmt', 'yuv420p', one_gop)
        rc, segs, err = run(a.exe, one_gop, one_gop, os.path.join(tmp, 'g.json'), sessions=3)
        check(rc == 0 and not segs, 'one GOP: rc %d, segments %s (none expected)' % (rc, segs))
        print('one GOP: rc %d, segments %s' % (rc, segs))
        open_gop = os.path.join(tmp, 'open.mp4')
        ffmpeg('-i', src, '-c:v', 'libx264', '-bf', '3', '-g', '12', '-x264-params',
               'open-gop=1:keyint=12:min-keyint=12:scenecut=0', '-pix_fmt', 'yuv420p', open_gop)
        o1, o3 = os.path.join(tmp, 'o1.json'), os.path.join(tmp, 'o3.json')
        run(a.exe, open_gop, open_gop, o1, knob=False)
        rc, segs, err = run(a.exe, open_gop, open_gop, o3, sessions=3)
        same = rc == 0 and values(o3) == values(o1)
        check(same, 'open GOP: rc %d, segments %s, values equal: %s: %s' %
              (rc, segs, same, err[-300:]))
        print('open GOP: rc %d, segments %s, values equal %s' % (rc, segs, same))

        # --hwdec-ahead bounds the frames held ahead, so segments get shorter:
        # 480 frames of 640x360 (345,600 bytes each) in GOPs of 12, 2 sessions:
        # 8 segments of 60 frames by default, 10 of 48 within 64 MiB.
        long_src = os.path.join(tmp, 'long.mp4')
        ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=24', '-frames:v', '480',
               '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '12', '-keyint_min', '12',
               '-sc_threshold', '0', '-pix_fmt', 'yuv420p', long_src)
        d1, d2 = os.path.join(tmp, 'ahead_default.json'), os.path.join(tmp, 'ahead_64.json')
        rc1, segs1, err1 = run(a.exe, long_src, long_src, d1, sessions=2)
        rc2, segs2, err2 = run(a.exe, long_src, long_src, d2, sessions=2,
                               extra=('--hwdec-ahead', '64'))
        same = rc1 == 0 and rc2 == 0 and values(d1) == values(d2)
        check(segs1 == [8, 8] and segs2 == [10, 10] and same,
              '--hwdec-ahead 64: segments %s (default %s), values equal %s: %s' %
              (segs2, segs1, same, (err1 + err2)[-300:]))
        print('--hwdec-ahead 64: segments %s, default %s, values equal %s' %
              (segs2, segs1, same))
        r = subprocess.run([a.exe, '-r', 'a.y4m', '-d', 'b.y4m', '--hwdec-ahead', '63'],
                           capture_output=True, text=True)
        check(r.returncode != 0 and '--hwdec-ahead' in r.stderr,
              '--hwdec-ahead 63: rc %d, %s' % (r.returncode, r.stderr.strip()[:200]))
    print('%d checks, %d failed' % (checks, failures))
    return 1 if failures or not checks else 0


if __name__ == '__main__':
    sys.exit(main())
