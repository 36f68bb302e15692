/* check_knnbound.c - the certificate of knnbound.h against an emulation
 * of the candidates' arithmetic, on the CPU: f as 'fused' computes it
 * (float differences, FMA accumulation), e from centred rows, float norms,
 * a product whose inputs are cut to TF32 (truncation, the bound's worst
 * case) and whose sum of each 8 products into the accumulator is exact
 * then cut to float (the tensor cores' way, within the bound's model).
 * Every pair of each data set must have |e - f| <= B; the largest ratio is
 * printed, and the worst case of the header (rows +-v) must come close to
 * 1, so that a bound too loose or too tight by 2x fails either way.
 * Cosine's bound likewise (its own emulation, worst case and margin).
 * Usage: check_knnbound (prints "bound holds" and exits 0, else 1). */
#include "tiles/knnbound.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float tf32_cut(float v)
{
    unsigned b;
    memcpy(&b, &v, 4);
    b &= 0xffffe000u; /* 10 mantissa bits kept */
    memcpy(&v, &b, 4);
    return v;
}

/* float toward zero of an exact (double) sum */
static float to_float_rz(double s)
{
    float f = (float)s;
    if (fabs((double)f) > fabs(s)) f = nextafterf(f, 0.0f);
    return f;
}

static unsigned long long rng = 88172645463325252ull;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}
static double gauss(void)
{
    const double a = uniform() + 1e-300, b = uniform();
    return sqrt(-2 * log(a)) * cos(2 * M_PI * b);
}

/* the worst ratio |e - f| / B over all pairs of the n rows (n x d, row i
 * at X + i d), queries the same rows */
static double worst_ratio(const float *X, int n, int d)
{
    const double u = 0x1p-24, ut = 0x1p-10, kappa = gd_knn_kappa(d, u, ut);
    float *c = calloc((size_t)d, sizeof(float)), *P = malloc((size_t)n * d * sizeof(float));
    float *nrm = malloc((size_t)n * sizeof(float));
    for (int k = 0; k < d; ++k) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += X[(size_t)i * d + k];
        c[k] = (float)(s / n);
    }
    for (int i = 0; i < n; ++i) {
        float acc = 0;
        for (int k = 0; k < d; ++k) {
            const float v = X[(size_t)i * d + k] - c[k];
            P[(size_t)i * d + k] = v;
            acc = fmaf(v, v, acc);
        }
        nrm[i] = acc;
    }
    double worst = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const float *q = X + (size_t)i * d, *x = X + (size_t)j * d;
            float f = 0;
            for (int k = 0; k < d; ++k) {
                const float t = q[k] - x[k];
                f = fmaf(t, t, f);
            }
            const float *qp = P + (size_t)i * d, *xp = P + (size_t)j * d;
            float s = 0;
            for (int k0 = 0; k0 < d; k0 += 8) {
                double part = s;
                for (int k = k0; k < k0 + 8 && k < d; ++k)
                    part += (double)tf32_cut(qp[k]) * (double)tf32_cut(xp[k]);
                s = to_float_rz(part);
            }
            const float e = (nrm[i] + nrm[j]) - 2 * s;
            const double B = gd_knn_bound(kappa, d, u, nrm[i], nrm[j]);
            const double r = B > 0 ? fabs((double)e - (double)f) / B : (e == f ? 0 : INFINITY);
            if (r > worst) worst = r;
        }
    free(c);
    free(P);
    free(nrm);
    return worst;
}

/* cosine: g as 'fused' computes it (float products and sums in feature
 * order, the norms likewise, 1 - v / (n_q n_x) clamped at 0), e = 1 - t
 * from the rows times their norms' inverses, cut to TF32, summed as
 * above; the largest |e - g| / B_cos over every pair of rows with a
 * norm */
static double worst_cos(const float *X, int n, int d)
{
    float *P = malloc((size_t)n * d * sizeof(float)), *nrm = malloc((size_t)n * sizeof(float));
    const double B = gd_knn_cos_bound(d, 0x1p-24, 0x1p-10);
    for (int i = 0; i < n; ++i) {
        float acc = 0;
        for (int k = 0; k < d; ++k) {
            const float x = X[(size_t)i * d + k];
            acc = acc + x * x;
        }
        nrm[i] = sqrtf(acc);
        const float inv = nrm[i] > 0 ? 1.0f / nrm[i] : 0.0f;
        for (int k = 0; k < d; ++k) P[(size_t)i * d + k] = tf32_cut(X[(size_t)i * d + k] * inv);
    }
    double worst = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (!(nrm[i] > 0 && nrm[j] > 0)) continue;
            const float *q = X + (size_t)i * d, *x = X + (size_t)j * d;
            float v = 0;
            for (int k = 0; k < d; ++k) v = v + q[k] * x[k];
            float g = 1 - v / (nrm[i] * nrm[j]);
            g = g < 0 ? 0 : g;
            const float *qp = P + (size_t)i * d, *xp = P + (size_t)j * d;
            float t = 0;
            for (int k0 = 0; k0 < d; k0 += 8) {
                double part = t;
                for (int k = k0; k < k0 + 8 && k < d; ++k) part += (double)qp[k] * (double)xp[k];
                t = to_float_rz(part);
            }
            const double r = fabs((1 - (double)t) - (double)g) / B;
            if (r > worst) worst = r;
        }
    free(P);
    free(nrm);
    return worst;
}

/* data set `set` of n rows of d: randn; uniform; far from the origin (1e4
 * + small: centring's case); small integers, the first row twice (exact
 * ties, duplicates) and the third all zeros (cosine's row without a
 * direction) */
static void fill_set(float *X, int n, int d, int set)
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < d; ++k) {
            const double g = gauss();
            X[(size_t)i * d + k] = set == 0   ? (float)g
                                   : set == 1 ? (float)uniform()
                                   : set == 2 ? (float)(1e4 + g)
                                              : (float)(int)(4 * uniform());
        }
    if (set == 3) {
        memcpy(X + d, X, (size_t)d * sizeof(float));
        memset(X + 2 * d, 0, (size_t)d * sizeof(float));
    }
}

int main(void)
{
    int ok = 1;
    const int dims[] = {1, 3, 8, 127, 128, 300};
    for (int t = 0; t < 6; ++t) {
        const int d = dims[t], n = 96;
        float *X = malloc((size_t)n * d * sizeof(float));
        for (int set = 0; set < 4; ++set) {
            fill_set(X, n, d, set);
            const double r = worst_ratio(X, n, d), rc = worst_cos(X, n, d);
            printf("d = %3d, set %d: largest |e - f| / B %.4f; cosine's |e - g| / B_cos %.4f\n", d,
                   set, r, rc);
            if (!(r <= 1) || !(rc <= 1)) ok = 0;
        }
        /* the worst case: rows +v and -v, v_k = 1 + 2^-10 - 2^-23 */
        const float v = 1.0f + 0x1p-10f - 0x1p-23f;
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < d; ++k) X[(size_t)i * d + k] = i % 2 ? -v : v;
        const double r = worst_ratio(X, n, d);
        printf("d = %3d, rows +-v: largest |e - f| / B %.4f\n", d, r);
        if (!(r <= 1 && r > 0.9)) ok = 0;
        free(X);
    }
    /* cosine's worst case: a row of ones against itself with d = 231,
     * where 1 / sqrt (d) rounded to float is 0.94 of a TF32 step above
     * one, so that each term of t loses nearly all of 2^-10 */
    {
        const int d = 231, n = 2;
        float *X = malloc((size_t)n * d * sizeof(float));
        for (int k = 0; k < n * d; ++k) X[k] = 1.0f;
        const double r = worst_cos(X, n, d);
        printf("cosine, d = 231, rows of ones: largest |e - g| / B_cos %.4f\n", r);
        if (!(r <= 1 && r > 0.85)) ok = 0;
        free(X);
    }
    printf("%s\n", ok ? "bound holds" : "bound FAILS");
    return ok ? 0 : 1;
}
