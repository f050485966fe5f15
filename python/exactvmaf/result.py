"""A scoring's result: per-frame outputs, pooled values, and the CLI's JSON.

Pooling and the JSON text are the library's, reproduced operation for
operation (src/model/score.c, src/output.c): a Result merged from frame
ranges pools and prints exactly as one whole run would.
"""
import math

POOL_METHODS = ('min', 'max', 'mean', 'harmonic_mean')


def _div(a, b):
    """a / b in IEEE double, where Python raises on a zero divisor."""
    if b != 0 or math.isnan(b):
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def pool(values):
    """min, max, mean and harmonic mean of values in frame order, as
    vmaf_feature_score_pooled(): one running sum each, in double."""
    n = 0
    total = i_total = lo = hi = 0.0
    for v in values:
        total += v
        i_total += _div(1.0, v + 1.0)
        if not n or v < lo:
            lo = v
        if not n or v > hi:
            hi = v
        n += 1
    if not n:
        return {}
    return {'min': lo, 'max': hi, 'mean': total / n, 'harmonic_mean': _div(n, i_total) - 1.0}


def _num(v):
    return '%.17g' % v if math.isfinite(v) else 'null'


def _string(s):
    out = []
    for ch in s:
        if ch in '"\\':
            out.append('\\' + ch)
        elif ord(ch) < 0x20:
            out.append('\\u%04x' % ord(ch))
        else:
            out.append(ch)
    return ''.join(out)


class Result:
    """What one scoring computed.

    frames        one dict per listed frame: output name -> float
    frame_numbers the frame number of each (0, 1, ... unless subsampled)
    pooled        output name -> {'min', 'max', 'mean', 'harmonic_mean'}
    backends      extractor -> the backend that computed it ('cpu', 'cuda', 'opencl')
    devices       extractor -> the devices that computed it, one dict each (several
                  when the frames were split over GPUs): 'backend', and for a GPU
                  'name', 'index' (CUDA '0', OpenCL 'P:D'), 'platform' (OpenCL),
                  'driver', 'arch' (CUDA 'sm_90'), 'fp64' (OpenCL 'native' or 'emulated')
    aggregate     run-level values (psnr's apsnr_*)
    version, fps  the library's version; frames per second of the run
    """

    def __init__(self, frames, frame_numbers, pooled, backends, aggregate=None, version='',
                 fps=None, devices=None):
        self.frames = frames
        self.frame_numbers = frame_numbers
        self.pooled = pooled
        self.backends = backends
        self.devices = devices or {}
        self.aggregate = aggregate or {}
        self.version = version
        self.fps = fps

    def __repr__(self):
        models = [k for k in self.pooled if k.startswith('vmaf')]
        return '<exactvmaf.Result %d frames%s>' % (
            len(self.frames), ''.join(' %s=%.6f' % (k, self.pooled[k]['mean'])
                                      for k in models if 'mean' in self.pooled[k]))

    @property
    def names(self):
        """Output names, in the order the output files list them."""
        return list(self.pooled)

    @classmethod
    def from_json(cls, d):
        """From the CLI's JSON (parsed); values are exact at --precision max."""
        frames = [{k: (math.nan if v is None else float(v)) for k, v in f['metrics'].items()}
                  for f in d['frames']]
        pooled = {k: {m: (math.nan if v is None else float(v)) for m, v in p.items()}
                  for k, p in d.get('pooled_metrics', {}).items()}
        agg = {k: (math.nan if v is None else float(v))
               for k, v in d.get('aggregate_metrics', {}).items()}
        return cls(frames, [f['frameNum'] for f in d['frames']], pooled,
                   dict(d.get('backends', {})), agg, d.get('version', ''), d.get('fps'),
                   {k: [dict(r) for r in v] for k, v in d.get('devices', {}).items()})

    def to_json(self, extra=None):
        """The CLI's --json layout at --precision max ("%.17g": every value exact).
        `extra` (name -> JSON text) adds members after aggregate_metrics."""
        w = ['{\n', '  "version": "%s",\n' % _string(self.version)]
        fps = self.fps
        w.append('  "fps": %.2f,\n' % fps if fps is not None and math.isfinite(fps)
                 else '  "fps": null,\n')
        w.append('  "backends": {%s},\n' % ', '.join(
            '"%s": "%s"' % (_string(k), _string(v)) for k, v in self.backends.items()))
        w.append('  "devices": {')
        for i, (k, recs) in enumerate(self.devices.items()):
            w.append('%s    "%s": [%s]' % (',\n' if i else '\n', _string(k), ', '.join(
                '{%s}' % ', '.join('"%s": "%s"' % (_string(f), _string(v)) for f, v in r.items())
                for r in recs)))
        w.append('\n  },\n' if self.devices else '},\n')
        w.append('  "frames": [')
        for i, (num, metrics) in enumerate(zip(self.frame_numbers, self.frames)):
            w.append(',\n' if i else '\n')
            w.append('    {\n      "frameNum": %d,\n      "metrics": {\n' % num)
            items = list(metrics.items())
            for k, (name, v) in enumerate(items):
                w.append('        "%s": %s%s' % (_string(name), _num(v),
                                                 ',' if k + 1 < len(items) else ''))
                # The library ends a null line without a newline (as Netflix).
                if math.isfinite(v):
                    w.append('\n')
            w.append('      }\n    }')
        w.append('\n  ],\n')
        w.append('  "pooled_metrics": {')
        for j, (name, p) in enumerate(self.pooled.items()):
            w.append(',\n' if j else '\n')
            w.append('    "%s": {' % _string(name))
            first = True
            for m in POOL_METHODS:
                if m not in p:
                    continue
                w.append('\n' if first else ',\n')
                first = False
                w.append('      "%s": %s' % (m, _num(p[m])))
            w.append('\n    }')
        w.append('\n  },\n')
        w.append('  "aggregate_metrics": {')
        items = list(self.aggregate.items())
        for i, (name, v) in enumerate(items):
            w.append('\n    "%s": %s%s' % (_string(name), _num(v), ',' if i + 1 < len(items)
                                           else ''))
        w.append('\n  }')
        for name, text in (extra or {}).items():
            w.append(',\n  "%s": %s' % (_string(name), text))
        w.append('\n}\n')
        return ''.join(w)
