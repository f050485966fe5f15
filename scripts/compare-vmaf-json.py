#!/usr/bin/env python3
"""Every frame's every metric and every pooled value of two libvmaf JSON logs
compared, as the text each log prints (no float parsing, no tolerance).

usage: compare-vmaf-json.py A.json B.json [--label TEXT]

Prints "N/N values identical" (and the first differences) and exits 1 on any
difference, a metric or frame one log has and the other lacks included. The
run's speed ("fps") is the one value not compared. Where both logs print at
full precision (%.17g) equal text is an equal 64-bit pattern; at the default
%.6f it is equal six-decimal text, which is all such a log holds.
"""
import json, sys

def flatten(node, where, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k != 'fps':  # the run's speed, not a score
                flatten(v, where + (k,), out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            frame = v.get('frameNum', str(i)) if isinstance(v, dict) else str(i)
            flatten(v, where + (frame,), out)
    else:
        out[where] = node


def values(path):
    """{(key, ...): text} for every number and string in the log but fps."""
    with open(path) as f:
        # Numbers kept as the text written: equal text or a difference.
        tree = json.load(f, parse_float=str, parse_int=str, parse_constant=str)
    out = {}
    flatten(tree, (), out)
    return out


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    a, b = values(sys.argv[1]), values(sys.argv[2])
    label = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == '--label' else ''
    keys = sorted(set(a) | set(b))
    diff = [k for k in keys if a.get(k) != b.get(k)]
    frames = {k[1] for k in keys if k[0] == 'frames'}
    print('%s%d/%d values identical (%d frames)' % (label + ': ' if label else '',
                                                    len(keys) - len(diff), len(keys),
                                                    len(frames)))
    for k in diff[:5]:
        print('  differ: %s: %s vs %s' % ('/'.join(k), a.get(k, '(missing)'),
                                          b.get(k, '(missing)')))
    return 1 if diff or not keys else 0


if __name__ == '__main__':
    sys.exit(main())
