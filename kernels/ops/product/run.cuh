/* ops/product/run.cuh - product_run: one call of a product on the GPU (plan, allocate, per stage the operands' sections and the sections of C they complete, the result).
 * Part of product.cu, which includes it inside its anonymous namespace. */
/* One call of a product on the GPU, in units the scheduler
 * (gd_run_product) puts together: plan (where each operand is read from,
 * what is allocated), allocate, then per stage the operands' sections
 * (uploaded, copied or read in place, and prepared into the variant's
 * layout) and the sections of C they complete (compute), then the result
 * (kept on the device, or downloaded block by block). */
struct product_run {
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

    product_run(gd_call &c_, const gd_product_op &op_, const gd_product_variant &v_,
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

    /* rows [r0, r1) and columns [c0, c1) of the host's A to dst (leading
     * dimension ld) */
    bool upload_a_to(const char *dst, int64_t ld, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
    {
        if (r1 <= r0 || c1 <= c0) return true;
        return pl->upload((void *)dst, (size_t)ld * es,
                          (const char *)A.ptr + (size_t)(r0 + c0 * A.ld) * es, (size_t)A.ld * es,
                          (size_t)(r1 - r0) * es, (size_t)(c1 - c0), "copy of A to the GPU");
    }
    /* ... into their place in the whole A at dA (leading dimension m) */
    bool upload_a(int64_t r0, int64_t r1, int64_t c0, int64_t c1)
    {
        return upload_a_to((const char *)dA + (size_t)(r0 + c0 * m) * es, m, r0, r1, c0, c1);
    }
    /* ... columns [c0, c1) of the block of rows i0 .. i0+mi-1 into their
     * place in the tight block at blk (leading dimension mi) */
    bool upload_block(const char *blk, int64_t i0, int64_t mi, int64_t c0, int64_t c1)
    {
        return upload_a_to(blk + (size_t)(c0 * mi) * es, mi, i0, i0 + mi, c0, c1);
    }

    /* Stage q of one array given as both operands (cross): every part
     * uploads its own columns of A, [jb, jb + n), once in all: B's section
     * of columns from row i0 down (the rows above came with the blocks of
     * rows before), and the block of rows i0 .. i0+mi-1 in its columns
     * past that block. Then the block of rows is complete here in this
     * part's columns, and on every other part's device in that part's:
     * those come peer to peer (gd_share_get), or from the host where
     * the call has no share or that part has dropped out. B's sections are
     * then read from dA; only A's section of rows crosses between devices. */
    gd_status operands_cross(int q, int64_t i0, int64_t mi, int64_t j0, int64_t nj,
                             const char **a_blk, int64_t *a_ld, const char **b_blk, int64_t *b_ld)
    {
        gd_status s;
        const int64_t c0 = jb + j0, c1 = jb + j0 + nj;
        if (!upload_a(i0, m, c0, c1) || !upload_a(i0, i0 + mi, c1, jb + n)) return c.status();
        if (share && (s = gd_share_put(share, part, q, dA, gd_copy_stream()))) return s;
        for (int r = 0; r < nparts; ++r) {
            int64_t o0, o1;
            part_columns(p.args.whole_n, r, nparts, &o0, &o1);
            if (r == part || o1 <= o0 || mi == 0) continue;
            const size_t at = (size_t)(i0 + o0 * m) * es;
            bool absent = !share;
            if (share && (s = gd_share_get(share, part, r, q, (char *)dA + at, (size_t)m * es, at,
                                           (size_t)m * es, (size_t)mi * es, (size_t)(o1 - o0), st,
                                           &absent)))
                return s;
            if (absent && !upload_a(i0, i0 + mi, o0, o1)) return c.status();
        }
        *a_blk = (const char *)dA + (size_t)i0 * es;
        *a_ld = m;
        *b_blk = nj ? (const char *)dA + (size_t)((jb + j0) * m) * es : NULL;
        *b_ld = m;
        return GD_OK;
    }

    /* Stage q's section of A (rows i0 .. i0+mi-1) and of B (columns j0 ..
     * j0+nj-1) on the device, in the variant's layout. An uploaded A is
     * kept as blocks of rows, each contiguous (mi x k at i0 k; padded,
     * mpi x kp at i0 kp), or whole (cross); B's sections of columns are
     * contiguous already (transposed: npj x kp at j0 kp). A resident
     * operand's sections are read in place (leading dimension A.ld or
     * B.ld). */
    gd_status operands(int q, int64_t i0, int64_t mi, int64_t j0, int64_t nj)
    {
        gd_status s;
        const char *a_blk = NULL, *b_blk = NULL;
        int64_t a_ld = mi, b_ld = b_tight;
        if (cross) {
            if ((s = operands_cross(q, i0, mi, j0, nj, &a_blk, &a_ld, &b_blk, &b_ld))) return s;
        } else if (mi && k) {
            if (!devA && share) {
                /* this part's share of the block's columns (contiguous
                 * in it), from the host; the others' come from their
                 * devices below, once B's section is on its way */
                a_blk = (const char *)dA + (size_t)(i0 * k) * es;
                int64_t k0, k1;
                gd_part_range(k, 1, part, nparts, &k0, &k1);
                if (!upload_block(a_blk, i0, mi, k0, k1)) return c.status();
                if ((s = gd_share_put(share, part, q, a_blk + (size_t)(k0 * mi) * es,
                                      gd_copy_stream())))
                    return s;
            } else if (!devA) {
                a_blk = (const char *)dA + (size_t)(i0 * k) * es;
                if (!upload_block(a_blk, i0, mi, 0, k)) return c.status();
            } else if (copyA) {
                a_blk = (const char *)dA + (size_t)(i0 * k) * es;
                if ((s = gd_copy_d2d((void *)a_blk, (size_t)mi * es,
                                     (const char *)A.ptr + (size_t)i0 * es, (size_t)A.ld * es,
                                     (size_t)mi * es, (size_t)k, st)))
                    return s;
            } else {
                a_blk = (const char *)A.ptr + (size_t)i0 * es;
                a_ld = A.ld;
            }
        }
        if (nj && k && !cross) {
            const int64_t b_off = op.b_rows ? 0 : j0; /* b_rows: one block */
            const size_t rows = (size_t)(op.b_rows ? k : nj);
            if (same) {
                b_blk = a_blk;
                b_ld = a_ld;
            } else if (!devB) {
                /* a tight B's section of columns is one piece */
                const bool flat = B.ld == b_tight;
                const size_t width = flat ? rows * b_tight * es : (size_t)b_tight * es;
                b_blk = (const char *)dB + (size_t)(b_off * k) * es;
                if (!pl->upload((void *)b_blk, width,
                                (const char *)B.ptr + (size_t)(b_off * B.ld) * es,
                                flat ? width : (size_t)B.ld * es, width, flat ? 1 : rows,
                                "copy of B to the GPU"))
                    return c.status();
            } else if (copyB) {
                b_blk = (const char *)dB + (size_t)(b_off * k) * es;
                if ((s = gd_copy_d2d((void *)b_blk, (size_t)b_tight * es,
                                     (const char *)B.ptr + (size_t)(b_off * B.ld) * es,
                                     (size_t)B.ld * es, (size_t)b_tight * es, rows, st)))
                    return s;
            } else {
                b_blk = (const char *)B.ptr + (size_t)(b_off * B.ld) * es;
                b_ld = B.ld;
            }
        }
        if (mi && k && !devA && share && !cross)
            for (int r = 0; r < nparts; ++r) {
                int64_t k0, k1;
                gd_part_range(k, 1, r, nparts, &k0, &k1);
                if (r == part || k1 <= k0) continue;
                char *theirs = (char *)a_blk + (size_t)(k0 * mi) * es;
                const size_t bytes = (size_t)((k1 - k0) * mi) * es;
                bool absent = false;
                if ((s = gd_share_get(share, part, r, q, theirs, bytes, 0, bytes, bytes, 1, st,
                                      &absent)))
                    return s;
                /* (r dropped out: its columns from the host) */
                if (absent && !upload_block(a_blk, i0, mi, k0, k1)) return c.status();
            }
        c.begin(GD_PHASE_PREP, st);
        if (k > 0 && !raw) {
            gd_plan b = p;
            if (mi && !a_direct) {
                b.m = mi;
                b.mp = gd_round_up(mi, v.row_mult);
                if (cls == GD_SINGLE)
                    launch_prep_a<float>(op, (const float *)a_blk, a_ld, (float *)dAp + i0 * p.kp, b, st);
                else
                    launch_prep_a<double>(op, (const double *)a_blk, a_ld, (double *)dAp + i0 * p.kp, b, st);
            }
            if (nj && !b_direct) {
                b.n = nj;
                b.np = gd_round_up(nj, v.col_mult);
                /* only GD_PADDED_BT comes in blocks: the others start at 0 */
                if (cls == GD_SINGLE)
                    launch_prep_b<float>(op, lay, (const float *)b_blk, b_ld, (float *)dBq + j0 * p.kp, b, st);
                else
                    launch_prep_b<double>(op, lay, (const double *)b_blk, b_ld, (double *)dBq + j0 * p.kp, b, st);
            }
            if ((s = gd_cuda(cudaGetLastError(), "layout preparation kernel"))) return s;
            /* (the same array twice is looked at as both: B's prepared
             * layout is another matrix, its columns A's) */
            if (v.inspect &&
                (s = v.inspect(p, cls, mi ? (const char *)p.A + (size_t)(i0 * p.kp) * es : NULL,
                               mi ? gd_round_up(mi, v.row_mult) : 0, i0,
                               nj ? (const char *)p.B + (size_t)(j0 * p.kp) * es : NULL,
                               nj ? gd_round_up(nj, v.col_mult) : 0, j0, q == 0)))
                return s;
        }
        c.end(GD_PHASE_PREP, st);
        return c.status();
    }

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

