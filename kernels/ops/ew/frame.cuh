/* ops/ew/frame.cuh - the frame the element-wise drivers share (ew.cu,
 * reduce.cu): the grid of an element-wise launch, the end of a kernel
 * phase (the result kept or brought down), a one-operand operation on the
 * host or the device, and an element-at-a-time map. */
#ifndef GD_EW_FRAME_CUH
#define GD_EW_FRAME_CUH

#include "ops/ew/arith.h"
#include "runtime/call.h"
#include "runtime/op.h"

#include <stdio.h>

namespace {

/* the host's loops go parallel only past this many elements: threads
 * that start and meet for a few hundred elements cost more than the work,
 * and far more where the cores are busy with something else */
enum { EW_HOST_PARALLEL = 1 << 16 };

/* R = f (A), an element at a time: a unary operation, a test or a
 * conversion */
template <class TR, class TA, class F>
__global__ void map_kernel(const TA *A, TR *R, int64_t total, F f)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < total;
         q += (int64_t)gridDim.x * blockDim.x)
        R[q] = f(A[q]);
}

/* blocks of 256 for total elements: one an element up to 32 a
 * multiprocessor, then each thread strides */
inline unsigned ew_grid(int64_t total)
{
    const int64_t b = (total + 255) / 256;
    const int64_t cap = (int64_t)(gd_sm_count() > 0 ? gd_sm_count() : 132) * 32;
    return (unsigned)(b < 1 ? 1 : b < cap ? b : cap);
}

/* the kernel phase ended on st; the result kept, or brought down */
inline gd_status ew_finish(gd_call &c, gd_out &R, const void *dR, size_t bytes, cudaStream_t st)
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

/* A one-operand operation's frame: R (bytes) from A by host(a, r) where A
 * is on the host, else on the device by dev(c, A there (tight), dR, st),
 * which queues its kernels after the phase's begin; after(c, st), once
 * the kernels are done, may fail the call (a result that must not be
 * returned) */
template <class TR, class TA, class Host, class Dev, class After>
gd_status ew_one_operand(const gd_matrix &A, gd_out &R, size_t bytes, gd_timing *t, Host host,
                         Dev dev, After after)
{
    if (A.where != GD_DEVICE) {
        snprintf(t->variant, sizeof t->variant, "cpu");
        void *buf = NULL;
        gd_status s = gd_host_result_begin(&R, bytes, "the result", &buf);
        if (!s) s = host((const TA *)A.ptr, (TR *)buf);
        return gd_host_result_end(&R, buf, bytes, s, t);
    }
    snprintf(t->variant, sizeof t->variant, "gpu");
    cudaStream_t st = gd_stream();
    gd_call c(t, "gpu");
    const void *dA = c.on_device(A, c.event(), st, "A");
    TR *dR = (TR *)(R.device ? c.alloc_kept(R, bytes ? bytes : 1, "the result")
                            : c.alloc(bytes ? bytes : 1, "the result"));
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && bytes) dev(c, (const TA *)dA, dR, st);
    c.launched("the element-wise kernel");
    if (c.ok()) after(c, st);
    return ew_finish(c, R, dR, bytes, st);
}

/* R = f (A) on the device where A is there, else on the host */
template <class TR, class TA, class F>
gd_status ew_map(const gd_matrix &A, gd_out &R, gd_timing *t, F f)
{
    const int64_t total = A.rows * A.cols;
    return ew_one_operand<TR, TA>(
        A, R, (size_t)total * sizeof(TR), t,
        [&](const TA *a, TR *r) {
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads()) if (total >= EW_HOST_PARALLEL)
            for (int64_t q = 0; q < total; ++q) r[q] = f(a[q % A.rows + A.ld * (q / A.rows)]);
            return GD_OK;
        },
        [&](gd_call &, const TA *dA, TR *dR, cudaStream_t st) {
            map_kernel<TR, TA, F><<<ew_grid(total), 256, 0, st>>>(dA, dR, total, f);
        },
        [](gd_call &, cudaStream_t) {});
}

inline bool ew_floating(gd_class c) { return c == GD_SINGLE || c == GD_DOUBLE; }

/* fn (a value of the C type of class c): a class switch, once
 * (fn a generic lambda: [&](auto z) { return run<decltype (z)> (...); }) */
template <class Fn> gd_status ew_by_class(gd_class c, Fn fn)
{
    switch (c) {
    case GD_SINGLE: return fn(float());
    case GD_DOUBLE: return fn(double());
    case GD_INT8: return fn(int8_t());
    case GD_UINT8: return fn(uint8_t());
    case GD_INT16: return fn(int16_t());
    case GD_UINT16: return fn(uint16_t());
    case GD_INT32: return fn(int32_t());
    case GD_UINT32: return fn(uint32_t());
    case GD_INT64: return fn(int64_t());
    default: return fn(uint64_t());
    }
}
#define GD_EW_TYPE decltype(z)

} // namespace

#endif
