/* tiles/dmma.cuh - single-precision Euclidean distances on the FP64 tensor
 * cores, certified a pair at a time.
 *
 * The expanded form |x'|^2 + |y'|^2 - 2 x'.y' of "the t-SNE preparation
 * step" article, in double: x' = x - c and y' = y - c (c the columns'
 * centre, a single: each difference of two singles is exact in double
 * where their exponents are at most 28 apart, which the rows' norms check),
 * x'.y' by DMMA (mma m16n8k16 f64, sm_90), the norms by the CUDA cores.
 * Each of |x'|^2, |y'|^2 and x'.y' sums d terms in double, so its error is
 * at most gamma_d times the sum of its terms' magnitudes (u = 2^-53; the
 * dot's terms sum to at most (|x'|^2 + |y'|^2) / 2), and two roundings
 * form D2 (kernels/NOTES.md "dmma"):
 *
 *     |D2 - exact| <= E = kappa(d) (|x'|^2 + |y'|^2),
 *     kappa(d) = (2d + 8) u (1 + 2^-8).
 *
 * A pair is certified where no midpoint between two singles lies in
 * [D2 - E, D2 + E] (for euclidean: where the roots of that interval lie
 * between the midpoints around the single): its single is then the
 * correctly rounded distance. The tile writes NaN for the rest
 * (near-duplicate rows, rows whose centring was not exact, NaN and Inf,
 * results outside single's normal range); the store recomputes those it
 * writes, a warp a pair, as sum ((x - y).^2) in double from the rows as
 * given (the differences exact), rounded once, and counts them.
 *
 * The cosine distance (COS; correlation and spearman are cosine on rows
 * the caller transformed): the rows as given (no centre), 1 - (x.y / |x|)
 * / |y| in double from the row's 1 / |x| (kept instead of |x|^2); x.y's
 * error is at most gamma_d |x| |y|, the norms' gamma_d each (half of it
 * under the root), the roots, quotients and products five roundings, so
 * |D - exact| <= (2d + 12) u (1 + 2^-8), absolute (D lies in [0, 2]).
 * The pairs left are computed as |x/|x| - y/|y||^2 / 2, the norms and
 * quotients in double-double and each difference rounded once to double
 * (exact for identical rows and for rows a power of two apart, so those
 * give 0).
 *
 * The tile: BM x 128 of D a block of 256 threads (eight warps, 2 x 4, each
 * BM/2 x 32 of m16n8k16's accumulators), BK features a stage, two stages
 * in shared memory as doubles (the loads widen and centre the singles
 * once, so the fragments are read as they are multiplied). The results go
 * through the stages' memory; the store writes a column a warp (32
 * consecutive rows an instruction) through the policy: pdist's triangle
 * or pdist2's rectangle. C++, internal. */
#ifndef GD_TILES_DMMA_CUH
#define GD_TILES_DMMA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace gd_dmma {
namespace { // each file that includes it has its own kernels

enum { BN = 128, THREADS = 256 };

template <int BM, int BK> struct shape {
    enum { LDS = BM + 4, LDB = BN + 4, LDC = BM + 4, MI = BM / 32 };
    /* two stages of A (BK x BM) and B (BK x 128), doubles; the tile's
     * singles (128 columns of BM) after them in the same memory */
    static constexpr int stage_bytes = 2 * BK * (LDS + LDB) * 8;
    static constexpr int out_bytes = BN * LDC * 4;
    static constexpr int smem = stage_bytes > out_bytes ? stage_bytes : out_bytes;
};

/* the forms of a pair's value: the squared distance, its root, the cosine
 * distance */
enum form { SQ, ROOT, COS };

/* the certificate's constant for d features (COS: the bound itself) */
static inline double kappa(int64_t d, int f)
{
    return (2.0 * (double)d + (f == COS ? 12.0 : 8.0)) * 0x1p-53 * (1.0 + 0x1p-8);
}

__device__ __forceinline__ void mma16(double (&c)[4], const double (&a)[8], const double (&b)[4])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                   "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#else
    __trap(); /* never launched: the variant asks for sm_90 */
#endif
}

/* the midpoints below and above u, a positive normal single held in a
 * double: half a single's ulp at u's exponent each side, a quarter below
 * a power of two */
__device__ __forceinline__ void mids(double u, double &lo, double &hi)
{
    const long long b = __double_as_longlong(u);
    const double h = __longlong_as_double((b & 0x7ff0000000000000LL) - (24LL << 52));
    hi = u + h;
    lo = u - ((b & 0x000fffffffffffffLL) ? h : 0.5 * h);
}

/* The single of D2 and whether every value within e of D2 rounds to it
 * (lo and hi: the midpoints around it). */
__device__ __forceinline__ float certify_sq(double d2, double e, bool &ok)
{
    const float r = (float)d2;
    double lo, hi;
    mids((double)r, lo, hi);
    ok = r >= 0x1p-100f && r <= 0x1p126f && d2 - e > lo && d2 + e < hi;
    return r;
}

/* The single of sqrt (D2) and whether the root of every value within e of
 * D2 rounds to it. s: the root in double from the single's rsqrt and a
 * Newton step (relative error about 2^-43, taken as 2^-40); the roots of
 * [D2 - e, D2 + e] lie within e / sqrt (D2) of sqrt (D2) (y = 1 / sqrt
 * (D2) to 2^-21, the factor below). Certified where s's distance from r,
 * plus those, stays inside half an ulp each side (a quarter below a power
 * of two). Past single's range (D2 NaN, negative, 0 or above 2^128) r is
 * NaN or 0 and nothing is certified. */
__device__ __forceinline__ float certify_root(double d2, double e, bool &ok)
{
    const double y = (double)rsqrtf((float)d2);
    double s = d2 * y;
    s = fma(0.5 * y, fma(-s, s, d2), s);
    const float r = (float)s;
    const double diff = s - (double)r, er = e * y * (1.0 + 0x1p-20) + 0x1p-40 * s;
    const int b = __float_as_int(r);
    const double h = __longlong_as_double((long long)(((b >> 23) & 0xff) - 127 - 24 + 1023) << 52);
    const double hd = (b & 0x7fffff) ? h : 0.5 * h;
    ok = r >= 0x1p-100f && diff + er < h && er - diff < hd;
    return r;
}

template <int F> __device__ __forceinline__ float certify(double d2, double e, bool &ok)
{
    return F == ROOT ? certify_root(d2, e, ok) : certify_sq(d2, e, ok);
}

/* The columns' centre: c[k] the mean of X(:,k)'s finite values over m
 * rows (ld ldx), rounded to single; 0 for k >= d up to kp. A block a
 * column. */
__global__ void centre(const float *__restrict__ X, int64_t ldx, int64_t m, int64_t d,
                       int64_t kp, double *__restrict__ c)
{
    __shared__ double ss[THREADS];
    __shared__ int64_t sc[THREADS];
    for (int64_t k = blockIdx.x; k < kp; k += gridDim.x) {
        double s = 0;
        int64_t cnt = 0;
        if (k < d)
            for (int64_t i = threadIdx.x; i < m; i += THREADS) {
                const float v = X[i + ldx * k];
                if (isfinite(v)) { s += v; ++cnt; }
            }
        ss[threadIdx.x] = s;
        sc[threadIdx.x] = cnt;
        __syncthreads();
        for (int w = THREADS / 2; w > 0; w /= 2) {
            if ((int)threadIdx.x < w) {
                ss[threadIdx.x] += ss[threadIdx.x + w];
                sc[threadIdx.x] += sc[threadIdx.x + w];
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) c[k] = sc[0] ? (double)(float)(ss[0] / (double)sc[0]) : 0.0;
        __syncthreads();
    }
}

/* The rows' squared norms about the centre, |x'|^2 over kp features in
 * double (inv: 1 / |x'|); NaN where a feature is not finite or its
 * difference from the centre is not exact in double (then none of the
 * row's pairs is certified). A thread a row, rows 0 .. m-1. */
__global__ void norms(const float *__restrict__ X, int64_t ldx, int64_t m, int64_t kp,
                      const double *__restrict__ c, double *__restrict__ nx, bool inv)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= m) return;
    double s = 0;
    bool exact = true;
    for (int64_t k = 0; k < kp; ++k) {
        const double a = X[i + ldx * k], b = c[k], v = a - b;
        /* Knuth's two-sum of a and -b: its error term zero */
        const double bb = v - a, err = (a - (v - bb)) + (-b - bb);
        exact = exact && isfinite(v) && err == 0.0;
        s = fma(v, v, s);
    }
    nx[i] = !exact ? __longlong_as_double(0x7ff8000000000000LL) : inv ? 1.0 / sqrt(s) : s;
}

/* What every dmma launch prepares, on stream st: the centre c (kp
 * doubles) of X's m rows (ld ldx, d features), zeros for cosine (cos);
 * the squared norms about it (cos: their inverse roots) of X's rows into
 * nx and, where Y is given, of Y's into ny, ldx and ldy rows each */
inline cudaError_t prepare(const float *X, int64_t ldx, int64_t m, int64_t d, int64_t kp,
                           const float *Y, int64_t ldy, double *c, double *nx, double *ny,
                           bool cos, cudaStream_t st)
{
    if (cos) {
        const cudaError_t e = cudaMemsetAsync(c, 0, (size_t)kp * 8, st);
        if (e != cudaSuccess) return e;
    } else
        centre<<<(unsigned)(kp < 4096 ? kp : 4096), THREADS, 0, st>>>(X, ldx, m, d, kp, c);
    norms<<<(unsigned)((ldx + 255) / 256), 256, 0, st>>>(X, ldx, ldx, kp, c, nx, cos);
    if (Y) norms<<<(unsigned)((ldy + 255) / 256), 256, 0, st>>>(Y, ldy, ldy, kp, c, ny, cos);
    return cudaGetLastError();
}

/* the warp's sum of a lane's s */
__device__ __forceinline__ double warp_sum(double s)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    return s;
}

/* double-double: h + l += a + b (Knuth's two-sum, then renormalised) */
__device__ __forceinline__ void dd_add(double &h, double &l, double a, double b)
{
    const double s = h + a, v = s - h, e = (h - (s - v)) + (a - v) + l + b;
    h = s + e;
    l = e - (h - s);
}

/* the root of the warp's sum of a lane's exact squares, as hi + lo */
__device__ __forceinline__ void dd_norm(const float *__restrict__ X, int64_t ldx, int64_t d,
                                        int lane, double &h, double &l)
{
    h = l = 0;
    for (int64_t k = lane; k < d; k += 32) {
        const double x = X[ldx * k];
        dd_add(h, l, x * x, 0.0); /* (a single's square is exact in double) */
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
        dd_add(h, l, __shfl_xor_sync(0xffffffffu, h, o), __shfl_xor_sync(0xffffffffu, l, o));
    const double r = sqrt(h), e = (fma(-r, r, h) + l) / (2.0 * r);
    h = r + e;
    l = e - (h - r);
}

/* x / (h + l) as q + its remainder's quotient, to about 100 bits */
__device__ __forceinline__ void dd_quot(double x, double h, double l, double &q, double &ql)
{
    q = x / h;
    ql = (fma(-q, h, x) - q * l) / h;
}

/* The pair (i, j) in double from the rows as given, a warp's lanes a
 * share of the features each; every lane returns it. COS: |x/|x| -
 * y/|y||^2 / 2, the norms and quotients in double-double, each difference
 * rounded once to double. */
template <int F>
__device__ __forceinline__ float exact_pair(const float *__restrict__ X, int64_t ldx,
                                            const float *__restrict__ Y, int64_t ldy, int64_t d,
                                            int lane)
{
    double s = 0;
    if constexpr (F == COS) {
        double xh, xl, yh, yl;
        dd_norm(X, ldx, d, lane, xh, xl);
        dd_norm(Y, ldy, d, lane, yh, yl);
        for (int64_t k = lane; k < d; k += 32) {
            double p, pl, q, ql;
            dd_quot(X[ldx * k], xh, xl, p, pl);
            dd_quot(Y[ldy * k], yh, yl, q, ql);
            const double a = p - q, v = a - p, e = (p - (a - v)) + (-q - v) + (pl - ql);
            const double g = a + e;
            s = fma(g, g, s);
        }
        return (float)(0.5 * warp_sum(s));
    } else {
        for (int64_t k = lane; k < d; k += 32) {
            const double v = (double)X[ldx * k] - (double)Y[ldy * k];
            s = fma(v, v, s);
        }
        s = warp_sum(s);
        return F == ROOT ? (float)sqrt(s) : (float)s;
    }
}

/* What the kernel reads and counts. X (rows i, ld ldx) and Y (rows j,
 * ld ldy): padded singles, kp features (a multiple of BK, zeros past d);
 * c the centre (0 for COS), nx and ny the norms (COS: their inverses;
 * rows); kappa the certificate's constant; *count adds the pairs the
 * certificate left. */
struct args {
    const float *X, *Y;
    int64_t ldx, ldy, d, kp;
    const double *c, *nx, *ny;
    double kappa;
    unsigned long long *count;
};

/* The products of the tile: acc += X' Y'^T over kp features, X and Y at
 * the tile's first row and column, each stage's singles loaded into
 * registers while the last stage's products run, then widened, centred
 * and stored into As and Bs (two stages each). A warp's BM/2 x 32 of
 * m16n8k16's accumulators: B's fragments held, A's a row block at a
 * time. */
template <int BM, int BK>
__device__ __forceinline__ void products(const args &a, const float *X, const float *Y,
                                         double *As, double *Bs, double (&acc)[BM / 32][4][4])
{
    typedef shape<BM, BK> S;
    enum { LDS = S::LDS, LDB = S::LDB, MI = S::MI };
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
    const int wm = warp >> 2, wn = warp & 3;
    /* each thread's float2s of a stage: A's BM x BK, B's 128 x BK */
    enum { NA = BM * BK / 2 / THREADS, NB = BN * BK / 2 / THREADS };
    float2 ra[NA], rb[NB];
    auto gload = [&](int64_t k0) {
#pragma unroll
        for (int r = 0; r < NA; ++r) {
            const int q = tid + THREADS * r, k = q / (BM / 2), e = q % (BM / 2);
            ra[r] = *(const float2 *)(X + a.ldx * (k0 + k) + 2 * e);
        }
#pragma unroll
        for (int r = 0; r < NB; ++r) {
            const int q = tid + THREADS * r, k = q / (BN / 2), e = q % (BN / 2);
            rb[r] = *(const float2 *)(Y + a.ldy * (k0 + k) + 2 * e);
        }
    };
    auto sstore = [&](int buf, int64_t k0) {
#pragma unroll
        for (int r = 0; r < NA; ++r) {
            const int q = tid + THREADS * r, k = q / (BM / 2), e = q % (BM / 2);
            const double ck = a.c[k0 + k];
            *(double2 *)(As + buf * BK * LDS + k * LDS + 2 * e) =
                make_double2((double)ra[r].x - ck, (double)ra[r].y - ck);
        }
#pragma unroll
        for (int r = 0; r < NB; ++r) {
            const int q = tid + THREADS * r, k = q / (BN / 2), e = q % (BN / 2);
            const double ck = a.c[k0 + k];
            *(double2 *)(Bs + buf * BK * LDB + k * LDB + 2 * e) =
                make_double2((double)rb[r].x - ck, (double)rb[r].y - ck);
        }
    };
#pragma unroll
    for (int x = 0; x < MI; ++x)
#pragma unroll
        for (int y = 0; y < 4; ++y)
#pragma unroll
            for (int z = 0; z < 4; ++z) acc[x][y][z] = 0;
    const int64_t KT = a.kp / BK;
    gload(0);
    sstore(0, 0);
    __syncthreads();
    for (int64_t kt = 0; kt < KT; ++kt) {
        const int buf = (int)(kt & 1);
        if (kt + 1 < KT) gload((kt + 1) * BK);
        const double *A = As + buf * BK * LDS + wm * 16 * MI + g, *B = Bs + buf * BK * LDB + wn * 32 + g;
#pragma unroll
        for (int k16 = 0; k16 < BK; k16 += 16) {
            double bf[4][4];
#pragma unroll
            for (int ni = 0; ni < 4; ++ni)
#pragma unroll
                for (int q = 0; q < 4; ++q) bf[ni][q] = B[(k16 + t + 4 * q) * LDB + ni * 8];
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
                double af[8];
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    af[2 * q] = A[(k16 + 4 * q + t) * LDS + mi * 16];
                    af[2 * q + 1] = A[(k16 + 4 * q + t) * LDS + mi * 16 + 8];
                }
#pragma unroll
                for (int ni = 0; ni < 4; ++ni) mma16(acc[mi][ni], af, bf[ni]);
            }
        }
        if (kt + 1 < KT) sstore(buf ^ 1, (kt + 1) * BK);
        __syncthreads();
    }
}

/* Each pair's single into Cs (column jl at Cs + jl LDC), NaN where it is
 * not certified (branch-free, so that the pairs' chains interleave) */
template <int BM, int BK, int F>
__device__ __forceinline__ void certified(const args &a, const double (&acc)[BM / 32][4][4],
                                          int64_t i0, int64_t j0, float *Cs)
{
    typedef shape<BM, BK> S;
    enum { LDC = S::LDC, MI = S::MI };
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const int wm = warp >> 2, wn = warp & 3;
    double nyj[4][2]; /* the thread's eight columns' norms */
#pragma unroll
    for (int ni = 0; ni < 4; ++ni)
#pragma unroll
        for (int h = 0; h < 2; ++h) nyj[ni][h] = a.ny[j0 + wn * 32 + ni * 8 + 2 * t + h];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int hr = 0; hr < 2; ++hr) {
            const int il = wm * 16 * MI + mi * 16 + g + 8 * hr;
            const double ni_ = a.nx[i0 + il];
#pragma unroll
            for (int ni = 0; ni < 4; ++ni)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int jl = wn * 32 + ni * 8 + 2 * t + h;
                    const double s = ni_ + nyj[ni][h];
                    /* (COS: the norms are 1 / |x| and 1 / |y|) */
                    const double d2 = F == COS ? fma(-(acc[mi][ni][2 * hr + h] * ni_), nyj[ni][h], 1.0)
                                               : fma(-2.0, acc[mi][ni][2 * hr + h], s);
                    bool ok;
                    const float r = certify<F>(d2, F == COS ? a.kappa : a.kappa * s, ok);
                    Cs[jl * LDC + il] = ok ? r : __int_as_float(0x7fc00000);
                }
        }
}

/* The store: a warp a column, its lanes 32 consecutive rows; a pair left
 * NaN that is stored is summed in double by the warp first (X and Y at
 * the tile's first row and column); the count of those */
template <int BM, int BK, int F, class Out>
__device__ __forceinline__ void store(const args &a, const Out &out, const float *Cs,
                                      const float *X, const float *Y, int64_t i0, int64_t j0)
{
    enum { LDC = shape<BM, BK>::LDC };
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned left = 0;
#pragma unroll 1
    for (int jl = warp; jl < BN; jl += THREADS / 32) {
        const int64_t j = j0 + jl;
        float *col = out.column(j);
        if (!col) break; /* (columns in order: none after it either) */
#pragma unroll
        for (int r = 0; r < BM / 32; ++r) {
            const int il = lane + 32 * r;
            const int64_t i = i0 + il;
            float v = Cs[jl * LDC + il];
            const bool want = out.wanted(i, j);
            unsigned fix = __ballot_sync(0xffffffffu, want && v != v);
            left += __popc(fix);
            while (fix) {
                const int src = __ffs(fix) - 1;
                fix &= fix - 1;
                const float e = exact_pair<F>(X + (il - lane + src), a.ldx, Y + jl, a.ldy, a.d,
                                              lane);
                if (lane == src) v = e;
            }
            if (out.stored(i, j)) col[i] = v;
        }
    }
    if (lane == 0 && left) atomicAdd(a.count, (unsigned long long)left);
}

/* The tile. Out: place (the block's first row i0 and column j0; false:
 * no tile), column (j) (where D(i, j) is column (j)[i]; NULL: this
 * column and the ones after it hold no pair of the tile), wanted (i, j)
 * (a pair whose value counts: only those are summed again where the
 * certificate leaves them) and stored (i, j) (written: the wanted ones
 * and any padding the result may hold). The results go through the
 * stages' memory. */
template <int BM, int BK, int F, class Out>
__global__ void __launch_bounds__(THREADS, 1) dist(const args a, const Out out)
{
    extern __shared__ __align__(16) unsigned char smem[];
    int64_t i0, j0;
    if (!out.place(i0, j0)) return;
    const float *X = a.X + i0, *Y = a.Y + j0;
    double acc[BM / 32][4][4];
    double *As = (double *)smem;
    products<BM, BK>(a, X, Y, As, As + 2 * BK * shape<BM, BK>::LDS, acc);
    float *Cs = (float *)smem;
    certified<BM, BK, F>(a, acc, i0, j0, Cs);
    __syncthreads();
    store<BM, BK, F>(a, out, Cs, X, Y, i0, j0);
}

/* D(i, j) for every row of X against every row of Y (C: mp x np, ld ldc,
 * the padding's too), tile b of the grid (BM-row tiles fastest) */
template <int BM> struct out_rect {
    float *C;
    int64_t ldc, m, n, tiles_i;
    __device__ bool place(int64_t &i0, int64_t &j0) const
    {
        i0 = (int64_t)(blockIdx.x % tiles_i) * BM;
        j0 = (int64_t)(blockIdx.x / tiles_i) * BN;
        return true;
    }
    __device__ float *column(int64_t j) const { return C + j * ldc; }
    __device__ bool wanted(int64_t i, int64_t j) const { return i < m && j < n; }
    __device__ bool stored(int64_t, int64_t) const { return true; }
};

} // namespace
} // namespace gd_dmma

#endif
