/*
 * Small pictures of chosen frames for the HTML report: the reference's and
 * the distorted video's luma (what VMAF looks at) and a heat map of their
 * per-pixel difference, each at most PICTURE_WIDTH wide, as PNG files in
 * base64 for data: URIs. The frames are read again from the inputs after
 * the scoring (only up to the last one wanted), so nothing is kept during
 * the run.
 */
#ifndef EXACTVMAF_TOOLS_FRAME_PICTURES_H
#define EXACTVMAF_TOOLS_FRAME_PICTURES_H

#include "cli.h"

#define PICTURE_WIDTH 320
/** The heat map is white from this absolute luma difference on (8-bit steps). */
#define PICTURE_DIFF_FULL 16

typedef struct FramePictures {
    unsigned frame;                 /**< index among the scored frames */
    char *ref_png, *dist_png;       /**< base64 PNG (grey) */
    char *diff_png;                 /**< base64 PNG (palette heat map) */
    unsigned w, h;                  /**< the pictures' size */
    double max_diff;                /**< largest |Y_ref - Y_dist| in 8-bit steps */
} FramePictures;

/**
 * Read frames[0..n-1] (scored-frame indices, increasing, distinct) again
 * from the inputs the settings name, decoded on the CPU, and make their
 * pictures into out[0..n-1]. @return 0; -ENOTSUP when an input cannot be
 * read twice (a pipe); another negative errno on failure (printed).
 */
int frame_pictures_make(const CliSettings *c, const unsigned *frames, unsigned n,
                        FramePictures *out);

void frame_pictures_free(FramePictures *p, unsigned n);

#endif
