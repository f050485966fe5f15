#!/usr/bin/env python3
"""python3 -m exactvmaf.batch against single runs of the exactvmaf tool, bit for bit.

1. Six jobs (y4m and raw YUV, 8 and 10 bits, several models, a bootstrap
   collection, features with their options, --frame_cnt) on a LocalCluster
   of 2 workers; one long job is split into 4 shards, with motion's
   five-frame window and moving average and SpEED's temporal feature, which
   read across the seams. Each result file must equal the tool's own JSON
   for the pair, byte for byte but the fps line.
   Then jobs whose shards cannot rebuild the result (subsample, infinite
   values, apsnr: computed whole), a dashed hex frame-cnt column, and a
   frame count estimated too high: each equal to the tool's own run.
2. A worker killed mid-run (SIGKILL, on a cluster of 2 the test starts and
   hands over with --scheduler): the run completes, every result equal.
3. A run stopped by SIGTERM, then resumed: the jobs done before are not
   computed again (their files untouched), the rest are; a third run
   computes nothing; touching an input recomputes that job alone.
4. GPU workers (--gpus 0, --workers 0): each job computes on CUDA, or,
   on a machine without a GPU, fails naming it.
5. Bad jobs: a missing file fails its job alone (exit 1, no result file,
   the summary says why); an unknown option column fails before any work.

Skipped (77) without numpy or Dask distributed.

usage: batch_test.py --cli build/tools/exactvmaf --package python/
"""
import argparse, csv, json, os, signal, subprocess, sys, tempfile, time

import testlib
from testlib import record


def write_y4m(np, path, w, h, n, bpc, seed, noise, tagged=False):
    rng = np.random.default_rng(seed)
    top = (1 << bpc) - 1
    base = rng.integers(0, top + 1, size=(h + 2 * n, w + 2 * n))
    cw, ch = (w + 1) // 2, (h + 1) // 2
    dt = '<u2' if bpc > 8 else 'u1'
    with open(path, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420%s\n' % (
            w, h, b'p%d' % bpc if bpc > 8 else b'jpeg'))
        for i in range(n):
            y = base[i:i + h, 2 * i:2 * i + w].astype(np.float64)
            if noise:
                y = np.clip(y + rng.normal(0, top * 0.05, size=y.shape), 0, top)
            c = base[:ch, :cw]
            # Tags on every FRAME line but the first: a count estimated from
            # the first frame's size then overshoots.
            f.write(b'FRAME X%s\n' % (b'p' * 1000) if tagged and i else b'FRAME\n')
            for p in (y, c, c):
                f.write(p.astype(dt).tobytes())


def y4m_to_raw(src, dst):
    with open(src, 'rb') as f, open(dst, 'wb') as o:
        f.readline()
        data = f.read()
    frames = data.split(b'FRAME\n')[1:]
    with open(dst, 'wb') as o:
        for fr in frames:
            o.write(fr)


def strip(text):
    """The JSON text without fps and the batch's own member."""
    i = text.find(',\n  "exactvmaf_batch"')
    if i >= 0:
        text = text[:i] + '\n}\n'
    return [l for l in text.splitlines() if not l.startswith('  "fps"')]


def cli_run(cli, job, base):
    args = [cli, '-r', os.path.join(base, job['reference']),
            '-d', os.path.join(base, job['distorted']),
            '--json', '-o', '/dev/stdout', '--precision', 'max', '-q', '--backend', 'cpu',
            '--threads', '1']
    models = [m for m in job.get('model', '').split(';') if m]
    for m in models or ['vmaf_v0.6.1']:
        if '=' not in m:
            m = 'version=%s:name=%s' % (m, m if len(models) > 1 else 'vmaf')
        elif 'name=' not in m:
            m += ':name=vmaf'
        args += ['--model', m]
    for f in [f for f in job.get('feature', '').split(';') if f]:
        args += ['--feature', f]
    for k, v in job.items():
        # 'tool': the option columns as the tool spells them, for columns
        # written otherwise (frame-cnt=0x30 is --frame_cnt 48).
        if k in ('id', 'reference', 'distorted', 'model', 'feature', 'tool') or not v or \
                'tool' in job:
            continue
        args += ['--' + k, v]
    args += job.get('tool', [])
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr)
    return r.stdout


def write_jobs(path, jobs):
    cols = []
    for j in jobs:
        for k in j:
            if k not in cols and k != 'tool':
                cols.append(k)
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, cols, extrasaction='ignore')
        w.writeheader()
        w.writerows(jobs)


def batch(env, package, *args, **kw):
    return subprocess.run([sys.executable, '-m', 'exactvmaf.batch'] + list(args), env=env,
                          capture_output=True, text=True, **kw)


def check_results(name, cli, jobs, base, out):
    bad = []
    for j in jobs:
        path = os.path.join(out, j['id'] + '.json')
        if not os.path.exists(path):
            bad.append('%s: no result' % j['id'])
            continue
        if strip(open(path).read()) != strip(cli_run(cli, j, base)):
            bad.append('%s differs from the tool\'s run' % j['id'])
    record(name, not bad, '; '.join(bad))
    return not bad


def debian_python(imports):
    """PATH's python3 (pyenv, a venv) may lack what Debian's has: run this
    test again with /usr/bin/python3 when that one can do `imports`."""
    deb = '/usr/bin/python3'
    if os.path.realpath(sys.executable) != os.path.realpath(deb) and os.access(deb, os.X_OK) \
            and subprocess.run([deb, '-c', imports], capture_output=True).returncode == 0:
        print('%s lacks them: running with %s' % (sys.executable, deb), flush=True)
        os.execv(deb, [deb] + sys.argv)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', required=True)
    ap.add_argument('--package', required=True)
    a = ap.parse_args()
    try:
        import numpy as np
        import distributed
    except ImportError as e:
        debian_python('import numpy, distributed')
        print('SKIP: %s (Debian: apt-get install python3-numpy python3-distributed)' % e)
        return 77
    env = dict(os.environ, EXACTVMAF_CLI=os.path.abspath(a.cli),
               PYTHONPATH=os.path.abspath(a.package) + os.pathsep +
               os.environ.get('PYTHONPATH', ''))
    sys.path.insert(0, os.path.abspath(a.package))
    os.environ.update(env)

    with tempfile.TemporaryDirectory() as tmp:
        write_y4m(np, os.path.join(tmp, 'r8.y4m'), 96, 64, 12, 8, 1, False)
        write_y4m(np, os.path.join(tmp, 'd8.y4m'), 96, 64, 12, 8, 1, True)
        write_y4m(np, os.path.join(tmp, 'r10.y4m'), 64, 48, 10, 10, 2, False)
        write_y4m(np, os.path.join(tmp, 'd10.y4m'), 64, 48, 10, 10, 2, True)
        y4m_to_raw(os.path.join(tmp, 'r10.y4m'), os.path.join(tmp, 'r10.yuv'))
        y4m_to_raw(os.path.join(tmp, 'd10.y4m'), os.path.join(tmp, 'd10.yuv'))
        write_y4m(np, os.path.join(tmp, 'rl.y4m'), 96, 80, 70, 8, 3, False)
        write_y4m(np, os.path.join(tmp, 'dl.y4m'), 96, 80, 70, 8, 3, True)
        jobs = [
            {'id': 'plain', 'reference': 'r8.y4m', 'distorted': 'd8.y4m'},
            {'id': 'models', 'reference': 'r8.y4m', 'distorted': 'd8.y4m',
             'model': 'vmaf_v0.6.1;vmaf_float_v0.6.1', 'feature': 'psnr'},
            {'id': 'raw10', 'reference': 'r10.yuv', 'distorted': 'd10.yuv', 'width': '64',
             'height': '48', 'pixel_format': '420', 'bitdepth': '10'},
            {'id': 'long', 'reference': 'rl.y4m', 'distorted': 'dl.y4m',
             'feature': 'motion=motion_five_frame_window=true:motion_moving_average=true;'
                        'float_motion;speed_temporal'},
            {'id': 'cut', 'reference': 'r8.y4m', 'distorted': 'd8.y4m', 'frame_cnt': '7'},
            {'id': 'collection', 'reference': 'r10.y4m', 'distorted': 'd10.y4m',
             'model': 'version=vmaf_b_v0.6.3', 'feature': 'float_ssim'},
        ]
        jobs_csv = os.path.join(tmp, 'jobs.csv')
        write_jobs(jobs_csv, jobs)

        # 1. LocalCluster of 2, one job in 4 shards.
        out = out_cpu = os.path.join(tmp, 'out1')
        r = batch(env, a.package, jobs_csv, '--out', out, '--workers', '2', '--shard-frames',
                  '20', '--quiet', timeout=600)
        record('batch on a LocalCluster of 2 workers exits 0', r.returncode == 0, r.stderr[-800:])
        shards = json.load(open(os.path.join(out, 'long.json')))['exactvmaf_batch']['shards'] \
            if os.path.exists(os.path.join(out, 'long.json')) else None
        record('the long job ran as 4 shards', shards == 4, shards)
        check_results('6 results == single runs of the tool, bit for bit', a.cli, jobs, tmp, out)
        with open(os.path.join(out, 'summary.csv')) as f:
            summary = list(csv.DictReader(f))
        record('summary.csv lists every job, ok, with its pooled vmaf',
               [s['id'] for s in summary] == [j['id'] for j in jobs] and
               all(s['status'] == 'ok' for s in summary) and summary[0]['vmaf'] != '',
               summary[:1])

        # 1b. Jobs a shard cannot rebuild from per-frame values, and columns
        # as users write them: each equal to the tool's own run.
        write_y4m(np, os.path.join(tmp, 'tag.y4m'), 32, 32, 40, 8, 5, False, tagged=True)
        write_y4m(np, os.path.join(tmp, 'tagd.y4m'), 32, 32, 40, 8, 5, True, tagged=True)
        edge = [
            {'id': 'subsampled', 'reference': 'rl.y4m', 'distorted': 'dl.y4m', 'subsample': '3'},
            {'id': 'infinite', 'reference': 'rl.y4m', 'distorted': 'rl.y4m',
             'feature': 'float_ssim=enable_db=true'},
            {'id': 'apsnr', 'reference': 'rl.y4m', 'distorted': 'dl.y4m',
             'feature': 'psnr=enable_apsnr=1'},
            {'id': 'dashes_hex', 'reference': 'rl.y4m', 'distorted': 'dl.y4m',
             'frame-cnt': '0x30', 'tool': ['--frame_cnt', '48']},
            {'id': 'overshoot', 'reference': 'tag.y4m', 'distorted': 'tagd.y4m'},
        ]
        edge_csv = os.path.join(tmp, 'edge.csv')
        write_jobs(edge_csv, edge)
        out = os.path.join(tmp, 'oute')
        r = batch(env, a.package, edge_csv, '--out', out, '--workers', '2', '--shard-frames',
                  '10', '--quiet', timeout=600)
        record('subsample, infinities, apsnr, frame-cnt=0x30, an overshooting estimate: exit 0',
               r.returncode == 0, r.stderr[-800:])
        check_results('each == the tool\'s own run, bit for bit', a.cli, edge, tmp, out)
        shards = {j['id']: json.load(open(os.path.join(out, j['id'] + '.json')))
                  ['exactvmaf_batch']['shards'] for j in edge
                  if os.path.exists(os.path.join(out, j['id'] + '.json'))}
        # 40 tagged frames are estimated at 65: 7 shards of 10, the last ones
        # past the end.
        record('infinities and apsnr computed whole, the others in shards, past the end too',
               shards.get('infinite') == 1 and shards.get('apsnr') == 1 and
               shards.get('dashes_hex', 0) > 1 and shards.get('overshoot', 0) > 4, shards)

        # 2. A worker killed mid-run.
        long_jobs = [dict(j, id=j['id'] + '_k', reference='rl.y4m', distorted='dl.y4m')
                     for j in jobs if j['id'] in ('plain', 'models', 'long', 'cut')]
        kill_csv = os.path.join(tmp, 'kill.csv')
        write_jobs(kill_csv, long_jobs)
        out = os.path.join(tmp, 'out2')
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40)
        client = distributed.Client(cluster)
        try:
            p = subprocess.Popen([sys.executable, '-m', 'exactvmaf.batch', kill_csv, '--out', out,
                                  '--scheduler', cluster.scheduler_address, '--shard-frames',
                                  '10', '--quiet'], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            killed = None
            deadline = time.time() + 120
            while killed is None and p.poll() is None and time.time() < deadline:
                busy = [w for w, keys in client.processing().items() if keys]
                if busy:
                    pids = client.run(os.getpid, workers=busy[:1])
                    os.kill(list(pids.values())[0], signal.SIGKILL)
                    killed = busy[0]
                else:
                    time.sleep(0.02)
            stdout, stderr = p.communicate(timeout=600)
            record('a worker killed while computing a shard', killed is not None)
            record('the run completes (exit 0)', p.returncode == 0, stderr[-800:])
            check_results('every result == single runs, after the kill', a.cli, long_jobs, tmp,
                          out)
        finally:
            client.close()
            cluster.close()

        # 3. Stopped, resumed, resumed again, one input touched. The long
        # pairs, in shards of 5 frames on one worker, keep the run going well
        # past the second result.
        jobs = [dict(j, reference='rl.y4m', distorted='dl.y4m') for j in jobs
                if j['id'] not in ('raw10', 'collection')] + \
               [j for j in jobs if j['id'] in ('raw10', 'collection')]
        jobs_csv = os.path.join(tmp, 'jobs3.csv')
        write_jobs(jobs_csv, jobs)
        out = os.path.join(tmp, 'out3')
        os.makedirs(out)
        p = subprocess.Popen([sys.executable, '-m', 'exactvmaf.batch', jobs_csv, '--out', out,
                              '--workers', '1', '--shard-frames', '5', '--quiet'], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 300
        while (p.poll() is None and time.time() < deadline and
               len([n for n in os.listdir(out) if n.endswith('.json')]) < 2):
            time.sleep(0.02)
        p.send_signal(signal.SIGTERM)
        _, stderr = p.communicate(timeout=120)
        done = {n[:-5]: os.stat(os.path.join(out, n)).st_mtime_ns for n in os.listdir(out)
                if n.endswith('.json')}
        record('SIGTERM stops the run (exit 130) with %d of 6 done' % len(done),
               p.returncode == 130 and 2 <= len(done) < 6, 'exit %s, %d done: %s' % (
                   p.returncode, len(done), stderr[-300:]))
        r = batch(env, a.package, jobs_csv, '--out', out, '--workers', '2', '--shard-frames',
                  '5', timeout=600)
        again = {n: os.stat(os.path.join(out, n + '.json')).st_mtime_ns for n in done}
        record('resumed: the %d done are skipped, untouched' % len(done),
               r.returncode == 0 and again == done and
               ('%d of 6 jobs already done' % len(done)) in r.stderr, r.stderr[-500:])
        check_results('resumed: all 6 results == single runs', a.cli, jobs, tmp, out)
        mtimes = {j['id']: os.stat(os.path.join(out, j['id'] + '.json')).st_mtime_ns
                  for j in jobs}
        t = time.time()
        r = batch(env, a.package, jobs_csv, '--out', out, '--workers', '2', timeout=600)
        same = all(os.stat(os.path.join(out, k + '.json')).st_mtime_ns == v
                   for k, v in mtimes.items())
        record('a third run computes nothing (%.1f s)' % (time.time() - t),
               r.returncode == 0 and same and '6 of 6 jobs already done' in r.stderr,
               r.stderr[-300:])
        os.utime(os.path.join(tmp, 'r10.yuv'))
        r = batch(env, a.package, jobs_csv, '--out', out, '--workers', '2', timeout=600)
        changed = sorted(k for k, v in mtimes.items()
                         if os.stat(os.path.join(out, k + '.json')).st_mtime_ns != v)
        record('an input touched: only its job is computed again', r.returncode == 0 and
               changed == ['raw10'], changed)

        # GPU workers beside CPU ones: here, with no GPU, a GPU worker's jobs
        # fail saying why (the worker computes with --backend cuda --gpu N).
        out = os.path.join(tmp, 'outg')
        r = batch(env, a.package, jobs_csv, '--out', out, '--workers', '0', '--gpus', '0',
                  '--quiet', timeout=600)
        gpu_here = r.returncode == 0
        summary = list(csv.DictReader(open(os.path.join(out, 'summary.csv'))))
        if gpu_here:
            def nob(t):
                # What differs between a GPU worker's run and a CPU one's: the
                # "backends" line and the "devices" block.
                out, skip = [], False
                for l in strip(t):
                    if l.startswith('  "devices": {') and not l.endswith('},'):
                        skip = True
                    elif skip:
                        skip = l != '  },'
                    elif not l.startswith(('  "backends"', '  "devices"')):
                        out.append(l)
                return out
            same = [j['id'] for j in jobs
                    if nob(open(os.path.join(out, j['id'] + '.json')).read()) ==
                    nob(open(os.path.join(out_cpu, j['id'] + '.json')).read())]
            record('--gpus 0: results on the GPU worker == the CPU workers\'',
                   len(same) == len(jobs), 'identical: %s' % same)
        else:
            testlib.missing_device('no GPU: --gpus 0 is checked as on a machine without one')
            record('--gpus 0 without a GPU: every job fails naming CUDA (exit 1)',
                   r.returncode == 1 and all(s['status'] == 'error' and
                                             'cuda' in s['error'].lower() for s in summary),
                   r.stderr[-300:])

        # 4. Bad jobs.
        bad_csv = os.path.join(tmp, 'bad.csv')
        write_jobs(bad_csv, [jobs[0], {'id': 'missing', 'reference': 'none.y4m',
                                       'distorted': 'd8.y4m'}])
        out = os.path.join(tmp, 'out4')
        r = batch(env, a.package, bad_csv, '--out', out, '--workers', '1', '--quiet',
                  timeout=600)
        summary = {s['id']: s for s in csv.DictReader(open(os.path.join(out, 'summary.csv')))}
        record('a missing file fails its job alone (exit 1, no result, summary says why)',
               r.returncode == 1 and os.path.exists(os.path.join(out, 'plain.json')) and
               not os.path.exists(os.path.join(out, 'missing.json')) and
               summary['missing']['status'] == 'error' and
               'none.y4m' in summary['missing']['error'], r.stderr[-300:])
        # A spreadsheet's CSV: a byte order mark, an empty row, a blank line.
        bom_csv = os.path.join(tmp, 'bom.csv')
        with open(bom_csv, 'w', encoding='utf-8-sig', newline='') as f:
            f.write('id,reference,distorted\r\nbom,r8.y4m,d8.y4m\r\n,,\r\n\r\n')
        r = batch(env, a.package, bom_csv, '--out', os.path.join(tmp, 'outb'), '--workers', '1',
                  '--quiet', timeout=300)
        record('a CSV with a byte order mark and empty rows runs its one job',
               r.returncode == 0 and os.path.exists(os.path.join(tmp, 'outb', 'bom.json')),
               r.stderr[-300:])
        with open(bad_csv, 'w') as f:
            f.write('id,reference,distorted\nx,r8.y4m,d8.y4m,extra\n')
        r = batch(env, a.package, bad_csv, '--out', os.path.join(tmp, 'outx'), timeout=120)
        record('a row with more cells than columns fails before any work (exit 2)',
               r.returncode == 2 and 'more cells' in r.stderr and 'line 2' in r.stderr,
               r.stderr[-300:])
        for col, needle in (('report', 'not for batches'), ('threads', 'set by exactvmaf')):
            write_jobs(bad_csv, [dict(jobs[0], **{col: 'x.html' if col == 'report' else '2'})])
            r = batch(env, a.package, bad_csv, '--out', os.path.join(tmp, 'outx'), timeout=120)
            record('a %s column is refused before any work (exit 2)' % col,
                   r.returncode == 2 and needle in r.stderr, r.stderr[-300:])
        r = batch(env, a.package, jobs_csv, '--out', os.path.join(tmp, 'outx'), '--workers', '0',
                  timeout=120)
        record('--workers 0 with no GPU or scheduler is refused (exit 2)',
               r.returncode == 2 and 'no workers' in r.stderr, r.stderr[-300:])
        write_jobs(bad_csv, [dict(jobs[0], no_such_option='1')])
        r = batch(env, a.package, bad_csv, '--out', os.path.join(tmp, 'out5'), timeout=120)
        record('an unknown option column fails before any work (exit 2)',
               r.returncode == 2 and 'no_such_option' in r.stderr and
               not os.path.exists(os.path.join(tmp, 'out5')), r.stderr[-300:])

    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
