/*
 * float_psnr's host side, shared by every backend: the per-depth constants
 * and the frame conclusion (mean, dB) in the reference's double arithmetic
 * with the host's libm. A backend hands over the frame's fp64 noise sum.
 */
#ifndef EXACTVMAF_FLOAT_PSNR_CONCLUDE_H
#define EXACTVMAF_FLOAT_PSNR_CONCLUDE_H

/**
 * The reference's peak (the largest sample divided as in the float
 * conversion) and cap for `bpc`: 8 -> 255, 60; 10 -> 255.75, 72;
 * 12 -> 255.9375, 84; 16 -> 255.99609375, 108. -EINVAL for other depths.
 */
int float_psnr_constants(unsigned bpc, double *peak, double *psnr_max);

/** min(10 log10(peak^2 / max(noise_sum / (w*h), 1e-10)), psnr_max). */
double float_psnr_conclude(double noise_sum, unsigned w, unsigned h,
                           double peak, double psnr_max);

#endif
