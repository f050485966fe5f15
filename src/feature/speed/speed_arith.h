/*
 * SpEED (speed_chroma, speed_temporal) arithmetic, shared by the CPU
 * reference and every GPU twin. Each function reproduces one step of
 * Netflix libvmaf v3.2.0's speed.c (and the vif_tools.c routines it calls)
 * operation for operation: same types, same order, one rounding per
 * operation, nothing fused. Where the reference mixes float and double, the
 * double steps are written with the D* macros and the conversions are
 * explicit.
 *
 * Pipeline of one plane (see speed_core.c): prescale, anti-alias filter and
 * keep every 16th sample, subtract a local mean, then per 5x5 block the
 * Gaussian scale mixture estimate: covariance of the 25 block positions,
 * its eigenvalues, and the linear solve for the block variances. The
 * libm-dependent tail (log2 entropies, score) is on the host.
 */
#ifndef EXACTVMAF_SPEED_ARITH_H
#define EXACTVMAF_SPEED_ARITH_H

#include <math.h>

#include "feature/common/prescale_arith.h"
#include "fp.h"

/** Block side and its sample count (the reference's DEFAULT_BLOCK_SIZE). */
#define SPEED_BLOCK 5
#define SPEED_N (SPEED_BLOCK * SPEED_BLOCK)
/* The covariance sums the GPU returns: the lower triangle (y <= x), row after row. */
#define SPEED_COV_TRI (SPEED_N * (SPEED_N + 1) / 2)
/** The frame is decimated by 2^4 = 16 in each direction. */
#define SPEED_SCALES 4
/** Eigenvalue / pivot tolerance, a double literal in the reference. */
#define SPEED_EPS 1e-6
/** QR iterations of the eigenvalue search before it gives up. */
#define SPEED_MAX_QR_ITERS 500

/**
 * Square root of a float as the reference takes it, in double and stored as
 * float: that is the correctly rounded fp32 root (53 >= 2 * 24 + 2 bits).
 */
EV_FN float speed_sqrt(float x)
{
    return FSQRT(x);
}

/** hypot as the reference writes it: sqrt(x*x + y*y), the sum in fp32. */
EV_FN float speed_hypot(float x, float y)
{
    return speed_sqrt(FADD(FMUL(x, x), FMUL(y, y)));
}

/* ---- Filtering ---- */

/** reflect-101 border: -i -> i, n-1+i -> n-1-i. Needs n > |overhang|. */
EV_FN int speed_reflect(int i, int n)
{
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

/** One filter tap: acc + f*x (the sum starts from +0, taps ascending). */
EV_FN float speed_tap(float acc, float f, float x)
{
    return FADD(acc, FMUL(f, x));
}

/* ---- Block statistics ---- */

/** Local-mean removal: d - blur(d). */
EV_FN float speed_sub(float a, float b)
{
    return FSUB(a, b);
}

/** Mean of a submatrix: fp32 running sum (raster order) / (float)count. */
EV_FN float speed_mean(float sum, float count)
{
    return FDIV(sum, count);
}

/** A sample minus its submatrix mean, both widened to double. */
EV_FN ev_d speed_centered(float v, float mean)
{
    return D_SUB(D_FROM_F(v), D_FROM_F(mean));
}

/** One covariance term: acc + cx * cy, double. */
EV_FN ev_d speed_cov_step(ev_d acc, ev_d cx, ev_d cy)
{
    return D_ADD(acc, D_MUL(cx, cy));
}

#if EV_F64 && !defined(__OPENCL_C_VERSION__)
/*
 * From here on the host's part (covariance, eigenvalues, linear solve):
 * binary64 and libm where the reference has them, which no OpenCL kernel
 * needs.
 */

/** Covariance from its double sum: sum / count in double, stored as float. */
EV_FN float speed_cov(double sum, double count)
{
    return (float)DDIV(sum, count);
}

/* ---- Eigenvalues of the symmetric 25x25 covariance (GSL's symmtd +
 * implicit symmetric QR, all fp32 with double square roots) ---- */

/*
 * Householder vector for column `col` of a (n x n, row-major), rows
 * row0..n-1: on return a[row0][col] holds beta and a[row0+1..][col] the
 * vector scaled so that its first (implicit) entry is 1. Returns tau
 * (0 when there is nothing to annihilate).
 */
EV_FN float speed_householder(float *a, int n, int col, int row0)
{
    if (n - row0 == 1)
        return 0.0f;
    float ss = 0.0f;
    for (int i = row0 + 1; i < n; i++)
        ss = FADD(ss, FMUL(a[i * n + col], a[i * n + col]));
    const float xnorm = speed_sqrt(ss);
    if (xnorm == 0.0f)
        return 0.0f;
    const float alpha = a[row0 * n + col];
    /* -sign(alpha) * |(alpha, xnorm)|, sign(alpha) = +1 for alpha >= 0. */
    const float h = speed_hypot(alpha, xnorm);
    const float beta = alpha >= 0.0f ? -h : h;
    const float tau = FDIV(FSUB(beta, alpha), beta);
    const float s = FSUB(alpha, beta);
    if (s != 0.0f) {
        for (int i = row0; i < n; i++)
            a[i * n + col] = FDIV(a[i * n + col], s);
        a[row0 * n + col] = beta;
    }
    return tau;
}

/*
 * Reduce symmetric a (n x n, destroyed) to tridiagonal form by n-2
 * Householder similarity transforms; diag[n] and sub[n-1] receive the
 * result. v and x are n-float scratch vectors.
 */
EV_FN void speed_tridiagonalize(float *a, int n, float *diag, float *sub,
                                float *v, float *x)
{
    for (int i = 0; i + 2 < n; i++) {
        const int lo = i + 1;
        const float tau = speed_householder(a, n, i, lo);
        for (int j = lo; j < n; j++)
            v[j] = a[j * n + i];
        if (tau == 0.0f)
            continue;
        v[lo] = 1.0f;
        /* x = tau * A v over the trailing block, each sum from +0. */
        for (int r = lo; r < n; r++) {
            float acc = 0.0f;
            for (int c = lo; c < n; c++)
                acc = FADD(acc, FMUL(FMUL(tau, a[r * n + c]), v[c]));
            x[r] = acc;
        }
        /* x -= (tau/2) (x . v) v, the coefficient formed in double. */
        float xv = 0.0f;
        for (int r = lo; r < n; r++)
            xv = FADD(xv, FMUL(x[r], v[r]));
        const float k = (float)DMUL(DMUL(-0.5, (double)tau), (double)xv);
        for (int r = lo; r < n; r++)
            x[r] = FADD(x[r], FMUL(k, v[r]));
        /* A -= x v' + v x'. */
        for (int r = lo; r < n; r++)
            for (int c = lo; c < n; c++)
                a[r * n + c] = FSUB(a[r * n + c],
                                    FADD(FMUL(x[r], v[c]), FMUL(v[r], x[c])));
    }
    for (int i = 0; i < n; i++)
        diag[i] = a[i * n + i];
    for (int i = 0; i + 1 < n; i++)
        sub[i] = a[(i + 1) * n + i];
}

/** Zero the off-diagonal entries that are negligible next to their neighbours. */
EV_FN void speed_deflate(const float *d, float *sd, int n)
{
    for (int i = 0; i + 1 < n; i++) {
        /* float magnitude against a double threshold. */
        if ((double)fabsf(sd[i]) < DMUL(SPEED_EPS, (double)FADD(fabsf(d[i]), fabsf(d[i + 1]))))
            sd[i] = 0.0f;
    }
}

/** Wilkinson shift from the trailing 2x2 block of a tridiagonal block. */
EV_FN float speed_shift(const float *d, const float *sd, int n)
{
    const float ta = d[n - 2], tb = d[n - 1], tab = sd[n - 2];
    const float dt = (float)DDIV((double)FSUB(ta, tb), 2.0);
    if (dt > 0.0f)
        return FSUB(tb, FMUL(tab, FDIV(tab, FADD(dt, speed_hypot(dt, tab)))));
    if (dt == 0.0f)
        return FSUB(tb, fabsf(tab));
    return FADD(tb, FMUL(tab, FDIV(tab, FADD(-dt, speed_hypot(dt, tab)))));
}

/** Givens rotation (c, s) that annihilates b against a; 1/sqrt in double. */
EV_FN void speed_givens(float a, float b, float *c, float *s)
{
    if (b == 0.0f) {
        *c = 1.0f;
        *s = 0.0f;
    } else if (fabsf(b) > fabsf(a)) {
        const float t = FDIV(-a, b);
        const float u = (float)DDIV(1.0, sqrt((double)FADD(1.0f, FMUL(t, t))));
        *s = u;
        *c = FMUL(u, t);
    } else {
        const float t = FDIV(-b, a);
        const float u = (float)DDIV(1.0, sqrt((double)FADD(1.0f, FMUL(t, t))));
        *c = u;
        *s = FMUL(u, t);
    }
}

/* The rotated 2x2 entries: the reference's three expressions, verbatim in
 * their association. */
EV_FN float speed_rot_app(float c, float s, float ap, float bp, float aq)
{
    return FADD(FMUL(c, FSUB(FMUL(c, ap), FMUL(s, bp))),
                FMUL(s, FSUB(FMUL(s, aq), FMUL(c, bp))));
}

EV_FN float speed_rot_bpp(float c, float s, float ap, float bp, float aq)
{
    return FSUB(FMUL(c, FADD(FMUL(s, ap), FMUL(c, bp))),
                FMUL(s, FADD(FMUL(s, bp), FMUL(c, aq))));
}

EV_FN float speed_rot_aqq(float c, float s, float ap, float bp, float aq)
{
    return FADD(FMUL(s, FADD(FMUL(s, ap), FMUL(c, bp))),
                FMUL(c, FADD(FMUL(s, bp), FMUL(c, aq))));
}

/** One implicit symmetric QR sweep (with shift) over an unreduced block. */
EV_FN void speed_qr_sweep(float *d, float *sd, int n)
{
    float mu = speed_shift(d, sd, n);
    if (DMUL(SPEED_EPS, (double)fabsf(mu)) > (double)FADD(fabsf(d[0]), fabsf(sd[0])))
        mu = 0.0f;

    float x = FSUB(d[0], mu), z = sd[0];
    float bk = 0.0f, zk = 0.0f;
    float ap = d[0], bp = sd[0], aq = d[1];
    float c, s;

    if (n == 2) {
        speed_givens(x, z, &c, &s);
        const float ap1 = speed_rot_app(c, s, ap, bp, aq);
        const float bp1 = speed_rot_bpp(c, s, ap, bp, aq);
        const float aq1 = speed_rot_aqq(c, s, ap, bp, aq);
        d[0] = ap1;
        sd[0] = bp1;
        d[1] = aq1;
        return;
    }

    float bq = sd[1];
    for (int k = 0; k + 1 < n; k++) {
        speed_givens(x, z, &c, &s);
        const float bk1 = FSUB(FMUL(c, bk), FMUL(s, zk));
        const float ap1 = speed_rot_app(c, s, ap, bp, aq);
        const float bp1 = speed_rot_bpp(c, s, ap, bp, aq);
        const float zp1 = FMUL(-s, bq);
        const float aq1 = speed_rot_aqq(c, s, ap, bp, aq);
        const float bq1 = FMUL(c, bq);

        const float ak = ap1;
        bk = bp1;
        zk = zp1;
        ap = aq1;
        bp = bq1;
        if (k < n - 2)
            aq = d[k + 2];
        if (k < n - 3)
            bq = sd[k + 2];
        d[k] = ak;
        if (k > 0)
            sd[k - 1] = bk1;
        if (k < n - 2)
            sd[k + 1] = bp;
        x = bk;
        z = zk;
    }
    d[n - 1] = ap;
    sd[n - 2] = bk;
}

/**
 * Eigenvalues of the tridiagonal (d, sd) in place in d, in the reference's
 * (unsorted) order. Returns the number of QR sweeps; SPEED_MAX_QR_ITERS
 * means it stopped without converging (the reference warns and goes on).
 */
EV_FN int speed_tridiagonal_eigenvalues(float *d, float *sd, int n)
{
    speed_deflate(d, sd, n);
    int b = n - 1, iters = 0;
    while (b > 0 && iters < SPEED_MAX_QR_ITERS) {
        if (sd[b - 1] == 0.0f) {
            b--;
            continue;
        }
        /* The largest unreduced block ending at b. */
        int a = b - 1;
        while (a > 0 && sd[a - 1] != 0.0f)
            a--;
        speed_qr_sweep(d + a, sd + a, b - a + 1);
        speed_deflate(d + a, sd + a, b - a + 1);
        iters++;
    }
    return iters;
}

/* ---- Linear solve K X = Y by Householder QR of K (explicit reflector
 * matrices, as the reference builds them) ---- */

/** dst (r x c) = x (r x m) * y (m x c); each entry summed from +0, m ascending. */
EV_FN void speed_matmul(float *dst, const float *x, const float *y, int r, int m, int c)
{
    for (int i = 0; i < r; i++) {
        float *row = dst + i * c;
        for (int j = 0; j < c; j++)
            row[j] = 0.0f;
        for (int k = 0; k < m; k++) {
            const float xik = x[i * m + k];
            const float *yk = y + k * c;
            for (int j = 0; j < c; j++)
                row[j] = FADD(row[j], FMUL(xik, yk[j]));
        }
    }
}

/** Euclidean norm, fp32 sum of squares from +0, double square root. */
EV_FN float speed_norm(const float *v, int n)
{
    float ss = 0.0f;
    for (int i = 0; i < n; i++)
        ss = FADD(ss, FMUL(v[i], v[i]));
    return speed_sqrt(ss);
}

/**
 * Q (n x n) such that Q K is upper triangular, and R = Q K. Scratch: z, h, t
 * (n x n each) and v (n). Reflector k is built from column k of the partly
 * reduced matrix with its leading k rows and columns reset to the identity;
 * its sign comes from K[k][k] of the original matrix (as in the reference).
 */
EV_FN void speed_qr(const float *K, int n, float *Q, float *R, float *z, float *h,
                    float *t, float *v)
{
    for (int i = 0; i < n * n; i++) {
        z[i] = K[i];
        Q[i] = (i / n == i % n) ? 1.0f : 0.0f;
    }
    for (int k = 0; k + 1 < n; k++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i < k || j < k)
                    z[i * n + j] = (i == j) ? 1.0f : 0.0f;
        for (int i = 0; i < n; i++)
            v[i] = z[i * n + k];
        const float norm = speed_norm(v, n);
        v[k] = FADD(v[k], K[k * n + k] >= 0.0f ? norm : -norm);
        const float vn = speed_norm(v, n);
        for (int i = 0; i < n; i++)
            v[i] = FDIV(v[i], vn);
        /* H = I - 2 v v': (-2 v_i) v_j, then 1 added on the diagonal. */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                h[i * n + j] = FMUL(FMUL(-2.0f, v[i]), v[j]);
        for (int i = 0; i < n; i++)
            h[i * n + i] = FADD(h[i * n + i], 1.0f);
        speed_matmul(t, h, z, n, n, n);
        for (int i = 0; i < n * n; i++)
            z[i] = t[i];
        speed_matmul(t, h, Q, n, n, n);
        for (int i = 0; i < n * n; i++)
            Q[i] = t[i];
    }
    speed_matmul(R, Q, K, n, n, n);
}

/**
 * Back substitution R X = B for upper triangular R (n x n), B and X n x m.
 * Returns -1 (X partly written) when a pivot's magnitude is below
 * SPEED_EPS, else 0. Each X entry subtracts its terms k ascending; columns
 * are independent, so they are processed together.
 */
EV_FN int speed_back_substitute(const float *R, const float *B, float *X, int n, int m)
{
    for (int i = n - 1; i >= 0; i--) {
        const float den = R[i * n + i];
        if ((double)fabsf(den) < SPEED_EPS)
            return -1;
        float *xi = X + i * m;
        const float *bi = B + i * m;
        for (int j = 0; j < m; j++)
            xi[j] = bi[j];
        for (int k = i + 1; k < n; k++) {
            const float rik = R[i * n + k];
            const float *xk = X + k * m;
            for (int j = 0; j < m; j++)
                xi[j] = FSUB(xi[j], FMUL(xk[j], rik));
        }
        for (int j = 0; j < m; j++)
            xi[j] = FDIV(xi[j], den);
    }
    return 0;
}

/**
 * Block variances from the solution X and the block samples Y (both
 * n x m): s_j = sum over i of (X_ij * Y_ij) / n, each term an fp32 product
 * then quotient, the terms added i ascending into row 0 (written to s).
 */
EV_FN void speed_block_variances(const float *X, const float *Y, int n, int m, float *s)
{
    const float fn = (float)n;
    for (int j = 0; j < m; j++)
        s[j] = FDIV(FMUL(X[j], Y[j]), fn);
    for (int i = 1; i < n; i++)
        for (int j = 0; j < m; j++)
            s[j] = FADD(s[j], FDIV(FMUL(X[i * m + j], Y[i * m + j]), fn));
}

#endif /* the host's part */

/* The GPU twins' sum kernels: items per picture (speed_kernels.h, speed_gpu.c). */
#define SPEED_MEAN_ITEMS 32
#define SPEED_COV_ITEMS 640

#endif
