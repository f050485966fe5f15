/*
 * Single-precision e^x function.
 *
 * Copyright (c) 2017-2019, Arm Limited.
 * SPDX-License-Identifier: MIT
 *
 * From ARM-software/optimized-routines v21.02 (math/expf.c), MIT licence in
 * NOTICE: the configuration glibc builds, symbols renamed ev_*, built once
 * per fma flavour (flavour.h). EV_FMA marks every product GCC 12 fused in
 * glibc's -mfma build of it, which x86-64 glibc runs on an FMA processor
 * (it differs from the unfused build for a few inputs).
 */


/*
EXP2F_TABLE_BITS = 5
EXP2F_POLY_ORDER = 3

ULP error: 0.502 (nearest rounding.)
Relative error: 1.69 * 2^-34 in [-ln2/64, ln2/64] (before rounding.)
Wrong count: 170635 (all nearest rounding wrong results with fma.)
Non-nearest ULP error: 1 (rounded ULP error)
*/

#define N (1 << EXP2F_TABLE_BITS)
#define InvLn2Nf ev_exp2f_data.invln2_scaled
#define T ev_exp2f_data.tab
#define C ev_exp2f_data.poly_scaled

#ifndef EV_EXPF_HELPERS
#define EV_EXPF_HELPERS
static inline uint32_t
top12f (float x)
{
  return asuint (x) >> 20;
}
#endif

float
EV_MATH_NAME (expf) (float x)
{
  uint32_t abstop;
  uint64_t ki, t;
  /* double_t for better performance on targets with FLT_EVAL_METHOD==2.  */
  double_t kd, xd, z, r, r2, y, s;

  xd = (double_t) x;
  abstop = top12f (x) & 0x7ff;
  if (unlikely (abstop >= top12f (88.0f)))
    {
      /* |x| >= 88 or x is nan.  */
      if (asuint (x) == asuint (-INFINITY))
	return 0.0f;
      if (abstop >= top12f (INFINITY))
	return x + x;
      if (x > 0x1.62e42ep6f) /* x > log(0x1p128) ~= 88.72 */
	return ev_math_oflowf (0);
      if (x < -0x1.9fe368p6f) /* x < log(0x1p-150) ~= -103.97 */
	return ev_math_uflowf (0);
    }

  /* x*N/Ln2 = k + r with r in [-1/2, 1/2] and int k.  */

  /* Round and convert z to int, the result is in [-150*N, 128*N] and
     ideally nearest int is used, otherwise the magnitude of r can be
     bigger which gives larger approximation error.  */
# define SHIFT ev_exp2f_data.shift
  kd = EV_FMA (InvLn2Nf, xd, SHIFT);
  ki = asuint64 (kd);
  kd -= SHIFT;
  r = EV_FMA (InvLn2Nf, xd, -kd);

  /* exp(x) = 2^(k/N) * 2^(r/N) ~= s * (C0*r^3 + C1*r^2 + C2*r + 1) */
  t = T[ki % N];
  t += ki << (52 - EXP2F_TABLE_BITS);
  s = asdouble (t);
  z = EV_FMA (C[0], r, C[1]);
  r2 = r * r;
  y = EV_FMA (C[2], r, 1.0);
  y = EV_FMA (z, r2, y);
  y = y * s;
  return eval_as_float (y);
}

#undef N
#undef InvLn2Nf
#undef T
#undef C
#undef SHIFT
