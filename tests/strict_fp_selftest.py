#!/usr/bin/env python3
"""The strict-FP checker must fail on every way a .cu compile can break the
CUDA policy, and pass the compliant line. Each case is a synthetic
build.ninja fragment in a temporary build folder; the checker must end
with the exit status and say the problem expected (any other failure, a
traceback say, fails the case).

usage: strict_fp_selftest.py CHECKER
"""
import os, subprocess, sys, tempfile

LIST = '--fmad=false -prec-div=true -prec-sqrt=true -ftz=false'
NVCC = '/usr/local/cuda/bin/nvcc -cubin -arch=sm_80 %s -o k.cubin ../src/k.cu'
# name, the nvcc flags, the exit status and the message expected.
CASES = [
    ('compliant', LIST, 0, '1 compiles checked (1 nvcc), 0 problems'),
    ('lacks the list', '', 1, 'k.cubin: lacks the CUDA strict-FP flag fmad=false'),
    ('lacks one flag', '--fmad=false -prec-div=true -prec-sqrt=true', 1,
     'k.cubin: lacks the CUDA strict-FP flag ftz=false'),
    ('repeats the list privately', LIST + ' --fmad=false', 1,
     'k.cubin: repeats fmad=false privately (2 times)'),
    ('opts out with --use_fast_math', LIST + ' --use_fast_math', 1,
     'k.cubin: opts out with --use_fast_math'),
    ('opts back into contraction', LIST + ' -fmad=true', 1, 'k.cubin: opts out with fmad=true'),
    ('flushes subnormals', LIST.replace('-ftz=false', '-ftz=true'), 1,
     'k.cubin: opts out with ftz=true'),
    ('fast host math', LIST + ' -Xcompiler=-ffast-math', 1,
     'k.cubin: opts out with -Xcompiler=-ffast-math'),
]


def main():
    checker = sys.argv[1]
    failures = 0
    for name, flags, status, says in CASES:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'build.ninja'), 'w') as f:
                f.write('build k.cubin: CUSTOM_COMMAND ../src/k.cu\n')
                f.write(' COMMAND = %s\n' % (NVCC % flags))
            with open(os.path.join(d, 'compile_commands.json'), 'w') as f:
                f.write('[]\n')
            r = subprocess.run([sys.executable, checker, d], capture_output=True, text=True)
            out = r.stdout + r.stderr
            ok = r.returncode == status and says in out and 'Traceback' not in out
            failures += not ok
            print('%-4s %-32s checker %s (exit %d)' % ('ok' if ok else 'FAIL', name,
                                                       'rejects' if r.returncode else 'accepts',
                                                       r.returncode))
            if not ok:
                print('    expected exit %d and %r; it said:\n%s' % (status, says, out))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
