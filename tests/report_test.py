#!/usr/bin/env python3
"""The HTML report (--report) and the SVG plot (--plot) against the JSON output.

One run writes all three. Every plotted curve of the report (every model and
feature) must carry exactly the JSON's per-frame values (data-values, bit for
bit) at the JSON's frames, and each point must sit where the chart's axes put
that value; the pooled table must print the JSON's pooled values; the worst
frames must be the lowest-scoring ones, the 5 worst and --report-frame shown in
pictures whose PNGs hold the frames' luma and its difference. The page must open in headless
Chromium with no console message, and a screenshot is kept (--artifacts).
The plot must be well-formed SVG with the models' curves. Skipped (77)
without chromium (Debian: apt-get install chromium).

usage: report_test.py --exe build/tools/exactvmaf [--artifacts DIR]
"""
import argparse, json, math, os, re, shutil, struct, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

import testlib
from testlib import record


def y4m(path, w, h, n, seed):
    """A moving texture, with noise in the distorted one (seed 1)."""
    out = bytearray(b'YUV4MPEG2 W%d H%d F25:1 Ip C420jpeg\n' % (w, h))
    s = 12345 + seed
    for k in range(n):
        out += b'FRAME\n'
        for j in range(h):
            for i in range(w):
                v = int(128 + 60 * math.sin((i + 2 * k) / 5.0) * math.cos((j - k) / 7.0))
                if seed:
                    s = (s * 1103515245 + 12345) & 0x7fffffff
                    v += (s >> 16) % 9 - 4
                out.append(max(0, min(255, v)))
        out += bytes([128]) * (2 * (w // 2) * (h // 2))
    open(path, 'wb').write(out)


def luma(path, k, w=96, h=64):
    """Frame k's luma samples of a y4m file written by y4m() above."""
    data = open(path, 'rb').read()
    start = data.index(b'\n') + 1
    size = len(b'FRAME\n') + w * h + 2 * (w // 2) * (h // 2)
    at = start + k * size + len(b'FRAME\n')
    return data[at:at + w * h]


def png_pixels(b64):
    """The samples of an 8-bit grey or palette PNG (filter 0 rows), or None."""
    import base64, zlib
    try:
        data = base64.b64decode(b64)
        assert data[:8] == b'\x89PNG\r\n\x1a\n'
        at, idat, w, h = 8, b'', 0, 0
        while at < len(data):
            n = struct.unpack('>I', data[at:at + 4])[0]
            kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + n]
            if zlib.crc32(kind + body) != struct.unpack('>I', data[at + 8 + n:at + 12 + n])[0]:
                return None
            if kind == b'IHDR':
                w, h = struct.unpack('>II', body[:8])
            elif kind == b'IDAT':
                idat += body
            at += 12 + n
        raw = zlib.decompress(idat)
        rows = [raw[y * (w + 1):(y + 1) * (w + 1)] for y in range(h)]
        assert all(r[0] == 0 for r in rows) and len(raw) == h * (w + 1)
        return b''.join(r[1:] for r in rows)
    except Exception:
        return None


def bits(x):
    return struct.pack('<d', x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--artifacts', help='folder to keep the screenshot in')
    a = ap.parse_args()
    chromium = shutil.which('chromium') or shutil.which('chromium-browser')
    if not chromium:
        print('SKIP: chromium is not installed (Debian: apt-get install chromium)')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        ref, dis = os.path.join(tmp, 'ref.y4m'), os.path.join(tmp, 'dis.y4m')
        y4m(ref, 96, 64, 14, 0)
        y4m(dis, 96, 64, 14, 1)
        html, svg, js = (os.path.join(tmp, n) for n in ('r.html', 'p.svg', 'r.json'))
        r = subprocess.run([a.exe, '-r', ref, '-d', dis, '--model', 'version=vmaf_v0.6.1',
                            '--model', 'version=vmaf_float_v0.6.1:name=vmaf_float',
                            '--feature', 'psnr', '--precision', 'max', '--json', '-o', js,
                            '--report', html, '--plot', svg, '--report-frame', '13', '-q'],
                           capture_output=True, text=True)
        if r.returncode:
            record('run', False, r.stderr[-300:])
            return 1
        doc = json.load(open(js))
        frames = {f['frameNum']: f['metrics'] for f in doc['frames']}
        page = open(html).read()

        # Every curve: the JSON's values at the JSON's frames, placed on the axes.
        charts = re.findall(r'<svg [^>]*data-ymin="([^"]+)" data-ymax="([^"]+)" data-left="([^"]+)" '
                            r'data-top="([^"]+)" data-width="([^"]+)" data-height="([^"]+)">(.*?)</svg>',
                            page, re.S)
        seen = set()
        bad = []
        for ymin, ymax, left, top, width, height, body in charts:
            ymin, ymax, left, top, width, height = map(float, (ymin, ymax, left, top, width, height))
            for name, vals, fr, pts in re.findall(
                    r'<g class="series" data-name="([^"]+)"[^>]*><polyline fill="none" '
                    r'data-values="([^"]*)" data-frames="([^"]*)" points="([^"]*)"/>', body):
                seen.add(name)
                vals = [float(v) for v in vals.split()]
                fr = [int(v) for v in fr.split()]
                pts = [tuple(map(float, p.split(','))) for p in pts.split()]
                want = [(n, frames[n][name]) for n in sorted(frames) if name in frames[n]]
                if [n for n, _ in want] != fr or len(pts) != len(fr):
                    bad.append('%s: frames %s, JSON %s' % (name, fr, [n for n, _ in want]))
                    continue
                if any(bits(v) != bits(w) for v, (_, w) in zip(vals, want)):
                    bad.append('%s: values differ from the JSON' % name)
                n = len(frames)
                for (x, y), f, v in zip(pts, fr, vals):
                    ex = left + (f * width / (n - 1) if n > 1 else width / 2)
                    ey = top + (ymax - v) / (ymax - ymin) * height
                    if abs(x - ex) > 0.006 or abs(y - ey) > 0.006:
                        bad.append('%s frame %d at (%g, %g), expected (%g, %g)' % (name, f, x, y, ex, ey))
                        break
        outputs = {k for m in frames.values() for k in m}
        missing = outputs - seen - {k for k in outputs if all(m.get(k) is None for m in frames.values())}
        record('every curve is the JSON\'s values, placed on its axes', not bad and not missing,
               '; '.join(bad[:5]) + (' missing curves %s' % sorted(missing) if missing else ''))

        # Pooled table: the JSON's pooled values as printed.
        bad = []
        for name, pooled in doc['pooled_metrics'].items():
            m = re.search(r'<t[hd]>%s</t[hd]>((?:<td class="n">[^<]*</td>){4})' % re.escape(name), page)
            if not m:
                bad.append('%s not in the table' % name)
                continue
            cells = re.findall(r'<td class="n">([^<]*)</td>', m.group(1))
            for cell, key in zip(cells, ('mean', 'min', 'max', 'harmonic_mean')):
                if cell != '%.6f' % pooled[key]:
                    bad.append('%s %s: %s vs %.6f' % (name, key, cell, pooled[key]))
        record('pooled table prints the JSON\'s pooled values', not bad, '; '.join(bad[:5]))

        # Worst frames of the first model.
        m = re.search(r'<section id="worst">.*?</section>', page, re.S)
        listed = [int(x) for x in re.findall(r'<tr><td class="n">(\d+)</td>', m.group(0))] if m else []
        lowest = sorted(frames, key=lambda n: (frames[n]['vmaf'], n))[:len(listed)]
        record('worst frames are the lowest VMAF frames', listed and listed == lowest,
               'listed %s, lowest %s' % (listed, lowest))

        # Pictures of the 5 worst frames and of --report-frame 13: the PNGs
        # decode to the videos' luma (96x64 is under 320 pixels: one to one)
        # and to the heat map of their absolute difference.
        want = lowest[:5] + ([13] if 13 not in lowest[:5] else [])
        figs = re.findall(r'<figure class="frame" data-frame="(\d+)">(.*?)</figure>', page, re.S)
        record('pictures: the 5 worst frames and --report-frame 13, in that order',
               [int(n) for n, _ in figs] == want, '%s vs %s' % ([n for n, _ in figs], want))
        bad = []
        for n, body in figs:
            imgs = dict(re.findall(r'<img class="(\w+)"[^>]* src="data:image/png;base64,([^"]+)"', body))
            r_l, d_l = luma(ref, int(n)), luma(dis, int(n))
            if png_pixels(imgs.get('reference', '')) != r_l:
                bad.append('frame %s: reference picture is not its luma' % n)
            if png_pixels(imgs.get('distorted', '')) != d_l:
                bad.append('frame %s: distorted picture is not its luma' % n)
            heat = bytes(min(255, int(abs(a - b) / 16 * 255 + 0.5)) for a, b in zip(r_l, d_l))
            if png_pixels(imgs.get('difference', '')) != heat:
                bad.append('frame %s: difference picture is not |ref - dis|' % n)
        record('pictures: reference, distorted and difference PNGs hold the frames\' luma',
               bool(figs) and not bad, '; '.join(bad[:4]))

        # The plot: well-formed SVG with the two models.
        try:
            root = ET.parse(svg).getroot()
            names = [g.get('data-name') for g in root.iter('{http://www.w3.org/2000/svg}g')]
            record('plot: SVG with both models\' curves', names == ['vmaf', 'vmaf_float'], str(names))
        except ET.ParseError as e:
            record('plot: SVG with both models\' curves', False, str(e))

        # Headless Chromium: no console message; a screenshot kept.
        shot = os.path.join(a.artifacts or tmp, 'report.png')
        if a.artifacts:
            os.makedirs(a.artifacts, exist_ok=True)
        r = subprocess.run([chromium, '--headless', '--no-sandbox', '--disable-gpu',
                            '--enable-logging=stderr', '--v=0', '--hide-scrollbars',
                            '--window-size=1200,2000', '--screenshot=' + shot,
                            'file://' + html], capture_output=True, text=True, timeout=120)
        console = [l for l in r.stderr.splitlines() if 'CONSOLE' in l or 'Uncaught' in l]
        png = open(shot, 'rb').read() if os.path.exists(shot) else b''
        record('Chromium opens the report without console messages',
               r.returncode == 0 and not console, '; '.join(console[:3]) or r.stderr[-300:])
        record('screenshot taken (%s)' % shot, png[:8] == b'\x89PNG\r\n\x1a\n' and len(png) > 20000,
               '%d bytes' % len(png))
    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
