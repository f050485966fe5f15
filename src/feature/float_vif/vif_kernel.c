/*
 * VIF Gaussian kernels, generated at run time as libvmaf v3.2.0 does
 * (docs/numerics.md 4.3): the reference mixes float and double on purpose, so
 * every intermediate here carries the reference's type.
 */
#include <math.h>

#include "math/ev_math.h"
#include "vif_host.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The reference's accepted kernel scales, each evaluated as a float
 * expression (the table is a float array). */
static const float valid_kernelscales[] = {
    1.0f,
    1.0f / 2.0f,
    3.0f / 2.0f,
    2.0f,
    2.0f / 3.0f,
    24.0f / 10.0f,
    360.0f / 97.0f,
    4.0f / 3.0f,
    3.5f / 3.0f,
    3.75f / 3.0f,
    4.25f / 3.0f,
    5.0f / 3.0f,
    3.0f,
    1.0f / 2.25f,
    1.4746f,
    1.54f,
    1.6f,
    1.06667f,
    0.711111f,
    0.740740f,
    1.111111f,
};

bool vif_kernelscale_valid(float ks)
{
    /* fp32 difference, its magnitude compared with a double literal. */
    for (size_t i = 0; i < sizeof(valid_kernelscales) / sizeof(valid_kernelscales[0]); i++)
        if (fabsf(ks - valid_kernelscales[i]) < 1e-3)
            return true;
    return false;
}

int vif_filter_width(int scale, float ks)
{
    /* n * ks is an int-by-float product (float); the ceiling is taken in
     * double and truncated to int, then bumped to the next odd number. */
    const int n = (1 << (4 - scale)) + 1;
    const float f = (float)n * ks;
    int width = (int)ceil((double)f);
    if (width % 2 == 0)
        width++;
    return width < 3 ? 3 : width;
}

/* One unnormalised tap: exp() of a double expression over float operands,
 * evaluated left to right, divided in float by a float-rounded 1/(s*sqrt(2pi)). */
static float gaussian_tap(float x, float sigma)
{
    const float d = x - 0.0f;
    const float num = (float)ev_exp(-0.5 * d / sigma * d / sigma);
    const float den = (float)(1 / (sigma * sqrt(2 * M_PI)));
    return num / den;
}

int vif_filter_taps(float *out, int scale, float ks)
{
    const int width = vif_filter_width(scale, ks);
    const float sigma = (float)width / 5.0f;
    const int half = (width - 1) / 2;

    float sum = 0.0f;
    for (int i = 0; i < width; i++) {
        out[i] = gaussian_tap((float)(i - half), sigma);
        sum += out[i];
    }
    for (int i = 0; i < width; i++)
        out[i] /= sum;
    return width;
}
