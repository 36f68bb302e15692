/* tiles/tile/big.cuh - 2. the big block tiles (min-plus v5, sgemm and pdist 'tuned'): the stages by registers or cp.async, the stores, the padded rows.
 * Part of tile.cuh, which includes it inside namespace gd_tile, in order. */

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

