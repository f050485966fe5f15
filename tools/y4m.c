/*
 * YUV4MPEG2 reader.
 *
 * Header: "YUV4MPEG2" then space-separated tags. W and H are required; F,
 * A and X tags are accepted and not used; I must be progressive (p) or
 * unknown (?); C selects the layout:
 *   420 420jpeg 420mpeg2 420paldv   4:2:0, 8 bit
 *   422 444 mono                    4:2:2, 4:4:4, luma only; 8 bit
 *   444alpha                        4:4:4 8 bit; the alpha plane is dropped
 *   420pN 422pN 444pN monoN         N = 9..16 bits (little-endian samples)
 * No C tag means 420. The 4:2:0 siting variants differ only in where the
 * chroma samples sit, not in how they are stored; they are read as stored,
 * without resampling (Netflix v3.2.0 reads 420mpeg2 the same way and
 * refuses 420paldv, 8-bit 422 and mono).
 * Each frame starts with a line "FRAME" (optionally followed by tags).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "video_input.h"

/* Longest header or FRAME line accepted. */
#define Y4M_LINE_MAX 1024

/*
 * Read one line (without its '\n') into buf. @return 1, 0 when the file
 * ends before its first byte, <0 (printed) when the line is cut short or
 * longer than the buffer.
 */
static int read_line(VideoInput *vi, char *buf, size_t cap, const char *what)
{
    size_t len = 0;
    for (;;) {
        const int c = getc(vi->f);
        if (c == EOF) {
            if (ferror(vi->f)) {
                char where[64];
                snprintf(where, sizeof(where), "the %s", what);
                return video_input_read_error(vi, where);
            }
            if (!len) return 0;
            video_input_error(vi, "the file ends inside the %s", what);
            return -EINVAL;
        }
        vi->consumed++;
        if (c == '\n') break;
        if (len + 1 >= cap) {
            video_input_error(vi, "the %s is longer than %zu bytes", what, cap - 1);
            return -EINVAL;
        }
        buf[len++] = (char)c;
    }
    buf[len] = '\0';
    return 1;
}

static int y4m_begin_frame(VideoInput *vi)
{
    char line[Y4M_LINE_MAX];
    char what[48];
    snprintf(what, sizeof(what), "header of frame %u", vi->frame_index);
    const int ret = read_line(vi, line, sizeof(line), what);
    if (ret <= 0) return ret;
    if (strncmp(line, "FRAME", 5) || (line[5] != '\0' && line[5] != ' ')) {
        video_input_error(vi, "frame %u does not start with a FRAME line (the file is "
                          "damaged, or the header's size or chroma is wrong)",
                          vi->frame_index);
        return -EINVAL;
    }
    return 1;
}

/*
 * Walk the FRAME lines of a regular file, seeking over the samples. Reads
 * a few bytes per frame, so even a long clip is checked in moments.
 */
static int y4m_scan(VideoInput *vi, uint64_t *frames)
{
    const off_t start = ftello(vi->f);
    if (start < 0) return -ENOTSUP;
    const uint64_t samples = vi->info.frame_bytes + vi->skip_bytes;
    uint64_t pos = (uint64_t)start, n = 0;
    bool unscannable = false;
    char line[8];
    for (;;) {
        /* The FRAME line: its first bytes are checked, its tags skipped. */
        size_t len = 0;
        int c;
        while ((c = getc(vi->f)) != EOF && c != '\n' && len <= Y4M_LINE_MAX) {
            if (len < sizeof(line)) line[len] = (char)c;
            len++;
        }
        if (c == EOF && ferror(vi->f)) {
            unscannable = true;     /* the reader will say why when it gets there */
            break;
        }
        if (c == EOF && !len) break;
        const unsigned idx = vi->frame_index + (unsigned)n;
        if (len > Y4M_LINE_MAX) {
            snprintf(vi->scan_msg, sizeof(vi->scan_msg),
                     "the header of frame %u is longer than %d bytes", idx, Y4M_LINE_MAX - 1);
            break;
        }
        if (c != '\n' || len < 5 || memcmp(line, "FRAME", 5) ||
            (len > 5 && line[5] != ' ')) {
            snprintf(vi->scan_msg, sizeof(vi->scan_msg),
                     c != '\n' && len >= 5 && !memcmp(line, "FRAME", 5) ?
                     "the file ends inside the header of frame %u" :
                     "frame %u does not start with a FRAME line (the file is damaged, or "
                     "the header's size or chroma is wrong)", idx);
            break;
        }
        pos += len + 1;
        if ((uint64_t)vi->file_size - pos < samples) {
            snprintf(vi->scan_msg, sizeof(vi->scan_msg),
                     "frame %u is partial: the file ends after %llu of its %llu bytes",
                     idx, (unsigned long long)((uint64_t)vi->file_size - pos),
                     (unsigned long long)samples);
            break;
        }
        pos += samples;
        n++;
        if (fseeko(vi->f, (off_t)pos, SEEK_SET)) {
            unscannable = true;
            break;
        }
    }
    clearerr(vi->f);
    if (fseeko(vi->f, start, SEEK_SET)) {
        video_input_error(vi, "cannot seek back after counting frames: %s", strerror(errno));
        return -EIO;
    }
    if (unscannable) {
        vi->scan_msg[0] = '\0';
        return -ENOTSUP;
    }
    *frames = n;
    return 0;
}

static const VideoInputFormat y4m_format = {
    .name = "y4m",
    .begin_frame = y4m_begin_frame,
    .frame_overhead = 6,    /* "FRAME\n" */
    .scan = y4m_scan,
};

/* A decimal number of at most 9 digits (anything longer is out of range). */
static bool parse_uint(const char *s, unsigned *v)
{
    if (!*s || strlen(s) > 9) return false;
    unsigned n = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        n = n * 10 + (unsigned)(*s - '0');
    }
    *v = n;
    return true;
}

/* "n:d"; 0:0 means unknown in both F and A, so zeros are allowed. */
static bool parse_ratio(const char *s, unsigned *n_out, unsigned *d_out)
{
    const char *colon = strchr(s, ':');
    if (!colon) return false;
    char num[16];
    const size_t len = (size_t)(colon - s);
    if (len >= sizeof(num)) return false;
    memcpy(num, s, len);
    num[len] = '\0';
    unsigned n, d;
    if (!parse_uint(num, &n) || !parse_uint(colon + 1, &d)) return false;
    *n_out = n;
    *d_out = d;
    return true;
}

static int parse_chroma(VideoInput *vi, const char *c, bool *alpha)
{
    static const struct {
        const char *name;
        enum VmafPixelFormat pix_fmt;
    } base[] = {
        { "420", VMAF_PIX_FMT_YUV420P },
        { "420jpeg", VMAF_PIX_FMT_YUV420P },
        { "420mpeg2", VMAF_PIX_FMT_YUV420P },
        { "420paldv", VMAF_PIX_FMT_YUV420P },
        { "422", VMAF_PIX_FMT_YUV422P },
        { "444", VMAF_PIX_FMT_YUV444P },
        { "444alpha", VMAF_PIX_FMT_YUV444P },
        { "mono", VMAF_PIX_FMT_YUV400P },
    };
    static const struct {
        const char *prefix;
        enum VmafPixelFormat pix_fmt;
    } deep[] = {
        { "420p", VMAF_PIX_FMT_YUV420P },
        { "422p", VMAF_PIX_FMT_YUV422P },
        { "444p", VMAF_PIX_FMT_YUV444P },
        { "mono", VMAF_PIX_FMT_YUV400P },
    };

    *alpha = false;
    for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
        if (strcmp(c, base[i].name)) continue;
        vi->info.pix_fmt = base[i].pix_fmt;
        vi->info.bpc = 8;
        *alpha = !strcmp(c, "444alpha");
        return 0;
    }
    for (size_t i = 0; i < sizeof(deep) / sizeof(deep[0]); i++) {
        const size_t len = strlen(deep[i].prefix);
        unsigned bpc;
        if (strncmp(c, deep[i].prefix, len) || !parse_uint(c + len, &bpc)) continue;
        if (bpc < 9 || bpc > 16) {
            video_input_error(vi, "chroma tag C%s: bit depth %u is not within 9..16", c, bpc);
            return -EINVAL;
        }
        vi->info.pix_fmt = deep[i].pix_fmt;
        vi->info.bpc = bpc;
        return 0;
    }
    if (!strcmp(c, "411")) {
        video_input_error(vi, "4:1:1 chroma (C411) is not supported; convert to 4:2:0, "
                          "4:2:2 or 4:4:4");
        return -ENOTSUP;
    }
    video_input_error(vi, "unknown chroma tag C%s (known: 420, 420jpeg, 420mpeg2, "
                      "420paldv, 422, 444, 444alpha, mono, and 420pN, 422pN, 444pN, "
                      "monoN for N = 9..16 bits)", c);
    return -EINVAL;
}

/* tags: the header line after "YUV4MPEG2". */
static int parse_header(VideoInput *vi, char *tags)
{
    if (tags[0] != '\0' && tags[0] != ' ') {
        video_input_error(vi, "y4m header: \"YUV4MPEG2\" is followed by \"%c\", not a space",
                          tags[0]);
        return -EINVAL;
    }
    bool got_w = false, got_h = false, alpha = false;
    vi->info.pix_fmt = VMAF_PIX_FMT_YUV420P;
    vi->info.bpc = 8;

    char *save = NULL;
    for (char *tag = strtok_r(tags, " ", &save); tag; tag = strtok_r(NULL, " ", &save)) {
        const char *val = tag + 1;
        int err;
        switch (tag[0]) {
        case 'W':
        case 'H': {
            unsigned v;
            if (!parse_uint(val, &v) || !v || v > VIDEO_INPUT_MAX_DIM) {
                video_input_error(vi, "y4m header: %s \"%s\" is not within 1..%u",
                                  tag[0] == 'W' ? "width" : "height", val,
                                  VIDEO_INPUT_MAX_DIM);
                return -EINVAL;
            }
            if (tag[0] == 'W') vi->info.w = v, got_w = true;
            else vi->info.h = v, got_h = true;
            break;
        }
        case 'F':
        case 'A': {
            unsigned n, d;
            if (!parse_ratio(val, &n, &d)) {
                video_input_error(vi, "y4m header: bad %s tag \"%s\" (want %c<n>:<d>)",
                                  tag[0] == 'F' ? "frame rate" : "aspect ratio", tag,
                                  tag[0]);
                return -EINVAL;
            }
            if (tag[0] == 'F' && n && d) {
                vi->info.fps_num = n;
                vi->info.fps_den = d;
            }
            break;
        }
        case 'I':
            if (!strcmp(val, "p") || !strcmp(val, "?")) break;
            if (!strcmp(val, "t") || !strcmp(val, "b") || !strcmp(val, "m")) {
                video_input_error(vi, "interlaced video (I%s) is not supported; "
                                  "deinterlace it first", val);
                return -ENOTSUP;
            }
            video_input_error(vi, "y4m header: unknown interlacing tag I%s", val);
            return -EINVAL;
        case 'C':
            err = parse_chroma(vi, val, &alpha);
            if (err) return err;
            break;
        default:
            /* X (extensions) and tags of later revisions carry nothing we use. */
            break;
        }
    }
    if (!got_w || !got_h) {
        video_input_error(vi, "y4m header has no %s tag", got_w ? "H (height)" : "W (width)");
        return -EINVAL;
    }
    if (alpha) vi->skip_bytes = (uint64_t)vi->info.w * vi->info.h;
    return 0;
}

int video_input_open_y4m(VideoInput **out, const char *path)
{
    VideoInput *vi = NULL;
    int err = video_input_create(&vi, path, &y4m_format);
    if (err) return err;

    char magic[9];
    const size_t got = video_input_fread(vi, magic, sizeof(magic));
    if (got != sizeof(magic) || memcmp(magic, "YUV4MPEG2", sizeof(magic))) {
        if (ferror(vi->f))
            video_input_error(vi, "read error: %s", strerror(errno));
        else if (!got)
            video_input_error(vi, "the file is empty");
        else
            video_input_error(vi, "not a y4m file (it does not start with \"YUV4MPEG2\"); "
                              "for raw YUV give --width, --height, --pixel_format and "
                              "--bitdepth");
        err = ferror(vi->f) ? -EIO : -EINVAL;
        goto fail;
    }
    char tags[Y4M_LINE_MAX];
    err = read_line(vi, tags, sizeof(tags), "y4m header");
    if (!err) {
        video_input_error(vi, "the y4m header has no end of line");
        err = -EINVAL;
    }
    if (err < 0) goto fail;
    err = parse_header(vi, tags);
    if (err) goto fail;
    err = video_input_finish_open(vi);
    if (err) goto fail;
    *out = vi;
    return 0;

fail:
    video_input_close(&vi);
    return err;
}
