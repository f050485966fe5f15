/*
 * Double-precision exp, log, log2 and pow as glibc 2.36's FMA build gives
 * them, built once per fma flavour (ev_math.c includes this file with
 * EV_MATH_NAME and EV_FMA defined).
 *
 * Copyright (c) 2018-2020, Arm Limited.
 * SPDX-License-Identifier: MIT
 *
 * From ARM-software/optimized-routines v21.02 (math/exp.c, log.c, log2.c,
 * pow.c), MIT licence in NOTICE, reduced to the configuration glibc builds
 * (EXP_TABLE_BITS 7, LOG_POLY1_ORDER 12, ...). Every expression is the
 * original's; where GCC 12 contracted a product into an addition in
 * glibc's -mfma build, EV_FMA(a, b, c) = a*b + c says so, in the order
 * GCC wrote it (the tree dump of that build), and the fma() of the
 * HAVE_FAST_FMA paths are EV_FMA too.
 */

/* ---- exp (math/exp.c) ---- */

#define N (1 << EXP_TABLE_BITS)
#define InvLn2N ev_exp_data.invln2N
#define NegLn2hiN ev_exp_data.negln2hiN
#define NegLn2loN ev_exp_data.negln2loN
#define Shift ev_exp_data.shift
#define T ev_exp_data.tab
#define C2 ev_exp_data.poly[5 - EXP_POLY_ORDER]
#define C3 ev_exp_data.poly[6 - EXP_POLY_ORDER]
#define C4 ev_exp_data.poly[7 - EXP_POLY_ORDER]
#define C5 ev_exp_data.poly[8 - EXP_POLY_ORDER]

/* Handle cases that may overflow or underflow when computing the result that
   is scale*(1+TMP) without intermediate rounding.  The bit representation of
   scale is in SBITS, however it has a computed exponent that may have
   overflown into the sign bit so that needs to be adjusted before using it as
   a double.  (int32_t)KI is the k used in the argument reduction and exponent
   adjustment of scale, positive k here means the result may overflow and
   negative k means the result may underflow.  */
static inline double
EV_MATH_NAME (exp_specialcase) (double tmp, uint64_t sbits, uint64_t ki)
{
  double scale, y;

  if ((ki & 0x80000000) == 0)
    {
      /* k > 0, the exponent of scale might have overflowed by <= 460.  */
      sbits -= 1009ull << 52;
      scale = asdouble (sbits);
      y = 0x1p1009 * EV_FMA (tmp, scale, scale);
      return y;
    }
  /* k < 0, need special care in the subnormal range.  */
  sbits += 1022ull << 52;
  scale = asdouble (sbits);
  /* scale * tmp is used twice: GCC does not fuse it.  */
  double st = scale * tmp;
  y = scale + st;
  if (y < 1.0)
    {
      /* Round y to the right precision before scaling it into the subnormal
	 range to avoid double rounding that can cause 0.5+E/2 ulp error where
	 E is the worst-case ulp error outside the subnormal range.  So this
	 is only useful if the goal is better than 1 ulp worst-case error.  */
      double hi, lo;
      lo = scale - y + st;
      hi = 1.0 + y;
      lo = 1.0 - hi + y + lo;
      y = (hi + lo) - 1.0;
      /* Avoid -0.0 with downward rounding.  */
      if (y == 0.0)
	y = 0.0;
    }
  y = 0x1p-1022 * y;
  return y;
}

#ifndef EV_EXP_LOG_HELPERS
#define EV_EXP_LOG_HELPERS
/* Top 12 bits of a double (sign and exponent bits).  */
static inline uint32_t
top12 (double x)
{
  return asuint64 (x) >> 52;
}

/* Top 16 bits of a double.  */
static inline uint32_t
top16 (double x)
{
  return asuint64 (x) >> 48;
}
#endif

double
EV_MATH_NAME (exp) (double x)
{
  uint32_t abstop;
  uint64_t ki, idx, top, sbits;
  double kd, r, r2, scale, tail, tmp;

  abstop = top12 (x) & 0x7ff;
  if (unlikely (abstop - top12 (0x1p-54) >= top12 (512.0) - top12 (0x1p-54)))
    {
      if (abstop - top12 (0x1p-54) >= 0x80000000)
	/* Avoid spurious underflow for tiny x.  */
	/* Note: 0 is common input.  */
	return 1.0 + x;
      if (abstop >= top12 (1024.0))
	{
	  if (asuint64 (x) == asuint64 (-INFINITY))
	    return 0.0;
	  if (abstop >= top12 (INFINITY))
	    return 1.0 + x;
	  if (asuint64 (x) >> 63)
	    return ev_math_uflow (0);
	  else
	    return ev_math_oflow (0);
	}
      /* Large x is special cased below.  */
      abstop = 0;
    }

  /* exp(x) = 2^(k/N) * exp(r), with exp(r) in [2^(-1/2N),2^(1/2N)].  */
  /* x = ln2/N*k + r, with int k and r in [-ln2/2N, ln2/2N].  */
  /* z - kd is in [-1, 1] in non-nearest rounding modes.  */
  kd = EV_FMA (InvLn2N, x, Shift);
  ki = asuint64 (kd);
  kd -= Shift;
  r = EV_FMA (NegLn2loN, kd, EV_FMA (NegLn2hiN, kd, x));
  /* 2^(k/N) ~= scale * (1 + tail).  */
  idx = 2 * (ki % N);
  top = ki << (52 - EXP_TABLE_BITS);
  tail = asdouble (T[idx]);
  /* This is only a valid scale when -1023*N < k < 1024*N.  */
  sbits = T[idx + 1] + top;
  /* exp(x) = 2^(k/N) * exp(r) ~= scale + scale * (tail + exp(r) - 1).  */
  r2 = r * r;
  /* tail + r + r2 * (C2 + r * C3) + r2 * r2 * (C4 + r * C5) */
  tmp = EV_FMA (r2 * r2, EV_FMA (C5, r, C4),
		EV_FMA (EV_FMA (C3, r, C2), r2, r + tail));
  if (unlikely (abstop == 0))
    return EV_MATH_NAME (exp_specialcase) (tmp, sbits, ki);
  scale = asdouble (sbits);
  /* Note: tmp == 0 or |tmp| > 2^-200 and scale > 2^-739, so there
     is no spurious underflow here even without fma.  */
  return EV_FMA (tmp, scale, scale);
}

#undef N
#undef T

/* ---- log (math/log.c) ---- */

#define T ev_log_data.tab
#define B ev_log_data.poly1
#define A ev_log_data.poly
#define Ln2hi ev_log_data.ln2hi
#define Ln2lo ev_log_data.ln2lo
#define N (1 << LOG_TABLE_BITS)
#define OFF 0x3fe6000000000000

double
EV_MATH_NAME (log) (double x)
{
  double w, z, r, r2, r3, y, invc, logc, kd, hi, lo;
  uint64_t ix, iz, tmp;
  uint32_t top;
  int k, i;

  ix = asuint64 (x);
  top = top16 (x);

#define LO asuint64 (1.0 - 0x1p-4)
#define HI asuint64 (1.0 + 0x1.09p-4)
  if (unlikely (ix - LO < HI - LO))
    {
      /* Handle close to 1.0 inputs separately.  */
      /* Fix sign of zero with downward rounding when x==1.  */
      if (unlikely (ix == asuint64 (1.0)))
	return 0;
      r = x - 1.0;
      r2 = r * r;
      r3 = r * r2;
      /* y = r3 * (B[1] + r * B[2] + r2 * B[3]
		+ r3 * (B[4] + r * B[5] + r2 * B[6]
			+ r3 * (B[7] + r * B[8] + r2 * B[9] + r3 * B[10]))) */
      double p = EV_FMA (EV_FMA (EV_FMA (B[10], r3,
					 EV_FMA (B[9], r2, EV_FMA (B[8], r, B[7]))),
				 r3, EV_FMA (B[6], r2, EV_FMA (B[5], r, B[4]))),
			 r3, EV_FMA (B[3], r2, EV_FMA (B[2], r, B[1])));
      /* N > 64: w = r * 0x1p27; rhi = r + w - w; both fused.  */
      double rhi = EV_FMA (-r, 0x1p27, EV_FMA (r, 0x1p27, r));
      double rlo = r - rhi;
      double rhi2 = rhi * rhi;
      /* w = rhi * rhi * B[0]; hi = r + w; lo = r - hi + w; */
      hi = EV_FMA (rhi2, B[0], r);
      lo = EV_FMA (rhi2, B[0], r - hi);
      /* lo += B[0] * rlo * (rhi + r); */
      lo = EV_FMA (B[0] * rlo, rhi + r, lo);
      /* y = r3 * p; y += lo; y += hi; */
      y = EV_FMA (p, r3, lo);
      y = hi + y;
      return y;
    }
  if (unlikely (top - 0x0010 >= 0x7ff0 - 0x0010))
    {
      /* x < 0x1p-1022 or inf or nan.  */
      if (ix * 2 == 0)
	return ev_math_divzero (1);
      if (ix == asuint64 (INFINITY)) /* log(inf) == inf.  */
	return x;
      if ((top & 0x8000) || (top & 0x7ff0) == 0x7ff0)
	return ev_math_invalid (x);
      /* x is subnormal, normalize it.  */
      ix = asuint64 (x * 0x1p52);
      ix -= 52ULL << 52;
    }

  /* x = 2^k z; where z is in range [OFF,2*OFF) and exact.
     The range is split into N subintervals.
     The ith subinterval contains z and c is near its center.  */
  tmp = ix - OFF;
  i = (tmp >> (52 - LOG_TABLE_BITS)) % N;
  k = (int64_t) tmp >> 52; /* arithmetic shift */
  iz = ix - (tmp & 0xfffULL << 52);
  invc = T[i].invc;
  logc = T[i].logc;
  z = asdouble (iz);

  /* log(x) = log1p(z/c-1) + log(c) + k*Ln2.  */
  /* r ~= z/c - 1, |r| < 1/(2*N).  */
  r = EV_FMA (z, invc, -1.0);
  kd = (double) k;

  /* hi + lo = r + log(c) + k*Ln2.  */
  w = EV_FMA (Ln2hi, kd, logc);
  hi = w + r;
  lo = EV_FMA (Ln2lo, kd, w - hi + r);

  /* log(x) = lo + (log1p(r) - r) + hi.  */
  r2 = r * r; /* rounding error: 0x1p-54/N^2.  */
  /* y = lo + r2 * A[0] + r * r2 * (A[1] + r * A[2] + r2 * (A[3] + r * A[4])) + hi */
  y = EV_FMA (r * r2,
	      EV_FMA (EV_FMA (A[4], r, A[3]), r2, EV_FMA (A[2], r, A[1])),
	      EV_FMA (A[0], r2, lo));
  return y + hi;
}

#undef T
#undef B
#undef A
#undef N
#undef OFF
#undef LO
#undef HI
#undef Ln2hi
#undef Ln2lo

/* ---- log2 (math/log2.c) ---- */

#define T ev_log2_data.tab
#define B ev_log2_data.poly1
#define A ev_log2_data.poly
#define InvLn2hi ev_log2_data.invln2hi
#define InvLn2lo ev_log2_data.invln2lo
#define N (1 << LOG2_TABLE_BITS)
#define OFF 0x3fe6000000000000

double
EV_MATH_NAME (log2) (double x)
{
  double z, r, r2, r4, y, invc, logc, kd, hi, lo, t1, t2, t3, p;
  uint64_t ix, iz, tmp;
  uint32_t top;
  int k, i;

  ix = asuint64 (x);
  top = top16 (x);

#define LO asuint64 (1.0 - 0x1.5b51p-5)
#define HI asuint64 (1.0 + 0x1.6ab2p-5)
  if (unlikely (ix - LO < HI - LO))
    {
      /* Handle close to 1.0 inputs separately.  */
      /* Fix sign of zero with downward rounding when x==1.  */
      if (unlikely (ix == asuint64 (1.0)))
	return 0;
      r = x - 1.0;
      hi = r * InvLn2hi;
      lo = EV_FMA (InvLn2lo, r, EV_FMA (r, InvLn2hi, -hi));
      r2 = r * r; /* rounding error: 0x1p-62.  */
      r4 = r2 * r2;
      /* p = r2 * (B[0] + r * B[1]); y = hi + p; lo += hi - y + p; */
      p = EV_FMA (B[1], r, B[0]);
      y = EV_FMA (p, r2, hi);
      lo = EV_FMA (p, r2, hi - y) + lo;
      /* lo += r4 * (B[2] + r * B[3] + r2 * (B[4] + r * B[5])
		  + r4 * (B[6] + r * B[7] + r2 * (B[8] + r * B[9]))); */
      lo = EV_FMA (EV_FMA (EV_FMA (EV_FMA (B[9], r, B[8]), r2, EV_FMA (B[7], r, B[6])),
			   r4, EV_FMA (EV_FMA (B[5], r, B[4]), r2, EV_FMA (B[3], r, B[2]))),
		   r4, lo);
      y += lo;
      return y;
    }
  if (unlikely (top - 0x0010 >= 0x7ff0 - 0x0010))
    {
      /* x < 0x1p-1022 or inf or nan.  */
      if (ix * 2 == 0)
	return ev_math_divzero (1);
      if (ix == asuint64 (INFINITY)) /* log(inf) == inf.  */
	return x;
      if ((top & 0x8000) || (top & 0x7ff0) == 0x7ff0)
	return ev_math_invalid (x);
      /* x is subnormal, normalize it.  */
      ix = asuint64 (x * 0x1p52);
      ix -= 52ULL << 52;
    }

  /* x = 2^k z; where z is in range [OFF,2*OFF) and exact.
     The range is split into N subintervals.
     The ith subinterval contains z and c is near its center.  */
  tmp = ix - OFF;
  i = (tmp >> (52 - LOG2_TABLE_BITS)) % N;
  k = (int64_t) tmp >> 52; /* arithmetic shift */
  iz = ix - (tmp & 0xfffULL << 52);
  invc = T[i].invc;
  logc = T[i].logc;
  z = asdouble (iz);
  kd = (double) k;

  /* log2(x) = log2(z/c) + log2(c) + k.  */
  /* r ~= z/c - 1, |r| < 1/(2*N).  */
  r = EV_FMA (z, invc, -1.0);
  t1 = r * InvLn2hi;
  t2 = EV_FMA (InvLn2lo, r, EV_FMA (r, InvLn2hi, -t1));

  /* hi + lo = r/ln2 + log2(c) + k.  */
  t3 = kd + logc;
  hi = t3 + t1;
  lo = t3 - hi + t1 + t2;

  /* log2(r+1) = r/ln2 + r^2*poly(r).  */
  r2 = r * r; /* rounding error: 0x1p-54/N^2.  */
  r4 = r2 * r2;
  /* p = A[0] + r * A[1] + r2 * (A[2] + r * A[3]) + r4 * (A[4] + r * A[5]); */
  p = EV_FMA (EV_FMA (A[5], r, A[4]), r4,
	      EV_FMA (EV_FMA (A[3], r, A[2]), r2, EV_FMA (A[1], r, A[0])));
  /* y = lo + r2 * p + hi; */
  y = EV_FMA (r2, p, lo) + hi;
  return y;
}

#undef T
#undef B
#undef A
#undef N
#undef OFF
#undef LO
#undef HI
