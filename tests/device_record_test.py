#!/usr/bin/env python3
"""The outputs name the device that computed each metric.

On an OpenCL device (PoCL in CI): the JSON's "devices", the XML's
<backends><extractor><device>, and exactvmaf.score()'s Result.devices (from
files through the tool, and from numpy frames through the library) give,
for every metric computed there, the backend, the device's name, "P:D"
index, platform and driver exactly as --list-devices prints them, and the
fp64 mode the kernels were built in (native; emulated under --opencl-fp64
off). A CPU run says cpu for every metric, and the "backends" field is
unchanged beside the records.

Skipped (77) without an OpenCL device.

usage: device_record_test.py --exe build/tools/exactvmaf --lib build/src/libexactvmaf.so
                             --package python/ --data build/test-data
"""
import argparse, json, os, re, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

import testlib
from testlib import record


def listed_opencl(exe):
    """--list-devices' OpenCL lines: {"P:D": {name, platform, driver, fp64}}."""
    out = subprocess.run([exe, '--list-devices'], capture_output=True, text=True).stdout
    dev = {}
    for l in out.splitlines():
        # "opencl P:D (N): name, platform, version, driver D, fp64 yes|no, X MiB"; names
        # may hold commas, the last four fields do not.
        m = re.match(r'opencl (\d+:\d+) \(\d+\): (.*), driver (.*), fp64 (yes|no), \d+ MiB$', l)
        if not m:
            continue
        head = m.group(2).rsplit(', ', 2)
        dev[m.group(1)] = {'name': head[0], 'platform': head[1], 'driver': m.group(3),
                           'fp64': m.group(4)}
    return dev


def run(exe, fx, out, fmt, *extra):
    argv = [exe, '-r', os.path.join(fx, 'ref.yuv'), '-d', os.path.join(fx, 'dis.yuv'),
            '-w', '160', '-h', '90', '-p', '420', '-b', '8', '--no_prediction', '--feature',
            'psnr', '--feature', 'float_ssim', '-q', '-o', out] + \
        (['--json'] if fmt == 'json' else [])
    return subprocess.run(argv + list(extra), capture_output=True, text=True)


def expect(listed, index, fp64):
    e = dict(listed[index], backend='opencl', index=index, fp64=fp64)
    return e


def check_records(name, devices, backends, want):
    """Every metric's records: one, equal to `want` (a dict) when its backend is GPU."""
    bad = []
    for ext, be in backends.items():
        recs = devices.get(ext)
        if be == 'cpu':
            if recs != [{'backend': 'cpu'}]:
                bad.append((ext, recs))
        elif recs != [want]:
            bad.append((ext, recs))
    gpu = [e for e, b in backends.items() if b != 'cpu']
    record(name, not bad and set(devices) == set(backends) and len(gpu) > 0,
           'bad: %r; metrics %r' % (bad, backends))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--lib', required=True)
    ap.add_argument('--package', required=True)
    ap.add_argument('--data', required=True)
    a = ap.parse_args()

    listed = listed_opencl(a.exe)
    if '0:0' not in listed:
        return testlib.no_device('no OpenCL device 0:0 listed')
    fx = os.path.join(a.data, 'fixtures', 'q_160x90_8b')
    if not os.path.isfile(os.path.join(fx, 'ref.yuv')):
        print('FAIL: %s has no fixtures/q_160x90_8b (the build unpacks tests/data there)'
              % a.data)
        return 1
    with tempfile.TemporaryDirectory(prefix='devrec-') as tmp:
        # The runs' OpenCL programs are cached here, not in the user's cache.
        os.environ['EXACTVMAF_CACHE_DIR'] = os.path.join(tmp, 'cache')
        p = lambda n: os.path.join(tmp, n)
        r = run(a.exe, fx, p('cpu.json'), 'json', '--backend', 'cpu')
        if r.returncode:
            record('cpu run', False, r.stderr)
            return 1
        d = json.load(open(p('cpu.json')))
        record('cpu run: every metric says cpu, backends unchanged',
               r.returncode == 0 and d['devices'] == {k: [{'backend': 'cpu'}]
                                                      for k in d['backends']} and
               set(d['backends'].values()) == {'cpu'} and 'psnr' in d['backends'],
               (r.returncode, r.stderr, d.get('backends'), d.get('devices')))

        for fp64, mode in (('auto', 'native' if listed['0:0']['fp64'] == 'yes' else 'emulated'),
                           ('off', 'emulated')):
            want = dict(backend='opencl', name=listed['0:0']['name'], index='0:0',
                        platform=listed['0:0']['platform'], driver=listed['0:0']['driver'],
                        fp64=mode)
            r = run(a.exe, fx, p('cl.json'), 'json', '--opencl-device', '0:0',
                    '--opencl-fp64', fp64)
            if r.returncode:
                record('opencl run (fp64 %s)' % fp64, False, r.stderr)
                continue
            d = json.load(open(p('cl.json')))
            record('name non-empty and as --list-devices prints it', bool(want['name']), want)
            check_records('JSON devices, fp64 %s: %s' % (fp64, mode), d['devices'],
                          d['backends'], want)
            record('JSON backends still name the backend (fp64 %s)' % fp64,
                   d['backends'].get('psnr') == 'opencl', d['backends'])

            r = run(a.exe, fx, p('cl.xml'), 'xml', '--opencl-device', '0:0',
                    '--opencl-fp64', fp64)
            root = ET.parse(p('cl.xml')).getroot()
            backends = {e.get('name'): e.get('backend') for e in root.iter('extractor')}
            devices = {e.get('name'): [dict(x.attrib) for x in e.iter('device')]
                       for e in root.iter('extractor')}
            check_records('XML devices, fp64 %s: %s' % (fp64, mode), devices, backends, want)
            record('XML and JSON agree on the backends (fp64 %s)' % fp64,
                   backends == d['backends'], (backends, d['backends']))

        # The Python package: from files (through the tool) and from frames (the
        # library). Its calls name no device: they get the default one (the first
        # GPU, else 0:0; NVIDIA's 1:0 beside PoCL's 0:0, say), which a run of the
        # tool naming none records, itself one of the listed devices.
        r = run(a.exe, fx, p('default.json'), 'json', '--backend', 'opencl')
        d = json.load(open(p('default.json'))) if not r.returncode else {}
        recs = d.get('devices', {}).get('psnr') or [{}]
        dflt = recs[0].get('index')
        record('the default OpenCL device is a listed one', dflt in listed,
               (r.returncode, r.stderr[-300:], recs))
        if dflt not in listed:
            return testlib.finish()
        want = dict(backend='opencl', name=listed[dflt]['name'], index=dflt,
                    platform=listed[dflt]['platform'], driver=listed[dflt]['driver'],
                    fp64='native' if listed[dflt]['fp64'] == 'yes' else 'emulated')
        check_records('JSON devices of the default device', d['devices'], d['backends'], want)
        env = dict(os.environ, EXACTVMAF_LIBRARY=os.path.abspath(a.lib),
                   EXACTVMAF_CLI=os.path.abspath(a.exe))
        code = r'''
import json, sys
import exactvmaf
fx = sys.argv[1]
w, h, n = 160, 90, 3
size = w * h * 3 // 2
def y4m(src, dst):
    data = open(src, 'rb').read()
    with open(dst, 'wb') as f:
        f.write(b'YUV4MPEG2 W160 H90 F25:1 Ip A1:1 C420jpeg\n')
        for i in range(len(data) // size):
            f.write(b'FRAME\n' + data[i * size:(i + 1) * size])
y4m(fx + '/ref.yuv', 'ref.y4m')
y4m(fx + '/dis.yuv', 'dis.y4m')
out = {}
r = exactvmaf.score('ref.y4m', 'dis.y4m', model=(), features=['psnr'], backend='opencl')
out['files'] = [r.backends, r.devices]
try:
    import numpy as np
except ImportError:
    np = None
if np is not None:
    def frames(path):
        data = np.fromfile(path, dtype=np.uint8)
        fr = []
        for i in range(len(data) // size):
            f = data[i * size:(i + 1) * size]
            fr.append((f[:w * h].reshape(h, w), f[w * h:w * h * 5 // 4].reshape(h // 2, w // 2),
                       f[w * h * 5 // 4:].reshape(h // 2, w // 2)))
        return fr
    r = exactvmaf.score(frames(fx + '/ref.yuv'), frames(fx + '/dis.yuv'), model=(),
                        features=['psnr'], backend='opencl')
    out['frames'] = [r.backends, r.devices]
    r = exactvmaf.score(frames(fx + '/ref.yuv'), frames(fx + '/dis.yuv'), model=(),
                        features=['psnr'], backend='cpu')
    out['frames_cpu'] = [r.backends, r.devices]
print(json.dumps(out))
'''
        r = subprocess.run([sys.executable, '-c', code, os.path.abspath(fx)], cwd=tmp, env=dict(
            env, PYTHONPATH=os.path.abspath(a.package)), capture_output=True, text=True)
        try:
            out = json.loads(r.stdout)
        except ValueError:
            record('python package runs', False, r.stderr)
            out = {}
        for path in ('files', 'frames'):
            if path not in out:
                if path == 'frames' and 'files' in out:
                    print('numpy is missing here: the frames path was not checked')
                else:
                    record('Python Result.devices through %s' % path, False, 'no result')
                continue
            check_records('Python Result.devices through %s' % path, out[path][1],
                          out[path][0], want)
        if 'frames_cpu' in out:
            be, dev = out['frames_cpu']
            record('Python Result.devices of a CPU run say cpu',
                   dev == {k: [{'backend': 'cpu'}] for k in be} and len(be) > 0, dev)

    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
