/* ops/minplus/v5_tile.cuh - v5: the big tile of tile.cuh, its integer min on non-negative operands, the sign split, the witness, and their launchers.
 * Part of minplus.cu, which includes it inside its anonymous namespace,
 * in the ladder's order. */
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

// single: each section of A and of B is scanned once, before the first
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
    else {
        /* the tile counts as counts: a divided call's parts sum them */
        const int more = w[7] != 0;
        snprintf(t->kernel, sizeof t->kernel, "%sinteger max on # of # tiles, fminf on #",
                 more ? "integer min on # tiles, then " : "");
        const long long n[4] = {w[7], w[4], w[3], w[2]};
        for (int q = 0; q < 3 + more; ++q) t->counts[q] = n[q + 1 - more];
    }
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

