/*
 * Built OpenCL programs kept on disk between runs: a driver's build of the
 * kernels takes seconds (NVIDIA's, on a fresh machine), its binary loads in
 * milliseconds. One file per program under the user's cache directory,
 * named by a SHA-256 of everything the binary depends on (device name,
 * platform and its version, device and driver versions, build options and
 * the kernel text): a changed kernel, option or driver is another name and
 * never loads a stale binary. Files are written whole (a temporary file
 * renamed) and checked when read (their key and a SHA-256 of the binary); a
 * file that fails any check is a miss. The cache never fails a run: what
 * cannot be read or written is built as without it.
 *
 * Where: $EXACTVMAF_CACHE_DIR, else $XDG_CACHE_HOME/exactvmaf, else
 * $HOME/.cache/exactvmaf, in its opencl/ folder. EXACTVMAF_CACHE=0 turns
 * the cache off.
 */
#ifndef EXACTVMAF_OPENCL_CACHE_H
#define EXACTVMAF_OPENCL_CACHE_H

#include <stddef.h>

#include "gpu/opencl/opencl_driver.h"

/** What a cached binary depends on, besides the kernel text. */
typedef struct EvlCacheId {
    const char *device, *platform, *platform_version, *device_version, *driver;
    const char *options;
} EvlCacheId;

/** A program's cache entry: its file name and the key text stored in it. */
typedef struct EvlCacheKey {
    char file[80];          /**< "<sha-256 hex>.clbin" */
    char text[2048];        /**< the id and the kernel text's SHA-256, one per line */
} EvlCacheKey;

/** The key of `source` built for `id`. */
void evl_cache_key(const EvlCacheId *id, const char *source, EvlCacheKey *key);

/**
 * The folder the cache uses now (the environment decides; see above), in
 * buf; 0, or -ENOENT when the cache is off or no folder can be named.
 */
int evl_cache_dir(char *buf, size_t len);

/**
 * The program of `key` from the cache, built for `device` with `options`;
 * NULL on a miss (no file, a file that fails a check, a binary the driver
 * refuses), said at the debug level.
 */
cl_program evl_cache_load(cl_context ctx, cl_device_id device, const char *options,
                          const EvlCacheKey *key, const char *prog_name);

/** Store built program p's binary under `key`; failures are said at the debug level only. */
void evl_cache_store(cl_program p, const EvlCacheKey *key, const char *prog_name);

#endif
