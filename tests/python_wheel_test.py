#!/usr/bin/env python3
"""The wheel, as a user gets it: built from this source tree by meson-python
(`python3 -m build --wheel`, CUDA kernels left out to keep it short),
installed with --no-deps into a fresh virtual environment (numpy from the
system's site packages), then used with no EXACTVMAF_* variable set: a
fixture's raw YUV files and numpy frames scored through the package must
equal the build's command line tool, every value's 64-bit pattern; the
package's version is the library's; its `exactvmaf` command runs.

Skipped (77) without meson-python, pypa build, venv or numpy for this
interpreter (Debian: python3-mesonpy python3-build python3-venv python3-numpy).

usage: python_wheel_test.py --source DIR --cli build/tools/exactvmaf --data build/test-data
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

import testlib
from testlib import record

CHILD = r'''
import json, struct, sys
import numpy as np
import exactvmaf
ref, dis, w, h, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
files = exactvmaf.score(ref, dis, width=w, height=h, pixel_format='420', bitdepth=8,
                        features=['psnr'], backend='cpu')
def frames(path):
    raw = np.fromfile(path, np.uint8).reshape(-1, h * w * 3 // 2)
    for f in raw:
        yield (f[:h * w].reshape(h, w), f[h * w:h * w * 5 // 4].reshape(h // 2, w // 2),
               f[h * w * 5 // 4:].reshape(h // 2, w // 2))
arrays = exactvmaf.score(frames(ref), frames(dis), features=['psnr'], backend='cpu')
b = lambda v: struct.pack('<d', v).hex()
json.dump({'version': exactvmaf.__version__, 'library': exactvmaf.library_version(),
           'module': exactvmaf.__file__, 'devices': exactvmaf.devices(),
           'results': {name: {'frames': [{k: b(v) for k, v in f.items()} for f in r.frames],
                              'pooled': {k: {m: b(v) for m, v in p.items()}
                                         for k, p in r.pooled.items()}}
                       for name, r in (('files', files), ('numpy', arrays))}}, open(out, 'w'))
'''


def bits_hex(v):
    import struct
    return struct.pack('<d', v).hex()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--source', required=True)
    ap.add_argument('--cli', required=True)
    ap.add_argument('--data', required=True)
    a = ap.parse_args()
    need = 'import mesonpy, build, venv, numpy'
    if subprocess.run([sys.executable, '-c', need], capture_output=True).returncode:
        deb = '/usr/bin/python3'
        if os.path.realpath(sys.executable) != os.path.realpath(deb) and \
                subprocess.run([deb, '-c', need], capture_output=True).returncode == 0:
            os.execv(deb, [deb] + sys.argv)
        print('SKIP: needs meson-python, pypa build, venv and numpy (Debian: apt-get install '
              'python3-mesonpy python3-build python3-venv python3-numpy)')
        return 77
    fixture = os.path.join(a.data, 'fixtures', 'q_160x90_8b')
    if not os.path.isdir(fixture):
        print('FAIL: no fixture %s (the build unpacks tests/data there)' % fixture)
        return 1
    ref, dis = os.path.join(fixture, 'ref.yuv'), os.path.join(fixture, 'dis.yuv')
    w, h = 160, 90
    env = {k: v for k, v in os.environ.items() if not k.startswith('EXACTVMAF_')}
    with tempfile.TemporaryDirectory(prefix='exactvmaf-wheel-') as tmp:
        dist = os.path.join(tmp, 'dist')
        t0 = time.monotonic()
        # Out of the tree's build folders: meson-python configures its own.
        r = subprocess.run([sys.executable, '-m', 'build', '--wheel', '--no-isolation',
                            '--outdir', dist, '-Csetup-args=-Dcuda=disabled',
                            '-Ccompile-args=-j2', a.source], env=env, capture_output=True,
                           text=True)
        wheels = [f for f in os.listdir(dist) if f.endswith('.whl')] if not r.returncode else []
        record('wheel built (%.0f s)' % (time.monotonic() - t0), len(wheels) == 1,
               r.stdout[-1500:] + r.stderr[-1500:])
        if not wheels:
            return 1
        venv = os.path.join(tmp, 'venv')
        py = os.path.join(venv, 'bin', 'python')
        r = subprocess.run([sys.executable, '-m', 'venv', '--system-site-packages', venv],
                           env=env, capture_output=True, text=True)
        if not r.returncode:
            r = subprocess.run([py, '-m', 'pip', 'install', '-q', '--no-deps', '--no-index',
                                os.path.join(dist, wheels[0])], env=env, capture_output=True,
                               text=True)
        record('installed into a fresh venv, --no-deps', r.returncode == 0, r.stderr[-1500:])
        if r.returncode:
            return 1
        out = os.path.join(tmp, 'out.json')
        # Run from the temporary folder: the source tree's python/ is not importable there.
        r = subprocess.run([py, '-c', CHILD, ref, dis, str(w), str(h), out], env=env, cwd=tmp,
                           capture_output=True, text=True)
        record('package scores files and numpy frames with no EXACTVMAF_* set',
               r.returncode == 0, r.stderr[-2000:])
        if r.returncode:
            return 1
        got = json.load(open(out))
        record('the package is the venv\'s, not the source tree\'s',
               got['module'].startswith(venv), got['module'])
        with tempfile.TemporaryDirectory() as t2:
            o = os.path.join(t2, 'o.json')
            c = subprocess.run([a.cli, '-r', ref, '-d', dis, '-w', str(w), '-h', str(h), '-p',
                                '420', '-b', '8', '--feature', 'psnr', '--backend', 'cpu',
                                '--json', '-o', o, '--precision', 'max', '-q'],
                               capture_output=True, text=True)
            record('the build\'s tool scores the fixture', c.returncode == 0, c.stderr)
            if c.returncode:
                return 1
            d = json.load(open(o))
        want = {'frames': [{k: bits_hex(v) for k, v in f['metrics'].items()}
                           for f in d['frames']],
                'pooled': {k: {m: bits_hex(v) for m, v in p.items()}
                           for k, p in d['pooled_metrics'].items()}}
        n = sum(len(f) for f in want['frames']) + sum(len(p) for p in want['pooled'].values())
        for name in ('files', 'numpy'):
            res = got['results'][name]
            same = res == want
            where = ''
            if not same:
                for i, (x, y) in enumerate(zip(res['frames'], want['frames'])):
                    if x != y:
                        where = 'frame %d: %s' % (i, sorted(k for k in set(x) | set(y)
                                                            if x.get(k) != y.get(k)))
                        break
            record('%s == the tool, bit for bit (%d values)' % (name, n), same and n > 0,
                   where or 'pooled or frame count differ')
        lib = got['library']
        record('__version__ %s is the library\'s (%s)' % (got['version'], lib),
               lib.endswith('-exactvmaf-' + got['version']))
        r = subprocess.run([os.path.join(venv, 'bin', 'exactvmaf'), '--version'], env=env,
                           capture_output=True, text=True)
        record('the venv\'s exactvmaf command runs the bundled tool',
               r.returncode == 0 and (r.stdout + r.stderr).strip() == lib, r.stdout + r.stderr)
        # Compressed input goes through the FFmpeg module the wheel bundles
        # beside the tool (where the build has FFmpeg's libraries).
        mp4 = os.path.join(tmp, 'ref.mp4')
        made = subprocess.run(['ffmpeg', '-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt',
                               'yuv420p', '-s', '%dx%d' % (w, h), '-i', ref, '-c:v', 'libx264',
                               '-pix_fmt', 'yuv420p', mp4], capture_output=True) \
            if shutil.which('ffmpeg') else None
        if made is not None and made.returncode == 0:
            o = os.path.join(tmp, 'mp4.json')
            r = subprocess.run([os.path.join(venv, 'bin', 'exactvmaf'), '-r', mp4, '-d', mp4,
                                '--backend', 'cpu', '--hwdec', 'none', '--json', '-o', o, '-q'],
                               env=env, capture_output=True, text=True)
            n = len(json.load(open(o))['frames']) if r.returncode == 0 else 0
            record('the bundled tool decodes an mp4 (%d frames)' % n, n > 0, r.stderr[-1000:])
    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
