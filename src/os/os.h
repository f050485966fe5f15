/*
 * The portability room: every operating-system call the library and the
 * tool make that is not plain C11 (or POSIX that mingw-w64's CRT and
 * winpthreads give on Windows: pthread_*, clock_gettime(CLOCK_MONOTONIC),
 * stat, mkstemp, getpid) goes through here. os_posix.c is the POSIX side
 * (Linux, macOS: it builds with -D_POSIX_C_SOURCE=200809L and no
 * _GNU_SOURCE, scripts/posix-check.sh), os_win32.c the Windows side; the
 * build compiles one of them. The models are dav1d's src/win32/ and
 * FFmpeg's compat/.
 *
 * Errors are the tree's convention: 0 or a negative errno value, unless a
 * function says otherwise.
 */
#ifndef EXACTVMAF_OS_H
#define EXACTVMAF_OS_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#ifdef _WIN32
#define VMAF_OS_WINDOWS 1
#else
#define VMAF_OS_WINDOWS 0
#endif

/*
 * printf-like functions' attribute: mingw-w64's gcc takes "printf" as
 * msvcrt's (no %zu); the tree prints through mingw's C99 stdio
 * (__USE_MINGW_ANSI_STDIO, meson.build), which is gnu_printf.
 */
#if defined(__MINGW32__)
#define VMAF_OS_PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#else
#define VMAF_OS_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#endif

/* POSIX regular expressions (<regex.h>): not in Windows' C library. */
#define VMAF_OS_HAVE_REGEX (!VMAF_OS_WINDOWS)

/* ---- Memory ---- */

/*
 * `size` bytes (0 taken as `align`) starting on a multiple of `align` (a
 * power of two, at least sizeof(void *)), not zeroed, or NULL. Released by
 * vmaf_os_aligned_free() and by nothing else: on Windows it is
 * _aligned_malloc's, which free() must not see.
 */
void *vmaf_os_aligned_alloc(size_t align, size_t size);
void vmaf_os_aligned_free(void *p);

/* The page size vmaf_os_map() rounds to (4 KiB on every target we build for). */
#define VMAF_OS_PAGE ((size_t)4096)

/*
 * `size` bytes (a multiple of VMAF_OS_PAGE) of zeroed memory fresh from the
 * system, starting on a multiple of `align` where the system can do that
 * cheaply (POSIX: any power of two from the page up; Windows: 64 KiB, its
 * allocation granularity), or NULL. `huge` asks for transparent huge pages
 * (Linux; advice only). Released by vmaf_os_unmap() with the same size.
 */
void *vmaf_os_map(size_t size, size_t align, int huge);
void vmaf_os_unmap(void *p, size_t size);
/* Advise transparent huge pages for [p, p + size) where the system has them. */
void vmaf_os_advise_huge(void *p, size_t size);

/* ---- Dynamic loading ---- */

/* The GPU drivers' libraries, loaded at run time (nothing links against them);
 * NVCUVID is NVDEC's, which FFmpeg opens and the tool asks about engines. */
#if VMAF_OS_WINDOWS
#define VMAF_OS_CUDA_LIB "nvcuda.dll"
#define VMAF_OS_NVCUVID_LIB "nvcuvid.dll"
#define VMAF_OS_OPENCL_LIB "OpenCL.dll"
#define VMAF_OS_OPENCL_LIB_ALT NULL
#elif defined(__APPLE__)
#define VMAF_OS_CUDA_LIB "libcuda.dylib"
#define VMAF_OS_NVCUVID_LIB "libnvcuvid.dylib"
#define VMAF_OS_OPENCL_LIB "/System/Library/Frameworks/OpenCL.framework/OpenCL"
#define VMAF_OS_OPENCL_LIB_ALT NULL
#else
#define VMAF_OS_CUDA_LIB "libcuda.so.1"
#define VMAF_OS_NVCUVID_LIB "libnvcuvid.so.1"
#define VMAF_OS_OPENCL_LIB "libOpenCL.so.1"
#define VMAF_OS_OPENCL_LIB_ALT "libOpenCL.so"
#endif

/*
 * The suffix of a module the build makes with meson's shared_module() (the
 * tool's FFmpeg input module: tools/meson.build names it the same way), and
 * the mark of the one function a module exports.
 */
#if VMAF_OS_WINDOWS
#define VMAF_OS_MODULE_SUFFIX ".dll"
#define VMAF_OS_MODULE_EXPORT __declspec(dllexport)
#else
#define VMAF_OS_MODULE_SUFFIX ".so"
#define VMAF_OS_MODULE_EXPORT __attribute__((visibility("default")))
#endif

/*
 * Open a shared library (its symbols kept to itself), or NULL with the
 * system's reason in why[len]. A bare Windows name is looked for in the
 * system folder only, not in the current one (a planted nvcuda.dll there
 * would run as us); a Windows path may be written with '/' or '\\'.
 */
void *vmaf_os_dlopen(const char *name, char *why, size_t len);
/* A function of it by name, or NULL. */
void *vmaf_os_dlsym(void *lib, const char *name);
void vmaf_os_dlclose(void *lib);

/* ---- Processors and time ---- */

/* Logical processors online (at least 1). */
long vmaf_os_cpu_count(void);
/* vmaf_os_process_seconds(): os/process_time.h (header-only, for trace.h). */
/* localtime_r(): 0, or -EINVAL where t cannot be converted. */
int vmaf_os_localtime(time_t t, struct tm *tm);
/* CLOCK_REALTIME `ms` milliseconds from now: the deadline of a timed pthread
 * wait (a condition's, a timed join's). winpthreads has the clock too. */
static inline struct timespec vmaf_os_deadline_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += ms % 1000 * 1000 * 1000;
    if (t.tv_nsec >= 1000000000) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000;
    }
    return t;
}

/* ---- Files ---- */

/* A path separator of this system ('/' and, on Windows, '\\'). */
static inline int vmaf_os_is_sep(char c)
{
    return c == '/' || (VMAF_OS_WINDOWS && c == '\\');
}

/*
 * Create `path`, which must not exist, for writing: binary (no newline
 * translation), not inherited by child processes, with permissions `mode`
 * less the umask (Windows: read-only unless 0200 is set). A descriptor, or
 * -1 with errno set, as open() gives.
 */
int vmaf_os_open_new(const char *path, unsigned mode);
/* Open `path` for binary reading, not inherited; -1 with errno on failure. */
int vmaf_os_open_read(const char *path);
/* fchmod(): permission bits of an open file (Windows keeps none: 0). */
int vmaf_os_fchmod(int fd, unsigned mode);
/* The process's umask (POSIX; Windows: 0). */
unsigned vmaf_os_umask(void);
/*
 * Rename `from` to `to`, replacing `to` if it exists, in one step that
 * readers never see half done (POSIX rename(); Windows MoveFileEx with
 * MOVEFILE_REPLACE_EXISTING: rename() there fails on an existing target).
 */
int vmaf_os_rename(const char *from, const char *to);
/*
 * Where `path` points when it is a symbolic link: the malloc'd absolute path
 * of its final target (the caller frees it); NULL when it is no link, or
 * cannot be resolved (then the path itself is written, as before links).
 */
char *vmaf_os_link_target(const char *path);
/* 1 when both paths name one existing file (POSIX: device and inode; Windows:
 * volume and file index), else 0. */
int vmaf_os_same_file(const char *a, const char *b);
/* mkdir with `mode` (Windows: no mode); 0 also when `path` is a folder already. */
int vmaf_os_mkdir(const char *path, unsigned mode);
/* The folder for temporary files ($TMPDIR or /tmp; Windows: GetTempPath). Never NULL. */
const char *vmaf_os_temp_dir(void);
/*
 * The user's cache folder, in buf[len]: $XDG_CACHE_HOME (absolute only),
 * else $HOME/.cache; Windows: %LOCALAPPDATA%. -ENOENT where there is none.
 */
int vmaf_os_cache_home(char *buf, size_t len);
/*
 * The folder of the running executable, in buf[len] (no trailing
 * separator); -ENOENT where it cannot be found.
 */
int vmaf_os_exe_dir(char *buf, size_t len);
/* Switch stdin and stdout to binary (Windows translates "\n" otherwise; POSIX: nothing). */
void vmaf_os_binary_stdio(void);

/*
 * getline(): a line with its '\n' into the malloc'd *line (grown, *cap
 * updated), its length, or -1 at end of file or on error.
 */
long vmaf_os_getline(char **line, size_t *cap, FILE *f);

/* ---- Environment ---- */

/* setenv(name, value, 1) and unsetenv(name). */
int vmaf_os_setenv(const char *name, const char *value);
int vmaf_os_unsetenv(const char *name);

#endif
