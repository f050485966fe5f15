/*
 * The options speed_chroma and speed_temporal share: SPEED_SHARED_OPTIONS(
 * State, max_val_help) gives their entries of a VmafOption table of State
 * (a state struct with members of the options' names); max_val_help is the
 * help of speed_max_val, which says where the option does not apply.
 */
#ifndef EXACTVMAF_SPEED_OPTIONS_H
#define EXACTVMAF_SPEED_OPTIONS_H

#include <stddef.h>

#include "feature/common/prescale.h"
#include "feature/extractor.h"

/** The prescale methods' names, NULL-terminated (speed_core.c). */

#define SPEED_SHARED_OPTIONS(State, max_val_help)                                    \
    {                                                                                \
        .name = "speed_kernelscale",                                                 \
        .alias = "ks",                                                               \
        .help = "scaling factor for the gaussian kernel (2.0 means multiplying the " \
                "standard deviation by 2 and enlarge the kernel size accordingly",   \
        .offset = offsetof(State, speed_kernelscale),                                \
        .type = VMAF_OPT_TYPE_DOUBLE,                                                \
        .default_val.d = 1.0,                                                        \
        .min = 0.1,                                                                  \
        .max = 4.0,                                                                  \
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                                        \
    },                                                                               \
    {                                                                                \
        .name = "speed_prescale",                                                    \
        .alias = "ps",                                                               \
        .help = "scaling factor for the frame (2.0 means making the image twice as " \
                "large on each dimension)",                                          \
        .offset = offsetof(State, speed_prescale),                                   \
        .type = VMAF_OPT_TYPE_DOUBLE,                                                \
        .default_val.d = 1.0,                                                        \
        .min = 0.1,                                                                  \
        .max = 4.0,                                                                  \
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                                        \
    },                                                                               \
    {                                                                                \
        .name = "speed_prescale_method",                                             \
        .alias = "psm",                                                              \
        .help = "scaling method for the frame, supported options: "                  \
                "[nearest, bilinear, bicubic, lanczos4]",                            \
        .offset = offsetof(State, speed_prescale_method),                            \
        .type = VMAF_OPT_TYPE_STRING,                                                \
        .default_val.s = "nearest",                                                  \
        .choices = ev_prescale_method_names,                                           \
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                                        \
    },                                                                               \
    {                                                                                \
        .name = "speed_sigma_nn",                                                    \
        .alias = "snn",                                                              \
        .help = "standard deviation of neural noise",                                \
        .offset = offsetof(State, speed_sigma_nn),                                   \
        .type = VMAF_OPT_TYPE_DOUBLE,                                                \
        .default_val.d = 0.29,                                                       \
        .min = 0.1,                                                                  \
        .max = 2.0,                                                                  \
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                                        \
    },                                                                               \
    {                                                                                \
        .name = "speed_nn_floor",                                                    \
        .alias = "nnf",                                                              \
        .help = "neural noise floor, expressed in percentage of sigma_nn",           \
        .offset = offsetof(State, speed_nn_floor),                                   \
        .type = VMAF_OPT_TYPE_DOUBLE,                                                \
        .default_val.d = 0.0,                                                        \
        .min = 0.0,                                                                  \
        .max = 1.0,                                                                  \
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                                        \
    },                                                                               \
    {                                                                                \
        .name = "speed_max_val",                                                     \
        .alias = "mxv",                                                              \
        .help = max_val_help,                                                        \
        .offset = offsetof(State, speed_max_val),                                    \
        .type = VMAF_OPT_TYPE_DOUBLE,                                                \
        .default_val.d = 1000.0,                                                     \
        .min = 0.0,                                                                  \
        .max = 1000.0,                                                               \
        .flags = VMAF_OPT_FLAG_FEATURE_PARAM,                                        \
    }

#endif
