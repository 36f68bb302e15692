/* ew.cu - element-wise operations on matrices (gdArray's arithmetic,
 * comparisons, tests and conversions): gd_ew_binary, gd_ew_compare,
 * gd_ew_unary, gd_ew_test, gd_ew_convert and gd_ew_cat. Octave's
 * broadcasting (each dimension of an operand the result's or 1), the
 * classes and rounding of ops/ew/arith.h, on the device where an operand
 * is there (the other uploaded), else on the host with the same code an
 * element. A thread an element, consecutive threads consecutive elements
 * of R (column-major). */
#include "ops/ew/frame.cuh"

#include <string.h>
#include <type_traits>

namespace {

/* an operand's element for R's element q = i + rows j: q itself (the
 * result's shape), 0 (a scalar), j (a row), i (a column) */
enum { AT_SAME, AT_SCALAR, AT_ROW, AT_COLUMN };

int at_mode(const gd_matrix &m, int64_t rr, int64_t rc)
{
    if (m.rows == rr && m.cols == rc) return AT_SAME;
    if (m.rows == 1 && m.cols == 1) return AT_SCALAR;
    return m.rows == 1 ? AT_ROW : AT_COLUMN;
}

__host__ __device__ __forceinline__ int64_t at_index(int mode, int64_t q, int64_t i, int64_t j)
{
    return mode == AT_SAME ? q : mode == AT_SCALAR ? 0 : mode == AT_ROW ? j : i;
}

/* R = f (A, B) element-wise; the place (i, j) is worked out only where
 * an operand is a row or a column (a 64-bit division an element) */
template <class TR, class TA, class TB, class F>
__global__ void ew2_kernel(F f, const TA *A, int ma, const TB *B, int mb, TR *R, int64_t rows,
                           int64_t total)
{
    const bool split = ma >= AT_ROW || mb >= AT_ROW;
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < total;
         q += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = 0, j = 0;
        if (split) {
            j = q / rows;
            i = q - j * rows;
        }
        R[q] = f(A[at_index(ma, q, i, j)], B[at_index(mb, q, i, j)]);
    }
}

template <class TR, class TA, class TB> struct arith_f {
    int op;
    __host__ __device__ TR operator()(TA a, TB b) const { return ew_binary<TR, TA, TB>::apply(op, a, b); }
};
template <class TA, class TB> struct compare_f {
    int op;
    __host__ __device__ uint8_t operator()(TA a, TB b) const { return ew_compare<TA, TB>(op, a, b); }
};

/* R (rr x rc) = f (A, B): on the device where an operand is there (the
 * other uploaded; R kept or brought down), else on the host */
template <class TR, class TA, class TB, class F>
gd_status ew2_run(F f, const gd_matrix &A, const gd_matrix &B, int64_t rr, int64_t rc, gd_out &R,
                  gd_timing *t)
{
    const int64_t total = rr * rc;
    const size_t bytes = (size_t)total * sizeof(TR);
    const int ma = at_mode(A, rr, rc), mb = at_mode(B, rr, rc);
    if (A.where != GD_DEVICE && B.where != GD_DEVICE) {
        snprintf(t->variant, sizeof t->variant, "cpu");
        void *buf = NULL;
        gd_status s = gd_host_result_begin(&R, bytes, "the result", &buf);
        if (!s) {
            const TA *a = (const TA *)A.ptr;
            const TB *b = (const TB *)B.ptr;
            TR *r = (TR *)buf;
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads()) if (total >= EW_HOST_PARALLEL)
            for (int64_t q = 0; q < total; ++q) {
                const int64_t j = q / rr, i = q - j * rr;
                r[q] = f(a[at_index(ma, i + A.ld * j, i, A.ld * j)], b[at_index(mb, i + B.ld * j, i, B.ld * j)]);
            }
        }
        return gd_host_result_end(&R, buf, bytes, s, t);
    }
    snprintf(t->variant, sizeof t->variant, "gpu");
    cudaStream_t st = gd_stream();
    gd_call c(t, "gpu");
    const void *dA = c.on_device(A, c.event(), st, "A");
    const void *dB = c.on_device(B, c.event(), st, "B");
    TR *dR = (TR *)(R.device ? c.alloc_kept(R, bytes ? bytes : 1, "the result")
                             : c.alloc(bytes ? bytes : 1, "the result"));
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && total)
        ew2_kernel<TR, TA, TB, F><<<ew_grid(total), 256, 0, st>>>(f, (const TA *)dA, ma, (const TB *)dB, mb, dR, rr, total);
    c.launched("the element-wise kernel");
    return ew_finish(c, R, dR, bytes, st);
}

template <class TR, class TA, class TB>
gd_status arith_run(int op, const gd_matrix &A, const gd_matrix &B, int64_t rr, int64_t rc,
                    gd_out &R, gd_timing *t)
{
    return ew2_run<TR, TA, TB>(arith_f<TR, TA, TB>{op}, A, B, rr, rc, R, t);
}

/* an integer class T with itself, or beside double or single */
template <class T>
gd_status arith_int(int op, const gd_matrix &A, const gd_matrix &B, int64_t rr, int64_t rc,
                    gd_out &R, gd_timing *t)
{
    const gd_class a = A.cls, b = B.cls;
    const bool ia = !ew_floating(a), ib = !ew_floating(b);
    if (ia && ib) return arith_run<T, T, T>(op, A, B, rr, rc, R, t);
    if (sizeof(T) == 8)
        return gd_fail(GD_ERR_INPUT, "int64 and uint64 beside a floating-point operand are not "
                       "computed on the GPU yet (gather them, or convert the other operand)");
    if (ia) return b == GD_DOUBLE ? arith_run<T, T, double>(op, A, B, rr, rc, R, t)
                                  : arith_run<T, T, float>(op, A, B, rr, rc, R, t);
    return a == GD_DOUBLE ? arith_run<T, double, T>(op, A, B, rr, rc, R, t)
                          : arith_run<T, float, T>(op, A, B, rr, rc, R, t);
}

/* the comparisons: A of class TA beside B of its own class, or of a
 * floating class beside an integer one (either way round) */
template <class TA, class TB>
gd_status compare_run(int op, const gd_matrix &A, const gd_matrix &B, int64_t rr, int64_t rc,
                      gd_out &R, gd_timing *t)
{
    return ew2_run<uint8_t, TA, TB>(compare_f<TA, TB>{op}, A, B, rr, rc, R, t);
}
template <class TA>
gd_status compare_b(int op, const gd_matrix &A, const gd_matrix &B, int64_t rr, int64_t rc,
                    gd_out &R, gd_timing *t)
{
    if (B.cls == A.cls) return compare_run<TA, TA>(op, A, B, rr, rc, R, t);
    if constexpr (std::is_integral<TA>::value) /* (B floating: the caller's check) */
        return B.cls == GD_SINGLE ? compare_run<TA, float>(op, A, B, rr, rc, R, t)
                                  : compare_run<TA, double>(op, A, B, rr, rc, R, t);
    else
        return ew_by_class(B.cls, [&](auto z) { return compare_run<TA, GD_EW_TYPE>(op, A, B, rr, rc, R, t); });
}

template <class T> struct unary_f {
    int op;
    __host__ __device__ T operator()(T x) const { return ew_unary_op<T>(op, x); }
};
template <class T> gd_status unary_run(int op, const gd_matrix &A, gd_out &R, gd_timing *t)
{
    return ew_map<T, T>(A, R, t, unary_f<T>{op});
}

/* a test an element; where NaN has no answer (logical, ~), *nan set */
template <class T>
__global__ void test_kernel(int op, const T *A, uint8_t *R, int64_t total, int *nan)
{
    bool seen = false;
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < total;
         q += (int64_t)gridDim.x * blockDim.x) {
        const T x = A[q];
        R[q] = ew_test<T>(op, x);
        seen = seen || x != x;
    }
    if (seen && nan) atomicOr(nan, 1);
}

template <class T> gd_status test_run(int op, const gd_matrix &A, gd_out &R, gd_timing *t)
{
    const int64_t total = A.rows * A.cols;
    const bool truth = (op == EW_TRUTH || op == EW_NOT) && !std::is_integral<T>::value;
    int *dnan = NULL;
    const char *nan_msg = "invalid conversion from NaN to logical";
    return ew_one_operand<uint8_t, T>(
        A, R, (size_t)total, t,
        [&](const T *a, uint8_t *r) {
            bool seen = false;
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads()) reduction(|| : seen) if (total >= EW_HOST_PARALLEL)
            for (int64_t q = 0; q < total; ++q) {
                const T x = a[q % A.rows + A.ld * (q / A.rows)];
                r[q] = ew_test<T>(op, x);
                seen = seen || x != x;
            }
            return truth && seen ? gd_fail(GD_ERR_INPUT, "%s", nan_msg) : GD_OK;
        },
        [&](gd_call &c, const T *dA, uint8_t *dR, cudaStream_t st) {
            if (truth) {
                dnan = (int *)c.alloc(sizeof(int), "a flag");
                c.cuda(cudaMemsetAsync(dnan, 0, sizeof(int), st), "a flag");
            }
            if (c.ok()) test_kernel<T><<<ew_grid(total), 256, 0, st>>>(op, dA, dR, total, dnan);
        },
        [&](gd_call &c, cudaStream_t st) {
            if (!dnan) return;
            int h = 0;
            c.cuda(cudaMemcpyAsync(&h, dnan, sizeof h, cudaMemcpyDeviceToHost, st), "a flag");
            c.wait(st, "the test");
            if (c.ok() && h) c.fail(GD_ERR_INPUT, "%s", nan_msg);
        });
}

template <class TR, class TA> struct convert_f {
    __host__ __device__ TR operator()(TA x) const { return ew_convert<TR, TA>(x); }
};
template <class TR, class TA> gd_status convert_run(const gd_matrix &A, gd_out &R, gd_timing *t)
{
    return ew_map<TR, TA>(A, R, t, convert_f<TR, TA>{});
}
/* the source's class for a result of class TR */
template <class TR> gd_status convert_from(const gd_matrix &A, gd_out &R, gd_timing *t)
{
    return ew_by_class(A.cls, [&](auto z) { return convert_run<TR, GD_EW_TYPE>(A, R, t); });
}

/* the common checks of two operands: R's size (rr x rc) */
gd_status two_operands(const gd_matrix *A, const gd_matrix *B, int64_t *rr, int64_t *rc)
{
    *rr = A->rows == 1 ? B->rows : A->rows;
    *rc = A->cols == 1 ? B->cols : A->cols;
    if ((A->rows != *rr && A->rows != 1) || (B->rows != *rr && B->rows != 1) ||
        (A->cols != *rc && A->cols != 1) || (B->cols != *rc && B->cols != 1))
        return gd_fail(GD_ERR_SIZE, "operator: nonconformant arguments (op1 is %lldx%lld, op2 is "
                       "%lldx%lld)", (long long)A->rows, (long long)A->cols, (long long)B->rows,
                       (long long)B->cols);
    if (A->pieces || B->pieces)
        return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
    return GD_OK;
}

} // namespace

extern "C" gd_status gd_ew_binary(int op, const gd_matrix *A, const gd_matrix *B, gd_class rcls,
                                  gd_out R, const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if (op < 0 || op >= EW_NOPS2)
        return gd_fail(GD_ERR_INPUT, "internal: element-wise operation %d", op);
    int64_t rr, rc;
    gd_status s = two_operands(A, B, &rr, &rc);
    if (s) return s;
    /* the class pairs Octave gives rcls for (the caller's check) */
    const bool fa = ew_floating(A->cls), fb = ew_floating(B->cls);
    const bool ok = rcls == GD_SINGLE   ? fa && fb
                    : rcls == GD_DOUBLE ? A->cls == GD_DOUBLE && B->cls == GD_DOUBLE
                                        : (A->cls == rcls || fa) && (B->cls == rcls || fb) && !(fa && fb);
    if (!ok) return gd_fail(GD_ERR_INPUT, "internal: a %s result of %s and %s", gd_class_name(rcls),
                            gd_class_name(A->cls), gd_class_name(B->cls));
    switch (rcls) {
    case GD_SINGLE:
        s = A->cls == GD_SINGLE
                ? (B->cls == GD_SINGLE ? arith_run<float, float, float>(op, *A, *B, rr, rc, R, t)
                                       : arith_run<float, float, double>(op, *A, *B, rr, rc, R, t))
                : (B->cls == GD_SINGLE ? arith_run<float, double, float>(op, *A, *B, rr, rc, R, t)
                                       : arith_run<float, double, double>(op, *A, *B, rr, rc, R, t));
        break;
    case GD_DOUBLE: s = arith_run<double, double, double>(op, *A, *B, rr, rc, R, t); break;
    default: s = ew_by_class(rcls, [&](auto z) { return arith_int<GD_EW_TYPE>(op, *A, *B, rr, rc, R, t); }); break;
    }
    snprintf(t->kernel, sizeof t->kernel, "element-wise, # elements");
    t->counts[0] = rr * rc;
    t->total_ms = gd_now_ms() - t0;
    return s;
}

extern "C" gd_status gd_ew_compare(int op, const gd_matrix *A, const gd_matrix *B, gd_out R,
                                   const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if (op < 0 || op >= EW_NCMP) return gd_fail(GD_ERR_INPUT, "internal: comparison %d", op);
    int64_t rr, rc;
    gd_status s = two_operands(A, B, &rr, &rc);
    if (s) return s;
    const bool fa = ew_floating(A->cls), fb = ew_floating(B->cls);
    if ((op == EW_AND || op == EW_OR) ? A->cls != GD_UINT8 || B->cls != GD_UINT8
                                      : A->cls != B->cls && !fa && !fb)
        return gd_fail(GD_ERR_INPUT, "internal: a comparison of %s and %s", gd_class_name(A->cls),
                       gd_class_name(B->cls));
    s = ew_by_class(A->cls, [&](auto z) { return compare_b<GD_EW_TYPE>(op, *A, *B, rr, rc, R, t); });
    snprintf(t->kernel, sizeof t->kernel, "element-wise, # elements");
    t->counts[0] = rr * rc;
    t->total_ms = gd_now_ms() - t0;
    return s;
}

namespace {
/* a one-operand entry: op checked against nops, run (A's class's value)
 * the work */
template <class Run>
gd_status one_operand_entry(int op, int nops, const gd_matrix *A, gd_out &R, const gd_place *at,
                            gd_timing *t, Run run)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if (op < 0 || op >= nops) return gd_fail(GD_ERR_INPUT, "internal: element-wise operation %d", op);
    if (A->pieces) return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
    const gd_status s = ew_by_class(A->cls, run);
    t->total_ms = gd_now_ms() - t0;
    return s;
}
} // namespace

extern "C" gd_status gd_ew_unary(int op, const gd_matrix *A, gd_out R, const gd_place *at,
                                 gd_timing *t)
{
    return one_operand_entry(op, EW_NOPS1, A, R, at, t,
                             [&](auto z) { return unary_run<GD_EW_TYPE>(op, *A, R, t); });
}

extern "C" gd_status gd_ew_test(int op, const gd_matrix *A, gd_out R, const gd_place *at,
                                gd_timing *t)
{
    return one_operand_entry(op, EW_NTEST, A, R, at, t,
                             [&](auto z) { return test_run<GD_EW_TYPE>(op, *A, R, t); });
}

extern "C" gd_status gd_ew_convert(const gd_matrix *A, gd_class to, gd_out R, const gd_place *at,
                                   gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if (A->pieces) return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
    const gd_status s = ew_by_class(to, [&](auto z) { return convert_from<GD_EW_TYPE>(*A, R, t); });
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
        s = ew_finish(c, R, dR, bytes, st);
    }
    t->total_ms = gd_now_ms() - t0;
    return s;
}

