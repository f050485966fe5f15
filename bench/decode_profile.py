#!/usr/bin/env python3
"""Where one pair's time goes: the CLI on a compressed pair at several decode-session
counts, each run traced (EXACTVMAF_TRACE=1), the trace's sums in one table.

For each --sessions count S: `exactvmaf -r REF -d DIS --hwdec-sessions S ARGS...` (ARGS:
--args, default `--backend cuda --hwdec cuda`), best of --reps by wall time. Per run:

  wall, fps            the whole process, frames / wall seconds
  open, first, done    seconds since the process started: inputs open, the first pair
                       handed to the library, the scores complete (the rest, to the
                       process's end, is writing and tear-down)
  library              seconds the reading thread spent in vmaf_read_pictures()
  per input            its decoders (count, frames, and the seconds they spent sending
                       packets and receiving frames: on NVDEC, receiving waits for the
                       engine and maps and copies the surface), its reader thread (seconds
                       reading, seconds waiting for room) and the seconds the reading thread
                       waited for its frames

Reading it: the reading thread waiting on an input means that input's decoding sets the
pace; readers waiting for room mean the library does; decoders whose sending and receiving
add up to far less than the wall time are idle (too few segments ahead, or waiting for
their turn). `--env K=V` runs with that environment too (an experiment's switch).

On a machine without a GPU, `--args "--hwdec none" --env EXACTVMAF_SESSIONS_ON_CPU=1`
cuts the files for CPU decoders: the table's machinery, checked.

usage: bench/decode_profile.py --exe PATH --ref REF --dis DIS [--sessions 1,3,7]
                               [--args "--backend cuda --hwdec cuda"] [--env K=V]...
                               [--reps 1] [--record FILE]
"""
import argparse, os, re, shlex, subprocess, sys, tempfile, time

TRACE = re.compile(r'^exactvmaf trace ([0-9.]+) s: (.*)$')
DECODER = re.compile(r'^(.*): (\d+) frames decoded; ([0-9.]+) s demuxing, ([0-9.]+) s sending '
                     r'packets, ([0-9.]+) s receiving frames$')
READER = re.compile(r'^(.*): (\d+) frames read; the reader read ([0-9.]+) s and waited '
                    r'([0-9.]+) s for room, its caller waited ([0-9.]+) s$')
HANDED = re.compile(r'^(\d+) pairs: ([0-9.]+) s handing them to the library$')
PHASES = {'inputs open': 'open', 'first pair handed to the library': 'first',
          'scores complete': 'done'}


def parse(stderr, paths):
    """The trace's sums of one run: phases, library time, per input (by path)."""
    out = {'library': None, 'pairs': None, 'inputs': {}}
    for p in paths:
        out['inputs'][p] = {'decoders': 0, 'frames': 0, 'send': 0.0, 'receive': 0.0,
                            'demux': 0.0, 'read': None, 'room': None, 'waited': None}
    for line in stderr.splitlines():
        m = TRACE.match(line)
        if not m:
            continue
        t, what = float(m.group(1)), m.group(2)
        if what in PHASES:
            out[PHASES[what]] = t
            continue
        m = DECODER.match(what)
        if m and m.group(1) in out['inputs']:
            d = out['inputs'][m.group(1)]
            d['decoders'] += 1
            d['frames'] += int(m.group(2))
            d['demux'] += float(m.group(3))
            d['send'] += float(m.group(4))
            d['receive'] += float(m.group(5))
            continue
        m = READER.match(what)
        if m and m.group(1) in out['inputs']:
            d = out['inputs'][m.group(1)]
            d['read'], d['room'], d['waited'] = (float(m.group(3)), float(m.group(4)),
                                                 float(m.group(5)))
            continue
        m = HANDED.match(what)
        if m:
            out['pairs'], out['library'] = int(m.group(1)), float(m.group(2))
    return out


def run_once(a, sessions):
    with tempfile.TemporaryDirectory(prefix='decode_profile.') as tmp:
        argv = [a.exe, '-r', a.ref, '-d', a.dis, '--hwdec-sessions', str(sessions), '-q',
                '--json', '-o', os.path.join(tmp, 'out.json')] + shlex.split(a.args)
        env = dict(os.environ, EXACTVMAF_TRACE='1', **a.env)
        t0 = time.monotonic()
        r = subprocess.run(argv, capture_output=True, text=True, env=env)
        wall = time.monotonic() - t0
    if r.returncode:
        print('run failed (exit %d): %s\n%s' % (r.returncode, ' '.join(argv),
                                                r.stderr[-2000:]), file=sys.stderr)
        return None
    s = parse(r.stderr, (a.ref, a.dis))
    s['wall'] = wall
    return s


def num(v, fmt='%.3f'):
    return '-' if v is None else fmt % v


def table(a, results):
    names = {a.ref: 'ref', a.dis: 'dis'}
    head = ['sessions', 'wall s', 'fps', 'open', 'first', 'done', 'library s']
    for p in (a.ref, a.dis):
        n = names[p]
        head += ['%s decoders' % n, '%s send s' % n, '%s receive s' % n, '%s reader read s' % n,
                 '%s reader room s' % n, 'waited for %s s' % n]
    out = ['| ' + ' | '.join(head) + ' |', '|---' * len(head) + '|']
    for sessions, s in results:
        if s is None:
            out.append('| %d | failed |' % sessions)
            continue
        row = [str(sessions), num(s['wall']),
               num(s['pairs'] / s['wall'] if s['pairs'] else None, '%.1f'),
               num(s.get('open')), num(s.get('first')), num(s.get('done')), num(s['library'])]
        for p in (a.ref, a.dis):
            d = s['inputs'][p]
            row += ['%d (%d frames)' % (d['decoders'], d['frames']), num(d['send']),
                    num(d['receive']), num(d['read']), num(d['room']), num(d['waited'])]
        out.append('| ' + ' | '.join(row) + ' |')
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--exe', required=True)
    ap.add_argument('--ref', required=True)
    ap.add_argument('--dis', required=True)
    ap.add_argument('--sessions', default='1,3,7')
    ap.add_argument('--args', default='--backend cuda --hwdec cuda')
    ap.add_argument('--env', action='append', default=[], help='K=V, repeatable')
    ap.add_argument('--reps', type=int, default=1)
    ap.add_argument('--record', help='append the markdown to this file')
    a = ap.parse_args()
    env = {}
    for kv in a.env:
        k, sep, v = kv.partition('=')
        if not sep or not k:
            ap.error('--env: %r is not K=V' % kv)
        env[k] = v
    a.env = env
    results = []
    for sessions in [int(x) for x in a.sessions.split(',')]:
        runs = [run_once(a, sessions) for _ in range(a.reps)]
        runs = [r for r in runs if r]
        results.append((sessions, min(runs, key=lambda r: r['wall']) if runs else None))
    lines = ['decode_profile: `%s` on %s / %s, %s%s, best of %d:' % (
        a.exe, a.ref, a.dis, a.args, ''.join(' %s=%s' % kv for kv in sorted(env.items())),
        a.reps), ''] + table(a, results)
    print('\n'.join(lines))
    if a.record:
        with open(a.record, 'a') as f:
            f.write('\n' + '\n'.join(lines) + '\n')
    return 0 if all(s for _, s in results) else 1


if __name__ == '__main__':
    sys.exit(main())
