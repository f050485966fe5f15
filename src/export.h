/* Symbol visibility: everything is hidden unless marked VMAF_EXPORT. */
#ifndef EXACTVMAF_EXPORT_H
#define EXACTVMAF_EXPORT_H

#if defined(__GNUC__)
#define VMAF_EXPORT __attribute__((visibility("default")))
#else
#define VMAF_EXPORT
#endif

#endif
