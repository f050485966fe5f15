#!/usr/bin/env python3
"""Remake the golden outputs in tests/data with Netflix's vmaf tool, for when
the pinned reference moves: every command of the golden manifest is run again
and its output stored in place of the old one, then tests/data/SHA256SUMS is
rewritten (tests/testdata.py pack). Nothing here builds Netflix's code.

usage: scripts/regen-goldens.py --vmaf PATH --vmaf-ieee PATH --netflix-commit SHA
                                [--variants main,ieee,cpumask255] [--set netflix-v3.2.0]
                                [--jobs N]

--vmaf        Netflix's `vmaf` (libvmaf at the commit, release, -Denable_float=true)
              with one change: the score formats of libvmaf/src/output.c (%.6f and
              %.16f) printed as %.17g, so that each number is the exact double. Makes
              the variants main (the tool as built: on x86 its float ADM divides with
              RCPSS, so these outputs belong to this processor) and cpumask255 (the
              same tool with --cpumask 255: C code only).
--vmaf-ieee   the same build with ADM_OPT_RECIP_DIVISION not defined
              (libvmaf/src/feature/adm_options.h): float ADM divides by the IEEE
              quotient. Makes the variant ieee. Not needed when --variants leaves
              ieee out.
--netflix-commit  the Netflix/vmaf commit both were built from, recorded in the manifest.

The commands, pairs and variants are the manifest's; each file's frame count and
output names are updated from the new output, as are the manifest's commit,
libvmaf version and (when main is remade) this processor's name and SIMD flags.
A file whose outputs did not change keeps its old bytes (the run's fps aside),
so a reference that computes the same numbers leaves nothing to commit. A
command that now fails stops everything before tests/data is touched.

Then: `meson test -C build --suite golden` against the new goldens, and
tests/golden_test.py's rcp gate (the golden host's RCPSS count) if main was
remade on another processor.
"""
import argparse, concurrent.futures, json, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
sys.path.insert(0, os.path.join(ROOT, 'tests'))
import testdata  # noqa: E402

DATA = os.path.join(ROOT, 'tests', 'data')
# The instruction sets whose presence the manifest records (libvmaf's x86
# dispatch reads these), in /proc/cpuinfo's order.
SIMD_FLAGS = ('sse', 'sse2', 'ssse3', 'fma', 'sse4_1', 'sse4_2', 'avx', 'avx2', 'avx512f',
              'avx512dq', 'avx512ifma', 'avx512cd', 'avx512bw', 'avx512vl', 'avx_vnni',
              'avx512_bf16', 'avx512vbmi', 'avx512_vbmi2', 'avx512_vnni', 'avx512_bitalg',
              'avx512_vpopcntdq', 'avx512_vp2intersect')


def cpu_info():
    """The manifest's record of this processor: its model name line and SIMD flags."""
    name, flags = 'unknown', []
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name') and name == 'unknown':
                    name = line.rstrip('\n')
                elif line.startswith('flags') and not flags:
                    flags = [x for x in line.split(':', 1)[1].split() if x in SIMD_FLAGS]
    except OSError:
        pass
    return name, flags


def command(entry, vmaf, data, out):
    """The manifest's argv with the tool, the inputs and the output made absolute."""
    argv, args = entry['argv'], [vmaf]
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ('-r', '-d', '--reference', '--distorted'):
            args += [a, os.path.join(data, argv[i + 1])]
        elif a in ('-o', '--output'):
            args += [a, out]
        else:
            args.append(a)
            i += 1
            continue
        i += 2
    return args


def full_precision(doc):
    """True when some score has more than 6 decimals: the tool prints %.17g,
    not Netflix's shipped %.6f (which would make goldens of rounded numbers)."""
    for fr in doc.get('frames', []):
        for v in fr['metrics'].values():
            if isinstance(v, float) and len(repr(v).split('.')[-1].split('e')[0]) > 6:
                return True
    return False


def without_fps(doc):
    return {k: v for k, v in doc.items() if k != 'fps'}


def run_one(entry, vmaf, data, tmp):
    out = os.path.join(tmp, 'out', entry['file'])
    os.makedirs(os.path.dirname(out), exist_ok=True)
    r = subprocess.run(command(entry, vmaf, data, out), capture_output=True, text=True)
    if r.returncode or not os.path.isfile(out):
        return entry, None, 'exit %d: %s' % (r.returncode, r.stderr.strip()[-300:])
    with open(out, 'rb') as f:
        return entry, f.read(), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--vmaf', required=True)
    ap.add_argument('--vmaf-ieee')
    ap.add_argument('--netflix-commit', required=True)
    ap.add_argument('--variants', default='main,ieee,cpumask255')
    ap.add_argument('--set', default='netflix-v3.2.0')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    variants = set(a.variants.split(','))
    tools = {'main': a.vmaf, 'cpumask255': a.vmaf, 'ieee': a.vmaf_ieee}
    if variants - set(tools):
        ap.error('--variants: unknown %s' % ', '.join(sorted(variants - set(tools))))
    for v in sorted(variants):
        if not tools[v] or not os.access(tools[v], os.X_OK):
            ap.error('variant %s needs %s: %r is not an executable' % (
                v, '--vmaf-ieee' if v == 'ieee' else '--vmaf', tools[v]))
    if not re.fullmatch(r'[0-9a-f]{40}', a.netflix_commit):
        ap.error('--netflix-commit: the full 40-digit commit')

    gpart = 'golden/' + a.set
    with tempfile.TemporaryDirectory(prefix='regen-goldens-') as tmp:
        # The checkout's data, checked: the commands run on exactly these pairs.
        data = os.path.join(tmp, 'data')
        try:
            testdata.unpack_into(DATA, data)
        except testdata.DataError as e:
            print('FAIL: tests/data: %s' % e)
            return 1
        gdir = os.path.join(data, gpart)
        with open(os.path.join(gdir, 'manifest.json')) as f:
            manifest = json.load(f)
        todo = [e for e in manifest['files'] if e['variant'] in variants]
        print('%d of %d golden files to remake (variants %s), %d jobs'
              % (len(todo), len(manifest['files']), ', '.join(sorted(variants)), a.jobs))

        results, failed = {}, []
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            for entry, out, why in pool.map(
                    lambda e: run_one(e, tools[e['variant']], data, tmp), todo):
                if why:
                    failed.append('%s: %s' % (entry['file'], why))
                else:
                    results[entry['file']] = out
        if failed:
            print('FAIL: %d commands failed; tests/data is unchanged:\n  %s'
                  % (len(failed), '\n  '.join(failed)))
            return 1
        docs = {name: json.loads(out) for name, out in results.items()}
        coarse = [name for name, doc in docs.items() if doc.get('frames') and
                  not full_precision(doc)]
        if len(coarse) == len(docs):
            print('FAIL: no output has more than 6 decimals: this vmaf prints Netflix\'s '
                  'shipped formats, not %.17g (see --help); tests/data is unchanged')
            return 1

        changed, versions = [], set()
        for entry in todo:
            name, doc = entry['file'], docs[entry['file']]
            versions.add(doc.get('version'))
            path = os.path.join(gdir, name)
            with open(path, 'rb') as f:
                old = json.load(f)
            if without_fps(old) != without_fps(doc):
                old_frames = {fr['frameNum']: fr['metrics'] for fr in old.get('frames', [])}
                n = sum(1 for fr in doc.get('frames', []) for k, v in fr['metrics'].items()
                        if old_frames.get(fr['frameNum'], {}).get(k, 'missing') != v)
                changed.append('%s (%d per-frame outputs)' % (name, n))
                with open(path, 'wb') as f:
                    f.write(results[name])
            outputs = []
            for fr in doc.get('frames', []):
                outputs += [k for k in fr['metrics'] if k not in outputs]
            entry['n_frames'] = len(doc.get('frames', []))
            if set(outputs) != set(entry['outputs']):
                entry['outputs'] = outputs
            entry['aggregate'] = list(doc.get('aggregate_metrics', {}))

        if len(versions) != 1 or None in versions:
            print('FAIL: the outputs name libvmaf versions %r; tests/data is unchanged'
                  % sorted(map(str, versions)))
            return 1
        manifest['netflix_vmaf_commit'] = a.netflix_commit
        manifest['libvmaf_version'] = versions.pop()
        if 'main' in variants:
            cpu, flags = cpu_info()
            if cpu != manifest.get('cpu'):
                print('NOTE: main/ was made on "%s" before, now on "%s": its float ADM '
                      'outputs follow this processor\'s RCPSS; update the manifest\'s '
                      'rcpss_fingerprint and the rcp gate of tests/golden_test.py (this '
                      'processor\'s count: build/tools/exactvmaf --rcpss-fingerprint)'
                      % (manifest.get('cpu'), cpu))
            manifest['cpu'], manifest['cpu_simd_flags'] = cpu, flags
        with open(os.path.join(gdir, 'manifest.json'), 'w') as f:
            f.write(json.dumps(manifest, indent=1))

        print('%d files remade: %d with other outputs than before%s'
              % (len(todo), len(changed), ''.join('\n  ' + c for c in changed[:40])))
        if len(changed) > 40:
            print('  ... and %d more' % (len(changed) - 40))
        return testdata.pack(data, DATA, [gpart])


if __name__ == '__main__':
    sys.exit(main())
