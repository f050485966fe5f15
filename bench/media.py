#!/usr/bin/env python3
"""The clips bench/e2e.py scores: streaming-style pairs made with Debian's ffmpeg.

Each clip is one closed GOP of --gop frames (2 s at 24 fps), as an ABR ladder's
segments are cut; bench/e2e.py lengthens it to as many frames as asked by
copying it end to end (`-stream_loop K -c copy`), so that the long file has a
keyframe every --gop frames that no frame reaches back before.

  hevc8_2160    3840x2160 HEVC 8-bit, reference 25 Mbps, distorted 5 Mbps
  hevc10_2160   the same in 10 bits (Main 10)
  h264_1080     1920x1080 H.264, reference CRF 18 capped at 16 Mbps, distorted CRF 30
  onegop_1080   1920x1080 H.264 CRF 23, --onegop frames in one GOP (nothing to cut:
                one decoder must decode it at one engine's full rate); not looped

Content: testsrc2 moving under temporal noise (film grain), which keeps the
encoders' bit rates where a grainy film's would be. Files: DIR/bench_NAME_ref.mp4
and DIR/bench_NAME_dis.mp4; existing files are kept.

usage: bench/media.py DIR [--pairs hevc8_2160,...] [--gop 48] [--onegop 240]
"""
import argparse, os, subprocess, sys

SRC = 'testsrc2=size={w}x{h}:rate=24,noise=alls=14:allf=t+u'
X265 = 'keyint={g}:min-keyint={g}:scenecut=0:open-gop=0:log-level=error'
X264 = 'keyint={g}:min-keyint={g}:scenecut=0:open-gop=0'


def pairs(gop, onegop):
    """NAME -> (size, frames, ref encoder args, dis encoder args, looped)."""
    hevc = ['-c:v', 'libx265', '-preset', 'veryfast', '-x265-params', X265.format(g=gop)]
    avc = ['-c:v', 'libx264', '-preset', 'veryfast', '-x264-params', X264.format(g=gop)]
    one = ['-c:v', 'libx264', '-preset', 'veryfast', '-x264-params',
           X264.format(g=onegop + 1)]

    def rate(args, mbps):
        return args + ['-b:v', '%dM' % mbps, '-maxrate', '%dM' % mbps,
                       '-bufsize', '%dM' % (2 * mbps)]
    p10 = ['-pix_fmt', 'yuv420p10le', '-profile:v', 'main10']
    p8 = ['-pix_fmt', 'yuv420p']
    return {
        'hevc8_2160': ((3840, 2160), gop, rate(hevc, 25) + p8, rate(hevc, 5) + p8),
        'hevc10_2160': ((3840, 2160), gop, rate(hevc, 25) + p10, rate(hevc, 5) + p10),
        # Capped CRF, as ladders encode: grain at CRF 18 alone would take 80 Mbps.
        'h264_1080': ((1920, 1080), gop, avc + ['-crf', '18', '-maxrate', '16M', '-bufsize',
                                                '32M'] + p8, avc + ['-crf', '30'] + p8),
        'onegop_1080': ((1920, 1080), onegop, one + ['-crf', '23'] + p8,
                        one + ['-crf', '33'] + p8),
    }


def make(path, size, frames, enc):
    if os.path.exists(path):
        return
    w, h = size
    cmd = ['ffmpeg', '-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-f', 'lavfi',
           '-i', SRC.format(w=w, h=h), '-frames:v', str(frames)] + enc + \
          ['-an', '-movflags', '+faststart', path + '.part.mp4']
    print('making %s' % os.path.basename(path), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True)
    os.replace(path + '.part.mp4', path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dir')
    ap.add_argument('--pairs', help='comma-separated names (default: all)')
    ap.add_argument('--gop', type=int, default=48, help='frames per closed GOP')
    ap.add_argument('--onegop', type=int, default=240, help='frames of the one-GOP pair')
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    table = pairs(a.gop, a.onegop)
    names = a.pairs.split(',') if a.pairs else list(table)
    for n in names:
        if n not in table:
            ap.error('unknown pair %s (known: %s)' % (n, ', '.join(table)))
        size, frames, ref, dis = table[n]
        make(os.path.join(a.dir, 'bench_%s_ref.mp4' % n), size, frames, ref)
        make(os.path.join(a.dir, 'bench_%s_dis.mp4' % n), size, frames, dis)
    return 0


if __name__ == '__main__':
    sys.exit(main())
