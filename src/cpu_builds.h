/*
 * A room's SIMD template, built once per instruction set (cpu.h): define
 * EV_SIMD_TEMPLATE as the template's path from src/ (quoted), and EV_SIMD_AVX512
 * where the room has an AVX-512 entry too, then include this file. The
 * builds' functions are named by KFN(name): name_c, name_avx2, name_avx512;
 * the static inline helpers above the inclusion are inlined into each.
 * No include guard: a file may build several templates.
 */
#ifndef EV_SIMD_TEMPLATE
#error "cpu_builds.h: define EV_SIMD_TEMPLATE first"
#endif

#define KFN(name) name##_c
#include EV_SIMD_TEMPLATE
#undef KFN
#if EV_HAVE_X86_SIMD
EV_TARGET_AVX2_BEGIN
#define KFN(name) name##_avx2
#include EV_SIMD_TEMPLATE
#undef KFN
EV_TARGET_END
#ifdef EV_SIMD_AVX512
EV_TARGET_AVX512_BEGIN
#define KFN(name) name##_avx512
#include EV_SIMD_TEMPLATE
#undef KFN
EV_TARGET_END
#endif
#endif

#undef EV_SIMD_TEMPLATE
#undef EV_SIMD_AVX512
