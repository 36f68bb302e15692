/* ops/apsp/run.cuh - apsp_run: one device's D (and P) from W, its rounds, P, the results.
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
/* The GPU variants' common run: D (and P) on the device from W, the
 * variant's rounds, the negative-cycle check, the results. */
/* After the launches queued on st: their error, then bytes of the device's
 * src (flags, a count) into the host's dst, waited for; what names the
 * work */
static gd_status read_back(void *dst, const void *src, size_t bytes, cudaStream_t st,
                           const char *what)
{
    gd_status s;
    if ((s = gd_cuda(cudaGetLastError(), what)) ||
        (s = gd_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, st), what)))
        return s;
    return gd_cuda(cudaStreamSynchronize(st), what);
}

struct apsp_run {
    /* cls: the class of D and of the rounds; wcls: W's (and the results'):
     * cls itself, or an integer class whose graph runs in single or double
     * (exact_class) */
    gd_class cls, wcls;
    size_t es;
    int64_t n, np;
    bool wp, nonneg;
    /* hops: the edge counts break ties (gd_tile::relax); taken when the
     * graph has a cycle of weight 0, found after a run without them */
    bool hops;
    /* P tracked through the rounds with the edge counts; chain: fw's
     * rounds tag the lengths that fall, and P comes from the tags after
     * the last (chain_pass); else P comes from the final lengths
     * (last_edge_pass) */
    bool track, chain;
    /* chain_pass followed the chains in global memory (n > 20480, or
     * GD_CHAIN=global): said in the kernel's name */
    bool chain_global;
    /* the call's allocations: its gd_call's (one device), or the device's
     * own (fw_devices) */
    gd_allocs *al;
    /* the call (one device; NULL across devices): its phases and events */
    gd_call *call;
    cudaStream_t st;
    void *D, *P, *H;
    const void *w; /* W on the device */
    /* Which rows of D (P, H) and W this device holds: row i of D is row
     * i - d0 of an array of leading dimension ldd, W's row i - w0 of one of
     * ldw. 0 (one device): the whole arrays, np and n. Across devices D
     * is the slab's rows (d0 its first, ldd their count), and W too
     * where P is not asked. */
    int64_t d0, ldd, w0, ldw;
    int64_t ld_d() const { return ldd ? ldd : np; }
    int64_t ld_w() const { return ldw ? ldw : n; }
    int *flags;
    /* fw: the rounds' panels, one allocation (panel_set); squaring: the
     * second buffers and D's transpose */
    void *arena, *D2, *P2, *H2, *Dt;
    /* the last edges' k-major operands (single, non-negative): D's rows
     * and W's transpose, for the witness's epilogue */
    void *Dk, *Wk;
    /* the host results' pages being touched (host_results; settle) */
    gd_prefault *touching[2];
    char what[128];

    gd_status alloc(void **ptr, int64_t rows, int64_t cols, gd_class c, const char *label)
    {
        if (*ptr) return GD_OK; /* made by an earlier run of this call */
        gd_describe(what, sizeof what, label, rows, cols, c);
        return gd_alloc(al, ptr, (size_t)rows * (size_t)cols * gd_class_bytes(c), what);
    }

    /* W on the device (an integer W: the class of the rounds from its
     * range), D, P and the flags */
    gd_status prepare(const gd_matrix &W)
    {
        gd_status s;
        if ((s = gd_alloc(al, (void **)&flags, 2 * sizeof(unsigned long long), "the flags")))
            return s;
        if (!(w = call->on_device(W, call->event(), st, "W")))
            return call->ok() ? gd_fail(GD_ERR_INPUT, "internal: W not on the device")
                              : call->status();
        if ((s = exact_class())) return s;
        if ((s = alloc(&D, np, np, cls, "D"))) return s;
        return wp ? alloc(&P, np, np, GD_INT32, "P") : GD_OK;
    }

    /* An integer W (on the device, tight): the class whose sums are all
     * exact. Floyd-Warshall's every operand is the length of a shortest
     * path through some set of vertices (a simple path where no cycle is
     * negative), so with m = max |w| over the edges every sum it takes
     * lies within 2 (n - 1) m of 0: single where that is at most 2^24,
     * else double. Negative weights must also keep (n - 1) m inside the
     * class, where Octave's saturating sums never saturate (non-negative
     * ones saturate alike in any order: min(exact, intmax)). Else
     * GD_ERR_VARIANT: the graph is the host's ('auto' runs it there). */
    struct range_fn {
        const void *w;
        int64_t ld, rows, cols;
        unsigned long long *r;
        cudaStream_t st;
        template <class I> void operator()() const
        {
            weight_range<I><<<gd_blocks_for(rows * cols, 256), 256, 0, st>>>(
                (const I *)w, ld, rows, cols, r);
        }
    };
    struct class_range_fn {
        template <class I> double operator()() const { return (double)gd_limits<I>::hi; }
    };
    /* r (r[0], r[1] as weight_range gives them) of W's rows [r0, r0 +
     * rows) on this device (all of W on one device; its slab across
     * several, whose ranges exact_class_of then takes together) */
    gd_status weight_range_of(int64_t r0, int64_t rows, unsigned long long r[2])
    {
        gd_status s;
        r[0] = r[1] = 0;
        if ((s = gd_cuda(cudaMemsetAsync(flags, 0, 2 * sizeof r[0], st), "clearing the flags")))
            return s;
        if (rows > 0 && n > 0)
            gd_with_int_class(wcls, range_fn{(const char *)w + (size_t)(r0 - w0) * gd_class_bytes(wcls),
                                             ld_w(), rows, n, (unsigned long long *)flags, st});
        return read_back(r, flags, 2 * sizeof r[0], st, "the weights' range");
    }
    /* the class of the rounds from the whole W's range */
    gd_status exact_class_of(const unsigned long long r[2])
    {
        const double most = (double)(n > 1 ? n - 1 : 1) * (double)r[0];
        /* intmin = -intmax - 1 in the signed classes: most <= intmax is
         * the bound both ways */
        const double hi = gd_with_int_class(wcls, class_range_fn());
        if ((r[1] && most > hi) || 2 * most > 9007199254740992.0)
            return gd_fail(GD_ERR_VARIANT,
                           "'fw' computes the integer classes in single or double where the "
                           "weights prove every sum exact: int64 and uint64 never, negative "
                           "weights while (n - 1) max |w| stays inside the class; this graph "
                           "runs on 'cpu'");
        cls = 2 * most <= 16777216.0 ? GD_SINGLE : GD_DOUBLE;
        es = gd_class_bytes(cls);
        return GD_OK;
    }
    gd_status exact_class()
    {
        if (!gd_class_is_int(wcls)) return GD_OK;
        unsigned long long r[2];
        gd_status s = weight_range_of(0, n, r);
        return s ? s : exact_class_of(r);
    }

    /* apsp_init and last_edges for W's element type I */
    template <class T> struct init_fn {
        const apsp_run &r;
        int64_t r0, rows;
        template <class I> void operator()() const
        {
            apsp_init<T, I><<<gd_blocks_for(rows * r.np, 256), 256, 0, r.st>>>(
                (const I *)r.w, r.ld_w(), r.w0, (T *)r.D, r.ld_d(), r.d0,
                r.track || r.chain ? (int *)r.P : NULL, r.hops ? (int *)r.H : NULL, r.n, r.np, r0, rows,
                r.flags);
        }
    };
    template <class T> struct last_edges_fn {
        const apsp_run &r;
        template <class I> void operator()() const
        {
            last_edges<T, I><<<gd_blocks_for(r.np * r.np, 256), 256, 0, r.st>>>(
                (const I *)r.w, (T *)r.Dt, r.n, r.np);
        }
    };

    /* rows [r0, r0 + rows) of D, P (and H) from W's, on st; the flags
     * then into f (fill_read) */
    gd_status fill_launch(int64_t r0, int64_t rows)
    {
        gd_status s;
        if (hops && (s = alloc(&H, np, np, GD_INT32, "the paths' edge counts"))) return s;
        const int start[2] = {0, 0x7fffffff};
        if ((s = gd_cuda(cudaMemcpyAsync(flags, start, sizeof start, cudaMemcpyHostToDevice, st),
                         "clearing the flags")))
            return s;
        if (cls == GD_SINGLE)
            with_weights<float>(wcls, init_fn<float>{*this, r0, rows});
        else
            with_weights<double>(wcls, init_fn<double>{*this, r0, rows});
        return gd_cuda(cudaGetLastError(), "the initialisation kernel");
    }
    gd_status fill_read(int f[2])
    {
        return read_back(f, flags, 2 * sizeof(int), st, "the initialisation kernel");
    }
    /* the verdict of the flags (every device's together): a NaN or a
     * negative diagonal fails; else whether every weight is non-negative */
    gd_status fill_verdict(const int f[2], int64_t *cycle_vertex)
    {
        if (f[0] & F_NAN) return gd_fail(GD_ERR_INPUT, "W has a NaN: a weight must be a number");
        if (f[0] & F_NEGDIAG) {
            *cycle_vertex = f[1];
            return gd_fail(GD_ERR_NEGCYCLE,
                           "the graph has a negative cycle: W(%d,%d) < 0 (a negative self-loop)",
                           f[1], f[1]);
        }
        nonneg = cls == GD_SINGLE && !(f[0] & F_SIGN);
        return GD_OK;
    }
    /* D, P (and H) from W; fails for NaN or a negative diagonal */
    gd_status fill(int64_t *cycle_vertex)
    {
        int f[2] = {0, 0x7fffffff};
        gd_status s;
        if ((s = fill_launch(0, np)) || (s = fill_read(f))) return s;
        return fill_verdict(f, cycle_vertex);
    }

    /* Floyd-Warshall's panels, carved from one allocation: for the round
     * being relaxed and the next (two of each): copies of the column panel
     * (Ac, np x FB), of the row panel transposed (Bt, np x FB), with P
     * its predecessors (Prow, FB x np), with H the edge counts of both
     * (Hcol, Hrow); for closing the column panel: a copy of it (Acol, and
     * its edge counts Hcol2) and of the diagonal block transposed (Dkt,
     * with P and H: Pkk, Hkk, FB x FB). */
    struct panel_set {
        void *Ac[2], *Bt[2], *Acol, *Dkt;
        int *Prow[2], *Hcol[2], *Hrow[2], *Pkk, *Hkk, *Hcol2;
    };

    gd_status panels(panel_set *ps)
    {
        const size_t big = (size_t)(np * FB), small = (size_t)FB * FB;
        size_t at = 0;
        char *base = NULL;
        /* two passes: the size, then the contents */
        for (int pass = 0; pass < 2; ++pass) {
            at = 0;
            auto take = [&](size_t bytes) -> void * {
                void *q = base ? base + at : NULL;
                at += (bytes + 255) / 256 * 256;
                return q;
            };
            for (int b = 0; b < 2; ++b) {
                ps->Ac[b] = take(big * es);
                ps->Bt[b] = take(big * es);
                ps->Prow[b] = (int *)(track ? take(big * 4) : NULL);
                ps->Hcol[b] = (int *)(hops ? take(big * 4) : NULL);
                ps->Hrow[b] = (int *)(hops ? take(big * 4) : NULL);
            }
            ps->Acol = take(big * es);
            ps->Dkt = take(small * es);
            ps->Pkk = (int *)(track ? take(small * 4) : NULL);
            ps->Hkk = (int *)(hops ? take(small * 4) : NULL);
            ps->Hcol2 = (int *)(hops ? take(big * 4) : NULL);
            if (pass == 0) {
                gd_status s;
                arena = NULL; /* a run with edge counts needs more */
                snprintf(what, sizeof what, "Floyd-Warshall's panels (%.1f MiB)",
                         (double)at / 1048576.0);
                if ((s = gd_alloc(al, &arena, at, what))) return s;
                base = (char *)arena;
            }
        }
        return GD_OK;
    }

    /* Round K = [k0, k0 + FB)'s operands, on stream L: the diagonal block
     * closed (1.), the column panel relaxed against it (2.), then the
     * copies step 3 reads, into buffers b. */
    template <class T>
    gd_status close_panels(const panel_set &ps, int64_t k0, int b, cudaStream_t L)
    {
        T *d = (T *)D;
        int *p = track || chain ? (int *)P : NULL, *h = hops ? (int *)H : NULL;
        const size_t panel = (size_t)(np * FB) * es, ipanel = (size_t)(np * FB) * sizeof(int);
        const size_t ib = sizeof(int);
        const int tag = ~(int)(k0 / FB);
        gd_status s = launch_fw_diag<T>(d, p, h, np, k0, tag, L);
        if (s) return s;
        cudaMemcpyAsync(ps.Acol, d + np * k0, panel, cudaMemcpyDeviceToDevice, L);
        gd_launch_transpose(cls, d + k0 + np * k0, np, ps.Dkt, FB, FB, L);
        if (track)
            cudaMemcpy2DAsync(ps.Pkk, FB * ib, p + k0 + np * k0, np * ib, FB * ib, FB,
                              cudaMemcpyDeviceToDevice, L);
        if (h) {
            cudaMemcpy2DAsync(ps.Hkk, FB * ib, h + k0 + np * k0, np * ib, FB * ib, FB,
                              cudaMemcpyDeviceToDevice, L);
            cudaMemcpyAsync(ps.Hcol2, h + np * k0, ipanel, cudaMemcpyDeviceToDevice, L);
        }
        const gd_tile::relax<T> col = {d + np * k0, d + np * k0, np,
                                       p ? p + np * k0 : NULL, p ? p + np * k0 : NULL,
                                       ps.Pkk, FB, NULL,
                                       h ? h + np * k0 : NULL, h ? h + np * k0 : NULL,
                                       ps.Hkk, ps.Hcol2, np, tag};
        relax_product<T>((const T *)ps.Acol, np, (const T *)ps.Dkt, FB, np, FB, FB, col, nonneg, L);
        cudaMemcpyAsync(ps.Ac[b], d + np * k0, panel, cudaMemcpyDeviceToDevice, L);
        gd_launch_transpose(cls, d + k0, np, ps.Bt[b], FB, np, L);
        if (track)
            cudaMemcpy2DAsync(ps.Prow[b], FB * ib, p + k0, np * ib, FB * ib, np,
                              cudaMemcpyDeviceToDevice, L);
        if (h) {
            cudaMemcpy2DAsync(ps.Hrow[b], FB * ib, h + k0, np * ib, FB * ib, np,
                              cudaMemcpyDeviceToDevice, L);
            cudaMemcpyAsync(ps.Hcol[b], h + np * k0, ipanel, cudaMemcpyDeviceToDevice, L);
        }
        return GD_OK;
    }

    /* The rounds, with lookahead: round r's step 3 first relaxes the next
     * round's column and row panels (the cross), then everything else on
     * gd_stream; meanwhile the stream of the greatest priority closes the
     * next round's diagonal block and column panel (steps 1 and 2) and
     * copies its operands, so that the SMs the big product frees take
     * that short chain of small kernels first and the chain is off the
     * critical path. The cross and the rest write disjoint parts of D. */
    template <class T> gd_status fw()
    {
        gd_status s;
        panel_set ps;
        if ((s = panels(&ps))) return s;
        T *d = (T *)D;
        int *p = track || chain ? (int *)P : NULL, *h = hops ? (int *)H : NULL;
        cudaStream_t L = gd_stream_hi();
        const cudaEvent_t go = call->event(), cross = call->event(), ready = call->event(),
                          joined = call->event();
        if (!call->ok()) return call->status();
        const int64_t rounds = np / FB;
        cudaEventRecord(go, st);
        cudaStreamWaitEvent(L, go, 0);
        s = close_panels<T>(ps, 0, 0, L);
        cudaEventRecord(ready, L);
        for (int64_t r = 0; r < rounds && !s; ++r) {
            if (!call->go_on(st, "round", (double)r, (double)rounds)) return call->status();
            const int b = (int)(r & 1);
            const int64_t kn = (r + 1) * FB;
            const bool next = r + 1 < rounds;
            const T *A = (const T *)ps.Ac[b], *B = (const T *)ps.Bt[b];
            const int tag = ~(int)r;
            cudaStreamWaitEvent(st, ready, 0);
            if (next) {
                /* the next round's column panel (all rows), then its row
                 * panel but the diagonal block */
                const gd_tile::relax<T> col = {d + np * kn, d + np * kn, np,
                                               p ? p + np * kn : NULL, p ? p + np * kn : NULL,
                                               track ? ps.Prow[b] + FB * kn : NULL, FB, NULL,
                                               h ? h + np * kn : NULL, h ? h + np * kn : NULL,
                                               h ? ps.Hrow[b] + FB * kn : NULL, ps.Hcol[b], np,
                                               tag};
                relax_product<T>(A, np, B + kn, np, np, FB, FB, col, nonneg, st);
                const gd_tile::relax<T> row = {d + kn, d + kn, np, p ? p + kn : NULL,
                                               p ? p + kn : NULL, ps.Prow[b], FB, NULL,
                                               h ? h + kn : NULL, h ? h + kn : NULL, ps.Hrow[b],
                                               h ? ps.Hcol[b] + kn : NULL, np, tag};
                relax_product<T>(A + kn, np, B, np, FB, np, FB, row, nonneg, st,
                                 gd_tile::hole{0, 0, kn, FB});
                cudaEventRecord(cross, st);
                cudaStreamWaitEvent(L, cross, 0);
                if ((s = close_panels<T>(ps, kn, b ^ 1, L))) break;
                cudaEventRecord(ready, L);
            }
            /* every other block */
            const gd_tile::relax<T> all = {d, d, np, p, p, ps.Prow[b], FB, NULL,
                                           h, h, ps.Hrow[b], ps.Hcol[b], np, tag};
            relax_product<T>(A, np, B, np, np, np, FB, all, nonneg, st,
                             next ? gd_tile::hole{kn, FB, kn, FB} : gd_tile::hole{0, 0, 0, 0});
            if ((s = gd_cuda(cudaGetLastError(), "a Floyd-Warshall round"))) break;
        }
        /* gd_stream goes on after everything on L */
        cudaEventRecord(joined, L);
        cudaStreamWaitEvent(st, joined, 0);
        return s;
    }

    template <class T> gd_status squaring()
    {
        gd_status s;
        int *changed = flags; /* reused: the flags were read */
        if ((s = alloc(&D2, np, np, cls, "D")) || (s = alloc(&Dt, np, np, cls, "D transposed")) ||
            (track && (s = alloc(&P2, np, np, GD_INT32, "P"))) ||
            (hops && (s = alloc(&H2, np, np, GD_INT32, "the paths' edge counts"))))
            return s;
        int steps = 1;
        while (((int64_t)1 << steps) < n) ++steps;
        for (int it = 0; it <= steps; ++it) {
            if (!call->go_on(st, "squaring", it, steps + 1)) return call->status();
            gd_launch_transpose(cls, D, np, Dt, np, np, st);
            if ((s = gd_cuda(cudaMemsetAsync(changed, 0, sizeof(int), st), "clearing a flag")))
                return s;
            gd_tile::relax<T> out = {(const T *)D, (T *)D2, np, track ? (const int *)P : NULL,
                                     track ? (int *)P2 : NULL, (const int *)P, np, changed,
                                     hops ? (const int *)H : NULL, hops ? (int *)H2 : NULL,
                                     (const int *)H, (const int *)H, np};
            relax_product<T>((const T *)D, np, (const T *)Dt, np, np, np, np, out, nonneg, st);
            int c = 0;
            if ((s = read_back(&c, changed, sizeof c, st, "a squaring"))) return s;
            void *x = D;
            D = D2;
            D2 = x;
            if (track) {
                x = P;
                P = P2;
                P2 = x;
                x = H;
                H = H2;
                H2 = x;
            }
            if (!c) break;
        }
        return GD_OK;
    }

    /* P from the final D: the witness of D (x) W with W's diagonal Inf
     * (one min-plus product); its rows [row0, row0 + rows) alone where
     * rows >= 0 (fw across devices: each device its slab; each element
     * is the same product's, bit for bit) */
    template <class T> gd_status last_edge_pass(int64_t row0 = 0, int64_t rows = -1)
    {
        gd_status s;
        if (rows < 0) rows = np;
        if ((s = alloc(&Dt, np, np, cls, "W transposed"))) return s;
        with_weights<T>(wcls, last_edges_fn<T>{*this});
        const int64_t ld = ld_d();
        const T *A = (const T *)D + (row0 - d0), *B = (const T *)Dt;
        const last_edge_out<T> out = {A, (int *)P + (row0 - d0), ld, n, row0};
        using namespace gd_tile;
        if constexpr (sizeof(T) == 8)
            launch_each<minplus_first<1>, T, 4, layout<16, 8, 1>, last_edge_out<T>, -1, true>(
                A, ld, B, np, rows, np, np, out, st);
        else if (nonneg) {
            // a stage a group (minplus_first_stage), the epilogue from
            // k-major copies of the operands
            if ((s = alloc(&Dk, rows, np, cls, "D's rows k-major")) ||
                (s = alloc(&Wk, np, np, cls, "W k-major")))
                return s;
            launch_kmajor(A, ld, rows, np, (T *)Dk, st);
            launch_kmajor(B, np, np, np, (T *)Wk, st);
            const last_edge_kmajor kout = {A, (int *)P + (row0 - d0), ld, n, row0,
                                           (const T *)Dk, (const T *)Wk, np};
            launch_each<minplus_first_stage<16>, T, 16, layout<16, 8, 2, true>, last_edge_kmajor>(
                A, ld, B, np, rows, np, np, kout, st);
        }
        else
            launch_each<minplus_first<4>, T, 8, layout<16, 8, 2, true>, last_edge_out<T>>(
                A, ld, B, np, rows, np, np, out, st);
        return gd_cuda(cudaGetLastError(), "the predecessors' product");
    }

    /* P from the rounds' tags (chain, all of D and P on this device):
     * chain_search, then chain_jump; where rounding breaks a chain
     * (*fallback), P from the last edges instead */
    template <class T> gd_status chain_pass(bool *fallback)
    {
        gd_status s;
        *fallback = false;
        if (n == 0) return GD_OK;
        if ((s = alloc(&Dt, np, np, cls, "D transposed"))) return s;
        gd_launch_transpose(cls, D, np, Dt, np, np, st);
        if ((s = gd_cuda(cudaMemsetAsync(flags, 0, sizeof(int), st), "clearing a flag"))) return s;
        const int64_t gy = (n + 7) / 8 < 65535 ? (n + 7) / 8 : 65535;
        chain_search<T><<<dim3((unsigned)((n + 31) / 32), (unsigned)gy), dim3(32, 8), 0, st>>>(
            (const T *)D, (const T *)Dt, (int *)P, np, (int)n, flags);
        const size_t sh = 2 * (size_t)n * sizeof(int);
        if (sh <= 160 * 1024 && !gd_setting_is(GD_SET_CHAIN, "global")) {
            /* (the most any n asks: set once a device) */
            if ((s = gd_cuda(gd_dynamic_smem<chain_jump<true>>(160 * 1024),
                             "the chain's shared memory")))
                return s;
            const unsigned cols = (unsigned)(n < 65535 ? n : 65535);
            chain_jump<true><<<cols, 512, sh, st>>>((int *)P, np, (int)n, NULL, flags);
        } else {
            /* the second buffer of each block's column in global memory */
            chain_global = true;
            const int64_t cols = n < 4 * (int64_t)gd_sm_count() ? n : 4 * (int64_t)gd_sm_count();
            int *scratch = NULL;
            if ((s = alloc((void **)&scratch, n, cols, GD_INT32, "the chain's second buffer")))
                return s;
            chain_jump<false><<<(unsigned)cols, 512, 0, st>>>((int *)P, np, (int)n, scratch, flags);
        }
        int f = 0;
        if ((s = read_back(&f, flags, sizeof f, st, "the predecessors' chain"))) return s;
        *fallback = f != 0;
        return f ? last_edge_pass<T>() : GD_OK;
    }

    /* tree_check<T, SUMS> on P's rows from row0: all rows of them, or
     * (list) those list names; grid blocks, their buffers in shared memory
     * where they fit, else in scratch (tree_check_work(n, SUMS) a block) */
    template <class T, bool SUMS>
    gd_status check_rows(int64_t row0, int64_t rows, const int *list, int64_t grid,
                         char *scratch, int *bad, int *maybe)
    {
        gd_status s;
        const int64_t ld = ld_d(), at = row0 - d0;
        const size_t sh = scratch ? 0 : tree_check_work(n, SUMS);
        /* (the most any n asks: the attribute is set once a device) */
        if (sh && (s = gd_cuda(gd_dynamic_smem<tree_check<T, SUMS>>(160 * 1024),
                               "the predecessors' check")))
            return s;
        tree_check<T, SUMS><<<(unsigned)grid, 512, sh, st>>>(
            (const int *)P + at, (const T *)D + at, ld, (const T *)Dt, np, (int)n, row0, rows, list,
            scratch, bad, maybe);
        return gd_cuda(cudaGetLastError(), "the predecessors' check");
    }

    /* P's rows [row0, row0 + rows) (all of them: rows < 0) made
     * shortest-path trees whose routes sum to D: the rows tree_check
     * finds circling or straying are chosen again by tree_repair;
     * *repaired counts them. The check runs in two passes: every row's
     * circles and steps (8 bytes a vertex), then the routes' sums (40)
     * on the rows with a step that strays past its own share of the
     * bound alone (tree_check) */
    gd_status trees(int64_t row0, int64_t rows, int *repaired)
    {
        gd_status s;
        if (rows < 0) rows = n;
        *repaired = 0;
        if (rows <= 0) return GD_OK;
        int *bad = NULL, *maybe = NULL;
        char *scratch = NULL;
        const int threads = 512;
        const int64_t ld = ld_d(), at = row0 - d0;
        /* a pass's buffers in shared memory where they fit (up to 160 KiB
         * a block), else in the blocks' scratch, two blocks an SM */
        auto grid_of = [&](bool sums, int64_t r) {
            const int64_t most =
                (tree_check_work(n, sums) <= 160 * 1024 ? 4 : 2) * (int64_t)gd_sm_count();
            return r < most ? r : most;
        };
        const int64_t grid = grid_of(false, rows);
        const bool in_shared = tree_check_work(n, false) <= 160 * 1024;
        if ((s = alloc((void **)&bad, rows + 1, 1, GD_INT32, "the rows P circles in")) ||
            (s = alloc((void **)&maybe, rows + 1, 1, GD_INT32, "the rows whose routes are summed")) ||
            (!in_shared && (s = alloc((void **)&scratch, (int64_t)tree_check_work(n, false), grid,
                                      GD_UINT8, "P's rows' check"))))
            return s;
        /* W transposed, Inf on the diagonal, into Dt (which the last edges'
         * product may have made already: the same values) */
        if ((s = alloc(&Dt, np, np, cls, "W transposed"))) return s;
        if (cls == GD_SINGLE)
            with_weights<float>(wcls, last_edges_fn<float>{*this});
        else
            with_weights<double>(wcls, last_edges_fn<double>{*this});
        if ((s = gd_cuda(cudaMemsetAsync(bad, 0, sizeof(int), st), "clearing a count")) ||
            (s = gd_cuda(cudaMemsetAsync(maybe, 0, sizeof(int), st), "clearing a count")))
            return s;
        if ((s = cls == GD_SINGLE
                     ? check_rows<float, false>(row0, rows, NULL, grid, scratch, bad, maybe)
                     : check_rows<double, false>(row0, rows, NULL, grid, scratch, bad, maybe)))
            return s;
        int summed = 0;
        if ((s = read_back(&summed, maybe, sizeof(int), st, "the predecessors' check"))) return s;
        if (summed) {
            const int64_t g2 = grid_of(true, summed);
            char *sums = NULL;
            if (tree_check_work(n, true) > 160 * 1024 &&
                (s = alloc((void **)&sums, (int64_t)tree_check_work(n, true), g2, GD_UINT8,
                           "P's routes' sums")))
                return s;
            if ((s = cls == GD_SINGLE
                         ? check_rows<float, true>(row0, rows, maybe, g2, sums, bad, NULL)
                         : check_rows<double, true>(row0, rows, maybe, g2, sums, bad, NULL)))
                return s;
        }
        if ((s = read_back(repaired, bad, sizeof(int), st, "the predecessors' check"))) return s;
        if (!*repaired) return GD_OK;
        const int64_t rg = *repaired < grid ? *repaired : grid;
        char *work = NULL;
        snprintf(what, sizeof what, "the work space of P's rows chosen again (%.1f MiB)",
                 (double)tree_work(n, es) * (double)rg / 1048576.0);
        if ((s = gd_alloc(al, (void **)&work, tree_work(n, es) * (size_t)rg, what)))
            return s;
        if (cls == GD_SINGLE)
            tree_repair<float><<<(unsigned)rg, threads, 0, st>>>(
                (const float *)D + at, (int *)P + at, ld, (const float *)Dt, np, (int)n, row0, bad,
                work);
        else
            tree_repair<double><<<(unsigned)rg, threads, 0, st>>>(
                (const double *)D + at, (int *)P + at, ld, (const double *)Dt, np, (int)n, row0,
                bad, work);
        if ((s = gd_cuda(cudaGetLastError(), "choosing P's rows again"))) return s;
        return gd_cuda(cudaStreamSynchronize(st), "choosing P's rows again");
    }

    /* whether the graph has a cycle of weight 0 (predecessors chosen
     * without edge counts may then go round it); whole: D gathered from
     * devices' slabs */
    gd_status zero_cycle(bool *found, const void *whole = NULL)
    {
        gd_status s;
        int f = 0;
        if ((s = gd_cuda(cudaMemsetAsync(flags, 0, sizeof(int), st), "clearing a flag")))
            return s;
        /* the whole np x np D: this device's, or one gathered (whole) */
        const void *d = whole ? whole : D;
        const unsigned blocks = gd_blocks_for(n * n, 256);
        if (cls == GD_SINGLE)
            apsp_zero_cycle<float><<<blocks, 256, 0, st>>>((const float *)d, n, np, flags);
        else
            apsp_zero_cycle<double><<<blocks, 256, 0, st>>>((const double *)d, n, np, flags);
        if ((s = read_back(&f, flags, sizeof f, st, "the zero-cycle check"))) return s;
        *found = f != 0;
        return GD_OK;
    }

    /* a negative diagonal entry of D: a negative cycle */
    gd_status check(int64_t *cycle_vertex)
    {
        const int start[2] = {0, 0x7fffffff};
        int f[2];
        gd_status s;
        if ((s = gd_cuda(cudaMemcpyAsync(flags, start, sizeof start, cudaMemcpyHostToDevice, st),
                         "clearing the flags")))
            return s;
        const unsigned blocks = gd_blocks_for(n, 256);
        if (cls == GD_SINGLE)
            apsp_diag<float><<<blocks, 256, 0, st>>>((const float *)D, n, np, flags);
        else
            apsp_diag<double><<<blocks, 256, 0, st>>>((const double *)D, n, np, flags);
        if ((s = read_back(f, flags, sizeof f, st, "the diagonal check"))) return s;
        if (f[0] & F_NEGCYCLE) {
            *cycle_vertex = f[1];
            return gd_fail(GD_ERR_NEGCYCLE,
                           "the graph has a negative cycle: a closed path through vertex %d "
                           "has negative length",
                           f[1]);
        }
        return GD_OK;
    }

    /* info.kernel: the rounds' kind ("integer min" or "fminf" in
     * single), for an integer W the class they ran in, then more (edge
     * counts, ...; "": none) */
    void kernel_name(char *buf, size_t len, const char *more) const
    {
        const char *kind = cls == GD_DOUBLE ? "" : nonneg ? "integer min" : "fminf";
        char head[40]; /* "single, exact, integer min" at most */
        if (wcls != cls)
            snprintf(head, sizeof head, "%s, exact%s%s", cls == GD_DOUBLE ? "double" : "single",
                     *kind ? ", " : "", kind);
        else
            snprintf(head, sizeof head, "%s", kind);
        const int at = snprintf(buf, len, "%s%s%s", head, *head && *more ? ", " : "", more);
        if (chain_global && at >= 0 && (size_t)at < len)
            snprintf(buf + at, len - (size_t)at, "%s", at ? ", chains in global memory"
                                                          : "chains in global memory");
    }

    /* D in W's class, tight, at dst (ld ldo): its rows [row0, row0 +
     * rows); an integer class's P (else NULL) loses its predecessors
     * where the length is intmax */
    struct to_class_fn {
        const apsp_run &r;
        void *dst;
        int64_t ldo, row0, rows;
        int *P;
        cudaStream_t on; /* NULL: r.st */
        template <class I> void operator()() const
        {
            const unsigned blocks = gd_blocks_for(rows * r.n, 256);
            const int64_t ld = r.ld_d(), at = row0 - r.d0;
            const cudaStream_t s = on ? on : r.st;
            if (r.cls == GD_SINGLE)
                to_class<float, I><<<blocks, 256, 0, s>>>((const float *)r.D + at, ld,
                                                          (I *)dst, ldo, rows, r.n, P, ld);
            else
                to_class<double, I><<<blocks, 256, 0, s>>>((const double *)r.D + at, ld,
                                                           (I *)dst, ldo, rows, r.n, P, ld);
        }
    };

    /* The host's D (and P), ahead of results: made, and every page
     * touched by threads of their own while the kernels run
     * (gd_host_prefault; settle waits for them) */
    gd_status host_results(gd_out &Dout, gd_out *Pout, gd_class pcls)
    {
        gd_status s;
        const size_t db = (size_t)(n * n) * gd_class_bytes(wcls),
                     pb = (size_t)(n * n) * gd_class_bytes(pcls);
        if (!Dout.device) {
            gd_describe(what, sizeof what, "D", n, n, wcls);
            if ((s = gd_out_buffer(&Dout, db, what))) return s;
            touching[0] = gd_host_prefault(Dout.ptr, db);
        }
        if (Pout && !Pout->device) {
            gd_describe(what, sizeof what, "P", n, n, pcls);
            if ((s = gd_out_buffer(Pout, pb, what))) return s;
            touching[1] = gd_host_prefault(Pout->ptr, pb);
        }
        return GD_OK;
    }

    /* the host results' pages touched (before anything writes them, and
     * on every path before the call returns) */
    void settle()
    {
        for (gd_prefault *&f : touching) {
            gd_host_prefault_wait(f);
            f = NULL;
        }
    }

    /* D (ld np) and P into their outputs: kept (tight copies on the
     * device) or downloaded; an integer W's D in its class. Two units of
     * a pipeline: D's (its class, or its kept copy) on one stream, P's
     * widening on the other while D goes down. */
    gd_status results(gd_out &Dout, gd_out *Pout, gd_class pcls)
    {
        gd_status s;
        settle();
        void *tightP = NULL, *keptD = NULL, *down = NULL;
        const size_t wes = gd_class_bytes(wcls);
        size_t pitch = (size_t)np * es;
        gd_pipeline pl(*call, st, gd_stream2());
        gd_describe(what, sizeof what, "D", n, n, wcls);
        if (Dout.device && (s = gd_alloc_kept(al, &keptD, (size_t)(n * n) * wes, what))) return s;
        if (wcls != cls && !keptD && (s = alloc(&down, n, n, wcls, "D"))) return s;
        if (wp) {
            gd_describe(what, sizeof what, "P", n, n, pcls);
            if (Pout->device
                    ? (s = gd_alloc_kept(al, &tightP, (size_t)(n * n) * gd_class_bytes(pcls), what))
                    : (s = alloc(&tightP, n, n, pcls, "P")))
                return s;
        }
        pl.units_begin(GD_PHASE_PREP);
        if (wcls != cls) {
            /* the class's D: kept, or a tight copy to download */
            gd_with_int_class(wcls, to_class_fn{*this, keptD ? keptD : down, n, 0, n,
                                                wp ? (int *)P : NULL, pl.stream()});
            pitch = (size_t)n * wes;
        } else if (keptD) {
            if ((s = gd_copy_d2d(keptD, n * es, D, np * es, n * es, n, pl.stream()))) return s;
        } else {
            down = D;
        }
        const cudaEvent_t d_done = pl.unit_done("the results' layout");
        cudaEvent_t p_done = NULL;
        if (wp) {
            /* (after D's class, which clears P where the length is intmax) */
            if (wcls != cls && d_done)
                call->cuda(cudaStreamWaitEvent(pl.stream(), d_done, 0), "the results' layout");
            gd_launch_widen(pcls, (const int *)P, np, tightP, n, n, pl.stream());
            p_done = pl.unit_done("the predecessors' class");
        }
        pl.units_end();
        if (!call->ok()) return call->status();
        if (!Dout.device) {
            gd_describe(what, sizeof what, "D", n, n, wcls);
            if ((s = gd_out_buffer(&Dout, (size_t)(n * n) * wes, what))) return s;
            pl.download(Dout.ptr, n * wes, down, pitch, n * wes, n, d_done,
                        "copy of D from the GPU");
        }
        if (wp && !Pout->device) {
            const size_t pb = (size_t)(n * n) * gd_class_bytes(pcls);
            gd_describe(what, sizeof what, "P", n, n, pcls);
            if ((s = gd_out_buffer(Pout, pb, what))) return s;
            pl.download(Pout->ptr, pb, tightP, pb, pb, 1, p_done, "copy of P from the GPU");
        }
        pl.end();
        if (!call->ok()) return call->status();
        if ((s = gd_copies_finish())) return s;
        if (Dout.device) *Dout.device = keptD;
        if (wp && Pout->device) *Pout->device = tightP;
        return GD_OK;
    }
};
