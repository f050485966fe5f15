/*
 * CAMBI's instance state, shared by the CPU path (cambi.c) and the GPU twin
 * (cambi_gpu.c): the options, what init derives from them, and the
 * emission of a frame's outputs, which both paths use.
 */
#ifndef EXACTVMAF_CAMBI_STATE_H
#define EXACTVMAF_CAMBI_STATE_H

#include <stdbool.h>

#include "cambi_cpu.h"
#include "cambi_host.h"
#include "feature/extractor.h"

/** One picture's processing geometry: the dist (encode) or the ref (source). */
typedef struct CambiGeometry {
    unsigned w, h;          /**< processing size at scale 0 (before hrs) */
    unsigned window;        /**< window side in pixels of every scale */
    CambiResample rs;       /**< picture -> w x h */
    /** CPU: how scale s is pooled, from how the previous picture's was (cambi.c). */
    unsigned char pool_mode[CAMBI_NUM_SCALES];
} CambiGeometry;

typedef struct CambiState {
    /* Options, written by the framework before init. */
    double cambi_max_val;
    int enc_width;
    int enc_height;
    int enc_bitdepth;
    int src_width;
    int src_height;
    int window_size;
    double topk;
    double cambi_topk;
    double tvi_threshold;
    double cambi_vis_lum_threshold;
    int max_log_contrast;
    const char *heatmaps_path;
    bool full_ref;
    const char *eotf;
    const char *cambi_eotf;
    int cambi_high_res_speedup;

    /* Set up by init. */
    unsigned pic_w, pic_h;
    bool hrs;               /**< scale 0 is decimated once more */
    bool antidither;
    double pool_topk;
    CambiGeometry enc, src;
    CambiParams params;
    CambiCpu cpu;
} CambiState;

/** Emit the score of the distorted picture (clipped). */
int cambi_emit_dist(VmafFex *fex, const CambiState *s, double dist_score, unsigned index);
/** full_ref: emit the source's score and the full-reference score (clipped). */
int cambi_emit_src(VmafFex *fex, const CambiState *s, double dist_score, double src_score,
                   unsigned index);

#endif
