/*
 * What `exactvmaf compare` works on: the encodes, grouped into ladders, and
 * each ladder's curve and deltas, filled by a scoring run (compare.c) or
 * from CSV files (compare_points.c: --points, --scores).
 */
#ifndef EXACTVMAF_TOOLS_COMPARE_POINTS_H
#define EXACTVMAF_TOOLS_COMPARE_POINTS_H

#include "bdrate.h"

typedef struct CmpEncode {
    char *path;
    unsigned ladder;
    double kbps;                /**< kbit/s (1000 bits) */
    const char *rate_source;    /**< "container", "size/duration", "size/frames" or "given" */
    double vmaf, vmaf_hmean;    /**< pooled mean and harmonic mean; hmean NAN when not given */
    unsigned frames;            /**< 0: not known */
} CmpEncode;

typedef struct CmpLadder {
    char *name;
    unsigned n;                 /**< encodes */
    unsigned *enc;              /**< their indices, by rising bitrate */
    double *rate, *vmaf;        /**< the curve, in that order */
    /** Against the anchor (ladder 0); BD_OK when set. */
    enum BdError rate_err, vmaf_err;
    double bd_rate, bd_vmaf;
} CmpLadder;

#define CMP_COMMON_RATES 5

typedef struct Compare {
    const char *ref;            /**< NULL with --points */
    const char *metric;         /**< the score's name ("vmaf") */
    const char *grouping;       /**< how the ladders were formed, in words */
    CmpEncode *enc;
    unsigned n_enc;
    CmpLadder *lad;
    unsigned n_lad;
    /** Bitrates every ladder covers (log-spaced), and each ladder's score
     *  there: common_vmaf[i * n_lad + l], NAN where it has none. */
    unsigned n_common;
    double common_rate[CMP_COMMON_RATES];
    double *common_vmaf;
    char *command;
} Compare;

/** The ladder named name[0..len), added at the end when new. @return 0 or -ENOMEM. */
int compare_add_ladder(Compare *c, const char *name, size_t len, unsigned *index);

/** --points: c's encodes and ladders from the CSV file's rows (compare_points.c).
 *  @return 0 or the exit status (printed). */
int compare_read_points(Compare *c, const char *path);

/** --scores: each encode's vmaf, harmonic mean and frame count from the CSV
 *  row whose file is its path; every encode needs one. @return 0 or the exit status (printed). */
int compare_read_scores(Compare *c, const char *path);

#endif
