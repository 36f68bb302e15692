/* cpu/knn.c - nearest neighbours: each query's column of distances through a heap of its K best.
 * Part of cpu.c, which includes it after its thread team and helpers. */
/* Nearest neighbours: each query's distance column as pdist2 computes it
 * (the same loop, so the same values), then its K least (key, row) pairs
 * (knnkey.h) kept in a max-heap, then sorted. */
typedef struct {
    uint64_t key;
    int32_t row;
} knn_pair;
static int knn_less(knn_pair a, knn_pair b)
{
    return a.key < b.key || (a.key == b.key && a.row < b.row);
}
/* restores the max-heap h[0..n) below position i */
static void knn_sift(knn_pair *h, int64_t n, int64_t i)
{
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && knn_less(h[c], h[c + 1])) ++c;
        if (!knn_less(h[i], h[c])) return;
        const knn_pair t = h[i];
        h[i] = h[c];
        h[c] = t;
        i = c;
    }
}
#define DEFINE_CPU_KNN(NAME, T, COLUMN, METRIC_COLUMN, INFO, SQRT, RESCUE, NORM, KEY, UNKEY) \
    int NAME(const T *X, const T *Y, int64_t mx, int64_t my, int64_t d, gd_distance m, \
             int64_t K, int largest, T *D, int32_t *I)                         \
    {                                                                          \
        const int root = m.metric == GD_EUCLIDEAN;                             \
        const int other = !gd_metric_on_gpu(m.metric);                         \
        T *nx = other ? (T *)malloc((size_t)(mx + my) * sizeof(T) + 1) : NULL; \
        unsigned char *fx = other ? (unsigned char *)malloc((size_t)(mx + my) + 1) : NULL; \
        int failed = other && (!nx || !fx);                                    \
        if (!failed && other) {                                                \
            INFO(X, mx, d, nx, fx);                                            \
            INFO(Y, my, d, nx + mx, fx + mx);                                  \
        }                                                                      \
        int64_t queries = 0; /* begun, for the progress */                    \
        if (!failed) {                                                         \
        _Pragma("omp parallel num_threads(gd_cpu_threads())")                  \
        {                                                                      \
            T *col = (T *)malloc((size_t)mx * sizeof(T) + 1);                  \
            T *aux = (T *)malloc((size_t)mx * sizeof(T) + 1);                  \
            knn_pair *h = (knn_pair *)malloc((size_t)K * sizeof(knn_pair) + 1); \
            if (!col || !aux || !h) {                                          \
                _Pragma("omp atomic write") failed = 1;                        \
            } else {                                                           \
                _Pragma("omp for schedule(dynamic, 4)")                        \
                for (int64_t j = 0; j < my; ++j) {                             \
                    if (gd_interrupted()) continue; /* Ctrl-C */              \
                    int64_t q_;                                                \
                    _Pragma("omp atomic capture") q_ = queries++;              \
                    gd_progress("query", (double)q_, (double)my);              \
                    if (other)                                                 \
                        METRIC_COLUMN(m, X, mx, 0, Y, my, j, d, nx, fx, nx + mx, fx + mx, \
                                      col, aux);                               \
                    else                                                       \
                        COLUMN(X, Y, mx, my, d, j, col);                       \
                    int64_t n = 0;                                             \
                    for (int64_t i = 0; i < mx; ++i) {                         \
                        T v = col[i];                                          \
                        if (root)                                              \
                            v = RESCUE(v) ? NORM(X + i, mx, Y + j, my, d) : SQRT(v); \
                        const knn_pair p = {KEY(v, largest), (int32_t)i};      \
                        if (n < K) {                                           \
                            int64_t c = n++;                                   \
                            h[c] = p;                                          \
                            while (c > 0 && knn_less(h[(c - 1) / 2], h[c])) {  \
                                const knn_pair t = h[c];                       \
                                h[c] = h[(c - 1) / 2];                         \
                                h[(c - 1) / 2] = t;                            \
                                c = (c - 1) / 2;                               \
                            }                                                  \
                        } else if (knn_less(p, h[0])) {                        \
                            h[0] = p;                                          \
                            knn_sift(h, n, 0);                                 \
                        }                                                      \
                    }                                                          \
                    /* the heap's largest last, down to its least */          \
                    for (int64_t m = n; m > 0; --m) {                          \
                        D[K * j + m - 1] = UNKEY(h[0].key, largest);           \
                        I[K * j + m - 1] = h[0].row + 1;                       \
                        h[0] = h[m - 1];                                       \
                        knn_sift(h, m - 1, 0);                                 \
                    }                                                          \
                }                                                              \
            }                                                                  \
            free(col);                                                         \
            free(aux);                                                         \
            free(h);                                                           \
        }                                                                      \
        }                                                                      \
        free(nx);                                                              \
        free(fx);                                                              \
        return failed ? -1 : 0;                                                \
    }

static uint64_t knn_key_f(float v, int largest) { return gd_key_f(v, largest); }
static float knn_unkey_f(uint64_t k, int largest) { return gd_unkey_f((uint32_t)k, largest); }
DEFINE_CPU_KNN(gd_cpu_knn_f, float, sq_column_f, metric_column_f, rowinfo_f, sqrtf, gd_rescue_f, gd_scaled_norm_f, knn_key_f, knn_unkey_f)
DEFINE_CPU_KNN(gd_cpu_knn_d, double, sq_column_d, metric_column_d, rowinfo_d, sqrt, gd_rescue_d, gd_scaled_norm_d, gd_key_d, gd_unkey_d)
