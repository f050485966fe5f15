#!/usr/bin/env python3
"""NVDEC against the CPU's decoder, bit for bit.

Every pair of compressed clips is scored (the default model, psnr and
float_ssim, --precision max) with the frames decoded on the CPU and the
metrics on the CPU (the base), then with
  --hwdec none --backend cuda       CPU-decoded frames, metrics on the GPU
  --hwdec cuda --backend cuda       NVDEC, its frames handed to the metrics
                                    in device memory, one session per input
  --hwdec cuda --hwdec-sessions 3   the same, each input cut into segments
                                    decoded side by side
  --hwdec cuda --backend cpu        NVDEC, its frames taken to the host
and every output of every frame and every pooled value must equal the
base's as a 64-bit pattern. A run that decodes on the CPU where NVDEC was
asked fails (the tool says so on stderr, or stops).

The clips: NAME_ref.EXT and NAME_dis.EXT pairs in --clips DIR, or, without
it, made here by the ffmpeg tool where it has the encoders (H.264 8-bit
with B-frames, HEVC 8-bit at an odd size, HEVC 10-bit; GOPs of 12 frames,
so that the segments have seams). --make-clips DIR only makes them: on a
machine with ffmpeg, for a GPU machine without it (scripts/gpu-check.sh
--clips DIR).

Exit 0 when every comparison is identical, 1 on a difference or a failed
run, 77 when it cannot run for want of clips (no --clips and no ffmpeg
with the encoders) or of FFmpeg's libraries in the build, saying which; a
missing CUDA device is tests/testlib.py's no_device() (a failure under
EXACTVMAF_REQUIRE_GPU=1).

usage: hwdec_test.py --exe build/tools/exactvmaf [--clips DIR]
       hwdec_test.py --make-clips DIR
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile

import testlib
from testlib import record

# name, size, frames, ffmpeg's encoder arguments; each made at two qualities.
KINDS = [
    ('h264_8b', '640x360', 48, ['-c:v', 'libx264', '-bf', '3', '-g', '12', '-keyint_min', '12',
                                '-sc_threshold', '0', '-pix_fmt', 'yuv420p']),
    ('hevc_8b', '642x362', 48, ['-c:v', 'libx265', '-pix_fmt', 'yuv420p', '-x265-params',
                                'keyint=12:min-keyint=12:open-gop=0:scenecut=0:log-level=error']),
    ('hevc_10b', '640x360', 48, ['-c:v', 'libx265', '-pix_fmt', 'yuv420p10le', '-x265-params',
                                 'keyint=12:min-keyint=12:open-gop=0:scenecut=0:log-level=error']),
]
RUNS = [
    ('--hwdec none --backend cuda', ['--hwdec', 'none', '--backend', 'cuda']),
    ('--hwdec cuda --backend cuda', ['--hwdec', 'cuda', '--hwdec-sessions', '1',
                                     '--backend', 'cuda']),
    ('--hwdec cuda --hwdec-sessions 3', ['--hwdec', 'cuda', '--hwdec-sessions', '3',
                                         '--backend', 'cuda']),
    ('--hwdec cuda --backend cpu', ['--hwdec', 'cuda', '--hwdec-sessions', '1',
                                    '--backend', 'cpu']),
]
CPU_LINE = 'decoding on the CPU'


def make_clips(out):
    """The pairs made by ffmpeg in out; the kinds it cannot encode are named."""
    os.makedirs(out, exist_ok=True)
    made, missing = [], []
    for name, size, frames, enc in KINDS:
        src = os.path.join(out, name + '_src.y4m')
        ref, dis = (os.path.join(out, '%s_%s.mp4' % (name, s)) for s in ('ref', 'dis'))
        try:
            ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=%s:rate=24' % size, '-frames:v',
                   str(frames), '-vf', 'noise=alls=8:allf=t', '-pix_fmt',
                   'yuv420p10le' if '10b' in name else 'yuv420p', '-strict', '-1', src)
            ffmpeg('-i', src, *enc, '-crf', '18', ref)
            ffmpeg('-i', src, *enc, '-crf', '40', dis)
            made.append(name)
        except subprocess.CalledProcessError:
            missing.append(name)
        finally:
            if os.path.exists(src):
                os.remove(src)
    return made, missing


def ffmpeg(*args):
    subprocess.run(['ffmpeg', '-hide_banner', '-loglevel', 'error', '-y'] + list(args),
                   check=True, capture_output=True)


def pairs_in(folder):
    """(name, ref, dis) of every NAME_ref.EXT with its NAME_dis.EXT."""
    out = []
    for f in sorted(os.listdir(folder)):
        m = re.fullmatch(r'(.+)_ref(\.\w+)', f)
        if m and os.path.exists(os.path.join(folder, m.group(1) + '_dis' + m.group(2))):
            out.append((m.group(1), os.path.join(folder, f),
                        os.path.join(folder, m.group(1) + '_dis' + m.group(2))))
    return out


def score(exe, tmp, ref, dis, extra):
    out = os.path.join(tmp, 'out.json')
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([exe, '-r', ref, '-d', dis, '--feature', 'psnr', '--feature',
                        'float_ssim', '--precision', 'max', '--json', '-o', out, '-q'] + extra,
                       capture_output=True, text=True)
    doc = json.load(open(out)) if r.returncode == 0 and os.path.exists(out) else None
    return doc, r


def has_ffmpeg_libraries(exe, tmp):
    """Whether the build reads containers: it names FFmpeg when it cannot."""
    mp4 = os.path.join(tmp, 'probe.mp4')
    open(mp4, 'wb').write(b'\0\0\0\x18ftypisom' + bytes(64))
    r = subprocess.run([exe, '-r', mp4, '-d', mp4, '-q'], capture_output=True, text=True)
    return 'without FFmpeg' not in r.stderr


def cuda_device(exe):
    """The usable CUDA device's line of --list-devices, or None."""
    r = subprocess.run([exe, '--list-devices'], capture_output=True, text=True)
    for l in r.stdout.splitlines():
        if re.match(r'cuda \d+: ', l) and 'cannot be opened' not in l:
            return l
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe')
    ap.add_argument('--clips', help='a folder of NAME_ref.EXT / NAME_dis.EXT pairs')
    ap.add_argument('--make-clips', metavar='DIR', help='only make the clips in DIR')
    a = ap.parse_args()
    if a.make_clips:
        if not shutil.which('ffmpeg'):
            print('hwdec_test.py: --make-clips needs the ffmpeg tool')
            return 1
        made, missing = make_clips(a.make_clips)
        print('made in %s: %s%s' % (a.make_clips, ', '.join(made) or 'nothing',
                                    '; ffmpeg cannot encode %s' % ', '.join(missing)
                                    if missing else ''))
        return 0 if made else 1
    if not a.exe:
        ap.error('--exe or --make-clips is required')
    with tempfile.TemporaryDirectory(prefix='hwdec-') as tmp:
        if not has_ffmpeg_libraries(a.exe, tmp):
            print('SKIP: this build has no FFmpeg libraries (libavformat-dev, libavcodec-dev '
                  'at configure time): nothing decodes compressed video')
            return 77
        dev = cuda_device(a.exe)
        if not dev:
            return testlib.no_device('no usable CUDA device for NVDEC')
        print('device: %s' % dev)
        if a.clips:
            if not os.path.isdir(a.clips):
                print('FAIL: --clips %s is not a folder' % a.clips)
                return 1
            pairs = pairs_in(a.clips)
            print('clips from %s: %s' % (a.clips, ', '.join(p[0] for p in pairs) or 'none'))
        elif shutil.which('ffmpeg'):
            made, missing = make_clips(os.path.join(tmp, 'clips'))
            pairs = pairs_in(os.path.join(tmp, 'clips'))
            print('clips made by ffmpeg: %s%s' % (', '.join(made) or 'none',
                                                  '; it cannot encode %s' % ', '.join(missing)
                                                  if missing else ''))
        else:
            print('SKIP: no clips: no --clips DIR given and no ffmpeg tool here to make them '
                  '(hwdec_test.py --make-clips DIR on a machine with ffmpeg)')
            return 77
        if not pairs:
            print('SKIP: no NAME_ref.EXT / NAME_dis.EXT pairs to decode')
            return 77
        same_all = total_all = 0
        for name, ref, dis in pairs:
            base, r = score(a.exe, tmp, ref, dis, ['--hwdec', 'none', '--backend', 'cpu'])
            if not record('%s: --hwdec none --backend cpu scores' % name, base,
                          'exit %d: %s' % (r.returncode, r.stderr.strip()[-400:])):
                continue
            want = testlib.bit_patterns(base)
            for label, extra in RUNS:
                doc, r = score(a.exe, tmp, ref, dis, extra)
                got = testlib.bit_patterns(doc) if doc else {}
                same = sum(1 for k in want if got.get(k) == want[k])
                same_all += same
                total_all += len(want)
                why = []
                if r.returncode:
                    why.append('exit %d: %s' % (r.returncode, r.stderr.strip()[-400:]))
                if '--hwdec cuda' in label and CPU_LINE in r.stderr:
                    why.append('decoded on the CPU: %s' % r.stderr.strip()[-300:])
                if len(got) != len(want) or same != len(want):
                    first = next((k for k in want if got.get(k) != want[k]), None)
                    why.append('%d/%d identical (%d outputs), first difference %s' %
                               (same, len(want), len(got), first))
                record('%s: %s == the CPU, %d/%d identical' % (name, label, same, len(want)),
                       not why, '; '.join(why))
        print('hwdec: %d/%d outputs identical over %d pairs' % (same_all, total_all, len(pairs)))
        return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
