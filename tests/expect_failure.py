#!/usr/bin/env python3
"""Run a command that must fail, and pass only when it fails the way
expected: with exit status STATUS, and output (stdout and stderr together)
that holds every TEXT given. A crash is never the expected failure: a
Python traceback or death by a signal fails the test whatever its status.
(meson's should_fail accepts any non-zero exit, a traceback included.)

usage: expect_failure.py --status N --says TEXT [--says TEXT ...] -- COMMAND [ARG ...]
"""
import argparse, subprocess, sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--status', type=int, required=True, help='the exit status expected')
    ap.add_argument('--says', action='append', required=True,
                    help='a text the output must hold (each one given)')
    ap.add_argument('command', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ['--'] else a.command
    if not cmd:
        ap.error('no command given')
    r = subprocess.run(cmd, capture_output=True, text=True)
    out = r.stdout + r.stderr
    why = []
    if r.returncode != a.status:
        why.append('exit status %d, expected %d' % (r.returncode, a.status))
    if 'Traceback (most recent call last)' in out:
        why.append('it crashed (a Python traceback)')
    why += ['its output lacks %r' % t for t in a.says if t not in out]
    print(out, end='' if out.endswith('\n') or not out else '\n')
    if why:
        print('FAIL: not the failure expected: ' + '; '.join(why))
        return 1
    print('ok: it fails as expected (exit %d, %d texts found)' % (r.returncode, len(a.says)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
