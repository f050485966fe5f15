#!/usr/bin/env python3
"""exactvmaf compare on Dask against the single-process compare, bit for bit.

Two ladders of small encodes (made by ffmpeg: skipped, 77, without it) of
one 8-frame source:
1. `compare --plan`: each encode's ladder, bitrate (as a 64-bit pattern)
   and bitrate source are those the scoring compare uses, and it scores
   nothing; --plan with --report is refused.
2. exactvmaf.compare(client=) on a LocalCluster of 2 workers: its JSON
   equals the single-process compare's (every number as a 64-bit pattern,
   every string), its CSV byte for byte, its page but for the date and the
   command line; again with the encodes cut into shards of 3 frames
   (merged by the batch runner), and the scores CSV it keeps, read by
   `compare --scores`, gives the same JSON again.
3. A failing encode: a missing file fails at the plan, a damaged one on
   its worker; each raises exactvmaf.Error naming the file, and no output
   file (page, CSV, scores) is written. `compare --scores` without a row
   for an encode exits 2 naming it.

Skipped (77) without Dask distributed or ffmpeg.

usage: compare_dask_test.py --cli build/tools/exactvmaf --package python/
"""
import argparse, json, logging, os, re, shutil, struct, subprocess, sys, tempfile

import testlib
from testlib import record


def same(a, b, where='$'):
    """'' when a and b are equal, numbers as 64-bit patterns; else where they differ."""
    if isinstance(a, float) or isinstance(b, float):
        ok = isinstance(a, float) and isinstance(b, float) and \
            struct.pack('<d', a) == struct.pack('<d', b)
        return '' if ok else '%s: %r vs %r' % (where, a, b)
    if type(a) is not type(b):
        return '%s: %r vs %r' % (where, a, b)
    if isinstance(a, dict):
        if list(a) != list(b):
            return '%s: keys %s vs %s' % (where, list(a), list(b))
        for k in a:
            d = same(a[k], b[k], '%s.%s' % (where, k))
            if d:
                return d
        return ''
    if isinstance(a, list):
        if len(a) != len(b):
            return '%s: %d vs %d items' % (where, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, '%s[%d]' % (where, i))
            if d:
                return d
        return ''
    return '' if a == b else '%s: %r vs %r' % (where, a, b)


def page_body(path):
    # The date and the command line are the run's own.
    text = open(path).read()
    return re.sub(r'<tr><th>(date|command)</th>.*?</tr>', '', text)


def make_encodes(ffmpeg, tmp):
    ref = os.path.join(tmp, 'ref.y4m')
    subprocess.run([ffmpeg, '-loglevel', 'error', '-f', 'lavfi', '-i',
                    'testsrc2=size=96x64:rate=25', '-frames:v', '8', '-pix_fmt', 'yuv420p', ref],
                   check=True)
    encs = []
    for folder, codec in (('mp4v', 'mpeg4'), ('mpg2', 'mpeg2video')):
        os.makedirs(os.path.join(tmp, folder))
        for q in ('3', '10', '24'):
            out = os.path.join(tmp, folder, '%s_q%s.mkv' % (folder, q))
            subprocess.run([ffmpeg, '-loglevel', 'error', '-i', ref, '-c:v', codec, '-q:v', q,
                            out], check=True)
            encs.append(out)
    return ref, encs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', required=True)
    ap.add_argument('--package', required=True)
    a = ap.parse_args()
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        if sys.executable != '/usr/bin/python3' and os.path.exists('/usr/bin/python3'):
            os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv)
        print('SKIP: Dask distributed is not installed (Debian: python3-distributed)')
        return 77
    ffmpeg = shutil.which('ffmpeg')
    if not ffmpeg:
        print('SKIP: ffmpeg makes the encodes and is not installed (Debian: ffmpeg)')
        return 77
    sys.path.insert(0, a.package)
    os.environ['EXACTVMAF_CLI'] = a.cli
    import exactvmaf
    exe = a.cli

    with tempfile.TemporaryDirectory() as tmp:
        ref, encs = make_encodes(ffmpeg, tmp)
        p = lambda name: os.path.join(tmp, name)
        r = subprocess.run([exe, 'compare', ref] + encs + ['--json', p('s.json'), '--csv',
                            p('s.csv'), '--report', p('s.html'), '-q', '--threads', '1'],
                           capture_output=True, text=True)
        record('single-process compare (exit 0)', r.returncode == 0, r.stderr[-400:])
        if r.returncode:
            return 1
        single = json.load(open(p('s.json')))

        # 1. The plan.
        r = subprocess.run([exe, 'compare', '--plan', ref] + encs + ['--json', p('plan.json')],
                           capture_output=True, text=True)
        plan = json.load(open(p('plan.json'))) if r.returncode == 0 else {'encodes': []}
        want = [{k: e[k] for k in ('file', 'ladder', 'bitrate_kbps', 'bitrate_source')}
                for e in single['encodes']]
        record('--plan: each encode\'s ladder and bitrate as compare has them',
               not same(plan['encodes'], want) and plan['metric'] == single['metric'] and
               plan['grouping'] == single['grouping'] and
               plan['ladders'] == [l['name'] for l in single['ladders']],
               r.stderr[-300:] or same(plan['encodes'], want))
        record('--plan scores nothing', '[1/' not in r.stderr and 'frames)' not in r.stdout,
               r.stdout[-300:] + r.stderr[-300:])
        r = subprocess.run([exe, 'compare', '--plan', ref, encs[0], '--report', p('x.html')],
                           capture_output=True, text=True)
        record('--plan --report is refused (exit 1)', r.returncode == 1 and
               not os.path.exists(p('x.html')), r.stderr[-300:])
        py_plan = exactvmaf.compare_plan(ref, encs)
        record('exactvmaf.compare_plan(): the tool\'s plan', py_plan == plan, str(py_plan)[:300])

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        try:
            # 2. Scored on Dask, whole and in shards.
            c = exactvmaf.compare(ref, encs, client=client, threads=1, report=p('d.html'),
                                  csv=p('d.csv'), scores=p('scores.csv'))
            record('on Dask: the JSON equals the single-process compare\'s',
                   not same(c.json, single), same(c.json, single))
            record('on Dask: the CSV equals it byte for byte',
                   open(p('d.csv'), 'rb').read() == open(p('s.csv'), 'rb').read())
            record('on Dask: the page equals it but for the date and command',
                   page_body(p('d.html')) == page_body(p('s.html')))
            r = subprocess.run([exe, 'compare', '--scores', p('scores.csv'), ref] + encs +
                               ['--json', p('again.json'), '-q'], capture_output=True, text=True)
            again = json.load(open(p('again.json'))) if r.returncode == 0 else None
            record('its scores CSV read by compare --scores: the same JSON',
                   again is not None and not same(again, single),
                   r.stderr[-300:] or same(again, single))
            c = exactvmaf.compare(ref, encs, client=client, threads=1, shard_frames=3)
            record('on Dask in shards of 3 frames: the same JSON',
                   not same(c.json, single), same(c.json, single))

            # 3. Failing encodes.
            for what, bad in (('missing', p('mpg2/gone.mkv')), ('damaged', p('mpg2/bad.mkv'))):
                if what == 'damaged':
                    with open(bad, 'wb') as f:
                        f.write(b'\x1aE\xdf\xa3' + os.urandom(3000))
                outs = [p(n) for n in ('f.html', 'f.csv', 'f_scores.csv')]
                try:
                    exactvmaf.compare(ref, encs + [bad], client=client, report=outs[0],
                                      csv=outs[1], scores=outs[2])
                    record('a %s encode raises Error' % what, False, 'no error')
                except exactvmaf.Error as e:
                    left = [o for o in outs if os.path.exists(o)]
                    left += [n for n in os.listdir(tmp) if '.tmp' in n]
                    record('a %s encode raises Error naming it, writes nothing' % what,
                           os.path.basename(bad) in str(e) and not left,
                           '%s; left: %s' % (e, left))
        finally:
            client.close()
            cluster.close()

        with open(p('short.csv'), 'w') as f:
            f.write(open(p('scores.csv')).read().rsplit('\n', 2)[0] + '\n')
        r = subprocess.run([exe, 'compare', '--scores', p('short.csv'), ref] + encs +
                           ['--json', p('short.json'), '-q'], capture_output=True, text=True)
        record('--scores without a row for an encode: exit 2 naming it',
               r.returncode == 2 and encs[-1] in r.stderr and
               not os.path.exists(p('short.json')), r.stderr[-300:])

    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
