"""A PEP 517 build backend from the standard library alone, so that
`pip install ./python` needs no network: it packs exactvmaf/ into a pure
Python wheel (and an sdist). Metadata comes from pyproject.toml's
[project] table."""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _project():
    try:
        import tomllib
        with open(os.path.join(HERE, 'pyproject.toml'), 'rb') as f:
            return tomllib.load(f)['project']
    except ImportError:
        pass
    # Python < 3.11: the subset pyproject.toml uses (tables; keys whose values
    # are strings or lists of strings, on one line).
    import ast
    project, table = {}, None
    for line in open(os.path.join(HERE, 'pyproject.toml')):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        if line.startswith('['):
            name = line.strip('[]').strip()
            table = (project if name == 'project' else
                     project.setdefault('optional-dependencies', {})
                     if name == 'project.optional-dependencies' else None)
        elif table is not None and '=' in line:
            k, v = (x.strip() for x in line.split('=', 1))
            table[k] = ast.literal_eval(v)
    return project


def _metadata():
    p = _project()
    lines = ['Metadata-Version: 2.1', 'Name: %s' % p['name'], 'Version: %s' % p['version'],
             'Summary: %s' % p.get('description', '')]
    if 'requires-python' in p:
        lines.append('Requires-Python: %s' % p['requires-python'])
    for d in p.get('dependencies', []):
        lines.append('Requires-Dist: %s' % d)
    for extra, deps in p.get('optional-dependencies', {}).items():
        lines.append('Provides-Extra: %s' % extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (d, extra) for d in deps]
    return p['name'], p['version'], '\n'.join(lines) + '\n'


def _files():
    for root, dirs, files in os.walk(os.path.join(HERE, 'exactvmaf')):
        dirs[:] = sorted(d for d in dirs if d != '__pycache__')
        for f in sorted(files):
            if f.endswith('.py') and f != '_paths.py':
                full = os.path.join(root, f)
                yield full, os.path.relpath(full, HERE).replace(os.sep, '/')


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    name, version, meta = _metadata()
    d = os.path.join(metadata_directory, '%s-%s.dist-info' % (name, version))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'METADATA'), 'w') as f:
        f.write(meta)
    return os.path.basename(d)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name, version, meta = _metadata()
    dist_info = '%s-%s.dist-info' % (name, version)
    wheel_name = '%s-%s-py3-none-any.whl' % (name, version)
    record = []

    def add(zf, arcname, data):
        zf.writestr(zipfile.ZipInfo(arcname, (2020, 1, 1, 0, 0, 0)), data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
        record.append('%s,sha256=%s,%d' % (arcname, digest, len(data)))

    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), 'w',
                         zipfile.ZIP_DEFLATED) as zf:
        for full, arc in _files():
            with open(full, 'rb') as f:
                add(zf, arc, f.read())
        add(zf, dist_info + '/METADATA', meta.encode())
        add(zf, dist_info + '/WHEEL', b'Wheel-Version: 1.0\nGenerator: exactvmaf _build\n'
                                      b'Root-Is-Purelib: true\nTag: py3-none-any\n')
        record.append(dist_info + '/RECORD,,')
        zf.writestr(zipfile.ZipInfo(dist_info + '/RECORD', (2020, 1, 1, 0, 0, 0)),
                    '\n'.join(record) + '\n')
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    name, version, meta = _metadata()
    base = '%s-%s' % (name, version)
    path = os.path.join(sdist_directory, base + '.tar.gz')
    with tarfile.open(path, 'w:gz') as tf:
        for full, arc in list(_files()) + [(os.path.join(HERE, 'pyproject.toml'),
                                            'pyproject.toml'),
                                           (os.path.abspath(__file__), '_build/backend.py')]:
            tf.add(full, base + '/' + arc)
        info = tarfile.TarInfo(base + '/PKG-INFO')
        data = meta.encode()
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    return os.path.basename(path)
