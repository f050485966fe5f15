/*
 * The on-disk cache of built OpenCL programs (opencl_cache.h): the key, the
 * folder, reading and checking a file, writing one atomically.
 *
 * A file: the line "exactvmaf-opencl-cache 1", the key text's length (4
 * bytes, little-endian) and text, the binary's length (8 bytes) and bytes,
 * then the binary's SHA-256.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h> /* read, write, close, unlink, getpid: in mingw-w64 too */

#include "log.h"
#include "os/os.h"
#include "gpu/opencl/opencl_cache.h"
#include "gpu/opencl/opencl_loader.h"

#define MAGIC "exactvmaf-opencl-cache 1\n"
/* A larger file is not one of ours (NVIDIA's PTX of the largest program is ~1 MiB). */
#define MAX_FILE_BYTES ((size_t)256 << 20)

/* ---- SHA-256 (FIPS 180-4) ---- */

typedef struct Sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    unsigned fill;
} Sha256;

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
    return x >> n | x << (32 - n);
}

static void sha_block(Sha256 *s, const unsigned char *p)
{
    uint32_t w[64];
    for (unsigned i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (unsigned i = 16; i < 64; i++) {
        const uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3;
        const uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10;
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
    uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (unsigned i = 0; i < 64; i++) {
        const uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
                            sha_k[i] + w[i];
        const uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
    s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha_init(Sha256 *s)
{
    static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(s->h, h0, sizeof(h0));
    s->bytes = 0;
    s->fill = 0;
}

static void sha_update(Sha256 *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    s->bytes += n;
    while (n) {
        const size_t take = 64 - s->fill < n ? 64 - s->fill : n;
        memcpy(s->block + s->fill, p, take);
        s->fill += (unsigned)take;
        p += take;
        n -= take;
        if (s->fill == 64) {
            sha_block(s, s->block);
            s->fill = 0;
        }
    }
}

static void sha_final(Sha256 *s, unsigned char out[32])
{
    const uint64_t bits = s->bytes * 8;
    unsigned char pad[72] = { 0x80 };
    const size_t n_pad = (s->fill < 56 ? 56 : 120) - s->fill;
    for (unsigned i = 0; i < 8; i++) pad[n_pad + i] = (unsigned char)(bits >> (56 - 8 * i));
    sha_update(s, pad, n_pad + 8);
    for (unsigned i = 0; i < 32; i++) out[i] = (unsigned char)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

static void sha256(const void *data, size_t n, unsigned char out[32])
{
    Sha256 s;
    sha_init(&s);
    sha_update(&s, data, n);
    sha_final(&s, out);
}

static void hex(const unsigned char *d, size_t n, char *out)
{
    static const char digit[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digit[d[i] >> 4];
        out[2 * i + 1] = digit[d[i] & 15];
    }
    out[2 * n] = '\0';
}

/* ---- Key and folder ---- */

void evl_cache_key(const EvlCacheId *id, const char *source, EvlCacheKey *key)
{
    unsigned char d[32];
    char src_hex[65], key_hex[65];
    sha256(source, strlen(source), d);
    hex(d, 32, src_hex);
    /* Every field on its own line: a field cannot run into the next one. */
    snprintf(key->text, sizeof(key->text),
             "device %s\nplatform %s\nplatform version %s\ndevice version %s\n"
             "driver %s\noptions %s\nkernel text sha-256 %s\n", id->device, id->platform,
             id->platform_version, id->device_version, id->driver, id->options, src_hex);
    sha256(key->text, strlen(key->text), d);
    hex(d, 32, key_hex);
    snprintf(key->file, sizeof(key->file), "%s.clbin", key_hex);
}

int evl_cache_dir(char *buf, size_t len)
{
    const char *off = getenv("EXACTVMAF_CACHE");
    if (off && (!strcmp(off, "0") || !strcmp(off, "off"))) return -ENOENT;
    const char *dir = getenv("EXACTVMAF_CACHE_DIR");
    char home[4096];
    int n;
    if (dir && *dir) n = snprintf(buf, len, "%s/opencl", dir);
    else if (!vmaf_os_cache_home(home, sizeof(home)))
        n = snprintf(buf, len, "%s/exactvmaf/opencl", home);
    else return -ENOENT;
    return n > 0 && (size_t)n < len ? 0 : -ENOENT;
}

/* mkdir -p, private to the user (a shared machine's other users need not read our binaries). */
static int make_dirs(const char *path)
{
    char p[4096];
    if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p)) return -ENAMETOOLONG;
    for (char *s = p + 1;; s++) {
        if (!vmaf_os_is_sep(*s) && *s) continue;
        const char c = *s;
        *s = '\0';
        const int err = vmaf_os_mkdir(p, 0700);
        if (err) return err;
        if (!c) break;
        *s = c;
    }
    return 0;
}

/* ---- Reading ---- */

static int read_file(const char *path, unsigned char **data, size_t *size)
{
    *data = NULL;
    const int fd = vmaf_os_open_read(path);
    if (fd < 0) return -errno;
    struct stat st;
    int err = fstat(fd, &st) ? -errno : 0;
    if (!err && (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_FILE_BYTES)) err = -EINVAL;
    unsigned char *d = err ? NULL : malloc((size_t)st.st_size + 1);
    if (!err && !d) err = -ENOMEM;
    size_t got = 0;
    while (!err && got < (size_t)st.st_size) {
        const ssize_t r = read(fd, d + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) err = r < 0 ? -errno : -EIO;
        else got += (size_t)r;
    }
    close(fd);
    if (err) {
        free(d);
        return err;
    }
    *data = d;
    *size = got;
    return 0;
}

static uint64_t get_le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The binary inside a file's bytes, when every check passes; else why not. */
static const char *check_file(const unsigned char *d, size_t size, const EvlCacheKey *key,
                              const unsigned char **bin, size_t *bin_size)
{
    const size_t magic = sizeof(MAGIC) - 1, key_len = strlen(key->text);
    if (size < magic + 4 || memcmp(d, MAGIC, magic)) return "not a cache file of this version";
    size_t at = magic;
    if (get_le(d + at, 4) != key_len || size - at - 4 < key_len ||
        memcmp(d + at + 4, key->text, key_len))
        return "made for another key";
    at += 4 + key_len;
    if (size - at < 8 + 32) return "truncated";
    const uint64_t n = get_le(d + at, 8);
    at += 8;
    if (n == 0 || n != size - at - 32) return "truncated or overlong";
    unsigned char sum[32];
    sha256(d + at, (size_t)n, sum);
    if (memcmp(sum, d + at + n, 32)) return "its checksum does not match";
    *bin = d + at;
    *bin_size = (size_t)n;
    return NULL;
}

cl_program evl_cache_load(cl_context ctx, cl_device_id device, const char *options,
                          const EvlCacheKey *key, const char *prog_name)
{
    char dir[4096], path[4200];
    if (evl_cache_dir(dir, sizeof(dir))) return NULL;
    snprintf(path, sizeof(path), "%s/%s", dir, key->file);
    unsigned char *data = NULL;
    size_t size = 0;
    int err = read_file(path, &data, &size);
    if (err) {
        vmaf_log(VMAF_LOG_LEVEL_DEBUG, "opencl: program %s: not in the cache (%s: %s)",
                 prog_name, path, strerror(-err));
        return NULL;
    }
    const unsigned char *bin = NULL;
    size_t bin_size = 0;
    const char *bad = check_file(data, size, key, &bin, &bin_size);
    cl_program p = NULL;
    if (!bad) {
        const EvlDriver *cl = evl_driver();
        cl_int status = EVL_CL_SUCCESS, r = EVL_CL_SUCCESS;
        p = cl->clCreateProgramWithBinary(ctx, 1, &device, &bin_size, &bin, &status, &r);
        if (r != EVL_CL_SUCCESS || status != EVL_CL_SUCCESS || !p) bad = "the driver refuses it";
        /* A binary is built too (the driver links or finishes it), with the same options. */
        else if ((r = cl->clBuildProgram(p, 1, &device, options, NULL, NULL)) != EVL_CL_SUCCESS)
            bad = "the driver cannot build it";
        if (bad && p) {
            cl->clReleaseProgram(p);
            p = NULL;
        }
    }
    free(data);
    if (bad)
        vmaf_log(VMAF_LOG_LEVEL_DEBUG, "opencl: program %s: cache file %s is not usable (%s); "
                 "building it", prog_name, path, bad);
    else
        vmaf_log(VMAF_LOG_LEVEL_DEBUG, "opencl: program %s: loaded from the cache (%s)",
                 prog_name, path);
    return p;
}

/* ---- Writing ---- */

static int write_all(int fd, const void *p, size_t n)
{
    const unsigned char *c = p;
    while (n) {
        const ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? -errno : -EIO;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The program's binary for its one device (malloc'd); NULL when the driver gives none. */
static unsigned char *program_binary(cl_program p, size_t *size)
{
    const EvlDriver *cl = evl_driver();
    *size = 0;
    if (cl->clGetProgramInfo(p, EVL_CL_PROGRAM_BINARY_SIZES, sizeof(*size), size, NULL) !=
            EVL_CL_SUCCESS || !*size || *size > MAX_FILE_BYTES)
        return NULL;
    unsigned char *bin = malloc(*size);
    if (bin && cl->clGetProgramInfo(p, EVL_CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL) !=
            EVL_CL_SUCCESS) {
        free(bin);
        bin = NULL;
    }
    return bin;
}

void evl_cache_store(cl_program p, const EvlCacheKey *key, const char *prog_name)
{
    static atomic_uint counter;
    char dir[4096], path[4200], tmp[4300];
    if (evl_cache_dir(dir, sizeof(dir))) return;
    snprintf(path, sizeof(path), "%s/%s", dir, key->file);
    size_t size = 0;
    unsigned char *bin = program_binary(p, &size);
    int err = bin ? make_dirs(dir) : -ENODATA;
    int fd = -1;
    if (!err) {
        /* A name of this process and call: concurrent writers of one key each
         * write their own file, and the last rename wins with a whole file. */
        snprintf(tmp, sizeof(tmp), "%s.%ld.%u.tmp", path, (long)getpid(),
                 atomic_fetch_add(&counter, 1));
        fd = vmaf_os_open_new(tmp, 0600);
        if (fd < 0) err = -errno;
    }
    if (!err) {
        const uint32_t key_len = (uint32_t)strlen(key->text);
        unsigned char head[8], sum[32];
        for (unsigned i = 0; i < 4; i++) head[i] = (unsigned char)(key_len >> (8 * i));
        err = write_all(fd, MAGIC, sizeof(MAGIC) - 1);
        if (!err) err = write_all(fd, head, 4);
        if (!err) err = write_all(fd, key->text, key_len);
        for (unsigned i = 0; i < 8; i++) head[i] = (unsigned char)((uint64_t)size >> (8 * i));
        if (!err) err = write_all(fd, head, 8);
        if (!err) err = write_all(fd, bin, size);
        sha256(bin, size, sum);
        if (!err) err = write_all(fd, sum, 32);
        if (close(fd) && !err) err = -errno;
        if (!err) err = vmaf_os_rename(tmp, path);
        if (err) unlink(tmp);
    }
    free(bin);
    if (err)
        vmaf_log(VMAF_LOG_LEVEL_DEBUG, "opencl: program %s: not cached in %s (%s)", prog_name,
                 dir, err == -ENODATA ? "the driver gives no binary" : strerror(-err));
    else
        vmaf_log(VMAF_LOG_LEVEL_DEBUG, "opencl: program %s: cached as %s", prog_name, path);
}
