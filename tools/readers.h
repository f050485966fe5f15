/*
 * Reading ahead: each video has a thread that reads its frames into the
 * context's pool pictures, a few frames before the computation reaches
 * them, so that the two files are read in parallel and beside the
 * computation. On the CPU two frames ahead are enough (the context's own
 * queue holds the frames its workers have yet to take), and every frame
 * more is a picture more in memory, whose first filling costs the kernel's
 * clearing of fresh pages; a GPU takes frames in bursts, so a run on one
 * reads up to READ_AHEAD frames ahead (reader_deepen). What a read would
 * print is kept with its frame and printed when the computation reaches
 * that frame, so that the messages (and which ones appear) are those of
 * reading the pairs one after the other.
 */
#ifndef EXACTVMAF_TOOLS_READERS_H
#define EXACTVMAF_TOOLS_READERS_H

#include <pthread.h>
#include <stdbool.h>

#include "cli.h"
#include "libvmaf/libvmaf.h"
#include "video_input.h"

#define READ_AHEAD 8
#define READ_AHEAD_CPU 2

typedef struct ReaderFrame {
    int ret;            /* 1: a frame in pic, 0: the end, <0: an error */
    VmafPicture pic;
    char *messages;     /* what reading it said, or NULL */
} ReaderFrame;

typedef struct Reader {
    VideoInput *vi;
    unsigned bpc, limit;    /* depth of the pictures; frames at most (0: all) */
    unsigned produced;      /* frames read */
    pthread_t thread;
    bool started, finished, stop;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    ReaderFrame q[READ_AHEAD];
    unsigned head, len;
    unsigned depth;         /* frames read ahead at most, up to READ_AHEAD */
    /* EXACTVMAF_TRACE=1: seconds the thread read, the thread waited for room,
     * and the caller waited for a frame. */
    double t_read, t_full, t_next;
} Reader;

/* The context's pool, made when the first frame is known to be whole (a
 * header claiming a giant frame costs nothing before that). The caller
 * initialises and destroys the lock. */
typedef struct ReaderPool {
    VmafContext *vmaf;
    pthread_mutex_t lock;
    bool made;
} ReaderPool;

/*
 * The context's pool holds the pictures the readers fill (page-locked while
 * a GPU computes, so that it copies straight from them); the readers skip
 * the planes no registered feature reads. Starts a thread for each video.
 */
int readers_start(VmafContext *vmaf, ReaderPool *pool, VideoInput *ref, VideoInput *dist,
                  const CliSettings *c, unsigned bpc, Reader rd[2]);

/* Read up to READ_AHEAD frames ahead from now on (a run that went to a GPU). */
void reader_deepen(Reader *r);

/*
 * The next frame, waiting for it: 0, or -EINTR when a stop signal came
 * first. A reader that ended (or was limited) without a last item gives the
 * end of stream. What reading it said is printed now.
 */
int reader_next(Reader *r, ReaderFrame *f);

/*
 * Stop the thread (ending a read it is blocked in) and drop what it read.
 * `cancel` also cuts short a frame it is reading, leaving the input good only
 * for closing; without it a frame under way is read to its end, so that the
 * input stays at a frame boundary (to count what is left). A reader not
 * started is fine.
 */
void reader_stop(Reader *r, bool cancel);

#endif
