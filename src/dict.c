#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dict.h"
#include "export.h"
#include "libvmaf/feature.h"

int vmaf_dict_set(VmafDict **d, const char *key, const char *val)
{
    if (!d || !key || !val) return -EINVAL;
    if (!*d) {
        *d = calloc(1, sizeof(**d));
        if (!*d) return -ENOMEM;
    }
    VmafDict *dict = *d;
    char *v = strdup(val);
    if (!v) return -ENOMEM;
    for (unsigned i = 0; i < dict->cnt; i++) {
        if (!strcmp(dict->entry[i].key, key)) {
            free(dict->entry[i].val);
            dict->entry[i].val = v;
            return 0;
        }
    }
    char *k = strdup(key);
    if (!k) goto fail;
    if (dict->cnt == dict->capacity) {
        unsigned cap = dict->capacity ? dict->capacity * 2 : 8;
        VmafDictEntry *e = realloc(dict->entry, cap * sizeof(*e));
        if (!e) goto fail;
        dict->entry = e;
        dict->capacity = cap;
    }
    dict->entry[dict->cnt++] = (VmafDictEntry){ .key = k, .val = v };
    return 0;
fail:
    free(k);
    free(v);
    return -ENOMEM;
}

const char *vmaf_dict_get(const VmafDict *d, const char *key)
{
    if (!d || !key) return NULL;
    for (unsigned i = 0; i < d->cnt; i++)
        if (!strcmp(d->entry[i].key, key)) return d->entry[i].val;
    return NULL;
}

int vmaf_dict_copy(const VmafDict *src, VmafDict **dst)
{
    if (!dst) return -EINVAL;
    *dst = NULL;
    if (!src) return 0;
    for (unsigned i = 0; i < src->cnt; i++) {
        int err = vmaf_dict_set(dst, src->entry[i].key, src->entry[i].val);
        if (err) {
            vmaf_dict_free(dst);
            return err;
        }
    }
    return 0;
}

int vmaf_dict_merge(const VmafDict *a, const VmafDict *b, VmafDict **dst)
{
    int err = vmaf_dict_copy(a, dst);
    if (err) return err;
    for (unsigned i = 0; b && i < b->cnt; i++) {
        err = vmaf_dict_set(dst, b->entry[i].key, b->entry[i].val);
        if (err) {
            vmaf_dict_free(dst);
            return err;
        }
    }
    return 0;
}

int vmaf_dict_equal(const VmafDict *a, const VmafDict *b)
{
    const unsigned na = a ? a->cnt : 0, nb = b ? b->cnt : 0;
    if (na != nb) return 0;
    for (unsigned i = 0; i < na; i++) {
        const char *v = vmaf_dict_get(b, a->entry[i].key);
        if (!v || strcmp(v, a->entry[i].val)) return 0;
    }
    return 1;
}

void vmaf_dict_free(VmafDict **d)
{
    if (!d || !*d) return;
    for (unsigned i = 0; i < (*d)->cnt; i++) {
        free((*d)->entry[i].key);
        free((*d)->entry[i].val);
    }
    free((*d)->entry);
    free(*d);
    *d = NULL;
}

/* The public dictionary is the same object under an opaque name. */
VMAF_EXPORT int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict,
                                            const char *key, const char *val)
{
    return vmaf_dict_set((VmafDict **)dict, key, val);
}

VMAF_EXPORT int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict)
{
    if (!dict) return -EINVAL;
    vmaf_dict_free((VmafDict **)dict);
    return 0;
}
