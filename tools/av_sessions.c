/*
 * Several NVDEC sessions on one input (--hwdec-sessions). One decode
 * session keeps one NVDEC engine busy at a time; a GPU has several (seven
 * on an H200). So the file is cut into segments that start at keyframes no
 * later frame reaches back before (closed GOPs, found from the packets'
 * timestamps), and S decoders, each an ordinary FFmpeg reader (av_input.c)
 * of its own in the device's primary context, decode segments side by side
 * on their own threads; the reader hands the frames on in order, segment
 * after segment. Each decoder starts its segment at a keyframe and hands on
 * only that segment's frames, so every frame is the one a single decoder
 * gives (the codecs NVDEC decodes are bit-exact by their standards), and the
 * scores do not change. A decoder goes on to its next segment without a
 * flush (video_input_seek_decoded), and without a seek where the next
 * segment is the one it stands at.
 *
 * Decode-ahead: at most S + 1 segments are decoded or held beyond the one
 * being read, each at most SEG_BYTES / (S + 2) of frames; segments are whole
 * GOPs, so a long GOP makes a longer segment.
 *
 * A session that fails hands its segment to the CPU decoder with
 * --hwdec auto (the frames it gave are decoded again and dropped, one line
 * says so); with --hwdec cuda the run ends naming the file and the frame.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "av_module.h"
#include "session_count.h"
#include "video_input.h"
#include "../src/trace.h"

#include <libavformat/avformat.h>

/* Frames of decode-ahead per input, in bytes of samples (--hwdec-ahead overrides). */
#define SEG_BYTES ((uint64_t)2 << 30)
#define MAX_SESSIONS 16
typedef struct Segment {
    int64_t key_pts, key_dts;   /* where its decoder seeks */
    double start_t, end_t;      /* its frames' timestamps, as the reader computes them */
    unsigned frames;
    unsigned first;             /* its first frame's index in the stream */
    /* Filled by a session: */
    VmafPicture *pic;
    unsigned n_pic, handed;     /* decoded; handed to the reader's caller */
    double *t;
    bool done;
    int err;                    /* at frame n_pic */
    char *messages;
} Segment;

typedef struct Sessions Sessions;

typedef struct Session {
    Sessions *ss;
    VideoInput *vi;             /* its own decoder; NULL once closed */
    /* The segment whose first frame its decoder gives next, read on
     * without a seek (a new decoder's is 0, one that read segment i stands
     * at i + 1); UINT_MAX: none. */
    unsigned at;
    pthread_t thread;
    bool started;
} Session;

struct Sessions {
    VideoDecodeOptions o;
    bool nvdec;                 /* the sessions decode on NVDEC (else the CPU: tests) */
    char *path;
    Session s[MAX_SESSIONS];
    unsigned n;
    Segment *seg;
    unsigned n_seg;
    unsigned next;              /* the next segment to decode */
    unsigned cur, pos;          /* the reader's segment and frame in it */
    unsigned ahead;             /* segments decoded or held beyond cur, at most */
    unsigned out_bpc;
    VideoInput *owner;          /* the reader the CLI sees */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool stop, running;
};

/* Timestamps in seconds exactly as av_input.c computes a frame's. */
static double seconds(int64_t pts, AVRational tb)
{
    return (double)pts * tb.num / tb.den;
}

typedef struct Pkt {
    int64_t pts, dts;
    bool key;
} Pkt;

/* The packets of a file's first video stream (read, not decoded). */
typedef struct Packets {
    const char *path;
    Pkt *p;
    size_t n;
    AVRational tb;
    int err;            /* 1: the file cannot be cut; <0: an error */
    pthread_t thread;
    bool started;
} Packets;

/*
 * The packets of pk->path's first video stream, from containers whose
 * keyframe flags mark random-access points and whose packets are frames
 * (MP4/MOV's sync samples, Matroska's and IVF's keyframes). An MPEG-TS
 * parser also flags recovery points, from which a decoder drops frames:
 * other containers are read by one decoder (err 1), as are streams without
 * timestamps.
 */
static void *read_packets(void *arg)
{
    Packets *pk = arg;
    AVFormatContext *fmt = NULL;
    Pkt *p = NULL;
    size_t n = 0, cap = 0;
    int err = avformat_open_input(&fmt, pk->path, NULL, NULL) < 0 ? -EIO : 0;
    const char *name = err ? "" : fmt->iformat->name;
    if (!err && !strstr(name, "mp4") && !strstr(name, "mov") && !strstr(name, "matroska") &&
        strcmp(name, "ivf"))
        err = 1;
    /* No avformat_find_stream_info(): these containers' headers give the
     * streams and time bases, and it would decode frames on the CPU. */
    const int stream = err ? -1 : av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    AVPacket *pkt = av_packet_alloc();
    if (!err && (stream < 0 || !pkt)) err = -EIO;
    while (!err && av_read_frame(fmt, pkt) >= 0) {
        /* Packets the demuxer marks for discarding (an edit list's) give no frame. */
        if (pkt->stream_index == stream && !(pkt->flags & AV_PKT_FLAG_DISCARD)) {
            if (pkt->pts == AV_NOPTS_VALUE || pkt->dts == AV_NOPTS_VALUE) n = 0, err = 1;
            if (!err && n == cap) {
                cap = cap ? 2 * cap : 1024;
                Pkt *q = realloc(p, cap * sizeof(*q));
                if (!q) err = -ENOMEM;
                else p = q;
            }
            if (!err) p[n++] = (Pkt){ pkt->pts, pkt->dts, (pkt->flags & AV_PKT_FLAG_KEY) != 0 };
        }
        av_packet_unref(pkt);
    }
    av_packet_free(&pkt);
    pk->tb = stream >= 0 ? fmt->streams[stream]->time_base : (AVRational){ 1, 1 };
    avformat_close_input(&fmt);
    pk->p = p;
    pk->n = n;
    pk->err = err;
    return NULL;
}

/* Reading the packets on a thread of its own (read_packets when it cannot start). */
static void read_packets_start(Packets *pk)
{
    pk->started = !video_input_start_thread(&pk->thread, read_packets, pk);
}

/* The packets, read here if no thread read them. */
static void read_packets_end(Packets *pk)
{
    if (pk->started) pthread_join(pk->thread, NULL);
    else read_packets(pk);
    pk->started = false;
}

/* The packets are not wanted: a thread reading them is waited for. */
static void read_packets_drop(Packets *pk)
{
    if (pk->started) pthread_join(pk->thread, NULL);
    pk->started = false;
    free(pk->p);
    pk->p = NULL;
}

/*
 * The segments of the stream whose packets are pk's: cut at keyframes
 * where no packet before has a later timestamp and none after an earlier
 * one, every `target` frames or more. 0 with n_seg < 2 when it cannot be
 * cut (no timestamps, one GOP, a container whose keyframes are not all
 * random-access points). Takes pk's packets.
 */
static int plan(Sessions *ss, Packets *pk, unsigned *sessions_io, uint64_t frame_bytes,
                uint64_t pixels, unsigned engines)
{
    Pkt *p = pk->p;
    const size_t n = pk->n;
    const AVRational tb = pk->tb;
    int err = pk->err;
    pk->p = NULL;
    if (!err && !*sessions_io)
        *sessions_io = session_count(n, pixels, engines, ss->o.side_by_side, MAX_SESSIONS);
    const unsigned sessions = *sessions_io;
    if (err || !n || sessions < 2) {
        free(p);
        return err > 0 ? 0 : err;
    }
    /* Segments of whole GOPs: a few per session over the file, the
     * decode-ahead within SEG_BYTES, at least 24 frames. */
    uint64_t target = n / (4 * (uint64_t)sessions);
    const uint64_t ahead = ss->o.ahead_bytes ? ss->o.ahead_bytes : SEG_BYTES;
    const uint64_t most = ahead / (sessions + 2) / (frame_bytes ? frame_bytes : 1);
    if (target > most) target = most;
    if (target < 24) target = 24;
    int64_t *suffix_min = malloc((n + 1) * sizeof(*suffix_min));
    ss->seg = calloc(n ? n : 1, sizeof(*ss->seg));
    if (!suffix_min || !ss->seg) {
        free(p);
        free(suffix_min);
        return -ENOMEM;
    }
    suffix_min[n] = INT64_MAX;
    for (size_t i = n; i-- > 0;)
        suffix_min[i] = p[i].pts < suffix_min[i + 1] ? p[i].pts : suffix_min[i + 1];
    int64_t prefix_max = INT64_MIN;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        const bool cut = i == n || (i && p[i].key && prefix_max < p[i].pts &&
                                    suffix_min[i] == p[i].pts && i - start >= target);
        if (cut) {
            Segment *s = &ss->seg[ss->n_seg++];
            s->key_pts = p[start].pts;
            s->key_dts = p[start].dts;
            s->start_t = seconds(p[start].pts, tb);
            s->frames = (unsigned)(i - start);
            s->first = (unsigned)start;
            if (ss->n_seg > 1) ss->seg[ss->n_seg - 2].end_t = s->start_t;
            s->end_t = 1e300;
            start = i;
        }
        if (i < n && p[i].pts > prefix_max) prefix_max = p[i].pts;
    }
    /* The first segment starts at the stream's first packet, which must be a keyframe. */
    if (n && !p[0].key) ss->n_seg = 0;
    free(suffix_min);
    free(p);
    return 0;
}

/* m appended to the text *dst (malloc'd or NULL); m stays the caller's. */
static void append_text(char **dst, const char *m)
{
    const size_t a = *dst ? strlen(*dst) : 0, b = strlen(m);
    char *t = realloc(*dst, a + b + 1);
    if (!t) return;
    memcpy(t + a, m, b + 1);
    *dst = t;
}

static void keep_messages(Segment *s, VideoInput *vi)
{
    char *m = video_input_take_messages(vi);
    if (m) append_text(&s->messages, m);
    free(m);
}

/* How the owner's caller set up reading (pictures from its pool, the
 * planes it reads, the stop flag): set after the open, taken at the first read. */
static void take_settings(Sessions *ss, VideoInput *vi)
{
    vi->alloc = ss->owner->alloc;
    vi->alloc_arg = ss->owner->alloc_arg;
    vi->planes = ss->owner->planes;
    vi->interrupted = ss->owner->interrupted;
}

/* A new decoder for session k (the CPU's when `cpu`), its reads set up as the owner's. */
static int open_session(Sessions *ss, unsigned k, bool cpu)
{
    VideoDecodeOptions o = ss->o;
    /* Failures come back here, where the segment is known. */
    o.hwdec = cpu || !ss->nvdec ? VIDEO_HWDEC_NONE : VIDEO_HWDEC_CUDA;
    VideoInput *vi = NULL;
    const int err = avm_open_decoded(&vi, ss->path, &o);
    if (err) return err;
    ev_trace("%s: session %u's decoder open", ss->path, k);
    vi->defer_messages = true;
    pthread_mutex_lock(&ss->lock);
    if (ss->running) take_settings(ss, vi);
    ss->s[k].vi = vi;
    ss->s[k].at = 0;
    const bool stop = ss->stop;
    pthread_mutex_unlock(&ss->lock);
    /* Opened while the reader was being closed: stop_sessions missed it. */
    if (stop) video_input_cancel(vi);
    return 0;
}

/* Decode segment `i` on session k. 0, or the error (kept with the segment). */
static int decode_segment(Sessions *ss, unsigned k, unsigned i)
{
    Segment *s = &ss->seg[i];
    Session *se = &ss->s[k];
    unsigned skip = 0;          /* frames a failed NVDEC session gave already */
    bool cpu = false;
    for (;;) {
        int err = se->at == i ? 0 : avm_seek_decoded(se->vi, s->key_pts, s->key_dts);
        se->at = UINT_MAX;
        unsigned got = 0;
        while (!err && got < s->frames) {
            VmafPicture pic;
            const int r = video_input_read(se->vi, &pic, ss->out_bpc);
            if (r <= 0) {
                if (!r) video_input_error(se->vi, "ends within frames %.3f s to %.3f s, before "
                                          "the segment's last", s->start_t, s->end_t);
                err = r ? r : -EINVAL;
                break;
            }
            const double t = video_input_timestamp(se->vi, se->vi->frame_index - 1);
            /* A demuxer that lands before the keyframe: frames of the segment before. */
            if (t < s->start_t) {
                vmaf_picture_unref(&pic);
                continue;
            }
            /* The segment starts with its keyframe, whose timestamp is its
             * lowest, and has only its own frames: anything else means the
             * cut was not clean (a decoder that dropped frames there). */
            if ((!got && t != s->start_t) || t >= s->end_t) {
                vmaf_picture_unref(&pic);
                video_input_error(se->vi, "frame %u of the stream is not where its segment "
                                  "expects it (%.6f s; the segment is %.6f s to %.6f s): "
                                  "--hwdec-sessions 1 reads this file", s->first + got, t,
                                  s->start_t, s->end_t);
                err = -EINVAL;
                break;
            }
            if (got++ < skip) {
                vmaf_picture_unref(&pic);
                continue;
            }
            pthread_mutex_lock(&ss->lock);
            s->pic[s->n_pic] = pic;
            s->t[s->n_pic++] = t;
            pthread_cond_broadcast(&ss->cond);
            const bool stop = ss->stop;
            pthread_mutex_unlock(&ss->lock);
            if (stop) return -EINTR;
        }
        if (!err) {
            se->at = i + 1;
            return 0;
        }
        /* The reader takes a segment's messages under the lock. */
        pthread_mutex_lock(&ss->lock);
        keep_messages(s, se->vi);
        pthread_mutex_unlock(&ss->lock);
        if (cpu || !ss->nvdec || ss->o.hwdec != VIDEO_HWDEC_AUTO || err == -EINTR) return err;
        /* NVDEC failed in this segment: the CPU decoder does it again, from
         * its keyframe, dropping the frames NVDEC gave. */
        char line[256];
        snprintf(line, sizeof(line), "exactvmaf: %s: decoding frames %u to %u on the CPU (an "
                 "NVDEC session failed at frame %u)\n", ss->path, s->first,
                 s->first + s->frames - 1, s->first + s->n_pic);
        pthread_mutex_lock(&ss->lock);
        free(s->messages);
        s->messages = strdup(line);
        skip = s->n_pic;
        /* stop_sessions cancels se->vi under the lock: swapped under it too. */
        VideoInput *old = se->vi;
        se->vi = NULL;
        const bool stop = ss->stop;
        pthread_mutex_unlock(&ss->lock);
        video_input_close(&old);
        if (stop) return -EINTR;
        cpu = true;
        err = open_session(ss, k, true);
        if (err) return err;
    }
}

static void *session_main(void *arg)
{
    Session *se = arg;
    Sessions *ss = se->ss;
    const unsigned k = (unsigned)(se - ss->s);
    /* A session whose decoder cannot be made takes no segment: the others
     * take them all (session 0's is the probe's, always there). */
    if (!se->vi && open_session(ss, k, false)) return NULL;
    for (;;) {
        pthread_mutex_lock(&ss->lock);
        /* Segments are taken once the owner's first read has set up reading. */
        while (!ss->stop && (!ss->running ||
                             (ss->next < ss->n_seg && ss->next > ss->cur + ss->ahead)))
            pthread_cond_wait(&ss->cond, &ss->lock);
        if (ss->stop || ss->next >= ss->n_seg) {
            /* No segment is left for this session: its decoder is taken
             * down now, while the others finish theirs, instead of with all
             * the others when the run ends (the driver takes tens of
             * milliseconds per NVDEC decoder, one after another, at the
             * process's end). The frames it gave are references of their
             * own. stop_sessions cancels se->vi under the lock: swapped
             * under it. */
            VideoInput *done = ss->stop ? NULL : se->vi;
            if (done) se->vi = NULL;
            pthread_mutex_unlock(&ss->lock);
            video_input_close(&done);
            break;
        }
        const unsigned i = ss->next++;
        pthread_mutex_unlock(&ss->lock);
        ev_trace("%s: session %u decodes segment %u", ss->path, k, i);
        const int err = decode_segment(ss, k, i);
        ev_trace("%s: session %u decoded segment %u", ss->path, k, i);
        pthread_mutex_lock(&ss->lock);
        ss->seg[i].err = err;
        ss->seg[i].done = true;
        pthread_cond_broadcast(&ss->cond);
        pthread_mutex_unlock(&ss->lock);
        if (err) break;
    }
    return NULL;
}

static void stop_sessions(Sessions *ss)
{
    pthread_mutex_lock(&ss->lock);
    ss->stop = true;
    pthread_cond_broadcast(&ss->cond);
    for (unsigned k = 0; k < ss->n; k++)
        if (ss->s[k].vi) video_input_cancel(ss->s[k].vi);
    pthread_mutex_unlock(&ss->lock);
    for (unsigned k = 0; k < ss->n; k++) {
        if (ss->s[k].started) pthread_join(ss->s[k].thread, NULL);
        ss->s[k].started = false;
    }
}

static void sessions_close(VideoInput *vi)
{
    Sessions *ss = vi->priv;
    if (!ss) return;
    stop_sessions(ss);
    for (unsigned k = 0; k < ss->n; k++) video_input_close(&ss->s[k].vi);
    for (unsigned i = 0; i < ss->n_seg; i++) {
        Segment *s = &ss->seg[i];
        for (unsigned j = s->handed; j < s->n_pic; j++) vmaf_picture_unref(&s->pic[j]);
        free(s->pic);
        free(s->t);
        free(s->messages);
    }
    free(ss->seg);
    free(ss->path);
    pthread_cond_destroy(&ss->cond);
    pthread_mutex_destroy(&ss->lock);
    free(ss);
    vi->priv = NULL;
}

/* Messages of the sessions, printed (or kept) as the owner's own. */
static void pass_messages(VideoInput *vi, char *m)
{
    if (!m) return;
    if (vi->defer_messages) append_text(&vi->deferred, m);
    else fputs(m, stderr);
}

static int sessions_read(VideoInput *vi, VmafPicture *pic, unsigned out_bpc)
{
    Sessions *ss = vi->priv;
    pthread_mutex_lock(&ss->lock);
    if (!ss->running) {
        ss->out_bpc = out_bpc;
        ss->running = true;
        for (unsigned k = 0; k < ss->n; k++)
            if (ss->s[k].vi) take_settings(ss, ss->s[k].vi);
        pthread_cond_broadcast(&ss->cond);
    }
    for (;;) {
        if (ss->cur >= ss->n_seg) {
            pthread_mutex_unlock(&ss->lock);
            return 0;
        }
        Segment *s = &ss->seg[ss->cur];
        if (ss->pos < s->n_pic) {
            *pic = s->pic[ss->pos];
            const double t = s->t[ss->pos++];
            s->handed = ss->pos;
            char *m = s->messages;
            s->messages = NULL;
            pthread_mutex_unlock(&ss->lock);
            pass_messages(vi, m);
            free(m);
            video_input_add_timestamp(vi, t);
            return 1;
        }
        if (s->done && s->err) {
            const int err = s->err;
            char *m = s->messages;
            s->messages = NULL;
            pthread_mutex_unlock(&ss->lock);
            pass_messages(vi, m);
            free(m);
            return err;
        }
        if (s->done) {
            ss->cur++;
            ss->pos = 0;
            pthread_cond_broadcast(&ss->cond);
            continue;
        }
        if (atomic_load(&vi->cancelled)) {
            pthread_mutex_unlock(&ss->lock);
            return -EINTR;
        }
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 20 * 1000 * 1000;
        if (t.tv_nsec >= 1000000000) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&ss->cond, &ss->lock, &t);
    }
}

static const VideoInputFormat sessions_format = {
    .name = "decoded in segments",
    .read = sessions_read,
    .close = sessions_close,
};

int avm_open_sessions(VideoInput **out, const char *path, const VideoDecodeOptions *o,
                      unsigned sessions)
{
    /* Only NVDEC's frames as they are, from a file that can be read again,
     * are cut. EXACTVMAF_SESSIONS_ON_CPU=1 cuts CPU-decoded input too: the
     * segments' logic, tested where there is no GPU. */
    const char *env = getenv("EXACTVMAF_SESSIONS_ON_CPU");
    const bool any = env && !strcmp(env, "1");
    const bool cuttable = sessions != 1 && !o->scale_w && !o->convert && !o->raw &&
                          strcmp(path, "-");
    /* The packets are read (for the plan) while the first decoder is made,
     * where NVDEC may decode the file. */
    Packets pk = { .path = path };
    if (cuttable && !any && o->hwdec != VIDEO_HWDEC_NONE && !o->hwdec_off)
        read_packets_start(&pk);
    VideoInput *first = NULL;
    int err = avm_open_decoded(&first, path, o);
    if (err) {
        read_packets_drop(&pk);
        return err;
    }
    *out = first;
    const VideoInfo *in = video_input_info(first);
    const bool nvdec = !strncmp(in->decoder, "NVDEC", 5);
    if (!cuttable || (!nvdec && !any)) {
        read_packets_drop(&pk);
        return 0;
    }
    /* The driver is asked only where the count is to be sized from it. */
    const unsigned engines = nvdec && !sessions ? avm_nvdec_engines(first) : 0;
    if (nvdec && !sessions) ev_trace("%s: %u NVDEC engines take it", path, engines);
    if (sessions > MAX_SESSIONS) sessions = MAX_SESSIONS;
    Sessions *ss = calloc(1, sizeof(*ss));
    if (ss) ss->path = strdup(path);
    if (!ss || !ss->path || pthread_mutex_init(&ss->lock, NULL)) {
        read_packets_drop(&pk);
        if (ss) free(ss->path);
        free(ss);
        return 0;
    }
    ss->o = *o;
    ss->nvdec = nvdec;
    pthread_cond_init(&ss->cond, NULL);
    read_packets_end(&pk);
    err = plan(ss, &pk, &sessions, in->frame_bytes, (uint64_t)in->w * in->h, engines);
    VideoInput *vi = NULL;
    if (!err && ss->n_seg >= 2) err = video_input_create(&vi, path, &sessions_format);
    if (err || ss->n_seg < 2) {
        /* One decoder it stays: the stream could not be cut. */
        free(ss->seg);
        free(ss->path);
        pthread_cond_destroy(&ss->cond);
        pthread_mutex_destroy(&ss->lock);
        free(ss);
        return err == -ENOMEM ? err : 0;
    }
    vi->priv = ss;
    vi->info = *in;
    ss->owner = vi;
    ss->n = sessions < ss->n_seg ? sessions : ss->n_seg;
    ss->ahead = ss->n + 1;
    for (unsigned i = 0; i < ss->n_seg && !err; i++) {
        ss->seg[i].pic = calloc(ss->seg[i].frames, sizeof(VmafPicture));
        ss->seg[i].t = calloc(ss->seg[i].frames + 1, sizeof(double));
        if (!ss->seg[i].pic || !ss->seg[i].t) err = -ENOMEM;
    }
    /* The probe's decoder is session 0's; the others are opened by their
     * threads, side by side (an NVDEC decoder takes tens of milliseconds
     * to make, a run of a few hundred frames not much more). */
    *out = NULL;
    for (unsigned k = 0; k < ss->n; k++) ss->s[k].ss = ss;
    first->defer_messages = true;
    ss->s[0].vi = first;
    ss->s[0].at = 0;
    /* The threads start now, so that the decoders are made while the other
     * input and the library are being set up. Fewer threads take every
     * segment all the same; session 0's is needed, having the probe's decoder. */
    for (unsigned k = 0; k < ss->n && !err; k++) {
        if (pthread_create(&ss->s[k].thread, NULL, session_main, &ss->s[k])) {
            if (!k) {
                video_input_say("%s: cannot start its decoding threads", path);
                err = -ENOMEM;
            }
            break;
        }
        ss->s[k].started = true;
    }
    if (err) {
        video_input_close(&vi);
        return err;
    }
    if (nvdec)
        snprintf(vi->info.decoder, sizeof(vi->info.decoder), "NVDEC on GPU %d, %u sessions, "
                 "%u segments", o->gpu, ss->n, ss->n_seg);
    else
        video_input_say("%s: %u segments on %u CPU decoders", path, ss->n_seg, ss->n);
    *out = vi;
    return 0;
}
