"""Models and features as the CLI names them.

A model is a built-in name ("vmaf_v0.6.1"), a JSON file, or the CLI's
--model text "version=...:name=...:disable_clip:feat.opt=val". A feature is
an extractor name, the CLI's --feature text "psnr=enable_chroma=false", or
(name, {option: value}).
"""
import os

from .errors import Error


def _text(v):
    if isinstance(v, bool):
        return 'true' if v else 'false'
    return str(v)


class Model:
    """One --model: where it comes from, its name, flags and feature options."""

    def __init__(self, version=None, path=None, name='vmaf', disable_clip=False,
                 enable_transform=False, overloads=None):
        if bool(version) == bool(path):
            raise Error('a model needs exactly one of version= and path=')
        self.version, self.path, self.name = version, path, name
        self.disable_clip, self.enable_transform = disable_clip, enable_transform
        self.overloads = overloads or []        # [(feature, option, value text)]

    @classmethod
    def parse(cls, spec):
        if isinstance(spec, Model):
            return spec
        if not isinstance(spec, str) or not spec:
            raise Error('a model is a name, a path or "version=...:name=..." text, not %r'
                        % (spec,))
        if '=' not in spec:
            if spec.endswith('.json') or os.sep in spec:
                return cls(path=spec)
            return cls(version=spec)
        kw = {'overloads': []}
        for part in spec.split(':'):
            key, sep, val = part.partition('=')
            if key in ('disable_clip', 'enable_transform'):
                if val not in ('', 'true', 'false'):
                    raise Error('model %r: %s takes true or false' % (spec, key))
                kw[key] = val != 'false'
            elif not val:
                raise Error('model %r: parameter %r needs a value' % (spec, key))
            elif key in ('version', 'path', 'name'):
                kw[key] = val
            elif key.count('.') == 1 and all(key.split('.')):
                kw['overloads'].append(tuple(key.split('.')) + (val,))
            else:
                raise Error('model %r: unknown parameter %r (known: version, path, name, '
                            'disable_clip, enable_transform, FEATURE.OPTION=VALUE)' % (spec, key))
        return cls(**kw)

    @property
    def label(self):
        return self.version or self.path

    def cli(self):
        """The --model text."""
        parts = ['version=' + self.version if self.version else 'path=' + self.path,
                 'name=' + self.name]
        if self.disable_clip:
            parts.append('disable_clip')
        if self.enable_transform:
            parts.append('enable_transform')
        parts += ['%s.%s=%s' % o for o in self.overloads]
        return ':'.join(parts)


def models(spec):
    """A list of Model from None, one spec or several. Several built-in or file
    models given bare are named after themselves, so that their names differ."""
    if spec is None:
        return []
    items = [spec] if isinstance(spec, (str, Model)) else list(spec)
    out = [Model.parse(s) for s in items]
    if len(out) > 1:
        for s, m in zip(items, out):
            if isinstance(s, str) and '=' not in s:
                base = os.path.basename(m.label)
                m.name = m.version or (base[:-5] if base.endswith('.json') else base)
    seen = set()
    for m in out:
        if m.name in seen:
            raise Error('two models are named %r: give each its own name= ' % m.name)
        seen.add(m.name)
    return out


def features(spec):
    """[(extractor, [(option, value text)])] from names, CLI texts, pairs or a dict."""
    if not spec:
        return []
    if isinstance(spec, str):
        spec = [spec]
    elif isinstance(spec, dict):
        spec = list(spec.items())
    out = []
    for f in spec:
        if isinstance(f, str):
            name, _, rest = f.partition('=')
            opts = []
            for part in rest.split(':') if rest else []:
                k, sep, v = part.partition('=')
                if not k or not sep or '=' in v:
                    raise Error('feature %r: %r is not an OPTION=VALUE pair' % (f, part))
                opts.append((k, v))
        elif isinstance(f, (tuple, list)) and len(f) == 2 and isinstance(f[0], str):
            name, o = f
            opts = [(k, _text(v)) for k, v in (o or {}).items()]
        else:
            raise Error('a feature is a name, "name=opt=val:..." or (name, {opt: val}), not %r'
                        % (f,))
        if not name:
            raise Error('feature %r has no extractor name' % (f,))
        out.append((name, opts))
    return out


def feature_cli(name, opts):
    return name + ''.join(('=' if i == 0 else ':') + '%s=%s' % kv for i, kv in enumerate(opts))
