/*
 * Model loading: the JSON model format of Netflix libvmaf v3.2.0
 * (read_json_model.c), validated strictly, plus built-in models, feature
 * option overloads and bootstrap collections.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"
#include "context.h"
#include "exactvmaf/exactvmaf.h"
#include "export.h"
#include "log.h"
#include "model/builtin_models.h"
#include "model/json.h"
#include "model/model_internal.h"
#include "model/numconv.h"

/* Name under which a model's scores are stored when cfg->name is NULL. */
#define EV_MODEL_DEFAULT_NAME "vmaf"

#if defined(__GNUC__)
VMAF_OS_PRINTF(3, 4)
#endif
static int bad(const char *label, const EvJson *at, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (at)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "model %s, line %u: %s", label,
                 at->line, msg);
    else
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "model %s: %s", label, msg);
    return -EINVAL;
}

static void model_free(VmafModel *m)
{
    if (!m) return;
    free(m->name);
    free(m->source);
    for (unsigned i = 0; m->feature && i < m->n_features; i++) {
        free(m->feature[i].name);
        vmaf_dict_free(&m->feature[i].opts);
    }
    free(m->feature);
    ev_svm_free(m->svm);
    free(m);
}

static int parse_names(const char *label, const EvJson *v, VmafModel *m)
{
    if (!v) return bad(label, NULL, "model_dict has no \"feature_names\"");
    if (v->type != EV_JSON_ARRAY)
        return bad(label, v, "\"feature_names\" must be an array, not %s",
                   ev_json_type_name(v->type));
    if (!v->count)
        return bad(label, v, "\"feature_names\" is empty");
    if (v->count > EV_MODEL_MAX_FEATURES)
        return bad(label, v, "%u features; at most %d are supported",
                   v->count, EV_MODEL_MAX_FEATURES);
    m->feature = calloc(v->count, sizeof(*m->feature));
    if (!m->feature) return -ENOMEM;
    m->n_features = v->count;
    for (unsigned i = 0; i < v->count; i++) {
        const EvJson *n = &v->item[i];
        if (n->type != EV_JSON_STRING || !n->str_len)
            return bad(label, n, "feature_names[%u] must be a non-empty string", i);
        m->feature[i].name = strdup(n->str);
        if (!m->feature[i].name) return -ENOMEM;
    }
    return 0;
}

/*
 * "slopes"/"intercepts": element 0 is the model's (output) value, element
 * i+1 feature i's.
 */
static int parse_linear(const char *label, const EvJson *v, const char *key,
                        VmafModel *m, int is_slope)
{
    if (!v) return bad(label, NULL, "model_dict has no \"%s\" (needed by "
                       "norm_type linear_rescale)", key);
    if (v->type != EV_JSON_ARRAY)
        return bad(label, v, "\"%s\" must be an array, not %s", key,
                   ev_json_type_name(v->type));
    if (v->count != m->n_features + 1)
        return bad(label, v, "\"%s\" has %u values; %u features need %u "
                   "(the model's, then one per feature)", key, v->count,
                   m->n_features, m->n_features + 1);
    for (unsigned i = 0; i < v->count; i++) {
        if (v->item[i].type != EV_JSON_NUMBER)
            return bad(label, &v->item[i], "%s[%u] must be a number", key, i);
        const double x = v->item[i].number;
        if (i == 0) {
            if (is_slope && x == 0.0)
                return bad(label, &v->item[i], "slopes[0] is 0: the "
                           "prediction could not be denormalised");
            *(is_slope ? &m->slope : &m->intercept) = x;
        } else {
            EvModelFeature *f = &m->feature[i - 1];
            *(is_slope ? &f->slope : &f->intercept) = x;
        }
    }
    return 0;
}

/*
 * Netflix stores a JSON number option as "%g" of its strtof value, so
 * 0.06 and 1.0 become "0.06" and "1", as the feature names show.
 */
static int opt_value(const char *label, const EvJson *v, const char *key,
                     char *buf, size_t buf_sz, const char **val)
{
    switch (v->type) {
    case EV_JSON_NUMBER: {
        float f;
        if (ev_parse_float(v->str, v->str_len, &f))
            return bad(label, v, "option %s: %s does not fit a float", key, v->str);
        if (ev_format_g(buf, buf_sz, (double)f))
            return bad(label, v, "option %s: cannot format %s", key, v->str);
        *val = buf;
        return 0;
    }
    case EV_JSON_TRUE:
        *val = "true";
        return 0;
    case EV_JSON_FALSE:
        *val = "false";
        return 0;
    case EV_JSON_STRING:
        *val = v->str;
        return 0;
    default:
        return bad(label, v, "option %s: value must be a number, boolean or "
                   "string, not %s", key, ev_json_type_name(v->type));
    }
}

static int parse_opts(const char *label, const EvJson *v, VmafModel *m)
{
    if (v->type != EV_JSON_ARRAY)
        return bad(label, v, "\"feature_opts_dicts\" must be an array, not %s",
                   ev_json_type_name(v->type));
    if (v->count > m->n_features)
        return bad(label, v, "\"feature_opts_dicts\" has %u entries for %u "
                   "features", v->count, m->n_features);
    for (unsigned i = 0; i < v->count; i++) {
        const EvJson *d = &v->item[i];
        if (d->type != EV_JSON_OBJECT)
            return bad(label, d, "feature_opts_dicts[%u] must be an object", i);
        for (unsigned j = 0; j < d->count; j++) {
            char buf[64];
            const char *val;
            int err = opt_value(label, &d->item[j], d->key[j], buf, sizeof(buf),
                                &val);
            if (err) return err;
            err = vmaf_dict_set(&m->feature[i].opts, d->key[j], val);
            if (err) return err;
        }
    }
    return 0;
}

static int parse_poly(const char *label, const EvJson *st, const char *key,
                      bool *enabled, double *value)
{
    const EvJson *v = ev_json_get(st, key);
    *enabled = false;
    if (!v || v->type == EV_JSON_NULL) return 0;
    if (v->type != EV_JSON_NUMBER)
        return bad(label, v, "score_transform.%s must be a number or null", key);
    *enabled = true;
    *value = v->number;
    return 0;
}

/* Netflix writes these flags as the strings "true"/"false". */
static int parse_flag(const char *label, const EvJson *st, const char *key,
                      bool *out)
{
    const EvJson *v = ev_json_get(st, key);
    *out = false;
    if (!v) return 0;
    if (v->type == EV_JSON_TRUE || v->type == EV_JSON_FALSE) {
        *out = v->type == EV_JSON_TRUE;
        return 0;
    }
    if (v->type == EV_JSON_STRING && !strcmp(v->str, "true")) {
        *out = true;
        return 0;
    }
    if (v->type == EV_JSON_STRING && !strcmp(v->str, "false")) return 0;
    return bad(label, v, "score_transform.%s must be \"true\" or \"false\"", key);
}

static int parse_knots(const char *label, const EvJson *v, VmafModel *m)
{
    if (v->type == EV_JSON_NULL) return 0;
    if (v->type != EV_JSON_ARRAY)
        return bad(label, v, "score_transform.knots must be an array or null");
    if (v->count < 2 || v->count > EV_MODEL_MAX_KNOTS)
        return bad(label, v, "score_transform.knots has %u points; 2 to %d "
                   "are supported", v->count, EV_MODEL_MAX_KNOTS);
    for (unsigned i = 0; i < v->count; i++) {
        const EvJson *k = &v->item[i];
        if (k->type != EV_JSON_ARRAY || k->count != 2 ||
            k->item[0].type != EV_JSON_NUMBER || k->item[1].type != EV_JSON_NUMBER)
            return bad(label, k, "knot %u must be [x, y] (two numbers)", i);
        m->transform.knot[i].x = k->item[0].number;
        m->transform.knot[i].y = k->item[1].number;
        /* Netflix's mapping rejects any other knot sequence (and returns 0). */
        if (i && !(m->transform.knot[i - 1].x < m->transform.knot[i].x &&
                   m->transform.knot[i - 1].y <= m->transform.knot[i].y))
            return bad(label, k, "knots must have increasing x and "
                       "non-decreasing y");
    }
    m->transform.n_knots = v->count;
    m->transform.knots_enabled = true;
    return 0;
}

static int parse_transform(const char *label, const EvJson *st, VmafModel *m,
                           uint64_t flags)
{
    if (st->type != EV_JSON_OBJECT)
        return bad(label, st, "\"score_transform\" must be an object");
    const EvJson *en = ev_json_get(st, "enabled");
    if (en && en->type != EV_JSON_TRUE && en->type != EV_JSON_FALSE)
        return bad(label, en, "score_transform.enabled must be true or false");
    /* Without "enabled": true the transform is off unless the caller asks. */
    m->transform.enabled = en && en->type == EV_JSON_TRUE;
    if (flags & VMAF_MODEL_FLAG_ENABLE_TRANSFORM) m->transform.enabled = true;
    if (flags & VMAF_MODEL_FLAG_DISABLE_TRANSFORM) m->transform.enabled = false;

    int err = parse_poly(label, st, "p0", &m->transform.p0.enabled,
                         &m->transform.p0.value);
    if (!err) err = parse_poly(label, st, "p1", &m->transform.p1.enabled,
                               &m->transform.p1.value);
    if (!err) err = parse_poly(label, st, "p2", &m->transform.p2.enabled,
                               &m->transform.p2.value);
    if (!err) err = parse_flag(label, st, "out_lte_in", &m->transform.out_lte_in);
    if (!err) err = parse_flag(label, st, "out_gte_in", &m->transform.out_gte_in);
    const EvJson *k = ev_json_get(st, "knots");
    if (!err && k) err = parse_knots(label, k, m);
    return err;
}

static int parse_clip(const char *label, const EvJson *v, VmafModel *m,
                      uint64_t flags)
{
    if (v->type != EV_JSON_ARRAY || v->count != 2 ||
        v->item[0].type != EV_JSON_NUMBER || v->item[1].type != EV_JSON_NUMBER)
        return bad(label, v, "\"score_clip\" must be [min, max] (two numbers)");
    if (v->item[0].number > v->item[1].number)
        return bad(label, v, "score_clip min %g is above max %g",
                   v->item[0].number, v->item[1].number);
    m->clip.min = v->item[0].number;
    m->clip.max = v->item[1].number;
    m->clip.enabled = !(flags & VMAF_MODEL_FLAG_DISABLE_CLIP);
    return 0;
}

/* Exactly one feature name containing `sub`; its index in *out. */
static int find_one(const char *label, const EvJson *at, const VmafModel *m,
                    const char *sub, unsigned *out)
{
    unsigned found = 0;
    for (unsigned i = 0; i < m->n_features; i++) {
        if (!strstr(m->feature[i].name, sub)) continue;
        *out = i;
        found++;
    }
    if (found != 1)
        return bad(label, at, "chroma_correction_parameter needs exactly one "
                   "feature whose name contains \"%s\" (found %u)", sub, found);
    return 0;
}

static int parse_chroma(const char *label, const EvJson *v, VmafModel *m)
{
    if (v->type != EV_JSON_NUMBER)
        return bad(label, v, "\"chroma_correction_parameter\" must be a number");
    /* A parameter of 0 would map a 0 chroma score to 0: no correction. */
    if (v->number == 0.0) return 0;
    m->chroma.parameter = v->number;
    int err = find_one(label, v, m, "adm3", &m->chroma.guiding);
    if (!err) err = find_one(label, v, m, "speed_chroma", &m->chroma.guided);
    if (err) return err;
    m->chroma.enabled = true;
    return 0;
}

static int parse_type(const char *label, const EvJson *md, VmafModel *m)
{
    const EvJson *v = ev_json_get(md, "model_type");
    if (!v) return bad(label, NULL, "model_dict has no \"model_type\"");
    if (v->type != EV_JSON_STRING)
        return bad(label, v, "\"model_type\" must be a string");
    if (!strcmp(v->str, "LIBSVMNUSVR"))
        m->type = EV_MODEL_TYPE_SVM_NUSVR;
    else if (!strcmp(v->str, "BOOTSTRAP_LIBSVMNUSVR"))
        m->type = EV_MODEL_TYPE_BOOTSTRAP_SVM_NUSVR;
    else if (!strcmp(v->str, "RESIDUEBOOTSTRAP_LIBSVMNUSVR"))
        m->type = EV_MODEL_TYPE_RESIDUE_BOOTSTRAP_SVM_NUSVR;
    else
        return bad(label, v, "unknown model_type \"%s\" (expected LIBSVMNUSVR, "
                   "BOOTSTRAP_LIBSVMNUSVR or RESIDUEBOOTSTRAP_LIBSVMNUSVR)", v->str);

    v = ev_json_get(md, "norm_type");
    if (!v) return bad(label, NULL, "model_dict has no \"norm_type\"");
    if (v->type != EV_JSON_STRING)
        return bad(label, v, "\"norm_type\" must be a string");
    if (!strcmp(v->str, "linear_rescale"))
        m->norm = EV_MODEL_NORM_LINEAR_RESCALE;
    else if (!strcmp(v->str, "none"))
        m->norm = EV_MODEL_NORM_NONE;
    else
        return bad(label, v, "unknown norm_type \"%s\" (expected "
                   "linear_rescale or none)", v->str);
    return 0;
}

static int parse_model_dict(const char *label, const EvJson *md,
                            const char *name, uint64_t flags, VmafModel **out)
{
    if (md->type != EV_JSON_OBJECT)
        return bad(label, md, "\"model_dict\" must be an object");

    int err = -ENOMEM;
    VmafModel *m = calloc(1, sizeof(*m));
    if (!m) goto fail;
    m->name = strdup(name);
    m->source = strdup(label);
    if (!m->name || !m->source) goto fail;

    err = parse_type(label, md, m);
    if (err) goto fail;
    err = parse_names(label, ev_json_get(md, "feature_names"), m);
    if (err) goto fail;

    const EvJson *slopes = ev_json_get(md, "slopes");
    const EvJson *intercepts = ev_json_get(md, "intercepts");
    if (m->norm == EV_MODEL_NORM_LINEAR_RESCALE || slopes || intercepts) {
        err = parse_linear(label, slopes, "slopes", m, 1);
        if (!err) err = parse_linear(label, intercepts, "intercepts", m, 0);
        if (err) goto fail;
    }

    const EvJson *v = ev_json_get(md, "feature_opts_dicts");
    if (v && (err = parse_opts(label, v, m))) goto fail;
    v = ev_json_get(md, "score_clip");
    if (v && (err = parse_clip(label, v, m, flags))) goto fail;
    v = ev_json_get(md, "score_transform");
    if (v && (err = parse_transform(label, v, m, flags))) goto fail;
    v = ev_json_get(md, "chroma_correction_parameter");
    if (v && (err = parse_chroma(label, v, m))) goto fail;

    v = ev_json_get(md, "model");
    if (!v) {
        err = bad(label, NULL, "model_dict has no \"model\" (the libsvm model)");
        goto fail;
    }
    if (v->type != EV_JSON_STRING) {
        err = bad(label, v, "\"model\" must be a string");
        goto fail;
    }
    char msg[256];
    err = ev_svm_parse(v->str, v->str_len, m->n_features, &m->svm, msg,
                       sizeof(msg));
    if (err) {
        if (err != -ENOMEM) bad(label, v, "%s", msg);
        goto fail;
    }

    *out = m;
    return 0;

fail:
    if (err == -ENOMEM)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "model %s: out of memory", label);
    model_free(m);
    return err;
}

static int parse_document(const char *label, const char *data, size_t size,
                          EvJson **root)
{
    char msg[256];
    const int err = ev_json_parse(data, size, root, msg, sizeof(msg));
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "model %s: invalid JSON: %s", label, msg);
        return err;
    }
    if ((*root)->type != EV_JSON_OBJECT) {
        bad(label, *root, "the document must be a JSON object");
        ev_json_free(*root);
        *root = NULL;
        return -EINVAL;
    }
    return 0;
}

static const char *cfg_name(const VmafModelConfig *cfg)
{
    return cfg && cfg->name ? cfg->name : EV_MODEL_DEFAULT_NAME;
}

static uint64_t cfg_flags(const VmafModelConfig *cfg)
{
    return cfg ? cfg->flags : 0;
}

int ev_model_load_from_buffer(VmafModel **model, const VmafModelConfig *cfg,
                              const char *label, const char *data, size_t size)
{
    if (!model) return -EINVAL;
    *model = NULL;
    EvJson *root;
    int err = parse_document(label, data, size, &root);
    if (err) return err;
    const EvJson *md = ev_json_get(root, "model_dict");
    if (!md) {
        if (ev_json_get(root, "0"))
            /* The caller may go on to try it as a collection, as Netflix's tool does. */
            vmaf_log(VMAF_LOG_LEVEL_INFO, "model %s is a model collection; "
                     "load it with vmaf_model_collection_load*()", label);
        else
            bad(label, NULL, "no \"model_dict\" object");
        err = -EINVAL;
    } else {
        err = parse_model_dict(label, md, cfg_name(cfg), cfg_flags(cfg), model);
    }
    ev_json_free(root);
    return err;
}

static int collection_append(VmafModelCollection *mc, VmafModel *m,
                             unsigned *cap)
{
    if (mc->cnt == *cap) {
        const unsigned n = *cap ? *cap * 2 : 8;
        VmafModel **p = realloc(mc->model, n * sizeof(*p));
        if (!p) return -ENOMEM;
        mc->model = p;
        *cap = n;
    }
    mc->model[mc->cnt++] = m;
    return 0;
}

/*
 * Members "0", "1", ... in this order (Netflix reads them sequentially and
 * skips any other key). "0" is the main model, scored under the config's
 * name; "1".."N" form the collection, scored as <name>_0001.. <name>_N.
 */
int ev_model_collection_load_from_buffer(VmafModel **model,
                                         VmafModelCollection **out,
                                         const VmafModelConfig *cfg,
                                         const char *label, const char *data,
                                         size_t size)
{
    if (!model || !out) return -EINVAL;
    *model = NULL;
    *out = NULL;
    EvJson *root;
    int err = parse_document(label, data, size, &root);
    if (err) return err;

    const char *base = cfg_name(cfg);
    const uint64_t flags = cfg_flags(cfg);
    VmafModel *main_model = NULL;
    unsigned cap = 0;
    char *name = malloc(strlen(base) + 16);
    VmafModelCollection *mc = calloc(1, sizeof(*mc));
    if (!mc || !name || !(mc->name = strdup(base))) {
        err = -ENOMEM;
        goto fail;
    }

    unsigned next = 0;
    for (unsigned i = 0; i < root->count; i++) {
        char key[16];
        snprintf(key, sizeof(key), "%u", next);
        if (strcmp(root->key[i], key)) continue;
        if (next == 0)
            strcpy(name, base);
        else
            sprintf(name, "%s_%04u", base, next);

        char sub_label[512];
        snprintf(sub_label, sizeof(sub_label), "%s[\"%s\"]", label, key);
        const EvJson *md = ev_json_get(&root->item[i], "model_dict");
        if (root->item[i].type != EV_JSON_OBJECT || !md) {
            err = bad(sub_label, &root->item[i], "must be an object with a "
                      "\"model_dict\"");
            goto fail;
        }
        VmafModel *m;
        err = parse_model_dict(sub_label, md, name, flags, &m);
        if (err) goto fail;

        if (next == 0) {
            main_model = m;
        } else {
            if (mc->cnt && m->type != mc->type) {
                model_free(m);
                err = bad(sub_label, md, "model_type differs from model \"1\"'s");
                goto fail;
            }
            mc->type = m->type;
            err = collection_append(mc, m, &cap);
            if (err) {
                model_free(m);
                goto fail;
            }
        }
        next++;
    }

    if (!main_model || !mc->cnt) {
        if (ev_json_get(root, "model_dict"))
            err = bad(label, NULL, "is a single model, not a collection; load "
                      "it with vmaf_model_load*()");
        else
            err = bad(label, NULL, "a model collection needs members \"0\" "
                      "(the main model) and \"1\", \"2\", ... (the "
                      "bootstrap models)");
        goto fail;
    }
    if (mc->type != EV_MODEL_TYPE_BOOTSTRAP_SVM_NUSVR &&
        mc->type != EV_MODEL_TYPE_RESIDUE_BOOTSTRAP_SVM_NUSVR) {
        err = bad(label, NULL, "the collection's models must be "
                  "BOOTSTRAP_LIBSVMNUSVR or RESIDUEBOOTSTRAP_LIBSVMNUSVR");
        goto fail;
    }

    free(name);
    ev_json_free(root);
    *model = main_model;
    *out = mc;
    return 0;

fail:
    if (err == -ENOMEM)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "model %s: out of memory", label);
    free(name);
    model_free(main_model);
    vmaf_model_collection_destroy(mc);
    ev_json_free(root);
    return err;
}

static const EvBuiltinModel *find_builtin(const char *version)
{
    for (unsigned i = 0; i < ev_builtin_model_count; i++)
        if (!strcmp(ev_builtin_models[i].version, version))
            return &ev_builtin_models[i];
    return NULL;
}

static void log_unknown_version(const char *version)
{
    char list[1024];
    size_t o = 0;
    list[0] = '\0';
    for (unsigned i = 0; i < ev_builtin_model_count && o < sizeof(list); i++) {
        int n = snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "",
                         ev_builtin_models[i].version);
        if (n < 0) break;
        o += (size_t)n;
    }
    vmaf_log(VMAF_LOG_LEVEL_ERROR, "no built-in model \"%s\"; built-in models: %s",
             version, list);
}

/* Read a whole file; the caller frees *data. quiet: no message (the caller
 * only probes; a loader says what is wrong). */
static int read_file_as(const char *path, char **data, size_t *size, bool quiet)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        const int e = errno;
        if (!quiet)
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "cannot open model file \"%s\": %s",
                     path, strerror(e));
        return e ? -e : -EIO;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int err = buf ? 0 : -ENOMEM;
    while (!err) {
        if (n == cap) {
            if (cap > EV_JSON_MAX_SIZE) {
                if (!quiet)
                    vmaf_log(VMAF_LOG_LEVEL_ERROR, "model file \"%s\" is larger "
                             "than %zu bytes", path, EV_JSON_MAX_SIZE);
                err = -EFBIG;
                break;
            }
            char *p = realloc(buf, cap * 2);
            if (!p) {
                err = -ENOMEM;
                break;
            }
            buf = p;
            cap *= 2;
        }
        const size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) {
                if (!quiet)
                    vmaf_log(VMAF_LOG_LEVEL_ERROR, "error reading model file \"%s\"",
                             path);
                err = -EIO;
            }
            break;
        }
    }
    fclose(f);
    if (err) {
        free(buf);
        return err;
    }
    *data = buf;
    *size = n;
    return 0;
}

static int read_file(const char *path, char **data, size_t *size)
{
    return read_file_as(path, data, size, false);
}

VMAF_EXPORT int exactvmaf_model_file_is_collection(const char *path)
{
    vmaf_log_bind(0);
    if (!path) return -EINVAL;
    char *data = NULL;
    size_t size = 0;
    int err = read_file_as(path, &data, &size, true);
    if (err) return err;
    EvJson *root = NULL;
    char msg[160];
    err = ev_json_parse(data, size, &root, msg, sizeof(msg)) ? -EINVAL : 0;
    const int collection = !err && root->type == EV_JSON_OBJECT &&
                           !ev_json_get(root, "model_dict") && ev_json_get(root, "0");
    ev_json_free(root);
    free(data);
    return err ? err : collection;
}

VMAF_EXPORT int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg,
                                const char *version)
{
    vmaf_log_bind(0);
    if (!model || !version) return -EINVAL;
    *model = NULL;
    const EvBuiltinModel *b = find_builtin(version);
    if (!b) {
        log_unknown_version(version);
        return -EINVAL;
    }
    return ev_model_load_from_buffer(model, cfg, version,
                                     (const char *)b->data, b->size);
}

VMAF_EXPORT int vmaf_model_load_from_path(VmafModel **model,
                                          VmafModelConfig *cfg,
                                          const char *path)
{
    vmaf_log_bind(0);
    if (!model || !path) return -EINVAL;
    *model = NULL;
    const char *ext = strrchr(path, '.');
    if (ext && !strcmp(ext, ".pkl")) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "model \"%s\": pkl models are not "
                 "supported, use the JSON model", path);
        return -EINVAL;
    }
    char *data;
    size_t size;
    int err = read_file(path, &data, &size);
    if (err) return err;
    err = ev_model_load_from_buffer(model, cfg, path, data, size);
    free(data);
    return err;
}

VMAF_EXPORT void vmaf_model_destroy(VmafModel *model)
{
    vmaf_log_bind(0);
    model_free(model);
}

VMAF_EXPORT int vmaf_model_collection_load(VmafModel **model,
                                           VmafModelCollection **model_collection,
                                           VmafModelConfig *cfg,
                                           const char *version)
{
    vmaf_log_bind(0);
    if (!model || !model_collection || !version) return -EINVAL;
    *model = NULL;
    *model_collection = NULL;
    const EvBuiltinModel *b = find_builtin(version);
    if (!b) {
        log_unknown_version(version);
        return -EINVAL;
    }
    return ev_model_collection_load_from_buffer(model, model_collection, cfg,
                                                version, (const char *)b->data,
                                                b->size);
}

VMAF_EXPORT int vmaf_model_collection_load_from_path(VmafModel **model,
                                                     VmafModelCollection **model_collection,
                                                     VmafModelConfig *cfg,
                                                     const char *path)
{
    vmaf_log_bind(0);
    if (!model || !model_collection || !path) return -EINVAL;
    *model = NULL;
    *model_collection = NULL;
    char *data;
    size_t size;
    int err = read_file(path, &data, &size);
    if (err) return err;
    err = ev_model_collection_load_from_buffer(model, model_collection, cfg, path,
                                               data, size);
    free(data);
    return err;
}

VMAF_EXPORT void vmaf_model_collection_destroy(VmafModelCollection *model_collection)
{
    vmaf_log_bind(0);
    if (!model_collection) return;
    for (unsigned i = 0; i < model_collection->cnt; i++)
        model_free(model_collection->model[i]);
    free(model_collection->model);
    free(model_collection->name);
    free(model_collection);
}

/*
 * Overloads are prepared (merged copies) for every model first and then
 * swapped in, so a failure leaves every model as it was.
 */
typedef struct Overload {
    VmafModel *model;
    VmafDict *merged[EV_MODEL_MAX_FEATURES];
} Overload;

static int overload_prepare(Overload *o, VmafModel *m, const char *fex_name,
                            const VmafDict *opts, unsigned *matched)
{
    memset(o, 0, sizeof(*o));
    o->model = m;
    for (unsigned i = 0; i < m->n_features; i++) {
        const char *name = vmaf_fex_name_for_feature(m->feature[i].name);
        if (!name || strcmp(name, fex_name)) continue;
        const int err = vmaf_dict_merge(m->feature[i].opts, opts, &o->merged[i]);
        if (err) return err;
        (*matched)++;
    }
    return 0;
}

static void overload_discard(Overload *o)
{
    for (unsigned i = 0; i < EV_MODEL_MAX_FEATURES; i++)
        vmaf_dict_free(&o->merged[i]);
}

static void overload_commit(Overload *o)
{
    VmafModel *m = o->model;
    for (unsigned i = 0; i < m->n_features; i++) {
        if (!o->merged[i]) continue;
        vmaf_dict_free(&m->feature[i].opts);
        m->feature[i].opts = o->merged[i];
        o->merged[i] = NULL;
    }
}

static int overload(VmafModel **models, unsigned n, const char *feature_name,
                    VmafFeatureDictionary *opts_dict)
{
    VmafDict *opts = (VmafDict *)opts_dict;
    Overload *o = calloc(n, sizeof(*o));
    if (!o) return -ENOMEM;
    unsigned matched = 0;
    int err = 0;
    for (unsigned i = 0; i < n && !err; i++)
        err = overload_prepare(&o[i], models[i], feature_name, opts, &matched);
    if (!err) {
        for (unsigned i = 0; i < n; i++)
            overload_commit(&o[i]);
        if (!matched)
            vmaf_log(VMAF_LOG_LEVEL_WARNING, "feature overload: no feature of "
                     "model %s is computed by extractor \"%s\"; options "
                     "ignored", models[0]->source, feature_name);
        vmaf_dict_free(&opts);
    }
    for (unsigned i = 0; i < n; i++)
        overload_discard(&o[i]);
    free(o);
    return err;
}

VMAF_EXPORT int vmaf_model_feature_overload(VmafModel *model,
                                            const char *feature_name,
                                            VmafFeatureDictionary *opts_dict)
{
    vmaf_log_bind(0);
    if (!model || !feature_name || !opts_dict) return -EINVAL;
    return overload(&model, 1, feature_name, opts_dict);
}

VMAF_EXPORT int vmaf_model_collection_feature_overload(VmafModel *model,
                                                       VmafModelCollection **model_collection,
                                                       const char *feature_name,
                                                       VmafFeatureDictionary *opts_dict)
{
    vmaf_log_bind(0);
    if (!model || !model_collection || !*model_collection || !feature_name ||
        !opts_dict)
        return -EINVAL;
    VmafModelCollection *mc = *model_collection;
    VmafModel **all = malloc((mc->cnt + 1) * sizeof(*all));
    if (!all) return -ENOMEM;
    all[0] = model;
    memcpy(all + 1, mc->model, mc->cnt * sizeof(*all));
    const int err = overload(all, mc->cnt + 1, feature_name, opts_dict);
    free(all);
    return err;
}
