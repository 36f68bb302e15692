/* ops/product/run.cuh - product_run: per stage the sections of C its operands complete (compute), their way down, the witness and a kept result.
 * Part of product.cu, which includes it inside its anonymous namespace,
 * after plan.cuh and sections.cuh: product_run is product_plan (where
 * everything is read and written, the allocations), product_sections (a
 * stage's operands) and this, the sections of C and the results. */
struct product_run : product_sections {
    using product_sections::product_sections;

    /* every section of C that stage q completes (max(i, j) == q): block
     * (i, j) is cmi x cnj at j0 cm + i0 cnj of C (with one block, C's own
     * layout); launches alternate between the two streams, and each block
     * goes down to the host's R once its kernel is done (the pipeline
     * queues the copy after the next stage's uploads) */
    gd_status compute(int q, gd_launcher run)
    {
        gd_status s;
        pl->units_begin(GD_PHASE_KERNEL);
        snprintf(what, sizeof what, "%s kernel launch", op.name);
        for (int i = 0; i < g.bi; ++i)
            for (int j = 0; j < g.bj; ++j) {
                if ((i > j ? i : j) != q) continue;
                gd_plan &b = blk[nb];
                b = p;
                const int64_t bi0 = g.ri[i], bj0 = g.cj[j];
                b.i0 = bi0;
                b.j0 = bj0;
                b.m = g.ri[i + 1] - bi0;
                b.n = g.cj[j + 1] - bj0;
                if (g.bi * g.bj > 1) {
                    b.mp = raw ? b.m : gd_round_up(b.m, v.row_mult);
                    b.np = raw ? b.n : gd_round_up(b.n, v.col_mult);
                    const int64_t cmi = pout ? b.mp : b.m, cnj = pout ? b.np : b.n;
                    /* raw blocks: A's copied or uploaded block (ld b.m);
                     * B's columns in place or uploaded (ld k) */
                    b.A = (const char *)p.A + (size_t)(bi0 * (raw ? k : p.kp)) * es;
                    b.B = (const char *)p.B + (size_t)(bj0 * (raw ? p.ldb : p.kp)) * es;
                    b.C = (char *)dC + (size_t)(bj0 * cm + bi0 * cnj) * es;
                    b.lda = b.mp;
                    b.ldb = raw ? p.ldb : b.np;
                    b.ldc = cmi;
                }
                b.panel = nb;
                b.st = pl->stream();
                blk_i0[nb] = bi0;
                blk_j0[nb] = bj0;
                if (k == 0) {
                    const int threads = 256;
                    fill_empty(op, cls, dC, cm * cn, b.st);
                    if (wit)
                        fill<int><<<gd_blocks_for(cm * cn, threads), threads, 0, b.st>>>((int *)dK, cm * cn, 0);
                } else if ((s = run(b))) {
                    c.check(s);
                    return s;
                }
                if (!(blk_done[nb] = pl->unit_done(what))) return c.status();
                if (!keep && !down(nb)) return c.status();
                ++nb;
            }
        pl->units_end();
        return c.status();
    }

    /* block b of C to its place in the host's R, made at the first block
     * (while its kernel runs: the host threads that copy the blocks out of
     * the staging slots touch R's fresh pages for the first time) */
    bool down(int b)
    {
        if (!h) {
            char label[96]; /* (what names the kernel launches) */
            gd_describe(label, sizeof label, "R", m, n, cls);
            if (!(h = (char *)c.host_result(out, (size_t)(m * n) * es, label))) return false;
        }
        const gd_plan &bp = blk[b];
        return pl->download(h + (size_t)(blk_i0[b] + blk_j0[b] * m) * es, (size_t)m * es, bp.C,
                            (size_t)bp.ldc * es, (size_t)bp.m * es, (size_t)bp.n, blk_done[b],
                            "copy of the result from the GPU");
    }

    /* the witness into its class, tight, at dst (on st) */
    void widen(void *dst) { gd_launch_widen(kcls, (const int *)dK, cm, dst, m, n, st); }

    /* the witness, once C is computed: kept (dKR), or downloaded into
     * its host buffer from a tight copy in its class */
    gd_status witness_result()
    {
        if (kout.device) {
            widen(dKR);
            return gd_cuda(cudaGetLastError(), "the witness's conversion");
        }
        void *tight;
        gd_describe(what, sizeof what, "K", m, n, kcls);
        const size_t bytes = (size_t)(m * n) * gd_class_bytes(kcls);
        if (!(tight = c.alloc(bytes, what))) return c.status();
        widen(tight);
        if (!c.launched("the witness's conversion")) return c.status();
        const cudaEvent_t widened = c.event();
        cudaEventRecord(widened, st);
        void *hk = c.host_result(kout, bytes, what);
        if (hk) c.download(hk, bytes, tight, bytes, bytes, 1, widened,
                          "copy of the witness from the GPU");
        return c.status();
    }

    /* the witness, and a kept result (out of the kernel's layout into
     * its own where they differ, timed as preparation); a host result's
     * blocks are on their way already (compute) */
    gd_status result()
    {
        gd_status s;
        if (wit && (s = witness_result())) return s;
        if (keep) {
            c.begin(GD_PHASE_PREP, st);
            if (dC != dR)
                for (int b = 0; b < nb; ++b) {
                    const gd_plan &bp = blk[b];
                    if (!c.check(gd_copy_d2d((char *)dR + (size_t)(blk_i0[b] + blk_j0[b] * m) * es,
                                             (size_t)m * es, bp.C, (size_t)bp.ldc * es,
                                             (size_t)bp.m * es, (size_t)bp.n, st)))
                        return c.status();
                }
            c.end(GD_PHASE_PREP, st);
            return c.status();
        }
        return c.status();
    }
};
