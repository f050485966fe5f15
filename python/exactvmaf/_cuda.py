"""Frames already on a CUDA GPU: CuPy arrays, PyTorch CUDA tensors, Numba
device arrays, anything with __cuda_array_interface__ or DLPack.

Their device addresses are handed to exactvmaf_cuda_picture_wrap(): nothing
is copied here. The library reads them on the GPU when they belong to the
context its pipeline runs in, the device's primary context (PyTorch's,
CuPy's and Numba's); memory of another context, or a metric on the CPU, is
downloaded once per picture. The arrays are kept referenced until the
library calls `release` (the frame's GPU work done).

A frame is a 2-D luma plane; (Y, U, V), three 2-D planes (4:2:0, 4:2:2 or
4:4:4 by their sizes); or (Y, UV) with Cb and Cr interleaved, UV of shape
(h, w, 2) or (h, 2w) (NV12, P010, P016, NV16); or with surface='nv12',
'p010' or 'p016', one 2-D array of 3h/2 rows holding Y then UV, as GPU
decoders give them. Samples are uint8, or uint16 with bitdepth= (P010:
10 bits stored << 6; P016 with bitdepth=B: B bits stored << 16-B). Device
samples are not range-checked (that would read them back).
"""
import ctypes
import itertools
import threading

from .errors import Error

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
SURFACES = {'nv12': (8, 0), 'p010': (10, 6), 'p016': (16, 0)}

ReleaseCallback = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class CudaFrame(ctypes.Structure):
    """ExactvmafCudaFrame (include/exactvmaf/exactvmaf.h)."""
    _fields_ = [('pix_fmt', ctypes.c_int), ('bpc', ctypes.c_uint), ('w', ctypes.c_uint),
                ('h', ctypes.c_uint), ('semi_planar', ctypes.c_int), ('shift', ctypes.c_uint),
                ('data', ctypes.c_ulonglong * 3), ('pitch', ctypes.c_size_t * 3),
                ('cu_stream', ctypes.c_void_p), ('release', ReleaseCallback),
                ('opaque', ctypes.c_void_p)]


# What the library still reads, by the key it gives back to `release`.
_held = {}
_held_lock = threading.Lock()
_keys = itertools.count(1)


def _release(opaque):
    with _held_lock:
        _held.pop(opaque, None)


_release_cb = ReleaseCallback(_release)


class _DLDevice(ctypes.Structure):
    _fields_ = [('device_type', ctypes.c_int32), ('device_id', ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [('code', ctypes.c_uint8), ('bits', ctypes.c_uint8), ('lanes', ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [('data', ctypes.c_void_p), ('device', _DLDevice), ('ndim', ctypes.c_int32),
                ('dtype', _DLDataType), ('shape', ctypes.POINTER(ctypes.c_int64)),
                ('strides', ctypes.POINTER(ctypes.c_int64)), ('byte_offset', ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class Plane:
    """One device array: address, shape, element size, row pitch, the
    stream its writes were queued on, and what keeps its memory alive."""

    def __init__(self, ptr, shape, itemsize, strides, stream, keep):
        self.ptr, self.shape, self.itemsize, self.stream, self.keep = (ptr, tuple(shape),
                                                                       itemsize, stream, keep)
        if strides is None:     # C-contiguous
            strides, step = [], itemsize
            for n in reversed(self.shape):
                strides.insert(0, step)
                step *= n
        self.strides = tuple(strides)


def dlpack_device(x):
    f = getattr(x, '__dlpack_device__', None)
    if f is None:
        return None
    try:
        return tuple(f())[0]
    except Exception:
        return None


def is_device(x):
    """Whether x is an array in CUDA device memory (not a CPU DLPack tensor)."""
    if hasattr(x, '__cuda_array_interface__'):
        return True
    return dlpack_device(x) in (KDL_CUDA, KDL_CUDA_MANAGED)


def _stream(value):
    # __cuda_array_interface__ v3: None (no ordering needed), 1 the legacy
    # default stream, 2 the per-thread default stream, else a CUstream.
    if value in (None, 0, 1):
        return None
    return value     # CU_STREAM_PER_THREAD is 0x2 in the driver API too


def plane(x, what):
    """The Plane of a device array."""
    cai = getattr(x, '__cuda_array_interface__', None)
    if cai is not None:
        typestr = cai['typestr']
        if typestr[1:] not in ('u1', 'u2') or (typestr[1:] == 'u2' and typestr[0] == '>'):
            raise Error('%s: device samples must be uint8 or uint16, not %s' % (what, typestr))
        if cai.get('mask') is not None:
            raise Error('%s: masked device arrays are not frames' % what)
        ptr = cai['data'][0]
        return Plane(ptr, cai['shape'], int(typestr[2:]), cai.get('strides'),
                     _stream(cai.get('stream')), x)
    dev = dlpack_device(x)
    if dev not in (KDL_CUDA, KDL_CUDA_MANAGED):
        raise Error('%s: not a CUDA array (DLPack device type %r)' % (what, dev))
    try:
        # The consumer names the stream it reads on: the legacy default
        # stream, which the library's wait is recorded on.
        capsule = x.__dlpack__(stream=1)
    except TypeError:
        capsule = x.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(capsule, b'dltensor'))
    if t.dtype.code != 1 or t.dtype.bits not in (8, 16) or t.dtype.lanes != 1:
        raise Error('%s: device samples must be uint8 or uint16 (DLPack type code %d, %d bits)'
                    % (what, t.dtype.code, t.dtype.bits))
    itemsize = t.dtype.bits // 8
    shape = [t.shape[i] for i in range(t.ndim)]
    strides = [t.strides[i] * itemsize for i in range(t.ndim)] if t.strides else None
    # The capsule, unconsumed, calls the producer's deleter when it goes.
    return Plane(t.data + t.byte_offset, shape, itemsize, strides, None, (x, capsule))


def _rows(p, what, channels=1):
    """(h, w, pitch) of a plane of h rows of w samples (w pairs when
    channels is 2), each sample's words next to each other."""
    if len(p.shape) == 2 and channels == 1:
        ok = p.strides[1] == p.itemsize
    elif len(p.shape) == 3 and channels == 2 and p.shape[2] == 2:
        ok = p.strides[2] == p.itemsize and p.strides[1] == 2 * p.itemsize
    elif len(p.shape) == 2 and channels == 2 and p.shape[1] % 2 == 0:
        ok = p.strides[1] == p.itemsize
        p = Plane(p.ptr, (p.shape[0], p.shape[1] // 2, 2), p.itemsize,
                  (p.strides[0], 2 * p.itemsize, p.itemsize), p.stream, p.keep)
    else:
        raise Error('%s: a device plane of shape %s is not %s' % (
            what, p.shape, 'a 2-D plane' if channels == 1 else
            'interleaved chroma (h, w, 2) or (h, 2w)'))
    if not ok or p.strides[0] <= 0:
        raise Error('%s: device plane rows must be contiguous samples with a positive pitch '
                    '(strides %s)' % (what, p.strides))
    return p.shape[0], p.shape[1], p.strides[0]


def _chroma_fmt(h, w, ch, cw, what):
    fmts = {'420': ((h + 1) // 2, (w + 1) // 2, h // 2, w // 2),
            '422': (h, (w + 1) // 2, h, w // 2), '444': (h, w, h, w)}
    for fmt, (fh, fw, ph, pw) in fmts.items():
        if (ch, cw) in ((fh, fw), (ph, pw)):
            return fmt
    raise Error('%s: chroma planes of %dx%d fit no 4:2:0, 4:2:2 or 4:4:4 layout of a %dx%d '
                'luma plane' % (what, cw, ch, w, h))


def describe(frame, bitdepth, surface, what):
    """(geometry, CudaFrame fields, planes) of a device frame; geometry as
    _frames._geometry gives it: (pix_fmt, bpc, w, h)."""
    if isinstance(frame, (tuple, list)):
        parts = [plane(x, '%s plane %d' % (what, i)) for i, x in enumerate(frame)]
    else:
        parts = [plane(frame, what)]
    sizes = {p.itemsize for p in parts}
    if len(sizes) != 1:
        raise Error('%s: planes of mixed sample sizes' % what)
    itemsize = sizes.pop()
    shift = 0
    if surface is not None:
        if surface not in SURFACES:
            raise Error("surface is 'nv12', 'p010' or 'p016', not %r" % (surface,))
        sbpc, shift = SURFACES[surface]
        if surface == 'p016' and bitdepth:
            sbpc, shift = bitdepth, 16 - bitdepth
        if (itemsize == 1) != (sbpc == 8):
            raise Error('%s: %s holds %d-byte samples, not %d' % (
                what, surface, 1 if sbpc == 8 else 2, itemsize))
        if bitdepth not in (None, sbpc):
            raise Error('%s: %s is %d-bit, but bitdepth=%d' % (what, surface, sbpc, bitdepth))
        bpc = sbpc
    elif itemsize == 1:
        if bitdepth not in (None, 8):
            raise Error('%s: uint8 samples, but bitdepth=%d' % (what, bitdepth))
        bpc = 8
    else:
        if bitdepth is None or not 9 <= bitdepth <= 16:
            raise Error('%s: uint16 samples need bitdepth= 9..16' % what)
        bpc = bitdepth
    f = CudaFrame(bpc=bpc, shift=shift)
    if surface is not None and len(parts) == 1:
        # One allocation: Y rows, then the interleaved chroma rows, one pitch.
        rows, w, pitch = _rows(parts[0], what)
        if rows % 3:
            raise Error('%s: a %s surface has 3h/2 rows, not %d' % (what, surface, rows))
        h = rows // 3 * 2
        if w % 2 or h % 2:
            raise Error('%s: a %s surface has an even width and height' % (what, surface))
        f.pix_fmt, f.semi_planar = 1, 1
        f.data[0], f.pitch[0] = parts[0].ptr, pitch
        f.data[1], f.pitch[1] = parts[0].ptr + h * pitch, pitch
        fmt = '420'
    elif len(parts) == 1:
        h, w, f.pitch[0] = _rows(parts[0], what)
        f.data[0], f.pix_fmt, fmt = parts[0].ptr, 4, '400'
    elif len(parts) == 2:
        h, w, f.pitch[0] = _rows(parts[0], what + ' Y')
        ch, cw, f.pitch[1] = _rows(parts[1], what + ' UV', channels=2)
        fmt = _chroma_fmt(h, w, ch, cw, what)
        if fmt == '444':
            raise Error('%s: interleaved 4:4:4 chroma is not a layout the library reads' % what)
        f.data[0], f.data[1], f.semi_planar = parts[0].ptr, parts[1].ptr, 1
        f.pix_fmt = {'420': 1, '422': 2}[fmt]
    elif len(parts) == 3:
        dims = [_rows(p, '%s plane %d' % (what, i)) for i, p in enumerate(parts)]
        h, w = dims[0][:2]
        if dims[1][:2] != dims[2][:2]:
            raise Error('%s: U is %s but V is %s' % (what, dims[1][:2], dims[2][:2]))
        fmt = _chroma_fmt(h, w, dims[1][0], dims[1][1], what)
        f.pix_fmt = {'420': 1, '422': 2, '444': 3}[fmt]
        for i in range(3):
            f.data[i], f.pitch[i] = parts[i].ptr, dims[i][2]
    else:
        raise Error('%s: a device frame is Y, (Y, UV) or (Y, U, V), not %d planes'
                    % (what, len(parts)))
    f.w, f.h = w, h
    streams = {p.stream for p in parts} - {None}
    if len(streams) > 1:
        raise Error('%s: planes written on different streams' % what)
    f.cu_stream = streams.pop() if streams else None
    return (fmt, bpc, w, h), f, parts


def wrap(L, pic, f, parts, check):
    """Wrap the frame into pic; the planes stay referenced until `release`."""
    key = next(_keys)
    with _held_lock:
        _held[key] = [p.keep for p in parts]
    f.release, f.opaque = _release_cb, key
    try:
        check(L.exactvmaf_cuda_picture_wrap(ctypes.byref(pic), ctypes.byref(f)))
    except BaseException:
        _release(key)       # nothing taken over
        raise
