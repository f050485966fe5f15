#!/usr/bin/env python3
"""The CLI's resident memory is bounded by the frames in flight, not by the
clip's length: a 1000-frame run must not use noticeably more than a
100-frame run. The clips are generated on the fly and never touch the disk:
the reference through stdin (-r -), the distorted video through a FIFO.

Prints the peak RSS of each run (ru_maxrss of the child, from wait4) and
fails when the long run exceeds the short one by more than the margin
(the per-frame scores, a few hundred bytes a frame, are all that may grow).

It also reads the pictures the library held at most (its info line) at 0, 1
and 4 threads: on the CPU each video has two frames read ahead, one being
handed over, and two per worker (one computed, one queued), no more.

usage: memory_test.py --exe build/tools/exactvmaf [--frames 100,1000] [--size 176x144]
Exits 77 (skipped) under AddressSanitizer, whose quarantine makes RSS
meaningless.
"""
import argparse, os, re, subprocess, sys, tempfile, threading

W, H = 176, 144           # --size changes it
FRAME = W * H * 3 // 2
MARGIN_KIB = 2048          # absolute allowance for the stored scores
MARGIN_FRAC = 0.05         # and 5% of the short run's peak


def make_source(n, seed):
    """n frames of moving texture; a few distinct frames cycled with an offset."""
    base = bytes(((i * 2654435761 + seed * 97) >> 13) & 0xff for i in range(FRAME + 4096))
    hdr = b'YUV4MPEG2 W%d H%d F25:1 Ip C420jpeg\n' % (W, H)

    def gen():
        yield hdr
        for i in range(n):
            off = (i * 37) % 4096
            yield b'FRAME\n' + base[off:off + FRAME]
    return gen


def feed(f, gen):
    try:
        for chunk in gen():
            f.write(chunk)
    except BrokenPipeError:
        pass
    finally:
        try:
            f.close()
        except BrokenPipeError:
            pass


def peak_rss_kib(exe, n, threads, tmp, extra=()):
    """Peak RSS of a run (KiB), and what it printed on stderr."""
    fifo = os.path.join(tmp, 'dis_%d_%d.y4m' % (n, threads))
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    out = os.path.join(tmp, 'out_%d_%d.json' % (n, threads))
    p = subprocess.Popen([exe, '-r', '-', '-d', fifo, '--model', 'version=vmaf_float_v0.6.1',
                          '--threads', str(threads), '--backend', 'cpu', '-q', '--json',
                          '-o', out] + list(extra),
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t_ref = threading.Thread(target=feed, args=(p.stdin, make_source(n, 1)))
    t_dis = threading.Thread(target=lambda: feed(open(fifo, 'wb'), make_source(n, 2)))
    t_ref.start()
    t_dis.start()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    t_ref.join()
    t_dis.join()
    if p.returncode != 0:
        sys.exit('run of %d frames failed (exit %d): %s' % (n, p.returncode, err.decode()[-500:]))
    import json
    got = len(json.load(open(out))['frames'])
    if got != n:
        sys.exit('run of %d frames wrote %d frames' % (n, got))
    return ru.ru_maxrss, err.decode()


def pictures_held(exe, threads, tmp):
    """The library's count of pictures it held at most, from its info line."""
    _, err = peak_rss_kib(exe, 40, threads, tmp, ['--log-level', 'info'])
    m = re.search(r'pictures in memory at most: (\d+) of', err)
    if not m:
        sys.exit('no "pictures in memory" line at --log-level info: %s' % err[-500:])
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--frames', default='100,1000')
    ap.add_argument('--size', default='176x144', help='WxH of the generated clips')
    a = ap.parse_args()
    global W, H, FRAME
    W, H = (int(x) for x in a.size.split('x'))
    FRAME = W * H * 3 // 2
    with open(a.exe, 'rb') as f:
        if b'__asan_init' in f.read():
            print('skipped: RSS is not meaningful under AddressSanitizer')
            return 77
    short, long_ = (int(x) for x in a.frames.split(','))
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for threads in (0, 2):
            r_short = peak_rss_kib(a.exe, short, threads, tmp)[0]
            r_long = peak_rss_kib(a.exe, long_, threads, tmp)[0]
            allowed = r_short + max(MARGIN_KIB, int(r_short * MARGIN_FRAC))
            ok = r_long <= allowed
            failed |= not ok
            print('threads %d: peak RSS %d frames %d KiB, %d frames %d KiB (+%d KiB, '
                  'allowed +%d): %s' % (threads, short, r_short, long_, r_long, r_long - r_short,
                                        allowed - r_short, 'ok' if ok else 'FAIL'))
        for threads in (0, 1, 4):
            n = pictures_held(a.exe, threads, tmp)
            bound = 2 * (3 + 2 * threads)
            ok = n <= bound
            failed |= not ok
            print('threads %d: %d pictures held at most (both videos), bound %d: %s'
                  % (threads, n, bound, 'ok' if ok else 'FAIL'))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
