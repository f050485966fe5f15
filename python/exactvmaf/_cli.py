"""Scoring files through the `exactvmaf` command line tool.

Files go through the tool rather than the library because the tool holds
the readers (y4m, raw YUV, and every container and codec FFmpeg's
libraries decode, with scaling and conversion) and validates them; a
decoder failing on a damaged file fails a child process, never this
interpreter. Its JSON at --precision max carries every value exactly.

The tool is EXACTVMAF_CLI when set; else the one `meson install` recorded
beside this package; else `exactvmaf` on PATH.
"""
import ctypes
import json
import os
import shutil
import signal
import subprocess
import tempfile

from .errors import Error
from .result import Result
from .spec import feature_cli

_options = None


def cli_path():
    env = os.environ.get('EXACTVMAF_CLI')
    if env:
        return env
    try:
        from . import _paths
        if os.path.exists(_paths.CLI):
            return _paths.CLI
    except ImportError:
        pass
    found = shutil.which('exactvmaf')
    if not found:
        raise Error('the exactvmaf command line tool is not found (set EXACTVMAF_CLI to its '
                    'path); files are read through it')
    return found


def _long_options(cli):
    """Every long option --help lists, with whether it takes a value."""
    global _options
    if _options is None:
        r = subprocess.run([cli, '--help'], capture_output=True, text=True)
        opts = {}
        for line in (r.stdout + r.stderr).splitlines():
            for word in line.replace(',', ' ').split():
                if word.startswith('--') and len(word) > 2:
                    name = word[2:].split('=')[0]
                    rest = line.split(word, 1)[1].strip()
                    opts.setdefault(name, bool(rest) and rest.split()[0].isupper())
        _options = opts
    return _options


def option_args(cli, options):
    """CLI arguments for options given as Python keywords or CSV columns:
    key -> --key (or --key-with-dashes); True adds a flag, False and None omit it."""
    known = _long_options(cli)
    args = []
    for key, val in options.items():
        if val is None or val is False or val == '':
            continue
        for name in (key, key.replace('_', '-'), key.replace('-', '_')):
            if name in known:
                break
        else:
            raise Error('unknown option %r (the command line tool has no --%s)' % (key, key))
        if val is True:
            args.append('--' + name)
        elif isinstance(val, (list, tuple)):
            for v in val:
                args += ['--' + name, str(v)]
        else:
            args += ['--' + name, str(val)]
    return args


def _die_with_parent():
    """The tool goes when the process that started it goes (a lost worker)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)       # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def score_files(ref, dis, models, features, backend, threads, gpu, options):
    cli = cli_path()
    with tempfile.TemporaryDirectory(prefix='exactvmaf-') as tmp:
        out = os.path.join(tmp, 'out.json')
        argv = [cli, '-r', os.fspath(ref), '-d', os.fspath(dis), '--json', '-o', out,
                '--precision', 'max', '-q', '--threads', str(threads)]
        if backend != 'auto':
            argv += ['--backend', backend]
        if gpu:
            argv += ['--gpu', str(gpu)]
        for m in models:
            argv += ['--model', m.cli()]
        if not models:
            argv.append('--no_prediction')
        for name, opts in features:
            argv += ['--feature', feature_cli(name, opts)]
        argv += option_args(cli, options)
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           preexec_fn=_die_with_parent)
        if r.returncode:
            lines = [l for l in r.stderr.splitlines() if l.strip()]
            raise Error('\n'.join(lines[-8:]) or 'exactvmaf exited with %d' % r.returncode,
                        code=r.returncode)
        with open(out) as f:
            return Result.from_json(json.load(f))
