/* A frame's planes on its lane (planes.c). */
#ifndef EXACTVMAF_GPU_PLANES_H
#define EXACTVMAF_GPU_PLANES_H

#include "gpu/lane.h"

/** The declared planes of pic (ref, dist) into dst on the lane's queue. */
int gpu_upload_planes(VmafGpu *gpu, VmafGpuLane *l, const VmafPicture *const pic[2],
                      VmafGpuPtr dst[2][3]);
/** The pictures a lane holds, released. */
void gpu_release_pictures(VmafGpuLane *l);

#endif
