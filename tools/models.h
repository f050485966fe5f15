/*
 * The CLI's models: each --model loaded (a single model, or a bootstrap
 * collection where the name or file holds one) with its feature overloads,
 * its features registered with the context, and its pooled score printed.
 */
#ifndef EXACTVMAF_TOOLS_MODELS_H
#define EXACTVMAF_TOOLS_MODELS_H

#include <stdio.h>

#include "cli.h"
#include "libvmaf/libvmaf.h"

typedef struct Models {
    VmafModel *model[CLI_MAX_MODELS];
    VmafModelCollection *collection[CLI_MAX_MODELS];
    const char *collection_label[CLI_MAX_MODELS];
    unsigned n_collection;
} Models;

/*
 * Load each --model and register its features, as Netflix's tool does: a
 * name that is not a single model is tried as a bootstrap collection.
 * Errors are printed. The overloads' dictionaries are consumed.
 */
int load_models(VmafContext *vmaf, CliSettings *c, Models *m);

/* What load_models made; n_model: c->n_model. */
void free_models(Models *m, unsigned n_model);

/*
 * Pool every model over frames 0 .. n_frames-1 (this also computes and
 * stores its per-frame scores), printing "VMAF score (...)" lines to
 * `print` (NULL: none), each ending with `note`. Errors are printed.
 */
int score_models(VmafContext *vmaf, const CliSettings *c, const Models *m,
                 unsigned n_frames, FILE *print, const char *note);

#endif
