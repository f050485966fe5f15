/*
 * Bjøntegaard deltas between two rate-quality curves: BD-rate (the average
 * bitrate difference at equal quality) and BD-quality (the average quality
 * difference at equal bitrate), with the piecewise cubic Hermite
 * interpolation (PCHIP) of the JCT-VC/JVET common test conditions' sheet and
 * of AOM's CTC (see bdrate.c for the formula and its sources).
 */
#ifndef EXACTVMAF_TOOLS_BDRATE_H
#define EXACTVMAF_TOOLS_BDRATE_H

#include <stddef.h>

/** One curve: n points (bitrate > 0, quality), in any order. */
typedef struct BdCurve {
    const double *rate;
    const double *quality;
    size_t n;
} BdCurve;

/** Why a delta cannot be computed (bd_why()). */
enum BdError {
    BD_OK = 0,
    BD_TOO_FEW = 1,         /**< a curve has fewer than 2 points */
    BD_BAD_RATE = 2,        /**< a bitrate is not a finite number > 0 */
    BD_BAD_QUALITY = 3,     /**< a quality is not a finite number */
    BD_NOT_MONOTONIC = 4,   /**< quality does not rise strictly with the bitrate */
    BD_NO_OVERLAP = 5,      /**< the curves share no quality (or bitrate) interval */
    BD_NO_MEMORY = 6,
};

/** A sentence for an error, e.g. "the ladders' VMAF ranges do not overlap". */
const char *bd_why(enum BdError e);

/**
 * BD-rate of `test` against `anchor` in percent (negative: test needs less
 * bitrate for the same quality), over the quality interval both cover.
 * @return BD_OK with *percent set, or why not.
 */
enum BdError bd_rate(const BdCurve *anchor, const BdCurve *test, double *percent);

/**
 * BD-quality (BD-PSNR, BD-VMAF) of `test` against `anchor`: the mean
 * quality difference over the log-bitrate interval both cover.
 */
enum BdError bd_quality(const BdCurve *anchor, const BdCurve *test, double *delta);

/**
 * The curve's quality at `rate`, interpolated as bd_quality() does (PCHIP of
 * quality over log10 rate). @return BD_OK, or BD_NO_OVERLAP when rate is
 * outside the curve's bitrates.
 */
enum BdError bd_quality_at(const BdCurve *c, double rate, double *quality);

#endif
