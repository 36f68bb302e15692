/* ops/sgemm/sgemm.cu - single-precision matrix multiply C = A*B on the GPU.
 *
 * The ladder of Michael Wolfe, "Compilers and More: Optimizing GPU
 * Kernels" (HPCwire, 2008), which is written column-major with pitches as
 * Octave stores matrices. His a(i,j) += b(i,k)*c(k,j) is our
 * C(i,j) += A(i,k)*B(k,j):
 *
 *   k1-W         one thread per C(i,j); the i loop strip-mined to a block of
 *                W threads (W = 32, 64, 128), one block per strip and column
 *   k2-W[-uU]    k1 with the strip of B's column j that the k loop reads
 *                staged in shared memory, W elements at a time; -u2
 *                unrolls the inner k loop twice
 *   k3-W-iI      k2 with the i loop unrolled: I outputs per thread, rows
 *                i, i+W, ... (I = 2, 3)
 *   k4-W-jJ[-kU] k2 with the j loop unrolled: J columns per block share
 *                each A element loaded (J = 2, 4), k loop unrolled U times
 *   k5           16x16 tiles of A and B in shared memory, one output per
 *                thread
 *   tuned        128x128 block tiles, 8x8 outputs per thread in
 *                registers, 16-byte loads, A and B both stored k-major in
 *                shared memory (B transposed by the preparation kernel),
 *                16 k-steps a stage, three stages copied in by cp.async
 *                while one is computed
 *   cublas       cublasSgemm, FP32 math (no TF32): the reference
 *
 * Sizes that are not multiples of a kernel's tile, two ways (the
 * article's discussion): Edges 'pad' (default) runs the kernels on
 * operands padded with zeros by a device-side preparation kernel (zeros
 * add nothing to a sum of products) and copies the padded result back with
 * cudaMemcpy2D; Edges 'guard' runs them on Octave's own layout with every
 * load and store bounds-checked. tuned always pads; cublas needs neither.
 */
#include "ops/product/product.h"
#include "runtime/call.h"
#include "tiles/tile.cuh"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

// ---------------------------------------------------------------------------
// launchers. In 'pad' mode the padded sizes stand in for m, n, k: every
// thread has a row, a column and whole strips; the kernels' guards are
// compiled out.

struct dims {
    int64_t m, n, k;
};
dims sizes(const gd_plan &p, bool guard)
{
    dims d = {guard ? p.m : p.mp, guard ? p.n : p.np, guard ? p.k : p.kp};
    return d;
}

#include "ops/sgemm/k1_strip.cuh"
#include "ops/sgemm/k234_staged.cuh"
#include "ops/sgemm/k5_tiled.cuh"
#include "ops/sgemm/tuned.cuh"
#include "ops/sgemm/cublas.cuh"

// ---------------------------------------------------------------------------
// variant tables: the same names in the same order, one table per edge
// handling. K-variants: GD_PADDED (zeros, no guards) or GD_RAW (guards).

/* a K row: the table's layout and output, its name and note, the
 * multiples of mp, np and kp, its launcher (in parentheses: a template's
 * commas). One block each: the ladder compares the kernels themselves,
 * and in guard mode (GD_RAW, which sections of C would take) a 4096 product
 * in 2 x 2 blocks ran 8-13% longer than whole on an H100. */
#define K_ROW(LAYOUT, OUT, NAME, NOTE, ROWS, COLS, KS, LAUNCH)                                    \
    {.info = {.name = NAME, .note = NOTE, .gpu = 1},                                              \
     .in = LAYOUT,                                                                                \
     .padded_out = OUT,                                                                           \
     .row_mult = ROWS,                                                                            \
     .col_mult = COLS,                                                                            \
     .k_mult = KS,                                                                                \
     .run_f = LAUNCH,                                                                             \
     .one_block = true}
#define K_VARIANTS(G, LAYOUT, OUT)                                                                \
    K_ROW(LAYOUT, OUT, "k1-32", "one thread per output, i strip of 32 threads, one column per block",\
          32, 1, 1, (launch_k1<32, G>)),                                                          \
    K_ROW(LAYOUT, OUT, "k1-64", "k1 with strips of 64 threads: more warps per multiprocessor",    \
          64, 1, 1, (launch_k1<64, G>)),                                                          \
    K_ROW(LAYOUT, OUT, "k1-128", "k1 with strips of 128 threads",                                 \
          128, 1, 1, (launch_k1<128, G>)),                                                        \
    K_ROW(LAYOUT, OUT, "k2-32", "k1 with a 32-long strip of B's column cached in shared memory",  \
          32, 1, 32, (launch_k234<32, 1, 1, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k2-64", "k2 with strips of 64",                                           \
          64, 1, 64, (launch_k234<64, 1, 1, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k2-128", "k2 with strips of 128",                                         \
          128, 1, 128, (launch_k234<128, 1, 1, 1, G>)),                                           \
    K_ROW(LAYOUT, OUT, "k2-64-u2", "k2-64 with the inner k loop unrolled twice",                  \
          64, 1, 64, (launch_k234<64, 1, 1, 2, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k3-32-i2", "k2-32 with the i loop unrolled: 2 outputs per thread (rows i, i+32)",\
          64, 1, 32, (launch_k234<32, 2, 1, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k3-32-i3", "k2-32 with 3 outputs per thread (rows i, i+32, i+64)",        \
          96, 1, 32, (launch_k234<32, 3, 1, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k3-64-i2", "k2-64 with 2 outputs per thread",                             \
          128, 1, 64, (launch_k234<64, 2, 1, 1, G>)),                                             \
    K_ROW(LAYOUT, OUT, "k4-32-j2", "k2-32 with the j loop unrolled: 2 columns share each A load", \
          32, 2, 32, (launch_k234<32, 1, 2, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k4-64-j2", "k4 with strips of 64, 2 columns",                             \
          64, 2, 64, (launch_k234<64, 1, 2, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k4-128-j2", "k4 with strips of 128, 2 columns",                           \
          128, 2, 128, (launch_k234<128, 1, 2, 1, G>)),                                           \
    K_ROW(LAYOUT, OUT, "k4-128-j4", "k4 with strips of 128, 4 columns (4 partial sums)",          \
          128, 4, 128, (launch_k234<128, 1, 4, 1, G>)),                                           \
    K_ROW(LAYOUT, OUT, "k4-128-j4-k2", "k4-128-j4 with the k loop unrolled twice",                \
          128, 4, 128, (launch_k234<128, 1, 4, 2, G>)),                                           \
    K_ROW(LAYOUT, OUT, "k4-128-j4-k4", "k4-128-j4 with the k loop unrolled 4 times: the article's best",\
          128, 4, 128, (launch_k234<128, 1, 4, 4, G>)),                                           \
    K_ROW(LAYOUT, OUT, "k5", "16x16 tiles of A and B in shared memory, one output per thread",    \
          16, 16, 16, (launch_k5<G>))

#define SHARED_VARIANTS                                                                           \
    {.info = {.name = "tuned",                                                                    \
              .note = "128x128 tiles, 8x8 per thread in registers, 16-byte loads, three stages of 16 "\
                      "k-steps by cp.async, split-k on small grids (pads in either Edges mode)",  \
              .gpu = 1},                                                                          \
     .in = GD_PADDED_BT,                                                                          \
     .padded_out = true,                                                                          \
     .row_mult = 128,                                                                             \
     .col_mult = 128,                                                                             \
     .k_mult = 16,                                                                                \
     .run_f = launch_tuned<16>,                                                                   \
     .work_f = work_tuned<16>,                                                                    \
     .scratch_work = true},                                                                       \
    {.info = {.name = "cublas",                                                                   \
              .note = "cublasSgemm with FP32 math (no TF32): the reference",                      \
              .gpu = 1},                                                                          \
     .run_f = launch_cublas,                                                                      \
     .one_block = true},                                                                          \
    {.info = {.name = "cpu",                                                                      \
              .note = "the BLAS Octave uses (sgemm)",                                             \
              .gpu = 0}}

const gd_product_variant PAD_TABLE[] = {K_VARIANTS(false, GD_PADDED, true), SHARED_VARIANTS};
const gd_product_variant GUARD_TABLE[] = {K_VARIANTS(true, GD_RAW, false), SHARED_VARIANTS};
const int NVARIANTS = sizeof PAD_TABLE / sizeof PAD_TABLE[0];
static_assert(sizeof GUARD_TABLE == sizeof PAD_TABLE, "one entry per name in each table");

gd_status cpu_sgemm(gd_class, const void *A, const void *B, void *C, int *, int64_t m,
                    int64_t k, int64_t n, const gd_op_args &)
{
    const gd_status s = gd_cpu_gemm(GD_SINGLE, A, B, C, m, k, n);
    if (s == GD_ERR_SIZE) return gd_fail(GD_ERR_SIZE, "the host BLAS takes sizes below 2^31");
    return s ? gd_fail(s, "interrupted") : GD_OK;
}

// Zeros add nothing to a sum; a sum over nothing is 0. auto: cublas (tuned
// is 1.5-3% slower at 2048, 4096 and 8192, ties at 4097 and 1000x3000x500
// and wins at 1000, bench/results and NOTES.md); below 2^20
// flops the host's BLAS finishes before a GPU round trip would.
// 'all' devices divide a product of 2^39 flops a device or more (n =
// 6500 a device: about 11 ms of cuBLAS on an H100): min-plus's measured
// break-even, with room for sgemm's larger share of copies (at n =
// 16384 two H200s gain 1.3x host to host), not measured at the threshold
const double SPLIT_MIN = 549755813888.0;
const gd_product_op OP = {.name = "sgemm",
                          .pad = 0.0,
                          .empty_k = 0.0,
                          .ops_per_step = 2.0,
                          .device_cpu = "cpu (BLAS)",
                          .auto_single = "cublas",
                          .auto_double = "cublas",
                          .auto_cpu_below = 1 << 20,
                          .cpu = cpu_sgemm,
                          /* large products in sections of C, copies beside
                           * kernels, as min-plus's ('cublas' in one) */
                          .panels = true,
                          .single_only = true,
                          .split_min = SPLIT_MIN};

/* A 1x1 operand: Octave multiplies by a scalar element by element, which
 * keeps the sign of a zero product (single (-0) * 5 is -0); a sum of
 * products starts at +0 and loses it. So C = a * B or A * b is computed
 * so, on the host (a vector's worth of products), whatever the variant. */
gd_status scalar_times(const gd_matrix *A0, const gd_matrix *B0, gd_out C, gd_timing *t)
{
    const double t0 = gd_now_ms();
    const int64_t m = A0->rows, n = B0->cols;
    gd_allocs conv = {};
    gd_matrix A1, B1, A, B;
    void *h[4] = {NULL, NULL, NULL, NULL}, *buf = NULL;
    const size_t bytes = (size_t)(m * n) * sizeof(float);
    char what[96];
    gd_describe(what, sizeof what, "C", m, n, GD_SINGLE);
    t->resident = (A0->where == GD_DEVICE ? 1u : 0u) | (B0->where == GD_DEVICE ? 2u : 0u);
    gd_status s;
    if (!(s = gd_operand_class(A0, GD_SINGLE, &A1, &conv, &h[0], "A")) &&
        !(s = gd_operand_class(B0, GD_SINGLE, &B1, &conv, &h[1], "B")) &&
        !(s = gd_operand_host(&A1, &A, &h[2], "A")) &&
        !(s = gd_operand_host(&B1, &B, &h[3], "B")) &&
        !(s = gd_host_result_begin(&C, bytes, what, &buf))) {
        const float *a = (const float *)A.ptr, *b = (const float *)B.ptr;
        float *c = (float *)buf;
        for (int64_t e = 0; e < m * n; ++e)
            c[e] = m == 1 ? a[0] * b[B.ld * e] : a[e] * b[0];
    }
    if (buf || C.device) s = gd_host_result_end(&C, buf, bytes, s, t);
    if (conv.n) {
        gd_timing ct;
        memset(&ct, 0, sizeof ct);
        gd_end_call(GD_OK, &conv, &ct);
    }
    for (int i = 0; i < 4; ++i) free(h[i]);
    snprintf(t->variant, sizeof t->variant, "elementwise");
    snprintf(t->device, sizeof t->device, "cpu");
    t->total_ms = gd_now_ms() - t0;
    return s;
}

} // namespace

extern "C" int gd_sgemm_variants(const gd_variant_info **list)
{
    static gd_variant_info infos[NVARIANTS];
    return gd_variant_infos(PAD_TABLE, NVARIANTS, infos, list);
}

/* C = A * B in double (gdArray's *): cublasDgemm where a GPU is usable
 * (the operands on it, C kept there or brought down), else the host's
 * BLAS, Octave's own product */
extern "C" gd_status gd_dgemm(const gd_matrix *A, const gd_matrix *B, gd_out C,
                              const gd_place *at, gd_timing *t)
{
    gd_op_entry entry(at, t, &C);
    if (A->cls != GD_DOUBLE || B->cls != GD_DOUBLE)
        return gd_fail(GD_ERR_INPUT, "internal: gd_dgemm takes double operands");
    if (A->cols != B->rows)
        return gd_fail(GD_ERR_SIZE, "A is %lldx%lld and B %lldx%lld: A's columns must be B's rows",
                       (long long)A->rows, (long long)A->cols, (long long)B->rows,
                       (long long)B->cols);
    const int64_t m = A->rows, k = A->cols, n = B->cols;
    const size_t bytes = (size_t)(m * n) * sizeof(double);
    t->ops = 2.0 * (double)m * (double)n * (double)k;
    t->resident = (A->where == GD_DEVICE ? 1u : 0u) | (B->where == GD_DEVICE ? 2u : 0u);
    bool gpu = false;
    gd_status s = gd_auto_device(t, &gpu);
    if (s) return s;
    if (!gpu) {
        gd_matrix Ah, Bh;
        void *h[2] = {NULL, NULL}, *buf = NULL;
        char what[96];
        gd_describe(what, sizeof what, "C", m, n, GD_DOUBLE);
        if (!(s = gd_operand_host(A, &Ah, &h[0], "A")) && !(s = gd_operand_host(B, &Bh, &h[1], "B")) &&
            !(s = gd_host_result_begin(&C, bytes, what, &buf))) {
            s = gd_cpu_gemm(GD_DOUBLE, Ah.ptr, Bh.ptr, buf, m, k, n);
            if (s == GD_ERR_SIZE) s = gd_fail(s, "the host BLAS takes sizes below 2^31");
            else if (s) s = gd_fail(s, "interrupted");
        }
        if (buf || C.device) s = gd_host_result_end(&C, buf, bytes, s, t);
        free(h[0]);
        free(h[1]);
        snprintf(t->variant, sizeof t->variant, "cpu");
        snprintf(t->device, sizeof t->device, "cpu (BLAS)");
        return s;
    }
    snprintf(t->variant, sizeof t->variant, "cublas");
    gd_call c(t, "cublas");
    cudaStream_t st = gd_stream();
    const double *a = (const double *)c.on_device(*A, c.event(), st, "A");
    const double *b = (const double *)c.on_device(*B, c.event(), st, "B");
    double *d = (double *)(C.device ? c.alloc_kept(C, bytes + 8, "C") : c.alloc(bytes + 8, "C"));
    void *h = C.device ? NULL : c.host_result(C, bytes, "C");
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && m * n > 0) {
        const double one = 1.0, zero = 0.0;
        if (k == 0)
            c.cuda(cudaMemsetAsync(d, 0, bytes, st), "C");
        else if (c.check(cublas_ready(st, m, k, n)))
            c.check(cublas_check(g_api.dgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n,
                                             (int)k, &one, a, (int)m, b, (int)k, &zero, d, (int)m),
                                 "cublasDgemm"));
    }
    c.end(GD_PHASE_KERNEL, st);
    const cudaEvent_t done = c.event();
    c.cuda(cudaEventRecord(done, st), "C");
    if (h && bytes) c.download(h, bytes, d, bytes, bytes, 1, done, "C");
    c.wait(st, "the product");
    return c.finish();
}

extern "C" gd_status gd_sgemm(const char *name, gd_edges edges, const gd_matrix *A,
                              const gd_matrix *B, gd_out C, const gd_place *at, gd_timing *t)
{
    const gd_product_variant *table = edges == GD_EDGES_GUARD ? GUARD_TABLE : PAD_TABLE;
    if (A->cols == 1 && B->rows == 1 && (A->rows == 1 || B->cols == 1) && A->rows * B->cols > 0) {
        gd_entry entry(at, t);
        t->ops = 2.0 * (double)A->rows * (double)B->cols;
        if (strcmp(name, "auto") && !gd_row_named(table, NVARIANTS, name))
            return gd_fail(GD_ERR_VARIANT, "unknown variant '%s'", name);
        return scalar_times(A, B, C, t);
    }
    const gd_op_args args = {};
    return gd_product(OP, table, NVARIANTS, name, A, B, C, args, at, t);
}
