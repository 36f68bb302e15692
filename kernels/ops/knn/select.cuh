/* ops/knn/select.cuh - the selection: candidates as (key, row), the warp's sort and merges, a block's lists, the seeds of a split's bound.
 * Part of knn.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */

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
// An item into the lists in global memory. In double the item's 16
// bytes are written whole, its four bytes of padding zero: a later copy
// moves all 16, and padding no store wrote is a read of uninitialized
// memory to compute-sanitizer's initcheck. (A named padding member did
// the same, but as a register of every item in flight it made the fused
// kernel spill.)
template <class T> __device__ __forceinline__ void put(item<T> *p, const item<T> &e) { *p = e; }
template <> __device__ __forceinline__ void put<double>(item<double> *p, const item<double> &e)
{
    unsigned long long *q = reinterpret_cast<unsigned long long *>(p);
    q[0] = e.key;
    q[1] = e.row;
}
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
        if (q < K) put(dst + q, e);
    }
    for (int64_t p = lane; p < eb; p += 32) {
        const item<T> e = b[p];
        const int64_t q = p + rank_in(a, ea, e);
        if (q < K) put(dst + q, e);
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
                put(dst + p, e);
                if (p == K - 1) *kth = e;
            }
        }
        e = next;
    }
    if (lane < c) {
        const int64_t p = lane + below;
        if (p < K) {
            put(dst + p, x);
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

