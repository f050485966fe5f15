/*
 * Failover (failover.c): under backend auto, a GPU that fails mid-run
 * hands its metrics to the CPU at a frame seam, and the run goes on with
 * the same scores (the CPU computes the same bits).
 */
#ifndef EXACTVMAF_FAILOVER_H
#define EXACTVMAF_FAILOVER_H

#include "context_internal.h"

/** Start watching the context's pipeline (backend auto); its GPU errors are held back. */
int vmaf_failover_create(VmafContext *vmaf);
/** Release the kept pictures; held errors are shown. NULL state is fine. */
void vmaf_failover_destroy(VmafContext *vmaf);
/** Keep references to the pictures of frame `index`, about to be submitted. */
int vmaf_failover_keep(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                       unsigned index);
/**
 * The pipeline failed with `err`: move its metrics to the CPU and compute
 * the frames it dropped before frame `before` (UINT_MAX: all of them).
 * 0 once the CPU has taken over, else `err` (the run ends).
 */
int vmaf_failover_run(VmafContext *vmaf, int err, unsigned before);
/** The run ends with an error, or the GPU's work is done: the held errors are shown. */
void vmaf_failover_give_up(VmafContext *vmaf);

#endif
