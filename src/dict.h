/* Ordered string dictionary: the concrete type behind VmafFeatureDictionary. */
#ifndef EXACTVMAF_DICT_H
#define EXACTVMAF_DICT_H

#include <stddef.h>

typedef struct VmafDictEntry {
    char *key, *val;
} VmafDictEntry;

typedef struct VmafDict {
    VmafDictEntry *entry;
    unsigned cnt, capacity;
} VmafDict;

/** Set key to val (both copied); replaces an existing key in place. */
int vmaf_dict_set(VmafDict **d, const char *key, const char *val);
/** NULL when absent. */
const char *vmaf_dict_get(const VmafDict *d, const char *key);
/** Deep copy; *dst becomes NULL when src is NULL or empty. */
int vmaf_dict_copy(const VmafDict *src, VmafDict **dst);
/** Merge b into a copy of a (b's values win). */
int vmaf_dict_merge(const VmafDict *a, const VmafDict *b, VmafDict **dst);
/** 1 when both hold the same key/value pairs (order ignored). */
int vmaf_dict_equal(const VmafDict *a, const VmafDict *b);
void vmaf_dict_free(VmafDict **d);

#endif
