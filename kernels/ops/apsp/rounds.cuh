/* ops/apsp/rounds.cuh - a round's kernels: the diagonal block's closure in registers (fw_diag), the relaxing product, the weights' class dispatch.
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
// Step 1: Floyd-Warshall on the diagonal block at (k0, k0): one block of
// 256 threads, each holding R x R of the block's lengths in
// registers (rows R tx.., columns R ty..); a step k reads row k and column
// k from shared memory, where their owners put them at the end of step
// k - 1 (two buffers, one barrier a step). TRACK 1: P(i,j) = tag where
// any path through the block was shorter (the round, as relax tags; a bit
// an output in registers, P written at the end); TRACK 2: P and the edge
// counts H, P(i,j) = P(k,j) (fewer edges break a tie, as in
// gd_tile::relax), in shared memory (128 KiB), read and written only
// where a path changes or ties. Row k and column k change in step k only through
// D(k,k) < 0 (a negative cycle, reported at the end), so step k reads
// their P and H in place. NaN (the padding) never takes part: a sum is
// taken only where it is smaller.
enum { DIAG_R = 8, DIAG_NT = FB / DIAG_R, DIAG_THREADS = DIAG_NT * DIAG_NT };

template <class T, int TRACK>
__global__ void __launch_bounds__(DIAG_THREADS)
    fw_diag(T *__restrict__ D, int *__restrict__ P, int *__restrict__ H, int64_t ld, int64_t k0,
            int tag)
{
    enum { R = DIAG_R, NT = DIAG_NT };
    __shared__ T colk[2][FB], rowk[2][FB];
    extern __shared__ int ph[]; // P, then H, [i + FB j]
    int *ps = ph, *hs = ph + FB * FB;
    const int tx = threadIdx.x % NT, ty = threadIdx.x / NT;
    const int64_t base = k0 + ld * k0;
    T d[R][R];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < R; ++c) d[r][c] = D[base + R * tx + r + ld * (R * ty + c)];
    unsigned long long fell = 0; // TRACK 1: bit R r + c, output (r, c)
    static_assert(R * R <= 64, "a bit an output");
    if constexpr (TRACK == 2)
        for (int e = threadIdx.x; e < FB * FB; e += DIAG_THREADS) {
            ps[e] = P[base + e % FB + ld * (e / FB)];
            hs[e] = H[base + e % FB + ld * (e / FB)];
        }
    // row kn and column kn (its index q within the owners' pieces) into
    // buffer b
    auto publish = [&](int kn, int q, int b) {
        if (tx == kn / R)
#pragma unroll
            for (int c = 0; c < R; ++c) rowk[b][R * ty + c] = d[q][c];
        if (ty == kn / R)
#pragma unroll
            for (int r = 0; r < R; ++r) colk[b][R * tx + r] = d[r][q];
    };
    publish(0, 0, 0);
    __syncthreads();
    for (int kb = 0; kb < FB; kb += R) {
#pragma unroll
        for (int q = 0; q < R; ++q) {
            const int b = q & 1, k = kb + q; // R is even: k & 1 == q & 1
            T ci[R], rj[R];
#pragma unroll
            for (int r = 0; r < R; ++r) ci[r] = colk[b][R * tx + r];
#pragma unroll
            for (int c = 0; c < R; ++c) rj[c] = rowk[b][R * ty + c];
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int c = 0; c < R; ++c) {
                    const T s = ci[r] + rj[c];
                    if constexpr (TRACK == 0) {
                        d[r][c] = s < d[r][c] ? s : d[r][c];
                    } else if constexpr (TRACK == 1) {
                        if (s < d[r][c]) {
                            d[r][c] = s;
                            fell |= 1ull << (R * r + c);
                        }
                    } else if (s <= d[r][c] && s < (T)INFINITY) {
                        const int i = R * tx + r, j = R * ty + c;
                        const int e = hs[i + FB * k] + hs[k + FB * j];
                        if (s < d[r][c] || e < hs[i + FB * j]) {
                            d[r][c] = s;
                            ps[i + FB * j] = ps[k + FB * j];
                            hs[i + FB * j] = e;
                        }
                    }
                }
            if (k + 1 < FB) publish(k + 1, (q + 1) % R, b ^ 1);
            __syncthreads();
        }
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < R; ++c) D[base + R * tx + r + ld * (R * ty + c)] = d[r][c];
    if constexpr (TRACK == 1)
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int c = 0; c < R; ++c)
                if (fell >> (R * r + c) & 1) P[base + R * tx + r + ld * (R * ty + c)] = tag;
    if constexpr (TRACK == 2)
        for (int e = threadIdx.x; e < FB * FB; e += DIAG_THREADS) {
            P[base + e % FB + ld * (e / FB)] = ps[e];
            H[base + e % FB + ld * (e / FB)] = hs[e];
        }
}

template <class T, int TRACK>
gd_status launch_fw_diag_(T *D, int *P, int *H, int64_t ld, int64_t k0, int tag, cudaStream_t st)
{
    const int bytes = TRACK == 2 ? 2 * FB * FB * (int)sizeof(int) : 0;
    if (TRACK == 2) {
        gd_status s = gd_cuda(gd_dynamic_smem<fw_diag<T, TRACK>>(bytes),
                              "the diagonal block's shared memory");
        if (s) return s;
    }
    fw_diag<T, TRACK><<<1, DIAG_THREADS, bytes, st>>>(D, P, H, ld, k0, tag);
    return GD_OK;
}

// the closure with P where P is set (tags, or with H where H is: the
// predecessors and edge counts)
template <class T>
gd_status launch_fw_diag(T *D, int *P, int *H, int64_t ld, int64_t k0, int tag, cudaStream_t st)
{
    return H ? launch_fw_diag_<T, 2>(D, P, H, ld, k0, tag, st)
             : P ? launch_fw_diag_<T, 1>(D, P, H, ld, k0, tag, st)
                 : launch_fw_diag_<T, 0>(D, P, H, ld, k0, tag, st);
}

/* One product of a round (or of squaring) with the relaxing epilogue:
 * out = min (out, A (x) B) over mp x np x kp but the hole, A (lda) and Bt
 * (ldb) in min-plus v5's layouts and kernels (the integer min for single
 * without negative weights). Predecessors as out asks (gd_tile::relax):
 * with edge counts (out.Hout), else the round's tag where out has P. */
template <class T>
void relax_product(const T *A, int64_t lda, const T *Bt, int64_t ldb, int64_t mp, int64_t np,
                   int64_t kp, const gd_tile::relax<T> &out, bool nonneg, cudaStream_t st, gd_tile::hole h = gd_tile::hole{0, 0, 0, 0})
{
    using namespace gd_tile;
    typedef relax<T, RELAX_HOPS> RH;
    if constexpr (sizeof(T) == 8) {
        if (out.Hout)
            launch_each<minplus, T, 8, shape<T>, RH>(A, lda, Bt, ldb, mp, np, kp,
                                                     out.template as<RELAX_HOPS>(), st, nullptr, h);
        else /* the compare and select (1.5 times fmin's rate): an output
              * whose every term is NaN stays +Inf, which no length is
              * above, as fmin's NaN is not below one: the same relaxation */
            launch_each<minplus_sel, T, 8, shape<T>, relax<T>>(A, lda, Bt, ldb, mp, np, kp, out,
                                                               st, nullptr, h);
    } else {
        /* the edge counts' run is rare: the fminf kernel, right for any
         * weights */
        typedef layout<16, 8, 4, true> L; // min-plus v5's
        if (out.Hout)
            launch_each<minplus, T, 8, L, RH>(A, lda, Bt, ldb, mp, np, kp,
                                              out.template as<RELAX_HOPS>(), st, nullptr, h);
        else if (nonneg)
            launch_each<minplus_nonneg, T, 16, L, relax<T>>(A, lda, Bt, ldb, mp, np, kp, out, st,
                                                            nullptr, h);
        else
            launch_each<minplus, T, 8, L, relax<T>>(A, lda, Bt, ldb, mp, np, kp, out, st,
                                                    nullptr, h);
    }
}

/* fn.template operator()<I>() for W's element type: T itself, or an
 * integer class's (whose graph runs in T) */
template <class T, class Fn> void with_weights(gd_class wcls, Fn &&fn)
{
    if (gd_class_is_int(wcls))
        gd_with_int_class(wcls, fn);
    else
        fn.template operator()<T>();
}

