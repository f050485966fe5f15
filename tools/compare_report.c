/*
 * The page of `exactvmaf compare --report`: the ladders' rate-VMAF curves
 * (bitrate on a log axis, the curve the BD arithmetic integrates drawn
 * between the points), the deltas against the anchor, the VMAF at common
 * bitrates and every encode. One file: inline SVG and CSS, no script.
 * Points carry their values (data-kbps, data-vmaf, %.17g) for checking.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../src/os/os.h"
#include "compare.h"
#include "libvmaf/libvmaf.h"
#include "report.h"

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                       "#ff7f0e", "#17becf", "#8c564b", "#e377c2" };

/* Beside report_css_base (report.h). */
static const char css[] =
    "svg{max-width:100%;height:auto;display:block}"
    ".grid{stroke:#e4e4e4}.box{fill:none;stroke:#999}.tick{font:11px sans-serif;fill:#555}"
    ".legend{font:12px sans-serif}"
    "@media print{body{max-width:none;margin:0}section{break-inside:avoid}}";

typedef struct Axes {
    double left, top, width, height;
    double lx0, lx1, y0, y1;        /* log10 kbit/s and VMAF ranges */
} Axes;

static double ax(const Axes *a, double kbps)
{
    return a->left + (log10(kbps) - a->lx0) / (a->lx1 - a->lx0) * a->width;
}

static double ay(const Axes *a, double v)
{
    return a->top + (a->y1 - v) / (a->y1 - a->y0) * a->height;
}

/* Ticks at 1, 2 and 5 times powers of ten within the bitrate range. */
static void rate_ticks(FILE *f, const Axes *a)
{
    for (int e = (int)floor(a->lx0); e <= (int)ceil(a->lx1); e++) {
        static const double m[] = { 1, 2, 5 };
        for (int k = 0; k < 3; k++) {
            const double v = m[k] * pow(10.0, e), l = log10(v);
            if (l < a->lx0 - 1e-9 || l > a->lx1 + 1e-9) continue;
            const double x = ax(a, v);
            fprintf(f, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
                    "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%g</text>",
                    x, a->top, x, a->top + a->height, x, a->top + a->height + 16, v);
        }
    }
    const double span = a->y1 - a->y0;
    const double step = span > 40 ? 10 : span > 16 ? 5 : span > 6 ? 2 : span > 3 ? 1 : 0.5;
    for (double v = ceil(a->y0 / step) * step; v <= a->y1 + 1e-9; v += step) {
        const double y = ay(a, v);
        fprintf(f, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
                "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%g</text>",
                a->left, y, a->left + a->width, y, a->left - 4, y + 4, v);
    }
    fprintf(f, "<rect class=\"box\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>",
            a->left, a->top, a->width, a->height);
}

static void rd_chart(FILE *f, const Compare *c)
{
    const double W = 1080, H = 480;
    Axes a = { 56, 14, W - 56 - 16, H - 14 - 40, INFINITY, -INFINITY, INFINITY, -INFINITY };
    for (unsigned i = 0; i < c->n_enc; i++) {
        a.lx0 = fmin(a.lx0, log10(c->enc[i].kbps));
        a.lx1 = fmax(a.lx1, log10(c->enc[i].kbps));
        a.y0 = fmin(a.y0, c->enc[i].vmaf);
        a.y1 = fmax(a.y1, c->enc[i].vmaf);
    }
    const double pad = (a.lx1 - a.lx0) * 0.04 + 0.02;
    a.lx0 -= pad;
    a.lx1 += pad;
    a.y0 = floor(a.y0 - (a.y1 - a.y0) * 0.05 - 0.5);
    a.y1 = ceil(a.y1 + (a.y1 - a.y0) * 0.05 + 0.5);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\""
            " height=\"%.0f\" role=\"img\" id=\"rd\">", W, H, W, H);
    rate_ticks(f, &a);
    fprintf(f, "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">bitrate "
            "(kbit/s, log scale)</text>", a.left + a.width / 2, H - 4);
    fprintf(f, "<text class=\"tick\" x=\"12\" y=\"%.2f\" transform=\"rotate(-90 12 %.2f)\" "
            "text-anchor=\"middle\">", a.top + a.height / 2, a.top + a.height / 2);
    report_esc(f, c->metric);
    fputs("</text>", f);
    for (unsigned l = 0; l < c->n_lad; l++) {
        const CmpLadder *lad = &c->lad[l];
        const char *color = palette[l % 8];
        fputs("<g class=\"ladder\" data-name=\"", f);
        report_esc(f, lad->name);
        fprintf(f, "\" stroke=\"%s\" fill=\"%s\">", color, color);
        /* The interpolant BD integrates, where the ladder has one; else lines. */
        const BdCurve curve = { lad->rate, lad->vmaf, lad->n };
        fputs("<polyline fill=\"none\" stroke-width=\"1.5\" points=\"", f);
        double q;
        const bool smooth = lad->n >= 2 && !bd_quality_at(&curve, lad->rate[0], &q);
        const unsigned steps = smooth ? 64 : 0;
        if (smooth) {
            const double l0 = log10(lad->rate[0]), l1 = log10(lad->rate[lad->n - 1]);
            for (unsigned k = 0; k <= steps; k++) {
                const double r = k == steps ? lad->rate[lad->n - 1] :
                                 pow(10.0, l0 + (l1 - l0) * k / steps);
                if (bd_quality_at(&curve, r, &q)) continue;
                fprintf(f, "%s%.2f,%.2f", k ? " " : "", ax(&a, r), ay(&a, q));
            }
        } else {
            for (unsigned i = 0; i < lad->n; i++)
                fprintf(f, "%s%.2f,%.2f", i ? " " : "", ax(&a, lad->rate[i]),
                        ay(&a, lad->vmaf[i]));
        }
        fputs("\"/>", f);
        for (unsigned i = 0; i < lad->n; i++) {
            const CmpEncode *e = &c->enc[lad->enc[i]];
            fprintf(f, "<circle r=\"3.5\" cx=\"%.2f\" cy=\"%.2f\" data-kbps=\"%.17g\" "
                    "data-vmaf=\"%.17g\"><title>", ax(&a, e->kbps), ay(&a, e->vmaf), e->kbps,
                    e->vmaf);
            report_esc(f, e->path);
            fprintf(f, ": %.1f kbit/s, %.4f</title></circle>", e->kbps, e->vmaf);
        }
        fputs("</g>", f);
        const double x = a.left + 10 + 170 * (l % 6), y = a.top + 14 + 16 * (l / 6);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"3\" fill=\"%s\"/>"
                "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", x, y - 4, color, x + 18, y);
        report_esc(f, lad->name);
        fputs(l ? "</text>" : " (anchor)</text>", f);
    }
    fputs("</svg>", f);
}

static void delta_cell(FILE *f, enum BdError e, double v, const char *fmt)
{
    fputs("<td class=\"n\">", f);
    if (e) {
        fputs("&ndash; <small>(", f);
        report_esc(f, bd_why(e));
        fputs(")</small>", f);
    } else {
        fprintf(f, fmt, v);
    }
    fputs("</td>", f);
}

static void write_page(FILE *f, const Compare *c)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
          "<title>Encode comparison", f);
    if (c->ref) {
        fputs(": ", f);
        report_esc(f, c->ref);
    }
    fprintf(f, "</title><style>%s%s</style></head><body>\n<h1>Encode comparison</h1>\n",
            report_css_base, css);
    fputs("<section id=\"run\"><h2>Run</h2><table>\n<tr><th>reference</th><td><code>", f);
    report_esc(f, c->ref ? c->ref : "(points given)");
    fputs("</code></td></tr>\n<tr><th>score</th><td>", f);
    report_esc(f, c->metric);
    fputs(" (pooled mean)</td></tr>\n<tr><th>ladders</th><td>grouped by ", f);
    report_esc(f, c->grouping);
    fputs("; BD against the first, ", f);
    report_esc(f, c->lad[0].name);
    fputs("</td></tr>\n<tr><th>method</th><td>piecewise cubic Hermite interpolation "
          "(Fritsch-Carlson) over log10(bitrate), integrated over the range both ladders "
          "cover (Bj&oslash;ntegaard VCEG-M33; JCTVC-L1100, JVET and AOM CTC)</td></tr>\n", f);
    report_run_rows(f, c->command);
    fputs("</table></section>\n", f);

    fputs("<section id=\"curves\"><h2>Rate and ", f);
    report_esc(f, c->metric);
    fputs("</h2>", f);
    rd_chart(f, c);
    fputs("</section>\n", f);

    fputs("<section id=\"deltas\"><h2>Bj&oslash;ntegaard deltas</h2><table>\n<tr><th>ladder"
          "</th><th class=\"n\">encodes</th><th class=\"n\">kbit/s</th><th class=\"n\">",
          f);
    report_esc(f, c->metric);
    fputs("</th><th class=\"n\">BD-rate</th><th class=\"n\">BD-VMAF</th></tr>\n", f);
    for (unsigned l = 0; l < c->n_lad; l++) {
        const CmpLadder *lad = &c->lad[l];
        double lo = INFINITY, hi = -INFINITY;
        for (unsigned i = 0; i < lad->n; i++) {
            lo = fmin(lo, lad->vmaf[i]);
            hi = fmax(hi, lad->vmaf[i]);
        }
        fputs("<tr data-ladder=\"", f);
        report_esc(f, lad->name);
        fputs("\"><th>", f);
        report_esc(f, lad->name);
        fprintf(f, "</th><td class=\"n\">%u</td><td class=\"n\">%.1f&ndash;%.1f</td>"
                "<td class=\"n\">%.3f&ndash;%.3f</td>", lad->n, lad->rate[0],
                lad->rate[lad->n - 1], lo, hi);
        if (!l) {
            fputs("<td class=\"n\">anchor</td><td class=\"n\">anchor</td></tr>\n", f);
            continue;
        }
        delta_cell(f, lad->rate_err, lad->bd_rate, "%+.4f%%");
        delta_cell(f, lad->vmaf_err, lad->bd_vmaf, "%+.4f");
        fputs("</tr>\n", f);
    }
    fputs("</table><p>BD-rate: the mean bitrate difference at equal score (negative: "
          "fewer bits); BD-VMAF: the mean score difference at equal bitrate.</p></section>\n",
          f);

    fputs("<section id=\"common\"><h2>", f);
    report_esc(f, c->metric);
    fputs(" at common bitrates</h2>", f);
    if (!c->n_common) {
        fputs("<p>No bitrate is reached by every ladder.</p>", f);
    } else {
        fputs("<table>\n<tr><th class=\"n\">kbit/s</th>", f);
        for (unsigned l = 0; l < c->n_lad; l++) {
            fputs("<th class=\"n\">", f);
            report_esc(f, c->lad[l].name);
            fputs("</th>", f);
        }
        fputs("</tr>\n", f);
        for (unsigned i = 0; i < c->n_common; i++) {
            fprintf(f, "<tr><td class=\"n\">%.1f</td>", c->common_rate[i]);
            for (unsigned l = 0; l < c->n_lad; l++) {
                const double q = c->common_vmaf[i * c->n_lad + l];
                if (isnan(q)) fputs("<td class=\"n\">&ndash;</td>", f);
                else fprintf(f, "<td class=\"n\">%.4f</td>", q);
            }
            fputs("</tr>\n", f);
        }
        fputs("</table>", f);
    }
    fputs("</section>\n", f);

    fputs("<section id=\"encodes\"><h2>Encodes</h2><table>\n<tr><th>file</th><th>ladder</th>"
          "<th class=\"n\">kbit/s</th><th>bitrate from</th><th class=\"n\">", f);
    report_esc(f, c->metric);
    fputs("</th><th class=\"n\">harmonic mean</th><th class=\"n\">frames</th></tr>\n", f);
    for (unsigned l = 0; l < c->n_lad; l++) {
        for (unsigned i = 0; i < c->lad[l].n; i++) {
            const CmpEncode *e = &c->enc[c->lad[l].enc[i]];
            fputs("<tr><td><code>", f);
            report_esc(f, e->path);
            fputs("</code></td><td>", f);
            report_esc(f, c->lad[l].name);
            fprintf(f, "</td><td class=\"n\">%.3f</td><td>%s</td><td class=\"n\">%.6f</td>",
                    e->kbps, e->rate_source, e->vmaf);
            if (isnan(e->vmaf_hmean)) fputs("<td class=\"n\">&ndash;</td>", f);
            else fprintf(f, "<td class=\"n\">%.6f</td>", e->vmaf_hmean);
            if (e->frames) fprintf(f, "<td class=\"n\">%u</td></tr>\n", e->frames);
            else fputs("<td class=\"n\">&ndash;</td></tr>\n", f);
        }
    }
    fputs("</table></section>\n</body></html>\n", f);
}

int compare_write_report(const Compare *c, const char *path)
{
    OutFile o = { 0 };
    int err = report_out_open(&o, path);
    if (!err) write_page(o.f, c);
    return report_out_close(&o, err);
}
