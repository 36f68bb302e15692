/* minplus.cu - the min-plus product R = A (x) B on the GPU.
 *
 * R(i,j) = min_k A(i,k) + B(k,j): the "shortcut" step of shortest paths,
 * following the kernel ladder of "Programming Parallel Computers", chapter 4
 * (versions 0-4), rewritten for Octave's column-major matrices:
 *
 *   v0  one thread per output; threadIdx.x walks j, so a warp's reads of B
 *       and its writes of R are strided (the naive mapping)
 *   v1  v0 with threadIdx.x walking i: A's column and R's column are read
 *       and written contiguously by each warp
 *   v2  each thread keeps an 8x8 block of R in registers (64x64 per block
 *       of 8x8 threads), reading the padded A and the transposed B
 *   v3  v2 with operands staged through shared memory 4 k-steps at a time
 *   v4  v3 with 16-byte loads from global and shared memory, 16-byte stores
 *       into a padded R copied back with cudaMemcpy2D, __launch_bounds__
 *
 * Layouts. v0/v1 read A (m x k) and B (k x n) as Octave holds them. v2-v4
 * read the layouts the preparation kernels build on the device:
 *   Ap  A, column-major, mp x kp:  Ap[i + mp*k]   (A(:,k) contiguous)
 *   Bt  B transposed,     np x kp:  Bt[j + np*k]   (B(k,:) contiguous)
 * mp, np: m, n rounded up to the 64-wide tile; kp: k rounded up to the
 * staging depth. Padding holds NaN: the accumulator starts at NaN and fmin
 * skips NaN, so padded k-steps never change a result (padding with +Inf
 * would: Inf + -Inf is NaN, and a row of -Inf would become NaN). Padding
 * rows and columns of R are computed but never copied back.
 *
 * Semantics: fmin is Octave's min rule (NaN ignored unless every term is
 * NaN); sums are plain IEEE adds in the input's class, so results are
 * Octave's bit for bit, except that a zero minimum may carry the other
 * sign when +0 and -0 tie (the comparison disagrees on nothing else).
 */
#include "gd_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

// ---------------------------------------------------------------------------
// helpers

enum { TILE = 64, KPAD = 8 };

template <class T> __device__ __forceinline__ T nan_v();
template <> __device__ __forceinline__ float nan_v<float>() { return __int_as_float(0x7fffffff); }
template <> __device__ __forceinline__ double nan_v<double>() { return __longlong_as_double(0x7fffffffffffffffLL); }

__device__ __forceinline__ float gmin(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double gmin(double a, double b) { return fmin(a, b); }

// A 16-byte vector of T: the widest load one thread can issue.
template <class T> struct vec16;
template <> struct vec16<float> { typedef float4 type; enum { N = 4 }; };
template <> struct vec16<double> { typedef double2 type; enum { N = 2 }; };

__device__ __forceinline__ void unpack(float *d, float4 v) { d[0] = v.x; d[1] = v.y; d[2] = v.z; d[3] = v.w; }
__device__ __forceinline__ void unpack(double *d, double2 v) { d[0] = v.x; d[1] = v.y; }
__device__ __forceinline__ float4 pack(const float *s) { return make_float4(s[0], s[1], s[2], s[3]); }
__device__ __forceinline__ double2 pack(const double *s) { return make_double2(s[0], s[1]); }

static int64_t round_up(int64_t x, int64_t q) { return (x + q - 1) / q * q; }

// Grid rows are limited to 65535; kernels stride over j tiles past that.
static unsigned grid_y(int64_t tiles) { return (unsigned)(tiles < 65535 ? tiles : 65535); }

// ---------------------------------------------------------------------------
// preparation kernels: Octave's layouts -> padded Ap and transposed Bt

// Ap[i + mp*k] = A[i + m*k], NaN outside m x k. Consecutive threads take
// consecutive i: reads and writes are coalesced.
template <class T>
__global__ void minplus_prep_pad(const T *__restrict__ A, T *__restrict__ Ap,
                                 int64_t m, int64_t k, int64_t mp, int64_t kp)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= mp) return;
    for (int64_t kk = blockIdx.y; kk < kp; kk += gridDim.y)
        Ap[i + mp * kk] = (i < m && kk < k) ? A[i + m * kk] : nan_v<T>();
}

// Bt[j + np*k] = B[k + kdim*j], NaN outside: a transpose through a 32x32
// shared tile (one column of padding so the column reads hit 32 banks).
template <class T>
__global__ void minplus_prep_transpose(const T *__restrict__ B,
                                       T *__restrict__ Bt, int64_t kdim,
                                       int64_t n, int64_t kp, int64_t np)
{
    __shared__ T tile[32][33];
    int64_t k0 = (int64_t)blockIdx.x * 32, j0 = (int64_t)blockIdx.y * 32;
    for (; j0 < np; j0 += (int64_t)gridDim.y * 32) {
        for (int r = threadIdx.y; r < 32; r += blockDim.y) {
            int64_t kk = k0 + threadIdx.x, j = j0 + r;
            tile[r][threadIdx.x] =
                (kk < kdim && j < n) ? B[kk + kdim * j] : nan_v<T>();
        }
        __syncthreads();
        for (int r = threadIdx.y; r < 32; r += blockDim.y) {
            int64_t kk = k0 + r, j = j0 + threadIdx.x;
            if (kk < kp && j < np) Bt[j + np * kk] = tile[threadIdx.x][r];
        }
        __syncthreads();
    }
}

// ---------------------------------------------------------------------------
// v0, v1: one thread per output on Octave's own layouts.
// JFAST selects the mapping: threadIdx.x walks j (v0) or i (v1).

template <class T, bool JFAST>
__global__ void minplus_v01_naive(const T *__restrict__ A,
                                  const T *__restrict__ B, T *__restrict__ R,
                                  int64_t m, int64_t k, int64_t n)
{
    const int64_t fast = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t nslow = JFAST ? m : n;
    if (fast >= (JFAST ? n : m)) return;
    for (int64_t slow = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
         slow < nslow; slow += (int64_t)gridDim.y * blockDim.y) {
        const int64_t i = JFAST ? slow : fast, j = JFAST ? fast : slow;
        T v = nan_v<T>();
        for (int64_t kk = 0; kk < k; ++kk) v = gmin(v, A[i + m * kk] + B[kk + k * j]);
        R[i + m * j] = v;
    }
}

// ---------------------------------------------------------------------------
// v2: 8x8 outputs per thread from registers, no shared memory. Thread
// (ia, ja) of block (ic, jc) owns i = 64ic + 8ib + ia, j = 64jc + 8jb + ja.

template <class T>
__global__ void minplus_v2_registers(const T *__restrict__ Ap,
                                     const T *__restrict__ Bt,
                                     T *__restrict__ R, int64_t m, int64_t n,
                                     int64_t mp, int64_t np, int64_t kp)
{
    const int ia = threadIdx.x, ja = threadIdx.y;
    const int64_t ic = blockIdx.x;
    for (int64_t jc = blockIdx.y; jc * TILE < np; jc += gridDim.y) {
        T v[8][8];
#pragma unroll
        for (int ib = 0; ib < 8; ++ib)
#pragma unroll
            for (int jb = 0; jb < 8; ++jb) v[ib][jb] = nan_v<T>();
        for (int64_t kk = 0; kk < kp; ++kk) {
            T x[8], y[8];
#pragma unroll
            for (int b = 0; b < 8; ++b) {
                x[b] = Ap[mp * kk + ic * TILE + b * 8 + ia];
                y[b] = Bt[np * kk + jc * TILE + b * 8 + ja];
            }
#pragma unroll
            for (int ib = 0; ib < 8; ++ib)
#pragma unroll
                for (int jb = 0; jb < 8; ++jb) v[ib][jb] = gmin(v[ib][jb], x[ib] + y[jb]);
        }
#pragma unroll
        for (int ib = 0; ib < 8; ++ib)
#pragma unroll
            for (int jb = 0; jb < 8; ++jb) {
                int64_t i = ic * TILE + ib * 8 + ia, j = jc * TILE + jb * 8 + ja;
                if (i < m && j < n) R[i + m * j] = v[ib][jb];
            }
    }
}

// ---------------------------------------------------------------------------
// v3: v2 with the 64 + 64 operands of 4 k-steps staged in shared memory by
// the whole block (one coalesced load of each per thread and k-step), so
// each global element is read once per block instead of 8 times.

template <class T>
__global__ void minplus_v3_shared(const T *__restrict__ Ap,
                                  const T *__restrict__ Bt, T *__restrict__ R,
                                  int64_t m, int64_t n, int64_t mp, int64_t np,
                                  int64_t kp)
{
    enum { KS = 4 };
    __shared__ T xx[KS][TILE], yy[KS][TILE];
    const int ia = threadIdx.x, ja = threadIdx.y, tid = ja * 8 + ia;
    const int64_t ic = blockIdx.x;
    for (int64_t jc = blockIdx.y; jc * TILE < np; jc += gridDim.y) {
        T v[8][8];
#pragma unroll
        for (int ib = 0; ib < 8; ++ib)
#pragma unroll
            for (int jb = 0; jb < 8; ++jb) v[ib][jb] = nan_v<T>();
        for (int64_t ks = 0; ks < kp; ks += KS) {
#pragma unroll
            for (int f = 0; f < KS; ++f) {
                xx[f][tid] = Ap[mp * (ks + f) + ic * TILE + tid];
                yy[f][tid] = Bt[np * (ks + f) + jc * TILE + tid];
            }
            __syncthreads();
#pragma unroll
            for (int f = 0; f < KS; ++f) {
                T x[8], y[8];
#pragma unroll
                for (int b = 0; b < 8; ++b) {
                    x[b] = xx[f][b * 8 + ia];
                    y[b] = yy[f][b * 8 + ja];
                }
#pragma unroll
                for (int ib = 0; ib < 8; ++ib)
#pragma unroll
                    for (int jb = 0; jb < 8; ++jb) v[ib][jb] = gmin(v[ib][jb], x[ib] + y[jb]);
            }
            __syncthreads();
        }
#pragma unroll
        for (int ib = 0; ib < 8; ++ib)
#pragma unroll
            for (int jb = 0; jb < 8; ++jb) {
                int64_t i = ic * TILE + ib * 8 + ia, j = jc * TILE + jb * 8 + ja;
                if (i < m && j < n) R[i + m * j] = v[ib][jb];
            }
    }
}

// ---------------------------------------------------------------------------
// v4: v3 with 16-byte accesses everywhere. With W = 16/sizeof(T) elements a
// vector, thread ia owns the rows 64ic + g*8W + ia*W + w (g < 8/W, w < W):
// W consecutive rows, so one 16-byte shared load brings W of its x values
// and one 16-byte store writes W outputs of a column. Columns likewise with
// ja. Staging a k-step takes 64/W vector loads: for float, 64 threads move
// all 4 k-steps of A and of B with one load each. R is padded (mp x np) so
// every column starts 16-byte aligned; the host copies it back with
// cudaMemcpy2D. __launch_bounds__(64) lets the compiler use up to 255
// registers: the 64 accumulators and 16 operands stay in registers.

template <class T>
__global__ void __launch_bounds__(64)
minplus_v4_vector(const T *__restrict__ Ap, const T *__restrict__ Bt,
                  T *__restrict__ Rp, int64_t mp, int64_t np, int64_t kp)
{
    enum { KS = 4 };
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N, NV = TILE / W };
    __shared__ __align__(16) T xx[KS][TILE];
    __shared__ __align__(16) T yy[KS][TILE];
    const int ia = threadIdx.x, ja = threadIdx.y, tid = ja * 8 + ia;
    const int64_t ic = blockIdx.x;
    for (int64_t jc = blockIdx.y; jc * TILE < np; jc += gridDim.y) {
        T v[8][8];
#pragma unroll
        for (int ib = 0; ib < 8; ++ib)
#pragma unroll
            for (int jb = 0; jb < 8; ++jb) v[ib][jb] = nan_v<T>();
        for (int64_t ks = 0; ks < kp; ks += KS) {
#pragma unroll
            for (int r = 0; r < KS * NV / 64; ++r) {
                const int e = tid + 64 * r, f = e / NV, q = e % NV;
                *reinterpret_cast<V *>(&xx[f][q * W]) =
                    *reinterpret_cast<const V *>(&Ap[mp * (ks + f) + ic * TILE + q * W]);
                *reinterpret_cast<V *>(&yy[f][q * W]) =
                    *reinterpret_cast<const V *>(&Bt[np * (ks + f) + jc * TILE + q * W]);
            }
            __syncthreads();
#pragma unroll
            for (int f = 0; f < KS; ++f) {
                T x[8], y[8];
#pragma unroll
                for (int g = 0; g < 8 / W; ++g) {
                    unpack(x + g * W, *reinterpret_cast<const V *>(&xx[f][g * 8 * W + ia * W]));
                    unpack(y + g * W, *reinterpret_cast<const V *>(&yy[f][g * 8 * W + ja * W]));
                }
#pragma unroll
                for (int ib = 0; ib < 8; ++ib)
#pragma unroll
                    for (int jb = 0; jb < 8; ++jb) v[ib][jb] = gmin(v[ib][jb], x[ib] + y[jb]);
            }
            __syncthreads();
        }
#pragma unroll
        for (int jb = 0; jb < 8; ++jb) {
            const int64_t j = jc * TILE + (jb / W) * 8 * W + ja * W + jb % W;
#pragma unroll
            for (int g = 0; g < 8 / W; ++g) {
                T col[W];
#pragma unroll
                for (int w = 0; w < W; ++w) col[w] = v[g * W + w][jb];
                *reinterpret_cast<V *>(&Rp[mp * j + ic * TILE + g * 8 * W + ia * W]) = pack(col);
            }
        }
    }
}

// Fills R (count elements) with +Inf: the product over an empty k.
template <class T>
__global__ void minplus_fill_inf(T *R, int64_t count)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x)
        R[e] = (T)INFINITY;
}

// ---------------------------------------------------------------------------
// launchers

enum layout { RAW, TILED };

struct plan {
    const void *A, *B; // device operands in the variant's layout
    void *R;           // device result, m x n (dense) or mp x np (padded)
    int64_t m, k, n, mp, kp, np;
};

static unsigned blocks_for(int64_t work, int threads)
{
    int64_t b = (work + threads - 1) / threads;
    return (unsigned)(b < 65536 * 4 ? (b > 0 ? b : 1) : 65536 * 4);
}

template <class T, bool JFAST> static void launch_v01(const plan &p)
{
    dim3 block(32, 8);
    int64_t fast = JFAST ? p.n : p.m, slow = JFAST ? p.m : p.n;
    dim3 grid((unsigned)((fast + 31) / 32), grid_y((slow + 7) / 8));
    minplus_v01_naive<T, JFAST><<<grid, block, 0, gd_stream()>>>(
        (const T *)p.A, (const T *)p.B, (T *)p.R, p.m, p.k, p.n);
}

template <class T> static void launch_v2(const plan &p)
{
    dim3 grid((unsigned)(p.mp / TILE), grid_y(p.np / TILE));
    minplus_v2_registers<T><<<grid, dim3(8, 8), 0, gd_stream()>>>(
        (const T *)p.A, (const T *)p.B, (T *)p.R, p.m, p.n, p.mp, p.np, p.kp);
}

template <class T> static void launch_v3(const plan &p)
{
    dim3 grid((unsigned)(p.mp / TILE), grid_y(p.np / TILE));
    minplus_v3_shared<T><<<grid, dim3(8, 8), 0, gd_stream()>>>(
        (const T *)p.A, (const T *)p.B, (T *)p.R, p.m, p.n, p.mp, p.np, p.kp);
}

template <class T> static void launch_v4(const plan &p)
{
    dim3 grid((unsigned)(p.mp / TILE), grid_y(p.np / TILE));
    minplus_v4_vector<T><<<grid, dim3(8, 8), 0, gd_stream()>>>(
        (const T *)p.A, (const T *)p.B, (T *)p.R, p.mp, p.np, p.kp);
}

typedef void (*launcher)(const plan &);

struct variant {
    gd_variant_info info;
    layout in;       // operands as Octave holds them, or Ap/Bt
    bool padded_out; // R is mp x np (copied back with cudaMemcpy2D)
    launcher run_f, run_d;
};

const variant VARIANTS[] = {
    {{"v0", "one thread per output, threads along j: strided reads of B, strided writes", 1},
     RAW, false, launch_v01<float, true>, launch_v01<double, true>},
    {{"v1", "one thread per output, threads along i: each warp reads A and writes R contiguously", 1},
     RAW, false, launch_v01<float, false>, launch_v01<double, false>},
    {{"v2", "8x8 outputs per thread kept in registers, padded A and transposed B", 1},
     TILED, false, launch_v2<float>, launch_v2<double>},
    {{"v3", "v2 with 64x64 tiles staged through shared memory 4 k-steps at a time", 1},
     TILED, false, launch_v3<float>, launch_v3<double>},
    {{"v4", "v3 with 16-byte loads and stores, padded output, __launch_bounds__", 1},
     TILED, true, launch_v4<float>, launch_v4<double>},
    {{"cpu", "OpenMP on the host, blocked for cache, Octave's min rule", 0},
     RAW, false, NULL, NULL},
};
const int NVARIANTS = sizeof VARIANTS / sizeof VARIANTS[0];
const gd_variant_info *g_infos; // built once from VARIANTS

// Below this many min-plus steps the host finishes before the GPU round
// trip (allocations, copies, launch) would.
const double AUTO_CPU_BELOW = 1 << 17;

const variant *find_variant(const char *name)
{
    for (int i = 0; i < NVARIANTS; ++i)
        if (strcmp(VARIANTS[i].info.name, name) == 0) return &VARIANTS[i];
    return NULL;
}

static gd_status sync_check(const char *what)
{
    gd_status s = gd_cuda(cudaGetLastError(), what);
    if (s) return s;
    return gd_cuda(cudaStreamSynchronize(gd_stream()), what);
}

static void describe_R(char *buf, size_t len, int64_t m, int64_t n, gd_class cls)
{
    snprintf(buf, len, "R (%lld x %lld %s)", (long long)m, (long long)n,
             cls == GD_SINGLE ? "single" : "double");
}

static gd_status run_cpu(gd_class cls, const void *A, const void *B, gd_out out,
                         int64_t m, int64_t k, int64_t n, gd_timing *t)
{
    char what[96];
    describe_R(what, sizeof what, m, n, cls);
    gd_status s = gd_out_buffer(&out, (size_t)(m * n) * (cls == GD_SINGLE ? 4 : 8), what);
    if (s) return s;
    void *R = out.ptr;
    double t0 = gd_now_ms();
    if (cls == GD_SINGLE)
        gd_cpu_minplus_f((const float *)A, (const float *)B, (float *)R, m, k, n);
    else
        gd_cpu_minplus_d((const double *)A, (const double *)B, (double *)R, m, k, n);
    t->kernel_ms = gd_now_ms() - t0;
    snprintf(t->variant, sizeof t->variant, "cpu");
    snprintf(t->device, sizeof t->device, "cpu (%d threads)", gd_cpu_threads());
    return GD_OK;
}

static gd_status run_gpu(const variant *v, gd_class cls, const void *A,
                         const void *B, gd_out out, int64_t m, int64_t k,
                         int64_t n, gd_timing *t)
{
    const size_t es = cls == GD_SINGLE ? 4 : 8;
    const char *cn = cls == GD_SINGLE ? "single" : "double";
    gd_status s = gd_device_ready();
    if (s) return s;
    snprintf(t->variant, sizeof t->variant, "%s", v->info.name);
    snprintf(t->device, sizeof t->device, "%s", gd_device_name());
    cudaStream_t st = gd_stream();

    plan p;
    p.m = m; p.k = k; p.n = n;
    p.mp = round_up(m, TILE); p.np = round_up(n, TILE); p.kp = round_up(k, KPAD);
    const bool tiled = v->in == TILED;
    const int64_t rm = v->padded_out ? p.mp : m, rn = v->padded_out ? p.np : n;

    gd_allocs al = {};
    void *dA = NULL, *dB = NULL, *dAp = NULL, *dBt = NULL, *dR = NULL;
    char what[128];
#define ALLOC(ptr, rows, cols, label)                                          \
    do {                                                                       \
        snprintf(what, sizeof what, "%s (%lld x %lld %s)", label,              \
                 (long long)(rows), (long long)(cols), cn);                    \
        if ((s = gd_alloc(&al, &(ptr), (size_t)(rows) * (size_t)(cols) * es,   \
                          what)))                                              \
            goto done;                                                         \
    } while (0)
    ALLOC(dA, m, k, "A");
    ALLOC(dB, k, n, "B");
    if (tiled && k > 0) {
        ALLOC(dAp, p.mp, p.kp, "padded A");
        ALLOC(dBt, p.np, p.kp, "transposed B");
    }
    ALLOC(dR, rm, rn, "R");
#undef ALLOC

    {
        const int threads = 256;
        cudaEventRecord(gd_event(0), st);
        if ((s = gd_cuda(cudaMemcpyAsync(dA, A, (size_t)(m * k) * es, cudaMemcpyHostToDevice, st), "copy of A to the GPU")) ||
            (s = gd_cuda(cudaMemcpyAsync(dB, B, (size_t)(k * n) * es, cudaMemcpyHostToDevice, st), "copy of B to the GPU")))
            goto done;
        cudaEventRecord(gd_event(1), st);
        if (k == 0) {
            cudaEventRecord(gd_event(2), st);
            if (cls == GD_SINGLE)
                minplus_fill_inf<float><<<blocks_for(rm * rn, threads), threads, 0, st>>>((float *)dR, rm * rn);
            else
                minplus_fill_inf<double><<<blocks_for(rm * rn, threads), threads, 0, st>>>((double *)dR, rm * rn);
        } else {
            if (tiled) {
                dim3 pgrid((unsigned)((p.mp + threads - 1) / threads), grid_y(p.kp));
                dim3 tgrid((unsigned)((p.kp + 31) / 32), grid_y(p.np / 32));
                if (cls == GD_SINGLE) {
                    minplus_prep_pad<float><<<pgrid, threads, 0, st>>>((const float *)dA, (float *)dAp, m, k, p.mp, p.kp);
                    minplus_prep_transpose<float><<<tgrid, dim3(32, 8), 0, st>>>((const float *)dB, (float *)dBt, k, n, p.kp, p.np);
                } else {
                    minplus_prep_pad<double><<<pgrid, threads, 0, st>>>((const double *)dA, (double *)dAp, m, k, p.mp, p.kp);
                    minplus_prep_transpose<double><<<tgrid, dim3(32, 8), 0, st>>>((const double *)dB, (double *)dBt, k, n, p.kp, p.np);
                }
                if ((s = gd_cuda(cudaGetLastError(), "layout preparation kernel"))) goto done;
                p.A = dAp; p.B = dBt;
            } else {
                p.A = dA; p.B = dB;
            }
            p.R = dR;
            /* GD_POISON: fill R first so that an element a kernel fails to
             * write shows (0xCD bytes: a large negative finite value) */
            if (getenv("GD_POISON") &&
                (s = gd_cuda(cudaMemsetAsync(dR, 0xCD, (size_t)(rm * rn) * es, st), "poisoning R")))
                goto done;
            cudaEventRecord(gd_event(2), st);
            (cls == GD_SINGLE ? v->run_f : v->run_d)(p);
        }
        if ((s = gd_cuda(cudaGetLastError(), "min-plus kernel launch"))) goto done;
        cudaEventRecord(gd_event(3), st);
        /* the host buffer for R is allocated (and first touched) now,
         * while the kernel runs */
        describe_R(what, sizeof what, m, n, cls);
        if ((s = gd_out_buffer(&out, (size_t)(m * n) * es, what))) goto done;
        void *R = out.ptr;
        cudaEventRecord(gd_event(4), st); /* the download starts here */
        if (v->padded_out || k == 0)
            s = gd_cuda(cudaMemcpy2DAsync(R, (size_t)m * es, dR, (size_t)rm * es, (size_t)m * es, (size_t)n, cudaMemcpyDeviceToHost, st), "copy of R from the GPU");
        else
            s = gd_cuda(cudaMemcpyAsync(R, dR, (size_t)(m * n) * es, cudaMemcpyDeviceToHost, st), "copy of R from the GPU");
        if (s) goto done;
        cudaEventRecord(gd_event(5), st);
        if ((s = sync_check("min-plus kernel"))) goto done;
        t->upload_ms = gd_elapsed(0, 1);
        t->prep_ms = gd_elapsed(1, 2);
        t->kernel_ms = gd_elapsed(2, 3);
        t->download_ms = gd_elapsed(4, 5);
    }
done:
    if (s) cudaStreamSynchronize(st);
    gd_free_all(&al);
    return s;
}

} // namespace

extern "C" int gd_minplus_variants(const gd_variant_info **list)
{
    static gd_variant_info infos[sizeof VARIANTS / sizeof VARIANTS[0]];
    if (!g_infos) {
        for (int i = 0; i < NVARIANTS; ++i) infos[i] = VARIANTS[i].info;
        g_infos = infos;
    }
    *list = g_infos;
    return NVARIANTS;
}

extern "C" gd_status gd_minplus(const char *name, gd_class cls, const void *A,
                                const void *B, gd_out R, int64_t m, int64_t k,
                                int64_t n, gd_timing *t)
{
    double t0 = gd_now_ms();
    memset(t, 0, sizeof *t);
    t->ops = (double)m * (double)n * (double)k;
    if (m < 0 || k < 0 || n < 0)
        return gd_fail(GD_ERR_SIZE, "negative size");
    const variant *v;
    if (strcmp(name, "auto") == 0) {
        gd_status s = gd_device_ready();
        if (s == GD_ERR_NOGPU)
            snprintf(t->fallback, sizeof t->fallback, "%s", gd_last_error());
        else if (s != GD_OK)
            return s;
        v = find_variant(s == GD_OK && t->ops >= AUTO_CPU_BELOW ? "v4" : "cpu");
    } else if (!(v = find_variant(name))) {
        return gd_fail(GD_ERR_VARIANT, "unknown variant '%s'", name);
    }
    gd_status s;
    if (m == 0 || n == 0) {
        snprintf(t->variant, sizeof t->variant, "%s", v->info.name);
        s = gd_out_buffer(&R, 0, "R");
    } else if (v->info.gpu) {
        s = run_gpu(v, cls, A, B, R, m, k, n, t);
    } else {
        s = run_cpu(cls, A, B, R, m, k, n, t);
    }
    t->total_ms = gd_now_ms() - t0;
    return s;
}
