/* ops/product/devices.cuh - a product across devices: the parts' context, a panel's way home, one part's product.
 * Part of product.cu, which includes it inside its anonymous namespace. */
struct split_ctx {
    const gd_product_op *op;
    const gd_product_variant *v;
    gd_class cls;
    const gd_matrix *A, *B;
    gd_out out, kout;
    const gd_op_args *args;
    int64_t m, n;
    /* a resident result: R and K on device home (CUDA ordinal home_ord) */
    void *dR, *dK;
    int home, home_ord;
    /* A on the host, uploaded once in all (NULL: by every part whole) */
    gd_share *share;
    /* a distributed result: each part's panels of R (and K) stay on its
     * device, as piece `part` (NULL: R made whole) */
    gd_pieces *rp, *kp;
};

/* a part's resident panel (bytes at src, on this thread's device) into
 * its place at dst on the result's device; src freed after */
gd_status panel_home(const split_ctx &x, void *dst, void *src, size_t bytes, const char *label)
{
    char what[96];
    snprintf(what, sizeof what, "copy of %s's panel from device %d to device %d", label,
             gd_device_index() + 1, x.home + 1);
    cudaStream_t st = gd_stream();
    gd_status s = gd_peer_copy(dst, x.home_ord, src, gd_ordinal(), bytes, st, what);
    if (!s) s = gd_cuda(cudaStreamSynchronize(st), what);
    gd_dev_free(src);
    return s;
}

gd_status product_part(void *c, int i, int nparts, gd_timing *t)
{
    const split_ctx &x = *(const split_ctx *)c;
    int64_t j0, j1;
    part_columns(x.n, i, nparts, &j0, &j1);
    const size_t es = gd_class_bytes(x.cls);
    gd_matrix B = *x.B;
    gd_pieces sub = {};
    if (B.pieces) {
        /* a distributed B: the pieces of its columns [j0, j1); the part's
         * own device's piece read in place where it holds them all */
        const size_t col = (size_t)B.rows * es;
        for (int p = 0; p < B.pieces->n; ++p) {
            const gd_piece &pc = B.pieces->p[p];
            const int64_t lo = j0 > pc.first ? j0 : pc.first;
            const int64_t hi = j1 < pc.first + pc.cols ? j1 : pc.first + pc.cols;
            if (hi > lo)
                sub.p[sub.n++] = {(char *)pc.ptr + (size_t)(lo - pc.first) * col, pc.dev, lo - j0,
                                  hi - lo};
        }
        B.cols = j1 - j0;
        if (sub.n == 1 && sub.p[0].dev == gd_device_index()) {
            B.ptr = sub.p[0].ptr;
            B.ld = B.rows;
            B.dev = sub.p[0].dev;
            B.pieces = NULL;
        } else {
            B.pieces = &sub;
        }
    } else if (x.op->b_rows) {
        B.ptr = (const char *)B.ptr + (size_t)j0 * es;
        B.rows = j1 - j0;
    } else {
        B.ptr = (const char *)B.ptr + (size_t)(j0 * B.ld) * es;
        B.cols = j1 - j0;
    }
    gd_op_args args = *x.args;
    args.whole_m = x.m;
    args.whole_n = x.n;
    const size_t kes = args.witness ? gd_class_bytes(args.witness_cls) : 0;
    if (j1 == j0) return GD_OK;
    gd_out out = {}, kout = {};
    void *pR = NULL, *pK = NULL;
    if (x.dR || x.rp) {
        out.device = &pR;
        kout.device = &pK;
    } else {
        out.ptr = (char *)x.out.ptr + (size_t)(j0 * x.m) * es;
        kout.ptr = args.witness ? (char *)x.kout.ptr + (size_t)(j0 * x.m) * kes : NULL;
    }
    if (args.witness) args.witness = &kout;
    gd_status s = gd_run_product(*x.op, *x.v, x.cls, *x.A, B, out, args, t, x.share, i, nparts);
    if (!s && x.rp) { /* the panels stay here */
        x.rp->p[i] = {pR, gd_device_index(), j0, j1 - j0};
        if (x.kp) x.kp->p[i] = {pK, gd_device_index(), j0, j1 - j0};
        return s;
    }
    if (s || !x.dR) return s;
    const size_t cells = (size_t)((j1 - j0) * x.m);
    s = panel_home(x, (char *)x.dR + (size_t)(j0 * x.m) * es, pR, cells * es, "R");
    if (pK) {
        gd_status sk = panel_home(x, (char *)x.dK + (size_t)(j0 * x.m) * kes, pK, cells * kes, "K");
        if (!s) s = sk;
    }
    return s;
}
