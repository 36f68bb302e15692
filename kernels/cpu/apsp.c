/* cpu/apsp.c - shortest paths: blocked Floyd-Warshall, P's trees whose routes sum to D, the integer classes.
 * Part of cpu.c, which includes it after its thread team and helpers. */
/* Floyd-Warshall, blocked: rounds over diagonal blocks K of FW_B
 * vertices; each round closes the block K itself, then the blocks of its
 * row and column (each against the closed K), then every other block
 * (I, J) against the blocks (I, K) and (K, J), in parallel. A block's
 * update runs k in order and, down a column, i contiguously (vectorised):
 * D(i,j) = D(i,k) + D(k,j) and P(i,j) = P(k,j) where that is shorter, or
 * as short with fewer edges (H, the edge counts: in the blocked order a
 * tie alone could make predecessors go round a cycle of weight 0, as the
 * GPU's gd_tile::relax explains). The blocks stay in cache: the whole
 * matrix is read once a round instead of once a k. */
enum { FW_B = 64 };
/* Phase three without P, a register tile at a time: D(I,J) = min (D(I,J),
 * D(I,K) (x) D(K,J)), where neither D(I,K) nor D(K,J) changes, so a tile
 * of MR x NC outputs stays in registers for all of K (the block's loop
 * instead reads and writes its whole block once a k). MR rows down a
 * column are one or two vector registers; each k adds a broadcast D(k,j)
 * to them and keeps the smaller (s < d ? s : d, the vector min). The same
 * k order as the block's loop, so the same result. Compiled for AVX2 too
 * (chosen at run time where the CPU has it). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define GD_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GD_CPU_CLONES
#endif
#define DEFINE_CPU_FW_TILE(NAME, T, MR, NC, ADD)                               \
    GD_CPU_CLONES static void NAME##_tiles(T *D, int64_t n, int64_t i0,        \
                                           int64_t j0, int64_t k0)             \
    {                                                                          \
        const int64_t i1 = i0 + FW_B < n ? i0 + FW_B : n;                      \
        const int64_t j1 = j0 + FW_B < n ? j0 + FW_B : n;                      \
        const int64_t k1 = k0 + FW_B < n ? k0 + FW_B : n;                      \
        for (int64_t j = j0; j < j1; j += NC) {                                \
            for (int64_t i = i0; i < i1; i += MR) {                            \
                if (i + MR <= i1 && j + NC <= j1) {                            \
                    T acc[NC][MR];                                             \
                    for (int c = 0; c < NC; ++c)                               \
                        for (int r = 0; r < MR; ++r) acc[c][r] = D[i + r + n * (j + c)]; \
                    for (int64_t k = k0; k < k1; ++k) {                        \
                        const T *a = D + i + n * k;                            \
                        for (int c = 0; c < NC; ++c) {                         \
                            const T b = D[k + n * (j + c)];                    \
                            for (int r = 0; r < MR; ++r) {                     \
                                const T s = ADD(a[r], b);                      \
                                acc[c][r] = s < acc[c][r] ? s : acc[c][r];     \
                            }                                                  \
                        }                                                      \
                    }                                                          \
                    for (int c = 0; c < NC; ++c)                               \
                        for (int r = 0; r < MR; ++r) D[i + r + n * (j + c)] = acc[c][r]; \
                } else {                                                       \
                    const int64_t ie = i + MR < i1 ? i + MR : i1;              \
                    const int64_t je = j + NC < j1 ? j + NC : j1;              \
                    for (int64_t jj = j; jj < je; ++jj)                        \
                        for (int64_t ii = i; ii < ie; ++ii) {                  \
                            T d = D[ii + n * jj];                              \
                            for (int64_t k = k0; k < k1; ++k) {                \
                                const T s = ADD(D[ii + n * k], D[k + n * jj]); \
                                d = s < d ? s : d;                             \
                            }                                                  \
                            D[ii + n * jj] = d;                                \
                        }                                                      \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }
DEFINE_CPU_FW_TILE(gd_cpu_fw_f, float, 16, 4, GD_PLUS)
DEFINE_CPU_FW_TILE(gd_cpu_fw_d, double, 8, 8, GD_PLUS)

#define DEFINE_CPU_FW(NAME, T, ADD, FINITE)                                    \
    static void NAME##_block(T *D, int32_t *P, int32_t *H, int64_t n, int64_t i0, \
                             int64_t j0, int64_t k0)                           \
    {                                                                          \
        const int64_t i1 = i0 + FW_B < n ? i0 + FW_B : n;                      \
        const int64_t j1 = j0 + FW_B < n ? j0 + FW_B : n;                      \
        const int64_t k1 = k0 + FW_B < n ? k0 + FW_B : n;                      \
        for (int64_t k = k0; k < k1; ++k) {                                    \
            const T *dk = D + n * k;                                           \
            for (int64_t j = j0; j < j1; ++j) {                                \
                const T dkj = D[k + n * j];                                    \
                T *dj = D + n * j;                                             \
                if (P) {                                                       \
                    const int32_t pkj = P[k + n * j], hkj = H[k + n * j];      \
                    const int32_t *hk = H + n * k;                             \
                    int32_t *pj = P + n * j, *hj = H + n * j;                  \
                    for (int64_t i = i0; i < i1; ++i) {                        \
                        const T s = ADD(dk[i], dkj);                           \
                        const int32_t h = hk[i] + hkj;                         \
                        const int better = s < dj[i] ||                        \
                            (s == dj[i] && FINITE(s) && h < hj[i]);            \
                        dj[i] = better ? s : dj[i];                            \
                        pj[i] = better ? pkj : pj[i];                          \
                        hj[i] = better ? h : hj[i];                            \
                    }                                                          \
                } else {                                                       \
                    for (int64_t i = i0; i < i1; ++i) {                        \
                        const T s = ADD(dk[i], dkj);                           \
                        dj[i] = s < dj[i] ? s : dj[i];                         \
                    }                                                          \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    int NAME(T *D, int32_t *P, int64_t n)                                      \
    {                                                                          \
        const int64_t nb = (n + FW_B - 1) / FW_B;                              \
        int32_t *H = NULL;                                                     \
        if (P) {                                                               \
            if (!(H = (int32_t *)malloc((size_t)(n * n) * sizeof *H + 1))) return -1; \
            for (int64_t e = 0; e < n * n; ++e) H[e] = P[e] ? 1 : 0;           \
        }                                                                      \
        for (int64_t kb = 0; kb < nb; ++kb) {                                  \
            if (gd_interrupted()) break; /* Ctrl-C: the rest undone */        \
            gd_progress("round", (double)kb, (double)nb);                      \
            const int64_t k0 = kb * FW_B;                                      \
            NAME##_block(D, P, H, n, k0, k0, k0);                              \
            _Pragma("omp parallel for schedule(dynamic) num_threads(gd_cpu_threads())") \
            for (int64_t b = 0; b < 2 * nb; ++b) {                             \
                if (gd_interrupted()) continue; /* Ctrl-C */                  \
                if (b % nb == kb) continue;                                    \
                if (b < nb)                                                    \
                    NAME##_block(D, P, H, n, k0, b * FW_B, k0);                \
                else                                                           \
                    NAME##_block(D, P, H, n, (b - nb) * FW_B, k0, k0);         \
            }                                                                  \
            _Pragma("omp parallel for schedule(dynamic) num_threads(gd_cpu_threads())") \
            for (int64_t b = 0; b < nb * nb; ++b) {                            \
                if (gd_interrupted()) continue; /* Ctrl-C */                  \
                const int64_t ib = b % nb, jb = b / nb;                        \
                if (ib == kb || jb == kb) continue;                            \
                if (P)                                                         \
                    NAME##_block(D, P, H, n, ib * FW_B, jb * FW_B, k0);        \
                else                                                           \
                    NAME##_tiles(D, n, ib * FW_B, jb * FW_B, k0);              \
            }                                                                  \
        }                                                                      \
        free(H);                                                               \
        return 0;                                                              \
    }

#define GD_BELOW_INF(s) ((s) < INFINITY)
DEFINE_CPU_FW(gd_cpu_fw_f, float, GD_PLUS, GD_BELOW_INF)
DEFINE_CPU_FW(gd_cpu_fw_d, double, GD_PLUS, GD_BELOW_INF)

/* P's rows as shortest-path trees whose routes sum to D (apsp.cu's
 * tree_check and tree_repair, which explain why and how, on the host):
 * row i is walked from every j (each vertex once, marked on the way), the
 * strays of route.h summed from i outwards; a walk that comes back to a
 * vertex of its own, stops at a vertex other than i, or reaches a vertex
 * whose route strays past D's rounding, marks the row, which is then
 * chosen again by levels. The rows of sources i0 .. i0 + rows - 1: D's
 * (ld ldd) and P's (ld ldp, 1-based) rows 0 .. rows - 1; W (ld ldw) n x n. E, A: the routes' strays and |w| summed, per vertex. */
#define DEFINE_CPU_TREES(NAME, T, STRAY, EPS)                                  \
    static void NAME##_row(const T *D, int64_t ldd, const T *W, int64_t ldw,   \
                           int32_t *P, int64_t ldp, int64_t n, int64_t i, int64_t r, \
                           T *M, double *E, double *A, int32_t *lev, int32_t *front, \
                           int32_t *next)                                      \
    {                                                                          \
        const T *d = D + r;                                                    \
        for (int64_t j = 0; j < n; ++j) {                                      \
            T m = (T)INFINITY;                                                 \
            for (int64_t q = 0; q < n; ++q) {                                  \
                const T s = q == j ? (T)INFINITY : d[ldd * q] + W[q + ldw * j]; \
                m = s < m ? s : m;                                             \
            }                                                                  \
            M[j] = m;                                                          \
            lev[j] = j == i ? 0 : -1;                                          \
            E[j] = A[j] = 0;                                                   \
        }                                                                      \
        int64_t nf = 1;                                                        \
        front[0] = (int32_t)i;                                                 \
        for (int32_t L = 0; nf > 0; ++L) {                                     \
            int64_t nn = 0;                                                    \
            /* j attaches to the first q of the level whose sum is M(j) */    \
            /* and through which its route is within D's rounding */          \
            for (int64_t j = 0; j < n; ++j) {                                  \
                if (lev[j] >= 0 || !(M[j] < (T)INFINITY) || !(d[ldd * j] < (T)INFINITY)) \
                    continue;                                                  \
                for (int64_t f = 0; f < nf; ++f) {                             \
                    const int64_t q = front[f];                                \
                    const T w = W[q + ldw * j];                                \
                    if (q == j || (T)(d[ldd * q] + w) != M[j]) continue;       \
                    const double e = E[q] + STRAY(d[ldd * q], w, d[ldd * j]),  \
                                 a = A[q] + fabs((double)w);                   \
                    if (gd_route_within(e, a, n, EPS)) {                       \
                        P[r + ldp * j] = (int32_t)q + 1;                       \
                        lev[j] = L + 1;                                        \
                        E[j] = e;                                              \
                        A[j] = a;                                              \
                        next[nn++] = (int32_t)j;                               \
                        break;                                                 \
                    }                                                          \
                }                                                              \
            }                                                                  \
            if (nn == 0) {                                                     \
                /* none: the one vertex whose route from an attached q */     \
                /* strays least past its bound (or is most within it) */      \
                int64_t bj = -1, bq = -1;                                      \
                double bx = INFINITY, be = 0, ba = 0;                          \
                for (int64_t j = 0; j < n; ++j) {                              \
                    if (lev[j] >= 0 || !(d[ldd * j] < (T)INFINITY)) continue;  \
                    for (int64_t q = 0; q < n; ++q) {                          \
                        const T w = W[q + ldw * j];                            \
                        if (lev[q] < 0 || q == j || !(w < (T)INFINITY)) continue; \
                        const double e = E[q] + STRAY(d[ldd * q], w, d[ldd * j]), \
                                     a = A[q] + fabs((double)w),               \
                                     x = fabs(e) - 4.0 * (double)n * (EPS) * a; \
                        if (x < bx) {                                          \
                            bx = x;                                            \
                            bj = j;                                            \
                            bq = q;                                            \
                            be = e;                                            \
                            ba = a;                                            \
                        }                                                      \
                    }                                                          \
                }                                                              \
                if (bj >= 0) {                                                 \
                    P[r + ldp * bj] = (int32_t)bq + 1;                         \
                    lev[bj] = L + 1;                                           \
                    E[bj] = be;                                                \
                    A[bj] = ba;                                                \
                    next[nn++] = (int32_t)bj;                                  \
                }                                                              \
            }                                                                  \
            for (int64_t f = 0; f < nn; ++f) front[f] = next[f];               \
            nf = nn;                                                           \
        }                                                                      \
    }                                                                          \
    int NAME(const T *D, int64_t ldd, const T *W, int64_t ldw, int32_t *P,     \
             int64_t ldp, int64_t n, int64_t i0, int64_t rows, int64_t *repaired) \
    {                                                                          \
        int64_t count = 0;                                                     \
        int failed = 0;                                                        \
        _Pragma("omp parallel num_threads(gd_cpu_threads()) reduction(+ : count) reduction(| : failed)") \
        {                                                                      \
            char *work = (char *)malloc((size_t)n * (2 * sizeof(double) + sizeof(T) + 4 * sizeof(int32_t)) + 1); \
            if (!work) failed = 1;                                             \
            double *E = (double *)work, *A = E + n;                            \
            T *M = (T *)(A + n);                                               \
            int32_t *mark = (int32_t *)(M + n), *lev = mark + n, *front = lev + n, \
                    *next = front + n;                                         \
            _Pragma("omp for schedule(dynamic, 16)")                           \
            for (int64_t r = 0; r < rows; ++r) {                               \
                const int64_t i = i0 + r;                                      \
                if (gd_interrupted()) continue; /* Ctrl-C */                  \
                if (!work) continue;                                           \
                /* mark: 0 not seen, -1 - w on walk w, 1 leads to i within */ \
                /* D's rounding (E, A its route's sums) */                     \
                for (int64_t j = 0; j < n; ++j) mark[j] = j == i ? 1 : 0;      \
                E[i] = A[i] = 0;                                               \
                int bad = 0;                                                   \
                for (int64_t j = 0; j < n && !bad; ++j) {                      \
                    if (mark[j] || P[r + ldp * j] == 0) continue;              \
                    int64_t v = j;                                             \
                    while (!mark[v]) {                                         \
                        const int32_t p = P[r + ldp * v];                      \
                        mark[v] = (int32_t)(-1 - j);                           \
                        if (p < 1 || p > n) {                                  \
                            bad = 1;                                           \
                            break;                                             \
                        }                                                      \
                        v = p - 1;                                             \
                    }                                                          \
                    if (bad || mark[v] != 1) {                                 \
                        bad = 1;                                               \
                        break;                                                 \
                    }                                                          \
                    /* the walk's vertices, then their sums from i out */     \
                    int64_t len = 0;                                           \
                    for (v = j; mark[v] != 1; v = P[r + ldp * v] - 1) front[len++] = (int32_t)v; \
                    for (int64_t k = len - 1; k >= 0 && !bad; --k) {           \
                        const int64_t u = front[k], q = P[r + ldp * u] - 1;    \
                        const T w = W[q + ldw * u];                            \
                        E[u] = E[q] + STRAY(D[r + ldd * q], w, D[r + ldd * u]); \
                        A[u] = A[q] + fabs((double)w);                         \
                        bad = !gd_route_within(E[u], A[u], n, EPS);            \
                        mark[u] = 1;                                           \
                    }                                                          \
                }                                                              \
                if (bad) {                                                     \
                    NAME##_row(D, ldd, W, ldw, P, ldp, n, i, r, M, E, A, lev, front, next); \
                    ++count;                                                   \
                }                                                              \
            }                                                                  \
            free(work);                                                        \
        }                                                                      \
        *repaired = count;                                                     \
        return failed ? -1 : 0;                                                \
    }
DEFINE_CPU_TREES(gd_cpu_apsp_trees_f, float, gd_stray_f, (double)FLT_EPSILON)
DEFINE_CPU_TREES(gd_cpu_apsp_trees_d, double, gd_stray_d, DBL_EPSILON)

/* Shortest paths on the integer classes: the class's largest value is "no
 * edge" (Inf has no integer value), a sum with it stays it, and every
 * other sum saturates as Octave's does (a path whose length reaches the
 * largest value reads as none). The same blocked Floyd-Warshall, with the
 * predecessors always tracked with the edge counts. */
#define GD_DEFINE_FW_INT(T, SAT, HI)                                           \
    static inline T fw_add_##T(T a, T b) { return a == (HI) || b == (HI) ? (HI) : SAT(a, b); } \
    static inline int fw_finite_##T(T s) { return s != (HI); }                 \
    DEFINE_CPU_FW_TILE(cpu_fw_##T, T, 16, 4, fw_add_##T)                       \
    DEFINE_CPU_FW(cpu_fw_##T, T, fw_add_##T, fw_finite_##T)                    \
    static int cpu_apsp_##T(const T *W, int64_t ldw, T *D, int32_t *P, int64_t n, \
                            int64_t *cycle)                                    \
    {                                                                          \
        /* (x < 1 && x != 0: x < 0 without a comparison that is always false \
         * for the unsigned classes) */                                        \
        for (int64_t i = 0; i < n; ++i) {                                      \
            const T w = W[i + ldw * i];                                        \
            if (w < (T)1 && w != 0) {                                          \
                *cycle = i + 1;                                                \
                return 2;                                                      \
            }                                                                  \
        }                                                                      \
        for (int64_t j = 0; j < n; ++j)                                        \
            for (int64_t i = 0; i < n; ++i) {                                  \
                const T w = W[i + ldw * j];                                    \
                D[i + n * j] = i == j ? (T)0 : w;                              \
                if (P) P[i + n * j] = i != j && w != (HI) ? (int32_t)(i + 1) : 0; \
            }                                                                  \
        if (cpu_fw_##T(D, P, n)) return -1;                                    \
        for (int64_t i = 0; i < n; ++i) {                                      \
            const T d = D[i + n * i];                                          \
            if (d < (T)1 && d != 0) {                                          \
                *cycle = i + 1;                                                \
                return 1;                                                      \
            }                                                                  \
        }                                                                      \
        return 0;                                                              \
    }
GD_DEFINE_FW_INT(int8_t, sat_i8, INT8_MAX)
GD_DEFINE_FW_INT(uint8_t, sat_u8, UINT8_MAX)
GD_DEFINE_FW_INT(int16_t, sat_i16, INT16_MAX)
GD_DEFINE_FW_INT(uint16_t, sat_u16, UINT16_MAX)
GD_DEFINE_FW_INT(int32_t, sat_i32, INT32_MAX)
GD_DEFINE_FW_INT(uint32_t, sat_u32, UINT32_MAX)
GD_DEFINE_FW_INT(int64_t, sat_i64, INT64_MAX)
GD_DEFINE_FW_INT(uint64_t, sat_u64, UINT64_MAX)

int gd_cpu_apsp_int(gd_class cls, const void *W, int64_t ldw, void *D, int32_t *P, int64_t n,
                    int64_t *cycle)
{
    switch (cls) {
    case GD_INT8: return cpu_apsp_int8_t(W, ldw, D, P, n, cycle);
    case GD_UINT8: return cpu_apsp_uint8_t(W, ldw, D, P, n, cycle);
    case GD_INT16: return cpu_apsp_int16_t(W, ldw, D, P, n, cycle);
    case GD_UINT16: return cpu_apsp_uint16_t(W, ldw, D, P, n, cycle);
    case GD_INT32: return cpu_apsp_int32_t(W, ldw, D, P, n, cycle);
    case GD_UINT32: return cpu_apsp_uint32_t(W, ldw, D, P, n, cycle);
    case GD_INT64: return cpu_apsp_int64_t(W, ldw, D, P, n, cycle);
    case GD_UINT64: return cpu_apsp_uint64_t(W, ldw, D, P, n, cycle);
    default: return -2;
    }
}
