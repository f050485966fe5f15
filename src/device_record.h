/*
 * Which devices computed each extractor, as the outputs write it next to
 * "backends": per extractor, a list of records, each an ordered set of
 * fields ("backend", then for a GPU "name", "index", "platform", "driver",
 * "arch", "fp64" where they apply). Several records: the frames were split
 * over several devices (--gpu 0,1). A record is a dictionary so that a
 * later field (a mid-run failover's first frame and reason, say) reaches
 * every writer without touching them. (exactvmaf_device_describe(), the
 * listing's lines, is device_record.c's too.)
 */
#ifndef EXACTVMAF_DEVICE_RECORD_H
#define EXACTVMAF_DEVICE_RECORD_H

#include "dict.h"
#include "gpu/device.h"

typedef struct VmafDeviceRecords VmafDeviceRecords;

/** The record of a GPU device of backend `backend` ("cuda", "opencl"): a new dictionary. */
int vmaf_device_record_gpu(VmafDict **rec, const char *backend, const VmafGpuDeviceInfo *info);
/**
 * The records of opened devices dev[0..n_dev), appended to rec[*n_rec...]
 * (room for n_dev more), each device once (--gpu 0,0 opens one twice).
 */
int vmaf_device_records_describe(VmafDict **rec, unsigned *n_rec, VmafGpuDev *const *dev,
                                 unsigned n_dev);
/** The record of the CPU: {"backend": "cpu"}. */
int vmaf_device_record_cpu(VmafDict **rec);

/**
 * Append a copy of `rec` to extractor's list (made on first use), unless an
 * equal record is there. 0 or -ENOMEM.
 */
int vmaf_device_records_add(VmafDeviceRecords **r, const char *extractor, const VmafDict *rec);
/**
 * A mid-run failover: the CPU's record appended to extractor's list, saying
 * from which frame the CPU computed it (UINT_MAX: none, it only concluded)
 * and why the GPU stopped ("from_frame", "failover").
 */
int vmaf_device_records_add_takeover(VmafDeviceRecords **r, const char *extractor,
                                     unsigned from, const char *why);
/** How many extractors have records (0 for NULL). */
unsigned vmaf_device_records_count(const VmafDeviceRecords *r);
/** Extractor i's name; NULL past the end. */
const char *vmaf_device_records_extractor(const VmafDeviceRecords *r, unsigned i);
/** Extractor i's record k; NULL past the end. */
const VmafDict *vmaf_device_records_at(const VmafDeviceRecords *r, unsigned i, unsigned k);
/** Extractor `name`'s index; -1 when it has no record. */
int vmaf_device_records_find(const VmafDeviceRecords *r, const char *name);
void vmaf_device_records_free(VmafDeviceRecords **r);

#endif
