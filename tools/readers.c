/* The CLI's reader threads (readers.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "readers.h"
#include "../src/os/os.h"
#include "../src/os/stop_signals.h"
#include "../src/trace.h"

static void *reader_main(void *arg)
{
    Reader *r = arg;
    cli_reader_wakeable();
    while (!r->limit || r->produced < r->limit) {
        double t0 = ev_trace_clock();
        pthread_mutex_lock(&r->lock);
        while (r->len >= r->depth && !r->stop) pthread_cond_wait(&r->cond, &r->lock);
        const bool stop = r->stop;
        pthread_mutex_unlock(&r->lock);
        if (stop) break;
        const double t1 = ev_trace_clock();
        r->t_full += t1 - t0;
        ReaderFrame f = { 0 };
        f.ret = video_input_read(r->vi, &f.pic, r->bpc);
        r->t_read += ev_trace_clock() - t1;
        f.messages = video_input_take_messages(r->vi);
        pthread_mutex_lock(&r->lock);
        if (f.ret == 1) r->produced++;
        r->q[(r->head + r->len) % READ_AHEAD] = f;
        r->len++;
        pthread_cond_broadcast(&r->cond);
        pthread_mutex_unlock(&r->lock);
        if (f.ret <= 0) break;
    }
    pthread_mutex_lock(&r->lock);
    r->finished = true;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static int reader_start(Reader *r, VideoInput *vi, unsigned bpc, unsigned limit)
{
    memset(r, 0, sizeof(*r));
    r->vi = vi;
    r->bpc = bpc;
    r->limit = limit;
    r->depth = READ_AHEAD_CPU;
    vi->defer_messages = true;
    if (pthread_mutex_init(&r->lock, NULL)) return -ENOMEM;
    if (pthread_cond_init(&r->cond, NULL)) {
        pthread_mutex_destroy(&r->lock);
        return -ENOMEM;
    }
    if (pthread_create(&r->thread, NULL, reader_main, r)) {
        pthread_cond_destroy(&r->cond);
        pthread_mutex_destroy(&r->lock);
        return -ENOMEM;
    }
    r->started = true;
    return 0;
}

void reader_deepen(Reader *r)
{
    if (!r->started) return;
    pthread_mutex_lock(&r->lock);
    r->depth = READ_AHEAD;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
}

int reader_next(Reader *r, ReaderFrame *f)
{
    int ret = 0;
    const double t0 = ev_trace_clock();
    pthread_mutex_lock(&r->lock);
    while (!r->len && !r->finished) {
        if (cli_stop_signal) {
            ret = -EINTR;
            break;
        }
        /* Signals do not end a wait: look at the flag now and then. */
        const struct timespec t = vmaf_os_deadline_ms(20);
        pthread_cond_timedwait(&r->cond, &r->lock, &t);
    }
    if (!ret && r->len) {
        *f = r->q[r->head];
        r->head = (r->head + 1) % READ_AHEAD;
        r->len--;
        pthread_cond_broadcast(&r->cond);
    } else if (!ret) {
        *f = (ReaderFrame){ .ret = 0 };
    }
    pthread_mutex_unlock(&r->lock);
    r->t_next += ev_trace_clock() - t0;
    if (!ret && f->messages) {
        fputs(f->messages, stderr);
        free(f->messages);
        f->messages = NULL;
    }
    return ret;
}

void reader_stop(Reader *r, bool cancel)
{
    if (!r->started) return;
    if (cancel) video_input_cancel(r->vi);
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    cli_join_reader(r->thread);
    while (r->len) {
        ReaderFrame *f = &r->q[r->head];
        if (f->ret == 1) vmaf_picture_unref(&f->pic);
        free(f->messages);
        r->head = (r->head + 1) % READ_AHEAD;
        r->len--;
    }
    ev_trace("%s: %u frames read; the reader read %.3f s and waited %.3f s for room, its "
             "caller waited %.3f s", video_input_path(r->vi), r->produced, r->t_read,
             r->t_full, r->t_next);
    r->vi->defer_messages = false;
    free(video_input_take_messages(r->vi));
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->lock);
    r->started = false;
}

/* Pictures for the readers, from the context's pool. */
static int pool_picture(void *arg, VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                        unsigned bpc, unsigned w, unsigned h)
{
    ReaderPool *p = arg;
    int err = 0;
    pthread_mutex_lock(&p->lock);
    if (!p->made) {
        VmafPictureConfiguration pc = { .pic_cnt = 2 };
        pc.pic_params.w = w;
        pc.pic_params.h = h;
        pc.pic_params.bpc = bpc;
        pc.pic_params.pix_fmt = pix_fmt;
        err = vmaf_preallocate_pictures(p->vmaf, pc);
        p->made = !err;
    }
    pthread_mutex_unlock(&p->lock);
    return err ? err : vmaf_fetch_preallocated_picture(p->vmaf, pic);
}

int readers_start(VmafContext *vmaf, ReaderPool *pool, VideoInput *ref, VideoInput *dist,
                  const CliSettings *c, unsigned bpc, Reader rd[2])
{
    unsigned planes = 7;
    int err = exactvmaf_planes_used(vmaf, &planes);
    if (err) return err;
    /* Samples of 9 to 15 bits are checked against the depth as they are
     * read, so every plane is read then; 8 and 16 bits need no check. */
    const VideoInfo *a = video_input_info(ref), *b = video_input_info(dist);
    if ((a->bpc > 8 && a->bpc < 16) || (b->bpc > 8 && b->bpc < 16)) planes = 7;
    pool->vmaf = vmaf;
    VideoInput *vi[2] = { ref, dist };
    /* Made while the stop signals are held: the threads never take them. */
    CliSignalHold old;
    cli_hold_stop_signals(true, &old);
    for (int k = 0; k < 2 && !err; k++) {
        vi[k]->alloc = pool_picture;
        vi[k]->alloc_arg = pool;
        vi[k]->planes = planes;
        err = reader_start(&rd[k], vi[k], bpc, c->frame_cnt);
    }
    cli_hold_stop_signals(false, &old);
    if (err) fprintf(stderr, "exactvmaf: cannot start the reading threads\n");
    return err;
}
