/*
 * src/model/json.c, the strict JSON parser model files are read with, and
 * the model loader on top of it (src/model/model.c): the documents it
 * accepts and what it builds from them, every class of malformed input
 * with the message and position it reports, its limits at and past their
 * edges, and every allocation failing in turn.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exactvmaf/exactvmaf.h"
#include "model/json.h"
#include "model/model_internal.h"
#include "unit.h"

static EvJson *parse(const char *text)
{
    EvJson *root = NULL;
    char msg[256];
    const int err = ev_json_parse(text, strlen(text), &root, msg, sizeof(msg));
    if (err) fprintf(stderr, "unexpected refusal of %s: %s\n", text, msg);
    CHECK(err == 0 && root);
    return root;
}

/* text is refused with a message that contains `want` (position included). */
#define REFUSED(text, want) refused_at(__LINE__, text, sizeof(text) - 1, want)

static void refused_at(int line, const char *text, size_t len, const char *want)
{
    EvJson *root = (EvJson *)&root;
    char msg[256];
    const int err = ev_json_parse(text, len, &root, msg, sizeof(msg));
    const bool ok = err == -EINVAL && root == NULL && strstr(msg, want);
    CHECK(ok);
    if (!ok) fprintf(stderr, "  line %d: got %d \"%s\", want \"%s\"\n", line, err, msg, want);
    ev_json_free(err ? NULL : root);
}

static void test_values(void)
{
    EvJson *r = parse(" {\"a\": [1, -0.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\"],"
                      "\n  \"b\": {}, \"c\": [], \"d\": -0, \"e\": 1E+2} \r\n\t");
    CHECK(r->type == EV_JSON_OBJECT && r->count == 5 && r->line == 1 && r->column == 2);
    const EvJson *a = ev_json_get(r, "a");
    CHECK(a && a->type == EV_JSON_ARRAY && a->count == 6);
    CHECK(a->item[0].type == EV_JSON_NUMBER && a->item[0].number == 1.0);
    CHECK(a->item[1].number == -500.0 && !strcmp(a->item[1].str, "-0.5e3"));
    CHECK(a->item[2].type == EV_JSON_TRUE && a->item[3].type == EV_JSON_FALSE);
    CHECK(a->item[4].type == EV_JSON_NULL);
    /* é in two bytes, U+1F600 from its surrogate pair in four. */
    CHECK(a->item[5].type == EV_JSON_STRING && a->item[5].str_len == 8 &&
          !memcmp(a->item[5].str, "x\xc3\xa9\xf0\x9f\x98\x80\n", 9));
    const EvJson *b = ev_json_get(r, "b");
    CHECK(b && b->type == EV_JSON_OBJECT && b->count == 0 && b->line == 2 && b->column == 8);
    CHECK(ev_json_get(r, "c")->count == 0);
    const EvJson *d = ev_json_get(r, "d");
    CHECK(d->number == 0.0 && !strcmp(d->str, "-0"));
    CHECK(ev_json_get(r, "e")->number == 100.0);
    CHECK(ev_json_get(r, "z") == NULL && ev_json_get(r, NULL) == NULL);
    CHECK(ev_json_get(a, "a") == NULL && ev_json_get(NULL, "a") == NULL);
    ev_json_free(r);

    /* Any value is a document; UTF-8 passes through; escapes decode. */
    r = parse("42");
    CHECK(r->type == EV_JSON_NUMBER && r->number == 42.0);
    ev_json_free(r);
    r = parse("\"\xe2\x82\xac \\\" \\\\ \\/ \\b\\f\\r\\t\"");
    CHECK(r->type == EV_JSON_STRING && !strcmp(r->str, "\xe2\x82\xac \" \\ / \b\f\r\t"));
    ev_json_free(r);
    r = parse("null");
    CHECK(r->type == EV_JSON_NULL);
    ev_json_free(r);
    /* Numbers read as strtod reads them: the nearest double. */
    r = parse("[0.1, 2.2250738585072014e-308, 4.9e-324, 1.7976931348623157e308]");
    CHECK(r->item[0].number == 0.1 && r->item[1].number == 2.2250738585072014e-308);
    CHECK(r->item[2].number == 4.9e-324 && r->item[3].number == 1.7976931348623157e308);
    ev_json_free(r);

    CHECK(!strcmp(ev_json_type_name(EV_JSON_TRUE), "boolean"));
    CHECK(!strcmp(ev_json_type_name(EV_JSON_OBJECT), "object"));
    CHECK(!strcmp(ev_json_type_name((enum EvJsonType)99), "?"));
    ev_json_free(NULL);
}

static void test_refusals(void)
{
    REFUSED("", "line 1, column 1: empty document");
    REFUSED(" \n ", "line 2, column 2: unexpected end of input");
    REFUSED("{\"a\":1,}", "column 8: trailing comma");
    REFUSED("[1,]", "trailing comma");
    REFUSED("[1 2]", "column 4: expected ',' or ']'");
    REFUSED("{\"a\" 1}", "expected ':' after key");
    REFUSED("{1:2}", "expected a string key");
    REFUSED("{\"a\":1", "unexpected end of input in object");
    REFUSED("[", "unexpected end of input");
    REFUSED("01", "leading zero");
    REFUSED("-", "a digit must follow '-'");
    REFUSED("-a", "a digit must follow '-'");
    REFUSED("1.", "a digit must follow '.'");
    REFUSED("1.e5", "a digit must follow '.'");
    REFUSED("1e", "the exponent has no digits");
    REFUSED("1e+", "the exponent has no digits");
    REFUSED("+1", "unexpected character '+'");
    REFUSED(".5", "unexpected character '.'");
    REFUSED("1x", "invalid character after number");
    REFUSED("[1true]", "invalid character after number");
    REFUSED("1e999", "out of the range of a double");
    REFUSED("-1e400", "out of the range of a double");
    REFUSED("tru", "expected \"true\"");
    REFUSED("nul", "expected \"null\"");
    REFUSED("True", "unexpected character 'T'");
    REFUSED("NaN", "unexpected character 'N'");
    REFUSED("\x01", "unexpected byte 0x01");
    REFUSED("\xef\xbb\xbf{}", "unexpected byte 0xef");      /* no byte-order mark */
    REFUSED("{} x", "column 4: unexpected data after the JSON value");
    REFUSED("1 2", "unexpected data after");
    REFUSED("// c\n{}", "unexpected character '/'");
    REFUSED("\"abc", "unterminated string");
    REFUSED("\"abc\\\"", "unterminated string");
    REFUSED("\"abc\\", "unterminated string");
    REFUSED("\"a\tb\"", "column 3: control character 0x09");
    REFUSED("\"a\nb\"", "control character 0x0a");
    REFUSED("\"\\x\"", "invalid escape sequence");
    REFUSED("\"\\u12\"", "invalid \\u escape");
    REFUSED("\"\\u12g4\"", "invalid \\u escape");
    REFUSED("\"\\udc00\"", "lone low surrogate");
    REFUSED("\"\\ud800\"", "high surrogate not followed by a low surrogate");
    REFUSED("\"\\ud800\\u0041\"", "high surrogate not followed by a low surrogate");
    REFUSED("\"\\ud800\\ud800\"", "high surrogate not followed by a low surrogate");
    REFUSED("\"\\u0000\"", "\\u0000 in strings is not supported");
    REFUSED("\"\xff\"", "invalid UTF-8");
    REFUSED("\"\xc0\x80\"", "invalid UTF-8");                 /* overlong */
    REFUSED("\"\xe0\x80\xaf\"", "invalid UTF-8");             /* overlong */
    REFUSED("\"\xed\xa0\x80\"", "invalid UTF-8");             /* a surrogate */
    REFUSED("\"\xf4\x90\x80\x80\"", "invalid UTF-8");         /* above U+10FFFF */
    REFUSED("\"\xe2\x82\"", "invalid UTF-8");                 /* cut short */
    REFUSED("\"\x80\"", "invalid UTF-8");                     /* a continuation first */
    /* A NUL byte is not whitespace, and ends no string. */
    REFUSED("{}\0", "unexpected data after");
    REFUSED("\"a\0b\"", "control character 0x00");
    /* Positions: lines counted from 1, columns in bytes from 1. */
    REFUSED("{\n  \"a\": tru\n}", "line 2, column 8: invalid literal");
    REFUSED("[\r\n1,\n\n  x]", "line 4, column 3: unexpected character 'x'");

    /* Duplicate keys, few (pairwise) and many (sorted), at the object's brace. */
    REFUSED("{\"a\":1, \"b\":2, \"a\":3}", "line 1, column 1: duplicate key \"a\"");
    char many[1024];
    size_t o = (size_t)snprintf(many, sizeof(many), "[\n {");
    for (int i = 0; i < 40; i++)
        o += (size_t)snprintf(many + o, sizeof(many) - o, "\"k%d\":%d,", i, i);
    snprintf(many + o, sizeof(many) - o, "\"k17\":0}]");
    EvJson *r = NULL;
    char msg[128];
    CHECK(ev_json_parse(many, strlen(many), &r, msg, sizeof(msg)) == -EINVAL);
    CHECK(strstr(msg, "line 2, column 2: duplicate key \"k17\"") != NULL);
    many[strlen(many) - 6] = '8';       /* "k18" is new: accepted */
    many[strlen(many) - 7] = '4';       /* "k48" */
    r = parse(many);
    CHECK(r && r->item[0].count == 41);
    ev_json_free(r);

    /* The message is cut to the buffer and ends in a NUL; no buffer is fine. */
    r = (EvJson *)&r;
    memset(msg, 'x', sizeof(msg));
    CHECK(ev_json_parse("[1,]", 4, &r, msg, 10) == -EINVAL && r == NULL);
    CHECK(strlen(msg) == 9 && msg[10] == 'x');
    CHECK(ev_json_parse("[1,]", 4, &r, NULL, 0) == -EINVAL);
    CHECK(ev_json_parse(NULL, 4, &r, msg, sizeof(msg)) == -EINVAL && strstr(msg, "empty"));
    CHECK(ev_json_parse("1", 1, NULL, msg, sizeof(msg)) == -EINVAL);
}

/* Depth, value count and size: at each limit accepted, one past refused. */
static void test_limits(void)
{
    char deep[2 * EV_JSON_MAX_DEPTH + 3];
    for (int extra = 0; extra < 2; extra++) {
        const int n = EV_JSON_MAX_DEPTH + extra;
        memset(deep, '[', (size_t)n);
        memset(deep + n, ']', (size_t)n);
        EvJson *r = NULL;
        char msg[128];
        const int err = ev_json_parse(deep, 2 * (size_t)n, &r, msg, sizeof(msg));
        CHECK(extra ? err == -EINVAL && strstr(msg, "nesting deeper than 64") : err == 0);
        ev_json_free(r);
    }

    const size_t values = EV_JSON_MAX_VALUES;
    char *big = malloc(2 * values + 8);
    CHECK(big != NULL);
    if (big) {
        for (int extra = 0; extra < 2; extra++) {
            /* The array itself and values - 1 + extra numbers. */
            const size_t n = values - 1 + (size_t)extra;
            size_t o = 0;
            big[o++] = '[';
            for (size_t i = 0; i < n; i++) {
                big[o++] = '0';
                big[o++] = ',';
            }
            big[o - 1] = ']';
            EvJson *r = NULL;
            char msg[128];
            const int err = ev_json_parse(big, o, &r, msg, sizeof(msg));
            CHECK(extra ? err == -EINVAL && strstr(msg, "more than 1048576 values")
                        : err == 0 && r->count == n);
            ev_json_free(r);
        }
        free(big);
    }

    /* Refused by its size before a byte of it is read. */
    char *huge = malloc(EV_JSON_MAX_SIZE + 1);
    CHECK(huge != NULL);
    if (huge) {
        EvJson *r = NULL;
        char msg[128];
        CHECK(ev_json_parse(huge, EV_JSON_MAX_SIZE + 1, &r, msg, sizeof(msg)) == -EINVAL);
        CHECK(strstr(msg, "document larger than") != NULL);
        free(huge);
    }
}

/* Each allocation fails in turn: -ENOMEM, no tree, "out of memory". */
static void test_json_allocation_failures(void)
{
    char doc[2048];
    size_t o = (size_t)snprintf(doc, sizeof(doc), "{\"s\": \"t\\u00e9xt\", \"n\": [1, 2.5, -3e2, 4, 5],"
                                                  " \"o\": {");
    for (int i = 0; i < 34; i++)        /* more than 32 keys: the sorted check */
        o += (size_t)snprintf(doc + o, sizeof(doc) - o, "%s\"k%d\": [null]", i ? ", " : "", i);
    snprintf(doc + o, sizeof(doc) - o, "}}");
    unsigned paths = 0;
    for (long n = 0;; n++) {
        EvJson *r = (EvJson *)&r;
        char msg[128];
        unit_fail_alloc(n);
        const int err = ev_json_parse(doc, strlen(doc), &r, msg, sizeof(msg));
        if (!unit_alloc_failed()) {
            CHECK(err == 0 && r && ev_json_get(r, "o")->count == 34);
            ev_json_free(r);
            break;
        }
        paths++;
        CHECK(err == -ENOMEM && r == NULL && strstr(msg, "out of memory"));
    }
    CHECK(paths > 40);
}

/* ---- Models ---- */

#define SVM_TEXT "svm_type nu_svr\\nkernel_type linear\\nnr_class 2\\ntotal_sv 2\\nrho 1\\nSV\\n" \
                 "2 1:0.5 2:0.25 \\n-1 2:1\\n"

/* A model using every part of the format; `extra` is spliced into model_dict. */
static int load(const char *extra, const char *names, VmafModel **m, char *doc, size_t doc_sz)
{
    snprintf(doc, doc_sz,
             "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"norm_type\": \"linear_rescale\","
             " \"feature_names\": %s, \"slopes\": [2.0, 0.5, 4.0], \"intercepts\": [-1, 0.1, 0.2],"
             " \"feature_opts_dicts\": [{\"adm_enhn_gain_limit\": 1.0, \"debug\": true},"
             " {\"vif_kernelscale\": 0.06, \"name\": \"x\"}],"
             " \"score_clip\": [0, 100], \"score_transform\": {\"enabled\": true, \"p0\": 1.5,"
             " \"p1\": null, \"p2\": -0.01, \"out_lte_in\": \"false\", \"out_gte_in\": \"true\","
             " \"knots\": [[0, 0], [50, 60], [100, 100]]}%s, \"model\": \"" SVM_TEXT "\"}}",
             names ? names : "[\"VMAF_feature_adm2_score\", \"VMAF_feature_vif_scale0_score\"]",
             extra ? extra : "");
    const VmafModelConfig cfg = { .name = "m", .flags = 0 };
    return ev_model_load_from_buffer(m, &cfg, "test", doc, strlen(doc));
}

static void test_model(void)
{
    char doc[4096];
    VmafModel *m = (VmafModel *)&m;
    CHECK(load(NULL, NULL, &m, doc, sizeof(doc)) == 0 && m);
    if (!m) return;
    CHECK(!strcmp(m->name, "m") && !strcmp(m->source, "test"));
    CHECK(m->type == EV_MODEL_TYPE_SVM_NUSVR && m->norm == EV_MODEL_NORM_LINEAR_RESCALE);
    CHECK(m->n_features == 2 && !strcmp(m->feature[1].name, "VMAF_feature_vif_scale0_score"));
    CHECK(m->slope == 2.0 && m->intercept == -1.0);
    CHECK(m->feature[0].slope == 0.5 && m->feature[1].intercept == 0.2);
    /* Numbers become "%g" of their float, as Netflix's option strings. */
    CHECK(!strcmp(vmaf_dict_get(m->feature[0].opts, "adm_enhn_gain_limit"), "1"));
    CHECK(!strcmp(vmaf_dict_get(m->feature[0].opts, "debug"), "true"));
    CHECK(!strcmp(vmaf_dict_get(m->feature[1].opts, "vif_kernelscale"), "0.06"));
    CHECK(!strcmp(vmaf_dict_get(m->feature[1].opts, "name"), "x"));
    CHECK(m->clip.enabled && m->clip.min == 0.0 && m->clip.max == 100.0);
    CHECK(m->transform.enabled && m->transform.p0.enabled && m->transform.p0.value == 1.5);
    CHECK(!m->transform.p1.enabled && m->transform.p2.value == -0.01);
    CHECK(!m->transform.out_lte_in && m->transform.out_gte_in);
    CHECK(m->transform.knots_enabled && m->transform.n_knots == 3 &&
          m->transform.knot[1].x == 50.0 && m->transform.knot[1].y == 60.0);
    CHECK(!m->chroma.enabled);
    CHECK(m->svm && m->svm->n_sv == 2 && m->svm->kernel == EV_SVM_KERNEL_LINEAR &&
          m->svm->rho == 1.0 && m->svm->coef[1] == -1.0);
    CHECK(m->svm->sv[0][1].index == 2 && m->svm->sv[0][1].value == 0.25 &&
          m->svm->sv[0][2].index == -1 && m->svm->sv[1][0].index == 2);
    vmaf_model_destroy(m);

    /* The flags turn the clip off and the transform off. */
    const VmafModelConfig off = { .flags = VMAF_MODEL_FLAG_DISABLE_CLIP |
                                           VMAF_MODEL_FLAG_DISABLE_TRANSFORM };
    CHECK(ev_model_load_from_buffer(&m, &off, "t", doc, strlen(doc)) == 0);
    CHECK(!strcmp(m->name, "vmaf") && !m->clip.enabled && !m->transform.enabled);
    vmaf_model_destroy(m);

    /* Chroma correction finds its two features by name. */
    CHECK(load(", \"chroma_correction_parameter\": 0.5",
               "[\"integer_adm3\", \"speed_chroma_uv\"]", &m, doc, sizeof(doc)) == 0);
    CHECK(m && m->chroma.enabled && m->chroma.guiding == 0 && m->chroma.guided == 1);
    vmaf_model_destroy(m);
}

/* The model's document with `from` replaced by `to` is refused, naming `want`. */
#define MODEL_REFUSED(from, to, want) model_refused(__LINE__, from, to, want)

static void model_refused(int line, const char *from, const char *to, const char *want)
{
    char doc[4096], bad[4096];
    VmafModel *m = NULL;
    CHECK(load(NULL, NULL, &m, doc, sizeof(doc)) == 0);
    vmaf_model_destroy(m);
    const char *at = strstr(doc, from);
    CHECK(at != NULL);
    if (!at) return;
    snprintf(bad, sizeof(bad), "%.*s%s%s", (int)(at - doc), doc, to, at + strlen(from));
    m = (VmafModel *)&m;
    unit_log_clear();
    const int err = ev_model_load_from_buffer(&m, NULL, "bad.json", bad, strlen(bad));
    const bool ok = err == -EINVAL && m == NULL && strstr(unit_log(), "bad.json") &&
                    strstr(unit_log(), want);
    CHECK(ok);
    if (!ok) fprintf(stderr, "  line %d: got %d, log: %s", line, err, unit_log());
}

static void test_model_refusals(void)
{
    MODEL_REFUSED("{\"model_dict\"", "{\"model_dict\": 1, \"model_dict\"",
                  "invalid JSON: line 1, column 1: duplicate key \"model_dict\"");
    MODEL_REFUSED("{\"model_dict\": {", "{\"model_dict\": [], \"y\": {", "\"model_dict\" must be an object");
    MODEL_REFUSED("{\"model_dict\"", "{\"dict\"", "no \"model_dict\" object");
    MODEL_REFUSED("\"LIBSVMNUSVR\"", "\"SVM\"", "unknown model_type \"SVM\"");
    MODEL_REFUSED("\"model_type\": \"LIBSVMNUSVR\"", "\"model_type\": 1", "\"model_type\" must be a string");
    MODEL_REFUSED("\"model_type\"", "\"type\"", "no \"model_type\"");
    MODEL_REFUSED("\"linear_rescale\"", "\"clip_0to1\"", "unknown norm_type \"clip_0to1\"");
    MODEL_REFUSED("\"norm_type\"", "\"norm\"", "no \"norm_type\"");
    MODEL_REFUSED("\"feature_names\"", "\"names\"", "no \"feature_names\"");
    MODEL_REFUSED("[\"VMAF_feature_adm2_score\", ", "[1, ", "feature_names[0] must be a non-empty string");
    MODEL_REFUSED("[\"VMAF_feature_adm2_score\", ", "[\"\", ", "feature_names[0] must be");
    MODEL_REFUSED("\"slopes\": [2.0, ", "\"slopes\": [", "\"slopes\" has 2 values; 2 features need 3");
    MODEL_REFUSED("\"slopes\": [2.0", "\"slopes\": [0", "slopes[0] is 0");
    MODEL_REFUSED("[-1, 0.1", "[-1, \"0.1\"", "intercepts[1] must be a number");
    MODEL_REFUSED("\"intercepts\"", "\"intercept\"", "no \"intercepts\"");
    MODEL_REFUSED("\"feature_opts_dicts\": [", "\"feature_opts_dicts\": [{}, ", "3 entries for 2 features");
    MODEL_REFUSED("\"debug\": true", "\"debug\": null", "option debug: value must be");
    MODEL_REFUSED("\"debug\": true", "\"debug\": 1e39", "does not fit a float");
    MODEL_REFUSED("\"score_clip\": [0, 100]", "\"score_clip\": [100, 0]", "min 100 is above max 0");
    MODEL_REFUSED("\"score_clip\": [0, 100]", "\"score_clip\": [0]", "\"score_clip\" must be [min, max]");
    MODEL_REFUSED("\"enabled\": true", "\"enabled\": \"true\"", "score_transform.enabled must be true or false");
    MODEL_REFUSED("\"p2\": -0.01", "\"p2\": \"x\"", "score_transform.p2 must be a number or null");
    MODEL_REFUSED("\"out_gte_in\": \"true\"", "\"out_gte_in\": \"yes\"", "out_gte_in must be");
    MODEL_REFUSED("[50, 60]", "[50, -1]", "non-decreasing y");
    MODEL_REFUSED("[50, 60]", "[0, 60]", "increasing x");
    MODEL_REFUSED("[50, 60]", "[50]", "knot 1 must be [x, y]");
    MODEL_REFUSED("[[0, 0], [50, 60], ", "[", "knots has 1 points");
    MODEL_REFUSED("\"model\": \"", "\"modl\": \"", "no \"model\"");
    MODEL_REFUSED("\"svm_type nu_svr", "\"svm_type c_svc", "svm_type \"c_svc\" is not supported");
    MODEL_REFUSED("total_sv 2", "total_sv 3", "only 2 support vectors follow");
    MODEL_REFUSED("total_sv 2", "total_sv 1", "more support vectors than total_sv");
    MODEL_REFUSED("2 1:0.5 2:0.25", "2 2:0.5 1:0.25", "feature indices must increase");
    MODEL_REFUSED("-1 2:1", "-1 3:1", "feature index 3, but the model has 2 features");
    MODEL_REFUSED("rho 1", "rho x", "invalid number \"x\" for rho");
    MODEL_REFUSED("\"model\": \"", "\"chroma_correction_parameter\": 1, \"model\": \"",
                  "exactly one feature whose name contains \"adm3\" (found 0)");
}

static void test_collection(void)
{
    char one[4096], doc[16384];
    VmafModel *m = NULL;
    CHECK(load(NULL, NULL, &m, one, sizeof(one)) == 0);
    vmaf_model_destroy(m);
    /* The loaded document's model_dict, as BOOTSTRAP members "0".."2". */
    char single[4096];
    memcpy(single, one, sizeof(single));
    char *md = strstr(one, "{\"model_type\"");
    md[strlen(md) - 1] = '\0';
    char *type = strstr(md, "LIBSVMNUSVR");
    char boot[4096];
    snprintf(boot, sizeof(boot), "%.*sBOOTSTRAP_%s", (int)(type - md), md, type);
    snprintf(doc, sizeof(doc), "{\"2\": {\"model_dict\": %s}, \"1\": {\"model_dict\": %s},"
             " \"0\": {\"model_dict\": %s}, \"x\": 1}", boot, boot, boot);
    VmafModelCollection *mc = NULL;
    const VmafModelConfig cfg = { .name = "b" };
    /* Members are read in document order, "0" first: here only "0" is. */
    unit_log_clear();
    CHECK(ev_model_collection_load_from_buffer(&m, &mc, &cfg, "c", doc, strlen(doc)) == -EINVAL);
    CHECK(m == NULL && mc == NULL && strstr(unit_log(), "needs members \"0\""));
    snprintf(doc, sizeof(doc), "{\"0\": {\"model_dict\": %s}, \"1\": {\"model_dict\": %s},"
             " \"x\": 1, \"2\": {\"model_dict\": %s}}", boot, boot, boot);
    CHECK(ev_model_collection_load_from_buffer(&m, &mc, &cfg, "c", doc, strlen(doc)) == 0);
    CHECK(m && mc && mc->cnt == 2 && !strcmp(m->name, "b") && !strcmp(mc->model[1]->name, "b_0002"));
    CHECK(mc->type == EV_MODEL_TYPE_BOOTSTRAP_SVM_NUSVR);
    vmaf_model_destroy(m);
    vmaf_model_collection_destroy(mc);

    /* Every allocation of a collection's load fails in turn. */
    for (long n = 0;; n++) {
        m = (VmafModel *)&m;
        mc = (VmafModelCollection *)&mc;
        unit_fail_alloc(n);
        const int err = ev_model_collection_load_from_buffer(&m, &mc, &cfg, "c", doc, strlen(doc));
        if (!unit_alloc_failed()) {
            CHECK(err == 0);
            vmaf_model_destroy(m);
            vmaf_model_collection_destroy(mc);
            CHECK(n > 100);
            break;
        }
        CHECK(err == -ENOMEM && m == NULL && mc == NULL);
    }

    /* A single model is not a collection, nor a collection a model. */
    unit_log_clear();
    CHECK(ev_model_collection_load_from_buffer(&m, &mc, &cfg, "one", single, strlen(single)) == -EINVAL);
    CHECK(strstr(unit_log(), "is a single model, not a collection"));
    CHECK(ev_model_load_from_buffer(&m, &cfg, "c", doc, strlen(doc)) == -EINVAL && m == NULL);
    /* Members of different types. */
    snprintf(doc, sizeof(doc), "{\"0\": {\"model_dict\": %s}, \"1\": {\"model_dict\": %s},"
             " \"2\": {\"model_dict\": %.*sRESIDUEBOOTSTRAP_%s}}", boot, boot, (int)(type - md), md, type);
    unit_log_clear();
    CHECK(ev_model_collection_load_from_buffer(&m, &mc, &cfg, "c", doc, strlen(doc)) == -EINVAL);
    CHECK(strstr(unit_log(), "model_type differs"));
    /* Plain LIBSVMNUSVR members. */
    snprintf(doc, sizeof(doc), "{\"0\": {\"model_dict\": %s}, \"1\": {\"model_dict\": %s}}",
             md, md);
    unit_log_clear();
    CHECK(ev_model_collection_load_from_buffer(&m, &mc, &cfg, "c", doc, strlen(doc)) == -EINVAL);
    CHECK(strstr(unit_log(), "must be BOOTSTRAP_LIBSVMNUSVR or RESIDUEBOOTSTRAP"));
}

/* Every allocation of a single model's load fails in turn. */
static void test_model_allocation_failures(void)
{
    char doc[4096];
    VmafModel *m = NULL;
    CHECK(load(NULL, NULL, &m, doc, sizeof(doc)) == 0);
    vmaf_model_destroy(m);
    unsigned paths = 0;
    for (long n = 0;; n++) {
        m = (VmafModel *)&m;
        unit_log_clear();
        unit_fail_alloc(n);
        const int err = ev_model_load_from_buffer(&m, NULL, "t", doc, strlen(doc));
        if (!unit_alloc_failed()) {
            CHECK(err == 0 && m);
            vmaf_model_destroy(m);
            break;
        }
        paths++;
        const bool ok = err == -ENOMEM && m == NULL && strstr(unit_log(), "out of memory");
        CHECK(ok);
        if (!ok) fprintf(stderr, "  allocation %ld: got %d, log: %s", n, err, unit_log());
    }
    CHECK(paths > 40);
}

/* Files: absent, a pickle, empty, not JSON. */
static void test_model_files(void)
{
    VmafModel *m = (VmafModel *)&m;
    unit_log_clear();
    CHECK(vmaf_model_load_from_path(&m, NULL, "/nonexistent/model.json") == -ENOENT && !m);
    CHECK(strstr(unit_log(), "/nonexistent/model.json"));
    CHECK(vmaf_model_load_from_path(&m, NULL, "model.pkl") == -EINVAL);
    CHECK(vmaf_model_load_from_path(NULL, NULL, "x.json") == -EINVAL);
    CHECK(vmaf_model_load_from_path(&m, NULL, NULL) == -EINVAL);
    char path[] = "/tmp/exactvmaf-unit-XXXXXX";
    const int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    FILE *f = fdopen(fd, "wb");
    fclose(f);
    unit_log_clear();
    CHECK(vmaf_model_load_from_path(&m, NULL, path) == -EINVAL && strstr(unit_log(), "empty document"));
    f = fopen(path, "wb");
    fputs("{\"model_dict\": {} ", f);
    fclose(f);
    unit_log_clear();
    CHECK(vmaf_model_load_from_path(&m, NULL, path) == -EINVAL &&
          strstr(unit_log(), "unexpected end of input in object"));
    CHECK(exactvmaf_model_file_is_collection(path) == -EINVAL);
    remove(path);
    CHECK(vmaf_model_load(&m, NULL, "no_such_model") == -EINVAL);
    CHECK(vmaf_model_load(&m, NULL, "vmaf_v0.6.1") == 0 && m);
    vmaf_model_destroy(m);
}

int main(void)
{
    unit_capture_log();
    test_values();
    test_refusals();
    test_limits();
    test_json_allocation_failures();
    test_model();
    test_model_refusals();
    test_collection();
    test_model_allocation_failures();
    test_model_files();
    return unit_report("model json");
}
