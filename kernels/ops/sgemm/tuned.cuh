/* ops/sgemm/tuned.cuh - tuned: the 128x128 block tile of tile.cuh, split-k in a cluster or a workspace.
 * Part of sgemm.cu, which includes it inside its anonymous namespace,
 * in the ladder's order. */
// ---------------------------------------------------------------------------
// tuned: the 128x128 block tile of tile.cuh (256 threads, 8x8 outputs
// each, 16-byte loads, three shared stages of 16 k-steps filled by
// cp.async) with fused multiply-adds. When the output has fewer tiles
// than the GPU has SMs, the k range is split into S slices computed side
// by side and summed in slice order (split-k), so a result does not
// depend on timing: in a cluster of the slices' blocks (sm_90 on, where
// they fit at once; tile.cuh), else into a workspace and by a second
// kernel.

__global__ void sum_slices(const float *__restrict__ W, float *__restrict__ C, int64_t count,
                           int slices)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x) {
        float v = W[e];
        for (int z = 1; z < slices; ++z) v += W[e + count * z];
        C[e] = v;
    }
}

// Split-k: when the output has fewer 128x128 tiles than the GPU has SMs,
// the k range is cut into slices (whole stages) so that about one block
// runs on each SM. One block an SM, not two: on an H100 (132 SMs), 1024^3
// in 2 slices (128 blocks) took 58.4 us, in 4 (256 blocks, two an SM, as
// the kernel's bounds allow) 63.1, unsplit 96.2; 512^3 in 8 slices 19.8,
// in 2 (slices of at least 256 k-steps, the earlier rule) 32.2; each
// further slice is another pass over the output in sum_slices.
struct split {
    int slices;
    int64_t kchunk; // whole stages; every slice non-empty
};
template <int BK> split split_for(const gd_plan &p)
{
    // (from the whole result's sizes: a device's panel of it, or a block,
    // is cut as the whole is, so that its sums are the same)
    int64_t tiles = ((p.args.whole_m + gd_tile::BIG - 1) / gd_tile::BIG) *
                    ((p.args.whole_n + gd_tile::BIG - 1) / gd_tile::BIG);
    if (tiles < 1) tiles = 1; /* (an empty result launches nothing) */
    int64_t s = tiles >= gd_sm_count() ? 1 : gd_sm_count() / tiles;
    if (s > 16) s = 16;
    long asked;
    if (gd_setting_int(GD_SET_SPLIT, 1, 16, &asked) > 0) s = asked;
    if (s > p.kp / BK) s = p.kp / BK;
    if (s < 1) s = 1;
    split r;
    r.kchunk = gd_round_up((p.kp + s - 1) / s, BK);
    r.slices = (int)((p.kp + r.kchunk - 1) / r.kchunk);
    return r;
}

typedef gd_tile::layout<16, 16, 2, true> tuned_layout;
template <int BK>
constexpr auto cluster_kernel =
    gd_tile::cluster_split_kernel<gd_tile::muladd, float, BK, tuned_layout, gd_tile::identity>;

// a launch of the cluster form: grid (tiles of mp, tiles of ny, slices),
// clusters of the slices
struct cluster_launch {
    cudaLaunchAttribute at[1];
    cudaLaunchConfig_t cfg;
    cluster_launch(int64_t mp, int64_t ny, int slices, cudaStream_t st) : at(), cfg()
    {
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = 1;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = (unsigned)slices;
        cfg.gridDim = dim3((unsigned)(mp / gd_tile::BIG), (unsigned)ny, (unsigned)slices);
        cfg.blockDim = dim3(tuned_layout::TX * tuned_layout::TY);
        cfg.dynamicSmemBytes = gd_tile::SPLIT_SMEM;
        cfg.stream = st;
        cfg.attrs = at;
        cfg.numAttrs = 1;
    }
};

/* How many clusters of `slices` blocks the device runs at once (0: none,
 * or before sm_90), asked once per device and count. A cluster's blocks
 * run in one GPC, so the GPCs' sizes decide: on an H100, 32 clusters of 4
 * (1000 x 3000 x 500) did not fit at once and took two waves, 148 us
 * against the second kernel's 80. */
template <int BK> int max_clusters(int slices)
{
    static int known[GD_MAX_DEVICES][gd_tile::SPLIT_CLUSTER_MAX + 1]; /* the count + 1 */
    int &k = known[gd_ordinal()][slices];
    if (k) return k - 1;
    int n = 0;
    if (gd_cc_major() >= 9) {
        cluster_launch l(gd_tile::BIG, 1, slices, 0);
        if (gd_dynamic_smem<cluster_kernel<BK>>(gd_tile::SPLIT_SMEM) != cudaSuccess ||
            cudaOccupancyMaxActiveClusters(&n, cluster_kernel<BK>, &l.cfg) != cudaSuccess) {
            n = 0;
            cudaGetLastError(); /* (a refusal is an answer: the second kernel sums) */
        }
    }
    k = n + 1;
    return n;
}

/* Where the slices are summed: in a cluster of their blocks (sm_90 on, up
 * to 8 slices, and every tile's cluster running at once: no workspace, no
 * second kernel), else through the workspace by sum_slices. The same sums
 * in the same order either way. */
template <int BK> bool in_cluster(const gd_plan &p, const split &sp)
{
    return sp.slices > 1 && sp.slices <= gd_tile::SPLIT_CLUSTER_MAX &&
           !gd_setting_is(GD_SET_SPLIT_SUM, "kernel") &&
           (p.mp / gd_tile::BIG) * (p.np / gd_tile::BIG) <= max_clusters<BK>(sp.slices);
}

template <int BK> size_t work_tuned(const gd_plan &p)
{
    const split sp = split_for<BK>(p);
    return sp.slices > 1 && !in_cluster<BK>(p, sp)
               ? (size_t)(p.mp * p.np) * sp.slices * sizeof(float)
               : 0;
}

// launches the cluster form over the mp x np product (several launches
// where the tile columns pass the grid's y limit)
template <int BK> gd_status launch_split_cluster(const gd_plan &p, const split &sp)
{
    const int64_t tiles_j = p.np / gd_tile::BIG;
    cudaError_t e = cudaSuccess;
    for (int64_t jt = 0; e == cudaSuccess && jt < tiles_j; jt += 65535) {
        const int64_t ny = tiles_j - jt < 65535 ? tiles_j - jt : 65535;
        cluster_launch l(p.mp, ny, sp.slices, p.st);
        e = cudaLaunchKernelEx(&l.cfg, cluster_kernel<BK>, (const float *)p.A, (const float *)p.B,
                               (float *)p.C, p.mp, p.np, p.kp, sp.kchunk, jt);
    }
    return gd_cuda(e, "the split-k cluster's launch");
}

template <int BK> gd_status launch_tuned(const gd_plan &p)
{
    const split sp = split_for<BK>(p);
    if (in_cluster<BK>(p, sp)) return launch_split_cluster<BK>(p, sp);
    const int64_t count = p.mp * p.np;
    float *out = sp.slices > 1 ? (float *)p.work : (float *)p.C;
    // one kernel, split or not: unsplit at 4096 the split-k form ran in
    // 2.93 ms, the form without the split arguments in 3.04 (measured with
    // the earlier two-stage register fill, not again since; ptxas's
    // schedules differ, and for min-plus it is the other way round)
    gd_tile::launch_big<gd_tile::muladd, float, BK, tuned_layout, gd_tile::identity, true>((const float *)p.A, (const float *)p.B, out, p.mp, p.np, p.kp,
                              sp.kchunk, count, (int)sp.slices, p.st);
    if (sp.slices > 1) {
        const int64_t blocks = (count + 1023) / 1024;
        sum_slices<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, p.st>>>(
            out, (float *)p.C, count, sp.slices);
    }
    return GD_OK;
}
