/*
 * src/dict.c: the ordered string dictionary behind VmafFeatureDictionary.
 * Set, replace, get, copy, merge, equality, free; NULL arguments; growth
 * past the first capacity; every allocation failing in turn.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dict.h"
#include "libvmaf/feature.h"
#include "unit.h"

static void test_set_get(void)
{
    VmafDict *d = NULL;
    CHECK(vmaf_dict_get(d, "a") == NULL);
    CHECK(vmaf_dict_set(&d, "a", "1") == 0);
    CHECK(d && d->cnt == 1);
    CHECK(!strcmp(vmaf_dict_get(d, "a"), "1"));
    CHECK(vmaf_dict_get(d, "A") == NULL);          /* keys are case sensitive */
    CHECK(vmaf_dict_get(d, "") == NULL);
    CHECK(vmaf_dict_get(d, NULL) == NULL);

    /* Replacing keeps the position and the count. */
    CHECK(vmaf_dict_set(&d, "b", "2") == 0);
    CHECK(vmaf_dict_set(&d, "a", "3") == 0);
    CHECK(d->cnt == 2 && !strcmp(d->entry[0].key, "a") && !strcmp(d->entry[0].val, "3"));

    /* The strings are copied: the caller's buffer may change. */
    char key[8] = "k", val[8] = "v";
    CHECK(vmaf_dict_set(&d, key, val) == 0);
    key[0] = 'x';
    val[0] = 'y';
    CHECK(!strcmp(vmaf_dict_get(d, "k"), "v"));

    /* Empty key and value are ordinary strings. */
    CHECK(vmaf_dict_set(&d, "", "") == 0);
    CHECK(vmaf_dict_get(d, "") && !strcmp(vmaf_dict_get(d, ""), ""));

    /* Past the first capacity (8), in insertion order. */
    for (int i = 0; i < 100; i++) {
        char k[16], v[16];
        snprintf(k, sizeof(k), "key%d", i);
        snprintf(v, sizeof(v), "%d", i * 7);
        CHECK(vmaf_dict_set(&d, k, v) == 0);
    }
    CHECK(d->cnt == 104 && d->capacity >= d->cnt);
    CHECK(!strcmp(d->entry[4].key, "key0") && !strcmp(d->entry[103].key, "key99"));
    CHECK(!strcmp(vmaf_dict_get(d, "key57"), "399"));

    CHECK(vmaf_dict_set(NULL, "a", "b") == -EINVAL);
    CHECK(vmaf_dict_set(&d, NULL, "b") == -EINVAL);
    CHECK(vmaf_dict_set(&d, "a", NULL) == -EINVAL);
    CHECK(!strcmp(vmaf_dict_get(d, "a"), "3"));

    vmaf_dict_free(&d);
    CHECK(d == NULL);
    vmaf_dict_free(&d);         /* twice: harmless */
    vmaf_dict_free(NULL);
}

static void test_copy_merge_equal(void)
{
    VmafDict *a = NULL, *b = NULL, *c = NULL;
    CHECK(vmaf_dict_copy(NULL, &c) == 0 && c == NULL);
    CHECK(vmaf_dict_copy(a, NULL) == -EINVAL);
    CHECK(vmaf_dict_equal(NULL, NULL) == 1);

    vmaf_dict_set(&a, "x", "1");
    vmaf_dict_set(&a, "y", "2");
    CHECK(vmaf_dict_copy(a, &c) == 0);
    CHECK(c && c != a && c->cnt == 2 && vmaf_dict_equal(a, c));
    CHECK(c->entry[0].key != a->entry[0].key);      /* a deep copy */
    vmaf_dict_free(&c);

    /* A dictionary without entries copies to NULL, and equals NULL. */
    const VmafDict empty = { 0 };
    c = a;                      /* overwritten on that path too */
    CHECK(vmaf_dict_copy(&empty, &c) == 0 && c == NULL);
    CHECK(vmaf_dict_equal(&empty, NULL) == 1);

    /* Equality ignores order, not values or keys. */
    vmaf_dict_set(&b, "y", "2");
    vmaf_dict_set(&b, "x", "1");
    CHECK(vmaf_dict_equal(a, b) == 1);
    vmaf_dict_set(&b, "x", "10");
    CHECK(vmaf_dict_equal(a, b) == 0);
    vmaf_dict_set(&b, "x", "1");
    vmaf_dict_set(&b, "w", "1");
    CHECK(vmaf_dict_equal(a, b) == 0 && vmaf_dict_equal(b, a) == 0);
    CHECK(vmaf_dict_equal(a, NULL) == 0 && vmaf_dict_equal(NULL, a) == 0);

    /* Merge: b's values win, a's order first, then b's new keys. */
    VmafDict *m = NULL;
    vmaf_dict_set(&b, "y", "20");
    CHECK(vmaf_dict_merge(a, b, &m) == 0);
    CHECK(m && m->cnt == 3);
    CHECK(!strcmp(m->entry[0].key, "x") && !strcmp(m->entry[1].key, "y") &&
          !strcmp(m->entry[2].key, "w"));
    CHECK(!strcmp(vmaf_dict_get(m, "y"), "20"));
    CHECK(!strcmp(vmaf_dict_get(a, "y"), "2"));     /* inputs unchanged */
    vmaf_dict_free(&m);
    CHECK(vmaf_dict_merge(NULL, NULL, &m) == 0 && m == NULL);
    CHECK(vmaf_dict_merge(NULL, a, &m) == 0 && vmaf_dict_equal(m, a));
    vmaf_dict_free(&m);
    CHECK(vmaf_dict_merge(a, NULL, &m) == 0 && vmaf_dict_equal(m, a));
    vmaf_dict_free(&m);
    CHECK(vmaf_dict_merge(a, b, NULL) == -EINVAL);

    vmaf_dict_free(&a);
    vmaf_dict_free(&b);
}

/* Every allocation of set, copy and merge fails in turn: -ENOMEM, and the
 * dictionary is left as it was (set) or NULL (copy, merge). */
static void test_allocation_failures(void)
{
    VmafDict *a = NULL, *b = NULL;
    for (int i = 0; i < 9; i++) {
        char k[8];
        snprintf(k, sizeof(k), "a%d", i);
        vmaf_dict_set(&a, k, "v");
    }
    vmaf_dict_set(&b, "a0", "w");
    vmaf_dict_set(&b, "b0", "w");

    unsigned paths = 0;
    for (long n = 0;; n++) {
        VmafDict *d = NULL;
        vmaf_dict_set(&d, "old", "1");
        unit_fail_alloc(n);
        const int err = vmaf_dict_set(&d, "new", "2");
        const bool failed = unit_alloc_failed();
        if (!failed) {
            CHECK(err == 0);
            vmaf_dict_free(&d);
            break;
        }
        paths++;
        CHECK(err == -ENOMEM);
        CHECK(d && d->cnt == 1 && !strcmp(vmaf_dict_get(d, "old"), "1"));
        CHECK(vmaf_dict_get(d, "new") == NULL);
        vmaf_dict_free(&d);
    }
    CHECK(paths >= 2);          /* the value's copy and the key's */

    /* The ninth entry grows the entries (first capacity 8): its failure too. */
    for (long n = 0;; n++) {
        VmafDict *d = NULL;
        for (int i = 0; i < 8; i++) {
            char k[8];
            snprintf(k, sizeof(k), "k%d", i);
            vmaf_dict_set(&d, k, "v");
        }
        CHECK(d->cnt == 8 && d->capacity == 8);
        unit_fail_alloc(n);
        const int err = vmaf_dict_set(&d, "ninth", "9");
        const bool failed = unit_alloc_failed();
        CHECK(failed ? err == -ENOMEM && d->cnt == 8 : err == 0 && d->cnt == 9);
        vmaf_dict_free(&d);
        if (!failed) {
            CHECK(n == 3);      /* value, key, entries */
            break;
        }
    }

    for (long n = 0;; n++) {
        VmafDict *d = (VmafDict *)&d;
        unit_fail_alloc(n);
        const int err = vmaf_dict_copy(a, &d);
        if (!unit_alloc_failed()) {
            CHECK(err == 0 && vmaf_dict_equal(a, d));
            vmaf_dict_free(&d);
            break;
        }
        CHECK(err == -ENOMEM && d == NULL);
    }
    for (long n = 0;; n++) {
        VmafDict *d = (VmafDict *)&d;
        unit_fail_alloc(n);
        const int err = vmaf_dict_merge(a, b, &d);
        if (!unit_alloc_failed()) {
            CHECK(err == 0 && d && d->cnt == 10 && !strcmp(vmaf_dict_get(d, "a0"), "w"));
            vmaf_dict_free(&d);
            break;
        }
        CHECK(err == -ENOMEM && d == NULL);
    }
    vmaf_dict_free(&a);
    vmaf_dict_free(&b);
}

/* The public names are the same object. */
static void test_public_api(void)
{
    VmafFeatureDictionary *fd = NULL;
    CHECK(vmaf_feature_dictionary_set(&fd, "k", "v") == 0);
    CHECK(!strcmp(vmaf_dict_get((VmafDict *)fd, "k"), "v"));
    CHECK(vmaf_feature_dictionary_set(&fd, NULL, "v") == -EINVAL);
    CHECK(vmaf_feature_dictionary_free(&fd) == 0 && fd == NULL);
    CHECK(vmaf_feature_dictionary_free(NULL) == -EINVAL);
}

int main(void)
{
    test_set_get();
    test_copy_merge_equal();
    test_allocation_failures();
    test_public_api();
    return unit_report("dict");
}
