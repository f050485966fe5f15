/*
 * The prelude of every OpenCL kernel source (OpenCL C 1.2): a kernel file
 * includes it first, and cl2c.py inlines it with the rest at build time.
 *
 * No contraction: every a * b + c of the reference is two roundings here
 * too. The build options (EVL_BUILD_OPTIONS, opencl_device.h) define
 * EV_FP64 to 1 when the device's doubles are used.
 *
 * Device memory comes as a buffer and a byte offset (gpu/device.h's
 * VmafGpuPtr becomes two kernel arguments): a kernel declares
 *     kernel void k(EV_BUF(const uchar, ref), int w)
 * and reaches the data with
 *     global const uchar *r = EV_AT(const uchar, ref);
 */
#ifndef EXACTVMAF_EV_OPENCL_H
#define EXACTVMAF_EV_OPENCL_H

#pragma OPENCL FP_CONTRACT OFF

#ifndef EV_FP64
#error "EV_FP64 is undefined: build with EVL_BUILD_OPTIONS (gpu/opencl/opencl_device.h)"
#endif
#if EV_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* The host's fixed-width names, so that shared arithmetic headers compile here. */
typedef uchar uint8_t;
typedef char int8_t;
typedef ushort uint16_t;
typedef short int16_t;
typedef uint uint32_t;
typedef int int32_t;
typedef ulong uint64_t;
typedef long int64_t;

/** The two kernel parameters of one VmafGpuPtr argument. */
#define EV_BUF(T, name) global T *name##_mem_, ulong name##_off_
/** The address an EV_BUF parameter pair names. */
#define EV_AT(T, name) ((global T *)((global uchar *)name##_mem_ + name##_off_))

#endif
