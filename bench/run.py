#!/usr/bin/env python3
"""Benchmark runner: frames per second of a model at 1080p and 2160p with 1 and 2
threads, for exactvmaf and, in the same run, a reference `vmaf` binary when one is
given (--netflix PATH), so the comparison is a ratio measured on one machine at one
time. Wall-clock of the whole CLI run (read, compute, write) on identical y4m input.

usage: bench/run.py --exe build/tools/exactvmaf [--netflix PATH] [--frames N]
                    [--model vmaf_float_v0.6.1] [--sizes 1080p,2160p] [--threads 1,2]
                    [--backend cpu] [--record bench/results.md]
--model A+B scores several models in one run (VMAF and VMAF NEG: vmaf_v0.6.1+vmaf_v0.6.1neg).
"""
import argparse, datetime, os, subprocess, sys, tempfile, time

from machine import cpu_name

SIZES = {'1080p': (1920, 1080), '2160p': (3840, 2160), '576x324': (576, 324)}


def source_frame(data):
    """(w, h, y, u, v) of a real 1080p frame pair when the test data is there,
    else synthetic texture."""
    d = os.path.join(data, 'fixtures', 'archer_1920x1080_8b')
    w, h = 1920, 1080
    n = w * h * 3 // 2
    if os.path.exists(os.path.join(d, 'ref.yuv')):
        ref = open(os.path.join(d, 'ref.yuv'), 'rb').read(n)
        dis = open(os.path.join(d, 'dis.yuv'), 'rb').read(n)
        return w, h, ref, dis
    import random
    rnd = random.Random(1)
    ref = bytes(rnd.randrange(256) for _ in range(n))
    dis = bytes((b + rnd.randrange(9) - 4) & 255 for b in ref)
    return w, h, ref, dis


def scale_plane(p, w, h, W, H):
    """Nearest-neighbour resize of an 8-bit plane (whole-row slicing keeps it quick)."""
    xs = [min(w - 1, j * w // W) for j in range(W)]
    rows = []
    for i in range(H):
        r = p[(min(h - 1, i * h // H)) * w:][:w]
        rows.append(bytes(r[x] for x in xs))
    return b''.join(rows)


def write_y4m(path, frame, w, h, W, H, n):
    cw, ch = w // 2, h // 2
    y = scale_plane(frame[:w * h], w, h, W, H)
    u = scale_plane(frame[w * h:w * h + cw * ch], cw, ch, W // 2, H // 2)
    v = scale_plane(frame[w * h + cw * ch:], cw, ch, W // 2, H // 2)
    with open(path, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n' % (W, H))
        for _ in range(n):
            f.write(b'FRAME\n' + y + u + v)


def timed(argv):
    t0 = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode:
        raise SystemExit('%s failed (%d): %s' % (argv[0], r.returncode, r.stderr[-500:]))
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--netflix')
    ap.add_argument('--frames', type=int, default=8)
    ap.add_argument('--model', default='vmaf_float_v0.6.1')
    ap.add_argument('--sizes', default='1080p,2160p')
    ap.add_argument('--threads', default='1,2')
    ap.add_argument('--data', help='the unpacked test data (default: the test-data/ of the '
                    'build holding --exe)')
    ap.add_argument('--record')
    ap.add_argument('--backend', default='cpu',
                    help='our backend (default cpu: on a machine with a GPU, auto would take it)')
    a = ap.parse_args()

    w, h, ref, dis = source_frame(a.data or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(a.exe))), 'test-data'))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in a.sizes.split(','):
            W, H = SIZES[size]
            rp, dp = os.path.join(tmp, 'ref.y4m'), os.path.join(tmp, 'dis.y4m')
            write_y4m(rp, ref, w, h, W, H, a.frames)
            write_y4m(dp, dis, w, h, W, H, a.frames)
            models = []
            for m in a.model.split('+'):
                models += ['--model', 'version=%s:name=%s' % (m, m)]
            for t in a.threads.split(','):
                ours = [a.exe, '-r', rp, '-d', dp] + models + [
                        '--threads', t, '--backend', a.backend, '-q', '--json', '-o',
                        os.path.join(tmp, 'o.json')]
                fps = a.frames / timed(ours)
                row = [a.model, size, t, '%.2f' % fps]
                if a.netflix:
                    theirs = [a.netflix, '-r', rp, '-d', dp] + models + [
                              '--threads', t, '-q', '--json', '-o', os.path.join(tmp, 'n.json')]
                    nfps = a.frames / timed(theirs)
                    row += ['%.2f' % nfps, '%.2f' % (fps / nfps)]
                else:
                    row += ['-', '-']
                rows.append(row)
                print('%-20s %-6s threads %-2s exactvmaf %8s fps   reference %8s fps   ratio %s' % tuple(row),
                      flush=True)
    if a.record:
        with open(a.record, 'a') as f:
            f.write('\n## %s, %s, %d frames per run\n\n' % (
                datetime.datetime.now().strftime('%Y-%m-%d %H:%M'), cpu_name(), a.frames))
            f.write('| model | size | threads | exactvmaf fps | reference fps | ratio |\n')
            f.write('|---|---|---|---|---|---|\n')
            for r in rows:
                f.write('| %s |\n' % ' | '.join(r))
    return 0


if __name__ == '__main__':
    sys.exit(main())
