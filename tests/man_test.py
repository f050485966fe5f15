#!/usr/bin/env python3
"""The manual (built from --help by tools/help2man.py) holds every option that
--help lists, and was made from this build's --help (regenerating it gives
the same page).

usage: man_test.py --exe build/tools/exactvmaf --man build/tools/exactvmaf.1
"""
import argparse, os, re, subprocess, sys, tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--man', required=True)
    a = ap.parse_args()
    helptext = subprocess.run([a.exe, '--help'], capture_output=True, text=True).stdout
    page = open(a.man).read().replace('\\-', '-')
    options = sorted(set(re.findall(r'^ (?:-\w, |    )(--[\w-]+)', helptext, re.M)))
    missing = [o for o in options if o not in page]
    with tempfile.TemporaryDirectory() as tmp:
        again = os.path.join(tmp, 'exactvmaf.1')
        gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools', 'help2man.py')
        subprocess.run([sys.executable, gen, again, a.exe], check=True)
        same = open(again).read() == open(a.man).read()
    print('%d options in --help, %d missing from the manual%s; regenerated page %s'
          % (len(options), len(missing), ' (%s)' % ', '.join(missing) if missing else '',
             'identical' if same else 'DIFFERS'))
    ok = options and not missing and same
    print('%d passed, %d failed' % (1 if ok else 0, 0 if ok else 1))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
