/* cpu.c - CPU implementations of gd's operations (OpenMP).
 *
 * The 'cpu' variant of each operation, and what runs when no GPU is
 * present. Same semantics as the GPU kernels: the Octave expression is the
 * definition.
 *
 * min-plus: R(:,j) = min_k A(:,k) + B(k,j). The innermost loop runs down a
 * column of A and of R (contiguous in Octave's layout), so it vectorises;
 * ranges of i and k keep the A panel and the R strip in cache; threads take
 * column strips of R. Every (i,j) sees k in increasing order with Octave's
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
#include <string.h>
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
/* R (n x m) = A' (A m x n of leading dimension lda, es bytes an element:
 * 1, 2, 4 or 8), in tiles of 64 x 64 so that both sides stay in cache,
 * the tiles over gd's threads: gdArray's G' without a GPU (gd_transpose's
 * host path) and a kNN's results a query (my x K) from the kernel layer's
 * K x my. A row-by-row transpose reads one element a cache line. */
#define GD_TRANSPOSE_TILES(E)                                                                 \
    do {                                                                                      \
        const E *a = (const E *)A;                                                            \
        E *r = (E *)R;                                                                        \
        for (int64_t j = j0; j < j1; ++j)                                                     \
            for (int64_t i = i0; i < i1; ++i) r[j + n * i] = a[i + lda * j];                  \
    } while (0)
void gd_cpu_transpose(size_t es, const void *A, int64_t lda, int64_t m, int64_t n, void *R)
{
    enum { T = 64 };
    const int64_t tn = (n + T - 1) / T, tm = (m + T - 1) / T;
    const int nt = (double)m * (double)n >= 65536.0 ? gd_cpu_threads() : 1;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t b = 0; b < tn * tm; ++b) {
        const int64_t j0 = b / tm * T, i0 = b % tm * T;
        const int64_t j1 = j0 + T < n ? j0 + T : n, i1 = i0 + T < m ? i0 + T : m;
        switch (es) {
        case 8: GD_TRANSPOSE_TILES(uint64_t); break;
        case 4: GD_TRANSPOSE_TILES(uint32_t); break;
        case 2: GD_TRANSPOSE_TILES(uint16_t); break;
        default: GD_TRANSPOSE_TILES(uint8_t); break;
        }
    }
}
#undef GD_TRANSPOSE_TILES

#include "cpu/minplus.c"
#include "cpu/distances.c"
#include "cpu/knn.c"
#include "cpu/apsp.c"
#include "cpu/sgemm.c"
#include "cpu/sssp.c"
