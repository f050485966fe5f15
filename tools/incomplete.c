/*
 * Marked output of an interrupted run (see incomplete.h). The library
 * writes its file to a scratch name; it is then copied to the target with
 * the marker added, through a temporary file renamed into place, so that
 * the target is never seen half written and never without its marker.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/os/os.h"
#include "incomplete.h"

static void report(const char *path, int err)
{
    fprintf(stderr, "exactvmaf: cannot write output %s: %s\n", path, strerror(-err));
}

/* A fresh file from template tmpl ("...XXXXXX"), closed; -errno on failure. */
static int make_scratch(char *tmpl)
{
    const int fd = mkstemp(tmpl);
    if (fd < 0) return -errno;
    close(fd);
    return 0;
}

static char *scratch_template(const char *path, bool beside)
{
    const char *dir = vmaf_os_temp_dir();
    const size_t sz = strlen(beside ? path : dir) + 32;
    char *t = malloc(sz);
    if (!t) return NULL;
    if (beside) snprintf(t, sz, "%s.%ld.XXXXXX", path, (long)getpid());
    else snprintf(t, sz, "%s/exactvmaf.%ld.XXXXXX", dir, (long)getpid());
    return t;
}

/* Copy in to out with the marker. Returns 0 or -EIO (stream errors are
 * checked by the caller). */
static int copy_marked(FILE *in, FILE *out, enum VmafOutputFormat fmt,
                       const CliIncomplete *inc)
{
    char *line = NULL;
    size_t cap = 0;
    const long len = vmaf_os_getline(&line, &cap, in);
    switch (fmt) {
    case VMAF_OUTPUT_FORMAT_JSON:
        /* The library's first line is the document's "{". */
        if (len > 0) fputs(line, out);
        fprintf(out, "  \"incomplete\": {\"frames\": %u, \"reason\": \"%s\"},\n",
                inc->frames, inc->reason);
        break;
    case VMAF_OUTPUT_FORMAT_XML:
        /* The library's first line is the root's start tag, <VMAF ...>. */
        if (len > 1 && line[len - 1] == '\n' && line[len - 2] == '>') {
            fwrite(line, 1, (size_t)len - 2, out);
            fputs(" incomplete=\"true\">\n", out);
        } else if (len > 0) {
            fputs(line, out);
        }
        fprintf(out, "  <incomplete frames=\"%u\" reason=\"%s\" />\n", inc->frames,
                inc->reason);
        break;
    default:
        fprintf(out, "# INCOMPLETE: %u frames, %s\n", inc->frames, inc->reason);
        if (len > 0) fputs(line, out);
        break;
    }
    free(line);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        if (fwrite(buf, 1, n, out) != n) return -EIO;
    return ferror(in) ? -EIO : 0;
}

static int write_marked(VmafContext *vmaf, const char *path, enum VmafOutputFormat fmt,
                        const CliIncomplete *incomplete)
{
    const bool to_stdout = !strcmp(path, "-");
    struct stat st;
    const bool exists = !to_stdout && !stat(path, &st);
    /* A device or pipe is written in place; a file is replaced at the end. */
    const bool in_place = to_stdout || (exists && !S_ISREG(st.st_mode));

    int err;
    FILE *in = NULL, *out = NULL;
    char *tmp_out = NULL;
    char *scratch = scratch_template(path, !in_place);
    if (!scratch) {
        err = -ENOMEM;
        goto fail;
    }
    err = make_scratch(scratch);
    if (err) {
        fprintf(stderr, "exactvmaf: cannot create a scratch file %s: %s\n", scratch,
                strerror(-err));
        free(scratch);
        scratch = NULL;
        goto fail;
    }
    err = vmaf_write_output(vmaf, scratch, fmt);
    if (err) goto fail;     /* the library has said why */
    in = fopen(scratch, "rb");
    if (!in) {
        err = -errno;
        report(path, err);
        goto fail;
    }

    if (to_stdout) {
        out = stdout;
    } else if (in_place) {
        out = fopen(path, "wb");
    } else {
        tmp_out = scratch_template(path, true);
        if (!tmp_out) {
            err = -ENOMEM;
            goto fail;
        }
        const int fd = mkstemp(tmp_out);
        if (fd < 0) {
            free(tmp_out);
            tmp_out = NULL;
        } else {
            /* mkstemp makes 0600: give the file the mode it would have had. */
            const unsigned mode = exists ? st.st_mode & 07777 : 0666 & ~vmaf_os_umask();
            (void)vmaf_os_fchmod(fd, mode);
            out = fdopen(fd, "wb");
            if (!out) close(fd);
        }
    }
    if (!out) {
        err = -errno;
        report(path, err);
        goto fail;
    }
    err = copy_marked(in, out, fmt, incomplete);
    if (fflush(out) && !err) err = -errno;
    if (ferror(out) && !err) err = -EIO;
    if (out != stdout && fclose(out) && !err) err = -errno;
    out = NULL;
    if (!err && tmp_out) err = vmaf_os_rename(tmp_out, path);
    if (err) {
        report(path, err);
        goto fail;
    }
    fclose(in);
    unlink(scratch);
    free(scratch);
    free(tmp_out);
    return 0;

fail:
    if (out && out != stdout) fclose(out);
    if (in) fclose(in);
    if (tmp_out) {
        unlink(tmp_out);
        free(tmp_out);
    }
    if (scratch) {
        unlink(scratch);
        free(scratch);
    }
    return err;
}

int cli_write_output(VmafContext *vmaf, const char *path, enum VmafOutputFormat fmt,
                     const CliIncomplete *incomplete)
{
    if (!incomplete) return vmaf_write_output(vmaf, path, fmt);

    /* A link to a file: replace the file and keep the link, as the library does. */
    char *resolved = strcmp(path, "-") ? vmaf_os_link_target(path) : NULL;
    const char *target = resolved ? resolved : path;
    const int ret = write_marked(vmaf, target, fmt, incomplete);
    free(resolved);
    return ret;
}
