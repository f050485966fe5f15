/*
 * Opening the CLI's two videos (y4m and raw YUV by their readers, the rest
 * through FFmpeg's libraries, NVDEC where --hwdec says) and checking an
 * output path before anything is computed; shared by a run, by compare and
 * by the report's frame pictures, which read the inputs again.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/os/os.h"
#include "inputs.h"
#include "../src/os/stop_signals.h"

const char *cli_pix_fmt_name(enum VmafPixelFormat f)
{
    switch (f) {
    case VMAF_PIX_FMT_YUV420P: return "4:2:0";
    case VMAF_PIX_FMT_YUV422P: return "4:2:2";
    case VMAF_PIX_FMT_YUV444P: return "4:4:4";
    case VMAF_PIX_FMT_YUV400P: return "4:0:0";
    default: return "unknown";
    }
}

/*
 * The y4m reader takes stdin, pipes and FIFOs (read once, never sniffed),
 * files named .y4m or .yuv (its messages fit them best, even when damaged)
 * and files that start with y4m's magic; FFmpeg's libraries the rest.
 */
static bool for_y4m_reader(const char *path)
{
    if (!strcmp(path, "-")) return true;
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode)) return true;
    const char *dot = strrchr(path, '.');
    if (dot && (!strcasecmp(dot, ".y4m") || !strcasecmp(dot, ".yuv"))) return true;
    FILE *f = fopen(path, "rb");
    if (!f) return true;    /* the y4m reader says why it cannot be opened */
    char magic[9];
    const bool y4m = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
                     !memcmp(magic, "YUV4MPEG2", sizeof(magic));
    fclose(f);
    /* An empty or tiny file: the y4m reader's message fits it best. */
    return y4m || st.st_size < (off_t)sizeof(magic);
}

/*
 * Where compressed video is decoded: the one decision of a run. NVDEC when
 * the metrics run on CUDA, so that the frames stay on the GPU: --backend
 * cuda, or auto (the default) where the library's auto resolves to CUDA,
 * asked of the library without opening the device (FFmpeg's CUDA device
 * must be the first to make the device's context: it wants scheduling
 * flags of its own). Elsewhere the frames would only be copied back.
 */
typedef struct DecodePlan {
    const char *off;            /* --hwdec auto without NVDEC: why; NULL: NVDEC */
    bool quiet;                 /* `off` is no news: no driver or GPU at all */
    char buf[320];
} DecodePlan;

static void decode_plan(const CliSettings *c, DecodePlan *p)
{
    memset(p, 0, sizeof(*p));
    if (c->hwdec != CLI_HWDEC_AUTO) return;
    const int gpu = c->n_gpu ? c->gpu[0] : 0;
    char why[256] = "";
    const int backend = exactvmaf_backend_resolve(c->backend, gpu, why, sizeof(why));
    if (backend == EXACTVMAF_BACKEND_CUDA) return;
    p->off = p->buf;
    if (backend == EXACTVMAF_BACKEND_OPENCL) {
        snprintf(p->buf, sizeof(p->buf), "the metrics run on OpenCL");
    } else if (c->backend == EXACTVMAF_BACKEND_CPU) {
        snprintf(p->buf, sizeof(p->buf), "the metrics run on the CPU: --backend cpu");
    } else {
        /* The library's auto found no driver or device: the CPU is simply
         * the way here, said at --log-level info only, as the library says it. */
        snprintf(p->buf, sizeof(p->buf), "the metrics run on the CPU: %s", why);
        p->quiet = c->log_level < VMAF_LOG_LEVEL_INFO;
    }
}

/*
 * y4m and raw YUV are read by their own readers, everything else by FFmpeg's
 * libraries, which also read y4m and raw YUV that must be scaled (scale_w:
 * the size wanted, 0 for none).
 */
static int open_input(VideoInput **vi, const char *path, const CliSettings *c,
                      const DecodePlan *plan, unsigned scale_w, unsigned scale_h)
{
    int err;
    const bool y4m = !c->use_yuv && for_y4m_reader(path);
    if ((c->use_yuv || y4m) && !scale_w && !c->convert) {
        err = c->use_yuv ?
            video_input_open_yuv(vi, path, c->width, c->height, c->pix_fmt, c->bitdepth) :
            video_input_open_y4m(vi, path);
    } else {
        if (!video_input_can_decode() && !c->use_yuv && !y4m) {
            video_input_say("%s is not a y4m file and cannot be decoded: %s (or give -w -h -p "
                            "-b for raw YUV)", path, video_input_no_decoding());
            return -ENOTSUP;
        }
        const VideoDecodeOptions o = {
            .convert = c->convert, .scale_w = scale_w, .scale_h = scale_h,
            .raw = c->use_yuv, .raw_w = c->width, .raw_h = c->height,
            .raw_bpc = c->bitdepth, .raw_pix_fmt = c->pix_fmt,
            .hwdec = c->hwdec == CLI_HWDEC_CUDA ? VIDEO_HWDEC_CUDA :
                     c->hwdec == CLI_HWDEC_NONE ? VIDEO_HWDEC_NONE : VIDEO_HWDEC_AUTO,
            .gpu = c->n_gpu ? c->gpu[0] : 0,
            .hwdec_off = plan->off,
            .hwdec_off_quiet = plan->quiet,
            .ahead_bytes = (uint64_t)c->hwdec_ahead_mib << 20,
            /* The two inputs share the engines; scaling to the reference's
             * size reads one of them through the CPU's scaler, uncut. */
            .side_by_side = 2,
        };
        err = video_input_open_sessions(vi, path, &o,
                                        c->hwdec_sessions);
    }
    /* A read cut short by a stop signal ends the input quietly. */
    if (!err) (*vi)->interrupted = &cli_stop_signal;
    return err;
}

typedef struct Opening {
    const CliSettings *c;
    const DecodePlan *plan;
    VideoInput *vi;
    char *messages;
    int err;
} Opening;

static void *open_dist_main(void *arg)
{
    Opening *o = arg;
    video_input_capture(&o->messages);
    o->err = open_input(&o->vi, o->c->path_dist, o->c, o->plan, o->c->scale_w,
                        o->c->scale_h);
    video_input_capture(NULL);
    return NULL;
}

/*
 * Both videos: the distorted one scaled to the reference's size with
 * --scale-to-ref. Otherwise the two are opened side by side (an NVDEC
 * decoder takes about 0.1 s to make and decode its first frame); the
 * distorted one's messages come after the reference's, as when opened in
 * turn, and not at all when the reference fails.
 */
int cli_open_inputs(VideoInput **ref, VideoInput **dist, const CliSettings *c)
{
    *ref = *dist = NULL;
    const bool decoded = !c->use_yuv && (c->scale_w || c->convert ||
                                         !for_y4m_reader(c->path_ref) ||
                                         !for_y4m_reader(c->path_dist));
    /* NVDEC's CUDA device is made on a thread of its own from here on (the
     * driver's start-up, a fifth of a second) wherever NVDEC may decode,
     * while the library's answer and the files' headers are read: the
     * answer opens no device, so FFmpeg's is still the first. */
    const bool may_nvdec = c->hwdec == CLI_HWDEC_CUDA ||
                           (c->hwdec == CLI_HWDEC_AUTO && (c->backend == EXACTVMAF_BACKEND_CUDA ||
                                                          c->backend == EXACTVMAF_BACKEND_AUTO));
    if (decoded && may_nvdec && video_input_can_decode())
        video_input_warm_gpu(c->n_gpu ? c->gpu[0] : 0);
    DecodePlan plan;
    if (decoded) decode_plan(c, &plan);
    else memset(&plan, 0, sizeof(plan));
    Opening o = { .c = c, .plan = &plan };
    pthread_t t;
    const bool side_by_side = !c->scale_to_ref && strcmp(c->path_ref, "-") &&
                              strcmp(c->path_dist, "-");
    const bool started = side_by_side && !video_input_start_thread(&t, open_dist_main, &o);
    int err = open_input(ref, c->path_ref, c, &plan, c->scale_w, c->scale_h);
    if (started) {
        pthread_join(t, NULL);
        if (!err && o.messages) fputs(o.messages, stderr);
        free(o.messages);
        *dist = o.vi;
        if (err) video_input_close(dist);
        return err ? err : o.err;
    }
    if (err) return err;
    unsigned w = c->scale_w, h = c->scale_h;
    if (c->scale_to_ref) {
        w = video_input_info(*ref)->w;
        h = video_input_info(*ref)->h;
    }
    return open_input(dist, c->path_dist, c, &plan, w, h);
}

/*
 * Refuse an output path that cannot be written before computing anything:
 * the file itself is created only at the end (see vmaf_write_output), so a
 * probe file is created beside it and removed. A probe, not access(): root
 * passes access() where a read-only file system or /proc still refuses.
 */
int cli_check_output_path(const char *path)
{
    if (!path || !strcmp(path, "-")) return 0;
    struct stat st;
    if (!stat(path, &st)) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "exactvmaf: cannot write output %s: it is a directory\n", path);
            return -EISDIR;
        }
        if (!S_ISREG(st.st_mode)) {
            /* A device or pipe is written in place. */
            if (access(path, W_OK)) goto fail;
            return 0;
        }
    }
    const size_t sz = strlen(path) + 48;
    char *probe = malloc(sz);
    if (!probe) return -ENOMEM;
    snprintf(probe, sz, "%s.%ld.probe", path, (long)getpid());
    const int fd = vmaf_os_open_new(probe, 0600);
    const int e = errno;
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    free(probe);
    if (fd >= 0) return 0;
    errno = e;
fail:;
    const int err = errno;
    char *copy = strdup(path);
    const char *dir = copy ? dirname(copy) : ".";
    if (err == ENOENT && stat(dir, &st))
        fprintf(stderr, "exactvmaf: cannot write output %s: the folder %s does not exist\n",
                path, dir);
    else
        fprintf(stderr, "exactvmaf: cannot write output %s: %s\n", path, strerror(err));
    free(copy);
    return -err;
}

