/*
 * Video readers of the exactvmaf CLI: YUV4MPEG2 (.y4m) and raw planar YUV.
 * Frames are read into pictures from vmaf_picture_alloc(). Every error is
 * printed on stderr with the file's name; functions then return a negative
 * errno.
 */
#ifndef EXACTVMAF_TOOLS_VIDEO_INPUT_H
#define EXACTVMAF_TOOLS_VIDEO_INPUT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../src/os/os.h"
#include "libvmaf/picture.h"

/* The tool's FFmpeg module (av_module.h) calls these: the tool exports them
 * (the build hides everything else). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/** Largest width or height accepted (the library's picture limit). */
#define VIDEO_INPUT_MAX_DIM 32768u

typedef struct VideoInfo {
    unsigned w, h;
    enum VmafPixelFormat pix_fmt;
    unsigned bpc;               /**< bits per sample in the file, 8..16 */
    uint64_t frame_bytes;       /**< sample bytes of one frame in the file */
    unsigned fps_num, fps_den;  /**< frame rate; 0/0 when the file does not say */
    char format[48];            /**< what the file holds, for messages and reports */
    /** Who decoded it, for reports: "" (read as is: y4m, raw YUV), "the CPU",
     *  "NVDEC (GPU 0)", or NVDEC then the CPU from a frame on. */
    char decoder[64];
} VideoInfo;

typedef struct VideoInput VideoInput;

/** Per-format hooks; see y4m.c and yuv.c. */
typedef struct VideoInputFormat {
    const char *name;
    /**
     * Consume what precedes a frame's samples (y4m: the FRAME line).
     * @return 1 when a frame follows, 0 at a clean end of stream, <0 error.
     */
    int (*begin_frame)(VideoInput *vi);
    /** Bytes in the file per frame besides the samples (estimate; progress only). */
    unsigned frame_overhead;
    /**
     * Count the whole frames from the current position of a regular file
     * without reading their samples, and leave the position unchanged.
     * Sets vi->scan_msg when something other than a whole frame follows.
     * @return 0, or <0 when the file cannot be scanned (seek error).
     */
    int (*scan)(VideoInput *vi, uint64_t *frames);
    /**
     * Formats that decode (FFmpeg's libraries): read the next frame into a
     * picture from vi->alloc, as video_input_read does; NULL for the readers
     * of raw samples. Then begin_frame is not used.
     */
    int (*read)(VideoInput *vi, VmafPicture *pic, unsigned out_bpc);
    /** Free vi->priv; may be NULL. */
    void (*close)(VideoInput *vi);
} VideoInputFormat;

/** Where video_input_read gets a picture (0 or a negative errno). */
typedef int (*VideoPictureAlloc)(void *arg, VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                                 unsigned bpc, unsigned w, unsigned h);

/** Reader state. Fields are for the readers; the CLI uses the functions. */
struct VideoInput {
    const VideoInputFormat *fmt;
    FILE *f;
    char *path;
    bool is_stdin;
    VideoInfo info;
    /** Bytes per frame read and dropped after the samples (y4m 444alpha). */
    uint64_t skip_bytes;
    uint64_t consumed;          /**< bytes read from the file so far */
    int64_t file_size;          /**< -1 when not a regular file */
    unsigned frame_index;       /**< frames read (or skipped) so far */
    uint8_t *row;               /**< one row of file samples, for conversion */
    /** Input of unknown size: the frame's bytes are staged here before its
     *  picture is allocated (see video_input_read). */
    struct {
        uint8_t *buf;
        size_t cap, len, pos;
        bool active;            /**< video_input_fread() reads from buf */
    } stage;
    /** Set by video_input_scan(): why the file stops being whole frames. */
    char scan_msg[256];
    /** When non-NULL and set, a read cut short by a signal returns -EINTR
     *  silently: the caller is stopping on purpose. */
    const volatile sig_atomic_t *interrupted;
    /** Set (from another thread) by video_input_cancel(): reads stop between
     *  chunks, so that a giant frame is not read to its end for nothing. */
    atomic_bool cancelled;
    /** Pictures come from here; NULL: vmaf_picture_alloc(). */
    VideoPictureAlloc alloc;
    void *alloc_arg;
    /** Planes read into pictures (bit p: plane p); the others are skipped
     *  unread, their samples unchecked and unset. Default: all. */
    unsigned planes;
    /** Messages are kept in `deferred` instead of printed (a reader thread
     *  whose caller prints them in order, when it reaches that frame). */
    bool defer_messages;
    char *deferred;
    void *priv;                 /**< the format's own state */
    /** Presentation time of each frame read (seconds), when the file has them. */
    double *pts;
    size_t n_pts, cap_pts;
};

/**
 * Open a y4m file ("-" = standard input) and validate its header.
 * @return 0, or negative errno after printing why.
 */
int video_input_open_y4m(VideoInput **vi, const char *path);

/**
 * Open a raw planar YUV file ("-" = standard input). 16-bit little-endian
 * samples when bpc > 8.
 */
int video_input_open_yuv(VideoInput **vi, const char *path, unsigned w, unsigned h,
                         enum VmafPixelFormat pix_fmt, unsigned bpc);

const VideoInfo *video_input_info(const VideoInput *vi);
const char *video_input_path(const VideoInput *vi);

/**
 * Read the next frame into *pic, which this allocates with
 * vmaf_picture_alloc() (or vi->alloc) at out_bpc (>= the file's bpc;
 * samples are shifted up). Samples above the file's bit depth are an
 * error. A frame NVDEC decoded (VideoDecodeOptions.hwdec) whose samples need
 * no shift is a device picture of its GPU memory instead, unchecked.
 * @return 1 frame read (the caller owns *pic), 0 end of stream, <0 error.
 */
int video_input_read(VideoInput *vi, VmafPicture *pic, unsigned out_bpc);

/**
 * From another thread: make a video_input_read() under way (and every later
 * one) end soon with -EINTR and no message. Once cancelled, the input is
 * only good for closing.
 */
void video_input_cancel(VideoInput *vi);

/**
 * While set (non-NULL), this thread's messages about inputs
 * (video_input_error on an input that does not defer them, video_input_say)
 * are appended to the malloc'd text *sink instead of printed: an input
 * opened on a thread of its own, whose messages the caller prints in the
 * inputs' order.
 */
void video_input_capture(char **sink);

/** A message about inputs, "exactvmaf: " + fmt + newline, on stderr or the capture. */
void video_input_say(const char *fmt, ...);

/**
 * Open CUDA device `gpu` for NVDEC on a thread of its own, now: the driver's
 * start-up (a quarter of a second) then overlaps reading the files'
 * headers, and every decoder shares the device. Quiet: a decoder that
 * opens the device later says what failed. video_input_warm_end() waits
 * for the thread and lets the device go once the decoders have.
 */
void video_input_warm_gpu(int gpu);
void video_input_warm_end(void);

/**
 * pthread_create() with the stop signals held, as the reader threads are
 * made: only the tool's main thread takes them. @return 0 or an errno.
 */
int video_input_start_thread(pthread_t *t, void *(*fn)(void *), void *arg);

/**
 * The messages kept since the last call (defer_messages), malloc'd, or NULL
 * when there are none; the caller prints and frees them.
 */
char *video_input_take_messages(VideoInput *vi);

/** Read and drop one frame. @return 1, 0 at end of stream, <0 error. */
int video_input_skip(VideoInput *vi);

/**
 * Whole frames left and the bytes of a trailing partial one, from the file
 * size. @return 0, or -ENOTSUP when the size is unknown (a pipe).
 */
int video_input_remaining(const VideoInput *vi, uint64_t *frames, uint64_t *partial_bytes);

/**
 * Count the frames left in a regular file without reading their samples
 * (y4m: FRAME lines are read and the samples seeked over), so that a
 * truncated or damaged file, or two files of different lengths, are
 * reported before anything is computed.
 * @return 0 with *frames the whole frames left and *damaged true when
 * something other than a whole frame follows them (then
 * video_input_scan_message() says what); -ENOTSUP for a pipe; <0 error.
 */
int video_input_scan(VideoInput *vi, uint64_t *frames, bool *damaged);

/** Why the file stops being whole frames (after video_input_scan). */
const char *video_input_scan_message(const VideoInput *vi);

void video_input_close(VideoInput **vi);

/** Where compressed video is decoded (--hwdec). */
enum VideoHwdec {
    VIDEO_HWDEC_NONE = 0,       /**< FFmpeg's CPU decoders */
    /** NVDEC where it takes the stream, else the CPU decoder, saying why
     *  (one line on stderr); a failure mid-stream hands over to the CPU. */
    VIDEO_HWDEC_AUTO,
    VIDEO_HWDEC_CUDA,           /**< NVDEC, or an error naming the file and why */
};

/** Options of the readers that decode (FFmpeg's libraries). */
typedef struct VideoDecodeOptions {
    /** Convert pixel formats other than planar YUV (NV12, RGB, ...) to planar YUV. */
    bool convert;
    /** Scale to this size with FFmpeg's bicubic scaler; 0: the file's size. */
    unsigned scale_w, scale_h;
    /** Raw YUV through the decoder (for scaling): the geometry -w -h -p -b give. */
    bool raw;
    unsigned raw_w, raw_h, raw_bpc;
    enum VmafPixelFormat raw_pix_fmt;
    /**
     * Compressed video (not y4m or raw YUV, which are read as they are) on
     * NVDEC through libavcodec's CUDA hwaccel, on CUDA device `gpu`: its
     * frames become device pictures (exactvmaf_cuda_picture_wrap) unless
     * they must be shifted, converted or scaled, which the host does.
     */
    enum VideoHwdec hwdec;
    int gpu;
    /** With VIDEO_HWDEC_AUTO: why NVDEC is not to be used (the metrics do
     *  not run on CUDA), printed with the file's name; NULL: nothing stops it. */
    const char *hwdec_off;
    /** hwdec_off is no news (no GPU driver or device at all): not printed. */
    bool hwdec_off_quiet;
    /** Several sessions: decoded frames held ahead of the reader, per input,
     *  in bytes of samples at most (one segment exceeds it where a GOP does);
     *  0: the default (av_sessions.c). */
    uint64_t ahead_bytes;
    /** Inputs decoded at once on this GPU, sharing its NVDEC engines (a
     *  pair: 2); 0 or 1: this one alone. Sizes the default sessions. */
    unsigned side_by_side;
} VideoDecodeOptions;

/**
 * 1 when files are read through FFmpeg's libraries (video_input_open_decoded):
 * the tool's FFmpeg module (av_module.h) is loaded, at the first call.
 */
int video_input_can_decode(void);

/** Why video_input_can_decode() is 0 ("this exactvmaf was built without ..."). */
const char *video_input_no_decoding(void);

/**
 * The container's bitrate in kbit/s, else one from its duration and `bits`
 * (the file's size in bits): 0 with *source "container" or "size/duration";
 * <0 when neither is known or files cannot be decoded.
 */
int video_input_container_rate(const char *path, double bits, double *kbps,
                               const char **source);

/**
 * Open any file FFmpeg's libraries read (mp4, mkv, webm, ... ; y4m and raw
 * YUV too, for scaling), its first video stream decoded on threads.
 * @return 0, or negative errno after printing why.
 */
int video_input_open_decoded(VideoInput **vi, const char *path, const VideoDecodeOptions *o);

/**
 * The same with `sessions` NVDEC decoders on the input (av_sessions.c): where
 * NVDEC takes the stream, its frames are not scaled or converted and the
 * file can be cut into closed-GOP segments, segments are decoded side by
 * side and handed on in order; otherwise one decoder, as
 * video_input_open_decoded(). `sessions` 0: the GPU's NVDEC engines shared
 * among o->side_by_side inputs, as many as the file's size pays for
 * (av_sessions.c).
 */
int video_input_open_sessions(VideoInput **vi, const char *path, const VideoDecodeOptions *o,
                              unsigned sessions);

/**
 * Restart a decoded input at the keyframe whose timestamps are `pts` and
 * `dts` (the stream's time base; the demuxer seeks by the one it uses), a
 * random-access point: the keyframe's frame is read next, after any frames
 * the decoder still held (those of earlier timestamps, which the caller
 * drops). Only for inputs without a scaler.
 * @return 0 or a negative errno (printed).
 */
int video_input_seek_decoded(VideoInput *vi, int64_t pts, int64_t dts);

/** Presentation time of frame `index` in seconds, or a negative number when unknown. */
double video_input_timestamp(const VideoInput *vi, unsigned index);

/** Record the presentation time of the frame just read (for the readers). */
void video_input_add_timestamp(VideoInput *vi, double seconds);

/* For the readers. */
int video_input_create(VideoInput **vi, const char *path, const VideoInputFormat *fmt);
/** Allocate the row buffer once info is known; checks the frame size. */
int video_input_finish_open(VideoInput *vi);
/** Read exactly n bytes; returns the count read (short at end of file, on
 *  an error, or once cancelled). */
size_t video_input_fread(VideoInput *vi, void *buf, size_t n);
#if defined(__GNUC__)
VMAF_OS_PRINTF(2, 3)
#endif
void video_input_error(const VideoInput *vi, const char *fmt, ...);
/** Read error handling: -EINTR (silently) when the caller is stopping on a
 *  signal, else -EIO after printing what was being read. */
int video_input_read_error(const VideoInput *vi, const char *what);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
