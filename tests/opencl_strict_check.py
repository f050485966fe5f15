#!/usr/bin/env python3
"""Fail unless the OpenCL kernels keep the strict floating-point policy.

- Every kernel file (*.cl under src/) starts, after its comment, with
  `#pragma OPENCL FP_CONTRACT OFF`, and then includes the prelude
  gpu/opencl/ev_opencl.h (which says the same and sets the types), or the
  kernel dialect gpu/ev_kernel.h, whose OpenCL branch includes that prelude
  first; no file turns contraction back on.
- Kernel texts in the dialect (*_kernels.h under src/, included by a .cl
  and a .cu) are held to the same rules on calls and divisions.
- No kernel calls a function whose rounding the device chooses: native_*,
  half_*, mad, divide, sqrt, rsqrt, or a float `/` by hand: quotients and
  roots go through fp.h's FDIV (fp_exact.h's correctly rounded routine).
- fp.h maps FDIV to ev_fdiv_rn under OpenCL.
- The build option list (EVL_BUILD_OPTIONS_COMMON in opencl_device.h) is
  exactly the fixed one, and holds none of -cl-mad-enable,
  -cl-fast-relaxed-math, -cl-unsafe-math-optimizations,
  -cl-finite-math-only, -cl-denorms-are-zero, -cl-no-signed-zeros.

usage: opencl_strict_check.py SRC_DIR
"""
import os, re, sys

EXPECTED_OPTIONS = '-cl-std=CL1.2'
FORBIDDEN_OPTIONS = ('-cl-mad-enable', '-cl-fast-relaxed-math', '-cl-unsafe-math-optimizations',
                     '-cl-finite-math-only', '-cl-denorms-are-zero', '-cl-no-signed-zeros')
PRELUDES = ('#include "gpu/opencl/ev_opencl.h"', '#include "gpu/ev_kernel.h"')
FORBIDDEN_CALLS = re.compile(r'\b(native_\w+|half_\w+|mad|divide|sqrt|rsqrt|fma)\s*\(')


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    src = sys.argv[1]
    bad = []
    kernels = []
    texts = []
    for root, _, files in os.walk(src):
        kernels += [os.path.join(root, f) for f in files if f.endswith('.cl')]
        texts += [os.path.join(root, f) for f in files if f.endswith('_kernels.h')]
    if not kernels:
        bad.append('no *.cl kernel files under %s' % src)
    for path in sorted(kernels):
        code = strip_comments(open(path).read())
        lines = [l.strip() for l in code.splitlines() if l.strip()]
        if not lines or lines[0] != '#pragma OPENCL FP_CONTRACT OFF':
            bad.append('%s: does not start with #pragma OPENCL FP_CONTRACT OFF' % path)
        incs = [l for l in lines if l.startswith('#include')]
        if not incs or incs[0] not in PRELUDES:
            bad.append('%s: the first include is not the prelude gpu/opencl/ev_opencl.h '
                       'or the dialect gpu/ev_kernel.h' % path)
        if re.search(r'FP_CONTRACT\s+(ON|DEFAULT)', code):
            bad.append('%s: turns contraction back on' % path)
    for path in sorted(kernels + texts):
        code = strip_comments(open(path).read())
        for m in FORBIDDEN_CALLS.finditer(code):
            bad.append('%s: calls %s, whose rounding the device chooses' % (path, m.group(1)))
        for n, l in enumerate(code.splitlines(), 1):
            if re.search(r'[^/*]/[^/*=]', l) and 'float' in l and '#include' not in l:
                bad.append('%s:%d: a float division by hand (use FDIV): %s' % (path, n, l.strip()))
    dialect_path = os.path.join(src, 'gpu', 'ev_kernel.h')
    dialect = strip_comments(open(dialect_path).read()) if os.path.exists(dialect_path) else ''
    m = re.search(r'#if defined\(__OPENCL_C_VERSION__\)\s*\n\s*#include "([^"]+)"', dialect)
    if not m or m.group(1) != 'gpu/opencl/ev_opencl.h':
        bad.append('src/gpu/ev_kernel.h: its OpenCL branch does not include the prelude first')
    prelude = os.path.join(src, 'gpu', 'opencl', 'ev_opencl.h')
    if '#pragma OPENCL FP_CONTRACT OFF' not in open(prelude).read():
        bad.append('%s: lacks #pragma OPENCL FP_CONTRACT OFF' % prelude)
    fp = strip_comments(open(os.path.join(src, 'fp.h')).read())
    m = re.search(r'#if defined\(__OPENCL_C_VERSION__\)\s*\n#define FMUL.*?#elif', fp, re.S)
    if not m or not re.search(r'#define FDIV\(a, b\) ev_fdiv_rn\(', m.group(0)):
        bad.append('src/fp.h: FDIV is not ev_fdiv_rn under OpenCL')
    dev = open(os.path.join(src, 'gpu', 'opencl', 'opencl_device.h')).read()
    m = re.search(r'#define EVL_BUILD_OPTIONS_COMMON\s+"([^"]*)"', dev)
    if not m:
        bad.append('opencl_device.h: no EVL_BUILD_OPTIONS_COMMON')
    else:
        if m.group(1) != EXPECTED_OPTIONS:
            bad.append('EVL_BUILD_OPTIONS_COMMON is "%s", not the fixed "%s"' %
                       (m.group(1), EXPECTED_OPTIONS))
        for o in FORBIDDEN_OPTIONS:
            if o in dev:
                bad.append('opencl_device.h names %s' % o)
    for b in bad:
        print('FAIL', b)
    print('%d kernel files and %d dialect texts checked, %d problems' %
          (len(kernels), len(texts), len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
