/* ops/knn/gpu.cuh - one device's search: knn_gpu (the splits, batches, X's units from the host, the fused launches), the gemm variant's place, run_gpu.
 * Part of knn.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
/* The operands of the fused tiles, on st: X's rows (dX; NULL where they
 * come later, from the host) and Y's in their padded layouts (mp x kp, np
 * x kp), their norms and NaN flags where the metric needs them (info:
 * mp + np of each, cleared here first), minkowski's p; md says where they
 * are. */
template <class T>
void pad_operands(gd_call &c, cudaStream_t st, const T *dX, T *dXp, int64_t mx, int64_t mp,
                  const T *dY, T *dYp, int64_t my, int64_t np, int64_t d, int64_t kp, void *info,
                  gd_distance metric, metric_data<T> &md)
{
    const dim3 gx((unsigned)(mp / 256 + 1), gd_grid_y(kp)), gy((unsigned)(np / 256 + 1), gd_grid_y(kp));
    if (dX) gd_tile::pad_rows<T><<<gx, 256, 0, st>>>(dX, dXp, mx, d, mp, kp);
    gd_tile::pad_rows<T><<<gy, 256, 0, st>>>(dY, dYp, my, d, np, kp);
    md.metric = metric.metric;
    md.d = d;
    md.nx = md.ny = NULL;
    md.fx = md.fy = NULL;
    if (info) {
        T *nx = (T *)info, *ny = nx + mp;
        unsigned char *fx = (unsigned char *)(ny + np), *fy = fx + mp;
        c.cuda(cudaMemsetAsync(info, 0, (size_t)(mp + np) * (sizeof(T) + 1), st),
               "clearing the rows' norms");
        if (dX) row_info<T><<<gd_blocks_for(mx, 256), 256, 0, st>>>(dX, mx, mx, d, nx, fx);
        row_info<T><<<gd_blocks_for(my, 256), 256, 0, st>>>(dY, my, my, d, ny, fy);
        md.nx = nx;
        md.ny = ny;
        md.fx = fx;
        md.fy = fy;
    }
    if (metric.metric == GD_MINKOWSKI) c.check(set_minkowski_p(metric.p, st));
}

/* One GPU call of the fused neighbours: X's rows (the points) in splits of
 * row tiles, Y's (the queries) in batches of query tiles, each query's
 * best K kept in lists a split and merged by knn_final. */
template <class T> struct knn_gpu {
    typedef gd_tile::shape<T> S;
    enum { NQ = 8 * S::TY, NT = 16 * S::TY };
    static constexpr size_t es = sizeof(T), isz = sizeof(item<T>);
    static constexpr gd_class cls = sizeof(T) == 4 ? GD_SINGLE : GD_DOUBLE;
    gd_call &c;
    gd_distance metric;
    int64_t K;
    int largest;
    gd_out &Dout, &Iout;
    gd_class icls;
    int64_t mx, my, d, mp, np, kp, xtiles, qtiles;
    cudaStream_t st;
    gd_matrix Xc, Yc;
    const T *dX = NULL, *dY = NULL;
    T *dXp = NULL, *dYp = NULL, *dD = NULL, *tD = NULL;
    int32_t *dI = NULL, *tI = NULL;
    void *dL = NULL, *dM = NULL, *dInfo = NULL, *keptI = NULL;
    /* X from the host goes straight into its padded layout, in units;
     * from the GPU it is padded by a kernel */
    bool up_x = false;
    fused_kernel<T> fk;
    size_t dyn = (size_t)NQ * CAP * isz;
    int64_t splits = 1, batch = 1, tps = 1;
    int units = 1;
    fused_args<T> fa;
    /* D and I already on the device (a part of a search, the gemm
     * variant's fallback): allocate() takes these */
    T *extD = NULL;
    int32_t *extI = NULL;
    /* the results my x K, a row a query (knnsearch's): the lists, K x my,
     * turned on the device before they are kept or copied down */
    bool by_query = false;

    knn_gpu(gd_call &c_, const gd_matrix &X0, const gd_matrix &Y0, gd_distance m, int64_t K_,
            int lg, gd_out &D, gd_out &I, gd_class ic)
        : c(c_), metric(m), K(K_), largest(lg), Dout(D), Iout(I), icls(ic), mx(X0.rows),
          my(Y0.rows), d(X0.cols), st(gd_stream())
    {
        mp = gd_round_up(mx, gd_tile::BIG);
        np = gd_round_up(my, NQ);
        kp = gd_round_up(d > 0 ? d : 1, BK);
        xtiles = mp / gd_tile::BIG;
        qtiles = np / NQ;
        Xc = c.in_class(X0, cls, "X");
        Yc = c.in_class(Y0, cls, "Y");
        up_x = Xc.where != GD_DEVICE;
        fk = with_metric<T>(metric.metric, metric.p, fused_kernel<T>{});
    }

    /* the operands, their padded layouts and the results on the device */
    bool allocate()
    {
        char what[128];
        if (!up_x) dX = (const T *)c.on_device(Xc, c.event(), st, "X");
        dY = (const T *)c.on_device(Yc, c.event(), st, "Y");
        gd_describe(what, sizeof what, "padded X", mp, kp, cls);
        dXp = (T *)c.alloc((size_t)(mp * kp) * es, what);
        gd_describe(what, sizeof what, "padded Y", np, kp, cls);
        dYp = (T *)c.alloc((size_t)(np * kp) * es, what);
        if (extD) {
            dD = extD;
            dI = extI;
        } else if (!dD) {
            allocate_out();
        }
        if (metric_rows(metric.metric)) {
            /* (as long as the padded operands: the kernel reads the pad's
             * too, zeros, and drops what it makes of them) */
            gd_describe(what, sizeof what, "the rows' norms and NaN flags", mp + np, 1, cls);
            dInfo = c.alloc((size_t)(mp + np) * (es + 1), what);
        }
        return c.ok();
    }

    /* D and I on the device, kept (gdArrays) or for the host; turned
     * by_query into a second pair that is kept or copied down */
    bool allocate_out()
    {
        return by_query ? (out_pair(false) && out_pair(true)) : out_pair(true);
    }

    /* one pair of D and I, K x my (or turned, my x K): kept where keep and
     * the outputs are gdArrays, else the GPU call's own */
    bool out_pair(bool keep)
    {
        char what[128];
        const size_t n = (size_t)(K * my);
        const int64_t r = keep && by_query ? my : K, cl = keep && by_query ? K : my;
        T *&pD = keep && by_query ? tD : dD;
        int32_t *&pI = keep && by_query ? tI : dI;
        gd_describe(what, sizeof what, "D", r, cl, cls);
        pD = (T *)(keep && Dout.device ? c.alloc_kept(Dout, n * es, what) : c.alloc(n * es, what));
        gd_describe(what, sizeof what, "I", r, cl, GD_INT32);
        pI = (int32_t *)(keep && Iout.device && icls == GD_INT32 ? c.alloc_kept(Iout, n * 4, what)
                                                                 : c.alloc(n * 4, what));
        if (keep && Iout.device && icls != GD_INT32) {
            gd_describe(what, sizeof what, "I", r, cl, icls);
            keptI = c.alloc_kept(Iout, n * gd_class_bytes(icls), what);
        }
        return c.ok();
    }

    /* Splits of X's row tiles, so that the blocks fill the GPU: the time of
     * a launch is its waves times the tiles of its longest split (every
     * block of a wave runs alongside the others), and each split costs
     * about 2 + K/16 tiles more (its lists fill again, its buckets merge,
     * the final kernel merges its lists). Among 1 ... 64 splits the
     * cheapest, the fewest where two tie (8192 queries among 65536 points
     * on an H100: 3 splits of 171 tiles, one wave, against 32 of 16 in
     * eleven waves); the lists' memory (two buffers of K items a query and
     * split) within a quarter of what is free, in batches of query tiles
     * where even one split does not fit. */
    bool plan()
    {
        if (!c.cuda(cudaFuncSetAttribute(fk.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)dyn),
                    "the neighbour kernel's shared memory"))
            return false;
        const double slots =
            (double)c.wave((const void *)fk.fn, NT, dyn, "the neighbour kernel's occupancy");
        if (!c.ok()) return false;
        double best = INFINITY;
        for (int64_t n = 1; n <= 64 && n <= xtiles; ++n) {
            const int64_t tiles = (xtiles + n - 1) / n;
            if ((xtiles + tiles - 1) / tiles != n) continue; // the same as fewer
            const double cost = ceil((double)(qtiles * n) / slots) * ((double)tiles + 2 + K / 16.0);
            if (cost < best) {
                best = cost;
                splits = n;
            }
        }
        int64_t budget = c.free_bytes() / 4;
        if (c.cap_left() / 2 < budget) budget = c.cap_left() / 2;
        const int64_t per_tile = NQ * (2 * K + OV) * (int64_t)isz;
        while (splits > 1 && splits * qtiles * per_tile > budget) --splits;
        batch = budget / (splits * per_tile);
        if (batch > qtiles) batch = qtiles;
        if (batch < 1) batch = 1;
        tps = (xtiles + splits - 1) / splits;
        splits = (xtiles + tps - 1) / tps;
        /* X from the host in units of whole splits, each on a stream of
         * its own: a unit's splits start once its rows have arrived, while
         * the rest are still on their way (the first unit the smallest).
         * One unit where X is small or the queries take one split. */
        if (up_x && (size_t)(mx * d) * es >= ((size_t)16 << 20)) {
            const int q = gd_knn_units(3);
            units = splits < q ? (int)splits : q;
        }
        char what[128];
        gd_describe(what, sizeof what, "the neighbour lists", splits * batch * NQ, 2 * K, GD_INT32);
        dL = c.alloc((size_t)(splits * batch * per_tile), what);
        dM = c.alloc((size_t)(splits * batch * NQ) * sizeof(int2), "list lengths");
        return c.ok();
    }

    /* the padded layouts (X's padding cleared where its rows come from the
     * host in units), the rows' norms, minkowski's p, the poison */
    void prepare()
    {
        c.begin(GD_PHASE_PREP, st);
        pad_operands<T>(c, st, up_x ? NULL : dX, dXp, mx, mp, dY, dYp, my, np, d, kp, dInfo, metric,
                        fa.md);
        if (up_x) {
            /* X's padding (rows past mx, features past d), before its rows
             * land beside it on the same stream */
            cudaStream_t cs = gd_copy_stream();
            if (mp > mx)
                c.cuda(cudaMemset2DAsync((char *)dXp + (size_t)mx * es, (size_t)mp * es, 0,
                                         (size_t)(mp - mx) * es, (size_t)kp, cs),
                       "clearing X's padding");
            if (kp > d)
                c.cuda(cudaMemsetAsync((char *)dXp + (size_t)(d * mp) * es, 0,
                                       (size_t)((kp - d) * mp) * es, cs),
                       "clearing X's padding");
        }
        c.launched("preparing the operands");
        c.poison(dD, (size_t)(K * my) * es, st, "poisoning D");
        c.poison(dI, (size_t)(K * my) * 4, st, "poisoning I");
        c.end(GD_PHASE_PREP, st);
        fa.Xp = dXp;
        fa.Yp = dYp;
        fa.mp = mp;
        fa.np = np;
        fa.kp = kp;
        fa.mx = mx;
        fa.my = my;
        fa.d = d;
        fa.K = K;
        fa.tps = tps;
        fa.largest = largest;
        fa.all = (item<T> *)dL;
        fa.meta = (int2 *)dM;
    }

    /* the first batch of queries with X from the host: X's units are
     * the pipeline's, each on a stream of its own: a unit's rows
     * uploaded (gathered on the host while the units before it compute),
     * then its rows' norms and its splits queued behind them. The kernels'
     * time from the first unit's arrival. */
    void first_batch_in_units(int64_t nb)
    {
        gd_pipeline pl(c, st, gd_stream2(), gd_stream_hi());
        for (int p = 0; p < units && c.ok(); ++p) {
            const int64_t s0 = splits * p / units, s1 = splits * (p + 1) / units;
            const int64_t r0 = s0 * tps * gd_tile::BIG;
            int64_t r1 = s1 * tps * gd_tile::BIG;
            if (r1 > mx) r1 = mx;
            if (!pl.upload((char *)dXp + (size_t)r0 * es, (size_t)mp * es,
                           (const char *)Xc.ptr + (size_t)r0 * es, (size_t)Xc.ld * es,
                           (size_t)(r1 - r0) * es, (size_t)d, "copy of X to the GPU"))
                break;
            if (p == 0) pl.units_begin(GD_PHASE_KERNEL); /* X's first rows are here */
            const cudaStream_t cs = pl.stream();
            if (dInfo && r1 > r0) /* the unit's rows' norms and NaN flags */
                row_info<T><<<gd_blocks_for(r1 - r0, 256), 256, 0, cs>>>(
                    dXp + r0, mp, r1 - r0, d, (T *)fa.md.nx + r0, (unsigned char *)fa.md.fx + r0);
            fa.split0 = s0;
            fk.launch(dim3((unsigned)nb, (unsigned)s1), NT, dyn, cs, fa);
            pl.unit_done("the neighbour kernels");
        }
        pl.end();
        c.begin(GD_PHASE_KERNEL, st); /* the merge and the later batches */
    }

    /* every batch of query tiles through the fused kernel and the merge */
    void compute()
    {
        if (!up_x) c.begin(GD_PHASE_KERNEL, st);
        for (int64_t qt0 = 0; qt0 < qtiles && c.go_on(st, "query tile", (double)qt0, (double)qtiles);
             qt0 += batch) {
            const int64_t nb = qtiles - qt0 < batch ? qtiles - qt0 : batch;
            fa.qt0 = qt0;
            fa.nqt = nb;
            fa.split0 = 0;
            if (qt0 > 0 || !up_x)
                fk.launch(dim3((unsigned)nb, (unsigned)splits), NT, dyn, st, fa);
            else
                first_batch_in_units(nb);
            const int64_t warps = nb * NQ;
            if (c.ok())
                knn_final<T><<<(unsigned)((warps + 7) / 8), 256, 0, st>>>(
                    (item<T> *)dL, (const int2 *)dM, nb, splits, NQ, K, K, qt0, my, largest, dD,
                    dI);
            c.launched("the neighbour kernels");
        }
        c.end(GD_PHASE_KERNEL, st);
    }

    /* D down (or kept), I widened to its class on the device (kept) or
     * through the host's conversion, as the cpu variant's */
    void deliver(gd_timing *t)
    {
        const T *rD = dD;
        const int32_t *rI = dI;
        int64_t r = K, cl = my;
        if (by_query && c.ok()) {
            gd_launch_transpose(cls, dD, K, tD, K, my, st);
            gd_launch_transpose(GD_INT32, dI, K, tI, K, my, st);
            rD = tD;
            rI = tI;
            r = my;
            cl = K;
        }
        if (keptI && c.ok()) gd_launch_widen(icls, rI, r, keptI, r, cl, st);
        c.launched("the results' layout and class");
        const cudaEvent_t computed = c.event();
        c.cuda(cudaEventRecord(computed, st), "the neighbour kernels");
        const size_t bytes = (size_t)(K * my) * es;
        if (!Dout.device) {
            char what[96];
            gd_describe(what, sizeof what, "D", r, cl, cls);
            void *h = c.host_result(Dout, bytes, what);
            if (h) c.download(h, bytes, rD, bytes, bytes, 1, computed, "copy of D from the GPU");
        }
        c.wait(st, "the neighbour kernels");
        if (Iout.device || !c.ok()) return;
        int32_t *h = (int32_t *)c.host_alloc((size_t)(K * my) * 4, "the indices");
        if (h && c.cuda(cudaMemcpy(h, rI, (size_t)(K * my) * 4, cudaMemcpyDeviceToHost),
                        "copy of I from the GPU"))
            c.check(gd_host_index_result(&Iout, h, r, cl, icls, &Dout, "I", t));
    }
};


/* Why the gemm variant does not serve a search (NULL: it does). */
const char *gemm_unfit(gd_distance metric, int64_t K, int64_t mx, int64_t d)
{
    if (metric.metric != GD_EUCLIDEAN && metric.metric != GD_SQEUCLIDEAN &&
        metric.metric != GD_COSINE)
        return "only euclidean, squaredeuclidean and cosine";
    if (gd_cc_major() < 8) return "no TF32 tensor cores (sm_80 or later)";
    return gd_knn_gemm_unfit(mx, K, d);
}

/* The gemm variant on one device: false where X holds NaN or Inf (the
 * caller runs 'fused' for every query), else true (done, or the call
 * failed). The queries it leaves run 'fused': their rows gathered, a
 * second search over X on the device, its D and I scattered into the
 * columns they belong to. */
template <class T> bool run_gemm(gd_call &c, knn_gpu<T> &g, gd_timing *t, gd_knn_share *sh)
{
    /* X from the host goes up in units inside the search (its first
     * tiles computed while the rest arrive) */
    const int64_t my = g.my, K = g.K, mx = g.mx, d = g.d;
    char what[96];
    gd_describe(what, sizeof what, "X", mx, d, g.cls);
    const T *dX = (const T *)(g.up_x ? c.alloc((size_t)(mx * d) * sizeof(T), what)
                                     : c.on_device(g.Xc, c.event(), g.st, "X"));
    const T *dY = (const T *)c.on_device(g.Yc, c.event(), g.st, "Y");
    if (!g.allocate_out()) return true;
    c.poison(g.dD, (size_t)(K * my) * sizeof(T), g.st, "poisoning D");
    c.poison(g.dI, (size_t)(K * my) * 4, g.st, "poisoning I");
    gd_knn_gemm_args a = {dX, dY, g.up_x ? &g.Xc : NULL, mx, my, mx, my, d, K,
                          g.metric.metric == GD_EUCLIDEAN, g.largest != 0, g.dD, g.dI,
                          g.metric.metric == GD_COSINE, g.up_x ? sh : NULL};
    unsigned char *fell = (unsigned char *)c.host_alloc((size_t)my + 1, "the queries' flags");
    if (!fell) return true;
    bool all = false;
    const int64_t nf = gd_knn_gemm<T>(c, a, fell, &all);
    if (all) return false;
    if (!c.ok()) return true;
    if (nf > 0) {
        int32_t *hj = (int32_t *)c.host_alloc((size_t)nf * 4, "the fallen queries");
        if (!hj) return true;
        for (int64_t j = 0, r = 0; j < my; ++j)
            if (fell[j]) hj[r++] = (int32_t)j;
        gd_describe(what, sizeof what, "the fallen queries' rows", nf, d, g.cls);
        /* their rows, D, I and places in one allocation */
        T *Ys = (T *)c.alloc((size_t)(nf * d + nf * K) * sizeof(T) + (size_t)(nf * K + nf) * 4, what);
        if (!c.ok()) return true;
        T *Ds = Ys + nf * d;
        int32_t *Is = (int32_t *)(Ds + nf * K), *dj = Is + nf * K;
        if (
            !c.cuda(cudaMemcpyAsync(dj, hj, (size_t)nf * 4, cudaMemcpyHostToDevice, g.st),
                    "the fallen queries") ||
            !c.cuda(cudaStreamSynchronize(g.st), "the fallen queries"))
            return true;
        gather_rows<T><<<gd_blocks_for(nf * d, 256), 256, 0, g.st>>>(dY, my, d, dj, nf, Ys);
        c.launched("gathering the fallen queries");
        gd_matrix Xd = {dX, GD_DEVICE, g.cls, mx, d, mx, 0};
        gd_matrix Yd = {Ys, GD_DEVICE, g.cls, nf, d, nf, 0};
        gd_out none = {};
        knn_gpu<T> h(c, Xd, Yd, g.metric, K, g.largest, none, none, GD_INT32);
        h.extD = Ds;
        h.extI = Is;
        if (h.allocate() && h.plan()) {
            h.prepare();
            h.compute();
        }
        scatter_cols<T><<<gd_blocks_for(nf * K, 256), 256, 0, g.st>>>(Ds, Is, K, dj, nf, g.dD, g.dI);
        c.launched("the fallen queries' neighbours");
    }
    snprintf(t->kernel, sizeof t->kernel, "certified candidates, # of # quer%s by fused",
             my == 1 ? "y" : "ies");
    t->counts[0] = nf;
    t->counts[1] = my;
    g.deliver(t);
    return true;
}

template <class T>
gd_status run_gpu(const gd_matrix &X0, const gd_matrix &Y0, gd_distance metric, int64_t K,
                  int largest, gd_out Dout, gd_out Iout, gd_class icls, gd_timing *t,
                  bool gemm = false, gd_knn_share *sh = NULL, bool by_query = false)
{
    gd_call c(t, gemm ? "gemm" : "fused");
    if (!c.ok()) return c.finish();
    knn_gpu<T> g(c, X0, Y0, metric, K, largest, Dout, Iout, icls);
    g.by_query = by_query;
    const char *why = gemm ? gemm_unfit(metric, K, g.mx, g.d) : NULL;
    if (gemm && !why) {
        /* what the search holds at least (X, its TF32 and by-rows forms,
         * Y's, a batch of 128 queries' records and candidates): where a
         * cap or the free memory leaves no room, 'fused' (which needs far
         * less) */
        const double need = (double)g.mx * g.d * sizeof(T) +
                            (double)gd_knn_gemm_bytes(g.mx, g.my, g.d, sizeof(T),
                                                      g.metric.metric == GD_COSINE, 0);
        int64_t room = c.free_bytes();
        if (c.cap_left() < room) room = c.cap_left();
        if (need > 0.8 * (double)room) why = "not enough GPU memory";
    }
    /* a part that does not search by gemm from the host leaves X's share
     * at once: the others upload what it would have */
    if (sh && (why || !g.up_x || !c.ok())) sh->leave(false);
    if (gemm && !why) {
        if (run_gemm(c, g, t, sh)) return c.finish();
        why = metric.metric == GD_COSINE ? "a row of X with NaN, Inf, or a zero or extreme norm"
                                         : "X holds NaN or Inf";
    }
    if (g.allocate() && g.plan()) {
        snprintf(t->kernel, sizeof t->kernel, "%s%s%s%lld split%s", gemm ? "fused (gemm: " : "",
                 gemm ? why : "", gemm ? "), " : "", (long long)g.splits, g.splits > 1 ? "s" : "");
        if (g.units > 1) {
            const size_t at = strlen(t->kernel);
            snprintf(t->kernel + at, sizeof t->kernel - at, ", X in %d units", g.units);
        }
        g.prepare();
        g.compute();
        g.deliver(t);
    }
    return c.finish();
}

/* ---------------------------------------------------------------------
 * Across devices. Where Y has as many rows as X or more, or the variant is
 * gemm, each device takes a range of queries (Y's rows: D's and I's
 * columns, contiguous) with the whole of X. Where X is the larger (fused),
 * each takes a range of X's rows with
 * every query and finds each query's K nearest among its rows; the host
 * then merges the devices' lists in the kernels' own order, (key, row):
 * a candidate's distance does not depend on which rows share its tile,
 * so the K least of the union are the one-device result, ties included. */
