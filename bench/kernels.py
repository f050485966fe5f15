#!/usr/bin/env python3
"""Every GPU kernel of a model's frame against the memory roofline (Nsight Compute).

bench/api_throughput scores a few frames (pictures already in memory, so only
the kernels' own work is measured) under `ncu`, which replays each launch to
read its counters. Per model, one table: for every kernel its launches per
frame, GPU time per frame and its share, DRAM bytes moved per frame, the
bandwidth it achieved, DRAM and SM throughput as % of the device's peak and
its achieved occupancy; then the sums: GPU time per frame (the ceiling it
puts on fps with the kernels one after another), DRAM bytes per frame, and
the time those bytes take at the device's peak bandwidth (the floor).

Counters are read with the clocks as the driver sets them (--clock-control
none), so times match an ordinary run's. Launches per frame are the
launches counted over the run divided by its frames; kernels of the start
(once per run) then count as a fraction of a launch.

usage: bench/kernels.py --build BUILD [--models M,M,...] [--size WxH] [--frames N]
                        [--ncu PATH] [--record FILE]
       bench/kernels.py --selftest
"""
import argparse, collections, csv, io, os, shutil, subprocess, sys

METRICS = {
    'gpu__time_duration.sum': 'ns',
    'dram__bytes_read.sum': 'read',
    'dram__bytes_write.sum': 'write',
    'dram__throughput.avg.pct_of_peak_sustained_elapsed': 'dram_pct',
    'sm__throughput.avg.pct_of_peak_sustained_elapsed': 'sm_pct',
    'sm__warps_active.avg.pct_of_peak_sustained_active': 'occupancy',
}
MODELS = ('vmaf_v0.6.1', 'vmaf_float_v0.6.1', 'vmaf_v1.0.16_3d0h')


def parse_ncu_csv(text):
    """{kernel: {key: [values per launch]}} from `ncu --csv --print-units base` output."""
    lines = [l for l in text.splitlines() if l.startswith('"')]
    per = collections.OrderedDict()
    seen = collections.defaultdict(set)
    for row in csv.DictReader(io.StringIO('\n'.join(lines))):
        key = METRICS.get(row.get('Metric Name'))
        if not key:
            continue
        v = row['Metric Value'].replace(',', '')
        try:
            v = float(v)
        except ValueError:
            continue
        name = row['Kernel Name']
        per.setdefault(name, collections.defaultdict(list))[key].append(v)
        seen[name].add(row['ID'])
    return per, {k: len(v) for k, v in seen.items()}


def table(per, launches, frames):
    """Markdown lines, and (us per frame, DRAM bytes per frame, peak GB/s or None)."""
    rows = []
    peak_estimates = []
    for name, m in per.items():
        n = launches[name]
        ns = sum(m['ns'])
        by = sum(m['read']) + sum(m['write'])
        gbs = by / ns if ns else 0.0      # bytes per ns = GB/s
        avg = lambda k: sum(m[k]) / len(m[k]) if m[k] else float('nan')
        # The device's peak, from what a kernel moved and the share of peak that is.
        if avg('dram_pct') >= 20:
            peak_estimates.append(gbs / (avg('dram_pct') / 100))
        rows.append((ns / frames / 1000, name, n / frames, by / frames / 1e6, gbs,
                     avg('dram_pct'), avg('sm_pct'), avg('occupancy')))
    rows.sort(reverse=True)
    total_us = sum(r[0] for r in rows)
    total_mb = sum(r[3] for r in rows)
    out = ['| kernel | launches / frame | us / frame | share | DRAM MB / frame | GB/s | '
           'DRAM % of peak | SM % of peak | occupancy % |', '|---' * 9 + '|']
    for us, name, lpf, mb, gbs, dram, sm, occ in rows:
        short = name if len(name) <= 60 else name[:57] + '...'
        out.append('| `%s` | %.2f | %.1f | %.1f%% | %.1f | %.0f | %.1f | %.1f | %.1f |' % (
            short, lpf, us, 100 * us / total_us if total_us else 0, mb, gbs, dram, sm, occ))
    peak = sorted(peak_estimates)[len(peak_estimates) // 2] if peak_estimates else None
    return out, (total_us, total_mb * 1e6, peak)


def summary(model, size, frames, total_us, total_bytes, peak):
    s = ('%s at %s, %d frames profiled: GPU time %.0f us per frame (%.0f fps with the kernels '
         'one after another), DRAM %.1f MB per frame' % (
             model, size, frames, total_us, 1e6 / total_us if total_us else 0,
             total_bytes / 1e6))
    if peak:
        floor = total_bytes / peak / 1000      # bytes / (GB/s) = ns; / 1000 = us
        s += ('; at the device\'s peak (%.0f GB/s, from the kernels\' own DRAM %% of peak) '
              'those bytes take %.0f us (%.0f fps): the kernels take %.1fx the floor' % (
                  peak, floor, 1e6 / floor if floor else 0, total_us / floor if floor else 0))
    return s + '.'


def profile(a, model):
    api = os.path.join(a.build, 'bench', 'api_throughput')
    argv = [a.ncu, '--clock-control', 'none', '--csv', '--print-units', 'base',
            '--metrics', ','.join(METRICS), api, '--model', model, '--size', a.size,
            '--frames', str(a.frames), '--backend', 'cuda', '--frames-in-flight', '2']
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit('kernels.py: %s failed (exit %d): %s' % (
            ' '.join(argv), r.returncode, (r.stderr or r.stdout).strip()[-600:]))
    return r.stdout


def selftest():
    head = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
            '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
            '"Metric Value"')
    rows = [head]
    vals = {'k_a(int, float)': (2000, 3e6, 1e6, 60, 30, 70), 'k_b': (1000, 1e6, 0, 25, 80, 40)}
    i = 0
    for frame in range(2):
        for k, v in vals.items():
            for metric, x in zip(METRICS, v):
                rows.append('"%d","1","api","h","%s","1","7","(256, 1, 1)","(10, 1, 1)","0",'
                            '"9.0","s","%s","x","%s"' % (i, k, metric, '{:,}'.format(x)))
            i += 1
    per, launches = parse_ncu_csv('==PROF== noise\n' + '\n'.join(rows))
    ok = launches == {'k_a(int, float)': 2, 'k_b': 2}
    lines, (us, by, peak) = table(per, launches, 2)
    ok = ok and abs(us - 3.0) < 1e-9 and abs(by - 5e6) < 1e-3
    # k_a moves 4e6 bytes in 2000 ns (2000 GB/s) at 60% of peak: peak 3333 GB/s; k_b
    # (1000 GB/s at 25%) says 4000: the median of two is the second.
    ok = ok and peak is not None and abs(peak - 4000) < 1e-6
    ok = ok and lines[2].startswith('| `k_a(int, float)` | 1.00 | 2.0 | 66.7% | 4.0 | 2000 |')
    print('\n'.join(lines))
    print(summary('selftest', '4x4', 2, us, by, peak))
    print('selftest: %s' % ('all ok' if ok else 'FAILED'))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', help='the build folder (its bench/api_throughput)')
    ap.add_argument('--models', default=','.join(MODELS))
    ap.add_argument('--size', default='3840x2160')
    ap.add_argument('--frames', type=int, default=6)
    ap.add_argument('--ncu', default=shutil.which('ncu') or 'ncu')
    ap.add_argument('--record', help='append the tables to this file')
    ap.add_argument('--selftest', action='store_true')
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    if not a.build:
        ap.error('--build is needed')
    out = []
    for model in a.models.split(','):
        per, launches = parse_ncu_csv(profile(a, model))
        if not per:
            raise SystemExit('kernels.py: ncu reported no kernel of %s' % model)
        lines, (us, by, peak) = table(per, launches, a.frames)
        out += ['', summary(model, a.size, a.frames, us, by, peak), ''] + lines
    print('\n'.join(out))
    if a.record:
        with open(a.record, 'a') as f:
            f.write('\n'.join(out) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
