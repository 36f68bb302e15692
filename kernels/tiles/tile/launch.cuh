/* tiles/tile/launch.cuh - the big tile's layouts and shapes, its whole-product kernel and launcher, and split-k summed in a cluster.
 * Part of tile.cuh, which includes it inside namespace gd_tile, in order. */
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
 * 68.7%; NOTES.md). Min-plus double runs on it too since its step is a
 * compare and select (123.5 -> 114.9 ms at 8192; with fmin, bound by
 * DMNMX, it was 9% slower); the fused neighbours stay on 128x128
 * (chebychev 1.43x slower on it, the others within 12%). */
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
    __trap(); /* launched only on sm_90 and later (sgemm/tuned.cuh's in_cluster) */
#endif
}

