/* ops/knn/merge.cuh - the ranks' lists merged (gd_knn_merge): a query's K
 * least (key, row) pairs of its parts' sorted lists, side by side in D
 * and I, on the host or on the device (a thread a query). */

/* the parts' lists of one query: candidate c at D[j*sj + c*sc]; part p's
 * lens[p] candidates start at off[p], its rows from first[p] + I */
struct merge_shape {
    int64_t q, sj, sc, osj, osc, K;
    int np;
    int largest;
};

template <class T> GD_KHD uint64_t merge_key(T v, int largest)
{
    return sizeof(T) == 4 ? gd_key_f((float)v, largest) : gd_key_d((double)v, largest);
}

/* query j's merge; cur: np cursors (j's own) */
template <class T, class IT>
__host__ __device__ inline void merge_query(const T *D, const IT *I, const merge_shape &m,
                                            const int64_t *off, const int64_t *lens,
                                            const int64_t *first, int64_t j, int32_t *cur,
                                            int64_t cstride, T *Do, IT *Io)
{
    for (int p = 0; p < m.np; ++p) cur[p * cstride] = 0;
    for (int64_t k = 0; k < m.K; ++k) {
        int best = -1;
        uint64_t bkey = 0;
        int64_t brow = 0, be = 0;
        for (int p = 0; p < m.np; ++p) {
            const int64_t c = cur[p * cstride];
            if (c >= lens[p]) continue;
            const int64_t e = j * m.sj + (off[p] + c) * m.sc;
            const uint64_t key = merge_key<T>(D[e], m.largest);
            const int64_t row = first[p] + (int64_t)I[e];
            if (best < 0 || key < bkey || (key == bkey && row < brow)) {
                best = p;
                bkey = key;
                brow = row;
                be = e;
            }
        }
        if (best < 0) return; /* (fewer than K in all: the caller refuses it) */
        cur[best * cstride] += 1;
        Do[j * m.osj + k * m.osc] = D[be];
        Io[j * m.osj + k * m.osc] = (IT)brow;
    }
}

template <class T, class IT>
__global__ void merge_kernel(const T *D, const IT *I, merge_shape m, const int64_t *meta,
                             int32_t *cur, T *Do, IT *Io)
{
    const int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (j >= m.q) return;
    /* meta: off, lens, first (np each); the cursors a part a row of q,
     * so that a warp's threads touch neighbouring words */
    merge_query<T, IT>(D, I, m, meta, meta + m.np, meta + 2 * m.np, j, cur + j, m.q, Do, Io);
}

template <class T, class IT>
void merge_host(const T *D, const IT *I, const merge_shape &m, const int64_t *meta, T *Do, IT *Io)
{
#pragma omp parallel num_threads(gd_cpu_threads())
    {
        int32_t *cur = (int32_t *)malloc((size_t)(m.np > 0 ? m.np : 1) * sizeof(int32_t));
#pragma omp for schedule(static)
        for (int64_t j = 0; j < m.q; ++j)
            if (cur) merge_query<T, IT>(D, I, m, meta, meta + m.np, meta + 2 * m.np, j, cur, 1, Do, Io);
        free(cur);
    }
}

/* the merge of one class pair on the host (D, I there) or the device */
template <class T, class IT>
gd_status merge_lists_run(const gd_matrix &D, const gd_matrix &I, const merge_shape &m,
                          const int64_t *meta, gd_out &Do, gd_out &Io, gd_timing *t)
{
    const size_t nout = (size_t)(m.q * m.K);
    if (D.where == GD_HOST) {
        void *bd = NULL, *bi = NULL;
        gd_status s = gd_host_result_begin(&Do, nout * sizeof(T), "the merged distances", &bd);
        if (!s) s = gd_host_result_begin(&Io, nout * sizeof(IT), "the merged rows", &bi);
        if (!s) merge_host<T, IT>((const T *)D.ptr, (const IT *)I.ptr, m, meta, (T *)bd, (IT *)bi);
        const gd_status sd = gd_host_result_end(&Do, bd, nout * sizeof(T), s, t);
        const gd_status si = gd_host_result_end(&Io, bi, nout * sizeof(IT), s ? s : sd, t);
        if (si && Do.device && *Do.device) {
            gd_dev_free(*Do.device);
            *Do.device = NULL;
        }
        return s ? s : sd ? sd : si;
    }
    gd_call c(t, "gpu");
    cudaStream_t st = gd_stream();
    gd_matrix Dh, Ih;
    c.check(gd_operand_here(&D, c.allocs(), &Dh, "D"));
    c.check(gd_operand_here(&I, c.allocs(), &Ih, "I"));
    T *dD = (T *)c.alloc_kept(Do, nout ? nout * sizeof(T) : 1, "the merged distances");
    IT *dI = (IT *)c.alloc_kept(Io, nout ? nout * sizeof(IT) : 1, "the merged rows");
    int64_t *dm = (int64_t *)c.alloc((size_t)(3 * m.np) * sizeof(int64_t), "the parts' places");
    int32_t *cur = (int32_t *)c.alloc((size_t)(m.q * m.np) * sizeof(int32_t) + 4, "the cursors");
    if (dm) c.cuda(cudaMemcpyAsync(dm, meta, (size_t)(3 * m.np) * sizeof(int64_t), cudaMemcpyHostToDevice, st),
                   "the parts' places");
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && m.q > 0 && m.K > 0) {
        merge_kernel<T, IT><<<gd_blocks_for(m.q, 128), 128, 0, st>>>((const T *)Dh.ptr, (const IT *)Ih.ptr,
                                                                     m, dm, cur, dD, dI);
    }
    c.launched("the merge kernel");
    c.end(GD_PHASE_KERNEL, st);
    c.wait(st, "the merge");
    return c.finish();
}
