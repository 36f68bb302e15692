/* ops/apsp/run.cuh - apsp_run: one device's call of the GPU variants (apsp_prepare, apsp_rounds, apsp_paths) and its results: the kernel's name, D and P in their classes, kept or downloaded.
 * Part of apsp.cu, which includes it inside its anonymous namespace, after
 * paths.cuh. */
struct apsp_run : apsp_paths {
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
