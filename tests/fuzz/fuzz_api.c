/*
 * The library API in the order a client calls it: init, register features
 * (with fuzzed options) and maybe a model, read pictures of fuzzed
 * geometry and content, flush, score, write the output. Frames from 1x1
 * to 240x240 reach every extractor's size checks and its computation.
 *
 * Input: w, h, pixel format (bit 7: 160 added to w and h), bit depth,
 * frame count, extractor mask (2 bytes), threads, subsample, model, output
 * format (bit 7: to a regular file rather than /dev/null), then an option
 * string for the first chosen extractor (NUL-terminated), then sample
 * bytes (repeated as needed).
 */
#include <stdbool.h>

#include "fuzz_common.h"
#include "feature/extractor.h"
#include "libvmaf/libvmaf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fill(VmafPicture *pic, const uint8_t *src, size_t n, size_t *pos)
{
    const unsigned max = (1u << pic->bpc) - 1;
    for (unsigned p = 0; p < 3 && pic->data[p]; p++) {
        for (unsigned y = 0; y < pic->h[p]; y++) {
            uint8_t *row = pic->data[p] + (size_t)y * pic->stride[p];
            for (unsigned x = 0; x < pic->w[p]; x++) {
                unsigned v = n ? src[(*pos)++ % n] : 0;
                if (pic->bpc > 8) {
                    v |= (n ? src[(*pos)++ % n] : 0u) << 8;
                    ((uint16_t *)row)[x] = (uint16_t)(v & max);
                } else {
                    row[x] = (uint8_t)v;
                }
            }
        }
    }
}

/* "key=val:key=val" into a dictionary; malformed pairs are skipped. */
static VmafFeatureDictionary *parse_opts(char *s)
{
    VmafFeatureDictionary *d = NULL;
    for (char *pair = strtok(s, ":"); pair; pair = strtok(NULL, ":")) {
        char *eq = strchr(pair, '=');
        if (!eq) continue;
        *eq = '\0';
        vmaf_feature_dictionary_set(&d, pair, eq + 1);
    }
    return d;
}

/* Models by index and clip flag, kept for the whole run (never freed). */
static struct {
    bool tried;
    VmafModel *model;
    VmafModelCollection *mc;
} cache[10];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P, VMAF_PIX_FMT_YUV400P };
    static const unsigned depths[] = { 8, 10, 12, 16 };
    static const char *const models[] = { NULL, "vmaf_float_v0.6.1", "vmaf_float_b_v0.6.3",
                                          "vmaf_v0.6.1", "vmaf_float_v0.6.1neg" };
    FuzzIn in = { data, size };
    unsigned w = 1 + fuzz_byte(&in) % 80, h = 1 + fuzz_byte(&in) % 80;
    const unsigned fmt_byte = fuzz_byte(&in);
    /* Bit 7: large frames, for the extractors with large minimums
     * (float_ms_ssim 176x176, cambi 216 wide or high). */
    if (fmt_byte & 0x80) w += 160, h += 160;
    const enum VmafPixelFormat pix_fmt = fmts[fmt_byte % 4];
    const unsigned bpc = depths[fuzz_byte(&in) % 4];
    const unsigned n_frames = 1 + fuzz_byte(&in) % 4;
    const unsigned mask = fuzz_u16(&in);
    const unsigned threads = fuzz_byte(&in) % 3, subsample = fuzz_byte(&in) % 3;
    const unsigned model_idx = fuzz_byte(&in) % 5;
    const char *model_name = models[model_idx];
    const unsigned out_byte = fuzz_byte(&in);
    const enum VmafOutputFormat out_fmt = 1 + out_byte % 4;
    char *opts = fuzz_string(&in, 256);

    VmafContext *v = NULL;
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE, .n_threads = threads,
                                    .n_subsample = subsample };
    VmafModel *model = NULL;
    VmafModelCollection *mc = NULL;
    if (vmaf_init(&v, cfg)) goto done;

    unsigned bit = 0, registered = 0;
    for (const VmafFeatureExtractor *const *f = vmaf_fex_list(); *f; f++, bit++) {
        if (!(*f)->extract || !(mask >> (bit % 16) & 1)) continue;
        VmafFeatureDictionary *d = registered ? NULL : parse_opts(opts);
        if (!vmaf_use_feature(v, (*f)->name, d)) registered++;
    }
    if (model_name) {
        /* Loaded once: parsing a bootstrap collection would otherwise take
         * most of each run (the model loader has its own target). */
        const unsigned k = model_idx + 5 * (mask >> 15);
        if (!cache[k].tried) {
            VmafModelConfig mcfg = { .name = "vmaf", .flags = mask >> 15 };
            cache[k].tried = true;
            if (vmaf_model_load(&cache[k].model, &mcfg, model_name))
                vmaf_model_collection_load(&cache[k].model, &cache[k].mc, &mcfg, model_name);
        }
        model = cache[k].model;
        mc = cache[k].mc;
        if (mc) vmaf_use_features_from_model_collection(v, mc);
        else if (model) vmaf_use_features_from_model(v, model);
    }

    size_t pos = 0;
    unsigned read = 0;
    for (unsigned i = 0; i < n_frames; i++) {
        VmafPicture ref, dist;
        if (vmaf_picture_alloc(&ref, pix_fmt, bpc, w, h)) break;
        if (vmaf_picture_alloc(&dist, pix_fmt, bpc, w, h)) {
            vmaf_picture_unref(&ref);
            break;
        }
        fill(&ref, in.p, in.left, &pos);
        fill(&dist, in.p, in.left, &pos);
        if (vmaf_read_pictures(v, &ref, &dist, i)) break;
        read++;
    }
    if (vmaf_read_pictures(v, NULL, NULL, 0) || !read) goto done;
    if (model) {
        double s;
        for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++)
            vmaf_score_pooled(v, model, m, &s, 0, read - 1);
        vmaf_score_at_index(v, model, &s, read - 1);
    }
    if (mc) {
        VmafModelCollectionScore cs;
        vmaf_score_pooled_model_collection(v, mc, VMAF_POOL_METHOD_MEAN, &cs, 0, read - 1);
    }
    /* A regular file goes through the temporary-file-and-rename path. */
    if (out_byte & 0x80) {
        static char path[64];
        if (!path[0]) snprintf(path, sizeof(path), "/tmp/exactvmaf_fuzz_api.%ld", (long)getpid());
        vmaf_write_output(v, path, out_fmt);
        unlink(path);
    } else {
        vmaf_write_output(v, "/dev/null", out_fmt);
    }

done:
    if (v) vmaf_close(v);
    free(opts);
    return 0;
}
