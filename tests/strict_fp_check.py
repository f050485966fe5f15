#!/usr/bin/env python3
"""Fail unless every compile in the build uses the strict-FP flag list and
none opts out.

C: every .c compile in BUILD/compile_commands.json carries -ffp-contract=off
and -fno-fast-math, and nothing that turns them back.
CUDA: every nvcc command that compiles a .cu - read from BUILD/build.ninja,
since meson's custom_target commands are not in compile_commands.json -
carries the CUDA list (--fmad=false -prec-div=true -prec-sqrt=true
-ftz=false) exactly once (a second copy means a private repetition of the
list, which would let one kernel drift from the others), and no flag that
opts out (--use_fast_math, another value of fmad / ftz / prec-div /
prec-sqrt, a fast-math host flag). When the source tree is known (from
meson-info), the list must also be defined in one place only: the
top-level meson.build.

usage: strict_fp_check.py BUILD_DIR
"""
import json, os, re, shlex, sys

REQUIRED = ['-ffp-contract=off', '-fno-fast-math']
FORBIDDEN_PREFIXES = ('-ffast-math', '-ffp-contract=fast', '-ffp-contract=on',
                      '-funsafe-math-optimizations', '-fassociative-math',
                      '-freciprocal-math', '-Ofast', '--use_fast_math', '-ftz=true',
                      '-prec-div=false', '-prec-sqrt=false', '--fmad=true')

# nvcc spells each of these with one or two dashes; compared without them.
CUDA_REQUIRED = {'fmad': 'false', 'prec-div': 'true', 'prec-sqrt': 'true', 'ftz': 'false'}
CUDA_REQUIRED_SPELLING = ['--fmad=false', '-prec-div=true', '-prec-sqrt=true', '-ftz=false']
CUDA_FAST = ('use_fast_math', 'use-fast-math')


def check_c(cmds, bad):
    checked = 0
    for c in cmds:
        args = c.get('arguments') or shlex.split(c['command'])
        src = c['file']
        if src.endswith('.cu'):
            checked += check_nvcc(args, src, bad)
            continue
        if not src.endswith('.c'):
            continue
        checked += 1
        for r in REQUIRED:
            if r not in args:
                bad.append('%s: lacks %s' % (src, r))
        # The last word on contraction must be "off".
        contract = [x for x in args if x.startswith('-ffp-contract=')]
        if contract and contract[-1] != '-ffp-contract=off':
            bad.append('%s: ends with %s' % (src, contract[-1]))
        for x in args:
            if x.startswith(FORBIDDEN_PREFIXES):
                bad.append('%s: opts out with %s' % (src, x))
    return checked


def check_nvcc(args, what, bad):
    """One nvcc command line: the CUDA list once, nothing that opts out."""
    seen = {k: [] for k in CUDA_REQUIRED}
    for x in args:
        bare = x.lstrip('-')
        if any(f in bare for f in CUDA_FAST) or re.search(r'-f(fast-math|fp-contract=(fast|on))', x):
            bad.append('%s: opts out with %s' % (what, x))
            continue
        key, _, val = bare.partition('=')
        if key in CUDA_REQUIRED:
            seen[key].append(val)
    for key, want in CUDA_REQUIRED.items():
        vals = seen[key]
        if not vals:
            bad.append('%s: lacks the CUDA strict-FP flag %s=%s' % (what, key, want))
        elif any(v != want for v in vals):
            bad.append('%s: opts out with %s=%s' % (what, key, [v for v in vals if v != want][0]))
        elif len(vals) > 1:
            bad.append('%s: repeats %s=%s privately (%d times)' % (what, key, want, len(vals)))
    return 1


def ninja_commands(path):
    """(outputs, inputs, command) of every build statement of build.ninja."""
    out = []
    cur = None
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('build '):
                head = line[len('build '):]
                outs, _, rest = head.partition(': ')
                parts = rest.split()
                cur = [outs, parts[1:] if parts else [], None]
                out.append(cur)
            elif cur is not None and line.startswith(' COMMAND = '):
                cur[2] = line[len(' COMMAND = '):]
            elif not line.startswith(' '):
                cur = None
    return out


def check_ninja(build, bad):
    path = os.path.join(build, 'build.ninja')
    if not os.path.exists(path):
        return 0
    checked = 0
    for outs, ins, cmd in ninja_commands(path):
        if not cmd:
            continue
        try:
            args = shlex.split(cmd)
        except ValueError:
            args = cmd.split()
        is_nvcc = any(os.path.basename(a) == 'nvcc' for a in args[:3])
        compiles_cu = any(a.endswith('.cu') for a in args) or any(i.endswith('.cu') for i in ins)
        if is_nvcc and compiles_cu:
            checked += check_nvcc(args, outs.split()[0], bad)
        elif compiles_cu and any(a.endswith(('clang', 'clang++')) for a in args[:3]):
            bad.append('%s: compiles a .cu with %s, which the CUDA policy does not cover'
                       % (outs.split()[0], args[0]))
    return checked


def check_definition(build, bad):
    """The CUDA list is written once, in the top-level meson.build."""
    info = os.path.join(build, 'meson-info', 'meson-info.json')
    try:
        src = json.load(open(info))['directories']['source']
    except (OSError, KeyError, ValueError):
        return
    found = []
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if not d.startswith(('.', 'build'))]
        if 'meson.build' not in files:
            continue
        p = os.path.join(root, 'meson.build')
        for n, line in enumerate(open(p), 1):
            code = line.split('#', 1)[0]
            for flag in CUDA_REQUIRED_SPELLING:
                if flag.lstrip('-') in code:
                    found.append((os.path.relpath(p, src), n, flag))
    places = {(p, n) for p, n, _ in found}
    if found and (len(places) != 1 or next(iter(places))[0] != 'meson.build'):
        for p, n, flag in found:
            bad.append('%s:%d: the CUDA strict-FP list (%s) is defined outside the one '
                       'place, the top-level meson.build' % (p, n, flag))


def main():
    build = sys.argv[1]
    bad = []
    cmds_path = os.path.join(build, 'compile_commands.json')
    cmds = json.load(open(cmds_path)) if os.path.exists(cmds_path) else []
    n_c = check_c(cmds, bad)
    n_cu = check_ninja(build, bad)
    check_definition(build, bad)
    for b in bad:
        print(b)
    print('%d compiles checked (%d nvcc), %d problems' % (n_c + n_cu, n_cu, len(bad)))
    return 1 if bad or not (n_c + n_cu) else 0


if __name__ == '__main__':
    sys.exit(main())
