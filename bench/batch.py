#!/usr/bin/env python3
"""A catalogue of short pairs: python3 -m exactvmaf.batch against the tool run pair after pair.

Makes --distinct short y4m pairs with `ffmpeg` (lavfi sources; the
distorted one blurred and noised), lists them --jobs times in all as a
jobs CSV, and times, in the same run on the same files:
  - the tool run pair after pair, as a shell loop would, with --threads N
    (for each N of --threads);
  - the batch runner on a LocalCluster of --workers processes, one thread
    each (cluster start-up included).
Every batch result's pooled VMAF must equal the tool's for the same pair
(checked as 64-bit patterns); a difference fails the benchmark.

usage: bench/batch.py --cli build/tools/exactvmaf [--jobs 48] [--distinct 8]
                      [--size 640x360] [--frames 30] [--workers N] [--threads 1,2]
                      [--record bench/results.md]
"""
import argparse, csv, datetime, json, os, struct, subprocess, sys, tempfile, time

from machine import cpu_name

SOURCES = ['testsrc2', 'mandelbrot', 'smptehdbars', 'rgbtestsrc', 'cellauto', 'life',
           'testsrc', 'yuvtestsrc']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', required=True)
    ap.add_argument('--jobs', type=int, default=48)
    ap.add_argument('--distinct', type=int, default=8)
    ap.add_argument('--size', default='640x360')
    ap.add_argument('--frames', type=int, default=30)
    ap.add_argument('--workers', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--threads', default='1,%d' % (os.cpu_count() or 1))
    ap.add_argument('--record')
    a = ap.parse_args()
    cli = os.path.abspath(a.cli)
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, EXACTVMAF_CLI=cli,
               PYTHONPATH=os.path.join(os.path.dirname(here), 'python'))
    lines = []

    def say(s=''):
        print(s, flush=True)
        lines.append(s)

    with tempfile.TemporaryDirectory() as tmp:
        pairs = []
        for i in range(a.distinct):
            src = SOURCES[i % len(SOURCES)]
            ref, dis = os.path.join(tmp, 'r%d.y4m' % i), os.path.join(tmp, 'd%d.y4m' % i)
            make = ['ffmpeg', '-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i',
                    '%s=size=%s:rate=25' % (src, a.size), '-frames:v', str(a.frames),
                    '-pix_fmt', 'yuv420p']
            subprocess.run(make + [ref], check=True)
            subprocess.run(make + ['-vf', 'gblur=sigma=1.5,noise=alls=8:allf=t', dis],
                           check=True)
            pairs.append((ref, dis))
        jobs = [('j%03d' % k,) + pairs[k % len(pairs)] for k in range(a.jobs)]
        jobs_csv = os.path.join(tmp, 'jobs.csv')
        with open(jobs_csv, 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['id', 'reference', 'distorted'])
            w.writerows(jobs)
        frames = a.jobs * a.frames

        say('## Catalogue batch: %s, %d cores, %s' % (
            datetime.datetime.now().strftime('%Y-%m-%d %H:%M'), os.cpu_count() or 1, cpu_name()))
        say()
        say('%d jobs (%d distinct %s y4m pairs, %d frames each), vmaf_v0.6.1, wall clock, '
            'files in the page cache:' % (a.jobs, a.distinct, a.size, a.frames))
        say()
        say('| how | wall s | pairs/s | frames/s | vs best loop |')
        say('|---|---|---|---|---|')
        loop_scores, rows, best = {}, [], None
        for n in [int(x) for x in a.threads.split(',')]:
            t = time.perf_counter()
            for jid, ref, dis in jobs:
                r = subprocess.run([cli, '-r', ref, '-d', dis, '--threads', str(n), '--backend',
                                    'cpu', '--json', '-o', '/dev/stdout', '--precision', 'max',
                                    '-q'], capture_output=True, text=True, check=True)
                loop_scores[jid] = json.loads(r.stdout)['pooled_metrics']['vmaf']['mean']
            t = time.perf_counter() - t
            rows.append(('the tool pair after pair, --threads %d' % n, t))
            best = t if best is None else min(best, t)
        out = os.path.join(tmp, 'out')
        t = time.perf_counter()
        r = subprocess.run([sys.executable, '-m', 'exactvmaf.batch', jobs_csv, '--out', out,
                            '--workers', str(a.workers), '--threads', '1', '--quiet'], env=env,
                           capture_output=True, text=True)
        t = time.perf_counter() - t
        if r.returncode:
            print(r.stderr, file=sys.stderr)
            return 1
        rows.append(('exactvmaf.batch, LocalCluster of %d workers x 1 thread' % a.workers, t))
        for how, t in rows:
            say('| %s | %.2f | %.2f | %.1f | %.2fx |' % (how, t, a.jobs / t, frames / t,
                                                        best / t))
        same = 0
        for jid, _, _ in jobs:
            with open(os.path.join(out, jid + '.json')) as f:
                v = json.load(f)['pooled_metrics']['vmaf']['mean']
            same += struct.pack('<d', v) == struct.pack('<d', loop_scores[jid])
        say()
        say('Pooled VMAF of the batch equal to the loop\'s, as 64-bit patterns: %d/%d.'
            % (same, a.jobs))
    if a.record:
        with open(a.record, 'a') as f:
            f.write('\n' + '\n'.join(lines) + '\n')
    return 0 if same == a.jobs else 1


if __name__ == '__main__':
    sys.exit(main())
