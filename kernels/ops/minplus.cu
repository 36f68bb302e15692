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
 *   v5  beyond the course: 128x64 tiles of 128 threads, four blocks an SM,
 *       8 k-steps a stage, three shared stages filled by cp.async (double:
 *       the distances' 128x64 of 128, two blocks an SM, two stages, the
 *       next prefetched into registers)
 *       (tile.cuh). In single, where no operand is negative (nor -0), the
 *       min runs on the sums' bit patterns as integers, three at a time
 *       (16 k-steps a stage)
 *
 * Layouts. v0/v1 read A (m x k) and B (k x n) as Octave holds them. v2-v5
 * read the layouts the preparation kernels build on the device:
 *   Ap  A, column-major, mp x kp:  Ap[i + mp*k]   (A(:,k) contiguous)
 *   Bt  B transposed,     np x kp:  Bt[j + np*k]   (B(k,:) contiguous)
 * mp, np: m, n rounded up to the tile (64, or 128 for v5); kp: k rounded up to the
 * staging depth. Padding holds NaN: the accumulator starts at NaN and fmin
 * skips NaN, so padded k-steps never change a result (padding with +Inf
 * would: Inf + -Inf is NaN, and a row of -Inf would become NaN). Padding
 * rows and columns of R are computed but never copied back.
 *
 * Semantics: fmin is Octave's min rule (NaN ignored unless every term is
 * NaN); sums are plain IEEE adds in the input's class, so results are
 * Octave's bit for bit, except that a zero minimum may carry the other
 * sign when +0 and -0 tie (the comparison disagrees on nothing else). v5
 * in double compares and selects instead of fmin (tile.cuh's minplus_sel,
 * 1.55 times fmin's rate): the first least sum stays, as in Octave's
 * min, so its zeros carry Octave's sign too, and the outputs whose every
 * term is NaN are found after the tile (all_nan).
 */
#include "ops/product.h"
#include "tiles/tile.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// v5 on the integer classes (minplus_int.cu): its launcher, workspace and
// the form it reports
gd_status gd_minplus_int_launch(const gd_plan &p);
size_t gd_minplus_int_work(const gd_plan &p);
void gd_minplus_int_after(const gd_plan &p, gd_timing *t);

namespace {

// ---------------------------------------------------------------------------
// helpers

enum { TILE = gd_tile::TILE, KPAD = 8, V5_BK = 8, V5_BK_NONNEG = 16 };

template <class T> __device__ __forceinline__ T nan_v();
template <> __device__ __forceinline__ float nan_v<float>() { return __int_as_float(0x7fffffff); }
template <> __device__ __forceinline__ double nan_v<double>() { return __longlong_as_double(0x7fffffffffffffffLL); }

__device__ __forceinline__ float gmin(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double gmin(double a, double b) { return fmin(a, b); }



// ---------------------------------------------------------------------------
// v0, v1: one thread per output on Octave's own layouts.
// JFAST selects the mapping: threadIdx.x walks j (v0) or i (v1).

// With K (the witness), Octave's own rule: a term replaces the minimum
// when it is smaller, or when the minimum is still NaN and it is not; K
// gets the k + 1 of the last replacement (1 when every term is NaN).
template <class T, bool JFAST, bool WITNESS>
__global__ void minplus_v01_naive(const T *__restrict__ A,
                                  const T *__restrict__ B, T *__restrict__ R,
                                  int *__restrict__ K, int64_t m, int64_t k, int64_t n)
{
    const int64_t fast = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t nslow = JFAST ? m : n;
    if (fast >= (JFAST ? n : m)) return;
    for (int64_t slow = blockIdx.y * (int64_t)blockDim.y + threadIdx.y;
         slow < nslow; slow += (int64_t)gridDim.y * blockDim.y) {
        const int64_t i = JFAST ? slow : fast, j = JFAST ? fast : slow;
        T v = nan_v<T>();
        if constexpr (WITNESS) {
            int64_t w = 0;
            for (int64_t kk = 0; kk < k; ++kk) {
                const T s = A[i + m * kk] + B[kk + k * j];
                if (s < v || (v != v && s == s)) {
                    v = s;
                    w = kk;
                }
            }
            K[i + m * j] = (int)(w + 1);
        } else {
            for (int64_t kk = 0; kk < k; ++kk) v = gmin(v, A[i + m * kk] + B[kk + k * j]);
        }
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
// v4: v3 with 16-byte accesses everywhere: loads from global and shared
// memory and stores of R, through the tile of tile.cuh. R is padded
// (mp x np) so every column starts 16-byte aligned; the host copies it
// back with cudaMemcpy2D. __launch_bounds__(64) lets the compiler use up
// to 255 registers: the 64 accumulators and 16 operands stay in registers.

template <class T>
__global__ void __launch_bounds__(64)
minplus_v4_vector(const T *__restrict__ Ap, const T *__restrict__ Bt,
                  T *__restrict__ Rp, int64_t mp, int64_t np, int64_t kp)
{
    const int64_t ic = blockIdx.x;
    for (int64_t jc = blockIdx.y; jc * TILE < np; jc += gridDim.y) {
        T v[8][8];
        gd_tile::accumulate<gd_tile::minplus>(Ap, mp, Bt, np, kp, ic, jc, v);
        gd_tile::store_padded(Rp, mp, ic, jc, v, gd_tile::identity());
    }
}

// ---------------------------------------------------------------------------
// v5: beyond the course. The big block tile of tile.cuh: in single 128x64
// outputs, 128 threads and four blocks an SM (double: 128x128, 256
// threads, one block an SM), 8x8 outputs a thread, 8 k-steps of both
// operands a shared-memory stage. Single keeps three stages, the next two
// copied in by cp.async while one is computed; double two, the next loaded
// into registers while the current one is computed. Either way one barrier
// per 8 k-steps instead of two per 4, and global loads in flight behind
// the arithmetic.
// Its kernel is sgemm 'tuned''s (launch_big) with another step and shape.

//
// Single has two forms. Where no element of A or B has its sign bit set
// (NaN aside), the sums are never negative and their min is the integer
// min of their bit patterns (gd_tile::minplus_nonneg), which sm_90 takes
// three at a time: 1.5 instructions a step instead of 2. Shortest paths
// (non-negative weights, Inf for no edge) are that case. Otherwise the
// sign split below: the integer max where a sum is negative, fminf on
// the tiles where none is. The choice is a tile's: an output reads one
// row of A and one column of B, so a tile whose 128 rows of A and 64
// columns of B have no sign bit set is clean, and takes the integer min
// whatever the rest holds; only the other tiles go to the sign split. A
// scan of the prepared operands sets a flag for each tile row of A and
// tile column of B, and one for the whole, on the device; every kernel is
// queued, its blocks read their tile's flags, and those that are not
// theirs return at once, so the host never waits for the scan.

// Sign bit set and not NaN (-0, a negative number, -Inf): 0x80000000 <=
// bits <= 0xff800000.
__device__ __forceinline__ bool has_sign(float4 v)
{
    const unsigned lo = 0x80000000u, span = 0x7f800000u;
    return (__float_as_uint(v.x) - lo <= span) | (__float_as_uint(v.y) - lo <= span) |
           (__float_as_uint(v.z) - lo <= span) | (__float_as_uint(v.w) - lo <= span);
}

// The flags of a prepared operand's block x (rows x kp, leading dimension
// rows, a multiple of 4G): tile[t] = 1 where tile t (4G rows: A's 128, G
// = 32; B's 64 columns, G = 16) has an element with its sign bit set in
// any k-step, *flag = 1 where any tile has. G lanes of a warp read one
// tile's 4G rows of one k-step (aligned: rows is a multiple of 4G), so a
// group's ballot is its tile's answer; a flag already set is not written
// again.
template <int G>
__global__ void find_negative(const float4 *__restrict__ x, int64_t rows4, int64_t count4,
                              int *__restrict__ tile, int *flag)
{
    bool any = false;
    const int lane = threadIdx.x % 32;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const int64_t count = (count4 + 31) / 32 * 32; /* whole warps in the loop */
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count; e += step) {
        const bool neg = e < count4 && has_sign(x[e]);
        const unsigned mask = __ballot_sync(0xffffffffu, neg);
        unsigned mine = mask;
        if constexpr (G < 32) mine = (mask >> (lane / G * G)) & ((1u << G) - 1);
        if (mine && lane % G == 0 && e < count4) {
            int *t = tile + (e % rows4) / G;
            if (!*t) *t = 1;
        }
        any |= neg;
    }
    if (__syncthreads_or(any) && threadIdx.x == 0) *flag = 1;
}

// A tile's flags (tile row i0 of A, tile column j0 of B within the block;
// A's flags start at the block's first tile row, B's at its first tile
// column): true where the tile is clean. Without per_tile, the whole
// product's flag decides for every tile (any: the live sign flag).
struct tile_signs {
    const int *a, *b, *any;
    bool per_tile;
    template <int TX, int TY> __device__ bool clean(int64_t i0, int64_t j0) const
    {
        if (!per_tile) return !*any;
        return !a[i0 / (8 * TX)] && !b[j0 / (8 * TY)];
    }
};

// Whether a product chooses by tile: only where the whole result spans
// waves enough of tiles. The tiles that need the sign split run on the
// side stream (gd_side_begin), which has the SMs first, so they run beside
// the clean ones instead of after them; still, over few waves the extra
// launches and a sign-split tile's longer time are not paid back by the
// integer min's gain. H100, one negative element (by tile against not):
// n = 8192 35.7 against 41.6 ms, 4096 4.58 against 5.28, but 2048 0.85
// against 0.75 and 1024 0.18 against 0.12 (4 and 1 tiles an SM).
bool choose_by_tile(const gd_plan &p)
{
    const int64_t tiles = gd_round_up(p.args.whole_m, gd_tile::BIG) / gd_tile::BIG *
                          (gd_round_up(p.args.whole_n, gd_tile::BIG) / 64);
    if (gd_setting_is(GD_SET_BY_TILE, "1")) return true;
    if (gd_setting_is(GD_SET_BY_TILE, "0")) return false;
    return tiles >= (int64_t)8 * gd_sm_count();
}

// The integer min on the clean tiles (count: += 1 a tile computed)
struct clean_only {
    tile_signs signs;
    int *count;
    template <class T, int TX, int TY>
    __device__ bool skip(T *, int64_t, int64_t i0, int64_t j0) const
    {
        return !signs.template clean<TX, TY>(i0, j0);
    }
    template <class T, int TX, int TY>
    __device__ void done(const T (&)[8][8], int64_t, int64_t) const
    {
        if (threadIdx.x == 0) atomicAdd(count, 1);
    }
};

// Where an operand has a negative element, single runs the sign split:
// minplus_negmax's integer max, exact wherever an output has a negative
// sum, then fminf again on the tiles with an output that has none (its
// bits at most 0x80000000: -0, +0 ... +Inf, NaN). Both kernels are queued
// at once; the second reads each tile of R before it computes and returns
// at once where the first was exact everywhere. Random signed data
// (randn) needs no tile again past a few k-steps. Where many tiles need
// it (mostly non-negative results), the first kernel stops computing
// once a 32nd of its tiles has needed fminf: each later block marks its
// tile (a +0 in its first element) and leaves it to fminf, so that such
// data costs fminf's time and about a wave of tiles more. Before it, a
// scout takes SCOUT outputs spread over the product and looks whether
// each has a negative sum (a warp an output, 0.03 ms at 4096); where more
// than a 32nd have none, the integer max leaves every tile to fminf from
// the start, and such data costs fminf's time alone.
enum { SCOUT = 256 };

// count[3] += the outputs of SCOUT with no negative sum, count[4] +=
// SCOUT: output s at a row and column drawn by a hash of s
__global__ void sign_scout(const float *__restrict__ Ap, int64_t lda,
                           const float *__restrict__ Bt, int64_t ldb, int64_t m, int64_t k,
                           int64_t n, const int *__restrict__ gate, int *count)
{
    if (*gate != 1) return;
    const int s = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint64_t h = (uint64_t)(s + 1) * 0x9e3779b97f4a7c15ull;
    const int64_t i = (int64_t)((h >> 32) % (uint64_t)m), j = (int64_t)((h & 0xffffffffu) % (uint64_t)n);
    // eight terms a lane in flight at a time: the loads, a column of A
    // and a row of Bt apart, are not coalesced, and one at a time an
    // output with no negative sum took its k / 32 round trips (0.15 ms
    // at k = 8192, on the sign split's path)
    bool neg = false;
    for (int64_t q0 = lane; q0 < k && !neg; q0 += 32 * 8) {
        float s[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            const int64_t q = q0 + 32 * u;
            s[u] = q < k ? Ap[i + lda * q] + Bt[j + ldb * q] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < 8; ++u) neg |= s[u] < 0.0f;
    }
    if (!__any_sync(0xffffffffu, neg) && lane == 0) atomicAdd(count + 3, 1);
    if (threadIdx.x == 0) atomicAdd(count + 4, blockDim.x / 32);
}

struct sign_first {
    // tiles: [0] for fminf, [1] all (not clean), [2] in the integer max;
    // the scout's outputs: [3] with no negative sum, [4] all
    int *count;
    int64_t m, n; // the block's real rows and columns
    tile_signs signs;
    template <class T, int TX, int TY>
    __device__ bool skip(T *C, int64_t ldc, int64_t i0, int64_t j0) const
    {
        if (signs.template clean<TX, TY>(i0, j0)) return true; /* the integer min's */
        const int limit = (int)(gridDim.x * gridDim.y / 32);
        const volatile int *c = count;
        const bool leave = __syncthreads_or(threadIdx.x == 0 && (c[0] > limit || 32 * c[3] > c[4]));
        if (leave && threadIdx.x == 0) {
            C[(size_t)ldc * (size_t)j0 + i0] = __uint_as_float(0u);
            atomicAdd(count, 1);
            atomicAdd(count + 1, 1);
        }
        return leave;
    }
    template <class T, int TX, int TY>
    __device__ void done(const T (&acc)[8][8], int64_t i0, int64_t j0) const
    {
        const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
        bool again = false;
#pragma unroll
        for (int c = 0; c < 8; ++c)
#pragma unroll
            for (int r = 0; r < 8; ++r)
                again |= i0 + gd_tile::big_offset<T, TX>(tx, r) < m &&
                         j0 + gd_tile::big_offset<T, TY>(ty, c) < n &&
                         __float_as_uint(acc[r][c]) <= 0x80000000u;
        again = __syncthreads_or(again);
        if (threadIdx.x == 0) {
            if (again) atomicAdd(count, 1);
            atomicAdd(count + 1, 1);
            atomicAdd(count + 2, 1);
        }
    }
};
// fminf on the tiles sign_first left: those with an output's bits at most
// 0x80000000 in R
struct sign_again {
    int64_t m, n;
    tile_signs signs;
    template <class T, int TX, int TY>
    __device__ bool skip(T *C, int64_t ldc, int64_t i0, int64_t j0) const
    {
        if (signs.template clean<TX, TY>(i0, j0)) return true;
        const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
        bool again = false;
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const int64_t j = j0 + gd_tile::big_offset<T, TY>(ty, c);
#pragma unroll
            for (int r = 0; r < 8; ++r) {
                const int64_t i = i0 + gd_tile::big_offset<T, TX>(tx, r);
                if (i < m && j < n) again |= __float_as_uint(C[(size_t)ldc * j + i]) <= 0x80000000u;
            }
        }
        return !__syncthreads_or(again);
    }
    template <class T, int TX, int TY>
    __device__ void done(const T (&)[8][8], int64_t, int64_t) const {}
};

// single's workspace: the sign flag, [0] live, [1] as the first launch
// found it; [2 ... 6] the sign split's counts (sign_first::count); [7]
// the clean tiles computed; then the flags of A's tile rows (SIGNS + the
// tile row) and of B's tile columns (after A's). (The integer classes:
// their lanes, ranges and choice.)
enum { SIGNS = 8 };
int64_t a_tiles(const gd_plan &p) { return (p.args.whole_m + gd_tile::BIG - 1) / gd_tile::BIG; }
// (B's tile columns run to its padded width, whole_n rounded up to the
// column multiple, BIG, not to 64)
int64_t b_tiles(const gd_plan &p) { return gd_round_up(p.args.whole_n, gd_tile::BIG) / 64; }
size_t flags_v5(const gd_plan &p)
{
    return gd_round_up((SIGNS + a_tiles(p) + b_tiles(p)) * (int64_t)sizeof(int), 256);
}
// B's own layout serves the witness's epilogue as its k-major copy where
// its columns are whole 16-byte vectors
bool b_kmajor(const gd_plan &p)
{
    return p.Bk && p.k % 4 == 0 && p.ldbk % 4 == 0 && (uintptr_t)p.Bk % 16 == 0;
}
// single with the witness: then A k-major (gd_tile::kmajor), mp x kp, and
// B (np x kp) unless its own layout serves, for the integer-min form's
// epilogue
size_t work_v5(const gd_plan &p)
{
    if (gd_class_is_int(p.cls)) return gd_minplus_int_work(p);
    if (!p.K || p.cls != GD_SINGLE) return flags_v5(p);
    return flags_v5(p) + (size_t)((p.mp + (b_kmajor(p) ? 0 : p.np)) * p.kp) * sizeof(float);
}

// single: each block of A and of B is scanned once, before the first
// launch that uses it (B too where it is A: its tile columns are A's
// columns); the flags are cleared first
gd_status inspect_v5(const gd_plan &p, gd_class cls, const void *A, int64_t a, int64_t i0,
                     const void *B, int64_t b, int64_t j0, bool first)
{
    if (cls != GD_SINGLE) return GD_OK;
    int *w = (int *)p.work;
    gd_status s;
    if (first && (s = gd_cuda(cudaMemsetAsync(w, 0, flags_v5(p), p.st), "clearing the sign flags")))
        return s;
    if (A)
        find_negative<32><<<1024, 256, 0, p.st>>>((const float4 *)A, a / 4, a * p.kp / 4,
                                                  w + SIGNS + i0 / gd_tile::BIG, w);
    if (B)
        find_negative<16><<<1024, 256, 0, p.st>>>((const float4 *)B, b / 4, b * p.kp / 4,
                                                  w + SIGNS + a_tiles(p) + j0 / 64, w);
    return gd_cuda(cudaGetLastError(), "the sign scan");
}

// which single kernels ran: the flags and counts, read back once the call
// is done
void after_v5(const gd_plan &p, gd_class cls, gd_timing *t)
{
    if (gd_class_is_int(cls)) {
        gd_minplus_int_after(p, t);
        return;
    }
    int w[SIGNS] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (cls != GD_SINGLE ||
        cudaMemcpy(w, p.work, sizeof w, cudaMemcpyDeviceToHost) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    if (!w[0])
        snprintf(t->kernel, sizeof t->kernel, "integer min");
    else if (p.K) // the witness: fminf where an operand is negative
        snprintf(t->kernel, sizeof t->kernel, "%s", w[1] ? "fminf" : "integer min, then fminf");
    else if (!w[7])
        snprintf(t->kernel, sizeof t->kernel, "integer max on %d of %d tiles, fminf on %d", w[4],
                 w[3], w[2]);
    else
        snprintf(t->kernel, sizeof t->kernel,
                 "integer min on %d tiles, then integer max on %d of %d tiles, fminf on %d", w[7],
                 w[4], w[3], w[2]);
}

// v5 with the witness: the tile with an epilogue per element
// (gd_tile::each_tile_kernel), 128x64 tiles of 128 threads, two blocks an
// SM (the 64 witnesses need the registers). Single: in the integer min
// where no operand is negative, a stage of 16 k-steps a group
// (minplus_first_stage; its epilogue reads A k-major, made for it, and B
// in its own layout), else fminf on groups of four k-steps, chosen on the
// device as for the minimum alone. Double: one k-step a group, the
// witnesses in shared memory (the 64 double accumulators fill the
// registers), stages of 4 k-steps.
typedef gd_tile::layout<16, 8, 2, true> witness_layout;

// The outputs of minplus_sel that read +Inf: NaN where every term is NaN,
// as Octave's min gives; +Inf stays where a term is a number (+Inf
// included). A thread an output; its scan stops at the first term that is
// a number, so a row or column of no edges (+Inf) costs one term, and
// only outputs all of whose terms are NaN (or nearly) cost k.
__global__ void all_nan(double *C, int64_t ldc, const double *__restrict__ Ap, int64_t lda,
                        const double *__restrict__ Bt, int64_t ldb, int64_t m, int64_t n,
                        int64_t k)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < m * n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e % m, j = e / m;
        double *c = C + i + ldc * j;
        if (*c != (double)INFINITY) continue;
        bool number = false;
        for (int64_t q = 0; q < k && !number; ++q) number = !isnan(Ap[i + lda * q] + Bt[j + ldb * q]);
        if (!number) *c = nan_v<double>();
    }
}

// single's sign flag as the call's first block left it ([1], for
// info.kernel), after that block's launches
gd_status keep_sign_flag(const gd_plan &p)
{
    if (p.panel != 0) return GD_OK;
    int *neg = (int *)p.work;
    return gd_cuda(cudaMemcpyAsync(neg + 1, neg, sizeof(int), cudaMemcpyDeviceToDevice, p.st),
                   "keeping the sign flag");
}

template <class T> gd_status launch_v5_witness(const gd_plan &p)
{
    const gd_tile::store_first<T> out = {(T *)p.C, p.K, p.ldc};
    const T *A = (const T *)p.A, *B = (const T *)p.B;
    if constexpr (sizeof(T) == 8) {
        gd_tile::launch_each<gd_tile::minplus_first<1>, T, 4, gd_tile::layout<16, 8, 1>,
                             gd_tile::store_first<T>, -1, true>(A, p.mp, B, p.np, p.mp, p.np,
                                                                p.kp, out, p.st);
    } else {
        const int *neg = (const int *)p.work;
        // the epilogue's k-major operands: A's made (in the workspace, only
        // where the integer min runs), B's own layout where it serves
        float *At = (float *)((char *)p.work + flags_v5(p));
        gd_tile::launch_kmajor<0>(A, p.mp, p.mp, p.kp, At, p.st, neg);
        gd_tile::store_first_kmajor kout = {(float *)p.C, p.K, p.ldc, At, (const float *)p.Bk,
                                            p.kp, p.ldbk, p.k};
        if (!b_kmajor(p)) {
            float *Bk = At + p.mp * p.kp;
            gd_tile::launch_kmajor<0>(B, p.np, p.np, p.kp, Bk, p.st, neg);
            kout.Bk = Bk;
            kout.lbk = kout.k = p.kp;
        }
        gd_tile::launch_each<gd_tile::minplus_first_stage<V5_BK_NONNEG>, float,
                             V5_BK_NONNEG, witness_layout, gd_tile::store_first_kmajor, 0>(
            A, p.mp, B, p.np, p.mp, p.np, p.kp, kout, p.st, neg);
        gd_tile::launch_each<gd_tile::minplus_first<4>, float, V5_BK, witness_layout,
                             gd_tile::store_first<float>, 1>(A, p.mp, B, p.np, p.mp, p.np, p.kp,
                                                             out, p.st, neg);
        return keep_sign_flag(p);
    }
    return GD_OK;
}

template <class T> gd_status launch_v5(const gd_plan &p)
{
    if (p.K) return launch_v5_witness<T>(p);
    typedef gd_tile::shape<T> S;
    const T *A = (const T *)p.A, *B = (const T *)p.B;
    if constexpr (sizeof(T) == 8) {
        // double fills its stages through registers (its cp.async
        // schedule spills at 255 registers); the min by compare and select
        // (minplus_sel), then the outputs whose every term was NaN. The
        // distances' layout (128 x 64, two blocks an SM): on fmin (DMNMX)
        // it was 9% slower than 128 x 128, but compare and select (a
        // DSETP and two FSELs) is no longer bound by the pipe, and the
        // other block's loop fills this one's barriers: 7% faster
        // (NOTES.md, "the distances' double tile")
        gd_tile::launch_big<gd_tile::minplus_sel, T, V5_BK, gd_tile::dist_shape<T>>(
            A, B, (T *)p.C, p.mp, p.np, p.kp, p.kp, 0, 1, p.st);
        all_nan<<<gd_blocks_for(p.m * p.n, 256), 256, 0, p.st>>>((double *)p.C, p.ldc, A, p.mp,
                                                                 B, p.np, p.m, p.n, p.k);
        return GD_OK;
    } else {
        typedef gd_tile::layout<S::TX, S::TY, S::MINB, true> L;
        const float *Af = (const float *)A, *Bf = (const float *)B;
        float *C = (float *)p.C;
        int *neg = (int *)p.work;
        cudaStream_t st = p.st;
        const tile_signs signs = {neg + SIGNS + p.i0 / gd_tile::BIG,
                                  neg + SIGNS + a_tiles(p) + p.j0 / 64, neg, choose_by_tile(p)};
        // by tile, the sign split's tiles (the longer ones) on the side
        // stream, which has the SMs first: they run beside the clean
        // tiles instead of in a tail of their own after them
        cudaStream_t side = st;
        if (signs.per_tile && !(side = gd_side_begin(st))) return GD_ERR_CUDA;
        sign_scout<<<SCOUT / 8, 256, 0, side>>>(Af, p.mp, Bf, p.np, p.m, p.k, p.n, neg, neg + 2);
        gd_tile::launch_big<gd_tile::minplus_negmax, float, V5_BK_NONNEG, L, gd_tile::identity,
                            false, 1>(Af, Bf, C, p.mp, p.np, p.kp, p.kp, 0, 1, side, neg,
                                      sign_first{neg + 2, p.m, p.n, signs});
        gd_tile::launch_big<gd_tile::minplus, float, V5_BK, L, gd_tile::identity, false, 1>(
            Af, Bf, C, p.mp, p.np, p.kp, p.kp, 0, 1, side, neg, sign_again{p.m, p.n, signs});
        gd_tile::launch_big<gd_tile::minplus_nonneg, float, V5_BK_NONNEG, L, gd_tile::identity,
                            false, -1>(Af, Bf, C, p.mp, p.np, p.kp, p.kp, 0, 1, st, nullptr,
                                       clean_only{signs, neg + 7});
        gd_status s;
        if (side != st && (s = gd_side_end(st))) return s;
        return keep_sign_flag(p);
    }
}

// ---------------------------------------------------------------------------
// launchers

template <class T, bool JFAST> gd_status launch_v01(const gd_plan &p)
{
    dim3 block(32, 8);
    int64_t fast = JFAST ? p.n : p.m, slow = JFAST ? p.m : p.n;
    dim3 grid((unsigned)((fast + 31) / 32), gd_grid_y((slow + 7) / 8));
    if (p.K)
        minplus_v01_naive<T, JFAST, true><<<grid, block, 0, p.st>>>(
            (const T *)p.A, (const T *)p.B, (T *)p.C, p.K, p.m, p.k, p.n);
    else
        minplus_v01_naive<T, JFAST, false><<<grid, block, 0, p.st>>>(
            (const T *)p.A, (const T *)p.B, (T *)p.C, NULL, p.m, p.k, p.n);
    return GD_OK;
}

template <class T> gd_status launch_v2(const gd_plan &p)
{
    dim3 grid((unsigned)(p.mp / TILE), gd_grid_y(p.np / TILE));
    minplus_v2_registers<T><<<grid, dim3(8, 8), 0, p.st>>>(
        (const T *)p.A, (const T *)p.B, (T *)p.C, p.m, p.n, p.mp, p.np, p.kp);
    return GD_OK;
}

template <class T> gd_status launch_v3(const gd_plan &p)
{
    dim3 grid((unsigned)(p.mp / TILE), gd_grid_y(p.np / TILE));
    minplus_v3_shared<T><<<grid, dim3(8, 8), 0, p.st>>>(
        (const T *)p.A, (const T *)p.B, (T *)p.C, p.m, p.n, p.mp, p.np, p.kp);
    return GD_OK;
}

template <class T> gd_status launch_v4(const gd_plan &p)
{
    dim3 grid((unsigned)(p.mp / TILE), gd_grid_y(p.np / TILE));
    minplus_v4_vector<T><<<grid, dim3(8, 8), 0, p.st>>>(
        (const T *)p.A, (const T *)p.B, (T *)p.C, p.mp, p.np, p.kp);
    return GD_OK;
}

const gd_product_variant VARIANTS[] = {
    {.info = {.name = "v0",
              .note = "one thread per output, threads along j: strided reads of B, strided writes",
              .gpu = 1},
     .run_f = launch_v01<float, true>,
     .run_d = launch_v01<double, true>,
     .witness = true},
    {.info = {.name = "v1",
              .note = "one thread per output, threads along i: each warp reads A and writes R contiguously",
              .gpu = 1},
     .run_f = launch_v01<float, false>,
     .run_d = launch_v01<double, false>,
     .witness = true},
    {.info = {.name = "v2",
              .note = "8x8 outputs per thread kept in registers, padded A and transposed B",
              .gpu = 1},
     .in = GD_PADDED_BT,
     .row_mult = TILE,
     .col_mult = TILE,
     .k_mult = KPAD,
     .run_f = launch_v2<float>,
     .run_d = launch_v2<double>},
    {.info = {.name = "v3",
              .note = "v2 with 64x64 tiles staged through shared memory 4 k-steps at a time",
              .gpu = 1},
     .in = GD_PADDED_BT,
     .row_mult = TILE,
     .col_mult = TILE,
     .k_mult = KPAD,
     .run_f = launch_v3<float>,
     .run_d = launch_v3<double>},
    {.info = {.name = "v4",
              .note = "v3 with 16-byte loads and stores, padded output, __launch_bounds__",
              .gpu = 1},
     .in = GD_PADDED_BT,
     .padded_out = true,
     .row_mult = TILE,
     .col_mult = TILE,
     .k_mult = KPAD,
     .run_f = launch_v4<float>,
     .run_d = launch_v4<double>},
    {.info = {.name = "v5",
              .note = "128x64 tiles of 128 threads, 8x8 per thread, three shared stages of 8 k-steps "
                      "filled by cp.async; with no negative operand, an integer min of three a step "
                      "(double: 128x64 of 128, two blocks an SM, two stages through registers; the integer classes: "
                      "Hopper's DPX min(a + b, c) on 16- or 32-bit lanes, else 64-bit sums)",
              .gpu = 1},
     .in = GD_PADDED_BT,
     .padded_out = true,
     .row_mult = gd_tile::BIG,
     .col_mult = gd_tile::BIG,
     .k_mult = V5_BK_NONNEG,
     .run_f = launch_v5<float>,
     .run_d = launch_v5<double>,
     .work_f = work_v5,
     .after = after_v5,
     .inspect = inspect_v5,
     .witness = true,
     .run_i = gd_minplus_int_launch},
    {.info = {.name = "cpu",
              .note = "OpenMP on the host, blocked for cache, Octave's min rule",
              .gpu = 0},
     .witness = true},
};
const int NVARIANTS = sizeof VARIANTS / sizeof VARIANTS[0];

gd_status cpu_minplus(gd_class cls, const void *A, const void *B, void *R, int *K,
                      int64_t m, int64_t k, int64_t n, const gd_op_args &)
{
    if (cls == GD_SINGLE)
        gd_cpu_minplus_f((const float *)A, (const float *)B, (float *)R, K, m, k, n);
    else if (cls == GD_DOUBLE)
        gd_cpu_minplus_d((const double *)A, (const double *)B, (double *)R, K, m, k, n);
    else if (gd_cpu_minplus_int(cls, A, B, R, K, m, k, n))
        return gd_fail(GD_ERR_INPUT, "min-plus: not a class it takes");
    return GD_OK;
}

// NaN padding never wins (see the top of this file); min over nothing is
// Inf. auto: v5 wins in both classes from 1024 (single) and 4096 (double)
// up (bench/results; in double at 1024 v2 and v3 are 20% faster). Below
// 2^17 steps the host finishes before a GPU round trip would; resident
// data that small goes to v1, which needs no layout preparation (a call
// on a 16 x 16 gdArray: 106 us against v5's 159, bench/results).
// 'all' devices divide a product where each gets 2^35 steps or more (n =
// 4096 on two devices: with A shared, host to host 9.9 -> 7.7 ms on two
// H200s and 15.0 -> 12.2 on two H100s, where uploading A whole each it
// was 9.7 -> 8.4); below, the second device's start and the threads cost
// about what they save (bench/results: the devices tables).
const double SPLIT_MIN = 34359738368.0;
const gd_product_op OP = {.name = "min-plus",
                          .pad = NAN,
                          .empty_k = INFINITY,
                          .ops_per_step = 1.0,
                          .device_cpu = "cpu (OpenMP)",
                          .auto_single = "v5",
                          .auto_double = "v5",
                          .auto_cpu_below = 1 << 17,
                          .cpu = cpu_minplus,
                          .panels = true,
                          .auto_small = "v1",
                          .split_min = SPLIT_MIN,
                          .auto_int = "v5",
                          .empty_int_max = true};

} // namespace

extern "C" int gd_minplus_variants(const gd_variant_info **list)
{
    static gd_variant_info infos[NVARIANTS];
    return gd_variant_infos(VARIANTS, NVARIANTS, infos, list);
}

extern "C" gd_status gd_minplus(const char *name, const gd_matrix *A, const gd_matrix *B,
                                gd_out R, gd_timing *t)
{
    const gd_op_args args = {};
    return gd_product(OP, VARIANTS, NVARIANTS, name, A, B, R, args, t);
}

/* R and K over a part of the inner dimension (rc, kc: its minima and
 * their k + 1 within the part) taken into those of the parts before (r,
 * k): a part's minimum replaces the one before where it is smaller (the
 * first k wins a tie) or the one before is NaN (every term was) */
struct take_part_fn {
    void *r;
    double *k;
    const void *rc;
    const int32_t *kc;
    size_t cells;
    int64_t k0;
    template <class T> void operator()() const
    {
        T *x = (T *)r;
        const T *y = (const T *)rc;
        for (size_t e = 0; e < cells; ++e)
            if (y[e] < x[e] || (x[e] != x[e] && y[e] == y[e])) {
                x[e] = y[e];
                k[e] = (double)k0 + kc[e];
            }
    }
};

/* The witness where k passes what int32 holds (the kernels' index): the
 * inner dimension in parts (at most 2^30, fewer where the GPU's padded
 * operands need it), each part's R and K on the host, taken
 * together in order (take_part_fn). K in double; host results. */
static gd_status witness_by_parts(const char *name, const gd_matrix *A, const gd_matrix *B,
                                  gd_out R, gd_out K, gd_class kcls, gd_timing *t)
{
    const int64_t m = A->rows, k = A->cols, n = B->cols;
    if (kcls != GD_DOUBLE)
        return gd_fail(GD_ERR_SIZE, "K's class int32 cannot hold an index of the inner dimension "
                       "%lld (past 2^31 - 1): ask 'IndexClass' 'double'", (long long)k);
    if (R.device || K.device)
        return gd_fail(GD_ERR_SIZE, "a witness over an inner dimension of %lld (past 2^31 - 1) "
                       "is taken on the host: gather the operands first", (long long)k);
    if (B->rows != k)
        return gd_fail(GD_ERR_SIZE, "inner dimensions must agree: A is %lldx%lld, B is %lldx%lld",
                       (long long)m, (long long)k, (long long)B->rows, (long long)B->cols);
    const bool ints = gd_class_is_int(A->cls);
    const gd_class cls = ints ? A->cls
                         : A->cls == GD_SINGLE || B->cls == GD_SINGLE ? GD_SINGLE : GD_DOUBLE;
    const size_t cells = (size_t)m * (size_t)n, es = gd_class_bytes(cls);
    char what[96];
    gd_status s;
    gd_describe(what, sizeof what, "R", m, n, cls);
    if ((s = gd_out_buffer(&R, cells * es, what))) return s;
    gd_describe(what, sizeof what, "K", m, n, GD_DOUBLE);
    if ((s = gd_out_buffer(&K, cells * sizeof(double), what))) return s;
    void *rc = malloc(cells * es + 1), *bpart = NULL;
    int32_t *kc = (int32_t *)malloc(cells * sizeof(int32_t) + 1);
    /* parts of at most 2^30, and small enough that the GPU kernels' padded
     * operands fit: the witness tiles pad A's rows to 128 and B's columns to
     * 64 with 8 bytes a lane (minplus_int.cu), so a part costs about
     * (m + 128) + (n + 64) lanes of 8 bytes a step of k; 4 GiB of them */
    const int64_t lanes = (m + 128) + (n + 64);
    int64_t part = ((int64_t)1 << 32) / (8 * lanes);
    part = part > ((int64_t)1 << 30) ? (int64_t)1 << 30 : part < 4096 ? 4096 : part & ~(int64_t)15;
    /* 'auto' takes the parts on the host: operands this wide have a few
     * rows and columns, where the GPU's witness tiles (128 x 64 outputs)
     * would do thousands of times the work and the transfer alone costs
     * more than the host's pass over the data */
    if (!name || strcmp(name, "auto") == 0) name = "cpu";
    gd_entry entry(t);
    gd_timing tp;
    memset(&tp, 0, sizeof tp);
    tp.at = t->at;
    if (!rc || !kc)
        s = gd_fail(GD_ERR_MEMORY, "cannot allocate a part's R and K (%s) in host memory", what);
    for (int64_t k0 = 0; k0 < k && !s; k0 += part) {
        const int64_t kk = k - k0 < part ? k - k0 : part;
        gd_matrix Ap = *A, Bp = *B;
        Ap.ptr = (const char *)A->ptr + (size_t)k0 * (size_t)A->ld * gd_class_bytes(A->cls);
        Ap.cols = kk;
        Bp.ptr = (const char *)B->ptr + (size_t)k0 * gd_class_bytes(B->cls);
        Bp.rows = kk;
        if (n == 1) {
            Bp.ld = kk; /* one column: tight whatever its leading dimension */
        } else if (B->where == GD_HOST) {
            /* the part's rows of B, tight (the host variants take tight
             * operands) */
            const size_t bes = gd_class_bytes(B->cls);
            free(bpart);
            if (!(bpart = malloc((size_t)kk * (size_t)n * bes + 1))) {
                s = gd_fail(GD_ERR_MEMORY, "cannot allocate a part of B (%lld x %lld) in host "
                            "memory", (long long)kk, (long long)n);
                break;
            }
            for (int64_t j = 0; j < n; ++j)
                memcpy((char *)bpart + (size_t)j * (size_t)kk * bes,
                       (const char *)Bp.ptr + (size_t)j * (size_t)B->ld * bes, (size_t)kk * bes);
            Bp.ptr = bpart;
            Bp.ld = kk;
        }
        gd_out ro = {}, ko = {};
        ro.ptr = k0 ? rc : R.ptr;
        ko.ptr = kc;
        gd_op_args args = {};
        args.witness = &ko;
        args.witness_cls = GD_INT32;
        if ((s = gd_product(OP, VARIANTS, NVARIANTS, name, &Ap, &Bp, ro, args, &tp))) break;
        if (k0 == 0) {
            for (size_t e = 0; e < cells; ++e) ((double *)K.ptr)[e] = kc[e];
            *t = tp;
            t->at = tp.at;
        } else {
            take_part_fn f = {R.ptr, (double *)K.ptr, rc, kc, cells, k0};
            if (cls == GD_SINGLE)
                f.operator()<float>();
            else if (cls == GD_DOUBLE)
                f.operator()<double>();
            else
                gd_with_int_class(cls, f);
            t->upload_ms += tp.upload_ms;
            t->kernel_ms += tp.kernel_ms;
            t->download_ms += tp.download_ms;
            t->total_ms += tp.total_ms;
            t->ops += tp.ops;
        }
    }
    free(rc);
    free(kc);
    free(bpart);
    return s;
}

extern "C" gd_status gd_minplus_witness(const char *name, const gd_matrix *A,
                                        const gd_matrix *B, gd_out R, gd_out K,
                                        gd_class kcls, gd_timing *t)
{
    if (A->cols > INT32_MAX) return witness_by_parts(name, A, B, R, K, kcls, t);
    gd_op_args args = {};
    args.witness = &K;
    args.witness_cls = kcls;
    return gd_product(OP, VARIANTS, NVARIANTS, name, A, B, R, args, t);
}
