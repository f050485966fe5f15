/*
 * psnr host side: Netflix libvmaf v3.2.0 integer_psnr's floating-point tail,
 * operation for operation (types and evaluation order as the reference's
 * expressions give them; MIN/MAX as its ternary macros, so a NaN operand
 * picks the second value).
 */
#include <math.h>

#include "math/ev_math.h"
#include "feature_collector.h"
#include "log.h"
#include "psnr_host.h"

static const char *const psnr_name[3] = { "psnr_y", "psnr_cb", "psnr_cr" };
static const char *const mse_name[3] = { "mse_y", "mse_cb", "mse_cr" };
static const char *const apsnr_name[3] = { "apsnr_y", "apsnr_cb", "apsnr_cr" };

/* The reference's MIN/MAX: x op y ? x : y. */
static double min_as_ref(double x, double y) { return x < y ? x : y; }
static double max_as_ref(double x, double y) { return x > y ? x : y; }

void psnr_host_init(PsnrHost *ph, bool enable_chroma, bool enable_mse,
                    bool enable_apsnr, bool reduced_hbd_peak, double min_sse,
                    enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w,
                    unsigned h)
{
    *ph = (PsnrHost){
        .enable_mse = enable_mse,
        .enable_apsnr = enable_apsnr,
        /* A 4:0:0 picture has no chroma to compare, whatever the option. */
        .n_planes = enable_chroma && pix_fmt != VMAF_PIX_FMT_YUV400P ? 3 : 1,
        /* reduced_hbd_peak scales 8-bit's 255 instead of using 2^bpc - 1. */
        .peak = reduced_hbd_peak ? 255u << (bpc - 8) : (1u << bpc) - 1,
    };
    const uint32_t peak_sq = ph->peak * ph->peak;

    for (unsigned i = 0; i < 3; i++) {
        if (min_sse != 0.0) {
            /* The cap is the PSNR of an SSE of min_sse over the plane, whose
             * size the reference takes as w/2, h/2 for subsampled chroma
             * (rounded down; 4:0:0 counts as subsampled horizontally). */
            const bool ss_hor = pix_fmt != VMAF_PIX_FMT_YUV444P;
            const bool ss_ver = pix_fmt == VMAF_PIX_FMT_YUV420P;
            const unsigned pw = (i && ss_hor) ? w / 2 : w;
            const unsigned phh = (i && ss_ver) ? h / 2 : h;
            const double mse = min_sse / (double)(pw * phh);
            ph->psnr_max[i] = ceil(10. * ev_log10((double)peak_sq / mse));
        } else {
            ph->psnr_max[i] = (double)(6 * bpc + 12);
        }
    }
}

int psnr_host_frame(VmafFex *fex, PsnrHost *ph, const uint64_t *sse,
                    const unsigned *plane_w, const unsigned *plane_h,
                    unsigned index)
{
    /* For 8-bit the reference writes its peak as the constant 255, which is
     * ph->peak at that depth with either peak option. */
    const double peak_sq = (double)(ph->peak * ph->peak);

    for (unsigned p = 0; p < ph->n_planes; p++) {
        const unsigned n_px = plane_w[p] * plane_h[p];
        if (ph->enable_apsnr) {
            ph->apsnr_sse[p] += sse[p];
            ph->apsnr_px[p] += n_px;
        }
        const double mse = (double)sse[p] / (double)n_px;
        const double db = 10. * ev_log10(peak_sq / max_as_ref(mse, 1e-16));
        int err = vmaf_fex_emit(fex, psnr_name[p], min_as_ref(db, ph->psnr_max[p]), index);
        if (!err && ph->enable_mse)
            err = vmaf_fex_emit(fex, mse_name[p], mse, index);
        if (err) return err;
    }
    return 0;
}

int psnr_host_flush(VmafFex *fex, const PsnrHost *ph)
{
    if (!ph->enable_apsnr)
        return 0;

    const uint32_t peak_sq = ph->peak * ph->peak;
    /* All three planes, as the reference: without chroma their totals are 0
     * and the value is min(NaN, -inf) = -inf. */
    for (unsigned i = 0; i < 3; i++) {
        const double apsnr = 10 * (ev_log10((double)peak_sq) +
                                   ev_log10((double)ph->apsnr_px[i]) -
                                   ev_log10((double)ph->apsnr_sse[i]));
        /* uint64 product, wrapping as the reference's. */
        const uint64_t cap_arg = (uint64_t)peak_sq * ph->apsnr_px[i] * 2;
        const double max_apsnr = ceil(10 * ev_log10((double)cap_arg));
        const double value = min_as_ref(apsnr, max_apsnr);
        const int err = vmaf_fc_set_aggregate(fex->fc, apsnr_name[i], value);
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "psnr: cannot store %s (%d)", apsnr_name[i], err);
            return err;
        }
    }
    return 0;
}
