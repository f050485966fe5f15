/*
 * ciede: Netflix libvmaf v3.2.0's CIEDE2000 feature, bit for bit. Every
 * pixel's YUV triple of both pictures goes to L*a*b* and ΔE00
 * (ciede_arith.h); the frame score is 45 - 20 log10 of their mean, the
 * float ΔE00 values summed in double in raster order. Output ciede2000.
 *
 * Chroma is brought to the luma grid as the reference does:
 * - 4:4:4: read as is;
 * - 4:2:0: sample (i/2, j/2);
 * - 4:2:2: the reference swaps the two subsampling flags, so row i reads a
 *   run of w samples starting at row i/2 of the chroma plane, continuing
 *   into the next row(s) through memory. That is well defined only where
 *   its chroma rows have no padding (chroma width a multiple of 32 samples,
 *   its row alignment) and the run stays in the plane; those cases are
 *   reproduced, the others (where it reads uninitialised padding) refused.
 * 4:2:0 with an odd width or height is refused too: the reference reads one
 * sample past the chroma row or plane there.
 *
 * Speed without changing a bit (each value is the same function of the
 * same samples, computed once instead of again):
 * - a pixel whose triples are equal in both pictures has ΔE00 = +0 exactly
 *   (every difference is +0 and every weight finite), and adding +0 leaves
 *   the sum unchanged, so it is skipped;
 * - ΔE00 is cached per (reference triple, distorted triple) and L*a*b* per
 *   triple, in small direct-mapped caches kept across frames (flat and
 *   static areas repeat both; the per-pixel libm calls are the cost).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "math/ev_math.h"
#include "ciede.h"
#include "ciede_arith.h"
#include "feature/extractor.h"
#include "log.h"

/* Cache sizes (log2 of the entry count). */
#define CIEDE_LAB_CACHE_BITS 14
#define CIEDE_PAIR_CACHE_BITS 12
/* No triple packs to this key (48 bits at most are used). */
#define CIEDE_NO_KEY UINT64_MAX

typedef struct CiedeLabEntry {
    uint64_t key;
    CiedeLab lab;
} CiedeLabEntry;

typedef struct CiedePairEntry {
    uint64_t key_ref, key_dis;
    float de;
} CiedePairEntry;

typedef struct CiedeState {
    enum VmafPixelFormat pix_fmt;
    unsigned bpc;
    unsigned w, h;
    CiedeRange range;
    /* Chroma on the luma grid (w*h samples per plane, 1 or 2 bytes each):
     * [0], [1] reference U, V; [2], [3] distorted U, V. NULL for 4:4:4. */
    void *chroma[4];
    CiedeLabEntry *lab_cache;
    CiedePairEntry *pair_cache;
} CiedeState;

static const char *const provided_features[] = {
    "ciede2000",
    NULL
};

static void free_state(CiedeState *s)
{
    for (unsigned k = 0; k < 4; k++) {
        free(s->chroma[k]);
        s->chroma[k] = NULL;
    }
    free(s->lab_cache);
    free(s->pair_cache);
    s->lab_cache = NULL;
    s->pair_cache = NULL;
}

/* The reference's 4:2:2 read is defined when its chroma stride,
 * ALIGN(w/2, 32) samples, equals w/2, and the last run of the last row
 * ends inside the plane. */
static bool reference_422_defined(unsigned w, unsigned h)
{
    const unsigned cw = w >> 1;
    if (!cw || cw % 32)
        return false;
    const uint64_t last = (uint64_t)((h - 1) / 2) * cw + (w - 1);
    return last < (uint64_t)cw * h;
}

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    CiedeState *s = fex->priv;
    int err;

    if (pix_fmt == VMAF_PIX_FMT_YUV400P) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "ciede: needs chroma (4:0:0 input given)");
        return -EINVAL;
    }
    if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "ciede: %u-bit input is not supported (8, 10, 12 or 16)", bpc);
        return -EINVAL;
    }
    if (!w || !h || (uint64_t)w * h > INT_MAX) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "ciede: frame size %ux%u is not supported", w, h);
        return -EINVAL;
    }
    if (pix_fmt == VMAF_PIX_FMT_YUV420P && ((w | h) & 1)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "ciede: 4:2:0 needs an even width and height (%ux%u given: the reference "
                 "reads past the chroma plane there)", w, h);
        return -EINVAL;
    }
    if (pix_fmt == VMAF_PIX_FMT_YUV422P && !reference_422_defined(w, h)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "ciede: 4:2:2 is supported only where the reference's result is defined: "
                 "chroma width (w/2) a multiple of 32 (%ux%u given; the reference reads "
                 "uninitialised row padding otherwise)", w, h);
        return -EINVAL;
    }

    s->pix_fmt = pix_fmt;
    s->bpc = bpc;
    s->w = w;
    s->h = h;
    s->range = ciede_range(bpc);

    if (pix_fmt != VMAF_PIX_FMT_YUV444P) {
        const size_t bytes = (size_t)w * h * (bpc > 8 ? 2 : 1);
        for (unsigned k = 0; k < 4; k++) {
            s->chroma[k] = malloc(bytes);
            if (!s->chroma[k]) {
                err = -ENOMEM;
                goto fail;
            }
        }
    }
    s->lab_cache = malloc(sizeof(*s->lab_cache) << CIEDE_LAB_CACHE_BITS);
    s->pair_cache = malloc(sizeof(*s->pair_cache) << CIEDE_PAIR_CACHE_BITS);
    if (!s->lab_cache || !s->pair_cache) {
        err = -ENOMEM;
        goto fail;
    }
    for (size_t k = 0; k < (size_t)1 << CIEDE_LAB_CACHE_BITS; k++)
        s->lab_cache[k].key = CIEDE_NO_KEY;
    for (size_t k = 0; k < (size_t)1 << CIEDE_PAIR_CACHE_BITS; k++)
        s->pair_cache[k].key_ref = CIEDE_NO_KEY;
    return 0;

fail:
    free_state(s);
    return err;
}

/*
 * Chroma plane p of pic onto the luma grid in dst (w per row), reading the
 * samples the reference reads. sz is the sample size in bytes.
 */
static void upsample_plane(const CiedeState *s, const VmafPicture *pic, unsigned p,
                           uint8_t *dst, size_t sz)
{
    const unsigned w = s->w, h = s->h;
    const uint8_t *src = pic->data[p];
    const ptrdiff_t stride = pic->stride[p];

    if (s->pix_fmt == VMAF_PIX_FMT_YUV420P) {
        for (unsigned i = 0; i < h; i++) {
            const uint8_t *row = src + (i / 2) * stride;
            uint8_t *out = dst + (size_t)i * w * sz;
            if (sz == 1) {
                for (unsigned j = 0; j < w; j++)
                    out[j] = row[j / 2];
            } else {
                for (unsigned j = 0; j < w; j++)
                    ((uint16_t *)out)[j] = ((const uint16_t *)row)[j / 2];
            }
        }
        return;
    }

    /* 4:2:2: sample k of the run is chroma (k / cw, k % cw), as the
     * reference's padding-free rows lie in memory. */
    const unsigned cw = w >> 1;
    for (unsigned i = 0; i < h; i++) {
        uint8_t *out = dst + (size_t)i * w * sz;
        const uint64_t k0 = (uint64_t)(i / 2) * cw;
        for (unsigned j = 0; j < w;) {
            const uint64_t k = k0 + j;
            const unsigned r = (unsigned)(k / cw), c = (unsigned)(k % cw);
            const unsigned n = cw - c < w - j ? cw - c : w - j;
            memcpy(out + (size_t)j * sz, src + r * stride + (size_t)c * sz, (size_t)n * sz);
            j += n;
        }
    }
}

static inline uint64_t triple_key(unsigned y, unsigned u, unsigned v)
{
    return (uint64_t)y << 32 | (uint64_t)u << 16 | v;
}

static inline size_t cache_slot(uint64_t h, unsigned bits)
{
    return (size_t)((h * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - bits));
}

static CiedeLab lab_cached(CiedeState *s, uint64_t key, unsigned y, unsigned u, unsigned v)
{
    CiedeLabEntry *e = &s->lab_cache[cache_slot(key, CIEDE_LAB_CACHE_BITS)];
    if (e->key != key) {
        e->lab = ciede_lab(&s->range, (float)y, (float)u, (float)v);
        e->key = key;
    }
    return e->lab;
}

/* ΔE00 of two differing triples, through the caches. */
static float de_cached(CiedeState *s, unsigned y1, unsigned u1, unsigned v1,
                       unsigned y2, unsigned u2, unsigned v2)
{
    const uint64_t k1 = triple_key(y1, u1, v1), k2 = triple_key(y2, u2, v2);
    CiedePairEntry *e = &s->pair_cache[cache_slot(k1 ^ (k2 * UINT64_C(0xff51afd7ed558ccd)),
                                                  CIEDE_PAIR_CACHE_BITS)];
    if (e->key_ref != k1 || e->key_dis != k2) {
        e->de = ciede_de2000(lab_cached(s, k1, y1, u1, v1), lab_cached(s, k2, y2, u2, v2));
        e->key_ref = k1;
        e->key_dis = k2;
    }
    return e->de;
}

#define CIEDE_ROW_LOOP(T)                                                      \
    for (unsigned j = 0; j < w; j++) {                                         \
        const unsigned y1 = ((const T *)ry)[j], u1 = ((const T *)ru)[j];       \
        const unsigned v1 = ((const T *)rv)[j], y2 = ((const T *)dy)[j];       \
        const unsigned u2 = ((const T *)du)[j], v2 = ((const T *)dv)[j];       \
        if (y1 == y2 && u1 == u2 && v1 == v2)                                  \
            continue;                                                          \
        sum = DADD(sum, de_cached(s, y1, u1, v1, y2, u2, v2));                 \
    }

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    CiedeState *s = fex->priv;

    if (ref->bpc != s->bpc || ref->pix_fmt != s->pix_fmt || ref->w[0] != s->w ||
        ref->h[0] != s->h) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "ciede: frame %u does not have the format given at init", index);
        return -EINVAL;
    }

    const size_t sz = s->bpc > 8 ? 2 : 1;
    const unsigned w = s->w, h = s->h;
    const uint8_t *plane[2][3];
    ptrdiff_t stride[2][3];
    const VmafPicture *pics[2] = { ref, dist };
    for (unsigned k = 0; k < 2; k++) {
        plane[k][0] = pics[k]->data[0];
        stride[k][0] = pics[k]->stride[0];
        for (unsigned p = 1; p < 3; p++) {
            if (s->pix_fmt == VMAF_PIX_FMT_YUV444P) {
                plane[k][p] = pics[k]->data[p];
                stride[k][p] = pics[k]->stride[p];
            } else {
                uint8_t *dst = s->chroma[2 * k + p - 1];
                upsample_plane(s, pics[k], p, dst, sz);
                plane[k][p] = dst;
                stride[k][p] = (ptrdiff_t)(w * sz);
            }
        }
    }

    double sum = 0.;
    for (unsigned i = 0; i < h; i++) {
        const uint8_t *ry = plane[0][0] + i * stride[0][0];
        const uint8_t *ru = plane[0][1] + i * stride[0][1];
        const uint8_t *rv = plane[0][2] + i * stride[0][2];
        const uint8_t *dy = plane[1][0] + i * stride[1][0];
        const uint8_t *du = plane[1][1] + i * stride[1][1];
        const uint8_t *dv = plane[1][2] + i * stride[1][2];
        if (sz == 1) {
            CIEDE_ROW_LOOP(uint8_t)
        } else {
            CIEDE_ROW_LOOP(uint16_t)
        }
    }

    return ciede_emit(fex, sum, index);
}

int ciede_emit(VmafFex *fex, double sum, unsigned index)
{
    const CiedeState *s = fex->priv;
    /* The reference's area is the unsigned product w*h. */
    const double score = 45. - 20. * ev_log10(sum / (double)(s->w * s->h));
    return vmaf_fex_emit(fex, "ciede2000", score, index);
}

/* Sample p of plane `plane` (sz bytes per sample) at row r, column c. */
static unsigned sample_at(const VmafPicture *pic, unsigned plane, unsigned r, unsigned c,
                          size_t sz)
{
    const uint8_t *row = (const uint8_t *)pic->data[plane] + (size_t)r * pic->stride[plane];
    return sz == 1 ? row[c] : ((const uint16_t *)row)[c];
}

int ciede_chroma_layout(enum VmafPixelFormat pix_fmt, unsigned w, unsigned *cw)
{
    *cw = pix_fmt == VMAF_PIX_FMT_YUV444P ? w : w >> 1;
    return pix_fmt == VMAF_PIX_FMT_YUV444P   ? CIEDE_CHROMA_444
           : pix_fmt == VMAF_PIX_FMT_YUV420P ? CIEDE_CHROMA_420
                                             : CIEDE_CHROMA_422;
}

float ciede_pixel(const VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                  unsigned i, unsigned j)
{
    const CiedeState *s = fex->priv;
    const size_t sz = s->bpc > 8 ? 2 : 1;
    /* The chroma sample upsample_plane() puts at (i, j), numbered as in a
     * plane without row padding: its row and column in the picture's. */
    unsigned cw;
    const int layout = ciede_chroma_layout(s->pix_fmt, s->w, &cw);
    const size_t k = ciede_chroma_at(layout, (int)i, (int)j, (int)cw);
    const unsigned cr = (unsigned)(k / cw), cc = (unsigned)(k % cw);
    unsigned t[2][3];
    const VmafPicture *pics[2] = { ref, dist };
    for (unsigned k = 0; k < 2; k++) {
        t[k][0] = sample_at(pics[k], 0, i, j, sz);
        t[k][1] = sample_at(pics[k], 1, cr, cc, sz);
        t[k][2] = sample_at(pics[k], 2, cr, cc, sz);
    }
    if (t[0][0] == t[1][0] && t[0][1] == t[1][1] && t[0][2] == t[1][2]) return 0.0f;
    return ciede_de2000(ciede_lab(&s->range, (float)t[0][0], (float)t[0][1], (float)t[0][2]),
                        ciede_lab(&s->range, (float)t[1][0], (float)t[1][1], (float)t[1][2]));
}

static void close_fex(VmafFex *fex)
{
    free_state(fex->priv);
}

const VmafFeatureExtractor vmaf_fex_ciede = {
    .name = "ciede",
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_ciede_gpu),
    .init = init,
    .extract = extract,
    .close = close_fex,
    .priv_size = sizeof(CiedeState),
    .provided_features = provided_features,
};
