/*
 * The CLI's reports: an HTML page to read (--report) and the models'
 * per-frame curve as an SVG file (--plot). Both are self-contained (inline
 * SVG and CSS, no script, no network) and written whole or not at all.
 * Every value comes from the library's public API, so the page shows what
 * the output files hold.
 */
#ifndef EXACTVMAF_TOOLS_REPORT_H
#define EXACTVMAF_TOOLS_REPORT_H

#include <stdio.h>

#include "frame_pictures.h"
#include "libvmaf/libvmaf.h"

/** A file written whole or not at all: a temporary file renamed at the end. */
typedef struct OutFile {
    FILE *f;
    char *tmp;
    const char *path;
} OutFile;

/** Start writing path (errors printed). @return 0 or a negative errno. */
int report_out_open(OutFile *o, const char *path);

/** Finish: rename into place when err is 0 and every write succeeded, else
 *  remove the temporary file (errors printed). @return the error. */
int report_out_close(OutFile *o, int err);

/** Write s escaped for HTML text and attributes. */
void report_esc(FILE *f, const char *s);

/** The rows both HTML pages end their run table with: version, date, the command line. */
void report_run_rows(FILE *f, const char *command);

/** Write s as a JSON string, quotes included. */
void report_json_str(FILE *f, const char *s);

/** Write s as one CSV field: as it is, or quoted ("" for ") where it holds , " or a line end. */
void report_csv_str(FILE *f, const char *s);

typedef struct CliReport {
    const char *ref_path, *dist_path;
    const char *ref_desc, *dist_desc;   /**< "1920x1080 4:2:0 8-bit, h264 yuv420p, 25 fps" */
    unsigned n_frames;                  /**< frames 0 .. n_frames-1 were scored */
    const double *seconds;              /**< presentation time per frame, or NULL */
    const char *const *models;          /**< the models' output names ("vmaf") */
    unsigned n_models;
    const char *command;                /**< the command line */
    const char *incomplete;             /**< why the run stopped early, or NULL */
    const FramePictures *pictures;      /**< frames shown in pictures */
    unsigned n_pictures;
    const char *pictures_note;          /**< why there are none or fewer, or NULL */
} CliReport;

/** Pictures for this many of the worst frames (the table lists more). */
#define REPORT_WORST_PICTURES 5

/**
 * The scored frames with the lowest `model` scores, lowest first (ties by
 * frame number), at most max of them into out. @return how many.
 */
unsigned report_worst_frames(VmafContext *vmaf, const char *model, unsigned n_frames,
                             unsigned *out, unsigned max);

/** Write the HTML report at path. Errors are printed. @return 0 or negative errno. */
int cli_write_report(VmafContext *vmaf, const char *path, const CliReport *r);

/** Write the models' per-frame scores as an SVG chart at path. @return 0 or negative errno. */
int cli_write_plot(VmafContext *vmaf, const char *path, const CliReport *r);

/** The CSS both HTML pages (the report, the comparison) start their style with. */
extern const char report_css_base[];

#endif
