#!/usr/bin/env python3
"""Decode + score: exactvmaf on an H.264 pair beside `ffmpeg -lavfi libvmaf`.

A 1080p H.264 pair is made with `ffmpeg` (testsrc2 content: the reference at
CRF 10, the distorted at CRF 35), then, best of --reps wall-clock runs each,
on the same files in the same run:
  exactvmaf -r ref.mp4 -d dis.mp4 --threads N
  FFMPEG -i dis.mp4 -i ref.mp4 -lavfi "[0:v][1:v]libvmaf=n_threads=N" -f null -
where FFMPEG is an ffmpeg built with --enable-libvmaf (give it with --ffmpeg;
Debian's ffmpeg has no libvmaf filter). Both print the pooled VMAF; they
must agree to the printed digits when FFMPEG's libvmaf is Netflix's v3.2.0.

usage: bench/decode.py --exe build/tools/exactvmaf --ffmpeg PATH [--frames 300]
                       [--threads 1,2] [--reps 2] [--record FILE]
"""
import argparse, datetime, os, re, subprocess, sys, tempfile, time

from machine import cpu_name


def best(argv, reps):
    t_best, out = None, None
    for _ in range(reps):
        t = time.perf_counter()
        r = subprocess.run(argv, capture_output=True, text=True)
        t = time.perf_counter() - t
        if r.returncode:
            return None, r.stderr.strip()[-200:]
        if t_best is None or t < t_best:
            t_best, out = t, r.stdout + r.stderr
    return t_best, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--ffmpeg', required=True, help='an ffmpeg with the libvmaf filter')
    ap.add_argument('--frames', type=int, default=300)
    ap.add_argument('--threads', default='1,2')
    ap.add_argument('--reps', type=int, default=2)
    ap.add_argument('--record')
    a = ap.parse_args()
    lines = []

    def say(s=''):
        print(s, flush=True)
        lines.append(s)

    with tempfile.TemporaryDirectory() as tmp:
        ref, dis = os.path.join(tmp, 'ref.mp4'), os.path.join(tmp, 'dis.mp4')
        make = ['ffmpeg', '-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i',
                'testsrc2=size=1920x1080:rate=25', '-frames:v', str(a.frames), '-pix_fmt',
                'yuv420p', '-c:v', 'libx264', '-preset', 'veryfast']
        subprocess.run(make + ['-crf', '10', ref], check=True)
        subprocess.run(make + ['-crf', '35', dis], check=True)
        say('## Decode + score: %s, %d cores, %s' % (
            datetime.datetime.now().strftime('%Y-%m-%d %H:%M'), os.cpu_count() or 1, cpu_name()))
        say()
        say('1080p H.264 pair (testsrc2, CRF 10 / CRF 35), %d frames, vmaf_v0.6.1, best of %d '
            'wall-clock runs:' % (a.frames, a.reps))
        say()
        say('| threads | tool | fps | pooled VMAF |')
        say('|---|---|---|---|')
        for n in [int(x) for x in a.threads.split(',')]:
            t, out = best([a.exe, '-r', ref, '-d', dis, '--threads', str(n), '--backend', 'cpu'],
                          a.reps)
            m = re.search(r'VMAF score[^:]*: ([\d.]+)', out or '')
            say('| %d | exactvmaf (decodes with FFmpeg\'s libraries) | %s | %s |' % (
                n, '%.1f' % (a.frames / t) if t else 'error: ' + out, m.group(1) if m else '-'))
            t, out = best([a.ffmpeg, '-hide_banner', '-nostats', '-i', dis, '-i', ref, '-lavfi',
                           '[0:v][1:v]libvmaf=n_threads=%d' % n, '-f', 'null', '-'], a.reps)
            m = re.search(r'VMAF score: ([\d.]+)', out or '')
            say('| %d | ffmpeg -lavfi libvmaf | %s | %s |' % (
                n, '%.1f' % (a.frames / t) if t else 'error: ' + out, m.group(1) if m else '-'))
    if a.record:
        with open(a.record, 'a') as f:
            f.write('\n' + '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
