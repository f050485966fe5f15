#!/usr/bin/env python3
"""Valgrind (memcheck) over the CLI on a few fixtures, success and error
paths: no invalid access, no use of uninitialised values, no leak. The
build gives it the tool without FFmpeg's libraries (exactvmaf-plain): every
input here is y4m or raw YUV, and FFmpeg's dependencies run start-up code
that valgrind 3.19 stops with SIGILL on some processors.
Exits 77 (skipped), saying why, when valgrind is not installed, when the
binary is built with AddressSanitizer (the two do not mix), or when a
system library the binary loads dies under valgrind before our code runs
(an instruction this valgrind does not know, on this processor).

usage: valgrind_test.py --exe build/tools/exactvmaf
"""
import argparse, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, '..', 'samples')
REF = os.path.join(SAMPLES, 'ref.y4m')
DIS = os.path.join(SAMPLES, 'dis.y4m')
VALGRIND_RC = 99


def y4m_odd(path):
    w, h = 37, 23
    frame = bytes((i * 7) & 0xff for i in range(w * h + 2 * ((w + 1) // 2) * ((h + 1) // 2)))
    with open(path, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d C420\n' % (w, h))
        for _ in range(3):
            f.write(b'FRAME\n' + frame)


def dies_before_main(vg, exe):
    """Why valgrind cannot run the binary at all here, or None when it can:
    a library's start-up code (run by the dynamic loader, before main) stops
    on an instruction this valgrind does not know (SIGILL)."""
    r = subprocess.run([vg, '-q', exe, '--version'], capture_output=True, timeout=300)
    err = r.stderr.decode(errors='replace')
    if r.returncode == 0 or 'signal 4 (SIGILL)' not in err:
        return None
    stack = err[err.index('signal 4 (SIGILL)'):]
    top = re.search(r'at 0x[0-9A-Fa-f]+: (.*) \(in ([^)]+)\)', stack)
    if not top or '_dl_init' not in stack or re.search(r'by 0x[0-9A-Fa-f]+: main ', stack):
        return None
    if os.path.realpath(top.group(2)) == os.path.realpath(exe):
        return None
    version = subprocess.run([vg, '--version'], capture_output=True, text=True).stdout.strip()
    return ('%s stops in %s (%s), at start-up before %s runs, on an instruction that %s '
            'does not know on this processor' % (os.path.basename(top.group(2)),
                                                  top.group(1), top.group(2),
                                                  os.path.basename(exe), version))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    a = ap.parse_args()
    vg = shutil.which('valgrind')
    if not vg:
        print('skipped: valgrind is not installed')
        return 77
    with open(a.exe, 'rb') as f:
        if b'__asan_init' in f.read():
            print('skipped: the binary is built with AddressSanitizer')
            return 77
    why = dies_before_main(vg, a.exe)
    if why:
        print('skipped: ' + why)
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        odd = os.path.join(tmp, 'odd.y4m')
        y4m_odd(odd)
        raw = os.path.join(tmp, 'raw10.yuv')
        with open(raw, 'wb') as f:
            f.write(bytes((i & 0xff) if i % 2 == 0 else (i >> 8) & 3
                          for i in range(2 * 64 * 48 * 3 // 2 * 2)))
        bad = os.path.join(tmp, 'bad.y4m')
        with open(bad, 'wb') as f:
            f.write(b'YUV4MPEG2 W64 H64 C420\nFRAME\n' + bytes(1000))
        badmodel = os.path.join(tmp, 'bad_model.json')
        with open(badmodel, 'w') as f:
            f.write('{"model_dict": {"model": "svm_type nu_svr\\ntotal_sv 3\\n"}}')
        out = os.path.join(tmp, 'out')
        cases = [
            ('float model, json', ['-r', REF, '-d', DIS, '--model', 'version=vmaf_float_v0.6.1',
                                   '--json', '-o', out + '.json'], 0),
            ('bootstrap collection, 2 threads, xml',
             ['-r', REF, '-d', DIS, '--model', 'version=vmaf_float_b_v0.6.3', '--threads', '2',
              '--frame_cnt', '4', '--xml', '-o', out + '.xml'], 0),
            ('odd-size y4m, features, csv',
             ['-r', odd, '-d', odd, '--no_prediction', '--feature', 'float_vif',
              '--feature', 'float_motion', '--csv', '-o', out + '.csv'], 0),
            ('raw 10-bit, debug outputs',
             ['-r', raw, '-d', raw, '-w', '64', '-h', '48', '-p', '420', '-b', '10',
              '--no_prediction', '--feature', 'float_adm=debug=true', '--sub', '-o', out + '.sub'],
             0),
            ('truncated frame', ['-r', bad, '-d', bad, '--no_prediction', '--feature',
                                 'float_vif', '-o', out + '.bad'], 2),
            ('broken model', ['-r', REF, '-d', DIS, '--model', 'path=' + badmodel], 3),
            ('bad option', ['-r', REF, '-d', DIS, '--no_prediction', '--feature',
                            'float_adm=egl=0.1'], 3),
            ('usage error', ['-r', REF, '-d', DIS, '--feature', 'float_adm=egl=1:egl=2'], 1),
            ('length mismatch through a pipe', ['-r', REF, '-d', '-', '--no_prediction',
                                                '--feature', 'float_vif'], 2),
        ]
        for name, argv, want in cases:
            stdin = None
            if name.startswith('length mismatch'):
                data = open(DIS, 'rb').read()
                stdin = data[:len(data) - (len(data) - data.index(b'\n') - 1) // 12]
            r = subprocess.run([vg, '-q', '--error-exitcode=%d' % VALGRIND_RC,
                                '--leak-check=full', '--show-leak-kinds=definite,indirect',
                                '--errors-for-leak-kinds=definite,indirect',
                                '--track-origins=yes', a.exe] + argv,
                               input=stdin, capture_output=True, timeout=600)
            ok = r.returncode == want
            print('%s: %s (exit %d, expected %d)' % ('ok' if ok else 'FAIL', name, r.returncode,
                                                     want))
            if not ok:
                failures += 1
                print(r.stderr.decode(errors='replace')[-3000:])
    print('%d valgrind cases, %d failed' % (len(cases), failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
