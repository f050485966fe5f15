/*
 * The portability room, Windows side (os.h), for mingw-w64 (its CRT is
 * msvcrt or UCRT; threads are winpthreads'). Built and tested under Wine
 * by scripts/run-windows-tests.sh.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "os/os.h"

void *vmaf_os_aligned_alloc(size_t align, size_t size)
{
    return _aligned_malloc(size ? size : align, align);
}

void vmaf_os_aligned_free(void *p)
{
    _aligned_free(p);
}

/* Large pages on Windows need the "lock pages in memory" privilege, which
 * a user seldom has: the advice is dropped, the pages stay small. */
void vmaf_os_advise_huge(void *p, size_t size)
{
    (void)p;
    (void)size;
}

/* VirtualAlloc's memory is zeroed and starts on 64 KiB (the allocation
 * granularity); a larger alignment only helped huge pages, which we skip. */
void *vmaf_os_map(size_t size, size_t align, int huge)
{
    (void)align;
    (void)huge;
    return VirtualAlloc(NULL, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void vmaf_os_unmap(void *p, size_t size)
{
    (void)size;
    if (p) VirtualFree(p, 0, MEM_RELEASE);
}

/* The system's words for the last error, without its trailing newline. */
static void last_error(char *why, size_t len)
{
    const DWORD e = GetLastError();
    char msg[256] = "";
    FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, msg,
                   sizeof(msg), NULL);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == ' ')) msg[--n] = 0;
    snprintf(why, len, "%s (error %lu)", n ? msg : "unknown error", (unsigned long)e);
}

void *vmaf_os_dlopen(const char *name, char *why, size_t len)
{
    const int bare = !strchr(name, '/') && !strchr(name, '\\');
    /* LOAD_WITH_ALTERED_SEARCH_PATH wants backslashes (its search with '/'
     * is undefined): a path such as the tool's folder + "/module.dll" is
     * given to it with each '/' turned. */
    char path[MAX_PATH];
    if (!bare) {
        if (strlen(name) >= sizeof(path)) {
            if (why && len) snprintf(why, len, "%s: path too long", name);
            return NULL;
        }
        for (size_t i = 0; (path[i] = name[i] == '/' ? '\\' : name[i]); i++)
            ;
    }
    /* No error box when the library is missing: the caller says so. */
    const UINT old = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
    HMODULE lib = bare ? LoadLibraryExA(name, NULL, LOAD_LIBRARY_SEARCH_SYSTEM32)
                       : LoadLibraryExA(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    SetErrorMode(old);
    if (!lib && why && len) last_error(why, len);
    return (void *)lib;
}

void *vmaf_os_dlsym(void *lib, const char *name)
{
    /* FARPROC to void *: copied, as C has no cast between the two kinds. */
    FARPROC f = GetProcAddress((HMODULE)lib, name);
    void *p;
    memcpy(&p, &f, sizeof(p));
    return p;
}

void vmaf_os_dlclose(void *lib)
{
    if (lib) FreeLibrary((HMODULE)lib);
}

long vmaf_os_cpu_count(void)
{
    const DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n ? (long)n : 1;
}

int vmaf_os_localtime(time_t t, struct tm *tm)
{
    return localtime_s(tm, &t) ? -EINVAL : 0;
}

int vmaf_os_open_new(const char *path, unsigned mode)
{
    const int pmode = _S_IREAD | (mode & 0200 ? _S_IWRITE : 0);
    return _open(path, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, pmode);
}

int vmaf_os_open_read(const char *path)
{
    return _open(path, _O_RDONLY | _O_BINARY | _O_NOINHERIT);
}

int vmaf_os_fchmod(int fd, unsigned mode)
{
    (void)fd;
    (void)mode;
    return 0;
}

unsigned vmaf_os_umask(void)
{
    return 0;
}

/* errno for the Win32 errors a file operation meets. */
static int errno_of(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND: return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION: return EACCES;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    case ERROR_DISK_FULL: return ENOSPC;
    default: return EIO;
    }
}

int vmaf_os_rename(const char *from, const char *to)
{
    if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) return 0;
    return -errno_of(GetLastError());
}

/* Links on Windows need a privilege to make and are rare: a path is
 * written as given, which replaces a link itself rather than its target. */
char *vmaf_os_link_target(const char *path)
{
    (void)path;
    return NULL;
}

/* stat()'s st_ino is always 0 here: the identity is the volume and file index. */
static int file_id(const char *path, BY_HANDLE_FILE_INFORMATION *info)
{
    HANDLE h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE) return -1;
    const BOOL ok = GetFileInformationByHandle(h, info);
    CloseHandle(h);
    return ok ? 0 : -1;
}

int vmaf_os_same_file(const char *a, const char *b)
{
    BY_HANDLE_FILE_INFORMATION ia, ib;
    if (file_id(a, &ia) || file_id(b, &ib)) return 0;
    return ia.dwVolumeSerialNumber == ib.dwVolumeSerialNumber &&
           ia.nFileIndexHigh == ib.nFileIndexHigh && ia.nFileIndexLow == ib.nFileIndexLow;
}

int vmaf_os_mkdir(const char *path, unsigned mode)
{
    (void)mode;
    if (!_mkdir(path)) return 0;
    const int e = errno;
    /* "C:" and existing folders: nothing to make. */
    const DWORD a = GetFileAttributesA(path);
    if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY)) return 0;
    return -e;
}

const char *vmaf_os_temp_dir(void)
{
    static char dir[MAX_PATH + 1];
    if (!dir[0]) {
        const DWORD n = GetTempPathA(sizeof(dir), dir);
        if (!n || n >= sizeof(dir)) snprintf(dir, sizeof(dir), ".");
        else if (n > 1 && (dir[n - 1] == '\\' || dir[n - 1] == '/')) dir[n - 1] = 0;
    }
    return dir;
}

int vmaf_os_cache_home(char *buf, size_t len)
{
    const char *dir = getenv("LOCALAPPDATA");
    if (!dir || !*dir) return -ENOENT;
    const int n = snprintf(buf, len, "%s", dir);
    return n > 0 && (size_t)n < len ? 0 : -ENOENT;
}

int vmaf_os_exe_dir(char *buf, size_t len)
{
    const DWORD n = GetModuleFileNameA(NULL, buf, (DWORD)len);
    if (!n || n >= len) return -ENOENT;
    char *sep = NULL;
    for (char *p = buf; *p; p++)
        if (*p == '\\' || *p == '/') sep = p;
    if (!sep) return -ENOENT;
    *sep = '\0';
    return 0;
}

void vmaf_os_binary_stdio(void)
{
    _setmode(_fileno(stdin), _O_BINARY);
    _setmode(_fileno(stdout), _O_BINARY);
}

long vmaf_os_getline(char **line, size_t *cap, FILE *f)
{
    size_t n = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (n + 2 > *cap || !*line) {
            const size_t want = *cap > 64 ? *cap * 2 : 128;
            char *p = realloc(*line, want);
            if (!p) return -1;
            *line = p;
            *cap = want;
        }
        (*line)[n++] = (char)c;
        if (c == '\n') break;
    }
    if (!n) return -1;
    (*line)[n] = '\0';
    return (long)n;
}

int vmaf_os_setenv(const char *name, const char *value)
{
    return _putenv_s(name, value) ? -EINVAL : 0;
}

/* _putenv_s with an empty value removes the variable. */
int vmaf_os_unsetenv(const char *name)
{
    return _putenv_s(name, "") ? -EINVAL : 0;
}
