#!/usr/bin/env python3
"""GPU benchmark: frames per second per model x resolution x backend, the CPU
measured in the same run on the same input, and where the CUDA time goes.

For each size (576x324, 1080p, 2160p) one y4m pair is written (a real 1080p
frame pair from the fixtures, resized, when ../shared is there; otherwise
synthetic texture), then `exactvmaf --model M` runs with --backend cpu (1
thread and all cores) and --backend cuda. fps is the library's own figure
(first picture to flush, as in the JSON output); the CUDA runs also check
that every frame score equals the CPU's bit for bit. A profiled CUDA run
(EXACTVMAF_CUDA_PROFILE=1) splits each twin's time into upload, kernels,
readback and host, and gives the device memory of one stream.

usage: bench/gpu.py --exe build/tools/exactvmaf [--models vmaf_v0.6.1,vmaf_float_v0.6.1]
                    [--sizes 576x324,1080p,2160p] [--frames 96,48,16]
                    [--shared DIR] [--record bench/results.md]
"""
import argparse, datetime, json, os, platform, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import SIZES, cpu_name, source_frame  # noqa: E402


def resize(plane, w, h, W, H):
    try:
        import numpy as np
        a = np.frombuffer(plane, dtype=np.uint8).reshape(h, w)
        ys = np.minimum(np.arange(H) * h // H, h - 1)
        xs = np.minimum(np.arange(W) * w // W, w - 1)
        return a[ys][:, xs].tobytes()
    except ImportError:
        from run import scale_plane
        return scale_plane(plane, w, h, W, H)


def write_y4m(path, frame, w, h, W, H, n):
    cw, ch = w // 2, h // 2
    y = resize(frame[:w * h], w, h, W, H)
    u = resize(frame[w * h:w * h + cw * ch], cw, ch, W // 2, H // 2)
    v = resize(frame[w * h + cw * ch:], cw, ch, W // 2, H // 2)
    with open(path, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n' % (W, H))
        for k in range(n):
            # Shift the rows a little per frame so that motion is not zero.
            s = (k * 3) % H
            yy = y[s * W:] + y[:s * W]
            f.write(b'FRAME\n' + yy + u + v)


def run(argv, env=None):
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    return r.returncode, r.stdout, r.stderr


def gpu_name():
    try:
        r = subprocess.run(['nvidia-smi', '--query-gpu=name,driver_version', '--format=csv,noheader'],
                           capture_output=True, text=True)
        return r.stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        return 'unknown GPU'


def frames_of(doc):
    return [f['metrics'] for f in doc['frames']]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--models', default='vmaf_v0.6.1,vmaf_float_v0.6.1')
    ap.add_argument('--sizes', default='576x324,1080p,2160p')
    ap.add_argument('--frames', default='96,48,16')
    ap.add_argument('--shared', default=os.path.join(os.path.dirname(__file__), '..', '..', 'shared'))
    ap.add_argument('--record')
    a = ap.parse_args()

    w, h, ref, dis = source_frame(a.shared)
    cores = os.cpu_count() or 1
    rows, profiles = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for size, n in zip(a.sizes.split(','), [int(x) for x in a.frames.split(',')]):
            W, H = SIZES[size]
            rp, dp = os.path.join(tmp, 'ref.y4m'), os.path.join(tmp, 'dis.y4m')
            write_y4m(rp, ref, w, h, W, H, n)
            write_y4m(dp, dis, w, h, W, H, n)
            for model in a.models.split(','):
                out = {}
                for label, extra in (('cpu 1 thread', ['--backend', 'cpu', '--threads', '0']),
                                     ('cpu %d threads' % cores, ['--backend', 'cpu', '--threads', str(cores)]),
                                     ('cuda', ['--backend', 'cuda', '--threads', '0'])):
                    o = os.path.join(tmp, 'o.json')
                    argv = [a.exe, '-r', rp, '-d', dp, '--model', 'version=' + model, '-q',
                            '--precision', 'max', '--json', '-o', o] + extra
                    rc, _, err = run(argv)
                    if rc:
                        rows.append([model, size, label, 'error', err.strip().splitlines()[-1][:80] if err.strip() else str(rc)])
                        continue
                    doc = json.load(open(o))
                    out[label] = doc
                    rows.append([model, size, label, '%.2f' % doc['fps'],
                                 ', '.join('%s=%s' % kv for kv in doc.get('backends', {}).items())])
                    print('%-20s %-8s %-16s %8.2f fps' % (model, size, label, doc['fps']), flush=True)
                if 'cuda' in out and 'cpu 1 thread' in out:
                    same = frames_of(out['cuda']) == frames_of(out['cpu 1 thread'])
                    rows[-1][4] += '; frames %s the CPU\'s' % ('equal' if same else 'DIFFER FROM')
                # Where the time goes, and the device memory of this stream.
                env = dict(os.environ, EXACTVMAF_CUDA_PROFILE='1')
                rc, _, err = run([a.exe, '-r', rp, '-d', dp, '--model', 'version=' + model, '-q',
                                  '--backend', 'cuda', '--threads', '0', '--json', '-o',
                                  os.path.join(tmp, 'p.json')], env)
                for line in err.splitlines():
                    m = re.match(r'exactvmaf cuda profile: (\S+) on .*: (\d+) calls, wall ([\d.]+) ms: '
                                 r'upload ([\d.]+) ms, kernels ([\d.]+) ms, readback ([\d.]+) ms, '
                                 r'host ([\d.]+) ms', line)
                    if m:
                        calls = int(m.group(2))
                        per = [float(m.group(i)) / calls for i in range(3, 8)]
                        profiles.append([model, size, m.group(1)] + ['%.3f' % x for x in per])
                        print('  %-14s per frame: wall %.3f ms = upload %.3f + kernels %.3f + '
                              'readback %.3f + host %.3f' % tuple([m.group(1)] + per), flush=True)
                    m = re.match(r'exactvmaf cuda profile: device memory peak ([\d.]+) MiB', line)
                    if m:
                        profiles.append([model, size, 'device memory (one stream)', m.group(1) + ' MiB',
                                         '', '', '', ''])
                        print('  device memory peak %s MiB' % m.group(1), flush=True)
    if a.record:
        with open(a.record, 'a') as f:
            f.write('\n## GPU: %s, %s; CPU %s (%d cores); %s\n\n' % (
                datetime.datetime.now().strftime('%Y-%m-%d %H:%M'), gpu_name(), cpu_name(),
                cores, a.frames + ' frames per size'))
            f.write('fps = the library\'s figure (first picture to flush, y4m reading included).\n\n')
            f.write('| model | size | backend | fps | notes |\n|---|---|---|---|---|\n')
            for r in rows:
                f.write('| %s |\n' % ' | '.join(r))
            f.write('\nCUDA time per frame (ms; EXACTVMAF_CUDA_PROFILE=1, GPU phases timed with '
                    'events, host = wall - GPU phases):\n\n')
            f.write('| model | size | twin | wall | upload | kernels | readback | host |\n'
                    '|---|---|---|---|---|---|---|---|\n')
            for p in profiles:
                f.write('| %s |\n' % ' | '.join(p))
    return 0


if __name__ == '__main__':
    sys.exit(main())
