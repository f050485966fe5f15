/*
 * exactvmaf_frames_concluded(): the leading frames whose every output is
 * written, from what schedules them: the CPU scheduler's queued frames and
 * frames in hand, and each temporal or GPU instance's written count (a temporal
 * extractor holds back what later frames decide; the GPU pipeline
 * concludes frames in order on its completion thread).
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>

#include "context_internal.h"
#include "export.h"
#include "fex_internal.h"
#include "log.h"
#include "scheduler.h"

static unsigned min_u(unsigned a, unsigned b)
{
    return a < b ? a : b;
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
        const VmafFex *fex = r->gpu ? vmaf->gpu_inst[i] : vmaf_sched_temporal(vmaf->cpu, i);
        if (fex) bound = min_u(bound, atomic_load(&fex->written));
    }
    unsigned lowest;
    const int err = vmaf_sched_pending(vmaf->cpu, &lowest);
    if (err) return err;
    bound = min_u(bound, lowest);
    *n = bound;
    return 0;
}
