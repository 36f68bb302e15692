/* cpu.c - CPU implementations of gd's operations (OpenMP).
 *
 * The 'cpu' variant of each operation, and what runs when no GPU is
 * present. Same semantics as the GPU kernels: the Octave expression is the
 * definition.
 *
 * min-plus: R(:,j) = min_k A(:,k) + B(k,j). The innermost loop runs down a
 * column of A and of R (contiguous in Octave's layout), so it vectorises;
 * blocks of i and k keep the A panel and the R strip in cache; threads take
 * column blocks of R. Every (i,j) sees k in increasing order with Octave's
 * own rule (a term replaces the running minimum when it is smaller or the
 * minimum is still NaN), so the result is Octave's to the bit, sign of zero
 * included.
 */
#include "gd.h"
#include "tiles/knnkey.h"
#include "tiles/norm2.h"
#include "tiles/route.h"

#include <pthread.h>
#include <stdio.h>

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* OMP_STACKSIZE in bytes as libgomp reads it (a number, then B, K, M or
 * G; K when there is none); -1 when unset or unreadable. */
static double omp_stacksize(void)
{
    const char *e = gd_setting_text(GD_SET_OMP_STACKSIZE);
    if (!e) return -1;
    char *end;
    double v = strtod(e, &end);
    if (end == e || v < 0) return -1;
    while (isspace((unsigned char)*end)) ++end;
    switch (toupper((unsigned char)*end)) {
    case 'B': return v;
    case 'M': return v * 1048576.0;
    case 'G': return v * 1073741824.0;
    default: return v * 1024.0;
    }
}

/* A thread stack below this (OMP_STACKSIZE=64K, say) kills the process
 * when libgomp starts a team: it cannot create the thread (the minimum
 * grows with the CPU's signal frame) and exits. gd then runs its loops on
 * the calling thread alone. */
enum { GD_MIN_STACK = 256 * 1024 };
static int g_threads; /* 0: not decided yet */
static char g_thread_note[200];

/* The address space a thread of a team takes: its stack (OMP_STACKSIZE,
 * else the process's stack limit, libgomp's default) and the 64 MiB heap
 * arena glibc reserves for a thread's first malloc. */
static double thread_space(double stack)
{
    struct rlimit r;
    if (stack < 0) stack = getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY
                               ? (double)r.rlim_cur
                               : 8.0 * 1048576.0;
    return stack + 64.0 * 1048576.0;
}

/* The address space left under RLIMIT_AS (ulimit -v), -1 where there is
 * no limit: the limit less what the process maps now (/proc/self/statm). */
static double space_left(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return -1;
    double used = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        unsigned long pages = 0;
        if (fscanf(f, "%lu", &pages) == 1) used = (double)pages * (double)sysconf(_SC_PAGESIZE);
        fclose(f);
    }
    return (double)r.rlim_cur - used;
}

/* How many of want threads with a stack of OMP_STACKSIZE (st bytes)
 * can exist at once, beside this one: each created (and left waiting)
 * until one fails, then all let go. libgomp creates its team's threads
 * with that stack and ends the process where one fails ("libgomp: Thread
 * creation failed"): OMP_STACKSIZE=100G passes every check above on a
 * machine without ulimit -v, and no mapping of 100 GiB is granted. */
static void *probe_wait(void *arg)
{
    pthread_mutex_t *m = (pthread_mutex_t *)arg;
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
    return NULL;
}

static int threads_creatable(int want, double st)
{
    if (want <= 1 || st <= 0) return want;
    pthread_attr_t a;
    if (pthread_attr_init(&a) != 0) return 1;
    if (st > 9e18 || pthread_attr_setstacksize(&a, (size_t)st) != 0) {
        pthread_attr_destroy(&a);
        return 1;
    }
    pthread_t *t = (pthread_t *)malloc(sizeof(pthread_t) * (size_t)want);
    if (!t) {
        pthread_attr_destroy(&a);
        return 1;
    }
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&m);
    int made = 0;
    while (made < want - 1 && pthread_create(&t[made], &a, probe_wait, &m) == 0) ++made;
    pthread_mutex_unlock(&m);
    for (int k = 0; k < made; ++k) pthread_join(t[k], NULL);
    free(t);
    pthread_attr_destroy(&a);
    return made + 1;
}

/* The team: OpenMP's count (OMP_NUM_THREADS), at most the processors, at
 * most what the address space leaves room for and what can be created
 * with OMP_STACKSIZE's stack (a thread libgomp cannot create ends the
 * process: "libgomp: Thread creation failed"), one where the stack asked
 * for is too small. A count cut says why (gd_cpu_note: the gateways warn
 * gd:threads). */
int gd_cpu_threads(void)
{
    if (!g_threads) {
        const double st = omp_stacksize();
        int want = 1, procs = 1;
#ifdef _OPENMP
        want = omp_get_max_threads();
        procs = omp_get_num_procs();
#endif
        g_threads = want < procs ? want : procs;
        if (g_threads < 1) g_threads = 1;
        const double left = space_left();
        if (st >= 0 && st < GD_MIN_STACK && g_threads > 1) {
            g_threads = 1;
            snprintf(g_thread_note, sizeof g_thread_note,
                     "OMP_STACKSIZE=%s is below %d KiB, too small for a thread: "
                     "gd's CPU work runs on one thread", gd_setting_text(GD_SET_OMP_STACKSIZE),
                     GD_MIN_STACK / 1024);
        } else if (left >= 0 && g_threads > 1) {
            /* half of what is left: the work's own buffers need the rest */
            const double room = 0.5 * left / thread_space(st);
            if (room < g_threads) {
                g_threads = room >= 2 ? (int)room : 1;
                if (g_threads == 1)
                    snprintf(g_thread_note, sizeof g_thread_note,
                             "the address-space limit (ulimit -v) leaves %.0f MiB, too little "
                             "for a team of threads: gd's CPU work runs on one thread",
                             left / 1048576.0);
            }
        }
        if (g_threads > 1 && st > 0) {
            const int made = threads_creatable(g_threads, st);
            if (made < g_threads) {
                if (made == 1)
                    snprintf(g_thread_note, sizeof g_thread_note,
                             "no thread with a stack of OMP_STACKSIZE=%s can be created: gd's "
                             "CPU work runs on one thread", gd_setting_text(GD_SET_OMP_STACKSIZE));
                else
                    snprintf(g_thread_note, sizeof g_thread_note,
                             "only %d threads with a stack of OMP_STACKSIZE=%s can be created: "
                             "gd's CPU work runs on %d of the %d asked for", made,
                             gd_setting_text(GD_SET_OMP_STACKSIZE), made, g_threads);
                g_threads = made;
            }
        }
    }
    return g_threads;
}

const char *gd_cpu_note(void)
{
    gd_cpu_threads();
    return g_thread_note;
}

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
 * chosen again by levels. D (ld ldd) and W (ld ldw) n x n, P (ld n)
 * 1-based. E, A: the routes' strays and |w| summed, per vertex. */
#define DEFINE_CPU_TREES(NAME, T, STRAY, EPS)                                  \
    static void NAME##_row(const T *D, int64_t ldd, const T *W, int64_t ldw,   \
                           int32_t *P, int64_t n, int64_t i, T *M, double *E, double *A, \
                           int32_t *lev, int32_t *front, int32_t *next)        \
    {                                                                          \
        const T *d = D + i;                                                    \
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
                        P[i + n * j] = (int32_t)q + 1;                         \
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
                    P[i + n * bj] = (int32_t)bq + 1;                           \
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
             int64_t n, int64_t *repaired)                                     \
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
            for (int64_t i = 0; i < n; ++i) {                                  \
                if (gd_interrupted()) continue; /* Ctrl-C */                  \
                if (!work) continue;                                           \
                /* mark: 0 not seen, -1 - w on walk w, 1 leads to i within */ \
                /* D's rounding (E, A its route's sums) */                     \
                for (int64_t j = 0; j < n; ++j) mark[j] = j == i ? 1 : 0;      \
                E[i] = A[i] = 0;                                               \
                int bad = 0;                                                   \
                for (int64_t j = 0; j < n && !bad; ++j) {                      \
                    if (mark[j] || P[i + n * j] == 0) continue;                \
                    int64_t v = j;                                             \
                    while (!mark[v]) {                                         \
                        const int32_t p = P[i + n * v];                        \
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
                    for (v = j; mark[v] != 1; v = P[i + n * v] - 1) front[len++] = (int32_t)v; \
                    for (int64_t k = len - 1; k >= 0 && !bad; --k) {           \
                        const int64_t u = front[k], q = P[i + n * u] - 1;      \
                        const T w = W[q + ldw * u];                            \
                        E[u] = E[q] + STRAY(D[i + ldd * q], w, D[i + ldd * u]); \
                        A[u] = A[q] + fabs((double)w);                         \
                        bad = !gd_route_within(E[u], A[u], n, EPS);            \
                        mark[u] = 1;                                           \
                    }                                                          \
                }                                                              \
                if (bad) {                                                     \
                    NAME##_row(D, ldd, W, ldw, P, n, i, M, E, A, lev, front, next); \
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

/* The reference BLAS interface (Fortran, 32-bit integers): the library
 * Octave itself is linked with, so 'cpu' is what single(A)*single(B)
 * computes in Octave. */
extern void sgemm_(const char *transa, const char *transb, const int *m,
                   const int *n, const int *k, const float *alpha,
                   const float *a, const int *lda, const float *b,
                   const int *ldb, const float *beta, float *c, const int *ldc);

gd_status gd_cpu_sgemm(const float *A, const float *B, float *C, int64_t m,
                       int64_t k, int64_t n)
{
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return GD_ERR_SIZE; /* the caller says why */
    if (k == 0) {
        for (int64_t e = 0; e < m * n; ++e) C[e] = 0.0f;
        return GD_OK;
    }
    /* in panels of C's columns (each column's sums are the whole
     * product's), Ctrl-C and the progress between them: a panel's width
     * doubles while one takes under a quarter of a second */
    const int M = (int)m, K = (int)k;
    const float one = 1.0f, zero = 0.0f;
    int64_t w = 1;
    for (int64_t j = 0; j < n;) {
        if (gd_interrupted()) return GD_ERR_INTERRUPT;
        const int N = (int)(n - j < w ? n - j : w);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        sgemm_("N", "N", &M, &N, &K, &one, A, &M, B + k * j, &K, &zero, C + m * j, &M);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        j += N;
        gd_progress("column", (double)j, (double)n);
        if ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec) < 0.25)
            w *= 2;
    }
    return GD_OK;
}
