"""Scoring files through the `exactvmaf` command line tool.

Files go through the tool rather than the library because the tool holds
the readers (y4m, raw YUV, and every container and codec FFmpeg's
libraries decode, with scaling and conversion) and validates them; a
decoder failing on a damaged file fails a child process, never this
interpreter. Its JSON at --precision max carries every value exactly.

The tool is EXACTVMAF_CLI when set; else the one the build recorded
beside this package (_paths.py: inside it, in a wheel); else `exactvmaf` on
PATH.
"""
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from .errors import Error
from .result import Result
from .spec import feature_cli

_options = None

# Set by score_files itself: a caller's value would clash with them.
RESERVED = {'reference', 'distorted', 'output', 'json', 'xml', 'csv', 'sub', 'precision',
            'threads', 'backend', 'quiet', 'model', 'feature', 'no_prediction', 'gpu',
            'version', 'help', 'list-devices', 'rcpss_fingerprint'}
# Options that bring their own models (a default model would clash with them).
PRESETS = ('aom_ctc', 'nflx_ctc')


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
    if found and os.path.realpath(found) == os.path.realpath(sys.argv[0] or ''):
        found = None    # main()'s own launcher, not the tool
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


def option_name(cli, key):
    """The tool's long option for a Python keyword or CSV column (frame_cnt,
    scale_to_ref or scale-to-ref); Error for an unknown or reserved one."""
    known = _long_options(cli)
    for name in (key, key.replace('_', '-'), key.replace('-', '_')):
        if name in known:
            break
    else:
        raise Error('unknown option %r (the command line tool has no --%s)' % (key, key))
    if name in RESERVED or name.replace('-', '_') in RESERVED:
        raise Error('option %r is set by exactvmaf itself (use the argument or column for '
                    'it, if there is one)' % key)
    return name


def tool_uint(value, what):
    """An unsigned count as the tool reads it (strtoull, base 0: 0x hex, 0 octal)."""
    text = str(value).strip()
    try:
        if text[:2].lower() == '0x':
            return int(text[2:], 16)
        if len(text) > 1 and text[0] == '0':
            return int(text[1:], 8)
        if text.isdigit():
            return int(text)
    except ValueError:
        pass
    raise Error('invalid value %r for %s: expected an integer >= 0' % (value, what))


def option_args(cli, options):
    """CLI arguments for options given as Python keywords or CSV columns:
    key -> --key (or --key-with-dashes); True adds a flag, False and None omit it."""
    args = []
    for key, val in options.items():
        if val is None or val is False or val == '':
            continue
        name = option_name(cli, key)
        if val is True:
            args.append('--' + name)
        elif isinstance(val, (list, tuple)):
            for v in val:
                args += ['--' + name, str(v)]
        else:
            args += ['--' + name, str(val)]
    return args


# Resolved here, not in the child: between fork and exec in a threaded
# process (a Dask worker) only the call itself may run, no symbol lookup.
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _prctl = None


def _die_with(parent):
    """preexec_fn: the tool goes when its parent goes (a lost worker), and
    does not start when the parent is already gone."""
    def setup():
        if _prctl is not None:
            _prctl(1, signal.SIGKILL)       # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(1)
    return setup


def _run_tool(argv):
    """Run the tool (it dies with us); its last error lines become the Error."""
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       preexec_fn=_die_with(os.getpid()))
    if r.returncode:
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        raise Error('\n'.join(lines[-8:]) or 'exactvmaf exited with %d' % r.returncode,
                    code=r.returncode)


def tool_args(cli, models, features, backend, threads, gpu, options):
    """The tool's arguments for a scoring: a run's, and compare's for each encode."""
    argv = ['-q', '--threads', str(threads)]
    if backend != 'auto':
        argv += ['--backend', backend]
    if gpu:
        argv += ['--gpu', str(gpu)]
    for m in models:
        argv += ['--model', m.cli()]
    for name, opts in features:
        argv += ['--feature', feature_cli(name, opts)]
    return argv + option_args(cli, options)


def score_files(ref, dis, models, features, backend, threads, gpu, options):
    cli = cli_path()
    with tempfile.TemporaryDirectory(prefix='exactvmaf-') as tmp:
        out = os.path.join(tmp, 'out.json')
        argv = [cli, '-r', os.fspath(ref), '-d', os.fspath(dis), '--json', '-o', out,
                '--precision', 'max']
        argv += tool_args(cli, models, features, backend, threads, gpu, options)
        if not models and not any(options.get(p) for p in PRESETS):
            argv.append('--no_prediction')
        _run_tool(argv)
        with open(out) as f:
            return Result.from_json(json.load(f))


class Comparison:
    """What `exactvmaf compare` found (its --json, as read).

    encodes          one dict per encode: file, ladder, bitrate_kbps,
                     bitrate_source, vmaf (the first model's pooled mean),
                     vmaf_harmonic_mean, frames
    ladders          one dict per ladder, the anchor first: name, anchor,
                     encodes (indices into encodes, by rising bitrate),
                     bd_rate_percent and bd_vmaf against the anchor (None where
                     undefined, with bd_error saying why)
    common_bitrates  [{'bitrate_kbps': r, 'vmaf': {ladder: score or None}}]
    json             the whole document
    """

    def __init__(self, doc):
        self.json = doc
        self.encodes = doc['encodes']
        self.ladders = doc['ladders']
        self.common_bitrates = doc['common_bitrates']
        self.metric = doc['metric']

    def bd_rate(self, ladder):
        """The ladder's BD-rate against the anchor in percent (None where undefined)."""
        return self._ladder(ladder)['bd_rate_percent']

    def bd_vmaf(self, ladder):
        """The ladder's BD-VMAF against the anchor (None where undefined)."""
        return self._ladder(ladder)['bd_vmaf']

    def _ladder(self, name):
        for l in self.ladders:
            if l['name'] == name:
                return l
        raise KeyError(name)

    def __repr__(self):
        return '<Comparison of %d encodes in %d ladders>' % (len(self.encodes), len(self.ladders))


def compare_outputs(group_by, report, csv):
    argv = []
    if group_by is not None:
        argv += ['--group-by', group_by]
    if report is not None:
        argv += ['--report', os.fspath(report)]
    if csv is not None:
        argv += ['--csv', os.fspath(csv)]
    return argv


def compare_plan(ref, encodes, group_by, models, options):
    """`exactvmaf compare --plan`'s JSON: each encode's ladder and bitrate."""
    cli = cli_path()
    with tempfile.TemporaryDirectory(prefix='exactvmaf-') as tmp:
        out = os.path.join(tmp, 'plan.json')
        argv = [cli, 'compare', '--plan', '--json', out]
        argv += tool_args(cli, models, (), 'auto', 0, 0, options)
        argv += compare_outputs(group_by, None, None)
        _run_tool(argv + ['--', os.fspath(ref)] + [os.fspath(e) for e in encodes])
        with open(out) as f:
            return json.load(f)


def compare_files(ref, encodes, group_by, models, features, backend, threads, gpu, report,
                  csv, points, options, scores=None):
    """`exactvmaf compare`: scoring each encode, or with points (a CSV of
    ladder, bitrate_kbps, vmaf) or scores (a CSV of file, vmaf, ... computed
    elsewhere) instead."""
    cli = cli_path()
    with tempfile.TemporaryDirectory(prefix='exactvmaf-') as tmp:
        out = os.path.join(tmp, 'compare.json')
        argv = [cli, 'compare', '--json', out]
        if points is not None:
            argv += ['--points', os.fspath(points)]
        else:
            if scores is not None:
                argv += ['--scores', os.fspath(scores)]
            argv += tool_args(cli, models, features, backend, threads, gpu, options)
        argv += compare_outputs(group_by, report, csv)
        if points is None:
            argv += ['--', os.fspath(ref)] + [os.fspath(e) for e in encodes]
        _run_tool(argv)
        with open(out) as f:
            return Comparison(json.load(f))


def main():
    """The `exactvmaf` command a wheel installs: the tool inside the package."""
    cli = cli_path()
    os.execv(cli, [cli] + sys.argv[1:])
