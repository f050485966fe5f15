/*
 * The CPU's frame scheduler (scheduler.c): the metrics the CPU computes,
 * their instances, the worker threads, the queues and frame order. Below
 * the context (libvmaf.c) and failover (failover.c), which call down into
 * it; it calls only the extractor framework, pictures and the log.
 *
 * Instances. Metric i of the context is slot i here (its ordinal: output
 * order, and the instances before it that it may share a pass with). With
 * no worker thread one set of instances, the chain, holds every metric and
 * runs on the calling thread, frame after frame. With workers, every
 * non-temporal metric has one instance per worker and a frame is computed
 * whole by one worker, so a frame's bits never depend on the thread count;
 * the temporal metrics are the chain: one instance each, whose state is
 * carried frame to frame, run as a task of its own on whichever worker is
 * free (or on the calling thread while it waits for room in the queues),
 * one frame at a time and in index order.
 *
 * Memory: each queue holds at most one frame per worker, so the pictures
 * held are bounded independently of the clip length.
 */
#ifndef EXACTVMAF_SCHEDULER_H
#define EXACTVMAF_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "fex_internal.h"
#include "feature_collector.h"
#include "libvmaf/picture.h"

typedef struct VmafScheduler VmafScheduler;

typedef struct VmafSchedConfig {
    unsigned n_threads;         /**< worker threads; 0: the calling thread computes */
    unsigned n_subsample;       /**< > 1: non-temporal metrics skip frames not a multiple */
    unsigned n_slots;           /**< metrics of the context, slots 0 .. n_slots-1 */
    enum ExactvmafDivision division;
    VmafFeatureCollector *fc;   /**< where the instances write */
    uint64_t log_id;            /**< the context's log target, bound by the workers */
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;         /**< the pictures' geometry, for the instances' init */
} VmafSchedConfig;

/** A scheduler with no metric yet and no thread. */
int vmaf_sched_create(VmafScheduler **s, const VmafSchedConfig *cfg);

/**
 * Metric `slot` is computed on the CPU (desc and opts are borrowed: they
 * outlive the scheduler). Before the first vmaf_sched_start(), or after
 * vmaf_sched_idle() for a metric that moves from the GPU mid-run (a
 * failover): it then computes frames from `from` on, also in catch-up
 * frames, and `fex`, its temporal instance taken over from the GPU, is
 * owned by the scheduler from here on, also on error (NULL: made at start).
 */
int vmaf_sched_add(VmafScheduler *s, unsigned slot, const VmafFeatureExtractor *desc,
                   const VmafDict *opts, unsigned from, VmafFex *fex);

/** Whether any metric is on the CPU (it reads the pictures' host samples). */
bool vmaf_sched_any(const VmafScheduler *s);

/**
 * The instances the added metrics lack, made and initialised; the worker
 * threads started where there are none yet (each makes its own instances,
 * the workers side by side). Again after a mid-run add.
 */
int vmaf_sched_start(VmafScheduler *s);

/**
 * Compute frame `index` on the CPU (on the calling thread, or queued for
 * the workers: waits while the queues are full). The pictures are taken
 * over (released here, also on error). The workers' first error, sticky.
 */
int vmaf_sched_frame(VmafScheduler *s, VmafPicture *ref, VmafPicture *dist, unsigned index);

/**
 * As vmaf_sched_frame(), for the metrics added mid-run alone (a frame the
 * GPU dropped), on references of its own to the pictures.
 */
int vmaf_sched_catch_up(VmafScheduler *s, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index);

/** Wait until every queued frame is computed; the workers' first error. */
int vmaf_sched_idle(VmafScheduler *s);

/**
 * The end of the run: as vmaf_sched_idle(), then the worker threads end
 * and their instances go, and the temporal instances are flushed (they
 * write what they held back); they stay (vmaf_sched_temporal). The first
 * error. NULL is fine.
 */
int vmaf_sched_finish(VmafScheduler *s);

/** Metric `slot`'s temporal instance on the CPU (flush, frames written), or NULL. */
VmafFex *vmaf_sched_temporal(VmafScheduler *s, unsigned slot);

/**
 * *lowest: the lowest frame index queued or being computed (UINT_MAX:
 * none); frames are queued in index order. The workers' first error.
 */
int vmaf_sched_pending(VmafScheduler *s, unsigned *lowest);

/** Threads stopped, queued pictures released, every instance destroyed. NULL is fine. */
void vmaf_sched_destroy(VmafScheduler *s);

#endif
