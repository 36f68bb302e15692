/* ops/apsp/prepare.cuh - apsp_prepare: one device's run of the GPU variants, its state; W on the device, the class of the rounds, D and P (and the edge counts) from W.
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others: apsp_run is apsp_prepare, apsp_rounds
 * (run_rounds.cuh), apsp_paths (paths.cuh) and the results (run.cuh). */
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

/* The GPU variants' common run (apsp_run), its first layer: the state; D (and P) on the device from W, the
 * variant's rounds, the negative-cycle check, the results. */
struct apsp_prepare {
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
    bool wt_made; /* Dt holds W transposed (trees, once a call) */
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
        const apsp_prepare &r;
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
        const apsp_prepare &r;
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

};
