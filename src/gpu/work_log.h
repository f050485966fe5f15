/*
 * A lane's queued calls (work_log.c): the pipeline's events recorded or
 * waited for on a lane's queue (logged while the twins queue), and the
 * twins' part of a frame sent to the device. What a twin queues
 * (vmaf_gpu_launch, _memset, _copy, ...) is declared in gpu/twin.h.
 */
#ifndef EXACTVMAF_GPU_WORK_LOG_H
#define EXACTVMAF_GPU_WORK_LOG_H

#include "gpu/lane.h"

int gpu_lane_record(VmafGpuLane *l, VmafGpuEvent *e);
int gpu_lane_wait(VmafGpuLane *l, VmafGpuEvent *e);
int gpu_log_flush(VmafGpu *gpu, VmafGpuLane *l);

#endif
