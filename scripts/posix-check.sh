#!/usr/bin/env bash
# macOS hygiene, checked on Linux: every C file of src/ and tools/ that the
# Linux build compiles (its compile_commands.json) is compiled again, syntax
# only, with -D_POSIX_C_SOURCE=200809L in place of -D_GNU_SOURCE: anything
# Linux-only outside the portability room (src/os/, whose POSIX side asks for
# its own extensions) fails here. Writes one testlog entry to
# BUILD/meson-logs/testlog-posix.json (for scripts/test_summary.py).
# usage: scripts/posix-check.sh [BUILD (default build)]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/compile_commands.json" ] || scripts/setup.sh "$build" >/dev/null || exit 1
python3 - "$build" <<'EOF'
import concurrent.futures, json, os, shlex, subprocess, sys

build = sys.argv[1]
root = os.getcwd()
jobs = []
for c in json.load(open(os.path.join(build, 'compile_commands.json'))):
    src = os.path.normpath(os.path.join(c['directory'], c['file']))
    rel = os.path.relpath(src, root)
    if not rel.endswith('.c') or not (rel.startswith('src/') or rel.startswith('tools/')):
        continue
    argv = shlex.split(c['command'])
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ('-o', '-MF', '-MQ'):
            skip = True
            continue
        if a == '-MD':
            continue
        out.append('-D_POSIX_C_SOURCE=200809L' if a == '-D_GNU_SOURCE' else a)
    jobs.append((rel, c['directory'], out + ['-fsyntax-only']))
seen, bad = set(), []


def run(job):
    rel, cwd, argv = job
    r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    return rel, r.returncode, r.stderr


jobs = [j for j in jobs if not (j[0] in seen or seen.add(j[0]))]
with concurrent.futures.ThreadPoolExecutor(2) as ex:
    for rel, rc, err in ex.map(run, jobs):
        if rc:
            bad.append(rel)
            print('%s:\n%s' % (rel, err.strip()[-1500:]))
why = ('%d C files compile with _POSIX_C_SOURCE=200809L alone' % len(jobs) if not bad else
       '%d of %d C files need more than POSIX: %s' % (len(bad), len(jobs), ', '.join(bad)))
print(why)
os.makedirs(os.path.join(build, 'meson-logs'), exist_ok=True)
with open(os.path.join(build, 'meson-logs', 'testlog-posix.json'), 'w') as f:
    f.write(json.dumps({'name': 'posix-only compile of src/ and tools/ (macOS hygiene)',
                        'result': 'FAIL' if bad else 'OK', 'stdout': why}) + '\n')
sys.exit(1 if bad else 0)
EOF
