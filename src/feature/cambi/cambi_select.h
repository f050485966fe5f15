/*
 * The stopper scans of cambi_select_top()'s partition passes (cambi_host.c),
 * per instruction set. A scan is lane-parallel: each position's test is
 * independent of the others, and the positions that pass are written in
 * scan order, so every build yields the same list.
 */
#ifndef EXACTVMAF_CAMBI_SELECT_H
#define EXACTVMAF_CAMBI_SELECT_H

#include "simd.h"

/* Entries a scan may write past its last stopper: buf holds
 * to - from + 1 + CAMBI_STOPPER_SLACK entries. */
#define CAMBI_STOPPER_SLACK 16

/**
 * A stopper scan, with the signature of both directions. Left stoppers: the
 * positions x = from, from + 1, ..., to with a[x] <= pivot, ascending, into
 * buf. Right stoppers: x = from, from - 1, ..., to (to <= from) with
 * a[x] >= pivot, descending. Returns their count. A NaN is no stopper (the
 * comparison is false).
 */
typedef int (*CambiStopperScan)(const float *a, int from, int to, float pivot, int *buf);

/** Both directions' scans, each instruction set's build (cambi_select_simd_tmpl.c). */
typedef struct CambiStopperScans {
    CambiStopperScan left, right;
} CambiStopperScans;
EV_SIMD_DECLARE(CambiStopperScans, cambi_stoppers);

#endif
