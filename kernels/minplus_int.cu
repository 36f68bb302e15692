/* minplus_int.cu - min-plus on the integer classes on the GPU.
 *
 * R(i,j) = min over k of A(i,k) + B(k,j) with Octave's saturating integer
 * addition, in the operands' class (int8 ... uint64), bit for bit what
 * Octave's min (A(i,:)' + B(:,j)) gives.
 *
 * The tile is min-plus v5's (tile.cuh's big tile): 128x64 outputs of 128
 * threads, four blocks an SM, three cp.async stages, 8x8 outputs a thread,
 * on 32-bit lanes stepped by Hopper's DPX instructions: __viaddmin_s32 /
 * _u32 take min(a + b, c) in one instruction (a step where single
 * precision needs FADD and half a three-input min), and the s16x2 / u16x2
 * forms do it for two 16-bit halves at once: A's lanes hold two rows, B's
 * lanes the same value twice, so one instruction takes a k-step of two
 * outputs. The 64-bit lanes run double's tile (128x128 of 256 threads)
 * with 64-bit integer sums and mins.
 *
 * DPX sums wrap where Octave's saturate. A pass over the operands on the
 * device finds their smallest and largest elements, and the call takes
 * the narrowest form in which nothing can wrap:
 *
 *   int8, uint8    s16x2: every sum of two 8-bit values fits 16 bits
 *   int16, uint16  s16x2 / u16x2 where the ranges prove that every sum
 *                  stays in the class, else s32 (exact for any two)
 *   int32, uint32  s32 / u32 where the ranges prove it, else 64-bit lanes
 *                  with exact sums (the operands widened)
 *   int64, uint64  64-bit sums where the ranges prove it, else 64-bit
 *                  saturating sums
 *
 * and saturates each minimum to the class on the way out. That is
 * Octave's result: saturation is monotone, so the minimum of the
 * saturated sums is the saturated minimum of the exact sums. info.kernel
 * names the form ("dpx s16x2", "dpx s32, widened", ...).
 *
 * Padding: rows and columns past m and n are computed and never read.
 * The k-steps past k hold PA in A and PB in B, PA + PB being the lane's
 * largest value, which is also where each minimum starts: they never
 * lower a minimum, and their sum never wraps. k == 0 is the caller's (the
 * class's largest value, on the host).
 */
#include "product.h"
#include "tile.cuh"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <limits>
#include <type_traits>

namespace {

// a type's range as constants device code can read
template <class T> struct limits {
    static constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
};

enum form { S16X2, U16X2, S32, U32, S64, S64_SAT, U64, U64_SAT };
const char *const FORM_NAMES[] = {"dpx s16x2", "dpx u16x2", "dpx s32", "dpx u32",
                                  "int64",     "int64, saturating", "uint64",
                                  "uint64, saturating"};

// A form's lanes: L, rows of A a lane (PACK), the largest lane value (HI,
// where a minimum starts) and A's and B's padding (PA + PB == HI); step:
// min(a + b, acc).
template <form F> struct lanes;
template <int PACK_, bool SIGNED_, unsigned HI_, unsigned PA_> struct lanes32 {
    typedef int L;
    enum { PACK = PACK_, SIGNED = SIGNED_ };
    static constexpr unsigned HI = HI_, PA = PA_, PB = HI_ - PA_;
};
template <> struct lanes<S16X2> : lanes32<2, true, 0x7fff7fffu, 0x3fff3fffu> {
    __device__ static L step(L acc, L a, L b) { return (L)__viaddmin_s16x2(a, b, acc); }
};
template <> struct lanes<U16X2> : lanes32<2, false, 0xffffffffu, 0x7fff7fffu> {
    __device__ static L step(L acc, L a, L b) { return (L)__viaddmin_u16x2(a, b, acc); }
};
template <> struct lanes<S32> : lanes32<1, true, 0x7fffffffu, 0x3fffffffu> {
    __device__ static L step(L acc, L a, L b) { return __viaddmin_s32(a, b, acc); }
};
template <> struct lanes<U32> : lanes32<1, false, 0xffffffffu, 0x7fffffffu> {
    __device__ static L step(L acc, L a, L b) { return (L)__viaddmin_u32(a, b, acc); }
};
// 64-bit: SAT saturates each sum (else the ranges proved it exact)
template <bool SIGNED_, bool SAT> struct lanes64 {
    typedef long long L;
    enum { PACK = 1, SIGNED = SIGNED_ };
    static constexpr unsigned long long HI = SIGNED_ ? 0x7fffffffffffffffull : ~0ull;
    static constexpr unsigned long long PA = SAT ? HI : HI / 2, PB = SAT ? HI : HI - HI / 2;
    __device__ static L step(L acc, L a, L b)
    {
        const unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
        unsigned long long s = ua + ub;
        if (SAT) {
            if (SIGNED_) {
                // overflow: both operands of one sign, the sum of the other
                if ((long long)((ua ^ s) & (ub ^ s)) < 0)
                    s = (long long)ua < 0 ? 0x8000000000000000ull : 0x7fffffffffffffffull;
            } else if (s < ua) {
                s = ~0ull;
            }
        }
        if (SIGNED_) return (long long)s < acc ? (long long)s : acc;
        return s < (unsigned long long)acc ? (long long)s : acc;
    }
};
template <> struct lanes<S64> : lanes64<true, false> {};
template <> struct lanes<S64_SAT> : lanes64<true, true> {};
template <> struct lanes<U64> : lanes64<false, false> {};
template <> struct lanes<U64_SAT> : lanes64<false, true> {};

// the tile's semiring on a form's lanes (tile.cuh's stage calls step)
template <form F> struct dpx_op {
    enum { K = 1, WITNESS = 0 };
    typedef typename lanes<F>::L L;
    template <class T> __device__ static T init() { return (T)lanes<F>::HI; }
    __device__ static void step(L &acc, L a, L b) { acc = lanes<F>::step(acc, a, b); }
};

// a source element as a lane: 16-bit halves keep the value's low 16 bits
// (it fits: int8 and uint8 always, int16 and uint16 in their forms)
template <form F, class S> __device__ __forceinline__ typename lanes<F>::L lane(S lo, S hi)
{
    typedef typename lanes<F>::L L;
    if constexpr (lanes<F>::PACK == 2)
        return (L)((unsigned)(unsigned short)(int)lo | ((unsigned)(unsigned short)(int)hi << 16));
    else
        return (L)lo;
}

// Ap (mpl x kp lanes): A (m x k) in lanes, PACK rows a lane, PA past k
// (and past m, where nothing is read)
template <form F, class S>
__global__ void prepare_a(const S *__restrict__ A, int64_t m, int64_t k,
                          typename lanes<F>::L *__restrict__ Ap, int64_t mpl, int64_t kp)
{
    typedef lanes<F> LF;
    typedef typename LF::L L;
    const int64_t total = mpl * kp;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = e % mpl, c = e / mpl, i = r * LF::PACK;
        L v = (L)LF::PA;
        if (c < k && i < m) {
            const S lo = A[i + m * c];
            v = lane<F, S>(lo, LF::PACK == 2 && i + 1 < m ? A[i + 1 + m * c] : lo);
        }
        Ap[e] = v;
    }
}

// Bt (np x kp lanes) = B (k x n) transposed, in lanes (a 16-bit value in
// both halves), PB past k: through a 32 x 32 tile in shared memory, so
// that both the reads and the writes are contiguous. Block 32 x 8; block
// (x, y) takes k-steps 32x and columns 32 (y0 + y).
template <form F, class S>
__global__ void prepare_b(const S *__restrict__ B, int64_t k, int64_t n,
                          typename lanes<F>::L *__restrict__ Bt, int64_t np, int64_t kp,
                          int64_t y0)
{
    typedef lanes<F> LF;
    typedef typename LF::L L;
    __shared__ L tile[32][33];
    const int64_t c0 = blockIdx.x * (int64_t)32, j0 = (y0 + blockIdx.y) * 32;
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int q = 0; q < 32; q += 8) {
        const int64_t c = c0 + tx, j = j0 + ty + q;
        tile[ty + q][tx] = c < k && j < n ? lane<F, S>(B[c + k * j], B[c + k * j]) : (L)LF::PB;
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < 32; q += 8) {
        const int64_t j = j0 + tx, c = c0 + ty + q;
        if (j < np && c < kp) Bt[j + np * c] = tile[tx][ty + q];
    }
}

// R (m x n, class S) = the lanes' minima (C, ldc lanes a column),
// saturated to S's range
template <form F, class S>
__global__ void finish(const typename lanes<F>::L *__restrict__ C, int64_t ldc,
                       S *__restrict__ R, int64_t m, int64_t n)
{
    typedef lanes<F> LF;
    const int64_t total = m * n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e % m, j = e / m;
        __int128 v;
        if constexpr (LF::PACK == 2) {
            const unsigned h = ((unsigned)C[(i >> 1) + ldc * j] >> (16 * (i & 1))) & 0xffffu;
            v = LF::SIGNED ? (__int128)(short)h : (__int128)h;
        } else if constexpr (sizeof(typename LF::L) == 4) {
            const int x = C[i + ldc * j];
            v = LF::SIGNED ? (__int128)x : (__int128)(unsigned)x;
        } else {
            const long long x = C[i + ldc * j];
            v = LF::SIGNED ? (__int128)x : (__int128)(unsigned long long)x;
        }
        const __int128 lo = (__int128)limits<S>::lo, hi = (__int128)limits<S>::hi;
        R[e] = (S)(v < lo ? lo : v > hi ? hi : v);
    }
}

// r[0] = the smallest, r[1] = the largest of x (count elements), as long
// long (signed S) or unsigned long long (unsigned S); r starts at
// (largest, smallest) of that type
template <class S>
__global__ void range(const S *__restrict__ x, int64_t count, unsigned long long *r)
{
    typedef typename std::conditional<std::is_signed<S>::value, long long,
                                      unsigned long long>::type W;
    W lo = limits<W>::hi, hi = limits<W>::lo;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x) {
        const W v = (W)x[e];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const W a = __shfl_xor_sync(0xffffffffu, lo, o), b = __shfl_xor_sync(0xffffffffu, hi, o);
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin((W *)&r[0], lo);
        atomicMax((W *)&r[1], hi);
    }
}

// Which form takes the class, given the operands' ranges (lo, hi of A and
// of B, as the range kernel leaves them): the narrowest in which no sum
// can wrap.
form choose(gd_class cls, const unsigned long long ra[2], const unsigned long long rb[2],
            bool *widened)
{
    *widened = false;
    const bool sgn = cls == GD_INT8 || cls == GD_INT16 || cls == GD_INT32 || cls == GD_INT64;
    // the smallest and largest sums, exactly
    const __int128 smin = sgn ? (__int128)(long long)ra[0] + (long long)rb[0]
                              : (__int128)ra[0] + rb[0];
    const __int128 smax = sgn ? (__int128)(long long)ra[1] + (long long)rb[1]
                              : (__int128)ra[1] + rb[1];
    switch (cls) {
    case GD_INT8:
    case GD_UINT8:
        *widened = true;
        return S16X2;
    case GD_INT16:
        if (smin >= INT16_MIN && smax <= INT16_MAX) return S16X2;
        *widened = true;
        return S32;
    case GD_UINT16:
        if (smax <= UINT16_MAX) return U16X2;
        *widened = true;
        return S32;
    case GD_INT32:
        if (smin >= INT32_MIN && smax <= INT32_MAX) return S32;
        *widened = true;
        return S64;
    case GD_UINT32:
        if (smax <= UINT32_MAX) return U32;
        *widened = true;
        return S64;
    case GD_INT64:
        return smin >= INT64_MIN && smax <= INT64_MAX ? S64 : S64_SAT;
    default:
        return smax <= (__int128)UINT64_MAX ? U64 : U64_SAT;
    }
}

/* The device memory and stream of one call, for the form's launch. */
struct call {
    const void *A, *B; // the operands, tight, in their class
    int64_t m, k, n;
    gd_allocs *al;
    cudaStream_t st;
};

/* the call's timing events (gd_event) */
enum { EV_PREP = 1, EV_KERNEL = 2, EV_KERNEL_END = 3, EV_DONE = 4 };

// prepares the lanes, runs the tile and saturates into dR: form F, class S
template <form F, class S> gd_status run(const call &c, void *dR)
{
    typedef lanes<F> LF;
    typedef typename LF::L L;
    typedef gd_tile::shape<L> Sh;
    enum { BK = sizeof(L) == 4 ? 16 : 8 };
    const int64_t ml = (c.m + LF::PACK - 1) / LF::PACK;
    const int64_t mpl = gd_round_up(ml, 8 * Sh::TX), np = gd_round_up(c.n, 8 * Sh::TY),
                  kp = gd_round_up(c.k, BK);
    char what[96];
    void *Ap, *Bt, *C;
    gd_status s;
    snprintf(what, sizeof what, "A's lanes (%lld x %lld, %d bytes each)", (long long)mpl,
             (long long)kp, (int)sizeof(L));
    if ((s = gd_alloc(c.al, &Ap, (size_t)(mpl * kp) * sizeof(L), what))) return s;
    snprintf(what, sizeof what, "B's lanes (%lld x %lld, %d bytes each)", (long long)np,
             (long long)kp, (int)sizeof(L));
    if ((s = gd_alloc(c.al, &Bt, (size_t)(np * kp) * sizeof(L), what))) return s;
    snprintf(what, sizeof what, "the minima's lanes (%lld x %lld, %d bytes each)",
             (long long)mpl, (long long)np, (int)sizeof(L));
    if ((s = gd_alloc(c.al, &C, (size_t)(mpl * np) * sizeof(L), what))) return s;
    if (getenv("GD_POISON") &&
        (s = gd_cuda(cudaMemsetAsync(C, 0x5a, (size_t)(mpl * np) * sizeof(L), c.st),
                     "poisoning the minima")))
        return s;
    cudaEventRecord(gd_event(EV_PREP), c.st);
    prepare_a<F, S><<<gd_blocks_for(mpl * kp, 256), 256, 0, c.st>>>((const S *)c.A, c.m, c.k, (L *)Ap, mpl, kp);
    for (int64_t y0 = 0; y0 < np / 32; y0 += 65535) {
        const dim3 grid((unsigned)(kp / 32 + 1), gd_grid_y(np / 32 - y0));
        prepare_b<F, S><<<grid, dim3(32, 8), 0, c.st>>>((const S *)c.B, c.k, c.n, (L *)Bt, np, kp, y0);
    }
    if ((s = gd_cuda(cudaGetLastError(), "integer min-plus preparation"))) return s;
    cudaEventRecord(gd_event(EV_KERNEL), c.st);
    typedef gd_tile::layout<Sh::TX, Sh::TY, Sh::MINB, Sh::ASYNC> Lay;
    gd_tile::launch_big<dpx_op<F>, L, BK, Lay>((const L *)Ap, (const L *)Bt, (L *)C, mpl, np,
                                                kp, kp, 0, 1, c.st);
    if ((s = gd_cuda(cudaGetLastError(), "integer min-plus kernel"))) return s;
    cudaEventRecord(gd_event(EV_KERNEL_END), c.st);
    finish<F, S><<<gd_blocks_for(c.m * c.n, 256), 256, 0, c.st>>>((const L *)C, mpl, (S *)dR, c.m, c.n);
    return gd_cuda(cudaGetLastError(), "integer min-plus saturation");
}

// the forms a class can take (choose): the others are never instantiated
template <class S> gd_status run_class(form f, const call &c, void *dR)
{
    if constexpr (sizeof(S) == 1) return run<S16X2, S>(c, dR);
    if constexpr (std::is_same<S, int16_t>::value)
        return f == S16X2 ? run<S16X2, S>(c, dR) : run<S32, S>(c, dR);
    if constexpr (std::is_same<S, uint16_t>::value)
        return f == U16X2 ? run<U16X2, S>(c, dR) : run<S32, S>(c, dR);
    if constexpr (std::is_same<S, int32_t>::value)
        return f == S32 ? run<S32, S>(c, dR) : run<S64, S>(c, dR);
    if constexpr (std::is_same<S, uint32_t>::value)
        return f == U32 ? run<U32, S>(c, dR) : run<S64, S>(c, dR);
    if constexpr (std::is_same<S, int64_t>::value)
        return f == S64 ? run<S64, S>(c, dR) : run<S64_SAT, S>(c, dR);
    if constexpr (std::is_same<S, uint64_t>::value)
        return f == U64 ? run<U64, S>(c, dR) : run<U64_SAT, S>(c, dR);
    return gd_fail(GD_ERR_INPUT, "integer min-plus: not an integer class");
}

template <class S>
gd_status range_of(const void *x, int64_t count, unsigned long long *r, cudaStream_t st)
{
    const unsigned blocks = gd_blocks_for(count, 256) < 2048 ? gd_blocks_for(count, 256) : 2048;
    range<S><<<blocks, 256, 0, st>>>((const S *)x, count, r);
    return gd_cuda(cudaGetLastError(), "the operands' range");
}

gd_status ranges(gd_class cls, const call &c, unsigned long long *dr, unsigned long long hr[4])
{
    const bool sgn = cls == GD_INT8 || cls == GD_INT16 || cls == GD_INT32 || cls == GD_INT64;
    // (lo, hi) start at (largest, smallest)
    const unsigned long long init[4] = {sgn ? (unsigned long long)LLONG_MAX : ~0ull,
                                        sgn ? (unsigned long long)LLONG_MIN : 0ull,
                                        sgn ? (unsigned long long)LLONG_MAX : ~0ull,
                                        sgn ? (unsigned long long)LLONG_MIN : 0ull};
    gd_status s;
    if ((s = gd_cuda(cudaMemcpyAsync(dr, init, sizeof init, cudaMemcpyHostToDevice, c.st),
                     "the operands' range")))
        return s;
    const int64_t ca = c.m * c.k, cb = c.k * c.n;
#define GD_RANGE(T)                                                                        \
    if ((s = range_of<T>(c.A, ca, dr, c.st)) || (s = range_of<T>(c.B, cb, dr + 2, c.st)))  \
        return s;                                                                          \
    break;
    switch (cls) {
    case GD_INT16: GD_RANGE(int16_t)
    case GD_UINT16: GD_RANGE(uint16_t)
    case GD_INT32: GD_RANGE(int32_t)
    case GD_UINT32: GD_RANGE(uint32_t)
    case GD_INT64: GD_RANGE(int64_t)
    case GD_UINT64: GD_RANGE(uint64_t)
    default: break; // 8-bit classes need no range
    }
#undef GD_RANGE
    if ((s = gd_cuda(cudaMemcpyAsync(hr, dr, 4 * sizeof *hr, cudaMemcpyDeviceToHost, c.st),
                     "the operands' range")))
        return s;
    return gd_cuda(cudaStreamSynchronize(c.st), "the operands' range");
}

// 'all' devices divide a product from 2^36 steps a device, as min-plus
// on single and double (minplus.cu)
const double SPLIT_MIN = 68719476736.0;

} // namespace

/* R (m x n, into host memory: out, class cls) = A (m x k) (x) B (k x n),
 * host operands of one integer class, k > 0: see the top of this file.
 * t->kernel names the form. */
static gd_status int_one(gd_class cls, const void *A, const void *B, gd_out out, int64_t m,
                         int64_t k, int64_t n, gd_timing *t)
{
    gd_status s = gd_device_ready();
    if (s) return s;
    snprintf(t->variant, sizeof t->variant, "v5");
    snprintf(t->device, sizeof t->device, "%s", gd_device_name());
    t->ops = (double)m * (double)k * (double)n;
    const size_t es = gd_class_bytes(cls);
    cudaStream_t st = gd_stream();
    gd_allocs al = {};
    const void *dA = NULL, *dB = NULL;
    void *dR = NULL, *dr = NULL;
    unsigned long long hr[4] = {0, 0, 0, 0};
    bool widened = false;
    form f = S32;
    char what[96];
    const gd_matrix Am = gd_host_matrix(A, cls, m, k), Bm = gd_host_matrix(B, cls, k, n);
    gd_copies_begin(t);
    if ((s = gd_operand_device(&Am, &al, &dA, gd_panel_event(GD_EV_UPLOAD_A), st, "A")))
        goto done;
    if (B == A && m == k && k == n) {
        dB = dA;
    } else if ((s = gd_operand_device(&Bm, &al, &dB, gd_panel_event(GD_EV_UPLOAD_B), st, "B"))) {
        goto done;
    }
    gd_describe(what, sizeof what, "R", m, n, cls);
    if ((s = gd_alloc(&al, &dR, (size_t)(m * n) * es, what))) goto done;
    if ((s = gd_alloc(&al, &dr, 4 * sizeof(unsigned long long), "the operands' range")))
        goto done;
    {
        const call c = {dA, dB, m, k, n, &al, st};
        if ((s = ranges(cls, c, (unsigned long long *)dr, hr))) goto done;
        f = choose(cls, hr, hr + 2, &widened);
        snprintf(t->kernel, sizeof t->kernel, "%s%s", FORM_NAMES[f], widened ? ", widened" : "");
        switch (cls) {
        case GD_INT8: s = run_class<int8_t>(f, c, dR); break;
        case GD_UINT8: s = run_class<uint8_t>(f, c, dR); break;
        case GD_INT16: s = run_class<int16_t>(f, c, dR); break;
        case GD_UINT16: s = run_class<uint16_t>(f, c, dR); break;
        case GD_INT32: s = run_class<int32_t>(f, c, dR); break;
        case GD_UINT32: s = run_class<uint32_t>(f, c, dR); break;
        case GD_INT64: s = run_class<int64_t>(f, c, dR); break;
        case GD_UINT64: s = run_class<uint64_t>(f, c, dR); break;
        default: s = gd_fail(GD_ERR_INPUT, "integer min-plus: not an integer class");
        }
        if (s) goto done;
    }
    cudaEventRecord(gd_event(EV_DONE), st);
    /* the host result is made (and its pages advised) while the GPU computes */
    if ((s = gd_out_buffer(&out, (size_t)(m * n) * es, what))) goto done;
    if ((s = gd_download(out.ptr, (size_t)(m * n) * es, dR, (size_t)(m * n) * es, (size_t)(m * n) * es,
                         1, gd_event(EV_DONE), "copy of R from the GPU")) ||
        (s = gd_copies_finish()) ||
        (s = gd_cuda(cudaStreamSynchronize(st), "integer min-plus kernel")))
        goto done;
    t->prep_ms = gd_elapsed(EV_PREP, EV_KERNEL);
    t->kernel_ms = gd_elapsed(EV_KERNEL, EV_KERNEL_END);
done:
    return gd_end_call(s, &al, t);
}

/* Across devices: each a panel of R's columns (B's), whole A; integer
 * sums are exact, so whatever lanes a device's ranges choose, its panel
 * is the one-device panel. */
namespace {
struct int_split {
    gd_class cls;
    const void *A, *B;
    gd_out out;
    int64_t m, k, n;
};

gd_status int_part(void *c, int i, int nparts, gd_timing *t)
{
    const int_split &x = *(const int_split *)c;
    int64_t j0, j1;
    gd_part_range(x.n, 256, i, nparts, &j0, &j1);
    if (j1 == j0) return GD_OK;
    const size_t es = gd_class_bytes(x.cls);
    gd_out o = {};
    o.ptr = (char *)x.out.ptr + (size_t)(j0 * x.m) * es;
    return int_one(x.cls, x.A, (const char *)x.B + (size_t)(j0 * x.k) * es, o, x.m, x.k, j1 - j0, t);
}
} // namespace

extern "C" gd_status gd_minplus_int_gpu(gd_class cls, const void *A, const void *B, gd_out out,
                                        int64_t m, int64_t k, int64_t n, gd_timing *t)
{
    int idx[GD_MAX_DEVICES];
    const double ops = (double)m * (double)k * (double)n;
    const int nd = gd_split_devices(ops, SPLIT_MIN, (n + 255) / 256, idx);
    if (!gd_split_needed(nd, idx)) return int_one(cls, A, B, out, m, k, n, t);
    int_split x = {cls, A, B, out, m, k, n};
    char what[96];
    gd_describe(what, sizeof what, "R", m, n, cls);
    gd_status s = gd_out_buffer(&x.out, (size_t)(m * n) * gd_class_bytes(cls), what);
    if (s) return s;
    t->ops = ops;
    return gd_run_parts(nd, idx, int_part, &x, t);
}
