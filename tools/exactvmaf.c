/*
 * exactvmaf: the command-line tool. It runs the same sequence as Netflix's
 * `vmaf` v3.2.0 (load models, register features, read frame pairs, flush,
 * pool each model's scores, write the output), so that its output file is
 * Netflix's, score for score. Unlike Netflix's tool it stops with a
 * non-zero status, and writes no output, when an input cannot be read
 * completely, and it prints the pooled model scores on stdout whether or
 * not stderr is a terminal.
 */
#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "exactvmaf/exactvmaf.h"
#include "libvmaf/libvmaf.h"
#include "video_input.h"

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

static int open_input(VideoInput **vi, const char *path, const CliSettings *c)
{
    if (c->use_yuv)
        return video_input_open_yuv(vi, path, c->width, c->height, c->pix_fmt, c->bitdepth);
    return video_input_open_y4m(vi, path);
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
    return problems ? -EINVAL : 0;
}

/*
 * Raw YUV files of known size: report a trailing partial frame before
 * computing anything, when the run would reach it (the frame loop reads
 * the reference first, then the distorted video).
 */
static int check_whole_frames(VideoInput *ref, VideoInput *dist, const CliSettings *c)
{
    uint64_t fr, pr, fd, pd;
    if (!c->use_yuv || video_input_remaining(ref, &fr, &pr) ||
        video_input_remaining(dist, &fd, &pd))
        return 0;
    const uint64_t avail_r = fr > c->frame_skip_ref ? fr - c->frame_skip_ref : 0;
    const uint64_t avail_d = fd > c->frame_skip_dist ? fd - c->frame_skip_dist : 0;
    const uint64_t n = avail_r < avail_d ? avail_r : avail_d;
    if (c->frame_cnt && c->frame_cnt <= n) return 0;
    /* Frame n is attempted in both files, the reference first. */
    const VideoInput *bad = NULL;
    uint64_t whole = 0, partial = 0;
    if (n == avail_r && pr) bad = ref, whole = fr, partial = pr;
    else if (n == avail_d && pd) bad = dist, whole = fd, partial = pd;
    if (!bad) return 0;
    fprintf(stderr, "exactvmaf: %s: %llu bytes is %llu whole frames of %llu bytes plus a "
            "partial frame of %llu bytes (check -w, -h, -p and -b)\n",
            video_input_path(bad),
            (unsigned long long)(whole * video_input_info(bad)->frame_bytes + partial),
            (unsigned long long)whole,
            (unsigned long long)video_input_info(bad)->frame_bytes,
            (unsigned long long)partial);
    return -EINVAL;
}

/*
 * Refuse an output path that cannot be written before computing anything:
 * the file itself is created only at the end (see vmaf_write_output).
 */
static int check_output_path(const char *path)
{
    if (!path || !strcmp(path, "-")) return 0;
    struct stat st;
    if (!stat(path, &st)) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "exactvmaf: output %s is a directory\n", path);
            return -EISDIR;
        }
        if (!S_ISREG(st.st_mode)) {
            /* A device or pipe is written in place. */
            if (access(path, W_OK)) goto fail;
            return 0;
        }
    }
    char *copy = strdup(path);
    if (!copy) return -ENOMEM;
    const int err = access(dirname(copy), W_OK | X_OK);
    free(copy);
    if (!err) return 0;
fail:;
    const int e = errno;
    fprintf(stderr, "exactvmaf: cannot write output %s: %s\n", path, strerror(e));
    return -e;
}

static int skip_frames(VideoInput *vi, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
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

/* Load each --model and register its features, as Netflix's tool does: a
 * name that is not a single model is tried as a bootstrap collection. */
static int load_models(VmafContext *vmaf, CliSettings *c, Models *m)
{
    for (unsigned i = 0; i < c->n_model; i++) {
        CliModel *cm = &c->model[i];
        const char *label = cli_model_label(cm);
        int err = cm->version ? vmaf_model_load(&m->model[i], &cm->cfg, cm->version) :
                                vmaf_model_load_from_path(&m->model[i], &cm->cfg, cm->path);
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
                        unsigned n_frames, FILE *print)
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
        if (print) fprintf(print, "VMAF score (%s): %f\n", cli_model_label(&c->model[i]), score);
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
            fprintf(print, "VMAF score (%s): %f, ci.p95: [%f, %f], stddev: %f\n",
                    m->collection_label[i],
                    score.bootstrap.bagging_score, score.bootstrap.ci.p95.lo,
                    score.bootstrap.ci.p95.hi, score.bootstrap.stddev);
    }
    return 0;
}

/*
 * Read frame pairs and hand them to the library. Returns the number of
 * pairs read in *n_frames; stops when either video ends (saying so when
 * the other one goes on), or at --frame_cnt.
 */
static int read_frames(VmafContext *vmaf, VideoInput *ref, VideoInput *dist,
                       const CliSettings *c, unsigned bpc, Progress *progress,
                       unsigned *n_frames, int *exit_code)
{
    unsigned index;
    for (index = 0; !c->frame_cnt || index < c->frame_cnt; index++) {
        VmafPicture pic_ref, pic_dist;
        const int r = video_input_read(ref, &pic_ref, bpc);
        if (r < 0) goto input_error;
        const int d = video_input_read(dist, &pic_dist, bpc);
        if (d < 0) {
            if (r) vmaf_picture_unref(&pic_ref);
            goto input_error;
        }
        if (!r || !d) {
            if (r || d) {
                progress_end(progress, index);
                progress->shown = false;
                fprintf(stderr, "exactvmaf: \"%s\" ended before \"%s\" (after %u frames)\n",
                        video_input_path(r ? dist : ref), video_input_path(r ? ref : dist),
                        index);
                vmaf_picture_unref(r ? &pic_ref : &pic_dist);
            }
            break;
        }
        const int err = vmaf_read_pictures(vmaf, &pic_ref, &pic_dist, index);
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
    *exit_code = CLI_EXIT_INPUT;
    return -EINVAL;
}

static int run(CliSettings *c)
{
    int exit_code = CLI_EXIT_INPUT;
    VideoInput *ref = NULL, *dist = NULL;
    VmafContext *vmaf = NULL;
    Models models = { 0 };
    const bool on_tty = isatty(fileno(stderr));

    if (check_output_path(c->output_path)) {
        exit_code = CLI_EXIT_OUTPUT;
        goto done;
    }
    if (open_input(&ref, c->path_ref, c) || open_input(&dist, c->path_dist, c)) goto done;
    if (check_compatible(ref, dist, c->common_bitdepth)) goto done;
    if (check_whole_frames(ref, dist, c)) goto done;
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
    if (skip_frames(ref, c->frame_skip_ref) || skip_frames(dist, c->frame_skip_dist)) goto done;

    Progress progress;
    progress_start(&progress, on_tty && !c->quiet, ref, dist, c);
    unsigned n_frames = 0;
    if (read_frames(vmaf, ref, dist, c, bpc, &progress, &n_frames, &exit_code)) goto done;
    if (!n_frames) {
        fprintf(stderr, "exactvmaf: no frames to compare\n");
        exit_code = CLI_EXIT_INPUT;
        goto done;
    }

    exit_code = CLI_EXIT_COMPUTE;
    err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    if (err) {
        fprintf(stderr, "exactvmaf: finishing the computation failed: %s\n", strerror(-err));
        goto done;
    }
    /* Scores go to stdout unless the output file does; with -q they are
     * printed only when there is no output file to read them from. */
    FILE *score_out = NULL;
    if (!c->quiet || !c->output_path)
        score_out = c->output_path && !strcmp(c->output_path, "-") ? stderr : stdout;
    if (!c->no_prediction && score_models(vmaf, c, &models, n_frames, score_out))
        goto done;

    if (c->output_path) {
        err = vmaf_write_output(vmaf, c->output_path, c->output_fmt);
        if (err) {
            /* The library has said which file and why. */
            exit_code = CLI_EXIT_OUTPUT;
            goto done;
        }
    }
    exit_code = CLI_EXIT_OK;

done:
    free_models(&models, c->n_model);
    if (vmaf) vmaf_close(vmaf);
    video_input_close(&ref);
    video_input_close(&dist);
    return exit_code;
}

int main(int argc, char *argv[])
{
    CliSettings c;
    const enum CliParseResult parsed = cli_parse(argc, argv, &c);
    int exit_code = parsed == CLI_PARSE_DONE ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (parsed != CLI_PARSE_RUN) goto done;

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
    exit_code = run(&c);

done:
    cli_free(&c);
    if (fflush(stdout) && exit_code == CLI_EXIT_OK) exit_code = CLI_EXIT_OUTPUT;
    return exit_code;
}
