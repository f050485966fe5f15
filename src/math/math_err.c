/*
 * Double- and single-precision math error handling.
 *
 * Copyright (c) 2018, Arm Limited.
 * SPDX-License-Identifier: MIT
 *
 * From ARM-software/optimized-routines v21.02 (math/math_err.c and
 * math/math_errf.c), MIT licence in NOTICE; errno is never set (glibc sets
 * it, but no caller here reads it), so only the results remain.
 */

#include "math_config.h"

/* NOINLINE reduces code size.  */
NOINLINE static double
xflow (uint32_t sign, double y)
{
  return opt_barrier_double (sign ? -y : y) * y;
}

double
ev_math_uflow (uint32_t sign)
{
  return xflow (sign, 0x1p-767);
}

double
ev_math_may_uflow (uint32_t sign)
{
  return xflow (sign, 0x1.8p-538);
}

double
ev_math_oflow (uint32_t sign)
{
  return xflow (sign, 0x1p769);
}

double
ev_math_divzero (uint32_t sign)
{
  return opt_barrier_double (sign ? -1.0 : 1.0) / 0.0;
}

double
ev_math_invalid (double x)
{
  return (x - x) / (x - x);
}

NOINLINE static float
xflowf (uint32_t sign, float y)
{
  return opt_barrier_float (sign ? -y : y) * y;
}

float
ev_math_uflowf (uint32_t sign)
{
  return xflowf (sign, 0x1p-95f);
}

float
ev_math_may_uflowf (uint32_t sign)
{
  return xflowf (sign, 0x1.4p-75f);
}

float
ev_math_oflowf (uint32_t sign)
{
  return xflowf (sign, 0x1p97f);
}

float
ev_math_divzerof (uint32_t sign)
{
  return opt_barrier_float (sign ? -1.0f : 1.0f) / 0.0f;
}

float
ev_math_invalidf (float x)
{
  return (x - x) / (x - x);
}
