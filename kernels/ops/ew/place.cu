/* place.cu - where elements go (gdArray's assignment, triu and tril, and
 * arrays made on the device): gd_ew_assign, gd_ew_tri and gd_ew_fill. On
 * the device where the operand is there (or, for gd_ew_fill, where the
 * result is asked for), else on the host. */
#include "ops/ew/frame.cuh"

#include <string.h>
#include <type_traits>

namespace {

/* R(I(k)) = X(k) (X(0) for a scalar X), I's positions distinct */
template <class T>
__global__ void assign_kernel(T *R, const int64_t *I, int64_t n, const T *X, int scalar)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n;
         k += (int64_t)gridDim.x * blockDim.x)
        R[I[k]] = X[scalar ? 0 : k];
}

template <class T>
gd_status assign_run(const gd_matrix &A, const int64_t *I, int64_t n, const gd_matrix &X, gd_out &R,
                     gd_timing *t)
{
    const int64_t total = A.rows * A.cols;
    const size_t bytes = (size_t)total * sizeof(T);
    const int scalar = X.rows * X.cols == 1;
    if (A.where != GD_DEVICE && X.where != GD_DEVICE) {
        snprintf(t->variant, sizeof t->variant, "cpu");
        void *buf = NULL;
        gd_status s = gd_host_result_begin(&R, bytes, "the result", &buf);
        if (!s) {
            T *r = (T *)buf;
            const T *a = (const T *)A.ptr, *x = (const T *)X.ptr;
            for (int64_t j = 0; j < A.cols; ++j)
                memcpy(r + j * A.rows, a + j * A.ld, (size_t)A.rows * sizeof(T));
            for (int64_t k = 0; k < n; ++k) r[I[k]] = x[scalar ? 0 : k];
        }
        return gd_host_result_end(&R, buf, bytes, s, t);
    }
    snprintf(t->variant, sizeof t->variant, "gpu");
    cudaStream_t st = gd_stream();
    gd_call c(t, "gpu");
    const void *dA = c.on_device(A, c.event(), st, "A");
    const void *dX = c.on_device(X, c.event(), st, "the values");
    int64_t *dI = (int64_t *)c.alloc(n ? (size_t)n * sizeof(int64_t) : 1, "the positions");
    T *dR = (T *)(R.device ? c.alloc_kept(R, bytes ? bytes : 1, "the result")
                           : c.alloc(bytes ? bytes : 1, "the result"));
    if (dI && n)
        c.cuda(cudaMemcpyAsync(dI, I, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice, st),
               "the positions");
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && bytes) c.cuda(cudaMemcpyAsync(dR, dA, bytes, cudaMemcpyDeviceToDevice, st), "the copy");
    if (c.ok() && n) assign_kernel<T><<<ew_grid(n), 256, 0, st>>>(dR, dI, n, (const T *)dX, scalar);
    c.launched("the assignment kernel");
    return ew_finish(c, R, dR, bytes, st);
}

/* R(i, j) = A(i, j) where j - i >= k (upper) or <= k (lower), else 0 */
template <class T> struct tri_f {
    int64_t rows, k;
    int upper;
    __host__ __device__ T operator()(T x, int64_t q) const
    {
        const int64_t i = q % rows, d = q / rows - i;
        return (upper ? d >= k : d <= k) ? x : T(0);
    }
};
template <class T, class F>
__global__ void place_kernel(const T *A, T *R, int64_t total, F f)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < total;
         q += (int64_t)gridDim.x * blockDim.x)
        R[q] = f(A[q], q);
}

template <class T>
gd_status tri_run(const gd_matrix &A, int64_t k, int upper, gd_out &R, gd_timing *t)
{
    const int64_t total = A.rows * A.cols;
    const tri_f<T> f = {A.rows ? A.rows : 1, k, upper};
    return ew_one_operand<T, T>(
        A, R, (size_t)total * sizeof(T), t,
        [&](const T *a, T *r) {
            for (int64_t q = 0; q < total; ++q) r[q] = f(a[q % A.rows + A.ld * (q / A.rows)], q);
            return GD_OK;
        },
        [&](gd_call &, const T *dA, T *dR, cudaStream_t st) {
            place_kernel<T><<<ew_grid(total), 256, 0, st>>>(dA, dR, total, f);
        },
        [](gd_call &, cudaStream_t) {});
}

/* every element v (the class's value of v, as Octave converts a double) */
template <class T> __global__ void fill_kernel(T *R, int64_t total, T v)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < total;
         q += (int64_t)gridDim.x * blockDim.x)
        R[q] = v;
}

template <class T>
gd_status fill_run(int64_t rows, int64_t cols, double value, int on_device, gd_out &R, gd_timing *t)
{
    const int64_t total = rows * cols;
    const size_t bytes = (size_t)total * sizeof(T);
    const T v = ew_convert<T, double>(value);
    if (!on_device) {
        snprintf(t->variant, sizeof t->variant, "cpu");
        void *buf = NULL;
        gd_status s = gd_host_result_begin(&R, bytes, "the result", &buf);
        for (int64_t q = 0; !s && q < total; ++q) ((T *)buf)[q] = v;
        return gd_host_result_end(&R, buf, bytes, s, t);
    }
    snprintf(t->variant, sizeof t->variant, "gpu");
    cudaStream_t st = gd_stream();
    gd_call c(t, "gpu");
    T *dR = (T *)(R.device ? c.alloc_kept(R, bytes ? bytes : 1, "the result")
                           : c.alloc(bytes ? bytes : 1, "the result"));
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && total) fill_kernel<T><<<ew_grid(total), 256, 0, st>>>(dR, total, v);
    c.launched("the fill kernel");
    return ew_finish(c, R, dR, bytes, st);
}

/* a class's element as bytes of its width (assignment moves bytes) */
template <class Fn> gd_status by_width(gd_class c, Fn fn)
{
    switch (gd_class_bytes(c)) {
    case 1: return fn(uint8_t());
    case 2: return fn(uint16_t());
    case 4: return fn(uint32_t());
    default: return fn(uint64_t());
    }
}

} // namespace

extern "C" gd_status gd_ew_assign(const gd_matrix *A, const int64_t *I, int64_t n, const gd_matrix *X,
                                  gd_out R, const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if (A->pieces || X->pieces)
        return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
    if (X->cls != A->cls || (X->rows * X->cols != 1 && X->rows * X->cols != n))
        return gd_fail(GD_ERR_INPUT, "internal: %lld values of %s for %lld places in %s",
                       (long long)(X->rows * X->cols), gd_class_name(X->cls), (long long)n,
                       gd_class_name(A->cls));
    for (int64_t k = 0; k < n; ++k)
        if (I[k] < 0 || I[k] >= A->rows * A->cols)
            return gd_fail(GD_ERR_INPUT, "internal: position %lld outside the array", (long long)I[k]);
    const gd_status s = by_width(A->cls, [&](auto z) { return assign_run<GD_EW_TYPE>(*A, I, n, *X, R, t); });
    t->total_ms = gd_now_ms() - t0;
    return s;
}

extern "C" gd_status gd_ew_tri(const gd_matrix *A, int64_t k, int upper, gd_out R, const gd_place *at,
                               gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    if (A->pieces) return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
    const gd_status s = ew_by_class(A->cls, [&](auto z) { return tri_run<GD_EW_TYPE>(*A, k, upper, R, t); });
    t->total_ms = gd_now_ms() - t0;
    return s;
}

extern "C" gd_status gd_ew_fill(gd_class cls, int64_t rows, int64_t cols, double value, gd_out R,
                                const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    const int on_device = R.device != NULL;
    const gd_status s = ew_by_class(cls, [&](auto z) { return fill_run<GD_EW_TYPE>(rows, cols, value, on_device, R, t); });
    t->total_ms = gd_now_ms() - t0;
    return s;
}
