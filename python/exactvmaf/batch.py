"""Score a catalogue of pairs on a Dask cluster: python3 -m exactvmaf.batch JOBS --out DIR

JOBS is a CSV file with a header row: columns id, reference, distorted; an
optional model column (several models separated by ';'), an optional
feature column (likewise), and any long option of the exactvmaf tool as a
column (width, height, pixel_format, bitdepth for raw YUV; frame_cnt,
scale_to_ref, ...; an empty cell leaves the option out, true/false for
flags). Relative paths are taken from the CSV's folder.

Each job's result is DIR/<id>.json, the tool's --json layout at full
precision, written whole or not at all, with an "exactvmaf_batch" member
holding the digest of the job's inputs and options. DIR/summary.csv lists
every job's pooled model scores at the end.

Runs on a LocalCluster of --workers processes, or on an existing cluster
(--scheduler tcp://HOST:PORT; the workers need this package and the same version
of the tool, whose version the digest records).
--gpus 0,1 adds one worker per GPU, which computes with --backend cuda.

Long pairs are split into frame ranges of --shard-frames frames, each
computed with the frames before and after it that the temporal features
read (PRE_ROLL, POST_ROLL), and merged: every per-frame and pooled value
equals one whole run's bit for bit. A re-run skips the jobs whose result
holds the same digest; a lost worker's shards are computed again.
"""
import argparse
import csv
import datetime
import hashlib
import json
import logging
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time

from . import _cli
from . import spec as _spec
from .errors import Error
from .result import Result, pool

# Frames a shard computes before its range: motion's five-frame window reads
# the score two frames back, whose SAD reads two frames further back, and
# its moving average the previous frame's motion2 (integer_motion.c); one
# frame after it: motion2 takes the next frame's score.
PRE_ROLL = 4
POST_ROLL = 1
# The tool says this when a shard starts at or past the end of a video.
_PAST_END = re.compile(r'cannot skip \d+ frames|no frames to compare')
COLUMNS = ('id', 'reference', 'distorted', 'model', 'feature')
# Options a shard cannot take: each would write its own file.
NOT_IN_BATCH = ('report', 'plot')


class NeedWhole(Exception):
    """The shards' per-frame values cannot rebuild the job's result."""


class Job:
    def __init__(self, row, base, line, cli):
        self.line = line
        self.id = (row.get('id') or '').strip()
        if not self.id or not re.fullmatch(r'[A-Za-z0-9._+-]+', self.id) or self.id[0] == '.':
            raise Error('line %d: id %r must be letters, digits and . _ + - (it names the '
                        'result file)' % (line, self.id))
        for col in ('reference', 'distorted'):
            if not (row.get(col) or '').strip():
                raise Error('line %d (job %s): no %s' % (line, self.id, col))
        self.reference = os.path.join(base, row['reference'].strip())
        self.distorted = os.path.join(base, row['distorted'].strip())
        self.models = [m.strip() for m in (row.get('model') or '').split(';') if m.strip()]
        self.features = [f.strip() for f in (row.get('feature') or '').split(';') if f.strip()]
        try:
            self.options = tool_options(cli, ((k, v) for k, v in row.items() if k not in COLUMNS))
            presets = any(self.options.get(p) for p in _cli.PRESETS)
            self.model_specs = _spec.models(self.models or (None if presets else 'vmaf_v0.6.1'))
            for m in self.model_specs:
                if m.path:
                    m.path = os.path.join(base, m.path)
            self.feature_specs = _spec.features(self.features)
        except Error as e:
            raise Error('line %d (job %s): %s' % (line, self.id, e))

    def digest(self, version):
        """What decides the result: the inputs (path, size, modification time),
        the models, features and options, and the tool's version."""
        def stat(p):
            try:
                st = os.stat(p)
                return [os.path.realpath(p), st.st_size, st.st_mtime_ns]
            except OSError:
                return [os.path.realpath(p), None, None]
        key = {'reference': stat(self.reference), 'distorted': stat(self.distorted),
               'model': [m.cli() for m in self.model_specs],
               'model files': [stat(m.path) for m in self.model_specs if m.path],
               'feature': [_spec.feature_cli(n, o) for n, o in self.feature_specs],
               'options': {k: self.options[k] for k in sorted(self.options)},
               'version': version}
        return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def tool_options(cli, items):
    """A job's options under the tool's own names (frame-cnt is frame_cnt),
    from (name, value) pairs: CSV cells or Python keywords. Empty, false and
    no leave an option out, true and yes set a flag; the frame counts the
    shards are cut by become integers."""
    options = {}
    for k, v in items:
        if v is None or v is False:
            continue
        v = v if v is True else str(v).strip()
        if v is not True and v.lower() in ('false', 'no', ''):
            continue
        name = _cli.option_name(cli, k)
        if name in NOT_IN_BATCH:
            raise Error('option %s is not for batches (every shard would write it)' % k)
        options[name] = True if v is True or v.lower() in ('true', 'yes') else v
    for k in ('frame_cnt', 'frame_skip_ref', 'frame_skip_dist', 'subsample'):
        if k in options:
            options[k] = _cli.tool_uint(options[k], k)
    return options


def read_jobs(path, cli):
    base = os.path.dirname(os.path.abspath(path))
    jobs, seen = [], set()
    try:
        # utf-8-sig: a spreadsheet's byte order mark is not part of the first name.
        with open(path, newline='', encoding='utf-8-sig') as f:
            reader = csv.DictReader(f)
            missing = [c for c in ('id', 'reference', 'distorted')
                       if c not in (reader.fieldnames or [])]
            if missing:
                raise Error('%s: no column %s (the first row names the columns)'
                            % (path, ', '.join(missing)))
            for row in reader:
                line = reader.line_num
                if None in row:
                    raise Error('line %d: more cells than the header has columns' % line)
                if not any((v or '').strip() for v in row.values()):
                    continue        # an empty row (a spreadsheet's ",,,")
                job = Job(row, base, line, cli)
                if job.id in seen:
                    raise Error('line %d: id %s appears twice' % (line, job.id))
                seen.add(job.id)
                jobs.append(job)
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise Error('%s: %s' % (path, e))
    if not jobs:
        raise Error('%s: no jobs (a header row, then one row per job)' % path)
    return jobs


# ---- How many frames, to cut shards ----

def _y4m_frames(path):
    size = os.path.getsize(path)
    with open(path, 'rb') as f:
        header = f.readline()
        if not header.startswith(b'YUV4MPEG2 '):
            return None
        tags = dict((t[:1], t[1:]) for t in header.split()[1:])
        w, h = int(tags[b'W']), int(tags[b'H'])
        c = tags.get(b'C', b'420').decode()
        frame_line = f.readline()
    depth = int(re.search(r'p(\d+)', c).group(1)) if re.search(r'p(\d+)', c) else 8
    bps = 2 if depth > 8 else 1
    if c.startswith('mono'):
        n = w * h
    elif c.startswith('444'):
        n = 3 * w * h
    elif c.startswith('422'):
        n = w * h + 2 * ((w + 1) // 2) * h
    else:
        n = w * h + 2 * ((w + 1) // 2) * ((h + 1) // 2)
    return (size - len(header)) // (len(frame_line) + n * bps)


def _yuv_frames(path, o):
    try:
        w, h = _cli.tool_uint(o['width'], 'width'), _cli.tool_uint(o['height'], 'height')
        fmt = str(o.get('pixel_format'))
        bpc = _cli.tool_uint(o['bitdepth'], 'bitdepth')
    except (KeyError, Error):
        return None
    cw, ch = {'420': ((w + 1) // 2, (h + 1) // 2), '422': ((w + 1) // 2, h), '444': (w, h),
              '400': (0, 0)}.get(fmt, (None, None))
    if cw is None:
        return None
    return os.path.getsize(path) // ((w * h + 2 * cw * ch) * (2 if bpc > 8 else 1))


def _probe_frames(path):
    """The container's frame count (or duration x rate) from ffprobe, when
    it is installed; None otherwise. Only cuts shards: a wrong count costs
    balance, never a result."""
    try:
        r = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                            'stream=nb_frames,r_frame_rate:format=duration', '-of', 'json', path],
                           capture_output=True, text=True, timeout=60)
        d = json.loads(r.stdout)
        st = d['streams'][0]
        if str(st.get('nb_frames', 'N/A')).isdigit():
            return int(st['nb_frames'])
        num, den = st['r_frame_rate'].split('/')
        return int(float(d['format']['duration']) * int(num) / int(den) + 0.5)
    except (OSError, ValueError, KeyError, IndexError, subprocess.SubprocessError):
        return None


def estimate_frames(job):
    counts = []
    for path, skip_key in ((job.reference, 'frame_skip_ref'), (job.distorted, 'frame_skip_dist')):
        try:
            if job.options.get('width'):
                n = _yuv_frames(path, job.options)
            elif path.endswith('.y4m'):
                n = _y4m_frames(path)
            else:
                n = _probe_frames(path)
        except (OSError, ValueError, KeyError, AttributeError):
            n = None
        if n is None:
            return None
        counts.append(n - job.options.get(skip_key, 0))
    n = min(counts)
    if 'frame_cnt' in job.options:
        n = min(n, job.options['frame_cnt'])
    return max(n, 0)


def shardable(job):
    # The grid of computed frames would move with the shard. (Run-level
    # values and infinities show only in the results: merge() then asks for
    # the job whole.)
    return job.options.get('subsample', 0) <= 1


def plan(job, shard_frames, estimate):
    """Shard specs: (start, pre, keep, options) with keep None for 'to the end'."""
    if not shard_frames or estimate is None or estimate <= shard_frames or not shardable(job):
        return [(0, 0, None, dict(job.options))]
    k = math.ceil(estimate / shard_frames)
    user_cnt = job.options.get('frame_cnt')
    shards = []
    for i in range(k):
        start = i * shard_frames
        pre = min(PRE_ROLL, start)
        skip = start - pre
        o = dict(job.options)
        o['frame_skip_ref'] = job.options.get('frame_skip_ref', 0) + skip
        o['frame_skip_dist'] = job.options.get('frame_skip_dist', 0) + skip
        last = i == k - 1
        cnt = None if last else pre + shard_frames + POST_ROLL
        if user_cnt is not None:
            cnt = user_cnt - skip if cnt is None else min(cnt, user_cnt - skip)
        o.pop('frame_cnt', None)
        if cnt is not None:
            o['frame_cnt'] = cnt
        shards.append((start, pre, None if last else shard_frames, o))
    return shards


# ---- On a worker ----

def run_shard(job_id, ref, dis, model_specs, feature_specs, options, backend, threads, gpu=0):
    """Score one shard with the tool; a dict that pickles small."""
    worker_gpu = os.environ.get('EXACTVMAF_BATCH_GPU')
    if worker_gpu is not None:
        backend, gpu = 'cuda', int(worker_gpu)
    t0 = time.time()
    try:
        r = _cli.score_files(ref, dis, model_specs, feature_specs, backend, threads, gpu,
                             options)
    except Error as e:
        return {'error': str(e), 'code': e.code}
    return {'result': r, 't0': t0, 't1': time.time()}


# ---- Merging ----

def merge(shards, outcomes):
    """One Result from the shards' results, in frame order; raises Error when
    the ranges do not join up, NeedWhole when per-frame values cannot give the
    job's result: run-level values (apsnr), or a value the JSON holds as null
    (an infinity or NaN, whose pooling the text cannot repeat). A job of one
    shard is its result as the tool wrote it."""
    if len(shards) == 1:
        o = outcomes[0]
        if 'error' in o:
            raise Error(o['error'], code=o.get('code'))
        return o['result']
    frames, numbers, names, ended = [], [], None, False
    backends, devices, version = {}, {}, ''
    times = [(o['t0'], o['t1']) for o in outcomes if 'result' in o]
    t0, t1 = (min(t[0] for t in times), max(t[1] for t in times)) if times else (0, 0)
    for (start, pre, keep, _), o in zip(shards, outcomes):
        if 'error' in o:
            if ended and _PAST_END.search(o['error']):
                continue        # the shard starts past the end: nothing of it exists
            raise Error(o['error'], code=o.get('code'))
        r = o['result']
        if r.aggregate:
            raise NeedWhole('run-level values')
        if any(math.isnan(v) for f in r.frames for v in f.values()):
            raise NeedWhole('values that are not finite')
        version = r.version
        if names is None:
            names = list(r.pooled)
        for k, v in r.backends.items():
            have = backends.get(k)
            backends[k] = v if have in (None, v) else '+'.join(sorted(set(have.split('+')) | {v}))
        # Shards on several devices: each device that computed a metric, once.
        for k, recs in r.devices.items():
            have = devices.setdefault(k, [])
            have += [d for d in recs if d not in have]
        kept = [(n - pre + start, f) for n, f in zip(r.frame_numbers, r.frames)
                if n >= pre and (keep is None or n < pre + keep)]
        if kept and ended:
            raise Error('shard at frame %d has frames past the end found before it' % start)
        for n, f in kept:
            if n != len(frames):
                raise Error('shard at frame %d starts at %d, expected %d' % (start, n, len(frames)))
            numbers.append(n)
            frames.append(f)
        if keep is not None and len(kept) < keep:
            ended = True
    if not frames:
        raise Error('no frames')
    pooled = {}
    for name in names:
        values = [f.get(name) for f in frames]
        pooled[name] = {} if any(v is None for v in values) else pool(values)
    return Result(frames, numbers, pooled, backends, {}, version,
                  len(frames) / (t1 - t0) if t1 > t0 else None, devices)


def compute(client, todo, backend, threads, gpu=0, on_shard=None):
    """Score jobs on a Dask client: todo is [(job, tag, shards)] with shards
    from plan() and tag a text naming this computation (in the task keys).
    Yields (job, Result, shards, None) or (job, None, shards, error message)
    for each job as it concludes, shards being how many made it. A job
    whose shards cannot rebuild its result is computed again whole.
    on_shard(frames) is called as each shard comes back."""
    from distributed import as_completed
    plans = {job.id: shards for job, _, shards in todo}
    where, outcomes = {}, {}
    pending = as_completed()

    def submit(job, tag, attempt):
        outcomes[job.id] = [None] * len(plans[job.id])
        for k, (start, pre, keep, opts) in enumerate(plans[job.id]):
            f = client.submit(run_shard, job.id, job.reference, job.distorted,
                              job.model_specs, job.feature_specs, opts, backend, threads, gpu,
                              pure=False, key='%s-%s-%d-%d' % (job.id, tag[:12], attempt, k))
            where[f.key] = (job, tag, k)
            pending.add(f)

    for job, tag, _ in todo:
        submit(job, tag, 0)
    for f in pending:
        job, tag, k = where.pop(f.key)
        try:
            o = f.result()
        except Exception as e:      # a task the cluster gave up on (KilledWorker, ...)
            o = {'error': '%s: %s' % (type(e).__name__, e)}
        outcomes[job.id][k] = o
        if on_shard is not None and 'result' in o:
            start, pre, keep, _ = plans[job.id][k]
            on_shard(sum(1 for n in o['result'].frame_numbers
                         if n >= pre and (keep is None or n < pre + keep)))
        if any(x is None for x in outcomes[job.id]):
            continue
        try:
            r = merge(plans[job.id], outcomes[job.id])
        except NeedWhole:
            # Computed again in one piece: the tool's own result.
            plans[job.id] = [(0, 0, None, dict(job.options))]
            submit(job, tag, 1)
            continue
        except Error as e:
            yield job, None, len(plans[job.id]), str(e)
            continue
        yield job, r, len(plans[job.id]), None


def write_atomic(path, text):
    tmp = '%s.tmp-%d' % (path, os.getpid())
    try:
        with open(tmp, 'w') as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def existing_digest(path):
    try:
        with open(path) as f:
            d = json.load(f)
        return d.get('exactvmaf_batch', {}).get('digest'), Result.from_json(d)
    except (OSError, ValueError, KeyError, TypeError):
        return None, None


# ---- Progress ----

class Progress:
    def __init__(self, n_jobs, est_frames, quiet):
        self.n_jobs, self.est = n_jobs, est_frames
        self.jobs = self.frames = 0
        self.t0 = time.time()
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def update(self, jobs=0, frames=0, force=False):
        self.jobs += jobs
        self.frames += frames
        now = time.time()
        if self.quiet or (not force and now - self.last < (0.2 if self.tty else 5.0)):
            return
        self.last = now
        el = max(now - self.t0, 1e-9)
        fps = self.frames / el
        if self.est and fps > 0:
            left = max(self.est - self.frames, 0) / fps
            eta = str(datetime.timedelta(seconds=int(left)))
        else:
            eta = '?'
        done = self.jobs / self.n_jobs if self.n_jobs else 1
        bar = '#' * int(24 * done) + '.' * (24 - int(24 * done))
        line = '[%s] %d/%d jobs  %d frames  %.1f fps  ETA %s' % (
            bar, self.jobs, self.n_jobs, self.frames, fps, eta)
        sys.stderr.write(('\r' + line + '  ') if self.tty else line + '\n')
        sys.stderr.flush()

    def end(self):
        if not self.quiet:
            self.update(force=True)
            if self.tty:
                sys.stderr.write('\n')


# ---- The run ----

def _cluster(a):
    from distributed import Client, LocalCluster, Nanny, Scheduler, SpecCluster
    if a.scheduler:
        return Client(a.scheduler), None
    common = {'nthreads': 1, 'silence_logs': logging.ERROR}
    if not a.gpus:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        return Client(cluster), cluster
    workers = {'cpu-%d' % i: {'cls': Nanny, 'options': dict(common)} for i in range(a.workers)}
    for i, g in enumerate(a.gpus.split(',')):
        workers['gpu-%d-%s' % (i, g.strip())] = {'cls': Nanny, 'options': dict(
            common, env={'EXACTVMAF_BATCH_GPU': g.strip()})}
    cluster = SpecCluster(workers=workers, scheduler={
        'cls': Scheduler, 'options': {'dashboard_address': None}}, silence_logs=logging.ERROR)
    return Client(cluster), cluster


# Set by SIGTERM. The handler also raises KeyboardInterrupt where the main
# thread stands, but that can be inside Dask's or asyncio's code, which may
# catch and log it (seen once: raised in asyncio's call_soon_threadsafe, the
# run went on to the end and exited 0): the run checks the flag at every
# result as well, so a stop is never lost.
_stopping = threading.Event()


def _interrupt(signum, frame):
    _stopping.set()
    raise KeyboardInterrupt


def _check_stop():
    if _stopping.is_set():
        raise KeyboardInterrupt


def main(argv=None):
    ap = argparse.ArgumentParser(prog='python3 -m exactvmaf.batch',
                                 description='Score a catalogue of pairs on a Dask cluster.')
    ap.add_argument('jobs', help='CSV: id,reference,distorted[,model][,feature][,OPTION...]')
    ap.add_argument('--out', required=True, help='folder for <id>.json and summary.csv')
    ap.add_argument('--workers', type=int, default=os.cpu_count() or 1,
                    help='CPU worker processes of the local cluster (default: one per core)')
    ap.add_argument('--threads', type=int, default=1, help='threads per job (default 1)')
    ap.add_argument('--gpus', help='GPU indexes: one more worker per GPU, computing on it')
    ap.add_argument('--backend', default='cpu', choices=('cpu', 'cuda', 'opencl', 'auto'),
                    help='backend of the CPU workers (default cpu)')
    ap.add_argument('--scheduler', help='an existing Dask scheduler, tcp://HOST:PORT')
    ap.add_argument('--shard-frames', type=int, default=0,
                    help='split pairs longer than N frames into shards of N frames')
    ap.add_argument('--summary', help='summary CSV (default OUT/summary.csv)')
    ap.add_argument('--quiet', action='store_true', help='no progress bar')
    a = ap.parse_args(argv)
    try:
        return run(a)
    except Error as e:
        print('exactvmaf.batch: %s' % e, file=sys.stderr)
        return 2


def _gpu_list(text):
    gpus = [g.strip() for g in text.split(',')]
    if not all(g.isdigit() for g in gpus):
        raise Error('--gpus is a list of GPU indexes (0,1), not %r' % text)
    return gpus


def run(a):
    if a.workers < 0 or a.threads < 0 or a.shard_frames < 0:
        raise Error('--workers, --threads and --shard-frames are counts')
    if a.gpus:
        _gpu_list(a.gpus)
    if not a.scheduler and not a.workers and not a.gpus:
        raise Error('no workers: give --workers N, --gpus, or --scheduler')
    cli = _cli.cli_path()
    jobs = read_jobs(a.jobs, cli)      # an unknown option fails here, before any work
    version = subprocess.run([cli, '--version'], capture_output=True, text=True).stdout.strip()
    os.makedirs(a.out, exist_ok=True)
    for name in os.listdir(a.out):      # what an interrupted write left
        if re.search(r'\.json\.tmp-\d+$', name):
            os.remove(os.path.join(a.out, name))

    status = {}
    todo, paths = [], {}
    for job in jobs:
        digest = job.digest(version)
        path = os.path.join(a.out, job.id + '.json')
        have, result = existing_digest(path)
        if have == digest:
            status[job.id] = ('done', result, '')
            continue
        # A result of other inputs or options must not outlive a failed redo.
        if os.path.exists(path):
            os.remove(path)
        todo.append((job, digest, path))
        paths[job.id] = (digest, path)
    if len(status) and not a.quiet:
        print('%d of %d jobs already done (same inputs and options): skipped'
              % (len(status), len(jobs)), file=sys.stderr)

    plans = {}
    est_total = 0
    for job, _, _ in todo:
        est = estimate_frames(job)
        plans[job.id] = plan(job, a.shard_frames, est)
        est_total += est or 0

    _stopping.clear()
    old = signal.signal(signal.SIGTERM, _interrupt)
    client = cluster = None
    progress = Progress(len(todo), est_total, a.quiet)
    try:
        if todo:
            client, cluster = _cluster(a)

            def shard_done(frames):
                _check_stop()
                progress.update(frames=frames)

            for job, r, shards, err in compute(client, [(job, digest, plans[job.id])
                                                for job, digest, _ in todo],
                                       a.backend, a.threads, on_shard=shard_done):
                digest, path = paths[job.id]
                if err is None:
                    try:
                        extra = {'exactvmaf_batch': json.dumps({
                            'digest': digest, 'shards': shards,
                            'reference': job.reference, 'distorted': job.distorted})}
                        write_atomic(path, r.to_json(extra))
                        status[job.id] = ('ok', r, '')
                    except OSError as e:
                        status[job.id] = ('error', None, 'cannot write %s: %s' % (path, e))
                else:
                    status[job.id] = ('error', None, err)
                progress.update(jobs=1)
                _check_stop()
        _check_stop()
        progress.end()
    except KeyboardInterrupt:
        progress.end()
        done = sum(1 for s in status.values() if s[0] in ('ok', 'done'))
        print('\nexactvmaf.batch: interrupted; %d of %d jobs have results, run again to '
              'compute the rest' % (done, len(jobs)), file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, old)
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()

    try:
        write_summary(a.summary or os.path.join(a.out, 'summary.csv'), jobs, status)
    except OSError as e:
        raise Error('cannot write the summary: %s' % e)
    failed = [j.id for j in jobs if status.get(j.id, ('error',))[0] == 'error']
    for j in jobs:
        st = status.get(j.id)
        if st and st[0] == 'error':
            print('exactvmaf.batch: job %s failed: %s' % (j.id, st[2]), file=sys.stderr)
    if not a.quiet:
        print('%d jobs: %d computed, %d already done, %d failed' % (
            len(jobs), sum(1 for s in status.values() if s[0] == 'ok'),
            sum(1 for s in status.values() if s[0] == 'done'), len(failed)), file=sys.stderr)
    return 1 if failed else 0


def write_summary(path, jobs, status):
    names = []
    for j in jobs:
        for m in j.model_specs:
            if m.name not in names:
                names.append(m.name)
    rows = []
    for j in jobs:
        st, r, err = status.get(j.id, ('error', None, 'not run'))
        row = {'id': j.id, 'status': st, 'frames': len(r.frames) if r else '',
               'reference': j.reference, 'distorted': j.distorted, 'error': err}
        for n in names:
            p = r.pooled.get(n, {}) if r else {}
            row[n] = '%.17g' % p['mean'] if 'mean' in p else ''
        rows.append(row)
    tmp = '%s.tmp-%d' % (path, os.getpid())
    try:
        with open(tmp, 'w', newline='') as f:
            w = csv.DictWriter(f, ['id', 'status', 'frames'] + names + ['reference',
                                                                       'distorted', 'error'])
            w.writeheader()
            w.writerows(rows)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


if __name__ == '__main__':
    sys.exit(main())
