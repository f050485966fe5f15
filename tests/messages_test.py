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
                        --shared ../shared [--cuda yes|no]
"""
import argparse, json, os, re, subprocess, sys, tempfile

import testlib
from testlib import record

SOURCE_REF = re.compile(r'\[[^\]]*\.(c|h|cu|cl):\d+\]|\b[\w/.-]+\.(c|h|cu):\d+')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--fake-cuda', required=True)
    ap.add_argument('--shared', required=True)
    ap.add_argument('--cuda', default='yes')
    a = ap.parse_args()
    fx = os.path.join(a.shared, 'fixtures', 'q_160x90_8b')
    if not os.path.isfile(os.path.join(fx, 'ref.yuv')):
        print('SKIP: %s has no fixtures/q_160x90_8b' % a.shared)
        return 77

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
