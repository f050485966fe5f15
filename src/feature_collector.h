/*
 * Per-output, per-frame score store. Thread safe. Outputs are listed in a
 * deterministic order that does not depend on threads: by the frame call
 * that first emitted them, then extractor registration order, then
 * emission order within that call (Netflix's order for a serial run).
 */
#ifndef EXACTVMAF_FEATURE_COLLECTOR_H
#define EXACTVMAF_FEATURE_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>

typedef struct VmafFeatureCollector VmafFeatureCollector;

/** One output's scores; value[i] is valid when written[i]. */
typedef struct VmafFeatureVector {
    char *name;
    double *value;
    bool *written;
    unsigned capacity;
    uint64_t order_key;
} VmafFeatureVector;

int vmaf_fc_create(VmafFeatureCollector **fc);
void vmaf_fc_destroy(VmafFeatureCollector *fc);

/**
 * Store value for (name, index). order_key places a new name in the
 * listing (see vmaf_fc_order_key()). Writing the same (name, index)
 * twice is -EINVAL.
 */
int vmaf_fc_append(VmafFeatureCollector *fc, const char *name, double value,
                   unsigned index, uint64_t order_key);

/** As vmaf_fc_append, but an existing value is replaced (model scores). */
int vmaf_fc_set(VmafFeatureCollector *fc, const char *name, double value,
                unsigned index, uint64_t order_key);

/** -EINVAL when absent. */
int vmaf_fc_get(VmafFeatureCollector *fc, const char *name, unsigned index,
                double *value);

/** Order key from (frame call index, extractor ordinal, emission sequence). */
uint64_t vmaf_fc_order_key(unsigned call_index, unsigned ordinal, unsigned seq);

/**
 * Snapshot for writers: the vectors in listing order. The pointers stay
 * valid until the next append or destroy; callers must not write.
 */
unsigned vmaf_fc_count(VmafFeatureCollector *fc);
const VmafFeatureVector *vmaf_fc_at(VmafFeatureCollector *fc, unsigned i);
/** Name of vector i, NULL past the end; safe while other threads add values. */
const char *vmaf_fc_name_at(VmafFeatureCollector *fc, unsigned i);
/** Highest index written, +1 (0 when empty). */
unsigned vmaf_fc_frame_count(VmafFeatureCollector *fc);

/**
 * Run-level values (Netflix's aggregate_metrics, e.g. psnr's apsnr_y),
 * listed in the order first set. As Netflix's collector: setting a name
 * again with an equal value (==) is a no-op, with another value -EINVAL.
 */
int vmaf_fc_set_aggregate(VmafFeatureCollector *fc, const char *name, double value);
unsigned vmaf_fc_aggregate_count(VmafFeatureCollector *fc);
/** Name of aggregate i (valid until destroy) and its value; NULL when i is out of range. */
const char *vmaf_fc_aggregate_at(VmafFeatureCollector *fc, unsigned i, double *value);

#endif
