#!/usr/bin/env python3
"""Print 'N passed, N failed, N skipped' from meson's testlog.json (skips listed with why)."""
import json, sys

passed = failed = skipped = 0
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t['result']
    if r in ('OK', 'EXPECTEDFAIL'):
        passed += 1
    elif r == 'SKIP':
        skipped += 1
        why = (t.get('stdout') or '').strip().splitlines()
        print('skipped: %s: %s' % (t['name'], why[-1] if why else ''))
    else:
        failed += 1
        print('failed: %s (%s)' % (t['name'], r))
print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
