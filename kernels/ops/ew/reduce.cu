/* reduce.cu - reductions and cumulative sums of matrices (gdArray's sum,
 * prod, max, min, nnz, any, all, cumsum and cumprod): gd_ew_reduce and
 * gd_ew_scan. Sums and products take each output's elements in order, as
 * Octave's loops take them, so that they are Octave's to the bit.
 *
 * Sums and products on the device: a block 32 outputs, its threads
 * loading 64 of each output's elements at a time into shared memory
 * (coalesced along the matrix's columns, whichever dimension is reduced),
 * then one warp, a thread an output, taking them in order. The loads of
 * every block in flight keep the memory busy while the warps add (a
 * thread an output reading its own column straight from memory would read
 * a line per element; 16384 of them, 64 blocks, leave most
 * multiprocessors idle).
 *
 * max, min, nnz, any and all have no order to keep: their partials merge
 * in any order to the loop's answer (arith.h's ew_reducer), so each line is
 * cut into parts that fill the device, read straight from memory (a
 * thread a part of a row, or a warp a part of a column), and a last
 * kernel merges each output's parts. */
#include "ops/ew/frame.cuh"

#include <type_traits>

namespace {

enum { RT_OUT = 32, RT_LEN = 64, RT_THREADS = 256, RT_EACH = RT_LEN * RT_OUT / RT_THREADS };

/* element e of this thread's share of the tile at k0 (the tile's place
 * (k, c)), consecutive threads down a column of A: a line each */
__device__ __forceinline__ void rt_place(int dim, int q, int *k, int *c)
{
    *k = dim == 1 ? q % RT_LEN : q / RT_OUT;
    *c = dim == 1 ? q / RT_LEN : q % RT_OUT;
}

template <class TA>
__device__ __forceinline__ void rt_load(const TA *A, int64_t ld, int dim, int64_t o0, int64_t nout,
                                        int64_t k0, int kn, TA *v)
{
    /* element e's place moves by a constant: down a column (dim 1) to the
     * column RT_THREADS / RT_LEN on, along a row (dim 2) to the row
     * RT_THREADS / RT_OUT on; one pointer and a stride (fewer registers) */
    int k, c;
    rt_place(dim, threadIdx.x, &k, &c);
    const int dk = dim == 1 ? 0 : RT_THREADS / RT_OUT, dc = dim == 1 ? RT_THREADS / RT_LEN : 0;
    const TA *p = dim == 1 ? A + (o0 + c) * ld + k0 + k : A + (o0 + c) + (k0 + k) * ld;
    const int64_t step = (int64_t)(dk + dc) * ld;
#pragma unroll
    for (int e = 0; e < RT_EACH; ++e)
        v[e] = k + e * dk < kn && o0 + c + e * dc < nout ? p[e * step] : TA(0);
}

/* A sum (OP EW_SUM) or product (EW_PROD) in order, ew_reducer's steps.
 * The tiles go through registers: each thread's share of the next tile
 * is loaded while the warp of outputs takes the current one from shared
 * memory, so that every block keeps a tile in flight. Four blocks a
 * multiprocessor (at most 64 registers): 16384 outputs are one wave */
template <int OP, class TR, class TA>
__global__ void __launch_bounds__(RT_THREADS, 4)
    reduce_kernel(const TA *A, int64_t rows, int64_t cols, int64_t ld, int dim, TR *R, int64_t nout)
{
    __shared__ TA tile[RT_LEN][RT_OUT + 1];
    const int64_t len = dim == 1 ? rows : cols;
    const int t = threadIdx.x;
    TA v[RT_EACH];
    for (int64_t o0 = blockIdx.x * (int64_t)RT_OUT; o0 < nout; o0 += (int64_t)gridDim.x * RT_OUT) {
        TR acc = OP == EW_PROD ? (TR)1 : (TR)0;
        int kn = (int)(len < RT_LEN ? len : RT_LEN);
        rt_load(A, ld, dim, o0, nout, 0, kn, v);
        for (int64_t k0 = 0; k0 < len; k0 += RT_LEN) {
#pragma unroll
            for (int e = 0; e < RT_EACH; ++e) {
                int k, c;
                rt_place(dim, t + e * RT_THREADS, &k, &c);
                tile[k][c] = v[e];
            }
            __syncthreads();
            const int now = kn;
            if (k0 + RT_LEN < len) { /* the next tile's loads in flight */
                kn = (int)(len - k0 - RT_LEN < RT_LEN ? len - k0 - RT_LEN : RT_LEN);
                rt_load(A, ld, dim, o0, nout, k0 + RT_LEN, kn, v);
            }
            if (t < RT_OUT && o0 + t < nout)
                for (int i = 0; i < now; ++i) acc = OP == EW_PROD ? acc * (TR)tile[i][t] : acc + (TR)tile[i][t];
            __syncthreads();
        }
        if (t < RT_OUT && o0 + t < nout) R[o0 + t] = acc;
    }
}

/* a block 32 outputs, four blocks a multiprocessor at most (one wave) */
unsigned reduce_grid(int64_t nout)
{
    const int64_t b = (nout + RT_OUT - 1) / RT_OUT;
    const int64_t cap = (int64_t)(gd_sm_count() > 0 ? gd_sm_count() : 132) * 4;
    return (unsigned)(b < 1 ? 1 : b < cap ? b : cap);
}

template <class T> __device__ __forceinline__ T ew_shfl(T v, int s)
{
    if constexpr (sizeof(T) < 4) return (T)__shfl_xor_sync(0xffffffffu, (int)v, s);
    else return __shfl_xor_sync(0xffffffffu, v, s);
}

enum { FD_THREADS = 256, FD_U = 8 };

/* along the rows (output o's element j at A[o + j ld]): a thread a part
 * of a row, FD_U columns' loads in flight, a warp's loads one line; the
 * operation a constant (a quarter faster than one read at run time) */
template <int OP, class TR, class TA>
__global__ void __launch_bounds__(FD_THREADS)
    fold_rows(const TA *A, int64_t nout, int64_t len, int64_t ld, int64_t per, ew_reducer<TR, TA> *parts)
{
    const int op = OP;
    const int64_t o = blockIdx.x * (int64_t)FD_THREADS + threadIdx.x, p = blockIdx.y;
    if (o >= nout) return;
    const int64_t j0 = p * per, j1 = j0 + per < len ? j0 + per : len;
    ew_reducer<TR, TA> r;
    r.start(op);
    for (int64_t j = j0; j < j1; j += FD_U) {
        TA v[FD_U];
#pragma unroll
        for (int u = 0; u < FD_U; ++u) v[u] = j + u < j1 ? A[o + (j + u) * ld] : TA(0);
#pragma unroll
        for (int u = 0; u < FD_U; ++u)
            if (j + u < j1) r.add(op, v[u], j + u);
    }
    parts[p * nout + o] = r;
}

/* down the columns (output o's element k at A[o ld + k]): a warp a part
 * of a column, its lanes every 32nd element, then merged by shuffles */
template <int OP, class TR, class TA>
__global__ void __launch_bounds__(FD_THREADS)
    fold_cols(const TA *A, int64_t nout, int64_t len, int64_t ld, int64_t per, int64_t nparts,
              ew_reducer<TR, TA> *parts)
{
    const int op = OP;
    const int64_t wid = (blockIdx.x * (int64_t)FD_THREADS + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (wid >= nout * nparts) return; /* the whole warp */
    const int64_t o = wid / nparts, p = wid % nparts;
    const int64_t k0 = p * per, k1 = k0 + per < len ? k0 + per : len;
    const TA *col = A + o * ld;
    ew_reducer<TR, TA> r;
    r.start(op);
    for (int64_t k = k0 + lane; k < k1; k += 32 * FD_U) {
        TA v[FD_U];
#pragma unroll
        for (int u = 0; u < FD_U; ++u) v[u] = k + 32 * u < k1 ? col[k + 32 * u] : TA(0);
#pragma unroll
        for (int u = 0; u < FD_U; ++u)
            if (k + 32 * u < k1) r.add(op, v[u], k + 32 * u);
    }
    for (int s = 16; s; s >>= 1) r.merge(op, ew_shfl(r.acc, s), ew_shfl(r.m, s), ew_shfl(r.w, s));
    if (lane == 0) parts[p * nout + o] = r;
}

/* each output's parts merged: R, and I the extreme's place (from 1) */
template <class TR, class TA>
__global__ void fold_merge(int op, const ew_reducer<TR, TA> *parts, int64_t nout, int64_t nparts, TR *R,
                           double *I)
{
    const int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (o >= nout) return;
    ew_reducer<TR, TA> r = parts[o];
    for (int64_t p = 1; p < nparts; ++p) r.merge(op, parts[p * nout + o].acc, parts[p * nout + o].m, parts[p * nout + o].w);
    R[o] = op == EW_MAX || op == EW_MIN ? (TR)r.m : r.acc;
    if (I) I[o] = (double)(r.w + 1);
}

/* the parts of an order-free reduction's lines: enough threads (along
 * the rows) or warps (down the columns) to fill the device once, none
 * shorter than its loads in flight; *per the elements a part */
inline int64_t fold_parts(int64_t nout, int64_t len, int dim, int64_t *per)
{
    const int64_t sms = gd_sm_count() > 0 ? gd_sm_count() : 132;
    const int64_t target = dim == 2 ? sms * 2048 : sms * 64, least = dim == 2 ? 8 * FD_U : 32 * FD_U;
    int64_t nparts = 1; /* (a power of two: 17 parts of 16384 took 0.37 ms, 16 or 32 0.31) */
    while (nparts * nout < target) nparts *= 2;
    const int64_t most = (len + least - 1) / least;
    nparts = nparts > most ? most : nparts;
    nparts = nparts < 1 ? 1 : nparts;
    *per = len ? (len + nparts - 1) / nparts : 1;
    return nparts;
}

/* whether reduction OP gives TR from TA (gd_ew_reduce's classes): the
 * kernels made for those alone */
template <int OP, class TR, class TA> constexpr bool reduce_fits()
{
    return OP == EW_SUM || OP == EW_PROD
               ? std::is_same<TR, typename std::conditional<std::is_same<TA, float>::value, float, double>::type>::value
           : OP == EW_MAX || OP == EW_MIN ? std::is_same<TR, TA>::value
           : OP == EW_NNZ                 ? std::is_same<TR, double>::value
                                          : std::is_same<TR, uint8_t>::value;
}

/* reduction OP's kernels queued on st: in order by tiles (sum, prod),
 * else by parts, then their merge */
template <int OP, class TR, class TA>
void reduce_queue(const gd_matrix &A, const TA *a, int64_t ld, int dim, int64_t nout, int64_t nparts,
                  int64_t per, ew_reducer<TR, TA> *parts, TR *R, double *I, cudaStream_t st)
{
    const int64_t len = dim == 1 ? A.rows : A.cols;
    if constexpr (!reduce_fits<OP, TR, TA>()) {
        return;
    } else if constexpr (OP == EW_SUM || OP == EW_PROD) {
        reduce_kernel<OP, TR, TA><<<reduce_grid(nout), RT_THREADS, 0, st>>>(a, A.rows, A.cols, ld, dim, R, nout);
    } else {
        const dim3 rows((unsigned)((nout + FD_THREADS - 1) / FD_THREADS), (unsigned)nparts);
        const unsigned cols = (unsigned)((nout * nparts * 32 + FD_THREADS - 1) / FD_THREADS);
        if (dim == 2)
            fold_rows<OP, TR, TA><<<rows, FD_THREADS, 0, st>>>(a, nout, len, ld, per, parts);
        else
            fold_cols<OP, TR, TA><<<cols, FD_THREADS, 0, st>>>(a, nout, len, ld, per, nparts, parts);
        fold_merge<TR, TA><<<(unsigned)((nout + 255) / 256), 256, 0, st>>>(OP, parts, nout, nparts, R, I);
    }
}

template <class TR, class TA>
gd_status reduce_run(int op, const gd_matrix &A, int dim, gd_out &R, gd_out *I, gd_timing *t)
{
    const int64_t nout = dim == 1 ? A.cols : A.rows;
    const size_t bytes = (size_t)nout * sizeof(TR), ib = (size_t)nout * sizeof(double);
    if (A.where != GD_DEVICE) {
        snprintf(t->variant, sizeof t->variant, "cpu");
        void *buf = NULL, *ibuf = NULL;
        gd_status s = gd_host_result_begin(&R, bytes, "the result", &buf);
        if (!s && I) s = gd_host_result_begin(I, ib, "the places", &ibuf);
        if (!s) {
            const TA *a = (const TA *)A.ptr;
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads()) if (A.rows * A.cols >= EW_HOST_PARALLEL)
            for (int64_t o = 0; o < nout; ++o) {
                ew_reducer<TR, TA> r;
                r.start(op);
                const int64_t len = dim == 1 ? A.rows : A.cols, step = dim == 1 ? 1 : A.ld;
                const TA *line = dim == 1 ? a + o * A.ld : a + o;
                for (int64_t k = 0; k < len; ++k) r.add(op, line[k * step], k);
                ((TR *)buf)[o] = r.result(op);
                if (ibuf) ((double *)ibuf)[o] = (double)(r.w + 1);
            }
        }
        const gd_status sr = gd_host_result_end(&R, buf, bytes, s, t);
        const gd_status si = I ? gd_host_result_end(I, ibuf, ib, s ? s : sr, t) : GD_OK;
        if (si && R.device && *R.device) {
            gd_dev_free(*R.device);
            *R.device = NULL;
        }
        return s ? s : sr ? sr : si;
    }
    snprintf(t->variant, sizeof t->variant, "gpu");
    cudaStream_t st = gd_stream();
    gd_call c(t, "gpu");
    gd_matrix Ah;
    c.check(gd_operand_here(&A, c.allocs(), &Ah, "A"));
    TR *dR = (TR *)(R.device ? c.alloc_kept(R, bytes ? bytes : 1, "the result")
                            : c.alloc(bytes ? bytes : 1, "the result"));
    double *dI = !I ? NULL : (double *)(I->device ? c.alloc_kept(*I, ib ? ib : 1, "the places")
                                                 : c.alloc(ib ? ib : 1, "the places"));
    const bool ordered = op == EW_SUM || op == EW_PROD;
    const int64_t len = dim == 1 ? A.rows : A.cols;
    int64_t per = 1, nparts = ordered || !nout ? 0 : fold_parts(nout, len, dim, &per);
    ew_reducer<TR, TA> *parts = !nparts ? NULL
                             : (ew_reducer<TR, TA> *)c.alloc((size_t)(nout * nparts) * sizeof *parts, "the reduction's parts");
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && nout) {
        const TA *a = (const TA *)Ah.ptr;
        switch (op) {
        case EW_SUM: reduce_queue<EW_SUM>(A, a, Ah.ld, dim, nout, nparts, per, parts, dR, dI, st); break;
        case EW_PROD: reduce_queue<EW_PROD>(A, a, Ah.ld, dim, nout, nparts, per, parts, dR, dI, st); break;
        case EW_MAX: reduce_queue<EW_MAX>(A, a, Ah.ld, dim, nout, nparts, per, parts, dR, dI, st); break;
        case EW_MIN: reduce_queue<EW_MIN>(A, a, Ah.ld, dim, nout, nparts, per, parts, dR, dI, st); break;
        case EW_NNZ: reduce_queue<EW_NNZ>(A, a, Ah.ld, dim, nout, nparts, per, parts, dR, dI, st); break;
        case EW_ANY: reduce_queue<EW_ANY>(A, a, Ah.ld, dim, nout, nparts, per, parts, dR, dI, st); break;
        default: reduce_queue<EW_ALL>(A, a, Ah.ld, dim, nout, nparts, per, parts, dR, dI, st);
        }
    }
    c.launched("the reduction kernel");
    if (I && !I->device) {
        c.end(GD_PHASE_KERNEL, st);
        const cudaEvent_t done = c.event();
        c.cuda(cudaEventRecord(done, st), "the places");
        void *h = c.host_result(*I, ib, "the places");
        if (h && ib) c.download(h, ib, dI, ib, ib, 1, done, "the places");
        c.begin(GD_PHASE_KERNEL, st);
    }
    return ew_finish(c, R, dR, bytes, st);
}

/* sum and prod: single in single, the rest in double; max and min in A's
 * class; the count of nonzeros in double; any and all logical (a byte) */
template <class TA>
gd_status reduce_class(int op, const gd_matrix &A, int dim, gd_out &R, gd_out *I, gd_timing *t)
{
    if (op == EW_MAX || op == EW_MIN) return reduce_run<TA, TA>(op, A, dim, R, I, t);
    if (op == EW_NNZ) return reduce_run<double, TA>(op, A, dim, R, NULL, t);
    if (op == EW_ANY || op == EW_ALL) return reduce_run<uint8_t, TA>(op, A, dim, R, NULL, t);
    if (std::is_same<TA, float>::value) return reduce_run<float, TA>(op, A, dim, R, NULL, t);
    return reduce_run<double, TA>(op, A, dim, R, NULL, t);
}

} // namespace

extern "C" gd_status gd_ew_reduce(int op, const gd_matrix *A, int dim, gd_out R, gd_out *I,
                                  const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if (I && I->device) *I->device = NULL;
    if (op < 0 || op >= EW_NREDUCE || (dim != 1 && dim != 2))
        return gd_fail(GD_ERR_INPUT, "internal: reduction %d along %d", op, dim);
    if (A->pieces) return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
    if ((op == EW_MAX || op == EW_MIN) && (dim == 1 ? A->rows : A->cols) == 0)
        return gd_fail(GD_ERR_INPUT, "internal: max or min over no element");
    const gd_status s = ew_by_class(A->cls, [&](auto z) { return reduce_class<GD_EW_TYPE>(op, *A, dim, R, I, t); });
    t->total_ms = gd_now_ms() - t0;
    return s;
}

namespace {

template <class TR, class TA>
__global__ void scan_kernel(int op, const TA *A, int64_t rows, int64_t cols, int64_t ld, int dim, TR *R)
{
    const int64_t nline = dim == 1 ? cols : rows;
    for (int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; o < nline;
         o += (int64_t)gridDim.x * blockDim.x) {
        if (dim == 1) ew_scan_line<TR, TA>(op, A + o * ld, rows, 1, R + o * rows, 1);
        else ew_scan_line<TR, TA>(op, A + o, cols, ld, R + o, rows);
    }
}

template <class TR, class TA>
gd_status scan_run(int op, const gd_matrix &A, int dim, gd_out &R, gd_timing *t)
{
    const int64_t nline = dim == 1 ? A.cols : A.rows, rows = A.rows, cols = A.cols;
    return ew_one_operand<TR, TA>(
        A, R, (size_t)(rows * cols) * sizeof(TR), t,
        [&](const TA *a, TR *r) {
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads()) if (rows * cols >= EW_HOST_PARALLEL)
            for (int64_t o = 0; o < nline; ++o) {
                if (dim == 1) ew_scan_line<TR, TA>(op, a + o * A.ld, rows, 1, r + o * rows, 1);
                else ew_scan_line<TR, TA>(op, a + o, cols, A.ld, r + o, rows);
            }
            return GD_OK;
        },
        [&](gd_call &, const TA *dA, TR *dR, cudaStream_t st) {
            scan_kernel<TR, TA><<<ew_grid(nline), 256, 0, st>>>(op, dA, rows, cols, rows, dim, dR);
        },
        [](gd_call &, cudaStream_t) {});
}

template <class TA> gd_status scan_class(int op, const gd_matrix &A, int dim, gd_out &R, gd_timing *t)
{
    if (std::is_same<TA, float>::value) return scan_run<float, TA>(op, A, dim, R, t);
    return scan_run<double, TA>(op, A, dim, R, t);
}

} // namespace

extern "C" gd_status gd_ew_scan(int op, const gd_matrix *A, int dim, gd_out R, const gd_place *at,
                                gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if ((op != EW_SUM && op != EW_PROD) || (dim != 1 && dim != 2))
        return gd_fail(GD_ERR_INPUT, "internal: cumulative %d along %d", op, dim);
    if (A->pieces) return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
    const gd_status s = ew_by_class(A->cls, [&](auto z) { return scan_class<GD_EW_TYPE>(op, *A, dim, R, t); });
    t->total_ms = gd_now_ms() - t0;
    return s;
}
