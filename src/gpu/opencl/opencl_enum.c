/*
 * OpenCL devices of every platform under one flat numbering: counting,
 * describing, naming ("N" or "P:D"), the default device, the listing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "gpu/opencl/opencl_enum.h"
#include "gpu/opencl/opencl_loader.h"

typedef struct EvlEntry {
    cl_platform_id platform;
    cl_device_id device;
    int platform_index, device_index;
} EvlEntry;

/*
 * Every platform's devices, in the loader's platform order: the flat
 * numbering. 0 with *n == 0 and `why` set when there are none.
 */
static int enumerate(EvlEntry **out, int *n, char *why, size_t why_len)
{
    *out = NULL;
    *n = 0;
    int err = evl_driver_load(why, why_len);
    if (err) return err;
    const EvlDriver *d = evl_driver();
    cl_uint n_plat = 0;
    const cl_int r = d->clGetPlatformIDs(0, NULL, &n_plat);
    /* No vendor driver registered: the loader's way of saying "none". */
    if (r == EVL_CL_PLATFORM_NOT_FOUND_KHR || (r == EVL_CL_SUCCESS && !n_plat)) {
        evl_set_why(why, why_len, "no OpenCL platform is installed (the ICD loader found no "
                "vendor driver)");
        return 0;
    }
    if ((err = EVL_CHECK_AS(r, "clGetPlatformIDs(0, NULL, &n_plat)"))) {
        evl_set_why(why, why_len, "clGetPlatformIDs failed with %s", evl_error_name(r));
        return -ENODEV;
    }
    cl_platform_id *plat = calloc(n_plat, sizeof(*plat));
    EvlEntry *list = NULL;
    cl_device_id *dev = NULL;
    int count = 0;
    if (!plat) return -ENOMEM;
    err = EVL_CHECK(d->clGetPlatformIDs(n_plat, plat, &n_plat));
    if (err) {
        evl_set_why(why, why_len, "clGetPlatformIDs failed");
        err = -ENODEV;
        goto fail;
    }
    for (cl_uint p = 0; p < n_plat; p++) {
        cl_uint n_dev = 0;
        cl_int rd = d->clGetDeviceIDs(plat[p], EVL_CL_DEVICE_TYPE_ALL, 0, NULL, &n_dev);
        /* A platform without devices, or a broken one, must not hide the others. */
        if (rd == EVL_CL_DEVICE_NOT_FOUND ||
            EVL_CHECK_AS(rd, "clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n)") ||
            !n_dev)
            continue;
        cl_device_id *dv = realloc(dev, n_dev * sizeof(*dev));
        EvlEntry *ls = realloc(list, ((size_t)count + n_dev) * sizeof(*list));
        if (dv) dev = dv;
        if (ls) list = ls;
        if (!dv || !ls) {
            err = -ENOMEM;
            goto fail;
        }
        cl_uint got = 0;
        rd = d->clGetDeviceIDs(plat[p], EVL_CL_DEVICE_TYPE_ALL, n_dev, dev, &got);
        if (EVL_CHECK_AS(rd, "clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, dev, &got)"))
            continue;
        for (cl_uint i = 0; i < n_dev && i < got; i++)
            list[count++] = (EvlEntry){ plat[p], dev[i], (int)p, (int)i };
    }
    free(dev);
    free(plat);
    if (!count) {
        free(list);
        list = NULL;
        evl_set_why(why, why_len, "%u OpenCL platform%s but no OpenCL device", (unsigned)n_plat,
                n_plat == 1 ? "" : "s");
    }
    *out = list;
    *n = count;
    return 0;
fail:
    free(dev);
    free(list);
    free(plat);
    return err;
}

/* Device `flat` of the numbering; -ENODEV with `why` when there is none. */
static int find_entry(int flat, EvlEntry *e, char *why, size_t why_len)
{
    EvlEntry *list;
    int n;
    const int err = enumerate(&list, &n, why, why_len);
    if (err) return err;
    if (flat < 0 || flat >= n) {
        if (n) evl_set_why(why, why_len, "no OpenCL device %d (this machine has %d)", flat, n);
        free(list);
        return -ENODEV;
    }
    *e = list[flat];
    free(list);
    return 0;
}

/*
 * A string query (platform when `platform`, else device) into a new buffer;
 * NULL when the query is not answered. Not logged: callers ask for things
 * that older devices may not know.
 */
static char *info_string(cl_platform_id platform, cl_device_id device, cl_uint what)
{
    const EvlDriver *d = evl_driver();
    size_t size = 0;
    cl_int r = platform ? d->clGetPlatformInfo(platform, what, 0, NULL, &size)
                        : d->clGetDeviceInfo(device, what, 0, NULL, &size);
    if (r != EVL_CL_SUCCESS) return NULL;
    char *s = malloc(size + 1);
    if (!s) return NULL;
    r = platform ? d->clGetPlatformInfo(platform, what, size, s, NULL)
                 : d->clGetDeviceInfo(device, what, size, s, NULL);
    if (r != EVL_CL_SUCCESS) {
        free(s);
        return NULL;
    }
    s[size] = '\0';
    return s;
}

static void copy_string(char *dst, size_t len, cl_platform_id platform, cl_device_id device,
                        cl_uint what)
{
    char *s = info_string(platform, device, what);
    snprintf(dst, len, "%s", s ? s : "unknown");
    free(s);
}

static bool has_token(const char *list, const char *token)
{
    const size_t n = strlen(token);
    for (const char *p = list; p && (p = strstr(p, token)); p += n) {
        const bool start = p == list || p[-1] == ' ';
        if (start && (p[n] == ' ' || p[n] == '\0')) return true;
    }
    return false;
}

static bool device_has_fp64(cl_device_id dev)
{
    const EvlDriver *d = evl_driver();
    char *ext = info_string(NULL, dev, EVL_CL_DEVICE_EXTENSIONS);
    const bool khr = ext && has_token(ext, "cl_khr_fp64");
    free(ext);
    if (khr) return true;
    /* OpenCL 1.2 devices without doubles answer 0 or refuse; either means none. */
    cl_device_fp_config cfg = 0;
    if (d->clGetDeviceInfo(dev, EVL_CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(cfg), &cfg, NULL) ==
            EVL_CL_SUCCESS && cfg)
        return true;
    /* OpenCL 3.0 names the optional feature; older devices refuse the query. */
    size_t size = 0;
    if (d->clGetDeviceInfo(dev, EVL_CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size) !=
            EVL_CL_SUCCESS || size < sizeof(EvlClNameVersion))
        return false;
    EvlClNameVersion *f = malloc(size);
    bool found = false;
    if (f && d->clGetDeviceInfo(dev, EVL_CL_DEVICE_OPENCL_C_FEATURES, size, f, NULL) ==
            EVL_CL_SUCCESS) {
        for (size_t i = 0; i < size / sizeof(*f) && !found; i++)
            found = !strncmp(f[i].name, "__opencl_c_fp64", sizeof(f[i].name));
    }
    free(f);
    return found;
}

static int entry_info(const EvlEntry *e, int flat, EvlDeviceInfo *out)
{
    const EvlDriver *d = evl_driver();
    memset(out, 0, sizeof(*out));
    copy_string(out->name, sizeof(out->name), NULL, e->device, EVL_CL_DEVICE_NAME);
    copy_string(out->platform, sizeof(out->platform), e->platform, NULL, EVL_CL_PLATFORM_NAME);
    copy_string(out->version, sizeof(out->version), NULL, e->device, EVL_CL_DEVICE_VERSION);
    copy_string(out->driver, sizeof(out->driver), NULL, e->device, EVL_CL_DRIVER_VERSION);
    copy_string(out->platform_version, sizeof(out->platform_version), e->platform, NULL,
                EVL_CL_PLATFORM_VERSION);
    out->platform_index = e->platform_index;
    out->device_index = e->device_index;
    out->flat_index = flat;
    out->fp64 = device_has_fp64(e->device);
    cl_device_type type = 0;
    cl_device_fp_config single = 0;
    cl_ulong mem = 0;
    int err = EVL_CHECK(d->clGetDeviceInfo(e->device, EVL_CL_DEVICE_TYPE, sizeof(type), &type,
                                           NULL));
    if (!err)
        err = EVL_CHECK(d->clGetDeviceInfo(e->device, EVL_CL_DEVICE_SINGLE_FP_CONFIG,
                                           sizeof(single), &single, NULL));
    if (!err)
        err = EVL_CHECK(d->clGetDeviceInfo(e->device, EVL_CL_DEVICE_GLOBAL_MEM_SIZE,
                                           sizeof(mem), &mem, NULL));
    if (err) return err;
    out->is_gpu = type & EVL_CL_DEVICE_TYPE_GPU;
    out->denorms = single & EVL_CL_FP_DENORM;
    out->global_mem = mem;
    return 0;
}

int evl_device_find(int flat_index, cl_platform_id *platform, cl_device_id *device,
                    EvlDeviceInfo *info, char *why, size_t why_len)
{
    EvlEntry e;
    int err = find_entry(flat_index, &e, why, why_len);
    if (err) return err;
    err = entry_info(&e, flat_index, info);
    if (err) {
        evl_set_why(why, why_len, "OpenCL device %d does not answer queries", flat_index);
        return err;
    }
    *platform = e.platform;
    *device = e.device;
    return 0;
}

int evl_device_count(int *n, char *why, size_t why_len)
{
    EvlEntry *list;
    const int err = enumerate(&list, n, why, why_len);
    free(list);
    return err;
}

int evl_device_info(int flat_index, EvlDeviceInfo *out)
{
    char why[256] = "";
    EvlEntry e;
    const int err = find_entry(flat_index, &e, why, sizeof(why));
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: %s", why);
        return err;
    }
    return entry_info(&e, flat_index, out);
}

int evl_device_default(int *flat_index, char *why, size_t why_len)
{
    int count = 0;
    int err = evl_device_count(&count, why, why_len);
    if (!err && !count) {
        /* enumerate's reason (no platform, platforms without devices) stays. */
        if (!why || !why_len || !why[0]) evl_set_why(why, why_len, "no OpenCL device");
        err = -ENODEV;
    }
    *flat_index = 0;
    for (int k = 0; !err && k < count; k++) {
        EvlDeviceInfo in;
        if (!evl_device_info(k, &in) && in.is_gpu) {
            *flat_index = k;
            break;
        }
    }
    return err;
}

/* A decimal number of at most 9 digits spanning [s, end); -1 otherwise. */
static int parse_index(const char *s, const char *end)
{
    if (s == end || end - s > 9) return -1;
    int v = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = 10 * v + (*s - '0');
    }
    return v;
}

int evl_device_parse(const char *spec, int *flat_index)
{
    const char *colon = spec ? strchr(spec, ':') : NULL;
    const char *end = spec ? spec + strlen(spec) : NULL;
    const int a = spec ? parse_index(spec, colon ? colon : end) : -1;
    const int b = colon ? parse_index(colon + 1, end) : 0;
    if (a < 0 || b < 0) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: device \"%s\" is neither N (a device number "
                 "over all platforms) nor P:D (platform P's device D)", spec ? spec : "");
        return -EINVAL;
    }
    char why[256] = "";
    EvlEntry *list;
    int n;
    int err = enumerate(&list, &n, why, sizeof(why));
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: %s", why);
        return err;
    }
    err = -EINVAL;
    for (int i = 0; i < n; i++) {
        if (colon ? list[i].platform_index == a && list[i].device_index == b : i == a) {
            *flat_index = i;
            err = 0;
            break;
        }
    }
    free(list);
    if (err)
        vmaf_log(VMAF_LOG_LEVEL_ERROR, "opencl: there is no device %s (%d OpenCL device%s; "
                 "--list-devices shows them)%s%s", spec, n, n == 1 ? "" : "s",
                 n ? "" : ": ", n ? "" : why);
    return err;
}

int evl_list_devices(FILE *f)
{
    char why[256] = "";
    EvlEntry *list;
    int n;
    const int err = enumerate(&list, &n, why, sizeof(why));
    if (err) {
        fprintf(f, "opencl: not available (%s)\n", why);
        return err;
    }
    if (!n) fprintf(f, "opencl: no device (%s)\n", why);
    for (int i = 0; i < n; i++) {
        EvlDeviceInfo info;
        if (entry_info(&list[i], i, &info)) continue;
        fprintf(f, "opencl %d:%d (%d): %s, %s, %s, driver %s, fp64 %s, %" PRIu64 " MiB\n",
                info.platform_index, info.device_index, i, info.name, info.platform,
                info.version, info.driver, info.fp64 ? "yes" : "no", info.global_mem >> 20);
    }
    free(list);
    return n;
}

