/* Framework side of the extractor interface: instances and their calls. */
#ifndef EXACTVMAF_FEX_INTERNAL_H
#define EXACTVMAF_FEX_INTERNAL_H

#include "feature/extractor.h"
#include "feature_collector.h"

/**
 * Create an instance: private struct allocated and zeroed, option defaults
 * written, opts applied (unknown option or bad value: -EINVAL, logged),
 * output names computed. Not yet initialised.
 */
int vmaf_fex_create(VmafFex **fex, const VmafFeatureExtractor *desc,
                    const VmafDict *opts, const VmafFexEnv *env,
                    VmafFeatureCollector *fc, unsigned ordinal);
/**
 * Initialise: the CPU path's init, then, for an instance made with a GPU
 * pipeline (env.gpu) and a twin for its backend, the twin's init, whose
 * needs go to the pipeline with the instance (vmaf_gpu_add). A twin that
 * declines leaves fex->twin NULL: the CPU path, initialised, computes. An
 * error of the CPU path's init (the metric refuses the geometry or its
 * options, on every backend) also leaves fex->twin NULL.
 */
int vmaf_fex_init(VmafFex *fex, enum VmafPixelFormat pix_fmt, unsigned bpc,
                  unsigned w, unsigned h);
int vmaf_fex_extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                     unsigned index);
int vmaf_fex_flush(VmafFex *fex, unsigned call_index);
/**
 * A GPU twin's conclusion of frame fr (its lane state lp): emits its
 * outputs. The context gives it to the pipeline (VmafGpuConfig.conclude).
 */
int vmaf_fex_conclude(VmafFex *fex, const struct VmafGpuFrame *fr, void *lp);
void vmaf_fex_destroy(VmafFex *fex);

/** Whether a twin instance can continue on the CPU (vmaf_fex_take_over). */
bool vmaf_fex_can_take_over(const VmafFex *fex);
/**
 * A twin instance becomes a CPU instance after its pipeline is gone: a
 * temporal one keeps what its twin accumulated (handover) and is primed
 * with the pictures of the n frames before the first one the CPU computes
 * (oldest first). -ENOTSUP where the twin cannot hand over.
 */
int vmaf_fex_take_over(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                       const unsigned *index, unsigned n);

/**
 * Identity of (extractor, options) used to merge duplicate registrations:
 * the name with its non-default feature-parameter options. malloc'd.
 */
char *vmaf_fex_identity(const VmafFeatureExtractor *desc, const VmafDict *opts);

#endif
