#!/usr/bin/env python3
"""End to end on one NVIDIA GPU: compressed pairs decoded and scored, exactvmaf
beside FFmpeg with Netflix's libvmaf, with the decoders alone as the roofline.

Pairs: --media DIR holds bench_NAME_ref.mp4 / bench_NAME_dis.mp4 (short clips,
one GOP each; bench/media.py makes them). Each clip is first lengthened to
--frames frames (rounded to whole clips) with `ffmpeg -stream_loop K -i X -c copy`
into a temporary folder, except a pair named onegop_*, which stays one GOP;
every run below reads those files, in the same call, best of --reps wall-clock
runs, fps = frames / wall seconds:

  decode   decode alone: both inputs at once, each
             ffmpeg -hwaccel cuda -hwaccel_output_format cuda -i X -f null -
           and M such pairs at once (--sessions, default 1,2,4,7: every NVDEC
           engine), M x frames / wall; the best M is reported
  cli      exactvmaf with no flags (the command a person types first), --hwdec cuda
           --backend cuda (default sessions, and one), --hwdec none --backend cuda,
           --hwdec none --backend cpu --threads T
  engines  exactvmaf --hwdec cuda as M processes on M copies of the pair at once
           (each --sessions count; default sessions and one session per input,
           the faster), M x frames / wall, against the decode-alone roofline
           measured the same way
  ffmpeg   FFmpeg (--ffmpeg-prefix) + Netflix's libvmaf_cuda (the GPU anchor,
           --anchor-lib first in LD_LIBRARY_PATH), the same command with our
           library (--ours-lib, EXACTVMAF_PRECISION=max), FFmpeg + Netflix's
           libvmaf on the CPU with T threads. libvmaf_cuda takes yuv420p or
           yuv444p16 frames only: for pairs above 8 bits its rows are skipped.

Needs: the FFmpeg of --ffmpeg-prefix with NVDEC, scale_cuda, libvmaf_cuda (linked to our
library) and the muxer of the clips' container for the looping (mp4 for .mp4 clips:
build-ffmpeg-nvdec.sh's options plus --enable-muxer=mp4; checked where a clip is looped);
--anchor-lib the whole lib/ folder of the same FFmpeg built against Netflix's CUDA libvmaf
(its libavfilter beside another build's libavutil fails in scale_cuda; checked before any
run).

Exactness (counts, never a tolerance): our CLI's per-frame values of every
metric, --hwdec cuda vs --hwdec none vs --backend cpu, compared as 64-bit
patterns; FFmpeg + our libvmaf_cuda vs our CLI on the CPU likewise, on the
metrics both print; Netflix's libvmaf_cuda (and libvmaf) vs our CPU: the
largest |difference| of per-frame vmaf and the frames that differ at the %.6f
it prints.

Exit status: 1 if any comparison of ours differs or a run's frame count is not
the expected one, else 2 if a run failed (its row shows "failed", its command
and the end of its stderr are printed) or a comparison could not be made, else 0.
The markdown goes to stdout (and --record), progress and failures to stderr.

usage: bench/e2e.py --exe PATH --ours-lib DIR --anchor-lib DIR --media DIR
                    [--ffmpeg-prefix /tmp/ffnv] [--frames 480] [--reps 2]
                    [--threads 16] [--sessions 1,2,4,7] [--only decode,cli,engines,ffmpeg]
                    [--pairs NAME,...] [--keep DIR] [--record FILE] [--timeout S]
       bench/e2e.py --selftest
"""
import argparse, datetime, json, math, os, re, shutil, struct, subprocess, sys, tempfile
import threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_name

PARTS = ('decode', 'cli', 'engines', 'ffmpeg')

# The table's rows: key, label. Cells are fps.
ROWS = [
    ('dec_pair', 'decode alone: both inputs at once (2 NVDEC sessions)'),
    ('dec_all', 'decode alone: all engines (best M pairs at once)'),
    ('cli_noflags', 'exactvmaf with no flags (`-r ref -d dis --json -o out`)'),
    ('cli_hw', 'exactvmaf --hwdec cuda --backend cuda (default sessions)'),
    ('cli_hw1', 'exactvmaf --hwdec cuda --hwdec-sessions 1 --backend cuda'),
    ('cli_hw_all', 'exactvmaf --hwdec cuda --backend cuda, M pairs at once (best M)'),
    ('cli_sw', 'exactvmaf --hwdec none --backend cuda'),
    ('cli_cpu', 'exactvmaf --hwdec none --backend cpu --threads T'),
    ('ff_nf_cuda', 'FFmpeg + Netflix libvmaf_cuda (NVDEC, scale_cuda)'),
    ('ff_ours_cuda', 'FFmpeg + exactvmaf libvmaf_cuda (same command)'),
    ('ff_nf_cpu', 'FFmpeg + Netflix libvmaf (CPU, T threads)'),
]
RATIOS = [
    ('cli_noflags', 'ff_nf_cuda', 'x', 'ratio: exactvmaf with no flags / Netflix libvmaf_cuda'),
    ('cli_noflags', 'dec_all', '%', 'ratio: exactvmaf with no flags (one pair) / decode alone, '
     'all engines'),
    ('cli_noflags', 'cli_best', '%', 'ratio: exactvmaf with no flags / its best flags (the best '
     'of the --hwdec cuda rows)'),
    ('cli_hw_all', 'dec_all', '%',
     'ratio: exactvmaf M pairs at once / decode alone M pairs at once (both best M)'),
    ('ff_ours_cuda', 'ff_nf_cuda', 'x',
     'ratio: FFmpeg + exactvmaf libvmaf_cuda / FFmpeg + Netflix libvmaf_cuda'),
]
NOT_8BIT = ('n/a: above 8 bits (FFmpeg\'s libvmaf_cuda takes yuv420p or yuv444p16 frames '
            'only, and yuv444p16 would be scored as 16-bit samples)')


class Cell:
    """One run of one pair: fps, or why there is none."""

    def __init__(self, fps=None, note='', mem=None, json_path=None, frames=None, extra=None):
        self.fps, self.note, self.mem, self.json_path = fps, note, mem, json_path
        self.frames = frames          # frame count of its JSON, where it writes one
        self.extra = extra            # decode all engines: {M: fps}, and the best M

    def text(self):
        if self.fps is None:
            return self.note or '-'
        s = '%.1f' % self.fps
        if self.extra and 'best' in self.extra:
            s += ' (M=%d)' % self.extra['best']
        if self.note:
            s += ' (%s)' % self.note
        return s


class Pair:
    def __init__(self, name, ref, dis):
        self.name, self.ref, self.dis = name, ref, dis
        self.frames = None            # after looping: the frames each file should have
        self.pix_fmt, self.bits = None, 8


# ---------------------------------------------------------------- running things

def tail(text, n=15):
    return '\n'.join(text.strip().splitlines()[-n:])


def tail_file(path, n=15):
    try:
        with open(path, errors='replace') as f:
            return tail(f.read(), n)
    except OSError as e:
        return str(e)


def show_failure(what, argv, env_note, err):
    print('FAILED: %s\n  command: %s%s\n  stderr (last lines):\n%s' % (
        what, env_note, ' '.join(quote(x) for x in argv),
        '\n'.join('    ' + l for l in err.splitlines()) or '    (empty)'),
        file=sys.stderr, flush=True)


def quote(s):
    return s if re.fullmatch(r'[\w@%+=:,./-]+', s) else "'" + s.replace("'", "'\\''") + "'"


def gpu_mem_now(index):
    """memory.used of GPU `index` in MiB, or None."""
    try:
        r = subprocess.run(['nvidia-smi', '-i', str(index), '--query-gpu=memory.used',
                            '--format=csv,noheader,nounits'], capture_output=True, text=True,
                           timeout=30)
        return int(r.stdout.strip().splitlines()[0])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return None


class GpuMem:
    """Peak memory.used of GPU --gpu-index while a run lasts: nvidia-smi asked over and
    over by a thread (a call takes some tens of ms; short peaks can be missed)."""

    def __init__(self, index, enabled=True):
        self.index, self.enabled, self.peak = index, enabled, None
        self.stop = threading.Event()

    def _poll(self):
        while not self.stop.is_set():
            v = gpu_mem_now(self.index)
            if v is None:
                return
            self.peak = v if self.peak is None else max(self.peak, v)
            self.stop.wait(0.05)

    def __enter__(self):
        if self.enabled:
            self.thread = threading.Thread(target=self._poll, daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.stop.set()
            self.thread.join(timeout=60)
        return False


def run_once(argvs, env, timeout, logdir):
    """Starts every argv at once; returns (wall seconds, None) or (None, (argv, stderr tail))."""
    procs, logs = [], []
    t0 = time.perf_counter()
    try:
        for i, argv in enumerate(argvs):
            log = os.path.join(logdir, 'stderr.%d.txt' % i)
            logs.append(log)
            with open(log, 'wb') as f:
                procs.append(subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL, stderr=f))
    except OSError as e:
        for p in procs:
            p.kill()
            p.wait()
        return None, (argvs[len(procs)], str(e))
    deadline = t0 + timeout
    timed_out = False
    for p in procs:
        try:
            p.wait(timeout=max(deadline - time.perf_counter(), 0.01))
        except subprocess.TimeoutExpired:
            timed_out = True
            break
    wall = time.perf_counter() - t0
    if timed_out:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        return None, (argvs[0], 'timed out after %g s (--timeout)\n' % timeout + tail_file(logs[0]))
    for p, argv, log in zip(procs, argvs, logs):
        if p.returncode:
            return None, (argv, 'exit status %d\n' % p.returncode + tail_file(log))
    return wall, None


def measure(a, what, argvs, env):
    """Best of a.reps wall-clock runs of argvs started together: (seconds or None, peak MiB).
    The timed runs go alone: nvidia-smi, asked every 50 ms, opens the driver as the run
    starts its own (a 720-frame 2160p pair took 2.07 s polled and 1.74 s unpolled, on H100s
    in two calls, 2026-12-07; not yet timed side by side), so the peak memory is read in
    one more run of its own (not with --no-mem)."""
    env_note = ''.join('%s=%s ' % (k, env[k]) for k in ('LD_LIBRARY_PATH', 'EXACTVMAF_PRECISION')
                       if k in env)
    best = None
    logdir = tempfile.mkdtemp(prefix='log.', dir=a.work)
    for _ in range(a.reps):
        wall, err = run_once(argvs, env, a.timeout, logdir)
        if err:
            show_failure(what, err[0], env_note, err[1])
            return None, None
        best = wall if best is None or wall < best else best
    if a.mem_idle is None or getattr(a, 'no_mem', False):
        return best, None
    with GpuMem(a.gpu_index) as mem:
        _, err = run_once(argvs, env, a.timeout, logdir)
    peak = None if err or mem.peak is None else mem.peak - a.mem_idle
    return best, peak


def lib_env(a, first):
    """The environment for a run of PREFIX/bin/ffmpeg (or our CLI) with `first` libraries
    first in LD_LIBRARY_PATH."""
    env = dict(os.environ)
    paths = [p for p in (first, os.path.join(a.ffmpeg_prefix, 'lib')) if p]
    if env.get('LD_LIBRARY_PATH'):
        paths.append(env['LD_LIBRARY_PATH'])
    env['LD_LIBRARY_PATH'] = ':'.join(paths)
    return env


def ours_env(a):
    env = lib_env(a, a.ours_lib)
    env['EXACTVMAF_PRECISION'] = 'max'
    return env


def anchor_env(a):
    env = lib_env(a, a.anchor_lib)
    env.pop('EXACTVMAF_PRECISION', None)
    return env


def ffmpeg(a):
    return [os.path.join(a.ffmpeg_prefix, 'bin', 'ffmpeg'), '-hide_banner', '-nostdin',
            '-nostats', '-loglevel', 'error']


# ---------------------------------------------------------------- the media

def find_pairs(media, only):
    pairs = []
    for f in sorted(os.listdir(media)):
        m = re.fullmatch(r'bench_(.+)_ref\.(mp4|mkv|mov|webm|ivf)', f)
        if not m:
            continue
        dis = os.path.join(media, 'bench_%s_dis.%s' % m.groups())
        if not os.path.exists(dis):
            print('note: %s has no distorted file beside it; skipped' % f, file=sys.stderr)
            continue
        if only and m.group(1) not in only:
            continue
        pairs.append(Pair(m.group(1), os.path.join(media, f), dis))
    return pairs


def probe(a, path):
    """(frames by demuxing only, pixel format) of a file; None where not found."""
    r = subprocess.run([os.path.join(a.ffmpeg_prefix, 'bin', 'ffmpeg'), '-hide_banner',
                        '-nostdin', '-i', path, '-map', '0:v:0', '-c', 'copy', '-f', 'null', '-'],
                       capture_output=True, text=True, env=ours_env(a))
    frames = re.findall(r'frame=\s*(\d+)', r.stderr)
    pix = re.search(r'Stream #\d+:\d+.*?: Video: [^,]*, ([a-z0-9_]+)', r.stderr)
    if r.returncode:
        print('probe failed: %s\n%s' % (path, tail(r.stderr)), file=sys.stderr)
    return (int(frames[-1]) if frames else None), (pix.group(1) if pix else None)


def bits_of(pix_fmt, name):
    if pix_fmt:     # yuv420p10le, p010le, gray12le: the digits before the byte order
        m = re.search(r'(\d+)(le|be)$', pix_fmt)
        return int(m.group(1)) if m and 8 < int(m.group(1)) <= 16 else 8
    m = re.search(r'(\d+)_\d+$', name)     # hevc10_2160: the digits after the codec
    return int(m.group(1)) if m and m.group(1) in ('10', '12', '16') else 8


# The muxer that writes a clip of each extension (the looping copies into the same container).
MUXER_OF = {'.mp4': 'mp4', '.mov': 'mov', '.mkv': 'matroska', '.webm': 'webm', '.ivf': 'ivf'}


def ffmpeg_muxers(a):
    r = subprocess.run(ffmpeg(a) + ['-muxers'], capture_output=True, text=True, env=ours_env(a))
    return set(re.findall(r'^\s*[D ]?E\s+(\S+)', r.stdout, re.M))


def missing_muxer(a, path):
    """Why the FFmpeg cannot write path's container (the looping copies into it), or None."""
    ext = os.path.splitext(path)[1].lower()
    m = MUXER_OF.get(ext)
    if not m or m in a.muxers:
        return None
    return ('the FFmpeg in %s cannot write %s files (no %s muxer), which the looping of '
            'the clips needs: build it with --enable-muxer=%s added (build-ffmpeg-nvdec.sh '
            'enables null, yuv4mpegpipe and rawvideo only)' % (a.ffmpeg_prefix, ext, m, m))


def setup_problems(a, pairs):
    """Why the runs cannot be made as asked, found before any is: each a line."""
    out = []
    a.muxers = ffmpeg_muxers(a)
    libs = os.listdir(a.anchor_lib) if os.path.isdir(a.anchor_lib) else []
    if 'ffmpeg' in a.only and not any(f.startswith('libavutil.so') for f in libs):
        out.append('--anchor-lib %s: the whole lib folder of the FFmpeg built against Netflix\'s '
                   'libvmaf is needed, not its libavfilter alone: with another build\'s '
                   'libavutil its CUDA function table differs and scale_cuda fails '
                   '(CUDA_ERROR_INVALID_VALUE)' % a.anchor_lib)
    return out


def loop_pair(a, pair):
    """Lengthens both files of a pair to its --frames frames (whole clips) in a.work; None,
    or why it could not."""
    clip, pix = probe(a, pair.ref)
    dclip, _ = probe(a, pair.dis)
    if not clip:
        print('note: %s: frame count not found; assuming %d' % (pair.ref, a.clip_frames),
              file=sys.stderr)
        clip = a.clip_frames
    if dclip and dclip != clip:
        print('note: %s: %d reference frames, %d distorted' % (pair.name, clip, dclip),
              file=sys.stderr)
    pair.pix_fmt, pair.bits = pix, bits_of(pix, pair.name)
    # A one-GOP pair stays one GOP: looped, it would have keyframes to cut at.
    want = a.frames_of.get(pair.name, a.frames)
    copies = 1 if pair.name.startswith('onegop') else max(1, (want + clip // 2) // clip)
    pair.frames = copies * clip
    for side in ('ref', 'dis'):
        src = getattr(pair, side)
        if copies == 1:
            continue
        why = missing_muxer(a, src)
        if why:
            print('e2e: ' + why, file=sys.stderr)
            return 'looping: no %s muxer' % MUXER_OF[os.path.splitext(src)[1].lower()]
        dst = os.path.join(a.work, 'bench_%s_%s_x%d%s' % (pair.name, side, copies,
                                                          os.path.splitext(src)[1]))
        argv = ffmpeg(a) + ['-stream_loop', str(copies - 1), '-i', src, '-c', 'copy', '-y', dst]
        r = subprocess.run(argv, capture_output=True, text=True, env=ours_env(a))
        if r.returncode:
            show_failure('looping ' + src, argv, '', tail(r.stderr))
            return 'looping failed'
        if not os.path.exists(dst):
            return 'looping wrote no file'

        setattr(pair, side, dst)
    for p in (pair.ref, pair.dis):          # into the page cache
        with open(p, 'rb') as f:
            while f.read(1 << 24):
                pass
    return None


# ---------------------------------------------------------------- the measurements

def decode_argv(a, path):
    return ffmpeg(a) + ['-hwaccel', 'cuda', '-hwaccel_output_format', 'cuda', '-i', path,
                        '-f', 'null', '-']


def measure_decode(a, pair, copies):
    """`copies` pairs decoded at once on NVDEC (2 x copies processes):
    fps = copies x frames / wall."""
    argvs = [decode_argv(a, p) for _ in range(copies) for p in (pair.ref, pair.dis)]
    t, mem = measure(a, '%s: decode alone, %d pair(s) at once' % (pair.name, copies), argvs,
                     ours_env(a))
    return Cell(copies * pair.frames / t, mem=mem) if t else Cell(note='failed')


def measure_decode_one_process(a, pair, copies):
    """The same 2 x copies decoders in one ffmpeg process sharing the device's
    primary context (on an H200 this decoded 2160p HEVC 1.5x faster than as
    many processes)."""
    argv = ffmpeg(a) + ['-init_hw_device', 'cuda=dev:%d,primary_ctx=1' % a.gpu_index]
    maps = []
    for k, p in enumerate(p for _ in range(copies) for p in (pair.ref, pair.dis)):
        argv += ['-hwaccel', 'cuda', '-hwaccel_device', 'dev', '-hwaccel_output_format', 'cuda',
                 '-i', p]
        maps += ['-map', '%d:v' % k, '-f', 'null', '-']
    t, mem = measure(a, '%s: decode alone, %d pair(s) in one process' % (pair.name, copies),
                     [argv + maps], ours_env(a))
    return Cell(copies * pair.frames / t, mem=mem) if t else Cell(note='failed')


def best_of(per_m):
    """The cell of the fastest M of {M: cell}, naming M and holding them all."""
    done = [m for m, c in per_m.items() if c.fps is not None]
    if not done:
        return Cell(note='failed', extra={'per_m': per_m})
    best = max(done, key=lambda m: per_m[m].fps)
    b = per_m[best]
    return Cell(b.fps, mem=b.mem, note=b.note, extra={'per_m': per_m, 'best': best})


def measure_decode_engines(a, pair, one):
    """Every --sessions count of pairs at once; the best of them. `one`: the M=1 cell."""
    per_m = {}
    for m in a.sessions:
        c = one if m == 1 and one is not None else measure_decode(a, pair, m)
        c1 = measure_decode_one_process(a, pair, m)
        if c1.fps is not None and (c.fps is None or c1.fps > c.fps):
            c1.note = 'one process'
            c = c1
        per_m[m] = c
    return best_of(per_m)


def json_out(a, pair, key):
    return os.path.join(a.json_dir, '%s.%s.json' % (pair.name, key))


def frames_of(path):
    try:
        return len(load_scores(path)[0])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def finish(a, pair, key, t, mem, out):
    """The cell of a run that wrote `out`: fps, and its frame count checked."""
    if not t:
        return Cell(note='failed', json_path=None)
    n = frames_of(out)
    c = Cell(pair.frames / t, mem=mem, json_path=out, frames=n)
    if n != pair.frames:
        a.problems.append('%s: %s wrote %s frames, expected %d' % (
            pair.name, key, 'no readable' if n is None else n, pair.frames))
        c.note = 'frames %s != %d' % (n, pair.frames)
    return c


def measure_cli(a, pair, key, hwdec=None, backend=None, threads=None, sessions=None):
    """Our CLI on the pair, JSON with every number as %.17g; no --hwdec and no
    --backend: the command a person types first."""
    out = json_out(a, pair, key)
    argv = [a.exe, '-r', pair.ref, '-d', pair.dis, '-q', '--json', '-o', out, '--precision',
            'max']
    if backend:
        argv += ['--backend', backend]
    if hwdec:
        argv += ['--hwdec', hwdec]
    if sessions:
        argv += ['--hwdec-sessions', str(sessions)]
    if threads:
        argv += ['--threads', str(threads)]
    t, mem = measure(a, '%s: %s' % (pair.name, key), [argv], ours_env(a))
    return finish(a, pair, key, t, mem, out)


def measure_cli_engines(a, pair, one):
    """Our CLI (--hwdec cuda --backend cuda) on M copies of the pair at once, as M
    processes, for every --sessions count M: fps = M x frames / wall, the best M; as the
    decode-alone roofline is measured, so that both spread their start-up over M pairs.
    Every copy's JSON must equal `one`'s (the single run's) bit for bit. Each M runs with
    the default decode sessions and with --hwdec-sessions 1 (M processes of several
    sessions each give NVDEC more sessions than engines), the faster counting, as the
    roofline takes the faster of its two ways."""
    per_m = {}
    for m in a.sessions:
        c = None
        for sessions in (None, 1):
            c1 = measure_cli_copies(a, pair, one, m, sessions)
            if c1.fps is not None and (c is None or c.fps is None or c1.fps > c.fps):
                c = c1
            elif c is None:
                c = c1
        per_m[m] = c
    return best_of(per_m)


def measure_cli_copies(a, pair, one, m, sessions):
    """M processes of our CLI at once on copies of the pair (sessions: --hwdec-sessions)."""
    key = 'cli_hw_all%d%s' % (m, 's%d' % sessions if sessions else '')
    outs = [json_out(a, pair, '%s.%d' % (key, i)) for i in range(m)]
    extra = ['--hwdec-sessions', str(sessions)] if sessions else []
    argvs = [[a.exe, '-r', pair.ref, '-d', pair.dis, '-q', '--json', '-o', o, '--precision',
              'max', '--backend', 'cuda', '--hwdec', 'cuda'] + extra for o in outs]
    t, mem = measure(a, '%s: exactvmaf, %d pairs at once%s' % (
        pair.name, m, ', %d session' % sessions if sessions else ''), argvs, ours_env(a))
    c = Cell(m * pair.frames / t, mem=mem, note='1 session' if sessions else '') if t else \
        Cell(note='failed')
    if t:
        for o in outs:
            if one is None or not one.json_path:
                break
            try:
                same = exact_ok(compare_exact(one.json_path, o))
            except (OSError, ValueError, KeyError, TypeError):
                same = False
            if not same:
                a.problems.append('%s: a copy of %d pairs at once (%s) differs from the single '
                                  'run or is unreadable' % (pair.name, m, o))
                c.note = 'differs'
                break
    return c


def vmaf_cuda_argv(a, pair, out):
    return ffmpeg(a) + [
        '-hwaccel', 'cuda', '-hwaccel_output_format', 'cuda', '-i', pair.dis,
        '-hwaccel', 'cuda', '-hwaccel_output_format', 'cuda', '-i', pair.ref,
        '-filter_complex', '[0:v]scale_cuda=format=yuv420p[d];[1:v]scale_cuda=format=yuv420p[r];'
        '[d][r]libvmaf_cuda=log_fmt=json:log_path=%s' % out, '-f', 'null', '-']


def measure_ffmpeg_cuda(a, pair, key, env):
    """FFmpeg's libvmaf_cuda filter (distorted first), with the libavfilter `env` selects."""
    if pair.bits > 8:
        return Cell(note='n/a (%s)' % (pair.pix_fmt or '%d-bit' % pair.bits))
    out = json_out(a, pair, key)
    t, mem = measure(a, '%s: %s' % (pair.name, key), [vmaf_cuda_argv(a, pair, out)], env)
    return finish(a, pair, key, t, mem, out)


def measure_ffmpeg_nf_cuda(a, pair):
    return measure_ffmpeg_cuda(a, pair, 'ff_nf_cuda', anchor_env(a))


def measure_ffmpeg_ours_cuda(a, pair):
    return measure_ffmpeg_cuda(a, pair, 'ff_ours_cuda', ours_env(a))


def measure_ffmpeg_nf_cpu(a, pair):
    """FFmpeg's libvmaf filter, Netflix's library, decoding on the CPU."""
    out = json_out(a, pair, 'ff_nf_cpu')
    argv = ffmpeg(a) + ['-i', pair.dis, '-i', pair.ref, '-lavfi',
                        '[0:v][1:v]libvmaf=n_threads=%d:log_fmt=json:log_path=%s' % (
                            a.threads, out),
                        '-f', 'null', '-']
    env = anchor_env(a)
    t, mem = measure(a, '%s: ff_nf_cpu' % pair.name, [argv], env)
    return finish(a, pair, 'ff_nf_cpu', t, mem, out)


# ---------------------------------------------------------------- comparing scores

def load_scores(path):
    """({frameNum: {metric: float or None}}, {metric: {method: float or None}}) of a
    Netflix-layout JSON file; every number as the double its text rounds to."""
    with open(path) as f:
        d = json.load(f, parse_int=float)
    frames = {}
    for fr in d['frames']:
        frames[int(fr['frameNum'])] = dict(fr['metrics'])
    return frames, d.get('pooled_metrics', {})


def json_version(path):
    try:
        with open(path) as f:
            return str(json.load(f).get('version', '?'))
    except (OSError, ValueError, AttributeError):
        return '?'


def bits(v):
    return None if v is None else struct.pack('<d', v)


def ulps(x, y):
    """Distance in units in the last place between two finite doubles of one sign."""
    i, j = (struct.unpack('<q', struct.pack('<d', v))[0] for v in (x, y))
    return abs(i - j)


def compare_exact(path_a, path_b, common_only=False):
    """Per-frame values as 64-bit patterns. common_only: only the metrics both files
    have (the others are listed); otherwise a metric in one file only is a difference."""
    fa, pa = load_scores(path_a)
    fb, pb = load_scores(path_b)
    names_a = set().union(*fa.values()) if fa else set()
    names_b = set().union(*fb.values()) if fb else set()
    common = names_a & names_b
    res = {'frames_a': len(fa), 'frames_b': len(fb), 'total': len(set(fa) | set(fb)),
           'identical': 0, 'metrics': sorted(common), 'only_a': sorted(names_a - names_b),
           'only_b': sorted(names_b - names_a), 'diffs': [], 'n_diffs': 0,
           'pooled_diffs': [], 'common_only': common_only}
    for k in sorted(set(fa) | set(fb)):
        if k not in fa or k not in fb:
            continue
        ma, mb = fa[k], fb[k]
        names = common if common_only else set(ma) | set(mb)
        same = True
        for n in sorted(names):
            if n not in ma or n not in mb:
                if common_only:
                    continue
                same = False
                res['n_diffs'] += 1
                if len(res['diffs']) < 5:
                    res['diffs'].append((k, n, ma.get(n, 'missing'), mb.get(n, 'missing')))
                continue
            if bits(ma[n]) != bits(mb[n]):
                same = False
                res['n_diffs'] += 1
                if len(res['diffs']) < 5:
                    res['diffs'].append((k, n, ma[n], mb[n]))
        res['identical'] += same
    for n in sorted(set(pa) & set(pb) & (common | (set(pa) if not common_only else set()))):
        for m in sorted(set(pa[n]) | set(pb[n])):
            va, vb = pa[n].get(m, 'missing'), pb[n].get(m, 'missing')
            if isinstance(va, str) or isinstance(vb, str) or bits(va) != bits(vb):
                res['pooled_diffs'].append((n, m, va, vb))
    return res


def exact_ok(res):
    ok = (res['identical'] == res['total'] and res['frames_a'] == res['frames_b'] and
          not res['pooled_diffs'] and res['total'] > 0)
    if not res['common_only']:
        ok = ok and not res['only_a'] and not res['only_b']
    return ok


def fmt_value(v):
    if isinstance(v, float):
        return '%r (%s)' % (v, v.hex())
    return str(v)


def exact_lines(label, res, name_a, name_b):
    """Markdown lines of one exact comparison."""
    s = '%s: %d/%d frames identical' % (label, res['identical'], res['total'])
    if res['frames_a'] != res['frames_b']:
        s += ' (frame counts differ: %s %d, %s %d)' % (name_a, res['frames_a'], name_b,
                                                        res['frames_b'])
    s += ', %d metrics' % len(res['metrics'])
    s += '; pooled %s' % ('identical' if not res['pooled_diffs'] else
                          '%d values differ' % len(res['pooled_diffs']))
    lines = ['- ' + s]
    if res['only_a'] or res['only_b']:
        lines.append('  - names %s: only in %s: %s; only in %s: %s' % (
            'not compared' if res['common_only'] else 'that differ',
            name_a, ', '.join(res['only_a']) or 'none', name_b, ', '.join(res['only_b']) or 'none'))
    if res['n_diffs']:
        lines.append('  - values that differ: %d; the first:' % res['n_diffs'])
    for k, n, va, vb in res['diffs']:
        d = ''
        if isinstance(va, float) and isinstance(vb, float) and math.isfinite(va) and \
                math.isfinite(vb) and (va >= 0) == (vb >= 0):
            d = ', %d ulp' % ulps(va, vb)
        lines.append('    - frame %d %s: %s %s, %s %s%s' % (k, n, name_a, fmt_value(va), name_b,
                                                            fmt_value(vb), d))
    for n, m, va, vb in res['pooled_diffs'][:5]:
        lines.append('    - pooled %s %s: %s %s, %s %s' % (n, m, name_a, fmt_value(va), name_b,
                                                          fmt_value(vb)))
    return lines


def compare_printed(path_anchor, path_ours, metric='vmaf'):
    """A %.6f-printing anchor vs our exact values: largest |difference| of `metric`,
    frames whose value differs at that precision, frames compared."""
    fa, _ = load_scores(path_anchor)
    fo, _ = load_scores(path_ours)
    worst, differ, n = 0.0, 0, 0
    for k in sorted(set(fa) & set(fo)):
        va, vo = fa[k].get(metric), fo[k].get(metric)
        if va is None or vo is None:
            differ += va is not vo
            n += 1
            continue
        n += 1
        worst = max(worst, abs(va - vo))
        differ += ('%.6f' % va) != ('%.6f' % vo)
    return {'max_abs': worst, 'differ': differ, 'compared': n, 'frames_a': len(fa),
            'frames_o': len(fo)}


def printed_line(label, res):
    s = '- %s: vmaf max |diff| %.6g, %d/%d frames differ at %%.6f' % (
        label, res['max_abs'], res['differ'], res['compared'])
    if res['frames_a'] != res['frames_o']:
        s += ' (frame counts: %d vs %d)' % (res['frames_a'], res['frames_o'])
    return s


EXACT = [   # (row a, row b, label, metrics both have only)
    ('cli_noflags', 'cli_cpu', 'exactvmaf with no flags vs --hwdec none --backend cpu', False),
    ('cli_hw', 'cli_sw', 'exactvmaf --hwdec cuda vs --hwdec none (both --backend cuda)', False),
    ('cli_hw1', 'cli_sw', 'exactvmaf --hwdec cuda, one session, vs --hwdec none', False),
    ('cli_sw', 'cli_cpu', 'exactvmaf --backend cuda vs --backend cpu (both --hwdec none)', False),
    ('cli_hw', 'cli_cpu', 'exactvmaf --hwdec cuda --backend cuda vs --backend cpu', False),
    ('ff_ours_cuda', 'cli_cpu', 'FFmpeg + exactvmaf libvmaf_cuda vs exactvmaf --backend cpu '
     '(metrics both print)', True),
    # Where the CPU rows are skipped (long clips): segments against one decoder.
    ('cli_noflags', 'cli_hw1', 'exactvmaf with no flags (its sessions) vs --hwdec cuda, one '
     'session', False),
]
PRINTED = [
    ('ff_nf_cuda', 'cli_cpu', 'Netflix libvmaf_cuda (FFmpeg) vs exactvmaf --backend cpu'),
    ('ff_nf_cpu', 'cli_cpu', 'Netflix libvmaf CPU (FFmpeg) vs exactvmaf --backend cpu'),
]


def exactness(pairs, cells, say):
    """Every comparison that both runs allow: (comparisons of ours that differ, comparisons
    of ours not made because a run failed or its JSON could not be read)."""
    differ = missing = 0
    for pair in pairs:
        say()
        say('%s (%s):' % (pair.name, pair.pix_fmt or '%d-bit' % pair.bits))
        say()
        seen = ['%s %s' % (key, json_version(row[pair.name].json_path))
                for key, _ in ROWS for row in [cells.get(key, {})]
                if pair.name in row and row[pair.name].json_path]
        if seen:
            say('- "version" in each JSON (which library wrote it): ' + ', '.join(seen))
        for ka, kb, label, common in EXACT:
            ca, cb = cells.get(ka, {}).get(pair.name), cells.get(kb, {}).get(pair.name)
            if ca is None or cb is None:
                continue
            if not ca.json_path or not cb.json_path:
                why = ca.note if not ca.json_path else cb.note
                say('- %s: not compared (%s)' % (label, why or 'not run'))
                missing += why == 'failed'
                continue
            try:
                res = compare_exact(ca.json_path, cb.json_path, common)
            except (OSError, ValueError, KeyError, TypeError) as e:
                say('- %s: not compared (unreadable JSON: %s)' % (label, e))
                missing += 1
                continue
            for line in exact_lines(label, res, ka, kb):
                say(line)
            differ += not exact_ok(res)
        for ka, kb, label in PRINTED:
            ca, cb = cells.get(ka, {}).get(pair.name), cells.get(kb, {}).get(pair.name)
            if ca is None or cb is None:
                continue
            if not ca.json_path or not cb.json_path:
                say('- %s: not compared (%s)' % (label, (ca.note if not ca.json_path else
                                                           cb.note) or 'not run'))
                continue
            try:
                say(printed_line(label, compare_printed(ca.json_path, cb.json_path)))
            except (OSError, ValueError, KeyError, TypeError) as e:
                say('- %s: not compared (unreadable JSON: %s)' % (label, e))
    return differ, missing


# ---------------------------------------------------------------- the tables

def ratio(cells, num, den, pair, kind):
    a, b = cells.get(num, {}).get(pair), cells.get(den, {}).get(pair)
    if not a or not b or a.fps is None or b.fps is None or not b.fps:
        return '-'
    r = a.fps / b.fps
    return '%.0f%%' % (100 * r) if kind == '%' else '%.2fx' % r


def row_label(label, threads):
    return label.replace(' T', ' %d' % threads)


def run_rows(pairs, cells, threads, show):
    """A table of the runs (ROWS) by pair, each cell show(cell) or '-'."""
    names = [p.name for p in pairs]
    out = ['| run | ' + ' | '.join(names) + ' |', '|---' * (len(names) + 1) + '|']
    for key, label in ROWS:
        if key not in cells:
            continue
        row = [show(cells[key][n]) if n in cells[key] else '-' for n in names]
        out.append('| %s | %s |' % (row_label(label, threads), ' | '.join(row)))
    return out


def fps_table(pairs, cells, threads):
    names = [p.name for p in pairs]
    out = run_rows(pairs, cells, threads, lambda c: c.text())
    for num, den, kind, label in RATIOS:
        if num in cells and den in cells:
            out.append('| %s | %s |' % (label, ' | '.join(ratio(cells, num, den, n, kind)
                                                         for n in names)))
    return out


def sessions_table(pairs, cells, sessions, key='dec_all'):
    names = [p.name for p in pairs]
    dec = cells.get(key, {})
    out = ['| M pairs at once | ' + ' | '.join(names) + ' |', '|---' * (len(names) + 1) + '|']
    for m in sessions:
        row = []
        for n in names:
            c = dec.get(n)
            c = c.extra['per_m'].get(m) if c and c.extra else None
            row.append(c.text() if c else '-')
        out.append('| %d | %s |' % (m, ' | '.join(row)))
    return out


def mem_table(pairs, cells, threads):
    return run_rows(pairs, cells, threads,
                    lambda c: '%d' % c.mem if c.mem is not None else '-')


# ---------------------------------------------------------------- main

def first_line(argv, env=None, stream='stdout'):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
        text = (r.stdout + '\n' + r.stderr) if stream == 'both' else getattr(r, stream)
        lines = [l for l in text.strip().splitlines() if l.strip()]
        return lines[0].strip() if lines else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def gpu_name():
    line = first_line(['nvidia-smi', '-L'])
    return re.sub(r'^GPU \d+: | \(UUID:.*\)$', '', line) if line else 'no GPU found'


def git_commit():
    here = os.path.dirname(os.path.abspath(__file__))
    c = first_line(['git', '-C', here, 'rev-parse', '--short=12', 'HEAD'])
    if c and re.fullmatch(r'[0-9a-f]+', c):
        dirty = first_line(['git', '-C', here, 'status', '--porcelain', '--untracked-files=no'])
        return c + (' (modified)' if dirty else '')
    return None


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--exe', help='the exactvmaf CLI')
    ap.add_argument('--ffmpeg-prefix', default='/tmp/ffnv',
                    help='FFmpeg 7.1 with NVDEC, scale_cuda, libvmaf and libvmaf_cuda')
    ap.add_argument('--ours-lib', help='folder of our libexactvmaf.so.0')
    ap.add_argument('--anchor-lib',
                    help="folder of the libavfilter.so* that holds Netflix's libvmaf v3.2.0")
    ap.add_argument('--media', help='folder of bench_NAME_ref.mp4 / bench_NAME_dis.mp4')
    ap.add_argument('--pairs', help='comma-separated NAMEs of the pairs to run (default: all)')
    ap.add_argument('--frames', default='480',
                    help='frames per pair, whole clips: N, or N,NAME=N,... for some pairs')
    ap.add_argument('--clip-frames', type=int, default=48,
                    help="a clip's frames where they cannot be counted")
    ap.add_argument('--reps', type=int, default=2)
    ap.add_argument('--threads', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--sessions', default='1,2,4,7', help='pairs decoded at once')
    ap.add_argument('--only', default=','.join(PARTS), help='any of ' + ','.join(PARTS))
    ap.add_argument('--skip', default='',
                    help='rows not run, comma-separated keys (%s): the slow CPU rows '
                         'at long clips, say' % ','.join(k for k, _ in ROWS))
    ap.add_argument('--timeout', type=float, default=300, help='seconds per command')
    ap.add_argument('--gpu-index', type=int, default=0, help="nvidia-smi's index, for memory")
    ap.add_argument('--tmp', help='where the looped files go (default: the system temp folder)')
    ap.add_argument('--no-mem', action='store_true',
                    help='no run of its own per row for the peak GPU memory')
    ap.add_argument('--keep', help='keep the JSON outputs in this folder')
    ap.add_argument('--record', help='append the markdown to this file')
    ap.add_argument('--selftest', action='store_true',
                    help='check the comparisons and tables on synthetic JSON, then exit')
    a = ap.parse_args(argv)
    if a.selftest:
        return a
    for need in ('exe', 'ours_lib', 'anchor_lib', 'media'):
        if not getattr(a, need):
            ap.error('--%s is needed' % need.replace('_', '-'))
    a.only = [p.strip() for p in a.only.split(',') if p.strip()]
    for p in a.only:
        if p not in PARTS:
            ap.error('--only: unknown part "%s" (known: %s)' % (p, ', '.join(PARTS)))
    a.skip = set(k.strip() for k in a.skip.split(',') if k.strip())
    for k in a.skip:
        if k not in dict(ROWS):
            ap.error('--skip: unknown row "%s" (known: %s)' % (k, ', '.join(dict(ROWS))))
    a.sessions = [int(x) for x in a.sessions.split(',')]
    a.frames_of, a.frames_spec = {}, a.frames
    for part in a.frames.split(','):
        name, _, n = part.rpartition('=')
        if not n.isdigit():
            ap.error('--frames: %r is not N or NAME=N' % part)
        if name:
            a.frames_of[name] = int(n)
        else:
            a.frames = int(n)
    if isinstance(a.frames, str):
        ap.error('--frames: no default count (N) given')
    a.pairs = [p.strip() for p in a.pairs.split(',')] if a.pairs else None
    return a


def main():
    a = parse_args()
    if a.selftest:
        return selftest()
    lines = []

    def say(s=''):
        print(s, flush=True)
        lines.append(s)

    pairs = find_pairs(a.media, a.pairs)
    if not pairs:
        print('no pairs bench_NAME_ref.* / bench_NAME_dis.* in %s%s' % (
            a.media, ' named ' + ','.join(a.pairs) if a.pairs else ''), file=sys.stderr)
        return 2
    problems = setup_problems(a, pairs)
    if problems:
        for p in problems:
            print('e2e: ' + p, file=sys.stderr)
        return 2
    a.problems = []
    a.mem_idle = gpu_mem_now(a.gpu_index)
    with tempfile.TemporaryDirectory(prefix='e2e.', dir=a.tmp) as work:
        a.work = work
        a.json_dir = os.path.join(work, 'json')     # a plain path, safe in a filter graph
        os.makedirs(a.json_dir)
        skipped = []
        for pair in list(pairs):
            why = loop_pair(a, pair)
            if why:
                skipped.append('%s (%s)' % (pair.name, why))
                pairs.remove(pair)
        cells = {}

        def put(key, pair, cell):
            cells.setdefault(key, {})[pair.name] = cell
            print('  %s %s: %s' % (pair.name, key, cell.text()), file=sys.stderr, flush=True)

        for pair in pairs:
            if 'decode' in a.only:
                one = measure_decode(a, pair, 1)
                put('dec_pair', pair, one)
                if 'dec_all' not in a.skip:
                    put('dec_all', pair, measure_decode_engines(a, pair, one))
            if 'cli' in a.only:
                if 'cli_noflags' not in a.skip:
                    put('cli_noflags', pair, measure_cli(a, pair, 'cli_noflags'))
                if 'cli_hw' not in a.skip:
                    put('cli_hw', pair, measure_cli(a, pair, 'cli_hw', 'cuda', 'cuda'))
                if 'cli_hw1' not in a.skip:
                    put('cli_hw1', pair,
                        measure_cli(a, pair, 'cli_hw1', 'cuda', 'cuda', sessions=1))
                best = max((cells[k][pair.name] for k in ('cli_hw', 'cli_hw1')
                            if pair.name in cells.get(k, {})
                            and cells[k][pair.name].fps is not None),
                           key=lambda c: c.fps, default=None)
                if best is not None:
                    cells.setdefault('cli_best', {})[pair.name] = best
                if 'cli_sw' not in a.skip:
                    put('cli_sw', pair, measure_cli(a, pair, 'cli_sw', 'none', 'cuda'))
                if 'cli_cpu' not in a.skip:
                    put('cli_cpu', pair, measure_cli(a, pair, 'cli_cpu', 'none', 'cpu', a.threads))
            if 'engines' in a.only:
                one = cells.get('cli_hw', {}).get(pair.name)
                if one is None:
                    one = measure_cli(a, pair, 'cli_hw', 'cuda', 'cuda')
                    put('cli_hw', pair, one)
                if 'cli_hw_all' not in a.skip:
                    put('cli_hw_all', pair, measure_cli_engines(a, pair, one))
            if 'ffmpeg' in a.only:
                if 'ff_nf_cuda' not in a.skip:
                    put('ff_nf_cuda', pair, measure_ffmpeg_nf_cuda(a, pair))
                if 'ff_ours_cuda' not in a.skip:
                    put('ff_ours_cuda', pair, measure_ffmpeg_ours_cuda(a, pair))
                if 'ff_nf_cpu' not in a.skip:
                    put('ff_nf_cpu', pair, measure_ffmpeg_nf_cpu(a, pair))

        commit = git_commit()
        say('## End to end: %s, %s; CPU %s (%d cores)%s' % (
            datetime.datetime.now().strftime('%Y-%m-%d %H:%M'), gpu_name(), cpu_name(),
            os.cpu_count() or 1, ', commit ' + commit if commit else ''))
        say()
        say('bench/e2e.py --frames %s --reps %d --threads %d --only %s: exactvmaf `%s` (%s); '
            'FFmpeg `%s` (%s); anchor: Netflix libvmaf v3.2.0 in `%s`.' % (
                a.frames_spec, a.reps, a.threads, ','.join(a.only), a.exe,
                first_line([a.exe, '--version'], ours_env(a), 'both') or 'version unknown',
                a.ffmpeg_prefix,
                first_line([os.path.join(a.ffmpeg_prefix, 'bin', 'ffmpeg'), '-version'],
                           ours_env(a)) or 'version unknown', a.anchor_lib))
        say()
        say('Pairs: %s%s. Each clip looped to whole clips, same files for every run; '
            'fps = frames / wall seconds, best of %d wall-clock runs:' % (
                '; '.join('%s %s, %d frames' % (p.name, p.pix_fmt or '?', p.frames)
                          for p in pairs) or 'none',
                '; skipped: ' + ', '.join(skipped) if skipped else '', a.reps))
        say()
        for line in fps_table(pairs, cells, a.threads):
            say(line)
        if any(p.bits > 8 for p in pairs) and 'ffmpeg' in a.only:
            say()
            say('libvmaf_cuda rows ' + NOT_8BIT + '.')
        if 'dec_all' in cells:
            say()
            say('Decode alone, M pairs at once (2M `ffmpeg -hwaccel cuda -hwaccel_output_format '
                'cuda -i X -f null -` processes, or the 2M inputs in one ffmpeg process sharing '
                'the primary context, whichever is faster: "one process"), M x frames / wall '
                'seconds:')
            say()
            for line in sessions_table(pairs, cells, a.sessions):
                say(line)
        if 'cli_hw_all' in cells:
            say()
            say('exactvmaf --hwdec cuda --backend cuda, M processes at once on M copies of the '
                'pair (every copy\'s JSON equal to the single run\'s, bit for bit), M x frames '
                '/ wall seconds:')
            say()
            for line in sessions_table(pairs, cells, a.sessions, 'cli_hw_all'):
                say(line)
        if a.mem_idle is not None and not a.no_mem:
            say()
            say('Peak GPU memory of each run, MiB above the idle %d MiB (nvidia-smi '
                'memory.used polled every 50 ms in a run of its own, not a timed one; whole '
                'GPU):' % a.mem_idle)
            say()
            for line in mem_table(pairs, cells, a.threads):
                say(line)
        say()
        say('Exactness: per-frame values of every metric as 64-bit patterns (counts, no '
            'tolerance); Netflix\'s libraries print %.6f, so for them the largest |difference| '
            'of vmaf and the frames that differ at %.6f:')
        differ, missing = exactness(pairs, cells, say)
        if a.problems:
            say()
            say('Frame counts:')
            say()
            for p in a.problems:
                say('- ' + p)
        failed = sorted('%s %s' % (n, key) for key, row in cells.items()
                        for n, c in row.items() if c.note == 'failed') + skipped
        verdict = []
        if differ or a.problems:
            verdict.append('DIFFERENCES: %d comparisons of ours differ, %d frame counts wrong' % (
                differ, len(a.problems)))
        else:
            verdict.append('every comparison of ours made is identical')
        if missing:
            verdict.append('%d comparisons of ours not made' % missing)
        if failed:
            verdict.append('runs failed: ' + ', '.join(failed))
        say()
        say('Result: %s.' % '; '.join(verdict))
        if a.record:
            with open(a.record, 'a') as f:
                f.write('\n' + '\n'.join(lines) + '\n')
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            for f in sorted(os.listdir(a.json_dir)):
                shutil.copy(os.path.join(a.json_dir, f), a.keep)
    if differ or a.problems:
        return 1
    return 2 if failed or missing else 0


# ---------------------------------------------------------------- selftest

def synthetic(path, n, metrics, tweak=None, precision='%.17g', drop=(), extra=None):
    """A Netflix-layout JSON file of n frames; tweak(frame, metric, value) -> value."""
    import random
    rnd = random.Random(7)
    frames, sums = [], {}
    for i in range(n):
        m = {}
        for name in metrics:
            v = rnd.uniform(0, 100) if name == 'vmaf' else rnd.random()
            if tweak:
                v = tweak(i, name, v)
            m[name] = v
            sums.setdefault(name, []).append(v)
        for name in drop:
            m.pop(name, None)
        if extra:
            m.update(extra)
        frames.append(m)
    with open(path, 'w') as f:
        f.write('{\n  "version": "selftest",\n  "fps": 1.00,\n  "frames": [')
        for i, m in enumerate(frames):
            f.write((',\n' if i else '\n') + '    {\n      "frameNum": %d,\n      "metrics": {\n'
                    % i)
            f.write(',\n'.join('        "%s": %s' % (k, 'null' if v is None else precision % v)
                               for k, v in m.items()))
            f.write('\n      }\n    }')
        f.write('\n  ],\n  "pooled_metrics": {')
        f.write(','.join('\n    "%s": {\n      "mean": %s\n    }' % (
            k, precision % (sum(x for x in v if x is not None) / len(v)))
            for k, v in sums.items()))
        f.write('\n  },\n  "aggregate_metrics": {\n  }\n}\n')


def selftest():
    import random
    failures = []

    def check(what, cond):
        print('%s: %s' % ('ok' if cond else 'FAIL', what))
        if not cond:
            failures.append(what)

    # %.17g text round-trips every double, json.load included.
    rnd = random.Random(1)
    vals = [rnd.uniform(-1e3, 1e3) for _ in range(2000)] + [5e-324, 1.7976931348623157e308, 0.0,
                                                            -0.0, 1 / 3, 0.1]
    back = json.loads('[' + ','.join('%.17g' % v for v in vals) + ']', parse_int=float)
    check('%.17g round-trips 2006 doubles bit for bit',
          all(bits(x) == bits(y) for x, y in zip(vals, back)))

    names = ['integer_adm2', 'integer_motion2', 'integer_motion', 'integer_vif_scale0', 'vmaf']
    with tempfile.TemporaryDirectory() as d:
        p = lambda n: os.path.join(d, n + '.json')
        synthetic(p('a'), 48, names)
        synthetic(p('same'), 48, names)
        r = compare_exact(p('a'), p('same'))
        check('identical files: 48/48', r['identical'] == 48 and r['total'] == 48 and exact_ok(r))
        print('\n'.join(exact_lines('a vs same', r, 'a', 'same')))

        def one_ulp(i, n, v):
            return math.nextafter(v, math.inf) if (i, n) == (17, 'integer_vif_scale0') else v
        synthetic(p('ulp'), 48, names, one_ulp)
        r = compare_exact(p('a'), p('ulp'))
        lines = exact_lines('a vs ulp', r, 'a', 'ulp')
        print('\n'.join(lines))
        check('one ulp in one value: 47/48, not ok',
              r['identical'] == 47 and r['n_diffs'] == 1 and not exact_ok(r))
        check('the ulp difference is named with its frame and metric and 1 ulp',
              any('frame 17 integer_vif_scale0' in l and '1 ulp' in l for l in lines))

        def zero_sign(i, n, v):
            return (-0.0 if i == 3 else 0.0) if n == 'integer_motion' else v
        synthetic(p('z0'), 48, names, lambda i, n, v: 0.0 if n == 'integer_motion' else v)
        synthetic(p('z1'), 48, names, zero_sign)
        r = compare_exact(p('z0'), p('z1'))
        check('-0.0 vs 0.0 is a difference of bits', r['identical'] == 47 and not exact_ok(r))

        synthetic(p('short'), 40, names)
        r = compare_exact(p('a'), p('short'))
        print('\n'.join(exact_lines('a vs short', r, 'a', 'short')))
        check('40 of 48 frames: 40/48, not ok', r['identical'] == 40 and r['total'] == 48 and
              not exact_ok(r))

        synthetic(p('nulls'), 48, names, lambda i, n, v: None if (i, n) == (5, 'vmaf') else v)
        r = compare_exact(p('nulls'), p('nulls'))
        check('null equals null', exact_ok(r))
        r = compare_exact(p('a'), p('nulls'))
        check('null vs a number differs', r['identical'] == 47)

        # FFmpeg's libvmaf_cuda: luma metrics only, one extra name of its own.
        synthetic(p('ffcuda'), 48, names, drop=('integer_motion',),
                  extra={'cuda_only_name': 1.0})
        synthetic(p('cpu'), 48, names, extra={'float_ssim': 0.5})
        r = compare_exact(p('ffcuda'), p('cpu'), common_only=True)
        lines = exact_lines('ffmpeg vs cpu', r, 'ffmpeg', 'cpu')
        print('\n'.join(lines))
        check('common metrics only: 48/48 identical', exact_ok(r) and r['identical'] == 48)
        check('unmatched names reported', 'cuda_only_name' in lines[1] and 'float_ssim' in lines[1])
        r = compare_exact(p('ffcuda'), p('cpu'), common_only=False)
        check('the same pair with every metric: differs', not exact_ok(r))

        # Netflix's %.6f against our exact values.
        synthetic(p('nf'), 48, names, precision='%.6f')
        r = compare_printed(p('nf'), p('a'))
        print(printed_line('nf vs a', r))
        check('%.6f of the same values: 0 frames differ at %.6f, |diff| <= 5e-7 x 100',
              r['differ'] == 0 and r['compared'] == 48 and r['max_abs'] <= 5.1e-7 * 1)
        synthetic(p('nf2'), 48, names, lambda i, n, v: v + 2e-6 if (i < 3 and n == 'vmaf') else v,
                  precision='%.6f')
        r = compare_printed(p('nf2'), p('a'))
        print(printed_line('nf2 vs a', r))
        check('three frames moved by 2e-6: 3 differ', r['differ'] == 3 and
              1.4e-6 < r['max_abs'] < 2.6e-6)

        # The tables and the exactness section, with a failed and a skipped cell.
        pa, pb = Pair('hevc8_2160', 'r', 'd'), Pair('hevc10_2160', 'r', 'd')
        pa.frames = pb.frames = 48
        pb.bits, pb.pix_fmt = 10, 'yuv420p10le'
        cells = {
            'dec_pair': {'hevc8_2160': Cell(400.0, mem=900), 'hevc10_2160': Cell(350.0)},
            'dec_all': {'hevc8_2160': Cell(1200.0, extra={'best': 4, 'per_m': {
                1: Cell(400.0), 2: Cell(800.0), 4: Cell(1200.0), 7: Cell(note='failed')}}),
                        'hevc10_2160': Cell(note='failed', extra={'per_m': {}})},
            'cli_noflags': {'hevc8_2160': Cell(300.0, json_path=p('a')),
                            'hevc10_2160': Cell(200.0, json_path=p('a'))},
            'cli_hw': {'hevc8_2160': Cell(300.0, json_path=p('a')),
                       'hevc10_2160': Cell(250.0, json_path=p('a'))},
            'cli_sw': {'hevc8_2160': Cell(200.0, json_path=p('ulp')),
                       'hevc10_2160': Cell(note='failed')},
            'cli_cpu': {'hevc8_2160': Cell(60.0, json_path=p('a')),
                        'hevc10_2160': Cell(50.0, json_path=p('a'))},
            'ff_nf_cuda': {'hevc8_2160': Cell(100.0, json_path=p('nf2')),
                           'hevc10_2160': Cell(note='n/a (yuv420p10le)')},
            'ff_ours_cuda': {'hevc8_2160': Cell(150.0, json_path=p('ffcuda')),
                             'hevc10_2160': Cell(note='n/a (yuv420p10le)')},
        }
        cells['cli_best'] = cells['cli_hw']
        table = fps_table([pa, pb], cells, 16)
        print('\n'.join(table))
        check('table: a row per run, ratio rows', len(table) == 2 + 8 + 4)
        check('table: failed, n/a and best M shown',
              'failed' in table[3] and 'n/a (yuv420p10le)' in table[8] and '(M=4)' in table[3])
        check('ratios: 3.00x, 25%, 100% 80%, 1.50x', '3.00x' in table[10] and
              '25%' in table[11] and '| 100% | 80% |' in table[12] and '1.50x' in table[13])
        st = sessions_table([pa, pb], cells, [1, 2, 4, 7])
        print('\n'.join(st))
        check('sessions table', '| 7 | failed | - |' in st)
        mt = mem_table([pa, pb], cells, 16)
        check('memory table', '| 900 | - |' in mt[2])
        out = []
        differ, missing = exactness([pa, pb], cells, lambda s='': out.append(s))
        print('\n'.join(out))
        check('exactness: the ulp pair: 2 comparisons differ, 2 not made',
              (differ, missing) == (2, 2))
        check('exactness: 47/48 and 48/48 reported',
              any('47/48 frames identical' in l for l in out) and
              any('48/48 frames identical' in l for l in out))
        check('exactness: a failed run is not compared',
              any('not compared (failed)' in l for l in out))
        check('exactness: Netflix line', any('3/48 frames differ' in l for l in out))
        cells['cli_sw']['hevc8_2160'] = Cell(200.0, json_path=p('same'))
        cells['cli_sw']['hevc10_2160'] = Cell(200.0, json_path=p('a'))
        out = []
        check('exactness: all identical', exactness([pa, pb], cells, lambda s='': None) == (0, 0))

        # Running: a failure names its command, the run shows no time.
        a = argparse.Namespace(reps=2, timeout=5, gpu_index=0, mem_idle=None, work=d)
        t, _ = measure(a, 'selftest true', [['true'], ['true']], dict(os.environ))
        check('two processes at once: a time', t is not None and t >= 0)
        t, _ = measure(a, 'selftest failure (expected)',
                       [['true'], ['sh', '-c', 'echo some error >&2; exit 3']], dict(os.environ))
        check('a failing process: no time', t is None)
        a.timeout = 0.5
        t, _ = measure(a, 'selftest timeout (expected)', [['sleep', '5']], dict(os.environ))
        check('a process past --timeout: no time', t is None)
        check('bits of yuv420p10le, p010le, yuv420p, nv12',
              (bits_of('yuv420p10le', ''), bits_of('p010le', ''), bits_of('yuv420p', ''),
               bits_of('nv12', ''), bits_of(None, 'hevc10_2160'), bits_of(None, 'h264_1080'))
              == (10, 10, 8, 8, 10, 8))
    print('selftest: %s' % ('%d FAILED' % len(failures) if failures else 'all ok'))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
