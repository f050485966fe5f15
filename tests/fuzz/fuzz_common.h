/*
 * Shared by the libFuzzer targets: a byte reader over the fuzz input, and
 * an in-memory file (memfd) whose /proc path the readers can fopen().
 */
#ifndef EXACTVMAF_FUZZ_COMMON_H
#define EXACTVMAF_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct FuzzIn {
    const uint8_t *p;
    size_t left;
} FuzzIn;

static inline unsigned fuzz_byte(FuzzIn *in)
{
    if (!in->left) return 0;
    in->left--;
    return *in->p++;
}

static inline unsigned fuzz_u16(FuzzIn *in)
{
    const unsigned lo = fuzz_byte(in);
    return lo | fuzz_byte(in) << 8;
}

/* A NUL-terminated copy of the next string (up to a NUL byte or the end). */
static inline char *fuzz_string(FuzzIn *in, size_t max)
{
    size_t n = 0;
    while (n < in->left && n < max && in->p[n]) n++;
    char *s = malloc(n + 1);
    if (!s) abort();
    memcpy(s, in->p, n);
    s[n] = '\0';
    const size_t used = n < in->left ? n + 1 : n;
    in->p += used;
    in->left -= used;
    return s;
}

/*
 * The bytes as a regular file named by *path ("/proc/self/fd/N"). One
 * memfd per process, rewritten for each input.
 */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz_input", 0);
        if (fd < 0) abort();
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0)) abort();
    size_t done = 0;
    while (done < size) {
        const ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
        if (w <= 0) abort();
        done += (size_t)w;
    }
    return path;
}

#endif
