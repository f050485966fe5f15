/*
 * The OpenCL program cache's key (src/gpu/opencl/opencl_cache.h): the same
 * inputs give the same file name; a change of any one of them (a byte of
 * the kernel text, a build option, the driver, the device, the platform or
 * its version, the device version) gives another; and the folder follows
 * EXACTVMAF_CACHE_DIR, XDG_CACHE_HOME, HOME and EXACTVMAF_CACHE=0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"
#include "gpu/opencl/opencl_cache.h"

static unsigned checks, failures;

#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; printf("FAIL line %d: ", \
    __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

static const char *file_of(const EvlCacheId *id, const char *src, char *buf)
{
    EvlCacheKey key;
    evl_cache_key(id, src, &key);
    strcpy(buf, key.file);
    return buf;
}

int main(void)
{
    const EvlCacheId base = { "NVIDIA H200", "NVIDIA CUDA", "OpenCL 3.0 CUDA 12.8.90",
                              "OpenCL 3.0 CUDA", "570.124.06", "-cl-std=CL1.2 -DEV_FP64=1" };
    const char *src = "__kernel void k(__global float *p) { p[0] = 1.0f; }\n";
    char a[80], b[80];
    file_of(&base, src, a);
    CHECK(!strcmp(a, file_of(&base, src, b)), "the same inputs, another key: %s %s", a, b);
    CHECK(strlen(a) == 64 + strlen(".clbin") && strstr(a, ".clbin"), "file name %s", a);

    char *src2 = strdup(src);
    src2[strlen(src2) - 5] = '2';   /* 1.0f -> 2.0f */
    CHECK(strcmp(a, file_of(&base, src2, b)), "a changed kernel text keeps the key");
    free(src2);

    const char *const EvlCacheId_names[] = { "device", "platform", "platform version",
                                             "device version", "driver", "options" };
    for (unsigned f = 0; f < 6; f++) {
        EvlCacheId id = base;
        const char **field[] = { &id.device, &id.platform, &id.platform_version,
                                 &id.device_version, &id.driver, &id.options };
        *field[f] = f == 5 ? "-cl-std=CL1.2 -DEV_FP64=0" : "something else";
        CHECK(strcmp(a, file_of(&id, src, b)), "another %s keeps the key", EvlCacheId_names[f]);
    }
    /* Fields cannot run into each other: moving a character between two gives another key. */
    EvlCacheId shifted = base;
    shifted.device = "NVIDIA H20";
    shifted.platform = "0NVIDIA CUDA";
    CHECK(strcmp(a, file_of(&shifted, src, b)), "shifted fields keep the key");

    char dir[512];
    vmaf_os_setenv("EXACTVMAF_CACHE_DIR", "/x/y");
    vmaf_os_unsetenv("EXACTVMAF_CACHE");
    CHECK(!evl_cache_dir(dir, sizeof(dir)) && !strcmp(dir, "/x/y/opencl"), "dir %s", dir);
    vmaf_os_unsetenv("EXACTVMAF_CACHE_DIR");
#if VMAF_OS_WINDOWS
    vmaf_os_setenv("LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local");
    CHECK(!evl_cache_dir(dir, sizeof(dir)) &&
          !strcmp(dir, "C:\\Users\\u\\AppData\\Local/exactvmaf/opencl"), "dir %s", dir);
    vmaf_os_unsetenv("LOCALAPPDATA");
    CHECK(evl_cache_dir(dir, sizeof(dir)), "no LOCALAPPDATA: no folder, yet %s", dir);
#else
    vmaf_os_setenv("XDG_CACHE_HOME", "/xdg");
    vmaf_os_setenv("HOME", "/home/u");
    CHECK(!evl_cache_dir(dir, sizeof(dir)) && !strcmp(dir, "/xdg/exactvmaf/opencl"), "dir %s", dir);
    vmaf_os_setenv("XDG_CACHE_HOME", "relative");
    CHECK(!evl_cache_dir(dir, sizeof(dir)) && !strcmp(dir, "/home/u/.cache/exactvmaf/opencl"),
          "dir %s", dir);
    vmaf_os_unsetenv("HOME");
    CHECK(evl_cache_dir(dir, sizeof(dir)), "no HOME: no folder, yet %s", dir);
#endif
    vmaf_os_setenv("EXACTVMAF_CACHE_DIR", "/x/y");
    vmaf_os_setenv("EXACTVMAF_CACHE", "0");
    CHECK(evl_cache_dir(dir, sizeof(dir)), "EXACTVMAF_CACHE=0: still %s", dir);

    printf("%u checks, %u failures\n", checks, failures);
    return failures ? 1 : 0;
}
