/* The CLI's models (models.h): loading, registering their features, scoring. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "models.h"

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
int load_models(VmafContext *vmaf, CliSettings *c, Models *m)
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

void free_models(Models *m, unsigned n_model)
{
    for (unsigned i = 0; i < n_model; i++) vmaf_model_destroy(m->model[i]);
    for (unsigned i = 0; i < m->n_collection; i++)
        vmaf_model_collection_destroy(m->collection[i]);
}

/* Pool every model (this also computes and stores its per-frame scores). */
int score_models(VmafContext *vmaf, const CliSettings *c, const Models *m,
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
