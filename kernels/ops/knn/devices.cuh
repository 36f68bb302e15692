/* ops/knn/devices.cuh - the search across devices: X's rows or the queries a part, the parts' lists merged on the host.
 * Part of knn.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
struct knn_split {
    const gd_matrix *X, *Y;
    gd_class cls, icls;
    gd_distance metric;
    int64_t K;
    int largest;
    bool points;    /* X's rows split; else the queries */
    bool gemm;      /* the gemm variant (else fused) */
    bool by_query;  /* D and I my x K (else K x my) */
    gd_out D, I;
    void *pd;       /* points: the parts' lists, K x my each */
    int32_t *pi;
    int64_t mult;
    gd_share *share; /* gemm, queries split, X from the host: X's upload
                        shared (or NULL), in units */
    int units;
};

gd_status knn_part(void *c, int i, int nparts, gd_timing *t)
{
    const knn_split &x = *(const knn_split *)c;
    const size_t es = gd_class_bytes(x.cls);
    int64_t lo, hi;
    gd_matrix X = *x.X, Y = *x.Y;
    gd_out D = {}, I = {};
    gd_class icls = x.icls;
    if (x.points) {
        gd_part_range(X.rows, x.mult, i, nparts, &lo, &hi);
        X.ptr = (const char *)X.ptr + (size_t)lo * gd_class_bytes(X.cls);
        X.rows = hi - lo;
        D.ptr = (char *)x.pd + (size_t)(i * x.K * Y.rows) * es;
        I.ptr = x.pi + i * x.K * Y.rows;
        icls = GD_INT32;
    } else {
        gd_part_range(Y.rows, x.mult, i, nparts, &lo, &hi);
        Y.ptr = (const char *)Y.ptr + (size_t)lo * gd_class_bytes(Y.cls);
        Y.rows = hi - lo;
        D.ptr = (char *)x.D.ptr + (size_t)(lo * x.K) * es;
        I.ptr = (char *)x.I.ptr + (size_t)(lo * x.K) * gd_class_bytes(x.icls);
    }
    gd_knn_share sh = {x.share, i, nparts, x.units, false};
    gd_status s = GD_OK;
    if (Y.rows > 0 || x.points)
        s = x.cls == GD_SINGLE ? run_gpu<float>(X, Y, x.metric, x.K, x.largest, D, I, icls, t,
                                                x.gemm, x.share ? &sh : NULL)
                               : run_gpu<double>(X, Y, x.metric, x.K, x.largest, D, I, icls, t,
                                                 x.gemm, x.share ? &sh : NULL);
    if (x.share) sh.leave(false);
    return s;
}

/* query j's K least of the parts' lists, by (key, row) */
template <class T>
void merge_lists(const knn_split &x, int nparts, const int64_t *first_row)
{
    const int64_t K = x.K, my = x.Y->rows;
    const T *pd = (const T *)x.pd;
#pragma omp parallel for schedule(static) num_threads(gd_cpu_threads())
    for (int64_t j = 0; j < my; ++j) {
        int64_t at[GD_MAX_DEVICES] = {};
        for (int64_t k = 0; k < K; ++k) {
            int best = -1;
            uint64_t bkey = 0;
            int64_t brow = 0;
            for (int p = 0; p < nparts; ++p) {
                if (at[p] == K) continue;
                const int64_t e = p * K * my + j * K + at[p];
                const uint64_t key = sizeof(T) == 4 ? gd_key_f((float)pd[e], x.largest)
                                                    : gd_key_d((double)pd[e], x.largest);
                const int64_t row = first_row[p] + x.pi[e];
                if (best < 0 || key < bkey || (key == bkey && row < brow)) {
                    best = p;
                    bkey = key;
                    brow = row;
                }
            }
            const int64_t e = best * K * my + j * K + at[best]++;
            const int64_t o = x.by_query ? k * my + j : j * K + k;
            ((T *)x.D.ptr)[o] = pd[e];
            if (x.icls == GD_INT32)
                ((int32_t *)x.I.ptr)[o] = (int32_t)brow;
            else
                ((double *)x.I.ptr)[o] = (double)brow;
        }
    }
}

/* A search of x's operands for a variant (gemm or not) whose K
 * neighbours (the largest or smallest) come by query or not: its parts'
 * shape, X's rows split where X is the larger and the variant is fused
 * (gemm divides the queries whatever X's size: each device's search is
 * then half of every pass; with X's rows split, each device re-ranked K
 * candidates a query, every query) */
knn_split knn_search(const gd_matrix &X, const gd_matrix &Y, gd_class cls, gd_class icls,
                     gd_distance metric, int64_t K, int largest, int by_query, gd_out D,
                     gd_out I, bool gemm)
{
    knn_split x = {};
    x.X = &X;
    x.Y = &Y;
    x.cls = cls;
    x.icls = icls;
    x.metric = metric;
    x.K = K;
    x.largest = largest;
    x.by_query = by_query != 0;
    x.D = D;
    x.I = I;
    x.gemm = gemm;
    x.points = X.rows > Y.rows && !gemm;
    x.mult = x.points ? gd_tile::BIG : 64;
    return x;
}

/* The search on this thread's device */
gd_status knn_one(const knn_split &x, gd_timing *t)
{
    return x.cls == GD_SINGLE ? run_gpu<float>(*x.X, *x.Y, x.metric, x.K, x.largest, x.D, x.I,
                                               x.icls, t, x.gemm, NULL, x.by_query)
                              : run_gpu<double>(*x.X, *x.Y, x.metric, x.K, x.largest, x.D, x.I,
                                                x.icls, t, x.gemm, NULL, x.by_query);
}

/* The search divided over devices idx[0, nd); with X's rows split,
 * over as many as leave every part K rows (the last is the shortest) */
gd_status split_knn(knn_split &x, int nd, const int *idx, gd_timing *t)
{
    for (int64_t lo, hi; x.points && nd > 1; --nd) {
        gd_part_range(x.X->rows, x.mult, nd - 1, nd, &lo, &hi);
        if (hi - lo >= x.K) break;
    }
    if (!gd_split_needed(nd, idx)) return knn_one(x, t);
    const int64_t K = x.K, my = x.Y->rows;
    const size_t es = gd_class_bytes(x.cls);
    char what[96];
    gd_describe(what, sizeof what, "D", K, my, x.cls);
    gd_status s = gd_out_buffer(&x.D, (size_t)(K * my) * es, what);
    gd_describe(what, sizeof what, "I", K, my, x.icls);
    if (!s) s = gd_out_buffer(&x.I, (size_t)(K * my) * gd_class_bytes(x.icls), what);
    if (s) return s;
    if (!x.points) {
        /* X from the host to every device: each uploads a share of it and
         * pulls the rest from the others (the host's copies, which two
         * devices' uploads of all of X contended for, halve) */
        if (x.gemm && x.X->where == GD_HOST) {
            x.units = gd_knn_gemm_units((size_t)(x.X->rows * x.X->cols) * gd_class_bytes(x.cls));
            x.share = gd_share_make(nd, idx, x.units);
        }
        /* by_query: the parts' columns K x my, turned into place after */
        const size_t n = (size_t)(K * my), ies = gd_class_bytes(x.icls);
        void *lists = x.by_query ? malloc(n * (es + ies) + 8) : NULL;
        const gd_out D = x.D, I = x.I;
        if (x.by_query && !lists)
            s = gd_fail(GD_ERR_MEMORY, "cannot allocate the devices' neighbour lists (%.1f MiB) "
                        "in host memory", gd_mib(n * (es + ies)));
        if (lists) {
            x.I.ptr = lists;
            x.D.ptr = (char *)lists + n * ies;
        }
        if (!s) s = gd_run_parts(nd, idx, knn_part, &x, t);
        if (!s && lists) {
            gd_cpu_transpose(es, x.D.ptr, K, K, my, D.ptr);
            gd_cpu_transpose(ies, x.I.ptr, K, K, my, I.ptr);
        }
        free(lists);
        x.D = D;
        x.I = I;
        gd_share_free(x.share);
        x.share = NULL;
        return s;
    }
    x.pd = malloc((size_t)(nd * K * my) * es + 8);
    x.pi = (int32_t *)malloc((size_t)(nd * K * my) * 4 + 4);
    if (!x.pd || !x.pi) {
        s = gd_fail(GD_ERR_MEMORY, "cannot allocate the devices' neighbour lists (%.1f MiB) in "
                    "host memory", gd_mib((size_t)(nd * K * my) * (es + 4)));
    } else if (!(s = gd_run_parts(nd, idx, knn_part, &x, t))) {
        int64_t first_row[GD_MAX_DEVICES], hi;
        for (int p = 0; p < nd; ++p) gd_part_range(x.X->rows, x.mult, p, nd, &first_row[p], &hi);
        const double t0 = gd_now_ms();
        if (x.cls == GD_SINGLE)
            merge_lists<float>(x, nd, first_row);
        else
            merge_lists<double>(x, nd, first_row);
        t->prep_ms += gd_now_ms() - t0;
        snprintf(t->kernel, sizeof t->kernel, "rows split, merged");
    }
    free(x.pd);
    free(x.pi);
    return s;
}

