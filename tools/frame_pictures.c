/*
 * Frame pictures for the report (frame_pictures.h). The PNG encoder is the
 * smallest correct one: zlib's "stored" (uncompressed) deflate blocks, so no
 * compression library is needed; pictures of PICTURE_WIDTH pixels keep the
 * page at a few hundred kilobytes per frame.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frame_pictures.h"
#include "inputs.h"
#include "video_input.h"

/* ---- PNG ---- */

typedef struct Buf {
    uint8_t *p;
    size_t len, cap;
    int err;
} Buf;

static void put(Buf *b, const void *data, size_t n)
{
    if (b->err || !n) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->err = -ENOMEM;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void put_be32(Buf *b, uint32_t v)
{
    const uint8_t x[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8),
                           (uint8_t)v };
    put(b, x, 4);
}

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    static uint32_t table[256];
    if (!table[1]) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc;
}

static void chunk(Buf *b, const char *type, const uint8_t *data, size_t n)
{
    put_be32(b, (uint32_t)n);
    put(b, type, 4);
    put(b, data, n);
    uint32_t crc = crc32_update(0xffffffffu, (const uint8_t *)type, 4);
    crc = crc32_update(crc, data, n);
    put_be32(b, crc ^ 0xffffffffu);
}

/* rows: h rows of 1 + w*channels bytes, each starting with filter type 0. */
static int png(Buf *out, const uint8_t *rows, unsigned w, unsigned h, uint8_t color_type,
               const uint8_t *palette)
{
    const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    put(out, sig, 8);
    const uint8_t ihdr[13] = { (uint8_t)(w >> 24), (uint8_t)(w >> 16), (uint8_t)(w >> 8),
                               (uint8_t)w, (uint8_t)(h >> 24), (uint8_t)(h >> 16),
                               (uint8_t)(h >> 8), (uint8_t)h, 8, color_type, 0, 0, 0 };
    chunk(out, "IHDR", ihdr, 13);
    if (palette) chunk(out, "PLTE", palette, 768);
    const size_t n = (size_t)h * (1 + (size_t)w * (color_type == 2 ? 3 : 1));
    /* zlib: header, stored blocks of at most 65535 bytes, Adler-32. */
    Buf z = { 0 };
    const uint8_t head[2] = { 0x78, 0x01 };
    put(&z, head, 2);
    uint32_t s1 = 1, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        s1 = (s1 + rows[i]) % 65521;
        s2 = (s2 + s1) % 65521;
    }
    for (size_t at = 0; at < n || !n; ) {
        const size_t len = n - at > 65535 ? 65535 : n - at;
        const uint8_t hdr[5] = { at + len == n, (uint8_t)len, (uint8_t)(len >> 8),
                                 (uint8_t)~len, (uint8_t)(~len >> 8) };
        put(&z, hdr, 5);
        put(&z, rows + at, len);
        at += len;
        if (!n) break;
    }
    put_be32(&z, (s2 << 16) | s1);
    if (!z.err) chunk(out, "IDAT", z.p, z.len);
    chunk(out, "IEND", NULL, 0);
    free(z.p);
    return z.err ? z.err : out->err;
}

static char *base64(const uint8_t *p, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *s = malloc((n + 2) / 3 * 4 + 1), *o = s;
    if (!s) return NULL;
    for (size_t i = 0; i < n; i += 3) {
        const uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                           (i + 2 < n ? p[i + 2] : 0);
        *o++ = a[v >> 18];
        *o++ = a[(v >> 12) & 63];
        *o++ = i + 1 < n ? a[(v >> 6) & 63] : '=';
        *o++ = i + 2 < n ? a[v & 63] : '=';
    }
    *o = '\0';
    return s;
}

static char *png_base64(const uint8_t *rows, unsigned w, unsigned h, uint8_t color_type,
                        const uint8_t *palette)
{
    Buf b = { 0 };
    char *s = png(&b, rows, w, h, color_type, palette) ? NULL : base64(b.p, b.len);
    free(b.p);
    return s;
}

/* ---- Pictures ---- */

static unsigned sample(const VmafPicture *p, unsigned x, unsigned y)
{
    const uint8_t *row = (const uint8_t *)p->data[0] + (size_t)y * p->stride[0];
    return p->bpc > 8 ? ((const uint16_t *)row)[x] : row[x];
}

/* Black, purple, red, yellow, white: a difference reads as heat. */
static void heat_palette(uint8_t pal[768])
{
    static const uint8_t stops[5][3] = { { 0, 0, 0 }, { 90, 20, 120 }, { 210, 40, 40 },
                                         { 250, 200, 40 }, { 255, 255, 255 } };
    for (int i = 0; i < 256; i++) {
        const int s = i * 4 / 256, t = i * 4 % 256;
        for (int c = 0; c < 3; c++)
            pal[3 * i + c] = (uint8_t)((stops[s][c] * (256 - t) + stops[s + 1][c] * t) / 256);
    }
}

/* Box-filtered luma of both pictures and their mean absolute difference. */
static int make_one(const VmafPicture *r, const VmafPicture *d, FramePictures *fp)
{
    const unsigned W = r->w[0], H = r->h[0];
    const unsigned w = W < PICTURE_WIDTH ? W : PICTURE_WIDTH;
    unsigned h = (unsigned)(((unsigned long long)H * w + W / 2) / W);
    if (!h) h = 1;
    const unsigned bpc = r->bpc > d->bpc ? r->bpc : d->bpc;
    const size_t stride = 1 + (size_t)w;
    uint8_t *rows = malloc(3 * stride * h);
    if (!rows) return -ENOMEM;
    uint8_t *gr = rows, *gd = rows + stride * h, *gh = rows + 2 * stride * h;
    double max_diff = 0;
    for (unsigned y = 0; y < h; y++) {
        const unsigned y0 = (unsigned)((unsigned long long)y * H / h);
        unsigned y1 = (unsigned)((unsigned long long)(y + 1) * H / h);
        if (y1 <= y0) y1 = y0 + 1;
        gr[y * stride] = gd[y * stride] = gh[y * stride] = 0;
        for (unsigned x = 0; x < w; x++) {
            const unsigned x0 = (unsigned)((unsigned long long)x * W / w);
            unsigned x1 = (unsigned)((unsigned long long)(x + 1) * W / w);
            if (x1 <= x0) x1 = x0 + 1;
            double sr = 0, sd = 0, sa = 0;
            for (unsigned yy = y0; yy < y1; yy++) {
                for (unsigned xx = x0; xx < x1; xx++) {
                    /* Both at the higher depth, as the scores compare them. */
                    const double a = (double)(sample(r, xx, yy) << (bpc - r->bpc));
                    const double b = (double)(sample(d, xx, yy) << (bpc - d->bpc));
                    sr += a;
                    sd += b;
                    sa += a > b ? a - b : b - a;
                    const double diff8 = (a > b ? a - b : b - a) / (double)(1u << (bpc - 8));
                    if (diff8 > max_diff) max_diff = diff8;
                }
            }
            const double area = (double)(y1 - y0) * (x1 - x0);
            const double scale = (double)(1u << (bpc - 8));
            const double mr = sr / area / scale, md = sd / area / scale;
            const double ma = sa / area / scale;
            gr[y * stride + 1 + x] = (uint8_t)(mr > 255 ? 255 : mr + 0.5);
            gd[y * stride + 1 + x] = (uint8_t)(md > 255 ? 255 : md + 0.5);
            const double t = ma / PICTURE_DIFF_FULL * 255;
            gh[y * stride + 1 + x] = (uint8_t)(t > 255 ? 255 : t + 0.5);
        }
    }
    uint8_t pal[768];
    heat_palette(pal);
    fp->w = w;
    fp->h = h;
    fp->max_diff = max_diff;
    fp->ref_png = png_base64(gr, w, h, 0, NULL);
    fp->dist_png = png_base64(gd, w, h, 0, NULL);
    fp->diff_png = png_base64(gh, w, h, 3, pal);
    free(rows);
    return fp->ref_png && fp->dist_png && fp->diff_png ? 0 : -ENOMEM;
}

static bool readable_twice(const char *path)
{
    struct stat st;
    return strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Read and drop n frames. */
static int advance(VideoInput *vi, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const int ret = video_input_skip(vi);
        if (ret <= 0) return ret ? ret : -EIO;
    }
    return 0;
}

int frame_pictures_make(const CliSettings *c, const unsigned *frames, unsigned n,
                        FramePictures *out)
{
    memset(out, 0, n * sizeof(*out));
    if (!n) return 0;
    if (!readable_twice(c->path_ref) || !readable_twice(c->path_dist)) return -ENOTSUP;
    CliSettings again = *c;
    again.hwdec = CLI_HWDEC_NONE;   /* host pictures; the standards fix the samples */
    again.hwdec_sessions = 1;
    VideoInput *ref = NULL, *dist = NULL;
    int err = cli_open_inputs(&ref, &dist, &again);
    if (!err) err = advance(ref, c->frame_skip_ref);
    if (!err) err = advance(dist, c->frame_skip_dist);
    unsigned at = 0;
    for (unsigned k = 0; !err && k < n; k++) {
        err = advance(ref, frames[k] - at);
        if (!err) err = advance(dist, frames[k] - at);
        VmafPicture pr = { 0 }, pd = { 0 };
        int r = err ? -1 : video_input_read(ref, &pr, video_input_info(ref)->bpc);
        int d = r == 1 ? video_input_read(dist, &pd, video_input_info(dist)->bpc) : -1;
        if (!err && (r != 1 || d != 1)) err = r < 0 ? r : d < 0 ? d : -EIO;
        if (!err) {
            out[k].frame = frames[k];
            err = make_one(&pr, &pd, &out[k]);
        }
        if (r == 1) vmaf_picture_unref(&pr);
        if (d == 1) vmaf_picture_unref(&pd);
        at = frames[k] + 1;
    }
    if (err)
        fprintf(stderr, "exactvmaf: --report: the frames' pictures are left out: reading the "
                "videos again failed (%s)\n", strerror(err < 0 ? -err : err));
    video_input_close(&ref);
    video_input_close(&dist);
    if (err) frame_pictures_free(out, n);
    return err;
}

void frame_pictures_free(FramePictures *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        free(p[i].ref_png);
        free(p[i].dist_png);
        free(p[i].diff_png);
        p[i].ref_png = p[i].dist_png = p[i].diff_png = NULL;
    }
}
