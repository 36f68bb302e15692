/* ops/product/sections.cuh - product_sections: a stage's sections of A and B made ready (uploaded, copied or read in place, prepared into the variant's layout; one array given as both operands in crosses).
 * Part of product.cu, which includes it inside its anonymous namespace,
 * after plan.cuh. */
struct product_sections : product_plan {
    using product_plan::product_plan;

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

};
