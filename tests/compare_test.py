#!/usr/bin/env python3
"""exactvmaf compare: the Bjøntegaard arithmetic and the command end to end.

BD arithmetic (through --points, which feeds given points to the same code
as scored encodes):
- A published worked example: the two JCT-VC cases of Netflix vmaf's
  python/test/bd_rate_calculator_test.py (BDrateCalculatorJCTVCTest: four
  rate/PSNR points per curve, BD-rate -0.00465215420752807 and
  -0.018779823450567612, which Netflix checks to 4 places and validates
  against the JCT-VC BD-rate sheet, JCTVC-E137/L1100); ours must agree to
  those 4 places (Netflix samples the curves at 100 points and integrates by
  trapezoids, we integrate the cubic pieces exactly as the sheet does).
- Hand-computed cases: identical ladders give exactly 0 (both integrals come
  from one function over one interval); a ladder at exactly half the bitrate
  for the same scores gives -50%: halving is exact in binary, so each
  log10(r/2) is log10(r) - log10(2) up to log10's rounding (<= 1 ulp, about
  4e-16 here), the integrals differ by log10(2) * (hi - lo) up to that, and
  10^-log10(2) - 1 = -0.5: the value is within 1e-12 of -50 and prints as
  -50.0000%; two-point (linear) ladders 60->80 and 70->90 VMAF over 1000 to
  10000 kbit/s give BD-rate (10^-0.5 - 1) * 100 and BD-VMAF +10; the same
  bitrates with VMAF + 5 give BD-VMAF +5.0000; non-monotonic and disjoint
  ladders give null with a reason.
End to end (needs ffmpeg to make the encodes: skipped, exit 77, without
it): two ladders of small encodes; the JSON's VMAF equals a plain run's
pooled mean bit for bit, its bitrate is the container's (ffprobe); the CSV
holds the same rows and read back by --points gives the same deltas bit for
bit, and by --scores gives the same JSON byte for byte; --plan gives each
encode's ladder and bitrate without scoring; grouping by folder and by
--group-by; the HTML page has every point, and opens in headless Chromium
without console messages (skipped without chromium); options that do not
apply are refused; Python's exactvmaf.compare() returns the CLI's JSON
(with --package).

usage: compare_test.py --exe build/tools/exactvmaf [--package python]
"""
import argparse, json, math, os, re, shutil, struct, subprocess, sys, tempfile

import testlib
from testlib import record

skipped = []


def bits(x):
    return struct.pack('<d', x)


def points(exe, tmp, rows, extra=()):
    path = os.path.join(tmp, 'points.csv')
    with open(path, 'w') as f:
        f.write('ladder,bitrate_kbps,vmaf\n')
        for ladder, rate, q in rows:
            f.write('%s,%r,%r\n' % (ladder, rate, q))
    out = os.path.join(tmp, 'points.json')
    r = subprocess.run([exe, 'compare', '--points', path, '--json', out] + list(extra),
                       capture_output=True, text=True)
    doc = json.load(open(out)) if r.returncode == 0 else None
    return r, doc


def ladder(doc, name):
    return next(l for l in doc['ladders'] if l['name'] == name)


def arithmetic(exe, tmp):
    # The published JCT-VC cases (rate, PSNR).
    cases = [
        ([(108048.8736, 43.6471), (61279.976, 40.3953), (33905.6656, 37.247), (18883.6928, 34.2911)],
         [(108061.2784, 43.6768), (61299.9936, 40.4232), (33928.7472, 37.2761), (18910.912, 34.3147)],
         -0.00465215420752807),
        ([(40433.8848, 37.5761), (7622.7456, 35.3756), (2394.488, 33.8977), (1017.6184, 32.0603)],
         [(40370.12, 37.5982), (7587.0024, 35.4025), (2390.0944, 33.9194), (1017.0984, 32.0822)],
         -0.018779823450567612),
    ]
    for k, (a, b, want) in enumerate(cases):
        r, doc = points(exe, tmp, [('anchor', x, y) for x, y in a] + [('test', x, y) for x, y in b])
        got = ladder(doc, 'test')['bd_rate_percent'] / 100 if doc else float('nan')
        record('JCT-VC worked example %d: BD-rate %.6f%% (published %.6f%%)' % (k + 1, got * 100, want * 100),
               round(got - want, 4) == 0, r.stderr[-300:])

    base = [(500.0, 60.0), (1000.0, 75.0), (2000.0, 85.0), (4000.0, 92.0), (8000.0, 96.0)]
    r, doc = points(exe, tmp, [('a', x, y) for x, y in base] + [('b', x, y) for x, y in base])
    b = ladder(doc, 'b') if doc else {}
    record('identical ladders: BD-rate and BD-VMAF exactly 0',
           doc and bits(b['bd_rate_percent']) == bits(0.0) and bits(b['bd_vmaf']) == bits(0.0),
           str(b))

    r, doc = points(exe, tmp, [('a', x, y) for x, y in base] + [('half', x / 2, y) for x, y in base])
    h = ladder(doc, 'half')['bd_rate_percent'] if doc else float('nan')
    printed = re.search(r'half .*BD-rate (\S+)%', r.stdout)
    record('half the bitrate: BD-rate %.17g%%, printed %s' % (h, printed and printed.group(1)),
           abs(h + 50) < 1e-12 and printed and printed.group(1) == '-50.0000', r.stdout[-300:])

    r, doc = points(exe, tmp, [('a', 1000.0, 60.0), ('a', 10000.0, 80.0),
                               ('b', 1000.0, 70.0), ('b', 10000.0, 90.0)])
    b = ladder(doc, 'b') if doc else {}
    want = (10 ** -0.5 - 1) * 100
    record('two-point ladders: BD-rate %.12f%% (hand: %.12f%%)' % (b.get('bd_rate_percent', 0), want),
           doc and abs(b['bd_rate_percent'] - want) < 1e-9, str(b))
    record('two-point ladders: BD-VMAF %.12f (hand: 10)' % b.get('bd_vmaf', 0),
           doc and abs(b['bd_vmaf'] - 10) < 1e-12, str(b))

    r, doc = points(exe, tmp, [('a', x, y) for x, y in base] + [('plus5', x, y + 5) for x, y in base])
    printed = re.search(r'plus5 .*BD-VMAF (\S+)', r.stdout)
    p5 = ladder(doc, 'plus5')['bd_vmaf'] if doc else float('nan')
    record('same bitrates, VMAF + 5: BD-VMAF %.17g, printed %s' % (p5, printed and printed.group(1)),
           abs(p5 - 5) < 1e-12 and printed and printed.group(1) == '+5.0000', r.stdout[-300:])

    r, doc = points(exe, tmp, [('a', x, y) for x, y in base] +
                    [('wavy', 500.0, 70.0), ('wavy', 1000.0, 65.0), ('wavy', 2000.0, 90.0)] +
                    [('far', 1e6, 10.0), ('far', 2e6, 20.0)])
    w, far = (ladder(doc, 'wavy'), ladder(doc, 'far')) if doc else ({}, {})
    record('non-monotonic and disjoint ladders: null deltas with a reason',
           doc and w['bd_rate_percent'] is None and 'rise' in w.get('bd_error', '') and
           far['bd_rate_percent'] is None and 'overlap' in far.get('bd_error', ''),
           '%s %s' % (w, far))


def make_encodes(tmp, ffmpeg):
    ref = os.path.join(tmp, 'ref.y4m')
    subprocess.run([ffmpeg, '-loglevel', 'error', '-f', 'lavfi', '-i',
                    'testsrc2=size=176x144:rate=25', '-frames:v', '8', '-pix_fmt', 'yuv420p', ref],
                   check=True)
    encs = []
    for folder, codec, qs in (('mp4v', ['-c:v', 'mpeg4', '-q:v'], ('2', '6', '12', '24')),
                              ('mpg2', ['-c:v', 'mpeg2video', '-q:v'], ('2', '6', '12', '24'))):
        os.makedirs(os.path.join(tmp, folder), exist_ok=True)
        for q in qs:
            out = os.path.join(tmp, folder, '%s_q%s.mkv' % (folder, q))
            subprocess.run([ffmpeg, '-loglevel', 'error', '-i', ref] + codec + [q, out], check=True)
            encs.append(out)
    return ref, encs


def end_to_end(exe, tmp, ffmpeg, chromium, package):
    ref, encs = make_encodes(tmp, ffmpeg)
    js, csv_path, html = (os.path.join(tmp, n) for n in ('c.json', 'c.csv', 'c.html'))
    r = subprocess.run([exe, 'compare', ref] + encs + ['--json', js, '--csv', csv_path,
                        '--report', html, '--threads', '2', '-q'], capture_output=True, text=True)
    record('compare runs (exit 0)', r.returncode == 0, r.stderr[-400:])
    if r.returncode:
        return
    doc = json.load(open(js))
    record('JSON: 8 encodes, ladders by folder (mp4v anchor, mpg2)',
           len(doc['encodes']) == 8 and [l['name'] for l in doc['ladders']] ==
           [os.path.join(tmp, 'mp4v'), os.path.join(tmp, 'mpg2')] and doc['ladders'][0]['anchor']
           and doc['grouping'] == 'folder', str(doc['ladders'])[:300])
    keys = {'file', 'ladder', 'bitrate_kbps', 'bitrate_source', 'vmaf', 'vmaf_harmonic_mean', 'frames'}
    record('JSON: every encode has %s' % ', '.join(sorted(keys)),
           all(set(e) == keys and e['frames'] == 8 for e in doc['encodes']), str(doc['encodes'][0]))
    bad = []
    for e in doc['encodes'][:: 3]:
        out = os.path.join(tmp, 'one.json')
        subprocess.run([exe, '-r', ref, '-d', e['file'], '--json', '-o', out, '--precision', 'max',
                        '-q', '--threads', '2'], check=True, capture_output=True)
        one = json.load(open(out))['pooled_metrics']['vmaf']
        if bits(one['mean']) != bits(e['vmaf']) or bits(one['harmonic_mean']) != bits(e['vmaf_harmonic_mean']):
            bad.append('%s: %r vs %r' % (e['file'], e['vmaf'], one['mean']))
    record('JSON: VMAF equals a plain run\'s pooled mean bit for bit', not bad, '; '.join(bad))
    ffprobe = shutil.which('ffprobe')
    if ffprobe:
        bad = []
        for e in doc['encodes']:
            p = subprocess.run([ffprobe, '-v', 'error', '-show_entries', 'format=bit_rate', '-of',
                                'default=nw=1:nk=1', e['file']], capture_output=True, text=True)
            if e['bitrate_source'] != 'container' or float(p.stdout) / 1000 != e['bitrate_kbps']:
                bad.append('%s: %s %r vs ffprobe %s' % (e['file'], e['bitrate_source'],
                                                        e['bitrate_kbps'], p.stdout.strip()))
        record('JSON: bitrate is the container\'s (ffprobe format bit_rate)', not bad, '; '.join(bad))
    l2 = doc['ladders'][1]
    record('JSON: BD-rate %.4f%%, BD-VMAF %.4f for mpg2 against mp4v' % (
        l2['bd_rate_percent'] or 0, l2['bd_vmaf'] or 0),
        isinstance(l2['bd_rate_percent'], float) and isinstance(l2['bd_vmaf'], float), str(l2))
    record('JSON: common bitrates with a VMAF per ladder',
           doc['common_bitrates'] and all(len(c['vmaf']) == 2 for c in doc['common_bitrates']),
           str(doc['common_bitrates'])[:200])

    import csv
    rows = list(csv.DictReader(open(csv_path)))
    by_file = {e['file']: e for e in doc['encodes']}
    record('CSV: one row per encode, the JSON\'s values',
           len(rows) == 8 and all(bits(float(r['vmaf'])) == bits(by_file[r['file']]['vmaf']) and
                                  bits(float(r['bitrate_kbps'])) == bits(by_file[r['file']]['bitrate_kbps'])
                                  and r['ladder'] == by_file[r['file']]['ladder'] for r in rows),
           str(rows[:1]))
    again = os.path.join(tmp, 'again.json')
    r = subprocess.run([exe, 'compare', '--points', csv_path, '--json', again], capture_output=True,
                       text=True)
    d2 = json.load(open(again)) if r.returncode == 0 else {'ladders': []}
    record('CSV read back by --points: the same deltas bit for bit',
           [(l['name'], l['bd_rate_percent'], l['bd_vmaf']) for l in d2['ladders']] ==
           [(l['name'], l['bd_rate_percent'], l['bd_vmaf']) for l in doc['ladders']], r.stderr[-300:])

    r = subprocess.run([exe, 'compare', '--scores', csv_path, ref] + encs + ['--json', again],
                       capture_output=True, text=True)
    record('CSV read back by --scores: the same JSON byte for byte',
           r.returncode == 0 and open(again, 'rb').read() == open(js, 'rb').read(),
           r.stderr[-300:])
    plan = os.path.join(tmp, 'plan.json')
    r = subprocess.run([exe, 'compare', '--plan', ref] + encs + ['--json', plan],
                       capture_output=True, text=True)
    dp = json.load(open(plan)) if r.returncode == 0 else {'encodes': []}
    record('--plan: each encode\'s ladder and bitrate, bit for bit',
           [(e['file'], e['ladder'], bits(e['bitrate_kbps']), e['bitrate_source'])
            for e in dp['encodes']] ==
           [(e['file'], e['ladder'], bits(e['bitrate_kbps']), e['bitrate_source'])
            for e in doc['encodes']], r.stderr[-300:])

    g = os.path.join(tmp, 'g.json')
    r = subprocess.run([exe, 'compare', ref] + encs + ['--group-by', r'_(q[0-9]+)\.', '--json', g, '-q'],
                       capture_output=True, text=True)
    dg = json.load(open(g)) if r.returncode == 0 else {'ladders': []}
    record('--group-by: the first group of the file name names the ladder',
           [l['name'] for l in dg['ladders']] == ['q2', 'q6', 'q12', 'q24'], r.stderr[-300:])

    page = open(html).read() if os.path.exists(html) else ''
    pts = re.findall(r'<circle [^>]*data-kbps="([^"]+)" data-vmaf="([^"]+)"', page)
    want = sorted((bits(e['bitrate_kbps']), bits(e['vmaf'])) for e in doc['encodes'])
    record('HTML: every encode is a point of its curve, at the JSON\'s values',
           sorted((bits(float(a)), bits(float(b))) for a, b in pts) == want and
           'http' not in page.replace('http://www.w3.org/2000/svg', ''), '%d points' % len(pts))
    if chromium:
        record('HTML: Chromium opens it without console messages', *chromium_check(chromium, html, tmp))
    else:
        skipped.append('chromium')

    if package:
        sys.path.insert(0, package)
        os.environ['EXACTVMAF_CLI'] = exe
        import exactvmaf
        c = exactvmaf.compare(ref, encs, threads=2)
        record('Python exactvmaf.compare(): the CLI\'s JSON, BD-rate %.4f%%' % (
            c.bd_rate(doc['ladders'][1]['name']) or 0), c.json == doc,
            str(c.json)[:200])
        try:
            exactvmaf.compare(ref, encs, model=None)
            record('Python compare() without a model raises', False, 'no error')
        except exactvmaf.Error as e:
            record('Python compare() without a model raises', 'model' in str(e), str(e))

    for bad_opt in (['-o', 'x.xml'], ['--plot', 'p.svg'], ['--bogus']):
        r = subprocess.run([exe, 'compare', ref, encs[0]] + bad_opt, capture_output=True, text=True)
        record('refuses %s (exit 1, a message)' % ' '.join(bad_opt),
               r.returncode == 1 and 'exactvmaf compare:' in r.stderr, r.stderr[-200:])


def chromium_check(chromium, html, tmp):
    shot = os.path.join(tmp, 'shot.png')
    r = subprocess.run([chromium, '--headless', '--no-sandbox', '--disable-gpu',
                        '--enable-logging=stderr', '--v=0', '--hide-scrollbars',
                        '--window-size=1200,1600', '--screenshot=' + shot, 'file://' + html],
                       capture_output=True, text=True, timeout=120)
    console = [l for l in r.stderr.splitlines() if 'CONSOLE' in l or 'Uncaught' in l]
    ok = r.returncode == 0 and not console and os.path.exists(shot)
    return ok, '; '.join(console[:3]) or r.stderr[-300:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--package', help='the python/ folder: also check exactvmaf.compare()')
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        arithmetic(a.exe, tmp)
        ffmpeg = shutil.which('ffmpeg')
        chromium = shutil.which('chromium') or shutil.which('chromium-browser')
        if ffmpeg:
            end_to_end(a.exe, tmp, ffmpeg, chromium, a.package)
        else:
            skipped.append('ffmpeg')
    if skipped:
        print('SKIPPED: the end-to-end checks that need %s (not installed; Debian: apt-get '
              'install %s)' % (' and '.join(skipped), ' '.join(skipped)))
    rc = testlib.finish()
    if rc:
        return rc
    return 77 if 'ffmpeg' in skipped else 0


if __name__ == '__main__':
    sys.exit(main())
