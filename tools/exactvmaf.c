/*
 * exactvmaf: the command-line tool. It runs the same sequence as Netflix's
 * `vmaf` v3.2.0 (load models, register features, read frame pairs, flush,
 * pool each model's scores, write the output), so that its output file is
 * Netflix's, score for score. Unlike Netflix's tool it stops with a
 * non-zero status, and writes no output, when an input cannot be read
 * completely or the two videos differ in length, and it prints the pooled
 * model scores on stdout whether or not stderr is a terminal. On SIGINT,
 * SIGTERM or SIGHUP it stops reading, finishes the frames in flight and
 * writes what it has, marked incomplete (see incomplete.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "exactvmaf/exactvmaf.h"
#include "incomplete.h"
#include "report.h"
#include "libvmaf/libvmaf.h"
#include "video_input.h"

/* The signal that asked us to stop (0: none). */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

/* Sent to a reader thread to end a read it is blocked in; does nothing else. */
#define WAKE_SIGNAL SIGUSR2

static void on_wake_signal(int sig)
{
    (void)sig;
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

/*
 * First signal: finish gracefully. SA_RESETHAND makes a second one fatal
 * at once, for a user who does not want to wait. No SA_RESTART: a read
 * blocked on a pipe returns, so that the stop does not wait for input.
 */
static void install_stop_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
        sigaction(stop_signals[i], &sa, NULL);
    /* No SA_RESTART: a reader's blocked read returns EINTR. */
    sa.sa_handler = on_wake_signal;
    sa.sa_flags = 0;
    sigaction(WAKE_SIGNAL, &sa, NULL);
}

/* Hold the stop signals (they stay pending) or release them. Threads
 * created while they are held never receive them, so that they reach the
 * reading thread. */
static void hold_stop_signals(bool hold, sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
        sigaddset(&set, stop_signals[i]);
    if (hold) pthread_sigmask(SIG_BLOCK, &set, old);
    else pthread_sigmask(SIG_SETMASK, old, NULL);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}

static const char *pix_fmt_name(enum VmafPixelFormat f)
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
 * --hwdec auto decodes on NVDEC only where the metrics run on CUDA, so that
 * the frames stay on the GPU: NULL when they do (--backend cuda, or auto
 * with a usable device, as the library's auto decides), else why not.
 */

static const char *hwdec_off(const CliSettings *c, char *buf, size_t len)
{
    if (c->hwdec != CLI_HWDEC_AUTO) return NULL;
    switch (c->backend) {
    case EXACTVMAF_BACKEND_CUDA: return NULL;
    case EXACTVMAF_BACKEND_CPU: return "the metrics run on the CPU: --backend cpu";
    case EXACTVMAF_BACKEND_OPENCL: return "the metrics run on OpenCL";
    default: break;
    }
    const int gpu = c->n_gpu ? c->gpu[0] : 0;
    char line[256] = "";
    const int err = exactvmaf_device_describe(EXACTVMAF_BACKEND_CUDA, (unsigned)gpu, line,
                                              sizeof(line));
    if (!err) return NULL;
    if (err == -ENODEV && line[0])
        snprintf(buf, len, "the metrics run on the CPU: %s", line);
    else
        snprintf(buf, len, "the metrics run on the CPU: there is no CUDA device %d", gpu);
    return buf;
}

/*
 * y4m and raw YUV are read by their own readers, everything else by FFmpeg's
 * libraries, which also read y4m and raw YUV that must be scaled (scale_w:
 * the size wanted, 0 for none).
 */
static int open_input(VideoInput **vi, const char *path, const CliSettings *c,
                      unsigned scale_w, unsigned scale_h)
{
    int err;
    const bool y4m = !c->use_yuv && for_y4m_reader(path);
    if ((c->use_yuv || y4m) && !scale_w && !c->convert) {
        err = c->use_yuv ?
            video_input_open_yuv(vi, path, c->width, c->height, c->pix_fmt, c->bitdepth) :
            video_input_open_y4m(vi, path);
    } else {
        if (!video_input_can_decode() && !c->use_yuv && !y4m) {
            fprintf(stderr, "exactvmaf: %s is not a y4m file, and this exactvmaf was built "
                    "without FFmpeg's libraries to decode it (or give -w -h -p -b for raw "
                    "YUV)\n", path);
            return -ENOTSUP;
        }
        char off[320];
        const VideoDecodeOptions o = {
            .convert = c->convert, .scale_w = scale_w, .scale_h = scale_h,
            .raw = c->use_yuv, .raw_w = c->width, .raw_h = c->height,
            .raw_bpc = c->bitdepth, .raw_pix_fmt = c->pix_fmt,
            .hwdec = c->hwdec == CLI_HWDEC_CUDA ? VIDEO_HWDEC_CUDA :
                     c->hwdec == CLI_HWDEC_NONE ? VIDEO_HWDEC_NONE : VIDEO_HWDEC_AUTO,
            .gpu = c->n_gpu ? c->gpu[0] : 0,
            .hwdec_off = hwdec_off(c, off, sizeof(off)),
        };
        err = video_input_open_sessions(vi, path, &o,
                                        c->hwdec_sessions);
    }
    /* A read cut short by a stop signal ends the input quietly. */
    if (!err) (*vi)->interrupted = &stop_signal;
    return err;
}

/* Both videos: the distorted one scaled to the reference's size with --scale-to-ref. */
static int open_inputs(VideoInput **ref, VideoInput **dist, const CliSettings *c)
{
    int err = open_input(ref, c->path_ref, c, c->scale_w, c->scale_h);
    if (err) return err;
    unsigned w = c->scale_w, h = c->scale_h;
    if (c->scale_to_ref) {
        w = video_input_info(*ref)->w;
        h = video_input_info(*ref)->h;
    }
    return open_input(dist, c->path_dist, c, w, h);
}

/* The two videos must describe the same pictures. */
static int check_compatible(const VideoInput *ref, const VideoInput *dist, bool common_bitdepth)
{
    const VideoInfo *a = video_input_info(ref), *b = video_input_info(dist);
    int problems = 0;
    if (a->w != b->w || a->h != b->h) {
        fprintf(stderr, "exactvmaf: frame sizes differ: %s is %ux%u, %s is %ux%u\n",
                video_input_path(ref), a->w, a->h, video_input_path(dist), b->w, b->h);
        problems++;
    }
    if (a->pix_fmt != b->pix_fmt) {
        fprintf(stderr, "exactvmaf: chroma formats differ: %s is %s, %s is %s\n",
                video_input_path(ref), pix_fmt_name(a->pix_fmt), video_input_path(dist),
                pix_fmt_name(b->pix_fmt));
        problems++;
    }
    if (a->bpc != b->bpc && !common_bitdepth) {
        fprintf(stderr, "exactvmaf: bit depths differ: %s is %u-bit, %s is %u-bit\n",
                video_input_path(ref), a->bpc, video_input_path(dist), b->bpc);
        problems++;
    }
    /* Where both files say their frame rate, frame n of one is frame n of the other
     * only at the same rate (a 0.1% slack for rates written two ways). */
    if (a->fps_num && b->fps_num) {
        const double fa = (double)a->fps_num / a->fps_den, fb = (double)b->fps_num / b->fps_den;
        if (fa > fb * 1.001 || fb > fa * 1.001) {
            fprintf(stderr, "exactvmaf: frame rates differ: %s is %u/%u fps, %s is %u/%u fps; "
                    "convert one to the other's rate first\n", video_input_path(ref),
                    a->fps_num, a->fps_den, video_input_path(dist), b->fps_num, b->fps_den);
            problems++;
        }
    }
    return problems ? -EINVAL : 0;
}

/* The two lengths differ: say both. A length known only as a lower bound
 * (the rest of a pipe is unknown) reads "at least". */
static void report_lengths(const VideoInput *ref, uint64_t n_ref, bool ref_exact,
                           const VideoInput *dist, uint64_t n_dist, bool dist_exact,
                           const CliSettings *c)
{
    const uint64_t n = n_ref < n_dist ? n_ref : n_dist;
    fprintf(stderr, "exactvmaf: the videos differ in length: %s has %s%llu frame%s, "
            "%s has %s%llu%s; ", video_input_path(ref), ref_exact ? "" : "at least ",
            (unsigned long long)n_ref, n_ref == 1 ? "" : "s", video_input_path(dist),
            dist_exact ? "" : "at least ", (unsigned long long)n_dist,
            c->frame_skip_ref || c->frame_skip_dist ? " (after the skipped frames)" : "");
    if (c->frame_cnt)
        fprintf(stderr, "--frame_cnt %u asks for more than the shorter one has; ",
                c->frame_cnt);
    fprintf(stderr, "give --frame_cnt %llu to compare the first %llu\n",
            (unsigned long long)n, (unsigned long long)n);
}

typedef struct Length {
    VideoInput *vi;
    uint64_t frames;        /* whole frames after the skipped ones */
    bool damaged;           /* something other than a whole frame follows */
} Length;

static int report_damage(const Length *l)
{
    video_input_error(l->vi, "%s", video_input_scan_message(l->vi));
    return -EINVAL;
}

/*
 * Regular files are counted before anything is computed (y4m: FRAME lines
 * only; see video_input_scan): a damaged or truncated frame that the run
 * would reach, or two lengths that differ where --frame_cnt does not stop
 * the run first, is an error now rather than after the computation.
 * Pipes are checked as they are read.
 */
static int check_lengths(VideoInput *ref, VideoInput *dist, const CliSettings *c)
{
    Length l[2] = { { .vi = ref }, { .vi = dist } };
    const unsigned skip[2] = { c->frame_skip_ref, c->frame_skip_dist };
    bool known[2];
    for (int i = 0; i < 2; i++) {
        uint64_t frames;
        const int err = video_input_scan(l[i].vi, &frames, &l[i].damaged);
        known[i] = !err;
        if (err == -ENOTSUP) continue;
        if (err) return err;
        if (frames < skip[i]) {
            if (l[i].damaged) return report_damage(&l[i]);
            fprintf(stderr, "exactvmaf: %s: cannot skip %u frames: it has only %llu\n",
                    video_input_path(l[i].vi), skip[i], (unsigned long long)frames);
            return -EINVAL;
        }
        l[i].frames = frames - skip[i];
    }
    if (!known[0] || !known[1]) {
        /* Against a pipe: a damaged file fails the run wherever the pipe
         * ends (at the damage, or as a length difference before it),
         * unless --frame_cnt stops before it. */
        for (int i = 0; i < 2; i++)
            if (known[i] && l[i].damaged && (!c->frame_cnt || c->frame_cnt > l[i].frames))
                return report_damage(&l[i]);
        return 0;
    }
    const uint64_t n = l[0].frames < l[1].frames ? l[0].frames : l[1].frames;
    if (c->frame_cnt && c->frame_cnt <= n) return 0;
    /* The run reads frame n of the reference, then of the distorted video. */
    if (l[0].frames == n && l[0].damaged) return report_damage(&l[0]);
    if (l[1].frames == n && l[1].damaged) return report_damage(&l[1]);
    if (l[0].frames != l[1].frames) {
        report_lengths(ref, l[0].frames, true, dist, l[1].frames, true, c);
        return -EINVAL;
    }
    return 0;
}

/*
 * Refuse an output path that cannot be written before computing anything:
 * the file itself is created only at the end (see vmaf_write_output), so a
 * probe file is created beside it and removed. A probe, not access(): root
 * passes access() where a read-only file system or /proc still refuses.
 */
static int check_output_path(const char *path)
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
    const int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
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

/* -o naming one of the videos would replace it with scores. */
static int check_not_an_input(const char *out, const char *in, const char *which)
{
    struct stat so, si;
    if (!out || !strcmp(out, "-") || !strcmp(in, "-") || stat(out, &so) || stat(in, &si))
        return 0;
    if (so.st_dev != si.st_dev || so.st_ino != si.st_ino) return 0;
    fprintf(stderr, "exactvmaf: output %s is the %s video %s: it would be replaced\n", out,
            which, in);
    return -EINVAL;
}

static int skip_frames(VideoInput *vi, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (stop_signal) return -EINTR;
        const int ret = video_input_skip(vi);
        if (ret < 0) return ret;
        if (!ret) {
            fprintf(stderr, "exactvmaf: %s: cannot skip %u frames: it has only %u\n",
                    video_input_path(vi), n, i);
            return -EINVAL;
        }
    }
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Progress on a terminal: frames, speed and, when the length is known, ETA. */
typedef struct Progress {
    bool on, shown;
    double t0, last;
    uint64_t total;     /* 0: unknown */
} Progress;

static void progress_start(Progress *p, bool on, VideoInput *ref, VideoInput *dist,
                           const CliSettings *c)
{
    memset(p, 0, sizeof(*p));
    p->on = on;
    p->t0 = p->last = now_s();
    uint64_t fr, fd, partial;
    if (video_input_remaining(ref, &fr, &partial) || video_input_remaining(dist, &fd, &partial))
        return;
    p->total = fr < fd ? fr : fd;
    if (c->frame_cnt && c->frame_cnt < p->total) p->total = c->frame_cnt;
}

static void progress_update(Progress *p, unsigned done, bool force)
{
    if (!p->on) return;
    const double t = now_s();
    if (!force && t - p->last < 0.1) return;
    p->last = t;
    const double fps = t > p->t0 ? done / (t - p->t0) : 0.0;
    fprintf(stderr, "\r%u frame%s  %.2f fps", done, done == 1 ? "" : "s", fps);
    if (p->total && fps > 0 && p->total >= done) {
        const unsigned long eta = (unsigned long)((double)(p->total - done) / fps + 0.5);
        fprintf(stderr, "  %u%%  ETA %lu:%02lu:%02lu",
                (unsigned)(100 * done / p->total), eta / 3600, eta / 60 % 60, eta % 60);
    }
    fputs("\033[K", stderr);
    fflush(stderr);
    p->shown = true;
}

static void progress_end(Progress *p, unsigned done)
{
    if (!p->on || !p->shown) return;
    progress_update(p, done, true);
    fputc('\n', stderr);
}

typedef struct Models {
    VmafModel *model[CLI_MAX_MODELS];
    VmafModelCollection *collection[CLI_MAX_MODELS];
    const char *collection_label[CLI_MAX_MODELS];
    unsigned n_collection;
} Models;

/* Text written on stderr between capture_begin and capture_end is held
 * back, so that a failed first attempt does not confuse the reader. */
typedef struct Capture {
    FILE *tmp;
    int saved_fd;
} Capture;

static bool capture_begin(Capture *cap)
{
    fflush(stderr);
    cap->tmp = tmpfile();
    if (!cap->tmp) return false;
    cap->saved_fd = dup(STDERR_FILENO);
    if (cap->saved_fd < 0 || dup2(fileno(cap->tmp), STDERR_FILENO) < 0) {
        if (cap->saved_fd >= 0) close(cap->saved_fd);
        fclose(cap->tmp);
        return false;
    }
    return true;
}

/* Restore stderr; show the held text when asked. */
static void capture_end(Capture *cap, bool show)
{
    fflush(stderr);
    dup2(cap->saved_fd, STDERR_FILENO);
    close(cap->saved_fd);
    if (show && !fseek(cap->tmp, 0, SEEK_SET)) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), cap->tmp)) > 0) fwrite(buf, 1, n, stderr);
    }
    fclose(cap->tmp);
}

/* A model file holding a bootstrap collection ("0", "1", ... members, no
 * "model_dict"): then only the collection loader can say what is wrong. */
static bool is_collection_file(const char *path)
{
    return exactvmaf_model_file_is_collection(path) == 1;
}

/* Load each --model and register its features, as Netflix's tool does: a
 * name that is not a single model is tried as a bootstrap collection. A
 * file goes straight to the loader its content calls for, so that its
 * errors are that loader's alone. */
static int load_models(VmafContext *vmaf, CliSettings *c, Models *m)
{
    for (unsigned i = 0; i < c->n_model; i++) {
        CliModel *cm = &c->model[i];
        const char *label = cli_model_label(cm);
        const bool path_collection = cm->path && is_collection_file(cm->path);
        int err = -EINVAL;
        if (!path_collection) {
            /* A built-in name may be a collection: hold back the single
             * loader's complaint until the collection loader has tried. */
            Capture cap;
            const bool held = cm->version && capture_begin(&cap);
            err = cm->version ? vmaf_model_load(&m->model[i], &cm->cfg, cm->version) :
                                vmaf_model_load_from_path(&m->model[i], &cm->cfg, cm->path);
            if (held) capture_end(&cap, !err);
            if (err && cm->path) {
                fprintf(stderr, "exactvmaf: cannot load model %s: %s\n", label,
                        strerror(-err));
                return err;
            }
        }
        if (!err) {
            for (unsigned j = 0; j < cm->n_overload; j++) {
                err = vmaf_model_feature_overload(m->model[i], cm->overload[j].feature,
                                                  cm->overload[j].opts);
                if (err) {
                    fprintf(stderr, "exactvmaf: model %s: cannot set %s options: %s\n",
                            label, cm->overload[j].feature, strerror(-err));
                    return err;
                }
                cm->overload[j].opts = NULL;    /* consumed */
            }
            err = vmaf_use_features_from_model(vmaf, m->model[i]);
            if (err) {
                fprintf(stderr, "exactvmaf: model %s: cannot register its features: %s\n",
                        label, strerror(-err));
                return err;
            }
            continue;
        }

        const unsigned k = m->n_collection;
        err = cm->version ?
            vmaf_model_collection_load(&m->model[i], &m->collection[k], &cm->cfg, cm->version) :
            vmaf_model_collection_load_from_path(&m->model[i], &m->collection[k], &cm->cfg,
                                                 cm->path);
        if (err) {
            fprintf(stderr, "exactvmaf: cannot load model %s: %s\n", label, strerror(-err));
            return err;
        }
        m->collection_label[k] = label;
        m->n_collection++;
        for (unsigned j = 0; j < cm->n_overload; j++) {
            err = vmaf_model_collection_feature_overload(m->model[i], &m->collection[k],
                                                         cm->overload[j].feature,
                                                         cm->overload[j].opts);
            if (err) {
                fprintf(stderr, "exactvmaf: model collection %s: cannot set %s options: %s\n",
                        label, cm->overload[j].feature, strerror(-err));
                return err;
            }
            cm->overload[j].opts = NULL;
        }
        err = vmaf_use_features_from_model_collection(vmaf, m->collection[k]);
        if (err) {
            fprintf(stderr, "exactvmaf: model collection %s: cannot register its features: %s\n",
                    label, strerror(-err));
            return err;
        }
    }
    return 0;
}

static void free_models(Models *m, unsigned n_model)
{
    for (unsigned i = 0; i < n_model; i++) vmaf_model_destroy(m->model[i]);
    for (unsigned i = 0; i < m->n_collection; i++)
        vmaf_model_collection_destroy(m->collection[i]);
}

/* Pool every model (this also computes and stores its per-frame scores). */
static int score_models(VmafContext *vmaf, const CliSettings *c, const Models *m,
                        unsigned n_frames, FILE *print, const char *note)
{
    for (unsigned i = 0; i < c->n_model; i++) {
        double score;
        const int err = vmaf_score_pooled(vmaf, m->model[i], VMAF_POOL_METHOD_MEAN, &score,
                                          0, n_frames - 1);
        if (err) {
            fprintf(stderr, "exactvmaf: model %s: scoring failed: %s\n",
                    cli_model_label(&c->model[i]), strerror(-err));
            return err;
        }
        if (print)
            fprintf(print, "VMAF score (%s): %f%s\n", cli_model_label(&c->model[i]), score,
                    note);
    }
    for (unsigned i = 0; i < m->n_collection; i++) {
        VmafModelCollectionScore score = { 0 };
        const int err = vmaf_score_pooled_model_collection(vmaf, m->collection[i],
                                                           VMAF_POOL_METHOD_MEAN, &score,
                                                           0, n_frames - 1);
        if (err) {
            fprintf(stderr, "exactvmaf: model collection %s: scoring failed: %s\n",
                    m->collection_label[i], strerror(-err));
            return err;
        }
        if (print && score.type == VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP)
            fprintf(print, "VMAF score (%s): %f, ci.p95: [%f, %f], stddev: %f%s\n",
                    m->collection_label[i],
                    score.bootstrap.bagging_score, score.bootstrap.ci.p95.lo,
                    score.bootstrap.ci.p95.hi, score.bootstrap.stddev, note);
    }
    return 0;
}

/*
 * Reading ahead: each video has a thread that reads its frames into the
 * context's pool pictures, up to READ_AHEAD frames before the computation
 * reaches them, so that the two files are read in parallel and beside the
 * computation. What a read would print is kept with its frame and printed
 * when the computation reaches that frame, so that the messages (and which
 * ones appear) are those of reading the pairs one after the other.
 */
#define READ_AHEAD 8

typedef struct Frame {
    int ret;            /* 1: a frame in pic, 0: the end, <0: an error */
    VmafPicture pic;
    char *messages;     /* what reading it said, or NULL */
} Frame;

typedef struct Reader {
    VideoInput *vi;
    unsigned bpc, limit;    /* depth of the pictures; frames at most (0: all) */
    unsigned produced;      /* frames read */
    pthread_t thread;
    bool started, finished, stop;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    Frame q[READ_AHEAD];
    unsigned head, len;
} Reader;

/* CLOCK_REALTIME `ms` milliseconds from now, for the timed waits. */
static struct timespec deadline_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += ms * 1000 * 1000;
    if (t.tv_nsec >= 1000000000) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000;
    }
    return t;
}

static void *reader_main(void *arg)
{
    Reader *r = arg;
    /* The stop signals stay blocked (this thread was made while they were
     * held): they are for the main thread. The wake signal ends a read. */
    sigset_t wake;
    sigemptyset(&wake);
    sigaddset(&wake, WAKE_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &wake, NULL);
    while (!r->limit || r->produced < r->limit) {
        pthread_mutex_lock(&r->lock);
        while (r->len == READ_AHEAD && !r->stop) pthread_cond_wait(&r->cond, &r->lock);
        const bool stop = r->stop;
        pthread_mutex_unlock(&r->lock);
        if (stop) break;
        Frame f = { 0 };
        f.ret = video_input_read(r->vi, &f.pic, r->bpc);
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

/*
 * The next frame, waiting for it: 0, or -EINTR when a stop signal came
 * first. A reader that ended (or was limited) without a last item gives the
 * end of stream.
 */
static int reader_next(Reader *r, Frame *f)
{
    int ret = 0;
    pthread_mutex_lock(&r->lock);
    while (!r->len && !r->finished) {
        if (stop_signal) {
            ret = -EINTR;
            break;
        }
        /* Signals do not end a wait: look at the flag now and then. */
        const struct timespec t = deadline_ms(20);
        pthread_cond_timedwait(&r->cond, &r->lock, &t);
    }
    if (!ret && r->len) {
        *f = r->q[r->head];
        r->head = (r->head + 1) % READ_AHEAD;
        r->len--;
        pthread_cond_broadcast(&r->cond);
    } else if (!ret) {
        *f = (Frame){ .ret = 0 };
    }
    pthread_mutex_unlock(&r->lock);
    if (!ret && f->messages) {
        fputs(f->messages, stderr);
        free(f->messages);
        f->messages = NULL;
    }
    return ret;
}

/*
 * Stop the thread (ending a read it is blocked in) and drop what it read.
 * `cancel` also cuts short a frame it is reading, leaving the input good only
 * for closing; without it a frame under way is read to its end, so that the
 * input stays at a frame boundary (to count what is left).
 */
static void reader_stop(Reader *r, bool cancel)
{
    if (!r->started) return;
    if (cancel) video_input_cancel(r->vi);
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    for (;;) {
        const struct timespec t = deadline_ms(50);
        if (!pthread_timedjoin_np(r->thread, NULL, &t)) break;
        pthread_kill(r->thread, WAKE_SIGNAL);
    }
    while (r->len) {
        Frame *f = &r->q[r->head];
        if (f->ret == 1) vmaf_picture_unref(&f->pic);
        free(f->messages);
        r->head = (r->head + 1) % READ_AHEAD;
        r->len--;
    }
    r->vi->defer_messages = false;
    free(video_input_take_messages(r->vi));
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->lock);
    r->started = false;
}

/* The video that ended first is `ended`; how long is the other one? Its
 * reader is stopped first: the scan reads the file. */
static void report_early_end(VideoInput *ended, Reader *other, unsigned index,
                             bool ended_is_ref, const CliSettings *c)
{
    reader_stop(other, false);
    /* `other` has `produced` frames read (index + 1 of them used so far). */
    uint64_t rest = 0, n_other = other->produced;
    bool damaged, exact = !video_input_scan(other->vi, &rest, &damaged);
    if (exact) n_other += rest;
    if (ended_is_ref) report_lengths(ended, index, true, other->vi, n_other, exact, c);
    else report_lengths(other->vi, n_other, exact, ended, index, true, c);
}

/* The context's pool, made when the first frame is known to be whole (a
 * header claiming a giant frame costs nothing before that). */
typedef struct Pool {
    VmafContext *vmaf;
    pthread_mutex_t lock;
    bool made;
} Pool;

/* Pictures for the readers, from the context's pool. */
static int pool_picture(void *arg, VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                        unsigned bpc, unsigned w, unsigned h)
{
    Pool *p = arg;
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

/*
 * Read frame pairs and hand them to the library until both videos end
 * together, or --frame_cnt is reached, or a stop signal comes
 * (*interrupted). Videos of different lengths are an error.
 * Returns the number of pairs handed over in *n_frames.
 */
static int read_frames(VmafContext *vmaf, Reader *ref, Reader *dist,
                       const CliSettings *c, Progress *progress,
                       unsigned *n_frames, bool *interrupted, int *exit_code)
{
    unsigned index;
    *interrupted = false;
    for (index = 0; !c->frame_cnt || index < c->frame_cnt; index++) {
        if (stop_signal) {
            *interrupted = true;
            break;
        }
        Frame fr = { 0 }, fd = { 0 };
        if (reader_next(ref, &fr)) {
            *interrupted = true;
            break;
        }
        const int r = fr.ret;
        int d = 0;
        if (r >= 0) {
            if (reader_next(dist, &fd)) {
                if (r == 1) vmaf_picture_unref(&fr.pic);
                *interrupted = true;
                break;
            }
            d = fd.ret;
        }
        /* A signal during the reads explains what they saw: with a pipeline
         * such as `ffmpeg ... | exactvmaf -r -`, Ctrl-C also stops the
         * producer, and its output ends mid-frame. The pair is dropped. */
        if (stop_signal) {
            if (r == 1) vmaf_picture_unref(&fr.pic);
            if (d == 1) vmaf_picture_unref(&fd.pic);
            *interrupted = true;
            break;
        }
        if (r < 0) goto input_error;
        if (d < 0) {
            if (r) vmaf_picture_unref(&fr.pic);
            goto input_error;
        }
        if (!r || !d) {
            if (!r && !d) break;
            progress_end(progress, index);
            progress->shown = false;
            vmaf_picture_unref(r ? &fr.pic : &fd.pic);
            report_early_end(r ? dist->vi : ref->vi, r ? ref : dist, index, !r, c);
            goto input_error;
        }
        /* Worker threads start with the first pair: they must not take the
         * stop signals, which are for this (reading) thread. */
        sigset_t old;
        if (!index) hold_stop_signals(true, &old);
        const int err = vmaf_read_pictures(vmaf, &fr.pic, &fd.pic, index);
        if (!index) hold_stop_signals(false, &old);
        if (err) {
            progress_end(progress, index);
            fprintf(stderr, "exactvmaf: computing frame %u failed: %s\n", index, strerror(-err));
            *exit_code = CLI_EXIT_COMPUTE;
            return err;
        }
        progress_update(progress, index + 1, index == 0);
    }
    progress_end(progress, index);
    *n_frames = index;
    return 0;

input_error:
    progress_end(progress, index);
    *n_frames = index;
    *exit_code = CLI_EXIT_INPUT;
    return -EINVAL;
}

/*
 * The context's pool holds the pictures the readers fill (page-locked while
 * a GPU computes, so that it copies straight from them); the readers skip
 * the planes no registered feature reads.
 */
static int start_readers(VmafContext *vmaf, Pool *pool, VideoInput *ref, VideoInput *dist,
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
    sigset_t old;
    hold_stop_signals(true, &old);
    for (int k = 0; k < 2 && !err; k++) {
        vi[k]->alloc = pool_picture;
        vi[k]->alloc_arg = pool;
        vi[k]->planes = planes;
        err = reader_start(&rd[k], vi[k], bpc, c->frame_cnt);
    }
    hold_stop_signals(false, &old);
    if (err) fprintf(stderr, "exactvmaf: cannot start the reading threads\n");
    return err;
}

/* "1920x1080 4:2:0 8-bit, h264 yuv420p, decoded by NVDEC on GPU 0, 25 fps" */
static void describe(const VideoInput *vi, char *buf, size_t len)
{
    const VideoInfo *in = video_input_info(vi);
    int n = snprintf(buf, len, "%ux%u %s %u-bit", in->w, in->h, pix_fmt_name(in->pix_fmt),
                     in->bpc);
    if (n > 0 && (size_t)n < len && in->format[0])
        n += snprintf(buf + n, len - (size_t)n, ", %s", in->format);
    if (n > 0 && (size_t)n < len && in->decoder[0])
        n += snprintf(buf + n, len - (size_t)n, ", decoded by %s", in->decoder);
    if (n > 0 && (size_t)n < len && in->fps_num)
        snprintf(buf + n, len - (size_t)n, ", %.6g fps", (double)in->fps_num / in->fps_den);
}

/* The command line, arguments with spaces quoted. */
static char *join_args(char *const argv[])
{
    size_t len = 1;
    for (int i = 0; argv[i]; i++) len += strlen(argv[i]) + 3;
    char *s = malloc(len);
    if (!s) return NULL;
    s[0] = '\0';
    for (int i = 0; argv[i]; i++) {
        const bool q = strpbrk(argv[i], " \t\"'") != NULL;
        if (i) strcat(s, " ");
        if (q) strcat(s, "'");
        strcat(s, argv[i]);
        if (q) strcat(s, "'");
    }
    return s;
}

/* --report and --plot, from what the context holds (report.h). */
static int write_reports(VmafContext *vmaf, const CliSettings *c, const VideoInput *ref,
                         const VideoInput *dist, unsigned n_frames, const char *incomplete,
                         char *const argv[])
{
    char ref_desc[256], dist_desc[256];
    describe(ref, ref_desc, sizeof(ref_desc));
    describe(dist, dist_desc, sizeof(dist_desc));
    const char *models[CLI_MAX_MODELS];
    for (unsigned i = 0; i < c->n_model; i++) models[i] = c->model[i].cfg.name;
    /* Presentation times: the decoder's, or frame number over the y4m rate. */
    const VideoInfo *in = video_input_info(ref);
    double *seconds = malloc((n_frames ? n_frames : 1) * sizeof(double));
    char *command = join_args(argv);
    int err = seconds && command ? 0 : -ENOMEM;
    for (unsigned i = 0; !err && i < n_frames; i++) {
        const double t = video_input_timestamp(ref, i + c->frame_skip_ref);
        seconds[i] = t >= 0 ? t : in->fps_num ?
                     (double)(i + c->frame_skip_ref) * in->fps_den / in->fps_num : -1.0;
    }
    const CliReport r = {
        .ref_path = c->path_ref, .dist_path = c->path_dist, .ref_desc = ref_desc,
        .dist_desc = dist_desc, .n_frames = n_frames, .seconds = seconds, .models = models,
        .n_models = c->no_prediction ? 0 : c->n_model, .command = command,
        .incomplete = incomplete,
    };
    if (!err && c->report_path) err = cli_write_report(vmaf, c->report_path, &r);
    if (!err && c->plot_path) err = cli_write_plot(vmaf, c->plot_path, &r);
    free(seconds);
    free(command);
    return err;
}

/*
 * A run that used the GPU ends here once its outputs are complete: taking
 * down NVDEC's decoders and the CUDA context costs 0.15-0.45 s on an H200
 * (a quarter of a 480-frame 2160p run), which the driver does faster when
 * the process ends. EXACTVMAF_FULL_TEARDOWN=1 frees everything first, for
 * leak checkers.
 */
static void end_gpu_run(VmafContext *vmaf, const VideoInput *ref, const VideoInput *dist,
                        int exit_code)
{
    const char *full = getenv("EXACTVMAF_FULL_TEARDOWN");
    if (full && !strcmp(full, "1")) return;
    bool gpu = !strncmp(video_input_info(ref)->decoder, "NVDEC", 5) ||
               !strncmp(video_input_info(dist)->decoder, "NVDEC", 5);
    const char *extractor, *backend;
    for (unsigned i = 0; !gpu && !exactvmaf_backend_at(vmaf, i, &extractor, &backend); i++)
        gpu = strcmp(backend, "cpu") != 0;
    if (!gpu) return;
    /* Everything written is flushed; a failing stdout is an output error,
     * as at the normal end. */
    if (fflush(stdout) && exit_code == CLI_EXIT_OK) exit_code = CLI_EXIT_OUTPUT;
    fflush(stderr);
    _exit(exit_code);
}

static int run(CliSettings *c, char *const argv[])
{
    int exit_code = CLI_EXIT_INPUT;
    VideoInput *ref = NULL, *dist = NULL;
    VmafContext *vmaf = NULL;
    Models models = { 0 };
    Reader readers[2];
    memset(readers, 0, sizeof(readers));
    Pool pool = { .made = false };
    pthread_mutex_init(&pool.lock, NULL);
    const bool on_tty = isatty(fileno(stderr));

    if (check_output_path(c->output_path) || check_output_path(c->report_path) ||
        check_output_path(c->plot_path) ||
        check_not_an_input(c->output_path, c->path_ref, "reference") ||
        check_not_an_input(c->output_path, c->path_dist, "distorted")) {
        exit_code = CLI_EXIT_OUTPUT;
        goto done;
    }
    if (c->hwdec == CLI_HWDEC_CUDA && !video_input_can_decode()) {
        fprintf(stderr, "exactvmaf: --hwdec cuda: this exactvmaf was built without FFmpeg's "
                "libraries, which decode on NVDEC: it reads y4m and raw YUV only\n");
        goto done;
    }
    if (open_inputs(&ref, &dist, c)) goto done;
    if (check_compatible(ref, dist, c->common_bitdepth)) goto done;
    if (check_lengths(ref, dist, c)) goto done;
    const unsigned bpc_ref = video_input_info(ref)->bpc;
    const unsigned bpc_dist = video_input_info(dist)->bpc;
    const unsigned bpc = bpc_ref > bpc_dist ? bpc_ref : bpc_dist;

    exit_code = CLI_EXIT_COMPUTE;
    const VmafConfiguration cfg = {
        /* Netflix's tool asks for INFO but its library says nothing there;
         * ours would narrate (e.g. the model-collection fallback below). */
        .log_level = VMAF_LOG_LEVEL_WARNING,
        .n_threads = c->threads,
        .n_subsample = c->subsample,
        .cpumask = c->cpumask,
        .gpumask = c->gpumask,
    };
    int err = vmaf_init(&vmaf, cfg);
    if (err) {
        fprintf(stderr, "exactvmaf: cannot create the VMAF context: %s\n", strerror(-err));
        goto done;
    }
    /* Before any feature is registered: extractors read it at creation. */
    err = exactvmaf_set_division(vmaf, c->division);
    if (err) {
        fprintf(stderr, "exactvmaf: --division %s: %s\n",
                c->division == EXACTVMAF_DIVISION_RCP ? "rcp" : "ieee", strerror(-err));
        goto done;
    }
    if (c->precision_set && exactvmaf_set_output_precision(vmaf, c->precision)) goto done;
    /* The library's default is auto, quietly; a backend asked for by name
     * says so when it cannot be had. */
    if (c->backend_set) err = exactvmaf_set_backend(vmaf, c->backend, 0);
    if (!err && c->gpu_set) err = exactvmaf_set_gpus(vmaf, c->gpu, c->n_gpu);
    if (!err && c->opencl_device) err = exactvmaf_set_opencl_device(vmaf, c->opencl_device);
    if (!err && c->opencl_fp64_set) err = exactvmaf_set_opencl_fp64(vmaf, c->opencl_fp64);
    if (!err && c->frames_in_flight)
        err = exactvmaf_set_frames_in_flight(vmaf, c->frames_in_flight);
    if (err) {
        fprintf(stderr, "exactvmaf: --backend/--gpu/--opencl-*/--frames-in-flight: %s\n",
                strerror(-err));
        goto done;
    }

    if (load_models(vmaf, c, &models)) goto done;
    for (unsigned i = 0; i < c->n_feature; i++) {
        err = vmaf_use_feature(vmaf, c->feature[i].name, c->feature[i].opts);
        c->feature[i].opts = NULL;      /* consumed, also on failure */
        if (err) {
            fprintf(stderr, "exactvmaf: cannot use feature extractor %s: %s\n",
                    c->feature[i].name, strerror(-err));
            goto done;
        }
    }

    exit_code = CLI_EXIT_INPUT;
    if (skip_frames(ref, c->frame_skip_ref) || skip_frames(dist, c->frame_skip_dist)) {
        if (stop_signal) exit_code = CLI_EXIT_SIGNAL_BASE + stop_signal;
        goto done;
    }

    Progress progress;
    progress_start(&progress, on_tty && !c->quiet, ref, dist, c);
    unsigned n_frames = 0;
    bool interrupted;
    exit_code = CLI_EXIT_COMPUTE;
    if (start_readers(vmaf, &pool, ref, dist, c, bpc, readers)) goto done;
    exit_code = CLI_EXIT_INPUT;
    const int read_err = read_frames(vmaf, &readers[0], &readers[1], c, &progress, &n_frames,
                                     &interrupted, &exit_code);
    reader_stop(&readers[0], true);
    reader_stop(&readers[1], true);
    if (read_err) {
        /* The frames before a damaged one are scored, marked incomplete;
         * there is no output file. */
        if (exit_code == CLI_EXIT_INPUT && n_frames && !c->no_prediction &&
            !vmaf_read_pictures(vmaf, NULL, NULL, 0)) {
            char note[96];
            snprintf(note, sizeof(note), " [INCOMPLETE: %u frames, stopped by an input error]",
                     n_frames);
            FILE *out = c->output_path && !strcmp(c->output_path, "-") ? stderr : stdout;
            score_models(vmaf, c, &models, n_frames, out, note);
        }
        goto done;
    }
    const int sig = interrupted ? stop_signal : 0;
    char reason[48] = "";
    if (sig) snprintf(reason, sizeof(reason), "interrupted by %s", signal_name(sig));
    if (!n_frames) {
        if (sig) {
            fprintf(stderr, "exactvmaf: %s before the first frame: no scores, no output\n",
                    reason);
            exit_code = CLI_EXIT_SIGNAL_BASE + sig;
        } else if (c->frame_skip_ref || c->frame_skip_dist) {
            fprintf(stderr, "exactvmaf: no frames to compare: %s and %s have none after the "
                    "skipped ones\n", video_input_path(ref), video_input_path(dist));
        } else {
            fprintf(stderr, "exactvmaf: no frames to compare: %s and %s hold none\n",
                    video_input_path(ref), video_input_path(dist));
        }
        goto done;
    }

    exit_code = CLI_EXIT_COMPUTE;
    err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    if (err) {
        fprintf(stderr, "exactvmaf: finishing the computation failed: %s\n", strerror(-err));
        goto done;
    }
    char note[96] = "";
    if (sig) {
        fprintf(stderr, "exactvmaf: %s after %u frame%s: the scores cover those frames "
                "only%s\n", reason, n_frames, n_frames == 1 ? "" : "s",
                c->output_path ? " and the output is marked incomplete" : "");
        snprintf(note, sizeof(note), " [INCOMPLETE: %u frames, %s]", n_frames, reason);
    }
    /* Scores go to stdout unless the output file does; with -q they are
     * printed only when there is no output file to read them from. */
    FILE *score_out = NULL;
    if (!c->quiet || !c->output_path)
        score_out = c->output_path && !strcmp(c->output_path, "-") ? stderr : stdout;
    if (!c->no_prediction && score_models(vmaf, c, &models, n_frames, score_out, note))
        goto done;

    if (c->output_path || c->report_path || c->plot_path) {
        const CliIncomplete inc = { .frames = n_frames, .reason = reason };
        /* Held during the writes: a second signal then ends the process
         * only once the files are complete and in place. */
        sigset_t old;
        hold_stop_signals(true, &old);
        err = c->output_path ? cli_write_output(vmaf, c->output_path, c->output_fmt,
                                                sig ? &inc : NULL) : 0;
        if (!err && (c->report_path || c->plot_path))
            err = write_reports(vmaf, c, ref, dist, n_frames, sig ? reason : NULL, argv);
        hold_stop_signals(false, &old);
        if (err) {
            /* Who failed has said which file and why. */
            exit_code = CLI_EXIT_OUTPUT;
            goto done;
        }
    }
    exit_code = sig ? CLI_EXIT_SIGNAL_BASE + sig : CLI_EXIT_OK;
    if (!sig) end_gpu_run(vmaf, ref, dist, exit_code);

done:
    reader_stop(&readers[0], true);
    reader_stop(&readers[1], true);
    free_models(&models, c->n_model);
    if (vmaf) vmaf_close(vmaf);
    pthread_mutex_destroy(&pool.lock);
    video_input_close(&ref);
    video_input_close(&dist);
    return exit_code;
}

/* --list-devices: every device of every GPU backend, or why a backend has none. */
static int list_devices(void)
{
    static const struct {
        enum ExactvmafBackend backend;
        const char *name;
    } kinds[] = { { EXACTVMAF_BACKEND_CUDA, "cuda" }, { EXACTVMAF_BACKEND_OPENCL, "opencl" } };
    unsigned total = 0;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        char line[512];
        unsigned i = 0;
        int err;
        while (!(err = exactvmaf_device_describe(kinds[k].backend, i, line, sizeof(line)))) {
            printf("%s\n", line);
            i++;
        }
        if (err == -ENODEV) printf("%s: none (%s)\n", kinds[k].name, line);
        else if (!i) printf("%s: none\n", kinds[k].name);
        total += i;
    }
    return total ? CLI_EXIT_OK : CLI_EXIT_COMPUTE;
}

int main(int argc, char *argv[])
{
    CliSettings c;
    const enum CliParseResult parsed = cli_parse(argc, argv, &c);
    int exit_code = parsed == CLI_PARSE_DONE ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (parsed != CLI_PARSE_RUN) goto done;

    if (c.list_devices) {
        exit_code = list_devices();
        goto done;
    }
    if (c.print_fingerprint) {
        const unsigned long long fp = exactvmaf_rcpss_fingerprint();
        if (!fp) {
            fprintf(stderr, "exactvmaf: this processor has no RCPSS instruction (not x86)\n");
            exit_code = CLI_EXIT_COMPUTE;
        } else {
            printf("%016llx %u\n", fp, exactvmaf_rcpss_refined_mismatches());
            exit_code = CLI_EXIT_OK;
        }
        goto done;
    }
    install_stop_handlers();
    exit_code = run(&c, argv);

done:
    cli_free(&c);
    if (fflush(stdout) && exit_code == CLI_EXIT_OK) exit_code = CLI_EXIT_OUTPUT;
    return exit_code;
}
