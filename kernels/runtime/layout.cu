/* layout.cu - class-generic launchers of layout.cuh's kernels
 * (gd_launch_transpose, gd_launch_widen) and the class names of messages
 * (gd_class_name, gd_describe). */
#include "runtime/layout.cuh"

#include <stdio.h>

void gd_launch_transpose(gd_class cls, const void *A, int64_t lda, void *R, int64_t rows,
                         int64_t cols, cudaStream_t st)
{
    dim3 grid((unsigned)((rows + 31) / 32), gd_grid_y((cols + 31) / 32));
    /* the bits move: an unsigned type of the element's size */
    switch (gd_class_bytes(cls)) {
    case 1:
        prep_transpose<uint8_t><<<grid, dim3(32, 8), 0, st>>>((const uint8_t *)A, lda, (uint8_t *)R,
                                                             rows, cols, rows, cols, 0);
        break;
    case 2:
        prep_transpose<uint16_t><<<grid, dim3(32, 8), 0, st>>>((const uint16_t *)A, lda, (uint16_t *)R,
                                                              rows, cols, rows, cols, 0);
        break;
    case 4:
        prep_transpose<uint32_t><<<grid, dim3(32, 8), 0, st>>>((const uint32_t *)A, lda, (uint32_t *)R,
                                                              rows, cols, rows, cols, 0u);
        break;
    default:
        prep_transpose<uint64_t><<<grid, dim3(32, 8), 0, st>>>((const uint64_t *)A, lda, (uint64_t *)R,
                                                              rows, cols, rows, cols, 0ull);
    }
}

void gd_launch_widen(gd_class to, const int *K, int64_t ldk, void *out, int64_t m, int64_t n,
                     cudaStream_t st)
{
    const int threads = 256;
    const unsigned blocks = gd_blocks_for(m * n, threads);
    if (to == GD_INT32)
        widen_index<int><<<blocks, threads, 0, st>>>(K, ldk, (int *)out, m, n);
    else
        widen_index<double><<<blocks, threads, 0, st>>>(K, ldk, (double *)out, m, n);
}

const char *gd_class_name(gd_class cls)
{
    static const char *const names[] = {"single", "double", "int32",  "int8",  "uint8",
                                        "int16",  "uint16", "uint32", "int64", "uint64"};
    return (unsigned)cls < sizeof names / sizeof names[0] ? names[cls] : "?";
}

void gd_describe(char *buf, size_t len, const char *label, int64_t rows,
                 int64_t cols, gd_class cls)
{
    snprintf(buf, len, "%s (%lld x %lld %s)", label, (long long)rows, (long long)cols,
             gd_class_name(cls));
}

