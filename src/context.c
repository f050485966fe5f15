/*
 * What other rooms may read of a context (context.h): its logger, its
 * collector, the geometry and frame count, the output precision, the
 * backends and devices that computed each extractor, the run's speed.
 */
#include <time.h>

#include "context_internal.h"
#include "log.h"

void vmaf_ctx_bind_log(const VmafContext *vmaf) { vmaf_log_bind(vmaf ? vmaf->log_id : 0); }
VmafFeatureCollector *vmaf_ctx_collector(VmafContext *vmaf) { return vmaf->fc; }
unsigned vmaf_ctx_frame_count(VmafContext *vmaf) { return vmaf->pic_cnt; }
unsigned vmaf_ctx_subsample(VmafContext *vmaf) { return vmaf->cfg.n_subsample; }
unsigned vmaf_ctx_width(VmafContext *vmaf) { return vmaf->w; }
unsigned vmaf_ctx_height(VmafContext *vmaf) { return vmaf->h; }
int vmaf_ctx_output_precision(VmafContext *vmaf) { return vmaf->output_precision; }
const VmafDict *vmaf_ctx_backends(VmafContext *vmaf) { return vmaf->backends; }
const VmafDeviceRecords *vmaf_ctx_devices(VmafContext *vmaf) { return vmaf->devices; }
void vmaf_ctx_set_output_precision(VmafContext *vmaf, int digits)
{
    vmaf->output_precision = digits;
}

double vmaf_ctx_fps(VmafContext *vmaf)
{
    struct timespec end = vmaf->t_end;
    if (!vmaf->flushed) clock_gettime(CLOCK_MONOTONIC, &end);
    const double s = (double)(end.tv_sec - vmaf->t_start.tv_sec) +
                     (double)(end.tv_nsec - vmaf->t_start.tv_nsec) * 1e-9;
    return s > 0 ? vmaf->pic_cnt / s : 0.0;
}
