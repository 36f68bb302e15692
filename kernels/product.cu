/* product.cu - the shared driver of two-operand products (see product.h). */
#include "product.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

// Ap[i + mp*k] = A[i + m*k], pad outside m x k. Consecutive threads take
// consecutive i: reads and writes are coalesced.
template <class T>
__global__ void prep_pad(const T *__restrict__ A, T *__restrict__ Ap, int64_t m,
                         int64_t k, int64_t mp, int64_t kp, T pad)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= mp) return;
    for (int64_t kk = blockIdx.y; kk < kp; kk += gridDim.y)
        Ap[i + mp * kk] = (i < m && kk < k) ? A[i + m * kk] : pad;
}

// Bt[j + np*k] = B[k + kdim*j], pad outside: a transpose through a 32x32
// shared tile (one column of padding so the column reads hit 32 banks).
template <class T>
__global__ void prep_transpose(const T *__restrict__ B, T *__restrict__ Bt,
                               int64_t kdim, int64_t n, int64_t kp, int64_t np,
                               T pad)
{
    __shared__ T tile[32][33];
    int64_t k0 = (int64_t)blockIdx.x * 32;
    for (int64_t j0 = (int64_t)blockIdx.y * 32; j0 < np; j0 += (int64_t)gridDim.y * 32) {
        for (int r = threadIdx.y; r < 32; r += blockDim.y) {
            int64_t kk = k0 + threadIdx.x, j = j0 + r;
            tile[r][threadIdx.x] = (kk < kdim && j < n) ? B[kk + kdim * j] : pad;
        }
        __syncthreads();
        for (int r = threadIdx.y; r < 32; r += blockDim.y) {
            int64_t kk = k0 + r, j = j0 + threadIdx.x;
            if (kk < kp && j < np) Bt[j + np * kk] = tile[threadIdx.x][r];
        }
        __syncthreads();
    }
}

template <class T>
__global__ void fill(T *C, int64_t count, T v)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x)
        C[e] = v;
}

unsigned blocks_for(int64_t work, int threads)
{
    int64_t b = (work + threads - 1) / threads;
    return (unsigned)(b < 65536 * 4 ? (b > 0 ? b : 1) : 65536 * 4);
}

template <class T>
void launch_prep(const gd_product_op &op, gd_layout in, const T *A, const T *B,
                 T *Ap, T *Bq, const gd_plan &p, cudaStream_t st)
{
    const int threads = 256;
    dim3 pgrid((unsigned)((p.mp + threads - 1) / threads), gd_grid_y(p.kp));
    prep_pad<T><<<pgrid, threads, 0, st>>>(A, Ap, p.m, p.k, p.mp, p.kp, (T)op.pad);
    if (op.b_rows) {
        dim3 bgrid((unsigned)((p.np + threads - 1) / threads), gd_grid_y(p.kp));
        prep_pad<T><<<bgrid, threads, 0, st>>>(B, Bq, p.n, p.k, p.np, p.kp, (T)op.pad);
    } else if (in == GD_PADDED) {
        dim3 bgrid((unsigned)((p.kp + threads - 1) / threads), gd_grid_y(p.np));
        prep_pad<T><<<bgrid, threads, 0, st>>>(B, Bq, p.k, p.n, p.kp, p.np, (T)op.pad);
    } else {
        dim3 tgrid((unsigned)((p.kp + 31) / 32), gd_grid_y((p.np + 31) / 32));
        prep_transpose<T><<<tgrid, dim3(32, 8), 0, st>>>(B, Bq, p.k, p.n, p.kp, p.np, (T)op.pad);
    }
}

} // namespace

void gd_describe(char *buf, size_t len, const char *label, int64_t rows,
                 int64_t cols, gd_class cls)
{
    snprintf(buf, len, "%s (%lld x %lld %s)", label, (long long)rows,
             (long long)cols, cls == GD_SINGLE ? "single" : "double");
}

const gd_product_variant *gd_find_variant(const gd_product_variant *table,
                                          int count, const char *name)
{
    for (int i = 0; i < count; ++i)
        if (strcmp(table[i].info.name, name) == 0) return &table[i];
    return NULL;
}

int gd_variant_infos(const gd_product_variant *table, int count,
                     gd_variant_info *infos, const gd_variant_info **list)
{
    if (!infos[0].name)
        for (int i = 0; i < count; ++i) infos[i] = table[i].info;
    *list = infos;
    return count;
}

gd_status gd_run_product(const gd_product_op &op, const gd_product_variant &v,
                         gd_class cls, const void *A, const void *B, gd_out out,
                         int64_t m, int64_t k, int64_t n, int param, gd_timing *t)
{
    const size_t es = cls == GD_SINGLE ? 4 : 8;
    gd_launcher run = cls == GD_SINGLE ? v.run_f : v.run_d;
    if (!run)
        return gd_fail(GD_ERR_INPUT, "variant '%s' has no %s kernel", v.info.name,
                       cls == GD_SINGLE ? "single" : "double");
    gd_status s = gd_device_ready();
    if (s) return s;
    snprintf(t->variant, sizeof t->variant, "%s", v.info.name);
    snprintf(t->device, sizeof t->device, "%s", gd_device_name());
    cudaStream_t st = gd_stream();

    gd_plan p;
    memset(&p, 0, sizeof p);
    p.param = param;
    const bool raw = v.in == GD_RAW;
    p.m = m; p.k = k; p.n = n;
    p.mp = raw ? m : gd_round_up(m, v.row_mult);
    p.np = raw ? n : gd_round_up(n, v.col_mult);
    p.kp = raw ? k : gd_round_up(k, v.k_mult);
    const int64_t cm = v.padded_out ? gd_round_up(m, v.row_mult) : m;
    const int64_t cn = v.padded_out ? gd_round_up(n, v.col_mult) : n;

    gd_allocs al = {};
    gd_pins pins = {};
    void *dA = NULL, *dB = NULL, *dAp = NULL, *dBq = NULL, *dC = NULL;
    char what[128];
#define ALLOC(ptr, rows, cols, label)                                          \
    do {                                                                       \
        gd_describe(what, sizeof what, label, rows, cols, cls);                \
        if ((s = gd_alloc(&al, &(ptr), (size_t)(rows) * (size_t)(cols) * es,   \
                          what)))                                              \
            goto done;                                                         \
    } while (0)
    ALLOC(dA, m, k, "A");
    ALLOC(dB, k, n, "B");
    if (!raw && k > 0) {
        ALLOC(dAp, p.mp, p.kp, "padded A");
        if (v.in == GD_PADDED)
            ALLOC(dBq, p.kp, p.np, "padded B");
        else
            ALLOC(dBq, p.np, p.kp, "transposed B");
    }
    ALLOC(dC, cm, cn, "R");
    if (v.work_f && k > 0) {
        const size_t bytes = v.work_f(p);
        if (bytes) {
            gd_describe(what, sizeof what, "workspace", (int64_t)(bytes / es), 1, cls);
            if ((s = gd_alloc(&al, &p.work, bytes, what))) goto done;
        }
    }
#undef ALLOC

    {
        /* page-locked operands upload asynchronously: the host goes on to
         * make the result array while they travel and the kernel runs */
        gd_pin(&pins, A, (size_t)(m * k) * es);
        gd_pin(&pins, B, (size_t)(k * n) * es);
        cudaEventRecord(gd_event(0), st);
        if ((s = gd_cuda(cudaMemcpyAsync(dA, A, (size_t)(m * k) * es, cudaMemcpyHostToDevice, st), "copy of A to the GPU")) ||
            (s = gd_cuda(cudaMemcpyAsync(dB, B, (size_t)(k * n) * es, cudaMemcpyHostToDevice, st), "copy of B to the GPU")))
            goto done;
        cudaEventRecord(gd_event(1), st);
        if (k > 0 && !raw) {
            if (cls == GD_SINGLE)
                launch_prep<float>(op, v.in, (const float *)dA, (const float *)dB, (float *)dAp, (float *)dBq, p, st);
            else
                launch_prep<double>(op, v.in, (const double *)dA, (const double *)dB, (double *)dAp, (double *)dBq, p, st);
            if ((s = gd_cuda(cudaGetLastError(), "layout preparation kernel"))) goto done;
        }
        p.A = raw ? dA : dAp;
        p.B = raw ? dB : dBq;
        p.C = dC;
        p.lda = p.mp;
        p.ldb = v.in == GD_PADDED_BT ? p.np : op.b_rows ? p.n : p.kp;
        p.ldc = cm;
        /* GD_POISON: fill C first so that an element a kernel fails to
         * write shows (0xCD bytes: a large negative finite value) */
        if (getenv("GD_POISON") &&
            (s = gd_cuda(cudaMemsetAsync(dC, 0xCD, (size_t)(cm * cn) * es, st), "poisoning R")))
            goto done;
        cudaEventRecord(gd_event(2), st);
        if (k == 0) {
            const int threads = 256;
            if (cls == GD_SINGLE)
                fill<float><<<blocks_for(cm * cn, threads), threads, 0, st>>>((float *)dC, cm * cn, (float)op.empty_k);
            else
                fill<double><<<blocks_for(cm * cn, threads), threads, 0, st>>>((double *)dC, cm * cn, op.empty_k);
        } else if ((s = run(p))) {
            goto done;
        }
        snprintf(what, sizeof what, "%s kernel launch", op.name);
        if ((s = gd_cuda(cudaGetLastError(), what))) goto done;
        cudaEventRecord(gd_event(3), st);
        /* the host buffer for the result is allocated (and first touched)
         * now, while the kernel runs */
        gd_describe(what, sizeof what, "R", m, n, cls);
        if ((s = gd_out_buffer(&out, (size_t)(m * n) * es, what))) goto done;
        gd_pin(&pins, out.ptr, (size_t)(m * n) * es);
        cudaEventRecord(gd_event(4), st); /* the download starts here */
        if ((s = gd_cuda(cudaMemcpy2DAsync(out.ptr, (size_t)m * es, dC, (size_t)cm * es,
                                           (size_t)m * es, (size_t)n, cudaMemcpyDeviceToHost, st),
                         "copy of the result from the GPU")))
            goto done;
        cudaEventRecord(gd_event(5), st);
        snprintf(what, sizeof what, "%s kernel", op.name);
        if ((s = gd_cuda(cudaStreamSynchronize(st), what))) goto done;
        t->upload_ms = gd_elapsed(0, 1);
        t->prep_ms = gd_elapsed(1, 2);
        t->kernel_ms = gd_elapsed(2, 3);
        t->download_ms = gd_elapsed(4, 5);
        if (v.after && k > 0) v.after(p, cls, t);
    }
done:
    return gd_end_call(s, &al, &pins, t);
}

gd_status gd_auto_device(gd_timing *t, bool *gpu)
{
    gd_status s = gd_device_ready();
    *gpu = s == GD_OK;
    if (s == GD_ERR_NOGPU) {
        snprintf(t->fallback, sizeof t->fallback, "%s", gd_last_error());
        return GD_OK;
    }
    return s;
}

static gd_status run_cpu(const gd_product_op &op, gd_class cls, const void *A,
                         const void *B, gd_out out, int64_t m, int64_t k,
                         int64_t n, int param, gd_timing *t)
{
    char what[96];
    gd_describe(what, sizeof what, "R", m, n, cls);
    gd_status s = gd_out_buffer(&out, (size_t)(m * n) * (cls == GD_SINGLE ? 4 : 8), what);
    if (s) return s;
    double t0 = gd_now_ms();
    if ((s = op.cpu(cls, A, B, out.ptr, m, k, n, param))) return s;
    t->kernel_ms = gd_now_ms() - t0;
    snprintf(t->variant, sizeof t->variant, "cpu");
    snprintf(t->device, sizeof t->device, "%s", op.device_cpu);
    return GD_OK;
}

gd_status gd_product(const gd_product_op &op, const gd_product_variant *table,
                     int count, const char *name, gd_class cls, const void *A,
                     const void *B, gd_out out, int64_t m, int64_t k, int64_t n,
                     int param, gd_timing *t)
{
    double t0 = gd_now_ms();
    memset(t, 0, sizeof *t);
    t->ops = op.ops_per_step * (double)m * (double)n * (double)k;
    if (m < 0 || k < 0 || n < 0) return gd_fail(GD_ERR_SIZE, "negative size");
    const gd_product_variant *v;
    if (strcmp(name, "auto") == 0) {
        bool gpu;
        gd_status s = gd_auto_device(t, &gpu);
        if (s) return s;
        const char *best = cls == GD_SINGLE ? op.auto_single : op.auto_double;
        v = gd_find_variant(table, count, gpu && t->ops >= op.auto_cpu_below ? best : "cpu");
    } else if (!(v = gd_find_variant(table, count, name))) {
        return gd_fail(GD_ERR_VARIANT, "unknown variant '%s'", name);
    }
    gd_status s;
    if (m == 0 || n == 0) {
        snprintf(t->variant, sizeof t->variant, "%s", v->info.name);
        s = gd_out_buffer(&out, 0, "R");
    } else if (v->info.gpu) {
        s = gd_run_product(op, *v, cls, A, B, out, m, k, n, param, t);
    } else {
        s = run_cpu(op, cls, A, B, out, m, k, n, param, t);
    }
    t->total_ms = gd_now_ms() - t0;
    return s;
}
