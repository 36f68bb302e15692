/* gdbench.c - one operation, one variant, one size, from the shell: fresh
 * random inputs, the result checked against the cpu variant, then timed.
 * For tuning a kernel in a tight loop without Octave; `make bench` stays
 * the benchmark a user runs.
 *
 *   build/gdbench minplus v4 single 4096 [reps]       m = k = n = 4096
 *   build/gdbench sgemm tuned single 1000x3000x500    m x k x n
 *   build/gdbench pdist tuned single 16384x300        n x d
 *   build/gdbench pdist2 tuned single 8192x300x8192   mx x d x my
 *   build/gdbench minplus v5 single 4096 5 nonneg     inputs 0 ... 16
 *   build/gdbench pdist tuned single 16384x300 5 signed fresh
 *
 * Inputs are small integers, -8 ... 8 ("signed", the default) or 0 ... 16
 * ("nonneg": min-plus v5 in single then takes its integer-min kernel).
 * Prints the check and the median kernel time, rate and host-to-host time
 * over reps calls (default 5) after one warm-up call. The timed calls
 * write into one buffer ("reuse", the default) or each into a new one
 * ("fresh"), allocated by the call while its kernels run, as Octave's
 * result arrays are: its pages are then touched first by the copy. Exit status 0 only
 * when the check passed.
 */
#include "gd.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t rng_state;
static double uniform(void) /* xorshift64*: fresh seed per run */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

/* Small integers: every min-plus and sum-of-products result is exact, so
 * the GPU's result must equal the CPU's bit for bit (pdist's square root
 * aside, which is correctly rounded on both). */
static void fill(void *p, size_t count, gd_class cls, double lo)
{
    for (size_t i = 0; i < count; ++i) {
        double v = floor(uniform() * 17.0) + lo;
        if (cls == GD_SINGLE)
            ((float *)p)[i] = (float)v;
        else
            ((double *)p)[i] = v;
    }
}

typedef struct {
    const char *op, *variant;
    gd_class cls;
    int64_t m, k, n; /* pdist: n = m rows, k = d; pdist2: X m x k, Y n x k */
} job;

static void *fresh_buffer(void *ctx, size_t bytes)
{
    return *(void **)ctx = malloc(bytes ? bytes : 1);
}

/* into C, or (C NULL) into a new buffer that *fresh gets */
static gd_status run(const job *j, const char *variant, const void *A, const void *B,
                     void *C, void **fresh, gd_timing *t)
{
    gd_out out = {C, C ? NULL : fresh_buffer, fresh, NULL, NULL};
    const gd_matrix a = gd_host_matrix(A, j->cls, j->m, j->k);
    if (!strcmp(j->op, "minplus")) {
        const gd_matrix b = gd_host_matrix(B, j->cls, j->k, j->n);
        return gd_minplus(variant, &a, &b, out, NULL, t);
    }
    if (!strcmp(j->op, "sgemm")) {
        const gd_matrix b = gd_host_matrix(B, j->cls, j->k, j->n);
        return gd_sgemm(variant, GD_EDGES_PAD, &a, &b, out, NULL, t);
    }
    if (!strcmp(j->op, "pdist2")) {
        const gd_matrix b = gd_host_matrix(B, j->cls, j->n, j->k);
        const gd_distance m = {GD_EUCLIDEAN, 2};
        return gd_pdist2(variant, &a, &b, m, out, NULL, t);
    }
    const gd_distance m = {GD_EUCLIDEAN, 2};
    return gd_pdist(variant, &a, m, out, NULL, t);
}

static size_t count_bad(const void *C, const void *R, size_t nc, gd_class cls)
{
    size_t bad = 0;
    for (size_t i = 0; i < nc; ++i) {
        int same = cls == GD_SINGLE
                       ? (((const float *)C)[i] == ((const float *)R)[i] ||
                          (isnan(((const float *)C)[i]) && isnan(((const float *)R)[i])))
                       : (((const double *)C)[i] == ((const double *)R)[i] ||
                          (isnan(((const double *)C)[i]) && isnan(((const double *)R)[i])));
        bad += !same;
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s minplus|sgemm|pdist|pdist2 VARIANT single|double SIZE "
                        "[REPS [signed|nonneg [reuse|fresh]]]\n"
                        "  SIZE: n, or m x k x n (minplus, sgemm), n x d (pdist),\n"
                        "        mx x d x my (pdist2)\n", argv[0]);
        return 2;
    }
    job j = {argv[1], argv[2], strcmp(argv[3], "double") ? GD_SINGLE : GD_DOUBLE, 0, 0, 0};
    int reps = argc > 5 ? atoi(argv[5]) : 5;
    const int nonneg = argc > 6 && !strcmp(argv[6], "nonneg");
    if (argc > 6 && !nonneg && strcmp(argv[6], "signed")) {
        fprintf(stderr, "gdbench: inputs are 'signed' or 'nonneg', not '%s'\n", argv[6]);
        return 2;
    }
    const int fresh = argc > 7 && !strcmp(argv[7], "fresh");
    if (argc > 7 && !fresh && strcmp(argv[7], "reuse")) {
        fprintf(stderr, "gdbench: the result is 'reuse' or 'fresh', not '%s'\n", argv[7]);
        return 2;
    }
    long long a = 0, b = 0, c = 0;
    int got = sscanf(argv[4], "%lldx%lldx%lld", &a, &b, &c);
    int pdist = !strcmp(j.op, "pdist");
    if (strcmp(j.op, "minplus") && strcmp(j.op, "sgemm") && strcmp(j.op, "pdist2") && !pdist) {
        fprintf(stderr, "gdbench: unknown operation '%s'\n", j.op);
        return 2;
    }
    if (!strcmp(j.op, "sgemm")) j.cls = GD_SINGLE;
    if (pdist) {
        j.m = a; j.k = got >= 2 ? b : 64; j.n = a;
    } else {
        j.m = a; j.k = got == 3 ? b : a; j.n = got == 3 ? c : a;
    }
    if (j.m <= 0 || j.k < 0 || j.n <= 0 || reps < 1) {
        fprintf(stderr, "gdbench: bad size or reps\n");
        return 2;
    }
    rng_state = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ULL | 1;
    const size_t es = j.cls == GD_SINGLE ? 4 : 8;
    /* B: k x n (minplus, sgemm) or Y, n x k (pdist2): the same count */
    const size_t na = (size_t)(j.m * j.k), nb = pdist ? 0 : (size_t)(j.k * j.n);
    const size_t nc = pdist ? (size_t)(j.m * (j.m - 1) / 2) : (size_t)(j.m * j.n);
    void *A = malloc(na * es + 1), *B = malloc(nb * es + 1);
    void *C = malloc(nc * es + 1), *R = malloc(nc * es + 1);
    if (!A || !B || !C || !R) {
        fprintf(stderr, "gdbench: out of host memory\n");
        return 1;
    }
    fill(A, na, j.cls, nonneg ? 0.0 : -8.0);
    fill(B, nb, j.cls, nonneg ? 0.0 : -8.0);

    gd_timing t;
    memset(&t, 0, sizeof t); /* the place: this thread's device */
    gd_status s = run(&j, "cpu", A, B, R, NULL, &t);
    if (!s) {
        memset(C, 0xCD, nc * es); /* an unwritten element shows */
        s = run(&j, j.variant, A, B, C, NULL, &t);
    }
    if (s) {
        fprintf(stderr, "gdbench: %s: %s\n", gd_status_id(s), gd_last_error());
        return 1;
    }
    size_t bad = count_bad(C, R, nc, j.cls);
    printf("%s %s %s %lldx%lldx%lld: %s (%zu of %zu differ from the cpu variant)\n", j.op,
           t.variant, j.cls == GD_SINGLE ? "single" : "double", (long long)j.m,
           (long long)j.k, (long long)j.n, bad ? "WRONG" : "exact", bad, nc);
    if (bad) return 1;

    double *kern = malloc(sizeof(double) * (size_t)reps), *h2h = malloc(sizeof(double) * (size_t)reps);
    double *copy = malloc(sizeof(double) * (size_t)reps);
    for (int r = 0; r < reps; ++r) {
        void *out = NULL;
        double t0 = now_ms();
        if ((s = run(&j, j.variant, A, B, fresh ? NULL : C, &out, &t))) {
            fprintf(stderr, "gdbench: %s: %s\n", gd_status_id(s), gd_last_error());
            return 1;
        }
        h2h[r] = now_ms() - t0;
        if (out && (bad = count_bad(out, R, nc, j.cls))) {
            fprintf(stderr, "gdbench: a fresh result has %zu of %zu elements wrong\n", bad, nc);
            return 1;
        }
        free(out);
        kern[r] = t.kernel_ms;
        copy[r] = t.upload_ms + t.download_ms;
    }
    double km = median(kern, reps), hm = median(h2h, reps), cm = median(copy, reps);
    char kernel[sizeof t.kernel + 64];
    gd_kernel_text(&t, kernel, sizeof kernel);
    printf("%s%s%s%s on %s: kernel %.3f ms (%.4g %s/s), copies %.3f ms, host to host %.3f ms "
           "(%s result), median of %d\n",
           t.variant, kernel[0] ? " (" : "", kernel, kernel[0] ? ")" : "", t.device, km,
           t.ops / (km * 1e-3),
           !strcmp(j.op, "sgemm") ? "flop" : !strcmp(j.op, "minplus") ? "step" : "triple",
           cm, hm, fresh ? "fresh" : "reused", reps);
    gd_release();
    free(A); free(B); free(C); free(R); free(kern); free(h2h); free(copy);
    return 0;
}
