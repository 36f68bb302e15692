/* ops/apsp/ranks.cuh - Floyd-Warshall across the ranks of an MPI job: each rank's part of a '2dbc' D on its GPU, the rounds' block and panels broadcast by NCCL.
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
/* ---------------------------------------------------------------------
 * gd_apsp_ranks (gdCodistributed's gd_apsp on gdArray parts). The ranks
 * form a pr x pc grid; rank (gi, gj) holds the rows of D whose block of b
 * vertices (b a multiple of FB) is gi mod pr, and the columns whose block
 * is gj mod pc, each in order (the 2D block-cyclic layout of ScaLAPACK
 * and of gdCodistributed's '2dbc'), padded as one device's D is: np = n
 * rounded up to FB, the padding NaN, held by the rank whose block it
 * continues, so that every part's rows and columns are multiples of FB.
 * Round K (the FB vertices from k0, in block k0 / b: grid row orow and
 * grid column ocol hold its rows and columns):
 *   1. the owner (orow, ocol) closes D(K,K) (fw_diag) and transposes it;
 *      it goes down grid column ocol (NCCL);
 *   2. the ranks of grid column ocol relax their rows of the column panel
 *      against it; each piece goes along its grid row;
 *   3. the ranks of grid row orow transpose their columns of the row
 *      panel; each piece goes down its grid column;
 *   4. every rank relaxes its part against its rows of the column panel
 *      and its columns of the row panel.
 * These are one device's kernels on one device's operands (without the
 * lookahead, which only reorders disjoint elements), and a minimum rounds
 * nothing: D is one device's 'fw' D bit for bit on any grid. One stream
 * carries a rank's kernels and collectives in order, so a buffer is
 * written again only after every kernel that reads it. */

/* the index of the vertex held at l of the part in grid place q (p
 * places, blocks of b), and the place in a part of vertex v */
__host__ __device__ inline int64_t bc_global(int64_t l, int64_t b, int p, int q)
{
    return (l / b * p + q) * b + l % b;
}
__host__ __device__ inline int64_t bc_local(int64_t v, int64_t b, int p)
{
    return v / b / p * b + v % b;
}
/* how many of the vertices [0, m) grid place q holds */
inline int64_t bc_count(int64_t m, int64_t b, int p, int q)
{
    const int64_t full = m / b;
    int64_t c = full > q ? ((full - q - 1) / p + 1) * b : 0;
    if (m % b && full % p == q) c += m % b;
    return c;
}

// The part of D (lr x lc, padded) from the part of W (rows x cols, ld
// ldw): the weights, 0 on the diagonal, NaN padding; the flags as
// apsp_init's (a NaN, a sign bit, the first negative W(i,i)); with P,
// the tags' start as apsp_init's (i + 1 where an edge i -> j, else 0)
template <class T>
__global__ void ranks_init(const T *__restrict__ W, int64_t ldw, int64_t rows, int64_t cols,
                           T *__restrict__ D, int *__restrict__ P, int64_t lr, int64_t lc,
                           gd_grid g, int *flags)
{
    int f = 0, v = 0x7fffffff;
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < lr * lc;
         q += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = q % lr, j = q / lr;
        T d = pad_nan<T>();
        int p = 0;
        if (i < rows && j < cols) {
            const T w = W[i + ldw * j];
            if (w != w) f |= F_NAN;
            else if (signbit(w)) f |= F_SIGN;
            const int64_t gv = bc_global(i, g.b, g.pr, g.gi);
            if (gv == bc_global(j, g.b, g.pc, g.gj)) {
                if (w < 0) {
                    f |= F_NEGDIAG;
                    v = min(v, (int)gv + 1);
                }
                d = 0;
            } else {
                d = w;
                p = w < (T)INFINITY ? (int)gv + 1 : 0;
            }
        }
        D[q] = d;
        if (P) P[q] = p;
    }
    if (f) atomicOr(flags, f);
    if (v != 0x7fffffff) atomicMin(flags + 1, v);
}

// a negative diagonal entry of the part (rows x cols of D, ld lr): a
// negative cycle through that vertex (the smallest, 1-based)
template <class T>
__global__ void ranks_diag(const T *__restrict__ D, int64_t lr, int64_t rows, gd_grid g, int *flags)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t v = bc_global(i, g.b, g.pr, g.gi);
        if (v / g.b % g.pc != g.gj) continue;
        if (D[i + lr * bc_local(v, g.b, g.pc)] < 0) {
            atomicOr(flags, F_NEGCYCLE);
            atomicMin(flags + 1, (int)v + 1);
        }
    }
}

/* What each rank tells the others between the steps: how it fared, its
 * flags */
struct rank_word {
    int32_t status, f[2];
    char msg[244];
};

/* every rank's word: the first rank that failed fails every rank (its
 * own error, the others' naming it); else f[0] the flags together and
 * f[1] the smallest vertex */
static gd_status ranks_agree(gd_status s, int f[2])
{
    const int n = gd_mpi_size();
    rank_word mine, *all = (rank_word *)calloc((size_t)n, sizeof(rank_word));
    memset(&mine, 0, sizeof mine);
    mine.status = (int32_t)s;
    mine.f[0] = f[0];
    mine.f[1] = f[1];
    if (s) snprintf(mine.msg, sizeof mine.msg, "%s", gd_last_error());
    if (!all) return s ? s : gd_fail(GD_ERR_MEMORY, "host memory for the ranks' words");
    gd_status g = n > 1 ? gd_mpi_allgather(&mine, sizeof mine, all) : GD_OK;
    if (n <= 1) all[0] = mine;
    for (int r = 0; r < n && !g; ++r) {
        if (all[r].status) {
            g = r == gd_mpi_rank() ? s
                                   : gd_fail((gd_status)all[r].status, "rank %d: %s", r + 1,
                                             all[r].msg);
            break;
        }
        f[0] |= all[r].f[0];
        if (all[r].f[1] < f[1]) f[1] = all[r].f[1];
    }
    free(all);
    return g;
}

/* One rank's rounds: its part, the panels' buffers, its two groups */
template <class T> struct rank_rounds {
    gd_call &c;
    const gd_grid g;
    cudaStream_t st;
    int64_t np, lr, lc; /* vertices padded; the part's rows and columns, padded */
    T *D, *Acol, *Ac, *Dkt, *Bt;
    int *P; /* the tags of the lengths that fall (fw's, for the chain), or NULL */
    gd_nccl_group row, col; /* this grid row's ranks, this grid column's */
    bool nonneg;

    /* round R (k0 = R FB) */
    gd_status round(int64_t R)
    {
        const int64_t k0 = R * FB, kb = k0 / g.b;
        const int orow = (int)(kb % g.pr), ocol = (int)(kb % g.pc);
        const bool in_row = g.gi == orow, in_col = g.gj == ocol;
        const int64_t r0 = in_row ? bc_local(k0, g.b, g.pr) : 0,
                      c0 = in_col ? bc_local(k0, g.b, g.pc) : 0;
        const gd_class cls = sizeof(T) == 4 ? GD_SINGLE : GD_DOUBLE;
        const size_t es = sizeof(T);
        const int tag = ~(int)R;
        gd_status s = GD_OK;
        if (in_row && in_col) {
            T *dkk = D + r0 + lr * c0;
            if ((s = launch_fw_diag<T>(dkk, P ? P + r0 + lr * c0 : NULL, NULL, lr, 0, tag, st)))
                return s;
            gd_launch_transpose(cls, dkk, lr, Dkt, FB, FB, st);
        }
        if (in_col) {
            if ((s = gd_nccl_bcast_on(&col, Dkt, FB * FB * es, orow, st))) return s;
            T *dcol = D + lr * c0;
            int *pcol = P ? P + lr * c0 : NULL;
            if ((s = gd_cuda(cudaMemcpyAsync(Acol, dcol, (size_t)(lr * FB) * es,
                                             cudaMemcpyDeviceToDevice, st), "the column panel")))
                return s;
            const gd_tile::relax<T> out = {dcol, dcol, lr, pcol, pcol, NULL, FB,
                                           NULL, NULL, NULL, NULL, NULL, lc, tag};
            relax_product<T>(Acol, lr, Dkt, FB, lr, FB, FB, out, nonneg, st);
            if ((s = gd_cuda(cudaMemcpyAsync(Ac, dcol, (size_t)(lr * FB) * es,
                                             cudaMemcpyDeviceToDevice, st), "the column panel")))
                return s;
        }
        if ((s = gd_nccl_bcast_on(&row, Ac, (size_t)(lr * FB) * es, ocol, st))) return s;
        if (in_row) gd_launch_transpose(cls, D + r0, lr, Bt, FB, lc, st);
        if ((s = gd_nccl_bcast_on(&col, Bt, (size_t)(lc * FB) * es, orow, st))) return s;
        const gd_tile::relax<T> all = {D, D, lr, P, P, NULL, FB,
                                       NULL, NULL, NULL, NULL, NULL, lc, tag};
        relax_product<T>(Ac, lr, Bt, lc, lr, lc, FB, all, nonneg, st);
        return gd_cuda(cudaGetLastError(), "a Floyd-Warshall round across ranks");
    }

    /* every round queued; the host waits for round R - 1 once R is
     * queued (polling: Ctrl-C, a rank gone), so the GPU always has the
     * next */
    gd_status rounds()
    {
        const int64_t n_rounds = np / FB;
        cudaEvent_t done[2] = {c.event(), c.event()};
        c.begin(GD_PHASE_KERNEL, st);
        for (int64_t R = 0; R < n_rounds && c.ok(); ++R) {
            if (!c.check(round(R)) || !c.cuda(cudaEventRecord(done[R & 1], st), "a round's end"))
                break;
            if (R > 0)
                c.check(gd_nccl_wait(&col, st, done[(R - 1) & 1], "the rounds across ranks"));
        }
        c.end(GD_PHASE_KERNEL, st);
        if (c.ok()) c.check(gd_nccl_wait(&col, st, NULL, "the rounds across ranks"));
        return c.status();
    }
};

/* One rank's call: bad, the rank's own verdict on its arguments, told
 * to every rank before any collective; then the groups, the part, every
 * rank's flags, the rounds, the diagonal, D's part kept (and, where Tout,
 * the tags' part: fw's, for the chain) */
template <class T>
static gd_status ranks_run(gd_call &c, const gd_matrix &W, const gd_grid &g, gd_out &Dout,
                           gd_out *Tout, int64_t *cycle_vertex, gd_status bad)
{
    const size_t es = sizeof(T);
    int f[2] = {0, 0x7fffffff};
    gd_status s = ranks_agree(bad, f);
    if (s) return s;
    rank_rounds<T> r{c, g, gd_stream(), gd_round_up(g.n, FB), 0, 0};
    r.lr = bc_count(r.np, g.b, g.pr, g.gi);
    r.lc = bc_count(r.np, g.b, g.pc, g.gj);
    int *flags = NULL;
    const T *w = NULL;
    /* (the groups' communicators are made at once on every rank) */
    if (c.check(gd_nccl_group_of(g.row, &r.row))) c.check(gd_nccl_group_of(g.column, &r.col));
    if (c.ok()) {
        w = (const T *)c.on_device(W, c.event(), r.st, "W's part");
        r.D = (T *)c.alloc((size_t)(r.lr * r.lc) * es + 1, "D's part (padded)");
        r.Acol = (T *)c.alloc((size_t)(r.lr * FB) * es + 1, "the column panel");
        r.Ac = (T *)c.alloc((size_t)(r.lr * FB) * es + 1, "the column panel");
        r.Dkt = (T *)c.alloc((size_t)(FB * FB) * es, "the diagonal block");
        r.Bt = (T *)c.alloc((size_t)(r.lc * FB) * es + 1, "the row panel");
        flags = (int *)c.alloc(2 * sizeof(int), "the flags");
        if (Tout) r.P = (int *)c.alloc((size_t)(r.lr * r.lc) * 4 + 4, "the tags' part (padded)");
    }
    if (c.ok()) {
        c.cuda(cudaMemcpyAsync(flags, f, sizeof f, cudaMemcpyHostToDevice, r.st), "the flags");
        c.begin(GD_PHASE_PREP, r.st);
        ranks_init<T><<<gd_blocks_for(r.lr * r.lc, 256), 256, 0, r.st>>>(
            w, W.ld, W.rows, W.cols, r.D, r.P, r.lr, r.lc, g, flags);
        c.end(GD_PHASE_PREP, r.st);
        if (c.launched("D's part from W's"))
            c.check(read_back(f, flags, sizeof f, r.st, "D's part from W's"));
    }
    if ((s = ranks_agree(c.status(), f))) return s;
    if (f[0] & F_NAN) return gd_fail(GD_ERR_INPUT, "W has a NaN: a weight must be a number");
    if (f[0] & F_NEGDIAG) {
        *cycle_vertex = f[1];
        return gd_fail(GD_ERR_NEGCYCLE,
                       "the graph has a negative cycle: W(%d,%d) < 0 (a negative self-loop)", f[1],
                       f[1]);
    }
    r.nonneg = sizeof(T) == 4 && !(f[0] & F_SIGN);
    r.rounds();
    /* a negative cycle: the smallest vertex, on every rank */
    f[0] = 0;
    f[1] = 0x7fffffff;
    if (c.ok()) {
        c.cuda(cudaMemcpyAsync(flags, f, sizeof f, cudaMemcpyHostToDevice, r.st), "the flags");
        ranks_diag<T><<<gd_blocks_for(W.rows, 256), 256, 0, r.st>>>(r.D, r.lr, W.rows, g, flags);
        if (c.launched("the diagonal check"))
            c.check(read_back(f, flags, sizeof f, r.st, "the diagonal check"));
    }
    if ((s = ranks_agree(c.status(), f))) return s;
    if (f[0] & F_NEGCYCLE) {
        *cycle_vertex = f[1];
        return gd_fail(GD_ERR_NEGCYCLE, "the graph has a negative cycle: a closed path through "
                       "vertex %d has negative length", f[1]);
    }
    /* the parts without their padding, kept */
    for (int q = 0; q < (Tout ? 2 : 1); ++q) {
        const size_t e = q ? 4 : es;
        void *out = c.alloc_kept(q ? *Tout : Dout, (size_t)(W.rows * W.cols) * e + 1,
                                 q ? "the tags' part" : "D's part");
        if (out && W.rows > 0 && W.cols > 0)
            c.cuda(cudaMemcpy2DAsync(out, (size_t)W.rows * e, q ? (void *)r.P : (void *)r.D,
                                     (size_t)r.lr * e, (size_t)W.rows * e, (size_t)W.cols,
                                     cudaMemcpyDeviceToDevice, r.st),
                   "a part");
    }
    c.wait(r.st, "the shortest paths across ranks");
    return c.finish();
}

/* this rank's arguments: its part of W on its GPU, in single or double,
 * of the grid's sizes */
static gd_status ranks_args(const gd_matrix &W, const gd_grid &g)
{
    if (W.cls != GD_SINGLE && W.cls != GD_DOUBLE)
        return gd_fail(GD_ERR_INPUT, "the rounds across ranks take single or double weights");
    if (W.where != GD_DEVICE)
        return gd_fail(GD_ERR_INPUT, "the rounds across ranks take W's parts on the GPUs");
    if (g.b <= 0 || g.b % FB || g.pr < 1 || g.pc < 1 || g.gi < 0 || g.gi >= g.pr || g.gj < 0 ||
        g.gj >= g.pc || g.n < 0 || g.n >= INT32_MAX)
        return gd_fail(GD_ERR_INPUT, "the rounds across ranks take blocks of a multiple of %d "
                       "vertices on a grid of the ranks", (int)FB);
    if (W.rows != bc_count(g.n, g.b, g.pr, g.gi) || W.cols != bc_count(g.n, g.b, g.pc, g.gj))
        return gd_fail(GD_ERR_SIZE, "W's part is %lldx%lld, not the grid's %lldx%lld",
                       (long long)W.rows, (long long)W.cols,
                       (long long)bc_count(g.n, g.b, g.pr, g.gi),
                       (long long)bc_count(g.n, g.b, g.pc, g.gj));
    return GD_OK;
}

/* one device's call state for some rows of the whole (the trees, the
 * chain): class cls, n vertices, np padded, on this thread's stream */
static apsp_run rows_run(gd_call &c, gd_class cls, int64_t n, int64_t np)
{
    apsp_run r;
    memset(&r, 0, sizeof r);
    r.al = c.allocs();
    r.call = &c;
    r.cls = r.wcls = cls;
    r.es = gd_class_bytes(cls);
    r.n = n;
    r.np = np;
    r.st = gd_stream();
    return r;
}

/* Rows of P made trees (gd_apsp_trees): D's and P's rows (rows x n, the
 * rows of the sources src), W whole; each run of consecutive sources is
 * one apsp_run::trees on those rows (W transposed once) */
static gd_status trees_of_rows(gd_call &c, const gd_matrix &D, const gd_matrix &W,
                               const gd_matrix &P, const int64_t *src, gd_out &Pout,
                               int64_t *repaired)
{
    const int64_t rows = D.rows, n = D.cols;
    apsp_run r = rows_run(c, D.cls, n, n);
    r.ldd = rows;
    r.w = c.on_device(W, c.event(), r.st, "W");
    r.D = (void *)c.on_device(D, c.event(), r.st, "D's rows");
    const void *p = c.on_device(P, c.event(), r.st, "P's rows");
    r.P = c.alloc_kept(Pout, (size_t)(rows * n) * sizeof(int) + 1, "P's rows");
    if (!c.ok()) return c.finish();
    c.cuda(cudaMemcpyAsync(r.P, p, (size_t)(rows * n) * sizeof(int), cudaMemcpyDeviceToDevice,
                           r.st),
           "P's rows");
    *repaired = 0;
    c.begin(GD_PHASE_KERNEL, r.st);
    for (int64_t l0 = 0, l1; l0 < rows && c.ok(); l0 = l1) {
        for (l1 = l0 + 1; l1 < rows && src[l1] == src[l1 - 1] + 1;) ++l1;
        int rep = 0;
        r.d0 = src[l0] - l0;
        c.check(r.trees(src[l0], l1 - l0, &rep));
        *repaired += rep;
    }
    c.end(GD_PHASE_KERNEL, r.st);
    c.wait(r.st, "the predecessors' trees");
    return c.finish();
}

/* The chain across ranks (gd_apsp_chain), from the rounds' tags: D whole
 * (n x n, tight, on every rank), T the tags of this rank's rows (rows x
 * n; the sources src, 0-based): chain_search on those rows against D
 * padded as one device's (NaN) and its transpose, a run of consecutive
 * sources at a time; then (jump) chain_jump on P whole. *broken: a chain
 * rounding broke (the caller then takes the last edges). Each element is
 * one device's chain's, bit for bit. */
template <class T>
static gd_status chain_of_rows(gd_call &c, const gd_matrix &D, const gd_matrix &Tg,
                               const int64_t *src, gd_out &Pout, int *broken)
{
    const int64_t rows = Tg.rows, n = Tg.cols;
    apsp_run r = rows_run(c, sizeof(T) == 4 ? GD_SINGLE : GD_DOUBLE, n, gd_round_up(n, FB));
    const bool jump = src == NULL;
    const void *d = jump ? NULL : c.on_device(D, c.event(), r.st, "D");
    const void *t = c.on_device(Tg, c.event(), r.st, jump ? "P" : "the tags");
    int *p = (int *)c.alloc_kept(Pout, (size_t)(rows * n) * 4 + 4, "P");
    r.flags = (int *)c.alloc(2 * sizeof(int), "the flags");
    if (!jump) {
        r.D = c.alloc((size_t)(r.np * r.np) * sizeof(T), "D padded");
        r.Dt = c.alloc((size_t)(r.np * r.np) * sizeof(T), "D transposed");
    }
    if (!c.ok()) return c.finish();
    c.cuda(cudaMemcpyAsync(p, t, (size_t)(rows * n) * 4, cudaMemcpyDeviceToDevice, r.st), "P");
    c.cuda(cudaMemsetAsync(r.flags, 0, sizeof(int), r.st), "a flag");
    c.begin(GD_PHASE_KERNEL, r.st);
    if (jump) {
        c.check(r.jump(p, n));
    } else {
        c.cuda(cudaMemsetAsync(r.D, 0xff, (size_t)(r.np * r.np) * sizeof(T), r.st), "D padded");
        c.cuda(cudaMemcpy2DAsync(r.D, (size_t)r.np * sizeof(T), d, (size_t)n * sizeof(T),
                                 (size_t)n * sizeof(T), (size_t)n, cudaMemcpyDeviceToDevice, r.st),
               "D padded");
        gd_launch_transpose(r.cls, r.D, r.np, r.Dt, r.np, r.np, r.st);
        const int64_t gy = (n + 7) / 8 < 65535 ? (n + 7) / 8 : 65535;
        for (int64_t l0 = 0, l1; l0 < rows && c.ok(); l0 = l1) {
            for (l1 = l0 + 1; l1 < rows && src[l1] == src[l1 - 1] + 1;) ++l1;
            const dim3 grid((unsigned)((l1 - l0 + 31) / 32), (unsigned)gy), block(32, 8);
            chain_search<T><<<grid, block, 0, r.st>>>((const T *)r.D, (const T *)r.Dt, p + l0,
                                                      r.np, (int)n, r.flags, src[l0], l1 - l0,
                                                      rows);
            c.launched("the predecessors' chain");
        }
    }
    c.end(GD_PHASE_KERNEL, r.st);
    if (c.ok()) c.check(read_back(broken, r.flags, sizeof(int), r.st, "the predecessors' chain"));
    return c.finish();
}
