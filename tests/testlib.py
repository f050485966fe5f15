"""What the Python tests share: one line per check and the tally at the end,
what a test does when the machine lacks the device it needs, and the
outputs of a run as 64-bit patterns to compare.

A test records each check with record(); finish() prints "N passed, M
failed" and gives the exit status (0 only when at least one check ran and
none failed). no_device() is the one way a test gives up for want of a GPU,
CUDA or OpenCL: exit 77 (meson's skip), or, with EXACTVMAF_REQUIRE_GPU=1
(scripts/gpu-check.sh, on a machine that has the GPU), a failure, so that a
broken backend never reads as a skip.
"""
import json
import os
import struct
import subprocess

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


def gpu_required():
    """Whether a missing GPU, CUDA or OpenCL device is a failure here."""
    return os.environ.get('EXACTVMAF_REQUIRE_GPU') == '1'


def no_device(why):
    """The exit status of a test that cannot run for want of a device: 77 (skip),
    or 1 under EXACTVMAF_REQUIRE_GPU=1. Prints why either way."""
    if gpu_required():
        print('FAIL: %s (EXACTVMAF_REQUIRE_GPU=1: a device must be there)' % why, flush=True)
        return 1
    print('SKIP: %s' % why, flush=True)
    return 77


def missing_device(why):
    """A test that goes on without the device (leaving out what needs it, or
    checking what a run does without it) says why; under
    EXACTVMAF_REQUIRE_GPU=1 that is a failed check."""
    if gpu_required():
        record('the device is there', False, '%s (EXACTVMAF_REQUIRE_GPU=1)' % why)
    else:
        print('(%s)' % why, flush=True)


def bit_patterns(doc):
    """Every output of a run's JSON document as a 64-bit pattern, keyed by
    (frame, metric), ('pooled', metric, method) and ('aggregate', name); None
    where the JSON has null (not a number)."""
    def bits(v):
        return None if v is None else struct.pack('<d', v)
    vals = {}
    for fr in doc['frames']:
        for k, v in fr['metrics'].items():
            vals[(fr['frameNum'], k)] = bits(v)
    for k, pooled in doc.get('pooled_metrics', {}).items():
        for m, v in pooled.items():
            vals[('pooled', k, m)] = bits(v)
    for k, v in doc.get('aggregate_metrics', {}).items():
        vals[('aggregate', k)] = bits(v)
    return vals


def extractors(exe, twin=None):
    """The library's extractors, in registry order, as the tool at exe lists
    them (--list-extractors --json): the one list tests take theirs from.
    twin 'cuda' or 'opencl': only those with a twin on that backend."""
    doc = json.loads(subprocess.run([exe, '--list-extractors', '--json'], check=True,
                                    capture_output=True, text=True).stdout)
    return [e['name'] for e in doc['extractors'] if not twin or e['twins'][twin]]
