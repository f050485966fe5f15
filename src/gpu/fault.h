/*
 * Fault injection for tests: EXACTVMAF_GPU_FAULT=KIND:N makes the N-th
 * device call of KIND fail (counted over the process, every device of the
 * backend), as a driver error would: alloc (device and pinned host
 * memory), launch, copy (uploads, device copies, memsets), download, sync
 * (waits for events and queues), or lost (every call from the N-th on, of
 * any kind, fails: a device gone). Graphs are off while it is set, so that
 * every call of a frame reaches the device layer. EXACTVMAF_GPU_FAULT=count
 * fails nothing and says once the pipeline has started, and at each
 * drain (the flush), how many calls of each kind were made so far (a test
 * picks its N from these).
 */
#ifndef EXACTVMAF_GPU_FAULT_H
#define EXACTVMAF_GPU_FAULT_H

#include "gpu/device.h"

/** Route d's calls through the injector when EXACTVMAF_GPU_FAULT is set. */
void vmaf_gpu_fault_arm(VmafGpuDev *d);
/** Under EXACTVMAF_GPU_FAULT=count: log the calls counted so far. */
void vmaf_gpu_fault_report(const char *when);

#endif
