#!/usr/bin/env python3
"""Where the CPU time goes: per model, per extractor and per stage, the time per
frame at 1080p and 2160p with 1 and N threads, the bandwidth each stage achieves
against the machine's (bench/triad), and what bounds it.

usage: bench/profile.py [--build build] [--threads 1,N] [--sizes 1080p,2160p]
                        [--models vmaf_v0.6.1,...] [--perf auto|off] [--record FILE]

Needs python3 and the built tree only. What it measures:
- triad: STREAM's triad (bench/triad.c, pthreads) at each thread count, GB/s.
- model: the whole CLI run with the model (-m path=...), ms per frame of wall time.
- read: the CLI reading both inputs with the cheapest extractor (psnr) on, the
  floor under every row; extractor rows are wall time minus this floor.
- extractor: the CLI with that extractor alone (--feature NAME=the model's
  options, -n), wall ms per frame, and cpu% = CPU time / (wall x threads), both
  net of the floor's: below ~80% at N threads the cores wait on each other
  (synchronisation bound).
- stage: with perf (Linux perf, when on PATH and allowed), the extractor's run is
  sampled at 999 Hz (cpu-clock) and its samples are put to stages by the
  kernels' symbol names; a stage's ms per frame is its CPU time / frames / threads
  (the wall time it would take with every thread on it). Its bytes are the
  planes it must read and write (row buffers that stay in cache not counted),
  its GB/s those bytes over that time, and bw% that against the triad at the
  same thread count. Class: bandwidth when bw% >= 50; sync when its CPU time at
  N threads is over 1.3x that at 1 thread while bw% < 50, or when the
  extractor's cpu% is below 80; compute otherwise.
- cpu ms: CPU time per frame (all threads): on a machine shared with other work,
  where wall time counts the waits for a core, the column to compare.
Without perf the stage rows are left out and the rest is printed.
The input is run.py's: a real 1080p frame (or synthetic texture) scaled and
repeated, 8-bit 4:2:0.
"""
import argparse, datetime, json, os, re, shutil, subprocess, sys, tempfile, time

import run
from machine import cpu_name

MODELS = ['vmaf_v0.6.1', 'vmaf_float_v0.6.1', 'vmaf_v0.6.1neg', 'vmaf_v1.0.16_3d0h_2160']
FRAMES = {'1080p': 24, '2160p': 8, '576x324': 48}

# A model's feature name prefix -> the extractor that computes it.
EXTRACTOR_OF = [
    ('VMAF_integer_feature_vif', 'vif'), ('VMAF_integer_feature_adm', 'adm'),
    ('VMAF_integer_feature_motion', 'motion'), ('VMAF_feature_vif', 'float_vif'),
    ('VMAF_feature_adm', 'float_adm'), ('VMAF_feature_motion', 'float_motion'),
    ('Cambi_feature', 'cambi'), ('Speed_chroma_feature', 'speed_chroma'),
    ('Speed_temporal_feature', 'speed_temporal'),
]

# Per extractor: (stage, symbol regex, bytes per frame as a multiple of the luma
# plane's pixel count P at 8 bits). Bytes: the planes the stage must stream
# from memory and back: ref and dis at each scale read (8-bit at scale 0,
# 16-bit or float below), and what it writes for the next stage.
S = 1 / 4 + 1 / 16 + 1 / 64          # the pixels of VIF's and ADM's scales 1..3, per P
STAGES = {
    'vif': [
        ('vertical filter', r'^vert_(u8|u16|tail)', 2 + 2 * 2 * S),
        ('horizontal filter + stat', r'ivif_(row_sums|filter_row|stat_row)|^row_sums|^filter_row', 0),
        ('decimate', r'ivif_decimate_row|^decimate_row', 2 + 2 * 2 * (S - 1 / 64) + 2 * 2 * S),
    ],
    'adm': [
        ('dwt scale 0', r'^dwt0_', 2 + 2 * 4 * 2 / 4),
        ('dwt scales 1-3', r'^dwt(1)?_(vert|horiz)', 2 * 4 * 2 * S),
        ('decouple + csf', r'^(decouple|csf|den)', 2 * 4 * 2 * (1 / 4 + S / 4)),
        ('cm', r'^cm', 2 * 3 * 2 * (1 / 4 + S / 4)),
        ('frame glue', r'iadm_cpu_frame|dwt0_row', 0),
    ],
    'motion': [
        ('blur + SAD', r'imotion_sad', 1 + 2 + 2),
    ],
    'float_vif': [
        ('to float', r'vmaf_picture_to_float', 2 + 2 * 4),
        ('filter + stat', r'^extract$', 2 * 4 * (1 + S)),
        ('decimate', r'filter_decimate', 2 * 4 * (1 + S - 1 / 64) + 2 * 4 * S),
        ('prescale', r'vif_prescale', 0),
    ],
    'float_adm': [
        ('to float', r'vmaf_picture_to_float', 2 + 2 * 4),
        ('dwt + csf', r'adm_cpu_scales|dwt_', 2 * 4 * (1 + S) + 2 * 4 * 4 * (1 / 4 + S / 4)),
        ('cm', r'cm_scale', 2 * 4 * 4 * (1 / 4 + S / 4)),
    ],
    'float_motion': [
        ('to float', r'vmaf_picture_to_float', 1 + 4),
        ('blur', r'blur_plane', 4 + 4),
        ('SAD', r'sad_rows', 4 * 2),
        ('downscale', r'downscale', 0),
    ],
    'cambi': [
        ('load + mask', r'load_mask|cambi_resample', 1 + 2 + 1),
        ('decimate', r'cambi_cpu_decimate|^decimate_', 2 + 1),
        ('mode filter + band', r'mode_filter', 2 * 2 + 2),
        ('c-values', r'c_value|slide_rows|band_image', 2),
        ('pool (top-k)', r'cambi_select_top|cambi_pool|cambi_stoppers', 0),
    ],
    'speed_chroma': [
        ('load + prescale', r'speed_core_load|^decimate$|axis_build', 2 * 0.5 + 2 * 4 * 0.5),
        ('covariance sums', r'covariance_sums|vertical_taps', 2 * 4 * 0.5),
        ('estimate + score', r'speed_core_(estimate|score|diff|conclude)', 0),
    ],
}
GLUE = ('read, copy, kernel', r'.')        # whatever no stage claims


def timed(argv, env=None):
    """(wall s, CPU s) of a run that must succeed."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out, err = p.communicate()
    dt = time.perf_counter() - t0
    if p.returncode:
        raise SystemExit('%s failed (%d): %s' % (' '.join(argv), p.returncode, err[-800:].decode()))
    return dt, out.decode()


def cpu_of(argv):
    """(wall s, user+sys CPU s) of a run, from its rusage."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    if status:
        raise SystemExit('%s failed (%d): %s' % (' '.join(argv), status, err[-800:]))
    return dt, ru.ru_utime + ru.ru_stime


def best_of(argv, reps):
    runs = [cpu_of(argv) for _ in range(reps)]
    return min(runs)


def extractors_of(model_path):
    md = json.load(open(model_path))
    md = md.get('model_dict', md)
    opts_list = md.get('feature_opts_dicts') or [{}] * len(md['feature_names'])
    out = {}
    for name, opts in zip(md['feature_names'], opts_list):
        ext = next((e for p, e in EXTRACTOR_OF if name.startswith(p)), None)
        if ext is None:
            raise SystemExit('profile.py: no extractor known for %s' % name)
        out.setdefault(ext, {}).update(opts or {})
    return out


def feature_arg(ext, opts):
    if not opts:
        return ext
    return ext + '=' + ':'.join('%s=%s' % (k, v) for k, v in sorted(opts.items()))


def perf_usable():
    perf = shutil.which('perf')
    if not perf:
        return None
    try:
        r = subprocess.run([perf, 'record', '-q', '-o', os.devnull, '--', 'true'],
                           capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return perf if r.returncode == 0 else None


def perf_samples(perf, argv, tmp):
    """{symbol: samples} of a run sampled at 999 Hz of CPU time, and the rate."""
    data = os.path.join(tmp, 'perf.data')
    subprocess.run([perf, 'record', '-q', '-F', '999', '-e', 'cpu-clock', '-o', data, '--'] + argv,
                   check=True, capture_output=True)
    r = subprocess.run([perf, 'report', '-i', data, '--stdio', '-n', '--no-children',
                        '--sort', 'symbol'], check=True, capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r'\s*[\d.]+%\s+(\d+)\s+\[[.k]\]\s+(\S+)', line)
        if m:
            out[m.group(2)] = out.get(m.group(2), 0) + int(m.group(1))
    return out, 999.0


def stage_split(ext, samples):
    """{stage: samples}, in STAGES order, the unclaimed ones under GLUE."""
    split = {}
    for sym, n in samples.items():
        stage = GLUE[0]
        for name, rx, _ in STAGES.get(ext, []):
            if re.search(rx, sym):
                stage = name
                break
        split[stage] = split.get(stage, 0) + n
    return split


def triad_gbps(build, threads):
    exe = os.path.join(build, 'bench', 'triad')
    _, out = timed([exe, str(threads), '256', '8'])
    return float(out.strip().splitlines()[-1].split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.path.join(os.path.dirname(__file__), '..', 'build'))
    ap.add_argument('--threads', default='1,%d' % (os.cpu_count() or 1))
    ap.add_argument('--sizes', default='1080p,2160p')
    ap.add_argument('--models', default=','.join(MODELS))
    ap.add_argument('--frames', type=int, help='frames per run (default: 24 at 1080p, 8 at 2160p)')
    ap.add_argument('--reps', type=int, default=2, help='runs per timing, the best kept')
    ap.add_argument('--perf', choices=('auto', 'off'), default='auto')
    ap.add_argument('--data', help='the unpacked test data (default: BUILD/test-data)')
    ap.add_argument('--models-dir', help='model JSON folder (default: models/)')
    ap.add_argument('--record', help='append the table to this markdown file')
    a = ap.parse_args()

    exe = os.path.join(a.build, 'tools', 'exactvmaf')
    mdir = a.models_dir or os.path.join(os.path.dirname(__file__), '..', 'models')
    threads = [int(t) for t in a.threads.split(',')]
    perf = perf_usable() if a.perf == 'auto' else None
    lines = []

    def emit(s=''):
        print(s, flush=True)
        lines.append(s)

    tri = {t: triad_gbps(a.build, t) for t in threads}
    emit('%s, %d CPUs; triad %s; perf %s' % (
        cpu_name(), os.cpu_count() or 0,
        ', '.join('%d thr %.1f GB/s' % (t, tri[t]) for t in threads),
        'on (stages sampled)' if perf else 'not available (no stage rows)'))
    emit()
    hdr = '| model | size | row | stage | ' + ' | '.join(
        'ms/frame %dt | cpu ms %dt | cpu%% %dt | GB/s %dt | bw%% %dt' % (t, t, t, t, t)
        for t in threads) + \
        ' | scaling | bound |'
    emit(hdr)
    emit('|' + '---|' * (hdr.count('|') - 1))

    w, h, ref, dis = run.source_frame(a.data or os.path.join(a.build, 'test-data'))
    with tempfile.TemporaryDirectory() as tmp:
        for size in a.sizes.split(','):
            W, H = run.SIZES[size]
            P = W * H
            n = a.frames or FRAMES.get(size, 8)
            rp, dp = os.path.join(tmp, 'ref.y4m'), os.path.join(tmp, 'dis.y4m')
            run.write_y4m(rp, ref, w, h, W, H, n)
            run.write_y4m(dp, dis, w, h, W, H, n)
            base = [exe, '-r', rp, '-d', dp, '-q', '--json', '-o', os.path.join(tmp, 'o.json')]

            def cell(row_ms, cpu, bytes_, t):
                gbps = bytes_ / (row_ms * 1e-3) / 1e9 if bytes_ and row_ms > 0 else 0.0
                cpu_ms = row_ms * t * (cpu / 100 if cpu is not None else 1)
                return ['%.2f' % row_ms, '%.2f' % cpu_ms,
                        '%.0f' % cpu if cpu is not None else '-',
                        '%.1f' % gbps if bytes_ else '-',
                        '%.0f' % (100 * gbps / tri[t]) if bytes_ else '-'], gbps

            read = {}
            for t in threads:
                wall, cpu = best_of(base + ['-n', '--feature', 'psnr', '--threads', str(t)], a.reps)
                read[t] = (wall / n * 1e3, 100 * cpu / (wall * t))
            emit('| - | %s | read + psnr (floor) | | %s | | |' % (size, ' | '.join(
                ' | '.join(cell(read[t][0], read[t][1], 0, t)[0]) for t in threads)))

            for model in a.models.split(','):
                path = os.path.join(mdir, model + '.json')
                whole = {}
                for t in threads:
                    wall, cpu = best_of(base + ['-m', 'path=' + path, '--threads', str(t)], a.reps)
                    whole[t] = (wall / n * 1e3, 100 * cpu / (wall * t))
                sc = whole[threads[0]][0] / whole[threads[-1]][0]
                emit('| %s | %s | **whole model** | | %s | %.2fx | |' % (model, size, ' | '.join(
                    ' | '.join(cell(whole[t][0], whole[t][1], 0, t)[0]) for t in threads), sc))
                for ext, opts in extractors_of(path).items():
                    argv = base + ['-n', '--feature', feature_arg(ext, opts)]
                    ex = {}
                    for t in threads:
                        wall, cpu = best_of(argv + ['--threads', str(t)], a.reps)
                        ms = max(wall / n * 1e3 - read[t][0], 0.0)
                        # cpu% net of the floor's: the extractor's own CPU time
                        # over its own wall time and the threads.
                        net_cpu = cpu - read[t][1] / 100 * read[t][0] * 1e-3 * n * t
                        ex[t] = (ms, 100 * net_cpu / (ms * 1e-3 * n * t) if ms > 0 else 0)
                    sc = ex[threads[0]][0] / ex[threads[-1]][0] if ex[threads[-1]][0] > 0 else 0
                    sync = len(threads) > 1 and ex[threads[-1]][1] < 80
                    emit('| %s | %s | %s | | %s | %.2fx | %s |' % (
                        model, size, feature_arg(ext, opts), ' | '.join(
                            ' | '.join(cell(ex[t][0], ex[t][1], 0, t)[0]) for t in threads),
                        sc, 'sync (idle cores)' if sync else ''))
                    if not perf:
                        continue
                    per = {}
                    for t in threads:
                        smp, hz = perf_samples(perf, argv + ['--threads', str(t)], tmp)
                        per[t] = {k: v / hz / n * 1e3 / t for k, v in stage_split(ext, smp).items()}
                    for name, _, mult in STAGES.get(ext, []) + [GLUE + (0,)]:
                        cells, bw, ms = [], {}, {}
                        for t in threads:
                            ms[t] = per[t].get(name, 0.0)
                            c, bw[t] = cell(ms[t], None, mult * P, t)
                            cells.append(' | '.join(c))
                        if all(ms[t] < 0.005 for t in threads):
                            continue
                        t0, t1 = threads[0], threads[-1]
                        growth = ms[t1] * t1 / (ms[t0] * t0) if ms[t0] > 0 else 0
                        if mult and bw[t1] >= 0.5 * tri[t1]:
                            bound = 'bandwidth'
                        elif name == GLUE[0]:
                            bound = 'I/O + glue'
                        elif growth > 1.3 or sync:
                            bound = 'sync/contention (cpu x%.2f at %dt)' % (growth, t1)
                        else:
                            bound = 'compute'
                        sc = ms[t0] / ms[t1] if ms[t1] > 0 else 0
                        emit('| %s | %s | %s | %s | %s | %.2fx | %s |' % (
                            model, size, ext, name, ' | '.join(cells), sc, bound))
    if a.record:
        with open(a.record, 'a') as f:
            f.write('\n## Profile, %s, bench/profile.py\n\n' %
                    datetime.datetime.now().strftime('%Y-%m-%d %H:%M'))
            f.write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
