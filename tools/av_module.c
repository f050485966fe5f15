/*
 * The tool's side of the FFmpeg module (av_module.h): found beside the tool
 * (the build folder, a wheel) or in LIBDIR/exactvmaf of the tool's prefix,
 * or where EXACTVMAF_FFMPEG_MODULE says; opened once, at the first file that
 * needs decoding. Without it (a build without FFmpeg's libraries, or a
 * module that cannot be loaded) the tool reads y4m and raw YUV, and says
 * why it cannot read the rest.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/os/os.h"
#include "av_module.h"
#include "video_input.h"

static const AvModule *module;
static char why[PATH_MAX + 256] = "this exactvmaf was built without FFmpeg's libraries "
                                  "(libavformat, libavcodec, libavfilter)";

#if EXACTVMAF_HAVE_FFMPEG
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const AvModule *open_module(const char *path, char *err, size_t len)
{
    /* RTLD_LOCAL: FFmpeg's symbols stay the module's. */
    void *h = vmaf_os_dlopen(path, err, len);
    if (!h) return NULL;
    const AvModule *(*entry)(void) = (const AvModule *(*)(void))vmaf_os_dlsym(h, AV_MODULE_ENTRY);
    const AvModule *m = entry ? entry() : NULL;
    if (!m || m->abi != AV_MODULE_ABI || m->video_input_size != sizeof(VideoInput)) {
        snprintf(err, len, "%.*s is not this exactvmaf's module (another version)",
                 (int)(len > 64 ? len - 64 : 0), path);
        vmaf_os_dlclose(h);
        return NULL;
    }
    return m;
}

static void load(void)
{
    char err[PATH_MAX + 128] = "";
    const char *env = getenv("EXACTVMAF_FFMPEG_MODULE");
    if (env && *env) {
        module = open_module(env, err, sizeof(err));
        if (!module)
            snprintf(why, sizeof(why), "its FFmpeg module (EXACTVMAF_FFMPEG_MODULE) cannot be "
                     "loaded: %s", err);
        return;
    }
    char exe[PATH_MAX];
    if (vmaf_os_exe_dir(exe, sizeof(exe))) {
        snprintf(why, sizeof(why), "its FFmpeg module cannot be found (the tool's own "
                 "folder is unknown)");
        return;
    }
    /* Beside the tool (a build folder, a wheel), then the installed place:
     * LIBDIR relative to the prefix the tool's bin/ is in. */
    char cand[2][PATH_MAX + 64];
    snprintf(cand[0], sizeof(cand[0]), "%s/%s", exe, AV_MODULE_FILE);
    if (EXACTVMAF_LIBDIR[0] == '/')
        snprintf(cand[1], sizeof(cand[1]), "%s/exactvmaf/%s", EXACTVMAF_LIBDIR, AV_MODULE_FILE);
    else
        snprintf(cand[1], sizeof(cand[1]), "%s/../%s/exactvmaf/%s", exe, EXACTVMAF_LIBDIR,
                 AV_MODULE_FILE);
    for (int i = 0; i < 2 && !module; i++) {
        if (access(cand[i], F_OK)) continue;
        module = open_module(cand[i], err, sizeof(err));
        if (!module) {
            snprintf(why, sizeof(why), "its FFmpeg module cannot be loaded: %s", err);
            return;
        }
    }
    if (!module)
        snprintf(why, sizeof(why), "its FFmpeg module (%s) is not installed beside it or in "
                 "%s", AV_MODULE_FILE, cand[1]);
}
#endif

int video_input_can_decode(void)
{
#if EXACTVMAF_HAVE_FFMPEG
    pthread_once(&once, load);
#endif
    return module != NULL;
}

const char *video_input_no_decoding(void)
{
    video_input_can_decode();
    return why;
}

int video_input_open_decoded(VideoInput **out, const char *path, const VideoDecodeOptions *o)
{
    *out = NULL;
    if (video_input_can_decode()) return module->open_decoded(out, path, o);
    video_input_say("%s: %s: it reads y4m and raw YUV only, unscaled", path, why);
    return -ENOTSUP;
}

int video_input_open_sessions(VideoInput **out, const char *path, const VideoDecodeOptions *o,
                              unsigned sessions)
{
    if (!video_input_can_decode()) return video_input_open_decoded(out, path, o);
    return module->open_sessions(out, path, o, sessions);
}

int video_input_seek_decoded(VideoInput *vi, int64_t pts, int64_t dts)
{
    return video_input_can_decode() ? module->seek_decoded(vi, pts, dts) : -ENOTSUP;
}

void video_input_warm_gpu(int gpu)
{
    if (video_input_can_decode()) module->warm_gpu(gpu);
}

void video_input_warm_end(void)
{
    /* Nothing to end where nothing was started (and no module to load for it). */
    if (module) module->warm_end();
}

int video_input_container_rate(const char *path, double bits, double *kbps,
                               const char **source)
{
    if (!video_input_can_decode()) return -ENOTSUP;
    return module->container_rate(path, bits, kbps, source);
}
