/*
 * The y4m reader on arbitrary files: open (header validation), the frame
 * count scan, then every frame, as a regular file and as a pipe would be
 * read (the size unknown: no checks ahead of reading).
 */
#include "fuzz_common.h"
#include "libvmaf/picture.h"
#include "video_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_all(const char *path, int as_pipe, int deep)
{
    VideoInput *vi = NULL;
    if (video_input_open_y4m(&vi, path)) return;
    if (as_pipe) {
        vi->file_size = -1;
    } else {
        uint64_t frames;
        bool damaged;
        (void)video_input_scan(vi, &frames, &damaged);
    }
    /* Out at the file's depth, or at 16 bits (the --aom_ctc common depth). */
    const unsigned bpc = deep ? 16 : video_input_info(vi)->bpc;
    for (unsigned i = 0; i < 64; i++) {
        VmafPicture pic;
        const int r = i & 1 ? video_input_skip(vi) : video_input_read(vi, &pic, bpc);
        if (r <= 0) break;
        if (!(i & 1)) vmaf_picture_unref(&pic);
    }
    video_input_close(&vi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0;
    /* The first byte picks the mode; the rest is the file. */
    const unsigned mode = data[0];
    const char *path = fuzz_file(data + 1, size - 1);
    read_all(path, mode & 1, mode & 2);
    return 0;
}
