"""What the Python tests share: one line per check and the tally at the end.

A test records each check with record(); finish() prints "N passed, M
failed" and gives the exit status (0 only when at least one check ran and
none failed).
"""

results = []        # (name, ok, why) of every check, in order
# Print only the failed checks (a test of many small cases); the tally
# still counts every one.
quiet = False


def record(name, ok, why=''):
    """One check: its line (why, shortened, when it failed); returns ok."""
    ok = bool(ok)
    why = str(why)
    results.append((name, ok, why))
    if ok and quiet:
        return ok
    if len(why) > 1500:
        # Both ends: where a command starts and where it failed.
        why = why[:700] + ' ... ' + why[-700:]
    print('%-66s %s%s' % (name, 'ok' if ok else 'FAIL', '' if ok else ': ' + why), flush=True)
    return ok


def passed():
    return sum(1 for r in results if r[1])


def failed():
    return [r for r in results if not r[1]]


def finish():
    """Print the tally; the exit status: 1 on a failure or when nothing was checked."""
    print('%d passed, %d failed' % (passed(), len(failed())), flush=True)
    return 0 if results and not failed() else 1

