/* ops/knn/fused.cuh - the fused kernel (pdist2's tile, each distance offered to its query's list) and the splits' final merge.
 * Part of knn.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
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
                put(L + q * (2 * K + OV) + 2 * K + (at - CAP), e);
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

