/* ops/knn/host.cuh - the cpu variant.
 * Part of knn.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
gd_status run_cpu(const gd_matrix &X0, const gd_matrix &Y0, gd_class cls, gd_distance metric,
                  int64_t K, int largest, gd_out Dout, gd_out Iout, gd_class icls, gd_timing *t)
{
    const int64_t mx = X0.rows, my = Y0.rows, d = X0.cols;
    const size_t es = gd_class_bytes(cls), bytes = (size_t)(K * my) * es;
    char what[96];
    gd_describe(what, sizeof what, "D", K, my, cls);
    gd_allocs al = {};
    gd_matrix Xc, Yc, X, Y;
    void *hx = NULL, *hy = NULL, *cx = NULL, *cy = NULL, *buf = NULL;
    int32_t *idx = NULL;
    gd_status s;
    if (!(s = gd_operand_class(&X0, cls, &Xc, &al, &cx, "X")) &&
        !(s = gd_operand_class(&Y0, cls, &Yc, &al, &cy, "Y")) &&
        !(s = gd_operand_host(&Xc, &X, &hx, "X")) && !(s = gd_operand_host(&Yc, &Y, &hy, "Y")) &&
        !(s = gd_host_result_begin(&Dout, bytes, what, &buf))) {
        idx = (int32_t *)malloc((size_t)(K * my) * 4 + 4);
        if (!idx) {
            s = gd_fail(GD_ERR_MEMORY, "cannot allocate the indices (%.1f MiB) in host memory",
                        gd_mib((size_t)(K * my) * 4));
        } else if (X.ld != mx || Y.ld != my) {
            s = gd_fail(GD_ERR_INPUT, "internal: the cpu variant takes tight operands");
        } else {
            const double t0 = gd_now_ms();
            const int r = cls == GD_SINGLE
                              ? gd_cpu_knn_f((const float *)X.ptr, (const float *)Y.ptr, mx, my,
                                             d, metric, K, largest, (float *)buf, idx)
                              : gd_cpu_knn_d((const double *)X.ptr, (const double *)Y.ptr, mx,
                                             my, d, metric, K, largest, (double *)buf, idx);
            if (r) s = gd_fail(GD_ERR_MEMORY, "cannot allocate the threads' distance columns");
            t->kernel_ms = gd_now_ms() - t0;
        }
    }
    if (buf || Dout.device) s = gd_host_result_end(&Dout, buf, bytes, s, t);
    if (!s) s = gd_host_index_result(&Iout, idx, K, my, icls, &Dout, "I", t);
    free(idx);
    free(hx);
    free(hy);
    free(cx);
    free(cy);
    s = gd_end_call(s, &al, t);
    snprintf(t->variant, sizeof t->variant, "cpu");
    snprintf(t->device, sizeof t->device, "cpu (OpenMP)");
    return s;
}

