/* ops/knn/range.cuh - the range search (gd_range): every row of X within r of each query.
 * Part of knn.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it).
 *
 * On the GPU two passes of the fused kernel's tiles (pdist2's tuned
 * tiles, its distances to the bit): the first counts each query's hits
 * (a distance d <= r; NaN is within no radius), the host turns the counts
 * into each query's place in one list and allocates exactly that, the
 * second writes each hit (row, distance) into its query's place. The
 * host then sorts each query's hits by (distance, row), the order of a
 * stable sort, and writes them out. No mx x my matrix is made; a radius
 * that takes more than there is memory for fails (gd:memory) before the
 * lists are written. */

/* What a range launch reads: block (x, y) takes query tile x (NQ queries
 * from x NQ) and X's row tiles [y tps, (y + 1) tps). */
template <class T> struct range_args {
    const T *Xp, *Yp;        /* padded: mp x kp, np x kp */
    int64_t mp, np, kp, mx, my, tps;
    T r;                     /* the radius, rounded down to T */
    int *count;              /* the hits a query: added (pass 1), its cursor (pass 2) */
    const int64_t *first;    /* pass 2: where each query's hits begin */
    int32_t *rows;           /* pass 2: the hits' rows (0-based) and distances */
    T *dist;
    metric_data<T> md;
};

template <class T, class M, bool WRITE>
__global__ void __launch_bounds__(16 * gd_tile::shape<T>::TY, fused_blocks<T>::N)
range_fused(const range_args<T> a)
{
    typedef gd_tile::shape<T> S;
    enum { TY = S::TY, NT = 16 * TY, NQ = 8 * TY };
    __shared__ int cnt[NQ];
    const M m(a.md);
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int64_t j0 = (int64_t)blockIdx.x * NQ, mx = a.mx, my = a.my;
    const int64_t xt0 = blockIdx.y * a.tps, xtiles = a.mp / gd_tile::BIG;
    const int64_t xt1 = xt0 + a.tps < xtiles ? xt0 + a.tps : xtiles;
    for (int q = tid; q < NQ; q += NT) cnt[q] = 0;
    __syncthreads();
    // the sums a distance within r may have (all where the metric has no
    // such bound: its distances are computed and compared in place)
    T b = a.r;
    if constexpr (M::BOUND) b = m.bound(a.r, false);
    uint32_t colmask = 0;
#pragma unroll
    for (int c = 0; c < 8; ++c)
        if (j0 + gd_tile::big_offset<T, TY>(ty, c) < my) colmask |= 1u << c;
    auto hit = [&](int q, int64_t i, T v) {
        if (!(v <= a.r)) return;
        if constexpr (WRITE) {
            const int64_t j = j0 + q, p = a.first[j] + atomicAdd(&a.count[j], 1);
            a.rows[p] = (int32_t)i;
            a.dist[p] = v;
        } else {
            atomicAdd(&cnt[q], 1);
        }
    };
    for (int64_t xt = xt0; xt < xt1; ++xt) {
        const int64_t i0 = xt * gd_tile::BIG;
        T acc[8][8];
        gd_tile::accumulate_big<typename M::Step, T, BK, 16, TY>(a.Xp, a.mp, a.Yp, a.np, 0, a.kp,
                                                                 i0, j0, acc);
        const int64_t rows = mx - i0;
        uint64_t valid = 0, slow = 0, go = 0;
#pragma unroll
        for (int r = 0; r < 8; ++r)
            if (gd_tile::big_offset<T, 16>(tx, r) < rows) valid |= (uint64_t)colmask << (8 * r);
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int c = 0; c < 8; ++c) {
                if (m.slow(acc[r][c])) slow |= (uint64_t)1 << (8 * r + c);
                if constexpr (M::BOUND) {
                    if (!(acc[r][c] > b)) go |= (uint64_t)1 << (8 * r + c);
                } else {
                    const int64_t i = i0 + gd_tile::big_offset<T, 16>(tx, r);
                    acc[r][c] = m.value(acc[r][c], i, j0 + gd_tile::big_offset<T, TY>(ty, c));
                    if (acc[r][c] <= a.r) go |= (uint64_t)1 << (8 * r + c);
                }
            }
        slow &= valid;
        go &= valid & ~slow;
        // one hit's code for all (as the fused kernel's offer)
        for (uint64_t w = go; w; w &= w - 1) {
            const int bit = __ffsll((long long)w) - 1;
            const int q = gd_tile::big_offset<T, TY>(ty, bit % 8);
            const int64_t i = i0 + gd_tile::big_offset<T, 16>(tx, bit / 8);
            const T x = pick(acc, bit);
            hit(q, i, M::BOUND ? m.value(x, i, j0 + q) : x);
        }
        for (uint64_t w = slow; w; w &= w - 1) {
            const int bit = __ffsll((long long)w) - 1;
            const int q = gd_tile::big_offset<T, TY>(ty, bit % 8);
            const int64_t i = i0 + gd_tile::big_offset<T, 16>(tx, bit / 8);
            hit(q, i, m.slow_value(a.Xp + i, a.mp, a.Yp + j0 + q, a.np));
        }
    }
    if constexpr (!WRITE) {
        __syncthreads();
        for (int q = tid; q < NQ; q += NT)
            if (cnt[q] && j0 + q < my) atomicAdd(&a.count[j0 + q], cnt[q]);
    }
}

/* The two passes of a metric, for the host (with_metric picks M). */
template <class T> struct range_kernel {
    const void *fn;
    void (*count)(dim3 grid, int nt, cudaStream_t st, const range_args<T> &a);
    void (*write)(dim3 grid, int nt, cudaStream_t st, const range_args<T> &a);
    template <class M> static void count_m(dim3 g, int nt, cudaStream_t st, const range_args<T> &a)
    {
        range_fused<T, M, false><<<g, nt, 0, st>>>(a);
    }
    template <class M> static void write_m(dim3 g, int nt, cudaStream_t st, const range_args<T> &a)
    {
        range_fused<T, M, true><<<g, nt, 0, st>>>(a);
    }
    template <class M> range_kernel run() const
    {
        return range_kernel{(const void *)range_fused<T, M, false>, count_m<M>, write_m<M>};
    }
};

/* r as the largest T not above it: for a distance v of class T, v <= r
 * exactly when v <= r_T */
template <class T> T radius_down(double r)
{
    T v = (T)r;
    if ((double)v > r) v = sizeof(T) == 4 ? (T)nextafterf((float)v, -INFINITY) : (T)nextafter((double)v, -INFINITY);
    return v;
}

/* Each query's hits sorted by (distance, row), the order of a stable sort
 * of its distances (rows came in any order): n queries, hits of query j
 * from first[j] to first[j + 1], rows 0-based in and 1-based out. False
 * where host memory was lacking. */
template <class T>
bool range_sort(int64_t n, const int64_t *first, const int32_t *rows, const T *dist, T *D,
                int32_t *I)
{
    int lacking = 0;
#pragma omp parallel for schedule(dynamic, 64) num_threads(gd_cpu_threads())
    for (int64_t j = 0; j < n; ++j) {
        const int64_t a = first[j], h = first[j + 1] - a;
        if (h == 0) continue;
        struct hit {
            uint64_t key;
            int32_t row;
            T v;
        };
        hit *s = (hit *)malloc((size_t)h * sizeof(hit));
        if (!s) {
#pragma omp atomic write
            lacking = 1;
            continue;
        }
        for (int64_t e = 0; e < h; ++e)
            s[e] = {sizeof(T) == 4 ? (uint64_t)gd_key_f((float)dist[a + e], 0)
                                   : gd_key_d((double)dist[a + e], 0),
                    rows[a + e], dist[a + e]};
        std::sort(s, s + h, [](const hit &x, const hit &y) {
            return x.key < y.key || (x.key == y.key && x.row < y.row);
        });
        for (int64_t e = 0; e < h; ++e) {
            D[a + e] = s[e].v;
            I[a + e] = s[e].row + 1;
        }
        free(s);
    }
    return !lacking;
}

/* The lists out: D (1 x H, class T) and I (1 x H, icls) in each query's
 * order, N (my x 1 double) the hits a query. rows and dist: the hits as
 * found; first: each query's place (my + 1). */
template <class T>
gd_status range_results(int64_t my, const int64_t *first, const int32_t *rows, const T *dist,
                        gd_out &Dout, gd_out &Iout, gd_class icls, gd_out &Nout, gd_timing *t)
{
    const int64_t H = first[my];
    char what[96];
    gd_describe(what, sizeof what, "D", 1, H, sizeof(T) == 4 ? GD_SINGLE : GD_DOUBLE);
    void *dbuf = NULL, *nbuf = NULL;
    int32_t *idx = (int32_t *)malloc((size_t)H * 4 + 4);
    gd_status s = idx ? GD_OK
                      : gd_fail(GD_ERR_MEMORY, "cannot allocate the hits' rows (%.1f MiB) in "
                                "host memory", gd_mib((size_t)H * 4));
    if (!s) s = gd_host_result_begin(&Dout, (size_t)H * sizeof(T), what, &dbuf);
    if (!s && !range_sort<T>(my, first, rows, dist, (T *)dbuf, idx))
        s = gd_fail(GD_ERR_MEMORY, "cannot sort the hits in host memory");
    if (dbuf || Dout.device) s = gd_host_result_end(&Dout, dbuf, (size_t)H * sizeof(T), s, t);
    if (!s) s = gd_host_index_result(&Iout, idx, 1, H, icls, &Dout, "I", t);
    free(idx);
    if (s) return s;
    gd_describe(what, sizeof what, "N", my, 1, GD_DOUBLE);
    s = gd_host_result_begin(&Nout, (size_t)my * 8, what, &nbuf);
    if (!s)
        for (int64_t j = 0; j < my; ++j) ((double *)nbuf)[j] = (double)(first[j + 1] - first[j]);
    if (nbuf || Nout.device) s = gd_host_result_end(&Nout, nbuf, (size_t)my * 8, s, t);
    return s;
}

/* The range search on one device. */
template <class T>
gd_status range_gpu(const gd_matrix &X0, const gd_matrix &Y0, gd_distance metric, double r,
                    gd_out Dout, gd_out Iout, gd_class icls, gd_out Nout, gd_timing *t)
{
    typedef gd_tile::shape<T> S;
    enum { NQ = 8 * S::TY, NT = 16 * S::TY };
    const size_t es = sizeof(T);
    const gd_class cls = es == 4 ? GD_SINGLE : GD_DOUBLE;
    const int64_t mx = X0.rows, my = Y0.rows, d = X0.cols;
    const int64_t mp = gd_round_up(mx, gd_tile::BIG), np = gd_round_up(my, NQ),
                  kp = gd_round_up(d > 0 ? d : 1, BK);
    const int64_t xtiles = mp / gd_tile::BIG, qtiles = np / NQ;
    /* each query's place and the hits, on the host past the GPU call */
    struct freed {
        void *p = NULL;
        ~freed() { free(p); }
    } fb, hb;
    int64_t *first = NULL;
    int32_t *hrows = NULL;
    T *hdist = NULL;
    {
        gd_call c(t, "fused");
        if (!c.ok()) return c.finish();
        const cudaStream_t st = gd_stream();
        const gd_matrix Xc = c.in_class(X0, cls, "X"), Yc = c.in_class(Y0, cls, "Y");
        const T *dX = (const T *)c.on_device(Xc, c.event(), st, "X");
        const T *dY = (const T *)c.on_device(Yc, c.event(), st, "Y");
        char what[128];
        gd_describe(what, sizeof what, "padded X", mp, kp, cls);
        T *dXp = (T *)c.alloc((size_t)(mp * kp) * es, what);
        gd_describe(what, sizeof what, "padded Y", np, kp, cls);
        T *dYp = (T *)c.alloc((size_t)(np * kp) * es, what);
        void *dInfo = metric_rows(metric.metric)
                          ? c.alloc((size_t)(mp + np) * (es + 1), "the rows' norms and NaN flags")
                          : NULL;
        int *dCount = (int *)c.alloc((size_t)my * 4 + (size_t)(my + 1) * 8, "the hits' counts");
        int64_t *dFirst = (int64_t *)(dCount + (my + 1) / 2 * 2);
        const range_kernel<T> rk = with_metric<T>(metric.metric, metric.p, range_kernel<T>{});
        const double slots =
            c.ok() ? (double)c.wave((const void *)rk.fn, NT, 0, "the range kernel's occupancy") : 0;
        if (!c.ok()) return c.finish();
        range_args<T> a = {};
        a.Xp = dXp;
        a.Yp = dYp;
        a.mp = mp;
        a.np = np;
        a.kp = kp;
        a.mx = mx;
        a.my = my;
        a.r = radius_down<T>(r);
        a.count = dCount;
        a.first = dFirst;
        /* X's row tiles in splits: two waves of blocks at least */
        int64_t splits = (int64_t)ceil(2 * slots / (double)qtiles);
        if (splits > xtiles) splits = xtiles;
        if (splits < 1) splits = 1;
        a.tps = (xtiles + splits - 1) / splits;
        splits = (xtiles + a.tps - 1) / a.tps;
        const dim3 grid((unsigned)qtiles, (unsigned)splits);
        c.begin(GD_PHASE_PREP, st);
        pad_operands<T>(c, st, dX, dXp, mx, mp, dY, dYp, my, np, d, kp, dInfo, metric, a.md);
        c.cuda(cudaMemsetAsync(dCount, 0, (size_t)my * 4, st), "clearing the counts");
        c.launched("preparing the operands");
        c.end(GD_PHASE_PREP, st);
        /* pass 1: the counts, down to the host */
        c.begin(GD_PHASE_KERNEL, st);
        if (c.ok()) rk.count(grid, NT, st, a);
        c.launched("the range kernel (counts)");
        c.end(GD_PHASE_KERNEL, st);
        int *hc = (int *)c.host_alloc((size_t)my * 4, "the hits' counts");
        first = (int64_t *)(fb.p = malloc((size_t)(my + 1) * 8));
        if (!first) c.fail(GD_ERR_MEMORY, "cannot allocate the queries' places in host memory");
        if (!hc || !c.cuda(cudaMemcpyAsync(hc, dCount, (size_t)my * 4, cudaMemcpyDeviceToHost, st),
                           "copy of the counts") ||
            !c.cuda(cudaStreamSynchronize(st), "the range kernel (counts)") ||
            !c.go_on(st, "pass", 1, 2))
            return c.finish();
        first[0] = 0;
        for (int64_t j = 0; j < my; ++j) first[j + 1] = first[j] + hc[j];
        const int64_t H = first[my];
        /* pass 2: the hits into their places (exactly H of them) */
        gd_describe(what, sizeof what, "the hits", H, 1, cls);
        int32_t *dRows = (int32_t *)c.alloc((size_t)H * (4 + es) + 8, what);
        T *dDist = (T *)((char *)dRows + ((size_t)H * 4 + 7) / 8 * 8);
        hrows = (int32_t *)(hb.p = malloc((size_t)H * (4 + es) + 8));
        hdist = (T *)((char *)hrows + ((size_t)H * 4 + 7) / 8 * 8);
        if (c.ok() && !hrows)
            c.fail(GD_ERR_MEMORY, "cannot allocate the hits (%.1f MiB) in host memory",
                   gd_mib((size_t)H * (4 + es)));
        if (!c.ok()) return c.finish();
        a.rows = dRows;
        a.dist = dDist;
        c.begin(GD_PHASE_KERNEL, st);
        c.cuda(cudaMemcpyAsync(dFirst, first, (size_t)my * 8, cudaMemcpyHostToDevice, st),
               "the queries' places");
        c.cuda(cudaMemsetAsync(dCount, 0, (size_t)my * 4, st), "clearing the cursors");
        if (c.ok() && H > 0) rk.write(grid, NT, st, a);
        c.launched("the range kernel (hits)");
        c.end(GD_PHASE_KERNEL, st);
        if (H > 0) {
            c.cuda(cudaMemcpyAsync(hrows, dRows, (size_t)H * 4, cudaMemcpyDeviceToHost, st),
                   "copy of the hits' rows");
            c.cuda(cudaMemcpyAsync(hdist, dDist, (size_t)H * es, cudaMemcpyDeviceToHost, st),
                   "copy of the hits' distances");
        }
        c.wait(st, "the range kernel");
        snprintf(t->kernel, sizeof t->kernel, "two passes, %lld split%s, %lld hits",
                 (long long)splits, splits > 1 ? "s" : "", (long long)H);
        const gd_status s = c.finish();
        if (s) return s;
    }
    const double t0 = gd_now_ms();
    const gd_status s = range_results<T>(my, first, hrows, hdist, Dout, Iout, icls, Nout, t);
    t->prep_ms += gd_now_ms() - t0;
    return s;
}

/* The range search on the host: blocks of queries, each block's distance
 * columns by gd_pdist2's cpu variant (its distances to the bit), their
 * hits kept in row order, then sorted as the GPU's. */
template <class T>
gd_status range_cpu(const gd_matrix &X0, const gd_matrix &Y0, gd_distance metric, double r,
                    gd_out Dout, gd_out Iout, gd_class icls, gd_out Nout, gd_timing *t)
{
    const size_t es = sizeof(T);
    const gd_class cls = es == 4 ? GD_SINGLE : GD_DOUBLE;
    const int64_t mx = X0.rows, my = Y0.rows, d = X0.cols;
    const T rT = radius_down<T>(r);
    gd_allocs al = {};
    gd_matrix Xc, Yc, X, Y;
    void *hx = NULL, *hy = NULL, *cx = NULL, *cy = NULL;
    int64_t *first = (int64_t *)malloc((size_t)(my + 1) * 8);
    int32_t *rows = NULL;
    T *dist = NULL, *blk = NULL, *yb = NULL;
    size_t cap = 0;
    gd_status s;
    if (!(s = gd_operand_class(&X0, cls, &Xc, &al, &cx, "X")) &&
        !(s = gd_operand_class(&Y0, cls, &Yc, &al, &cy, "Y")) &&
        !(s = gd_operand_host(&Xc, &X, &hx, "X")) && !(s = gd_operand_host(&Yc, &Y, &hy, "Y"))) {
        /* some 2^22 distances a block of queries */
        int64_t B = mx > 0 ? ((int64_t)1 << 22) / mx : my;
        if (B > my) B = my;
        if (B < 1) B = 1;
        blk = (T *)malloc((size_t)(mx * B) * es + 8);
        yb = (T *)malloc((size_t)(B * d) * es + 8);
        if (!first || !blk || !yb)
            s = gd_fail(GD_ERR_MEMORY, "cannot allocate a block of distances (%.1f MiB) in host "
                        "memory", gd_mib((size_t)(mx * B) * es));
        else if (X.ld != mx)
            s = gd_fail(GD_ERR_INPUT, "internal: the cpu variant takes a tight X");
        const double t0 = gd_now_ms();
        const T *Xp = (const T *)X.ptr, *Yp = (const T *)Y.ptr;
        if (!s) first[0] = 0;
        for (int64_t j0 = 0; j0 < my && !s; j0 += B) {
            if (gd_interrupted()) {
                s = gd_fail(GD_ERR_INTERRUPT, "interrupted");
                break;
            }
            const int64_t b = my - j0 < B ? my - j0 : B;
            for (int64_t k = 0; k < d; ++k)
                for (int64_t q = 0; q < b; ++q) yb[q + b * k] = Yp[j0 + q + Y.ld * k];
            int bad = 0;
            if (!gd_metric_on_gpu(metric.metric))
                bad = es == 4 ? gd_cpu_pdist2_metric_f(metric, (const float *)Xp, (const float *)yb,
                                                       mx, b, d, (float *)blk)
                              : gd_cpu_pdist2_metric_d(metric, (const double *)Xp,
                                                       (const double *)yb, mx, b, d,
                                                       (double *)blk);
            else if (es == 4)
                gd_cpu_pdist2_f((const float *)Xp, (const float *)yb, mx, b, d,
                                metric.metric == GD_EUCLIDEAN, (float *)blk);
            else
                gd_cpu_pdist2_d((const double *)Xp, (const double *)yb, mx, b, d,
                                metric.metric == GD_EUCLIDEAN, (double *)blk);
            if (bad) s = gd_fail(GD_ERR_MEMORY, "cannot allocate the rows' norms in host memory");
            for (int64_t q = 0; q < b && !s; ++q) {
                const T *col = blk + mx * q;
                int64_t n = first[j0 + q];
                for (int64_t i = 0; i < mx && !s; ++i) {
                    if (!(col[i] <= rT)) continue;
                    if ((size_t)n == cap) {
                        cap = cap ? 2 * cap : 1024;
                        int32_t *nr = (int32_t *)realloc(rows, cap * 4);
                        if (nr) rows = nr;
                        T *nd = (T *)realloc(dist, cap * es);
                        if (nd) dist = nd;
                        if (!nr || !nd)
                            s = gd_fail(GD_ERR_MEMORY, "cannot allocate the hits (%.1f MiB) in "
                                        "host memory", gd_mib(cap * (4 + es)));
                        if (s) break;
                    }
                    rows[n] = (int32_t)i;
                    dist[n++] = col[i];
                }
                first[j0 + q + 1] = n;
            }
            gd_progress("query block", (double)(j0 + b), (double)my);
        }
        t->kernel_ms = gd_now_ms() - t0;
    }
    if (!s) s = range_results<T>(my, first, rows, dist, Dout, Iout, icls, Nout, t);
    free(first);
    free(rows);
    free(dist);
    free(blk);
    free(yb);
    free(hx);
    free(hy);
    free(cx);
    free(cy);
    return host_end(s, &al, t);
}
