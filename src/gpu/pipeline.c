/*
 * The GPU frame pipeline's life (see pipeline.h): creation, the twins it
 * is handed, the lanes started, each frame's submission (uploads, history
 * and the twins' work queued on its lane), and teardown with the optional
 * profile: the room's top, calling down into the lanes (lane.c), the queued
 * calls (work_log.c), the planes (planes.c) and the threads (workers.c);
 * lane.h lists the files.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/fault.h"
#include "gpu/lane.h"
#include "gpu/planes.h"
#include "gpu/work_log.h"
#include "gpu/workers.h"
#include "log.h"
#include "os/os.h"
#include "picture_internal.h"
#include "trace.h"

/* Frames per device block when several devices share the frames: long
 * enough that priming (re-uploading the frames before a block) is rare. */
#define BLOCK_FRAMES_PER_LANE 8

static bool any_prepare(const VmafGpu *gpu)
{
    for (unsigned t = 0; t < gpu->n_twin; t++)
        if (gpu->twin[t].fex->twin->prepare) return true;
    return false;
}

/* ---- Creation and the twins handed over ---- */

static void close_devices(VmafGpuDev **dev, unsigned n_dev)
{
    for (unsigned d = 0; d < n_dev; d++)
        if (dev[d]) dev[d]->ops->close(dev[d]);
}

int vmaf_gpu_create(VmafGpu **out, VmafGpuDev **dev, unsigned n_dev,
                    const VmafGpuConfig *cfg, enum VmafPixelFormat pix_fmt, unsigned bpc,
                    unsigned w, unsigned h)
{
    if (!out || !dev || !n_dev || n_dev > VMAF_GPU_MAX_DEVICES || !cfg || !cfg->conclude) {
        if (dev) close_devices(dev, n_dev <= VMAF_GPU_MAX_DEVICES ? n_dev : 0);
        return -EINVAL;
    }
    for (unsigned d = 1; d < n_dev; d++)
        if (dev[d]->ops != dev[0]->ops) {
            close_devices(dev, n_dev);
            return -EINVAL;
        }
    for (unsigned d = 0; d < n_dev; d++) vmaf_gpu_fault_arm(dev[d]);
    VmafGpu *gpu = calloc(1, sizeof(*gpu));
    if (!gpu) goto fail;
    if (pthread_mutex_init(&gpu->lock, NULL)) goto fail;
    if (pthread_cond_init(&gpu->cond_work, NULL)) {
        pthread_mutex_destroy(&gpu->lock);
        goto fail;
    }
    if (pthread_cond_init(&gpu->cond_free, NULL)) {
        pthread_cond_destroy(&gpu->cond_work);
        pthread_mutex_destroy(&gpu->lock);
        goto fail;
    }
    if (pthread_cond_init(&gpu->cond_prepared, NULL)) {
        pthread_cond_destroy(&gpu->cond_free);
        pthread_cond_destroy(&gpu->cond_work);
        pthread_mutex_destroy(&gpu->lock);
        goto fail;
    }
    for (unsigned d = 0; d < n_dev; d++) gpu->dev[d] = dev[d];
    gpu->n_dev = n_dev;
    gpu->cfg = *cfg;
    gpu->pix_fmt = pix_fmt;
    gpu->bpc = bpc;
    gpu->w = w;
    gpu->h = h;
    const char *p = getenv("EXACTVMAF_GPU_PROFILE");
    if (!p) p = getenv("EXACTVMAF_CUDA_PROFILE");
    gpu->prof = p && *p && strcmp(p, "0");
    /* EXACTVMAF_GPU_GRAPHS=0 queues every call as it comes (for comparison). */
    const char *g = getenv("EXACTVMAF_GPU_GRAPHS");
    gpu->graphs = !(g && !strcmp(g, "0"));
    *out = gpu;
    return 0;

fail:
    free(gpu);
    close_devices(dev, n_dev);
    return -ENOMEM;
}

VmafGpuDev *vmaf_gpu_device(VmafGpu *gpu)
{
    return gpu->dev[0];
}

unsigned vmaf_gpu_device_count(const VmafGpu *gpu)
{
    return gpu->n_dev;
}

const char *vmaf_gpu_backend(const VmafGpu *gpu)
{
    return gpu_backend_name(gpu);
}

bool vmaf_gpu_fp64(const VmafGpu *gpu)
{
    for (unsigned d = 0; d < gpu->n_dev; d++)
        if (!gpu->dev[d]->ops->has_fp64(gpu->dev[d])) return false;
    return true;
}

static int pin_buffer(void *arg, void *p, size_t bytes)
{
    VmafGpuDev *d = arg;
    return d->ops->host_register(d, p, bytes);
}

static void unpin_buffer(void *arg, void *p)
{
    VmafGpuDev *d = arg;
    d->ops->host_unregister(d, p);
}

void vmaf_gpu_pin_pool(VmafGpu *gpu, VmafPicturePool *pool)
{
    if (gpu->pinned && gpu->pinned != pool) vmaf_picture_pool_pin(gpu->pinned, NULL, NULL, NULL);
    gpu->pinned = pool;
    vmaf_picture_pool_pin(pool, pin_buffer, unpin_buffer, gpu->dev[0]);
}

bool vmaf_gpu_runs(const VmafGpu *gpu, const VmafGpuProgram *prog)
{
    return vmaf_gpu_blob(prog, gpu->dev[0]->ops) != NULL;
}

int vmaf_gpu_add(VmafGpu *gpu, VmafFex *fex, const VmafGpuNeeds *needs)
{
    if (gpu->started || gpu->n_twin == MAX_TWINS || needs->gpu != gpu ||
        needs->history > VMAF_GPU_MAX_HISTORY)
        return -EINVAL;
    for (unsigned k = 0; k < 2; k++) gpu->planes[k] |= needs->planes[k];
    for (unsigned i = 0; i < needs->n_fl; i++) {
        const VmafGpuFloatUse *f = &needs->fl[i];
        unsigned j = 0;
        while (j < gpu->n_fl && !(gpu->fl[j].plane == f->plane && gpu->fl[j].offset == f->offset))
            j++;
        if (j == gpu->n_fl) {
            if (gpu->n_fl == MAX_FLOATS) return -ENOMEM;
            gpu->fl[gpu->n_fl++] = (VmafGpuFloatUse){ 0, f->plane, f->offset };
        }
        gpu->fl[j].which_mask |= f->which_mask;
    }
    TwinReg *tr = &gpu->twin[gpu->n_twin];
    *tr = (TwinReg){ .fex = fex, .history = needs->history, .leader = needs->leader };
    if (needs->share_key[0] && !(tr->share_key = strdup(needs->share_key))) return -ENOMEM;
    if (needs->history > gpu->history) gpu->history = needs->history;
    gpu->n_twin++;
    return 0;
}

/* ---- Start: the lanes and the threads ---- */

/* Frames in flight per device, from the frame size: enough that frames'
 * kernels fill the GPU side by side (measured on an H200 with a v1.0.16
 * model, frame work as graphs: 1080p 3620 / 4958 / 5814 / 6002 fps at 8 /
 * 12 / 16 / 24 in flight; 2160p 1060 / 1553 at 4 / 8), few enough that
 * setting the lanes up stays quick: 64M pixels in flight, 4 to 16 frames. */
static unsigned default_lanes(const VmafGpu *gpu)
{
    const double px = (double)gpu->w * gpu->h;
    unsigned k = (unsigned)(64.0 * 1024 * 1024 / (px > 1 ? px : 1));
    if (k < 4) k = 4;
    if (k > 16) k = 16;
    return k;
}

static double mib(size_t b)
{
    return (double)b / (1024.0 * 1024.0);
}

static size_t free_memory(VmafGpuDev *st, size_t *total)
{
    size_t free_b = 0, total_b = 0;
    if (!st->ops->enter(st)) {
        if (st->ops->mem_info(st, &free_b, &total_b)) free_b = total_b = 0;
        st->ops->leave(st);
    }
    if (total) *total = total_b;
    return free_b;
}

int vmaf_gpu_start(VmafGpu *gpu)
{
    if (gpu->started) return -EINVAL;
    gpu->started = true;
    const bool forced = gpu->cfg.frames_in_flight != 0;
    unsigned k = forced ? gpu->cfg.frames_in_flight : default_lanes(gpu);
    if (k > VMAF_GPU_MAX_LANES) k = VMAF_GPU_MAX_LANES;
    const unsigned min_k = gpu->history + 1 > 2 ? gpu->history + 1 : 2;
    if (k < min_k) {
        vmaf_log(VMAF_LOG_LEVEL_INFO, "%s: %u frames in flight asked; %u needed "
                 "(a temporal metric reads %u frames back)", vmaf_gpu_backend(gpu), k, min_k, gpu->history);
        k = min_k;
    }
    const unsigned stride = k;
    gpu->n_alloc_lanes = (size_t)stride * gpu->n_dev;
    gpu->lane = calloc((size_t)stride * gpu->n_dev, sizeof(*gpu->lane));
    gpu->order = calloc((size_t)stride * gpu->n_dev, sizeof(*gpu->order));
    if (!gpu->lane || !gpu->order) return -ENOMEM;

    /* Lane 0 of every device first, so that one lane's size caps K by the
     * free memory; then lane after lane, stopping early on short memory
     * unless the caller fixed K. */
    unsigned made = 0;
    for (unsigned i = 0; i < k; i++) {
        for (unsigned d = 0; d < gpu->n_dev; d++) {
            /* Stop short of an allocation failure where possible: another
             * lane needs what lane 0 took, and some room beside. */
            if (i >= min_k && !forced &&
                free_memory(gpu->dev[d], NULL) < gpu->lane[d * stride]->bytes / 8 * 9) {
                vmaf_log(VMAF_LOG_LEVEL_INFO, "%s: device memory for %u frames in flight "
                         "per device, not %u", vmaf_gpu_backend(gpu), i, k);
                for (unsigned e = 0; e < d; e++) {
                    gpu_lane_free(gpu->lane[e * stride + i]);
                    free(gpu->lane[e * stride + i]);
                    gpu->lane[e * stride + i] = NULL;
                }
                goto shrink;
            }
            VmafGpuLane *l = calloc(1, sizeof(*l));
            if (!l) return -ENOMEM;
            gpu->lane[d * stride + i] = l;
            /* Past the lanes needed, short memory means fewer lanes, not an
             * error: the driver's message waits to be told either way. */
            const bool may_shrink = i >= min_k && !forced;
            if (may_shrink) vmaf_log_hold(gpu->cfg.log_id);
            int err = gpu_lane_create(gpu, l, d * stride + i, d, i ? gpu->lane[d * stride] : NULL);
            char held[512] = "";
            if (may_shrink)
                vmaf_log_release(gpu->cfg.log_id, err && err != -ENOMEM, held, sizeof(held));
            if (!err && i == 0 && !forced) {
                /* At most 3/4 of the free memory for the lanes. */
                const size_t per = l->bytes ? l->bytes : 1;
                const size_t fit = 1 + free_memory(gpu->dev[d], NULL) / 4 * 3 / per;
                if (fit < k) k = fit > min_k ? (unsigned)fit : min_k;
            }
            if (!err) continue;
            size_t total_b;
            const size_t lane_bytes = l->bytes, free_b = free_memory(gpu->dev[d], &total_b);
            gpu_lane_free(l);
            free(l);
            gpu->lane[d * stride + i] = NULL;
            if (err == -ENOMEM && may_shrink) {
                /* No free figure: OpenCL cannot tell what other processes took. */
                vmaf_log(VMAF_LOG_LEVEL_INFO, "%s: device memory for %u frames in "
                         "flight per device, not %u (%s)", vmaf_gpu_backend(gpu), i, k, held);
                for (unsigned e = 0; e < d; e++) {
                    gpu_lane_free(gpu->lane[e * stride + i]);
                    free(gpu->lane[e * stride + i]);
                    gpu->lane[e * stride + i] = NULL;
                }
                goto shrink;
            }
            if (err == -ENOMEM)
                vmaf_log(VMAF_LOG_LEVEL_ERROR,
                         "%s: out of device memory on %s: frame in flight %u of %u needed "
                         "more than the %.1f MiB it got (%u metrics); %.1f MiB free of "
                         "%.1f MiB. Fewer frames in flight or fewer metrics would fit",
                         vmaf_gpu_backend(gpu), gpu->dev[d]->ops->device_name(gpu->dev[d]),
                         i + 1, k, mib(lane_bytes),
                         gpu->n_twin, mib(free_b), mib(total_b));
            return err;
        }
        made = i + 1;
        ev_trace("GPU frame in flight %u of %u ready", made, k);
    }
shrink:
    /* Pack the lanes from stride `stride` to stride `made`. */
    for (unsigned d = 1; made != stride && d < gpu->n_dev; d++)
        for (unsigned i = 0; i < made; i++) {
            gpu->lane[d * made + i] = gpu->lane[d * stride + i];
            gpu->lane[d * stride + i] = NULL;
        }
    gpu->k = made;
    gpu->n_lanes = made * gpu->n_dev;
    for (unsigned i = 0; i < gpu->n_lanes; i++) gpu->lane[i]->id = i;
    gpu->block = gpu->n_dev > 1 ? made * BLOCK_FRAMES_PER_LANE : 0;

    if (any_prepare(gpu)) {
        /* As many as frames in flight, leaving a core to the caller's thread. */
        const long cpus = vmaf_os_cpu_count();
        unsigned n = gpu->n_lanes;
        if (cpus > 1 && (unsigned long)(cpus - 1) < n) n = (unsigned)(cpus - 1);
        if (n > MAX_WORKERS) n = MAX_WORKERS;
        for (unsigned i = 0; i < n; i++) {
            if (pthread_create(&gpu->worker[i], NULL, gpu_worker_main, gpu)) break;
            gpu->n_workers++;
        }
        if (!gpu->n_workers) return -ENOMEM;
    }
    if (pthread_create(&gpu->thread, NULL, gpu_completion_main, gpu)) return -ENOMEM;
    gpu->thread_on = true;
    vmaf_gpu_fault_report("started");
    vmaf_log(VMAF_LOG_LEVEL_INFO, "%s: %u frames in flight per device, %.1f MiB each",
             vmaf_gpu_backend(gpu), made, mib(gpu->lane[0]->bytes));
    return 0;
}

unsigned vmaf_gpu_lanes(const VmafGpu *gpu)
{
    return gpu->k;
}
/* ---- History ---- */

void *vmaf_gpu_prev(VmafFex *fex, const VmafGpuFrame *fr, unsigned back)
{
    VmafGpu *gpu = fr->lane->gpu;
    const int t = gpu_twin_index(gpu, fex);
    if (t < 0 || !back || back > gpu->twin[t].history || back > fr->seq ||
        (fr->primed >> (back - 1) & 1))
        return NULL;
    /* The ring holds the lanes of the last n_lanes submissions; back < K. */
    VmafGpuLane *p = gpu->order[(fr->seq - back) % gpu->n_lanes];
    if (!p || p->dev != fr->lane->dev) return NULL;
    if (gpu_lane_wait(fr->lane, p->twin_ev[t])) return NULL;
    return p->lp[t];
}

/* Before a temporal twin overwrites what its lane held: every frame that
 * may still read it (the `history` frames after the lane's previous one on
 * this device) must be done with it. */
static int wait_readers(VmafGpu *gpu, VmafGpuLane *l, unsigned t)
{
    const unsigned k = gpu->k;
    for (unsigned i = 1; i <= gpu->twin[t].history; i++) {
        if (l->dev_seq + i < k) continue;
        const unsigned v = l->dev_seq + i - k;
        if (v >= l->dev_seq) continue;
        VmafGpuLane *r = gpu->lane[l->dev * k + v % k];
        const int err = gpu_lane_wait(l, r->twin_ev[t]);
        if (err) return err;
    }
    return 0;
}

/* ---- Submission ---- */

static int prof_mark(VmafGpu *gpu, VmafGpuLane *l, unsigned i)
{
    if (!gpu->prof) return 0;
    return gpu_lane_record(l, l->prof[i]);
}

/* Queue everything of frame fr on its lane. */
static int queue_frame(VmafGpu *gpu, VmafGpuLane *l)
{
    const VmafGpuFrame *fr = &l->fr;
    /* The lane's earlier frame was concluded: its uploads are done. */
    if (l->ops->upload_begin) l->ops->upload_begin(l->stream);
    int err = prof_mark(gpu, l, PROF_START);
    if (!err) err = gpu_upload_planes(gpu, l, fr->pic, l->plane);
    for (unsigned b = 0; b < VMAF_GPU_MAX_HISTORY && !err; b++) {
        if (!(fr->primed >> b & 1)) continue;
        const VmafPicture *pp[2] = { &l->prime_pic[b][0], &l->prime_pic[b][1] };
        err = gpu_upload_planes(gpu, l, pp, l->prime[b]);
    }
    /* From here the twins' calls go to the log (work_log.c). */
    l->logging = true;
    l->log[0].len = 0;
    if (!err) err = prof_mark(gpu, l, PROF_UPLOADED);
    for (unsigned t = 0; t < gpu->n_twin && !err; t++) {
        const TwinReg *tr = &gpu->twin[t];
        if (l->all || gpu_every_frame(tr)) {
            if (tr->history) err = wait_readers(gpu, l, t);
            const double t0 = gpu->prof ? gpu_now_ms() : 0.0;
            if (!err && !tr->leader) err = tr->fex->twin->enqueue(tr->fex, fr, l->lp[t]);
            if (gpu->prof) gpu->twin[t].host_ms += gpu_now_ms() - t0;
            if (err)
                vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s (%s): cannot queue frame %u (%d)",
                         tr->fex->desc->name, vmaf_gpu_backend(gpu), fr->index, err);
            if (!err && tr->history) err = gpu_lane_record(l, l->twin_ev[t]);
        }
        if (!err) err = prof_mark(gpu, l, PROF_TWIN0 + t);
    }
    l->logging = false;
    if (!err) err = gpu_log_flush(gpu, l);
    /* The completion thread waits on this, also after a failure above. */
    const int err2 = l->ops->record(l->stream, l->done);
    return err ? err : err2;
}

int vmaf_gpu_submit(VmafGpu *gpu, const VmafPicture *ref, const VmafPicture *dist,
                    unsigned index, bool all)
{
    if (!gpu->thread_on) return -EINVAL;
    pthread_mutex_lock(&gpu->lock);
    const unsigned seq = gpu->n_submitted;
    const unsigned d = gpu->n_dev > 1 ? (seq / gpu->block) % gpu->n_dev : 0;
    VmafGpuLane *l = gpu->lane[d * gpu->k + gpu->dev_count[d] % gpu->k];
    while (l->busy && !gpu->err) pthread_cond_wait(&gpu->cond_free, &gpu->lock);
    const int err0 = gpu->err;
    pthread_mutex_unlock(&gpu->lock);
    if (err0) return err0;

    int err = vmaf_picture_ref(&l->pic[0], ref);
    if (!err) err = vmaf_picture_ref(&l->pic[1], dist);
    /* The first frames of a block get the pictures of the frames before the
     * block (computed on another device) that a temporal twin reads. */
    unsigned primed = 0;
    for (unsigned b = 1; !err && gpu->n_dev > 1 && b <= gpu->n_recent; b++) {
        if (b <= seq % gpu->block) continue;
        primed |= 1u << (b - 1);
        for (unsigned k = 0; k < 2 && !err; k++)
            err = vmaf_picture_ref(&l->prime_pic[b - 1][k], &gpu->recent[b - 1][k]);
    }
    l->fr = (VmafGpuFrame){ .index = index, .seq = seq, .lane = l,
                            .pic = { &l->pic[0], &l->pic[1] }, .primed = primed };
    l->all = all;
    l->dev_seq = gpu->dev_count[d];
    l->failed = false;
    l->prepared = l->waited = false;
    if (gpu->prof && !seq) clock_gettime(CLOCK_MONOTONIC, &gpu->t_first);

    const double t0 = gpu->prof ? gpu_now_ms() : 0.0;
    if (!err) err = l->ops->enter(l->st);
    if (!err) {
        err = queue_frame(gpu, l);
        l->ops->leave(l->st);
    }
    if (gpu->prof) gpu->prof_submit_ms += gpu_now_ms() - t0;
    /* Keep the last pictures for the next block's priming. */
    if (gpu->n_dev > 1 && gpu->history) {
        const unsigned last = gpu->history - 1;
        for (unsigned k = 0; k < 2; k++)
            if (gpu->recent[last][k].ref) vmaf_picture_unref(&gpu->recent[last][k]);
        memmove(&gpu->recent[1], &gpu->recent[0], last * sizeof(gpu->recent[0]));
        memset(&gpu->recent[0], 0, sizeof(gpu->recent[0]));
        for (unsigned k = 0; k < 2; k++)
            if (!err) err = vmaf_picture_ref(&gpu->recent[0][k], k ? dist : ref);
        if (gpu->n_recent < gpu->history) gpu->n_recent++;
    }
    if (err) {
        l->failed = true;
        gpu_set_error(gpu, err, seq);
    }
    pthread_mutex_lock(&gpu->lock);
    l->busy = true;
    gpu->order[seq % gpu->n_lanes] = l;
    gpu->dev_count[d]++;
    gpu->n_submitted++;
    /* The completion thread and the workers wait on it. */
    pthread_cond_broadcast(&gpu->cond_work);
    pthread_mutex_unlock(&gpu->lock);
    return err;
}

/* ---- Teardown and profile ---- */

static void print_profile(const VmafGpu *gpu)
{
    if (!gpu->prof_frames) return;
    const double n = gpu->prof_frames;
    const double wall = (double)(gpu->t_last.tv_sec - gpu->t_first.tv_sec) +
                        (double)(gpu->t_last.tv_nsec - gpu->t_first.tv_nsec) * 1e-9;
    size_t lane_bytes = gpu->n_lanes ? gpu->lane[0]->bytes : 0, total = 0;
    for (unsigned i = 0; i < gpu->n_lanes; i++) total += gpu->lane[i]->bytes;
    const char *b = vmaf_gpu_backend(gpu);
    fprintf(stderr, "exactvmaf %s profile: %u frames, %u in flight per device on %u "
            "device(s) (%s), %.1f fps from the first submission to the last conclusion\n",
            b, gpu->prof_frames, gpu->k, gpu->n_dev, gpu->dev[0]->ops->device_name(gpu->dev[0]),
            wall > 0 ? n / wall : 0.0);
    const double up = gpu->prof_upload_ms / n, bytes = gpu->prof_bytes / n;
    fprintf(stderr, "exactvmaf %s profile: upload %.3f ms per frame, %.0f bytes, %.2f GB/s\n",
            b, up, bytes, up > 0 ? bytes / (up * 1e6) : 0.0);
    for (unsigned t = 0; t < gpu->n_twin; t++)
        fprintf(stderr, "exactvmaf %s profile: twin %s %.3f ms per frame on the device, "
                "%.3f ms queueing it, %.3f ms preparing (workers), %.3f ms concluding\n", b,
                gpu->twin[t].fex->desc->name, gpu->twin[t].ms / n, gpu->twin[t].host_ms / n,
                gpu->twin[t].prepare_ms / n, gpu->twin[t].conclude_ms / n);
    fprintf(stderr, "exactvmaf %s profile: queueing a frame (uploads, every twin) %.3f ms on "
            "the submitting thread\n", b, gpu->prof_submit_ms / n);
    fprintf(stderr, "exactvmaf %s profile: frame work as graphs: %u launched, %u built, %u "
            "captures invalidated (queued call by call)\n", b, gpu->n_graph_launch,
            gpu->n_graph_build, gpu->n_graph_replayed);
    fprintf(stderr, "exactvmaf %s profile: device memory %.1f MiB per frame in flight, "
            "%.1f MiB in all\n", b, mib(lane_bytes), mib(total));
}

void vmaf_gpu_destroy(VmafGpu *gpu)
{
    if (!gpu) return;
    if (gpu->thread_on || gpu->n_workers) {
        pthread_mutex_lock(&gpu->lock);
        gpu->stop = true;
        pthread_cond_broadcast(&gpu->cond_work);
        pthread_mutex_unlock(&gpu->lock);
        for (unsigned i = 0; i < gpu->n_workers; i++) pthread_join(gpu->worker[i], NULL);
        if (gpu->thread_on) pthread_join(gpu->thread, NULL);
    }
    if (gpu->prof) print_profile(gpu);
    /* Lanes of an unfinished start sit at any index of the array. */
    const size_t n = gpu->n_lanes ? gpu->n_lanes : gpu->n_alloc_lanes;
    for (size_t i = 0; gpu->lane && i < n; i++) {
        if (!gpu->lane[i]) continue;
        gpu_release_pictures(gpu->lane[i]);
        gpu_lane_free(gpu->lane[i]);
        free(gpu->lane[i]);
    }
    for (unsigned b = 0; b < VMAF_GPU_MAX_HISTORY; b++)
        for (unsigned k = 0; k < 2; k++)
            if (gpu->recent[b][k].ref) vmaf_picture_unref(&gpu->recent[b][k]);
    free(gpu->lane);
    free(gpu->order);
    if (gpu->pinned) vmaf_picture_pool_pin(gpu->pinned, NULL, NULL, NULL);
    close_devices(gpu->dev, gpu->n_dev);
    for (unsigned t = 0; t < gpu->n_twin; t++) free(gpu->twin[t].share_key);
    pthread_cond_destroy(&gpu->cond_prepared);
    pthread_cond_destroy(&gpu->cond_free);
    pthread_cond_destroy(&gpu->cond_work);
    pthread_mutex_destroy(&gpu->lock);
    free(gpu);
}

