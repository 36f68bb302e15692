/* knn.cu - nearest neighbours: the K smallest (or largest) distances from
 * each query (a row of Y) to the rows of X, selected while the distances
 * are computed, so that the mx x my matrix is never stored.
 *
 * fused: the tile of pdist2 'tuned' (tile.cuh: 128 rows of X by 64
 * queries in single, 128 by 128 in double, 8x8 pairs a thread), the same
 * arithmetic in the same order, so each distance is gd_pdist2's to the
 * bit. A block keeps its queries and walks a range of X's row tiles (a
 * split); for each query it holds a sorted list of its K best (key, row)
 * pairs so far (knnkey.h: the order of a stable sort) in global memory and
 * the list's K-th pair, the threshold, in shared memory. A distance that
 * beats its query's threshold goes into the query's bucket of 32 in
 * shared memory (an atomic add on the bucket's count); a full bucket (or
 * the split's end) is merged into the list by one warp: a bitonic sort of
 * the 32 across the warp's lanes, then each element of either sorted run
 * finds its place in the merged run by a binary search in the other, and
 * the first K are written to the list's second buffer, whose K-th pair is
 * the new threshold. Distances that found their bucket full are tested
 * again against the new threshold. Once a list holds K pairs only
 * distances among the K best so far pass, about K (1 + ln (n / K)) of n
 * in random order, so the selection costs little beside the distances.
 * The splits' lists are then merged, a warp a query, and written out as D
 * and I. Splits give the GPU enough blocks: the queries alone (8192 / 64
 * = 128 blocks) would not fill it.
 *
 * The ideas are the threshold-filtered k-selection of FAISS's GPU
 * brute-force search ("Billion-scale similarity search with GPUs",
 * Johnson, Douze and Jegou) and the bitonic merge it builds its warp
 * queues from; unlike FAISS, any K (no cap), double, and the exact
 * unexpanded distances.
 */
#include "ops/knn_gemm.h"
#include "tiles/knnkey.h"
#include "tiles/metric.cuh"
#include "tiles/norm2.h"
#include "ops/product.h"
#include "runtime/call.h"
#include "runtime/layout.cuh"
#include "tiles/tile.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

// BK: pdist2 tuned's stage; CAP: a bucket (a warp's sort); OV: a query's
// overflow past its bucket in one tile's pass (16 threads of 8 rows)
enum { BK = 8, CAP = 32, OV = 128 };

// The key type of a class and its map (knnkey.h).
template <class T> struct keys;
template <> struct keys<float> {
    typedef uint32_t K;
    static constexpr K MAX = 0xffffffffu;
    __device__ static K key(float v, int largest) { return gd_key_f(v, largest); }
    __device__ static float unkey(K k, int largest) { return gd_unkey_f(k, largest); }
};
template <> struct keys<double> {
    typedef uint64_t K;
    static constexpr K MAX = ~(uint64_t)0;
    __device__ static K key(double v, int largest) { return gd_key_d(v, largest); }
    __device__ static double unkey(K k, int largest) { return gd_unkey_d(k, largest); }
};

// A candidate: (key, row of X, 0-based). The sentinel (MAX, 0xffffffff)
// is above every candidate (rows < 2^31).
template <class T> struct item {
    typename keys<T>::K key;
    uint32_t row;
};
// (double's four bytes of padding a named member, zero in every item made:
// a copy of an item moves 16 bytes, and one made with unwritten padding is
// a read of uninitialized memory to compute-sanitizer's initcheck)
template <> struct item<double> {
    uint64_t key;
    uint32_t row, pad;
};
template <class T> __device__ __forceinline__ bool less(const item<T> &a, const item<T> &b)
{
    return a.key < b.key || (a.key == b.key && a.row < b.row);
}
template <class T> __device__ __forceinline__ item<T> sentinel()
{
    return item<T>{keys<T>::MAX, 0xffffffffu};
}
template <class T> __device__ __forceinline__ item<T> shfl(const item<T> &x, int src)
{
    return item<T>{__shfl_sync(0xffffffffu, x.key, src), __shfl_sync(0xffffffffu, x.row, src)};
}
template <class T> __device__ __forceinline__ item<T> shfl_xor(const item<T> &x, int m)
{
    return item<T>{__shfl_xor_sync(0xffffffffu, x.key, m),
                   __shfl_xor_sync(0xffffffffu, x.row, m)};
}

// The warp's 32 items (one a lane) sorted ascending across the lanes.
template <class T> __device__ __forceinline__ item<T> warp_sort(item<T> x, int lane)
{
#pragma unroll
    for (int k = 2; k <= 32; k <<= 1)
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            const item<T> o = shfl_xor(x, j);
            const bool up = (lane & k) == 0, low = (lane & j) == 0;
            if (low == up ? less(o, x) : less(x, o)) x = o;
        }
    return x;
}

// The number of the n sorted items of a that are less than e.
template <class T>
__device__ __forceinline__ int64_t rank_in(const item<T> *a, int64_t n, const item<T> &e)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        if (less(a[mid], e)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// dst[0 .. min(K, na + nb)) = the least of the sorted runs a and b, by the
// warp (no two items are equal: the rows differ). dst is neither.
template <class T>
__device__ void warp_merge(const item<T> *a, int64_t na, const item<T> *b, int64_t nb,
                           item<T> *dst, int64_t K, int lane)
{
    const int64_t ea = na < K ? na : K, eb = nb < K ? nb : K;
    for (int64_t p = lane; p < ea; p += 32) {
        const item<T> e = a[p];
        const int64_t q = p + rank_in(b, eb, e);
        if (q < K) dst[q] = e;
    }
    for (int64_t p = lane; p < eb; p += 32) {
        const item<T> e = b[p];
        const int64_t q = p + rank_in(a, ea, e);
        if (q < K) dst[q] = e;
    }
}

// The distance of a sum is pdist2 'tuned''s, through the metric's policy
// (metric.cuh): its value, or where the sum left the range the value
// needs (the Euclidean rescue, minkowski's scaled form) the rows'
// recomputation, in a loop of its own (rare; inlined once). A metric
// with a bound rejects, with one compare, the sums whose distance cannot
// beat the threshold; the others compute every distance and compare it.

// The lists of one block: for each of its NQ queries two buffers of K
// items (the list and the next one) at L + q 2K; len, which (the buffer
// holding the list), tau (the list's K-th item, or the sentinel while it
// holds fewer), the bound of tau's distance (negated for largest, so that
// a sum s is rejected where sg s > bound, sg = -1 for largest, else 1)
// and the bucket's count in shared memory.
template <class T, int NQ> struct lists {
    item<T> tau[NQ];
    T bound[NQ]; // sg m.bound (tau)
    int cnt[NQ];
    int len[NQ];
    int which[NQ];
    int overflow;
};

// The number of the warp's 32 sorted items (x, one a lane) that are less
// than e: a binary search through the lanes.
template <class T> __device__ __forceinline__ int rank_in_lanes(const item<T> &x, const item<T> &e)
{
    int lo = 0;
#pragma unroll
    for (int step = 16; step > 0; step >>= 1)
        if (less(shfl(x, lo + step - 1), e)) lo += step;
    return lo + (less(shfl(x, 31), e) && lo == 31 ? 1 : 0);
}

// Merges the warp's c sorted candidates (x, lane l the l-th; the rest
// sentinels) with the sorted list src (n items) into dst (the first K).
// The list comes into the lanes 32 items at a time, each lane's next
// item loaded before the searches, so a merge waits for memory once
// rather than once a step of a binary search through global memory. The
// lane that writes dst[K - 1] returns it in *kth (else untouched).
template <class T>
__device__ __forceinline__ void merge_bucket(const item<T> &x, int c, const item<T> *__restrict__ src,
                                             int64_t n, item<T> *__restrict__ dst, int64_t K,
                                             int lane, item<T> *kth)
{
    int64_t below = 0; // the list items less than x
    const int64_t en = n < K ? n : K;
    item<T> e = lane < en ? src[lane] : sentinel<T>();
    for (int64_t ch = 0; ch < en; ch += 32) {
        const item<T> next = ch + 32 + lane < en ? src[ch + 32 + lane] : sentinel<T>();
        below += rank_in_lanes(e, x);
        const int before = rank_in_lanes(x, e);
        if (ch + lane < en) {
            const int64_t p = ch + lane + before;
            if (p < K) {
                dst[p] = e;
                if (p == K - 1) *kth = e;
            }
        }
        e = next;
    }
    if (lane < c) {
        const int64_t p = lane + below;
        if (p < K) {
            dst[p] = x;
            if (p == K - 1) *kth = x;
        }
    }
}

// The block's warps merge every non-empty bucket (with its overflow) into
// its query's list, 32 candidates at a time.
template <class T, int NQ, int NT, class M>
__device__ void merge_buckets(lists<T, NQ> &s, const item<T> *bucket, item<T> *L, int64_t K,
                              const M &m, int largest)
{
    const int lane = threadIdx.x % 32;
    for (int q = threadIdx.x / 32; q < NQ; q += NT / 32) {
        const int all = s.cnt[q];
        if (all == 0) continue;
        item<T> *base = L + (int64_t)q * (2 * K + OV);
        int w = s.which[q];
        int64_t n = s.len[q];
        item<T> kth;
        for (int at = 0; at < all; at += 32) {
            kth = sentinel<T>(); // the last merge's K-th item
            const int c = all - at < 32 ? all - at : 32;
            const item<T> *from = at == 0 ? bucket + q * CAP : base + 2 * K + (at - CAP);
            const item<T> x = warp_sort(lane < c ? from[lane] : sentinel<T>(), lane);
            merge_bucket<T>(x, c, base + w * K, n, base + (1 - w) * K, K, lane, &kth);
            __syncwarp();
            w = 1 - w;
            n = n + c < K ? n + c : K;
        }
        if (lane == 0) {
            s.len[q] = (int)n;
            s.which[q] = w;
            s.cnt[q] = 0;
        }
        // the K-th item's lane (of the last merge that wrote one)
        const unsigned has = __ballot_sync(0xffffffffu, kth.row != 0xffffffffu);
        if (n == K ? lane == 31 - __clz(has) : lane == 0) {
            s.tau[q] = kth;
            if (M::BOUND) {
                const T b = kth.row == 0xffffffffu ? (T)NAN
                                                   : m.bound(keys<T>::unkey(kth.key, largest), largest);
                s.bound[q] = largest ? -b : b;
            }
        }
        __syncwarp();
    }
}

/* acc[b / 8][b % 8], by selects (71, no branch, no local memory): bits
 * 0-2 of b pick the column of each row by a tree, bits 3-5 the row, one
 * row at a time (few values live beside the accumulators). */
template <class T> __device__ __forceinline__ T pick(const T (&acc)[8][8], int b)
{
    T v = acc[0][0];
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        const T a0 = b & 1 ? acc[r][1] : acc[r][0], a1 = b & 1 ? acc[r][3] : acc[r][2];
        const T a2 = b & 1 ? acc[r][5] : acc[r][4], a3 = b & 1 ? acc[r][7] : acc[r][6];
        const T b0 = b & 2 ? a1 : a0, b1 = b & 2 ? a3 : a2;
        v = b >> 3 == r ? (b & 4 ? b1 : b0) : v;
    }
    return v;
}

/* The first tile of a split: for each of the thread's queries, the K-th
 * least of the 16 minimums (of sg sum) its column's threads hold bounds the K-th least of the column's 128 (K distinct sums
 * are at most it), so the split's bound starts at its distance instead
 * of admitting the whole first tile to the buckets (128 candidates a
 * query, four merges and an overflow to global memory; with it about K,
 * and no merge until the second tile). Sums that need the rows (slow)
 * and NaN take no part; a column with fewer than K sums keeps no bound.
 * The column's 16 threads are 16 lanes of one warp (a bitonic sort
 * across them); lane 0 of each writes the bound. */
template <class T, int TY, class M, int NQ>
__device__ __forceinline__ void seed_bounds(lists<T, NQ> &s, const T (&acc)[8][8], const M &m,
                                            int64_t K, T sg, int largest, uint64_t valid,
                                            uint64_t slow)
{
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16, lane = threadIdx.x % 32;
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        T v = (T)INFINITY;
#pragma unroll
        for (int r = 0; r < 8; ++r) {
            const T u = sg * acc[r][c];
            if (((valid & ~slow) >> (8 * r + c)) & 1 && u < v) v = u;
        }
#pragma unroll
        for (int k = 2; k <= 16; k <<= 1)
#pragma unroll
            for (int j = k >> 1; j > 0; j >>= 1) {
                const T o = __shfl_xor_sync(0xffffffffu, v, j);
                v = (((tx & k) == 0) == ((tx & j) == 0)) ? (o < v ? o : v) : (o > v ? o : v);
            }
        const T u = __shfl_sync(0xffffffffu, v, (lane & 16) + (int)K - 1);
        if (tx == 0 && u != (T)INFINITY) {
            const T b = m.bound(m.value(sg * u, 0, 0), largest);
            s.bound[gd_tile::big_offset<T, TY>(ty, c)] = sg * b;
        }
    }
    __syncwarp();
}

/* What a fused launch reads: block (x, y) takes query tile qt0 + x (NQ
 * queries from j0) and split y (X's row tiles [y tps, (y + 1) tps)); its
 * lists at all + (y nqt + x) NQ (2K + OV), and each list's (len, which)
 * into meta. Blocks of the splits before split0 return at once: a launch
 * of splits split0 ... gridDim.y - 1 alone. */
template <class T> struct fused_args {
    const T *Xp, *Yp;           /* padded: mp x kp, np x kp */
    int64_t mp, np, kp, mx, my, d, K, qt0, nqt, tps, split0;
    int largest;
    item<T> *all;
    int2 *meta;
    metric_data<T> md;
};

/* The fused kernel, on metric M's policy (metric.cuh). */
// Blocks an SM: pdist2's tile runs four in single (128 registers a
// thread); with the selection's state beside the accumulators across the
// loop over X's tiles ptxas spills there, so three (170 registers).
template <class T> struct fused_blocks { enum { N = gd_tile::shape<T>::MINB }; };
#ifndef GD_KNN_BLOCKS_SINGLE
#define GD_KNN_BLOCKS_SINGLE 3
#endif
template <> struct fused_blocks<float> { enum { N = GD_KNN_BLOCKS_SINGLE }; };
// the block's lists empty, no bound yet
template <class T, int NQ, int NT>
__device__ __forceinline__ void clear_lists(lists<T, NQ> &s, int tid)
{
    for (int q = tid; q < NQ; q += NT) {
        s.tau[q] = sentinel<T>();
        s.bound[q] = (T)NAN;
        s.cnt[q] = s.len[q] = s.which[q] = 0;
    }
    if (tid == 0) s.overflow = 0;
    __syncthreads();
}

template <class T, class M>
__global__ void __launch_bounds__(16 * gd_tile::shape<T>::TY, fused_blocks<T>::N)
knn_fused(const fused_args<T> a)
{
    typedef gd_tile::shape<T> S;
    enum { TY = S::TY, NT = 16 * TY, NQ = 8 * TY };
    __shared__ lists<T, NQ> s;
    extern __shared__ __align__(16) unsigned char dyn[];
    // a launch of the splits from split0 on: the splits before it are
    // another launch's (an offset added to blockIdx.y instead costs the
    // minkowski kernel a spilled register)
    if (blockIdx.y < a.split0) return;
    item<T> *bucket = reinterpret_cast<item<T> *>(dyn);
    const M m(a.md);
    const int64_t K = a.K, mx = a.mx, my = a.my;
    const int largest = a.largest;
    const T sg = largest ? (T)-1 : (T)1;
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int64_t j0 = (a.qt0 + blockIdx.x) * NQ;
    const int64_t xt0 = blockIdx.y * a.tps, xtiles = a.mp / gd_tile::BIG;
    const int64_t xt1 = xt0 + a.tps < xtiles ? xt0 + a.tps : xtiles;
    const int64_t slot = (int64_t)blockIdx.y * a.nqt + blockIdx.x;
    item<T> *L = a.all + slot * NQ * (2 * K + OV);
    clear_lists<T, NQ, NT>(s, tid);
    // the thread's queries that exist
    uint32_t colmask = 0;
#pragma unroll
    for (int c = 0; c < 8; ++c)
        if (j0 + gd_tile::big_offset<T, TY>(ty, c) < my) colmask |= 1u << c;
    for (int64_t xt = xt0; xt < xt1; ++xt) {
        const int64_t i0 = xt * gd_tile::BIG;
        T acc[8][8];
        gd_tile::accumulate_big<typename M::Step, T, BK, 16, TY>(a.Xp, a.mp, a.Yp, a.np, 0, a.kp,
                                                                 i0, j0, acc);
        // the rows that exist (the last tile's may not)
        const int64_t rows = mx - i0;
        // the thread's pairs that exist (bit 8r + c: rows past mx and
        // queries past my do not), and those whose distance needs the rows
        uint64_t valid = 0, slow = 0;
#pragma unroll
        for (int r = 0; r < 8; ++r)
            if (gd_tile::big_offset<T, 16>(tx, r) < rows) valid |= (uint64_t)colmask << (8 * r);
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int c = 0; c < 8; ++c)
                if (m.slow(acc[r][c])) slow |= (uint64_t)1 << (8 * r + c);
        slow &= valid;
        // (single alone: in double, with 64 accumulators of two registers,
        // ptxas spills around the seed's sort however it is written)
        if (M::BOUND && sizeof(T) == 4 && K <= 16 && xt == xt0)
            seed_bounds<T, TY>(s, acc, m, K, sg, largest, valid, slow);
        // the pairs that go on to their query's bucket: with a bound, the
        // sums it does not reject (a compare each, no branch); without,
        // each distance computed in place and compared with the list's K-th
        uint64_t go = 0;
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const int q = gd_tile::big_offset<T, TY>(ty, c);
            if (M::BOUND) {
                const T bc = ((volatile T *)s.bound)[q];
#pragma unroll
                for (int r = 0; r < 8; ++r)
                    if (!(sg * acc[r][c] > bc)) go |= (uint64_t)1 << (8 * r + c);
            } else {
                const item<T> tau = s.tau[q];
#pragma unroll
                for (int r = 0; r < 8; ++r) {
                    const int64_t i = i0 + gd_tile::big_offset<T, 16>(tx, r);
                    acc[r][c] = m.value(acc[r][c], i, j0 + q);
                    if (less(item<T>{keys<T>::key(acc[r][c], largest), (uint32_t)i}, tau))
                        go |= (uint64_t)1 << (8 * r + c);
                }
            }
        }
        go &= valid & ~slow;
        // e into query q's bucket, or past its end into the list area's
        // overflow (at most 128 a tile: a bucket holds at most CAP when a
        // pass begins)
        auto offer = [&](int q, const item<T> &e) {
            if (!less(e, s.tau[q])) return;
            const int at = atomicAdd(&s.cnt[q], 1);
            if (at < CAP) {
                bucket[q * CAP + at] = e;
            } else {
                L[q * (2 * K + OV) + 2 * K + (at - CAP)] = e;
                s.overflow = 1;
            }
        };
        // one offer a pair that goes on, its value out of the registers by
        // a tree of selects: the offer's code once, not 64 times unrolled
        // (which overflowed the instruction cache: a fetch stall of 40% of
        // the cycles, measured)
        for (uint64_t w = go; w; w &= w - 1) {
            const int b = __ffsll((long long)w) - 1;
            const int q = gd_tile::big_offset<T, TY>(ty, b % 8);
            const int64_t i = i0 + gd_tile::big_offset<T, 16>(tx, b / 8);
            const T x = pick(acc, b);
            const T v = M::BOUND ? m.value(x, i, j0 + q) : x;
            offer(q, item<T>{keys<T>::key(v, largest), (uint32_t)i});
        }
        for (uint64_t w = slow; w; w &= w - 1) {
            const int b = __ffsll((long long)w) - 1;
            const int q = gd_tile::big_offset<T, TY>(ty, b % 8);
            const int64_t i = i0 + gd_tile::big_offset<T, 16>(tx, b / 8);
            const T v = m.slow_value(a.Xp + i, a.mp, a.Yp + j0 + q, a.np);
            offer(q, item<T>{keys<T>::key(v, largest), (uint32_t)i});
        }
        __syncthreads();
        if (s.overflow) {
            merge_buckets<T, NQ, NT>(s, bucket, L, K, m, largest);
            __syncthreads();
            if (tid == 0) s.overflow = 0;
            __syncthreads();
        }
    }
    merge_buckets<T, NQ, NT>(s, bucket, L, K, m, largest);
    __syncthreads();
    for (int q = tid; q < NQ; q += NT) a.meta[slot * NQ + q] = make_int2(s.len[q], s.which[q]);
}

/* The fused kernel of a metric, for the host: its shared memory and
 * occupancy, and its launch (with_metric picks M). */
template <class T> struct fused_kernel {
    const void *fn;
    void (*launch)(dim3 grid, int nt, size_t dyn, cudaStream_t st, const fused_args<T> &a);
    template <class M> static void launch_m(dim3 grid, int nt, size_t dyn, cudaStream_t st,
                                            const fused_args<T> &a)
    {
        knn_fused<T, M><<<grid, nt, dyn, st>>>(a);
    }
    template <class M> fused_kernel run() const
    {
        return fused_kernel{(const void *)knn_fused<T, M>, launch_m<M>};
    }
};

/* The splits' lists of each query merged (a warp a query, through the
 * free buffer of each split in turn) and written out: D(k, j) and I(k, j)
 * (K x my, ld K) for the queries j0 ... of the batch. */
template <class T>
__global__ void knn_final(item<T> *__restrict__ all, const int2 *__restrict__ meta,
                          int64_t nqt, int64_t splits, int64_t NQ, int64_t K, int64_t Kout,
                          int64_t qt0, int64_t my, int largest, T *__restrict__ D,
                          int32_t *__restrict__ I)
{
    const int lane = threadIdx.x % 32;
    const int64_t w = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32;
    const int64_t x = w / NQ, q = w % NQ, j = (qt0 + x) * NQ + q;
    if (x >= nqt || j >= my) return;
    int2 m = meta[x * NQ + q];
    const item<T> *cur = all + (x * NQ + q) * (2 * K + OV) + m.y * K;
    int64_t n = m.x;
    for (int64_t y = 1; y < splits; ++y) {
        const int64_t slot = y * nqt + x;
        const int2 my2 = meta[slot * NQ + q];
        item<T> *base = all + (slot * NQ + q) * (2 * K + OV);
        item<T> *dst = base + (1 - my2.y) * K;
        warp_merge<T>(cur, n, base + my2.y * K, my2.x, dst, K, lane);
        __threadfence_block();
        __syncwarp();
        n = n + my2.x < K ? n + my2.x : K;
        cur = dst;
    }
    for (int64_t k = lane; k < Kout && k < n; k += 32) {
        D[k + Kout * j] = keys<T>::unkey(cur[k].key, largest);
        I[k + Kout * j] = (int32_t)cur[k].row + 1;
    }
}

const gd_variant_info VARIANTS[] = {
    {"fused", "pdist2's tuned tiles, each distance tested against its query's K-th best so "
              "far and kept in a bucket in shared memory; warps merge full buckets into "
              "sorted lists (bitonic sort, then merge by binary search); the full matrix is "
              "never stored",
     1},
    {"cpu", "OpenMP on the host: a query's column of distances at a time, a heap of K", 0},
    {"gemm", "euclidean, squaredeuclidean and cosine (correlation, spearman), the K smallest or largest (K up to 256): candidates from one "
             "TF32 product on the tensor cores with a certified bound on its error, then their "
             "exact distances as 'fused' computes them and the same selection (fused's D and I "
             "bit for bit); a query whose candidates overflow runs 'fused'",
     1},
};
const int NVARIANTS = sizeof VARIANTS / sizeof VARIANTS[0];

// 'auto' below this many (pair, feature) triples: the host finishes
// before a GPU round trip would
const double AUTO_CPU_BELOW = 1 << 16;
// 'all' devices divide a search from 2^34 (pair, feature) triples a
// device (16384 queries among 8192 points of 128 features: some 2 ms of
// kernel on an H100). Not measured for kNN itself: min-plus's measured
// break-even (a few ms of kernel a device, minplus.cu) carried over
const double SPLIT_MIN = 17179869184.0;
// ... and the gemm variant, which divides the queries (each device
// uploads X whole), from 2^36 a device and 8192 queries: two H100s, from
// the host, 10^6 points: 1000 and 4000 queries 0.68-0.88x as fast on two
// devices as on one (X's upload twice against half the kernels), 10,000
// 1.26x (K = 10) and 1.36x (K = 100); 65536 points: 4096 queries 0.69x,
// 16384 1.50x
const double SPLIT_MIN_GEMM = 68719476736.0;
const int64_t SPLIT_GEMM_QUERIES = 8192;
// 'auto' takes the gemm variant from this many (pair, feature) triples,
// where X has at least this many tiles of 128 points a neighbour: a query's
// candidates are about 1.2 K points, and about 0.7 K^2 / tiles tiles hold
// two of them and are taken whole (128 points each). Measured on an H100
// (kernels/NOTES.md, "'auto' for gemm"): 240 searches of 8192 to 262144
// points, 512 to 8192 queries, d = 16 to 256, K = 1 to 100, smallest and
// largest, from the host; gemm wins from about 8 tiles a neighbour down to
// 2^30 triples and loses by up to 5x at 2 to 3 tiles a neighbour. This rule
// is within 0.7% of the better variant in the geometric mean (worst 1.34x,
// at the edge: 32768 points, K = 32, d = 16), where 2^33 triples and 48
// tiles a neighbour had given 13% (worst 2.4x). Cosine the same: fused's
// cosine is slower than its Euclidean, gemm's is not
const double AUTO_GEMM_FROM = 1073741824.0;
const int64_t AUTO_GEMM_TILES_K = 8;

gd_status run_cpu(const gd_matrix &X0, const gd_matrix &Y0, gd_class cls, gd_distance metric,
                  int64_t K, int largest, gd_out Dout, gd_out Iout, gd_class icls, gd_timing *t)
{
    const int64_t mx = X0.rows, my = Y0.rows, d = X0.cols;
    const size_t es = gd_class_bytes(cls), bytes = (size_t)(K * my) * es;
    char what[96];
    gd_describe(what, sizeof what, "D", K, my, cls);
    gd_allocs al = {};
    gd_matrix Xc, Yc, X, Y;
    void *hx = NULL, *hy = NULL, *cx = NULL, *cy = NULL, *buf = NULL;
    int32_t *idx = NULL;
    gd_status s;
    if (!(s = gd_operand_class(&X0, cls, &Xc, &al, &cx, "X")) &&
        !(s = gd_operand_class(&Y0, cls, &Yc, &al, &cy, "Y")) &&
        !(s = gd_operand_host(&Xc, &X, &hx, "X")) && !(s = gd_operand_host(&Yc, &Y, &hy, "Y")) &&
        !(s = gd_host_result_begin(&Dout, bytes, what, &buf))) {
        idx = (int32_t *)malloc((size_t)(K * my) * 4 + 4);
        if (!idx) {
            s = gd_fail(GD_ERR_MEMORY, "cannot allocate the indices (%.1f MiB) in host memory",
                        gd_mib((size_t)(K * my) * 4));
        } else if (X.ld != mx || Y.ld != my) {
            s = gd_fail(GD_ERR_INPUT, "internal: the cpu variant takes tight operands");
        } else {
            const double t0 = gd_now_ms();
            const int r = cls == GD_SINGLE
                              ? gd_cpu_knn_f((const float *)X.ptr, (const float *)Y.ptr, mx, my,
                                             d, metric, K, largest, (float *)buf, idx)
                              : gd_cpu_knn_d((const double *)X.ptr, (const double *)Y.ptr, mx,
                                             my, d, metric, K, largest, (double *)buf, idx);
            if (r) s = gd_fail(GD_ERR_MEMORY, "cannot allocate the threads' distance columns");
            t->kernel_ms = gd_now_ms() - t0;
        }
    }
    if (buf || Dout.device) s = gd_host_result_end(&Dout, buf, bytes, s, t);
    if (!s) s = gd_host_index_result(&Iout, idx, K, my, icls, &Dout, "I", t);
    free(idx);
    free(hx);
    free(hy);
    free(cx);
    free(cy);
    s = gd_end_call(s, &al, t);
    snprintf(t->variant, sizeof t->variant, "cpu");
    snprintf(t->device, sizeof t->device, "cpu (OpenMP)");
    return s;
}

/* One GPU call of the fused neighbours: X's rows (the points) in splits of
 * row tiles, Y's (the queries) in batches of query tiles, each query's
 * best K kept in lists a split and merged by knn_final. */
template <class T> struct knn_gpu {
    typedef gd_tile::shape<T> S;
    enum { NQ = 8 * S::TY, NT = 16 * S::TY };
    static constexpr size_t es = sizeof(T), isz = sizeof(item<T>);
    static constexpr gd_class cls = sizeof(T) == 4 ? GD_SINGLE : GD_DOUBLE;
    gd_call &c;
    gd_distance metric;
    int64_t K;
    int largest;
    gd_out &Dout, &Iout;
    gd_class icls;
    int64_t mx, my, d, mp, np, kp, xtiles, qtiles;
    cudaStream_t st;
    gd_matrix Xc, Yc;
    const T *dX = NULL, *dY = NULL;
    T *dXp = NULL, *dYp = NULL, *dD = NULL;
    int32_t *dI = NULL;
    void *dL = NULL, *dM = NULL, *dInfo = NULL, *keptI = NULL;
    /* X from the host goes straight into its padded layout, in pieces;
     * from the GPU it is padded by a kernel */
    bool up_x = false;
    fused_kernel<T> fk;
    size_t dyn = (size_t)NQ * CAP * isz;
    int64_t splits = 1, batch = 1, tps = 1;
    int pieces = 1;
    fused_args<T> fa;
    /* D and I already on the device (a part of a search, the gemm
     * variant's fallback): allocate() takes these */
    T *extD = NULL;
    int32_t *extI = NULL;

    knn_gpu(gd_call &c_, const gd_matrix &X0, const gd_matrix &Y0, gd_distance m, int64_t K_,
            int lg, gd_out &D, gd_out &I, gd_class ic)
        : c(c_), metric(m), K(K_), largest(lg), Dout(D), Iout(I), icls(ic), mx(X0.rows),
          my(Y0.rows), d(X0.cols), st(gd_stream())
    {
        mp = gd_round_up(mx, gd_tile::BIG);
        np = gd_round_up(my, NQ);
        kp = gd_round_up(d > 0 ? d : 1, BK);
        xtiles = mp / gd_tile::BIG;
        qtiles = np / NQ;
        Xc = c.in_class(X0, cls, "X");
        Yc = c.in_class(Y0, cls, "Y");
        up_x = Xc.where != GD_DEVICE;
        fk = with_metric<T>(metric.metric, metric.p, fused_kernel<T>{});
    }

    /* the operands, their padded layouts and the results on the device */
    bool allocate()
    {
        char what[128];
        if (!up_x) dX = (const T *)c.on_device(Xc, c.event(), st, "X");
        dY = (const T *)c.on_device(Yc, c.event(), st, "Y");
        gd_describe(what, sizeof what, "padded X", mp, kp, cls);
        dXp = (T *)c.alloc((size_t)(mp * kp) * es, what);
        gd_describe(what, sizeof what, "padded Y", np, kp, cls);
        dYp = (T *)c.alloc((size_t)(np * kp) * es, what);
        if (extD) {
            dD = extD;
            dI = extI;
        } else if (!dD) {
            allocate_out();
        }
        if (metric_rows(metric.metric)) {
            /* (as long as the padded operands: the kernel reads the pad's
             * too, zeros, and drops what it makes of them) */
            gd_describe(what, sizeof what, "the rows' norms and NaN flags", mp + np, 1, cls);
            dInfo = c.alloc((size_t)(mp + np) * (es + 1), what);
        }
        return c.ok();
    }

    /* D and I on the device, kept (gdArrays) or for the host */
    bool allocate_out()
    {
        char what[128];
        const size_t n = (size_t)(K * my);
        gd_describe(what, sizeof what, "D", K, my, cls);
        dD = (T *)(Dout.device ? c.alloc_kept(Dout, n * es, what) : c.alloc(n * es, what));
        gd_describe(what, sizeof what, "I", K, my, GD_INT32);
        dI = (int32_t *)(Iout.device && icls == GD_INT32 ? c.alloc_kept(Iout, n * 4, what)
                                                         : c.alloc(n * 4, what));
        if (Iout.device && icls != GD_INT32) {
            gd_describe(what, sizeof what, "I", K, my, icls);
            keptI = c.alloc_kept(Iout, n * gd_class_bytes(icls), what);
        }
        return c.ok();
    }

    /* Splits of X's row tiles, so that the blocks fill the GPU: the time of
     * a launch is its waves times the tiles of its longest split (every
     * block of a wave runs alongside the others), and each split costs
     * about 2 + K/16 tiles more (its lists fill again, its buckets merge,
     * the final kernel merges its lists). Among 1 ... 64 splits the
     * cheapest, the fewest where two tie (8192 queries among 65536 points
     * on an H100: 3 splits of 171 tiles, one wave, against 32 of 16 in
     * eleven waves); the lists' memory (two buffers of K items a query and
     * split) within a quarter of what is free, in batches of query tiles
     * where even one split does not fit. */
    bool plan()
    {
        int per_sm = 0;
        if (!c.cuda(cudaFuncSetAttribute(fk.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)dyn),
                    "the neighbour kernel's shared memory") ||
            !c.cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fk.fn, NT, dyn),
                    "the neighbour kernel's occupancy"))
            return false;
        const double slots = (double)gd_sm_count() * (per_sm > 0 ? per_sm : 1);
        double best = INFINITY;
        for (int64_t n = 1; n <= 64 && n <= xtiles; ++n) {
            const int64_t tiles = (xtiles + n - 1) / n;
            if ((xtiles + tiles - 1) / tiles != n) continue; // the same as fewer
            const double cost = ceil((double)(qtiles * n) / slots) * ((double)tiles + 2 + K / 16.0);
            if (cost < best) {
                best = cost;
                splits = n;
            }
        }
        int64_t budget = c.free_bytes() / 4;
        if (c.cap_left() / 2 < budget) budget = c.cap_left() / 2;
        const int64_t per_tile = NQ * (2 * K + OV) * (int64_t)isz;
        while (splits > 1 && splits * qtiles * per_tile > budget) --splits;
        batch = budget / (splits * per_tile);
        if (batch > qtiles) batch = qtiles;
        if (batch < 1) batch = 1;
        tps = (xtiles + splits - 1) / splits;
        splits = (xtiles + tps - 1) / tps;
        /* X from the host in pieces of whole splits, each on a stream of
         * its own: a piece's splits start once its rows have arrived, while
         * the rest are still on their way (the first piece the smallest).
         * One piece where X is small or the queries take one split. */
        if (up_x && (size_t)(mx * d) * es >= ((size_t)16 << 20)) {
            const int q = gd_knn_pieces(3);
            pieces = splits < q ? (int)splits : q;
        }
        char what[128];
        gd_describe(what, sizeof what, "the neighbour lists", splits * batch * NQ, 2 * K, GD_INT32);
        dL = c.alloc((size_t)(splits * batch * per_tile), what);
        dM = c.alloc((size_t)(splits * batch * NQ) * sizeof(int2), "list lengths");
        return c.ok();
    }

    /* the padded layouts (X's padding cleared where its rows come from the
     * host in pieces), the rows' norms, minkowski's p, the poison */
    void prepare()
    {
        c.begin(GD_PHASE_PREP, st);
        dim3 gx((unsigned)(mp / 256 + 1), gd_grid_y(kp)), gy((unsigned)(np / 256 + 1), gd_grid_y(kp));
        if (!up_x) gd_tile::pad_rows<T><<<gx, 256, 0, st>>>(dX, dXp, mx, d, mp, kp);
        gd_tile::pad_rows<T><<<gy, 256, 0, st>>>(dY, dYp, my, d, np, kp);
        if (up_x) {
            /* X's padding (rows past mx, features past d), before its rows
             * land beside it on the same stream */
            cudaStream_t cs = gd_copy_stream();
            if (mp > mx)
                c.cuda(cudaMemset2DAsync((char *)dXp + (size_t)mx * es, (size_t)mp * es, 0,
                                         (size_t)(mp - mx) * es, (size_t)kp, cs),
                       "clearing X's padding");
            if (kp > d)
                c.cuda(cudaMemsetAsync((char *)dXp + (size_t)(d * mp) * es, 0,
                                       (size_t)((kp - d) * mp) * es, cs),
                       "clearing X's padding");
        }
        fa.md.metric = metric.metric;
        fa.md.d = d;
        fa.md.nx = fa.md.ny = NULL;
        fa.md.fx = fa.md.fy = NULL;
        if (dInfo) {
            T *nx = (T *)dInfo, *ny = nx + mp;
            unsigned char *fx = (unsigned char *)(ny + np), *fy = fx + mp;
            c.cuda(cudaMemsetAsync(dInfo, 0, (size_t)(mp + np) * (es + 1), st),
                   "clearing the rows' norms");
            if (!up_x) row_info<T><<<gd_blocks_for(mx, 256), 256, 0, st>>>(dX, mx, mx, d, nx, fx);
            row_info<T><<<gd_blocks_for(my, 256), 256, 0, st>>>(dY, my, my, d, ny, fy);
            fa.md.nx = nx;
            fa.md.ny = ny;
            fa.md.fx = fx;
            fa.md.fy = fy;
        }
        if (metric.metric == GD_MINKOWSKI) c.check(set_minkowski_p(metric.p, st));
        c.launched("preparing the operands");
        c.poison(dD, (size_t)(K * my) * es, st, "poisoning D");
        c.poison(dI, (size_t)(K * my) * 4, st, "poisoning I");
        c.end(GD_PHASE_PREP, st);
        fa.Xp = dXp;
        fa.Yp = dYp;
        fa.mp = mp;
        fa.np = np;
        fa.kp = kp;
        fa.mx = mx;
        fa.my = my;
        fa.d = d;
        fa.K = K;
        fa.tps = tps;
        fa.largest = largest;
        fa.all = (item<T> *)dL;
        fa.meta = (int2 *)dM;
    }

    /* the first batch of queries with X from the host: the pieces of X
     * are a pipeline's units, each on a stream of its own: a piece's rows
     * uploaded (gathered on the host while the pieces before it compute),
     * then its rows' norms and its splits queued behind them. The kernels'
     * time from the first piece's arrival. */
    void first_batch_in_pieces(int64_t nb)
    {
        gd_pipeline pl(c, st, gd_stream2(), gd_stream_hi());
        for (int p = 0; p < pieces && c.ok(); ++p) {
            const int64_t s0 = splits * p / pieces, s1 = splits * (p + 1) / pieces;
            const int64_t r0 = s0 * tps * gd_tile::BIG;
            int64_t r1 = s1 * tps * gd_tile::BIG;
            if (r1 > mx) r1 = mx;
            if (!pl.upload((char *)dXp + (size_t)r0 * es, (size_t)mp * es,
                           (const char *)Xc.ptr + (size_t)r0 * es, (size_t)Xc.ld * es,
                           (size_t)(r1 - r0) * es, (size_t)d, "copy of X to the GPU"))
                break;
            if (p == 0) pl.units_begin(GD_PHASE_KERNEL); /* X's first rows are here */
            const cudaStream_t cs = pl.stream();
            if (dInfo && r1 > r0) /* the piece's rows' norms and NaN flags */
                row_info<T><<<gd_blocks_for(r1 - r0, 256), 256, 0, cs>>>(
                    dXp + r0, mp, r1 - r0, d, (T *)fa.md.nx + r0, (unsigned char *)fa.md.fx + r0);
            fa.split0 = s0;
            fk.launch(dim3((unsigned)nb, (unsigned)s1), NT, dyn, cs, fa);
            pl.unit_done("the neighbour kernels");
        }
        pl.end();
        c.begin(GD_PHASE_KERNEL, st); /* the merge and the later batches */
    }

    /* every batch of query tiles through the fused kernel and the merge */
    void compute()
    {
        if (!up_x) c.begin(GD_PHASE_KERNEL, st);
        for (int64_t qt0 = 0; qt0 < qtiles && c.go_on(st, "query tile", (double)qt0, (double)qtiles);
             qt0 += batch) {
            const int64_t nb = qtiles - qt0 < batch ? qtiles - qt0 : batch;
            fa.qt0 = qt0;
            fa.nqt = nb;
            fa.split0 = 0;
            if (qt0 > 0 || !up_x)
                fk.launch(dim3((unsigned)nb, (unsigned)splits), NT, dyn, st, fa);
            else
                first_batch_in_pieces(nb);
            const int64_t warps = nb * NQ;
            if (c.ok())
                knn_final<T><<<(unsigned)((warps + 7) / 8), 256, 0, st>>>(
                    (item<T> *)dL, (const int2 *)dM, nb, splits, NQ, K, K, qt0, my, largest, dD,
                    dI);
            c.launched("the neighbour kernels");
        }
        c.end(GD_PHASE_KERNEL, st);
    }

    /* D down (or kept), I widened to its class on the device (kept) or
     * through the host's conversion, as the cpu variant's */
    void deliver(gd_timing *t)
    {
        if (keptI) gd_launch_widen(icls, dI, K, keptI, K, my, st);
        c.launched("the indices' class");
        const cudaEvent_t computed = c.event();
        c.cuda(cudaEventRecord(computed, st), "the neighbour kernels");
        const size_t bytes = (size_t)(K * my) * es;
        if (!Dout.device) {
            char what[96];
            gd_describe(what, sizeof what, "D", K, my, cls);
            void *h = c.host_result(Dout, bytes, what);
            if (h) c.download(h, bytes, dD, bytes, bytes, 1, computed, "copy of D from the GPU");
        }
        c.wait(st, "the neighbour kernels");
        if (Iout.device || !c.ok()) return;
        int32_t *h = (int32_t *)c.host_alloc((size_t)(K * my) * 4, "the indices");
        if (h && c.cuda(cudaMemcpy(h, dI, (size_t)(K * my) * 4, cudaMemcpyDeviceToHost),
                        "copy of I from the GPU"))
            c.check(gd_host_index_result(&Iout, h, K, my, icls, &Dout, "I", t));
    }
};


/* Why the gemm variant does not serve a search (NULL: it does). */
const char *gemm_unfit(gd_distance metric, int64_t K, int64_t mx, int64_t d)
{
    if (metric.metric != GD_EUCLIDEAN && metric.metric != GD_SQEUCLIDEAN &&
        metric.metric != GD_COSINE)
        return "only euclidean, squaredeuclidean and cosine";
    if (gd_cc_major() < 8) return "no TF32 tensor cores (sm_80 or later)";
    return gd_knn_gemm_unfit(mx, K, d);
}

/* The gemm variant on one device: false where X holds NaN or Inf (the
 * caller runs 'fused' for every query), else true (done, or the call
 * failed). The queries it leaves run 'fused': their rows gathered, a
 * second search over X on the device, its D and I scattered into the
 * columns they belong to. */
template <class T> bool run_gemm(gd_call &c, knn_gpu<T> &g, gd_timing *t, gd_knn_share *sh)
{
    /* X from the host goes up in pieces inside the search (its first
     * tiles computed while the rest arrive) */
    const int64_t my = g.my, K = g.K, mx = g.mx, d = g.d;
    char what[96];
    gd_describe(what, sizeof what, "X", mx, d, g.cls);
    const T *dX = (const T *)(g.up_x ? c.alloc((size_t)(mx * d) * sizeof(T), what)
                                     : c.on_device(g.Xc, c.event(), g.st, "X"));
    const T *dY = (const T *)c.on_device(g.Yc, c.event(), g.st, "Y");
    if (!g.allocate_out()) return true;
    c.poison(g.dD, (size_t)(K * my) * sizeof(T), g.st, "poisoning D");
    c.poison(g.dI, (size_t)(K * my) * 4, g.st, "poisoning I");
    gd_knn_gemm_args a = {dX, dY, g.up_x ? &g.Xc : NULL, mx, my, mx, my, d, K,
                          g.metric.metric == GD_EUCLIDEAN, g.largest != 0, g.dD, g.dI,
                          g.metric.metric == GD_COSINE, g.up_x ? sh : NULL};
    unsigned char *fell = (unsigned char *)c.host_alloc((size_t)my + 1, "the queries' flags");
    if (!fell) return true;
    bool all = false;
    const int64_t nf = gd_knn_gemm<T>(c, a, fell, &all);
    if (all) return false;
    if (!c.ok()) return true;
    if (nf > 0) {
        int32_t *hj = (int32_t *)c.host_alloc((size_t)nf * 4, "the fallen queries");
        if (!hj) return true;
        for (int64_t j = 0, r = 0; j < my; ++j)
            if (fell[j]) hj[r++] = (int32_t)j;
        gd_describe(what, sizeof what, "the fallen queries' rows", nf, d, g.cls);
        /* their rows, D, I and places in one allocation */
        T *Ys = (T *)c.alloc((size_t)(nf * d + nf * K) * sizeof(T) + (size_t)(nf * K + nf) * 4, what);
        if (!c.ok()) return true;
        T *Ds = Ys + nf * d;
        int32_t *Is = (int32_t *)(Ds + nf * K), *dj = Is + nf * K;
        if (
            !c.cuda(cudaMemcpyAsync(dj, hj, (size_t)nf * 4, cudaMemcpyHostToDevice, g.st),
                    "the fallen queries") ||
            !c.cuda(cudaStreamSynchronize(g.st), "the fallen queries"))
            return true;
        gather_rows<T><<<gd_blocks_for(nf * d, 256), 256, 0, g.st>>>(dY, my, d, dj, nf, Ys);
        c.launched("gathering the fallen queries");
        gd_matrix Xd = {dX, GD_DEVICE, g.cls, mx, d, mx, 0};
        gd_matrix Yd = {Ys, GD_DEVICE, g.cls, nf, d, nf, 0};
        gd_out none = {};
        knn_gpu<T> h(c, Xd, Yd, g.metric, K, g.largest, none, none, GD_INT32);
        h.extD = Ds;
        h.extI = Is;
        if (h.allocate() && h.plan()) {
            h.prepare();
            h.compute();
        }
        scatter_cols<T><<<gd_blocks_for(nf * K, 256), 256, 0, g.st>>>(Ds, Is, K, dj, nf, g.dD, g.dI);
        c.launched("the fallen queries' neighbours");
    }
    snprintf(t->kernel, sizeof t->kernel, "certified candidates, %lld of %lld quer%s by fused",
             (long long)nf, (long long)my, my == 1 ? "y" : "ies");
    g.deliver(t);
    return true;
}

template <class T>
gd_status run_gpu(const gd_matrix &X0, const gd_matrix &Y0, gd_distance metric, int64_t K,
                  int largest, gd_out Dout, gd_out Iout, gd_class icls, gd_timing *t,
                  bool gemm = false, gd_knn_share *sh = NULL)
{
    gd_call c(t, gemm ? "gemm" : "fused");
    if (!c.ok()) return c.finish();
    knn_gpu<T> g(c, X0, Y0, metric, K, largest, Dout, Iout, icls);
    const char *why = gemm ? gemm_unfit(metric, K, g.mx, g.d) : NULL;
    if (gemm && !why) {
        /* what the search holds at least (X, its TF32 and by-rows forms,
         * Y's, a batch of 128 queries' records and candidates): where a
         * cap or the free memory leaves no room, 'fused' (which needs far
         * less) */
        const double need = (double)g.mx * g.d * sizeof(T) +
                            (double)gd_knn_gemm_bytes(g.mx, g.my, g.d, sizeof(T),
                                                      g.metric.metric == GD_COSINE, 0);
        int64_t room = c.free_bytes();
        if (c.cap_left() < room) room = c.cap_left();
        if (need > 0.8 * (double)room) why = "not enough GPU memory";
    }
    /* a part that does not search by gemm from the host leaves X's share
     * at once: the others upload what it would have */
    if (sh && (why || !g.up_x || !c.ok())) sh->leave(false);
    if (gemm && !why) {
        if (run_gemm(c, g, t, sh)) return c.finish();
        why = metric.metric == GD_COSINE ? "a row of X with NaN, Inf, or a zero or extreme norm"
                                         : "X holds NaN or Inf";
    }
    if (g.allocate() && g.plan()) {
        snprintf(t->kernel, sizeof t->kernel, "%s%s%s%lld split%s", gemm ? "fused (gemm: " : "",
                 gemm ? why : "", gemm ? "), " : "", (long long)g.splits, g.splits > 1 ? "s" : "");
        if (g.pieces > 1) {
            const size_t at = strlen(t->kernel);
            snprintf(t->kernel + at, sizeof t->kernel - at, ", X in %d pieces", g.pieces);
        }
        g.prepare();
        g.compute();
        g.deliver(t);
    }
    return c.finish();
}

/* ---------------------------------------------------------------------
 * Across devices. Where Y has as many rows as X or more, or the variant is
 * gemm, each device takes a range of queries (Y's rows: D's and I's
 * columns, contiguous) with the whole of X. Where X is the larger (fused),
 * each takes a range of X's rows with
 * every query and finds each query's K nearest among its rows; the host
 * then merges the devices' lists in the kernels' own order, (key, row):
 * a candidate's distance does not depend on which rows share its tile,
 * so the K least of the union are the one-device result, ties included. */
struct knn_split {
    const gd_matrix *X, *Y;
    gd_class cls, icls;
    gd_distance metric;
    int64_t K;
    int largest;
    bool points;    /* X's rows split; else the queries */
    bool gemm;      /* the gemm variant (else fused) */
    gd_out D, I;
    void *pd;       /* points: the parts' lists, K x my each */
    int32_t *pi;
    int64_t mult;
    gd_share *share; /* gemm, queries split, X from the host: X's upload
                        shared (or NULL), in pieces */
    int pieces;
};

gd_status knn_part(void *c, int i, int nparts, gd_timing *t)
{
    const knn_split &x = *(const knn_split *)c;
    const size_t es = gd_class_bytes(x.cls);
    int64_t lo, hi;
    gd_matrix X = *x.X, Y = *x.Y;
    gd_out D = {}, I = {};
    gd_class icls = x.icls;
    if (x.points) {
        gd_part_range(X.rows, x.mult, i, nparts, &lo, &hi);
        X.ptr = (const char *)X.ptr + (size_t)lo * gd_class_bytes(X.cls);
        X.rows = hi - lo;
        D.ptr = (char *)x.pd + (size_t)(i * x.K * Y.rows) * es;
        I.ptr = x.pi + i * x.K * Y.rows;
        icls = GD_INT32;
    } else {
        gd_part_range(Y.rows, x.mult, i, nparts, &lo, &hi);
        Y.ptr = (const char *)Y.ptr + (size_t)lo * gd_class_bytes(Y.cls);
        Y.rows = hi - lo;
        D.ptr = (char *)x.D.ptr + (size_t)(lo * x.K) * es;
        I.ptr = (char *)x.I.ptr + (size_t)(lo * x.K) * gd_class_bytes(x.icls);
    }
    gd_knn_share sh = {x.share, i, nparts, x.pieces, false};
    gd_status s = GD_OK;
    if (Y.rows > 0 || x.points)
        s = x.cls == GD_SINGLE ? run_gpu<float>(X, Y, x.metric, x.K, x.largest, D, I, icls, t,
                                                x.gemm, x.share ? &sh : NULL)
                               : run_gpu<double>(X, Y, x.metric, x.K, x.largest, D, I, icls, t,
                                                 x.gemm, x.share ? &sh : NULL);
    if (x.share) sh.leave(false);
    return s;
}

/* query j's K least of the parts' lists, by (key, row) */
template <class T>
void merge_lists(const knn_split &x, int nparts, const int64_t *first_row)
{
    const int64_t K = x.K, my = x.Y->rows;
    const T *pd = (const T *)x.pd;
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads())
    for (int64_t j = 0; j < my; ++j) {
        int64_t at[GD_MAX_DEVICES] = {};
        for (int64_t k = 0; k < K; ++k) {
            int best = -1;
            uint64_t bkey = 0;
            int64_t brow = 0;
            for (int p = 0; p < nparts; ++p) {
                if (at[p] == K) continue;
                const int64_t e = p * K * my + j * K + at[p];
                const uint64_t key = sizeof(T) == 4 ? gd_key_f((float)pd[e], x.largest)
                                                    : gd_key_d((double)pd[e], x.largest);
                const int64_t row = first_row[p] + x.pi[e];
                if (best < 0 || key < bkey || (key == bkey && row < brow)) {
                    best = p;
                    bkey = key;
                    brow = row;
                }
            }
            const int64_t e = best * K * my + j * K + at[best]++;
            ((T *)x.D.ptr)[j * K + k] = pd[e];
            if (x.icls == GD_INT32)
                ((int32_t *)x.I.ptr)[j * K + k] = (int32_t)brow;
            else
                ((double *)x.I.ptr)[j * K + k] = (double)brow;
        }
    }
}

gd_status split_knn(knn_split &x, int nd, const int *idx, gd_timing *t)
{
    const int64_t K = x.K, my = x.Y->rows;
    const size_t es = gd_class_bytes(x.cls);
    char what[96];
    gd_describe(what, sizeof what, "D", K, my, x.cls);
    gd_status s = gd_out_buffer(&x.D, (size_t)(K * my) * es, what);
    gd_describe(what, sizeof what, "I", K, my, x.icls);
    if (!s) s = gd_out_buffer(&x.I, (size_t)(K * my) * gd_class_bytes(x.icls), what);
    if (s) return s;
    if (!x.points) {
        /* X from the host to every device: each uploads a share of it and
         * pulls the rest from the others (the host's copies, which two
         * devices' uploads of all of X contended for, halve) */
        if (x.gemm && x.X->where == GD_HOST) {
            x.pieces = gd_knn_gemm_pieces((size_t)(x.X->rows * x.X->cols) * gd_class_bytes(x.cls));
            x.share = gd_share_make(nd, idx, x.pieces);
        }
        s = gd_run_parts(nd, idx, knn_part, &x, t);
        gd_share_free(x.share);
        x.share = NULL;
        return s;
    }
    x.pd = malloc((size_t)(nd * K * my) * es + 8);
    x.pi = (int32_t *)malloc((size_t)(nd * K * my) * 4 + 4);
    if (!x.pd || !x.pi) {
        s = gd_fail(GD_ERR_MEMORY, "cannot allocate the devices' neighbour lists (%.1f MiB) in "
                    "host memory", gd_mib((size_t)(nd * K * my) * (es + 4)));
    } else if (!(s = gd_run_parts(nd, idx, knn_part, &x, t))) {
        int64_t first_row[GD_MAX_DEVICES], hi;
        for (int p = 0; p < nd; ++p) gd_part_range(x.X->rows, x.mult, p, nd, &first_row[p], &hi);
        const double t0 = gd_now_ms();
        if (x.cls == GD_SINGLE)
            merge_lists<float>(x, nd, first_row);
        else
            merge_lists<double>(x, nd, first_row);
        t->prep_ms += gd_now_ms() - t0;
        snprintf(t->kernel, sizeof t->kernel, "rows split, merged");
    }
    free(x.pd);
    free(x.pi);
    return s;
}

} // namespace

extern "C" int gd_knn_variants(const gd_variant_info **list)
{
    *list = VARIANTS;
    return NVARIANTS;
}

extern "C" gd_status gd_knn(const char *name, const gd_matrix *X, const gd_matrix *Y,
                            gd_distance dist, int64_t K, int largest, gd_out D, gd_out I,
                            gd_class icls, gd_timing *t)
{
    const gd_metric metric = dist.metric;
    gd_entry entry(t);
    const double t0 = gd_now_ms();
    if (D.device) *D.device = NULL;
    if (I.device) *I.device = NULL;
    const int64_t my = Y->rows, d = X->cols;
    int64_t mx = X->rows;
    const gd_class cls = (X->cls == GD_SINGLE || Y->cls == GD_SINGLE) ? GD_SINGLE : GD_DOUBLE;
    gd_status s;
    if (Y->cols != d)
        return gd_fail(GD_ERR_SIZE, "X and Y must have the same number of columns: X is "
                       "%lldx%lld, Y is %lldx%lld", (long long)mx, (long long)d, (long long)my,
                       (long long)Y->cols);
    if ((s = gd_check_size("X", mx, d, gd_class_bytes(cls))) ||
        (s = gd_check_size("Y", my, d, gd_class_bytes(cls))))
        return s;
    if (mx >= ((int64_t)1 << 31))
        return gd_fail(GD_ERR_SIZE, "X has %lld rows: the neighbours' rows are 32-bit (at most "
                       "2^31 - 1)", (long long)mx);
    if (K > mx || (K < 1 && mx > 0) || K < 0)
        return gd_fail(GD_ERR_INPUT, "K must be between 1 and the rows of X (%lld), not %lld",
                       (long long)mx, (long long)K);
    if ((s = gd_check_size("D", K, my, gd_class_bytes(cls)))) return s;
    t->ops = (double)mx * (double)my * (double)d;
    t->resident = (X->where == GD_DEVICE ? 1u : 0u) | (Y->where == GD_DEVICE ? 2u : 0u);
    /* resident operands on another device: copied to this thread's */
    gd_local here;
    gd_matrix Xh, Yh;
    if ((s = here.take2(X, Y, &Xh, &Yh))) return s;
    X = &Xh;
    Y = &Yh;
    /* no features: every pair's distance is the metric's value on two empty
     * rows, and ties go to the lower row, so X's first K rows are the
     * answer; the search over the rest would find nothing (and a million
     * empty rows each side are 10^12 pairs) */
    if (d == 0 && mx > K) Xh.rows = Xh.ld = mx = K;
    int v = -1;
    /* every metric runs fused, but jaccard in single past 65535 features,
     * whose counts would not fit the tile's 16 bits (as pdist2's tuned) */
    if (metric == GD_JACCARD && cls == GD_SINGLE && d > 65535) {
        if (strcmp(name, "fused") == 0)
            return gd_fail(GD_ERR_VARIANT, "jaccard in single on the GPU counts at most 65535 "
                           "features (X has %lld); the 'cpu' variant takes any ('auto' chooses "
                           "it)", (long long)d);
        if (strcmp(name, "auto") == 0) name = "cpu";
    }
    if (strcmp(name, "auto") == 0) {
        bool gpu;
        if ((s = gd_auto_device(t, &gpu))) return s;
        const bool resident = t->resident || D.device || I.device;
        v = gpu && (t->ops >= AUTO_CPU_BELOW || resident) ? 0 : 1;
        /* the gemm variant where it serves and pays (AUTO_GEMM_FROM) */
        if (v == 0 && t->ops >= AUTO_GEMM_FROM && !gemm_unfit(dist, K, mx, d) &&
            (mx + 127) / 128 >= AUTO_GEMM_TILES_K * K)
            v = 2;
    } else {
        for (int i = 0; i < NVARIANTS; ++i)
            if (strcmp(VARIANTS[i].name, name) == 0) v = i;
        if (v < 0) return gd_fail(GD_ERR_VARIANT, "unknown variant '%s'", name);
    }
    /* across devices: nothing resident (that lives on this thread's
     * device); X's rows split where X is the larger and every part still
     * has K rows, else the queries */
    knn_split x = {};
    x.X = X;
    x.Y = Y;
    x.cls = cls;
    x.icls = icls;
    x.metric = dist;
    x.K = K;
    x.largest = largest;
    x.D = D;
    x.I = I;
    x.gemm = v == 2;
    /* gemm: the queries split, whatever X's size (each device's search
     * is then half of every pass; with X's rows split, each device
     * re-ranked K candidates a query, every query) */
    x.points = mx > my && !x.gemm;
    x.mult = x.points ? gd_tile::BIG : 64;
    gd_op_call oc = {};
    oc.variant = VARIANTS[v].name;
    oc.gpu = v != 1;
    oc.empty = my == 0 || K == 0;
    oc.outs[0] = &D;
    oc.outs[1] = &I;
    oc.names[0] = "D";
    oc.names[1] = "I";
    oc.resident = t->resident || D.device || I.device;
    oc.split_min = !x.gemm ? SPLIT_MIN : my >= SPLIT_GEMM_QUERIES ? SPLIT_MIN_GEMM : HUGE_VAL;
    oc.units = ((x.points ? mx : my) + x.mult - 1) / x.mult;
    auto one = [&] {
        return cls == GD_SINGLE
                   ? run_gpu<float>(*X, *Y, dist, K, largest, D, I, icls, t, x.gemm)
                   : run_gpu<double>(*X, *Y, dist, K, largest, D, I, icls, t, x.gemm);
    };
    s = gd_run_op(
        oc, t, [&] { return run_cpu(*X, *Y, cls, dist, K, largest, D, I, icls, t); }, one,
        [&](int nd, const int *idx) {
            /* X's rows split: every part must hold K rows (the last one
             * is the shortest) */
            for (int64_t lo, hi; x.points && nd > 1; --nd) {
                gd_part_range(mx, x.mult, nd - 1, nd, &lo, &hi);
                if (hi - lo >= K) break;
            }
            return gd_split_needed(nd, idx) ? split_knn(x, nd, idx, t) : one();
        });
    t->total_ms = gd_now_ms() - t0;
    return s;
}
