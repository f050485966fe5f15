#!/usr/bin/env python3
"""Print 'N passed, N failed' over one or more test logs (the last line;
skipped tests are counted on the line before).

usage: test_summary.py [LABEL=]LOG...
Each LOG holds one JSON object a line with "name" and "result" (meson's
testlog.json, or the files scripts/run-asan-tests.sh and scripts/fuzz.sh
write). LABEL prefixes the names of that log's tests in the listing. A log
that does not exist counts as one failure (its build or run did not happen).
Skipped and failed tests are listed with why; the last line is the total.
"""
import json, os, sys

passed = failed = skipped = 0
for arg in sys.argv[1:]:
    label, sep, path = arg.partition('=')
    if not sep:
        label, path = '', arg
    prefix = label + ': ' if label else ''
    if not os.path.exists(path):
        failed += 1
        print('failed: %s%s (no test log: the build or the run did not happen)' % (prefix, path))
        continue
    for line in open(path):
        if not line.strip():
            continue
        t = json.loads(line)
        r = t['result']
        if r in ('OK', 'EXPECTEDFAIL'):
            passed += 1
        elif r == 'SKIP':
            skipped += 1
            why = (t.get('stdout') or '').strip().splitlines()
            print('skipped: %s%s: %s' % (prefix, t['name'], why[-1] if why else ''))
        else:
            failed += 1
            print('failed: %s%s (%s)' % (prefix, t['name'], r))
print('%d skipped' % skipped)
print('%d passed, %d failed' % (passed, failed))
