/* cpu/sgemm.c - sgemm and dgemm through the host's BLAS, in panels of columns.
 * Part of cpu.c, which includes it after its thread team and helpers. */
/* The reference BLAS interface (Fortran, 32-bit integers): the library
 * Octave itself is linked with, so 'cpu' is what single(A)*single(B)
 * computes in Octave, to the bit where the BLAS's order does not depend
 * on the shape (the reference BLAS; OpenBLAS's kernels for a few rows or
 * columns sum otherwise, and the panels below change the shape). */
extern void sgemm_(const char *transa, const char *transb, const int *m,
                   const int *n, const int *k, const float *alpha,
                   const float *a, const int *lda, const float *b,
                   const int *ldb, const float *beta, float *c, const int *ldc);
extern void dgemm_(const char *transa, const char *transb, const int *m,
                   const int *n, const int *k, const double *alpha,
                   const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc);

gd_status gd_cpu_gemm(gd_class cls, const void *A, const void *B, void *C, int64_t m,
                      int64_t k, int64_t n)
{
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return GD_ERR_SIZE; /* the caller says why */
    const int dbl = cls == GD_DOUBLE;
    if (k == 0) {
        memset(C, 0, (size_t)(m * n) * (dbl ? 8 : 4));
        return GD_OK;
    }
    /* in panels of C's columns (each column's sums are the whole
     * product's), Ctrl-C and the progress between them: a panel's width
     * doubles while one takes under a quarter of a second */
    const int M = (int)m, K = (int)k;
    const float one = 1.0f, zero = 0.0f;
    const double done = 1.0, dzero = 0.0;
    int64_t w = 1;
    for (int64_t j = 0; j < n;) {
        if (gd_interrupted()) return GD_ERR_INTERRUPT;
        const int N = (int)(n - j < w ? n - j : w);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (dbl)
            dgemm_("N", "N", &M, &N, &K, &done, (const double *)A, &M, (const double *)B + k * j,
                   &K, &dzero, (double *)C + m * j, &M);
        else
            sgemm_("N", "N", &M, &N, &K, &one, (const float *)A, &M, (const float *)B + k * j, &K,
                   &zero, (float *)C + m * j, &M);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        j += N;
        gd_progress("column", (double)j, (double)n);
        if ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec) < 0.25)
            w *= 2;
    }
    return GD_OK;
}
