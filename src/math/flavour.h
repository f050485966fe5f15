/*
 * The fused templates (exp_log_tmpl.c, pow_tmpl.c, expf_tmpl.c,
 * powf_tmpl.c) built for one way of doing EV_FMA: flavour_hw.c with the
 * processor's instruction, flavour_soft.c with ev_fma_soft(). Both give
 * the same bits; ev_math.c picks one at run time.
 */
#include <math.h>
#include <stdint.h>

#include "ev_math.h"
#include "math_config.h"

#define EV_MATH_NAME_(name, flavour) ev_##name##_##flavour
#define EV_MATH_NAME_X(name, flavour) EV_MATH_NAME_(name, flavour)
#define EV_MATH_NAME(name) EV_MATH_NAME_X(name, EV_MATH_FLAVOUR)

double ev_exp_hw(double), ev_log_hw(double), ev_log2_hw(double), ev_pow_hw(double, double);
float ev_expf_hw(float), ev_powf_hw(float, float);
double ev_exp_soft(double), ev_log_soft(double), ev_log2_soft(double), ev_pow_soft(double, double);
float ev_expf_soft(float), ev_powf_soft(float, float);

#include "exp_log_tmpl.c"
#include "pow_tmpl.c"
#include "expf_tmpl.c"
#include "powf_tmpl.c"
