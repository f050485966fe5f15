#!/usr/bin/env python3
"""Fail unless every C compile in the build uses the strict-FP flag list and
none opts out. Reads BUILD/compile_commands.json."""
import json, os, shlex, sys

REQUIRED = ['-ffp-contract=off', '-fno-fast-math']
FORBIDDEN_PREFIXES = ('-ffast-math', '-ffp-contract=fast', '-ffp-contract=on',
                      '-funsafe-math-optimizations', '-fassociative-math',
                      '-freciprocal-math', '-Ofast', '--use_fast_math', '-ftz=true',
                      '-prec-div=false', '-prec-sqrt=false', '--fmad=true')


def main():
    build = sys.argv[1]
    cmds = json.load(open(os.path.join(build, 'compile_commands.json')))
    bad = []
    checked = 0
    for c in cmds:
        args = c.get('arguments') or shlex.split(c['command'])
        src = c['file']
        if not src.endswith(('.c', '.cu')):
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
    for b in bad:
        print(b)
    print('%d compiles checked, %d problems' % (checked, len(bad)))
    return 1 if bad or not checked else 0


if __name__ == '__main__':
    sys.exit(main())
