/* ops/knn/host.cuh - the cpu variant.
 * Part of knn.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
gd_status run_cpu(const gd_matrix &X0, const gd_matrix &Y0, gd_class cls, gd_distance metric,
                  int64_t K, int largest, bool by_query, gd_out Dout, gd_out Iout, gd_class icls,
                  gd_timing *t)
{
    const int64_t mx = X0.rows, my = Y0.rows, d = X0.cols;
    const size_t es = gd_class_bytes(cls), bytes = (size_t)(K * my) * es;
    char what[96];
    gd_describe(what, sizeof what, "D", by_query ? my : K, by_query ? K : my, cls);
    gd_allocs al = {};
    gd_matrix Xc, Yc, X, Y;
    void *hx = NULL, *hy = NULL, *cx = NULL, *cy = NULL, *buf = NULL;
    int32_t *idx = NULL;
    gd_status s;
    if (!(s = gd_operand_class(&X0, cls, &Xc, &al, &cx, "X")) &&
        !(s = gd_operand_class(&Y0, cls, &Yc, &al, &cy, "Y")) &&
        !(s = gd_operand_host(&Xc, &X, &hx, "X")) && !(s = gd_operand_host(&Yc, &Y, &hy, "Y")) &&
        !(s = gd_host_result_begin(&Dout, bytes, what, &buf))) {
        /* by_query: the lists K x my after the indices (and D's), then
         * turned into place */
        const size_t n = (size_t)(K * my);
        idx = (int32_t *)malloc(n * 4 * (by_query ? 2 : 1) + (by_query ? bytes : 0) + 8);
        void *dk = by_query && idx ? (void *)(idx + 2 * n) : buf;
        int32_t *ik = by_query && idx ? idx + n : idx;
        if (!idx) {
            s = gd_fail(GD_ERR_MEMORY, "cannot allocate the indices (%.1f MiB) in host memory",
                        gd_mib((size_t)(K * my) * 4));
        } else if (X.ld != mx || Y.ld != my) {
            s = gd_fail(GD_ERR_INPUT, "internal: the cpu variant takes tight operands");
        } else {
            const double t0 = gd_now_ms();
            const int r = cls == GD_SINGLE
                              ? gd_cpu_knn_f((const float *)X.ptr, (const float *)Y.ptr, mx, my,
                                             d, metric, K, largest, (float *)dk, ik)
                              : gd_cpu_knn_d((const double *)X.ptr, (const double *)Y.ptr, mx,
                                             my, d, metric, K, largest, (double *)dk, ik);
            if (r) s = gd_fail(GD_ERR_MEMORY, "cannot allocate the threads' distance columns");
            if (!r && by_query) {
                gd_cpu_transpose(es, dk, K, K, my, buf);
                gd_cpu_transpose(4, ik, K, K, my, idx);
            }
            t->kernel_ms = gd_now_ms() - t0;
        }
    }
    if (buf || Dout.device) s = gd_host_result_end(&Dout, buf, bytes, s, t);
    if (!s)
        s = gd_host_index_result(&Iout, idx, by_query ? my : K, by_query ? K : my, icls, &Dout,
                                 "I", t);
    free(idx);
    free(hx);
    free(hy);
    free(cx);
    free(cy);
    return host_end(s, &al, t);
}

