/*
 * What the y4m and raw YUV readers share: opening, the plane layout of a
 * frame in the file, reading samples into a VmafPicture (with the bit-depth
 * check and the optional shift to a common depth), and error messages that
 * name the file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libvmaf/picture.h"
#include "../src/os/stop_signals.h"
#include "video_input.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG_ENDIAN 1
#else
#define HOST_BIG_ENDIAN 0
#endif

int video_input_start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
    CliSignalHold old;
    cli_hold_stop_signals(true, &old);
    const int err = pthread_create(t, NULL, fn, arg);
    cli_hold_stop_signals(false, &old);
    return err;
}

static _Thread_local char **capture;

void video_input_capture(char **sink)
{
    capture = sink;
}

/* msg and a newline appended to the malloc'd text *dst. */
static void keep_line(char **dst, const char *msg)
{
    const size_t old = *dst ? strlen(*dst) : 0, add = strlen(msg);
    char *p = realloc(*dst, old + add + 2);
    if (!p) return;
    memcpy(p + old, msg, add);
    p[old + add] = '\n';
    p[old + add + 1] = '\0';
    *dst = p;
}

/* "exactvmaf: " + prefix + fmt: printed, or kept in *keep when given. */
static void message(char **keep, const char *prefix, const char *fmt, va_list ap)
{
    char msg[1024];
    int n = snprintf(msg, sizeof(msg), "exactvmaf: %s", prefix);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof(msg)) vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    if (keep) keep_line(keep, msg);
    else fprintf(stderr, "%s\n", msg);
}

void video_input_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(capture, "", fmt, ap);
    va_end(ap);
}

void video_input_error(const VideoInput *vi, const char *fmt, ...)
{
    char prefix[1024];
    snprintf(prefix, sizeof(prefix), "%s: ", vi->path);
    va_list ap;
    va_start(ap, fmt);
    /* Deferred: kept for the caller, appended to what is already kept. */
    message(vi->defer_messages ? &((VideoInput *)vi)->deferred : capture, prefix, fmt, ap);
    va_end(ap);
}

char *video_input_take_messages(VideoInput *vi)
{
    char *m = vi->deferred;
    vi->deferred = NULL;
    return m;
}

int video_input_read_error(const VideoInput *vi, const char *what)
{
    const int e = errno;
    if (e == EINTR && vi->interrupted && *vi->interrupted) return -EINTR;
    video_input_error(vi, "read error in %s: %s", what, strerror(e));
    return -EIO;
}

int video_input_create(VideoInput **out, const char *path, const VideoInputFormat *fmt)
{
    int err;
    VideoInput *vi = calloc(1, sizeof(*vi));
    if (!vi) return -ENOMEM;
    vi->fmt = fmt;
    vi->file_size = -1;
    vi->planes = 7;
    vi->is_stdin = !strcmp(path, "-");
    vi->path = strdup(vi->is_stdin ? "(stdin)" : path);
    if (!vi->path) {
        err = -ENOMEM;
        goto fail;
    }

    vi->f = vi->is_stdin ? stdin : fopen(path, "rb");
    if (!vi->f) {
        err = -errno;
        video_input_error(vi, "cannot open: %s", strerror(errno));
        goto fail;
    }
    struct stat st;
    if (!fstat(fileno(vi->f), &st)) {
        if (S_ISDIR(st.st_mode)) {
            video_input_error(vi, "is a directory");
            err = -EISDIR;
            goto fail;
        }
        if (S_ISREG(st.st_mode)) vi->file_size = (int64_t)st.st_size;
    }
    *out = vi;
    return 0;

fail:
    video_input_close(&vi);
    return err;
}

static unsigned plane_count(enum VmafPixelFormat pix_fmt)
{
    return pix_fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;
}

/* Sample layout in the file: chroma planes are rounded up, as every
 * y4m/yuv writer stores odd sizes (ffmpeg's -(-w >> 1)). */
static void plane_dims(const VideoInfo *in, unsigned p, unsigned *w, unsigned *h)
{
    const unsigned ss_x = in->pix_fmt == VMAF_PIX_FMT_YUV420P ||
                          in->pix_fmt == VMAF_PIX_FMT_YUV422P;
    const unsigned ss_y = in->pix_fmt == VMAF_PIX_FMT_YUV420P;
    *w = p ? (in->w + ss_x) >> ss_x : in->w;
    *h = p ? (in->h + ss_y) >> ss_y : in->h;
}

int video_input_finish_open(VideoInput *vi)
{
    VideoInfo *in = &vi->info;
    if (!in->w || !in->h || in->w > VIDEO_INPUT_MAX_DIM || in->h > VIDEO_INPUT_MAX_DIM) {
        video_input_error(vi, "frame size %ux%u is not within 1x1..%ux%u",
                          in->w, in->h, VIDEO_INPUT_MAX_DIM, VIDEO_INPUT_MAX_DIM);
        return -EINVAL;
    }
    /* libvmaf's chroma planes are w >> 1 (and h >> 1 in 4:2:0) wide: none
     * at all for a frame 1 sample wide (or high). */
    const bool ss_x = in->pix_fmt == VMAF_PIX_FMT_YUV420P || in->pix_fmt == VMAF_PIX_FMT_YUV422P;
    const bool ss_y = in->pix_fmt == VMAF_PIX_FMT_YUV420P;
    if ((ss_x && in->w < 2) || (ss_y && in->h < 2)) {
        video_input_error(vi, "a %ux%u frame has no chroma samples in %s (libvmaf halves "
                          "the chroma size, rounding down): the smallest is %ux%u",
                          in->w, in->h, ss_y ? "4:2:0" : "4:2:2", 2u, ss_y ? 2u : 1u);
        return -EINVAL;
    }
    if (in->bpc < 8 || in->bpc > 16) {
        video_input_error(vi, "bit depth %u is not within 8..16", in->bpc);
        return -EINVAL;
    }
    /* Dimensions are at most 2^15, so these products fit in 64 bits. */
    const unsigned bytes = in->bpc > 8 ? 2 : 1;
    uint64_t total = 0;
    for (unsigned p = 0; p < plane_count(in->pix_fmt); p++) {
        unsigned w, h;
        plane_dims(in, p, &w, &h);
        total += (uint64_t)w * h * bytes;
    }
    if (total > SIZE_MAX / 2) {
        video_input_error(vi, "a frame of %llu bytes does not fit in memory here",
                          (unsigned long long)total);
        return -ENOMEM;
    }
    in->frame_bytes = total;
    vi->row = malloc((size_t)in->w * 2);
    if (!vi->row) {
        video_input_error(vi, "cannot allocate a row buffer of %u bytes", in->w * 2);
        return -ENOMEM;
    }
    return 0;
}

void video_input_cancel(VideoInput *vi)
{
    atomic_store(&vi->cancelled, true);
}

/* A plane of a large frame is read in pieces of this size, the cancel flag
 * looked at between them. */
#define READ_CHUNK ((size_t)16 << 20)

size_t video_input_fread(VideoInput *vi, void *buf, size_t n)
{
    if (vi->stage.active) {
        const size_t left = vi->stage.len - vi->stage.pos;
        const size_t got = n < left ? n : left;
        memcpy(buf, vi->stage.buf + vi->stage.pos, got);
        vi->stage.pos += got;
        return got;
    }
    size_t got = 0;
    while (got < n && !atomic_load(&vi->cancelled)) {
        const size_t want = n - got < READ_CHUNK ? n - got : READ_CHUNK;
        const size_t r = fread((uint8_t *)buf + got, 1, want, vi->f);
        got += r;
        if (r < want) break;
    }
    vi->consumed += got;
    return got;
}

const VideoInfo *video_input_info(const VideoInput *vi)
{
    return &vi->info;
}

const char *video_input_path(const VideoInput *vi)
{
    return vi->path;
}

/* Short read inside a frame: a read error, or a file that stops mid-frame. */
static int short_read(VideoInput *vi, uint64_t frame_got)
{
    if (atomic_load(&vi->cancelled)) return -EINTR;    /* the caller stopped it: no message */
    if (ferror(vi->f)) {
        char what[32];
        snprintf(what, sizeof(what), "frame %u", vi->frame_index);
        return video_input_read_error(vi, what);
    }
    video_input_error(vi, "frame %u is partial: the file ends after %llu of its "
                      "%llu bytes", vi->frame_index, (unsigned long long)frame_got,
                      (unsigned long long)(vi->info.frame_bytes + vi->skip_bytes));
    return -EINVAL;
}

static unsigned max_u16(const uint16_t *s, unsigned n)
{
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
        m = s[i] > m ? s[i] : m;
    return m;
}

static void swap_u16(uint16_t *s, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        s[i] = (uint16_t)((s[i] >> 8) | (s[i] << 8));
}

/*
 * One row of n samples from the file; its first `keep` samples go to dst (a
 * picture row at out_bpc), none when dst is NULL. Rows read without
 * conversion go straight into the picture. The largest sample seen (before
 * any shift, dropped ones included) updates *max_sample.
 */
static int read_row(VideoInput *vi, uint8_t *dst, unsigned n, unsigned keep,
                    unsigned out_bpc, uint64_t *frame_got, unsigned *max_sample)
{
    const unsigned in_bpc = vi->info.bpc;
    const size_t row_bytes = (size_t)n * (in_bpc > 8 ? 2 : 1);
    /* Straight into the picture only when every sample read is kept: the
     * picture row may be shorter than the file's (odd sizes). */
    const int direct = dst && keep == n && in_bpc == out_bpc &&
                       (in_bpc == 8 || !HOST_BIG_ENDIAN);
    uint8_t *src = direct ? dst : vi->row;

    const size_t got = video_input_fread(vi, src, row_bytes);
    *frame_got += got;
    if (got != row_bytes) return short_read(vi, *frame_got);

    if (in_bpc == 8) {
        if (!dst || direct) return 0;
        if (out_bpc > 8) {
            uint16_t *d = (uint16_t *)dst;
            const unsigned shift = out_bpc - 8;
            for (unsigned i = 0; i < keep; i++)
                d[i] = (uint16_t)(src[i] << shift);
        } else {
            memcpy(dst, src, keep);
        }
        return 0;
    }

    uint16_t *s = (uint16_t *)src;
    if (HOST_BIG_ENDIAN) swap_u16(s, n);
    if (in_bpc < 16) {
        const unsigned m = max_u16(s, n);
        if (m > *max_sample) *max_sample = m;
    }
    if (dst && !direct) {
        uint16_t *d = (uint16_t *)dst;
        const unsigned shift = out_bpc - in_bpc;
        for (unsigned i = 0; i < keep; i++)
            d[i] = (uint16_t)(s[i] << shift);
    }
    return 0;
}

static int drop_bytes(VideoInput *vi, uint64_t n, uint64_t *frame_got);

/* Skip n bytes of the frame: seeked over in a regular file, else read and
 * dropped. A regular file's frame is known to be whole before it is read. */
static int skip_bytes(VideoInput *vi, uint64_t n, uint64_t *frame_got)
{
    if (vi->file_size < 0 || vi->stage.active || n > INT64_MAX) return drop_bytes(vi, n, frame_got);
    if (fseeko(vi->f, (off_t)n, SEEK_CUR)) return drop_bytes(vi, n, frame_got);
    vi->consumed += n;
    *frame_got += n;
    return 0;
}

static int drop_bytes(VideoInput *vi, uint64_t n, uint64_t *frame_got)
{
    const size_t chunk = (size_t)vi->info.w * 2;
    while (n) {
        const size_t want = n < chunk ? (size_t)n : chunk;
        const size_t got = video_input_fread(vi, vi->row, want);
        *frame_got += got;
        if (got != want) return short_read(vi, *frame_got);
        n -= want;
    }
    return 0;
}

/*
 * A pipe's size is unknown, so a header's claim cannot be checked ahead:
 * the frame's bytes are read first, into a buffer that grows as they
 * arrive, and only a complete frame gets a picture. A header claiming a
 * giant frame costs what the pipe delivers, not what it claims. The buffer
 * is kept for the next frames.
 */
static int stage_frame(VideoInput *vi, uint64_t need)
{
    if (need > SIZE_MAX / 2) return short_read(vi, 0);
    size_t have = 0;
    while (have < need) {
        if (atomic_load(&vi->cancelled)) return -EINTR;
        if (vi->stage.cap == have) {
            size_t cap = vi->stage.cap ? vi->stage.cap * 2 : (size_t)1 << 20;
            if (cap > need) cap = (size_t)need;
            uint8_t *b = realloc(vi->stage.buf, cap);
            if (!b) {
                video_input_error(vi, "cannot allocate %zu bytes for frame %u", cap,
                                  vi->frame_index);
                return -ENOMEM;
            }
            vi->stage.buf = b;
            vi->stage.cap = cap;
        }
        const size_t got = fread(vi->stage.buf + have, 1, vi->stage.cap - have, vi->f);
        vi->consumed += got;
        have += got;
        /* A short count is the end, an error, or a signal (EINTR). */
        if (have < vi->stage.cap) return short_read(vi, have);
    }
    vi->stage.len = have;
    vi->stage.pos = 0;
    vi->stage.active = true;
    return 0;
}

int video_input_read(VideoInput *vi, VmafPicture *pic, unsigned out_bpc)
{
    const VideoInfo *in = &vi->info;
    if (out_bpc < in->bpc || out_bpc > 16) return -EINVAL;
    if (vi->fmt->read) {
        const int ret = vi->fmt->read(vi, pic, out_bpc);
        if (ret == 1) vi->frame_index++;
        return ret;
    }

    int ret = vi->fmt->begin_frame(vi);
    if (ret <= 0) return ret;

    /* Refuse a truncated frame before allocating for it. */
    const uint64_t need = in->frame_bytes + vi->skip_bytes;
    if (vi->file_size >= 0 && (uint64_t)vi->file_size >= vi->consumed &&
        (uint64_t)vi->file_size - vi->consumed < need)
        return short_read(vi, (uint64_t)vi->file_size - vi->consumed);
    if (vi->file_size < 0) {
        ret = stage_frame(vi, need);
        if (ret) return ret;
    }

    int err = vi->alloc ? vi->alloc(vi->alloc_arg, pic, in->pix_fmt, out_bpc, in->w, in->h)
                        : vmaf_picture_alloc(pic, in->pix_fmt, out_bpc, in->w, in->h);
    if (err) {
        video_input_error(vi, "cannot allocate a %ux%u picture: %s", in->w, in->h,
                          strerror(-err));
        vi->stage.active = false;
        return err;
    }

    uint64_t frame_got = 0;
    unsigned max_sample = 0;
    for (unsigned p = 0; p < plane_count(in->pix_fmt); p++) {
        unsigned w, h;
        plane_dims(in, p, &w, &h);
        /* Odd sizes: the file's chroma planes are rounded up, the picture's
         * down (libvmaf's layout, docs/decisions/0001): the last column and
         * row of such a plane are read and dropped. */
        if (pic->w[p] > w || pic->h[p] > h) {
            video_input_error(vi, "plane %u is %ux%u in the file but %ux%u in the picture",
                              p, w, h, pic->w[p], pic->h[p]);
            err = -EINVAL;
            goto fail;
        }
        const size_t row_bytes = (size_t)w * (in->bpc > 8 ? 2 : 1);
        if (!(vi->planes & (1u << p))) {
            err = skip_bytes(vi, row_bytes * h, &frame_got);
            if (err) goto fail;
            continue;
        }
        /* Rows as the picture lays them out: the plane in one read. */
        if (pic->w[p] == w && pic->h[p] == h && (size_t)pic->stride[p] == row_bytes &&
            in->bpc == out_bpc && (in->bpc == 8 || !HOST_BIG_ENDIAN)) {
            const size_t got = video_input_fread(vi, pic->data[p], row_bytes * h);
            frame_got += got;
            if (got != row_bytes * h) {
                err = short_read(vi, frame_got);
                goto fail;
            }
            if (in->bpc > 8 && in->bpc < 16) {
                const unsigned m = max_u16((const uint16_t *)pic->data[p], w * h);
                if (m > max_sample) max_sample = m;
            }
            continue;
        }
        uint8_t *row = pic->data[p];
        for (unsigned y = 0; y < h; y++) {
            const bool keep = y < pic->h[p];
            err = read_row(vi, keep ? row : NULL, w, pic->w[p], out_bpc, &frame_got,
                           &max_sample);
            if (err) goto fail;
            if (keep) row += pic->stride[p];
        }
    }
    err = drop_bytes(vi, vi->skip_bytes, &frame_got);
    if (err) goto fail;

    if (in->bpc > 8 && in->bpc < 16 && max_sample >> in->bpc) {
        video_input_error(vi, "frame %u holds the sample value %u, above the %u-bit "
                          "maximum %u: wrong bit depth, or not little-endian?",
                          vi->frame_index, max_sample, in->bpc, (1u << in->bpc) - 1);
        err = -EINVAL;
        goto fail;
    }
    vi->stage.active = false;
    vi->frame_index++;
    return 1;

fail:
    vi->stage.active = false;
    vmaf_picture_unref(pic);
    return err;
}

int video_input_skip(VideoInput *vi)
{
    VmafPicture pic;
    const int ret = video_input_read(vi, &pic, vi->info.bpc);
    if (ret == 1) vmaf_picture_unref(&pic);
    return ret;
}

int video_input_remaining(const VideoInput *vi, uint64_t *frames, uint64_t *partial_bytes)
{
    if (vi->file_size < 0 || (uint64_t)vi->file_size < vi->consumed) return -ENOTSUP;
    const uint64_t left = (uint64_t)vi->file_size - vi->consumed;
    const uint64_t per = vi->info.frame_bytes + vi->skip_bytes + vi->fmt->frame_overhead;
    *frames = left / per;
    *partial_bytes = left % per;
    return 0;
}

int video_input_scan(VideoInput *vi, uint64_t *frames, bool *damaged)
{
    vi->scan_msg[0] = '\0';
    if (vi->file_size < 0 || (uint64_t)vi->file_size < vi->consumed || !vi->fmt->scan)
        return -ENOTSUP;
    const int err = vi->fmt->scan(vi, frames);
    if (err) return err;
    *damaged = vi->scan_msg[0] != '\0';
    return 0;
}

const char *video_input_scan_message(const VideoInput *vi)
{
    return vi->scan_msg;
}

double video_input_timestamp(const VideoInput *vi, unsigned index)
{
    return index < vi->n_pts ? vi->pts[index] : -1.0;
}

void video_input_add_timestamp(VideoInput *vi, double seconds)
{
    if (vi->n_pts == vi->cap_pts) {
        const size_t cap = vi->cap_pts ? 2 * vi->cap_pts : 256;
        double *p = realloc(vi->pts, cap * sizeof(*p));
        if (!p) return;     /* timestamps are for the report only */
        vi->pts = p;
        vi->cap_pts = cap;
    }
    vi->pts[vi->n_pts++] = seconds;
}

void video_input_close(VideoInput **pvi)
{
    if (!pvi || !*pvi) return;
    VideoInput *vi = *pvi;
    if (vi->fmt && vi->fmt->close) vi->fmt->close(vi);
    free(vi->pts);
    if (vi->f && !vi->is_stdin) fclose(vi->f);
    free(vi->row);
    free(vi->stage.buf);
    free(vi->deferred);
    free(vi->path);
    free(vi);
    *pvi = NULL;
}
