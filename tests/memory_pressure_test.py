#!/usr/bin/env python3
"""Another process takes the GPU's memory, before and during a run.

A run's device memory is taken at its start (frames in flight shrink to
what fits then); from there on nothing is allocated per frame, so a
process that takes most of the device's memory mid-run changes nothing:
the run finishes on the GPU, equal to the CPU bit for bit. Checked here
for each backend given:
  before   the grabber holds all but ~SPARE MiB before the run starts:
           the run finishes, equal to the CPU, with fewer frames in flight
           than it would take otherwise (the pipeline says how many);
  during   the grabber takes all it can (to the last MiB) after a third of
           the frames were read (the inputs are pipes, so the frames after
           it wait for it): the run finishes on the GPU, equal to the CPU,
           no failover.
Exits 77 without a CUDA device (the grabber allocates through libcuda,
which also holds OpenCL's memory on NVIDIA's devices).

usage: memory_pressure_test.py --exe B/tools/exactvmaf [--backend cuda,opencl]
"""
import argparse, ctypes, json, os, random, subprocess, sys, tempfile, threading

import testlib

W, H = 1920, 1080

GRABBER = r'''
import ctypes, sys
cu = ctypes.CDLL('libcuda.so.1')
def ok(r, what):
    if r:
        print('grabber: %s failed (%d)' % (what, r), flush=True); sys.exit(1)
ok(cu.cuInit(0), 'cuInit')
dev, ctx = ctypes.c_int(), ctypes.c_void_p()
ok(cu.cuDeviceGet(ctypes.byref(dev), 0), 'cuDeviceGet')
ok(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), 'cuDevicePrimaryCtxRetain')
ok(cu.cuCtxSetCurrent(ctx), 'cuCtxSetCurrent')
free, total = ctypes.c_size_t(), ctypes.c_size_t()
spare = int(sys.argv[1]) << 20
held, chunk, p = 0, 1 << 30, ctypes.c_uint64()
while chunk >= 1 << 20:
    ok(cu.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total)), 'cuMemGetInfo')
    if free.value < spare + chunk:
        chunk >>= 1
        continue
    if cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(chunk)):
        chunk >>= 1
        continue
    held += chunk
ok(cu.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total)), 'cuMemGetInfo')
print('held %d MiB, %d MiB free' % (held >> 20, free.value >> 20), flush=True)
sys.stdin.read()
'''


def have_cuda():
    try:
        cu = ctypes.CDLL('libcuda.so.1')
        n = ctypes.c_int()
        return cu.cuInit(0) == 0 and cu.cuDeviceGetCount(ctypes.byref(n)) == 0 and n.value > 0
    except OSError:
        return False


def frame(i, dis):
    """Frame i of the clip: noise in the luma (so that the scores vary),
    the distorted one shifted by a sample, chroma flat."""
    y = random.Random(i).randbytes(W * H)
    if dis:
        y = y[1:] + y[:1]
    return b'FRAME\n' + y + bytes([128]) * (W * H // 2)


def feed(path, n, dis, gate, at, arrived):
    try:
        with open(path, 'wb') as f:
            f.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n' % (W, H))
            for i in range(n):
                if i == at:
                    arrived.set()
                    gate.wait()
                f.write(frame(i, dis))
    except BrokenPipeError:
        pass        # the run stopped reading; its exit status says why
    finally:
        # A run that stops before frame `at` must not leave the grabber waiting.
        arrived.set()


def run(a, tmp, backend, n, at=None, spare=None):
    """A run on piped inputs; with at: the grabber starts before frame at is
    written (and the frames after it wait for it), with spare: before the run."""
    ref, dis, out = (os.path.join(tmp, x) for x in ('ref.y4m', 'dis.y4m', 'out.json'))
    for p in (ref, dis):
        if os.path.exists(p):
            os.remove(p)
        os.mkfifo(p)
    gate = threading.Event()
    grabber, said = None, ''

    def grab(mib):
        g = subprocess.Popen([sys.executable, '-c', GRABBER, str(mib)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        return g, g.stdout.readline().strip()

    if spare is not None:
        grabber, said = grab(spare)
    if at is None:
        gate.set()
    arrived = [threading.Event(), threading.Event()]
    writers = [threading.Thread(target=feed, args=(p, n, k == 1, gate, at if at else -1,
                                                   arrived[k]))
               for k, p in enumerate((ref, dis))]
    for t in writers:
        t.start()
    cmd = [a.exe, '-r', ref, '-d', dis, '--backend', backend, '--json', '--precision', 'max',
           '-o', out, '--log-level', 'info']
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if at is not None:
        # Both writers at frame `at`: the run has read the frames before it
        # (a pipe holds less than a frame), so its pipeline has started.
        for e in arrived:
            e.wait()
        grabber, said = grab(1)
        gate.set()
    err = proc.communicate()[1]
    for t in writers:
        t.join()
    if grabber:
        grabber.stdin.close()
        grabber.wait()
    doc = json.load(open(out)) if proc.returncode == 0 and os.path.exists(out) else None
    return proc.returncode, err, doc, said


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--backend', default='cuda')
    ap.add_argument('--frames', type=int, default=120)
    ap.add_argument('--spare', type=int, default=1024, help='MiB left free before the run')
    a = ap.parse_args()
    if not have_cuda():
        return testlib.no_device('no CUDA device (the grabber takes memory through libcuda)')
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        rc, err, cpu, _ = run(a, tmp, 'cpu', a.frames)
        if rc or not cpu:
            print('FAIL: the CPU run: exit %d\n%s' % (rc, err[-2000:]))
            return 1
        want = testlib.bit_patterns(cpu)
        print('cpu: %d outputs over %d frames' % (len(want), len(cpu['frames'])))
        for backend in a.backend.split(','):
            for how in ('before', 'during'):
                kw = dict(spare=a.spare) if how == 'before' else dict(at=a.frames // 3)
                rc, err, doc, said = run(a, tmp, backend, a.frames, **kw)
                errs = []
                if rc:
                    errs.append('exit %d' % rc)
                if not said.startswith('held '):
                    errs.append('no memory was taken from the run')
                got = testlib.bit_patterns(doc) if doc else {}
                same = sum(1 for k in want if got.get(k) == want[k])
                if doc and (same != len(want) or len(got) != len(want)):
                    errs.append('%d of %d outputs equal the CPU\'s' % (same, len(want)))
                ran = {d['backend'] for v in (doc or {}).get('devices', {}).values() for d in v}
                if doc and ran != {backend}:
                    errs.append('devices used: %s' % sorted(ran))
                lines = [l for l in err.splitlines() if 'frames in flight' in l]
                # What the run recovered from is a notice (info), not a warning or an error.
                loud = [l for l in err.splitlines() if ' warning: ' in l or ' error: ' in l]
                if loud:
                    errs.append('%d warnings or errors printed' % len(loud))
                print('%s %-7s %-7s %s; %d/%d identical; %s' %
                      ('FAIL' if errs else 'ok  ', backend, how, said, same, len(want),
                       '; '.join(errs) or (lines[-1].split(': ', 1)[-1] if lines else '')))
                if errs:
                    print('\n'.join('    ' + l for l in err.splitlines()[-8:]))
                    ok = False
    print('memory pressure: %s' % ('all ok' if ok else 'FAILED'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
