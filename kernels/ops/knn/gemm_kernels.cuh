/* ops/knn/gemm_kernels.cuh - the 'gemm' search's kernels: the rows' TF32 forms and bound parts, the TF32 product with the bounds' records, tau's select, the candidates, the exact re-rank.
 * Part of gemm.cu, which includes it inside its anonymous namespace. */

// block tile 128 x 128 of 4 warps; KC features a stage, ST stages; LDS
// the shared row (KC + 4: conflict-free fragments); CAP candidates a
// query; RB, KR the re-rank's points at a time and features a stage
enum { TM = 128, TN = 128, KC = 32, LDS = KC + 4, NT = 128, ST = 3, CAP = 4096 };
enum { RB = 256, KR = 32, HB = 2048 };
constexpr int STAGE_FLOATS = (TM + TN) * LDS;
// K at most this ('auto' and 'gemm' leave larger K to 'fused': a tile
// holding two candidates is taken whole, and past some hundreds of
// neighbours most tiles do)
const int64_t KMAX = 256;

struct lrec {
    float L1, L2;
    int i1;
};

// the tf32 value of x (round to nearest, ties away: cvt.rna)
__device__ __forceinline__ float tf32(float x)
{
#if __CUDA_ARCH__ >= 800
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
#else
    return x;
#endif
}

#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ void mma_tf32(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// stage of features k0 .. k0 + KC of query rows q0 .. and point rows x0 ..
// (rows padded to 128, features to KC: no bounds)
__device__ __forceinline__ void load_stage(float *sm, const float *Q, const float *X, int64_t dp,
                                           int64_t q0, int64_t x0, int64_t k0)
{
    float *Qs = sm, *Xs = sm + TM * LDS;
#pragma unroll
    for (int i = 0; i < TM * KC / 4 / NT; ++i) {
        const int e = threadIdx.x + NT * i, r = e / (KC / 4), c = e % (KC / 4) * 4;
        gd_tile::copy16_async(Qs + r * LDS + c, Q + (q0 + r) * dp + k0 + c);
        gd_tile::copy16_async(Xs + r * LDS + c, X + (x0 + r) * dp + k0 + c);
    }
}
#endif

// the column means of X (mx x d, ld), summed in double: any centre keeps
// the bound; one near the data keeps it small
template <class T> __global__ void centre(const T *X, int64_t ld, int64_t mx, T *c)
{
    __shared__ double part[256];
    const int64_t k = blockIdx.x;
    double s = 0;
    for (int64_t i = threadIdx.x; i < mx; i += blockDim.x) s += (double)X[i + ld * k];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) c[k] = (T)(part[0] / (double)mx);
}

// each row i < rows of A (column-major, ld): the sum of squares n of the
// row less c (in the class, by FMA, features in order) and the bound's
// parts cu, cl; rows past rows (to rows_p): cu = cl = Inf (never a
// candidate). bad: set where the row holds NaN or Inf or its norm passes
// what the bound can hold in float (the caller's choice what to do). A
// thread a row: the loads of a feature are contiguous.
template <class T>
__global__ void row_bounds(const T *A, int64_t ld, int64_t rows, int64_t rows_p, int64_t d,
                           const T *c, double kappa, bool largest, float *cu, float *cl,
                           unsigned char *bad, int *any_bad)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= rows_p) return;
    if (i >= rows) {
        cu[i] = cl[i] = INFINITY;
        return;
    }
    const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
    T n = 0;
    bool finite = true;
    for (int64_t k = 0; k < d; ++k) {
        const T x = A[i + ld * k];
        const T v = x - c[k];
        finite &= isfinite((double)x);
        n = fma(v, v, n);
    }
    const double g1 = (d + 1) * u / (1 - (d + 1) * u);
    const double r = sqrt((double)n) * (1 + g1 + 2 * u);
    // b: 2 kappa r^2, and d 2^-120 for products and norms that underflow
    // (each term of the product a tensor core flushes, or a float norm of
    // a double row, is off by less than 2^-126 each)
    const double b = 2 * kappa * r * r * (1 + 4 * 0x1p-53) + (double)d * 0x1p-120;
    // in float, outward; a norm past 2^120 (products near float's top)
    // cannot be held
    const bool ok = finite && (double)n < 0x1p120;
    // the largest: the parts of -f's bounds, -(n - b) up and -(n + b) down
    cu[i] = !ok ? INFINITY : largest ? __double2float_ru(b - (double)n) : __double2float_ru((double)n + b);
    cl[i] = !ok ? -INFINITY : largest ? __double2float_rd(-(double)n - b) : __double2float_rd((double)n - b);
    if (!ok) {
        if (bad) bad[i] = 1;
        if (any_bad) atomicOr(any_bad, 1);
    }
}

// cosine: each row i < rows's parts from its norm (row_info's, as
// 'fused''s) and NaN flag: cu_ok and cl_ok (1/2 +- B_cos/2, or the
// largest's, rounded outward) where the norm is in the bound's range, its
// inverse into inv; else as row_bounds leaves a bad row. Rows past rows
// (to rows_p): never candidates.
template <class T>
__global__ void cos_bounds(const T *__restrict__ norm, const unsigned char *__restrict__ nan,
                           int64_t rows, int64_t rows_p, float cu_ok, float cl_ok, T *inv,
                           float *cu, float *cl, unsigned char *bad, int *any_bad)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= rows_p) return;
    if (i >= rows) {
        cu[i] = cl[i] = INFINITY;
        inv[i] = 0;
        return;
    }
    // |x|^2 within [2^-60, 2^120] single, [2^-900, 2^1000] double
    const T n = norm[i], lo = sizeof(T) == 4 ? (T)0x1p-30 : (T)0x1p-450,
            hi = sizeof(T) == 4 ? (T)0x1p60 : (T)0x1p500;
    const bool ok = !nan[i] && n >= lo && n <= hi;
    inv[i] = ok ? 1 / n : 0;
    cu[i] = ok ? cu_ok : INFINITY;
    cl[i] = ok ? cl_ok : -INFINITY;
    if (!ok) {
        if (bad) bad[i] = 1;
        if (any_bad) atomicOr(any_bad, 1);
    }
}

// A (column-major, ld) by rows: At (rows_p x dp, row-major) the TF32 of
// each row less c (or, with inv, times inv[row]), zeros past the rows and
// features; Ar (rows x d, row-major) the rows as given. Tiles of 32 rows x 32 features through
// shared memory, so that reads and writes are both contiguous.
template <class T>
__global__ void rows_by_rows(const T *A, int64_t ld, int64_t rows, int64_t rows_p, int64_t d,
                             int64_t dp, const T *c, const T *inv, float *At, T *Ar)
{
    __shared__ T tile[32][33];
    const int64_t i0 = blockIdx.x * (int64_t)32, k0 = blockIdx.y * (int64_t)32;
    const int tx = threadIdx.x, ty = threadIdx.y; // 32 x 8
    for (int r = ty; r < 32; r += 8) { // r: a feature; tx: a row
        const int64_t i = i0 + tx, k = k0 + r;
        tile[r][tx] = i < rows && k < d ? A[i + ld * k] : (T)0;
    }
    __syncthreads();
    for (int r = ty; r < 32; r += 8) { // r: a row; tx: a feature
        const int64_t i = i0 + r, k = k0 + tx;
        if (i >= rows_p || k >= dp) continue;
        const T x = tile[tx][r];
        const bool in = i < rows && k < d;
        At[i * dp + k] = in ? tf32((float)(inv ? x * inv[i] : x - c[k])) : 0.0f;
        if (in) Ar[i * d + k] = x;
    }
}

#if __CUDA_ARCH__ >= 800
// the block's warp (wm, wn) lane (g, t) share of the product of query
// rows q0 .. q0 + TM and point rows x0 .. x0 + TN over dp features (nk
// stages of KC, ST in flight) into acc: each warp 64 x 64, tiles of
// m16n8k8 (a row's accumulators at [i][j][2h + r]: row wm 64 + 16 i + g +
// 8 h, point wn 64 + 8 j + 2 t + r)
__device__ __forceinline__ void tile_product(float (&acc)[4][8][4], float *sm, const float *Q,
                                             const float *X, int64_t dp, int64_t q0, int64_t x0,
                                             int nk, int wm, int wn, int g, int t)
{
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;
#pragma unroll
    for (int s = 0; s < ST - 1; ++s) {
        if (s < nk) load_stage(sm + s * STAGE_FLOATS, Q, X, dp, q0, x0, (int64_t)s * KC);
        gd_tile::commit_async();
    }
    for (int kc = 0; kc < nk; ++kc) {
        gd_tile::wait_async<ST - 2>();
        __syncthreads();
        {
            const int nx = kc + ST - 1;
            if (nx < nk) load_stage(sm + (nx % ST) * STAGE_FLOATS, Q, X, dp, q0, x0, (int64_t)nx * KC);
            gd_tile::commit_async();
        }
        const unsigned *Qs = (const unsigned *)(sm + (kc % ST) * STAGE_FLOATS);
        const unsigned *Xs = Qs + TM * LDS;
#pragma unroll
        for (int ks = 0; ks < KC; ks += 8) {
            unsigned a[4][4], b[8][2];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const unsigned *p = Qs + (wm * 64 + i * 16 + g) * LDS + ks + t;
                a[i][0] = p[0];
                a[i][1] = p[8 * LDS];
                a[i][2] = p[4];
                a[i][3] = p[8 * LDS + 4];
            }
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                const unsigned *p = Xs + (wn * 64 + j * 8 + g) * LDS + ks + t;
                b[j][0] = p[0];
                b[j][1] = p[4];
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) mma_tf32(acc[i][j], a[i], b[j]);
        }
    }
    gd_tile::wait_async<0>();
}

// each of the warp's rows over its 64 points: the least U = coef s + cu
// rounded up, the least L (down) with its point, the second least L, the
// row's four lanes merged; kept in acc[i][0..1] (past the barrier) and
// warp column 1's in part
__device__ __forceinline__ void warp_least(float (&acc)[4][8][4], float4 *part,
                                           const float *__restrict__ cux,
                                           const float *__restrict__ clx, int64_t x0, float coef,
                                           int wm, int wn, int g, int t)
{
    float cu[8][2], cl[8][2];
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int64_t x = x0 + wn * 64 + j * 8 + 2 * t + r;
            cu[j][r] = __ldg(cux + x);
            cl[j][r] = __ldg(clx + x);
        }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            float u = INFINITY, l1 = INFINITY, l2 = INFINITY;
            int i1 = 0;
#pragma unroll
            for (int j = 0; j < 8; ++j)
#pragma unroll
                for (int r = 0; r < 2; ++r) {
                    const float s = acc[i][j][2 * h + r];
                    u = fminf(u, __fmaf_ru(coef, s, cu[j][r]));
                    const float l = __fmaf_rd(coef, s, cl[j][r]);
                    const bool c = l < l1;
                    l2 = c ? l1 : fminf(l2, l);
                    i1 = c ? wn * 64 + j * 8 + 2 * t + r : i1;
                    l1 = c ? l : l1;
                }
#pragma unroll
            for (int o = 1; o <= 2; o <<= 1) { // the row's four lanes
                const float ou = __shfl_xor_sync(0xffffffffu, u, o);
                const float o1 = __shfl_xor_sync(0xffffffffu, l1, o);
                const float o2 = __shfl_xor_sync(0xffffffffu, l2, o);
                const int oi = __shfl_xor_sync(0xffffffffu, i1, o);
                u = fminf(u, ou);
                const bool c = o1 < l1 || (o1 == l1 && oi < i1);
                l2 = fminf(fmaxf(l1, o1), fminf(l2, o2));
                i1 = c ? oi : i1;
                l1 = c ? o1 : l1;
            }
            const int row = wm * 64 + i * 16 + g + 8 * h;
            if (wn == 1 && t == 0) part[row] = make_float4(u, l1, l2, __int_as_float(i1));
            acc[i][0][2 * h] = u;
            acc[i][0][2 * h + 1] = l1;
            acc[i][1][2 * h] = l2;
            acc[i][1][2 * h + 1] = __int_as_float(i1);
        }
}
#endif

// the records of each (query, point tile) of queries q0 .. q0 + m of the
// batch and point tiles tile0 .. tile1: U[q][tile], R[q][tile] (m rows of
// ntiles)
__global__ void __launch_bounds__(NT, 2)
gemm_pass(const float *__restrict__ Q, const float *__restrict__ X, int64_t m, int64_t ntiles,
          int64_t dp, const float *__restrict__ cuq, const float *__restrict__ clq,
          const float *__restrict__ cux, const float *__restrict__ clx, float *__restrict__ U,
          lrec *__restrict__ R, int64_t tile0, int64_t tile1, int64_t per_block, float coef)
{
#if __CUDA_ARCH__ >= 800
    extern __shared__ float sm[];
    __shared__ float4 part[TM]; // warp column 1's (U, L1, L2, i1) a row
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = warp % 2, wn = warp / 2, g = lane / 4, t = lane % 4;
    const int64_t q0 = (int64_t)blockIdx.x * TM;
    const int64_t xt0 = tile0 + blockIdx.y * per_block;
    const int64_t xt1 = tile1 < xt0 + per_block ? tile1 : xt0 + per_block;
    const int nk = (int)(dp / KC);
    for (int64_t xt = xt0; xt < xt1; ++xt) {
        const int64_t x0 = xt * TN;
        float acc[4][8][4];
        tile_product(acc, sm, Q, X, dp, q0, x0, nk, wm, wn, g, t);
        warp_least(acc, part, cux, clx, x0, coef, wm, wn, g, t);
        __syncthreads();
        if (wn == 0 && t == 0) { // warp column 0 merges column 1's and writes
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int row = wm * 64 + i * 16 + g + 8 * h;
                    const int64_t q = q0 + row;
                    float u = acc[i][0][2 * h], l1 = acc[i][0][2 * h + 1], l2 = acc[i][1][2 * h];
                    int i1 = __float_as_int(acc[i][1][2 * h + 1]);
                    const float4 o = part[row];
                    const int oi = __float_as_int(o.w);
                    u = fminf(u, o.x);
                    const bool c = o.y < l1 || (o.y == l1 && oi < i1);
                    l2 = fminf(fmaxf(l1, o.y), fminf(l2, o.z));
                    i1 = c ? oi : i1;
                    l1 = c ? o.y : l1;
                    if (q < m) {
                        U[q * ntiles + xt] = __fadd_ru(u, cuq[q]);
                        lrec r;
                        r.L1 = __fadd_rd(l1, clq[q]);
                        r.L2 = __fadd_rd(l2, clq[q]);
                        r.i1 = (int)(x0 + i1);
                        R[q * ntiles + xt] = r;
                    }
                }
        }
        // (the next tile's first barrier orders part's reuse)
    }
#endif
}

// an order-keeping map of floats to unsigned
__device__ __forceinline__ unsigned okey(float f)
{
    const unsigned b = __float_as_uint(f);
    return b & 0x80000000u ? ~b : b | 0x80000000u;
}
__device__ __forceinline__ float unkey(unsigned k)
{
    return __uint_as_float(k & 0x80000000u ? k & 0x7fffffffu : ~k);
}

// tau[q]: the K-th least of U[q][0 .. ntiles), a block a query: a radix
// select of 11, 11 and 10 bits (a histogram a pass; thread 0 finds the
// bin holding the K-th)
__global__ void select_tau(const float *__restrict__ U, int64_t ntiles, int64_t K,
                           float *__restrict__ tau)
{
    __shared__ int hist[HB];
    __shared__ unsigned prefix;
    __shared__ int64_t left;
    const int64_t q = blockIdx.x;
    const float *u = U + q * ntiles;
    if (threadIdx.x == 0) {
        prefix = 0;
        left = K;
    }
    const int shift[3] = {21, 10, 0}, width[3] = {11, 11, 10};
    for (int p = 0; p < 3; ++p) {
        for (int b = threadIdx.x; b < HB; b += blockDim.x) hist[b] = 0;
        __syncthreads();
        const unsigned pre = prefix;
        const int s = shift[p];
        for (int64_t t = threadIdx.x; t < ntiles; t += blockDim.x) {
            const unsigned k = okey(u[t]);
            if (p == 0 || (k >> (s + width[p])) == pre)
                atomicAdd(&hist[(k >> s) & ((1u << width[p]) - 1)], 1);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            int64_t l = left;
            int b = 0;
            for (; b < (1 << width[p]) - 1 && hist[b] < l; ++b) l -= hist[b];
            left = l;
            prefix = (pre << width[p]) | (unsigned)b;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) tau[q] = unkey(prefix);
}

// tau[q] as select_tau gives it, where a query's tiles fit in a warp's
// registers (ntiles <= 32 TW): a warp a query, TW keys a lane, the K-th
// least key found a bit at a time from the top (at each bit, the keys
// that match the prefix so far and have the bit clear, counted across
// the warp by one reduction: 32 rounds of TW compares). select_tau's
// block of 256 threads runs three passes of shared histograms for each
// query: 0.40 ms for 8192 queries of 512 tiles on an H100.
template <int TW>
__global__ void select_tau_warp(const float *__restrict__ U, int64_t ntiles, int64_t K, int64_t m,
                                float *__restrict__ tau)
{
    const int64_t q = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (q >= m) return;
    unsigned k[TW];
#pragma unroll
    for (int i = 0; i < TW; ++i) {
        const int64_t t = lane + 32 * i;
        k[i] = t < ntiles ? okey(U[q * ntiles + t]) : 0xffffffffu;
    }
    unsigned prefix = 0;
    int left = (int)K;
    for (int b = 31; b >= 0; --b) {
        const unsigned above = b == 31 ? 0u : ~0u << (b + 1);
        int c = 0;
#pragma unroll
        for (int i = 0; i < TW; ++i) c += ((k[i] ^ prefix) & above) == 0 && !((k[i] >> b) & 1u);
#if __CUDA_ARCH__ >= 800
        c = (int)__reduce_add_sync(0xffffffffu, (unsigned)c);
#else
        for (int o = 16; o; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
#endif
        if (c < left) {
            left -= c;
            prefix |= 1u << b;
        }
    }
    if (lane == 0) tau[q] = unkey(prefix);
}

// query q's candidates (a warp a query): entries x >= 0 a point, -1 - t
// the whole tile t; count: the points (CAP + 1: the query falls back)
__global__ void extract(const lrec *__restrict__ R, int64_t m, int64_t ntiles,
                        const float *__restrict__ tau, const unsigned char *__restrict__ qbad,
                        int *__restrict__ count, int *__restrict__ cand, int *__restrict__ entries)
{
    const int64_t q = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (q >= m) return;
    // tau + 5u |tau|, up (tau < 0: the largest's -f)
    const float cut = __fmul_ru(tau[q], tau[q] < 0 ? 1.0f - 0x1p-21f : 1.0f + 0x1p-21f);
    int64_t pts = 0;
    int ne = 0;
    for (int64_t t0 = 0; t0 < ntiles && pts <= CAP; t0 += 32) {
        const int64_t t = t0 + lane;
        bool one = false, whole = false;
        int x = 0;
        if (t < ntiles) {
            const lrec r = R[q * ntiles + t];
            whole = r.L2 <= cut;
            one = !whole && r.L1 <= cut;
            x = r.i1;
        }
        const unsigned mo = __ballot_sync(0xffffffffu, one), mw = __ballot_sync(0xffffffffu, whole);
        const int before = __popc((mo | mw) & ((1u << lane) - 1));
        if ((one || whole) && ne + before < CAP) cand[q * CAP + ne + before] = whole ? (int)(-1 - t) : x;
        ne += __popc(mo | mw);
        pts += __popc(mo) + (int64_t)TN * __popc(mw);
    }
    if (lane == 0) {
        count[q] = qbad[q] || pts > CAP ? CAP + 1 : (int)pts;
        entries[q] = ne < CAP ? ne : CAP;
    }
}

// the exact re-rank, a block a query (q of the batch, qg of the call):
// the entries become points, RB at a time their rows staged through
// shared memory KR features at a time (a warp a row), each thread
// carrying one point's f through the features in order by FMA as 'fused'
// sums it; the distance by 'fused''s root and rescue; sorted by (key,
// row); the first K written as 'fused' writes them (I 1-based)
template <class T>
__global__ void __launch_bounds__(RB)
rerank(const T *__restrict__ Yr, const T *__restrict__ Xr, int64_t n, int64_t d, int64_t qg0,
       const int *__restrict__ count, const int *__restrict__ entries,
       const int *__restrict__ cand, int64_t K, bool root, int largest, T *__restrict__ D,
       int32_t *__restrict__ I, unsigned char *__restrict__ fell, const T *__restrict__ nX,
       const T *__restrict__ nY)
{
    extern __shared__ __align__(16) unsigned char dyn[];
    uint64_t *key = (uint64_t *)dyn;
    int *id = (int *)(key + CAP);
    T(*rows)[KR + 1] = (T(*)[KR + 1])(id + CAP);
    __shared__ T qs[KR];
    const int64_t q = blockIdx.x, qg = qg0 + q;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int c = count[q];
    if (c > CAP) {
        if (tid == 0) fell[qg] = 1;
        return;
    }
    const int ne = entries[q];
    const int *E = cand + q * CAP;
    // the entries' places (warp 0, 32 entries at a time); a tile's place
    // kept in key[] for the warps that write its 128 rows
    if (warp == 0) {
        int base = 0;
        for (int e0 = 0; e0 < ne; e0 += 32) {
            const int e = e0 + lane;
            const int v = e < ne ? E[e] : 0;
            const int sz = e < ne ? (v >= 0 ? 1 : TN) : 0;
            int incl = sz;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const int y = __shfl_up_sync(0xffffffffu, incl, o);
                if (lane >= o) incl += y;
            }
            const int at = base + incl - sz;
            if (e < ne) {
                if (v >= 0) id[at] = v;
                key[e] = v < 0 ? (uint64_t)at : ~(uint64_t)0;
            }
            base += __shfl_sync(0xffffffffu, incl, 31);
        }
    }
    __syncthreads();
    for (int e = warp; e < ne; e += RB / 32) {
        const int v = E[e];
        if (v < 0) {
            const int at = (int)key[e];
            for (int p = lane; p < TN; p += 32) {
                const int64_t x = (int64_t)(-1 - v) * TN + p;
                id[at + p] = x < n ? (int)x : 0x7fffffff;
            }
        }
    }
    __syncthreads();
    for (int p0 = 0; p0 < c; p0 += RB) {
        const int p = p0 + tid;
        const int x = p < c ? id[p] : 0x7fffffff;
        T acc = 0;
        for (int64_t k0 = 0; k0 < d; k0 += KR) {
            const int kn = d - k0 < KR ? (int)(d - k0) : KR;
            __syncthreads();
            for (int r = warp; r < RB && p0 + r < c; r += RB / 32) {
                const int xr = id[p0 + r];
                if (lane < kn) rows[r][lane] = xr < n ? Xr[(int64_t)xr * d + k0 + lane] : (T)0;
            }
            if (tid < kn) qs[tid] = Yr[qg * d + k0 + tid];
            __syncthreads();
            if (nX) // cosine: 'fused''s dot product (gd_tile::dot_rn)
                for (int k = 0; k < kn; ++k) acc = add_rn(acc, mul_rn(rows[tid][k], qs[k]));
            else
                for (int k = 0; k < kn; ++k) {
                    const T t = qs[k] - rows[tid][k];
                    acc = fma(t, t, acc);
                }
        }
        if (p < c) {
            T v = acc;
            if (nX)
                v = x < n ? epilogue(GD_COSINE, acc, nX[x], nY[qg], false, false, d) : (T)0;
            else if (root)
                v = gd_rescue(acc) ? gd_scaled_norm(Xr + (int64_t)x * d, 1, Yr + qg * d, 1, d)
                                   : gd_root(acc);
            key[p] = x < n ? (sizeof(T) == 4 ? (uint64_t)gd_key_f((float)v, largest)
                                             : gd_key_d((double)v, largest))
                           : ~(uint64_t)0;
        }
    }
    __syncthreads();
    int size = 1;
    while (size < c) size *= 2;
    for (int p = c + tid; p < size; p += RB) {
        key[p] = ~(uint64_t)0;
        id[p] = 0x7fffffff;
    }
    __syncthreads();
    for (int k = 2; k <= size; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) {
            for (int i = tid; i < size; i += RB) {
                const int l = i ^ j;
                if (l > i) {
                    const bool up = (i & k) == 0;
                    const bool gt = key[i] > key[l] || (key[i] == key[l] && id[i] > id[l]);
                    if (gt == up) {
                        const uint64_t tk = key[i];
                        key[i] = key[l];
                        key[l] = tk;
                        const int ti = id[i];
                        id[i] = id[l];
                        id[l] = ti;
                    }
                }
            }
            __syncthreads();
        }
    for (int64_t r = tid; r < K; r += RB) {
        D[qg * K + r] = sizeof(T) == 4 ? (T)gd_unkey_f((uint32_t)key[r], largest)
                                       : (T)gd_unkey_d(key[r], largest);
        I[qg * K + r] = id[r] + 1;
    }
}

