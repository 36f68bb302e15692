/* ops/product/plan.cuh - product_plan: where one call of a product on the GPU reads and writes (plan), and its allocations.
 * Part of product.cu, which includes it inside its anonymous namespace, before
 * sections.cuh and run.cuh (product_run is the three layers together). */
/* One call of a product on the GPU, in units the scheduler
 * (gd_run_product) puts together: plan (where each operand is read from,
 * what is allocated), allocate, then per stage the operands' sections
 * (uploaded, copied or read in place, and prepared into the variant's
 * layout) and the sections of C they complete (compute), then the result
 * (kept on the device, or downloaded block by block). */
struct product_plan {
    const gd_product_op &op;
    const gd_product_variant &v;
    const gd_class cls;
    const gd_matrix &A, &B;
    gd_out &out;
    gd_timing *t;
    size_t es;
    int64_t m, k, n, cm, cn, b_tight;
    gd_layout lay; /* the variant's layout for the class (integers: raw) */
    bool pout;     /* C padded (the variant's padded_out, not for integers) */
    bool raw, devA, devB, keep, same, copyA, copyB, a_direct, b_direct;
    /* one host array given as both operands (A (x) A; a divided call's B
     * is some of A's columns, from column jb of A): uploaded once, whole,
     * into dA (m x k, leading dimension m), stage by stage in crosses
     * (operands_cross); B's sections are read from it */
    bool cross;
    int64_t jb;
    gd_blocks g;
    gd_call &c;
    void *dA, *dB, *dAp, *dBq, *dC, *dR;
    /* the witness: asked for (wit), its int32 array in C's layout (dK),
     * its output and class, and its kept allocation (dKR) */
    bool wit;
    gd_out kout;
    gd_class kcls;
    void *dK, *dKR;
    gd_plan p;
    cudaStream_t st, st2;
    /* the overlap of the stages' uploads, the blocks' kernels and their
     * downloads (gd_run_product's) */
    gd_pipeline *pl = NULL;
    /* a divided call's A shared by its parts (NULL: uploaded whole), and
     * this part's place among them */
    gd_share *share = NULL;
    int part = 0, nparts = 1;
    char *h = NULL; /* the host's R, made while the first kernels run */
    char what[128];
    int nb;
    gd_plan blk[GD_MAX_SIDE * GD_MAX_SIDE];
    cudaEvent_t blk_done[GD_MAX_SIDE * GD_MAX_SIDE];
    int64_t blk_i0[GD_MAX_SIDE * GD_MAX_SIDE], blk_j0[GD_MAX_SIDE * GD_MAX_SIDE];

    product_plan(gd_call &c_, const gd_product_op &op_, const gd_product_variant &v_,
                gd_class cls_, const gd_matrix &A_, const gd_matrix &B_, gd_out &out_,
                gd_timing *t_)
        : op(op_), v(v_), cls(cls_), A(A_), B(B_), out(out_), t(t_), c(c_)
    {
    }

    /* where everything is read from and written to */
    void plan(const gd_op_args &args)
    {
        es = gd_class_bytes(cls);
        lay = gd_class_is_int(cls) ? GD_RAW : v.in;
        pout = !gd_class_is_int(cls) && v.padded_out;
        st = gd_stream();
        st2 = gd_stream2();
        m = A.rows;
        k = A.cols;
        n = op.b_rows ? B.rows : B.cols;
        devA = A.where == GD_DEVICE;
        devB = B.where == GD_DEVICE;
        keep = out.device != NULL;
        raw = lay == GD_RAW;
        memset(&p, 0, sizeof p);
        p.args = args;
        if (!p.args.whole_m) {
            p.args.whole_m = m;
            p.args.whole_n = n;
        }
        p.cls = cls;
        p.st = st;
        p.m = m; p.k = k; p.n = n;
        p.mp = raw ? m : gd_round_up(m, v.row_mult);
        p.np = raw ? n : gd_round_up(n, v.col_mult);
        p.kp = raw ? k : gd_round_up(k, v.k_mult);
        cm = pout ? gd_round_up(m, v.row_mult) : m;
        cn = pout ? gd_round_up(n, v.col_mult) : n;
        wit = args.witness != NULL;
        if (wit) {
            kout = *args.witness;
            kcls = args.witness_cls;
            if (kout.device) *kout.device = NULL;
        }
        const bool scratch = v.scratch_work && v.work_f && k > 0 && v.work_f(p) > 0;
        g = block_grid(op, v, cls, m, k, n, devA && devB && keep, wit, scratch);
        /* A (x) A, the same array twice, in one block of rows: one upload
         * serves both operands */
        same = B.ptr == A.ptr && B.where == A.where && B.ld == A.ld && n == m && g.bi == 1;
        cross = false;
        jb = 0;
        if (!devA && !devB && !raw && !same && !op.b_rows && k == m && B.rows == k &&
            B.ld == A.ld && !gd_setting_is(GD_SET_SHARE, "twice")) {
            /* B is this part's columns of A, and the parts' columns
             * together are all of A's (B may also be some columns of A
             * alone: Octave's A(:, 1:7) shares A's memory) */
            const ptrdiff_t off = (const char *)B.ptr - (const char *)A.ptr;
            const ptrdiff_t col = (ptrdiff_t)((size_t)A.ld * es);
            int64_t j0, j1;
            part_columns(p.args.whole_n, part, nparts, &j0, &j1);
            cross = p.args.whole_n == k && off >= 0 && off % col == 0 && off / col == j0 &&
                    j1 - j0 == n;
            jb = cross ? j0 : 0;
        }
        /* B's rows run along its first dimension: n x k given by rows,
         * else k x n */
        b_tight = op.b_rows ? n : k;
        /* a raw layout reads resident operands in place when they are
         * tight (and A in one block of rows); else they are copied on the
         * device into the layout an upload makes */
        copyA = devA && raw && (g.bi > 1 || A.ld != m);
        copyB = devB && raw && !same && B.ld != b_tight;
        /* an operand whose sizes are already multiples of the tiles, tight
         * and in one block, is its own padded layout: no copy (B only where
         * the layout does not transpose it) */
        a_direct = !raw && g.bi == 1 && m == p.mp && k == p.kp && (!devA || A.ld == m);
        b_direct = !raw && g.bj == 1 && k == p.kp && n == p.np &&
                   (lay == GD_PADDED || op.b_rows) && (!devB || B.ld == b_tight);
        dA = dB = dAp = dBq = dC = dR = dK = dKR = NULL;
        nb = 0;
    }

    gd_status alloc(void **ptr, int64_t rows, int64_t cols, const char *label)
    {
        gd_describe(what, sizeof what, label, rows, cols, cls);
        *ptr = c.alloc((size_t)rows * (size_t)cols * es, what);
        return c.status();
    }

    gd_status allocate()
    {
        gd_status s;
        if ((!devA || copyA) && (s = alloc(&dA, m, k, "A"))) return s;
        if (same)
            dB = dA;
        else if (!cross && (!devB || copyB) && (s = alloc(&dB, k, n, "B")))
            return s;
        if (!raw && k > 0) {
            if (!a_direct && (s = alloc(&dAp, p.mp, p.kp, "padded A"))) return s;
            if (!b_direct && (s = lay == GD_PADDED ? alloc(&dBq, p.kp, p.np, "padded B")
                                                    : alloc(&dBq, p.np, p.kp, "transposed B")))
                return s;
        }
        if (keep) {
            gd_describe(what, sizeof what, "R", m, n, cls);
            if (!(dR = c.alloc_kept(out, (size_t)(m * n) * es, what))) return c.status();
        }
        /* a resident result in one block whose layout is its own is
         * computed in place */
        if (keep && g.bi * g.bj == 1 && cm == m && cn == n)
            dC = dR;
        else if ((s = alloc(&dC, cm, cn, "R")))
            return s;
        if (wit) {
            gd_describe(what, sizeof what, "K", cm, cn, GD_INT32);
            if (!(dK = c.alloc((size_t)(cm * cn) * 4, what))) return c.status();
            if (kout.device) {
                gd_describe(what, sizeof what, "K", m, n, kcls);
                if (!(dKR = c.alloc_kept(kout, (size_t)(m * n) * gd_class_bytes(kcls), what)))
                    return c.status();
            }
            p.K = (int *)dK;
        }
        p.Bk = NULL;
        p.ldbk = 0;
        /* (cross: B's columns in dA, k == m its leading dimension) */
        const void *b_dev = cross ? (const void *)((char *)dA + (size_t)(jb * m) * es) : dB;
        if (!op.b_rows && (b_dev || devB)) {
            p.Bk = b_dev ? b_dev : B.ptr;
            p.ldbk = b_dev ? b_tight : B.ld;
        }
        p.A = raw || a_direct ? (dA ? dA : A.ptr) : dAp;
        p.B = raw || b_direct ? (b_dev ? b_dev : B.ptr) : dBq;
        p.C = dC;
        p.lda = raw && !dA ? A.ld : p.mp;
        p.ldb = lay == GD_PADDED_BT ? p.np : raw && !dB ? B.ld : op.b_rows ? p.n : p.kp;
        p.ldc = cm;
        if (v.work_f && k > 0) {
            const size_t bytes = v.work_f(p);
            if (bytes) {
                gd_describe(what, sizeof what, "workspace", (int64_t)(bytes / es), 1, cls);
                if (!(p.work = c.alloc(bytes, what))) return c.status();
            }
        }
        /* GD_POISON: fill C first so that an element a kernel fails to
         * write shows (0xCD bytes: a large negative finite value) */
        c.poison(dC, (size_t)(cm * cn) * es, st, "poisoning R");
        return c.status();
    }

};
