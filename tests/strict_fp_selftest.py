#!/usr/bin/env python3
"""The strict-FP checker must fail on every way a .cu compile can break the
CUDA policy, and pass the compliant line. Each case is a synthetic
build.ninja fragment in a temporary build folder.

usage: strict_fp_selftest.py CHECKER
"""
import os, subprocess, sys, tempfile

LIST = '--fmad=false -prec-div=true -prec-sqrt=true -ftz=false'
NVCC = '/usr/local/cuda/bin/nvcc -cubin -arch=sm_80 %s -o k.cubin ../src/k.cu'
CASES = [
    ('compliant', LIST, 0),
    ('lacks the list', '', 1),
    ('lacks one flag', '--fmad=false -prec-div=true -prec-sqrt=true', 1),
    ('repeats the list privately', LIST + ' --fmad=false', 1),
    ('opts out with --use_fast_math', LIST + ' --use_fast_math', 1),
    ('opts back into contraction', LIST + ' -fmad=true', 1),
    ('flushes subnormals', LIST.replace('-ftz=false', '-ftz=true'), 1),
    ('fast host math', LIST + ' -Xcompiler=-ffast-math', 1),
]


def main():
    checker = sys.argv[1]
    failures = 0
    for name, flags, want in CASES:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'build.ninja'), 'w') as f:
                f.write('build k.cubin: CUSTOM_COMMAND ../src/k.cu\n')
                f.write(' COMMAND = %s\n' % (NVCC % flags))
            with open(os.path.join(d, 'compile_commands.json'), 'w') as f:
                f.write('[]\n')
            r = subprocess.run([sys.executable, checker, d], capture_output=True, text=True)
            got = 1 if r.returncode else 0
            ok = got == want
            failures += not ok
            print('%-4s %-32s checker %s' % ('ok' if ok else 'FAIL', name,
                                             'rejects' if got else 'accepts'))
            if not ok:
                print(r.stdout)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
