#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "feature_collector.h"

struct VmafFeatureCollector {
    VmafFeatureVector *vec;   /* kept sorted by order_key */
    unsigned cnt, capacity;
    unsigned frames;
    char **agg_name;          /* aggregates, in the order first set */
    double *agg_value;
    unsigned agg_cnt, agg_capacity;
    pthread_mutex_t lock;
};

int vmaf_fc_create(VmafFeatureCollector **fc)
{
    if (!fc) return -EINVAL;
    VmafFeatureCollector *c = calloc(1, sizeof(*c));
    if (!c) return -ENOMEM;
    if (pthread_mutex_init(&c->lock, NULL)) {
        free(c);
        return -ENOMEM;
    }
    *fc = c;
    return 0;
}

void vmaf_fc_destroy(VmafFeatureCollector *fc)
{
    if (!fc) return;
    for (unsigned i = 0; i < fc->cnt; i++) {
        free(fc->vec[i].name);
        free(fc->vec[i].value);
        free(fc->vec[i].written);
    }
    free(fc->vec);
    for (unsigned i = 0; i < fc->agg_cnt; i++)
        free(fc->agg_name[i]);
    free(fc->agg_name);
    free(fc->agg_value);
    pthread_mutex_destroy(&fc->lock);
    free(fc);
}

uint64_t vmaf_fc_order_key(unsigned call_index, unsigned ordinal, unsigned seq)
{
    /* 32 bits of frame index, 12 of ordinal, 20 of sequence. */
    return ((uint64_t)call_index << 32) | ((uint64_t)(ordinal & 0xfff) << 20) |
           (uint64_t)(seq & 0xfffff);
}

static VmafFeatureVector *find(VmafFeatureCollector *fc, const char *name)
{
    for (unsigned i = 0; i < fc->cnt; i++)
        if (!strcmp(fc->vec[i].name, name)) return &fc->vec[i];
    return NULL;
}

static VmafFeatureVector *find_or_add(VmafFeatureCollector *fc, const char *name,
                                      uint64_t order_key)
{
    VmafFeatureVector *v = find(fc, name);
    if (v) {
        if (order_key < v->order_key) {
            /* An earlier frame call emitted it: move it up. */
            VmafFeatureVector tmp = *v;
            unsigned at = (unsigned)(v - fc->vec);
            memmove(&fc->vec[at], &fc->vec[at + 1], (fc->cnt - at - 1) * sizeof(*v));
            fc->cnt--;
            tmp.order_key = order_key;
            unsigned pos = 0;
            while (pos < fc->cnt && fc->vec[pos].order_key <= order_key) pos++;
            memmove(&fc->vec[pos + 1], &fc->vec[pos], (fc->cnt - pos) * sizeof(*v));
            fc->vec[pos] = tmp;
            fc->cnt++;
            return &fc->vec[pos];
        }
        return v;
    }
    if (fc->cnt == fc->capacity) {
        unsigned cap = fc->capacity ? fc->capacity * 2 : 16;
        VmafFeatureVector *n = realloc(fc->vec, cap * sizeof(*n));
        if (!n) return NULL;
        fc->vec = n;
        fc->capacity = cap;
    }
    char *nm = strdup(name);
    if (!nm) return NULL;
    unsigned pos = 0;
    while (pos < fc->cnt && fc->vec[pos].order_key <= order_key) pos++;
    memmove(&fc->vec[pos + 1], &fc->vec[pos], (fc->cnt - pos) * sizeof(*fc->vec));
    fc->vec[pos] = (VmafFeatureVector){ .name = nm, .order_key = order_key };
    fc->cnt++;
    return &fc->vec[pos];
}

static int grow(VmafFeatureVector *v, unsigned index)
{
    if (index < v->capacity) return 0;
    if (index >= (1u << 30)) return -EINVAL;
    unsigned cap = v->capacity ? v->capacity : 64;
    while (cap <= index) cap *= 2;
    double *val = realloc(v->value, cap * sizeof(*val));
    if (!val) return -ENOMEM;
    v->value = val;
    bool *w = realloc(v->written, cap * sizeof(*w));
    if (!w) return -ENOMEM;
    v->written = w;
    memset(&w[v->capacity], 0, (cap - v->capacity) * sizeof(*w));
    v->capacity = cap;
    return 0;
}

static void drop(VmafFeatureCollector *fc, VmafFeatureVector *v)
{
    const unsigned at = (unsigned)(v - fc->vec);
    free(v->name);
    free(v->value);
    free(v->written);
    memmove(&fc->vec[at], &fc->vec[at + 1], (fc->cnt - at - 1) * sizeof(*v));
    fc->cnt--;
}

static int store(VmafFeatureCollector *fc, const char *name, double value,
                 unsigned index, uint64_t order_key, bool replace)
{
    if (!fc || !name) return -EINVAL;
    int err = 0;
    pthread_mutex_lock(&fc->lock);
    VmafFeatureVector *v = find_or_add(fc, name, order_key);
    if (!v) {
        err = -ENOMEM;
        goto out;
    }
    err = grow(v, index);
    if (err) {
        /* A failed call leaves no trace: not even the name it would add. */
        if (!v->capacity) drop(fc, v);
        goto out;
    }
    if (v->written[index] && !replace) {
        err = -EINVAL;
        goto out;
    }
    v->value[index] = value;
    v->written[index] = true;
    if (index + 1 > fc->frames) fc->frames = index + 1;
out:
    pthread_mutex_unlock(&fc->lock);
    return err;
}

int vmaf_fc_append(VmafFeatureCollector *fc, const char *name, double value,
                   unsigned index, uint64_t order_key)
{
    return store(fc, name, value, index, order_key, false);
}

int vmaf_fc_set(VmafFeatureCollector *fc, const char *name, double value,
                unsigned index, uint64_t order_key)
{
    return store(fc, name, value, index, order_key, true);
}

int vmaf_fc_get(VmafFeatureCollector *fc, const char *name, unsigned index,
                double *value)
{
    if (!fc || !name || !value) return -EINVAL;
    int err = -EINVAL;
    pthread_mutex_lock(&fc->lock);
    VmafFeatureVector *v = find(fc, name);
    if (v && index < v->capacity && v->written[index]) {
        *value = v->value[index];
        err = 0;
    }
    pthread_mutex_unlock(&fc->lock);
    return err;
}

unsigned vmaf_fc_count(VmafFeatureCollector *fc)
{
    return fc ? fc->cnt : 0;
}

const VmafFeatureVector *vmaf_fc_at(VmafFeatureCollector *fc, unsigned i)
{
    return fc && i < fc->cnt ? &fc->vec[i] : NULL;
}

const char *vmaf_fc_name_at(VmafFeatureCollector *fc, unsigned i)
{
    if (!fc) return NULL;
    /* Under the lock: workers may be adding names (and moving vec) meanwhile;
     * the string itself stays where it is. */
    pthread_mutex_lock(&fc->lock);
    const char *name = i < fc->cnt ? fc->vec[i].name : NULL;
    pthread_mutex_unlock(&fc->lock);
    return name;
}

unsigned vmaf_fc_frame_count(VmafFeatureCollector *fc)
{
    return fc ? fc->frames : 0;
}

int vmaf_fc_set_aggregate(VmafFeatureCollector *fc, const char *name, double value)
{
    if (!fc || !name) return -EINVAL;
    int err = 0;
    pthread_mutex_lock(&fc->lock);
    for (unsigned i = 0; i < fc->agg_cnt; i++) {
        if (!strcmp(fc->agg_name[i], name)) {
            err = fc->agg_value[i] == value ? 0 : -EINVAL;
            goto out;
        }
    }
    if (fc->agg_cnt == fc->agg_capacity) {
        const unsigned cap = fc->agg_capacity ? fc->agg_capacity * 2 : 8;
        char **n = realloc(fc->agg_name, cap * sizeof(*n));
        if (!n) {
            err = -ENOMEM;
            goto out;
        }
        fc->agg_name = n;
        double *v = realloc(fc->agg_value, cap * sizeof(*v));
        if (!v) {
            err = -ENOMEM;
            goto out;
        }
        fc->agg_value = v;
        fc->agg_capacity = cap;
    }
    char *nm = strdup(name);
    if (!nm) {
        err = -ENOMEM;
        goto out;
    }
    fc->agg_name[fc->agg_cnt] = nm;
    fc->agg_value[fc->agg_cnt] = value;
    fc->agg_cnt++;
out:
    pthread_mutex_unlock(&fc->lock);
    return err;
}

unsigned vmaf_fc_aggregate_count(VmafFeatureCollector *fc)
{
    return fc ? fc->agg_cnt : 0;
}

const char *vmaf_fc_aggregate_at(VmafFeatureCollector *fc, unsigned i, double *value)
{
    if (!fc || i >= fc->agg_cnt) return NULL;
    if (value) *value = fc->agg_value[i];
    return fc->agg_name[i];
}
