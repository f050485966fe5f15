#!/usr/bin/env python3
"""Generate the project's sample pair: a 160x96 8-bit 4:2:0 y4m clip of moving
synthetic texture (ref) and a blurred, quantised, noisier version (dis).
Deterministic; run it to regenerate samples/ref.y4m and samples/dis.y4m."""
import math, os

W, H, N = 160, 96, 12


def clamp(v):
    return 0 if v < 0 else 255 if v > 255 else int(v)


def ref_frame(t):
    y = bytearray(W * H)
    for i in range(H):
        for j in range(W):
            x = j + 2 * t
            v = 128 + 60 * math.sin(x * 0.21) * math.cos(i * 0.17 + t * 0.3) \
                + 40 * math.sin((x + i) * 0.05) + (((x * 7 + i * 13) * 37) % 23 - 11)
            y[i * W + j] = clamp(v)
    cw, ch = W // 2, H // 2
    u = bytes(clamp(128 + 20 * math.sin(j * 0.1 + t * 0.2)) for i in range(ch) for j in range(cw))
    v = bytes(clamp(128 - 20 * math.cos(i * 0.1)) for i in range(ch) for j in range(cw))
    return bytes(y), u, v


def distort(y, t):
    out = bytearray(W * H)
    seed = 12345 + t
    for i in range(H):
        for j in range(W):
            acc = 0
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    ii = min(max(i + di, 0), H - 1)
                    jj = min(max(j + dj, 0), W - 1)
                    acc += y[ii * W + jj]
            seed = (seed * 1103515245 + 12345) & 0x7fffffff
            noise = (seed >> 16) % 7 - 3
            out[i * W + j] = clamp((acc // 9) // 6 * 6 + noise)
    return bytes(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    hdr = b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n' % (W, H)
    with open(os.path.join(here, 'ref.y4m'), 'wb') as r, open(os.path.join(here, 'dis.y4m'), 'wb') as d:
        r.write(hdr)
        d.write(hdr)
        for t in range(N):
            y, u, v = ref_frame(t)
            r.write(b'FRAME\n' + y + u + v)
            d.write(b'FRAME\n' + distort(y, t) + u + v)


if __name__ == '__main__':
    main()
