/* cpu/distances.c - pdist and pdist2: the Euclidean two and every other metric, a column of pairs at a time.
 * Part of cpu.c, which includes it after its thread team and helpers. */
#define DEFINE_CPU_PDIST(NAME, T, SQRT, RESCUE, NORM)                          \
    void NAME(const T *X, int64_t n, int64_t d, int root, T *D)                \
    {                                                                          \
        /* the progress in pairs begun (column j holds n - j - 1) */          \
        const double pairs = (double)n * (double)(n - 1) / 2;                  \
        int64_t begun = 0;                                                     \
        _Pragma("omp parallel for schedule(dynamic, 8) num_threads(gd_cpu_threads())") \
        for (int64_t j = 0; j < n - 1; ++j) {                                  \
            if (gd_interrupted()) continue; /* Ctrl-C */                      \
            int64_t b_;                                                        \
            _Pragma("omp atomic capture")                                      \
            {                                                                  \
                b_ = begun;                                                    \
                begun += n - j - 1;                                            \
            }                                                                  \
            gd_progress("pair", (double)b_, pairs);                            \
            T *col = D + j * (2 * n - j - 1) / 2; /* pairs (j+1.., j) */      \
            const int64_t len = n - j - 1;                                     \
            for (int64_t r = 0; r < len; ++r) col[r] = 0;                      \
            for (int64_t k = 0; k < d; ++k) {                                  \
                const T *x = X + n * k + j + 1;                                \
                const T xj = X[n * k + j];                                     \
                for (int64_t r = 0; r < len; ++r) {                            \
                    T diff = x[r] - xj;                                        \
                    col[r] += diff * diff;                                     \
                }                                                              \
            }                                                                  \
            if (root)                                                          \
                for (int64_t r = 0; r < len; ++r)                              \
                    col[r] = RESCUE(col[r]) ? NORM(X + j + 1 + r, n, X + j, n, d) \
                                            : SQRT(col[r]);                    \
        }                                                                      \
    }

DEFINE_CPU_PDIST(gd_cpu_pdist_f, float, sqrtf, gd_rescue_f, gd_scaled_norm_f)
DEFINE_CPU_PDIST(gd_cpu_pdist_d, double, sqrt, gd_rescue_d, gd_scaled_norm_d)

/* pdist2's column j: the sums of squares from Y(j,:) to every row of X,
 * down X(:,k) (the order pdist2 and the nearest neighbours share, so
 * their distances are the same to the bit). */
#define DEFINE_CPU_SQ_COLUMN(NAME, T)                                          \
    static void NAME(const T *X, const T *Y, int64_t mx, int64_t my, int64_t d, \
                     int64_t j, T *col)                                        \
    {                                                                          \
        for (int64_t i = 0; i < mx; ++i) col[i] = 0;                           \
        for (int64_t k = 0; k < d; ++k) {                                      \
            const T *x = X + mx * k;                                           \
            const T yj = Y[j + my * k];                                        \
            for (int64_t i = 0; i < mx; ++i) {                                 \
                T diff = x[i] - yj;                                            \
                col[i] += diff * diff;                                         \
            }                                                                  \
        }                                                                      \
    }
DEFINE_CPU_SQ_COLUMN(sq_column_f, float)
DEFINE_CPU_SQ_COLUMN(sq_column_d, double)

/* pdist2: D(:,j) from Y(j,:) against every row of X. */
#define DEFINE_CPU_PDIST2(NAME, T, COLUMN, SQRT, RESCUE, NORM)                 \
    void NAME(const T *X, const T *Y, int64_t mx, int64_t my, int64_t d,       \
              int root, T *D)                                                  \
    {                                                                          \
        _Pragma("omp parallel for schedule(static) num_threads(gd_cpu_threads())") \
        for (int64_t j = 0; j < my; ++j) {                                     \
            if (gd_interrupted()) continue; /* Ctrl-C */                      \
            T *col = D + mx * j;                                               \
            COLUMN(X, Y, mx, my, d, j, col);                                   \
            if (root)                                                          \
                for (int64_t i = 0; i < mx; ++i)                               \
                    col[i] = RESCUE(col[i]) ? NORM(X + i, mx, Y + j, my, d)    \
                                            : SQRT(col[i]);                    \
        }                                                                      \
    }

DEFINE_CPU_PDIST2(gd_cpu_pdist2_f, float, sq_column_f, sqrtf, gd_rescue_f, gd_scaled_norm_f)
DEFINE_CPU_PDIST2(gd_cpu_pdist2_d, double, sq_column_d, sqrt, gd_rescue_d, gd_scaled_norm_d)

/* The metrics other than the Euclidean ones (gd_metric). Per row: its
 * norm (cosine: sqrt of the plain sum of squares, as the statistics
 * package's sqrt (sumsq (X))) and whether it has NaN (hamming and jaccard
 * count it as different; MATLAB's pdist gives NaN, and so does gd). */
#define DEFINE_CPU_ROWINFO(NAME, T, SQRT)                                      \
    static void NAME(const T *X, int64_t m, int64_t d, T *norm, unsigned char *nan) \
    {                                                                          \
        for (int64_t i = 0; i < m; ++i) {                                      \
            norm[i] = 0;                                                       \
            nan[i] = 0;                                                        \
        }                                                                      \
        for (int64_t k = 0; k < d; ++k)                                        \
            for (int64_t i = 0; i < m; ++i) {                                  \
                const T x = X[i + m * k];                                      \
                norm[i] += x * x;                                              \
                nan[i] |= x != x;                                              \
            }                                                                  \
        for (int64_t i = 0; i < m; ++i) norm[i] = SQRT(norm[i]);               \
    }
DEFINE_CPU_ROWINFO(rowinfo_f, float, sqrtf)
DEFINE_CPU_ROWINFO(rowinfo_d, double, sqrt)

/* Column j of such a metric: Y(j,:) (Y my x d) against rows r0 ... mx - 1
 * of X (mx x d) into col[0 ...], aux a scratch column of as many. The
 * feature loop outside, a contiguous run of X's rows inside (vectorised).
 * minkowski: sum (|x - y|^p)^(1/p), and where the sum overflowed or lost
 * digits to underflow, Octave's scaled form (norm (x - y, p)). */
#define DEFINE_CPU_METRIC_COLUMN(NAME, T, FABS, POW, TINY)                    \
    static void NAME(gd_distance m, const T *X, int64_t mx, int64_t r0, const T *Y, int64_t my, \
                     int64_t j, int64_t d, const T *nx, const unsigned char *fx, \
                     const T *ny, const unsigned char *fy, T *col, T *aux)     \
    {                                                                          \
        const int64_t len = mx - r0;                                           \
        const T p = (T)m.p;                                                    \
        for (int64_t r = 0; r < len; ++r) col[r] = aux[r] = 0;                 \
        for (int64_t k = 0; k < d; ++k) {                                      \
            const T *x = X + mx * k + r0;                                      \
            const T yj = Y[j + my * k];                                        \
            switch (m.metric) {                                                \
            case GD_CITYBLOCK:                                                 \
                for (int64_t r = 0; r < len; ++r) col[r] += FABS(x[r] - yj);   \
                break;                                                         \
            case GD_CHEBYCHEV:                                                 \
                for (int64_t r = 0; r < len; ++r) {                            \
                    const T v = FABS(x[r] - yj);                               \
                    col[r] = (v > col[r] || v != v) ? v : col[r];              \
                }                                                              \
                break;                                                         \
            case GD_MINKOWSKI:                                                 \
                for (int64_t r = 0; r < len; ++r) col[r] += POW(FABS(x[r] - yj), p); \
                break;                                                         \
            case GD_COSINE:                                                    \
                for (int64_t r = 0; r < len; ++r) col[r] += x[r] * yj;         \
                break;                                                         \
            case GD_HAMMING:                                                   \
                for (int64_t r = 0; r < len; ++r) col[r] += (T)(x[r] != yj);   \
                break;                                                         \
            case GD_JACCARD:                                                   \
                for (int64_t r = 0; r < len; ++r) {                            \
                    col[r] += (T)(x[r] != yj);                                 \
                    aux[r] += (T)(x[r] != 0 || yj != 0);                       \
                }                                                              \
                break;                                                         \
            default:                                                           \
                break;                                                         \
            }                                                                  \
        }                                                                      \
        for (int64_t r = 0; r < len; ++r) {                                   \
            const int64_t i = r0 + r;                                          \
            T v = col[r];                                                      \
            switch (m.metric) {                                                \
            case GD_MINKOWSKI:                                                 \
                if (v == (T)INFINITY || v < TINY) {                            \
                    T scl = 0, sum = 0;                                        \
                    for (int64_t k = 0; k < d; ++k) {                          \
                        const T t = FABS(X[i + mx * k] - Y[j + my * k]);       \
                        scl = t > scl ? t : scl;                               \
                    }                                                          \
                    if (scl > 0 && scl != (T)INFINITY)                         \
                        for (int64_t k = 0; k < d; ++k)                        \
                            sum += POW(FABS(X[i + mx * k] - Y[j + my * k]) / scl, p); \
                    v = scl > 0 && scl != (T)INFINITY ? scl * POW(sum, 1 / p) : scl; \
                } else {                                                       \
                    v = POW(v, 1 / p);                                         \
                }                                                              \
                break;                                                         \
            case GD_COSINE:                                                    \
                v = 1 - v / (nx[i] * ny[j]);                                   \
                v = v < 0 ? 0 : v;                                             \
                break;                                                         \
            case GD_HAMMING:                                                   \
                v = (fx[i] || fy[j]) ? (T)NAN : v / (T)d;                      \
                break;                                                         \
            case GD_JACCARD:                                                   \
                v = (fx[i] || fy[j]) ? (T)NAN : v / aux[r];                    \
                break;                                                         \
            default:                                                           \
                break;                                                         \
            }                                                                  \
            col[r] = v;                                                        \
        }                                                                      \
    }
DEFINE_CPU_METRIC_COLUMN(metric_column_f, float, fabsf, powf, 0x1p-100f)
DEFINE_CPU_METRIC_COLUMN(metric_column_d, double, fabs, pow, 0x1p-960)

/* pdist (tri: X against itself, column j of the condensed triangle
 * holding rows j+1 ... n-1) and pdist2 (column j all of X's rows) for
 * such a metric. */
#define DEFINE_CPU_METRIC_PDIST(NAME, NAME2, T, INFO, COLUMN)                  \
    static int NAME##_columns(gd_distance m, const T *X, int64_t mx, const T *Y, int64_t my, \
                              int64_t d, int tri, T *D)                        \
    {                                                                          \
        T *nx = (T *)malloc((size_t)(mx + my) * sizeof(T) + 1);                \
        unsigned char *fx = (unsigned char *)malloc((size_t)(mx + my) + 1);    \
        int failed = !nx || !fx;                                               \
        if (!failed) {                                                         \
            INFO(X, mx, d, nx, fx);                                            \
            INFO(Y, my, d, nx + mx, fx + mx);                                  \
            const int64_t cols = tri ? mx - 1 : my;                            \
            _Pragma("omp parallel num_threads(gd_cpu_threads())")              \
            {                                                                  \
                T *aux = (T *)malloc((size_t)mx * sizeof(T) + 1);              \
                if (!aux) {                                                    \
                    _Pragma("omp atomic write") failed = 1;                    \
                } else {                                                       \
                    _Pragma("omp for schedule(dynamic, 8)")                    \
                    for (int64_t j = 0; j < cols; ++j)                         \
                        if (!gd_interrupted()) /* Ctrl-C */                   \
                        COLUMN(m, X, mx, tri ? j + 1 : 0, Y, my, j, d, nx, fx, nx + mx, \
                               fx + mx, D + (tri ? j * (2 * mx - j - 1) / 2 : mx * j), aux); \
                }                                                              \
                free(aux);                                                     \
            }                                                                  \
        }                                                                      \
        free(nx);                                                              \
        free(fx);                                                              \
        return failed ? -1 : 0;                                                \
    }                                                                          \
    int NAME(gd_distance m, const T *X, int64_t n, int64_t d, T *D)           \
    {                                                                          \
        return NAME##_columns(m, X, n, X, n, d, 1, D);                         \
    }                                                                          \
    int NAME2(gd_distance m, const T *X, const T *Y, int64_t mx, int64_t my, int64_t d, T *D) \
    {                                                                          \
        return NAME##_columns(m, X, mx, Y, my, d, 0, D);                       \
    }
DEFINE_CPU_METRIC_PDIST(gd_cpu_pdist_metric_f, gd_cpu_pdist2_metric_f, float, rowinfo_f,
                        metric_column_f)
DEFINE_CPU_METRIC_PDIST(gd_cpu_pdist_metric_d, gd_cpu_pdist2_metric_d, double, rowinfo_d,
                        metric_column_d)
