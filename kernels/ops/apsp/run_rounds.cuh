/* ops/apsp/run_rounds.cuh - apsp_rounds: the rounds of the GPU variants on one device, Floyd-Warshall's (panels, lookahead) and the squarings'.
 * Part of apsp.cu, which includes it inside its anonymous namespace, after
 * prepare.cuh and rounds.cuh (the rounds' kernels). */
struct apsp_rounds : apsp_prepare {
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

};
