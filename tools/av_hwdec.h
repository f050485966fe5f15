/*
 * NVDEC for the FFmpeg reader (av_input.c): libavcodec's CUDA hwaccel set up
 * on a decoder, and its frames (CUDA device memory) made into device
 * pictures for the library or brought to the host as the CPU decoder would
 * have given them. FFmpeg opens the CUDA driver and NVDEC at run time, so
 * nothing new is linked and the tool runs where there is no GPU.
 */
#ifndef EXACTVMAF_TOOLS_AV_HWDEC_H
#define EXACTVMAF_TOOLS_AV_HWDEC_H

#include <stdbool.h>
#include <stddef.h>

#include <libavcodec/avcodec.h>

#include "libvmaf/picture.h"

typedef struct AvHwdec {
    AVBufferRef *device;        /**< the CUDA device (its primary context); NULL: none */
    int gpu;                    /**< its index */
    bool required;              /**< --hwdec cuda: get_format never takes a software format */
    bool offered;               /**< get_format was offered CUDA frames and took them */
    bool refused;               /**< get_format had no CUDA frames to take: `why` says why */
    char why[160];
    /** FFmpeg before 6.0 lends the decoder's own surfaces, of which it has a
     *  few: frames are copied into this pool before they are held. */
    AVBufferRef *frames;
} AvHwdec;

/**
 * Whether NVDEC is to decode streams of this codec: the decoder that has a
 * CUDA hwaccel, or NULL with `why` ("NVDEC does not take ffv1"). Only codecs
 * whose standard fixes the decoded samples bit for bit are taken (H.264,
 * HEVC, VP8, VP9, AV1), so that the scores do not depend on the decoder.
 */
const AVCodec *av_hwdec_codec(enum AVCodecID id, char *why, size_t len);

/**
 * Open CUDA device `gpu` for decoding (its primary context, which the library
 * uses too). @return 0, or a negative errno with `why`.
 */
int av_hwdec_open(AvHwdec *h, int gpu, bool required, char *why, size_t len);

/** Before avcodec_open2(): the decoder is to give CUDA frames. @return 0 or negative errno. */
int av_hwdec_attach(AvHwdec *h, AVCodecContext *dec);

void av_hwdec_close(AvHwdec *h);

/**
 * The NVDEC engines of h's device that decode `id` streams of `bpc` bits and
 * this chroma layout (the driver's count); 0 where it cannot say.
 */
unsigned av_hwdec_engines(const AvHwdec *h, enum AVCodecID id, unsigned bpc,
                          enum VmafPixelFormat layout);

/** Make the process's device for GPU `gpu` now, quietly (video_input_warm_gpu). */
void av_hwdec_warm(int gpu);

/** The process lets its device go (decoders that hold it keep it until they close). */
void av_hwdec_let_go(void);

/**
 * Make `pic` a device picture of CUDA frame f, without copying the samples
 * (exactvmaf_cuda_picture_wrap; the frame is kept by a reference of its own
 * until the library lets it go). `layout` and `bpc` are the stream's.
 * @return 0; -ENOTSUP when the library cannot take the frame as it lies
 * (cropped at its top or left, a surface format it does not describe): the
 * caller downloads it; another negative errno on failure.
 */
int av_hwdec_wrap(AvHwdec *h, VmafPicture *pic, const AVFrame *f, enum VmafPixelFormat layout,
                  unsigned bpc);

/**
 * CUDA frame f in host memory as the CPU decoder gives it: planar `fmt`
 * (the stream's format) with samples of `bpc` bits, cropped as the decoder
 * says; `tmp` holds the download. Integer moves only, so that what follows
 * (the shift to a common depth, the scaler) sees the CPU decoder's samples.
 * @return 0 or a negative AVERROR.
 */
int av_hwdec_download(AVFrame *dst, AVFrame *tmp, const AVFrame *f, enum AVPixelFormat fmt,
                      unsigned bpc);

#endif
