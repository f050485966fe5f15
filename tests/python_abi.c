/*
 * The C side of the Python package's ctypes declarations (python/exactvmaf/
 * _lib.py): every struct's size and each field's offset, and every enum
 * value the package copies, one "NAME VALUE" a line, for python_abi_test.py
 * to hold against the package.
 */
#include <stddef.h>
#include <stdio.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"
#include "exactvmaf/exactvmaf.h"

#define SIZE(T) printf("sizeof %s %zu\n", #T, sizeof(T))
#define FIELD(T, f) printf("offsetof %s.%s %zu\n", #T, #f, offsetof(T, f))
#define VALUE(e) printf("enum %s %d\n", #e, (int)(e))

int main(void)
{
    SIZE(VmafPicture);
    FIELD(VmafPicture, pix_fmt);
    FIELD(VmafPicture, bpc);
    FIELD(VmafPicture, w);
    FIELD(VmafPicture, h);
    FIELD(VmafPicture, stride);
    FIELD(VmafPicture, data);
    FIELD(VmafPicture, ref);
    FIELD(VmafPicture, priv);
    SIZE(VmafConfiguration);
    FIELD(VmafConfiguration, log_level);
    FIELD(VmafConfiguration, n_threads);
    FIELD(VmafConfiguration, n_subsample);
    FIELD(VmafConfiguration, cpumask);
    FIELD(VmafConfiguration, gpumask);
    SIZE(VmafPictureConfiguration);
    FIELD(VmafPictureConfiguration, pic_params.w);
    FIELD(VmafPictureConfiguration, pic_params.h);
    FIELD(VmafPictureConfiguration, pic_params.bpc);
    FIELD(VmafPictureConfiguration, pic_params.pix_fmt);
    FIELD(VmafPictureConfiguration, pic_cnt);
    SIZE(VmafModelConfig);
    FIELD(VmafModelConfig, name);
    FIELD(VmafModelConfig, flags);
    SIZE(VmafModelCollectionScore);
    FIELD(VmafModelCollectionScore, type);
    FIELD(VmafModelCollectionScore, bootstrap.bagging_score);
    FIELD(VmafModelCollectionScore, bootstrap.stddev);
    FIELD(VmafModelCollectionScore, bootstrap.ci.p95.lo);
    FIELD(VmafModelCollectionScore, bootstrap.ci.p95.hi);
    VALUE(VMAF_LOG_LEVEL_NONE);
    VALUE(VMAF_LOG_LEVEL_ERROR);
    VALUE(VMAF_LOG_LEVEL_WARNING);
    VALUE(VMAF_LOG_LEVEL_INFO);
    VALUE(VMAF_LOG_LEVEL_DEBUG);
    VALUE(VMAF_PIX_FMT_YUV420P);
    VALUE(VMAF_PIX_FMT_YUV422P);
    VALUE(VMAF_PIX_FMT_YUV444P);
    VALUE(VMAF_PIX_FMT_YUV400P);
    VALUE(VMAF_POOL_METHOD_MIN);
    VALUE(VMAF_POOL_METHOD_MAX);
    VALUE(VMAF_POOL_METHOD_MEAN);
    VALUE(VMAF_POOL_METHOD_HARMONIC_MEAN);
    VALUE(EXACTVMAF_BACKEND_CPU);
    VALUE(EXACTVMAF_BACKEND_CUDA);
    VALUE(EXACTVMAF_BACKEND_AUTO);
    VALUE(EXACTVMAF_BACKEND_OPENCL);
    VALUE(EXACTVMAF_BACKEND_AUTO_OPENCL);
    return 0;
}
