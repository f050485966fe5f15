#!/usr/bin/env python3
"""What a run tells people when a GPU cannot be used.

A GPU that is there but cannot be opened (tests/fake_cuda: a libcuda.so.1
whose context creation fails with CUDA_ERROR_OUT_OF_MEMORY, put first on
LD_LIBRARY_PATH): with --backend auto (asked for or the default) the run
prints one notice line (what failed: the driver call, its error, the
device; what runs instead: the CPU), exits 0 and writes the same file as
--backend cpu; with --backend cuda it stops with an error naming the call
and the device, exit 3, and no output file. OpenCL (on PoCL in CI): a
device that does not exist and a machine without an OpenCL platform stop
--backend opencl with a named error and no file. No message names one of
our source files (file:line is for --log-level debug, where it still is).

usage: messages_test.py --exe build/tools/exactvmaf --fake-cuda build/tests/fake_cuda
                        --data build/test-data [--cuda yes|no]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile

import testlib
from testlib import record

SOURCE_REF = re.compile(r'\[[^\]]*\.(c|h|cu|cl):\d+\]|\b[\w/.-]+\.(c|h|cu):\d+')


def decode_choice(a, fx, tmp, fake):
    """The command with no flags on a compressed pair: where the library's auto
    resolves to CUDA (the stand-in driver has a device), NVDEC is tried for
    both files, and the CPU decoder takes over, one line per file saying why;
    with no driver at all, the CPU decodes and nothing is said unless asked
    (--log-level info). The scores are the CPU's every time."""
    ffmpeg = shutil.which('ffmpeg')
    if not ffmpeg:
        print('(no ffmpeg tool: the decoder choice is not checked)')
        return
    mp4 = {}
    for k in ('ref', 'dis'):
        mp4[k] = os.path.join(tmp, 'nv_%s.mp4' % k)
        subprocess.run([ffmpeg, '-loglevel', 'error', '-y', '-f', 'rawvideo', '-pix_fmt',
                        'yuv420p', '-s', '160x90', '-i', os.path.join(fx, '%s.yuv' % k),
                        '-c:v', 'libx264', '-crf', '20', mp4[k]], check=True)

    def score(name, *extra, env=None):
        out = os.path.join(tmp, name + '.json')
        r = subprocess.run([a.exe, '-r', mp4['ref'], '-d', mp4['dis'], '--feature', 'psnr',
                            '--precision', 'max', '-q', '--json', '-o', out] + list(extra),
                           capture_output=True, text=True, env=dict(os.environ, **(env or {})))
        body = None
        if os.path.exists(out):
            body = [l for l in open(out).read().splitlines()
                    if not l.startswith('  "fps"') and '"backends"' not in l]
            os.remove(out)
        return r, body

    r, cpu = score('nv_cpu', '--backend', 'cpu', '--hwdec', 'none')
    if r.returncode or cpu is None:
        if 'cannot be decoded' in r.stderr:
            print('(this exactvmaf reads no compressed video: the decoder choice is not checked)')
        else:
            record('compressed pair on the CPU', False, r.stderr)
        return
    r, body = score('nv_fake', env=fake)
    lines = [l for l in r.stderr.splitlines() if 'decoding on the CPU' in l]
    record('no flags, a GPU the library would use: NVDEC tried for each file, then the CPU '
           'decoder, one line each', r.returncode == 0 and len(lines) == 2 and
           all('cannot be opened for decoding' in l for l in lines) and
           'nv_ref.mp4' in lines[0] and 'nv_dis.mp4' in lines[1], r.stderr)
    record('no flags, NVDEC not to be had: output == --backend cpu', body == cpu, 'differs')
    # No driver: the stand-in taken off the library path (meson puts it there
    # for the tests that link it); a machine with a driver installed cannot
    # play this part.
    path = [d for d in os.environ.get('LD_LIBRARY_PATH', '').split(os.pathsep)
            if d and not os.path.exists(os.path.join(d, 'libcuda.so.1'))]
    bare = dict(LD_LIBRARY_PATH=os.pathsep.join(path))
    probe = subprocess.run([sys.executable, '-c', 'import ctypes; ctypes.CDLL("libcuda.so.1")'],
                           capture_output=True, env=dict(os.environ, **bare))
    if probe.returncode == 0:
        print('(a CUDA driver is installed: the machine without one is not checked)')
        return
    r, body = score('nv_none', env=bare)
    record('no flags, no GPU driver: nothing said about decoding, output == --backend cpu',
           r.returncode == 0 and 'decod' not in r.stderr and body == cpu, r.stderr)
    r, body = score('nv_info', '--log-level', 'info', env=bare)
    lines = [l for l in r.stderr.splitlines() if 'decoding on the CPU' in l]
    record('no GPU driver, --log-level info: one line per file saying why the CPU decodes',
           r.returncode == 0 and len(lines) == 2 and
           all('metrics run on the CPU' in l for l in lines), r.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--fake-cuda', required=True)
    ap.add_argument('--data', required=True)
    ap.add_argument('--cuda', default='yes')
    a = ap.parse_args()
    fx = os.path.join(a.data, 'fixtures', 'q_160x90_8b')
    if not os.path.isfile(os.path.join(fx, 'ref.yuv')):
        print('FAIL: %s has no fixtures/q_160x90_8b (the build unpacks tests/data there)'
              % a.data)
        return 1

    with tempfile.TemporaryDirectory(prefix='messages-') as tmp:
        def run(out, *extra, env=None):
            argv = [a.exe, '-r', os.path.join(fx, 'ref.yuv'), '-d', os.path.join(fx, 'dis.yuv'),
                    '-w', '160', '-h', '90', '-p', '420', '-b', '8', '--feature', 'psnr',
                    '--precision', 'max', '-q', '--json', '-o', out] + list(extra)
            e = dict(os.environ, **(env or {}))
            r = subprocess.run(argv, capture_output=True, text=True, env=e)
            lines = [l for l in r.stderr.splitlines() if l.strip()]
            body = None
            if os.path.exists(out):
                body = [l for l in open(out).read().splitlines() if not l.startswith('  "fps"')]
            return r.returncode, lines, body

        cpu_code, _, cpu = run(os.path.join(tmp, 'cpu.json'), '--backend', 'cpu')
        if cpu_code:
            record('cpu run', False, cpu_code)
            return 1

        if a.cuda == 'yes':
            fake = dict(LD_LIBRARY_PATH=os.path.abspath(a.fake_cuda) + os.pathsep +
                        os.environ.get('LD_LIBRARY_PATH', ''))
            for how, extra in (('--backend auto', ['--backend', 'auto']), ('the default', [])):
                out = os.path.join(tmp, 'auto.json')
                code, lines, body = run(out, *extra, env=fake)
                notice = lines[0] if len(lines) == 1 else ''
                record('%s, GPU out of memory: one notice line' % how,
                       code == 0 and len(lines) == 1 and 'error' not in notice.split(':')[0],
                       (code, lines))
                record('%s: the notice names the call, error, device and the CPU' % how,
                       all(w in notice for w in ('cuDevicePrimaryCtxRetain',
                                                 'CUDA_ERROR_OUT_OF_MEMORY',
                                                 'Fake GPU without memory', 'CUDA device 0',
                                                 'computing on the CPU')), notice)
                record('%s: no source file named' % how, not SOURCE_REF.search(notice), notice)
                record('%s: output == --backend cpu' % how, body == cpu, 'differs')
                os.remove(out)

            out = os.path.join(tmp, 'cuda.json')
            code, lines, body = run(out, '--backend', 'cuda', env=fake)
            text = '\n'.join(lines)
            record('--backend cuda, GPU out of memory: exit 3, no output file',
                   code == 3 and body is None and not os.path.exists(out), (code, lines))
            record('--backend cuda: the error names the call, error and device',
                   'cuDevicePrimaryCtxRetain' in text and 'CUDA_ERROR_OUT_OF_MEMORY' in text and
                   'Fake GPU without memory' in text, text)
            record('--backend cuda: no source file named', not SOURCE_REF.search(text), text)

            r = subprocess.run([a.exe, '--list-devices'], capture_output=True, text=True,
                               env=dict(os.environ, **fake))
            cuda = [l for l in r.stdout.splitlines() if l.startswith('cuda 0:')]
            record('--list-devices: the device\'s line names the failing call, no error line',
                   len(cuda) == 1 and 'cuDevicePrimaryCtxRetain' in cuda[0] and
                   'Fake GPU without memory' in cuda[0] and 'error' not in r.stderr and
                   not SOURCE_REF.search(r.stdout + r.stderr), (r.stdout, r.stderr))
            code, lines, body = run(os.path.join(tmp, 'dbg.json'), '--backend', 'auto',
                                    '--log-level', 'debug', env=fake)
            record('--log-level debug: the failing call\'s source line is there',
                   code == 0 and any(re.search(r'cuda_state\.c:\d+', l) for l in lines), lines)
            decode_choice(a, fx, tmp, fake)
        else:
            testlib.missing_device('built without CUDA: the CUDA fallback is not checked')

        listing = subprocess.run([a.exe, '--list-devices'], capture_output=True, text=True)
        if any(l.startswith('opencl ') for l in listing.stdout.splitlines()):
            out = os.path.join(tmp, 'cl.json')
            code, lines, body = run(out, '--backend', 'opencl', '--opencl-device', '7:7')
            text = '\n'.join(lines)
            record('--opencl-device 7:7: nonzero exit, no output file, names the device',
                   code != 0 and body is None and '7:7' in text, (code, lines))
            record('--opencl-device 7:7: no source file named', not SOURCE_REF.search(text), text)
            empty = os.path.join(tmp, 'no-vendors')
            os.mkdir(empty)
            code, lines, body = run(out, '--backend', 'opencl',
                                    env=dict(OCL_ICD_VENDORS=empty, OPENCL_VENDOR_PATH=empty))
            text = '\n'.join(lines)
            record('no OpenCL platform: nonzero exit, no output file, says so',
                   code != 0 and body is None and 'OpenCL' in text and 'platform' in text,
                   (code, lines))
            record('no OpenCL platform: no source file named', not SOURCE_REF.search(text), text)
            code, lines, body = run(out, '--backend', 'opencl')
            record('--backend opencl on the device: no message, output == cpu but backends',
                   code == 0 and not lines and body is not None and
                   [l for l in body if '"backends"' not in l and '"opencl"' not in l] ==
                   [l for l in cpu if '"backends"' not in l and '"cpu"' not in l], (code, lines))
        else:
            testlib.missing_device('no OpenCL device: the OpenCL errors are not checked')

    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
