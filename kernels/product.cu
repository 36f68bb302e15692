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

// Ap: A padded to mp x kp; A has leading dimension lda (a block of rows
// is contiguous on the device, lda == m).
template <class T>
void launch_prep_a(const gd_product_op &op, const T *A, T *Ap, const gd_plan &p,
                   cudaStream_t st)
{
    const int threads = 256;
    dim3 pgrid((unsigned)((p.mp + threads - 1) / threads), gd_grid_y(p.kp));
    prep_pad<T><<<pgrid, threads, 0, st>>>(A, Ap, p.m, p.k, p.mp, p.kp, (T)op.pad);
}

// B in the variant's layout (for a block, B and Bq point at its part).
template <class T>
void launch_prep_b(const gd_product_op &op, gd_layout in, const T *B, T *Bq,
                   const gd_plan &p, cudaStream_t st)
{
    const int threads = 256;
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

// The blocks of C: bi x bj of at most wi x wj. Large products of a layout
// whose blocks are products of their own get blocks of 2048 or more a side
// (a launch still fills an H100) and at most 4 a side; GD_BLOCKS=q asks
// for q a side (1 to 8, down to one tile), for tests and experiments.
struct gd_blocks {
    int bi, bj;
    int64_t wi, wj;
};

gd_blocks block_grid(const gd_product_op &op, const gd_product_variant &v, int64_t m,
                     int64_t k, int64_t n)
{
    gd_blocks g = {1, 1, m, n};
    if (!op.panels || op.b_rows || k == 0 || (v.in != GD_PADDED_BT && v.in != GD_RAW))
        return g;
    int64_t qi = m / 2048, qj = n / 2048;
    const char *env = getenv("GD_BLOCKS");
    if (env && atoi(env) >= 1) qi = qj = atoi(env);
    qi = qi < 1 ? 1 : qi > GD_MAX_SIDE ? GD_MAX_SIDE : qi;
    qj = qj < 1 ? 1 : qj > GD_MAX_SIDE ? GD_MAX_SIDE : qj;
    const int64_t mi = v.in == GD_RAW ? 1 : v.row_mult, mj = v.in == GD_RAW ? 1 : v.col_mult;
    g.wi = gd_round_up((m + qi - 1) / qi, mi);
    g.wj = gd_round_up((n + qj - 1) / qj, mj);
    g.bi = (int)((m + g.wi - 1) / g.wi);
    g.bj = (int)((n + g.wj - 1) / g.wj);
    return g;
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
    cudaStream_t st = gd_stream(), st2 = gd_stream2();
    gd_copies_begin(t);

    gd_plan p;
    memset(&p, 0, sizeof p);
    p.param = param;
    p.st = st;
    const bool raw = v.in == GD_RAW;
    p.m = m; p.k = k; p.n = n;
    p.mp = raw ? m : gd_round_up(m, v.row_mult);
    p.np = raw ? n : gd_round_up(n, v.col_mult);
    p.kp = raw ? k : gd_round_up(k, v.k_mult);
    const int64_t cm = v.padded_out ? gd_round_up(m, v.row_mult) : m;
    const int64_t cn = v.padded_out ? gd_round_up(n, v.col_mult) : n;
    const gd_blocks g = block_grid(op, v, m, k, n);
    /* A (x) A, the same array twice, in one block of rows: one upload
     * serves both operands */
    const bool same = B == A && n == m && g.bi == 1;

    gd_allocs al = {};
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
    if (same)
        dB = dA;
    else
        ALLOC(dB, k, n, "B");
    if (!raw && k > 0) {
        ALLOC(dAp, p.mp, p.kp, "padded A");
        if (v.in == GD_PADDED)
            ALLOC(dBq, p.kp, p.np, "padded B");
        else
            ALLOC(dBq, p.np, p.kp, "transposed B");
    }
    ALLOC(dC, cm, cn, "R");
    p.A = raw ? dA : dAp;
    p.B = raw ? dB : dBq;
    p.C = dC;
    p.lda = p.mp;
    p.ldb = v.in == GD_PADDED_BT ? p.np : op.b_rows ? p.n : p.kp;
    p.ldc = cm;
    if (v.work_f && k > 0) {
        const size_t bytes = v.work_f(p);
        if (bytes) {
            gd_describe(what, sizeof what, "workspace", (int64_t)(bytes / es), 1, cls);
            if ((s = gd_alloc(&al, &p.work, bytes, what))) goto done;
        }
    }
#undef ALLOC

    {
        /* Block (i, j) of C is rows i0 .. i0+mi-1 of A times columns
         * j0 .. j0+nj-1 of B. On the device A is kept as blocks of rows,
         * each contiguous (mi x k at i0 k; padded, mpi x kp at i0 kp),
         * B's blocks of columns are contiguous already (transposed: npj x
         * kp at j0 kp), and C's block is cmi x cnj at j0 cm + i0 cnj. With
         * one block all of this is the plain layout. */
        const int stages = g.bi > g.bj ? g.bi : g.bj;
        int nb = 0;
        gd_plan blk[GD_MAX_SIDE * GD_MAX_SIDE];
        int64_t blk_i0[GD_MAX_SIDE * GD_MAX_SIDE], blk_j0[GD_MAX_SIDE * GD_MAX_SIDE];
        /* GD_POISON: fill C first so that an element a kernel fails to
         * write shows (0xCD bytes: a large negative finite value) */
        if (getenv("GD_POISON") &&
            (s = gd_cuda(cudaMemsetAsync(dC, 0xCD, (size_t)(cm * cn) * es, st), "poisoning R")))
            goto done;
        /* stage q: A's block q and B's block q go up, then every block of
         * C they complete (max(i, j) == q) is computed */
        for (int q = 0; q < stages; ++q) {
            const int64_t i0 = q * g.wi, j0 = q * g.wj;
            const int64_t mi = q < g.bi ? (m - i0 < g.wi ? m - i0 : g.wi) : 0;
            const int64_t nj = q < g.bj ? (n - j0 < g.wj ? n - j0 : g.wj) : 0;
            cudaEvent_t up_a = gd_panel_event(GD_EV_UPLOAD_A + q),
                        up_b = gd_panel_event(GD_EV_UPLOAD_B + q);
            if (mi && k &&
                ((s = gd_upload((char *)dA + (size_t)(i0 * k) * es, (const char *)A + (size_t)i0 * es,
                                (size_t)m * es, (size_t)mi * es, (size_t)k, up_a,
                                "copy of A to the GPU")) ||
                 (s = gd_cuda(cudaStreamWaitEvent(st, up_a, 0), "copy of A to the GPU"))))
                goto done;
            if (nj && k && !same &&
                ((s = gd_upload((char *)dB + (size_t)(j0 * k) * es, (const char *)B + (size_t)(j0 * k) * es,
                                (size_t)(nj * k) * es, (size_t)(nj * k) * es, 1, up_b,
                                "copy of B to the GPU")) ||
                 (s = gd_cuda(cudaStreamWaitEvent(st, up_b, 0), "copy of B to the GPU"))))
                goto done;
            cudaEventRecord(gd_event(3 * q), st);
            if (k > 0 && !raw) {
                gd_plan c = p;
                if (mi) {
                    c.m = mi;
                    c.mp = gd_round_up(mi, v.row_mult);
                    if (cls == GD_SINGLE)
                        launch_prep_a<float>(op, (const float *)dA + i0 * k, (float *)dAp + i0 * p.kp, c, st);
                    else
                        launch_prep_a<double>(op, (const double *)dA + i0 * k, (double *)dAp + i0 * p.kp, c, st);
                }
                if (nj) {
                    c.n = nj;
                    c.np = gd_round_up(nj, v.col_mult);
                    /* only GD_PADDED_BT comes in blocks: the others start at 0 */
                    if (cls == GD_SINGLE)
                        launch_prep_b<float>(op, v.in, (const float *)dB + j0 * k, (float *)dBq + j0 * p.kp, c, st);
                    else
                        launch_prep_b<double>(op, v.in, (const double *)dB + j0 * k, (double *)dBq + j0 * p.kp, c, st);
                }
                if ((s = gd_cuda(cudaGetLastError(), "layout preparation kernel"))) goto done;
                if (v.inspect &&
                    (s = v.inspect(p, cls, mi ? (const char *)dAp + (size_t)(i0 * p.kp) * es : NULL,
                                   mi ? gd_round_up(mi, v.row_mult) : 0,
                                   nj ? (const char *)dBq + (size_t)(j0 * p.kp) * es : NULL,
                                   nj ? gd_round_up(nj, v.col_mult) : 0, q == 0)))
                    goto done;
            }
            cudaEventRecord(gd_event(3 * q + 1), st);
            cudaEventRecord(gd_panel_event(GD_EV_PREPARED + q), st);
            cudaStreamWaitEvent(st2, gd_panel_event(GD_EV_PREPARED + q), 0);
            snprintf(what, sizeof what, "%s kernel launch", op.name);
            int in_stage = 0;
            for (int i = 0; i < g.bi; ++i)
                for (int j = 0; j < g.bj; ++j) {
                    if ((i > j ? i : j) != q) continue;
                    gd_plan &c = blk[nb];
                    c = p;
                    const int64_t bi0 = i * g.wi, bj0 = j * g.wj;
                    c.m = m - bi0 < g.wi ? m - bi0 : g.wi;
                    c.n = n - bj0 < g.wj ? n - bj0 : g.wj;
                    if (g.bi * g.bj > 1) {
                        c.mp = raw ? c.m : gd_round_up(c.m, v.row_mult);
                        c.np = raw ? c.n : gd_round_up(c.n, v.col_mult);
                        const int64_t cmi = v.padded_out ? c.mp : c.m,
                                      cnj = v.padded_out ? c.np : c.n;
                        c.A = (const char *)p.A + (size_t)(bi0 * (raw ? k : p.kp)) * es;
                        c.B = (const char *)p.B + (size_t)(bj0 * (raw ? k : p.kp)) * es;
                        c.C = (char *)dC + (size_t)(bj0 * cm + bi0 * cnj) * es;
                        c.lda = c.mp;
                        c.ldb = raw ? k : c.np;
                        c.ldc = cmi;
                    }
                    c.panel = nb;
                    c.st = in_stage++ % 2 ? st2 : st;
                    blk_i0[nb] = bi0;
                    blk_j0[nb] = bj0;
                    if (k == 0) {
                        const int threads = 256;
                        if (cls == GD_SINGLE)
                            fill<float><<<blocks_for(cm * cn, threads), threads, 0, c.st>>>((float *)dC, cm * cn, (float)op.empty_k);
                        else
                            fill<double><<<blocks_for(cm * cn, threads), threads, 0, c.st>>>((double *)dC, cm * cn, op.empty_k);
                    } else if ((s = run(c))) {
                        goto done;
                    }
                    if ((s = gd_cuda(cudaGetLastError(), what))) goto done;
                    cudaEventRecord(gd_panel_event(nb), c.st);
                    ++nb;
                }
            /* the stage ends when both streams are through it */
            cudaEventRecord(gd_panel_event(GD_EV_JOIN + q), st2);
            cudaStreamWaitEvent(st, gd_panel_event(GD_EV_JOIN + q), 0);
            cudaEventRecord(gd_event(3 * q + 2), st);
        }
        /* the host buffer for the result is made now, while the kernels
         * run; each block goes down once its kernel is done, and the host
         * threads that copy it out of the staging slots touch R's fresh
         * pages for the first time */
        gd_describe(what, sizeof what, "R", m, n, cls);
        if ((s = gd_out_buffer(&out, (size_t)(m * n) * es, what))) goto done;
        for (int b = 0; b < nb; ++b) {
            const gd_plan &c = blk[b];
            if ((s = gd_download((char *)out.ptr + (size_t)(blk_i0[b] + blk_j0[b] * m) * es,
                                 (size_t)m * es, c.C, (size_t)c.ldc * es, (size_t)c.m * es,
                                 (size_t)c.n,
                                 gd_panel_event(b), "copy of the result from the GPU")))
                goto done;
        }
        if ((s = gd_copies_finish())) goto done;
        snprintf(what, sizeof what, "%s kernel", op.name);
        if ((s = gd_cuda(cudaStreamSynchronize(st), what))) goto done;
        for (int q = 0; q < stages; ++q) {
            t->prep_ms += gd_elapsed(3 * q, 3 * q + 1);
            t->kernel_ms += gd_elapsed(3 * q + 1, 3 * q + 2);
        }
        if (v.after && k > 0) v.after(p, cls, t);
    }
done:
    return gd_end_call(s, &al, t);
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
    const size_t es = cls == GD_SINGLE ? 4 : 8;
    gd_status s;
    if ((s = gd_check_size("A", m, k, es)) || (s = gd_check_size("B", k, n, es)) ||
        (s = gd_check_size("the result", m, n, es)))
        return s;
    const gd_product_variant *v;
    if (strcmp(name, "auto") == 0) {
        bool gpu;
        if ((s = gd_auto_device(t, &gpu))) return s;
        const char *best = cls == GD_SINGLE ? op.auto_single : op.auto_double;
        v = gd_find_variant(table, count, gpu && t->ops >= op.auto_cpu_below ? best : "cpu");
    } else if (!(v = gd_find_variant(table, count, name))) {
        return gd_fail(GD_ERR_VARIANT, "unknown variant '%s'", name);
    }
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
