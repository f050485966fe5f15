#!/usr/bin/env python3
"""CUDA arrays into exactvmaf.score() and Scorer, read where they are,
against the same frames as numpy: every output of every frame and every
pooled value, 64-bit pattern for pattern.

The device arrays are CuPy's or PyTorch's when one is importable; else this
script makes its own in the device's primary context (as PyTorch and CuPy
do: the library's pipeline reads such memory in place) through the driver
API (libcuda.so.1 with ctypes: cuMemAllocPitch, cuMemcpy2D), behind a small
object with __cuda_array_interface__ version 3. Cases: 8-bit and 10-bit
fixtures (576x324 4:2:0), as three pitched planes, as (Y, UV) semi-planar
(NV12, P010 with its shift of 6) and as one NV12 surface; backends cuda and
cpu (where the library downloads the frames). Exit 77 without a CUDA device.

usage: python_gpu_tensor_test.py --lib build/src/libexactvmaf.so --package python/
                                 --data build/test-data
"""
import argparse, ctypes, os, struct, sys

import testlib
from testlib import record


class Driver:
    """Device buffers through the CUDA driver API, in the primary context."""

    def __init__(self):
        self.cu = cu = ctypes.CDLL('libcuda.so.1')
        self._ok(cu.cuInit(0), 'cuInit')
        n = ctypes.c_int()
        self._ok(cu.cuDeviceGetCount(ctypes.byref(n)), 'cuDeviceGetCount')
        if not n.value:
            raise OSError('no CUDA device')
        self.dev = ctypes.c_int()
        self._ok(cu.cuDeviceGet(ctypes.byref(self.dev), 0), 'cuDeviceGet')
        self.ctx = ctypes.c_void_p()
        self._ok(cu.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), self.dev),
                 'cuDevicePrimaryCtxRetain')
        self._ok(cu.cuCtxPushCurrent_v2(self.ctx), 'cuCtxPushCurrent')

    @staticmethod
    def _ok(rc, what):
        if rc:
            raise OSError('%s failed: CUresult %d' % (what, rc))

    def upload(self, a, extra_pitch=256):
        """A pitched device copy of the 2-D (or (h, w, 2)) numpy array a."""
        import numpy as np
        a = np.ascontiguousarray(a)
        row = a.strides[0]
        ptr, pitch = ctypes.c_uint64(), ctypes.c_size_t()
        # Wider than the rows, so that a pitch the package ignored would show.
        self._ok(self.cu.cuMemAllocPitch_v2(ctypes.byref(ptr), ctypes.byref(pitch),
                                            ctypes.c_size_t(row + extra_pitch),
                                            ctypes.c_size_t(a.shape[0]), ctypes.c_uint(16)),
                 'cuMemAllocPitch')

        class Copy2D(ctypes.Structure):
            _fields_ = [('srcXInBytes', ctypes.c_size_t), ('srcY', ctypes.c_size_t),
                        ('srcMemoryType', ctypes.c_int), ('srcHost', ctypes.c_void_p),
                        ('srcDevice', ctypes.c_uint64), ('srcArray', ctypes.c_void_p),
                        ('srcPitch', ctypes.c_size_t), ('dstXInBytes', ctypes.c_size_t),
                        ('dstY', ctypes.c_size_t), ('dstMemoryType', ctypes.c_int),
                        ('dstHost', ctypes.c_void_p), ('dstDevice', ctypes.c_uint64),
                        ('dstArray', ctypes.c_void_p), ('dstPitch', ctypes.c_size_t),
                        ('WidthInBytes', ctypes.c_size_t), ('Height', ctypes.c_size_t)]
        c = Copy2D(srcMemoryType=1, srcHost=a.ctypes.data, srcPitch=row, dstMemoryType=2,
                   dstDevice=ptr.value, dstPitch=pitch.value, WidthInBytes=row,
                   Height=a.shape[0])
        self._ok(self.cu.cuMemcpy2D_v2(ctypes.byref(c)), 'cuMemcpy2D')
        strides = (pitch.value,) + a.strides[1:]
        return DeviceArray(self, ptr.value, a.shape, a.dtype.str, strides)


class DeviceArray:
    """__cuda_array_interface__ v3 over a driver allocation (freed with it)."""

    def __init__(self, drv, ptr, shape, typestr, strides):
        self.drv, self.ptr = drv, ptr
        self.__cuda_array_interface__ = {'version': 3, 'shape': tuple(shape),
                                         'typestr': typestr, 'data': (ptr, False),
                                         'strides': tuple(strides), 'stream': 1}

    def __del__(self):
        try:
            self.drv.cu.cuMemFree_v2(ctypes.c_uint64(self.ptr))
        except Exception:
            pass


def make_device(np):
    """(name, upload(numpy 2-D or (h, w, 2) array) -> device array)."""
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            return 'cupy', lambda a: cupy.asarray(a)
    except Exception:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            def up(a):
                return torch.from_numpy(a).cuda()
            return 'torch', up
    except Exception:
        pass
    drv = Driver()
    return 'driver API (primary context)', drv.upload


def read_yuv(np, path, w, h, bpc):
    dt = np.dtype('<u2') if bpc > 8 else np.dtype(np.uint8)
    raw = np.fromfile(path, dt)
    n = raw.size // (w * h * 3 // 2)
    frames = []
    for i in range(n):
        f = raw[i * w * h * 3 // 2:(i + 1) * w * h * 3 // 2]
        frames.append((f[:w * h].reshape(h, w), f[w * h:w * h * 5 // 4].reshape(h // 2, w // 2),
                       f[w * h * 5 // 4:].reshape(h // 2, w // 2)))
    return frames


def bits_of(r):
    return ([{k: struct.pack('<d', v) for k, v in f.items()} for f in r.frames],
            {k: {m: struct.pack('<d', v) for m, v in p.items()} for k, p in r.pooled.items()})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib', required=True)
    ap.add_argument('--package', required=True)
    ap.add_argument('--data', required=True)
    ap.add_argument('--frames', type=int, default=8)
    a = ap.parse_args()
    try:
        import numpy as np
    except ImportError:
        print('SKIP: numpy is not installed')
        return 77
    try:
        cu = ctypes.CDLL('libcuda.so.1')
        n = ctypes.c_int()
        if cu.cuInit(0) or cu.cuDeviceGetCount(ctypes.byref(n)) or not n.value:
            raise OSError('no CUDA device')
    except OSError as e:
        return testlib.no_device('no CUDA device here (%s)' % e)
    os.environ['EXACTVMAF_LIBRARY'] = a.lib
    sys.path.insert(0, a.package)
    import exactvmaf
    which, up = make_device(np)
    drv = None
    print('device arrays: %s' % which)
    for fixture, bpc in (('src01_576x324_8b_derived', 8), ('src01_576x324_10b', 10)):
        d = os.path.join(a.data, 'fixtures', fixture)
        if not os.path.isdir(d):
            record('fixture %s' % fixture, False, 'missing')
            continue
        w, h = 576, 324
        ref = read_yuv(np, os.path.join(d, 'ref.yuv'), w, h, bpc)[:a.frames]
        dis = read_yuv(np, os.path.join(d, 'dis.yuv'), w, h, bpc)[:a.frames]
        kw = {'bitdepth': bpc} if bpc > 8 else {}
        upload = up
        if bpc > 8 and which == 'torch':
            drv = drv or Driver()
            upload = drv.upload     # torch has no uint16 tensors to hand over
        shift = 6 if bpc == 10 else 0

        def planar(frames):
            return [tuple(upload(p) for p in f) for f in frames]

        def semi(frames):
            return [(upload(f[0] << shift), upload(np.stack([f[1], f[2]], axis=-1) << shift))
                    for f in frames]

        def surface(frames):
            return [upload(np.concatenate([f[0], np.stack([f[1], f[2]], axis=-1).reshape(
                h // 2, w)])) for f in frames]

        layouts = [('three pitched planes', planar, {})]
        layouts.append(('semi-planar (Y, UV)' + (' P010' if bpc == 10 else ' NV12'), semi,
                        {'surface': 'p010'} if bpc == 10 else {}))
        if bpc == 8:
            layouts.append(('one NV12 surface', surface, {'surface': 'nv12'}))
        for backend in ('cuda', 'cpu'):
            base = exactvmaf.score(ref, dis, features=['psnr', 'float_ssim', 'cambi'],
                                   backend=backend, **kw)
            want = bits_of(base)
            for label, make, extra in layouts:
                opts = dict(kw)
                opts.update(extra)
                if 'surface' in extra:
                    opts.pop('bitdepth', None)
                try:
                    r = exactvmaf.score(make(ref), make(dis),
                                        features=['psnr', 'float_ssim', 'cambi'],
                                        backend=backend, **opts)
                    got = bits_of(r)
                    n = sum(len(f) for f in want[0])
                    record('%d-bit %s, backend %s == numpy (%d values)' % (
                        bpc, label, backend, n), got == want and n > 0,
                        'differs' if got != want else 'no values')
                except exactvmaf.Error as e:
                    record('%d-bit %s, backend %s' % (bpc, label, backend), False, e)
            with exactvmaf.Scorer(features=['psnr'], backend=backend, **kw) as s:
                for r_, d_ in zip(planar(ref), planar(dis)):
                    s.push(r_, d_)
            r2 = exactvmaf.score(ref, dis, features=['psnr'], backend=backend, **kw)
            record('%d-bit Scorer on device frames, backend %s == numpy' % (bpc, backend),
                   bits_of(s.result) == bits_of(r2))
    return testlib.finish()


if __name__ == '__main__':
    sys.exit(main())
