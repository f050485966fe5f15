"""Frames held in memory (numpy arrays) and the library context that
scores them (the frame loop is _scorer.py's).

Each frame is copied once, straight into a picture of the context's pool;
the library takes the pictures over. Geometry, type and sample range are
checked before anything is handed over, so a bad frame raises Error and
never reaches the library.
"""
import ctypes

import numpy as np

from . import _lib
from ._lib import check
from ._log import Capture
from .errors import Error
from .result import Result

def _planes(frame, what, index):
    """(Y,) for a 2-D array, (Y, U, V) for a tuple or list of three."""
    if isinstance(frame, np.ndarray) and frame.ndim == 2:
        return (frame,)
    if isinstance(frame, (tuple, list)) and len(frame) == 3:
        try:
            planes = tuple(np.asarray(p) for p in frame)
        except (ValueError, TypeError) as e:
            raise Error('%s frame %d: a plane is not an array: %s' % (what, index, e))
        if all(p.ndim == 2 for p in planes):
            return planes
    shape = getattr(frame, 'shape', None)
    raise Error('%s frame %d: expected a 2-D luma array or a (Y, U, V) tuple of 2-D arrays, '
                'got %s' % (what, index, 'an array of shape %s' % (shape,) if shape is not None
                            else type(frame).__name__))


def _geometry(planes, bitdepth, what, index):
    """(pix_fmt, bpc, w, h) of a frame, and its planes cut to the picture's
    chroma size (odd sizes: a file's rounded-up chroma loses its last row and
    column, as the CLI reads such files)."""
    y = planes[0]
    h, w = y.shape
    dtypes = {p.dtype for p in planes}
    if len(dtypes) != 1 or y.dtype not in (np.uint8, np.uint16):
        raise Error('%s frame %d: samples must be uint8, or uint16 with bitdepth=, all planes '
                    'alike (got %s)' % (what, index, ', '.join(sorted(str(d) for d in dtypes))))
    if y.dtype == np.uint8:
        if bitdepth not in (None, 8):
            raise Error('%s frame %d: uint8 samples, but bitdepth=%d' % (what, index, bitdepth))
        bpc = 8
    else:
        if bitdepth is None or not 9 <= bitdepth <= 16:
            raise Error('%s frame %d: uint16 samples need bitdepth= 9..16' % (what, index))
        bpc = bitdepth
    if len(planes) == 1:
        return ('400', bpc, w, h), planes
    fmts = {'420': ((h + 1) // 2, (w + 1) // 2, h // 2, w // 2),
            '422': (h, (w + 1) // 2, h, w // 2), '444': (h, w, h, w)}
    cshape = planes[1].shape
    if planes[2].shape != cshape:
        raise Error('%s frame %d: U is %s but V is %s' % (what, index, cshape, planes[2].shape))
    for fmt, (fh, fw, ph, pw) in fmts.items():
        if cshape in ((fh, fw), (ph, pw)):
            return (fmt, bpc, w, h), (y, planes[1][:ph, :pw], planes[2][:ph, :pw])
    raise Error('%s frame %d: chroma planes of %s fit no 4:2:0, 4:2:2 or 4:4:4 layout of a '
                '%dx%d luma plane' % (what, index, cshape, w, h))


def _check_range(planes, bpc, what, index):
    if 8 < bpc < 16:
        top = max(int(p.max()) if p.size else 0 for p in planes)
        if top >> bpc:
            raise Error('%s frame %d holds the sample value %d, above the %d-bit maximum %d'
                        % (what, index, top, bpc, (1 << bpc) - 1))


def _copy(pic, planes):
    dtype = np.dtype('<u2') if pic.bpc > 8 else np.dtype(np.uint8)
    for p, src in enumerate(planes):
        h, w, stride = pic.h[p], pic.w[p], pic.stride[p]
        buf = (ctypes.c_uint8 * (stride * h)).from_address(pic.data[p])
        dst = np.ndarray((h, w), dtype=dtype, buffer=buf, strides=(stride, dtype.itemsize))
        dst[...] = src


class _Context:
    """A library context with its models; closed whatever happens."""

    def __init__(self, threads, subsample):
        self.L = _lib.lib()
        self.cap = Capture()
        self.ctx = ctypes.c_void_p()
        self.models = []        # (model, collection or None, name)
        cfg = _lib.Configuration(_lib.LOG_WARNING, threads, subsample, 0, 0)
        with self.cap:
            check(self.L.vmaf_init(ctypes.byref(self.ctx), cfg), 'cannot create a context',
                  self.cap.take())
        self.L.exactvmaf_set_logger(self.ctx, self.cap.callback, None)

    def check(self, rc, what):
        return check(rc, what, self.cap.take())

    def close(self):
        for m, coll, _ in self.models:
            self.L.vmaf_model_destroy(m)
            if coll:
                self.L.vmaf_model_collection_destroy(coll)
        self.models = []
        if self.ctx:
            self.L.vmaf_close(self.ctx)
            self.ctx = ctypes.c_void_p()

    def _dict(self, opts):
        d = ctypes.c_void_p()
        for k, v in opts:
            if self.L.vmaf_feature_dictionary_set(ctypes.byref(d), k.encode(), v.encode()) < 0:
                self.L.vmaf_feature_dictionary_free(ctypes.byref(d))
                raise Error('cannot set option %s=%s' % (k, v))
        return d

    def add_model(self, m):
        L, cap = self.L, self.cap
        cfg = _lib.ModelConfig(m.name.encode(), (1 if m.disable_clip else 0) |
                               (2 if m.enable_transform else 0))
        model, coll = ctypes.c_void_p(), ctypes.c_void_p()
        with cap:
            is_coll = m.path and L.exactvmaf_model_file_is_collection(m.path.encode()) == 1
            rc = -1
            if not is_coll:
                rc = (L.vmaf_model_load(ctypes.byref(model), ctypes.byref(cfg), m.version.encode())
                      if m.version else
                      L.vmaf_model_load_from_path(ctypes.byref(model), ctypes.byref(cfg),
                                                  m.path.encode()))
                if rc < 0 and m.path:
                    self.check(rc, 'cannot load model %s' % m.label)
            if rc < 0:
                single_errors = cap.take()
                rc = (L.vmaf_model_collection_load(ctypes.byref(model), ctypes.byref(coll),
                                                   ctypes.byref(cfg), m.version.encode())
                      if m.version else
                      L.vmaf_model_collection_load_from_path(ctypes.byref(model),
                                                             ctypes.byref(coll),
                                                             ctypes.byref(cfg), m.path.encode()))
                if rc < 0:
                    check(rc, 'cannot load model %s' % m.label, single_errors + cap.take())
            self.models.append((model, coll if coll.value else None, m.name))
            for feature, key, val in m.overloads:
                d = self._dict([(key, val)])
                rc = (L.vmaf_model_collection_feature_overload(model, ctypes.byref(coll),
                                                               feature.encode(), d)
                      if coll.value else L.vmaf_model_feature_overload(model, feature.encode(), d))
                if rc < 0:
                    L.vmaf_feature_dictionary_free(ctypes.byref(d))
                    self.check(rc, 'model %s: cannot set %s.%s' % (m.label, feature, key))
            self.check(L.vmaf_use_features_from_model_collection(self.ctx, coll) if coll.value
                       else L.vmaf_use_features_from_model(self.ctx, model),
                       'model %s: cannot register its features' % m.label)

    def add_feature(self, name, opts):
        d = self._dict(opts)
        # vmaf_use_feature consumes the dictionary, even when it fails.
        self.check(self.L.vmaf_use_feature(self.ctx, name.encode(), d),
                   'cannot use feature %s' % name)


def _collect(c, n, subsample, elapsed):
    L, ctx = c.L, c.ctx
    v = ctypes.c_double()
    # As the tool: every model (a collection's first one too), then the
    # collections; this order is the order of their outputs.
    for model, coll, name in c.models:
        c.check(L.vmaf_score_pooled(ctx, model, _lib.POOL['mean'], ctypes.byref(v), 0, n - 1),
                'model %s: scoring failed' % name)
    for model, coll, name in c.models:
        if coll:
            s = _lib.CollectionScore()
            c.check(L.vmaf_score_pooled_model_collection(ctx, coll, _lib.POOL['mean'],
                                                         ctypes.byref(s), 0, n - 1),
                    'model collection %s: scoring failed' % name)
    names = [L.exactvmaf_output_name(ctx, i) for i in range(L.exactvmaf_output_count(ctx))]
    frames, numbers = [], []
    for i in range(n):
        if subsample > 1 and i % subsample:
            continue
        metrics = {}
        for name in names:
            if L.vmaf_feature_score_at_index(ctx, name, ctypes.byref(v), i) == 0:
                metrics[name.decode()] = v.value
        if metrics:
            frames.append(metrics)
            numbers.append(i)
    pooled = {}
    for name in names:
        p = {}
        for m in ('min', 'max', 'mean', 'harmonic_mean'):
            if L.vmaf_feature_score_pooled(ctx, name, _lib.POOL[m], ctypes.byref(v), 0, n - 1) == 0:
                p[m] = v.value
        pooled[name.decode()] = p
    c.cap.take()    # lookups of values a frame lacks are not errors
    backends = {}
    ext, be = ctypes.c_char_p(), ctypes.c_char_p()
    i = 0
    while L.exactvmaf_backend_at(ctx, i, ctypes.byref(ext), ctypes.byref(be)) == 0:
        backends[ext.value.decode()] = be.value.decode()
        i += 1
    devices = {}
    key, val = ctypes.c_char_p(), ctypes.c_char_p()
    for i, name in enumerate(backends):
        recs, k = [], 0
        while True:
            rec, f = {}, 0
            while L.exactvmaf_device_field_at(ctx, i, k, f, ctypes.byref(key),
                                              ctypes.byref(val)) == 0:
                rec[key.value.decode()] = val.value.decode()
                f += 1
            if not rec:
                break
            recs.append(rec)
            k += 1
        devices[name] = recs
    aggregate = {}
    i = 0
    while L.exactvmaf_aggregate_at(ctx, i, ctypes.byref(ext), ctypes.byref(v)) == 0:
        aggregate[ext.value.decode()] = v.value
        i += 1
    return Result(frames, numbers, pooled, backends, aggregate, L.vmaf_version().decode(),
                  n / elapsed if elapsed > 0 else None, devices)
