/*
 * The reader of everything FFmpeg's libraries read: containers (mp4, mkv,
 * mov, webm, ivf, ...) and codecs (H.264, HEVC, AV1, VP9, ProRes, FFV1,
 * ...), and y4m or raw YUV when they must be scaled. The first video stream
 * is decoded on the decoder's own threads (the CLI's reader thread runs it
 * ahead of the computation).
 *
 * Samples are not changed on the way: planar YUV of 8 to 16 bits (4:2:0,
 * 4:2:2, 4:4:4, gray) is copied as decoded. Other pixel formats are refused,
 * naming the format, unless conversion is asked for; then, and for scaling,
 * a libavfilter graph does it with FFmpeg's bicubic scaler (`scale=W:H:
 * flags=bicubic`, what `ffmpeg -vf` runs), so that the pictures equal what
 * the ffmpeg tool makes of the same file.
 *
 * A stream that cannot be read or decoded (damaged, truncated) is an error
 * naming the file and the frame; decoders are asked to report damage rather
 * than conceal it.
 *
 * With --hwdec, compressed video is decoded by NVDEC (libavcodec's CUDA
 * hwaccel, av_hwdec.c) where it takes the stream: its frames stay on the GPU
 * and reach the library as device pictures, unless they must be shifted,
 * converted or scaled, for which they are brought to the host as the CPU
 * decoder gives them. The first frame is decoded at open, so that a stream
 * NVDEC refuses is known before anything is computed. Should NVDEC fail
 * later (auto), the file is opened again with the CPU decoder, which decodes
 * and drops the frames NVDEC gave and carries on: the codecs NVDEC is used
 * for decode bit for bit the same on both.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "av_module.h"
#include "video_input.h"
#include "../src/trace.h"

#include <libavcodec/avcodec.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>

#include "av_hwdec.h"

typedef struct AvInput {
    VideoDecodeOptions o;       /* as opened (a takeover by the CPU opens the file again) */
    AVFormatContext *fmt;
    AVCodecContext *dec;
    const AVCodec *codec;       /* FFmpeg's choice for the stream: the CPU decoder */
    int stream;
    AVPacket *pkt;
    AVFrame *frame, *out;
    AVFrame *host, *tmp;        /* an NVDEC frame brought to the host, and its download */
    AVFilterGraph *graph;       /* scaling or conversion; NULL: frames as decoded */
    AVFilterContext *src, *sink;
    bool demux_done, dec_done, graph_done;
    bool primed;                /* `frame` holds the first frame, decoded at open */
    int64_t expected;           /* frames the container says it holds; 0: unknown */
    enum AVPixelFormat sw_fmt;  /* of the CPU decoder's frames */
    unsigned sw_bpc;            /* its depth */
    enum AVPixelFormat pix_fmt; /* of the pictures */
    AVRational time_base;
    AvHwdec hw;                 /* NVDEC; hw.device NULL: the CPU decodes */
    /* NVDEC's decoder and device once the CPU took over, freed at close:
     * freeing CUDA memory synchronizes the device, which would break the
     * library's CUDA graph captures under way on its own threads. */
    AVCodecContext *retired_dec;
    AvHwdec retired_hw;
    uint64_t decoded;           /* frames out of the decoder so far */
    int64_t fed_pts;            /* the latest timestamp of a packet the decoder took */
    /* EXACTVMAF_NVDEC_FAIL_AT=N: NVDEC "fails" at frame N, for testing the
     * takeover by the CPU (and --hwdec cuda's error) on any stream; -1: no. */
    long long fail_at;
    /* EXACTVMAF_TRACE=1: seconds spent demuxing, sending packets, receiving frames. */
    double t_demux, t_send, t_receive;
} AvInput;

/* Planar YUV the pictures take as they are: the format, its layout, its depth. */
static int planar_yuv(enum AVPixelFormat f, enum VmafPixelFormat *layout, unsigned *bpc)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    if (!d || (d->flags & (AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL |
                           AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL |
                           AV_PIX_FMT_FLAG_ALPHA | AV_PIX_FMT_FLAG_FLOAT | AV_PIX_FMT_FLAG_BAYER)))
        return 0;
    if (!(d->flags & AV_PIX_FMT_FLAG_PLANAR) && d->nb_components > 1) return 0;
    const unsigned depth = d->comp[0].depth;
    if (depth < 8 || depth > 16) return 0;
    /* One sample per component, each in its own plane, packed to 1 or 2 bytes. */
    for (int c = 0; c < d->nb_components; c++)
        if (d->comp[c].plane != c || d->comp[c].shift || d->comp[c].offset ||
            (unsigned)d->comp[c].depth != depth || d->comp[c].step != (depth > 8 ? 2 : 1))
            return 0;
    if (d->nb_components == 1) {
        *layout = VMAF_PIX_FMT_YUV400P;
    } else if (d->nb_components == 3 && d->log2_chroma_w == 1 && d->log2_chroma_h == 1) {
        *layout = VMAF_PIX_FMT_YUV420P;
    } else if (d->nb_components == 3 && d->log2_chroma_w == 1 && d->log2_chroma_h == 0) {
        *layout = VMAF_PIX_FMT_YUV422P;
    } else if (d->nb_components == 3 && d->log2_chroma_w == 0 && d->log2_chroma_h == 0) {
        *layout = VMAF_PIX_FMT_YUV444P;
    } else {
        return 0;
    }
    *bpc = depth;
    return 1;
}

/* The planar YUV format a conversion makes of f: its chroma layout (4:4:4
 * for RGB and layouts the pictures lack), its depth (8, 10, 12 or 16). */
static enum AVPixelFormat convert_target(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    const int depth = d ? d->comp[0].depth : 8;
    const int gray = d && d->nb_components <= 2 && !(d->flags & AV_PIX_FMT_FLAG_RGB);
    const int cw = d && !(d->flags & AV_PIX_FMT_FLAG_RGB) ? d->log2_chroma_w : 0;
    const int ch = d && !(d->flags & AV_PIX_FMT_FLAG_RGB) ? d->log2_chroma_h : 0;
    const int layout = gray ? 0 : cw == 1 && ch == 1 ? 420 : cw == 1 && ch == 0 ? 422 : 444;
    static const struct { int layout, depth; enum AVPixelFormat f; } table[] = {
        { 0, 8, AV_PIX_FMT_GRAY8 }, { 0, 10, AV_PIX_FMT_GRAY10LE },
        { 0, 12, AV_PIX_FMT_GRAY12LE }, { 0, 16, AV_PIX_FMT_GRAY16LE },
        { 420, 8, AV_PIX_FMT_YUV420P }, { 420, 10, AV_PIX_FMT_YUV420P10LE },
        { 420, 12, AV_PIX_FMT_YUV420P12LE }, { 420, 16, AV_PIX_FMT_YUV420P16LE },
        { 422, 8, AV_PIX_FMT_YUV422P }, { 422, 10, AV_PIX_FMT_YUV422P10LE },
        { 422, 12, AV_PIX_FMT_YUV422P12LE }, { 422, 16, AV_PIX_FMT_YUV422P16LE },
        { 444, 8, AV_PIX_FMT_YUV444P }, { 444, 10, AV_PIX_FMT_YUV444P10LE },
        { 444, 12, AV_PIX_FMT_YUV444P12LE }, { 444, 16, AV_PIX_FMT_YUV444P16LE },
    };
    const int want = depth <= 8 ? 8 : depth <= 10 ? 10 : depth <= 12 ? 12 : 16;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (table[i].layout == layout && table[i].depth == want) return table[i].f;
    return AV_PIX_FMT_YUV444P;
}

static const char *av_err(int err, char *buf, size_t len)
{
    av_strerror(err, buf, len);
    return buf;
}

static void av_close(VideoInput *vi)
{
    AvInput *a = vi->priv;
    if (!a) return;
    ev_trace("%s: %llu frames decoded; %.3f s demuxing, %.3f s sending packets, %.3f s "
             "receiving frames", vi->path, (unsigned long long)a->decoded, a->t_demux,
             a->t_send, a->t_receive);
    avfilter_graph_free(&a->graph);
    av_frame_free(&a->frame);
    av_frame_free(&a->out);
    av_frame_free(&a->host);
    av_frame_free(&a->tmp);
    av_packet_free(&a->pkt);
    avcodec_free_context(&a->dec);
    avformat_close_input(&a->fmt);
    av_hwdec_close(&a->hw);
    avcodec_free_context(&a->retired_dec);
    av_hwdec_close(&a->retired_hw);
    free(a);
    vi->priv = NULL;
}

/* A graph `args` from the decoder's frames to pictures of a->pix_fmt. */
static int make_graph(VideoInput *vi, AvInput *a, const char *chain)
{
    char buf[512], e[128];
    const AVCodecContext *d = a->dec;
    const AVRational sar = d->sample_aspect_ratio.num ? d->sample_aspect_ratio :
                           (AVRational){ 1, 1 };
    /* The CPU decoder's format: NVDEC's frames are brought to it first, so
     * that the scaler sees the same samples from either decoder. */
    snprintf(buf, sizeof(buf), "video_size=%dx%d:pix_fmt=%d:time_base=%d/%d:pixel_aspect=%d/%d",
             d->width, d->height, a->sw_fmt, a->time_base.num, a->time_base.den, sar.num,
             sar.den);
    AVFilterInOut *in = avfilter_inout_alloc(), *out = avfilter_inout_alloc();
    a->graph = avfilter_graph_alloc();
    /* Slice threads, one per core and one more (libavfilter's default when
     * nb_threads is 0): the scale filter hands them to libswscale, which
     * scales slices of a frame at once. The result does not depend on their
     * number (the same frames scaled on 2 and on 16 cores are equal). */
    if (a->graph) a->graph->nb_threads = 0;
    /* libav's calls return >= 0 on success. */
    int err = in && out && a->graph ? 0 : AVERROR(ENOMEM);
    if (err >= 0)
        err = avfilter_graph_create_filter(&a->src, avfilter_get_by_name("buffer"), "in", buf,
                                           NULL, a->graph);
    if (err >= 0)
        err = avfilter_graph_create_filter(&a->sink, avfilter_get_by_name("buffersink"), "out",
                                           NULL, NULL, a->graph);
    const enum AVPixelFormat fmts[] = { a->pix_fmt, AV_PIX_FMT_NONE };
    if (err >= 0)
        err = av_opt_set_int_list(a->sink, "pix_fmts", fmts, AV_PIX_FMT_NONE,
                                  AV_OPT_SEARCH_CHILDREN);
    if (err >= 0) {
        out->name = av_strdup("in");
        out->filter_ctx = a->src;
        in->name = av_strdup("out");
        in->filter_ctx = a->sink;
        err = avfilter_graph_parse_ptr(a->graph, chain, &in, &out, NULL);
    }
    if (err >= 0) err = avfilter_graph_config(a->graph, NULL);
    if (err > 0) err = 0;
    avfilter_inout_free(&in);
    avfilter_inout_free(&out);
    if (err)
        video_input_error(vi, "cannot set up \"%s\": %s", chain, av_err(err, e, sizeof(e)));
    return err ? -EINVAL : 0;
}

/* The demuxer and decoder for raw YUV: rawvideo with the given geometry. */
static const char *raw_pix_fmt(const VideoDecodeOptions *o)
{
    static const char *const names[4][3] = {
        { "yuv420p", "yuv420p10le", "yuv420p16le" }, { "yuv422p", "yuv422p10le", "yuv422p16le" },
        { "yuv444p", "yuv444p10le", "yuv444p16le" }, { "gray", "gray10le", "gray16le" } };
    const int l = o->raw_pix_fmt == VMAF_PIX_FMT_YUV422P ? 1 :
                  o->raw_pix_fmt == VMAF_PIX_FMT_YUV444P ? 2 :
                  o->raw_pix_fmt == VMAF_PIX_FMT_YUV400P ? 3 : 0;
    switch (o->raw_bpc) {
    case 8: return names[l][0];
    case 10: return names[l][1];
    case 16: return names[l][2];
    case 12:
        return l == 0 ? "yuv420p12le" : l == 1 ? "yuv422p12le" : l == 2 ? "yuv444p12le" : "gray12le";
    default: return NULL;
    }
}

static int av_read(VideoInput *vi, VmafPicture *pic, unsigned out_bpc);

static const VideoInputFormat av_format = {
    .name = "decoded",
    .read = av_read,
    .close = av_close,
};

static pthread_t warm_thread;
static bool warming;

static void *warm_main(void *arg)
{
    av_hwdec_warm((int)(intptr_t)arg);
    ev_trace("NVDEC's CUDA device made");
    return NULL;
}

static void warm_gpu(int gpu)
{
    if (warming) return;
    av_log_set_level(AV_LOG_QUIET);
    warming = !video_input_start_thread(&warm_thread, warm_main, (void *)(intptr_t)gpu);
}

static void warm_end(void)
{
    if (warming) pthread_join(warm_thread, NULL);
    warming = false;
    av_hwdec_let_go();
}

/* The file's demuxer and its first video stream (again, for a takeover). */
static int open_demuxer(VideoInput *vi, AvInput *a)
{
    char e[128];
    a->fed_pts = INT64_MIN;
    AVDictionary *dopts = NULL;
    const AVInputFormat *ifmt = NULL;
    if (a->o.raw) {
        const char *pf = raw_pix_fmt(&a->o);
        if (!pf) {
            video_input_error(vi, "raw YUV of %u bits cannot be decoded for scaling",
                              a->o.raw_bpc);
            return -EINVAL;
        }
        char size[32];
        snprintf(size, sizeof(size), "%ux%u", a->o.raw_w, a->o.raw_h);
        av_dict_set(&dopts, "video_size", size, 0);
        av_dict_set(&dopts, "pixel_format", pf, 0);
        ifmt = av_find_input_format("rawvideo");
    }
    int err = avformat_open_input(&a->fmt, vi->is_stdin ? "pipe:0" : vi->path, ifmt, &dopts);
    av_dict_free(&dopts);
    if (err < 0) {
        video_input_error(vi, "cannot be read as a video: %s", av_err(err, e, sizeof(e)));
        return -EINVAL;
    }
    err = avformat_find_stream_info(a->fmt, NULL);
    if (err < 0) {
        video_input_error(vi, "cannot find its streams: %s", av_err(err, e, sizeof(e)));
        return -EINVAL;
    }
    ev_trace("%s: streams found", vi->path);
    a->stream = av_find_best_stream(a->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &a->codec, 0);
    if (a->stream < 0) {
        video_input_error(vi, "%s", a->stream == AVERROR_DECODER_NOT_FOUND ?
                          "has no video stream this build can decode" :
                          "has no video stream (audio or data only?)");
        return -EINVAL;
    }
    const AVStream *st = a->fmt->streams[a->stream];
    a->time_base = st->time_base;
    a->expected = st->nb_frames > 0 ? st->nb_frames : 0;
    return 0;
}

/* The stream's decoder: `codec`, on NVDEC (a->hw) when `hw`. 0 or an AVERROR. */
static int open_decoder(AvInput *a, const AVCodec *codec, bool hw)
{
    const AVStream *st = a->fmt->streams[a->stream];
    avcodec_free_context(&a->dec);
    a->dec = avcodec_alloc_context3(codec);
    if (!a->dec) return AVERROR(ENOMEM);
    int err = avcodec_parameters_to_context(a->dec, st->codecpar);
    if (err >= 0) {
        a->dec->thread_count = 0;       /* as many as the decoder likes */
        /* Damage is an error, not something to conceal. */
        a->dec->err_recognition |= AV_EF_EXPLODE | AV_EF_CRCCHECK | AV_EF_BITSTREAM;
        a->dec->pkt_timebase = st->time_base;
        if (hw) err = av_hwdec_attach(&a->hw, a->dec);
    }
    if (err >= 0) err = avcodec_open2(a->dec, codec, NULL);
    return err < 0 ? err : 0;
}

/*
 * --hwdec: open the stream's decoder on NVDEC or the CPU. Video that is not
 * compressed (y4m, raw YUV, rawvideo) is read, not decoded: the CPU, quietly.
 * Otherwise auto says why when it is not NVDEC (one line), and cuda fails.
 */
static int open_stream_decoder(VideoInput *vi, AvInput *a, const VideoDecodeOptions *o)
{
    char e[128], why[256] = "";
    const AVCodecParameters *par = a->fmt->streams[a->stream]->codecpar;
    const AVCodec *hw = NULL;
    const bool decoded = o->hwdec != VIDEO_HWDEC_NONE && !o->raw &&
                         par->codec_id != AV_CODEC_ID_RAWVIDEO;
    if (decoded && o->hwdec == VIDEO_HWDEC_AUTO && o->hwdec_off)
        snprintf(why, sizeof(why), "%s", o->hwdec_off);
    else if (decoded && (hw = av_hwdec_codec(par->codec_id, why, sizeof(why))) &&
             av_hwdec_open(&a->hw, o->gpu, o->hwdec == VIDEO_HWDEC_CUDA, why, sizeof(why)))
        hw = NULL;
    if (hw) ev_trace("%s: NVDEC's CUDA device open", vi->path);
    int err = hw ? open_decoder(a, hw, true) : 0;
    if (hw) ev_trace("%s: NVDEC decoder open", vi->path);
    if (hw && err < 0) {
        snprintf(why, sizeof(why), "its NVDEC decoder (%s) cannot be opened: %s", hw->name,
                 av_err(err, e, sizeof(e)));
        av_hwdec_close(&a->hw);
        hw = NULL;
    }
    if (decoded && !hw) {
        if (o->hwdec == VIDEO_HWDEC_CUDA) {
            video_input_error(vi, "cannot be decoded with NVDEC (--hwdec cuda): %s", why);
            return -EINVAL;
        }
        if (!o->hwdec_off || !o->hwdec_off_quiet)
            video_input_error(vi, "decoding on the CPU (%s)", why);
    }
    if (hw) {
        snprintf(vi->info.decoder, sizeof(vi->info.decoder), "NVDEC on GPU %d", o->gpu);
        const char *fail = getenv("EXACTVMAF_NVDEC_FAIL_AT");
        a->fail_at = fail && *fail ? strtoll(fail, NULL, 10) : -1;
        return 0;
    }
    if (decoded) snprintf(vi->info.decoder, sizeof(vi->info.decoder), "the CPU");
    err = open_decoder(a, a->codec, false);
    if (err < 0) {
        video_input_error(vi, "cannot open its %s decoder: %s", a->codec->name,
                          av_err(err, e, sizeof(e)));
        return -EINVAL;
    }
    return 0;
}

static int decode_next(VideoInput *vi, AvInput *a);

/*
 * NVDEC could not give frame a->decoded (`why`): the CPU decoder takes its
 * place. The file is opened again and the frames NVDEC gave are decoded and
 * dropped; the codecs NVDEC decodes are decoded bit for bit the same by
 * both, so the frames that follow are those NVDEC would have given.
 */
static int cpu_takes_over(VideoInput *vi, AvInput *a, const char *why)
{
    char e[128];
    const uint64_t from = a->decoded;
    const int gpu = a->hw.gpu;
    if (vi->is_stdin) {
        video_input_error(vi, "NVDEC stopped at frame %llu (%s), and standard input cannot be "
                          "read again for the CPU decoder: give a file, or --hwdec none",
                          (unsigned long long)from, why);
        return -EINVAL;
    }
    if (from)
        video_input_error(vi, "decoding on the CPU from frame %llu on (%s)",
                          (unsigned long long)from, why);
    else
        video_input_error(vi, "decoding on the CPU (%s)", why);
    av_frame_unref(a->frame);
    av_packet_unref(a->pkt);
    a->retired_dec = a->dec;
    a->retired_hw = a->hw;
    a->dec = NULL;
    memset(&a->hw, 0, sizeof(a->hw));
    avformat_close_input(&a->fmt);
    a->demux_done = a->dec_done = a->primed = false;
    a->decoded = 0;
    int err = open_demuxer(vi, a);
    if (err) return err;
    err = open_decoder(a, a->codec, false);
    if (err < 0) {
        video_input_error(vi, "cannot open its %s decoder: %s", a->codec->name,
                          av_err(err, e, sizeof(e)));
        return -EINVAL;
    }
    while (a->decoded < from) {
        const int r = decode_next(vi, a);
        if (r < 0) return r;
        if (!r) {
            video_input_error(vi, "the CPU decoder ends after %llu frames, before frame %llu "
                              "where NVDEC stopped", (unsigned long long)a->decoded,
                              (unsigned long long)from);
            return -EINVAL;
        }
        av_frame_unref(a->frame);
    }
    if (from)
        snprintf(vi->info.decoder, sizeof(vi->info.decoder),
                 "NVDEC on GPU %d to frame %llu, then the CPU", gpu,
                 (unsigned long long)from - 1);
    else
        snprintf(vi->info.decoder, sizeof(vi->info.decoder), "the CPU");
    return 0;
}

/* NVDEC failed (err) or refused the stream: the CPU takes over (auto), or
 * the error (cuda). 0 once the CPU decoder is in place. */
static int nvdec_failed(VideoInput *vi, AvInput *a, int err)
{
    char e[128], why[256];
    if (a->hw.refused)
        snprintf(why, sizeof(why), "%s", a->hw.why);
    else
        snprintf(why, sizeof(why), "NVDEC failed: %s", av_err(err, e, sizeof(e)));
    if (!a->hw.required) return cpu_takes_over(vi, a, why);
    video_input_error(vi, "frame %llu cannot be decoded with NVDEC (--hwdec cuda): %s%s",
                      (unsigned long long)a->decoded, why, a->hw.refused ? "" :
                      " (damaged, or beyond NVDEC: --hwdec none decodes it on the CPU)");
    return -EINVAL;
}

/* Decoding error r: NVDEC's goes to nvdec_failed (0: the CPU decoder took
 * over, carry on), the CPU decoder's ends the read, printed. */
static int decode_failed(VideoInput *vi, AvInput *a, int r, const char *note)
{
    char e[128];
    if (a->hw.device) return nvdec_failed(vi, a, r);
    video_input_error(vi, "frame %u cannot be decoded: %s%s", vi->frame_index,
                      av_err(r, e, sizeof(e)), note);
    return -EINVAL;
}

/* The decoder's next frame into a->frame: 1, 0 at the end, <0 error (printed). */
static int decode_next(VideoInput *vi, AvInput *a)
{
    char e[128];
    if (a->primed) {
        a->primed = false;
        return 1;
    }
    for (;;) {
        if (a->dec_done) return 0;
        double t0 = ev_trace_clock();
        int r = avcodec_receive_frame(a->dec, a->frame);
        a->t_receive += ev_trace_clock() - t0;
        if (r >= 0 && a->hw.device && a->frame->format != AV_PIX_FMT_CUDA) {
            /* NVDEC refused the stream (get_format): the CPU decoder, with
             * its threads, rather than this one's single thread. */
            av_frame_unref(a->frame);
            r = nvdec_failed(vi, a, AVERROR(ENOSYS));
            if (r) return r;
            continue;
        }
        if (r >= 0 && a->hw.device && a->fail_at >= 0 && a->decoded == (uint64_t)a->fail_at) {
            av_frame_unref(a->frame);
            r = nvdec_failed(vi, a, AVERROR_EXTERNAL);
            if (r) return r;
            continue;
        }
        if (r >= 0) {
            a->decoded++;
            return 1;
        }
        if (r == AVERROR_EOF) {
            a->dec_done = true;
            return 0;
        }
        if (r != AVERROR(EAGAIN)) {
            r = decode_failed(vi, a, r, " (the stream is damaged)");
            if (r) return r;
            continue;
        }
        /* The decoder wants input; drained already: nothing more will come. */
        if (a->demux_done) return 0;
        t0 = ev_trace_clock();
        r = av_read_frame(a->fmt, a->pkt);
        a->t_demux += ev_trace_clock() - t0;
        if (r == AVERROR_EOF) {
            a->demux_done = true;
            r = avcodec_send_packet(a->dec, NULL);
            if (r < 0 && r != AVERROR_EOF) {
                r = decode_failed(vi, a, r, "");
                if (r) return r;
            }
            continue;
        }
        if (r < 0) {
            video_input_error(vi, "read error at frame %u: %s (damaged or truncated)",
                              vi->frame_index, av_err(r, e, sizeof(e)));
            return -EINVAL;
        }
        if (a->pkt->stream_index == a->stream) {
            if (a->pkt->pts != AV_NOPTS_VALUE && a->pkt->pts > a->fed_pts)
                a->fed_pts = a->pkt->pts;
            t0 = ev_trace_clock();
            r = avcodec_send_packet(a->dec, a->pkt);
            a->t_send += ev_trace_clock() - t0;
            if (r < 0 && r != AVERROR(EAGAIN)) {
                av_packet_unref(a->pkt);
                r = decode_failed(vi, a, r, " (the stream is damaged)");
                if (r) return r;
                continue;
            }
        }
        av_packet_unref(a->pkt);
    }
}

/* NVDEC frame f in host memory as the CPU decoder gives it (a->host). */
static int bring_to_host(VideoInput *vi, AvInput *a, AVFrame *f)
{
    char e[128];
    const int err = av_hwdec_download(a->host, a->tmp, f, a->sw_fmt, a->sw_bpc);
    av_frame_unref(f);
    if (err < 0) {
        video_input_error(vi, "frame %u cannot be brought from the GPU: %s", vi->frame_index,
                          av_err(err, e, sizeof(e)));
        return -EIO;
    }
    return 0;
}

/* The next frame as decoded (and filtered): 1, 0 at the end, <0 error (printed). */
static int next_frame(VideoInput *vi, AvInput *a, AVFrame **got)
{
    char e[128];
    if (!a->graph) {
        const int r = decode_next(vi, a);
        if (r == 1) *got = a->frame;
        return r;
    }
    for (;;) {
        int r = av_buffersink_get_frame(a->sink, a->out);
        if (r >= 0) {
            *got = a->out;
            return 1;
        }
        if (r == AVERROR_EOF) return 0;
        if (r != AVERROR(EAGAIN)) {
            video_input_error(vi, "frame %u cannot be scaled: %s", vi->frame_index,
                              av_err(r, e, sizeof(e)));
            return -EINVAL;
        }
        if (a->graph_done) return 0;
        r = decode_next(vi, a);
        if (r < 0) return r;
        AVFrame *in = r ? a->frame : NULL;
        /* The scaler runs on the CPU: NVDEC's frames go to the host first. */
        if (in && in->format == AV_PIX_FMT_CUDA) {
            r = bring_to_host(vi, a, in);
            if (r) return r;
            in = a->host;
        }
        a->graph_done = !in;
        r = av_buffersrc_add_frame_flags(a->src, in, 0);
        if (in) av_frame_unref(in);
        if (r < 0) {
            if (in)
                video_input_error(vi, "frame %u cannot be scaled: %s", vi->frame_index,
                                  av_err(r, e, sizeof(e)));
            else
                video_input_error(vi, "cannot end the scaler's stream: %s",
                                  av_err(r, e, sizeof(e)));
            return -EINVAL;
        }
    }
}

int avm_open_decoded(VideoInput **out, const char *path, const VideoDecodeOptions *o)
{
    VideoInput *vi = NULL;
    int err = video_input_create(&vi, path, &av_format);
    if (err) return err;
    AvInput *a = calloc(1, sizeof(*a));
    if (!a) {
        err = -ENOMEM;
        goto fail;
    }
    vi->priv = a;
    a->o = *o;
    a->o.hwdec_off = NULL;      /* the caller's: for this call only */
    a->fail_at = -1;
    av_log_set_level(AV_LOG_QUIET);
    a->pkt = av_packet_alloc();
    a->frame = av_frame_alloc();
    a->out = av_frame_alloc();
    a->host = av_frame_alloc();
    a->tmp = av_frame_alloc();
    if (!a->pkt || !a->frame || !a->out || !a->host || !a->tmp) {
        err = -ENOMEM;
        goto fail;
    }
    err = open_demuxer(vi, a);
    if (err) goto fail;
    err = open_stream_decoder(vi, a, o);
    if (err) goto fail;

    const AVStream *st = a->fmt->streams[a->stream];
    /* The stream's format as the CPU decoder gives it; NVDEC's decoder
     * reports its surfaces' (CUDA) once it has chosen them. */
    a->sw_fmt = a->hw.device ? (enum AVPixelFormat)st->codecpar->format : a->dec->pix_fmt;
    VideoInfo *in = &vi->info;
    const char *fmt_name = av_get_pix_fmt_name(a->sw_fmt);
    snprintf(in->format, sizeof(in->format), "%s %s", a->codec->name,
             fmt_name ? fmt_name : "unknown");
    const AVRational fps = st->avg_frame_rate.num ? st->avg_frame_rate : st->r_frame_rate;
    if (fps.num > 0 && fps.den > 0) {
        in->fps_num = (unsigned)fps.num;
        in->fps_den = (unsigned)fps.den;
    }
    a->pix_fmt = a->sw_fmt;
    unsigned bpc;
    enum VmafPixelFormat layout;
    const bool as_is = planar_yuv(a->pix_fmt, &layout, &bpc);
    if (!as_is && !o->convert) {
        video_input_error(vi, "pixel format %s is not planar YUV: --convert converts it to %s "
                          "(with FFmpeg's bicubic scaler)", fmt_name ? fmt_name : "unknown",
                          av_get_pix_fmt_name(convert_target(a->pix_fmt)));
        err = -EINVAL;
        goto fail;
    }
    a->sw_bpc = bpc;
    if (!as_is) {
        a->pix_fmt = convert_target(a->pix_fmt);
        planar_yuv(a->pix_fmt, &layout, &bpc);
    }
    unsigned w = (unsigned)a->dec->width, h = (unsigned)a->dec->height;
    const bool scale = o->scale_w && (o->scale_w != w || o->scale_h != h);
    if (scale || !as_is) {
        char chain[128];
        if (scale)
            snprintf(chain, sizeof(chain), "scale=%u:%u:flags=bicubic", o->scale_w, o->scale_h);
        else
            snprintf(chain, sizeof(chain), "scale=flags=bicubic");
        err = make_graph(vi, a, chain);
        if (err) goto fail;
        if (scale) {
            w = o->scale_w;
            h = o->scale_h;
        }
    }
    in->w = w;
    in->h = h;
    in->pix_fmt = layout;
    in->bpc = bpc;
    err = video_input_finish_open(vi);
    if (err) goto fail;
    if (a->hw.device) {
        /* NVDEC takes or refuses the stream at its first frame: now, before
         * anything is computed (the frame is kept for the first read). */
        const int r = decode_next(vi, a);
        if (r < 0) {
            err = r;
            goto fail;
        }
        a->primed = r == 1;
    }
    *out = vi;
    return 0;
fail:
    video_input_close(&vi);
    return err;
}

unsigned avm_nvdec_engines(const VideoInput *vi)
{
    const AvInput *a = vi->priv;
    if (!a || !a->hw.device || !a->dec) return 0;
    return av_hwdec_engines(&a->hw, a->dec->codec_id, vi->info.bpc, vi->info.pix_fmt);
}

int avm_seek_decoded(VideoInput *vi, int64_t pts, int64_t dts)
{
    char e[128];
    AvInput *a = vi->priv;
    if (vi->fmt != &av_format || a->graph) return -ENOTSUP;
    av_frame_unref(a->frame);
    av_packet_unref(a->pkt);
    a->primed = false;
    /* MP4 seeks by presentation time, most others by decoding time. */
    const int64_t ts = a->fmt->iformat->flags & AVFMT_SEEK_TO_PTS ? pts : dts;
    const int r = av_seek_frame(a->fmt, a->stream, ts, AVSEEK_FLAG_BACKWARD);
    if (r < 0) {
        video_input_error(vi, "cannot seek to %lld: %s", (long long)ts,
                          av_err(r, e, sizeof(e)));
        return -EIO;
    }
    /* Where the decoder took no packet of the keyframe's timestamp or
     * later, it is not flushed, only fed from the keyframe on, as if the
     * stream had been cut there: at a random-access point (a keyframe that
     * no later frame reaches back before: where the sessions cut) a decoder
     * starts afresh by the codec's standard, so the frames are the same, and
     * the frames still inside it, all of earlier timestamps, come out first
     * for the caller to drop. A flush costs more than a segment: FFmpeg's
     * H.264 decoder forgets its context with it and makes a new NVDEC
     * decoder at the next frame (0.35 s on an H200). After a drain the
     * decoder takes packets again only once flushed. */
    if (a->demux_done || a->fed_pts >= pts) {
        avcodec_flush_buffers(a->dec);
        a->fed_pts = INT64_MIN;
    }
    a->demux_done = a->dec_done = false;
    /* The CPU's takeover redecodes from the file's start: after a seek the
     * caller, which knows where it is, takes NVDEC's failures instead. */
    a->hw.required = true;
    return 0;
}

static unsigned max_sample(const uint16_t *s, unsigned n)
{
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
        m = s[i] > m ? s[i] : m;
    return m;
}

/*
 * An NVDEC frame as the picture: a device picture of its samples where they
 * need no shift to the common depth (1), else in host memory for the copy
 * below (0, f is then a->host), or an error.
 */
static int nvdec_picture(VideoInput *vi, AvInput *a, AVFrame **f, VmafPicture *pic,
                         unsigned out_bpc)
{
    const VideoInfo *in = &vi->info;
    if (out_bpc == in->bpc) {
        const int err = av_hwdec_wrap(&a->hw, pic, *f, in->pix_fmt, in->bpc);
        if (!err) return 1;
        if (err != -ENOTSUP) {
            video_input_error(vi, "frame %u cannot be handed to the library on the GPU: %s",
                              vi->frame_index, strerror(-err));
            av_frame_unref(*f);
            return err;
        }
    }
    const int err = bring_to_host(vi, a, *f);
    if (err) return err;
    *f = a->host;
    return 0;
}

static int av_read(VideoInput *vi, VmafPicture *pic, unsigned out_bpc)
{
    AvInput *a = vi->priv;
    const VideoInfo *in = &vi->info;
    AVFrame *f = NULL;
    int ret = next_frame(vi, a, &f);
    if (ret < 0) return ret;
    if (!ret) {
        if (a->expected && vi->frame_index < a->expected) {
            video_input_error(vi, "the stream ends after %u of its %lld frames (truncated?)",
                              vi->frame_index, (long long)a->expected);
            return -EINVAL;
        }
        return 0;
    }
    /* Only the bottom and right of a GPU frame are cropped by the decoder. */
    const bool gpu = f->format == AV_PIX_FMT_CUDA;
    const size_t fw = (size_t)f->width - (gpu ? f->crop_left : 0);
    const size_t fh = (size_t)f->height - (gpu ? f->crop_top : 0);
    if (fw != in->w || fh != in->h || (f->format != a->pix_fmt && !gpu)) {
        video_input_error(vi, "frame %u is %zux%zu %s, the stream started %ux%u %s",
                          vi->frame_index, fw, fh, av_get_pix_fmt_name(f->format), in->w, in->h,
                          av_get_pix_fmt_name(a->pix_fmt));
        av_frame_unref(f);
        return -EINVAL;
    }
    const int64_t pts = f->best_effort_timestamp;
    if (gpu) {
        /* On the GPU the samples are not checked against the bit depth, as
         * below: that would bring every frame to the host, which is what
         * NVDEC saves, and a decoder's samples are within the depth by
         * construction (the check is for raw files of the wrong depth or
         * byte order). */
        ret = nvdec_picture(vi, a, &f, pic, out_bpc);
        if (ret < 0) return ret;
        if (ret) {
            av_frame_unref(f);
            goto done;
        }
    }
    int err = vi->alloc ? vi->alloc(vi->alloc_arg, pic, in->pix_fmt, out_bpc, in->w, in->h)
                        : vmaf_picture_alloc(pic, in->pix_fmt, out_bpc, in->w, in->h);
    if (err) {
        video_input_error(vi, "cannot allocate a %ux%u picture: %s", in->w, in->h,
                          strerror(-err));
        av_frame_unref(f);
        return err;
    }
    const unsigned planes = in->pix_fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;
    const unsigned shift = out_bpc - in->bpc;
    unsigned top = 0;
    for (unsigned p = 0; p < planes; p++) {
        if (!(vi->planes & (1u << p))) continue;
        /* The picture's chroma rounds down, the decoder's up: the last
         * column and row of an odd size are dropped (docs/decisions/0001). */
        for (unsigned y = 0; y < pic->h[p]; y++) {
            const uint8_t *src = f->data[p] + (ptrdiff_t)y * f->linesize[p];
            uint8_t *dst = (uint8_t *)pic->data[p] + (ptrdiff_t)y * pic->stride[p];
            if (in->bpc == 8 && out_bpc == 8) {
                memcpy(dst, src, pic->w[p]);
            } else if (in->bpc == 8) {
                for (unsigned x = 0; x < pic->w[p]; x++)
                    ((uint16_t *)dst)[x] = (uint16_t)(src[x] << shift);
            } else {
                const uint16_t *s = (const uint16_t *)src;
                const unsigned m = max_sample(s, pic->w[p]);
                if (m > top) top = m;
                for (unsigned x = 0; x < pic->w[p]; x++)
                    ((uint16_t *)dst)[x] = (uint16_t)(s[x] << shift);
            }
        }
    }
    av_frame_unref(f);
    if (in->bpc > 8 && in->bpc < 16 && top >> in->bpc) {
        video_input_error(vi, "frame %u holds the sample value %u, above the %u-bit maximum %u",
                          vi->frame_index, top, in->bpc, (1u << in->bpc) - 1);
        vmaf_picture_unref(pic);
        return -EINVAL;
    }
done:
    video_input_add_timestamp(vi, pts == AV_NOPTS_VALUE ? -1.0 :
                              (double)pts * a->time_base.num / a->time_base.den);
    return 1;
}

/* The container's bitrate for `exactvmaf compare`: the header's, else from its duration. */
static int container_rate(const char *path, double bits, double *kbps, const char **source)
{
    AVFormatContext *fc = NULL;
    av_log_set_level(AV_LOG_QUIET);
    if (avformat_open_input(&fc, path, NULL, NULL)) return -EINVAL;
    *kbps = 0;
    if (avformat_find_stream_info(fc, NULL) >= 0) {
        if (fc->bit_rate > 0) {
            *kbps = (double)fc->bit_rate / 1000;
            *source = "container";
        } else if (fc->duration > 0 && fc->duration != AV_NOPTS_VALUE) {
            *kbps = bits / ((double)fc->duration / AV_TIME_BASE) / 1000;
            *source = "size/duration";
        }
    }
    avformat_close_input(&fc);
    return *kbps > 0 ? 0 : -EINVAL;
}

VMAF_OS_MODULE_EXPORT const AvModule *exactvmaf_ffmpeg_module(void)
{
    static const AvModule m = {
        .abi = AV_MODULE_ABI,
        .video_input_size = sizeof(VideoInput),
        .open_decoded = avm_open_decoded,
        .open_sessions = avm_open_sessions,
        .seek_decoded = avm_seek_decoded,
        .warm_gpu = warm_gpu,
        .warm_end = warm_end,
        .container_rate = container_rate,
    };
    return &m;
}
