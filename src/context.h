/* Internal accessors of VmafContext for the model and output rooms. */
#ifndef EXACTVMAF_CONTEXT_H
#define EXACTVMAF_CONTEXT_H

#include <stdint.h>

#include "libvmaf/libvmaf.h"
#include "feature_collector.h"
#include "device_record.h"
#include "dict.h"

/** Order key that lists model scores after every extractor output, in first-stored order. */
#define VMAF_ORDER_KEY_MODEL UINT64_MAX

/** The calling thread works for this context: its messages go to the context's logger. */
void vmaf_ctx_bind_log(const VmafContext *vmaf);

VmafFeatureCollector *vmaf_ctx_collector(VmafContext *vmaf);
/** Frames handed in so far (pictures read, not counting the flush). */
unsigned vmaf_ctx_frame_count(VmafContext *vmaf);
unsigned vmaf_ctx_subsample(VmafContext *vmaf);
/** Frames per second of the run so far (wall clock, read to flush). */
double vmaf_ctx_fps(VmafContext *vmaf);
/** Luma width/height of the pictures read (0 before the first). */
unsigned vmaf_ctx_width(VmafContext *vmaf);
unsigned vmaf_ctx_height(VmafContext *vmaf);

/** Digits after the point for writers; <= 0 means %.17g (output room). */
int vmaf_ctx_output_precision(VmafContext *vmaf);
void vmaf_ctx_set_output_precision(VmafContext *vmaf, int digits);

/**
 * Register extractor `fex_name` with options (copied). Same as
 * vmaf_use_feature but the dictionary is not consumed.
 */
int vmaf_ctx_use_feature(VmafContext *vmaf, const char *fex_name, const VmafDict *opts);

/**
 * The collector name under which the output `feature_name` (canonical, e.g.
 * "VMAF_feature_adm2_score") is stored when its extractor runs with `opts`.
 * malloc'd; NULL when no extractor provides the feature.
 */
char *vmaf_fex_output_name(const char *feature_name, const VmafDict *opts);

/** Name of the extractor providing feature_name, or NULL. */
const char *vmaf_fex_name_for_feature(const char *feature_name);

/**
 * Extractor name -> backend that computed it ("cpu", "cuda"); NULL before
 * the first picture.
 */
const VmafDict *vmaf_ctx_backends(VmafContext *vmaf);
/** Extractor name -> the devices that computed it (device_record.h); NULL before the first picture. */
const VmafDeviceRecords *vmaf_ctx_devices(VmafContext *vmaf);

/**
 * The i-th metric that moved from the GPU to the CPU mid-run (backend
 * auto): its extractor, the first frame the CPU computed and what failed
 * on the GPU. -ENOENT past the last (none when no GPU failed).
 */
int vmaf_ctx_failover_at(VmafContext *vmaf, unsigned i, const char **extractor,
                         unsigned *frame, const char **why);

#endif
