/*
 * HTML report and SVG plot (report.h). Charts are drawn in SVG user units;
 * each curve carries the values it plots (data-values, %.17g, every frame
 * up to DETAIL_FRAMES) so that the page can be checked against the output
 * files. Longer runs are drawn as a per-column min/max envelope.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/os/os.h"
#include "exactvmaf/exactvmaf.h"
#include "report.h"

/* Up to this many frames every frame is a point of its curve. */
#define DETAIL_FRAMES 2000
/* Columns of the envelope of a longer run. */
#define ENVELOPE_COLUMNS 1000
#define WORST_FRAMES 10

/* ---- Writing a file whole or not at all ---- */

int report_out_open(OutFile *o, const char *path)
{
    o->path = path;
    o->tmp = malloc(strlen(path) + 16);
    if (!o->tmp) return -ENOMEM;
    sprintf(o->tmp, "%s.XXXXXX", path);
    const int fd = mkstemp(o->tmp);
    if (fd < 0) {
        const int e = errno;
        fprintf(stderr, "exactvmaf: cannot write %s: %s\n", path, strerror(e));
        free(o->tmp);
        o->tmp = NULL;
        return -e;
    }
    /* mkstemp makes 0600: the mode a new file would have had. */
    (void)vmaf_os_fchmod(fd, 0666 & ~vmaf_os_umask());
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return -ENOMEM;
    }
    return 0;
}

int report_out_close(OutFile *o, int err)
{
    if (!o->f) return err;
    if (ferror(o->f)) err = err ? err : -EIO;
    if (fclose(o->f) && !err) err = -errno;
    if (!err) err = vmaf_os_rename(o->tmp, o->path);
    if (err) {
        unlink(o->tmp);
        fprintf(stderr, "exactvmaf: cannot write %s: %s\n", o->path, strerror(-err));
    }
    free(o->tmp);
    return err;
}

/* ---- Data ---- */

typedef struct Series {
    const char *name;
    double *v;              /* per frame; NAN where not computed (subsampling) */
    double lo, hi;          /* over the computed frames */
    unsigned n;             /* computed frames */
} Series;

static void series_free(Series *s, unsigned n)
{
    for (unsigned i = 0; i < n; i++) free(s[i].v);
    free(s);
}

static int series_load(VmafContext *vmaf, const char *name, unsigned n_frames, Series *s)
{
    s->name = name;
    s->v = malloc((n_frames ? n_frames : 1) * sizeof(double));
    if (!s->v) return -ENOMEM;
    s->n = 0;
    for (unsigned i = 0; i < n_frames; i++) {
        double v;
        if (vmaf_feature_score_at_index(vmaf, name, &v, i) || !isfinite(v)) {
            s->v[i] = NAN;
            continue;
        }
        s->v[i] = v;
        if (!s->n || v < s->lo) s->lo = v;
        if (!s->n || v > s->hi) s->hi = v;
        s->n++;
    }
    return 0;
}

static bool is_model(const CliReport *r, const char *name)
{
    for (unsigned i = 0; i < r->n_models; i++)
        if (!strcmp(r->models[i], name)) return true;
    return false;
}

/* ---- Text ---- */

void report_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

void report_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        const unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

void report_csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
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

/* The rows both pages end their run table with: the version, the date and the command. */
void report_run_rows(FILE *f, const char *command)
{
    fputs("<tr><th>exactvmaf</th><td>", f);
    report_esc(f, vmaf_version());
    char when[64] = "";
    const time_t now = time(NULL);
    struct tm tm;
    if (!vmaf_os_localtime(now, &tm)) strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(f, "</td></tr>\n<tr><th>date</th><td>%s</td></tr>\n<tr><th>command</th><td><code>",
            when);
    report_esc(f, command);
    fputs("</code></td></tr>\n", f);
}

static void print_time(FILE *f, double s)
{
    if (!(s >= 0)) {
        fputs("&ndash;", f);
        return;
    }
    const unsigned long ms = (unsigned long)(s * 1000.0 + 0.5);
    fprintf(f, "%lu:%02lu.%03lu", ms / 60000, ms / 1000 % 60, ms % 1000);
}

/* ---- Charts ---- */

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                       "#ff7f0e", "#17becf", "#8c564b", "#e377c2" };

typedef struct Frame {
    double left, top, width, height;    /* plot area */
    double ymin, ymax;
    unsigned n;                         /* frames along x */
} Frame;

static double fx(const Frame *c, double i)
{
    return c->left + (c->n > 1 ? i * c->width / (c->n - 1) : c->width / 2);
}

static double fy(const Frame *c, double v)
{
    return c->top + (c->ymax - v) / (c->ymax - c->ymin) * c->height;
}

/* Round ticks: 1, 2 or 5 times a power of ten, about `want` of them. */
static double tick_step(double span, int want)
{
    const double raw = span / want, p = pow(10.0, floor(log10(raw)));
    const double m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void axes(FILE *f, const Frame *c)
{
    const double ys = tick_step(c->ymax - c->ymin, 5);
    for (double v = ceil(c->ymin / ys) * ys; v <= c->ymax + ys * 1e-9; v += ys) {
        const double y = fy(c, v);
        fprintf(f, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>",
                c->left, y, c->left + c->width, y);
        fprintf(f, "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%g</text>",
                c->left - 4, y + 4, fabs(v) < ys * 1e-9 ? 0.0 : v);
    }
    const double xs = c->n > 1 ? fmax(1.0, tick_step(c->n - 1, 8)) : 1.0;
    for (double i = 0; i < c->n; i += xs)
        fprintf(f, "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%.0f</text>",
                fx(c, i), c->top + c->height + 16, i);
    fprintf(f, "<rect class=\"box\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>",
            c->left, c->top, c->width, c->height);
}

/* One curve: every frame a point (split where frames were not computed), or
 * for long runs a min/max envelope per column. */
static void curve(FILE *f, const Frame *c, const Series *s, const char *color)
{
    fprintf(f, "<g class=\"series\" data-name=\"");
    report_esc(f, s->name);
    fprintf(f, "\" stroke=\"%s\">", color);
    if (c->n <= DETAIL_FRAMES) {
        fputs("<polyline fill=\"none\" data-values=\"", f);
        for (unsigned i = 0; i < c->n; i++)
            if (!isnan(s->v[i])) fprintf(f, "%s%.17g", i ? " " : "", s->v[i]);
        fputs("\" data-frames=\"", f);
        for (unsigned i = 0; i < c->n; i++)
            if (!isnan(s->v[i])) fprintf(f, "%s%u", i ? " " : "", i);
        fputs("\" points=\"", f);
        for (unsigned i = 0; i < c->n; i++)
            if (!isnan(s->v[i])) fprintf(f, "%s%.2f,%.2f", i ? " " : "", fx(c, i), fy(c, s->v[i]));
        fputs("\"/>", f);
    } else {
        fputs("<polyline fill=\"none\" class=\"envelope\" points=\"", f);
        for (unsigned k = 0; k < ENVELOPE_COLUMNS; k++) {
            const unsigned a = (unsigned)((unsigned long long)k * c->n / ENVELOPE_COLUMNS);
            const unsigned b = (unsigned)((unsigned long long)(k + 1) * c->n / ENVELOPE_COLUMNS);
            double lo = INFINITY, hi = -INFINITY;
            for (unsigned i = a; i < b; i++) {
                if (isnan(s->v[i])) continue;
                lo = fmin(lo, s->v[i]);
                hi = fmax(hi, s->v[i]);
            }
            if (lo > hi) continue;
            const double x = fx(c, (a + b - 1) / 2.0);
            fprintf(f, " %.2f,%.2f %.2f,%.2f", x, fy(c, hi), x, fy(c, lo));
        }
        fputs("\"/>", f);
    }
    fputs("</g>", f);
}

/* A chart of n series, y from ymin to ymax, in a width x height box. */
static void chart(FILE *f, const Series *const *s, unsigned n, unsigned n_frames, double ymin,
                  double ymax, double width, double height, bool legend)
{
    Frame c = { 52, 14, width - 64, height - 14 - 34, ymin, ymax, n_frames };
    if (!(c.ymax > c.ymin)) {
        c.ymin -= 1;
        c.ymax += 1;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
            "width=\"%.0f\" height=\"%.0f\" role=\"img\" data-ymin=\"%.17g\" data-ymax=\"%.17g\" "
            "data-left=\"%.17g\" data-top=\"%.17g\" data-width=\"%.17g\" data-height=\"%.17g\">",
            width, height, width, height, c.ymin, c.ymax, c.left, c.top, c.width, c.height);
    fputs("<style>.grid{stroke:#e4e4e4}.box{fill:none;stroke:#999}.tick{font:11px sans-serif;"
          "fill:#555}.series polyline{stroke-width:1.5;stroke-linejoin:round}"
          ".legend{font:12px sans-serif}</style>", f);
    axes(f, &c);
    for (unsigned k = 0; k < n; k++) curve(f, &c, s[k], palette[k % 8]);
    fprintf(f, "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">frame</text>",
            c.left + c.width / 2, height - 2);
    for (unsigned k = 0; legend && k < n; k++) {
        const double x = c.left + 8 + 150 * k;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"3\" fill=\"%s\"/>"
                "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", x, c.top + 8, palette[k % 8],
                x + 18, c.top + 12);
        report_esc(f, s[k]->name);
        fputs("</text>", f);
    }
    fputs("</svg>", f);
}

/* The models' y range: from the ten below the worst frame (at least 0) to
 * 100, wider when a score leaves 0..100 (no clipping). */
static void model_range(Series *const *m, unsigned n, double *lo, double *hi)
{
    *lo = 100;
    *hi = 100;
    double min = 100;
    for (unsigned k = 0; k < n; k++) {
        if (!m[k]->n) continue;
        min = fmin(min, m[k]->lo);
        *hi = fmax(*hi, ceil(m[k]->hi));
    }
    *lo = floor(min / 10) * 10 - 10;
    if (*lo < 0 && min >= 0) *lo = 0;
}

/* ---- The page ---- */

/* The look both HTML pages share (report.h). */
const char report_css_base[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;"
    "max-width:1120px;margin:24px auto;padding:0 16px}"
    "h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:28px 0 8px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}"
    "table{border-collapse:collapse;margin:4px 0}th,td{padding:3px 10px 3px 0;text-align:left;"
    "vertical-align:top;border-bottom:1px solid #eee}th{font-weight:600}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
    "code{font:12px ui-monospace,monospace;word-break:break-all}";

/* This page's own. */
static const char css[] =
    ".warn{background:#fff4d6;border:1px solid #e7c35c;padding:8px 12px;margin:8px 0}"
    ".grid2{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:10px 18px}"
    ".pics{display:flex;flex-wrap:wrap;gap:8px;font-size:12px;color:#555}"
    ".pics img{display:block;image-rendering:pixelated;max-width:100%;height:auto}"
    "figure.frame{margin:10px 0}figure.frame figcaption{font-weight:600;font-size:13px}"
    ".grid2 figure{margin:0}.grid2 figcaption{font-weight:600;font-size:13px}"
    "svg{max-width:100%;height:auto;display:block}"
    "@media print{body{max-width:none;margin:0}section{break-inside:avoid}"
    ".grid2{grid-template-columns:1fr 1fr}}";

static void pooled_row(FILE *f, VmafContext *vmaf, const Series *s, unsigned n_frames, bool bold)
{
    static const enum VmafPoolingMethod m[] = { VMAF_POOL_METHOD_MEAN, VMAF_POOL_METHOD_MIN,
                                                VMAF_POOL_METHOD_MAX,
                                                VMAF_POOL_METHOD_HARMONIC_MEAN };
    fputs(bold ? "<tr><th>" : "<tr><td>", f);
    report_esc(f, s->name);
    fputs(bold ? "</th>" : "</td>", f);
    for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
        double v;
        if (n_frames && !vmaf_feature_score_pooled(vmaf, s->name, m[k], &v, 0, n_frames - 1))
            fprintf(f, "<td class=\"n\">%.6f</td>", v);
        else
            fputs("<td class=\"n\">&ndash;</td>", f);
    }
    fputs("</tr>\n", f);
}

/* A device record as one line: "opencl 0:0 NAME (platform P, driver D, fp64 F)". */
static void device_text(VmafContext *vmaf, unsigned i, unsigned k, char *t, size_t len)
{
    const char *key, *val, *backend = "", *index = "", *name = "";
    char more[512] = "";
    size_t used = 0;
    for (unsigned f = 0; !exactvmaf_device_field_at(vmaf, i, k, f, &key, &val); f++) {
        if (!strcmp(key, "backend")) backend = val;
        else if (!strcmp(key, "index")) index = val;
        else if (!strcmp(key, "name")) name = val;
        else if (used < sizeof(more))
            used += (size_t)snprintf(more + used, sizeof(more) - used, "%s%s %s",
                                     used ? ", " : "", key, val);
    }
    snprintf(t, len, "%s%s%s%s%s%s%s%s", backend, *index ? " " : "", index, *name ? " " : "",
             name, *more ? " (" : "", more, *more ? ")" : "");
}

/* Each device once, with the extractors it computed. */
static void device_list(FILE *f, VmafContext *vmaf)
{
    enum { MAX_SHOWN = 17 };
    char text[MAX_SHOWN][768];
    unsigned n = 0;
    const char *ext, *backend;
    for (unsigned i = 0; !exactvmaf_backend_at(vmaf, i, &ext, &backend); i++) {
        char t[768];
        for (unsigned k = 0; (device_text(vmaf, i, k, t, sizeof(t)), *t); k++) {
            unsigned j = 0;
            while (j < n && strcmp(text[j], t)) j++;
            if (j == n && n < MAX_SHOWN) memcpy(text[n++], t, sizeof(t));
        }
    }
    for (unsigned j = 0; j < n; j++) {
        fputs(j ? "<br>" : "", f);
        report_esc(f, text[j]);
        fputs(":", f);
        for (unsigned i = 0; !exactvmaf_backend_at(vmaf, i, &ext, &backend); i++) {
            char t[768];
            bool on = false;
            for (unsigned k = 0; !on && (device_text(vmaf, i, k, t, sizeof(t)), *t); k++)
                on = !strcmp(t, text[j]);
            if (!on) continue;
            fputs(" ", f);
            report_esc(f, ext);
        }
    }
}

unsigned report_worst_frames(VmafContext *vmaf, const char *model, unsigned n_frames,
                             unsigned *out, unsigned max)
{
    /* A running selection of the `max` lowest, kept sorted: ties keep the
     * earlier frame first. */
    unsigned n = 0;
    double low[WORST_FRAMES > REPORT_WORST_PICTURES ? WORST_FRAMES : REPORT_WORST_PICTURES];
    if (max > sizeof(low) / sizeof(low[0])) max = sizeof(low) / sizeof(low[0]);
    for (unsigned i = 0; i < n_frames; i++) {
        double v;
        if (vmaf_feature_score_at_index(vmaf, model, &v, i) || !isfinite(v)) continue;
        unsigned k = n;
        while (k && low[k - 1] > v) k--;
        if (k == max) continue;
        const unsigned last = n < max ? n : max - 1;
        for (unsigned j = last; j > k; j--) {
            low[j] = low[j - 1];
            out[j] = out[j - 1];
        }
        low[k] = v;
        out[k] = i;
        if (n < max) n++;
    }
    return n;
}

/* The chosen frames as pictures: reference, distorted, difference. */
static void pictures(FILE *f, const CliReport *r, Series *const *models, unsigned n_m)
{
    if (!r->n_pictures && !r->pictures_note) return;
    fputs("<section id=\"pictures\"><h2>Frames</h2>", f);
    if (r->pictures_note) {
        fputs("<p>", f);
        report_esc(f, r->pictures_note);
        fputs("</p>", f);
    }
    fprintf(f, "<p>Luma of the reference and of the distorted video, and the absolute "
            "difference of their luma per pixel (black: none, white: %d or more 8-bit steps, "
            "averaged over each pixel's area).</p>\n", PICTURE_DIFF_FULL);
    for (unsigned k = 0; k < r->n_pictures; k++) {
        const FramePictures *p = &r->pictures[k];
        fprintf(f, "<figure class=\"frame\" data-frame=\"%u\"><figcaption>frame %u (", p->frame,
                p->frame);
        print_time(f, r->seconds ? r->seconds[p->frame] : -1.0);
        fputs(")", f);
        for (unsigned m = 0; m < n_m; m++) {
            fputs(", ", f);
            report_esc(f, models[m]->name);
            fprintf(f, " %.6f", models[m]->v[p->frame]);
        }
        fprintf(f, "; largest difference %.6g</figcaption><div class=\"pics\">", p->max_diff);
        static const char *const what[] = { "reference", "distorted", "difference" };
        const char *const png[] = { p->ref_png, p->dist_png, p->diff_png };
        for (int i = 0; i < 3; i++)
            fprintf(f, "<div><img class=\"%s\" width=\"%u\" height=\"%u\" alt=\"%s, frame %u\" "
                    "src=\"data:image/png;base64,%s\"><br>%s</div>", what[i], p->w, p->h,
                    what[i], p->frame, png[i], what[i]);
        fputs("</div></figure>\n", f);
    }
    fputs("</section>\n", f);
}

static int write_page(FILE *f, VmafContext *vmaf, const CliReport *r, Series *all, unsigned n_all)
{
    Series *models[16];
    unsigned n_m = 0;
    for (unsigned i = 0; i < n_all && n_m < 16; i++)
        if (is_model(r, all[i].name)) models[n_m++] = &all[i];

    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
          "<title>VMAF report: ", f);
    report_esc(f, r->dist_path);
    fprintf(f, "</title><style>%s%s</style></head><body>\n<h1>VMAF report</h1>\n",
            report_css_base, css);
    if (r->incomplete) {
        fprintf(f, "<p class=\"warn\" id=\"incomplete\">Incomplete: these scores cover frames "
                "0 to %u only (", r->n_frames ? r->n_frames - 1 : 0);
        report_esc(f, r->incomplete);
        fputs(").</p>\n", f);
    }

    /* The run. */
    fputs("<section id=\"run\"><h2>Run</h2><table>\n<tr><th>reference</th><td><code>", f);
    report_esc(f, r->ref_path);
    fputs("</code><br>", f);
    report_esc(f, r->ref_desc);
    fputs("</td></tr>\n<tr><th>distorted</th><td><code>", f);
    report_esc(f, r->dist_path);
    fputs("</code><br>", f);
    report_esc(f, r->dist_desc);
    fprintf(f, "</td></tr>\n<tr><th>frames</th><td>%u</td></tr>\n<tr><th>models</th><td>",
            r->n_frames);
    for (unsigned i = 0; i < r->n_models; i++) {
        if (i) fputs(", ", f);
        report_esc(f, r->models[i]);
    }
    if (!r->n_models) fputs("none (features only)", f);
    fputs("</td></tr>\n<tr><th>computed on</th><td>", f);
    const char *ext, *backend;
    for (unsigned i = 0; !exactvmaf_backend_at(vmaf, i, &ext, &backend); i++) {
        if (i) fputs(", ", f);
        report_esc(f, ext);
        fputs(": ", f);
        report_esc(f, backend);
    }
    fputs("</td></tr>\n<tr><th>devices</th><td>", f);
    device_list(f, vmaf);
    fputs("</td></tr>\n", f);
    report_run_rows(f, r->command);
    fputs("</table></section>\n", f);

    /* Pooled values. */
    fputs("<section id=\"pooled\"><h2>Pooled scores</h2><table>\n<tr><th></th>"
          "<th class=\"n\">mean</th><th class=\"n\">min</th><th class=\"n\">max</th>"
          "<th class=\"n\">harmonic mean</th></tr>\n", f);
    for (unsigned k = 0; k < n_m; k++) pooled_row(f, vmaf, models[k], r->n_frames, true);
    for (unsigned i = 0; i < n_all; i++)
        if (!is_model(r, all[i].name)) pooled_row(f, vmaf, &all[i], r->n_frames, false);
    fputs("</table></section>\n", f);

    /* The models per frame. */
    if (n_m) {
        double lo, hi;
        model_range(models, n_m, &lo, &hi);
        fputs("<section id=\"scores\"><h2>Score per frame</h2>", f);
        chart(f, (const Series *const *)models, n_m, r->n_frames, lo, hi, 1080, 360, true);
        fputs("</section>\n", f);

        /* The worst frames of the first model. */
        unsigned order[WORST_FRAMES];
        const unsigned show = report_worst_frames(vmaf, models[0]->name, r->n_frames, order,
                                                  WORST_FRAMES);
        fputs("<section id=\"worst\"><h2>Worst frames (", f);
        report_esc(f, models[0]->name);
        fputs(")</h2><table>\n<tr><th class=\"n\">frame</th><th class=\"n\">time</th>", f);
        for (unsigned k = 0; k < n_m; k++) {
            fputs("<th class=\"n\">", f);
            report_esc(f, models[k]->name);
            fputs("</th>", f);
        }
        fputs("</tr>\n", f);
        for (unsigned k = 0; k < show; k++) {
            const unsigned i = order[k];
            fprintf(f, "<tr><td class=\"n\">%u</td><td class=\"n\">", i);
            print_time(f, r->seconds ? r->seconds[i] : -1.0);
            fputs("</td>", f);
            for (unsigned m = 0; m < n_m; m++)
                fprintf(f, "<td class=\"n\">%.6f</td>", models[m]->v[i]);
            fputs("</tr>\n", f);
        }
        fputs("</table></section>\n", f);
        pictures(f, r, models, n_m);
    }

    /* Every feature per frame. */
    fputs("<section id=\"features\"><h2>Features per frame</h2><div class=\"grid2\">\n", f);
    for (unsigned i = 0; i < n_all; i++) {
        if (is_model(r, all[i].name) || !all[i].n) continue;
        const Series *one[1] = { &all[i] };
        fputs("<figure><figcaption>", f);
        report_esc(f, all[i].name);
        fputs("</figcaption>", f);
        chart(f, one, 1, r->n_frames, all[i].lo, all[i].hi, 520, 200, false);
        fputs("</figure>\n", f);
    }
    fputs("</div></section>\n</body></html>\n", f);
    return 0;
}

static int load_all(VmafContext *vmaf, const CliReport *r, Series **out, unsigned *n)
{
    const unsigned cnt = exactvmaf_output_count(vmaf);
    Series *s = calloc(cnt ? cnt : 1, sizeof(*s));
    if (!s) return -ENOMEM;
    for (unsigned i = 0; i < cnt; i++) {
        const int err = series_load(vmaf, exactvmaf_output_name(vmaf, i), r->n_frames, &s[i]);
        if (err) {
            series_free(s, i);
            return err;
        }
    }
    *out = s;
    *n = cnt;
    return 0;
}

int cli_write_report(VmafContext *vmaf, const char *path, const CliReport *r)
{
    Series *s;
    unsigned n;
    int err = load_all(vmaf, r, &s, &n);
    if (err) return err;
    OutFile o = { 0 };
    err = report_out_open(&o, path);
    if (!err) err = write_page(o.f, vmaf, r, s, n);
    err = report_out_close(&o, err);
    series_free(s, n);
    return err;
}

int cli_write_plot(VmafContext *vmaf, const char *path, const CliReport *r)
{
    Series *s;
    unsigned n;
    int err = load_all(vmaf, r, &s, &n);
    if (err) return err;
    const Series *m[16];
    unsigned n_m = 0;
    for (unsigned i = 0; i < n && n_m < 16; i++)
        if (is_model(r, s[i].name)) m[n_m++] = &s[i];
    if (!n_m) {
        fprintf(stderr, "exactvmaf: --plot %s: no model scores to plot (--no_prediction)\n", path);
        series_free(s, n);
        return -EINVAL;
    }
    OutFile o = { 0 };
    err = report_out_open(&o, path);
    if (!err) {
        double lo, hi;
        model_range((Series *const *)m, n_m, &lo, &hi);
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", o.f);
        chart(o.f, m, n_m, r->n_frames, lo, hi, 960, 360, true);
        fputc('\n', o.f);
    }
    err = report_out_close(&o, err);
    series_free(s, n);
    return err;
}
