/* ew.cu - element-wise arithmetic on matrices (gdArray's +, -, .*, ./,
 * .\, unary - and abs): gd_ew_binary and gd_ew_unary. Octave's
 * broadcasting (each dimension of an operand the result's or 1), the
 * classes and rounding of ops/ew/arith.h, on the device where an operand
 * is there (the other uploaded), else on the host with the same code a
 * element. A thread an element, consecutive threads consecutive elements
 * of R (column-major), the operands' places from their shapes. */
#include "ops/ew/arith.h"
#include "runtime/call.h"
#include "runtime/op.h"

#include <stdio.h>
#include <string.h>
#include <type_traits>

namespace {

/* an operand's shape: its element (i, j) at i' + ld j', where i' is 0 for a
 * single row (and j' for a single column) */
struct ew_shape {
    int64_t rows, cols, ld;
    GD_EW int64_t at(const ew_shape &s, int64_t i, int64_t j)
    {
        return (s.rows == 1 ? 0 : i) + s.ld * (s.cols == 1 ? 0 : j);
    }
};

template <class TR, class TA, class TB>
__global__ void ew2_kernel(int op, const TA *A, ew_shape sa, const TB *B, ew_shape sb, TR *R,
                           int64_t rows, int64_t total, int same)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < total;
         q += (int64_t)gridDim.x * blockDim.x) {
        int64_t ia = q, ib = q;
        if (!same) {
            const int64_t i = q % rows, j = q / rows;
            ia = ew_shape::at(sa, i, j);
            ib = ew_shape::at(sb, i, j);
        }
        R[q] = ew_binary<TR, TA, TB>::apply(op, A[ia], B[ib]);
    }
}

/* R = f (A), an element at a time: a unary operation or a conversion */
template <class TR, class TA, class F>
__global__ void map_kernel(const TA *A, TR *R, int64_t total, F f)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < total;
         q += (int64_t)gridDim.x * blockDim.x)
        R[q] = f(A[q]);
}
template <class T> struct unary_f {
    int op;
    __host__ __device__ T operator()(T x) const { return ew_unary_op<T>(op, x); }
};
template <class TR, class TA> struct convert_f {
    __host__ __device__ TR operator()(TA x) const { return ew_convert<TR, TA>(x); }
};

unsigned ew_grid(int64_t total)
{
    const int64_t b = (total + 255) / 256;
    const int64_t cap = (int64_t)(gd_sm_count() > 0 ? gd_sm_count() : 132) * 32;
    return (unsigned)(b < 1 ? 1 : b < cap ? b : cap);
}

/* the kernel phase ended on st; the result kept, or brought down */
gd_status finish(gd_call &c, gd_out &R, const void *dR, size_t bytes, cudaStream_t st)
{
    c.end(GD_PHASE_KERNEL, st);
    if (!R.device) {
        const cudaEvent_t done = c.event();
        c.cuda(cudaEventRecord(done, st), "the result");
        void *h = c.host_result(R, bytes, "the result");
        if (h && bytes) c.download(h, bytes, dR, bytes, bytes, 1, done, "the result");
    }
    c.wait(st, "the element-wise operation");
    return c.finish();
}

/* (a tight operand's shape: a gdArray's, or an Octave matrix's) */
ew_shape shape_of(const gd_matrix &m) { return ew_shape{m.rows, m.cols, m.ld}; }

/* the work on the device: operands there (uploaded where on the host),
 * R kept or brought down */
template <class TR, class TA, class TB>
gd_status ew2_device(int op, const gd_matrix &A, const gd_matrix &B, int64_t rr, int64_t rc,
                     gd_out &R, gd_timing *t)
{
    cudaStream_t st = gd_stream();
    const int64_t total = rr * rc;
    const size_t bytes = (size_t)total * sizeof(TR);
    gd_call c(t, "gpu");
    const void *dA = c.on_device(A, c.event(), st, "A");
    const void *dB = c.on_device(B, c.event(), st, "B");
    TR *dR = (TR *)(R.device ? c.alloc_kept(R, bytes ? bytes : 1, "the result")
                             : c.alloc(bytes ? bytes : 1, "the result"));
    ew_shape sa = {A.rows, A.cols, A.rows}, sb = {B.rows, B.cols, B.rows}; /* (tight there) */
    const int same = A.rows == rr && A.cols == rc && B.rows == rr && B.cols == rc;
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && total)
        ew2_kernel<TR, TA, TB><<<ew_grid(total), 256, 0, st>>>(op, (const TA *)dA, sa, (const TB *)dB,
                                                              sb, dR, rr, total, same);
    c.launched("the element-wise kernel");
    return finish(c, R, dR, bytes, st);
}

template <class TR, class TA, class TB>
gd_status ew2_host(int op, const gd_matrix &A, const gd_matrix &B, int64_t rr, int64_t rc,
                   gd_out &R, gd_timing *t)
{
    const int64_t total = rr * rc;
    const size_t bytes = (size_t)total * sizeof(TR);
    void *buf = NULL;
    gd_status s = gd_host_result_begin(&R, bytes, "the result", &buf);
    if (!s) {
        const ew_shape sa = shape_of(A), sb = shape_of(B);
        const TA *a = (const TA *)A.ptr;
        const TB *b = (const TB *)B.ptr;
        TR *r = (TR *)buf;
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads())
        for (int64_t q = 0; q < total; ++q) {
            const int64_t i = q % rr, j = q / rr;
            r[q] = ew_binary<TR, TA, TB>::apply(op, a[ew_shape::at(sa, i, j)], b[ew_shape::at(sb, i, j)]);
        }
    }
    return gd_host_result_end(&R, buf, bytes, s, t);
}

template <class TR, class TA, class TB>
gd_status ew2_run(int op, const gd_matrix &A, const gd_matrix &B, int64_t rr, int64_t rc,
                  gd_out &R, gd_timing *t)
{
    const bool gpu = A.where == GD_DEVICE || B.where == GD_DEVICE;
    snprintf(t->variant, sizeof t->variant, "%s", gpu ? "gpu" : "cpu");
    return gpu ? ew2_device<TR, TA, TB>(op, A, B, rr, rc, R, t)
               : ew2_host<TR, TA, TB>(op, A, B, rr, rc, R, t);
}

/* an integer class T with itself, or beside double or single */
template <class T>
gd_status ew2_int(int op, const gd_matrix &A, const gd_matrix &B, int64_t rr, int64_t rc,
                  gd_out &R, gd_timing *t)
{
    const gd_class a = A.cls, b = B.cls;
    const bool ia = a != GD_SINGLE && a != GD_DOUBLE, ib = b != GD_SINGLE && b != GD_DOUBLE;
    if (ia && ib) return ew2_run<T, T, T>(op, A, B, rr, rc, R, t);
    if (sizeof(T) == 8)
        return gd_fail(GD_ERR_INPUT, "int64 and uint64 beside a floating-point operand are not "
                       "computed on the GPU yet (gather them, or convert the other operand)");
    if (ia) return b == GD_DOUBLE ? ew2_run<T, T, double>(op, A, B, rr, rc, R, t)
                                  : ew2_run<T, T, float>(op, A, B, rr, rc, R, t);
    return a == GD_DOUBLE ? ew2_run<T, double, T>(op, A, B, rr, rc, R, t)
                          : ew2_run<T, float, T>(op, A, B, rr, rc, R, t);
}

/* A one-operand operation's frame: R (bytes) from A by host(a, r) where A
 * is on the host, else on the device by dev(c, A there (tight), dR, st),
 * which queues its kernel after the phase's begin */
template <class TR, class TA, class Host, class Dev>
gd_status one_operand(const gd_matrix &A, gd_out &R, size_t bytes, gd_timing *t, Host host, Dev dev)
{
    if (A.where != GD_DEVICE) {
        snprintf(t->variant, sizeof t->variant, "cpu");
        void *buf = NULL;
        gd_status s = gd_host_result_begin(&R, bytes, "the result", &buf);
        if (!s) host((const TA *)A.ptr, (TR *)buf);
        return gd_host_result_end(&R, buf, bytes, s, t);
    }
    snprintf(t->variant, sizeof t->variant, "gpu");
    cudaStream_t st = gd_stream();
    gd_call c(t, "gpu");
    const void *dA = c.on_device(A, c.event(), st, "A");
    TR *dR = (TR *)(R.device ? c.alloc_kept(R, bytes ? bytes : 1, "the result")
                            : c.alloc(bytes ? bytes : 1, "the result"));
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && bytes) dev((const TA *)dA, dR, st);
    c.launched("the element-wise kernel");
    return finish(c, R, dR, bytes, st);
}

/* R = f (A) on the device where A is there, else on the host */
template <class TR, class TA, class F>
gd_status map_run(const gd_matrix &A, gd_out &R, gd_timing *t, F f)
{
    const int64_t total = A.rows * A.cols;
    return one_operand<TR, TA>(
        A, R, (size_t)total * sizeof(TR), t,
        [&](const TA *a, TR *r) {
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads())
            for (int64_t q = 0; q < total; ++q) r[q] = f(a[q % A.rows + A.ld * (q / A.rows)]);
        },
        [&](const TA *dA, TR *dR, cudaStream_t st) {
            map_kernel<TR, TA, F><<<ew_grid(total), 256, 0, st>>>(dA, dR, total, f);
        });
}

template <class T> gd_status ew1_run(int op, const gd_matrix &A, gd_out &R, gd_timing *t)
{
    return map_run<T, T>(A, R, t, unary_f<T>{op});
}

bool floating(gd_class c) { return c == GD_SINGLE || c == GD_DOUBLE; }

template <class TR, class TA> gd_status convert_run(const gd_matrix &A, gd_out &R, gd_timing *t)
{
    return map_run<TR, TA>(A, R, t, convert_f<TR, TA>{});
}

/* the source's class for a result of class TR */
template <class TR> gd_status convert_from(const gd_matrix &A, gd_out &R, gd_timing *t)
{
    switch (A.cls) {
    case GD_SINGLE: return convert_run<TR, float>(A, R, t);
    case GD_DOUBLE: return convert_run<TR, double>(A, R, t);
    case GD_INT8: return convert_run<TR, int8_t>(A, R, t);
    case GD_UINT8: return convert_run<TR, uint8_t>(A, R, t);
    case GD_INT16: return convert_run<TR, int16_t>(A, R, t);
    case GD_UINT16: return convert_run<TR, uint16_t>(A, R, t);
    case GD_INT32: return convert_run<TR, int32_t>(A, R, t);
    case GD_UINT32: return convert_run<TR, uint32_t>(A, R, t);
    case GD_INT64: return convert_run<TR, int64_t>(A, R, t);
    default: return convert_run<TR, uint64_t>(A, R, t);
    }
}

} // namespace

extern "C" gd_status gd_ew_binary(int op, const gd_matrix *A, const gd_matrix *B, gd_class rcls,
                                  gd_out R, const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    const int64_t rr = A->rows == 1 ? B->rows : A->rows, rc = A->cols == 1 ? B->cols : A->cols;
    if (op < 0 || op >= EW_NOPS2)
        return gd_fail(GD_ERR_INPUT, "internal: element-wise operation %d", op);
    if ((A->rows != rr && A->rows != 1) || (B->rows != rr && B->rows != 1) ||
        (A->cols != rc && A->cols != 1) || (B->cols != rc && B->cols != 1))
        return gd_fail(GD_ERR_SIZE, "operator: nonconformant arguments (op1 is %lldx%lld, op2 is "
                       "%lldx%lld)", (long long)A->rows, (long long)A->cols, (long long)B->rows,
                       (long long)B->cols);
    if (A->pieces || B->pieces)
        return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
    /* the class pairs Octave gives rcls for (the caller's check) */
    const bool fa = floating(A->cls), fb = floating(B->cls);
    const bool ok = rcls == GD_SINGLE   ? fa && fb
                    : rcls == GD_DOUBLE ? A->cls == GD_DOUBLE && B->cls == GD_DOUBLE
                                        : (A->cls == rcls || fa) && (B->cls == rcls || fb) && !(fa && fb);
    if (!ok) return gd_fail(GD_ERR_INPUT, "internal: a %s result of %s and %s", gd_class_name(rcls),
                            gd_class_name(A->cls), gd_class_name(B->cls));
    gd_status s;
    switch (rcls) {
    case GD_SINGLE:
        s = A->cls == GD_SINGLE
                ? (B->cls == GD_SINGLE ? ew2_run<float, float, float>(op, *A, *B, rr, rc, R, t)
                                       : ew2_run<float, float, double>(op, *A, *B, rr, rc, R, t))
                : (B->cls == GD_SINGLE ? ew2_run<float, double, float>(op, *A, *B, rr, rc, R, t)
                                       : ew2_run<float, double, double>(op, *A, *B, rr, rc, R, t));
        break;
    case GD_DOUBLE: s = ew2_run<double, double, double>(op, *A, *B, rr, rc, R, t); break;
    case GD_INT8: s = ew2_int<int8_t>(op, *A, *B, rr, rc, R, t); break;
    case GD_UINT8: s = ew2_int<uint8_t>(op, *A, *B, rr, rc, R, t); break;
    case GD_INT16: s = ew2_int<int16_t>(op, *A, *B, rr, rc, R, t); break;
    case GD_UINT16: s = ew2_int<uint16_t>(op, *A, *B, rr, rc, R, t); break;
    case GD_INT32: s = ew2_int<int32_t>(op, *A, *B, rr, rc, R, t); break;
    case GD_UINT32: s = ew2_int<uint32_t>(op, *A, *B, rr, rc, R, t); break;
    case GD_INT64: s = ew2_int<int64_t>(op, *A, *B, rr, rc, R, t); break;
    default: s = ew2_int<uint64_t>(op, *A, *B, rr, rc, R, t); break;
    }
    snprintf(t->kernel, sizeof t->kernel, "element-wise, # elements");
    t->counts[0] = rr * rc;
    t->total_ms = gd_now_ms() - t0;
    return s;
}

extern "C" gd_status gd_ew_unary(int op, const gd_matrix *A, gd_out R, const gd_place *at,
                                 gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if (op < 0 || op >= EW_NOPS1) return gd_fail(GD_ERR_INPUT, "internal: element-wise operation %d", op);
    if (A->pieces) return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
    gd_status s;
    switch (A->cls) {
    case GD_SINGLE: s = ew1_run<float>(op, *A, R, t); break;
    case GD_DOUBLE: s = ew1_run<double>(op, *A, R, t); break;
    case GD_INT8: s = ew1_run<int8_t>(op, *A, R, t); break;
    case GD_UINT8: s = ew1_run<uint8_t>(op, *A, R, t); break;
    case GD_INT16: s = ew1_run<int16_t>(op, *A, R, t); break;
    case GD_UINT16: s = ew1_run<uint16_t>(op, *A, R, t); break;
    case GD_INT32: s = ew1_run<int32_t>(op, *A, R, t); break;
    case GD_UINT32: s = ew1_run<uint32_t>(op, *A, R, t); break;
    case GD_INT64: s = ew1_run<int64_t>(op, *A, R, t); break;
    default: s = ew1_run<uint64_t>(op, *A, R, t); break;
    }
    t->total_ms = gd_now_ms() - t0;
    return s;
}

extern "C" gd_status gd_ew_convert(const gd_matrix *A, gd_class to, gd_out R, const gd_place *at,
                                   gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if (A->pieces) return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
    gd_status s;
    switch (to) {
    case GD_SINGLE: s = convert_from<float>(*A, R, t); break;
    case GD_DOUBLE: s = convert_from<double>(*A, R, t); break;
    case GD_INT8: s = convert_from<int8_t>(*A, R, t); break;
    case GD_UINT8: s = convert_from<uint8_t>(*A, R, t); break;
    case GD_INT16: s = convert_from<int16_t>(*A, R, t); break;
    case GD_UINT16: s = convert_from<uint16_t>(*A, R, t); break;
    case GD_INT32: s = convert_from<int32_t>(*A, R, t); break;
    case GD_UINT32: s = convert_from<uint32_t>(*A, R, t); break;
    case GD_INT64: s = convert_from<int64_t>(*A, R, t); break;
    default: s = convert_from<uint64_t>(*A, R, t); break;
    }
    t->total_ms = gd_now_ms() - t0;
    return s;
}

/* R = the parts side by side (dim 2: columns after columns) or one above
 * another (dim 1), every part of R's class, each on the host or the
 * device; R where its out says */
extern "C" gd_status gd_ew_cat(const gd_matrix *const *parts, int n, int dim, gd_out R,
                               const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if (n < 1) return gd_fail(GD_ERR_INPUT, "internal: nothing to put together");
    const gd_class cls = parts[0]->cls;
    const size_t es = gd_class_bytes(cls);
    int64_t rows = parts[0]->rows, cols = parts[0]->cols;
    bool device = false;
    for (int p = 0; p < n; ++p) {
        const gd_matrix &m = *parts[p];
        if (m.cls != cls || (dim == 2 ? m.rows != rows : m.cols != cols) || m.pieces)
            return gd_fail(GD_ERR_INPUT, "internal: parts that do not fit together");
        if (p) (dim == 2 ? cols : rows) += dim == 2 ? m.cols : m.rows;
        device = device || m.where == GD_DEVICE;
    }
    const size_t bytes = (size_t)(rows * cols) * es;
    snprintf(t->variant, sizeof t->variant, "%s", device ? "gpu" : "cpu");
    gd_status s;
    if (!device) {
        void *buf = NULL;
        s = gd_host_result_begin(&R, bytes, "the result", &buf);
        int64_t off = 0;
        for (int p = 0; !s && p < n; ++p) {
            const gd_matrix &m = *parts[p];
            for (int64_t j = 0; j < m.cols; ++j)
                memcpy((char *)buf + (dim == 2 ? (size_t)((off + j) * rows) : (size_t)(off + j * rows)) * es,
                       (const char *)m.ptr + (size_t)(j * m.ld) * es, (size_t)m.rows * es);
            off += dim == 2 ? m.cols : m.rows;
        }
        s = gd_host_result_end(&R, buf, bytes, s, t);
    } else {
        cudaStream_t st = gd_stream();
        gd_call c(t, "gpu");
        char *dR = (char *)(R.device ? c.alloc_kept(R, bytes ? bytes : 1, "the result")
                                     : c.alloc(bytes ? bytes : 1, "the result"));
        c.begin(GD_PHASE_KERNEL, st);
        int64_t off = 0;
        for (int p = 0; p < n && c.ok(); ++p) {
            const gd_matrix &m = *parts[p];
            const void *d = c.on_device(m, c.event(), st, "a part");
            if (d && m.rows * m.cols > 0)
                c.cuda(cudaMemcpy2DAsync(dR + (size_t)(dim == 2 ? off * rows : off) * es, (size_t)rows * es, d,
                                         (size_t)m.rows * es, (size_t)m.rows * es, (size_t)m.cols,
                                         cudaMemcpyDefault, st),
                       "a part");
            off += dim == 2 ? m.cols : m.rows;
        }
        s = finish(c, R, dR, bytes, st);
    }
    t->total_ms = gd_now_ms() - t0;
    return s;
}

namespace {

/* output o of a reduction along dim of an m x n matrix (ld): its first
 * element and the step between its elements */
template <class TR, class TA>
__global__ void reduce_kernel(int op, const TA *A, int64_t rows, int64_t cols, int64_t ld, int dim,
                              TR *R, double *I, int64_t nout)
{
    for (int64_t o = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; o < nout;
         o += (int64_t)gridDim.x * blockDim.x) {
        int64_t at = 0;
        R[o] = dim == 1 ? ew_reduce_one<TR, TA>(op, A + o * ld, rows, 1, &at)
                        : ew_reduce_one<TR, TA>(op, A + o, cols, ld, &at);
        if (I) I[o] = (double)(at + 1);
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
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads())
            for (int64_t o = 0; o < nout; ++o) {
                int64_t at = 0;
                ((TR *)buf)[o] = dim == 1 ? ew_reduce_one<TR, TA>(op, a + o * A.ld, A.rows, 1, &at)
                                          : ew_reduce_one<TR, TA>(op, a + o, A.cols, A.ld, &at);
                if (ibuf) ((double *)ibuf)[o] = (double)(at + 1);
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
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && nout)
        reduce_kernel<TR, TA><<<ew_grid(nout), 256, 0, st>>>(op, (const TA *)Ah.ptr, A.rows, A.cols, Ah.ld,
                                                            dim, dR, dI, nout);
    c.launched("the reduction kernel");
    if (I && !I->device) {
        c.end(GD_PHASE_KERNEL, st);
        const cudaEvent_t done = c.event();
        c.cuda(cudaEventRecord(done, st), "the places");
        void *h = c.host_result(*I, ib, "the places");
        if (h && ib) c.download(h, ib, dI, ib, ib, 1, done, "the places");
        c.begin(GD_PHASE_KERNEL, st);
    }
    return finish(c, R, dR, bytes, st);
}

/* sum and prod: single in single, the rest in double; max and min in A's
 * class; the count of nonzeros in double */
template <class TA>
gd_status reduce_class(int op, const gd_matrix &A, int dim, gd_out &R, gd_out *I, gd_timing *t)
{
    if (op == EW_MAX || op == EW_MIN) return reduce_run<TA, TA>(op, A, dim, R, I, t);
    if (op == EW_NNZ) return reduce_run<double, TA>(op, A, dim, R, NULL, t);
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
    gd_status s;
    switch (A->cls) {
    case GD_SINGLE: s = reduce_class<float>(op, *A, dim, R, I, t); break;
    case GD_DOUBLE: s = reduce_class<double>(op, *A, dim, R, I, t); break;
    case GD_INT8: s = reduce_class<int8_t>(op, *A, dim, R, I, t); break;
    case GD_UINT8: s = reduce_class<uint8_t>(op, *A, dim, R, I, t); break;
    case GD_INT16: s = reduce_class<int16_t>(op, *A, dim, R, I, t); break;
    case GD_UINT16: s = reduce_class<uint16_t>(op, *A, dim, R, I, t); break;
    case GD_INT32: s = reduce_class<int32_t>(op, *A, dim, R, I, t); break;
    case GD_UINT32: s = reduce_class<uint32_t>(op, *A, dim, R, I, t); break;
    case GD_INT64: s = reduce_class<int64_t>(op, *A, dim, R, I, t); break;
    default: s = reduce_class<uint64_t>(op, *A, dim, R, I, t); break;
    }
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
    return one_operand<TR, TA>(
        A, R, (size_t)(rows * cols) * sizeof(TR), t,
        [&](const TA *a, TR *r) {
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads())
            for (int64_t o = 0; o < nline; ++o) {
                if (dim == 1) ew_scan_line<TR, TA>(op, a + o * A.ld, rows, 1, r + o * rows, 1);
                else ew_scan_line<TR, TA>(op, a + o, cols, A.ld, r + o, rows);
            }
        },
        [&](const TA *dA, TR *dR, cudaStream_t st) {
            scan_kernel<TR, TA><<<ew_grid(nline), 256, 0, st>>>(op, dA, rows, cols, rows, dim, dR);
        });
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
    gd_status s;
    switch (A->cls) {
    case GD_SINGLE: s = scan_class<float>(op, *A, dim, R, t); break;
    case GD_DOUBLE: s = scan_class<double>(op, *A, dim, R, t); break;
    case GD_INT8: s = scan_class<int8_t>(op, *A, dim, R, t); break;
    case GD_UINT8: s = scan_class<uint8_t>(op, *A, dim, R, t); break;
    case GD_INT16: s = scan_class<int16_t>(op, *A, dim, R, t); break;
    case GD_UINT16: s = scan_class<uint16_t>(op, *A, dim, R, t); break;
    case GD_INT32: s = scan_class<int32_t>(op, *A, dim, R, t); break;
    case GD_UINT32: s = scan_class<uint32_t>(op, *A, dim, R, t); break;
    case GD_INT64: s = scan_class<int64_t>(op, *A, dim, R, t); break;
    default: s = scan_class<uint64_t>(op, *A, dim, R, t); break;
    }
    t->total_ms = gd_now_ms() - t0;
    return s;
}
