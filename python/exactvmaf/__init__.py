"""exactvmaf: VMAF and its component metrics, equal to Netflix libvmaf v3.2.0
bit for bit, on the CPU or a GPU.

    import exactvmaf
    r = exactvmaf.score('ref.mp4', 'dis.mp4')            # files: anything the CLI reads
    r.pooled['vmaf']['mean'], r.frames[0]['vmaf']
    r = exactvmaf.score(ref_frames, dis_frames, bitdepth=10)   # numpy frames
    r = exactvmaf.score(ref_tensors, dis_tensors)   # CUDA tensors, read in place
    with exactvmaf.Scorer() as s:                    # frames one at a time
        for index, metrics in s.push(ref, dis): ...

    c = exactvmaf.compare('ref.mp4', ['x264/a.mp4', 'x264/b.mp4', 'x265/a.mp4', 'x265/b.mp4'])
    c.bd_rate('x265'), c.ladders, c.encodes   # BD-rate against the first ladder
    c = exactvmaf.compare('ref.mp4', encodes, client=dask_client)   # scored on Dask
    exactvmaf.compare_plan('ref.mp4', encodes)   # ladders and bitrates, no scoring

Batch scoring on Dask: python3 -m exactvmaf.batch JOBS.csv --out DIR
"""
import os

from .errors import Error
from .result import Result, pool
from .spec import Model
from . import spec as _spec

__all__ = ['score', 'compare', 'compare_plan', 'Scorer', 'Result', 'Error', 'Model', 'pool', 'devices',
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


def __getattr__(name):
    # Scorer needs numpy; scoring files and comparing encodes do not.
    if name == 'Scorer':
        from ._scorer import Scorer
        return Scorer
    raise AttributeError("module 'exactvmaf' has no attribute %r" % name)


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
    from ._scorer import score_frames
    return score_frames(ref, dis, model, features, backend, threads, subsample, bitdepth, gpu,
                        frames_in_flight, surface)


def compare(ref, encodes=(), group_by=None, model='vmaf_v0.6.1', features=(), backend='auto',
            threads=0, report=None, points=None, csv=None, client=None, shard_frames=0,
            scores=None, **options):
    """Score encodes of one source against it and compare them as ladders
    (`exactvmaf compare`, whose arithmetic this is); returns a Comparison.

    ref, encodes  the reference and the encoded files (anything the tool reads)
    group_by      a regular expression (POSIX extended) whose first group, or
                  whole match, in an encode's file name names its ladder;
                  default: the folder when the encodes lie in several, else the
                  file name without its extension and last number
    model, features, backend, threads, options
                  as for score(); the first model's pooled mean is the score
    report        a path: the comparison's HTML page is written there
    csv           a path: one row per encode (the tool's --csv) is written there
    points        instead of scoring, a CSV file of points (columns ladder,
                  bitrate_kbps, vmaf): ref and encodes are then not given
    client        a dask.distributed Client: each encode is scored as a task on
                  its cluster (the batch runner's machinery), then compared by
                  `exactvmaf compare --scores`; the result, JSON, CSV and page
                  equal the single-process comparison's bit for bit. The paths
                  must be readable by the workers. A failed encode raises Error
                  and writes nothing.
    shard_frames  with client: encodes longer than this many frames are cut
                  into shards of it, computed in parallel and merged exactly
    scores        with client: a path to keep the scores CSV at (columns file,
                  vmaf, vmaf_harmonic_mean, frames; `compare --scores` reads it)
    The first ladder is the anchor: c.bd_rate(name) is another ladder's
    BD-rate against it in percent, c.bd_vmaf(name) its BD-VMAF.
    """
    if backend not in BACKENDS:
        raise Error("backend is 'auto', 'cpu', 'cuda', 'opencl' or 'auto-opencl', not %r"
                    % (backend,))
    _count('threads', threads)
    gpu = _count('gpu', options.pop('gpu', 0))
    if points is None:
        if not _is_path(ref) or isinstance(encodes, (str, bytes, os.PathLike)) or \
                not encodes or not all(_is_path(e) for e in encodes):
            raise Error('compare takes a reference path and a list of encoded files')
    elif encodes or ref is not None:
        raise Error('points= replaces ref and encodes: give ref=None and no encodes')
    elif client is not None:
        raise Error('points= has nothing to score: no client=')
    _count('shard_frames', shard_frames)
    if client is None and (shard_frames or scores is not None):
        raise Error('shard_frames= and scores= go with client=')
    models = _spec.models(model)
    if not models:
        raise Error('compare needs a model: its pooled mean is the score')
    if client is not None:
        from ._compare_dask import compare_on_dask
        return compare_on_dask(client, ref, encodes, group_by, models, _spec.features(features),
                               backend, threads, gpu, report, csv, scores, shard_frames, options)
    from ._cli import compare_files
    return compare_files(ref, encodes, group_by, models, _spec.features(features), backend,
                         threads, gpu, report, csv, points, options)


def compare_plan(ref, encodes, group_by=None, model='vmaf_v0.6.1', **options):
    """What compare would do, without scoring (`exactvmaf compare --plan`): a
    dict with reference, metric, grouping, ladders (names, the anchor first)
    and encodes, one dict each: file, ladder, bitrate_kbps (None where it
    comes from the frames scored) and bitrate_source. Raises Error for a
    missing file, a --group-by that does not match, or an unknown option."""
    if not _is_path(ref) or isinstance(encodes, (str, bytes, os.PathLike)) or \
            not encodes or not all(_is_path(e) for e in encodes):
        raise Error('compare_plan takes a reference path and a list of encoded files')
    models = _spec.models(model)
    if not models:
        raise Error('compare needs a model: its pooled mean is the score')
    from ._cli import compare_plan as plan
    return plan(ref, encodes, group_by, models, options)


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
