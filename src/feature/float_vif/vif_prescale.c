/*
 * vif_prescale / vif_prescale_method: resample the float luma before VIF,
 * as libvmaf v3.2.0's vif_scale_frame_s() does (docs/numerics.md 4.3), with
 * the tables and sums SpEED's prescale uses too (feature/common/prescale.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "vif_host.h"

int vif_prescale_method_parse(const char *name, enum EvPrescaleMethod *method)
{
    if (!ev_prescale_method_parse(name, method))
        return 0;
    char list[64] = "";
    for (int i = 0; ev_prescale_method_names[i]; i++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
                 ev_prescale_method_names[i]);
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "float_vif: invalid vif_prescale_method \"%s\"; supported: %s",
             name ? name : "(null)", list);
    return -EINVAL;
}

void vif_prescale_close(VifPrescale *ps)
{
    ev_prescale_axis_free(&ps->cols);
    ev_prescale_axis_free(&ps->rows);
}

int vif_prescale_init(VifPrescale *ps, enum EvPrescaleMethod method,
                      int src_w, int src_h, int dst_w, int dst_h)
{
    memset(ps, 0, sizeof(*ps));
    ps->method = method;
    ps->src_w = src_w;
    ps->src_h = src_h;
    ps->dst_w = dst_w;
    ps->dst_h = dst_h;
    /* The reference copies whenever the sizes agree, whatever the method. */
    ps->identity = src_w == dst_w && src_h == dst_h;
    if (ps->identity)
        return 0;

    int err = ev_prescale_axis_build(&ps->cols, method, src_w, dst_w);
    if (!err)
        err = ev_prescale_axis_build(&ps->rows, method, src_h, dst_h);
    if (err == -EINVAL)
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "float_vif: a %dx%d frame is too small to prescale to %dx%d "
                 "with this vif_prescale_method (its taps reach past the mirrored border)",
                 src_w, src_h, dst_w, dst_h);
    if (err)
        vif_prescale_close(ps);
    return err;
}

void vif_prescale_apply(const VifPrescale *ps, const float *src, size_t src_stride,
                        float *dst, size_t dst_stride)
{
    for (int y = 0; y < ps->dst_h; y++)
        ev_prescale_row(ps->method, &ps->cols, &ps->rows, y, ps->dst_w, src, src_stride,
                        dst + (size_t)y * dst_stride);
}
