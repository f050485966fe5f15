/*
 * src/feature_collector.c: the per-output, per-frame score store. Append
 * and replace, lookup, growth with gaps, the listing order (by order key,
 * whatever the order of the calls), run-level aggregates, appends from
 * several threads, and failures (bad index, every allocation) that leave
 * the store as it was.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "feature_collector.h"
#include "unit.h"

static void test_append_get(void)
{
    VmafFeatureCollector *fc = NULL;
    CHECK(vmaf_fc_create(&fc) == 0 && fc);
    CHECK(vmaf_fc_create(NULL) == -EINVAL);
    CHECK(vmaf_fc_count(fc) == 0 && vmaf_fc_frame_count(fc) == 0 && vmaf_fc_at(fc, 0) == NULL);

    double v = -1;
    CHECK(vmaf_fc_get(fc, "a", 0, &v) == -EINVAL && v == -1);
    CHECK(vmaf_fc_append(fc, "a", 1.5, 0, 0) == 0);
    CHECK(vmaf_fc_get(fc, "a", 0, &v) == 0 && v == 1.5);
    /* A second value for one (name, index) is refused and changes nothing. */
    CHECK(vmaf_fc_append(fc, "a", 2.5, 0, 0) == -EINVAL);
    CHECK(vmaf_fc_get(fc, "a", 0, &v) == 0 && v == 1.5);
    /* vmaf_fc_set replaces (model scores), or writes a new one. */
    CHECK(vmaf_fc_set(fc, "a", 3.5, 0, 0) == 0);
    CHECK(vmaf_fc_get(fc, "a", 0, &v) == 0 && v == 3.5);
    CHECK(vmaf_fc_set(fc, "a", 4.5, 1, 0) == 0);
    CHECK(vmaf_fc_get(fc, "a", 1, &v) == 0 && v == 4.5);

    /* Gaps: far indices grow the vector, the frames between stay unwritten. */
    CHECK(vmaf_fc_append(fc, "a", 7.0, 1000, 0) == 0);
    const VmafFeatureVector *vec = vmaf_fc_at(fc, 0);
    CHECK(vec && !strcmp(vec->name, "a") && vec->capacity > 1000);
    CHECK(vec->written[0] && vec->written[1] && !vec->written[2] && !vec->written[999] &&
          vec->written[1000] && vec->value[1000] == 7.0);
    CHECK(vmaf_fc_get(fc, "a", 500, &v) == -EINVAL);
    CHECK(vmaf_fc_get(fc, "a", 5000, &v) == -EINVAL);
    CHECK(vmaf_fc_frame_count(fc) == 1001);

    /* Values are stored as given: -0, infinities, NaN. */
    CHECK(vmaf_fc_append(fc, "b", -0.0, 0, 1) == 0);
    CHECK(vmaf_fc_append(fc, "b", 1.0 / 0.0, 1, 1) == 0);
    CHECK(vmaf_fc_get(fc, "b", 0, &v) == 0 && v == 0.0 && 1.0 / v < 0);
    CHECK(vmaf_fc_get(fc, "b", 1, &v) == 0 && v > 1e308);

    /* An index of 2^30 or more is refused, and adds no output. */
    CHECK(vmaf_fc_append(fc, "a", 1.0, 1u << 30, 0) == -EINVAL);
    CHECK(vmaf_fc_append(fc, "huge", 1.0, UINT32_MAX, 2) == -EINVAL);
    CHECK(vmaf_fc_count(fc) == 2 && vmaf_fc_frame_count(fc) == 1001);

    CHECK(vmaf_fc_append(NULL, "a", 1.0, 0, 0) == -EINVAL);
    CHECK(vmaf_fc_append(fc, NULL, 1.0, 0, 0) == -EINVAL);
    CHECK(vmaf_fc_get(fc, NULL, 0, &v) == -EINVAL && vmaf_fc_get(fc, "a", 0, NULL) == -EINVAL);
    CHECK(vmaf_fc_count(NULL) == 0 && vmaf_fc_frame_count(NULL) == 0 && !vmaf_fc_at(NULL, 0));
    vmaf_fc_destroy(fc);
    vmaf_fc_destroy(NULL);
}

static void test_order(void)
{
    /* The key: frame call, then extractor ordinal, then emission sequence. */
    CHECK(vmaf_fc_order_key(0, 0, 1) > vmaf_fc_order_key(0, 0, 0));
    CHECK(vmaf_fc_order_key(0, 1, 0) > vmaf_fc_order_key(0, 0, 0xfffff));
    CHECK(vmaf_fc_order_key(1, 0, 0) > vmaf_fc_order_key(0, 0xfff, 0xfffff));
    CHECK(vmaf_fc_order_key(UINT32_MAX, 0, 0) == (uint64_t)UINT32_MAX << 32);

    /* Emitted in any order of calls, listed by the smallest key each name
     * was emitted with. */
    static const char *const names[] = { "c", "a", "d", "b" };
    static const unsigned call[] = { 2, 0, 2, 1 }, ordinal[] = { 0, 1, 1, 0 };
    static const unsigned perms[][4] = { { 0, 1, 2, 3 }, { 3, 2, 1, 0 }, { 2, 0, 3, 1 } };
    for (unsigned p = 0; p < 3; p++) {
        VmafFeatureCollector *fc;
        CHECK(vmaf_fc_create(&fc) == 0);
        for (unsigned k = 0; k < 4; k++) {
            const unsigned i = perms[p][k];
            CHECK(vmaf_fc_append(fc, names[i], i, call[i], vmaf_fc_order_key(call[i], ordinal[i], 0)) == 0);
        }
        /* "d" emitted again by an earlier call: it moves up. */
        CHECK(vmaf_fc_append(fc, "d", 9, 0, vmaf_fc_order_key(0, 2, 0)) == 0);
        /* ... and a later key leaves a name where it is. */
        CHECK(vmaf_fc_append(fc, "a", 9, 7, vmaf_fc_order_key(7, 0, 0)) == 0);
        static const char *const want[] = { "a", "d", "b", "c" };
        CHECK(vmaf_fc_count(fc) == 4);
        for (unsigned i = 0; i < 4; i++)
            CHECK(!strcmp(vmaf_fc_at(fc, i)->name, want[i]));
        double v;
        CHECK(vmaf_fc_get(fc, "d", 0, &v) == 0 && v == 9 && vmaf_fc_get(fc, "d", 2, &v) == 0);
        vmaf_fc_destroy(fc);
    }
}

static void test_aggregates(void)
{
    VmafFeatureCollector *fc;
    CHECK(vmaf_fc_create(&fc) == 0);
    double v = 0;
    CHECK(vmaf_fc_aggregate_count(fc) == 0 && vmaf_fc_aggregate_at(fc, 0, &v) == NULL);
    CHECK(vmaf_fc_set_aggregate(fc, "z", 1.0) == 0);
    CHECK(vmaf_fc_set_aggregate(fc, "y", 2.0) == 0);
    /* Again with an equal value: nothing; with another: refused. */
    CHECK(vmaf_fc_set_aggregate(fc, "z", 1.0) == 0);
    CHECK(vmaf_fc_set_aggregate(fc, "z", 1.0000000000000002) == -EINVAL);
    for (int i = 0; i < 20; i++) {       /* past the first capacity */
        char name[8];
        snprintf(name, sizeof(name), "n%d", i);
        CHECK(vmaf_fc_set_aggregate(fc, name, i) == 0);
    }
    CHECK(vmaf_fc_aggregate_count(fc) == 22);
    const char *n = vmaf_fc_aggregate_at(fc, 0, &v);
    CHECK(n && !strcmp(n, "z") && v == 1.0);
    n = vmaf_fc_aggregate_at(fc, 21, NULL);
    CHECK(n && !strcmp(n, "n19"));
    CHECK(vmaf_fc_aggregate_at(fc, 22, &v) == NULL);
    CHECK(vmaf_fc_set_aggregate(fc, NULL, 1) == -EINVAL && vmaf_fc_set_aggregate(NULL, "a", 1) == -EINVAL);
    CHECK(vmaf_fc_aggregate_count(NULL) == 0 && vmaf_fc_aggregate_at(NULL, 0, &v) == NULL);
    /* Aggregates are apart from the per-frame outputs. */
    CHECK(vmaf_fc_count(fc) == 0 && vmaf_fc_get(fc, "z", 0, &v) == -EINVAL);
    vmaf_fc_destroy(fc);
}

typedef struct Worker {
    VmafFeatureCollector *fc;
    unsigned id;
    int errors;
} Worker;

static void *work(void *arg)
{
    Worker *w = arg;
    for (unsigned i = 0; i < 2000; i++) {
        char name[16];
        snprintf(name, sizeof(name), "out%u", i % 7);
        /* Each thread its own frames: no (name, index) twice. */
        const unsigned frame = i / 7 * 4 + w->id;
        if (vmaf_fc_append(w->fc, name, frame + 0.5, frame, vmaf_fc_order_key(0, i % 7, 0)))
            w->errors++;
    }
    return NULL;
}

static void test_threads(void)
{
    VmafFeatureCollector *fc;
    CHECK(vmaf_fc_create(&fc) == 0);
    Worker w[4];
    pthread_t t[4];
    for (unsigned i = 0; i < 4; i++) {
        w[i] = (Worker){ .fc = fc, .id = i };
        CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0);
    }
    for (unsigned i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(w[i].errors == 0);
    }
    CHECK(vmaf_fc_count(fc) == 7);
    unsigned written = 0, right = 0;
    for (unsigned k = 0; k < vmaf_fc_count(fc); k++) {
        const VmafFeatureVector *v = vmaf_fc_at(fc, k);
        char name[16];
        snprintf(name, sizeof(name), "out%u", k);
        CHECK(!strcmp(v->name, name));
        for (unsigned i = 0; i < v->capacity; i++) {
            written += v->written[i];
            right += v->written[i] && v->value[i] == i + 0.5;
        }
    }
    CHECK(written == 8000 && right == 8000);
    vmaf_fc_destroy(fc);
}

/* Every allocation fails in turn: -ENOMEM, the store as it was, and the
 * same call then succeeds. */
static void test_allocation_failures(void)
{
    VmafFeatureCollector *fc = NULL;
    unit_fail_alloc(0);
    CHECK(vmaf_fc_create(&fc) == -ENOMEM && unit_alloc_failed() && fc == NULL);

    for (long n = 0;; n++) {
        CHECK(vmaf_fc_create(&fc) == 0);
        for (unsigned i = 0; i < 16; i++) {      /* a full first capacity of outputs */
            char name[8];
            snprintf(name, sizeof(name), "o%u", i);
            vmaf_fc_append(fc, name, i, 0, vmaf_fc_order_key(0, i, 0));
        }
        CHECK(vmaf_fc_append(fc, "o0", 1, 63, 0) == 0);
        unit_fail_alloc(n);
        /* A new output, the 65th frame of o0 (both grow), a new aggregate;
         * the one whose allocation fails leaves no trace, and is retried. */
        double v;
        int err = vmaf_fc_append(fc, "new", 2, 64, vmaf_fc_order_key(0, 0, 1));
        bool failed = unit_alloc_failed_yet();
        CHECK(failed ? err == -ENOMEM : err == 0);
        if (failed) {
            CHECK(vmaf_fc_count(fc) == 16 && vmaf_fc_get(fc, "new", 64, &v) == -EINVAL);
            CHECK(vmaf_fc_append(fc, "new", 2, 64, vmaf_fc_order_key(0, 0, 1)) == 0);
        }
        err = vmaf_fc_append(fc, "o0", 3, 64, 0);
        const bool failed2 = !failed && unit_alloc_failed_yet();
        CHECK(failed2 ? err == -ENOMEM : err == 0);
        if (failed2) {
            CHECK(vmaf_fc_get(fc, "o0", 64, &v) == -EINVAL && vmaf_fc_at(fc, 0)->written[63]);
            CHECK(vmaf_fc_append(fc, "o0", 3, 64, 0) == 0);
        }
        failed |= failed2;
        err = vmaf_fc_set_aggregate(fc, "agg", 4);
        const bool failed3 = !failed && unit_alloc_failed_yet();
        CHECK(failed3 ? err == -ENOMEM : err == 0);
        if (failed3) {
            CHECK(vmaf_fc_aggregate_count(fc) == 0);
            CHECK(vmaf_fc_set_aggregate(fc, "agg", 4) == 0);
        }
        failed |= failed3;
        unit_alloc_failed();
        CHECK(vmaf_fc_count(fc) == 17 && vmaf_fc_aggregate_count(fc) == 1);
        CHECK(!strcmp(vmaf_fc_at(fc, 1)->name, "new"));
        CHECK(vmaf_fc_get(fc, "new", 64, &v) == 0 && v == 2);
        CHECK(vmaf_fc_get(fc, "o0", 64, &v) == 0 && v == 3);
        CHECK(vmaf_fc_get(fc, "o0", 63, &v) == 0 && v == 1);
        vmaf_fc_destroy(fc);
        if (!failed) {
            CHECK(n == 9);       /* 4 for the new output, 2 for the frame, 3 for the aggregate */
            break;
        }
    }
}

int main(void)
{
    test_append_get();
    test_order();
    test_aggregates();
    test_threads();
    test_allocation_failures();
    return unit_report("feature collector");
}
