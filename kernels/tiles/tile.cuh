/* tile.cuh - the register tiles the product kernels share.
 *
 * 1. The 64x64 tile of min-plus v4: a block of 8x8 threads accumulates a
 * 64x64 tile of
 * C(i,j) = reduce_k op(A(i,k), B(k,j)) from two k-major operands (A(:,k)
 * and B(k,:) contiguous: Ap[i + lda*k], Bt[j + ldb*k]), 4 k-steps at a
 * time through shared memory, 8x8 outputs per thread in registers.
 *
 * With W = 16/sizeof(T) elements a vector, thread ia owns the rows
 * 64ic + g*8W + ia*W + w (g < 8/W, w < W): W consecutive rows, so one
 * 16-byte shared load brings W of its operands and the caller can store W
 * outputs of a column at once. Columns likewise with ja. Staging a k-step
 * takes 64/W vector loads: for float, 64 threads move all 4 k-steps of
 * both operands with one load each. Operands must be padded to whole
 * tiles (rows to 64, k to 4) with a value the operation ignores. */
#ifndef GD_TILE_CUH
#define GD_TILE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

namespace gd_tile {

enum { TILE = 64, KS = 4 };

// A 16-byte vector of T: the widest load one thread can issue.
template <class T> struct vec16;
template <> struct vec16<float> { typedef float4 type; enum { N = 4 }; };
template <> struct vec16<double> { typedef double2 type; enum { N = 2 }; };
// the integer lanes of min-plus on the integer classes (minplus_int.cu)
template <> struct vec16<int> { typedef int4 type; enum { N = 4 }; };
template <> struct vec16<long long> { typedef longlong2 type; enum { N = 2 }; };

__device__ __forceinline__ void unpack(float *d, float4 v) { d[0] = v.x; d[1] = v.y; d[2] = v.z; d[3] = v.w; }
__device__ __forceinline__ void unpack(double *d, double2 v) { d[0] = v.x; d[1] = v.y; }
__device__ __forceinline__ float4 pack(const float *s) { return make_float4(s[0], s[1], s[2], s[3]); }
__device__ __forceinline__ double2 pack(const double *s) { return make_double2(s[0], s[1]); }
__device__ __forceinline__ void unpack(int *d, int4 v) { d[0] = v.x; d[1] = v.y; d[2] = v.z; d[3] = v.w; }
__device__ __forceinline__ void unpack(long long *d, longlong2 v) { d[0] = v.x; d[1] = v.y; }
__device__ __forceinline__ int4 pack(const int *s) { return make_int4(s[0], s[1], s[2], s[3]); }
__device__ __forceinline__ longlong2 pack(const long long *s) { return make_longlong2(s[0], s[1]); }

// Offset within the tile of register row (or column) b of thread a.
template <class T> __device__ __forceinline__ int offset(int a, int b)
{
    enum { W = vec16<T>::N };
    return (b / W) * 8 * W + a * W + b % W;
}

// The value a result is stored as, when nothing is applied to it.
struct identity {
    template <class T> __device__ T operator()(T x) const { return x; }
};

// The semirings. init: the accumulator's start; step: one k-step (K = 1),
// or step2: two k-steps at once (K = 2).
struct muladd {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b) { acc = fmaf(a, b, acc); }
    __device__ static void step(double &acc, double a, double b) { acc = fma(a, b, acc); }
};
struct minplus {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)NAN; }
    __device__ static void step(float &acc, float a, float b) { acc = fminf(acc, a + b); }
    __device__ static void step(double &acc, double a, double b) { acc = fmin(acc, a + b); }
};
// min-plus in double by a compare and a select: a sum takes the
// accumulator's place where it is below it (DSETP and two FSEL: 20.3 steps
// a clock an SM on an H100, fmin's DSETP.MIN and selects 13.0;
// kernels/NOTES.md). A NaN sum is never below, so NaN terms are skipped as
// fmin skips them, and of equal sums the first stays, as Octave's min
// keeps the first (+0 and -0 as they come). The accumulator starts at
// +Inf, so an output whose every term is NaN reads +Inf: the caller makes
// those NaN afterwards (minplus.cu's all_nan).
struct minplus_sel {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)INFINITY; }
    template <class T> __device__ static void step(T &acc, T a, T b)
    {
        const T s = a + b;
        acc = s < acc ? s : acc;
    }
};
// min-plus in single for operands whose sign bits are all clear (+0, the
// positive numbers, +Inf) or that are NaN. Every sum is then +0 ... +Inf or
// the canonical NaN 0x7fffffff, and on those the order of the floats is the
// order of their bit patterns read as integers, with the NaN above +Inf:
// an integer min picks the same operand fminf does, NaN included (ignored
// unless every term is NaN). sm_90 has a three-input integer min
// (VIMNMX3): two k-steps take two FADD and one min instead of two of each.
// Older GPUs run two two-input mins instead (not measured there).
struct minplus_nonneg {
    enum { K = 2, WITNESS = 0 };
    template <class T> __device__ static T init() { return __int_as_float(0x7fffffff); }
    __device__ static void step2(float &acc, float a0, float b0, float a1, float b1)
    {
        acc = __int_as_float(__vimin3_s32(__float_as_int(acc), __float_as_int(a0 + b0),
                                          __float_as_int(a1 + b1)));
    }
};
// min-plus in single for any operands, where a sum is negative: read as
// unsigned integers, the bit patterns of the negative floats (-0 excluded)
// lie above every other sum's (NaN 0x7fffffff included) and grow with the
// magnitude, so the integer max of the sums is the most negative one, the
// float min, whenever one sum is below zero. The three-input VIMNMX3 again:
// 1.5 instructions a step. Where no sum is negative the result is not the
// min; the caller finds those outputs (bits at most 0x80000000) and computes
// them again with fminf (minplus.cu, the sign split).
struct minplus_negmax {
    enum { K = 2, WITNESS = 0 };
    template <class T> __device__ static T init() { return __uint_as_float(0u); }
    __device__ static void step2(float &acc, float a0, float b0, float a1, float b1)
    {
        acc = __uint_as_float(__vimax3_u32(__float_as_uint(acc), __float_as_uint(a0 + b0),
                                           __float_as_uint(a1 + b1)));
    }
};
struct sqdist {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    template <class T> __device__ static void step(T &acc, T a, T b)
    {
        const T d = a - b;
        acc += d * d;
    }
};
// cityblock: sum |x - y| (an FADD and an FADD whose operand takes the
// absolute value: no extra instruction)
struct absdist {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b) { acc += fabsf(a - b); }
    __device__ static void step(double &acc, double a, double b) { acc += fabs(a - b); }
};
// cosine's dot product, each product and sum rounded on its own (no FFMA):
// the host's loop to the bit, and its norms' too
struct dot_rn {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b) { acc = __fadd_rn(acc, __fmul_rn(a, b)); }
    __device__ static void step(double &acc, double a, double b) { acc = __dadd_rn(acc, __dmul_rn(a, b)); }
};
// hamming: the count of x != y (NaN counts; the epilogue makes such rows'
// distances NaN)
struct neq {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    template <class T> __device__ static void step(T &acc, T a, T b) { acc += a != b ? (T)1 : (T)0; }
};
// jaccard: two counts in the accumulator's bits, x != y in the low half,
// x != 0 or y != 0 in the high half (16 bits each in single, so at most
// 65535 features; 32 in double); the epilogue divides them
struct jaccard_counts {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b)
    {
        acc = __int_as_float(__float_as_int(acc) + (a != b ? 1 : 0) + (a != 0 || b != 0 ? 0x10000 : 0));
    }
    __device__ static void step(double &acc, double a, double b)
    {
        acc = __longlong_as_double(__double_as_longlong(acc) + (a != b ? 1 : 0) +
                                   (a != 0 || b != 0 ? 0x100000000ll : 0));
    }
};
// chebychev: max |x - y|, NaN kept. |x - y| is +0 ... +Inf or a NaN with
// its sign bit clear, above +Inf as an integer: the integer max of the bit
// patterns is the float max, and once NaN stays NaN (as the host's loop).
// The sign bit is cleared by an integer and, not fabs: with fabs, the
// fused nearest neighbours in double lost the NaN of Inf - Inf to the
// other columns' values (so its bits were negative as an integer), where
// single and cityblock kept it (the fuzz found it).
struct maxabs {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b)
    {
        acc = __int_as_float(max(__float_as_int(acc), __float_as_int(a - b) & 0x7fffffff));
    }
    __device__ static void step(double &acc, double a, double b)
    {
        acc = __longlong_as_double(
            max(__double_as_longlong(acc), __double_as_longlong(a - b) & 0x7fffffffffffffffll));
    }
};

/* The witness forms of min-plus: beside each minimum, where it was
 * reached. The k-steps are taken in groups of K; w holds the group in
 * which the running minimum last became smaller (stepw's g), which is the
 * group holding the first k that attains the final minimum (ties never
 * move it: a later equal sum leaves the minimum as it was). first_k below
 * then finds that k among the group's K sums. Tracking a group instead of
 * every k costs one compare and one select per group (groups of 4 with
 * fminf; of a whole stage, 16, with the integer min: minplus_first_stage),
 * a fraction of a per-step witness's bookkeeping (NOTES.md). NaN: a running minimum
 * that is still NaN moves w on every group; if it stays NaN to the end,
 * every term was NaN and first_k gives k = 0, as Octave's min gives index
 * 1. */
template <int G> struct minplus_first {
    enum { K = G, WITNESS = 1 };
    template <class T> __device__ static T init() { return (T)NAN; }
    template <class T, class W>
    __device__ static void stepw(T &acc, W &&w, int g, const T (&a)[G][8], const T (&b)[G][8],
                                 int r, int c)
    {
        T m = a[0][r] + b[0][c];
#pragma unroll
        for (int h = 1; h < G; ++h) m = gmin_(m, a[h][r] + b[h][c]);
        const T n = gmin_(acc, m);
        if (n != acc) w = g; // (a predicated store where w is in shared memory)
        acc = n;
    }
    __device__ static float gmin_(float x, float y) { return fminf(x, y); }
    __device__ static double gmin_(double x, double y) { return fmin(x, y); }
};
// single, no operand with its sign bit set, the group a whole stage of
// shared memory (WITNESS 2, K = BK): each output's minimum over the stage,
// m, is kept apart from the running one, a pair of k-steps one
// three-input integer min as in R alone (minplus_nonneg), and folded in at
// the stage's end: where m is below the running minimum it takes its place
// and w becomes the stage. Three instructions a stage an output beyond R's
// (16 k-steps), where groups of four k-steps cost two a group; the
// epilogue then finds the k among the stage's sums (store_first_kmajor:
// k-major operands, the stage's sums in 16-byte loads). NOTES.md, "The
// witness a stage at a time".
template <int BK> struct minplus_first_stage {
    enum { K = BK, WITNESS = 2 };
    template <class T> __device__ static T init() { return __int_as_float(0x7fffffff); }
    // open: the stage's first pair (a constant once the stage is unrolled)
    __device__ static void pair(int &m, bool open, float a0, float b0, float a1, float b1)
    {
        const int s0 = __float_as_int(a0 + b0), s1 = __float_as_int(a1 + b1);
        m = open ? min(s0, s1) : __vimin3_s32(m, s0, s1);
    }
    template <class W> __device__ static void fold(float &acc, W &&w, int g, int m)
    {
        const int o = __float_as_int(acc);
        w = m < o ? g : w;
        acc = __int_as_float(min(o, m));
    }
};

// The thread's operands of H k-steps from kk of a stage in shared memory
// (the layout stage() below describes): a[h][r] row r's, b[h][c] column c's.
template <int H, int LX, int LY, class T, int BK, int NA, int NB>
__device__ __forceinline__ void load_steps(const T (&As)[BK][NA], const T (&Bs)[BK][NB], int kk,
                                           int tx, int ty, T (&a)[H][8], T (&b)[H][8])
{
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N };
#pragma unroll
    for (int h = 0; h < H; ++h)
#pragma unroll
        for (int g = 0; g < 8 / W; ++g) {
            unpack(a[h] + g * W, *reinterpret_cast<const V *>(&As[kk + h][g * LX * W + W * tx]));
            unpack(b[h] + g * W, *reinterpret_cast<const V *>(&Bs[kk + h][g * LY * W + W * ty]));
        }
}

// One stage of minplus_first_stage: the stage's minima, then folded into
// acc (w: the stage g where they fell).
template <class Op, class T, int NK, int LX, int LY, int BK, int NA, int NB, class Wit>
__device__ __forceinline__ void stage_fold(const T (&As)[BK][NA], const T (&Bs)[BK][NB], int tx,
                                           int ty, T (&acc)[8][8], Wit wit, int g)
{
    static_assert(NK % 2 == 0, "pairs of k-steps");
    int m[8][8];
#pragma unroll
    for (int kk = 0; kk < NK; kk += 2) {
        T a[2][8], b[2][8];
        load_steps<2, LX, LY>(As, Bs, kk, tx, ty, a, b);
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int c = 0; c < 8; ++c)
                Op::pair(m[r][c], kk == 0, a[0][r], b[0][c], a[1][r], b[1][c]);
    }
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) Op::fold(acc[r][c], wit[r][c], g, m[r][c]);
}

// The first k of group w (of K) where A(i,k) + B(k,j) equals the minimum v
// (0 when v is NaN: every term was); *val receives that sum, which is the
// minimum with the sign of zero Octave's min gives (the first attaining
// term). Reads the operands in their padded layouts.
template <int K, class T>
__device__ __forceinline__ int64_t first_k(const T *__restrict__ Ap, int64_t lda,
                                           const T *__restrict__ Bt, int64_t ldb, int64_t i,
                                           int64_t j, T v, int w, T *val)
{
    *val = v;
    if (v != v) return 0;
    const int64_t k0 = (int64_t)w * K;
#pragma unroll
    for (int h = 0; h < K; ++h) {
        const T s = Ap[i + lda * (k0 + h)] + Bt[j + ldb * (k0 + h)];
        if (s == v) {
            *val = s;
            return k0 + h;
        }
    }
    return k0;
}

// The first NK k-steps of a stage held in shared memory, As and Bs
// ([k-step][row or column of the tile]), on thread (tx, ty) of an LX x LY
// layout: its rows are g*LX*W + W*tx + w (g < 8/W, w < W), its columns
// g*LY*W + W*ty + w, each W of them one 16-byte shared load.
// With a witness Op, wit holds each output's group (g0: the group of the
// stage's first k-step).
template <class Op, class T, int NK, int LX, int LY, int BK, int NA, int NB,
          class Wit = int (*)[8]>
__device__ __forceinline__ void stage(const T (&As)[BK][NA], const T (&Bs)[BK][NB], int tx, int ty,
                                      T (&acc)[8][8], Wit wit = nullptr, int g0 = 0)
{
    enum { K = Op::K };
    static_assert(NK % K == 0, "whole steps of the operation");
#pragma unroll
    for (int kk = 0; kk < NK; kk += K) {
        T a[K][8], b[K][8];
        load_steps<K, LX, LY>(As, Bs, kk, tx, ty, a, b);
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int c = 0; c < 8; ++c) {
                if constexpr (Op::WITNESS)
                    Op::stepw(acc[r][c], wit[r][c], g0 + kk / K, a, b, r, c);
                else if constexpr (K == 1)
                    Op::step(acc[r][c], a[0][r], b[0][c]);
                else
                    Op::step2(acc[r][c], a[0][r], b[0][c], a[1][r], b[1][c]);
            }
    }
}

// v = the 64x64 tile (ic, jc) of Op over k < kp. Called by all 64
// threads of the block (it synchronises).
template <class Op, class T>
__device__ __forceinline__ void accumulate(const T *__restrict__ Ap, int64_t lda,
                                           const T *__restrict__ Bt, int64_t ldb,
                                           int64_t kp, int64_t ic, int64_t jc, T (&v)[8][8])
{
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N, NV = TILE / W };
    __shared__ __align__(16) T xx[KS][TILE];
    __shared__ __align__(16) T yy[KS][TILE];
    const int ia = threadIdx.x, ja = threadIdx.y, tid = ja * 8 + ia;
#pragma unroll
    for (int ib = 0; ib < 8; ++ib)
#pragma unroll
        for (int jb = 0; jb < 8; ++jb) v[ib][jb] = Op::template init<T>();
    for (int64_t ks = 0; ks < kp; ks += KS) {
#pragma unroll
        for (int r = 0; r < KS * NV / 64; ++r) {
            const int e = tid + 64 * r, f = e / NV, q = e % NV;
            *reinterpret_cast<V *>(&xx[f][q * W]) =
                *reinterpret_cast<const V *>(&Ap[lda * (ks + f) + ic * TILE + q * W]);
            *reinterpret_cast<V *>(&yy[f][q * W]) =
                *reinterpret_cast<const V *>(&Bt[ldb * (ks + f) + jc * TILE + q * W]);
        }
        __syncthreads();
        stage<Op, T, KS, 8, 8>(xx, yy, ia, ja, v);
        __syncthreads();
    }
}

// Stores v into the padded column-major C (ldc a multiple of 64) with
// 16-byte stores, applying fn to each value.
template <class T, class Fn>
__device__ __forceinline__ void store_padded(T *__restrict__ C, int64_t ldc, int64_t ic,
                                             int64_t jc, const T (&v)[8][8], Fn fn)
{
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N };
    const int ia = threadIdx.x, ja = threadIdx.y;
#pragma unroll
    for (int jb = 0; jb < 8; ++jb) {
        const int64_t j = jc * TILE + offset<T>(ja, jb);
#pragma unroll
        for (int g = 0; g < 8 / W; ++g) {
            T col[W];
#pragma unroll
            for (int w = 0; w < W; ++w) col[w] = fn(v[g * W + w][jb]);
            *reinterpret_cast<V *>(&C[ldc * j + ic * TILE + g * 8 * W + ia * W]) = pack(col);
        }
    }
}


/* 2. The big block tiles (min-plus 'v5', sgemm 'tuned', pdist and pdist2
 * 'tuned'): TX x TY threads, each an 8x8 register tile, so a block covers
 * BM x BN = 8TX x 8TY outputs (128x128 with 16x16 threads; 128x64 with
 * 16x8). BK k-steps of both operands per shared-memory stage; the next
 * stages are filled while the current one is computed (through registers,
 * or by cp.async: accumulate_big), so one barrier per BK k-steps suffices.
 *
 * Thread (tx, ty) = (tid % TX, tid / TX) owns the rows i0 + g*TX*W + W*tx + w
 * (g < 8/W, w < W) and the columns j0 + g*TY*W + W*ty + w: every shared
 * read is one 16-byte vector, and a warp's distinct A vectors are
 * contiguous. A stage is BK rows of BM (BN) contiguous elements of A (B)
 * (Ap[i + lda*k], Bt[j + ldb*k]).
 *
 * Single runs on 128x64 with 128 threads (shape<float>): four blocks an
 * SM instead of two of 128x128, so each scheduler runs warps of four
 * blocks. The warps of one block pass the barriers together and so run
 * the same stretch of code at the same time; in min-plus the compiler
 * groups FMNMX (which the ALU pipe takes at half rate) into runs, and
 * warps in step hit those runs together and leave issue slots empty. More,
 * smaller blocks keep fewer warps in step (NOTES.md). At 128 registers a
 * thread this schedule has no room to spare: the kernels compute one tile
 * a block, with no loop around it, and stay spill-free (tests/spills.bats
 * checks). */
enum { BIG = 128 };

// Offset within the tile of register row (or column) b of thread a in a
// layout of L threads along that dimension.
template <class T, int L = 16> __device__ __forceinline__ int big_offset(int a, int b)
{
    enum { W = vec16<T>::N };
    return (b / W) * L * W + a * W + b % W;
}

// fn(r, c, i, j) for each of thread (tx, ty)'s 64 outputs of the big tile
// at (i0, j0): register (r, c), output (i, j), column by column
template <class T, int TX, int TY, class Fn>
__device__ __forceinline__ void each_output(int64_t i0, int64_t j0, int tx, int ty, Fn &&fn)
{
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        const int64_t j = j0 + big_offset<T, TY>(ty, c);
#pragma unroll
        for (int r = 0; r < 8; ++r) fn(r, c, i0 + big_offset<T, TX>(tx, r), j);
    }
}

// cp.async (sm_80 on): 16 bytes from global to shared memory without a
// register. Older GPUs copy through a register at once, which the barrier
// after wait_async makes just as visible.
__device__ __forceinline__ void copy16_async(void *shared, const void *global)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(shared)),
                 "l"(global));
#else
    *reinterpret_cast<int4 *>(shared) = __ldg(reinterpret_cast<const int4 *>(global));
#endif
}
__device__ __forceinline__ void commit_async()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// wait until at most N committed groups are still in flight
template <int N> __device__ __forceinline__ void wait_async()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* acc = the tile at (i0, j0) of Op over k0 <= k < k1 ((k1 - k0) whole
 * stages of BK, or with HALF whole stages and a last one of BK/2 k-steps,
 * whose loads still read BK rows: the operands must hold rows up to the
 * next whole stage, read but not used). Called by all TX*TY threads of the
 * block (it synchronises). Two ways to fill the stages:
 *  - registers (ASYNC false, two stages): the next stage's vectors are
 *    loaded into registers while the current stage is computed, then
 *    stored into the other stage;
 *  - cp.async (ASYNC true, three stages): copied from global to shared
 *    memory directly, two stages in flight while one is computed, and no
 *    registers held for them.
 * Either way one barrier a stage. pdist's triangle takes cp.async, pdist2
 * the registers: each the faster of the two for it (NOTES.md). */
template <class Op, class T, int BK, int TX = 16, int TY = 16, bool ASYNC = false,
          bool HALF = false, class Wit = int (*)[8]>
__device__ __forceinline__ void accumulate_big(const T *__restrict__ Ap, int64_t lda,
                                               const T *__restrict__ Bt, int64_t ldb,
                                               int64_t k0, int64_t k1, int64_t i0, int64_t j0,
                                               T (&acc)[8][8], Wit wit = nullptr)
{
    typedef typename vec16<T>::type V;
    enum {
        W = vec16<T>::N, NT = TX * TY, BM = 8 * TX, BN = 8 * TY, S = ASYNC ? 3 : 2,
        RA = BM / W, RB = BN / W,          // vectors in a row of a stage
        LA = BK * RA / NT, LB = BK * RB / NT, // vectors each thread loads
        PA = NT / RA, PB = NT / RB          // rows one pass of loads covers
    };
    static_assert(LA >= 1 && LB >= 1 && NT % RA == 0 && NT % RB == 0, "a stage is whole loads");
    __shared__ __align__(16) T As[S][BK][BM];
    __shared__ __align__(16) T Bs[S][BK][BN];
    const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
    const int full = (int)((k1 - k0) / BK);
    const bool half = HALF && (k1 - k0) % BK != 0;
    const int stages = full + (half ? 1 : 0);
    // element e = tid + NT*l of a stage is k-step e / R, vector e % R: its
    // shared offset is e*W. The global pointers advance by BK rows a stage
    // (no 64-bit index arithmetic in the loop).
    const T *ga = Ap + lda * (k0 + tid / RA) + i0 + W * (tid % RA);
    const T *gb = Bt + ldb * (k0 + tid / RB) + j0 + W * (tid % RB);
    const size_t rowA = (size_t)lda * PA, rowB = (size_t)ldb * PB;
    const size_t stepA = (size_t)lda * BK, stepB = (size_t)ldb * BK;
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            acc[r][c] = Op::template init<T>();
            if constexpr (Op::WITNESS) wit[r][c] = 0;
        }
    // the witness's group of stage t's first k-step (relative to Ap, Bt)
    const int gk = (int)(k0 / Op::K), gs = BK / Op::K;
    (void)gk;
    (void)gs;
    // stage t, from shared memory (a witness a stage at a time, WITNESS 2:
    // stage_fold below)
    static_assert(Op::WITNESS != 2 || ASYNC, "a witness a stage at a time fills by cp.async");
    auto compute = [&](const T (&as)[BK][BM], const T (&bs)[BK][BN], int t) {
        if constexpr (Op::WITNESS != 2) stage<Op, T, BK, TX, TY>(as, bs, tx, ty, acc, wit, gk + gs * t);
    };
    if constexpr (ASYNC) {
        // fill(t): stage t into buffer t % S, or an empty group past the
        // last stage, so that wait_async<1> always means "stage t is in"
        auto fill = [&](int t) {
            if (t < stages) {
                const T *a = ga + stepA * t, *b = gb + stepB * t;
#pragma unroll
                for (int l = 0; l < LA; ++l)
                    copy16_async(&As[t % S][0][0] + W * (tid + NT * l), a + rowA * l);
#pragma unroll
                for (int l = 0; l < LB; ++l)
                    copy16_async(&Bs[t % S][0][0] + W * (tid + NT * l), b + rowB * l);
            }
            commit_async();
        };
        fill(0);
        fill(1);
        for (int t = 0; t < full; ++t) {
            wait_async<1>();
            __syncthreads(); // stage t is in; every thread is done with t - 1
            fill(t + 2);     // into the buffer of t - 1
            if constexpr (Op::WITNESS == 2)
                stage_fold<Op, T, BK, TX, TY>(As[t % S], Bs[t % S], tx, ty, acc, wit, gk + t);
            else
                compute(As[t % S], Bs[t % S], t);
        }
        if constexpr (HALF) {
            if (half) {
                wait_async<1>();
                __syncthreads();
                stage<Op, T, BK / 2, TX, TY>(As[full % S], Bs[full % S], tx, ty, acc);
            }
        }
    } else {
    V pa[LA], pb[LB];
#pragma unroll
    for (int l = 0; l < LA; ++l) pa[l] = __ldg(reinterpret_cast<const V *>(ga + rowA * l));
#pragma unroll
    for (int l = 0; l < LB; ++l) pb[l] = __ldg(reinterpret_cast<const V *>(gb + rowB * l));
#pragma unroll
    for (int l = 0; l < LA; ++l) reinterpret_cast<V *>(&As[0][0][0])[tid + NT * l] = pa[l];
#pragma unroll
    for (int l = 0; l < LB; ++l) reinterpret_cast<V *>(&Bs[0][0][0])[tid + NT * l] = pb[l];
    __syncthreads();
    for (int t = 0; t < full; ++t) {
        const int cur = t & 1;
        if (t + 1 < stages) {
            ga += stepA;
            gb += stepB;
#pragma unroll
            for (int l = 0; l < LA; ++l) pa[l] = __ldg(reinterpret_cast<const V *>(ga + rowA * l));
#pragma unroll
            for (int l = 0; l < LB; ++l) pb[l] = __ldg(reinterpret_cast<const V *>(gb + rowB * l));
        }
        compute(As[cur], Bs[cur], t);
        if (t + 1 < stages) {
#pragma unroll
            for (int l = 0; l < LA; ++l)
                reinterpret_cast<V *>(&As[cur ^ 1][0][0])[tid + NT * l] = pa[l];
#pragma unroll
            for (int l = 0; l < LB; ++l)
                reinterpret_cast<V *>(&Bs[cur ^ 1][0][0])[tid + NT * l] = pb[l];
        }
        __syncthreads();
    }
    if constexpr (HALF)
        if (half) stage<Op, T, BK / 2, TX, TY>(As[full & 1], Bs[full & 1], tx, ty, acc);
    }
}

// Stores fn(acc), the thread's part of the tile at (i0, j0), into the
// padded column-major C (ldc a multiple of 8TX) with 16-byte stores.
template <class T, int TX, int TY, class Fn>
__device__ __forceinline__ void store_big(T *__restrict__ C, int64_t ldc, int64_t i0, int64_t j0,
                                          const T (&acc)[8][8], Fn fn)
{
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N };
    const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        T *col = C + (size_t)ldc * (size_t)(j0 + big_offset<T, TY>(ty, c)) + i0;
#pragma unroll
        for (int g = 0; g < 8 / W; ++g) {
            T v[W];
#pragma unroll
            for (int w = 0; w < W; ++w) v[w] = fn(acc[g * W + w][c]);
            *reinterpret_cast<V *>(&col[g * TX * W + W * tx]) = pack(v);
        }
    }
}

// Xp (np x dp) = the tight X (n x d) with zeros after its rows and
// columns: the padded operand of the distance kernels. Threads along the
// rows, grid.y over the columns.
template <class T>
__global__ void pad_rows(const T *__restrict__ X, T *__restrict__ Xp, int64_t n, int64_t d,
                         int64_t np, int64_t dp)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= np) return;
    for (int64_t k = blockIdx.y; k < dp; k += gridDim.y)
        Xp[i + np * k] = (i < n && k < d) ? X[i + n * k] : (T)0;
}

/* How a kernel lays out the big tile: TX x TY threads (8TX x 8TY outputs),
 * at least MINB blocks an SM (__launch_bounds__), stages filled through
 * registers or by cp.async (accumulate_big). */
template <int TX_, int TY_, int MINB_, bool ASYNC_ = false> struct layout {
    enum { TX = TX_, TY = TY_, MINB = MINB_, ASYNC = ASYNC_ };
};

/* The layouts min-plus and the distances run on: single, 128x64 of 128
 * threads, four blocks an SM (128 registers a thread); double, 128x128 of
 * 256 threads, one block an SM. */
template <class T> struct shape;
template <> struct shape<float> : layout<16, 8, 4> {};
template <> struct shape<double> : layout<16, 16, 1> {};
template <> struct shape<int> : layout<16, 8, 4, true> {};
template <> struct shape<long long> : layout<16, 16, 1> {};

/* The distances' layouts (pdist, pdist2): single as min-plus; double on
 * 128x64 of 128 threads, two blocks an SM (up to 255 registers a thread
 * either way). Two independent blocks an SM instead of one of 128x128:
 * one block's barriers and store no longer idle the SM's FP64 pipe, which
 * the other keeps busy (16384 x 300: 82.6% of the FP64 ceiling against
 * 68.7%; NOTES.md). Min-plus double stays on 128x128, where this layout
 * is 9% slower (DMNMX, not the barriers, bounds it), and so do the fused
 * neighbours (chebychev 1.43x slower on it, the others within 12%). */
template <class T> struct dist_shape : shape<T> {};
template <> struct dist_shape<double> : layout<16, 8, 2> {};

/* The whole product kernel on a big tile: block (x, y, z) computes the
 * tile (x, jt + y) over the k range z*kchunk ... into C + z*split_stride
 * (SPLIT, split-k: the partial sums of the z-th slice; else all of k into
 * C), each value passed through Fn on its way out. mp must be a multiple
 * of 8TX, np of 8TY. One tile a block and no loop around it: a
 * grid-stride loop costs the 128-register layouts their spill-free
 * schedule, so launch_big covers wide products with several launches (jt:
 * the first tile column of this one). GATE >= 0: the kernel runs only if
 * *gate == GATE (a flag set on the device; each block returns at once
 * otherwise), so that one of two kernels queued together does the work.
 * Tiles: which tiles a block computes and what it does after its store
 * (every_tile: all of them, nothing); skip and done run in every thread of
 * the block, skip's answer the same in all. */
struct every_tile {
    template <class T, int TX, int TY>
    __device__ bool skip(T *, int64_t, int64_t, int64_t) const { return false; }
    template <class T, int TX, int TY>
    __device__ void done(const T (&)[8][8], int64_t, int64_t) const {}
};

template <class Op, class T, int BK, class L, class Fn, bool SPLIT, int GATE, class Tiles>
__global__ void __launch_bounds__(L::TX * L::TY, L::MINB)
big_tile_kernel(const T *__restrict__ Ap, const T *__restrict__ Bt, T *__restrict__ C,
                int64_t mp, int64_t np, int64_t kp, int64_t kchunk, int64_t split_stride,
                int64_t jt, const int *__restrict__ gate, Tiles tiles)
{
    if (GATE >= 0 && *gate != GATE) return;
    const int64_t i0 = blockIdx.x * (int64_t)(8 * L::TX), j0 = (jt + blockIdx.y) * (8 * L::TY);
    if (tiles.template skip<T, L::TX, L::TY>(C, mp, i0, j0)) return;
    T acc[8][8];
    if (SPLIT) {
        // (a kernel of its own: the split-k arguments alone cost min-plus
        // v5 4% of its speed, through the schedule ptxas then chose)
        const int64_t k0 = blockIdx.z * kchunk, k1 = k0 + kchunk < kp ? k0 + kchunk : kp;
        accumulate_big<Op, T, BK, L::TX, L::TY, L::ASYNC>(Ap, mp, Bt, np, k0, k1, i0, j0, acc);
        C += (size_t)blockIdx.z * (size_t)split_stride;
    } else {
        accumulate_big<Op, T, BK, L::TX, L::TY, L::ASYNC>(Ap, mp, Bt, np, 0, kp, i0, j0, acc);
    }
    store_big<T, L::TX, L::TY>(C, mp, i0, j0, acc, Fn());
    tiles.template done<T, L::TX, L::TY>(acc, i0, j0);
}

// Launches big_tile_kernel over the mp x np product, on stream st (in
// `slices` slices of k when SPLIT), with several launches where the tile
// columns pass the grid's y limit; gated by *gate when GATE >= 0; the
// tiles the Tiles policy takes.
template <class Op, class T, int BK, class L, class Fn = identity, bool SPLIT = false,
          int GATE = -1, class Tiles = every_tile>
void launch_big(const T *Ap, const T *Bt, T *C, int64_t mp, int64_t np, int64_t kp,
                int64_t kchunk, int64_t split_stride, int slices, cudaStream_t st,
                const int *gate = nullptr, Tiles tiles = Tiles())
{
    const int64_t tiles_j = np / (8 * L::TY);
    for (int64_t jt = 0; jt < tiles_j; jt += 65535) {
        const int64_t ny = tiles_j - jt < 65535 ? tiles_j - jt : 65535;
        dim3 grid((unsigned)(mp / (8 * L::TX)), (unsigned)ny, (unsigned)(SPLIT ? slices : 1));
        big_tile_kernel<Op, T, BK, L, Fn, SPLIT, GATE, Tiles><<<grid, L::TX * L::TY, 0, st>>>(
            Ap, Bt, C, mp, np, kp, kchunk, split_stride, jt, gate, tiles);
    }
}

/* Split-k summed in the cluster (sm_90 and later): the S slices of a tile
 * run as one cluster of S blocks (1 x 1 x S, S <= 8), and the slices'
 * partial sums meet in distributed shared memory instead of a workspace
 * in global memory and a second kernel. Each block puts its 64 partial
 * sums in its own shared memory (unit u = 8g + c: the thread's four rows
 * of group g in column c, one 16-byte vector); after the cluster's
 * barrier, block z adds the units u = z, z + S, ... over the S blocks in
 * slice order (v = slice 0's, then v += slice 1's, ...: the order, and so
 * the bits, of sum_slices) and stores them in C; a second barrier keeps
 * every block's shared memory alive until its peers have read it. Dynamic
 * shared memory: SPLIT_SMEM bytes, the 64 KB of partials and more, so
 * that one block runs on an SM (split-k runs about one block an SM: two
 * share its FMA pipe; NOTES.md, sgemm). Float, the 16 x 16 layout. */
enum { SPLIT_CLUSTER_MAX = 8, SPLIT_SMEM = 120 * 1024 };

template <class Op, class T, int BK, class L, class Fn>
__global__ void __launch_bounds__(L::TX * L::TY, L::MINB)
cluster_split_kernel(const T *__restrict__ Ap, const T *__restrict__ Bt, T *__restrict__ C,
                     int64_t mp, int64_t np, int64_t kp, int64_t kchunk, int64_t jt)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename vec16<T>::type V;
    enum { NT = L::TX * L::TY, W = vec16<T>::N, UNITS = 64 / W };
    static_assert(W == 4, "float tiles of 16-byte vectors");
    extern __shared__ __align__(16) unsigned char split_smem[];
    V *part = reinterpret_cast<V *>(split_smem);
    const int64_t i0 = blockIdx.x * (int64_t)(8 * L::TX), j0 = (jt + blockIdx.y) * (8 * L::TY);
    const int z = (int)blockIdx.z, S = (int)gridDim.z, tid = threadIdx.x;
    const int tx = tid % L::TX, ty = tid / L::TX;
    T acc[8][8];
    {
        const int64_t k0 = z * kchunk, k1 = k0 + kchunk < kp ? k0 + kchunk : kp;
        accumulate_big<Op, T, BK, L::TX, L::TY, L::ASYNC>(Ap, mp, Bt, np, k0, k1, i0, j0, acc);
    }
#pragma unroll
    for (int u = 0; u < UNITS; ++u) {
        const int g = u / 8, c = u % 8;
        T v[W];
#pragma unroll
        for (int w = 0; w < W; ++w) v[w] = acc[g * W + w][c];
        part[u * NT + tid] = pack(v);
    }
    // the cluster's barrier: arrive with release, wait with acquire (the
    // partials written above are visible to the peers after it)
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
    const Fn fn;
    for (int u = z; u < UNITS; u += S) {
        const int g = u / 8, c = u % 8;
        T sum[W], x[W];
        for (int q = 0; q < S; ++q) {
            // slice q's block is rank q of the cluster (1 x 1 x S)
            uint32_t local = (uint32_t)__cvta_generic_to_shared(&part[u * NT + tid]), remote;
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(q));
            float4 r;
            asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                         : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "r"(remote) : "memory");
            unpack(x, r);
#pragma unroll
            for (int w = 0; w < W; ++w) sum[w] = q ? sum[w] + x[w] : x[w];
        }
#pragma unroll
        for (int w = 0; w < W; ++w) sum[w] = fn(sum[w]);
        T *col = C + (size_t)mp * (size_t)(j0 + big_offset<T, L::TY>(ty, c)) + i0;
        *reinterpret_cast<V *>(&col[g * L::TX * W + W * tx]) = pack(sum);
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
#elif defined(__CUDA_ARCH__)
    __trap(); /* launched only on sm_90 and later (sgemm.cu's in_cluster) */
#endif
}

/* 3. The big tile with an epilogue per element: the witness forms
 * (minplus_first...) and results that are read before they are written
 * (C = min(C, A (x) B): shortest paths). Block (x, jt + y) computes the
 * tile at (x, jt + y) of Ap (lda) and Bt (ldb) over k < kp, then hands
 * each of the thread's 64 outputs: out.witness<K>(i, j, value, group, Ap,
 * lda, Bt, ldb) for a witness Op (the first k attaining the minimum is in
 * that group of K: first_k finds it, where out needs it), else out(i, j,
 * value, Ap, lda, Bt, ldb, kp); or, where Out::TILE, the thread's whole
 * piece at once: out.tile<K, TX, TY>(i0, j0, tx, ty, acc, wit, ...) (K =
 * 0 without a witness), so that the policy can order its reads. GATE as
 * for big_tile_kernel. */
// Where the witnesses live: in registers (an int[8][8] of the thread),
// or, where the registers do not hold them beside the 64 accumulators
// (double), in shared memory: output (r, c) of thread tid at
// [(8r + c) NT + tid], so a warp's accesses take 32 banks.
struct shared_wit_row {
    int *p;
    int nt;
    __device__ int &operator[](int c) const { return p[c * nt]; }
};
struct shared_wit {
    int *base;
    int nt;
    __device__ shared_wit_row operator[](int r) const { return {base + r * 8 * nt, nt}; }
};

/* Tiles a launch_each leaves out: the band of rows [i0, i0 + ni) and the
 * band of columns [j0, j0 + nj) of the product (multiples of the tile's
 * sides; ni = 0 or nj = 0: no band). Floyd-Warshall's lookahead relaxes
 * the next round's panels first and everything else after them. */
struct hole {
    int64_t i0, ni, j0, nj;
};

template <class Op, class T, int BK, class L, class Out, int GATE, bool SHARED_WIT>
__global__ void __launch_bounds__(L::TX * L::TY, L::MINB)
each_tile_kernel(const T *__restrict__ Ap, int64_t lda, const T *__restrict__ Bt, int64_t ldb,
                 int64_t kp, int64_t jt, Out out, hole h, const int *__restrict__ gate)
{
    if (GATE >= 0 && *gate != GATE) return;
    enum { NT = L::TX * L::TY };
    int64_t i0 = blockIdx.x * (int64_t)(8 * L::TX), j0 = (jt + blockIdx.y) * (8 * L::TY);
    if (i0 >= h.i0) i0 += h.ni;
    if (j0 >= h.j0) j0 += h.nj;
    const int tid = threadIdx.x, tx = tid % L::TX, ty = tid / L::TX;
    T acc[8][8];
    int wreg[Op::WITNESS && !SHARED_WIT ? 8 : 1][8];
    __shared__ int wsh[Op::WITNESS && SHARED_WIT ? 64 * NT : 1];
    typedef typename std::conditional<SHARED_WIT, shared_wit, int (*)[8]>::type Wit;
    Wit wit;
    if constexpr (SHARED_WIT)
        wit = shared_wit{wsh + tid, NT};
    else
        wit = wreg;
    accumulate_big<Op, T, BK, L::TX, L::TY, L::ASYNC, false, Wit>(Ap, lda, Bt, ldb, 0, kp, i0,
                                                                  j0, acc, wit);
    if constexpr (Out::TILE) {
        out.template tile<Op::WITNESS ? Op::K : 0, L::TX, L::TY>(i0, j0, tx, ty, acc, wit, Ap, lda,
                                                                 Bt, ldb, kp);
    } else {
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const int64_t j = j0 + big_offset<T, L::TY>(ty, c);
#pragma unroll
            for (int r = 0; r < 8; ++r) {
                const int64_t i = i0 + big_offset<T, L::TX>(tx, r);
                if constexpr (Op::WITNESS) {
                    out.template witness<Op::K>(i, j, acc[r][c], wit[r][c], Ap, lda, Bt, ldb);
                } else {
                    out(i, j, acc[r][c], Ap, lda, Bt, ldb, kp);
                }
            }
        }
    }
}

// Launches each_tile_kernel over the mp x np product (mp a multiple of
// 8TX, np of 8TY) but the hole h, on st, several launches where the tile
// columns pass the grid's y limit.
template <class Op, class T, int BK, class L, class Out, int GATE = -1, bool SHARED_WIT = false>
void launch_each(const T *Ap, int64_t lda, const T *Bt, int64_t ldb, int64_t mp, int64_t np,
                 int64_t kp, const Out &out, cudaStream_t st, const int *gate = nullptr,
                 hole h = hole{0, 0, 0, 0})
{
    const int64_t tiles_i = (mp - h.ni) / (8 * L::TX), tiles_j = (np - h.nj) / (8 * L::TY);
    if (tiles_i <= 0) return;
    for (int64_t jt = 0; jt < tiles_j; jt += 65535) {
        const int64_t ny = tiles_j - jt < 65535 ? tiles_j - jt : 65535;
        dim3 grid((unsigned)tiles_i, (unsigned)ny);
        each_tile_kernel<Op, T, BK, L, Out, GATE, SHARED_WIT>
            <<<grid, L::TX * L::TY, 0, st>>>(Ap, lda, Bt, ldb, kp, jt, out, h, gate);
    }
}

// The epilogues. store_first: the minimum into C and its k + 1 into K
// (both ldc), as Octave's [R, K] = min (...) gives them.
template <class T> struct store_first {
    enum { TILE = 0 };
    T *C;
    int *K;
    int64_t ldc;
    template <int G>
    __device__ void witness(int64_t i, int64_t j, T v, int w, const T *__restrict__ Ap,
                            int64_t lda, const T *__restrict__ Bt, int64_t ldb) const
    {
        const int64_t k = first_k<G>(Ap, lda, Bt, ldb, i, j, v, w, &v);
        C[i + ldc * j] = v;
        K[i + ldc * j] = (int)(k + 1);
    }
};

/* The operands k-major: At[k + kp i] = Ap[i + lda k] for i < rows, k < kp
 * (a 32 x 32 square through shared memory a block of 32 x 8 threads), so
 * that a witness's group of sums is K contiguous elements of each (four
 * 16-byte loads a side for 16 k-steps, where the padded layouts take one
 * load a k-step). GATE >= 0: only where *gate == GATE, as the kernel that
 * reads them. */
template <int GATE>
__global__ void kmajor(const float *__restrict__ Ap, int64_t lda, int64_t rows, int64_t kp,
                       float *__restrict__ At, const int *__restrict__ gate)
{
    if (GATE >= 0 && *gate != GATE) return;
    __shared__ float sq[32][33];
    const int64_t k0 = blockIdx.x * 32ll, i0 = blockIdx.y * 32ll;
#pragma unroll
    for (int y = threadIdx.y; y < 32; y += 8) {
        const int64_t k = k0 + y, i = i0 + threadIdx.x;
        if (k < kp && i < rows) sq[y][threadIdx.x] = Ap[i + lda * k];
    }
    __syncthreads();
#pragma unroll
    for (int y = threadIdx.y; y < 32; y += 8) {
        const int64_t i = i0 + y, k = k0 + threadIdx.x;
        if (k < kp && i < rows) At[k + kp * i] = sq[threadIdx.x][y];
    }
}
template <int GATE = -1>
void launch_kmajor(const float *Ap, int64_t lda, int64_t rows, int64_t kp, float *At,
                   cudaStream_t st, const int *gate = nullptr)
{
    for (int64_t r = 0; r < rows; r += 65535 * 32ll) {
        const int64_t nr = rows - r < 65535 * 32ll ? rows - r : 65535 * 32ll;
        const dim3 grid((unsigned)((kp + 31) / 32), (unsigned)((nr + 31) / 32)), block(32, 8);
        kmajor<GATE><<<grid, block, 0, st>>>(Ap + r, lda, nr, kp, At + kp * r, gate);
    }
}

/* The first k of group w (of G) where At(k, i) + Bk(k, j) equals the
 * minimum v, from k-major copies (At[k + lat i], Bk[k + lbk j]; lat, lbk
 * and kend multiples of 4): the group's sums (k < kend), last to first, so that the
 * first equal one is the one kept, every load independent of the others.
 * NaN (every term was): 0. v is the sum itself: no operand has its sign
 * bit set, so there is no zero's sign to take. */
template <int G>
__device__ __forceinline__ int64_t first_k_kmajor(const float *__restrict__ At, int64_t lat,
                                                  const float *__restrict__ Bk, int64_t lbk,
                                                  int64_t kend, int64_t i, int64_t j, float v,
                                                  int w)
{
    static_assert(G % 4 == 0, "16-byte loads");
    if (v != v) return 0;
    const int64_t k0 = (int64_t)w * G;
    const int n = (int)(kend - k0 < G ? kend - k0 : G);
    const float4 *a = reinterpret_cast<const float4 *>(At + lat * i + k0);
    const float4 *b = reinterpret_cast<const float4 *>(Bk + lbk * j + k0);
    int h = 0;
#pragma unroll
    for (int q = G / 4 - 1; q >= 0; --q) {
        if (4 * q < n) {
            const float4 x = __ldg(a + q), y = __ldg(b + q);
            h = x.w + y.w == v ? 4 * q + 3 : h;
            h = x.z + y.z == v ? 4 * q + 2 : h;
            h = x.y + y.y == v ? 4 * q + 1 : h;
            h = x.x + y.x == v ? 4 * q : h;
        }
    }
    return k0 + h;
}

// store_first from the k-major copies (minplus_first_stage's epilogue),
// the thread's piece at once: every output's k first, with no store
// between the loads (a store may alias a later load, which would keep
// each output's loads behind the previous output's stores: 64 rounds of
// memory latency a thread), then C and K in 16-byte stores.
struct store_first_kmajor {
    enum { TILE = 1 };
    float *C;
    int *K;
    int64_t ldc;
    const float *At, *Bk; // k-major A and B (first_k_kmajor)
    int64_t lat, lbk, k;
    template <int G, int TX, int TY, class Wit>
    __device__ void tile(int64_t i0, int64_t j0, int tx, int ty, const float (&acc)[8][8], Wit wit,
                         const float *, int64_t, const float *, int64_t, int64_t) const
    {
        each_output<float, TX, TY>(i0, j0, tx, ty, [&](int r, int c, int64_t i, int64_t j) {
            wit[r][c] = (int)first_k_kmajor<G>(At, lat, Bk, lbk, k, i, j, acc[r][c], wit[r][c]) + 1;
        });
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const int64_t e = ldc * (j0 + big_offset<float, TY>(ty, c)) + i0 + 4 * tx;
#pragma unroll
            for (int g = 0; g < 2; ++g) {
                *reinterpret_cast<float4 *>(C + e + g * 4 * TX) =
                    make_float4(acc[4 * g][c], acc[4 * g + 1][c], acc[4 * g + 2][c], acc[4 * g + 3][c]);
                *reinterpret_cast<int4 *>(K + e + g * 4 * TX) =
                    make_int4(wit[4 * g][c], wit[4 * g + 1][c], wit[4 * g + 2][c], wit[4 * g + 3][c]);
            }
        }
    }
};

/* relax: D(i,j) = v where v < D(i,j) (a shorter path; NaN never is). With
 * predecessors (Pout set) and MODE RELAX_TILE: tag beside each length that
 * fell (Floyd-Warshall's rounds: the round, from which apsp.cu's chain
 * finds P after the last round). With MODE RELAX_HOPS, P and the edge
 * counts: H(i,j) = Hc(i, k) + Hk(k, j), k the one with the fewest edges
 * among those whose sum is v, P(i,j) = Pk(k, j), the predecessor of j on
 * the path through k, and a path of the same length with fewer edges
 * replaces the old one. Lengths first, then edge counts: following P then
 * always goes to a path of fewer edges or a shorter one, never round a
 * cycle of weight 0 (NOTES.md). The k is found by reading the product's
 * operands again where the length fell or tied. In place (Dout == Din,
 * Pout == Pin, Hout == Hin: only changes are written), or from Din, Pin,
 * Hin into Dout, Pout, Hout (every element written). *changed is set when
 * a length fell (NULL: not asked). P and H are int32 (P 1-based, 0 for
 * none) with D's leading dimension; Pk and Hk have ldpk, Hc ldhc. */
// relax's epilogues: the thread's piece at once (lengths, and tags), or
// an output at a time with the edge counts
enum { RELAX_TILE = 0, RELAX_HOPS = 1 };
template <class T, int MODE = RELAX_TILE> struct relax {
    enum { TILE = MODE != RELAX_HOPS };
    const T *Din;
    T *Dout;
    int64_t ldd;
    const int *Pin;
    int *Pout;
    const int *Pk;
    int64_t ldpk;
    int *changed;
    const int *Hin;
    int *Hout;
    const int *Hk;
    const int *Hc;
    int64_t ldhc;
    int tag; // RELAX_TILE with Pout: written where a length falls

    // the same outputs, with another of the epilogues
    template <int M> __host__ __device__ relax<T, M> as() const
    {
        return relax<T, M>{Din, Dout, ldd, Pin, Pout, Pk, ldpk, changed, Hin, Hout, Hk, Hc, ldhc, tag};
    }

    /* The thread's piece: each column's old lengths in 16-byte loads,
     * the lengths that fell written at once (and the tag with each). */
    template <int G, int TX, int TY, class Wit>
    __device__ void tile(int64_t i0, int64_t j0, int tx, int ty, const T (&acc)[8][8], Wit,
                         const T *__restrict__, int64_t, const T *__restrict__, int64_t,
                         int64_t) const
    {
        static_assert(G == 0, "relax takes the lengths' kernels");
        typedef typename vec16<T>::type V;
        enum { W = vec16<T>::N };
        bool fell = false;
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const int64_t j = j0 + big_offset<T, TY>(ty, c);
            T old[8];
            asm volatile("" ::: "memory"); // a column's loads no earlier (registers)
#pragma unroll
            for (int g = 0; g < 8 / W; ++g)
                unpack(old + g * W, *reinterpret_cast<const V *>(
                                        &Din[i0 + big_offset<T, TX>(tx, g * W) + ldd * j]));
#pragma unroll
            for (int r = 0; r < 8; ++r) {
                const int64_t e = i0 + big_offset<T, TX>(tx, r) + ldd * j;
                const T v = acc[r][c];
                if (v < old[r]) {
                    fell = true;
                    Dout[e] = v;
                    if (Pout) Pout[e] = tag;
                } else if (Dout != Din) {
                    Dout[e] = old[r];
                    if (Pout) Pout[e] = Pin[e];
                }
            }
        }
        if (fell && changed) *changed = 1;
    }

    // HOPS, an output at a time: the k with the fewest edges among those
    // that give v (every k read again where the length fell or tied)
    __device__ void operator()(int64_t i, int64_t j, T v, const T *__restrict__ Ap, int64_t lda,
                               const T *__restrict__ Bt, int64_t ldb, int64_t kp) const
    {
        const int64_t e = i + ldd * j;
        const T old = Din[e];
        if (v < old || (v == old && v < (T)INFINITY)) {
            int best = 0x7fffffff;
            int64_t kb = 0;
            for (int64_t k = 0; k < kp; ++k)
                if (Ap[i + lda * k] + Bt[j + ldb * k] == v) {
                    const int h = Hc[i + ldhc * k] + Hk[k + ldpk * j];
                    if (h < best) {
                        best = h;
                        kb = k;
                    }
                }
            if (v < old || best < Hin[e]) {
                Dout[e] = v;
                Pout[e] = Pk[kb + ldpk * j];
                Hout[e] = best;
                if (changed && v < old) *changed = 1;
                return;
            }
        }
        if (Dout != Din) {
            Dout[e] = old;
            Pout[e] = Pin[e];
            Hout[e] = Hin[e];
        }
    }
};

} // namespace gd_tile

#endif
