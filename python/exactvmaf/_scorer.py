"""Scoring frames one pair at a time: exactvmaf.Scorer, and score() on
frames, which is a Scorer fed from two iterables.

Host frames (numpy, CPU DLPack tensors) are copied once into a picture of
the context's pool; device frames (_cuda.py) are wrapped where they are.
push() reads back the frames the library says are complete
(exactvmaf_frames_concluded: every output written, on any backend and with
worker threads); motion's motion2 and motion3, and so every VMAF model,
conclude one frame late.
"""
import ctypes
import struct
import time

import numpy as np

from . import _cuda, _lib
from ._frames import _Context, _check_range, _collect, _copy, _geometry, _planes
from .errors import Error


def _bits(metrics):
    return {k: struct.pack('<d', v) for k, v in metrics.items()}


def _host(x):
    """A CPU DLPack tensor (a CPU torch tensor, say) as a numpy array."""
    if (not isinstance(x, np.ndarray) and hasattr(x, '__dlpack__')
            and _cuda.dlpack_device(x) == _cuda.KDL_CPU):
        return np.from_dlpack(x)
    return x


def _on_device(frame):
    first = frame[0] if isinstance(frame, (tuple, list)) and frame else frame
    return _cuda.is_device(first)


class Scorer:
    """Scores frames handed over one pair at a time.

        with exactvmaf.Scorer(bitdepth=10) as s:
            for ref, dis in pairs:
                for index, metrics in s.push(ref, dis):
                    print(index, metrics['vmaf'])
        s.result        # the Result, as score() of the same frames gives it

    Frames are numpy arrays (a 2-D luma plane or (Y, U, V)), CPU DLPack
    tensors, or CUDA arrays (__cuda_array_interface__ or DLPack: CuPy,
    PyTorch, Numba), which are read where they are, without a copy; see
    score() for the arguments. push() returns the frames concluded by then,
    in order, as (index, {output: value}, model scores included), as soon as
    every output of a frame is written, on every backend and with worker
    threads: on the CPU without threads at its own push, or one push later
    with motion (every VMAF model); with threads or a GPU when those finish
    it. close() returns the Result, and concluded() then gives the frames
    push() had not. The scores equal score()'s bit for bit.
    """

    def __init__(self, model='vmaf_v0.6.1', features=(), backend='auto', threads=0,
                 bitdepth=None, subsample=0, gpu=0, frames_in_flight=0, surface=None):
        from . import _count, _spec, BACKENDS
        if backend not in BACKENDS:
            raise Error('backend is %s, not %r' % (', '.join(repr(b) for b in BACKENDS),
                                                    backend))
        _count('threads', threads)
        if bitdepth is not None:
            _count('bitdepth', bitdepth)
        self.subsample = _count('subsample', subsample)
        _count('gpu', gpu)
        _count('frames_in_flight', frames_in_flight, 32)
        models, features = _spec.models(model), _spec.features(features)
        if not models and not features:
            raise Error('nothing to compute: give a model or a feature')
        self.bitdepth, self.surface = bitdepth, surface
        self.result = None
        self.geometry, self.n, self.emitted = None, 0, 0
        self._pool = False
        self._pending = []
        self._t0 = None
        self.c = c = _Context(threads, self.subsample)
        try:
            L = c.L
            # 'auto' is the library's default; set by name it would warn on
            # a machine without a GPU.
            if backend != 'auto' or gpu:
                c.check(L.exactvmaf_set_backend(c.ctx, _lib.BACKEND[backend], gpu),
                        'cannot choose backend %s' % backend)
            if frames_in_flight:
                c.check(L.exactvmaf_set_frames_in_flight(c.ctx, frames_in_flight),
                        'cannot set frames in flight')
            for m in models:
                c.add_model(m)
            for name, opts in features:
                c.add_feature(name, opts)
        except BaseException:
            c.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            self.c.close()
        return False

    def _picture(self, frame, what):
        """A picture of the frame (not yet handed over) and its geometry."""
        L, c, n = self.c.L, self.c, self.n
        pic = _lib.Picture()
        if _on_device(frame):
            g, f, parts = _cuda.describe(frame, self.bitdepth, self.surface,
                                         '%s frame %d' % (what, n))
            self._same(g, what)
            # Its messages are logged outside the context: caught by the Capture.
            with c.cap:
                _cuda.wrap(L, pic, f, parts, lambda rc: c.check(rc, '%s frame %d' % (what, n)))
            return pic
        if isinstance(frame, (tuple, list)):
            frame = type(frame)(_host(p) for p in frame)
        else:
            frame = _host(frame)
        g, planes = _geometry(_planes(frame, what, n), self.bitdepth, what, n)
        self._same(g, what)
        _check_range(planes, g[1], what, n)
        if not self._pool:
            fmt, bpc, w, h = g
            pc = _lib.PictureConfiguration(_lib._PicParams(w, h, bpc, _lib.PIX_FMT[fmt]), 2)
            c.check(L.vmaf_preallocate_pictures(c.ctx, pc), 'cannot allocate pictures')
            self._pool = True
        c.check(L.vmaf_fetch_preallocated_picture(c.ctx, ctypes.byref(pic)),
                'cannot get a picture')
        try:
            _copy(pic, planes)
        except BaseException:
            L.vmaf_picture_unref(ctypes.byref(pic))
            raise
        return pic

    def _same(self, g, what):
        if self.geometry is None:
            self.geometry = g
        elif g != self.geometry:
            ge = self.geometry
            raise Error('%s frame %d is %dx%d %s %d-bit; frame 0 was %dx%d %s %d-bit' % (
                what, self.n, g[2], g[3], g[0], g[1], ge[2], ge[3], ge[0], ge[1]))

    def push(self, ref, dis):
        """Hand over the next pair of frames; returns the frames concluded
        since the last call, as a list of (index, {output: value})."""
        if self.result is not None or not self.c.ctx:
            raise Error('the scorer is closed')
        L, c = self.c.L, self.c
        if self._t0 is None:
            self._t0 = time.perf_counter()
        pics = []
        try:
            pics.append(self._picture(ref, 'reference'))
            pics.append(self._picture(dis, 'distorted'))
        except BaseException:
            # Not handed over (an error, or Ctrl-C while copying): ours to drop.
            for q in pics:
                if q.ref:
                    L.vmaf_picture_unref(ctypes.byref(q))
            raise
        c.check(L.vmaf_read_pictures(c.ctx, ctypes.byref(pics[0]), ctypes.byref(pics[1]),
                                     self.n), 'frame %d' % self.n)
        self.n += 1
        return self._conclude()

    def _conclude(self):
        L, c = self.c.L, self.c
        ctx = c.ctx
        n = ctypes.c_uint()
        c.check(L.exactvmaf_frames_concluded(ctx, ctypes.byref(n)), 'frame %d' % (self.n - 1))
        upto = min(n.value, self.n)
        frames = [i for i in range(self.emitted, upto)
                  if not (self.subsample > 1 and i % self.subsample)]
        v = ctypes.c_double()
        # The models' scores first (they are written as outputs of the
        # frame), in _collect's order, which lists their outputs: every
        # model, then the collections.
        for i in frames:
            for model, coll, name in c.models:
                c.check(L.vmaf_score_at_index(ctx, model, ctypes.byref(v), i),
                        'model %s: frame %d' % (name, i))
            for model, coll, name in c.models:
                if coll:
                    c.check(L.vmaf_score_at_index_model_collection(
                        ctx, coll, ctypes.byref(_lib.CollectionScore()), i),
                        'model collection %s: frame %d' % (name, i))
        names = [L.exactvmaf_output_name(ctx, k) for k in range(L.exactvmaf_output_count(ctx))]
        done = []
        for i in frames:
            metrics = {}
            for name in names:
                if L.vmaf_feature_score_at_index(ctx, name, ctypes.byref(v), i) == 0:
                    metrics[name.decode()] = v.value
            if metrics:
                done.append((i, metrics))
        self.emitted = max(self.emitted, upto)
        c.cap.take()    # lookups of values a frame lacks are not errors
        self._pending += done
        return done

    def close(self):
        """Conclude every frame; returns the Result (also kept as .result)."""
        if self.result is not None:
            return self.result
        c = self.c
        try:
            if not self.n:
                raise Error('no frames to score')
            c.check(c.L.vmaf_read_pictures(c.ctx, None, None, 0), 'finishing the frames')
            elapsed = time.perf_counter() - self._t0
            self.result = _collect(c, self.n, self.subsample, elapsed)
        finally:
            c.close()
        # What push() gave out early must be what the run concluded.
        final = dict(zip(self.result.frame_numbers, self.result.frames))
        for i, metrics in self._pending:
            if _bits(final.get(i, {})) != _bits(metrics):
                raise Error('frame %d was given out before all its outputs were written '
                            '(%s)' % (i, sorted(set(final.get(i, {})) ^ set(metrics))))
        self._pending = []
        return self.result

    def concluded(self):
        """After close(): the frames push() had not returned, in order."""
        if self.result is None:
            raise Error('concluded() is for after close()')
        pairs = zip(self.result.frame_numbers, self.result.frames)
        rest = [(i, m) for i, m in pairs if i >= self.emitted]
        self.emitted = self.n
        return rest


# The end of an iterable of frames (None could be a frame).
_END = object()


def score_frames(ref, dis, models, features, backend, threads, subsample, bitdepth, gpu,
                 frames_in_flight, surface=None):
    with Scorer(models, features, backend, threads, bitdepth, subsample, gpu,
                frames_in_flight, surface) as s:
        it_r, it_d = iter(ref), iter(dis)
        n = 0
        while True:
            r, d = next(it_r, _END), next(it_d, _END)
            if r is _END or d is _END:
                if r is not d:
                    raise Error('the %s has %d frames, the %s more' % (
                        'reference' if r is _END else 'distorted', n,
                        'distorted' if r is _END else 'reference'))
                break
            s.push(r, d)
            n += 1
    return s.result
