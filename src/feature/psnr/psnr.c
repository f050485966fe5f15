/*
 * psnr: Netflix libvmaf v3.2.0's integer PSNR ("psnr" extractor), bit for
 * bit. Per plane: integer sum of squared errors (psnr_arith.h), then
 * MSE and dB in double on the host (psnr_host.c).
 *
 * Outputs psnr_y, psnr_cb, psnr_cr (luma only without chroma or on 4:0:0),
 * with mse_* after each when enable_mse; with enable_apsnr, the run-level
 * apsnr_y/cb/cr go to the aggregate metrics at the flush. Temporal, as the
 * reference, because APSNR accumulates over the frames (it also means the
 * outputs are computed for every frame under frame subsampling, as there).
 *
 * Differences from the reference, none in the results it defines:
 * - depths other than 8, 10, 12 and 16 bits are refused at init (the
 *   reference accepts them at init and fails on the first frame).
 */
#include <errno.h>
#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "feature/extractor.h"
#include "log.h"
#include "psnr_arith.h"
#include "psnr_host.h"
#include "psnr_state.h"

/* Netflix's table: names, defaults and ranges; none is a feature parameter
 * (the outputs are never renamed). */
static const VmafOption options[] = {
    {
        .name = "enable_chroma",
        .help = "enable calculation for chroma channels",
        .offset = offsetof(PsnrState, enable_chroma),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = true,
    },
    {
        .name = "enable_mse",
        .help = "enable MSE calculation",
        .offset = offsetof(PsnrState, enable_mse),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "enable_apsnr",
        .help = "enable APSNR calculation",
        .offset = offsetof(PsnrState, enable_apsnr),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "reduced_hbd_peak",
        .help = "reduce hbd peak value to align with scaled 8-bit content",
        .offset = offsetof(PsnrState, reduced_hbd_peak),
        .type = VMAF_OPT_TYPE_BOOL,
        .default_val.b = false,
    },
    {
        .name = "min_sse",
        .help = "constrain the minimum possible sse",
        .offset = offsetof(PsnrState, min_sse),
        .type = VMAF_OPT_TYPE_DOUBLE,
        .default_val.d = 0.0,
        .min = 0.0,
        .max = DBL_MAX,
    },
    { 0 }
};

static const char *const provided_features[] = {
    "psnr_y", "psnr_cb", "psnr_cr",
    NULL
};

static int init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                unsigned w, unsigned h)
{
    PsnrState *s = fex->priv;

    if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "psnr: %u-bit input is not supported (8, 10, 12 or 16)", bpc);
        return -EINVAL;
    }
    s->bpc = bpc;
    psnr_host_init(&s->host, s->enable_chroma, s->enable_mse, s->enable_apsnr,
                   s->reduced_hbd_peak, s->min_sse, pix_fmt, bpc, w, h);
    return 0;
}

/* SSE of plane p; 8-bit rows are uint32 totals added into the uint64. */
static uint64_t plane_sse(const VmafPicture *ref, const VmafPicture *dist,
                          unsigned p, unsigned bpc)
{
    const uint8_t *r = ref->data[p];
    const uint8_t *d = dist->data[p];
    uint64_t sse = 0;

    if (bpc == 8) {
        for (unsigned i = 0; i < ref->h[p]; i++) {
            sse += psnr_sse_row_u8(r, d, ref->w[p]);
            r += ref->stride[p];
            d += dist->stride[p];
        }
    } else {
        for (unsigned i = 0; i < ref->h[p]; i++) {
            sse += psnr_sse_row_u16((const uint16_t *)r, (const uint16_t *)d, ref->w[p]);
            r += ref->stride[p];
            d += dist->stride[p];
        }
    }
    return sse;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index)
{
    PsnrState *s = fex->priv;

    if (ref->bpc != s->bpc) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "psnr: frame %u has %u bits per sample, init had %u",
                 index, ref->bpc, s->bpc);
        return -EINVAL;
    }

    uint64_t sse[3] = { 0, 0, 0 };
    unsigned pw[3] = { 0, 0, 0 }, ph[3] = { 0, 0, 0 };
    for (unsigned p = 0; p < s->host.n_planes; p++) {
        sse[p] = plane_sse(ref, dist, p, s->bpc);
        pw[p] = ref->w[p];
        ph[p] = ref->h[p];
    }
    return psnr_host_frame(fex, &s->host, sse, pw, ph, index);
}

void psnr_resume(VmafFex *fex, const PsnrHost *ph)
{
    PsnrState *s = fex->priv;
    s->host = *ph;
}

static int flush(VmafFex *fex)
{
    PsnrState *s = fex->priv;
    return psnr_host_flush(fex, &s->host);
}

/* Luma, and the chroma planes unless enable_chroma is off. */
static unsigned planes(const VmafFex *fex)
{
    const PsnrState *s = fex->priv;
    return s->enable_chroma ? 7u : 1u;
}

const VmafFeatureExtractor vmaf_fex_psnr = {
    .name = "psnr",
    .init = init,
    .extract = extract,
    .flush = flush,
    .options = options,
    .priv_size = sizeof(PsnrState),
    .flags = VMAF_FEX_TEMPORAL,
    .provided_features = provided_features,
    .gpu = VMAF_FEX_GPU_TWIN(vmaf_fex_psnr_gpu),
    .planes = planes,
};
