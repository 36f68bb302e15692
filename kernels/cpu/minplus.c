/* cpu/minplus.c - min-plus in single, double and the integer classes, with Octave's witness rule.
 * Part of cpu.c, which includes it after its thread team and helpers. */

/* (CPU_FEW: the most outputs a product runs its terms in parts for) */
enum { CPU_IB = 512, CPU_KB = 128, CPU_JB = 16, CPU_FEW = 64 };
/* Octave's min rule for the witness: term s replaces the minimum c where
 * it is smaller, or where c is NaN and s is not (so the first term
 * attaining the minimum stays, and NaN terms are skipped) */
#define CPU_TAKES(s, c) ((s) < (c) || ((c) != (c) && (s) == (s)))

/* With K (the witness): each term that replaces the minimum records its
 * k + 1 in K (1 where every term is NaN: none replaces the start). The
 * loop over i stays branch-free (selects), and vectorises. A part takes
 * the terms [kbase, kbase + k) of B's columns (leading dimension ldb),
 * its columns in parallel where par is set. A product of few outputs and
 * many terms (a row by a column: one output) runs the terms in one part a
 * thread instead, the parts' minima then folded in k order by the same
 * rule, so the first term attaining the minimum still wins. */
#define DEFINE_CPU_MINPLUS(NAME, T, INIT, EMPTY, ADD)                          \
    static void NAME##_part(const T *A, const T *B, int64_t ldb, T *R,         \
                            int32_t *K, int64_t m, int64_t k, int64_t n,       \
                            int64_t kbase, int par)                            \
    {                                                                          \
        const T init = k > 0 ? (INIT) : (EMPTY);                               \
        int64_t njb = (n + CPU_JB - 1) / CPU_JB, done = 0;                     \
        _Pragma("omp parallel for schedule(dynamic) if (par) num_threads(gd_cpu_threads())") \
        for (int64_t jb = 0; jb < njb; ++jb) {                                 \
            if (gd_interrupted()) continue; /* Ctrl-C */                      \
            int64_t d_;                                                        \
            _Pragma("omp atomic capture") d_ = done++;                         \
            if (par) gd_progress("column block", (double)d_, (double)njb);     \
            int64_t j0 = jb * CPU_JB;                                          \
            int64_t j1 = j0 + CPU_JB < n ? j0 + CPU_JB : n;                    \
            for (int64_t j = j0; j < j1; ++j)                                  \
                for (int64_t i = 0; i < m; ++i) {                              \
                    R[i + m * j] = init;                                       \
                    if (K) K[i + m * j] = k > 0 ? (int32_t)(kbase + 1) : 0;    \
                }                                                              \
            for (int64_t k0 = 0; k0 < k; k0 += CPU_KB) {                       \
                if (gd_interrupted()) break; /* each CPU_KB terms: Ctrl-C */  \
                int64_t k1 = k0 + CPU_KB < k ? k0 + CPU_KB : k;                \
                for (int64_t i0 = 0; i0 < m; i0 += CPU_IB) {                   \
                    int64_t i1 = i0 + CPU_IB < m ? i0 + CPU_IB : m;            \
                    for (int64_t j = j0; j < j1; ++j) {                        \
                        T *r = R + m * j;                                      \
                        int32_t *w = K ? K + m * j : NULL;                     \
                        for (int64_t kk = k0; kk < k1; ++kk) {                 \
                            const T *a = A + m * kk;                           \
                            const T b = B[kk + ldb * j];                       \
                            if (w) {                                           \
                                const int32_t kw = (int32_t)(kbase + kk + 1);  \
                                for (int64_t i = i0; i < i1; ++i) {            \
                                    T s = ADD(a[i], b);                        \
                                    T c = r[i];                                \
                                    int take = CPU_TAKES(s, c);                \
                                    r[i] = take ? s : c;                       \
                                    w[i] = take ? kw : w[i];                   \
                                }                                              \
                            } else {                                           \
                                for (int64_t i = i0; i < i1; ++i) {            \
                                    T s = ADD(a[i], b);                        \
                                    T c = r[i];                                \
                                    r[i] = (s < c || c != c) ? s : c;          \
                                }                                              \
                            }                                                  \
                        }                                                      \
                    }                                                          \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    void NAME(const T *A, const T *B, T *R, int32_t *K, int64_t m, int64_t k,  \
              int64_t n)                                                       \
    {                                                                          \
        const int nt = gd_cpu_threads();                                       \
        const int64_t outs = m * n, so = outs + 128; /* parts' lines apart */  \
        T *Rp = NULL;                                                          \
        int32_t *Kp = NULL;                                                    \
        if (nt > 1 && outs <= CPU_FEW && k >= (int64_t)nt * CPU_KB * 64) {     \
            Rp = (T *)malloc((size_t)(nt * so) * sizeof(T));                   \
            Kp = K ? (int32_t *)malloc((size_t)(nt * so) * sizeof(int32_t)) : NULL; \
        }                                                                      \
        if (!Rp || (K && !Kp)) {                                               \
            free(Rp);                                                          \
            free(Kp);                                                          \
            NAME##_part(A, B, k, R, K, m, k, n, 0, 1);                         \
            return;                                                            \
        }                                                                      \
        _Pragma("omp parallel for schedule(static, 1) num_threads(nt)")       \
        for (int p = 0; p < nt; ++p) {                                         \
            const int64_t k0 = k * p / nt, k1 = k * (p + 1) / nt;              \
            NAME##_part(A + m * k0, B + k0, k, Rp + so * p, K ? Kp + so * p : NULL, \
                        m, k1 - k0, n, k0, 0);                                 \
        }                                                                      \
        for (int64_t o = 0; o < outs; ++o) {                                   \
            T c = Rp[o];                                                       \
            int32_t w = K ? Kp[o] : 0;                                         \
            if (c != c) w = 1; /* every term of the first part NaN */         \
            for (int p = 1; p < nt; ++p) {                                     \
                const T s = Rp[so * p + o];                                    \
                const int take = CPU_TAKES(s, c);                              \
                c = take ? s : c;                                              \
                w = take && K ? Kp[so * p + o] : w;                            \
            }                                                                  \
            R[o] = c;                                                          \
            if (K) K[o] = w;                                                   \
        }                                                                      \
        free(Rp);                                                              \
        free(Kp);                                                              \
    }

#define GD_PLUS(a, b) ((a) + (b))
DEFINE_CPU_MINPLUS(gd_cpu_minplus_f, float, (float)NAN, (float)INFINITY, GD_PLUS)
DEFINE_CPU_MINPLUS(gd_cpu_minplus_d, double, NAN, INFINITY, GD_PLUS)

/* The integer classes: Octave's saturating addition (int8(100) + int8(100)
 * is 127), the narrow classes through a 64-bit sum and a clamp (which
 * vectorises), the 64-bit ones through the overflow builtins. The running
 * minimum starts at the class's largest value with k = 1 (no NaN to
 * skip: the first term, smaller or equal, is then where it is attained),
 * and an empty inner dimension gives that largest value (Inf has no
 * integer value). */
#define GD_SAT_NARROW(NAME, T, LO, HI)                                         \
    static inline T NAME(T a, T b)                                             \
    {                                                                          \
        const int64_t s = (int64_t)a + (int64_t)b;                             \
        return (T)(s < (LO) ? (LO) : s > (HI) ? (HI) : s);                     \
    }
GD_SAT_NARROW(sat_i8, int8_t, INT8_MIN, INT8_MAX)
GD_SAT_NARROW(sat_u8, uint8_t, 0, UINT8_MAX)
GD_SAT_NARROW(sat_i16, int16_t, INT16_MIN, INT16_MAX)
GD_SAT_NARROW(sat_u16, uint16_t, 0, UINT16_MAX)
GD_SAT_NARROW(sat_i32, int32_t, INT32_MIN, INT32_MAX)
GD_SAT_NARROW(sat_u32, uint32_t, 0, (int64_t)UINT32_MAX)
static inline int64_t sat_i64(int64_t a, int64_t b)
{
    int64_t s;
    if (__builtin_add_overflow(a, b, &s)) return b > 0 ? INT64_MAX : INT64_MIN;
    return s;
}
static inline uint64_t sat_u64(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}
DEFINE_CPU_MINPLUS(cpu_minplus_i8, int8_t, INT8_MAX, INT8_MAX, sat_i8)
DEFINE_CPU_MINPLUS(cpu_minplus_u8, uint8_t, UINT8_MAX, UINT8_MAX, sat_u8)
DEFINE_CPU_MINPLUS(cpu_minplus_i16, int16_t, INT16_MAX, INT16_MAX, sat_i16)
DEFINE_CPU_MINPLUS(cpu_minplus_u16, uint16_t, UINT16_MAX, UINT16_MAX, sat_u16)
DEFINE_CPU_MINPLUS(cpu_minplus_i32, int32_t, INT32_MAX, INT32_MAX, sat_i32)
DEFINE_CPU_MINPLUS(cpu_minplus_u32, uint32_t, UINT32_MAX, UINT32_MAX, sat_u32)
DEFINE_CPU_MINPLUS(cpu_minplus_i64, int64_t, INT64_MAX, INT64_MAX, sat_i64)
DEFINE_CPU_MINPLUS(cpu_minplus_u64, uint64_t, UINT64_MAX, UINT64_MAX, sat_u64)

int gd_cpu_minplus_int(gd_class cls, const void *A, const void *B, void *R, int32_t *K,
                       int64_t m, int64_t k, int64_t n)
{
    switch (cls) {
    case GD_INT8: cpu_minplus_i8(A, B, R, K, m, k, n); return 0;
    case GD_UINT8: cpu_minplus_u8(A, B, R, K, m, k, n); return 0;
    case GD_INT16: cpu_minplus_i16(A, B, R, K, m, k, n); return 0;
    case GD_UINT16: cpu_minplus_u16(A, B, R, K, m, k, n); return 0;
    case GD_INT32: cpu_minplus_i32(A, B, R, K, m, k, n); return 0;
    case GD_UINT32: cpu_minplus_u32(A, B, R, K, m, k, n); return 0;
    case GD_INT64: cpu_minplus_i64(A, B, R, K, m, k, n); return 0;
    case GD_UINT64: cpu_minplus_u64(A, B, R, K, m, k, n); return 0;
    default: return -1;
    }
}

/* pdist: column j of the condensed triangle (pairs (i, j), i > j) is
 * contiguous in D, so each thread takes whole columns and runs the
 * innermost loop down X(:,k) and the column: contiguous, vectorised. Sums
 * run over k in order, as the statistics package's sumsq does. */
