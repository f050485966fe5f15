/*
 * The CPU's frame scheduler (scheduler.h): slots, instance sets, the
 * worker threads and their two queues, one of frames (the non-temporal
 * metrics, a frame whole on one worker) and one of the chain's frames (the
 * temporal metrics, one frame at a time in index order on any worker).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fex_internal.h"
#include "log.h"
#include "picture_internal.h"
#include "scheduler.h"

typedef struct Slot {
    const VmafFeatureExtractor *desc;
    const VmafDict *opts;
    unsigned from;      /* first frame a catch-up frame computes */
    bool on;            /* computed on the CPU */
    bool late;          /* added after the first start (a failover): catch-up frames compute it */
} Slot;

/* A frame handed in: one part in each queue that has metrics for it. */
typedef struct Frame {
    VmafPicture ref, dist;
    unsigned index;
    bool catch_up;      /* a frame the GPU dropped: only the late slots compute it */
    unsigned parts;     /* parts queued or computing (under the lock); at 0 it goes */
} Frame;

typedef struct Queue {
    Frame **f;
    unsigned cap, head, len;
} Queue;

typedef struct Worker {
    VmafScheduler *s;
    VmafFex **inst;     /* one per slot: the non-temporal metrics' */
    pthread_t thread;
    bool started;
    bool working;       /* on frame `index` (under the lock) */
    unsigned index;
} Worker;

struct VmafScheduler {
    VmafSchedConfig cfg;
    Slot *slot;
    /* The chain: with workers the temporal metrics' instances, without
     * every metric's (on the calling thread). */
    VmafFex **chain;
    bool started;

    Worker *worker;
    unsigned n_workers;
    Queue frames, chain_q;
    bool chain_busy;    /* a worker runs the chain (under the lock) */
    unsigned busy;      /* workers computing */
    unsigned n_ready;   /* workers whose instances are made (or failed) */
    bool stop;
    int err;            /* the workers' first error, sticky */
    pthread_mutex_t lock;
    pthread_cond_t cond_job, cond_space, cond_idle;
};

static bool is_temporal(const Slot *sl)
{
    return sl->desc->flags & VMAF_FEX_TEMPORAL;
}

static bool threaded(const VmafScheduler *s)
{
    return s->cfg.n_threads > 0;
}

/* Whether slot i has its instance in the chain (else one per worker). */
static bool in_chain(const VmafScheduler *s, unsigned i)
{
    return s->slot[i].on && (is_temporal(&s->slot[i]) || !threaded(s));
}

static bool in_workers(const VmafScheduler *s, unsigned i)
{
    return s->slot[i].on && !in_chain(s, i);
}

static VmafFex **alloc_set(const VmafScheduler *s)
{
    return calloc(s->cfg.n_slots ? s->cfg.n_slots : 1, sizeof(VmafFex *));
}

static void destroy_set(VmafFex **set, unsigned n)
{
    if (!set) return;
    for (unsigned i = 0; i < n; i++) vmaf_fex_destroy(set[i]);
    free(set);
}

/* The chain's (or a worker's) empty slots filled; the instances before
 * one in its set may lead a shared pass. */
static int fill_set(VmafScheduler *s, VmafFex **set, bool chain)
{
    const VmafSchedConfig *c = &s->cfg;
    for (unsigned i = 0; i < c->n_slots; i++) {
        if (set[i] || !(chain ? in_chain(s, i) : in_workers(s, i))) continue;
        const Slot *sl = &s->slot[i];
        const VmafFexEnv env = { .division = c->division, .siblings = set, .n_siblings = i };
        int err = vmaf_fex_create(&set[i], sl->desc, sl->opts, &env, c->fc, i);
        if (err) return err;
        err = vmaf_fex_init(set[i], c->pix_fmt, c->bpc, c->w, c->h);
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s: cannot start on %ux%u %u-bit pictures (%s)",
                     sl->desc->name, c->w, c->h, c->bpc, strerror(-err));
            return err;
        }
    }
    return 0;
}

int vmaf_sched_create(VmafScheduler **out, const VmafSchedConfig *cfg)
{
    VmafScheduler *s = calloc(1, sizeof(*s));
    if (!s) return -ENOMEM;
    s->cfg = *cfg;
    s->slot = calloc(cfg->n_slots ? cfg->n_slots : 1, sizeof(*s->slot));
    s->chain = alloc_set(s);
    if (!s->slot || !s->chain) goto fail;
    if (pthread_mutex_init(&s->lock, NULL)) goto fail;
    if (pthread_cond_init(&s->cond_job, NULL)) goto fail_mutex;
    if (pthread_cond_init(&s->cond_space, NULL)) goto fail_cj;
    if (pthread_cond_init(&s->cond_idle, NULL)) goto fail_cs;
    *out = s;
    return 0;
fail_cs:
    pthread_cond_destroy(&s->cond_space);
fail_cj:
    pthread_cond_destroy(&s->cond_job);
fail_mutex:
    pthread_mutex_destroy(&s->lock);
fail:
    free(s->chain);
    free(s->slot);
    free(s);
    return -ENOMEM;
}

int vmaf_sched_add(VmafScheduler *s, unsigned slot, const VmafFeatureExtractor *desc,
                   const VmafDict *opts, unsigned from, VmafFex *fex)
{
    /* An instance taken over carries a temporal metric's state: the chain's. */
    const bool chain = (desc->flags & VMAF_FEX_TEMPORAL) || !threaded(s);
    if (slot >= s->cfg.n_slots || s->slot[slot].on || (fex && !chain)) {
        vmaf_fex_destroy(fex);
        return -EINVAL;
    }
    s->slot[slot] = (Slot){ .desc = desc, .opts = opts, .from = from, .on = true,
                            .late = s->started };
    s->chain[slot] = fex;
    return 0;
}

bool vmaf_sched_any(const VmafScheduler *s)
{
    for (unsigned i = 0; s && i < s->cfg.n_slots; i++)
        if (s->slot[i].on) return true;
    return false;
}

/* Whether a queue of this kind has a metric to compute. */
static bool any_in(const VmafScheduler *s, bool chain)
{
    for (unsigned i = 0; i < s->cfg.n_slots; i++)
        if (chain ? in_chain(s, i) : in_workers(s, i)) return true;
    return false;
}

static bool skipped(const VmafScheduler *s, const Slot *sl, const Frame *f)
{
    if (f->catch_up && (!sl->late || f->index < sl->from)) return true;
    /* A temporal metric sees every frame, subsampled or not. */
    return !is_temporal(sl) && s->cfg.n_subsample > 1 && f->index % s->cfg.n_subsample;
}

/* The instances of `set` that are `temporal` (or not) compute frame f. */
static int compute(VmafScheduler *s, VmafFex **set, const Frame *f, bool temporal)
{
    for (unsigned i = 0; i < s->cfg.n_slots; i++) {
        const Slot *sl = &s->slot[i];
        if (!set[i] || is_temporal(sl) != temporal || skipped(s, sl, f)) continue;
        const int err = vmaf_fex_extract(set[i], &f->ref, &f->dist, f->index);
        if (err) {
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s failed on frame %u (%s)", sl->desc->name,
                     f->index, strerror(-err));
            return err;
        }
    }
    return 0;
}

static void release_pictures(Frame *f)
{
    vmaf_picture_unref(&f->ref);
    vmaf_picture_unref(&f->dist);
}

static void frame_free(Frame *f)
{
    release_pictures(f);
    free(f);
}

static void queue_push(Queue *q, Frame *f)
{
    q->f[(q->head + q->len) % q->cap] = f;
    q->len++;
}

static Frame *queue_pop(Queue *q)
{
    Frame *f = q->f[q->head];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    return f;
}

/* Under the lock: a part a free worker may take now. */
static bool has_work(const VmafScheduler *s)
{
    return s->frames.len || (s->chain_q.len && !s->chain_busy);
}

/*
 * Under the lock: take the next part, the chain's first, and compute it
 * with the lock released meanwhile. wk NULL: the calling thread, which
 * takes only the chain's parts (it has no instances of its own).
 */
static void run_part(VmafScheduler *s, Worker *wk)
{
    const bool chain = s->chain_q.len && !s->chain_busy;
    Frame *f = queue_pop(chain ? &s->chain_q : &s->frames);
    if (chain) s->chain_busy = true;
    s->busy++;
    if (wk) {
        wk->working = true;
        wk->index = f->index;
    }
    const bool failed = s->err != 0;
    pthread_cond_signal(&s->cond_space);
    pthread_mutex_unlock(&s->lock);

    /* After a failure the remaining frames are dropped, not computed. */
    const int err = failed ? 0 : compute(s, chain ? s->chain : wk->inst, f, chain);

    pthread_mutex_lock(&s->lock);
    if (err && !s->err) s->err = err;
    /* The frame's last part releases its pictures (out of the lock). */
    if (!--f->parts) {
        pthread_mutex_unlock(&s->lock);
        frame_free(f);
        pthread_mutex_lock(&s->lock);
    }
    if (chain) {
        s->chain_busy = false;
        /* The chain's next frame, for whichever thread is free. */
        if (s->chain_q.len) pthread_cond_broadcast(&s->cond_job);
    }
    s->busy--;
    if (wk) wk->working = false;
    if (!s->frames.len && !s->chain_q.len && !s->busy) pthread_cond_broadcast(&s->cond_idle);
}

/* Under the lock: the chain's next part is free for the calling thread to compute. */
static bool chain_ready(const VmafScheduler *s)
{
    return s->chain_q.len && !s->chain_busy;
}

static void *worker_main(void *arg)
{
    Worker *wk = arg;
    VmafScheduler *s = wk->s;
    vmaf_log_bind(s->cfg.log_id);
    /* Each worker makes its own instances, the workers side by side: their
     * start (buffers allocated, and cleared by the kernel as they are first
     * touched) then takes one instance's time, not one per thread. */
    const int init_err = fill_set(s, wk->inst, false);
    pthread_mutex_lock(&s->lock);
    if (init_err && !s->err) s->err = init_err;
    s->n_ready++;
    pthread_cond_broadcast(&s->cond_idle);
    for (;;) {
        while (!has_work(s) && !s->stop) pthread_cond_wait(&s->cond_job, &s->lock);
        if (!has_work(s)) break;
        run_part(s, wk);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* A queue gone, with the parts it held (the workers are stopped). */
static void queue_free(Queue *q)
{
    while (q->len) {
        Frame *f = queue_pop(q);
        if (!--f->parts) frame_free(f);
    }
    free(q->f);
    *q = (Queue){ 0 };
}

static void stop_workers(VmafScheduler *s)
{
    if (!s->worker) return;
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    pthread_cond_broadcast(&s->cond_job);
    pthread_mutex_unlock(&s->lock);
    for (unsigned i = 0; i < s->n_workers; i++)
        if (s->worker[i].started) pthread_join(s->worker[i].thread, NULL);
    /* Frames still queued after a failure are released here. */
    queue_free(&s->frames);
    queue_free(&s->chain_q);
    for (unsigned i = 0; i < s->n_workers; i++) destroy_set(s->worker[i].inst, s->cfg.n_slots);
    free(s->worker);
    s->worker = NULL;
    s->n_workers = 0;
}

static int start_workers(VmafScheduler *s)
{
    int err;
    const unsigned n = s->cfg.n_threads;
    s->stop = false;
    s->busy = 0;
    s->chain_busy = false;
    /* A frame waiting for each worker: one that finishes finds its next
     * frame there; more would only hold more pictures in memory. */
    s->frames = (Queue){ .f = calloc(n, sizeof(Frame *)), .cap = n };
    s->chain_q = (Queue){ .f = calloc(n, sizeof(Frame *)), .cap = n };
    s->worker = calloc(n, sizeof(*s->worker));
    s->n_workers = n;
    if (!s->frames.f || !s->chain_q.f || !s->worker) {
        err = -ENOMEM;
        goto fail;
    }
    for (unsigned i = 0; i < n; i++) {
        s->worker[i].s = s;
        s->worker[i].inst = alloc_set(s);
        if (!s->worker[i].inst) {
            err = -ENOMEM;
            goto fail;
        }
    }
    s->n_ready = 0;
    s->err = 0;
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&s->worker[i].thread, NULL, worker_main, &s->worker[i])) {
            err = -ENOMEM;
            goto fail;
        }
        s->worker[i].started = true;
    }
    /* Every worker's instances made (worker_main) before the first frame. */
    pthread_mutex_lock(&s->lock);
    while (s->n_ready < n) pthread_cond_wait(&s->cond_idle, &s->lock);
    err = s->err;
    pthread_mutex_unlock(&s->lock);
    if (!err) return 0;
fail:
    if (s->worker) {
        stop_workers(s);
        return err;
    }
    /* Nothing was queued yet. */
    free(s->frames.f);
    free(s->chain_q.f);
    s->frames = s->chain_q = (Queue){ 0 };
    s->n_workers = 0;
    return err;
}

int vmaf_sched_start(VmafScheduler *s)
{
    s->started = true;
    int err = fill_set(s, s->chain, true);
    if (err || !threaded(s) || !vmaf_sched_any(s)) return err;
    if (!s->worker) return start_workers(s);
    /* Mid-run the workers are idle (vmaf_sched_idle): their sets grow in place. */
    for (unsigned w = 0; w < s->n_workers && !err; w++)
        err = fill_set(s, s->worker[w].inst, false);
    return err;
}

/* To the workers' queues; the frame is theirs from here (also on error). */
static int enqueue(VmafScheduler *s, Frame *f)
{
    const bool to_chain = any_in(s, true), to_frames = any_in(s, false);
    pthread_mutex_lock(&s->lock);
    /* While there is no room, the calling thread computes the chain's next
     * frame rather than wait: its core is not left idle. */
    while (((to_frames && s->frames.len == s->frames.cap) ||
            (to_chain && s->chain_q.len == s->chain_q.cap)) && !s->err) {
        if (chain_ready(s)) run_part(s, NULL);
        else pthread_cond_wait(&s->cond_space, &s->lock);
    }
    const int err = s->err;
    if (!err) {
        if (to_chain) queue_push(&s->chain_q, f);
        if (to_frames) queue_push(&s->frames, f);
        f->parts = to_chain + to_frames;
        pthread_cond_broadcast(&s->cond_job);
    }
    const bool done = !f->parts;
    pthread_mutex_unlock(&s->lock);
    if (done) frame_free(f);
    return err;
}

/* The pictures are taken over. */
static int submit(VmafScheduler *s, VmafPicture *ref, VmafPicture *dist, unsigned index,
                  bool catch_up)
{
    Frame fr = { .ref = *ref, .dist = *dist, .index = index, .catch_up = catch_up };
    memset(ref, 0, sizeof(*ref));
    memset(dist, 0, sizeof(*dist));
    int err;
    if (!s->worker) {
        /* The calling thread: the temporal metrics, then the others. */
        err = compute(s, s->chain, &fr, true);
        if (!err) err = compute(s, s->chain, &fr, false);
        release_pictures(&fr);
        return err;
    }
    Frame *f = malloc(sizeof(*f));
    if (!f) {
        release_pictures(&fr);
        return -ENOMEM;
    }
    *f = fr;
    return enqueue(s, f);
}

int vmaf_sched_frame(VmafScheduler *s, VmafPicture *ref, VmafPicture *dist, unsigned index)
{
    return submit(s, ref, dist, index, false);
}

int vmaf_sched_catch_up(VmafScheduler *s, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    VmafPicture r = { 0 }, d = { 0 };
    int err = vmaf_picture_ref(&r, ref);
    if (!err) err = vmaf_picture_ref(&d, dist);
    if (!err) return submit(s, &r, &d, index, true);
    if (r.ref) vmaf_picture_unref(&r);
    return err;
}

int vmaf_sched_idle(VmafScheduler *s)
{
    if (!s || !s->worker) return 0;
    pthread_mutex_lock(&s->lock);
    while (s->frames.len || s->chain_q.len || s->busy) {
        if (chain_ready(s)) run_part(s, NULL);
        else pthread_cond_wait(&s->cond_idle, &s->lock);
    }
    const int err = s->err;
    pthread_mutex_unlock(&s->lock);
    return err;
}

int vmaf_sched_finish(VmafScheduler *s)
{
    if (!s) return 0;
    int err = vmaf_sched_idle(s);
    stop_workers(s);
    /* What the temporal metrics held back, written (after every frame). */
    for (unsigned i = 0; !err && i < s->cfg.n_slots; i++) {
        VmafFex *fex = vmaf_sched_temporal(s, i);
        if (!fex) continue;
        err = vmaf_fex_flush(fex, VMAF_FEX_CALL_END);
        if (err)
            vmaf_log(VMAF_LOG_LEVEL_ERROR, "%s failed to flush (%s)", s->slot[i].desc->name,
                     strerror(-err));
    }
    return err;
}

VmafFex *vmaf_sched_temporal(VmafScheduler *s, unsigned slot)
{
    if (!s || slot >= s->cfg.n_slots || !s->slot[slot].on || !is_temporal(&s->slot[slot]))
        return NULL;
    return s->chain[slot];
}

static unsigned min_u(unsigned a, unsigned b)
{
    return a < b ? a : b;
}

int vmaf_sched_pending(VmafScheduler *s, unsigned *lowest)
{
    unsigned lo = UINT_MAX;
    if (!s || !s->worker) {
        *lowest = lo;
        return 0;
    }
    pthread_mutex_lock(&s->lock);
    if (s->frames.len) lo = s->frames.f[s->frames.head]->index;
    if (s->chain_q.len) lo = min_u(lo, s->chain_q.f[s->chain_q.head]->index);
    for (unsigned i = 0; i < s->n_workers; i++)
        if (s->worker[i].working) lo = min_u(lo, s->worker[i].index);
    const int err = s->err;
    pthread_mutex_unlock(&s->lock);
    *lowest = lo;
    return err;
}

void vmaf_sched_destroy(VmafScheduler *s)
{
    if (!s) return;
    stop_workers(s);
    destroy_set(s->chain, s->cfg.n_slots);
    free(s->slot);
    pthread_cond_destroy(&s->cond_idle);
    pthread_cond_destroy(&s->cond_space);
    pthread_cond_destroy(&s->cond_job);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
