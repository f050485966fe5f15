/*
 * Failover: under backend auto, when the GPU pipeline fails mid-run (an
 * allocation, a launch, a copy, a synchronisation, a lost device), its
 * metrics continue on the CPU from the first frame it did not conclude,
 * and the result equals an all-CPU run bit for bit.
 *
 * The pipeline concludes frames in order and drops every frame from the
 * failing one on (pipeline.h), so the frames before F are the GPU's and
 * the frames from F on are the CPU's. To compute them, the context keeps
 * references to the pictures of the frames submitted and not yet
 * concluded, plus the last `history` concluded ones that a temporal metric
 * reads (the pipeline holds the former anyway; the latter are at most two
 * pictures more, and none without a temporal twin, so a caller's pool of
 * fixed size is not drained). Device pictures are downloaded at the
 * failover; where that is impossible, so is the failover.
 *
 * At the seam the moved metrics join the CPU's scheduler (scheduler.h): a
 * non-temporal one gets new CPU instances, placed as at the start; a
 * temporal one keeps its instance, whose twin hands what it accumulated to
 * the CPU path and whose CPU path is primed with the pictures before F
 * (vmaf_fex_take_over). The frames F.. before the current one are then
 * computed for the moved metrics alone, in order (catch-up frames); the
 * run goes on on the CPU. The GPU's errors are held back while this is
 * possible (log.h) and become one warning when it happens.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "device_record.h"
#include "failover.h"
#include "fex_internal.h"
#include "log.h"
#include "picture_internal.h"
#include "scheduler.h"

typedef struct Kept {
    unsigned seq, index;
    VmafPicture ref, dist;
} Kept;

typedef struct Moved {
    unsigned reg;
    unsigned frame;
} Moved;

typedef struct VmafFailover {
    Kept *kept;
    unsigned n_kept, cap_kept, n_seq;
    bool holding;       /* the context's errors are held back */
    Moved *moved;
    unsigned n_moved;
    char why[512];
} VmafFailover;

int vmaf_failover_create(VmafContext *vmaf)
{
    VmafFailover *fo = calloc(1, sizeof(*fo));
    if (!fo) return -ENOMEM;
    vmaf->failover = fo;
    vmaf_log_hold(vmaf->log_id);
    fo->holding = true;
    return 0;
}

static void unkeep(Kept *k)
{
    if (k->ref.ref) vmaf_picture_unref(&k->ref);
    if (k->dist.ref) vmaf_picture_unref(&k->dist);
}

static void release_kept(VmafFailover *fo)
{
    for (unsigned i = 0; i < fo->n_kept; i++) unkeep(&fo->kept[i]);
    free(fo->kept);
    fo->kept = NULL;
    fo->n_kept = fo->cap_kept = 0;
}

void vmaf_failover_give_up(VmafContext *vmaf)
{
    VmafFailover *fo = vmaf->failover;
    if (!fo || !fo->holding) return;
    vmaf_log_release(vmaf->log_id, true, NULL, 0);
    fo->holding = false;
}

void vmaf_failover_destroy(VmafContext *vmaf)
{
    VmafFailover *fo = vmaf->failover;
    if (!fo) return;
    vmaf_failover_give_up(vmaf);
    release_kept(fo);
    free(fo->moved);
    free(fo);
    vmaf->failover = NULL;
}

int vmaf_failover_keep(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                       unsigned index)
{
    VmafFailover *fo = vmaf->failover;
    /* What the pipeline concluded, but the history, is the GPU's for good. */
    const unsigned done = vmaf_gpu_concluded(vmaf->gpu);
    const unsigned history = vmaf_gpu_history(vmaf->gpu);
    unsigned drop = 0;
    while (drop < fo->n_kept && fo->kept[drop].seq + history < done) unkeep(&fo->kept[drop++]);
    fo->n_kept -= drop;
    memmove(fo->kept, fo->kept + drop, fo->n_kept * sizeof(*fo->kept));
    if (fo->n_kept == fo->cap_kept) {
        const unsigned cap = fo->cap_kept ? 2 * fo->cap_kept : 16;
        Kept *k = realloc(fo->kept, cap * sizeof(*k));
        if (!k) return -ENOMEM;
        fo->kept = k;
        fo->cap_kept = cap;
    }
    Kept *k = &fo->kept[fo->n_kept];
    *k = (Kept){ .seq = fo->n_seq, .index = index };
    int err = vmaf_picture_ref(&k->ref, ref);
    if (!err) err = vmaf_picture_ref(&k->dist, dist);
    if (err) {
        unkeep(k);
        return err;
    }
    fo->n_kept++;
    fo->n_seq++;
    return 0;
}

/* Host copies of the kept pictures from `first` on (device pictures downloaded). */
static int kept_to_host(VmafFailover *fo, unsigned first)
{
    for (unsigned i = first; i < fo->n_kept; i++) {
        int err = vmaf_picture_to_host(&fo->kept[i].ref);
        if (!err) err = vmaf_picture_to_host(&fo->kept[i].dist);
        if (err) return err;
    }
    return 0;
}

int vmaf_failover_run(VmafContext *vmaf, int err, unsigned before)
{
    VmafFailover *fo = vmaf->failover;
    if (!fo || !vmaf->gpu || !vmaf->cpu) return err;
    unsigned from_seq = 0;
    vmaf_gpu_dropped_from(vmaf->gpu, &from_seq);
    unsigned first = 0;
    while (first < fo->n_kept && fo->kept[first].seq < from_seq) first++;
    const unsigned history = vmaf_gpu_history(vmaf->gpu);
    const unsigned n_hist = first < history ? first : history;
    const unsigned from = first < fo->n_kept ? fo->kept[first].index : before;
    /* The failing frame itself may be concluded by the twins before the one
     * whose conclusion failed: each metric goes on after its own last frame. */
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        const VmafFex *fex = vmaf->reg[i].gpu ? vmaf->gpu_inst[i] : NULL;
        if (fex) vmaf->reg[i].cpu_from = fex->twin_next > from ? fex->twin_next : from;
    }

    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        const VmafFex *fex = vmaf->reg[i].gpu ? vmaf->gpu_inst[i] : NULL;
        if (fex && !vmaf_fex_can_take_over(fex)) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s cannot continue on the CPU mid-run",
                     vmaf->reg[i].desc->name);
            return err;
        }
    }
    /* Before anything changes: the pictures the CPU reads, on the host. */
    if (kept_to_host(fo, first - n_hist)) return err;
    /* The history is the kept frames before a metric's seam (the failing
     * frame's, or the next one's where its twin concluded it). */
    const unsigned hist_end = first < fo->n_kept ? first + 1 : first;
    const int werr = vmaf_sched_idle(vmaf->cpu);
    if (werr) return werr;

    /* The twins' instances go on; the pipeline goes. */
    const char *backend = vmaf_gpu_backend(vmaf->gpu);
    VmafFex **twins = vmaf->gpu_inst;
    vmaf->gpu_inst = NULL;
    vmaf_gpu_destroy(vmaf->gpu);
    vmaf->gpu = NULL;
    char names[256] = "";
    /* The GPU's errors, its teardown's included, become the one warning below. */
    char first_error[400];
    vmaf_log_release(vmaf->log_id, false, first_error, sizeof(first_error));
    fo->holding = false;
    snprintf(fo->why, sizeof(fo->why), "%s", first_error[0] ? first_error : strerror(-err));

    fo->moved = calloc(vmaf->n_reg ? vmaf->n_reg : 1, sizeof(*fo->moved));
    if (!fo->moved) err = -ENOMEM;
    int terr = fo->moved ? 0 : err;
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        Registration *r = &vmaf->reg[i];
        if (!r->gpu) continue;
        VmafFex *fex = twins[i];
        r->gpu = false;
        r->moved = true;
        const bool temporal = r->desc->flags & VMAF_FEX_TEMPORAL;
        if (temporal && !terr) {
            VmafPicture href[VMAF_GPU_MAX_HISTORY], hdist[VMAF_GPU_MAX_HISTORY];
            unsigned hindex[VMAF_GPU_MAX_HISTORY], n = 0, k = hist_end;
            while (k > 0 && fo->kept[k - 1].index >= r->cpu_from) k--;
            for (unsigned j = k - (k < history ? k : history); j < k; j++, n++) {
                href[n] = fo->kept[j].ref;
                hdist[n] = fo->kept[j].dist;
                hindex[n] = fo->kept[j].index;
            }
            terr = vmaf_fex_take_over(fex, href, hdist, hindex, n);
        }
        /* A temporal instance goes on in the scheduler's chain; the others
         * are made anew there (vmaf_sched_start below). */
        VmafFex *keep = temporal && !terr ? fex : NULL;
        if (!keep) vmaf_fex_destroy(fex);
        if (!terr) terr = vmaf_sched_add(vmaf->cpu, i, r->desc, r->opts, r->cpu_from, keep);
        if (fo->moved) fo->moved[fo->n_moved++] = (Moved){ .reg = i, .frame = r->cpu_from };
        if (!terr)
            terr = vmaf_device_records_add_takeover(&vmaf->devices, r->desc->name, r->cpu_from,
                                                    fo->why);
        const size_t len = strlen(names);
        snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "", r->desc->name);
    }
    free(twins);
    if (!terr) terr = vmaf_sched_start(vmaf->cpu);
    if (terr) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "the GPU failed (%s) and its metrics cannot continue "
                 "on the CPU (%s)", fo->why, strerror(-terr));
        /* The pipeline and its sticky error are gone: the run's stays. */
        vmaf->start_err = terr;
        return terr;
    }
    if (from == UINT_MAX)
        vmaf_log(VMAF_LOG_LEVEL_WARNING, "backend auto: %s failed after the last frame (%s); "
                 "the CPU concludes %s", backend, fo->why, names);
    else
        vmaf_log(VMAF_LOG_LEVEL_WARNING, "backend auto: %s failed (%s); the CPU computes %s "
                 "from frame %u on", backend, fo->why, names, from);

    /* The frames the GPU dropped, before the current one, in order. */
    for (unsigned i = first; i < fo->n_kept && !terr; i++) {
        Kept *k = &fo->kept[i];
        if (k->index >= before) break;
        terr = vmaf_sched_catch_up(vmaf->cpu, &k->ref, &k->dist, k->index);
    }
    release_kept(fo);
    if (terr) vmaf->start_err = terr;
    return terr;
}

int vmaf_ctx_failover_at(VmafContext *vmaf, unsigned i, const char **extractor,
                         unsigned *frame, const char **why)
{
    const VmafFailover *fo = vmaf->failover;
    if (!fo || i >= fo->n_moved) return -ENOENT;
    if (extractor) *extractor = vmaf->reg[fo->moved[i].reg].desc->name;
    if (frame) *frame = fo->moved[i].frame;
    if (why) *why = fo->why;
    return 0;
}
