#!/usr/bin/env python3
"""GPU benchmark, with the anchors measured in the same run on the same input.

1. The library (bench/api_throughput, pictures already in memory): fps per
   model x size on the GPU, and on the CPU with every core.
2. The CLI end to end on y4m files in the page cache: exactvmaf against
   Netflix's CUDA `vmaf` (--netflix PATH, v3.2.0 built outside this repo) on
   the same files, best of `--reps` wall-clock runs each; the CPU paths of
   both at every core too. Each pooled VMAF is printed beside its fps.
3. Where the GPU time goes: the pinned host-to-device peak (bench/h2d_peak)
   beside EXACTVMAF_CUDA_PROFILE=1's upload GB/s, per-twin ms, device memory and, with --ncu, Nsight Compute's time of every kernel.

Input: one real 1080p frame pair of the fixtures (archer), resized to each
size, its rows shifted a little per frame so that motion is not zero.

usage: bench/gpu.py --build BUILD [--netflix PATH] [--data DIR]
                    [--frames 2160p=240,1080p=600] [--reps 2] [--ncu] [--record FILE]
"""
import argparse, datetime, json, os, re, subprocess, sys, tempfile, time

from machine import cpu_name

SIZES = {'2160p': (3840, 2160), '1080p': (1920, 1080), '576x324': (576, 324)}


def gpu_name():
    try:
        r = subprocess.run(['nvidia-smi', '--query-gpu=name,driver_version',
                            '--format=csv,noheader'], capture_output=True, text=True)
        return r.stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        return 'unknown GPU'


def source(data):
    d = os.path.join(data, 'fixtures', 'archer_1920x1080_8b')
    n = 1920 * 1080 * 3 // 2
    return (open(os.path.join(d, 'ref.yuv'), 'rb').read(n),
            open(os.path.join(d, 'dis.yuv'), 'rb').read(n))


def write_y4m(path, frame, W, H, n):
    """n frames of the 1080p 4:2:0 `frame` resized (nearest) to W x H."""
    import numpy as np
    w, h = 1920, 1080
    a = np.frombuffer(frame, dtype=np.uint8)
    planes = [a[:w * h].reshape(h, w), a[w * h:w * h * 5 // 4].reshape(h // 2, w // 2),
              a[w * h * 5 // 4:].reshape(h // 2, w // 2)]
    out = []
    for p, (pw, ph) in zip(planes, [(W, H), (W // 2, H // 2), (W // 2, H // 2)]):
        ys = np.minimum(np.arange(ph) * p.shape[0] // ph, p.shape[0] - 1)
        xs = np.minimum(np.arange(pw) * p.shape[1] // pw, p.shape[1] - 1)
        out.append(p[ys][:, xs])
    with open(path, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n' % (W, H))
        for k in range(n):
            f.write(b'FRAME\n')
            f.write(np.roll(out[0], 3 * k, axis=0).tobytes())
            f.write(out[1].tobytes())
            f.write(out[2].tobytes())


def timed(argv, env=None):
    t = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    return time.perf_counter() - t, r


def pooled(path):
    try:
        d = json.load(open(path))
        return '%.6f' % d['pooled_metrics']['vmaf']['mean']
    except (OSError, KeyError, ValueError):
        return '-'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True, help='meson build folder of exactvmaf')
    ap.add_argument('--netflix', help="Netflix's vmaf built with CUDA")
    ap.add_argument('--data', help='the unpacked test data (default: BUILD/test-data)')
    ap.add_argument('--frames', default='2160p=240,1080p=600')
    ap.add_argument('--reps', type=int, default=2)
    ap.add_argument('--ncu', action='store_true')
    ap.add_argument('--parts', default='api,cli,profile', help='which of api, cli, profile to run')
    ap.add_argument('--record')
    a = ap.parse_args()
    exe = os.path.join(a.build, 'tools', 'exactvmaf')
    api = os.path.join(a.build, 'bench', 'api_throughput')
    cores = os.cpu_count() or 1
    a.data = a.data or os.path.join(a.build, 'test-data')
    ref, dis = source(a.data)
    src = ['--source', os.path.join(a.data, 'fixtures', 'archer_1920x1080_8b', 'ref.yuv'),
           '--source-size', '1920x1080']
    lines = []

    def say(s=''):
        print(s, flush=True)
        lines.append(s)

    say('## GPU: %s, %s; CPU %s (%d cores)' % (datetime.datetime.now().strftime('%Y-%m-%d %H:%M'),
                                               gpu_name(), cpu_name(), cores))
    say()
    parts = a.parts.split(',')
    sizes = [(s.split('=')[0], int(s.split('=')[1])) for s in a.frames.split(',')]
    if 'api' in parts:
        api_part(a, api, src, sizes, cores, say)
    if 'cli' in parts:
        cli_part(a, exe, ref, dis, sizes, cores, say)
    if 'profile' in parts:
        profile_part(a, api, src, say)
    if a.record:
        with open(a.record, 'a') as f:
            f.write('\n' + '\n'.join(lines) + '\n')
    return 0


def api_part(a, api, src, sizes, cores, say):
    say('Library (bench/api_throughput, pictures in memory):')
    say()
    say('| model | size | frames | backend | fps | pooled VMAF |')
    say('|---|---|---|---|---|---|')
    for model in ('vmaf_v0.6.1', 'vmaf_float_v0.6.1', 'vmaf_v0.6.1,vmaf_v0.6.1neg'):
        for size, n in sizes:
            W, H = SIZES[size]
            for backend, extra, frames in (('cuda', [], 5 * n),
                                           ('cpu %d threads' % cores, ['--threads', str(cores)],
                                            max(n // 6, 24))):
                argv = [api, '--model', model, '--size', '%dx%d' % (W, H), '--frames',
                        str(frames), '--backend', backend.split()[0]] + extra + src
                _, r = timed(argv)
                out = r.stdout.split()
                fps = out[-1] if r.returncode == 0 else 'error: ' + r.stderr.strip()[-80:]
                scores = ' '.join(out[i + 1][:10] for i in range(0, len(out) - 2, 2))
                say('| %s | %s | %d | %s | %s | %s |' % (model, size, frames, backend, fps, scores))


def cli_part(a, exe, ref, dis, sizes, cores, say):
    with tempfile.TemporaryDirectory() as tmp:
        say()
        say('CLI end to end, y4m in the page cache, best of %d wall-clock runs:' % a.reps)
        say()
        say('| model | size | frames | tool | fps | pooled VMAF |')
        say('|---|---|---|---|---|---|')
        for size, n in sizes:
            W, H = SIZES[size]
            rp, dp = os.path.join(tmp, 'ref.y4m'), os.path.join(tmp, 'dis.y4m')
            write_y4m(rp, ref, W, H, n)
            write_y4m(dp, dis, W, H, n)
            for p in (rp, dp):     # into the page cache
                with open(p, 'rb') as f:
                    while f.read(1 << 24):
                        pass
            runs = []
            for model in ('vmaf_v0.6.1', 'vmaf_float_v0.6.1'):
                m = ['--model', 'version=' + model]
                runs.append((model, 'exactvmaf (default backend: auto)', [exe, '-r', rp, '-d', dp] + m +
                             ['-q', '--json', '-o', os.path.join(tmp, 'ev.json')], 'ev.json'))
                if model != 'vmaf_v0.6.1':
                    continue    # the GPU anchor and the CPU paths: the default model
                runs.append((model, 'exactvmaf cpu %d threads' % cores,
                             [exe, '-r', rp, '-d', dp] + m + ['-q', '--backend', 'cpu', '--threads',
                                                              str(cores), '--json', '-o',
                                                              os.path.join(tmp, 'evc.json')],
                             'evc.json'))
                if a.netflix:
                    runs.append((model, 'Netflix vmaf v3.2.0 cuda',
                                 [a.netflix, '-r', rp, '-d', dp] + m +
                                 ['-q', '--json', '-o', os.path.join(tmp, 'nf.json')], 'nf.json'))
                    runs.append((model, 'Netflix vmaf v3.2.0 cpu %d threads' % cores,
                                 [a.netflix, '-r', rp, '-d', dp] + m +
                                 ['-q', '--gpumask', '4294967295', '--threads', str(cores),
                                  '--json', '-o', os.path.join(tmp, 'nfc.json')], 'nfc.json'))
            for model, tool, argv, out in runs:
                best = None
                for _ in range(a.reps):
                    t, r = timed(argv)
                    if r.returncode:
                        best = 'error: ' + (r.stderr.strip()[-80:] or str(r.returncode))
                        break
                    best = t if best is None or t < best else best
                fps = '%.1f' % (n / best) if isinstance(best, float) else best
                say('| %s | %s | %d | %s | %s | %s |' % (model, size, n, tool, fps,
                                                        pooled(os.path.join(tmp, out))))


def profile_part(a, api, src, say):
    say()
    say('Where the GPU time goes (EXACTVMAF_CUDA_PROFILE=1, api_throughput, 2160p):')
    say()
    peak = os.path.join(os.path.dirname(api), 'h2d_peak')
    if os.path.exists(peak):
        _, r = timed([peak])
        gbps = [l.split()[1] for l in r.stdout.splitlines() if l.startswith('h2d_peak_gbps')]
        say('- pinned host-to-device peak (bench/h2d_peak, 64 MiB copies): %s GB/s' %
            (gbps[0] if gbps else 'error: ' + r.stderr.strip()[-80:]))
    for model in ('vmaf_v0.6.1', 'vmaf_float_v0.6.1', 'vmaf_v0.6.1,vmaf_v0.6.1neg'):
        env = dict(os.environ, EXACTVMAF_CUDA_PROFILE='1')
        _, r = timed([api, '--model', model, '--size', '3840x2160', '--frames', '300',
                      '--backend', 'cuda'] + src, env)
        say('- %s:' % model)
        for line in r.stderr.splitlines():
            if 'profile' in line:
                say('  - ' + line.split('profile: ', 1)[1])
    if a.ncu:
        say()
        say('Nsight Compute, every kernel of two 2160p frames (us per launch, serialized):')
        for model in ('vmaf_v0.6.1', 'vmaf_float_v0.6.1'):
            r = subprocess.run(['ncu', '--clock-control', 'none', '--launch-skip', '150',
                                '--launch-count', '80', '--csv', '--metrics',
                                'gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,'
                                'sm__throughput.avg.pct_of_peak_sustained_elapsed',
                                api, '--model', model, '--size', '3840x2160', '--frames', '16',
                                '--backend', 'cuda', '--frames-in-flight', '2'] + src,
                               capture_output=True, text=True)
            import csv, io, collections
            rows = [l for l in r.stdout.splitlines() if l.startswith('"')]
            agg = collections.OrderedDict()
            for row in csv.DictReader(io.StringIO('\n'.join(rows))):
                v = float(row['Metric Value'].replace(',', ''))
                if row['Metric Name'] == 'gpu__time_duration.sum':
                    v *= {'nsecond': 1e-3, 'usecond': 1, 'msecond': 1e3}.get(row['Metric Unit'], 1e-3)
                agg.setdefault(row['Kernel Name'], collections.defaultdict(list))[row['Metric Name']].append(v)
            say()
            say('| %s kernel | launches | us per launch | DRAM %% of peak | SM %% of peak |' % model)
            say('|---|---|---|---|---|')
            for k, m in agg.items():
                t = m['gpu__time_duration.sum']
                say('| %s | %d | %.1f | %.1f | %.1f |' % (
                    k, len(t), sum(t) / len(t),
                    sum(m['dram__throughput.avg.pct_of_peak_sustained_elapsed']) / len(t),
                    sum(m['sm__throughput.avg.pct_of_peak_sustained_elapsed']) / len(t)))


if __name__ == '__main__':
    sys.exit(main())
