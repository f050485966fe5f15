#!/usr/bin/env python3
"""Bad input never crashes, hangs, or leaves a wrong or partial result.

Each case runs the CLI on one kind of bad input and asserts: the exit status,
a message on stderr naming the file, frame or option at fault, no file at the
-o path, no temporary file left beside it, and no crash. Then the signal
cases: SIGINT/SIGTERM during a run give a marked, incomplete output and
exit 128 + signal.

usage: robustness_test.py --exe build/tools/exactvmaf [--only SUBSTRING[,SUBSTRING...]] [-v]
"""
import argparse, csv, io, json, os, resource, signal, stat, subprocess, sys, tempfile
import threading, time
import xml.etree.ElementTree as ET

import testlib
from testlib import record

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, '..', 'samples')
REF = os.path.join(SAMPLES, 'ref.y4m')
DIS = os.path.join(SAMPLES, 'dis.y4m')

EXIT_USAGE, EXIT_INPUT, EXIT_COMPUTE, EXIT_OUTPUT = 1, 2, 3, 4


def sanitized(exe):
    """ASan reserves terabytes of address space: no RLIMIT_AS under it."""
    with open(exe, 'rb') as f:
        return b'__asan_init' in f.read()


class Cli:
    def __init__(self, exe, tmp):
        self.exe, self.tmp = exe, tmp
        self.limit_as = not sanitized(exe)

    def run(self, argv, stdin=None, timeout=60, limit_mem=False):
        def preexec():
            if limit_mem and self.limit_as:
                # 1 GiB: a refused giant header must not be attempted.
                resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        return subprocess.run([self.exe] + argv, input=stdin, capture_output=True,
                              timeout=timeout, preexec_fn=preexec)

    def expect_error(self, name, argv, code, needles, stdin=None, fmt='json',
                     limit_mem=False, timeout=60):
        """argv fails with exit `code`, stderr has every needle, -o is not created."""
        outdir = tempfile.mkdtemp(dir=self.tmp)
        out = os.path.join(outdir, 'out.' + fmt)
        try:
            r = self.run(argv + ['--' + fmt, '-o', out], stdin=stdin, limit_mem=limit_mem,
                         timeout=timeout)
        except subprocess.TimeoutExpired:
            record(name, False, 'hung (no exit within %d s)' % timeout)
            return
        err = r.stderr.decode(errors='replace')
        why = []
        if r.returncode < 0:
            why.append('killed by signal %d (crash)' % -r.returncode)
        elif r.returncode != code:
            why.append('exit %d, expected %d' % (r.returncode, code))
        for n in needles:
            if n.lower() not in err.lower():
                why.append('stderr lacks %r' % n)
        left = os.listdir(outdir)
        if left:
            why.append('left files: %s' % left)
        for bad in ('AddressSanitizer', 'runtime error', 'LeakSanitizer', 'Segmentation'):
            if bad in err:
                why.append('sanitizer/crash report')
        if why:
            why.append('stderr: %r' % err.strip()[-400:])
        record(name, not why, '; '.join(why))

    def expect_ok(self, name, argv, check=None, stdin=None):
        outdir = tempfile.mkdtemp(dir=self.tmp)
        out = os.path.join(outdir, 'out.json')
        r = self.run(argv + ['--json', '-o', out], stdin=stdin)
        why = []
        if r.returncode != 0:
            why.append('exit %d: %r' % (r.returncode, r.stderr.decode(errors='replace')[-400:]))
        elif check:
            w = check(json.load(open(out)))
            if w:
                why.append(w)
        record(name, not why, '; '.join(why))


# ---------------------------------------------------------------- fixtures

def pattern(n, seed):
    """Deterministic bytes that look like a picture (not constant)."""
    return bytes(((i * 7 + (i // 97) * 13 + seed * 31) ^ (i >> 5)) & 0xff for i in range(n))


def frame_bytes(w, h, chroma='420', bpc=8):
    cw, ch = {'420': ((w + 1) // 2, (h + 1) // 2), '422': ((w + 1) // 2, h),
              '444': (w, h), 'mono': (0, 0)}[chroma]
    n = w * h + 2 * cw * ch
    return n * (2 if bpc > 8 else 1)


def y4m(w, h, frames, chroma='420', tags='', bpc=8, seed=0, header=None):
    ctag = chroma if bpc == 8 else '%sp%d' % (chroma, bpc)
    hdr = header if header is not None else 'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C%s%s\n' % (
        w, h, ctag, tags)
    out = bytearray(hdr.encode())
    size = frame_bytes(w, h, chroma, bpc)
    for f in range(frames):
        out += b'FRAME\n'
        data = pattern(size, seed + f)
        if bpc > 8:     # keep samples within the bit depth (little-endian)
            data = bytes(b if i % 2 == 0 else b & ((1 << (bpc - 8)) - 1)
                         for i, b in enumerate(data))
        out += data
    return bytes(out)


def write(tmp, name, data):
    p = os.path.join(tmp, name)
    with open(p, 'wb') as f:
        f.write(data)
    return p


# ---------------------------------------------------------------- cases

def y4m_header_cases(cli, tmp):
    F = ['--no_prediction', '--feature', 'float_vif']
    good = write(tmp, 'good.y4m', y4m(64, 64, 2))

    def case(name, data, needles, code=EXIT_INPUT, limit_mem=False):
        p = write(tmp, name + '.y4m', data)
        cli.expect_error('y4m: ' + name, ['-r', p, '-d', p] + F, code, [name + '.y4m'] + needles,
                         limit_mem=limit_mem)

    case('c411', y4m(64, 64, 1, header='YUV4MPEG2 W64 H64 C411\n'), ['C411'])
    case('chroma_unknown', y4m(64, 64, 1, header='YUV4MPEG2 W64 H64 Cfoo\n'), ['Cfoo'])
    case('bitdepth_8p', y4m(64, 64, 1, header='YUV4MPEG2 W64 H64 C420p8\n'), ['bit depth 8'])
    case('bitdepth_17', y4m(64, 64, 1, header='YUV4MPEG2 W64 H64 C420p17\n'), ['bit depth 17'])
    case('huge_2e9', b'YUV4MPEG2 W2000000000 H2000000000\nFRAME\n' + bytes(100),
         ['2000000000'], limit_mem=True)
    case('huge_32768_16bit', b'YUV4MPEG2 W32768 H32768 C444p16\nFRAME\n' + bytes(100),
         ['frame 0 is partial'], limit_mem=True)
    case('420_one_wide', y4m(1, 64, 1, header='YUV4MPEG2 W1 H64\n'), ['no chroma samples'])
    case('width_zero', b'YUV4MPEG2 W0 H64\nFRAME\n', ['width'])
    case('width_text', b'YUV4MPEG2 W64x H64\nFRAME\n', ['width'])
    case('width_missing', b'YUV4MPEG2 H64\nFRAME\n', ['W (width)'])
    case('height_missing', b'YUV4MPEG2 W64\nFRAME\n', ['H (height)'])
    case('interlaced_t', y4m(64, 64, 1, header='YUV4MPEG2 W64 H64 It\n'), ['interlaced'])
    case('interlaced_b', y4m(64, 64, 1, header='YUV4MPEG2 W64 H64 Ib\n'), ['interlaced'])
    case('interlaced_mixed', y4m(64, 64, 1, header='YUV4MPEG2 W64 H64 Im\n'), ['interlaced'])
    case('interlace_unknown', y4m(64, 64, 1, header='YUV4MPEG2 W64 H64 Ix\n'), ['Ix'])
    case('framerate_bad', y4m(64, 64, 1, header='YUV4MPEG2 W64 H64 F25\n'), ['F25'])
    case('not_y4m', b'RIFF....WAVEfmt ' + bytes(200), ['not a y4m file'])
    case('empty', b'', ['empty'])
    case('magic_only', b'YUV4MPEG2', ['no end of line'])
    case('magic_glued', b'YUV4MPEG2W64 H64\nFRAME\n', ['not a space'])
    case('header_too_long', b'YUV4MPEG2 W64 H64 X' + b'a' * 2000 + b'\n', ['longer than'])
    case('no_frames', b'YUV4MPEG2 W64 H64\n', ['no frames', 'hold none'])
    case('frame_marker_bad', y4m(64, 64, 2).replace(b'FRAME', b'FRAMX', 1),
         ['frame 0 does not start with a FRAME line'])
    case('frame_marker_bad_2nd', y4m(64, 64, 3).replace(b'FRAME\n', b'FRAMX\n', 2)
         .replace(b'FRAMX\n', b'FRAME\n', 1), ['frame 1 does not start with a FRAME line'])
    case('frame_truncated', y4m(64, 64, 2)[:-1000], ['frame 1 is partial'])
    case('frame_header_cut', y4m(64, 64, 1) + b'FRA', ['frame 1'])
    case('trailing_garbage', y4m(64, 64, 2) + b'\n\n', ['frame 2'])
    # 10-bit samples above 1023: wrong depth or endianness.
    bad10 = bytearray(y4m(32, 32, 1, bpc=10))
    bad10[-2:] = b'\xff\xff'
    case('sample_above_bitdepth', bytes(bad10), ['above the 10-bit maximum'])
    # A 444alpha file must hold its alpha plane.
    alpha = y4m(32, 32, 1, header='YUV4MPEG2 W32 H32 C444alpha\n')
    alpha = alpha[:alpha.index(b'FRAME\n') + 6] + pattern(32 * 32 * 3, 1)
    case('alpha_missing', alpha, ['frame 0 is partial'])

    # Through a pipe the size cannot be checked ahead: the frame is staged as
    # it arrives, so a giant claim costs what the pipe delivers.
    huge = b'YUV4MPEG2 W32768 H32768 C444p16\nFRAME\n' + bytes(5000)
    cli.expect_error('y4m: huge_32768_16bit through a pipe', ['-r', '-', '-d', '-'][:2] +
                     ['-d', write(tmp, 'huge_twin.y4m', huge)] + F, EXIT_INPUT,
                     ['huge_twin.y4m', 'frame 0 is partial'], stdin=huge, limit_mem=True)
    # Against a whole (sparse) 6 GiB frame on disk, the pipe is what fails.
    sparse = write(tmp, 'huge_sparse.y4m', huge[:huge.index(b'FRAME\n') + 6])
    os.truncate(sparse, os.path.getsize(sparse) + 32768 * 32768 * 3 * 2)
    cli.expect_error('y4m: huge_32768_16bit through a pipe, whole frame on disk',
                     ['-r', '-', '-d', sparse] + F, EXIT_INPUT,
                     ['(stdin)', 'frame 0 is partial'], stdin=huge, limit_mem=True)

    # A damaged frame late in the file is found before any frame is computed:
    # the message comes, and nothing for frame 0 is ever written.
    late = write(tmp, 'late_damage.y4m', y4m(64, 64, 40)[:-10])
    t0 = time.time()
    cli.expect_error('y4m: damage found before computing', ['-r', late, '-d', late] + F,
                     EXIT_INPUT, ['frame 39 is partial'])
    # --frame_cnt that stops before the damage makes the file usable.
    cli.expect_ok('y4m: damage beyond --frame_cnt is not read',
                  ['-r', late, '-d', late, '--frame_cnt', '39'] + F,
                  check=lambda d: None if len(d['frames']) == 39 else 'frames %d' % len(d['frames']))
    # Valid variants are accepted.
    for name, data in [('mono', y4m(64, 64, 2, chroma='mono')),
                       ('422', y4m(64, 64, 2, chroma='422')),
                       ('444', y4m(64, 64, 2, chroma='444')),
                       ('420p10', y4m(64, 64, 2, bpc=10)),
                       ('odd_size', y4m(63, 65, 2)),
                       ('odd_size_422', y4m(129, 33, 2, chroma='422')),
                       ('odd_size_10bit', y4m(65, 63, 2, bpc=10)),
                       ('frame_tags', y4m(64, 64, 2).replace(b'FRAME\n', b'FRAME Ixyz\n'))]:
        p = write(tmp, 'valid_' + name + '.y4m', data)
        cli.expect_ok('y4m: valid ' + name, ['-r', p, '-d', p] + F,
                      check=lambda d: None if len(d['frames']) == 2 else 'frames %d' % len(d['frames']))


def yuv_cases(cli, tmp):
    F = ['--no_prediction', '--feature', 'float_vif']
    G = ['-w', '64', '-h', '64', '-p', '420', '-b', '8']
    fb = frame_bytes(64, 64)
    partial = write(tmp, 'partial.yuv', pattern(2 * fb + 100, 0))
    small = write(tmp, 'small.yuv', pattern(100, 0))
    empty = write(tmp, 'empty.yuv', b'')
    two = write(tmp, 'two.yuv', pattern(2 * fb, 0))
    three = write(tmp, 'three.yuv', pattern(3 * fb, 0))

    def case(name, argv, code, needles):
        cli.expect_error('yuv: ' + name, argv + F, code, needles)

    case('partial last frame', ['-r', partial, '-d', partial] + G, EXIT_INPUT,
         ['partial.yuv', 'partial frame of 100 bytes'])
    case('smaller than a frame', ['-r', small, '-d', small] + G, EXIT_INPUT,
         ['small.yuv', '0 whole frames'])
    case('empty file', ['-r', empty, '-d', empty] + G, EXIT_INPUT, ['empty.yuv', 'no frames'])
    case('geometry incomplete', ['-r', two, '-d', two, '-w', '64', '-h', '64'], EXIT_USAGE,
         ['--pixel_format', '--bitdepth'])
    case('width 0', ['-r', two, '-d', two, '-w', '0', '-h', '64', '-p', '420', '-b', '8'],
         EXIT_USAGE, ['--width'])
    case('width negative', ['-r', two, '-d', two, '-w', '-64', '-h', '64', '-p', '420', '-b', '8'],
         EXIT_USAGE, ['-64', '--width'])
    case('width huge', ['-r', two, '-d', two, '-w', '40000', '-h', '64', '-p', '420', '-b', '8'],
         EXIT_INPUT, ['40000x64'])
    case('width overflow', ['-r', two, '-d', two, '-w', '99999999999', '-h', '64', '-p', '420',
                            '-b', '8'], EXIT_USAGE, ['99999999999'])
    case('bitdepth 9', ['-r', two, '-d', two, '-w', '64', '-h', '64', '-p', '420', '-b', '9'],
         EXIT_USAGE, ['--bitdepth'])
    case('pixel format 411', ['-r', two, '-d', two, '-w', '64', '-h', '64', '-p', '411', '-b', '8'],
         EXIT_USAGE, ['411', '--pixel_format'])
    case('y4m read as raw', ['-r', REF, '-d', DIS, '-w', '160', '-h', '96', '-p', '420', '-b', '8'],
         EXIT_INPUT, ['ref.y4m', 'is a y4m file'])
    case('raw read as y4m', ['-r', two, '-d', two], EXIT_INPUT, ['two.yuv', 'not a y4m'])
    hi = bytearray(pattern(frame_bytes(64, 64, bpc=10), 0))
    for i in range(1, len(hi), 2):
        hi[i] &= 3
    hi[5] = 0x80
    hi10 = write(tmp, 'hi10.yuv', bytes(hi))
    case('10-bit sample too big', ['-r', hi10, '-d', hi10, '-w', '64', '-h', '64', '-p', '420',
                                   '-b', '10'], EXIT_INPUT, ['hi10.yuv', 'frame 0', '10-bit'])
    case('16-bit big-endian guess', ['-r', two, '-d', two, '-w', '64', '-h', '64', '-p', '420',
                                     '-b', '10'], EXIT_INPUT, ['two.yuv'])
    # Lengths: both counts in the message, before anything is computed.
    case('fewer distorted frames', ['-r', three, '-d', two] + G, EXIT_INPUT,
         ['three.yuv has 3 frames', 'two.yuv has 2', '--frame_cnt 2'])
    case('fewer reference frames', ['-r', two, '-d', three] + G, EXIT_INPUT,
         ['two.yuv has 2 frames', 'three.yuv has 3'])
    case('--frame_cnt beyond the shorter', ['-r', three, '-d', two, '--frame_cnt', '3'] + G,
         EXIT_INPUT, ['three.yuv has 3 frames', 'two.yuv has 2', '--frame_cnt 3'])
    cli.expect_ok('yuv: --frame_cnt limits a length difference',
                  ['-r', three, '-d', two, '--frame_cnt', '2'] + G + F,
                  check=lambda d: None if len(d['frames']) == 2 else 'frames %d' % len(d['frames']))
    cli.expect_ok('yuv: --frame_skip_ref evens the lengths',
                  ['-r', three, '-d', two, '--frame_skip_ref', '1'] + G + F,
                  check=lambda d: None if len(d['frames']) == 2 else 'frames %d' % len(d['frames']))
    case('skip past the end', ['-r', two, '-d', two, '--frame_skip_dist', '5'] + G, EXIT_INPUT,
         ['two.yuv', 'cannot skip 5 frames'])
    case('skip everything', ['-r', two, '-d', two, '--frame_skip_ref', '2',
                             '--frame_skip_dist', '2'] + G, EXIT_INPUT, ['no frames'])


def pair_cases(cli, tmp):
    F = ['--no_prediction', '--feature', 'float_vif']
    a = write(tmp, 'a64.y4m', y4m(64, 64, 3))
    b = write(tmp, 'b48.y4m', y4m(48, 64, 3))
    c = write(tmp, 'c444.y4m', y4m(64, 64, 3, chroma='444'))
    d = write(tmp, 'd10.y4m', y4m(64, 64, 3, bpc=10))
    e = write(tmp, 'e2.y4m', y4m(64, 64, 2))
    cli.expect_error('pair: sizes differ', ['-r', a, '-d', b] + F, EXIT_INPUT,
                     ['a64.y4m is 64x64', 'b48.y4m is 48x64'])
    cli.expect_error('pair: chroma differs', ['-r', a, '-d', c] + F, EXIT_INPUT,
                     ['a64.y4m is 4:2:0', 'c444.y4m is 4:4:4'])
    cli.expect_error('pair: bit depths differ', ['-r', a, '-d', d] + F, EXIT_INPUT,
                     ['8-bit', '10-bit'])
    cli.expect_error('pair: fewer distorted frames', ['-r', a, '-d', e] + F, EXIT_INPUT,
                     ['a64.y4m has 3 frames', 'e2.y4m has 2'])
    cli.expect_error('pair: fewer reference frames', ['-r', e, '-d', a] + F, EXIT_INPUT,
                     ['e2.y4m has 2 frames', 'a64.y4m has 3'])
    # Through a pipe the length is learned while reading: still an error, no output.
    cli.expect_error('pair: distorted pipe shorter', ['-r', a, '-d', '-'] + F, EXIT_INPUT,
                     ['a64.y4m has 3 frames', '(stdin) has 2'], stdin=open(e, 'rb').read())
    cli.expect_error('pair: reference pipe longer', ['-r', '-', '-d', e] + F, EXIT_INPUT,
                     ['has at least 3 frames', 'e2.y4m has 2'], stdin=open(a, 'rb').read())
    cli.expect_error('pair: stdin twice', ['-r', '-', '-d', '-'] + F, EXIT_USAGE, ['stdin'])
    cli.expect_error('pair: missing file', ['-r', os.path.join(tmp, 'nope.y4m'), '-d', a] + F,
                     EXIT_INPUT, ['nope.y4m', 'No such file'])
    cli.expect_error('pair: directory as input', ['-r', tmp, '-d', a] + F, EXIT_INPUT,
                     ['directory'])
    cli.expect_ok('pair: pipe and file of equal length', ['-r', '-', '-d', a] + F,
                  stdin=open(a, 'rb').read(),
                  check=lambda d: None if len(d['frames']) == 3 else 'frames %d' % len(d['frames']))


def option_cases(cli, tmp):
    B = ['-r', REF, '-d', DIS]
    N = B + ['--no_prediction']

    def case(name, argv, code, needles):
        cli.expect_error('option: ' + name, argv, code, needles)

    case('unknown flag', B + ['--no_such_flag'], EXIT_USAGE, ['no_such_flag'])
    case('unknown short flag', B + ['-Z'], EXIT_USAGE, ['-Z'])
    case('stray argument', B + ['stray'], EXIT_USAGE, ['stray'])
    r = cli.run(['-d', DIS, '-r'])
    record('option: missing value', r.returncode == EXIT_USAGE and b'-r needs a value' in r.stderr,
           repr(r.stderr[-200:]))
    case('reference missing', ['-d', DIS], EXIT_USAGE, ['--reference'])
    case('flag given twice', B + ['-r', REF], EXIT_USAGE, ['--reference', 'more than once'])
    case('two output formats', B + ['--csv'], EXIT_USAGE, ['--csv', '--json'])
    case('unknown feature', N + ['--feature', 'no_such_metric'], EXIT_COMPUTE, ['no_such_metric'])
    case('empty feature', N + ['--feature', ''], EXIT_USAGE, ['--feature'])
    case('unknown option', N + ['--feature', 'float_adm=no_such_opt=1'], EXIT_COMPUTE,
         ['no_such_opt'])
    case('out of range', N + ['--feature', 'float_adm=adm_enhn_gain_limit=0.5'], EXIT_COMPUTE,
         ['adm_enhn_gain_limit', '0.5'])
    case('out of range via alias', N + ['--feature', 'float_adm=egl=0.5'], EXIT_COMPUTE,
         ['adm_enhn_gain_limit', '0.5'])
    case('non-numeric', N + ['--feature', 'float_vif=vif_sigma_nsq=two'], EXIT_COMPUTE,
         ['vif_sigma_nsq', 'two'])
    case('nan', N + ['--feature', 'float_vif=vif_sigma_nsq=nan'], EXIT_COMPUTE,
         ['vif_sigma_nsq', 'nan'])
    case('bad bool', N + ['--feature', 'float_vif=debug=maybe'], EXIT_COMPUTE, ['debug', 'maybe'])
    case('empty value', N + ['--feature', 'float_adm=egl='], EXIT_COMPUTE, ['adm_enhn_gain_limit'])
    case('empty pair', N + ['--feature', 'float_vif='], EXIT_USAGE, ['float_vif='])
    case('pair without value', N + ['--feature', 'float_vif=debug'], EXIT_USAGE, ['debug'])
    case('duplicated option', N + ['--feature', 'float_adm=egl=1.2:egl=1.1'], EXIT_USAGE,
         ['egl', 'twice'])
    case('option and its alias', N + ['--feature', 'float_adm=egl=1.2:adm_enhn_gain_limit=1.1'],
         EXIT_USAGE, ['adm_enhn_gain_limit', 'twice'])
    case('model option twice', B + ['--model', 'version=vmaf_float_v0.6.1:float_adm.egl=1.2:'
                                    'float_adm.adm_enhn_gain_limit=1.1'], EXIT_USAGE, ['twice'])
    case('unknown model', B + ['--model', 'version=no_such_model'], EXIT_COMPUTE, ['no_such_model'])
    case('model parameter unknown', B + ['--model', 'version=vmaf_float_v0.6.1:colour=red'],
         EXIT_USAGE, ['colour'])
    case('model without version or path', B + ['--model', 'name=x'], EXIT_USAGE,
         ['version=', 'path='])
    case('model flag not bool', B + ['--model', 'version=vmaf_float_v0.6.1:disable_clip=maybe'],
         EXIT_USAGE, ['disable_clip', 'maybe'])
    case('two models one name', B + ['--model', 'version=vmaf_float_v0.6.1', '--model',
                                     'version=vmaf_float_v0.6.1neg'], EXIT_USAGE, ['named'])
    case('model option for absent option', B + ['--model',
                                                'version=vmaf_float_v0.6.1:float_adm.nope=1'],
         EXIT_COMPUTE, ['nope'])
    case('threads too many', N + ['--feature', 'float_vif', '--threads', '100000'], EXIT_USAGE,
         ['--threads'])
    case('threads text', N + ['--feature', 'float_vif', '--threads', 'two'], EXIT_USAGE,
         ['two', '--threads'])
    case('frame_cnt negative', N + ['--feature', 'float_vif', '--frame_cnt', '-1'], EXIT_USAGE,
         ['--frame_cnt'])
    case('precision 0', N + ['--feature', 'float_vif', '--precision', '0'], EXIT_USAGE,
         ['--precision'])
    case('division bad', N + ['--feature', 'float_vif', '--division', 'fast'], EXIT_USAGE,
         ['fast', '--division'])
    case('aom_ctc bad', B + ['--aom_ctc', 'v9.0'], EXIT_USAGE, ['v9.0'])
    # --help documents every exit status and the incomplete markers.
    r = cli.run(['--help'])
    text = r.stdout.decode()
    missing = [w for w in ('Exit status', '  2  ', '  3  ', '  4  ', '130', '143',
                           '"incomplete"', '# INCOMPLETE', 'incomplete="true"') if w not in text]
    record('option: --help documents exit codes and markers', r.returncode == 0 and not missing,
           'missing %s' % missing)
    # Aliases are accepted and name their outputs as Netflix does.
    cli.expect_ok('option: alias accepted', N + ['--feature', 'float_adm=egl=1.2'],
                  check=lambda d: None if any('egl_1.2' in k for k in d['frames'][0]['metrics'])
                  else 'no output named with egl_1.2: %s' % list(d['frames'][0]['metrics']))
    cli.expect_ok('option: model overload through an alias',
                  B + ['--model', 'version=vmaf_float_v0.6.1neg:float_adm.egl=1.2'])


def model_cases(cli, tmp):
    base = json.load(open(os.path.join(HERE, '..', 'models', 'vmaf_float_v0.6.1.json')))
    B = ['-r', REF, '-d', DIS]

    def case(name, doc, needles, raw=None, ext='.json'):
        p = os.path.join(tmp, 'model_' + name.replace(' ', '_') + ext)
        with open(p, 'w') as f:
            f.write(raw if raw is not None else json.dumps(doc))
        cli.expect_error('model: ' + name, B + ['--model', 'path=' + p], EXIT_COMPUTE,
                         [os.path.basename(p)] + needles)

    def edit(fn):
        d = json.loads(json.dumps(base))
        fn(d['model_dict'])
        return d

    case('empty file', None, ['empty'], raw='')
    case('not json', None, ['invalid JSON'], raw='nul')
    case('truncated json', None, ['invalid JSON'],
         raw=json.dumps(base)[:len(json.dumps(base)) // 2])
    case('no model_dict', {'param_dict': {}}, ['model_dict'])
    case('model_dict not an object', {'model_dict': 3}, ['model_dict'])
    case('missing svm', edit(lambda m: m.pop('model')), ['"model"'])
    case('missing feature_names', edit(lambda m: m.pop('feature_names')), ['feature_names'])
    case('missing slopes', edit(lambda m: m.pop('slopes')), ['slopes'])
    case('feature_names wrong type', edit(lambda m: m.update(feature_names=42)),
         ['feature_names', 'array'])
    case('slope wrong type', edit(lambda m: m['slopes'].__setitem__(1, 'x')), ['slopes'])
    case('slopes count', edit(lambda m: m['slopes'].pop()), ['slopes', '7'])
    case('intercepts count', edit(lambda m: m['intercepts'].append(0.0)), ['intercepts'])
    case('score_clip wrong', edit(lambda m: m.update(score_clip=['a', 'b'])), ['score_clip'])
    case('unknown model_type', edit(lambda m: m.update(model_type='FOREST')), ['FOREST'])
    case('total_sv too big', edit(lambda m: m.update(
        model=m['model'].replace('total_sv 211', 'total_sv 300'))), ['total_sv', '300'])
    case('total_sv too small', edit(lambda m: m.update(
        model=m['model'].replace('total_sv 211', 'total_sv 10'))), ['total_sv'])
    case('sv index out of range', edit(lambda m: m.update(
        model=m['model'].replace(' 6:', ' 9:', 1))), ['libsvm'])
    case('svm text garbage', edit(lambda m: m.update(model='hello world')), ['libsvm'])
    case('unknown feature', edit(lambda m: m['feature_names'].__setitem__(
        0, 'VMAF_feature_nope_score')), ['VMAF_feature_nope_score'])
    case('deep nesting', None, ['invalid JSON'], raw='[' * 100000 + ']' * 100000)
    case('pkl', None, ['pkl'], raw='x', ext='.pkl')
    coll = json.load(open(os.path.join(HERE, '..', 'models', 'vmaf_float_b_v0.6.3.json')))
    coll['1']['model_dict']['slopes'] = [1.0]
    case('collection member broken', coll, ['slopes'])
    p = os.path.join(tmp, 'no_such_model.json')
    cli.expect_error('model: missing file', B + ['--model', 'path=' + p], EXIT_COMPUTE,
                     ['no_such_model.json', 'No such file'])
    cli.expect_error('model: directory', B + ['--model', 'path=' + tmp], EXIT_COMPUTE,
                     [os.path.basename(tmp)])


def tiny_frame_cases(cli, tmp):
    """Every extractor on frames down to 1x1: a result or a clear refusal
    naming the extractor and the size (exit 3), never a crash."""
    sizes = [(1, 1), (2, 2), (7, 5), (8, 8), (15, 15), (16, 16), (17, 9), (33, 31)]
    for w, h in sizes:
        p = write(tmp, 'tiny_%dx%d.y4m' % (w, h), y4m(w, h, 3, chroma='444'))
        for fex in testlib.extractors(cli.exe):
            name = 'tiny: %s %dx%d' % (fex, w, h)
            outdir = tempfile.mkdtemp(dir=tmp)
            out = os.path.join(outdir, 'o.json')
            try:
                r = cli.run(['-r', p, '-d', p, '--no_prediction', '--feature', fex, '--json',
                             '-o', out], timeout=120)
            except subprocess.TimeoutExpired:
                record(name, False, 'hung')
                continue
            err = r.stderr.decode(errors='replace')
            why = []
            if r.returncode == 0:
                if not os.path.exists(out):
                    why.append('exit 0 without output')
            elif r.returncode == EXIT_COMPUTE:
                if fex not in err:
                    why.append('refusal does not name %s: %r' % (fex, err[-300:]))
                if os.listdir(outdir):
                    why.append('left an output file')
            else:
                why.append('exit %d: %r' % (r.returncode, err[-300:]))
            if any(b in err for b in ('AddressSanitizer', 'runtime error', 'LeakSanitizer')):
                why.append('sanitizer report: %r' % err[-600:])
            record(name, not why, '; '.join(why))
    # The issue's own case: Netflix crashes on 8x8 with the default features.
    p = os.path.join(tmp, 'tiny_8x8.y4m')
    cli.expect_error('tiny: float_adm refuses 8x8', ['-r', p, '-d', p, '--no_prediction',
                                                     '--feature', 'float_adm'], EXIT_COMPUTE,
                     ['float_adm', '8x8'])


def output_cases(cli, tmp):
    F = ['-r', REF, '-d', DIS, '--no_prediction', '--feature', 'float_vif']

    def out_case(name, path, needles, fifo_ref=False):
        argv = list(F)
        if fifo_ref:
            # The reference is a FIFO nobody writes: opening it would block,
            # so an exit proves the output was checked before any input.
            fifo = os.path.join(tmp, 'never_written.fifo')
            if not os.path.exists(fifo):
                os.mkfifo(fifo)
            argv[1] = fifo
        try:
            r = cli.run(argv + ['--json', '-o', path], timeout=20)
        except subprocess.TimeoutExpired:
            record('output: ' + name, False, 'read the input before checking the output')
            return
        err = r.stderr.decode(errors='replace')
        why = []
        if r.returncode != EXIT_OUTPUT:
            why.append('exit %d, expected %d' % (r.returncode, EXIT_OUTPUT))
        for n in needles:
            if n not in err:
                why.append('stderr lacks %r: %r' % (n, err[-300:]))
        record('output: ' + name, not why, '; '.join(why))

    out_case('missing folder, before any frame', os.path.join(tmp, 'no', 'such', 'o.json'),
             ['does not exist'], fifo_ref=True)
    out_case('path is a folder, before any frame', tmp, ['directory'], fifo_ref=True)
    out_case('unwritable place, before any frame', '/proc/exactvmaf_out.json', ['/proc'],
             fifo_ref=True)
    if os.path.exists('/dev/full'):
        out_case('device full at the end', '/dev/full', ['/dev/full'])
    # -o naming an input would replace the video with scores.
    victim = write(tmp, 'victim.y4m', y4m(32, 32, 2))
    before = open(victim, 'rb').read()
    r = cli.run(['-r', victim, '-d', victim, '--no_prediction', '--feature', 'float_vif',
                 '--json', '-o', victim])
    record('output: -o is an input video', r.returncode == EXIT_OUTPUT and
           open(victim, 'rb').read() == before and b'victim.y4m' in r.stderr,
           'exit %d %r' % (r.returncode, r.stderr[-200:]))
    # An existing result is not replaced by a failed run.
    keep = os.path.join(tmp, 'keep.json')
    with open(keep, 'w') as f:
        f.write('previous result\n')
    bad = write(tmp, 'bad_for_keep.y4m', b'YUV4MPEG2 W64 H64\nFRAMX\n')
    r = cli.run(['-r', bad, '-d', bad, '--no_prediction', '--feature', 'float_vif', '--json',
                 '-o', keep])
    record('output: a failed run keeps the previous file',
           r.returncode == EXIT_INPUT and open(keep).read() == 'previous result\n' and
           sorted(os.listdir(tmp)).count('keep.json') == 1 and
           not any(n.startswith('keep.json.') for n in os.listdir(tmp)),
           'exit %d' % r.returncode)


# ---------------------------------------------------------------- signals

def fionread(fd):
    import fcntl, termios, struct
    return struct.unpack('i', fcntl.ioctl(fd, termios.FIONREAD, b'\0\0\0\0'))[0]


def interrupted_run(cli, tmp, fmt, sig, threads, feed, out_path=None):
    """Feed `feed` frames through stdin, wait until they are consumed, send
    sig. Returns (CompletedProcess-like, output text or None)."""
    w, h = 96, 64
    total = 400
    dis = write(tmp, 'sig_dis.y4m', y4m(w, h, total, seed=1))
    ref = y4m(w, h, total, seed=0)
    hdr_len = ref.index(b'\n') + 1
    fsize = len(b'FRAME\n') + frame_bytes(w, h)
    out = out_path or os.path.join(tempfile.mkdtemp(dir=tmp), 'out.' + fmt)
    p = subprocess.Popen([cli.exe, '-r', '-', '-d', dis, '--no_prediction',
                          '--feature', 'float_vif', '--feature', 'float_motion',
                          '--threads', str(threads), '--' + fmt, '-o', out],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdin.write(ref[:hdr_len + feed * fsize])
    p.stdin.flush()
    # Wait until the tool has read everything sent, then a little for the
    # computation; it then waits for more input, which never comes.
    deadline = time.time() + 60
    while fionread(p.stdin.fileno()) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    p.send_signal(sig)
    try:
        stdout, stderr = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return None, None, None
    text = None
    if out_path is None and os.path.exists(out):
        text = open(out).read()
    elif out_path == '-':
        text = stdout.decode()
    return p, stderr.decode(errors='replace'), text if text is not None else stdout.decode()


def signal_cases(cli, tmp):
    feed = 25
    for fmt, sig, threads in [('json', signal.SIGINT, 0), ('xml', signal.SIGTERM, 2),
                              ('csv', signal.SIGINT, 2), ('sub', signal.SIGHUP, 0)]:
        name = 'signal: %s %s threads=%d' % (signal.Signals(sig).name, fmt, threads)
        p, err, text = interrupted_run(cli, tmp, fmt, sig, threads, feed)
        if p is None:
            record(name, False, 'did not stop within 60 s')
            continue
        why = []
        if p.returncode != 128 + sig:
            why.append('exit %d, expected %d: %r' % (p.returncode, 128 + sig, err[-300:]))
        reason = 'interrupted by %s' % signal.Signals(sig).name
        if reason not in err:
            why.append('stderr lacks %r' % reason)
        if not text:
            why.append('no output file')
        elif fmt == 'json':
            doc = json.loads(text)
            inc = doc.get('incomplete')
            n = len(doc['frames'])
            if not inc or inc.get('reason') != reason or inc.get('frames') != n:
                why.append('marker %r with %d frames' % (inc, n))
            if not 1 <= n <= feed:
                why.append('%d frames, fed %d' % (n, feed))
            if list(doc)[0] != 'incomplete':
                why.append('marker is not the first member')
            last = doc['frames'][-1]['metrics'] if n else {}
            if 'motion2' not in last:
                why.append('frames in flight not finished (no motion2 on the last frame)')
        elif fmt == 'xml':
            root = ET.fromstring(text)
            inc = root.find('incomplete')
            n = len(root.findall('.//frame'))
            if root.get('incomplete') != 'true' or inc is None or \
                    inc.get('frames') != str(n) or inc.get('reason') != reason:
                why.append('xml marker missing or wrong')
            if not 1 <= n <= feed:
                why.append('%d frames, fed %d' % (n, feed))
        else:
            first = text.splitlines()[0]
            rows = text.splitlines()[1:]
            n = len(rows) - (1 if fmt == 'csv' else 0)
            if first != '# INCOMPLETE: %d frames, %s' % (n, reason):
                why.append('first line %r for %d frames' % (first, n))
        record(name, not why, '; '.join(why))

    # To stdout: the marker travels with the text; score lines say so too.
    p, err, text = interrupted_run(cli, tmp, 'json', signal.SIGINT, 0, feed, out_path='-')
    ok = p is not None and p.returncode == 130 and text and \
        json.loads(text).get('incomplete', {}).get('reason') == 'interrupted by SIGINT'
    record('signal: -o - carries the marker', bool(ok), '' if ok else repr((err or '')[-300:]))

    # With a model: the printed score says it is incomplete.
    w, h = 96, 64
    ref = y4m(w, h, 50)
    dis = write(tmp, 'sig_model_dis.y4m', y4m(w, h, 50, seed=1))
    p = subprocess.Popen([cli.exe, '-r', '-', '-d', dis, '--model', 'version=vmaf_float_v0.6.1'],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdin.write(ref[:len(ref) // 3])
    p.stdin.flush()
    deadline = time.time() + 60
    while fionread(p.stdin.fileno()) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    ok = p.returncode == 130 and '[INCOMPLETE:' in stdout.decode()
    record('signal: printed score marked incomplete', ok, repr(stdout[-300:]))

    # Before the first frame: nothing to write, exit 130, no file.
    fifo = os.path.join(tmp, 'sig_fifo.y4m')
    os.mkfifo(fifo)
    outdir = tempfile.mkdtemp(dir=tmp)
    out = os.path.join(outdir, 'o.json')
    p = subprocess.Popen([cli.exe, '-r', fifo, '-d', REF, '--no_prediction', '--feature',
                          'float_vif', '--json', '-o', out], stderr=subprocess.PIPE)
    wfd = os.open(fifo, os.O_WRONLY)
    os.write(wfd, open(REF, 'rb').read()[:60])      # the header only
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    try:
        _, stderr = p.communicate(timeout=30)
        ok = p.returncode == 130 and not os.listdir(outdir) and b'before the first frame' in stderr
        why = '' if ok else 'exit %d, files %s, %r' % (p.returncode, os.listdir(outdir), stderr[-300:])
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        ok, why = False, 'did not stop'
    os.close(wfd)
    record('signal: before the first frame, no output', ok, why)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--shared', help='unused; accepted like the other tests')
    ap.add_argument('--only', default='', help='run the groups whose name contains this '
                    '(or one of these, comma-separated)')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()
    testlib.quiet = not args.verbose
    groups = [('y4m', y4m_header_cases), ('yuv', yuv_cases), ('pair', pair_cases),
              ('option', option_cases), ('model', model_cases), ('tiny', tiny_frame_cases),
              ('output', output_cases), ('signal', signal_cases)]
    with tempfile.TemporaryDirectory() as tmp:
        cli = Cli(os.path.abspath(args.exe), tmp)
        for name, fn in groups:
            if any(o in name for o in args.only.split(',')):
                fn(cli, tmp)
    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
