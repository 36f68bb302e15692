/* cpu/sssp.c - shortest paths from sources on a sparse graph: Dijkstra, or label-correcting rounds where an edge is negative; each source's tree by levels.
 * Part of cpu.c, which includes it after its thread team and helpers.
 *
 * The graph: n vertices, W's entries in compressed columns (Octave's
 * sparse layout; column j holds the edges into j), turned once into
 * compressed rows (the edges out of each vertex). Each source on a thread
 * of its own:
 *  - lengths: with every weight >= 0, Dijkstra with an indexed binary heap;
 *    else a FIFO of vertices whose length fell (Bellman-Ford's rounds as a
 *    queue), a length from a walk of n edges lying on or behind a negative
 *    cycle. Either way D(j) is the least, over walks from the source, of
 *    the walk's weights summed in order in the class (the fixed point of
 *    D(j) = min_q D(q) + W(q,j)), so every algorithm that reaches the
 *    fixed point gives these lengths bit for bit;
 *  - the tree: an edge q -> j is tight where D(q) + W(q,j) == D(j) in the
 *    class (q != j). Levels from the source over tight edges (breadth
 *    first), and P(j) the smallest q of a tight edge into j whose level is
 *    one less than j's: always a tree (levels fall along it), a route's
 *    weights adding up to D(j) exactly in the class, the same for any
 *    variant given the same D. */

typedef struct {
    int64_t n;
    const int64_t *cp, *ri; /* the edges into each vertex (W's columns) */
    const int64_t *op, *oc; /* the edges out of each vertex */
    const int64_t *oe;      /* each out-edge's place in W's entries */
} sssp_graph;

/* the edges out of each vertex, from W's columns: op (n + 1), oc and oe
 * (cp[n]); -1 where host memory is lacking */
static int sssp_rows(int64_t n, const int64_t *cp, const int64_t *ri, int64_t **op,
                     int64_t **oc, int64_t **oe)
{
    const int64_t m = cp[n];
    *op = (int64_t *)calloc((size_t)n + 1, 8);
    *oc = (int64_t *)malloc((size_t)m * 8 + 8);
    *oe = (int64_t *)malloc((size_t)m * 8 + 8);
    int64_t *at = (int64_t *)malloc((size_t)n * 8 + 8);
    if (!*op || !*oc || !*oe || !at) {
        free(at);
        return -1;
    }
    for (int64_t e = 0; e < m; ++e) ++(*op)[ri[e] + 1];
    for (int64_t i = 0; i < n; ++i) (*op)[i + 1] += (*op)[i];
    memcpy(at, *op, (size_t)n * 8);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t e = cp[j]; e < cp[j + 1]; ++e) {
            const int64_t p = at[ri[e]]++;
            (*oc)[p] = j;
            (*oe)[p] = e;
        }
    free(at);
    return 0;
}

/* A thread's workspace for one source at a time */
typedef struct {
    int64_t *heap, *pos; /* Dijkstra's heap and each vertex's place (-1: out) */
    int64_t *queue;      /* the label-correcting FIFO, then the levels' BFS */
    int32_t *last, *lvl; /* who last lowered each length; the levels */
    int32_t *falls;      /* the edges of the walk that gave each length */
    unsigned char *inq;
} sssp_work;

static void sssp_work_free(sssp_work *w)
{
    free(w->heap);
    free(w->pos);
    free(w->queue);
    free(w->last);
    free(w->lvl);
    free(w->falls);
    free(w->inq);
}

static int sssp_work_alloc(sssp_work *w, int64_t n)
{
    memset(w, 0, sizeof *w);
    w->heap = (int64_t *)malloc((size_t)n * 8 + 8);
    w->pos = (int64_t *)malloc((size_t)n * 8 + 8);
    w->queue = (int64_t *)malloc((size_t)n * 8 + 8);
    w->last = (int32_t *)malloc((size_t)n * 4 + 4);
    w->lvl = (int32_t *)malloc((size_t)n * 4 + 4);
    w->falls = (int32_t *)malloc((size_t)n * 4 + 4);
    w->inq = (unsigned char *)malloc((size_t)n + 1);
    if (!w->heap || !w->pos || !w->queue || !w->last || !w->lvl || !w->falls || !w->inq) {
        sssp_work_free(w);
        return -1;
    }
    return 0;
}

#define DEFINE_CPU_SSSP(NAME, T)                                                       \
    /* the heap ordered by (d, vertex): sift h[i] up or down */                       \
    static void NAME##_up(const T *d, sssp_work *w, int64_t i)                        \
    {                                                                                  \
        const int64_t v = w->heap[i];                                                  \
        while (i > 0) {                                                                \
            const int64_t p = (i - 1) / 2, u = w->heap[p];                             \
            if (!(d[v] < d[u] || (d[v] == d[u] && v < u))) break;                      \
            w->heap[i] = u;                                                            \
            w->pos[u] = i;                                                             \
            i = p;                                                                     \
        }                                                                              \
        w->heap[i] = v;                                                                \
        w->pos[v] = i;                                                                 \
    }                                                                                  \
    static void NAME##_down(const T *d, sssp_work *w, int64_t size, int64_t i)        \
    {                                                                                  \
        const int64_t v = w->heap[i];                                                  \
        for (;;) {                                                                     \
            int64_t c = 2 * i + 1;                                                     \
            if (c >= size) break;                                                      \
            const int64_t a = w->heap[c];                                              \
            if (c + 1 < size) {                                                        \
                const int64_t b = w->heap[c + 1];                                      \
                if (d[b] < d[a] || (d[b] == d[a] && b < a)) ++c;                       \
            }                                                                          \
            const int64_t u = w->heap[c];                                              \
            if (!(d[u] < d[v] || (d[u] == d[v] && u < v))) break;                      \
            w->heap[i] = u;                                                            \
            w->pos[u] = i;                                                             \
            i = c;                                                                     \
        }                                                                              \
        w->heap[i] = v;                                                                \
        w->pos[v] = i;                                                                 \
    }                                                                                  \
    /* the lengths from s into d: 0, or 1 for a negative cycle reachable from s     \
     * (*cycle: a vertex on it, 0-based) */                                         \
    static int NAME##_lengths(const sssp_graph *g, const T *val, int neg, int64_t s, \
                              T *d, sssp_work *w, int64_t *cycle)                      \
    {                                                                                  \
        const int64_t n = g->n;                                                        \
        for (int64_t v = 0; v < n; ++v) d[v] = (T)INFINITY;                            \
        d[s] = 0;                                                                      \
        if (!neg) {                                                                    \
            for (int64_t v = 0; v < n; ++v) w->pos[v] = -1;                            \
            int64_t size = 1;                                                          \
            w->heap[0] = s;                                                            \
            w->pos[s] = 0;                                                             \
            while (size > 0) {                                                         \
                const int64_t u = w->heap[0];                                          \
                w->pos[u] = -2; /* settled */                                          \
                if (--size > 0) {                                                      \
                    w->heap[0] = w->heap[size];                                        \
                    NAME##_down(d, w, size, 0);                                        \
                }                                                                      \
                for (int64_t e = g->op[u]; e < g->op[u + 1]; ++e) {                    \
                    const int64_t v = g->oc[e];                                        \
                    const T x = (T)(d[u] + val[g->oe[e]]);                             \
                    if (!(x < d[v]) || w->pos[v] == -2) continue;                      \
                    d[v] = x;                                                          \
                    if (w->pos[v] < 0) {                                               \
                        w->heap[size] = v;                                             \
                        NAME##_up(d, w, size++);                                       \
                    } else {                                                           \
                        NAME##_up(d, w, w->pos[v]);                                    \
                    }                                                                  \
                }                                                                      \
            }                                                                          \
            return 0;                                                                  \
        }                                                                              \
        memset(w->inq, 0, (size_t)n);                                                  \
        memset(w->falls, 0, (size_t)n * 4);                                            \
        int64_t head = 0, count = 1;                                                   \
        w->queue[0] = s;                                                               \
        w->inq[s] = 1;                                                                 \
        w->last[s] = -1;                                                               \
        while (count > 0) {                                                            \
            const int64_t u = w->queue[head];                                          \
            head = head + 1 == n ? 0 : head + 1;                                       \
            --count;                                                                   \
            w->inq[u] = 0;                                                             \
            for (int64_t e = g->op[u]; e < g->op[u + 1]; ++e) {                        \
                const int64_t v = g->oc[e];                                            \
                const T x = (T)(d[u] + val[g->oe[e]]);                                 \
                if (!(x < d[v])) continue;                                             \
                d[v] = x;                                                              \
                w->last[v] = (int32_t)u;                                               \
                w->falls[v] = w->falls[u] + 1; /* the edges of the walk to v */       \
                if (w->falls[v] >= n || v == s) {                                      \
                    /* behind or on a negative cycle: n steps back lie on it */        \
                    int64_t c = v;                                                     \
                    for (int64_t k = 0; k < n && w->last[c] >= 0; ++k) c = w->last[c]; \
                    *cycle = c;                                                        \
                    return 1;                                                          \
                }                                                                      \
                if (!w->inq[v]) {                                                      \
                    w->inq[v] = 1;                                                     \
                    int64_t t = head + count;                                          \
                    w->queue[t >= n ? t - n : t] = v;                                  \
                    ++count;                                                           \
                }                                                                      \
            }                                                                          \
        }                                                                              \
        return 0;                                                                      \
    }                                                                                  \
    /* the tree of s from d: p[j] the predecessor (0-based), -1 for s and where     \
     * j cannot be reached */                                                        \
    static void NAME##_tree(const sssp_graph *g, const T *val, int64_t s, const T *d, \
                            sssp_work *w, int32_t *p)                                  \
    {                                                                                  \
        const int64_t n = g->n;                                                        \
        for (int64_t v = 0; v < n; ++v) w->lvl[v] = -1;                                \
        w->lvl[s] = 0;                                                                 \
        int64_t head = 0, tail = 0;                                                    \
        w->queue[tail++] = s;                                                          \
        while (head < tail) {                                                          \
            const int64_t u = w->queue[head++];                                        \
            for (int64_t e = g->op[u]; e < g->op[u + 1]; ++e) {                        \
                const int64_t v = g->oc[e];                                            \
                if (w->lvl[v] >= 0 || (T)(d[u] + val[g->oe[e]]) != d[v] ||              \
                    d[v] == (T)INFINITY)                                               \
                    continue;                                                          \
                w->lvl[v] = w->lvl[u] + 1;                                             \
                w->queue[tail++] = v;                                                  \
            }                                                                          \
        }                                                                              \
        for (int64_t j = 0; j < n; ++j) {                                              \
            p[j] = -1;                                                                 \
            if (j == s || w->lvl[j] <= 0) continue;                                    \
            for (int64_t e = g->cp[j]; e < g->cp[j + 1]; ++e) {                        \
                const int64_t q = g->ri[e];                                            \
                if (w->lvl[q] != w->lvl[j] - 1 || (T)(d[q] + val[e]) != d[j]) continue; \
                if (p[j] < 0 || q < p[j]) p[j] = (int32_t)q;                           \
            }                                                                          \
        }                                                                              \
    }                                                                                  \
    int NAME(int64_t n, const int64_t *cp, const int64_t *ri, const T *val,            \
             const int64_t *src, int64_t ns, T *D, int32_t *P, int64_t *cycle)         \
    {                                                                                  \
        int neg = 0;                                                                   \
        for (int64_t e = 0; e < cp[n]; ++e) neg |= val[e] < 0;                         \
        int64_t *op = NULL, *oc = NULL, *oe = NULL;                                    \
        if (sssp_rows(n, cp, ri, &op, &oc, &oe)) {                                     \
            free(op);                                                                  \
            free(oc);                                                                  \
            free(oe);                                                                  \
            return -1;                                                                 \
        }                                                                              \
        const sssp_graph g = {n, cp, ri, op, oc, oe};                                  \
        int failed = 0, stopped = 0;                                                   \
        int64_t first_cycle = -1, cycle_at = ns;                                       \
        _Pragma("omp parallel num_threads(gd_cpu_threads())")                          \
        {                                                                              \
            sssp_work w;                                                               \
            T *d = (T *)malloc((size_t)n * sizeof(T) + 8);                             \
            int32_t *p = (int32_t *)malloc((size_t)n * 4 + 4);                         \
            const int have = sssp_work_alloc(&w, n) == 0;                              \
            const int mine = have && d && p;                                           \
            if (!mine) {                                                               \
                _Pragma("omp atomic write") failed = 1;                                \
            }                                                                          \
            _Pragma("omp for schedule(dynamic, 1)")                                    \
            for (int64_t k = 0; k < ns; ++k) {                                         \
                int quit, stop;                                                        \
                _Pragma("omp atomic read") quit = failed;                              \
                _Pragma("omp atomic read") stop = stopped;                             \
                if (quit || stop || !mine) continue;                                   \
                if (omp_get_thread_num() == 0) {                                       \
                    if (gd_interrupted()) {                                            \
                        _Pragma("omp atomic write") stopped = 1;                       \
                    }                                                                  \
                    gd_progress("source", (double)k, (double)ns);                      \
                }                                                                      \
                int64_t c = -1;                                                        \
                if (NAME##_lengths(&g, val, neg, src[k], d, &w, &c)) {                 \
                    _Pragma("omp critical(gd_sssp_cycle)")                             \
                    if (k < cycle_at) {                                                \
                        cycle_at = k;                                                  \
                        first_cycle = c;                                               \
                    }                                                                  \
                    continue;                                                          \
                }                                                                      \
                NAME##_tree(&g, val, src[k], d, &w, p);                                \
                for (int64_t j = 0; j < n; ++j) {                                      \
                    D[k + ns * j] = d[j];                                              \
                    if (P) P[k + ns * j] = j == src[k] ? 0 : p[j] < 0 ? -1 : p[j] + 1; \
                }                                                                      \
            }                                                                          \
            if (have) sssp_work_free(&w);                                              \
            free(d);                                                                   \
            free(p);                                                                   \
        }                                                                              \
        free(op);                                                                      \
        free(oc);                                                                      \
        free(oe);                                                                      \
        if (failed) return -1;                                                         \
        if (stopped) return -2;                                                        \
        if (first_cycle >= 0) {                                                        \
            *cycle = first_cycle + 1;                                                  \
            return 1;                                                                  \
        }                                                                              \
        return 0;                                                                      \
    }

DEFINE_CPU_SSSP(gd_cpu_sssp_f, float)
DEFINE_CPU_SSSP(gd_cpu_sssp_d, double)
