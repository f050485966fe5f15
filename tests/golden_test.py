#!/usr/bin/env python3
"""Run exactvmaf on the Netflix golden cases and compare every per-frame output
as a 64-bit pattern (tolerance 0).

usage: golden_test.py --exe EXACTVMAF --data DATA_DIR --set SET
                      [--backend cpu|cuda|opencl|auto] [--opencl-fp64 auto|on|off]
                      [--may-decline EXTRACTOR,...]

Sets:
  float-features  features_float, ieee variant: the float_adm/float_vif/float_motion outputs
  float-adm-opts  every float_adm_<option set>, ieee variant
  float-models    model_vmaf_float_*, ieee variant (every output, vmaf included)
  rcp             the shipped (RCPSS) variant of the three sets above with --division rcp;
                  skipped, saying why, unless this processor's RCPSS fingerprint equals
                  the golden host's
  (the other sets are named in SETS below)
With --backend cuda or opencl every extractor of every run must have run on that
backend, except those --may-decline names. A set with `mismatch` (integer-models-18x22)
passes only when each of its files differs from the golden in some of those outputs
and in no other: its documented mismatch, nothing else (a crash fails it).
In a cross build meson's MESON_EXE_WRAPPER (e.g. qemu-aarch64 -L SYSROOT) runs the tool.
EXACTVMAF_GOLDEN_KEEP=DIR keeps every output JSON (--precision max) in DIR/SET/.
DATA_DIR is tests/data unpacked (the build's test-data/: fixtures/ and golden/).
Exit: 0 all identical (or only the documented mismatch), 1 any other difference or
failure (the data missing too), 77 skipped (rcp on another processor, or no device of
the backend asked for).
"""
import argparse, json, math, os, re, shlex, shutil, struct, subprocess, sys, tempfile

import testlib

# Each set: which golden files (config prefix, variant), which --feature
# extractors of their command lines run (others are dropped: a features_* file
# lists several metrics, each compared by its own set), and which outputs are
# compared (None: every output). `refusals`: pairs that Netflix refused for the
# set's configs (no golden file) must be refused by us too.
FLOAT = ('float_adm', 'float_vif', 'float_motion')
SETS = {
    'float-features': dict(configs=('features_float',), variant='ieee', extractors=FLOAT,
                           outputs=('adm', 'aim', 'vif', 'motion')),
    'float-adm-opts': dict(configs=('float_adm_',), variant='ieee', extractors=FLOAT, outputs=None),
    'float-models': dict(configs=('model_vmaf_float_',), variant='ieee', extractors=(), outputs=None),
    'integer-adm': dict(configs=('features_integer',), variant='cpumask255', extractors=('adm',),
                        outputs=('integer_adm', 'integer_aim')),
    'integer-vif': dict(configs=('features_integer',), variant='cpumask255', extractors=('vif',),
                        outputs=('integer_vif',)),
    'integer-motion': dict(configs=('features_integer',), variant='cpumask255', extractors=('motion',),
                           outputs=('integer_motion', 'VMAF_integer_feature_motion')),
    'cambi': dict(configs=('features_integer',), variant='cpumask255', extractors=('cambi',),
                  outputs=('cambi',)),
    'psnr-hvs': dict(configs=('features_integer',), variant='cpumask255', extractors=('psnr_hvs',),
                     outputs=('psnr_hvs',)),
    'ssim': dict(configs=('features_float',), variant='cpumask255',
                 extractors=('float_ssim', 'float_ms_ssim'), outputs=('float_ssim', 'float_ms_ssim')),
    'psnr': dict(configs=('features_float',), variant='cpumask255', extractors=('float_psnr', 'psnr'),
                 outputs=('float_psnr', 'psnr_y', 'psnr_cb', 'psnr_cr')),
    'ciede-moment': dict(configs=('features_float',), variant='cpumask255',
                         extractors=('ciede', 'float_moment'), outputs=('ciede', 'float_moment')),
    'speed': dict(configs=('features_speed',), variant='cpumask255',
                  extractors=('speed_chroma', 'speed_temporal'), outputs=('speed',), refusals=True),
    'integer-models': dict(configs=('model_vmaf_v0.6.1', 'model_vmaf_4k_v0.6.1', 'model_vmaf_b_v0.6.3'),
                           variant='cpumask255', extractors=(), outputs=None,
                           exclude_pairs=('akiyo_hacking_18x22_8b',)),
    # At 18x22 Netflix's integer ADM reads one row and one element outside its
    # scale-3 buffers; in a model run those hold other extractors' leftovers, so
    # the golden depends on Netflix's heap. Kept apart: scale 3 and what is made
    # from it (adm2, adm3, aim, the model scores) must differ there, and only they.
    'integer-models-18x22': dict(configs=('model_vmaf_v0.6.1', 'model_vmaf_4k_v0.6.1',
                                          'model_vmaf_b_v0.6.3'),
                                 variant='cpumask255', extractors=(), outputs=None,
                                 pairs=('akiyo_hacking_18x22_8b',),
                                 mismatch=r'(integer_adm_scale3|integer_adm2|integer_adm3|'
                                          r'integer_aim|vmaf)(_.*)?'),
    'v1-models': dict(configs=('model_vmaf_v1.0.16',), variant='cpumask255', extractors=(),
                      outputs=None, refusals=True),
}


def bits(x):
    return None if x is None else struct.pack('<d', float(x))


def config_matches(config, prefixes):
    return any(config == p or (p.endswith('_') and config.startswith(p))
               or (p.startswith('model_') and config.startswith(p))
               or (p == 'features_integer' and config == 'features_integer_debug')
               for p in prefixes)


def set_files(manifest, name):
    if name == 'rcp':
        # The shipped (RCPSS) variant of the float sets.
        return [f for f in manifest['files'] if f['variant'] == 'main' and (
            config_matches(f['config'], SETS['float-features']['configs'])
            or config_matches(f['config'], SETS['float-adm-opts']['configs'])
            or config_matches(f['config'], SETS['float-models']['configs']))]
    st = SETS[name]
    return [f for f in manifest['files']
            if f['variant'] == st['variant'] and config_matches(f['config'], st['configs'])
            and f['pair'] not in st.get('exclude_pairs', ())
            and ('pairs' not in st or f['pair'] in st['pairs'])]


def set_of(name):
    if name == 'rcp':
        return dict(extractors=FLOAT, outputs=None)
    return SETS[name]


def translate_argv(argv, exe, data, out_path, division, extractors):
    """Netflix's argv -> ours: fixtures from the data folder, output to out_path,
    full precision, and only the extractors of this set. exe: the command
    that runs the tool (a list)."""
    args = list(exe)
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ('-r', '-d', '--reference', '--distorted'):
            args += [a, os.path.join(data, argv[i + 1])]
            i += 2
            continue
        if a in ('-o', '--output'):
            args += [a, out_path]
            i += 2
            continue
        if a == '--feature':
            if argv[i + 1].split('=')[0] in extractors:
                args += [a, argv[i + 1]]
            i += 2
            continue
        args.append(a)
        i += 1
    return args + ['--precision', 'max', '--division', division]


def compare(golden, cand, only_prefixes):
    cf = {fr['frameNum']: fr['metrics'] for fr in cand.get('frames', [])}
    tot = same = 0
    bad = []
    for fr in golden['frames']:
        cm = cf.get(fr['frameNum'], {})
        for k, v in fr['metrics'].items():
            if only_prefixes and not k.startswith(only_prefixes):
                continue
            tot += 1
            w = cm.get(k, 'MISSING')
            if w != 'MISSING' and bits(v) == bits(w):
                same += 1
            else:
                d = abs(v - w) if isinstance(v, (int, float)) and isinstance(w, (int, float)) else math.inf
                bad.append((d, fr['frameNum'], k, v, w))
    # Pooled values (mean, min, max, harmonic mean) are outputs too.
    cp = cand.get('pooled_metrics', {})
    for k, pooled in golden.get('pooled_metrics', {}).items():
        if only_prefixes and not k.startswith(only_prefixes):
            continue
        for m, v in pooled.items():
            tot += 1
            w = cp.get(k, {}).get(m, 'MISSING')
            if w != 'MISSING' and bits(v) == bits(w):
                same += 1
            else:
                d = abs(v - w) if isinstance(v, (int, float)) and isinstance(w, (int, float)) else math.inf
                bad.append((d, 'pooled ' + m, k, v, w))
    bad.sort(key=lambda b: -b[0])
    return same, tot, bad


def check_refusals(a, manifest, files, tmp):
    """Pairs with no golden file for a config were refused by Netflix: we must
    refuse them too (non-zero exit, a message, no output file)."""
    fixtures = {f['name']: f for f in json.load(open(os.path.join(a.data, 'fixtures', 'fixtures.json')))}
    pairs = sorted({f['pair'] for f in manifest['files']})
    bad = []
    for config in sorted({f['config'] for f in files}):
        template = next(f for f in files if f['config'] == config)
        have = {f['pair'] for f in files if f['config'] == config}
        for pair in pairs:
            if pair in have or pair not in fixtures:
                continue
            fx = fixtures[pair]
            argv = list(template['argv'])
            geometry = {'-r': 'fixtures/%s/%s' % (pair, fx['ref']),
                        '-d': 'fixtures/%s/%s' % (pair, fx.get('dis') or fx['ref']),
                        '-w': str(fx['width']), '-h': str(fx['height']),
                        '-p': fx['pix_fmt'][3:6], '-b': str(fx['bitdepth'])}
            for i, x in enumerate(argv[:-1]):
                if x in geometry:
                    argv[i + 1] = geometry[x]
            out = os.path.join(tmp, 'refused.json')
            if os.path.exists(out):
                os.remove(out)
            argv = translate_argv(argv, a.exe, a.data, out, 'ieee', set_of(a.set)['extractors'])
            if a.backend:
                argv += ['--backend', a.backend]
            if a.opencl_fp64:
                argv += ['--opencl-fp64', a.opencl_fp64]
            r = subprocess.run(argv, capture_output=True, text=True)
            ok = r.returncode != 0 and r.stderr.strip() and not os.path.exists(out)
            print('%-60s %s' % ('%s/%s (no golden: Netflix refused)' % (pair, config),
                                'refused: ' + r.stderr.strip().splitlines()[-1][:80] if ok
                                else 'NOT refused (exit %d)' % r.returncode))
            if not ok:
                bad.append(pair + '/' + config)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--data', required=True, help='the unpacked test data (build/test-data)')
    ap.add_argument('--set', required=True)
    ap.add_argument('--backend', help='cpu, cuda, opencl or auto (the CLI\'s default, auto, '
                    'when absent)')
    ap.add_argument('--opencl-fp64', choices=['auto', 'on', 'off'],
                    help='with --backend opencl: the fp64 mode')
    ap.add_argument('--may-decline', default='',
                    help='with a GPU backend: the extractors (comma-separated) that may run '
                    'on the CPU; every other one must run on the backend')
    a = ap.parse_args()
    may_decline = set(filter(None, a.may_decline.split(',')))
    a.exe = shlex.split(os.environ.get('MESON_EXE_WRAPPER', '')) + [os.path.abspath(a.exe)]
    keep = os.environ.get('EXACTVMAF_GOLDEN_KEEP')

    gdir = os.path.join(a.data, 'golden', 'netflix-v3.2.0')
    if not os.path.isfile(os.path.join(gdir, 'manifest.json')) or \
            not os.path.isdir(os.path.join(a.data, 'fixtures')):
        # The build unpacks them: their absence is a broken build, not a machine
        # that lacks something.
        print('FAIL: %s has no golden/netflix-v3.2.0/manifest.json or fixtures/ (the build '
              'unpacks tests/data there: meson compile -C BUILD test-data)' % a.data)
        return 1
    manifest = json.load(open(os.path.join(gdir, 'manifest.json')))
    if a.backend in ('cuda', 'opencl'):
        # A GPU backend needs a device of its kind.
        listing = subprocess.run(a.exe + ['--list-devices'], capture_output=True, text=True)
        if not any(l.startswith(a.backend + ' ') for l in listing.stdout.splitlines()):
            return testlib.no_device('no %s device here: %s' % (a.backend, ' '.join(
                l for l in listing.stdout.splitlines() if l.startswith(a.backend + ':'))))

    division = 'ieee'
    if a.set == 'rcp':
        # The golden host's documented signature (docs/numerics.md section 10): how many
        # refined reciprocals over [1,2) differ from IEEE. The documented FNV
        # fingerprint's hashing convention is not reproducible from its description,
        # so the count is the gate; a host with the same count but another table
        # would make this test fail loudly, not pass silently.
        golden_count = 2562503
        run = subprocess.run(a.exe + ['--rcpss-fingerprint'], capture_output=True, text=True)
        probe = run.stdout.split()
        got = int(probe[1]) if len(probe) == 2 else None
        if got is None:
            # Not an x86 processor (AArch64 under qemu in CI): nothing to reproduce.
            print('SKIP: %s: the shipped (RCPSS) goldens need an x86 processor\'s RCPSS; the '
                  'ieee sets cover the same outputs with IEEE division'
                  % (run.stderr.strip() or 'no RCPSS fingerprint (exit %d)' % run.returncode))
            return 77
        if got != golden_count:
            print('SKIP: this processor has %s refined RCPSS reciprocals != IEEE over [1,2), '
                  'the golden host (AMD Zen 5) %d: the shipped (RCPSS) goldens do not apply '
                  'here; the ieee sets cover the same outputs with IEEE division'
                  % (got, golden_count))
            return 77
        print('RCPSS signature %s matches the golden host: comparing the shipped goldens '
              'with --division rcp' % ' '.join(probe))
        division = 'rcp'

    files = set_files(manifest, a.set)
    if not files:
        print('FAIL: no golden files for set', a.set)
        return 1
    mismatch = set_of(a.set).get('mismatch')
    all_same = all_tot = 0
    failed = []
    # Extractors per run on the backend asked for, and those left on the CPU.
    on_backend = runs_total = 0
    on_cpu = set()
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            out = os.path.join(tmp, 'out.json')
            if os.path.exists(out):
                os.remove(out)
            st = set_of(a.set)
            argv = translate_argv(f['argv'], a.exe, a.data, out, division, st['extractors'])
            if a.backend:
                argv += ['--backend', a.backend]
            if a.opencl_fp64:
                argv += ['--opencl-fp64', a.opencl_fp64]
            if '--no_prediction' in argv and '--feature' not in argv:
                # None of this set's metrics is in that file's command (Netflix
                # dropped them for that input): nothing to compare.
                print('%-60s none of this set\'s metrics in its command: not compared' % f['file'])
                continue
            r = subprocess.run(argv, capture_output=True, text=True)
            golden = json.load(open(os.path.join(gdir, f['file'])))
            only = st['outputs']
            if a.set == 'rcp' and f['config'] == 'features_float':
                only = SETS['float-features']['outputs']
            if r.returncode != 0 or not os.path.exists(out):
                n = compare(golden, {}, only)[1]
                all_tot += n
                failed.append(f['file'])
                print('%-60s exit %d: %s' % (f['file'], r.returncode, r.stderr.strip()[-300:]))
                continue
            result = json.load(open(out))
            if keep:
                # Every output kept, named by set and golden file, for a byte-for-byte
                # comparison of two builds (scripts/run-windows-tests.sh).
                os.makedirs(os.path.join(keep, a.set), exist_ok=True)
                shutil.copyfile(out, os.path.join(keep, a.set, f['file'].replace('/', '__')))
            if a.backend in ('cuda', 'opencl'):
                for name, be in result.get('backends', {}).items():
                    runs_total += 1
                    if be == a.backend:
                        on_backend += 1
                    else:
                        on_cpu.add(name)
            same, tot, bad = compare(golden, result, only)
            all_same += same
            all_tot += tot
            if mismatch:
                # The documented mismatch: some of those outputs differ, no other.
                other = [b for b in bad if not re.fullmatch(mismatch, b[2])]
                print('%-60s %d/%d identical, %d differ as documented, %d otherwise'
                      % (f['file'], same, tot, len(bad) - len(other), len(other)))
                if other or not bad:
                    failed.append(f['file'])
                if not bad:
                    print('    no output differs: the documented mismatch is gone '
                          '(update the set)')
                bad = other
            else:
                print('%-60s %d/%d identical' % (f['file'], same, tot))
                if same != tot:
                    failed.append(f['file'])
            for d, n, k, v, w in bad[:5]:
                print('    frame %s %s: golden %r, got %r' % (n, k, v, w))
        if set_of(a.set).get('refusals'):
            failed += check_refusals(a, manifest, files, tmp)
    print('set %s (%s division): %d/%d outputs bit-identical over %d files; %d files %s'
          % (a.set, division, all_same, all_tot, len(files), len(failed),
             'fail' if mismatch else 'differ'))
    gpu_ok = True
    if a.backend in ('cuda', 'opencl'):
        print('extractors on %s: %d of %d over the runs%s' % (
            a.backend, on_backend, runs_total,
            '; on the CPU: ' + ', '.join(sorted(on_cpu)) if on_cpu else ''))
        declined = on_cpu - may_decline
        if declined or not runs_total:
            gpu_ok = False
            print('FAIL: %s' % ('on the CPU, not %s: %s (allowed to decline: %s)' % (
                a.backend, ', '.join(sorted(declined)), ', '.join(sorted(may_decline)) or 'none')
                if declined else 'no run reported its extractors\' backends'))
    return 0 if not failed and all_tot and gpu_ok else 1


if __name__ == '__main__':
    sys.exit(main())
