/*
 * src/opt.c: option tables filled by offsetof. Defaults, lookup by name
 * and alias, parsing of every type with its bounds and bad values (and the
 * message naming the extractor, the option and the value), applying a
 * dictionary, and the output names and identities non-default options make.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dict.h"
#include "opt.h"
#include "unit.h"

typedef struct Opts {
    bool debug;
    bool quiet;
    int size;
    double gain;
    double plain;
    const char *mode;
    const char *unsupported;
} Opts;

static const char *const modes[] = { "fast", "exact", NULL };

static const VmafOption table[] = {
    { .name = "debug", .alias = "dbg", .offset = offsetof(Opts, debug),
      .type = VMAF_OPT_TYPE_BOOL, .default_val.b = false, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "quiet", .offset = offsetof(Opts, quiet), .type = VMAF_OPT_TYPE_BOOL,
      .default_val.b = true },
    { .name = "size", .alias = "sz", .offset = offsetof(Opts, size), .type = VMAF_OPT_TYPE_INT,
      .default_val.i = 3, .min = 1, .max = 9, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "gain", .alias = "egl", .offset = offsetof(Opts, gain),
      .type = VMAF_OPT_TYPE_DOUBLE, .default_val.d = 100.0, .min = 1.0, .max = 100.0,
      .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "plain", .offset = offsetof(Opts, plain), .type = VMAF_OPT_TYPE_DOUBLE,
      .default_val.d = 0.5, .min = -1.0, .max = 1.0 },
    { .name = "mode", .offset = offsetof(Opts, mode), .type = VMAF_OPT_TYPE_STRING,
      .default_val.s = "fast", .choices = modes, .flags = VMAF_OPT_FLAG_FEATURE_PARAM },
    { .name = "unsupported", .offset = offsetof(Opts, unsupported),
      .type = VMAF_OPT_TYPE_STRING, .default_val.s = "" },
    { 0 },
};

static Opts defaults(void)
{
    Opts o;
    memset(&o, 0x5a, sizeof(o));
    vmaf_options_set_defaults(table, &o);
    return o;
}

static const VmafOption *opt(const char *name)
{
    return vmaf_option_find(table, name);
}

static void test_defaults_and_find(void)
{
    const Opts o = defaults();
    CHECK(!o.debug && o.quiet && o.size == 3 && o.gain == 100.0 && o.plain == 0.5);
    CHECK(!strcmp(o.mode, "fast") && !strcmp(o.unsupported, ""));
    vmaf_options_set_defaults(NULL, (void *)&o);   /* no table, no object: nothing */
    vmaf_options_set_defaults(table, NULL);

    CHECK(opt("debug") == &table[0] && opt("dbg") == &table[0]);
    CHECK(opt("egl") == &table[3]);
    CHECK(opt("Debug") == NULL && opt("de") == NULL && opt("") == NULL);
    CHECK(vmaf_option_find(NULL, "debug") == NULL && vmaf_option_find(table, NULL) == NULL);
    for (const VmafOption *t = table; t->name; t++)
        CHECK(vmaf_option_is_default(t, &o));
}

/* A refused value leaves the field as it was and says what and why. */
static void refused(const char *name, const char *val, const char *why)
{
    Opts o = defaults();
    const Opts before = o;
    unit_log_clear();
    CHECK(vmaf_option_set("fex_x", opt(name), &o, val) == -EINVAL);
    CHECK(!memcmp(&o, &before, sizeof(o)));
    const char *log = unit_log();
    CHECK(strstr(log, "fex_x") && strstr(log, name) && strstr(log, val) && strstr(log, why));
}

static void test_set(void)
{
    Opts o = defaults();
    CHECK(vmaf_option_set("x", opt("debug"), &o, "true") == 0 && o.debug);
    CHECK(vmaf_option_set("x", opt("debug"), &o, "0") == 0 && !o.debug);
    CHECK(vmaf_option_set("x", opt("debug"), &o, "1") == 0 && o.debug);
    CHECK(vmaf_option_set("x", opt("quiet"), &o, "false") == 0 && !o.quiet);
    refused("debug", "yes", "true or false");
    refused("debug", "TRUE", "true or false");
    refused("debug", "", "true or false");

    /* Integers: both bounds are inside, the next ones outside. */
    CHECK(vmaf_option_set("x", opt("size"), &o, "1") == 0 && o.size == 1);
    CHECK(vmaf_option_set("x", opt("size"), &o, "9") == 0 && o.size == 9);
    refused("size", "0", "[1, 9]");
    refused("size", "-0", "[1, 9]");
    refused("size", "10", "[1, 9]");
    refused("size", "-2147483649", "[1, 9]");
    refused("size", "99999999999999999999", "integer");
    refused("size", "4.0", "integer");
    refused("size", "1e3", "integer");
    refused("size", "0x5", "integer");
    refused("size", "5 ", "integer");
    refused("size", "", "integer");

    /* Doubles: bounds inclusive; not-a-number, infinity and overflow refused. */
    CHECK(vmaf_option_set("x", opt("gain"), &o, "1") == 0 && o.gain == 1.0);
    CHECK(vmaf_option_set("x", opt("gain"), &o, "1e2") == 0 && o.gain == 100.0);
    CHECK(vmaf_option_set("x", opt("plain"), &o, "-1.0") == 0 && o.plain == -1.0);
    CHECK(vmaf_option_set("x", opt("plain"), &o, "0.1") == 0 && o.plain == 0.1);
    refused("gain", "0.999999", "[1, 100]");
    refused("gain", "100.00000001", "[1, 100]");
    refused("gain", "nan", "number");
    refused("gain", "inf", "number");
    refused("gain", "1e999", "number");
    refused("gain", "2,5", "number");
    refused("gain", "", "number");

    /* Strings: one of the choices, stored as the table's own pointer. */
    char val[8] = "exact";
    CHECK(vmaf_option_set("x", opt("mode"), &o, val) == 0);
    CHECK(o.mode == modes[1]);
    refused("mode", "Exact", "allowed values");
    refused("mode", "", "allowed values");
    refused("unsupported", "anything", "not supported");

    CHECK(vmaf_option_set("x", NULL, &o, "1") == -EINVAL);
    CHECK(vmaf_option_set("x", opt("size"), NULL, "1") == -EINVAL);
    CHECK(vmaf_option_set("x", opt("size"), &o, NULL) == -EINVAL);
    /* No extractor name: the message still comes. */
    unit_log_clear();
    CHECK(vmaf_option_set(NULL, opt("size"), &o, "x") == -EINVAL && strstr(unit_log(), "size"));
}

static void test_apply(void)
{
    Opts o = defaults();
    CHECK(vmaf_options_apply("x", table, &o, NULL) == 0);
    VmafDict *d = NULL;
    vmaf_dict_set(&d, "dbg", "true");
    vmaf_dict_set(&d, "egl", "1.5");
    vmaf_dict_set(&d, "mode", "exact");
    CHECK(vmaf_options_apply("x", table, &o, d) == 0);
    CHECK(o.debug && o.gain == 1.5 && !strcmp(o.mode, "exact"));

    /* An unknown key is named; the entries before it have been applied. */
    o = defaults();
    vmaf_dict_set(&d, "no_such", "1");
    vmaf_dict_set(&d, "size", "5");
    unit_log_clear();
    CHECK(vmaf_options_apply("fex_y", table, &o, d) == -EINVAL);
    CHECK(strstr(unit_log(), "fex_y") && strstr(unit_log(), "no_such"));
    CHECK(o.debug && o.size == 3);
    vmaf_dict_free(&d);

    /* A bad value stops there too. */
    o = defaults();
    vmaf_dict_set(&d, "size", "5");
    vmaf_dict_set(&d, "gain", "0");
    vmaf_dict_set(&d, "debug", "true");
    CHECK(vmaf_options_apply("x", table, &o, d) == -EINVAL);
    CHECK(o.size == 5 && o.gain == 100.0 && !o.debug);
    vmaf_dict_free(&d);
}

static void test_is_default(void)
{
    Opts o = defaults();
    o.quiet = false;
    o.size = 4;
    o.gain = 100.0000000000001;
    o.mode = "fast";            /* another pointer, equal text: default */
    CHECK(!vmaf_option_is_default(opt("quiet"), &o));
    CHECK(!vmaf_option_is_default(opt("size"), &o));
    CHECK(!vmaf_option_is_default(opt("gain"), &o));
    CHECK(vmaf_option_is_default(opt("mode"), &o));
    o.plain = 0.5;
    CHECK(vmaf_option_is_default(opt("plain"), &o));
}

static void test_names(void)
{
    Opts o = defaults();
    char *s = vmaf_option_feature_name("VMAF_feature_adm2_score", table, &o);
    CHECK(s && !strcmp(s, "VMAF_feature_adm2_score"));     /* all default: unchanged */
    free(s);
    s = vmaf_option_identity("float_adm", table, &o);
    CHECK(s && !strcmp(s, "float_adm"));
    free(s);

    /* Only feature-parameter options count (quiet, plain do not), ordered by
     * option name, keyed by alias; the canonical name becomes its alias. */
    o.quiet = false;
    o.plain = 0.25;
    o.size = 5;
    o.debug = true;
    o.gain = 1.25;
    o.mode = modes[1];
    s = vmaf_option_feature_name("VMAF_feature_adm2_score", table, &o);
    CHECK(s && !strcmp(s, "adm2_dbg_egl_1.25_mode_exact_sz_5"));
    free(s);
    s = vmaf_option_feature_name("not_in_the_map", table, &o);
    CHECK(s && !strcmp(s, "not_in_the_map_dbg_egl_1.25_mode_exact_sz_5"));
    free(s);
    s = vmaf_option_identity("fex", table, &o);
    CHECK(s && !strcmp(s, "fex_dbg_egl_1.25_mode_exact_sz_5"));
    free(s);
    o.gain = 1e-7 + 1;          /* %g: six significant digits */
    o.debug = false;
    o.size = 3;
    o.mode = modes[0];
    s = vmaf_option_feature_name("x", table, &o);
    CHECK(s && !strcmp(s, "x_egl_1"));
    free(s);
    s = vmaf_option_feature_name("x", NULL, &o);
    CHECK(s && !strcmp(s, "x"));
    free(s);

    /* A name too long for the buffer is NULL, not cut short. */
    char longname[600];
    memset(longname, 'n', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    s = vmaf_option_feature_name(longname, table, &o);
    CHECK(s == NULL);
    longname[500] = '\0';
    s = vmaf_option_feature_name(longname, table, &o);
    CHECK(s && strlen(s) == 506);
    free(s);

    unit_fail_alloc(0);
    s = vmaf_option_feature_name("x", table, &o);
    CHECK(unit_alloc_failed() && s == NULL);

    CHECK(!strcmp(vmaf_feature_alias("VMAF_integer_feature_vif_scale3_score"),
                  "integer_vif_scale3"));
    CHECK(!strcmp(vmaf_feature_alias("Cambi_feature_cambi_score"), "cambi"));
    const char *other = "VMAF_feature_adm2_score_x";
    CHECK(vmaf_feature_alias(other) == other);
}

int main(void)
{
    unit_capture_log();
    test_defaults_and_find();
    test_set();
    test_apply();
    test_is_default();
    test_names();
    return unit_report("opt");
}
