/* minplus/int.cu - min-plus on the integer classes on the GPU.
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
 * The witness ([R, K]) takes keys, (a + b) << 16 | k on the s32 / u32
 * lanes, where the ranges prove that no sum saturates and each fits 16
 * bits (run_keys), else 64-bit lanes with each sum saturated before it is
 * compared ("witness, dpx keys" / "witness, int64 lanes").
 *
 * Padding: rows and columns past m and n are computed and never read.
 * The k-steps past k hold PA in A and PB in B, PA + PB being the lane's
 * largest value, which is also where each minimum starts: they never
 * lower a minimum, and their sum never wraps. k == 0 is the caller's (the
 * class's largest value, on the host).
 */
#include "ops/product/product.h"
#include "tiles/tile.cuh"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <limits>
#include <type_traits>

namespace {

enum form { S16X2, U16X2, S32, U32, S64, S64_SAT, U64, U64_SAT, S32_KEY, U32_KEY };
const char *const FORM_NAMES[] = {"dpx s16x2", "dpx u16x2", "dpx s32", "dpx u32",
                                  "int64",     "int64, saturating", "uint64",
                                  "uint64, saturating"};

// A form's lanes: L, rows of A a lane (PACK), the largest lane value (HI,
// where a minimum starts) and A's and B's padding (PA + PB == HI); step:
// min(a + b, acc).
template <form F> struct lanes;
template <int PACK_, bool SIGNED_, unsigned HI_, unsigned PA_, bool KEYED_ = false> struct lanes32 {
    typedef int L;
    enum { PACK = PACK_, SIGNED = SIGNED_, KEYED = KEYED_ };
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
// The witness's keys (run_keys): A's lane a << 16, B's (b << 16) | k, so
// that a lane sum is the key (a + b) << 16 | k. Padding: PA + PB is the
// largest key, which no key is above (and one equal to it is the same
// minimum and k).
template <> struct lanes<S32_KEY> : lanes32<1, true, 0x7fffffffu, 0x40000000u, true> {
    __device__ static L step(L acc, L a, L b) { return __viaddmin_s32(a, b, acc); }
};
template <> struct lanes<U32_KEY> : lanes32<1, false, 0xffffffffu, 0x80000000u, true> {
    __device__ static L step(L acc, L a, L b) { return (L)__viaddmin_u32(a, b, acc); }
};
// 64-bit: SAT saturates each sum (else the ranges proved it exact)
template <bool SIGNED_, bool SAT> struct lanes64 {
    typedef long long L;
    enum { PACK = 1, SIGNED = SIGNED_, KEYED = 0 };
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

// The witness ([R, K]): 64-bit lanes holding the class's values, and each
// sum saturated to the class, as Octave's is, before it is compared. So
// the first k attaining the minimum is the first in Octave's min of the
// saturated sums: sums past intmax (or intmin) all tie there, and the
// first of them wins. (The minimum alone may compare exact sums, since
// saturation is monotone; the witness may not.) One k-step a group: w
// is the k at which the running minimum last fell, which is the first k
// attaining it, since a tie never moves it; where no sum falls below
// intmax, w stays 0, and K = 1 is Octave's answer too. Padding k-steps
// sum to intmax: never below the minimum.
template <class S> struct wlanes {
    typedef long long L;
    enum { PACK = 1, SIGNED = std::is_signed<S>::value, KEYED = 0 };
    static constexpr L PA = (L)gd_limits<S>::hi, PB = (L)gd_limits<S>::hi;
    // a + b saturated to S (a, b hold S's values)
    __device__ static L sum(L a, L b)
    {
        const unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
        unsigned long long s = ua + ub;
        if constexpr (SIGNED && sizeof(S) == 8) {
            if ((long long)((ua ^ s) & (ub ^ s)) < 0)
                s = a < 0 ? 0x8000000000000000ull : 0x7fffffffffffffffull;
            return (L)s;
        } else if constexpr (SIGNED) {
            const long long x = (long long)s; // exact: S has 32 bits or fewer
            return x < (L)gd_limits<S>::lo ? (L)gd_limits<S>::lo : x > (L)gd_limits<S>::hi ? (L)gd_limits<S>::hi : x;
        } else if constexpr (sizeof(S) == 8) {
            return (L)(s < ua ? ~0ull : s);
        } else {
            return (L)(s > (unsigned long long)gd_limits<S>::hi ? (unsigned long long)gd_limits<S>::hi : s);
        }
    }
    __device__ static bool less(L x, L y)
    {
        if constexpr (SIGNED) return x < y;
        else return (unsigned long long)x < (unsigned long long)y;
    }
};

template <class S> struct int_first {
    enum { K = 1, WITNESS = 1 };
    template <class T> __device__ static T init() { return (T)gd_limits<S>::hi; }
    template <class T, class W>
    __device__ static void stepw(T &acc, W &&w, int g, const T (&a)[1][8], const T (&b)[1][8],
                                 int r, int c)
    {
        const T x = wlanes<S>::sum(a[0][r], b[0][c]);
        if (wlanes<S>::less(x, acc)) {
            acc = x;
            w = g;
        }
    }
};

// the witness's epilogue: R (class S) and K (its k + 1), both m x n with
// leading dimension ldc, where the tile covers them
template <class S> struct store_first_int {
    enum { TILE = 0 };
    S *R;
    int *K;
    int64_t ldc, m, n;
    template <int G>
    __device__ void witness(int64_t i, int64_t j, long long v, int w, const long long *, int64_t,
                            const long long *, int64_t) const
    {
        if (i < m && j < n) {
            R[i + ldc * j] = (S)v;
            K[i + ldc * j] = w + 1;
        }
    }
};

// a source element as a lane: 16-bit halves keep the value's low 16 bits
// (it fits: int8 and uint8 always, int16 and uint16 in their forms); a
// key's lane the value's low 16 bits in its high half and, in B's lanes,
// the k-step's low 16 bits in the low half (kb; A's: 0)
template <class LF, class S>
__device__ __forceinline__ typename LF::L lane(S lo, S hi, unsigned kb = 0)
{
    typedef typename LF::L L;
    if constexpr (LF::KEYED)
        return (L)((unsigned)(unsigned long long)lo << 16 | (kb & 0xffffu));
    else if constexpr (LF::PACK == 2)
        return (L)((unsigned)(unsigned short)(int)lo | ((unsigned)(unsigned short)(int)hi << 16));
    else
        return (L)lo;
}

// Ap (mpl x kp lanes): A (m x k, leading dimension lda) in lanes, PACK
// rows a lane, PA past k (and past m, where nothing is read). This and
// the passes below run only where *gate == want (gate NULL: always): the
// forms a call may take are all queued, and the range pass's choice
// (choose_form) lets one of them through, so the host never waits for it.
template <class LF, class S>
__global__ void prepare_a(const S *__restrict__ A, int64_t lda, int64_t m, int64_t k,
                          typename LF::L *__restrict__ Ap, int64_t mpl, int64_t kp,
                          const int *__restrict__ gate, int want)
{
    typedef typename LF::L L;
    if (gate && *gate != want) return;
    const int64_t total = mpl * kp;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = e % mpl, c = e / mpl, i = r * LF::PACK;
        L v = (L)LF::PA;
        if (c < k && i < m) {
            const S lo = A[i + lda * c];
            v = lane<LF, S>(lo, LF::PACK == 2 && i + 1 < m ? A[i + 1 + lda * c] : lo);
        }
        Ap[e] = v;
    }
}

// Bt (np x kp lanes) = B (k x n) transposed, in lanes (a 16-bit value in
// both halves), PB past k: through a 32 x 32 tile in shared memory, so
// that both the reads and the writes are contiguous. Block 32 x 8; block
// (x, y) takes k-steps 32x and columns 32 (y0 + y).
template <class LF, class S>
__global__ void prepare_b(const S *__restrict__ B, int64_t ldb, int64_t k, int64_t n,
                          typename LF::L *__restrict__ Bt, int64_t np, int64_t kp,
                          int64_t y0, const int *__restrict__ gate, int want)
{
    typedef typename LF::L L;
    __shared__ L tile[32][33];
    if (gate && *gate != want) return;
    const int64_t c0 = blockIdx.x * (int64_t)32, j0 = (y0 + blockIdx.y) * 32;
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int q = 0; q < 32; q += 8) {
        const int64_t c = c0 + tx, j = j0 + ty + q;
        tile[ty + q][tx] = c < k && j < n ? lane<LF, S>(B[c + ldb * j], B[c + ldb * j], (unsigned)c)
                                          : (L)LF::PB;
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < 32; q += 8) {
        const int64_t j = j0 + tx, c = c0 + ty + q;
        if (j < np && c < kp) Bt[j + np * c] = tile[tx][ty + q];
    }
}

// R (m x n, class S, leading dimension ldr) = the lanes' minima (C, ldc
// lanes a column), saturated to S's range
template <form F, class S>
__global__ void finish(const typename lanes<F>::L *__restrict__ C, int64_t ldc,
                       S *__restrict__ R, int64_t ldr, int64_t m, int64_t n,
                       const int *__restrict__ gate, int want)
{
    typedef lanes<F> LF;
    if (gate && *gate != want) return;
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
        const __int128 lo = (__int128)gd_limits<S>::lo, hi = (__int128)gd_limits<S>::hi;
        R[i + ldr * j] = (S)(v < lo ? lo : v > hi ? hi : v);
    }
}

// One part of the keys' witness (run_keys): the part's minima (C, ldc
// lanes a column, keys of k-steps k0 ...) into R (class S) and K (k + 1),
// both m x n of leading dimension ldr: the first part's as they are, a
// later one's where its sum is below R (equal sums keep the earlier k)
template <form F, class S>
__global__ void take_keys(const int *__restrict__ C, int64_t ldc, S *__restrict__ R,
                          int *__restrict__ K, int64_t ldr, int64_t m, int64_t n, int64_t k0,
                          const int *__restrict__ gate, int want)
{
    if (gate && *gate != want) return;
    const int64_t total = m * n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e % m, j = e / m;
        const unsigned key = (unsigned)C[i + ldc * j];
        const long long v = lanes<F>::SIGNED ? (long long)((int)key >> 16) : (long long)(key >> 16);
        const int64_t o = i + ldr * j;
        if (k0 == 0 || v < (long long)R[o]) {
            R[o] = (S)v;
            K[o] = (int)(k0 + (key & 0xffffu) + 1);
        }
    }
}

// r[0] = the smallest, r[1] = the largest of x (rows x cols, leading
// dimension ld), as long long (signed S) or unsigned long long (unsigned
// S); r starts at (largest, smallest) of that type (range_init)
template <class S>
__global__ void range(const S *__restrict__ x, int64_t ld, int64_t rows, int64_t cols,
                      unsigned long long *r)
{
    typedef typename std::conditional<std::is_signed<S>::value, long long,
                                      unsigned long long>::type W;
    W lo = gd_limits<W>::hi, hi = gd_limits<W>::lo;
    const int64_t count = rows * cols;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x) {
        // (a tight operand, the driver's case, costs no division)
        const W v = (W)x[ld == rows ? e : e % rows + ld * (e / rows)];
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

// Whether every sum of the operands' ranges (lo, hi of A and of B, as the
// range kernel leaves them; signed or not as the class) fits form f, a
// class's narrow form (class_forms); a wide form holds every sum.
// the smallest and largest sums of the ranges, exactly
__device__ void sum_bounds(bool sgn, const unsigned long long ra[2], const unsigned long long rb[2],
                           __int128 *smin, __int128 *smax)
{
    *smin = sgn ? (__int128)(long long)ra[0] + (long long)rb[0] : (__int128)ra[0] + rb[0];
    *smax = sgn ? (__int128)(long long)ra[1] + (long long)rb[1] : (__int128)ra[1] + rb[1];
}
__device__ bool sums_fit(form f, bool sgn, const unsigned long long ra[2],
                         const unsigned long long rb[2])
{
    __int128 smin, smax;
    sum_bounds(sgn, ra, rb, &smin, &smax);
    switch (f) {
    case S16X2: return smin >= INT16_MIN && smax <= INT16_MAX;
    case U16X2: return smax <= UINT16_MAX;
    case S32: return smin >= INT32_MIN && smax <= INT32_MAX;
    case U32: return smax <= UINT32_MAX;
    case S64: return smin >= INT64_MIN && smax <= INT64_MAX;
    case U64: return smax <= (__int128)UINT64_MAX;
    default: return true;
    }
}

// The two forms a class may take: the narrow one its operands' ranges may
// allow (sums_fit), and the wide one that is exact for any operands. The
// 8-bit classes have one (s16x2 holds every sum): no range pass.
struct pair_of_forms {
    form narrow, wide;
    bool one;
};
template <class S> struct class_forms;
template <> struct class_forms<int8_t> { static constexpr pair_of_forms f = {S16X2, S16X2, true}; };
template <> struct class_forms<uint8_t> { static constexpr pair_of_forms f = {S16X2, S16X2, true}; };
template <> struct class_forms<int16_t> { static constexpr pair_of_forms f = {S16X2, S32, false}; };
template <> struct class_forms<uint16_t> { static constexpr pair_of_forms f = {U16X2, S32, false}; };
template <> struct class_forms<int32_t> { static constexpr pair_of_forms f = {S32, S64, false}; };
template <> struct class_forms<uint32_t> { static constexpr pair_of_forms f = {U32, S64, false}; };
template <> struct class_forms<int64_t> { static constexpr pair_of_forms f = {S64, S64_SAT, false}; };
template <> struct class_forms<uint64_t> { static constexpr pair_of_forms f = {U64, U64_SAT, false}; };

struct signed_fn {
    template <class S> bool operator()() const { return std::is_signed<S>::value; }
};

struct forms_fn {
    template <class S> pair_of_forms operator()() const { return class_forms<S>::f; }
};
pair_of_forms forms_of(gd_class cls) { return gd_with_int_class(cls, forms_fn()); }

// The workspace: the ranges (A's lo, hi, B's lo, hi) and the choice (0:
// narrow, 1: wide), then A's lanes, B's lanes and the minima's lanes, each
// as large as the larger form needs.
struct work_layout {
    enum { HEAD = 64, CHOICE = 32 };
    size_t a, b, c, total;
};
template <form F> void lane_sizes(const gd_plan &p, size_t *a, size_t *b, size_t *c)
{
    typedef lanes<F> LF;
    typedef gd_tile::shape<typename LF::L> Sh;
    enum { BK = sizeof(typename LF::L) == 4 ? 16 : 8 };
    const size_t L = sizeof(typename LF::L);
    const int64_t mpl = gd_round_up((p.m + LF::PACK - 1) / LF::PACK, 8 * Sh::TX),
                  np = gd_round_up(p.n, 8 * Sh::TY), kp = gd_round_up(p.k, BK);
    const size_t sa = (size_t)(mpl * kp) * L, sb = (size_t)(np * kp) * L,
                 sc = (size_t)(mpl * np) * L;
    *a = sa > *a ? sa : *a;
    *b = sb > *b ? sb : *b;
    *c = sc > *c ? sc : *c;
}
void lane_sizes_of(form f, const gd_plan &p, size_t *a, size_t *b, size_t *c)
{
    switch (f) {
    case S16X2: lane_sizes<S16X2>(p, a, b, c); break;
    case U16X2: lane_sizes<U16X2>(p, a, b, c); break;
    case S32: lane_sizes<S32>(p, a, b, c); break;
    case U32: lane_sizes<U32>(p, a, b, c); break;
    case S64: lane_sizes<S64>(p, a, b, c); break;
    case S64_SAT: lane_sizes<S64_SAT>(p, a, b, c); break;
    case U64: lane_sizes<U64>(p, a, b, c); break;
    default: lane_sizes<U64_SAT>(p, a, b, c); break;
    }
}
// the witness's tile: 128 x 64 outputs of 128 threads, 4 k-steps a stage,
// the witnesses in shared memory (double's witness layout: 64 accumulators
// of 64 bits fill the registers)
typedef gd_tile::layout<16, 8, 1> wit_layout;
enum { WIT_BK = 4 };
void wit_sizes(const gd_plan &p, int64_t *mp, int64_t *np, int64_t *kp)
{
    *mp = gd_round_up(p.m, 8 * wit_layout::TX);
    *np = gd_round_up(p.n, 8 * wit_layout::TY);
    *kp = gd_round_up(p.k, WIT_BK);
}

work_layout layout_of(const gd_plan &p)
{
    work_layout w = {0, 0, 0, 0};
    if (p.args.witness) { /* the 64-bit lanes' and the keys' */
        int64_t mp, np, kp;
        wit_sizes(p, &mp, &np, &kp);
        w.a = (size_t)(mp * kp * 8);
        w.b = (size_t)(np * kp * 8);
        lane_sizes<S32_KEY>(p, &w.a, &w.b, &w.c);
        w.a = gd_round_up((int64_t)w.a, 256);
        w.b = gd_round_up((int64_t)w.b, 256);
        w.total = work_layout::HEAD + w.a + w.b + w.c;
        return w;
    }
    const pair_of_forms f = forms_of(p.cls);
    lane_sizes_of(f.narrow, p, &w.a, &w.b, &w.c);
    lane_sizes_of(f.wide, p, &w.a, &w.b, &w.c);
    w.a = gd_round_up((int64_t)w.a, 256);
    w.b = gd_round_up((int64_t)w.b, 256);
    w.total = work_layout::HEAD + w.a + w.b + w.c;
    return w;
}

// (lo, hi) of A and of B start at (largest, smallest) of the signedness
__global__ void range_init(unsigned long long *r, bool sgn)
{
    r[0] = r[2] = sgn ? (unsigned long long)LLONG_MAX : ~0ull;
    r[1] = r[3] = sgn ? (unsigned long long)LLONG_MIN : 0ull;
}

// the choice from the ranges: 0 the narrow form, 1 the wide one
__global__ void choose_form(bool sgn, const unsigned long long *r, int *choice, form narrow)
{
    *choice = sums_fit(narrow, sgn, r, r + 2) ? 0 : 1;
}

// the witness's choice: 0 (keys) where every sum of the ranges lies in
// [lo, hi] (the class's range within 16 bits: no sum saturates, and each
// fits a key), else 1 (64-bit lanes)
__global__ void choose_keys(bool sgn, const unsigned long long *r, int *choice, long long lo,
                            long long hi)
{
    __int128 smin, smax;
    sum_bounds(sgn, r, r + 2, &smin, &smax);
    *choice = smin >= lo && smax <= hi ? 0 : 1;
}

// A's lanes (mpl x kp) at Ap and B's (np x kp) at Bt, lanes LF, where
// *gate == want (gate NULL: always)
template <class LF, class S>
void prepare_lanes(const gd_plan &p, typename LF::L *Ap, int64_t mpl, typename LF::L *Bt,
                   int64_t np, int64_t kp, const int *gate, int want)
{
    prepare_a<LF, S><<<gd_blocks_for(mpl * kp, 256), 256, 0, p.st>>>(
        (const S *)p.A, p.lda, p.m, p.k, Ap, mpl, kp, gate, want);
    for (int64_t y0 = 0; y0 < np / 32; y0 += 65535) {
        const dim3 grid((unsigned)(kp / 32 + 1), gd_grid_y(np / 32 - y0));
        prepare_b<LF, S><<<grid, dim3(32, 8), 0, p.st>>>((const S *)p.B, p.ldb, p.k, p.n, Bt, np,
                                                          kp, y0, gate, want);
    }
}

// form F's part of the call, class S, run where the choice is `want`
// (gate NULL: the only form): the lanes, the tile, the saturation into C
template <form F, class S> void run_form(const gd_plan &p, const work_layout &w,
                                         const int *gate, int want)
{
    typedef lanes<F> LF;
    typedef typename LF::L L;
    typedef gd_tile::shape<L> Sh;
    enum { BK = sizeof(L) == 4 ? 16 : 8 };
    const int64_t ml = (p.m + LF::PACK - 1) / LF::PACK;
    const int64_t mpl = gd_round_up(ml, 8 * Sh::TX), np = gd_round_up(p.n, 8 * Sh::TY),
                  kp = gd_round_up(p.k, BK);
    char *base = (char *)p.work + work_layout::HEAD;
    L *Ap = (L *)base, *Bt = (L *)(base + w.a), *C = (L *)(base + w.a + w.b);
    prepare_lanes<LF, S>(p, Ap, mpl, Bt, np, kp, gate, want);
    if (gd_setting_text(GD_SET_POISON)) /* a lane the tile fails to write shows */
        cudaMemsetAsync(C, 0x5a, (size_t)(mpl * np) * sizeof(L), p.st);
    typedef gd_tile::layout<Sh::TX, Sh::TY, Sh::MINB, Sh::ASYNC> Lay;
    if (!gate)
        gd_tile::launch_big<dpx_op<F>, L, BK, Lay>(Ap, Bt, C, mpl, np, kp, kp, 0, 1, p.st);
    else if (want == 0)
        gd_tile::launch_big<dpx_op<F>, L, BK, Lay, gd_tile::identity, false, 0>(
            Ap, Bt, C, mpl, np, kp, kp, 0, 1, p.st, gate);
    else
        gd_tile::launch_big<dpx_op<F>, L, BK, Lay, gd_tile::identity, false, 1>(
            Ap, Bt, C, mpl, np, kp, kp, 0, 1, p.st, gate);
    finish<F, S><<<gd_blocks_for(p.m * p.n, 256), 256, 0, p.st>>>(C, mpl, (S *)p.C, p.ldc, p.m,
                                                                   p.n, gate, want);
}

// every form class S may take, queued (the others are never instantiated)
template <class S> void run_class(const gd_plan &p, const work_layout &w, const int *gate)
{
    constexpr pair_of_forms f = class_forms<S>::f;
    if constexpr (f.one) {
        run_form<f.narrow, S>(p, w, NULL, 0);
    } else {
        run_form<f.narrow, S>(p, w, gate, 0);
        run_form<f.wide, S>(p, w, gate, 1);
    }
}

// The witness by keys, where the ranges prove that no sum saturates and
// every sum fits 16 bits (*gate == 0). A key is (a + b) << 16 | k: A's
// lane a << 16, B's (b << 16) | k (lanes<S32_KEY>), whose 32-bit sum is
// the key exactly (a lane may wrap; the sum wraps back). Keys order as
// (a + b, k) does, signed or unsigned as the class: their minimum is the
// least sum and, of equal sums, the first k, Octave's K. So the witness
// is the plain DPX tile, min(a + b, c) an instruction a step (the 64-bit
// lanes' compare, select and saturation take some ten), in parts of
// 65536 k-steps (k's 16 bits), each part's minima taken into R and K
// where they are below the parts' before (take_keys).
enum { KEY_PART = 65536 };
template <class S> void run_keys(const gd_plan &p, const work_layout &w, const int *gate)
{
    constexpr form F = std::is_signed<S>::value ? S32_KEY : U32_KEY;
    typedef lanes<F> LF;
    typedef int L;
    typedef gd_tile::shape<L> Sh;
    enum { BK = 16 };
    const int64_t mpl = gd_round_up(p.m, 8 * Sh::TX), np = gd_round_up(p.n, 8 * Sh::TY),
                  kp = gd_round_up(p.k, BK);
    char *base = (char *)p.work + work_layout::HEAD;
    L *Ap = (L *)base, *Bt = (L *)(base + w.a), *C = (L *)(base + w.a + w.b);
    prepare_lanes<LF, S>(p, Ap, mpl, Bt, np, kp, gate, 0);
    if (gd_setting_text(GD_SET_POISON)) /* a lane the tile fails to write shows */
        cudaMemsetAsync(C, 0x5a, (size_t)(mpl * np) * sizeof(L), p.st);
    typedef gd_tile::layout<Sh::TX, Sh::TY, Sh::MINB, Sh::ASYNC> Lay;
    for (int64_t k0 = 0; k0 < kp; k0 += KEY_PART) {
        const int64_t kq = kp - k0 < KEY_PART ? kp - k0 : KEY_PART;
        gd_tile::launch_big<dpx_op<F>, L, BK, Lay, gd_tile::identity, false, 0>(
            Ap + mpl * k0, Bt + np * k0, C, mpl, np, kq, kq, 0, 1, p.st, gate);
        take_keys<F, S><<<gd_blocks_for(p.m * p.n, 256), 256, 0, p.st>>>(
            C, mpl, (S *)p.C, p.K, p.ldc, p.m, p.n, k0, gate, 0);
    }
}

// [R, K]: the keys where *gate == 0, else the 64-bit lanes (*gate == 1):
// the witness's lanes, then its tile, which writes R and K
template <class S> void run_witness(const gd_plan &p, const work_layout &w, const int *gate)
{
    run_keys<S>(p, w, gate);
    typedef wlanes<S> LF;
    typedef long long L;
    int64_t mp, np, kp;
    wit_sizes(p, &mp, &np, &kp);
    char *base = (char *)p.work + work_layout::HEAD;
    L *Ap = (L *)base, *Bt = (L *)(base + w.a);
    prepare_lanes<LF, S>(p, Ap, mp, Bt, np, kp, gate, 1);
    const store_first_int<S> out = {(S *)p.C, p.K, p.ldc, p.m, p.n};
    gd_tile::launch_each<int_first<S>, L, WIT_BK, wit_layout, store_first_int<S>, 1, true>(
        Ap, mp, Bt, np, mp, np, kp, out, p.st, gate);
}

template <class S> void range_of(const void *x, int64_t ld, int64_t rows, int64_t cols,
                                 unsigned long long *r, cudaStream_t st)
{
    const unsigned b = gd_blocks_for(rows * cols, 256), blocks = b < 2048 ? b : 2048;
    range<S><<<blocks, 256, 0, st>>>((const S *)x, ld, rows, cols, r);
}

template <class S> void ranges(const gd_plan &p, unsigned long long *r)
{
    range_init<<<1, 1, 0, p.st>>>(r, std::is_signed<S>::value);
    range_of<S>(p.A, p.lda, p.m, p.k, r, p.st);
    range_of<S>(p.B, p.ldb, p.k, p.n, r + 2, p.st);
}

// the launcher's three steps for the element type of p.cls (gd_with_int_class)
struct witness_fn {
    const gd_plan &p;
    const work_layout &w;
    const int *gate;
    template <class S> void operator()() const { run_witness<S>(p, w, gate); }
};
// the range of sums the keys take: the class's within 16 bits
struct key_range_fn {
    long long *lo, *hi;
    template <class S> void operator()() const
    {
        const bool sgn = std::is_signed<S>::value;
        const long long clo = (long long)gd_limits<S>::lo;
        const long long chi = sizeof(S) == 8 && !sgn ? LLONG_MAX : (long long)gd_limits<S>::hi;
        *lo = sgn ? (clo > INT16_MIN ? clo : INT16_MIN) : 0;
        *hi = sgn ? (chi < INT16_MAX ? chi : INT16_MAX) : (chi < UINT16_MAX ? chi : UINT16_MAX);
    }
};
struct ranges_fn {
    const gd_plan &p;
    unsigned long long *r;
    template <class S> void operator()() const { ranges<S>(p, r); }
};
struct class_fn {
    const gd_plan &p;
    const work_layout &w;
    const int *gate;
    template <class S> void operator()() const { run_class<S>(p, w, gate); }
};

} // namespace

/* The launcher of min-plus v5 on the integer classes (minplus.cu's
 * table): A (m x k) and B (k x n) as Octave holds them, C (m x n) in their
 * class; the ranges, the choice and every form the class may take are
 * queued on p.st, and the choice lets one form through. With the witness
 * (p.K), the keys' tile and the 64-bit lanes' likewise. */
size_t gd_minplus_int_work(const gd_plan &p) { return layout_of(p).total; }

gd_status gd_minplus_int_launch(const gd_plan &p)
{
    const work_layout w = layout_of(p);
    if (!gd_class_is_int(p.cls))
        return gd_fail(GD_ERR_INPUT, "integer min-plus: not an integer class");
    unsigned long long *r = (unsigned long long *)p.work;
    int *choice = (int *)((char *)p.work + work_layout::CHOICE);
    if (p.K) { /* the keys or the 64-bit lanes, as the ranges allow */
        long long lo, hi;
        gd_with_int_class(p.cls, key_range_fn{&lo, &hi});
        gd_with_int_class(p.cls, ranges_fn{p, r});
        choose_keys<<<1, 1, 0, p.st>>>(gd_with_int_class(p.cls, signed_fn()), r, choice, lo, hi);
        gd_with_int_class(p.cls, witness_fn{p, w, choice});
        return gd_cuda(cudaGetLastError(), "integer min-plus witness kernels");
    }
    const pair_of_forms f = forms_of(p.cls);
    if (!f.one) {
        gd_with_int_class(p.cls, ranges_fn{p, r});
        choose_form<<<1, 1, 0, p.st>>>(gd_with_int_class(p.cls, signed_fn()), r, choice, f.narrow);
        gd_status s = gd_cuda(cudaGetLastError(), "the operands' range");
        if (s) return s;
    }
    gd_with_int_class(p.cls, class_fn{p, w, choice});
    return gd_cuda(cudaGetLastError(), "integer min-plus kernels");
}

/* which form ran (info.kernel): the choice, read once the call is done */
void gd_minplus_int_after(const gd_plan &p, gd_timing *t)
{
    const pair_of_forms f = forms_of(p.cls);
    int c = 0;
    if ((p.K || !f.one) && cudaMemcpy(&c, (char *)p.work + work_layout::CHOICE, sizeof c,
                                      cudaMemcpyDeviceToHost) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    if (p.K) {
        snprintf(t->kernel, sizeof t->kernel, "witness, %s", c ? "int64 lanes" : "dpx keys");
        return;
    }
    const form ran = c ? f.wide : f.narrow;
    /* wider lanes than the class's: the 8-bit classes always, the 16- and
     * 32-bit ones in their wide form */
    const bool widened = gd_class_bytes(p.cls) == 1 || (c && gd_class_bytes(p.cls) <= 4);
    snprintf(t->kernel, sizeof t->kernel, "%s%s", FORM_NAMES[ran], widened ? ", widened" : "");
}
