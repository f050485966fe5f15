#!/usr/bin/env python3
"""Print 'N passed, N failed' over one or more test logs (the last line;
skipped tests are counted on the line before).

usage: test_summary.py [LABEL=]LOG...
Each LOG holds one JSON object a line with "name" and "result" (meson's
testlog.json, or the files scripts/run-asan-tests.sh and scripts/fuzz.sh
write). LABEL prefixes the names of that log's tests in the listing. A log
that does not exist counts as one failure (its build or run did not happen).
Skipped and failed tests are listed with why; the last line is the total.
Before the totals, "golden: N outputs compared, N identical" sums what the
golden tests say they compared (tests/golden_test.py's "set ..." line):
outputs that differ in a set that passed are its documented mismatch.
"""
import json, os, re, sys

# tests/golden_test.py's last line but one per set.
GOLDEN_SET = re.compile(r'^set (\S+) \(\w+ division\): (\d+)/(\d+) outputs bit-identical')

passed = failed = skipped = 0
compared = identical = 0
documented, differing = {}, {}
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
        for out in (t.get('stdout') or '').splitlines():
            m = GOLDEN_SET.match(out)
            if m:
                same, total = int(m.group(2)), int(m.group(3))
                compared += total
                identical += same
                if same != total:
                    into = documented if r in ('OK', 'EXPECTEDFAIL') else differing
                    into[m.group(1)] = into.get(m.group(1), 0) + total - same
        if r in ('OK', 'EXPECTEDFAIL'):
            passed += 1
        elif r == 'SKIP':
            skipped += 1
            why = (t.get('stdout') or '').strip().splitlines()
            print('skipped: %s%s: %s' % (prefix, t['name'], why[-1] if why else ''))
        else:
            failed += 1
            print('failed: %s%s (%s)' % (prefix, t['name'], r))
if compared:
    print('golden: %d outputs compared, %d identical%s' % (compared, identical, ''.join(
        ', %d %s (%s)' % (sum(sets.values()), what, ', '.join(sorted(sets)))
        for sets, what in ((documented, 'differ as documented'), (differing, 'differ'))
        if sets)))
print('%d skipped' % skipped)
print('%d passed, %d failed' % (passed, failed))
