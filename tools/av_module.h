/*
 * The command-line tool's FFmpeg side as a module of its own
 * (exactvmaf-ffmpeg.so, on Windows exactvmaf-ffmpeg.dll: av_input.c,
 * av_sessions.c, av_hwdec.c), opened with vmaf_os_dlopen() the first time a
 * file needs decoding. A distribution's FFmpeg
 * libraries bring a hundred or more shared libraries with them, whose
 * loading took 0.1 s of every run on Debian 12, y4m runs included (Netflix's
 * tool starts in a millisecond); now only runs that decode pay it.
 *
 * The module calls back into the tool (video_input.c's functions and the
 * library's, which the tool exports; on Windows the module links the
 * tool's import library, and its pthread_* are the tool's winpthreads, so
 * that a thread the tool starts can be joined by the module) and gives
 * this table; av_module.c is the tool's side.
 */
#ifndef EXACTVMAF_TOOLS_AV_MODULE_H
#define EXACTVMAF_TOOLS_AV_MODULE_H

#include <stdint.h>

#include "../src/os/os.h"
#include "video_input.h"

/* Bumped with any change of the table or of VideoInput's layout. */
#define AV_MODULE_ABI 1
#define AV_MODULE_FILE "exactvmaf-ffmpeg" VMAF_OS_MODULE_SUFFIX
#define AV_MODULE_ENTRY "exactvmaf_ffmpeg_module"

typedef struct AvModule {
    unsigned abi;
    size_t video_input_size;    /* sizeof(VideoInput) where the module was built */
    int (*open_decoded)(VideoInput **vi, const char *path, const VideoDecodeOptions *o);
    int (*open_sessions)(VideoInput **vi, const char *path, const VideoDecodeOptions *o,
                         unsigned sessions);
    int (*seek_decoded)(VideoInput *vi, int64_t pts, int64_t dts);
    void (*warm_gpu)(int gpu);
    void (*warm_end)(void);
    /* The container's bitrate in kbit/s (or from its duration and `bits`,
     * the file's size in bits): 0 and *source saying which, or <0. */
    int (*container_rate)(const char *path, double bits, double *kbps, const char **source);
} AvModule;

/* The module's one exported symbol (AV_MODULE_ENTRY). */
const AvModule *exactvmaf_ffmpeg_module(void);

/* In the module: its functions behind the table. */
int avm_open_decoded(VideoInput **vi, const char *path, const VideoDecodeOptions *o);
int avm_open_sessions(VideoInput **vi, const char *path, const VideoDecodeOptions *o,
                      unsigned sessions);
int avm_seek_decoded(VideoInput *vi, int64_t pts, int64_t dts);
/* NVDEC engines that decode vi's stream (an NVDEC decoder's input); 0: unknown. */
unsigned avm_nvdec_engines(const VideoInput *vi);

#endif
