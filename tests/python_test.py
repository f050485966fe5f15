#!/usr/bin/env python3
"""The Python package against the command line tool, bit for bit.

Frames are made here with numpy (textured, moving, distorted by noise), at
8 bits 4:2:0, 10 bits 4:2:0 and 10 bits 4:4:4, odd sizes included. Each is
scored by exactvmaf.score() on the numpy frames and by the exactvmaf tool
on a y4m file of the same frames: every output of every frame, every pooled
value and the JSON text (but the fps line) must be identical. Then: several
models at once, files scored through the package, bad frames and arguments
raising exactvmaf.Error, and memory staying flat over 1000 calls.

Skipped (77) without numpy, or when the library is built with a sanitizer
(ctypes cannot load it into an unsanitized interpreter).

usage: python_test.py --lib build/src/libexactvmaf.so --cli build/tools/exactvmaf
                      --package python/
"""
import argparse, json, os, struct, subprocess, sys, tempfile, time

import testlib
from testlib import record


def bits(x):
    return struct.pack('<d', x)


def make_frames(np, w, h, n, fmt, bpc, seed):
    """n (Y, U, V) frames: a drifting texture, and a noisy, blurred copy."""
    rng = np.random.default_rng(seed)
    cw, ch = {'420': ((w + 1) // 2, (h + 1) // 2), '444': (w, h)}[fmt]
    top = (1 << bpc) - 1
    base = rng.integers(0, top + 1, size=(h + n, w + n)).astype(np.float64)
    cbase = rng.integers(0, top + 1, size=(2, ch + n, cw + n)).astype(np.float64)
    dt = np.uint8 if bpc == 8 else np.uint16
    ref, dis = [], []
    for i in range(n):
        y = base[i:i + h, i:i + w]
        c = cbase[:, i:i + ch, i:i + cw]
        r = (y.astype(dt), c[0].astype(dt), c[1].astype(dt))
        noise = rng.normal(0, top * 0.03, size=(h, w))
        yd = np.clip((y + np.roll(y, 1, axis=1)) / 2 + noise, 0, top)
        d = (yd.astype(dt), np.clip(c[0] + 3, 0, top).astype(dt), c[1].astype(dt))
        ref.append(r)
        dis.append(d)
    return ref, dis


def write_y4m(path, frames, w, h, fmt, bpc):
    c = {'420': 'C420', '444': 'C444'}[fmt] + ('p%d' % bpc if bpc > 8 else 'jpeg' if fmt == '420'
                                                 else '')
    with open(path, 'wb') as f:
        f.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 %s\n' % (w, h, c.encode()))
        for planes in frames:
            f.write(b'FRAME\n')
            for p in planes:
                f.write(p.astype('<u2' if bpc > 8 else 'u1').tobytes())


def cli_json(cli, ref, dis, args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'o.json')
        r = subprocess.run([cli, '-r', ref, '-d', dis, '--json', '-o', out, '--precision', 'max',
                            '-q', '--backend', 'cpu'] + args, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(r.stderr)
        return open(out).read()


def compare(name, result, text):
    """result (a Result) against the tool's JSON text, bit for bit."""
    d = json.loads(text)
    same = total = 0
    first = None
    cli_frames = {f['frameNum']: f['metrics'] for f in d['frames']}
    for num, metrics in zip(result.frame_numbers, result.frames):
        other = cli_frames.get(num, {})
        for k in set(metrics) | set(other):
            total += 1
            if k in metrics and k in other and bits(metrics[k]) == bits(other[k]):
                same += 1
            elif first is None:
                first = 'frame %d %s: %r vs %r' % (num, k, metrics.get(k), other.get(k))
    for k, p in d['pooled_metrics'].items():
        for m, v in p.items():
            total += 1
            if bits(result.pooled.get(k, {}).get(m, float('nan'))) == bits(v):
                same += 1
            elif first is None:
                first = 'pooled %s %s' % (k, m)
    strip = lambda t: [l for l in t.splitlines() if not l.startswith('  "fps"')]
    text_same = strip(result.to_json()) == strip(text)
    ok = total > 0 and same == total and len(result.frames) == len(d['frames']) and text_same
    record(name, ok, '%d/%d identical; %s; JSON text %s' % (
        same, total, first, 'same' if text_same else 'differs'))
    if ok:
        print('    %d/%d values identical over %d frames, JSON text identical'
              % (same, total, len(result.frames)))


class CpuDlpack:
    """A CPU tensor known only through DLPack (as a CPU torch tensor is)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def frame_bits(frames):
    return [{k: bits(v) for k, v in f.items()} for f in frames]


def scorer_checks(exactvmaf, np, ref, dis, models, listing):
    """Scorer, fed one pair at a time, == score() bit for bit: every frame
    it gives out on the way and the Result at close."""
    # Every frame at its own push without temporal metrics on the calling
    # thread; one push late with VMAF (motion2 waits for the next frame);
    # with worker threads or a GPU as they finish frames: there, a pause
    # between pushes (the caller's own work) lets them, and all but the
    # last three frames must come before close(). The last frame always
    # waits for close() where motion is computed.
    ref, dis = ref + ref, dis + dis
    n = len(ref)
    runs = [('cpu, calling thread, no temporal metric', dict(
                backend='cpu', model=None, features=['float_ssim', 'float_vif', 'float_adm']), n),
            ('cpu, calling thread, VMAF', dict(backend='cpu'), n - 1),
            ('cpu, 2 threads, VMAF', dict(backend='cpu', threads=2, model='vmaf_v0.6.1'), -3),
            ('cpu, 2 threads', dict(backend='cpu', threads=2), -3),
            ('features only, 2 threads', dict(backend='cpu', threads=2, model=None,
                                              features=['psnr', 'float_ssim', 'motion']), -3)]
    if any(l.startswith('opencl ') for l in listing.splitlines()):
        runs.append(('opencl, VMAF', dict(backend='opencl', model='vmaf_v0.6.1'), -3))
        runs.append(('opencl', dict(backend='opencl'), -3))
    if any(l.startswith('cuda ') and ': none' not in l for l in listing.splitlines()):
        runs.append(('cuda, VMAF', dict(backend='cuda', model='vmaf_v0.6.1'), -3))
        runs.append(('cuda', dict(backend='cuda'), -3))
    for label, kw, at_push in runs:
        kw.setdefault('model', models[:2])
        kw.setdefault('features', ['psnr'])
        want = exactvmaf.score(ref, dis, **kw)
        got, early = [], 0
        with exactvmaf.Scorer(**kw) as s:
            for r, d in zip(ref, dis):
                out = s.push(r, d)
                got += out
                early += len(out)
                if at_push < 0:
                    time.sleep(0.05)
        got += s.concluded()
        idx = [i for i, _ in got]
        ok = (idx == want.frame_numbers and
              frame_bits([m for _, m in got]) == frame_bits(want.frames) and
              frame_bits(s.result.frames) == frame_bits(want.frames) and
              {k: {m: bits(v) for m, v in p.items()} for k, p in s.result.pooled.items()} ==
              {k: {m: bits(v) for m, v in p.items()} for k, p in want.pooled.items()})
        record('Scorer == score(), %s (%d of %d frames given out before close)'
               % (label, early, len(idx)),
               ok and (early >= n + at_push if at_push < 0 else early == at_push),
               (idx, want.frame_numbers))
    dl = exactvmaf.score([tuple(CpuDlpack(p) for p in f) for f in ref],
                         [tuple(CpuDlpack(p) for p in f) for f in dis], backend='cpu')
    base = exactvmaf.score(ref, dis, backend='cpu')
    record('CPU DLPack tensors == numpy', frame_bits(dl.frames) == frame_bits(base.frames))
    devs = exactvmaf.devices()
    want = [l for l in listing.splitlines() if ': none' not in l]
    record('devices() == --list-devices (%d)' % len(devs),
           [d['description'] for d in devs] == want, (devs, want))
    record('__version__ is the library\'s',
           exactvmaf.library_version().endswith('-exactvmaf-' + exactvmaf.__version__) or
           exactvmaf.__version__ == 'unknown', exactvmaf.__version__)


def expect_error(exactvmaf, name, fn, needle):
    try:
        fn()
    except exactvmaf.Error as e:
        record(name, needle.lower() in str(e).lower(), 'message: %s' % e)
        return
    except Exception as e:      # anything else is a bug
        record(name, False, 'raised %s: %s' % (type(e).__name__, e))
        return
    record(name, False, 'no error')


def rss_kb():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1])
    return 0


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
    ap.add_argument('--lib', required=True)
    ap.add_argument('--cli', required=True)
    ap.add_argument('--package', required=True)
    a = ap.parse_args()
    try:
        import numpy as np
    except ImportError:
        debian_python('import numpy')
        print('SKIP: numpy is not installed (Debian: apt-get install python3-numpy)')
        return 77
    if b'__asan_init' in open(a.lib, 'rb').read() or b'__ubsan_handle' in open(a.lib, 'rb').read():
        print('SKIP: the library is built with a sanitizer; ctypes cannot load it here')
        return 77
    os.environ['EXACTVMAF_LIBRARY'] = a.lib
    os.environ['EXACTVMAF_CLI'] = a.cli
    sys.path.insert(0, a.package)
    import exactvmaf

    with tempfile.TemporaryDirectory() as tmp:
        cases = [('8-bit 4:2:0 64x48', 64, 48, '420', 8),
                 ('10-bit 4:2:0 67x41 (odd)', 67, 41, '420', 10),
                 ('10-bit 4:4:4 48x40', 48, 40, '444', 10),
                 ('8-bit 4:4:4 33x35 (odd)', 33, 35, '444', 8)]
        for i, (label, w, h, fmt, bpc) in enumerate(cases):
            ref, dis = make_frames(np, w, h, 6, fmt, bpc, i)
            rp, dp = os.path.join(tmp, 'r%d.y4m' % i), os.path.join(tmp, 'd%d.y4m' % i)
            write_y4m(rp, ref, w, h, fmt, bpc)
            write_y4m(dp, dis, w, h, fmt, bpc)
            kw = {'bitdepth': bpc} if bpc > 8 else {}
            r = exactvmaf.score(ref, dis, features=['psnr', 'float_ssim'], backend='cpu',
                                threads=2, **kw)
            compare('numpy == CLI, %s, vmaf + psnr + float_ssim' % label, r,
                    cli_json(a.cli, rp, dp, ['--feature', 'psnr', '--feature', 'float_ssim',
                                             '--threads', '2']))
            if i == 0:
                models = ('vmaf_v0.6.1', 'vmaf_float_v0.6.1', 'vmaf_b_v0.6.3',
                          'version=vmaf_v0.6.1neg:name=neg')
                r = exactvmaf.score(ref, dis, model=models, features=[('psnr', {
                    'enable_apsnr': True})], backend='cpu')
                compare('numpy == CLI, several models and a collection, apsnr', r, cli_json(
                    a.cli, rp, dp, ['--model', 'version=vmaf_v0.6.1:name=vmaf_v0.6.1',
                                    '--model', 'version=vmaf_float_v0.6.1:name=vmaf_float_v0.6.1',
                                    '--model', 'version=vmaf_b_v0.6.3:name=vmaf_b_v0.6.3',
                                    '--model', 'version=vmaf_v0.6.1neg:name=neg',
                                    '--feature', 'psnr=enable_apsnr=true']))
                record('aggregate apsnr reported', 'apsnr_y' in r.aggregate, r.aggregate)
                f = exactvmaf.score(rp, dp, model=models, features=[('psnr', {
                    'enable_apsnr': True})], backend='cpu')
                record('files through the package == numpy frames',
                       [[bits(v) for v in x.values()] for x in f.frames] ==
                       [[bits(v) for v in x.values()] for x in r.frames] and
                       f.pooled == r.pooled and f.aggregate == r.aggregate)
                lum = exactvmaf.score([x[0] for x in ref], [x[0] for x in dis], model=None,
                                      features=['float_vif', 'float_adm'])
                record('2-D luma frames (4:0:0), features only',
                       len(lum.frames) == 6 and 'vif_scale0' in lum.frames[0], lum.names)
                record('backends reported', lum.backends.get('float_vif') == 'cpu', lum.backends)
                # OpenCL, where the machine has a device (PoCL in CI): the same bits.
                listing = subprocess.run([a.cli, '--list-devices'], capture_output=True,
                                         text=True).stdout
                if any(l.startswith('opencl ') for l in listing.splitlines()):
                    o = exactvmaf.score(ref, dis, model=models[:2], features=['psnr'],
                                        backend='opencl')
                    c = exactvmaf.score(ref, dis, model=models[:2], features=['psnr'],
                                        backend='cpu')
                    record('backend opencl == cpu, bit for bit, twins reported as opencl',
                           [[bits(v) for v in x.values()] for x in o.frames] ==
                           [[bits(v) for v in x.values()] for x in c.frames] and
                           o.pooled == c.pooled and o.backends.get('adm') == 'opencl' and
                           o.backends.get('float_adm') == 'opencl', o.backends)
                else:
                    print('note: no OpenCL device here; backend opencl not compared')
                scorer_checks(exactvmaf, np, ref, dis, models, listing)
                sub = exactvmaf.score(ref, dis, subsample=2)
                record('subsample=2 lists frames 0, 2, 4', sub.frame_numbers == [0, 2, 4],
                       sub.frame_numbers)
                base = (ref, dis)

        ref, dis = base
        E = exactvmaf
        expect_error(E, 'error: float samples', lambda: E.score(
            [x[0].astype(np.float32) for x in ref], [x[0] for x in dis]), 'uint8')
        expect_error(E, 'error: a 3-D frame', lambda: E.score(
            [np.zeros((4, 4, 4), np.uint8)], [np.zeros((4, 4, 4), np.uint8)]), '2-d luma')
        expect_error(E, 'error: size changes at frame 2', lambda: E.score(
            [x[0] for x in ref[:2]] + [np.zeros((40, 64), np.uint8)],
            [x[0] for x in dis[:3]]), 'frame 2')
        expect_error(E, 'error: lengths differ', lambda: E.score(ref, dis[:4]), 'the distorted')
        expect_error(E, 'error: uint16 without bitdepth', lambda: E.score(
            [x[0].astype(np.uint16) for x in ref], [x[0].astype(np.uint16) for x in dis]),
            'bitdepth')
        expect_error(E, 'error: sample above the bit depth', lambda: E.score(
            [x[0].astype(np.uint16) * 8 for x in ref], [x[0].astype(np.uint16) for x in dis],
            bitdepth=10), 'above the 10-bit')
        expect_error(E, 'error: chroma of no layout', lambda: E.score(
            [(x[0], x[1][:5], x[2][:5]) for x in ref], dis), 'fit no')
        expect_error(E, 'error: unknown model (the library says why)', lambda: E.score(
            ref, dis, model='no_such_model'), 'no_such_model')
        expect_error(E, 'error: unknown feature', lambda: E.score(
            ref, dis, features=['no_such_metric']), 'no_such_metric')
        expect_error(E, 'error: bad feature option', lambda: E.score(
            ref, dis, features=[('float_adm', {'adm_enhn_gain_limit': 'abc'})]), 'float_adm')
        expect_error(E, 'error: frames too small for the model', lambda: E.score(
            [x[0][:8, :8] for x in ref], [x[0][:8, :8] for x in dis]), 'below the minimum')
        expect_error(E, 'error: no frames', lambda: E.score([], []), 'no frames')
        expect_error(E, 'error: ragged planes', lambda: E.score(
            [(x[0], [[1, 2], [3]], x[2]) for x in ref], dis), 'not an array')
        expect_error(E, 'error: bitdepth as text', lambda: E.score(
            [x[0].astype(np.uint16) for x in ref], [x[0].astype(np.uint16) for x in dis],
            bitdepth='10'), 'bitdepth')
        expect_error(E, 'error: negative subsample', lambda: E.score(ref, dis, subsample=-1),
                     'subsample')
        expect_error(E, 'error: an option the package sets itself (files)', lambda: E.score(
            os.path.join(tmp, 'r0.y4m'), os.path.join(tmp, 'd0.y4m'), version=True),
            'set by exactvmaf')
        expect_error(E, 'error: unknown option for frames', lambda: E.score(
            ref, dis, scale_to_ref=True), 'scale_to_ref')
        expect_error(E, 'error: a missing file (the tool says why)', lambda: E.score(
            os.path.join(tmp, 'none.y4m'), os.path.join(tmp, 'none.y4m')), 'none.y4m')
        expect_error(E, 'error: unknown tool option for files', lambda: E.score(
            os.path.join(tmp, 'r0.y4m'), os.path.join(tmp, 'd0.y4m'), no_such_flag=1),
            'no_such_flag')

        # Memory: 1000 scorings of small frames; no growth beyond noise. On
        # the CPU: on a machine with a GPU, auto would start a device 1000
        # times (minutes), which is not what this measures.
        small_r, small_d = [x[0][:32, :32].copy() for x in ref], [x[0][:32, :32].copy()
                                                                 for x in dis]
        for _ in range(100):
            exactvmaf.score(small_r, small_d, backend='cpu')
        before = rss_kb()
        for _ in range(900):
            exactvmaf.score(small_r, small_d, backend='cpu')
        grown = rss_kb() - before
        record('1000 calls: RSS grows by %d KiB over the last 900 (limit 4096)' % grown,
               grown < 4096)

    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
