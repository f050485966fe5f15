/*
 * The CSV files compare reads instead of scoring: --points (ladder, bitrate
 * and score given: the BD arithmetic alone) and --scores (each encode's
 * scores computed elsewhere, a Dask cluster say; its ladder and bitrate are
 * still read here, as a scoring run reads them).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare_points.h"

int compare_add_ladder(Compare *c, const char *name, size_t len, unsigned *index)
{
    for (unsigned l = 0; l < c->n_lad; l++) {
        if (strlen(c->lad[l].name) == len && !strncmp(c->lad[l].name, name, len)) {
            *index = l;
            return 0;
        }
    }
    CmpLadder *lad = realloc(c->lad, (c->n_lad + 1) * sizeof(*lad));
    if (!lad) return -ENOMEM;
    c->lad = lad;
    memset(&lad[c->n_lad], 0, sizeof(*lad));
    lad[c->n_lad].name = malloc(len + 1);
    if (!lad[c->n_lad].name) return -ENOMEM;
    memcpy(lad[c->n_lad].name, name, len);
    lad[c->n_lad].name[len] = '\0';
    *index = c->n_lad++;
    return 0;
}

/* Split one CSV line in place (double quotes, "" inside them). */
static unsigned csv_split(char *line, char **field, unsigned max)
{
    unsigned n = 0;
    char *p = line;
    for (;;) {
        if (n == max) return n;
        char *out = p;
        field[n++] = p;
        if (*p == '"') {
            p++;
            while (*p) {
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            while (*p && *p != ',') p++;
        } else {
            while (*p && *p != ',') *out++ = *p++;
        }
        const char sep = *p;
        *out = '\0';
        if (sep != ',') return n;
        p++;
    }
}

static int number(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return *s && !*end && isfinite(*v) ? 0 : -1;
}

int compare_read_points(Compare *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "exactvmaf compare: cannot read %s: %s\n", path, strerror(errno));
        return CLI_EXIT_INPUT;
    }
    char line[8192];
    char *field[64];
    int col_ladder = -1, col_file = -1, col_rate = -1, col_vmaf = -1, col_frames = -1;
    unsigned line_no = 0;
    int rc = 0;
    c->grouping = "the points' ladder column";
    while (!rc && fgets(line, sizeof(line), f)) {
        line_no++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#') continue;
        const unsigned n = csv_split(line, field, 64);
        if (col_rate < 0 && col_ladder < 0) {
            for (unsigned k = 0; k < n; k++) {
                if (!strcmp(field[k], "ladder")) col_ladder = (int)k;
                else if (!strcmp(field[k], "file")) col_file = (int)k;
                else if (!strcmp(field[k], "bitrate_kbps")) col_rate = (int)k;
                else if (!strcmp(field[k], "vmaf")) col_vmaf = (int)k;
                else if (!strcmp(field[k], "frames")) col_frames = (int)k;
            }
            if (col_ladder < 0 || col_rate < 0 || col_vmaf < 0) {
                fprintf(stderr, "exactvmaf compare: %s: the first line must name the columns "
                        "ladder, bitrate_kbps and vmaf\n", path);
                rc = CLI_EXIT_INPUT;
            }
            continue;
        }
        const int need = col_ladder > col_rate ? col_ladder : col_rate;
        CmpEncode e = { .rate_source = "given", .vmaf_hmean = NAN };
        double frames = 0;
        if ((unsigned)(need > col_vmaf ? need : col_vmaf) >= n || !field[col_ladder][0] ||
            number(field[col_rate], &e.kbps) || !(e.kbps > 0) ||
            number(field[col_vmaf], &e.vmaf) ||
            (col_frames >= 0 && (unsigned)col_frames < n && field[col_frames][0] &&
             (number(field[col_frames], &frames) || frames < 0 || frames > 4e9))) {
            fprintf(stderr, "exactvmaf compare: %s line %u: expected a ladder, a bitrate above "
                    "0 and a score\n", path, line_no);
            rc = CLI_EXIT_INPUT;
            break;
        }
        e.frames = (unsigned)frames;
        char label[32];
        snprintf(label, sizeof(label), "line %u", line_no);
        e.path = strdup(col_file >= 0 && (unsigned)col_file < n && field[col_file][0] ?
                        field[col_file] : label);
        CmpEncode *grown = realloc(c->enc, (c->n_enc + 1) * sizeof(*grown));
        if (!e.path || !grown ||
            compare_add_ladder(c, field[col_ladder], strlen(field[col_ladder]), &e.ladder)) {
            free(e.path);
            if (grown) c->enc = grown;
            rc = CLI_EXIT_COMPUTE;
            break;
        }
        c->enc = grown;
        c->enc[c->n_enc++] = e;
    }
    if (!rc && ferror(f)) rc = CLI_EXIT_INPUT;
    fclose(f);
    if (!rc && !c->n_enc) {
        fprintf(stderr, "exactvmaf compare: %s holds no points\n", path);
        rc = CLI_EXIT_INPUT;
    }
    return rc;
}

/* The columns of the first line; -1 for each one absent. */
static void csv_columns(char **field, unsigned n, const char *const *name, int *col,
                        unsigned n_col)
{
    for (unsigned k = 0; k < n_col; k++) col[k] = -1;
    for (unsigned i = 0; i < n; i++)
        for (unsigned k = 0; k < n_col; k++)
            if (!strcmp(field[i], name[k])) col[k] = (int)i;
}

static const char *cell(char **field, unsigned n, int col)
{
    return col >= 0 && (unsigned)col < n ? field[col] : "";
}

int compare_read_scores(Compare *c, const char *path)
{
    enum { FILE_, VMAF, HMEAN, FRAMES, N_COL };
    static const char *const names[N_COL] = { "file", "vmaf", "vmaf_harmonic_mean", "frames" };
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "exactvmaf compare: cannot read %s: %s\n", path, strerror(errno));
        return CLI_EXIT_INPUT;
    }
    bool *have = calloc(c->n_enc + 1, sizeof(*have));
    if (!have) {
        fclose(f);
        return CLI_EXIT_COMPUTE;
    }
    char line[8192];
    char *field[64];
    int col[N_COL] = { -1, -1, -1, -1 };
    bool header = false;
    unsigned line_no = 0;
    int rc = 0;
    while (!rc && fgets(line, sizeof(line), f)) {
        line_no++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#') continue;
        const unsigned n = csv_split(line, field, 64);
        if (!header) {
            header = true;
            csv_columns(field, n, names, col, N_COL);
            if (col[FILE_] < 0 || col[VMAF] < 0) {
                fprintf(stderr, "exactvmaf compare: %s: the first line must name the columns "
                        "file and vmaf\n", path);
                rc = CLI_EXIT_INPUT;
            }
            continue;
        }
        const char *file = cell(field, n, col[FILE_]);
        unsigned i = 0;
        while (i < c->n_enc && strcmp(c->enc[i].path, file)) i++;
        if (i == c->n_enc) continue;        /* another comparison's encode */
        if (have[i]) {
            fprintf(stderr, "exactvmaf compare: %s line %u: a second row for %s\n", path,
                    line_no, file);
            rc = CLI_EXIT_INPUT;
            break;
        }
        CmpEncode *e = &c->enc[i];
        const char *hmean = cell(field, n, col[HMEAN]), *frames = cell(field, n, col[FRAMES]);
        double count = 0;
        e->vmaf_hmean = NAN;
        if (number(cell(field, n, col[VMAF]), &e->vmaf) ||
            (hmean[0] && number(hmean, &e->vmaf_hmean)) ||
            (frames[0] && (number(frames, &count) || count < 0 || count > 4e9 ||
                           count != floor(count)))) {
            fprintf(stderr, "exactvmaf compare: %s line %u: expected a score, and a harmonic "
                    "mean and a frame count where given\n", path, line_no);
            rc = CLI_EXIT_INPUT;
            break;
        }
        e->frames = (unsigned)count;
        have[i] = true;
    }
    if (!rc && ferror(f)) rc = CLI_EXIT_INPUT;
    fclose(f);
    for (unsigned i = 0; !rc && i < c->n_enc; i++) {
        if (!have[i]) {
            fprintf(stderr, "exactvmaf compare: %s has no row for %s (its file column holds "
                    "the encode's name as given here)\n", path, c->enc[i].path);
            rc = CLI_EXIT_INPUT;
        }
    }
    free(have);
    return rc;
}
