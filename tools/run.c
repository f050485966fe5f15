/*
 * One run of the tool (cli_run): open the two inputs, load the models,
 * register the features, read the frame pairs, flush, pool each model's
 * scores and write the outputs. Both `exactvmaf` (exactvmaf.c) and
 * `exactvmaf compare` (compare.c, one run per encode) call it, so it stands
 * apart from main(): compare then calls down into it instead of back up into
 * the tool's entry point.
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
#include "frame_pictures.h"
#include "incomplete.h"
#include "inputs.h"
#include "libvmaf/libvmaf.h"
#include "models.h"
#include "readers.h"
#include "report.h"
#include "../src/os/os.h"
#include "../src/os/stop_signals.h"
#include "video_input.h"
#include "../src/trace.h"

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
                video_input_path(ref), cli_pix_fmt_name(a->pix_fmt), video_input_path(dist),
                cli_pix_fmt_name(b->pix_fmt));
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

/* -o naming one of the videos would replace it with scores. */
static int check_not_an_input(const char *out, const char *in, const char *which)
{
    if (!out || !strcmp(out, "-") || !strcmp(in, "-") || !vmaf_os_same_file(out, in)) return 0;
    fprintf(stderr, "exactvmaf: output %s is the %s video %s: it would be replaced\n", out,
            which, in);
    return -EINVAL;
}

static int skip_frames(VideoInput *vi, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (cli_stop_signal) return -EINTR;
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

/* Whether any extractor of the run computes on a GPU (known from the first pair on). */
static bool gpu_computes(VmafContext *vmaf)
{
    const char *extractor, *backend;
    for (unsigned i = 0; !exactvmaf_backend_at(vmaf, i, &extractor, &backend); i++)
        if (strcmp(backend, "cpu")) return true;
    return false;
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
    double t_library = 0;       /* EXACTVMAF_TRACE=1: seconds in vmaf_read_pictures() */
    *interrupted = false;
    for (index = 0; !c->frame_cnt || index < c->frame_cnt; index++) {
        if (cli_stop_signal) {
            *interrupted = true;
            break;
        }
        ReaderFrame fr = { 0 }, fd = { 0 };
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
        if (cli_stop_signal) {
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
        CliSignalHold old;
        if (!index) cli_hold_stop_signals(true, &old);
        if (!index) ev_trace("first pair read");
        const double t0 = ev_trace_clock();
        const int err = vmaf_read_pictures(vmaf, &fr.pic, &fd.pic, index);
        t_library += ev_trace_clock() - t0;
        if (!index) cli_hold_stop_signals(false, &old);
        if (!index) ev_trace("first pair handed to the library");
        if (!index && !err && gpu_computes(vmaf)) {
            reader_deepen(ref);
            reader_deepen(dist);
        }
        if (err) {
            progress_end(progress, index);
            fprintf(stderr, "exactvmaf: computing frame %u failed: %s\n", index, strerror(-err));
            *exit_code = CLI_EXIT_COMPUTE;
            return err;
        }
        progress_update(progress, index + 1, index == 0);
    }
    progress_end(progress, index);
    ev_trace("%u pairs: %.3f s handing them to the library", index, t_library);
    *n_frames = index;
    return 0;

input_error:
    progress_end(progress, index);
    *n_frames = index;
    *exit_code = CLI_EXIT_INPUT;
    return -EINVAL;
}
/* "1920x1080 4:2:0 8-bit, h264 yuv420p, decoded by NVDEC on GPU 0, 25 fps" */
static void describe(const VideoInput *vi, char *buf, size_t len)
{
    const VideoInfo *in = video_input_info(vi);
    int n = snprintf(buf, len, "%ux%u %s %u-bit", in->w, in->h, cli_pix_fmt_name(in->pix_fmt),
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

/*
 * The report's pictures: the worst frames of the first model and
 * --report-frame, read again from the inputs (frame_pictures.h). Only what
 * cannot be had (a pipe, a frame past the end) is left out, saying why.
 */
static int report_pictures(VmafContext *vmaf, const CliSettings *c, CliReport *r,
                           FramePictures *pics)
{
    unsigned frames[REPORT_WORST_PICTURES + 1];
    unsigned n = report_worst_frames(vmaf, r->models[0], r->n_frames, frames,
                                     REPORT_WORST_PICTURES);
    static char note[160];
    r->pictures_note = NULL;
    if (c->report_frame_set) {
        bool listed = false;
        for (unsigned k = 0; k < n; k++) listed |= frames[k] == c->report_frame;
        if (c->report_frame >= r->n_frames) {
            snprintf(note, sizeof(note), "--report-frame %u: there are %u scored frames.",
                     c->report_frame, r->n_frames);
            r->pictures_note = note;
        } else if (!listed) {
            frames[n++] = c->report_frame;
        }
    }
    /* Read in frame order; shown in the order chosen. */
    unsigned sorted[REPORT_WORST_PICTURES + 1];
    memcpy(sorted, frames, n * sizeof(unsigned));
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j && sorted[j - 1] > sorted[j]; j--) {
            const unsigned t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    FramePictures read[REPORT_WORST_PICTURES + 1];
    const int err = frame_pictures_make(c, sorted, n, read);
    if (err == -ENOTSUP) {
        r->pictures_note = "No pictures: an input is a pipe, which cannot be read twice.";
        return 0;
    }
    if (err == -ENOMEM) return err;
    if (err) {
        r->pictures_note = "No pictures: reading the videos again failed.";
        return 0;
    }
    for (unsigned k = 0; k < n; k++)
        for (unsigned j = 0; j < n; j++)
            if (read[j].frame == frames[k]) pics[k] = read[j];
    r->pictures = pics;
    r->n_pictures = n;
    return 0;
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
    CliReport r = {
        .ref_path = c->path_ref, .dist_path = c->path_dist, .ref_desc = ref_desc,
        .dist_desc = dist_desc, .n_frames = n_frames, .seconds = seconds, .models = models,
        .n_models = c->no_prediction ? 0 : c->n_model, .command = command,
        .incomplete = incomplete,
    };
    FramePictures pics[REPORT_WORST_PICTURES + 1];
    if (!err && c->report_path && r.n_models)
        err = report_pictures(vmaf, c, &r, pics);
    if (!err && c->report_path) err = cli_write_report(vmaf, c->report_path, &r);
    if (!err && c->plot_path) err = cli_write_plot(vmaf, c->plot_path, &r);
    frame_pictures_free(pics, r.n_pictures);
    free(seconds);
    free(command);
    return err;
}

/*
 * A run that used the GPU ends here once its outputs are complete: taking
 * down the NVDEC decoders still open (a decode session closes its own once
 * no segment is left for it) and the CUDA context costs 0.12-0.45 s on an
 * H200 (up to a quarter of a 480-frame 2160p run), which the driver does
 * faster when the process ends. EXACTVMAF_FULL_TEARDOWN=1 frees everything
 * first, for leak checkers.
 */
static void end_gpu_run(VmafContext *vmaf, const VideoInput *ref, const VideoInput *dist,
                        int exit_code)
{
    const char *full = getenv("EXACTVMAF_FULL_TEARDOWN");
    if (full && !strcmp(full, "1")) return;
    const bool gpu = !strncmp(video_input_info(ref)->decoder, "NVDEC", 5) ||
                     !strncmp(video_input_info(dist)->decoder, "NVDEC", 5) ||
                     gpu_computes(vmaf);
    if (!gpu) return;
    /* Everything written is flushed; a failing stdout is an output error,
     * as at the normal end. */
    if (fflush(stdout) && exit_code == CLI_EXIT_OK) exit_code = CLI_EXIT_OUTPUT;
    fflush(stderr);
    _exit(exit_code);
}

int cli_run(CliSettings *c, char *const argv[], CliRunScores *scores)
{
    int exit_code = CLI_EXIT_INPUT;
    VideoInput *ref = NULL, *dist = NULL;
    VmafContext *vmaf = NULL;
    Models models = { 0 };
    Reader readers[2];
    memset(readers, 0, sizeof(readers));
    ReaderPool pool = { .made = false };
    pthread_mutex_init(&pool.lock, NULL);
    const bool on_tty = isatty(fileno(stderr));

    if (cli_check_output_path(c->output_path) || cli_check_output_path(c->report_path) ||
        cli_check_output_path(c->plot_path) ||
        check_not_an_input(c->output_path, c->path_ref, "reference") ||
        check_not_an_input(c->output_path, c->path_dist, "distorted")) {
        exit_code = CLI_EXIT_OUTPUT;
        goto done;
    }
    if (c->hwdec == CLI_HWDEC_CUDA && !video_input_can_decode()) {
        fprintf(stderr, "exactvmaf: --hwdec cuda: NVDEC decodes through FFmpeg's libraries, "
                "and %s: it reads y4m and raw YUV only\n", video_input_no_decoding());
        goto done;
    }
    ev_trace("run starts");
    if (cli_open_inputs(&ref, &dist, c)) goto done;
    ev_trace("inputs open");
    if (check_compatible(ref, dist, c->common_bitdepth)) goto done;
    if (check_lengths(ref, dist, c)) goto done;
    const unsigned bpc_ref = video_input_info(ref)->bpc;
    const unsigned bpc_dist = video_input_info(dist)->bpc;
    const unsigned bpc = bpc_ref > bpc_dist ? bpc_ref : bpc_dist;

    exit_code = CLI_EXIT_COMPUTE;
    const VmafConfiguration cfg = {
        /* Netflix's tool asks for INFO but its library says nothing there;
         * ours would narrate (e.g. the model-collection fallback below). */
        .log_level = c->log_level,
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

    ev_trace("models and metrics registered");
    exit_code = CLI_EXIT_INPUT;
    if (skip_frames(ref, c->frame_skip_ref) || skip_frames(dist, c->frame_skip_dist)) {
        if (cli_stop_signal) exit_code = CLI_EXIT_SIGNAL_BASE + cli_stop_signal;
        goto done;
    }

    Progress progress;
    progress_start(&progress, on_tty && !c->quiet, ref, dist, c);
    unsigned n_frames = 0;
    bool interrupted;
    exit_code = CLI_EXIT_COMPUTE;
    if (readers_start(vmaf, &pool, ref, dist, c, bpc, readers)) goto done;
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
    const int sig = interrupted ? cli_stop_signal : 0;
    char reason[48] = "";
    if (sig) snprintf(reason, sizeof(reason), "interrupted by %s", cli_signal_name(sig));
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

    ev_trace("%u pairs handed to the library", n_frames);
    exit_code = CLI_EXIT_COMPUTE;
    err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    ev_trace("scores complete");
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
    if (!scores && (!c->quiet || !c->output_path))
        score_out = c->output_path && !strcmp(c->output_path, "-") ? stderr : stdout;
    if (!c->no_prediction && score_models(vmaf, c, &models, n_frames, score_out, note))
        goto done;
    if (scores) {
        const char *name = c->n_model ? c->model[0].cfg.name : NULL;
        scores->n_frames = n_frames;
        scores->fps_num = video_input_info(dist)->fps_num;
        scores->fps_den = video_input_info(dist)->fps_den;
        if (!name || vmaf_feature_score_pooled(vmaf, name, VMAF_POOL_METHOD_MEAN, &scores->mean,
                                               0, n_frames - 1) ||
            vmaf_feature_score_pooled(vmaf, name, VMAF_POOL_METHOD_HARMONIC_MEAN,
                                      &scores->harmonic_mean, 0, n_frames - 1)) {
            fprintf(stderr, "exactvmaf: %s: no model score to compare\n", c->path_dist);
            goto done;
        }
    }

    if (c->output_path || c->report_path || c->plot_path) {
        const CliIncomplete inc = { .frames = n_frames, .reason = reason };
        /* Held during the writes: a second signal then ends the process
         * only once the files are complete and in place. */
        CliSignalHold old;
        cli_hold_stop_signals(true, &old);
        err = c->output_path ? cli_write_output(vmaf, c->output_path, c->output_fmt,
                                                sig ? &inc : NULL) : 0;
        if (!err && (c->report_path || c->plot_path))
            err = write_reports(vmaf, c, ref, dist, n_frames, sig ? reason : NULL, argv);
        cli_hold_stop_signals(false, &old);
        if (err) {
            /* Who failed has said which file and why. */
            exit_code = CLI_EXIT_OUTPUT;
            goto done;
        }
    }
    ev_trace("outputs written");
    exit_code = sig ? CLI_EXIT_SIGNAL_BASE + sig : CLI_EXIT_OK;
    if (!sig && !scores) end_gpu_run(vmaf, ref, dist, exit_code);

done:
    reader_stop(&readers[0], true);
    reader_stop(&readers[1], true);
    free_models(&models, c->n_model);
    if (vmaf) vmaf_close(vmaf);
    pthread_mutex_destroy(&pool.lock);
    video_input_close(&ref);
    video_input_close(&dist);
    video_input_warm_end();
    return exit_code;
}
