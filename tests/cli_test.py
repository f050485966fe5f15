#!/usr/bin/env python3
"""CLI behaviour: the sample run, every output format, and bad input rejected with a
clear message, a non-zero exit and no output file."""
import argparse, csv, json, os, shlex, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, '..', 'samples')
REF = os.path.join(SAMPLES, 'ref.y4m')
DIS = os.path.join(SAMPLES, 'dis.y4m')

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print('FAIL:', what)


# In a cross build meson's MESON_EXE_WRAPPER (wine, qemu) runs the tool.
WRAPPER = shlex.split(os.environ.get('MESON_EXE_WRAPPER', ''))


def run(exe, *args):
    return subprocess.run(WRAPPER + [exe] + list(args), capture_output=True, text=True,
                          timeout=120)


def expect_error(exe, tmp, what, args, needle):
    out = os.path.join(tmp, 'err_out.json')
    if os.path.exists(out):
        os.remove(out)
    r = run(exe, *args, '--json', '-o', out)
    check(r.returncode != 0, '%s: exit status %d, expected non-zero' % (what, r.returncode))
    check(needle.lower() in r.stderr.lower(),
          '%s: stderr should mention %r, got %r' % (what, needle, r.stderr.strip()[-300:]))
    check(not os.path.exists(out), '%s: left an output file' % what)
    check('Segmentation' not in r.stderr and r.returncode > 0, '%s: crashed' % what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    a = ap.parse_args()
    exe = os.path.abspath(a.exe)
    with tempfile.TemporaryDirectory() as tmp:
        # The sample run prints a score.
        r = run(exe, '-r', REF, '-d', DIS, '--model', 'version=vmaf_float_v0.6.1', '-q')
        check(r.returncode == 0, 'sample run exit %d: %s' % (r.returncode, r.stderr))
        check('vmaf score' in r.stdout.lower(), 'sample run prints the VMAF score: %r' % r.stdout)

        # Every format, full precision.
        base = ['-r', REF, '-d', DIS, '--model', 'version=vmaf_float_v0.6.1', '-q',
                '--precision', 'max']
        paths = {}
        for fmt in ('json', 'xml', 'csv', 'sub'):
            p = os.path.join(tmp, 'out.' + fmt)
            r = run(exe, *base, '--' + fmt, '-o', p)
            check(r.returncode == 0 and os.path.exists(p), '%s output: %s' % (fmt, r.stderr))
            paths[fmt] = p
        doc = json.load(open(paths['json']))
        check(len(doc['frames']) == 12, 'json has 12 frames')
        vm = [fr['metrics']['vmaf'] for fr in doc['frames']]
        check(all(0 <= v <= 100 for v in vm), 'vmaf within [0, 100]')
        check('vmaf' in doc['pooled_metrics'], 'json pooled vmaf')
        root = ET.parse(paths['xml']).getroot()
        frames = root.findall('.//frame')
        check(len(frames) == 12, 'xml has 12 frames')
        check(float(frames[3].get('vmaf')) == vm[3], 'xml vmaf equals json vmaf at full precision')
        rows = list(csv.DictReader(open(paths['csv'])))
        check(len(rows) == 12 and float(rows[5]['vmaf']) == vm[5], 'csv rows and vmaf')

        # --threads does not change a bit.
        p2 = os.path.join(tmp, 't2.json')
        r = run(exe, *base, '--threads', '2', '--json', '-o', p2)
        check(r.returncode == 0 and json.load(open(p2))['frames'] == doc['frames'],
              '--threads 2 equals --threads 0')

        # Bad input and options.
        expect_error(exe, tmp, 'unknown flag', ['-r', REF, '-d', DIS, '--no_such_flag'], 'no_such_flag')
        expect_error(exe, tmp, 'missing file', ['-r', os.path.join(tmp, 'nope.y4m'), '-d', DIS,
                                                '--no_prediction', '--feature', 'float_vif'], 'nope.y4m')
        expect_error(exe, tmp, 'unknown feature', ['-r', REF, '-d', DIS, '--no_prediction',
                                                   '--feature', 'no_such_metric'], 'no_such_metric')
        expect_error(exe, tmp, 'unknown option', ['-r', REF, '-d', DIS, '--no_prediction',
                                                  '--feature', 'float_adm=no_such_opt=1'], 'no_such_opt')
        expect_error(exe, tmp, 'out of range', ['-r', REF, '-d', DIS, '--no_prediction',
                                                '--feature', 'float_adm=adm_enhn_gain_limit=0.5'],
                     'adm_enhn_gain_limit')
        expect_error(exe, tmp, 'non-numeric', ['-r', REF, '-d', DIS, '--no_prediction',
                                               '--feature', 'float_vif=vif_sigma_nsq=two'], 'vif_sigma_nsq')
        expect_error(exe, tmp, 'unknown model', ['-r', REF, '-d', DIS, '--model', 'version=no_such_model'],
                     'no_such_model')
        # a model whose feature no extractor provides: the error names it
        model = json.load(open(os.path.join(HERE, '..', 'models', 'vmaf_float_v0.6.1.json')))
        model['model_dict']['feature_names'][0] = 'VMAF_feature_no_such_feature_score'
        mpath = os.path.join(tmp, 'odd_model.json')
        json.dump(model, open(mpath, 'w'))
        expect_error(exe, tmp, 'model needing an unknown feature',
                     ['-r', REF, '-d', DIS, '--model', 'path=' + mpath], 'no_such_feature')

        # raw yuv: partial trailing frame
        raw = os.path.join(tmp, 'partial.yuv')
        with open(raw, 'wb') as f:
            f.write(bytes(64 * 64 * 3 // 2 * 2 + 100))
        expect_error(exe, tmp, 'partial raw frame', ['-r', raw, '-d', raw, '-w', '64', '-h', '64',
                                                     '-p', '420', '-b', '8', '--no_prediction',
                                                     '--feature', 'float_vif'], 'partial')
        # frames below a metric's minimum
        tiny = os.path.join(tmp, 'tiny.yuv')
        with open(tiny, 'wb') as f:
            f.write(bytes(range(96)))
        expect_error(exe, tmp, '8x8 frame', ['-r', tiny, '-d', tiny, '-w', '8', '-h', '8', '-p', '420',
                                             '-b', '8', '--no_prediction', '--feature', 'float_adm'],
                     'float_adm')
        # output folder missing: refused before any frame is computed
        out = os.path.join(tmp, 'no', 'such', 'dir', 'o.json')
        r = run(exe, '-r', REF, '-d', DIS, '--model', 'version=vmaf_float_v0.6.1', '-q', '--json', '-o', out)
        check(r.returncode != 0 and not os.path.exists(out), 'missing output folder is an error')
        # ref/dis geometry mismatch
        expect_error(exe, tmp, 'y4m header garbage', ['-r', tiny, '-d', DIS, '--no_prediction',
                                                      '--feature', 'float_vif'], 'tiny.yuv')

        # --hwdec takes auto, cuda or none; anything else is a usage error (exit 1).
        expect_error(exe, tmp, '--hwdec bogus', ['-r', REF, '-d', DIS, '--hwdec', 'bogus'], '--hwdec')
        r = run(exe, '-r', REF, '-d', DIS, '--hwdec', 'bogus')
        check(r.returncode == 1 and 'auto, cuda or none' in r.stderr,
              '--hwdec bogus is a usage error naming the values: %d %r' % (r.returncode, r.stderr))

        r = run(exe, '--help')
        check(r.returncode == 0, '--help exits 0')
        for flag in ('--reference', '--distorted', '--width', '--height', '--pixel_format', '--bitdepth',
                     '--model', '--feature', '--output', '--xml', '--json', '--csv', '--sub', '--threads',
                     '--subsample', '--frame_cnt', '--frame_skip_ref', '--frame_skip_dist', '--cpumask',
                     '--no_prediction', '--quiet', '--version', '--precision', '--division', '--hwdec'):
            check(flag in r.stdout, '--help documents %s' % flag)

    print('%d checks, %d failed' % (checks, len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
