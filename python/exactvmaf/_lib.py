"""ctypes bindings to libexactvmaf: the library found, its structs and functions.

The library is EXACTVMAF_LIBRARY (a path) when set; else the one the build
recorded beside this package (_paths.py: `meson install`'s, or the one
inside the package of a wheel); else the dynamic linker's standard search
for libexactvmaf.so.0.
"""
import ctypes
import ctypes.util
import os
import threading

from ._log import LogCallback, default_message
from .errors import Error

c_int, c_uint, c_double, c_char_p, c_void_p = (ctypes.c_int, ctypes.c_uint, ctypes.c_double,
                                                ctypes.c_char_p, ctypes.c_void_p)

LOG_NONE, LOG_ERROR, LOG_WARNING, LOG_INFO, LOG_DEBUG = range(5)
PIX_FMT = {'420': 1, '422': 2, '444': 3, '400': 4}
POOL = {'min': 1, 'max': 2, 'mean': 3, 'harmonic_mean': 4}
BACKEND = {'cpu': 0, 'cuda': 1, 'auto': 2, 'opencl': 3, 'auto-opencl': 4}


class Picture(ctypes.Structure):
    _fields_ = [('pix_fmt', c_int), ('bpc', c_uint), ('w', c_uint * 3), ('h', c_uint * 3),
                ('stride', ctypes.c_ssize_t * 3), ('data', c_void_p * 3), ('ref', c_void_p),
                ('priv', c_void_p)]


class Configuration(ctypes.Structure):
    _fields_ = [('log_level', c_int), ('n_threads', c_uint), ('n_subsample', c_uint),
                ('cpumask', ctypes.c_uint64), ('gpumask', ctypes.c_uint64)]


class _PicParams(ctypes.Structure):
    _fields_ = [('w', c_uint), ('h', c_uint), ('bpc', c_uint), ('pix_fmt', c_int)]


class PictureConfiguration(ctypes.Structure):
    _fields_ = [('pic_params', _PicParams), ('pic_cnt', c_uint)]


class ModelConfig(ctypes.Structure):
    _fields_ = [('name', c_char_p), ('flags', ctypes.c_uint64)]


class _P95(ctypes.Structure):
    _fields_ = [('lo', c_double), ('hi', c_double)]


class _Ci(ctypes.Structure):
    _fields_ = [('p95', _P95)]


class _Bootstrap(ctypes.Structure):
    _fields_ = [('bagging_score', c_double), ('stddev', c_double), ('ci', _Ci)]


class CollectionScore(ctypes.Structure):
    _fields_ = [('type', c_int), ('bootstrap', _Bootstrap)]



P = ctypes.POINTER
_SIGNATURES = {
    'vmaf_version': (c_char_p, []),
    'vmaf_init': (c_int, [P(c_void_p), Configuration]),
    'vmaf_close': (c_int, [c_void_p]),
    'exactvmaf_set_logger': (c_int, [c_void_p, LogCallback, c_void_p]),
    'exactvmaf_set_default_logger': (None, [LogCallback, c_void_p]),
    'exactvmaf_set_backend': (c_int, [c_void_p, c_int, c_int]),
    'exactvmaf_set_frames_in_flight': (c_int, [c_void_p, c_uint]),
    'exactvmaf_model_file_is_collection': (c_int, [c_char_p]),
    'vmaf_model_load': (c_int, [P(c_void_p), P(ModelConfig), c_char_p]),
    'vmaf_model_load_from_path': (c_int, [P(c_void_p), P(ModelConfig), c_char_p]),
    'vmaf_model_collection_load': (c_int, [P(c_void_p), P(c_void_p), P(ModelConfig), c_char_p]),
    'vmaf_model_collection_load_from_path': (c_int, [P(c_void_p), P(c_void_p), P(ModelConfig),
                                                     c_char_p]),
    'vmaf_model_feature_overload': (c_int, [c_void_p, c_char_p, c_void_p]),
    'vmaf_model_collection_feature_overload': (c_int, [c_void_p, P(c_void_p), c_char_p,
                                                       c_void_p]),
    'vmaf_model_destroy': (None, [c_void_p]),
    'vmaf_model_collection_destroy': (None, [c_void_p]),
    'vmaf_use_features_from_model': (c_int, [c_void_p, c_void_p]),
    'vmaf_use_features_from_model_collection': (c_int, [c_void_p, c_void_p]),
    'vmaf_feature_dictionary_set': (c_int, [P(c_void_p), c_char_p, c_char_p]),
    'vmaf_feature_dictionary_free': (c_int, [P(c_void_p)]),
    'vmaf_use_feature': (c_int, [c_void_p, c_char_p, c_void_p]),
    'vmaf_preallocate_pictures': (c_int, [c_void_p, PictureConfiguration]),
    'vmaf_fetch_preallocated_picture': (c_int, [c_void_p, P(Picture)]),
    'vmaf_picture_unref': (c_int, [P(Picture)]),
    'vmaf_read_pictures': (c_int, [c_void_p, P(Picture), P(Picture), c_uint]),
    'vmaf_score_pooled': (c_int, [c_void_p, c_void_p, c_int, P(c_double), c_uint, c_uint]),
    'vmaf_score_pooled_model_collection': (c_int, [c_void_p, c_void_p, c_int,
                                                   P(CollectionScore), c_uint, c_uint]),
    'vmaf_feature_score_at_index': (c_int, [c_void_p, c_char_p, P(c_double), c_uint]),
    'vmaf_feature_score_pooled': (c_int, [c_void_p, c_char_p, c_int, P(c_double), c_uint,
                                          c_uint]),
    'exactvmaf_output_count': (c_uint, [c_void_p]),
    'exactvmaf_output_name': (c_char_p, [c_void_p, c_uint]),
    'exactvmaf_backend_at': (c_int, [c_void_p, c_uint, P(c_char_p), P(c_char_p)]),
    'exactvmaf_device_field_at': (c_int, [c_void_p, c_uint, c_uint, c_uint, P(c_char_p),
                                          P(c_char_p)]),
    'exactvmaf_aggregate_at': (c_int, [c_void_p, c_uint, P(c_char_p), P(c_double)]),
    'exactvmaf_has_temporal': (c_int, [c_void_p]),
    'exactvmaf_frames_concluded': (c_int, [c_void_p, P(c_uint)]),
    'exactvmaf_device_describe': (c_int, [c_int, c_uint, c_char_p, ctypes.c_size_t]),
    'exactvmaf_cuda_picture_wrap': (c_int, [P(Picture), c_void_p]),
    'vmaf_score_at_index': (c_int, [c_void_p, c_void_p, P(c_double), c_uint]),
    'vmaf_score_at_index_model_collection': (c_int, [c_void_p, c_void_p, P(CollectionScore),
                                                     c_uint]),
}

_lock = threading.Lock()
_lib = None
_default_logger = None


def _candidates():
    env = os.environ.get('EXACTVMAF_LIBRARY')
    if env:
        return [env]
    found = []
    try:
        from . import _paths
        found.append(_paths.LIBRARY)
    except ImportError:
        pass
    found.append('libexactvmaf.so.0')
    name = ctypes.util.find_library('exactvmaf')
    if name:
        found.append(name)
    return found


def lib():
    """The loaded library (loaded once, on first use)."""
    global _lib, _default_logger
    with _lock:
        if _lib is not None:
            return _lib
        why = []
        for path in _candidates():
            try:
                handle = ctypes.CDLL(path)
                break
            except OSError as e:
                why.append('%s: %s' % (path, e))
        else:
            raise Error('libexactvmaf cannot be loaded (set EXACTVMAF_LIBRARY to its path): ' +
                        '; '.join(why))
        for name, (res, args) in _SIGNATURES.items():
            try:
                f = getattr(handle, name)
            except AttributeError:
                raise Error('%s lacks %s: an older or a different library' % (path, name))
            f.restype, f.argtypes = res, args
        _default_logger = LogCallback(default_message)
        handle.exactvmaf_set_default_logger(_default_logger, None)
        _lib = handle
        return _lib


def check(rc, what, messages=None):
    """rc < 0 raises Error with the library's messages (or the errno's text)."""
    if rc >= 0:
        return rc
    text = '; '.join(messages or []) or os.strerror(-rc)
    raise Error('%s: %s' % (what, text), code=-rc)
