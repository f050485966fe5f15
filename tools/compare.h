/*
 * `exactvmaf compare`: encodes of one source scored against it, grouped
 * into ladders, their rate-quality curves and Bjøntegaard deltas against
 * the first ladder (compare.c), written as text, JSON, CSV and an HTML page
 * (compare_report.c).
 */
#ifndef EXACTVMAF_TOOLS_COMPARE_H
#define EXACTVMAF_TOOLS_COMPARE_H

#include "compare_points.h"

/** The HTML page (inline SVG, self-contained). @return 0 or a negative errno (printed). */
int compare_write_report(const Compare *c, const char *path);

#endif
