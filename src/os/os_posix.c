/*
 * The portability room, POSIX side (os.h): Linux and macOS. Outside this
 * file the tree needs nothing beyond _POSIX_C_SOURCE=200809L; the
 * extensions it uses here (anonymous mappings, madvise) are asked for here
 * and each is guarded, so that a system without one still builds.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* glibc: MAP_ANONYMOUS, madvise */
#endif
#ifndef _DARWIN_C_SOURCE
#define _DARWIN_C_SOURCE 1 /* macOS: MAP_ANON, _NSGetExecutablePath */
#endif

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

#include "os/os.h"

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

void *vmaf_os_aligned_alloc(size_t align, size_t size)
{
    void *p = NULL;
    /* posix_memalign, not aligned_alloc: C11's wants a size that is a
     * multiple of the alignment, and macOS enforces it. */
    return posix_memalign(&p, align, size ? size : align) ? NULL : p;
}

void vmaf_os_aligned_free(void *p)
{
    free(p);
}

void vmaf_os_advise_huge(void *p, size_t size)
{
#if defined(MADV_HUGEPAGE)
    /* Refused where THP is off or unknown: then the pages are small. */
    (void)madvise(p, size, MADV_HUGEPAGE);
#else
    (void)p;
    (void)size;
#endif
}

#if defined(MAP_ANONYMOUS)
void *vmaf_os_map(size_t size, size_t align, int huge)
{
    if (align <= VMAF_OS_PAGE) {
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
        if (huge) vmaf_os_advise_huge(p, size);
        return p;
    }
    /* Map `align` more, keep the aligned part, give the rest back. */
    if (size > SIZE_MAX - align) return NULL;
    uint8_t *m = mmap(NULL, size + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    if (m == MAP_FAILED) return NULL;
    uint8_t *p = (uint8_t *)(((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1));
    const size_t head = (size_t)(p - m), tail = align - head;
    if (head) munmap(m, head);
    if (tail) munmap(p + size, tail);
    if (huge) vmaf_os_advise_huge(p, size);
    return p;
}

void vmaf_os_unmap(void *p, size_t size)
{
    if (p) munmap(p, size);
}
#else
/* No anonymous mappings: aligned heap memory, zeroed by hand. */
void *vmaf_os_map(size_t size, size_t align, int huge)
{
    (void)huge;
    void *p = vmaf_os_aligned_alloc(align > VMAF_OS_PAGE ? align : VMAF_OS_PAGE, size);
    if (p) memset(p, 0, size);
    return p;
}

void vmaf_os_unmap(void *p, size_t size)
{
    (void)size;
    vmaf_os_aligned_free(p);
}
#endif

void *vmaf_os_dlopen(const char *name, char *why, size_t len)
{
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib && why && len) {
        /* Copied at once: the next dlopen may overwrite dlerror's text. */
        const char *e = dlerror();
        snprintf(why, len, "%s", e ? e : "not found");
    }
    return lib;
}

void *vmaf_os_dlsym(void *lib, const char *name)
{
    return dlsym(lib, name);
}

void vmaf_os_dlclose(void *lib)
{
    if (lib) dlclose(lib);
}

long vmaf_os_cpu_count(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

int vmaf_os_localtime(time_t t, struct tm *tm)
{
    return localtime_r(&t, tm) ? 0 : -EINVAL;
}

int vmaf_os_open_new(const char *path, unsigned mode)
{
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
}

int vmaf_os_open_read(const char *path)
{
    return open(path, O_RDONLY | O_CLOEXEC);
}

int vmaf_os_fchmod(int fd, unsigned mode)
{
    return fchmod(fd, (mode_t)mode) ? -errno : 0;
}

unsigned vmaf_os_umask(void)
{
    const mode_t mask = umask(0);
    umask(mask);
    return (unsigned)mask;
}

int vmaf_os_rename(const char *from, const char *to)
{
    return rename(from, to) ? -errno : 0;
}

char *vmaf_os_link_target(const char *path)
{
    struct stat st;
    if (lstat(path, &st) || !S_ISLNK(st.st_mode)) return NULL;
    return realpath(path, NULL);
}

int vmaf_os_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) || stat(b, &sb)) return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int vmaf_os_mkdir(const char *path, unsigned mode)
{
    if (!mkdir(path, (mode_t)mode) || errno == EEXIST) return 0;
    return -errno;
}

const char *vmaf_os_temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

int vmaf_os_cache_home(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    /* XDG: a relative XDG_CACHE_HOME is invalid and ignored. */
    if (xdg && xdg[0] == '/') n = snprintf(buf, len, "%s", xdg);
    else if (home && home[0] == '/') n = snprintf(buf, len, "%s/.cache", home);
    else return -ENOENT;
    return n > 0 && (size_t)n < len ? 0 : -ENOENT;
}

int vmaf_os_exe_dir(char *buf, size_t len)
{
    if (len < 2) return -ENOENT;
#if defined(__APPLE__)
    uint32_t size = (uint32_t)len;
    if (_NSGetExecutablePath(buf, &size)) return -ENOENT;
#else
    const ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0) return -ENOENT;
    buf[n] = '\0';
#endif
    char *slash = strrchr(buf, '/');
    if (!slash) return -ENOENT;
    *slash = '\0';
    return 0;
}

void vmaf_os_binary_stdio(void)
{
}

long vmaf_os_getline(char **line, size_t *cap, FILE *f)
{
    return (long)getline(line, cap, f);
}

int vmaf_os_setenv(const char *name, const char *value)
{
    return setenv(name, value, 1) ? -errno : 0;
}

int vmaf_os_unsetenv(const char *name)
{
    return unsetenv(name) ? -errno : 0;
}
