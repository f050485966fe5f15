#!/usr/bin/env python3
"""--threads 0, 1, 2 and 3 must give the same bits on every output of every frame.
In a cross build meson's MESON_EXE_WRAPPER (e.g. qemu-aarch64 -L SYSROOT) runs the tool."""
import argparse, json, os, shlex, subprocess, sys, tempfile

import testlib

CASES = [  # pair, w, h, fmt, bpc
    ('q_160x90_8b', 160, 90, '420', 8),
    ('src01_576x324_10b', 576, 324, '420', 10),
    ('sparks_480x270_10b', 480, 270, '420', 10),
    ('test_image_100007_481x321_444_8b', 481, 321, '444', 8),
]


def run(exe, data, case, threads, out):
    pair, w, h, fmt, bpc = case
    d = os.path.join(data, 'fixtures', pair)
    dis = os.path.join(d, 'dis.yuv')
    argv = exe + ['-r', os.path.join(d, 'ref.yuv'), '-d', dis if os.path.exists(dis) else os.path.join(d, 'ref.yuv'),
            '-w', str(w), '-h', str(h), '-p', fmt, '-b', str(bpc),
            '--model', 'version=vmaf_float_v0.6.1',
            '--feature', 'float_adm=debug=true', '--feature', 'float_vif=debug=true',
            '--threads', str(threads), '--json', '-o', out, '--precision', 'max', '-q']
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode:
        print('exit %d: %s' % (r.returncode, r.stderr))
        return None
    return json.load(open(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--data', required=True)
    a = ap.parse_args()
    a.exe = shlex.split(os.environ.get('MESON_EXE_WRAPPER', '')) + [os.path.abspath(a.exe)]
    if not os.path.isdir(os.path.join(a.data, 'fixtures')):
        print('FAIL: no fixtures under %s (the build unpacks tests/data there)' % a.data)
        return 1
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            base = None
            for t in (0, 1, 2, 3):
                doc = run(a.exe, a.data, case, t, os.path.join(tmp, 'o%d.json' % t))
                if doc is None:
                    ok = False
                    break
                v = testlib.bit_patterns(doc)
                if base is None:
                    base = v
                    continue
                diff = [k for k in base if base[k] != v.get(k, b'missing')]
                print('%s threads %d vs 0: %d/%d identical' % (case[0], t, len(base) - len(diff), len(base)))
                if diff or len(v) != len(base):
                    ok = False
                    print('   differs at', diff[:5])
    print('PASS' if ok else 'FAIL')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
