/*
 * exactvmaf compare REF ENC... : each encode scored against the reference
 * by the tool's own run (cli_run, with every option of a normal run that
 * applies), its bitrate read from its container, the encodes grouped into
 * ladders, and each ladder's BD-rate and BD-VMAF against the first one
 * (bdrate.c). Or the same from given points (--points CSV), or from scores
 * made elsewhere (--scores CSV: a Dask cluster's, whose plan, the ladders and
 * bitrates without scoring, --plan prints): one definition of each step.
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../src/os/os.h"
#if VMAF_OS_HAVE_REGEX
#include <regex.h>
#endif
#include "cli.h"
#include "compare.h"
#include "inputs.h"
#include "report.h"
#include "../src/os/stop_signals.h"
#include "video_input.h"

static const char compare_usage[] =
"Usage: exactvmaf compare [options] REF ENC...\n"
"       exactvmaf compare [options] --points FILE.csv\n"
"       exactvmaf compare --plan [options] REF ENC...\n"
"\n"
"Score each encode ENC against the reference REF, read its bitrate from its\n"
"container, group the encodes into ladders (rate-quality curves), and print\n"
"each ladder's BD-rate and BD-VMAF against the first ladder (the anchor), with\n"
"the piecewise cubic (PCHIP) interpolation of the JCT-VC/JVET and AOM common\n"
"test conditions, and the ladders' VMAF at the bitrates they all reach.\n"
"\n"
"Options of compare:\n"
"     --group-by REGEX         ladder of an encode: the first group (or the whole\n"
"                              match) of REGEX (POSIX extended) in its file name,\n"
"                              e.g. '^(x26[45])_'; default: its folder when the\n"
"                              encodes lie in several, else its file name without\n"
"                              the extension and the last number in it\n"
"                              (x265_crf28.mp4: x265_crf)\n"
"     --json FILE              the results as JSON (encodes, ladders, deltas)\n"
"     --csv FILE               one row per encode: ladder, file, bitrate, VMAF and\n"
"                              its ladder's deltas; --points reads it back\n"
"     --report FILE.html       the curves and tables as one self-contained page\n"
"     --points FILE.csv        no scoring: the points are columns ladder,\n"
"                              bitrate_kbps and vmaf (file and frames optional)\n"
"     --plan                   no scoring: print each encode's ladder and the\n"
"                              bitrate compare uses (with --json FILE: as JSON,\n"
"                              bitrate_kbps null where it comes from the frames\n"
"                              scored); checks the files, --group-by and options\n"
"     --scores FILE.csv        no scoring: each encode's scores are the row of\n"
"                              FILE whose file column is ENC as given (columns\n"
"                              file, vmaf; vmaf_harmonic_mean, frames optional:\n"
"                              --csv writes them), computed elsewhere (on Dask:\n"
"                              exactvmaf.compare(client=...)); the ladders,\n"
"                              bitrates and outputs are those of a scoring run\n"
"\n"
"Every option of a run that applies goes to each encode's scoring (--model,\n"
"--backend, --threads, --hwdec, --scale-to-ref, --frame_cnt, ...); the first\n"
"model's pooled mean is the ladders' score. The bitrate is the container's\n"
"(all its streams), else the file's size over its duration. BD-rate is the\n"
"mean bitrate difference at equal VMAF (negative: fewer bits), BD-VMAF the\n"
"mean VMAF difference at equal bitrate, each over the range both ladders\n"
"cover; along a ladder VMAF must rise with the bitrate.\n";

enum { CMP_MAX_PASS = 256 };

typedef struct Args {
    const char *group_by, *json, *csv, *report, *points, *scores;
    bool plan;
    const char *pos[4096];
    unsigned n_pos;
    char *pass[CMP_MAX_PASS];
    unsigned n_pass;
} Args;

static int usage_error(const char *msg, const char *what)
{
    fprintf(stderr, "exactvmaf compare: %s%s\nTry 'exactvmaf compare --help'.\n", msg,
            what ? what : "");
    return CLI_EXIT_USAGE;
}

/* Options a run writes its own files with, or that name the videos. */
static bool not_for_compare(const char *name)
{
    static const char *const no[] = { "reference", "distorted", "output", "xml", "sub",
                                      "plot", "no_prediction", "list-devices",
                                      "rcpss-fingerprint", "version", "report-frame" };
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (!strcmp(name, no[i])) return true;
    return false;
}

/* 0, or the exit status; -1 after --help. */
static int parse_args(int argc, char *argv[], Args *a)
{
    memset(a, 0, sizeof(*a));
    static const char *const own[] = { "--group-by", "--json", "--csv", "--report",
                                       "--points", "--scores" };
    bool only_pos = false;
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (only_pos || arg[0] != '-' || !arg[1]) {
            if (a->n_pos == sizeof(a->pos) / sizeof(a->pos[0]))
                return usage_error("too many files", NULL);
            a->pos[a->n_pos++] = arg;
            continue;
        }
        if (!strcmp(arg, "--")) {
            only_pos = true;
            continue;
        }
        if (!strcmp(arg, "--help")) {
            fputs(compare_usage, stdout);
            return -1;
        }
        if (!strcmp(arg, "--plan")) {
            a->plan = true;
            continue;
        }
        const char **slot[] = { &a->group_by, &a->json, &a->csv, &a->report, &a->points,
                                &a->scores };
        bool mine = false;
        for (size_t k = 0; k < sizeof(slot) / sizeof(slot[0]) && !mine; k++) {
            const size_t len = strlen(own[k]);
            if (strncmp(arg, own[k], len) || (arg[len] && arg[len] != '=')) continue;
            mine = true;
            if (*slot[k]) return usage_error(own[k], " is given more than once");
            if (arg[len]) *slot[k] = arg + len + 1;
            else if (i + 1 < argc) *slot[k] = argv[++i];
            else return usage_error(own[k], " needs a value");
        }
        if (mine) continue;
        const char *name;
        const int arity = cli_option_lookup(arg, &name);
        if (arity < 0) return usage_error("unknown option ", arg);
        if (!strcmp(name, "help")) {
            fputs(compare_usage, stdout);
            return -1;
        }
        if (not_for_compare(name) || !strcmp(name, "json") || !strcmp(name, "csv"))
            return usage_error(arg, " does not apply to compare (see exactvmaf compare "
                               "--help)");
        if (a->n_pass + 2 > CMP_MAX_PASS) return usage_error("too many options", NULL);
        a->pass[a->n_pass++] = argv[i];
        if (arity == 1) {
            if (i + 1 == argc) return usage_error(arg, " needs a value");
            a->pass[a->n_pass++] = argv[++i];
        }
    }
    if (a->points) {
        if (a->n_pos) return usage_error("--points takes no video files: ", a->pos[0]);
        if (a->group_by) return usage_error("--points names the ladders: no --group-by", NULL);
        if (a->plan || a->scores) return usage_error("--points goes without --plan and --scores",
                                                     NULL);
    } else if (a->plan && (a->scores || a->csv || a->report)) {
        return usage_error("--plan writes only --json", NULL);
    } else if (a->n_pos < 2) {
        return usage_error("give the reference and at least one encode", NULL);
    }
    return 0;
}

/* ---- Bitrate ---- */

/*
 * kbit/s of the whole file: the container's bit_rate (FFmpeg's: all the
 * streams, as `ffprobe -show_format` prints it), else its size over its
 * duration, from the container or else from the frames scored at the
 * video's frame rate. The container's part alone (--plan): 0 when it gives
 * the bitrate, 1 when that needs the frames scored, -EINVAL when the file is
 * not a regular one; *bits is the file's size in bits.
 */
static int container_bitrate(CmpEncode *e, double *bits_out)
{
    struct stat st;
    if (stat(e->path, &st) || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "exactvmaf compare: %s: not a regular file: its bitrate is unknown\n",
                e->path);
        return -EINVAL;
    }
    const double bits = (double)st.st_size * 8;
    *bits_out = bits;
    return video_input_container_rate(e->path, bits, &e->kbps, &e->rate_source) ? 1 : 0;
}

static int read_bitrate(CmpEncode *e, const CliRunScores *s)
{
    double bits;
    const int rc = container_bitrate(e, &bits);
    if (rc <= 0) return rc;
    unsigned fps_num = s->fps_num, fps_den = s->fps_den;
    VideoInput *vi = NULL;
    /* --scores: no run here read the frame rate; a y4m header has it, as
     * the run that scored the encode read it. */
    if (!fps_num && s->n_frames && !video_input_open_y4m(&vi, e->path)) {
        fps_num = video_input_info(vi)->fps_num;
        fps_den = video_input_info(vi)->fps_den;
        video_input_close(&vi);
    }
    if (fps_num && fps_den && s->n_frames) {
        e->kbps = bits / ((double)s->n_frames * fps_den / fps_num) / 1000;
        e->rate_source = "size/frames";
        return 0;
    }
    fprintf(stderr, "exactvmaf compare: %s: neither a bitrate nor a duration or frame rate "
            "to compute one from\n", e->path);
    return -EINVAL;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The file name without its extension and its last run of digits. */
static void name_stem(const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s", base_name(path));
    char *dot = strrchr(out, '.');
    if (dot && dot != out) *dot = '\0';
    char *end = NULL;
    for (char *p = out; *p; p++)
        if (*p >= '0' && *p <= '9' && (p[1] < '0' || p[1] > '9')) end = p + 1;
    if (!end) return;
    char *start = end;
    while (start > out && start[-1] >= '0' && start[-1] <= '9') start--;
    if (start == out && !*end) return;     /* all digits: keep the name */
    memmove(start, end, strlen(end) + 1);
}

static int group_encodes(Compare *c, const char *group_by)
{
#if !VMAF_OS_HAVE_REGEX
    if (group_by) {
        fprintf(stderr, "exactvmaf compare: --group-by needs regular expressions, which this "
                "build for Windows lacks; name the ladders by folder instead\n");
        return CLI_EXIT_USAGE;
    }
#else
    if (group_by) {
        regex_t re;
        const int rc = regcomp(&re, group_by, REG_EXTENDED);
        if (rc) {
            char msg[256];
            regerror(rc, &re, msg, sizeof(msg));
            fprintf(stderr, "exactvmaf compare: --group-by %s: %s\n", group_by, msg);
            return CLI_EXIT_USAGE;
        }
        c->grouping = "--group-by";
        for (unsigned i = 0; i < c->n_enc; i++) {
            const char *name = base_name(c->enc[i].path);
            regmatch_t m[2];
            if (regexec(&re, name, 2, m, 0)) {
                fprintf(stderr, "exactvmaf compare: %s: its name does not match --group-by "
                        "%s\n", c->enc[i].path, group_by);
                regfree(&re);
                return CLI_EXIT_USAGE;
            }
            const regmatch_t *g = re.re_nsub >= 1 && m[1].rm_so >= 0 ? &m[1] : &m[0];
            if (g->rm_eo == g->rm_so) {
                fprintf(stderr, "exactvmaf compare: %s: --group-by %s matches nothing of its "
                        "name\n", c->enc[i].path, group_by);
                regfree(&re);
                return CLI_EXIT_USAGE;
            }
            if (compare_add_ladder(c, name + g->rm_so, (size_t)(g->rm_eo - g->rm_so),
                           &c->enc[i].ladder)) {
                regfree(&re);
                return CLI_EXIT_COMPUTE;
            }
        }
        regfree(&re);
        return 0;
    }
#endif
    /* By folder when there are several; else by the name's stem. */
    bool folders = false;
    char first[4096], dir[4096], stem[512];
    for (unsigned i = 0; i < c->n_enc; i++) {
        snprintf(dir, sizeof(dir), "%s", c->enc[i].path);
        const char *d = dirname(dir);
        if (!i) snprintf(first, sizeof(first), "%s", d);
        else if (strcmp(first, d)) folders = true;
    }
    c->grouping = folders ? "folder" : "file name without its last number";
    for (unsigned i = 0; i < c->n_enc; i++) {
        const char *name = stem;
        if (folders) {
            snprintf(dir, sizeof(dir), "%s", c->enc[i].path);
            name = dirname(dir);
        } else {
            name_stem(c->enc[i].path, stem, sizeof(stem));
        }
        if (compare_add_ladder(c, name, strlen(name), &c->enc[i].ladder)) return CLI_EXIT_COMPUTE;
    }
    return 0;
}

/* Each ladder's curve, its deltas against the anchor, and the common bitrates. */
static int conclude(Compare *c)
{
    for (unsigned l = 0; l < c->n_lad; l++) {
        CmpLadder *lad = &c->lad[l];
        lad->n = 0;
        for (unsigned i = 0; i < c->n_enc; i++) lad->n += c->enc[i].ladder == l;
        lad->enc = malloc(lad->n * sizeof(unsigned));
        lad->rate = malloc(lad->n * sizeof(double));
        lad->vmaf = malloc(lad->n * sizeof(double));
        if (!lad->enc || !lad->rate || !lad->vmaf) return -ENOMEM;
        unsigned k = 0;
        for (unsigned i = 0; i < c->n_enc; i++)
            if (c->enc[i].ladder == l) lad->enc[k++] = i;
        /* Insertion sort by bitrate (ladders are short), stable. */
        for (unsigned i = 1; i < lad->n; i++) {
            const unsigned v = lad->enc[i];
            unsigned j = i;
            for (; j && c->enc[lad->enc[j - 1]].kbps > c->enc[v].kbps; j--)
                lad->enc[j] = lad->enc[j - 1];
            lad->enc[j] = v;
        }
        for (unsigned i = 0; i < lad->n; i++) {
            lad->rate[i] = c->enc[lad->enc[i]].kbps;
            lad->vmaf[i] = c->enc[lad->enc[i]].vmaf;
        }
    }
    const BdCurve anchor = { c->lad[0].rate, c->lad[0].vmaf, c->lad[0].n };
    double lo = 0, hi = INFINITY;
    for (unsigned l = 0; l < c->n_lad; l++) {
        CmpLadder *lad = &c->lad[l];
        const BdCurve t = { lad->rate, lad->vmaf, lad->n };
        lad->rate_err = bd_rate(&anchor, &t, &lad->bd_rate);
        lad->vmaf_err = bd_quality(&anchor, &t, &lad->bd_vmaf);
        lo = fmax(lo, lad->rate[0]);
        hi = fmin(hi, lad->rate[lad->n - 1]);
    }
    c->n_common = 0;
    if (hi > lo) {
        c->n_common = CMP_COMMON_RATES;
        for (unsigned i = 0; i < CMP_COMMON_RATES; i++)
            c->common_rate[i] = i == 0 ? lo : i == CMP_COMMON_RATES - 1 ? hi :
                pow(10.0, log10(lo) + (log10(hi) - log10(lo)) * i / (CMP_COMMON_RATES - 1));
    } else if (hi == lo) {
        c->n_common = 1;
        c->common_rate[0] = lo;
    }
    c->common_vmaf = malloc((c->n_common * c->n_lad + 1) * sizeof(double));
    if (!c->common_vmaf) return -ENOMEM;
    for (unsigned i = 0; i < c->n_common; i++) {
        for (unsigned l = 0; l < c->n_lad; l++) {
            const BdCurve t = { c->lad[l].rate, c->lad[l].vmaf, c->lad[l].n };
            double q = NAN;
            if (bd_quality_at(&t, c->common_rate[i], &q)) q = NAN;
            c->common_vmaf[i * c->n_lad + l] = q;
        }
    }
    return 0;
}

/* ---- Scoring ---- */

/* Encode i's run: the reference, the encode, and the options given, in argv
 * (room for CMP_MAX_PASS + 8). The caller frees *s. */
static int encode_settings(const Compare *c, const Args *a, const char *argv0, unsigned i,
                           char **argv, CliSettings *s)
{
    int n = 0;
    argv[n++] = (char *)argv0;
    argv[n++] = "-r";
    argv[n++] = (char *)c->ref;
    argv[n++] = "-d";
    argv[n++] = c->enc[i].path;
    for (unsigned k = 0; k < a->n_pass; k++) argv[n++] = a->pass[k];
    argv[n] = NULL;
    if (cli_parse(n, argv, s) != CLI_PARSE_RUN) return CLI_EXIT_USAGE;
    if (s->no_prediction || !s->n_model) {
        fprintf(stderr, "exactvmaf compare: a model is needed to compare\n");
        return CLI_EXIT_USAGE;
    }
    return 0;
}

static int set_metric(Compare *c, const CliSettings *s)
{
    c->metric = strdup(s->model[0].cfg.name);
    return c->metric ? 0 : CLI_EXIT_COMPUTE;
}

/* Each encode scored here, or its scores taken from --scores. */
static int score_all(Compare *c, const Args *a, const char *argv0)
{
    char *argv[CMP_MAX_PASS + 8];
    int rc = a->scores ? compare_read_scores(c, a->scores) : 0;
    for (unsigned i = 0; !rc && i < c->n_enc; i++) {
        CmpEncode *e = &c->enc[i];
        CliSettings s;
        CliRunScores r = { 0 };
        rc = encode_settings(c, a, argv0, i, argv, &s);
        if (!rc && !i) rc = set_metric(c, &s);
        if (!rc && a->scores) {
            r.n_frames = e->frames;
        } else if (!rc) {
            fprintf(stderr, "exactvmaf compare: [%u/%u] %s\n", i + 1, c->n_enc, e->path);
            rc = cli_run(&s, argv, &r);
            e->vmaf = r.mean;
            e->vmaf_hmean = r.harmonic_mean;
            e->frames = r.n_frames;
        }
        cli_free(&s);
        if (rc) break;
        if (read_bitrate(e, &r)) return CLI_EXIT_INPUT;
        printf("%-40s %12.3f kbit/s  %s %.6f  (%u frames)\n", e->path, e->kbps, c->metric,
               e->vmaf, e->frames);
        fflush(stdout);
    }
    return rc;
}

/* ---- --plan ---- */

/* Each encode's ladder and container bitrate; NAN (source "size/frames")
 * where the bitrate needs the frames scored. */
static int plan_all(Compare *c, const Args *a, const char *argv0)
{
    char *argv[CMP_MAX_PASS + 8];
    CliSettings s;
    int rc = encode_settings(c, a, argv0, 0, argv, &s);
    if (!rc) rc = set_metric(c, &s);
    cli_free(&s);
    for (unsigned i = 0; !rc && i < c->n_enc; i++) {
        CmpEncode *e = &c->enc[i];
        double bits;
        const int known = container_bitrate(e, &bits);
        if (known < 0) return CLI_EXIT_INPUT;
        if (known) {
            e->kbps = NAN;
            e->rate_source = "size/frames";
            printf("%-40s %-20s %12s kbit/s  (from the frames it has when scored)\n", e->path,
                   c->lad[e->ladder].name, "?");
        } else {
            printf("%-40s %-20s %12.3f kbit/s  (%s)\n", e->path, c->lad[e->ladder].name, e->kbps,
                   e->rate_source);
        }
    }
    if (rc) return rc;
    printf("\n%u ladder%s (grouped by %s; the first is the anchor):", c->n_lad,
           c->n_lad == 1 ? "" : "s", c->grouping);
    for (unsigned l = 0; l < c->n_lad; l++) printf("%s %s", l ? "," : "", c->lad[l].name);
    putchar('\n');
    return 0;
}

/* ---- Output ---- */

static void json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fputs("null", f);
}

/* Encode i's object in the JSON outputs, opened: its file, ladder and bitrate. */
static void json_encode_head(FILE *f, const Compare *c, unsigned i)
{
    const CmpEncode *e = &c->enc[i];
    fputs(i ? ",\n    {\"file\": " : "\n    {\"file\": ", f);
    report_json_str(f, e->path);
    fputs(", \"ladder\": ", f);
    report_json_str(f, c->lad[e->ladder].name);
    fputs(", \"bitrate_kbps\": ", f);
    json_num(f, e->kbps);
    fputs(", \"bitrate_source\": ", f);
    report_json_str(f, e->rate_source);
}

/* The JSON outputs' first members: the reference, the metric and the grouping. */
static void json_head(FILE *f, const Compare *c)
{
    fputs("{\n  \"reference\": ", f);
    if (c->ref) report_json_str(f, c->ref);
    else fputs("null", f);
    fputs(",\n  \"metric\": ", f);
    report_json_str(f, c->metric);
    fputs(",\n  \"grouping\": ", f);
    report_json_str(f, c->grouping);
}

static void write_json(FILE *f, const Compare *c)
{
    json_head(f, c);
    fputs(",\n  \"method\": \"PCHIP (Fritsch-Carlson) over log10(bitrate), integrated exactly "
          "(VCEG-M33; JCTVC-L1100, JVET CTC, AOM CTC)\",\n  \"encodes\": [", f);
    for (unsigned i = 0; i < c->n_enc; i++) {
        const CmpEncode *e = &c->enc[i];
        json_encode_head(f, c, i);
        fprintf(f, ", \"%s\": ", "vmaf");
        json_num(f, e->vmaf);
        fputs(", \"vmaf_harmonic_mean\": ", f);
        json_num(f, e->vmaf_hmean);
        fprintf(f, ", \"frames\": %u}", e->frames);
    }
    fputs("\n  ],\n  \"ladders\": [", f);
    for (unsigned l = 0; l < c->n_lad; l++) {
        const CmpLadder *lad = &c->lad[l];
        fputs(l ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        report_json_str(f, lad->name);
        fprintf(f, ", \"anchor\": %s, \"encodes\": [", l ? "false" : "true");
        for (unsigned i = 0; i < lad->n; i++) fprintf(f, "%s%u", i ? ", " : "", lad->enc[i]);
        fputs("], \"bd_rate_percent\": ", f);
        json_num(f, lad->rate_err ? NAN : lad->bd_rate);
        fputs(", \"bd_vmaf\": ", f);
        json_num(f, lad->vmaf_err ? NAN : lad->bd_vmaf);
        if (lad->rate_err || lad->vmaf_err) {
            fputs(", \"bd_error\": ", f);
            report_json_str(f, bd_why(lad->rate_err ? lad->rate_err : lad->vmaf_err));
        }
        fputc('}', f);
    }
    fputs("\n  ],\n  \"common_bitrates\": [", f);
    for (unsigned i = 0; i < c->n_common; i++) {
        fputs(i ? ",\n    {\"bitrate_kbps\": " : "\n    {\"bitrate_kbps\": ", f);
        json_num(f, c->common_rate[i]);
        fputs(", \"vmaf\": {", f);
        for (unsigned l = 0; l < c->n_lad; l++) {
            if (l) fputs(", ", f);
            report_json_str(f, c->lad[l].name);
            fputs(": ", f);
            json_num(f, c->common_vmaf[i * c->n_lad + l]);
        }
        fputs("}}", f);
    }
    fputs("\n  ]\n}\n", f);
}

static void write_plan_json(FILE *f, const Compare *c)
{
    json_head(f, c);
    fputs(",\n  \"encodes\": [", f);
    for (unsigned i = 0; i < c->n_enc; i++) {
        json_encode_head(f, c, i);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"ladders\": [", f);
    for (unsigned l = 0; l < c->n_lad; l++) {
        fputs(l ? ", " : "", f);
        report_json_str(f, c->lad[l].name);
    }
    fputs("]\n}\n", f);
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
}

static void write_csv(FILE *f, const Compare *c)
{
    fputs("ladder,file,bitrate_kbps,vmaf,vmaf_harmonic_mean,frames,bitrate_source,"
          "bd_rate_percent,bd_vmaf\n", f);
    for (unsigned l = 0; l < c->n_lad; l++) {
        const CmpLadder *lad = &c->lad[l];
        for (unsigned i = 0; i < lad->n; i++) {
            const CmpEncode *e = &c->enc[lad->enc[i]];
            report_csv_str(f, lad->name);
            fputc(',', f);
            report_csv_str(f, e->path);
            fputc(',', f);
            csv_num(f, e->kbps);
            fputc(',', f);
            csv_num(f, e->vmaf);
            fputc(',', f);
            csv_num(f, e->vmaf_hmean);
            fprintf(f, ",%u,%s,", e->frames, e->rate_source);
            csv_num(f, lad->rate_err || !l ? NAN : lad->bd_rate);
            fputc(',', f);
            csv_num(f, lad->vmaf_err || !l ? NAN : lad->bd_vmaf);
            fputc('\n', f);
        }
    }
}

static void print_summary(const Compare *c)
{
    printf("\nladders (grouped by %s; BD against %s, the anchor):\n", c->grouping,
           c->lad[0].name);
    for (unsigned l = 0; l < c->n_lad; l++) {
        const CmpLadder *lad = &c->lad[l];
        printf("  %-24s %u encode%s, %.1f-%.1f kbit/s", lad->name, lad->n,
               lad->n == 1 ? "" : "s", lad->rate[0], lad->rate[lad->n - 1]);
        if (!l) {
            printf("  (anchor)\n");
            continue;
        }
        if (lad->rate_err) printf("  BD-rate: none (%s)", bd_why(lad->rate_err));
        else printf("  BD-rate %+.4f%%", lad->bd_rate);
        if (lad->vmaf_err) printf("  BD-VMAF: none (%s)\n", bd_why(lad->vmaf_err));
        else printf("  BD-VMAF %+.4f\n", lad->bd_vmaf);
    }
    if (!c->n_common) {
        printf("no bitrate is reached by every ladder\n");
        return;
    }
    printf("%s at the bitrates every ladder reaches:\n  %12s", c->metric, "kbit/s");
    for (unsigned l = 0; l < c->n_lad; l++) printf("  %12.12s", c->lad[l].name);
    putchar('\n');
    for (unsigned i = 0; i < c->n_common; i++) {
        printf("  %12.3f", c->common_rate[i]);
        for (unsigned l = 0; l < c->n_lad; l++) {
            const double q = c->common_vmaf[i * c->n_lad + l];
            if (isnan(q)) printf("  %12s", "-");
            else printf("  %12.4f", q);
        }
        putchar('\n');
    }
}

static int write_file(const char *path, const Compare *c, void (*fn)(FILE *, const Compare *))
{
    OutFile o = { 0 };
    int err = report_out_open(&o, path);
    if (!err) fn(o.f, c);
    return report_out_close(&o, err);
}

static char *join_args(int argc, char *argv[])
{
    size_t len = 1;
    for (int i = 0; i < argc; i++) len += strlen(argv[i]) + 3;
    char *s = malloc(len);
    if (!s) return NULL;
    s[0] = '\0';
    for (int i = 0; i < argc; i++) {
        const bool q = strpbrk(argv[i], " \t\"'()|*?") != NULL;
        strcat(s, i ? (q ? " '" : " ") : (q ? "'" : ""));
        strcat(s, argv[i]);
        if (q) strcat(s, "'");
    }
    return s;
}

static void compare_free(Compare *c)
{
    for (unsigned i = 0; i < c->n_enc; i++) free(c->enc[i].path);
    for (unsigned l = 0; l < c->n_lad; l++) {
        free(c->lad[l].name);
        free(c->lad[l].enc);
        free(c->lad[l].rate);
        free(c->lad[l].vmaf);
    }
    free(c->enc);
    free(c->lad);
    free(c->common_vmaf);
    free((char *)c->metric);
    free(c->command);
}

int compare_main(int argc, char *argv[])
{
    Args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
    Compare c = { .ref = a.points ? NULL : a.pos[0] };
    c.command = join_args(argc, argv);
    if (cli_check_output_path(a.json) || cli_check_output_path(a.csv) ||
        cli_check_output_path(a.report)) {
        rc = CLI_EXIT_OUTPUT;
        goto done;
    }
    if (a.points) {
        c.metric = strdup("vmaf");
        rc = compare_read_points(&c, a.points);
        if (rc) goto done;
    } else {
        c.n_enc = a.n_pos - 1;
        c.enc = calloc(c.n_enc, sizeof(*c.enc));
        if (!c.enc) {
            rc = CLI_EXIT_COMPUTE;
            goto done;
        }
        for (unsigned i = 0; i < c.n_enc; i++) {
            c.enc[i].path = strdup(a.pos[i + 1]);
            if (!c.enc[i].path) {
                rc = CLI_EXIT_COMPUTE;
                goto done;
            }
            struct stat st;
            if (stat(c.enc[i].path, &st)) {
                fprintf(stderr, "exactvmaf compare: %s: %s\n", c.enc[i].path, strerror(errno));
                rc = CLI_EXIT_INPUT;
                goto done;
            }
        }
        rc = group_encodes(&c, a.group_by);
        if (rc) goto done;
        if (a.plan) {
            rc = plan_all(&c, &a, argv[0]);
            if (!rc && a.json && write_file(a.json, &c, write_plan_json)) rc = CLI_EXIT_OUTPUT;
            goto done;
        }
        cli_install_stop_handlers();
        rc = score_all(&c, &a, argv[0]);
        if (rc) goto done;
    }
    if (conclude(&c)) {
        rc = CLI_EXIT_COMPUTE;
        goto done;
    }
    print_summary(&c);
    if ((a.json && write_file(a.json, &c, write_json)) ||
        (a.csv && write_file(a.csv, &c, write_csv)) ||
        (a.report && compare_write_report(&c, a.report)))
        rc = CLI_EXIT_OUTPUT;
done:
    compare_free(&c);
    return rc;
}
