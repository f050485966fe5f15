#!/usr/bin/env python3
"""The OpenCL program cache (src/gpu/opencl/opencl_cache.h), on the tool.

In a fresh cache folder (EXACTVMAF_CACHE_DIR): the first run builds every
program and stores one file each; the second loads every one of them from
the cache (the debug log says so) and stores nothing; a corrupted, a
truncated and a foreign file are each rebuilt and replaced; another build
option (--opencl-fp64 off) is another key; a folder that cannot be written
and EXACTVMAF_CACHE=0 cost only the build. Every run's scores equal the
first run's and the CPU's bit for bit (--precision max).

Skipped (77) without an OpenCL device.

usage: opencl_cache_test.py --exe build/tools/exactvmaf --data build/test-data
"""
import argparse, json, os, re, subprocess, sys, tempfile

import testlib
from testlib import record


class Run:
    def __init__(self, exe, fx, out, env, *extra):
        argv = [exe, '-r', os.path.join(fx, 'ref.yuv'), '-d', os.path.join(fx, 'dis.yuv'),
                '-w', '160', '-h', '90', '-p', '420', '-b', '8', '--no_prediction',
                '--feature', 'psnr', '--feature', 'float_moment', '--precision', 'max', '-q',
                '--json', '-o', out, '--log-level', 'debug'] + list(extra)
        r = subprocess.run(argv, capture_output=True, text=True, env=env)
        self.code, self.err = r.returncode, r.stderr
        self.loaded = re.findall(r'program (\w+): loaded from the cache', r.stderr)
        self.stored = re.findall(r'program (\w+): cached as', r.stderr)
        self.unusable = re.findall(r'program (\w+): cache file \S+ is not usable \(([^)]*)\)',
                                   r.stderr)
        self.not_cached = re.findall(r'program (\w+): not cached in', r.stderr)
        self.scores = None
        if not r.returncode:
            d = json.load(open(out))
            self.scores = (d['frames'], d['pooled_metrics'], d['aggregate_metrics'])
            self.backends = d['backends']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--data', required=True)
    a = ap.parse_args()
    listing = subprocess.run([a.exe, '--list-devices'], capture_output=True, text=True).stdout
    if not any(l.startswith('opencl ') for l in listing.splitlines()):
        return testlib.no_device('no OpenCL device')
    fx = os.path.join(a.data, 'fixtures', 'q_160x90_8b')
    if not os.path.isfile(os.path.join(fx, 'ref.yuv')):
        print('FAIL: %s has no fixtures/q_160x90_8b (the build unpacks tests/data there)'
              % a.data)
        return 1

    with tempfile.TemporaryDirectory(prefix='clcache-') as tmp:
        cache = os.path.join(tmp, 'cache')
        files = lambda: sorted(f for f in os.listdir(os.path.join(cache, 'opencl'))
                               if f.endswith('.clbin')) \
            if os.path.isdir(os.path.join(cache, 'opencl')) else []
        env = dict(os.environ, EXACTVMAF_CACHE_DIR=cache)
        env.pop('EXACTVMAF_CACHE', None)
        out = os.path.join(tmp, 'out.json')
        cpu = Run(a.exe, fx, out, env, '--backend', 'cpu')

        first = Run(a.exe, fx, out, env, '--backend', 'opencl')
        made = files()
        record('first run: every program built and stored, one file each',
               first.code == 0 and first.stored and not first.loaded and
               len(made) == len(first.stored) == len(set(first.stored)),
               (first.code, first.stored, first.loaded, made, first.err))
        record('first run on OpenCL == CPU, bit for bit',
               first.scores is not None and first.scores == cpu.scores and
               'opencl' in first.backends.values() and cpu.scores is not None,
               first.backends if first.scores else first.err)

        second = Run(a.exe, fx, out, env, '--backend', 'opencl')
        record('second run: every program loaded from the cache, nothing stored',
               second.code == 0 and sorted(second.loaded) == sorted(first.stored) and
               not second.stored and files() == made,
               (second.loaded, second.stored, files(), second.err))
        record('second run == first run, bit for bit', second.scores == first.scores)

        # Damage: a flipped byte in the binary, a cut file, another file's content.
        paths = [os.path.join(cache, 'opencl', f) for f in made]
        blob = open(paths[0], 'rb').read()
        kinds = [('a flipped byte', blob[:-100] + bytes([blob[-100] ^ 1]) + blob[-99:]),
                 ('a truncated file', blob[:len(blob) // 2]),
                 ('a file of another key', open(paths[-1], 'rb').read() if len(paths) > 1
                  else b'exactvmaf-opencl-cache 1\n\x05\x00\x00\x00other'),
                 ('garbage', b'not a cache file at all')]
        for what, data in kinds:
            with open(paths[0], 'wb') as f:
                f.write(data)
            r = Run(a.exe, fx, out, env, '--backend', 'opencl')
            record('%s: that program rebuilt and stored again, the others loaded' % what,
                   r.code == 0 and len(r.unusable) == 1 and r.stored == [r.unusable[0][0]] and
                   len(r.loaded) == len(made) - 1 and open(paths[0], 'rb').read() == blob,
                   (r.unusable, r.stored, r.loaded, r.err))
            record('%s: scores unchanged' % what, r.scores == first.scores)

        # Another build option is another key: new files, nothing loaded.
        off = Run(a.exe, fx, out, env, '--backend', 'opencl', '--opencl-fp64', 'off')
        now = files()
        record('--opencl-fp64 off: other keys (stored anew, nothing loaded)',
               off.code == 0 and not off.loaded and len(off.stored) == len(made) and
               set(made) <= set(now) and len(now) == 2 * len(made),
               (off.loaded, off.stored, now, off.err))
        record('--opencl-fp64 off: scores unchanged', off.scores == first.scores)

        # A cache that cannot be written (its folder is a file) costs only the build.
        blocked = os.path.join(tmp, 'blocked')
        open(blocked, 'w').close()
        r = Run(a.exe, fx, out, dict(env, EXACTVMAF_CACHE_DIR=blocked), '--backend', 'opencl')
        record('unwritable cache: the run succeeds, the programs are built, none stored',
               r.code == 0 and not r.loaded and not r.stored and
               len(r.not_cached) == len(made) and 'error' not in r.err,
               (r.code, r.not_cached, r.err))
        record('unwritable cache: scores unchanged', r.scores == first.scores)

        # Off: nothing read, nothing written.
        r = Run(a.exe, fx, out, dict(env, EXACTVMAF_CACHE='0'), '--backend', 'opencl')
        record('EXACTVMAF_CACHE=0: nothing loaded or stored',
               r.code == 0 and not r.loaded and not r.stored and not r.not_cached and
               files() == now, (r.loaded, r.stored, r.err))
        record('EXACTVMAF_CACHE=0: scores unchanged', r.scores == first.scores)

        # No stray temporary files were left.
        left = [f for f in os.listdir(os.path.join(cache, 'opencl')) if not f.endswith('.clbin')]
        record('no temporary files left in the cache', not left, left)

    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
