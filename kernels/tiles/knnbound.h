/* knnbound.h - how far a distance from a GEMM can be from gd's own.
 *
 * The certified candidates of gd_knnsearch's 'gemm' variant (ops/knn_gemm.cu;
 * this header is its certificate, shared by the CPU's tests and the GPU):
 * the squared Euclidean distances of a query tile and a point tile come
 * from one matrix product on the tensor cores, in the expansion
 *
 *     e = |q'|^2 + |x'|^2 - 2 q'.x'
 *
 * with q' and x' the rows less a common centre (translation leaves every
 * distance as it was, and a centre near the data keeps |q'| and |x'|, and
 * so the bound, small where the data sit far from the origin). The bound
 * B = kappa (|q'| + |x'|)^2 holds |e - f| <= B, f being the sum of squares
 * gd's 'fused' kernel computes, (q - x)^2 accumulated one feature at a time
 * by FMA from the rows as given. So f lies in [e - B, e + B], and for each
 * query every point whose f can be among the K smallest has e - B at most
 * the K-th smallest e + B: those are the candidates, whose f the exact
 * kernel then computes, in the same order as 'fused', to select from.
 *
 * The derivation. u is the unit roundoff of the class (2^-24 single,
 * 2^-53 double), u_t that of the product's inputs (TF32: 2^-11 with
 * round to nearest; taken as 2^-10, truncation's, so that a conversion
 * that truncates is covered too), gamma_n = n u / (1 - n u), d the
 * features, delta = |q - x|^2 exactly, R = |q'| + |x'|.
 *
 *  1. f against delta. Each difference t_k = fl(q_k - x_k) = (q_k - x_k)
 *     (1 + a_k) and each FMA rounds once; every term is non-negative, so
 *     f = sum t_k^2 prod (1 + b) with at most d + 2 factors of 1 + O(u):
 *     |f - delta| <= gamma_{d+2} delta.
 *  2. The centre. q'_k = fl(q_k - c_k) = (q_k - c_k)(1 + a), so q' - x' =
 *     (q - x) + w with |w_k| <= u' (|q'_k| + |x'_k|), u' = u / (1 - u), and
 *     |w| <= u' R. With delta' = |q' - x'|^2 and sqrt (delta) <= R + |w|:
 *     |delta' - delta| <= 2 sqrt (delta) |w| + |w|^2 <= (2 u' + 3 u'^2) R^2.
 *     Also delta <= (1 + u')^2 R^2.
 *  3. The norms n_q, n_x (sums of squares of q', x' by FMA, in the class):
 *     |n_q - |q'|^2| <= gamma_{d+1} |q'|^2, and |q'|^2 + |x'|^2 <= R^2.
 *  4. The product s = q'.x'. Its inputs are rounded to the product's
 *     format, q^_k = q'_k (1 + a), |a| <= u_t: |q^.x^ - q'.x'| <=
 *     (2 u_t + u_t^2) sum |q'_k x'_k| <= (2 u_t + u_t^2) R^2 / 4 (Cauchy-
 *     Schwarz, then |q'||x'| <= R^2 / 4). The tensor cores multiply
 *     exactly and add in FP32 with truncation and without normalising
 *     their partial sums (Fasi, Higham, Mikaitis and Pranesh, "Numerical
 *     behavior of NVIDIA tensor cores", PeerJ CS 2021, measured on V100,
 *     T4 and A100); taken here as at most 40 u (|c| + sum |p|) an
 *     instruction of 8 products p into the accumulator c (each of the 9
 *     terms aligned to the largest and cut, 4 u of it; the cut result 4 u
 *     more), so over d / 8 instructions at most 5 d u sum |q^_k x^_k| <=
 *     5 d u (1 + u_t)^2 R^2 / 4. e takes 2 s: twice each of these.
 *  5. e = fl (fl (n_q + n_x) - 2 s): two roundings, at most 3 u R^2 (1 +
 *     the above) together.
 *  Adding 1 to 5: |e - f| <= kappa R^2 with
 *     kappa = (gamma_{d+1} + (2 u_t + u_t^2) / 2 + 2.5 d u (1 + u_t)^2
 *              + 3 u + 2 u' + 3 u'^2 + gamma_{d+2} (1 + u')^2) (1 + 2^-8),
 *  the last factor for the products of small terms left out above. R
 *  itself comes from the computed norms: sqrt of each rounds once and
 *  n_q is within gamma_{d+1} of |q'|^2, so R <= (sqrt (n_q) + sqrt
 *  (n_x)) (1 + gamma_{d+1} + 2u), which gd_knn_bound takes.
 *
 *  With u_t = 2^-10 the product's rounding is nearly all of kappa (d =
 *  128, single: kappa = 1.02e-3 against 9.8e-4 for that term alone): for
 *  randn rows of 128 features, R^2 is about 512 and B about 0.5, while the
 *  100th nearest of 10^6 points lies near 150 with about 15 points a unit
 *  of distance there. Counted (10^6 randn points, 40 randn queries, f in
 *  place of e), the candidates a query number, median (largest): K = 1:
 *  1 (6); K = 10: 12 (16); K = 100: 117 (133); K = 1024: 1182 (1212). Three
 *  products (TF32 hi and lo parts) would take the first term to about
 *  2^-20 where a call needs fewer candidates.
 *
 *  Double rows: the product's inputs are the centred rows rounded to
 *  float, then to TF32, and everything else is done in double; kappa with
 *  u = 2^-24 and u_t = 2^-10 + 2^-24 covers that (each double rounding is
 *  below single's), at the cost of a bound 2^29 times looser than double's
 *  own u would give in the terms that do not come from the product.
 *
 *  What the bound does not cover, and the caller must send to 'fused'
 *  instead: rows with a NaN or an Inf (their f is not a number), a sum
 *  that 'fused' rescues (norm2.h: f out of the normal range, so that
 *  'fused' computes the distance another way), and R^2 that overflows.
 *  Euclidean's root: fl (sqrt (f)) can tie for two f a factor (1 + u)^2 /
 *  (1 - u)^2 apart, so a query's candidates are the points with e - B <=
 *  U (1 + 5u), U the K-th smallest e + B (gd_knn_cut). On the device e -
 *  B is taken rounding down and e + B rounding up (__fsub_rd, __fadd_ru),
 *  so that the float comparisons keep every candidate the exact ones do.
 *
 *  A worst case the tests check (tests/check_knnbound.c): rows +v and -v
 *  (centre 0), v_k = 1 + 2^-10 - 2^-23, which truncation to TF32 takes to
 *  1; the query v against the point v has f = 0 and e = 2^-8 d, within a
 *  few percent of B: kappa has no room to lose.
 */
/*
 * Cosine (correlation and spearman arrive as cosine on prepared rows).
 * 'fused' computes g = max (0, fl (1 - fl (v / fl (n_q n_x)))), v the dot
 * product of the rows as given (each product and each sum rounded, in
 * feature order), n_q and n_x the rows' norms (fl (sqrt) of their sums of
 * squares, computed likewise). The product's rows are each row times the
 * inverse of its norm, then rounded to TF32, and e = 1 - t, t their dot
 * product on the tensor cores. With rho = q.x / (|q| |x|), |rho| <= 1,
 * g1 = gamma_{d+1}:
 *  1. The fused value. |v - q.x| <= gamma_d |q||x|. Each norm is |q| (1 +
 *     eta), |eta| <= g1 (the sum within gamma_d, the root halves it and
 *     rounds once). So fl (n_q n_x) = |q||x| (1 + eta_q)(1 + eta_x)(1 +
 *     d1) and the quotient is (rho + w) Phi, |w| <= gamma_d, |Phi - 1| <=
 *     phi = (1 + u) / ((1 - g1)^2 (1 - u)) - 1: it is within E_q = phi +
 *     gamma_d (1 + phi) of rho. 1 - q rounds once more, at most u (2 +
 *     E_q); the clamp at 0 moves g towards 1 - rho >= 0, never away.
 *  2. The product's rows: q^_k = (q_k / |q|)(1 + a_k), |a_k| <= a = u_t +
 *     2u + 2 g1 (the norm, the inverse and the product each round; then
 *     TF32). |q^.x^ - rho| <= (2a + a^2) sum |q_k x_k| / (|q||x|) <= 2a +
 *     a^2 (Cauchy-Schwarz). The tensor cores' sums, as above: at most 5 d
 *     u_f sum |q^_k x^_k| <= 5 d u_f (1 + a)^2 (u_f = 2^-24: they add in
 *     float whatever the class).
 *  3. Underflow: rows with |q|^2 below 2^-60 (single; double 2^-900) are
 *     left to 'fused', so each product that underflows in 1 costs at most
 *     2^-90 d of rho; a TF32 input flushed to zero, less than 2^-126 each.
 *     d 2^-80 covers both.
 *  So |g - e| <= B_cos = (E_q + u (2 + E_q) + 2a + a^2 + 5 d u_f (1 +
 *  a)^2)(1 + 2^-8) + d 2^-80, the same for every pair: U = e + B_cos =
 *  (1/2 + B_cos/2) + (1/2 + B_cos/2) - t, each row's part rounded up (L
 *  likewise, down), the product's coefficient -1. B_cos is about 2 u_t:
 *  2.1e-3 in single at d = 128, against distances in [0, 2] (randn rows
 *  of 128 features: the nearest of 10^6 lie near 0.6, spread about
 *  0.09).
 */
#ifndef GD_KNNBOUND_H
#define GD_KNNBOUND_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GD_KB static __host__ __device__ __forceinline__
#else
#define GD_KB static inline
#endif

/* kappa for d features: u the class's unit roundoff, ut the product
 * inputs' (2^-10 for TF32, covering truncation) */
GD_KB double gd_knn_kappa(int64_t d, double u, double ut)
{
    const double up = u / (1 - u);
    const double g1 = (d + 1) * u / (1 - (d + 1) * u), g2 = (d + 2) * u / (1 - (d + 2) * u);
    return (g1 + (2 * ut + ut * ut) / 2 + 2.5 * (double)d * u * (1 + ut) * (1 + ut) + 3 * u +
            2 * up + 3 * up * up + g2 * (1 + up) * (1 + up)) *
           (1 + 0x1p-8);
}

/* B for a pair from its computed norms n_q, n_x (sums of squares of the
 * centred rows): |e - f| <= B. Inf where R^2 overflows (never a number a
 * candidate test can pass on). */
GD_KB double gd_knn_bound(double kappa, int64_t d, double u, double nq, double nx)
{
    const double g1 = (d + 1) * u / (1 - (d + 1) * u);
    const double r = (sqrt(nq) + sqrt(nx)) * (1 + g1 + 2 * u);
    return kappa * r * r;
}

/* B_cos for d features (every pair's): u the class's unit roundoff, ut
 * the product inputs' (as for gd_knn_kappa), u_f float's */
GD_KB double gd_knn_cos_bound(int64_t d, double u, double ut)
{
    const double uf = 0x1p-24;
    const double gd = d * u / (1 - d * u), g1 = (d + 1) * u / (1 - (d + 1) * u);
    const double phi = (1 + u) / ((1 - g1) * (1 - g1) * (1 - u)) - 1;
    const double eq = phi + gd * (1 + phi);
    const double a = ut + 2 * u + 2 * g1;
    return (eq + u * (2 + eq) + 2 * a + a * a + 5 * (double)d * uf * (1 + a) * (1 + a)) *
               (1 + 0x1p-8) +
           (double)d * 0x1p-80;
}

/* the candidates' cut: a point is one where e - B <= gd_knn_cut (U, u),
 * U the K-th smallest e + B of the query (the root's ties included) */
GD_KB double gd_knn_cut(double U, double u) { return U * (1 + 5 * u); }

#endif
