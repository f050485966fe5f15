/*
 * Pictures whose planes are GPU memory ("device pictures"): what a decoder
 * on the GPU (NVDEC through FFmpeg, a caller's CUDA frames) hands the
 * library, so that a frame reaches the pipeline's lanes without a trip
 * through host memory.
 *
 * A device picture is an ordinary VmafPicture whose reference (VmafRef,
 * picture.c) carries a VmafDevPicture: the planes' device addresses and
 * pitches, how the samples are laid out there (planar, or semi-planar with
 * interleaved chroma as NV12/P010/P016), how far they are shifted up
 * (P010 keeps 10 bits in the top of 16), and an event that marks when the
 * producer's writes are done. pic->data[] holds the device addresses and
 * pic->stride[] the pitches, so code that only passes pictures along needs
 * nothing new; code that reads samples asks vmaf_picture_host() for a host
 * copy, made once per picture and only when asked (a metric without a twin
 * on the run's backend, libvmaf's CPU path on a CPU-only run).
 *
 * The pipeline (gpu/planes.c) turns a device picture into its lanes'
 * packed planes on the GPU: one 2-D copy per plane where the samples are
 * already planar and unshifted, a kernel that splits and shifts them where
 * they are not (gpu/common_kernels.h). The result is bit-identical to the
 * same frame given as a host picture: the split and the shift move and
 * shift integers, nothing more.
 *
 * Backends: CUDA makes and reads them (gpu/cuda/cuda_picture.c). The
 * backend-neutral part is here so that picture.c and the pipeline name no
 * CUDA type.
 */
#ifndef EXACTVMAF_GPU_DEV_PICTURE_H
#define EXACTVMAF_GPU_DEV_PICTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libvmaf/picture.h"

typedef struct VmafDevPicture VmafDevPicture;

/** How a device picture's samples lie in its planes. */
typedef enum VmafDevLayout {
    /** One plane per component, samples as in a host picture (shifted by `shift`). */
    VMAF_DEV_PLANAR = 0,
    /** Luma in plane 0, Cb and Cr interleaved in plane 1 (NV12, P010, P016). */
    VMAF_DEV_SEMIPLANAR = 1,
} VmafDevLayout;

typedef struct VmafDevPictureOps {
    /**
     * Copy the samples to the host picture `host` (allocated by the caller
     * with the picture's geometry), split and shifted down as the pipeline
     * does on the GPU. 0 or a negative errno (logged).
     */
    int (*download)(VmafDevPicture *dp, VmafPicture *host);
    /**
     * May be NULL. The caller hands the picture to vmaf_read_pictures(),
     * having filled it: make `ready` mark the end of the writes queued so
     * far (for pictures the library lent, whose filling it did not see).
     */
    int (*handed_over)(VmafDevPicture *dp);
    /** The picture's last reference went: give its memory back. */
    void (*release)(VmafDevPicture *dp);
} VmafDevPictureOps;

struct VmafDevPicture {
    const VmafDevPictureOps *ops;
    /** The context (CUcontext) of the planes' allocation, which names their
     *  device too: a lane reads them only in that context. */
    void *context;
    VmafDevLayout layout;
    /** Samples are stored value << shift (P010: 6); 0 for 8-bit samples. */
    unsigned shift;
    /** Bytes per stored sample: 1 or 2. */
    unsigned bytes;
    uint64_t addr[3];
    size_t pitch[3];
    /**
     * The backend's event (a CUevent) that completes once the producer's
     * writes of the samples are done; NULL: they were done before the
     * picture was handed over. The pipeline's reads wait for it.
     */
    void *ready;
};

#endif
