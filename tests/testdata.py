#!/usr/bin/env python3
"""The tests' data, Netflix's test pairs and golden outputs: stored compressed
in tests/data/, unpacked into the build folder, where every test reads them.

usage: testdata.py unpack SOURCE DEST [--stamp FILE] [--depfile FILE]
       testdata.py pack FOLDER [--into SOURCE] [--part PART]...

unpack: SOURCE (tests/data) -> DEST (the build's test-data/), every file
checked against SOURCE/SHA256SUMS. A file that is missing, unlisted or not
its sum fails (exit 1, naming it) and leaves no DEST, so that no test runs on
data other than the checkout's. --stamp is written on success; --depfile
lists what was read, for ninja.
pack: the reverse, for a FOLDER laid out as DEST: stores its data files
under SOURCE (default: this script's data/) and rewrites their sums. A PART
(default: fixtures and every golden/<set>) is a folder of FOLDER; the other
parts' stored files and sums are left as they are. A stored file whose
content did not change is not rewritten, so an unchanged part leaves git
with nothing to commit.

What is stored how:
  fixtures/fixtures.json, golden/<set>/manifest.json   as they are
  fixtures/<pair>/<plane>.yuv                           <plane>.yuv.xz, one file each
  golden/<set>/<every other>.json                       golden/<set>/outputs.tar.xz
The golden outputs go into one archive because they share most of their
text: together they compress about 30 times smaller than one by one.
Compression is xz (Python's lzma, preset 9e); README.md files are
documentation, not data, and are neither packed nor unpacked.
"""
import argparse, hashlib, io, lzma, os, shutil, sys, tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUMS = 'SHA256SUMS'
ARCHIVE = 'outputs.tar.xz'
PLAIN = ('fixtures/fixtures.json',)


class DataError(Exception):
    pass


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def read_sums(source):
    sums = {}
    with open(os.path.join(source, SUMS)) as f:
        for n, line in enumerate(f, 1):
            digest, sep, path = line.rstrip('\n').partition('  ')
            if not sep or len(digest) != 64 or not safe(path):
                raise DataError('%s line %d is not "SHA256  PATH": %r' % (SUMS, n, line))
            sums[path] = digest
    return sums


def write_sums(source, sums):
    with open(os.path.join(source, SUMS), 'w') as f:
        for path in sorted(sums):
            f.write('%s  %s\n' % (sums[path], path))


def safe(path):
    """A relative path inside the data folder (an archive cannot write elsewhere)."""
    parts = path.split('/')
    return bool(path) and not path.startswith('/') and '..' not in parts and '' not in parts


def is_plain(path):
    return path in PLAIN or (path.startswith('golden/') and path.endswith('/manifest.json'))


def archive_of(path):
    """The archive holding `path` (golden/<set>/outputs.tar.xz), or None."""
    parts = path.split('/')
    if parts[0] == 'golden' and len(parts) > 2 and not is_plain(path):
        return 'golden/%s/%s' % (parts[1], ARCHIVE)
    return None


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)


def xz(data):
    return lzma.compress(data, format=lzma.FORMAT_XZ, preset=9 | lzma.PRESET_EXTREME)


# ---------------------------------------------------------------- unpack

def unpack_into(source, dest):
    """Every file of SHA256SUMS into dest, checked; returns the stored files read."""
    sums = read_sums(source)
    read = [os.path.join(source, SUMS)]
    archives = sorted({archive_of(p) for p in sums} - {None})
    for arc in archives:
        stored = os.path.join(source, arc)
        if not os.path.isfile(stored):
            raise DataError('%s is missing (%s lists files stored in it)' % (arc, SUMS))
        read.append(stored)
        base = os.path.dirname(arc)
        with tarfile.open(stored, 'r:xz') as tar:
            for m in tar:
                name = base + '/' + m.name
                if not m.isfile() or not safe(m.name) or archive_of(name) != arc:
                    raise DataError('%s holds %r, which is not a golden output file'
                                    % (arc, m.name))
                write(os.path.join(dest, name), tar.extractfile(m).read())
    for path in sorted(sums):
        if archive_of(path):
            continue
        stored = os.path.join(source, path if is_plain(path) else path + '.xz')
        if not os.path.isfile(stored):
            raise DataError('%s is missing (%s lists %s)'
                            % (os.path.relpath(stored, source), SUMS, path))
        read.append(stored)
        with open(stored, 'rb') as f:
            data = f.read()
        if not is_plain(path):
            try:
                data = lzma.decompress(data, format=lzma.FORMAT_XZ)
            except lzma.LZMAError as e:
                raise DataError('%s: %s' % (os.path.relpath(stored, source), e))
        write(os.path.join(dest, path), data)
    check(dest, sums)
    return read


def check(dest, sums):
    """Every listed file is there with its sum, and nothing else is."""
    found = set()
    for d, _, files in os.walk(dest):
        for name in files:
            found.add(os.path.relpath(os.path.join(d, name), dest).replace(os.sep, '/'))
    bad = ['%s: not in %s' % (p, SUMS) for p in sorted(found - set(sums))]
    bad += ['%s: listed in %s, not stored' % (p, SUMS) for p in sorted(set(sums) - found)]
    for path in sorted(found & set(sums)):
        with open(os.path.join(dest, path), 'rb') as f:
            got = sha256(f.read())
        if got != sums[path]:
            bad.append('%s: sha256 %s, %s says %s' % (path, got, SUMS, sums[path]))
    if bad:
        raise DataError('the unpacked data does not match %s:\n  %s' % (SUMS, '\n  '.join(bad)))


def unpack(source, dest, stamp=None, depfile=None):
    work = dest + '.new'
    shutil.rmtree(work, ignore_errors=True)
    try:
        read = unpack_into(source, work)
    except (DataError, OSError, tarfile.TarError) as e:
        # The checkout's data is not what its sums say: no test may read the
        # copy of an earlier checkout either.
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(dest, ignore_errors=True)
        for f in (stamp, depfile):
            if f and os.path.exists(f):
                os.remove(f)
        print('FAIL: test data: %s' % e, file=sys.stderr)
        return 1
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(work, dest)
    if depfile:
        with open(depfile, 'w') as f:
            f.write('%s: %s\n' % (stamp or dest, ' '.join(p.replace(' ', '\\ ') for p in read)))
    if stamp:
        with open(stamp, 'w') as f:
            f.write('%d files\n' % len(read_sums(source)))
    return 0


# ---------------------------------------------------------------- pack

def data_files(folder, part):
    """The data files of one part of an unpacked folder: {path: bytes}."""
    out = {}
    for d, dirs, files in os.walk(os.path.join(folder, part)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.relpath(os.path.join(d, name), folder).replace(os.sep, '/')
            if name == 'README.md':
                continue
            if not (is_plain(path) or archive_of(path) and name.endswith('.json')
                    or path.startswith('fixtures/') and name.endswith('.yuv')):
                raise DataError('%s: not a data file this layout stores (see --help)' % path)
            with open(os.path.join(folder, path), 'rb') as f:
                out[path] = f.read()
    if not out:
        raise DataError('%s has no data files' % os.path.join(folder, part))
    return out


def tar_xz(members):
    """A reproducible archive: sorted names, no times, owners or modes of this machine."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.GNU_FORMAT) as tar:
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(members[name]), 0o644, 0
            tar.addfile(info, io.BytesIO(members[name]))
    return xz(buf.getvalue())


def pack(folder, source, parts):
    sums = read_sums(source) if os.path.exists(os.path.join(source, SUMS)) else {}
    new = {}
    for part in parts:
        new.update(data_files(folder, part))
    new_sums = {p: sha256(d) for p, d in new.items()}
    old = {p for p in sums if any(p.startswith(part + '/') for part in parts)}
    stored_old = {archive_of(p) or (p if is_plain(p) else p + '.xz') for p in old}
    stored_new = {}
    for path, data in new.items():
        arc = archive_of(path)
        if arc:
            stored_new.setdefault(arc, {})[path[len(os.path.dirname(arc)) + 1:]] = data
        else:
            stored_new[path if is_plain(path) else path + '.xz'] = data
    changed = []
    for stored, data in sorted(stored_new.items()):
        target = os.path.join(source, stored)
        if isinstance(data, dict):
            base = os.path.dirname(stored)
            same = all(sums.get(base + '/' + n) == sha256(d) for n, d in data.items()) and \
                {p for p in old if archive_of(p) == stored} == {base + '/' + n for n in data}
            blob = None if same and os.path.exists(target) else tar_xz(data)
        else:
            path = stored[:-3] if stored.endswith('.xz') else stored
            same = sums.get(path) == new_sums[path] and os.path.exists(target)
            blob = None if same else (data if is_plain(path) else xz(data))
        if blob is not None:
            write(target, blob)
            changed.append(stored)
    for stored in sorted(stored_old - set(stored_new)):
        if os.path.exists(os.path.join(source, stored)):
            os.remove(os.path.join(source, stored))
            changed.append(stored + ' (removed)')
    for p in old:
        del sums[p]
    sums.update(new_sums)
    write_sums(source, sums)
    print('%d data files in %s; stored files written: %s'
          % (len(new), ', '.join(parts), ', '.join(changed) or 'none (unchanged)'))
    return 0


def default_parts(folder):
    parts = ['fixtures'] if os.path.isdir(os.path.join(folder, 'fixtures')) else []
    gdir = os.path.join(folder, 'golden')
    if os.path.isdir(gdir):
        parts += ['golden/' + s for s in sorted(os.listdir(gdir))
                  if os.path.isdir(os.path.join(gdir, s))]
    return parts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    u = sub.add_parser('unpack')
    u.add_argument('source')
    u.add_argument('dest')
    u.add_argument('--stamp')
    u.add_argument('--depfile')
    p = sub.add_parser('pack')
    p.add_argument('folder')
    p.add_argument('--into', default=os.path.join(HERE, 'data'))
    p.add_argument('--part', action='append')
    a = ap.parse_args()
    if a.cmd == 'unpack':
        return unpack(os.path.abspath(a.source), os.path.abspath(a.dest), a.stamp, a.depfile)
    try:
        return pack(a.folder, a.into, a.part or default_parts(a.folder))
    except DataError as e:
        print('FAIL: %s' % e, file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
