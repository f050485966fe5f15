#!/usr/bin/env python3
"""Count the files that keep a list of metrics by hand, and fail above the limit.

The library's registry is the one list of extractors (made from
src/feature/meson.build); tools and tests take theirs from it
(`exactvmaf --list-extractors`, exactvmaf_extractor_name()). A file keeps a
list by hand where five or more extractor names follow one another with
nothing but separators between them (quotes, commas, brackets, blanks,
`--feature`, `--only`, comments): a table of test cases, whose rows carry
options and sizes between the names, is not such a list. docs/, Markdown
and data (tests/data/: Netflix's goldens; tests/fuzz/corpus/) are not read.

usage: count-metric-lists.py --exe build/tools/exactvmaf [--root DIR] [--limit 4]
Prints each such file with the longest run it holds; exits 1 above the limit.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

SKIP_DIRS = ('docs/', 'tests/data/', 'tests/fuzz/corpus/')
TOKEN = re.compile(r'(?<![A-Za-z0-9_./-])([a-z_0-9]+)(?![A-Za-z0-9_])')
# What may stand between two names of one list.
SEPARATORS = re.compile(r'(\s|[,"\'()\[\]{}+;:=\\|]|--feature|--only|#[^\n]*\n|//[^\n]*\n)*\Z')


def names(exe):
    # In a cross build meson's MESON_EXE_WRAPPER (wine, qemu) runs the tool.
    wrapper = shlex.split(os.environ.get('MESON_EXE_WRAPPER', ''))
    out = subprocess.run(wrapper + [exe, '--list-extractors'], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line and not line[0].isspace()}


def files(root):
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files'], check=True,
                             capture_output=True, text=True).stdout
        return out.split()
    except (OSError, subprocess.CalledProcessError):
        return [os.path.relpath(os.path.join(d, f), root)
                for d, _, fs in os.walk(root) for f in fs]


def longest_run(text, metrics):
    best, run, last = 0, set(), None
    for m in TOKEN.finditer(text):
        if m.group(1) not in metrics:
            continue
        if last is not None and SEPARATORS.match(text, last, m.start()):
            run.add(m.group(1))
        else:
            run = {m.group(1)}
        last = m.end()
        best = max(best, len(run))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True, help='the exactvmaf tool (its --list-extractors)')
    ap.add_argument('--root', default=os.path.join(os.path.dirname(__file__), '..'))
    ap.add_argument('--limit', type=int, default=4)
    a = ap.parse_args()
    metrics = names(a.exe)
    if len(metrics) < 5:
        print('FAIL: %s lists %d extractors' % (a.exe, len(metrics)))
        return 1
    found = []
    for f in sorted(files(a.root)):
        if f.startswith(SKIP_DIRS) or f.endswith('.md'):
            continue
        try:
            with open(os.path.join(a.root, f), encoding='utf-8') as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError):
            continue
        n = longest_run(text, metrics)
        if n >= 5:
            found.append((f, n))
    for f, n in found:
        print('%s: a list of %d metrics' % (f, n))
    ok = len(found) <= a.limit
    print('%s: %d files keep a list of five or more metrics by hand (at most %d)'
          % ('ok' if ok else 'FAIL', len(found), a.limit))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
