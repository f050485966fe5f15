/*
 * NVDEC through libavcodec's CUDA hwaccel (see av_hwdec.h).
 *
 * NVDEC's surfaces: NV12 (8 bits), P010 or P016 (10 or 12 bits: samples in
 * the top bits of 16, the bottom ones zero), YUV444P and YUV444P16 for
 * 4:4:4. The library takes these as they lie (semi-planar chroma is split,
 * and the samples shifted down, on the GPU), so a frame reaches the metrics
 * without a trip through host memory; the host gets a copy only where it
 * must shift, convert or scale the samples.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/os/os.h"
#include "av_hwdec.h"

/* hwcontext_cuda.h includes <cuda.h> unless CUDA_VERSION is defined; the
 * two handles it names are opaque here (as FFmpeg's own ffnvcodec headers
 * declare them), so the build needs no CUDA toolkit. */
#define CUDA_VERSION 7050
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;

#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>

#include "exactvmaf/exactvmaf.h"

const AVCodec *av_hwdec_codec(enum AVCodecID id, char *why, size_t len)
{
    const AVCodecDescriptor *cd = avcodec_descriptor_get(id);
    const char *name = cd ? cd->name : "this codec";
    /* The standards of these fix every decoded sample; MPEG-1/2, MPEG-4
     * part 2 and JPEG leave the inverse transform to the decoder, so NVDEC's
     * samples may differ from the CPU decoder's (VC-1: not checked). */
    if (id != AV_CODEC_ID_H264 && id != AV_CODEC_ID_HEVC && id != AV_CODEC_ID_VP8 &&
        id != AV_CODEC_ID_VP9 && id != AV_CODEC_ID_AV1) {
        snprintf(why, len, "NVDEC is used for H.264, HEVC, VP8, VP9 and AV1 only, whose "
                 "decoding the standard fixes bit for bit; this is %s", name);
        return NULL;
    }
    /* The decoder FFmpeg prefers may be a CPU-only one (libdav1d for AV1);
     * another of the same codec may have the hwaccel (the native av1).
     * Decoders that are hardware wrappers of their own (h264_cuvid) manage
     * NVDEC's surfaces their own way and are not used. */
    void *it = NULL;
    for (const AVCodec *c; (c = av_codec_iterate(&it));) {
        if (c->id != id || !av_codec_is_decoder(c) || (c->capabilities & AV_CODEC_CAP_HARDWARE))
            continue;
        for (int i = 0;; i++) {
            const AVCodecHWConfig *hc = avcodec_get_hw_config(c, i);
            if (!hc) break;
            if (hc->device_type == AV_HWDEVICE_TYPE_CUDA && hc->pix_fmt == AV_PIX_FMT_CUDA &&
                (hc->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
                return c;
        }
    }
    snprintf(why, len, "NVDEC does not take %s: this FFmpeg has no CUDA hwaccel for it", name);
    return NULL;
}

/*
 * One CUDA device for every decoder of the process (the first one asked
 * for; another GPU gets a device of its own), made once: the first making
 * starts the driver, a quarter of a second that av_hwdec_warm() moves onto
 * a thread of its own while the files' headers are read.
 */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static AVBufferRef *shared_device;
static int shared_gpu = -1;

static int make_device(AVBufferRef **dev, int gpu)
{
    char index[16];
    snprintf(index, sizeof(index), "%d", gpu);
    AVDictionary *opts = NULL;
    /* The device's primary context: the one the library computes in, so that
     * decoder and metrics share the device's memory without a context switch. */
    int err = av_dict_set(&opts, "primary_ctx", "1", 0);
    if (err >= 0) err = av_hwdevice_ctx_create(dev, AV_HWDEVICE_TYPE_CUDA, index, opts, 0);
    av_dict_free(&opts);
    return err;
}

static int get_device(AVBufferRef **dev, int gpu)
{
    pthread_mutex_lock(&shared_lock);
    int err = 0;
    if (!shared_device && (shared_gpu < 0 || shared_gpu == gpu)) {
        shared_gpu = gpu;
        err = make_device(&shared_device, gpu);
    }
    if (shared_device && shared_gpu == gpu) {
        *dev = av_buffer_ref(shared_device);
        if (!*dev) err = AVERROR(ENOMEM);
    } else if (!err) {
        err = make_device(dev, gpu);
    }
    pthread_mutex_unlock(&shared_lock);
    return err;
}

void av_hwdec_warm(int gpu)
{
    AVBufferRef *dev = NULL;
    get_device(&dev, gpu);
    av_buffer_unref(&dev);
}

void av_hwdec_let_go(void)
{
    pthread_mutex_lock(&shared_lock);
    av_buffer_unref(&shared_device);
    shared_gpu = -1;
    pthread_mutex_unlock(&shared_lock);
}

int av_hwdec_open(AvHwdec *h, int gpu, bool required, char *why, size_t len)
{
    memset(h, 0, sizeof(*h));
    h->gpu = gpu;
    h->required = required;
    const int err = get_device(&h->device, gpu);
    if (err >= 0) return 0;
    /* FFmpeg's code says little ("unknown error"); the library's probe says why. */
    char line[256] = "";
    const int probe = exactvmaf_device_describe(EXACTVMAF_BACKEND_CUDA, (unsigned)gpu, line,
                                                sizeof(line));
    if (probe == -ENODEV) {
        snprintf(why, len, "no CUDA device: %s", line);
    } else if (probe == -ENOENT) {
        snprintf(why, len, "there is no CUDA device %d", gpu);
    } else {
        char e[128];
        av_strerror(err, e, sizeof(e));
        snprintf(why, len, "CUDA device %d cannot be opened for decoding: %s", gpu, e);
    }
    return err == AVERROR(ENOMEM) ? -ENOMEM : -ENODEV;
}

/*
 * The decoder's choice of frames, made when it knows the stream's format
 * (and again when that changes). CUDA frames when offered. NVDEC refuses
 * some streams only here: the codec's list then lacks CUDA (H.264 High 10),
 * or FFmpeg could not set NVDEC up for the CUDA frames chosen and asks again
 * without them. Then a software format, or none with --hwdec cuda (the
 * decoding fails, and the reader says why).
 */
static enum AVPixelFormat get_format(AVCodecContext *dec, const enum AVPixelFormat *fmts)
{
    AvHwdec *h = dec->opaque;
    for (const enum AVPixelFormat *p = fmts; *p != AV_PIX_FMT_NONE; p++) {
        if (*p != AV_PIX_FMT_CUDA) continue;
        h->offered = true;
        return AV_PIX_FMT_CUDA;
    }
    const char *profile = avcodec_profile_name(dec->codec_id, dec->profile);
    const char *sw = av_get_pix_fmt_name(dec->sw_pix_fmt);
    snprintf(h->why, sizeof(h->why), "NVDEC %s %s%s%s, %s, %dx%d",
             h->offered ? "could not be set up for" : "does not take", dec->codec->name,
             profile ? " " : "", profile ? profile : "", sw ? sw : "unknown format",
             dec->width, dec->height);
    h->refused = true;
    if (h->required) return AV_PIX_FMT_NONE;
    return avcodec_default_get_format(dec, fmts);
}

/*
 * cuvidGetDecoderCaps() of NVIDIA's video decoder library, which FFmpeg has
 * loaded for its decoders: its caps structure as the driver's API fixes it.
 */
typedef struct DecoderCaps {
    int codec, chroma;                  /* in: cudaVideoCodec, cudaVideoChromaFormat */
    unsigned depth_minus_8, reserved1[3];
    unsigned char supported, engines;   /* out: bIsSupported, nNumNVDECs */
    unsigned short output_formats;
    unsigned max_w, max_h, max_mb;
    unsigned short min_w, min_h;
    unsigned char histogram, counter_bits;
    unsigned short histogram_bins;
    unsigned reserved3[10];
} DecoderCaps;

unsigned av_hwdec_engines(const AvHwdec *h, enum AVCodecID id, unsigned bpc,
                          enum VmafPixelFormat layout)
{
    /* cudaVideoCodec's numbers */
    const int codec = id == AV_CODEC_ID_MPEG1VIDEO ? 0 : id == AV_CODEC_ID_MPEG2VIDEO ? 1 :
                      id == AV_CODEC_ID_MPEG4 ? 2 : id == AV_CODEC_ID_VC1 ? 3 :
                      id == AV_CODEC_ID_H264 ? 4 : id == AV_CODEC_ID_HEVC ? 8 :
                      id == AV_CODEC_ID_VP8 ? 9 : id == AV_CODEC_ID_VP9 ? 10 :
                      id == AV_CODEC_ID_AV1 ? 11 : -1;
    if (codec < 0 || !h->device) return 0;
    /* Both libraries are in the process already (FFmpeg opened them): these
     * calls take references to them, dropped below. */
    void *cu = vmaf_os_dlopen(VMAF_OS_CUDA_LIB, NULL, 0);
    void *cv = vmaf_os_dlopen(VMAF_OS_NVCUVID_LIB, NULL, 0);
    int (*push)(CUcontext) = cu ? (int (*)(CUcontext))vmaf_os_dlsym(cu, "cuCtxPushCurrent_v2")
                                : NULL;
    int (*pop)(CUcontext *) = cu ? (int (*)(CUcontext *))vmaf_os_dlsym(cu, "cuCtxPopCurrent_v2")
                                 : NULL;
    int (*caps)(DecoderCaps *) = cv ? (int (*)(DecoderCaps *))vmaf_os_dlsym(cv,
                                          "cuvidGetDecoderCaps") : NULL;
    unsigned engines = 0;
    const AVCUDADeviceContext *hw = ((const AVHWDeviceContext *)h->device->data)->hwctx;
    if (push && pop && caps && !push(hw->cuda_ctx)) {
        DecoderCaps c = {
            .codec = codec,
            .chroma = layout == VMAF_PIX_FMT_YUV400P ? 0 : layout == VMAF_PIX_FMT_YUV420P ? 1 :
                      layout == VMAF_PIX_FMT_YUV422P ? 2 : 3,
            .depth_minus_8 = bpc > 8 ? bpc - 8 : 0,
        };
        if (!caps(&c) && c.supported) engines = c.engines;
        CUcontext prev;
        pop(&prev);
    }
    vmaf_os_dlclose(cv);
    vmaf_os_dlclose(cu);
    return engines;
}

int av_hwdec_attach(AvHwdec *h, AVCodecContext *dec)
{
    dec->hw_device_ctx = av_buffer_ref(h->device);
    if (!dec->hw_device_ctx) return -ENOMEM;
    dec->opaque = h;
    dec->get_format = get_format;
    /* The GPU decodes: more CPU threads only parse ahead, and each frame
     * thread costs NVDEC a surface of the 32 it has. But a decoder of one
     * thread has one picture on its engine at a time (FFmpeg maps each
     * surface as its frame comes out), which may leave the engine idle
     * between pictures: EXACTVMAF_NVDEC_THREADS=N (1 to 8) gives each
     * decoder N frame threads, N pictures in flight, for measuring that
     * against more sessions (bench/decode_profile.py --env). */
    const char *env = getenv("EXACTVMAF_NVDEC_THREADS");
    const long threads = env && *env ? strtol(env, NULL, 10) : 1;
    dec->thread_count = threads >= 1 && threads <= 8 ? (int)threads : 1;
    if (dec->thread_count > 1) dec->thread_type = FF_THREAD_FRAME;
    return 0;
}

void av_hwdec_close(AvHwdec *h)
{
    /* Frames still held (by the library, until it lets them go) keep their
     * own references to the device and their pool. */
    av_buffer_unref(&h->frames);
    av_buffer_unref(&h->device);
}

/*
 * How a surface format lies, for a stream of `layout` and `bpc`: 1- or
 * 2-byte words (the stream's), chroma in planes 1 and 2 or interleaved in
 * plane 1, samples of 9 to 16 bits in the top of their 16 (NVDEC's P010,
 * P016, YUV444P16; the bits below are zero). 0: not such a format.
 */
typedef struct SurfaceLayout {
    bool semi_planar;
    unsigned bytes, shift;
} SurfaceLayout;

static int surface_layout(enum AVPixelFormat f, enum VmafPixelFormat layout, unsigned bpc,
                          SurfaceLayout *s)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    if (!d || (d->flags & (AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL |
                           AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL |
                           AV_PIX_FMT_FLAG_ALPHA | AV_PIX_FMT_FLAG_FLOAT)))
        return 0;
    /* Monochrome video on a surface with chroma: its luma alone. */
    const int n = layout == VMAF_PIX_FMT_YUV400P ? 1 : 3;
    if (d->nb_components < n) return 0;
    const int cw = layout == VMAF_PIX_FMT_YUV444P ? 0 : 1;
    const int ch = layout == VMAF_PIX_FMT_YUV420P ? 1 : 0;
    if (n == 3 && (d->nb_components != 3 || d->log2_chroma_w != cw || d->log2_chroma_h != ch))
        return 0;
    s->bytes = bpc > 8 ? 2 : 1;
    s->semi_planar = n == 3 && d->comp[1].plane == 1 && d->comp[2].plane == 1;
    const int step = (int)(s->semi_planar ? 2 * s->bytes : s->bytes);
    for (int c = 0; c < n; c++) {
        const int plane = s->semi_planar && c ? 1 : c;
        const int offset = s->semi_planar && c == 2 ? (int)s->bytes : 0;
        const unsigned depth = (unsigned)d->comp[c].depth;
        if (d->comp[c].plane != plane || d->comp[c].step != (c ? step : (int)s->bytes) ||
            d->comp[c].offset != offset || depth < bpc ||
            depth + (unsigned)d->comp[c].shift != 8 * s->bytes)
            return 0;
    }
    s->shift = 8 * s->bytes - bpc;
    return 1;
}

static void release_frame(void *opaque)
{
    AVFrame *f = opaque;
    av_frame_free(&f);
}

/* A reference to f's samples that may be held as long as the library likes. */
static int keep_frame(AvHwdec *h, const AVFrame *f, AVFrame **out)
{
#ifdef AV_HWACCEL_FLAG_UNSAFE_OUTPUT
    /* FFmpeg 6.0 on copies each frame out of NVDEC's surfaces (unless told
     * it may hand them out): a reference is enough. */
    (void)h;
    *out = av_frame_clone(f);
    return *out ? 0 : AVERROR(ENOMEM);
#else
    /* Before 6.0 the frame is NVDEC's surface itself, of which the decoder
     * has only its reference frames and two more: holding the frames in
     * flight would stop it. Copied on the GPU (on the device's stream, which
     * the library waits for) into a pool that grows as needed. */
    const AVHWFramesContext *fc = (const AVHWFramesContext *)f->hw_frames_ctx->data;
    const AVHWFramesContext *mine = h->frames ? (const AVHWFramesContext *)h->frames->data : NULL;
    int err = 0;
    if (!mine || mine->sw_format != fc->sw_format || mine->width != fc->width ||
        mine->height != fc->height) {
        av_buffer_unref(&h->frames);
        h->frames = av_hwframe_ctx_alloc(fc->device_ref);
        if (!h->frames) return AVERROR(ENOMEM);
        AVHWFramesContext *c = (AVHWFramesContext *)h->frames->data;
        c->format = AV_PIX_FMT_CUDA;
        c->sw_format = fc->sw_format;
        c->width = fc->width;
        c->height = fc->height;
        err = av_hwframe_ctx_init(h->frames);
        if (err < 0) {
            av_buffer_unref(&h->frames);
            return err;
        }
    }
    AVFrame *copy = av_frame_alloc();
    if (!copy) return AVERROR(ENOMEM);
    err = av_hwframe_get_buffer(h->frames, copy, 0);
    if (err >= 0) {
        copy->width = f->width;
        copy->height = f->height;
        err = av_hwframe_transfer_data(copy, f, 0);
    }
    if (err < 0) {
        av_frame_free(&copy);
        return err;
    }
    *out = copy;
    return 0;
#endif
}

int av_hwdec_wrap(AvHwdec *h, VmafPicture *pic, const AVFrame *f, enum VmafPixelFormat layout,
                  unsigned bpc)
{
    const AVHWFramesContext *fc = (const AVHWFramesContext *)f->hw_frames_ctx->data;
    SurfaceLayout s;
    /* Cropping at the top or left moves the planes' starts by amounts the
     * chroma may not follow; the host applies it (av_hwdec_download). */
    if (f->crop_left || f->crop_top || !surface_layout(fc->sw_format, layout, bpc, &s))
        return -ENOTSUP;
    AVFrame *keep = NULL;
    int err = keep_frame(h, f, &keep);
    if (err < 0) return err == AVERROR(ENOMEM) ? -ENOMEM : -EIO;
    const AVHWFramesContext *kc = (const AVHWFramesContext *)keep->hw_frames_ctx->data;
    const AVCUDADeviceContext *cu = kc->device_ctx->hwctx;
    ExactvmafCudaFrame cf = {
        .pix_fmt = layout,
        .bpc = bpc,
        .w = (unsigned)keep->width,
        .h = (unsigned)keep->height,
        .semi_planar = s.semi_planar,
        .shift = s.shift,
        /* The writes of the samples (NVDEC's, or the copy above) were queued
         * on the device's stream: the library's reads wait for it. */
        .cu_stream = cu->stream,
        .release = release_frame,
        .opaque = keep,
    };
    const unsigned planes = layout == VMAF_PIX_FMT_YUV400P ? 1 : s.semi_planar ? 2 : 3;
    for (unsigned p = 0; p < planes; p++) {
        cf.data[p] = (unsigned long long)(uintptr_t)keep->data[p];
        cf.pitch[p] = (size_t)keep->linesize[p];
    }
    err = exactvmaf_cuda_picture_wrap(pic, &cf);
    if (err) av_frame_free(&keep);    /* not taken over */
    return err;
}

int av_hwdec_download(AVFrame *dst, AVFrame *tmp, const AVFrame *f, enum AVPixelFormat fmt,
                      unsigned bpc)
{
    av_frame_unref(dst);
    av_frame_unref(tmp);
    const AVHWFramesContext *fc = (const AVHWFramesContext *)f->hw_frames_ctx->data;
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);
    if (!d) return AVERROR(EINVAL);
    const enum VmafPixelFormat layout =
        d->nb_components < 3 ? VMAF_PIX_FMT_YUV400P :
        d->log2_chroma_w == 0 ? VMAF_PIX_FMT_YUV444P :
        d->log2_chroma_h == 0 ? VMAF_PIX_FMT_YUV422P : VMAF_PIX_FMT_YUV420P;
    SurfaceLayout s;
    if (!surface_layout(fc->sw_format, layout, bpc, &s)) return AVERROR(ENOSYS);
    int err = av_hwframe_transfer_data(tmp, f, 0);
    if (err < 0) return err;
    dst->format = fmt;
    dst->width = tmp->width;
    dst->height = tmp->height;
    err = av_frame_get_buffer(dst, 0);
    if (err >= 0) err = av_frame_copy_props(dst, f);
    if (err < 0) {
        av_frame_unref(tmp);
        return err;
    }
    for (unsigned p = 0; p < (layout == VMAF_PIX_FMT_YUV400P ? 1u : 3u); p++) {
        const unsigned w = p ? (unsigned)AV_CEIL_RSHIFT(dst->width, d->log2_chroma_w) :
                               (unsigned)dst->width;
        const unsigned h = p ? (unsigned)AV_CEIL_RSHIFT(dst->height, d->log2_chroma_h) :
                               (unsigned)dst->height;
        const unsigned q = s.semi_planar && p ? 1 : p, step = s.semi_planar && p ? 2 : 1;
        const unsigned k = s.semi_planar && p == 2 ? 1 : 0;
        for (unsigned y = 0; y < h; y++) {
            const uint8_t *src = tmp->data[q] + (ptrdiff_t)y * tmp->linesize[q];
            uint8_t *out = dst->data[p] + (ptrdiff_t)y * dst->linesize[p];
            if (s.bytes == 1) {
                for (unsigned x = 0; x < w; x++) out[x] = src[x * step + k];
            } else {
                const uint16_t *in = (const uint16_t *)src;
                for (unsigned x = 0; x < w; x++)
                    ((uint16_t *)out)[x] = (uint16_t)(in[x * step + k] >> s.shift);
            }
        }
    }
    av_frame_unref(tmp);
    /* The CPU decoder crops by moving the planes' starts; the surface keeps
     * what NVDEC wrote, cropped here exactly. */
    if (dst->crop_left || dst->crop_top || dst->crop_right || dst->crop_bottom)
        err = av_frame_apply_cropping(dst, AV_FRAME_CROP_UNALIGNED);
    return err < 0 ? err : 0;
}
