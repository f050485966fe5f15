#!/usr/bin/env python3
"""The Python package's ctypes declarations against the C headers.

python/exactvmaf/_lib.py declares the structs it hands to the library and
copies the enums' numbers; nothing else ties them to the headers. The C side
(tests/python_abi.c, built with the headers) prints each struct's size, each
field's offset and each enum value; here every one is held against the
package's ctypes types and tables. A field moved, a type of another size or a
renumbered enum fails, naming it.

usage: python_abi_test.py --dump build/tests/python_abi --package python
"""
import argparse, ctypes, os, subprocess, sys

import testlib
from testlib import record


def offset(struct, path):
    """The byte offset of a dotted field path in a ctypes Structure."""
    at, t = 0, struct
    for name in path.split('.'):
        f = getattr(t, name)
        at += f.offset
        t = dict(t._fields_)[name]
    return at


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dump', required=True)
    ap.add_argument('--package', required=True, help='the folder holding exactvmaf/')
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.package))
    from exactvmaf import _lib as L

    structs = {'VmafPicture': L.Picture, 'VmafConfiguration': L.Configuration,
               'VmafPictureConfiguration': L.PictureConfiguration,
               'VmafModelConfig': L.ModelConfig, 'VmafModelCollectionScore': L.CollectionScore}
    # The C enum's name -> the package's number for it.
    enums = {'VMAF_LOG_LEVEL_NONE': L.LOG_NONE, 'VMAF_LOG_LEVEL_ERROR': L.LOG_ERROR,
             'VMAF_LOG_LEVEL_WARNING': L.LOG_WARNING, 'VMAF_LOG_LEVEL_INFO': L.LOG_INFO,
             'VMAF_LOG_LEVEL_DEBUG': L.LOG_DEBUG}
    for k, c in (('420', 'YUV420P'), ('422', 'YUV422P'), ('444', 'YUV444P'), ('400', 'YUV400P')):
        enums['VMAF_PIX_FMT_' + c] = L.PIX_FMT[k]
    for k in L.POOL:
        enums['VMAF_POOL_METHOD_' + k.upper()] = L.POOL[k]
    for k in L.BACKEND:
        enums['EXACTVMAF_BACKEND_' + k.upper().replace('-', '_')] = L.BACKEND[k]

    out = subprocess.run([a.dump], capture_output=True, text=True, check=True).stdout
    seen = set()
    for line in out.splitlines():
        kind, name, value = line.split()
        value = int(value)
        if kind == 'sizeof':
            got = ctypes.sizeof(structs[name])
            record('sizeof %s: C %d, Python %d' % (name, value, got), got == value)
        elif kind == 'offsetof':
            struct, _, path = name.partition('.')
            got = offset(structs[struct], path)
            record('offsetof %s: C %d, Python %d' % (name, value, got), got == value)
        else:
            got = enums.get(name)
            seen.add(name)
            record('%s: C %d, Python %s' % (name, value, got), got == value)
    # Every number the package copies is one the C side printed.
    for name in sorted(set(enums) - seen):
        record('%s: the package copies it, the C side does not print it' % name, False)
    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
