"""exactvmaf: VMAF and its component metrics, equal to Netflix libvmaf v3.2.0
bit for bit, on the CPU or a GPU.

    import exactvmaf
    r = exactvmaf.score('ref.mp4', 'dis.mp4')            # files: anything the CLI reads
    r.pooled['vmaf']['mean'], r.frames[0]['vmaf']
    r = exactvmaf.score(ref_frames, dis_frames, bitdepth=10)   # numpy frames
    r = exactvmaf.score(ref_tensors, dis_tensors)   # CUDA tensors, read in place
    with exactvmaf.Scorer() as s:                    # frames one at a time
        for index, metrics in s.push(ref, dis): ...

Batch scoring on Dask: python3 -m exactvmaf.batch JOBS.csv --out DIR
"""
import os

from .errors import Error
from .result import Result, pool
from .spec import Model
from . import spec as _spec
from ._scorer import Scorer

__all__ = ['score', 'Scorer', 'Result', 'Error', 'Model', 'pool', 'devices',
           'library_version', '__version__']

BACKENDS = ('auto', 'cpu', 'cuda', 'opencl', 'auto-opencl')


def _version():
    try:
        from . import _paths
        return _paths.VERSION
    except ImportError:     # the source tree's python/, not installed
        return 'unknown'


#: The package's version: the library's (meson.build's project()).
__version__ = _version()


def _is_path(x):
    return isinstance(x, (str, bytes, os.PathLike))


def score(ref, dis, model='vmaf_v0.6.1', features=(), backend='auto', threads=0, **options):
    """Score the distorted video against the reference; returns a Result.

    ref, dis   two paths (anything the exactvmaf tool reads: y4m, raw YUV with
               width=, height=, pixel_format=, bitdepth=, or a container FFmpeg
               decodes), or two iterables of frames: a 2-D luma array, or a
               (Y, U, V) tuple of 2-D arrays; uint8, or uint16 with bitdepth=;
               numpy arrays, CPU DLPack tensors, or CUDA arrays (CuPy,
               PyTorch, Numba: __cuda_array_interface__ or DLPack), read on
               the GPU where they are; those may also be (Y, UV) with
               interleaved chroma, or one NV12/P010/P016 surface with
               surface='nv12', 'p010' or 'p016' (exactvmaf._cuda).
    model      a built-in name, a JSON file, the CLI's "version=...:name=..."
               text, a Model, several of these, or None for features only.
    features   extractors to run besides the models' ("psnr", ("psnr",
               {"enable_chroma": False}), or the CLI's "psnr=enable_chroma=false").
    backend    'auto' (a CUDA GPU when usable; the CPU takes over, same scores,
               where it fails mid-run), 'cpu', 'cuda', 'opencl' or 'auto-opencl'
               (OpenCL as auto does CUDA).
    threads    CPU worker threads (0: the calling thread only).
    options    for frames: bitdepth=, subsample=, gpu=, frames_in_flight=, surface=;
               for files: any long option of the tool (frame_cnt=100,
               scale_to_ref=True, ...).
    """
    if backend not in BACKENDS:
        raise Error("backend is 'auto', 'cpu', 'cuda', 'opencl' or 'auto-opencl', not %r"
                    % (backend,))
    _count('threads', threads)
    gpu = _count('gpu', options.pop('gpu', 0))
    if _is_path(ref) and _is_path(dis):
        from ._cli import PRESETS, score_files
        # A CTC preset brings its own models, VMAF's among them.
        if model == 'vmaf_v0.6.1' and any(options.get(p) for p in PRESETS):
            model = None
        return score_files(ref, dis, _spec.models(model), _spec.features(features), backend,
                           threads, gpu, options)
    if _is_path(ref) or _is_path(dis):
        raise Error('ref and dis are both paths or both frame sequences')
    bitdepth = options.pop('bitdepth', None)
    if bitdepth is not None:
        _count('bitdepth', bitdepth)
    subsample = _count('subsample', options.pop('subsample', 0))
    frames_in_flight = _count('frames_in_flight', options.pop('frames_in_flight', 0), 32)
    surface = options.pop('surface', None)
    if options:
        raise Error('unknown option(s) for frames: %s' % ', '.join(sorted(options)))
    from ._frames import score_frames
    return score_frames(ref, dis, model, features, backend, threads, subsample, bitdepth, gpu,
                        frames_in_flight, surface)


def _count(name, value, top=2 ** 31 - 1):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        raise Error('%s is an integer from 0 to %d, not %r' % (name, top, value))
    return value


def library_version():
    """The loaded library's version ("3.2.0-exactvmaf-...")."""
    from ._lib import lib
    return lib().vmaf_version().decode()


def devices():
    """Every GPU device the library can use, as {'backend': 'cuda' or 'opencl',
    'index': the index backend= and gpu= take, 'description': the line
    `exactvmaf --list-devices` prints}; [] where there is none."""
    import ctypes
    from ._lib import lib, BACKEND
    L = lib()
    found = []
    line = ctypes.create_string_buffer(512)
    for name in ('cuda', 'opencl'):
        i = 0
        while L.exactvmaf_device_describe(BACKEND[name], i, line, len(line)) == 0:
            found.append({'backend': name, 'index': i,
                          'description': line.value.decode('utf-8', 'replace')})
            i += 1
    return found
