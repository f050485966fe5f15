/* The pipeline's threads and its error (workers.c). */
#ifndef EXACTVMAF_GPU_WORKERS_H
#define EXACTVMAF_GPU_WORKERS_H

#include "gpu/lane.h"

/** Record the pipeline's error; frames from seq on are dropped. */
void gpu_set_error(VmafGpu *gpu, int err, unsigned seq);

/** The threads' bodies (arg: the pipeline). */
void *gpu_worker_main(void *arg);
void *gpu_completion_main(void *arg);

#endif
