/*
 * The one SIMD scheme (dav1d's). A family's kernels are written once, in a
 * template (<m>_simd_tmpl.c) that meson compiles once per instruction set
 * of cpu.h (src/meson.build, simd_templates: the baseline C build, then
 * AVX2 and AVX-512 on x86-64, NEON on AArch64), each with that set's
 * compiler flags and EV_SIMD_IS_<SET> defined to 1. Each build ends with
 * its family's table of kernels, named EV_SIMD_NAME(<family>): <family>_c,
 * <family>_avx2, <family>_avx512, <family>_neon; the rest of the template
 * is static, so the builds do not clash. The family's one dispatch
 * function indexes EV_SIMD_TABLE(<family>) with ev_cpu_isa(), the
 * processor's widest set under the cap tests and users set
 * (ev_cpu_set_isa_max); tests/checkasm walks the same tables.
 *
 * A family whose loops gain nothing from 512-bit vectors (8-lane loops)
 * lists its template in simd_templates_256 instead: meson builds it for
 * every set but AVX-512, and EV_SIMD_DECLARE_256 / EV_SIMD_TABLE_256 fill
 * its AVX-512 slot with the AVX2 build, so that the table still has an
 * entry per set of cpu.h.
 *
 * Every build has the same operations per element: the strict-FP flags
 * forbid contraction at every width, so the builds differ in vector width
 * only, and give the same bits (checkasm compares them with a reference).
 */
#ifndef EXACTVMAF_SIMD_H
#define EXACTVMAF_SIMD_H

#include "cpu.h"

/* Inside a template's build, meson defines one of these to 1 (-Wundef: all
 * of them are always defined). */
#ifndef EV_SIMD_IS_C
#define EV_SIMD_IS_C 0
#endif
#ifndef EV_SIMD_IS_AVX2
#define EV_SIMD_IS_AVX2 0
#endif
#ifndef EV_SIMD_IS_AVX512
#define EV_SIMD_IS_AVX512 0
#endif
#ifndef EV_SIMD_IS_NEON
#define EV_SIMD_IS_NEON 0
#endif

#define EV_SIMD_CAT_(a, b) a##_##b
#define EV_SIMD_CAT(a, b) EV_SIMD_CAT_(a, b)
/** In a template's build: name's build for this set (name_avx2, ...). */
#define EV_SIMD_NAME(name) EV_SIMD_CAT(name, EV_SIMD_SUFFIX)

/** Declare a family's table of every build: extern const type name_c, ... */
#if EV_HAVE_X86_SIMD
#define EV_SIMD_DECLARE(type, name) extern const type name##_c, name##_avx2, name##_avx512
#define EV_SIMD_TABLE(name) { &name##_c, &name##_avx2, &name##_avx512 }
/** A simd_templates_256 family: no AVX-512 build, its slot takes the AVX2 one. */
#define EV_SIMD_DECLARE_256(type, name) extern const type name##_c, name##_avx2
#define EV_SIMD_TABLE_256(name) { &name##_c, &name##_avx2, &name##_avx2 }
#elif EV_HAVE_NEON
#define EV_SIMD_DECLARE(type, name) extern const type name##_c, name##_neon
#define EV_SIMD_TABLE(name) { &name##_c, &name##_neon }
#define EV_SIMD_DECLARE_256 EV_SIMD_DECLARE
#define EV_SIMD_TABLE_256 EV_SIMD_TABLE
#else
#define EV_SIMD_DECLARE(type, name) extern const type name##_c
#define EV_SIMD_TABLE(name) { &name##_c }
#define EV_SIMD_DECLARE_256 EV_SIMD_DECLARE
#define EV_SIMD_TABLE_256 EV_SIMD_TABLE
#endif

#endif
