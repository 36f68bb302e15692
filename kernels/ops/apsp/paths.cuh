/* ops/apsp/paths.cuh - apsp_paths: P after the rounds (from the last edges or from the rounds' tags), the trees made again where a tie may go round, the zero-cycle and negative-cycle checks.
 * Part of apsp.cu, which includes it inside its anonymous namespace, after
 * run_rounds.cuh. */
struct apsp_paths : apsp_rounds {
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

    /* chain_jump on P's n x n (ld ld): a column's two buffers in shared
     * memory where they fit, else the column and a block's scratch;
     * flags[0] set where a chain does not end */
    gd_status jump(int *Pj, int64_t ld)
    {
        gd_status s;
        const size_t sh = 2 * (size_t)n * sizeof(int);
        if (sh <= 160 * 1024 && !gd_setting_is(GD_SET_CHAIN, "global")) {
            /* (the most any n asks: set once a device) */
            if ((s = gd_cuda(gd_dynamic_smem<chain_jump<true>>(160 * 1024),
                             "the chain's shared memory")))
                return s;
            const unsigned cols = (unsigned)(n < 65535 ? n : 65535);
            chain_jump<true><<<cols, 512, sh, st>>>(Pj, ld, (int)n, NULL, flags);
        } else {
            /* the second buffer of each block's column in global memory */
            chain_global = true;
            const int64_t cols = n < 4 * (int64_t)gd_sm_count() ? n : 4 * (int64_t)gd_sm_count();
            int *scratch = NULL;
            if ((s = alloc((void **)&scratch, n, cols, GD_INT32, "the chain's second buffer")))
                return s;
            chain_jump<false><<<(unsigned)cols, 512, 0, st>>>(Pj, ld, (int)n, scratch, flags);
        }
        return gd_cuda(cudaGetLastError(), "the predecessors' chain");
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
            (const T *)D, (const T *)Dt, (int *)P, np, (int)n, flags, 0, n, np);
        if ((s = jump((int *)P, np))) return s;
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
        if (!wt_made) {
            if (cls == GD_SINGLE)
                with_weights<float>(wcls, last_edges_fn<float>{*this});
            else
                with_weights<double>(wcls, last_edges_fn<double>{*this});
            wt_made = true;
        }
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

};
