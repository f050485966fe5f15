/*
 * The context: registrations, frame scheduling over worker threads, and
 * the libvmaf API entry points that are not about models or output.
 *
 * Threads: every non-temporal extractor has one instance per worker, and a
 * frame is computed whole by one worker, so a frame's bits never depend on
 * the thread count. Temporal extractors run on the calling thread in index
 * order. The job queue holds at most 2 frames per worker, which bounds
 * memory independently of the clip length.
 *
 * GPU: extractors with a twin on the chosen backend have one instance in
 * the GPU frame pipeline (src/gpu/pipeline.h), which holds K frames in
 * flight per device and concludes them in order on its own thread; the
 * others run on the CPU as above, in the same run.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context_internal.h"
#include "device_record.h"
#include "export.h"
#include "failover.h"
#include "fex_internal.h"
#include "gpu/cuda/cuda_backend.h"
#include "gpu/dev_picture.h"
#include "gpu/pipeline.h"
#include "log.h"
#include "picture_internal.h"

void vmaf_ctx_bind_log(const VmafContext *vmaf) { vmaf_log_bind(vmaf ? vmaf->log_id : 0); }
VmafFeatureCollector *vmaf_ctx_collector(VmafContext *vmaf) { return vmaf->fc; }
unsigned vmaf_ctx_frame_count(VmafContext *vmaf) { return vmaf->pic_cnt; }
unsigned vmaf_ctx_subsample(VmafContext *vmaf) { return vmaf->cfg.n_subsample; }
unsigned vmaf_ctx_width(VmafContext *vmaf) { return vmaf->w; }
unsigned vmaf_ctx_height(VmafContext *vmaf) { return vmaf->h; }
int vmaf_ctx_output_precision(VmafContext *vmaf) { return vmaf->output_precision; }
const VmafDict *vmaf_ctx_backends(VmafContext *vmaf) { return vmaf->backends; }
const VmafDeviceRecords *vmaf_ctx_devices(VmafContext *vmaf) { return vmaf->devices; }
void vmaf_ctx_set_output_precision(VmafContext *vmaf, int digits)
{
    vmaf->output_precision = digits;
}

double vmaf_ctx_fps(VmafContext *vmaf)
{
    struct timespec end = vmaf->t_end;
    if (!vmaf->flushed) clock_gettime(CLOCK_MONOTONIC, &end);
    const double s = (double)(end.tv_sec - vmaf->t_start.tv_sec) +
                     (double)(end.tv_nsec - vmaf->t_start.tv_nsec) * 1e-9;
    return s > 0 ? vmaf->pic_cnt / s : 0.0;
}

VMAF_EXPORT const char *vmaf_version(void)
{
    return EXACTVMAF_VERSION_STRING;
}

VMAF_EXPORT int vmaf_init(VmafContext **out, VmafConfiguration cfg)
{
    vmaf_log_bind(0);
    if (!out) return -EINVAL;
    if (cfg.n_threads > 256) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "n_threads %u is more than 256", cfg.n_threads);
        return -EINVAL;
    }
    VmafContext *vmaf = calloc(1, sizeof(*vmaf));
    if (!vmaf) return -ENOMEM;
    vmaf->cfg = cfg;
    vmaf->last_index = -1;
    vmaf->backend = EXACTVMAF_BACKEND_AUTO;
    vmaf->n_gpu = 1;
    /* Netflix's "%.6f"; EXACTVMAF_PRECISION (digits, or "max" for "%.17g") lets
     * a program that calls vmaf_write_output() as it is (FFmpeg's filters)
     * write values that round-trip. */
    vmaf->output_precision = 6;
    const char *prec = getenv("EXACTVMAF_PRECISION");
    if (prec && *prec) {
        const int d = strcmp(prec, "max") ? atoi(prec) : 0;
        vmaf->output_precision = d > 0 && d <= 16 ? d : 0;
    }
    vmaf_log_set_level(cfg.log_level);
    vmaf->log_id = vmaf_log_register(cfg.log_level);
    vmaf_log_bind(vmaf->log_id);
    int err = vmaf_fc_create(&vmaf->fc);
    if (err) goto fail;
    if (pthread_mutex_init(&vmaf->lock, NULL)) goto fail_nomem;
    if (pthread_cond_init(&vmaf->cond_job, NULL)) goto fail_mutex;
    if (pthread_cond_init(&vmaf->cond_space, NULL)) goto fail_cj;
    if (pthread_cond_init(&vmaf->cond_idle, NULL)) goto fail_cs;
    vmaf->sync_ok = true;
    *out = vmaf;
    return 0;
fail_cs:
    pthread_cond_destroy(&vmaf->cond_space);
fail_cj:
    pthread_cond_destroy(&vmaf->cond_job);
fail_mutex:
    pthread_mutex_destroy(&vmaf->lock);
fail_nomem:
    err = -ENOMEM;
fail:
    vmaf_fc_destroy(vmaf->fc);
    vmaf_log_unregister(vmaf->log_id);
    vmaf_log_bind(0);
    free(vmaf);
    return err;
}

int vmaf_ctx_use_feature(VmafContext *vmaf, const char *fex_name, const VmafDict *opts)
{
    if (!vmaf || !fex_name) return -EINVAL;
    if (vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "features must be registered before the first picture");
        return -EINVAL;
    }
    const VmafFeatureExtractor *desc = vmaf_fex_find(fex_name);
    if (!desc) {
        if (vmaf_fex_declared(fex_name)) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "feature extractor \"%s\" is not built yet", fex_name);
            return -ENOSYS;
        }
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "unknown feature extractor \"%s\"", fex_name);
        return -EINVAL;
    }
    /* Check the options now, so that a bad one fails at registration. */
    VmafFex *probe = NULL;
    const VmafFexEnv env = { .division = vmaf->division };
    int err = vmaf_fex_create(&probe, desc, opts, &env, vmaf->fc, 0);
    if (err) return err;
    vmaf_fex_destroy(probe);

    char *id = vmaf_fex_identity(desc, opts);
    if (!id) return -ENOMEM;
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        if (strcmp(vmaf->reg[i].identity, id)) continue;
        /* Same outputs: one instance. Options that do not rename outputs
         * (debug) are merged, later registrations winning. */
        free(id);
        VmafDict *merged = NULL;
        err = vmaf_dict_merge(vmaf->reg[i].opts, opts, &merged);
        if (err) return err;
        vmaf_dict_free(&vmaf->reg[i].opts);
        vmaf->reg[i].opts = merged;
        return 0;
    }
    Registration *r = realloc(vmaf->reg, (vmaf->n_reg + 1) * sizeof(*r));
    if (!r) {
        free(id);
        return -ENOMEM;
    }
    vmaf->reg = r;
    Registration *n = &vmaf->reg[vmaf->n_reg];
    *n = (Registration){ .desc = desc, .identity = id };
    err = vmaf_dict_copy(opts, &n->opts);
    if (err) {
        free(id);
        return err;
    }
    vmaf->n_reg++;
    return 0;
}

VMAF_EXPORT int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                                 VmafFeatureDictionary *opts_dict)
{
    vmaf_ctx_bind_log(vmaf);
    VmafDict *d = (VmafDict *)opts_dict;
    int err = vmaf_ctx_use_feature(vmaf, feature_name, d);
    vmaf_dict_free(&d);
    return err;
}

VMAF_EXPORT int exactvmaf_planes_used(VmafContext *vmaf, unsigned *mask)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !mask) return -EINVAL;
    *mask = 0;
    const VmafFexEnv env = { .division = vmaf->division };
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        const Registration *r = &vmaf->reg[i];
        if (!r->desc->planes) {
            *mask = 7;
            return 0;
        }
        /* An instance, not started, to read its options. */
        VmafFex *probe = NULL;
        const int err = vmaf_fex_create(&probe, r->desc, r->opts, &env, vmaf->fc, 0);
        if (err) return err;
        *mask |= r->desc->planes(probe);
        vmaf_fex_destroy(probe);
    }
    return 0;
}

VMAF_EXPORT int exactvmaf_has_temporal(VmafContext *vmaf)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    for (unsigned i = 0; i < vmaf->n_reg; i++)
        if (vmaf->reg[i].desc->flags & VMAF_FEX_TEMPORAL) return 1;
    return 0;
}

VMAF_EXPORT unsigned exactvmaf_output_count(VmafContext *vmaf)
{
    vmaf_ctx_bind_log(vmaf);
    return vmaf ? vmaf_fc_count(vmaf->fc) : 0;
}

VMAF_EXPORT const char *exactvmaf_output_name(VmafContext *vmaf, unsigned i)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return NULL;
    const char *name = vmaf_fc_name_at(vmaf->fc, i);
    return name ? vmaf_feature_alias(name) : NULL;
}

VMAF_EXPORT int exactvmaf_backend_at(VmafContext *vmaf, unsigned i, const char **extractor,
                                     const char **backend)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !extractor || !backend) return -EINVAL;
    if (!vmaf->backends || i >= vmaf->backends->cnt) return -ENOENT;
    *extractor = vmaf->backends->entry[i].key;
    *backend = vmaf->backends->entry[i].val;
    return 0;
}

VMAF_EXPORT int exactvmaf_device_field_at(VmafContext *vmaf, unsigned i, unsigned k,
                                          unsigned f, const char **key, const char **value)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !key || !value) return -EINVAL;
    const VmafDict *rec = vmaf_device_records_at(vmaf->devices, i, k);
    if (!rec || f >= rec->cnt) return -ENOENT;
    *key = rec->entry[f].key;
    *value = rec->entry[f].val;
    return 0;
}

VMAF_EXPORT int exactvmaf_aggregate_at(VmafContext *vmaf, unsigned i, const char **name,
                                       double *value)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !name || !value) return -EINVAL;
    if (i >= vmaf_fc_aggregate_count(vmaf->fc)) return -ENOENT;
    *name = vmaf_fc_aggregate_at(vmaf->fc, i, value);
    return 0;
}

VMAF_EXPORT int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name,
                                          double value, unsigned index)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !feature_name) return -EINVAL;
    return vmaf_fc_append(vmaf->fc, feature_name, value, index,
                          vmaf_fc_order_key(index, 0xfff, 0));
}

static bool is_temporal(const Registration *r)
{
    return r->desc->flags & VMAF_FEX_TEMPORAL;
}

bool vmaf_ctx_is_temporal(const VmafContext *vmaf, unsigned i)
{
    return is_temporal(&vmaf->reg[i]);
}

/* Temporal CPU extractors have their instance on the calling thread. */
static bool on_caller(const Registration *r)
{
    return r->on_caller;
}

static void destroy_instances(VmafFex **inst, unsigned n)
{
    if (!inst) return;
    for (unsigned i = 0; i < n; i++) vmaf_fex_destroy(inst[i]);
    free(inst);
}

int vmaf_ctx_fill_instances(VmafContext *vmaf, VmafFex **inst, bool temporal, bool non_temporal)
{
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        const Registration *r = &vmaf->reg[i];
        if (inst[i] || r->gpu || (on_caller(r) ? !temporal : !non_temporal)) continue;
        /* The instances before this one in the set may lead a shared pass. */
        const VmafFexEnv env = { .division = vmaf->division, .siblings = inst, .n_siblings = i };
        int err = vmaf_fex_create(&inst[i], r->desc, r->opts, &env, vmaf->fc, i);
        if (err) return err;
        err = vmaf_fex_init(inst[i], vmaf->pix_fmt, vmaf->bpc, vmaf->w, vmaf->h);
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: cannot start on %ux%u %u-bit pictures (%s)",
                     r->desc->name, vmaf->w, vmaf->h, vmaf->bpc, strerror(-err));
            return err;
        }
    }
    return 0;
}

/* One thread's set of instances, all NULL: one slot per registration. */
static VmafFex **alloc_instances(const VmafContext *vmaf)
{
    return calloc(vmaf->n_reg ? vmaf->n_reg : 1, sizeof(VmafFex *));
}

/* Instances for one thread: temporal ones only on the calling thread. */
static int create_instances(VmafContext *vmaf, VmafFex ***out, bool temporal,
                            bool non_temporal)
{
    VmafFex **inst = alloc_instances(vmaf);
    if (!inst) return -ENOMEM;
    const int err = vmaf_ctx_fill_instances(vmaf, inst, temporal, non_temporal);
    if (err) {
        destroy_instances(inst, vmaf->n_reg);
        return err;
    }
    *out = inst;
    return 0;
}

static bool subsampled_out(const VmafContext *vmaf, unsigned index)
{
    return vmaf->cfg.n_subsample > 1 && index % vmaf->cfg.n_subsample;
}

static bool skip_by_subsample(const VmafContext *vmaf, const Registration *r,
                              unsigned index)
{
    return !is_temporal(r) && subsampled_out(vmaf, index);
}

/* Does frame `index` have work for the GPU pipeline? */
/* Whether any extractor runs on the CPU (reads the pictures' samples there). */
static bool cpu_work(const VmafContext *vmaf)
{
    for (unsigned i = 0; i < vmaf->n_reg; i++)
        if (!vmaf->reg[i].gpu) return true;
    return false;
}

/* A device picture (gpu/dev_picture.h) handed in: the GPU waits for its writes. */
static int handed_over(VmafPicture *pic)
{
    VmafDevPicture *dp = vmaf_picture_device(pic);
    return dp && dp->ops->handed_over ? dp->ops->handed_over(dp) : 0;
}

/*
 * Where an extractor runs on the CPU, a device picture is replaced by its
 * host copy (downloaded here, once); the pipeline holds its own reference
 * to the device picture.
 */
int vmaf_ctx_to_host(VmafPicture *pic)
{
    if (!vmaf_picture_device(pic)) return 0;
    VmafPicture host;
    const int err = vmaf_picture_host(pic, &host);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "a device picture cannot be read back (%d)", err);
        return err;
    }
    vmaf_picture_unref(pic);
    *pic = host;
    return 0;
}

static bool gpu_work(const VmafContext *vmaf, unsigned index)
{
    for (unsigned i = 0; vmaf->gpu && i < vmaf->n_reg; i++)
        if (vmaf->reg[i].gpu && !skip_by_subsample(vmaf, &vmaf->reg[i], index)) return true;
    return false;
}

static int extract_frame(VmafContext *vmaf, VmafFex **inst, const Job *job,
                         bool temporal)
{
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        if (!inst[i] || vmaf->reg[i].gpu || on_caller(&vmaf->reg[i]) != temporal) continue;
        if (job->moved_only && (!vmaf->reg[i].moved || job->index < vmaf->reg[i].cpu_from))
            continue;
        if (skip_by_subsample(vmaf, &vmaf->reg[i], job->index)) continue;
        int err = vmaf_fex_extract(inst[i], &job->ref, &job->dist, job->index);
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s failed on frame %u (%s)",
                     vmaf->reg[i].desc->name, job->index, strerror(-err));
            return err;
        }
    }
    return 0;
}

static void *worker_main(void *arg)
{
    Worker *wk = arg;
    VmafContext *vmaf = wk->vmaf;
    vmaf_log_bind(vmaf->log_id);
    /* Each worker makes its own instances, the workers side by side: their
     * start (buffers allocated, and cleared by the kernel as they are first
     * touched) then takes one instance's time, not one per thread. */
    const int init_err = vmaf_ctx_fill_instances(vmaf, wk->inst, false, true);
    pthread_mutex_lock(&vmaf->lock);
    if (init_err && !vmaf->worker_err) vmaf->worker_err = init_err;
    vmaf->n_ready++;
    pthread_cond_broadcast(&vmaf->cond_idle);
    for (;;) {
        while (!vmaf->q_len && !vmaf->stop) pthread_cond_wait(&vmaf->cond_job, &vmaf->lock);
        if (!vmaf->q_len && vmaf->stop) break;
        Job job = vmaf->queue[vmaf->q_head];
        vmaf->q_head = (vmaf->q_head + 1) % vmaf->q_cap;
        vmaf->q_len--;
        vmaf->busy++;
        wk->working = true;
        wk->index = job.index;
        const bool failed = vmaf->worker_err != 0;
        pthread_cond_signal(&vmaf->cond_space);
        pthread_mutex_unlock(&vmaf->lock);

        /* After a failure the remaining frames are dropped, not computed. */
        int err = failed ? 0 : extract_frame(vmaf, wk->inst, &job, false);
        vmaf_picture_unref(&job.ref);
        vmaf_picture_unref(&job.dist);

        pthread_mutex_lock(&vmaf->lock);
        if (err && !vmaf->worker_err) vmaf->worker_err = err;
        vmaf->busy--;
        wk->working = false;
        if (!vmaf->q_len && !vmaf->busy) pthread_cond_broadcast(&vmaf->cond_idle);
    }
    pthread_mutex_unlock(&vmaf->lock);
    return NULL;
}

static void stop_workers(VmafContext *vmaf)
{
    if (!vmaf->worker) return;
    pthread_mutex_lock(&vmaf->lock);
    vmaf->stop = true;
    pthread_cond_broadcast(&vmaf->cond_job);
    pthread_mutex_unlock(&vmaf->lock);
    for (unsigned i = 0; i < vmaf->n_workers; i++)
        if (vmaf->worker[i].started) pthread_join(vmaf->worker[i].thread, NULL);
    /* Frames still queued after a failure are released here. */
    while (vmaf->q_len) {
        Job *j = &vmaf->queue[vmaf->q_head];
        vmaf_picture_unref(&j->ref);
        vmaf_picture_unref(&j->dist);
        vmaf->q_head = (vmaf->q_head + 1) % vmaf->q_cap;
        vmaf->q_len--;
    }
    for (unsigned i = 0; i < vmaf->n_workers; i++)
        destroy_instances(vmaf->worker[i].inst, vmaf->n_reg);
    free(vmaf->worker);
    vmaf->worker = NULL;
    free(vmaf->queue);
    vmaf->queue = NULL;
}

static bool any_non_temporal(const VmafContext *vmaf)
{
    for (unsigned i = 0; i < vmaf->n_reg; i++)
        if (!on_caller(&vmaf->reg[i]) && !vmaf->reg[i].gpu) return true;
    return false;
}

static int start(VmafContext *vmaf, const VmafPicture *ref)
{
    vmaf->pix_fmt = ref->pix_fmt;
    vmaf->bpc = ref->bpc;
    vmaf->w = ref->w[0];
    vmaf->h = ref->h[0];
    clock_gettime(CLOCK_MONOTONIC, &vmaf->t_start);

    int err = vmaf_ctx_start_gpu(vmaf);
    if (err) return err;
    for (unsigned i = 0; i < vmaf->n_reg; i++)
        vmaf->reg[i].on_caller = is_temporal(&vmaf->reg[i]) && !vmaf->reg[i].gpu;

    const bool threaded = vmaf->cfg.n_threads > 0 && any_non_temporal(vmaf);
    err = create_instances(vmaf, &vmaf->inst, true, !threaded);
    if (!err) err = vmaf_ctx_record_backends(vmaf);
    if (err) return err;
    return threaded ? vmaf_ctx_start_workers(vmaf) : 0;
}

int vmaf_ctx_start_workers(VmafContext *vmaf)
{
    int err;
    vmaf->stop = false;
    vmaf->q_head = vmaf->q_len = vmaf->busy = 0;
    vmaf->n_workers = vmaf->cfg.n_threads;
    /* A frame waiting for each worker: one that finishes finds its next
     * frame there; more would only hold more pictures in memory. */
    vmaf->q_cap = vmaf->n_workers;
    vmaf->queue = calloc(vmaf->q_cap, sizeof(*vmaf->queue));
    vmaf->worker = calloc(vmaf->n_workers, sizeof(*vmaf->worker));
    if (!vmaf->queue || !vmaf->worker) {
        err = -ENOMEM;
        goto fail;
    }
    for (unsigned i = 0; i < vmaf->n_workers; i++) {
        vmaf->worker[i].vmaf = vmaf;
        vmaf->worker[i].inst = alloc_instances(vmaf);
        if (!vmaf->worker[i].inst) {
            err = -ENOMEM;
            goto fail;
        }
    }
    vmaf->n_ready = 0;
    vmaf->worker_err = 0;
    for (unsigned i = 0; i < vmaf->n_workers; i++) {
        if (pthread_create(&vmaf->worker[i].thread, NULL, worker_main, &vmaf->worker[i])) {
            err = -ENOMEM;
            goto fail;
        }
        vmaf->worker[i].started = true;
    }
    /* Every worker's instances made (worker_main) before the first frame. */
    pthread_mutex_lock(&vmaf->lock);
    while (vmaf->n_ready < vmaf->n_workers) pthread_cond_wait(&vmaf->cond_idle, &vmaf->lock);
    err = vmaf->worker_err;
    pthread_mutex_unlock(&vmaf->lock);
    if (!err) return 0;
fail:
    stop_workers(vmaf);
    vmaf->n_workers = 0;
    return err;
}

static int validate(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                    unsigned index)
{
    if (!ref->ref || !dist->ref || !ref->data[0] || !dist->data[0]) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "frame %u: pictures must come from vmaf_picture_alloc()", index);
        return -EINVAL;
    }
    if (ref->pix_fmt != dist->pix_fmt || ref->bpc != dist->bpc ||
        ref->w[0] != dist->w[0] || ref->h[0] != dist->h[0]) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR,
                 "frame %u: reference is %ux%u %u-bit, distorted %ux%u %u-bit: they must match",
                 index, ref->w[0], ref->h[0], ref->bpc, dist->w[0], dist->h[0], dist->bpc);
        return -EINVAL;
    }
    if (vmaf->started && (ref->pix_fmt != vmaf->pix_fmt || ref->bpc != vmaf->bpc ||
                          ref->w[0] != vmaf->w || ref->h[0] != vmaf->h)) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "frame %u: picture format changed mid-stream", index);
        return -EINVAL;
    }
    if ((long long)index <= vmaf->last_index) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "frame index %u after %lld: indices must increase",
                 index, vmaf->last_index);
        return -EINVAL;
    }
    return 0;
}

int vmaf_ctx_workers_idle(VmafContext *vmaf)
{
    if (!vmaf->worker) return 0;
    pthread_mutex_lock(&vmaf->lock);
    while (vmaf->q_len || vmaf->busy) pthread_cond_wait(&vmaf->cond_idle, &vmaf->lock);
    const int err = vmaf->worker_err;
    pthread_mutex_unlock(&vmaf->lock);
    return err;
}

static int flush(VmafContext *vmaf)
{
    int err = 0;
    if (vmaf->gpu) {
        err = vmaf_gpu_drain(vmaf->gpu);
        /* Under backend auto the frames the GPU dropped go to the CPU. */
        if (err && vmaf->failover) err = vmaf_failover_run(vmaf, err, UINT_MAX);
        /* The GPU's work is done: nothing more to hold back. */
        if (!err && vmaf->failover) vmaf_failover_give_up(vmaf);
    }
    if (vmaf->worker) {
        const int werr = vmaf_ctx_workers_idle(vmaf);
        if (!err) err = werr;
        stop_workers(vmaf);
    }
    for (unsigned i = 0; !err && i < vmaf->n_reg; i++) {
        VmafFex *fex = vmaf->reg[i].gpu ? vmaf->gpu_inst[i] :
                       on_caller(&vmaf->reg[i]) && vmaf->inst ? vmaf->inst[i] : NULL;
        if (!fex) continue;
        err = vmaf_fex_flush(fex, VMAF_FEX_CALL_END);
        if (err)
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s failed to flush (%s)",
                     vmaf->reg[i].desc->name, strerror(-err));
    }
    vmaf->flushed = true;
    clock_gettime(CLOCK_MONOTONIC, &vmaf->t_end);
    if (vmaf->pool) {
        /* The pool only grows: what it made is the most pictures held at once. */
        unsigned n;
        size_t bytes;
        vmaf_picture_pool_usage(vmaf->pool, &n, &bytes);
        vmaf_log(VMAF_LOG_LEVEL_INFO, "pictures in memory at most: %u of %.1f MiB (%.1f MiB)",
                 n, bytes / 1048576.0, n * (bytes / 1048576.0));
    }
    return err;
}

static int read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                         unsigned index);

VMAF_EXPORT int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref,
                                   VmafPicture *dist, unsigned index)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    const int err = read_pictures(vmaf, ref, dist, index);
    /* The GPU's errors held back for a failover are the run's now. */
    if (err) vmaf_failover_give_up(vmaf);
    return err;
}

static int read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                         unsigned index)
{
    if (!ref != !dist) return -EINVAL;
    if (!ref) {
        if (vmaf->flushed) return -EINVAL;
        return flush(vmaf);
    }

    /* The library owns the pictures from here on, also on error. The same
     * picture given as both gets a second reference for the second unref. */
    if (ref->ref && ref->ref == dist->ref) vmaf_picture_ref(dist, ref);
    Job job = { .ref = *ref, .dist = *dist, .index = index };
    int err = 0;
    if (vmaf->flushed) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "pictures read after the flush");
        err = -EINVAL;
    }
    if (!err) err = validate(vmaf, ref, dist, index);
    if (!err && !vmaf->started) {
        if (!vmaf->n_reg) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "no feature registered before the first picture");
            err = -EINVAL;
        } else {
            vmaf->started = true;
            err = vmaf->start_err = start(vmaf, &job.ref);
        }
    } else if (!err && vmaf->start_err) {
        err = vmaf->start_err;
    }
    if (err) {
        /* Pictures that did not come from vmaf_picture_alloc() are not ours to free. */
        if (job.ref.ref) {
            vmaf_picture_unref(&job.ref);
            memset(ref, 0, sizeof(*ref));
        }
        if (job.dist.ref) {
            vmaf_picture_unref(&job.dist);
            memset(dist, 0, sizeof(*dist));
        }
        return err;
    }
    memset(ref, 0, sizeof(*ref));
    memset(dist, 0, sizeof(*dist));

    /* The pipeline takes references of its own; an error here is its
     * sticky one (this frame or an earlier one failed on the GPU). */
    const bool dev = vmaf_picture_device(&job.ref) || vmaf_picture_device(&job.dist);
    if (dev) err = handed_over(&job.ref);
    if (!err && dev) err = handed_over(&job.dist);
    if (!err && gpu_work(vmaf, index)) {
        if (vmaf->failover) err = vmaf_failover_keep(vmaf, &job.ref, &job.dist, index);
        if (!err)
            err = vmaf_gpu_submit(vmaf->gpu, &job.ref, &job.dist, index,
                                  !subsampled_out(vmaf, index));
        /* Under backend auto the frames the GPU dropped, before this one, go
         * to the CPU, which then computes this one with the others. */
        if (err && vmaf->failover) err = vmaf_failover_run(vmaf, err, index);
    }
    if (!err && dev && cpu_work(vmaf)) {
        err = vmaf_ctx_to_host(&job.ref);
        if (!err) err = vmaf_ctx_to_host(&job.dist);
    }
    if (err) {
        vmaf_picture_unref(&job.ref);
        vmaf_picture_unref(&job.dist);
        return err;
    }
    vmaf->last_index = index;
    vmaf->pic_cnt++;
    return vmaf_ctx_compute(vmaf, &job);
}

/* The CPU's part of a frame; the job's pictures are released. */
int vmaf_ctx_compute(VmafContext *vmaf, Job *jp)
{
    Job job = *jp;
    int err = extract_frame(vmaf, vmaf->inst, &job, true);
    if (err || !vmaf->worker) {
        if (!err) err = extract_frame(vmaf, vmaf->inst, &job, false);
        vmaf_picture_unref(&job.ref);
        vmaf_picture_unref(&job.dist);
        return err;
    }

    pthread_mutex_lock(&vmaf->lock);
    while (vmaf->q_len == vmaf->q_cap && !vmaf->worker_err)
        pthread_cond_wait(&vmaf->cond_space, &vmaf->lock);
    err = vmaf->worker_err;
    if (!err) {
        vmaf->queue[(vmaf->q_head + vmaf->q_len) % vmaf->q_cap] = job;
        vmaf->q_len++;
        pthread_cond_signal(&vmaf->cond_job);
    }
    pthread_mutex_unlock(&vmaf->lock);
    if (err) {
        vmaf_picture_unref(&job.ref);
        vmaf_picture_unref(&job.dist);
    }
    return err;
}

VMAF_EXPORT int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name,
                                            double *score, unsigned index)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !feature_name || !score) return -EINVAL;
    if (!vmaf_fc_get(vmaf->fc, feature_name, index, score)) return 0;
    /* Accept the short name for a canonical one, and the other way round. */
    for (unsigned i = 0; i < vmaf_fc_count(vmaf->fc); i++) {
        const VmafFeatureVector *v = vmaf_fc_at(vmaf->fc, i);
        if (strcmp(vmaf_feature_alias(v->name), feature_name)) continue;
        return vmaf_fc_get(vmaf->fc, v->name, index, score);
    }
    return -EINVAL;
}

VMAF_EXPORT int vmaf_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !cfg.pic_cnt || vmaf->pool) return -EINVAL;
    int err = vmaf_picture_pool_create(&vmaf->pool, cfg.pic_params.pix_fmt, cfg.pic_params.bpc,
                                       cfg.pic_params.w, cfg.pic_params.h);
    if (err) return err;
    vmaf_ctx_pin_pool(vmaf);
    /* Fill the pool up front: its buffers exist (and are page-locked for a
     * GPU) before the first frame. Their pages come as the frames fill them. */
    VmafPicture *pics = calloc(cfg.pic_cnt, sizeof(*pics));
    if (!pics) return -ENOMEM;
    for (unsigned i = 0; i < cfg.pic_cnt && !err; i++)
        err = vmaf_picture_pool_fetch(vmaf->pool, &pics[i]);
    for (unsigned i = 0; i < cfg.pic_cnt; i++)
        if (pics[i].ref) vmaf_picture_unref(&pics[i]);
    free(pics);
    return err;
}

int vmaf_ctx_preallocate_device(VmafContext *vmaf, enum VmafPixelFormat pix_fmt, unsigned bpc,
                                unsigned w, unsigned h)
{
    if (vmaf->pool || vmaf->dev_pool || vmaf->started) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, vmaf->started ?
                 "device pictures must be preallocated before the first picture" :
                 "pictures were preallocated already");
        return -EINVAL;
    }
    /* In the imported state's context (the caller's, say FFmpeg's), else device 0's. */
    return evc_picture_pool_create(&vmaf->dev_pool, vmaf->cuda, pix_fmt, bpc, w, h);
}

int vmaf_ctx_fetch_preallocated(VmafContext *vmaf, VmafPicture *pic)
{
    if (vmaf->dev_pool) return evc_picture_pool_fetch(vmaf->dev_pool, pic);
    return vmaf_fetch_preallocated_picture(vmaf, pic);
}

VMAF_EXPORT int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf || !pic || !vmaf->pool) return -EINVAL;
    return vmaf_picture_pool_fetch(vmaf->pool, pic);
}

VMAF_EXPORT int vmaf_close(VmafContext *vmaf)
{
    vmaf_ctx_bind_log(vmaf);
    if (!vmaf) return -EINVAL;
    stop_workers(vmaf);
    vmaf_ctx_destroy_gpu(vmaf);
    vmaf_failover_destroy(vmaf);
    destroy_instances(vmaf->inst, vmaf->n_reg);
    for (unsigned i = 0; i < vmaf->n_reg; i++) {
        vmaf_dict_free(&vmaf->reg[i].opts);
        free(vmaf->reg[i].identity);
    }
    free(vmaf->reg);
    evc_state_close(vmaf->cuda);
    vmaf_dict_free(&vmaf->backends);
    vmaf_device_records_free(&vmaf->devices);
    vmaf_ctx_free_gpu_records(vmaf);
    vmaf_fc_destroy(vmaf->fc);
    vmaf_picture_pool_close(vmaf->pool);
    evc_picture_pool_close(vmaf->dev_pool);
    if (vmaf->sync_ok) {
        pthread_cond_destroy(&vmaf->cond_idle);
        pthread_cond_destroy(&vmaf->cond_space);
        pthread_cond_destroy(&vmaf->cond_job);
        pthread_mutex_destroy(&vmaf->lock);
    }
    vmaf_log_unregister(vmaf->log_id);
    vmaf_log_bind(0);
    free(vmaf);
    return 0;
}
