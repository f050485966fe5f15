/*
 * exactvmaf_frames_concluded(): the leading frames whose every output is
 * written, from what schedules them: the worker threads' queue and frames
 * in hand, and each temporal or GPU instance's written count (a temporal
 * extractor holds back what later frames decide; the GPU pipeline
 * concludes frames in order on its completion thread).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#include "context_internal.h"
#include "export.h"
#include "fex_internal.h"
#include "log.h"

static unsigned min_u(unsigned a, unsigned b)
{
    return a < b ? a : b;
}

/* The lowest frame index the workers have not finished (UINT_MAX: none
 * pending); jobs are queued in index order, so the queue's head is its
 * lowest. */
static int workers_pending(VmafContext *vmaf, unsigned *lowest)
{
    unsigned lo = UINT_MAX;
    pthread_mutex_lock(&vmaf->lock);
    if (vmaf->q_len) lo = vmaf->queue[vmaf->q_head].index;
    for (unsigned i = 0; i < vmaf->n_workers; i++)
        if (vmaf->worker[i].working) lo = min_u(lo, vmaf->worker[i].index);
    const int err = vmaf->worker_err;
    pthread_mutex_unlock(&vmaf->lock);
    *lowest = lo;
    return err;
}

VMAF_EXPORT int exactvmaf_frames_concluded(VmafContext *vmaf, unsigned *n)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !n) return -EINVAL;
    *n = 0;
    if (!vmaf->started || vmaf->start_err || vmaf->last_index < 0) return 0;
    /* Every frame read is below this; the flush wrote what was held back. */
    unsigned bound = (unsigned)(vmaf->last_index + 1);
    if (vmaf->flushed) {
        *n = bound;
        return 0;
    }
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        const Registration *r = &vmaf->reg[i];
        /* CPU instances of non-temporal metrics compute a frame before its
         * vmaf_read_pictures() returns, or on the workers (below). */
        const VmafFex *fex = r->gpu ? vmaf->gpu_inst[i]
                           : r->on_caller && vmaf->inst ? vmaf->inst[i] : NULL;
        if (fex) bound = min_u(bound, atomic_load(&fex->written));
    }
    if (vmaf->worker) {
        unsigned lowest;
        const int err = workers_pending(vmaf, &lowest);
        if (err) return err;
        bound = min_u(bound, lowest);
    }
    *n = bound;
    return 0;
}
