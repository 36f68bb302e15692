/* ops/apsp/host.cuh - the cpu variants: Floyd-Warshall on the host in single, double and the integer classes, P's last edges and trees.
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
/* P(i,j) = the first q + 1 of min_q D(i,q) + W(q,j) with W's diagonal
 * Inf (the cpu min-plus with its witness); D n x n, W (ldw) on the host.
 * Nonzero when its work space cannot be allocated. */
static int last_edges_host(gd_class cls, const void *W, int64_t ldw, const void *D, int32_t *P,
                           int64_t n)
{
    const size_t es = gd_class_bytes(cls), bytes = (size_t)(n * n) * es + 1;
    void *Wb = malloc(bytes), *R = malloc(bytes);
    if (!Wb || !R) {
        free(Wb);
        free(R);
        return -1;
    }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t q = 0; q < n; ++q) {
            if (cls == GD_SINGLE)
                ((float *)Wb)[q + n * j] = q == j ? INFINITY : ((const float *)W)[q + ldw * j];
            else
                ((double *)Wb)[q + n * j] = q == j ? INFINITY : ((const double *)W)[q + ldw * j];
        }
    if (cls == GD_SINGLE)
        gd_cpu_minplus_f((const float *)D, (const float *)Wb, (float *)R, P, n, n, n);
    else
        gd_cpu_minplus_d((const double *)D, (const double *)Wb, (double *)R, P, n, n, n);
    free(Wb);
    free(R);
    return 0;
}

/* The cpu variants' frame: W on the host (Wh), P's int32 scratch (with
 * P0), D's buffer; compute(Wh, buf, P) fills them (timed as the kernel);
 * then the results where they go, on every path. */
template <class Fn>
gd_status host_run(const gd_matrix &W, gd_out Dout, const gd_out *P0, gd_class pcls,
                   gd_timing *t, Fn &&compute)
{
    const int64_t n = W.rows;
    const size_t bytes = (size_t)(n * n) * gd_class_bytes(W.cls);
    gd_matrix Wh;
    void *hw = NULL, *buf = NULL;
    int32_t *P = NULL;
    gd_out Pout = {};
    char what[96];
    gd_status s = gd_operand_host(&W, &Wh, &hw, "W");
    gd_describe(what, sizeof what, "D", n, n, W.cls);
    if (!s && P0) {
        Pout = *P0;
        if (!(P = (int32_t *)malloc((size_t)(n * n) * 4 + 1)))
            s = gd_fail(GD_ERR_MEMORY, "cannot allocate P (%lld x %lld int32) in host memory",
                        (long long)n, (long long)n);
    }
    if (!s) s = gd_host_result_begin(&Dout, bytes, what, &buf);
    if (!s) {
        const double t0 = gd_now_ms();
        s = compute(Wh, buf, P);
        t->kernel_ms = gd_now_ms() - t0;
    }
    if (buf || Dout.device) s = gd_host_result_end(&Dout, buf, bytes, s, t);
    if (P && !s) s = gd_host_index_result(&Pout, P, n, n, pcls, &Dout, "P", t);
    free(P);
    free(hw);
    if (!s) {
        snprintf(t->variant, sizeof t->variant, "cpu");
        snprintf(t->device, sizeof t->device, "cpu (OpenMP)");
    }
    return s;
}

/* the cpu variant in single and double */
gd_status run_cpu(const gd_matrix &W, gd_out Dout, const gd_out *P0, gd_class pcls,
                  int64_t *cycle_vertex, gd_timing *t)
{
    const int64_t n = W.rows;
    return host_run(W, Dout, P0, pcls, t, [&](const gd_matrix &Wh, void *buf, int32_t *P) {
        gd_status s = GD_OK;
        const bool single = W.cls == GD_SINGLE;
        auto wat = [&](int64_t i, int64_t j) -> double {
            return single ? ((const float *)Wh.ptr)[i + Wh.ld * j]
                          : ((const double *)Wh.ptr)[i + Wh.ld * j];
        };
        auto dat = [&](int64_t i, int64_t j) -> double {
            return single ? ((float *)buf)[i + n * j] : ((double *)buf)[i + n * j];
        };
        /* D (and with track, P) from W: the weights, 0 on the diagonal */
        auto init = [&](bool track) {
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) {
                    if (single)
                        ((float *)buf)[i + n * j] =
                            i == j ? 0.0f : ((const float *)Wh.ptr)[i + Wh.ld * j];
                    else
                        ((double *)buf)[i + n * j] = i == j ? 0.0 : wat(i, j);
                    if (track) P[i + n * j] = (i != j && wat(i, j) < INFINITY) ? (int32_t)i + 1 : 0;
                }
        };
        int negdiag = 0, nan = 0;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
                const double w = wat(i, j);
                if (w != w) nan = 1;
                if (i == j && w < 0 && !negdiag) negdiag = (int)i + 1;
            }
        if (nan) {
            s = gd_fail(GD_ERR_INPUT, "W has a NaN: a weight must be a number");
        } else if (negdiag) {
            *cycle_vertex = negdiag;
            s = gd_fail(GD_ERR_NEGCYCLE,
                        "the graph has a negative cycle: W(%d,%d) < 0 (a negative self-loop)",
                        negdiag, negdiag);
        } else {
            /* the lengths first (register tiles: cpu.c) */
            init(false);
            if (single)
                gd_cpu_fw_f((float *)buf, NULL, n);
            else
                gd_cpu_fw_d((double *)buf, NULL, n);
            for (int64_t i = 0; i < n && !s; ++i)
                if (dat(i, i) < 0) {
                    *cycle_vertex = i + 1;
                    s = gd_fail(GD_ERR_NEGCYCLE,
                                "the graph has a negative cycle: a closed path through vertex "
                                "%lld has negative length",
                                (long long)(i + 1));
                }
        }
        if (!s && P) {
            /* P as on the GPU: the last edges from the lengths where no
             * cycle has weight 0, else tracked with the edge counts */
            bool zero = false;
            for (int64_t j = 0; j < n && !zero; ++j)
                for (int64_t i = 0; i < j; ++i)
                    if (dat(i, j) + dat(j, i) == 0) {
                        zero = true;
                        break;
                    }
            int rc = 0;
            if (zero) {
                init(true);
                rc = single ? gd_cpu_fw_f((float *)buf, P, n) : gd_cpu_fw_d((double *)buf, P, n);
            } else if (!(rc = last_edges_host(W.cls, Wh.ptr, Wh.ld, buf, P, n))) {
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = 0; i < n; ++i)
                        if (i == j || !(dat(i, j) < INFINITY)) P[i + n * j] = 0;
            }
            /* rows whose predecessors circle chosen again (gd_cpu_apsp_trees) */
            int64_t repaired = 0;
            if (!rc)
                rc = single ? gd_cpu_apsp_trees_f((const float *)buf, n, (const float *)Wh.ptr,
                                                  Wh.ld, P, n, n, 0, n, &repaired)
                            : gd_cpu_apsp_trees_d((const double *)buf, n, (const double *)Wh.ptr,
                                                  Wh.ld, P, n, n, 0, n, &repaired);
            if (rc)
                s = gd_fail(GD_ERR_MEMORY, "cannot allocate the predecessors' work space (%lld "
                            "x %lld, twice) in host memory", (long long)n, (long long)n);
        }
        return s;
    });
}

/* the cpu variant on an integer class: Floyd-Warshall in the class,
 * saturating (cpu.c) */
gd_status run_cpu_int(const gd_matrix &W, gd_out Dout, const gd_out *P0, gd_class pcls,
                      int64_t *cycle_vertex, gd_timing *t)
{
    return host_run(W, Dout, P0, pcls, t, [&](const gd_matrix &Wh, void *buf, int32_t *P) {
        int64_t cycle = 0;
        const int rc = gd_cpu_apsp_int(W.cls, Wh.ptr, Wh.ld, buf, P, W.rows, &cycle);
        if (rc == 2 || rc == 1) *cycle_vertex = cycle;
        if (rc == 2)
            return gd_fail(GD_ERR_NEGCYCLE, "the graph has a negative cycle: W(%lld,%lld) < 0 (a "
                           "negative self-loop)", (long long)cycle, (long long)cycle);
        if (rc == 1)
            return gd_fail(GD_ERR_NEGCYCLE, "the graph has a negative cycle: a closed path "
                           "through vertex %lld has negative length", (long long)cycle);
        if (rc)
            return gd_fail(GD_ERR_MEMORY, "cannot allocate the edge counts (%lld x %lld int32) "
                           "in host memory", (long long)W.rows, (long long)W.rows);
        return GD_OK;
    });
}

