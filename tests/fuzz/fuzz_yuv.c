/*
 * The raw YUV reader: geometry from the first bytes (as -w -h -p -b would
 * give it), the rest is the file.
 */
#include "fuzz_common.h"
#include "libvmaf/picture.h"
#include "video_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzIn in = { data, size };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P, VMAF_PIX_FMT_YUV400P,
                                                 VMAF_PIX_FMT_UNKNOWN };
    static const unsigned depths[] = { 8, 10, 12, 16, 9, 0, 17 };
    const unsigned w = fuzz_byte(&in) % 72, h = fuzz_byte(&in) % 72;
    const unsigned f = fuzz_byte(&in), b = fuzz_byte(&in);
    const unsigned mode = fuzz_byte(&in);
    const char *path = fuzz_file(in.p, in.left);
    VideoInput *vi = NULL;
    if (video_input_open_yuv(&vi, path, w, h, fmts[f % 5], depths[b % 7])) return 0;
    if (mode & 1) {
        vi->file_size = -1;
    } else {
        uint64_t frames;
        bool damaged;
        (void)video_input_scan(vi, &frames, &damaged);
    }
    const unsigned bpc = mode & 2 ? 16 : video_input_info(vi)->bpc;
    for (unsigned i = 0; i < 32; i++) {
        VmafPicture pic;
        const int r = video_input_read(vi, &pic, bpc);
        if (r <= 0) break;
        vmaf_picture_unref(&pic);
    }
    video_input_close(&vi);
    return 0;
}
