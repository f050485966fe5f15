/*
 * The model loader (JSON parser, model_dict checks, libsvm text) on
 * arbitrary documents, as a single model and as a bootstrap collection;
 * a model that loads is then used: its features registered on a context,
 * one prediction made, its score transformed and clipped.
 */
#include "fuzz_common.h"
#include "libvmaf/libvmaf.h"
#include "model/model_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void use(VmafModel *m)
{
    double features[EV_MODEL_MAX_FEATURES];
    for (unsigned i = 0; i < EV_MODEL_MAX_FEATURES; i++) features[i] = 0.25 + 0.01 * i;
    (void)ev_model_finish(m, ev_model_predict_raw(m, features));
    VmafContext *v = NULL;
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    if (vmaf_init(&v, cfg)) return;
    (void)vmaf_use_features_from_model(v, m);
    vmaf_close(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0;
    const unsigned mode = data[0];
    const char *doc = (const char *)data + 1;
    const size_t len = size - 1;
    VmafModelConfig cfg = {
        .name = mode & 4 ? "vmaf" : NULL,
        .flags = (mode & 1 ? VMAF_MODEL_FLAG_DISABLE_CLIP : 0) |
                 (mode & 2 ? VMAF_MODEL_FLAG_ENABLE_TRANSFORM : 0),
    };
    VmafModel *m = NULL;
    if (!ev_model_load_from_buffer(&m, &cfg, "fuzz", doc, len)) {
        use(m);
        vmaf_model_destroy(m);
    }
    VmafModelCollection *mc = NULL;
    m = NULL;
    if (!ev_model_collection_load_from_buffer(&m, &mc, &cfg, "fuzz", doc, len)) {
        use(m);
        vmaf_model_destroy(m);
        vmaf_model_collection_destroy(mc);
    }
    return 0;
}
