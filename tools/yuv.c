/*
 * Raw planar YUV reader: frames of Y, then U and V (none for 4:0:0), each
 * plane row after row with no padding; chroma planes of odd sizes rounded
 * up; 16-bit little-endian samples when the bit depth is above 8. The
 * geometry comes from the command line, so the file cannot vouch for it:
 * a file that is not a whole number of frames is an error, and so is a
 * sample above the bit depth.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "video_input.h"

static int yuv_begin_frame(VideoInput *vi)
{
    /* Frames have no header: a frame follows when a byte does. */
    const int c = getc(vi->f);
    if (c == EOF) {
        if (!ferror(vi->f)) return 0;
        char what[32];
        snprintf(what, sizeof(what), "frame %u", vi->frame_index);
        return video_input_read_error(vi, what);
    }
    if (ungetc(c, vi->f) == EOF) {
        video_input_error(vi, "cannot push back a byte before frame %u", vi->frame_index);
        return -EIO;
    }
    return 1;
}

/* Frames are fixed-size: the file size says it all. */
static int yuv_scan(VideoInput *vi, uint64_t *frames)
{
    const uint64_t left = (uint64_t)vi->file_size - vi->consumed;
    const uint64_t per = vi->info.frame_bytes;
    *frames = left / per;
    if (left % per)
        snprintf(vi->scan_msg, sizeof(vi->scan_msg),
                 "%llu bytes is %llu whole frames of %llu bytes plus a partial frame of "
                 "%llu bytes (check -w, -h, -p and -b)",
                 (unsigned long long)vi->file_size, (unsigned long long)*frames,
                 (unsigned long long)per, (unsigned long long)(left % per));
    return 0;
}

static const VideoInputFormat yuv_format = {
    .name = "yuv",
    .begin_frame = yuv_begin_frame,
    .frame_overhead = 0,
    .scan = yuv_scan,
};

/* A y4m file given raw geometry would be read as noise; say so instead. */
static int reject_y4m(VideoInput *vi)
{
    if (vi->file_size < 9) return 0;
    char magic[9];
    const size_t got = fread(magic, 1, sizeof(magic), vi->f);
    if (fseek(vi->f, 0, SEEK_SET)) {
        video_input_error(vi, "cannot seek back to the start: %s", strerror(errno));
        return -EIO;
    }
    if (got == sizeof(magic) && !memcmp(magic, "YUV4MPEG2", sizeof(magic))) {
        video_input_error(vi, "is a y4m file; leave out --width, --height, "
                          "--pixel_format and --bitdepth to read it as one");
        return -EINVAL;
    }
    return 0;
}

int video_input_open_yuv(VideoInput **out, const char *path, unsigned w, unsigned h,
                         enum VmafPixelFormat pix_fmt, unsigned bpc)
{
    VideoInput *vi = NULL;
    int err = video_input_create(&vi, path, &yuv_format);
    if (err) return err;
    if (pix_fmt != VMAF_PIX_FMT_YUV420P && pix_fmt != VMAF_PIX_FMT_YUV422P &&
        pix_fmt != VMAF_PIX_FMT_YUV444P && pix_fmt != VMAF_PIX_FMT_YUV400P) {
        video_input_error(vi, "unknown pixel format %d", (int)pix_fmt);
        err = -EINVAL;
        goto fail;
    }
    vi->info.w = w;
    vi->info.h = h;
    vi->info.pix_fmt = pix_fmt;
    vi->info.bpc = bpc;
    err = video_input_finish_open(vi);
    if (err) goto fail;
    err = reject_y4m(vi);
    if (err) goto fail;
    *out = vi;
    return 0;

fail:
    video_input_close(&vi);
    return err;
}
