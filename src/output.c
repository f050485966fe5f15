/*
 * Output writers: XML, JSON, CSV and subtitle files laid out as Netflix
 * libvmaf v3.2.0 writes them (same elements, order, spacing and number
 * format), so that tools parsing Netflix's files read ours unchanged.
 *
 * A file is written to a temporary name beside the target and renamed into
 * place only once complete: a failed or interrupted run never leaves a
 * truncated file that looks like a result.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h> /* close, unlink, getpid: in mingw-w64 too */

#include "context.h"
#include "export.h"
#include "exactvmaf/exactvmaf.h"
#include "feature_collector.h"
#include "log.h"
#include "opt.h"
#include "os/os.h"

/* Stored precision that selects "%.17g" (see exactvmaf_set_output_precision). */
#define PRECISION_MAX 0
/* Widest fixed-point precision; Netflix's own fallback for tiny fractions. */
#define PRECISION_FIXED_MAX 16

static const char *const pool_method_name[VMAF_POOL_METHOD_NB] = {
    [VMAF_POOL_METHOD_MIN] = "min",
    [VMAF_POOL_METHOD_MAX] = "max",
    [VMAF_POOL_METHOD_MEAN] = "mean",
    [VMAF_POOL_METHOD_HARMONIC_MEAN] = "harmonic_mean",
};

/*
 * Netflix decides between "%.6f" and "%.16f" by counting the zeros that
 * follow the decimal point: it takes the fraction x - (int)x and multiplies
 * it by 10 (in double) until it reaches 1. Reproduced operation for
 * operation. Where the (int) conversion is undefined (NaN, infinities,
 * |x| >= 2^31), x86 yields INT_MIN, which makes the fraction >= 1 or NaN
 * and the count 0; we return 0 there without the undefined conversion.
 */
static int leading_fraction_zeros(double x)
{
    if (x < 0) x = fabs(x);
    if (!(x < 2147483648.0)) return 0;
    double fraction = x - (double)(int)x;
    int zeros = 0;
    while (fraction < 1.0 && fraction != 0) {
        fraction *= 10;
        zeros++;
    }
    return zeros;
}

/*
 * Score text. precision N in 1..16: Netflix's rule with N decimals (N = 6 is
 * Netflix's own output): "%.Nf", or "%.16f" when more than N zeros follow the
 * point. PRECISION_MAX: "%.17g", which round-trips every double.
 */
static void print_number(FILE *f, double v, int precision)
{
    if (precision == PRECISION_MAX) {
        fprintf(f, "%.17g", v);
        return;
    }
    const int decimals = leading_fraction_zeros(v) <= precision ?
                         precision : PRECISION_FIXED_MAX;
    fprintf(f, "%.*f", decimals, v);
}

/* JSON string body: Netflix prints names raw; escaping changes nothing for
 * ordinary names and keeps the file valid for odd ones. */
static void print_json_string(FILE *f, const char *s)
{
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
}

static void print_xml_attr(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

/* RFC 4180 quoting, only for names that need it. */
static void print_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

typedef struct Snapshot {
    VmafContext *vmaf;
    VmafFeatureCollector *fc;
    unsigned n_vec;
    unsigned n_index;   /* highest written index + 1 */
    unsigned subsample;
    unsigned pic_cnt;
    int precision;
} Snapshot;

static bool is_written(const VmafFeatureVector *v, unsigned i)
{
    return i < v->capacity && v->written[i];
}

/* Netflix lists a frame when it is on the subsample grid and any output
 * has a value for it. */
static unsigned frame_output_count(const Snapshot *s, unsigned i)
{
    if (s->subsample > 1 && i % s->subsample) return 0;
    unsigned cnt = 0;
    for (unsigned j = 0; j < s->n_vec; j++)
        cnt += is_written(vmaf_fc_at(s->fc, j), i);
    return cnt;
}

/* Pooled over [0, pic_cnt - 1] through the public routine, as Netflix does;
 * -EINVAL when the output lacks a frame. */
static int pooled(const Snapshot *s, const char *name, enum VmafPoolingMethod m,
                  double *score)
{
    if (!s->pic_cnt) return -EINVAL;
    return vmaf_feature_score_pooled(s->vmaf, name, m, score, 0, s->pic_cnt - 1);
}

static void write_xml(FILE *f, const Snapshot *s)
{
    fprintf(f, "<VMAF version=\"%s\">\n", vmaf_version());
    fprintf(f, "  <params qualityWidth=\"%u\" qualityHeight=\"%u\" />\n",
            vmaf_ctx_width(s->vmaf), vmaf_ctx_height(s->vmaf));
    fprintf(f, "  <fyi fps=\"%.2f\" />\n", vmaf_ctx_fps(s->vmaf));
    /* exactvmaf addition: which backend and devices computed each extractor. */
    const VmafDict *backends = vmaf_ctx_backends(s->vmaf);
    const VmafDeviceRecords *dev = vmaf_ctx_devices(s->vmaf);
    fprintf(f, "  <backends>\n");
    for (unsigned i = 0; backends && i < backends->cnt; i++) {
        fputs("    <extractor name=\"", f);
        print_xml_attr(f, backends->entry[i].key);
        fputs("\" backend=\"", f);
        print_xml_attr(f, backends->entry[i].val);
        fputs("\">\n", f);
        const int e = vmaf_device_records_find(dev, backends->entry[i].key);
        const VmafDict *rec;
        for (unsigned k = 0; e >= 0 && (rec = vmaf_device_records_at(dev, (unsigned)e, k)); k++) {
            fputs("      <device ", f);
            for (unsigned j = 0; j < rec->cnt; j++) {
                print_xml_attr(f, rec->entry[j].key);
                fputs("=\"", f);
                print_xml_attr(f, rec->entry[j].val);
                fputs("\" ", f);
            }
            fputs("/>\n", f);
        }
        fputs("    </extractor>\n", f);
    }
    fprintf(f, "  </backends>\n");

    fprintf(f, "  <frames>\n");
    for (unsigned i = 0; i < s->n_index; i++) {
        if (!frame_output_count(s, i)) continue;
        fprintf(f, "    <frame frameNum=\"%u\" ", i);
        for (unsigned j = 0; j < s->n_vec; j++) {
            const VmafFeatureVector *v = vmaf_fc_at(s->fc, j);
            if (!is_written(v, i)) continue;
            print_xml_attr(f, vmaf_feature_alias(v->name));
            fputs("=\"", f);
            print_number(f, v->value[i], s->precision);
            fputs("\" ", f);
        }
        fprintf(f, "/>\n");
    }
    fprintf(f, "  </frames>\n");

    fprintf(f, "  <pooled_metrics>\n");
    for (unsigned j = 0; j < s->n_vec; j++) {
        const char *name = vmaf_fc_at(s->fc, j)->name;
        fputs("    <metric name=\"", f);
        print_xml_attr(f, vmaf_feature_alias(name));
        fputs("\" ", f);
        for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++) {
            double score;
            if (pooled(s, name, m, &score)) continue;
            fprintf(f, "%s=\"", pool_method_name[m]);
            print_number(f, score, s->precision);
            fputs("\" ", f);
        }
        fprintf(f, "/>\n");
    }
    fprintf(f, "  </pooled_metrics>\n");

    /* Run-level values (psnr's apsnr_*), under their own names. */
    fprintf(f, "  <aggregate_metrics ");
    for (unsigned i = 0; i < vmaf_fc_aggregate_count(s->fc); i++) {
        double v;
        print_xml_attr(f, vmaf_fc_aggregate_at(s->fc, i, &v));
        fputs("=\"", f);
        print_number(f, v, s->precision);
        fputs("\" ", f);
    }
    fprintf(f, "/>\n");
    fprintf(f, "</VMAF>\n");
}

/* JSON number, or null for NaN and infinities. */
static void print_json_number(FILE *f, double v, int precision)
{
    if (isfinite(v)) print_number(f, v, precision);
    else fputs("null", f);
}

static void write_json(FILE *f, const Snapshot *s)
{
    fprintf(f, "{\n");
    fputs("  \"version\": \"", f);
    print_json_string(f, vmaf_version());
    fputs("\",\n", f);
    const double fps = vmaf_ctx_fps(s->vmaf);
    if (isfinite(fps)) fprintf(f, "  \"fps\": %.2f,\n", fps);
    else fprintf(f, "  \"fps\": null,\n");
    /* exactvmaf addition: the backend that computed each extractor. */
    const VmafDict *backends = vmaf_ctx_backends(s->vmaf);
    fprintf(f, "  \"backends\": {");
    for (unsigned i = 0; backends && i < backends->cnt; i++) {
        fputs(i ? ", \"" : "\"", f);
        print_json_string(f, backends->entry[i].key);
        fputs("\": \"", f);
        print_json_string(f, backends->entry[i].val);
        fputs("\"", f);
    }
    fprintf(f, "},\n");
    /* exactvmaf addition: per extractor, the devices that computed it (device_record.h). */
    const VmafDeviceRecords *dev = vmaf_ctx_devices(s->vmaf);
    fprintf(f, "  \"devices\": {");
    for (unsigned i = 0; i < vmaf_device_records_count(dev); i++) {
        fputs(i ? ",\n    \"" : "\n    \"", f);
        print_json_string(f, vmaf_device_records_extractor(dev, i));
        fputs("\": [", f);
        const VmafDict *rec;
        for (unsigned k = 0; (rec = vmaf_device_records_at(dev, i, k)); k++) {
            fputs(k ? ", {" : "{", f);
            for (unsigned j = 0; j < rec->cnt; j++) {
                fputs(j ? ", \"" : "\"", f);
                print_json_string(f, rec->entry[j].key);
                fputs("\": \"", f);
                print_json_string(f, rec->entry[j].val);
                fputs("\"", f);
            }
            fputs("}", f);
        }
        fputs("]", f);
    }
    fprintf(f, "%s},\n", vmaf_device_records_count(dev) ? "\n  " : "");

    fprintf(f, "  \"frames\": [");
    bool first_frame = true;
    for (unsigned i = 0; i < s->n_index; i++) {
        const unsigned cnt = frame_output_count(s, i);
        if (!cnt) continue;
        /* Netflix separates on i > 0, which equals "not the first listed
         * frame" whenever frame 0 is listed; ours keeps the JSON valid when
         * it is not. */
        fputs(first_frame ? "\n" : ",\n", f);
        first_frame = false;
        fprintf(f, "    {\n");
        fprintf(f, "      \"frameNum\": %u,\n", i);
        fprintf(f, "      \"metrics\": {\n");
        unsigned n = 0;
        for (unsigned j = 0; j < s->n_vec; j++) {
            const VmafFeatureVector *v = vmaf_fc_at(s->fc, j);
            if (!is_written(v, i)) continue;
            n++;
            fputs("        \"", f);
            print_json_string(f, vmaf_feature_alias(v->name));
            fputs("\": ", f);
            print_json_number(f, v->value[i], s->precision);
            fputs(n < cnt ? "," : "", f);
            /* Netflix ends a null line without a newline: the next entry
             * follows on the same line. Kept so files compare equal. */
            if (isfinite(v->value[i])) fputc('\n', f);
        }
        fprintf(f, "      }\n");
        fprintf(f, "    }");
    }
    fprintf(f, "\n  ],\n");

    fprintf(f, "  \"pooled_metrics\": {");
    for (unsigned j = 0; j < s->n_vec; j++) {
        const char *name = vmaf_fc_at(s->fc, j)->name;
        fputs(j ? ",\n" : "\n", f);
        fputs("    \"", f);
        print_json_string(f, vmaf_feature_alias(name));
        fputs("\": {", f);
        bool first = true;
        for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++) {
            double score;
            if (pooled(s, name, m, &score)) continue;
            fputs(first ? "\n" : ",\n", f);
            first = false;
            fprintf(f, "      \"%s\": ", pool_method_name[m]);
            print_json_number(f, score, s->precision);
        }
        fprintf(f, "\n");
        fprintf(f, "    }");
    }
    fprintf(f, "\n  },\n");

    /* Run-level values (psnr's apsnr_*), under their own names. */
    fprintf(f, "  \"aggregate_metrics\": {");
    const unsigned n_agg = vmaf_fc_aggregate_count(s->fc);
    for (unsigned i = 0; i < n_agg; i++) {
        double v;
        fputs("\n    \"", f);
        print_json_string(f, vmaf_fc_aggregate_at(s->fc, i, &v));
        fputs("\": ", f);
        print_json_number(f, v, s->precision);
        fputs(i + 1 < n_agg ? "," : "", f);
    }
    fprintf(f, "\n  }\n");
    fprintf(f, "}\n");
}

static void write_csv(FILE *f, const Snapshot *s)
{
    fprintf(f, "Frame,");
    for (unsigned j = 0; j < s->n_vec; j++) {
        print_csv_field(f, vmaf_feature_alias(vmaf_fc_at(s->fc, j)->name));
        fputc(',', f);
    }
    fprintf(f, "\n");

    for (unsigned i = 0; i < s->n_index; i++) {
        if (!frame_output_count(s, i)) continue;
        fprintf(f, "%u,", i);
        for (unsigned j = 0; j < s->n_vec; j++) {
            const VmafFeatureVector *v = vmaf_fc_at(s->fc, j);
            /* Netflix skips a missing value, shifting the later columns;
             * an empty cell keeps them under their headers. */
            if (is_written(v, i)) print_number(f, v->value[i], s->precision);
            fputc(',', f);
        }
        fprintf(f, "\n");
    }
}

static void write_sub(FILE *f, const Snapshot *s)
{
    for (unsigned i = 0; i < s->n_index; i++) {
        if (!frame_output_count(s, i)) continue;
        fprintf(f, "{%u}{%u}frame: %u|", i, i + 1, i);
        for (unsigned j = 0; j < s->n_vec; j++) {
            const VmafFeatureVector *v = vmaf_fc_at(s->fc, j);
            if (!is_written(v, i)) continue;
            fprintf(f, "%s: ", vmaf_feature_alias(v->name));
            print_number(f, v->value[i], s->precision);
            fputc('|', f);
        }
        fprintf(f, "\n");
    }
}

/* Where the bytes go: stdout, a special file written in place, or a
 * temporary file renamed over the target at the end. */
typedef struct Target {
    FILE *f;
    bool is_stdout;
    char *tmp_path;     /* NULL unless renamed into place */
    char *final_path;
} Target;

static int open_tmp_beside(Target *t, const char *final_path)
{
    const size_t sz = strlen(final_path) + 64;
    t->final_path = strdup(final_path);
    if (!t->final_path) return -ENOMEM;
    t->tmp_path = malloc(sz);
    if (!t->tmp_path) return -ENOMEM;

    /* Keep the mode of a file we replace; a new file gets 0666 & ~umask
     * from open(), as fopen() would give it. */
    struct stat st;
    const bool replacing = !stat(final_path, &st);

    /* pid and this call's frame address tell concurrent writers apart;
     * O_EXCL catches what they do not. */
    int fd = -1;
    for (unsigned tries = 0; fd < 0 && tries < 100; tries++) {
        snprintf(t->tmp_path, sz, "%s.%ld.%lx.%u.tmp", final_path, (long)getpid(),
                 (unsigned long)(uintptr_t)t, tries);
        fd = vmaf_os_open_new(t->tmp_path, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        const int err = -errno;
        free(t->tmp_path);
        t->tmp_path = NULL;
        return err;
    }
    if (replacing) (void)vmaf_os_fchmod(fd, st.st_mode & 07777);
    t->f = fdopen(fd, "wb");
    if (!t->f) {
        const int err = -errno;
        close(fd);
        unlink(t->tmp_path);
        return err;
    }
    return 0;
}

static int target_open(Target *t, const char *path)
{
    memset(t, 0, sizeof(*t));
    if (!path || !strcmp(path, "-")) {
        t->f = stdout;
        t->is_stdout = true;
        return 0;
    }

    struct stat st;
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
        /* A device or pipe (/dev/stdout, a FIFO): nothing to rename over. */
        t->f = fopen(path, "wb");
        return t->f ? 0 : -errno;
    }

    /* A link to a regular file: replace the file, keep the link. */
    char *resolved = vmaf_os_link_target(path);
    const int err = open_tmp_beside(t, resolved ? resolved : path);
    free(resolved);
    return err;
}

/* Flush and close; rename into place on success, remove the temporary file
 * on failure. Returns the first error. */
static int target_close(Target *t, int err)
{
    if (t->f) {
        if (!err && ferror(t->f)) err = errno ? -errno : -EIO;
        if (fflush(t->f) && !err) err = errno ? -errno : -EIO;
        if (!t->is_stdout && fclose(t->f) && !err) err = errno ? -errno : -EIO;
    }
    if (t->tmp_path) {
        if (!err) err = vmaf_os_rename(t->tmp_path, t->final_path);
        if (err) unlink(t->tmp_path);
    }
    free(t->tmp_path);
    free(t->final_path);
    return err;
}

VMAF_EXPORT int vmaf_write_output(VmafContext *vmaf, const char *output_path,
                                  enum VmafOutputFormat fmt)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    if (fmt != VMAF_OUTPUT_FORMAT_XML && fmt != VMAF_OUTPUT_FORMAT_JSON &&
        fmt != VMAF_OUTPUT_FORMAT_CSV && fmt != VMAF_OUTPUT_FORMAT_SUB) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "unknown output format %d", (int)fmt);
        return -EINVAL;
    }

    VmafFeatureCollector *fc = vmaf_ctx_collector(vmaf);
    const Snapshot s = {
        .vmaf = vmaf,
        .fc = fc,
        .n_vec = vmaf_fc_count(fc),
        .n_index = vmaf_fc_frame_count(fc),
        .subsample = vmaf_ctx_subsample(vmaf),
        .pic_cnt = vmaf_ctx_frame_count(vmaf),
        .precision = vmaf_ctx_output_precision(vmaf),
    };

    Target t;
    int err = target_open(&t, output_path);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "could not open output file %s: %s",
                 output_path ? output_path : "-", strerror(-err));
        target_close(&t, err);
        return err;
    }

    errno = 0;
    switch (fmt) {
    case VMAF_OUTPUT_FORMAT_XML: write_xml(t.f, &s); break;
    case VMAF_OUTPUT_FORMAT_JSON: write_json(t.f, &s); break;
    case VMAF_OUTPUT_FORMAT_CSV: write_csv(t.f, &s); break;
    default: write_sub(t.f, &s); break;
    }

    err = target_close(&t, 0);
    if (err)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "could not write output file %s: %s",
                 output_path ? output_path : "-", strerror(-err));
    return err;
}

VMAF_EXPORT int exactvmaf_set_output_precision(VmafContext *vmaf, int digits)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    /* Past 16 decimals a fixed format adds digits, not information. */
    if (digits <= 0 || digits > PRECISION_FIXED_MAX) digits = PRECISION_MAX;
    vmaf_ctx_set_output_precision(vmaf, digits);
    return 0;
}
