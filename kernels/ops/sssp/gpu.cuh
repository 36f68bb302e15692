/* ops/sssp/gpu.cuh - the GPU variants of gd_apsp's 'Sources' ('gpu',
 * 'rounds', 'nearfar'): their driver, which takes near-far (nearfar.cuh)
 * or the rounds (a probe of four sources' rounds decides where no weight
 * is negative), and the rounds: Bellman-Ford rounds as the tropical
 * product of the sources' lengths with W's compressed columns, every
 * source at once, then the trees (from unique tight predecessors where
 * every cell has one, trees.cuh; else by levels).
 * A round visits only the vertices with an edge in from one that fell in
 * the round before (any source's): a pass over W's columns lists them,
 * then a thread a (source, listed vertex) relaxes.
 *
 * D is ns x n (a source a row, as the result), so the threads of a warp
 * are consecutive sources of one vertex j and read D(k, q) of one q
 * together. A round: for each (k, j), the least of D(k, j) and D(k, q) +
 * W(q, j) over the edges into j (W's column j) from the vertices q whose
 * length fell in the round before (any source's: a flag a vertex), written
 * in place (a length only falls, and every value is a walk's, so the
 * fixed point is the host's, bit for bit). A round that lowers nothing
 * ends it; one that still lowers after n rounds shows a negative cycle (a
 * shortest walk has at most n - 1 edges), found by following who last
 * lowered each length back n steps from a vertex lowered then.
 *
 * The trees: level 0 the source; round L gives each vertex j not yet
 * levelled, with a tight edge q -> j (q != j, D(q) + W(q, j) == D(j) in
 * the class) from a vertex of level L - 1, level L and P(j) the smallest
 * such q: breadth first over tight edges, the host's rule. */

/* the vertices with an edge in from a flagged one, listed (any order) */
__global__ void sssp_listed(const int64_t *__restrict__ cp, const int64_t *__restrict__ ri,
                            int64_t n, const unsigned char *__restrict__ flag, int64_t *list,
                            unsigned long long *count)
{
    const int lane = threadIdx.x & 31;
    for (int64_t w0 = blockIdx.x * (int64_t)blockDim.x + threadIdx.x - lane; w0 < n;
         w0 += (int64_t)gridDim.x * blockDim.x) {
        const int64_t j = w0 + lane;
        bool want = false;
        if (j < n)
            for (int64_t e = cp[j]; e < cp[j + 1] && !want; ++e) want = flag[ri[e]] != 0;
        nf_put<int64_t>(want, j, list, count);
    }
}

template <class T>
__global__ void sssp_relax(const int64_t *__restrict__ cp, const int64_t *__restrict__ ri,
                           const T *__restrict__ w, int64_t ns, const int64_t *__restrict__ list,
                           const unsigned long long *count, T *D,
                           const unsigned char *__restrict__ fell, unsigned char *falls,
                           int32_t *last, int32_t *lowered, int *any)
{
    const int64_t total = (int64_t)*count * ns;
    bool fall = false; /* (the flag set once a thread, not once a length) */
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = t % ns, j = list[t / ns], i = k + ns * j;
        T best = D[i];
        int64_t from = -1;
        for (int64_t e = cp[j]; e < cp[j + 1]; ++e) {
            const int64_t q = ri[e];
            if (!fell[q]) continue;
            const T x = D[k + ns * q] + w[e];
            if (x < best) {
                best = x;
                from = q;
            }
        }
        if (from < 0) continue;
        D[i] = best;
        falls[j] = 1;
        if (last) last[i] = (int32_t)from;
        if (lowered) lowered[k] = (int32_t)j + 1;
        fall = true;
    }
    if (fall) *any = 1;
}

/* round L of the levels: P in class PT (0 for a source, its predecessor
 * 1-based) */
template <class T, class PT>
__global__ void sssp_levels(const int64_t *__restrict__ cp, const int64_t *__restrict__ ri,
                            const T *__restrict__ w, int64_t ns, const int64_t *__restrict__ list,
                            const unsigned long long *count, const T *__restrict__ D,
                            int32_t *lvl, int32_t L, PT *P, unsigned char *levelled, int *any)
{
    const int64_t total = (int64_t)*count * ns;
    bool made = false;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = t % ns, j = list[t / ns], i = k + ns * j;
        if (lvl[i] >= 0) continue;
        const T dj = D[i];
        int64_t best = -1;
        for (int64_t e = cp[j]; e < cp[j + 1]; ++e) {
            const int64_t q = ri[e];
            if (q == j || (best >= 0 && q >= best) || lvl[k + ns * q] != L - 1) continue;
            if (sssp_tight(D[k + ns * q], w[e], dj) && dj < (T)INFINITY) best = q;
        }
        if (best < 0) continue;
        lvl[i] = L;
        P[i] = (PT)(best + 1);
        levelled[j] = 1;
        made = true;
    }
    if (made) *any = 1;
}

/* the start: D Inf but 0 at each source; the levels -1 but 0 there; P
 * "none" (-1, or NaN in double) but 0 there; the sources' vertices fell */
template <class T, class PT>
__global__ void sssp_start(int64_t n, int64_t ns, const int64_t *src, T *D, int32_t *lvl,
                           int32_t *last, PT *P, PT none, unsigned char *fell)
{
    const int64_t total = n * ns;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = i % ns, j = i / ns;
        const bool s = src[k] == j;
        if (D) D[i] = s ? (T)0 : (T)INFINITY;
        if (lvl) lvl[i] = s ? 0 : -1;
        if (last) last[i] = -1;
        if (P) P[i] = s ? (PT)0 : none;
        if (s) fell[j] = 1;
    }
}

__global__ void sssp_mark_sources(const int64_t *src, int64_t ns, unsigned char *flag)
{
    const int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (k < ns) flag[src[k]] = 1;
}

/* a round's listed work: as many blocks as fill the GPU four times over
 * at most (the count is on the device; the threads stride over it) */
unsigned sssp_list_grid(int64_t most)
{
    const int sms = gd_sm_count();
    const unsigned g = sssp_grid(most), cap = (unsigned)(sms > 0 ? sms : 132) * 16;
    return g < cap ? g : cap;
}

template <class T>
bool sssp_upload(gd_call &c, const sssp_edges<T> &g, const int64_t *src, int64_t ns,
                 sssp_up<T> *u)
{
    const int64_t n = g.n, m = g.cp[n];
    cudaStream_t st = gd_stream();
    u->cp = (int64_t *)c.alloc((size_t)(n + 1) * 8, "W's column starts");
    u->ri = (int64_t *)c.alloc((size_t)m * 8 + 8, "W's rows");
    u->w = (T *)c.alloc((size_t)m * sizeof(T) + 8, "W's weights");
    u->src = (int64_t *)c.alloc((size_t)ns * 8 + 8, "the sources");
    c.cuda(cudaMemcpyAsync(u->cp, g.cp, (size_t)(n + 1) * 8, cudaMemcpyHostToDevice, st), "W's column starts");
    c.cuda(cudaMemcpyAsync(u->ri, g.ri, (size_t)m * 8, cudaMemcpyHostToDevice, st), "W's rows");
    c.cuda(cudaMemcpyAsync(u->w, g.val, (size_t)m * sizeof(T), cudaMemcpyHostToDevice, st), "W's weights");
    c.cuda(cudaMemcpyAsync(u->src, src, (size_t)ns * 8, cudaMemcpyHostToDevice, st), "the sources");
    return c.ok();
}

/* a round's scratch: the vertices listed, their count, a flag */
struct sssp_work {
    int64_t *list;
    unsigned long long *count;
    int *any;
};
bool sssp_work_alloc(gd_call &c, int64_t n, sssp_work *wk)
{
    wk->list = (int64_t *)c.alloc((size_t)n * 8 + 8, "a round's vertices");
    wk->count = (unsigned long long *)c.alloc(8, "their count");
    wk->any = (int *)c.alloc(sizeof(int), "a flag");
    return c.ok();
}

/* One round of ns sources' lengths at dD: the vertices with an edge in
 * from one flagged in now listed, then relaxed (next flags those that
 * fell); whether a length fell. last and lowered: where a weight is
 * negative, who last lowered each length and each source's last
 * lowering (the cycle's search) */
template <class T>
bool sssp_round(gd_call &c, const sssp_up<T> &u, int64_t n, int64_t ns, T *dD,
                const sssp_work &wk, const unsigned char *now, unsigned char *next,
                int32_t *last, int32_t *lowered)
{
    cudaStream_t st = gd_stream();
    c.cuda(cudaMemsetAsync(next, 0, (size_t)n, st), "the fallen vertices");
    c.cuda(cudaMemsetAsync(wk.any, 0, sizeof(int), st), "a flag");
    c.cuda(cudaMemsetAsync(wk.count, 0, 8, st), "a count");
    if (lowered) c.cuda(cudaMemsetAsync(lowered, 0, (size_t)ns * 4, st), "the lowerings");
    if (c.ok()) {
        sssp_listed<<<sssp_grid(n), 256, 0, st>>>(u.cp, u.ri, n, now, wk.list, wk.count);
        sssp_relax<T><<<sssp_list_grid(n * ns), 256, 0, st>>>(u.cp, u.ri, u.w, ns, wk.list, wk.count, dD, now, next, last, lowered, wk.any);
    }
    c.launched("a round");
    int any = 0;
    c.cuda(cudaMemcpyAsync(&any, wk.any, sizeof(int), cudaMemcpyDeviceToHost, st), "a flag");
    c.cuda(cudaStreamSynchronize(st), "a round");
    return c.ok() && any;
}

/* The probe that chooses between the rounds and near-far on non-negative
 * weights: the rounds of up to SSSP_PROBE sources spread over s (their
 * vertices at dsrc, on the device), stopped after most; the rounds they
 * took (most + 1 where they had not settled). Rounds cost a pass over the
 * listed vertices' edges for every source however few lengths fall, so
 * they suit graphs whose shortest paths have few edges (kernels/NOTES.md
 * "From sources"). */
enum { SSSP_PROBE = 4, SSSP_ROUNDS_MOST = 40 };
template <class T>
int64_t sssp_probe(gd_call &c, const sssp_up<T> &u, int64_t n, const int64_t *dsrc, int64_t np,
                   int64_t most)
{
    cudaStream_t st = gd_stream();
    T *d = (T *)c.alloc((size_t)(n * np) * sizeof(T) + 8, "the probe's lengths");
    unsigned char *fell = (unsigned char *)c.alloc((size_t)2 * n + 2, "the probe's vertices");
    sssp_work wk;
    if (!sssp_work_alloc(c, n, &wk)) return 0;
    c.cuda(cudaMemsetAsync(fell, 0, (size_t)2 * n + 2, st), "the probe's vertices");
    unsigned char *now = fell, *next = fell + n + 1;
    if (c.ok())
        sssp_start<T, int32_t><<<sssp_grid(n * np), 256, 0, st>>>(n, np, dsrc, d, NULL, NULL, NULL, 0, now);
    c.launched("the probe");
    const sssp_up<T> pu = {u.cp, u.ri, NULL, u.w};
    int64_t r = 0;
    while (r <= most && sssp_round<T>(c, pu, n, np, d, wk, now, next, NULL, NULL)) {
        std::swap(now, next);
        ++r;
    }
    return r;
}

/* the rounds and the trees on the device: D (and P) at dD (dP), tight
 * ns x n; 1 and *cycle where a source reaches a negative cycle */
template <class T, class PT>
int sssp_device(gd_call &c, const sssp_edges<T> &g, const sssp_up<T> &u, int64_t ns, T *dD,
                PT *dP, PT none, int neg, int64_t *cycle, gd_timing *t)
{
    const int64_t n = g.n, m = g.cp[n], total = n * ns;
    cudaStream_t st = gd_stream();
    const int64_t *dcp = u.cp, *dri = u.ri, *dsrc = u.src;
    const T *dw = u.w;
    unsigned char *fell = (unsigned char *)c.alloc((size_t)2 * n + 2, "the fallen vertices");
    sssp_work wk;
    int32_t *lvl = dP ? (int32_t *)c.alloc((size_t)total * 4 + 4, "the levels") : NULL;
    int32_t *last = neg ? (int32_t *)c.alloc((size_t)total * 4 + 4, "the last lowerings") : NULL;
    int32_t *lowered = neg ? (int32_t *)c.alloc((size_t)ns * 4 + 4, "the sources' lowerings") : NULL;
    if (!sssp_work_alloc(c, n, &wk)) return 0;
    int64_t *list = wk.list;
    unsigned long long *count = wk.count;
    int *dany = wk.any;
    c.cuda(cudaMemsetAsync(fell, 0, (size_t)2 * n + 2, st), "the fallen vertices");
    unsigned char *now = fell, *next = fell + n + 1;
    c.begin(GD_PHASE_KERNEL, st);
    if (c.ok() && total)
        sssp_start<T, PT><<<sssp_grid(total), 256, 0, st>>>(n, ns, dsrc, dD, lvl, last, (PT *)NULL, none, now);
    c.launched("the start"); /* (P: the trees' pass writes every cell) */
    /* the rounds, until one lowers nothing */
    int64_t rounds = 0;
    bool falling = total > 0;
    while (c.ok() && falling) {
        if (rounds == n && neg) { /* still falling after n rounds: a negative cycle */
            std::vector<int32_t> low((size_t)ns), back((size_t)n);
            c.cuda(cudaMemcpyAsync(low.data(), lowered, (size_t)ns * 4, cudaMemcpyDeviceToHost, st), "the lowerings");
            c.cuda(cudaStreamSynchronize(st), "the lowerings");
            int64_t k = 0;
            while (k < ns && !low[(size_t)k]) ++k;
            if (!c.ok() || k == ns) break;
            c.cuda(cudaMemcpy2DAsync(back.data(), 4, last + k, (size_t)ns * 4, 4, (size_t)n,
                                     cudaMemcpyDeviceToHost, st), "the last lowerings");
            c.cuda(cudaStreamSynchronize(st), "the last lowerings");
            int64_t v = low[(size_t)k] - 1;
            for (int64_t s = 0; s < n && back[(size_t)v] >= 0; ++s) v = back[(size_t)v];
            *cycle = v + 1;
            c.end(GD_PHASE_KERNEL, st);
            return 1;
        }
        falling = sssp_round<T>(c, u, n, ns, dD, wk, now, next, last, lowered);
        std::swap(now, next);
        ++rounds;
        if ((rounds & 63) == 0 && gd_interrupted()) c.check(gd_fail(GD_ERR_INTERRUPT, "interrupted"));
    }
    /* the trees: from unique tight predecessors (trees.cuh), else a level
     * a round */
    int64_t levels = 0, chained = 0;
    std::vector<int64_t> tied;
    const bool unique = dP && c.ok() &&
                        sssp_trees_unique<T, PT>(c, u, n, ns, 0, ns, dD, dP, none, &tied, &chained,
                                                 lvl, (size_t)total * 4) &&
                        tied.empty();
    int any = dP != NULL && total > 0 && !unique && c.ok();
    /* the vertices levelled in the round before (L - 1 = 0: the sources) */
    if (any) {
        /* P none but 0 at the sources, as the levels expect */
        sssp_start<T, PT><<<sssp_grid(total), 256, 0, st>>>(n, ns, dsrc, (T *)NULL, lvl, (int32_t *)NULL, dP, none, fell);
        c.launched("the trees' start");
        c.cuda(cudaMemsetAsync(fell, 0, (size_t)2 * n + 2, st), "the levelled vertices");
        if (c.ok()) sssp_mark_sources<<<sssp_grid(ns), 256, 0, st>>>(dsrc, ns, fell);
        c.launched("the sources");
        now = fell;
        next = fell + n + 1;
    }
    for (int32_t L = 1; c.ok() && any; ++L) {
        c.cuda(cudaMemsetAsync(next, 0, (size_t)n, st), "the levelled vertices");
        c.cuda(cudaMemsetAsync(dany, 0, sizeof(int), st), "a flag");
        c.cuda(cudaMemsetAsync(count, 0, 8, st), "a count");
        if (c.ok()) {
            sssp_listed<<<sssp_grid(n), 256, 0, st>>>(dcp, dri, n, now, list, count);
            sssp_levels<T, PT><<<sssp_list_grid(total), 256, 0, st>>>(dcp, dri, dw, ns, list, count,
                                                                       dD, lvl, L, dP, next, dany);
        }
        c.launched("a level");
        std::swap(now, next);
        c.cuda(cudaMemcpyAsync(&any, dany, sizeof(int), cudaMemcpyDeviceToHost, st), "a flag");
        c.cuda(cudaStreamSynchronize(st), "a level");
        levels = L;
        if ((L & 63) == 0 && gd_interrupted()) c.check(gd_fail(GD_ERR_INTERRUPT, "interrupted"));
    }
    c.end(GD_PHASE_KERNEL, st);
    snprintf(t->kernel, sizeof t->kernel, "%lld source%s, %lld edges, # rounds, # levels",
             (long long)ns, ns == 1 ? "" : "s", (long long)m);
    if (dP) sssp_trees_said(t, unique ? 0 : ns, ns, unique ? chained : 0);
    t->counts[0] = rounds;
    t->counts[1] = levels;
    return 0;
}

/* the GPU's two methods: chosen by the probe, or asked for */
enum sssp_method { SSSP_CHOOSE, SSSP_NEARFAR, SSSP_ROUNDS };

/* the rounds' probe on up to SSSP_PROBE sources spread over src: whether
 * they settle within SSSP_ROUNDS_MOST rounds (*rounds: how many they took) */
template <class T>
bool sssp_rounds_suit(gd_call &c, const sssp_up<T> &u, int64_t n, const int64_t *src, int64_t ns,
                      int64_t *rounds)
{
    int64_t pick[SSSP_PROBE];
    const int64_t np = ns < SSSP_PROBE ? ns : SSSP_PROBE;
    for (int64_t k = 0; k < np; ++k) pick[k] = src[k * ns / np];
    int64_t *dp = (int64_t *)c.alloc(sizeof pick, "the probe's sources");
    c.cuda(cudaMemcpyAsync(dp, pick, (size_t)np * 8, cudaMemcpyHostToDevice, gd_stream()), "the probe's sources");
    *rounds = c.ok() ? sssp_probe<T>(c, u, n, dp, np, SSSP_ROUNDS_MOST) : 0;
    return *rounds <= SSSP_ROUNDS_MOST;
}

/* run_gpu's guard over the host's D and P: the threads touching their
 * pages while the kernels run (f: D's, P's), waited for before the
 * downloads and on every path, as is D's download where it goes behind
 * the trees (d: near-far, where D is whole before P is made) */
struct sssp_touched {
    gd_prefault *f[2] = {NULL, NULL};
    gd_behind *d = NULL;
    gd_status settle()
    {
        for (gd_prefault *&x : f) {
            gd_host_prefault_wait(x);
            x = NULL;
        }
        const gd_status s = gd_download_behind_wait(d);
        d = NULL;
        return s;
    }
    ~sssp_touched() { settle(); }
};

/* info.kernel's note of the probe's rounds (probed < 0: no probe) */
void sssp_probe_said(gd_timing *t, int64_t probed)
{
    if (probed < 0) return;
    const size_t at = strlen(t->kernel);
    snprintf(t->kernel + at, sizeof t->kernel - at, "; probe: %s%lld rounds",
             probed > SSSP_ROUNDS_MOST ? "over " : "",
             (long long)(probed > SSSP_ROUNDS_MOST ? SSSP_ROUNDS_MOST : probed));
}

/* the GPU variants: W's edges up (a dense W's gathered on the host
 * first), D and P made on the device by the method, kept there or brought
 * down */
template <class T>
gd_status run_gpu(const gd_matrix *W, const gd_sparse *S, const int64_t *src, int64_t ns,
                  gd_out D, const gd_out *P, gd_class pcls, int all_pairs, int64_t *cycle,
                  sssp_method method, gd_timing *t)
{
    gd_status s = gd_device_ready();
    if (s) return s;
    sssp_edges<T> g;
    void *hw = NULL;
    gd_matrix Wh;
    s = W ? gd_operand_host(W, &Wh, &hw, "W") : GD_OK;
    if (!s) s = W ? g.from_dense(Wh) : g.from_sparse(*S);
    if (s) {
        free(hw);
        return s;
    }
    const int64_t n = g.n, m = g.cp[n];
    const size_t cells = (size_t)(ns * n), pb = cells * gd_class_bytes(pcls);
    const int neg = g.neg;
    if (neg && method == SSSP_NEARFAR) {
        free(hw);
        return gd_fail(GD_ERR_VARIANT, "'nearfar' takes non-negative weights: W has a negative "
                       "one (take 'rounds' or 'gpu')");
    }
    /* near-far's bucket width: 32 times the mean weight over the mean
     * out-degree, scaled by GD_SSSP_DELTA percent; Inf (one bucket) where
     * every weight is 0 */
    long pct = 100;
    gd_setting_int(GD_SET_SSSP_DELTA, 1, 1000000, &pct);
    double delta = g.finite > 0 && n > 0 ? 32.0 * (g.sum / g.finite) / ((double)m / (double)n) : 0;
    delta *= (double)pct / 100.0;
    if (!(delta > 0)) delta = INFINITY;
    t->ops = (double)ns * (double)m;
    const char *vname = method == SSSP_NEARFAR ? "nearfar" : method == SSSP_ROUNDS ? "rounds" : "gpu";
    snprintf(t->variant, sizeof t->variant, "%s", vname);
    gd_call c(t, vname);
    cudaStream_t st = gd_stream();
    gd_out Po = P ? *P : gd_out{};
    T *dD = (T *)(D.device ? c.alloc_kept(D, cells * sizeof(T) + 8, "D")
                           : c.alloc(cells * sizeof(T) + 8, "D"));
    /* a host P of doubles made on the device as int32s and widened as it
     * lands (half its bytes over the bus) */
    const bool narrow = P && !Po.device && pcls == GD_DOUBLE && n < INT32_MAX;
    const gd_class dcls = narrow ? GD_INT32 : pcls;
    const size_t dpb = cells * gd_class_bytes(dcls);
    void *dP = !P ? NULL : Po.device ? c.alloc_kept(Po, pb + 8, "P") : c.alloc(dpb + 8, "P");
    /* the host's D and P made, and their pages touched while the kernels
     * run (the guard waits on every path) */
    sssp_touched touch;
    void *hD = !D.device ? c.host_result(D, cells * sizeof(T), "D") : NULL;
    void *hP = P && !Po.device ? c.host_result(Po, pb, "P") : NULL;
    if (hD) touch.f[0] = gd_host_prefault(hD, cells * sizeof(T));
    if (hP) touch.f[1] = gd_host_prefault(hP, pb);
    int found = 0;
    bool d_sent = false; /* D's download gone behind the trees */
    const int32_t none_i = all_pairs ? 0 : -1; /* P where no path: all pairs' 0, else NaN or -1 */
    const double none_d = all_pairs ? 0.0 : NAN;
    sssp_up<T> u = {};
    nf_graph<T> rows = {};
    c.begin(GD_PHASE_PREP, st);
    const bool up = c.ok() && sssp_upload<T>(c, g, src, ns, &u);
    c.end(GD_PHASE_PREP, st);
    int64_t probed = -1;
    c.begin(GD_PHASE_KERNEL, st);
    const bool rounds = up && (neg || method == SSSP_ROUNDS ||
                               (method == SSSP_CHOOSE && n > 0 && sssp_rounds_suit<T>(c, u, n, src, ns, &probed)));
    c.end(GD_PHASE_KERNEL, st);
    c.begin(GD_PHASE_PREP, st);
    bool nf = up && !rounds && n > 0 && nf_rows<T>(c, n, m, u.cp, u.ri, u.w, &rows);
    /* the vertices renumbered where W's order scatters a frontier
     * (order.cuh): W's rows again in the new order, the sources too */
    int32_t *to_new = NULL, *to_old = NULL;
    const int64_t *gsrc = u.src;
    if (nf && nf_order<T>(c, rows, m, u.cp, u.ri, &to_new, &to_old)) {
        int64_t *ns_new = (int64_t *)c.alloc((size_t)ns * 8 + 8, "the sources renumbered");
        if (c.ok()) nf_sources_new<<<sssp_grid(ns), 256, 0, st>>>(u.src, ns, to_new, ns_new);
        nf = c.launched("the sources renumbered") && nf_rows<T>(c, n, m, u.cp, u.ri, u.w, &rows, to_new, to_old);
        gsrc = ns_new;
    }
    c.end(GD_PHASE_PREP, st);
    if (nf) {
        c.begin(GD_PHASE_KERNEL, st);
        const std::function<void()> d_done = [&]() {
            const cudaEvent_t ev = hD && cells && dP ? c.event() : NULL;
            if (!ev || !c.cuda(cudaEventRecord(ev, st), "D")) return;
            gd_prefault *f = touch.f[0]; /* (the thread's now) */
            touch.f[0] = NULL;
            d_sent = c.check(gd_download_behind(&touch.d, hD, cells * sizeof(T), dD, cells * sizeof(T),
                                                cells * sizeof(T), 1, ev, f, t, "D"));
        };
        if (dcls == GD_INT32)
            nf_device<T, int32_t>(c, rows, u, ns, gsrc, dD, (int32_t *)dP, none_i, (T)delta, t, d_done);
        else
            nf_device<T, double>(c, rows, u, ns, gsrc, dD, (double *)dP, none_d, (T)delta, t, d_done);
        c.end(GD_PHASE_KERNEL, st);
    } else if (c.ok() && up)
        found = dcls == GD_INT32 ? sssp_device<T, int32_t>(c, g, u, ns, dD, (int32_t *)dP, none_i, neg, cycle, t)
                                 : sssp_device<T, double>(c, g, u, ns, dD, (double *)dP, none_d, neg, cycle, t);
    sssp_probe_said(t, probed);
    if (found)
        c.check(gd_fail(GD_ERR_NEGCYCLE, "a negative cycle is reachable from a source: vertex "
                        "%lld lies on it", (long long)*cycle));
    const cudaEvent_t done = c.event();
    c.cuda(cudaEventRecord(done, st), "the lengths");
    c.check(touch.settle());
    if (hD && cells && !d_sent)
        c.download(hD, cells * sizeof(T), dD, cells * sizeof(T), cells * sizeof(T), 1, done, "D");
    if (hP && cells && narrow)
        c.check(gd_download_widen((double *)hP, (const int32_t *)dP, cells, none_i, none_d, done, "P"));
    else if (hP && cells)
        c.download(hP, pb, dP, pb, pb, 1, done, "P");
    c.wait(st, "the paths");
    free(hw);
    return c.finish();
}
