/* ops/ew/fuse.cu - gdArray's arrayfun: a chain of element-wise operations
 * in one pass (gd_ew_fused).
 *
 * The program (gd.h's gd_fuse_program, made by octave/private/
 * __gd_arrayfun__.m from a function handle) is a list of instructions on
 * an accumulator: load an operand, apply a binary operation with an
 * operand (an input's element, a constant or a saved value), a unary one,
 * a comparison, or save the accumulator. Every element runs the whole
 * list: each input is read once where it is named and the result written
 * once, so a chain of k operations makes one pass over memory instead of
 * k. The operations are ops/ew/arith.h's, the very functions the unfused
 * kernels apply, in one floating class (single or double: constants and
 * logical inputs converted first, as Octave converts the operand of the
 * other class), so a fused chain gives the unfused chain's bits.
 *
 * Each chain is compiled at its first use (NVRTC, compile.cuh) into
 * straight-line code. Where NVRTC is missing, or GD_NVRTC=0, a kernel
 * interprets the list (it lives in the kernel's parameters, read by every
 * thread at once) for four elements a thread, so its decoding costs a
 * quarter an element; the instructions' operands and the accumulators
 * stay in registers, saved values in a small local array.
 *
 * The program's instructions (gd_fuse_program): n on an accumulator, each
 * an op with an operand (kind: none, input arg, constant k[arg], saved
 * value arg): op < EW_NOPS2 a binary operation (acc op operand, or
 * operand op acc where swap), GD_FUSE_UNARY + u unary operation u of acc,
 * GD_FUSE_CMP + c comparison c (0 or 1), GD_FUSE_LOAD acc = operand,
 * GD_FUSE_STORE saved value arg = acc. Constants are converted to the
 * class as Octave converts the other operand. An element whose result Octave
 * would make complex (sqrt, log or log2 of a negative, log1p below -1, a
 * negative base to a power that is not whole) sets a flag, and the caller
 * refuses the result as the unfused operations do. */
#include "ops/ew/frame.cuh"
#include "ops/ew/fuse.h"

#include <string.h>

#ifndef GD_NO_CUDA /* the chains compiled at run time (compile.cuh) */
#include "ew_text.h"

#include <dlfcn.h>
#include <nvrtc.h>
#include <pthread.h>

#include <string>
#include <unordered_map>
#endif

namespace {

enum { FUSE_E = 4 };

struct fuse_args {
    gd_fuse_program p;
    const void *in[GD_FUSE_INPUTS];
    int cls[GD_FUSE_INPUTS];
};

/* instruction i's operand for element q (saved: the saved values, step
 * apart, read only for a saved operand) */
template <class T>
GD_EW T fuse_operand(const fuse_args &a, int i, int64_t q, T acc, const T *saved, int step)
{
    const int kind = a.p.kind[i], arg = a.p.arg[i];
    if (kind == GD_FUSE_INPUT) return fuse_load<T>(a.in[arg], a.cls[arg], q);
    if (kind == GD_FUSE_CONST) return (T)a.p.k[arg];
    if (kind == GD_FUSE_SLOT) return saved[arg * step];
    return acc;
}

/* the program for element q (the host's loop) */
template <class T> GD_EW T fuse_one(const fuse_args &a, int64_t q, int *bad)
{
    T acc = 0, slot[GD_FUSE_SLOTS] = {0, 0, 0, 0};
    for (int i = 0; i < a.p.n; ++i) {
        if (a.p.op[i] == GD_FUSE_STORE)
            slot[a.p.arg[i]] = acc;
        else
            *bad |= fuse_apply<T>(a.p.op[i], a.p.swap[i], acc,
                                  fuse_operand<T>(a, i, q, acc, slot, 1));
    }
    return acc;
}

/* instruction OP (a constant: its branches fold away) on FUSE_E elements;
 * bit e where element e's result would be complex */
template <int OP, class T>
__device__ __forceinline__ int fuse_all(int swap, T (&acc)[FUSE_E], const T (&v)[FUSE_E])
{
    int bad = 0;
#pragma unroll
    for (int e = 0; e < FUSE_E; ++e) bad |= fuse_apply<T>(OP, swap, acc[e], v[e]) << e;
    return bad;
}

/* op on FUSE_E elements: one switch for all of them */
template <class T>
__device__ __forceinline__ int fuse_dispatch(int op, int swap, T (&acc)[FUSE_E],
                                             const T (&v)[FUSE_E])
{
#define GD_FUSE_CASE(c)                                                                            \
    case c: return fuse_all<c, T>(swap, acc, v);
    switch (op) {
        GD_FUSE_CASE(EW_PLUS) GD_FUSE_CASE(EW_MINUS) GD_FUSE_CASE(EW_TIMES) GD_FUSE_CASE(EW_RDIVIDE)
        GD_FUSE_CASE(EW_MAX2) GD_FUSE_CASE(EW_MIN2) GD_FUSE_CASE(EW_MOD) GD_FUSE_CASE(EW_REM)
        GD_FUSE_CASE(EW_POWER)
        GD_FUSE_CASE(GD_FUSE_UNARY + EW_NEG) GD_FUSE_CASE(GD_FUSE_UNARY + EW_ABS)
        GD_FUSE_CASE(GD_FUSE_UNARY + EW_SQRT) GD_FUSE_CASE(GD_FUSE_UNARY + EW_FLOOR)
        GD_FUSE_CASE(GD_FUSE_UNARY + EW_CEIL) GD_FUSE_CASE(GD_FUSE_UNARY + EW_ROUND)
        GD_FUSE_CASE(GD_FUSE_UNARY + EW_FIX) GD_FUSE_CASE(GD_FUSE_UNARY + EW_SIGN)
        GD_FUSE_CASE(GD_FUSE_UNARY + EW_EXP) GD_FUSE_CASE(GD_FUSE_UNARY + EW_LOG)
        GD_FUSE_CASE(GD_FUSE_UNARY + EW_LOG2) GD_FUSE_CASE(GD_FUSE_UNARY + EW_LOG1P)
        GD_FUSE_CASE(GD_FUSE_UNARY + EW_EXPM1) GD_FUSE_CASE(GD_FUSE_UNARY + EW_SIN)
        GD_FUSE_CASE(GD_FUSE_UNARY + EW_COS) GD_FUSE_CASE(GD_FUSE_UNARY + EW_TANH)
        GD_FUSE_CASE(GD_FUSE_CMP + EW_EQ) GD_FUSE_CASE(GD_FUSE_CMP + EW_NE)
        GD_FUSE_CASE(GD_FUSE_CMP + EW_LT) GD_FUSE_CASE(GD_FUSE_CMP + EW_LE)
        GD_FUSE_CASE(GD_FUSE_CMP + EW_GT) GD_FUSE_CASE(GD_FUSE_CMP + EW_GE)
    default: return fuse_all<GD_FUSE_LOAD, T>(swap, acc, v);
    }
#undef GD_FUSE_CASE
}

/* saved value r as an array's element (a switch: the saved values stay in
 * registers) */
template <class T>
__device__ __forceinline__ void fuse_slot(int r, bool store, T (&x)[FUSE_E],
                                          T (&slot)[GD_FUSE_SLOTS][FUSE_E])
{
#pragma unroll
    for (int k = 0; k < GD_FUSE_SLOTS; ++k)
        if (k == r)
#pragma unroll
            for (int e = 0; e < FUSE_E; ++e) {
                if (store)
                    slot[k][e] = x[e];
                else
                    x[e] = slot[k][e];
            }
}

/* the program for FUSE_E elements a thread, q0 + e stride: each
 * instruction's switch once for the thread's elements */
template <class T, class TR>
__global__ void __launch_bounds__(256) fuse_kernel(const fuse_args a, TR *R, int64_t total, int *flag)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int bad = 0;
    for (int64_t q0 = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q0 < total;
         q0 += stride * FUSE_E) {
        T acc[FUSE_E], v[FUSE_E], slot[GD_FUSE_SLOTS][FUSE_E];
        int valid = 0;
#pragma unroll
        for (int e = 0; e < FUSE_E; ++e) {
            acc[e] = 0;
            valid |= (q0 + e * stride < total) << e;
        }
        for (int i = 0; i < a.p.n; ++i) {
            const int op = a.p.op[i], kind = a.p.kind[i], arg = a.p.arg[i];
            if (op == GD_FUSE_STORE) {
                fuse_slot<T>(arg, true, acc, slot);
                continue;
            }
            if (kind == GD_FUSE_INPUT) {
                const void *in = a.in[arg];
                const int c = a.cls[arg];
#pragma unroll
                for (int e = 0; e < FUSE_E; ++e) {
                    const int64_t q = q0 + e * stride;
                    v[e] = q < total ? fuse_load<T>(in, c, q) : (T)0;
                }
            } else if (kind == GD_FUSE_CONST) {
                const T k = (T)a.p.k[arg];
#pragma unroll
                for (int e = 0; e < FUSE_E; ++e) v[e] = k;
            } else if (kind == GD_FUSE_SLOT)
                fuse_slot<T>(arg, false, v, slot);
            else
#pragma unroll
                for (int e = 0; e < FUSE_E; ++e) v[e] = acc[e];
            /* (the elements past the end compute on zeros: not counted) */
            bad |= fuse_dispatch<T>(op, a.p.swap[i], acc, v) & valid;
        }
#pragma unroll
        for (int e = 0; e < FUSE_E; ++e) {
            const int64_t q = q0 + e * stride;
            if (q < total) R[q] = (TR)acc[e];
        }
    }
    if (bad) atomicOr(flag, 1);
}

#ifndef GD_NO_CUDA
#include "ops/ew/compile.cuh"
#endif

template <class T, class TR>
gd_status fused_run(const fuse_args &a, const gd_matrix *in, int nin, int64_t total, gd_out &R,
                    int *complex_flag, gd_timing *t)
{
    const size_t bytes = (size_t)total * sizeof(TR);
    if (nin == 0 || in[0].where != GD_DEVICE) {
        snprintf(t->variant, sizeof t->variant, "cpu");
        void *buf = NULL;
        gd_status s = gd_host_result_begin(&R, bytes, "the result", &buf);
        int bad = 0;
        if (!s) {
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads()) if (total >= EW_HOST_PARALLEL) reduction(| : bad)
            for (int64_t q = 0; q < total; ++q) ((TR *)buf)[q] = (TR)fuse_one<T>(a, q, &bad);
        }
        *complex_flag = bad;
        return gd_host_result_end(&R, buf, bytes, s, t);
    }
    snprintf(t->variant, sizeof t->variant, "gpu");
    cudaStream_t st = gd_stream();
    gd_call c(t, "gpu");
    void *chain = NULL; /* the compiled chain (a cudaKernel_t), else interpreted */
#ifndef GD_NO_CUDA
    char why[256] = "GD_NVRTC=0";
    c.begin(GD_PHASE_PREP, st);
    if (!gd_setting_is(GD_SET_NVRTC, "0"))
        chain = (void *)jit_kernel(jit_source(a, sizeof(T) == 8, sizeof(TR) == 1), why, sizeof why);
    c.end(GD_PHASE_PREP, st);
    if (chain) {
        gd_on_release(release_chains);
        snprintf(t->kernel, sizeof t->kernel, "a fused chain of # steps, compiled");
    } else {
        snprintf(t->kernel, sizeof t->kernel, "a fused chain of # steps, interpreted: %.50s", why);
    }
#endif
    fuse_args d = a;
    for (int k = 0; k < nin; ++k) d.in[k] = c.on_device(in[k], c.event(), st, "an input");
    TR *dR = (TR *)(R.device ? c.alloc_kept(R, bytes ? bytes : 1, "the result")
                            : c.alloc(bytes ? bytes : 1, "the result"));
    int *flag = (int *)c.alloc(sizeof(int), "a flag");
    c.cuda(cudaMemsetAsync(flag, 0, sizeof(int), st), "a flag");
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && total && chain) {
        long long n = (long long)total; /* (gd_in and gd_k: the arrays' own layouts) */
        int vec = ((uintptr_t)dR & 15) == 0;
        for (int k = 0; k < nin; ++k) vec &= ((uintptr_t)d.in[k] & 15) == 0;
        void *args[] = {d.in, d.p.k, &dR, &n, &vec, &flag};
        c.cuda(cudaLaunchKernel((const void *)chain, dim3(ew_grid((total + 3) / 4)), dim3(256), args, 0, st),
               "the compiled chain");
    } else if (c.ok() && total) {
        const int64_t threads = (total + FUSE_E - 1) / FUSE_E;
        fuse_kernel<T, TR><<<ew_grid(threads), 256, 0, st>>>(d, dR, total, flag);
    }
    c.launched("the fused kernel");
    int bad = 0;
    c.cuda(cudaMemcpyAsync(&bad, flag, sizeof(int), cudaMemcpyDeviceToHost, st), "a flag");
    const gd_status s = ew_finish(c, R, dR, bytes, st);
    *complex_flag = bad;
    return s;
}

} // namespace

extern "C" gd_status gd_ew_fused(const gd_fuse_program *prog, gd_class cls, int logical,
                                 const gd_matrix *in, int nin, gd_out R, int *complex_flag,
                                 const gd_place *at, gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    if (R.device) *R.device = NULL;
    *complex_flag = 0;
    if (cls != GD_SINGLE && cls != GD_DOUBLE)
        return gd_fail(GD_ERR_INPUT, "internal: a fused chain computes in single or double");
    if (nin < 1 || nin > GD_FUSE_INPUTS || prog->n < 1 || prog->n > GD_FUSE_MOST ||
        prog->nk < 0 || prog->nk > GD_FUSE_CONSTS)
        return gd_fail(GD_ERR_INPUT, "internal: a fused chain of %d instructions, %d inputs",
                       prog->n, nin);
    fuse_args a;
    memset(&a, 0, sizeof a);
    a.p = *prog;
    for (int k = 0; k < nin; ++k) {
        if (in[k].rows != in[0].rows || in[k].cols != in[0].cols)
            return gd_fail(GD_ERR_SIZE, "internal: the inputs of a fused chain differ in size");
        if (in[k].pieces)
            return gd_fail(GD_ERR_INPUT, "a gdArray in pieces on several devices: gather it first");
        if (in[k].cls != GD_SINGLE && in[k].cls != GD_DOUBLE && in[k].cls != GD_UINT8)
            return gd_fail(GD_ERR_INPUT, "internal: a fused chain's input in %s",
                           gd_class_name(in[k].cls));
        if (in[k].ld != in[k].rows && in[k].cols > 1)
            return gd_fail(GD_ERR_INPUT, "internal: a fused chain's inputs are tight");
        if ((in[k].where == GD_DEVICE) != (in[0].where == GD_DEVICE))
            return gd_fail(GD_ERR_INPUT, "internal: a fused chain's inputs in one place");
        a.in[k] = in[k].ptr;
        a.cls[k] = in[k].cls;
    }
    for (int i = 0; i < prog->n; ++i) {
        const int kind = prog->kind[i], arg = prog->arg[i];
        const int most = kind == GD_FUSE_INPUT ? nin : kind == GD_FUSE_CONST ? prog->nk
                                                   : GD_FUSE_SLOTS;
        if (kind < GD_FUSE_NONE || kind > GD_FUSE_SLOT || (kind != GD_FUSE_NONE && (arg < 0 || arg >= most)) ||
            (prog->op[i] == GD_FUSE_STORE && (arg < 0 || arg >= GD_FUSE_SLOTS)))
            return gd_fail(GD_ERR_INPUT, "internal: instruction %d of a fused chain", i + 1);
    }
    const int64_t total = in[0].rows * in[0].cols;
    snprintf(t->kernel, sizeof t->kernel, "a fused chain of # steps");
    t->counts[0] = prog->n;
    gd_status s;
    if (cls == GD_SINGLE)
        s = logical ? fused_run<float, uint8_t>(a, in, nin, total, R, complex_flag, t)
                    : fused_run<float, float>(a, in, nin, total, R, complex_flag, t);
    else
        s = logical ? fused_run<double, uint8_t>(a, in, nin, total, R, complex_flag, t)
                    : fused_run<double, double>(a, in, nin, total, R, complex_flag, t);
    t->total_ms = gd_now_ms() - t0;
    return s;
}
