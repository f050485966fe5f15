/*
 * Option strings: the CLI's command-line parser (every flag, --feature
 * NAME=OPT=VAL:..., --model key=val:FEATURE.OPT=VAL, duplicates, presets),
 * then what the tool does with the result: the library checks each
 * extractor's options (vmaf_use_feature: names, aliases, types, ranges)
 * and applies model overloads. The input is argv, arguments separated by
 * NUL bytes. Model files (path=) are not opened.
 */
#include "fuzz_common.h"
#include "cli.h"
#include "libvmaf/libvmaf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void use(CliSettings *c)
{
    VmafContext *v = NULL;
    const VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    if (vmaf_init(&v, cfg)) return;
    for (unsigned i = 0; i < c->n_model && i < 4; i++) {
        CliModel *cm = &c->model[i];
        if (!cm->version) continue;
        VmafModel *m = NULL;
        VmafModelCollection *mc = NULL;
        int err = vmaf_model_load(&m, &cm->cfg, cm->version);
        if (err) err = vmaf_model_collection_load(&m, &mc, &cm->cfg, cm->version);
        if (err) continue;
        for (unsigned j = 0; j < cm->n_overload; j++) {
            if (mc) vmaf_model_collection_feature_overload(m, &mc, cm->overload[j].feature,
                                                           cm->overload[j].opts);
            else vmaf_model_feature_overload(m, cm->overload[j].feature, cm->overload[j].opts);
            cm->overload[j].opts = NULL;
        }
        if (mc) vmaf_use_features_from_model_collection(v, mc);
        else vmaf_use_features_from_model(v, m);
        vmaf_model_destroy(m);
        vmaf_model_collection_destroy(mc);
    }
    for (unsigned i = 0; i < c->n_feature; i++) {
        vmaf_use_feature(v, c->feature[i].name, c->feature[i].opts);
        c->feature[i].opts = NULL;
    }
    vmaf_close(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { MAX_ARGS = 64 };
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "exactvmaf";
    for (size_t i = 0; i < size && argc <= MAX_ARGS; i += strlen(buf + i) + 1)
        argv[argc++] = buf + i;
    argv[argc] = NULL;

    CliSettings c;
    if (cli_parse(argc, argv, &c) == CLI_PARSE_RUN) use(&c);
    cli_free(&c);
    free(buf);
    return 0;
}
