/* ops/apsp/devices.cuh - Floyd-Warshall across devices: the slabs, the rounds' exchange, P on the first device, the results.
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
/* ---------------------------------------------------------------------
 * Floyd-Warshall across devices (D, and P after): device e owns the rows
 * of a slab of blocks [row0, row1) of D (all columns) and holds them
 * alone, an array of the slab's rows (rows x np, leading dimension rows =
 * row1 - row0; apsp_run's d0 and ldd), as it holds W's rows of its slab
 * and, with P, the tags of its rows: the memory of the rounds divides
 * with the devices (with P the first device then gathers all of D and the
 * tags, and holds all of W, for the chain: fw_chain). Round K:
 *   the owner of K's rows closes D(K,K) (fw_diag), relaxes its rows of
 *   the column panel against it (step 2) and publishes the closed block
 *   transposed and the row panel transposed, as the one-device rounds
 *   copy them;
 *   every other device pulls both (peer copies, on its own stream after
 *   the owner's event) and relaxes its rows of the column panel;
 *   every device relaxes its slab against the column panel's rows it owns
 *   and the row panel (step 3).
 * Each element goes through the kernels and operands of the one-device
 * rounds in their order (the lookahead there only reorders disjoint
 * elements), so D is the one-device D bit for bit. One host thread queues
 * the rounds on every device (all of it is queued work), which also
 * serves devices simulated on one GPU; the copies between the host and
 * the devices run on the devices' own threads (gd_run_parts), each
 * device uploading its slab's rows of W and downloading its slab's rows
 * of D, beside the others. */
struct fw_device {
    apsp_run r;
    /* the device's call (r.call): its memory, events and timed phases;
     * made by its first part (fw_upload_part, on its thread), ended by
     * fw_end on every path */
    gd_call *call;
    alignas(gd_call) unsigned char call_mem[sizeof(gd_call)];
    int index, ord;
    int64_t row0, row1; /* the slab, multiples of FB */
    cudaStream_t L;     /* steps 1 and 2 of the next round (lookahead) */
    void *Acol, *Ac[2], *Dkt[2], *Bt[2];
    cudaEvent_t published, pulled, cross, ready;
    bool pulled_once;
    unsigned long long range[2]; /* an integer W: its slab's (weight_range) */
    int repaired;                /* its rows of P chosen again (apsp_run::trees) */
    gd_timing t;
};

static void on_device(const fw_device &f)
{
    gd_use_device_index(f.index);
    cudaSetDevice(f.ord);
}

/* Round R's steps 1 and 2 on each device's lookahead stream L, after its
 * event cross (the part of round R - 1's step 3 they read): the owner of
 * R's rows closes the diagonal block, relaxes its rows of the column
 * panel and publishes the copies of buffers R & 1; the others pull them
 * and relax their rows of the column panel. Each records ready. */
template <class T>
static gd_status fw_close(fw_device *dv, int nd, int64_t R, bool nonneg)
{
    const int64_t k0 = R * FB, np = dv[0].r.np;
    const size_t es = sizeof(T);
    const int b = (int)(R & 1), tag = ~(int)R;
    int o = 0;
    while (!(dv[o].row0 <= k0 && k0 < dv[o].row1)) ++o;
    gd_status s;
    for (int pass = 0; pass < 2; ++pass) /* the owner first: its event is waited for */
        for (int e = 0; e < nd; ++e) {
            if ((e == o) != (pass == 0)) continue;
            fw_device &f = dv[e];
            on_device(f);
            cudaStream_t L = f.L;
            const int64_t rows = f.row1 - f.row0;
            /* the slab's rows of D: row i, column j at d[i - row0 + rows j]
             * (and of P's tags, p, alike) */
            T *d = (T *)f.r.D;
            int *p = f.r.chain ? (int *)f.r.P : NULL;
            if ((s = gd_cuda(cudaStreamWaitEvent(L, f.cross, 0), "a Floyd-Warshall round")))
                return s;
            if (e == o) {
                /* the others took the copies of two rounds ago */
                for (int x = 0; x < nd; ++x)
                    if (x != o && dv[x].pulled_once) cudaStreamWaitEvent(L, dv[x].pulled, 0);
                T *dkk = d + (k0 - f.row0) + rows * k0;
                if ((s = launch_fw_diag<T>(dkk, p ? p + (k0 - f.row0) + rows * k0 : NULL, NULL,
                                           rows, 0, tag, L)))
                    return s;
                gd_launch_transpose(f.r.cls, dkk, rows, f.Dkt[b], FB, FB, L);
            } else {
                if ((s = gd_cuda(cudaStreamWaitEvent(L, dv[o].published, 0), "a Floyd-Warshall round")) ||
                    (s = gd_peer_copy(f.Dkt[b], f.ord, dv[o].Dkt[b], dv[o].ord, FB * FB * es, L,
                                      "the diagonal block's copy between devices")))
                    return s;
            }
            /* its rows of the column panel: one contiguous piece */
            T *dcol = d + rows * k0;
            cudaMemcpyAsync(f.Acol, dcol, (size_t)(rows * FB) * es, cudaMemcpyDeviceToDevice, L);
            int *pcol = p ? p + rows * k0 : NULL;
            const gd_tile::relax<T> col = {dcol, dcol, rows, pcol, pcol, NULL, FB,
                                           NULL, NULL, NULL, NULL, NULL, np, tag};
            relax_product<T>((const T *)f.Acol, rows, (const T *)f.Dkt[b], FB, rows, FB, FB, col,
                             nonneg, L);
            cudaMemcpyAsync(f.Ac[b], dcol, (size_t)(rows * FB) * es, cudaMemcpyDeviceToDevice, L);
            if (e == o) {
                gd_launch_transpose(f.r.cls, d + (k0 - f.row0), rows, f.Bt[b], FB, np, L);
                s = gd_cuda(cudaEventRecord(f.published, L), "a Floyd-Warshall round");
            } else {
                s = gd_peer_copy(f.Bt[b], f.ord, dv[o].Bt[b], dv[o].ord, (size_t)(np * FB) * es, L,
                                 "the row panel's copy between devices");
                if (!s) s = gd_cuda(cudaEventRecord(f.pulled, L), "a Floyd-Warshall round");
                f.pulled_once = true;
            }
            if (!s) s = gd_cuda(cudaEventRecord(f.ready, L), "a Floyd-Warshall round");
            if (!s) s = gd_cuda(cudaGetLastError(), "a Floyd-Warshall round");
            if (s) return s;
        }
    return GD_OK;
}

/* Round r's step 3 on each device's stream, after its ready: first the
 * next round's column panel (its rows) and, on the next round's owner,
 * its row panel (the cross), recording cross; then fw_close of the next
 * round; then the rest of the slab, without the cross. */
template <class T>
static gd_status fw_round(fw_device *dv, int nd, int64_t r, int64_t rounds, bool nonneg)
{
    const int64_t np = dv[0].r.np, kn = (r + 1) * FB;
    const bool next = r + 1 < rounds;
    const int b = (int)(r & 1), tag = ~(int)r;
    gd_status s;
    for (int e = 0; e < nd; ++e) {
        fw_device &f = dv[e];
        on_device(f);
        cudaStream_t st = f.r.st;
        const int64_t rows = f.row1 - f.row0;
        T *d = (T *)f.r.D;
        int *p = f.r.chain ? (int *)f.r.P : NULL;
        const T *A = (const T *)f.Ac[b], *B = (const T *)f.Bt[b];
        if ((s = gd_cuda(cudaStreamWaitEvent(st, f.ready, 0), "a Floyd-Warshall round"))) return s;
        if (next) {
            int *pc = p ? p + rows * kn : NULL;
            const gd_tile::relax<T> col = {d + rows * kn, d + rows * kn, rows, pc,
                                           pc, NULL, FB, NULL, NULL, NULL, NULL, NULL, np, tag};
            relax_product<T>(A, rows, B + kn, np, rows, FB, FB, col, nonneg, st);
            if (f.row0 <= kn && kn < f.row1) {
                T *dk = d + (kn - f.row0);
                int *pk = p ? p + (kn - f.row0) : NULL;
                const gd_tile::relax<T> row = {dk, dk, rows, pk, pk, NULL, FB, NULL,
                                               NULL, NULL, NULL, NULL, np, tag};
                relax_product<T>(A + (kn - f.row0), rows, B, np, FB, np, FB, row, nonneg, st,
                                 gd_tile::hole{0, 0, kn, FB});
            }
        }
        if ((s = gd_cuda(cudaEventRecord(f.cross, st), "a Floyd-Warshall round"))) return s;
    }
    if (next && (s = fw_close<T>(dv, nd, r + 1, nonneg))) return s;
    for (int e = 0; e < nd; ++e) {
        fw_device &f = dv[e];
        on_device(f);
        const int64_t rows = f.row1 - f.row0;
        T *d = (T *)f.r.D;
        int *p = f.r.chain ? (int *)f.r.P : NULL;
        const bool mine = f.row0 <= kn && kn < f.row1;
        const gd_tile::hole h = !next ? gd_tile::hole{0, 0, 0, 0}
                                      : gd_tile::hole{mine ? kn - f.row0 : 0, mine ? FB : 0, kn, FB};
        const gd_tile::relax<T> all = {d, d, rows, p, p, NULL, FB, NULL,
                                       NULL, NULL, NULL, NULL, np, tag};
        relax_product<T>((const T *)f.Ac[b], rows, (const T *)f.Bt[b], np, rows, np, FB, all,
                         nonneg, f.r.st, h);
        if ((s = gd_cuda(cudaGetLastError(), "a Floyd-Warshall round"))) return s;
    }
    return GD_OK;
}

/* The call across devices; what the devices' threads share: the call's
 * W, its host results, the devices. */
struct fw_call {
    fw_device *dv;
    const gd_matrix *W;
    gd_out *D, *P; /* host results (P: NULL where not asked) */
    gd_class pcls;
    int nd;
    int64_t n, np, blocks;
    gd_class cls;     /* the rounds' (an integer W's from its range) */
    size_t es;
    int at;           /* the device where the call failed (-1: the parts name theirs) */
    gd_timing parts;  /* gd_run_parts's; each device's times are in its t */
    /* with P, on the first device: all of D (gathered for the zero-cycle
     * check) and all of P (from the slabs' tags by the chain) */
    void *whole, *wholeP;
    bool fallback;    /* the chain gave way to the last edges */
};

/* Part e (on device e's thread): W's rows of its slab uploaded, an array
 * of those rows alone (all of W where P is asked: the predecessors'
 * product reads it whole), and an integer W's range over the slab. */
static gd_status fw_upload_part(void *c, int e, int, gd_timing *)
{
    fw_call &x = *(fw_call *)c;
    fw_device &f = x.dv[e];
    const gd_matrix &W = *x.W;
    gd_status s;
    f.call = new (f.call_mem) gd_call(&f.t, "fw");
    if ((s = f.call->status())) return s;
    f.r.call = f.call;
    f.r.al = f.call->allocs();
    f.r.st = gd_stream();
    const int64_t n = f.r.n, last = f.row1 < n ? f.row1 : n, rows = last - f.row0;
    const size_t wes = gd_class_bytes(W.cls);
    void *w = NULL;
    char what[96];
    /* the rows held: the slab's (w0 its first, ldw their count), or, on
     * the first device with P, all of W (the chain's fallback and P's
     * repair read it whole there) */
    const bool all = x.P && e == 0;
    const int64_t u0 = all ? 0 : f.row0, un = all ? n : rows;
    f.r.w0 = u0;
    f.r.ldw = un;
    gd_describe(what, sizeof what, all ? "W" : "W's rows", un, n, W.cls);
    gd_call &k = *f.call;
    f.r.flags = (int *)k.alloc(2 * sizeof(unsigned long long), "the flags");
    if ((w = k.alloc((size_t)(un * n) * wes, what))) {
        f.r.w = w;
        gd_pipeline pl(k, f.r.st, gd_stream2());
        pl.upload(w, (size_t)un * wes, (const char *)W.ptr + (size_t)u0 * wes,
                  (size_t)W.ld * wes, (size_t)un * wes, (size_t)n, "W");
        pl.end();
    }
    if (k.ok()) k.check(gd_copies_finish());
    if (k.ok() && gd_class_is_int(W.cls)) k.check(f.r.weight_range_of(f.row0, rows, f.range));
    gd_copies_end();
    return k.status();
}

/* Rows [row0, row0 + rows) of an n-column host result (ld n elements of
 * es bytes) from src (their first column; pitch sp bytes), an output of
 * the pipeline's unit that ends with done, downloaded from column c0
 * round to c0 - 1: devices downloading beside one another start on
 * different columns, so their threads first touch (and the kernel clears)
 * different pages of the fresh result. */
static void download_rows(gd_pipeline &pl, void *dst, size_t es, int64_t n, int64_t row0,
                          int64_t rows, const void *src, size_t sp, int64_t c0, cudaEvent_t done,
                          const char *what)
{
    const int64_t from[2] = {c0, 0}, to[2] = {n, c0};
    for (int q = 0; q < 2; ++q)
        if (to[q] > from[q])
            pl.download((char *)dst + (size_t)(row0 + from[q] * n) * es, (size_t)n * es,
                        (const char *)src + (size_t)from[q] * sp, sp, (size_t)rows * es,
                        (size_t)(to[q] - from[q]), done, what);
}

/* Part e (on device e's thread): its slab's rows of D (an integer W's in
 * its class) into the host result, and on the first device all of P
 * (fw_chain's, in its class): two units of a pipeline, D's going down
 * while P's class is made. */
static gd_status fw_results_part(void *c, int e, int nd, gd_timing *)
{
    fw_call &x = *(fw_call *)c;
    fw_device &f = x.dv[e];
    on_device(f);
    gd_copies_begin(&f.t);
    gd_call &k = *f.call;
    const int64_t n = f.r.n, np = f.r.np, last = f.row1 < n ? f.row1 : n, rows = last - f.row0;
    const int64_t c0 = n * e / nd, held = f.row1 - f.row0;
    const gd_class wcls = x.W->cls, cls = f.r.cls;
    const size_t es = f.r.es, wes = gd_class_bytes(wcls), pes = gd_class_bytes(x.pcls);
    void *tightD = NULL, *tightP = NULL;
    const bool p_here = x.P && e == 0 && n > 0;
    if (rows > 0 && wcls != cls) tightD = k.alloc((size_t)(rows * n) * wes, "D's rows");
    if (p_here) tightP = k.alloc((size_t)(n * n) * pes, "P");
    if (rows > 0 && k.ok()) {
        gd_pipeline pl(k, f.r.st, gd_stream2());
        /* D's rows: in W's class (a tight copy), or as they are */
        pl.units_begin(GD_PHASE_PREP);
        if (tightD)
            gd_with_int_class(wcls, apsp_run::to_class_fn{f.r, tightD, rows, f.row0, rows, NULL,
                                                          pl.stream()});
        const cudaEvent_t d_done = pl.unit_done("the results' layout");
        pl.units_end();
        if (tightD)
            download_rows(pl, x.D->ptr, wes, n, f.row0, rows, tightD, (size_t)rows * wes, c0,
                          d_done, "copy of D from the GPU");
        else
            download_rows(pl, x.D->ptr, wes, n, f.row0, rows, f.r.D, (size_t)held * es, c0,
                          d_done, "copy of D from the GPU");
        pl.flush(); /* no inputs to come: D goes down while P's class is made */
        if (p_here) {
            pl.units_begin(GD_PHASE_PREP);
            gd_launch_widen(x.pcls, (const int *)x.wholeP, np, tightP, n, n, f.r.st);
            const cudaEvent_t p_done = pl.unit_done("the predecessors' class");
            pl.units_end();
            pl.download(x.P->ptr, (size_t)(n * n) * pes, tightP, (size_t)(n * n) * pes,
                        (size_t)(n * n) * pes, 1, p_done, "copy of P from the GPU");
        }
        pl.end();
    }
    if (k.ok()) k.check(gd_copies_finish());
    if (k.ok()) k.cuda(cudaStreamSynchronize(f.r.st), "the shortest paths");
    gd_copies_end();
    return k.status();
}

/* The devices' slabs (rows of blocks) and their apsp_runs, before the
 * upload */
static void fw_begin(fw_call &x, fw_device *dv, int nd, const int *idx)
{
    const gd_matrix &W = *x.W;
    x.dv = dv;
    x.nd = nd;
    x.n = W.rows;
    x.np = gd_round_up(x.n, FB);
    x.blocks = x.np / FB;
    x.cls = W.cls;
    x.es = gd_class_bytes(W.cls);
    x.at = -1;
    for (int e = 0; e < nd; ++e) {
        fw_device &f = dv[e];
        f.index = idx[e];
        f.ord = gd_device_ordinal(idx[e]);
        f.row0 = x.blocks * e / nd * FB;
        f.row1 = x.blocks * (e + 1) / nd * FB;
        f.r.cls = f.r.wcls = W.cls;
        f.r.es = x.es;
        f.r.n = x.n;
        f.r.np = x.np;
    }
}

/* an integer W: the rounds' class from every slab's range */
static gd_status fw_class(fw_call &x)
{
    fw_device *dv = x.dv;
    unsigned long long r[2] = {0, 0};
    for (int e = 0; e < x.nd; ++e) {
        r[0] = dv[e].range[0] > r[0] ? dv[e].range[0] : r[0];
        r[1] |= dv[e].range[1];
    }
    on_device(dv[0]);
    gd_status s = dv[0].r.exact_class_of(r);
    if (s) return s;
    x.cls = dv[0].r.cls;
    x.es = gd_class_bytes(x.cls);
    for (int q = 0; q < x.nd; ++q) {
        dv[q].r.cls = x.cls;
        dv[q].r.es = x.es;
    }
    return GD_OK;
}

/* Each device's slab of D, its panels and events, D filled from W; then
 * the flags of every slab together: a NaN anywhere, the first negative
 * self-loop, whether every weight is non-negative */
static gd_status fw_prepare(fw_call &x, int64_t *cycle_vertex)
{
    const gd_class cls = x.cls;
    const int64_t np = x.np;
    gd_status s = GD_OK;
    for (int e = 0; e < x.nd && !s; ++e) {
        fw_device &f = x.dv[e];
        on_device(f);
        x.at = e;
        const int64_t rows = f.row1 - f.row0;
        /* its slab's rows of D alone */
        f.r.d0 = f.row0;
        f.r.ldd = rows;
        if ((s = f.r.alloc(&f.r.D, rows, np, cls, "D's rows"))) break;
        /* with P, its rows' tags (the chain's, after the rounds) */
        f.r.wp = f.r.chain = x.P != NULL;
        if (x.P && (s = f.r.alloc(&f.r.P, rows, np, GD_INT32, "P's rows"))) break;
        f.L = gd_stream_hi();
        if ((s = f.r.alloc(&f.Acol, rows, FB, cls, "the column panel")) ||
            (s = f.r.alloc(&f.Ac[0], rows, FB, cls, "the column panel")) ||
            (s = f.r.alloc(&f.Ac[1], rows, FB, cls, "the column panel")) ||
            (s = f.r.alloc(&f.Dkt[0], FB, FB, cls, "the diagonal block")) ||
            (s = f.r.alloc(&f.Dkt[1], FB, FB, cls, "the diagonal block")) ||
            (s = f.r.alloc(&f.Bt[0], np, FB, cls, "the row panel")) ||
            (s = f.r.alloc(&f.Bt[1], np, FB, cls, "the row panel")))
            break;
        cudaEvent_t *evs[4] = {&f.published, &f.pulled, &f.cross, &f.ready};
        for (int q = 0; q < 4 && !s; ++q)
            s = gd_cuda(cudaEventCreateWithFlags(evs[q], cudaEventDisableTiming),
                        "cudaEventCreate");
        if (s) break;
        /* its slab of D (and the flags of its rows of W) */
        f.call->begin(GD_PHASE_PREP, f.r.st);
        if ((s = f.r.fill_launch(f.row0, rows))) break;
        f.call->end(GD_PHASE_PREP, f.r.st);
    }
    int fl[2] = {0, 0x7fffffff};
    for (int e = 0; e < x.nd && !s; ++e) {
        on_device(x.dv[e]);
        x.at = e;
        int f[2] = {0, 0x7fffffff};
        if ((s = x.dv[e].r.fill_read(f))) break;
        fl[0] |= f[0];
        if ((f[0] & F_NEGDIAG) && f[1] < fl[1]) fl[1] = f[1];
    }
    if (s) return s;
    x.at = 0;
    if ((s = x.dv[0].r.fill_verdict(fl, cycle_vertex))) return s;
    for (int e = 1; e < x.nd; ++e) x.dv[e].r.nonneg = x.dv[0].r.nonneg;
    return GD_OK;
}

/* every round on every device, timed from the fill to the last */
template <class T> static gd_status fw_all_rounds(fw_call &x)
{
    fw_device *dv = x.dv;
    const bool nonneg = dv[0].r.nonneg;
    for (int e = 0; e < x.nd; ++e) {
        on_device(dv[e]);
        dv[e].call->begin(GD_PHASE_KERNEL, dv[e].r.st);
        cudaEventRecord(dv[e].cross, dv[e].r.st); /* round 0's panels follow the fill */
    }
    gd_status s = fw_close<T>(dv, x.nd, 0, nonneg);
    for (int64_t r = 0; r < x.blocks && !s; ++r) {
        /* Ctrl-C and the pace on the first device (the others go with it) */
        on_device(dv[0]);
        if (!dv[0].call->go_on(dv[0].r.st, "round", (double)r, (double)x.blocks)) {
            x.at = -1;
            s = dv[0].call->status();
            break;
        }
        s = fw_round<T>(dv, x.nd, r, x.blocks, nonneg);
    }
    for (int e = 0; e < x.nd; ++e) {
        /* the stream goes on after everything on L */
        on_device(dv[e]);
        cudaEventRecord(dv[e].ready, dv[e].L);
        cudaStreamWaitEvent(dv[e].r.st, dv[e].ready, 0);
        dv[e].call->end(GD_PHASE_KERNEL, dv[e].r.st);
    }
    return s;
}

/* a negative cycle: the first vertex of any slab with a negative diagonal
 * entry (*cycle_vertex and GD_ERR_NEGCYCLE) */
static gd_status fw_negative(fw_call &x, int64_t *cycle_vertex)
{
    int64_t neg = 0;
    gd_status s = GD_OK;
    for (int e = 0; e < x.nd && !s; ++e) {
        fw_device &f = x.dv[e];
        on_device(f);
        x.at = e;
        const int64_t last = f.row1 < x.n ? f.row1 : x.n;
        if (last <= f.row0) continue;
        const int start[2] = {0, 0x7fffffff};
        int fl[2];
        cudaStream_t st = f.r.st;
        if ((s = gd_cuda(cudaMemcpyAsync(f.r.flags, start, sizeof start, cudaMemcpyHostToDevice, st),
                         "clearing the flags")))
            break;
        /* D(row0, row0) is the slab's element (0, row0); D(i, i) then
         * every rows + 1 */
        const unsigned bl = gd_blocks_for(last - f.row0, 256);
        const int64_t held = f.row1 - f.row0;
        if (x.cls == GD_SINGLE)
            apsp_diag<float><<<bl, 256, 0, st>>>((const float *)f.r.D + f.row0 * held,
                                                 last - f.row0, held, f.r.flags);
        else
            apsp_diag<double><<<bl, 256, 0, st>>>((const double *)f.r.D + f.row0 * held,
                                                  last - f.row0, held, f.r.flags);
        if ((s = read_back(fl, f.r.flags, sizeof fl, st, "the diagonal check"))) break;
        if ((fl[0] & F_NEGCYCLE) && !neg) neg = f.row0 + fl[1];
    }
    if (s || !neg) return s;
    *cycle_vertex = neg;
    return gd_fail(GD_ERR_NEGCYCLE, "the graph has a negative cycle: a closed path through "
                   "vertex %lld has negative length", (long long)neg);
}

/* P: a cycle of weight 0 is looked for in the whole D, gathered
 * on the first device (an np x np array made for it); *zero when found */
static gd_status fw_zero_cycle(fw_call &x, bool *zero)
{
    fw_device &f0 = x.dv[0];
    on_device(f0);
    x.at = 0;
    gd_status s = f0.r.alloc(&x.whole, x.np, x.np, x.cls, "D");
    for (int e = 0; e < x.nd && !s; ++e) {
        const fw_device &f = x.dv[e];
        const size_t held = (size_t)(f.row1 - f.row0) * x.es;
        s = gd_peer_copy_2d((char *)x.whole + (size_t)f.row0 * x.es, (size_t)x.np * x.es, f0.ord,
                            f.r.D, held, f.ord, held, (size_t)x.np, f0.r.st,
                            "D's rows between devices");
    }
    if (!s) s = f0.r.zero_cycle(zero, x.whole);
    return s;
}

/* P (no cycle of weight 0) on the first device: the slabs' tags
 * gathered beside all of D, the chain over the whole (the one-device
 * run's P, bit for bit), the trees checked and repaired */
static gd_status fw_chain(fw_call &x)
{
    fw_device &f0 = x.dv[0];
    on_device(f0);
    x.at = 0;
    gd_status s = f0.r.alloc(&x.wholeP, x.np, x.np, GD_INT32, "P");
    for (int e = 0; e < x.nd && !s; ++e) {
        const fw_device &f = x.dv[e];
        const size_t held = (size_t)(f.row1 - f.row0) * sizeof(int);
        s = gd_peer_copy_2d((char *)x.wholeP + (size_t)f.row0 * sizeof(int),
                            (size_t)x.np * sizeof(int), f0.ord, f.r.P, held, f.ord, held,
                            (size_t)x.np, f0.r.st, "P's rows between devices");
    }
    if (s) return s;
    /* the first device's run, over the whole arrays */
    apsp_run v = f0.r;
    v.D = x.whole;
    v.P = x.wholeP;
    v.d0 = v.ldd = 0;
    v.Dt = v.Dk = v.Wk = NULL;
    f0.call->begin(GD_PHASE_KERNEL, v.st);
    s = x.cls == GD_SINGLE ? v.chain_pass<float>(&x.fallback) : v.chain_pass<double>(&x.fallback);
    if (!s) s = v.trees(0, -1, &f0.repaired);
    f0.call->end(GD_PHASE_KERNEL, v.st);
    return s;
}

/* every device's end, on every path: its call ended (its memory freed,
 * its phases' times read), its events freed, its times folded into t
 * (each phase the longest device's), the failure named by its device;
 * this thread back on its device (mine) */
static gd_status fw_end(fw_call &x, gd_status s, int mine, gd_timing *t)
{
    if ((s == GD_ERR_MEMORY || s == GD_ERR_CUDA) && x.at >= 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", gd_last_error());
        on_device(x.dv[x.at]);
        s = gd_fail(s, "device %d (%s): %s", x.dv[x.at].index + 1, gd_device_name(), msg);
    }
    t->devices = x.nd;
    bool repaired = false;
    for (int e = 0; e < x.nd; ++e) {
        fw_device &f = x.dv[e];
        repaired |= f.repaired > 0;
        if (!f.call) continue; /* never started */
        on_device(f);
        f.call->check(s);
        gd_status se = f.call->finish();
        f.call->~gd_call();
        f.call = NULL;
        const cudaEvent_t evs[4] = {f.published, f.pulled, f.cross, f.ready};
        for (cudaEvent_t ev : evs)
            if (ev) cudaEventDestroy(ev);
        if (!s && se) s = se;
        t->device_idx[e] = f.index;
        t->upload_ms = f.t.upload_ms > t->upload_ms ? f.t.upload_ms : t->upload_ms;
        t->download_ms = f.t.download_ms > t->download_ms ? f.t.download_ms : t->download_ms;
        t->prep_ms = f.t.prep_ms > t->prep_ms ? f.t.prep_ms : t->prep_ms;
        t->kernel_ms = f.t.kernel_ms > t->kernel_ms ? f.t.kernel_ms : t->kernel_ms;
        t->gpu_bytes += f.t.gpu_bytes;
    }
    gd_use_device_index(mine);
    cudaSetDevice(gd_ordinal());
    snprintf(t->variant, sizeof t->variant, "fw");
    const char *more = !x.P         ? "rows of blocks"
                       : x.fallback ? (repaired ? "rows of blocks, P from the last edges, repaired"
                                                : "rows of blocks, P from the last edges")
                       : repaired   ? "rows of blocks, P from the tags, repaired"
                                    : "rows of blocks, P from the tags";
    if (x.W->cls == GD_DOUBLE)
        snprintf(t->kernel, sizeof t->kernel, "double, %s", more);
    else
        x.dv[0].r.kernel_name(t->kernel, sizeof t->kernel, more);
    snprintf(t->device, sizeof t->device, "%.200s x %d", x.nd ? gd_device_name() : "", x.nd);
    return s;
}

static gd_status fw_devices(const gd_matrix &W, gd_out Dout, const gd_out *P0, gd_class pcls,
                            int64_t *cycle_vertex, int nd, const int *idx, gd_timing *t,
                            bool *redo)
{
    *redo = false;
    fw_device dv[GD_MAX_DEVICES];
    memset(dv, 0, sizeof dv);
    const int mine = gd_device_index();
    gd_out Pout = {};
    if (P0) Pout = *P0;
    fw_call x = {};
    x.W = &W;
    x.D = &Dout;
    x.P = P0 ? &Pout : NULL;
    x.pcls = pcls;
    fw_begin(x, dv, nd, idx);
    /* W (a host matrix: resident data stays on one device): each device
     * uploads its slab's rows (all of W where P is asked), beside the
     * others */
    gd_status s = gd_run_parts(nd, idx, fw_upload_part, &x, &x.parts);
    if (!s && gd_class_is_int(W.cls)) s = fw_class(x);
    if (!s) s = fw_prepare(x, cycle_vertex);
    /* D's host result made, and its pages touched while the rounds run
     * (with P it waits: a cycle of weight 0 runs the call again
     * elsewhere) */
    if (!s && !P0) {
        x.at = -1;
        s = dv[0].r.host_results(Dout, NULL, pcls);
    }
    if (!s) s = x.cls == GD_SINGLE ? fw_all_rounds<float>(x) : fw_all_rounds<double>(x);
    if (!s) s = fw_negative(x, cycle_vertex);
    /* P without a cycle of weight 0: from the slabs' tags and all
     * of D on the first device (fw_chain), as one device's run finds it,
     * bit for bit. With one (P may go round it), nothing is kept: the
     * call runs again on one device, with the edge counts (*redo). */
    if (!s && P0) s = fw_zero_cycle(x, redo);
    if (!s && P0 && !*redo) s = fw_chain(x);
    /* the host results, then each device's rows of P and D into them, the
     * devices beside one another */
    char what[96];
    if (!s && !*redo) {
        x.at = -1;
        if (P0) {
            gd_describe(what, sizeof what, "P", x.n, x.n, pcls);
            s = gd_out_buffer(&Pout, (size_t)(x.n * x.n) * gd_class_bytes(pcls), what);
        }
        gd_describe(what, sizeof what, "D", x.n, x.n, W.cls);
        if (!s) s = gd_out_buffer(&Dout, (size_t)(x.n * x.n) * gd_class_bytes(W.cls), what);
        dv[0].r.settle();
        if (!s) s = gd_run_parts(nd, idx, fw_results_part, &x, &x.parts);
    }
    dv[0].r.settle();
    return fw_end(x, s, mine, t);
}

