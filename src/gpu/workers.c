/*
 * The pipeline's threads. The completion thread concludes frame after
 * frame in submission order, once its lane is done on the device; the
 * prepare workers (when a twin has a prepare) wait for frames' lanes and
 * run their prepares, frames in parallel, before the completion thread
 * reaches them.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "gpu/fault.h"
#include "gpu/planes.h"
#include "gpu/workers.h"
#include "log.h"

/* ---- The pipeline's error ---- */

void gpu_set_error(VmafGpu *gpu, int err, unsigned seq)
{
    pthread_mutex_lock(&gpu->lock);
    if (!gpu->err || seq < gpu->err_seq) {
        if (!gpu->err) gpu->err = err;
        gpu->err_seq = seq;
    }
    pthread_cond_broadcast(&gpu->cond_free);
    pthread_mutex_unlock(&gpu->lock);
}

/* ---- Waiting for a frame, concluding it ---- */

static double elapsed_ms(const VmafGpuLane *l, VmafGpuEvent *a, VmafGpuEvent *b)
{
    const double ms = l->ops->elapsed_ms(a, b);
    return ms > 0 ? ms : 0.0;
}

static void prof_collect(VmafGpu *gpu, VmafGpuLane *l)
{
    gpu->prof_upload_ms += elapsed_ms(l, l->prof[PROF_START], l->prof[PROF_UPLOADED]);
    unsigned prev = PROF_UPLOADED;
    for (unsigned t = 0; t < gpu->n_twin; t++) {
        gpu->twin[t].ms += elapsed_ms(l, l->prof[prev], l->prof[PROF_TWIN0 + t]);
        prev = PROF_TWIN0 + t;
    }
    gpu->prof_frames++;
    clock_gettime(CLOCK_MONOTONIC, &gpu->t_last);
}

/* Wait until the lane's frame is done on the device, unless a prepare
 * worker already did (its result then); with `profile`, take its times. */
static int wait_frame(VmafGpu *gpu, VmafGpuLane *l, bool profile)
{
    int err = l->ops->enter(l->st);
    if (err) return l->waited ? l->wait_err : err;
    err = l->waited ? l->wait_err : l->ops->sync(l->done);
    if (!err && profile) prof_collect(gpu, l);
    l->ops->leave(l->st);
    return err;
}

static void conclude_frame(VmafGpu *gpu, VmafGpuLane *l)
{
    int err = wait_frame(gpu, l, gpu->prof);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: frame %u failed on %s", gpu_backend_name(gpu),
                 l->fr.index, l->ops->device_name(l->st));
        gpu_set_error(gpu, err, l->fr.seq);
    }
    pthread_mutex_lock(&gpu->lock);
    const bool keep = !l->failed && (!gpu->err || l->fr.seq < gpu->err_seq);
    pthread_mutex_unlock(&gpu->lock);
    for (unsigned t = 0; keep && t < gpu->n_twin; t++) {
        const TwinReg *tr = &gpu->twin[t];
        if (!l->all && !gpu_every_frame(tr)) continue;
        const double t0 = gpu->prof ? gpu_now_ms() : 0.0;
        err = gpu->cfg.conclude(tr->fex, &l->fr, l->lp[t]);
        if (gpu->prof) gpu->twin[t].conclude_ms += gpu_now_ms() - t0;
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s (%s) failed on frame %u (%s)",
                     tr->fex->desc->name, gpu_backend_name(gpu), l->fr.index, strerror(-err));
            gpu_set_error(gpu, err, l->fr.seq);
            break;
        }
    }
}

/* A worker: frame after frame (the next not yet claimed), wait for its
 * lane and run the twins' prepare; the completion thread concludes it once
 * it is prepared. */
void *gpu_worker_main(void *arg)
{
    VmafGpu *gpu = arg;
    vmaf_log_bind(gpu->cfg.log_id);
    pthread_mutex_lock(&gpu->lock);
    for (;;) {
        while (gpu->n_claimed == gpu->n_submitted && !gpu->stop)
            pthread_cond_wait(&gpu->cond_work, &gpu->lock);
        if (gpu->n_claimed == gpu->n_submitted) break;
        VmafGpuLane *l = gpu->order[gpu->n_claimed++ % gpu->n_lanes];
        const bool keep = !l->failed && (!gpu->err || l->fr.seq < gpu->err_seq);
        pthread_mutex_unlock(&gpu->lock);

        /* A failed wait skips the prepares; conclude_frame reports it and
         * concludes nothing of the frame. */
        const int wait_err = keep ? wait_frame(gpu, l, false) : 0;
        int err = wait_err;
        double prep_ms[MAX_TWINS] = { 0 };
        for (unsigned t = 0; keep && !err && t < gpu->n_twin; t++) {
            const TwinReg *tr = &gpu->twin[t];
            /* A follower concludes from its leader's lane state: nothing to prepare. */
            if (!tr->fex->twin->prepare || tr->leader || (!l->all && !gpu_every_frame(tr)))
                continue;
            const double t0 = gpu->prof ? gpu_now_ms() : 0.0;
            err = tr->fex->twin->prepare(tr->fex, &l->fr, l->lp[t]);
            if (gpu->prof) prep_ms[t] = gpu_now_ms() - t0;
            if (err) {
                vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s (%s) failed on frame %u (%s)",
                         tr->fex->desc->name, gpu_backend_name(gpu), l->fr.index,
                         strerror(-err));
                gpu_set_error(gpu, err, l->fr.seq);
            }
        }

        pthread_mutex_lock(&gpu->lock);
        for (unsigned t = 0; gpu->prof && t < gpu->n_twin; t++) gpu->twin[t].prepare_ms += prep_ms[t];
        l->waited = keep;
        l->wait_err = wait_err;
        l->prepared = true;
        pthread_cond_broadcast(&gpu->cond_prepared);
    }
    pthread_mutex_unlock(&gpu->lock);
    return NULL;
}

void *gpu_completion_main(void *arg)
{
    VmafGpu *gpu = arg;
    vmaf_log_bind(gpu->cfg.log_id);
    pthread_mutex_lock(&gpu->lock);
    for (;;) {
        while (gpu->n_concluded == gpu->n_submitted && !gpu->stop)
            pthread_cond_wait(&gpu->cond_work, &gpu->lock);
        if (gpu->n_concluded == gpu->n_submitted) break;
        VmafGpuLane *l = gpu->order[gpu->n_concluded % gpu->n_lanes];
        while (gpu->n_workers && !l->prepared) pthread_cond_wait(&gpu->cond_prepared, &gpu->lock);
        pthread_mutex_unlock(&gpu->lock);

        conclude_frame(gpu, l);
        gpu_release_pictures(l);

        pthread_mutex_lock(&gpu->lock);
        l->busy = false;
        gpu->n_concluded++;
        pthread_cond_broadcast(&gpu->cond_free);
    }
    pthread_mutex_unlock(&gpu->lock);
    return NULL;
}

int vmaf_gpu_drain(VmafGpu *gpu)
{
    pthread_mutex_lock(&gpu->lock);
    while (gpu->n_concluded < gpu->n_submitted) pthread_cond_wait(&gpu->cond_free, &gpu->lock);
    const int err = gpu->err;
    pthread_mutex_unlock(&gpu->lock);
    vmaf_gpu_fault_report("drained");
    return err;
}


unsigned vmaf_gpu_concluded(VmafGpu *gpu)
{
    pthread_mutex_lock(&gpu->lock);
    /* Frames dropped after a failure count as concluded in n_concluded. */
    const unsigned n = gpu->err && gpu->err_seq < gpu->n_concluded ? gpu->err_seq
                                                                    : gpu->n_concluded;
    pthread_mutex_unlock(&gpu->lock);
    return n;
}

int vmaf_gpu_dropped_from(VmafGpu *gpu, unsigned *seq)
{
    pthread_mutex_lock(&gpu->lock);
    while (gpu->n_concluded < gpu->n_submitted) pthread_cond_wait(&gpu->cond_free, &gpu->lock);
    const int err = gpu->err;
    *seq = err ? gpu->err_seq : gpu->n_submitted;
    pthread_mutex_unlock(&gpu->lock);
    return err;
}

unsigned vmaf_gpu_history(const VmafGpu *gpu)
{
    return gpu->history;
}
