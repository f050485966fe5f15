/* The model JSON files of models/, embedded at build time (embed_models.py). */
#ifndef EXACTVMAF_MODEL_BUILTIN_MODELS_H
#define EXACTVMAF_MODEL_BUILTIN_MODELS_H

#include <stddef.h>

typedef struct EvBuiltinModel {
    const char *version;        /**< file name without ".json" */
    const unsigned char *data;  /**< the file's bytes */
    size_t size;
} EvBuiltinModel;

extern const EvBuiltinModel ev_builtin_models[];
extern const unsigned ev_builtin_model_count;

#endif
