/* The fused templates with the software fma (flavour.h). */
#define EV_MATH_FLAVOUR soft
#define EV_FMA(a, b, c) ev_fma_soft((a), (b), (c))
#include "flavour.h"
