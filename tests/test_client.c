/*
 * A libvmaf client written the way FFmpeg's vf_libvmaf uses the API:
 * public headers only, included as <libvmaf.h> (libvmaf.pc's include path),
 * linked against the shared library. Checks the behaviour such clients rely
 * on: models destroyed before vmaf_close, NULL model name scores as "vmaf",
 * pictures owned by the library once read, pooled scores and output.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libvmaf.h>

static int failures;
#define CHECK(c) do { if (!(c)) { failures++; fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)

static void fill(VmafPicture *p, unsigned t, unsigned noise)
{
    for (unsigned i = 0; i < p->h[0]; i++)
        for (unsigned j = 0; j < p->w[0]; j++)
            ((uint8_t *)p->data[0])[i * p->stride[0] + j] =
                (uint8_t)((i * 7 + j * 3 + t * 5 + ((i * j + noise) % 13) * noise) & 255);
}

int main(int argc, char **argv)
{
    const char *out_path = argc > 1 ? argv[1] : NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = 2 };
    VmafContext *vmaf = NULL;
    CHECK(vmaf_init(&vmaf, cfg) == 0);

    VmafModel *model = NULL;
    VmafModelConfig mcfg = { .name = NULL, .flags = VMAF_MODEL_FLAGS_DEFAULT };
    CHECK(vmaf_model_load(&model, &mcfg, "vmaf_float_v0.6.1") == 0);
    CHECK(vmaf_use_features_from_model(vmaf, model) == 0);
    VmafFeatureDictionary *d = NULL;
    CHECK(vmaf_feature_dictionary_set(&d, "debug", "true") == 0);
    CHECK(vmaf_use_feature(vmaf, "float_vif", d) == 0);

    VmafModel *missing = NULL;
    CHECK(vmaf_model_load(&missing, &mcfg, "no_such_model") < 0);

    const unsigned w = 128, h = 72, n = 6;
    VmafPictureConfiguration pcfg = {
        .pic_params = { .w = w, .h = h, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P },
        .pic_cnt = 2,
    };
    CHECK(vmaf_preallocate_pictures(vmaf, pcfg) == 0);
    for (unsigned i = 0; i < n; i++) {
        VmafPicture ref, dist;
        /* odd frames from the pool (reused buffers), even ones allocated */
        if (i & 1) {
            CHECK(vmaf_fetch_preallocated_picture(vmaf, &ref) == 0);
            CHECK(vmaf_fetch_preallocated_picture(vmaf, &dist) == 0);
        } else {
            CHECK(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, w, h) == 0);
            CHECK(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, w, h) == 0);
        }
        fill(&ref, i, 0);
        fill(&dist, i, 3);
        CHECK(vmaf_read_pictures(vmaf, &ref, &dist, i) == 0);
    }
    CHECK(vmaf_read_pictures(vmaf, NULL, NULL, 0) == 0);

    double pooled = -1, first = -1, again = -1, feat = -1;
    CHECK(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &pooled, 0, n - 1) == 0);
    CHECK(pooled >= 0 && pooled <= 100);
    CHECK(vmaf_score_at_index(vmaf, model, &first, 0) == 0);
    CHECK(vmaf_feature_score_at_index(vmaf, "vmaf", &again, 0) == 0);
    CHECK(first == again);
    CHECK(vmaf_feature_score_at_index(vmaf, "vif_num", &feat, 2) == 0);
    CHECK(vmaf_feature_score_pooled(vmaf, "VMAF_feature_adm2_score", VMAF_POOL_METHOD_HARMONIC_MEAN,
                                    &feat, 0, n - 1) == 0);

    /* Models may go before the context. */
    vmaf_model_destroy(model);
    if (out_path) CHECK(vmaf_write_output(vmaf, out_path, VMAF_OUTPUT_FORMAT_JSON) == 0);
    CHECK(strlen(vmaf_version()) > 0);
    CHECK(vmaf_close(vmaf) == 0);

    printf("%s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
