/* knn_gemm_probe.cu - a probe of the certified 'gemm' nearest neighbours
 * (exact neighbours at tensor-core speed), apart from gd: one GEMM pass on
 * the tensor cores (TF32 mma.sync m16n8k8) with the bound of
 * kernels/tiles/knnbound.h, timed, and its output checked on the host
 * against the exact top K of some queries (f as 'fused' sums it).
 *
 *   gemm     for each (query, tile of 128 points), from the expansion
 *            e = |q'|^2 + |x'|^2 - 2 q'.x' of the centred rows, one record:
 *            the least upper bound U = e + B of the tile, the least lower
 *            bound L1 = e - B with its point, and the second least L2
 *   select   for each query: tau = the K-th least of its tiles' U (U of K
 *            distinct points: an upper bound on the K-th least f)
 *   extract  for each query: the point of every tile with L1 <= cut, and
 *            every point of a tile with L2 <= cut (a tile whose second
 *            point may be a neighbour is looked at whole); cut = tau
 *            (1 + 5u) rounded up. More than CAP points: the query falls
 *            back (counted; gd runs 'fused' for it)
 *   rerank   the candidates' f as 'fused' sums it, sorted by (f, index):
 *            the first K, checked against the host's bit for bit
 *
 * The bound is taken apart: (|q'| + |x'|)^2 <= 2 |q'|^2 + 2 |x'|^2 (both
 * raised as knnbound.h's R is), so B <= Bq + Bx with Bq = 2 kappa rq^2, and
 * U = (nq + Bq) + (nx + Bx) - 2 s and L = (nq - Bq) + (nx - Bx) - 2 s, each
 * a row's constant, a column's and the product: one FMA an element, with
 * directed rounding (U up, L down), so no rounding of the epilogue needs
 * room in kappa.
 *
 * Build: nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels bench/knn_gemm_probe.cu
 *        -o build/knn_gemm_probe
 * Run:   build/knn_gemm_probe [m n d K]   (default 10000 1000000 128 100) */
#include "tiles/knnbound.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#define CHECK(x)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

// block tile 128 x 128 of 4 warps (2 x 2, 64 x 64 each); KC features a
// stage, ST stages; LDS the shared row (KC + 4: conflict-free fragments)
enum { TM = 128, TN = 128, KC = 32, LDS = KC + 4, NT = 128, ST = 3, CAP = 4096 };
constexpr int STAGE_FLOATS = (TM + TN) * LDS;

struct rec {
    float U, L1, L2;
    int i1;
};

__device__ __forceinline__ void mma_tf32(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void cp16(void *smem, const void *g)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(g));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// stage s of chunk k0 of query tile q0 and point tile x0 (rows padded to
// 128, features to KC: no bounds)
__device__ __forceinline__ void load_stage(float *sm, const float *Q, const float *X, int dp, int q0,
                                           int x0, int k0)
{
    float *Qs = sm, *Xs = sm + TM * LDS;
#pragma unroll
    for (int i = 0; i < TM * KC / 4 / NT; ++i) {
        const int e = threadIdx.x + NT * i, r = e / (KC / 4), c = e % (KC / 4) * 4;
        cp16(Qs + r * LDS + c, Q + (size_t)(q0 + r) * dp + k0 + c);
        cp16(Xs + r * LDS + c, X + (size_t)(x0 + r) * dp + k0 + c);
    }
}

struct consts {
    const float *cuq, *clq, *cux, *clx; // rows' and columns' parts of U and L
};

// the tile's records: 4 warps 2 x 2; a thread's rows wm 64 + mi 16 + g
// (+ 8), columns wn 64 + nj 8 + 2t (+ 1)
__global__ void __launch_bounds__(NT, 2)
gemm_pass(const float *__restrict__ Q, const float *__restrict__ X, int m, int ntiles, int dp,
          consts cs, rec *__restrict__ out, int per_block)
{
    extern __shared__ float sm[];
    __shared__ float4 part[TM]; // warp column 1's (U, L1, L2, i1) a row
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = warp % 2, wn = warp / 2, g = lane / 4, t = lane % 4;
    const int q0 = blockIdx.x * TM;
    const int xt0 = blockIdx.y * per_block, xt1 = min(ntiles, xt0 + per_block);
    const int nk = dp / KC;
    for (int xt = xt0; xt < xt1; ++xt) {
        const int x0 = xt * TN;
        float acc[4][8][4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j)
#pragma unroll
                for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;
        // prologue: stages 0 .. ST-2
#pragma unroll
        for (int s = 0; s < ST - 1; ++s) {
            if (s < nk) load_stage(sm + s * STAGE_FLOATS, Q, X, dp, q0, x0, s * KC);
            cp_commit();
        }
        for (int kc = 0; kc < nk; ++kc) {
            cp_wait<ST - 2>();
            __syncthreads();
            {
                const int nx = kc + ST - 1;
                if (nx < nk) load_stage(sm + (nx % ST) * STAGE_FLOATS, Q, X, dp, q0, x0, nx * KC);
                cp_commit();
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
        cp_wait<0>();
        // epilogue: per row the least U, the least L with its column, the
        // second least L
        float cux[8][2], clx[8][2];
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int x = x0 + wn * 64 + j * 8 + 2 * t + r;
                cux[j][r] = __ldg(cs.cux + x);
                clx[j][r] = __ldg(cs.clx + x);
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
                        u = fminf(u, __fmaf_ru(-2.0f, s, cux[j][r]));
                        const float l = __fmaf_rd(-2.0f, s, clx[j][r]);
                        const bool c = l < l1;
                        l2 = c ? l1 : fminf(l2, l);
                        i1 = c ? wn * 64 + j * 8 + 2 * t + r : i1;
                        l1 = c ? l : l1;
                    }
                // the four lanes of the row (t = 0 .. 3)
#pragma unroll
                for (int o = 1; o <= 2; o <<= 1) {
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
                acc[i][0][2 * h] = u; // kept for after the barrier
                acc[i][0][2 * h + 1] = l1;
                acc[i][1][2 * h] = l2;
                acc[i][1][2 * h + 1] = __int_as_float(i1);
            }
        __syncthreads();
        if (wn == 0 && t == 0) {
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int row = wm * 64 + i * 16 + g + 8 * h, q = q0 + row;
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
                        rec r;
                        r.U = __fadd_ru(u, cs.cuq[q]);
                        r.L1 = __fadd_rd(l1, cs.clq[q]);
                        r.L2 = __fadd_rd(l2, cs.clq[q]);
                        r.i1 = x0 + i1;
                        out[(size_t)q * ntiles + xt] = r;
                    }
                }
        }
        // (the next tile's first wait and barrier order part's reuse)
    }
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

// tau[q]: the K-th least U of query q's tiles (a block a query; the key
// found bit by bit: the largest T with fewer than K keys below it)
__global__ void select_tau(const rec *__restrict__ R, int ntiles, int K, float *__restrict__ tau)
{
    __shared__ int wsum[32];
    const int q = blockIdx.x;
    constexpr int PER = 32;
    unsigned key[PER];
#pragma unroll
    for (int i = 0; i < PER; ++i) {
        const int t = threadIdx.x + i * blockDim.x;
        key[i] = t < ntiles ? okey(R[(size_t)q * ntiles + t].U) : 0xffffffffu;
    }
    unsigned T = 0;
    for (int b = 31; b >= 0; --b) {
        const unsigned T1 = T | (1u << b);
        int c = 0;
#pragma unroll
        for (int i = 0; i < PER; ++i) c += key[i] < T1;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
        if (threadIdx.x % 32 == 0) wsum[threadIdx.x / 32] = c;
        __syncthreads();
        int all = 0;
        for (int w = 0; w < (int)blockDim.x / 32; ++w) all += wsum[w];
        __syncthreads();
        if (all < K) T = T1;
    }
    if (threadIdx.x == 0) tau[q] = unkey(T);
}

// the candidates of query q: a warp a query; an entry x >= 0 a point,
// -1 - t the whole tile t
__global__ void extract(const rec *__restrict__ R, int m, int ntiles, const float *__restrict__ tau,
                        int *__restrict__ count, int *__restrict__ cand, int *__restrict__ entries)
{
    const int q = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (q >= m) return;
    const float cut = __fmul_ru(tau[q], 1.0f + 0x1p-21f);
    int pts = 0, ne = 0;
    for (int t0 = 0; t0 < ntiles; t0 += 32) {
        const int t = t0 + lane;
        bool one = false, whole = false;
        int x = 0;
        if (t < ntiles) {
            const rec r = R[(size_t)q * ntiles + t];
            whole = r.L2 <= cut;
            one = !whole && r.L1 <= cut;
            x = r.i1;
        }
        const unsigned mo = __ballot_sync(0xffffffffu, one), mw = __ballot_sync(0xffffffffu, whole);
        const int before = __popc((mo | mw) & ((1u << lane) - 1));
        if ((one || whole) && ne + before < CAP)
            cand[(size_t)q * CAP + ne + before] = whole ? -1 - t : x;
        ne += __popc(mo | mw);
        pts += __popc(mo) + 128 * __popc(mw);
    }
    if (lane == 0) {
        count[q] = pts;
        entries[q] = ne;
    }
}

/* the exact re-rank: a block a query. The entries become points (a
 * tile entry its 128), RB of them at a time: their rows come into shared
 * memory KR features at a time (a warp a row, coalesced), and each thread
 * carries one point's f through the features in order, as 'fused' sums
 * it (float differences, FMA, features in order) from the rows as given;
 * then the points sorted by (f, index), the first K kept (Octave's
 * order). */
enum { RB = 256, KR = 32 };
__global__ void __launch_bounds__(RB)
rerank(const float *Q, const float *X, int n, int d, const int *count, const int *entries,
       const int *cand, int K, float *Dout, int *Iout, int *fell)
{
    extern __shared__ float dyn[];
    float *f = dyn;
    int *id = (int *)(dyn + CAP);
    float (*rows)[KR + 1] = (float (*)[KR + 1])(dyn + 2 * CAP);
    __shared__ float qs[KR];
    const int q = blockIdx.x, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int c = count[q];
    if (c > CAP) {
        if (tid == 0) atomicAdd(fell, 1);
        for (int r = tid; r < K; r += RB) {
            Dout[(size_t)q * K + r] = NAN;
            Iout[(size_t)q * K + r] = -2;
        }
        return;
    }
    /* the entries' points into id[]: each warp scans 32 entries at a time
     * (a ballot gives each entry's place), a tile's 128 points written by
     * its warp */
    const int ne = entries[q];
    const int *E = cand + (size_t)q * CAP;
    if (warp == 0) {
        int base = 0;
        for (int e0 = 0; e0 < ne; e0 += 32) {
            const int e = e0 + lane;
            const int v = e < ne ? E[e] : 0;
            const int sz = e < ne ? (v >= 0 ? 1 : 128) : 0;
            int incl = sz;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const int y = __shfl_up_sync(0xffffffffu, incl, o);
                if (lane >= o) incl += y;
            }
            const int at = base + incl - sz;
            if (e < ne && v >= 0) id[at] = v;
            base += __shfl_sync(0xffffffffu, incl, 31);
            /* tiles: their places kept for all the warps below */
            if (e < ne) f[e] = __int_as_float(v < 0 ? at : -1);
        }
    }
    __syncthreads();
    for (int e = warp; e < ne; e += RB / 32) {
        const int v = E[e];
        if (v < 0) {
            const int at = __float_as_int(f[e]);
            for (int p = lane; p < 128; p += 32) {
                const int x = (-1 - v) * 128 + p;
                id[at + p] = x < n ? x : 0x7fffffff;
            }
        }
    }
    __syncthreads();
    /* f of each point, RB points at a time */
    for (int p0 = 0; p0 < c; p0 += RB) {
        const int p = p0 + tid;
        const int x = p < c ? id[p] : 0x7fffffff;
        float acc = 0.0f;
        for (int k0 = 0; k0 < d; k0 += KR) {
            const int kn = min(KR, d - k0);
            __syncthreads();
            for (int r = warp; r < RB && p0 + r < c; r += RB / 32) {
                const int xr = id[p0 + r];
                if (lane < kn) rows[r][lane] = xr < n ? X[(size_t)xr * d + k0 + lane] : 0.0f;
            }
            if (tid < kn) qs[tid] = Q[(size_t)q * d + k0 + tid];
            __syncthreads();
            for (int k = 0; k < kn; ++k) {
                const float t = qs[k] - rows[tid][k];
                acc = fmaf(t, t, acc);
            }
        }
        if (p < c) f[p] = x < n ? acc : INFINITY;
    }
    __syncthreads();
    int size = 1;
    while (size < c) size *= 2;
    for (int p = c + tid; p < size; p += RB) {
        f[p] = INFINITY;
        id[p] = 0x7fffffff;
    }
    __syncthreads();
    for (int k = 2; k <= size; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) {
            for (int i = tid; i < size; i += RB) {
                const int l = i ^ j;
                if (l > i) {
                    const bool up = (i & k) == 0;
                    const bool gt = f[i] > f[l] || (f[i] == f[l] && id[i] > id[l]);
                    if (gt == up) {
                        const float tf = f[i];
                        f[i] = f[l];
                        f[l] = tf;
                        const int ti = id[i];
                        id[i] = id[l];
                        id[l] = ti;
                    }
                }
            }
            __syncthreads();
        }
    for (int r = tid; r < K; r += RB) {
        Dout[(size_t)q * K + r] = r < c ? f[r] : NAN;
        Iout[(size_t)q * K + r] = r < c ? id[r] : -1;
    }
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static float gauss()
{
    auto u = [] {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return ((rng >> 11) + 0.5) * 0x1p-53;
    };
    return (float)(sqrt(-2 * log(u())) * cos(2 * M_PI * u()));
}

int main(int argc, char **argv)
{
    const int m = argc > 1 ? atoi(argv[1]) : 10000, n = argc > 2 ? atoi(argv[2]) : 1000000;
    const int d = argc > 3 ? atoi(argv[3]) : 128, K = argc > 4 ? atoi(argv[4]) : 100;
    const int ntiles = (n + TN - 1) / TN, mp = (m + TM - 1) / TM * TM, np = ntiles * TN;
    const int dp = (d + KC - 1) / KC * KC;
    if (ntiles > 32 * 256 || K > ntiles || K > CAP) {
        fprintf(stderr, "n up to 8192 tiles of 128, K up to the tiles and %d\n", CAP);
        return 1;
    }
    rng ^= (unsigned long long)time(NULL) * 0x2545f4914f6cdd1dull;
    std::vector<float> X((size_t)n * d), Q((size_t)m * d);
    for (auto &v : X) v = gauss();
    for (auto &v : Q) v = gauss();
    /* the centre, the centred rows rounded to TF32 (as cvt.rna), padded;
     * the norms (FMA in float) and the bound's parts */
    std::vector<double> cs(d, 0.0);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < d; ++k) cs[k] += X[(size_t)i * d + k];
    std::vector<float> c(d);
    for (int k = 0; k < d; ++k) c[k] = (float)(cs[k] / n);
    const double u = 0x1p-24, g1 = (d + 1) * u / (1 - (d + 1) * u);
    const double kappa = gd_knn_kappa(d, u, 0x1p-10);
    auto tf32 = [](float v) {
        unsigned b;
        memcpy(&b, &v, 4);
        if ((b & 0x7f800000u) != 0x7f800000u) b = (b + 0x1000u) & 0xffffe000u; /* rna */
        memcpy(&v, &b, 4);
        return v;
    };
    auto prep = [&](const std::vector<float> &A, int rows, int rows_p, std::vector<float> &At,
                    std::vector<float> &cu, std::vector<float> &cl) {
        At.assign((size_t)rows_p * dp, 0.0f);
        cu.assign(rows_p, INFINITY);
        cl.assign(rows_p, INFINITY);
        for (int i = 0; i < rows; ++i) {
            float acc = 0;
            for (int k = 0; k < d; ++k) {
                const float v = A[(size_t)i * d + k] - c[k];
                At[(size_t)i * dp + k] = tf32(v);
                acc = fmaf(v, v, acc);
            }
            const double r = sqrt((double)acc) * (1 + g1 + 2 * u);
            const double b = 2 * kappa * r * r * (1 + 4 * u);
            cu[i] = nextafterf((float)(acc + b), INFINITY);
            cl[i] = nextafterf((float)(acc - b), -INFINITY);
        }
    };
    std::vector<float> Xt, Qt, cux, clx, cuq, clq;
    prep(X, n, np, Xt, cux, clx);
    prep(Q, m, mp, Qt, cuq, clq);

    float *dX, *dQ, *dcux, *dclx, *dcuq, *dclq, *dtau, *dQo, *dXo, *dD;
    int *dcount, *dentries, *dcand, *dI, *dfell;
    rec *dR;
    CHECK(cudaMalloc(&dX, Xt.size() * 4));
    CHECK(cudaMalloc(&dQ, Qt.size() * 4));
    CHECK(cudaMalloc(&dcux, np * 4));
    CHECK(cudaMalloc(&dclx, np * 4));
    CHECK(cudaMalloc(&dcuq, mp * 4));
    CHECK(cudaMalloc(&dclq, mp * 4));
    CHECK(cudaMalloc(&dR, (size_t)m * ntiles * sizeof(rec)));
    CHECK(cudaMalloc(&dtau, m * 4));
    CHECK(cudaMalloc(&dcount, m * 4));
    CHECK(cudaMalloc(&dentries, m * 4));
    CHECK(cudaMalloc(&dcand, (size_t)m * CAP * 4));
    CHECK(cudaMalloc(&dQo, Q.size() * 4));
    CHECK(cudaMalloc(&dXo, X.size() * 4));
    CHECK(cudaMalloc(&dD, (size_t)m * K * 4));
    CHECK(cudaMalloc(&dI, (size_t)m * K * 4));
    CHECK(cudaMalloc(&dfell, 4));
    CHECK(cudaMemcpy(dQo, Q.data(), Q.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dXo, X.data(), X.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dX, Xt.data(), Xt.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dQ, Qt.data(), Qt.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dcux, cux.data(), np * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dclx, clx.data(), np * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dcuq, cuq.data(), mp * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dclq, clq.data(), mp * 4, cudaMemcpyHostToDevice));
    const consts cst = {dcuq, dclq, dcux, dclx};
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int qt = mp / TM;
    int splits = (2 * sms + qt - 1) / qt;
    splits = std::min(splits, ntiles);
    /* more splits than the waves need: the last wave's tail shrinks */
    splits = std::min(ntiles, splits * 4);
    const int per = (ntiles + splits - 1) / splits;
    const dim3 grid(qt, (ntiles + per - 1) / per);
    const size_t smem = (size_t)ST * STAGE_FLOATS * 4;
    CHECK(cudaFuncSetAttribute(gemm_pass, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    const size_t rsmem = (2 * CAP + RB * (KR + 1)) * 4;
    CHECK(cudaFuncSetAttribute(rerank, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)rsmem));
    cudaEvent_t ev[5];
    for (auto &e : ev) CHECK(cudaEventCreate(&e));
    float ms[4] = {0, 0, 0, 0};
    for (int rep = 0; rep < 4; ++rep) {
        CHECK(cudaMemset(dfell, 0, 4));
        CHECK(cudaEventRecord(ev[0]));
        gemm_pass<<<grid, NT, smem>>>(dQ, dX, m, ntiles, dp, cst, dR, per);
        CHECK(cudaEventRecord(ev[1]));
        select_tau<<<m, 256>>>(dR, ntiles, K, dtau);
        CHECK(cudaEventRecord(ev[2]));
        extract<<<(m + 7) / 8, 256>>>(dR, m, ntiles, dtau, dcount, dcand, dentries);
        CHECK(cudaEventRecord(ev[3]));
        rerank<<<m, RB, rsmem>>>(dQo, dXo, n, d, dcount, dentries, dcand, K, dD, dI, dfell);
        CHECK(cudaEventRecord(ev[4]));
        CHECK(cudaEventSynchronize(ev[4]));
        CHECK(cudaGetLastError());
        for (int s = 0; s < 4; ++s) CHECK(cudaEventElapsedTime(&ms[s], ev[s], ev[s + 1]));
        printf("rep %d: gemm %.2f ms (%.3g TF32 flop/s), select %.2f ms, extract %.2f ms, "
               "re-rank %.2f ms; in all %.2f ms\n", rep, ms[0],
               2.0 * m * (double)n * d / (ms[0] * 1e-3), ms[1], ms[2], ms[3],
               ms[0] + ms[1] + ms[2] + ms[3]);
    }
    std::vector<int> count(m), Ig((size_t)m * K);
    std::vector<float> Dg((size_t)m * K);
    int fell = 0;
    CHECK(cudaMemcpy(Ig.data(), dI, Ig.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(Dg.data(), dD, Dg.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(count.data(), dcount, m * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&fell, dfell, 4, cudaMemcpyDeviceToHost));
    std::vector<int> sorted(count);
    std::sort(sorted.begin(), sorted.end());
    printf("grid %d x %d, %d tiles a block; candidates a query: median %d, largest %d; "
           "past %d (falling back): %d of %d queries\n", grid.x, grid.y, per, sorted[m / 2],
           sorted[m - 1], CAP, fell, m);
    /* the exact top K of some queries: f as 'fused' sums it */
    int checked = 0, wrong = 0;
    for (int q = 0, looked = 0; q < m && looked < 24; q += std::max(1, m / 24), ++looked) {
        if (count[q] > CAP) continue;
        ++checked;
        std::vector<float> f(n);
        for (int x = 0; x < n; ++x) {
            float acc = 0;
            for (int k = 0; k < d; ++k) {
                const float t = Q[(size_t)q * d + k] - X[(size_t)x * d + k];
                acc = fmaf(t, t, acc);
            }
            f[x] = acc;
        }
        std::vector<int> order(n);
        for (int x = 0; x < n; ++x) order[x] = x;
        std::partial_sort(order.begin(), order.begin() + K, order.end(),
                          [&](int a, int b) { return f[a] < f[b] || (f[a] == f[b] && a < b); });
        for (int r = 0; r < K; ++r)
            if (Ig[(size_t)q * K + r] != order[r] || Dg[(size_t)q * K + r] != f[order[r]]) ++wrong;
    }
    printf("%d queries (of 24 looked at; the others fell back) checked against their exact top "
           "%d: %d of the K places differ\n", checked, K, wrong);
    printf("%s\n", wrong ? "NOT EXACT" : "exact: every neighbour, in Octave's order");
    return wrong ? 1 : 0;
}
